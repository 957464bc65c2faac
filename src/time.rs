//! Time: how long to think (soft and hard limits) and the clock thread that
//! enforces the hard limit.
//!
//! The soft limit is checked by the search between iterations (do not start
//! another one); the hard limit is a deadline that the clock thread enforces
//! by raising the search's stop flag. The clock knows nothing but deadlines
//! and flags.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, at, never, select, unbounded};

/// The clock part of a `go` command, for the side to move.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeControl {
    /// Time left on our clock.
    pub time: Option<Duration>,
    /// Our increment per move.
    pub inc: Duration,
    /// Moves until the next time control, if not sudden death.
    pub movestogo: Option<u32>,
    /// Think exactly this long.
    pub movetime: Option<Duration>,
}

/// How long to think.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Do not begin a new iteration after this.
    pub soft: Option<Duration>,
    /// Abort the search at this point.
    pub hard: Duration,
}

/// Moves assumed left in the game when the GUI does not say.
const DEFAULT_MOVES_TO_GO: u32 = 30;
/// Never plan to spend more than this share of the clock on one move.
const MAX_SHARE_PER_MOVE: u32 = 4;

/// The time manager's tunable factors (the search's parameters pass them
/// in: see `search::params`).
#[derive(Clone, Copy, Debug)]
pub struct Factors {
    /// The share of the increment the soft limit takes, in hundredths.
    pub increment_x100: u32,
    /// The hard limit as a multiple of the soft one, in tenths.
    pub hard_x10: u32,
}

impl Default for Factors {
    fn default() -> Self {
        Factors {
            increment_x100: 75,
            hard_x10: 40,
        }
    }
}

/// Splits the clock into a budget for this move, or `None` when the
/// search has no time limit, with the default factors.
#[cfg(test)]
pub fn allocate(tc: &TimeControl, overhead: Duration) -> Option<Budget> {
    allocate_with(tc, overhead, Factors::default())
}

/// Splits the clock into a budget for this move, or `None` when the
/// search has no time limit.
pub fn allocate_with(tc: &TimeControl, overhead: Duration, f: Factors) -> Option<Budget> {
    if let Some(movetime) = tc.movetime {
        // Use all of it, less the time the answer takes to reach the GUI.
        let hard = movetime.saturating_sub(overhead).max(movetime / 2);
        return Some(Budget {
            soft: None,
            hard: hard.max(Duration::from_millis(1)),
        });
    }
    let time = tc.time?;
    let moves = tc
        .movestogo
        .unwrap_or(DEFAULT_MOVES_TO_GO)
        .clamp(1, DEFAULT_MOVES_TO_GO * 2);
    // Every move also costs the clock the overhead spent outside the search
    // (GUI, pipes, network). An increment at least that large pays it back;
    // a smaller one leaves a lag that each move still to come will take, so
    // that is kept back too. Without it, a long game with little or no
    // increment runs the clock down to where the lag alone loses it.
    let lag = overhead.saturating_sub(tc.inc);
    let kept = overhead + lag * (moves - 1);
    // What is really ours: the clock less what is kept back; on a clock
    // shorter than twice that, a fifth of what is left.
    let usable = if time > kept * 2 {
        time.saturating_sub(kept)
    } else {
        time / 5
    };
    let inc = if usable > tc.inc * 2 {
        tc.inc
    } else {
        Duration::ZERO
    };
    let soft = usable / moves + inc * f.increment_x100 / 100;
    // With one move to go the whole (usable) clock may be spent.
    let cap = if moves == 1 {
        usable
    } else {
        usable / MAX_SHARE_PER_MOVE
    };
    let hard = (soft * f.hard_x10 / 10)
        .min(cap)
        .max(Duration::from_millis(1));
    Some(Budget {
        soft: Some(soft.min(hard)),
        hard,
    })
}

enum Message {
    Arm {
        deadline: Instant,
        stop: Arc<AtomicBool>,
    },
    Disarm,
}

/// The clock thread: raises a stop flag at a deadline unless disarmed first.
pub struct Clock {
    tx: Option<Sender<Message>>,
    thread: Option<JoinHandle<()>>,
}

impl Clock {
    pub fn start() -> Clock {
        let (tx, rx) = unbounded();
        let thread = std::thread::Builder::new()
            .name("clock".into())
            .spawn(move || run(&rx))
            .expect("cannot start the clock thread");
        Clock {
            tx: Some(tx),
            thread: Some(thread),
        }
    }

    /// Raises `stop` at `deadline`, replacing any earlier deadline.
    pub fn arm(&self, deadline: Instant, stop: Arc<AtomicBool>) {
        self.send(Message::Arm { deadline, stop });
    }

    /// Cancels the pending deadline.
    pub fn disarm(&self) {
        self.send(Message::Disarm);
    }

    fn send(&self, m: Message) {
        if let Some(tx) = &self.tx {
            // The thread only ends when `tx` is dropped, so this cannot fail.
            let _ = tx.send(m);
        }
    }
}

impl Drop for Clock {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn run(rx: &Receiver<Message>) {
    let mut armed: Option<(Instant, Arc<AtomicBool>)> = None;
    loop {
        let timer = armed.as_ref().map_or_else(never, |(d, _)| at(*d));
        select! {
            recv(rx) -> msg => match msg {
                Ok(Message::Arm { deadline, stop }) => armed = Some((deadline, stop)),
                Ok(Message::Disarm) => armed = None,
                Err(_) => return,
            },
            recv(timer) -> _ => {
                if let Some((_, stop)) = armed.take() {
                    stop.store(true, Relaxed);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn no_clock_no_budget() {
        assert_eq!(allocate(&TimeControl::default(), ms(30)), None);
    }

    #[test]
    fn movetime_is_used_whole_less_overhead() {
        let tc = TimeControl {
            movetime: Some(ms(1000)),
            ..TimeControl::default()
        };
        assert_eq!(allocate(&tc, ms(30)).unwrap().hard, ms(970));
    }

    #[test]
    fn an_increment_that_pays_the_overhead_leaves_the_clock_whole() {
        let tc = TimeControl {
            time: Some(ms(10_000)),
            inc: ms(100),
            ..TimeControl::default()
        };
        let b = allocate(&tc, ms(30)).unwrap();
        assert_eq!(b.soft.unwrap(), ms(9_970) / 30 + ms(75));
    }

    #[test]
    fn without_increment_the_overhead_of_the_moves_to_come_is_kept_back() {
        let tc = TimeControl {
            time: Some(ms(10_000)),
            ..TimeControl::default()
        };
        let b = allocate(&tc, ms(30)).unwrap();
        // 30 ms for this move and for each of the 29 assumed to follow.
        assert_eq!(b.soft.unwrap(), ms(10_000 - 30 * 30) / 30);
    }

    #[test]
    fn a_long_game_without_increment_keeps_time_on_the_clock() {
        // 2 s for the game, no increment. Each move the search runs past
        // its soft limit to twice it (within the hard limit), and the GUI
        // takes 3 ms more, well below the 30 ms the overhead allows for.
        let mut clock = ms(2_000);
        for n in 0..150 {
            let tc = TimeControl {
                time: Some(clock),
                ..TimeControl::default()
            };
            let b = allocate(&tc, ms(30)).unwrap();
            let spent = (b.soft.unwrap() * 2).min(b.hard) + ms(3);
            assert!(
                spent < clock,
                "flag fell at move {n}: {clock:?} left, {b:?}"
            );
            clock -= spent;
        }
    }

    #[test]
    fn budget_never_exceeds_the_clock() {
        for time in [1, 5, 20, 50, 100, 1000, 10_000, 100_000] {
            for inc in [0, 10, 100, 1000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let tc = TimeControl {
                        time: Some(ms(time)),
                        inc: ms(inc),
                        movestogo: mtg,
                        movetime: None,
                    };
                    let b = allocate(&tc, ms(30)).unwrap();
                    assert!(b.hard <= ms(time).max(ms(1)), "{time} {inc} {mtg:?}: {b:?}");
                    assert!(b.soft.unwrap() <= b.hard);
                    if time > 100 {
                        assert!(b.hard + ms(30) <= ms(time), "{time} {inc} {mtg:?}: {b:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn clock_raises_the_flag_at_the_deadline_and_not_when_disarmed() {
        let clock = Clock::start();
        let stop = Arc::new(AtomicBool::new(false));
        clock.arm(Instant::now() + ms(20), stop.clone());
        std::thread::sleep(ms(300));
        assert!(stop.load(Relaxed));

        let stop = Arc::new(AtomicBool::new(false));
        clock.arm(Instant::now() + ms(100), stop.clone());
        clock.disarm();
        std::thread::sleep(ms(300));
        assert!(!stop.load(Relaxed));
    }
}
