//! The evaluation the search calls: a dispatcher between the network
//! (`nnue`, the default) and the handcrafted evaluation ([`hce`]), chosen
//! by name ([`Evaluation`]). Each search thread owns an [`Evaluator`], told
//! of every move and null move the search makes, so that both keep their
//! incremental state (accumulators, piece-square sums) by ply.

pub mod hce;

use std::sync::Arc;

use shakmaty::{Color, Move};

use crate::board::Board;
use crate::nnue::Network;
use crate::nnue::accumulator::Accumulators;
use crate::score::MAX_PLY;

/// Which evaluation a search uses.
#[derive(Clone, Debug)]
pub enum Evaluation {
    /// A network: the built-in one or an `EvalFile`.
    Network(Arc<Network>),
    /// The handcrafted evaluation.
    Handcrafted,
}

impl Evaluation {
    /// The network built into the binary.
    pub fn built_in() -> Evaluation {
        Evaluation::Network(crate::nnue::embedded())
    }

    /// The network, if this is one.
    pub fn network(&self) -> Option<&Arc<Network>> {
        match self {
            Evaluation::Network(n) => Some(n),
            Evaluation::Handcrafted => None,
        }
    }
}

/// The evaluation a tool runs with, as its command line names it: the
/// network built into the binary (`built-in`), the handcrafted evaluation
/// (`hce`), or a network file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    BuiltIn,
    Handcrafted,
    File(String),
}

impl std::str::FromStr for Choice {
    type Err = String;

    fn from_str(text: &str) -> Result<Choice, String> {
        Ok(match text {
            "" => return Err("an empty name; use `hce` for the handcrafted evaluation".into()),
            "built-in" => Choice::BuiltIn,
            "hce" => Choice::Handcrafted,
            path => Choice::File(path.to_string()),
        })
    }
}

impl Choice {
    /// A short name: `gen4` for the built-in network, a file's stem, `hce`.
    pub fn stem(&self) -> String {
        match self {
            Choice::BuiltIn => crate::nnue::EMBEDDED_NAME
                .trim_end_matches(".nnue")
                .to_string(),
            Choice::Handcrafted => "hce".into(),
            Choice::File(path) => std::path::Path::new(path)
                .file_stem()
                .map_or_else(|| "net".into(), |s| s.to_string_lossy().into_owned()),
        }
    }

    /// What the choice is, for a record of who made some data: the name
    /// and, for a network, the checksum of its weights.
    pub fn describe(&self, evaluation: &Evaluation) -> String {
        match (self, evaluation.network()) {
            (Choice::BuiltIn, Some(n)) => format!(
                "{} (built-in) fnv {:016x}",
                crate::nnue::EMBEDDED_NAME,
                n.checksum()
            ),
            (Choice::File(path), Some(n)) => format!("{path} fnv {:016x}", n.checksum()),
            _ => "hce".into(),
        }
    }

    /// The evaluation chosen.
    ///
    /// # Errors
    /// When the file cannot be read as a network, saying why.
    pub fn load(&self) -> Result<Evaluation, String> {
        match self {
            Choice::BuiltIn => Ok(Evaluation::built_in()),
            Choice::Handcrafted => Ok(Evaluation::Handcrafted),
            Choice::File(path) => Network::load(path)
                .map(|n| Evaluation::Network(Arc::new(n)))
                .map_err(|e| format!("{path}: {e}")),
        }
    }
}

/// The largest static evaluation: below every tablebase and mate score.
pub const MAX_EVAL: i32 = crate::score::TB_WIN - MAX_PLY as i32 - 1;

/// A search thread's evaluation, with its incremental state by ply.
pub enum Evaluator {
    Network(Accumulators),
    Handcrafted(hce::Hce),
}

impl Evaluator {
    /// Plies a search may reach, and one more for the child of the last.
    const PLIES: usize = MAX_PLY + 2;

    pub fn new(evaluation: &Evaluation) -> Evaluator {
        match evaluation {
            Evaluation::Network(n) => Evaluator::Network(Accumulators::new(n.clone(), Self::PLIES)),
            Evaluation::Handcrafted => Evaluator::Handcrafted(hce::Hce::new(Self::PLIES)),
        }
    }

    /// The evaluation in use.
    pub fn evaluation(&self) -> Evaluation {
        match self {
            Evaluator::Network(a) => Evaluation::Network(a.network().clone()),
            Evaluator::Handcrafted(_) => Evaluation::Handcrafted,
        }
    }

    /// A new search from `board`.
    #[inline]
    pub fn new_root(&mut self, board: &Board) {
        match self {
            Evaluator::Network(a) => a.new_root(board.pos()),
            Evaluator::Handcrafted(h) => h.new_root(board.pos()),
        }
    }

    /// The search played `m` (by `us`) from the node at `ply`.
    #[inline]
    pub fn moved(&mut self, ply: usize, us: Color, m: Move) {
        match self {
            Evaluator::Network(a) => a.moved(ply, us, m),
            Evaluator::Handcrafted(h) => h.moved(ply, us, m),
        }
    }

    /// The search passed the turn (a null move) from the node at `ply`.
    #[inline]
    pub fn passed(&mut self, ply: usize) {
        match self {
            Evaluator::Network(a) => a.passed(ply),
            Evaluator::Handcrafted(h) => h.passed(ply),
        }
    }

    /// The evaluation of `board`, the search's node at `ply`, from its side
    /// to move.
    #[inline]
    pub fn evaluate(&mut self, board: &Board, ply: usize) -> i32 {
        match self {
            // A broken or hostile network can say anything: kept below the
            // tablebase and mate scores, and within the table's i16.
            Evaluator::Network(a) => a.evaluate(board.pos(), ply).clamp(-MAX_EVAL, MAX_EVAL),
            Evaluator::Handcrafted(h) => h.evaluate_at(board, ply),
        }
    }
}
