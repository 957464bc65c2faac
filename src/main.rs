//! Brudno, a UCI chess engine.
//!
//! `brudno` speaks UCI on stdin/stdout; `brudno bench [depth]` and
//! `brudno perft <depth> [fen]` run the tools directly.

mod bench;
mod board;
mod engine;
mod eval;
mod perft;
mod score;
mod search;
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
        Some(other) => {
            eprintln!(
                "unknown argument '{other}'; usage: brudno [bench [depth] | perft <depth> [fen]]"
            );
            ExitCode::FAILURE
        }
    }
}
