//! Cutting a text into chunks at level-0 lines, parsing them (on several threads for large texts), and joining
//! their records and diagnostics into one document as a one-pass parse would have made it.

use super::chunked::Chunked;
use super::frames::CHILD_BLOCK;
use super::{push_or_count, range, Parsed, Parser};
use crate::after_trailer::AfterTrailer;
use crate::codes;
use crate::diagnostic::{Class, Diagnostic};
use crate::green::GreenElement;
use crate::kind::SyntaxKind;
use crate::line_breaks::Tally;
use crate::line_checks;
use crate::line_cursor::{line_end, LineEnd};
use crate::work::{on_workers, workers_for};
use gedgraft_encoding::internal::utf16_units;
use gedgraft_encoding::{raw, Encoding};
use rowan::GreenNode;

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

/// The first level-0 line start at or after octet `target` of UTF-16 octets (`big_endian` or not; `bytes`
/// starting at a code unit), as [`starts_near`] finds one: each code unit read as the ASCII octet it is, or as
/// a non-ASCII one, so that the rule of a level-0 line start is the one of every other encoding. An octet
/// offset (even), or `None` if there is none. Only a window after `target` is read, doubled until a start is
/// found: the cost follows the batch, not what is buffered after it.
pub(crate) fn next_start_utf16(bytes: &[u8], target: usize, big_endian: bool) -> Option<usize> {
    let units = bytes.len() / 2;
    let from = target.div_ceil(2).min(units);
    // Small at first: a cut that is refused (a malformed level-0 line) asks again just after it.
    let mut window = 64;
    loop {
        let to = from.saturating_add(window).min(units);
        let narrow: Vec<u8> = utf16_units(&bytes[from * 2..to * 2], big_endian)
            .map(|unit| u8::try_from(unit).ok().filter(u8::is_ascii).unwrap_or(0xFF))
            .collect();
        // A start found before the window's end is one the whole narrowed input has (the line it ends is
        // read whole); one at the very end might be cut short (`0` without its space yet).
        if let Some(&s) = starts_near(&narrow, &[0]).get(1) {
            if s + 2 <= narrow.len() || to == units {
                return Some((from + s) * 2);
            }
        }
        if to == units {
            return None;
        }
        window = window.saturating_mul(2);
    }
}

/// What one chunk's parser leaves behind.
#[derive(Default)]
pub(crate) struct ChunkOutput {
    pub(crate) children: Chunked<GreenElement, CHILD_BLOCK>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) max_depth: usize,
    pub(crate) seen_line: bool,
    pub(crate) trailer_seen: bool,
    /// Whether the chunk ran to the end of the text (trailing text after its trailer).
    consumed_rest: bool,
    /// After a trailer, at the end of the text: whether a record is still to follow the last trailer
    /// (`record-after-trailer` on it); `None` if no trailer was read, or if the rest became trailing text.
    pub(crate) after_trailer: Option<bool>,
    /// Whether the text ends in trailing text (after a trailer, from a line that is not one).
    pub(crate) trailing_text: bool,
    /// Whether the first diagnostic is on the chunk's first line, and the last on its last line: a run of
    /// one code may go on across the cut ([`merge_chunks`] joins it as a one-pass parse would have).
    pub(crate) first_diag_on_first_line: bool,
    pub(crate) last_diag_on_last_line: bool,
    /// The forms of the chunk's line breaks, at offsets in the text the parser was given (plus its base).
    pub(crate) breaks: Tally,
}

/// Pieces of a stream shorter than this many bytes per thread are parsed on one thread.
const MIN_PIECE_CHUNK: usize = 96 << 10;

/// Parses `text`, one piece of a file cut at level-0 lines (a batch of a stream); `later` says whether the
/// piece is not the file's start. A piece large enough is cut again at level-0 lines into one chunk per
/// core, parsed on the machine's cores, and the chunks joined ([`join_chunks`], as for a whole file): the same children
/// and diagnostics as one parser's. Diagnostics are placed in `text` (the caller adds the piece's offset).
///
/// `after_trailer`: the piece follows a trailer ([`ChunkOutput::after_trailer`] of the piece before it), and is
/// read as the whole-file parser reads what follows one ([`crate::after_trailer`]), on one thread. Its lines
/// up to a cut are decided as in the whole file: a piece starts at a well-formed level-0 line, which is
/// readable after a trailer, so blank lines before a cut read as lines either way. Only trailing text runs
/// past a cut (to the end of the file): the caller parses the piece again to the end when
/// [`ChunkOutput::trailing_text`] says so.
pub(crate) fn parse_piece(
    text: &str,
    encoding: Encoding,
    later: bool,
    after_trailer: Option<bool>,
) -> ChunkOutput {
    if let Some(first_record_pending) = after_trailer {
        let mut parser = Parser::new(text, encoding, text.len());
        parser.after_trailer = Some(AfterTrailer::carried(first_record_pending));
        parser.trailer_seen = true;
        return run_parser(parser, 0, text.len(), later);
    }
    parse_piece_on(
        text,
        encoding,
        later,
        workers_for(text.len(), MIN_PIECE_CHUNK),
    )
}

/// [`parse_piece`] in `workers` chunks (fewer if the piece has fewer level-0 lines). The start of the file is
/// parsed on one thread: whether a chunk holds the file's first line (which must be `0 HEAD`) depends on what the
/// chunks before it hold (a byte-order mark and blank lines are no line); a later piece's chunks all come after
/// the first line.
pub(crate) fn parse_piece_on(
    text: &str,
    encoding: Encoding,
    later: bool,
    workers: usize,
) -> ChunkOutput {
    let targets: Vec<usize> = (1..workers).map(|k| text.len() / workers * k).collect();
    let starts = if later {
        starts_near(text.as_bytes(), &targets)
    } else {
        vec![0]
    };
    if starts.len() < 2 {
        return run_parser(
            Parser::new(text, encoding, text.len()),
            0,
            text.len(),
            later,
        );
    }
    let ranges = chunk_ranges(&starts, text.len());
    let parse = |(start, end): (usize, usize)| {
        let parser = Parser::new(text, encoding, end - start);
        run_parser(parser, start, end, later || start > 0)
    };
    let outputs = on_workers(ranges.clone(), workers, |_, range| parse(range));
    // A chunk whose job panicked is parsed again on this thread.
    let mut chunks = (outputs.into_iter().zip(ranges))
        .map(|(output, range)| output.unwrap_or_else(|_| parse(range)));
    match chunks.next() {
        Some(first) => join_chunks(first, chunks),
        None => parse((0, text.len())),
    }
}

/// The chunks of one piece (`first`, then the `rest`) as one parser's output: their children and diagnostics in order, a run of one code
/// across a cut counted where it started, the flags of the first and last chunk.
fn join_chunks(first: ChunkOutput, rest: impl Iterator<Item = ChunkOutput>) -> ChunkOutput {
    let mut out = first;
    for chunk in rest {
        if out.consumed_rest {
            break; // later chunks lie after the trailer and are already trailing text
        }
        let lines = out.breaks.breaks();
        out.breaks.append(&chunk.breaks, |o| o, lines);
        out.children.extend(chunk.children);
        let mut found = chunk.diagnostics.into_iter();
        if out.last_diag_on_last_line && chunk.first_diag_on_first_line {
            if let Some(first) = found.next() {
                continue_run(&mut out.diagnostics, first);
            }
        }
        out.diagnostics.extend(found);
        out.last_diag_on_last_line = chunk.last_diag_on_last_line;
        out.max_depth = out.max_depth.max(chunk.max_depth);
        out.seen_line |= chunk.seen_line;
        out.trailer_seen |= chunk.trailer_seen;
        out.consumed_rest = chunk.consumed_rest;
        out.after_trailer = chunk.after_trailer;
        out.trailing_text = chunk.trailing_text;
    }
    line_checks::merge_lf_cr(&mut out.diagnostics);
    out
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
    parser.line_cache = crate::green::LineCache::disabled();
    merge_chunks(text.len(), vec![run_parser(parser, 0, text.len(), false)])
}

/// Runs `parser` over its text from `start` to `end`; `later` says whether the text is not the file's start.
fn run_parser(mut parser: Parser<'_>, start: usize, end: usize, later: bool) -> ChunkOutput {
    parser.seen_first_line = later;
    parser.run(start, end);
    parser.close_from(0);
    parser.breaks.finish();
    ChunkOutput {
        breaks: parser.breaks,
        children: std::mem::take(&mut parser.children),
        diagnostics: parser.diagnostics,
        max_depth: parser.max_depth,
        seen_line: parser.seen_first_line,
        trailer_seen: parser.trailer_seen,
        consumed_rest: parser.consumed_rest,
        after_trailer: (parser.after_trailer)
            .filter(|_| !parser.trailing)
            .map(|a| a.first_record_pending),
        trailing_text: parser.trailing,
        first_diag_on_first_line: parser.first_diag_line == Some(parser.base + start),
        last_diag_on_last_line: parser.diag_line.is_some() && parser.diag_line == parser.line_start,
    }
}

/// Joins the chunks' records into one document ([`join_chunks`]) and adds the whole-file diagnostics.
fn merge_chunks(text_len: usize, chunks: Vec<ChunkOutput>) -> Parsed {
    let mut chunks = chunks.into_iter();
    let joined = match chunks.next() {
        Some(first) => join_chunks(first, chunks),
        None => ChunkOutput::default(),
    };
    let mut diagnostics = joined.diagnostics;
    end_of_file_diagnostics(
        joined.seen_line,
        joined.trailer_seen,
        text_len,
        &mut diagnostics,
    );
    diagnostics.extend(joined.breaks.diagnostic());
    Parsed {
        green: GreenNode::new(SyntaxKind::Document.into(), joined.children),
        diagnostics,
        max_depth: joined.max_depth.max(1),
    }
}

/// Counts `first`, the first diagnostic of a chunk and on its first line, in the run that `diagnostics` (those of
/// the chunks before, the last on the previous chunk's last line) end with, as one parser would: past the
/// `lf-cr-line-breaks` diagnostic the previous chunk's parser made at an LF CR gap after the run.
fn continue_run(diagnostics: &mut Vec<Diagnostic>, first: Diagnostic) {
    let n = diagnostics.len();
    let (before, last) = diagnostics.split_at_mut(n.saturating_sub(1));
    match (before.last_mut(), last.first()) {
        (Some(run), Some(gap)) if gap.code == codes::LF_CR_LINE_BREAKS && run.is_like(&first) => {
            run.absorb(&first)
        }
        _ => push_or_count(diagnostics, first),
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

/// What a piece's parse gives, to compare (the line breaks' tally too).
#[cfg(test)]
pub(crate) fn piece_summary(out: ChunkOutput) -> impl PartialEq + std::fmt::Debug {
    (
        out.children.into_iter().collect::<Vec<_>>(),
        out.diagnostics,
        (out.max_depth, out.seen_line, out.trailer_seen),
        (out.first_diag_on_first_line, out.last_diag_on_last_line),
        out.breaks,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use piece_summary as summary;

    /// The two cases the chunk proptest (`stream::tests::a_piece_in_chunks_equals_one_parser`) shrank to: a run
    /// of `misplaced-header` that goes on past an LF CR gap at the cut, and a file whose first chunk holds only a
    /// byte-order mark and a blank line, so the next chunk holds its first line (R-SPECIFIED-ENC-06).
    #[test]
    fn runs_past_an_lf_cr_gap_and_a_first_line_in_a_later_chunk() {
        let cases: [(&str, bool); 2] = [
            ("\u{feff}0 HEAD\n0 HEAD\n\n0 HEAD\n0 HEAD\n\r0 HEAD", true),
            ("\u{feff}\n0 TRLR", false),
        ];
        for (text, later) in cases {
            let one = summary(parse_piece_on(text, Encoding::Utf8, later, 1));
            for workers in 2..5 {
                let many = parse_piece_on(text, Encoding::Utf8, later, workers);
                assert_eq!(summary(many), one, "{text:?} in {workers} chunks");
            }
        }
    }

    #[test]
    fn a_piece_parsed_in_chunks_is_parsed_as_by_one_parser() {
        let mut records = String::new();
        for i in 0..40 {
            // Runs of one code across the cuts (blank lines, lone `@`s at the ends of records), LF CR pairs,
            // malformed lines, level jumps and long lines.
            match i % 5 {
                0 => records.push_str(&format!("0 @I{i}@ INDI\n1 NOTE a@b\n\n")),
                1 => records.push_str(&format!("\n0 @I{i}@ INDI\n\r1 NAME x\n\r")),
                2 => records.push_str(&format!("0 @F{i}@ FAM\n3 HUSB @I1@\nx1 BIRT\n")),
                3 => records.push_str(&format!("0 NOTE {}\r\n1 CONC y\r\n", "z".repeat(300))),
                _ => records.push_str(&format!("0 @S{i}@ SOUR\n1 TITL t@u\n")),
            }
        }
        let texts = [
            format!("0 HEAD\n1 CHAR UTF-8\n{records}0 TRLR\n"),
            format!("{records}0 TRLR\n0 @X1@ INDI\n{records}"),
            format!("{records}0 TRLR\ntrailing text\n0 more\n"),
            records.clone(),
            // Every cut is inside a run: each record's first and last lines have a lone `@`.
            "0 NOTE a@b\n1 CONT c@d\n".repeat(40),
        ];
        for text in &texts {
            for later in [false, true] {
                let one = summary(parse_piece_on(text, Encoding::Utf8, later, 1));
                for workers in 2..6 {
                    let many = parse_piece_on(text, Encoding::Utf8, later, workers);
                    assert_eq!(summary(many), one, "{workers} chunks, later {later}");
                }
            }
        }
    }
}
