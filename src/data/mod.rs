//! Training data: its formats, the store that keeps it from day to day, and
//! reading any of it into the 32-byte records the trainer uses.
//!
//! - `packed`: one position in 32 bytes (bulletformat's layout), what the
//!   trainer reads;
//! - `games`: whole games in about 4 bytes a position (viriformat's
//!   layout), what the store keeps;
//! - `text`: `FEN | score | result` lines, for the handcrafted tuner;
//! - `pgn`: games as tournament managers write them, with a score in the
//!   comment after each move (OpenBench's data generation, fastchess);
//! - `store`: the data directory outside the checkout, and the manifest
//!   that says which net made each file.
//!
//! A file's kind is taken from its name: `.bin` packed, `.vf` games,
//! `.txt` text, `.pgn` PGN.

pub mod games;
pub mod packed;
pub mod pgn;
pub mod store;
pub mod text;

use packed::Packed;

/// The kinds of data file, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `.txt`: `FEN | score | result` lines, White's side.
    Text,
    /// `.bin`: 32-byte records.
    Packed,
    /// `.vf`: whole games.
    Games,
    /// `.pgn`: games with scores in their comments.
    Pgn,
}

impl Kind {
    /// The kind `path`'s name says, if any.
    pub fn of(path: &str) -> Option<Kind> {
        let ext = std::path::Path::new(path).extension()?.to_str()?;
        match ext.to_ascii_lowercase().as_str() {
            "txt" => Some(Kind::Text),
            "bin" => Some(Kind::Packed),
            "vf" => Some(Kind::Games),
            "pgn" => Some(Kind::Pgn),
            _ => None,
        }
    }
}

/// Positions read from data files, each with the game it belongs to.
#[derive(Clone, Debug, Default)]
pub struct Positions {
    pub records: Vec<Packed>,
    /// The game of each record: equal numbers, the same game.
    pub games: Vec<u32>,
    /// Games read, counting those of earlier files.
    pub game_count: u32,
}

impl Positions {
    /// Adds a game's records.
    fn push_game(&mut self, records: impl IntoIterator<Item = Packed>) {
        let game = self.game_count;
        let before = self.records.len();
        self.records.extend(records);
        self.games.resize(self.records.len(), game);
        if self.records.len() > before {
            self.game_count += 1;
        }
    }

    /// Adds records in game order (from a packed file or text), a new game
    /// wherever the ply does not follow on from the record before.
    pub(crate) fn push_records(&mut self, records: &[Packed]) {
        let mut start = 0;
        for i in 1..=records.len() {
            if i == records.len() || records[i].ply != records[i - 1].ply.wrapping_add(1) {
                self.push_game(records[start..i].iter().copied());
                start = i;
            }
        }
    }

    /// Reads the file at `path` (kind by its name) and adds its positions.
    ///
    /// # Errors
    /// When it cannot be read, its name says no kind, or a record or game
    /// in it is not valid (the error names the file and the offset).
    pub fn read(&mut self, path: &str) -> Result<(), String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        self.add(path, &bytes)
    }

    /// Adds the positions of `bytes`, the contents of `path`.
    ///
    /// # Errors
    /// As [`Positions::read`].
    pub fn add(&mut self, path: &str, bytes: &[u8]) -> Result<(), String> {
        match Kind::of(path) {
            Some(Kind::Packed) => {
                let records = packed::read_checked(bytes).map_err(|e| format!("{path}: {e}"))?;
                self.push_records(&records);
            }
            Some(Kind::Games) => {
                let (games, _) = games::read_all(bytes).map_err(|e| format!("{path}: {e}"))?;
                for game in games {
                    self.push_game(game.records());
                }
            }
            Some(Kind::Text) => {
                let text = String::from_utf8_lossy(bytes);
                let (records, skipped) = text::read(&text);
                if let Some(first) = skipped.first() {
                    eprintln!(
                        "{path}: {} lines skipped; the first: {first}",
                        skipped.len()
                    );
                }
                self.push_records(&records);
            }
            Some(Kind::Pgn) => {
                let (games, problems) = pgn::read(&String::from_utf8_lossy(bytes));
                if let Some(first) = problems.first() {
                    eprintln!("{path}: {} problems; the first: {first}", problems.len());
                }
                for game in games {
                    self.push_game(game.records());
                }
            }
            None => return Err(format!("{path}: not a data file (.bin, .vf, .txt or .pgn)")),
        }
        Ok(())
    }

    /// What the positions are: their count, games, the trainable share,
    /// results and the mean material.
    pub fn summary(&self) -> String {
        let records = &self.records;
        let n = records.len().max(1) as f64;
        let trainable = records.iter().filter(|p| p.trainable()).count();
        let mut results = [0usize; 3];
        for p in records {
            results[(p.white_result() * 2.0) as usize] += 1;
        }
        let pieces: usize = records.iter().map(|p| p.occ.count_ones() as usize).sum();
        format!(
            "{} games, {} positions, {} trainable ({:.1}%); White won {}, drew {}, lost {} \
             (positions); {:.1} pieces on average",
            self.game_count,
            records.len(),
            trainable,
            100.0 * trainable as f64 / n,
            results[2],
            results[1],
            results[0],
            pieces as f64 / n,
        )
    }
}
