//! `brudno datagen`: self-play games at a fixed node count, written as
//! training positions for the tuner (`brudno tune`) and the WDL model.
//!
//! Each line is one position:
//!
//! ```text
//! <FEN> | <score> | <result>
//! ```
//!
//! `score` is the search score in centipawns from White's side, `result`
//! the game's result from White's side: `1.0`, `0.5` or `0.0`. Only quiet
//! positions are kept: not in check, and the search's move neither captures
//! nor promotes, so the static evaluation can be fitted to them.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Color, EnPassantMode, Move, Position};

use crate::board::{Board, FIFTY_MOVE_PLIES};
use crate::score::{MAX_PLY, TB_WIN};
use crate::search::{Control, Limits, Searcher};
use crate::tt::Tt;

/// What `datagen` is asked to do.
#[derive(Clone, Debug)]
pub struct Config {
    pub games: u64,
    pub nodes: u64,
    pub threads: usize,
    /// Random plies played from the start position before recording.
    pub random_plies: usize,
    /// Openings to start from instead of the start position (FEN/EPD lines).
    pub book: Vec<String>,
    pub seed: u64,
    pub out: String,
}

/// Adjudication: a side this far ahead for `RESIGN_PLIES` plies wins.
const RESIGN_SCORE: i32 = 1_500;
const RESIGN_PLIES: usize = 6;
/// A game this long is drawn (the engine would shuffle on).
const MAX_GAME_PLIES: usize = 400;
/// Positions with larger scores teach the evaluation nothing useful.
const MAX_RECORDED_SCORE: i32 = 2_000;
const HASH_MB: usize = 8;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Runs the games on `config.threads` threads, appending to `config.out`.
///
/// # Errors
/// When the output cannot be written or the book is unreadable.
pub fn run(config: &Config) -> Result<(), String> {
    let file = File::options()
        .create(true)
        .append(true)
        .open(&config.out)
        .map_err(|e| format!("cannot open {}: {e}", config.out))?;
    let out = Arc::new(std::sync::Mutex::new(BufWriter::new(file)));
    let games_done = Arc::new(AtomicU64::new(0));
    let positions = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    std::thread::scope(|scope| {
        for t in 0..config.threads.max(1) {
            let (out, games_done, positions) = (out.clone(), games_done.clone(), positions.clone());
            let builder = std::thread::Builder::new().stack_size(64 << 20);
            builder
                .spawn_scoped(scope, move || {
                    let mut rng = Rng(config.seed ^ (0x9e37_79b9_7f4a_7c15 * (t as u64 + 1)));
                    let mut searcher = Searcher::new(Arc::new(Tt::new(HASH_MB).expect("8 MB")));
                    while games_done.fetch_add(1, Relaxed) < config.games {
                        let lines = play_game(config, &mut searcher, &mut rng);
                        positions.fetch_add(lines.len() as u64, Relaxed);
                        let mut w = out.lock().expect("writer");
                        for l in &lines {
                            let _ = writeln!(w, "{l}");
                        }
                        let done = games_done.load(Relaxed).min(config.games);
                        if done % 100 == 0 {
                            let _ = w.flush();
                            eprintln!(
                                "{done}/{} games, {} positions, {:.0} positions/s",
                                config.games,
                                positions.load(Relaxed),
                                positions.load(Relaxed) as f64 / start.elapsed().as_secs_f64()
                            );
                        }
                    }
                })
                .expect("cannot start a datagen thread");
        }
    });
    out.lock()
        .expect("writer")
        .flush()
        .map_err(|e| format!("cannot write {}: {e}", config.out))?;
    eprintln!(
        "done: {} positions in {:.0} s",
        positions.load(Relaxed),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// A start position: a book line or the start position, then random plies.
/// `None` when the random plies ran into the end of the game.
fn opening(config: &Config, rng: &mut Rng) -> Option<(Board, Vec<u64>)> {
    let mut board = if config.book.is_empty() {
        Board::startpos()
    } else {
        let line = &config.book[rng.below(config.book.len())];
        let fen: String = line
            .split_whitespace()
            .take(6)
            .collect::<Vec<_>>()
            .join(" ");
        Board::from_fen(&fen, CastlingMode::Standard).ok()?.0
    };
    let mut keys = vec![board.key()];
    for _ in 0..config.random_plies {
        let moves = board.pos().legal_moves();
        if moves.is_empty() {
            return None;
        }
        board = board.play(moves[rng.below(moves.len())]);
        keys.push(board.key());
    }
    (!board.pos().legal_moves().is_empty()).then_some((board, keys))
}

/// Plays one game; returns its recorded positions as output lines.
fn play_game(config: &Config, searcher: &mut Searcher, rng: &mut Rng) -> Vec<String> {
    let (mut board, mut keys) = loop {
        if let Some(o) = opening(config, rng) {
            break o;
        }
    };
    searcher.clear();
    searcher.clear_table();
    let mut recorded: Vec<(String, i32)> = Vec::new();
    let mut winning_streak = (Color::White, 0usize);
    let result = loop {
        if let Some(r) = game_over(&board, &keys) {
            break r;
        }
        if keys.len() > MAX_GAME_PLIES {
            break 0.5;
        }
        let limits = Limits {
            nodes: Some(config.nodes),
            ..Limits::default()
        };
        let control = Arc::new(Control::new(Instant::now(), None));
        let outcome = searcher.think(&board, &keys, limits, control, &mut |_| {});
        let Some(best) = outcome.best else { break 0.5 };
        let white_score = if board.turn() == Color::White {
            outcome.score
        } else {
            -outcome.score
        };
        if quiet(&board, best) && outcome.score.abs() < MAX_RECORDED_SCORE {
            let fen = Fen::from_position(board.pos(), EnPassantMode::Legal).to_string();
            recorded.push((fen, white_score));
        }
        // Adjudicate clear wins: decisive scores for several plies in a row.
        if white_score.abs() >= RESIGN_SCORE || outcome.score.abs() >= TB_WIN - MAX_PLY as i32 {
            let leader = if white_score > 0 {
                Color::White
            } else {
                Color::Black
            };
            winning_streak = if winning_streak.0 == leader {
                (leader, winning_streak.1 + 1)
            } else {
                (leader, 1)
            };
            if winning_streak.1 >= RESIGN_PLIES {
                break if leader == Color::White { 1.0 } else { 0.0 };
            }
        } else {
            winning_streak.1 = 0;
        }
        board = board.play(best);
        keys.push(board.key());
    };
    recorded
        .into_iter()
        .map(|(fen, score)| format!("{fen} | {score} | {result:.1}"))
        .collect()
}

/// Whether the position suits fitting a static evaluation.
fn quiet(board: &Board, best: Move) -> bool {
    !board.in_check() && !best.is_capture() && !best.is_promotion()
}

/// The result from White's side if the game has ended.
fn game_over(board: &Board, keys: &[u64]) -> Option<f64> {
    let pos = board.pos();
    if pos.is_checkmate() {
        return Some(if pos.turn() == Color::White { 0.0 } else { 1.0 });
    }
    if pos.is_stalemate() || pos.is_insufficient_material() || pos.halfmoves() >= FIFTY_MOVE_PLIES {
        return Some(0.5);
    }
    let key = board.key();
    let repeats = keys.iter().rev().skip(1).filter(|&&k| k == key).count();
    (repeats >= 2).then_some(0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_positions_with_scores_and_results() {
        let dir = std::env::temp_dir().join(format!("brudno-datagen-{}", std::process::id()));
        let out = dir.to_string_lossy().to_string();
        let config = Config {
            games: 2,
            nodes: 300,
            threads: 2,
            random_plies: 8,
            book: Vec::new(),
            seed: 1,
            out: out.clone(),
        };
        run(&config).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        let _ = std::fs::remove_file(&out);
        assert!(text.lines().count() > 10);
        for line in text.lines() {
            let parts: Vec<&str> = line.split(" | ").collect();
            assert_eq!(parts.len(), 3, "{line}");
            assert!(parts[0].parse::<Fen>().is_ok(), "{line}");
            assert!(parts[1].parse::<i32>().is_ok(), "{line}");
            assert!(["1.0", "0.5", "0.0"].contains(&parts[2]), "{line}");
        }
    }
}
