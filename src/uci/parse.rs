//! Turning a line from the GUI into a [`Command`].
//!
//! `vampirc-uci` parses the protocol. Where it loses information, the raw
//! tokens of the line fill the gap:
//! - `go`: `ponder` next to clock values is dropped, `depth`, `mate` and
//!   `movestogo` keep three digits at most (`depth 1000` reads as 100) and
//!   negative or huge numbers break the line; values are clamped before
//!   vampirc sees them and the exact ones are restored from the tokens.
//! - `position`: a malformed move is dropped silently with the others kept,
//!   FENs need all six fields with no castling files, and words after the
//!   six fields are ignored. Every part of `position` carries information
//!   vampirc can lose, so its FEN and moves are read from the raw tokens
//!   (one bad move then rejects the whole command, and the FEN reader says
//!   exactly what is wrong with a FEN).
//! - `go perft`, `perft`, `bench`, `d` and `eval` are unknown to vampirc.

use vampirc_uci::{UciMessage, UciSearchControl, UciTimeControl, parse_one};

/// A command from the GUI (or the user at a terminal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    Debug(bool),
    IsReady,
    UciNewGame,
    Position {
        /// `None` for `startpos`.
        fen: Option<String>,
        moves: Vec<String>,
    },
    Go(Go),
    Stop,
    PonderHit,
    Quit,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Perft(u32),
    Bench(Option<i32>),
    GenFens(GenFens),
    Display,
    Eval,
    /// A blank line.
    Empty,
}

/// The parameters of `go`, all optional; times in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u32>,
    pub movetime: Option<u64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<String>,
    /// Whether the line spoke of the clock (`wtime`, `btime`, `winc`,
    /// `binc`, `movestogo`), even with values that could not be read: such
    /// a search must end on its own.
    pub clock_words: bool,
}

/// `genfens`: openings for self-play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenFens {
    pub count: usize,
    pub seed: u64,
    /// An EPD file whose lines start the openings (none: the start position).
    pub book: Option<String>,
    pub plies: usize,
    pub balance: i32,
}

/// A parsed line and the warnings it raised (parts ignored or corrected).
#[derive(Debug)]
pub struct Parsed {
    pub command: Command,
    pub warnings: Vec<String>,
}

/// Parses one line, whatever it holds: a panic inside the parser (the
/// protocol crate unwraps numbers it cannot hold, as in `info depth 256`)
/// becomes an error for the user instead of the end of the engine.
///
/// # Errors
/// With a message for the user when the line is not a command.
pub fn parse_guarded(line: &str) -> Result<Parsed, String> {
    guarded(line, parse)
}

/// Runs `f`, a panic in it (with its message silenced) turned into an
/// error that carries the message.
///
/// # Errors
/// The panic's message when `f` panicked.
pub fn caught<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    quietly(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))).map_err(|e| {
        e.downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| e.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into())
    })
}

/// `read(line)`, with a panic in it turned into an error about the line.
fn guarded<T>(line: &str, read: impl FnOnce(&str) -> Result<T, String>) -> Result<T, String> {
    let caught = quietly(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(line))));
    caught.unwrap_or_else(|_| Err(format!("cannot read '{}'", shorten(line))))
}

thread_local! {
    /// Set while a panic is expected and caught on this thread.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the panic message of this thread silenced: a caught
/// panic in the parser is answered with an `info string`, and a report
/// with a backtrace on stderr would only alarm the GUI's log.
fn quietly<T>(f: impl FnOnce() -> T) -> T {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(std::cell::Cell::get) {
                default(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let result = f();
    QUIET.with(|q| q.set(false));
    result
}

/// Parses one line.
///
/// # Errors
/// With a message for the user when the line is not a command.
pub fn parse(line: &str) -> Result<Parsed, String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some(&first) = tokens.first() else {
        return Ok(plain(Command::Empty));
    };
    match first {
        "go" if tokens.get(1) == Some(&"perft") => parse_perft(&tokens[2..]),
        "perft" => parse_perft(&tokens[1..]),
        "go" => parse_go(&tokens),
        "position" => parse_position(&tokens),
        "bench" => match tokens.get(1) {
            None => Ok(plain(Command::Bench(None))),
            Some(d) => d
                .parse::<i32>()
                .ok()
                .filter(|d| (1..=64).contains(d))
                .map(|d| plain(Command::Bench(Some(d))))
                .ok_or_else(|| format!("bench depth must be 1 to 64, not '{d}'")),
        },
        "d" => Ok(plain(Command::Display)),
        "eval" => Ok(plain(Command::Eval)),
        "genfens" => parse_genfens(&tokens),
        // Only the commands vampirc reads for us reach it: it also parses
        // what engines send (`info`, `option`, …) and panics on numbers
        // there that do not fit its types.
        _ => match first.to_ascii_lowercase().as_str() {
            "uci" | "debug" | "isready" | "setoption" | "register" | "ucinewgame" | "stop"
            | "ponderhit" | "quit" => parse_with_vampirc(line, &tokens),
            "info" | "bestmove" | "id" | "option" | "uciok" | "readyok" | "copyprotection"
            | "registration" => Err(format!(
                "'{}' is what an engine sends, not a command: ignored",
                shorten(line)
            )),
            _ => Err(format!("unknown command '{}'", shorten(line))),
        },
    }
}

/// `genfens N seed S book <None|FILE> [plies R] [balance CP]`, as
/// OpenBench's data generation calls engines: N openings, reproducible
/// from the seed, from the start position or a random line of the EPD
/// FILE, then R random plies (default 8, one more half the time), those a
/// 4,000-node search scores beyond CP (default 300) dropped.
fn parse_genfens(tokens: &[&str]) -> Result<Parsed, String> {
    const USAGE: &str =
        "genfens N seed S book <None|FILE> [plies R] [balance CP]: N openings for self-play";
    let count = tokens
        .get(1)
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| (1..=1_000_000).contains(n))
        .ok_or_else(|| format!("{USAGE} (N from 1 to 1,000,000)"))?;
    let mut genfens = GenFens {
        count,
        seed: 0,
        book: None,
        plies: 8,
        balance: 300,
    };
    let mut warnings = Vec::new();
    let (mut seen_seed, mut seen_book) = (false, false);
    let mut rest = tokens[2..].iter().peekable();
    while let Some(&key) = rest.next() {
        let number = |value: Option<&&str>| {
            value
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| format!("genfens: {key} needs a number; {USAGE}"))
        };
        match key {
            "seed" => {
                genfens.seed = number(rest.next())?;
                seen_seed = true;
            }
            "book" => {
                let value = rest
                    .next()
                    .ok_or_else(|| format!("genfens: book needs None or a file; {USAGE}"))?;
                genfens.book = (!value.eq_ignore_ascii_case("none")).then(|| (*value).to_string());
                seen_book = true;
            }
            "plies" => genfens.plies = number(rest.next())?.min(40) as usize,
            "balance" => genfens.balance = number(rest.next())?.min(100_000) as i32,
            // The tester's free "extra" text may hold words of other
            // engines: they cost only themselves.
            other => warnings.push(format!("genfens: '{}' ignored; {USAGE}", shorten(other))),
        }
    }
    if !seen_seed || !seen_book {
        return Err(format!(
            "genfens: the seed and the book are needed; {USAGE}"
        ));
    }
    Ok(Parsed {
        command: Command::GenFens(genfens),
        warnings,
    })
}

/// Whether `arg` (a command-line argument) is a UCI command, whose first
/// word the engine reads as one: such arguments run as UCI commands.
pub fn is_command_word(arg: &str) -> bool {
    matches!(
        arg.split_whitespace().next(),
        Some(
            "uci"
                | "isready"
                | "setoption"
                | "ucinewgame"
                | "position"
                | "go"
                | "stop"
                | "ponderhit"
                | "quit"
                | "genfens"
                | "perft"
                | "d"
                | "eval"
        )
    )
}

fn plain(command: Command) -> Parsed {
    Parsed {
        command,
        warnings: Vec::new(),
    }
}

fn parse_perft(args: &[&str]) -> Result<Parsed, String> {
    match args.first().map(|d| d.parse::<u32>()) {
        Some(Ok(d)) if (1..=20).contains(&d) => Ok(plain(Command::Perft(d))),
        _ => Err("perft needs a depth from 1 to 20".into()),
    }
}

fn parse_with_vampirc(line: &str, tokens: &[&str]) -> Result<Parsed, String> {
    let command = match parse_one(line) {
        UciMessage::Uci => Command::Uci,
        UciMessage::Debug(on) => Command::Debug(on),
        UciMessage::IsReady => Command::IsReady,
        UciMessage::UciNewGame => Command::UciNewGame,
        UciMessage::Stop => Command::Stop,
        UciMessage::PonderHit => Command::PonderHit,
        UciMessage::Quit => Command::Quit,
        UciMessage::SetOption { name, value } => Command::SetOption { name, value },
        _ if tokens[0] == "setoption" => return raw_setoption(tokens),
        UciMessage::Register { .. } => return Ok(plain(Command::Empty)),
        _ => return Err(format!("unknown command '{}'", shorten(line))),
    };
    Ok(plain(command))
}

/// `setoption name N [value V]` for the lines vampirc refuses (an empty
/// value, say), so the user hears what is wrong with the option itself.
fn raw_setoption(tokens: &[&str]) -> Result<Parsed, String> {
    if tokens.get(1) != Some(&"name") {
        return Err("setoption needs 'name <option>'".into());
    }
    let value_at = tokens.iter().position(|t| *t == "value");
    let name = tokens[2..value_at.unwrap_or(tokens.len())].join(" ");
    if name.is_empty() {
        return Err("setoption needs 'name <option>'".into());
    }
    let value = value_at.map(|i| tokens[i + 1..].join(" "));
    Ok(plain(Command::SetOption { name, value }))
}

/// At most 80 characters of a line, for messages about it.
pub fn shorten(line: &str) -> String {
    let line = line.trim();
    if line.chars().count() <= 80 {
        line.to_string()
    } else {
        format!("{}...", line.chars().take(80).collect::<String>())
    }
}

const GO_NUMBERS: [&str; 9] = [
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "mate",
];
const GO_FLAGS: [&str; 2] = ["infinite", "ponder"];
const CLOCK_WORDS: [&str; 5] = ["wtime", "btime", "winc", "binc", "movestogo"];

#[allow(clippy::too_many_lines)] // one arm per `go` parameter
fn parse_go(tokens: &[&str]) -> Result<Parsed, String> {
    let mut warnings = Vec::new();
    // Exact values of the parameters vampirc cannot hold; clamped copies
    // of every number for vampirc itself.
    let mut exact = Go::default();
    let mut clean: Vec<String> = vec!["go".into()];
    let mut i = 1;
    while i < tokens.len() {
        let key = tokens[i];
        i += 1;
        if GO_FLAGS.contains(&key) {
            exact.ponder |= key == "ponder";
            clean.push(key.into());
        } else if GO_NUMBERS.contains(&key) {
            exact.clock_words |= CLOCK_WORDS.contains(&key);
            let Some(raw) = tokens.get(i) else {
                warnings.push(format!("go: '{key}' has no value, ignored"));
                continue;
            };
            let Ok(n) = raw.parse::<i128>() else {
                warnings.push(format!("go: '{key} {raw}' is not a number, ignored"));
                i += 1;
                continue;
            };
            i += 1;
            if n < 0 {
                warnings.push(format!("go: '{key} {n}' is negative, read as 0"));
            }
            let n = u64::try_from(n.max(0)).unwrap_or(u64::MAX);
            let small = u32::try_from(n).unwrap_or(u32::MAX);
            match key {
                "depth" => exact.depth = Some(small),
                "mate" => exact.mate = Some(small),
                "movestogo" => exact.movestogo = Some(small),
                "nodes" => exact.nodes = Some(n),
                _ => {}
            }
            // vampirc takes at most 3 digits for counts and 12 for the rest.
            let limit = if matches!(key, "depth" | "mate" | "movestogo") {
                255
            } else {
                999_999_999_999
            };
            clean.push(format!("{key} {}", n.min(limit)));
        } else if key == "searchmoves" {
            let mut moves = Vec::new();
            while let Some(&m) = tokens.get(i) {
                if GO_NUMBERS.contains(&m) || GO_FLAGS.contains(&m) {
                    break;
                }
                i += 1;
                if looks_like_move(m) {
                    moves.push(m.to_string());
                } else {
                    warnings.push(format!("go: '{m}' is not a move, ignored in searchmoves"));
                }
            }
            // Kept out of vampirc's sight: it refuses the whole line for
            // one token it cannot read (`0000`), where the others drop only
            // the bad move.
            exact.searchmoves.extend(moves);
        } else {
            warnings.push(format!("go: unknown parameter '{}' ignored", shorten(key)));
        }
    }

    let clean = clean.join(" ");
    let UciMessage::Go {
        time_control,
        search_control,
    } = parse_one(&clean)
    else {
        return Err(format!("cannot read '{}'", shorten(&clean)));
    };
    let mut go = Go::default();
    match time_control {
        Some(UciTimeControl::Infinite) => go.infinite = true,
        Some(UciTimeControl::MoveTime(t)) => go.movetime = Some(millis(t)),
        Some(UciTimeControl::TimeLeft {
            white_time,
            black_time,
            white_increment,
            black_increment,
            moves_to_go: _,
        }) => {
            go.wtime = white_time.map(millis);
            go.btime = black_time.map(millis);
            go.winc = white_increment.map(millis);
            go.binc = black_increment.map(millis);
        }
        Some(UciTimeControl::Ponder) | None => {}
    }
    if let Some(UciSearchControl { nodes, .. }) = search_control {
        go.nodes = nodes;
    }
    // The gaps: values vampirc truncates or drops.
    go.ponder = exact.ponder;
    go.infinite |= clean.split(' ').any(|t| t == "infinite");
    go.depth = exact.depth;
    go.mate = exact.mate;
    go.movestogo = exact.movestogo;
    go.nodes = exact.nodes.or(go.nodes);
    go.searchmoves = exact.searchmoves;
    go.clock_words = exact.clock_words;
    Ok(Parsed {
        command: Command::Go(go),
        warnings,
    })
}

fn millis(d: vampirc_uci::Duration) -> u64 {
    u64::try_from(d.num_milliseconds().max(0)).unwrap_or(0)
}

/// Whether a token has the shape of a UCI move (`e2e4`, `a7a8q`, `0000`).
fn looks_like_move(t: &str) -> bool {
    t.parse::<shakmaty::uci::UciMove>().is_ok()
}

fn parse_position(tokens: &[&str]) -> Result<Parsed, String> {
    let moves_at = tokens.iter().position(|t| *t == "moves");
    let moves: Vec<String> = moves_at.map_or_else(Vec::new, |i| {
        tokens[i + 1..].iter().map(|t| (*t).to_string()).collect()
    });
    let head = &tokens[1..moves_at.unwrap_or(tokens.len())];
    let fen = match head.first() {
        Some(&"startpos") if head.len() == 1 => None,
        Some(&"fen") if head.len() > 1 => Some(head[1..].join(" ")),
        Some(&"fen") => return Err("position fen: the FEN is missing".into()),
        Some(&"startpos") => {
            return Err(format!(
                "position: unexpected '{}' after startpos",
                shorten(&head[1..].join(" "))
            ));
        }
        _ => return Err("position needs 'startpos' or 'fen <FEN>'".into()),
    };
    let warnings = if moves_at.is_some() && moves.is_empty() {
        vec!["position: 'moves' with no moves".to_string()]
    } else {
        Vec::new()
    };
    Ok(Parsed {
        command: Command::Position { fen, moves },
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic inside a command becomes an error with its message, and the
    /// caller goes on.
    #[test]
    fn a_panic_is_caught_with_its_message() {
        assert_eq!(caught(|| 7), Ok(7));
        let e = caught(|| -> u8 { panic!("index out of range {}", 3) }).unwrap_err();
        assert_eq!(e, "index out of range 3");
        assert_eq!(
            caught(|| std::panic::panic_any(5u8)).unwrap_err(),
            "a panic"
        );
    }

    fn go(line: &str) -> Go {
        match parse(line).unwrap().command {
            Command::Go(g) => g,
            c => panic!("{c:?}"),
        }
    }

    #[test]
    fn ponder_survives_next_to_clock_values() {
        let g = go("go ponder wtime 1000 btime 2000 winc 10 binc 20");
        assert!(g.ponder);
        assert_eq!(
            (g.wtime, g.btime, g.winc, g.binc),
            (Some(1000), Some(2000), Some(10), Some(20))
        );
        assert!(go("go wtime 1000 btime 2000 ponder").ponder);
        assert!(!go("go wtime 1000 btime 2000").ponder);
    }

    #[test]
    fn large_depth_mate_and_movestogo_are_exact() {
        let g = go("go depth 1000");
        assert_eq!(g.depth, Some(1000));
        let g = go("go mate 300 movestogo 400 nodes 123456789012345");
        assert_eq!(
            (g.mate, g.movestogo, g.nodes),
            (Some(300), Some(400), Some(123_456_789_012_345))
        );
    }

    #[test]
    fn negative_and_absurd_values_are_clamped_with_a_warning() {
        let p = parse("go wtime -500 btime 99999999999999999999999 winc 0 binc 0").unwrap();
        let Command::Go(g) = p.command else { panic!() };
        assert_eq!(g.wtime, Some(0));
        assert_eq!(g.btime, Some(999_999_999_999));
        assert!(!p.warnings.is_empty());
        let p = parse("go depth banana movetime").unwrap();
        assert_eq!(p.warnings.len(), 2);
    }

    #[test]
    fn go_infinite_movetime_searchmoves() {
        assert!(go("go infinite").infinite);
        assert_eq!(go("go movetime 250").movetime, Some(250));
        assert_eq!(
            go("go searchmoves e2e4 d2d4 depth 3").searchmoves,
            ["e2e4", "d2d4"]
        );
        assert_eq!(go("go").depth, None);
        // A null move is no root move, but it must not cost the others.
        let g = go("go searchmoves 0000 e2e4 depth 3");
        assert_eq!(g.searchmoves, ["0000", "e2e4"]);
        assert_eq!(g.depth, Some(3));
    }

    #[test]
    fn perft_forms() {
        assert_eq!(parse("go perft 4").unwrap().command, Command::Perft(4));
        assert_eq!(parse("perft 2").unwrap().command, Command::Perft(2));
        assert!(parse("go perft").is_err());
        assert!(parse("perft 99").is_err());
    }

    #[test]
    fn position_keeps_every_move_token_even_malformed_ones() {
        let p = parse("position startpos moves e2e4 zz e7e5").unwrap();
        assert_eq!(
            p.command,
            Command::Position {
                fen: None,
                moves: vec!["e2e4".into(), "zz".into(), "e7e5".into()]
            }
        );
    }

    #[test]
    fn position_accepts_short_and_chess960_fens() {
        let p = parse("position fen 8/8/8/8/8/8/k7/K7 w - - moves a1b1").unwrap();
        let Command::Position { fen, moves } = p.command else {
            panic!()
        };
        assert_eq!(fen.as_deref(), Some("8/8/8/8/8/8/k7/K7 w - -"));
        assert_eq!(moves, ["a1b1"]);
        let p = parse("position fen rk6/8/8/8/8/8/8/RK5R w HAha - 0 1").unwrap();
        let Command::Position { fen, .. } = p.command else {
            panic!()
        };
        assert_eq!(fen.as_deref(), Some("rk6/8/8/8/8/8/8/RK5R w HAha - 0 1"));
    }

    #[test]
    fn bad_lines_are_errors_not_panics() {
        for line in [
            "position",
            "position fen",
            "position startpos junk",
            "setoption",
            "setoption name",
            "xyzzy",
            "\u{0}\u{1}\u{2}",
            "go perft -1",
            "bench 0",
        ] {
            assert!(parse(line).is_err(), "{line}");
        }
        assert_eq!(parse("   ").unwrap().command, Command::Empty);
    }

    #[test]
    fn setoption_with_spaces_in_the_name() {
        assert_eq!(
            parse("setoption name Move Overhead value 100")
                .unwrap()
                .command,
            Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("100".into())
            }
        );
        assert_eq!(
            parse("setoption name Clear Hash").unwrap().command,
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
    }

    #[test]
    fn lines_an_engine_sends_are_refused_not_fatal() {
        for line in [
            "info depth 256",
            "info seldepth 999",
            "INFO depth 300",
            "info score cp 1 depth 400",
            "option name X type spin default 1 min 0 max 99999",
            "bestmove e2e4 ponder e7e5",
        ] {
            let e = parse(line).unwrap_err();
            assert!(e.contains("engine sends"), "{line}: {e}");
        }
        assert_eq!(parse("ISREADY").unwrap().command, Command::IsReady);
    }

    #[test]
    fn a_panic_while_reading_becomes_an_error() {
        let read = |_: &str| -> Result<(), String> { panic!("a parser bug") };
        let e = guarded("go depth 3", read).unwrap_err();
        assert!(e.contains("go depth 3"), "{e}");
        // The silencing ends with the guard: later panics are reported.
        assert!(!QUIET.with(std::cell::Cell::get));
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        /// Numbers of every size, the ones that overflow a byte or a
        /// 64-bit word above all, and some that are not numbers.
        fn number() -> impl Strategy<Value = String> {
            prop_oneof![
                any::<u8>().prop_map(|n| n.to_string()),
                any::<u64>().prop_map(|n| n.to_string()),
                any::<i64>().prop_map(|n| n.to_string()),
                (255u32..100_000).prop_map(|n| n.to_string()),
                "[0-9]{19,40}",
                "-[0-9]{1,30}",
                "[a-z0-9.+-]{1,6}",
            ]
        }

        fn word() -> impl Strategy<Value = String> {
            prop_oneof![
                Just("go".to_string()),
                Just("position".into()),
                Just("startpos".into()),
                Just("fen".into()),
                Just("moves".into()),
                Just("setoption".into()),
                Just("name".into()),
                Just("value".into()),
                Just("info".into()),
                Just("depth".into()),
                Just("seldepth".into()),
                Just("multipv".into()),
                Just("score".into()),
                Just("cp".into()),
                Just("mate".into()),
                Just("nodes".into()),
                Just("wtime".into()),
                Just("btime".into()),
                Just("winc".into()),
                Just("binc".into()),
                Just("movestogo".into()),
                Just("movetime".into()),
                Just("infinite".into()),
                Just("ponder".into()),
                Just("searchmoves".into()),
                Just("perft".into()),
                Just("bench".into()),
                Just("option".into()),
                Just("type".into()),
                Just("spin".into()),
                Just("default".into()),
                Just("min".into()),
                Just("max".into()),
                Just("bestmove".into()),
                Just("id".into()),
                Just("e2e4".into()),
                Just("0000".into()),
                Just("a7a8q".into()),
                Just("pv".into()),
                Just("hashfull".into()),
                Just("nps".into()),
                Just("tbhits".into()),
                Just("currmove".into()),
                Just("currmovenumber".into()),
                Just("lowerbound".into()),
                Just("upperbound".into()),
                Just("wdl".into()),
                Just("register".into()),
                Just("later".into()),
                Just("debug".into()),
                Just("on".into()),
                Just("uci".into()),
                Just("isready".into()),
                Just("stop".into()),
                Just("INFO".into()),
                Just("Go".into()),
                number(),
                "[ -~]{1,12}",
            ]
        }

        /// Lines shaped like commands and like engine output, with
        /// numbers of any size where numbers go.
        fn grammar_line() -> impl Strategy<Value = String> {
            prop::collection::vec(word(), 0..24).prop_map(|w| w.join(" "))
        }

        fn engine_line() -> impl Strategy<Value = String> {
            let field = prop_oneof![
                "depth",
                "seldepth",
                "multipv",
                "nodes",
                "nps",
                "time",
                "hashfull",
                "tbhits",
                "currmovenumber",
                "score cp",
                "score mate",
            ];
            (
                prop_oneof!["info", "INFO", "Info", "option name Hash type spin default"],
                prop::collection::vec((field, number()), 1..8),
            )
                .prop_map(|(head, fields)| {
                    let body: Vec<String> = fields
                        .into_iter()
                        .map(|(f, n)| format!("{f} {n}"))
                        .collect();
                    format!("{head} {}", body.join(" "))
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4000))]

            // `parse` itself, not the guard: a panic here is a bug of ours
            // or a line still handed to a parser that can panic.
            #[test]
            fn no_line_of_any_bytes_panics(line in "\\PC{0,200}") {
                let _ = parse(&line);
            }

            #[test]
            fn no_command_shaped_line_panics(line in grammar_line()) {
                let _ = parse(&line);
            }

            #[test]
            fn engine_output_is_refused_without_panic(line in engine_line()) {
                prop_assert!(parse(&line).is_err());
            }

            #[test]
            fn go_with_any_numbers_is_read(
                params in prop::collection::vec(
                    (prop::sample::select(&GO_NUMBERS[..]), number()), 0..10)
            ) {
                let line = params
                    .iter()
                    .fold("go".to_string(), |l, (k, n)| format!("{l} {k} {n}"));
                let parsed = parse(&line);
                prop_assert!(parsed.is_ok(), "{}: {:?}", line, parsed.err());
            }
        }
    }
}
