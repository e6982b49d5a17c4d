//! Repairs of whole lines: blank lines, the trailer, line breaks.

use super::{Cx, Made, OctetEdit, Repair};
use crate::editor::{LfCr, LineBreak};
use crate::render;
use gedgraft_syntax::ast::{AstNode, AstToken, Record};
use gedgraft_syntax::{codes, Diagnostic, SyntaxKind, TextRange};

/// `blank-line` (safe): the run's blank lines are removed; the lowering ignores them (R-LINE-STRINGS-06).
pub(super) fn blank_lines(cx: &Cx, d: &Diagnostic) -> Made {
    let range = cx.run_lines(d);
    let text = cx.text(range);
    if text.is_empty() || !text.chars().all(|c| matches!(c, ' ' | '\t' | '\n' | '\r')) {
        return None;
    }
    let n = text
        .matches('\n')
        .count()
        .max(text.matches('\r').count())
        .max(1);
    let message = if n == 1 {
        "remove the blank line".to_string()
    } else {
        format!("remove the {n} blank lines")
    };
    Some((message, vec![cx.replace(range, "")?]))
}

/// The text of a new `0 TRLR` line (or the given `line`) at the end of the last record, with a line break
/// before it if the file's last line has none: the edit and where it goes.
fn at_end(cx: &Cx, line: &str) -> Option<OctetEdit> {
    let last = cx.parse.document().records().last()?;
    let end = last.syntax().text_range().end();
    let before = cx.text(TextRange::new(last.syntax().text_range().start(), end));
    let brk = render::break_near(last.syntax());
    let mut text = String::new();
    if !before.ends_with(['\n', '\r']) {
        text.push_str(&brk);
    }
    text.push_str(line);
    if !line.ends_with(['\n', '\r']) {
        text.push_str(&brk);
    }
    cx.replace(TextRange::empty(end), &text)
}

/// `missing-trailer` (safe): `0 TRLR` is added after the last record (R-TAGGED-STRUCTS-05).
pub(super) fn missing_trailer(cx: &Cx, _d: &Diagnostic) -> Made {
    cx.parse.document().records().last()?;
    let delim = render::Style::near(
        &cx.parse.document().records().last()?.syntax().clone(),
        None,
    )
    .delim;
    let edit = at_end(cx, &format!("0{delim}TRLR"))?;
    Some(("add `0 TRLR` at the end of the file".into(), vec![edit]))
}

fn is_trailer(r: &Record) -> bool {
    r.tag().is_some_and(|t| t.text() == "TRLR")
}

/// `record-after-trailer` (safe): the trailer just before the record is removed, and put at the end of the file
/// if no later trailer is there to end it (that one is moved by its own repair). The lowering drops every
/// trailer, so the dataset is the same (R-TAGGED-STRUCTS-03).
pub(super) fn trailer_to_end(cx: &Cx, d: &Diagnostic) -> Made {
    let record = cx.node_at(d.range.start(), SyntaxKind::Record)?;
    let trailer = record
        .prev_sibling()
        .and_then(Record::cast)
        .filter(is_trailer)?;
    // Only a bare trailer is moved: one with substructures or a payload is a `non-empty-trailer` to look at.
    let range = trailer.syntax().text_range();
    if trailer.syntax().children().next().is_some() || trailer.payload().is_some() {
        return None;
    }
    let line = cx.text(range).to_string();
    let mut edits = vec![cx.replace(range, "")?];
    let later = std::iter::successors(Some(record.clone()), |r| r.next_sibling())
        .filter_map(Record::cast)
        .any(|r| is_trailer(&r));
    if later {
        return Some((
            "remove this inner trailer (a later `0 TRLR` ends the file)".into(),
            edits,
        ));
    }
    edits.push(at_end(cx, &line)?);
    Some((
        "move the `0 TRLR` line before this record to the end of the file".into(),
        edits,
    ))
}

/// `lf-cr-line-breaks` (safe): every line break becomes the file's most common form among LF, CR LF and CR,
/// an LF CR pair read as one break (GEDCOM 5.5.1); CR LF when there are only pairs. The 2019 draft reads a pair
/// as two breaks around an empty line, which the lowering ignores: the dataset is the same. Made by the
/// editor's line-break conversion.
pub(super) fn line_breaks(cx: &Cx, diagnostics: &[&Diagnostic], out: &mut [Option<Repair>]) {
    let Some(i) = diagnostics
        .iter()
        .position(|d| d.code == codes::LF_CR_LINE_BREAKS)
    else {
        return;
    };
    let to = majority_break(cx.parse.text());
    let mut editor = crate::Editor::new(cx.parse);
    editor.convert_line_breaks(to, LfCr::OneBreak);
    let Ok(edited) = editor.apply_lazily() else {
        return;
    };
    let edits: Option<Vec<OctetEdit>> = edited
        .changed_ranges()
        .iter()
        .map(|c| cx.edit_of_change(c, edited.bytes()))
        .collect();
    let name = match to {
        LineBreak::Lf => "LF",
        LineBreak::CrLf => "CR LF",
        LineBreak::Cr => "CR",
    };
    if let Some(slot) = out.get_mut(i) {
        *slot = edits.and_then(|e| {
            cx.repair(
                codes::LF_CR_LINE_BREAKS,
                format!("make every line break {name}"),
                e,
            )
        });
    }
}

/// The most common line break of `text` outside LF CR pairs (CR LF if there is none).
fn majority_break(text: &str) -> LineBreak {
    let (mut lf, mut crlf, mut cr) = (0usize, 0usize, 0usize);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1)) {
            (b'\r', Some(b'\n')) => {
                crlf += 1;
                i += 2;
            }
            (b'\n', Some(b'\r')) => i += 2,
            (b'\n', _) => {
                lf += 1;
                i += 1;
            }
            (b'\r', _) => {
                cr += 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    if lf > crlf && lf >= cr {
        LineBreak::Lf
    } else if cr > crlf && cr > lf {
        LineBreak::Cr
    } else {
        LineBreak::CrLf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majority_counts_lf_cr_pairs_as_neither() {
        assert_eq!(majority_break("a\n\rb\n\rc\n"), LineBreak::Lf);
        assert_eq!(majority_break("a\n\rb\n\r"), LineBreak::CrLf);
        assert_eq!(majority_break("a\rb\rc\r\n"), LineBreak::Cr);
    }
}
