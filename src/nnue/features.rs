//! The network's inputs: 768 per perspective, one for each (side, kind,
//! square) seen from that perspective. The engine and the trainer both
//! index through [`index`], so a net means the same to both.

use shakmaty::{Chess, Color, Piece, Position, Role, Square};

/// The number of a kind of piece: pawn 0, knight 1, … king 5, as the
/// inputs and the packed training records both count them.
#[inline]
pub fn kind(role: Role) -> u8 {
    // shakmaty numbers the roles from 1 (pawn) to 6 (king).
    role as u8 - 1
}

/// Inputs per perspective.
pub const INPUTS: usize = 768;

/// The input of `piece` on `square` seen by `perspective`: the
/// perspective's own pieces first (0–383), then the other side's; within
/// each, by kind (pawn … king) and square, with the board mirrored
/// vertically for Black so that both perspectives see their pieces moving
/// up.
#[inline]
pub fn index(perspective: Color, piece: Piece, square: Square) -> usize {
    let own = usize::from(piece.color != perspective) * 384;
    let kind = usize::from(kind(piece.role));
    let sq = if perspective == Color::White {
        usize::from(square)
    } else {
        usize::from(square) ^ 0b11_1000
    };
    own + kind * 64 + sq
}

/// The same input from a packed training record's (colour << 3 | kind,
/// square), which is already seen by the side to move: for the side to
/// move it is the record as it stands, for the other side colours swap and
/// the board mirrors.
#[inline]
pub fn index_packed(piece: u8, square: u8, side_to_move: bool) -> usize {
    let (colour, kind) = (usize::from(piece >> 3), usize::from(piece & 7));
    if side_to_move {
        colour * 384 + kind * 64 + usize::from(square)
    } else {
        (colour ^ 1) * 384 + kind * 64 + (usize::from(square) ^ 0b11_1000)
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

/// Every active input of `pos` for `perspective`.
pub fn active(pos: &Chess, perspective: Color) -> impl Iterator<Item = usize> + '_ {
    pos.board()
        .into_iter()
        .map(move |(sq, piece)| index(perspective, piece, sq))
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
        assert_eq!(index(Color::White, white_pawn, Square::E2), 12);
        assert_eq!(index(Color::Black, black_pawn, Square::E7), 12);
        assert_eq!(index(Color::White, black_pawn, Square::E7), 384 + 52);
        let king = Piece {
            color: Color::Black,
            role: Role::King,
        };
        assert_eq!(index(Color::White, king, Square::H8), 767);
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
            for (stm, perspective) in [(true, p.turn()), (false, !p.turn())] {
                let mut from_record: Vec<usize> = packed
                    .pieces()
                    .map(|(pc, sq)| index_packed(pc, u8::from(sq), stm))
                    .collect();
                let mut from_board: Vec<usize> = active(&p, perspective).collect();
                from_record.sort_unstable();
                from_board.sort_unstable();
                assert_eq!(from_record, from_board, "{fen}, side to move {stm}");
            }
        }
    }
}
