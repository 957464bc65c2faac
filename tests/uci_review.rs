//! Defects a review of the code found, each as a GUI (or a hostile user)
//! would meet it: long commands that held the engine deaf, settings that
//! could kill it or leave it hanging, a network whose output could wrap.

mod common;

use std::time::Instant;

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

/// `EvalFile` refuses what is not a regular file before reading it: a
/// device would be read until memory runs out, a FIFO for ever.
#[test]
fn eval_file_refuses_devices_and_fifos() {
    let fifo = std::env::temp_dir().join(format!("brudno-fifo-{}", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    // Under a 1 GiB address space, reading /dev/zero whole would abort.
    let mut e = Engine::spawn_limited(1024);
    e.sync();
    for path in ["/dev/zero", fifo.to_str().unwrap()] {
        e.send(&format!("setoption name EvalFile value {path}"));
        let said = e.expect("info string", 5 * SECOND);
        assert!(said.contains("not a regular file"), "{said}");
        e.sync();
    }
    let _ = std::fs::remove_file(&fifo);
    e.send("go depth 3");
    let best = e.bestmove(10 * SECOND);
    assert!(is_legal(&position(None, &[]), &best), "{best}");
}

/// A network file (format version 2) of `hidden` neurons, zero weights and
/// the output bias `bias`.
fn network_file(hidden: usize, bias: i32) -> Vec<u8> {
    let mut payload = vec![0u8; 2 * (768 * hidden + hidden + 2 * hidden)];
    payload.extend_from_slice(&bias.to_le_bytes());
    let fnv = payload.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut bytes = b"BRNN".to_vec();
    for word in [2u32, hidden as u32, 1] {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    bytes.extend_from_slice(&fnv.to_le_bytes());
    bytes.extend_from_slice(&payload);
    bytes
}

/// A network whose output is far beyond any score (a broken or hostile
/// file) is clamped below the mate scores: no score wraps (in the table's
/// 16 bits) or reads as mate. Every leaf then scores the clamp for the side
/// to move, so every line's score lies close to it (or is a draw by
/// repetition, which a tree of equal evaluations may prefer).
#[test]
fn a_network_that_outputs_huge_numbers_gives_scores_below_mate() {
    let file = std::env::temp_dir().join(format!("brudno-huge-{}.nnue", std::process::id()));
    std::fs::write(&file, network_file(8, i32::MAX)).unwrap();
    let mut e = Engine::spawn();
    e.send(&format!("setoption name EvalFile value {}", file.display()));
    e.expect("info string EvalFile", 5 * SECOND);
    for fen in [
        "startpos",
        "fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    ] {
        e.send(&format!("position {fen}"));
        e.send("go depth 7");
        let lines = e.read_until(20 * SECOND, |l| l.starts_with("bestmove"));
        for line in lines.iter().filter(|l| l.contains(" score ")) {
            assert!(!line.contains("score mate"), "{line}");
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "cp").unwrap();
            let cp: i64 = words[at + 1].parse().unwrap();
            assert!(cp == 0 || (29_000..31_800).contains(&cp.abs()), "{line}");
        }
    }
    let _ = std::fs::remove_file(&file);
}

/// A line longer than 1 MiB is dropped with a word, not kept in memory
/// whole; the lines after it are read as ever.
#[test]
fn a_line_over_a_mebibyte_is_dropped_with_a_word() {
    let mut e = Engine::spawn();
    let mut long = vec![b'a'; 3 << 20];
    long.push(b'\n');
    e.send_bytes(&long);
    let said = e.expect("info string", 10 * SECOND);
    assert!(said.contains("1 MiB") && said.contains("3145729"), "{said}");
    e.sync();
    e.send("go depth 2");
    e.bestmove(10 * SECOND);
}

/// More threads than the system can start (here: a 2 GiB address space,
/// 64 MiB of stack a thread) are refused with a word, and the engine keeps
/// the threads it had, searching as before.
#[test]
fn threads_that_cannot_be_started_are_refused_and_the_old_count_kept() {
    let mut e = Engine::spawn_limited(2048);
    e.sync();
    e.send("setoption name Threads value 256");
    let said = e.expect("info string", 20 * SECOND);
    assert!(
        said.contains("Threads 256") && said.contains("keeping 1 thread"),
        "{said}"
    );
    e.sync();
    e.send("setoption name Threads value 2");
    e.send("go depth 6");
    let best = e.bestmove(20 * SECOND);
    assert!(is_legal(&position(None, &[]), &best), "{best}");
}

/// A new table size is allocated only after the old table is freed, so
/// a size that fits only alone is had; one that cannot be had at all is
/// refused with a word, keeping the old size.
#[test]
fn hash_is_resized_after_the_old_table_is_freed() {
    let mut e = Engine::spawn_limited(2600);
    e.sync();
    for mb in [1200, 1300, 1200] {
        e.send(&format!("setoption name Hash value {mb}"));
        e.send("isready");
        let lines = e.read_until(20 * SECOND, |l| l == "readyok");
        assert_eq!(lines, ["readyok"], "Hash {mb}");
    }
    e.send("setoption name Hash value 60000");
    let said = e.expect("info string", 20 * SECOND);
    assert!(
        said.contains("60000 MB") && said.contains("keeping 1200 MB"),
        "{said}"
    );
    e.send("go depth 6");
    let best = e.bestmove(20 * SECOND);
    assert!(is_legal(&position(None, &[]), &best), "{best}");
}
