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
    common::run(args, &[])
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
    // OpenBench appends the tester's free "extra" text: words it does not
    // know cost only themselves, and never read as an opening.
    let (code, text) = brudno(&["genfens 3 seed 7 book None 8 wild", "quit"]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(fens(&text), first[..3], "{text}");
    assert!(text.contains("info string genfens: '8' ignored"), "{text}");
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

/// The 32-byte records of `file` (a `.bin`).
fn records(file: &std::path::Path) -> Vec<[u8; 32]> {
    std::fs::read(file)
        .unwrap()
        .chunks_exact(32)
        .map(|c| c.try_into().unwrap())
        .collect()
}

/// A PGN as the managers write it becomes the records written out by hand
/// beside it (as text data, `FEN | White's score | result`): book moves
/// lead to the first scored position, scores in pawns from the mover's
/// side become centipawns from White's, mates become mate scores, and the
/// unfinished game is left out.
#[test]
fn a_managers_pgn_converts_to_the_records_written_by_hand() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let dir = std::env::temp_dir().join(format!("brudno-pgn-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (from_pgn, by_hand) = (dir.join("pgn.bin"), dir.join("hand.bin"));
    let (code, text) = brudno(&[
        "convert",
        &format!("{data}/managers.pgn"),
        from_pgn.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{text}");
    let (code, text) = brudno(&[
        "convert",
        &format!("{data}/managers.expected.txt"),
        by_hand.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{text}");
    let (got, want) = (records(&from_pgn), records(&by_hand));
    assert_eq!(got.len(), 6);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        // Text data cannot say whether the move played captured (flag 2);
        // every other byte must agree.
        let (mut g, mut w) = (*g, *w);
        g[29] &= !2;
        w[29] &= !2;
        assert_eq!(g, w, "record {i}");
    }
    // Flag 2: the game's captures and promotions (none in these games).
    assert!(got.iter().all(|r| r[29] & 2 == 0));
    // The mate scores are decisive (flag 4), the others not.
    let decisive: Vec<bool> = got.iter().map(|r| r[29] & 4 != 0).collect();
    assert_eq!(decisive, [false, false, false, false, true, true]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A short fixed-node match by fastchess from `genfens` openings, written
/// with nodes and seldepth as OpenBench's workers write it, converts with
/// one position for each scored move and each game's result.
#[test]
fn a_fastchess_match_from_genfens_openings_becomes_training_data() {
    let fastchess = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/tools/fastchess/fastchess"
    );
    assert!(
        std::path::Path::new(fastchess).exists(),
        "{fastchess} is missing: the tests need ../shared beside the repository"
    );
    let dir = std::env::temp_dir().join(format!("brudno-fastchess-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (_, text) = brudno(&["genfens 2 seed 11 book None", "quit"]);
    let openings = fens(&text);
    assert_eq!(openings.len(), 2);
    let epd = dir.join("openings.epd");
    std::fs::write(&epd, openings.join("\n") + "\n").unwrap();
    let pgn = dir.join("games.pgn");
    let engine = format!("cmd={}", env!("CARGO_BIN_EXE_brudno"));
    // fastchess writes its settings (config.json) where it runs: not here.
    let status = Command::new(fastchess)
        .current_dir(&dir)
        .args(["-engine", &engine, "name=a", "-engine", &engine, "name=b"])
        .args([
            "-each",
            "tc=inf",
            "nodes=800",
            "-rounds",
            "2",
            "-games",
            "2",
        ])
        .args(["-concurrency", "1", "-openings"])
        .arg(format!("file={}", epd.display()))
        .args(["format=epd", "order=sequential", "-pgnout"])
        .arg(format!("file={}", pgn.display()))
        .args(["nodes=true", "seldepth=true"])
        .output()
        .expect("fastchess runs");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );
    let games = std::fs::read_to_string(&pgn).unwrap();
    // What the PGN holds, counted plainly: each game's result and its
    // comments that begin with a score.
    let mut want = [0u64; 3];
    let mut total = 0;
    for game in games.split("[Event ").skip(1) {
        let result = game
            .lines()
            .find_map(|l| l.strip_prefix("[Result \""))
            .unwrap();
        let scored = game
            .split('{')
            .skip(1)
            .filter(|c| c.starts_with(['+', '-']) || c.starts_with(|ch: char| ch.is_ascii_digit()))
            .count() as u64;
        let slot = match &result[..3] {
            "1-0" => 2,
            "0-1" => 0,
            _ => 1,
        };
        want[slot] += scored;
        total += scored;
    }
    assert_eq!(games.matches("[Event ").count(), 4);
    assert!(total > 40, "{games}");
    let (code, summary) = brudno(&["data", pgn.to_str().unwrap()]);
    assert_eq!(code, 0, "{summary}");
    assert!(
        summary.contains(&format!("4 games, {total} positions")),
        "{summary}"
    );
    assert!(
        summary.contains(&format!(
            "White won {}, drew {}, lost {}",
            want[2], want[1], want[0]
        )),
        "{summary}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
