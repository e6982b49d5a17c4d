//! Parsing a file record by record, in memory bounded by the largest batch of records (DESIGN.md invariant 9).
//!
//! [`RecordStream`] reads from any [`Read`] (a file, standard input) through a buffer of a few MiB, never the
//! whole input. It detects the encoding on the head of the input with the rules of [`parse_with`](crate::parse_with)
//! ([`DetectOptions`]), then cuts the input at level-0 line starts into [`Batch`]es of whole records: the
//! header first, then batches of about [`StreamOptions::batch_size`] octets (1 MiB); records after a trailer (an
//! export appended to another) are cut into batches too, read as the whole-file parser reads what follows a
//! trailer, and trailing text after one (junk, a DOS end-of-file mark) runs to the end of the input. A batch
//! begins at a record's first line, never at a malformed level-0 line (`0 @`): that line is left out of the
//! dataset with any left-out lines before it, as one run (R-RECOVER-06), so it stays in their batch (lines of
//! such a run make one batch however long it is, as a record does).
//!
//! Each batch is a [`Parse`] of its records (a `DOCUMENT` node holding them), with its file offset and first line,
//! and the line break before it ([`Parse::break_before`], which new lines take where the batch has none); its
//! diagnostics are located in the file. A level-0 line closes every open structure, so each batch starts
//! where a one-pass parse would be, and the batches give the same tree (their records in order), the same octets
//! and the same diagnostics as [`parse_with`](crate::parse_with) on the whole input: a run of one code across a
//! cut is joined into the diagnostic where it starts (the batch holding it waits for the next one, and the later
//! batches keep their parts of it for what is made of the run's lines: [`Batch::run_goes_on`]), the
//! diagnostics of the file's end (`missing-trailer`) come with the last batch.
//!
//! UTF-16 is cut at the level-0 lines of its text (its code units read as the ASCII octets they are) and its
//! lines are counted in the text. What does not stream: with [`StreamOptions::exact_notes`], inputs whose encoding notes depend on
//! statistics of the whole body ([`StreamError::NeedsWholeFile`]): a file read as UTF-8 that is not valid UTF-8, or
//! read as another 8-bit encoding that was not forced. Without `exact_notes` those inputs stream too, with the
//! same trees and octets, but without the whole-body notes (`encoding-mismatch`, `declared-encoding-mismatch`
//! from statistics, `cesu-8`); [`RecordStream::notes_left_out`] says so.
//!
//! ```
//! use gedgraft_syntax::stream::{RecordStream, StreamOptions};
//! let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ann\n0 @I2@ INDI\n1 SEX X\n0 TRLR\n";
//! let options = StreamOptions::default().with_batch_size(1);
//! let mut octets = Vec::new();
//! let mut lines = Vec::new();
//! for batch in RecordStream::new(&input[..], options).unwrap() {
//!     let batch = batch.unwrap();
//!     octets.extend(batch.parse().to_bytes().unwrap());
//!     lines.push(batch.first_line());
//! }
//! assert_eq!(octets, input); // the batches write back the input
//! assert_eq!(lines, [1, 3, 5, 7]); // the header, one record each, the trailer
//! ```

use crate::codes;
use crate::diagnostic::{sort_by_start, Diagnostic};
use crate::lexer::{lex_line, LineShape};
use crate::line_breaks::Tally;
use crate::line_cursor::{last_line_break, LineBreak};
use crate::not_gedcom;
use crate::parse::{drop_shadowed_by_nul, note_diagnostic, Origin, Parse, Reading};
use crate::parser::{end_of_file_diagnostics, next_start_utf16, parse_piece, starts_near};
use crate::{Dialect, SyntaxKind};
use gedgraft_encoding::internal::{decode_document_cow, detect_trusting_utf8, utf16_units};
use gedgraft_encoding::{detect, DetectOptions, Detection, Encoding, EncodingNote};
use rowan::GreenNode;
use std::collections::VecDeque;
use std::io::Read;
use text_size::TextSize;

/// How to stream.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamOptions {
    /// How to choose the encoding (`force` overrides detection), as for a whole-file parse.
    pub detect: DetectOptions,
    /// About how many octets a batch holds (a batch is at least one record): 1 MiB by default. Twice as many
    /// in UTF-16, whose text is about half its octets.
    pub batch_size: usize,
    /// Refuse ([`StreamError::NeedsWholeFile`]) inputs whose encoding notes only the whole body can give.
    pub exact_notes: bool,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            detect: DetectOptions::default(),
            batch_size: Self::DEFAULT_BATCH_SIZE,
            exact_notes: false,
        }
    }
}

impl StreamOptions {
    /// The batch size of [`StreamOptions::default`]: 1 MiB.
    pub const DEFAULT_BATCH_SIZE: usize = 1 << 20;

    /// These options with the detection options `detect`.
    pub fn with_detect(mut self, detect: DetectOptions) -> Self {
        self.detect = detect;
        self
    }

    /// These options with [`StreamOptions::exact_notes`] set to `exact`.
    pub fn with_exact_notes(mut self, exact: bool) -> Self {
        self.exact_notes = exact;
        self
    }

    /// These options with batches of about `size` octets.
    pub fn with_batch_size(mut self, size: usize) -> Self {
        self.batch_size = size;
        self
    }
}

/// Why an input cannot be streamed (the caller parses it whole instead) or could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum StreamError {
    /// Reading failed.
    Io(std::io::Error),
    /// The encoding notes need the whole body ([`StreamOptions::exact_notes`]).
    NeedsWholeFile,
    /// The input is not GEDCOM at all (it parses whole into one run of text with one diagnostic).
    NotGedcom,
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::Io(e) => write!(f, "{e}"),
            StreamError::NeedsWholeFile => {
                f.write_str("the encoding notes of this input need the whole file")
            }
            StreamError::NotGedcom => f.write_str("the input is not GEDCOM"),
        }
    }
}

impl std::error::Error for StreamError {}

impl From<std::io::Error> for StreamError {
    fn from(e: std::io::Error) -> Self {
        StreamError::Io(e)
    }
}

/// One batch of whole records: their parse, where they start in the file, and their diagnostics.
#[derive(Debug)]
pub struct Batch {
    parse: Parse,
    len: usize,
    /// The forms of the batch's line breaks, at offsets in its text ([`FileWide`] joins them).
    breaks: Tally,
    /// The batch's first diagnostic as its parser made it, when the stream counted it in the run of an earlier
    /// batch's diagnostic (a run across the cut before this batch).
    continued_run: Option<Diagnostic>,
    /// The diagnostic whose run goes on into the batches after this one: its code, where it starts in the
    /// batch's text, and how many of the batches after this one hold a part of it.
    run_goes_on: Option<(&'static str, TextSize, usize)>,
    /// What the stream knew where the batch starts ([`RecordStream::resume`]).
    start: ResumePoint,
}

/// Where a batch starts in its input, with what the stream knew there (its line, the dialect, whether a
/// trailer came before): a stream [resumed](RecordStream::resume) at it gives the batch and the ones after
/// it as the stream that made them did, without reading what comes before. A few dozen octets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumePoint {
    offset: u64,
    /// The batch's first line.
    line: u64,
    /// The last line break before `offset` (the batches' [`Parse::break_before`]).
    break_before: Option<LineBreak>,
    /// How many batches came before.
    batches: u64,
    dialect: Option<Dialect>,
    seen_line: bool,
    trailer_seen: bool,
    /// After a trailer: whether a record is still to follow it ([`parse_piece`]'s `after_trailer`).
    after_trailer: Option<bool>,
    /// Whether the detection saw the whole input (then its notes are the whole file's).
    exact_detection: bool,
    notes_left_out: bool,
}

impl ResumePoint {
    /// The file offset where the batch starts: the reader given to [`RecordStream::resume`] reads from there.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The batch's number in its stream, from 0 (the header's batch).
    pub fn batch(&self) -> u64 {
        self.batches
    }
}

impl Batch {
    /// The parse of the batch's records: a `DOCUMENT` of them, whose diagnostics are located in the file.
    pub fn parse(&self) -> &Parse {
        &self.parse
    }

    /// The parse, taken out of the batch.
    pub fn into_parse(self) -> Parse {
        self.parse
    }

    /// The batch's diagnostics, located in the file, in file order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        self.parse.diagnostics()
    }

    /// The file offset of the batch's first octet.
    pub fn offset(&self) -> u64 {
        self.start.offset
    }

    /// The 1-based line number of the batch's first line in the file.
    pub fn first_line(&self) -> u64 {
        self.start.line
    }

    /// How many octets of the file the batch holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the batch holds no octets (only an empty input gives one).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first diagnostic of this batch as its parser made it (located in this batch: its range, its count
    /// and where its last problem starts are this batch's), when it goes on the run of a diagnostic of an
    /// earlier batch, which counts it ([`Batch::run_goes_on`]); it is not among this batch's diagnostics.
    pub fn continued_run(&self) -> Option<&Diagnostic> {
        self.continued_run.as_ref()
    }

    /// The diagnostic of this batch whose run goes on across the cut after it, and how many of the next
    /// batches hold a part of the run (each as its [`Batch::continued_run`]): the diagnostic counts the whole
    /// run, but its range and [`Diagnostic::last_start`] are in this batch's text, so what is made of the
    /// lines of the run (a repair) needs those batches too.
    ///
    /// ```
    /// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
    /// let input = b"0 HEAD\n0 @N1@ NOTE a@b\n0 @N2@ NOTE c@d\n0 TRLR\n";
    /// let options = StreamOptions::default().with_batch_size(1);
    /// let batches: Vec<_> = RecordStream::new(&input[..], options).unwrap().map(Result::unwrap).collect();
    /// let (run, more) = batches[1].run_goes_on().unwrap();
    /// assert_eq!((run.code, run.count, run.last_line, more), ("unescaped-at", 2, 3, 1));
    /// assert_eq!(batches[2].continued_run().map(|d| (d.count, d.location.line)), Some((1, 3)));
    /// assert!(batches[2].diagnostics().is_empty());
    /// ```
    pub fn run_goes_on(&self) -> Option<(&Diagnostic, usize)> {
        let (code, start, batches) = self.run_goes_on?;
        let mut all = self.parse.diagnostics().iter();
        let d = all.find(|d| d.code == code && d.range.start() == start)?;
        Some((d, batches))
    }

    /// Where the batch starts, to [resume](RecordStream::resume) its stream there.
    pub fn resume_point(&self) -> &ResumePoint {
        &self.start
    }
}

/// The codes of the encoding notes that statistics of the whole body give.
const WHOLE_BODY_NOTES: [&str; 3] = [
    EncodingNote::ENCODING_MISMATCH,
    EncodingNote::DECLARED_ENCODING_MISMATCH,
    EncodingNote::CESU_8,
];

/// The diagnostics a whole-file parse gives once per file, gathered over a first pass of the batches and put
/// in place in a second: `lf-cr-line-breaks`, one diagnostic at the first LF CR pair counting them all (a stream
/// gives one per batch that has any, counting that batch's), and `mixed-line-breaks`, which only the whole
/// file's tally of line-break forms can tell (a stream gives none).
///
/// ```
/// use gedgraft_syntax::stream::{FileWide, RecordStream, StreamOptions};
/// let input = b"0 HEAD\n\r0 @I1@ INDI\n\r0 TRLR\n\r";
/// let batches = || RecordStream::new(&input[..], StreamOptions::default().with_batch_size(1)).unwrap();
/// let mut file_wide = FileWide::default();
/// batches().for_each(|b| file_wide.count(&b.unwrap()));
/// let mut found = Vec::new();
/// for batch in batches() {
///     let mut batch = batch.unwrap();
///     file_wide.apply(&mut batch);
///     found.extend(batch.diagnostics().iter().map(|d| (d.code, d.count, d.last_line)));
/// }
/// assert_eq!(found, [("lf-cr-line-breaks", 3, 6)]);
///
/// // LF in the header's batch, CR LF after: the first CR LF is the odd one out.
/// let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\r\n0 TRLR\n";
/// let batches = || RecordStream::new(&input[..], StreamOptions::default().with_batch_size(1)).unwrap();
/// let mut file_wide = FileWide::default();
/// batches().for_each(|b| file_wide.count(&b.unwrap()));
/// assert_eq!(file_wide.codes(), ["mixed-line-breaks"]);
/// let mut found = Vec::new();
/// for batch in batches() {
///     let mut batch = batch.unwrap();
///     file_wide.apply(&mut batch);
///     found.extend(batch.diagnostics().iter().map(|d| (d.code, d.location.line, d.location.column)));
/// }
/// assert_eq!(found, [("mixed-line-breaks", 3, 12)]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct FileWide {
    /// How many LF CR pairs, and the line of the last.
    lf_cr: Option<(u32, usize)>,
    placed: bool,
    /// The file's line-break forms, at file offsets and file lines.
    breaks: Tally,
}

impl FileWide {
    /// First pass: counts what a batch has.
    pub fn count(&mut self, batch: &Batch) {
        for d in batch.diagnostics() {
            if d.code == codes::LF_CR_LINE_BREAKS {
                let before = self.lf_cr.map_or(0, |(n, _)| n);
                self.lf_cr = Some((before.saturating_add(d.count), d.last_line));
            }
        }
        let map = batch.parse.source_map();
        let base = usize::try_from(batch.offset()).unwrap_or(usize::MAX);
        let file_offset = |o: usize| base.saturating_add(map.file_offset(o));
        (self.breaks).append(&batch.breaks, file_offset, batch.first_line() - 1);
    }

    /// The codes of the diagnostics [`FileWide::apply`] puts in place (after the first pass).
    pub fn codes(&self) -> Vec<&'static str> {
        let lf_cr = self.lf_cr.map(|_| codes::LF_CR_LINE_BREAKS);
        let mixed = self.breaks.is_mixed().then_some(codes::MIXED_LINE_BREAKS);
        lf_cr.into_iter().chain(mixed).collect()
    }

    /// Second pass: the first `lf-cr-line-breaks` of the file gets the file's count, the later ones go; the
    /// batch holding the file's first line break not of its majority form gets `mixed-line-breaks`.
    pub fn apply(&mut self, batch: &mut Batch) {
        self.place_mixed(batch);
        let Some((count, last_line)) = self.lf_cr else {
            return;
        };
        let placed = &mut self.placed;
        batch.parse.diagnostics_mut().retain_mut(|d| {
            if d.code != codes::LF_CR_LINE_BREAKS {
                return true;
            }
            if std::mem::replace(placed, true) {
                return false;
            }
            d.count = count;
            d.last_line = last_line;
            true
        });
    }

    fn place_mixed(&self, batch: &mut Batch) {
        let Some((first, _, last, _)) = self.breaks.minority() else {
            return;
        };
        let start = usize::try_from(batch.offset()).unwrap_or(usize::MAX);
        let Some(in_batch) = first.offset.checked_sub(start).filter(|&o| o < batch.len) else {
            return;
        };
        // The whole-file parse's diagnostic, at the break in the batch's text; the run's end is the file's.
        let at = batch.parse.source_map().text_offset(in_batch);
        if let Some(d) = self.breaks.diagnostic_at(at, at) {
            let last_line = usize::try_from(last.line).unwrap_or(usize::MAX);
            batch.parse.insert_diagnostic(d, last_line);
        }
    }
}

/// Octets read at a time.
const READ: usize = 1 << 20;

/// The head read before detection: the header scan stops at the first record after the header.
const HEAD: usize = 64 << 10;

/// The batches of one input, in file order (an [`Iterator`] of `Result<Batch, StreamError>`; after an error it
/// ends).
pub struct RecordStream<R> {
    reader: R,
    options: StreamOptions,
    detection: Detection,
    /// The detection without the byte-order mark: how text after the start of the input is decoded (the later
    /// batches, a candidate cut's line), made once.
    body_detection: Detection,
    /// The input not yet parsed, from the next batch's start, `at`.
    buf: Vec<u8>,
    eof: bool,
    /// Where the next batch starts, and what the stream knows there.
    at: ResumePoint,
    /// Batches parsed and not yet handed out; `ready` of them are final.
    pending: VecDeque<Batch>,
    ready: usize,
    /// Whether the last diagnostic of the parser's order is on the last line read (a run may go on), and
    /// where it is: the batch number and its index in that batch's diagnostics.
    run_goes_on: bool,
    target: Option<(u64, usize)>,
    done: bool,
}

impl<R: Read> RecordStream<R> {
    /// Reads the head of `reader` and detects its encoding.
    pub fn new(mut reader: R, options: StreamOptions) -> Result<Self, StreamError> {
        let mut buf = Vec::new();
        let eof = fill(&mut reader, &mut buf, HEAD)?;
        // A head that is the whole input gets the whole-file detection, notes and all.
        let mut detection = if eof {
            detect(&buf, &options.detect)
        } else {
            detect_trusting_utf8(&buf, &options.detect)
        };
        // A file that is not GEDCOM is one run of trailing text with one diagnostic: parsed whole.
        let (head, _) = decode_document_cow(&buf, &detection);
        if not_gedcom::not_gedcom(&head).is_some() {
            return Err(StreamError::NotGedcom);
        }
        drop(head);
        // UTF-16 has no notes from statistics (its `declared-encoding-mismatch` is the header's).
        let used = detection.used;
        let whole_body_notes = !eof
            && used != Encoding::Utf8
            && used.is_ascii_compatible()
            && options.detect.force.is_none();
        if whole_body_notes {
            if options.exact_notes {
                return Err(StreamError::NeedsWholeFile);
            }
            // Notes from statistics of the head alone would be guesses: the whole body's are left out.
            detection
                .notes
                .retain(|n| !WHOLE_BODY_NOTES.contains(&n.code));
        }
        let start = ResumePoint {
            offset: 0,
            line: 1,
            break_before: None,
            batches: 0,
            dialect: None,
            seen_line: false,
            trailer_seen: false,
            after_trailer: None,
            exact_detection: eof,
            notes_left_out: whole_body_notes,
        };
        Ok(RecordStream::at(
            (reader, buf, eof),
            options,
            detection,
            start,
        ))
    }

    /// The stream of `options` over an input read again from a batch's start, `at` (given by
    /// [`Batch::resume_point`] of a stream over the same input with the same options; `reader` reads from
    /// [`ResumePoint::offset`]), whose encoding that stream chose (its [`detection`](RecordStream::detection)):
    /// the batches are those the first stream gave from that one on. One difference: a batch whose first
    /// diagnostic the first stream counted in the run of an earlier batch ([`Batch::continued_run`]) keeps it
    /// as its own, as the earlier batch is not read; resume at the batch where the run starts to have it
    /// counted so.
    ///
    /// ```
    /// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
    /// let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ann\n0 @I2@ INDI\n1 NOTE a@b\n0 TRLR\n";
    /// let options = StreamOptions::default().with_batch_size(1);
    /// let stream = RecordStream::new(&input[..], options.clone()).unwrap();
    /// let detection = stream.detection().clone();
    /// let batches: Vec<_> = stream.map(Result::unwrap).collect();
    /// let at = batches[2].resume_point();
    /// let rest = &input[at.offset() as usize..];
    /// let resumed: Vec<_> = RecordStream::resume(rest, options, detection, at).map(Result::unwrap).collect();
    /// assert_eq!(resumed.len(), 2);
    /// assert_eq!(resumed[0].parse().to_bytes().unwrap(), b"0 @I2@ INDI\n1 NOTE a@b\n");
    /// assert_eq!(resumed[0].first_line(), 5);
    /// let codes = |batch: &gedgraft_syntax::stream::Batch| {
    ///     batch.diagnostics().iter().map(|d| (d.code, d.location.line, d.location.column)).collect::<Vec<_>>()
    /// };
    /// assert_eq!(codes(&resumed[0]), [("unescaped-at", 6, 9)]);
    /// assert_eq!(codes(&resumed[0]), codes(&batches[2]));
    /// ```
    pub fn resume(
        reader: R,
        options: StreamOptions,
        detection: Detection,
        at: &ResumePoint,
    ) -> RecordStream<R> {
        RecordStream::at((reader, Vec::new(), false), options, detection, at.clone())
    }

    /// The stream whose next batch starts at `at`, its input `reader` after the octets `buf` read from it
    /// (`eof`: all of it), decoded as `detection` says.
    fn at(
        (reader, buf, eof): (R, Vec<u8>, bool),
        options: StreamOptions,
        detection: Detection,
        at: ResumePoint,
    ) -> RecordStream<R> {
        let mut body_detection = detection.clone();
        body_detection.bom = None;
        RecordStream {
            reader,
            options,
            detection,
            body_detection,
            buf,
            eof,
            at,
            pending: VecDeque::new(),
            ready: 0,
            run_goes_on: false,
            target: None,
            done: false,
        }
    }

    /// How the encoding was chosen (from the head of the input; the notes are those of the head).
    pub fn detection(&self) -> &Detection {
        &self.detection
    }

    /// Whether encoding notes that need the whole body may be missing from the batches (see the module
    /// documentation); always false with [`StreamOptions::exact_notes`].
    pub fn notes_left_out(&self) -> bool {
        self.at.notes_left_out
    }

    /// Where the next batch ends: the first record's first line after its target size, or the end of the
    /// input. The header's batch holds the file's first record, which is the header if any is (the whole-file
    /// lowering takes the first record for it): a byte-order mark, blank lines and malformed lines may come
    /// before it.
    fn next_cut(&mut self) -> Result<usize, StreamError> {
        let target = if self.at.batches == 0 {
            1
        } else {
            // UTF-16 text is about half its octets: twice as many octets make a batch of the same text, which
            // the parser splits for the machine's cores as it splits other batches.
            let units = if self.detection.used.is_utf16() { 2 } else { 1 };
            self.options.batch_size.max(1).saturating_mul(units)
        };
        // Whether a record starts before the cut: past the header's batch, always; in it, once one is met.
        self.cut_from(target, (self.at.batches != 0).then_some(true))
    }

    /// The first record start at or after octet `target` of the buffer (or the end of the input), with whether a
    /// record starts before it (`None`: not known yet, in the header's batch).
    fn cut_from(
        &mut self,
        mut target: usize,
        mut record_before: Option<bool>,
    ) -> Result<usize, StreamError> {
        loop {
            if self.buf.len() > target {
                let cut = match self.detection.used {
                    Encoding::Utf16Le => next_start_utf16(&self.buf, target, false),
                    Encoding::Utf16Be => next_start_utf16(&self.buf, target, true),
                    _ => starts_near(&self.buf, &[target]).get(1).copied(),
                };
                if record_before.is_none() {
                    let first = self.detection.bom.map_or(0, |b| b.len);
                    record_before = self.record_starts_at(first).or(self.eof.then_some(false));
                }
                if let (Some(cut), Some(before)) = (cut, record_before) {
                    match self.record_starts_at(cut) {
                        Some(true) if before => return Ok(cut),
                        // The header's batch goes on past its first record.
                        Some(true) => {
                            record_before = Some(true);
                            target = cut + 1;
                            continue;
                        }
                        // A malformed level-0 line (`0 @`) is left out of the dataset with the left-out lines
                        // before it, as one run: a batch never begins with one.
                        Some(false) => {
                            target = cut + 1;
                            continue;
                        }
                        None if self.eof => return Ok(cut),
                        None => {}
                    }
                }
            }
            if self.eof {
                return Ok(self.buf.len());
            }
            let want = self.buf.len().max(target).saturating_mul(2);
            self.eof = fill(&mut self.reader, &mut self.buf, want)?;
        }
    }

    /// Whether the line starting at octet `cut` is the first line of a record as the parser reads it (lexed by
    /// its rule: a well-formed line of level 0), and not a malformed line; `None` if its end is not buffered yet.
    /// Only the line is read (a file of malformed level-0 lines is a candidate cut on every line), and only up
    /// to [`LONGEST_FIRST_LINE`] octets: a longer line is a record's first line when its payload begins within them.
    fn record_starts_at(&self, cut: usize) -> Option<bool> {
        let rest = self.buf.get(cut..)?;
        let limit = rest.len().min(LONGEST_FIRST_LINE);
        let end = match self.detection.used {
            Encoding::Utf16Le | Encoding::Utf16Be => {
                let big_endian = self.detection.used == Encoding::Utf16Be;
                utf16_units(&rest[..limit & !1], big_endian)
                    .position(|unit| unit == 0x0A || unit == 0x0D)
                    .map(|units| units * 2)
            }
            _ => crate::line_cursor::next_line_break(&rest[..limit], 0),
        };
        let (line, truncated) = match end {
            Some(n) => (&rest[..n], false),
            None if rest.len() >= LONGEST_FIRST_LINE => (&rest[..limit & !1], true),
            // The last line of the input (in UTF-16, an odd octet at the end is part of it).
            None if self.eof => (rest, false),
            None => return None,
        };
        let (text, _) = decode_document_cow(line, &self.body_detection);
        // A longer line is read up to the limit: a record's first line if its level, identifier and tag end
        // before it (its payload has begun: what follows cannot make the line malformed); else not a cut, which
        // only makes the batch longer (a malformed `0 @…` line longer than the limit stays with the left-out
        // run before it, as the whole-file parser reads it: found by the `stream_lower` fuzz target).
        Some(matches!(
            lex_line(&text, &mut Vec::new()),
            LineShape::Line(f) if f.level == 0 && (!truncated || f.payload_start.is_some())
        ))
    }

    /// How a batch is decoded: the first with the file's detection (its byte-order mark), the others without.
    fn batch_detection(&self, first: bool) -> &Detection {
        match first {
            true => &self.detection,
            false => &self.body_detection,
        }
    }

    /// Parses the next batch and adds it to `pending`.
    fn parse_next(&mut self) -> Result<(), StreamError> {
        let start = self.at.clone();
        let mut cut = self.next_cut()?;
        let first = self.at.batches == 0;
        let encoding = self.detection.used;
        let after = self.at.after_trailer;
        let later = self.at.seen_line;
        let (decoded, mut out) = loop {
            let decoded = decode_document_cow(&self.buf[..cut], self.batch_detection(first));
            let out = parse_piece(&decoded.0, encoding, later, after);
            if out.trailing_text && !(self.eof && cut == self.buf.len()) {
                // Trailing text after a trailer runs to the end of the input, as the whole-file parser reads it.
                drop(decoded);
                if !self.eof {
                    self.eof = fill(&mut self.reader, &mut self.buf, usize::MAX)?;
                }
                cut = self.buf.len();
            } else if out.after_trailer == Some(true) && cut < self.buf.len() {
                // A batch never ends with a trailer that a record follows: whether a trailer is the file's last
                // record decides whether the lowering keeps it (`0 TRLR x` followed by records is a record).
                // The batch grows by its own length each time (a run of trailers costs a parse of each length
                // once, not one per line).
                drop(decoded);
                cut = self.cut_from(cut.saturating_mul(2).max(cut + 1), Some(true))?;
            } else {
                break (decoded, out);
            }
        };
        self.at.after_trailer = out.after_trailer;
        let (text, map) = decoded;
        if self.detection.used == Encoding::Utf8
            && !self.at.exact_detection
            && !map.is_identity()
            && std::str::from_utf8(&self.buf[..cut]).is_err()
        {
            if self.options.exact_notes {
                return Err(StreamError::NeedsWholeFile);
            }
            self.at.notes_left_out = true;
        }
        let last = cut == self.buf.len() && self.eof;
        self.at.seen_line |= out.seen_line;
        self.at.trailer_seen |= out.trailer_seen;

        let parser_count = out.diagnostics.len();
        let (diagnostics, first_at, mut last_at) = self.batch_diagnostics(
            std::mem::take(&mut out.diagnostics),
            last,
            text.len(),
            cut,
            &map,
        );

        let green = GreenNode::new(SyntaxKind::Document.into(), out.children);
        let origin = Origin {
            offset: usize::try_from(self.at.offset).unwrap_or(usize::MAX),
            lines_before: usize::try_from(self.at.line - 1).unwrap_or(usize::MAX),
            break_before: self.at.break_before,
            reading: Reading {
                piece: Some((later, after)),
            },
        };
        let mut parse = Parse::of_batch(
            green,
            diagnostics,
            self.batch_detection(first).clone(),
            map,
            &text,
            out.max_depth,
            origin,
            self.at.dialect,
        );
        // UTF-16 octets are not the text's: its lines are counted in the text.
        let lines = match encoding.is_utf16() {
            true => crate::line_cursor::count_line_breaks(text.as_bytes()),
            false => crate::line_cursor::count_line_breaks(&self.buf[..cut]),
        };
        self.at.break_before = last_line_break(text.as_bytes()).or(self.at.break_before);
        drop(text);
        if first {
            self.at.dialect = Some(parse.dialect());
        }

        // A run of one code that goes on across the cut is counted in the diagnostic where it started.
        let continued_run = match out.first_diag_on_first_line {
            true => self.join_run_across_cut(&mut parse, first_at, &mut last_at),
            false => None,
        };
        let absorbed = continued_run.is_some();
        if let Some(l) = last_at {
            self.target = Some((self.at.batches, l));
        } else if !absorbed && parser_count > 0 {
            self.target = None;
        }
        self.run_goes_on = out.last_diag_on_last_line;

        self.pending.push_back(Batch {
            parse,
            len: cut,
            breaks: out.breaks,
            continued_run,
            run_goes_on: None,
            start,
        });
        self.buf.drain(..cut);
        // A batch far larger than the others (a record of 8 MB nested 850 000 levels deep, #12) leaves the
        // buffer at twice its size: given back while the batch is lowered and written, not kept for the rest.
        let usual = self.buf.len().max(self.options.batch_size).max(READ);
        if self.buf.capacity() > 4 * usual {
            self.buf.shrink_to(2 * usual);
        }
        self.at.offset = self.at.offset.saturating_add(cut as u64);
        self.at.line += lines;
        self.at.batches += 1;
        // Batches before the one a run may still grow in are final; all are at the end, or when no run goes on.
        self.ready = match (last, self.run_goes_on, self.target) {
            (false, true, Some((batch, _))) => {
                let waiting = usize::try_from(self.at.batches - batch).unwrap_or(usize::MAX);
                self.pending.len().saturating_sub(waiting)
            }
            _ => self.pending.len(),
        };
        if last {
            self.done = true;
        }
        Ok(())
    }

    /// A batch's diagnostics in the order of a whole-file parse: the parser's, the file end's (in the `last`
    /// batch, of `text_len` octets of text), the encoding notes' in the batch's `cut` octets; then sorted by
    /// position (stable). Also where the parser's first diagnostic went, and the last one a run may go on from.
    fn batch_diagnostics(
        &self,
        parser_diagnostics: Vec<Diagnostic>,
        last: bool,
        text_len: usize,
        cut: usize,
        map: &gedgraft_encoding::SourceMap,
    ) -> (Vec<Diagnostic>, Option<usize>, Option<usize>) {
        // The diagnostics in the order of a whole-file parse: the parser's, the file end's, the encoding notes';
        // then sorted by position (stable), remembering where the parser's first and last went. In the
        // parser's vector, sorted in place: a record can have a diagnostic on every other line, and a copy of
        // them all would double what they cost at the batch's peak (#12).
        let mut diagnostics = parser_diagnostics;
        let parser_count = diagnostics.len();
        let mut more = Vec::new();
        if last {
            end_of_file_diagnostics(self.at.seen_line, self.at.trailer_seen, text_len, &mut more);
        }
        let batch_end = self.at.offset.saturating_add(cut as u64);
        for note in &self.detection.notes {
            let at = note.file_offset as u64;
            if at >= self.at.offset && (at < batch_end || last) {
                let mut local = note.clone();
                local.file_offset = (at - self.at.offset) as usize;
                more.push(note_diagnostic(&local, map));
            }
        }
        diagnostics.reserve_exact(more.len());
        diagnostics.append(&mut more);
        // The run a later batch may go on with is the parser's last diagnostic, its `lf-cr-line-breaks` aside:
        // an LF CR gap is not a line of its own for runs (the parser made that one at a gap after the run).
        let first_tag = (parser_count > 0).then_some(0);
        let last_tag = diagnostics.get(..parser_count).and_then(|parser| {
            parser
                .iter()
                .rposition(|d| d.code != codes::LF_CR_LINE_BREAKS)
        });
        let (first_at, last_at) = match sort_by_start(&mut diagnostics) {
            None => (first_tag, last_tag),
            Some(order) => {
                let position =
                    |tag: Option<usize>| tag.and_then(|t| order.iter().position(|&o| o == t));
                (position(first_tag), position(last_tag))
            }
        };
        (diagnostics, first_at, last_at)
    }

    /// Counts the first diagnostic of `parse` (at `first_at`) in the run of an earlier batch it goes on, if
    /// there is one of its code and class; `last_at` follows the removal. The diagnostic counted, taken out of
    /// `parse` (the earlier batch notes that its run goes on into one more batch: [`Batch::run_goes_on`]).
    fn join_run_across_cut(
        &mut self,
        parse: &mut Parse,
        first_at: Option<usize>,
        last_at: &mut Option<usize>,
    ) -> Option<Diagnostic> {
        let (true, Some(at), Some((batch, index))) = (self.run_goes_on, first_at, self.target)
        else {
            return None;
        };
        let back = usize::try_from(self.at.batches - batch).ok()?;
        let slot = self.pending.len().checked_sub(back);
        let into = slot.and_then(|s| self.pending.get_mut(s))?;
        let t = into.parse.diagnostics_mut().get_mut(index)?;
        let d = parse.diagnostics().get(at)?;
        if !t.is_like(d) {
            return None;
        }
        t.count = t.count.saturating_add(d.count);
        t.last_line = d.last_line;
        let more = into.run_goes_on.map_or(0, |(_, _, n)| n);
        into.run_goes_on = Some((t.code, t.range.start(), more.saturating_add(1)));
        let d = parse.diagnostics_mut().remove(at);
        *last_at = last_at.and_then(|l| match l.cmp(&at) {
            std::cmp::Ordering::Less => Some(l),
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Greater => Some(l - 1),
        });
        Some(d)
    }
}

impl<R: Read> Iterator for RecordStream<R> {
    type Item = Result<Batch, StreamError>;

    fn next(&mut self) -> Option<Self::Item> {
        while self.ready == 0 {
            if self.done {
                return None;
            }
            if let Err(e) = self.parse_next() {
                self.done = true;
                self.pending.clear();
                return Some(Err(e));
            }
        }
        self.ready -= 1;
        let mut batch = self.pending.pop_front()?;
        // Counts are final now: a run of `not-a-character` that went on into the next batch is kept.
        drop_shadowed_by_nul(batch.parse.diagnostics_mut());
        Some(Ok(batch))
    }
}

/// The longest first line [`RecordStream::record_starts_at`] reads to tell a record's from a malformed one.
const LONGEST_FIRST_LINE: usize = 4096;

/// Reads until `buf` holds `want` octets or the input ends; whether it ended.
fn fill(reader: &mut impl Read, buf: &mut Vec<u8>, want: usize) -> std::io::Result<bool> {
    while buf.len() < want {
        let from = buf.len();
        let room = (want - from).min(READ.max(from / 2));
        buf.resize(from + room, 0);
        match reader.read(&mut buf[from..]) {
            Ok(0) => {
                buf.truncate(from);
                return Ok(true);
            }
            Ok(n) => buf.truncate(from + n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => buf.truncate(from),
            Err(e) => {
                buf.truncate(from);
                return Err(e);
            }
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests;
