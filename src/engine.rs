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
    /// The search state between searches; lent to the search thread while it runs.
    searcher: Option<Searcher>,
    thread: Option<JoinHandle<Searcher>>,
    control: Option<Arc<Control>>,
    /// The budget a ponder search will use from `ponderhit` on.
    ponder_budget: Option<Budget>,
    clock: Clock,
    events: Sender<Event>,
    /// Time lost between our `bestmove` and the GUI stopping our clock.
    pub move_overhead: Duration,
}

impl Engine {
    /// # Errors
    /// When the table of `hash_mb` cannot be allocated.
    pub fn new(hash_mb: usize, events: Sender<Event>) -> Result<Engine, String> {
        let tt = Arc::new(Tt::new(hash_mb)?);
        Ok(Engine {
            searcher: Some(Searcher::new(tt.clone())),
            tt,
            thread: None,
            control: None,
            ponder_budget: None,
            clock: Clock::start(),
            events,
            move_overhead: Duration::from_millis(30),
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
        let control = Arc::new(Control::new(
            start,
            if timed {
                budget.and_then(|b| b.soft)
            } else {
                None
            },
        ));
        if let Some(b) = budget.filter(|_| timed) {
            self.clock.arm(start + b.hard, control.stop.clone());
        }
        self.ponder_budget = if request.ponder { budget } else { None };
        self.control = Some(control.clone());

        let mut searcher = self.searcher.take().expect("searcher is home when idle");
        let events = self.events.clone();
        let limits = request.limits;
        let thread = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let mut report = |it: &Iteration| {
                    let _ = events.send(Event::Iteration(it.clone()));
                };
                let outcome = searcher.think(&board, &keys, limits, control, &mut report);
                let _ = events.send(Event::Done(outcome));
                searcher
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
            match t.join() {
                Ok(s) => self.searcher = Some(s),
                // A search that panicked loses its tables, not the engine.
                Err(_) => self.searcher = Some(Searcher::new(self.tt.clone())),
            }
        }
        self.clock.disarm();
        self.control = None;
    }

    /// A new game: forget the table and the ordering tables.
    pub fn new_game(&mut self) {
        self.stop();
        self.wait();
        self.tt.clear();
        if let Some(s) = &mut self.searcher {
            s.clear();
        }
    }

    /// Forgets the table only.
    pub fn clear_hash(&mut self) {
        self.stop();
        self.wait();
        self.tt.clear();
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
                Err(e)
            }
        }
    }

    fn install(&mut self, tt: Tt) {
        self.tt = Arc::new(tt);
        let tt = self.tt.clone();
        self.searcher
            .as_mut()
            .expect("searcher is home when idle")
            .set_tt(tt);
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}
