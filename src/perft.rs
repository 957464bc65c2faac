//! Perft: counting the leaves of the move tree, through the same
//! make-move path (copy, play, incremental key) that the search uses.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

use shakmaty::{CastlingMode, Position};

use crate::board::{Board, uci_move};

/// Leaf nodes `depth` plies below `board` (bulk-counted at the last ply).
pub fn perft(board: &Board, depth: u32) -> u64 {
    let moves = board.pos().legal_moves();
    match depth {
        0 => 1,
        1 => moves.len() as u64,
        _ => moves
            .iter()
            .map(|&m| perft(&board.play(m), depth - 1))
            .sum(),
    }
}

/// [`perft`] that gives up (`None`) once `stop` is raised; it looks at
/// the flag only where three or more plies remain, which costs nothing
/// measurable and still answers within milliseconds.
fn perft_until(board: &Board, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if depth < 3 {
        return Some(perft(board, depth));
    }
    if stop.load(Relaxed) {
        return None;
    }
    let mut total = 0;
    for m in board.pos().legal_moves() {
        total += perft_until(&board.play(m), depth - 1, stop)?;
    }
    Some(total)
}

/// Perft with the count below each root move, then the total and speed;
/// `stop` (the UCI `stop`) ends it early, and it says so.
pub fn divide(
    board: &Board,
    depth: u32,
    mode: CastlingMode,
    stop: &AtomicBool,
    out: &mut dyn FnMut(&str),
) -> u64 {
    let start = Instant::now();
    let mut total = 0;
    for m in board.pos().legal_moves() {
        let Some(n) = perft_until(&board.play(m), depth.saturating_sub(1), stop) else {
            out(&format!("perft stopped: {total} nodes counted before it"));
            return total;
        };
        out(&format!("{}: {n}", uci_move(m, mode)));
        total += n;
    }
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    out("");
    out(&format!("Nodes searched: {total}"));
    out(&format!(
        "{total} nodes {:.0} nps {:.3} s",
        total as f64 / secs,
        secs
    ));
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(fen: &str) -> Board {
        Board::from_fen(fen, CastlingMode::Standard).unwrap().0
    }

    /// Every position of a suite to the depths whose counts stay under a
    /// limit that keeps the run short; returns how many counts were checked.
    fn check_suite(suite: &str, mode: CastlingMode, limit: u64) -> usize {
        let mut checked = 0;
        for line in suite.lines().filter(|l| !l.trim().is_empty()) {
            let mut parts = line.split(';');
            let b = Board::from_fen(parts.next().unwrap().trim(), mode)
                .unwrap()
                .0;
            for part in parts {
                let (d, n) = part.trim().split_once(' ').unwrap();
                let depth: u32 = d.trim_start_matches('D').parse().unwrap();
                let expected: u64 = n.trim().parse().unwrap();
                if expected > limit {
                    break;
                }
                assert_eq!(perft(&b, depth), expected, "{line} depth {depth}");
                checked += 1;
            }
        }
        checked
    }

    #[test]
    fn perft_suite() {
        let suite = include_str!("../epd/perftsuite.epd");
        let checked = check_suite(suite, CastlingMode::Standard, 2_000_000);
        assert!(checked > 400, "only {checked} counts checked");
    }

    #[test]
    fn chess960_perft_suite() {
        let suite = include_str!("../epd/frcperftsuite.epd");
        let checked = check_suite(suite, CastlingMode::Chess960, 200_000);
        assert!(checked > 2800, "only {checked} counts checked");
    }

    #[test]
    fn deep_counts() {
        assert_eq!(perft(&Board::startpos(), 5), 4_865_609);
        let kiwipete =
            board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        assert_eq!(perft(&kiwipete, 4), 4_085_603);
        let endgame = board("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1");
        assert_eq!(perft(&endgame, 6), 11_030_083);
    }
}

#[cfg(test)]
mod speed {
    use super::*;
    use std::time::Instant;

    /// A benchmark, not a test: `cargo test --release perft_speed -- --ignored --nocapture`.
    /// Compares the engine's make-move path with shakmaty's own perft.
    #[test]
    #[ignore = "benchmark"]
    fn perft_speed() {
        let board = Board::startpos();
        let (mut ours_best, mut theirs_best) = (f64::MAX, f64::MAX);
        // Interleaved rounds, best time of each: the machine's noise only
        // ever slows a run down.
        for _ in 0..8 {
            let t = Instant::now();
            let ours = perft(&board, 6);
            ours_best = ours_best.min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let theirs = shakmaty::perft(board.pos(), 6);
            theirs_best = theirs_best.min(t.elapsed().as_secs_f64());
            assert_eq!(ours, theirs);
        }
        let nodes = 119_060_324.0;
        println!(
            "startpos perft 6, best of 8: engine {:.1} Mnps, shakmaty {:.1} Mnps, ratio {:.3}",
            nodes / ours_best / 1e6,
            nodes / theirs_best / 1e6,
            theirs_best / ours_best
        );
    }
}
