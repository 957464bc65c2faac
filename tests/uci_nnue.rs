//! Networks through UCI: `EvalFile` loads a network made by the project's
//! own pipeline (`convert`, `train`); files that cannot be used are refused
//! with the reason, and the engine keeps the evaluation it had and plays on.

mod common;

use std::process::Command;

use common::{Engine, SECOND, is_legal, position};

fn brudno(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_brudno"))
        .args(args)
        .output()
        .expect("the engine runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn eval_file_loads_good_networks_and_refuses_bad_ones() {
    let dir = std::env::temp_dir().join(format!("brudno-nnue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("sample.bin");
    let net = dir.join("tiny.nnue");
    let (data_s, net_s) = (data.to_str().unwrap(), net.to_str().unwrap());
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sample.txt");
    brudno(&["convert", sample, data_s]);
    brudno(&[
        "train",
        data_s,
        "--hidden",
        "8",
        "--buckets",
        "4",
        "--epochs",
        "2",
        "--batch",
        "256",
        "--out",
        net_s,
    ]);
    let bytes = std::fs::read(&net).unwrap();

    let truncated = dir.join("truncated.nnue");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let garbage = dir.join("garbage.nnue");
    std::fs::write(&garbage, b"this is no network at all").unwrap();
    let damaged = dir.join("damaged.nnue");
    let mut d = bytes.clone();
    d[40] ^= 0x55;
    std::fs::write(&damaged, &d).unwrap();
    let version = dir.join("version.nnue");
    let mut v = bytes;
    v[4] = 7;
    std::fs::write(&version, &v).unwrap();

    let mut e = Engine::spawn();
    e.send(&format!("setoption name EvalFile value {net_s}"));
    let said = e.expect("info string EvalFile", 5 * SECOND);
    assert!(
        said.contains("8 hidden neurons and 4 output buckets"),
        "{said}"
    );
    e.send("position startpos moves e2e4");
    e.send("eval");
    e.expect("NNUE", 5 * SECOND);
    for (bad, why) in [
        (dir.join("missing.nnue"), "No such file"),
        (truncated, "bytes"),
        (garbage, "not a Brudno network"),
        (damaged, "checksum"),
        (version, "version"),
    ] {
        e.send(&format!("setoption name EvalFile value {}", bad.display()));
        let said = e.expect("info string EvalFile", 5 * SECOND);
        assert!(
            said.contains(why) && said.contains(&format!("keeping {net_s}")),
            "{said}"
        );
        e.send("go depth 4");
        let best = e.bestmove(10 * SECOND);
        assert!(is_legal(&position(None, &["e2e4"]), &best), "{best}");
    }
    // The network still in use: `eval` still shows it.
    e.send("eval");
    e.expect("NNUE", 5 * SECOND);
    e.send("setoption name EvalFile value <empty>");
    e.expect(
        "info string EvalFile: the handcrafted evaluation",
        5 * SECOND,
    );
    let _ = std::fs::remove_dir_all(&dir);
}
