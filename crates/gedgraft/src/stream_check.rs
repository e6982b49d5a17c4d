//! `gedgraft check FILE` record by record (DESIGN.md invariant 9), human and JSON: two passes over the file in
//! batches of whole records ([`gedgraft_syntax::stream`]). The first indexes the cross-reference identifiers
//! ([`StreamLowering::index_identifiers`]: one entry per identifier, O(records); the batches are parsed but not
//! lowered, except with `--strict`, which needs to know whether the file has an error: [`StreamLowering::index`]);
//! the second parses and lowers each batch and writes its diagnostics, the syntax layer's and the lowering's, cross-record ones included, as it
//! goes (and the one `lf-cr-line-breaks` of the file, counted by the first pass: [`FileWide`]). A file of one
//! batch (under 256 KiB, [`TWO_PASS_BATCH`], or one record) is parsed once: the first pass keeps it. Memory: the largest batch plus the index. The output is the whole-file path's (tested).
//!
//! Standard input is read twice through a copy on disk ([`input::open`]). What falls back to the whole-file
//! path: `--strict` on a file with an error (found by the first pass: it stops at the first error), UTF-16, a file that is not GEDCOM (one diagnostic for the file), inputs whose encoding notes need the whole body (a file read as UTF-8 that
//! is not valid UTF-8, an 8-bit encoding that was not forced: found by the first pass, before anything is
//! written), a file with a diagnostic whose repair needs the whole file (`lf-cr-line-breaks`,
//! `declared-encoding-mismatch`, `duplicate-xref`: [`gedgraft_edit::WHOLE_FILE_CODES`], found by the first
//! pass), and `GEDGRAFT_WHOLE_FILE=1`.

use crate::check::{json_diagnostics, json_head, json_tail};
use crate::cli::{CheckArgs, Format};
use crate::human;
use crate::input;
use crate::record::Records;
use crate::stream_fix::{stream_options_sized, whole_file_forced};
use gedgraft_model::{LowerOptions, StreamLowering};
use gedgraft_syntax::encoding::Detection;
use gedgraft_syntax::internal::work::Dropper;
use gedgraft_syntax::stream::{Batch, FileWide, RecordStream, StreamError};
use gedgraft_syntax::{ParseOptions, Severity};
use std::path::Path;

/// Checks one file streamed: `Some(whether it has an error)` once its report is written, `None` when it
/// takes the whole-file path (nothing was written).
pub(crate) fn check_streamed(
    path: &Path,
    args: &CheckArgs,
    options: &ParseOptions,
    human_options: &human::Options,
    emit: &mut dyn FnMut(&str) -> Result<(), String>,
) -> Result<Option<bool>, String> {
    if whole_file_forced() {
        return Ok(None);
    }
    let Some(Indexed {
        mut lowering,
        mut file_wide,
        detection,
        batches: stream,
        needs_whole_file,
    }) = index_pass(path, options, &LowerOptions::default(), args.strict)
    else {
        return Ok(None);
    };
    // A diagnostic whose repair needs the whole file: the whole-file path, so the report is the same.
    if needs_whole_file {
        return Ok(None);
    }
    // `--strict` stops at the first error: a file with one takes the whole-file path; one without checks the
    // same either way.
    if args.strict && lowering.has_error() {
        return Ok(None);
    }
    let mut emit = |text: &str| emit(text);
    let mut any_error = false;
    let mut json = String::new();
    let mut report = human::Report::new(human_options);
    let (mut head_written, mut first) = (false, true);
    let dropper = Dropper::new();
    for batch in stream {
        let mut batch = batch.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        file_wide.apply(&mut batch);
        let parse = batch.parse();
        let lowered = lowering.lower(parse);
        let diagnostics = lowered.all_diagnostics(parse);
        any_error |= diagnostics.iter().any(|d| d.severity() == Severity::Error);
        let mut records = Records::new(parse);
        // Files with repairs that need the whole file took the whole-file path.
        let repairs = gedgraft_edit::repairs_of_part(parse, &diagnostics);
        match args.format {
            Format::Json => {
                if !head_written {
                    json_head(&mut json, path, &detection, parse.dialect());
                    head_written = true;
                }
                json_diagnostics(
                    &mut json,
                    &mut records,
                    (&diagnostics, &repairs),
                    first,
                    &mut emit,
                )?;
                first &= diagnostics.is_empty();
            }
            Format::Human => report.add(
                path,
                (parse, &mut records),
                (&diagnostics, &repairs),
                &mut emit,
            )?,
        }
        drop(records);
        dropper.later((batch, lowered));
    }
    match args.format {
        Format::Json => {
            json_tail(&mut json, None);
            emit(&json)?;
        }
        Format::Human => report.finish(path, detection.used, None, emit)?,
    }
    Ok(Some(any_error))
}

/// The batch size of the two-pass commands (`check`, `lower`). Their peak grows with the batch (each batch is
/// parsed and lowered, several on the parser's threads) on top of the index: on the 100 MB sample, batches of
/// 256 KiB, 512 KiB, 1 MiB and 4 MiB gave `check` 49, 54, 64 and 111 MiB at the same speed within noise.
const TWO_PASS_BATCH: usize = 256 << 10;

/// A file after the first pass of a streamed lowering: the index, the file-wide diagnostics, the detection,
/// and the batches of the second pass.
pub(crate) struct Indexed {
    pub lowering: StreamLowering,
    pub file_wide: FileWide,
    pub detection: Detection,
    pub batches: Box<dyn Iterator<Item = Result<Batch, StreamError>>>,
    /// Whether a diagnostic's repair needs the whole file (`crate::repair::NeedsWholeFile`, duplicate
    /// identifiers): `check` then takes the whole-file path.
    pub needs_whole_file: bool,
}

/// The first pass over a file (standard input through its copy, [`input::open`]) streamed with `options`: the index of identifiers, the
/// file-wide counts; `None` if the file takes the whole-file path (unreadable, UTF-16, not GEDCOM, notes of
/// the whole body), which then reports it as it always has. A file of one batch (most files) is kept from
/// the first pass rather than read again. With `errors` (`--strict`), the batches are lowered to look for
/// errors ([`StreamLowering::has_error`]); without, only their identifiers are indexed
/// ([`StreamLowering::index_identifiers`]: a walk over the structures' first lines, no lowering).
pub(crate) fn index_pass(
    path: &Path,
    options: &ParseOptions,
    lower: &LowerOptions,
    errors: bool,
) -> Option<Indexed> {
    let open = || -> Option<RecordStream<std::fs::File>> {
        let file = input::open(path).ok()?;
        let stream = stream_options_sized(options, TWO_PASS_BATCH);
        RecordStream::new(file, stream.with_exact_notes(true)).ok()
    };
    let mut lowering = StreamLowering::new(lower);
    let mut file_wide = FileWide::default();
    let stream = open()?;
    let detection = stream.detection().clone();
    let (mut count, mut only) = (0usize, None);
    let mut needs_whole = crate::repair::NeedsWholeFile::new(&detection);
    let dropper = Dropper::new();
    for batch in stream {
        let batch = batch.ok()?;
        needs_whole.count(batch.parse());
        file_wide.count(&batch);
        if errors {
            lowering.index(batch.parse());
        } else {
            lowering.index_identifiers(batch.parse());
        }
        count += 1;
        if let Some(earlier) = only.replace(batch) {
            dropper.later(earlier);
        }
    }
    drop(dropper);
    let only = only.filter(|_| count == 1);
    let batches: Box<dyn Iterator<Item = Result<Batch, StreamError>>> = match only {
        Some(batch) => Box::new(std::iter::once(Ok(batch))),
        None => Box::new(open()?),
    };
    let needs_whole_file = needs_whole.found()
        || lowering.has_duplicate_identifier()
        || (file_wide.codes().iter()).any(|c| gedgraft_edit::WHOLE_FILE_CODES.contains(c));
    Some(Indexed {
        lowering,
        file_wide,
        needs_whole_file,
        detection,
        batches,
    })
}
