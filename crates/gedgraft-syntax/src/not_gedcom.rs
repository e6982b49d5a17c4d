//! Telling a file that is not GEDCOM at all (an HTML page saved as `.ged`, a picture, a program) from a broken
//! GEDCOM file, so that it gets one clear error instead of one per line.
//!
//! **The rule:** of the non-blank lines that start in the text's first [`PROBE_BYTES`] bytes (after a
//! byte-order mark), the first has no level, and fewer than one in [`LEVEL_SHARE`] has one. A line has a level
//! when the lexer finds one: a well-formed line, or a malformed line with a level (`1 N@ME x` has one, `1NAME x`
//! and `<html>` have none).
//!
//! Every GEDCOM file starts with `0 HEAD`; however broken (junk lines before its header, a header without a
//! level, lines cut in two), nearly all its lines start with a level. An HTML page has a few lines of prose
//! that start with a number and a word (`3 digit number of …`) among hundreds of tags; a binary file has a few
//! by chance. Checked against every file of the corpus and of `tests/data`: none is called not GEDCOM. The
//! failure the rule allows is the other way: a file with many such lines gets the per-line diagnostics, as
//! before.
//!
//! Such a file parses into a document of trailing text only (one `TRAILING_TEXT` token, undecodable octets
//! kept in it as raw characters), with the one diagnostic `not-gedcom` and no other, not even the encoding notes
//! (R-SPECIFIED-ENC-06: an application stops parsing such a stream as ELF).

use crate::codes;
use crate::diagnostic::{Class, Diagnostic};
use crate::kind::SyntaxKind;
use crate::lexer::{lex_line, LineShape};
use crate::line_cursor::line_end;
use crate::parser::Parsed;
use gedgraft_encoding::raw;
use rowan::{GreenNode, GreenToken, NodeOrToken};

/// How much of the text's start is looked at: enough for a page of junk lines before `0 HEAD`, little enough
/// that a binary file seldom has a line starting with digits and a space in it by chance.
pub(crate) const PROBE_BYTES: usize = 16 * 1024;

/// A text whose first non-blank line has no level is GEDCOM if at least one in this many of its non-blank lines
/// in the probe has one (prose, as in an HTML page, has a few lines that start with a number and a word).
const LEVEL_SHARE: usize = 4;

/// How many characters of the first line the message quotes.
const EXCERPT_CHARS: usize = 40;

/// The message of the `not-gedcom` diagnostic when `text` is not a GEDCOM file (see the module documentation),
/// else `None`. Looks at the first [`PROBE_BYTES`] bytes only, so a caller may pass a prefix of the text.
pub(crate) fn not_gedcom(text: &str) -> Option<String> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut end = text.len().min(PROBE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let probe = &text[..end];
    let bytes = probe.as_bytes();
    let mut tokens = Vec::new();
    let mut first = None;
    let (mut lines, mut with_level) = (0usize, 0usize);
    let mut pos = 0;
    while pos < bytes.len() {
        let end = line_end(bytes, pos);
        let line = &probe[pos..end.content_end];
        pos = end.next_start;
        let has_level = match lex_line(line, &mut tokens) {
            LineShape::Blank => continue,
            LineShape::Line(_) | LineShape::Malformed { level: Some(_), .. } => true,
            LineShape::Malformed { level: None, .. } => false,
        };
        if lines == 0 && has_level {
            return None;
        }
        lines += 1;
        with_level += usize::from(has_level);
        first.get_or_insert(line);
    }
    if with_level * LEVEL_SHARE >= lines {
        return None;
    }
    let (quote, binary) = excerpt(first?);
    Some(if binary {
        format!(
            "not a GEDCOM file: it starts with binary data (`{quote}`), not with lines such as `0 HEAD`"
        )
    } else {
        format!(
            "not a GEDCOM file: the first line is `{quote}`, and no line near the start begins with a level \
             number (a GEDCOM file starts with `0 HEAD`)"
        )
    })
}

/// A short, safe quote of `line`, and whether it holds binary data: at most [`EXCERPT_CHARS`] characters,
/// leading and trailing whitespace dropped, control characters, whitespace other than spaces and undecodable
/// octets shown as U+FFFD (they make it binary), a backtick as `'`.
fn excerpt(line: &str) -> (String, bool) {
    let mut out = String::new();
    let mut binary = false;
    // Columns shown: an undecodable octet or a control character is shown as `\x89` by `Diagnostic::new`.
    let mut shown = 0;
    for c in line.trim_matches([' ', '\t']).chars() {
        if shown >= EXCERPT_CHARS {
            out.push('…');
            break;
        }
        if raw::is_raw(c) || c.is_control() || (c.is_whitespace() && c != ' ') {
            binary = true;
            shown += 4;
            out.push(c);
            continue;
        }
        shown += 1;
        if c == '`' {
            out.push('\'');
        } else {
            out.push(c);
        }
    }
    (out, binary)
}

/// The parse of a text that is not GEDCOM: a byte-order mark if it has one, then one trailing-text token
/// (undecodable octets kept in it as raw characters), and the one diagnostic.
pub(crate) fn parsed(text: &str, message: String) -> Parsed {
    let mut children = Vec::new();
    let body = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let bom = text.len() - body.len();
    if bom > 0 {
        children.push(token(SyntaxKind::Bom, &text[..bom]));
    }
    // One token, undecodable octets kept inside it as raw characters (see `write_token`).
    if !body.is_empty() {
        children.push(token(SyntaxKind::TrailingText, body));
    }
    let range = crate::parser::range(bom, bom);
    Parsed {
        green: GreenNode::new(SyntaxKind::Document.into(), children),
        diagnostics: vec![Diagnostic::new(
            codes::NOT_GEDCOM,
            Class::MalformedStructure,
            message,
            range,
        )],
        max_depth: 1,
    }
}

fn token(kind: SyntaxKind, text: &str) -> NodeOrToken<GreenNode, GreenToken> {
    NodeOrToken::Token(GreenToken::new(kind.into(), text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_specified_enc_06_an_html_page_is_not_gedcom() {
        let page =
            "<!DOCTYPE html>\n<html>\n<head><title>Family</title></head>\n<body>\n<p>0 HEAD</p>\n";
        let message = not_gedcom(page).unwrap();
        assert!(
            message.contains("the first line is `<!DOCTYPE html>`"),
            "{message}"
        );
    }

    #[test]
    fn broken_gedcom_files_are_gedcom() {
        for text in [
            "0 HEAD\n1 CHAR UTF-8\n0 TRLR\n",
            "\u{FEFF}\u{FEFF}0 HEAD\n1 CHAR UTF-8\n",
            "HEAD\n1 CHAR UTF-8\n",
            "From: someone\nSubject: my tree\n\n0 HEAD\n",
            "0HEAD\n1 N@ME x\n",
            "  0 HEAD\n",
            "<html>\n1 NOTE x\n",
            "garbage\n0 HEAD\n1 CHAR UTF-8\n1 SOUR x\nline cut in two\n2 VERS 1\n",
            "",
            " \n\t\n",
        ] {
            assert_eq!(not_gedcom(text), None, "{text:?}");
        }
    }

    #[test]
    fn a_few_lines_of_prose_with_numbers_do_not_make_a_page_gedcom() {
        let mut page = String::from("<!DOCTYPE html>\n<html>\n<p>The scale is\n");
        page.push_str("3 digit number of the input base.\n");
        page.push_str(&"<p>more text</p>\n".repeat(3));
        assert!(not_gedcom(&page).is_some());
        page.push_str("0 HEAD\n");
        assert_eq!(not_gedcom(&page), None, "two lines with a level in eight");
    }

    #[test]
    fn binary_octets_are_quoted_safely() {
        let mut text = String::new();
        raw::push_octets(&mut text, &[0x89]);
        text.push_str("PNG\u{1A}`x`\u{0}");
        text.push_str(&"y".repeat(100));
        let message = not_gedcom(&text).unwrap();
        // As a diagnostic shows it: undecodable octets and control characters as `\x89`.
        let shown = crate::Diagnostic::new(
            "not-gedcom",
            crate::Class::MalformedStructure,
            message,
            Default::default(),
        )
        .message;
        assert!(
            shown.contains("binary data (`\\x89PNG\\x1A'x'\\x00yyyyy"),
            "{shown}"
        );
        assert!(shown.contains("y…`"), "{shown}");
    }

    #[test]
    fn only_the_start_is_looked_at() {
        let late = format!("{}\n0 HEAD\n", "x".repeat(PROBE_BYTES));
        assert!(not_gedcom(&late).is_some());
        let early = format!("<p>\n0 HEAD\n{}", "é".repeat(PROBE_BYTES));
        assert_eq!(not_gedcom(&early), None);
    }
}
