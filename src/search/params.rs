//! Search tunables, gathered in one place so they can be tuned together.

/// Piece values used by SEE and capture ordering (pawn, knight, bishop,
/// rook, queen, king), indexed by `Role as usize - 1`.
pub const SEE_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 20_000];

/// Aspiration: first half-width of the window around the last score.
pub const ASPIRATION_DELTA: i32 = 25;
/// Aspiration windows start at this depth; shallower iterations use the full window.
pub const ASPIRATION_MIN_DEPTH: i32 = 5;

/// History values stay within ±this (the gravity formula keeps them there).
pub const HISTORY_MAX: i32 = 16_384;
/// History bonus for a move that caused a cut-off at `depth`, before the cap.
#[inline]
pub fn history_bonus(depth: i32) -> i32 {
    (16 * depth * depth + 32 * depth).min(1_600)
}

/// How often (in nodes) the search looks at the stop flag.
pub const STOP_CHECK_INTERVAL: u64 = 1024;
