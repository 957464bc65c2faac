//! The engine: owns the search threads, the shared transposition table and
//! the clock, and starts and stops searches. It knows no text formats: the
//! front end gives it positions and limits and receives [`Event`]s.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use crate::board::Board;
use crate::search::params;
use crate::search::{Control, Limits};
use crate::tablebase::Tablebases;
use crate::threads::{Job, Pool, cores};
use crate::time::{Budget, Clock, Factors, TimeControl, allocate_with};
use crate::tt::Tt;

pub use crate::threads::Event;

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
    /// The search threads, parked between searches.
    pool: Pool,
    control: Option<Arc<Control>>,
    /// The budget a ponder search will use from `ponderhit` on.
    ponder_budget: Option<Budget>,
    clock: Clock,
    /// Time lost between our `bestmove` and the GUI stopping our clock.
    pub move_overhead: Duration,
    tablebases: Option<Arc<Tablebases>>,
    /// `SyzygyProbeDepth` and `Syzygy50MoveRule`, for these tables and
    /// any loaded later.
    tb_rules: (i32, bool),
}

impl Engine {
    /// # Errors
    /// When the table of `hash_mb` cannot be allocated.
    pub fn new(hash_mb: usize, events: Sender<Event>) -> Result<Engine, String> {
        let tt = Arc::new(Tt::new(hash_mb)?);
        Ok(Engine {
            pool: Pool::new(tt.clone(), events)?,
            tt,
            control: None,
            ponder_budget: None,
            clock: Clock::start(),
            move_overhead: Duration::from_millis(30),
            tablebases: None,
            tb_rules: (1, true),
        })
    }

    /// Starts searching `board` (reached through `keys`). A search still
    /// running is stopped first; its `Done` event is still delivered.
    pub fn go(&mut self, board: Board, keys: Vec<u64>, request: Request) {
        let start = Instant::now();
        self.stop();
        self.wait();
        let factors = Factors {
            increment_x100: params::time_increment_x100() as u32,
            hard_x10: params::time_hard_x10() as u32,
        };
        let budget = allocate_with(&request.clock, self.move_overhead, factors);
        let timed = !request.infinite && !request.ponder;
        let control = Arc::new(
            Control::new(
                start,
                if timed {
                    budget.and_then(|b| b.soft)
                } else {
                    None
                },
            )
            .with_threads(self.pool.len(), cores()),
        );
        if let Some(b) = budget.filter(|_| timed) {
            self.clock.arm(start + b.hard, control.stop.clone());
        }
        self.ponder_budget = if request.ponder { budget } else { None };
        self.control = Some(control.clone());
        self.pool.search(&Job {
            board,
            keys: keys.into(),
            limits: request.limits,
            control,
        });
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

    /// Waits for the search to finish (its threads park again).
    pub fn wait(&mut self) {
        self.pool.wait();
        self.clock.disarm();
        self.control = None;
    }

    /// A new game: forget the table and the ordering tables.
    pub fn new_game(&mut self) {
        self.stop();
        self.wait();
        self.fresh_table();
        self.pool.clear();
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
        // Free the old table first, and wholly, so that both never need to
        // fit at once.
        let old_mb = self.tt.size_mb().max(1);
        self.free_table()?;
        let failed = match Tt::new(mb) {
            Ok(tt) => {
                self.install(tt);
                return Ok(());
            }
            Err(e) => e,
        };
        match Tt::new(old_mb) {
            Ok(tt) => {
                self.install(tt);
                Err(format!("{failed}; keeping {old_mb} MB"))
            }
            Err(_) => Err(format!(
                "{failed}, and the {old_mb} MB it had cannot be had again: the table is 1 MB"
            )),
        }
    }

    /// Puts a 1 MB table in place of the table and frees the old one before
    /// returning: once the search threads have let go of it, here and now.
    fn free_table(&mut self) -> Result<(), String> {
        let old = std::mem::replace(&mut self.tt, Arc::new(Tt::new(1)?));
        self.pool.set_tt(&self.tt);
        // The parked threads take the new table at once; wait for them.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while Arc::strong_count(&old) > 1 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        drop(old);
        Ok(())
    }

    fn install(&mut self, tt: Tt) {
        let old = std::mem::replace(&mut self.tt, Arc::new(tt));
        self.pool.set_tt(&self.tt);
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
        self.set_tablebase_rules(self.tb_rules.0, self.tb_rules.1);
        self.pool.set_tablebases(self.tablebases.as_ref());
        let found = self
            .tablebases
            .as_ref()
            .map(|tb| (tb.files(), tb.max_pieces()));
        (found, problems)
    }

    /// `SyzygyProbeDepth`.
    pub fn set_probe_depth(&mut self, depth: i32) {
        self.set_tablebase_rules(depth, self.tb_rules.1);
    }

    /// `Syzygy50MoveRule`.
    pub fn set_fifty_move_rule(&mut self, on: bool) {
        self.set_tablebase_rules(self.tb_rules.0, on);
    }

    fn set_tablebase_rules(&mut self, probe_depth: i32, fifty_move_rule: bool) {
        self.stop();
        self.wait();
        self.tb_rules = (probe_depth, fifty_move_rule);
        if let Some(tb) = &self.tablebases {
            tb.set_rules(probe_depth, fifty_move_rule);
        }
    }

    /// Evaluates with `evaluation` (from `EvalFile`).
    pub fn set_evaluation(&mut self, evaluation: &crate::eval::Evaluation) {
        self.stop();
        self.wait();
        self.pool.set_evaluation(evaluation);
    }

    /// Searches with `n` threads from the next `go` on.
    ///
    /// # Errors
    /// When the threads cannot be started; the count is kept as it was.
    pub fn set_threads(&mut self, n: usize) -> Result<(), String> {
        self.stop();
        self.wait();
        let before = self.pool.len();
        self.pool.resize(n.max(1)).map_err(|e| {
            format!(
                "{e}; keeping {before} thread{}",
                if before == 1 { "" } else { "s" }
            )
        })
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}
