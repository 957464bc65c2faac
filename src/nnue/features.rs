//! The network's inputs: 768 per perspective, one for each (side, kind,
//! square) seen from that perspective. The engine and the trainer both
//! index through [`index`] (the trainer through [`index_packed`], tested
//! to agree), so a net means the same to both.
//!
//! A king-mirrored network sees each perspective's board mirrored left to
//! right (files a↔h) while that perspective's own king stands on files e–h
//! ([`mirror`]), so the king is always on the a–d half: the weights of a
//! king on g1 and one on b1 are the same weights, and each is learnt from
//! twice the positions. Chess is symmetric left to right but for castling
//! rights, which the inputs do not show.

use shakmaty::{Chess, Color, File, Piece, Position, Role, Square};

/// The number of a kind of piece: pawn 0, knight 1, … king 5, as the
/// inputs and the packed training records both count them.
#[inline]
pub fn kind(role: Role) -> u8 {
    // shakmaty numbers the roles from 1 (pawn) to 6 (king).
    role as u8 - 1
}

/// Inputs per perspective.
pub const INPUTS: usize = 768;

/// What a perspective XORs into its squares: 7 (files a↔h) in a
/// king-mirrored network while its own king stands on files e–h, else 0.
#[inline]
pub fn mirror(king_mirrored: bool, own_king: Square) -> u8 {
    if king_mirrored && own_king.file() >= File::E {
        7
    } else {
        0
    }
}

/// The input of `piece` on `square` seen by `perspective`, whose squares
/// are `XOR`ed with `mirror` (see [`mirror`]): the perspective's own pieces
/// first (0–383), then the other side's; within each, by kind (pawn …
/// king) and square, with the board mirrored vertically for Black so that
/// both perspectives see their pieces moving up.
#[inline]
pub fn index(perspective: Color, piece: Piece, square: Square, mirror: u8) -> usize {
    let own = usize::from(piece.color != perspective) * 384;
    let kind = usize::from(kind(piece.role));
    let sq = usize::from(u8::from(square) ^ mirror);
    let sq = if perspective == Color::White {
        sq
    } else {
        sq ^ 0b11_1000
    };
    own + kind * 64 + sq
}

/// The same input from a packed training record's (colour << 3 | kind,
/// square), which is already seen by the side to move: for the side to
/// move it is the record as it stands, for the other side colours swap and
/// the board mirrors. `mirror` is that perspective's (see [`mirror`]; the
/// files of a record are the board's files).
#[inline]
pub fn index_packed(piece: u8, square: u8, side_to_move: bool, mirror: u8) -> usize {
    let (colour, kind) = (usize::from(piece >> 3), usize::from(piece & 7));
    let square = usize::from(square ^ mirror);
    if side_to_move {
        colour * 384 + kind * 64 + square
    } else {
        (colour ^ 1) * 384 + kind * 64 + (square ^ 0b11_1000)
    }
}

/// Most output buckets a network may have.
pub const MAX_BUCKETS: usize = 16;

/// The output bucket of a position with `pieces` pieces on the board
/// (kings included) in a network with `buckets` of them: the pieces from 2
/// to 32 split into `buckets` equal ranges, so that the endgame, where a
/// pawn or an exchange is worth more, gets output weights of its own. With
/// 8 buckets that is 2–5 pieces, 6–9, … 30–32.
#[inline]
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    (pieces.saturating_sub(2) * buckets / 31).min(buckets - 1)
}

/// The mirror of `perspective` in `pos` (see [`mirror`]).
#[inline]
pub fn mirror_in(pos: &Chess, perspective: Color, king_mirrored: bool) -> u8 {
    if !king_mirrored {
        return 0;
    }
    pos.board()
        .king_of(perspective)
        .map_or(0, |king| mirror(true, king))
}

/// Every active input of `pos` for `perspective`.
pub fn active(
    pos: &Chess,
    perspective: Color,
    king_mirrored: bool,
) -> impl Iterator<Item = usize> + '_ {
    let m = mirror_in(pos, perspective, king_mirrored);
    pos.board()
        .into_iter()
        .map(move |(sq, piece)| index(perspective, piece, sq, m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::test_position as pos;
    use crate::data::packed::Packed;

    #[test]
    fn perspectives_mirror_each_other() {
        let white_pawn = Piece {
            color: Color::White,
            role: Role::Pawn,
        };
        let black_pawn = Piece {
            color: Color::Black,
            role: Role::Pawn,
        };
        assert_eq!(index(Color::White, white_pawn, Square::E2, 0), 12);
        assert_eq!(index(Color::Black, black_pawn, Square::E7, 0), 12);
        assert_eq!(index(Color::White, black_pawn, Square::E7, 0), 384 + 52);
        let king = Piece {
            color: Color::Black,
            role: Role::King,
        };
        assert_eq!(index(Color::White, king, Square::H8, 0), 767);
        // Mirrored, e2 is seen as d2 and h8 as a8.
        assert_eq!(index(Color::White, white_pawn, Square::E2, 7), 11);
        assert_eq!(index(Color::Black, black_pawn, Square::E7, 7), 11);
        assert_eq!(index(Color::White, king, Square::H8, 7), 767 - 7);
    }

    #[test]
    fn a_king_mirrored_perspective_sees_its_king_on_files_a_to_d() {
        assert_eq!(mirror(true, Square::D1), 0);
        assert_eq!(mirror(true, Square::E1), 7);
        assert_eq!(mirror(true, Square::H8), 7);
        assert_eq!(mirror(false, Square::H8), 0);
        // The position and its left-right mirror image (no castling
        // rights) give every perspective the same inputs.
        let a = pos("6k1/5pp1/8/3P4/8/1N6/PP6/1K6 w - - 0 1");
        let b = pos("1k6/1pp5/8/4P3/8/6N1/6PP/6K1 w - - 0 1");
        for perspective in [Color::White, Color::Black] {
            let mut ia: Vec<usize> = active(&a, perspective, true).collect();
            let mut ib: Vec<usize> = active(&b, perspective, true).collect();
            ia.sort_unstable();
            ib.sort_unstable();
            assert_eq!(ia, ib, "{perspective:?}");
        }
        // Where a king stands on e-h, its side's inputs change.
        for (p, perspective) in [(&b, Color::White), (&a, Color::Black)] {
            let mut mirrored: Vec<usize> = active(p, perspective, true).collect();
            let mut plain: Vec<usize> = active(p, perspective, false).collect();
            mirrored.sort_unstable();
            plain.sort_unstable();
            assert_ne!(mirrored, plain, "{perspective:?}");
        }
    }

    #[test]
    fn output_buckets_split_the_pieces_evenly() {
        assert!((2..=32).all(|n| output_bucket(n, 1) == 0));
        let eight: Vec<usize> = (2..=32).map(|n| output_bucket(n, 8)).collect();
        assert_eq!(eight[0], 0);
        assert_eq!(eight[30], 7);
        assert!(eight.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1));
        for b in 0..8 {
            let n = eight.iter().filter(|&&x| x == b).count();
            assert!((3..=5).contains(&n), "bucket {b} covers {n} piece counts");
        }
    }

    #[test]
    fn packed_records_index_as_positions_do() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1",
        ] {
            let p = pos(fen);
            let packed = Packed::new(&p, 0, 1, 20, 0);
            for king_mirrored in [false, true] {
                for (stm, perspective) in [(true, p.turn()), (false, !p.turn())] {
                    let m = mirror_in(&p, perspective, king_mirrored);
                    let mut from_record: Vec<usize> = packed
                        .pieces()
                        .map(|(pc, sq)| index_packed(pc, u8::from(sq), stm, m))
                        .collect();
                    let mut from_board: Vec<usize> =
                        active(&p, perspective, king_mirrored).collect();
                    from_record.sort_unstable();
                    from_board.sort_unstable();
                    assert_eq!(from_record, from_board, "{fen}, side to move {stm}");
                }
            }
        }
    }
}
