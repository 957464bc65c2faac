//! The search as a whole: draws, repetitions, mates, zugzwang, the
//! network's accumulators, and a searcher's reset.

use super::*;
use crate::score::MATE;
use shakmaty::uci::UciMove;

pub(super) fn searcher() -> Searcher {
    Searcher::new(Arc::new(Tt::new(4).unwrap()), &Evaluation::Handcrafted)
}

/// The board after `moves` from `fen`, with the keys of the way there.
fn game(fen: &str, moves: &[&str]) -> (Board, Vec<u64>) {
    let mut board = Board::from_fen(fen, shakmaty::CastlingMode::Standard)
        .unwrap()
        .0;
    let mut keys = vec![board.key()];
    for m in moves {
        let m = m.parse::<UciMove>().unwrap().to_move(board.pos()).unwrap();
        board = board.play(m);
        keys.push(board.key());
    }
    (board, keys)
}

fn search(fen: &str, moves: &[&str], depth: i32) -> Outcome {
    let (board, keys) = game(fen, moves);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let control = Arc::new(Control::new(Instant::now(), None));
    searcher().think(&board, &keys, limits, control, &mut |_| {})
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn a_search_with_a_network_keeps_its_accumulators_up_to_date() {
    // Every evaluation is checked against a full refresh (see
    // `nnue::accumulator`): null moves, probcut, singular searches,
    // quiescence and re-searches all report their moves.
    let net = Arc::new(crate::nnue::network::tests::sample(16));
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        START,
    ] {
        let (board, keys) = game(fen, &[]);
        let mut s = searcher();
        s.set_evaluation(&crate::eval::Evaluation::Network(net.clone()));
        let limits = Limits {
            depth: Some(9),
            ..Limits::default()
        };
        let control = Arc::new(Control::new(Instant::now(), None));
        let out = s.think(&board, &keys, limits, control, &mut |_| {});
        assert!(out.best.is_some());
    }
}

#[test]
fn repetition_is_a_draw_unless_an_irreversible_move_intervened() {
    let mut s = searcher();
    let (board, keys) = game(START, &["g1f3", "g8f6", "f3g1", "f6g8"]);
    s.keys = keys;
    assert!(s.is_draw(&board), "the start position came back");

    // The same shuffle after a pawn move: the pawn move resets the count,
    // and no position repeats after it.
    let (board, keys) = game(START, &["g1f3", "g8f6", "e2e4", "f6g8"]);
    s.keys = keys;
    assert!(!s.is_draw(&board));

    // Across a null move in the search path nothing counts.
    let (board, keys) = game(START, &["g1f3", "g8f6", "f3g1", "f6g8"]);
    s.keys = keys;
    s.nulls = vec![2];
    assert!(!s.is_draw(&board));
}

#[test]
fn a_repetition_one_move_away_is_seen_before_it_is_played() {
    let mut s = searcher();
    // After Nf3 Nf6 Ng1, Black's Ng8 brings the start back.
    let (board, keys) = game(START, &["g1f3", "g8f6", "f3g1"]);
    s.keys = keys;
    assert!(s.can_repeat(&board));
    // After Nf3 Nf6 Nc3 no move of Black's leads to an earlier position.
    let (board, keys) = game(START, &["g1f3", "g8f6", "b1c3"]);
    s.keys = keys;
    assert!(!s.can_repeat(&board));
    // Nf3-g1 would undo White's knight move, but not the pawn move.
    let (board, keys) = game(START, &["g1f3", "g8f6", "e2e4", "f6g8"]);
    s.keys = keys;
    assert!(!s.can_repeat(&board));
    // A repetition the same moves make after the pawn move counts.
    let (board, keys) = game(START, &["e2e4", "g8f6", "g1f3", "f6g8", "f3g1"]);
    s.keys = keys;
    assert!(
        s.can_repeat(&board),
        "Nf6 brings back the position after 1. e4 Nf6"
    );
    // Positions before a null move in the search path do not count.
    let (board, keys) = game(START, &["g1f3", "g8f6", "f3g1"]);
    s.keys = keys;
    s.nulls = vec![1];
    assert!(!s.can_repeat(&board));
}

#[test]
fn fifty_move_rule_draws_but_mate_on_the_hundredth_ply_wins() {
    let s = searcher();
    let quiet = game("4k3/8/8/8/8/8/4R3/4K3 b - - 100 80", &[]).0;
    assert!(s.is_draw(&quiet));
    let almost = game("4k3/8/8/8/8/8/4R3/4K3 b - - 99 80", &[]).0;
    assert!(!s.is_draw(&almost));
    let mated = game("R3k3/8/4K3/8/8/8/8/8 b - - 100 80", &[]).0;
    assert!(!s.is_draw(&mated));
}

#[test]
fn a_losing_side_takes_the_repetition() {
    // A queen down, Black can step back into a position of the game's
    // history: that is a draw, and better than anything else.
    let fen = "7k/8/8/8/8/8/8/3QK3 w - - 0 1";
    let out = search(fen, &["e1e2", "h8g8", "e2e1"], 5);
    assert_eq!(out.score, 0);
    let best = out
        .best
        .map(|m| crate::board::uci_move(m, shakmaty::CastlingMode::Standard));
    assert_eq!(best.as_deref(), Some("g8h8"));
    // Without that history the same position is lost.
    let fresh = search("6k1/8/8/8/8/8/8/3QK3 b - - 3 2", &[], 5);
    assert!(fresh.score < -500, "{}", fresh.score);
}

#[test]
fn a_deep_null_move_cut_off_is_verified_against_zugzwang() {
    // ZPTS.12 of epd/zugts.epd: after Ba4 Black, a queen up, has only
    // moves that lose, so passing is what Black would like most. Deep
    // in the tree an unverified null move lets Black pass and hides
    // the win; without the verification this depth finds Bd7 and 0.
    let fen = "4B3/8/p7/k2N4/7p/K6p/PP5P/2q5 w - - 0 1";
    let out = search(fen, &[], 18);
    let best = out
        .best
        .map(|m| crate::board::uci_move(m, shakmaty::CastlingMode::Standard));
    assert_eq!(best.as_deref(), Some("e8a4"));
    assert!(out.score > 100, "{}", out.score);
}

#[test]
fn mate_scores_count_plies_from_the_root() {
    let mate_in_2 = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1";
    assert_eq!(search(mate_in_2, &[], 6).score, MATE - 3);
    let lost_in_2 = "8/8/8/8/8/5K2/8/R5k1 b - - 0 1";
    assert_eq!(search(lost_in_2, &[], 6).score, -(MATE - 4));
    let stalemate = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
    let out = search(stalemate, &[], 3);
    assert_eq!((out.best, out.score), (None, 0));
}

/// `reset` rebuilds a searcher's tables but keeps what it was given:
/// its network and its tablebases; it then searches as a fresh one.
#[test]
fn reset_keeps_the_network_and_forgets_the_rest() {
    let mut s = searcher();
    s.set_evaluation(&crate::eval::Evaluation::built_in());
    let board = Board::startpos();
    let limits = Limits {
        depth: Some(6),
        ..Limits::default()
    };
    let control = || Arc::new(Control::new(Instant::now(), None));
    let first = s.think(&board, &[], limits.clone(), control(), &mut |_| {});
    s.reset();
    assert!(s.has_network());
    let mut fresh = searcher();
    fresh.set_evaluation(&crate::eval::Evaluation::built_in());
    // The shared table still holds the first search, so compare a
    // reset searcher with a fresh one on their own tables.
    let mut a = searcher();
    a.set_evaluation(&crate::eval::Evaluation::built_in());
    a.reset();
    let x = a.think(&board, &[], limits.clone(), control(), &mut |_| {});
    let y = fresh.think(&board, &[], limits, control(), &mut |_| {});
    assert_eq!((x.best, x.nodes), (y.best, y.nodes));
    assert!(first.best.is_some());
}

#[test]
fn a_soft_node_limit_finishes_the_iteration_that_passes_it() {
    let (board, keys) = game(START, &[]);
    let think = |limits: Limits| {
        let control = Arc::new(Control::new(Instant::now(), None));
        searcher().think(&board, &keys, limits, control, &mut |_| {})
    };
    let soft = think(Limits {
        soft_nodes: Some(5_000),
        nodes: Some(1_000_000),
        ..Limits::default()
    });
    assert!(soft.nodes >= 5_000, "stopped early: {} nodes", soft.nodes);
    // The same search limited to the depth it reached searches the same
    // tree: it stopped at the end of an iteration, not inside one.
    let whole = think(Limits {
        depth: Some(soft.depth),
        ..Limits::default()
    });
    assert_eq!((soft.nodes, soft.best), (whole.nodes, whole.best));
    let shallower = think(Limits {
        depth: Some(soft.depth - 1),
        ..Limits::default()
    });
    assert!(
        shallower.nodes < 5_000,
        "the iteration before had passed it"
    );

    // The hard limit still binds inside an iteration.
    let capped = think(Limits {
        soft_nodes: Some(5_000),
        nodes: Some(soft.nodes - 1),
        ..Limits::default()
    });
    assert!(capped.nodes < soft.nodes);
}
