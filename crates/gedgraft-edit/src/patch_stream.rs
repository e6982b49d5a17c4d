//! The octet patch of a file edited batch by batch ([`StreamedPatch`]): the same patch [`octet_patch`] makes of
//! the whole file, made from each batch's old and new octets and changes as they come, keeping only the lines
//! the patch prints (the changed lines and their context), so memory grows with the size of the change.
//!
//! A batch is placed up to a cut where no change can reach across: its lines up to the last line break that a
//! window of changed lines does not reach (a window takes the line after a change that ends at a line's start,
//! and windows that touch are one window). What lies after the cut, a line the batch ends inside of included,
//! is carried into the next batch. Lines of context before a window that lie in batches already placed are
//! kept from the last three lines placed; lines after a window are taken as the next batches are placed.
//!
//! [`octet_patch`]: crate::octet_patch

use crate::diff::{push_op, CONTEXT};
use crate::edited::Change;
use crate::patch::{line, line_starts, window, write_hunks};
use crate::unified::{joined_windows, shift, Window};
use similar::DiffOp;
use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;

/// The most octets carried from batch to batch (see [`StreamedPatch::finish`]).
const MAX_CARRY: usize = 16 << 20;

/// The octet patch ([`octet_patch`](crate::octet_patch)) of a file edited batch by batch: each batch's old
/// octets, new octets and changes (octet ranges within the batch), in order; the result is the whole file's
/// patch. Not for UTF-16 files (the caller refuses them, as `octet_patch` does).
///
/// ```
/// use gedgraft_edit::{octet_patch, Change, StreamedPatch};
/// use gedgraft_encoding::Encoding;
/// let (old, new) = (&b"0 HEAD\n1 NOTE a\n0 TRLR\n"[..], &b"0 HEAD\n1 NOTE bc\n0 TRLR\n"[..]);
/// let mut patch = StreamedPatch::new();
/// patch.push(&old[..7], &new[..7], &[]);
/// patch.push(&old[7..], &new[7..], &[Change { input: 7..8, output: 7..9 }]);
/// let whole = octet_patch(old, Encoding::Utf8, new, Encoding::Utf8, &[Change { input: 14..15, output: 14..16 }], "a/f", "b/f");
/// assert_eq!(patch.finish("a/f", "b/f"), whole);
/// ```
#[derive(Debug, Default)]
pub struct StreamedPatch {
    /// The octets after the last cut, old and new, and the changes within them (from the carried octets' start).
    carry: (Vec<u8>, Vec<u8>),
    carry_changes: Vec<Change>,
    /// The file's line numbers (old, new) of the first carried line.
    base: (usize, usize),
    /// Where the last window placed ends (old, new); `None` before the first.
    at: Option<(usize, usize)>,
    ops: Vec<DiffOp>,
    /// The lines the patch prints, by line number: old lines (changed or context), new lines (changed).
    held_old: BTreeMap<usize, Vec<u8>>,
    held_new: BTreeMap<usize, Vec<u8>>,
    /// The last old lines placed (at most [`CONTEXT`]), newest last: context for a window at the next batch's
    /// start.
    recent: VecDeque<(usize, Vec<u8>)>,
    /// Whether any batch's octets changed.
    differs: bool,
    /// Whether the patch cannot be made batch by batch ([`StreamedPatch::finish`]).
    astray: bool,
}

impl StreamedPatch {
    /// A patch of no batch yet.
    pub fn new() -> StreamedPatch {
        StreamedPatch::default()
    }

    /// Adds a batch: its old and new octets, and the changes between them (ranges within the batch).
    pub fn push(&mut self, old: &[u8], new: &[u8], changes: &[Change]) {
        self.differs |= old != new;
        self.place(old, new, changes, false);
    }

    /// The patch, with the headers `--- old_name` and `+++ new_name` (empty when nothing changed); `None` when
    /// it cannot be made batch by batch: a change after the file's last line break (the whole file's patch
    /// then joins windows of lines however far apart, or widens one to the file's start), a run of changed
    /// lines (or a line) longer than 16 MiB, or changes that are not the batches' differences. Make it from
    /// the whole file then.
    pub fn finish(mut self, old_name: &str, new_name: &str) -> Option<Vec<u8>> {
        self.place(&[], &[], &[], true);
        if self.astray {
            return None;
        }
        if !self.differs {
            return Some(Vec::new());
        }
        let (old_count, new_count) = self.base;
        // No window, or lines after the last that differ in number: the whole file's patch widens its windows.
        let (oi, ni) = self.at?;
        if old_count - oi != new_count - ni {
            return None;
        }
        if oi < old_count && ni < new_count {
            let rest = DiffOp::Equal {
                old_index: oi,
                new_index: ni,
                len: (old_count - oi).min(new_count - ni),
            };
            push_op(&mut self.ops, rest);
        }
        let groups = similar::group_diff_ops(self.ops, CONTEXT);
        let (held_old, held_new) = (&self.held_old, &self.held_new);
        Some(write_hunks(
            groups,
            |l| held_old.get(&l).map_or(&[][..], Vec::as_slice),
            |l| held_new.get(&l).map_or(&[][..], Vec::as_slice),
            old_name,
            new_name,
        ))
    }

    /// Places the carried octets and a batch's up to the cut (all of them when `last`).
    fn place(&mut self, old: &[u8], new: &[u8], changes: &[Change], last: bool) {
        let (mut old_all, mut new_all) = std::mem::take(&mut self.carry);
        let (co, cn) = (old_all.len(), new_all.len());
        old_all.extend_from_slice(old);
        new_all.extend_from_slice(new);
        let mut all = std::mem::take(&mut self.carry_changes);
        all.extend(changes.iter().map(|c| Change {
            input: c.input.start + co..c.input.end + co,
            output: c.output.start + cn..c.output.end + cn,
        }));
        if all
            .iter()
            .any(|c| c.input.end > old_all.len() || c.output.end > new_all.len())
        {
            self.astray = true;
        }
        all.sort_by_key(|c| (c.input.start, c.output.start));
        let (old_starts, new_starts) = (line_starts(&old_all), line_starts(&new_all));
        // Lines ending in a line break (all of them at the end of the file).
        let done = |octets: &[u8], starts: &[usize]| match last || octets.ends_with(b"\n") {
            true => starts.len(),
            false => starts.len().saturating_sub(1),
        };
        let (old_done, new_done) = (done(&old_all, &old_starts), done(&new_all, &new_starts));
        let windows = merged_windows(&all, &old_starts, &new_starts);
        let (base_o, base_n) = self.base;
        // Where the lines face each other: the end of the last window placed here, else the carry's start.
        let mut reference = (0, 0);
        let mut deferred: Option<&Window> = None;
        for w in &windows {
            let (wo, wn) = w;
            if !last && (wo.end >= old_done || wn.end >= new_done) {
                deferred = Some(w);
                break;
            }
            self.place_window(
                (
                    base_o + wo.start..base_o + wo.end,
                    base_n + wn.start..base_n + wn.end,
                ),
                |l| line(&old_all, &old_starts, l - base_o),
                |l| line(&new_all, &new_starts, l - base_n),
            );
            reference = (wo.end, wn.end);
        }
        // The cut: as many lines past the reference on both sides, up to the first window left for later and
        // to the last complete line.
        let (ro, rn) = reference;
        let mut ahead = (old_done.saturating_sub(ro)).min(new_done.saturating_sub(rn));
        if let Some((wo, wn)) = deferred {
            ahead = ahead
                .min(wo.start.saturating_sub(ro))
                .min(wn.start.saturating_sub(rn));
        }
        let (cut_o, cut_n) = match last {
            true => (old_starts.len(), new_starts.len()),
            false => (ro + ahead, rn + ahead),
        };
        // Context after the windows so far, and the last lines placed.
        let through = base_o + cut_o;
        self.hold_context_after(through, |l| line(&old_all, &old_starts, l - base_o));
        for l in through.saturating_sub(CONTEXT).max(base_o)..through {
            self.recent
                .push_back((l, line(&old_all, &old_starts, l - base_o).to_vec()));
        }
        while self.recent.len() > CONTEXT {
            self.recent.pop_front();
        }
        let at = |starts: &[usize], cut: usize, len: usize| starts.get(cut).copied().unwrap_or(len);
        let (from_o, from_n) = (
            at(&old_starts, cut_o, old_all.len()),
            at(&new_starts, cut_n, new_all.len()),
        );
        self.carry_changes = all
            .into_iter()
            .filter(|c| c.input.start >= from_o && c.output.start >= from_n)
            .map(|c| Change {
                input: c.input.start - from_o..c.input.end - from_o,
                output: c.output.start - from_n..c.output.end - from_n,
            })
            .collect();
        old_all.drain(..from_o.min(old_all.len()));
        new_all.drain(..from_n.min(new_all.len()));
        // A window that goes on batch after batch (every line changed, or lines that never end) is carried
        // whole and copied with each batch: past this, the whole file's patch is made instead.
        if old_all.len().max(new_all.len()) > MAX_CARRY {
            self.astray = true;
            old_all = Vec::new();
            new_all = Vec::new();
            self.carry_changes.clear();
        }
        self.carry = (old_all, new_all);
        self.base = (base_o + cut_o, base_n + cut_n);
    }

    /// Keeps the old lines of context after the last window placed that lie in this batch and before `until`
    /// (those before this batch were kept with the batch before).
    fn hold_context_after<'a>(&mut self, until: usize, old_line: impl Fn(usize) -> &'a [u8]) {
        let (base_o, _) = self.base;
        if let Some((oi, _)) = self.at {
            for l in oi.max(base_o)..(oi + CONTEXT).min(until) {
                self.held_old
                    .entry(l)
                    .or_insert_with(|| old_line(l).to_vec());
            }
        }
    }

    /// Places a window of lines (file line numbers) read by `old_line` and `new_line`: the equal lines before
    /// it, its line diff, and the lines the patch prints.
    fn place_window<'a>(
        &mut self,
        (wo, wn): (Range<usize>, Range<usize>),
        old_line: impl Fn(usize) -> &'a [u8],
        new_line: impl Fn(usize) -> &'a [u8],
    ) {
        let (base_o, _) = self.base;
        // Context after the window before, up to this one.
        self.hold_context_after(wo.start, &old_line);
        let apart = match self.at {
            // Lines before the first window that differ in number: the whole file's window starts at line 0.
            None => wo.start != wn.start,
            Some((oi, ni)) => wo.start < oi || wn.start < ni || wo.start - oi != wn.start - ni,
        };
        self.astray |= apart;
        let (oi, ni) = self.at.unwrap_or((0, 0));
        if wo.start > oi {
            let gap = DiffOp::Equal {
                old_index: oi,
                new_index: ni,
                len: wo.start - oi,
            };
            push_op(&mut self.ops, gap);
        }
        let a: Vec<&[u8]> = wo.clone().map(&old_line).collect();
        let b: Vec<&[u8]> = wn.clone().map(&new_line).collect();
        for op in crate::diff_ops::line_ops(&a, &b) {
            push_op(&mut self.ops, shift(op, wo.start, wn.start));
        }
        for (l, text) in wo.clone().zip(&a) {
            self.held_old.insert(l, text.to_vec());
        }
        for (l, text) in wn.clone().zip(&b) {
            self.held_new.insert(l, text.to_vec());
        }
        // Context before: from this batch, or from the last lines placed before it.
        for l in wo.start.saturating_sub(CONTEXT)..wo.start {
            let text = if l >= base_o {
                Some(old_line(l).to_vec())
            } else {
                (self.recent.iter().find(|(n, _)| *n == l)).map(|(_, t)| t.clone())
            };
            if let Some(text) = text {
                self.held_old.entry(l).or_insert(text);
            }
        }
        // The context after it is taken before the next window, or when the cut is placed.
        self.at = Some((wo.end, wn.end));
    }
}

/// The windows of lines around `changes` (sorted), merged as [`octet_patch`](crate::octet_patch) merges them
/// (its widening at the file's ends aside).
fn merged_windows(changes: &[Change], old_starts: &[usize], new_starts: &[usize]) -> Vec<Window> {
    let around = changes
        .iter()
        .map(|c| (window(old_starts, &c.input), window(new_starts, &c.output)));
    joined_windows(around, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::octet_patch;
    use gedgraft_encoding::Encoding;
    use proptest::prelude::*;

    /// A file of lines from a small alphabet (so that lines repeat), with LF, CR LF and lone CR breaks and
    /// maybe no last break; edits that replace ranges of it; cuts between the edits.
    /// An edit: where, how many octets it replaces, with what.
    type Edit = (usize, usize, Vec<u8>);

    fn case() -> impl Strategy<Value = (Vec<u8>, Vec<Edit>, Vec<usize>)> {
        let line = (
            proptest::collection::vec(prop::sample::select(b"ab0 ".to_vec()), 0..6),
            prop::sample::select(vec![&b"\n"[..], b"\r\n", b"\r", b""]),
        );
        proptest::collection::vec(line, 0..40).prop_flat_map(|lines| {
            let old: Vec<u8> = lines
                .into_iter()
                .flat_map(|(t, b)| [t, b.to_vec()].concat())
                .collect();
            let len = old.len();
            let edit = (
                0..=len,
                0..4usize,
                proptest::collection::vec(prop::sample::select(b"ab\n\rX".to_vec()), 0..5),
            );
            (
                Just(old),
                proptest::collection::vec(edit, 0..6),
                proptest::collection::vec(0..=len, 0..8),
            )
        })
    }

    /// The edits as sorted, non-overlapping changes: the new file, and the changes.
    fn apply(old: &[u8], edits: Vec<Edit>) -> (Vec<u8>, Vec<Change>) {
        let mut ranges: Vec<Edit> = edits
            .into_iter()
            .map(|(at, n, with)| (at, (at + n).min(old.len()), with))
            .collect();
        ranges.sort_by_key(|r| (r.0, r.1));
        let (mut new, mut changes, mut copied) = (Vec::new(), Vec::new(), 0);
        for (start, end, with) in ranges {
            if start < copied || (start == copied && !changes.is_empty()) {
                continue; // overlapping or touching the last: dropped
            }
            new.extend_from_slice(&old[copied..start]);
            let at = new.len();
            new.extend_from_slice(&with);
            changes.push(Change {
                input: start..end,
                output: at..new.len(),
            });
            copied = end;
        }
        new.extend_from_slice(&old[copied..]);
        (new, changes)
    }

    /// Whether the whole file's patch widens a window to the file's start or end (lines before the first or
    /// after the last that differ in number, or no change at all).
    /// A window at a file's end can differ in lines on the two sides (a change after the last line break), and
    /// the windows are then joined to the one before it however far.
    fn widens(old: &[u8], new: &[u8], changes: &[Change]) -> bool {
        let (old_starts, new_starts) = (line_starts(old), line_starts(new));
        let (old_count, new_count) = (old_starts.len(), new_starts.len());
        let windows = merged_windows(changes, &old_starts, &new_starts);
        let at_end = changes.iter().any(|c| {
            window(&old_starts, &c.input).end == old_count
                || window(&new_starts, &c.output).end == new_count
        });
        match (windows.first(), windows.last()) {
            (Some((fo, fn_)), Some((lo, ln))) => {
                at_end || fo.start != fn_.start || old_count - lo.end != new_count - ln.end
            }
            _ => old != new,
        }
    }

    /// Changes in the middle of a file cut in many batches: made batch by batch (no fallback), and the whole
    /// file's patch.
    #[test]
    fn changes_inside_the_file_are_patched_batch_by_batch() {
        let old: Vec<u8> = (0..200)
            .flat_map(|i| format!("1 NOTE n{i}\n").into_bytes())
            .collect();
        let mut new = Vec::new();
        let mut changes = Vec::new();
        for (i, line) in old.split_inclusive(|&b| b == b'\n').enumerate() {
            let at = new.len();
            if i % 37 == 5 {
                let start = line.as_ptr() as usize - old.as_ptr() as usize;
                new.extend_from_slice(b"1 NOTE changed\n");
                changes.push(Change {
                    input: start..start + line.len(),
                    output: at..new.len(),
                });
            } else {
                new.extend_from_slice(line);
            }
        }
        let whole = octet_patch(
            &old,
            Encoding::Utf8,
            &new,
            Encoding::Utf8,
            &changes,
            "a/f",
            "b/f",
        );
        // Cuts at the line start after every 97th octet.
        let cuts = (0..old.len()).step_by(97).skip(1).map(|cut| {
            (old[cut..].iter().position(|&b| b == b'\n')).map_or(old.len(), |p| cut + p + 1)
        });
        let streamed = in_batches(&old, &new, &changes, cuts.collect());
        assert!(streamed.is_some(), "made batch by batch");
        assert_eq!(streamed, whole);
        assert!(whole.is_some_and(|w| w.len() > 100));
    }

    /// The patch of `old` → `new` (with `changes`, sorted) made in batches cut at the octets `cuts` of `old` (none
    /// inside a change; a change starting at a cut goes to the batch after it).
    fn in_batches(
        old: &[u8],
        new: &[u8],
        changes: &[Change],
        mut cuts: Vec<usize>,
    ) -> Option<Vec<u8>> {
        cuts.push(old.len());
        cuts.sort_unstable();
        cuts.dedup();
        let mut patch = StreamedPatch::new();
        let (mut from_old, mut from_new) = (0, 0);
        for cut in cuts {
            let last = cut == old.len();
            let local: Vec<Change> = changes
                .iter()
                .filter(|c| {
                    c.input.start >= from_old
                        && (c.input.start < cut || (last && c.input.start == cut))
                })
                .map(|c| Change {
                    input: c.input.start - from_old..c.input.end - from_old,
                    output: c.output.start - from_new..c.output.end - from_new,
                })
                .collect();
            let shift: isize = (changes.iter().filter(|c| c.input.start < cut))
                .map(|c| c.output.len() as isize - c.input.len() as isize)
                .sum();
            let to_new = if last {
                new.len()
            } else {
                (cut as isize + shift) as usize
            };
            patch.push(&old[from_old..cut], &new[from_new..to_new], &local);
            (from_old, from_new) = (cut, to_new);
        }
        patch.finish("a/f", "b/f")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Cut anywhere outside the changes, the batches' patch is the whole file's.
        #[test]
        fn the_patch_of_batches_is_the_whole_files((old, edits, cuts) in case()) {
            let (new, changes) = apply(&old, edits);
            let whole = octet_patch(&old, Encoding::Utf8, &new, Encoding::Utf8, &changes, "a/f", "b/f");
            let cuts: Vec<usize> = cuts
                .into_iter()
                .filter(|&c| changes.iter().all(|ch| c <= ch.input.start || c >= ch.input.end))
                .collect();
            match in_batches(&old, &new, &changes, cuts) {
                Some(streamed) => prop_assert_eq!(Some(streamed), whole),
                // Only where the whole file's windows widen to its start or its end.
                None => prop_assert!(widens(&old, &new, &changes), "no patch made batch by batch"),
            }
        }
    }
}
