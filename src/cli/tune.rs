//! `brudno tune DATA [OPTIONS]`.

use crate::{data, eval, tune};

/// Fits the handcrafted evaluation's weights (or the WDL model)
///
/// Fits the evaluation weights to the positions of DATA (a datagen text
/// file): Adam on the mean squared error of sigmoid(K * eval) against a
/// blend of the game result and sigmoid(K * score).
#[derive(clap::Args)]
pub struct Args {
    /// Positions: a datagen text file (or, with --wdl, packed .bin data)
    #[arg(value_name = "DATA")]
    data: String,
    /// Passes over the data (0 only reports the loss)
    #[arg(long, value_name = "N", default_value_t = 400)]
    epochs: usize,
    /// Weight of the game result in the target
    #[arg(long, value_name = "L", default_value_t = 0.5, value_parser = unit)]
    lambda: f64,
    /// Learning rate
    #[arg(long, value_name = "X", default_value_t = 1.0, value_parser = positive)]
    lr: f64,
    /// Pull towards the starting weights
    #[arg(long, value_name = "X", default_value_t = 0.0)]
    l2: f64,
    /// Read at most N positions
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Threads [default: all cores]
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Keep material and the piece-square tables as they are
    #[arg(long)]
    freeze_pst: bool,
    /// Report the loss on these held-out positions before and after
    #[arg(long, value_name = "FILE")]
    hold: Option<String>,
    /// Write the weights' source here [default: standard output]
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    /// Fit the WDL model of `UCI_ShowWDL` instead (DATA may then be packed,
    /// .bin: its trainable positions)
    #[arg(long)]
    wdl: bool,
}

/// A number from 0 to 1.
pub fn unit(text: &str) -> Result<f64, String> {
    let x: f64 = text.parse().map_err(|e| format!("{e}"))?;
    if (0.0..=1.0).contains(&x) {
        Ok(x)
    } else {
        Err(format!("{x} is not between 0 and 1"))
    }
}

/// A finite number above 0.
pub fn positive(text: &str) -> Result<f64, String> {
    let x: f64 = text.parse().map_err(|e| format!("{e}"))?;
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(format!("{x} is not a finite number above 0"))
    }
}

/// The machine's cores.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Up to `limit` positions of a text data file.
fn positions(path: &str, limit: usize) -> Result<tune::Data, String> {
    super::read_text(path).map(|text| tune::Data::parse(&text, limit))
}

/// `--wdl`: fits the WDL model of `UCI_ShowWDL`.
fn fit_wdl(path: &str, limit: usize) -> Result<(), String> {
    // Packed files (network self-play) fit the model on the positions a
    // network trains on; text files hold only such positions.
    let samples = if crate::data::Kind::of(path) == Some(crate::data::Kind::Packed) {
        data::packed::read_all(&super::read(path)?)
            .iter()
            .filter(|p| p.trainable())
            .take(limit)
            .map(|p| (f64::from(p.white_score()), p.white_result()))
            .collect()
    } else {
        positions(path, limit)?.score_results()
    };
    eprintln!("{} positions", samples.len());
    let (a, b, nll) = tune::fit_wdl(&samples);
    println!("WDL_A = {a}, WDL_B = {b} (log-loss {nll:.4})");
    Ok(())
}

pub fn run(args: &Args) -> Result<(), String> {
    let limit = args.limit.unwrap_or(usize::MAX);
    if args.wdl {
        return fit_wdl(&args.data, limit);
    }
    if crate::data::Kind::of(&args.data) == Some(crate::data::Kind::Packed) {
        return Err(format!(
            "{}: the evaluation's tuner reads text data (datagen --out FILE.txt); packed data \
             trains networks (brudno train)",
            args.data
        ));
    }
    let settings = tune::Settings {
        epochs: args.epochs,
        lambda: args.lambda,
        learning_rate: args.lr,
        threads: args.threads.map_or_else(cores, usize::from),
        frozen: if args.freeze_pst {
            eval::hce::layout::BISHOP_PAIR
        } else {
            0
        },
        l2: args.l2,
    };
    let data = positions(&args.data, limit)?;
    eprintln!("{} positions", data.len());
    // Read the held-out set before the long fit, so a bad path fails at once.
    let hold = args
        .hold
        .as_deref()
        .map(|file| positions(file, usize::MAX))
        .transpose()?;
    let weights = tune::initial_weights();
    let k = tune::fit_k(&data, &weights);
    eprintln!(
        "K = {k:.6}, loss {:.6}",
        tune::loss(&data, &weights, k, settings.lambda)
    );
    let start = weights.clone();
    let tuned = tune::tune(&data, weights, k, settings, &mut |epoch, loss| {
        eprintln!("epoch {epoch}: loss {loss:.6}");
    });
    if let Some(hold) = hold {
        // Each set of weights gets its own K, as a rebuilt engine would
        // with `--epochs 0` on the held-out file.
        for (name, w) in [("before", &start), ("after", &tuned)] {
            let k = tune::fit_k(&hold, w);
            let loss = tune::loss(&hold, w, k, settings.lambda);
            eprintln!("held-out {name}: K = {k:.6}, loss {loss:.6}");
        }
    }
    let source = tune::weights_source(&tuned);
    if let Some(file) = &args.out {
        return std::fs::write(file, source).map_err(|e| format!("cannot write {file}: {e}"));
    }
    print!("{source}");
    Ok(())
}
