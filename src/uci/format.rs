//! Formatting what the engine says: `info` and `bestmove` lines.

use std::fmt::Write;

use shakmaty::CastlingMode;

use crate::board::uci_move;
use crate::score::{is_mate, mate_in_moves, wdl};
use crate::search::{Iteration, Outcome};
use crate::tt::Bound;

/// `cp N` or `mate N`.
pub fn score(s: i32) -> String {
    if is_mate(s) {
        format!("mate {}", mate_in_moves(s))
    } else {
        format!("cp {s}")
    }
}

/// The `info` line of an iteration.
pub fn info(it: &Iteration, mode: CastlingMode, show_wdl: bool) -> String {
    let ms = it.elapsed.as_millis();
    let nps = u128::from(it.nodes) * 1000 / ms.max(1);
    let mut line = format!("info depth {} seldepth {}", it.depth, it.seldepth.max(1));
    if let Some(k) = it.multipv {
        let _ = write!(line, " multipv {k}");
    }
    let _ = write!(line, " score {}", score(it.score));
    match it.bound {
        Some(Bound::Lower) => line.push_str(" lowerbound"),
        Some(Bound::Upper) => line.push_str(" upperbound"),
        _ => {}
    }
    if show_wdl {
        let (w, d, l) = wdl(it.score);
        let _ = write!(line, " wdl {w} {d} {l}");
    }
    let _ = write!(
        line,
        " nodes {} nps {nps} hashfull {} tbhits {} time {ms}",
        it.nodes, it.hashfull, it.tbhits
    );
    if !it.pv.is_empty() {
        line.push_str(" pv");
        for &m in &it.pv {
            line.push(' ');
            line.push_str(&uci_move(m, mode));
        }
    }
    line
}

/// The `bestmove` line; `bestmove 0000` when there is no legal move.
pub fn bestmove(o: &Outcome, mode: CastlingMode) -> String {
    match (o.best, o.ponder) {
        (Some(b), Some(p)) => format!(
            "bestmove {} ponder {}",
            uci_move(b, mode),
            uci_move(p, mode)
        ),
        (Some(b), None) => format!("bestmove {}", uci_move(b, mode)),
        (None, _) => "bestmove 0000".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::MATE;
    use shakmaty::CastlingMode;
    use shakmaty::{Chess, Position};
    use std::time::Duration;

    #[test]
    fn info_line_has_every_field() {
        let m = Chess::default().legal_moves()[0];
        let it = Iteration {
            depth: 5,
            multipv: None,
            seldepth: 9,
            score: -MATE + 4,
            bound: Some(Bound::Lower),
            nodes: 2000,
            elapsed: Duration::from_millis(500),
            hashfull: 12,
            tbhits: 3,
            pv: vec![m],
        };
        let line = info(&it, CastlingMode::Standard, false);
        assert!(line.starts_with("info depth 5 seldepth 9 score mate -2 lowerbound nodes 2000 nps 4000 hashfull 12 tbhits 3 time 500 pv "));
        let line = info(&it, CastlingMode::Standard, true);
        assert!(line.contains(" score mate -2 lowerbound wdl 0 0 1000 nodes "));
    }

    #[test]
    fn no_move_is_0000() {
        assert_eq!(
            bestmove(&Outcome::default(), CastlingMode::Standard),
            "bestmove 0000"
        );
    }
}
