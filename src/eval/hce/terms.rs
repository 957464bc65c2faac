//! The evaluation terms. Each term says how often a weight applies for a
//! side (`Sink::add`); summing the weights gives the score, recording the
//! counts gives the tuner its coefficients. One code path serves both, so
//! the tuner fits exactly what the engine evaluates.

use shakmaty::attacks::{
    bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks,
};
use shakmaty::{Bitboard, Board, Chess, Color, Position, Role, Square};

use crate::board::pawn_attacks;

use super::layout::{
    BACKWARD_PAWN, BISHOP_OUTPOST, BISHOP_PAIR, CANDIDATE_PAWN, CONNECTED_PAWN, DOUBLED_PAWN,
    HANGING_PIECE, ISOLATED_PAWN, KING_ATTACK, KING_OPEN_FILE, KING_SEMI_OPEN_FILE, KNIGHT_OUTPOST,
    MATERIAL, MOBILITY_BISHOP, MOBILITY_KNIGHT, MOBILITY_QUEEN, MOBILITY_ROOK, PASSED_BLOCKED,
    PASSED_ENEMY_KING, PASSED_FREE, PASSED_OWN_KING, PASSED_PAWN, PAWN_SHIELD, PAWN_STORM, PST,
    QUEEN_ON_SEVENTH, ROOK_ON_SEVENTH, ROOK_OPEN_FILE, ROOK_SEMI_OPEN_FILE, SAFE_CHECK, TEMPO,
    THREAT_BY_PAWN, THREAT_MINOR_ON_MAJOR,
};

/// Receives the terms: weight `index` applies `count` times for `color`.
pub trait Sink {
    /// Whether the sink takes the material and piece-square terms. The
    /// search's board keeps their sum up to date move by move, so the
    /// evaluation it asks for leaves them out and adds the sum instead.
    const PIECE_SQUARES: bool = true;

    fn add(&mut self, index: usize, color: Color, count: i32);
}

const FILE_A: u64 = 0x0101_0101_0101_0101;

#[inline]
fn file_bb(file: u32) -> Bitboard {
    Bitboard(FILE_A << file)
}

#[inline]
fn adjacent_files(file: u32) -> Bitboard {
    let mut b = 0;
    if file > 0 {
        b |= FILE_A << (file - 1);
    }
    if file < 7 {
        b |= FILE_A << (file + 1);
    }
    Bitboard(b)
}

/// Squares strictly in front of `rank` (0-7, absolute) as seen by `color`.
#[inline]
fn ahead_of(color: Color, rank: u32) -> Bitboard {
    match color {
        Color::White => Bitboard(u64::MAX.checked_shl(8 * (rank + 1)).unwrap_or(0)),
        Color::Black => Bitboard((1u64 << (8 * rank)) - 1),
    }
}

/// Rank 0-7 as seen from `color`'s side.
#[inline]
fn relative_rank(color: Color, sq: Square) -> usize {
    let r = u32::from(sq.rank()) as usize;
    if color == Color::White { r } else { 7 - r }
}

/// Index into the piece-square block (tables read from White's side, a8 first).
#[inline]
pub(super) const fn pst_square(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq as usize ^ 0b11_1000, // the rank flipped
        Color::Black => sq as usize,
    }
}

/// Pawn-structure terms: they depend on the pawns alone, so the engine
/// caches them by pawn placement. Returns the passed pawns of both sides.
pub fn pawn_structure(board: &Board, sink: &mut impl Sink) -> Bitboard {
    let mut passed = Bitboard::EMPTY;
    for color in Color::ALL {
        let ours = board.by_color(color) & board.by_role(Role::Pawn);
        let theirs = board.by_color(color.other()) & board.by_role(Role::Pawn);
        let our_attacks = pawn_attacks(color, ours);
        let their_attacks = pawn_attacks(color.other(), theirs);
        for sq in ours {
            let file = u32::from(sq.file());
            let rank = u32::from(sq.rank());
            let rel = relative_rank(color, sq);
            let front = ahead_of(color, rank);
            let span = front & (file_bb(file) | adjacent_files(file));
            if (front & file_bb(file) & ours).any() {
                sink.add(DOUBLED_PAWN, color, 1);
            }
            let neighbours = ours & adjacent_files(file);
            if neighbours.is_empty() {
                sink.add(ISOLATED_PAWN, color, 1);
            }
            let supported = our_attacks.contains(sq);
            let phalanx = (neighbours & Bitboard::from_rank(sq.rank())).any();
            if supported || phalanx {
                sink.add(CONNECTED_PAWN + rel, color, 1);
            }
            let stop = sq.offset(if color == Color::White { 8 } else { -8 });
            // Backward: no pawn beside or behind can support it, and its
            // stop square is held by an enemy pawn.
            let behind = !front & !Bitboard::from_rank(sq.rank());
            if !neighbours.is_empty()
                && (neighbours & (behind | Bitboard::from_rank(sq.rank()))).is_empty()
                && stop.is_some_and(|s| their_attacks.contains(s))
            {
                sink.add(BACKWARD_PAWN, color, 1);
            }
            if (span & theirs).is_empty() && (front & file_bb(file) & ours).is_empty() {
                sink.add(PASSED_PAWN + rel, color, 1);
                passed.add(sq);
            } else if (front & file_bb(file) & theirs).is_empty() {
                // Candidate: an open file ahead and at least as many helpers
                // beside and behind as stoppers ahead.
                let stoppers = (span & theirs).count();
                let helpers = (neighbours & !front).count();
                if helpers >= stoppers {
                    sink.add(CANDIDATE_PAWN + rel, color, 1);
                }
            }
        }
    }
    passed
}

/// Everything else; `passed` comes from [`pawn_structure`].
#[allow(clippy::too_many_lines)]
pub fn pieces<S: Sink>(pos: &Chess, passed: Bitboard, sink: &mut S) {
    let board = pos.board();
    let occupied = board.occupied();
    let pawns = board.by_role(Role::Pawn);
    let mut attacked = [Bitboard::EMPTY; 2];
    let mut pawn_attacked = [Bitboard::EMPTY; 2];
    // Squares attacked by each side's pieces of each role (pawns and king excepted).
    let mut attacked_by = [[Bitboard::EMPTY; 6]; 2];
    let mut king_units = [0i32; 2];
    let mut king_attackers = [0i32; 2];

    for color in Color::ALL {
        let c = color as usize;
        let ours = board.by_color(color);
        let our_pawns = ours & pawns;
        pawn_attacked[c] = pawn_attacks(color, our_pawns);
        attacked[c] = pawn_attacked[c];
    }
    for color in Color::ALL {
        let c = color as usize;
        let them = color.other();
        let ours = board.by_color(color);
        let our_pawns = ours & pawns;
        let their_pawns = board.by_color(them) & pawns;
        let area = !ours & !pawn_attacked[them as usize];
        let their_king = board.king_of(them);
        let zone = their_king.map_or(Bitboard::EMPTY, |k| {
            let z = king_attacks(k) | Bitboard::from_square(k);
            z | match them {
                Color::White => z.shift(8),
                Color::Black => z.shift(-8),
            }
        });
        let seventh = if color == Color::White {
            Bitboard::from_rank(shakmaty::Rank::Seventh)
        } else {
            Bitboard::from_rank(shakmaty::Rank::Second)
        };

        for role in Role::ALL {
            let r = role as usize - 1;
            let placed = ours & board.by_role(role);
            if !S::PIECE_SQUARES && matches!(role, Role::Pawn | Role::King) {
                // Nothing but their squares is scored here.
                continue;
            }
            if S::PIECE_SQUARES {
                sink.add(MATERIAL + r, color, placed.count() as i32);
            }
            for sq in placed {
                if S::PIECE_SQUARES {
                    sink.add(PST + r * 64 + pst_square(color, sq), color, 1);
                }
                let attacks = match role {
                    Role::Pawn | Role::King => continue,
                    Role::Knight => knight_attacks(sq),
                    Role::Bishop => bishop_attacks(sq, occupied),
                    Role::Rook => rook_attacks(sq, occupied),
                    Role::Queen => queen_attacks(sq, occupied),
                };
                attacked[c] |= attacks;
                attacked_by[c][r] |= attacks;
                let reach = (attacks & area).count();
                let (mobility, weight) = match role {
                    Role::Knight => (MOBILITY_KNIGHT, 2),
                    Role::Bishop => (MOBILITY_BISHOP, 2),
                    Role::Rook => (MOBILITY_ROOK, 3),
                    _ => (MOBILITY_QUEEN, 5),
                };
                sink.add(mobility + reach, color, 1);
                if (attacks & zone).any() {
                    king_units[c] += weight;
                    king_attackers[c] += 1;
                }
                let file = u32::from(sq.file());
                match role {
                    Role::Knight | Role::Bishop => {
                        let rel = relative_rank(color, sq);
                        let safe = (ahead_of(color, u32::from(sq.rank()))
                            & adjacent_files(file)
                            & their_pawns)
                            .is_empty();
                        if (3..=5).contains(&rel) && safe && pawn_attacked[c].contains(sq) {
                            let term = if role == Role::Knight {
                                KNIGHT_OUTPOST
                            } else {
                                BISHOP_OUTPOST
                            };
                            sink.add(term, color, 1);
                        }
                    }
                    Role::Rook => {
                        if (file_bb(file) & pawns).is_empty() {
                            sink.add(ROOK_OPEN_FILE, color, 1);
                        } else if (file_bb(file) & our_pawns).is_empty() {
                            sink.add(ROOK_SEMI_OPEN_FILE, color, 1);
                        }
                        if seventh.contains(sq) {
                            sink.add(ROOK_ON_SEVENTH, color, 1);
                        }
                    }
                    _ => {
                        if seventh.contains(sq) {
                            sink.add(QUEEN_ON_SEVENTH, color, 1);
                        }
                    }
                }
            }
        }
        if (ours & board.by_role(Role::Bishop)).count() >= 2 {
            sink.add(BISHOP_PAIR, color, 1);
        }
    }
    for color in Color::ALL {
        if let Some(k) = board.king_of(color) {
            attacked[color as usize] |= king_attacks(k);
        }
    }

    for color in Color::ALL {
        let c = color as usize;
        let them = color.other();
        let t = them as usize;
        let ours = board.by_color(color);
        let theirs = board.by_color(them);
        let their_pieces = theirs & !pawns & !board.by_role(Role::King);

        // King safety, scored for the attacking side.
        if let Some(king) = board.king_of(them) {
            if king_attackers[c] >= 2 {
                sink.add(KING_ATTACK + (king_units[c] as usize).min(15), color, 1);
            }
            let safe = !attacked[t] & !ours;
            // Squares from which each role would give check, reached by
            // our pieces of that role.
            let diagonal = bishop_attacks(king, occupied);
            let straight = rook_attacks(king, occupied);
            let checks = [
                (Role::Knight, knight_attacks(king)),
                (Role::Bishop, diagonal),
                (Role::Rook, straight),
                (Role::Queen, diagonal | straight),
            ];
            for (i, (role, from_king)) in checks.into_iter().enumerate() {
                let reach = attacked_by[c][role as usize - 1];
                let n = (reach & from_king & safe).count() as i32;
                if n > 0 {
                    sink.add(SAFE_CHECK + i, color, n);
                }
            }
        }

        // The shelter of our own king.
        if let Some(king) = board.king_of(color) {
            let kf = u32::from(king.file());
            let kr = u32::from(king.rank());
            let our_pawns = ours & pawns;
            let their_pawns = theirs & pawns;
            for f in kf.saturating_sub(1)..=(kf + 1).min(7) {
                let file = file_bb(f) & ahead_of(color, kr);
                let mine = our_pawns & file;
                let nearest = if color == Color::White {
                    mine.first()
                } else {
                    mine.last()
                };
                let distance = nearest.map(|sq| u32::from(sq.rank()).abs_diff(kr));
                match distance {
                    Some(1) => sink.add(PAWN_SHIELD, color, 1),
                    Some(2) => sink.add(PAWN_SHIELD + 1, color, 1),
                    Some(_) => {}
                    None => sink.add(PAWN_SHIELD + 2, color, 1),
                }
                for sq in their_pawns & file {
                    let d = u32::from(sq.rank()).abs_diff(kr) as usize;
                    if (1..=3).contains(&d) {
                        sink.add(PAWN_STORM + d - 1, color, 1);
                    }
                }
                if (file_bb(f) & pawns).is_empty() {
                    sink.add(KING_OPEN_FILE, color, 1);
                } else if (file_bb(f) & our_pawns).is_empty() {
                    sink.add(KING_SEMI_OPEN_FILE, color, 1);
                }
            }
        }

        // Threats against their pieces.
        let by_pawn = (pawn_attacked[c] & their_pieces).count() as i32;
        if by_pawn > 0 {
            sink.add(THREAT_BY_PAWN, color, by_pawn);
        }
        let majors = theirs & (board.by_role(Role::Rook) | board.by_role(Role::Queen));
        let minors =
            attacked_by[c][Role::Knight as usize - 1] | attacked_by[c][Role::Bishop as usize - 1];
        let on_major = (minors & majors).count() as i32;
        if on_major > 0 {
            sink.add(THREAT_MINOR_ON_MAJOR, color, on_major);
        }
        let hanging = (attacked[c] & their_pieces & !attacked[t]).count() as i32;
        if hanging > 0 {
            sink.add(HANGING_PIECE, color, hanging);
        }

        // Passed pawns: the way ahead, and the kings.
        for sq in passed & ours {
            let rel = relative_rank(color, sq);
            let Some(stop) = sq.offset(if color == Color::White { 8 } else { -8 }) else {
                continue;
            };
            let path = ahead_of(color, u32::from(sq.rank())) & file_bb(u32::from(sq.file()));
            if (path & occupied).is_empty() {
                sink.add(PASSED_FREE + rel, color, 1);
            }
            if theirs.contains(stop) {
                sink.add(PASSED_BLOCKED, color, 1);
            }
            if let Some(k) = board.king_of(color) {
                sink.add(PASSED_OWN_KING, color, distance(k, stop));
            }
            if let Some(k) = board.king_of(them) {
                sink.add(PASSED_ENEMY_KING, color, distance(k, stop));
            }
        }
    }
    sink.add(TEMPO, pos.turn(), 1);
}

/// King-move distance between two squares.
#[inline]
fn distance(a: Square, b: Square) -> i32 {
    let df = u32::from(a.file()).abs_diff(u32::from(b.file()));
    let dr = u32::from(a.rank()).abs_diff(u32::from(b.rank()));
    df.max(dr) as i32
}
