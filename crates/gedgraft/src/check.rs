//! `gedgraft check`: diagnostics for humans (rustc style) and for programs (JSON lines).

use crate::cli::{CheckArgs, Format};
use crate::input::{self, Loaded};
use gedgraft_model::{lower, LowerOptions};
use gedgraft_syntax::{Diagnostic, Severity};
use serde_json::json;
use std::fmt::Write;
use std::process::ExitCode;

/// Runs `check` over every file; exit status 1 if any file has an error.
pub fn run(args: &CheckArgs) -> Result<ExitCode, String> {
    let options = input::options(&args.input)?;
    let mut any_error = false;
    let mut unreadable = false;
    for path in &args.files {
        let loaded = match input::load_with(path, &options) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("gedgraft: {e}");
                unreadable = true;
                continue;
            }
        };
        let lowered = lower(
            &loaded.parse,
            &LowerOptions {
                strict: args.strict,
                ..LowerOptions::default()
            },
        );
        let diagnostics = lowered.all_diagnostics(&loaded.parse);
        any_error |= diagnostics.iter().any(|d| d.severity() == Severity::Error);
        let stopped = lowered.stopped_at.as_ref();
        let report = match args.format {
            Format::Json => format!("{}\n", json_report(&loaded, &diagnostics, stopped)),
            Format::Human => human_report(&loaded, &diagnostics, stopped, args.no_warnings),
        };
        crate::output::emit(&report)?;
    }
    Ok(if unreadable {
        ExitCode::from(2)
    } else if any_error {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The JSON object for one file; with `--strict`, `stopped` is the error checking stopped at (or null).
pub fn json_report(
    loaded: &Loaded,
    diagnostics: &[&Diagnostic],
    stopped: Option<&Diagnostic>,
) -> serde_json::Value {
    let parse = &loaded.parse;
    let detection = parse.detection();
    let list: Vec<_> = diagnostics.iter().map(|d| diagnostic_json(d)).collect();
    let mut report = json!({
        "file": loaded.path.display().to_string(),
        "encoding": {
            "detected": detection.detected.map(|e| e.name()),
            "declared": detection.declared,
            "used": detection.used.name(),
        },
        "diagnostics": list,
    });
    if let Some(d) = stopped {
        report["stopped"] = diagnostic_json(d);
    }
    report
}

fn diagnostic_json(d: &Diagnostic) -> serde_json::Value {
    json!({
        "code": d.code,
        "severity": d.severity().as_str(),
        "class": d.class.as_str(),
        "message": d.message,
        "offset": d.location.offset,
        "line": d.location.line,
        "column": d.location.column,
    })
}

/// The human report for one file: each diagnostic with its source line and a caret, then a summary.
pub fn human_report(
    loaded: &Loaded,
    diagnostics: &[&Diagnostic],
    stopped: Option<&Diagnostic>,
    no_warnings: bool,
) -> String {
    let parse = &loaded.parse;
    let text = parse.text();
    let mut out = String::new();
    let (mut errors, mut warnings) = (0, 0);
    for &d in diagnostics {
        match d.severity() {
            Severity::Error => errors += 1,
            Severity::Warning => warnings += 1,
        }
        if no_warnings && d.severity() == Severity::Warning {
            continue;
        }
        let loc = d.location;
        let _ = writeln!(out, "{}[{}]: {}", d.severity().as_str(), d.code, d.message);
        let _ = writeln!(
            out,
            "  --> {}:{}:{} (byte {})",
            loaded.path.display(),
            loc.line,
            loc.column,
            loc.offset
        );
        let start = usize::from(d.range.start()).min(text.len());
        let line_start = text[..start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
        let line_end = text[start..]
            .find(['\n', '\r'])
            .map_or(text.len(), |i| start + i);
        let source: String = text[line_start..line_end].chars().map(printable).collect();
        let end = usize::from(d.range.end()).clamp(start, line_end);
        let width = text[start..end].chars().count().max(1);
        let gutter = loc.line.to_string().len();
        let _ = writeln!(out, "{:gutter$} |", "");
        let _ = writeln!(out, "{} | {}", loc.line, source);
        let _ = writeln!(
            out,
            "{:gutter$} | {:pad$}{}",
            "",
            "",
            "^".repeat(width),
            pad = loc.column.saturating_sub(1)
        );
        out.push('\n');
    }
    if let Some(d) = stopped {
        let loc = d.location;
        let _ = writeln!(
            out,
            "note: --strict: stopped at the first error ({} at {}:{})",
            d.code, loc.line, loc.column
        );
    }
    let _ = writeln!(
        out,
        "{}: {} error{}, {} warning{} (encoding {})",
        loaded.path.display(),
        errors,
        if errors == 1 { "" } else { "s" },
        warnings,
        if warnings == 1 { "" } else { "s" },
        parse.encoding().name()
    );
    out
}

/// Shows control and raw characters visibly so the caret lines up.
fn printable(c: char) -> char {
    if gedgraft_syntax::encoding::raw::is_raw(c) || c == '\u{FEFF}' {
        '\u{FFFD}'
    } else if c == '\t' {
        ' '
    } else if c.is_control() {
        '\u{2423}'
    } else {
        c
    }
}
