//! `gedgraft`: check, dump and rewrite ELF/GEDCOM files without losing a single octet.

mod batch;
mod check;
mod cli;
mod diff_cmd;
mod explain;
mod fix;
mod fmt;
mod from_dataset;
mod human;
mod input;
mod lower;
mod output;
mod record;
mod repair;
mod stream_check;
mod stream_fix;
mod stream_fmt;
mod stream_lower;
mod style;
mod words;
mod write_cmd;

use clap::Parser;
use std::process::ExitCode;

/// mimalloc: the tree is many small allocations, and mimalloc makes them markedly cheaper than the system allocator.
/// Its version 2 (the `v2` feature): it gives freed memory back to the system after 10 ms where version 3 waits a
/// second, so memory freed by one batch or pass is not held while the next one grows (peaks 10–40 % lower on the
/// stress inputs, at the same speed; BENCHMARKS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `--help`, `--version` or arguments clap refuses: its message, and its exit status (0 for help, 2 for wrong
/// arguments), unless the message cannot be written (`--help > /dev/full`): then exit 2 with a word on
/// standard error, as `ls --help > /dev/full` does, never 0 for a help nobody got. A closed pipe is not such
/// a failure.
fn arguments_refused(e: &clap::Error) -> ExitCode {
    match e.print() {
        // A reader that has seen enough (`gedgraft --help | head`) is no failure, as every command takes it.
        Err(write) if write.kind() != std::io::ErrorKind::BrokenPipe => {
            output::to_stderr(format_args!(
                "gedgraft: {}\n",
                output::write_error("standard output", &write)
            ));
            ExitCode::from(2)
        }
        _ => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2)),
    }
}

fn main() -> ExitCode {
    survive_file_size_limit();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return arguments_refused(&e),
    };
    let result = match cli.command {
        cli::Command::Dump(args) => input::load(&args.file, &args.input).and_then(|loaded| {
            output::stream(|out| gedgraft_syntax::dump_to(&loaded.parse, out))?;
            Ok(ExitCode::SUCCESS)
        }),
        cli::Command::Check(args) => check::run(&args),
        cli::Command::Explain(args) => explain::run(&args),
        cli::Command::Lower(args) => lower::run(&args),
        cli::Command::Fix(args) => fix::run(&args),
        cli::Command::Write(args) => write_cmd::run(&args),
        cli::Command::Fmt(args) => fmt::run(&args),
        cli::Command::Diff(args) => diff_cmd::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            crate::output::error(&err);
            ExitCode::from(2)
        }
    }
}

/// On `SIGINT` (Ctrl-C), `SIGTERM` and `SIGHUP`, removes the temporary file a write is filling (next to the
/// file it replaces, `.NAME.XXXXXX.gedgraft.tmp`) before the process dies of the signal as it would have:
/// the file being replaced is untouched, and nothing is left behind (`sed -i` leaves its temporary file).
/// Installed by the first file write ([`output::replace_file`]): a command that writes none needs no thread
/// watching for signals.
fn clean_up_on_signals() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        // A signal ignored when the process started stays ignored (`nohup`, `&` in a script), as GNU tools
        // leave it; without the handler a signal keeps its default action: the process dies as it always did.
        let ignored = ignored_signals();
        let caught = [SIGINT, SIGTERM, SIGHUP]
            .into_iter()
            .filter(|s| !ignored(*s));
        let Ok(mut signals) = signal_hook::iterator::Signals::new(caught) else {
            return;
        };
        let watch = move || {
            if let Some(signal) = signals.forever().next() {
                gedgraft_edit::remove_temporary_files();
                // Dies of the signal (the shell sees it, and a loop calling gedgraft stops), else exits as
                // the shell would report it.
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        };
        let _ = std::thread::Builder::new()
            .name("gedgraft-signals".into())
            .spawn(watch);
    }
}

/// Which signals the process started with ignored, from the `SigIgn` mask of `/proc/self/status` (Linux; read
/// without `unsafe`). Where it cannot be read, every signal counts as ignored: nothing is caught.
#[cfg(unix)]
fn ignored_signals() -> impl Fn(i32) -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mask = (status.lines())
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok());
    move |signal| match (mask, u32::try_from(signal - 1)) {
        (Some(mask), Ok(bit)) if bit < 64 => mask & (1 << bit) != 0,
        _ => true,
    }
}

/// Makes a write past the file size limit (`ulimit -f`) an error (`EFBIG`, "File too large") instead of a
/// `SIGXFSZ` that kills the process and leaves a temporary file behind: with a handler installed the kernel
/// fails the write, and the command reports it, removes its temporary file and exits with status 2.
fn survive_file_size_limit() {
    #[cfg(unix)]
    {
        let seen = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        // Failing to install the handler leaves the default action: nothing else to do about it.
        let _ = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, seen);
    }
}
