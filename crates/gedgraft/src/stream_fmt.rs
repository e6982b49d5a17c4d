//! `gedgraft fmt FILE -o OUT` (and `--in-place`, `--check`) record by record (DESIGN.md invariant 9), over
//! batches of whole records ([`open_batches`]), never the tree or the dataset of the whole file (#17: 934 MiB
//! for a 100 MB file, whole; 50 MiB streamed).
//!
//! Output to a standard stream (`-o -`) goes to an unlinked temporary file first, copied to the stream at the
//! end: what is written to a stream cannot be taken back when the one pass gives way.
//!
//! **One pass** first: each batch is lowered, its identifiers indexed as it goes
//! ([`StreamLowering::one_pass`]), planned ([`StreamPlanner`]) and written at once, by a writer made after
//! the first batch ([`StreamPlanner::writer_so_far`]). That is the whole file's output unless a later batch
//! changes the plan (something in it takes ELF, which the header written first does not declare; an
//! identifier held twice): then the pass writes no more, plans the rest of the file, and what it wrote is
//! dropped (the output is a temporary file until the end); a **second pass** lowers each batch again and
//! writes it with the whole plan ([`StreamWriter`]). The lines changed are counted batch by batch on a thread of their own (a
//! batch's old octets against its new ones, what follows a batch's last LF counted with the next batch: the
//! whole-file path counts lines of octets ending in LF; the records of a batch are written from its own lines;
//! tested equal to the whole-file count on the corpus).
//!
//! The output, the messages, the summary and the exit status are the whole-file path's. A file with an error
//! is refused in the one pass: once an error is met nothing more is written, and the pass goes on lowering to
//! count the errors (the refusal names the first and counts them all). A file with an identifier held twice
//! is refused too, its errors counted in two passes as `check` counts them ([`File::recount`]: the one pass
//! may have taken a pointer to it for one to a record). What takes the whole-file path (nothing is written
//! before it is known): a structure the writer cannot write (the whole file's message names it and its line),
//! the review diff of a batch whose records do not pair with what was written of them,
//! a file in UTF-16 (either side) or with a line a CR ends alone (CR-only, LF CR: its lines are counted on
//! the trees, as the review diff shows them, [`crate::fmt::by_octet_lines`]), what the stream refuses (not
//! GEDCOM, encoding notes of the whole body), and `GEDGRAFT_WHOLE_FILE=1`.

use crate::cli::FmtArgs;
use crate::output;
use crate::stream_check::{index_pass, open_batches, second_pass};
use crate::stream_fix::whole_file_forced;
use crate::write_cmd::{what_write_changes, write_options};
use gedgraft_edit::{Change, StreamedDiff};
use gedgraft_model::{LowerOptions, StreamLowering, StreamPlanner, StreamWriter, WriteOptions};
use gedgraft_syntax::encoding::Encoding;
use gedgraft_syntax::stream::{Batch, StreamError};
use gedgraft_syntax::{Dialect, Parse, ParseOptions};
use std::path::Path;

/// Formats one file streamed: whether it changed, the lines to say before the summary, and how many lines
/// it removes and adds; `None` when it takes the whole-file path (nothing was written or said).
pub(crate) fn fmt_streamed(
    path: &Path,
    args: &FmtArgs,
    to: Option<Encoding>,
    options: &ParseOptions,
) -> Result<Option<Formatted>, String> {
    if whole_file_forced() || output::stdout_is(path) {
        return Ok(None);
    }
    let file = File {
        path,
        args,
        to,
        options,
    };
    match file.deliver(None) {
        Err(Stop::TwoPasses(planned)) => file.deliver(Some(*planned)),
        Err(Stop::Recount) => Err(file.recount()),
        done => done,
    }
    .map(Some)
    .or_else(Stop::whole_file)
}

/// Why a streamed `fmt` stopped before the end (nothing written).
enum Stop {
    /// The whole-file path takes over.
    WholeFile,
    /// A later batch changed the plan of the one pass, which planned the rest of the file without writing it:
    /// a second pass writes the file with that plan.
    TwoPasses(Box<Planned>),
    /// An identifier held twice, an error: the file is refused, but the one pass may have taken a pointer to it
    /// for one to a record, so its count of errors is not the whole file's; two passes count them
    /// ([`File::recount`]).
    Recount,
    /// An error to tell (a read or write error, or a refusal).
    Error(String),
}

impl Stop {
    fn whole_file(self) -> Result<Option<Formatted>, String> {
        match self {
            Stop::Error(e) => Err(e),
            Stop::WholeFile | Stop::TwoPasses(_) | Stop::Recount => Ok(None),
        }
    }
}

/// What a streamed `fmt` did: whether the file changed, what the writer changed beyond the layout (lines to
/// say), how many lines it removes and adds.
#[derive(Default)]
pub(crate) struct Formatted {
    pub(crate) changed: bool,
    pub(crate) told: Vec<String>,
    pub(crate) removed: usize,
    pub(crate) added: usize,
    /// Output to a standard stream (`-o -`): the stream, and the temporary file the output was written to, to
    /// copy there (a later batch may send the one pass back, and a stream cannot be taken back).
    pub(crate) spilled: Option<(output::Stream, std::fs::File)>,
    /// The old and new octets after the last LF of the batches so far, counted with the next batch's.
    old_tail: Vec<u8>,
    new_tail: Vec<u8>,
    /// The review diff (no `-o`, `--in-place` or `--check`), made batch by batch.
    pub(crate) review: Option<gedgraft_edit::LineDiff>,
}

/// The file formatted, and how.
#[derive(Clone, Copy)]
struct File<'a> {
    path: &'a Path,
    args: &'a FmtArgs,
    to: Option<Encoding>,
    options: &'a ParseOptions,
}

/// The first pass of two (the one pass, planning to the end): the lowering with its index complete, the
/// writer planned, its options, and the dialect the file was read in.
struct Planned {
    lowering: StreamLowering,
    writer: StreamWriter,
    write_options: WriteOptions,
    read: Dialect,
}

/// The writing pass: planned already (the second of two), or planning as it goes (one pass).
enum Writing {
    Planned(Box<Planned>),
    OnePass(Box<OnePass>),
    /// After the last batch.
    Ended,
}

/// The one pass: its lowering, what is made at the first batch (the planner, the write options, the dialect
/// read, the writer made early), and once an error is met, the refusal: how many problems, and the first
/// error (the pass goes on lowering to count them, and writes no more).
struct OnePass {
    lowering: StreamLowering,
    first: Option<(StreamPlanner, WriteOptions, Dialect, StreamWriter)>,
    refusal: Option<(usize, gedgraft_syntax::Diagnostic)>,
}

impl File<'_> {
    /// The refusal of a file with an identifier held twice, its errors counted as `check` counts them in two
    /// passes (an index of the identifiers, then each batch lowered with it): nothing is written, and memory
    /// is a batch's and the index's, not the whole file's tree (#17).
    fn recount(&self) -> Stop {
        let name = self.path.display().to_string();
        let lower = LowerOptions::default();
        let Some(indexed) = index_pass(self.path, self.options, &lower, false) else {
            return Stop::WholeFile;
        };
        let (mut lowering, mut file_wide) =
            (indexed.lowering.diagnostics_only(), indexed.file_wide);
        let mut refusal: Option<(usize, gedgraft_syntax::Diagnostic)> = None;
        let counted = second_pass(
            indexed.batches,
            (&mut lowering, &mut file_wide),
            |e| Stop::Error(crate::input::cannot_read(self.path, e)),
            |(batch, _), _, lowered| {
                count_errors(&mut refusal, batch.parse(), lowered);
                Ok(())
            },
        );
        match (counted, refusal) {
            (Err(stop), _) => stop,
            (Ok(()), Some((count, first))) => {
                Stop::Error(crate::fmt::refusal(&name, count, &first))
            }
            (Ok(()), None) => Stop::WholeFile,
        }
    }

    /// The write options, from the file's first batch.
    fn write_options(&self, parse: &Parse) -> WriteOptions {
        let encoding = crate::fmt::output_encoding(self.to, parse.encoding(), &self.args.layout);
        let eol = crate::fmt::line_ending_of(parse.text());
        write_options(&self.args.layout, encoding, Some(eol))
    }

    /// Writes the file where it goes (`--check`: nowhere; `--in-place`: over itself, if it changed; `-o`):
    /// in one pass (`planned` is `None`) or as the second of two. Nothing is written when it stops.
    fn deliver(&self, planned: Option<Planned>) -> Result<Formatted, Stop> {
        let mut writing = match planned {
            Some(planned) => Writing::Planned(Box::new(planned)),
            None => Writing::OnePass(Box::new(OnePass {
                lowering: StreamLowering::one_pass(&LowerOptions::default()),
                first: None,
                refusal: None,
            })),
        };
        let args = self.args;
        let (mut outcome, mut unchanged) = (None, false);
        let stopped = || std::io::Error::other("not formatted");
        let to_stream = args.output.as_deref().and_then(output::stream_named);
        let written = if args.check || args.reviews() {
            outcome = Some(self.write_all(&mut writing, &mut |_| Ok(())));
            Ok(())
        } else if let Some(stream) = to_stream {
            // No temporary file to be had: the whole-file path writes the file straight to the stream.
            let mut spill = output::Spill::new().ok_or(Stop::WholeFile)?;
            let done = self.write_all(&mut writing, &mut |octets| spill.write(octets));
            outcome = Some(match done {
                Err(_) if spill.failed() => Err(Stop::WholeFile),
                done => done.map(|mut done| {
                    done.spilled = Some((stream, spill.into_file()));
                    done
                }),
            });
            Ok(())
        } else {
            let (out, backup) = match args.output.as_deref() {
                Some(out) => (out, None),
                None => (self.path, args.backup.as_deref()),
            };
            let out_name = out.display().to_string();
            output::replace_file((out, self.path), backup, |w| {
                let mut out = |octets: &[u8]| {
                    (w.write_all(octets)).map_err(|e| output::write_error(&out_name, &e))
                };
                let done = self.write_all(&mut writing, &mut out);
                // In place, a file that does not change is not touched.
                unchanged = args.in_place && done.as_ref().is_ok_and(|f| !f.changed);
                let ok = done.is_ok() && !unchanged;
                outcome = Some(done);
                if ok {
                    Ok(())
                } else {
                    Err(stopped())
                }
            })
        };
        let done = outcome.unwrap_or(Err(Stop::WholeFile))?;
        if !unchanged {
            // The file written: OUT, or the input in place.
            let out = args
                .output
                .as_deref()
                .unwrap_or(self.path)
                .display()
                .to_string();
            written.map_err(|e| Stop::Error(output::write_error(&out, &e)))?;
        }
        Ok(done)
    }

    /// Lowers and writes every batch, giving `out` each batch's new octets: what it did, with what the writer
    /// changed beyond the layout. The lines are counted on a thread of their own, a batch behind (the line
    /// diff takes about as long as the writing).
    fn write_all(
        &self,
        writing: &mut Writing,
        out: &mut dyn FnMut(&[u8]) -> Result<(), String>,
    ) -> Result<Formatted, Stop> {
        let name = self.path.display().to_string();
        let read_error = |e: &dyn std::fmt::Display| crate::input::cannot_read(self.path, e);
        let stream = open_batches(self.path, self.options).ok_or(Stop::WholeFile)?;
        // In UTF-16 an octet 0A is not a line end: the whole file is one change, whose lines (and review diff)
        // are counted on the trees: left to the whole-file path.
        if stream.detection.used.is_utf16() || self.to.is_some_and(Encoding::is_utf16) {
            return Err(Stop::WholeFile);
        }
        std::thread::scope(|scope| {
            // A batch and its new octets, or the trailer's octets, which end the last batch's.
            let (send, receive) = std::sync::mpsc::sync_channel::<Counted>(2);
            let read_error = &read_error;
            let review = self.args.reviews();
            let encoding =
                crate::fmt::output_encoding(self.to, stream.detection.used, &self.args.layout);
            let encoding_note =
                crate::fmt::encoding_note(self.to, stream.detection.used, &self.args.layout);
            let counter = scope.spawn(move || {
                let mut counts = Formatted::default();
                // The review diff, batch by batch.
                let mut diff = review.then(StreamedDiff::new);
                let keep_batches = diff.is_some();
                // The last batch, counted once the next shows it is not the last.
                let mut pending: Option<Pending> = None;
                let mut count = |counts: &mut Formatted, done: Pending, last: bool| {
                    // Lines a CR ends alone are counted on the trees, by the whole-file path.
                    if !crate::fmt::by_octet_lines(&done.old, false) {
                        return Err(Stop::WholeFile);
                    }
                    let by_record = counts.count(&done.old, &done.cuts, &done.new, last);
                    let (Some(diff), Some(batch)) = (diff.as_mut(), done.batch) else {
                        return Ok(());
                    };
                    // A batch not diffed record by record (a record or its end not after a LF on both
                    // sides): the whole file decides.
                    let changes = by_record.ok_or(Stop::WholeFile)?;
                    let new = crate::fmt::parse_written(&done.new, encoding);
                    diff.push(batch.parse(), &new, &changes);
                    Ok(())
                };
                for counted in receive {
                    match counted {
                        Counted::Batch(batch, new) => {
                            let old = batch
                                .parse()
                                .to_bytes()
                                .map_err(|e| Stop::Error(read_error(&e)))?;
                            let cuts = crate::fmt::record_cuts(batch.parse());
                            // The tree goes before the line diff takes its memory (#12: a record nested
                            // 400 000 levels deep), unless the review diff reads its lines.
                            let batch = keep_batches.then_some(batch);
                            let this = Pending {
                                old,
                                cuts,
                                new,
                                batch,
                            };
                            if let Some(done) = pending.replace(this) {
                                count(&mut counts, done, false)?;
                            }
                        }
                        Counted::Trailer(trailer) => {
                            let mut done = pending.take().unwrap_or_default();
                            done.new.extend(trailer);
                            count(&mut counts, done, true)?;
                        }
                    }
                }
                counts.review = diff.map(StreamedDiff::finish);
                Ok::<Formatted, Stop>(counts)
            });
            let written = || {
                // The notes of what is not written as read: the encoding a dialect does not allow, and what
                // the header's serialisation metadata holds that the dataset does not keep (first batch).
                let mut not_written: Vec<String> = encoding_note.into_iter().collect();
                for batch in stream {
                    // An input whose encoding notes need the whole body (an undecodable octet past the
                    // head): the whole-file path tells.
                    let batch = batch.map_err(|e| match e {
                        StreamError::Io(e) => Stop::Error(read_error(&e)),
                        _ => Stop::WholeFile,
                    })?;
                    not_written.extend(crate::fmt::metadata_not_written(batch.parse()));
                    let Some(new) = writing.batch(self, batch.parse())? else {
                        continue;
                    };
                    out(&new).map_err(Stop::Error)?;
                    // The counter stopped: its error is told below.
                    let _ = send.send(Counted::Batch(Box::new(batch), new));
                }
                // The refusal, if the file has errors; the whole-file path, if it had no batch.
                let (writer, mut told) = writing.end(&name)?;
                told.extend(not_written.iter().map(|note| format!("{name}: {note}")));
                let trailer = writer.finish();
                out(&trailer).map_err(Stop::Error)?;
                let _ = send.send(Counted::Trailer(trailer));
                Ok(told)
            };
            let told = written();
            drop(send);
            let counted = counter
                .join()
                .map_err(|_| Stop::Error("the line count failed".into()))?;
            let mut counts = counted?;
            counts.told = told?;
            Ok(counts)
        })
    }
}

/// Adds the errors of a batch (`parse`, lowered as `lowered`) to a refusal: how many problems so far, and the
/// first error (the first batch's with one).
fn count_errors(
    refusal: &mut Option<(usize, gedgraft_syntax::Diagnostic)>,
    parse: &Parse,
    lowered: &gedgraft_model::Lowered,
) {
    if let Some((n, first)) = crate::fmt::errors(&lowered.all_diagnostics(parse)) {
        let (count, _) = refusal.get_or_insert_with(|| (0, first.clone()));
        *count += n;
    }
}

/// A batch the line counter holds until the next: its old octets, where its records after the first start in
/// them, its new octets, and the batch itself if the review diff reads its lines.
#[derive(Default)]
struct Pending {
    old: Vec<u8>,
    cuts: Vec<usize>,
    new: Vec<u8>,
    batch: Option<Box<Batch>>,
}

/// What the line counter is sent: a batch and its new octets, then the trailer's octets, which end the last
/// batch's new octets.
enum Counted {
    Batch(Box<Batch>, Vec<u8>),
    Trailer(Vec<u8>),
}

impl Writing {
    /// One batch lowered and written: its new octets; `None` once the file has an error (the one pass goes on
    /// counting them for the refusal) or a batch changed the plan (the one pass goes on planning).
    fn batch(&mut self, file: &File<'_>, parse: &Parse) -> Result<Option<Vec<u8>>, Stop> {
        let (lowered, writer) = match self {
            Writing::Planned(planned) => (planned.lowering.lower(parse), &mut planned.writer),
            Writing::Ended => return Err(Stop::WholeFile),
            Writing::OnePass(one) => {
                let OnePass {
                    lowering,
                    first,
                    refusal,
                } = &mut **one;
                let lowered = lowering.lower(parse);
                let refused = refusal.is_some();
                count_errors(refusal, parse, &lowered);
                if refusal.is_some() {
                    if !refused {
                        // From here on only the errors count: the records' structures need not be kept.
                        let kept = std::mem::replace(
                            lowering,
                            StreamLowering::new(&LowerOptions::default()),
                        );
                        *lowering = kept.diagnostics_only();
                    }
                    return Ok(None);
                }
                let (planner, .., writer) = match first {
                    Some(first) => {
                        first.0.plan(&lowered.dataset);
                        first
                    }
                    None => {
                        let read = lowered.dataset.metadata.dialect;
                        let options = file.write_options(parse);
                        let mut planner = StreamPlanner::new(&options);
                        planner.plan(&lowered.dataset);
                        let writer = planner.writer_so_far().map_err(|_| Stop::WholeFile)?;
                        first.insert((planner, options, read, writer))
                    }
                };
                // Once a batch changed the plan, the rest are planned and not written (see `end`).
                if !planner.still_holds(writer) {
                    return Ok(None);
                }
                (lowered, writer)
            }
        };
        writer
            .write(&lowered.dataset)
            .map(Some)
            .map_err(|_| Stop::WholeFile)
    }

    /// After the last batch: the writer (for the trailer), and what it changed beyond the layout, as lines to
    /// say (`Err` when the options ask for what the dataset cannot be written in: the refusal).
    fn end(&mut self, name: &str) -> Result<(StreamWriter, Vec<String>), Stop> {
        let (writer, report, options, read) = match std::mem::replace(self, Writing::Ended) {
            Writing::Ended => return Err(Stop::WholeFile),
            Writing::Planned(planned) => {
                let report = planned.writer.report().clone();
                (planned.writer, report, planned.write_options, planned.read)
            }
            Writing::OnePass(one) => {
                let OnePass {
                    lowering,
                    first,
                    refusal,
                } = *one;
                // An identifier held twice is an error whose count two passes give.
                if lowering.has_duplicate_identifier() {
                    return Err(Stop::Recount);
                }
                if let Some((count, first)) = refusal {
                    return Err(Stop::Error(crate::fmt::refusal(name, count, &first)));
                }
                let (mut planner, options, read, writer) = first.ok_or(Stop::WholeFile)?;
                if !planner.still_holds(&writer) {
                    let lowering = lowering.into_second_pass();
                    planner.made(&lowering.undefined_records());
                    let writer = planner.finish().map_err(|_| Stop::WholeFile)?;
                    return Err(Stop::TwoPasses(Box::new(Planned {
                        lowering,
                        writer,
                        write_options: options,
                        read,
                    })));
                }
                let report = planner
                    .finish()
                    .map_err(|_| Stop::WholeFile)?
                    .report()
                    .clone();
                (writer, report, options, read)
            }
        };
        let told = what_write_changes(name, &report, &options, read)
            .map_err(|e| Stop::Error(format!("{name}: not formatted: {e}")))?;
        Ok((writer, told))
    }
}

impl Formatted {
    /// Counts the lines a batch changes (its `old` and `new` octets; `last`: the file's last batch), as the
    /// whole-file path counts the file's: lines of octets ending in LF (neither side is UTF-16 nor has a line a
    /// CR ends alone: those take the whole-file path), a batch's octets after its last LF counted with the next
    /// batch's.
    /// The batch's changes when it was diffed record by record (its records and its end after a LF on both
    /// sides, and none of an earlier batch's line left over), which the review diff joins.
    fn count(&mut self, old: &[u8], cuts: &[usize], new: &[u8], last: bool) -> Option<Vec<Change>> {
        self.changed |= old != new;
        // Whole lines on both sides: counted record by record, as the whole-file path counts them.
        let whole_lines = |o: &[u8]| last || o.last() == Some(&b'\n');
        if self.old_tail.is_empty()
            && self.new_tail.is_empty()
            && whole_lines(old)
            && whole_lines(new)
        {
            if let Some((changes, removed, added)) = crate::fmt::record_line_changes(old, cuts, new)
            {
                self.removed += removed;
                self.added += added;
                return Some(changes);
            }
        }
        let mut old_lines = std::mem::take(&mut self.old_tail);
        let mut new_lines = std::mem::take(&mut self.new_tail);
        old_lines.extend_from_slice(old);
        new_lines.extend_from_slice(new);
        if !last {
            let after_lf = |o: &[u8]| o.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            self.old_tail = old_lines.split_off(after_lf(&old_lines));
            self.new_tail = new_lines.split_off(after_lf(&new_lines));
        }
        if old_lines != new_lines {
            let (_, removed, added) = gedgraft_edit::octet_line_changes(&old_lines, &new_lines);
            self.removed += removed;
            self.added += added;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `fmt ARGS… FILE` of `input` through the streamed path: what it did (changed, lines removed and added,
    /// what it says), or `None` when it leaves the file to the whole-file path.
    fn streamed(input: &[u8], args: &[&str]) -> Option<(bool, usize, usize, Vec<String>)> {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("f.ged");
        std::fs::write(&path, input).expect("written");
        let out = dir.path().join("out.ged");
        let (path_arg, out_arg) = (path.to_str().expect("UTF-8"), out.to_str().expect("UTF-8"));
        let all = ["gedgraft", "fmt", path_arg]
            .into_iter()
            .chain(args.iter().map(|a| match *a {
                "OUT" => out_arg,
                a => a,
            }));
        let cli = crate::cli::Cli::parse_from(all);
        let crate::cli::Command::Fmt(args) = cli.command else {
            panic!("not fmt");
        };
        let to = args
            .to_encoding
            .as_deref()
            .map(|e| e.parse().expect("an encoding"));
        let done = fmt_streamed(&path, &args, to, &ParseOptions::default());
        let done = done.unwrap_or_else(|e| panic!("{e}"))?;
        Some((done.changed, done.removed, done.added, done.told))
    }

    const FILE: &[u8] = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n\
        0 @I1@ INDI\n1 NAME Zo\xc3\xab\n1 FAMC @F1@\n0 @F1@ FAM\n1 NOTE a@@b\n2 CONC c\n0 TRLR\n";

    #[test]
    fn a_file_written_or_checked_streams() {
        // `CHAR` moved before `GEDC` (one line out, one in), and the note's `CONC` joined (two out, one in).
        let counts = Some((true, 3, 2, vec![]));
        assert_eq!(streamed(FILE, &["-o", "OUT"]), counts);
        assert_eq!(streamed(FILE, &["--check"]), counts);
        assert_eq!(streamed(FILE, &["--in-place"]), counts);
        // Standard output, through a temporary file.
        assert_eq!(streamed(FILE, &["-o", "-"]), counts);
        // UTF-16 (either side): the whole file is one change, whose lines are counted on the trees, as the
        // review diff shows them: left to the whole-file path.
        let to_utf16 = streamed(FILE, &["-o", "OUT", "--to-encoding", "UTF-16LE"]);
        assert_eq!(to_utf16, None);
        let utf16: Vec<u8> = "\u{feff}0 HEAD\n1 CHAR UNICODE\n0 TRLR\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(streamed(&utf16, &["--check"]), None);
        // ANSEL writes ë decomposed, and says so.
        let ansel = streamed(FILE, &["-o", "OUT", "--to-encoding", "ANSEL"]).expect("streamed");
        assert!(
            ansel.3[0].contains("1 character written decomposed"),
            "{ansel:?}"
        );
    }

    /// `fmt --check` of `input` streamed: its refusal, if it refuses it (and the file's path).
    fn refusal_of(input: &[u8]) -> (Option<String>, String) {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("f.ged");
        std::fs::write(&path, input).expect("written");
        let path_arg = path.to_str().expect("UTF-8");
        let cli = crate::cli::Cli::parse_from(["gedgraft", "fmt", "--check", path_arg]);
        let crate::cli::Command::Fmt(args) = cli.command else {
            panic!("not fmt");
        };
        let refused = fmt_streamed(&path, &args, None, &ParseOptions::default()).err();
        (refused, path_arg.to_string())
    }

    /// A file with errors is refused in the one pass, as the whole-file path refuses it: how many problems, and
    /// the first, on its line.
    #[test]
    fn a_file_with_errors_is_refused_streamed() {
        let jumps = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 @I1@ INDI\n3 NAME x\n\
            0 @I2@ INDI\n3 NAME y\n0 TRLR\n";
        let (refused, path) = refusal_of(jumps);
        let expected = format!("{path}: not formatted: 2 errors (the first on line 6: ");
        assert!(
            refused.as_deref().is_some_and(|e| e.starts_with(&expected)),
            "{refused:?}"
        );
    }

    /// An identifier held twice (`duplicate-xref`, an error) is refused streamed too, its errors counted in two
    /// passes, as `check` counts them (the one pass may take a pointer to it for one to a record).
    #[test]
    fn a_file_with_an_identifier_held_twice_is_refused_streamed() {
        let twice = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 @I1@ INDI\n0 @I1@ INDI\n0 TRLR\n";
        let (refused, path) = refusal_of(twice);
        let expected =
            format!("{path}: not formatted: 1 error (the first on line 6: @I1@ is already");
        assert!(
            refused.as_deref().is_some_and(|e| e.starts_with(&expected)),
            "{refused:?}"
        );
    }

    /// The review diff streams too (#17: it took the whole-file path, 30 s and 1.45 GiB on a 100 MB file),
    /// record by record; a file whose lines end in a CR alone is left to the whole-file path, with `-o` too
    /// (its lines are counted on the trees, as the review diff shows them).
    #[test]
    fn the_review_diff_streams_unless_lines_end_in_cr_alone() {
        assert_eq!(streamed(FILE, &[]), Some((true, 3, 2, vec![])));
        let cr = FILE
            .iter()
            .map(|&o| if o == b'\n' { b'\r' } else { o })
            .collect::<Vec<u8>>();
        assert_eq!(streamed(&cr, &[]), None);
        assert_eq!(streamed(&cr, &["-o", "OUT"]), None);
    }
}
