//! `brudno bench [DEPTH [NETWORK]]`.

use crate::eval::Choice;

/// Searches the 16 bench positions; the last line is '<nodes> nodes <nps> nps'
///
/// Searches the 16 positions of epd/bench.epd to DEPTH with one thread and
/// a 16 MB table, prints analytics (effective branching factor, first-move
/// cut-off rate, re-search rate, quiescence share, table hits) and, last,
/// '<nodes> nodes <nps> nps'. The node count is the fingerprint of the
/// search. (In UCI, `bench` uses the `EvalFile` loaded.)
#[derive(clap::Args)]
pub struct Args {
    /// Depth of each search
    #[arg(value_name = "DEPTH", default_value_t = crate::bench::DEFAULT_DEPTH,
          value_parser = clap::value_parser!(i32).range(1..=64))]
    depth: i32,
    /// A network file, `hce` for the handcrafted evaluation, or by default
    /// the built-in network
    #[arg(value_name = "NETWORK", default_value = "built-in")]
    net: Choice,
}

pub fn run(args: &Args) -> Result<(), String> {
    let net = args.net.load()?;
    let never = std::sync::Arc::default();
    crate::bench::run(Some(args.depth), &net, &never, &mut |s| {
        println!("{s}");
    });
    Ok(())
}
