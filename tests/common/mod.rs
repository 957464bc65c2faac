//! Talking to the real engine binary the way a GUI does.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

/// Runs `brudno args` to its end with `env` set (the data store's
/// variables cleared first, so the user's own never leak in): the exit
/// status and everything it printed, standard output first.
pub fn run(args: &[&str], env: &[(&str, &std::path::Path)]) -> (i32, String) {
    let mut command = Command::new(Engine::binary());
    command
        .args(args)
        .env_remove("BRUDNO_DATA")
        .env_remove("XDG_DATA_HOME");
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command.output().expect("the engine runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Everything read so far, for failure messages.
    pub log: Vec<String>,
}

impl Engine {
    /// Starts the engine built with the tests, or the binary named by
    /// `BRUDNO_BIN` (to show that a test fails on an older build).
    pub fn spawn() -> Engine {
        Engine::start(Command::new(Engine::binary()))
    }

    /// The binary the tests run.
    pub fn binary() -> String {
        std::env::var("BRUDNO_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_brudno").into())
    }

    /// Starts the engine with its address space limited to `mb` megabytes
    /// (`ulimit -v`), for tests of what it does when memory runs out.
    pub fn spawn_limited(mb: u64) -> Engine {
        let mut command = Command::new("sh");
        command.args([
            "-c",
            &format!("ulimit -v {} && exec \"$0\"", mb * 1024),
            &Engine::binary(),
        ]);
        Engine::start(command)
    }

    fn start(mut command: Command) -> Engine {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the engine starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            log: Vec::new(),
        }
    }

    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("engine reads");
        stdin.flush().unwrap();
    }

    /// Closes the engine's input (end of file).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Reads lines until one satisfies `pred`; returns every line read,
    /// the matching one last. Panics with the transcript after `timeout`.
    pub fn read_until(&mut self, timeout: Duration, pred: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut read = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.log.push(line.clone());
                    let done = pred(&line);
                    read.push(line);
                    if done {
                        return read;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "timed out after {timeout:?}; transcript:\n{}",
                        self.log.join("\n")
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!(
                        "engine closed its output; transcript:\n{}",
                        self.log.join("\n")
                    )
                }
            }
        }
    }

    /// Waits for the line starting with `prefix` and returns it.
    pub fn expect(&mut self, prefix: &str, timeout: Duration) -> String {
        self.read_until(timeout, |l| l.starts_with(prefix))
            .pop()
            .unwrap()
    }

    /// `isready` answered by `readyok` within five seconds.
    pub fn sync(&mut self) {
        self.sync_within(Duration::from_secs(5));
    }

    /// The same, for a script long enough that answering it all can take
    /// longer than `sync` waits on a busy machine.
    pub fn sync_within(&mut self, timeout: Duration) {
        self.send("isready");
        self.expect("readyok", timeout);
    }

    /// The engine's threads (Linux only).
    pub fn threads(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("Threads:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// The engine's resident memory in MB (Linux only).
    pub fn rss_mb(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb / 1024)
    }

    /// Waits for `bestmove` and returns the move text.
    pub fn bestmove(&mut self, timeout: Duration) -> String {
        let line = self.expect("bestmove", timeout);
        line.split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_string()
    }

    /// Waits up to `timeout` for the process to exit.
    pub fn exited_within(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if self.child.try_wait().unwrap().is_some() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    /// No `bestmove` arrives during `d` (other lines may).
    pub fn silent_for_bestmove(&mut self, d: Duration) -> bool {
        let deadline = Instant::now() + d;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let best = line.starts_with("bestmove");
                    self.log.push(line);
                    if best {
                        return false;
                    }
                }
                Err(_) => return true,
            }
        }
    }

    /// No line arrives during `d`.
    pub fn silent_for(&mut self, d: Duration) -> bool {
        match self.lines.recv_timeout(d) {
            Ok(line) => {
                self.log.push(line);
                false
            }
            Err(_) => true,
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The position after `moves` from `fen` (`None`: start position).
pub fn position(fen: Option<&str>, moves: &[&str]) -> Chess {
    let mut pos: Chess = match fen {
        None => Chess::default(),
        Some(f) => f
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap(),
    };
    for m in moves {
        let m = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
    }
    pos
}

/// Whether `uci` is a legal move in `pos`.
pub fn is_legal(pos: &Chess, uci: &str) -> bool {
    uci.parse::<UciMove>()
        .ok()
        .and_then(|m| m.to_move(pos).ok())
        .is_some()
}

pub const SECOND: Duration = Duration::from_secs(1);
