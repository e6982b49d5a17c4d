//! Repairs inside payloads: raw line breaks, split characters, bare `@`, long lines, `FORM`'s case, NUL.

use super::runs::Counts;
use super::{plural, Cx, Made, OctetEdit, Repair};
use crate::render::Style;
use gedgraft_encoding::{raw, Encoding};
use gedgraft_syntax::ast::{AstNode, AstToken, Line, Structure};
use gedgraft_syntax::internal::text_pieces;
use gedgraft_syntax::{codes, line_octet_limit, Diagnostic, SyntaxKind, SyntaxNode, TextRange};

/// Whether `node` (a record or structure) has a string payload that a raw line break could have cut: a
/// non-empty payload that is not a pointer, or continuation lines.
fn has_text_payload(node: &SyntaxNode) -> bool {
    let Some(s) = Structure::cast(node.clone()) else {
        return false;
    };
    if s.tag()
        .is_some_and(|t| matches!(t.text(), "HEAD" | "TRLR" | "CONT" | "CONC"))
    {
        return false;
    }
    let payload = s.payload();
    if payload.as_ref().and_then(|p| p.pointer()).is_some() {
        return false;
    }
    payload.is_some_and(|p| p.tokens().next().is_some()) || s.continuation_lines().next().is_some()
}

/// Whether `node` is a free-text structure, whose payload is prose that may hold line breaks (written as
/// `CONT` lines, R-LINE-CONT-03, R-SERIALISING-STRUCTS-06). ELF leaves the meaning of tags to schemas, so the
/// list comes from the GEDCOM grammars: in 5.5.1 the structures that take `CONT` lines are `NOTE` (record and
/// structure), `TEXT` (`TEXT_FROM_SOURCE`), `ADDR`, the `SOUR` record's `TITL`, `AUTH`, `PUBL` and `ABBR`,
/// and `COPR`; GEDCOM 7 gives the `Text` datatype (line breaks allowed) to those and to `SNOTE` and `PHRASE`.
/// An extension tag (`_…`) may be anything, so its text counts too. `NAME`, `PLAC`, `DATE`, `SEX` and the
/// like are one-line values: a line with no level under them is a damaged line, not the rest of the value.
fn is_free_text(s: &Structure) -> bool {
    let Some(tag) = s.tag() else {
        return false;
    };
    match tag.text() {
        "NOTE" | "SNOTE" | "TEXT" | "ADDR" | "AUTH" | "PUBL" | "ABBR" | "COPR" | "PHRASE" => true,
        "TITL" => s
            .syntax()
            .parent()
            .and_then(Structure::cast)
            .and_then(|p| p.tag())
            .is_some_and(|t| t.text() == "SOUR"),
        t => t.starts_with('_'),
    }
}

/// Whether `word` reads as a GEDCOM tag: upper-case letters and digits, three or more, `_` allowed first.
fn is_tag_like(word: &str) -> bool {
    let core = word.strip_prefix('_').unwrap_or(word);
    core.len() >= 3
        && core.starts_with(|c: char| c.is_ascii_uppercase())
        && core
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Whether a line with no level (`rest`, its leading blanks gone) reads as a damaged GEDCOM line rather than
/// text: a short token or an xref then a tag (`x1 BIRT`, `O TRLR`, `@ TRLR`, `@I1@ INDI`), or a tag first
/// (`SEX M`, `BIRT`). Text in capitals is taken for a damaged line too: then no repair is offered, which is
/// safe.
fn looks_like_damaged_line(rest: &str) -> bool {
    let mut words = rest.split([' ', '\t']).filter(|w| !w.is_empty());
    let (Some(first), second) = (words.next(), words.next()) else {
        return false;
    };
    if is_tag_like(first) {
        return true;
    }
    let short = first.chars().count() <= 3
        || (first.len() > 2 && first.starts_with('@') && first.ends_with('@'));
    short && second.is_some_and(is_tag_like)
}

/// `bad-level` (safe) on lines with no level at all under a free-text structure ([`is_free_text`]), before any
/// of its substructures: the writer left a line break of the text raw (Family Tree Maker, Ancestry,
/// MyHeritage notes). Each such line of the run becomes a `CONT` line (R-MERGE-CONTS-02, R-LINE-CONT-03), its
/// text the payload (`@` doubled as the dialect wants, so it reads as written). The lowering left these lines
/// out; now they are part of the text the writer meant. No repair where a line reads as a damaged GEDCOM line
/// ([`looks_like_damaged_line`]) or holds only control characters (the DOS end-of-file mark, Ctrl-Z): those
/// are not text, and making them text would change the meaning.
pub(super) fn raw_line_breaks(cx: &Cx, d: &Diagnostic) -> Made {
    let first = cx.node_at(d.range.start(), SyntaxKind::Error)?;
    let parent = first.parent()?;
    if !has_text_payload(&parent)
        || !Structure::cast(parent.clone()).is_some_and(|s| is_free_text(&s))
    {
        return None;
    }
    // Only lines before the structure's first substructure continue its payload.
    if cx
        .first_substructure(&parent)
        .is_some_and(|at| at < first.text_range().start())
    {
        return None;
    }
    let level = Structure::cast(parent.clone())?
        .level()?
        .value()
        .checked_add(1)?;
    let style = Style::near(&parent, cx.parse, None);
    let head = format!(
        "{}{level}{}CONT{}",
        style.indent(level),
        style.delim,
        style.sep
    );
    let doubles_all = !cx.parse.dialect().doubles_only_leading_at();
    let last = d.last_start().max(d.range.start());
    let mut edits = Vec::new();
    for node in std::iter::successors(Some(first), SyntaxNode::next_sibling) {
        let start = node.text_range().start();
        if start > last {
            break;
        }
        if node.kind() == SyntaxKind::Structure {
            break;
        }
        if node.kind() != SyntaxKind::Error {
            continue;
        }
        let range = node.text_range();
        let text = cx.text(range);
        let body = text.trim_end_matches(['\n', '\r']);
        let rest = body.trim_start_matches([' ', '\t']);
        // A line with a level of sorts (`1a`, `-1`) or none of the text: not a raw line break.
        if rest.is_empty() || rest.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            continue;
        }
        // Any line of the run that is not text: no repair of the run at all.
        if rest.chars().all(|c| c.is_control() || c.is_whitespace())
            || looks_like_damaged_line(rest)
        {
            return None;
        }
        let payload = if doubles_all {
            body.replace('@', "@@")
        } else if let Some(after) = body.strip_prefix('@') {
            format!("@@{after}")
        } else {
            body.to_string()
        };
        edits.push(cx.replace(
            TextRange::new(start, start + body_len(body)),
            &format!("{head}{payload}"),
        )?);
    }
    let n = edits.len();
    let message = format!(
        "make {} of the text above: it was cut by a raw line break",
        if n == 1 {
            format!("the line a `{level} CONT` line")
        } else {
            format!("the {n} lines `{level} CONT` lines")
        }
    );
    Some((message, edits))
}

fn body_len(body: &str) -> gedgraft_syntax::TextSize {
    gedgraft_syntax::TextSize::from(u32::try_from(body.len()).unwrap_or(u32::MAX))
}

/// The octets of the raw characters of `text`, if all of its characters are raw.
fn raw_octets(text: &str) -> Option<Vec<u8>> {
    text.chars().map(raw::to_octet).collect()
}

/// `undecodable-octets` (safe) where a UTF-8 file splits one character across a `CONC` line (MyHeritage,
/// GeneWeb): the raw octets ending a line and those starting the `CONC` payload after it make whole
/// characters. The octets at the end of the line are moved, as they are, to the start of the `CONC` payload,
/// so that the split falls between two characters (R-SERIALISING-STRUCTS-13). The merged text is the same
/// octets, now decodable.
pub(super) fn split_characters(cx: &Cx, d: &Diagnostic) -> Made {
    if cx.parse.encoding() != Encoding::Utf8 {
        return None;
    }
    let limit = line_octet_limit(Encoding::Utf8);
    let mut edits = Vec::new();
    let tokens: Vec<_> = cx.tokens_in(cx.run_lines(d)).collect();
    for t in tokens.iter().filter(|t| t.kind() == SyntaxKind::LineBreak) {
        // The run of raw tokens just before the break, and the CONC line after it.
        let mut tail = Vec::new();
        let mut prev = t.prev_token();
        while let Some(p) = prev.filter(|p| p.kind() == SyntaxKind::Raw && p.parent() == t.parent())
        {
            prev = p.prev_token();
            tail.push(p);
        }
        tail.reverse();
        let (Some(tail_first), Some(tail_last)) = (tail.first(), tail.last()) else {
            continue;
        };
        let Some(next_line) = t.next_token().and_then(|n| n.parent()).and_then(Line::cast) else {
            continue;
        };
        if next_line.tag().is_none_or(|g| g.text() != "CONC") {
            continue;
        }
        let Some(payload) = next_line.payload() else {
            continue;
        };
        let head: String = payload
            .tokens()
            .take_while(|p| p.kind() == SyntaxKind::Raw)
            .map(|p| p.text().to_string())
            .collect();
        let moved_text: String = tail.iter().map(|p| p.text().to_string()).collect();
        let (Some(moved), Some(head_octets)) = (raw_octets(&moved_text), raw_octets(&head)) else {
            continue;
        };
        let mut joined = moved.clone();
        joined.extend_from_slice(&head_octets);
        // The octets must make whole characters, and at least one must start in the tail.
        let whole = std::str::from_utf8(&joined).ok().filter(|s| !s.is_empty());
        if whole.is_none() || head_octets.is_empty() {
            continue;
        }
        let conc_len =
            cx.file(next_line.text_range().end()) - cx.file(next_line.text_range().start());
        if conc_len + moved.len() > limit {
            continue;
        }
        let from = TextRange::new(
            tail_first.text_range().start(),
            tail_last.text_range().end(),
        );
        let to = cx.file(payload.separator().text_range().end());
        edits.push(cx.replace(from, "")?);
        edits.push(OctetEdit {
            range: to..to,
            replacement: moved,
        });
    }
    Some((
        "move the `CONC` split to a character boundary (the character was cut in two)".into(),
        edits,
    ))
}

/// `unescaped-at` (safe; not in GEDCOM 7, where the code is not reported): each bare `@` of the run is written
/// `@@`, which reads as the same `@` (R-ESCAPING-01, R-IDENTIFY-ESCS-05).
pub(super) fn bare_at(cx: &Cx, d: &Diagnostic) -> Made {
    let (edits, counts) = bare_at_part(cx, d)?;
    Some((bare_at_message(counts), edits))
}

/// [`bare_at`]'s edits on the lines of the run in `cx`'s tree, and how many (the message's count: a run across
/// parts of a file sums them, [`super::runs`]); `None` when the run gets no repair.
pub(super) fn bare_at_part(cx: &Cx, d: &Diagnostic) -> Option<(Vec<OctetEdit>, Counts)> {
    if cx.parse.dialect().doubles_only_leading_at() {
        return None;
    }
    let mut edits = Vec::new();
    let mut line = AtLine::default();
    let mut count = 0;
    for t in cx.tokens_in(cx.run_lines(d)) {
        match t.kind() {
            SyntaxKind::Text => {
                // The bare `@`s of the text (its `@@`s are escaped already).
                let mut at = t.text_range().start();
                for piece in text_pieces(t.text()) {
                    if piece == "@" {
                        count += 1;
                        line.ats.push(at);
                    }
                    at += gedgraft_syntax::TextSize::of(piece);
                }
            }
            SyntaxKind::LineBreak => line.flush(cx, &mut edits)?,
            _ => line.plain &= line.ats.is_empty(),
        }
    }
    line.flush(cx, &mut edits)?;
    Some((edits, [count, 0]))
}

/// Bare `@`s a line gets an edit each for; a line with more gets one edit from its first to its last (#12: a
/// line of half a million bare `@`s is one edit, not half a million).
const MAX_AT_EDITS_PER_LINE: usize = 64;

/// The bare `@`s of one line, for [`bare_at_part`].
struct AtLine {
    ats: Vec<gedgraft_syntax::TextSize>,
    /// Nothing but text, `@@` and bare `@`s from the first bare `@` on: the span written again from its
    /// tree text gives its octets back.
    plain: bool,
}

impl Default for AtLine {
    fn default() -> Self {
        AtLine {
            ats: Vec::new(),
            plain: true,
        }
    }
}

impl AtLine {
    /// The line's edits, and a fresh start for the next line.
    fn flush(&mut self, cx: &Cx, edits: &mut Vec<OctetEdit>) -> Option<()> {
        let line = std::mem::take(self);
        let (Some(&first), Some(&last)) = (line.ats.first(), line.ats.last()) else {
            return Some(());
        };
        let span = TextRange::new(first, last + gedgraft_syntax::TextSize::from(1));
        // ANSEL writes a diacritic before its letter: its tree text is not its octets in order.
        let whole = line.ats.len() > MAX_AT_EDITS_PER_LINE
            && line.plain
            && cx.parse.encoding() != Encoding::Ansel;
        if whole {
            let mut doubled = String::with_capacity(cx.text(span).len() + line.ats.len());
            let mut from = first;
            for &at in &line.ats {
                let upto = at + gedgraft_syntax::TextSize::from(1);
                doubled.push_str(cx.text(TextRange::new(from, upto)));
                doubled.push('@');
                from = upto;
            }
            let edit = cx.replace(span, &doubled)?;
            let at_len = cx.replace(TextRange::empty(first), "@")?.replacement.len();
            // Written again, the span's own text is as long as it is in the file (else, an edit per `@`).
            let written = (edit.replacement.len()).checked_sub(line.ats.len() * at_len);
            if written == Some(edit.range.len()) {
                edits.push(edit);
                return Some(());
            }
        }
        for at in line.ats {
            edits.push(cx.replace(TextRange::empty(at), "@")?);
        }
        Some(())
    }
}

/// [`bare_at`]'s message for `n` bare `@`s.
pub(super) fn bare_at_message([n, _]: Counts) -> String {
    if n == 1 {
        "write the `@` as `@@`".to_string()
    } else {
        format!("write the {} as `@@`", plural(n, "bare `@`"))
    }
}

/// `line-too-long` (safe): the editor's re-wrap ([`Editor::rewrap`](crate::Editor::rewrap)) over the whole
/// file, its changes given to the diagnostics whose lines they are on (R-SERIALISING-STRUCTS-08 to -14). Lines
/// the editor does not split (no payload to split, a bare `@` to escape first) get no repair.
pub(super) fn long_lines(cx: &Cx, diagnostics: &[&Diagnostic], out: &mut [Option<Repair>]) {
    let mut wanted: Vec<(usize, std::ops::Range<usize>)> = diagnostics
        .iter()
        .enumerate()
        .filter(|(_, d)| d.code == codes::LINE_TOO_LONG)
        .map(|(i, d)| {
            let lines = cx.run_lines(d);
            (i, cx.file(lines.start())..cx.file(lines.end()))
        })
        .collect();
    if wanted.is_empty() {
        return;
    }
    wanted.sort_by_key(|(_, r)| r.start);
    let mut editor = crate::Editor::new(cx.parse);
    if editor.rewrap(None, None).is_err() {
        return;
    }
    let Ok(edited) = editor.apply_lazily() else {
        return;
    };
    let mut per: Vec<Vec<OctetEdit>> = vec![Vec::new(); wanted.len()];
    // The diagnostics are in file order: the one a change is on is found by binary search.
    for change in edited.changed_ranges() {
        let Some(edit) = cx.edit_of_change(change, edited.bytes()) else {
            continue;
        };
        let k = wanted.partition_point(|(_, r)| r.start <= edit.range.start);
        let Some(k) = k.checked_sub(1) else { continue };
        if wanted.get(k).is_some_and(|(_, r)| edit.range.end <= r.end) {
            per[k].push(edit);
        }
    }
    for ((i, _), edits) in wanted.into_iter().zip(per) {
        if let Some(slot) = out.get_mut(i) {
            *slot = cx.repair(
                codes::LINE_TOO_LONG,
                "split the payload with `CONC` lines within the limit".into(),
                edits,
            );
        }
    }
}

/// `bad-gedc` (safe) when `HEAD.GEDC.FORM` is `LINEAGE-LINKED` in another case (`Lineage-Linked`): written
/// `LINEAGE-LINKED` (R-PARSING-METADATA-07). Not in GEDCOM 7, which has no `FORM` there.
pub(super) fn form_case(cx: &Cx, d: &Diagnostic) -> Made {
    if cx.parse.dialect().is_gedcom7() {
        return None;
    }
    let header = cx.parse.document().header()?;
    let gedc = header
        .substructures()
        .find(|s| s.tag().is_some_and(|t| t.text() == "GEDC"))?;
    let form = gedc
        .substructures()
        .find(|s| s.tag().is_some_and(|t| t.text() == "FORM"))?;
    let payload = form.payload()?;
    let tokens: Vec<_> = payload.tokens().collect();
    let range = TextRange::new(
        tokens.first()?.text_range().start(),
        tokens.last()?.text_range().end(),
    );
    let text = cx.text(range);
    if text == "LINEAGE-LINKED" || !text.trim().eq_ignore_ascii_case("LINEAGE-LINKED") {
        return None;
    }
    if !(range.contains(d.range.start()) || d.range.contains(range.start())) {
        return None;
    }
    let trimmed = text.trim_end();
    let range = TextRange::new(range.start(), range.start() + body_len(trimmed));
    let edit = cx.replace(range, &trimmed.replace(trimmed.trim(), "LINEAGE-LINKED"))?;
    Some(("write `FORM LINEAGE-LINKED` in capitals".into(), vec![edit]))
}

/// `not-a-character` (unsafe) for U+0000: the NUL characters of the run's lines are removed. They are not
/// characters (R-LINES-01), usually padding or a writer's bug, but removing them joins what they stood between.
/// Lines with U+FFFE or U+FFFF get no repair.
pub(super) fn nul_characters(cx: &Cx, d: &Diagnostic) -> Made {
    let (edits, counts) = nul_part(cx, d)?;
    Some((nul_message(counts), edits))
}

/// [`nul_characters`]'s edits on the lines of the run in `cx`'s tree, and how many.
pub(super) fn nul_part(cx: &Cx, d: &Diagnostic) -> Option<(Vec<OctetEdit>, Counts)> {
    let lines = cx.run_lines(d);
    let text = cx.text(lines);
    let mut edits = Vec::new();
    for (i, c) in text.char_indices() {
        if c == '\0' {
            let at = lines.start() + body_len(&text[..i]);
            edits.push(cx.replace(TextRange::at(at, 1.into()), "")?);
        }
    }
    let counts = [edits.len(), 0];
    Some((edits, counts))
}

/// [`nul_characters`]'s message for `n` NUL characters.
pub(super) fn nul_message([n, _]: Counts) -> String {
    format!("remove the {}", plural(n, "NUL character"))
}

#[cfg(test)]
mod tests {
    use crate::{apply_repairs, repairs};
    use gedgraft_encoding::Encoding;

    /// The `unescaped-at` repair of a file with one note of `n` bare `@`s (between `x`s, with an `@@` among
    /// them), in `encoding`: the number of edits, and the repaired text.
    fn repaired(n: usize, encoding: Encoding) -> (usize, String) {
        let (char_name, bom) = match encoding {
            Encoding::Utf16Le => ("UNICODE", "\u{feff}"),
            Encoding::Ansel => ("ANSEL", ""),
            _ => ("UTF-8", ""),
        };
        let note = format!("a@@b{}", "x@".repeat(n));
        let text =
            format!("{bom}0 HEAD\n1 CHAR {char_name}\n0 @N1@ NOTE {note}\n1 CONT y@z\n0 TRLR\n");
        let mut input = Vec::new();
        encoding.encode(&text, &mut input).unwrap();
        let parse = gedgraft_syntax::parse(&input);
        assert_eq!(parse.encoding(), encoding);
        let diagnostics: Vec<_> = parse.diagnostics().iter().collect();
        let found = repairs(&parse, &diagnostics);
        let at: Vec<_> = (diagnostics.iter().zip(&found))
            .filter(|(d, _)| d.code == "unescaped-at")
            .filter_map(|(_, r)| r.as_ref())
            .collect();
        let out = apply_repairs(&input, &at);
        let want = format!(
            "{bom}0 HEAD\n1 CHAR {char_name}\n0 @N1@ NOTE a@@b{}\n1 CONT y@@z\n0 TRLR\n",
            "x@@".repeat(n)
        );
        let mut want_octets = Vec::new();
        encoding.encode(&want, &mut want_octets).unwrap();
        assert_eq!(out.bytes, want_octets, "{encoding:?}, {n} bare @s");
        let again = gedgraft_syntax::parse(&out.bytes);
        assert!(again.diagnostics().iter().all(|d| d.code != "unescaped-at"));
        (at.iter().map(|r| r.edits.len()).sum(), want)
    }

    /// R-ESCAPING-01: every bare `@` is written `@@`; a line of a few gets an edit each, a line of many (#12: a
    /// line of half a million) one edit over them, in every encoding whose text is its octets in order.
    #[test]
    fn r_escaping_01_a_line_of_many_bare_at_signs_is_one_edit() {
        for encoding in [Encoding::Utf8, Encoding::Utf16Le] {
            assert_eq!(repaired(3, encoding).0, 3 + 1, "{encoding:?}");
            assert_eq!(repaired(64, encoding).0, 64 + 1, "{encoding:?}");
            assert_eq!(repaired(65, encoding).0, 1 + 1, "{encoding:?}");
            assert_eq!(repaired(1000, encoding).0, 1 + 1, "{encoding:?}");
        }
        // ANSEL keeps an edit per `@`.
        assert_eq!(repaired(100, Encoding::Ansel).0, 100 + 1);
    }
}
