//! The engine: owns the search thread, the shared transposition table and
//! the clock, and starts and stops searches. It knows no text formats: the
//! front end gives it positions and limits and receives [`Event`]s.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use crate::board::Board;
use crate::search::{Control, Iteration, Limits, Outcome, Searcher};
use crate::tablebase::Tablebases;
use crate::time::{Budget, Clock, TimeControl, allocate};
use crate::tt::Tt;

/// What a search tells the front end.
#[derive(Debug)]
pub enum Event {
    /// An iteration finished.
    Iteration(Iteration),
    /// The search ended; the best move is ready.
    Done(Outcome),
}

/// Everything a `go` asks for.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub limits: Limits,
    pub clock: TimeControl,
    /// Think until `stop` (and not beyond it).
    pub infinite: bool,
    /// Think on the opponent's time until `ponderhit` or `stop`.
    pub ponder: bool,
}

pub struct Engine {
    tt: Arc<Tt>,
    /// One search state per thread (the main thread's first), kept between
    /// searches; lent to the search thread while it runs.
    searchers: Vec<Searcher>,
    thread: Option<JoinHandle<Vec<Searcher>>>,
    control: Option<Arc<Control>>,
    /// The budget a ponder search will use from `ponderhit` on.
    ponder_budget: Option<Budget>,
    clock: Clock,
    events: Sender<Event>,
    /// Time lost between our `bestmove` and the GUI stopping our clock.
    pub move_overhead: Duration,
    threads_wanted: usize,
    tablebases: Option<Arc<Tablebases>>,
}

/// Deep searches recurse deeply; give every search thread room.
const SEARCH_STACK: usize = 64 << 20;

/// Runs the main search on this thread and the helpers beside it (Lazy
/// SMP: all share the table, each keeps its own histories), stops the
/// helpers when the main search ends and picks the move to play.
fn run_threads(
    searchers: &mut [Searcher],
    board: &Board,
    keys: &[u64],
    limits: Limits,
    control: &Arc<Control>,
    events: &Sender<Event>,
) -> Outcome {
    let (main, helpers) = searchers.split_first_mut().expect("at least one searcher");
    // MultiPV lines and a weaker level's choice come from the main thread.
    let own_choice = limits.multipv > 1 || limits.skill.is_some();
    std::thread::scope(|scope| {
        let handles: Vec<_> = helpers
            .iter_mut()
            .map(|h| {
                let limits = Limits {
                    multipv: 1,
                    ..limits.clone()
                };
                let control = control.clone();
                std::thread::Builder::new()
                    .name("helper".into())
                    .stack_size(SEARCH_STACK)
                    .spawn_scoped(scope, move || {
                        h.think(board, keys, limits, control, &mut |_| {})
                    })
                    .expect("cannot start a helper thread")
            })
            .collect();
        let mut report = |it: &Iteration| {
            let _ = events.send(Event::Iteration(it.clone()));
        };
        let mut outcome = main.think(board, keys, limits, control.clone(), &mut report);
        control.stop.store(true, Relaxed);
        let others: Vec<Outcome> = handles.into_iter().filter_map(|h| h.join().ok()).collect();
        outcome.nodes = control.nodes.load(Relaxed).max(outcome.nodes);
        if !own_choice
            && outcome.vote(others)
            && let Some(mut line) = outcome.line.clone()
        {
            line.nodes = outcome.nodes;
            line.elapsed = control.start.elapsed();
            report(&line);
        }
        outcome
    })
}

impl Engine {
    /// # Errors
    /// When the table of `hash_mb` cannot be allocated.
    pub fn new(hash_mb: usize, events: Sender<Event>) -> Result<Engine, String> {
        let tt = Arc::new(Tt::new(hash_mb)?);
        Ok(Engine {
            searchers: vec![Searcher::new(tt.clone())],
            tt,
            thread: None,
            control: None,
            ponder_budget: None,
            clock: Clock::start(),
            events,
            move_overhead: Duration::from_millis(30),
            threads_wanted: 1,
            tablebases: None,
        })
    }

    /// Starts searching `board` (reached through `keys`). A search still
    /// running is stopped first; its `Done` event is still delivered.
    pub fn go(&mut self, board: Board, keys: Vec<u64>, request: Request) {
        let start = Instant::now();
        self.stop();
        self.wait();
        let budget = allocate(&request.clock, self.move_overhead);
        let timed = !request.infinite && !request.ponder;
        let threads = self.searchers.len();
        let control = Arc::new(
            Control::new(
                start,
                if timed {
                    budget.and_then(|b| b.soft)
                } else {
                    None
                },
            )
            .with_threads(threads),
        );
        if let Some(b) = budget.filter(|_| timed) {
            self.clock.arm(start + b.hard, control.stop.clone());
        }
        self.ponder_budget = if request.ponder { budget } else { None };
        self.control = Some(control.clone());

        let mut searchers = std::mem::take(&mut self.searchers);
        let events = self.events.clone();
        let thread = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK)
            .spawn(move || {
                let outcome = run_threads(
                    &mut searchers,
                    &board,
                    &keys,
                    request.limits,
                    &control,
                    &events,
                );
                let _ = events.send(Event::Done(outcome));
                searchers
            })
            .expect("cannot start the search thread");
        self.thread = Some(thread);
    }

    /// The opponent played the move we pondered on: from now on the search
    /// runs on our clock.
    pub fn ponderhit(&mut self) {
        let (Some(control), Some(budget)) = (&self.control, self.ponder_budget.take()) else {
            return;
        };
        let now = Instant::now();
        if let Some(soft) = budget.soft {
            let elapsed = now.duration_since(control.start);
            control
                .soft_ms
                .store((elapsed + soft).as_millis() as u64, Relaxed);
        }
        self.clock.arm(now + budget.hard, control.stop.clone());
    }

    /// Asks the running search, if any, to stop at once.
    pub fn stop(&self) {
        if let Some(c) = &self.control {
            c.stop.store(true, Relaxed);
        }
    }

    /// Waits for the search thread to finish and takes the search state back.
    pub fn wait(&mut self) {
        if let Some(t) = self.thread.take() {
            if let Ok(s) = t.join() {
                self.searchers = s;
            } else {
                // A search that panicked loses its tables, not the engine.
                self.searchers.clear();
                self.set_threads(self.threads_wanted);
            }
        }
        self.clock.disarm();
        self.control = None;
    }

    /// A new game: forget the table and the ordering tables.
    pub fn new_game(&mut self) {
        self.stop();
        self.wait();
        self.fresh_table();
        for s in &mut self.searchers {
            s.clear();
        }
    }

    /// Forgets the table only.
    pub fn clear_hash(&mut self) {
        self.stop();
        self.wait();
        self.fresh_table();
    }

    /// Empties the table by replacing it with a freshly zeroed one of the
    /// same size: the operating system hands out zero pages lazily, so this
    /// is instant where writing zeros over gigabytes would stall the GUI.
    fn fresh_table(&mut self) {
        if self.set_hash(self.tt.size_mb().max(1)).is_err() {
            self.tt.clear();
        }
    }

    /// Resizes the table.
    ///
    /// # Errors
    /// When the memory cannot be had; the old table is kept.
    pub fn set_hash(&mut self, mb: usize) -> Result<(), String> {
        self.stop();
        self.wait();
        // Free the old table first so that both never need to fit at once.
        let old_mb = self.tt.size_mb().max(1);
        self.install(Tt::new(1)?);
        match Tt::new(mb) {
            Ok(tt) => {
                self.install(tt);
                Ok(())
            }
            Err(e) => {
                self.install(Tt::new(old_mb)?);
                Err(format!("{e}; keeping {old_mb} MB"))
            }
        }
    }

    fn install(&mut self, tt: Tt) {
        let old = std::mem::replace(&mut self.tt, Arc::new(tt));
        for s in &mut self.searchers {
            s.set_tt(self.tt.clone());
        }
        // Returning gigabytes to the system takes a while; not on our time.
        if old.size_mb() >= 256 {
            std::thread::spawn(move || drop(old));
        }
    }

    /// Loads the Syzygy tables in `paths` (`:`-separated), or switches them
    /// off when `paths` is empty. Returns (files, pieces) when any loaded,
    /// and what was wrong with the rest.
    pub fn set_tablebases(&mut self, paths: &str) -> (Option<(usize, usize)>, Vec<String>) {
        self.stop();
        self.wait();
        let (tables, problems) = if paths.trim().is_empty() {
            (None, Vec::new())
        } else {
            Tablebases::load(paths)
        };
        self.tablebases = tables.map(Arc::new);
        for s in &mut self.searchers {
            s.set_tablebases(self.tablebases.clone());
        }
        let found = self
            .tablebases
            .as_ref()
            .map(|tb| (tb.files(), tb.max_pieces()));
        (found, problems)
    }

    /// Searches with `n` threads from the next `go` on.
    pub fn set_threads(&mut self, n: usize) {
        self.stop();
        self.wait();
        let n = n.max(1);
        self.threads_wanted = n;
        self.searchers.truncate(n);
        while self.searchers.len() < n {
            let id = self.searchers.len();
            let mut s = Searcher::helper(self.tt.clone(), id);
            s.set_tablebases(self.tablebases.clone());
            self.searchers.push(s);
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}
