//! Search parameters, gathered in one place so they can be tuned together.
//!
//! The tuning knobs are declared once each in [`tunables!`] below (name,
//! default, min, max, step) and read through a function of that name. In a
//! normal build each function is a constant, so the search compiles as if
//! the numbers were written in place (the `bench` node count and the speed
//! do not change); in a build with the cargo feature `spsa` each is a UCI
//! `spin` option that `setoption` changes at run time, and `brudno spsa`
//! prints them as OpenBench's SPSA input. Fractions are stored in fixed
//! point (`_x100`: hundredths, `_x1000`: thousandths). Table sizes and
//! intervals, which are no tuning knobs, stay plain constants.

/// One tunable parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunable {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    /// The step SPSA perturbs it by at the end of a tune (`c_end`).
    pub step: i32,
}

/// Declares the tunables: `name = default, min, max, step;` each.
macro_rules! tunables {
    ($($(#[doc = $doc:literal])* $name:ident = $default:literal, $min:literal, $max:literal, $step:literal;)*) => {
        #[cfg(not(feature = "spsa"))]
        mod values {
            $(
                $(#[doc = $doc])*
                #[inline(always)]
                pub const fn $name() -> i32 {
                    $default
                }
            )*
        }

        #[cfg(feature = "spsa")]
        mod values {
            use std::sync::atomic::{AtomicI32, Ordering::Relaxed};

            /// The current values, one atomic each.
            pub(super) mod store {
                use std::sync::atomic::AtomicI32;
                $(
                    #[allow(non_upper_case_globals)]
                    pub static $name: AtomicI32 = AtomicI32::new($default);
                )*
            }

            $(
                $(#[doc = $doc])*
                #[inline(always)]
                pub fn $name() -> i32 {
                    store::$name.load(Relaxed)
                }
            )*

            /// Sets the tunable `name` (already range-checked).
            pub(super) fn store(name: &str, value: i32) -> bool {
                let cell: &AtomicI32 = match name {
                    $(stringify!($name) => &store::$name,)*
                    _ => return false,
                };
                cell.store(value, Relaxed);
                true
            }
        }

        pub use values::*;

        /// Every tunable, in the order declared.
        pub const TUNABLES: &[Tunable] = &[
            $(Tunable { name: stringify!($name), default: $default, min: $min, max: $max, step: $step },)*
        ];
    };
}

tunables! {
    /// Aspiration: first half-width of the window around the last score.
    aspiration_delta = 25, 8, 80, 4;
    /// Aspiration windows start at this depth; shallower iterations use the
    /// full window.
    aspiration_min_depth = 5, 2, 10, 1;

    /// Reverse futility: the static eval beats beta by this much per ply,
    /// up to the depth.
    rfp_margin = 80, 30, 200, 8;
    rfp_max_depth = 8, 4, 14, 1;
    /// Reverse futility needs this much less when the opponent's last move
    /// made its own evaluation worse.
    rfp_worsening = 20, 0, 80, 4;
    /// Razoring: the static eval is this far below alpha per ply.
    razor_margin = 250, 100, 500, 20;
    razor_max_depth = 3, 1, 6, 1;
    /// Null move: minimum depth, and the reduction's parts.
    nmp_min_depth = 3, 1, 6, 1;
    nmp_base = 3, 1, 6, 1;
    nmp_depth_divisor = 3, 2, 6, 1;
    nmp_eval_divisor = 200, 80, 400, 16;
    /// From this depth a null move that beats beta is verified (zugzwang).
    nmp_verify_depth = 12, 8, 20, 1;
    /// Probcut, at nodes expected to cut: from this depth, a capture that
    /// beats beta by the margin in a search this many plies shallower cuts.
    probcut_min_depth = 5, 3, 10, 1;
    probcut_margin = 200, 80, 400, 16;
    probcut_reduction = 4, 2, 6, 1;
    /// Internal iterative reduction without a table move, from this depth.
    iir_min_depth = 4, 2, 8, 1;

    /// Late move pruning: up to this depth, quiet moves after
    /// (`lmp_base` + depth²) (halved when not improving) are skipped.
    lmp_max_depth = 8, 4, 12, 1;
    lmp_base = 3, 0, 10, 1;
    /// History pruning: a quiet move whose history is below −this per ply,
    /// up to this depth.
    history_prune_depth = 4, 2, 8, 1;
    history_prune_margin = 2048, 512, 6144, 128;
    /// Futility: a quiet move cannot lift the static eval this far to alpha,
    /// a base plus a margin per ply of the depth its reduction leaves it.
    futility_max_depth = 6, 3, 10, 1;
    futility_base = 90, 20, 200, 8;
    futility_margin = 90, 30, 200, 8;
    /// SEE pruning thresholds: quiet moves per ply, captures per ply squared,
    /// moves that give check per ply; up to this depth.
    see_max_depth = 8, 4, 12, 1;
    see_quiet_margin = 60, 20, 150, 6;
    see_capture_margin = 25, 5, 80, 3;
    see_check_margin = 200, 60, 400, 16;

    /// Singular extensions from this depth, with a table entry this close.
    singular_min_depth = 8, 5, 12, 1;
    singular_tt_depth_margin = 3, 1, 5, 1;
    /// A singular move this far below the singular beta is extended twice.
    double_extension_margin = 20, 5, 60, 3;
    /// Late move reductions: ln(depth) ln(moves) / divisor + base, in
    /// hundredths; from this depth.
    lmr_base_x100 = 75, 20, 150, 8;
    lmr_divisor_x100 = 225, 150, 400, 12;
    lmr_min_depth = 3, 2, 5, 1;
    /// History that lowers (or raises) the reduction by one ply.
    lmr_history_divisor = 8192, 2048, 16384, 512;
    /// Reduction of a late capture that loses material.
    lmr_losing_capture = 1, 0, 3, 1;
    /// A reduced move that beats alpha is re-searched a ply deeper when it
    /// beat the node's best by more than this plus the next per ply, and a
    /// ply shallower when by less than the last.
    deeper_margin = 40, 10, 100, 4;
    deeper_margin_per_ply = 2, 0, 8, 1;
    shallower_margin = 10, 0, 40, 2;

    /// Time: the soft limit's factor by how many iterations the best move
    /// has held (0, 1, 2, 3, 4 or more), in hundredths.
    stability_0_x100 = 220, 120, 350, 10;
    stability_1_x100 = 140, 80, 250, 8;
    stability_2_x100 = 110, 60, 200, 6;
    stability_3_x100 = 90, 50, 150, 5;
    stability_4_x100 = 80, 40, 130, 5;
    /// Extra time when the score fell since the last iteration, per
    /// centipawn (thousandths), up to a factor (hundredths).
    score_drop_scale_x1000 = 10, 2, 30, 1;
    score_drop_max_x100 = 160, 110, 250, 8;
    /// Extra time when the best move took few of the iteration's nodes:
    /// factor = (base - share) scale, in hundredths.
    node_share_base_x100 = 150, 110, 200, 4;
    node_share_scale_x100 = 135, 80, 200, 6;
    /// The clock's soft limit takes this share of the increment
    /// (hundredths), and the hard limit is this many times the soft one
    /// (tenths).
    time_increment_x100 = 75, 30, 100, 4;
    time_hard_x10 = 40, 20, 80, 3;
}

/// Sets the tunable `name` to `value` (an `spsa` build's `setoption`).
///
/// # Errors
/// When no tunable has that name or the value is out of its range.
#[cfg(feature = "spsa")]
pub fn set(name: &str, value: i64) -> Result<(), String> {
    let t = TUNABLES
        .iter()
        .find(|t| t.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("no tunable {name}"))?;
    if !(i64::from(t.min)..=i64::from(t.max)).contains(&value) {
        return Err(format!(
            "{} {value} is out of range {} to {}",
            t.name, t.min, t.max
        ));
    }
    values::store(t.name, value as i32);
    Ok(())
}

/// The tunables as OpenBench's SPSA input, one line each: `name, int,
/// value, min, max, c_end, r_end`, with `c_end` the step and `r_end` 0.002.
#[cfg_attr(not(feature = "spsa"), allow(dead_code))]
pub fn spsa_lines() -> Vec<String> {
    TUNABLES
        .iter()
        .map(|t| {
            format!(
                "{}, int, {}, {}, {}, {}, 0.002",
                t.name, t.default, t.min, t.max, t.step
            )
        })
        .collect()
}

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

/// Late move pruning: how many quiet moves are tried before the rest are
/// skipped.
#[inline]
pub fn lmp_limit(depth: i32, improving: bool) -> usize {
    let base = lmp_base() + depth * depth;
    (if improving { base } else { base / 2 }) as usize
}

/// At most this many double extensions on one path.
pub const DOUBLE_EXTENSION_MAX: u8 = 6;

/// The late-move-reduction table, by depth and move number.
pub fn lmr_table() -> Box<[[i32; 64]; 64]> {
    let mut t = Box::new([[0; 64]; 64]);
    for (depth, row) in t.iter_mut().enumerate().skip(1) {
        for (moves, r) in row.iter_mut().enumerate().skip(1) {
            let ln = (depth as f64).ln() * (moves as f64).ln();
            let (base, divisor) = (
                f64::from(lmr_base_x100()) / 100.0,
                f64::from(lmr_divisor_x100()) / 100.0,
            );
            *r = (base + ln / divisor) as i32;
        }
    }
    t
}

// Time.

/// With a single root move, stop (on a clock) after this depth.
pub const SINGLE_MOVE_DEPTH: i32 = 6;

/// The soft limit's factor by how many iterations the best move has held.
pub fn stability_scale(iterations: usize) -> f64 {
    let x100 = match iterations {
        0 => stability_0_x100(),
        1 => stability_1_x100(),
        2 => stability_2_x100(),
        3 => stability_3_x100(),
        _ => stability_4_x100(),
    };
    f64::from(x100) / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines OpenBench's SPSA form reads: seven comma-separated fields,
    /// `name, int, value, min, max, c_end, r_end`, numbers where numbers
    /// belong, the value within its range and every name once.
    #[test]
    fn spsa_lines_follow_openbench_seven_field_rule() {
        let lines = spsa_lines();
        assert_eq!(lines.len(), TUNABLES.len());
        assert!(lines.len() >= 40);
        let mut names = std::collections::HashSet::new();
        for line in &lines {
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            assert_eq!(fields.len(), 7, "{line}");
            assert!(names.insert(fields[0]), "{line}: the name twice");
            assert!(
                fields[0]
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{line}"
            );
            assert_eq!(fields[1], "int", "{line}");
            let n: Vec<f64> = fields[2..].iter().map(|f| f.parse().unwrap()).collect();
            let (value, min, max, c_end, r_end) = (n[0], n[1], n[2], n[3], n[4]);
            assert!(min <= value && value <= max && min < max, "{line}");
            assert!(c_end >= 1.0 && c_end <= (max - min) / 2.0, "{line}");
            assert!((r_end - 0.002).abs() < 1e-12, "{line}");
        }
    }

    /// The reduction table from the tunables is the table the search had
    /// with its constants 0.75 and 2.25.
    #[test]
    fn the_reduction_table_is_unchanged() {
        let t = lmr_table();
        for depth in 1..64 {
            for moves in 1..64 {
                let ln = (depth as f64).ln() * (moves as f64).ln();
                assert_eq!(t[depth][moves], (0.75 + ln / 2.25) as i32);
            }
        }
    }
}
