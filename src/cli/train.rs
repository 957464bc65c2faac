//! `brudno train BIN... [OPTIONS]`.

use crate::data::{Positions, store};
use crate::nnue::features::MAX_BUCKETS;

/// Trains a network on packed positions
///
/// Trains a network (768 -> H) x 2 -> B on the trainable positions of the
/// data files (ply 16 or later, not in check, a quiet best move, no mate
/// score), by default every file of the data store, on the CPU. Whole games
/// are kept back for validation; the rest is shuffled once. Writes the
/// quantised network after every epoch (a checkpoint) and prints the
/// losses, positions a second and an ETA.
#[derive(clap::Args)]
pub struct Args {
    /// Data files (.vf games, .bin packed records) [default: every data
    /// file of the store]
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    #[command(flatten)]
    store: super::data::Store,
    /// Hidden neurons
    #[arg(long, value_name = "H", default_value_t = 128,
          value_parser = clap::value_parser!(u16).range(8..=2048))]
    hidden: u16,
    /// Output buckets by the number of pieces
    #[arg(long, value_name = "B", default_value_t = 1,
          value_parser = clap::value_parser!(u8).range(1..=MAX_BUCKETS as i64))]
    buckets: u8,
    /// Passes over the data
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    epochs: u32,
    /// Positions a step
    #[arg(long, value_name = "N", default_value_t = 16_384,
          value_parser = clap::value_parser!(u32).range(1..))]
    batch: u32,
    /// The `AdamW` learning rate, falling by a cosine
    #[arg(long, value_name = "X", default_value_t = 0.01, value_parser = super::tune::positive)]
    lr: f64,
    /// The learning rate's floor, a share of --lr
    #[arg(long, value_name = "F", default_value_t = 0.0, value_parser = super::tune::unit)]
    lr_floor: f64,
    /// Weight of the game result in the target; the rest is the search score
    #[arg(long, value_name = "W", default_value_t = 0.1, value_parser = super::tune::unit)]
    wdl: f64,
    /// Share kept back for the validation loss (below 0.5)
    #[arg(long, value_name = "F", default_value_t = 0.02, value_parser = share)]
    validation: f64,
    /// Threads [default: all cores]
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Seed of the weights and the shuffle
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Mirror each position left to right at random each epoch (twice the
    /// positions, as chess is symmetric but for castling)
    #[arg(long)]
    mirror: bool,
    /// King-mirrored inputs: each side sees the board mirrored left to
    /// right while its own king stands on files e-h (network file version 3)
    #[arg(long)]
    king_mirror: bool,
    /// Network file
    #[arg(long, value_name = "FILE", default_value = "nets/brudno.nnue")]
    out: String,
}

/// A share from 0 to below 0.5.
fn share(text: &str) -> Result<f64, String> {
    let x: f64 = text.parse().map_err(|e| format!("{e}"))?;
    if (0.0..0.5).contains(&x) {
        Ok(x)
    } else {
        Err(format!("{x} is not from 0 to below 0.5"))
    }
}

pub fn run(args: &Args) -> Result<(), String> {
    let settings = crate::train::Settings {
        hidden: usize::from(args.hidden),
        epochs: args.epochs as usize,
        batch: args.batch as usize,
        lr: args.lr as f32,
        lr_floor: args.lr_floor as f32,
        wdl: args.wdl as f32,
        threads: args.threads.map_or_else(super::tune::cores, usize::from),
        seed: args.seed,
        validation: args.validation as f32,
        mirror: args.mirror,
        buckets: usize::from(args.buckets),
        king_mirror: args.king_mirror,
    };
    let files: Vec<String> = if args.files.is_empty() {
        let dir = args.store.dir()?;
        let files = store::files(&dir)?;
        if files.is_empty() {
            return Err(format!("the data store {} holds no data", dir.display()));
        }
        files
            .iter()
            .map(|f| f.to_string_lossy().into_owned())
            .collect()
    } else {
        args.files.clone()
    };
    let mut positions = Positions::default();
    for f in &files {
        positions.read(f)?;
        eprintln!("read {f}");
    }
    let out = &args.out;
    if let Some(dir) = std::path::Path::new(out).parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    eprintln!("{}", positions.summary());
    let start = std::time::Instant::now();
    let epochs = settings.epochs;
    let (net, train_loss, val_loss) =
        crate::train::train(&positions, &settings, &mut |epoch, t, v, rate, net| {
            let eta = start.elapsed().as_secs_f64() / epoch as f64 * (epochs - epoch) as f64;
            eprintln!(
                "epoch {epoch}/{epochs}: training loss {t:.6}, validation loss {v:.6}, \
                 {rate:.0} positions/s, ETA {eta:.0} s"
            );
            // The checkpoint: a run stopped part-way leaves its last good
            // epoch's net. A net that cannot be quantised ends the run.
            crate::train::save(net, out)
        })?;
    crate::train::save(&net, out)?;
    println!("wrote {out}: training loss {train_loss:.6}, validation loss {val_loss:.6}");
    Ok(())
}
