//! `gedgraft lower FILE` record by record (DESIGN.md invariant 9), in batches of whole records
//! ([`gedgraft_syntax::stream`]), its JSON written as it goes.
//!
//! **One pass**: each batch is indexed as it is lowered ([`StreamLowering::one_pass`]); a pointer to an
//! identifier not yet met is pending, written as one to a record. If a pending pointer leads to no record at
//! the end (its JSON would have needed `"undefined": true`), what was written from the first batch with one
//! on is taken back (cut where that batch's JSON began, the diagnostics gathered aside cut where they were)
//! and the batches from there are read again ([`again`]) and written with the index the one pass made: the
//! JSON of the batches before is kept. On a duplicate identifier, line breaks counted for the whole file, or
//! `--strict` with an error, it is all taken back where found and the two passes write it. Where it is
//! written depends on standard output ([`Rewind`]): a regular file written from its end (`> out.json`) is
//! written as it goes and cut to take back; into the null device nothing is kept, so nothing needs taking
//! back; into a pipe, a terminal or a file opened to append (`>>`, which other writers may share), where
//! nothing can be taken back, the records' JSON is held aside (in a temporary file past 4 MiB, so the disk
//! holds it: `TMPDIR`) and written out once complete. When that file cannot be written, two passes.
//!
//! **Two passes**, as `check` makes them ([`index_pass`]): the first indexes the identifiers, the second
//! lowers each batch and writes its records' JSON as it goes. The diagnostics come after the records in the
//! document: they are gathered aside (in memory up to [`SPILL`], then in an anonymous temporary file) and
//! written at the end, after the `UNDEF` records. Memory: the largest batch plus the index (O(records)). The
//! output and the exit status are the whole-file path's (tested on the corpus, into a pipe, a new file, a
//! file with text before, appended to, and in two passes: `GEDGRAFT_TWO_PASS=1`).
//!
//! What falls back to the whole-file path: `--strict` on a file with an error (found by the first pass: the
//! dataset is then empty and the diagnostics stop at the first error; a file without one lowers the same
//! strict or not, and streams), and what `check` does not stream (not GEDCOM, notes of the whole body,
//! `GEDGRAFT_WHOLE_FILE=1`).

use crate::cli::LowerArgs;
use crate::input;
use crate::stream_check::{batches_from, first_again, index_pass, open_batches, Indexed};
use crate::stream_fix::{two_passes_forced, whole_file_forced};
use gedgraft_model::{JsonStream, LowerOptions, StreamLowering};
use gedgraft_syntax::encoding::Detection;
use gedgraft_syntax::internal::work::Dropper;
use gedgraft_syntax::stream::{Batch, FileWide, ResumePoint, StreamError};
use gedgraft_syntax::{ParseOptions, Severity};
use std::io::{Seek, Write};
use std::path::Path;

/// JSON held aside ([`Aside`]) beyond this many octets goes to a temporary file.
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
    let mut out = Rewind::stdout();
    let lowered = match lower_into(args, (&options, lower), &mut out) {
        // A file changed while it was read: its JSON may hold two versions of it.
        Ok(Some(any_error)) => input::unchanged(path).map(|()| Some(any_error)),
        other => other,
    };
    if lowered.is_err() {
        // What a failed run wrote into a file written from its end is taken back (found by a helper): no JSON
        // cut short by a full disk or `ulimit -f`, or made of a file that changed while it was read, is left.
        let _ = out.rewind();
    }
    lowered
}

/// [`lower_streamed`] writing where `out` says: in one pass, else in two.
fn lower_into(
    args: &LowerArgs,
    (options, lower): (&ParseOptions, &LowerOptions),
    out: &mut Rewind,
) -> Result<Option<bool>, String> {
    let path = &args.file;
    if !two_passes_forced() {
        match one_pass(args, options, lower, matches!(out, Rewind::Spool))? {
            OnePass::Lowered(any_error) => return Ok(Some(any_error)),
            OnePass::Unresolved(found) => return again(path, options, *found, out),
            OnePass::Cannot => out.rewind()?,
        }
    }
    let Some(Indexed {
        mut lowering,
        file_wide,
        batches,
        ..
    }) = index_pass(path, options, lower, args.strict)
    else {
        return Ok(None);
    };
    // `--strict` stops at the first error: a file with one takes the whole-file path; one without checks the
    // same either way.
    if args.strict && lowering.has_error() {
        return Ok(None);
    }
    let mut output = Output::new(path);
    let written = write_batches(path, &mut lowering, file_wide, batches, None, &mut output)?;
    Ok(written.map(|_| output.any_error))
}

/// What a lowering in one pass ([`one_pass`]) did.
enum OnePass {
    /// The JSON is written; whether the file has an error.
    Lowered(bool),
    /// A pointer met before the identifier it names leads to no record: the JSON written from the first
    /// batch with one on must be taken back and written again ([`again`]), with the index the one pass made.
    Unresolved(Box<Unresolved>),
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
    spool: bool,
) -> Result<OnePass, String> {
    let Some(batches) = open_batches(&args.file, options) else {
        return Ok(OnePass::Cannot);
    };
    let detection = batches.detection.clone();
    let mut lowering = StreamLowering::one_pass(lower);
    let mut file_wide = FileWide::default();
    let strict = args.strict;
    let mut stop = |batch: &Batch, lowering: &StreamLowering, error: bool| {
        file_wide.count(batch);
        let cannot = !file_wide.codes().is_empty() || lowering.has_duplicate_identifier();
        cannot || (strict && error)
    };
    let batches = Box::new(batches);
    let mut output = Output::new(&args.file);
    output.marks = Some(Vec::new());
    output.spool = spool.then(Aside::default);
    let written = write_batches(
        &args.file,
        &mut lowering,
        FileWide::default(),
        batches,
        Some(&mut stop),
        &mut output,
    )?;
    Ok(match written {
        None => OnePass::Cannot,
        Some(false) => OnePass::Unresolved(Box::new(Unresolved {
            lowering,
            detection,
            output,
        })),
        Some(true) => OnePass::Lowered(output.any_error),
    })
}

/// A lowering in one pass with a pointer that leads to no record: the lowering (its index complete), how its
/// encoding was chosen, and what it wrote (with where each batch's JSON began).
struct Unresolved {
    lowering: StreamLowering,
    detection: Detection,
    output: Output,
}

/// Where a batch's JSON begins in a lowering in one pass, and what was written and listed before it: to
/// write it again from there ([`again`]).
struct Mark {
    point: ResumePoint,
    /// Whether the batch's first diagnostic goes on the run of an earlier batch's.
    continued: bool,
    /// The octets of the records' JSON and of the diagnostics' written before the batch.
    written: u64,
    diagnostics: u64,
    writer: JsonStream,
    any_error: bool,
    /// [`StreamLowering::undefined_count`] before the batch.
    listed: usize,
}

/// What the JSON of a file written so far holds: the document's writer, the records' JSON written (how
/// many octets), the diagnostics gathered aside, whether one is an error; in a lowering in one pass, where
/// each batch's JSON began, and the records' JSON itself when it is held aside ([`Rewind::Spool`]).
struct Output {
    writer: JsonStream,
    written: u64,
    diagnostics: Aside,
    any_error: bool,
    marks: Option<Vec<Mark>>,
    spool: Option<Aside>,
}

impl Output {
    fn new(path: &Path) -> Output {
        Output {
            writer: JsonStream::new(&path.display().to_string()),
            written: 0,
            diagnostics: Aside::default(),
            any_error: false,
            marks: None,
            spool: None,
        }
    }
}

/// After a lowering in one pass found pointers that lead to no record ([`OnePass::Unresolved`]): the JSON
/// written from the first batch with one on taken back (standard output cut where that batch's JSON began,
/// the diagnostics gathered aside where they were), and the batches from there read again
/// ([`gedgraft_syntax::stream::RecordStream::resume`]) and written with the complete index, the `UNDEF`
/// records the earlier batches called for kept ([`StreamLowering::into_second_pass_from`]); whether the file
/// has an error; `None` when the file cannot be read again (it changed since), all of it taken back for the
/// whole-file path, which says so. A file whose one dangling pointer is in its last batch is parsed once and
/// that batch again, not twice (#17); one with a dangling pointer in its first batch, twice, as before.
fn again(
    path: &Path,
    options: &ParseOptions,
    found: Unresolved,
    out: &mut Rewind,
) -> Result<Option<bool>, String> {
    let Unresolved {
        lowering,
        detection,
        mut output,
    } = found;
    let marks = output.marks.take().unwrap_or_default();
    let continued = |n: usize| marks.get(n).is_some_and(|m| m.continued);
    let span = lowering.unresolved_batches().unwrap_or(0..=0);
    let first = first_again(&span, marks.len(), continued);
    let Some(mark) = marks.get(first) else {
        return Err(input::cannot_read(path, "no batch"));
    };
    let size = crate::stream_check::TWO_PASS_BATCH;
    let Ok(batches) = batches_from(path, options, size, (&detection, &mark.point)) else {
        out.rewind()?;
        return Ok(None);
    };
    out.rewind_to(mark.written)?;
    if let Some(spool) = &mut output.spool {
        spool.cut_at(mark.written)?;
    }
    output.diagnostics.cut_at(mark.diagnostics)?;
    output.writer = mark.writer.clone();
    output.written = mark.written;
    output.any_error = mark.any_error;
    let mut lowering = lowering.into_second_pass_from(mark.listed);
    let batches = Box::new(batches);
    let written = write_batches(
        path,
        &mut lowering,
        FileWide::default(),
        batches,
        None,
        &mut output,
    )?;
    // `None`: the records' JSON held aside could not be written to the temporary file.
    Ok(written.map(|_| output.any_error))
}

/// What says, after each batch is lowered, whether a lowering in one pass stops there (given the batch,
/// the lowering, and whether the batch has an error).
type Stopper<'s> = &'s mut dyn FnMut(&Batch, &StreamLowering, bool) -> bool;

/// Writes the JSON of a file's `batches` lowered by `lowering` after what `output` holds, the file-wide
/// diagnostics put in place by `file_wide` (counted by a first pass): whether the document was finished.
/// With `stop` (a lowering in one pass): `None` when it stops, or when a batch cannot be read; the document
/// is not finished when a pending pointer leads to no record.
fn write_batches(
    path: &Path,
    lowering: &mut StreamLowering,
    mut file_wide: FileWide,
    batches: Box<dyn Iterator<Item = Result<Batch, StreamError>>>,
    mut stop: Option<Stopper<'_>>,
    output: &mut Output,
) -> Result<Option<bool>, String> {
    let mut json = String::new();
    let dropper = Dropper::new();
    for batch in batches {
        let mut batch = match batch {
            Ok(batch) => batch,
            // In one pass, a batch the stream cannot give (an encoding note that needs the whole file, a
            // read error): taken back, the two passes or the whole-file path tell.
            Err(_) if stop.is_some() => return Ok(None),
            Err(e) => return Err(input::cannot_read(path, e)),
        };
        file_wide.apply(&mut batch);
        if let Some(marks) = &mut output.marks {
            marks.push(Mark {
                point: batch.resume_point().clone(),
                continued: batch.continued_run().is_some(),
                written: output.written,
                diagnostics: output.diagnostics.len(),
                writer: output.writer.clone(),
                any_error: output.any_error,
                listed: lowering.undefined_count(),
            });
        }
        let parse = batch.parse();
        let lowered = lowering.lower(parse);
        let error = lowered
            .all_diagnostics(parse)
            .iter()
            .any(|d| d.severity() == Severity::Error);
        output.any_error |= error;
        if stop
            .as_mut()
            .is_some_and(|stop| stop(&batch, lowering, error))
        {
            return Ok(None);
        }
        let Output {
            writer,
            written,
            diagnostics,
            spool,
            ..
        } = output;
        let mut sink = |part: &mut String| {
            *written += part.len() as u64;
            let Some(Aside {
                text,
                file,
                spilled,
                held,
            }) = spool
            else {
                let emitted = crate::output::emit(part);
                part.clear();
                return emitted;
            };
            text.push_str(part);
            part.clear();
            spill_past((file, spilled, held), text)
        };
        // Past `SPILL` octets the diagnostics go to the temporary file, during a batch of many as after one.
        let Aside {
            text,
            file,
            spilled,
            held,
        } = diagnostics;
        let mut spill = |part: &mut String| spill_past((file, spilled, held), part);
        writer.batch_to(parse, &lowered, (&mut json, &mut sink), (text, &mut spill))?;
        sink(&mut json)?;
        spill_past((file, spilled, held), text)?;
        dropper.later((batch, lowered));
        // The records' JSON held aside must not stay in memory: when it cannot go to the temporary file, the
        // one pass gives up (nothing was written).
        if output.spool.as_ref().is_some_and(|spool| spool.held) {
            return Ok(None);
        }
    }
    if stop.is_some() && lowering.has_unresolved() {
        return Ok(Some(false));
    }
    // The document is complete: what was held aside is written out, and the rest follows it.
    if let Some(spool) = output.spool.take() {
        // Held until the end: nothing of a file that changed while it was read is written.
        input::unchanged(path)?;
        spool.emit()?;
    }
    let mut writer = std::mem::replace(&mut output.writer, JsonStream::new(""));
    writer.end_records(&lowering.undefined_records(), &mut json);
    crate::output::emit(&json)?;
    json.clear();
    std::mem::take(&mut output.diagnostics).emit()?;
    writer.end(&mut json);
    // The whole-file path ends the document with a line break of its own too.
    json.push('\n');
    crate::output::emit(&json)?;
    Ok(Some(true))
}

/// Where a lowering in one pass writes what it may have to take back, by what standard output is.
enum Rewind {
    /// A regular file written from its end and not opened to append (`> out.json`; not `>>`, where another
    /// process may append while this one writes, and taking back would cut its text): written there, and cut
    /// where a batch's JSON began to take it back.
    #[cfg(unix)]
    File { file: std::fs::File, start: u64 },
    /// The null device (`> /dev/null`, to have the exit status alone): nothing written is kept, so nothing
    /// needs taking back (as GNU tar knows it).
    #[cfg(unix)]
    Null,
    /// Anything else (a pipe, a terminal, a device, a file opened to append): the records' JSON is held aside
    /// ([`Aside`]: in memory up to [`SPILL`], then in an anonymous temporary file), taken back there, and
    /// written out once the document is complete. When the temporary file cannot be made or written, the one
    /// pass gives up for two, nothing written.
    Spool,
}

impl Rewind {
    #[cfg(unix)]
    fn stdout() -> Rewind {
        use std::os::fd::AsFd;
        let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() else {
            return Rewind::Spool;
        };
        let mut file = std::fs::File::from(fd);
        let Ok(meta) = file.metadata() else {
            return Rewind::Spool;
        };
        if is_null_device(&meta) {
            return Rewind::Null;
        }
        let appends =
            rustix::fs::fcntl_getfl(&file).map_or(true, |f| f.contains(rustix::fs::OFlags::APPEND));
        match file.stream_position() {
            Ok(start) if meta.is_file() && start == meta.len() && !appends => {
                Rewind::File { file, start }
            }
            _ => Rewind::Spool,
        }
    }

    #[cfg(not(unix))]
    fn stdout() -> Rewind {
        Rewind::Spool
    }

    /// Takes back what was written since: the file is cut where it was, and written from there again.
    fn rewind(&mut self) -> Result<(), String> {
        self.rewind_to(0)
    }

    /// Takes back what was written since but its first `kept` octets: the file is cut there, and written
    /// from there again. (What is held aside is taken back where it is held.)
    fn rewind_to(&mut self, kept: u64) -> Result<(), String> {
        let error = |e: std::io::Error| crate::output::write_error("standard output", &e);
        match self {
            #[cfg(unix)]
            Rewind::File { file, start } => {
                let at = start.saturating_add(kept);
                let mut cut = || {
                    file.set_len(at)?;
                    file.seek(std::io::SeekFrom::Start(at)).map(drop)
                };
                let flushed = std::io::stdout().flush();
                cut().map_err(error)?;
                if flushed.is_err() {
                    // A write failed (a full disk): what standard output's buffer still holds would be written
                    // where the file is cut when it is next flushed (at the latest at exit). Flushed now, and
                    // cut again.
                    let _ = std::io::stdout().flush();
                    cut().map_err(error)?;
                }
                flushed.map_err(error)?;
            }
            #[cfg(unix)]
            Rewind::Null => std::io::stdout().flush().map_err(error)?,
            Rewind::Spool => {}
        }
        Ok(())
    }
}

/// Whether `meta` is the null device's (`/dev/null`: the same character device).
#[cfg(unix)]
fn is_null_device(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    meta.file_type().is_char_device()
        && std::fs::metadata("/dev/null").is_ok_and(|null| null.rdev() == meta.rdev())
}

/// JSON held aside, to be written later: the diagnostics' while the records are written, and the records'
/// in a lowering in one pass that cannot take back what it wrote ([`Rewind::Spool`]). In memory, and in a
/// temporary file past [`SPILL`] (`spilled` octets of it, the text in memory after them).
#[derive(Default)]
struct Aside {
    text: String,
    file: Option<std::fs::File>,
    spilled: u64,
    /// No more goes to the file: none could be made or written (`TMPDIR` unusable, a full disk, `ulimit -f`).
    /// The rest of the diagnostics is held in memory, as the whole-file path holds it all; records' JSON is
    /// not (the one pass gives up).
    held: bool,
}

/// Past [`SPILL`] octets, appends `text` to the temporary file `file` (made at the first call; `spilled`
/// octets in it) and empties it. When the file cannot be made or written, the text stays in memory from then
/// on (`held`; what a failed write added to the file is cut off).
fn spill_past(
    (file, spilled, held): (&mut Option<std::fs::File>, &mut u64, &mut bool),
    text: &mut String,
) -> Result<(), String> {
    if text.len() < SPILL || *held {
        return Ok(());
    }
    let f = match file {
        Some(f) => f,
        None => match tempfile::tempfile() {
            Ok(f) => file.insert(f),
            Err(_) => {
                *held = true;
                return Ok(());
            }
        },
    };
    if let Err(e) = f.write_all(text.as_bytes()) {
        // The octets written before the failure are taken back, or the file cannot be trusted.
        f.set_len(*spilled)
            .and_then(|()| f.seek(std::io::SeekFrom::Start(*spilled)))
            .map_err(|_| crate::output::temporary_file_error(e))?;
        *held = true;
        return Ok(());
    }
    *spilled += text.len() as u64;
    text.clear();
    Ok(())
}

impl Aside {
    /// How many octets were gathered.
    fn len(&self) -> u64 {
        self.spilled + self.text.len() as u64
    }

    /// Takes back what was gathered after its first `len` octets.
    fn cut_at(&mut self, len: u64) -> Result<(), String> {
        if let Some(kept) = len.checked_sub(self.spilled) {
            // A mark is where a batch's diagnostics began: between two of them, never inside a character.
            let kept = usize::try_from(kept)
                .unwrap_or(usize::MAX)
                .min(self.text.len());
            if !self.text.is_char_boundary(kept) {
                return Err("cannot take back the diagnostics gathered: not at a mark".into());
            }
            self.text.truncate(kept);
            return Ok(());
        }
        self.text.clear();
        if let Some(file) = &mut self.file {
            file.set_len(len)
                .map_err(crate::output::temporary_file_error)?;
            file.seek(std::io::SeekFrom::Start(len))
                .map_err(crate::output::temporary_file_error)?;
        }
        self.spilled = len;
        Ok(())
    }

    /// Writes everything gathered to standard output, in order.
    fn emit(self) -> Result<(), String> {
        if let Some(file) = self.file {
            crate::output::copy_spilled_to_stdout(file)?;
        }
        crate::output::emit(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// What `diagnostics` gathered: the temporary file's octets, then the text in memory.
    fn gathered(diagnostics: &mut Aside) -> String {
        let mut all = String::new();
        if let Some(file) = &mut diagnostics.file {
            file.seek(std::io::SeekFrom::Start(0)).expect("seek");
            file.read_to_string(&mut all).expect("read");
            file.seek(std::io::SeekFrom::End(0)).expect("seek");
        }
        all + &diagnostics.text
    }

    /// The diagnostics gathered aside are taken back to where a batch began ([`again`]): inside the text in
    /// memory, and inside what went to the temporary file past [`SPILL`], after which they gather on.
    #[test]
    fn gathered_diagnostics_are_taken_back_to_a_mark() {
        let mut diagnostics = Aside::default();
        let piece = |c: char| c.to_string().repeat(SPILL / 2 + 1);
        let mut expected = String::new();
        let mut marks = Vec::new();
        for c in ['a', 'b', 'c', 'd', 'e'] {
            marks.push(diagnostics.len());
            let Aside {
                text,
                file,
                spilled,
                held,
            } = &mut diagnostics;
            text.push_str(&piece(c));
            spill_past((file, spilled, held), text).expect("spilled");
            expected.push_str(&piece(c));
        }
        assert!(diagnostics.spilled > 0 && !diagnostics.text.is_empty());
        assert_eq!(gathered(&mut diagnostics), expected);
        // Inside the text in memory, then inside the file.
        for at in [marks[4] + 10, marks[1]] {
            diagnostics.cut_at(at).expect("cut");
            expected.truncate(usize::try_from(at).expect("small"));
            assert_eq!(diagnostics.len(), at);
            assert_eq!(gathered(&mut diagnostics), expected);
        }
        diagnostics.text.push('z');
        expected.push('z');
        assert_eq!(gathered(&mut diagnostics), expected);
    }
}
