//! `gedgraft check FILE` in one pass ([`one_pass`](fn@one_pass)), and the batches read again after it when a pointer leads
//! to no record ([`Again`]): see the parent module.

use super::*;
use gedgraft_syntax::stream::ResumePoint;
use std::rc::Rc;

/// The most report [`one_pass`](fn@one_pass) holds before it gives up for two passes (the report of a file with so many
/// diagnostics is written as it goes). Small: what is held adds to the peak of the passes after it (`cargo
/// xtask stress`, `one-code`: 8 MiB took `check --format json` from 73 to 96 MiB on 2 MB).
pub(super) const ONE_PASS_REPORT: usize = 1 << 20;

/// What one pass over a file found ([`one_pass`](fn@one_pass)).
pub(super) enum OnePass {
    /// The report, and whether the file has an error.
    Checked(String, bool),
    /// A pointer met before the identifier it names leads to no record (or to a substructure): the report
    /// from the first batch that has one on is written again ([`Again`]) with the index this pass made.
    Unresolved(Box<Unresolved>),
    /// An identifier held twice (or another diagnostic whose repair needs facts gathered from the whole file):
    /// the pass went on to the end indexing the identifiers, as the first of two passes does, so the second
    /// pass follows at once (#17: `check` of a file with one read it four times).
    Indexed(Box<Indexed<'static>>),
    /// What two passes (or the whole file) have to tell.
    Cannot,
}

/// One pass over a file with a pointer that leads to no record: its lowering (the index complete), the
/// report it held and where each batch's part of it starts.
pub(super) struct Unresolved {
    lowering: StreamLowering,
    detection: Detection,
    report: String,
    marks: Vec<Mark>,
    /// The writer's state at the end of the pass.
    end: State,
}

/// Where one batch of a one-pass report starts ([`one_pass`](fn@one_pass)): in the report, in the file, and the
/// writer's state there (shared with the batch before when the same, as it is after a batch without
/// diagnostics).
struct Mark {
    at: usize,
    point: ResumePoint,
    /// Whether the batch's first diagnostic goes on the run of an earlier batch's.
    continued: bool,
    state: Rc<State>,
}

/// Writes the report of a file after [`one_pass`](fn@one_pass) found pointers that lead to no record
/// ([`OnePass::Unresolved`]): the held report up to the first batch with such a pointer
/// ([`StreamLowering::unresolved_batches`]; or the batch where the run of diagnostics it goes on starts),
/// then the batches from there read again ([`RecordStream::resume`]) and lowered with the complete index,
/// each written anew, until the writer would write the rest as the one pass did (past the last batch with
/// such a pointer, with the same codes shown as often as far as the rest shows them: [`Writer::writes_on_as`]);
/// then the rest of the held report, and the summary with the counts of both. A file with one dangling
/// pointer is parsed once and one batch again, not twice (#17: `check` of the 100 MB sample with one took
/// twice as long as without).
pub(super) struct Again<'a> {
    pub(super) path: &'a Path,
    pub(super) args: &'a CheckArgs,
    pub(super) options: &'a ParseOptions,
    pub(super) human_options: &'a human::Options,
    /// The one pass's batch size.
    pub(super) batch_size: usize,
}

impl Again<'_> {
    /// Writes the report; whether the file has an error, and how many batches were lowered again. `None`,
    /// nothing written, when the file cannot be read again (it changed since: the whole-file path says so).
    pub(super) fn write(
        &self,
        found: Unresolved,
        emit: &mut dyn FnMut(&str) -> Result<(), String>,
    ) -> Result<Option<(bool, usize)>, String> {
        let Unresolved {
            lowering,
            detection,
            report,
            marks,
            end,
        } = found;
        let path = self.path;
        let cannot_read = |e: &dyn std::fmt::Display| input::cannot_read(path, e);
        let span = lowering.unresolved_batches().unwrap_or(0..=0);
        let continued = |n: usize| marks.get(n).is_some_and(|m| m.continued);
        let first = first_again(&span, marks.len(), continued);
        let Some(mark) = marks.get(first) else {
            return Err(cannot_read(&"no batch"));
        };
        // Opened before anything is written: a file that changed since gets no half report.
        let point = (&detection, &mark.point);
        let Ok(stream) = batches_from(path, self.options, self.batch_size, point) else {
            return Ok(None);
        };
        emit(report.get(..mark.at).unwrap_or_default())?;
        let mut lowering = lowering.into_second_pass();
        let mut writer =
            Writer::resumed(self.args.format, self.human_options, &mark.state, first > 0);
        let mut batches = Runs::new(stream);
        let dropper = Dropper::new();
        let (mut at, mut rest) = (first, None);
        while let Some(batch) = batches.next_batch() {
            let batch = batch.map_err(|e| cannot_read(&e))?;
            let past = at as u64 > *span.end();
            if let Some(m) = marks.get(at).filter(|_| past) {
                if writer.writes_on_as(&m.state, &end) {
                    rest = Some(m);
                    break;
                }
            }
            let lowered = lowering.lower(batch.parse());
            let following = batches.following(&batch).map_err(|e| cannot_read(&e))?;
            let run = (&batch, following);
            writer.batch(path, &detection, (run, &lowering), &lowered, emit)?;
            dropper.later((batch, lowered));
            at += 1;
        }
        if let Some(m) = rest {
            writer.send(emit)?;
            emit(report.get(m.at..).unwrap_or_default())?;
            writer.carry(&m.state, &end);
        }
        Ok(Some((writer.finish(path, &detection, emit)?, at - first)))
    }
}

/// One file checked in one pass ([`StreamLowering::one_pass`]), the report held until the end; nothing
/// written. [`OnePass::Cannot`] when one pass cannot tell what two would: a duplicate identifier, a
/// diagnostic whose repair needs the whole file, line breaks counted for the whole file
/// (`lf-cr-line-breaks`, `mixed-line-breaks`), an error with `--strict`, or a report larger than
/// [`ONE_PASS_REPORT`] (each stops the pass where it is found); [`OnePass::Unresolved`] when a pending
/// pointer leads to no record. Most files have none of them: they are parsed once instead of twice. The
/// report is the two passes' (tested). Batches of `batch` octets (unless `GEDGRAFT_BATCH_SIZE` says
/// otherwise).
pub(super) fn one_pass(
    path: &Path,
    args: &CheckArgs,
    options: &ParseOptions,
    human_options: &human::Options,
    batch: usize,
) -> OnePass {
    let Ok(file) = input::open(path) else {
        return OnePass::Cannot;
    };
    let stream = stream_options_sized(options, batch).with_exact_notes(true);
    let Ok(stream) = RecordStream::new(file, stream) else {
        return OnePass::Cannot;
    };
    let detection = stream.detection().clone();
    let mut needs_whole = crate::repair::NeedsWholeFile::new(&detection);
    let mut lowering = StreamLowering::one_pass(&LowerOptions::default()).diagnostics_only();
    let mut file_wide = FileWide::default();
    let mut writer = Writer::new(args.format, human_options);
    let mut facts = gedgraft_edit::FileFacts::default();
    let mut report = String::new();
    let (written, mut marks) = (std::cell::Cell::new(0), Vec::<Mark>::new());
    // Past the limit, the report "fails" to be written: the pass stops.
    let mut hold = |text: &str| {
        report.push_str(text);
        written.set(report.len());
        match report.len() > ONE_PASS_REPORT {
            true => Err(String::new()),
            false => Ok(()),
        }
    };
    let dropper = Dropper::new();
    let mut stream = Runs::new(ahead(stream));
    while let Some(batch) = stream.next_batch() {
        let Ok(batch) = batch else {
            return OnePass::Cannot;
        };
        needs_whole.count(batch.parse());
        file_wide.count(&batch);
        facts.gather_ends(batch.parse());
        if needs_whole.found() || !file_wide.codes().is_empty() {
            return OnePass::Cannot;
        }
        let lowered = lowering.lower(batch.parse());
        let Ok(following) = stream.following(&batch) else {
            return OnePass::Cannot;
        };
        let state = writer.state();
        let state = match marks.last() {
            Some(m) if *m.state == state => Rc::clone(&m.state),
            _ => Rc::new(state),
        };
        marks.push(Mark {
            at: written.get() + writer.unsent().len(),
            point: batch.resume_point().clone(),
            continued: batch.continued_run().is_some(),
            state,
        });
        let run = (&batch, following);
        let written = writer.batch(path, &detection, (run, &lowering), &lowered, &mut hold);
        dropper.later((batch, lowered));
        if written.is_err() || (args.strict && writer.any_error) {
            return OnePass::Cannot;
        }
        if lowering.has_duplicate_identifier() || needs_whole.gathered() {
            // `--strict` looks for errors in its first pass (a file with one takes the whole-file path).
            if args.strict {
                return OnePass::Cannot;
            }
            // The rest is indexed as the first of two passes indexes it.
            drop(dropper);
            let gathered = Gathered {
                lowering,
                file_wide,
                needs_whole,
                facts,
            };
            return index_the_rest(stream, gathered, detection, || open_batches(path, options));
        }
    }
    if lowering.has_unresolved() {
        let end = writer.state();
        report.push_str(writer.unsent());
        let found = Unresolved {
            lowering,
            detection,
            report,
            marks,
            end,
        };
        return OnePass::Unresolved(Box::new(found));
    }
    match writer.finish(path, &detection, &mut hold) {
        Ok(any_error) => OnePass::Checked(report, any_error),
        Err(_) => OnePass::Cannot,
    }
}

/// After [`one_pass`](fn@one_pass) met an identifier held twice (or a diagnostic whose repair needs facts of
/// the whole file) in a batch it lowered: the batches after it indexed as [`index_pass`] indexes them, and
/// the lowering made that of a second pass over the whole file ([`StreamLowering::into_second_pass`]); the
/// second pass reads the file from `open`. [`OnePass::Cannot`] when a batch cannot be read or a diagnostic
/// needs the whole file after all.
fn index_the_rest<I: Iterator<Item = Result<Batch, StreamError>>>(
    mut stream: Runs<I>,
    mut gathered: Gathered,
    detection: Detection,
    open: impl FnOnce() -> Option<Batches<'static>>,
) -> OnePass {
    let dropper = Dropper::new();
    while let Some(batch) = stream.next_batch() {
        let Ok(batch) = batch else {
            return OnePass::Cannot;
        };
        gathered.index(&batch, false);
        dropper.later(batch);
    }
    drop(dropper);
    let Some(batches) = open() else {
        return OnePass::Cannot;
    };
    gathered.lowering = gathered.lowering.into_second_pass();
    OnePass::Indexed(Box::new(
        gathered.into_indexed(detection, Box::new(batches)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// The options of `check FILE ARGS…`, and the human report's without colours.
    fn check_args(path: &Path, args: &[&str]) -> (CheckArgs, human::Options) {
        let path_arg = path.to_str().expect("a UTF-8 path");
        let cli = crate::cli::Cli::parse_from(["gedgraft", "check", path_arg].iter().chain(args));
        let crate::cli::Command::Check(args) = cli.command else {
            panic!("not check");
        };
        let human = human::Options {
            no_warnings: args.no_warnings,
            all: args.all,
            palette: crate::style::Palette::new(false),
        };
        (args, human)
    }

    /// `check FILE ARGS…` of `input` in one pass, in batches of one record: the report, `unresolved` when
    /// the second pass follows, or `None` when it takes two passes. (`tests/streaming.rs` compares the reports of both with the whole file's.)
    fn in_one_pass(input: &str, args: &[&str]) -> Option<String> {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("f.ged");
        std::fs::write(&path, input).expect("written");
        let (args, human) = check_args(&path, args);
        match one_pass(&path, &args, &ParseOptions::default(), &human, 1) {
            OnePass::Checked(report, _) => Some(report),
            OnePass::Unresolved(..) => Some("unresolved".into()),
            OnePass::Indexed(..) | OnePass::Cannot => None,
        }
    }

    /// An identifier held twice: the one pass indexes the rest of the file as a first pass would and hands over
    /// to the second pass (it read the file four times: the one pass up to the duplicate, an index pass, the
    /// pass that gathers the duplicates, the second pass); `--strict` still takes two passes from the start.
    /// The reports are the whole file's (`duplicate_identifiers_are_repaired_streamed_as_whole`).
    #[test]
    fn a_duplicate_identifier_hands_the_index_to_the_second_pass() {
        let file = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n0 @F1@ FAM\n1 HUSB @I1@\n0 @I1@ INDI\n0 @I2@ INDI\n0 TRLR\n";
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("f.ged");
        std::fs::write(&path, file).expect("written");
        for (args, indexed) in [(&[][..], true), (&["--strict"][..], false)] {
            let (args, human) = check_args(&path, args);
            let found = one_pass(&path, &args, &ParseOptions::default(), &human, 1);
            let OnePass::Indexed(found) = found else {
                assert!(!indexed, "not indexed");
                continue;
            };
            assert!(indexed, "indexed with --strict");
            assert!(found.lowering.has_duplicate_identifier());
            assert_eq!(found.lowering.holder_count("I1"), 2);
            assert_eq!(
                found.lowering.holder_count("I2"),
                1,
                "the batches after the duplicate are indexed"
            );
        }
    }

    #[test]
    fn pointers_to_later_records_are_checked_in_one_pass() {
        let file = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @I1@ INDI\n1 FAMS @F1@\n\
                    0 @F1@ FAM\n1 HUSB @I1@\n0 TRLR\n";
        let report = in_one_pass(file, &[]).expect("one pass");
        assert!(
            report.ends_with("0 errors, 0 warnings (encoding UTF-8)\n"),
            "{report}"
        );
        let json = in_one_pass(file, &["--format", "json"]).expect("one pass");
        assert!(json.contains("\"diagnostics\":[]"), "{json}");
        // A pointer to a substructure met before it is known in one pass.
        let file = file.replace(
            "1 HUSB @I1@",
            "1 HUSB @I1@\n1 @N1@ NOTE x\n0 @I2@ INDI\n1 FAMC @N1@",
        );
        let report = in_one_pass(&file, &[]).expect("one pass");
        assert!(report.contains("--> "), "{report}");
        assert!(
            report.ends_with("0 errors, 1 warning (encoding UTF-8)\n"),
            "{report}"
        );
    }

    /// A pointer that leads to no record (R-POINTER-CONV-10) is reported by lowering again the batch that holds
    /// it and the batches after it only as long as the report differs (#17): one in a file of a record a batch;
    /// up to a later pointer to the same substructure (R-POINTER-CONV-12), which the one pass showed as the
    /// first of its code (with its `= help:` and `= note:` lines) and which is the second now; all from the
    /// first to the last with one when they are spread.
    #[test]
    fn only_the_batches_with_a_pointer_that_leads_nowhere_are_read_again() {
        let dir = tempfile::tempdir().expect("a directory");
        let head = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";
        let again = |name: &str, lines: &[(usize, &str)]| {
            let mut text = head.to_string();
            for i in 0..12 {
                text.push_str(&format!("0 @I{i}@ INDI\n"));
                for (_, line) in lines.iter().filter(|(k, _)| *k == i) {
                    text.push_str(line);
                    text.push('\n');
                }
            }
            text.push_str("0 TRLR\n");
            let path = dir.path().join(name);
            std::fs::write(&path, &text).expect("written");
            let (written, report) = unresolved_written_again(&path, |_| ());
            let (_, read) = written.expect("read again");
            (report, read)
        };
        let (report, read) = again("one.ged", &[(6, "1 ASSO @NOWHERE@")]);
        assert_eq!(read, 1, "{report}");
        assert!(report.contains(":13:8 (byte "), "{report}");
        assert!(
            report.ends_with("0 errors, 1 warning (encoding UTF-8)\n"),
            "{report}"
        );
        let substructure = [
            (3, "1 ASSO @S@"),
            (5, "1 EVEN\n2 @S@ NOTE x"),
            (6, "1 ASSO @S@"),
        ];
        let (report, read) = again("substructure.ged", &substructure);
        assert_eq!(read, 4, "{report}");
        assert_eq!(
            report.matches("[pointer-to-substructure]").count(),
            2,
            "{report}"
        );
        assert_eq!(
            report.matches("explain pointer-to-substructure").count(),
            1,
            "{report}"
        );
        let (report, read) = again("spread.ged", &[(2, "1 ASSO @X1@"), (9, "1 ASSO @X2@")]);
        assert_eq!(read, 8, "{report}");
        assert!(
            report.ends_with("0 errors, 2 warnings (encoding UTF-8)\n"),
            "{report}"
        );
    }

    /// A file that changed after the one pass cannot be read again: nothing of its report is written (the
    /// whole-file path then says it changed, and the next files are checked), where the held part was
    /// written before the file was opened again and the command stopped half-way (found by a session's
    /// helper).
    #[test]
    fn a_file_changed_before_it_is_read_again_gets_no_half_report() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("f.ged");
        let head = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";
        let text = format!("{head}0 @I1@ INDI\n1 NOTE a@b\n0 @I2@ INDI\n1 ASSO @X@\n0 TRLR\n");
        std::fs::write(&path, &text).expect("written");
        let change = |path: &Path| {
            std::fs::write(path, format!("{text}0 @I3@ INDI\n")).expect("written again");
        };
        assert_eq!(
            unresolved_written_again(&path, change),
            (None, String::new())
        );
    }

    /// `check FILE` of a file with a pointer that leads nowhere, in one pass in batches of one record, then
    /// `between` done to the file, then its report written again ([`Again::write`]): what that gives, and the
    /// report.
    fn unresolved_written_again(
        path: &Path,
        between: impl FnOnce(&Path),
    ) -> (Option<(bool, usize)>, String) {
        let (args, human) = check_args(path, &[]);
        let options = ParseOptions::default();
        let OnePass::Unresolved(found) = one_pass(path, &args, &options, &human, 1) else {
            panic!("{}: not unresolved", path.display());
        };
        between(path);
        let again = Again {
            path,
            args: &args,
            options: &options,
            human_options: &human,
            batch_size: 1,
        };
        let mut report = String::new();
        let mut emit = |text: &str| {
            report.push_str(text);
            Ok(())
        };
        let written = again.write(*found, &mut emit).expect("written");
        (written, report)
    }

    #[test]
    fn what_one_pass_cannot_tell_takes_two() {
        let head = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";
        // A pointer met before its identifier that leads to no record (R-POINTER-CONV-10).
        // Its index is complete: the second pass follows.
        let undefined = format!("{head}0 @I1@ INDI\n1 FAMS @F9@\n0 @F1@ FAM\n0 TRLR\n");
        let unresolved = Some("unresolved".to_string());
        assert_eq!(in_one_pass(&undefined, &[]), unresolved);
        // … or to a substructure.
        let inner = format!("{head}0 @I1@ INDI\n1 FAMS @N1@\n0 @F1@ FAM\n1 @N1@ NOTE x\n0 TRLR\n");
        assert_eq!(in_one_pass(&inner, &[]), unresolved);
        // An identifier held twice (`duplicate-xref`: the one pass cannot tell a pointer to it from one to a record).
        let twice = format!("{head}0 @I1@ INDI\n0 @I1@ INDI\n0 TRLR\n");
        assert_eq!(in_one_pass(&twice, &[]), None);
        // A record after a trailer (whether a later trailer ends the file: R-TAGGED-STRUCTS-03).
        let after = format!("{head}0 @I1@ INDI\n0 TRLR\n0 @I2@ INDI\n0 TRLR\n");
        assert_eq!(in_one_pass(&after, &[]), None);
        // Line breaks counted for the whole file.
        let mixed = format!("{head}0 @I1@ INDI\r\n0 TRLR\n");
        assert_eq!(in_one_pass(&mixed, &[]), None);
        // `--strict` on a file with an error.
        let error = format!("{head}0 @I1@ INDI\nx y\n0 TRLR\n");
        assert!(in_one_pass(&error, &[]).is_some());
        assert_eq!(in_one_pass(&error, &["--strict"]), None);
        // A pointer back to an earlier record, or to an undefined one met after it is known not to be: one pass.
        let back = format!("{head}0 @F1@ FAM\n0 @I1@ INDI\n1 FAMS @F1@\n0 TRLR\n");
        assert!(in_one_pass(&back, &[]).is_some());
    }
}
