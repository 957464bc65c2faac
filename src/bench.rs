//! `bench`: a fixed set of positions searched to a fixed depth. The node
//! count is a fingerprint of the search's behaviour (it must not change
//! between runs) and the speed a measure of the engine's throughput.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

use shakmaty::CastlingMode;

use crate::board::{Board, uci_move};
use crate::search::{Control, Limits, Searcher, Stats};
use crate::tt::Tt;

/// Depth searched when none is given.
pub const DEFAULT_DEPTH: i32 = 13;
const HASH_MB: usize = 16;

/// Openings, middlegames and endgames of every kind.
const POSITIONS: [&str; 16] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "rnbq1rk1/ppp1bppp/4pn2/3p4/2PP4/2N2N2/PP2PPPP/R1BQKB1R w KQ - 4 6",
    "r2q1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 3 10",
    "2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB1QBPPP/2R2RK1 w - - 4 12",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3BPP2/2NB4/PPPQ2PP/2KR3R w - - 2 13",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "3r1rk1/p4ppp/1pq1pn2/2b5/2P5/1P2BN2/P3QPPP/3R1RK1 w - - 0 18",
    "6k1/5pp1/1p2p2p/p2pP3/P2P1P2/1P4P1/6K1/8 w - - 0 40",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 1",
    "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "1r3rk1/p1p2ppp/2p5/3p4/3P4/2P5/P1P2PPP/1R3RK1 w - - 0 20",
    "8/5k2/8/3KP3/8/8/8/8 w - - 0 1",
];

/// Searches every position to `depth` with `evaluation` and prints the
/// totals, last line `<nodes> nodes <nps> nps`. Returns the node count.
///
/// Raising `stop` (the UCI `stop`) ends the run early, saying so.
pub fn run(
    depth: Option<i32>,
    evaluation: &crate::eval::Evaluation,
    stop: &Arc<AtomicBool>,
    out: &mut dyn FnMut(&str),
) -> u64 {
    let depth = depth.unwrap_or(DEFAULT_DEPTH);
    // Only the searches are timed: each position's fresh 16 MB table and
    // histories (zeroed memory, some 10% of the run) are set-up, not search.
    let mut searching = std::time::Duration::ZERO;
    let mut total = 0;
    let mut stats = Stats::default();
    // Nodes of all positions by the end of each iteration, for the EBF.
    let mut by_depth = vec![0u64; depth as usize + 1];
    for (i, fen) in POSITIONS.iter().enumerate() {
        let (board, _) =
            Board::from_fen(fen, CastlingMode::Standard).expect("bench positions are valid");
        let tt = Arc::new(Tt::new(HASH_MB).expect("16 MB for bench"));
        let mut searcher = Searcher::new(tt, evaluation);
        if stop.load(Relaxed) {
            out(&format!("bench stopped after {i} positions"));
            return total;
        }
        let mut control = Control::new(Instant::now(), None);
        control.stop = stop.clone();
        let control = Arc::new(control);
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let mut last = 0;
        let start = Instant::now();
        let outcome = searcher.think(&board, &[], limits, control, &mut |it| {
            if it.bound.is_none() {
                by_depth[it.depth as usize] += it.nodes;
                last = it.depth as usize;
            }
        });
        searching += start.elapsed();
        // Positions that end early (mate found) count their last total deeper too.
        for n in &mut by_depth[last + 1..] {
            *n += outcome.nodes;
        }
        total += outcome.nodes;
        stats += searcher.stats;
        let best = outcome
            .best
            .map_or("0000".to_string(), |m| uci_move(m, CastlingMode::Standard));
        out(&format!(
            "position {:2} bestmove {best:6} nodes {:>10}",
            i + 1,
            outcome.nodes
        ));
    }
    let ms = searching.as_millis().max(1);
    report_stats(&stats, &by_depth, total, out);
    out(&format!("time {ms} ms"));
    out(&format!(
        "{total} nodes {} nps",
        u128::from(total) * 1000 / ms
    ));
    total
}

fn percent(part: u64, whole: u64) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

/// The search analytics: how well ordering and pruning work.
fn report_stats(s: &Stats, by_depth: &[u64], total: u64, out: &mut dyn FnMut(&str)) {
    let ebf: Vec<String> = by_depth
        .windows(2)
        .enumerate()
        .skip(1)
        .map(|(d, w)| format!("{}:{:.2}", d + 1, w[1] as f64 / w[0].max(1) as f64))
        .collect();
    out(&format!(
        "effective branching factor by depth {}",
        ebf.join(" ")
    ));
    out(&format!(
        "first-move cutoffs {:.1}% of {} cut nodes",
        percent(s.first_move_cuts, s.cut_nodes),
        s.cut_nodes
    ));
    // Split out because the two kinds of node differ: with a table move the
    // previous search's best comes first; without one the picker's scores
    // decide alone (docs/strength.md has the split by depth).
    out(&format!(
        "cut nodes with a table move {}: the first move cut in {:.1}%",
        s.tt_move_cut_nodes,
        percent(s.tt_move_first_cuts, s.tt_move_cut_nodes)
    ));
    out(&format!(
        "quiescence cut nodes (a move cut, not the stand-pat) {}: the first move cut in {:.1}%",
        s.qcut_nodes,
        percent(s.qfirst_move_cuts, s.qcut_nodes)
    ));
    out(&format!(
        "re-searches {:.1}% of {} null-window searches",
        percent(s.researches, s.null_windows),
        s.null_windows
    ));
    out(&format!(
        "quiescence nodes {:.1}% of all",
        percent(s.qnodes, total)
    ));
    out(&format!(
        "table hits {:.1}% of {} probes",
        percent(s.tt_hits, s.tt_probes),
        s.tt_probes
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_node_count_is_the_same_run_to_run() {
        let a = run(
            Some(5),
            &crate::eval::Evaluation::Handcrafted,
            &Arc::default(),
            &mut |_| {},
        );
        let b = run(
            Some(5),
            &crate::eval::Evaluation::Handcrafted,
            &Arc::default(),
            &mut |_| {},
        );
        assert_eq!(a, b);
        assert!(a > 1000);
    }
}
