//! The `spsa` build as OpenBench's SPSA tunes drive it: every search
//! parameter is a UCI option, `setoption` changes it, and `brudno spsa`
//! prints the lines the tune's form reads. Run by `.ci/run` with
//! `cargo test --release --features spsa --test spsa`.
#![cfg(feature = "spsa")]

mod common;

use std::process::Command;

use common::{Engine, SECOND, is_legal, position};

fn spsa_lines() -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_brudno"))
        .arg("spsa")
        .output()
        .expect("the engine runs");
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// Seven comma-separated fields each, as OpenBench's parser splits them.
#[test]
fn brudno_spsa_prints_seven_fields_a_line() {
    let lines = spsa_lines();
    assert!(lines.len() >= 40, "{lines:?}");
    for line in &lines {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        assert_eq!(fields.len(), 7, "{line}");
        assert_eq!(fields[1], "int", "{line}");
        let n: Vec<f64> = fields[2..].iter().map(|f| f.parse().unwrap()).collect();
        assert!(n[1] <= n[0] && n[0] <= n[2], "{line}");
    }
    for family in [
        "rfp_",
        "razor_",
        "nmp_",
        "probcut_",
        "futility_",
        "lmp_",
        "history_prune_",
        "see_",
        "lmr_",
        "singular_",
        "aspiration_",
        "time_",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(family)),
            "no parameter of {family}"
        );
    }
}

/// Every line is an option of the engine with the same default and range;
/// a value in range is taken, one outside it refused, and the engine
/// searches with what it was given.
#[test]
fn every_parameter_is_a_uci_option_that_setoption_changes() {
    let lines = spsa_lines();
    let mut e = Engine::spawn();
    e.send("uci");
    let options = e.read_until(5 * SECOND, |l| l == "uciok");
    for line in &lines {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let declared = format!(
            "option name {} type spin default {} min {} max {}",
            f[0], f[2], f[3], f[4]
        );
        assert!(options.contains(&declared), "{declared}");
    }
    e.send("setoption name lmr_base_x100 value 100");
    e.send("setoption name rfp_margin value 120");
    e.sync();
    e.send("setoption name rfp_margin value 9999");
    let said = e.expect("info string", 5 * SECOND);
    assert!(said.contains("out of range"), "{said}");
    e.send("position startpos");
    e.send("go depth 8");
    let best = e.bestmove(20 * SECOND);
    assert!(is_legal(&position(None, &[]), &best), "{best}");
}
