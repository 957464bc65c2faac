//! Where each evaluation weight lives in the weight table: one constant
//! per term, the first index of its block. The tuner and the evaluation
//! share this layout; `NAMES` labels the blocks for `eval` and the tuner.

pub const MATERIAL: usize = 0; // 6, by role
pub const PST: usize = MATERIAL + 6; // 6 x 64, by role and square (White's view, a8 first)
pub const BISHOP_PAIR: usize = PST + 384;
pub const MOBILITY_KNIGHT: usize = BISHOP_PAIR + 1; // 9, by squares reached
pub const MOBILITY_BISHOP: usize = MOBILITY_KNIGHT + 9; // 14
pub const MOBILITY_ROOK: usize = MOBILITY_BISHOP + 14; // 15
pub const MOBILITY_QUEEN: usize = MOBILITY_ROOK + 15; // 28
pub const ROOK_OPEN_FILE: usize = MOBILITY_QUEEN + 28;
pub const ROOK_SEMI_OPEN_FILE: usize = ROOK_OPEN_FILE + 1;
pub const ROOK_ON_SEVENTH: usize = ROOK_SEMI_OPEN_FILE + 1;
pub const QUEEN_ON_SEVENTH: usize = ROOK_ON_SEVENTH + 1;
pub const KNIGHT_OUTPOST: usize = QUEEN_ON_SEVENTH + 1;
pub const BISHOP_OUTPOST: usize = KNIGHT_OUTPOST + 1;
pub const DOUBLED_PAWN: usize = BISHOP_OUTPOST + 1;
pub const ISOLATED_PAWN: usize = DOUBLED_PAWN + 1;
pub const BACKWARD_PAWN: usize = ISOLATED_PAWN + 1;
pub const CONNECTED_PAWN: usize = BACKWARD_PAWN + 1; // 8, by relative rank
pub const PASSED_PAWN: usize = CONNECTED_PAWN + 8; // 8, by relative rank
pub const PASSED_FREE: usize = PASSED_PAWN + 8; // 8, by relative rank: nothing in front
pub const PASSED_BLOCKED: usize = PASSED_FREE + 8; // an enemy piece on the stop square
pub const PASSED_OWN_KING: usize = PASSED_BLOCKED + 1; // per square of distance to the stop square
pub const PASSED_ENEMY_KING: usize = PASSED_OWN_KING + 1;
pub const CANDIDATE_PAWN: usize = PASSED_ENEMY_KING + 1; // 8, by relative rank
pub const KING_ATTACK: usize = CANDIDATE_PAWN + 8; // 16, by attack units on the king zone
pub const PAWN_SHIELD: usize = KING_ATTACK + 16; // 3: pawn one ahead, two ahead, none
pub const PAWN_STORM: usize = PAWN_SHIELD + 3; // 3: enemy pawn 1, 2, 3 ranks ahead of the king
pub const KING_OPEN_FILE: usize = PAWN_STORM + 3;
pub const KING_SEMI_OPEN_FILE: usize = KING_OPEN_FILE + 1;
pub const SAFE_CHECK: usize = KING_SEMI_OPEN_FILE + 1; // 4: knight, bishop, rook, queen
pub const THREAT_BY_PAWN: usize = SAFE_CHECK + 4;
pub const THREAT_MINOR_ON_MAJOR: usize = THREAT_BY_PAWN + 1;
pub const HANGING_PIECE: usize = THREAT_MINOR_ON_MAJOR + 1;
pub const TEMPO: usize = HANGING_PIECE + 1;
/// Number of weights.
pub const COUNT: usize = TEMPO + 1;

/// Blocks of the table by name, first index and length.
pub const NAMES: [(&str, usize, usize); 34] = [
    ("material", MATERIAL, 6),
    ("piece-square", PST, 384),
    ("bishop pair", BISHOP_PAIR, 1),
    ("knight mobility", MOBILITY_KNIGHT, 9),
    ("bishop mobility", MOBILITY_BISHOP, 14),
    ("rook mobility", MOBILITY_ROOK, 15),
    ("queen mobility", MOBILITY_QUEEN, 28),
    ("rook open file", ROOK_OPEN_FILE, 1),
    ("rook semi-open file", ROOK_SEMI_OPEN_FILE, 1),
    ("rook on seventh", ROOK_ON_SEVENTH, 1),
    ("queen on seventh", QUEEN_ON_SEVENTH, 1),
    ("knight outpost", KNIGHT_OUTPOST, 1),
    ("bishop outpost", BISHOP_OUTPOST, 1),
    ("doubled pawn", DOUBLED_PAWN, 1),
    ("isolated pawn", ISOLATED_PAWN, 1),
    ("backward pawn", BACKWARD_PAWN, 1),
    ("connected pawn", CONNECTED_PAWN, 8),
    ("passed pawn", PASSED_PAWN, 8),
    ("passed free path", PASSED_FREE, 8),
    ("passed blocked", PASSED_BLOCKED, 1),
    ("passed own king", PASSED_OWN_KING, 1),
    ("passed enemy king", PASSED_ENEMY_KING, 1),
    ("candidate pawn", CANDIDATE_PAWN, 8),
    ("king attack", KING_ATTACK, 16),
    ("pawn shield", PAWN_SHIELD, 3),
    ("pawn storm", PAWN_STORM, 3),
    ("king open file", KING_OPEN_FILE, 1),
    ("king semi-open file", KING_SEMI_OPEN_FILE, 1),
    ("safe check", SAFE_CHECK, 4),
    ("threat by pawn", THREAT_BY_PAWN, 1),
    ("minor on major", THREAT_MINOR_ON_MAJOR, 1),
    ("hanging piece", HANGING_PIECE, 1),
    ("tempo", TEMPO, 1),
    ("(end)", COUNT, 0),
];
