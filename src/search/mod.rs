//! The search: iterative deepening with aspiration windows at the root
//! (this file), the PVS core and quiescence (`pvs`), and beside them move
//! ordering, history tables and SEE.
//!
//! The search knows nothing of UCI text: it reports each finished iteration
//! through a callback as an [`Iteration`] and returns an [`Outcome`].

mod history;
mod ordering;
pub mod params;
mod pvs;
pub mod see;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use shakmaty::{Move, Position};

use crate::board::Board;
use crate::score::{INFINITY, MAX_PLY, is_mate, mate_in_moves};
use crate::tt::{Bound, PackedMove, Tt};
use history::History;
use params::{ASPIRATION_DELTA, ASPIRATION_MIN_DEPTH};

/// What limits a search, apart from the clock.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Deepest iteration to run.
    pub depth: Option<i32>,
    /// Stop once this many nodes have been searched.
    pub nodes: Option<u64>,
    /// Stop once a mate in at most this many moves is found.
    pub mate: Option<i32>,
    /// Search only these root moves (all legal moves when empty).
    pub searchmoves: Vec<Move>,
}

/// Shared between the thread that searches and the ones that stop it.
#[derive(Debug)]
pub struct Control {
    /// Raised to abort the search at once (hard limit, `stop`, `quit`);
    /// shared with the clock thread, which sees nothing else.
    pub stop: Arc<AtomicBool>,
    /// Milliseconds after `start` past which no new iteration begins;
    /// `u64::MAX` for none (infinite, ponder, depth-limited searches).
    pub soft_ms: AtomicU64,
    /// When the search was asked for.
    pub start: Instant,
}

impl Control {
    pub fn new(start: Instant, soft: Option<Duration>) -> Control {
        let soft_ms = soft.map_or(u64::MAX, |d| d.as_millis() as u64);
        Control {
            stop: Arc::new(AtomicBool::new(false)),
            soft_ms: AtomicU64::new(soft_ms),
            start,
        }
    }

    fn past_soft_limit(&self) -> bool {
        self.start.elapsed().as_millis() as u64 >= self.soft_ms.load(Relaxed)
    }
}

/// One finished (or aspiration-failed) iteration, for the front end.
#[derive(Clone, Debug)]
pub struct Iteration {
    pub depth: i32,
    pub seldepth: usize,
    pub score: i32,
    /// `None` for an exact score; a bound when the aspiration window failed.
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub elapsed: Duration,
    pub hashfull: u32,
    pub pv: Vec<Move>,
}

/// The result of a search.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// `None` only when there is no legal move.
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
}

/// The per-thread search state. Kept between searches so history carries over.
pub struct Searcher {
    tt: Arc<Tt>,
    history: History,
    control: Arc<Control>,
    limits: Limits,
    /// Keys of every position from the game's start to the current node.
    keys: Vec<u64>,
    /// Triangular principal-variation table.
    pv: Vec<Vec<Move>>,
    root_moves: Vec<Move>,
    nodes: u64,
    seldepth: usize,
    stopped: bool,
}

impl Searcher {
    pub fn new(tt: Arc<Tt>) -> Searcher {
        Searcher {
            tt,
            history: History::default(),
            control: Arc::new(Control::new(Instant::now(), None)),
            limits: Limits::default(),
            keys: Vec::with_capacity(1024),
            pv: (0..=MAX_PLY).map(|_| Vec::with_capacity(MAX_PLY)).collect(),
            root_moves: Vec::new(),
            nodes: 0,
            seldepth: 0,
            stopped: false,
        }
    }

    /// Uses another table (after a `Hash` change).
    pub fn set_tt(&mut self, tt: Arc<Tt>) {
        self.tt = tt;
    }

    /// Forgets the ordering tables (new game).
    pub fn clear(&mut self) {
        self.history.clear();
    }

    /// Searches `board`, reached through the positions whose keys are
    /// `game_keys` (oldest first, `board`'s own key last or absent),
    /// calling `report` after every iteration.
    pub fn think(
        &mut self,
        board: &Board,
        game_keys: &[u64],
        limits: Limits,
        control: Arc<Control>,
        report: &mut dyn FnMut(&Iteration),
    ) -> Outcome {
        self.prepare(board, game_keys, limits, control);
        let mut outcome = Outcome {
            best: self.fallback_move(board),
            ..Outcome::default()
        };
        if self.root_moves.is_empty() {
            return outcome;
        }

        let max_depth = self
            .limits
            .depth
            .unwrap_or(MAX_PLY as i32 - 1)
            .clamp(1, MAX_PLY as i32 - 1);
        let mut score = 0;
        for depth in 1..=max_depth {
            let result = self.aspiration(board, depth, score, report);
            if self.stopped {
                // An aborted iteration's score is unreliable, but a root move
                // that finished with a better score than the previous best is
                // safe to play.
                if let Some(&m) = self.pv[0].first() {
                    outcome.best = Some(m);
                    outcome.ponder = self.pv[0].get(1).copied();
                }
                break;
            }
            score = result;
            outcome.best = self.pv[0].first().copied().or(outcome.best);
            outcome.ponder = self.pv[0].get(1).copied();
            outcome.score = score;
            outcome.depth = depth;
            report(&self.iteration(depth, score, None));

            if self.mate_limit_reached(score) || self.control.past_soft_limit() {
                break;
            }
        }
        outcome.nodes = self.nodes;
        if outcome.ponder.is_none() {
            outcome.ponder = outcome.best.and_then(|m| self.ponder_from_tt(board, m));
        }
        outcome
    }

    fn prepare(&mut self, board: &Board, game_keys: &[u64], limits: Limits, control: Arc<Control>) {
        self.keys.clear();
        self.keys.extend_from_slice(game_keys);
        if self.keys.last() != Some(&board.key()) {
            self.keys.push(board.key());
        }
        self.limits = limits;
        self.control = control;
        self.nodes = 0;
        self.seldepth = 0;
        self.stopped = false;
        self.history.clear_killers();
        for line in &mut self.pv {
            line.clear();
        }
        self.tt.new_search();

        let legal = board.pos().legal_moves();
        let wanted = &self.limits.searchmoves;
        self.root_moves = legal
            .iter()
            .copied()
            .filter(|m| wanted.is_empty() || wanted.contains(m))
            .collect();
    }

    /// A move to play if the search is stopped before depth 1 completes:
    /// the table's move if it is a root move, else the first root move.
    fn fallback_move(&self, board: &Board) -> Option<Move> {
        let tt_move = self
            .tt
            .probe(board.key())
            .map_or(PackedMove::NONE, |e| e.mv);
        self.root_moves
            .iter()
            .copied()
            .find(|&m| tt_move.matches(m))
            .or_else(|| self.root_moves.first().copied())
    }

    /// Searches one depth with a window around the last score, widening it
    /// on failure, so most iterations run with a narrow window.
    fn aspiration(
        &mut self,
        board: &Board,
        depth: i32,
        last: i32,
        report: &mut dyn FnMut(&Iteration),
    ) -> i32 {
        let mut delta = ASPIRATION_DELTA;
        let (mut alpha, mut beta) = if depth >= ASPIRATION_MIN_DEPTH && !is_mate(last) {
            ((last - delta).max(-INFINITY), (last + delta).min(INFINITY))
        } else {
            (-INFINITY, INFINITY)
        };
        loop {
            let score = self.search(board, alpha, beta, depth, 0, true);
            if self.stopped {
                return score;
            }
            let bound = if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
                Bound::Upper
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
                Bound::Lower
            } else {
                return score;
            };
            // Bounds are worth showing only in long searches.
            if self.control.start.elapsed() > Duration::from_secs(3) {
                report(&self.iteration(depth, score, Some(bound)));
            }
            delta += delta / 2;
        }
    }

    fn mate_limit_reached(&self, score: i32) -> bool {
        self.limits
            .mate
            .is_some_and(|n| score > 0 && is_mate(score) && mate_in_moves(score) <= n)
    }

    fn iteration(&self, depth: i32, score: i32, bound: Option<Bound>) -> Iteration {
        Iteration {
            depth,
            seldepth: self.seldepth,
            score,
            bound,
            nodes: self.nodes,
            elapsed: self.control.start.elapsed(),
            hashfull: self.tt.hashfull(),
            pv: self.pv[0].clone(),
        }
    }

    /// The reply stored in the table after `best`, if it is legal.
    fn ponder_from_tt(&self, board: &Board, best: Move) -> Option<Move> {
        let next = board.play(best);
        let entry = self.tt.probe(next.key())?;
        next.pos()
            .legal_moves()
            .iter()
            .copied()
            .find(|&m| entry.mv.matches(m))
    }
}
