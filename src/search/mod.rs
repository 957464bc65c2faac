//! The search: iterative deepening with aspiration windows at the root
//! (this file), the PVS core (`pvs`), quiescence (`qsearch`) and what the
//! two share at a node (`node`: the table, the static evaluation, draws);
//! beside them move ordering, history tables, correction history
//! (`correction`), SEE and the test for repetitions one move away
//! (`cycle`).
//!
//! The search knows nothing of UCI text: it reports each finished iteration
//! through a callback as an [`Iteration`] and returns an [`Outcome`].

mod correction;
mod cycle;
mod history;
mod node;
mod ordering;
pub mod params;
mod pvs;
mod qsearch;
pub mod see;
pub mod skill;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use shakmaty::{Move, Position};

use crate::board::Board;
use crate::eval::Evaluator;
use crate::score::{INFINITY, MAX_PLY, is_mate, mate_in_moves};
use crate::tablebase::Tablebases;
use crate::tt::{Bound, PackedMove, Tt};
use correction::Correction;
use history::{Context, History};
use params::{
    ASPIRATION_DELTA, ASPIRATION_MIN_DEPTH, NODE_SHARE_BASE, NODE_SHARE_SCALE, SCORE_DROP_MAX,
    SCORE_DROP_SCALE, SINGLE_MOVE_DEPTH, STABILITY_SCALE, STOP_CHECK_INTERVAL, lmr_table,
};
use skill::Skill;

/// Counters that show how well the search orders and prunes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Nodes that failed high, and those that did so on their first move.
    pub cut_nodes: u64,
    pub first_move_cuts: u64,
    /// The same, counted only at nodes that had a table move.
    pub tt_move_cut_nodes: u64,
    pub tt_move_first_cuts: u64,
    /// The same in the quiescence search, where a move cut (not the
    /// stand-pat score).
    pub qcut_nodes: u64,
    pub qfirst_move_cuts: u64,
    /// Null-window searches of later moves, and how many were searched again.
    pub null_windows: u64,
    pub researches: u64,
    /// Quiescence nodes (part of all nodes).
    pub qnodes: u64,
    /// Table probes and hits.
    pub tt_probes: u64,
    pub tt_hits: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.cut_nodes += o.cut_nodes;
        self.first_move_cuts += o.first_move_cuts;
        self.tt_move_cut_nodes += o.tt_move_cut_nodes;
        self.tt_move_first_cuts += o.tt_move_first_cuts;
        self.qcut_nodes += o.qcut_nodes;
        self.qfirst_move_cuts += o.qfirst_move_cuts;
        self.null_windows += o.null_windows;
        self.researches += o.researches;
        self.qnodes += o.qnodes;
        self.tt_probes += o.tt_probes;
        self.tt_hits += o.tt_hits;
    }
}

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
    /// Lines to find and report (`MultiPV`); 0 counts as 1.
    pub multipv: usize,
    /// A weaker level (`UCI_LimitStrength`), or full strength.
    pub skill: Option<Skill>,
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
    /// Nodes searched by all threads, published every
    /// `STOP_CHECK_INTERVAL` nodes by each of them.
    pub nodes: AtomicU64,
    /// Tablebase probes that answered, by all threads.
    pub tbhits: AtomicU64,
    /// Threads searching (the node limit is per thread when alone, shared otherwise).
    pub threads: usize,
    /// Turns at the cores for the helpers, when there are more threads
    /// than cores.
    pub turns: Option<Turns>,
}

/// Turns at the cores for helper threads beyond the machine's cores.
///
/// With more searching threads than cores the operating system shares the
/// cores fairly among all of them, so the thread that reads `stop` or
/// `isready` waited its turn behind hundreds of helpers (0.3–0.5 s at 256
/// threads on two cores). Instead the main thread always runs and the
/// helpers take turns on the other cores: a helper searches only while it
/// holds one of the permits, and hands it on every `TURN_NODES` nodes when
/// another helper waits, so no more threads are runnable than there are
/// cores.
#[derive(Debug)]
pub struct Turns {
    queue: Mutex<Queue>,
    changed: Condvar,
    waiting: AtomicUsize,
}

/// Permits free, and tickets: helpers are served in the order they asked,
/// so one that hands its turn on cannot take it straight back.
#[derive(Debug)]
struct Queue {
    free: usize,
    next: u64,
    serving: u64,
}

impl Turns {
    pub fn new(permits: usize) -> Turns {
        Turns {
            queue: Mutex::new(Queue {
                free: permits.max(1),
                next: 0,
                serving: 0,
            }),
            changed: Condvar::new(),
            waiting: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for a permit; `false`, without one, once `stop` is raised.
    pub fn enter(&self, stop: &AtomicBool) -> bool {
        let mut q = self.lock();
        let ticket = q.next;
        q.next += 1;
        self.waiting.fetch_add(1, Relaxed);
        while !(stop.load(Relaxed) || (q.serving == ticket && q.free > 0)) {
            q = self.changed.wait(q).unwrap_or_else(PoisonError::into_inner);
        }
        self.waiting.fetch_sub(1, Relaxed);
        if stop.load(Relaxed) {
            return false;
        }
        q.serving += 1;
        q.free -= 1;
        // The next ticket may be served too if a permit is left.
        self.changed.notify_all();
        true
    }

    /// Gives a permit back.
    pub fn leave(&self) {
        self.lock().free += 1;
        self.changed.notify_all();
    }

    /// Hands the permit on if another helper waits; `false` when the
    /// search was stopped meanwhile (the permit is then given back).
    fn pass(&self, stop: &AtomicBool) -> bool {
        if self.waiting.load(Relaxed) == 0 {
            return true;
        }
        self.leave();
        self.enter(stop)
    }

    /// Wakes every waiting helper to see that the search has stopped
    /// (`stop` must be raised first).
    pub fn release_all(&self) {
        let _queue = self.lock();
        self.changed.notify_all();
    }
}

impl Control {
    pub fn new(start: Instant, soft: Option<Duration>) -> Control {
        let soft_ms = soft.map_or(u64::MAX, |d| d.as_millis() as u64);
        Control {
            stop: Arc::new(AtomicBool::new(false)),
            soft_ms: AtomicU64::new(soft_ms),
            start,
            nodes: AtomicU64::new(0),
            tbhits: AtomicU64::new(0),
            threads: 1,
            turns: None,
        }
    }

    /// The same control for a search by `threads` threads on `cores`
    /// cores: beyond the cores, the helpers take turns.
    #[must_use]
    pub fn with_threads(mut self, threads: usize, cores: usize) -> Control {
        self.threads = threads.max(1);
        self.turns = (self.threads > cores.max(1)).then(|| Turns::new(cores.max(2) - 1));
        self
    }

    /// Whether the soft limit, scaled by `scale`, has passed.
    fn past_soft_limit(&self, scale: f64) -> bool {
        let soft = self.soft_ms.load(Relaxed);
        soft != u64::MAX && self.start.elapsed().as_millis() as f64 >= soft as f64 * scale
    }
}

/// One finished (or aspiration-failed) iteration, for the front end.
#[derive(Clone, Debug)]
pub struct Iteration {
    pub depth: i32,
    /// Which line this is (1 = best) when several are searched.
    pub multipv: Option<usize>,
    pub seldepth: usize,
    pub score: i32,
    /// `None` for an exact score; a bound when the aspiration window failed.
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub elapsed: Duration,
    pub hashfull: u32,
    pub tbhits: u64,
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
    /// The last finished iteration's report, to show the line of a helper
    /// thread whose move is chosen.
    pub line: Option<Iteration>,
}

impl Outcome {
    /// Lazy SMP: the move to play from the main thread's outcome and the
    /// helpers'. A helper that finished a deeper iteration (or the same
    /// depth with a better score) saw more; the main thread wins ties.
    /// Returns whether a helper's outcome was chosen.
    pub fn vote(&mut self, helpers: Vec<Outcome>) -> bool {
        let mut switched = false;
        for h in helpers {
            if h.best.is_some()
                && h.line.is_some()
                && (h.depth > self.depth || (h.depth == self.depth && h.score > self.score))
            {
                let nodes = self.nodes;
                *self = Outcome { nodes, ..h };
                switched = true;
            }
        }
        switched
    }
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
    pub stats: Stats,
}

impl Searcher {
    pub fn new(tt: Arc<Tt>) -> Searcher {
        Searcher::helper(tt, 0)
    }

    /// The search state of thread `id` (0 is the main thread).
    pub fn helper(tt: Arc<Tt>, id: usize) -> Searcher {
        Searcher {
            id,
            tt,
            tablebases: None,
            evaluator: Evaluator::default(),
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
            stats: Stats::default(),
        }
    }

    /// Uses another table (after a `Hash` change).
    pub fn set_tt(&mut self, tt: Arc<Tt>) {
        self.tt = tt;
    }

    /// Evaluates with this network, or the handcrafted evaluation.
    pub fn set_network(&mut self, net: Option<Arc<crate::nnue::Network>>) {
        self.evaluator.set_network(net);
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
        let net = self.evaluator.network();
        *self = Searcher::helper(self.tt.clone(), self.id);
        self.tablebases = tablebases;
        self.evaluator.set_network(net);
    }

    /// Whether this searcher evaluates with a network.
    #[cfg(test)]
    pub fn has_network(&self) -> bool {
        self.evaluator.network().is_some()
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
            if self.mate_limit_reached(score) || self.control.past_soft_limit(scale) {
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

    /// The move to play is not the one the last line shown begins with: a
    /// stopped iteration found a better root move, or a weaker level chose
    /// another line. Show a line that begins with it (scored as the last
    /// finished iteration, or as the chosen line), so the last PV a GUI
    /// sees is the move played; at MultiPV the other lines follow it.
    fn show_move_played(
        &mut self,
        best: Move,
        outcome: &mut Outcome,
        report: &mut dyn FnMut(&Iteration),
    ) {
        let mut line = self.iteration(outcome.depth.max(1), outcome.score, None, 1);
        if line.pv.first() != Some(&best) {
            line.pv = std::iter::once(best).chain(outcome.ponder).collect();
        }
        outcome.line = Some(line.clone());
        if self.id != 0 {
            return;
        }
        if self.limits.multipv > 1 {
            let mut lines = vec![(line.score, line)];
            self.fill_lines(&mut lines, self.limits.multipv);
            for (k, (_, line)) in lines.iter_mut().enumerate() {
                line.multipv = Some(k + 1);
                report(line);
            }
            self.lines = lines.into_iter().map(|(_, l)| l).collect();
        } else {
            report(&line);
        }
    }

    /// Fills `lines` up to `k` with the lines shown last whose moves are
    /// not among them yet: an iteration stopped part-way leaves the other
    /// lines as they were, and no move is shown twice.
    fn fill_lines(&self, lines: &mut Vec<(i32, Iteration)>, k: usize) {
        for old in &self.lines {
            if lines.len() >= k {
                break;
            }
            if !lines.iter().any(|(_, l)| l.pv.first() == old.pv.first()) {
                lines.push((old.score, old.clone()));
            }
        }
    }

    /// `UCI_LimitStrength`: maybe play one of the other lines instead of
    /// the best, as the level allows.
    fn weaken(
        &self,
        board: &Board,
        outcome: &mut Outcome,
        skill: Skill,
        scores: &[i32],
        moves: &[Option<Move>],
    ) {
        let Some(best) = outcome.best else { return };
        let mut lines = vec![(best, outcome.score)];
        lines.extend(
            moves
                .iter()
                .zip(scores)
                .skip(1)
                .filter_map(|(m, &s)| m.filter(|&m| m != best).map(|m| (m, s))),
        );
        lines[1..].sort_by_key(|&(_, s)| -s);
        // Any varying seed will do: the choice only has to be unpredictable.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut x = u64::from(nanos) ^ board.key() ^ self.nodes.rotate_left(32);
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        let random = (x >> 11) as f64 / (1u64 << 53) as f64;
        if let Some(choice) = skill.choose(&lines, random)
            && choice != best
        {
            outcome.best = Some(choice);
            outcome.ponder = None;
            if let Some(&(_, s)) = lines.iter().find(|(m, _)| *m == choice) {
                outcome.score = s;
            }
        }
    }

    /// MultiPV: after the best line (`first`: its score and report), the
    /// best of the moves not shown yet, line after line; then the lines are
    /// shown best first. Each line's search prunes and reduces by its own
    /// window, so a later line can score above an earlier one: then it
    /// leads, and its PV is left in `pv[0]` for the caller, with its score
    /// and report returned. Lines beyond `MultiPV` (searched for a weaker
    /// level's choice) are not shown.
    fn more_lines(
        &mut self,
        board: &Board,
        depth: i32,
        first: (i32, Iteration),
        scores: &mut [i32],
        moves: &mut [Option<Move>],
        report: &mut dyn FnMut(&Iteration),
    ) -> (i32, Iteration) {
        let mut found = vec![first];
        self.shown.clear();
        self.shown.extend(found[0].1.pv.first());
        for (k, &last) in scores.iter().enumerate().skip(1) {
            let s = self.aspiration(board, depth, last, report);
            if self.stopped {
                break;
            }
            found.push((s, self.iteration(depth, s, None, k + 1)));
            self.shown.extend(self.pv[0].first());
        }
        self.shown.clear();
        // Only the lines this iteration finished are ordered by score, and
        // only they may lead: a line left from the iteration before (when
        // this one stopped early) scored at a shallower depth, and comes
        // after them as it was. Stable: equal scores keep their order.
        found.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
        if found.len() < scores.len() {
            self.fill_lines(&mut found, scores.len());
        }
        let (nodes, elapsed) = (self.total_nodes(), self.control.start.elapsed());
        for (k, (s, line)) in found.iter_mut().enumerate() {
            scores[k] = *s;
            moves[k] = line.pv.first().copied();
            line.multipv = (self.limits.multipv > 1).then_some(k + 1);
            (line.nodes, line.elapsed) = (nodes, elapsed);
            if k < self.limits.multipv {
                report(line);
            }
        }
        self.lines = found
            .iter()
            .take(self.limits.multipv)
            .map(|(_, l)| l.clone())
            .collect();
        let top = found.swap_remove(0);
        self.pv[0].clone_from(&top.1.pv);
        top
    }

    /// How much of the soft limit to use after an iteration: more when the
    /// best move keeps changing, when the score fell, and when the best move
    /// took a small share of the nodes (its rivals were hard to refute).
    fn time_scale(&self, stability: usize, score_drop: i32, best: Option<Move>) -> f64 {
        let total: u64 = self.root_nodes.iter().map(|(_, n)| n).sum();
        let on_best: u64 = self
            .root_nodes
            .iter()
            .filter(|(m, _)| Some(*m) == best)
            .map(|(_, n)| n)
            .sum();
        let share = if total == 0 {
            1.0
        } else {
            on_best as f64 / total as f64
        };
        let drop = (1.0 + SCORE_DROP_SCALE * f64::from(score_drop.max(0))).min(SCORE_DROP_MAX);
        STABILITY_SCALE[stability.min(STABILITY_SCALE.len() - 1)]
            * drop
            * (NODE_SHARE_BASE - share)
            * NODE_SHARE_SCALE
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
        self.stats = Stats::default();
        self.nulls.clear();
        self.context = [Context::default(); MAX_PLY + 2];
        self.excluded = [None; MAX_PLY + 2];
        self.nmp_min_ply = 0;
        self.doubles = [0; MAX_PLY + 2];
        self.history.clear_killers();
        self.evaluator.new_root();
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

    /// Nodes of all threads: what the others published, plus this thread's
    /// nodes since it last published (exact when searching alone).
    fn total_nodes(&self) -> u64 {
        self.control.nodes.load(Relaxed) + self.nodes % STOP_CHECK_INTERVAL
    }

    fn mate_limit_reached(&self, score: i32) -> bool {
        self.limits
            .mate
            .is_some_and(|n| score > 0 && is_mate(score) && mate_in_moves(score) <= n)
    }

    fn iteration(&self, depth: i32, score: i32, bound: Option<Bound>, line: usize) -> Iteration {
        let (score, bound) = match self.root_tb_score {
            Some(tb) if !is_mate(score) && line == 1 => (tb, None),
            _ => (score, bound),
        };
        Iteration {
            depth,
            multipv: (self.limits.multipv > 1).then_some(line),
            seldepth: self.seldepth,
            score,
            bound,
            nodes: self.total_nodes(),
            elapsed: self.control.start.elapsed(),
            hashfull: self.tt.hashfull(),
            tbhits: self.control.tbhits.load(Relaxed),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::MATE;
    use shakmaty::uci::UciMove;

    fn searcher() -> Searcher {
        Searcher::new(Arc::new(Tt::new(4).unwrap()))
    }

    /// The board after `moves` from `fen`, with the keys of the way there.
    fn game(fen: &str, moves: &[&str]) -> (Board, Vec<u64>) {
        let mut board = Board::from_fen(fen, shakmaty::CastlingMode::Standard)
            .unwrap()
            .0;
        let mut keys = vec![board.key()];
        for m in moves {
            let m = m.parse::<UciMove>().unwrap().to_move(board.pos()).unwrap();
            board = board.play(m);
            keys.push(board.key());
        }
        (board, keys)
    }

    fn search(fen: &str, moves: &[&str], depth: i32) -> Outcome {
        let (board, keys) = game(fen, moves);
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let control = Arc::new(Control::new(Instant::now(), None));
        searcher().think(&board, &keys, limits, control, &mut |_| {})
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn helpers_beyond_the_cores_take_turns_and_all_see_the_stop() {
        let turns = Arc::new(Turns::new(2));
        let stop = Arc::new(AtomicBool::new(false));
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (turns, stop, inside, most) =
                    (turns.clone(), stop.clone(), inside.clone(), most.clone());
                std::thread::spawn(move || {
                    let mut turns_had = 0;
                    while turns.enter(&stop) {
                        let now = inside.fetch_add(1, Relaxed) + 1;
                        most.fetch_max(now, Relaxed);
                        std::thread::sleep(Duration::from_millis(1));
                        inside.fetch_sub(1, Relaxed);
                        turns.leave();
                        turns_had += 1;
                    }
                    turns_had
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(100));
        stop.store(true, Relaxed);
        turns.release_all();
        let had: Vec<usize> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert!(most.load(Relaxed) <= 2, "{}", most.load(Relaxed));
        assert!(
            had.iter().all(|&n| n > 0),
            "every helper had a turn: {had:?}"
        );
    }

    #[test]
    fn a_search_with_a_network_keeps_its_accumulators_up_to_date() {
        // Every evaluation is checked against a full refresh (see
        // `nnue::accumulator`): null moves, probcut, singular searches,
        // quiescence and re-searches all report their moves.
        let net = Arc::new(crate::nnue::network::tests::sample(16));
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            START,
        ] {
            let (board, keys) = game(fen, &[]);
            let mut s = searcher();
            s.set_network(Some(net.clone()));
            let limits = Limits {
                depth: Some(9),
                ..Limits::default()
            };
            let control = Arc::new(Control::new(Instant::now(), None));
            let out = s.think(&board, &keys, limits, control, &mut |_| {});
            assert!(out.best.is_some());
        }
    }

    #[test]
    fn repetition_is_a_draw_unless_an_irreversible_move_intervened() {
        let mut s = searcher();
        let (board, keys) = game(START, &["g1f3", "g8f6", "f3g1", "f6g8"]);
        s.keys = keys;
        assert!(s.is_draw(&board), "the start position came back");

        // The same shuffle after a pawn move: the pawn move resets the count,
        // and no position repeats after it.
        let (board, keys) = game(START, &["g1f3", "g8f6", "e2e4", "f6g8"]);
        s.keys = keys;
        assert!(!s.is_draw(&board));

        // Across a null move in the search path nothing counts.
        let (board, keys) = game(START, &["g1f3", "g8f6", "f3g1", "f6g8"]);
        s.keys = keys;
        s.nulls = vec![2];
        assert!(!s.is_draw(&board));
    }

    #[test]
    fn a_repetition_one_move_away_is_seen_before_it_is_played() {
        let mut s = searcher();
        // After Nf3 Nf6 Ng1, Black's Ng8 brings the start back.
        let (board, keys) = game(START, &["g1f3", "g8f6", "f3g1"]);
        s.keys = keys;
        assert!(s.can_repeat(&board));
        // After Nf3 Nf6 Nc3 no move of Black's leads to an earlier position.
        let (board, keys) = game(START, &["g1f3", "g8f6", "b1c3"]);
        s.keys = keys;
        assert!(!s.can_repeat(&board));
        // Nf3-g1 would undo White's knight move, but not the pawn move.
        let (board, keys) = game(START, &["g1f3", "g8f6", "e2e4", "f6g8"]);
        s.keys = keys;
        assert!(!s.can_repeat(&board));
        // A repetition the same moves make after the pawn move counts.
        let (board, keys) = game(START, &["e2e4", "g8f6", "g1f3", "f6g8", "f3g1"]);
        s.keys = keys;
        assert!(
            s.can_repeat(&board),
            "Nf6 brings back the position after 1. e4 Nf6"
        );
        // Positions before a null move in the search path do not count.
        let (board, keys) = game(START, &["g1f3", "g8f6", "f3g1"]);
        s.keys = keys;
        s.nulls = vec![1];
        assert!(!s.can_repeat(&board));
    }

    #[test]
    fn fifty_move_rule_draws_but_mate_on_the_hundredth_ply_wins() {
        let s = searcher();
        let quiet = game("4k3/8/8/8/8/8/4R3/4K3 b - - 100 80", &[]).0;
        assert!(s.is_draw(&quiet));
        let almost = game("4k3/8/8/8/8/8/4R3/4K3 b - - 99 80", &[]).0;
        assert!(!s.is_draw(&almost));
        let mated = game("R3k3/8/4K3/8/8/8/8/8 b - - 100 80", &[]).0;
        assert!(!s.is_draw(&mated));
    }

    #[test]
    fn a_losing_side_takes_the_repetition() {
        // A queen down, Black can step back into a position of the game's
        // history: that is a draw, and better than anything else.
        let fen = "7k/8/8/8/8/8/8/3QK3 w - - 0 1";
        let out = search(fen, &["e1e2", "h8g8", "e2e1"], 5);
        assert_eq!(out.score, 0);
        let best = out
            .best
            .map(|m| crate::board::uci_move(m, shakmaty::CastlingMode::Standard));
        assert_eq!(best.as_deref(), Some("g8h8"));
        // Without that history the same position is lost.
        let fresh = search("6k1/8/8/8/8/8/8/3QK3 b - - 3 2", &[], 5);
        assert!(fresh.score < -500, "{}", fresh.score);
    }

    #[test]
    fn a_deep_null_move_cut_off_is_verified_against_zugzwang() {
        // ZPTS.12 of epd/zugts.epd: after Ba4 Black, a queen up, has only
        // moves that lose, so passing is what Black would like most. Deep
        // in the tree an unverified null move lets Black pass and hides
        // the win; without the verification this depth finds Bd7 and 0.
        let fen = "4B3/8/p7/k2N4/7p/K6p/PP5P/2q5 w - - 0 1";
        let out = search(fen, &[], 18);
        let best = out
            .best
            .map(|m| crate::board::uci_move(m, shakmaty::CastlingMode::Standard));
        assert_eq!(best.as_deref(), Some("e8a4"));
        assert!(out.score > 100, "{}", out.score);
    }

    #[test]
    fn mate_scores_count_plies_from_the_root() {
        let mate_in_2 = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1";
        assert_eq!(search(mate_in_2, &[], 6).score, MATE - 3);
        let lost_in_2 = "8/8/8/8/8/5K2/8/R5k1 b - - 0 1";
        assert_eq!(search(lost_in_2, &[], 6).score, -(MATE - 4));
        let stalemate = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
        let out = search(stalemate, &[], 3);
        assert_eq!((out.best, out.score), (None, 0));
    }

    fn outcome(best: &str, depth: i32, score: i32, nodes: u64) -> Outcome {
        let board = Board::startpos();
        let m = best
            .parse::<UciMove>()
            .unwrap()
            .to_move(board.pos())
            .unwrap();
        Outcome {
            best: Some(m),
            ponder: None,
            score,
            depth,
            nodes,
            line: Some(Iteration {
                depth,
                multipv: None,
                seldepth: 0,
                score,
                bound: None,
                nodes,
                elapsed: Duration::ZERO,
                hashfull: 0,
                tbhits: 0,
                pv: vec![m],
            }),
        }
    }

    /// Lazy SMP's vote: a deeper helper wins, or one as deep with a better
    /// score; the main thread wins ties; helpers without a move or a
    /// finished line never win; the node count stays the main thread's.
    #[test]
    fn the_vote_takes_the_deepest_then_the_best_and_keeps_the_nodes() {
        let mut main = outcome("e2e4", 10, 20, 1000);
        assert!(!main.vote(vec![outcome("d2d4", 10, 20, 5), outcome("c2c4", 9, 90, 5)]));
        assert_eq!(main.best, outcome("e2e4", 0, 0, 0).best);
        let unfinished = Outcome {
            line: None,
            ..outcome("g1f3", 12, 50, 5)
        };
        let empty = Outcome {
            best: None,
            ..outcome("g1f3", 12, 50, 5)
        };
        assert!(!main.vote(vec![unfinished, empty]));
        assert!(main.vote(vec![outcome("d2d4", 10, 25, 5), outcome("c2c4", 11, -5, 5)]));
        assert_eq!(main.best, outcome("c2c4", 0, 0, 0).best);
        assert_eq!((main.depth, main.score, main.nodes), (11, -5, 1000));
    }

    /// `reset` rebuilds a searcher's tables but keeps what it was given:
    /// its network and its tablebases; it then searches as a fresh one.
    #[test]
    fn reset_keeps_the_network_and_forgets_the_rest() {
        let mut s = searcher();
        s.set_network(Some(crate::nnue::embedded()));
        let board = Board::startpos();
        let limits = Limits {
            depth: Some(6),
            ..Limits::default()
        };
        let control = || Arc::new(Control::new(Instant::now(), None));
        let first = s.think(&board, &[], limits.clone(), control(), &mut |_| {});
        s.reset();
        assert!(s.has_network());
        let mut fresh = searcher();
        fresh.set_network(Some(crate::nnue::embedded()));
        // The shared table still holds the first search, so compare a
        // reset searcher with a fresh one on their own tables.
        let mut a = searcher();
        a.set_network(Some(crate::nnue::embedded()));
        a.reset();
        let x = a.think(&board, &[], limits.clone(), control(), &mut |_| {});
        let y = fresh.think(&board, &[], limits, control(), &mut |_| {});
        assert_eq!((x.best, x.nodes), (y.best, y.nodes));
        assert!(first.best.is_some());
    }

    /// A MultiPV iteration stopped after its first line: the lines kept
    /// from the iteration before fill the rest, but never lead, however
    /// they scored at their shallower depth; the finished line is played.
    #[test]
    fn a_stale_multipv_line_never_leads_a_stopped_iteration() {
        let board = Board::startpos();
        let mut s = searcher();
        let control = Arc::new(Control::new(Instant::now(), None));
        let limits = Limits {
            multipv: 3,
            ..Limits::default()
        };
        s.prepare(&board, &[], limits, control.clone());
        let line = |m: &str, depth, score| {
            let mv = m.parse::<UciMove>().unwrap().to_move(board.pos()).unwrap();
            Iteration {
                depth,
                multipv: None,
                seldepth: 0,
                score,
                bound: None,
                nodes: 0,
                elapsed: Duration::ZERO,
                hashfull: 0,
                tbhits: 0,
                pv: vec![mv],
            }
        };
        // The iteration before: d2d4 led at 500.
        s.lines = vec![line("d2d4", 7, 500), line("c2c4", 7, 400)];
        // This iteration's first line is finished; then it stops.
        control.stop.store(true, Relaxed);
        let (mut scores, mut moves) = (vec![30, 0, 0], vec![None; 3]);
        let (score, top) = s.more_lines(
            &board,
            8,
            (30, line("e2e4", 8, 30)),
            &mut scores,
            &mut moves,
            &mut |_| {},
        );
        assert_eq!((score, top.depth), (30, 8));
        assert_eq!(s.pv[0].first(), line("e2e4", 0, 0).pv.first());
        let shown: Vec<_> = moves.iter().map(|m| m.map(|m| m.to_string())).collect();
        assert_eq!(
            moves[0],
            line("e2e4", 0, 0).pv.first().copied(),
            "{shown:?}"
        );
    }
}
