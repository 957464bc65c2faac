//! Move-ordering memory: killers, countermoves, and the history tables
//! (butterfly, continuation, pawn and capture history), all with a bounded
//! "gravity" update so old successes fade instead of saturating.

use shakmaty::{Color, Move, Role};

use super::params::{
    EVAL_HISTORY_MAX, EVAL_HISTORY_SCALE, HISTORY_MAX, PAWN_HISTORY_SIZE, PAWN_HISTORY_WEIGHT,
    history_bonus,
};
use crate::board::Board;
use crate::score::MAX_PLY;

/// A move as the continuation tables see it: which piece went where,
/// packed as the row index (piece × 64 + square) into two bytes, so that
/// a node's context of four moves stays small to copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceTo(u16);

impl PieceTo {
    /// The moving piece (after promotion) and its destination.
    pub fn new(side: Color, m: Move) -> PieceTo {
        let role = m.promotion().unwrap_or(m.role());
        let piece = side as usize * 6 + role as usize - 1;
        PieceTo((piece * 64 + usize::from(m.to())) as u16)
    }
}

pub const PIECE_TO: usize = 12 * 64;

/// The moves that led to a node, for continuation history: one to four
/// plies back (`None` after a null move or at the root). The third is only
/// carried, to become the fourth of the grandchild.
#[derive(Clone, Copy, Debug, Default)]
pub struct Context {
    pub prev: Option<PieceTo>,
    pub prev2: Option<PieceTo>,
    pub prev3: Option<PieceTo>,
    pub prev4: Option<PieceTo>,
    /// The last move itself when it was quiet: the butterfly table, which
    /// keys by squares, learns from what it did to the evaluation.
    pub last_quiet: Option<Move>,
    /// The pawn-history slot of the node's pawn placement.
    pub pawns: usize,
}

impl Context {
    /// The moves whose continuation rows score and learn a quiet move:
    /// the opponent's last and our own two before it (a plan, such as a
    /// piece brought over and then another, spans more than one move).
    #[inline]
    fn continuation_keys(&self) -> impl Iterator<Item = PieceTo> {
        [self.prev, self.prev2, self.prev4].into_iter().flatten()
    }
}

/// The pawn-history slot of a position's pawn placement.
#[inline]
pub fn pawn_slot(board: &Board) -> usize {
    (board.pawn_key() >> 20) as usize % PAWN_HISTORY_SIZE
}

/// Where the table rows that score the quiet moves of one node begin (see
/// [`History::quiet`]): found once per node, not once per move.
#[derive(Clone, Copy)]
pub struct QuietKeys {
    side: Color,
    pawns: usize,
    /// The continuation rows of the moves one, two and four plies back;
    /// a move that is not there (at the root, after a null move) reads the
    /// row past the last, which stays empty.
    rows: [usize; 3],
}

/// Ordering memory of one search thread.
pub struct History {
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    butterfly: Box<[[[i16; 64]; 64]; 2]>,
    /// The quiet reply that last refuted each (piece, to).
    counters: Vec<Option<Move>>,
    /// Quiet move score given the previous move: [prev piece-to][piece-to].
    continuation: Vec<i16>,
    /// Capture success: [piece-to][captured role].
    captures: Vec<i16>,
    /// Quiet move score given the pawn placement: [pawn slot][piece-to].
    pawns: Vec<i16>,
}

impl Default for History {
    fn default() -> Self {
        History {
            killers: [[None; 2]; MAX_PLY + 1],
            butterfly: Box::new([[[0; 64]; 64]; 2]),
            counters: vec![None; PIECE_TO],
            // One row more, never learnt: the row of a missing move.
            continuation: vec![0; (PIECE_TO + 1) * PIECE_TO],
            captures: vec![0; PIECE_TO * 6],
            pawns: vec![0; PAWN_HISTORY_SIZE * PIECE_TO],
        }
    }
}

#[inline]
fn squares(m: Move) -> (usize, usize) {
    (m.from().map_or(0, usize::from), usize::from(m.to()))
}

#[inline]
pub fn index(p: PieceTo) -> usize {
    usize::from(p.0)
}

// Entries are 16 bits, halving the tables' cache footprint (the
// continuation table is the size of a second-level cache).
const _: () = assert!(HISTORY_MAX <= i16::MAX as i32);

/// Moves `entry` towards ±`HISTORY_MAX` by `bonus`, slowing as it nears the
/// bound: an entry within ±`HISTORY_MAX` stays there for any |`bonus`| ≤
/// `HISTORY_MAX`, so the 16 bits always hold it.
#[inline]
fn gravity(entry: &mut i16, bonus: i32) {
    let e = i32::from(*entry);
    *entry = (e + bonus - e * bonus.abs() / HISTORY_MAX) as i16;
}

impl History {
    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        *self = History::default();
    }

    /// Forgets killers, which belong to one search's plies.
    pub fn clear_killers(&mut self) {
        self.killers = [[None; 2]; MAX_PLY + 1];
    }

    #[inline]
    pub fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers[ply]
    }

    /// The remembered refutation of the previous move.
    #[inline]
    pub fn counter(&self, ctx: &Context) -> Option<Move> {
        ctx.prev.and_then(|p| self.counters[index(p)])
    }

    /// The rows of the tables that score the quiet moves of one node.
    #[inline]
    pub fn quiet_keys(side: Color, ctx: &Context) -> QuietKeys {
        let row = |p: Option<PieceTo>| p.map_or(PIECE_TO, index) * PIECE_TO;
        QuietKeys {
            side,
            pawns: ctx.pawns * PIECE_TO,
            rows: [row(ctx.prev), row(ctx.prev2), row(ctx.prev4)],
        }
    }

    /// Ordering score of a quiet move: butterfly, the continuations of
    /// the moves one, two and four plies back and the pawn history, which
    /// knows what worked with these pawns (plans such as a pawn break or
    /// an outpost depend on the pawns far more than on the move before).
    // Measured: left to itself the compiler calls this out of line, and
    // bench 9 costs 3% more instructions (callgrind).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub fn quiet_at(&self, keys: &QuietKeys, m: Move) -> i32 {
        let (from, to) = squares(m);
        let own = index(PieceTo::new(keys.side, m));
        i32::from(self.butterfly[keys.side as usize][from][to])
            + PAWN_HISTORY_WEIGHT * i32::from(self.pawns[keys.pawns + own])
            + i32::from(self.continuation[keys.rows[0] + own])
            + i32::from(self.continuation[keys.rows[1] + own])
            + i32::from(self.continuation[keys.rows[2] + own])
    }

    /// [`History::quiet_at`] of one move, finding the rows first.
    #[cfg(test)]
    pub fn quiet(&self, side: Color, m: Move, ctx: &Context) -> i32 {
        self.quiet_at(&History::quiet_keys(side, ctx), m)
    }

    /// Ordering score of a capture from its past success.
    #[inline]
    pub fn capture(&self, side: Color, m: Move) -> i32 {
        let victim = m.capture().map_or(0, |r| r as usize - 1);
        i32::from(self.captures[index(PieceTo::new(side, m)) * 6 + victim])
    }

    fn bump_quiet(&mut self, side: Color, m: Move, ctx: &Context, bonus: i32) {
        let (from, to) = squares(m);
        gravity(&mut self.butterfly[side as usize][from][to], bonus);
        let own = index(PieceTo::new(side, m));
        gravity(&mut self.pawns[ctx.pawns * PIECE_TO + own], bonus);
        for p in ctx.continuation_keys() {
            gravity(&mut self.continuation[index(p) * PIECE_TO + own], bonus);
        }
    }

    fn bump_capture(&mut self, side: Color, m: Move, bonus: i32) {
        let victim = m.capture().map_or(Role::Pawn, |r| r) as usize - 1;
        let i = index(PieceTo::new(side, m)) * 6 + victim;
        gravity(&mut self.captures[i], bonus);
    }

    /// A quiet move caused a beta cut-off: make it a killer and the
    /// countermove, reward it and punish the quiet moves tried before it.
    pub fn on_quiet_cutoff(
        &mut self,
        side: Color,
        ply: usize,
        depth: i32,
        best: Move,
        tried: &[Move],
        ctx: &Context,
    ) {
        let k = &mut self.killers[ply];
        if k[0] != Some(best) {
            k[1] = k[0];
            k[0] = Some(best);
        }
        if let Some(p) = ctx.prev {
            self.counters[index(p)] = Some(best);
        }
        let bonus = history_bonus(depth);
        for &m in tried {
            self.bump_quiet(side, m, ctx, -bonus);
        }
        self.bump_quiet(side, best, ctx, bonus);
    }

    /// The quiet move `m` of `mover` changed the static evaluation by
    /// `swing` (the mover's evaluation before plus the opponent's after;
    /// above zero when the mover lost ground): a move that left the mover
    /// worse off than it stood is a poor move to try early next time, one
    /// that gained is a good one. A mild prior for the butterfly table,
    /// learnt at every node with an evaluation instead of only at
    /// cut-offs. Both evaluations carry the side-to-move bonus, so a move
    /// that changes nothing else is marked down by twice that bonus's worth.
    pub fn on_eval_change(&mut self, mover: Color, m: Move, swing: i32) {
        let bonus = (-EVAL_HISTORY_SCALE * swing).clamp(-EVAL_HISTORY_MAX, EVAL_HISTORY_MAX);
        let (from, to) = squares(m);
        gravity(&mut self.butterfly[mover as usize][from][to], bonus);
    }

    /// Any cut-off: reward the capture that caused it (if one did) and
    /// punish the captures tried before it.
    pub fn on_capture_cutoff(
        &mut self,
        side: Color,
        depth: i32,
        best: Option<Move>,
        tried: &[Move],
    ) {
        let bonus = history_bonus(depth);
        for &m in tried {
            self.bump_capture(side, m, -bonus);
        }
        if let Some(m) = best {
            self.bump_capture(side, m, bonus);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn history_stays_bounded_and_killers_shift() {
        let mut h = History::default();
        let moves = Chess::default().legal_moves();
        let ctx = Context {
            prev: Some(PieceTo::new(Color::Black, moves[7])),
            prev2: None,
            prev3: None,
            prev4: None,
            last_quiet: None,
            pawns: 0,
        };
        for _ in 0..10_000 {
            h.on_quiet_cutoff(Color::White, 3, 20, moves[0], &moves[1..3], &ctx);
        }
        // Butterfly, one continuation and the weighted pawn history.
        let bound = (2 + PAWN_HISTORY_WEIGHT) * HISTORY_MAX;
        assert!(h.quiet(Color::White, moves[0], &ctx) <= bound);
        assert!(h.quiet(Color::White, moves[1], &ctx) >= -bound);
        assert!(h.quiet(Color::White, moves[0], &ctx) > 0);
        // Other pawns: the pawn history has learnt nothing there.
        let other = Context { pawns: 1, ..ctx };
        assert!(h.quiet(Color::White, moves[0], &other) < h.quiet(Color::White, moves[0], &ctx));
        assert_eq!(h.counter(&ctx), Some(moves[0]));
        h.on_quiet_cutoff(Color::White, 3, 1, moves[5], &[], &ctx);
        assert_eq!(h.killers(3), [Some(moves[5]), Some(moves[0])]);
    }

    #[test]
    fn our_move_four_plies_back_is_a_key_and_the_third_is_not() {
        let mut h = History::default();
        let moves = Chess::default().legal_moves();
        let own = |i: usize| Some(PieceTo::new(Color::White, moves[i]));
        let ctx = Context {
            prev3: Some(PieceTo::new(Color::Black, moves[8])),
            prev4: own(9),
            ..Context::default()
        };
        for _ in 0..20 {
            h.on_quiet_cutoff(Color::White, 3, 5, moves[0], &[], &ctx);
        }
        // Only the butterfly, the pawn slot and the fourth move learnt:
        // without the fourth the score drops by its part.
        let with = h.quiet(Color::White, moves[0], &ctx);
        let without = h.quiet(Color::White, moves[0], &Context { prev4: None, ..ctx });
        let no_third = Context { prev3: None, ..ctx };
        assert!(without > 0 && with > without, "{with} {without}");
        assert_eq!(h.quiet(Color::White, moves[0], &no_third), with);
        // The same move as the one two plies back reads the same row.
        let as_second = Context {
            prev2: own(9),
            prev4: None,
            ..ctx
        };
        assert_eq!(h.quiet(Color::White, moves[0], &as_second), with);
    }

    #[test]
    fn a_move_that_cost_its_side_evaluation_loses_butterfly_history() {
        let mut h = History::default();
        let moves = Chess::default().legal_moves();
        let ctx = Context::default();
        // White stood at +30; after its move Black stands at +50: White lost 80.
        h.on_eval_change(Color::White, moves[0], 30 + 50);
        // White stood at +30; after its move Black stands at −60: White gained 30.
        h.on_eval_change(Color::White, moves[1], 30 - 60);
        // An even trade of evaluations teaches nothing.
        h.on_eval_change(Color::White, moves[2], 30 - 30);
        assert!(h.quiet(Color::White, moves[0], &ctx) < 0);
        assert!(h.quiet(Color::White, moves[1], &ctx) > 0);
        assert_eq!(h.quiet(Color::White, moves[2], &ctx), 0);
        // The other side's table is untouched, and a huge swing is capped.
        assert_eq!(h.quiet(Color::Black, moves[0], &ctx), 0);
        h.on_eval_change(Color::Black, moves[3], 5_000);
        assert!(h.quiet(Color::Black, moves[3], &ctx) >= -EVAL_HISTORY_MAX);
    }
}
