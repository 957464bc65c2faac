//! Brudno, a UCI chess engine.
//!
//! `brudno` speaks UCI on stdin/stdout; `brudno bench [depth]` and
//! `brudno perft <depth> [fen]` run the tools directly.

mod bench;
mod board;
mod datagen;
mod engine;
mod epd;
mod eval;
mod movegen;
mod nnue;
mod perft;
mod score;
mod search;
mod tablebase;
mod threads;
mod time;
mod train;
mod tt;
mod tune;
mod uci;

use std::process::ExitCode;

use shakmaty::CastlingMode;

/// A FEN from the command line: standard chess when it is one, else Chess960
/// (Shredder-FEN or X-FEN castling rights).
fn read_fen(text: &str) -> Result<(board::Board, CastlingMode), String> {
    board::Board::from_fen(text, CastlingMode::Standard)
        .ok()
        .filter(|(_, warnings)| warnings.is_empty())
        .map(|(b, _)| (b, CastlingMode::Standard))
        .map_or_else(
            || {
                board::Board::from_fen(text, CastlingMode::Chess960)
                    .map(|(b, _)| (b, CastlingMode::Chess960))
            },
            Ok,
        )
}

const USAGE: &str = concat!(
    "Brudno ",
    env!("CARGO_PKG_VERSION"),
    ", a UCI chess engine

usage: brudno [COMMAND]

With no command, Brudno speaks UCI on standard input and output.

commands:
  bench [DEPTH [NET]]    searches the 16 bench positions to DEPTH (default 13)
                         and prints search analytics; the last line is
                         '<nodes> nodes <nps> nps'
  perft DEPTH [FEN]      counts the leaf nodes below each legal move
  epd FILE [OPTIONS]     runs a test suite of EPD positions (bm, am, c8/c9)
  datagen [OPTIONS]      plays self-play games for training (text or packed)
  convert TEXT BIN       packs text training data into 32-byte records
  data BIN               summarises a packed training file
  train BIN... [OPTIONS] trains a network on packed positions
  tune DATA [OPTIONS]    fits the evaluation weights (or the WDL model)
  help, --help, -h       prints this text

'brudno COMMAND --help' lists the options of a command."
);

const BENCH_USAGE: &str = "usage: brudno bench [DEPTH [NETWORK]]

Searches the 16 positions of epd/bench.epd to DEPTH (1 to 64, default 13)
with one thread and a 16 MB table (with the network file NETWORK, `hce` for
the handcrafted evaluation, or by default the built-in network; in UCI,
`bench` uses the EvalFile loaded), prints analytics (effective branching
factor, first-move cut-off rate, re-search rate, quiescence share, table
hits) and, last, '<nodes> nodes <nps> nps'. The node count is the
fingerprint of the search.";

const PERFT_USAGE: &str = "usage: brudno perft DEPTH [FEN]

Counts the leaf nodes DEPTH plies below each legal move of FEN (default:
the start position; Chess960 castling rights are read too), then the total
and the speed.";

const CONVERT_USAGE: &str = "usage: brudno convert TEXT BIN

Reads training positions written as text ('FEN | score | result', White's
side, as `datagen` writes to a .txt file) and appends them to BIN as 32-byte
records (the bulletformat ChessBoard layout; see src/datagen/packed.rs).
Lines that cannot be read are skipped and counted.";

const TRAIN_USAGE: &str = "usage: brudno train BIN... [OPTIONS]

Trains a network (768 -> H) x 2 -> B on the trainable positions of the
packed files (ply 16 or later, not in check, a quiet best move, no mate
score), shuffled once, on the CPU; writes the quantised network after every
epoch (a checkpoint) and prints the losses, positions a second and an ETA.

options:
  --hidden H         hidden neurons (default 128)
  --buckets B        output buckets by the number of pieces, 1 to 16
                     (default 1)
  --epochs N         passes over the data (default 10)
  --batch N          positions a step (default 16384)
  --lr X             AdamW learning rate, falling by a cosine (default 0.01)
  --wdl W            weight of the game result in the target; the rest is
                     the search score (default 0.1)
  --validation F     share kept back for the validation loss (default 0.02)
  --threads T        threads (default: all cores)
  --seed S           seed of the weights and the shuffle (default 1)
  --mirror           mirror each position left to right at random each
                     epoch (twice the positions, as chess is symmetric but
                     for castling)
  --out FILE         network file (default nets/brudno.nnue)";

const DATA_USAGE: &str = "usage: brudno data BIN

Summarises a packed training file: positions, how many a trainer would use
(ply 16 or later, not in check, a quiet best move, no mate score), results
and average material.";

const EPD_USAGE: &str = "usage: brudno epd FILE [OPTIONS]

Searches each position of FILE and scores the move played against its
'bm' (best moves), 'am' (moves to avoid) and 'c9'/'c8' (moves and points).

options:
  --movetime MS   search each position MS milliseconds (default 1000; all of
                  it: no Move Overhead is kept back)
  --nodes N       search each position N nodes
  --depth D       search each position to depth D
  --first N       only the first N positions of the file
  --threads T     search threads (default 1)
  --hash MB       transposition table size (default 16)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut print = |s: &str| println!("{s}");
    let wants_help = args
        .iter()
        .skip(1)
        .any(|a| matches!(a.as_str(), "--help" | "-h"));
    match args.first().map(String::as_str) {
        None => {
            uci::run();
            ExitCode::SUCCESS
        }
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(command) if wants_help => {
            let text = match command {
                "bench" => BENCH_USAGE,
                "perft" => PERFT_USAGE,
                "epd" => EPD_USAGE,
                "datagen" => DATAGEN_USAGE,
                "convert" => CONVERT_USAGE,
                "data" => DATA_USAGE,
                "train" => TRAIN_USAGE,
                "tune" => TUNE_USAGE,
                _ => USAGE,
            };
            println!("{text}");
            ExitCode::SUCCESS
        }
        Some("bench") => {
            let depth = args.get(1).and_then(|d| d.parse().ok());
            let Ok(net) = choose_net(args.get(2).map(String::as_str)) else {
                return ExitCode::FAILURE;
            };
            bench::run(depth, net.as_ref(), &mut print);
            ExitCode::SUCCESS
        }
        Some("perft") => {
            let Some(depth) = args.get(1).and_then(|d| d.parse::<u32>().ok()) else {
                eprintln!("{PERFT_USAGE}");
                return ExitCode::FAILURE;
            };
            let board = match args.get(2..).filter(|f| !f.is_empty()) {
                None => (board::Board::startpos(), CastlingMode::Standard),
                Some(fen) => match read_fen(&fen.join(" ")) {
                    Ok(board) => board,
                    Err(e) => {
                        eprintln!("{e}");
                        return ExitCode::FAILURE;
                    }
                },
            };
            perft::divide(&board.0, depth, board.1, &mut print);
            ExitCode::SUCCESS
        }
        Some("epd") => run_epd(&args[1..]),
        Some("datagen") => run_datagen(&args[1..]),
        Some("tune") => run_tune(&args[1..]),
        Some("convert") => run_convert(&args[1..]),
        Some("train") => run_train(&args[1..]),
        Some("data") => {
            let Some(path) = args.get(1) else {
                eprintln!("{DATA_USAGE}");
                return ExitCode::FAILURE;
            };
            read_bytes(path).map_or(ExitCode::FAILURE, |bytes| {
                println!("{}", datagen::summary(&bytes));
                ExitCode::SUCCESS
            })
        }
        Some(other) => {
            eprintln!("unknown command '{other}'\n\n{USAGE}");
            ExitCode::FAILURE
        }
    }
}

const TUNE_USAGE: &str = "usage: brudno tune DATA [OPTIONS]

Fits the evaluation weights to the positions of DATA (a datagen file):
Adam on the mean squared error of sigmoid(K * eval) against a blend of the
game result and sigmoid(K * score).

options:
  --epochs N        passes over the data (default 400; 0 only reports the loss)
  --lambda L        weight of the game result in the target (default 0.5)
  --lr X            learning rate (default 1.0)
  --l2 X            pull towards the starting weights (default 0)
  --limit N         read at most N positions
  --threads T       threads (default: all cores)
  --freeze-pst      keep material and the piece-square tables as they are
  --hold FILE       report the loss on these held-out positions before and after
  --out FILE        write the weights' source here (default: standard output)
  --wdl             fit the WDL model of UCI_ShowWDL instead (DATA may then
                    be packed, .bin: its trainable positions)";

/// The bytes of `path`, or `None` after saying on stderr why not.
fn read_bytes(path: &str) -> Option<Vec<u8>> {
    std::fs::read(path)
        .map_err(|e| eprintln!("cannot read {path}: {e}"))
        .ok()
}

/// The network in `path`, or `None` after saying on stderr why not.
fn read_net(path: &str) -> Option<std::sync::Arc<nnue::Network>> {
    let bytes = read_bytes(path)?;
    nnue::Network::from_bytes(&bytes)
        .map(std::sync::Arc::new)
        .map_err(|e| eprintln!("{path}: {e}"))
        .ok()
}

/// The evaluation a command asked for: `hce` the handcrafted one
/// (`Ok(None)`), a file's network, or by default the built-in network;
/// `Err` after saying on stderr why a file cannot be used.
fn choose_net(arg: Option<&str>) -> Result<Option<std::sync::Arc<nnue::Network>>, ()> {
    match arg {
        None => Ok(Some(nnue::embedded())),
        Some("hce") => Ok(None),
        Some(path) => read_net(path).map(Some).ok_or(()),
    }
}

/// The text of `path`, or `None` after saying on stderr why not.
fn read_text(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .map_err(|e| eprintln!("cannot read {path}: {e}"))
        .ok()
}

/// Up to `limit` positions of a `datagen` file, or `None` (said on stderr)
/// if it cannot be read.
fn read_positions(path: &str, limit: usize) -> Option<tune::Data> {
    read_text(path).map(|text| tune::Data::parse(&text, limit))
}

/// `brudno tune DATA --wdl`: fits the WDL model of `UCI_ShowWDL`.
fn run_wdl_fit(path: &str, limit: usize) -> ExitCode {
    // Packed files (network self-play) fit the model on the positions
    // a network trains on; text files hold only such positions.
    let samples = if datagen::is_packed(path) {
        let Some(bytes) = read_bytes(path) else {
            return ExitCode::FAILURE;
        };
        datagen::packed::read_all(&bytes)
            .iter()
            .filter(|p| p.trainable())
            .take(limit)
            .map(|p| (f64::from(p.white_score()), p.white_result()))
            .collect()
    } else {
        let Some(data) = read_positions(path, limit) else {
            return ExitCode::FAILURE;
        };
        data.score_results()
    };
    eprintln!("{} positions", samples.len());
    let (a, b, nll) = tune::fit_wdl(&samples);
    println!("WDL_A = {a}, WDL_B = {b} (log-loss {nll:.4})");
    ExitCode::SUCCESS
}

/// `brudno tune DATA …`: fits the evaluation weights (or the WDL model).
fn run_tune(args: &[String]) -> ExitCode {
    let Some(path) = args.first() else {
        eprintln!("{TUNE_USAGE}");
        return ExitCode::FAILURE;
    };
    let mut settings = tune::Settings {
        epochs: 400,
        lambda: 0.5,
        learning_rate: 1.0,
        threads: std::thread::available_parallelism().map_or(1, usize::from),
        frozen: 0,
        l2: 0.0,
    };
    let (mut limit, mut out, mut wdl, mut hold) = (usize::MAX, None, false, None);
    let mut rest = args[1..].iter();
    while let Some(flag) = rest.next() {
        if flag == "--wdl" {
            wdl = true;
            continue;
        }
        if flag == "--freeze-pst" {
            settings.frozen = eval::layout::BISHOP_PAIR;
            continue;
        }
        let value = rest.next().map_or("", String::as_str);
        let ok = match flag.as_str() {
            "--epochs" => value.parse().map(|v| settings.epochs = v).is_ok(),
            "--lambda" => value.parse().map(|v| settings.lambda = v).is_ok(),
            "--lr" => value.parse().map(|v| settings.learning_rate = v).is_ok(),
            "--limit" => value.parse().map(|v| limit = v).is_ok(),
            "--threads" => value.parse().map(|v| settings.threads = v).is_ok(),
            "--l2" => value.parse().map(|v| settings.l2 = v).is_ok(),
            "--out" => {
                out = Some(value.to_string());
                !value.is_empty()
            }
            "--hold" => {
                hold = Some(value.to_string());
                !value.is_empty()
            }
            _ => false,
        };
        if !ok {
            eprintln!("bad option {flag} {value}; {TUNE_USAGE}");
            return ExitCode::FAILURE;
        }
    }
    if wdl {
        return run_wdl_fit(path, limit);
    }
    if datagen::is_packed(path) {
        eprintln!(
            "{path}: the evaluation's tuner reads text data (datagen --out FILE.txt); \
             packed data trains networks (brudno train)"
        );
        return ExitCode::FAILURE;
    }
    let Some(data) = read_positions(path, limit) else {
        return ExitCode::FAILURE;
    };
    eprintln!("{} positions", data.len());
    // Read the held-out set before the long fit, so a bad path fails at once.
    let hold = match hold {
        None => None,
        Some(file) => match read_positions(&file, usize::MAX) {
            None => return ExitCode::FAILURE,
            data => data,
        },
    };
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
    match out {
        Some(file) => {
            if let Err(e) = std::fs::write(&file, source) {
                eprintln!("cannot write {file}: {e}");
                return ExitCode::FAILURE;
            }
        }
        None => print!("{source}"),
    }
    ExitCode::SUCCESS
}

const DATAGEN_USAGE: &str = "usage: brudno datagen [OPTIONS]

Plays self-play games and appends their quiet positions to a text file
('FEN | score | result', White's point of view), printing its progress.

options:
  --games N          games to play (default 1000)
  --nodes N          nodes a move (default 5000)
  --threads T        games played at once (default: all cores)
  --random-plies R   random plies after the opening, one more half the time
                     (default 8)
  --balance CP       drop openings a short search (4,000 nodes) scores
                     beyond CP either way (default 300; 0 keeps all)
  --book FILE        start from the EPD/FEN lines of FILE (default: the
                     start position)
  --net FILE         play with this network, or `hce` for the handcrafted
                     evaluation (default: the built-in network, the best
                     generation so far)
  --seed S           random seed (default 1); use another to resume
  --out FILE         output file (default data/selfplay.txt); a name ending
                     in .bin gets every position packed in 32 bytes, with
                     flags for the trainer's filters (see `brudno data`)";

/// `brudno datagen …`: self-play games for the tuner.
fn run_datagen(args: &[String]) -> ExitCode {
    let mut config = datagen::Config {
        games: 1000,
        nodes: 5000,
        threads: std::thread::available_parallelism().map_or(1, usize::from),
        random_plies: 8,
        balance: 300,
        book: Vec::new(),
        net: Some(nnue::embedded()),
        seed: 1,
        out: "data/selfplay.txt".into(),
    };
    for pair in args.chunks(2) {
        let (flag, value) = (pair[0].as_str(), pair.get(1).map_or("", String::as_str));
        let number = value.parse::<u64>();
        let ok = match (flag, number) {
            ("--games", Ok(n)) => {
                config.games = n;
                true
            }
            ("--nodes", Ok(n)) if n > 0 => {
                config.nodes = n;
                true
            }
            ("--threads", Ok(n)) if n > 0 => {
                config.threads = usize::try_from(n).unwrap_or(1).min(256);
                true
            }
            ("--random-plies", Ok(n)) => {
                config.random_plies = usize::try_from(n).unwrap_or(8).min(40);
                true
            }
            ("--seed", Ok(n)) => {
                config.seed = n;
                true
            }
            ("--balance", Ok(n)) => {
                config.balance = i32::try_from(n).unwrap_or(i32::MAX);
                true
            }
            ("--out", _) if !value.is_empty() => {
                config.out = value.to_string();
                true
            }
            ("--net", _) => match choose_net(Some(value)) {
                Ok(net) => {
                    config.net = net;
                    true
                }
                Err(()) => return ExitCode::FAILURE,
            },
            ("--book", _) => match std::fs::read_to_string(value) {
                Ok(text) => {
                    config.book = text
                        .lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty() && !l.starts_with('#'))
                        .map(String::from)
                        .collect();
                    true
                }
                Err(e) => {
                    eprintln!("cannot read {value}: {e}");
                    return ExitCode::FAILURE;
                }
            },
            _ => false,
        };
        if !ok {
            eprintln!("bad option {flag} {value}; {DATAGEN_USAGE}");
            return ExitCode::FAILURE;
        }
    }
    if let Some(dir) = std::path::Path::new(&config.out).parent()
        && !dir.as_os_str().is_empty()
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        eprintln!("cannot create {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    match datagen::run(&config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// The records of packed files, one after another, or `None` after saying
/// on stderr which cannot be read.
fn read_packed_files(files: &[String]) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    for f in files {
        let b = read_bytes(f)?;
        // A partial record at the end (a generator stopped mid-write) is left out.
        bytes.extend_from_slice(&b[..b.len() - b.len() % datagen::packed::SIZE]);
    }
    Some(bytes)
}

/// `brudno train BIN… [options]`: trains a network.
fn run_train(args: &[String]) -> ExitCode {
    let mut settings = train::Settings {
        hidden: 128,
        epochs: 10,
        batch: 16_384,
        lr: 0.01,
        wdl: 0.1,
        threads: std::thread::available_parallelism().map_or(1, usize::from),
        seed: 1,
        validation: 0.02,
        mirror: false,
        buckets: 1,
    };
    let mut out = "nets/brudno.nnue".to_string();
    let mut files = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if !arg.starts_with("--") {
            files.push(arg.clone());
            continue;
        }
        if arg == "--mirror" {
            settings.mirror = true;
            continue;
        }
        let value = rest.next().map_or("", String::as_str);
        let ok = match arg.as_str() {
            "--hidden" => value.parse().map(|v| settings.hidden = v).is_ok(),
            "--buckets" => value
                .parse()
                .ok()
                .filter(|v| (1..=nnue::features::MAX_BUCKETS).contains(v))
                .map(|v| settings.buckets = v)
                .is_some(),
            "--epochs" => value.parse().map(|v| settings.epochs = v).is_ok(),
            "--batch" => value.parse().map(|v| settings.batch = v).is_ok(),
            "--lr" => value.parse().map(|v| settings.lr = v).is_ok(),
            "--wdl" => value.parse().map(|v| settings.wdl = v).is_ok(),
            "--validation" => value.parse().map(|v| settings.validation = v).is_ok(),
            "--threads" => value.parse().map(|v| settings.threads = v).is_ok(),
            "--seed" => value.parse().map(|v| settings.seed = v).is_ok(),
            "--out" => {
                out = value.to_string();
                !value.is_empty()
            }
            _ => false,
        };
        if !ok {
            eprintln!("bad option {arg} {value}\n\n{TRAIN_USAGE}");
            return ExitCode::FAILURE;
        }
    }
    if files.is_empty() {
        eprintln!("{TRAIN_USAGE}");
        return ExitCode::FAILURE;
    }
    let Some(bytes) = read_packed_files(&files) else {
        return ExitCode::FAILURE;
    };
    if let Some(dir) = std::path::Path::new(&out).parent()
        && !dir.as_os_str().is_empty()
    {
        let _ = std::fs::create_dir_all(dir);
    }
    eprintln!("{}", datagen::summary(&bytes));
    let start = std::time::Instant::now();
    let epochs = settings.epochs;
    let result = train::train(&bytes, &settings, &mut |epoch, t, v, rate, net| {
        let eta = start.elapsed().as_secs_f64() / epoch as f64 * (epochs - epoch) as f64;
        eprintln!(
            "epoch {epoch}/{epochs}: training loss {t:.6}, validation loss {v:.6}, \
             {rate:.0} positions/s, ETA {eta:.0} s"
        );
        // The checkpoint: a run stopped part-way leaves its last epoch's net.
        if let Ok(q) = net.quantise() {
            let _ = std::fs::write(&out, q.to_bytes());
        }
    });
    let (net, train_loss, val_loss) = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    match net.quantise() {
        Ok(q) => {
            if let Err(e) = std::fs::write(&out, q.to_bytes()) {
                eprintln!("cannot write {out}: {e}");
                return ExitCode::FAILURE;
            }
        }
        Err(e) => {
            eprintln!("cannot quantise: {e}");
            return ExitCode::FAILURE;
        }
    }
    println!("wrote {out}: training loss {train_loss:.6}, validation loss {val_loss:.6}");
    ExitCode::SUCCESS
}

/// `brudno convert TEXT BIN`: packs text training data.
fn run_convert(args: &[String]) -> ExitCode {
    let [input, output] = args else {
        eprintln!("{CONVERT_USAGE}");
        return ExitCode::FAILURE;
    };
    let Some(text) = read_text(input) else {
        return ExitCode::FAILURE;
    };
    let (bytes, converted, skipped) = datagen::convert(&text);
    let written = std::fs::File::options()
        .create(true)
        .append(true)
        .open(output)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &bytes));
    if let Err(e) = written {
        eprintln!("cannot write {output}: {e}");
        return ExitCode::FAILURE;
    }
    if let Some(first) = skipped.first() {
        eprintln!("{} lines skipped; the first: {first}", skipped.len());
    }
    println!("{converted} positions appended to {output}");
    ExitCode::SUCCESS
}

/// `brudno epd FILE …`: runs a test suite.
fn run_epd(args: &[String]) -> ExitCode {
    let Some(file) = args.first() else {
        eprintln!("{EPD_USAGE}");
        return ExitCode::FAILURE;
    };
    let mut budget = epd::Budget::MoveTime(std::time::Duration::from_secs(1));
    let mut hash = 16;
    let mut threads = 1;
    let mut first = usize::MAX;
    let mut rest = args[1..].iter();
    while let Some(flag) = rest.next() {
        let Some(value) = rest.next().and_then(|v| v.parse::<u64>().ok()) else {
            eprintln!("{flag} needs a number; {EPD_USAGE}");
            return ExitCode::FAILURE;
        };
        match flag.as_str() {
            "--movetime" => {
                budget = epd::Budget::MoveTime(std::time::Duration::from_millis(value));
            }
            "--nodes" => budget = epd::Budget::Nodes(value),
            "--depth" => budget = epd::Budget::Depth(i32::try_from(value).unwrap_or(i32::MAX)),
            "--hash" => hash = usize::try_from(value).unwrap_or(16),
            "--threads" => threads = usize::try_from(value).unwrap_or(1).clamp(1, 256),
            "--first" => first = usize::try_from(value).unwrap_or(usize::MAX),
            _ => {
                eprintln!("unknown option {flag}; {EPD_USAGE}");
                return ExitCode::FAILURE;
            }
        }
    }
    let Some(text) = read_text(file) else {
        return ExitCode::FAILURE;
    };
    let settings = epd::Settings {
        budget,
        hash_mb: hash,
        threads,
        first,
    };
    match epd::run(&text, &settings, &mut |s| println!("{s}")) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
