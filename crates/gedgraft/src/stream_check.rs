//! `gedgraft check FILE` record by record (DESIGN.md invariant 9), human and JSON: two passes over the file in
//! batches of whole records ([`gedgraft_syntax::stream`]). The first indexes the cross-reference identifiers
//! ([`StreamLowering::index`]: one entry per identifier, O(records)); the second parses and lowers each batch
//! again and writes its diagnostics, the syntax layer's and the lowering's, cross-record ones included, as it
//! goes (and the one `lf-cr-line-breaks` of the file, counted by the first pass: [`FileWide`]). A file of one
//! batch (under 1 MiB, or one record) is parsed once: the first pass keeps it. Memory: the largest batch plus the index. The output is the whole-file path's (tested).
//!
//! What falls back to the whole-file path: `--strict` (it stops at the first error of the file), standard input
//! (it cannot be read twice), UTF-16, a file that is not GEDCOM (one diagnostic for the file), inputs whose encoding notes need the whole body (a file read as UTF-8 that
//! is not valid UTF-8, an 8-bit encoding that was not forced: found by the first pass, before anything is
//! written), a file with a diagnostic whose repair needs the whole file (`lf-cr-line-breaks`,
//! `declared-encoding-mismatch`, `duplicate-xref`: [`gedgraft_edit::WHOLE_FILE_CODES`], found by the first
//! pass), and `GEDGRAFT_WHOLE_FILE=1`.

use crate::check::{json_diagnostics, json_head, json_tail};
use crate::cli::{CheckArgs, Format};
use crate::human;
use crate::input;
use crate::record::Records;
use crate::stream_fix::{stream_options, whole_file_forced};
use gedgraft_model::{LowerOptions, StreamLowering};
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
) -> Result<Option<bool>, String> {
    if args.strict || input::is_stdin(path) || whole_file_forced() {
        return Ok(None);
    }
    let open = || -> Option<RecordStream<std::fs::File>> {
        let file = std::fs::File::open(path).ok()?;
        RecordStream::new(file, stream_options(options).with_exact_notes(true)).ok()
    };
    // First pass: the index of identifiers. Any problem (unreadable, UTF-16, notes of the whole body) sends
    // the file down the whole-file path, which reports it as it always has.
    let mut lowering = StreamLowering::new(&LowerOptions::default());
    let mut file_wide = FileWide::default();
    let Some(stream) = open() else {
        return Ok(None);
    };
    let detection = stream.detection().clone();
    // A file of one batch (most files) is kept from the first pass rather than read again.
    let (mut count, mut only) = (0usize, None);
    let mut needs_whole = crate::repair::NeedsWholeFile::new(&detection);
    for batch in stream {
        let Ok(batch) = batch else {
            return Ok(None);
        };
        needs_whole.count(batch.parse());
        file_wide.count(&batch);
        lowering.index(batch.parse());
        count += 1;
        only = (count == 1).then_some(batch);
    }
    if needs_whole.found() {
        return Ok(None);
    }
    // Second pass: the diagnostics, batch by batch.
    let stream: Box<dyn Iterator<Item = Result<Batch, StreamError>>> = match only {
        Some(batch) => Box::new(std::iter::once(Ok(batch))),
        None => match open() {
            Some(s) => Box::new(s),
            None => return Ok(None),
        },
    };
    let mut emit = crate::output::emit;
    let mut any_error = false;
    let mut json = String::new();
    let mut report = human::Report::new(human_options);
    let (mut head_written, mut first) = (false, true);
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
