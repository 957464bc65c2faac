//! Brudno, a UCI chess engine.
//!
//! `brudno` speaks UCI on standard input and output; `brudno COMMAND` runs
//! one of the tools (`bench`, `perft`, `epd`, `datagen`, `data`, `convert`,
//! `train`, `tune`), whose options live in [`cli`].

mod bench;
mod board;
mod cli;
mod data;
mod datagen;
mod engine;
mod epd;
mod eval;
mod movegen;
mod nnue;
mod perft;
mod score;
mod search;
mod tablebase;
mod threads;
mod time;
mod train;
mod tt;
mod tune;
mod uci;

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    cli::run(&args)
}
