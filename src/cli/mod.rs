//! The command line: `brudno` alone speaks UCI; a first argument that names
//! a subcommand runs that tool. Each subcommand owns its options in its own
//! file here (parsed and range-checked by `clap` before any work starts)
//! and calls the module that does the work.

mod bench;
mod data;
mod datagen;
mod epd;
mod perft;
mod train;
mod tune;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// The command line's tools; with no command, Brudno speaks UCI.
#[derive(Parser)]
#[command(
    name = "brudno",
    version,
    about = "Brudno, a UCI chess engine: with no command it speaks UCI on standard input and output",
    override_usage = "brudno [COMMAND [OPTIONS]]"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Bench(bench::Args),
    Perft(perft::Args),
    Epd(epd::Args),
    Datagen(datagen::Args),
    Convert(data::ConvertArgs),
    Data(data::Args),
    Train(train::Args),
    Tune(tune::Args),
    /// Prints the search parameters as OpenBench's SPSA input (an `spsa` build)
    #[cfg(feature = "spsa")]
    Spsa,
}

/// Whether `word` is a subcommand's name or a flag of the command line
/// itself (`--help`, `--version`), rather than something else to run.
fn is_subcommand(word: &str) -> bool {
    word.starts_with('-')
        || word == "help"
        || Cli::command()
            .get_subcommands()
            .any(|c| c.get_name() == word)
}

/// Runs the command line `args` (without the program's name).
pub fn run(args: &[String]) -> ExitCode {
    let Some(first) = args.first() else {
        crate::uci::run(Vec::new());
        return ExitCode::SUCCESS;
    };
    // OpenBench runs engines as `./engine "genfens 64 seed 7 book None"
    // "quit"`: arguments that are UCI commands (and no subcommand's name:
    // `perft 5` is the subcommand, `"perft 5"` the UCI command) run as such.
    if !is_subcommand(first) && crate::uci::parse::is_command_word(first) {
        crate::uci::run(args.to_vec());
        return ExitCode::SUCCESS;
    }
    if !is_subcommand(first) {
        eprintln!(
            "unknown command '{first}'\n\n{}",
            Cli::command().render_help()
        );
        return ExitCode::FAILURE;
    }
    let cli = Cli::parse_from(std::iter::once("brudno".to_string()).chain(args.iter().cloned()));
    let done = match cli.command {
        Command::Bench(a) => bench::run(&a),
        Command::Perft(a) => perft::run(&a),
        Command::Epd(a) => epd::run(&a),
        Command::Datagen(a) => datagen::run(&a),
        Command::Convert(a) => data::convert(&a),
        Command::Data(a) => data::run(&a),
        Command::Train(a) => train::run(&a),
        Command::Tune(a) => tune::run(&a),
        #[cfg(feature = "spsa")]
        Command::Spsa => {
            for line in crate::search::params::spsa_lines() {
                println!("{line}");
            }
            Ok(())
        }
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Reads `path` whole, naming it in the error.
fn read(path: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))
}

/// Reads `path` as text, naming it in the error.
fn read_text(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
