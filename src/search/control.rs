//! What the threads of one search share: the stop flag, the node count and
//! the soft limit ([`Control`]), and the turns at the cores for helpers
//! beyond the machine's cores ([`Turns`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

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
    pub(super) fn pass(&self, stop: &AtomicBool) -> bool {
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
    pub(super) fn past_soft_limit(&self, scale: f64) -> bool {
        let soft = self.soft_ms.load(Relaxed);
        soft != u64::MAX && self.start.elapsed().as_millis() as f64 >= soft as f64 * scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

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
}
