//! `brudno data [FILE...]` and `brudno convert IN OUT`.

use std::path::PathBuf;

use crate::data::games::{self, Game};
use crate::data::{Kind, Positions, packed, pgn, store, text};

/// Lists the data store, or summarises data files
///
/// With no FILE, lists every data file of the store (see --data): games,
/// positions, the share a trainer would use (ply 16 or later, not in check,
/// a quiet best move, no mate score) and which net made them, then the
/// totals. With files, summarises each: also results and material.
#[derive(clap::Args)]
pub struct Args {
    /// Data files (.vf games, .bin packed records, .txt text)
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    #[command(flatten)]
    store: super::data::Store,
}

/// Converts training data from one kind to another, by the files' names
///
/// The kinds: .txt text ('FEN | score | result', White's side), .bin
/// 32-byte records (bulletformat's layout), .vf whole games (viriformat's
/// layout), .pgn games with a score in the comment after each move
/// (fastchess, cutechess-cli, OpenBench's data generation). OUT is appended
/// to. Text becomes records; records become games (less the last position
/// of each game, whose move no record shows); games and PGN become either.
#[derive(clap::Args)]
pub struct ConvertArgs {
    #[arg(value_name = "IN")]
    input: String,
    #[arg(value_name = "OUT")]
    output: String,
}

/// `--data DIR`, the data store, shared by the commands that use it.
#[derive(clap::Args)]
pub struct Store {
    /// The data store [default: the variable `BRUDNO_DATA`, else
    /// `XDG_DATA_HOME`/brudno, else ~/.local/share/brudno]
    #[arg(long = "data", value_name = "DIR")]
    data: Option<String>,
}

impl Store {
    /// The store's directory from `--data` (or its defaults).
    pub fn dir(&self) -> Result<PathBuf, String> {
        store::dir(self.data.as_deref()).ok_or_else(|| {
            format!(
                "no data store: pass --data DIR or set {} (no home directory is known)",
                store::ENV
            )
        })
    }
}

pub fn run(args: &Args) -> Result<(), String> {
    if !args.files.is_empty() {
        for file in &args.files {
            let mut positions = Positions::default();
            positions.read(file)?;
            println!("{file}: {}", positions.summary());
        }
        return Ok(());
    }
    let dir = args.store.dir()?;
    if !dir.exists() {
        println!(
            "the data store {} is empty (it does not exist yet)",
            dir.display()
        );
        return Ok(());
    }
    println!("data store {}", dir.display());
    let (mut games, mut positions, mut trainable, mut files) = (0u64, 0u64, 0u64, 0);
    for file in store::files(&dir)? {
        let (read, line) = store::describe(&file)?;
        println!("  {line}");
        games += u64::from(read.game_count);
        positions += read.records.len() as u64;
        trainable += read.records.iter().filter(|p| p.trainable()).count() as u64;
        files += 1;
    }
    println!(
        "total: {files} files, {games} games, {positions} positions, {trainable} trainable ({:.1}%)",
        100.0 * trainable as f64 / positions.max(1) as f64
    );
    Ok(())
}

/// The games of a PGN file, saying on stderr what was passed over.
fn pgn_games(bytes: &[u8]) -> Vec<Game> {
    let (games, problems) = pgn::read(&String::from_utf8_lossy(bytes));
    if let Some(first) = problems.first() {
        eprintln!("{} problems; the first: {first}", problems.len());
    }
    games
}

pub fn convert(args: &ConvertArgs) -> Result<(), String> {
    let (input, output) = (&args.input, &args.output);
    let kind = |path: &str| {
        Kind::of(path)
            .ok_or_else(|| format!("{path}: not a data file's name (.txt, .bin, .vf or .pgn)"))
    };
    let bytes = super::read(input)?;
    let mut out = Vec::new();
    let (what, count) = match (kind(input)?, kind(output)?) {
        (Kind::Text, Kind::Packed) => {
            let (records, skipped) = text::read(&String::from_utf8_lossy(&bytes));
            if let Some(first) = skipped.first() {
                eprintln!("{} lines skipped; the first: {first}", skipped.len());
            }
            for r in &records {
                out.extend_from_slice(&r.to_bytes());
            }
            ("positions", records.len())
        }
        (Kind::Packed, Kind::Games) => {
            let records = packed::read_checked(&bytes).map_err(|e| format!("{input}: {e}"))?;
            let games = games::from_records(&records);
            for g in &games {
                g.write(&mut out);
            }
            let kept: usize = games.iter().map(|g| g.moves.len()).sum();
            eprintln!(
                "{} of {} positions kept in {} games (the last of each game has no move)",
                kept,
                records.len(),
                games.len()
            );
            ("games", games.len())
        }
        (Kind::Pgn, Kind::Games) => {
            let games = pgn_games(&bytes);
            for g in &games {
                g.write(&mut out);
            }
            ("games", games.len())
        }
        (from @ (Kind::Games | Kind::Pgn), Kind::Packed) => {
            let games = if from == Kind::Pgn {
                pgn_games(&bytes)
            } else {
                games::read_all(&bytes)
                    .map_err(|e| format!("{input}: {e}"))?
                    .0
            };
            let records: Vec<_> = games.iter().flat_map(Game::records).collect();
            for r in &records {
                out.extend_from_slice(&r.to_bytes());
            }
            ("positions", records.len())
        }
        (from, to) => {
            return Err(format!("cannot convert {from:?} data to {to:?} data"));
        }
    };
    std::fs::File::options()
        .create(true)
        .append(true)
        .open(output)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &out))
        .map_err(|e| format!("cannot write {output}: {e}"))?;
    println!("{count} {what} appended to {output}");
    Ok(())
}
