//! `brudno datagen [OPTIONS]`.

use crate::eval::Choice;

/// Plays self-play games for training
///
/// Plays self-play games at a fixed node count (or a soft limit under a hard
/// cap) and appends them to a data file, printing its progress.
#[derive(clap::Args)]
pub struct Args {
    /// Games to play
    #[arg(long, value_name = "N", default_value_t = 1000)]
    games: u64,
    /// Nodes a move (with --soft-nodes, the hard cap)
    #[arg(long, value_name = "N", default_value_t = 5000,
          value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    /// A soft limit: each move's search starts no new iteration once it has
    /// searched S nodes, so it ends on a whole depth; --nodes still caps it
    /// and must be at least S
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u64).range(1..))]
    soft_nodes: Option<u64>,
    /// Games played at once [default: all cores]
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Random plies after the opening, one more half the time
    #[arg(long, value_name = "R", default_value_t = 8,
          value_parser = clap::value_parser!(u8).range(0..=40))]
    random_plies: u8,
    /// Drop openings a short search (4,000 nodes) scores beyond CP either
    /// way (0 keeps all)
    #[arg(long, value_name = "CP", default_value_t = 300,
          value_parser = clap::value_parser!(i32).range(0..))]
    balance: i32,
    /// Start from the EPD/FEN lines of FILE [default: the start position]
    #[arg(long, value_name = "FILE")]
    book: Option<String>,
    /// Play with this network file, `hce` for the handcrafted evaluation, or
    /// the built-in network (the best generation so far)
    #[arg(long, value_name = "FILE", default_value = "built-in")]
    net: Choice,
    /// Random seed; use another to resume
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Output file, appended to: a name ending in .vf gets whole games
    /// (about 4 bytes a position, what the store keeps); .bin every
    /// position packed in 32 bytes; .txt quiet positions as text ('FEN |
    /// score | result', White's side, for `brudno tune`). A bare name goes
    /// into the data store [default: NET-sSEED.vf in the store]
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    #[command(flatten)]
    store: super::data::Store,
}

pub fn run(args: &Args) -> Result<(), String> {
    if let Some(soft) = args.soft_nodes
        && soft > args.nodes
    {
        return Err(format!(
            "--soft-nodes {soft} is above the hard cap --nodes {}: pass a larger --nodes \
             (a few times the soft limit)",
            args.nodes
        ));
    }
    let book = match &args.book {
        None => Vec::new(),
        Some(file) => super::read_text(file)?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect(),
    };
    let out = match &args.out {
        Some(path) if path.contains(std::path::MAIN_SEPARATOR) || path.contains('/') => {
            path.clone()
        }
        name => {
            let name = name
                .clone()
                .unwrap_or_else(|| format!("{}-s{}.vf", args.net.stem(), args.seed));
            let dir = args.store.dir()?;
            dir.join(name).to_string_lossy().into_owned()
        }
    };
    let net = args.net.load()?;
    let config = crate::datagen::Config {
        games: args.games,
        nodes: args.nodes,
        soft_nodes: args.soft_nodes,
        threads: args.threads.map_or_else(super::tune::cores, usize::from),
        random_plies: usize::from(args.random_plies),
        balance: args.balance,
        book,
        net_name: args.net.describe(&net),
        net,
        seed: args.seed,
        out,
    };
    eprintln!("writing {}", config.out);
    if let Some(dir) = std::path::Path::new(&config.out).parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    crate::datagen::run(&config)
}
