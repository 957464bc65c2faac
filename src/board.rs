//! The position the engine searches: shakmaty's `Chess` plus a Zobrist key
//! kept up to date move by move, and the other keys the search and the
//! evaluation index their tables by (pawns, each side's other pieces). At
//! the bottom of the crate, it imports no other module of it: what a move
//! changes reaches the evaluations through [`changes`].
//!
//! shakmaty's own incremental update gives up on castling, king moves,
//! double pushes and en passant, so the update here handles every move kind
//! with shakmaty's published key tables. The key hashes the en passant file
//! only when an en passant capture is really legal (`EnPassantMode::Legal`),
//! so positions that repeat by FIDE rules have equal keys.

use shakmaty::fen::Fen;
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, Move, Piece, Position,
    PositionError, Role, Square, attacks,
};

/// The squares `color`'s `pawns` attack.
pub fn pawn_attacks(color: Color, pawns: Bitboard) -> Bitboard {
    const FILE_A: u64 = 0x0101_0101_0101_0101;
    let p = pawns.0;
    let not_a = !FILE_A;
    let not_h = !(FILE_A << 7);
    Bitboard(match color {
        Color::White => ((p & not_a) << 7) | ((p & not_h) << 9),
        Color::Black => ((p & not_a) >> 9) | ((p & not_h) >> 7),
    })
}

/// Plies without a capture or pawn move after which the fifty-move rule
/// draws.
pub const FIFTY_MOVE_PLIES: u32 = 100;

/// A standard-chess position from a FEN the tests know to be valid.
#[cfg(test)]
pub fn test_position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .expect("a valid FEN")
        .into_position(CastlingMode::Standard)
        .expect("a legal position")
}

/// A position with its Zobrist key.
#[derive(Clone, Debug)]
pub struct Board {
    pos: Chess,
    key: u64,
    /// The en passant square when a capture there is legal (as hashed).
    ep: Option<Square>,
}

impl Board {
    /// Wraps a position, computing its key from scratch.
    pub fn new(pos: Chess) -> Board {
        let key = full_key(&pos);
        let ep = pos.ep_square(EnPassantMode::Legal);
        Board { pos, key, ep }
    }

    /// Reads a FEN (missing trailing fields take their defaults). Flaws that
    /// do not stop move generation (impossible castling rights or en passant
    /// squares, checks no legal game reaches, extra material) are mended or
    /// accepted, each with a warning.
    ///
    /// # Errors
    /// A message for the user when the text is no FEN or no playable position.
    pub fn from_fen(text: &str, mode: CastlingMode) -> Result<(Board, Vec<String>), String> {
        let fen: Fen = text
            .trim()
            .parse()
            .map_err(|e| format!("invalid FEN '{text}': {e}"))?;
        match fen.into_position::<Chess>(mode) {
            Ok(pos) => Ok((Board::new(pos), Vec::new())),
            Err(e) => {
                let warning = format!("FEN '{text}': {e}; accepted");
                e.ignore_invalid_castling_rights()
                    .or_else(PositionError::ignore_invalid_ep_square)
                    .or_else(PositionError::ignore_impossible_check)
                    .or_else(PositionError::ignore_too_much_material)
                    .map(|pos| (Board::new(pos), vec![warning]))
                    .map_err(|e| format!("invalid position '{text}': {e}"))
            }
        }
    }

    /// The standard starting position.
    pub fn startpos() -> Board {
        Board::new(Chess::default())
    }

    /// The underlying position.
    #[inline]
    pub fn pos(&self) -> &Chess {
        &self.pos
    }

    /// The Zobrist key (en passant counted only when legal).
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// A hash of where the pawns of both sides stand (the pawn cache,
    /// pawn history and correction history index by it). The two pawn sets
    /// are mixed by odd multipliers, so each bit of either reaches the high
    /// bits, which callers take as their index.
    #[inline]
    pub fn pawn_key(&self) -> u64 {
        let b = self.pos.board();
        let pawns = b.by_role(Role::Pawn);
        let (white, black) = ((pawns & b.white()).0, (pawns & b.black()).0);
        let mixed = white.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ black.wrapping_mul(0xD6E8_FEB8_6659_FD93).rotate_left(29);
        (mixed ^ (mixed >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
    }

    /// A hash of where `color`'s pieces other than pawns stand, by role:
    /// each role's squares are mixed by an odd multiplier of its own, so a
    /// knight and a bishop on the same square hash apart.
    #[inline]
    pub fn non_pawn_key(&self, color: Color) -> u64 {
        const MIX: [u64; 5] = [
            0x9E37_79B9_7F4A_7C15,
            0xD6E8_FEB8_6659_FD93,
            0xBF58_476D_1CE4_E5B9,
            0x94D0_49BB_1331_11EB,
            0xFF51_AFD7_ED55_8CCD,
        ];
        let b = self.pos.board();
        let ours = b.by_color(color);
        // Every role but the pawn.
        let mixed = Role::ALL[1..].iter().zip(MIX).fold(0u64, |h, (&role, m)| {
            (h.rotate_left(23) ^ (ours & b.by_role(role)).0).wrapping_mul(m)
        });
        // A multiplication only carries bits upwards: fold the high ones down
        // and multiply again, so that every square reaches the bits callers take.
        (mixed ^ (mixed >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (mixed >> 17)
    }

    /// Side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.pos.checkers().any()
    }

    /// Halfmove clock for the fifty-move rule.
    #[inline]
    pub fn halfmoves(&self) -> u32 {
        self.pos.halfmoves()
    }

    /// The position after the legal move `m`, with its key updated
    /// incrementally.
    #[inline]
    pub fn play(&self, m: Move) -> Board {
        self.play_with_likely_key(m, self.likely_key_after(m))
    }

    /// `play`, given `likely`, the key of [`Board::likely_key_after`] for
    /// `m`, which the search has already computed to prefetch with.
    #[inline]
    pub fn play_with_likely_key(&self, m: Move, likely: u64) -> Board {
        // Built in place: the position is copied once, not moved again.
        let mut child = Board {
            pos: self.pos.clone(),
            key: 0,
            ep: None,
        };
        child.pos.play_unchecked(m);
        // Only a double pawn push can make an en passant capture possible.
        if let Move::Normal {
            role: Role::Pawn,
            from,
            to,
            ..
        } = m
            && from.distance(to) == 2
        {
            child.ep = child.pos.ep_square(EnPassantMode::Legal);
        }
        child.key = self.next_key(&child.pos, m, likely, child.ep);
        child
    }

    /// The key the position after `m` most likely has, computed without
    /// playing the move: exact for a plain move (not castling, not en
    /// passant) that changes no castling right and opens no en passant
    /// capture, which is nearly every move. Good enough to warm the cache
    /// with, and the part of the exact key that `play` completes.
    #[inline]
    pub fn likely_key_after(&self, m: Move) -> u64 {
        let us = self.pos.turn();
        let mut key = self.key ^ turn_key();
        if let Some(sq) = self.ep {
            key ^= ep_key(sq);
        }
        if let Move::Normal { .. } = m {
            changes(us, m, |piece, sq, _| key ^= piece_key(sq, piece));
        }
        key
    }

    /// Whether the legal move `m` gives check, found without playing it:
    /// the moved piece attacks the king from its new square, or leaving
    /// its old square opens a line from one of our sliders to the king.
    /// Castling and en passant, rare and with more pieces to move, are
    /// played out instead.
    #[inline]
    pub fn gives_check(&self, m: Move) -> bool {
        let Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } = m
        else {
            let mut after = self.pos.clone();
            after.play_unchecked(m);
            return after.is_check();
        };
        let us = self.pos.turn();
        let b = self.pos.board();
        let Some(king) = b.king_of(!us) else {
            return false;
        };
        let occupied = (b.occupied() ^ from) | to;
        let piece = promotion.unwrap_or(role);
        let direct = match piece {
            Role::Pawn => attacks::pawn_attacks(us, to),
            Role::Knight => attacks::knight_attacks(to),
            Role::Bishop => attacks::bishop_attacks(to, occupied),
            Role::Rook => attacks::rook_attacks(to, occupied),
            Role::Queen => attacks::queen_attacks(to, occupied),
            Role::King => Bitboard::EMPTY,
        };
        if direct.contains(king) {
            return true;
        }
        // Discovered: another piece of ours sees the king through the
        // square just left (only a slider can: the side to move never
        // starts with the enemy king already in check).
        (b.attacks_to(king, us, occupied) & !Bitboard::from(from)).any()
    }

    /// The position with the side to move passing, or `None` in check.
    pub fn null_move(&self) -> Option<Board> {
        if self.in_check() {
            return None;
        }
        let next = self.pos.clone().swap_turn().ok()?;
        let mut key = self.key ^ turn_key();
        if let Some(sq) = self.ep {
            key ^= ep_key(sq);
        }
        Some(Board {
            pos: next,
            key,
            ep: None,
        })
    }

    #[inline]
    fn next_key(&self, next: &Chess, m: Move, likely: u64, next_ep: Option<Square>) -> u64 {
        let us = self.pos.turn();
        // The likely key has the side to move, the old en passant square
        // and a plain move's pieces; the other move kinds and the rights
        // are added here.
        let mut key = likely;
        if !matches!(m, Move::Normal { .. }) {
            changes(us, m, |piece, sq, _| key ^= piece_key(sq, piece));
        }
        let (before, after) = (self.pos.castles(), next.castles());
        if before.castling_rights() != after.castling_rights() {
            for color in Color::ALL {
                for side in CastlingSide::ALL {
                    if before.has(color, side) != after.has(color, side) {
                        key ^= Zobrist64::zobrist_for_castling_right(color, side).0;
                    }
                }
            }
        }
        if let Some(sq) = next_ep {
            key ^= ep_key(sq);
        }
        key
    }
}

/// What the legal move `m` of `us` changes on the board: `f(piece,
/// square, put)` for each piece taken off a square (`put` false) and each
/// put on one (`put` true). The key and the piece-square sum both follow
/// a move through these.
#[inline]
pub fn changes(us: Color, m: Move, mut f: impl FnMut(Piece, Square, bool)) {
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            if let Some(captured) = capture {
                f(captured.of(!us), to, false);
            }
            f(role.of(us), from, false);
            f(promotion.unwrap_or(role).of(us), to, true);
        }
        Move::EnPassant { from, to } => {
            f(Role::Pawn.of(us), from, false);
            f(Role::Pawn.of(us), to, true);
            f(
                Role::Pawn.of(!us),
                Square::from_coords(to.file(), from.rank()),
                false,
            );
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(rook > king);
            f(Role::King.of(us), king, false);
            f(Role::Rook.of(us), rook, false);
            f(Role::King.of(us), side.king_to(us), true);
            f(Role::Rook.of(us), side.rook_to(us), true);
        }
        Move::Put { .. } => unreachable!("drops do not exist in standard chess"),
    }
}

/// A move in UCI notation: `e1g1` for castling in standard chess, king
/// takes rook (`e1h1`) in Chess960.
pub fn uci_move(m: Move, mode: CastlingMode) -> String {
    m.to_uci(mode).to_string()
}

/// The key of a position computed from scratch.
pub fn full_key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

#[inline]
pub(crate) fn piece_key(sq: Square, piece: Piece) -> u64 {
    Zobrist64::zobrist_for_piece(sq, piece).0
}

#[inline]
pub(crate) fn turn_key() -> u64 {
    Zobrist64::zobrist_for_white_turn().0
}

#[inline]
fn ep_key(sq: Square) -> u64 {
    Zobrist64::zobrist_for_en_passant_file(sq.file()).0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator so the random games repeat exactly.
    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    fn check_random_games(fen: &str, seed: u64) {
        check_random_games_in(fen, CastlingMode::Standard, seed);
    }

    fn check_random_games_in(fen: &str, mode: CastlingMode, seed: u64) {
        let start = Board::from_fen(fen, mode).unwrap().0;
        let mut rng = seed;
        for _ in 0..200 {
            let mut board = start.clone();
            for _ in 0..150 {
                let moves = board.pos().legal_moves();
                if moves.is_empty() {
                    break;
                }
                for &m in &moves {
                    assert_eq!(
                        board.gives_check(m),
                        board.play(m).in_check(),
                        "gives_check({m:?}) in {:?}",
                        board.pos().board()
                    );
                }
                let m = moves[(xorshift(&mut rng) % moves.len() as u64) as usize];
                let likely = board.likely_key_after(m);
                let parent = board;
                board = parent.play(m);
                assert_eq!(board.key(), full_key(board.pos()), "after {m:?}");
                // The guess is exact for a plain move that changes no
                // castling right and opens no en passant capture.
                if matches!(m, Move::Normal { .. })
                    && board.ep.is_none()
                    && parent.pos.castles().castling_rights()
                        == board.pos.castles().castling_rights()
                {
                    assert_eq!(likely, board.key(), "likely key after {m:?}");
                }
                if xorshift(&mut rng).is_multiple_of(10)
                    && let Some(nulled) = board.null_move()
                {
                    assert_eq!(nulled.key(), full_key(nulled.pos()));
                }
            }
        }
    }

    #[test]
    fn incremental_key_matches_full_key_in_random_games() {
        check_random_games(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            0x9e37_79b9_7f4a_7c15,
        );
    }

    #[test]
    fn incremental_key_matches_with_castling_and_en_passant() {
        // Kiwipete: every castling right, pins, en passant chances.
        check_random_games(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            12345,
        );
        // Pawns next to each other on the fifth ranks, so en passant is common.
        check_random_games("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1", 777);
        // Chess960, where king and rook may land on each other's squares.
        check_random_games_in(
            "rkrbbnnq/pppppppp/8/8/8/8/PPPPPPPP/RKRBBNNQ w KQkq - 0 1",
            CastlingMode::Chess960,
            4242,
        );
    }

    #[test]
    fn en_passant_counts_only_when_legal() {
        // After e2e4 there is no black pawn to capture en passant: same key
        // as the position reached by another move order.
        let a = Board::startpos()
            .play(parse(&Board::startpos(), "e2e4"))
            .key();
        let b = Board::from_fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            CastlingMode::Standard,
        )
        .unwrap()
        .0
        .key();
        assert_eq!(a, b);
    }

    fn parse(board: &Board, uci: &str) -> Move {
        uci.parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(board.pos())
            .unwrap()
    }
}

#[cfg(test)]
mod fen_tests {
    use super::*;

    fn from_fen(text: &str) -> Result<(Board, Vec<String>), String> {
        Board::from_fen(text, CastlingMode::Standard)
    }

    #[test]
    fn short_and_flawed_fens() {
        let (b, w) = from_fen("8/8/8/8/8/8/k7/2K5 w").unwrap();
        assert!(w.is_empty());
        assert_eq!(b.halfmoves(), 0);
        // Castling rights without the rook: mended, with a warning.
        let (_, w) = from_fen("4k3/8/8/8/8/8/8/4K3 w KQ - 0 1").unwrap();
        assert_eq!(w.len(), 1);
        // Both kings in check, no king, garbage: refused.
        assert!(from_fen("4k3/8/8/8/8/8/8/8 w - - 0 1").is_err());
        assert!(from_fen("4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1").is_err());
        assert!(from_fen("not a fen").is_err());
        // Shredder-FEN and X-FEN castling in Chess960.
        let (b, w) = Board::from_fen(
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            CastlingMode::Chess960,
        )
        .unwrap();
        assert!(w.is_empty());
        assert_eq!(b.pos().castles().castling_rights().count(), 4);
        let (b, _) = Board::from_fen(
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
            CastlingMode::Chess960,
        )
        .unwrap();
        assert_eq!(b.pos().castles().castling_rights().count(), 4);
    }

    #[test]
    fn pawn_attacks_match_square_by_square_attacks() {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..1000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let pawns = Bitboard(state & state.rotate_left(17));
            for color in Color::ALL {
                let expected = pawns.into_iter().fold(Bitboard::EMPTY, |acc, sq| {
                    acc | shakmaty::attacks::pawn_attacks(color, sq)
                });
                assert_eq!(pawn_attacks(color, pawns), expected);
            }
        }
    }

    /// A benchmark, not a test: `cargo test --release pawn_key_speed --
    /// --ignored --nocapture`. The search hashes the pawns up to three
    /// times per node (pawn cache, correction history, pawn history);
    /// this measures what one hash costs, to set against a node's time.
    #[test]
    #[ignore = "benchmark"]
    fn pawn_key_speed() {
        let boards: Vec<Board> = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "6k1/5pp1/1p2p2p/p2pP3/P2P1P2/1P4P1/6K1/8 w - - 0 40",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ]
        .iter()
        .map(|f| Board::new(test_position(f)))
        .collect();
        let calls = 100_000_000_u32;
        let start = std::time::Instant::now();
        let mut acc = 0u64;
        let mut i = 0;
        for _ in 0..calls {
            acc = acc.wrapping_add(std::hint::black_box(&boards[i]).pawn_key());
            i = (i + 1) & 3;
        }
        let ns = start.elapsed().as_secs_f64() * 1e9 / f64::from(calls);
        println!("pawn_key: {ns:.2} ns per call (checksum {acc:x})");
    }
}
