//! The quantised network, its file format and its forward pass.
//!
//! File format, version 3, all integers little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0–3 | magic `BRNN` |
//! | 4–7 | version (u32, 3) |
//! | 8–11 | hidden size H (u32, 1 to 4096) |
//! | 12–15 | output buckets B (u32, 1 to 16; see [`output_bucket`]) |
//! | 16–19 | flags (u32): bit 0, the inputs are king-mirrored (see [`super::features::mirror`]); other bits 0 |
//! | 20–27 | FNV-1a 64 checksum of the payload (u64) |
//! | 28– | payload: feature weights (768 × H i16, input by input), feature biases (H i16), output weights (B × 2H i16: by bucket, the side to move's half, then the other's), output biases (B i32) |
//!
//! Networks without flags are written as version 2, which has no flags
//! field (a 24-byte header), so their files stay as they were; version 1
//! (still read) has no bucket field either (a 20-byte header) and one
//! bucket. Feature weights and biases are scaled by `QA`, output weights by
//! `QB`, output biases by `QA × QB`.

use shakmaty::{Chess, Color, Position};

use super::features::{INPUTS, MAX_BUCKETS, active, output_bucket};
use super::simd::{self, MAX_OUTPUT_WEIGHT};
use super::{QA, QB, SCALE};

const MAGIC: &[u8; 4] = b"BRNN";
const VERSION: u32 = 3;
const HEADER: usize = 28;
const HEADER_V2: usize = 24;
const HEADER_V1: usize = 20;
/// Flag bit: the inputs are king-mirrored.
const KING_MIRRORED: u32 = 1;
const MAX_HIDDEN: usize = 4096;

/// A network ready to evaluate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    hidden: usize,
    /// `INPUTS × hidden`, the weights of input i at `i * hidden ..`.
    feature_weights: Vec<i16>,
    feature_biases: Vec<i16>,
    /// `buckets × 2 × hidden`, bucket b's at `b * 2 * hidden ..`.
    output_weights: Vec<i16>,
    /// One per bucket.
    output_biases: Vec<i32>,
    /// Whether each perspective's inputs are mirrored by its king's file.
    king_mirrored: bool,
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Network {
    /// A network from its parts (the trainer's quantised weights); the
    /// number of output biases is the number of buckets.
    ///
    /// # Errors
    /// When the parts do not fit together.
    pub fn new(
        feature_weights: Vec<i16>,
        feature_biases: Vec<i16>,
        output_weights: Vec<i16>,
        output_biases: Vec<i32>,
    ) -> Result<Network, String> {
        let hidden = feature_biases.len();
        let buckets = output_biases.len();
        if hidden == 0
            || hidden > MAX_HIDDEN
            || !(1..=MAX_BUCKETS).contains(&buckets)
            || feature_weights.len() != INPUTS * hidden
            || output_weights.len() != buckets * 2 * hidden
        {
            return Err(format!(
                "network parts do not fit: {} feature weights, {hidden} biases, {} output \
                 weights, {buckets} output biases",
                feature_weights.len(),
                output_weights.len()
            ));
        }
        if let Some(w) = output_weights
            .iter()
            .find(|w| w.unsigned_abs() > MAX_OUTPUT_WEIGHT.unsigned_abs())
        {
            return Err(format!(
                "output weight {w} is beyond ±{MAX_OUTPUT_WEIGHT} (the trainer clips at ±{})",
                (1.98 * QB as f32).round()
            ));
        }
        Ok(Network {
            hidden,
            feature_weights,
            feature_biases,
            output_weights,
            output_biases,
            king_mirrored: false,
        })
    }

    /// The same network, reading its inputs king-mirrored or not.
    #[must_use]
    pub fn with_king_mirror(mut self, on: bool) -> Network {
        self.king_mirrored = on;
        self
    }

    /// Whether each perspective's inputs are mirrored by its king's file.
    #[inline]
    pub fn king_mirrored(&self) -> bool {
        self.king_mirrored
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn buckets(&self) -> usize {
        self.output_biases.len()
    }

    /// A fingerprint of the weights (the FNV-1a checksum of the file's
    /// payload), to say which net made a data file.
    pub fn checksum(&self) -> u64 {
        fnv1a(&self.payload())
    }

    /// The weights as the file stores them, after its header.
    fn payload(&self) -> Vec<u8> {
        let mut payload = Vec::with_capacity(
            2 * (INPUTS + 1 + 2 * self.buckets()) * self.hidden + 4 * self.buckets(),
        );
        for w in self
            .feature_weights
            .iter()
            .chain(&self.feature_biases)
            .chain(&self.output_weights)
        {
            payload.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.output_biases {
            payload.extend_from_slice(&b.to_le_bytes());
        }
        payload
    }

    /// The file's bytes (version 3 with flags, else version 2).
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let mut bytes = Vec::with_capacity(HEADER + payload.len());
        bytes.extend_from_slice(MAGIC);
        let version: u32 = if self.king_mirrored { VERSION } else { 2 };
        bytes.extend_from_slice(&version.to_le_bytes());
        bytes.extend_from_slice(&(self.hidden as u32).to_le_bytes());
        bytes.extend_from_slice(&(self.buckets() as u32).to_le_bytes());
        if self.king_mirrored {
            bytes.extend_from_slice(&KING_MIRRORED.to_le_bytes());
        }
        bytes.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }

    /// The largest valid network file: `MAX_HIDDEN` neurons and
    /// `MAX_BUCKETS` buckets. Nothing longer is read.
    pub const MAX_FILE: usize = HEADER
        + 2 * (INPUTS * MAX_HIDDEN + MAX_HIDDEN + MAX_BUCKETS * 2 * MAX_HIDDEN)
        + 4 * MAX_BUCKETS;

    /// Reads the network file at `path`: only a regular file (a FIFO or a
    /// device such as `/dev/zero` would hang the engine or exhaust its
    /// memory), and at most [`Network::MAX_FILE`] bytes of it.
    ///
    /// # Errors
    /// Saying why the file cannot be used.
    pub fn load(path: &str) -> Result<Network, String> {
        use std::io::Read;
        let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
        if !meta.is_file() {
            return Err("not a regular file".into());
        }
        if meta.len() > Self::MAX_FILE as u64 {
            return Err(format!(
                "{} bytes is more than the largest network file ({} bytes)",
                meta.len(),
                Self::MAX_FILE
            ));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(Self::MAX_FILE as u64 + 1).read_to_end(&mut bytes))
            .map_err(|e| e.to_string())?;
        if bytes.len() > Self::MAX_FILE {
            return Err("the file grew past the largest network file while read".into());
        }
        Network::from_bytes(&bytes)
    }

    /// Reads a network file (version 3, 2 without flags, or 1 with one
    /// bucket).
    ///
    /// # Errors
    /// Saying what is wrong: not a network, another version, a size that
    /// does not match, or a checksum that does not (a damaged file).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        if bytes.len() < HEADER_V1 || &bytes[..4] != MAGIC {
            return Err("not a Brudno network file (no BRNN header)".into());
        }
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let version = word(4);
        let header = match version {
            1 => HEADER_V1,
            2 => HEADER_V2,
            VERSION => HEADER,
            _ => {
                return Err(format!(
                    "network file version {version}; this engine reads 1 to {VERSION}"
                ));
            }
        };
        if bytes.len() < header {
            return Err("the network file ends inside its header".into());
        }
        let buckets = if version == 1 { 1 } else { word(12) as usize };
        let flags = if version == VERSION { word(16) } else { 0 };
        if flags & !KING_MIRRORED != 0 {
            return Err(format!(
                "network flags {flags:#x}: this engine knows only bit 0 (king-mirrored inputs)"
            ));
        }
        let hidden = word(8) as usize;
        if hidden == 0 || hidden > MAX_HIDDEN {
            return Err(format!(
                "hidden size {hidden} is out of range 1 to {MAX_HIDDEN}"
            ));
        }
        if !(1..=MAX_BUCKETS).contains(&buckets) {
            return Err(format!(
                "{buckets} output buckets is out of range 1 to {MAX_BUCKETS}"
            ));
        }
        let payload = &bytes[header..];
        let weights = 2 * (INPUTS * hidden + hidden + buckets * 2 * hidden);
        let expected = weights + 4 * buckets;
        if payload.len() != expected {
            return Err(format!(
                "a network of {hidden} hidden neurons and {buckets} output buckets takes {} \
                 bytes, the file has {}",
                header + expected,
                bytes.len()
            ));
        }
        let checksum = u64::from_le_bytes(bytes[header - 8..header].try_into().expect("8 bytes"));
        if fnv1a(payload) != checksum {
            return Err("checksum mismatch: the network file is damaged".into());
        }
        let values: Vec<i16> = payload[..weights]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        let (fw, rest) = values.split_at(INPUTS * hidden);
        let (fb, ow) = rest.split_at(hidden);
        let biases = payload[weights..]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        Network::new(fw.to_vec(), fb.to_vec(), ow.to_vec(), biases)
            .map(|net| net.with_king_mirror(flags & KING_MIRRORED != 0))
    }

    /// The accumulator of `perspective`: biases plus the weights of every
    /// active input.
    pub fn refresh(&self, pos: &Chess, perspective: Color, acc: &mut [i16]) {
        acc.copy_from_slice(&self.feature_biases);
        for i in active(pos, perspective, self.king_mirrored) {
            self.update(acc, i, true);
        }
    }

    /// The weights of input `i`.
    #[inline]
    pub fn input(&self, i: usize) -> &[i16] {
        &self.feature_weights[i * self.hidden..(i + 1) * self.hidden]
    }

    /// Adds (`put`) or removes input `i` in an accumulator.
    #[inline]
    pub fn update(&self, acc: &mut [i16], i: usize, put: bool) {
        simd::add_or_sub(acc, self.input(i), put);
    }

    /// The output for two accumulators of a position with `pieces` pieces
    /// on the board, in centipawns for the side to move.
    #[inline]
    pub fn output(&self, us: &[i16], them: &[i16], pieces: usize) -> i32 {
        let bucket = output_bucket(pieces, self.buckets());
        let weights =
            &self.output_weights[bucket * 2 * self.hidden..(bucket + 1) * 2 * self.hidden];
        let (w_us, w_them) = weights.split_at(self.hidden);
        let sum = simd::screlu_dot(us, w_us) + simd::screlu_dot(them, w_them);
        // SCReLU squares QA: one QA comes off before the bias is added.
        let out = sum / i64::from(QA) + i64::from(self.output_biases[bucket]);
        (out * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// The evaluation of `pos` from the side to move, computed afresh.
    pub fn evaluate(&self, pos: &Chess) -> i32 {
        let mut us = vec![0; self.hidden];
        let mut them = vec![0; self.hidden];
        self.refresh(pos, pos.turn(), &mut us);
        self.refresh(pos, !pos.turn(), &mut them);
        self.output(&us, &them, pos.board().occupied().count())
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::board::test_position as pos;

    /// A small network with weights from a fixed sequence.
    pub fn sample(hidden: usize) -> Network {
        sample_with_buckets(hidden, 1)
    }

    /// The same with `buckets` output buckets.
    pub fn sample_with_buckets(hidden: usize, buckets: usize) -> Network {
        let mut x: u32 = 12345;
        let mut next = |range: i32| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            ((x >> 8) as i32 % (2 * range + 1) - range) as i16
        };
        let fw = (0..INPUTS * hidden).map(|_| next(40)).collect();
        let fb = (0..hidden).map(|_| next(60)).collect();
        let ow = (0..2 * hidden * buckets).map(|_| next(60)).collect();
        let biases = (0..buckets).map(|b| 300 - 100 * b as i32).collect();
        Network::new(fw, fb, ow, biases).unwrap()
    }

    #[test]
    fn files_round_trip_and_bad_ones_are_refused() {
        let net = sample(16);
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
        let refused = |b: &[u8]| Network::from_bytes(b).unwrap_err();
        assert!(refused(b"garbage").contains("BRNN"));
        assert!(refused(&bytes[..bytes.len() - 10]).contains("bytes"));
        let mut damaged = bytes.clone();
        damaged[100] ^= 1;
        assert!(refused(&damaged).contains("checksum"));
        let mut version = bytes.clone();
        version[4] = 9;
        assert!(refused(&version).contains("version"));
        let mut size = bytes.clone();
        size[8] = 17;
        assert!(refused(&size).contains("hidden"));
        let mut buckets = bytes;
        buckets[12] = 2;
        assert!(refused(&buckets).contains("2 output buckets takes"));
        buckets[12] = 40;
        assert!(refused(&buckets).contains("out of range"));
        assert!(refused(&buckets[..22]).contains("header"));
        // Buckets round-trip too.
        let bucketed = sample_with_buckets(8, 8);
        assert_eq!(Network::from_bytes(&bucketed.to_bytes()).unwrap(), bucketed);
        // Output weights the fast dot product cannot take.
        let big = Network::new(
            vec![0; INPUTS * 4],
            vec![0; 4],
            vec![0, 0, 0, 0, 0, 0, 0, 129],
            vec![0],
        );
        assert!(big.unwrap_err().contains("output weight 129"));
    }

    /// A king-mirrored network is written as version 3 with its flag and
    /// read back as one; a plain one keeps version 2; unknown flags are
    /// refused.
    #[test]
    fn king_mirrored_networks_are_version_3() {
        let plain = sample_with_buckets(8, 8);
        assert_eq!(plain.to_bytes()[4], 2);
        let mirrored = plain.clone().with_king_mirror(true);
        let bytes = mirrored.to_bytes();
        assert_eq!((bytes[4], bytes[16]), (3, 1));
        assert_eq!(bytes.len(), plain.to_bytes().len() + 4);
        let read = Network::from_bytes(&bytes).unwrap();
        assert!(read.king_mirrored());
        assert_eq!(read, mirrored);
        assert_eq!(mirrored.checksum(), plain.checksum());
        let mut unknown = bytes.clone();
        unknown[16] = 3;
        assert!(Network::from_bytes(&unknown).unwrap_err().contains("flags"));
        assert!(
            Network::from_bytes(&bytes[..26])
                .unwrap_err()
                .contains("header")
        );
        // The two read the same position differently (kings on g1 and g8).
        let pos = pos("6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1");
        assert_ne!(plain.evaluate(&pos), mirrored.evaluate(&pos));
    }

    /// A version 1 file (no bucket field) reads as one bucket.
    #[test]
    fn version_1_files_still_load() {
        let net = sample(16);
        let v2 = net.to_bytes();
        let mut v1 = Vec::new();
        v1.extend_from_slice(MAGIC);
        v1.extend_from_slice(&1u32.to_le_bytes());
        v1.extend_from_slice(&v2[8..12]);
        v1.extend_from_slice(&v2[16..]);
        assert_eq!(Network::from_bytes(&v1).unwrap(), net);
        assert_eq!(Network::from_bytes(&v1).unwrap().buckets(), 1);
    }

    /// Each bucket has its own output: a position evaluates with the
    /// bucket of its piece count.
    #[test]
    fn the_piece_count_chooses_the_bucket() {
        let net = sample_with_buckets(16, 8);
        let full = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let bare = pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        let mut us = vec![0; 16];
        let mut them = vec![0; 16];
        for p in [&full, &bare] {
            net.refresh(p, p.turn(), &mut us);
            net.refresh(p, !p.turn(), &mut them);
            let n = p.board().occupied().count();
            assert_eq!(net.evaluate(p), net.output(&us, &them, n));
            assert_ne!(net.output(&us, &them, n), net.output(&us, &them, 34 - n));
        }
    }

    #[test]
    fn a_colour_mirrored_position_evaluates_alike() {
        let net = sample(32);
        let white = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1");
        let black = pos("r3k2r/pppbbppp/2n2q1P/1P2p3/3pn3/BN2PNP1/P1PPQPB1/R3K2R b - - 0 1");
        assert_eq!(net.evaluate(&white), net.evaluate(&black));
        assert_ne!(net.evaluate(&white), 0);
    }
}
