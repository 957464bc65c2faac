//! The UCI front end: a reader thread turns stdin into lines, this thread
//! turns lines into engine calls and engine events into output. It is the
//! only writer of stdout, so lines never interleave.

mod format;
mod options;
pub mod parse;

use std::io::{BufRead, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, select, unbounded};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, EnPassantMode, Move, Position};

use crate::board::Board;
use crate::engine::{Engine, Event, Request};
use crate::eval::{Evaluation, hce};
use crate::search::Limits;
use crate::search::skill::{MAX_ELO, Skill, elo_for_level};
use crate::time::TimeControl;
use crate::{bench, perft};
use options::{DEFAULT_HASH_MB, DEFAULT_MOVE_OVERHEAD_MS, Setting};
use parse::{Command, Go, parse_guarded, shorten};

const NAME: &str = concat!("Brudno ", env!("CARGO_PKG_VERSION"));
const AUTHOR: &str = "the Brudno developers";

/// Writes whole lines to stdout, flushing each.
pub struct Out {
    stdout: std::io::Stdout,
}

impl Out {
    pub fn new() -> Out {
        Out {
            stdout: std::io::stdout(),
        }
    }

    pub fn line(&mut self, s: &str) {
        let mut lock = self.stdout.lock();
        // A closed stdout means the GUI is gone; nothing useful can be done.
        let _ = writeln!(lock, "{s}");
        let _ = lock.flush();
    }

    pub fn info_string(&mut self, s: &str) {
        self.line(&format!("info string {s}"));
    }
}

impl Default for Out {
    fn default() -> Self {
        Out::new()
    }
}

/// The longest line read: no command needs more (a `position` of a
/// thousand moves takes 5 KB).
const MAX_LINE: usize = 1 << 20;
/// What the reader hands on in place of a longer line (a NUL cannot come
/// from a line, which is cut at it by nothing else), with its length.
const TOO_LONG: &str = "\0too-long";

/// Reads stdin on its own thread, so commands arrive while a search runs.
fn spawn_reader(commands: Vec<String>) -> Receiver<String> {
    let (tx, rx) = unbounded();
    let quits = commands
        .iter()
        .any(|c| c.split_whitespace().next() == Some("quit"));
    for c in commands {
        let _ = tx.send(c);
    }
    if quits {
        return rx;
    }
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut lock = stdin.lock();
            let mut buf = Vec::new();
            loop {
                buf.clear();
                // At most MAX_LINE bytes of a line are kept; the rest of a
                // longer one is read and dropped, so no input exhausts memory.
                let read = lock
                    .by_ref()
                    .take(MAX_LINE as u64 + 1)
                    .read_until(b'\n', &mut buf);
                let line = match read {
                    Ok(0) | Err(_) => break,
                    Ok(_) if buf.len() > MAX_LINE => {
                        let mut dropped = buf.len() as u64;
                        while !buf.ends_with(b"\n") {
                            buf.clear();
                            match lock.by_ref().take(1 << 16).read_until(b'\n', &mut buf) {
                                Ok(0) | Err(_) => break,
                                Ok(n) => dropped += n as u64,
                            }
                        }
                        format!("{TOO_LONG} {dropped}")
                    }
                    // Binary junk becomes replacement characters, not an error.
                    Ok(_) => String::from_utf8_lossy(&buf).into_owned(),
                };
                if tx.send(line).is_err() {
                    break;
                }
            }
        })
        .expect("cannot start the stdin thread");
    rx
}

/// What a search's `bestmove` waits for before it goes out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hold {
    /// Nothing: it goes out when the search ends.
    Off,
    /// `go infinite`: `stop`.
    Infinite,
    /// `go ponder`: `stop` or `ponderhit`.
    Ponder,
}

/// The front end's state.
struct Uci {
    out: Out,
    engine: Engine,
    events: Receiver<Event>,
    board: Board,
    /// Keys of the game's positions, the current one last.
    keys: Vec<u64>,
    /// Whether the running search's `bestmove` waits for `stop` (or, when
    /// pondering, `ponderhit`).
    hold: Hold,
    held: Option<crate::search::Outcome>,
    /// `UCI_Chess960`: how castling is read and written.
    castling: CastlingMode,
    /// `MultiPV`: lines to search and show.
    multipv: usize,
    show_wdl: bool,
    /// `UCI_Elo` when `UCI_LimitStrength` is on.
    limit_strength: bool,
    elo: u32,
    /// `Skill Level`: a weaker level when below 20 and `UCI_LimitStrength`
    /// is off (`UCI_LimitStrength` and `UCI_Elo` take precedence).
    skill_level: u32,
    /// The network loaded by `EvalFile`, and its file.
    network: Option<(String, std::sync::Arc<crate::nnue::Network>)>,
    /// A `perft` or `bench` running on its own thread, so that `stop`,
    /// `isready` and `quit` are still answered while it counts.
    task: Option<Task>,
    /// The lines a task prints, written out by this thread.
    task_lines: (Sender<String>, Receiver<String>),
}

/// A `perft` or `bench` under way.
struct Task {
    stop: Arc<AtomicBool>,
    handle: std::thread::JoinHandle<()>,
}

/// Runs the UCI loop until `quit` or the end of input, with `commands`
/// (from the command line, as OpenBench calls engines) read first; then
/// standard input, unless one of them was `quit`.
pub fn run(commands: Vec<String>) {
    let lines = spawn_reader(commands);
    let (tx, rx): (Sender<Event>, Receiver<Event>) = unbounded();
    let engine = match Engine::new(DEFAULT_HASH_MB, tx) {
        Ok(e) => e,
        Err(e) => {
            Out::new().info_string(&e);
            return;
        }
    };
    let board = Board::startpos();
    let mut uci = Uci {
        out: Out::new(),
        engine,
        events: rx,
        keys: vec![board.key()],
        board,
        hold: Hold::Off,
        held: None,
        castling: CastlingMode::Standard,
        multipv: 1,
        show_wdl: false,
        limit_strength: false,
        elo: MAX_ELO,
        skill_level: options::MAX_SKILL_LEVEL,
        network: None,
        task: None,
        task_lines: unbounded(),
    };
    uci.set_eval_file(crate::nnue::EMBEDDED_NAME);
    uci.engine.move_overhead = Duration::from_millis(DEFAULT_MOVE_OVERHEAD_MS);
    loop {
        select! {
            recv(lines) -> line => if let Ok(line) = line {
                if !uci.handle_line(&line) { break }
            } else {
                // End of input: let a finite search finish and answer.
                if uci.hold != Hold::Off {
                    uci.engine.stop();
                }
                uci.halt_after(false);
                break;
            },
            recv(uci.events) -> event => if let Ok(e) = event { uci.handle_event(e) },
            recv(uci.task_lines.1) -> line => if let Ok(l) = line { uci.out.line(&l) },
        }
    }
    uci.end_task();
    uci.engine.stop();
    uci.engine.wait();
}

impl Uci {
    /// Handles one line; `false` means quit.
    fn handle_line(&mut self, line: &str) -> bool {
        if let Some(length) = line.strip_prefix(TOO_LONG) {
            self.out.info_string(&format!(
                "a line of{length} bytes ignored: lines are read up to 1 MiB"
            ));
            return true;
        }
        let parsed = match parse_guarded(line) {
            Ok(p) => p,
            Err(e) => {
                self.out.info_string(&e);
                return true;
            }
        };
        for w in &parsed.warnings {
            self.out.info_string(w);
        }
        // A panic while a command runs costs that command, not the engine.
        match parse::caught(|| self.execute(parsed.command)) {
            Ok(go_on) => go_on,
            Err(e) => {
                self.out.info_string(&format!(
                    "internal error while running '{}': {e}; the engine goes on",
                    shorten(line)
                ));
                true
            }
        }
    }

    /// Carries out one command; `false` means quit.
    fn execute(&mut self, command: Command) -> bool {
        match command {
            Command::Empty | Command::Debug(_) => {}
            Command::Uci => {
                self.out.line(&format!("id name {NAME}"));
                self.out.line(&format!("id author {AUTHOR}"));
                for o in options::declarations() {
                    self.out.line(&o);
                }
                self.out.line("uciok");
            }
            Command::IsReady => self.out.line("readyok"),
            Command::UciNewGame => {
                self.halt();
                self.engine.new_game();
            }
            Command::Position { fen, moves } => self.set_position(fen.as_deref(), &moves),
            Command::Go(go) => self.go(&go),
            Command::Stop => {
                self.engine.stop();
                self.end_task();
                self.release();
            }
            Command::PonderHit if self.hold != Hold::Ponder => {
                self.out
                    .info_string("ponderhit ignored: no ponder search is running");
            }
            Command::PonderHit => {
                self.engine.ponderhit();
                self.release();
            }
            Command::Quit => return false,
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Perft(depth) => {
                let (board, castling) = (self.board.clone(), self.castling);
                self.start_task(move |stop, out| {
                    perft::divide(&board, depth, castling, stop, out);
                });
            }
            Command::Bench(depth) => {
                let evaluation = self.evaluation();
                self.start_task(move |stop, out| {
                    bench::run(depth, &evaluation, stop, out);
                });
            }
            Command::GenFens(g) => self.genfens(&g),
            Command::Display => self.display(),
            Command::Eval => self.eval(),
        }
        true
    }

    fn handle_event(&mut self, event: Event) {
        match event {
            Event::Iteration(it) => self
                .out
                .line(&format::info(&it, self.castling, self.show_wdl)),
            Event::Done(outcome) => {
                if self.hold == Hold::Off {
                    self.out.line(&format::bestmove(&outcome, self.castling));
                } else {
                    self.held = Some(outcome);
                }
            }
        }
    }

    /// `stop` or `ponderhit`: a held `bestmove` may go out now.
    fn release(&mut self) {
        self.hold = Hold::Off;
        if let Some(o) = self.held.take() {
            self.out.line(&format::bestmove(&o, self.castling));
        }
    }

    /// Runs `f` (a `perft` or `bench`) on a thread of its own, after
    /// whatever ran before has stopped; its lines come back through
    /// `task_lines`, and `stop` raises the flag it is given.
    fn start_task(
        &mut self,
        f: impl FnOnce(&Arc<AtomicBool>, &mut dyn FnMut(&str)) + Send + 'static,
    ) {
        self.halt();
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, lines) = (stop.clone(), self.task_lines.0.clone());
        let spawned = std::thread::Builder::new()
            .name("task".into())
            .stack_size(8 << 20)
            .spawn(move || {
                let mut out = |s: &str| {
                    let _ = lines.send(s.to_string());
                };
                let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    f(&flag, &mut out);
                }));
                if ran.is_err() {
                    out("info string the command failed inside; the engine goes on");
                }
            });
        match spawned {
            Ok(handle) => self.task = Some(Task { stop, handle }),
            Err(e) => self
                .out
                .info_string(&format!("cannot start the command: {e}")),
        }
    }

    /// Stops the `perft` or `bench` under way, if any, and writes what it
    /// printed.
    fn end_task(&mut self) {
        if let Some(task) = self.task.take() {
            task.stop.store(true, Relaxed);
            let _ = task.handle.join();
        }
        while let Ok(line) = self.task_lines.1.try_recv() {
            self.out.line(&line);
        }
    }

    /// Stops any search (or `perft`, `bench`) and writes everything it still
    /// has to say, so no `bestmove` is lost when another command needs the
    /// engine idle.
    fn halt(&mut self) {
        self.halt_after(true);
    }

    fn halt_after(&mut self, stop: bool) {
        if stop {
            self.engine.stop();
            self.end_task();
        } else if let Some(task) = self.task.take() {
            // End of input: let the count finish, as a search would.
            let _ = task.handle.join();
            while let Ok(line) = self.task_lines.1.try_recv() {
                self.out.line(&line);
            }
        }
        self.engine.wait();
        self.release();
        while let Ok(e) = self.events.try_recv() {
            self.handle_event(e);
        }
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) {
        match build_position(fen, moves, self.castling) {
            Ok((board, keys, warnings)) => {
                for w in warnings {
                    self.out.info_string(&w);
                }
                self.board = board;
                self.keys = keys;
            }
            Err(e) => self.out.info_string(&format!(
                "{e}; position unchanged ({})",
                Fen::from_position(self.board.pos(), EnPassantMode::Legal)
            )),
        }
    }

    fn go(&mut self, go: &Go) {
        self.halt();
        let (mut request, warnings) = request(&self.board, go, self.multipv);
        if self.limit_strength {
            request.limits.skill = Some(Skill::from_elo(self.elo));
        } else if let Some(elo) = elo_for_level(self.skill_level) {
            request.limits.skill = Some(Skill::from_elo(elo));
        }
        for w in warnings {
            self.out.info_string(&w);
        }
        self.hold = if request.ponder {
            Hold::Ponder
        } else if request.infinite {
            Hold::Infinite
        } else {
            Hold::Off
        };
        self.engine
            .go(self.board.clone(), self.keys.clone(), request);
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        match options::parse_setting(name, value) {
            Ok(Setting::Hash(mb)) => {
                self.halt();
                if let Err(e) = self.engine.set_hash(mb) {
                    self.out.info_string(&e);
                }
            }
            Ok(Setting::ClearHash) => {
                self.halt();
                self.engine.clear_hash();
            }
            Ok(Setting::MoveOverhead(ms)) => {
                self.engine.move_overhead = Duration::from_millis(ms);
            }
            Ok(Setting::MultiPv(n)) => self.multipv = n,
            Ok(Setting::ShowWdl(on)) => self.show_wdl = on,
            Ok(Setting::LimitStrength(on)) => self.limit_strength = on,
            Ok(Setting::Elo(elo)) => self.elo = elo,
            Ok(Setting::SkillLevel(level)) => self.skill_level = level,
            Ok(Setting::SyzygyProbeDepth(depth)) => {
                self.halt();
                self.engine.set_probe_depth(depth);
            }
            Ok(Setting::Syzygy50MoveRule(on)) => {
                self.halt();
                self.engine.set_fifty_move_rule(on);
            }
            Ok(Setting::SyzygyPath(path)) => {
                self.halt();
                let (found, problems) = self.engine.set_tablebases(&path);
                for p in problems {
                    self.out.info_string(&p);
                }
                match found {
                    Some((files, men)) => self
                        .out
                        .info_string(&format!("Syzygy: {files} table files, up to {men} pieces")),
                    None => self.out.info_string("Syzygy tables off"),
                }
            }
            Ok(Setting::Chess960(on)) => {
                self.castling = if on {
                    CastlingMode::Chess960
                } else {
                    CastlingMode::Standard
                };
            }
            Ok(Setting::EvalFile(path)) => {
                self.halt();
                self.set_eval_file(&path);
            }
            Ok(Setting::Threads(n)) => {
                self.halt();
                if let Err(e) = self.engine.set_threads(n) {
                    self.out.info_string(&format!("Threads {n}: {e}"));
                }
            }
            // Accepted for the GUIs that send them: pondering needs no
            // preparation, and analysis and play search alike.
            Ok(Setting::Ponder(_) | Setting::AnalyseMode(_)) => {}
            // Read by the search from the next `go` on.
            Ok(Setting::Tunable) => self.halt(),
            Err(e) => self.out.info_string(&e),
        }
    }

    /// The evaluation `EvalFile` chose.
    fn evaluation(&self) -> Evaluation {
        self.network
            .as_ref()
            .map_or(Evaluation::Handcrafted, |(_, n)| {
                Evaluation::Network(n.clone())
            })
    }

    /// Loads the network in `path` (none: the handcrafted evaluation; the
    /// built-in network's name: that network). A file that cannot be used
    /// is named with the reason, and the engine keeps the evaluation it had.
    fn set_eval_file(&mut self, path: &str) {
        if path.is_empty() {
            self.network = None;
            self.engine.set_evaluation(&Evaluation::Handcrafted);
            self.out.info_string("EvalFile: the handcrafted evaluation");
            return;
        }
        if path == crate::nnue::EMBEDDED_NAME {
            let net = crate::nnue::embedded();
            self.engine
                .set_evaluation(&Evaluation::Network(net.clone()));
            self.network = Some((path.to_string(), net));
            return;
        }
        let loaded = crate::nnue::Network::load(path);
        match loaded {
            Ok(net) => {
                let net = std::sync::Arc::new(net);
                self.out.info_string(&format!(
                    "EvalFile: {path}, a network of {} hidden neurons and {} output bucket{}",
                    net.hidden(),
                    net.buckets(),
                    if net.buckets() == 1 { "" } else { "s" }
                ));
                self.engine
                    .set_evaluation(&Evaluation::Network(net.clone()));
                self.network = Some((path.to_string(), net));
            }
            Err(e) => {
                let current = self
                    .network
                    .as_ref()
                    .map_or("the handcrafted evaluation".to_string(), |(p, _)| p.clone());
                self.out.info_string(&format!(
                    "EvalFile '{}': {e}; keeping {current}",
                    shorten(path)
                ));
            }
        }
    }

    /// `genfens`: openings for OpenBench's data generation, one `info
    /// string genfens <FEN>` line each, with the network in use.
    fn genfens(&mut self, g: &parse::GenFens) {
        self.halt();
        let book = match &g.book {
            None => Vec::new(),
            Some(file) => match std::fs::read_to_string(file) {
                Ok(text) => text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(String::from)
                    .collect(),
                Err(e) => {
                    self.out
                        .info_string(&format!("genfens: cannot read {}: {e}", shorten(file)));
                    return;
                }
            },
        };
        let fens =
            crate::datagen::genfens(g.count, g.seed, book, g.plies, g.balance, self.evaluation());
        if fens.len() < g.count {
            self.out.info_string(&format!(
                "genfens: only {} of {} openings could be made from the book",
                fens.len(),
                g.count
            ));
        }
        for fen in fens {
            self.out.info_string(&format!("genfens {fen}"));
        }
    }

    fn display(&mut self) {
        let pos = self.board.pos();
        let board = pos.board();
        for rank in (0..8).rev() {
            let mut row = format!(" {} ", rank + 1);
            for file in 0..8 {
                let sq = shakmaty::Square::from_coords(
                    shakmaty::File::new(file),
                    shakmaty::Rank::new(rank),
                );
                row.push(board.piece_at(sq).map_or('.', shakmaty::Piece::char));
                row.push(' ');
            }
            self.out.line(&row);
        }
        self.out.line("   a b c d e f g h");
        self.out.line(&format!(
            "Fen: {}",
            Fen::from_position(pos, EnPassantMode::Legal)
        ));
        self.out.line(&format!("Key: {:016x}", self.board.key()));
        let checkers: Vec<String> = pos.checkers().into_iter().map(|s| s.to_string()).collect();
        self.out.line(&format!("Checkers: {}", checkers.join(" ")));
    }

    fn eval(&mut self) {
        let pos = self.board.pos();
        self.out.line(&format!(
            "{:>20} | {:>6} {:>6} | {:>6} {:>6} | {:>6} {:>6}",
            "term", "White", "", "Black", "", "total", ""
        ));
        self.out.line(&format!(
            "{:>20} | {:>6} {:>6} | {:>6} {:>6} | {:>6} {:>6}",
            "", "mg", "eg", "mg", "eg", "mg", "eg"
        ));
        let mut total = hce::Pair::default();
        for (name, w, b) in hce::breakdown(pos) {
            let d = w - b;
            total += d;
            self.out.line(&format!(
                "{name:>20} | {:>6} {:>6} | {:>6} {:>6} | {:>6} {:>6}",
                w.mg, w.eg, b.mg, b.eg, d.mg, d.eg
            ));
        }
        let phase = hce::phase(pos);
        let scale = hce::endgame_scale(pos, total.eg);
        self.out.line(&format!(
            "phase {phase} of {}, endgame scale {scale} of {}",
            hce::MAX_PHASE,
            hce::SCALE_FULL
        ));
        self.out.line(&format!(
            "total {} cp for White, {} cp for the side to move",
            hce::taper(total, phase, scale),
            hce::evaluate(pos)
        ));
        if let Some((path, net)) = &self.network {
            let stm = net.evaluate(pos);
            let white = if pos.turn() == shakmaty::Color::White {
                stm
            } else {
                -stm
            };
            self.out.line(&format!(
                "NNUE ({path}, in use): {white} cp for White, {stm} cp for the side to move"
            ));
        }
    }
}

/// The position after `moves` from the FEN (or the start position), with
/// the keys of every position on the way. All or nothing: one bad move
/// rejects the whole command.
fn build_position(
    fen: Option<&str>,
    moves: &[String],
    mode: CastlingMode,
) -> Result<(Board, Vec<u64>, Vec<String>), String> {
    let (mut board, warnings) = match fen {
        None => (Board::startpos(), Vec::new()),
        Some(text) => Board::from_fen(text, mode)?,
    };
    let mut keys = vec![board.key()];
    for (i, text) in moves.iter().enumerate() {
        let m = parse_move(&board, text)
            .map_err(|e| format!("move {} '{}': {e}", i + 1, shorten(text)))?;
        board = board.play(m);
        keys.push(board.key());
    }
    Ok((board, keys, warnings))
}

fn parse_move(board: &Board, text: &str) -> Result<Move, String> {
    let uci: UciMove = text.parse().map_err(|_| "not a move".to_string())?;
    uci.to_move(board.pos())
        .map_err(|_| "illegal here".to_string())
}

/// The clock assumed for a `go` that asked for a clock but gave none that
/// can be used for the side to move: short enough that no real game
/// loses on time by it, long enough for a sound move.
const SAFE_CLOCK_MS: u64 = 1000;

/// Turns `go` parameters (and the `MultiPV` option) into a request for the
/// side to move.
fn request(board: &Board, go: &Go, multipv: usize) -> (Request, Vec<String>) {
    let mut warnings = Vec::new();
    let white = board.turn() == shakmaty::Color::White;
    let (time, inc) = if white {
        (go.wtime, go.winc)
    } else {
        (go.btime, go.binc)
    };
    let mut searchmoves = Vec::new();
    for text in &go.searchmoves {
        match parse_move(board, text) {
            Ok(m) => searchmoves.push(m),
            Err(e) => warnings.push(format!("searchmoves: '{text}' {e}, ignored")),
        }
    }
    let clamp = |d: u32| i32::try_from(d).unwrap_or(i32::MAX);
    let mut depth = go.depth.map(clamp);
    if let Some(n) = go.mate {
        // A mate in n shows within a few iterations past depth 2n - 1 even
        // with reductions; beyond that there is none to find.
        let mate_depth = clamp(n.saturating_mul(4).saturating_add(4));
        depth = Some(depth.map_or(mate_depth, |d| d.min(mate_depth)));
    }
    let limited = go.movetime.is_some() || depth.is_some() || go.nodes.is_some();
    let time = match time {
        // The GUI meant to set a clock but gave none for the side to move
        // (`go btime 1000` with White to move, `go wtime abc`): rather than
        // think until a `stop` that will never come, play on a small clock.
        None if go.clock_words && !go.infinite && !limited => {
            warnings.push(format!(
                "go: no usable clock for {}; thinking as if {} ms were left",
                if white {
                    "White (wtime)"
                } else {
                    "Black (btime)"
                },
                SAFE_CLOCK_MS
            ));
            Some(SAFE_CLOCK_MS)
        }
        time => time,
    };
    let clock = TimeControl {
        time: time.map(Duration::from_millis),
        inc: Duration::from_millis(inc.unwrap_or(0)),
        movestogo: go.movestogo,
        movetime: go.movetime.map(Duration::from_millis),
    };
    let limited = limited || clock.time.is_some();
    let request = Request {
        limits: Limits {
            depth,
            nodes: go.nodes,
            mate: go.mate.map(clamp),
            searchmoves,
            multipv,
            skill: None,
            soft_nodes: None,
        },
        clock,
        // A bare `go` searches until `stop`, as if `infinite`.
        infinite: go.infinite || (!limited && !go.ponder),
        ponder: go.ponder,
    };
    (request, warnings)
}
