//! `brudno epd FILE [OPTIONS]`.

use std::time::Duration;

use crate::epd::{Budget, Settings};

/// Runs a test suite of EPD positions (bm, am, c8/c9)
///
/// Searches each position of FILE and scores the move played against its
/// 'bm' (best moves), 'am' (moves to avoid) and 'c9'/'c8' (moves and points).
#[derive(clap::Args)]
pub struct Args {
    /// The EPD suite
    file: String,
    /// Search each position MS milliseconds, all of it: no Move Overhead is
    /// kept back [default: 1000]
    #[arg(long, value_name = "MS", conflicts_with_all = ["nodes", "depth"],
          value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Search each position N nodes
    #[arg(long, value_name = "N", conflicts_with = "depth",
          value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Search each position to depth D
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(i32).range(1..=127))]
    depth: Option<i32>,
    /// Only the first N positions of the file
    #[arg(long, value_name = "N")]
    first: Option<usize>,
    /// Search threads
    #[arg(long, value_name = "T", default_value_t = 1,
          value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Transposition table size in MB
    #[arg(long, value_name = "MB", default_value_t = 16,
          value_parser = clap::value_parser!(u32).range(1..=65_536))]
    hash: u32,
}

pub fn run(args: &Args) -> Result<(), String> {
    let budget = match (args.movetime, args.nodes, args.depth) {
        (_, Some(n), _) => Budget::Nodes(n),
        (_, _, Some(d)) => Budget::Depth(d),
        (ms, _, _) => Budget::MoveTime(Duration::from_millis(ms.unwrap_or(1000))),
    };
    let text = super::read_text(&args.file)?;
    let settings = Settings {
        budget,
        hash_mb: args.hash as usize,
        threads: usize::from(args.threads),
        first: args.first.unwrap_or(usize::MAX),
    };
    crate::epd::run(&text, &settings, &mut |s| println!("{s}")).map(|_| ())
}
