//! The tuner's command line, run as a person runs it from the README.

use std::process::Command;

/// Writes a few positions in the `datagen` format to a fresh file.
fn sample(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("brudno-{}-{name}", std::process::id()));
    let lines = [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 30 | 0.5",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 | 25 | 1.0",
        "8/8/4k3/8/8/4K3/4P3/8 w - - 0 1 | 150 | 1.0",
        "8/8/4k3/8/8/4K3/8/3r4 w - - 0 1 | -500 | 0.0",
        "4k3/8/8/8/8/8/PPP5/4K3 b - - 0 1 | 280 | 1.0",
        "r3k2r/ppp2ppp/8/8/8/8/PPP2PPP/R3K2R w KQkq - 0 1 | 10 | 0.5",
    ];
    std::fs::write(&path, lines.join("\n") + "\n").expect("temp file");
    path
}

fn tune(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_brudno"))
        .arg("tune")
        .args(args)
        .output()
        .expect("the tuner runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn held_out_loss_is_reported_before_and_after_the_fit() {
    let data = sample("train.txt");
    let hold = sample("hold.txt");
    let weights = std::env::temp_dir().join(format!("brudno-{}-w.rs", std::process::id()));
    let (ok, err) = tune(&[
        data.to_str().unwrap(),
        "--epochs",
        "3",
        "--threads",
        "1",
        "--hold",
        hold.to_str().unwrap(),
        "--out",
        weights.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    for name in ["held-out before", "held-out after"] {
        let line = err
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no '{name}' line in:\n{err}"));
        let loss: f64 = line.rsplit(' ').next().unwrap().parse().expect(line);
        assert!(loss > 0.0 && loss < 0.25, "{line}");
    }
    let source = std::fs::read_to_string(&weights).expect("weights written");
    assert!(source.contains("pub const WEIGHTS"));
    for f in [data, hold, weights] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn a_missing_held_out_file_fails_before_the_fit() {
    let data = sample("train2.txt");
    let (ok, err) = tune(&[
        data.to_str().unwrap(),
        "--epochs",
        "100000",
        "--hold",
        "/nonexistent/hold.txt",
    ]);
    assert!(!ok);
    assert!(err.contains("cannot read /nonexistent/hold.txt"), "{err}");
    assert!(!err.contains("epoch"), "the fit ran first:\n{err}");
    let _ = std::fs::remove_file(data);
}
