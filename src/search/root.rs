//! The root: what a search reports and returns ([`Iteration`],
//! [`Outcome`]), the vote between threads, MultiPV's lines, the weaker
//! levels' choice, how much of the soft limit an iteration leaves, and the
//! move played.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use shakmaty::{Move, Position};

use super::Searcher;
use super::params::{
    node_share_base_x100, node_share_scale_x100, score_drop_max_x100, score_drop_scale_x1000,
    stability_scale,
};
use super::skill::Skill;
use crate::board::Board;
use crate::score::{is_mate, mate_in_moves};
use crate::tt::{Bound, PackedMove};

/// One finished (or aspiration-failed) iteration, for the front end.
#[derive(Clone, Debug)]
pub struct Iteration {
    pub depth: i32,
    /// Which line this is (1 = best) when several are searched.
    pub multipv: Option<usize>,
    pub seldepth: usize,
    pub score: i32,
    /// `None` for an exact score; a bound when the aspiration window failed.
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub elapsed: Duration,
    pub hashfull: u32,
    pub tbhits: u64,
    pub pv: Vec<Move>,
}

/// The result of a search.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// `None` only when there is no legal move.
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    /// The last finished iteration's report, to show the line of a helper
    /// thread whose move is chosen.
    pub line: Option<Iteration>,
}

impl Outcome {
    /// Lazy SMP: the move to play from the main thread's outcome and the
    /// helpers'. A helper that finished a deeper iteration (or the same
    /// depth with a better score) saw more; the main thread wins ties.
    /// Returns whether a helper's outcome was chosen.
    pub fn vote(&mut self, helpers: Vec<Outcome>) -> bool {
        let mut switched = false;
        for h in helpers {
            if h.best.is_some()
                && h.line.is_some()
                && (h.depth > self.depth || (h.depth == self.depth && h.score > self.score))
            {
                let nodes = self.nodes;
                *self = Outcome { nodes, ..h };
                switched = true;
            }
        }
        switched
    }
}

impl Searcher {
    /// The move to play is not the one the last line shown begins with: a
    /// stopped iteration found a better root move, or a weaker level chose
    /// another line. Show a line that begins with it (scored as the last
    /// finished iteration, or as the chosen line), so the last PV a GUI
    /// sees is the move played; at MultiPV the other lines follow it.
    pub(super) fn show_move_played(
        &mut self,
        best: Move,
        outcome: &mut Outcome,
        report: &mut dyn FnMut(&Iteration),
    ) {
        let mut line = self.iteration(outcome.depth.max(1), outcome.score, None, 1);
        if line.pv.first() != Some(&best) {
            line.pv = std::iter::once(best).chain(outcome.ponder).collect();
        }
        outcome.line = Some(line.clone());
        if self.id != 0 {
            return;
        }
        if self.limits.multipv > 1 {
            let mut lines = vec![(line.score, line)];
            self.fill_lines(&mut lines, self.limits.multipv);
            for (k, (_, line)) in lines.iter_mut().enumerate() {
                line.multipv = Some(k + 1);
                report(line);
            }
            self.lines = lines.into_iter().map(|(_, l)| l).collect();
        } else {
            report(&line);
        }
    }

    /// Fills `lines` up to `k` with the lines shown last whose moves are
    /// not among them yet: an iteration stopped part-way leaves the other
    /// lines as they were, and no move is shown twice.
    pub(super) fn fill_lines(&self, lines: &mut Vec<(i32, Iteration)>, k: usize) {
        for old in &self.lines {
            if lines.len() >= k {
                break;
            }
            if !lines.iter().any(|(_, l)| l.pv.first() == old.pv.first()) {
                lines.push((old.score, old.clone()));
            }
        }
    }

    /// `UCI_LimitStrength`: maybe play one of the other lines instead of
    /// the best, as the level allows.
    pub(super) fn weaken(
        &self,
        board: &Board,
        outcome: &mut Outcome,
        skill: Skill,
        scores: &[i32],
        moves: &[Option<Move>],
    ) {
        let Some(best) = outcome.best else { return };
        let mut lines = vec![(best, outcome.score)];
        lines.extend(
            moves
                .iter()
                .zip(scores)
                .skip(1)
                .filter_map(|(m, &s)| m.filter(|&m| m != best).map(|m| (m, s))),
        );
        lines[1..].sort_by_key(|&(_, s)| -s);
        // Any varying seed will do: the choice only has to be unpredictable.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut x = u64::from(nanos) ^ board.key() ^ self.nodes.rotate_left(32);
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        let random = (x >> 11) as f64 / (1u64 << 53) as f64;
        if let Some(choice) = skill.choose(&lines, random)
            && choice != best
        {
            outcome.best = Some(choice);
            outcome.ponder = None;
            if let Some(&(_, s)) = lines.iter().find(|(m, _)| *m == choice) {
                outcome.score = s;
            }
        }
    }

    /// MultiPV: after the best line (`first`: its score and report), the
    /// best of the moves not shown yet, line after line; then the lines are
    /// shown best first. Each line's search prunes and reduces by its own
    /// window, so a later line can score above an earlier one: then it
    /// leads, and its PV is left in `pv[0]` for the caller, with its score
    /// and report returned. Lines beyond `MultiPV` (searched for a weaker
    /// level's choice) are not shown.
    pub(super) fn more_lines(
        &mut self,
        board: &Board,
        depth: i32,
        first: (i32, Iteration),
        scores: &mut [i32],
        moves: &mut [Option<Move>],
        report: &mut dyn FnMut(&Iteration),
    ) -> (i32, Iteration) {
        let mut found = vec![first];
        self.shown.clear();
        self.shown.extend(found[0].1.pv.first());
        for (k, &last) in scores.iter().enumerate().skip(1) {
            let s = self.aspiration(board, depth, last, report);
            if self.stopped {
                break;
            }
            found.push((s, self.iteration(depth, s, None, k + 1)));
            self.shown.extend(self.pv[0].first());
        }
        self.shown.clear();
        // Only the lines this iteration finished are ordered by score, and
        // only they may lead: a line left from the iteration before (when
        // this one stopped early) scored at a shallower depth, and comes
        // after them as it was. Stable: equal scores keep their order.
        found.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
        if found.len() < scores.len() {
            self.fill_lines(&mut found, scores.len());
        }
        let (nodes, elapsed) = (self.total_nodes(), self.control.start.elapsed());
        for (k, (s, line)) in found.iter_mut().enumerate() {
            scores[k] = *s;
            moves[k] = line.pv.first().copied();
            line.multipv = (self.limits.multipv > 1).then_some(k + 1);
            (line.nodes, line.elapsed) = (nodes, elapsed);
            if k < self.limits.multipv {
                report(line);
            }
        }
        self.lines = found
            .iter()
            .take(self.limits.multipv)
            .map(|(_, l)| l.clone())
            .collect();
        let top = found.swap_remove(0);
        self.pv[0].clone_from(&top.1.pv);
        top
    }

    /// How much of the soft limit to use after an iteration: more when the
    /// best move keeps changing, when the score fell, and when the best move
    /// took a small share of the nodes (its rivals were hard to refute).
    pub(super) fn time_scale(&self, stability: usize, score_drop: i32, best: Option<Move>) -> f64 {
        let total: u64 = self.root_nodes.iter().map(|(_, n)| n).sum();
        let on_best: u64 = self
            .root_nodes
            .iter()
            .filter(|(m, _)| Some(*m) == best)
            .map(|(_, n)| n)
            .sum();
        let share = if total == 0 {
            1.0
        } else {
            on_best as f64 / total as f64
        };
        let x100 = |v: i32| f64::from(v) / 100.0;
        let drop = (1.0
            + f64::from(score_drop_scale_x1000()) / 1000.0 * f64::from(score_drop.max(0)))
        .min(x100(score_drop_max_x100()));
        stability_scale(stability)
            * drop
            * (x100(node_share_base_x100()) - share)
            * x100(node_share_scale_x100())
    }

    /// A move to play if the search is stopped before depth 1 completes:
    /// the table's move if it is a root move, else the first root move.
    pub(super) fn fallback_move(&self, board: &Board) -> Option<Move> {
        let tt_move = self
            .tt
            .probe(board.key())
            .map_or(PackedMove::NONE, |e| e.mv);
        self.root_moves
            .iter()
            .copied()
            .find(|&m| tt_move.matches(m))
            .or_else(|| self.root_moves.first().copied())
    }

    pub(super) fn mate_limit_reached(&self, score: i32) -> bool {
        self.limits
            .mate
            .is_some_and(|n| score > 0 && is_mate(score) && mate_in_moves(score) <= n)
    }

    pub(super) fn iteration(
        &self,
        depth: i32,
        score: i32,
        bound: Option<Bound>,
        line: usize,
    ) -> Iteration {
        let (score, bound) = match self.root_tb_score {
            Some(tb) if !is_mate(score) && line == 1 => (tb, None),
            _ => (score, bound),
        };
        Iteration {
            depth,
            multipv: (self.limits.multipv > 1).then_some(line),
            seldepth: self.seldepth,
            score,
            bound,
            nodes: self.total_nodes(),
            elapsed: self.control.start.elapsed(),
            hashfull: self.tt.hashfull(),
            tbhits: self.control.tbhits.load(Relaxed),
            pv: self.pv[0].clone(),
        }
    }

    /// The reply stored in the table after `best`, if it is legal.
    pub(super) fn ponder_from_tt(&self, board: &Board, best: Move) -> Option<Move> {
        let next = board.play(best);
        let entry = self.tt.probe(next.key())?;
        next.pos()
            .legal_moves()
            .iter()
            .copied()
            .find(|&m| entry.mv.matches(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tests::searcher;
    use crate::search::{Control, Limits};
    use shakmaty::uci::UciMove;
    use std::sync::Arc;
    use std::sync::atomic::Ordering::Relaxed;
    use std::time::{Duration, Instant};

    fn outcome(best: &str, depth: i32, score: i32, nodes: u64) -> Outcome {
        let board = Board::startpos();
        let m = best
            .parse::<UciMove>()
            .unwrap()
            .to_move(board.pos())
            .unwrap();
        Outcome {
            best: Some(m),
            ponder: None,
            score,
            depth,
            nodes,
            line: Some(Iteration {
                depth,
                multipv: None,
                seldepth: 0,
                score,
                bound: None,
                nodes,
                elapsed: Duration::ZERO,
                hashfull: 0,
                tbhits: 0,
                pv: vec![m],
            }),
        }
    }

    /// Lazy SMP's vote: a deeper helper wins, or one as deep with a better
    /// score; the main thread wins ties; helpers without a move or a
    /// finished line never win; the node count stays the main thread's.
    #[test]
    fn the_vote_takes_the_deepest_then_the_best_and_keeps_the_nodes() {
        let mut main = outcome("e2e4", 10, 20, 1000);
        assert!(!main.vote(vec![outcome("d2d4", 10, 20, 5), outcome("c2c4", 9, 90, 5)]));
        assert_eq!(main.best, outcome("e2e4", 0, 0, 0).best);
        let unfinished = Outcome {
            line: None,
            ..outcome("g1f3", 12, 50, 5)
        };
        let empty = Outcome {
            best: None,
            ..outcome("g1f3", 12, 50, 5)
        };
        assert!(!main.vote(vec![unfinished, empty]));
        assert!(main.vote(vec![outcome("d2d4", 10, 25, 5), outcome("c2c4", 11, -5, 5)]));
        assert_eq!(main.best, outcome("c2c4", 0, 0, 0).best);
        assert_eq!((main.depth, main.score, main.nodes), (11, -5, 1000));
    }

    /// A MultiPV iteration stopped after its first line: the lines kept
    /// from the iteration before fill the rest, but never lead, however
    /// they scored at their shallower depth; the finished line is played.
    #[test]
    fn a_stale_multipv_line_never_leads_a_stopped_iteration() {
        let board = Board::startpos();
        let mut s = searcher();
        let control = Arc::new(Control::new(Instant::now(), None));
        let limits = Limits {
            multipv: 3,
            ..Limits::default()
        };
        s.prepare(&board, &[], limits, control.clone());
        let line = |m: &str, depth, score| {
            let mv = m.parse::<UciMove>().unwrap().to_move(board.pos()).unwrap();
            Iteration {
                depth,
                multipv: None,
                seldepth: 0,
                score,
                bound: None,
                nodes: 0,
                elapsed: Duration::ZERO,
                hashfull: 0,
                tbhits: 0,
                pv: vec![mv],
            }
        };
        // The iteration before: d2d4 led at 500.
        s.lines = vec![line("d2d4", 7, 500), line("c2c4", 7, 400)];
        // This iteration's first line is finished; then it stops.
        control.stop.store(true, Relaxed);
        let (mut scores, mut moves) = (vec![30, 0, 0], vec![None; 3]);
        let (score, top) = s.more_lines(
            &board,
            8,
            (30, line("e2e4", 8, 30)),
            &mut scores,
            &mut moves,
            &mut |_| {},
        );
        assert_eq!((score, top.depth), (30, 8));
        assert_eq!(s.pv[0].first(), line("e2e4", 0, 0).pv.first());
        let shown: Vec<_> = moves.iter().map(|m| m.map(|m| m.to_string())).collect();
        assert_eq!(
            moves[0],
            line("e2e4", 0, 0).pv.first().copied(),
            "{shown:?}"
        );
    }
}
