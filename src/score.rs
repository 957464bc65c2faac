//! Score conventions shared by the search, the transposition table and the
//! front end: centipawns from the side to move, mate as `MATE - ply`.

/// Deepest ply the search can reach; arrays indexed by ply have this size.
pub const MAX_PLY: usize = 128;

/// Score of delivering mate at the root; mate found at `ply` is `MATE - ply`.
pub const MATE: i32 = 32_000;
/// Any score beyond this is a mate score.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// A tablebase win at the root; found at `ply` it is `TB_WIN - ply`.
/// Below every mate, above every evaluation.
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// Larger than every real score: the initial window.
pub const INFINITY: i32 = 32_500;
/// Score of a draw.
pub const DRAW: i32 = 0;

/// Whether `score` announces a mate for either side.
#[inline]
pub fn is_mate(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// Full moves to mate for a mate score: positive when the side to move
/// mates, negative when it is mated (UCI `score mate N`).
pub fn mate_in_moves(score: i32) -> i32 {
    if score > 0 {
        (MATE - score + 1) / 2
    } else {
        -(MATE + score) / 2
    }
}

/// Converts a score relative to the root into one relative to a node at
/// `ply`, for storing in the transposition table: a mate seen from here is
/// nearer than from the root.
#[inline]
pub fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Inverse of [`to_tt`]: a stored score read at a node `ply` from the root.
#[inline]
pub fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The win/draw/loss model for `UCI_ShowWDL`: the chance that a score
/// `s` (centipawns, side to move) ends in a win is `1 / (1 + e^((a - s) / b))`
/// and in a loss `1 / (1 + e^((a + s) / b))`, the rest is a draw. `a` and
/// `b` are fitted to self-play games (`brudno tune DATA --wdl`, see README).
pub const WDL_A: f64 = 260.0;
pub const WDL_B: f64 = 190.0;

/// Win, draw and loss chances in per mille for score `s`.
pub fn wdl(s: i32) -> (u32, u32, u32) {
    if is_mate(s) || s.abs() >= TB_WIN - MAX_PLY as i32 {
        return if s > 0 { (1000, 0, 0) } else { (0, 0, 1000) };
    }
    let x = f64::from(s);
    let win = 1.0 / (1.0 + ((WDL_A - x) / WDL_B).exp());
    let loss = 1.0 / (1.0 + ((WDL_A + x) / WDL_B).exp());
    let w = (win * 1000.0).round() as u32;
    let l = (loss * 1000.0).round() as u32;
    (w, 1000 - w - l, l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_distances_in_full_moves() {
        assert_eq!(mate_in_moves(MATE - 1), 1);
        assert_eq!(mate_in_moves(MATE - 3), 2);
        assert_eq!(mate_in_moves(MATE - 5), 3);
        assert_eq!(mate_in_moves(-(MATE - 2)), -1);
        assert_eq!(mate_in_moves(-MATE), 0);
    }

    #[test]
    fn tt_conversion_round_trips_and_keeps_distance() {
        for ply in [0, 1, 7, 60] {
            for s in [0, 150, -150, MATE - 9, -(MATE - 12)] {
                assert_eq!(from_tt(to_tt(s, ply), ply), s);
            }
        }
        // Mate in 3 plies seen from the root at a node 2 plies deep is
        // a mate in 1 ply from that node.
        assert_eq!(to_tt(MATE - 3, 2), MATE - 1);
    }

    #[test]
    fn wdl_adds_up_and_is_symmetric() {
        for s in [-3000, -400, -100, -1, 0, 1, 50, 250, 800, 5000] {
            let (w, d, l) = wdl(s);
            assert_eq!(w + d + l, 1000, "{s}");
            assert_eq!(wdl(-s), (l, d, w), "{s}");
        }
        assert!(wdl(0).1 > 500, "an even score is mostly a draw");
        assert!(wdl(600).0 > 800, "six pawns up mostly wins");
        assert_eq!(wdl(MATE - 5), (1000, 0, 0));
        assert_eq!(wdl(-(TB_WIN - 3)), (0, 0, 1000));
    }
}
