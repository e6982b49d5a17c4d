//! `gedgraft fix FILE -o OUT` record by record (DESIGN.md invariant 9): the file is read, edited and written
//! in batches of whole records ([`gedgraft_syntax::stream`]), so memory is bounded by the largest batch, not by
//! the file. The output, the warnings and the summary are those of the whole-file path (tested).
//!
//! What streams: writing back (no edit), `--delete`, `--rename-tag`, `--escape-at`, `--eol`, `--to-encoding`
//! (`HEAD.CHAR` and a byte-order mark in the first batch, [`Editor::later_batch`](gedgraft_edit::Editor::later_batch) for the others), `--set`,
//! `--set-pointer` (a first pass gathers the file's identifiers, to warn about targets no structure has),
//! `--set-xref` (a first pass finds the structures that get new identifiers and checks them as the whole-file
//! path does; pointers to the old ones follow in every batch, [`Editor::follow_identifier`](gedgraft_edit::Editor::follow_identifier),
//! and those to a removed one are counted in every batch),
//! `--rewrap` and `--join-conc`, with or without `--select`, to a file or to standard output with `-o`, or in place (`--in-place`, with `--backup`), or only
//! to say whether they would change the file (`--check` alone: the octets are dropped), or as the review diff
//! (no `-o`: each batch's diff joined into the file's, [`StreamedDiff`], printed at the end), or as a patch
//! (`--patch`: each batch's octet patch joined into the file's, [`StreamedPatch`], printed at the end; the
//! whole-file path makes it when the batches cannot: a change after the last line break, a run of changed
//! lines over 16 MiB, UTF-16). These edits are local to a record; what is not
//! (a selector that matched nothing in the whole file, pointers left dangling by a deleted record) is gathered
//! across batches: the selectors of `--delete` and `--set` that matched, the identifiers deleted and, with `--delete`, how many pointers
//! name each identifier (an index of the file's pointer targets, O(records)).
//!
//! What falls back to the whole-file path: `--set-xref` with `--delete` or `--set-pointer` (their warnings count
//! pointers across the file to identifiers that change), a transcode of a file whose reading is in doubt,
//! a `--patch` the batches cannot make, a review diff or patch where a batch's new side ends inside a line
//! (a first batch deleted down to its byte-order mark: the whole file reads that line on into the next
//! record), the repairs with other edits on a file with something to repair that moves records, or where a
//! repair crosses a cut between batches (elsewhere the file is repaired first and the edits stream over each
//! batch repaired, the first passes of `--set-pointer` and `--set-xref` too: [`streams_file`], [`Repairs`];
//! with nothing to repair, they stream as without repairs; repairs alone stream apart, `crate::fix`), output
//! to a standard stream with the repairs when no temporary file can be made or written, what the stream refuses (not GEDCOM), and an edit
//! error in the first batch (nothing is written yet: the whole-file path gives the file's verdict, which reads
//! the whole file before it tells, say, a missing header).
//! Standard input streams through a copy on disk ([`input::open`]), which the whole-file path
//! reads if the stream refuses the input. `GEDGRAFT_WHOLE_FILE=1` takes the whole-file path always, `GEDGRAFT_BATCH_SIZE=N` sets the
//! batch size in octets (both for tests that compare the two paths). When a plan has several stages, each
//! stage reads the batch as the stage before re-parsed it, placed at its line in the file that stage made (the
//! lines the stages before added or removed in earlier batches), and the warnings are given stage by stage, as
//! the whole-file path words and orders them.
//! An edit error in a later batch (`--delete TRLR`) leaves an output file untouched; on standard output, the
//! batches before it have been written.

use crate::cli::FixArgs;
use crate::fix::{in_scope, run_stage_of_batch, Plan, Report, SetValue, Stage};
use crate::{input, output};
use first_passes::{file_ids, renumbering};
use gedgraft_edit::{
    compose_changes, Change, Edited, LineDiff, Scope, StreamedDiff, StreamedPatch, Warning,
};
use gedgraft_syntax::internal::green_view::{ends_with_line_break, Node};
use gedgraft_syntax::internal::work::{ahead, Dropper};
use gedgraft_syntax::lexical::strip_ats;
use gedgraft_syntax::rowan::{GreenNodeData, NodeOrToken};
use gedgraft_syntax::stream::{RecordStream, StreamError, StreamOptions};
use gedgraft_syntax::{Location, Parse, ParseOptions, Picker, SyntaxKind};
use repaired::{Crossing, RepairedBatch, Repairs};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;

mod first_passes;
mod repaired;

/// Whether the whole-file path is asked for (`GEDGRAFT_WHOLE_FILE` set): the one place that reads it.
pub(crate) fn whole_file_forced() -> bool {
    std::env::var_os("GEDGRAFT_WHOLE_FILE").is_some()
}

/// Whether `GEDGRAFT_TWO_PASS` is set: `check` and `lower` take two passes without trying one (for tests that
/// compare the paths).
pub(crate) fn two_passes_forced() -> bool {
    std::env::var_os("GEDGRAFT_TWO_PASS").is_some()
}

/// The stream options of the command line: detection as asked for, batches of `GEDGRAFT_BATCH_SIZE` octets if
/// set (tests), else the library's default.
pub(crate) fn stream_options(options: &ParseOptions) -> StreamOptions {
    stream_options_sized(options, StreamOptions::default().batch_size)
}

/// [`stream_options`] with batches of `size` octets unless `GEDGRAFT_BATCH_SIZE` says otherwise.
pub(crate) fn stream_options_sized(options: &ParseOptions, size: usize) -> StreamOptions {
    let asked = std::env::var("GEDGRAFT_BATCH_SIZE")
        .ok()
        .and_then(|s| s.parse().ok());
    let stream = StreamOptions::default().with_detect(options.detect);
    match asked {
        Some(n) => stream.with_batch_size(n),
        None => stream.with_batch_size(size),
    }
}

/// Whether `fix` streams this file with these options (see the module documentation).
pub(crate) fn streams(args: &FixArgs, plan: &Plan) -> bool {
    plan.repair.is_none() && stages_stream(args, plan)
}

/// How `fix` reads a file ([`streams_file`]).
pub(crate) enum Reading {
    /// The whole file at once.
    Whole,
    /// Record by record ([`fix_streamed`]), with the repairs to apply to each batch ahead of the edits.
    Streamed(Option<Box<Repairs>>),
}

/// How `fix` reads the file at `path` with these options: streamed when [`streams`]; with repairs and other
/// edits, when the repairs' first pass (streamed) finds none, as on most files, the edits stream as they do
/// without repairs (#17: `--repair --rename-tag` of the 100 MB sample held its tree, 660 MiB); a file with
/// repairs is repaired first and streams with its repairs ([`Repairs`]; into a standard stream through a
/// temporary file, since a repair that crosses a cut between batches sends the file to the whole-file path;
/// the first passes of `--set-pointer` and `--set-xref` read the batches repaired), unless a repair moves
/// records. `--repair` alone streams apart (`crate::fix`). Not when standard
/// output is the file itself (`fix F -o - >> F`): the stream would read what it writes (and a large file grow
/// without end); the whole-file path reads it before it writes.
pub(crate) fn streams_file(
    path: &Path,
    args: &FixArgs,
    plan: &Plan,
    options: &ParseOptions,
) -> Result<Reading, String> {
    if crate::output::stdout_is(path) {
        return Ok(Reading::Whole);
    }
    let Some(which) = &plan.repair else {
        return Ok(match streams(args, plan) {
            true => Reading::Streamed(None),
            false => Reading::Whole,
        });
    };
    if plan.stages.is_empty() || !stages_stream(args, plan) {
        return Ok(Reading::Whole);
    }
    let Some(first) = crate::repair::first_pass_of_file(path, options) else {
        return Ok(Reading::Whole);
    };
    if first.is_empty() {
        return Ok(Reading::Streamed(None));
    }
    // A repair that moves lines from one record to another (records after the trailer moved before it): the
    // whole file's review diff and line counts align the move as batches cannot.
    let moves = |r: &gedgraft_edit::Repair| r.code == gedgraft_syntax::codes::RECORD_AFTER_TRAILER;
    if first.iter().any(moves) {
        return Ok(Reading::Whole);
    }
    let repairs = Repairs::of_file(path, first, which, options)?;
    Ok(Reading::Streamed(Some(Box::new(repairs))))
}

/// Whether the edits of `plan` other than the repairs stream with these options ([`streams`]; `fix` with
/// repairs streams them when the file has nothing to repair).
pub(crate) fn stages_stream(args: &FixArgs, plan: &Plan) -> bool {
    let writes = args.output.is_some() || args.in_place;
    // `--check` alone: the batches are edited and their octets dropped; the review diff (no `--patch`): the
    // batches' diffs are joined.
    (writes != args.check || review_diff_mode(args) || args.patch)
        && !whole_file_forced()
        && plan.stages.iter().all(|s| match s {
            Stage::Delete(_)
            | Stage::Rename(_)
            | Stage::EscapeAt
            | Stage::Rewrap { .. }
            | Stage::Whole { .. } => true,
            // A payload is local to its structure (a new pointer's target is looked up in a first pass); a
            // new identifier is not: a first pass finds them all, and pointers to the old one follow in every
            // batch (pointers to a removed one are counted in every batch). Not with deletions or new
            // pointers, whose warnings count pointers to identifiers that change.
            Stage::Set(sets) => {
                !renumbers(plan)
                    || (!plan.stages.iter().any(|s| matches!(s, Stage::Delete(_)))
                        && sets
                            .iter()
                            .all(|(_, v)| matches!(v, SetValue::Text(_) | SetValue::Xref(_))))
            }
            Stage::FromDataset { .. } => false,
        })
}

/// Whether the plan gives structures new identifiers (`--set-xref`).
fn renumbers(plan: &Plan) -> bool {
    plan.stages.iter().any(|s| match s {
        Stage::Set(sets) => sets.iter().any(|(_, v)| matches!(v, SetValue::Xref(_))),
        _ => false,
    })
}

/// Whether `fix` prints the review diff (it reviews, [`FixArgs::reviews`], and not as a patch).
fn review_diff_mode(args: &FixArgs) -> bool {
    args.reviews() && !args.patch
}

/// What the batches did to the file so far, and what is gathered across them.
#[derive(Default)]
struct Totals {
    edits: usize,
    changed: bool,
    removed: usize,
    added: usize,
    batches: usize,
    /// Warnings other than the two kinds gathered below, once each, with the index of the stage that gave each
    /// (the whole-file path gives them stage by stage; the batches, batch by batch).
    warnings: Vec<(usize, Told)>,
    /// Paths (by stage and place) that picked something in some batch.
    matched: HashSet<(usize, Option<usize>)>,
    /// Identifiers of deleted structures, and how many pointers (outside deleted structures) name each target.
    deleted_ids: HashSet<String>,
    pointers: HashMap<String, usize>,
    /// With `--set-pointer`: every identifier of the file (a first pass), to tell a new pointer's target exists.
    file_ids: Option<HashSet<String>>,
    /// With `--set-xref`: the identifiers the file's structures get, old → new, and those removed (a first
    /// pass), with how many pointers name each removed one.
    renumbered: HashMap<String, String>,
    /// Whether the last batch edited ends inside a line on its new side ([`ends_inside_a_line`]).
    inside_a_line: bool,
    unnamed: HashMap<String, usize>,
    /// Identifiers `--set-xref` gives that no structure loses to a renumbering, with how many pointers name
    /// each (they lead to its structure now: [`Warning::PointersTakenOver`]).
    taken: HashMap<String, usize>,
    /// Per stage but the last: how many lines it added (less those it removed) in the batches so far.
    stage_lines: Vec<isize>,
    /// The repairs, applied to each batch ahead of the stages ([`Repairs`]), and whether one crossed a cut
    /// between batches (the whole-file path then repairs the file).
    repairs: Option<Box<Repairs>>,
    crossing: bool,
}

/// A warning of the batches as the file's report gives it.
enum Told {
    /// As the batch worded it (given once).
    Text(String),
    /// One the whole-file path gives once for the file, summed over the batches ([`add_summed`]).
    Summed(Warning),
}

/// Adds a batch's warning to the file's of its kind if the whole-file path gives it once for the file
/// ([`Warning::is_file_wide`], summed by [`Warning::absorb`]): `false` for others.
fn add_summed(warnings: &mut Vec<(usize, Told)>, k: usize, w: &Warning) -> bool {
    if !w.is_file_wide() {
        return false;
    }
    for (_, told) in warnings.iter_mut() {
        if let Told::Summed(sum) = told {
            if sum.absorb(w) {
                return true;
            }
        }
    }
    // The first of its kind: where the whole-file path gives it (batches come in file order).
    warnings.push((k, Told::Summed(w.clone())));
    true
}

/// Streams `fix` over one file; `None` when the file cannot be streamed (not GEDCOM): the caller takes the
/// whole-file path, nothing having been written.
pub(crate) fn fix_streamed(
    path: &Path,
    args: &FixArgs,
    (plan, repairs): (&Plan, Option<Box<Repairs>>),
    options: &ParseOptions,
    stdout: &mut impl Write,
) -> Result<Option<Report>, String> {
    let name = path.display().to_string();
    let read_error = |e: &dyn std::fmt::Display| input::cannot_read(path, e);
    let file = input::open(path)?;
    let stream = match RecordStream::new(file, stream_options(options)) {
        Ok(s) => s,
        Err(StreamError::Io(e)) => return Err(read_error(&e)),
        Err(_) => return Ok(None),
    };
    // The encoding a transcode writes, if the plan has one.
    let target = plan.stages.iter().find_map(|s| match s {
        Stage::Whole {
            encoding: Some((e, _)),
            ..
        } => Some(*e),
        _ => None,
    });
    // A transcode of a file whose reading is in doubt is refused, and so is new text in it, naming the line of
    // the note that says why: a note the whole file's parse places (the stream's batches do not carry the
    // encoding notes). Refused in a later batch, the first would have been written already.
    if (target.is_some() || sets_text(plan)) && stream.detection().doubt().is_some() {
        return Ok(None);
    }
    // `--patch` refuses UTF-16 (either side): the whole-file path says so.
    let utf16 = stream.detection().used.is_utf16() || target.is_some_and(|e| e.is_utf16());
    if args.patch && utf16 {
        return Ok(None);
    }
    let mut totals = Totals {
        repairs,
        ..Totals::default()
    };
    // The first passes read the file as the stages will: repaired. A repair across a cut: the whole-file path.
    let repairs = totals.repairs.as_deref();
    if sets_pointers(plan) {
        let ids = file_ids(path, options, repairs).map_err(|e| read_error(&e))?;
        let Some(ids) = ids else {
            return Ok(None);
        };
        totals.file_ids = Some(ids);
    }
    if renumbers(plan) {
        let renumbering = renumbering(path, options, plan, repairs).map_err(|e| read_error(&e))?;
        let Some(renumbering) = renumbering else {
            return Ok(None);
        };
        let (renumbered, removed, given) = renumbering.map_err(|e| format!("{name}: {e}"))?;
        // Pointers to a given identifier that follow no renumbering lead to its structure now.
        totals.taken = (given.into_iter())
            .filter(|id| !renumbered.contains_key(id))
            .map(|id| (id, 0))
            .collect();
        totals.renumbered = renumbered;
        totals.unnamed = removed.into_iter().map(|id| (id, 0)).collect();
    }
    // Errors of the edits are kept apart from those of writing, which are reported as such.
    let mut failure: Option<String> = None;
    // The review diff: the batches' diffs joined into the file's (the memory of the lines it prints), printed at
    // the end like the whole-file path's; the octets are not made.
    // `--patch` joins the batches' octet patches too ([`StreamedPatch`]), and counts lines from the diff.
    let reviews = review_diff_mode(args) || args.patch;
    let mut diff = reviews.then(StreamedDiff::new);
    let mut patch = args.patch.then(StreamedPatch::new);
    // An edit error in the first batch comes before anything is written: the whole-file path then gives the
    // file's own verdict, having read the whole file first (an undecodable octet further on is told before a
    // missing header, which the first batch cannot know).
    let first_failed = std::cell::Cell::new(false);
    // A repair across a cut between batches: the whole-file path repairs the file, nothing written (into a
    // standard stream, the output is held in a temporary file until the end: `spills` below).
    let crossed = std::cell::Cell::new(false);
    // A review diff or patch that the batches cannot join (see the loop): nothing is printed yet.
    let joined_line = std::cell::Cell::new(false);
    // With the repairs, one that crosses a cut between batches is found only as the stream gets there, and
    // the whole-file path then writes the file: a standard stream is written at the end, from an unlinked
    // temporary file, as `fmt -o -` writes it.
    let spills = totals.repairs.is_some();
    // Gives whether anything changed.
    let each = |out: &mut dyn FnMut(&[u8]) -> Result<(), String>| {
        let dropper = Dropper::new();
        let count_lines = !args.quiet && !reviews;
        for batch in ahead(stream) {
            let batch = batch.map_err(|e| read_error(&e))?;
            // The batch before ends inside a line (its records deleted down to a byte-order mark): the whole
            // file's diff reads that line on into this batch's first; the whole-file path makes the diff.
            if reviews && totals.inside_a_line {
                joined_line.set(true);
                return Err(String::new());
            }
            let review = diff.as_mut().map(|d| (d, patch.as_mut()));
            let octets = edit_batch(batch.parse(), plan, &mut totals, count_lines, review)
                .map_err(|e| {
                    first_failed.set(totals.batches == 1);
                    crossed.set(totals.crossing);
                    format!("{name}: {e}")
                })?;
            // The first batch's new side ends inside a line (its records deleted down to a byte-order mark):
            // the whole file's line counts read that line on into the next batch's first; nothing is written
            // yet, and the whole-file path counts them.
            if count_lines && totals.batches == 1 && totals.changed && totals.inside_a_line {
                first_failed.set(true);
                return Err(String::new());
            }
            dropper.later(batch);
            out(&octets)?;
        }
        if totals.repairs.as_ref().is_some_and(|r| !r.all_applied()) {
            crossed.set(true);
            return Err(String::new());
        }
        Ok::<bool, String>(totals.changed)
    };
    let whole_file_if_first = |e: String| match first_failed.get() || crossed.get() {
        true => Ok(None),
        false => Err(e),
    };
    if args.check {
        if let Err(e) = each(&mut |_| Ok(())) {
            return whole_file_if_first(e);
        }
        return Ok(Some(report(&name, args, plan, totals)));
    }
    if reviews {
        if let Err(e) = each(&mut |_| Ok(())) {
            if joined_line.get() {
                return Ok(None);
            }
            return whole_file_if_first(e);
        }
        if let Some(diff) = diff.map(StreamedDiff::finish) {
            (totals.removed, totals.added) = (diff.removed(), diff.added());
            let text = match patch {
                Some(patch) => {
                    let (a, b) = crate::fix::header_names(&name);
                    // A patch the batches cannot make: the whole-file path makes it, nothing written yet.
                    let Some(text) = patch.finish(&a, &b) else {
                        return Ok(None);
                    };
                    text
                }
                None => crate::fix::review_diff(&name, &diff).into_bytes(),
            };
            if totals.changed {
                output::write_stdout(stdout, &text)?;
            }
        }
        return Ok(Some(report(&name, args, plan, totals)));
    }
    if args.in_place {
        // The new file is written next to the original and renamed over it only if something changed:
        // an unchanged file is not touched (its temporary copy is dropped).
        let mut unchanged = false;
        let written = output::replace_file((path, path), args.backup.as_deref(), |w| {
            let name = &name;
            match each(&mut |octets| {
                (w.write_all(octets)).map_err(|e| output::write_error(name, &e))
            }) {
                Ok(true) => Ok(()),
                Ok(false) => {
                    unchanged = true;
                    Err(std::io::Error::other("unchanged"))
                }
                Err(e) => {
                    failure = Some(e);
                    Err(std::io::Error::other("edit failed"))
                }
            }
        });
        if let Some(e) = failure {
            return whole_file_if_first(e);
        }
        if !unchanged {
            written.map_err(|e| output::write_error(&name, &e))?;
        }
        return Ok(Some(report(&name, args, plan, totals)));
    }
    let out_path = args.output.as_deref().unwrap_or(Path::new("-"));
    match output::stream_named(out_path) {
        Some(target) if spills => {
            // No temporary file to be had: the whole-file path writes the file straight to the stream.
            let Some(mut spill) = output::Spill::new() else {
                return Ok(None);
            };
            if let Err(e) = each(&mut |octets| spill.write(octets)) {
                if spill.failed() {
                    return Ok(None);
                }
                return whole_file_if_first(e);
            }
            // Held until the end: nothing of a file that changed while it was read is written.
            input::unchanged(path)?;
            output::copy_spilled(spill.into_file(), |chunk| {
                output::write_stream(target, chunk, stdout)
            })?;
        }
        Some(target) => {
            if let Err(e) = each(&mut |octets| output::write_stream(target, octets, stdout)) {
                return whole_file_if_first(e);
            }
        }
        None => {
            let written = output::replace_file((out_path, path), None, |w| {
                let out_name = out_path.display().to_string();
                each(&mut |octets| {
                    w.write_all(octets)
                        .map_err(|e| output::write_error(&out_name, &e))
                })
                .map(|_| ())
                .map_err(|e| {
                    failure = Some(e);
                    std::io::Error::other("edit failed")
                })
            });
            if let Some(e) = failure {
                return whole_file_if_first(e);
            }
            written.map_err(|e| output::write_error(&out_path.display().to_string(), &e))?;
        }
    }
    Ok(Some(report(&name, args, plan, totals)))
}

/// Applies the plan's stages to one batch, as `fix` does to a whole file, and returns the batch's new octets;
/// with `diff`, adds the batch's diff to it instead (and returns no octets).
fn edit_batch(
    batch: &Parse,
    plan: &Plan,
    totals: &mut Totals,
    count_lines: bool,
    review: Option<(&mut StreamedDiff, Option<&mut StreamedPatch>)>,
) -> Result<Vec<u8>, String> {
    totals.batches += 1;
    // The repairs first: the stages read the batch as they left it.
    let repaired = match totals.repairs.as_mut().map(|r| r.batch(batch)) {
        Some(Ok(repaired)) => repaired,
        Some(Err(Crossing)) => {
            totals.crossing = true;
            return Err(String::new());
        }
        None => RepairedBatch::default(),
    };
    let read = repaired.parse.as_ref().unwrap_or(batch);
    // The batch's pointers to identifiers that change (in this batch or another), which follow them.
    let mut follow: Vec<(String, String)> = Vec::new();
    if !totals.renumbered.is_empty() || !totals.unnamed.is_empty() || !totals.taken.is_empty() {
        let (renumbered, removed) = (&totals.renumbered, &mut totals.unnamed);
        let taken = &mut totals.taken;
        first_line_tokens(read.green(), SyntaxKind::Pointer, |target| {
            let target = strip_ats(target);
            if let Some((old, new)) = renumbered.get_key_value(target) {
                follow.push((old.clone(), new.clone()));
            } else if let Some(count) = taken.get_mut(target) {
                *count += 1;
            } else if let Some(count) = removed.get_mut(target) {
                *count += 1;
            }
        });
    }
    let follow: Vec<(&str, &str)> = follow
        .iter()
        .map(|(o, n)| (o.as_str(), n.as_str()))
        .collect();
    let later = totals.batches > 1;
    let context = |stage: &Stage| {
        let follows = if matches!(stage, Stage::Set(_)) {
            &follow[..]
        } else {
            &[]
        };
        (later, follows)
    };
    let mut changes: Option<Vec<Change>> =
        (!repaired.changes.is_empty()).then_some(repaired.changes);
    let mut current: Option<Parse> = repaired.parse;
    let (last_stage, earlier) = match plan.stages.split_last() {
        Some((last, earlier)) => (Some(last), earlier),
        None => (None, &plan.stages[..]),
    };
    // Each stage reads the file the stages before it made, whose lines the whole-file path names in its
    // messages: this batch starts there at its own line plus what those stages added and removed in the
    // batches before it.
    let origin = batch.origin();
    let mut shift: isize = repaired.shift;
    let mut deltas = vec![0isize; earlier.len()];
    for (k, stage) in earlier.iter().enumerate() {
        let parse = current.as_ref().unwrap_or(batch);
        gather_selections(parse, (k, stage), plan, totals);
        let edited = run_stage_of_batch(parse, stage, plan, context(stage))?;
        tally(&edited, (k, stage), totals);
        changes = Some(composed(changes, &edited).into_owned());
        if edited.is_changed() {
            let (removed, added) = edited.line_counts();
            deltas[k] = isize::try_from(added).unwrap_or(isize::MAX)
                - isize::try_from(removed).unwrap_or(isize::MAX);
        }
        shift += totals.stage_lines.get(k).copied().unwrap_or(0);
        let placed = Location {
            line: origin.line.saturating_add_signed(shift),
            ..origin
        };
        // An unchanged batch follows the batches before it as the stage wrote them (`--eol`: their line breaks).
        let break_before = edited.break_before();
        let changed = edited
            .is_changed()
            .then(|| edited.into_parse().with_dialect_of(batch));
        match changed {
            Some(parse) => current = Some(parse.with_origin(placed)),
            None if shift != 0
                || break_before != current.as_ref().unwrap_or(batch).break_before() =>
            {
                let parse = current.take().unwrap_or_else(|| batch.clone());
                current = Some(parse.with_origin(placed).with_break_before(break_before));
            }
            None => {}
        }
    }
    totals.stage_lines.resize(deltas.len(), 0);
    for (sum, delta) in totals.stage_lines.iter_mut().zip(deltas) {
        *sum += delta;
    }
    let base = current.as_ref().unwrap_or(batch);
    let last_run = match last_stage {
        Some(stage) => {
            gather_selections(base, (earlier.len(), stage), plan, totals);
            let edited = run_stage_of_batch(base, stage, plan, context(stage))?;
            tally(&edited, (earlier.len(), stage), totals);
            Some(edited)
        }
        None => None,
    };
    // The last stage's changes are borrowed, not copied, when no stage before changed the batch.
    let changes = match &last_run {
        Some(edited) => composed(changes, edited),
        None => std::borrow::Cow::Owned(changes.unwrap_or_default()),
    };
    // Only a changed result is the batch's new side; else it is `base`.
    let last = last_run.as_ref().filter(|e| e.is_changed());
    totals.inside_a_line = ends_inside_a_line(match &last {
        Some(edited) => edited.green(),
        None => base.green(),
    });
    if let Some((diff, patch)) = review {
        totals.changed |= !changes.is_empty();
        match &last {
            Some(edited) => diff.push_edited(batch, edited, &changes),
            None => diff.push(batch, base, &changes),
        }
        if let Some(patch) = patch {
            let old = batch.to_bytes().map_err(|e| e.to_string())?;
            match &last {
                Some(edited) => patch.push(&old, edited.bytes(), &changes),
                // Unchanged by every stage: the new side is the old.
                None if std::ptr::eq(base, batch) => patch.push(&old, &old, &changes),
                None => patch.push(&old, &base.to_bytes().map_err(|e| e.to_string())?, &changes),
            }
        }
        return Ok(Vec::new());
    }
    if !changes.is_empty() {
        totals.changed = true;
        if count_lines {
            let (removed, added) = match &last {
                Some(edited) => edited.line_counts_from(batch, &changes),
                None => LineDiff::counts(batch, base, &changes),
            };
            totals.removed += removed;
            totals.added += added;
        }
    }
    drop(changes);
    let Some(edited) = last_run.filter(Edited::is_changed) else {
        return base.to_bytes().map_err(|e| e.to_string());
    };
    Ok(edited.into_bytes())
}

/// The changes of the stages so far, `before` (`None` if no stage ran before), then those of `edited`.
fn composed<'e>(before: Option<Vec<Change>>, edited: &'e Edited) -> std::borrow::Cow<'e, [Change]> {
    match before {
        None => std::borrow::Cow::Borrowed(edited.changed_ranges()),
        Some(before) => std::borrow::Cow::Owned(compose_changes(&before, edited.changed_ranges())),
    }
}

/// Whether a tree's text ends inside a line: it is not empty and its last octet is not a line break (a batch
/// whose records were all deleted but its byte-order mark). Batches are cut at records, so the old side of
/// every batch but the last ends with a line break.
fn ends_inside_a_line(green: &GreenNodeData) -> bool {
    ends_with_line_break(green) == Some(false)
}

/// Counts one stage's edits of a batch, keeps its warnings and composes its changes with the earlier ones.
fn tally(edited: &Edited, (k, stage): (usize, &Stage), totals: &mut Totals) {
    totals.edits += edited.change_count();
    if let (Stage::Whole { eol, encoding }, true) = (stage, totals.batches > 1) {
        // A line-break conversion and a transcode count one each for the file.
        let once = usize::from(eol.is_some()) + usize::from(encoding.is_some());
        totals.edits = totals.edits.saturating_sub(once);
    }
    for w in edited.warnings() {
        let gathered = matches!(
            w,
            Warning::SelectorMatchedNothing { .. }
                | Warning::DanglingPointers { .. }
                | Warning::PointersTakenOver { .. }
        );
        if add_summed(&mut totals.warnings, k, w) {
            continue;
        }
        let text = w.to_string();
        let told = |(_, t): &(usize, Told)| matches!(t, Told::Text(x) if *x == text);
        if !gathered && !totals.warnings.iter().any(told) {
            totals.warnings.push((k, Told::Text(text)));
        }
    }
    if matches!(stage, Stage::Delete(_)) {
        count_pointers(edited.green(), totals);
    }
}

/// Notes which of the paths of the plan's stage `k` pick something in `parse`, the batch as that stage reads it
/// (a `--set` of what a `--delete` before it removed picks nothing, as in the whole file), and the identifiers
/// the deletions remove.
fn gather_selections(parse: &Parse, (k, stage): (usize, &Stage), plan: &Plan, totals: &mut Totals) {
    let scope = plan.scope.as_ref();
    if scope.is_none() && !matches!(stage, Stage::Delete(_) | Stage::Set(_)) {
        return;
    }
    let picker = Picker::new(parse.document());
    let mut picks = |key: (usize, Option<usize>), path: &Scope| {
        let found = picker.select(path);
        if !found.is_empty() {
            totals.matched.insert(key);
        }
        found
    };
    let scope_picks = scope.is_none_or(|s| !picks((k, None), s).is_empty());
    if let Stage::Delete(paths) = stage {
        for (i, path) in paths.iter().enumerate() {
            for s in picks((k, Some(i)), path) {
                let id = s.xref().map(|x| x.id().to_string());
                if let (true, true, Some(id)) = (scope_picks, in_scope(scope, &s), id) {
                    totals.deleted_ids.insert(id);
                }
            }
        }
    }
    if let Stage::Set(sets) = stage {
        for (i, (path, _)) in sets.iter().enumerate() {
            picks((k, Some(i)), path);
        }
    }
}

/// Whether the plan writes new text (`--set`).
fn sets_text(plan: &Plan) -> bool {
    plan.stages.iter().any(|s| match s {
        Stage::Set(sets) => sets.iter().any(|(_, v)| matches!(v, SetValue::Text(_))),
        _ => false,
    })
}

/// Whether the plan sets pointers (`--set-pointer`).
fn sets_pointers(plan: &Plan) -> bool {
    plan.stages.iter().any(|s| match s {
        Stage::Set(sets) => sets.iter().any(|(_, v)| matches!(v, SetValue::Pointer(_))),
        _ => false,
    })
}

/// The text of every token of `kind` on a record's or a structure's first line (not on a continuation line),
/// in a walk over the green tree (no red nodes: this runs on every batch).
fn first_line_tokens(root: &GreenNodeData, kind: SyntaxKind, mut each: impl FnMut(&str)) {
    let mut stack = vec![Node::new(root, 0.into()).elements()];
    while let Some(elements) = stack.last_mut() {
        let Some((element, start)) = elements.next() else {
            stack.pop();
            continue;
        };
        let NodeOrToken::Node(green) = element else {
            continue;
        };
        let node = Node::new(green, start);
        if node.is_structure() {
            for (child, _) in node.elements() {
                if let NodeOrToken::Token(t) = child {
                    if t.kind() == kind.into() {
                        each(t.text());
                    }
                }
            }
        }
        stack.push(node.elements());
    }
}

/// Counts the pointers of a batch after its deletions, by target (pointers on structures' first lines).
fn count_pointers(tree: &GreenNodeData, totals: &mut Totals) {
    first_line_tokens(tree, SyntaxKind::Pointer, |target| {
        *totals
            .pointers
            .entry(strip_ats(target).to_string())
            .or_default() += 1;
    });
}

/// Warnings in the order first given, each once (found in a set: a plan of 10 000 paths gives as many).
#[derive(Default)]
struct Warnings {
    list: Vec<String>,
    seen: HashSet<String>,
}

impl Warnings {
    fn add(&mut self, text: String) {
        if self.seen.insert(text.clone()) {
            self.list.push(text);
        }
    }
}

/// The warnings gathered across batches, in the order of the whole-file path: per stage, the scope or the
/// paths that picked nothing in the whole file, and after the deletions the pointers they left dangling.
fn gathered_warnings(plan: &Plan, totals: &Totals) -> Warnings {
    let mut warnings = Warnings::default();
    let mut warn = |w: Warning| warnings.add(w.to_string());
    let unmatched = |path: &Scope| Warning::SelectorMatchedNothing {
        path: path.path().to_string(),
    };
    for (k, stage) in plan.stages.iter().enumerate() {
        if let Some(s) = &plan.scope {
            if !totals.matched.contains(&(k, None)) {
                warn(unmatched(s));
                continue;
            }
        }
        if let Stage::Set(sets) = stage {
            for (i, (path, _)) in sets.iter().enumerate() {
                if !totals.matched.contains(&(k, Some(i))) {
                    warn(unmatched(path));
                }
            }
            // A new pointer to an identifier no structure of the file has (after earlier deletions).
            let mut missing: Vec<&String> = sets
                .iter()
                .enumerate()
                .filter(|(i, _)| totals.matched.contains(&(k, Some(*i))))
                .filter_map(|(_, (_, v))| match v {
                    SetValue::Pointer(id) => Some(id),
                    _ => None,
                })
                .filter(|id| {
                    let held = totals
                        .file_ids
                        .as_ref()
                        .is_some_and(|ids| ids.contains(*id));
                    !held || totals.deleted_ids.contains(*id)
                })
                .collect();
            missing.sort();
            missing.dedup();
            for id in missing {
                warn(Warning::DanglingPointers {
                    id: id.clone(),
                    count: 1,
                });
            }
            // Pointers to an identifier `--set-xref PATH=` removed, in every batch; then those to an identifier
            // it gives that follow no renumbering (each by identifier, as the whole-file path lists them).
            let counted = |counts: &HashMap<String, usize>| {
                let mut some: Vec<(String, usize)> = (counts.iter())
                    .filter(|(_, n)| **n > 0)
                    .map(|(id, n)| (id.clone(), *n))
                    .collect();
                some.sort();
                some
            };
            for (id, count) in counted(&totals.unnamed) {
                warn(Warning::DanglingPointers { id, count });
            }
            for (id, count) in counted(&totals.taken) {
                warn(Warning::PointersTakenOver { id, count });
            }
        }
        if let Stage::Delete(paths) = stage {
            for (i, path) in paths.iter().enumerate() {
                if !totals.matched.contains(&(k, Some(i))) {
                    warn(unmatched(path));
                }
            }
            let mut dangling: Vec<(&String, usize)> = totals
                .deleted_ids
                .iter()
                .filter_map(|id| totals.pointers.get(id).map(|&n| (id, n)))
                .collect();
            dangling.sort();
            for (id, count) in dangling {
                warn(Warning::DanglingPointers {
                    id: id.clone(),
                    count,
                });
            }
        }
    }
    warnings
}

/// The summary and warnings of the file, as the whole-file path words them.
fn report(name: &str, args: &FixArgs, plan: &Plan, mut totals: Totals) -> Report {
    let mut warnings = gathered_warnings(plan, &totals);
    // Stage by stage; within a stage, the file-wide warnings after the others, in the order the whole file's
    // edit gives them (`Editor::apply`), whichever batch met each first.
    let rank = |told: &Told| match told {
        Told::Text(_) => 0,
        Told::Summed(Warning::UnicodeEscapesNotInDialect { .. }) => 1,
        Told::Summed(Warning::NotReversible { .. }) => 2,
        Told::Summed(Warning::AfterTrailerNotTranscoded { .. }) => 3,
        Told::Summed(Warning::LfCrAsTwoBreaks { .. }) => 4,
        Told::Summed(_) => 1,
    };
    totals.warnings.sort_by_key(|(k, told)| (*k, rank(told)));
    for (_, told) in &totals.warnings {
        let w = match told {
            Told::Text(text) => text.clone(),
            Told::Summed(summed) => summed.to_string(),
        };
        warnings.add(w);
    }
    let mut lines: Vec<String> = (warnings.list)
        .iter()
        .map(|w| format!("{name}: warning: {w}"))
        .collect();
    // What the repairs leave to tell comes after the stages' warnings, as the whole-file path gives it.
    let repairs = totals.repairs.take();
    lines.extend(
        repairs
            .as_ref()
            .into_iter()
            .flat_map(|r| r.notes.iter().cloned()),
    );
    let edits = totals.edits + repairs.map_or(0, |r| r.applied);
    let counts = Some((totals.removed, totals.added));
    lines.extend(crate::fix::summary(
        name,
        args,
        totals.changed,
        edits,
        counts,
    ));
    Report {
        changed: totals.changed,
        lines,
    }
}

#[cfg(test)]
mod tests;
