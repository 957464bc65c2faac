//! One training position in 32 bytes, laid out as the `ChessBoard` of the
//! `bulletformat` crate (MIT), which the field's trainers read, so others
//! can train on Brudno's data with their tools, and Brudno's trainer on
//! theirs.
//!
//! All integers are little-endian. The board is seen from the side to move:
//! when Black is to move, every square is mirrored vertically (`sq ^ 56`)
//! and the colours are swapped, so "ours" always moves up the board.
//!
//! | bytes | field | meaning |
//! |---|---|---|
//! | 0–7 | `occ` | occupied squares (A1 = bit 0, H8 = bit 63), side to move's view |
//! | 8–23 | `pcs` | one nibble a piece, in the order of the set bits of `occ` (low nibble first): colour << 3 \| kind, colour 0 = side to move, kinds pawn 0 … king 5 |
//! | 24–25 | `score` | search score, centipawns, side to move's view (i16) |
//! | 26 | `result` | game result, side to move's view: 0 loss, 1 draw, 2 win |
//! | 27 | `ksq` | our king's square |
//! | 28 | `opp_ksq` | the opponent's king's square, mirrored once more (`sq ^ 56`) |
//! | 29 | `flags` | Brudno's own (ignored by other readers): see the `FLAG_` constants |
//! | 30–31 | `ply` | plies played in the game before this position (u16) |
//!
//! Brudno's flags and ply let the trainer choose its positions when it
//! reads them (not in check, a quiet best move, no mate score, past the
//! opening) instead of the generator throwing the rest away.

use std::num::NonZeroU32;

use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, FromSetup, Piece, Position, Role, Setup, Square,
};

use crate::nnue::features::kind;

/// The side to move is in check.
pub const FLAG_IN_CHECK: u8 = 1;
/// The search's move captures or promotes.
pub const FLAG_TACTICAL: u8 = 2;
/// The score is a mate or tablebase score.
pub const FLAG_DECISIVE: u8 = 4;
/// Black is to move (the board is stored mirrored).
pub const FLAG_BLACK: u8 = 8;

/// The first ply a trainer uses: the random opening plies teach nothing.
pub const MIN_TRAINING_PLY: u16 = 16;

/// XOR with a square mirrors it vertically (a1 ↔ a8).
const MIRROR: u8 = 0b11_1000;

/// Bytes per position.
pub const SIZE: usize = 32;

/// A position packed for training.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Packed {
    pub occ: u64,
    pub pcs: [u8; 16],
    pub score: i16,
    pub result: u8,
    pub ksq: u8,
    pub opp_ksq: u8,
    pub flags: u8,
    pub ply: u16,
}

impl Packed {
    /// Packs `pos` with a score and a result from White's side (`result`:
    /// 0 Black won, 1 draw, 2 White won).
    pub fn new(pos: &Chess, white_score: i16, white_result: u8, ply: u16, flags: u8) -> Packed {
        let black = pos.turn() == Color::Black;
        let mut pieces: Vec<(u8, u8)> = pos
            .board()
            .into_iter()
            .map(|(sq, piece)| {
                let ours = piece.color == pos.turn();
                let square = if black {
                    u8::from(sq) ^ MIRROR
                } else {
                    u8::from(sq)
                };
                (square, u8::from(!ours) << 3 | kind(piece.role))
            })
            .collect();
        pieces.sort_unstable();
        let mut p = Packed {
            ply,
            flags: flags | if black { FLAG_BLACK } else { 0 },
            ..Packed::default()
        };
        for (i, &(square, piece)) in pieces.iter().take(32).enumerate() {
            p.occ |= 1 << square;
            p.pcs[i / 2] |= piece << (4 * (i & 1));
            match piece {
                5 => p.ksq = square,
                13 => p.opp_ksq = square ^ MIRROR,
                _ => {}
            }
        }
        (p.score, p.result) = if black {
            (white_score.saturating_neg(), 2 - white_result.min(2))
        } else {
            (white_score, white_result.min(2))
        };
        p
    }

    /// The pieces as (colour << 3 | kind, square), side to move's view,
    /// by square.
    pub fn pieces(&self) -> impl Iterator<Item = (u8, Square)> + '_ {
        let mut occ = self.occ;
        (0..).map_while(move |i: usize| {
            if occ == 0 {
                return None;
            }
            let square = occ.trailing_zeros();
            occ &= occ - 1;
            let piece = (self.pcs[i / 2] >> (4 * (i & 1))) & 0xf;
            Some((piece, Square::new(square)))
        })
    }

    /// The score from White's side.
    pub fn white_score(&self) -> i16 {
        if self.flags & FLAG_BLACK == 0 {
            self.score
        } else {
            self.score.saturating_neg()
        }
    }

    /// The result from White's side: 0, 0.5 or 1.
    pub fn white_result(&self) -> f32 {
        let r = if self.flags & FLAG_BLACK == 0 {
            self.result
        } else {
            2 - self.result.min(2)
        };
        f32::from(r) / 2.0
    }

    /// Whether a trainer should learn from this position: past the
    /// opening, not in check, a quiet best move and no mate score.
    pub fn trainable(&self) -> bool {
        self.ply >= MIN_TRAINING_PLY
            && self.flags & (FLAG_IN_CHECK | FLAG_TACTICAL | FLAG_DECISIVE) == 0
    }

    /// Whether `other` shows the same board and side to move.
    pub fn same_board(&self, other: &Packed) -> bool {
        (self.occ, self.pcs, self.flags & FLAG_BLACK)
            == (other.occ, other.pcs, other.flags & FLAG_BLACK)
    }

    /// The position again, as far as a record shows it: no en-passant
    /// square and a halfmove clock of 0; a king and rook on their starting
    /// squares are taken to keep their castling rights. `None` if the
    /// board is not a legal position.
    pub fn position(&self) -> Option<Chess> {
        let black = self.flags & FLAG_BLACK != 0;
        let mut setup = Setup::empty();
        for (piece, sq) in self.pieces() {
            let ours = piece & 8 == 0;
            let color = Color::from_white(ours != black);
            let role = Role::try_from((piece & 7) + 1).ok()?;
            let sq = if black { sq.flip_vertical() } else { sq };
            setup.board.set_piece_at(sq, Piece { color, role });
        }
        setup.turn = Color::from_white(!black);
        setup.fullmoves = NonZeroU32::new(u32::from(self.ply) / 2 + 1)?;
        let mut rights = Bitboard::EMPTY;
        for (color, king, rooks) in [
            (Color::White, Square::E1, [Square::A1, Square::H1]),
            (Color::Black, Square::E8, [Square::A8, Square::H8]),
        ] {
            let has = |sq, role| setup.board.piece_at(sq) == Some(Piece { color, role });
            if has(king, Role::King) {
                for rook in rooks.into_iter().filter(|&r| has(r, Role::Rook)) {
                    rights.add(rook);
                }
            }
        }
        setup.castling_rights = rights;
        Chess::from_setup(setup, CastlingMode::Standard).ok()
    }

    /// What is wrong with a record read from a file: more than 32 pieces,
    /// a piece kind beyond the king, not one king a side, or a result
    /// beyond 2. Such a record is foreign or damaged data.
    pub fn check(&self) -> Result<(), String> {
        let n = self.occ.count_ones();
        if n > 32 {
            return Err(format!("{n} pieces"));
        }
        let mut kings = [0; 2];
        for (piece, sq) in self.pieces() {
            match piece & 7 {
                5 => kings[usize::from(piece >> 3)] += 1,
                6 | 7 => return Err(format!("piece kind {} on {sq}", piece & 7)),
                _ => {}
            }
        }
        if kings != [1, 1] {
            return Err(format!("{} and {} kings", kings[0], kings[1]));
        }
        if self.result > 2 {
            return Err(format!("result {}", self.result));
        }
        Ok(())
    }

    pub fn to_bytes(self) -> [u8; SIZE] {
        let mut b = [0; SIZE];
        b[0..8].copy_from_slice(&self.occ.to_le_bytes());
        b[8..24].copy_from_slice(&self.pcs);
        b[24..26].copy_from_slice(&self.score.to_le_bytes());
        b[26] = self.result;
        b[27] = self.ksq;
        b[28] = self.opp_ksq;
        b[29] = self.flags;
        b[30..32].copy_from_slice(&self.ply.to_le_bytes());
        b
    }

    pub fn from_bytes(b: &[u8; SIZE]) -> Packed {
        let mut pcs = [0; 16];
        pcs.copy_from_slice(&b[8..24]);
        Packed {
            occ: u64::from_le_bytes(b[0..8].try_into().expect("8 bytes")),
            pcs,
            score: i16::from_le_bytes([b[24], b[25]]),
            result: b[26],
            ksq: b[27],
            opp_ksq: b[28],
            flags: b[29],
            ply: u16::from_le_bytes([b[30], b[31]]),
        }
    }
}

/// Reads every whole record of `bytes` (a trailing partial one, from a
/// generator stopped mid-write, is left out), unchecked.
pub fn read_all(bytes: &[u8]) -> Vec<Packed> {
    bytes
        .chunks_exact(SIZE)
        .map(|c| Packed::from_bytes(c.try_into().expect("a whole record")))
        .collect()
}

/// Reads every whole record of `bytes` as [`read_all`] does, checking each.
///
/// # Errors
/// The first record that is not valid ([`Packed::check`]), by its offset.
pub fn read_checked(bytes: &[u8]) -> Result<Vec<Packed>, String> {
    let records = read_all(bytes);
    for (i, r) in records.iter().enumerate() {
        r.check()
            .map_err(|e| format!("offset {}: not a training record: {e}", i * SIZE))?;
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::test_position as pos;

    #[test]
    fn the_start_position_packs_as_the_format_says() {
        let start = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let p = Packed::new(&start, 25, 1, 0, 0);
        assert_eq!(p.occ, 0xffff_0000_0000_ffff);
        // a1 rook, b1 knight: ours; first nibble low.
        assert_eq!(p.pcs[0], 3 | 1 << 4);
        // a8 rook, b8 knight: theirs.
        assert_eq!(p.pcs[12], (8 | 3) | (8 | 1) << 4);
        // Kings on e1 and e8: both e1 seen from their own side.
        assert_eq!((p.ksq, p.opp_ksq), (4, 4));
        assert_eq!((p.score, p.result), (25, 1));
        assert_eq!(p.pieces().count(), 32);
    }

    #[test]
    fn a_position_and_its_colour_mirror_pack_alike() {
        // The same position with colours swapped and the board mirrored,
        // the other side to move: the side to move's view is the same.
        let white = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1");
        let black = pos("r3k2r/pppbbppp/2n2q1P/1P2p3/3pn3/BN2PNP1/P1PPQPB1/R3K2R b - - 0 1");
        let w = Packed::new(&white, 120, 2, 40, 0);
        let b = Packed::new(&black, -120, 0, 40, 0);
        assert_eq!(
            (w.occ, w.pcs, w.ksq, w.opp_ksq),
            (b.occ, b.pcs, b.ksq, b.opp_ksq)
        );
        assert_eq!((w.score, w.result), (b.score, b.result));
        assert_eq!((w.white_score(), b.white_score()), (120, -120));
        assert!((w.white_result() - 1.0).abs() < 1e-6 && b.white_result().abs() < 1e-6);
    }

    #[test]
    fn bytes_round_trip() {
        let p = Packed::new(
            &pos("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1"),
            -3000,
            2,
            517,
            FLAG_TACTICAL | FLAG_DECISIVE,
        );
        let bytes = p.to_bytes();
        assert_eq!(Packed::from_bytes(&bytes), p);
        let mut two = bytes.to_vec();
        two.extend_from_slice(&bytes);
        two.extend_from_slice(&bytes[..7]);
        assert_eq!(read_all(&two), vec![p, p]);
        assert!(!p.trainable());
        let quiet = Packed {
            flags: FLAG_BLACK,
            ..p
        };
        assert!(quiet.trainable());
        assert!(!Packed { ply: 3, ..quiet }.trainable());
    }
}
