//! Syzygy tablebases through UCI: `SyzygyPath`, `tbhits`, and whole
//! endgames played out against the binary, checked move by move with the
//! tables themselves.

mod common;

use common::{Engine, SECOND, position};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};
use shakmaty_syzygy::{Tablebase, Wdl};

const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy");

fn tables() -> Tablebase<Chess> {
    let mut tb = Tablebase::new();
    tb.add_directory(TABLES).unwrap();
    tb
}

fn engine_with_tables() -> Engine {
    let mut e = Engine::spawn();
    e.send("uci");
    e.expect("uciok", 5 * SECOND);
    e.send(&format!("setoption name SyzygyPath value {TABLES}"));
    let said = e.expect("info string Syzygy", 5 * SECOND);
    assert!(said.contains("up to 4 pieces"), "{said}");
    e.sync();
    e
}

/// Plays `plies` moves from `fen`, asking `pick` for each side's move.
/// Returns the final position and the moves.
fn play(
    fen: &str,
    plies: usize,
    mut pick: impl FnMut(&Chess, &[String]) -> String,
) -> (Chess, Vec<String>) {
    let mut moves: Vec<String> = Vec::new();
    let mut pos = position(Some(fen), &[]);
    for _ in 0..plies {
        if pos.is_game_over() {
            break;
        }
        let mv = pick(&pos, &moves);
        let m = mv
            .parse::<UciMove>()
            .unwrap()
            .to_move(&pos)
            .unwrap_or_else(|_| panic!("illegal {mv} after {moves:?}"));
        pos.play_unchecked(m);
        moves.push(mv);
    }
    (pos, moves)
}

fn ask(e: &mut Engine, fen: &str, moves: &[String], go: &str) -> String {
    if moves.is_empty() {
        e.send(&format!("position fen {fen}"));
    } else {
        e.send(&format!("position fen {fen} moves {}", moves.join(" ")));
    }
    e.send(go);
    e.bestmove(30 * SECOND)
}

#[test]
fn reports_table_wins_and_tbhits() {
    let mut e = engine_with_tables();
    // K+B+N v K: far beyond the horizon of a short search, yet the tables
    // know it is won.
    e.send("position fen 8/8/8/3k4/8/8/8/KBN5 w - - 0 1");
    e.send("go depth 6");
    let lines = e.read_until(10 * SECOND, |l| l.starts_with("bestmove"));
    let last = lines.iter().rev().find(|l| l.contains(" score ")).unwrap();
    let cp: i32 = last
        .split_whitespace()
        .skip_while(|w| *w != "cp")
        .nth(1)
        .map_or(0, |v| v.parse().unwrap());
    assert!(cp > 20_000, "a table win shows as a huge score: {last}");
    let tbhits: u64 = last
        .split_whitespace()
        .skip_while(|w| *w != "tbhits")
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(tbhits > 0, "{last}");

    // Bad paths are reported and leave the engine working without tables.
    e.send("setoption name SyzygyPath value /no/such/dir");
    let said = e.expect("info string", 5 * SECOND);
    assert!(said.contains("/no/such/dir"), "{said}");
    e.send("position fen 8/8/8/3k4/8/8/8/KBN5 w - - 0 1");
    e.send("go depth 4");
    e.bestmove(10 * SECOND);
    e.send("setoption name SyzygyPath value <empty>");
    e.expect("info string Syzygy tables off", 5 * SECOND);
    e.send("quit");
}

#[test]
fn converts_kbn_v_k_within_the_fifty_move_rule() {
    let tb = tables();
    let fen = "8/8/8/3k4/8/8/8/KBN5 w - - 0 1";
    let mut engine = engine_with_tables();
    let (end, moves) = play(fen, 200, |pos, moves| {
        if pos.turn() == shakmaty::Color::White {
            let mv = ask(&mut engine, fen, moves, "go depth 5");
            // Every winning move must keep the win under the fifty-move rule.
            let mut after = pos.clone();
            after.play_unchecked(mv.parse::<UciMove>().unwrap().to_move(pos).unwrap());
            if !after.is_checkmate() {
                let wdl = tb.probe_wdl(&after).unwrap();
                assert!(
                    wdl.unambiguous() == Some(Wdl::Loss),
                    "{mv} after {moves:?} lets the win slip ({wdl:?})"
                );
            }
            mv
        } else {
            // The defender resists as long as possible: the tables' own move.
            let (m, _) = tb.best_move(pos).unwrap().unwrap();
            m.to_uci(shakmaty::CastlingMode::Standard).to_string()
        }
    });
    assert!(
        end.is_checkmate(),
        "not mated after {} plies: {moves:?}",
        moves.len()
    );
    engine.send("quit");
}

#[test]
fn holds_rook_v_knight() {
    let tb = tables();
    // The knight side defends with a one-ply search, which alone would let
    // the knight be cut off and lost; the tables keep every move a draw.
    // The attacker is a table-less engine that searches deeper.
    let fen = "8/8/3kn3/8/8/8/R3K3/8 w - - 0 1";
    let mut defender = engine_with_tables();
    let mut attacker = Engine::spawn();
    attacker.send("uci");
    attacker.expect("uciok", 5 * SECOND);
    let (end, moves) = play(fen, 80, |pos, moves| {
        if pos.turn() == shakmaty::Color::White {
            ask(&mut attacker, fen, moves, "go depth 8")
        } else {
            let mv = ask(&mut defender, fen, moves, "go depth 1");
            let mut after = pos.clone();
            after.play_unchecked(mv.parse::<UciMove>().unwrap().to_move(pos).unwrap());
            let wdl = tb.probe_wdl(&after).unwrap();
            assert!(
                wdl.unambiguous().is_some_and(|w| w <= Wdl::Draw),
                "{mv} after {moves:?} loses ({wdl:?})"
            );
            mv
        }
    });
    assert!(!end.is_checkmate(), "the defender was mated: {moves:?}");
    defender.send("quit");
    attacker.send("quit");
}
