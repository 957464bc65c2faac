//! Search tunables, gathered in one place so they can be tuned together.

/// Piece values used by SEE and capture ordering (pawn, knight, bishop,
/// rook, queen, king), indexed by `Role as usize - 1`.
pub const SEE_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 20_000];

/// Ordering malus of a quiet move that puts a piece (pawn, knight, bishop,
/// rook, queen, king) where a cheaper enemy piece attacks it, against
/// quiet history of up to six times `HISTORY_MAX` (butterfly, three
/// continuations, pawn history at twice its weight). Nothing is cheaper
/// than a pawn, and a king cannot move into an attack: both are 0.
pub const THREAT_MALUS: [i32; 6] = [0, 8_192, 8_192, 12_288, 16_384, 0];

/// A capture counts as good, and is ordered before the killers, when SEE
/// says it gains at least −(capture history) / this: within ±256 cp for
/// history within ±`HISTORY_MAX`.
pub const CAPTURE_SEE_DIVISOR: i32 = 64;

/// Aspiration: first half-width of the window around the last score.
pub const ASPIRATION_DELTA: i32 = 25;
/// Aspiration windows start at this depth; shallower iterations use the full window.
pub const ASPIRATION_MIN_DEPTH: i32 = 5;

/// History values stay within ±this (the gravity formula keeps them there).
pub const HISTORY_MAX: i32 = 16_384;
/// History bonus for a move that caused a cut-off at `depth`: linear up to
/// the cap, so that the many shallow cut-offs teach the tables quickly.
#[inline]
pub fn history_bonus(depth: i32) -> i32 {
    (256 * depth).min(1_600)
}

/// The butterfly entry of the opponent's last quiet move moves by
/// −`EVAL_HISTORY_SCALE` × the change it made to the evaluation (its side's
/// before plus ours after), within ±`EVAL_HISTORY_MAX`: about one deep
/// cut-off's bonus at most.
pub const EVAL_HISTORY_SCALE: i32 = 10;
pub const EVAL_HISTORY_MAX: i32 = 1_500;

/// Pawn history: slots (pawn placements share them by hash), and its
/// weight in a quiet move's score against butterfly and continuations.
pub const PAWN_HISTORY_SIZE: usize = 1024;
pub const PAWN_HISTORY_WEIGHT: i32 = 2;

/// Correction history: slots per side to move (pawn placements, and each
/// side's placements of its other pieces, share them by hash), parts of a
/// centipawn per stored unit, the largest correction of one key (64 cp;
/// the pawn, the two piece and the previous-move keys add up to 256 cp)
/// and the largest weight of one search (of 256).
pub const CORRECTION_SIZE: usize = 16_384;
pub const CORRECTION_GRAIN: i32 = 256;
pub const CORRECTION_MAX: i32 = 64 * CORRECTION_GRAIN;
pub const CORRECTION_WEIGHT_MAX: i32 = 16;

/// The static evaluation is scaled by (this − the fifty-move counter) /
/// this: at the rule's hundredth ply, to half.
pub const FIFTY_MOVE_SCALE_PLIES: i32 = 200;

/// A tablebase result is stored as if searched this much deeper: it is exact.
pub const TB_DEPTH_BONUS: i32 = 6;

/// How often (in nodes) the search looks at the stop flag.
pub const STOP_CHECK_INTERVAL: u64 = 1024;

/// Nodes a helper searches before it hands its turn at a core on, when
/// there are more threads than cores (a few milliseconds: long enough
/// that switching costs nothing, short enough that every helper searches).
pub const TURN_NODES: u64 = 16 * STOP_CHECK_INTERVAL;

// Pruning before the move loop (non-PV nodes, not in check).

/// Reverse futility: the static eval beats beta by this much per ply.
pub const RFP_MARGIN: i32 = 80;
pub const RFP_MAX_DEPTH: i32 = 8;
/// Reverse futility needs this much less when the opponent's last move
/// made its own evaluation worse.
pub const RFP_WORSENING: i32 = 20;
/// Razoring: the static eval is this far below alpha per ply.
pub const RAZOR_MARGIN: i32 = 250;
pub const RAZOR_MAX_DEPTH: i32 = 3;
/// Null move: minimum depth, and the reduction's parts.
pub const NMP_MIN_DEPTH: i32 = 3;
pub const NMP_BASE: i32 = 3;
pub const NMP_DEPTH_DIVISOR: i32 = 3;
pub const NMP_EVAL_DIVISOR: i32 = 200;
/// From this depth a null move that beats beta is verified (zugzwang):
/// the node is searched again at the depth of the null move's reply, with
/// null moves off for the first three quarters of that search.
pub const NMP_VERIFY_DEPTH: i32 = 12;
/// Probcut, at nodes expected to cut: from this depth, a capture that
/// beats beta by the margin in a search this many plies shallower cuts.
pub const PROBCUT_MIN_DEPTH: i32 = 5;
pub const PROBCUT_MARGIN: i32 = 200;
pub const PROBCUT_REDUCTION: i32 = 4;
/// Internal iterative reduction without a table move, from this depth.
pub const IIR_MIN_DEPTH: i32 = 4;

// Pruning inside the move loop.

/// Late move pruning: quiet moves tried before the rest are skipped.
pub const LMP_MAX_DEPTH: i32 = 8;
#[inline]
pub fn lmp_limit(depth: i32, improving: bool) -> usize {
    let base = 3 + depth * depth;
    (if improving { base } else { base / 2 }) as usize
}
/// History pruning: a quiet move whose history (butterfly, continuations
/// and pawn history together) is below −this per ply, up to this depth.
pub const HISTORY_PRUNE_DEPTH: i32 = 4;
pub const HISTORY_PRUNE_MARGIN: i32 = 2_048;
/// Futility: a quiet move cannot lift the static eval this far to alpha,
/// per ply of the depth its late-move reduction leaves it.
pub const FUTILITY_MAX_DEPTH: i32 = 6;
pub const FUTILITY_BASE: i32 = 90;
pub const FUTILITY_MARGIN: i32 = 90;
/// SEE pruning thresholds: quiet moves per ply, captures per ply squared.
pub const SEE_MAX_DEPTH: i32 = 8;
pub const SEE_QUIET_MARGIN: i32 = 60;
pub const SEE_CAPTURE_MARGIN: i32 = 25;
/// SEE pruning of a move that gives check, per ply (checks are exempt
/// from futility and late move pruning).
pub const SEE_CHECK_MARGIN: i32 = 200;

// Extensions and reductions.

/// Singular extensions from this depth, with a table entry this close.
pub const SINGULAR_MIN_DEPTH: i32 = 8;
pub const SINGULAR_TT_DEPTH_MARGIN: i32 = 3;
/// A singular move this far below the singular beta (non-PV) is extended
/// twice, at most this many times on one path.
pub const DOUBLE_EXTENSION_MARGIN: i32 = 20;
pub const DOUBLE_EXTENSION_MAX: u8 = 6;
/// Late move reductions: ln(depth) * ln(moves) / `LMR_DIVISOR` + `LMR_BASE`.
pub const LMR_BASE: f64 = 0.75;
pub const LMR_DIVISOR: f64 = 2.25;
pub const LMR_MIN_DEPTH: i32 = 3;
/// History that lowers (or raises) the reduction by one ply.
pub const LMR_HISTORY_DIVISOR: i32 = 8_192;
/// Reduction of a late capture that loses material (non-PV, no check).
pub const LMR_LOSING_CAPTURE: i32 = 1;
/// A reduced move that beats alpha is re-searched a ply deeper when it
/// beat the node's best by more than `DEEPER_MARGIN` plus
/// `DEEPER_MARGIN_PER_PLY` per ply of depth, and a ply shallower when by
/// less than `SHALLOWER_MARGIN`.
pub const DEEPER_MARGIN: i32 = 40;
pub const DEEPER_MARGIN_PER_PLY: i32 = 2;
pub const SHALLOWER_MARGIN: i32 = 10;

/// The late-move-reduction table, by depth and move number.
pub fn lmr_table() -> Box<[[i32; 64]; 64]> {
    let mut t = Box::new([[0; 64]; 64]);
    for (depth, row) in t.iter_mut().enumerate().skip(1) {
        for (moves, r) in row.iter_mut().enumerate().skip(1) {
            let ln = (depth as f64).ln() * (moves as f64).ln();
            *r = (LMR_BASE + ln / LMR_DIVISOR) as i32;
        }
    }
    t
}

// Time: scaling of the soft limit between iterations.

/// With a single root move, stop (on a clock) after this depth.
pub const SINGLE_MOVE_DEPTH: i32 = 6;
/// Soft-limit factor by how many iterations the best move has held.
pub const STABILITY_SCALE: [f64; 5] = [2.2, 1.4, 1.1, 0.9, 0.8];
/// Extra time when the score fell since the last iteration, per centipawn.
pub const SCORE_DROP_SCALE: f64 = 0.01;
pub const SCORE_DROP_MAX: f64 = 1.6;
/// Extra time when the best move took few of the iteration's nodes:
/// factor = (`NODE_SHARE_BASE` - share) * `NODE_SHARE_SCALE`.
pub const NODE_SHARE_BASE: f64 = 1.5;
pub const NODE_SHARE_SCALE: f64 = 1.35;
