//! The record a diagnostic is in, so that a user can find it in a genealogy program: `in @I643@ INDI`,
//! `in the header`, `in INDI on line 12`.
//!
//! Records are the document's children in file order, and rowan finds the child holding an offset by a binary
//! search over the children's offsets: each diagnostic costs a logarithm of the number of records, whatever the
//! order diagnostics come in.

use gedgraft_syntax::ast::{AstNode, AstToken, Record};
use gedgraft_syntax::{Parse, SyntaxKind, SyntaxNode, TextRange, TextSize};
use std::fmt;

/// Where a diagnostic is, in terms of the file's records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// In a record (the header and the trailer included).
    Record(RecordInfo),
    /// In the text after the trailer that is not records (junk, a saved web page).
    AfterTrailer,
}

/// A record, as a user would look it up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordInfo {
    /// The cross-reference identifier without its `@`s.
    pub xref: Option<String>,
    /// The tag as written.
    pub tag: Option<String>,
    /// The 1-based line of the record's first line.
    pub line: usize,
    /// Whether this is the file's header (its first record, tagged `HEAD`).
    pub is_header: bool,
}

impl fmt::Display for Place {
    /// `in @I643@ INDI`, `in the header`, `in the trailer`, `in INDI on line 12`, `after the trailer`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = match self {
            Place::AfterTrailer => return f.write_str("after the trailer"),
            Place::Record(r) => r,
        };
        match (&r.xref, r.tag.as_deref()) {
            _ if r.is_header => f.write_str("in the header"),
            (None, Some("TRLR")) => f.write_str("in the trailer"),
            (Some(x), Some(tag)) => write!(f, "in @{x}@ {tag}"),
            (Some(x), None) => write!(f, "in @{x}@ on line {}", r.line),
            (None, Some(tag)) => write!(f, "in {tag} on line {}", r.line),
            (None, None) => write!(f, "in the record on line {}", r.line),
        }
    }
}

/// Finds the record that holds an offset of one parse.
pub struct Records<'p> {
    parse: &'p Parse,
    root: SyntaxNode,
    /// The range of the first record, when it is the header.
    header: Option<TextRange>,
    /// Whether the file has a trailer: text that is not records counts as after it only then (a file that is
    /// not GEDCOM at all is one run of such text).
    has_trailer: bool,
    /// The last child found and its place: neighbouring diagnostics are mostly in one record.
    last: Option<(TextRange, Option<Place>)>,
}

impl<'p> Records<'p> {
    /// The finder for `parse`.
    pub fn new(parse: &'p Parse) -> Records<'p> {
        let document = parse.document();
        // A later batch of a streamed file has no header, whatever its first record.
        let header = (parse.origin().offset == 0)
            .then(|| document.header())
            .flatten()
            .map(|r| r.syntax().text_range());
        Records {
            parse,
            root: parse.syntax(),
            header,
            has_trailer: document.trailer().is_some(),
            last: None,
        }
    }

    /// Where tree offset `at` is: the record holding it, the text after the trailer, or `None` (blank lines
    /// before the first record, for instance).
    pub fn place(&mut self, at: TextSize) -> Option<Place> {
        if let Some((range, place)) = &self.last {
            if range.contains(at) {
                return place.clone();
            }
        }
        let len = self.root.text_range().end();
        // A one-character range: an empty one at a record's start would name the record before it.
        let range = if at < len {
            TextRange::at(at, 1.into())
        } else {
            TextRange::empty(len)
        };
        let child = self.root.child_or_token_at_range(range)?;
        let mut range = child.text_range();
        let line = self.parse.locate(range.start()).line;
        let place = match child.kind() {
            SyntaxKind::TrailingText | SyntaxKind::Raw if self.has_trailer => {
                Some(Place::AfterTrailer)
            }
            // A malformed line at level 0 (`0 @I1 INDI`), found where its record would be.
            SyntaxKind::Error => Some(Place::Record(RecordInfo {
                xref: None,
                tag: None,
                line,
                is_header: false,
            })),
            _ => child.into_node().and_then(Record::cast).map(|record| {
                let tag = record.tag().map(|t| t.text().to_string());
                // Blank lines after `0 TRLR` belong to the trailer's node, but a user sees them after it.
                if tag.as_deref() == Some("TRLR") && record.xref().is_none() {
                    let first_line = self.parse.line_range(range.start());
                    if at > first_line.end() {
                        range = TextRange::new(first_line.end() + TextSize::from(1), range.end());
                        return Place::AfterTrailer;
                    }
                    range = TextRange::new(range.start(), first_line.end() + TextSize::from(1));
                }
                Place::Record(RecordInfo {
                    xref: record.xref().map(|x| x.id().to_string()),
                    tag,
                    line,
                    is_header: self.header == Some(range),
                })
            }),
        };
        self.last = Some((range, place.clone()));
        place
    }
}

#[cfg(test)]
mod tests {
    use super::{Place, Records};
    use gedgraft_syntax::{parse, TextSize};

    fn place(input: &[u8], needle: &str) -> Option<String> {
        let p = parse(input);
        let at = p.text().find(needle).expect("needle");
        let at = TextSize::from(u32::try_from(at).expect("small"));
        Records::new(&p).place(at).map(|pl: Place| pl.to_string())
    }

    #[test]
    fn names_the_record_as_a_user_finds_it() {
        let input = b"\n0 HEAD\n1 CHAR UTF-8\n0 @I643@ INDI\n1 NAME x\n0 NOTE n\n0 TRLR\n\x1ajunk";
        assert_eq!(place(input, "\n0 HEAD"), None);
        assert_eq!(place(input, "CHAR").as_deref(), Some("in the header"));
        assert_eq!(place(input, "0 HEAD").as_deref(), Some("in the header"));
        assert_eq!(place(input, "0 @I643@").as_deref(), Some("in @I643@ INDI"));
        assert_eq!(place(input, "NAME").as_deref(), Some("in @I643@ INDI"));
        assert_eq!(place(input, "0 NOTE").as_deref(), Some("in NOTE on line 6"));
        assert_eq!(place(input, "TRLR").as_deref(), Some("in the trailer"));
        assert_eq!(place(input, "junk").as_deref(), Some("after the trailer"));
    }

    /// Blank lines after the trailer are after it; a malformed level-0 line is named by its line; text that is
    /// not GEDCOM at all (no trailer) is in no record.
    #[test]
    fn names_what_is_not_a_record() {
        let input = b"0 HEAD\n0 @I1 INDI\n1 NAME x\n0 TRLR\n\n\n";
        assert_eq!(
            place(input, "@I1 INDI").as_deref(),
            Some("in the record on line 2")
        );
        assert_eq!(place(input, "0 TRLR").as_deref(), Some("in the trailer"));
        let p = parse(input);
        let mut records = Records::new(&p);
        let blank = TextSize::from(u32::try_from(p.text().len() - 1).expect("small"));
        assert_eq!(
            records.place(blank).map(|pl| pl.to_string()).as_deref(),
            Some("after the trailer")
        );
        assert_eq!(place(b"<!DOCTYPE html>\n<html></html>\n", "html>"), None);
    }
}
