//! `gedgraft lower FILE` record by record (DESIGN.md invariant 9), in batches of whole records
//! ([`gedgraft_syntax::stream`]), its JSON written as it goes.
//!
//! **One pass** when standard output is a regular file written from its end, not to append (`> out.json`;
//! not `>>`, which other writers may share: [`Rewind`]):
//! each batch is indexed as it is lowered ([`StreamLowering::one_pass`]); a pointer to an identifier not yet
//! met is pending, written as one to a record. If a pending pointer leads to no record at the end (its JSON
//! would have needed `"undefined": true`), what was written is taken back (the file cut where it was) and the
//! second pass below writes the document, with the index the one pass made; on a duplicate identifier, line
//! breaks counted for the whole file, or `--strict` with an error, it is taken back where found and the two
//! passes write it. Into a pipe or a device nothing can be taken back: two passes.
//!
//! **Two passes**, as `check` makes them ([`index_pass`]): the first indexes the identifiers, the second
//! lowers each batch and writes its records' JSON as it goes. The diagnostics come after the records in the
//! document: they are gathered aside (in memory up to [`SPILL`], then in an anonymous temporary file) and
//! written at the end, after the `UNDEF` records. Memory: the largest batch plus the index (O(records)). The
//! output and the exit status are the whole-file path's (tested on the corpus, into a pipe, a new file, a
//! file with text before, and in two passes: `GEDGRAFT_TWO_PASS=1`).
//!
//! What falls back to the whole-file path: `--strict` on a file with an error (found by the first pass: the
//! dataset is then empty and the diagnostics stop at the first error; a file without one lowers the same
//! strict or not, and streams), and what `check` does not stream (not GEDCOM, notes of the whole body,
//! `GEDGRAFT_WHOLE_FILE=1`).

use crate::cli::LowerArgs;
use crate::input;
use crate::stream_check::{index_pass, open_batches, Indexed};
use crate::stream_fix::{two_passes_forced, whole_file_forced};
use gedgraft_model::{JsonStream, LowerOptions, StreamLowering};
use gedgraft_syntax::internal::work::Dropper;
use gedgraft_syntax::stream::{Batch, FileWide, StreamError};
use gedgraft_syntax::{ParseOptions, Severity};
use std::io::{Seek, Write};
use std::path::Path;

/// Diagnostics' JSON beyond this many octets goes to a temporary file.
const SPILL: usize = 4 << 20;

/// Lowers one file streamed: `Some(whether it has an error)` once its JSON is written, `None` when it takes the
/// whole-file path (nothing was written).
pub(crate) fn lower_streamed(
    args: &LowerArgs,
    lower: &LowerOptions,
) -> Result<Option<bool>, String> {
    let path = &args.file;
    if whole_file_forced() || crate::output::stdout_is(path) {
        return Ok(None);
    }
    let options = input::options(&args.input)?;
    if let Some(out) = Rewind::stdout().filter(|_| !two_passes_forced()) {
        match one_pass(args, &options, lower)? {
            OnePass::Lowered(any_error) => return Ok(Some(any_error)),
            OnePass::Unresolved(found) => {
                out.rewind()?;
                let (lowering, file_wide) = *found;
                let Some(batches) = open_batches(path, &options) else {
                    return Ok(None);
                };
                let mut lowering = lowering.into_second_pass();
                let written =
                    write_batches(path, &mut lowering, file_wide, Box::new(batches), None);
                return written.map(|stopped| stopped.map(|(error, _)| error));
            }
            OnePass::Cannot => out.rewind()?,
        }
    }
    let Some(Indexed {
        mut lowering,
        file_wide,
        batches,
        ..
    }) = index_pass(path, &options, lower, args.strict)
    else {
        return Ok(None);
    };
    // `--strict` stops at the first error: a file with one takes the whole-file path; one without checks the
    // same either way.
    if args.strict && lowering.has_error() {
        return Ok(None);
    }
    let written = write_batches(path, &mut lowering, file_wide, batches, None);
    written.map(|stopped| stopped.map(|(error, _)| error))
}

/// What a lowering in one pass ([`one_pass`]) did.
enum OnePass {
    /// The JSON is written; whether the file has an error.
    Lowered(bool),
    /// A pointer met before the identifier it names leads to no record: the JSON written must be taken back
    /// and written by the second pass, with the index the one pass made.
    Unresolved(Box<(StreamLowering, FileWide)>),
    /// The JSON written must be taken back and written by two passes (or the whole-file path).
    Cannot,
}

/// Lowers a file in one pass ([`StreamLowering::one_pass`]), writing its JSON as it goes: its output is the
/// two passes' unless a pointer met before its identifier leads to no record, an identifier is held twice
/// (a pointer to it may have been taken for one to a record), the file's line breaks need its whole count, or
/// `--strict` meets an error; then the caller takes the JSON back ([`Rewind`]).
fn one_pass(
    args: &LowerArgs,
    options: &ParseOptions,
    lower: &LowerOptions,
) -> Result<OnePass, String> {
    let Some(batches) = open_batches(&args.file, options) else {
        return Ok(OnePass::Cannot);
    };
    let mut lowering = StreamLowering::one_pass(lower);
    let mut file_wide = FileWide::default();
    let strict = args.strict;
    let mut stop = |batch: &Batch, lowering: &StreamLowering, error: bool| {
        file_wide.count(batch);
        let cannot = !file_wide.codes().is_empty() || lowering.has_duplicate_identifier();
        cannot || (strict && error)
    };
    let batches = Box::new(batches);
    let written = write_batches(
        &args.file,
        &mut lowering,
        FileWide::default(),
        batches,
        Some(&mut stop),
    )?;
    Ok(match written {
        None => OnePass::Cannot,
        Some((_, false)) => OnePass::Unresolved(Box::new((lowering, file_wide))),
        Some((any_error, true)) => OnePass::Lowered(any_error),
    })
}

/// What says, after each batch is lowered, whether a lowering in one pass stops there (given the batch,
/// the lowering, and whether the batch has an error).
type Stopper<'s> = &'s mut dyn FnMut(&Batch, &StreamLowering, bool) -> bool;

/// Writes the JSON of a file's `batches` lowered by `lowering`, the file-wide diagnostics put in place by
/// `file_wide` (counted by a first pass): whether the file has an error, and whether the document was
/// finished. With `stop` (a lowering in one pass): `None` when it stops, or when a batch cannot be read; the
/// document is not finished when a pending pointer leads to no record.
fn write_batches(
    path: &Path,
    lowering: &mut StreamLowering,
    mut file_wide: FileWide,
    batches: Box<dyn Iterator<Item = Result<Batch, StreamError>>>,
    mut stop: Option<Stopper<'_>>,
) -> Result<Option<(bool, bool)>, String> {
    let mut writer = JsonStream::new(&path.display().to_string());
    let (mut json, mut diagnostics) = (String::new(), Diagnostics::default());
    let mut any_error = false;
    let dropper = Dropper::new();
    for batch in batches {
        let mut batch = match batch {
            Ok(batch) => batch,
            // In one pass, a batch the stream cannot give (an encoding note that needs the whole file, a
            // read error): taken back, the two passes or the whole-file path tell.
            Err(_) if stop.is_some() => return Ok(None),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        file_wide.apply(&mut batch);
        let parse = batch.parse();
        let lowered = lowering.lower(parse);
        let error = lowered
            .all_diagnostics(parse)
            .iter()
            .any(|d| d.severity() == Severity::Error);
        any_error |= error;
        if stop
            .as_mut()
            .is_some_and(|stop| stop(&batch, lowering, error))
        {
            return Ok(None);
        }
        let mut sink = |part: &mut String| {
            let written = crate::output::emit(part);
            part.clear();
            written
        };
        // Past `SPILL` octets the diagnostics go to the temporary file, during a batch of many as after one.
        let Diagnostics { text, file } = &mut diagnostics;
        let mut spill = |part: &mut String| spill_past(file, part);
        writer.batch_to(parse, &lowered, (&mut json, &mut sink), (text, &mut spill))?;
        sink(&mut json)?;
        spill_past(file, text)?;
        dropper.later((batch, lowered));
    }
    if stop.is_some() && lowering.has_unresolved() {
        return Ok(Some((any_error, false)));
    }
    writer.end_records(&lowering.undefined_records(), &mut json);
    crate::output::emit(&json)?;
    json.clear();
    diagnostics.emit()?;
    writer.end(&mut json);
    // The whole-file path ends the document with a line break of its own too.
    json.push('\n');
    crate::output::emit(&json)?;
    Ok(Some((any_error, true)))
}

/// Standard output when it is a regular file written from its end and not opened to append (`> out.json`;
/// not `>>`, where another process may append while this one writes, and taking back would cut its text):
/// what a lowering in one pass wrote there can be taken back.
struct Rewind {
    #[cfg(unix)]
    file: std::fs::File,
    #[cfg(unix)]
    start: u64,
}

impl Rewind {
    #[cfg(unix)]
    fn stdout() -> Option<Rewind> {
        use std::os::fd::AsFd;
        let fd = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
        let mut file = std::fs::File::from(fd);
        let meta = file.metadata().ok()?;
        let start = file.stream_position().ok()?;
        let appends =
            rustix::fs::fcntl_getfl(&file).map_or(true, |f| f.contains(rustix::fs::OFlags::APPEND));
        (meta.is_file() && start == meta.len() && !appends).then_some(Rewind { file, start })
    }

    #[cfg(not(unix))]
    fn stdout() -> Option<Rewind> {
        None
    }

    /// Takes back what was written since: the file is cut where it was, and written from there again.
    #[cfg(unix)]
    fn rewind(mut self) -> Result<(), String> {
        let error = |e: std::io::Error| crate::output::write_error("standard output", &e);
        std::io::stdout().flush().map_err(error)?;
        self.file.set_len(self.start).map_err(error)?;
        self.file
            .seek(std::io::SeekFrom::Start(self.start))
            .map_err(error)?;
        Ok(())
    }

    #[cfg(not(unix))]
    fn rewind(self) -> Result<(), String> {
        Ok(())
    }
}

/// The diagnostics' JSON gathered while the records are written: in memory, and in a temporary file past
/// [`SPILL`].
#[derive(Default)]
struct Diagnostics {
    text: String,
    file: Option<std::fs::File>,
}

/// Past [`SPILL`] octets, appends `text` to the temporary file `file` (made at the first call) and empties it.
fn spill_past(file: &mut Option<std::fs::File>, text: &mut String) -> Result<(), String> {
    if text.len() < SPILL {
        return Ok(());
    }
    let error = |e: std::io::Error| format!("cannot write a temporary file: {e}");
    let file = match file {
        Some(f) => f,
        None => file.insert(tempfile::tempfile().map_err(error)?),
    };
    file.write_all(text.as_bytes()).map_err(error)?;
    text.clear();
    Ok(())
}

impl Diagnostics {
    /// Writes everything gathered to standard output, in order.
    fn emit(self) -> Result<(), String> {
        if let Some(file) = self.file {
            crate::output::copy_spilled(file, |chunk| {
                crate::output::write_stdout(&mut std::io::stdout().lock(), chunk)
            })?;
        }
        crate::output::emit(&self.text)
    }
}
