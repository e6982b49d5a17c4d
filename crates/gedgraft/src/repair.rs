//! Repairs on the command line: `gedgraft fix --repair`, `--repair-unsafe`, `--repair=CODE,…`, and the repairs
//! `check` shows (a `= help:` line per fixable diagnostic, a `"fix"` object in JSON).
//!
//! The repairs themselves are the library's ([`gedgraft_edit::repairs`]); this module chooses which to apply,
//! runs them to a fixed point ([`gedgraft_edit::repair_to_fixed_point_streamed`], each pass diagnosed with the
//! syntax layer's and the lowering's diagnostics) and writes them out. A pass takes its repairs from the file's
//! octets batch by batch, as the streamed `check` makes them ([`streamed_pass`]: no tree of the whole file, nor
//! its diagnostics, #12), or from the whole file's tree where the batches cannot tell.

use crate::cli::FixArgs;
use crate::stream_check::Batches;
use gedgraft_edit::{repair_kind, Applicability, Change, Repair};
use gedgraft_model::diagnose;
use gedgraft_syntax::internal::json_string;
use gedgraft_syntax::{Parse, ParseOptions};
use std::fmt::Write;

/// Which repairs `fix` applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Which {
    /// The safe ones (`--repair`), or the unsafe ones too (`--repair-unsafe`).
    Upto(Applicability),
    /// Those of these codes (`--repair=CODE,…`), safe or not: naming a code asks for its repair.
    Codes(Vec<String>),
}

impl Which {
    /// The repairs the options ask for, if any; an unknown or unrepairable code is an error (exit status 2).
    pub(crate) fn of(args: &FixArgs) -> Result<Option<Which>, String> {
        match (&args.repair, args.repair_unsafe) {
            (Some(Some(list)), _) => {
                let codes: Vec<String> = list
                    .split(',')
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .map(str::to_string)
                    .collect();
                if codes.is_empty() {
                    return Err("--repair=: name at least one code".into());
                }
                for c in &codes {
                    if repair_kind(c).is_none() {
                        let known: Vec<&str> =
                            gedgraft_edit::REPAIR_KINDS.iter().map(|k| k.0).collect();
                        return Err(format!(
                            "--repair={c}: no repair for `{c}`; codes with a repair: {}",
                            known.join(", ")
                        ));
                    }
                }
                Ok(Some(Which::Codes(codes)))
            }
            (_, true) => Ok(Some(Which::Upto(Applicability::Unsafe))),
            (Some(None), false) => Ok(Some(Which::Upto(Applicability::Safe))),
            (None, false) => Ok(None),
        }
    }

    fn wants(&self, r: &Repair) -> bool {
        match self {
            Which::Upto(a) => r.applicability <= *a,
            Which::Codes(codes) => codes.iter().any(|c| c == r.code),
        }
    }
}

/// Whether a streamed file has a diagnostic whose repair needs the whole file ([`gedgraft_edit::WHOLE_FILE_CODES`]):
/// `check` then reads it whole, so that its report is the same either way. Counted in the first pass: the
/// encoding notes and `lf-cr-line-breaks` (`mixed-line-breaks`: [`gedgraft_syntax::stream::FileWide::codes`]).
/// The repairs of [`gedgraft_edit::GATHERED_CODES`] stream, from what a pass gathers first
/// ([`gedgraft_edit::FileFacts`]): a `record-after-trailer` is only noted ([`NeedsWholeFile::gathered`]);
/// identifiers held twice are the lowering index's to tell.
pub(crate) struct NeedsWholeFile {
    found: bool,
    gathered: bool,
}

impl NeedsWholeFile {
    pub(crate) fn new(detection: &gedgraft_syntax::encoding::Detection) -> NeedsWholeFile {
        let mut needs = NeedsWholeFile {
            found: false,
            gathered: false,
        };
        needs.add(detection.notes.iter().map(|n| n.code));
        needs
    }

    /// Counts one batch.
    pub(crate) fn count(&mut self, batch: &Parse) {
        if self.found && self.gathered {
            return;
        }
        self.add(batch.diagnostics().iter().map(|d| d.code));
    }

    fn add(&mut self, codes: impl Iterator<Item = &'static str>) {
        for code in codes.filter(|c| gedgraft_edit::WHOLE_FILE_CODES.contains(c)) {
            match gedgraft_edit::GATHERED_CODES.contains(&code) {
                true => self.gathered = true,
                false => self.found = true,
            }
        }
    }

    /// Whether a repair needs the whole file.
    pub(crate) fn found(&self) -> bool {
        self.found
    }

    /// Whether a repair needs what a pass over the file gathers ([`gedgraft_edit::FileFacts`]).
    pub(crate) fn gathered(&self) -> bool {
        self.gathered
    }
}

/// A file after its repairs: the new parse, the changes from the input, and how many repairs were applied.
pub(crate) struct Outcome {
    pub parse: Parse,
    pub changes: Vec<Change>,
    pub applied: usize,
}

/// Repairs `parse` as `which` asks, to a fixed point; `None` when nothing changed. `notes` gets the lines to
/// tell the user: repairs left when the passes ran out, unsafe repairs that `--repair` did not apply.
pub(crate) fn repair_file(
    parse: &Parse,
    which: &Which,
    options: &ParseOptions,
    name: &str,
    notes: &mut Vec<String>,
) -> Result<Option<Outcome>, String> {
    let input = std::borrow::Cow::Owned(parse.to_bytes().map_err(|e| format!("{name}: {e}"))?);
    let Some(repaired) = repaired(input, (Some(parse), None), which, options, name, notes) else {
        return Ok(None);
    };
    Ok(Some(Outcome {
        parse: gedgraft_syntax::parse_with(&repaired.bytes, options),
        changes: repaired.changes,
        applied: repaired.applied,
    }))
}

/// [`repair_file`] of a file's octets, with no tree of the whole file where every pass streams: the repaired
/// octets, their changes from `octets` and how many repairs were applied; `None` when nothing changed.
/// `first`: the repairs of the first pass if they were found already ([`first_pass_of_file`]).
pub(crate) fn repair_octets(
    octets: &[u8],
    first: Option<Vec<Repair>>,
    which: &Which,
    options: &ParseOptions,
    name: &str,
    notes: &mut Vec<String>,
) -> Option<gedgraft_edit::Repaired> {
    repaired(
        std::borrow::Cow::Borrowed(octets),
        (None, first),
        which,
        options,
        name,
        notes,
    )
}

/// The repairs to a fixed point, a pass streamed where it can be (the first pass's repairs given, if found
/// already); `None` when nothing changed.
fn repaired(
    input: std::borrow::Cow<'_, [u8]>,
    (parse, mut first): (Option<&Parse>, Option<Vec<Repair>>),
    which: &Which,
    options: &ParseOptions,
    name: &str,
    notes: &mut Vec<String>,
) -> Option<gedgraft_edit::Repaired> {
    let streamed = |octets: &[u8], each: &mut dyn FnMut(Repair)| {
        if let Some(found) = first.take() {
            found.into_iter().for_each(each);
            return true;
        }
        let open = || crate::stream_check::batches_of(octets, options).map(Batches::here);
        !crate::stream_fix::whole_file_forced() && streamed_pass(open, each).is_some()
    };
    let repaired = gedgraft_edit::repair_to_fixed_point_streamed(
        input,
        parse,
        options,
        diagnose,
        streamed,
        |r| which.wants(r),
    );
    notes.extend(leftover_notes(
        name,
        which,
        repaired.left,
        repaired.unwanted_unsafe,
    ));
    (!repaired.changes.is_empty()).then_some(repaired)
}

/// The repairs of the file at `path`, one pass streamed from the file (or the copy of an input that reads
/// once, [`crate::input::open`]) as
/// [`streamed_pass`] makes it: a file with none is left as it is with its octets never held (`gedgraft fix
/// --repair` on a clean file, #17: the 100 MB sample in the memory of a batch and the index); the repairs of a
/// file with some are the first pass of [`repair_octets`]. `None` when the pass needs the whole file, the
/// whole-file path is asked for, or the repairs are too many to keep (the fixed point finds them again).
pub(crate) fn first_pass_of_file(
    path: &std::path::Path,
    options: &ParseOptions,
) -> Option<Vec<Repair>> {
    if crate::stream_fix::whole_file_forced() {
        return None;
    }
    // Past this many edits the repairs are not kept: the fixed point finds them again from the octets. Kept, they
    // were held with the octets and the fixed point's own passes (#12, `duplicate-ids`, 350 000 records each
    // with a fresh identifier: 92.7 → 138.1 MiB at 4 MB).
    const KEPT_EDITS: usize = 1 << 16;
    let (mut found, mut edits, mut many) = (Vec::new(), 0usize, false);
    let open = || crate::stream_check::open_batches(path, options);
    streamed_pass(open, &mut |r| {
        edits = edits.saturating_add(r.edits.len());
        many |= edits > KEPT_EDITS;
        match many {
            true => found = Vec::new(),
            false => found.push(r),
        }
    })?;
    (!many).then_some(found)
}

/// The repairs of one pass over the file `open` reads (each call from its start) as a streamed `check` makes
/// them (batch by batch, in the
/// same order as the whole file's: [`crate::stream_check`]), given to `each`; `None` when the pass needs the
/// whole file (what sends `check` to its whole-file path: not GEDCOM, notes of the whole body, a repair that
/// needs the whole file). Memory: a batch, the index of identifiers and, in a file with identifiers held
/// twice, where their holders are; not a tree of the whole file, nor its diagnostics. A run of diagnostics
/// across a cut between batches, one diagnostic with one repair in the whole file, is repaired whole with the
/// batches that hold it ([`crate::stream_check::Runs`]).
fn streamed_pass<'a>(
    open: impl Fn() -> Option<Batches<'a>>,
    each: &mut dyn FnMut(Repair),
) -> Option<()> {
    use crate::stream_check::{gather_names, index_pass_of, second_pass, BatchRepairs};
    let lower = gedgraft_model::LowerOptions::default();
    let indexed = index_pass_of(&open, &lower, false)?;
    if indexed.needs_whole_file {
        return None;
    }
    let (mut lowering, mut file_wide, mut facts) = (
        indexed.lowering.diagnostics_only(),
        indexed.file_wide,
        indexed.facts,
    );
    if lowering.has_duplicate_identifier() {
        gather_names(open()?, &lowering, &mut facts).ok()?;
    }
    // A run of one code across a cut is counted in its first diagnostic, whose repair is the whole run's, made
    // with the batches that hold the rest of it.
    let lowerings = (&mut lowering, &mut file_wide);
    second_pass(
        indexed.batches,
        lowerings,
        |_| (),
        |run, lowering, lowered| {
            let diagnostics = lowered.all_diagnostics(run.0.parse());
            let mut slices = BatchRepairs::new(run, &diagnostics, Some(&facts));
            while let Some((_, repairs)) = slices.next_slice(Some(&mut facts), lowering) {
                repairs.into_iter().flatten().for_each(&mut *each);
            }
            Ok(())
        },
    )
    .ok()
}

/// What a repair run left undone, as lines for standard error.
fn leftover_notes(name: &str, which: &Which, left: usize, unwanted_unsafe: usize) -> Vec<String> {
    use crate::words::s;
    let mut notes = Vec::new();
    if left > 0 {
        notes.push(format!(
            "{name}: warning: {left} repair{} left after {} passes (each repair can uncover another); run the \
             same `gedgraft fix` on the output to continue",
            s(left),
            gedgraft_edit::MAX_PASSES
        ));
    }
    if unwanted_unsafe > 0 && *which == Which::Upto(Applicability::Safe) {
        notes.push(format!(
            "{name}: hint: {unwanted_unsafe} unsafe repair{} available with `--repair-unsafe` (guesses: see \
             `gedgraft check`)",
            s(unwanted_unsafe)
        ));
    }
    notes
}

/// The `= help:` text of a repair: what it does and the command that does it.
pub(crate) fn help(r: &Repair) -> String {
    let option = match r.applicability {
        Applicability::Safe => "--repair",
        _ => "--repair-unsafe",
    };
    format!("{} (`gedgraft fix {option}`)", r.message)
}

/// How many diagnostics have a safe repair, and how many an unsafe one, for the summary line.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fixable {
    pub safe: u64,
    pub unsafe_: u64,
}

impl Fixable {
    pub(crate) fn count(&mut self, r: &Repair) {
        match r.applicability {
            Applicability::Safe => self.safe += 1,
            _ => self.unsafe_ += 1,
        }
    }

    /// `3 diagnostics fixable with `gedgraft fix --repair` (1 more with `--repair-unsafe`)`, or nothing.
    pub(crate) fn summary(&self) -> Option<String> {
        let n = |k: u64| format!("{k} diagnostic{}", crate::words::s(k));
        match (self.safe, self.unsafe_) {
            (0, 0) => None,
            (0, u) => Some(format!(
                "{} fixable with `gedgraft fix --repair-unsafe`",
                n(u)
            )),
            (s, 0) => Some(format!("{} fixable with `gedgraft fix --repair`", n(s))),
            (s, u) => Some(format!(
                "{} fixable with `gedgraft fix --repair` ({u} more with `--repair-unsafe`)",
                n(s)
            )),
        }
    }
}

/// Appends `,"fix":{…}` for a repair: `applicability`, `message`, and `edits`, each `{"start", "end",
/// "replacement"}` in the file's octets. The replacement is a JSON string when its octets are UTF-8 (whatever
/// the file's encoding, these are the file's octets: in a UTF-16 or ANSEL file they are rarely UTF-8), else
/// `"replacement_hex"` gives the octets as hexadecimal digits (`"C3A9"`) and `"replacement"` is absent.
pub(crate) fn fix_json(out: &mut String, r: &Repair) {
    out.push_str(",\"fix\":{\"applicability\":");
    json_string(r.applicability.as_str(), out);
    out.push_str(",\"message\":");
    json_string(&r.message, out);
    out.push_str(",\"edits\":[");
    for (i, e) in r.edits.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"start\":{},\"end\":{},",
            e.range.start, e.range.end
        );
        match std::str::from_utf8(&e.replacement) {
            Ok(text) => {
                out.push_str("\"replacement\":");
                json_string(text, out);
            }
            Err(_) => {
                out.push_str("\"replacement_hex\":\"");
                for b in &e.replacement {
                    let _ = write!(out, "{b:02X}");
                }
                out.push('"');
            }
        }
        out.push('}');
    }
    out.push_str("]}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_safe_and_unsafe_like_rustc() {
        let f = Fixable {
            safe: 3,
            unsafe_: 1,
        };
        assert_eq!(
            f.summary().as_deref(),
            Some("3 diagnostics fixable with `gedgraft fix --repair` (1 more with `--repair-unsafe`)")
        );
        assert_eq!(Fixable::default().summary(), None);
        let one = Fixable {
            safe: 0,
            unsafe_: 1,
        };
        assert_eq!(
            one.summary().as_deref(),
            Some("1 diagnostic fixable with `gedgraft fix --repair-unsafe`")
        );
    }
}
