//! `gedgraft check FILE` record by record (DESIGN.md invariant 9), human and JSON, in batches of whole records
//! ([`gedgraft_syntax::stream`]): in one pass where one tells what two would, else in two.
//!
//! **One pass** ([`one_pass`](fn@one_pass), [`StreamLowering::one_pass`]): each batch is parsed, its identifiers indexed and
//! it is lowered, its diagnostics written to a report held until the end, with where each batch's part starts.
//! A pointer to an identifier not yet met is pending; when a pending pointer leads to no record at the end,
//! the batches from the first with one are read again and lowered with the index this pass made, and their
//! part of the report written anew, until the rest is as the one pass wrote it ([`Again`]); the pass gives up
//! for two (nothing written) on what the two passes would send to the whole-file path (below), or on a
//! report over [`ONE_PASS_REPORT`](one_pass::ONE_PASS_REPORT); on an identifier held twice (or another
//! diagnostic whose repair needs facts of the whole file) it indexes the rest of the file as the first of two
//! passes would, and the second pass follows. Most files are parsed once, files with dangling pointers once
//! and the batches that hold them again.
//!
//! **Two passes**: the first indexes the cross-reference identifiers ([`StreamLowering::index_identifiers`]:
//! one entry per identifier, O(records); the batches are parsed but not lowered, except with `--strict`,
//! which needs to know whether the file has an error: [`StreamLowering::index`]); the second parses and
//! lowers each batch and writes its diagnostics, the syntax layer's and the lowering's, cross-record ones
//! included, as it goes (and the one `lf-cr-line-breaks` of the file, counted by the first pass:
//! [`FileWide`]). A file of one batch (under 256 KiB, [`TWO_PASS_BATCH`], or one record) is parsed once: the
//! first pass keeps it. `GEDGRAFT_TWO_PASS=1` skips the one-pass attempt (tests compare both paths).
//!
//! Memory: the largest batch plus the index (and the held report, in one pass). The output is the whole-file
//! path's (tested, both ways). Standard input is read twice through a copy on disk ([`input::open`]). What
//! falls back to the whole-file path: `--strict` on a file with an error (found by the first pass: it stops at
//! the first error), a file that is not GEDCOM (one diagnostic for the file), inputs whose encoding
//! notes need the whole body (a file read as UTF-8 that is not valid UTF-8, an 8-bit encoding that was not
//! forced: found by the first pass, before anything is written), a file with a diagnostic whose repair needs
//! the whole file (`lf-cr-line-breaks`, `declared-encoding-mismatch`: [`gedgraft_edit::WHOLE_FILE_CODES`]
//! but not [`gedgraft_edit::GATHERED_CODES`], found by the first pass), and `GEDGRAFT_WHOLE_FILE=1`. The
//! first pass also gathers where the file's trailers and last record are, which the repairs of
//! `record-after-trailer` need ([`gedgraft_edit::FileFacts::gather_ends`]). A file with identifiers held
//! twice takes a pass more, between the two: it gathers where their holders are and the pointers that name
//! them ([`gedgraft_edit::FileFacts::gather_names`], O(those holders and pointers) memory), which their
//! `duplicate-xref` repairs need ([`gedgraft_edit::repairs_of_part_with`]).

use crate::check::{json_diagnostics, json_head, json_tail};
use crate::cli::{CheckArgs, Format};
use crate::human;
use crate::input;
use crate::record::Records;
use crate::stream_fix::{stream_options_sized, two_passes_forced, whole_file_forced};
use gedgraft_model::{LowerOptions, StreamLowering};
use gedgraft_syntax::encoding::Detection;
use gedgraft_syntax::internal::work::{ahead, Dropper};
use gedgraft_syntax::stream::{Batch, FileWide, RecordStream, StreamError};
use gedgraft_syntax::{ParseOptions, Severity};
use std::io::Read;
use std::path::Path;

mod one_pass;
use one_pass::{one_pass, Again, OnePass};

/// Checks one file streamed: `Some(whether it has an error)` once its report is written, `None` when it
/// takes the whole-file path (nothing was written). One pass first ([`one_pass`](fn@one_pass)); two when it cannot tell.
pub(crate) fn check_streamed(
    path: &Path,
    args: &CheckArgs,
    options: &ParseOptions,
    human_options: &human::Options,
    emit: &mut dyn FnMut(&str) -> Result<(), String>,
) -> Result<Option<bool>, String> {
    if whole_file_forced() || crate::output::stdout_is(path) {
        return Ok(None);
    }
    let first = match two_passes_forced() {
        true => OnePass::Cannot,
        false => one_pass(path, args, options, human_options, TWO_PASS_BATCH),
    };
    let (lowering, mut file_wide, detection, stream, facts) = match first {
        OnePass::Checked(report, any_error) => {
            emit(&report)?;
            return Ok(Some(any_error));
        }
        // The index is complete: the batches from the first with a pointer that leads nowhere, again.
        OnePass::Unresolved(found) => {
            let again = Again {
                path,
                args,
                options,
                human_options,
                batch_size: TWO_PASS_BATCH,
            };
            // `None`: the file cannot be read again; nothing was written, the whole-file path says why.
            let written = again.write(*found, emit)?;
            return Ok(written.map(|(any_error, _)| any_error));
        }
        found @ (OnePass::Indexed(_) | OnePass::Cannot) => {
            let indexed = match found {
                OnePass::Indexed(indexed) => Some(*indexed),
                _ => index_pass(path, options, &LowerOptions::default(), args.strict),
            };
            let Some(Indexed {
                lowering,
                file_wide,
                detection,
                batches,
                needs_whole_file,
                facts,
            }) = indexed
            else {
                return Ok(None);
            };
            // A diagnostic whose repair needs the whole file: the whole-file path, so the report is the same.
            if needs_whole_file {
                return Ok(None);
            }
            // `--strict` stops at the first error: a file with one takes the whole-file path; one without
            // checks the same either way.
            if args.strict && lowering.has_error() {
                return Ok(None);
            }
            (lowering, file_wide, detection, batches, Some(facts))
        }
    };
    // A report needs the diagnostics, not the records.
    let mut lowering = lowering.diagnostics_only();
    let mut writer = Writer::new(args.format, human_options);
    let cannot_read = |e: StreamError| input::cannot_read(path, e);
    if let Some(mut facts) = facts {
        if lowering.has_duplicate_identifier() {
            // Where the holders of the identifiers held twice are, and the pointers to them: a pass of its own.
            let Some(batches) = open_batches(path, options) else {
                return Ok(None);
            };
            gather_names(batches, &lowering, &mut facts).map_err(cannot_read)?;
        }
        writer.facts = Some(facts);
    }
    let lowerings = (&mut lowering, &mut file_wide);
    second_pass(stream, lowerings, cannot_read, |run, lowering, lowered| {
        writer.batch(path, &detection, (run, lowering), lowered, emit)
    })?;
    writer.finish(path, &detection, emit).map(Some)
}

/// The second pass over a streamed file: each batch (its file-wide diagnostics in place) lowered after the
/// batches before it and given to `each` with the batches that hold the rest of its run across the cut
/// ([`Runs::following`]), then freed on a thread of its own. `check` writes each batch's report, `fix
/// --repair` takes its repairs (`crate::repair`).
pub(crate) fn second_pass<E>(
    batches: impl Iterator<Item = Result<Batch, StreamError>>,
    (lowering, file_wide): (&mut StreamLowering, &mut FileWide),
    read_error: impl Fn(StreamError) -> E,
    mut each: impl FnMut((&Batch, &[Batch]), &StreamLowering, &gedgraft_model::Lowered) -> Result<(), E>,
) -> Result<(), E> {
    let dropper = Dropper::new();
    let mut batches = Runs::new(batches);
    while let Some(batch) = batches.next_batch() {
        let mut batch = batch.map_err(&read_error)?;
        file_wide.apply(&mut batch);
        let lowered = lowering.lower(batch.parse());
        let following = batches.following(&batch).map_err(&read_error)?;
        each((&batch, following), lowering, &lowered)?;
        dropper.later((batch, lowered));
    }
    Ok(())
}

/// Where the holders of the identifiers held twice are, and the pointers that name them
/// ([`gedgraft_edit::FileFacts::gather_names`]): a pass of its own over `batches`, after the index pass (`lowering`).
pub(crate) fn gather_names(
    batches: impl Iterator<Item = Result<Batch, StreamError>>,
    lowering: &StreamLowering,
    facts: &mut gedgraft_edit::FileFacts,
) -> Result<(), StreamError> {
    let held = |id: &str| lowering.holder_count(id);
    let dropper = Dropper::new();
    for batch in batches {
        let batch = batch?;
        facts.gather_names(batch.parse(), &held);
        dropper.later(batch);
    }
    Ok(())
}

/// The repairs of a batch's diagnostics (the batch lowered by `lowering`) a slice at a time
/// ([`gedgraft_edit::PartRepairs`]: a record with a problem on every other line has as many repairs, #12), those
/// of [`gedgraft_edit::GATHERED_CODES`] from the facts gathered by the first pass (and by [`gather_names`] in a
/// file with identifiers held twice) when given. The batch comes with the batches after it that hold the rest
/// of its run across the cut, if it has one ([`Runs::following`]): that run's repair is the whole run's
/// ([`gedgraft_edit::repair_of_run`]), as in the whole file.
pub(crate) struct BatchRepairs<'a> {
    part: gedgraft_edit::PartRepairs<'a, 'a>,
    parse: &'a gedgraft_syntax::Parse,
    /// The run that goes on across the cut: its index in the diagnostics, and the later parts that hold it.
    run: Option<(
        usize,
        Vec<(&'a gedgraft_syntax::Parse, &'a gedgraft_syntax::Diagnostic)>,
    )>,
    diagnostics: &'a [&'a gedgraft_syntax::Diagnostic],
    /// The index of the next diagnostic.
    next: usize,
}

impl<'a> BatchRepairs<'a> {
    pub(crate) fn new(
        (batch, following): (&'a Batch, &'a [Batch]),
        diagnostics: &'a [&'a gedgraft_syntax::Diagnostic],
        facts: Option<&gedgraft_edit::FileFacts>,
    ) -> Self {
        let parse = batch.parse();
        let run = batch.run_goes_on().and_then(|(run, n)| {
            let rest = (following.iter().take(n))
                .filter_map(|b| Some((b.parse(), b.continued_run()?)))
                .collect();
            let at = diagnostics.iter().position(|d| std::ptr::eq(*d, run))?;
            Some((at, rest))
        });
        BatchRepairs {
            part: gedgraft_edit::PartRepairs::new(parse, diagnostics, facts),
            parse,
            run,
            diagnostics,
            next: 0,
        }
    }

    /// The next slice of the diagnostics, `SLICE` of them or a few more (a line left out goes with the
    /// diagnostic before it, as the human report shows it), with their repairs; `None` at the end. `facts` as
    /// given to [`BatchRepairs::new`], and `lowering` the first pass's.
    pub(crate) fn next_slice(
        &mut self,
        facts: Option<&mut gedgraft_edit::FileFacts>,
        lowering: &StreamLowering,
    ) -> Option<(
        &'a [&'a gedgraft_syntax::Diagnostic],
        Vec<Option<gedgraft_edit::Repair>>,
    )> {
        let start = self.next;
        let rest = self.diagnostics.get(start..).filter(|r| !r.is_empty())?;
        let notes_after = |n: usize| {
            (rest.get(n..).unwrap_or_default().iter())
                .take_while(|d| d.code == gedgraft_model::codes::LINES_LEFT_OUT)
                .count()
        };
        let n = SLICE.min(rest.len());
        let n = n + notes_after(n);
        let held = |id: &str| lowering.holder_count(id);
        let mut repairs = self.part.next_repairs(n, facts, &held);
        if let Some((at, rest)) = self.run.take_if(|(at, _)| (start..start + n).contains(at)) {
            if let (Some(slot), Some(run)) = (repairs.get_mut(at - start), self.diagnostics.get(at))
            {
                *slot = gedgraft_edit::repair_of_run((self.parse, run, slot.take()), &rest);
            }
        }
        self.next = start + n;
        Some((rest.get(..n).unwrap_or_default(), repairs))
    }
}

/// How many diagnostics [`BatchRepairs`] hands out at a time.
const SLICE: usize = 4096;

/// Batches, each with the batches after it that hold the rest of its run of one code across the cut
/// ([`Batch::run_goes_on`]): the stream holds a batch until its run ends, so those are parsed already; they
/// wait here to be taken in turn. Memory: the batches of the run, as the stream holds them.
pub(crate) struct Runs<I> {
    batches: I,
    held: std::collections::VecDeque<Batch>,
}

impl<I: Iterator<Item = Result<Batch, StreamError>>> Runs<I> {
    pub(crate) fn new(batches: I) -> Self {
        Runs {
            batches,
            held: std::collections::VecDeque::new(),
        }
    }

    /// The next batch.
    pub(crate) fn next_batch(&mut self) -> Option<Result<Batch, StreamError>> {
        match self.held.pop_front() {
            Some(batch) => Some(Ok(batch)),
            None => self.batches.next(),
        }
    }

    /// The batches after `batch` (the one [`Runs::next_batch`] gave last) that hold the rest of its run across the
    /// cut: none if it has no such run.
    pub(crate) fn following(&mut self, batch: &Batch) -> Result<&[Batch], StreamError> {
        let n = batch.run_goes_on().map_or(0, |(_, n)| n);
        while self.held.len() < n {
            match self.batches.next() {
                Some(next) => self.held.push_back(next?),
                None => break,
            }
        }
        let held = self.held.make_contiguous();
        Ok(&held[..n.min(held.len())])
    }
}

/// The report of a streamed file as its batches come, human or JSON.
struct Writer<'o> {
    format: Format,
    json: String,
    report: human::Report<'o>,
    head_written: bool,
    /// Whether no diagnostic was written yet.
    first: bool,
    any_error: bool,
    /// What the repairs of `record-after-trailer` and `duplicate-xref` need from the whole file (after two
    /// passes; one pass stops at them).
    facts: Option<gedgraft_edit::FileFacts>,
}

/// What a [`Writer`]'s report counted so far, which what it writes next depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct State {
    counts: human::Counts,
    first: bool,
    any_error: bool,
}

impl<'o> Writer<'o> {
    fn new(format: Format, options: &'o human::Options) -> Writer<'o> {
        let start = State {
            counts: human::Counts::default(),
            first: true,
            any_error: false,
        };
        Writer::resumed(format, options, &start, false)
    }

    /// A writer that goes on from `state` (the head of the JSON report written if `head_written`).
    fn resumed(
        format: Format,
        options: &'o human::Options,
        state: &State,
        head_written: bool,
    ) -> Writer<'o> {
        Writer {
            format,
            json: String::new(),
            report: human::Report::with_counts(options, state.counts.clone()),
            head_written,
            first: state.first,
            any_error: state.any_error,
            facts: None,
        }
    }

    fn state(&self) -> State {
        State {
            counts: self.report.counts().clone(),
            first: self.first,
            any_error: self.any_error,
        }
    }

    /// What was written and not yet handed on.
    fn unsent(&self) -> &str {
        match self.format {
            Format::Json => &self.json,
            Format::Human => self.report.unsent(),
        }
    }

    /// Hands on what was written.
    fn send(&mut self, emit: &mut dyn FnMut(&str) -> Result<(), String>) -> Result<(), String> {
        let mut emit = |text: &str| emit(text);
        match self.format {
            Format::Json if !self.json.is_empty() => {
                emit(&self.json)?;
                self.json.clear();
                Ok(())
            }
            Format::Json => Ok(()),
            Format::Human => self.report.send(&mut emit),
        }
    }

    /// Whether this writer writes what follows as a writer in `other` state did, which was in `end` state
    /// at its end ([`human::Counts::writes_on_as`]; in JSON, whether a comma comes before the next diagnostic).
    fn writes_on_as(&self, other: &State, end: &State) -> bool {
        let counts = self.report.counts();
        counts.writes_on_as(&other.counts, &end.counts, self.report.options())
            && (self.first == other.first || other.first == end.first)
    }

    /// After what a writer in `from` state wrote until it was in `end` state was handed on after what this
    /// one wrote ([`Writer::writes_on_as`]): this writer's state at that end.
    fn carry(&mut self, from: &State, end: &State) {
        let counts = self.report.counts().then(&from.counts, &end.counts);
        self.report.set_counts(counts);
        self.any_error |= end.any_error;
        self.first &= end.first;
    }

    /// Writes the diagnostics of one batch (its file-wide ones in place) and its lowering's (`lowering`: after
    /// the batch was lowered); the batch comes with the batches that hold the rest of its run across the cut
    /// ([`Runs::following`]).
    fn batch(
        &mut self,
        path: &Path,
        detection: &Detection,
        (run, lowering): ((&Batch, &[Batch]), &StreamLowering),
        lowered: &gedgraft_model::Lowered,
        emit: &mut dyn FnMut(&str) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut emit = |text: &str| emit(text);
        let parse = run.0.parse();
        let diagnostics = lowered.all_diagnostics(parse);
        self.any_error |= diagnostics.iter().any(|d| d.severity() == Severity::Error);
        let mut records = Records::new(parse);
        if matches!(self.format, Format::Json) && !self.head_written {
            json_head(&mut self.json, path, detection, parse.dialect());
            self.head_written = true;
        }
        // Files with repairs that need the whole file took the whole-file path.
        let mut slices = BatchRepairs::new(run, &diagnostics, self.facts.as_ref());
        while let Some((diagnostics, repairs)) = slices.next_slice(self.facts.as_mut(), lowering) {
            match self.format {
                Format::Json => {
                    json_diagnostics(
                        &mut self.json,
                        &mut records,
                        (diagnostics, &repairs),
                        self.first,
                        &mut emit,
                    )?;
                    self.first &= diagnostics.is_empty();
                }
                Format::Human => self.report.add(
                    path,
                    (parse, &mut records),
                    (diagnostics, &repairs),
                    &mut emit,
                )?,
            }
        }
        Ok(())
    }

    /// Writes the end of the report; whether the file has an error.
    fn finish(
        mut self,
        path: &Path,
        detection: &Detection,
        emit: &mut dyn FnMut(&str) -> Result<(), String>,
    ) -> Result<bool, String> {
        match self.format {
            Format::Json => {
                json_tail(&mut self.json, None);
                emit(&self.json)?;
            }
            Format::Human => (self.report).finish(path, detection.used, None, emit)?,
        }
        Ok(self.any_error)
    }
}

/// The batch size of the two-pass commands (`check`, `lower`). Their peak grows with the batch (each batch is
/// parsed and lowered, several on the parser's threads) on top of the index: on the 100 MB sample, batches of
/// 256 KiB, 512 KiB, 1 MiB and 4 MiB gave `check` 49, 54, 64 and 111 MiB at the same speed within noise.
pub(crate) const TWO_PASS_BATCH: usize = 256 << 10;

/// A file after the first pass of a streamed lowering: the index, the file-wide diagnostics, the detection,
/// and the batches of the second pass.
pub(crate) struct Indexed<'a> {
    pub lowering: StreamLowering,
    pub file_wide: FileWide,
    pub detection: Detection,
    pub batches: Box<dyn Iterator<Item = Result<Batch, StreamError>> + 'a>,
    /// Whether a diagnostic's repair needs the whole file (`crate::repair::NeedsWholeFile`): `check` then
    /// takes the whole-file path.
    pub needs_whole_file: bool,
    /// Where the file's trailers and last record are, for the `record-after-trailer` repairs
    /// ([`gedgraft_edit::FileFacts::gather_ends`]).
    pub facts: gedgraft_edit::FileFacts,
}

/// The batches of a file (standard input through its copy, [`input::open`]) for `check`, `lower`, `fmt` and the
/// repairs, read and parsed ahead on a thread of their own ([`Batches::ahead`]).
pub(crate) fn open_batches(path: &Path, options: &ParseOptions) -> Option<Batches<'static>> {
    batches_of(input::open(path).ok()?, options).map(Batches::ahead)
}

/// The batches of a file as [`open_batches`] cuts it in batches of `size` octets, from the batch at `point` on
/// ([`RecordStream::resume`]: `detection` is the stream's that gave it), read ahead: what a one pass reads
/// again when a pointer leads to no record.
pub(crate) fn batches_from(
    path: &Path,
    options: &ParseOptions,
    size: usize,
    (detection, point): (&Detection, &gedgraft_syntax::stream::ResumePoint),
) -> Result<Batches<'static>, String> {
    let mut reader = input::open(path)?;
    std::io::Seek::seek(&mut reader, std::io::SeekFrom::Start(point.offset()))
        .map_err(|e| input::cannot_read(path, e))?;
    let stream = stream_options_sized(options, size).with_exact_notes(true);
    let stream = RecordStream::resume(reader, stream, detection.clone(), point);
    Ok(Batches::ahead(stream))
}

/// After a one pass over `batches` batches with pointers that lead to no record, in the batches of `span`
/// ([`StreamLowering::unresolved_batches`]): the first batch to read again, the first that holds one, or the
/// batch where the run of diagnostics it goes on starts (`continued`: whether a batch's first diagnostic goes
/// on the run of an earlier batch's, which a stream resumed at it would not count so).
pub(crate) fn first_again(
    span: &std::ops::RangeInclusive<u64>,
    batches: usize,
    continued: impl Fn(usize) -> bool,
) -> usize {
    let first = usize::try_from(*span.start()).unwrap_or(usize::MAX);
    let mut first = first.min(batches.saturating_sub(1));
    while first > 0 && continued(first) {
        first -= 1;
    }
    first
}

/// The batches of an input as the passes read them, with how its encoding was chosen.
pub(crate) struct Batches<'a> {
    pub(crate) detection: Detection,
    batches: Box<dyn Iterator<Item = Result<Batch, StreamError>> + 'a>,
}

impl<'a> Batches<'a> {
    /// The batches of `stream`, parsed where they are asked for (an input in memory).
    pub(crate) fn here<R: Read + 'a>(stream: RecordStream<R>) -> Batches<'a> {
        Batches {
            detection: stream.detection().clone(),
            batches: Box::new(stream),
        }
    }

    /// The batches of `stream` read and parsed on a thread of their own, ahead of the caller, who works on the
    /// last batch meanwhile ([`gedgraft_syntax::internal::work::ahead`]: both cores work).
    pub(crate) fn ahead<R: Read + Send + 'static>(stream: RecordStream<R>) -> Batches<'static> {
        Batches {
            detection: stream.detection().clone(),
            batches: Box::new(ahead(stream)),
        }
    }
}

impl Iterator for Batches<'_> {
    type Item = Result<Batch, StreamError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.batches.next()
    }
}

/// The batches of what `reader` reads, as [`open_batches`] cuts a file.
pub(crate) fn batches_of<R: Read>(reader: R, options: &ParseOptions) -> Option<RecordStream<R>> {
    let stream = stream_options_sized(options, TWO_PASS_BATCH);
    RecordStream::new(reader, stream.with_exact_notes(true)).ok()
}

/// A batch longer than this (in octets) is dropped in place by [`index_pass`]: twice the stream's batch size.
const LARGE_BATCH: usize = 2 * gedgraft_syntax::stream::StreamOptions::DEFAULT_BATCH_SIZE;

/// The first pass over a file (standard input through its copy, [`input::open`]) streamed with `options`: the index of identifiers, the
/// file-wide counts; `None` if the file takes the whole-file path (unreadable, not GEDCOM, notes of
/// the whole body), which then reports it as it always has. A file of one batch (most files) is kept from
/// the first pass rather than read again. With `errors` (`--strict`), the batches are lowered to look for
/// errors ([`StreamLowering::has_error`]); without, only their identifiers are indexed
/// ([`StreamLowering::index_identifiers`]: a walk over the structures' first lines, no lowering).
pub(crate) fn index_pass(
    path: &Path,
    options: &ParseOptions,
    lower: &LowerOptions,
    errors: bool,
) -> Option<Indexed<'static>> {
    index_pass_of(|| open_batches(path, options), lower, errors)
}

/// [`index_pass`] over the batches `open` gives (each call from the start of the input).
pub(crate) fn index_pass_of<'a>(
    open: impl Fn() -> Option<Batches<'a>>,
    lower: &LowerOptions,
    errors: bool,
) -> Option<Indexed<'a>> {
    let stream = open()?;
    let detection = stream.detection.clone();
    let mut gathered = Gathered {
        lowering: StreamLowering::new(lower),
        file_wide: FileWide::default(),
        needs_whole: crate::repair::NeedsWholeFile::new(&detection),
        facts: gedgraft_edit::FileFacts::default(),
    };
    let (mut count, mut only) = (0usize, None);
    let dropper = Dropper::new();
    for batch in stream {
        let batch = batch.ok()?;
        gathered.index(&batch, errors);
        count += 1;
        if let Some(earlier) = only.replace(batch) {
            // A batch far past the batch size is one large record, which the next pass parses again at once:
            // freed here, its memory is at hand for that parse; freed on the dropper's thread, the allocator
            // takes it back too late (#12: `lower` of a record nested 400 000 levels deep into a pipe, 126 →
            // 107 MiB).
            if earlier.len() > LARGE_BATCH {
                drop(earlier);
            } else {
                dropper.later(earlier);
            }
        }
    }
    drop(dropper);
    let only = only.filter(|_| count == 1);
    let batches: Box<dyn Iterator<Item = Result<Batch, StreamError>> + 'a> = match only {
        Some(batch) => Box::new(std::iter::once(Ok(batch))),
        None => Box::new(open()?),
    };
    Some(gathered.into_indexed(detection, batches))
}

/// What a first pass gathers batch by batch ([`index_pass`], and the rest of a file after its one pass met an
/// identifier held twice): the index of identifiers, the file-wide counts, whether a diagnostic's repair needs
/// the whole file, where the trailers and the last record are.
pub(crate) struct Gathered {
    pub(crate) lowering: StreamLowering,
    pub(crate) file_wide: FileWide,
    pub(crate) needs_whole: crate::repair::NeedsWholeFile,
    pub(crate) facts: gedgraft_edit::FileFacts,
}

impl Gathered {
    /// Gathers one batch (batches in file order), lowering it to look for errors with `errors` (`--strict`),
    /// else indexing its identifiers alone ([`StreamLowering::index_identifiers`]).
    pub(crate) fn index(&mut self, batch: &Batch, errors: bool) {
        self.needs_whole.count(batch.parse());
        self.facts.gather_ends(batch.parse());
        self.file_wide.count(batch);
        if errors {
            self.lowering.index(batch.parse());
        } else {
            self.lowering.index_identifiers(batch.parse());
        }
    }

    /// The first pass done: what the second pass over `batches` needs.
    pub(crate) fn into_indexed<'a>(
        self,
        detection: Detection,
        batches: Box<dyn Iterator<Item = Result<Batch, StreamError>> + 'a>,
    ) -> Indexed<'a> {
        let needs_whole_file = self.needs_whole.found()
            || (self.file_wide.codes().iter()).any(|c| gedgraft_edit::WHOLE_FILE_CODES.contains(c));
        Indexed {
            lowering: self.lowering,
            file_wide: self.file_wide,
            needs_whole_file,
            detection,
            batches,
            facts: self.facts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Identifiers held twice stream, in a file of one part or of several (begun by a second header: the
    /// pointers that follow a later holder are gathered by a pass of their own), and so does a record after a
    /// trailer (`record-after-trailer`: the first pass gathers where the trailers and the file's end are);
    /// a mixed line break needs the whole file.
    #[test]
    fn duplicates_and_records_after_a_trailer_do_not_need_the_whole_file() {
        let dir = tempfile::tempdir().expect("a directory");
        let files = std::cell::Cell::new(0);
        let needs_whole = |text: &str| {
            // A file of its own each time: a command must not see a file change between its reads.
            files.set(files.get() + 1);
            let path = dir.path().join(format!("f{}.ged", files.get()));
            std::fs::write(&path, text).expect("written");
            let options = ParseOptions::default();
            let indexed = index_pass(&path, &options, &LowerOptions::default(), false);
            indexed.expect("streamed").needs_whole_file
        };
        let head = "0 HEAD\n1 CHAR UTF-8\n";
        assert!(!needs_whole(&format!(
            "{head}0 @I1@ INDI\n0 @I1@ INDI\n0 TRLR\n"
        )));
        let parts = format!(
            "{head}0 @I1@ INDI\n{head}0 @I1@ INDI\n1 FAMS @F1@\n0 @F1@ FAM\n1 HUSB @I1@\n0 TRLR\n"
        );
        assert!(!needs_whole(&parts));
        assert!(!needs_whole(&format!(
            "{head}0 @I1@ INDI\n0 TRLR\n0 @I2@ INDI\n0 TRLR\n"
        )));
        assert!(needs_whole(&format!("{head}0 @I1@ INDI\r\n0 TRLR\n")));
    }
}
