//! `brudno datagen`: self-play games at a fixed node count, written as
//! training positions, in one of two formats.
//!
//! Text (for the tuner, `brudno tune`, and the WDL model), one position a
//! line:
//!
//! ```text
//! <FEN> | <score> | <result>
//! ```
//!
//! `score` is the search score in centipawns from White's side, `result`
//! the game's result from White's side: `1.0`, `0.5` or `0.0`. Only quiet
//! positions are kept: not in check, and the search's move neither captures
//! nor promotes, so the static evaluation can be fitted to them.
//!
//! Packed (an output file ending in `.bin`, for network training): every
//! position of the game in 32 bytes ([`packed`]), with flags that let the
//! trainer choose its positions when it reads them.

pub mod packed;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Color, EnPassantMode, Position};

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
    /// Random plies played from the start position before recording (one
    /// more, half the time, so that either side may move first).
    pub random_plies: usize,
    /// Openings a short search scores beyond this many centipawns either
    /// way are dropped (0: all are kept).
    pub balance: i32,
    /// Openings to start from instead of the start position (FEN/EPD lines).
    pub book: Vec<String>,
    /// The network the games are played with (none: the handcrafted
    /// evaluation).
    pub net: Option<Arc<crate::nnue::Network>>,
    pub seed: u64,
    pub out: String,
}

impl Config {
    /// Whether the output is packed (`.bin`) rather than text.
    fn packed(&self) -> bool {
        is_packed(&self.out)
    }
}

/// Whether `path` names a packed data file (`.bin`) rather than text.
pub fn is_packed(path: &str) -> bool {
    std::path::Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("bin"))
}

/// One position of a game, as the search left it.
struct Record {
    pos: shakmaty::Chess,
    /// Search score, White's side.
    score: i32,
    ply: u16,
    /// `packed::FLAG_*` (without the side to move).
    flags: u8,
}

/// Adjudication: a side this far ahead for `RESIGN_PLIES` plies wins.
const RESIGN_SCORE: i32 = 1_500;
const RESIGN_PLIES: usize = 6;
/// A game this long is drawn (the engine would shuffle on).
const MAX_GAME_PLIES: usize = 400;
/// Positions with larger scores teach the evaluation nothing useful.
const MAX_RECORDED_SCORE: i32 = 2_000;
const HASH_MB: usize = 8;
/// Nodes of the search that checks an opening's balance.
const BALANCE_NODES: u64 = 4_000;

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
        .read(true)
        .append(true)
        .open(&config.out)
        .map_err(|e| format!("cannot open {}: {e}", config.out))?;
    let dropped = drop_partial_tail(&file, config.packed())
        .map_err(|e| format!("cannot read back {}: {e}", config.out))?;
    if dropped > 0 {
        eprintln!(
            "dropped {dropped} bytes of a record cut short at the end of {} (a run stopped \
             mid-write); appending after the last whole one",
            config.out
        );
    }
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
                    searcher.set_network(config.net.clone());
                    while games_done.fetch_add(1, Relaxed) < config.games {
                        let (records, result) = play_game(config, &mut searcher, &mut rng);
                        let (bytes, count) = encode(config, &records, result);
                        positions.fetch_add(count, Relaxed);
                        let mut w = out.lock().expect("writer");
                        let _ = w.write_all(&bytes);
                        let done = games_done.load(Relaxed).min(config.games);
                        if done % 100 == 0 {
                            let _ = w.flush();
                            let secs = start.elapsed().as_secs_f64();
                            let eta = secs / done as f64 * (config.games - done) as f64;
                            eprintln!(
                                "{done}/{} games, {} positions, {:.0} positions/s, ETA {:.0} s",
                                config.games,
                                positions.load(Relaxed),
                                positions.load(Relaxed) as f64 / secs,
                                eta
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

/// Converts text data (`FEN | score | result`, White's side) to packed
/// records: returns their bytes, how many lines were converted, and what
/// was wrong with each line skipped.
pub fn convert(text: &str) -> (Vec<u8>, usize, Vec<String>) {
    let mut bytes = Vec::new();
    let mut converted = 0;
    let mut skipped = Vec::new();
    for (n, line) in text.lines().enumerate() {
        match convert_line(line) {
            Ok(p) => {
                bytes.extend_from_slice(&p.to_bytes());
                converted += 1;
            }
            Err(e) => skipped.push(format!("line {}: {e}", n + 1)),
        }
    }
    (bytes, converted, skipped)
}

fn convert_line(line: &str) -> Result<packed::Packed, String> {
    let mut parts = line.split('|').map(str::trim);
    let (Some(fen), Some(score), Some(result)) = (parts.next(), parts.next(), parts.next()) else {
        return Err("not 'FEN | score | result'".into());
    };
    let (board, _) = Board::from_fen(fen, CastlingMode::Standard)?;
    let score: i32 = score.parse().map_err(|_| format!("bad score '{score}'"))?;
    let result = match result {
        "1.0" | "1" => 2,
        "0.5" => 1,
        "0.0" | "0" => 0,
        _ => return Err(format!("bad result '{result}'")),
    };
    let pos = board.pos();
    let ply = u32::from(pos.fullmoves()) * 2 - 2 + u32::from(pos.turn() == Color::Black);
    let mut flags = 0;
    if pos.is_check() {
        flags |= packed::FLAG_IN_CHECK;
    }
    if score.abs() >= TB_WIN - MAX_PLY as i32 {
        flags |= packed::FLAG_DECISIVE;
    }
    let score = score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
    Ok(packed::Packed::new(
        pos,
        score,
        result,
        u16::try_from(ply).unwrap_or(u16::MAX),
        flags,
    ))
}

/// What a packed file holds: positions, how many a trainer would use, the
/// results and the mean of pieces on the board.
pub fn summary(bytes: &[u8]) -> String {
    let records = packed::read_all(bytes);
    let n = records.len().max(1) as f64;
    let trainable = records.iter().filter(|p| p.trainable()).count();
    let mut results = [0usize; 3];
    for p in &records {
        results[(p.white_result() * 2.0) as usize] += 1;
    }
    let pieces: usize = records.iter().map(|p| p.pieces().count()).sum();
    let mean_score: f64 = records
        .iter()
        .map(|p| f64::from(p.white_score()).abs())
        .sum::<f64>()
        / n;
    format!(
        "{} positions ({} bytes left over), {} trainable ({:.1}%); White won {}, drew {}, \
         lost {} (positions); {:.1} pieces and |score| {:.0} cp on average",
        records.len(),
        bytes.len() % packed::SIZE,
        trainable,
        100.0 * trainable as f64 / n,
        results[2],
        results[1],
        results[0],
        pieces as f64 / n,
        mean_score
    )
}

/// Cuts a record that a killed run left half-written off the end of the
/// output, so that what is appended starts on a record boundary: 32 bytes
/// packed, a line in text. Returns the bytes dropped.
fn drop_partial_tail(file: &File, packed: bool) -> std::io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata()?.len();
    let keep = if packed {
        len - len % packed::SIZE as u64
    } else {
        // The last newline within the tail; lines are far shorter than this.
        let tail = len.min(4096);
        let mut reader = file;
        reader.seek(SeekFrom::Start(len - tail))?;
        let mut bytes = Vec::with_capacity(tail as usize);
        reader.take(tail).read_to_end(&mut bytes)?;
        match bytes.iter().rposition(|&b| b == b'\n') {
            Some(at) => len - tail + at as u64 + 1,
            None if len == tail => 0,
            None => len,
        }
    };
    if keep < len {
        file.set_len(keep)?;
    }
    Ok(len - keep)
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
    for _ in 0..config.random_plies + rng.below(2) {
        let moves = board.pos().legal_moves();
        if moves.is_empty() {
            return None;
        }
        board = board.play(moves[rng.below(moves.len())]);
        keys.push(board.key());
    }
    (!board.pos().legal_moves().is_empty()).then_some((board, keys))
}

/// Whether a short search finds the opening within `config.balance`:
/// random plies often give a piece away, and a game decided at its start
/// teaches little.
fn balanced(config: &Config, searcher: &mut Searcher, board: &Board, keys: &[u64]) -> bool {
    let limits = Limits {
        nodes: Some(BALANCE_NODES),
        ..Limits::default()
    };
    let control = Arc::new(Control::new(Instant::now(), None));
    let outcome = searcher.think(board, keys, limits, control, &mut |_| {});
    outcome.score.abs() <= config.balance
}

/// A game's records in the output's format, and how many positions that is.
fn encode(config: &Config, records: &[Record], result: f64) -> (Vec<u8>, u64) {
    let mut bytes = Vec::new();
    let mut count = 0;
    if config.packed() {
        // 0, 1 or 2 from White's side.
        let result = (result * 2.0).round() as u8;
        for r in records {
            let score = r.score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
            let p = packed::Packed::new(&r.pos, score, result, r.ply, r.flags);
            bytes.extend_from_slice(&p.to_bytes());
            count += 1;
        }
    } else {
        for r in records {
            if r.flags & (packed::FLAG_IN_CHECK | packed::FLAG_TACTICAL) == 0
                && r.score.abs() < MAX_RECORDED_SCORE
            {
                let fen = Fen::from_position(&r.pos, EnPassantMode::Legal);
                let _ = writeln!(bytes, "{fen} | {} | {result:.1}", r.score);
                count += 1;
            }
        }
    }
    (bytes, count)
}

/// Plays one game; returns every position searched and the result from
/// White's side.
fn play_game(config: &Config, searcher: &mut Searcher, rng: &mut Rng) -> (Vec<Record>, f64) {
    let (mut board, mut keys) = loop {
        if let Some((board, keys)) = opening(config, rng)
            && (config.balance == 0 || balanced(config, searcher, &board, &keys))
        {
            break (board, keys);
        }
    };
    searcher.clear();
    searcher.clear_table();
    let mut recorded = Vec::new();
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
        let decisive = outcome.score.abs() >= TB_WIN - MAX_PLY as i32;
        let mut flags = 0;
        if board.in_check() {
            flags |= packed::FLAG_IN_CHECK;
        }
        if best.is_capture() || best.is_promotion() {
            flags |= packed::FLAG_TACTICAL;
        }
        if decisive {
            flags |= packed::FLAG_DECISIVE;
        }
        let moves_played = u32::from(board.pos().fullmoves()) * 2 - 2;
        recorded.push(Record {
            pos: board.pos().clone(),
            score: white_score,
            ply: u16::try_from(moves_played + u32::from(board.turn() == Color::Black))
                .unwrap_or(u16::MAX),
            flags,
        });
        // Adjudicate clear wins: decisive scores for several plies in a row.
        if white_score.abs() >= RESIGN_SCORE || decisive {
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
    (recorded, result)
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
            balance: 300,
            book: Vec::new(),
            net: None,
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

    /// A run killed mid-write leaves part of a record; the next run cuts it
    /// off and appends whole records after the ones already there.
    #[test]
    fn a_resumed_run_appends_after_a_record_cut_short() {
        let dir = std::env::temp_dir();
        let config = |out: &str, seed| Config {
            games: 1,
            nodes: 300,
            threads: 1,
            random_plies: 8,
            balance: 0,
            book: Vec::new(),
            net: None,
            seed,
            out: out.to_string(),
        };
        for (ext, unit) in [("bin", packed::SIZE), ("txt", 1)] {
            let out = dir
                .join(format!("brudno-datagen-cut-{}.{ext}", std::process::id()))
                .to_string_lossy()
                .to_string();
            let _ = std::fs::remove_file(&out);
            run(&config(&out, 3)).unwrap();
            let whole = std::fs::read(&out).unwrap();
            let mut cut = whole.clone();
            cut.extend_from_slice(&whole[..unit.max(20) - 5]);
            std::fs::write(&out, &cut).unwrap();
            run(&config(&out, 4)).unwrap();
            let after = std::fs::read(&out).unwrap();
            let _ = std::fs::remove_file(&out);
            assert!(after.len() > whole.len(), "{ext}: nothing appended");
            assert_eq!(
                &after[..whole.len()],
                &whole[..],
                "{ext}: the first run's data changed"
            );
            if ext == "bin" {
                assert_eq!(after.len() % packed::SIZE, 0);
                assert_eq!(summary(&after).matches("(0 bytes left over)").count(), 1);
            } else {
                let text = String::from_utf8(after).unwrap();
                assert!(text.lines().all(|l| l.split(" | ").count() == 3), "{text}");
            }
        }
    }

    /// The same games (one thread, one seed) written packed and as text:
    /// every text position comes back from the packed file, in order, and
    /// the packed file holds the rest of each game with its flags.
    #[test]
    fn packed_and_text_output_hold_the_same_positions() {
        let dir = std::env::temp_dir();
        let stem = format!("brudno-datagen-same-{}", std::process::id());
        let text_out = dir
            .join(format!("{stem}.txt"))
            .to_string_lossy()
            .to_string();
        let bin_out = dir
            .join(format!("{stem}.bin"))
            .to_string_lossy()
            .to_string();
        let config = |out: &str| Config {
            games: 3,
            nodes: 400,
            threads: 1,
            random_plies: 8,
            balance: 300,
            book: Vec::new(),
            net: None,
            seed: 7,
            out: out.to_string(),
        };
        run(&config(&text_out)).unwrap();
        run(&config(&bin_out)).unwrap();
        let text = std::fs::read_to_string(&text_out).unwrap();
        let bytes = std::fs::read(&bin_out).unwrap();
        let _ = (
            std::fs::remove_file(&text_out),
            std::fs::remove_file(&bin_out),
        );

        let all = packed::read_all(&bytes);
        assert_eq!(bytes.len(), all.len() * packed::SIZE);
        let quiet: Vec<packed::Packed> = all
            .iter()
            .copied()
            .filter(|p| {
                p.flags & (packed::FLAG_IN_CHECK | packed::FLAG_TACTICAL) == 0
                    && i32::from(p.white_score()).abs() < MAX_RECORDED_SCORE
            })
            .collect();
        let (converted, n, skipped) = convert(&text);
        assert!(skipped.is_empty(), "{skipped:?}");
        assert!(n > 20 && all.len() > n, "{n} text, {} packed", all.len());
        assert_eq!(packed::read_all(&converted), quiet);
        // The filters have something to choose from.
        assert!(all.iter().any(|p| p.flags & packed::FLAG_TACTICAL != 0));
        assert!(all.iter().any(packed::Packed::trainable));
        assert!(summary(&bytes).starts_with(&format!("{} positions", all.len())));
    }
}
