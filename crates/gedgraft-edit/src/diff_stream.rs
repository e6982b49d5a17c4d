//! The line diff of a file edited batch by batch ([`StreamedDiff`]): each batch's diff is made as the batch is
//! edited, and only what the file's diff prints is kept, so memory grows with the size of the change and not of
//! the file, as with [`LineDiff`] of a whole file, and the diff is the same.
//!
//! A batch's diff knows the lines of its own batch only. What a hunk needs from its neighbours is read while they
//! are at hand: the lines before a change near a batch's start from the last batches (kept until then, at most
//! three), the lines after a change near a batch's end from the next batches as they come. Such lines are equal
//! on both sides (a changed line is always held), so they are read once, from the old side, and placed on both
//! sides at their own line numbers.

use crate::diff::{push_op, Flat, Side, CONTEXT};
use crate::diff_lines::Lines;
use crate::diff_scan::Scan;
use crate::edited::{Change, Edited};
use crate::LineDiff;
use gedgraft_encoding::Encoding;
use gedgraft_syntax::Parse;
use similar::DiffOp;
use std::collections::VecDeque;

/// The [`LineDiff`] of a file edited batch by batch, as a [`RecordStream`](gedgraft_syntax::stream::RecordStream)
/// gives it: the batches' old and new parses, in order, with the changes of each. The result is the diff the
/// whole file's old and new parses would give.
///
/// ```
/// use gedgraft_edit::{Editor, StreamedDiff};
/// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
/// let file = b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 @I2@ INDI\n1 NAME Ann\n0 TRLR\n";
/// let mut diff = StreamedDiff::new();
/// for batch in RecordStream::new(&file[..], StreamOptions::default().with_batch_size(1)).unwrap() {
///     let batch = batch.unwrap();
///     let mut editor = Editor::new(batch.parse());
///     editor.rename_tag("NAME", "_NAME", None).unwrap();
///     let edited = editor.apply().unwrap();
///     diff.push_edited(batch.parse(), &edited, edited.changed_ranges());
/// }
/// let diff = diff.finish();
/// assert_eq!((diff.removed(), diff.added()), (2, 2));
/// assert!(diff.unified("a", "b").starts_with("--- a\n+++ b\n@@ -1,6 +1,6 @@\n 0 HEAD\n 0 @I1@ INDI\n-1 NAME Bob\n"));
/// ```
#[derive(Default)]
pub struct StreamedDiff {
    /// The file's operations and held lines so far, in file line numbers; `end` is where the last window ends.
    flat: Option<Flat>,
    encodings: Option<(Encoding, Encoding)>,
    /// How many lines after the last change are known to exist (at most [`CONTEXT`]).
    after: usize,
    /// An old and a new line number that face each other: where the last batch with a change ends.
    sync: (usize, usize),
    /// The last batches, newest last.
    recent: VecDeque<Recent>,
}

/// A batch kept for the context of a change at the start of the next: its first line numbers (old, new), and
/// its last lines if its diff read them, else its old parse to scan for them.
struct Recent {
    old_base: usize,
    new_base: usize,
    last: Last,
}

/// Where a kept batch's last lines are.
enum Last {
    Read(Lines),
    InParse(Box<Parse>),
}

impl std::fmt::Debug for StreamedDiff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamedDiff")
            .field("after", &self.after)
            .field("sync", &self.sync)
            .finish_non_exhaustive()
    }
}

impl StreamedDiff {
    /// No batch yet.
    pub fn new() -> StreamedDiff {
        StreamedDiff::default()
    }

    /// No batch yet, of files read in these encodings (old, new): batches pushed with no change, their old
    /// side given for the new, do not tell the new file's.
    pub(crate) fn with_encodings(encodings: (Encoding, Encoding)) -> StreamedDiff {
        StreamedDiff {
            encodings: Some(encodings),
            ..StreamedDiff::default()
        }
    }

    /// The next batch: its parse before and after the edit, and the changes between them.
    pub fn push(&mut self, old: &Parse, new: &Parse, changes: &[Change]) {
        self.push_side(old, Side::of(new), changes);
    }

    /// [`push`](StreamedDiff::push) for an edit's result, without parsing its output.
    pub fn push_edited(&mut self, old: &Parse, new: &Edited, changes: &[Change]) {
        self.push_side(old, new.side(), changes);
    }

    fn push_side(&mut self, old: &Parse, new: Side, changes: &[Change]) {
        let old_side = Side::of(old);
        self.encodings
            .get_or_insert((old_side.encoding, new.encoding));
        let old_base = old.origin().line.saturating_sub(1);
        let new_base = self.sync.1 + old_base.saturating_sub(self.sync.0);
        let batch = (!changes.is_empty())
            .then(|| Flat::of(old_side, new, changes, true))
            .filter(|f| f.ops.iter().any(|op| !matches!(op, DiffOp::Equal { .. })));
        let Some(batch) = batch else {
            // No line differs: this batch may give the lines after the last change.
            let wanted = self.wanted_after();
            let count = self.read_equal(old_side, (old_base, new_base), &wanted);
            self.after = (self.after + count.min(wanted.len())).min(CONTEXT);
            self.keep_recent(old_base, new_base, Last::InParse(Box::new(old.clone())));
            return;
        };
        let first_change = batch
            .ops
            .iter()
            .find(|op| !matches!(op, DiffOp::Equal { .. }))
            .map_or(0, |op| op.old_range().start);
        // The lines after the last change that this batch holds before its own first change.
        let wanted: Vec<usize> = self
            .wanted_after()
            .into_iter()
            .filter(|&l| l < first_change && batch.old.find(l).is_none())
            .collect();
        self.flat.get_or_insert_with(|| Flat {
            old: Lines::default(),
            new: Lines::default(),
            ops: Vec::new(),
            end: (0, 0),
            counts: (0, 0),
            old_tail: Lines::default(),
        });
        // The lines before the first change that the last batches hold.
        if first_change < CONTEXT {
            self.read_before(old_base, new_base, CONTEXT - first_change);
        }
        self.read_equal(old_side, (old_base, new_base), &wanted);
        let Some(all) = self.flat.as_mut() else {
            return;
        };
        if old_base > all.end.0 {
            push_op(
                &mut all.ops,
                DiffOp::Equal {
                    old_index: all.end.0,
                    new_index: all.end.1,
                    len: old_base - all.end.0,
                },
            );
        }
        for &op in &batch.ops {
            push_op(&mut all.ops, crate::unified::shift(op, old_base, new_base));
        }
        all.old.append_shifted(&batch.old, old_base);
        all.new.append_shifted(&batch.new, new_base);
        all.end = (old_base + batch.end.0, new_base + batch.end.1);
        self.after = batch.counts.0.saturating_sub(batch.end.0).min(CONTEXT);
        self.sync = (old_base + batch.counts.0, new_base + batch.counts.1);
        self.keep_recent(old_base, new_base, Last::Read(batch.old_tail));
    }

    /// The batch's lines (from its first) that the last change still wants after it.
    fn wanted_after(&self) -> Vec<usize> {
        match &self.flat {
            Some(_) => (0..CONTEXT.saturating_sub(self.after)).collect(),
            None => Vec::new(),
        }
    }

    /// Reads the equal lines `wanted` of a batch (its old side) and places them at `bases` on both sides;
    /// gives the batch's line count (0 if nothing was wanted).
    fn read_equal(
        &mut self,
        old: Side,
        (old_base, new_base): (usize, usize),
        wanted: &[usize],
    ) -> usize {
        let Some(all) = self.flat.as_mut().filter(|_| !wanted.is_empty()) else {
            return 0;
        };
        let found = Scan::run(old, &[], wanted, 0);
        all.old.append_shifted(&found.lines, old_base);
        all.new.append_shifted(&found.lines, new_base);
        found.count
    }

    /// Reads the `n` lines before the batch starting at old line `old_base` (new line `new_base`) that are not
    /// held yet, from the last batches.
    fn read_before(&mut self, old_base: usize, new_base: usize, n: usize) {
        let Some(all) = &mut self.flat else {
            return;
        };
        let from = old_base.saturating_sub(n);
        let missing = all.old.missing(std::iter::once(from..old_base));
        // Newest first: the lines after a batch's last change face each other as at the next batch's start.
        let mut shift_start = (old_base, new_base);
        let mut reads: Vec<(Lines, usize, usize)> = Vec::new();
        for r in self.recent.iter().rev() {
            let wanted: Vec<usize> = missing
                .iter()
                .filter(|&&l| l >= r.old_base && l < shift_start.0)
                .map(|&l| l - r.old_base)
                .collect();
            if !wanted.is_empty() {
                // Line `old_base + k` of the old side is line `old_base + k + (new - old)` of the new side.
                let new_first = (r.old_base + shift_start.1).saturating_sub(shift_start.0);
                let found = match &r.last {
                    Last::Read(tail) => {
                        let mut found = Lines::default();
                        for &l in &wanted {
                            found.copy_line(tail, l);
                        }
                        found
                    }
                    Last::InParse(parse) => Scan::run(Side::of(parse), &[], &wanted, 0).lines,
                };
                reads.push((found, r.old_base, new_first));
            }
            shift_start = (r.old_base, r.new_base);
            if r.old_base <= from {
                break;
            }
        }
        for (found, old_first, new_first) in reads.into_iter().rev() {
            all.old.append_shifted(&found, old_first);
            all.new.append_shifted(&found, new_first);
        }
    }

    fn keep_recent(&mut self, old_base: usize, new_base: usize, last: Last) {
        self.recent.push_back(Recent {
            old_base,
            new_base,
            last,
        });
        if self.recent.len() > CONTEXT {
            self.recent.pop_front();
        }
    }

    /// The diff of the whole file.
    pub fn finish(self) -> LineDiff {
        let encodings = self.encodings.unwrap_or((Encoding::Utf8, Encoding::Utf8));
        let Some(mut all) = self.flat else {
            return LineDiff::empty(encodings);
        };
        if self.after > 0 {
            push_op(
                &mut all.ops,
                DiffOp::Equal {
                    old_index: all.end.0,
                    new_index: all.end.1,
                    len: self.after,
                },
            );
        }
        all.into_diff(true, None, encodings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Editor;
    use gedgraft_syntax::stream::{RecordStream, StreamOptions};
    use proptest::prelude::*;

    /// The edit of the tests: `NAME` renamed, and with `delete` every `NOTE` of a record deleted (lines
    /// go, so the two sides' line numbers part).
    fn edit<'p>(parse: &'p Parse, delete: bool) -> Edited<'p> {
        let mut editor = Editor::new(parse);
        editor.rename_tag("NAME", "_NAME", None).expect("rename");
        if delete {
            let notes = crate::Scope::parse("*.NOTE").expect("a path");
            for s in editor.select(&notes) {
                editor.delete(&s).expect("delete");
            }
        }
        editor.apply().expect("apply")
    }

    /// The edit made in every batch of `file` cut at `batch_size` octets, diffed batch by batch.
    fn streamed(file: &[u8], batch_size: usize, delete: bool) -> String {
        let mut diff = StreamedDiff::new();
        let options = StreamOptions::default().with_batch_size(batch_size);
        for batch in RecordStream::new(file, options).expect("a stream") {
            let batch = batch.expect("a batch");
            let edited = edit(batch.parse(), delete);
            diff.push_edited(batch.parse(), &edited, edited.changed_ranges());
        }
        diff.finish().unified("a", "b")
    }

    fn whole(file: &[u8], delete: bool) -> String {
        let parse = gedgraft_syntax::parse(file);
        let diff = edit(&parse, delete).unified_diff("a", "b");
        diff
    }

    /// Records with and without a `NAME` line near their start and end, with LF and CR LF.
    const RECORDS: &[&str] = &[
        "0 @I@ INDI\n1 NAME a\n",
        "0 @I@ INDI\n1 SEX M\n1 BIRT\n2 DATE 1900\n1 DEAT Y\n1 NAME b\n",
        "0 @N@ NOTE x\n",
        "0 @S@ SOUR\n1 TITL t\n1 AUTH u\n1 PUBL v\n1 NOTE w\n",
        "0 @F@ FAM\r\n1 NAME c\r\n1 HUSB @I@\r\n",
        "0 @R@ REPO\n1 NAME d\n1 NOTE e\n1 NOTE f\n1 NOTE g\n1 NOTE h\n1 NAME i\n",
        "0 @T@ _X\n1 _Y\n1 _Z\n1 NOTE j\n2 CONT k\n",
        "0 @U@ SUBM\r1 NOTE l\r1 _W m\r",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// The diff made batch by batch is the whole file's, wherever the batches are cut: context lines
        /// come from the neighbouring batches, hunks join across cuts, line-break markers are the file's.
        #[test]
        fn a_streamed_diff_is_the_whole_files(
            picks in proptest::collection::vec(0..RECORDS.len(), 0..25),
            batch_size in 1usize..400,
            ends_without_break in any::<bool>(),
            delete in any::<bool>(),
        ) {
            let mut file = String::from("0 HEAD\n1 CHAR UTF-8\n");
            for p in picks {
                file.push_str(RECORDS[p]);
            }
            file.push_str("0 TRLR");
            if !ends_without_break {
                file.push('\n');
            }
            prop_assert_eq!(
                streamed(file.as_bytes(), batch_size, delete),
                whole(file.as_bytes(), delete)
            );
        }
    }

    #[test]
    fn a_file_without_changes_has_an_empty_streamed_diff() {
        let file = b"0 HEAD\n0 @I1@ INDI\n1 SEX M\n0 TRLR\n";
        assert_eq!(streamed(file, 1, true), "");
    }

    /// Lines deleted in one batch shift the new side's numbers of every later batch and hunk.
    #[test]
    fn deletions_shift_the_later_hunks() {
        let file =
            "0 HEAD\n0 @R@ REPO\n1 NOTE e\n1 NOTE f\n1 NAME x\n0 @S@ SOUR\n1 TITL t\n1 AUTH u\n\
                    1 PUBL v\n1 _A a\n1 _B b\n1 _C c\n1 NOTE w\n0 TRLR\n";
        let diff = streamed(file.as_bytes(), 1, true);
        assert_eq!(diff, whole(file.as_bytes(), true));
        assert!(diff.contains("@@ -1,8 +1,6 @@"), "{diff}");
        assert!(diff.contains("@@ -10,5 +8,4 @@"), "{diff}");
    }
}
