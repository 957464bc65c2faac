//! Brudno, a UCI chess engine.
//!
//! `brudno` speaks UCI on stdin/stdout; `brudno bench [depth]` and
//! `brudno perft <depth> [fen]` run the tools directly.

mod bench;
mod board;
mod engine;
mod epd;
mod eval;
mod perft;
mod score;
mod search;
mod tablebase;
mod time;
mod tt;
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

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut print = |s: &str| println!("{s}");
    match args.first().map(String::as_str) {
        None => {
            uci::run();
            ExitCode::SUCCESS
        }
        Some("bench") => {
            let depth = args.get(1).and_then(|d| d.parse().ok());
            bench::run(depth, &mut print);
            ExitCode::SUCCESS
        }
        Some("perft") => {
            let Some(depth) = args.get(1).and_then(|d| d.parse::<u32>().ok()) else {
                eprintln!("usage: brudno perft <depth> [fen]");
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
        Some(other) => {
            eprintln!(
                "unknown argument '{other}'; usage: brudno [bench [depth] | perft <depth> [fen] | epd <file> [options]]"
            );
            ExitCode::FAILURE
        }
    }
}

const EPD_USAGE: &str =
    "usage: brudno epd FILE [--movetime MS | --nodes N | --depth D] [--threads T] [--hash MB]";

/// `brudno epd FILE …`: runs a test suite.
fn run_epd(args: &[String]) -> ExitCode {
    let Some(file) = args.first() else {
        eprintln!("{EPD_USAGE}");
        return ExitCode::FAILURE;
    };
    let mut budget = epd::Budget::MoveTime(std::time::Duration::from_millis(1000));
    let mut hash = 16;
    let mut threads = 1;
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
            _ => {
                eprintln!("unknown option {flag}; {EPD_USAGE}");
                return ExitCode::FAILURE;
            }
        }
    }
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    match epd::run(&text, budget, hash, threads, &mut |s| println!("{s}")) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
