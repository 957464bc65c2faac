//! The network's inner loops, written as plain loops the compiler turns
//! into vector code.
//!
//! A release build targets the machine that compiles it
//! (`.cargo/config.toml`), so these loops already use the widest vectors
//! it has. A build for the baseline x86-64 (SSE2 only, as distributions
//! ship) would lose that, so on x86-64 each loop is compiled a second time
//! with AVX2 enabled and chosen at run time when the processor has it.
//! Measured on a baseline build, the AVX2 copies raise `bench` with a net
//! (see `docs/nets.md`); a build that has AVX2 from the start skips the
//! check.

// The plain bodies must be inlined into their AVX2 copies to be compiled
// with AVX2 at all.
#![allow(clippy::inline_always)]

use super::QA;

/// Output weights beyond this (2.0 at `QB` = 64) would overflow the i16
/// product in [`screlu_dot`]; the trainer clips its weights at 1.98, and
/// network files with larger ones are refused.
pub const MAX_OUTPUT_WEIGHT: i16 = 128;

/// Elements summed in i32 before the total widens: 256 × 255 × 32,640
/// stays below `i32::MAX`.
const DOT_BLOCK: usize = 256;

/// Runs `$body` with AVX2 enabled when the processor has it and the build
/// does not already assume it, else as compiled.
macro_rules! dispatch {
    ($avx2:ident, $plain:ident, ($($arg:expr),*)) => {{
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: `$avx2` only enables AVX2, and the processor has it
            // (checked on the line above).
            return unsafe { $avx2($($arg),*) };
        }
        $plain($($arg),*)
    }};
}

/// Declares `$avx2`, a copy of `$plain` compiled with AVX2 enabled.
macro_rules! avx2_copy {
    ($avx2:ident, $plain:ident, ($($arg:ident: $ty:ty),*) $(-> $ret:ty)?) => {
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
        #[target_feature(enable = "avx2")]
        fn $avx2($($arg: $ty),*) $(-> $ret)? {
            $plain($($arg),*)
        }
    };
}

#[inline(always)]
fn dot_plain(acc: &[i16], weights: &[i16]) -> i64 {
    let mut total = 0i64;
    for (a, w) in acc.chunks(DOT_BLOCK).zip(weights.chunks(DOT_BLOCK)) {
        let mut sum = 0i32;
        for (&a, &w) in a.iter().zip(w) {
            // SCReLU: clamp to [0, QA] and square. (c × w) fits i16 as
            // |w| ≤ 128, so the pair of products maps onto one
            // multiply-add of i16 lanes into i32.
            let c = a.clamp(0, QA as i16);
            sum += i32::from(c) * i32::from(c.wrapping_mul(w));
        }
        total += i64::from(sum);
    }
    total
}
avx2_copy!(dot_avx2, dot_plain, (acc: &[i16], weights: &[i16]) -> i64);

/// Σ SCReLU(acc) × weights, with SCReLU(x) = clamp(x, 0, QA)², for output
/// weights within ±[`MAX_OUTPUT_WEIGHT`].
#[inline]
pub fn screlu_dot(acc: &[i16], weights: &[i16]) -> i64 {
    dispatch!(dot_avx2, dot_plain, (acc, weights))
}

#[inline(always)]
fn add_sub_plain(child: &mut [i16], parent: &[i16], add: &[i16], sub: &[i16]) {
    for (((c, &p), &a), &s) in child.iter_mut().zip(parent).zip(add).zip(sub) {
        *c = p.wrapping_add(a).wrapping_sub(s);
    }
}
avx2_copy!(add_sub_avx2, add_sub_plain, (child: &mut [i16], parent: &[i16], add: &[i16], sub: &[i16]));

/// child = parent + add − sub: a quiet move.
#[inline]
pub fn add_sub(child: &mut [i16], parent: &[i16], add: &[i16], sub: &[i16]) {
    dispatch!(add_sub_avx2, add_sub_plain, (child, parent, add, sub));
}

#[inline(always)]
fn add_sub2_plain(child: &mut [i16], parent: &[i16], add: &[i16], sub1: &[i16], sub2: &[i16]) {
    for ((((c, &p), &a), &s1), &s2) in child.iter_mut().zip(parent).zip(add).zip(sub1).zip(sub2) {
        *c = p.wrapping_add(a).wrapping_sub(s1).wrapping_sub(s2);
    }
}
avx2_copy!(add_sub2_avx2, add_sub2_plain, (child: &mut [i16], parent: &[i16], add: &[i16], sub1: &[i16], sub2: &[i16]));

/// child = parent + add − sub1 − sub2: a capture or en passant.
#[inline]
pub fn add_sub2(child: &mut [i16], parent: &[i16], add: &[i16], sub1: &[i16], sub2: &[i16]) {
    dispatch!(
        add_sub2_avx2,
        add_sub2_plain,
        (child, parent, add, sub1, sub2)
    );
}

#[inline(always)]
fn add_or_sub_plain(acc: &mut [i16], weights: &[i16], put: bool) {
    if put {
        for (a, &w) in acc.iter_mut().zip(weights) {
            *a = a.wrapping_add(w);
        }
    } else {
        for (a, &w) in acc.iter_mut().zip(weights) {
            *a = a.wrapping_sub(w);
        }
    }
}
avx2_copy!(add_or_sub_avx2, add_or_sub_plain, (acc: &mut [i16], weights: &[i16], put: bool));

/// acc ± weights in place: refreshes and the rarer moves (castling).
#[inline]
pub fn add_or_sub(acc: &mut [i16], weights: &[i16], put: bool) {
    dispatch!(add_or_sub_avx2, add_or_sub_plain, (acc, weights, put));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dot_product_equals_the_wide_sum() {
        // Extremes of both inputs, and more elements than one i32 block.
        let acc: Vec<i16> = (0..700)
            .map(|i| [i16::MIN, -1, 0, 1, 254, 255, 256, i16::MAX][i % 8])
            .collect();
        let weights: Vec<i16> = (0..700)
            .map(|i| [128, -128, 127, 0, -1, 77][i % 6])
            .collect();
        let wide: i64 = acc
            .iter()
            .zip(&weights)
            .map(|(&a, &w)| {
                let c = i64::from(a.clamp(0, 255));
                c * c * i64::from(w)
            })
            .sum();
        assert_eq!(screlu_dot(&acc, &weights), wide);
        assert_eq!(dot_plain(&acc, &weights), wide);
    }

    #[test]
    fn fused_updates_equal_one_change_at_a_time() {
        let row = |k: i16| -> Vec<i16> { (0..64).map(|i| i * k - 300).collect() };
        let (parent, a, s1, s2) = (row(7), row(3), row(-5), row(11));
        let mut one = parent.clone();
        add_or_sub(&mut one, &a, true);
        add_or_sub(&mut one, &s1, false);
        let mut fused = vec![0; 64];
        add_sub(&mut fused, &parent, &a, &s1);
        assert_eq!(fused, one);
        add_or_sub(&mut one, &s2, false);
        add_sub2(&mut fused, &parent, &a, &s1, &s2);
        assert_eq!(fused, one);
    }
}
