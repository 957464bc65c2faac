//! Quiet-move ordering memory: two killers per ply and a butterfly history
//! table (side, from, to) with a bounded "gravity" update.

use shakmaty::{Color, Move};

use super::params::{HISTORY_MAX, history_bonus};
use crate::score::MAX_PLY;

/// Killers and history of one search thread.
pub struct History {
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    butterfly: Box<[[[i32; 64]; 64]; 2]>,
}

impl Default for History {
    fn default() -> Self {
        History {
            killers: [[None; 2]; MAX_PLY + 1],
            butterfly: Box::new([[[0; 64]; 64]; 2]),
        }
    }
}

#[inline]
fn squares(m: Move) -> (usize, usize) {
    (m.from().map_or(0, usize::from), usize::from(m.to()))
}

/// Moves `entry` towards ±HISTORY_MAX by `bonus`, slowing as it nears the
/// bound, so old successes fade instead of saturating.
#[inline]
fn gravity(entry: &mut i32, bonus: i32) {
    *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
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

    #[inline]
    pub fn score(&self, side: Color, m: Move) -> i32 {
        let (from, to) = squares(m);
        self.butterfly[side as usize][from][to]
    }

    /// A quiet move caused a beta cut-off: make it a killer, reward it and
    /// punish the quiet moves tried before it.
    pub fn on_cutoff(&mut self, side: Color, ply: usize, depth: i32, best: Move, tried: &[Move]) {
        let k = &mut self.killers[ply];
        if k[0] != Some(best) {
            k[1] = k[0];
            k[0] = Some(best);
        }
        let bonus = history_bonus(depth);
        let table = &mut self.butterfly[side as usize];
        for &m in tried {
            let (from, to) = squares(m);
            gravity(&mut table[from][to], -bonus);
        }
        let (from, to) = squares(best);
        gravity(&mut table[from][to], bonus);
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
        for _ in 0..10_000 {
            h.on_cutoff(Color::White, 3, 20, moves[0], &moves[1..3]);
        }
        assert!(h.score(Color::White, moves[0]) <= HISTORY_MAX);
        assert!(h.score(Color::White, moves[1]) >= -HISTORY_MAX);
        assert!(h.score(Color::White, moves[0]) > 0);
        h.on_cutoff(Color::White, 3, 1, moves[5], &[]);
        assert_eq!(h.killers(3), [Some(moves[5]), Some(moves[0])]);
    }
}
