//! Inputs from buggy or hostile GUIs that once killed the engine or left
//! the GUI waiting for a `bestmove` that never came. Each test talks to the
//! binary as a GUI would.

mod common;

use common::{Engine, SECOND, is_legal, position};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position, PositionError};

/// Lines shaped like engine output, with numbers too big for the protocol
/// crate's types, are refused with an `info string`: the engine lives on.
#[test]
fn engine_output_with_huge_numbers_does_not_kill_the_engine() {
    let mut e = Engine::spawn();
    for line in [
        "info depth 256",
        "info seldepth 999",
        "INFO depth 300",
        "info score cp 1 depth 400",
        "option name Hash type spin default 1 min 1 max 99999999999999999999",
        "junk info depth 300",
    ] {
        e.send(line);
        let said = e.expect("info string", 5 * SECOND);
        assert!(
            said.contains("ignored") || said.contains("unknown"),
            "{said}"
        );
        e.sync();
    }
    e.send("position startpos moves e2e4");
    e.send("go depth 3");
    let best = e.bestmove(10 * SECOND);
    assert!(is_legal(&position(None, &["e2e4"]), &best), "{best}");
}

/// A position set up with more legal moves than any game can reach (270
/// here) is accepted, so it must be searched and answered.
#[test]
fn a_position_with_270_legal_moves_is_answered() {
    let fen = "kBQQQQQQ/BR5Q/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1";
    let pos: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .or_else(PositionError::ignore_too_much_material)
        .unwrap();
    assert_eq!(pos.legal_moves().len(), 270);
    let mut e = Engine::spawn();
    e.send(&format!("position fen {fen}"));
    for go in ["go depth 1", "go depth 4", "go movetime 300"] {
        e.send(go);
        let best = e.bestmove(10 * SECOND);
        assert!(is_legal(&pos, &best), "{go}: {best}");
    }
}

/// `0000` among the `searchmoves` is dropped with a warning, like any
/// other token that is no legal move, and the search runs on the rest.
#[test]
fn a_null_move_in_searchmoves_costs_only_itself() {
    let mut e = Engine::spawn();
    e.send("position startpos");
    e.send("go searchmoves 0000 e2e4 depth 3");
    let lines = e.read_until(10 * SECOND, |l| l.starts_with("bestmove"));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string") && l.contains("0000")),
        "{lines:?}"
    );
    assert_eq!(
        lines.last().unwrap().split_whitespace().nth(1),
        Some("e2e4")
    );
}

/// A `go` that speaks of the clock but gives none that can be used for the
/// side to move ends on its own, and says what it assumed; a bare `go` and
/// `go infinite` still wait for `stop`.
#[test]
fn a_go_with_clock_words_but_no_usable_clock_ends_by_itself() {
    let mut e = Engine::spawn();
    for (position, go) in [
        ("position startpos", "go wtime abc btime 1000"),
        ("position startpos", "go btime 1000 binc 10"),
        ("position startpos moves e2e4", "go wtime 1000 winc 10"),
        ("position startpos", "go movestogo 10"),
    ] {
        e.send(position);
        e.send(go);
        let lines = e.read_until(10 * SECOND, |l| l.starts_with("bestmove"));
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string") && l.contains("no usable clock")),
            "{go}: {lines:?}"
        );
    }
    e.send("position startpos");
    for go in ["go", "go infinite"] {
        e.send(go);
        assert!(e.silent_for_bestmove(SECOND * 2), "{go} ended by itself");
        e.send("stop");
        e.bestmove(5 * SECOND);
    }
}

/// One directory of `SyzygyPath` that cannot be read is named, and the
/// tables in the others are still used.
#[test]
fn a_bad_syzygy_directory_costs_only_itself() {
    let good = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy");
    let mut e = Engine::spawn();
    e.send(&format!(
        "setoption name SyzygyPath value /nonexistent:{good}"
    ));
    let lines = e.read_until(5 * SECOND, |l| l.starts_with("info string Syzygy"));
    assert!(
        lines.iter().any(|l| l.contains("/nonexistent")),
        "{lines:?}"
    );
    assert!(
        lines.last().unwrap().contains("up to 4 pieces"),
        "{lines:?}"
    );
    // And they answer: KQ v K is a table win.
    e.send("position fen 8/8/8/8/8/2k5/8/KQ6 w - - 0 1");
    e.send("go depth 2");
    let lines = e.read_until(10 * SECOND, |l| l.starts_with("bestmove"));
    assert!(
        lines
            .iter()
            .any(|l| l.contains(" tbhits ") && !l.contains(" tbhits 0 ")),
        "{lines:?}"
    );
}

/// The first move of the last line with a `pv` for `multipv` line 1 (or
/// without `multipv`), and, for each line, the first move last shown.
fn last_lines(lines: &[String]) -> (Option<String>, std::collections::BTreeMap<usize, String>) {
    let mut by_line = std::collections::BTreeMap::new();
    let mut first = None;
    for l in lines
        .iter()
        .filter(|l| l.starts_with("info") && l.contains(" pv "))
    {
        let words: Vec<&str> = l.split_whitespace().collect();
        let after = |key: &str| {
            words
                .iter()
                .position(|w| *w == key)
                .and_then(|i| words.get(i + 1))
        };
        let k = after("multipv").map_or(1, |k| k.parse().unwrap());
        let m = after("pv").unwrap().to_string();
        if k == 1 {
            first = Some(m.clone());
        }
        by_line.insert(k, m);
    }
    (first, by_line)
}

/// Searches cut short at all sorts of moments, by the clock or by `stop`,
/// alone and with helpers: the last PV shown always begins with the move
/// played (fastchess warns otherwise).
#[test]
fn the_last_pv_begins_with_the_move_played() {
    let positions = [
        "position startpos",
        "position fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
        "position fen 2r3k1/pp3ppp/4p3/3pP3/1b1P4/1P3N2/P4PPP/2R3K1 w - - 0 1",
        "position fen r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1",
    ];
    let mut e = Engine::spawn();
    for threads in [1, 3] {
        e.send(&format!("setoption name Threads value {threads}"));
        for (i, position) in positions.iter().enumerate() {
            // Many short searches: a stop inside an iteration that has
            // just found a new best move is what this looks for.
            for movetime in (5..=80).step_by(3).chain([149]) {
                e.send("ucinewgame");
                e.send(position);
                e.send(&format!("go movetime {}", movetime + i));
                let lines = e.read_until(10 * SECOND, |l| l.starts_with("bestmove"));
                let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
                let (shown, _) = last_lines(&lines);
                if let Some(shown) = shown {
                    assert_eq!(shown, best, "{position} movetime {movetime}: {lines:?}");
                }
            }
        }
    }
}

/// `stop` sent in the same breath as `go`, and clocks too short to search:
/// the engine still finishes depth 1, shows its line and plays its first
/// move, rather than a move it never looked at.
#[test]
fn a_search_stopped_before_it_starts_still_shows_and_plays_a_searched_line() {
    let mut e = Engine::spawn();
    for (threads, multipv) in [(1, 1), (1, 3), (2, 1)] {
        e.send(&format!("setoption name Threads value {threads}"));
        e.send(&format!("setoption name MultiPV value {multipv}"));
        for go in [
            "go infinite\nstop",
            "go movetime 1",
            "go wtime 1 btime 1",
            "go ponder wtime 1000 btime 1000\nstop",
        ] {
            e.send("ucinewgame");
            e.send("position startpos moves e2e4 c7c5");
            e.send(go);
            let lines = e.read_until(10 * SECOND, |l| l.starts_with("bestmove"));
            let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
            let (first, by_line) = last_lines(&lines);
            assert_eq!(first.as_deref(), Some(best), "{go}: {lines:?}");
            assert_eq!(by_line.len(), multipv, "{go}: {lines:?}");
            assert!(
                lines.iter().any(|l| l.starts_with("info depth 1 ")),
                "{go}: {lines:?}"
            );
        }
    }
}

/// MultiPV searches stopped at any moment: the lines shown last are
/// different moves, and line 1 is the move played.
#[test]
fn multipv_lines_stopped_mid_search_are_distinct() {
    let mut e = Engine::spawn();
    e.send("setoption name MultiPV value 3");
    for wait in [5u64, 20, 45, 90, 150, 300, 500, 800] {
        e.send("ucinewgame");
        e.send("position startpos");
        e.sync();
        e.send("go infinite");
        std::thread::sleep(std::time::Duration::from_millis(wait));
        e.send("stop");
        let lines = e.read_until(10 * SECOND, |l| l.starts_with("bestmove"));
        let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
        let (first, by_line) = last_lines(&lines);
        let moves: std::collections::BTreeSet<&String> = by_line.values().collect();
        assert_eq!(moves.len(), by_line.len(), "after {wait} ms: {lines:?}");
        assert_eq!(first.as_deref(), Some(best), "after {wait} ms: {lines:?}");
    }
}

/// The options users know from Stockfish are declared as Stockfish
/// declares them, so GUIs and python-chess read them, and they work.
#[test]
fn stockfish_options_are_declared_and_work() {
    let mut e = Engine::spawn();
    e.send("uci");
    let lines = e.read_until(5 * SECOND, |l| l == "uciok");
    for declared in [
        "option name Skill Level type spin default 20 min 0 max 20",
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
        "option name Syzygy50MoveRule type check default true",
        "option name UCI_AnalyseMode type check default false",
    ] {
        assert!(lines.iter().any(|l| l == declared), "{declared}: {lines:?}");
    }
    let nodes = |lines: &[String]| -> u64 {
        let last = lines.iter().rev().find(|l| l.contains(" nodes ")).unwrap();
        let words: Vec<&str> = last.split_whitespace().collect();
        let i = words.iter().position(|w| *w == "nodes").unwrap();
        words[i + 1].parse().unwrap()
    };
    // Skill Level 0 searches as UCI_Elo 1200 does: a thousand nodes or so.
    e.send("setoption name Skill Level value 0");
    e.send("setoption name UCI_AnalyseMode value true");
    e.send("position startpos");
    e.send("go movetime 1000");
    let weak = nodes(&e.read_until(10 * SECOND, |l| l.starts_with("bestmove")));
    assert!(weak <= 1_500, "{weak}");
    e.send("setoption name Skill Level value 20");
    e.send("go movetime 300");
    let full = nodes(&e.read_until(10 * SECOND, |l| l.starts_with("bestmove")));
    assert!(full > 10 * weak, "{full} {weak}");
    // SyzygyProbeDepth beyond the search's depth leaves only the root's probe.
    let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy");
    e.send(&format!("setoption name SyzygyPath value {tables}"));
    e.expect("info string Syzygy", 5 * SECOND);
    let tbhits = |e: &mut Engine| -> u64 {
        e.send("ucinewgame");
        e.send("position fen 8/8/3kb3/8/8/8/R3K3/8 w - - 0 1");
        e.send("go depth 6");
        let lines = e.read_until(10 * SECOND, |l| l.starts_with("bestmove"));
        let last = lines.iter().rev().find(|l| l.contains(" tbhits ")).unwrap();
        let words: Vec<&str> = last.split_whitespace().collect();
        let i = words.iter().position(|w| *w == "tbhits").unwrap();
        words[i + 1].parse().unwrap()
    };
    assert!(tbhits(&mut e) > 1);
    e.send("setoption name SyzygyProbeDepth value 100");
    assert_eq!(tbhits(&mut e), 1);
    e.send("setoption name Syzygy50MoveRule value false");
    e.sync();
}

/// The search threads are started once and parked between searches, and
/// with many more threads than cores `stop` and `isready` still get their
/// answers at once (the strict figures are in `tools/threads_bench.py`).
#[test]
fn search_threads_persist_between_searches_and_answer_at_256() {
    let mut e = Engine::spawn();
    e.send("setoption name Threads value 16");
    e.send("position startpos");
    e.send("go depth 2");
    e.bestmove(10 * SECOND);
    e.sync();
    let Some(idle) = e.threads() else { return };
    // The front end, the reader, the clock and sixteen parked searchers.
    assert!(idle >= 19, "{idle} threads between searches");
    e.send("go depth 2");
    e.bestmove(10 * SECOND);
    e.sync();
    assert_eq!(e.threads(), Some(idle), "threads come and go with searches");

    e.send("setoption name Threads value 256");
    e.send("go infinite");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let asked = std::time::Instant::now();
    e.sync_within(2 * SECOND);
    e.send("stop");
    e.bestmove(2 * SECOND);
    assert!(asked.elapsed() < 3 * SECOND);
}
