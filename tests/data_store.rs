//! The data store as a user meets it: `datagen` appends to a store outside
//! the checkout, `data` lists what it holds, `train` reads all of it, and
//! `convert` moves data between the formats. Every test uses a store of its
//! own in a temporary directory, never the user's.

mod common;

use std::path::{Path, PathBuf};

fn brudno(args: &[&str], env: &[(&str, &Path)]) -> (i32, String) {
    common::run(args, env)
}

/// `datagen` of `games` quick handcrafted games with `seed`, and `more`
/// arguments (an `--out`).
fn datagen(games: &str, seed: &str, more: &[&str], env: &[(&str, &Path)]) -> (i32, String) {
    datagen_at("300", games, seed, more, env)
}

/// The same at `nodes` a move.
fn datagen_at(
    nodes: &str,
    games: &str,
    seed: &str,
    more: &[&str],
    env: &[(&str, &Path)],
) -> (i32, String) {
    let mut args = vec![
        "datagen",
        "--games",
        games,
        "--nodes",
        nodes,
        "--threads",
        "1",
        "--net",
        "hce",
        "--seed",
        seed,
    ];
    args.extend_from_slice(more);
    brudno(&args, env)
}

/// A fresh temporary directory for one test.
fn temporary(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("brudno-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The number after `word` in `text`'s line that starts with `start`.
fn count(text: &str, start: &str, word: &str) -> u64 {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(start))
        .unwrap_or_else(|| panic!("no line starting {start}: {text}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let i = words
        .iter()
        .position(|w| w.trim_end_matches([',', ';']) == word)
        .unwrap_or_else(|| panic!("no {word} in {line}"));
    words[i - 1].parse().unwrap()
}

#[test]
fn two_datagen_runs_append_to_the_store_and_data_counts_both() {
    let store = temporary("store");
    let env = [("BRUDNO_DATA", store.as_path())];
    let play = |seed: &str| datagen("2", seed, &["--out", "selfplay.vf"], &env);
    let (code, text) = play("11");
    assert_eq!(code, 0, "{text}");
    let (code, text) = play("12");
    assert_eq!(code, 0, "{text}");
    // The same seed again would repeat its games: refused.
    let (code, text) = play("11");
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("seed 11"), "{text}");

    let (code, text) = brudno(&["data"], &env);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains(&store.display().to_string()), "{text}");
    assert_eq!(count(&text, "selfplay.vf:", "games"), 4, "{text}");
    assert_eq!(count(&text, "total:", "games"), 4, "{text}");
    assert!(count(&text, "total:", "positions") > 40, "{text}");
    assert!(text.contains("hce at 300 nodes"), "{text}");
    let manifest = std::fs::read_to_string(store.join("selfplay.vf.manifest")).unwrap();
    assert_eq!(manifest.matches("[[run]]").count(), 2, "{manifest}");
    assert!(manifest.contains("seed = 11") && manifest.contains("seed = 12"));

    // A second file, named by net and seed, is counted too.
    let (code, text) = datagen("1", "13", &[], &env);
    assert_eq!(code, 0, "{text}");
    assert!(store.join("hce-s13.vf").exists(), "{text}");
    let (_, text) = brudno(&["data", "--data", store.to_str().unwrap()], &[]);
    assert_eq!(count(&text, "total:", "games"), 5, "{text}");

    // `train` with no file trains on the whole store.
    let net = store.join("net.nnue");
    let (code, text) = brudno(
        &[
            "train",
            "--hidden",
            "8",
            "--epochs",
            "1",
            "--validation",
            "0.2",
            "--out",
            net.to_str().unwrap(),
        ],
        &env,
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("5 games"), "{text}");
    assert!(net.exists());
    let _ = std::fs::remove_dir_all(&store);
}

#[test]
fn a_soft_node_limit_is_recorded_and_a_hard_cap_below_it_refused() {
    let store = temporary("soft");
    let env = [("BRUDNO_DATA", store.as_path())];
    // The helper's hard cap is 300 nodes.
    let (code, text) = datagen("1", "21", &["--soft-nodes", "400"], &env);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("--soft-nodes 400 is above the hard cap"),
        "{text}"
    );
    assert!(!store.join("hce-s21.vf").exists(), "nothing is written");

    let (code, text) = datagen_at("2000", "1", "22", &["--soft-nodes", "300"], &env);
    assert_eq!(code, 0, "{text}");
    let manifest = std::fs::read_to_string(store.join("hce-s22.vf.manifest")).unwrap();
    assert!(
        manifest.contains("nodes = 2000\nsoft_nodes = 300\n"),
        "{manifest}"
    );
    let (code, text) = brudno(&["data"], &env);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("hce at 300 soft / 2000 hard nodes"), "{text}");
    let _ = std::fs::remove_dir_all(&store);
}

#[test]
fn the_default_store_lies_under_the_home_directory_outside_the_checkout() {
    let home = temporary("home");
    let (code, text) = brudno(&["data"], &[("HOME", home.as_path())]);
    assert_eq!(code, 0, "{text}");
    let expected = home.join(".local/share/brudno");
    assert!(text.contains(&expected.display().to_string()), "{text}");
    assert!(!expected.starts_with(env!("CARGO_MANIFEST_DIR")));
    let xdg = home.join("xdg");
    let (_, text) = brudno(&["data"], &[("HOME", &home), ("XDG_DATA_HOME", &xdg)]);
    assert!(
        text.contains(&xdg.join("brudno").display().to_string()),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn convert_moves_games_to_records_and_back() {
    let dir = temporary("convert");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (code, text) = datagen("2", "5", &["--out", &path("a.vf")], &[]);
    assert_eq!(code, 0, "{text}");
    let (code, text) = datagen("2", "5", &["--out", &path("a.bin")], &[]);
    assert_eq!(code, 0, "{text}");
    let (code, text) = brudno(&["convert", &path("a.vf"), &path("b.bin")], &[]);
    assert_eq!(code, 0, "{text}");
    // The games expand to the very records datagen packed.
    assert_eq!(
        std::fs::read(path("a.bin")).unwrap(),
        std::fs::read(path("b.bin")).unwrap()
    );
    let (code, text) = brudno(&["convert", &path("a.bin"), &path("c.vf")], &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("2 games"), "{text}");
    let (_, a) = brudno(&["data", &path("a.vf")], &[]);
    let (_, c) = brudno(&["data", &path("c.vf")], &[]);
    assert_eq!(count(&a, "", "games"), 2, "{a}");
    assert_eq!(
        count(&a, "", "positions") - 2,
        count(&c, "", "positions"),
        "the last position of each game is left out: {a} {c}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_damaged_record_is_an_error_that_names_its_file_and_offset() {
    let dir = temporary("damaged");
    let file = dir.join("bad.bin");
    let (code, text) = datagen("1", "3", &["--out", file.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{text}");
    let mut bytes = std::fs::read(&file).unwrap();
    // The third record's first piece becomes kind 7, which does not exist.
    bytes[2 * 32 + 8] |= 7;
    std::fs::write(&file, &bytes).unwrap();
    for args in [
        vec!["data", file.to_str().unwrap()],
        vec![
            "train",
            "--hidden",
            "8",
            "--epochs",
            "1",
            "--out",
            "/nonexistent/never-written.nnue",
            file.to_str().unwrap(),
        ],
    ] {
        let (code, text) = brudno(&args, &[]);
        assert_eq!(code, 1, "{args:?}: {text}");
        assert!(text.contains("bad.bin: offset 64"), "{args:?}: {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
