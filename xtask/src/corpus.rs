//! `cargo xtask corpus`: parses every file of the real-world corpus, checks the round trip and prints a table.

use crate::Args;
use gedgraft_syntax::Severity;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(rest: &[String]) -> Result<ExitCode, String> {
    let mut args = Args::new(rest);
    let dir = args.value("--dir")?.map(PathBuf::from);
    args.finish()?;
    let dir = dir.unwrap_or_else(|| crate::workspace_root().join("../shared/corpus"));
    let mut files = Vec::new();
    collect(&dir, &mut files)?;
    files.sort();
    if files.is_empty() {
        return Err(format!("no files under {}", dir.display()));
    }

    let rows: Vec<Row> = files
        .iter()
        .map(|path| {
            let name = path
                .strip_prefix(&dir)
                .unwrap_or(path)
                .display()
                .to_string();
            check(name, path)
        })
        .collect::<Result<_, _>>()?;

    let width = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    println!(
        "{:<width$}  {:>9}  {:<12}  {:>6}  {:>8}  round trip",
        "file", "octets", "encoding", "errors", "warnings"
    );
    for r in &rows {
        println!(
            "{:<width$}  {:>9}  {:<12}  {:>6}  {:>8}  {}",
            r.name,
            r.octets,
            r.encoding,
            r.errors,
            r.warnings,
            match &r.failure {
                None => "ok".to_string(),
                Some(f) => format!("FAILED: {f}"),
            }
        );
    }
    let failed = rows.iter().filter(|r| r.failure.is_some()).count();
    let with_errors = rows.iter().filter(|r| r.errors > 0).count();
    println!(
        "{:<width$}  {:>9}  {:<12}  {:>6}  {:>8}  {}/{} ok",
        format!("total: {} files ({} with errors)", rows.len(), with_errors),
        rows.iter().map(|r| r.octets).sum::<usize>(),
        "",
        rows.iter().map(|r| r.errors).sum::<usize>(),
        rows.iter().map(|r| r.warnings).sum::<usize>(),
        rows.len() - failed,
        rows.len()
    );
    let mut by_encoding: Vec<(&str, usize)> = Vec::new();
    for r in &rows {
        match by_encoding.iter_mut().find(|(e, _)| *e == r.encoding) {
            Some((_, n)) => *n += 1,
            None => by_encoding.push((r.encoding, 1)),
        }
    }
    by_encoding.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let summary: Vec<String> = by_encoding
        .iter()
        .map(|(e, n)| format!("{e} {n}"))
        .collect();
    println!("encodings: {}", summary.join(", "));
    if failed > 0 {
        eprintln!("xtask corpus: {failed} round trip(s) failed");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

struct Row {
    name: String,
    octets: usize,
    encoding: &'static str,
    errors: usize,
    warnings: usize,
    failure: Option<String>,
}

fn check(name: String, path: &Path) -> Result<Row, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // A panic is a bug too (invariant 1): report it as a failed row rather than aborting the table.
    let outcome = std::panic::catch_unwind(|| {
        let parse = gedgraft_syntax::parse(&bytes);
        let errors = parse
            .diagnostics()
            .iter()
            .filter(|d| d.severity() == Severity::Error)
            .count();
        let warnings = parse.diagnostics().len() - errors;
        let failure = match parse.to_bytes() {
            Ok(out) if out == bytes => None,
            Ok(out) => {
                let at = bytes
                    .iter()
                    .zip(&out)
                    .position(|(a, b)| a != b)
                    .unwrap_or(bytes.len().min(out.len()));
                Some(format!("differs at octet {at} ({} octets out)", out.len()))
            }
            Err(e) => Some(e.to_string()),
        };
        (parse.encoding().name(), errors, warnings, failure)
    });
    let (encoding, errors, warnings, failure) = match outcome {
        Ok(r) => r,
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            ("?", 0, 0, Some(format!("panicked: {msg}")))
        }
    };
    Ok(Row {
        name,
        octets: bytes.len(),
        encoding,
        errors,
        warnings,
        failure,
    })
}

/// Every file under `dir`, recursively, except dot files and the corpus's `MANIFEST.md`.
fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "MANIFEST.md" {
            continue;
        }
        let kind = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if kind.is_dir() {
            collect(&path, files)?;
        } else if kind.is_file() {
            files.push(path);
        }
    }
    Ok(())
}
