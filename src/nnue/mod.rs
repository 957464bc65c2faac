//! The neural network evaluation (NNUE): a perspective network
//! (768 → H) × 2 → 1 with `SCReLU`, in i16 weights.
//!
//! - `features`: the one map from (perspective, piece, square) to an input,
//!   shared by the engine and the trainer so they can never disagree;
//! - `network`: the quantised network, its file format and its forward pass;
//! - `accumulator`: the accumulators by ply, updated from the parent's by
//!   the inputs a move changes;
//! - `simd`: the inner loops, vectorised by the compiler, with AVX2 copies
//!   chosen at run time on builds that do not assume it.
//!
//! Quantisation (published practice): the feature transformer's weights
//! and biases are scaled by `QA` = 255, the output weights by `QB` = 64, and
//! the output is read as `SCALE` = 400 centipawns per unit.

pub mod accumulator;
pub mod features;
pub mod network;
pub mod simd;

pub use network::Network;

use std::sync::{Arc, OnceLock};

/// The name `EvalFile` gives the network built into the binary: the best
/// generation so far (see `docs/nets.md`).
pub const EMBEDDED_NAME: &str = "gen4.nnue";
const EMBEDDED_BYTES: &[u8] = include_bytes!("../../nets/gen4.nnue");

/// The network built into the binary, read once.
pub fn embedded() -> Arc<Network> {
    static NET: OnceLock<Arc<Network>> = OnceLock::new();
    NET.get_or_init(|| {
        Arc::new(Network::from_bytes(EMBEDDED_BYTES).expect("the embedded network is valid"))
    })
    .clone()
}

/// Feature-transformer quantisation: 1.0 is stored as 255.
pub const QA: i32 = 255;
/// Output-layer quantisation: 1.0 is stored as 64.
pub const QB: i32 = 64;
/// Centipawns per unit of the network's output.
pub const SCALE: i32 = 400;

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_network_loads() {
        // Generation 4: H 128, eight output buckets, king-mirrored inputs.
        assert_eq!(super::embedded().hidden(), 128);
        assert_eq!(super::embedded().buckets(), 8);
        assert!(super::embedded().king_mirrored());
    }
}
