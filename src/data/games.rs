//! Whole games in about 4 bytes a position: the layout of viriformat (the
//! game format of the Viridithas engine, MIT), which the field's tools read.
//! This is how the data store keeps self-play; the trainer expands each game
//! into the 32-byte records of [`packed`](super::packed) when it loads it.
//!
//! All integers are little-endian, squares A1 = 0 … H8 = 63. A file is games
//! one after another. A game is a 32-byte board, then one (move, score) pair
//! of 4 bytes for each position of the game, then four zero bytes.
//!
//! The board (marlinformat's `PackedBoard`):
//!
//! | bytes | field |
//! |---|---|
//! | 0–7 | occupied squares |
//! | 8–23 | one nibble a piece, in square order (low nibble first): kind pawn 0 … king 5, 6 an unmoved rook that may still castle; bit 3 set for Black |
//! | 24 | side to move (bit 7 set: Black) and the en-passant square (bits 0–6; 64 when none) |
//! | 25 | halfmove clock |
//! | 26–27 | fullmove number |
//! | 28–29 | a score (left at zero: each move carries its own) |
//! | 30 | the game's result from White's side: 0 loss, 1 draw, 2 win |
//! | 31 | unused |
//!
//! A move is 16 bits: the from square (bits 0–5), the to square (6–11;
//! castling is written king takes rook), the promotion piece (12–13: knight
//! 0 … queen 3) and the kind (14–15: 1 en passant, 2 castling, 3
//! promotion, else 0). The score is the search's, in centipawns from
//! White's side, for the position the move is played from.
//!
//! What the 32-byte records hold beyond this is derived when a game is
//! expanded: the ply from the fullmove number, "in check" from the
//! position, "tactical" from the move and "decisive" from the score, so a
//! game expands to the very records `datagen` writes for it packed.

use shakmaty::{
    Bitboard, ByColor, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Piece, Position,
    PositionError, Role, Setup, Square,
};

use super::packed::{self, Packed};
use crate::score::{MAX_PLY, TB_WIN};

/// Bytes of a game's board.
pub const BOARD: usize = 32;
/// Bytes of one (move, score) pair, and of the terminator.
pub const PAIR: usize = 4;
/// The nibble of an unmoved rook that may castle.
const CASTLING_ROOK: u8 = 6;
const NO_EP: u8 = 64;

/// A game: where it starts, the moves played with the search's score for
/// each position, and the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub start: Chess,
    /// 0 Black won, 1 draw, 2 White won.
    pub result: u8,
    /// The move played from each position, with the score (White's side).
    pub moves: Vec<(Move, i16)>,
}

fn encode_move(m: Move) -> u16 {
    let (from, to, kind, promotion) = match m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => (
            from,
            to,
            if promotion.is_some() { 3 } else { 0 },
            promotion.map_or(0, |r| u16::from(r) - 2),
        ),
        Move::EnPassant { from, to } => (from, to, 1, 0),
        Move::Castle { king, rook } => (king, rook, 2, 0),
        Move::Put { to, .. } => (to, to, 0, 0),
    };
    u16::from(from) | u16::from(to) << 6 | promotion << 12 | kind << 14
}

/// The legal move of `pos` written as `code`.
fn decode_move(pos: &Chess, code: u16) -> Option<Move> {
    pos.legal_moves()
        .into_iter()
        .find(|&m| encode_move(m) == code)
}

/// Writes a game's board: `pos` with `result` from White's side.
fn write_board(pos: &Chess, result: u8, out: &mut Vec<u8>) {
    let board = pos.board();
    let rooks = pos.castles().castling_rights();
    let mut occ = 0u64;
    let mut nibbles = [0u8; 16];
    for (i, (sq, piece)) in board.into_iter().enumerate().take(32) {
        occ |= 1 << u32::from(sq);
        let kind = if piece.role == Role::Rook && rooks.contains(sq) {
            CASTLING_ROOK
        } else {
            piece.role as u8 - 1
        };
        let nibble = kind | u8::from(piece.color == Color::Black) << 3;
        nibbles[i / 2] |= nibble << (4 * (i & 1));
    }
    out.extend_from_slice(&occ.to_le_bytes());
    out.extend_from_slice(&nibbles);
    let ep = pos.ep_square(EnPassantMode::Legal).map_or(NO_EP, u8::from);
    out.push(ep | u8::from(pos.turn() == Color::Black) << 7);
    out.push(pos.halfmoves().min(255) as u8);
    out.extend_from_slice(&(pos.fullmoves().get().min(u32::from(u16::MAX)) as u16).to_le_bytes());
    out.extend_from_slice(&0i16.to_le_bytes());
    out.push(result.min(2));
    out.push(0);
}

/// Reads a game's board: the position and the result.
fn read_board(b: &[u8; BOARD]) -> Result<(Chess, u8), String> {
    let occ = u64::from_le_bytes(b[0..8].try_into().expect("8 bytes"));
    if occ.count_ones() > 32 {
        return Err(format!("{} pieces on the board", occ.count_ones()));
    }
    let mut setup = Setup::empty();
    let mut rooks = Bitboard::EMPTY;
    for (i, sq) in Bitboard(occ).into_iter().enumerate() {
        let nibble = (b[8 + i / 2] >> (4 * (i & 1))) & 0xf;
        let color = Color::from_white(nibble & 8 == 0);
        let role = match nibble & 7 {
            CASTLING_ROOK => {
                rooks.add(sq);
                Role::Rook
            }
            7 => return Err(format!("piece kind 7 on {sq}")),
            k => Role::try_from(k + 1).expect("kinds 0 to 5"),
        };
        setup.board.set_piece_at(sq, Piece { color, role });
    }
    setup.turn = Color::from_white(b[24] & 0x80 == 0);
    let ep = b[24] & 0x7f;
    setup.ep_square = match ep {
        NO_EP => None,
        0..64 => Some(Square::new(u32::from(ep))),
        _ => return Err(format!("en-passant field {ep}")),
    };
    setup.castling_rights = rooks;
    setup.halfmoves = u32::from(b[25]);
    setup.fullmoves = std::num::NonZeroU32::new(u32::from(u16::from_le_bytes([b[26], b[27]])))
        .unwrap_or(std::num::NonZeroU32::MIN);
    setup.promoted = Bitboard::EMPTY;
    setup.pockets = None;
    setup.remaining_checks = None::<ByColor<_>>;
    let result = b[30];
    if result > 2 {
        return Err(format!("result {result}"));
    }
    let legal = |mode| {
        Chess::from_setup(setup.clone(), mode)
            .map_err(|e: PositionError<Chess>| format!("not a legal position: {e}"))
    };
    let pos = legal(CastlingMode::Standard).or_else(|_| legal(CastlingMode::Chess960))?;
    Ok((pos, result))
}

impl Game {
    /// Appends the game's bytes to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        write_board(&self.start, self.result, out);
        for (m, score) in &self.moves {
            out.extend_from_slice(&encode_move(*m).to_le_bytes());
            out.extend_from_slice(&score.to_le_bytes());
        }
        out.extend_from_slice(&[0; PAIR]);
    }

    /// The game's positions as 32-byte records, with the flags the trainer
    /// filters on.
    pub fn records(&self) -> Vec<Packed> {
        let mut pos = self.start.clone();
        let mut out = Vec::with_capacity(self.moves.len());
        for (m, score) in &self.moves {
            let mut flags = 0;
            if pos.is_check() {
                flags |= packed::FLAG_IN_CHECK;
            }
            if m.is_capture() || m.is_promotion() {
                flags |= packed::FLAG_TACTICAL;
            }
            if i32::from(*score).abs() >= TB_WIN - MAX_PLY as i32 {
                flags |= packed::FLAG_DECISIVE;
            }
            let ply = u32::from(pos.fullmoves()) * 2 - 2 + u32::from(pos.turn() == Color::Black);
            out.push(Packed::new(
                &pos,
                *score,
                self.result,
                u16::try_from(ply).unwrap_or(u16::MAX),
                flags,
            ));
            pos.play_unchecked(*m);
        }
        out
    }
}

/// Reads the game that starts at `bytes[at..]`: the game and the offset
/// after it. `Ok(None)` when the bytes end inside the game (a writer
/// stopped mid-game).
///
/// # Errors
/// A board or move that is not valid, naming its offset.
pub fn read_game(bytes: &[u8], at: usize) -> Result<Option<(Game, usize)>, String> {
    let Some(board) = bytes.get(at..at + BOARD) else {
        return Ok(None);
    };
    let (start, result) = read_board(board.try_into().expect("32 bytes"))
        .map_err(|e| format!("offset {at}: not a game's board: {e}"))?;
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let mut next = at + BOARD;
    loop {
        let Some(pair) = bytes.get(next..next + PAIR) else {
            return Ok(None);
        };
        let code = u16::from_le_bytes([pair[0], pair[1]]);
        let score = i16::from_le_bytes([pair[2], pair[3]]);
        next += PAIR;
        if code == 0 && score == 0 {
            return Ok(Some((
                Game {
                    start,
                    result,
                    moves,
                },
                next,
            )));
        }
        let m = decode_move(&pos, code).ok_or_else(|| {
            format!(
                "offset {}: move {code:#06x} is not legal in the game's position",
                next - PAIR
            )
        })?;
        pos.play_unchecked(m);
        moves.push((m, score));
    }
}

/// Every whole game of `bytes`, and the bytes they take (a game cut short
/// at the end, by a writer stopped mid-game, is left out).
///
/// # Errors
/// A board or move that is not valid, naming its offset.
pub fn read_all(bytes: &[u8]) -> Result<(Vec<Game>, usize), String> {
    let mut games = Vec::new();
    let mut at = 0;
    while let Some((game, next)) = read_game(bytes, at)? {
        games.push(game);
        at = next;
    }
    Ok((games, at))
}

/// Builds games from 32-byte records in game order (as `datagen` writes
/// them): a record starts a new game unless the one before it leads to it
/// by a legal move one ply earlier. A record does not say which move was
/// played from it, so the last position of each game, whose move no later
/// record shows, is left out. The boards do not hold castling rights or the
/// en-passant square: a king and rook on their starting squares are taken
/// to keep their rights, and an en-passant square follows a double step.
pub fn from_records(records: &[Packed]) -> Vec<Game> {
    let mut games = Vec::new();
    let mut current: Option<(Game, Chess)> = None;
    for (i, r) in records.iter().enumerate() {
        let result = (r.white_result() * 2.0) as u8;
        // The move from the game so far (at the record before) to this one.
        let step = current.as_ref().and_then(|(game, at)| {
            if records[i - 1].ply + 1 != r.ply || game.result != result {
                return None;
            }
            at.legal_moves().into_iter().find(|&m| {
                let mut after = at.clone();
                after.play_unchecked(m);
                Packed::new(&after, 0, 0, 0, 0).same_board(r)
            })
        });
        if let (Some(m), Some((game, at))) = (step, current.as_mut()) {
            // The move was played from the record before, with its score.
            game.moves.push((m, records[i - 1].white_score()));
            at.play_unchecked(m);
            continue;
        }
        if let Some((game, _)) = current.take()
            && !game.moves.is_empty()
        {
            games.push(game);
        }
        current = r.position().map(|pos| {
            (
                Game {
                    start: pos.clone(),
                    result,
                    moves: Vec::new(),
                },
                pos,
            )
        });
    }
    if let Some((game, _)) = current
        && !game.moves.is_empty()
    {
        games.push(game);
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::test_position as pos;

    fn moves(start: &Chess, ucis: &[&str]) -> Vec<(Move, i16)> {
        let mut p = start.clone();
        ucis.iter()
            .enumerate()
            .map(|(i, u)| {
                let m = u
                    .parse::<shakmaty::uci::UciMove>()
                    .unwrap()
                    .to_move(&p)
                    .unwrap();
                p.play_unchecked(m);
                (m, i as i16 * 10 - 30)
            })
            .collect()
    }

    /// The example game of the format's description, byte for byte (its
    /// hex dump writes each byte of pieces in entry order, low nibble
    /// first: "6124…" for the bytes 0x16 0x42 …).
    #[test]
    fn the_start_position_and_a_mate_are_written_as_the_format_says() {
        let start = Chess::default();
        let mut game = Game {
            moves: moves(&start, &["e2e4", "e7e5", "d1h5", "e8e7", "h5e5"]),
            start,
            result: 2,
        };
        let scores = [10, 20, -30, 32767, 32767];
        for (pair, s) in game.moves.iter_mut().zip(scores) {
            pair.1 = s;
        }
        let mut bytes = Vec::new();
        game.write(&mut bytes);
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex.concat(),
            concat!(
                "ffff00000000ffff",
                "1642256100000000",
                "888888889ecaade9",
                "40000100000002 00"
            )
            .replace(' ', "")
                + "0c070a00"
                + "34091400"
                + "c309e2ff"
                + "3c0dff7f"
                + "2709ff7f"
                + "00000000"
        );
        assert_eq!(read_all(&bytes).unwrap(), (vec![game], bytes.len()));
    }

    #[test]
    fn castling_en_passant_and_promotion_round_trip() {
        let start = pos("r3k2r/1P4p1/8/3Pp3/8/8/8/R3K2R w KQkq e6 0 30");
        let game = Game {
            moves: moves(&start, &["d5e6", "e8g8", "e1c1", "g7g5", "b7b8q"]),
            start,
            result: 1,
        };
        let mut bytes = Vec::new();
        game.write(&mut bytes);
        assert_eq!(bytes.len(), BOARD + 6 * PAIR);
        let (games, used) = read_all(&bytes).unwrap();
        assert_eq!((games, used), (vec![game.clone()], bytes.len()));
        let records = game.records();
        assert_eq!(records.len(), 5);
        assert_eq!(records[0].ply, 58);
        assert!(
            records[0].flags & packed::FLAG_TACTICAL != 0,
            "e.p. captures"
        );
        assert!(records[1].flags & packed::FLAG_TACTICAL == 0, "castling");
        assert!(records[4].flags & packed::FLAG_TACTICAL != 0, "promotion");
    }

    #[test]
    fn a_game_cut_short_is_left_out_and_a_bad_one_named_by_offset() {
        let start = Chess::default();
        let game = Game {
            moves: moves(&start, &["e2e4", "e7e5"]),
            start,
            result: 1,
        };
        let mut bytes = Vec::new();
        game.write(&mut bytes);
        let whole = bytes.len();
        game.write(&mut bytes);
        bytes.truncate(bytes.len() - 3);
        let (games, used) = read_all(&bytes).unwrap();
        assert_eq!((games.len(), used), (1, whole));
        // An illegal move in the second game.
        let mut bad = bytes[..whole].to_vec();
        game.write(&mut bad);
        bad[whole + BOARD] = 0x3f;
        let e = read_all(&bad).unwrap_err();
        assert!(e.contains(&format!("offset {}", whole + BOARD)), "{e}");
        // Too many pieces.
        let mut bad = bytes[..whole].to_vec();
        bad[0..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(read_all(&bad).unwrap_err().contains("offset 0"));
    }

    #[test]
    fn records_in_game_order_become_games_less_their_last_position() {
        let start = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 5");
        let first = Game {
            moves: moves(&start, &["e2e4", "d7d5", "e4d5", "d8d5", "b1c3"]),
            start: start.clone(),
            result: 0,
        };
        let second = Game {
            moves: moves(&start, &["g1f3", "g8f6", "b1c3"]),
            start,
            result: 1,
        };
        let mut records = first.records();
        records.extend(second.records());
        let games = from_records(&records);
        assert_eq!(games.len(), 2);
        for (rebuilt, original) in games.iter().zip([&first, &second]) {
            let n = original.moves.len() - 1;
            assert_eq!(rebuilt.moves[..], original.moves[..n]);
            assert_eq!(rebuilt.records()[..], original.records()[..n]);
        }
    }
}
