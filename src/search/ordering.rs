//! Move ordering: the table move first, unscored; then every other legal
//! move gets a score once and moves are handed out best first by selection,
//! so a cut-off after the first few moves never pays for sorting the rest.
//!
//! Order: the transposition-table move, captures that do not lose material
//! by SEE, or lose less than their capture history vouches for (most
//! valuable victim first, then capture history), the two
//! killers, the countermove, quiet moves by butterfly, continuation and pawn
//! history (less a malus for moving a piece where a cheaper enemy piece
//! attacks it), losing captures last.
//!
//! The main search takes all legal moves from shakmaty in one pass, so the
//! stages are kept by the scores and the laziness is in the selection and in
//! scoring only after the table move has failed to cut. Generating by stage
//! would save at most about 1.2% of the time there: most nodes that generate
//! moves go on to the quiet moves (counted in `docs/strength.md`). The
//! quiescence search gets its captures and promotions from `movegen`, which
//! makes nothing else.

use arrayvec::ArrayVec;
use shakmaty::{Bitboard, Color, Move, MoveList, Position, Role, attacks};

use super::history::{Context, History};
use super::params::{CAPTURE_SEE_DIVISOR, SEE_VALUE, THREAT_MALUS};
use super::see::see_ge;
use crate::board::Board;
use crate::board::pawn_attacks;
use crate::tt::PackedMove;

const TT_MOVE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 28;
const KILLER: i32 = 1 << 27;
const BAD_CAPTURE: i32 = -(1 << 28);

/// Most valuable victim first, capture history (`history`) among equals.
#[inline]
fn capture_score(m: Move, history: i32) -> i32 {
    let victim = m.capture().map_or(0, |r| SEE_VALUE[r as usize - 1]);
    let promo = m.promotion().map_or(0, |r| SEE_VALUE[r as usize - 1]);
    16 * (victim + promo) + history / 16
}

/// Squares the opponent attacks with pieces cheaper than each of ours.
struct Threats {
    /// Attacked by a pawn: unsafe for knights and bishops.
    pawns: Bitboard,
    /// Attacked by a pawn, knight or bishop: unsafe for rooks.
    minors: Bitboard,
    /// Attacked by anything up to a rook: unsafe for queens.
    rooks: Bitboard,
}

impl Threats {
    fn new(board: &Board) -> Threats {
        let b = board.pos().board();
        let them = !board.turn();
        let occupied = b.occupied();
        let theirs = b.by_color(them);
        let pawns = pawn_attacks(them, b.pawns() & theirs);
        let mut minors = pawns;
        for sq in b.knights() & theirs {
            minors |= attacks::knight_attacks(sq);
        }
        for sq in b.bishops() & theirs {
            minors |= attacks::bishop_attacks(sq, occupied);
        }
        let mut rooks = minors;
        for sq in b.rooks() & theirs {
            rooks |= attacks::rook_attacks(sq, occupied);
        }
        Threats {
            pawns,
            minors,
            rooks,
        }
    }

    /// Ordering malus of a quiet move that puts a piece where a cheaper
    /// one can take it. A piece that already stood in such an attack
    /// loses nothing more by moving into another, so it goes unpunished:
    /// a bonus for escaping such attacks was measured too, and ordered worse.
    #[inline]
    fn malus(&self, m: Move) -> i32 {
        let danger = match m.role() {
            Role::Knight | Role::Bishop => self.pawns,
            Role::Rook => self.minors,
            Role::Queen => self.rooks,
            _ => return 0,
        };
        let was_safe = m.from().is_some_and(|sq| !danger.contains(sq));
        if was_safe && danger.contains(m.to()) {
            THREAT_MALUS[m.role() as usize - 1]
        } else {
            0
        }
    }
}

/// Whether a move changes material: captures and promotions.
#[inline]
pub fn is_tactical(m: Move) -> bool {
    m.is_capture() || m.is_promotion()
}

/// The most moves a move list holds.
const MAX_MOVES: usize = capacity(std::marker::PhantomData::<MoveList>);

const fn capacity<T, const N: usize>(_: std::marker::PhantomData<ArrayVec<T, N>>) -> usize {
    N
}

/// Hands out the moves of one node best first.
pub struct MovePicker<'a> {
    /// The caller's list, reordered in place (a move list is two
    /// kilobytes: moving it into the picker would copy all of it).
    moves: &'a mut MoveList,
    /// Scores of `moves`, index for index; only as long as the list, so
    /// no node pays for clearing every slot. As many as a move list holds:
    /// legal positions have at most 218 moves, but a GUI may set up one
    /// with more (270 in `kBQQQQQQ/BR5Q/…`), and the search must answer it.
    scores: ArrayVec<i32, MAX_MOVES>,
    next: usize,
}

impl<'a> MovePicker<'a> {
    /// The moves of a main-search node. The table move, when it is among
    /// them, comes first without scoring the others: it refutes often
    /// enough that the rest (SEE of every capture, history of every quiet)
    /// would be scored for nothing, and when it does not, the rest are
    /// scored with the history its search has just updated.
    pub fn new(moves: &'a mut MoveList, tt_move: PackedMove) -> MovePicker<'a> {
        let table_move = moves.iter().position(|&m| tt_move.matches(m));
        if let Some(i) = table_move {
            moves.swap(0, i);
        }
        let mut picker = MovePicker::unscored(moves);
        if table_move.is_some() {
            picker.scores.push(TT_MOVE);
        }
        picker
    }

    /// The table move, when it is legal here (the picker found it and put
    /// it first).
    #[inline]
    pub fn table_move(&self) -> Option<Move> {
        (self.scores.first() == Some(&TT_MOVE)).then(|| self.moves[0])
    }

    /// Whether the move handed out last is a capture that loses material
    /// (scored among the losing captures, which lie far below any quiet).
    #[inline]
    pub fn last_loses_material(&self) -> bool {
        self.next > 0 && self.scores[self.next - 1] < BAD_CAPTURE / 2
    }

    /// The next move, scoring the moves first when none of those left has
    /// a score yet (main search and evasions): captures that do not lose
    /// material, killers, countermove, quiets by history, losing captures.
    pub fn next_move(
        &mut self,
        board: &Board,
        history: &History,
        ply: usize,
        ctx: &Context,
    ) -> Option<Move> {
        // Scores run out before the moves only after the table move.
        if self.next == self.scores.len() && self.next < self.moves.len() {
            let killers = history.killers(ply);
            let counter = history.counter(ctx);
            let side: Color = board.turn();
            let threats = Threats::new(board);
            let keys = History::quiet_keys(side, ctx);
            let score = |m: Move| {
                if is_tactical(m) {
                    // A capture that has often refuted here may count as
                    // good though it loses a little by SEE (a pinned or
                    // overloaded defender); one that has often failed must
                    // win material.
                    let record = history.capture(side, m);
                    let base = if see_ge(board.pos(), m, -record / CAPTURE_SEE_DIVISOR) {
                        GOOD_CAPTURE
                    } else {
                        BAD_CAPTURE
                    };
                    base + capture_score(m, record)
                } else if killers[0] == Some(m) {
                    KILLER + 2
                } else if killers[1] == Some(m) {
                    KILLER + 1
                } else if counter == Some(m) {
                    KILLER
                } else {
                    history.quiet_at(&keys, m) - threats.malus(m)
                }
            };
            for &m in &self.moves[self.next..] {
                self.scores.push(score(m));
            }
        }
        self.pick()
    }

    /// Orders the captures and promotions of a quiescence node (`moves`
    /// holds nothing else) as the main search orders its good captures:
    /// most valuable victim first, then capture history, which knows
    /// better than the attacker's value which of two captures of the
    /// same piece refutes.
    pub fn tactical(
        moves: &'a mut MoveList,
        tt_move: PackedMove,
        history: &History,
        side: Color,
    ) -> MovePicker<'a> {
        debug_assert!(moves.iter().all(|&m| is_tactical(m)));
        let mut picker = MovePicker::unscored(moves);
        for &m in picker.moves.iter() {
            picker.scores.push(if tt_move.matches(m) {
                TT_MOVE
            } else {
                capture_score(m, history.capture(side, m))
            });
        }
        picker
    }

    /// A picker over `moves` with no scores yet, built where it will stay
    /// (a score list built elsewhere and moved in would be copied whole).
    #[inline]
    fn unscored(moves: &'a mut MoveList) -> MovePicker<'a> {
        MovePicker {
            moves,
            scores: ArrayVec::new(),
            next: 0,
        }
    }

    /// The first of the highest-scored moves not handed out yet.
    #[inline]
    fn pick(&mut self) -> Option<Move> {
        // Only the scored moves compete: all of them, or the table move alone.
        let n = self.scores.len();
        if self.next >= n {
            return None;
        }
        // A plain running maximum, which compiles to conditional moves
        // instead of a branch per move.
        let rest = &self.scores[self.next..n];
        let mut best_score = rest[0];
        let mut best = self.next;
        for (i, &s) in rest.iter().enumerate().skip(1) {
            if s > best_score {
                best_score = s;
                best = self.next + i;
            }
        }
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        self.next += 1;
        Some(self.moves[self.next - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::test_position;
    use shakmaty::Position;

    /// The order in which a fresh picker (no history) hands out the moves.
    fn order(board: &Board, tt_move: PackedMove) -> Vec<Move> {
        order_with(board, tt_move, &History::default())
    }

    /// The order in which a picker hands out the moves with `history`.
    fn order_with(board: &Board, tt_move: PackedMove, history: &History) -> Vec<Move> {
        let mut list = board.pos().legal_moves();
        let mut picker = MovePicker::new(&mut list, tt_move);
        let ctx = Context::default();
        std::iter::from_fn(|| picker.next_move(board, history, 0, &ctx)).collect()
    }

    #[test]
    fn tt_move_then_winning_capture_then_losing_capture_last() {
        // White can take a free pawn (h5), take a pawn defended by a pawn with
        // the queen (d5), or play quiet moves.
        let board = Board::new(test_position("4k3/8/2p5/3p3p/8/8/3Q4/4K2R w K - 0 1"));
        let moves = board.pos().legal_moves();
        let quiet = *moves.iter().find(|m| !m.is_capture()).unwrap();
        let order = order(&board, PackedMove::new(quiet));
        assert_eq!(order.len(), moves.len());
        assert_eq!(order[0], quiet);
        assert_eq!(order[1].to().to_string(), "h5");
        assert_eq!(order.last().unwrap().to().to_string(), "d5");
    }

    #[test]
    fn a_slightly_losing_capture_with_a_record_of_cut_offs_comes_first() {
        // Nxd5 loses the knight for a pawn by SEE (the c6 pawn retakes):
        // with no history it comes last, after every quiet move; once it
        // has cut off often enough it is ordered with the good captures.
        let board = Board::new(test_position("4k3/8/2p5/3p4/8/4N3/8/4K3 w - - 0 1"));
        let capture = *order(&board, PackedMove::NONE).last().unwrap();
        assert!(capture.is_capture(), "{capture}");
        let mut history = History::default();
        for _ in 0..40 {
            history.on_capture_cutoff(Color::White, 10, Some(capture), &[]);
        }
        assert!(history.capture(Color::White, capture) >= 220 * CAPTURE_SEE_DIVISOR);
        assert_eq!(order_with(&board, PackedMove::NONE, &history)[0], capture);
        // A capture that has only failed must win material: the same
        // capture with a poor record stays last.
        let mut history = History::default();
        for _ in 0..40 {
            history.on_capture_cutoff(Color::White, 10, None, &[capture]);
        }
        assert_eq!(
            order_with(&board, PackedMove::NONE, &history).last(),
            Some(&capture)
        );
    }

    /// The order in which a quiescence picker hands out the captures.
    fn tactical_order(board: &Board, history: &History) -> Vec<String> {
        let mut list = crate::movegen::tactical_moves(board.pos());
        let mut picker = MovePicker::tactical(&mut list, PackedMove::NONE, history, board.turn());
        let ctx = Context::default();
        std::iter::from_fn(|| picker.next_move(board, history, 0, &ctx))
            .map(|m| m.to_string())
            .collect()
    }

    #[test]
    fn quiescence_orders_by_victim_then_capture_history() {
        // The knight on c3 can take the rook on b5 or the pawn on d5, and
        // the queen can take the same pawn. The rook comes first whatever
        // the history says; of the two pawn captures, the one with the
        // better record comes next.
        let board = Board::new(test_position("4k3/8/8/1r1p4/8/2N5/8/3QK3 w - - 0 1"));
        for (favoured, other) in [("Qd1xd5", "Nc3xd5"), ("Nc3xd5", "Qd1xd5")] {
            let mut history = History::default();
            let m = board
                .pos()
                .legal_moves()
                .into_iter()
                .find(|m| m.to_string() == favoured)
                .unwrap();
            for _ in 0..40 {
                history.on_capture_cutoff(Color::White, 10, Some(m), &[]);
            }
            assert_eq!(
                tactical_order(&board, &history),
                ["Nc3xb5", favoured, other],
                "favouring {favoured}"
            );
        }
    }

    #[test]
    fn quiet_move_into_a_cheaper_attacker_comes_after_safe_quiets() {
        // The knight on b1 may go to a3 or c3, both attacked by the black
        // pawn on b4, or to d2, which is safe; the rook on h1 may go to h4
        // or h6, attacked by the black knight on f5, or to safe squares.
        let board = Board::new(test_position("4k3/8/8/5n2/1p6/8/8/1N2K2R w - - 0 1"));
        let order: Vec<String> = order(&board, PackedMove::NONE)
            .into_iter()
            .filter(|m| !m.is_capture())
            .map(|m| m.to().to_string())
            .collect();
        let n = order.len();
        let mut endmost = order[n - 4..].to_vec();
        endmost.sort();
        assert_eq!(endmost, ["a3", "c3", "h4", "h6"], "{order:?}");
        let mut rook = order[n - 2..].to_vec();
        rook.sort();
        assert_eq!(rook, ["h4", "h6"], "the rook loses more: {order:?}");
    }
}
