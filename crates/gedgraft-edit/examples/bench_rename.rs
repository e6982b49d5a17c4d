//! Benchmark of a whole-file tag rename against a plain parse and write.
//!
//! ```text
//! cargo run --release -p gedgraft-edit --example bench_rename -- FILE [TAG=NEW] [MODE]
//! ```
//!
//! `TAG=NEW` defaults to `NAME=_NAM`. Without a mode, every mode runs in a process of its own (so that each peak
//! memory figure is its own) and a table is printed: time and peak resident memory (`VmHWM`) of each, and the
//! ratios to `parse-write`. Modes, each from reading the file to writing the result as `gedgraft fix` does:
//!
//! * `parse-write`: parse, write the octets back through the tree, write them to a temporary file;
//! * `rename-write`: parse, rename, apply ([`Editor::apply_lazily`]), count changed lines
//!   ([`Edited::line_counts`](gedgraft_edit::Edited::line_counts)), write the output (`gedgraft fix -o`);
//! * `rename-check`: the same without writing (`gedgraft fix --check`);
//! * `rename-diff`: the same with a unified diff instead of the output (`gedgraft fix`);
//! * `rename-apply`: parse, rename, [`Editor::apply`] (which also parses the output), write the output.
//!
//! A single mode prints one line: `MODE SECONDS PEAK_KB`. With `BENCH_STAGES=1` in the environment, it also
//! prints the time and resident memory after each stage to standard error.

use gedgraft_edit::Editor;
use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Instant;

/// As in the `gedgraft` tool.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const MODES: [&str; 5] = [
    "parse-write",
    "rename-write",
    "rename-check",
    "rename-diff",
    "rename-apply",
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first() else {
        eprintln!("usage: bench_rename FILE [TAG=NEW] [MODE]");
        return ExitCode::from(2);
    };
    let mut rename = ("NAME".to_string(), "_NAM".to_string());
    let mut mode = None;
    for a in &args[1..] {
        match a.split_once('=') {
            Some((from, to)) => rename = (from.to_string(), to.to_string()),
            None => mode = Some(a.as_str()),
        }
    }
    match mode {
        Some(m) => match run_mode(Path::new(file), m, &rename) {
            Ok(seconds) => {
                println!("{m} {seconds:.3} {}", peak_kb().unwrap_or(0));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("bench_rename: {e}");
                ExitCode::from(2)
            }
        },
        None => run_all(file, &rename),
    }
}

/// Runs every mode in a child process and prints the table.
fn run_all(file: &str, rename: &(String, String)) -> ExitCode {
    let Ok(exe) = std::env::current_exe() else {
        eprintln!("bench_rename: cannot find my own executable");
        return ExitCode::from(2);
    };
    let pair = format!("{}={}", rename.0, rename.1);
    let mut results: Vec<(&str, f64, u64)> = Vec::new();
    for mode in MODES {
        let out = match Command::new(&exe).args([file, &pair, mode]).output() {
            Ok(out) if out.status.success() => out,
            Ok(out) => {
                eprintln!(
                    "bench_rename: {mode} failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                return ExitCode::from(2);
            }
            Err(e) => {
                eprintln!("bench_rename: cannot run {mode}: {e}");
                return ExitCode::from(2);
            }
        };
        let line = String::from_utf8_lossy(&out.stdout);
        let mut fields = line.split_whitespace().skip(1);
        let seconds = fields.next().and_then(|s| s.parse().ok()).unwrap_or(0.0);
        let kb = fields.next().and_then(|s| s.parse().ok()).unwrap_or(0);
        results.push((mode, seconds, kb));
    }
    let (base_s, base_kb) = (results[0].1, results[0].2);
    println!("file: {file} (rename {pair})");
    println!(
        "{:<14} {:>9} {:>7} {:>11} {:>7}",
        "mode", "time s", "ratio", "peak MB", "ratio"
    );
    for (mode, s, kb) in results {
        println!(
            "{mode:<14} {s:>9.3} {:>7.2} {:>11.1} {:>7.2}",
            s / base_s.max(1e-9),
            kb as f64 / 1024.0,
            kb as f64 / (base_kb.max(1) as f64)
        );
    }
    ExitCode::SUCCESS
}

/// Runs one mode; gives the seconds it took.
fn run_mode(file: &Path, mode: &str, rename: &(String, String)) -> Result<f64, String> {
    let out_path = std::env::temp_dir().join(format!("bench_rename_{}.ged", std::process::id()));
    let start = Instant::now();
    run_timed(file, mode, rename, &out_path)?;
    // Everything is released by now, as at the end of a `gedgraft fix` run.
    let seconds = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&out_path);
    Ok(seconds)
}

fn run_timed(
    file: &Path,
    mode: &str,
    rename: &(String, String),
    out_path: &Path,
) -> Result<(), String> {
    let t0 = Instant::now();
    let stage = |name: &str| {
        if std::env::var_os("BENCH_STAGES").is_some() {
            eprintln!(
                "{:>8.3} s  rss {:>7} KB  peak {:>7} KB  {name}",
                t0.elapsed().as_secs_f64(),
                status_kb("VmRSS:").unwrap_or(0),
                status_kb("VmHWM:").unwrap_or(0)
            );
        }
    };
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    stage("read");
    let parse = gedgraft_syntax::parse(&bytes);
    drop(bytes);
    stage("parsed");
    let write =
        |octets: &[u8]| std::fs::write(out_path, octets).map_err(|e| format!("cannot write: {e}"));
    let rename_editor = || -> Result<Editor, String> {
        let mut editor = Editor::new(&parse);
        editor
            .rename_tag(&rename.0, &rename.1, None)
            .map_err(|e| e.to_string())?;
        Ok(editor)
    };
    match mode {
        "parse-write" => {
            let octets = parse.to_bytes().map_err(|e| e.to_string())?;
            stage("to_bytes");
            write(&octets)?;
            stage("written");
        }
        "rename-write" | "rename-check" | "rename-diff" => {
            let editor = rename_editor()?;
            stage("renamed");
            let edited = editor.apply_lazily().map_err(|e| e.to_string())?;
            stage("applied");
            // As `gedgraft fix`: the summary's line counts, and the whole diff only in diff mode.
            if mode == "rename-diff" {
                let diff = edited.line_diff();
                stage("line diff");
                let text = diff.unified("a/file", "b/file");
                stage("unified diff");
                std::hint::black_box((text, diff.removed(), diff.added()));
            } else {
                std::hint::black_box(edited.line_counts());
                stage("line counts");
            }
            if mode == "rename-write" {
                write(edited.bytes())?;
                stage("written");
            }
        }
        "rename-apply" => {
            let editor = rename_editor()?;
            stage("renamed");
            let edited = editor.apply().map_err(|e| e.to_string())?;
            stage("applied");
            write(edited.bytes())?;
            stage("written");
            std::hint::black_box(edited.parse().diagnostics().len());
        }
        other => {
            return Err(format!(
                "unknown mode `{other}`; modes: {}",
                MODES.join(", ")
            ))
        }
    }
    Ok(())
}

/// The peak resident set size in KiB (`VmHWM` of /proc/self/status), where the system has it.
fn peak_kb() -> Option<u64> {
    status_kb("VmHWM:")
}

/// A figure in KiB from /proc/self/status.
fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
