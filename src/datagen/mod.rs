//! `brudno datagen`: self-play games at a fixed node count (or a soft node
//! limit under a hard cap, `--soft-nodes`), appended to a data file in one
//! of three formats, chosen by its name (see [`crate::data`]):
//!
//! - `.vf`: whole games in about 4 bytes a position ([`games`]), what the
//!   data store keeps; the trainer expands them into 32-byte records;
//! - `.bin`: every position in 32 bytes ([`packed`]), with flags that let
//!   the trainer choose its positions when it reads them;
//! - `.txt`: quiet positions only (not in check, the search's move neither
//!   captures nor promotes) as `FEN | score | result` lines, White's side,
//!   for the handcrafted tuner.
//!
//! Each run is recorded in the file's manifest ([`store`]): which net
//! played, nodes a move, the seed, games and positions.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Color, EnPassantMode, Position};

use crate::board::{Board, FIFTY_MOVE_PLIES};
use crate::data::games::{self, Game};
use crate::data::{Kind, packed, store};
use crate::eval::Evaluation;
use crate::score::{MAX_PLY, TB_WIN};
use crate::search::{Control, Limits, Searcher};
use crate::tt::Tt;

/// What `datagen` is asked to do.
#[derive(Clone, Debug)]
pub struct Config {
    pub games: u64,
    /// Nodes a move: the hard limit.
    pub nodes: u64,
    /// With a soft limit, a move's search starts no new iteration past
    /// this many nodes, so it ends on a whole depth (`nodes` still caps it).
    pub soft_nodes: Option<u64>,
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
    pub net: Evaluation,
    pub seed: u64,
    pub out: String,
    /// The network's name for the manifest (with its checksum), or `hce`.
    pub net_name: String,
}

impl Config {
    /// The output's format, by its name (text unless `.bin` or `.vf`).
    fn kind(&self) -> Kind {
        Kind::of(&self.out).unwrap_or(Kind::Text)
    }
}

/// One position of a game, as the search left it.
struct Record {
    pos: shakmaty::Chess,
    /// The move the search chose (and the game played, unless it ended).
    best: shakmaty::Move,
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

/// The manifest of `path` with this run added (and saved), unless the
/// seed already played into the file: the same seed plays the same games.
fn new_run(config: &Config, path: &std::path::Path) -> Result<Vec<store::Run>, String> {
    let mut runs = store::runs(path);
    if let Some(earlier) = runs.iter().find(|r| r.seed == config.seed) {
        return Err(format!(
            "seed {} already played {} games into {} (its manifest says so): the same seed \
             plays the same games; pass another --seed",
            config.seed, earlier.games, config.out
        ));
    }
    runs.push(store::Run {
        net: config.net_name.clone(),
        nodes: config.nodes,
        soft_nodes: config.soft_nodes.unwrap_or(0),
        random_plies: config.random_plies as u64,
        seed: config.seed,
        engine: concat!("brudno ", env!("CARGO_PKG_VERSION")).into(),
        started: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        games: 0,
        positions: 0,
    });
    store::save_runs(path, &runs)?;
    Ok(runs)
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
    let path = std::path::Path::new(&config.out);
    let runs = new_run(config, path)?;
    let dropped = drop_partial_tail(&file, config.kind())
        .map_err(|e| format!("cannot read back {}: {e}", config.out))?;
    if dropped > 0 {
        eprintln!(
            "dropped {dropped} bytes of a record cut short at the end of {} (a run stopped \
             mid-write); appending after the last whole one",
            config.out
        );
    }
    let runs = std::sync::Mutex::new(runs);
    // The manifest counts this run's games and positions when saved.
    let save = |games: u64, positions: u64| {
        let mut runs = runs.lock().expect("manifest");
        if let Some(run) = runs.last_mut() {
            (run.games, run.positions) = (games, positions);
        }
        store::save_runs(path, &runs)
    };
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
                    let mut searcher =
                        Searcher::new(Arc::new(Tt::new(HASH_MB).expect("8 MB")), &config.net);
                    while games_done.fetch_add(1, Relaxed) < config.games {
                        let (records, result) = play_game(config, &mut searcher, &mut rng);
                        let (bytes, count) = encode(config, &records, result);
                        let mut w = out.lock().expect("writer");
                        if let Err(e) = w.write_all(&bytes) {
                            eprintln!("cannot write {}: {e}", config.out);
                            games_done.store(config.games, Relaxed);
                            break;
                        }
                        positions.fetch_add(count, Relaxed);
                        let done = games_done.load(Relaxed).min(config.games);
                        if done % 100 == 0 {
                            let _ = w.flush();
                            if let Err(e) = save(done, positions.load(Relaxed)) {
                                eprintln!("{e}");
                            }
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
    save(
        games_done.load(Relaxed).min(config.games),
        positions.load(Relaxed),
    )?;
    eprintln!(
        "done: {} positions in {:.0} s",
        positions.load(Relaxed),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Cuts a record that a killed run left half-written off the end of the
/// output, so that what is appended starts on a record boundary: 32 bytes
/// packed, a game in games, a line in text. Returns the bytes dropped.
fn drop_partial_tail(file: &File, kind: Kind) -> std::io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata()?.len();
    let keep = if kind == Kind::Packed {
        len - len % packed::SIZE as u64
    } else if kind == Kind::Games {
        // Games vary in length: read them all to find where the last ends.
        let mut bytes = Vec::new();
        let mut reader = file;
        reader.seek(SeekFrom::Start(0))?;
        reader.read_to_end(&mut bytes)?;
        let (_, whole) = games::read_all(&bytes)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        whole as u64
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

/// `count` openings for self-play elsewhere (OpenBench's `genfens`), made
/// as `datagen` makes its own: a random line of `book` (or the start
/// position), then `random_plies` random plies (one more half the time);
/// those a one-thread search of 4,000 nodes of the FEN alone, from a
/// cleared table, scores beyond `balance` either way are dropped (0 keeps
/// all). A seed gives the same openings on any machine with the same
/// network. Returns FENs.
pub fn genfens(
    count: usize,
    seed: u64,
    book: Vec<String>,
    random_plies: usize,
    balance: i32,
    net: Evaluation,
) -> Vec<String> {
    let config = Config {
        games: 0,
        nodes: BALANCE_NODES,
        soft_nodes: None,
        threads: 1,
        random_plies,
        balance,
        book,
        net,
        seed,
        out: String::new(),
        net_name: String::new(),
    };
    let mut rng = Rng(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut searcher = Searcher::new(Arc::new(Tt::new(HASH_MB).expect("8 MB")), &config.net);
    let mut fens = Vec::with_capacity(count);
    // Give up on a book whose lines all fail (each try costs one search).
    let mut tries = 0usize;
    while fens.len() < count && tries < count.saturating_mul(1000).max(1000) {
        tries += 1;
        let Some((board, keys)) = opening(&config, &mut rng) else {
            continue;
        };
        searcher.clear();
        searcher.clear_table();
        // The FEN is all the games will start from, so the check searches it
        // without the random plies' history: a position those plies passed
        // through would otherwise count as a repetition in the search.
        let fen_only = &keys[keys.len() - 1..];
        if config.balance == 0 || balanced(&config, &mut searcher, &board, fen_only) {
            fens.push(Fen::from_position(board.pos(), EnPassantMode::Legal).to_string());
        }
    }
    fens
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
    // 0, 1 or 2 from White's side.
    let white_result = (result * 2.0).round() as u8;
    let clamp = |score: i32| score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
    if config.kind() == Kind::Games {
        if let Some(first) = records.first() {
            Game {
                start: first.pos.clone(),
                result: white_result,
                moves: records.iter().map(|r| (r.best, clamp(r.score))).collect(),
            }
            .write(&mut bytes);
            count = records.len() as u64;
        }
    } else if config.kind() == Kind::Packed {
        let result = white_result;
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
            soft_nodes: config.soft_nodes,
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
            best,
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
            soft_nodes: None,
            threads: 2,
            random_plies: 8,
            balance: 300,
            book: Vec::new(),
            net: Evaluation::Handcrafted,
            seed: 1,
            out: out.clone(),
            net_name: "hce".into(),
        };
        run(&config).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_file(store::manifest_path(std::path::Path::new(&out)));
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
            soft_nodes: None,
            threads: 1,
            random_plies: 8,
            balance: 0,
            book: Vec::new(),
            net: Evaluation::Handcrafted,
            seed,
            out: out.to_string(),
            net_name: "hce".into(),
        };
        for (ext, unit) in [("bin", packed::SIZE), ("txt", 1), ("vf", 40)] {
            let out = dir
                .join(format!("brudno-datagen-cut-{}.{ext}", std::process::id()))
                .to_string_lossy()
                .to_string();
            let manifest = store::manifest_path(std::path::Path::new(&out));
            let _ = (std::fs::remove_file(&out), std::fs::remove_file(&manifest));
            run(&config(&out, 3)).unwrap();
            let whole = std::fs::read(&out).unwrap();
            let mut cut = whole.clone();
            cut.extend_from_slice(&whole[..unit.max(20) - 5]);
            std::fs::write(&out, &cut).unwrap();
            run(&config(&out, 4)).unwrap();
            let after = std::fs::read(&out).unwrap();
            let runs = store::runs(std::path::Path::new(&out));
            let _ = (std::fs::remove_file(&out), std::fs::remove_file(&manifest));
            assert_eq!(
                runs.iter().map(|r| r.seed).collect::<Vec<_>>(),
                [3, 4],
                "{ext}: the manifest records both runs"
            );
            assert!(after.len() > whole.len(), "{ext}: nothing appended");
            assert_eq!(
                &after[..whole.len()],
                &whole[..],
                "{ext}: the first run's data changed"
            );
            if ext == "bin" {
                assert_eq!(after.len() % packed::SIZE, 0);
            } else if ext == "vf" {
                let (read, whole) = games::read_all(&after).unwrap();
                assert_eq!((read.len(), whole), (2, after.len()));
            } else {
                let text = String::from_utf8(after).unwrap();
                assert!(text.lines().all(|l| l.split(" | ").count() == 3), "{text}");
            }
        }
    }

    /// The same games (one thread, one seed) written as games, packed and
    /// as text: the games expand to exactly the packed records; every text
    /// position comes back from the packed file, in order; and the packed
    /// file holds the rest of each game with its flags.
    #[test]
    fn games_packed_and_text_output_hold_the_same_positions() {
        let dir = std::env::temp_dir();
        let stem = format!("brudno-datagen-same-{}", std::process::id());
        let path = |ext: &str| {
            dir.join(format!("{stem}.{ext}"))
                .to_string_lossy()
                .to_string()
        };
        let config = |out: &str| Config {
            games: 3,
            nodes: 400,
            soft_nodes: None,
            threads: 1,
            random_plies: 8,
            balance: 300,
            book: Vec::new(),
            net: Evaluation::Handcrafted,
            seed: 7,
            out: out.to_string(),
            net_name: "hce".into(),
        };
        let mut read = Vec::new();
        for ext in ["txt", "bin", "vf"] {
            let out = path(ext);
            run(&config(&out)).unwrap();
            read.push(std::fs::read(&out).unwrap());
            let _ = std::fs::remove_file(&out);
            let _ = std::fs::remove_file(store::manifest_path(std::path::Path::new(&out)));
        }
        let (text, bytes, games) = (
            String::from_utf8(read[0].clone()).unwrap(),
            &read[1],
            &read[2],
        );

        let all = packed::read_checked(bytes).unwrap();
        assert_eq!(bytes.len(), all.len() * packed::SIZE);
        let (games, used) = games::read_all(games).unwrap();
        assert_eq!(games.len(), 3);
        assert_eq!(used, read[2].len());
        let expanded: Vec<packed::Packed> = games.iter().flat_map(Game::records).collect();
        assert_eq!(expanded, all, "the games expand to the packed records");
        // About 4 bytes a position, against 32.
        assert!(
            used < all.len() * 5,
            "{used} bytes for {} positions",
            all.len()
        );

        let quiet: Vec<packed::Packed> = all
            .iter()
            .copied()
            .filter(|p| {
                p.flags & (packed::FLAG_IN_CHECK | packed::FLAG_TACTICAL) == 0
                    && i32::from(p.white_score()).abs() < MAX_RECORDED_SCORE
            })
            .collect();
        let (converted, skipped) = crate::data::text::read(&text);
        assert!(skipped.is_empty(), "{skipped:?}");
        let n = converted.len();
        assert!(n > 20 && all.len() > n, "{n} text, {} packed", all.len());
        assert_eq!(converted, quiet);
        // The filters have something to choose from.
        assert!(all.iter().any(|p| p.flags & packed::FLAG_TACTICAL != 0));
        assert!(all.iter().any(packed::Packed::trainable));
        // Games rebuilt from the packed records are the games, less the
        // last position of each.
        let rebuilt = games::from_records(&all);
        assert_eq!(rebuilt.len(), 3);
        for (r, g) in rebuilt.iter().zip(&games) {
            assert_eq!(r.moves[..], g.moves[..g.moves.len() - 1]);
        }
    }
}
