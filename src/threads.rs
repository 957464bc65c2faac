//! The search threads: a pool started once and parked between searches.
//!
//! Each thread owns one [`Searcher`] (thread 0 is the main thread, which
//! reports, watches the soft limit and picks the move; the helpers only
//! fill the shared table, Lazy SMP). A `go` wakes every thread with the
//! same job; the main thread, when its search ends, raises the stop flag,
//! gathers the helpers' outcomes and hands the result on. Nothing is
//! started or torn down per search (`tools/threads_bench.py` measures stop
//! to `bestmove` at 9 ms with 256 threads on two cores, 0.1 ms with one);
//! with more threads than cores the helpers take turns at the cores
//! (`search::control::Turns`), so the front end never waits behind them. A
//! thread that died is started afresh before the next search, and a
//! helper that unwinds still answers, so the main thread never waits for
//! an answer that cannot come.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, unbounded};
use shakmaty::Position;

use crate::board::Board;
use crate::eval::Evaluation;
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
    SetEvaluation(Evaluation),
    /// Forget the histories (new game).
    Clear,
    /// Panic outside every guard, as a thread's own defect would.
    #[cfg(test)]
    Die,
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
    evaluation: Evaluation,
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
            evaluation: Evaluation::built_in(),
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
            let worker = self.spawn(self.workers.len())?;
            self.workers.push(worker);
        }
        Ok(())
    }

    /// Starts thread `id` (0 is the main thread).
    fn spawn(&self, id: usize) -> Result<Worker, String> {
        let (tx, rx) = unbounded();
        let mut searcher = Searcher::helper(self.tt.clone(), id, &self.evaluation);
        searcher.set_tablebases(self.tablebases.clone());
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
        Ok(Worker { orders: tx, handle })
    }

    /// Starts `job` on every thread (a search still running is waited
    /// for first). The main thread sends [`Event::Done`] when all of them
    /// have finished. A thread that died since the last search (a panic
    /// outside its guard) is started afresh first, so that every thread
    /// the main thread waits for is there to answer.
    pub fn search(&mut self, job: &Job) {
        self.wait();
        for id in 0..self.workers.len() {
            if self.workers[id].handle.is_finished()
                && let Ok(fresh) = self.spawn(id)
            {
                let dead = std::mem::replace(&mut self.workers[id], fresh);
                let _ = dead.handle.join();
            }
        }
        for (id, w) in self.workers.iter().enumerate() {
            if w.orders.send(Order::Search(Box::new(job.clone()))).is_err() {
                // Dead and not restarted: answer for it.
                if id == 0 {
                    let outcome = Outcome {
                        best: job.board.pos().legal_moves().first().copied(),
                        ..Outcome::default()
                    };
                    let _ = self.reports.send(Event::Done(outcome));
                    let _ = self.finished.0.send(());
                } else {
                    let _ = self.outcomes.0.send(Outcome::default());
                }
            }
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

    pub fn set_evaluation(&mut self, evaluation: &Evaluation) {
        self.evaluation = evaluation.clone();
        self.tell(|| Order::SetEvaluation(evaluation.clone()));
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
            Order::SetEvaluation(e) => searcher.set_evaluation(&e),
            Order::Clear => searcher.clear(),
            #[cfg(test)]
            Order::Die => panic!("a search thread dies"),
            Order::Search(job) => {
                if let Some(main) = main {
                    let outcome = lead(&mut searcher, &job, &main.outcomes, &main.reports);
                    let _ = main.reports.send(Event::Done(outcome));
                    let _ = main.finished.send(());
                } else {
                    // Answers the main thread even if this thread dies
                    // before it has an outcome to give.
                    let mut answer = Answer(Some(helper_out));
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
                    answer.give(outcome);
                }
            }
        }
    }
}

/// A helper's answer to the main thread, which waits for one from every
/// helper: given once, or an empty outcome when dropped unanswered (the
/// helper is unwinding).
struct Answer<'a>(Option<&'a Sender<Outcome>>);

impl Answer<'_> {
    fn give(&mut self, outcome: Outcome) {
        if let Some(to) = self.0.take() {
            let _ = to.send(outcome);
        }
    }
}

impl Drop for Answer<'_> {
    fn drop(&mut self) {
        self.give(Outcome::default());
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    use crate::search::Limits;

    fn pool(threads: usize) -> (Pool, Receiver<Event>) {
        let (tx, rx) = unbounded();
        let mut pool = Pool::new(Arc::new(Tt::new(4).unwrap()), tx).unwrap();
        pool.resize(threads).unwrap();
        (pool, rx)
    }

    /// A search of `depth` on the pool; the `Done` outcome, or `None` if
    /// none came within ten seconds.
    fn search(pool: &mut Pool, events: &Receiver<Event>, depth: i32) -> Option<Outcome> {
        let mut control = Control::new(Instant::now(), None);
        control.threads = pool.len();
        let job = Job {
            board: Board::startpos(),
            keys: Arc::from(vec![Board::startpos().key()]),
            limits: Limits {
                depth: Some(depth),
                ..Limits::default()
            },
            control: Arc::new(control),
        };
        pool.search(&job);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match events.recv_timeout(left) {
                Ok(Event::Done(o)) => {
                    pool.wait();
                    return Some(o);
                }
                Ok(Event::Iteration(_)) => {}
                Err(_) => return None,
            }
        }
    }

    #[test]
    fn a_pool_searches_and_answers() {
        let (mut pool, events) = pool(3);
        let outcome = search(&mut pool, &events, 5).expect("an answer");
        assert!(outcome.best.is_some());
        assert!(outcome.depth >= 5);
    }

    /// A thread that died outside its guard is started afresh at the next
    /// search, so the main thread never waits for an answer that cannot
    /// come; this holds for the main thread itself too.
    #[test]
    fn a_dead_thread_never_leaves_the_search_waiting() {
        for victim in [1, 0] {
            let (mut pool, events) = pool(3);
            let _ = pool.workers[victim].orders.send(Order::Die);
            let deadline = Instant::now() + Duration::from_secs(5);
            while !pool.workers[victim].handle.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            let outcome = search(&mut pool, &events, 4);
            assert!(
                outcome.is_some_and(|o| o.best.is_some()),
                "thread {victim} died and the search never answered"
            );
            // And the next search too.
            assert!(search(&mut pool, &events, 4).is_some());
        }
    }

    /// A helper that unwinds before it has an outcome still answers.
    #[test]
    fn an_answer_dropped_unanswered_is_an_empty_outcome() {
        let (tx, rx) = unbounded();
        let died = std::thread::spawn(move || {
            let _answer = Answer(Some(&tx));
            panic!("a helper dies mid-search");
        })
        .join();
        assert!(died.is_err());
        let outcome = rx.recv_timeout(Duration::from_secs(1)).expect("an answer");
        assert!(outcome.best.is_none() && outcome.line.is_none());
    }

    /// `guard` turns a panic in a search into an empty outcome and rebuilds
    /// the searcher's tables, keeping its network.
    #[test]
    fn guard_catches_a_panic_and_resets_the_searcher() {
        let mut searcher =
            Searcher::helper(Arc::new(Tt::new(1).unwrap()), 1, &Evaluation::built_in());
        let outcome = guard(&mut searcher, |_| panic!("a search fails"));
        assert!(outcome.best.is_none() && outcome.nodes == 0);
        assert!(searcher.has_network());
        let fine = guard(&mut searcher, |_| Outcome {
            nodes: 9,
            ..Outcome::default()
        });
        assert_eq!(fine.nodes, 9);
    }
}
