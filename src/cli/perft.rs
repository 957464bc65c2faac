//! `brudno perft DEPTH [FEN]`.

use shakmaty::CastlingMode;

use crate::board::Board;

/// Counts the leaf nodes below each legal move
///
/// Counts the leaf nodes DEPTH plies below each legal move of FEN, then the
/// total and the speed.
#[derive(clap::Args)]
pub struct Args {
    /// Plies to count below the position
    #[arg(value_name = "DEPTH", value_parser = clap::value_parser!(u32).range(0..=20))]
    depth: u32,
    /// The position (default: the start position; Chess960 castling rights
    /// are read too)
    #[arg(value_name = "FEN", num_args = 0.., trailing_var_arg = true, allow_hyphen_values = true)]
    fen: Vec<String>,
}

/// A FEN from the command line: standard chess when it is one, else Chess960
/// (Shredder-FEN or X-FEN castling rights).
fn read_fen(text: &str) -> Result<(Board, CastlingMode), String> {
    Board::from_fen(text, CastlingMode::Standard)
        .ok()
        .filter(|(_, warnings)| warnings.is_empty())
        .map(|(b, _)| (b, CastlingMode::Standard))
        .map_or_else(
            || {
                Board::from_fen(text, CastlingMode::Chess960)
                    .map(|(b, _)| (b, CastlingMode::Chess960))
            },
            Ok,
        )
}

pub fn run(args: &Args) -> Result<(), String> {
    let (board, mode) = if args.fen.is_empty() {
        (Board::startpos(), CastlingMode::Standard)
    } else {
        read_fen(&args.fen.join(" "))?
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    crate::perft::divide(&board, args.depth, mode, &never, &mut |s| println!("{s}"));
    Ok(())
}
