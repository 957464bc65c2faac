//! The data store: a directory outside the checkout where self-play
//! accumulates from day to day, so that a fresh clone on a machine that
//! already made data trains on all of it.
//!
//! Where it is: `--data DIR` when a command is given one, else the
//! environment variable `BRUDNO_DATA`, else `$XDG_DATA_HOME/brudno`, else
//! `~/.local/share/brudno`.
//!
//! Beside each data file `NAME` lies `NAME.manifest`, since the records do
//! not say which net made them: one block for each run that wrote to the
//! file, `key = value` lines (a subset of TOML):
//!
//! ```text
//! [[run]]
//! net = "gen2.nnue (built-in) fnv 3c0f5a2e9b1d4477"
//! nodes = 5000
//! random_plies = 8
//! seed = 93101
//! engine = "brudno 0.1.0"
//! started = 1796664660
//! games = 1200
//! positions = 168000
//! ```
//!
//! A run with a soft node limit (`datagen --soft-nodes`) adds a line
//! `soft_nodes = S`, and `nodes` is then its hard cap.
//!
//! `games` and `positions` are what the run had written when the manifest
//! was last saved (every 100 games and at the end); the file itself is the
//! truth, and `brudno data` counts it.

use std::path::{Path, PathBuf};

use super::{Kind, Positions};

/// The environment variable that names the store.
pub const ENV: &str = "BRUDNO_DATA";

/// The store's directory: `arg` when given, else [`ENV`], else under the
/// user's data directory. `None` when none of these is known (no home).
pub fn dir(arg: Option<&str>) -> Option<PathBuf> {
    let set = |v: Option<std::ffi::OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    arg.map(PathBuf::from)
        .or_else(|| set(std::env::var_os(ENV)))
        .or_else(|| set(std::env::var_os("XDG_DATA_HOME")).map(|d| d.join("brudno")))
        .or_else(|| set(std::env::var_os("HOME")).map(|h| h.join(".local/share/brudno")))
}

/// The data files of the store, by name: packed records and games.
///
/// # Errors
/// When the directory cannot be listed.
pub fn files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot list the data store {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && matches!(
                    Kind::of(&p.to_string_lossy()),
                    Some(Kind::Packed | Kind::Games)
                )
        })
        .collect();
    files.sort();
    Ok(files)
}

/// One run of `datagen` into a file, as its manifest records it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Run {
    /// The network that played: its name and checksum, or `hce`.
    pub net: String,
    /// Nodes a move (the hard limit when `soft_nodes` is set).
    pub nodes: u64,
    /// The soft node limit (no new iteration past it), 0 for none.
    pub soft_nodes: u64,
    pub random_plies: u64,
    pub seed: u64,
    pub engine: String,
    /// Seconds since 1970 when the run started.
    pub started: u64,
    pub games: u64,
    pub positions: u64,
}

/// The manifest's path for data file `path`.
pub fn manifest_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".manifest");
    PathBuf::from(name)
}

impl Run {
    fn write(&self, out: &mut String) {
        use std::fmt::Write as _;
        let quote = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = write!(
            out,
            "[[run]]\nnet = \"{}\"\nnodes = {}\n{}random_plies = {}\nseed = {}\nengine = \
             \"{}\"\nstarted = {}\ngames = {}\npositions = {}\n\n",
            quote(&self.net),
            self.nodes,
            if self.soft_nodes == 0 {
                String::new()
            } else {
                format!("soft_nodes = {}\n", self.soft_nodes)
            },
            self.random_plies,
            self.seed,
            quote(&self.engine),
            self.started,
            self.games,
            self.positions
        );
    }
}

/// The runs a manifest's text records (lines it does not know are passed
/// over, so that later versions may add keys).
pub fn parse_manifest(text: &str) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line == "[[run]]" {
            runs.push(Run::default());
            continue;
        }
        let (Some(run), Some((key, value))) = (runs.last_mut(), line.split_once('=')) else {
            continue;
        };
        let value = value.trim();
        let text = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .map(|v| v.replace("\\\"", "\"").replace("\\\\", "\\"));
        let number = value.parse::<u64>().unwrap_or(0);
        match key.trim() {
            "net" => run.net = text.unwrap_or_default(),
            "engine" => run.engine = text.unwrap_or_default(),
            "nodes" => run.nodes = number,
            "soft_nodes" => run.soft_nodes = number,
            "random_plies" => run.random_plies = number,
            "seed" => run.seed = number,
            "started" => run.started = number,
            "games" => run.games = number,
            "positions" => run.positions = number,
            _ => {}
        }
    }
    runs
}

/// The runs recorded beside data file `path` (none without a manifest).
pub fn runs(path: &Path) -> Vec<Run> {
    std::fs::read_to_string(manifest_path(path))
        .map(|t| parse_manifest(&t))
        .unwrap_or_default()
}

/// Saves the manifest of `path` with `runs`, replacing the old one whole
/// (written beside it, then renamed over it).
///
/// # Errors
/// When it cannot be written.
pub fn save_runs(path: &Path, runs: &[Run]) -> Result<(), String> {
    let mut text =
        String::from("# Written by `brudno datagen`: one block for each run into the file.\n\n");
    for run in runs {
        run.write(&mut text);
    }
    let target = manifest_path(path);
    let mut temporary = target.clone().into_os_string();
    temporary.push(".new");
    std::fs::write(&temporary, text)
        .and_then(|()| std::fs::rename(&temporary, &target))
        .map_err(|e| format!("cannot write {}: {e}", target.display()))
}

/// A line about one data file: games, positions, the trainable share and
/// which nets played (from its manifest).
///
/// # Errors
/// When the file cannot be read or holds data that is not valid.
pub fn describe(path: &Path) -> Result<(Positions, String), String> {
    let mut positions = Positions::default();
    positions.read(&path.to_string_lossy())?;
    let runs = runs(path);
    let mut nets: Vec<String> = Vec::new();
    for run in &runs {
        let net = if run.soft_nodes == 0 {
            format!("{} at {} nodes", run.net, run.nodes)
        } else {
            format!(
                "{} at {} soft / {} hard nodes",
                run.net, run.soft_nodes, run.nodes
            )
        };
        if !nets.contains(&net) {
            nets.push(net);
        }
    }
    let made_by = if nets.is_empty() {
        "no manifest".to_string()
    } else {
        nets.join("; ")
    };
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let trainable = positions.records.iter().filter(|p| p.trainable()).count();
    let line = format!(
        "{name}: {} games, {} positions, {} trainable ({:.1}%); {made_by}",
        positions.game_count,
        positions.records.len(),
        trainable,
        100.0 * trainable as f64 / positions.records.len().max(1) as f64
    );
    Ok((positions, line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_reads_back_what_was_written() {
        let runs = vec![
            Run {
                net: "gen2.nnue (built-in) fnv 0123".into(),
                nodes: 5000,
                soft_nodes: 0,
                random_plies: 8,
                seed: 93101,
                engine: "brudno 0.1.0".into(),
                started: 1_796_664_660,
                games: 1200,
                positions: 168_000,
            },
            Run {
                net: "a \"quoted\" name".into(),
                seed: 2,
                nodes: 20_000,
                soft_nodes: 5_000,
                ..Run::default()
            },
        ];
        let dir = std::env::temp_dir().join(format!("brudno-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data = dir.join("games.vf");
        save_runs(&data, &runs).unwrap();
        assert_eq!(self::runs(&data), runs);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_store_is_chosen_by_flag_then_environment_then_home() {
        // Only the flag is tested here: the environment belongs to the
        // whole test process (tests/data_store.rs sets it per process).
        assert_eq!(dir(Some("/x/y")), Some(PathBuf::from("/x/y")));
    }
}
