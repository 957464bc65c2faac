//! Accumulators by ply, updated from the parent's by the move's changes.
//!
//! The search tells the stack each move it makes ([`Accumulators::moved`],
//! [`Accumulators::passed`] for a null move) and asks for evaluations at a
//! ply ([`Accumulators::evaluate`]). An accumulator is brought up to date
//! only when a position is evaluated: from the nearest ancestor that is,
//! by the few inputs each move changes (two to four), or by a full refresh
//! when that is nearer.

use std::sync::Arc;

use shakmaty::{Chess, Color, Move, Position};

use super::features::index;
use super::{Network, simd};
use crate::board::changes;

/// The inputs a move changes, as (White's input, Black's input): at most
/// two put (castling) and two removed (castling, captures, en passant);
/// none with a pass.
#[derive(Clone, Copy, Debug, Default)]
struct Delta {
    puts: [(u16, u16); 2],
    removals: [(u16, u16); 2],
    put: u8,
    removed: u8,
}

/// The two perspectives' accumulators at every ply.
pub struct Accumulators {
    net: Arc<Network>,
    /// By ply: White's perspective, then Black's, `hidden` each.
    planes: Vec<Vec<i16>>,
    /// The move into each ply, as inputs changed.
    deltas: Vec<Delta>,
    /// Whether each ply's accumulators are up to date.
    fresh: Vec<bool>,
}

impl Accumulators {
    pub fn new(net: Arc<Network>, plies: usize) -> Accumulators {
        let h = net.hidden();
        Accumulators {
            planes: vec![vec![0; 2 * h]; plies],
            deltas: vec![Delta::default(); plies],
            fresh: vec![false; plies],
            net,
        }
    }

    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// A new root, `pos`: nothing computed so far holds, and the root's
    /// accumulators are computed now. Updates start from the nearest fresh
    /// ancestor, so without a fresh root every node of a line whose
    /// ancestors were not evaluated (in check, or scored from the table)
    /// would be refreshed in full: two in five evaluations in self-play
    /// games, against none once the root is fresh.
    pub fn new_root(&mut self, pos: &Chess) {
        self.fresh.fill(false);
        let h = self.net.hidden();
        let (white, black) = self.planes[0].split_at_mut(h);
        self.net.refresh(pos, Color::White, white);
        self.net.refresh(pos, Color::Black, black);
        self.fresh[0] = true;
    }

    /// The position at `ply + 1` is the one at `ply` after `m`, played by `us`.
    #[inline]
    pub fn moved(&mut self, ply: usize, us: Color, m: Move) {
        let mut delta = Delta::default();
        changes(us, m, |piece, sq, put| {
            let inputs = (
                index(Color::White, piece, sq) as u16,
                index(Color::Black, piece, sq) as u16,
            );
            if put {
                delta.puts[delta.put as usize] = inputs;
                delta.put += 1;
            } else {
                delta.removals[delta.removed as usize] = inputs;
                delta.removed += 1;
            }
        });
        self.deltas[ply + 1] = delta;
        self.fresh[ply + 1] = false;
    }

    /// The position at `ply + 1` is the one at `ply` with the turn passed.
    #[inline]
    pub fn passed(&mut self, ply: usize) {
        self.deltas[ply + 1] = Delta::default();
        self.fresh[ply + 1] = false;
    }

    /// The evaluation of `pos`, the position at `ply`, for its side to move.
    pub fn evaluate(&mut self, pos: &Chess, ply: usize) -> i32 {
        self.bring_up_to_date(pos, ply);
        let h = self.net.hidden();
        let (white, black) = self.planes[ply].split_at(h);
        let pieces = pos.board().occupied().count();
        let eval = match pos.turn() {
            Color::White => self.net.output(white, black, pieces),
            Color::Black => self.net.output(black, white, pieces),
        };
        // In tests every evaluation is checked against a full refresh, so
        // a search path that forgets to report a move fails at once.
        #[cfg(test)]
        assert_eq!(
            eval,
            self.net.evaluate(pos),
            "stale accumulator at ply {ply}"
        );
        eval
    }

    fn bring_up_to_date(&mut self, pos: &Chess, ply: usize) {
        if self.fresh[ply] {
            return;
        }
        // The nearest ancestor up to date, if updating from it is cheaper
        // than a refresh (a refresh adds about as many inputs as pieces).
        let pieces = pos.board().occupied().count();
        let from = (0..ply)
            .rev()
            .take_while(|&q| (ply - q) * 3 < pieces)
            .find(|&q| self.fresh[q]);
        let h = self.net.hidden();
        match from {
            None => {
                let (white, black) = self.planes[ply].split_at_mut(h);
                self.net.refresh(pos, Color::White, white);
                self.net.refresh(pos, Color::Black, black);
            }
            Some(q) => {
                for p in q + 1..=ply {
                    let (done, rest) = self.planes.split_at_mut(p);
                    let (parent, child) = (&done[p - 1], &mut rest[0]);
                    let d = self.deltas[p];
                    let net = &*self.net;
                    // One pass over the parent for the usual moves; the
                    // side's input is the first or second of each pair.
                    let side =
                        |(w, b): (u16, u16), s: usize| usize::from(if s == 0 { w } else { b });
                    for (s, (c, par)) in child.chunks_mut(h).zip(parent.chunks(h)).enumerate() {
                        let put = |k: usize| net.input(side(d.puts[k], s));
                        let removed = |k: usize| net.input(side(d.removals[k], s));
                        match (d.put, d.removed) {
                            (1, 1) => simd::add_sub(c, par, put(0), removed(0)),
                            (1, 2) => simd::add_sub2(c, par, put(0), removed(0), removed(1)),
                            _ => {
                                c.copy_from_slice(par);
                                for k in 0..usize::from(d.put) {
                                    simd::add_or_sub(c, put(k), true);
                                }
                                for k in 0..usize::from(d.removed) {
                                    simd::add_or_sub(c, removed(k), false);
                                }
                            }
                        }
                    }
                    self.fresh[p] = true;
                }
            }
        }
        self.fresh[ply] = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::nnue::network::tests::sample_with_buckets;
    use shakmaty::CastlingMode;

    /// Plays random games from `fen`, with null moves now and then, and
    /// checks every evaluation against a network's full refresh.
    fn walk(fen: &str, mode: CastlingMode, games: usize, start: u64) -> [usize; 5] {
        let net = Arc::new(sample_with_buckets(24, 8));
        let mut stack = Accumulators::new(net.clone(), 300);
        let mut x = start;
        let mut rand = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        // Castles, en passant captures, promotions, null moves, positions.
        let mut seen = [0; 5];
        for _ in 0..games {
            // The boards of the current line, the root first: the walk
            // goes back up now and then, as a search does, and plays
            // another move from there.
            let mut line = vec![Board::from_fen(fen, mode).unwrap().0];
            stack.new_root(line[0].pos());
            for _ in 0..160 {
                let ply = line.len() - 1;
                let board = line[ply].clone();
                assert_eq!(
                    stack.evaluate(board.pos(), ply),
                    net.evaluate(board.pos()),
                    "ply {ply} of {fen}"
                );
                seen[4] += 1;
                let moves = board.pos().legal_moves();
                if moves.is_empty() || ply >= 200 || (ply > 2 && rand(6) == 0) {
                    line.truncate(1 + rand(ply.max(1)));
                    continue;
                }
                if rand(10) == 0
                    && !board.in_check()
                    && let Some(next) = board.null_move()
                {
                    stack.passed(ply);
                    line.push(next);
                    seen[3] += 1;
                    continue;
                }
                // Prefer the rare kinds of move when there are any.
                let special: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|m| m.is_castle() || m.is_en_passant() || m.is_promotion())
                    .collect();
                let m = if !special.is_empty() && rand(2) == 0 {
                    special[rand(special.len())]
                } else {
                    moves[rand(moves.len())]
                };
                seen[0] += usize::from(m.is_castle());
                seen[1] += usize::from(m.is_en_passant());
                seen[2] += usize::from(m.is_promotion());
                stack.moved(ply, board.turn(), m);
                line.push(board.play(m));
            }
        }
        seen
    }

    #[test]
    fn incremental_accumulators_equal_a_full_refresh() {
        // Both castlings, en passant and promotions from Kiwipete and a
        // promotion-heavy position; Chess960 castling (king takes rook)
        // from a Chess960 start.
        let kiwipete = walk(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            CastlingMode::Standard,
            40,
            7,
        );
        let promotions = walk(
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            CastlingMode::Standard,
            40,
            11,
        );
        let chess960 = walk(
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            CastlingMode::Chess960,
            40,
            13,
        );
        for (name, seen) in [
            ("kiwipete", kiwipete),
            ("promotions", promotions),
            ("960", chess960),
        ] {
            assert!(seen[3] > 0 && seen[4] > 100, "{name}: {seen:?}");
        }
        assert!(kiwipete[0] > 0 && kiwipete[1] > 0, "{kiwipete:?}");
        assert!(promotions[2] > 0, "{promotions:?}");
        assert!(chess960[0] > 0, "{chess960:?}");
    }
}
