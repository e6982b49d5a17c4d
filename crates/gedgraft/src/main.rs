//! `gedgraft`: check, dump and rewrite ELF/GEDCOM files without losing a single octet.

mod check;
mod cli;
mod fix;
mod input;
mod lower;
mod output;

use clap::Parser;
use std::process::ExitCode;

/// mimalloc: the tree is many small allocations, and mimalloc makes them markedly cheaper than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match cli.command {
        cli::Command::Dump(args) => input::load(&args.file, &args.input).and_then(|loaded| {
            output::stream(|out| gedgraft_syntax::dump_to(&loaded.parse, out))?;
            Ok(ExitCode::SUCCESS)
        }),
        cli::Command::Check(args) => check::run(&args),
        cli::Command::Lower(args) => lower::run(&args),
        cli::Command::Fix(args) => fix::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("gedgraft: {err}");
            ExitCode::from(2)
        }
    }
}
