//! What follows a trailer line: more records, or octets that are not lines.
//!
//! Files users meet often go on after `0 TRLR`: an export appended to another (`0 TRLR`, then `0 HEAD` or
//! `0 @I9@ INDI` …), or junk a transfer added (a DOS end-of-file mark `^Z`, an HTML page, binary octets). The
//! 2019 draft reads the remaining records one by one until no lines are left (R-TAGGED-STRUCTS-03), and a
//! file whose last record is not the trailer is malformed (R-TAGGED-STRUCTS-05). So the parser reads lines
//! after a trailer as records, with a `record-after-trailer` error on the first record after each trailer, and
//! keeps as trailing text (one `TRAILING_TEXT` token) everything from the first line that is not a line
//! of the format:
//!
//! * the first non-blank line after a trailer must be a well-formed level-0 line (else the rest is trailing
//!   text, reported `content-after-trailer` or `junk-after-trailer` as before: `0 TRLR ⏎ 1 NOTE x` stays so);
//! * after that, every line that starts with a level (well-formed or not: a malformed line of a record becomes
//!   an `ERROR` node as anywhere else) and every blank line is read; the first other line (`<html>`, `^Z`,
//!   binary) and everything after it is trailing text, blank lines just before it included.
//!
//! Once a parser has seen a trailer it reads on to the end of the text, past the end of its chunk, so that a
//! parse on many threads is the same as a one-thread parse (the chunks after it are dropped).

use crate::lexer::{lex_line, LineShape, LineToken};
use crate::line_cursor::line_end;

/// Where the parser is after the last trailer line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AfterTrailer {
    /// No record has followed the last trailer yet.
    pub first_record_pending: bool,
    /// Lines before this offset were found to be readable (blank lines before a readable line).
    pub readable_until: usize,
}

/// What to do with the line at some offset after a trailer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// Read it as a line.
    Line,
    /// Read it as a line: it is the first record after the trailer (report `record-after-trailer`).
    FirstRecord,
    /// Everything from here on is trailing text.
    TrailingText,
}

impl AfterTrailer {
    pub(crate) fn new(pos: usize) -> AfterTrailer {
        AfterTrailer {
            first_record_pending: true,
            readable_until: pos,
        }
    }

    /// A piece of the file that starts after a trailer, at a line start, with a record still to follow the
    /// trailer or not ([`crate::parser::parse_piece`]).
    pub(crate) fn carried(first_record_pending: bool) -> AfterTrailer {
        AfterTrailer {
            first_record_pending,
            readable_until: 0,
        }
    }

    /// Decides about the line starting at `pos` of `text` (the whole text); `tokens` is scratch space.
    pub(crate) fn next(&mut self, text: &str, pos: usize, tokens: &mut Vec<LineToken>) -> Next {
        if pos < self.readable_until {
            return Next::Line;
        }
        let bytes = text.as_bytes();
        // The first non-blank line at or after `pos`.
        let mut at = pos;
        while at < bytes.len() {
            let end = line_end(bytes, at);
            let line = text.get(at..end.content_end).unwrap_or("");
            let shape = lex_line(line, tokens);
            let readable = match shape {
                LineShape::Blank => {
                    at = end.next_start;
                    continue;
                }
                LineShape::Line(facts) if self.first_record_pending => facts.level == 0,
                _ if self.first_record_pending => false,
                LineShape::Line(_) => true,
                LineShape::Malformed { level, .. } => level.is_some(),
            };
            if !readable {
                return Next::TrailingText;
            }
            self.readable_until = at;
            if at > pos {
                return Next::Line; // a blank line before a readable one
            }
            self.readable_until = end.next_start;
            return if std::mem::take(&mut self.first_record_pending) {
                Next::FirstRecord
            } else {
                Next::Line
            };
        }
        // Only blank lines are left: read them as such.
        self.readable_until = bytes.len();
        Next::Line
    }
}

/// Whether the trailing text `rest` is a DOS end-of-file mark: its first character other than whitespace and
/// line breaks is Ctrl-Z (U+001A), which DOS-era programs wrote at the end of text files and which ends the file
/// for any program that reads it the DOS way; what comes after it is never read.
///
/// A deliberate departure from the 2019 draft, where the line string `^Z` does not match `Line` (R-LINES-01)
/// and anything after the trailer is a malformed structure (R-TAGGED-STRUCTS-05): many DOS-era files end in
/// `^Z`, their data is complete, and an error would fail every one of them. So this is the warning
/// `junk-after-trailer`, in strict mode too. Any other text after the trailer (NUL octets, binary, an HTML page)
/// is `content-after-trailer`, a malformed structure. The octets are kept either way.
pub(crate) fn is_dos_end_of_file(rest: &str) -> bool {
    rest.trim_start_matches([' ', '\t', '\r', '\n'])
        .starts_with('\u{1A}')
}
