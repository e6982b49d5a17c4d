//! Grouping lines into records and structures (2019 § Parsing lines into structures, first pass).
//!
//! The parser walks the text line by line with an explicit stack of open structures, so nesting depth costs
//! heap, never call stack. A line of level `L` closes every open structure of level `L` or deeper and opens a
//! new one under whatever is left. `CONT`/`CONC` lines directly after a structure's first line (before any
//! substructure) join that structure as continuation lines. Malformed lines become `ERROR` nodes.
//!
//! A structure's first line has no node of its own: its tokens are the first children of the `RECORD` or
//! `STRUCTURE` node, up to and including its line break. Continuation lines are `LINE` nodes.

pub(crate) mod chunked;
mod chunks;
mod frames;
mod lines;

#[cfg(test)]
pub(crate) use chunks::{
    chunk_starts, parse_chunks, parse_chunks_on, parse_piece_on, parse_unshared, piece_summary,
    work_starts,
};
pub(crate) use chunks::{
    chunks_for, end_of_file_diagnostics, next_start_utf16, parse_piece, parse_text,
    parse_utf8_pieces, starts_near,
};

use crate::after_trailer::{AfterTrailer, Next};
use crate::diagnostic::{Class, Diagnostic};
use crate::green::{GreenElement, GreenFactory, LineCache, LineKey};
use crate::kind::SyntaxKind;
use crate::lexer::LineToken;
use crate::line_breaks::Tally;
use crate::line_cursor::line_end;
use chunked::Chunked;
use frames::{Frame, CHILD_BLOCK, FRAME_BLOCK};
use gedgraft_encoding::Encoding;
use rowan::{GreenNode, NodeOrToken};
use text_size::{TextRange, TextSize};

/// The parser's output before locations are attached.
pub(crate) struct Parsed {
    pub green: GreenNode,
    pub diagnostics: Vec<Diagnostic>,
    pub max_depth: usize,
}

/// Pushes `d`, or counts it in the last diagnostic when that one is like it ([`Diagnostic::is_like`]; the caller
/// knows the two are on the same or neighbouring lines).
fn push_or_count(diagnostics: &mut Vec<Diagnostic>, d: Diagnostic) {
    match diagnostics.last_mut() {
        Some(last) if last.is_like(&d) => last.absorb(&d),
        _ => diagnostics.push(d),
    }
}

/// A text range from byte offsets (rowan trees are limited to 4 GiB of text).
pub(crate) fn range(start: usize, end: usize) -> TextRange {
    let size = |n: usize| TextSize::from(u32::try_from(n).unwrap_or(u32::MAX));
    TextRange::new(size(start), size(end.max(start)))
}

struct Parser<'t> {
    /// The text being parsed: the whole file's, or one piece of it.
    text: &'t str,
    /// Where `text` starts in the whole file's text (diagnostics are placed in the whole text).
    base: usize,
    encoding: Encoding,
    factory: GreenFactory,
    line_cache: LineCache,
    /// The document's frame, under every open structure.
    document: Frame,
    /// The open structures, innermost last.
    stack: Chunked<Frame, FRAME_BLOCK>,
    /// The children of the document and every open structure, each one's after its parent's ([`frames`]).
    children: Chunked<GreenElement, CHILD_BLOCK>,
    diagnostics: Vec<Diagnostic>,
    tokens: Vec<LineToken>,
    prev_level: Option<usize>,
    continuation_level: Option<usize>,
    /// The start of the line being parsed and of the one before it (whole-text offsets).
    line_start: Option<usize>,
    prev_line_start: Option<usize>,
    /// The start of the line of the last diagnostic, and of the first.
    diag_line: Option<usize>,
    first_diag_line: Option<usize>,
    seen_first_line: bool,
    trailer_seen: bool,
    /// How many level-0 trailer lines were read.
    trailers: usize,
    /// After a trailer line: what the lines after it are ([`crate::after_trailer`]).
    after_trailer: Option<AfterTrailer>,
    consumed_rest: bool,
    /// Whether the rest of the text became trailing text.
    trailing: bool,
    /// The line about to be read is the first record after a trailer (where the line ends).
    record_after_trailer: Option<usize>,
    max_depth: usize,
    /// Whether the line being parsed had a finding of [`line_checks`] (it is then never shared).
    line_flagged: bool,
    /// The index of this parser's `lf-cr-line-breaks` diagnostic, once there is one.
    lf_cr: Option<usize>,
    /// The forms of the line breaks of the lines read (`mixed-line-breaks`).
    breaks: Tally,
    /// Whether the payload of the last line read (blank lines aside) ends with whitespace, which a `CONC`
    /// line after it must not split at (`conc-at-whitespace`).
    payload_space: bool,
    /// Whether the payload of the last line read ends with an ANSEL diacritic, which marks the letter after
    /// it: a `CONC` line after it splits the two (`conc-after-diacritic`).
    payload_mark: bool,
}

impl<'t> Parser<'t> {
    /// A parser for `len` bytes of `text`.
    fn new(text: &'t str, encoding: Encoding, len: usize) -> Self {
        let document = Frame::new(SyntaxKind::Document, 0, 0);
        Parser {
            text,
            base: 0,
            encoding,
            factory: GreenFactory::for_text_len(len),
            line_cache: LineCache::for_text_len(len),
            document,
            stack: Chunked::new(),
            children: Chunked::new(),
            diagnostics: Vec::new(),
            tokens: Vec::new(),
            prev_level: None,
            continuation_level: None,
            line_start: None,
            prev_line_start: None,
            diag_line: None,
            first_diag_line: None,
            seen_first_line: false,
            trailer_seen: false,
            trailers: 0,
            after_trailer: None,
            consumed_rest: false,
            trailing: false,
            record_after_trailer: None,
            max_depth: 1,
            line_flagged: false,
            lf_cr: None,
            breaks: Tally::default(),
            payload_space: false,
            payload_mark: false,
        }
    }

    fn diag(
        &mut self,
        code: &'static str,
        class: Class,
        message: impl Into<String>,
        start: usize,
        end: usize,
    ) {
        let d = Diagnostic::new(
            code,
            class,
            message,
            range(self.base + start, self.base + end),
        );
        // One diagnostic per run of one code on neighbouring lines: a run of blank lines costs one.
        let neighbour = self.diag_line.is_some()
            && (self.diag_line == self.line_start || self.diag_line == self.prev_line_start);
        // The `lf-cr-line-breaks` diagnostic this parser made at an LF CR gap in the run does not end it (a
        // parse of a later batch makes its own there; the whole-file parse made it earlier).
        let n = self.diagnostics.len();
        let gap_last = self.lf_cr.is_some_and(|i| i + 1 == n && n >= 2);
        match self.diagnostics.get_mut(n.wrapping_sub(2)) {
            Some(before) if neighbour && gap_last && before.is_like(&d) => before.absorb(&d),
            _ if neighbour => push_or_count(&mut self.diagnostics, d),
            _ => self.diagnostics.push(d),
        }
        self.diag_line = self.line_start;
        if self.first_diag_line.is_none() {
            self.first_diag_line = self.line_start;
        }
    }

    /// Parses the lines from `pos` up to `end` (a line start, or the end of the text).
    fn run(&mut self, mut pos: usize, end: usize) {
        let text = self.text;
        let mut bytes = &text.as_bytes()[..end];
        if pos == 0 && text.starts_with('\u{FEFF}') {
            pos = '\u{FEFF}'.len_utf8();
            let bom = self.factory.token(SyntaxKind::Bom, &text[..pos]);
            self.top_children().push(NodeOrToken::Token(bom));
        }
        let mut line = self.line_at(bytes, pos);
        while pos < bytes.len() {
            let (line_end, break_end, key) = line;
            if let Some(after) = &mut self.after_trailer {
                match after.next(text, pos, &mut self.tokens) {
                    Next::Line => {}
                    // Reported as the line is read, on its own line (a run of them across a cut of a stream
                    // is joined as in the whole file).
                    Next::FirstRecord => self.record_after_trailer = Some(line_end),
                    Next::TrailingText => {
                        self.trailing_text(pos);
                        return;
                    }
                }
            }
            // The next line's cache slot is fetched from memory while this line is parsed.
            line = self.line_at(bytes, break_end);
            if let Some(next) = &line.2 {
                self.line_cache.prefetch(next);
            }
            let trailers = self.trailers;
            self.line(pos, line_end, break_end, key);
            (self.breaks).add(&text[line_end..break_end], self.base + line_end);
            self.note_payload_end(&text[pos..line_end]);
            pos = break_end;
            if self.trailers != trailers {
                // After a trailer, this parser reads on to the end of the text (past its chunk's end): what
                // follows is records or trailing text, decided line by line.
                self.after_trailer = Some(AfterTrailer::new(pos));
                self.consumed_rest = true;
                bytes = text.as_bytes();
                line = self.line_at(bytes, pos);
            }
        }
    }

    /// Where the line starting at `pos` ends, where its line break ends, and its line-cache key (if it has
    /// one); at the end of `bytes`, an empty line.
    fn line_at(&self, bytes: &[u8], pos: usize) -> (usize, usize, Option<LineKey>) {
        let end = line_end(bytes, pos);
        let (line_end, break_end) = (end.content_end, end.next_start);
        let key = (pos < bytes.len())
            .then(|| self.line_cache.key(self.text, pos, break_end))
            .flatten();
        (line_end, break_end, key)
    }
}
