//! Grouping lines into records and structures (2019 § Parsing lines into structures, first pass).
//!
//! The parser walks the text line by line with an explicit stack of open structures, so nesting depth costs
//! heap, never call stack. A line of level `L` closes every open structure of level `L` or deeper and opens a
//! new one under whatever is left. `CONT`/`CONC` lines directly after a structure's first line (before any
//! substructure) join that structure as continuation lines. Malformed lines become `ERROR` nodes.
//!
//! A structure's first line has no node of its own: its tokens are the first children of the `RECORD` or
//! `STRUCTURE` node, up to and including its line break. Continuation lines are `LINE` nodes.

use crate::after_trailer::{self, AfterTrailer, Next};
use crate::codes;
use crate::diagnostic::{Class, Diagnostic};
use crate::green::{CachedFacts, GreenElement, GreenFactory, LineCache, LineKey, Template};
use crate::kind::SyntaxKind;
use crate::lexer::{lex_line, push_split_raw, LineFacts, LineShape, LineToken};
use crate::line_checks;
use crate::line_cursor::{line_end, LineEnd};
use crate::work::{on_workers, workers_for};
use gedgraft_encoding::{raw, Encoding};
use rowan::{GreenNode, NodeOrToken};
use text_size::{TextRange, TextSize};

/// The parser's output before locations are attached.
pub(crate) struct Parsed {
    pub green: GreenNode,
    pub diagnostics: Vec<Diagnostic>,
    pub max_depth: usize,
}

/// Texts shorter than this many bytes per thread are parsed on one thread.
const MIN_CHUNK: usize = 4 << 20;

/// How many chunks `len` bytes are parsed in with `threads` threads (0: one per core).
pub(crate) fn chunks_for(len: usize, threads: usize) -> usize {
    match threads {
        0 => workers_for(len, MIN_CHUNK),
        n => n.min(len / MIN_CHUNK).max(1),
    }
}

/// Parses decoded text; `encoding` names the encoding in messages about raw octets.
///
/// Large texts are cut at level-0 lines into chunks (see [`work_starts`]) that up to `threads` threads (0: as
/// many as the machine has cores) parse in parallel. A level-0 line closes every open structure, so each chunk
/// starts from the same state a sequential parse would be in there, and the chunks' records are simply
/// concatenated: the tree is the same.
pub(crate) fn parse_text(text: &str, encoding: Encoding, threads: usize) -> Parsed {
    let workers = chunks_for(text.len(), threads);
    parse_chunks_on(
        text,
        encoding,
        &work_starts(text.as_bytes(), workers),
        workers,
    )
}

/// Parses `text` in chunks starting at `starts` (the first is 0; each other one starts a level-0 line), one
/// thread per chunk.
#[cfg(test)]
pub(crate) fn parse_chunks(text: &str, encoding: Encoding, starts: &[usize]) -> Parsed {
    parse_chunks_on(text, encoding, starts, starts.len())
}

/// Parses `text` in chunks starting at `starts` on up to `workers` threads.
pub(crate) fn parse_chunks_on(
    text: &str,
    encoding: Encoding,
    starts: &[usize],
    workers: usize,
) -> Parsed {
    let ranges = chunk_ranges(starts, text.len());
    let outputs = on_workers(ranges.clone(), workers, |_, (start, end)| {
        parse_chunk(text, encoding, start, end)
    });
    // A chunk whose job panicked cannot be recovered: it is parsed again on this thread.
    let chunks = outputs
        .into_iter()
        .zip(&ranges)
        .map(|(output, &(start, end))| {
            output.unwrap_or_else(|_| parse_chunk(text, encoding, start, end))
        })
        .collect();
    merge_chunks(text.len(), chunks)
}

/// Parses valid-looking UTF-8 octets with no byte-order mark in pieces cut at level-0 lines (see
/// [`work_starts`]) on up to `workers` threads, each thread validating the pieces it takes, so that no thread
/// has to validate the whole file first. Gives the same tree and
/// diagnostics as decoding the whole file and [`parse_text`], or `None` when that path must be taken instead:
/// a piece is not valid UTF-8 or holds characters of the raw range, or a piece other than the last holds the
/// trailer (the text after a trailer runs to the end of the file, across pieces).
pub(crate) fn parse_utf8_pieces(bytes: &[u8], workers: usize) -> Option<Parsed> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let ranges = chunk_ranges(&work_starts(bytes, workers), bytes.len());
    let last = ranges.len() - 1;
    let unusable = AtomicBool::new(false);
    let encoding = Encoding::Utf8;
    let outputs = on_workers(ranges, workers, |k, (start, end)| -> Option<ChunkOutput> {
        let text = std::str::from_utf8(&bytes[start..end])
            .ok()
            .filter(|t| !raw::contains_raw(t));
        let Some(text) = text else {
            unusable.store(true, Ordering::Relaxed);
            return None;
        };
        // The pieces are validated at about the same pace: a thread whose piece is fine usually learns here
        // that another one is not, and spares a parse whose result would be thrown away (a hint only: the
        // result is thrown away anyway).
        if unusable.load(Ordering::Relaxed) {
            return None;
        }
        let mut parser = Parser::new(text, encoding, text.len());
        parser.base = start;
        let output = run_parser(parser, 0, text.len(), start > 0);
        (k == last || !output.trailer_seen).then_some(output)
    });
    // A piece whose job panicked is given up like an unusable one.
    let chunks: Option<Vec<ChunkOutput>> = outputs.into_iter().map(|o| o.ok().flatten()).collect();
    Some(merge_chunks(bytes.len(), chunks?))
}

/// The (start, end) of each chunk of a text of `len` bytes whose chunks start at `starts`.
fn chunk_ranges(starts: &[usize], len: usize) -> Vec<(usize, usize)> {
    let ends = starts.iter().skip(1).copied().chain([len]);
    starts.iter().copied().zip(ends).collect()
}

/// Where chunks start: 0, then the first level-0 line (`0` right after a line break, then a space or tab) after
/// each `k/n`-th of the text.
#[cfg(test)]
pub(crate) fn chunk_starts(bytes: &[u8], n: usize) -> Vec<usize> {
    let targets: Vec<usize> = (1..n).map(|k| bytes.len() / n * k).collect();
    starts_near(bytes, &targets)
}

/// Where the chunks of a parse on `workers` threads start: one large chunk per worker for most of the text,
/// then twice as many small ones that whichever worker is done first takes, so that workers whose text
/// parses more slowly do not keep the others waiting.
pub(crate) fn work_starts(bytes: &[u8], workers: usize) -> Vec<usize> {
    if workers < 2 {
        return vec![0];
    }
    let len = bytes.len();
    let tail_chunks = 2 * workers;
    let head = len / 5 * 4;
    let targets: Vec<usize> = (1..workers)
        .map(|k| head / workers * k)
        .chain((0..tail_chunks).map(|k| head + (len - head) / tail_chunks * k))
        .collect();
    starts_near(bytes, &targets)
}

/// 0, then for each of the ascending `targets` the first level-0 line at or after it (no duplicates).
pub(crate) fn starts_near(bytes: &[u8], targets: &[usize]) -> Vec<usize> {
    let mut starts = vec![0];
    for &target in targets {
        let mut pos = target.max(starts[starts.len() - 1]);
        while let LineEnd {
            next_start: start,
            form: Some(_),
            ..
        } = line_end(bytes, pos)
        {
            let rest = &bytes[start..];
            if rest.starts_with(b"0 ") || rest.starts_with(b"0\t") {
                starts.push(start);
                break;
            }
            pos = start;
        }
    }
    starts.dedup();
    starts
}

/// What one chunk's parser leaves behind.
pub(crate) struct ChunkOutput {
    pub(crate) children: Vec<GreenElement>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) max_depth: usize,
    pub(crate) seen_line: bool,
    pub(crate) trailer_seen: bool,
    /// Whether the chunk ran to the end of the text (trailing text after its trailer).
    consumed_rest: bool,
    /// Whether the first diagnostic is on the chunk's first line, and the last on its last line: a run of
    /// one code may go on across the cut ([`merge_chunks`] joins it as a one-pass parse would have).
    pub(crate) first_diag_on_first_line: bool,
    pub(crate) last_diag_on_last_line: bool,
}

/// Parses `text`, one piece of a file cut at level-0 lines, on this thread; `later` says whether the piece is
/// not the file's start. Diagnostics are placed in `text` (the caller adds the piece's offset).
pub(crate) fn parse_piece(text: &str, encoding: Encoding, later: bool) -> ChunkOutput {
    run_parser(
        Parser::new(text, encoding, text.len()),
        0,
        text.len(),
        later,
    )
}

fn parse_chunk(text: &str, encoding: Encoding, start: usize, end: usize) -> ChunkOutput {
    run_parser(
        Parser::new(text, encoding, end - start),
        start,
        end,
        start > 0,
    )
}

/// Parses `text` in one pass without sharing leaf nodes: the reference the line cache is tested against.
#[cfg(test)]
pub(crate) fn parse_unshared(text: &str, encoding: Encoding) -> Parsed {
    let mut parser = Parser::new(text, encoding, text.len());
    parser.line_cache = LineCache::disabled();
    merge_chunks(text.len(), vec![run_parser(parser, 0, text.len(), false)])
}

/// Runs `parser` over its text from `start` to `end`; `later` says whether the text is not the file's start.
fn run_parser(mut parser: Parser<'_>, start: usize, end: usize, later: bool) -> ChunkOutput {
    parser.seen_first_line = later;
    parser.run(start, end);
    parser.close_from(0);
    ChunkOutput {
        children: parser.stack.pop().map(|f| f.children).unwrap_or_default(),
        diagnostics: parser.diagnostics,
        max_depth: parser.max_depth,
        seen_line: parser.seen_first_line,
        trailer_seen: parser.trailer_seen,
        consumed_rest: parser.consumed_rest,
        first_diag_on_first_line: parser.first_diag_line == Some(parser.base + start),
        last_diag_on_last_line: parser.diag_line.is_some() && parser.diag_line == parser.line_start,
    }
}

/// Joins the chunks' records into one document and adds the whole-file diagnostics.
fn merge_chunks(text_len: usize, chunks: Vec<ChunkOutput>) -> Parsed {
    let mut children = Vec::new();
    let mut diagnostics = Vec::new();
    let (mut max_depth, mut seen_line, mut trailer_seen) = (1, false, false);
    let mut run_goes_on = false;
    for chunk in chunks {
        children.extend(chunk.children);
        let mut found = chunk.diagnostics.into_iter();
        if run_goes_on && chunk.first_diag_on_first_line {
            if let Some(first) = found.next() {
                push_or_count(&mut diagnostics, first);
            }
        }
        diagnostics.extend(found);
        run_goes_on = chunk.last_diag_on_last_line;
        max_depth = max_depth.max(chunk.max_depth);
        seen_line |= chunk.seen_line;
        trailer_seen |= chunk.trailer_seen;
        if chunk.consumed_rest {
            break; // later chunks lie after the trailer and are already trailing text
        }
    }
    end_of_file_diagnostics(seen_line, trailer_seen, text_len, &mut diagnostics);
    line_checks::merge_lf_cr(&mut diagnostics);
    let green = GreenNode::new(SyntaxKind::Document.into(), children);
    Parsed {
        green,
        diagnostics,
        max_depth,
    }
}

/// The diagnostics only the end of the file can give (no line at all, no trailer), for a text of `end` bytes
/// (the last piece's, when the file is parsed in pieces: these come after every other diagnostic of the parser).
pub(crate) fn end_of_file_diagnostics(
    seen_line: bool,
    trailer_seen: bool,
    end: usize,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut extra = |code, message: &str, start| {
        diagnostics.push(Diagnostic::new(
            code,
            Class::MalformedStructure,
            message,
            range(start, end),
        ));
    };
    if !seen_line {
        extra(
            codes::FIRST_LINE_NOT_HEAD,
            "the file has no lines; it must start with `0 HEAD`",
            0,
        );
    }
    if !trailer_seen {
        extra(
            codes::MISSING_TRAILER,
            "the file does not end with a `0 TRLR` line",
            end,
        );
    }
}

/// Pushes `d`, or counts it in the last diagnostic when that one is of the same code and class (the caller
/// knows the two are on the same or neighbouring lines).
fn push_or_count(diagnostics: &mut Vec<Diagnostic>, d: Diagnostic) {
    match diagnostics.last_mut() {
        Some(last) if last.code == d.code && last.class == d.class => last.absorb(&d),
        _ => diagnostics.push(d),
    }
}

/// A text range from byte offsets (rowan trees are limited to 4 GiB of text).
pub(crate) fn range(start: usize, end: usize) -> TextRange {
    let size = |n: usize| TextSize::from(u32::try_from(n).unwrap_or(u32::MAX));
    TextRange::new(size(start), size(end.max(start)))
}

struct Frame {
    kind: SyntaxKind,
    level: usize,
    children: Vec<GreenElement>,
    has_substructure: bool,
    /// Whether the structure's first line has a pointer payload.
    pointer_payload: bool,
    /// A structure from the [`LineCache`] standing for the first line's tokens until anything else joins the
    /// structure (then its tokens are copied into `children`); if it is a leaf and nothing joins, it is the node.
    shared: Option<Template>,
    /// The first line's key, if the structure may go into the cache.
    shareable: Option<LineKey>,
    /// Whether the first line was found in the cache.
    from_cache: bool,
    /// How many children the first line has: a structure that still has that many when it closes is a leaf.
    first_len: usize,
}

impl Frame {
    /// The frame of a structure whose first line has `level` and the tokens `children`.
    fn for_line(level: usize, children: Vec<GreenElement>) -> Frame {
        let kind = if level == 0 {
            SyntaxKind::Record
        } else {
            SyntaxKind::Structure
        };
        Frame::new(kind, level, children)
    }

    fn new(kind: SyntaxKind, level: usize, children: Vec<GreenElement>) -> Frame {
        Frame {
            kind,
            level,
            first_len: children.len(),
            children,
            has_substructure: false,
            pointer_payload: false,
            shared: None,
            shareable: None,
            from_cache: false,
        }
    }
}

struct Parser<'t> {
    /// The text being parsed: the whole file's, or one piece of it.
    text: &'t str,
    /// Where `text` starts in the whole file's text (diagnostics are placed in the whole text).
    base: usize,
    encoding: Encoding,
    factory: GreenFactory,
    line_cache: LineCache,
    stack: Vec<Frame>,
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
    max_depth: usize,
    /// Whether the line being parsed had a finding of [`line_checks`] (it is then never shared).
    line_flagged: bool,
    /// The index of this parser's `lf-cr-line-breaks` diagnostic, once there is one.
    lf_cr: Option<usize>,
}

impl<'t> Parser<'t> {
    /// A parser for `len` bytes of `text`.
    fn new(text: &'t str, encoding: Encoding, len: usize) -> Self {
        let document = Frame::new(SyntaxKind::Document, 0, Vec::new());
        Parser {
            text,
            base: 0,
            encoding,
            factory: GreenFactory::for_text_len(len),
            line_cache: LineCache::for_text_len(len),
            stack: vec![document],
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
            max_depth: 1,
            line_flagged: false,
            lf_cr: None,
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
            Some(before)
                if neighbour && gap_last && before.code == d.code && before.class == d.class =>
            {
                before.absorb(&d)
            }
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
                    Next::FirstRecord => self.diag(
                        codes::RECORD_AFTER_TRAILER,
                        Class::MalformedStructure,
                        "a record after the trailer line: `0 TRLR` must end the file (read as a record of a \
                         malformed file)",
                        pos,
                        line_end,
                    ),
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

    fn top(&mut self) -> &mut Frame {
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    /// The innermost open structure's children, ready for more (a shared leaf's tokens are copied in first).
    fn top_children(&mut self) -> &mut Vec<GreenElement> {
        let last = self.stack.len() - 1;
        let frame = &mut self.stack[last];
        if let Some(template) = frame.shared.take() {
            frame.children = self.factory.buffer();
            frame.children.extend(template.line_tokens());
        }
        &mut frame.children
    }

    /// Closes every open structure whose level is `level` or deeper.
    fn close_from(&mut self, level: usize) {
        while self.stack.len() > 1 && self.stack[self.stack.len() - 1].level >= level {
            self.close_top();
        }
    }

    fn close_top(&mut self) {
        if let Some(mut frame) = self.stack.pop() {
            let node = match frame.shared.take() {
                Some(template) if template.is_leaf() => template.node,
                shared => {
                    // A structure of its own; a template that is not a leaf lends its tokens to a leaf here.
                    if let Some(template) = shared {
                        frame.children = self.factory.buffer();
                        frame.children.extend(template.line_tokens());
                    }
                    let leaf = frame.children.len() == frame.first_len;
                    let node = self.factory.node(frame.kind, frame.children);
                    // A line that came from the cache is only put back as a leaf, so a line that is sometimes a
                    // leaf and sometimes not keeps its shareable leaf in the cache.
                    if let Some(key) = frame.shareable.filter(|_| leaf || !frame.from_cache) {
                        let facts = CachedFacts {
                            level: frame.level,
                            pointer_payload: frame.pointer_payload,
                        };
                        self.line_cache.insert(key, facts, &node, frame.first_len);
                    }
                    node
                }
            };
            self.top_children().push(NodeOrToken::Node(node));
        }
    }

    /// Green tokens for the lexed line plus its line break.
    fn line_children(
        &mut self,
        start: usize,
        line_end: usize,
        break_end: usize,
    ) -> Vec<GreenElement> {
        let mut children = self.factory.buffer();
        let mut from = start;
        for i in 0..self.tokens.len() {
            let (kind, end) = self.tokens[i];
            let token = self.factory.token(kind, &self.text[from..start + end]);
            children.push(NodeOrToken::Token(token));
            from = start + end;
        }
        debug_assert_eq!(from, line_end);
        if break_end > line_end {
            let token = self
                .factory
                .token(SyntaxKind::LineBreak, &self.text[line_end..break_end]);
            children.push(NodeOrToken::Token(token));
        }
        children
    }

    fn line(&mut self, start: usize, line_end: usize, break_end: usize, key: Option<LineKey>) {
        if line_checks::is_lf_cr_gap(self.text, start, line_end, break_end) {
            // Not a line of its own for runs of diagnostics: the lines around it are neighbours.
            self.lf_cr_gap(start, break_end);
            return;
        }
        self.prev_line_start = self.line_start;
        self.line_start = Some(self.base + start);
        self.line_flagged = false;
        let line_text = &self.text[start..break_end];
        if let Some(finding) = line_checks::length_finding(line_text, self.encoding) {
            self.finding(start, finding);
        }
        if let Some((facts, template)) = key
            .as_ref()
            .and_then(|key| self.line_cache.get(self.text, key))
        {
            self.cached_line(start, line_end, facts, template, key);
            return;
        }
        let line = &self.text[start..line_end];
        let shape = lex_line(line, &mut self.tokens);
        if shape == LineShape::Blank {
            self.diag(
                codes::BLANK_LINE,
                Class::Warning,
                "blank line (ignored)",
                start,
                break_end,
            );
            let mut children = self.line_children(start, line_end, break_end);
            self.top_children().append(&mut children);
            self.factory.recycle(children);
            return;
        }
        if self
            .tokens
            .first()
            .is_some_and(|t| t.0 == SyntaxKind::Whitespace)
        {
            let end = start + self.tokens[0].1;
            self.diag(
                codes::LEADING_WHITESPACE,
                Class::Warning,
                "whitespace before the level (ignored)",
                start,
                end,
            );
        }
        let tokens = std::mem::take(&mut self.tokens);
        let encoding = self.encoding;
        line_checks::raw_findings(line, &tokens, encoding, &mut |f| self.finding(start, f));
        self.tokens = tokens;
        line_checks::character_findings(line, &mut |f| self.finding(start, f));
        if let LineShape::Line(facts) = &shape {
            let at = line_checks::bare_at_finding(&self.tokens, &facts.unterminated_escapes);
            at.into_iter().for_each(|f| self.finding(start, f));
        }
        let first = !self.seen_first_line;
        self.seen_first_line = true;
        match shape {
            LineShape::Blank => {}
            LineShape::Line(facts) => {
                if first {
                    self.check_header_line(line, &facts, start, line_end);
                }
                self.well_formed_line(start, line_end, break_end, &facts, first, key);
            }
            LineShape::Malformed {
                level,
                code,
                message,
                at,
            } => {
                if first {
                    self.first_line_not_head(start, line_end);
                }
                self.diag(
                    code,
                    Class::MalformedLine,
                    message,
                    start + at,
                    line_end.max(start + at + 1).min(line_end),
                );
                if let Some(level) = level {
                    self.check_level(level, start, line_end);
                    self.close_from(level);
                }
                let children = self.line_children(start, line_end, break_end);
                let node = self.factory.node(SyntaxKind::Error, children);
                self.top_children().push(NodeOrToken::Node(node));
            }
        }
    }

    /// Reports a finding of [`line_checks`] on the line starting at `start`.
    fn finding(&mut self, start: usize, (code, class, message, at, end): line_checks::Finding) {
        self.line_flagged = true;
        self.diag(code, class, message, start + at, start + end);
    }

    /// The empty line between the LF and CR of an LF CR pair: kept as a blank line of the tree, and counted in
    /// this parser's one `lf-cr-line-breaks` diagnostic.
    fn lf_cr_gap(&mut self, start: usize, break_end: usize) {
        let at = range(self.base + start, self.base + break_end);
        match self.lf_cr.and_then(|i| self.diagnostics.get_mut(i)) {
            Some(d) => d.count_one_more(at.start()),
            None => {
                self.lf_cr = Some(self.diagnostics.len());
                let message = line_checks::LF_CR_MESSAGE;
                let d = Diagnostic::new(codes::LF_CR_LINE_BREAKS, Class::Warning, message, at);
                self.diagnostics.push(d);
            }
        }
        self.tokens.clear();
        let mut children = self.line_children(start, start, break_end);
        self.top_children().append(&mut children);
        self.factory.recycle(children);
    }

    /// R-SPECIFIED-ENC-06: after normalisation the first line must be exactly `0 HEAD`.
    fn check_header_line(&mut self, line: &str, facts: &LineFacts, start: usize, line_end: usize) {
        let tag = &line[facts.tag_start..facts.tag_end];
        let payload_blank = facts
            .payload_start
            .is_none_or(|p| line[p..].trim_matches([' ', '\t']).is_empty());
        if facts.level != 0 || facts.has_xref || tag != "HEAD" || !payload_blank {
            self.first_line_not_head(start, line_end);
        }
    }

    /// R-SPECIFIED-ENC-06: the first line is not `0 HEAD`.
    fn first_line_not_head(&mut self, start: usize, line_end: usize) {
        let message = "the first line must be `0 HEAD`";
        self.diag(
            codes::FIRST_LINE_NOT_HEAD,
            Class::MalformedStructure,
            message,
            start,
            line_end,
        );
    }

    /// R-LINES-04: a line may be at most one level deeper than the line before it.
    fn check_level(&mut self, level: usize, start: usize, line_end: usize) {
        if let Some(prev) = self.prev_level {
            if level > prev.saturating_add(1) {
                let message = format!(
                    "level {level} follows level {prev}; a line may go at most one level deeper"
                );
                self.diag(
                    codes::LEVEL_JUMP,
                    Class::MalformedLine,
                    message,
                    start,
                    line_end,
                );
            }
        }
        if let Some(cont) = self.continuation_level {
            if level > cont {
                self.diag(
                    codes::CONTINUATION_WITH_SUBSTRUCTURES,
                    Class::MalformedStructure,
                    "a line nested below a CONT/CONC continuation line",
                    start,
                    line_end,
                );
            }
        }
        self.prev_level = Some(level);
        self.continuation_level = None;
    }

    fn well_formed_line(
        &mut self,
        start: usize,
        line_end: usize,
        break_end: usize,
        facts: &LineFacts,
        first: bool,
        key: Option<LineKey>,
    ) {
        let level = facts.level;
        let line = &self.text[start..line_end];
        let ws = line.len() - line.trim_start_matches([' ', '\t']).len();
        let tag = &line[facts.tag_start..facts.tag_end];
        self.check_level(level, start + ws, line_end);
        for &at in &facts.bad_escapes {
            self.diag(
                codes::BAD_ESCAPE,
                Class::NonConformant,
                "an escape sequence's type, the character after `@#`, must be an upper-case letter A-Z",
                start + at,
                start + at + 3,
            );
        }
        if tag == "HEAD" && !first {
            self.diag(
                codes::MISPLACED_HEADER,
                Class::MalformedStructure,
                "HEAD is only allowed as the file's first line",
                start + ws,
                line_end,
            );
        }
        for &at in &facts.unterminated_escapes {
            self.diag(
                codes::UNTERMINATED_ESCAPE,
                Class::NonConformant,
                "`@#` starts an escape but no `@` closes it on this line",
                start + at,
                start + at + 2,
            );
        }
        self.close_from(level);
        let children = self.line_children(start, line_end, break_end);
        if tag == "CONT" || tag == "CONC" {
            if level == 0 {
                let message = format!("a {tag} line cannot be at level 0");
                self.diag(
                    codes::CONTINUATION_AT_LEVEL_0,
                    Class::MalformedStructure,
                    message,
                    start + ws,
                    line_end,
                );
            } else if self.continues_top(level) {
                if facts.has_xref {
                    let message = format!("a {tag} line cannot have a cross-reference identifier");
                    self.diag(
                        codes::CONTINUATION_WITH_XREF,
                        Class::MalformedStructure,
                        message,
                        start + ws,
                        line_end,
                    );
                }
                if self.top().pointer_payload {
                    let message = format!("a {tag} line cannot continue a pointer payload");
                    let class = Class::MalformedStructure;
                    self.diag(
                        codes::CONTINUATION_OF_POINTER,
                        class,
                        message,
                        start + ws,
                        line_end,
                    );
                }
                if facts.pointer_payload {
                    let message = format!("a {tag} line cannot have a pointer payload");
                    let class = Class::NonConformant;
                    self.diag(
                        codes::POINTER_IN_CONTINUATION,
                        class,
                        message,
                        start + ws,
                        line_end,
                    );
                }
                let line_node = NodeOrToken::Node(self.factory.node(SyntaxKind::Line, children));
                self.top_children().push(line_node);
                self.continuation_level = Some(level);
                return;
            } else {
                let message =
                    format!("this {tag} line does not directly follow the line it would continue");
                self.diag(
                    codes::MISPLACED_CONTINUATION,
                    Class::MalformedStructure,
                    message,
                    start + ws,
                    line_end,
                );
            }
        }
        if tag == "TRLR" {
            if level > 0 {
                self.diag(
                    codes::MISPLACED_TRAILER,
                    Class::MalformedStructure,
                    "TRLR is only allowed at level 0",
                    start + ws,
                    line_end,
                );
            } else {
                let payload = facts.payload_start.map_or("", |p| &line[p..]);
                if facts.has_xref || !payload.is_empty() {
                    self.diag(
                        codes::NON_EMPTY_TRAILER,
                        Class::MalformedStructure,
                        "the trailer line must be exactly `0 TRLR`",
                        start + ws,
                        line_end,
                    );
                }
                self.trailer_seen = true;
                self.trailers += 1;
            }
        }
        // A line whose node and diagnostics follow from its text alone may be shared as a leaf: no leading
        // whitespace, no raw octets, no escape problems, and no tag the parser treats specially.
        let shareable = ws == 0
            && !first
            && facts.bad_escapes.is_empty()
            && facts.unterminated_escapes.is_empty()
            && !matches!(tag, "TRLR" | "HEAD" | "CONT" | "CONC")
            && !self.line_flagged
            && !self.tokens.iter().any(|t| t.0 == SyntaxKind::Raw);
        // The first line's tokens sit directly in the structure node (no LINE node: one allocation less per line).
        let mut frame = Frame::for_line(level, children);
        frame.pointer_payload = facts.pointer_payload;
        frame.shareable = key.filter(|_| shareable);
        self.open(frame);
    }

    /// Opens `frame` under the innermost open structure.
    fn open(&mut self, frame: Frame) {
        let top = self.top();
        if top.kind != SyntaxKind::Document {
            top.has_substructure = true;
        }
        self.stack.push(frame);
        self.max_depth = self.max_depth.max(self.stack.len());
    }

    /// A line whose text is that of a cached structure's first line: the same checks a well-formed line of that
    /// text gets, then a structure that holds the cached one until its own children are known (see
    /// [`Parser::well_formed_line`] for which lines are cached).
    fn cached_line(
        &mut self,
        start: usize,
        line_end: usize,
        facts: CachedFacts,
        template: Template,
        key: Option<LineKey>,
    ) {
        let level = facts.level;
        self.check_level(level, start, line_end);
        self.close_from(level);
        let mut frame = Frame::for_line(level, Vec::new());
        frame.pointer_payload = facts.pointer_payload;
        frame.first_len = template.first_len;
        frame.shared = Some(template);
        frame.from_cache = true;
        // A leaf from a template that is not one is worth caching in its place.
        frame.shareable = key;
        self.open(frame);
    }

    /// Whether a continuation line of `level` continues the innermost open structure.
    fn continues_top(&mut self, level: usize) -> bool {
        let top = self.top();
        top.kind != SyntaxKind::Document
            && top.level.saturating_add(1) == level
            && !top.has_substructure
    }

    /// Everything after the trailer line, kept as trailing text.
    fn trailing_text(&mut self, pos: usize) {
        self.close_from(0);
        let rest = &self.text[pos..];
        if after_trailer::is_dos_end_of_file(rest) {
            self.diag(
                codes::JUNK_AFTER_TRAILER,
                Class::Warning,
                "a DOS end-of-file mark (Ctrl-Z) after the trailer; it and what follows it are ignored",
                pos,
                self.text.len(),
            );
        } else {
            self.diag(
                codes::CONTENT_AFTER_TRAILER,
                Class::MalformedStructure,
                "content after the trailer line",
                pos,
                self.text.len(),
            );
        }
        self.consumed_rest = true;
        self.tokens.clear();
        push_split_raw(
            rest,
            0,
            rest.len(),
            SyntaxKind::TrailingText,
            &mut self.tokens,
        );
        let mut from = pos;
        for i in 0..self.tokens.len() {
            let (kind, end) = self.tokens[i];
            let token = self.factory.token(kind, &self.text[from..pos + end]);
            self.top_children().push(NodeOrToken::Token(token));
            from = pos + end;
        }
    }
}
