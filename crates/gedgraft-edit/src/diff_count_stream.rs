//! A file's review diff, its line counts and its octet patch from its old and new octets alone
//! ([`LineDiff::counts_of_octets`], [`LineDiff::of_octets`], [`StreamedPatch::of_octets`]): the old octets read
//! batch by batch ([`RecordStream`]), and each batch taken with the piece of the new octets its changes make of
//! it, so that neither side is ever a tree of the whole file (`gedgraft fix --repair`, whose passes stream,
//! writes octets and shows its changes so, #12).
//!
//! A window of the diff is the lines its changes touch ([`crate::diff_count`]), and the lines between windows are
//! the same on both sides; a batch ends after a line break, at a record. So where no change touches the cut
//! between two batches (neither inside it nor at its edge), no window spans the cut, and the file's counts are
//! the sums of the batches' (and the diff and the patch are the batches' joined, as [`crate::StreamedDiff`] and
//! [`StreamedPatch`] join them). Batches with a change across (or at) the cut between them are taken together.
//!
//! [`StreamedPatch`]: crate::StreamedPatch
//! [`StreamedPatch::of_octets`]: crate::StreamedPatch::of_octets

use crate::diff::Side;
use crate::edited::Change;
use crate::LineDiff;
use gedgraft_encoding::Encoding;
use gedgraft_syntax::internal::located_like;
use gedgraft_syntax::stream::{Batch, RecordStream, StreamError, StreamOptions};
use gedgraft_syntax::{Parse, ParseOptions};
use std::ops::Range;

impl LineDiff {
    /// The counts of [`LineDiff::counts`] (how many lines the review diff removes and adds) of the files
    /// `old` and `new`, octets that differ only in `changes` (sorted, disjoint: as [`crate::Edited`] and the
    /// repairs give them), each read as `options` say: `new` in the encoding its own head gives. Memory: a
    /// batch of each side, not a tree of either file (files that are not GEDCOM, or changes out of order, are
    /// parsed whole).
    ///
    /// ```
    /// use gedgraft_edit::{Change, LineDiff};
    /// use gedgraft_syntax::stream::StreamOptions;
    /// let old = b"0 HEAD\n0 @I1@ INDI\n0 @I1@ INDI\n0 TRLR\n";
    /// let new = b"0 HEAD\n0 @I1@ INDI\n0 @I2@ INDI\n0 TRLR\n";
    /// let changes = [Change { input: 25..26, output: 25..26 }];
    /// let options = StreamOptions::default().with_batch_size(1);
    /// assert_eq!(LineDiff::counts_of_octets(old, new, &changes, &options), (1, 1));
    /// ```
    pub fn counts_of_octets(
        old: &[u8],
        new: &[u8],
        changes: &[Change],
        options: &StreamOptions,
    ) -> (usize, usize) {
        if changes.is_empty() {
            return (0, 0);
        }
        let streamed = in_order_within(old, new, changes).then(|| {
            let (mut removed, mut added) = (0, 0);
            let encodings = encodings(old, new, options)?;
            each_group(
                (old, new),
                changes,
                options,
                encodings,
                |(old, changed), _| {
                    if let Some((new, changes)) = changed {
                        let (r, a) = LineDiff::count_between(Side::of(old), Side::of(new), changes);
                        (removed, added) = (removed + r, added + a);
                    }
                },
            )?;
            Ok::<_, StreamError>((removed, added))
        });
        match streamed.and_then(Result::ok) {
            Some(counts) => counts,
            None => {
                let (old, new) = parse_whole(old, new, options);
                LineDiff::counts(&old, &new, changes)
            }
        }
    }

    /// The review diff of [`LineDiff::new`] of the files `old` and `new`, octets that differ only in
    /// `changes`, made as [`LineDiff::counts_of_octets`] counts it: batch by batch ([`crate::StreamedDiff`]),
    /// with no tree of either file. Memory: a batch of each side, and the lines the diff shows.
    ///
    /// ```
    /// use gedgraft_edit::{Change, LineDiff};
    /// use gedgraft_syntax::stream::StreamOptions;
    /// let old = b"0 HEAD\n0 @I1@ INDI\n0 @I1@ INDI\n0 TRLR\n";
    /// let new = b"0 HEAD\n0 @I1@ INDI\n0 @I2@ INDI\n0 TRLR\n";
    /// let changes = [Change { input: 25..26, output: 25..26 }];
    /// let options = StreamOptions::default().with_batch_size(1);
    /// let diff = LineDiff::of_octets(old, new, &changes, &options);
    /// assert!(diff.unified("a", "b").contains("-0 @I1@ INDI\n+0 @I2@ INDI\n"));
    /// ```
    pub fn of_octets(
        old: &[u8],
        new: &[u8],
        changes: &[Change],
        options: &StreamOptions,
    ) -> LineDiff {
        let streamed = in_order_within(old, new, changes).then(|| {
            let encodings = encodings(old, new, options)?;
            if changes.is_empty() {
                return Ok(LineDiff::empty(encodings));
            }
            let mut diff = crate::StreamedDiff::with_encodings(encodings);
            each_group(
                (old, new),
                changes,
                options,
                encodings,
                |(old, changed), _| match changed {
                    Some((new, changes)) => diff.push(old, new, changes),
                    None => diff.push(old, old, &[]),
                },
            )?;
            Ok::<_, StreamError>(diff.finish())
        });
        match streamed.and_then(Result::ok) {
            Some(diff) => diff,
            None => {
                let (old, new) = parse_whole(old, new, options);
                LineDiff::new(&old, &new, changes)
            }
        }
    }
}

impl crate::StreamedPatch {
    /// The octet patch of [`octet_patch`](crate::octet_patch) of the files `old` and `new`, octets that differ
    /// only in `changes`, made batch by batch as [`LineDiff::of_octets`] makes the review diff, with no tree
    /// of either file (empty without changes), and in the same pass the review diff's line counts
    /// ([`LineDiff::counts_of_octets`]: the patch's own lines end at LF only); `None` where the whole files
    /// must make it (UTF-16, which has no patch; a change after the last line break; a file that is not
    /// GEDCOM: [`StreamedPatch::finish`](crate::StreamedPatch::finish)).
    ///
    /// ```
    /// use gedgraft_edit::{Change, StreamedPatch};
    /// use gedgraft_syntax::stream::StreamOptions;
    /// let old = b"0 HEAD\n0 @I1@ INDI\n0 @I1@ INDI\n0 TRLR\n";
    /// let new = b"0 HEAD\n0 @I1@ INDI\n0 @I2@ INDI\n0 TRLR\n";
    /// let changes = [Change { input: 25..26, output: 25..26 }];
    /// let options = StreamOptions::default().with_batch_size(1);
    /// let (patch, counts) = StreamedPatch::of_octets(old, new, &changes, &options, ("a/f", "b/f")).unwrap();
    /// assert!(patch.ends_with(b"-0 @I1@ INDI\n+0 @I2@ INDI\n 0 TRLR\n"));
    /// assert_eq!(counts, (1, 1));
    /// ```
    pub fn of_octets(
        old: &[u8],
        new: &[u8],
        changes: &[Change],
        options: &StreamOptions,
        (old_name, new_name): (&str, &str),
    ) -> Option<(Vec<u8>, (usize, usize))> {
        if changes.is_empty() {
            return Some((Vec::new(), (0, 0)));
        }
        if !in_order_within(old, new, changes) {
            return None;
        }
        let encodings = encodings(old, new, options).ok()?;
        if encodings.0.is_utf16() || encodings.1.is_utf16() {
            return None;
        }
        let mut patch = crate::StreamedPatch::new();
        let (mut removed, mut added) = (0, 0);
        each_group(
            (old, new),
            changes,
            options,
            encodings,
            |(old_side, changed), (o, n)| {
                let (old, new) = (
                    old.get(o).unwrap_or_default(),
                    new.get(n).unwrap_or_default(),
                );
                patch.push(old, new, changed.map_or(&[][..], |c| c.1));
                if let Some((new_side, changes)) = changed {
                    let (r, a) =
                        LineDiff::count_between(Side::of(old_side), Side::of(new_side), changes);
                    (removed, added) = (removed + r, added + a);
                }
            },
        )
        .ok()?;
        Some((patch.finish(old_name, new_name)?, (removed, added)))
    }
}

/// Whether `changes` are in order, disjoint and within both files.
fn in_order_within(old: &[u8], new: &[u8], changes: &[Change]) -> bool {
    let in_order = changes
        .windows(2)
        .all(|w| w[0].input.end <= w[1].input.start && w[0].output.end <= w[1].output.start);
    in_order
        && changes
            .iter()
            .all(|c| c.input.end <= old.len() && c.output.end <= new.len())
}

/// Both files parsed whole (what the stream cannot read: not GEDCOM).
fn parse_whole(old: &[u8], new: &[u8], options: &StreamOptions) -> (Parse, Parse) {
    let options = ParseOptions::default().with_detect(options.detect);
    (
        gedgraft_syntax::parse_with(old, &options),
        gedgraft_syntax::parse_with(new, &options),
    )
}

/// The batches of `old` from the first not yet counted: where they start in `old` and in `new`, and the first
/// of them (whose parse the pieces are read like).
struct Group {
    old_start: usize,
    new_start: usize,
    first: Batch,
    /// Whether the group is its first batch alone (its parse is the old side's).
    alone: bool,
}

/// The encodings the whole files `old` and `new` are read in, from their heads as the stream reads them.
fn encodings(
    old: &[u8],
    new: &[u8],
    options: &StreamOptions,
) -> Result<(Encoding, Encoding), StreamError> {
    let old = RecordStream::new(old, options.clone())?.detection().used;
    let new = RecordStream::new(new, options.clone())?.detection().used;
    Ok((old, new))
}

/// One group of batches, as [`each_group`] gives it: the old side's parse (located at the group's start in the
/// file), and the new side's parse with the changes, relative to the two pieces, when the group has any.
type GroupSides<'g> = (&'g Parse, Option<(&'g Parse, &'g [Change])>);

/// Reads `old` batch by batch and gives `each` every group of batches in order: a batch alone, or batches with
/// a change across or at the cut between them, with the piece of `new` their changes make of them, and where
/// the two pieces lie in `old` and `new`.
fn each_group(
    (old, new): (&[u8], &[u8]),
    changes: &[Change],
    options: &StreamOptions,
    (old_encoding, new_encoding): (Encoding, Encoding),
    mut each: impl FnMut(GroupSides, (Range<usize>, Range<usize>)),
) -> Result<(), StreamError> {
    let mut batches = RecordStream::new(old, options.clone())?.peekable();
    let mut next = 0;
    // Where the last change taken ends, in `old` and in `new`: octets after it are at the same distance.
    let mut shift = (0usize, 0usize);
    let mut pending: Option<Group> = None;
    while let Some(batch) = batches.next() {
        let batch = batch?;
        let offset = usize::try_from(batch.offset()).map_err(|_| StreamError::NeedsWholeFile)?;
        let end = offset + batch.len();
        let group = match pending.take() {
            Some(g) => Group { alone: false, ..g },
            None => Group {
                old_start: offset,
                new_start: offset - shift.0 + shift.1,
                first: batch,
                alone: true,
            },
        };
        let last = batches.peek().is_none();
        let rest = &changes[next..];
        let touches_cut = rest
            .iter()
            .take_while(|c| c.input.start <= end)
            .any(|c| c.input.end >= end);
        if touches_cut && !last {
            pending = Some(group);
            continue;
        }
        let taken = match last {
            true => rest.len(),
            false => rest.iter().take_while(|c| c.input.start < end).count(),
        };
        let own = &rest[..taken];
        next += taken;
        if let Some(c) = own.last() {
            shift = (c.input.end, c.output.end);
        }
        let (old_end, new_end) = match last {
            true => (old.len(), new.len()),
            false => (end, end - shift.0 + shift.1),
        };
        let ranges = (group.old_start..old_end, group.new_start..new_end);
        if own.is_empty() && group.alone {
            each((group.first.parse(), None), ranges);
            continue;
        }
        let pieces = (
            (ranges.0.clone(), old_encoding),
            (ranges.1.clone(), new_encoding),
        );
        let sides =
            group_sides(&group, (old, new), pieces, own).ok_or(StreamError::NeedsWholeFile)?;
        let old_side = sides.old.as_ref().unwrap_or(group.first.parse());
        each((old_side, Some((&sides.new, &sides.changes))), ranges);
    }
    Ok(())
}

/// A group's pieces parsed: the old one (none when the group is its first batch alone, whose parse it is),
/// the new one, and the changes relative to them.
struct Sides {
    old: Option<Parse>,
    new: Parse,
    changes: Vec<Change>,
}

/// The sides of one group of batches: its piece of each side parsed as its first batch was, the old one
/// located where that batch is, and its changes made relative to the pieces.
fn group_sides(
    group: &Group,
    (old, new): (&[u8], &[u8]),
    ((old_range, old_encoding), (new_range, new_encoding)): (
        (Range<usize>, Encoding),
        (Range<usize>, Encoding),
    ),
    changes: &[Change],
) -> Option<Sides> {
    let like = group.first.parse();
    let piece = |bytes: &[u8], range: Range<usize>, encoding| {
        let bytes = bytes.get(range)?;
        Some(Parse::from_edited_like(like.green().clone(), bytes, encoding, like).0)
    };
    let old_side = match group.alone {
        true => None,
        false => Some(located_like(
            piece(old, old_range.clone(), old_encoding)?,
            like,
        )),
    };
    let new_side = piece(new, new_range.clone(), new_encoding)?;
    let within = |r: &Range<usize>, of: &Range<usize>| {
        Some(r.start.checked_sub(of.start)?..r.end.checked_sub(of.start)?)
    };
    let relative: Vec<Change> = changes
        .iter()
        .map(|c| {
            Some(Change {
                input: within(&c.input, &old_range)?,
                output: within(&c.output, &new_range)?,
            })
        })
        .collect::<Option<_>>()?;
    Some(Sides {
        old: old_side,
        new: new_side,
        changes: relative,
    })
}

#[cfg(test)]
mod tests {
    //! The counts from the octets, batch by batch, against [`LineDiff::counts`] of the two whole files.

    use super::*;
    use crate::diff_count::tests::{edit, file_of, EDITS, RECORDS};
    use crate::edited::merge_changes;
    use crate::Editor;
    use proptest::prelude::*;

    fn whole_counts(old: &[u8], new: &[u8], changes: &[Change]) -> (usize, usize) {
        let (old, new) = (gedgraft_syntax::parse(old), gedgraft_syntax::parse(new));
        LineDiff::counts(&old, &new, changes)
    }

    /// The whole files' review diff.
    fn whole_diff(old: &[u8], new: &[u8], changes: &[Change]) -> String {
        let (old, new) = (gedgraft_syntax::parse(old), gedgraft_syntax::parse(new));
        LineDiff::new(&old, &new, changes).unified("a", "b")
    }

    /// The streamed octet patch, where it can be made, is the whole files' (`octet_patch`), and so are its
    /// counts.
    fn patch_as_whole(old: &[u8], new: &[u8], changes: &[Change], options: &StreamOptions) -> bool {
        let names = ("a/f", "b/f");
        let Some((streamed, counts)) =
            crate::StreamedPatch::of_octets(old, new, changes, options, names)
        else {
            return true;
        };
        let (o, n) = (gedgraft_syntax::parse(old), gedgraft_syntax::parse(new));
        let whole = crate::octet_patch(old, o.encoding(), new, n.encoding(), changes, "a/f", "b/f");
        whole.as_ref() == Some(&streamed) && counts == LineDiff::counts(&o, &n, changes)
    }

    /// The counts with batches of one record, of a few and of the default size, all the whole files'.
    fn assert_counts_as_whole(old: &[u8], new: &[u8], changes: &[Change]) -> (usize, usize) {
        let want = whole_counts(old, new, changes);
        for size in [1, 60, StreamOptions::DEFAULT_BATCH_SIZE] {
            let options = StreamOptions::default().with_batch_size(size);
            let got = LineDiff::counts_of_octets(old, new, changes, &options);
            assert_eq!(got, want, "batches of {size} octets");
            let streamed = LineDiff::of_octets(old, new, changes, &options).unified("a", "b");
            assert_eq!(
                streamed,
                whole_diff(old, new, changes),
                "batches of {size} octets"
            );
            assert!(
                patch_as_whole(old, new, changes, &options),
                "batches of {size} octets"
            );
        }
        want
    }

    /// Octets replaced in place: `(start, end, replacement)`, sorted and disjoint.
    fn spliced(old: &[u8], edits: &[(usize, usize, &[u8])]) -> (Vec<u8>, Vec<Change>) {
        let mut new = Vec::new();
        let mut at = 0;
        for (start, end, replacement) in edits {
            new.extend_from_slice(&old[at..*start]);
            new.extend_from_slice(replacement);
            at = *end;
        }
        new.extend_from_slice(&old[at..]);
        let raw = edits.iter().map(|(s, e, r)| (*s, *e, r.len())).collect();
        (new, merge_changes(raw))
    }

    #[test]
    fn a_renamed_identifier_per_record_counts_a_line_per_record() {
        let mut old = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
        let mut edits = Vec::new();
        for _ in 0..200 {
            old.extend_from_slice(b"0 @I1@ INDI\n");
            edits.push((old.len() - 8, old.len() - 7, &b"22"[..]));
        }
        old.extend_from_slice(b"0 TRLR\n");
        let (new, changes) = spliced(&old, &edits);
        assert_eq!(assert_counts_as_whole(&old, &new, &changes), (200, 200));
    }

    #[test]
    fn changes_at_and_across_the_cuts_between_batches_are_counted_with_both_batches() {
        let old = b"0 HEAD\n0 @A@ INDI\n0 @B@ INDI\n0 @C@ INDI\n0 TRLR\n";
        // A line break removed at the end of a record (at the cut), one record joined to the next (across
        // it), lines inserted at a record's start (at the cut), and the last line break removed.
        let edits: [&[(usize, usize, &[u8])]; 4] = [
            &[(17, 18, b"")],
            &[(15, 21, b"X")],
            &[(18, 18, b"0 @N@ NOTE\n1 CONT x\n")],
            &[(old.len() - 1, old.len(), b"")],
        ];
        for e in edits {
            let (new, changes) = spliced(old, e);
            assert_counts_as_whole(old, &new, &changes);
        }
    }

    #[test]
    fn a_byte_order_mark_a_new_encoding_and_utf16_are_read_as_the_whole_files() {
        // The header's encoding changed: the new side is read as UTF-8 (unless a byte-order mark says UTF-8
        // either way). The diff is of the octets changed: the lines no change touches are the same on both
        // sides, as in the whole file's diff, whatever they decode to.
        for bom in [&b""[..], b"\xEF\xBB\xBF"] {
            let old = [
                bom,
                b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME J\xE2ose\n0 TRLR\n",
            ]
            .concat();
            let at = old.windows(5).position(|w| w == b"ANSEL").unwrap();
            let (new, changes) = spliced(&old, &[(at, at + 5, b"UTF-8")]);
            assert_eq!(assert_counts_as_whole(&old, &new, &changes), (1, 1));
        }
        let text = "0 HEAD\n1 CHAR UNICODE\n0 @I1@ INDI\n1 NAME A\n0 @I2@ INDI\n1 NAME B\n0 TRLR\n";
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let old = gedgraft_syntax::parse(&utf16);
        let mut editor = Editor::new(&old);
        editor.rename_tag("NAME", "_NAME", None).unwrap();
        let edited = editor.apply().unwrap();
        let counts = assert_counts_as_whole(&utf16, edited.bytes(), edited.changed_ranges());
        assert_eq!(counts, (2, 2));
    }

    /// The trailer before two records moved to the end of a file with no final line break (the
    /// `record-after-trailer` repair): the text's end is inside the last line, not at a line start, so the
    /// change there widens no window into the batch before it (found by a differential run of `fix --repair`).
    #[test]
    fn a_change_at_the_end_of_a_text_with_no_final_line_break_stays_in_its_batch() {
        let old = b"0 HEAD\r1 CHAR UTF-8\r0 TRLR\r0 @I29@ INDI\r0 @O30@ OBJE";
        let at = old.windows(6).position(|w| w == b"0 TRLR").unwrap();
        let end = old.len();
        let (new, changes) = spliced(old, &[(at, at + 7, b""), (end, end, b"\r0 TRLR")]);
        assert_eq!(
            &new,
            b"0 HEAD\r1 CHAR UTF-8\r0 @I29@ INDI\r0 @O30@ OBJE\r0 TRLR"
        );
        assert_eq!(assert_counts_as_whole(old, &new, &changes), (2, 2));
        let options = StreamOptions::default().with_batch_size(1);
        let diff = LineDiff::of_octets(old, &new, &changes, &options).unified("a", "b");
        assert!(diff.ends_with("-0 TRLR\n 0 @I29@ INDI\n-0 @O30@ OBJE\n\\ No newline at end of file\n+0 @O30@ OBJE\n+0 TRLR\n\\ No newline at end of file\n"), "{diff}");
    }

    #[test]
    fn no_changes_count_nothing_and_a_file_that_is_not_gedcom_is_read_whole() {
        let options = StreamOptions::default();
        assert_eq!(
            LineDiff::counts_of_octets(b"a\nb\n", b"a\nb\n", &[], &options),
            (0, 0)
        );
        let (new, changes) = spliced(b"a\nb\n", &[(2, 3, b"c")]);
        assert_eq!(assert_counts_as_whole(b"a\nb\n", &new, &changes), (1, 1));
    }

    /// Where the lines of a text of [`RECORDS`] without a blank line start (after LF, CR LF, or CR), and the end.
    fn line_starts(text: &[u8]) -> Vec<usize> {
        let mut starts = vec![0];
        for (i, &b) in text.iter().enumerate() {
            if b == b'\n' || (b == b'\r' && text.get(i + 1) != Some(&b'\n')) {
                starts.push(i + 1);
            }
        }
        if starts.last() != Some(&text.len()) {
            starts.push(text.len());
        }
        starts
    }

    /// The edits that neither overlap nor touch an edit before them, from edits sorted by start.
    fn disjoint<'r>(
        sorted: impl IntoIterator<Item = (usize, usize, &'r [u8])>,
    ) -> Vec<(usize, usize, &'r [u8])> {
        let (mut kept, mut free) = (Vec::new(), 0);
        for (start, end, replacement) in sorted {
            if start < free || (start == free && start > 0) {
                continue;
            }
            kept.push((start, end, replacement));
            free = end;
        }
        kept
    }

    /// The counts and the review diff in batches of one record and of a few are the whole files'.
    fn counted_as_whole(old: &[u8], new: &[u8], changes: &[Change]) -> Result<(), TestCaseError> {
        let want = whole_counts(old, new, changes);
        let diff = whole_diff(old, new, changes);
        for size in [1, 30] {
            let options = StreamOptions::default().with_batch_size(size);
            prop_assert_eq!(
                LineDiff::counts_of_octets(old, new, changes, &options),
                want
            );
            let streamed = LineDiff::of_octets(old, new, changes, &options).unified("a", "b");
            prop_assert_eq!(&streamed, &diff);
            prop_assert!(patch_as_whole(old, new, changes, &options));
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Whole lines replaced (by none, one or two lines: records joined, split, deleted, inserted, across the
        /// cuts between batches or not) and octets replaced inside lines: the counts batch by batch are the
        /// whole files'.
        #[test]
        fn counts_of_octets_are_the_whole_files(
            picks in prop::collection::vec(0..4usize, 0..14),
            raw in prop::collection::vec((any::<bool>(), 0..1000usize, 0..4usize, 0..3usize), 0..8),
        ) {
            let file = file_of(&picks);
            let old = file.as_bytes();
            let starts = line_starts(old);
            let lines = starts.len() - 1;
            let mut picked: Vec<_> = raw.into_iter().map(|(whole, at, n, r)| (at % lines, whole, n, r)).collect();
            picked.sort_unstable();
            let edits = disjoint(picked.into_iter().map(|(line, whole, n, r)| {
                let (start, end) = if whole {
                    let last = (line + n).min(lines);
                    (starts[line], starts[last])
                } else {
                    let content = old[starts[line]..starts[line + 1]]
                        .iter()
                        .take_while(|b| !matches!(b, b'\r' | b'\n'))
                        .count();
                    let at = starts[line] + 1 + n.min(content.saturating_sub(1));
                    (at.min(starts[line] + content), (at + n).min(starts[line] + content))
                };
                let replacement: &[u8] = match (whole, r) {
                    (true, 0) => b"",
                    (true, 1) => b"X\n",
                    (true, _) => b"0 @Z@ INDI\n1 NOTE q\n",
                    (false, 0) => b"",
                    (false, 1) => b"X",
                    (false, _) => b"YZ",
                };
                (start, end, replacement)
            }));
            let (new, changes) = spliced(old, &edits);
            counted_as_whole(old, &new, &changes)?;
        }

        /// Any octets replaced anywhere, edges inside lines on one side and at line starts on the other
        /// included (an LF after a CR, a line broken in two, text added at a line start).
        #[test]
        fn counts_of_any_octets_replaced_are_the_whole_files(
            picks in prop::collection::vec(0..RECORDS.len(), 0..14),
            raw in prop::collection::vec((0..1000usize, 0..4usize, 0..7usize), 0..8),
        ) {
            const REPLACEMENTS: &[&[u8]] = &[b"", b"X", b"\n", b"\r\n", b"\r", b"0 @Z@ INDI\n", b"1 NOTE q\n0"];
            let file = file_of(&picks);
            let old = file.as_bytes();
            let mut starts: Vec<(usize, usize, usize)> =
                raw.into_iter().map(|(at, len, r)| (at % (old.len() + 1), len, r)).collect();
            starts.sort_unstable();
            let edits = disjoint(
                starts.into_iter().map(|(at, len, r)| (at, (at + len).min(old.len()), REPLACEMENTS[r])),
            );
            let (new, changes) = spliced(old, &edits);
            counted_as_whole(old, &new, &changes)?;
        }

        /// The editor's changes (line breaks converted, tags renamed, `@` escaped, structures deleted) likewise.
        #[test]
        fn counts_of_an_editors_octets_are_the_whole_files(
            picks in prop::collection::vec(0..RECORDS.len(), 0..12),
            which in 0..EDITS,
        ) {
            let file = file_of(&picks);
            let old = gedgraft_syntax::parse(file.as_bytes());
            let mut editor = Editor::new(&old);
            edit(&mut editor, which);
            let counted = editor.apply().ok().map(|edited| {
                let options = StreamOptions::default().with_batch_size(1);
                let got = LineDiff::counts_of_octets(file.as_bytes(), edited.bytes(), edited.changed_ranges(), &options);
                (got, edited.line_counts())
            });
            if let Some((got, want)) = counted {
                prop_assert_eq!(got, want);
            }
        }
    }
}
