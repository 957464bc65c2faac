//! Brudno as OpenBench runs it: UCI commands as command-line arguments,
//! `genfens` for data generation, and the PGNs of its workloads (played here
//! by fastchess, the tournament manager OpenBench's workers use) turned into
//! training data.

mod common;

use std::process::Command;

use common::{Engine, SECOND};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

fn brudno(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_brudno"))
        .args(args)
        .output()
        .expect("the engine runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// The FENs of `genfens` output.
fn fens(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("info string genfens "))
        .map(String::from)
        .collect()
}

fn legal(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

#[test]
fn genfens_from_the_command_line_gives_reproducible_playable_openings() {
    let (code, text) = brudno(&["genfens 12 seed 7 book None", "quit"]);
    assert_eq!(code, 0, "{text}");
    let first = fens(&text);
    assert_eq!(first.len(), 12, "{text}");
    for fen in &first {
        let pos = legal(fen);
        assert!(!pos.legal_moves().is_empty(), "{fen}");
        // Eight random plies, or nine.
        let ply = u32::from(pos.fullmoves()) * 2 - 2 + u32::from(pos.turn().is_black());
        assert!((8..=9).contains(&ply), "{fen}");
    }
    let (_, again) = brudno(&["genfens 12 seed 7 book None", "quit"]);
    assert_eq!(fens(&again), first, "the same seed, the same openings");
    let (_, other) = brudno(&["genfens 12 seed 8 book None", "quit"]);
    assert_ne!(fens(&other), first);
    // Without `quit` the engine goes on to read standard input (here empty).
    let (code, text) = brudno(&["genfens 2 seed 7 book None plies 4"]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(fens(&text).len(), 2);
    // Not a command and not a subcommand: still refused.
    let (code, _) = brudno(&["frobnicate"]);
    assert_eq!(code, 1);
}

/// Every opening is within the balance bound as a fresh search of 4,000
/// nodes scores it, the search `genfens` drops openings by.
#[test]
fn genfens_keeps_only_openings_within_the_balance_bound() {
    let (_, text) = brudno(&["genfens 10 seed 3 book None balance 40", "quit"]);
    let openings = fens(&text);
    assert_eq!(openings.len(), 10, "{text}");
    let mut e = Engine::spawn();
    e.send("setoption name Hash value 8");
    for fen in &openings {
        e.send("ucinewgame");
        e.send(&format!("position fen {fen}"));
        e.send("go nodes 4000");
        let lines = e.read_until(10 * SECOND, |l| l.starts_with("bestmove"));
        let last = lines
            .iter()
            .rev()
            .find(|l| l.contains(" score cp "))
            .unwrap_or_else(|| panic!("{fen}: {lines:?}"));
        let cp: i32 = last
            .split(" score cp ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap();
        assert!(cp.abs() <= 40, "{fen}: {last}");
    }
}

/// With a book, each opening starts from one of its lines.
#[test]
fn genfens_starts_from_the_book() {
    let book = std::env::temp_dir().join(format!("brudno-book-{}.epd", std::process::id()));
    std::fs::write(
        &book,
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n",
    )
    .unwrap();
    let (code, text) = brudno(&[
        &format!("genfens 4 seed 1 book {} plies 2", book.display()),
        "quit",
    ]);
    let _ = std::fs::remove_file(&book);
    assert_eq!(code, 0, "{text}");
    let openings = fens(&text);
    assert_eq!(openings.len(), 4, "{text}");
    for fen in &openings {
        let pos = legal(fen);
        assert!((4..=5).contains(&u32::from(pos.fullmoves())), "{fen}");
    }
}
