//! Captures and promotions only, for the quiescence search.
//!
//! shakmaty makes every legal move in one pass, and its `capture_moves`
//! filters that list, so a quiescence node paid for all the quiet moves it
//! never looks at. Quiescence nodes are about half of all nodes, and most
//! of them are not in check: this generator makes only the moves that
//! change material there. It lists them in the order shakmaty's full list
//! has them (the move picker breaks ties by list order, so the search sees
//! the same tree either way), which the tests check move for move.

use shakmaty::attacks::{
    aligned, between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks,
    rook_attacks,
};
use shakmaty::{Bitboard, Board, Chess, Color, Move, MoveList, Position, Role, Square};

/// The legal captures and promotions (quiet ones too) of `pos`, which must
/// not be in check (evasions are all searched, so they come from the full
/// generator).
pub fn tactical_moves(pos: &Chess) -> MoveList {
    debug_assert!(!pos.is_check(), "tactical_moves out of check only");
    let board = pos.board();
    let us = pos.turn();
    let theirs = board.by_color(!us);
    let occupied = board.occupied();
    let mut moves = MoveList::new();

    let has_en_passant = en_passant(pos, &mut moves);
    pawn_moves(board, us, &mut moves);
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for from in board.by_piece(role.of(us)) {
            let reach = match role {
                Role::Knight => knight_attacks(from),
                Role::Bishop => bishop_attacks(from, occupied),
                Role::Rook => rook_attacks(from, occupied),
                _ => queen_attacks(from, occupied),
            };
            for to in reach & theirs {
                moves.push(capture(board, role, from, to, None));
            }
        }
    }
    let Some(king) = board.king_of(us) else {
        return moves;
    };
    // Not in check, so no slider sees through the king's square: the
    // squares the opponent attacks with the king still on it are all.
    for to in king_attacks(king) & theirs {
        if board.attacks_to(to, !us, occupied).is_empty() {
            moves.push(capture(board, Role::King, king, to, None));
        }
    }

    // Pinned pieces may move only along the pin; en passant removes two
    // pawns from a line at once and is tested on the board after it.
    let pinned = pinned(board, theirs, king);
    if pinned.any() || has_en_passant {
        moves.retain(|m| match *m {
            Move::EnPassant { from, to } => en_passant_is_safe(board, us, king, from, to),
            _ => m
                .from()
                .is_none_or(|from| !pinned.contains(from) || aligned(from, m.to(), king)),
        });
    }
    moves
}

/// A move of `role` from `from` to `to`, taking whatever stands there.
#[inline]
fn capture(board: &Board, role: Role, from: Square, to: Square, promotion: Option<Role>) -> Move {
    Move::Normal {
        role,
        from,
        capture: board.role_at(to),
        to,
        promotion,
    }
}

/// Adds the en passant captures (legal or not); whether there were any.
fn en_passant(pos: &Chess, moves: &mut MoveList) -> bool {
    let Some(to) = pos.maybe_ep_square() else {
        return false;
    };
    let us = pos.turn();
    let from = pos.board().by_piece(Role::Pawn.of(us)) & pawn_attacks(!us, to);
    for from in from {
        moves.push(Move::EnPassant { from, to });
    }
    from.any()
}

/// Pawn captures (towards the a-file first, then the h-file; promotions
/// after the plain captures of each side) and then the quiet promotions.
fn pawn_moves(board: &Board, us: Color, moves: &mut MoveList) {
    let pawns = board.by_piece(Role::Pawn.of(us));
    let theirs = board.by_color(!us);
    let forward = if us == Color::White { 8 } else { -8 };
    for (side, edge) in [
        (-1, Bitboard::from(shakmaty::File::A)),
        (1, Bitboard::from(shakmaty::File::H)),
    ] {
        let step = forward + side;
        let targets = (pawns & !edge).shift(step) & theirs;
        for to in targets & !Bitboard::BACKRANKS {
            moves.push(capture(board, Role::Pawn, from_of(to, step), to, None));
        }
        for to in targets & Bitboard::BACKRANKS {
            promotions(board, from_of(to, step), to, moves);
        }
    }
    let pushes = pawns.shift(forward) & !board.occupied() & Bitboard::BACKRANKS;
    for to in pushes {
        promotions(board, from_of(to, forward), to, moves);
    }
}

/// The square a pawn came from to reach `to` by `step`.
#[inline]
fn from_of(to: Square, step: i32) -> Square {
    to.offset(-step).expect("the step came from the board")
}

/// The four promotions of a pawn from `from` to `to`, queen first.
fn promotions(board: &Board, from: Square, to: Square, moves: &mut MoveList) {
    for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
        moves.push(capture(board, Role::Pawn, from, to, Some(role)));
    }
}

/// Pieces (of either side) that stand alone between `king` and an enemy
/// slider aiming at it.
fn pinned(board: &Board, theirs: Bitboard, king: Square) -> Bitboard {
    let snipers = (rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens())
        | (bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens());
    let mut pinned = Bitboard::EMPTY;
    for sniper in snipers & theirs {
        let line = between(king, sniper) & board.occupied();
        if !line.more_than_one() {
            pinned |= line;
        }
    }
    pinned
}

/// Whether the king is safe after the en passant capture `from` → `to`.
fn en_passant_is_safe(board: &Board, us: Color, king: Square, from: Square, to: Square) -> bool {
    let taken = Square::from_coords(to.file(), from.rank());
    let occupied =
        board.occupied() ^ Bitboard::from(from) ^ Bitboard::from(taken) | Bitboard::from(to);
    (board.attacks_to(king, !us, occupied) & !Bitboard::from(taken)).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::test_position;

    fn is_tactical(m: Move) -> bool {
        m.is_capture() || m.is_promotion()
    }

    /// Positions with pins, en passant (legal and not), promotions and
    /// captures by every piece, each walked by a few pseudo-random games.
    const POSITIONS: [&str; 8] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "8/8/8/K2pP2r/8/8/8/7k w - d6 0 2",
        "8/8/3k4/8/2pP4/8/1B6/K7 b - d3 0 1",
        "1k6/1P1n4/8/8/8/8/6p1/4K2R w K - 0 1",
    ];

    fn expected(pos: &Chess) -> Vec<Move> {
        pos.legal_moves()
            .into_iter()
            .filter(|&m| is_tactical(m))
            .collect()
    }

    #[test]
    fn the_same_moves_in_the_same_order_as_shakmaty() {
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut checked = 0;
        for fen in POSITIONS {
            for _ in 0..40 {
                let mut pos = test_position(fen);
                for _ in 0..60 {
                    if !pos.is_check() {
                        let got: Vec<Move> = tactical_moves(&pos).into_iter().collect();
                        assert_eq!(
                            got,
                            expected(&pos),
                            "{}",
                            shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                        );
                        checked += 1;
                    }
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    // Captures a third of the time, so material comes off
                    // and promotions and endings are reached.
                    let tactical: Vec<Move> =
                        moves.iter().copied().filter(|&m| is_tactical(m)).collect();
                    let m = if seed.is_multiple_of(3) && !tactical.is_empty() {
                        tactical[(seed >> 8) as usize % tactical.len()]
                    } else {
                        moves[(seed >> 8) as usize % moves.len()]
                    };
                    pos.play_unchecked(m);
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn en_passant_that_exposes_the_king_is_left_out() {
        // Taking d6 en passant would open the fifth rank to the rook.
        let pos = test_position("8/8/8/K2pP2r/8/8/8/7k w - d6 0 2");
        assert!(tactical_moves(&pos).iter().all(|m| !m.is_en_passant()));
        // Here it is legal.
        let pos = test_position("8/8/8/3pP3/8/8/8/K6k w - d6 0 2");
        assert!(tactical_moves(&pos).iter().any(|m| m.is_en_passant()));
    }
}
