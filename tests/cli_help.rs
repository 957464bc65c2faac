//! The command line as a new user meets it: help for every command, and
//! the `epd` runner's options.

mod common;

fn brudno(args: &[&str]) -> (i32, String) {
    common::run(args, &[])
}

#[test]
fn help_names_every_command_and_exits_0() {
    for flag in ["--help", "-h", "help"] {
        let (code, text) = brudno(&[flag]);
        assert_eq!(code, 0, "{flag}: {text}");
        for command in [
            "bench", "perft", "epd", "datagen", "convert", "data", "tune",
        ] {
            assert!(text.contains(command), "{flag} lacks {command}: {text}");
        }
    }
    let (code, text) = brudno(&["frobnicate"]);
    assert_eq!(code, 1);
    assert!(
        text.contains("unknown command") && text.contains("datagen"),
        "{text}"
    );
}

#[test]
fn every_command_lists_its_options() {
    for (command, flags) in [
        ("bench", &["DEPTH"][..]),
        ("perft", &["DEPTH", "FEN"]),
        (
            "epd",
            &[
                "--movetime",
                "--nodes",
                "--depth",
                "--first",
                "--threads",
                "--hash",
            ],
        ),
        (
            "datagen",
            &[
                "--games",
                "--nodes",
                "--threads",
                "--random-plies",
                "--balance",
                "--book",
                "--seed",
                "--out",
            ],
        ),
        (
            "tune",
            &[
                "--epochs",
                "--lambda",
                "--lr",
                "--l2",
                "--limit",
                "--threads",
                "--freeze-pst",
                "--hold",
                "--out",
                "--wdl",
            ],
        ),
    ] {
        for help in ["--help", "-h"] {
            let (code, text) = brudno(&[command, help]);
            assert_eq!(code, 0, "{command} {help}: {text}");
            for flag in flags {
                assert!(text.contains(flag), "{command} {help} lacks {flag}: {text}");
            }
        }
    }
}

/// `--movetime` is searched whole (no Move Overhead is kept back), and
/// `--first` runs only the top of the file.
#[test]
fn epd_searches_the_whole_movetime_of_the_first_positions() {
    // Quiet positions, where no mate ends the search before its time.
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/epd/bench.epd");
    let (code, text) = brudno(&["epd", suite, "--movetime", "200", "--first", "3"]);
    assert_eq!(code, 0, "{text}");
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(" ms")).collect();
    assert_eq!(lines.len(), 3, "{text}");
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        let i = words.iter().position(|w| *w == "time").unwrap();
        let ms: u64 = words[i + 1].parse().unwrap();
        assert!(ms >= 190, "{line}");
    }
    assert!(text.contains("solved 0/0"), "{text}");
}

/// A value out of range is refused when the command line is read, before
/// any work starts: no output file appears and nothing is played.
#[test]
fn a_bad_value_is_refused_before_any_work_starts() {
    let dir = std::env::temp_dir().join(format!("brudno-cli-bad-{}", std::process::id()));
    let out = dir.join("games.bin");
    let out = out.to_str().unwrap();
    for args in [
        &["datagen", "--games", "1", "--threads", "0", "--out", out][..],
        &["datagen", "--games", "1", "--nodes", "0", "--out", out],
        &["train", "--hidden", "5000", "--out", out, out],
        &["train", "--wdl", "1.5", "--out", out, out],
        &["train", "--validation", "0.9", "--out", out, out],
        &["bench", "0"],
    ] {
        let (code, text) = brudno(args);
        assert_eq!(code, 2, "{args:?}: {text}");
        assert!(text.contains("invalid value"), "{args:?}: {text}");
        assert!(!text.contains(" nodes "), "{args:?} started work: {text}");
        assert!(!dir.exists(), "{args:?} created {}", dir.display());
    }
}
