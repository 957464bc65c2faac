//! `brudno train`: fits a network to packed self-play positions on the
//! CPU, then quantises it into a network file.
//!
//! The net's raw output `out` is read as `SCALE × out` centipawns, and the
//! loss is the squared error of sigmoid(out) against a blend of the game
//! result and sigmoid(score / SCALE) (`wdl` is the result's weight). The
//! positions are filtered ([`Packed::trainable`]); a share of the games is
//! kept back whole for validation (positions of one game are alike, so a
//! game split between the sets would flatter the validation loss); the
//! rest is shuffled once, and `AdamW` fits it in batches split over
//! threads, with weight decay on the weights but not the biases. The
//! learning rate falls by a cosine schedule to a floor.

use std::time::Instant;

use shakmaty::Role;

use crate::data::Positions;
use crate::data::packed::Packed;
use crate::nnue::features::{INPUTS, index_packed, kind, mirror, output_bucket};
use crate::nnue::{Network, QA, QB, SCALE};

/// How to train.
#[derive(Clone, Debug)]
pub struct Settings {
    pub hidden: usize,
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    /// The learning rate's floor, a share of `lr`.
    pub lr_floor: f32,
    /// Weight of the game result in the target (the rest is the score).
    pub wdl: f32,
    pub threads: usize,
    pub seed: u64,
    /// Share of the games kept back for validation.
    pub validation: f32,
    /// Mirror each training position left to right, at random each epoch.
    pub mirror: bool,
    /// Output buckets by the number of pieces ([`output_bucket`]).
    pub buckets: usize,
    /// King-mirrored inputs (see [`crate::nnue::features::mirror`]).
    pub king_mirror: bool,
}

/// Feature weights are kept within this so that accumulators of up to
/// 32 inputs stay inside i16 once scaled by `QA`, and output weights so
/// that they stay within the engine's ±128 once scaled by `QB`.
const WEIGHT_CLIP: f32 = 1.98;
const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;
const WEIGHT_DECAY: f32 = 0.01;

/// The float network the trainer fits.
#[derive(Clone, Debug)]
pub struct FloatNet {
    pub hidden: usize,
    pub buckets: usize,
    /// Feature weights (`INPUTS × hidden`), biases (`hidden`), output
    /// weights (`buckets × 2 × hidden`) and the output biases (`buckets`),
    /// in one vector.
    pub params: Vec<f32>,
    /// Whether the inputs are king-mirrored.
    pub king_mirrored: bool,
}

/// One position as the trainer uses it.
#[derive(Clone, Copy)]
struct Sample {
    record: Packed,
    target: f32,
    /// 7 to see the board mirrored left to right (files a↔h), else 0.
    flip: u8,
    /// The output bucket (from the piece count).
    bucket: u8,
    /// The game the position comes from (the tests check the split by it).
    #[cfg_attr(not(test), allow(dead_code))]
    game: u32,
}

/// The (side to move's, other side's) inputs of a record, with its
/// squares' files mirrored when `flip` is 7. Chess is symmetric left to
/// right but for castling, which the inputs do not show, so a mirrored
/// position is a new position with the same evaluation. With
/// `king_mirrored`, each perspective then mirrors by its own king's file.
fn inputs(r: &Packed, flip: u8, king_mirrored: bool) -> impl Iterator<Item = (usize, usize)> + '_ {
    // Each side's mirror, by its king: (colour << 3 | kind), colour 0 the
    // side to move's, as `index_packed` reads it.
    let mut mirrors = [0u8; 2];
    if king_mirrored {
        for (piece, sq) in r.pieces() {
            if piece & 7 == kind(Role::King) {
                let sq = shakmaty::Square::new(u32::from(u8::from(sq) ^ flip));
                mirrors[usize::from(piece >> 3)] = mirror(true, sq);
            }
        }
    }
    let [ours, theirs] = mirrors;
    r.pieces().map(move |(piece, sq)| {
        let sq = u8::from(sq) ^ flip;
        (
            index_packed(piece, sq, true, ours),
            index_packed(piece, sq, false, theirs),
        )
    })
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

impl FloatNet {
    /// Small random weights (He-style for the feature layer).
    pub fn random(hidden: usize, buckets: usize, seed: u64, king_mirrored: bool) -> FloatNet {
        let mut rng = Rng(seed);
        let mut params = vec![0.0; INPUTS * hidden + hidden + buckets * (2 * hidden + 1)];
        let ft = 1.0 / (32.0f32).sqrt();
        let out = 1.0 / (2.0 * hidden as f32).sqrt();
        for (i, p) in params.iter_mut().enumerate() {
            let range = if i < INPUTS * hidden {
                ft
            } else if i < INPUTS * hidden + hidden {
                0.0
            } else {
                out
            };
            *p = (rng.unit() * 2.0 - 1.0) * range;
        }
        FloatNet {
            hidden,
            buckets,
            params,
            king_mirrored,
        }
    }

    /// (feature weights, feature biases, output weights, output biases).
    fn split(&self) -> (&[f32], &[f32], &[f32], &[f32]) {
        let h = self.hidden;
        let (fw, rest) = self.params.split_at(INPUTS * h);
        let (fb, rest) = rest.split_at(h);
        let (ow, ob) = rest.split_at(self.buckets * 2 * h);
        (fw, fb, ow, ob)
    }

    /// The raw output for a packed record (side to move's view), with the
    /// two accumulators left in `acc` for the backward pass.
    fn forward(&self, r: &Packed, flip: u8, bucket: usize, acc: &mut [f32]) -> f32 {
        let h = self.hidden;
        let (fw, fb, ow, ob) = self.split();
        let (ow, ob) = (&ow[bucket * 2 * h..(bucket + 1) * 2 * h], ob[bucket]);
        let (us, them) = acc.split_at_mut(h);
        us.copy_from_slice(fb);
        them.copy_from_slice(fb);
        for (i, j) in inputs(r, flip, self.king_mirrored) {
            for (a, w) in us.iter_mut().zip(&fw[i * h..(i + 1) * h]) {
                *a += w;
            }
            for (a, w) in them.iter_mut().zip(&fw[j * h..(j + 1) * h]) {
                *a += w;
            }
        }
        let screlu = |x: f32| {
            let c = x.clamp(0.0, 1.0);
            c * c
        };
        let (ow_us, ow_them) = ow.split_at(h);
        let s_us: f32 = us.iter().zip(ow_us).map(|(&a, &w)| screlu(a) * w).sum();
        let s_them: f32 = them.iter().zip(ow_them).map(|(&a, &w)| screlu(a) * w).sum();
        s_us + s_them + ob
    }

    /// The evaluation in centipawns for the side to move of a record.
    #[cfg(test)]
    pub fn evaluate(&self, r: &Packed) -> f32 {
        let mut acc = vec![0.0; 2 * self.hidden];
        let bucket = output_bucket(r.occ.count_ones() as usize, self.buckets);
        self.forward(r, 0, bucket, &mut acc) * SCALE as f32
    }

    /// Adds the loss's gradient for one sample to `grad`; returns the loss.
    fn backward(&self, sample: &Sample, acc: &mut [f32], grad: &mut [f32]) -> f32 {
        let h = self.hidden;
        let bucket = usize::from(sample.bucket);
        let out = self.forward(&sample.record, sample.flip, bucket, acc);
        let pred = sigmoid(out);
        let err = pred - sample.target;
        let g = 2.0 * err * pred * (1.0 - pred);
        let (_, _, ow, _) = self.split();
        let ow = &ow[bucket * 2 * h..(bucket + 1) * 2 * h];
        let (gfw, rest) = grad.split_at_mut(INPUTS * h);
        let (gfb, rest) = rest.split_at_mut(h);
        let (gow, gob) = rest.split_at_mut(self.buckets * 2 * h);
        let gow = &mut gow[bucket * 2 * h..(bucket + 1) * 2 * h];
        gob[bucket] += g;
        // The gradient at each accumulator, left in `acc`.
        for j in 0..2 * h {
            let a = acc[j];
            let c = a.clamp(0.0, 1.0);
            gow[j] += g * c * c;
            acc[j] = if a > 0.0 && a < 1.0 {
                g * ow[j] * 2.0 * a
            } else {
                0.0
            };
        }
        let (d_us, d_them) = acc.split_at(h);
        for j in 0..h {
            gfb[j] += d_us[j] + d_them[j];
        }
        for (i, j) in inputs(&sample.record, sample.flip, self.king_mirrored) {
            for (gw, d) in gfw[i * h..(i + 1) * h].iter_mut().zip(d_us) {
                *gw += d;
            }
            for (gw, d) in gfw[j * h..(j + 1) * h].iter_mut().zip(d_them) {
                *gw += d;
            }
        }
        err * err
    }

    /// Mean loss over `samples`.
    fn loss(&self, samples: &[Sample], threads: usize) -> f32 {
        if samples.is_empty() {
            return 0.0;
        }
        let chunk = samples.len().div_ceil(threads.max(1));
        let total: f64 = std::thread::scope(|scope| {
            let handles: Vec<_> = samples
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        let mut acc = vec![0.0; 2 * self.hidden];
                        part.iter()
                            .map(|s| {
                                let out = self.forward(
                                    &s.record,
                                    s.flip,
                                    usize::from(s.bucket),
                                    &mut acc,
                                );
                                let e = sigmoid(out) - s.target;
                                f64::from(e * e)
                            })
                            .sum::<f64>()
                    })
                })
                .collect();
            handles.into_iter().map(join).sum()
        });
        (total / samples.len() as f64) as f32
    }

    /// Rounds into the engine's network.
    ///
    /// # Errors
    /// When a weight does not fit its integer after scaling.
    pub fn quantise(&self) -> Result<Network, String> {
        let (fw, fb, ow, ob) = self.split();
        if let Some(at) = self.params.iter().position(|x| !x.is_finite()) {
            return Err(format!(
                "parameter {at} is {}: the training diverged",
                self.params[at]
            ));
        }
        let round = |x: f32, scale: i32, what: &str| -> Result<i16, String> {
            let v = (x * scale as f32).round();
            if v.abs() > f32::from(i16::MAX) {
                Err(format!("{what} {x} overflows i16 once scaled by {scale}"))
            } else {
                Ok(v as i16)
            }
        };
        let fw = fw
            .iter()
            .map(|&x| round(x, QA, "a feature weight"))
            .collect::<Result<_, _>>()?;
        let fb = fb
            .iter()
            .map(|&x| round(x, QA, "a feature bias"))
            .collect::<Result<_, _>>()?;
        let ow = ow
            .iter()
            .map(|&x| round(x, QB, "an output weight"))
            .collect::<Result<_, _>>()?;
        let ob = ob
            .iter()
            .map(|&b| {
                let v = (f64::from(b) * f64::from(QA * QB)).round();
                if v.abs() > f64::from(i32::MAX) {
                    Err(format!("an output bias {b} overflows i32 once scaled"))
                } else {
                    Ok(v as i32)
                }
            })
            .collect::<Result<_, _>>()?;
        Network::new(fw, fb, ow, ob).map(|net| net.with_king_mirror(self.king_mirrored))
    }
}

/// A thread's result, or its panic carried on (a worker's failure must
/// not pass as a loss of zero).
fn join<T>(h: std::thread::ScopedJoinHandle<'_, T>) -> T {
    h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// Whether game `game` is kept back for validation: a fixed share of the
/// games, chosen by a hash of the game's number and the seed.
fn held_back(game: u32, settings: &Settings) -> bool {
    let mut rng = Rng(settings.seed ^ u64::from(game).wrapping_mul(0x2545_f491_4f6c_dd1d));
    rng.unit() < settings.validation
}

/// The training set: trainable positions, split by game into (training,
/// validation), the training part shuffled.
fn samples(positions: &Positions, settings: &Settings) -> (Vec<Sample>, Vec<Sample>) {
    let (mut training, mut validation) = (Vec::new(), Vec::new());
    for (record, &game) in positions.records.iter().zip(&positions.games) {
        if !record.trainable() {
            continue;
        }
        let score = sigmoid(f32::from(record.score) / SCALE as f32);
        let result = f32::from(record.result) / 2.0;
        let sample = Sample {
            record: *record,
            target: settings.wdl * result + (1.0 - settings.wdl) * score,
            flip: 0,
            bucket: output_bucket(record.occ.count_ones() as usize, settings.buckets) as u8,
            game,
        };
        if held_back(game, settings) {
            validation.push(sample);
        } else {
            training.push(sample);
        }
    }
    // Unshuffled data (whole games in order) trains badly: shuffle once.
    let mut rng = Rng(settings.seed ^ 0x5eed);
    for i in (1..training.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        training.swap(i, j);
    }
    (training, validation)
}

/// Progress of a run: after each epoch, (epoch, training loss, validation
/// loss, positions a second, the net so far); an error ends the run.
pub type Progress<'a> = dyn FnMut(usize, f32, f32, f64, &FloatNet) -> Result<(), String> + 'a;

/// Quantises `net` and writes it to `path` (beside it first, then renamed
/// over it, so that a failure never leaves a damaged or empty file where a
/// good checkpoint was).
///
/// # Errors
/// When the net cannot be quantised (weights not finite or out of range)
/// or the file cannot be written.
pub fn save(net: &FloatNet, path: &str) -> Result<(), String> {
    let q = net
        .quantise()
        .map_err(|e| format!("cannot quantise the network: {e}; {path} is left as it was"))?;
    let temporary = format!("{path}.new");
    std::fs::write(&temporary, q.to_bytes())
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| format!("cannot write {path}: {e}"))
}

/// Trains a network on `positions`.
///
/// # Errors
/// When there are no trainable positions, the loss stops being finite, or
/// `progress` fails.
pub fn train(
    positions: &Positions,
    settings: &Settings,
    progress: &mut Progress,
) -> Result<(FloatNet, f32, f32), String> {
    let (mut training, validation) = samples(positions, settings);
    if training.is_empty() {
        return Err("no trainable positions".into());
    }
    let mut net = FloatNet::random(
        settings.hidden,
        settings.buckets,
        settings.seed,
        settings.king_mirror,
    );
    let n = net.params.len();
    let (mut m, mut v) = (vec![0.0f32; n], vec![0.0f32; n]);
    let batch = settings.batch.max(1);
    let steps_per_epoch = training.len().div_ceil(batch);
    let total_steps = (steps_per_epoch * settings.epochs).max(1);
    let threads = settings.threads.max(1);
    let mut grads: Vec<Vec<f32>> = (0..threads).map(|_| vec![0.0; n]).collect();
    let ft = INPUTS * settings.hidden;
    let mut step: i32 = 0;
    let (mut train_loss, mut val_loss) = (0.0, net.loss(&validation, threads));
    let mut mirror_rng = Rng(settings.seed ^ 0x000f_11e5);
    let output = INPUTS * settings.hidden + settings.hidden;
    let biases = output + settings.buckets * 2 * settings.hidden;
    for epoch in 1..=settings.epochs {
        let start = Instant::now();
        if settings.mirror {
            for s in &mut training {
                s.flip = if mirror_rng.next() & 1 == 1 { 7 } else { 0 };
            }
        }
        let mut epoch_loss = 0.0f64;
        for chunk in training.chunks(batch) {
            let part = chunk.len().div_ceil(threads);
            let net_ref = &net;
            let losses: Vec<f64> = std::thread::scope(|scope| {
                let handles: Vec<_> = grads
                    .iter_mut()
                    .zip(chunk.chunks(part))
                    .map(|(g, samples)| {
                        scope.spawn(move || {
                            g.fill(0.0);
                            let mut acc = vec![0.0; 2 * net_ref.hidden];
                            samples
                                .iter()
                                .map(|s| f64::from(net_ref.backward(s, &mut acc, g)))
                                .sum::<f64>()
                        })
                    })
                    .collect();
                handles.into_iter().map(join).collect()
            });
            epoch_loss += losses.iter().sum::<f64>();
            let used = chunk.len().div_ceil(part);
            let (first, rest) = grads.split_at_mut(1);
            for other in rest.iter().take(used - 1) {
                for (a, b) in first[0].iter_mut().zip(other.iter()) {
                    *a += b;
                }
            }
            // AdamW with a cosine schedule.
            step += 1;
            let progress_share = step as f32 / total_steps as f32;
            let cosine = 0.5 * (1.0 + (std::f32::consts::PI * progress_share).cos());
            let lr = settings.lr * (settings.lr_floor + (1.0 - settings.lr_floor) * cosine);
            let (b1t, b2t) = (1.0 - BETA1.powi(step), 1.0 - BETA2.powi(step));
            let scale = 1.0 / chunk.len() as f32;
            for (i, ((p, g), (m, v))) in net
                .params
                .iter_mut()
                .zip(&first[0])
                .zip(m.iter_mut().zip(v.iter_mut()))
                .enumerate()
            {
                let g = g * scale;
                *m = BETA1 * *m + (1.0 - BETA1) * g;
                *v = BETA2 * *v + (1.0 - BETA2) * g * g;
                // Weights decay and are clipped; biases do neither.
                let weight = i < ft || (output..biases).contains(&i);
                let decay = if weight { WEIGHT_DECAY * *p } else { 0.0 };
                *p -= lr * ((*m / b1t) / ((*v / b2t).sqrt() + EPSILON) + decay);
                if weight {
                    *p = p.clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
                }
            }
        }
        train_loss = (epoch_loss / training.len() as f64) as f32;
        val_loss = net.loss(&validation, threads);
        if !train_loss.is_finite() || !val_loss.is_finite() {
            return Err(format!(
                "epoch {epoch}: the loss is {train_loss} (validation {val_loss}); the training \
                 diverged (try a lower --lr)"
            ));
        }
        let rate = training.len() as f64 / start.elapsed().as_secs_f64();
        progress(epoch, train_loss, val_loss, rate, &net)?;
    }
    Ok((net, train_loss, val_loss))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_data() -> Positions {
        let mut positions = Positions::default();
        positions
            .read(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/sample.txt"
            ))
            .unwrap();
        positions
    }

    fn settings(epochs: usize) -> Settings {
        Settings {
            hidden: 16,
            epochs,
            batch: 256,
            lr: 0.01,
            lr_floor: 0.0,
            wdl: 0.3,
            threads: 2,
            seed: 1,
            validation: 0.1,
            mirror: false,
            buckets: 1,
            king_mirror: false,
        }
    }

    #[test]
    fn a_tiny_net_learns_the_sample_within_seconds() {
        let bytes = sample_data();
        let mut first = None;
        let (_, train_loss, val_loss) = train(&bytes, &settings(8), &mut |epoch, t, _, _, _| {
            if epoch == 1 {
                first = Some(t);
            }
            Ok(())
        })
        .unwrap();
        let first = first.unwrap();
        assert!(train_loss < first * 0.9, "{first} -> {train_loss}");
        assert!(val_loss < 0.05, "{val_loss}");
    }

    #[test]
    fn a_mirrored_record_is_the_mirrored_position() {
        let net = FloatNet::random(16, 1, 3, false);
        let mut acc = vec![0.0; 32];
        let record = |fen: &str| Packed::new(&crate::board::test_position(fen), 0, 1, 40, 0);
        let (a, b) = (
            record("4k3/1pp2n2/8/3P4/8/2N5/PP6/1K1R4 w - - 0 1"),
            record("3k4/2n2pp1/8/4P3/8/5N2/6PP/4R1K1 w - - 0 1"),
        );
        let mirrored = net.forward(&a, 7, 0, &mut acc);
        assert!((mirrored - net.forward(&b, 0, 0, &mut acc)).abs() < 1e-5);
        assert!((mirrored - net.forward(&a, 0, 0, &mut acc)).abs() > 1e-5);
        // A king-mirrored net sees a position and its mirror image alike
        // (here both kings cross: b1 to g1 and e8 to d8).
        let net = FloatNet::random(16, 1, 3, true);
        let plain = net.forward(&a, 0, 0, &mut acc);
        assert!((plain - net.forward(&b, 0, 0, &mut acc)).abs() < 1e-5);
        assert!((plain - net.forward(&a, 7, 0, &mut acc)).abs() < 1e-5);
    }

    #[test]
    fn the_quantised_net_evaluates_as_the_float_net_does() {
        for (buckets, king_mirror) in [(1, false), (8, false), (8, true)] {
            quantised_matches_float(buckets, king_mirror);
        }
    }

    /// The trainer (inputs from packed records) and the engine (inputs
    /// from the board, through a saved file) evaluate alike: the same
    /// indexing, the same mirroring, the same scales.
    fn quantised_matches_float(buckets: usize, king_mirror: bool) {
        let bytes = sample_data();
        let settings = Settings {
            buckets,
            king_mirror,
            ..settings(3)
        };
        let (net, _, _) = train(&bytes, &settings, &mut |_, _, _, _, _| Ok(())).unwrap();
        assert_eq!(net.buckets, buckets);
        let quantised = Network::from_bytes(&net.quantise().unwrap().to_bytes()).unwrap();
        assert_eq!(quantised.king_mirrored(), king_mirror);
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/sample.txt"
        ))
        .unwrap();
        let (mut worst, mut total) = (0.0f32, 0.0f32);
        for line in text.lines().take(200) {
            let fen = line.split('|').next().unwrap().trim();
            let pos = crate::board::test_position(fen);
            let record = Packed::new(&pos, 0, 1, 40, 0);
            let float = net.evaluate(&record);
            let int = quantised.evaluate(&pos) as f32;
            worst = worst.max((float - int).abs());
            total += (float - int).abs();
        }
        // Rounding each weight to 1/255 or 1/64 moves an evaluation by a few
        // centipawns; a wrong scale or index would move it by hundreds.
        let mean = total / 200.0;
        assert!(
            mean <= 3.0 && worst <= 12.0,
            "{buckets} buckets, king mirror {king_mirror}: quantised and float evaluations \
             differ by {mean} cp on average, {worst} at most"
        );
    }

    #[test]
    fn weights_that_are_not_finite_are_refused_and_leave_the_checkpoint_alone() {
        let dir = std::env::temp_dir().join(format!("brudno-train-nan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("net.nnue").to_string_lossy().into_owned();
        let good = FloatNet::random(16, 1, 5, false);
        save(&good, &path).unwrap();
        let before = std::fs::read(&path).unwrap();
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let mut net = good.clone();
            net.params[INPUTS * 16 + 3] = bad;
            let e = net.quantise().unwrap_err();
            assert!(e.contains("not") || e.contains("diverged"), "{e}");
            assert!(save(&net, &path).is_err());
            assert_eq!(
                std::fs::read(&path).unwrap(),
                before,
                "{bad}: the checkpoint changed"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_validation_set_shares_no_game_with_the_training_set() {
        // Three games of sixty plies each, many times over.
        let start =
            crate::board::test_position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 9");
        let mut positions = Positions::default();
        for _ in 0..200 {
            let records: Vec<Packed> = (0..60)
                .map(|i| Packed::new(&start, 0, 1, 16 + i, 0))
                .collect();
            positions.push_records(&records);
        }
        assert_eq!(positions.game_count, 200);
        let settings = Settings {
            validation: 0.25,
            ..settings(1)
        };
        let (training, validation) = samples(&positions, &settings);
        let held: std::collections::HashSet<u32> = validation.iter().map(|s| s.game).collect();
        assert!(
            (25..=75).contains(&held.len()),
            "{} of 200 games held back",
            held.len()
        );
        assert_eq!(
            validation.len(),
            held.len() * 60,
            "held-back games are whole"
        );
        assert!(training.iter().all(|s| !held.contains(&s.game)));
        assert_eq!(training.len() + validation.len(), 200 * 60);
    }
}
