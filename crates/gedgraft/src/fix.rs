//! `gedgraft fix`: batched, local edits of files through the syntax tree (the ELF editor).
//!
//! The edits run in stages, each a batch of [`gedgraft_edit::Editor`] applied to the previous stage's result:
//! deletions, payloads, tag renames, `@` escaping, re-wrapping, and last line breaks and transcoding. Staging
//! lets, for example, a rename of every `NOTE` and the deletion of one `NOTE` be asked for together (in one
//! batch they would overlap). The changes of the stages are composed, so the diff and the summary compare the
//! input with the final output.
//!
//! Cost: every stage but the last is parsed for the next; the last stage's output is never parsed
//! ([`Editor::apply_lazily`]): its octets are written as they are, and the summary only counts changed lines
//! (the whole diff is made in diff mode only).

use crate::cli::FixArgs;
use crate::stream_fix::Reading;
use crate::{input, output};
use gedgraft_edit::{
    check_replaceable, compose_changes, quote_path, Change, EditError, Edited, Editor, LineBreak,
    LineDiff, NewPayload, RawOctets, Scope, StreamedPatch,
};
use gedgraft_syntax::encoding::Encoding;
use gedgraft_syntax::lexical::strip_ats;
use gedgraft_syntax::stream::{RecordStream, StreamError};
use gedgraft_syntax::Parse;
use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

/// The line-break forms of `--eol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Eol {
    /// LF, as on Unix.
    Lf,
    /// CR LF, as on Windows.
    Crlf,
    /// CR, as on classic Mac OS.
    Cr,
}

/// One batch of edits.
pub(crate) enum Stage {
    /// `--from-dataset`: the edits that give this dataset (`from_dataset.rs`), in two passes (the first
    /// leaves edits that overlap others, such as a change inside a moved structure, to the last).
    FromDataset {
        dataset: std::sync::Arc<gedgraft_model::Dataset>,
        last: bool,
    },
    Delete(Vec<Scope>),
    Set(Vec<(Scope, SetValue)>),
    Rename(Vec<(String, String)>),
    EscapeAt,
    /// Re-wrapping: the limit, whether to split long lines (`--rewrap`), whether to join needless `CONC`
    /// splits (`--join-conc`).
    Rewrap {
        limit: Option<usize>,
        split: bool,
        join: bool,
    },
    Whole {
        eol: Option<(LineBreak, bool)>,
        encoding: Option<(Encoding, RawOctets)>,
    },
}

/// What `--set`, `--set-pointer` and `--set-xref` put on a structure.
pub(crate) enum SetValue {
    /// A string payload.
    Text(String),
    /// A pointer payload to this identifier (without `@`s).
    Pointer(String),
    /// This cross-reference identifier (without `@`s), or none; pointers to the old one follow.
    Xref(Option<String>),
}

/// The checked options: what to do to every file.
pub(crate) struct Plan {
    pub(crate) stages: Vec<Stage>,
    pub(crate) scope: Option<Scope>,
    /// The repairs to apply first (`--repair`, `--repair-unsafe`), see [`crate::repair`].
    pub(crate) repair: Option<crate::repair::Which>,
}

fn scope(path: &str, option: &str) -> Result<Scope, String> {
    Scope::parse(path).map_err(|e| format!("{option}: {e}"))
}

/// Splits `A=B` at the first `=`; when `A` starts with an `@ID@` segment, at the first `=` after it (an
/// identifier may itself hold `=`).
fn split_pair<'a>(value: &'a str, option: &str, shape: &str) -> Result<(&'a str, &'a str), String> {
    let skip = match value.strip_prefix('@') {
        Some(rest) => rest.find('@').map_or(0, |i| i + 2),
        None => 0,
    };
    value
        .get(skip..)
        .and_then(|rest| rest.find('='))
        .map(|i| (&value[..skip + i], &value[skip + i + 1..]))
        .ok_or_else(|| format!("{option} `{value}`: expected {shape}"))
}

impl Plan {
    /// Checks every option value before any file is read (exit status 2 on a bad value).
    pub(crate) fn new(args: &FixArgs) -> Result<Plan, String> {
        // Edit arguments are checked by a throwaway editor, so that the messages are the library's.
        let probe = gedgraft_syntax::parse(b"0 HEAD\n0 TRLR\n");
        let mut stages = Vec::new();
        if let Some(path) = &args.from_dataset {
            if args.files.len() != 1 {
                return Err("--from-dataset takes exactly one input file".into());
            }
            let dataset = std::sync::Arc::new(crate::from_dataset::read(path)?);
            for last in [false, true] {
                let dataset = std::sync::Arc::clone(&dataset);
                stages.push(Stage::FromDataset { dataset, last });
            }
        }
        let scope_arg = args
            .select
            .as_deref()
            .map(|p| scope(p, "--select"))
            .transpose()?;
        if !args.delete.is_empty() {
            let paths = args
                .delete
                .iter()
                .map(|p| scope(p, "--delete"))
                .collect::<Result<_, _>>()?;
            stages.push(Stage::Delete(paths));
        }
        let mut sets = Vec::new();
        for s in &args.set {
            let (path, value) = split_pair(s, "--set", "PATH=VALUE")?;
            sets.push((scope(path, "--set")?, SetValue::Text(value.to_string())));
        }
        for s in &args.set_pointer {
            let (path, id) = split_pair(s, "--set-pointer", "PATH=ID")?;
            let id = strip_ats(id).to_string();
            sets.push((scope(path, "--set-pointer")?, SetValue::Pointer(id)));
        }
        for s in &args.set_xref {
            let (path, id) = split_pair(s, "--set-xref", "PATH=ID")?;
            let id = Some(strip_ats(id).to_string()).filter(|i| !i.is_empty());
            sets.push((scope(path, "--set-xref")?, SetValue::Xref(id)));
        }
        if !sets.is_empty() {
            stages.push(Stage::Set(sets));
        }
        if !args.rename_tag.is_empty() {
            let mut renames = Vec::new();
            for r in &args.rename_tag {
                let (old, new) = split_pair(r, "--rename-tag", "OLD=NEW")?;
                Editor::new(&probe)
                    .rename_tag(old, new, None)
                    .map_err(|e| format!("--rename-tag {r}: {e}"))?;
                renames.push((old.to_string(), new.to_string()));
            }
            stages.push(Stage::Rename(renames));
        }
        if args.escape_at {
            stages.push(Stage::EscapeAt);
        }
        let rewrap = match (args.rewrap, args.join_conc) {
            (None, false) => None,
            (limit, join) => {
                let limit = limit.flatten().map(|n| n as usize);
                if let Some(n) = limit {
                    Editor::new(&probe)
                        .set_line_limit(n)
                        .map_err(|e| format!("--rewrap={n}: {e}"))?;
                }
                // Both: the splits are made, then the joins on what they made, a stage each (made in one
                // batch, a join and a split of one payload overlapped: found by a helper).
                let split = args.rewrap.is_some();
                let both = split && join;
                let stage = |split, join| Stage::Rewrap { limit, split, join };
                Some(match both {
                    true => vec![stage(true, false), stage(false, true)],
                    false => vec![stage(split, join)],
                })
            }
        };
        let eol = args.eol.map(|e| match e {
            Eol::Lf => LineBreak::Lf,
            Eol::Crlf => LineBreak::CrLf,
            Eol::Cr => LineBreak::Cr,
        });
        let encoding = match args.to_encoding.as_deref() {
            None => None,
            Some(name) => {
                let e: Encoding =
                    name.parse()
                        .map_err(|e: gedgraft_syntax::encoding::UnknownEncoding| {
                            format!("--to-encoding: {e}")
                        })?;
                let raw = if args.replace_raw {
                    RawOctets::Replace
                } else {
                    RawOctets::Refuse
                };
                Some((e, raw))
            }
        };
        // A file has one encoding, declared once in its header, and one line-break convention: converting part
        // of it would mislabel the rest (records transcoded under the old `CHAR`).
        let whole = [
            (eol.is_some(), "--eol"),
            (encoding.is_some(), "--to-encoding"),
        ];
        if let Some((_, option)) = whole
            .iter()
            .find(|(given, _)| *given && scope_arg.is_some())
        {
            return Err(format!(
                "{option} converts the whole file (its header included) and cannot be limited with --select: \
                 run it in a command of its own, before or after the edits --select limits"
            ));
        }
        if eol.is_some() || encoding.is_some() {
            stages.push(Stage::Whole {
                eol: eol.map(|e| (e, args.join_lf_cr)),
                encoding,
            });
        }
        // Last: line lengths are those of the final encoding and line breaks (a transcode can turn one
        // character into a six-octet `@#U…@` escape).
        stages.extend(rewrap.into_iter().flatten());
        Ok(Plan {
            stages,
            scope: scope_arg,
            repair: crate::repair::Which::of(args)?,
        })
    }
}

/// An edit's error as the user reads it, with what to do on the command line where that helps.
fn edit_error(e: EditError) -> String {
    match &e {
        EditError::RawOctets { .. } => format!("{e} (--replace-raw)"),
        _ => e.to_string(),
    }
}

/// Whether `s` lies inside (or is) a structure the scope picks.
pub(crate) fn in_scope(scope: Option<&Scope>, s: &gedgraft_syntax::ast::Structure) -> bool {
    let Some(scope) = scope else { return true };
    std::iter::successors(Some(s.clone()), |x| x.parent()).any(|x| scope.matches(&x))
}

/// Adds one stage's edits to an editor.
fn add_stage(editor: &mut Editor, stage: &Stage, scope: Option<&Scope>) -> Result<(), String> {
    // Values no structure of the file can take are refused whether anything is picked or not: streamed, in
    // the first batch, before any output (a `-o -` printed the batches before the one that picked).
    if let Stage::Set(sets) = stage {
        for (_, value) in sets {
            match value {
                SetValue::Text(text) => editor.check_new(&NewPayload::Text(text.clone()), None),
                SetValue::Pointer(id) => editor.check_new(&NewPayload::Pointer(id.clone()), None),
                SetValue::Xref(id) => editor.check_new(&NewPayload::None, id.as_deref()),
            }
            .map_err(edit_error)?;
        }
    }
    if let Some(s) = scope {
        if editor.select(s).is_empty() {
            return Ok(());
        }
    }
    match stage {
        Stage::FromDataset { dataset, last } => {
            crate::from_dataset::add_edits(editor, dataset, *last)?
        }
        Stage::Delete(paths) => {
            for path in paths {
                for s in editor.select(path) {
                    if in_scope(scope, &s) {
                        editor.delete(&s).map_err(edit_error)?;
                    }
                }
            }
        }
        Stage::Set(sets) => {
            for (path, value) in sets {
                for s in editor.select(path) {
                    if in_scope(scope, &s) {
                        match value {
                            SetValue::Text(text) => editor.set_payload(&s, text),
                            SetValue::Pointer(id) => editor.set_pointer(&s, id),
                            SetValue::Xref(id) => editor.set_xref(&s, id.as_deref()),
                        }
                        .map_err(edit_error)?;
                    }
                }
            }
        }
        Stage::Rename(renames) => {
            for (old, new) in renames {
                editor.rename_tag(old, new, scope).map_err(edit_error)?;
            }
        }
        Stage::EscapeAt => {
            editor.escape_at_signs(scope);
        }
        Stage::Rewrap { limit, split, join } => {
            if *split {
                editor.rewrap(*limit, scope).map_err(edit_error)?;
            }
            if *join {
                editor.join_conc(*limit, scope).map_err(edit_error)?;
            }
        }
        Stage::Whole { eol, encoding } => {
            if let Some((to, join)) = eol {
                editor.convert_line_breaks(
                    *to,
                    if *join {
                        gedgraft_edit::LfCr::OneBreak
                    } else {
                        gedgraft_edit::LfCr::TwoBreaks
                    },
                );
            }
            if let Some((to, raw)) = encoding {
                editor.transcode(*to, *raw);
            }
        }
    }
    Ok(())
}

/// What the stages did so far to one file.
#[derive(Default)]
struct Tally {
    changes: Option<Vec<Change>>,
    edits: usize,
    warnings: Vec<String>,
    seen: std::collections::HashSet<String>,
}

impl Tally {
    fn add(&mut self, edited: &Edited) {
        self.edits += edited.change_count();
        for w in edited.warnings() {
            let w = w.to_string();
            if self.seen.insert(w.clone()) {
                self.warnings.push(w);
            }
        }
        self.changes = Some(match self.changes.take() {
            None => edited.changed_ranges().to_vec(),
            Some(before) => compose_changes(&before, edited.changed_ranges()),
        });
    }
}

/// Applies one stage to `parse`. The new file is not parsed: the next stage, if any, asks for it.
pub(crate) fn run_stage<'p>(
    parse: &'p Parse,
    stage: &Stage,
    plan: &Plan,
) -> Result<Edited<'p>, String> {
    run_stage_of_batch(parse, stage, plan, (false, &[]))
}

/// [`run_stage`] on a batch of a streamed file, `later` if it is not the first ([`Editor::later_batch`]), its
/// pointers following the identifiers `follow` (old, new) that other batches change
/// ([`Editor::follow_identifier`]).
pub(crate) fn run_stage_of_batch<'p>(
    parse: &'p Parse,
    stage: &Stage,
    plan: &Plan,
    (later, follow): (bool, &[(&str, &str)]),
) -> Result<Edited<'p>, String> {
    let mut editor = Editor::new(parse);
    if later {
        editor.later_batch();
    }
    for (old, new) in follow {
        editor.follow_identifier(old, new);
    }
    add_stage(&mut editor, stage, plan.scope.as_ref())?;
    editor.apply_lazily().map_err(edit_error)
}

/// The file after every stage: the last stage's output when it changed something, else the file it was given.
enum Final<'a, 'p> {
    Edited(&'a Edited<'p>),
    Parsed(&'a Parse),
}

/// Runs `fix` over every file.
pub fn run(args: &FixArgs) -> Result<ExitCode, String> {
    let plan = Plan::new(args)?;
    if args.output.is_some() && args.files.len() != 1 {
        return Err("-o/--output takes exactly one input file".into());
    }
    if plan.stages.is_empty()
        && plan.repair.is_none()
        && args.output.is_none()
        && !args.in_place
        && !args.check
    {
        return Err(
            "nothing to do: give an edit option (--from-dataset, --repair, --rename-tag, --set, --set-pointer, --set-xref, --delete, --escape-at, --rewrap, --join-conc, --eol, \
             --to-encoding) or -o OUT to write a file back through the tree"
                .into(),
        );
    }
    if args.in_place {
        crate::output::check_in_place_files(&args.files, args.backup.as_deref())?;
    }
    let options = input::options(&args.input)?;
    let progress = std::io::stderr().is_terminal() && args.files.len() >= 10;
    let total = args.files.len();
    let (mut failed, mut would_change) = (false, false);
    let mut stdout = std::io::stdout().lock();
    for (i, path) in args.files.iter().enumerate() {
        if progress {
            crate::output::to_stderr(format_args!(
                "\r\x1b[2K[{}/{total}] {}",
                i + 1,
                crate::output::shown_path(path)
            ));
        }
        let clear = || {
            if progress {
                crate::output::to_stderr(format_args!("\r\x1b[2K"));
            }
        };
        // A file changed while it was read: what was said of it (the review diff, `-o -`) may tell two
        // versions of it (a file written from it is not made: `output::replace_file`). Standard output the
        // file itself: it was read whole before anything was written, and checked then.
        let fixed = match args.reviews() {
            true => output::refuse_later_input_as_output(path, i),
            false => Ok(()),
        };
        let fixed = fixed.and_then(|()| fix_file(path, args, &plan, &options, &mut stdout));
        let fixed = fixed.and_then(|report| match output::stdout_is(path) {
            true => Ok(report),
            false => input::unchanged(path).map(|()| report),
        });
        match fixed {
            Ok(report) => {
                would_change |= report.changed;
                if !report.lines.is_empty() {
                    clear();
                }
                for line in report.lines {
                    crate::output::say(&line);
                }
            }
            Err(e) => {
                clear();
                failed = true;
                crate::output::error(&e);
            }
        }
    }
    if progress {
        crate::output::to_stderr(format_args!("\r\x1b[2K"));
    }
    let _ = stdout.flush();
    Ok(crate::output::exit_status(
        failed,
        args.check && would_change,
    ))
}

/// What to tell the user about one file.
pub(crate) struct Report {
    pub(crate) changed: bool,
    pub(crate) lines: Vec<String>,
}

fn fix_file(
    path: &Path,
    args: &FixArgs,
    plan: &Plan,
    options: &gedgraft_syntax::ParseOptions,
    stdout: &mut impl Write,
) -> Result<Report, String> {
    let name = path.display().to_string();
    if args.in_place && input::is_stdin(path) {
        return Err(
            "cannot edit standard input (`-`) in place: write the result with -o OUT or -o -"
                .into(),
        );
    }
    if args.in_place {
        // Before reading: a FIFO would wait for a writer, and would then be replaced by a regular file.
        check_replaceable(path).map_err(|e| format!("cannot edit {name} in place: {e}"))?;
    }
    // Not when standard output is the file itself (`fix F -o - >> F`): the stream would read what it writes
    // (and a large file grow without end); the whole-file path reads it before it writes.
    if let Reading::Streamed(repairs) = crate::stream_fix::streams_file(path, args, plan, options)?
    {
        let plan = (plan, repairs);
        if let Some(report) = crate::stream_fix::fix_streamed(path, args, plan, options, stdout)? {
            return Ok(report);
        }
    }
    // The repairs alone, written, checked or reviewed: their passes stream, and the octets are counted, diffed
    // and written as they are, with no tree of the whole file (#12; `GEDGRAFT_WHOLE_FILE` takes the whole-file
    // path, for tests).
    let diff_mode = args.reviews();
    let alone = plan.stages.is_empty() && !crate::stream_fix::whole_file_forced();
    if let Some(which) = plan.repair.as_ref().filter(|_| alone) {
        if let Some(report) = repairs_alone(path, args, which, options, stdout)? {
            return Ok(report);
        }
    }
    let loaded = input::load_with(path, options)?;
    let original = &loaded.parse;
    let not_gedcom =
        (original.diagnostics().iter()).any(|d| d.code == gedgraft_syntax::codes::NOT_GEDCOM);
    // Every stage but the last is parsed for the next one; the last one's output is only written and compared.
    let mut tally = Tally::default();
    let mut current: Option<Parse> = None;
    let mut notes = Vec::new();
    if let Some(which) = &plan.repair {
        if let Some(r) = crate::repair::repair_file(original, which, options, &name, &mut notes)? {
            tally.edits += r.applied;
            tally.changes = Some(r.changes);
            current = Some(r.parse);
        }
    }
    let (last_stage, earlier) = match plan.stages.split_last() {
        Some((last, earlier)) => (Some(last), earlier),
        None => (None, &plan.stages[..]),
    };
    for stage in earlier {
        let parse = current.as_ref().unwrap_or(original);
        let edited = run_stage(parse, stage, plan).map_err(|e| format!("{name}: {e}"))?;
        tally.add(&edited);
        if edited.is_changed() {
            current = Some(edited.into_parse());
        }
    }
    let base = current.as_ref().unwrap_or(original);
    let last = match last_stage {
        Some(stage) => {
            let edited = run_stage(base, stage, plan).map_err(|e| format!("{name}: {e}"))?;
            tally.add(&edited);
            Some(edited)
        }
        None => None,
    };
    let new = match &last {
        Some(edited) if edited.is_changed() => Final::Edited(edited),
        _ => Final::Parsed(base),
    };
    let changes = tally.changes.take().unwrap_or_default();
    let changed = !changes.is_empty();
    let mut lines: Vec<String> = tally
        .warnings
        .iter()
        .map(|w| format!("{name}: warning: {w}"))
        .chain(notes)
        .chain(not_gedcom.then(|| {
            let edited = if changed {
                ""
            } else {
                "; nothing in it was edited"
            };
            format!("{name}: warning: not a GEDCOM file (`gedgraft check` says why){edited}")
        }))
        .collect();
    // The whole diff is only printed in diff mode; the summary needs only how many lines changed.
    let diff = (diff_mode && changed).then(|| match new {
        Final::Edited(edited) => edited.line_diff_from(original, &changes),
        Final::Parsed(parse) => LineDiff::new(original, parse, &changes),
    });
    let counts = match &diff {
        Some(d) => Some((d.removed(), d.added())),
        None if args.quiet => None,
        None => Some(match new {
            Final::Edited(edited) => edited.line_counts_from(original, &changes),
            Final::Parsed(parse) => LineDiff::counts(original, parse, &changes),
        }),
    };
    let octets = || -> Result<Cow<'_, [u8]>, String> {
        Ok(match new {
            Final::Edited(edited) => Cow::Borrowed(edited.bytes()),
            Final::Parsed(parse) => {
                Cow::Owned(parse.to_bytes().map_err(|e| format!("{name}: {e}"))?)
            }
        })
    };
    if args.output.is_some() || args.in_place {
        write_out(path, args, changed, octets, stdout)?;
    } else if let Some(diff) = &diff {
        let text = if args.patch {
            octets_patch(&name, original, &new, &changes, diff.encodings())?
        } else {
            review_diff(&name, diff).into_bytes()
        };
        output::write_stdout(stdout, &text)?;
    }
    lines.extend(summary(&name, args, changed, tally.edits, counts));
    Ok(Report { changed, lines })
}

/// Copies the file at `path` as it is to `out` (`-o`: a file written atomically, or a standard stream), as it
/// reads: a file of any size in a buffer's memory.
fn copy_out(path: &Path, out: &Path, stdout: &mut impl Write) -> Result<(), String> {
    let mut from = input::open(path)?;
    let mut buffer = vec![0; 1 << 20];
    // The length of the next piece read into `buffer`, 0 at the end.
    let mut next = |buffer: &mut [u8]| loop {
        match std::io::Read::read(&mut from, buffer) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            read => return read.map_err(|e| input::cannot_read(path, e)),
        }
    };
    if let Some(stream) = output::stream_named(out) {
        loop {
            let n = next(&mut buffer)?;
            if n == 0 {
                return Ok(());
            }
            output::write_stream(stream, buffer.get(..n).unwrap_or_default(), stdout)?;
        }
    }
    let mut read_failed = None;
    let written = output::replace_file((out, path), None, |w| loop {
        match next(&mut buffer) {
            Ok(0) => return Ok(()),
            Ok(n) => w.write_all(buffer.get(..n).unwrap_or_default())?,
            Err(e) => {
                read_failed = Some(e);
                // Not renamed into place: the copy is incomplete.
                return Err(std::io::Error::other("read failed"));
            }
        }
    });
    match read_failed {
        Some(e) => Err(e),
        None => written.map_err(|e| output::write_error(&out.display().to_string(), &e)),
    }
}

/// Writes a file's new octets where `-o` or `--in-place` says (in place only when they changed).
fn write_out<'o>(
    path: &Path,
    args: &FixArgs,
    changed: bool,
    octets: impl Fn() -> Result<Cow<'o, [u8]>, String>,
    stdout: &mut impl Write,
) -> Result<(), String> {
    let write = |to: &Path, backup: Option<&str>| -> Result<(), String> {
        let octets = octets()?;
        output::replace_file((to, path), backup, |w| w.write_all(&octets))
            .map_err(|e| output::write_error(&to.display().to_string(), &e))
    };
    if let Some(out) = &args.output {
        match output::stream_named(out) {
            Some(stream) => output::write_stream(stream, &octets()?, stdout)?,
            None => write(out, None)?,
        }
    } else if args.in_place && changed {
        write(path, args.backup.as_deref())?;
    }
    Ok(())
}

/// The summary line of a file (`f.ged: changed: 3 edits, -2 +2 lines`), unless `--quiet`.
pub(crate) fn summary(
    name: &str,
    args: &FixArgs,
    changed: bool,
    edits: usize,
    counts: Option<(usize, usize)>,
) -> Option<String> {
    let (removed, added) = counts.filter(|_| !args.quiet)?;
    let verb = if args.check || (args.output.is_none() && !args.in_place) {
        "would change"
    } else {
        "changed"
    };
    Some(crate::words::fix_summary(
        name,
        verb,
        changed,
        edits,
        (removed, added),
    ))
}

/// `fix` with repairs and no other edit, written (`-o`, `--in-place`), checked (`--check`) or reviewed (the
/// review diff, `--patch`): the repairs' passes stream ([`crate::repair::repair_octets`]), the lines are
/// counted, diffed or patched batch by batch ([`LineDiff::counts_of_octets`], [`LineDiff::of_octets`],
/// [`StreamedPatch::of_octets`]) and the octets are written as they are; `None` for a patch only the whole
/// file can make (nothing written yet). Memory: the old and the new octets,
/// a pass's repairs and a batch, not a tree of the whole file (#12: one identifier held by 700 000 records
/// peaked at 24 times the file with the trees).
fn repairs_alone(
    path: &Path,
    args: &FixArgs,
    which: &crate::repair::Which,
    options: &gedgraft_syntax::ParseOptions,
    stdout: &mut impl Write,
) -> Result<Option<Report>, String> {
    let name = path.display().to_string();
    // The first pass streamed from the file: a file with no repair at all (most) is left as it is, and copied
    // to `-o` as it reads, its octets never held (#17). Not when standard output is the file itself.
    let first = match output::stdout_is(path) {
        true => None,
        false => crate::repair::first_pass_of_file(path, options),
    };
    if first.as_ref().is_some_and(Vec::is_empty) {
        if let Some(out) = &args.output {
            copy_out(path, out, stdout)?;
        }
        let lines = summary(&name, args, false, 0, Some((0, 0)));
        return Ok(Some(Report {
            changed: false,
            lines: lines.into_iter().collect(),
        }));
    }
    let bytes = input::read_octets(path)?;
    input::check_size(path, &bytes)?;
    let mut lines = Vec::new();
    let repaired = crate::repair::repair_octets(&bytes, first, which, options, &name, &mut lines);
    let (new, changes, edits) = match repaired {
        Some(r) => (Cow::Owned(r.bytes), r.changes, r.applied),
        None => (Cow::Borrowed(&bytes[..]), Vec::new(), 0),
    };
    let changed = !changes.is_empty();
    let stream = crate::stream_fix::stream_options(options);
    if !changed
        && matches!(
            RecordStream::new(&bytes[..], stream.clone()),
            Err(StreamError::NotGedcom)
        )
    {
        // Not GEDCOM: the whole-file path says so.
        return Ok(None);
    }
    let counts = if args.reviews() && args.patch {
        // The patch, unless only the whole file can make it (UTF-16, a change after the last line break): then
        // the whole-file path makes it, or says why it cannot.
        let names = header_names(&name);
        let names = (names.0.as_str(), names.1.as_str());
        let Some((patch, counts)) =
            StreamedPatch::of_octets(&bytes, &new, &changes, &stream, names)
        else {
            return Ok(None);
        };
        if changed {
            output::write_stdout(stdout, &patch)?;
        }
        Some(counts)
    } else if args.reviews() {
        // The review diff.
        let diff = LineDiff::of_octets(&bytes, &new, &changes, &stream);
        if changed {
            output::write_stdout(stdout, review_diff(&name, &diff).as_bytes())?;
        }
        Some((diff.removed(), diff.added()))
    } else {
        let counts =
            (!args.quiet).then(|| LineDiff::counts_of_octets(&bytes, &new, &changes, &stream));
        write_out(path, args, changed, || Ok(Cow::Borrowed(&new[..])), stdout)?;
        counts
    };
    lines.extend(summary(&name, args, changed, edits, counts));
    Ok(Some(Report { changed, lines }))
}

/// The review diff of a file: decoded text, with the encodings named in the header (`--- a/f.ged (ANSEL)`).
pub(crate) fn review_diff(name: &str, diff: &LineDiff) -> String {
    let (old, new) = diff.encodings();
    let (a, b) = header_names(name);
    diff.unified(
        &format!("{a} ({})", old.name()),
        &format!("{b} ({})", new.name()),
    )
}

/// The old and new names that a diff or patch header gives the file `name` (`a/f.ged`, `b/f.ged`), quoted when
/// the name would break the header line ([`quote_path`]).
pub(crate) fn header_names(name: &str) -> (String, String) {
    let path = name.trim_start_matches('/');
    (
        quote_path(&format!("a/{path}")),
        quote_path(&format!("b/{path}")),
    )
}

/// `--patch`: the patch of a file made of its own octets, for `patch -p1` and `git apply`.
fn octets_patch(
    name: &str,
    original: &Parse,
    new: &Final,
    changes: &[Change],
    (old_encoding, new_encoding): (Encoding, Encoding),
) -> Result<Vec<u8>, String> {
    let old_bytes = original.to_bytes().map_err(|e| format!("{name}: {e}"))?;
    let new_owned;
    let new_bytes = match new {
        Final::Edited(edited) => edited.bytes(),
        Final::Parsed(parse) => {
            new_owned = parse.to_bytes().map_err(|e| format!("{name}: {e}"))?;
            &new_owned[..]
        }
    };
    let (a, b) = header_names(name);
    gedgraft_edit::octet_patch(
        &old_bytes,
        old_encoding,
        new_bytes,
        new_encoding,
        changes,
        &a,
        &b,
    )
    .ok_or_else(|| {
        format!(
            "{name}: --patch cannot write a patch for a UTF-16 file ({} → {}): `patch` and `git apply` read \
             lines of octets ending in LF, and UTF-16 octets are not such lines; use the review diff (no --patch) \
             and -o or --in-place",
            old_encoding.name(),
            new_encoding.name()
        )
    })
}
