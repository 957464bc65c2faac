//! Accumulators by ply, updated from the parent's by the move's changes.
//!
//! The search tells the stack each move it makes ([`Accumulators::moved`],
//! [`Accumulators::passed`] for a null move) and asks for evaluations at a
//! ply ([`Accumulators::evaluate`]). Each perspective's accumulator is
//! brought up to date only when a position is evaluated: from the nearest
//! ancestor whose accumulator is, by the few inputs each move changes (two
//! to four), or by a full refresh when that is nearer. In a king-mirrored
//! network a king move across the d/e line changes every input of its own
//! side's perspective, so that perspective is refreshed there.

use std::sync::Arc;

use shakmaty::{Chess, Color, Move, Position, Role};

use super::features::{index, mirror, mirror_in};
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
    /// By perspective (White's, Black's): the move mirrored its board, so
    /// its accumulator cannot be updated across it.
    refresh: [bool; 2],
}

/// The perspectives in the order of a plane's halves.
const SIDES: [Color; 2] = [Color::White, Color::Black];

#[inline]
fn side(c: Color) -> usize {
    usize::from(c == Color::Black)
}

/// The two perspectives' accumulators at every ply.
pub struct Accumulators {
    net: Arc<Network>,
    /// By ply: White's perspective, then Black's, `hidden` each.
    planes: Vec<Vec<i16>>,
    /// The move into each ply, as inputs changed.
    deltas: Vec<Delta>,
    /// Whether each ply's accumulators are up to date, White's and Black's.
    fresh: Vec<[bool; 2]>,
    /// Each perspective's mirror at each ply (see [`mirror`]).
    mirrors: Vec<[u8; 2]>,
}

impl Accumulators {
    pub fn new(net: Arc<Network>, plies: usize) -> Accumulators {
        let h = net.hidden();
        Accumulators {
            planes: vec![vec![0; 2 * h]; plies],
            deltas: vec![Delta::default(); plies],
            fresh: vec![[false; 2]; plies],
            mirrors: vec![[0; 2]; plies],
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
    /// games, against one in four once the root is fresh (the rest are in
    /// endgames, where a refresh costs no more than a few updates).
    pub fn new_root(&mut self, pos: &Chess) {
        self.fresh.fill([false; 2]);
        let mirrored = self.net.king_mirrored();
        self.mirrors[0] = SIDES.map(|c| mirror_in(pos, c, mirrored));
        // With no ancestor, both perspectives are refreshed.
        self.bring_up_to_date(pos, 0);
    }

    /// The position at `ply + 1` is the one at `ply` after `m`, played by `us`.
    #[inline]
    pub fn moved(&mut self, ply: usize, us: Color, m: Move) {
        let mirrors = self.mirrors[ply];
        let mut delta = Delta::default();
        let mut king_to = None;
        changes(us, m, |piece, sq, put| {
            let inputs = (
                index(Color::White, piece, sq, mirrors[0]) as u16,
                index(Color::Black, piece, sq, mirrors[1]) as u16,
            );
            if put {
                delta.puts[delta.put as usize] = inputs;
                delta.put += 1;
                if piece.role == Role::King {
                    king_to = Some(sq);
                }
            } else {
                delta.removals[delta.removed as usize] = inputs;
                delta.removed += 1;
            }
        });
        let mut child = mirrors;
        if self.net.king_mirrored()
            && let Some(king) = king_to
        {
            // The mover's inputs above were read with its old mirror: when
            // the mirror changes they are of no use, and it is refreshed.
            let s = side(us);
            child[s] = mirror(true, king);
            delta.refresh[s] = child[s] != mirrors[s];
        }
        self.mirrors[ply + 1] = child;
        self.deltas[ply + 1] = delta;
        self.fresh[ply + 1] = [false; 2];
    }

    /// The position at `ply + 1` is the one at `ply` with the turn passed.
    #[inline]
    pub fn passed(&mut self, ply: usize) {
        self.mirrors[ply + 1] = self.mirrors[ply];
        self.deltas[ply + 1] = Delta::default();
        self.fresh[ply + 1] = [false; 2];
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
        if self.fresh[ply] == [true; 2] {
            return;
        }
        let pieces = pos.board().occupied().count();
        let h = self.net.hidden();
        for s in 0..2 {
            if self.fresh[ply][s] {
                continue;
            }
            // The nearest ancestor up to date, if updating from it is
            // cheaper than a refresh (a refresh adds about as many inputs
            // as pieces) and no move on the way mirrored the board.
            let mut from = None;
            let mut q = ply;
            while q > 0 && (ply - q + 1) * 3 < pieces && !self.deltas[q].refresh[s] {
                q -= 1;
                if self.fresh[q][s] {
                    from = Some(q);
                    break;
                }
            }
            let Some(q) = from else {
                let acc = &mut self.planes[ply][s * h..(s + 1) * h];
                self.net.refresh(pos, SIDES[s], acc);
                self.fresh[ply][s] = true;
                continue;
            };
            let net = &*self.net;
            // The side's input is the first or second of each pair.
            let input = |(w, b): (u16, u16)| net.input(usize::from(if s == 0 { w } else { b }));
            for p in q + 1..=ply {
                let (done, rest) = self.planes.split_at_mut(p);
                let parent = &done[p - 1][s * h..(s + 1) * h];
                let child = &mut rest[0][s * h..(s + 1) * h];
                let d = self.deltas[p];
                // One pass over the parent for the usual moves.
                match (d.put, d.removed) {
                    (1, 1) => simd::add_sub(child, parent, input(d.puts[0]), input(d.removals[0])),
                    (1, 2) => simd::add_sub2(
                        child,
                        parent,
                        input(d.puts[0]),
                        input(d.removals[0]),
                        input(d.removals[1]),
                    ),
                    _ => {
                        child.copy_from_slice(parent);
                        for k in 0..usize::from(d.put) {
                            simd::add_or_sub(child, input(d.puts[k]), true);
                        }
                        for k in 0..usize::from(d.removed) {
                            simd::add_or_sub(child, input(d.removals[k]), false);
                        }
                    }
                }
                self.fresh[p][s] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::nnue::network::tests::sample_with_buckets;
    use shakmaty::CastlingMode;

    /// Plays random games from `fen`, with null moves now and then, and
    /// checks evaluations at one ply in two (so updates span several
    /// moves, as in a search) against a network's full refresh.
    fn walk(fen: &str, mode: CastlingMode, games: usize, start: u64) -> [usize; 6] {
        walk_with(fen, mode, games, start, false)
    }

    /// The same with a plain or a king-mirrored network; also counts the
    /// king moves across the d/e line.
    fn walk_with(
        fen: &str,
        mode: CastlingMode,
        games: usize,
        start: u64,
        king_mirrored: bool,
    ) -> [usize; 6] {
        let net = Arc::new(sample_with_buckets(24, 8).with_king_mirror(king_mirrored));
        let mut stack = Accumulators::new(net.clone(), 300);
        let mut x = start;
        let mut rand = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        // Castles, en passant captures, promotions, null moves, positions
        // evaluated, king moves across the d/e line.
        let mut seen = [0; 6];
        for _ in 0..games {
            // The boards of the current line, the root first: the walk
            // goes back up now and then, as a search does, and plays
            // another move from there.
            let mut line = vec![Board::from_fen(fen, mode).unwrap().0];
            stack.new_root(line[0].pos());
            for _ in 0..160 {
                let ply = line.len() - 1;
                let board = line[ply].clone();
                if rand(2) == 0 {
                    assert_eq!(
                        stack.evaluate(board.pos(), ply),
                        net.evaluate(board.pos()),
                        "ply {ply} of {fen}"
                    );
                    seen[4] += 1;
                }
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
                let king_file = |b: &Board| {
                    b.pos()
                        .board()
                        .king_of(board.turn())
                        .map(shakmaty::Square::file)
                };
                let after = board.play(m);
                let east = |f: Option<shakmaty::File>| f.is_some_and(|f| f >= shakmaty::File::E);
                seen[5] += usize::from(east(king_file(&board)) != east(king_file(&after)));
                stack.moved(ply, board.turn(), m);
                line.push(after);
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

    /// A king-mirrored network: the mover's accumulator is refreshed when
    /// its king crosses the d/e line (castling long included), the other
    /// side's is updated as usual.
    #[test]
    fn king_mirrored_accumulators_equal_a_full_refresh() {
        for (fen, mode, seed) in [
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
                17,
            ),
            (
                "8/3k4/8/2p5/3P4/4K3/8/8 w - - 0 1",
                CastlingMode::Standard,
                19,
            ),
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                CastlingMode::Chess960,
                23,
            ),
        ] {
            let seen = walk_with(fen, mode, 40, seed, true);
            assert!(seen[4] > 100 && seen[5] > 10, "{fen}: {seen:?}");
        }
    }
}
