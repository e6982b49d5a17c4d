//! Repairs of whole lines: blank lines, the trailer, line breaks.

use super::runs::Counts;
use super::{Cx, Made, OctetEdit, Repair};
use crate::editor::LfCr;
use crate::render;
use gedgraft_syntax::ast::{AstNode, AstToken, Record};
use gedgraft_syntax::internal::line_breaks::Tally;
use gedgraft_syntax::{codes, Diagnostic, SyntaxKind, TextRange};

/// `blank-line` (safe): the run's blank lines are removed; the lowering ignores them (R-LINE-STRINGS-06).
pub(super) fn blank_lines(cx: &Cx, d: &Diagnostic) -> Made {
    let (edits, counts) = blank_part(cx, d)?;
    Some((blank_message(counts), edits))
}

/// [`blank_lines`]'s edit of the lines of the run in `cx`'s tree, and how many LF and CR they hold (a run
/// across parts of a file sums them, [`super::runs`]); `None` when the run gets no repair.
pub(super) fn blank_part(cx: &Cx, d: &Diagnostic) -> Option<(Vec<OctetEdit>, Counts)> {
    let range = cx.run_lines(d);
    let text = cx.text(range);
    if text.is_empty() || !text.chars().all(|c| matches!(c, ' ' | '\t' | '\n' | '\r')) {
        return None;
    }
    let counts = [text.matches('\n').count(), text.matches('\r').count()];
    Some((vec![cx.replace(range, "")?], counts))
}

/// [`blank_lines`]'s message for lines holding `lf` LF and `cr` CR.
pub(super) fn blank_message([lf, cr]: Counts) -> String {
    let n = lf.max(cr).max(1);
    if n == 1 {
        "remove the blank line".to_string()
    } else {
        format!("remove the {n} blank lines")
    }
}

/// Where a file's trailers and its last record are, in file offsets: what the trailer repairs need from the
/// whole file. Gathered from the tree of the whole file ([`Cx::ends`]) or batch by batch, in file order, from a
/// file read in parts ([`FileFacts`](super::FileFacts)), the same facts either way (O(1) memory).
#[derive(Debug, Clone, Default)]
pub(crate) struct Ends {
    /// Where the last trailer record starts.
    last_trailer: Option<usize>,
    /// How the last record ends.
    end: Option<End>,
}

/// How a file's last record ends: where, whether with a line break, and the line break near it.
#[derive(Debug, Clone)]
struct End {
    at: usize,
    broken: bool,
    brk: String,
}

impl Ends {
    /// Gathers the records of one parse (the whole file, or the next part of it).
    pub(crate) fn gather(&mut self, cx: &Cx) {
        let mut last = None;
        for record in cx.parse.document().records() {
            if is_trailer(&record) {
                self.last_trailer = Some(cx.file(record.syntax().text_range().start()));
            }
            last = Some(record);
        }
        if let Some(last) = last {
            let range = last.syntax().text_range();
            self.end = Some(End {
                at: cx.file(range.end()),
                broken: cx.text(range).ends_with(['\n', '\r']),
                brk: render::break_near(last.syntax(), cx.parse),
            });
        }
    }

    /// Whether a trailer record starts at or after the file offset `at`.
    fn trailer_from(&self, at: usize) -> bool {
        self.last_trailer.is_some_and(|t| t >= at)
    }
}

/// The text of a new `0 TRLR` line (or the given `line`) at the end of the file's last record, with a line
/// break before it if the file's last line has none: the edit and where it goes.
fn at_end(cx: &Cx, line: &str) -> Option<OctetEdit> {
    let end = cx.ends().end.as_ref()?;
    let mut text = String::new();
    if !end.broken {
        text.push_str(&end.brk);
    }
    text.push_str(line);
    if !line.ends_with(['\n', '\r']) {
        text.push_str(&end.brk);
    }
    let mut replacement = Vec::new();
    cx.parse.encoding().encode(&text, &mut replacement).ok()?;
    Some(OctetEdit {
        range: end.at..end.at,
        replacement,
    })
}

/// `missing-trailer` (safe): `0 TRLR` is added after the last record (R-TAGGED-STRUCTS-05).
pub(super) fn missing_trailer(cx: &Cx, _d: &Diagnostic) -> Made {
    let last = cx.parse.document().records().last()?;
    let style = render::Style::near(last.syntax(), cx.parse, None);
    let delim = &style.delim;
    if let Some(at) = dos_end_of_file(cx) {
        let brk = &style.line_break;
        let edit = cx.replace(TextRange::empty(at), &format!("0{delim}TRLR{brk}"))?;
        return Some((
            "add `0 TRLR` before the DOS end-of-file mark (Ctrl-Z)".into(),
            vec![edit],
        ));
    }
    let edit = at_end(cx, &format!("0{delim}TRLR"))?;
    Some(("add `0 TRLR` at the end of the file".into(), vec![edit]))
}

/// Where the last line of the file starts, if it holds only Ctrl-Z (U+001A, the DOS end-of-file mark) and
/// blanks: the trailer goes before it, so the mark still ends the file.
fn dos_end_of_file(cx: &Cx) -> Option<gedgraft_syntax::TextSize> {
    let last = cx.parse.document().records().last()?;
    let range = last.syntax().text_range();
    let text = cx.text(range);
    let body = text.trim_end_matches(['\n', '\r']);
    let line_start = body.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let line = &body[line_start..];
    let is_mark =
        line.contains('\u{1A}') && line.chars().all(|c| matches!(c, '\u{1A}' | ' ' | '\t'));
    if !is_mark || line_start == 0 {
        return None;
    }
    Some(range.start() + gedgraft_syntax::TextSize::from(u32::try_from(line_start).ok()?))
}

fn is_trailer(r: &Record) -> bool {
    r.tag().is_some_and(|t| t.text() == "TRLR")
}

/// `record-after-trailer` (safe): the trailer just before the record is removed, and put at the end of the file
/// if no later trailer is there to end it (that one is moved by its own repair). The lowering drops every
/// trailer, so the dataset is the same (R-TAGGED-STRUCTS-03). The trailer is in the record's batch in a file
/// read in parts (a stream never ends a batch with a trailer that a record follows); the later trailers and
/// the file's end come from [`Ends`].
///
/// A run of the diagnostic (trailers one after another: `0 TRLR` repeated 100 000 times) is repaired whole:
/// each record of the run loses the trailer before it, so one pass does what took one pass a trailer (#12).
pub(super) fn trailer_to_end(cx: &Cx, d: &Diagnostic) -> Made {
    let first = cx.node_at(d.range.start(), SyntaxKind::Record)?;
    let run = std::iter::successors(Some(first.clone()), |r| r.next_sibling())
        .filter(|r| r.kind() == SyntaxKind::Record)
        .take(usize::try_from(d.count.max(1)).unwrap_or(1));
    let mut edits = Vec::new();
    let mut last = None;
    for (i, record) in run.enumerate() {
        // Only a bare trailer is moved: one with substructures or a payload is a `non-empty-trailer` to look
        // at. The first record's is this repair's; a later record of the run after no bare trailer (a record
        // after a record after the trailer) has none of its own.
        let bare = (record
            .prev_sibling()
            .and_then(Record::cast)
            .filter(is_trailer))
        .filter(|t| t.syntax().children().next().is_none() && t.payload().is_none());
        let Some(trailer) = bare else {
            match i {
                0 => return None,
                _ => continue,
            }
        };
        let range = trailer.syntax().text_range();
        edits.push(cx.replace(range, "")?);
        last = Some((record, cx.text(range).to_string()));
    }
    let (record, line) = last?;
    let removed = edits.len();
    if cx.ends().trailer_from(cx.file(record.text_range().start())) {
        return Some((trailer_message(removed, false), edits));
    }
    edits.push(at_end(cx, &line)?);
    Some((trailer_message(removed, true), edits))
}

/// What a `record-after-trailer` repair does: `removed` inner trailers, one of them `moved` to the end of the
/// file when no later trailer ends it.
pub(super) fn trailer_message(removed: usize, moved: bool) -> String {
    match (removed, moved) {
        (1, false) => "remove this inner trailer (a later `0 TRLR` ends the file)".into(),
        (n, false) => format!("remove these {n} inner trailers (a later `0 TRLR` ends the file)"),
        (1, true) => "move the `0 TRLR` line before this record to the end of the file".into(),
        (n, true) => format!(
            "remove the {n} inner trailers before these records, and put one at the end of the file"
        ),
    }
}

/// `lf-cr-line-breaks` and `mixed-line-breaks` (safe): every line break becomes the file's most common form
/// among LF, CR LF and CR ([`Tally::majority`]), an LF CR pair read as one break (GEDCOM 5.5.1); CR LF when
/// there are only pairs. Every form is a line break (R-LINE-STRINGS-01) and the 2019 draft reads a pair as two
/// breaks around an empty line, which the lowering ignores (R-LINE-STRINGS-02): the dataset is the same. Made
/// by the editor's line-break conversion, once for both codes; the first of them that the file has gets it.
pub(super) fn line_breaks(cx: &Cx, diagnostics: &[&Diagnostic], out: &mut [Option<Repair>]) {
    let Some(i) = diagnostics
        .iter()
        .position(|d| d.code == codes::LF_CR_LINE_BREAKS || d.code == codes::MIXED_LINE_BREAKS)
    else {
        return;
    };
    let code = diagnostics[i].code;
    let to = Tally::of_tree(cx.parse.green()).majority();
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
    if let Some(slot) = out.get_mut(i) {
        let message = format!("make every line break {}", to.name());
        *slot = edits.and_then(|e| cx.repair(code, message, e));
    }
}
