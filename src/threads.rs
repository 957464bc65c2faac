//! The search threads: a pool started once and parked between searches.
//!
//! Each thread owns one [`Searcher`] (thread 0 is the main thread, which
//! reports, watches the soft limit and picks the move; the helpers only
//! fill the shared table, Lazy SMP). A `go` wakes every thread with the
//! same job; the main thread, when its search ends, raises the stop flag,
//! gathers the helpers' outcomes and hands the result on. Nothing is
//! started or torn down per search, so a search of 256 threads begins and
//! ends as fast as one of a single thread; with more threads than cores
//! the helpers take turns at the cores (`search::Turns`), so the front end
//! never waits behind them.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, unbounded};
use shakmaty::Position;

use crate::board::Board;
use crate::nnue::Network;
use crate::search::{Control, Iteration, Limits, Outcome, Searcher};
use crate::tablebase::Tablebases;
use crate::tt::Tt;

/// Deep searches recurse deeply; give every search thread room.
const SEARCH_STACK: usize = 64 << 20;

/// One search, as every thread receives it.
#[derive(Clone)]
pub struct Job {
    pub board: Board,
    pub keys: Arc<[u64]>,
    pub limits: Limits,
    pub control: Arc<Control>,
}

/// What a thread is asked to do next.
enum Order {
    Search(Box<Job>),
    SetTt(Arc<Tt>),
    SetTablebases(Option<Arc<Tablebases>>),
    SetNetwork(Option<Arc<Network>>),
    /// Forget the histories (new game).
    Clear,
}

/// What the main thread says while and after it searches.
#[derive(Debug)]
pub enum Event {
    /// An iteration finished.
    Iteration(Iteration),
    /// The search ended; the best move is ready and every thread is parked
    /// again.
    Done(Outcome),
}

struct Worker {
    orders: Sender<Order>,
    handle: JoinHandle<()>,
}

/// The pool: one worker per search thread.
pub struct Pool {
    workers: Vec<Worker>,
    /// Helpers' outcomes, gathered by the main thread.
    outcomes: (Sender<Outcome>, Receiver<Outcome>),
    reports: Sender<Event>,
    /// A message from the main thread each time a search has ended.
    finished: (Sender<()>, Receiver<()>),
    /// Whether a search was started and its end not yet awaited.
    searching: bool,
    tt: Arc<Tt>,
    tablebases: Option<Arc<Tablebases>>,
    network: Option<Arc<Network>>,
}

impl Pool {
    /// A pool of one thread searching with `tt`, reporting to `reports`.
    ///
    /// # Errors
    /// When the thread cannot be started.
    pub fn new(tt: Arc<Tt>, reports: Sender<Event>) -> Result<Pool, String> {
        let mut pool = Pool {
            workers: Vec::new(),
            outcomes: unbounded(),
            reports,
            finished: unbounded(),
            searching: false,
            // The built-in network, as `EvalFile` says by default.
            network: Some(crate::nnue::embedded()),
            tt,
            tablebases: None,
        };
        pool.resize(1)?;
        Ok(pool)
    }

    pub fn len(&self) -> usize {
        self.workers.len()
    }

    /// Grows or shrinks the pool to `n` threads (none only as it is
    /// dropped), after the search under way, if any, has ended.
    ///
    /// # Errors
    /// When a thread cannot be started (the system is out of memory or
    /// threads): the pool is left as it was, saying why.
    pub fn resize(&mut self, n: usize) -> Result<(), String> {
        let before = self.workers.len();
        let grown = self.grow_or_shrink(n);
        if grown.is_err() {
            self.grow_or_shrink(before)?;
        }
        grown
    }

    fn grow_or_shrink(&mut self, n: usize) -> Result<(), String> {
        self.wait();
        while self.workers.len() > n {
            let w = self.workers.pop().expect("more workers than wanted");
            drop(w.orders);
            let _ = w.handle.join();
        }
        while self.workers.len() < n {
            let id = self.workers.len();
            let (tx, rx) = unbounded();
            let mut searcher = Searcher::helper(self.tt.clone(), id);
            searcher.set_tablebases(self.tablebases.clone());
            searcher.set_network(self.network.clone());
            let main = (id == 0).then(|| Lead {
                outcomes: self.outcomes.1.clone(),
                reports: self.reports.clone(),
                finished: self.finished.0.clone(),
            });
            let helper_out = self.outcomes.0.clone();
            let handle = std::thread::Builder::new()
                .name(if id == 0 {
                    "search".into()
                } else {
                    format!("helper {id}")
                })
                .stack_size(SEARCH_STACK)
                .spawn(move || work(searcher, &rx, main.as_ref(), &helper_out))
                .map_err(|e| format!("cannot start search thread {}: {e}", id + 1))?;
            self.workers.push(Worker { orders: tx, handle });
        }
        Ok(())
    }

    /// Starts `job` on every thread (a search still running is waited
    /// for first). The main thread sends [`Event::Done`] when all of them
    /// have finished.
    pub fn search(&mut self, job: &Job) {
        self.wait();
        for w in &self.workers {
            let _ = w.orders.send(Order::Search(Box::new(job.clone())));
        }
        self.searching = true;
    }

    /// Waits until the search started last, if any, has ended (its stop
    /// flag is the caller's to raise).
    pub fn wait(&mut self) {
        if std::mem::take(&mut self.searching) {
            let _ = self.finished.1.recv();
        }
    }

    pub fn set_tt(&mut self, tt: &Arc<Tt>) {
        self.tt.clone_from(tt);
        self.tell(|| Order::SetTt(tt.clone()));
    }

    pub fn set_tablebases(&mut self, tb: Option<&Arc<Tablebases>>) {
        self.tablebases = tb.cloned();
        self.tell(|| Order::SetTablebases(tb.cloned()));
    }

    pub fn set_network(&mut self, net: Option<&Arc<Network>>) {
        self.network = net.cloned();
        self.tell(|| Order::SetNetwork(net.cloned()));
    }

    pub fn clear(&self) {
        self.tell(|| Order::Clear);
    }

    fn tell(&self, order: impl Fn() -> Order) {
        for w in &self.workers {
            let _ = w.orders.send(order());
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let _ = self.resize(0);
    }
}

/// What only the main thread holds: where the helpers' outcomes arrive,
/// where reports go, and how it says a search has ended.
struct Lead {
    outcomes: Receiver<Outcome>,
    reports: Sender<Event>,
    finished: Sender<()>,
}

/// A thread's life: wait for an order, carry it out, wait again; it ends
/// when the pool drops its end of the channel.
fn work(
    mut searcher: Searcher,
    orders: &Receiver<Order>,
    main: Option<&Lead>,
    helper_out: &Sender<Outcome>,
) {
    while let Ok(order) = orders.recv() {
        match order {
            Order::SetTt(tt) => searcher.set_tt(tt),
            Order::SetTablebases(tb) => searcher.set_tablebases(tb),
            Order::SetNetwork(net) => searcher.set_network(net),
            Order::Clear => searcher.clear(),
            Order::Search(job) => {
                if let Some(main) = main {
                    let outcome = lead(&mut searcher, &job, &main.outcomes, &main.reports);
                    let _ = main.reports.send(Event::Done(outcome));
                    let _ = main.finished.send(());
                } else {
                    let limits = Limits {
                        multipv: 1,
                        ..job.limits.clone()
                    };
                    // Beyond the cores, a helper searches only in its turn.
                    let turns = job.control.turns.as_ref();
                    if let Some(t) = turns {
                        t.enter(&job.control.stop);
                    }
                    let outcome = guard(&mut searcher, |s| {
                        s.think(
                            &job.board,
                            &job.keys,
                            limits,
                            job.control.clone(),
                            &mut |_| {},
                        )
                    });
                    // Once the search has stopped the count no longer
                    // matters, so a permit handed on and not taken back
                    // may be given back here all the same.
                    if let Some(t) = turns {
                        t.leave();
                    }
                    let _ = helper_out.send(outcome);
                }
            }
        }
    }
}

/// The machine's cores, as the system reports them.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Runs `f` on the searcher; a panic in it costs the searcher's tables
/// (rebuilt empty) and the search's result, never the thread or the
/// `bestmove` the GUI waits for.
fn guard(searcher: &mut Searcher, f: impl FnOnce(&mut Searcher) -> Outcome) -> Outcome {
    catch_unwind(AssertUnwindSafe(|| f(searcher))).unwrap_or_else(|_| {
        searcher.reset();
        Outcome::default()
    })
}

/// The main thread's search: its own iterations, reported as they finish;
/// then the helpers are stopped and their outcomes weighed.
fn lead(
    searcher: &mut Searcher,
    job: &Job,
    outcomes: &Receiver<Outcome>,
    reports: &Sender<Event>,
) -> Outcome {
    let control = &job.control;
    // MultiPV lines and a weaker level's choice come from the main thread.
    let own_choice = job.limits.multipv > 1 || job.limits.skill.is_some();
    let mut report = |it: &Iteration| {
        let _ = reports.send(Event::Iteration(it.clone()));
    };
    let mut outcome = guard(searcher, |s| {
        s.think(
            &job.board,
            &job.keys,
            job.limits.clone(),
            control.clone(),
            &mut report,
        )
    });
    control.stop.store(true, Relaxed);
    if let Some(turns) = &control.turns {
        turns.release_all();
    }
    let others: Vec<Outcome> = (1..control.threads)
        .filter_map(|_| outcomes.recv().ok())
        .collect();
    if outcome.best.is_none() {
        // Only a search that failed leaves no move where one exists.
        outcome.best = job.board.pos().legal_moves().first().copied();
    }
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
}
