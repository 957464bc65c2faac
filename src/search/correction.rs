//! Correction history: how far searches have found the static evaluation
//! off in positions with the same pawns, learnt as the search goes and
//! added to the evaluation before pruning decisions use it.
//!
//! The handcrafted evaluation misjudges some pawn structures the same way
//! wherever they occur (a blocked centre, a passer that cannot be stopped);
//! the search sees the error as the gap between its result and the static
//! evaluation, and the next node with those pawns starts closer to the truth.

use shakmaty::Position;

use super::params::{CORRECTION_GRAIN, CORRECTION_MAX, CORRECTION_SIZE, CORRECTION_WEIGHT_MAX};
use crate::board::Board;
use crate::eval::pawn_hash;
use crate::score::{MAX_PLY, TB_WIN};

/// Corrected evaluations stay below every tablebase and mate score.
const EVAL_LIMIT: i32 = TB_WIN - MAX_PLY as i32 - 1;

/// Weights are in parts of this.
const WEIGHT_SCALE: i32 = 256;

/// Learnt evaluation errors by side to move and pawn placement, in
/// `CORRECTION_GRAIN` parts of a centipawn.
pub struct Correction {
    table: Vec<i32>,
}

impl Default for Correction {
    fn default() -> Self {
        Correction {
            table: vec![0; 2 * CORRECTION_SIZE],
        }
    }
}

/// A slot for the side to move and the pawns of both sides.
#[inline]
fn slot(board: &Board) -> usize {
    let bucket = (pawn_hash(board.pos().board()) >> 40) as usize % CORRECTION_SIZE;
    board.turn() as usize * CORRECTION_SIZE + bucket
}

impl Correction {
    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.table.fill(0);
    }

    /// The static evaluation `raw` of `board`, corrected by what searches
    /// of positions with these pawns have found; never a mate score.
    #[inline]
    pub fn apply(&self, board: &Board, raw: i32) -> i32 {
        let corrected = raw + self.table[slot(board)] / CORRECTION_GRAIN;
        corrected.clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// A search of `depth` found `score` where the corrected evaluation
    /// said `eval`: move the slot's correction towards the gap, the more
    /// the deeper the search. The gap is what the correction left, so a
    /// steady error settles at half its size: the correction is damped,
    /// because one pawn structure stands for many positions.
    #[inline]
    pub fn learn(&mut self, board: &Board, depth: i32, score: i32, eval: i32) {
        // A mate or tablebase score says nothing of the evaluation's error.
        if score.abs() > EVAL_LIMIT {
            return;
        }
        let entry = &mut self.table[slot(board)];
        let weight = (depth + 1).min(CORRECTION_WEIGHT_MAX);
        let target = (score - eval) * CORRECTION_GRAIN;
        let blended = (*entry * (WEIGHT_SCALE - weight) + target * weight) / WEIGHT_SCALE;
        *entry = blended.clamp(-CORRECTION_MAX, CORRECTION_MAX);
    }
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
        assert_eq!(c.apply(&b, 30), 30);
        // An error of 50 cp, seen again and again, settles at half.
        for _ in 0..200 {
            c.learn(&b, 10, 80, c.apply(&b, 30));
        }
        let corrected = c.apply(&b, 30);
        assert!((53..=56).contains(&corrected), "{corrected}");
        for _ in 0..10_000 {
            c.learn(&b, 20, 20_000, c.apply(&b, 0));
        }
        assert!(c.apply(&b, 0) <= CORRECTION_MAX / CORRECTION_GRAIN);
    }

    #[test]
    fn the_other_side_and_other_pawns_are_apart() {
        let mut c = Correction::default();
        let white = board("4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1");
        let black = board("4k3/pp6/8/8/8/8/PP6/4K3 b - - 0 1");
        let other = board("4k3/pp6/8/8/8/P7/1P6/4K3 w - - 0 1");
        for _ in 0..50 {
            c.learn(&white, 10, 100, c.apply(&white, 0));
        }
        assert!(c.apply(&white, 0) > 30);
        assert_eq!(c.apply(&black, 0), 0);
        assert_eq!(c.apply(&other, 0), 0);
        c.clear();
        assert_eq!(c.apply(&white, 0), 0);
    }
}
