//! What the main and quiescence searches share at a node: reading and
//! writing the transposition table, the static evaluation, playing a
//! move, the stop check, draws by rule and repetition, and the principal
//! variation.

use std::sync::atomic::Ordering::Relaxed;

use shakmaty::{Move, Position};

use super::Searcher;
use super::cycle;
use super::history::{Context, PieceTo};
use super::ordering::is_tactical;
use super::params::{FIFTY_MOVE_SCALE_PLIES, STOP_CHECK_INTERVAL, TB_DEPTH_BONUS, TURN_NODES};
use crate::board::{Board, FIFTY_MOVE_PLIES};
use crate::score::{DRAW, MATE, MAX_PLY, from_tt, is_mate, to_tt};
use crate::tt::{Bound, Entry, PackedMove};

/// Whether a stored bound lets `score` stand for the window (`alpha`, `beta`).
#[inline]
pub(super) fn bound_allows(bound: Bound, score: i32, alpha: i32, beta: i32) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    }
}

/// Whether a result `score` with `bound` tells more than the static
/// evaluation `eval`: exact, or a bound that lies beyond `eval` in the
/// direction it bounds. Such a result sharpens the estimate, and shows
/// which way the evaluation erred.
#[inline]
pub(super) fn tells_past(bound: Bound, score: i32, eval: i32) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score > eval,
        Bound::Upper => score < eval,
    }
}

/// The static evaluation `eval` sharpened by the table's result when its
/// bound lies beyond it (not in check, and not a mate score, which says
/// nothing about the position's balance).
#[inline]
pub(super) fn sharpen(entry: Option<Entry>, eval: i32, in_check: bool, ply: usize) -> i32 {
    match entry {
        Some(e) if !in_check && !is_mate(e.score) => {
            let s = from_tt(e.score, ply);
            if tells_past(e.bound, s, eval) {
                s
            } else {
                eval
            }
        }
        _ => eval,
    }
}

impl Searcher {
    /// Plays `m` from the node at `ply` (whose context is `ctx`) in the
    /// main search: the child's key joins the line for repetitions and
    /// its context records the move in and the three before, which the
    /// continuation histories and corrections below read. The caller pops
    /// the key when the child is done.
    pub(super) fn enter(&mut self, board: &Board, m: Move, ply: usize, ctx: &Context) -> Board {
        let child = self.play_prefetched(board, m, ply);
        self.keys.push(child.key());
        self.context[ply + 1] = Context {
            prev: Some(PieceTo::new(board.turn(), m)),
            prev2: ctx.prev,
            prev3: ctx.prev2,
            prev4: ctx.prev3,
            last_quiet: (!is_tactical(m)).then_some(m),
            pawns: 0,
        };
        child
    }

    /// The position after `m`. The child's table slot is prefetched with
    /// the likely key first, so the memory load overlaps making the move,
    /// and that key is handed on rather than computed twice.
    #[inline]
    pub(super) fn play_prefetched(&mut self, board: &Board, m: Move, ply: usize) -> Board {
        let likely = board.likely_key_after(m);
        self.tt.prefetch(likely);
        self.evaluator.moved(ply, board.turn(), m);
        board.play_with_likely_key(m, likely)
    }

    /// The position after a null move from `board` at `ply` (`None` in
    /// check), the evaluator told. Beside [`Searcher::play_prefetched`]:
    /// the two are the only ways the search moves, so the evaluator's
    /// state by ply and the boards can never drift apart.
    #[inline]
    pub(super) fn pass(&mut self, board: &Board, ply: usize) -> Option<Board> {
        let child = board.null_move()?;
        self.evaluator.passed(ply);
        Some(child)
    }

    /// The raw static evaluation (from the table entry when there is one)
    /// and the same scaled by the fifty-move counter and corrected by
    /// correction history (which reads the move into the node from the
    /// context at `ply`); `-MATE` for both in check, where standing pat is
    /// no option. The table keeps the raw value, so the scaling and the
    /// correction learnt since are applied afresh.
    #[inline]
    pub(super) fn static_eval(
        &mut self,
        board: &Board,
        entry: Option<Entry>,
        in_check: bool,
        ply: usize,
    ) -> (i32, i32) {
        if in_check {
            return (-MATE, -MATE);
        }
        let raw = entry.map_or_else(|| self.evaluator.evaluate(board, ply), |e| e.eval);
        let scaled = fifty_move_scale(raw, board.halfmoves());
        (
            raw,
            self.correction.apply(board, self.context[ply].prev, scaled),
        )
    }

    /// Stores a node's result, keeping the old table move when no move
    /// raised alpha, with a mate score made relative to the node.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn store(
        &self,
        board: &Board,
        ply: usize,
        best_move: Option<Move>,
        tt_move: PackedMove,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
    ) {
        let mv = best_move.map_or(tt_move, PackedMove::new);
        self.tt
            .store(board.key(), mv, to_tt(score, ply), eval, depth, bound);
    }

    /// The table's entry for this position, counted for the hit rate
    /// that `bench` reports.
    #[inline]
    pub(super) fn probe(&mut self, board: &Board) -> Option<Entry> {
        self.stats.tt_probes += 1;
        let entry = self.tt.probe(board.key());
        self.stats.tt_hits += u64::from(entry.is_some());
        entry
    }

    /// Probes the tablebases; returns a score when the table's answer
    /// decides the window (and stores it in the transposition table).
    pub(super) fn probe_tablebase(
        &mut self,
        board: &Board,
        ply: usize,
        depth: i32,
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        let tb = self.tablebases.as_ref()?;
        if depth < tb.probe_depth() {
            return None;
        }
        let wdl = tb.probe_wdl(board.pos())?;
        self.control.tbhits.fetch_add(1, Relaxed);
        let score = tb.score(wdl, ply);
        let bound = match score.cmp(&DRAW) {
            std::cmp::Ordering::Greater => Bound::Lower,
            std::cmp::Ordering::Less => Bound::Upper,
            std::cmp::Ordering::Equal => Bound::Exact,
        };
        if !bound_allows(bound, score, alpha, beta) {
            return None;
        }
        let depth = (depth + TB_DEPTH_BONUS).min(MAX_PLY as i32);
        self.tt.store(
            board.key(),
            PackedMove::NONE,
            to_tt(score, ply),
            self.evaluator.evaluate(board, ply),
            depth,
            bound,
        );
        Some(score)
    }

    /// Whether to abandon the search: the stop flag (set by the clock
    /// thread, by `stop`, or by a thread that spent the shared node
    /// budget; the main thread reads it only once depth 1 is done), or
    /// this thread's own budget. This thread's nodes are added
    /// to the shared count every `STOP_CHECK_INTERVAL` nodes.
    #[inline]
    pub(super) fn should_stop(&mut self) -> bool {
        if self.nodes.is_multiple_of(STOP_CHECK_INTERVAL) {
            let total =
                self.control.nodes.fetch_add(STOP_CHECK_INTERVAL, Relaxed) + STOP_CHECK_INTERVAL;
            // Several threads share the node budget, so it is counted in
            // steps of the interval; one thread alone counts exactly below.
            if self.control.threads > 1 && self.limits.nodes.is_some_and(|n| total >= n) {
                self.control.stop.store(true, Relaxed);
            }
            if self.id != 0
                && self.nodes.is_multiple_of(TURN_NODES)
                && let Some(turns) = &self.control.turns
                && !turns.pass(&self.control.stop)
            {
                self.stopped = true;
            }
        }
        // The flag is read at every node: nobody writes it until the end,
        // so the load costs next to nothing, and with more threads than
        // cores each thread stops the moment it next runs, not up to a
        // thousand nodes later (hundreds of milliseconds at 256 threads on
        // two cores).
        if self.control.stop.load(Relaxed) && self.stoppable {
            self.stopped = true;
        }
        if self.control.threads == 1
            && let Some(limit) = self.limits.nodes
            && self.nodes >= limit
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// Draw by the fifty-move rule, insufficient material or repetition
    /// (one repetition within the game or the search path is enough: the
    /// side that could avoid it would have). Positions before a null move
    /// in the search path do not count: the null move is no real move.
    pub(super) fn is_draw(&self, board: &Board) -> bool {
        let halfmoves = board.halfmoves() as usize;
        if halfmoves >= FIFTY_MOVE_PLIES as usize
            && !(board.in_check() && board.pos().legal_moves().is_empty())
        {
            return true;
        }
        if board.pos().is_insufficient_material() {
            return true;
        }
        let n = self.keys.len();
        let key = board.key();
        (4..=self.repetition_reach(board))
            .step_by(2)
            .any(|back| self.keys[n - 1 - back] == key)
    }

    /// How many plies back an earlier position can be the same as this
    /// one: not before the last capture or pawn move, nor before a null
    /// move in the search path (the null move is no real move).
    pub(super) fn repetition_reach(&self, board: &Board) -> usize {
        let floor = self.nulls.last().copied().unwrap_or(0);
        (board.halfmoves() as usize).min(self.keys.len().saturating_sub(1 + floor))
    }

    /// Whether the side to move can reach an earlier position of the game
    /// or the search path (with the other side to move) in one move, which
    /// `is_draw` would then score as a draw; the same positions count.
    pub(super) fn can_repeat(&self, board: &Board) -> bool {
        let n = self.keys.len();
        let (pieces, turn, key) = (board.pos().board(), board.turn(), board.key());
        (3..=self.repetition_reach(board))
            .step_by(2)
            .any(|back| cycle::reaches(pieces, turn, key, self.keys[n - 1 - back]))
    }

    /// The principal variation at `ply`: `m` followed by the child's.
    pub(super) fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }
}

/// The evaluation `eval` drawn towards zero as the fifty-move counter
/// `halfmoves` rises: an advantage that makes no progress (no capture, no
/// pawn move) is worth less the nearer the rule's draw, so the side ahead
/// prefers the moves that reset the counter. The raw evaluation in the
/// table stays unscaled, as positions reached with other counters share it.
#[inline]
fn fifty_move_scale(eval: i32, halfmoves: u32) -> i32 {
    let left = FIFTY_MOVE_SCALE_PLIES - halfmoves.min(FIFTY_MOVE_PLIES) as i32;
    eval * left / FIFTY_MOVE_SCALE_PLIES
}

#[cfg(test)]
mod tests {
    use super::fifty_move_scale;

    #[test]
    fn the_fifty_move_counter_draws_the_evaluation_towards_zero() {
        assert_eq!(fifty_move_scale(300, 0), 300);
        assert_eq!(fifty_move_scale(-300, 0), -300);
        assert_eq!(fifty_move_scale(300, 50), 225);
        assert_eq!(fifty_move_scale(-300, 50), -225);
        assert_eq!(fifty_move_scale(300, 100), 150);
        // The counter can pass the rule's hundred plies (when the
        // hundredth ply mates); the scaling stops at half.
        assert_eq!(fifty_move_scale(300, 140), 150);
        assert_eq!(fifty_move_scale(0, 80), 0);
        // Never raises what it is given, at any counter.
        for h in 0..=120 {
            assert!(fifty_move_scale(500, h) <= 500 && fifty_move_scale(500, h) >= 250);
        }
    }
}
