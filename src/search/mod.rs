//! The search: iterative deepening with aspiration windows (this file),
//! the root's lines, vote and move played (`root`), the PVS core (`pvs`),
//! quiescence (`qsearch`) and what the two share at a node (`node`: the
//! table, the static evaluation, draws); beside them what the threads share
//! (`control`), move ordering, history tables, correction history
//! (`correction`), SEE, the test for repetitions one move away (`cycle`),
//! the tunable parameters (`params`) and the counters (`stats`).
//!
//! The search knows nothing of UCI text: it reports each finished iteration
//! through a callback as an [`Iteration`] and returns an [`Outcome`].

mod control;
mod correction;
mod cycle;
mod history;
mod node;
mod ordering;
pub mod params;
mod pvs;
mod qsearch;
mod root;
pub mod see;
pub mod skill;
mod stats;

pub use control::Control;
pub use root::{Iteration, Outcome};
pub use stats::Stats;

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use shakmaty::{Move, Position};

use crate::board::Board;
use crate::eval::{Evaluation, Evaluator};
use crate::score::{INFINITY, MAX_PLY, is_mate};
use crate::tablebase::Tablebases;
use crate::tt::{Bound, Tt};
use correction::Correction;
use history::{Context, History};
use params::{
    SINGLE_MOVE_DEPTH, STOP_CHECK_INTERVAL, aspiration_delta, aspiration_min_depth, lmr_table,
};
use skill::Skill;

/// What limits a search, apart from the clock.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Deepest iteration to run.
    pub depth: Option<i32>,
    /// Stop once this many nodes have been searched.
    pub nodes: Option<u64>,
    /// Start no new iteration once this many nodes have been searched (the
    /// iteration that passes the count finishes, up to `nodes`): a move
    /// searched to a whole depth, at about this cost.
    pub soft_nodes: Option<u64>,
    /// Stop once a mate in at most this many moves is found.
    pub mate: Option<i32>,
    /// Search only these root moves (all legal moves when empty).
    pub searchmoves: Vec<Move>,
    /// Lines to find and report (`MultiPV`); 0 counts as 1.
    pub multipv: usize,
    /// A weaker level (`UCI_LimitStrength`), or full strength.
    pub skill: Option<Skill>,
}

/// The per-thread search state. Kept between searches so history carries over.
pub struct Searcher {
    /// 0 for the main thread, which reports and watches the time; helpers
    /// (Lazy SMP) only fill the shared table until the main thread stops.
    id: usize,
    tt: Arc<Tt>,
    tablebases: Option<Arc<Tablebases>>,
    evaluator: Evaluator,
    /// The tables' verdict on the root, shown instead of a search score
    /// that is no mate.
    root_tb_score: Option<i32>,
    history: History,
    /// Learnt evaluation errors by pawn structure.
    correction: Correction,
    control: Arc<Control>,
    limits: Limits,
    /// Keys of every position from the game's start to the current node.
    keys: Vec<u64>,
    /// Indices into `keys` of positions reached by a null move.
    nulls: Vec<usize>,
    /// Triangular principal-variation table.
    pv: Vec<Vec<Move>>,
    /// Static evaluation by ply, for the "improving" test.
    evals: [i32; MAX_PLY + 2],
    /// The move a singular-extension search leaves out, by ply.
    excluded: [Option<Move>; MAX_PLY + 2],
    /// Null moves are off below the root up to this ply, while a null
    /// move's cut-off is being verified (0: no verification under way).
    nmp_min_ply: usize,
    /// Double extensions on the path to each ply, to bound the search's growth.
    doubles: [u8; MAX_PLY + 2],
    /// The moves that led to each ply, for continuation history.
    context: [Context; MAX_PLY + 2],
    lmr: Box<[[i32; 64]; 64]>,
    root_moves: Vec<Move>,
    /// Root moves already shown as better lines in this iteration (MultiPV).
    shown: Vec<Move>,
    /// The MultiPV lines shown last, best first.
    lines: Vec<Iteration>,
    /// Nodes spent below each root move in the current iteration.
    root_nodes: Vec<(Move, u64)>,
    nodes: u64,
    seldepth: usize,
    stopped: bool,
    /// Whether the stop flag may end this thread's search: not before the
    /// main thread finishes depth 1, so every search shows a line and plays
    /// a searched move, however early `stop` or the clock comes.
    stoppable: bool,
    pub stats: Stats,
}

impl Searcher {
    /// A searcher alone (the main thread) evaluating with `evaluation`.
    pub fn new(tt: Arc<Tt>, evaluation: &Evaluation) -> Searcher {
        Searcher::helper(tt, 0, evaluation)
    }

    /// The search state of thread `id` (0 is the main thread).
    pub fn helper(tt: Arc<Tt>, id: usize, evaluation: &Evaluation) -> Searcher {
        Searcher {
            id,
            tt,
            tablebases: None,
            evaluator: Evaluator::new(evaluation),
            root_tb_score: None,
            history: History::default(),
            correction: Correction::default(),
            control: Arc::new(Control::new(Instant::now(), None)),
            limits: Limits::default(),
            keys: Vec::with_capacity(1024),
            nulls: Vec::with_capacity(MAX_PLY),
            pv: (0..=MAX_PLY + 1)
                .map(|_| Vec::with_capacity(MAX_PLY))
                .collect(),
            evals: [0; MAX_PLY + 2],
            excluded: [None; MAX_PLY + 2],
            nmp_min_ply: 0,
            doubles: [0; MAX_PLY + 2],
            context: [Context::default(); MAX_PLY + 2],
            lmr: lmr_table(),
            root_moves: Vec::new(),
            shown: Vec::new(),
            lines: Vec::new(),
            root_nodes: Vec::new(),
            nodes: 0,
            seldepth: 0,
            stopped: false,
            stoppable: true,
            stats: Stats::default(),
        }
    }

    /// Uses another table (after a `Hash` change).
    pub fn set_tt(&mut self, tt: Arc<Tt>) {
        self.tt = tt;
    }

    /// Evaluates with `evaluation` from now on.
    pub fn set_evaluation(&mut self, evaluation: &Evaluation) {
        self.evaluator = Evaluator::new(evaluation);
    }

    /// Uses these tablebases (or none).
    pub fn set_tablebases(&mut self, tb: Option<Arc<Tablebases>>) {
        self.tablebases = tb;
    }

    /// Empties the transposition table (self-play starts every game afresh).
    pub fn clear_table(&self) {
        self.tt.clear();
    }

    /// Starts afresh, keeping only the tables it shares: after a search
    /// that panicked, nothing it left half-written is trusted.
    pub fn reset(&mut self) {
        let tablebases = self.tablebases.take();
        let evaluation = self.evaluator.evaluation();
        *self = Searcher::helper(self.tt.clone(), self.id, &evaluation);
        self.tablebases = tablebases;
    }

    /// Whether this searcher evaluates with a network.
    #[cfg(test)]
    pub fn has_network(&self) -> bool {
        self.evaluator.evaluation().network().is_some()
    }

    /// Forgets the ordering tables (new game).
    pub fn clear(&mut self) {
        self.history.clear();
        self.correction.clear();
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
        // The first move of the last line shown (line 1 at MultiPV), which
        // must be the move played: GUIs and tournament managers show the
        // last PV as the engine's plan.
        let shown_first = std::cell::Cell::new(None);
        let report = &mut |it: &Iteration| {
            if it.multipv.is_none_or(|k| k == 1) {
                shown_first.set(it.pv.first().copied());
            }
            report(it);
        };
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
        let mut stability = 0;
        let lines = self
            .limits
            .multipv
            .max(self.limits.skill.map_or(1, |s| s.lines))
            .clamp(1, self.root_moves.len());
        let mut line_scores = vec![score; lines];
        let mut line_moves = vec![None; lines];
        for depth in 1..=max_depth {
            // Half the helpers skip the even depths, so threads spread over
            // two iterations instead of all racing through the same one.
            if self.id % 2 == 1 && depth > 1 && depth % 2 == 0 && depth < max_depth {
                continue;
            }
            let mut result = self.aspiration(board, depth, score, report);
            if !self.stopped {
                let mut line = self.iteration(depth, result, None, 1);
                if lines > 1 {
                    (result, line) = self.more_lines(
                        board,
                        depth,
                        (result, line),
                        &mut line_scores,
                        &mut line_moves,
                        report,
                    );
                } else {
                    report(&line);
                }
                outcome.line = Some(line);
            }
            self.stoppable = true;
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
            let previous = (outcome.best, score);
            score = result;
            outcome.best = self.pv[0].first().copied().or(outcome.best);
            outcome.ponder = self.pv[0].get(1).copied();
            outcome.score = score;
            outcome.depth = depth;
            stability = if outcome.best == previous.0 {
                stability + 1
            } else {
                0
            };
            if self.id != 0 {
                continue;
            }
            // With one move to play, a few iterations for a ponder move do.
            let scale = if self.root_moves.len() == 1 && depth >= SINGLE_MOVE_DEPTH {
                0.0
            } else {
                self.time_scale(stability, previous.1 - score, outcome.best)
            };
            if self.done_after_iteration(score, scale) {
                break;
            }
        }
        outcome.nodes = self.total_nodes();
        if let Some(skill) = self.limits.skill {
            self.weaken(board, &mut outcome, skill, &line_scores, &line_moves);
        }
        if outcome.ponder.is_none() {
            outcome.ponder = outcome.best.and_then(|m| self.ponder_from_tt(board, m));
        }
        if let Some(best) = outcome.best
            && outcome.line.is_some()
            && shown_first.get() != Some(best)
        {
            self.show_move_played(best, &mut outcome, report);
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
        if let Some(skill) = self.limits.skill {
            self.limits.nodes = Some(
                self.limits
                    .nodes
                    .map_or(skill.nodes, |n| n.min(skill.nodes)),
            );
        }
        self.control = control;
        self.nodes = 0;
        self.seldepth = 0;
        self.stopped = false;
        // A node limit is a promise about the nodes searched, so it binds
        // from the first node; helpers' results are optional, so they stop
        // at once too.
        self.stoppable = self.id != 0 || self.limits.nodes.is_some();
        self.stats = Stats::default();
        self.nulls.clear();
        self.context = [Context::default(); MAX_PLY + 2];
        self.excluded = [None; MAX_PLY + 2];
        self.nmp_min_ply = 0;
        self.doubles = [0; MAX_PLY + 2];
        self.history.clear_killers();
        self.evaluator.new_root(board);
        // A tune may have changed the reductions' factors since the last search.
        #[cfg(feature = "spsa")]
        {
            self.lmr = lmr_table();
        }
        self.lines.clear();
        for line in &mut self.pv {
            line.clear();
        }
        // One search, one generation: only the main thread ages the table.
        if self.id == 0 {
            self.tt.new_search();
        }

        let legal = board.pos().legal_moves();
        let wanted = &self.limits.searchmoves;
        self.root_moves = legal
            .iter()
            .copied()
            .filter(|m| wanted.is_empty() || wanted.contains(m))
            .collect();
        self.root_tb_score = None;
        // In a tablebase ending, search only the moves that keep the best
        // outcome (unless the user's `searchmoves` leaves none of them).
        if let Some(filter) = self
            .tablebases
            .as_ref()
            .and_then(|tb| tb.filter_root(board.pos()))
        {
            let kept: Vec<Move> = self
                .root_moves
                .iter()
                .copied()
                .filter(|m| filter.moves.contains(m))
                .collect();
            if !kept.is_empty() {
                self.root_moves = kept;
                self.root_tb_score = Some(filter.score);
                self.control.tbhits.fetch_add(1, Relaxed);
            }
        }
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
        let mut delta = aspiration_delta();
        let (mut alpha, mut beta) = if depth >= aspiration_min_depth() && !is_mate(last) {
            ((last - delta).max(-INFINITY), (last + delta).min(INFINITY))
        } else {
            (-INFINITY, INFINITY)
        };
        loop {
            self.root_nodes.clear();
            let score = self.search(board, alpha, beta, depth, 0, pvs::Node::Pv);
            if self.stopped {
                return score;
            }
            let bound = if score <= alpha {
                beta = i32::midpoint(alpha, beta);
                alpha = (score - delta).max(-INFINITY);
                Bound::Upper
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
                Bound::Lower
            } else {
                return score;
            };
            // Bounds are worth showing only in long searches.
            if self.control.start.elapsed() > Duration::from_secs(3)
                && self.shown.len() < self.limits.multipv.max(1)
            {
                report(&self.iteration(depth, score, Some(bound), self.shown.len() + 1));
            }
            delta += delta / 2;
        }
    }

    /// Whether the main thread starts no new iteration: a mate as short as
    /// asked for, the soft time limit (scaled by `scale`) or the soft node
    /// limit passed.
    fn done_after_iteration(&self, score: i32, scale: f64) -> bool {
        self.mate_limit_reached(score)
            || self.control.past_soft_limit(scale)
            || self
                .limits
                .soft_nodes
                .is_some_and(|n| self.total_nodes() >= n)
    }

    /// Nodes of all threads: what the others published, plus this thread's
    /// nodes since it last published (exact when searching alone).
    fn total_nodes(&self) -> u64 {
        self.control.nodes.load(Relaxed) + self.nodes % STOP_CHECK_INTERVAL
    }
}

#[cfg(test)]
mod tests;
