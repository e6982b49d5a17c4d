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
    out.push_str("},\"diagnostics\":[");
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
    let root = parse.syntax();
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
        let start = usize::from(d.range.start()).min(usize::from(root.text_range().end()));
        let (line, line_start) = source_line(&root, start);
        let source: String = line.chars().map(printable).collect();
        let (start, end) = (start - line_start, usize::from(d.range.end()) - line_start);
        let end = end.clamp(start, line.len());
        let width = line.get(start..end).map_or(0, |t| t.chars().count()).max(1);
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

/// The text of the line around tree offset `at` (without its line break) and the offset where it starts, read
/// from the tokens around `at`: no need to write out the whole tree for a few diagnostics.
fn source_line(root: &gedgraft_syntax::SyntaxNode, at: usize) -> (String, usize) {
    let is_break = |c: char| c == '\n' || c == '\r';
    let start_of = |t: &gedgraft_syntax::SyntaxToken| usize::from(t.text_range().start());
    let Some(token) = root
        .token_at_offset(u32::try_from(at).unwrap_or(u32::MAX).into())
        .right_biased()
        .or_else(|| root.last_token())
    else {
        return (String::new(), at);
    };
    let text = token.text();
    let mut split = at.saturating_sub(start_of(&token)).min(text.len());
    while !text.is_char_boundary(split) {
        split -= 1;
    }
    let (head, tail) = text.split_at(split);
    // Backwards to the previous line break: `pieces` are collected last first.
    let mut pieces = Vec::new();
    let mut line_start = start_of(&token);
    let mut piece = head.to_string();
    let mut prev = token.prev_token();
    loop {
        if let Some(i) = piece.rfind(is_break) {
            line_start += i + 1;
            pieces.push(piece.split_off(i + 1));
            break;
        }
        pieces.push(piece);
        match prev {
            Some(t) => {
                line_start = start_of(&t);
                piece = t.text().to_string();
                prev = t.prev_token();
            }
            None => break,
        }
    }
    let mut line: String = pieces.into_iter().rev().collect();
    // Forwards to the next line break.
    let mut piece = tail.to_string();
    let mut next = token.next_token();
    loop {
        if let Some(i) = piece.find(is_break) {
            line.push_str(&piece[..i]);
            break;
        }
        line.push_str(&piece);
        match next {
            Some(t) => {
                piece = t.text().to_string();
                next = t.next_token();
            }
            None => break,
        }
    }
    (line, line_start)
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
    use super::source_line;

    /// The line around `at` as the whole text gives it.
    fn from_text(text: &str, at: usize) -> (String, usize) {
        let start = text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
        let end = text[at..].find(['\n', '\r']).map_or(text.len(), |i| at + i);
        (text[start..end].to_string(), start)
    }

    #[test]
    fn source_lines_from_tokens_match_the_whole_text() {
        let inputs: [&[u8]; 5] = [
            b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Jos\xC3\xA9 /M\xC3\xBCller/\n0 TRLR\n",
            b"0 HEAD\r\n  1 BAD@ line\r\n\r\n1 NOTE a@@b @#UE9@ c\r2 CONC d\n0 TRLR\r\ntrailing\nmore\n",
            b"0 HEAD\n1 NOTE no final break",
            b"",
            b"\xEF\xBB\xBF0 HEAD\n0 TRLR\n\x1a\x1a",
        ];
        for input in inputs {
            let parse = gedgraft_syntax::parse(input);
            let text = parse.text();
            for at in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                assert_eq!(
                    source_line(&parse.syntax(), at),
                    from_text(text, at),
                    "{:?} at {at}",
                    String::from_utf8_lossy(input)
                );
            }
        }
    }
}
