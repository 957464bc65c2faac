//! The protocol as a GUI speaks it: handshake, positions, options and
//! every kind of bad input, against the real binary.

mod common;

use common::{Engine, SECOND, is_legal, position};

#[test]
fn handshake_lists_options_and_answers_isready() {
    let mut e = Engine::spawn();
    e.send("uci");
    let lines = e.read_until(SECOND * 5, |l| l == "uciok");
    assert!(lines.iter().any(|l| l.starts_with("id name Brudno")));
    assert!(lines.iter().any(|l| l.starts_with("id author")));
    for option in ["Hash", "Threads", "Move Overhead", "Clear Hash", "Ponder"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {option} type"))),
            "{option} missing: {lines:?}"
        );
    }
    e.sync();
}

#[test]
fn position_with_moves_then_go_depth_answers_a_legal_move() {
    let mut e = Engine::spawn();
    e.send("uci");
    e.expect("uciok", SECOND * 5);
    e.send("ucinewgame");
    e.send("position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5");
    e.send("go depth 5");
    let lines = e.read_until(SECOND * 30, |l| l.starts_with("bestmove"));
    let info = lines
        .iter()
        .find(|l| l.starts_with("info depth 5 "))
        .expect("an info line for depth 5");
    for field in [
        "seldepth", "score cp", "nodes", "nps", "hashfull", "time", "pv",
    ] {
        assert!(info.contains(field), "{field} missing in {info}");
    }
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
    let pos = position(None, &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]);
    assert!(is_legal(&pos, best), "{best}");
    // The ponder move, when given, is legal after the best move.
    if let Some(ponder) = lines.last().unwrap().split_whitespace().nth(3) {
        let mut after = pos.clone();
        let m = best
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        shakmaty::Position::play_unchecked(&mut after, m);
        assert!(is_legal(&after, ponder), "ponder {ponder}");
    }
}

#[test]
fn fen_positions_with_castling_and_en_passant() {
    let mut e = Engine::spawn();
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    e.send(&format!("position fen {fen} moves e1g1 h3g2 a2a4 b4a3"));
    e.send("d");
    let lines = e.read_until(SECOND * 5, |l| l.starts_with("Fen:"));
    assert_eq!(
        lines.last().unwrap(),
        "Fen: r3k2r/p1ppqpb1/bn2pnp1/3PN3/4P3/p1N2Q2/1PPBBPpP/R4RK1 w kq - 0 3"
    );
}

#[test]
fn mated_and_stalemated_positions_answer_0000() {
    let mut e = Engine::spawn();
    e.send("position fen 3R2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1");
    e.send("go depth 3");
    assert_eq!(e.bestmove(SECOND * 5), "0000");
    e.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    e.send("go wtime 1000 btime 1000");
    assert_eq!(e.bestmove(SECOND * 5), "0000");
    e.send("go infinite");
    e.send("stop");
    assert_eq!(e.bestmove(SECOND * 5), "0000");
}

/// Sends `bad`, expects an `info string` about it, and checks that the
/// engine still answers and still holds the position it had.
fn survives(e: &mut Engine, bad: &[u8], expected_fen: &str) {
    e.send_bytes(bad);
    e.send_bytes(b"\n");
    e.sync();
    e.send("d");
    let fen = e.expect("Fen:", SECOND * 5);
    assert_eq!(
        fen,
        format!("Fen: {expected_fen}"),
        "after {:?}",
        String::from_utf8_lossy(&bad[..bad.len().min(60)])
    );
    // The rest of the board display.
    e.sync();
}

#[test]
fn bad_input_gets_an_info_string_and_changes_nothing() {
    let mut e = Engine::spawn();
    e.send("position startpos moves e2e4");
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let long = vec![b'x'; 100_000];
    let binary: Vec<u8> = (0u8..=255).filter(|b| *b != b'\n').collect();
    let cases: Vec<&[u8]> = vec![
        b"xyzzy",
        b"position startpos moves e2e4 e7e9",
        b"position startpos moves e2e4 e7e5 e1e3",
        b"position startpos moves e2e4 banana e7e5",
        b"position fen 8/8/8/8 w - - 0 1",
        b"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
        b"position fen 4k3/8/8/8/8/8/8/8 w - - 0 1",
        b"position fen",
        b"position",
        b"position startpos junk",
        b"setoption name Hash value -5",
        b"setoption name Hash value 99999999",
        b"setoption name Hash value many",
        b"setoption name Nonsense value 3",
        b"setoption name Threads value 0",
        b"setoption",
        b"go perft 0",
        b"perft x",
        b"ponderhit",
        &long,
        &binary,
    ];
    for bad in cases {
        e.send_bytes(bad);
        e.send_bytes(b"\n");
        // The engine answers with a word about the line, and with nothing
        // else (no search started, no bestmove).
        let lines = e.read_until(SECOND * 5, |l| l.starts_with("info string"));
        assert!(
            lines.iter().all(|l| l.starts_with("info string ")),
            "{:?}: {lines:?}",
            String::from_utf8_lossy(&bad[..bad.len().min(40)])
        );
        survives(&mut e, b"", fen);
    }
    // A rejected position keeps the last valid one, whole.
    survives(
        &mut e,
        b"position startpos moves e2e4 e7e5 g1f3 b8c6 zzzz",
        fen,
    );
    // And the engine still plays from it.
    e.send("go depth 3");
    let best = e.bestmove(SECOND * 10);
    assert!(is_legal(&position(None, &["e2e4"]), &best), "{best}");
}

#[test]
fn absurd_go_values_still_give_a_legal_move() {
    let mut e = Engine::spawn();
    e.send("position startpos");
    e.send("go wtime -100 btime -100 winc -5 binc -5");
    let best = e.bestmove(SECOND * 5);
    assert!(is_legal(&position(None, &[]), &best));
    e.send("go depth 99999999999999999999 movetime 200");
    let best = e.bestmove(SECOND * 5);
    assert!(is_legal(&position(None, &[]), &best));
    e.send("go nodes 0");
    let best = e.bestmove(SECOND * 5);
    assert!(is_legal(&position(None, &[]), &best));
    e.send("go searchmoves h2h3 a2a3 zz depth 4");
    let best = e.bestmove(SECOND * 10);
    assert!(best == "h2h3" || best == "a2a3", "{best}");
}

#[test]
fn perft_divide_and_extra_commands() {
    let mut e = Engine::spawn();
    e.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    e.send("go perft 3");
    let lines = e.read_until(SECOND * 10, |l| l.starts_with("Nodes searched"));
    assert_eq!(lines.last().unwrap(), "Nodes searched: 97862");
    assert_eq!(lines.iter().filter(|l| l.contains(": ")).count(), 48 + 1);
    e.send("perft 1");
    e.expect("Nodes searched: 48", SECOND * 5);
    e.send("eval");
    e.expect("total", SECOND * 5);
    e.sync();
}

#[test]
fn bench_prints_nodes_and_nps_last() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_brudno"))
        .args(["bench", "4"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().unwrap();
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words.len(), 4, "{last}");
    assert!(words[0].parse::<u64>().unwrap() > 0);
    assert_eq!((words[1], words[3]), ("nodes", "nps"));
}

#[test]
fn options_apply_between_searches() {
    let mut e = Engine::spawn();
    e.send("setoption name Hash value 32");
    e.send("setoption name Move Overhead value 50");
    e.send("setoption name Clear Hash");
    e.send("setoption name Threads value 1");
    e.send("setoption name Ponder value true");
    e.sync();
    assert!(
        e.log.iter().all(|l| !l.starts_with("info string")),
        "{:?}",
        e.log
    );
    e.send("position startpos");
    e.send("go depth 4");
    e.bestmove(SECOND * 10);
}

#[test]
fn end_of_input_lets_a_finite_search_answer() {
    let mut e = Engine::spawn();
    e.send("position startpos");
    e.send("go depth 4");
    e.close_input();
    e.bestmove(SECOND * 10);
    assert!(e.exited_within(SECOND * 5));
}

#[test]
fn chess960_castling_is_king_takes_rook_both_ways() {
    let mut e = Engine::spawn();
    e.send("uci");
    let lines = e.read_until(SECOND * 5, |l| l == "uciok");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name UCI_Chess960 type check"))
    );
    e.send("setoption name UCI_Chess960 value true");
    // Shredder-FEN castling rights; the king on b1 castles with the h1 rook.
    e.send("position fen rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1 moves b1h1");
    e.send("d");
    let fen = e.expect("Fen:", SECOND * 5);
    assert!(fen.starts_with("Fen: rk5r/8/8/8/8/8/8/R4RK1 b"), "{fen}");
    // And the engine writes its own castling the same way.
    e.send("position fen rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1");
    e.send("go depth 3 searchmoves b1h1");
    assert_eq!(e.bestmove(SECOND * 10), "b1h1");
    // X-FEN (KQkq meaning the outermost rooks) reads the same position.
    e.send("position fen rk5r/8/8/8/8/8/8/RK5R w KQkq - 0 1 moves b1a1");
    e.send("d");
    let fen = e.expect("Fen:", SECOND * 5);
    assert!(fen.starts_with("Fen: rk5r/8/8/8/8/8/8/2KR3R b"), "{fen}");
    assert!(
        !e.log.iter().any(|l| l.starts_with("info string")),
        "{:?}",
        e.log
    );
}

/// A small deterministic generator, so a failing case can be replayed.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Thousands of random and mutated command lines: the engine never dies,
/// answers `isready` after all of them, and still plays a legal move.
#[test]
fn fuzzed_lines_never_knock_the_engine_over() {
    let words = [
        "uci",
        "isready",
        "ucinewgame",
        "position",
        "startpos",
        "fen",
        "moves",
        "go",
        "stop",
        "ponderhit",
        "setoption",
        "name",
        "value",
        "Hash",
        "Threads",
        "Move",
        "Overhead",
        "Clear",
        "UCI_Chess960",
        "true",
        "false",
        "depth",
        "nodes",
        "mate",
        "movetime",
        "wtime",
        "btime",
        "winc",
        "binc",
        "movestogo",
        "infinite",
        "ponder",
        "searchmoves",
        "perft",
        "e2e4",
        "e7e5",
        "e1g1",
        "a7a8q",
        "0000",
        "-1",
        "0",
        "1",
        "2",
        "99999999999999999999",
        "8/8/8/8/8/8/8/8",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
        "w",
        "b",
        "KQkq",
        "-",
        "HAha",
        "d",
        "eval",
        "\u{0}",
        "\u{fffd}",
        "é",
        "",
    ];
    let mut rng = 0x2545_f491_4f6c_dd1d_u64;
    let mut e = Engine::spawn();
    let mut batch = String::new();
    for i in 0..3000 {
        let n = 1 + xorshift(&mut rng) % 9;
        let mut line: Vec<String> = (0..n)
            .map(|_| words[(xorshift(&mut rng) % words.len() as u64) as usize].to_string())
            .collect();
        // Never let a fuzzed line end the session or start an endless search.
        line.retain(|w| w != "quit");
        let mut text = line.join(" ");
        if text.starts_with("go") {
            text.push_str(" depth 1");
        }
        if text.starts_with("perft") || text.starts_with("go perft") {
            text = "perft 1".into();
        }
        // Mutate some bytes of every tenth line.
        if i % 10 == 0 && !text.is_empty() {
            let mut bytes = text.into_bytes();
            let at = (xorshift(&mut rng) % bytes.len() as u64) as usize;
            bytes[at] = (xorshift(&mut rng) % 256) as u8;
            text = String::from_utf8_lossy(&bytes).into_owned();
            text.retain(|c| c != '\n' && c != '\r');
        }
        batch.push_str(&text);
        batch.push('\n');
        if i % 100 == 99 {
            batch.push_str("stop\n");
            e.send_bytes(batch.as_bytes());
            batch.clear();
            e.sync();
        }
    }
    e.send("stop");
    e.sync();
    // Let every answer still in flight arrive before the final check.
    while !e.silent_for(std::time::Duration::from_millis(300)) {}
    e.send("setoption name UCI_Chess960 value false");
    e.send("position startpos moves e2e4");
    e.send("go depth 2");
    let best = e.bestmove(SECOND * 30);
    assert!(is_legal(&position(None, &["e2e4"]), &best), "{best}");
    e.sync();
}

/// Rapid `go`/`stop` cycles with new games and option changes between
/// them: every `go` gets exactly one `bestmove`, and nothing deadlocks.
#[test]
fn a_thousand_go_stop_cycles() {
    let mut e = Engine::spawn();
    let mut script = String::new();
    for i in 0..1000 {
        script.push_str("position startpos moves e2e4 e7e5\ngo infinite\nstop\n");
        if i % 100 == 0 {
            script.push_str("ucinewgame\nsetoption name Hash value 2\nsetoption name Clear Hash\n");
        }
    }
    e.send_bytes(script.as_bytes());
    // A thousand searches take about a second on an idle machine and
    // several times that when every core is busy: this wait is no timing
    // test, only a bound against a hang.
    e.sync_within(SECOND * 60);
    let mut count = e.log.iter().filter(|l| l.starts_with("bestmove")).count();
    while count < 1000 {
        e.expect("bestmove", SECOND * 10);
        count += 1;
    }
    e.sync();
    assert_eq!(
        e.log.iter().filter(|l| l.starts_with("bestmove")).count(),
        1000
    );
    let pos = position(None, &["e2e4", "e7e5"]);
    for l in e.log.iter().filter(|l| l.starts_with("bestmove")) {
        let m = l.split_whitespace().nth(1).unwrap();
        assert!(is_legal(&pos, m), "{l}");
    }
    if let Some(rss) = e.rss_mb() {
        assert!(rss <= 2 + MEMORY_OVERHEAD_MB, "{rss} MB with a 2 MB table");
    }
}

/// Beyond the table: code, two search threads' histories and pawn caches,
/// stacks in use, the tablebase-free rest.
const MEMORY_OVERHEAD_MB: u64 = 48;

/// A large table filled by a search, then a small one: the memory follows
/// the `Hash` option, and `quit` mid-search ends the process.
#[test]
fn memory_stays_within_the_hash_size() {
    let mut e = Engine::spawn();
    e.send("uci");
    e.expect("uciok", SECOND * 5);
    e.send("setoption name Threads value 2");
    e.send("setoption name Hash value 256");
    e.send("position startpos moves d2d4 g8f6 c2c4");
    e.send("go movetime 1500");
    e.bestmove(SECOND * 30);
    let big = e.rss_mb();
    e.send("setoption name Hash value 16");
    e.send("ucinewgame");
    e.send("position startpos moves e2e4 c7c5");
    e.send("go movetime 500");
    e.bestmove(SECOND * 30);
    e.sync();
    if let Some(big) = big {
        assert!(
            big <= 256 + MEMORY_OVERHEAD_MB,
            "{big} MB with a 256 MB table"
        );
        // The old table goes back to the system on a background thread.
        let deadline = std::time::Instant::now() + SECOND * 5;
        let mut rss = e.rss_mb().unwrap();
        while rss > 16 + MEMORY_OVERHEAD_MB && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(50));
            rss = e.rss_mb().unwrap();
        }
        assert!(
            rss <= 16 + MEMORY_OVERHEAD_MB,
            "{rss} MB after going to 16 MB"
        );
    }
    e.send("go infinite");
    e.send("quit");
    assert!(e.exited_within(SECOND * 5), "quit mid-search");
}
