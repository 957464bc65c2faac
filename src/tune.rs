//! `brudno tune`: Texel-style tuning of the evaluation weights, and the fit
//! of the WDL model.
//!
//! The evaluation is linear in its weights once the phase and the endgame
//! scale of a position are fixed: `eval = Σ c_i (mg_i ρ + eg_i (1 - ρ) s)`
//! with the term counts `c_i` from [`crate::eval::trace`]. The loss is the
//! mean squared error between `sigmoid(K · eval)` and a target that blends
//! the game result with the search score; Adam descends its exact gradient.

// The maths keeps its symbols: d the data, w the weights, k the sigmoid's
// scale, g the gradient, s and e a sample's prediction and error.
#![allow(clippy::many_single_char_names)]

use std::fmt::Write as _;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use crate::eval::hce::{self as eval, MAX_PHASE, Pair, SCALE_FULL, WEIGHTS, layout};

/// Training positions in flat arrays.
pub struct Data {
    /// Offsets into `coeffs`: sample i owns `coeffs[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    coeffs: Vec<(u16, i16)>,
    /// Middlegame share of the taper (phase / 24).
    mg_share: Vec<f32>,
    /// Endgame share times the endgame scale.
    eg_share: Vec<f32>,
    results: Vec<f32>,
    scores: Vec<f32>,
}

impl Data {
    pub fn len(&self) -> usize {
        self.results.len()
    }

    /// Reads `fen | score | result` lines (see `datagen`), at most `limit`.
    pub fn parse(text: &str, limit: usize) -> Data {
        let mut d = Data {
            starts: vec![0],
            coeffs: Vec::new(),
            mg_share: Vec::new(),
            eg_share: Vec::new(),
            results: Vec::new(),
            scores: Vec::new(),
        };
        for line in text.lines().take(limit) {
            let mut parts = line.split('|').map(str::trim);
            let (Some(fen), Some(score), Some(result)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let (Ok(score), Ok(result)) = (score.parse::<f32>(), result.parse::<f32>()) else {
                continue;
            };
            let Some(pos) = fen
                .parse::<Fen>()
                .ok()
                .and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).ok())
            else {
                continue;
            };
            let trace = eval::trace(&pos);
            let mut total = Pair::default();
            for &(i, c) in &trace {
                let w = WEIGHTS[usize::from(i)];
                total += Pair {
                    mg: w.mg * i32::from(c),
                    eg: w.eg * i32::from(c),
                };
            }
            let phase = eval::phase(&pos) as f32 / MAX_PHASE as f32;
            let scale = eval::endgame_scale(&pos, total.eg) as f32 / SCALE_FULL as f32;
            d.coeffs.extend(trace);
            d.starts.push(d.coeffs.len() as u32);
            d.mg_share.push(phase);
            d.eg_share.push((1.0 - phase) * scale);
            d.results.push(result);
            d.scores.push(score);
        }
        d
    }

    /// The evaluation of sample `i` under `w` (mg and eg interleaved).
    #[inline]
    fn eval(&self, w: &[f64], i: usize) -> f64 {
        let (mut mg, mut eg) = (0.0, 0.0);
        for &(k, c) in &self.coeffs[self.starts[i] as usize..self.starts[i + 1] as usize] {
            let k = usize::from(k);
            mg += w[2 * k] * f64::from(c);
            eg += w[2 * k + 1] * f64::from(c);
        }
        mg * f64::from(self.mg_share[i]) + eg * f64::from(self.eg_share[i])
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Tuning settings.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub epochs: usize,
    /// Weight of the game result in the target (the rest: the search score).
    pub lambda: f64,
    pub learning_rate: f64,
    pub threads: usize,
    /// Weights below this index stay as they are (material and the
    /// piece-square tables, when the data is too little to refit them).
    pub frozen: usize,
    /// Strength of the pull towards the starting weights (L2, per
    /// centipawn squared). Adam moves a weight seen in a handful of
    /// positions as fast as a common one, and with the middlegame and
    /// endgame halves of a rare term nearly collinear the data alone lets
    /// them run off in opposite directions; the pull keeps such weights
    /// where they started unless the data says otherwise.
    pub l2: f64,
}

/// The starting weights, mg and eg interleaved.
pub fn initial_weights() -> Vec<f64> {
    WEIGHTS
        .iter()
        .flat_map(|p| [f64::from(p.mg), f64::from(p.eg)])
        .collect()
}

fn target(d: &Data, i: usize, k: f64, lambda: f64) -> f64 {
    lambda * f64::from(d.results[i]) + (1.0 - lambda) * sigmoid(k * f64::from(d.scores[i]))
}

/// Mean squared error of the weights on the data.
pub fn loss(d: &Data, w: &[f64], k: f64, lambda: f64) -> f64 {
    let n = d.len();
    (0..n)
        .map(|i| (sigmoid(k * d.eval(w, i)) - target(d, i, k, lambda)).powi(2))
        .sum::<f64>()
        / n.max(1) as f64
}

/// The scaling constant K that best fits the current evaluation to the
/// results (a ternary search; the loss is unimodal in K).
pub fn fit_k(d: &Data, w: &[f64]) -> f64 {
    let (mut lo, mut hi) = (0.0005, 0.02);
    for _ in 0..40 {
        let a = lo + (hi - lo) / 3.0;
        let b = hi - (hi - lo) / 3.0;
        if loss(d, w, a, 1.0) < loss(d, w, b, 1.0) {
            hi = b;
        } else {
            lo = a;
        }
    }
    f64::midpoint(lo, hi)
}

/// The gradient of the loss over samples `range`.
fn gradient(d: &Data, w: &[f64], k: f64, lambda: f64, range: std::ops::Range<usize>) -> Vec<f64> {
    let mut g = vec![0.0; w.len()];
    for i in range {
        let s = sigmoid(k * d.eval(w, i));
        let e = 2.0 * (s - target(d, i, k, lambda)) * s * (1.0 - s) * k;
        let (mg, eg) = (e * f64::from(d.mg_share[i]), e * f64::from(d.eg_share[i]));
        for &(idx, c) in &d.coeffs[d.starts[i] as usize..d.starts[i + 1] as usize] {
            let idx = usize::from(idx);
            g[2 * idx] += mg * f64::from(c);
            g[2 * idx + 1] += eg * f64::from(c);
        }
    }
    g
}

/// Runs Adam for `settings.epochs` full passes; calls `progress` with
/// (epoch, loss) every few epochs. Returns the weights.
pub fn tune(
    d: &Data,
    mut w: Vec<f64>,
    k: f64,
    settings: Settings,
    progress: &mut dyn FnMut(usize, f64),
) -> Vec<f64> {
    let n = d.len();
    let start = w.clone();
    let (mut m, mut v) = (vec![0.0; w.len()], vec![0.0; w.len()]);
    let (beta1, beta2, eps) = (0.9, 0.999, 1e-8);
    let threads = settings.threads.max(1);
    for epoch in 1..=settings.epochs {
        let chunk = n.div_ceil(threads);
        let parts: Vec<Vec<f64>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let w = &w;
                    s.spawn(move || {
                        gradient(
                            d,
                            w,
                            k,
                            settings.lambda,
                            t * chunk..((t + 1) * chunk).min(n),
                        )
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("gradient"))
                .collect()
        });
        for j in 2 * settings.frozen..w.len() {
            let g = parts.iter().map(|p| p[j]).sum::<f64>() / n.max(1) as f64
                + settings.l2 * (w[j] - start[j]);
            m[j] = beta1 * m[j] + (1.0 - beta1) * g;
            v[j] = beta2 * v[j] + (1.0 - beta2) * g * g;
            let mh = m[j] / (1.0 - beta1.powi(epoch as i32));
            let vh = v[j] / (1.0 - beta2.powi(epoch as i32));
            w[j] -= settings.learning_rate * mh / (vh.sqrt() + eps);
        }
        // The king has no material value; keep it at zero.
        let king = layout::MATERIAL + 5;
        w[2 * king] = 0.0;
        w[2 * king + 1] = 0.0;
        if epoch % 25 == 0 || epoch == settings.epochs {
            progress(epoch, loss(d, &w, k, settings.lambda));
        }
    }
    w
}

/// The weights as the Rust source of `src/eval/hce/weights.rs`.
pub fn weights_source(w: &[f64]) -> String {
    let mut out = String::from(
        "//! The evaluation weights, (middlegame, endgame) centipawns, in the\n\
         //! order of `layout.rs`. Written by `brudno tune` (see docs/training.md).\n\n\
         use super::Pair;\nuse super::layout::COUNT;\n\n\
         const fn p(mg: i32, eg: i32) -> Pair {\n    Pair { mg, eg }\n}\n\n\
         #[rustfmt::skip]\npub const WEIGHTS: [Pair; COUNT] = [\n",
    );
    for (name, start, len) in layout::NAMES {
        if len == 0 {
            continue;
        }
        // Writing to a String cannot fail.
        let _ = writeln!(out, "    // {name}");
        for row in (start..start + len).collect::<Vec<_>>().chunks(8) {
            out.push_str("   ");
            for &i in row {
                let _ = write!(
                    out,
                    " p({}, {}),",
                    w[2 * i].round() as i32,
                    w[2 * i + 1].round() as i32
                );
            }
            out.push('\n');
        }
    }
    out.push_str("];\n");
    out
}

impl Data {
    /// (score, result) of each position, for [`fit_wdl`].
    pub fn score_results(&self) -> Vec<(f64, f32)> {
        self.scores
            .iter()
            .zip(&self.results)
            .map(|(&s, &r)| (f64::from(s), r))
            .collect()
    }
}

/// Fits the WDL model's (a, b) to (score, result) pairs, both from one
/// side (White's in datagen files), by maximum likelihood over a grid.
/// Returns (a, b, mean log-loss).
pub fn fit_wdl(all: &[(f64, f32)]) -> (f64, f64, f64) {
    let step = (all.len() / 200_000).max(1);
    let samples: Vec<(f64, f32)> = all.iter().copied().step_by(step).collect();
    let mut best = (0.0, 0.0, f64::MAX);
    for a in (20..=400).step_by(10) {
        for b in (20..=300).step_by(10) {
            let (a, b) = (f64::from(a), f64::from(b));
            let mut nll = 0.0;
            for &(s, r) in &samples {
                let win = sigmoid((s - a) / b);
                let lose = sigmoid((-s - a) / b);
                let p = if r > 0.75 {
                    win
                } else if r < 0.25 {
                    lose
                } else {
                    1.0 - win - lose
                };
                nll -= p.max(1e-9).ln();
            }
            let nll = nll / samples.len().max(1) as f64;
            if nll < best.2 {
                best = (a, b, nll);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!("../tests/data/sample.txt");

    #[test]
    fn tuning_lowers_the_loss_on_the_sample() {
        let d = Data::parse(SAMPLE, usize::MAX);
        assert!(d.len() > 1000, "{}", d.len());
        let w = initial_weights();
        let k = fit_k(&d, &w);
        assert!(k > 0.0005 && k < 0.02, "{k}");
        let before = loss(&d, &w, k, 0.5);
        let settings = Settings {
            epochs: 50,
            lambda: 0.5,
            learning_rate: 2.0,
            threads: 2,
            frozen: 0,
            l2: 0.0,
        };
        let tuned = tune(&d, w, k, settings, &mut |_, _| {});
        let after = loss(&d, &tuned, k, 0.5);
        assert!(after < before * 0.98, "{before} -> {after}");
        // The source it writes has every weight.
        let source = weights_source(&tuned);
        let table = source.split("= [").nth(1).unwrap();
        assert_eq!(table.matches(" p(").count(), layout::COUNT);
    }

    #[test]
    fn the_wdl_fit_finds_the_model_that_made_the_results() {
        // Results drawn from a = 200, b = 120 at scores from -600 to 600.
        let mut x: u64 = 99;
        let mut unit = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let samples: Vec<(f64, f32)> = (0..60_000)
            .map(|i| {
                let s = f64::from(i % 1201 - 600);
                let (win, loss) = (sigmoid((s - 200.0) / 120.0), sigmoid((-s - 200.0) / 120.0));
                let u = unit();
                let r = if u < win {
                    1.0
                } else if u < win + loss {
                    0.0
                } else {
                    0.5
                };
                (s, r)
            })
            .collect();
        let (a, b, _) = fit_wdl(&samples);
        assert!(
            (180.0..=220.0).contains(&a) && (100.0..=140.0).contains(&b),
            "{a} {b}"
        );
    }

    #[test]
    fn the_evaluation_agrees_with_the_trace_model() {
        // The linear model the tuner descends is the engine's evaluation.
        let d = Data::parse(SAMPLE, 200);
        let w = initial_weights();
        for (i, line) in SAMPLE.lines().take(200).enumerate() {
            let fen = line.split('|').next().unwrap().trim();
            let pos = crate::board::test_position(fen);
            let white = match shakmaty::Position::turn(&pos) {
                shakmaty::Color::White => eval::evaluate(&pos),
                shakmaty::Color::Black => -eval::evaluate(&pos),
            };
            assert!((d.eval(&w, i) - f64::from(white)).abs() <= 2.0, "{fen}");
        }
    }
}
