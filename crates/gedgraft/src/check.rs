//! `gedgraft check`: diagnostics for humans (rustc style) and for programs (JSON lines).

use crate::cli::{CheckArgs, Format};
use crate::input::{self, Loaded};
use gedgraft_model::{lower, LowerOptions};
use gedgraft_syntax::{Diagnostic, Severity};
use std::fmt::Write;
use std::process::ExitCode;

/// Runs `check` over every file; exit status 1 if any file has an error.
pub fn run(args: &CheckArgs) -> Result<ExitCode, String> {
    let options = input::options(&args.input)?;
    let mut any_error = false;
    let mut unreadable = false;
    for (i, path) in args.files.iter().enumerate() {
        let loaded = match input::load_with(path, &options) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("gedgraft: {e}");
                unreadable = true;
                // JSON readers get a line for every argument: `{"file": …, "error": {"code": "io", …}}`.
                if args.format == Format::Json {
                    let mut line = String::from("{\"file\":");
                    json_string(&mut line, &path.display().to_string());
                    line.push_str(",\"error\":{\"code\":\"io\",\"message\":");
                    json_string(&mut line, &e);
                    line.push_str("}}\n");
                    crate::output::emit(&line)?;
                }
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
        match args.format {
            Format::Json => json_report(&loaded, &diagnostics, stopped, crate::output::emit)?,
            Format::Human => crate::output::emit(&human_report(
                &loaded,
                &diagnostics,
                stopped,
                args.no_warnings,
            ))?,
        }
        if i + 1 == args.files.len() {
            drop(diagnostics);
            input::keep_until_exit((loaded, lowered));
        }
    }
    Ok(if unreadable {
        ExitCode::from(2)
    } else if any_error {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Writes the JSON object of one file and its line break through `emit`, a piece at a time (a file with millions
/// of diagnostics is never one string in memory); with `--strict`, `stopped` is the error checking stopped at
/// (or null). Keys in this order: `file`, `encoding` (`detected`, `declared`, `used`), `diagnostics`, `stopped`.
pub fn json_report(
    loaded: &Loaded,
    diagnostics: &[&Diagnostic],
    stopped: Option<&Diagnostic>,
    mut emit: impl FnMut(&str) -> Result<(), String>,
) -> Result<(), String> {
    /// Output is handed on in pieces of about this size.
    const PIECE: usize = 1 << 16;
    let detection = loaded.parse.detection();
    let mut out = String::with_capacity(PIECE + 512);
    out.push_str("{\"file\":");
    json_string(&mut out, &loaded.path.display().to_string());
    out.push_str(",\"encoding\":{\"detected\":");
    json_option(&mut out, detection.detected.map(|e| e.name()));
    out.push_str(",\"declared\":");
    json_option(&mut out, detection.declared.as_deref());
    out.push_str(",\"used\":");
    json_string(&mut out, detection.used.name());
    out.push_str("},\"dialect\":");
    json_string(&mut out, &loaded.parse.dialect().to_string());
    out.push_str(",\"diagnostics\":[");
    for (i, d) in diagnostics.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        diagnostic_json(&mut out, d);
        if out.len() >= PIECE {
            emit(&out)?;
            out.clear();
        }
    }
    out.push(']');
    if let Some(d) = stopped {
        out.push_str(",\"stopped\":");
        diagnostic_json(&mut out, d);
    }
    out.push_str("}\n");
    emit(&out)
}

/// One diagnostic as a JSON object; `count` and `last_line` only for a run of more than one.
fn diagnostic_json(out: &mut String, d: &Diagnostic) {
    out.push_str("{\"code\":");
    json_string(out, d.code);
    out.push_str(",\"severity\":");
    json_string(out, d.severity().as_str());
    out.push_str(",\"class\":");
    json_string(out, d.class.as_str());
    out.push_str(",\"message\":");
    json_string(out, &d.message);
    let loc = d.location;
    let _ = write!(
        out,
        ",\"offset\":{},\"line\":{},\"column\":{}",
        loc.offset, loc.line, loc.column
    );
    if d.count > 1 {
        let _ = write!(out, ",\"count\":{},\"last_line\":{}", d.count, d.last_line);
    }
    out.push('}');
}

/// A JSON string (serde_json's escaping).
fn json_string(out: &mut String, text: &str) {
    match serde_json::to_string(text) {
        Ok(quoted) => out.push_str(&quoted),
        Err(_) => out.push_str("null"),
    }
}

/// A JSON string or `null`.
fn json_option(out: &mut String, text: Option<&str>) {
    match text {
        Some(t) => json_string(out, t),
        None => out.push_str("null"),
    }
}

/// The human report for one file: each diagnostic with its source line and a caret, then a summary.
pub fn human_report(
    loaded: &Loaded,
    diagnostics: &[&Diagnostic],
    stopped: Option<&Diagnostic>,
    no_warnings: bool,
) -> String {
    let parse = &loaded.parse;
    let mut out = String::new();
    let (mut errors, mut warnings) = (0, 0);
    for &d in diagnostics {
        // The summary counts problems, not diagnostics: a run of one code counts each of its lines.
        let n = u64::from(d.count.max(1));
        match d.severity() {
            Severity::Error => errors += n,
            Severity::Warning => warnings += n,
        }
        if no_warnings && d.severity() == Severity::Warning {
            continue;
        }
        let loc = d.location;
        let _ = write!(out, "{}[{}]: {}", d.severity().as_str(), d.code, d.message);
        if let Some(note) = d.run_note() {
            let _ = write!(out, " ({note})");
        }
        out.push('\n');
        let _ = writeln!(
            out,
            "  --> {}:{}:{} (byte {})",
            loaded.path.display(),
            loc.line,
            loc.column,
            loc.offset
        );
        let snippet = Snippet::of(parse, d);
        let gutter = " ".repeat(loc.line.to_string().len());
        let _ = writeln!(out, "{gutter} |");
        let _ = writeln!(out, "{} | {}", loc.line, snippet.source);
        // No width arguments: `{:pad$}` panics past 65 535 columns.
        let _ = writeln!(
            out,
            "{gutter} | {}{}",
            " ".repeat(snippet.pad),
            "^".repeat(snippet.width)
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

/// Lines up to this many octets are shown whole under a diagnostic.
const LONG_LINE: usize = 512;
/// How much of a longer line is shown: this many octets either side of what the diagnostic marks …
const SHOWN_AROUND: usize = 80;
/// … and of what it marks, at most this many octets.
const SHOWN_MARKED: usize = 160;

/// The source line shown under a diagnostic and where its caret goes.
#[derive(Debug, PartialEq, Eq)]
struct Snippet {
    /// The line (or, for a long line, the part around the diagnostic between `…`), printable.
    source: String,
    /// Characters before the caret.
    pad: usize,
    /// Carets: the characters the diagnostic marks on this line, at least one.
    width: usize,
}

impl Snippet {
    /// The snippet of `d`: its line found through the parse's line index, so each diagnostic costs the length of
    /// what is shown (at most about [`LONG_LINE`] octets), whatever the number of lines, siblings or diagnostics.
    fn of(parse: &gedgraft_syntax::Parse, d: &Diagnostic) -> Snippet {
        let text = parse.text();
        let at = floor_boundary(text, usize::from(d.range.start()));
        let line = parse.line_range(d.range.start());
        let line = usize::from(line.start())..usize::from(line.end());
        let at = at.clamp(line.start, line.end);
        let end = floor_boundary(text, usize::from(d.range.end()).clamp(at, line.end));
        let chars = |r: std::ops::Range<usize>| text.get(r).map_or(0, |t| t.chars().count());
        if line.len() <= LONG_LINE {
            return Snippet {
                source: text[line.clone()].chars().map(printable).collect(),
                pad: d.location.column.saturating_sub(1),
                width: chars(at..end).max(1),
            };
        }
        let from = floor_boundary(text, at.saturating_sub(SHOWN_AROUND).max(line.start));
        let marked_end = floor_boundary(text, end.min(at + SHOWN_MARKED)).max(at);
        let to = floor_boundary(text, (marked_end + SHOWN_AROUND).min(line.end)).max(marked_end);
        let (before, after) = (from > line.start, to < line.end);
        let mut source = String::with_capacity(to - from + 8);
        if before {
            source.push('…');
        }
        source.extend(text[from..to].chars().map(printable));
        if after {
            source.push('…');
        }
        Snippet {
            source,
            pad: usize::from(before) + chars(from..at),
            width: chars(at..marked_end).max(1),
        }
    }
}

/// The largest character boundary of `text` at or before `at` (at most its length).
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
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

#[cfg(test)]
mod tests {
    use super::{Snippet, LONG_LINE};
    use gedgraft_syntax::{parse, Diagnostic};

    fn snippets(input: &[u8]) -> Vec<(String, Snippet)> {
        let parse = parse(input);
        let list: Vec<Diagnostic> = parse.diagnostics().to_vec();
        list.iter()
            .map(|d| (d.code.to_string(), Snippet::of(&parse, d)))
            .collect()
    }

    /// The line around `at` as the whole text gives it.
    fn from_text(text: &str, at: usize) -> String {
        let start = text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
        let end = text[at..].find(['\n', '\r']).map_or(text.len(), |i| at + i);
        text[start..end].to_string()
    }

    #[test]
    fn short_lines_are_shown_whole_with_the_caret_at_the_column() {
        let input =
            b"0 HEAD\r\n  1 BAD@ line\r\n\r\n1 NOTE a @#x@ c\r2 CONC d\n0 TRLR\r\ntrailing\n";
        let parse = parse(input);
        let text = parse.text();
        for d in parse.diagnostics() {
            let snippet = Snippet::of(&parse, d);
            let at = usize::from(d.range.start());
            let line = from_text(text, at);
            assert_eq!(snippet.source, line.replace('\t', " "), "{}", d.code);
            assert_eq!(snippet.pad, d.location.column - 1, "{}", d.code);
        }
        let codes: Vec<_> = snippets(input).into_iter().map(|(c, _)| c).collect();
        assert!(codes.contains(&"bad-escape".to_string()), "{codes:?}");
    }

    /// A long line shows a window around each diagnostic, so many diagnostics on one line cost their number.
    #[test]
    fn long_lines_are_shown_around_the_diagnostic() {
        let mut input = b"0 HEAD\n1 NOTE ".to_vec();
        input.extend(std::iter::repeat_n(b'a', 70_000));
        input.push(0xFF);
        input.extend(b"tail\n0 TRLR\n");
        let found = snippets(&input);
        let (_, s) = found
            .iter()
            .find(|(c, _)| c == "undecodable-octets")
            .expect("undecodable-octets");
        assert!(
            s.source.starts_with('…') && s.source.ends_with("tail"),
            "{}",
            s.source
        );
        assert!(s.source.chars().count() < LONG_LINE);
        assert_eq!(s.source.chars().nth(s.pad), Some('\u{FFFD}'));
        assert_eq!(s.width, 1);
    }
}
