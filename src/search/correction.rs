//! Correction history: how far searches have found the static evaluation
//! off in positions with the same pawns, and in positions reached by the
//! same move, learnt as the search goes and added to the evaluation before
//! pruning decisions use it.
//!
//! The handcrafted evaluation misjudges some pawn structures the same way
//! wherever they occur (a blocked centre, a passer that cannot be stopped);
//! the search sees the error as the gap between its result and the static
//! evaluation, and the next node with those pawns starts closer to the truth.
//! A move can be misjudged the same way too: a piece that lands where it
//! threatens what the evaluation does not see (a fork, a mating net) leaves
//! an error the next search after that move shares.
//! So can the placement of one side's pieces (a king whose shelter the
//! evaluation overrates, a knight stranded on the rim): each side's pieces
//! other than pawns key a table of their own, so the error follows them
//! through changes of the pawns and of the other side's pieces.

use shakmaty::Color;

use super::history::{PIECE_TO, PieceTo, index};
use super::params::{CORRECTION_GRAIN, CORRECTION_MAX, CORRECTION_SIZE, CORRECTION_WEIGHT_MAX};
use crate::board::Board;
use crate::score::{MAX_PLY, TB_WIN};

/// Corrected evaluations stay below every tablebase and mate score.
const EVAL_LIMIT: i32 = TB_WIN - MAX_PLY as i32 - 1;

/// Weights are in parts of this.
const WEIGHT_SCALE: i32 = 256;

/// Learnt evaluation errors, in `CORRECTION_GRAIN` parts of a centipawn.
pub struct Correction {
    /// Learnt errors by side to move and placement: of the pawns, of
    /// White's other pieces, of Black's (`KEYS` blocks, see [`slots`]).
    table: Vec<i32>,
    /// Learnt errors by the move that led to the position (its piece and
    /// square): a move whose threat the evaluation misses is misjudged the
    /// same way wherever it is played.
    after: Vec<i32>,
}

/// Placements that key the table: the pawns, and each side's other pieces.
const KEYS: usize = 3;

impl Default for Correction {
    fn default() -> Self {
        Correction {
            table: vec![0; KEYS * 2 * CORRECTION_SIZE],
            after: vec![0; PIECE_TO],
        }
    }
}

/// The table's slots for the side to move and each placement: the pawns
/// of both sides, White's pieces other than pawns, Black's.
#[inline]
fn slots(board: &Board) -> [usize; KEYS] {
    let hashes = [
        board.pawn_key(),
        board.non_pawn_key(Color::White),
        board.non_pawn_key(Color::Black),
    ];
    let turn = board.turn() as usize * CORRECTION_SIZE;
    std::array::from_fn(|k| {
        k * 2 * CORRECTION_SIZE + turn + (hashes[k] >> 40) as usize % CORRECTION_SIZE
    })
}

impl Correction {
    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.table.fill(0);
        self.after.fill(0);
    }

    /// The static evaluation `raw` of `board`, reached by the move `prev`
    /// (`None` at the root and after a null move), corrected by what
    /// searches of positions with these pawns and after that move have
    /// found; never a mate score.
    #[inline]
    pub fn apply(&self, board: &Board, prev: Option<PieceTo>, raw: i32) -> i32 {
        let after = prev.map_or(0, |p| self.after[index(p)]);
        let learnt = after + slots(board).map(|s| self.table[s]).iter().sum::<i32>();
        let corrected = raw + learnt / CORRECTION_GRAIN;
        corrected.clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// A search of `depth` found `score` where the corrected evaluation
    /// said `eval`: move the slot's correction towards the gap, the more
    /// the deeper the search. The gap is what the correction left, so a
    /// steady error seen through n keys settles at n/(n + 1) of its size
    /// (three quarters through the pawns and the two sides' pieces, four
    /// fifths with the move as well): the correction is damped, because one
    /// pawn structure, placement or move stands for many positions.
    #[inline]
    pub fn learn(
        &mut self,
        board: &Board,
        prev: Option<PieceTo>,
        depth: i32,
        score: i32,
        eval: i32,
    ) {
        // A mate or tablebase score says nothing of the evaluation's error.
        if score.abs() > EVAL_LIMIT {
            return;
        }
        let weight = (depth + 1).min(CORRECTION_WEIGHT_MAX);
        let target = (score - eval) * CORRECTION_GRAIN;
        for s in slots(board) {
            blend(&mut self.table[s], target, weight);
        }
        if let Some(p) = prev {
            blend(&mut self.after[index(p)], target, weight);
        }
    }
}

/// Moves `entry` towards `target` by `weight` parts of `WEIGHT_SCALE`.
#[inline]
fn blend(entry: &mut i32, target: i32, weight: i32) {
    let blended = (*entry * (WEIGHT_SCALE - weight) + target * weight) / WEIGHT_SCALE;
    *entry = blended.clamp(-CORRECTION_MAX, CORRECTION_MAX);
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Chess;
    use shakmaty::fen::Fen;

    fn board(fen: &str) -> Board {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        Board::new(pos)
    }

    #[test]
    fn learns_towards_the_search_and_stays_bounded() {
        let mut c = Correction::default();
        let b = board("4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1");
        assert_eq!(c.apply(&b, None, 30), 30);
        // An error of 50 cp, seen again and again through the pawns and
        // the two sides' pieces, settles at three quarters.
        for _ in 0..200 {
            c.learn(&b, None, 10, 80, c.apply(&b, None, 30));
        }
        let corrected = c.apply(&b, None, 30);
        assert!((66..=69).contains(&corrected), "{corrected}");
        // Each of the three keys stops at its bound.
        for _ in 0..10_000 {
            c.learn(&b, None, 20, 20_000, c.apply(&b, None, 0));
        }
        assert_eq!(c.apply(&b, None, 0), 3 * CORRECTION_MAX / CORRECTION_GRAIN);
    }

    #[test]
    fn the_other_side_and_other_placements_are_apart() {
        let mut c = Correction::default();
        let white = board("4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1");
        let black = board("4k3/pp6/8/8/8/8/PP6/4K3 b - - 0 1");
        let other_pawns = board("4k3/pp6/8/8/8/P7/1P6/4K3 w - - 0 1");
        let other_black_king = board("3k4/pp6/8/8/8/P7/1P6/4K3 w - - 0 1");
        let other_kings = board("3k4/pp6/8/8/8/P7/1P6/3K4 w - - 0 1");
        for _ in 0..50 {
            c.learn(&white, None, 10, 100, c.apply(&white, None, 0));
        }
        let full = c.apply(&white, None, 0);
        assert!(full > 45, "{full}");
        assert_eq!(c.apply(&black, None, 0), 0);
        // Other pawns keep the share of both sides' pieces, another black
        // king only White's, and other kings on both sides nothing.
        let both = c.apply(&other_pawns, None, 0);
        let one = c.apply(&other_black_king, None, 0);
        assert!(full > both && both > one && one > 0, "{full} {both} {one}");
        assert_eq!(c.apply(&other_kings, None, 0), 0);
        c.clear();
        assert_eq!(c.apply(&white, None, 0), 0);
    }

    #[test]
    fn an_error_after_a_move_follows_that_move() {
        use shakmaty::{Color, Move, Role, Square};
        let mut c = Correction::default();
        let b = board("4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1");
        let other_pawns = board("3k4/pp6/8/8/8/P7/1P6/3K4 w - - 0 1");
        let knight = |to| Move::Normal {
            role: Role::Knight,
            from: Square::B8,
            capture: None,
            to,
            promotion: None,
        };
        let prev = Some(PieceTo::new(Color::Black, knight(Square::C6)));
        let other_move = Some(PieceTo::new(Color::Black, knight(Square::A6)));
        for _ in 0..50 {
            c.learn(&b, prev, 10, 100, c.apply(&b, prev, 0));
        }
        // The move's share (a fifth of the error, one of four keys) follows
        // it to other pawns and pieces; another move has none.
        let shared = c.apply(&other_pawns, prev, 0);
        assert!((15..=20).contains(&shared), "{shared}");
        assert!(c.apply(&b, prev, 0) > shared);
        assert_eq!(c.apply(&other_pawns, other_move, 0), 0);
        assert_eq!(c.apply(&other_pawns, None, 0), 0);
    }
}
