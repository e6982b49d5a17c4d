//! Repairs applied: the octets spliced ([`splice`], under [`apply_repairs`](super::apply_repairs)) and the
//! passes of [`repair_to_fixed_point`].
//!
//! A pass keeps of each wanted repair only its edits, in one [`Plan`] for the pass, and lets go of the
//! diagnostics and of its parse before the octets are spliced (#12: 350 000 renamed identifiers held a
//! diagnostic, a repair with its message and two vectors each, and two parses at once). A pass can take its
//! repairs from a streamed check instead ([`repair_to_fixed_point_streamed`]): no tree of the whole file.

use super::{each_repair, Applicability, Repair, Repaired};
use crate::edited::{compose_changes, merge_changes, Change};
use gedgraft_syntax::{Diagnostic, Parse, ParseOptions};
use std::borrow::Cow;
use std::ops::Range;

/// At most this many passes of [`repair_to_fixed_point`].
pub const MAX_PASSES: usize = 16;

/// Applies repairs given as their edits (octet ranges of `input` and their replacements): every octet outside
/// their edits is copied. A repair whose edits overlap those of a repair before it is left out (whole), for a
/// later pass.
pub(super) fn splice<'e, E>(input: &[u8], chosen: impl IntoIterator<Item = E>) -> Repaired
where
    E: IntoIterator<Item = (Range<usize>, &'e [u8])>,
{
    let mut taken: Vec<(Range<usize>, &[u8])> = Vec::new();
    // The ranges taken so far, disjoint: an edit is checked against its neighbours only (linear overall).
    let mut claimed: std::collections::BTreeSet<(usize, usize)> = std::collections::BTreeSet::new();
    let mut applied_indices = Vec::new();
    let mut own: Vec<(Range<usize>, &[u8])> = Vec::new();
    for (index, repair) in chosen.into_iter().enumerate() {
        own.clear();
        own.extend(repair);
        own.sort_by_key(|e| (e.0.start, e.0.end));
        let valid = own
            .iter()
            .all(|e| e.0.start <= e.0.end && e.0.end <= input.len())
            && own.windows(2).all(|w| !overlaps(&w[0].0, &w[1].0));
        let fits = valid
            && own.iter().all(|e| {
                claimed
                    .range(..=(e.0.end, usize::MAX))
                    .rev()
                    .take_while(|c| c.1 >= e.0.start)
                    .all(|c| !overlaps(&(c.0..c.1), &e.0))
            });
        if fits && !own.is_empty() {
            applied_indices.push(index);
            claimed.extend(own.iter().map(|e| (e.0.start, e.0.end)));
            taken.append(&mut own);
        }
    }
    drop(claimed);
    taken.sort_by_key(|e| (e.0.start, e.0.end));
    let grown: usize = taken.iter().map(|e| e.1.len()).sum();
    let shrunk: usize = taken.iter().map(|e| e.0.len()).sum();
    let mut bytes = Vec::with_capacity((input.len() + grown).saturating_sub(shrunk));
    let mut at = 0;
    for (range, replacement) in &taken {
        bytes.extend_from_slice(&input[at..range.start]);
        bytes.extend_from_slice(replacement);
        at = range.end;
    }
    bytes.extend_from_slice(&input[at..]);
    // Made in the edits' own room (collected in place): a pass can change every line (#12).
    let changes = merge_changes(
        taken
            .into_iter()
            .map(|(range, replacement)| (range.start, range.end, replacement.len()))
            .collect(),
    );
    Repaired {
        bytes,
        changes,
        applied: applied_indices.len(),
        applied_indices,
        left: 0,
        unwanted_unsafe: 0,
    }
}

/// Whether two ranges share an octet, or two insertions (or an insertion and an edge) meet at one point.
fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    (a.start < b.end && b.start < a.end)
        || ((a.is_empty() || b.is_empty()) && a.start <= b.end && b.start <= a.end)
}

/// The wanted repairs of one pass, in the order of their diagnostics, with only what applying them needs: each
/// one's applicability and edits, the edits of all in one list and their replacements in one buffer (a
/// [`Repair`] has a message and two vectors of its own).
#[derive(Default)]
struct Plan {
    /// Per repair: its applicability, and where its edits end in `edits`.
    repairs: Vec<(Applicability, usize)>,
    /// Per edit: the octets replaced, and where its replacement ends in `replacements`.
    edits: Vec<(Range<usize>, usize)>,
    replacements: Vec<u8>,
}

impl Plan {
    fn push(&mut self, repair: Repair) {
        for e in repair.edits {
            self.replacements.extend_from_slice(&e.replacement);
            self.edits.push((e.range, self.replacements.len()));
        }
        self.repairs.push((repair.applicability, self.edits.len()));
    }

    fn len(&self) -> usize {
        self.repairs.len()
    }

    /// The edits of each repair `keep` accepts, in order.
    fn edits(
        &self,
        keep: impl Fn(Applicability) -> bool,
    ) -> impl Iterator<Item = impl Iterator<Item = (Range<usize>, &[u8])>> {
        let starts = std::iter::once(0).chain(self.repairs.iter().map(|r| r.1));
        self.repairs
            .iter()
            .zip(starts)
            .filter(move |((applicability, _), _)| keep(*applicability))
            .map(|(&(_, end), start)| {
                let edits = self.edits.get(start..end).unwrap_or_default();
                let from = start
                    .checked_sub(1)
                    .and_then(|i| self.edits.get(i))
                    .map_or(0, |e| e.1);
                edits.iter().scan(from, |from, (range, to)| {
                    let replacement = self.replacements.get(*from..*to).unwrap_or_default();
                    *from = *to;
                    Some((range.clone(), replacement))
                })
            })
    }
}

/// The wanted repairs of one pass as they come ([`PassRepairs::take`]), and how many unsafe ones were not
/// wanted.
#[derive(Default)]
struct PassRepairs {
    plan: Plan,
    unwanted_unsafe: usize,
}

impl PassRepairs {
    fn take(&mut self, r: Repair, wanted: &impl Fn(&Repair) -> bool) {
        if wanted(&r) {
            self.plan.push(r);
        } else if r.applicability != Applicability::Safe {
            self.unwanted_unsafe += 1;
        }
    }
}

/// Repairs `parse` (of the octets `input`, read with `options`) to a fixed point: each pass diagnoses the file
/// with `diagnose`, keeps the repairs `wanted` accepts (the safe ones while there are any, then the others),
/// applies them, and parses the result with `options`;
/// it stops when a pass applies nothing, or after [`MAX_PASSES`] (then [`Repaired::left`] counts the wanted
/// repairs still there). The result's changes compare the input with the final octets.
pub fn repair_to_fixed_point(
    input: &[u8],
    parse: &Parse,
    options: &ParseOptions,
    diagnose: impl FnMut(&Parse) -> Vec<Diagnostic>,
    wanted: impl Fn(&Repair) -> bool,
) -> Repaired {
    let input = Cow::Borrowed(input);
    repair_to_fixed_point_streamed(input, Some(parse), options, diagnose, |_, _| false, wanted)
}

/// [`repair_to_fixed_point`] whose passes find their repairs without a tree of the whole file where they can:
/// `streamed(octets, each)` gives `each` the repairs of the file `octets` (those a parse and `diagnose` would
/// give, in the same order: a streamed check's, `gedgraft fix --repair`) and returns `true`, or returns `false`
/// when it cannot; that pass is then made on a parse of the whole file (`parse` for the first, if given; else
/// the octets are parsed then, so that a caller whose passes stream holds no tree of the whole file at all), as
/// [`repair_to_fixed_point`] makes every pass. The repairs a `false` pass gave are dropped. An owned `input`
/// is let go of once the first pass has changed it.
pub fn repair_to_fixed_point_streamed(
    input: Cow<'_, [u8]>,
    parse: Option<&Parse>,
    options: &ParseOptions,
    mut diagnose: impl FnMut(&Parse) -> Vec<Diagnostic>,
    mut streamed: impl FnMut(&[u8], &mut dyn FnMut(Repair)) -> bool,
    wanted: impl Fn(&Repair) -> bool,
) -> Repaired {
    let mut bytes = input;
    let mut changes: Vec<Change> = Vec::new();
    let mut applied = 0;
    let (mut left, mut unwanted_unsafe) = (0, 0);
    // One pass more than the limit, which only counts what is left.
    for pass_number in 0..=MAX_PASSES {
        let mut pass = PassRepairs::default();
        if !streamed(&bytes, &mut |r| pass.take(r, &wanted)) {
            pass = PassRepairs::default();
            // The first pass reads the parse given, if any; a later one parses its octets, and lets go of the
            // parse and of the diagnostics before the octets are spliced (#12: 350 000 renamed identifiers held
            // a diagnostic, a repair with its message and two vectors each, and two parses at once).
            let owned;
            let current = match parse.filter(|_| pass_number == 0) {
                Some(given) => given,
                None => {
                    owned = gedgraft_syntax::parse_with(&bytes, options);
                    &owned
                }
            };
            let diagnostics = diagnose(current);
            let refs: Vec<&Diagnostic> = diagnostics.iter().collect();
            each_repair(current, &refs, |_, r| pass.take(r, &wanted));
        }
        let PassRepairs {
            plan,
            unwanted_unsafe: unwanted,
        } = pass;
        unwanted_unsafe = unwanted;
        if pass_number == MAX_PASSES {
            left = plan.len();
            break;
        }
        // Safe repairs first: a guess is made only about what they leave (a split character joined
        // first is no reason to change `CHAR`).
        let any_safe = plan.repairs.iter().any(|r| r.0 == Applicability::Safe);
        let spliced = splice(
            &bytes,
            plan.edits(|a| !any_safe || a == Applicability::Safe),
        );
        drop(plan);
        if spliced.applied == 0 || spliced.changes.is_empty() {
            break;
        }
        applied += spliced.applied;
        changes = if changes.is_empty() {
            spliced.changes
        } else {
            compose_changes(&changes, &spliced.changes)
        };
        bytes = Cow::Owned(spliced.bytes);
    }
    Repaired {
        bytes: bytes.into_owned(),
        changes,
        applied,
        applied_indices: Vec::new(),
        left,
        unwanted_unsafe,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::tests::repair_with as repair;

    /// A streamed pass gives the whole file's repairs; a pass that gives up has its repairs dropped and is made
    /// on the whole file: the result is the whole file's either way.
    #[test]
    fn streamed_passes_and_passes_that_give_up_repair_as_the_whole_file() {
        let input = b"0 HEAD\n1 CHAR UTF-8\n\n0 @I1@ INDI\n1 NOTE a@b\n\n\n0 @I2@ INDI\n1 NOTE c@d\n0 TRLR\n";
        let parse = gedgraft_syntax::parse(input);
        let options = ParseOptions::default();
        let diagnose = |p: &Parse| p.diagnostics().to_vec();
        let whole = repair_to_fixed_point(input, &parse, &options, diagnose, |_| true);
        assert!(whole.applied > 0 && whole.bytes != input);
        // Given the parse, or left to parse the octets where a pass gives up: the same result.
        for (gives_up, given) in [(0, Some(&parse)), (1, Some(&parse)), (0, None), (1, None)] {
            let mut passes = 0;
            let streamed = |octets: &[u8], each: &mut dyn FnMut(Repair)| {
                let parse = gedgraft_syntax::parse_with(octets, &options);
                let diagnostics = diagnose(&parse);
                let refs: Vec<&Diagnostic> = diagnostics.iter().collect();
                each_repair(&parse, &refs, |_, r| each(r));
                passes += 1;
                passes % 2 != gives_up
            };
            let input = Cow::Borrowed(&input[..]);
            let got =
                repair_to_fixed_point_streamed(input, given, &options, diagnose, streamed, |_| {
                    true
                });
            assert_eq!(got, whole);
        }
    }

    #[test]
    fn a_plan_gives_back_each_repairs_edits_and_splices_as_the_repairs_do() {
        let input = b"abcdefgh";
        let repairs = [
            repair(Applicability::Safe, &[(1..2, b"XY"), (4..4, b"")]),
            repair(Applicability::Unsafe, &[(5..6, b"")]),
            repair(Applicability::Safe, &[(6..8, b"Z"), (0..0, b"<")]),
        ];
        let mut plan = Plan::default();
        for r in repairs.clone() {
            plan.push(r);
        }
        assert_eq!(plan.len(), 3);
        let all: Vec<Vec<(Range<usize>, &[u8])>> =
            plan.edits(|_| true).map(Vec::from_iter).collect();
        let expected: Vec<Vec<(Range<usize>, &[u8])>> = repairs
            .iter()
            .map(|r| {
                r.edits
                    .iter()
                    .map(|e| (e.range.clone(), e.replacement.as_slice()))
                    .collect()
            })
            .collect();
        assert_eq!(all, expected);
        let refs: Vec<&Repair> = repairs.iter().collect();
        assert_eq!(
            splice(input, plan.edits(|_| true)),
            crate::apply_repairs(input, &refs)
        );
        let safe = splice(input, plan.edits(|a| a == Applicability::Safe));
        assert_eq!(safe.bytes, b"<aXYcdefZ");
    }
}
