//! Defects a review of the code found, each as a GUI (or a hostile user)
//! would meet it: long commands that held the engine deaf, settings that
//! could kill it or leave it hanging, a network whose output could wrap.

mod common;

use std::time::{Duration, Instant};

use common::{Engine, SECOND, is_legal, position};

/// `perft` and `bench` run like a search: `isready` is answered while
/// they count, `stop` ends them, and `quit` is obeyed at once.
#[test]
fn perft_and_bench_answer_isready_and_stop() {
    let mut e = Engine::spawn();
    e.send("perft 9");
    let asked = Instant::now();
    e.sync_within(2 * SECOND);
    assert!(asked.elapsed() < 2 * SECOND);
    e.send("stop");
    e.expect("perft stopped", 5 * SECOND);
    e.sync();

    e.send("bench 30");
    e.sync_within(2 * SECOND);
    e.send("stop");
    e.expect("bench stopped", 10 * SECOND);

    // A search after a stopped count is searched as ever.
    e.send("perft 9");
    e.send("position startpos");
    e.send("go depth 4");
    let best = e.bestmove(10 * SECOND);
    assert!(is_legal(&position(None, &[]), &best), "{best}");

    e.send("perft 9");
    e.send("quit");
    assert!(e.exited_within(5 * SECOND), "quit waited for perft");
}
