//! Line diffs of an edit, for review.
//!
//! # How text is shown
//!
//! Lines are shown as decoded text, whatever the files' encodings, so a diff of a UTF-16 or ANSEL file reads
//! like any other: ANSEL text is shown in Unicode order (diacritics after their letters), octets the encoding
//! could not decode (raw octets) are shown as `\xE9` (four characters per octet: lossy, since a literal `\xE9`
//! in the text looks the same — the diff is for reading; [`octet_patch`](crate::octet_patch) is for patching),
//! and a byte-order mark as `[BOM]`. Lines are *compared* by their text, their break and their octets in their
//! file's encoding: a line whose octets change is in the diff and its counts even when its text does not (every
//! line with a letter outside ASCII, after a transcode). Such lines look the same on both sides, so the hunk
//! says why after its header: `# octets only: line 4: ANSEL E2 65 → UTF-8 C3 A9 (and 2 more lines)`, the first
//! such line (in the new file) with its first differing octets.
//!
//! Line breaks (CR LF, LF or CR, each counting as one) are part of the comparison. They are not printed when
//! the old and new files together use one form only; otherwise each shown line ends with a visible marker of
//! its break: `␍␊` for CR LF, `␊` for LF, `␍` for CR. A last line without a break is followed by
//! `\ No newline at end of file`.
//!
//! Only the lines around the changed octets are compared and kept, so the memory grows with the size of the
//! change, not of the file. Finding line numbers takes one pass over each file's tokens, straight through the
//! green trees without building either text (the two passes run on two threads for large files); the lines
//! around the changes are kept on the way. Counting changed lines ([`LineDiff::counts`]) keeps no context.

use crate::diff_lines::Lines;
use crate::diff_scan::{scan_both, Scanned};
use crate::edited::Change;
use crate::unified::{added_in, merge_windows, removed_in, shift, write_unified};
use gedgraft_encoding::{Encoding, SourceMap};
use gedgraft_syntax::Parse;
use rowan::GreenNodeData;
use similar::DiffOp;
use std::ops::Range;

/// The line diff of an edit: hunks of removed and added lines with three lines of context.
///
/// ```
/// use gedgraft_edit::Editor;
/// let parse = gedgraft_syntax::parse(b"0 HEAD\r\n0 @I1@ INDI\r\n1 NAME Bob\r\n0 TRLR\r\n");
/// let name = parse.document().record_by_xref("I1").unwrap().substructures().next().unwrap();
/// let mut editor = Editor::new(&parse);
/// editor.set_payload(&name, "Robert").unwrap();
/// let edited = editor.apply().unwrap();
/// let diff = edited.line_diff();
/// assert_eq!((diff.removed(), diff.added()), (1, 1));
/// assert!(diff.unified("old", "new").contains("-1 NAME Bob\n+1 NAME Robert\n"));
/// ```
#[derive(Debug, Clone)]
pub struct LineDiff {
    old: Lines,
    new: Lines,
    groups: Vec<Vec<DiffOp>>,
    markers: bool,
    /// The encodings of the old and the new file.
    encodings: (Encoding, Encoding),
}

/// One side of a diff: a tree, the map from its text to its octets, and its encoding.
#[derive(Clone, Copy)]
pub(crate) struct Side<'a> {
    pub root: &'a GreenNodeData,
    pub map: &'a SourceMap,
    pub encoding: Encoding,
}

impl<'a> Side<'a> {
    pub(crate) fn of(parse: &'a Parse) -> Side<'a> {
        Side {
            root: parse.green(),
            map: parse.source_map(),
            encoding: parse.encoding(),
        }
    }
}

/// Lines of context around each change.
pub(crate) const CONTEXT: usize = 3;

impl LineDiff {
    /// The diff between `old` and `new`, where `changes` (in file octets) are the only places they differ.
    ///
    /// Costs one pass over each tree's tokens (no copy of either text), plus the lines around the changes.
    pub fn new(old: &Parse, new: &Parse, changes: &[Change]) -> LineDiff {
        LineDiff::between(Side::of(old), Side::of(new), changes)
    }

    /// How many lines the diff between `old` and `new` removes and adds: [`removed`](LineDiff::removed) and
    /// [`added`](LineDiff::added) of [`LineDiff::new`], found without reading the context lines.
    ///
    /// ```
    /// use gedgraft_edit::{Change, LineDiff};
    /// let old = gedgraft_syntax::parse(b"0 HEAD\n1 NOTE a\n0 TRLR\n");
    /// let new = gedgraft_syntax::parse(b"0 HEAD\n1 NOTE b\n0 TRLR\n");
    /// let changes = [Change { input: 14..15, output: 14..15 }];
    /// assert_eq!(LineDiff::counts(&old, &new, &changes), (1, 1));
    /// ```
    pub fn counts(old: &Parse, new: &Parse, changes: &[Change]) -> (usize, usize) {
        LineDiff::count_between(Side::of(old), Side::of(new), changes)
    }

    pub(crate) fn between(old: Side, new: Side, changes: &[Change]) -> LineDiff {
        LineDiff::build(old, new, changes, true)
    }

    /// The counts of [`LineDiff::counts`]: window by window as both sides are read ([`crate::diff_count`]),
    /// or from the diff without its context lines where that cannot be done.
    pub(crate) fn count_between(old: Side, new: Side, changes: &[Change]) -> (usize, usize) {
        crate::diff_count::counts(old, new, changes).unwrap_or_else(|| {
            let partial = LineDiff::build(old, new, changes, false);
            (partial.removed(), partial.added())
        })
    }

    /// The diff; without `context`, only the changed lines are read, and the result is only good for counting.
    fn build(old: Side, new: Side, changes: &[Change], context: bool) -> LineDiff {
        let encodings = (old.encoding, new.encoding);
        if changes.is_empty() {
            return LineDiff::empty(encodings);
        }
        let mut flat = Flat::of(old, new, changes, context);
        flat.end_equal();
        flat.into_diff(context, Some((old, new)), encodings)
    }

    /// The diff of two texts that do not differ.
    pub(crate) fn empty(encodings: (Encoding, Encoding)) -> LineDiff {
        LineDiff {
            old: Lines::default(),
            new: Lines::default(),
            groups: Vec::new(),
            markers: false,
            encodings,
        }
    }

    /// How many lines were removed.
    pub fn removed(&self) -> usize {
        removed_in(&self.groups)
    }

    /// How many lines were added.
    pub fn added(&self) -> usize {
        added_in(&self.groups)
    }

    /// Whether no line differs.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The encodings of the old and the new file (they differ after a transcode).
    pub fn encodings(&self) -> (Encoding, Encoding) {
        self.encodings
    }

    /// The unified diff: `--- old_name`, `+++ new_name`, then hunks `@@ -l,n +l,n @@` with 1-based line numbers;
    /// empty when no line differs.
    pub fn unified(&self, old_name: &str, new_name: &str) -> String {
        write_unified(
            &self.groups,
            self.markers,
            (old_name, new_name),
            self.encodings,
            |l| self.old.get(l),
            |l| self.new.get(l),
        )
    }
}

/// A diff before its lines are grouped into hunks: the lines held on either side, the operations over the
/// lines (equal runs and the windows' edits, in order), where the last window ends, and the line counts.
/// [`LineDiff`] groups one; [`crate::StreamedDiff`] joins one per
/// batch of a streamed file first.
pub(crate) struct Flat {
    pub old: Lines,
    pub new: Lines,
    pub ops: Vec<DiffOp>,
    /// The old and new line after the last window.
    pub end: (usize, usize),
    /// How many lines the old and the new text have.
    pub counts: (usize, usize),
    /// The old text's last [`CONTEXT`] lines (for the context of a change at the start of what follows).
    pub old_tail: Lines,
}

impl Flat {
    /// The operations of the diff of `old` and `new`, which differ only in `changes` (not empty), up to the
    /// end of the last window.
    pub(crate) fn of(old: Side, new: Side, changes: &[Change], context: bool) -> Flat {
        let old_ranges: Vec<Range<usize>> = text_ranges(old, changes, |c| &c.input).collect();
        let new_ranges: Vec<Range<usize>> = text_ranges(new, changes, |c| &c.output).collect();
        // Changes come sorted, so their text ranges are too. (Were they not, the scans would keep fewer lines
        // around them, and the missing ones would be read below: the diff is the same.)
        let context_lines = if context { CONTEXT } else { 0 };
        let (old_scan, new_scan) = scan_both(old, &old_ranges, new, &new_ranges, context_lines);
        let old_count = old_scan.count;
        let new_count = new_scan.count;
        // Windows of lines to compare, merged where they overlap or their gaps disagree.
        let windows = merge_windows(
            old_ranges
                .iter()
                .zip(&new_ranges)
                .enumerate()
                .map(|(i, (o, n))| Scanned::windows((&old_scan, o), (&new_scan, n), i)),
            (old_count, new_count),
            false,
        );
        let mut old_tail = Lines::default();
        for l in old_count.saturating_sub(CONTEXT)..old_count {
            let _ = old_tail.copy_line(&old_scan.lines, l) || old_tail.copy_line(&old_scan.tail, l);
        }
        let mut old_lines = old_scan.lines;
        let mut new_lines = new_scan.lines;
        // Windows merged across unequal gaps may hold lines the scans did not keep.
        let old_wanted = old_lines.missing(windows.iter().map(|w| w.0.clone()));
        old_lines.add(old, &old_wanted);
        let new_wanted = new_lines.missing(windows.iter().map(|w| w.1.clone()));
        new_lines.add(new, &new_wanted);
        let mut ops = Vec::new();
        let (mut oi, mut ni) = (0, 0);
        for (wo, wn) in &windows {
            if wo.start > oi {
                push_op(
                    &mut ops,
                    DiffOp::Equal {
                        old_index: oi,
                        new_index: ni,
                        len: wo.start - oi,
                    },
                );
            }
            let a = old_lines.shown_range(wo.clone());
            let b = new_lines.shown_range(wn.clone());
            for op in crate::diff_ops::line_ops(&a, &b) {
                push_op(&mut ops, shift(op, wo.start, wn.start));
            }
            oi = wo.end;
            ni = wn.end;
        }
        Flat {
            old: old_lines,
            new: new_lines,
            ops,
            end: (oi, ni),
            counts: (old_count, new_count),
            old_tail,
        }
    }

    /// The equal lines after the last window, to the end of both texts.
    pub(crate) fn end_equal(&mut self) {
        let ((oi, ni), (old_count, new_count)) = (self.end, self.counts);
        if oi < old_count && ni < new_count && !self.ops.is_empty() {
            push_op(
                &mut self.ops,
                DiffOp::Equal {
                    old_index: oi,
                    new_index: ni,
                    len: (old_count - oi).min(new_count - ni),
                },
            );
        }
    }

    /// The hunks; without `context`, only good for counting. Printed lines not held are read from `sides`.
    pub(crate) fn into_diff(
        self,
        context: bool,
        sides: Option<(Side, Side)>,
        encodings: (Encoding, Encoding),
    ) -> LineDiff {
        let Flat {
            old: mut old_lines,
            new: mut new_lines,
            ops,
            ..
        } = self;
        let groups: Vec<Vec<DiffOp>> = similar::group_diff_ops(ops, CONTEXT)
            .into_iter()
            .filter(|g| g.iter().any(|op| !matches!(op, DiffOp::Equal { .. })))
            .collect();
        if !context {
            return LineDiff {
                old: old_lines,
                new: new_lines,
                groups,
                markers: false,
                encodings,
            };
        }
        // Every line that is printed (the scans kept the context lines; any other is read now), and the forms
        // of their line breaks: those of lines compared but not printed (a change that changed no line) do not
        // count (found by the streamed diff's proptest, which skips such a batch).
        let mut forms = Vec::new();
        let printed_old = || {
            groups
                .iter()
                .flat_map(|g| g.iter().map(|op| op.old_range()))
        };
        let printed_new = || {
            groups
                .iter()
                .flat_map(|g| g.iter().map(|op| op.new_range()))
        };
        if let Some((old, new)) = sides {
            let old_wanted = old_lines.missing(printed_old());
            old_lines.add(old, &old_wanted);
            let new_wanted = new_lines.missing(printed_new());
            new_lines.add(new, &new_wanted);
        }
        let mut at = 0;
        for l in printed_old().flatten() {
            note_form(
                &mut forms,
                old_lines.get_from(&mut at, l).map_or("", |(_, b, _)| b),
            );
        }
        let mut at = 0;
        for l in printed_new().flatten() {
            note_form(
                &mut forms,
                new_lines.get_from(&mut at, l).map_or("", |(_, b, _)| b),
            );
        }
        let markers = forms.len() > 1;
        LineDiff {
            old: old_lines,
            new: new_lines,
            groups,
            markers,
            encodings,
        }
    }
}

/// The text ranges of `changes` on `side`, whose octets `octets` gives (the input or the output range).
pub(crate) fn text_ranges<'c>(
    side: Side<'c>,
    changes: &'c [Change],
    octets: impl Fn(&Change) -> &Range<usize> + 'c,
) -> impl Iterator<Item = Range<usize>> + 'c {
    changes.iter().map(move |c| {
        let r = octets(c);
        side.map.text_offset(r.start)..side.map.text_offset(r.end)
    })
}

/// Adds an operation, joined to the last one if both are equal runs: a hunk takes its context from the run
/// before its first change, and two runs there would give it more than [`CONTEXT`] lines.
pub(crate) fn push_op(ops: &mut Vec<DiffOp>, op: DiffOp) {
    if let (
        Some(DiffOp::Equal {
            old_index,
            new_index,
            len,
        }),
        DiffOp::Equal {
            old_index: next_old,
            new_index: next_new,
            len: more,
        },
    ) = (ops.last_mut(), op)
    {
        if *old_index + *len == next_old && *new_index + *len == next_new {
            *len += more;
            return;
        }
    }
    ops.push(op);
}

/// Notes a line-break form among those the diff shows (none for a last line without a break).
pub(crate) fn note_form(forms: &mut Vec<String>, line_break: &str) {
    if !line_break.is_empty() && !forms.iter().any(|f| f == line_break) {
        forms.push(line_break.to_string());
    }
}

/// A unified diff of two parsed files that differ only in `changes` (see [`LineDiff`]).
///
/// ```
/// use gedgraft_edit::{unified_diff, Change};
/// let old = gedgraft_syntax::parse(b"0 HEAD\n1 NOTE a\n0 TRLR\n");
/// let new = gedgraft_syntax::parse(b"0 HEAD\n1 NOTE b\n0 TRLR\n");
/// let changes = [Change { input: 14..15, output: 14..15 }];
/// assert_eq!(
///     unified_diff(&old, &new, &changes, "a", "b"),
///     "--- a\n+++ b\n@@ -1,3 +1,3 @@\n 0 HEAD\n-1 NOTE a\n+1 NOTE b\n 0 TRLR\n"
/// );
/// ```
pub fn unified_diff(
    old: &Parse,
    new: &Parse,
    changes: &[Change],
    old_name: &str,
    new_name: &str,
) -> String {
    LineDiff::new(old, new, changes).unified(old_name, new_name)
}

#[cfg(test)]
mod tests {
    //! The streaming diff against the first, whole-text one ([`crate::diff_reference`]): the same hunks for any
    //! two files and any list of changes, including unsorted, overlapping and out-of-range ones.

    use super::*;
    use crate::diff_reference;
    use crate::diff_scan::PARALLEL_LEN;
    use crate::{Editor, LineBreak};
    use gedgraft_syntax::{parse_with, ParseOptions};
    use proptest::prelude::*;

    fn parse_as(bytes: &[u8], encoding: Option<Encoding>) -> Parse {
        let mut options = ParseOptions::default();
        options.detect.force = encoding;
        parse_with(bytes, &options)
    }

    fn text() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop::sample::select(vec![
            &b"0 HEAD"[..],
            b"0 TRLR",
            b"1 NAME Bob",
            b"2 CONT x",
            b"0 @I1@ INDI",
            b"\n",
            b"\r\n",
            b"\r",
            b"\n\r",
            b"  ",
            b"x",
            b"\xFF",
            b"\xEF\xBB\xBF",
            "é".as_bytes(),
            b"\xE2e",
            b"\x1B[31m",
            b"\t\x07",
            "\u{85}".as_bytes(),
        ]);
        prop::collection::vec(piece, 0..40).prop_map(|p| p.concat())
    }

    fn encoding() -> impl Strategy<Value = Option<Encoding>> {
        prop::sample::select(vec![
            None,
            Some(Encoding::Ansel),
            Some(Encoding::Utf16Le),
            Some(Encoding::Windows1252),
        ])
    }

    fn changes() -> impl Strategy<Value = Vec<Change>> {
        let change =
            (0..300usize, 0..6usize, 0..300usize, 0..6usize).prop_map(|(a, n, b, m)| Change {
                input: a..a + n,
                output: b..b + m,
            });
        (prop::collection::vec(change, 0..6), any::<bool>()).prop_map(|(mut c, sort)| {
            if sort {
                c.sort_by_key(|c| (c.input.start, c.output.start));
            }
            c
        })
    }

    fn assert_same(old: &Parse, new: &Parse, changes: &[Change]) {
        let want = diff_reference::LineDiff::new(old, new, changes);
        let got = LineDiff::new(old, new, changes);
        assert_eq!(got.unified("a", "b"), want.unified("a", "b"));
        assert_eq!((got.removed(), got.added()), (want.removed(), want.added()));
        assert_eq!(
            LineDiff::counts(old, new, changes),
            (want.removed(), want.added())
        );
        assert_eq!(got.is_empty(), want.is_empty());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn any_files_and_changes(a in text(), b in text(), enc in encoding(), changes in changes()) {
            let (old, new) = (parse_as(&a, enc), parse_as(&b, enc));
            assert_same(&old, &new, &changes);
        }

        /// Octets replaced anywhere in an ASCII file (lines broken in two and joined, text added at a line start,
        /// an LF after a CR): the diff rebuilds the new lines, and every way of making it agrees.
        #[test]
        fn raw_edits_give_diffs_that_rebuild_the_new_lines(
            pieces in prop::collection::vec(prop::sample::select(vec![
                &b"0 HEAD"[..], b"1 NAME Bob", b"0 @I1@ INDI", b"\n", b"\r\n", b"\r", b"\n\r", b"  ", b"x",
            ]), 0..30),
            edits in prop::collection::vec(
                (0..300usize, 0..4usize, prop::sample::select(vec![
                    &b""[..], b"X", b"\n", b"\r", b"\r\n", b"0 @Z@ INDI\n", b"Y\n0",
                ])),
                0..6,
            ),
        ) {
            let a = pieces.concat();
            let mut edits: Vec<_> = edits.into_iter().map(|(at, n, r)| (at.min(a.len()), n, r)).collect();
            edits.sort_by_key(|e| e.0);
            let (mut b, mut raw, mut at) = (Vec::new(), Vec::new(), 0);
            for (start, n, r) in edits {
                if start < at {
                    continue;
                }
                let end = (start + n).min(a.len());
                b.extend_from_slice(&a[at..start]);
                b.extend_from_slice(r);
                raw.push((start, end, r.len()));
                at = end;
            }
            b.extend_from_slice(&a[at..]);
            let changes = crate::edited::merge_changes(raw);
            let utf8 = Some(Encoding::Utf8);
            let (old, new) = (parse_as(&a, utf8), parse_as(&b, utf8));
            assert_rebuilds(&old, &new, &LineDiff::new(&old, &new, &changes));
            assert_same(&old, &new, &changes);
        }

        #[test]
        fn real_edits(a in text(), enc in encoding(), which in 0..8usize) {
            let old = parse_as(&a, enc);
            let mut editor = Editor::new(&old);
            match which {
                0 => { let _ = editor.rename_tag("NAME", "_NAME", None); }
                1 => { let _ = editor.rename_tag("NAME", "_NAM", None); let _ = editor.rename_tag("INDI", "I", None); }
                2 => editor.convert_line_breaks(LineBreak::CrLf, crate::LfCr::TwoBreaks),
                3 => editor.convert_line_breaks(LineBreak::Lf, crate::LfCr::OneBreak),
                4 => { editor.escape_at_signs(None); }
                5 => editor.transcode(Encoding::Utf8, crate::RawOctets::Replace),
                6 => editor.transcode(Encoding::Ansel, crate::RawOctets::Replace),
                _ => {
                    if let Some(r) = old.document().records().nth(1) {
                        let _ = editor.delete(&r);
                    }
                }
            }
            let result = editor.apply_with(false);
            if let Ok(edited) = &result {
                // Diffed before the parse is made (from the spliced tree and a source map found without it),
                // then against the parse.
                prop_assert!(edited.made().0.is_none());
                let lazy = edited.unified_diff("a", "b");
                let counts = edited.line_counts();
                let known_map = edited.made().1.cloned();
                prop_assert!(edited.made().0.is_none());
                let parse = edited.parse();
                if let Some(map) = known_map {
                    prop_assert_eq!(&map, parse.source_map());
                }
                let written = parse.to_bytes().ok();
                prop_assert_eq!(written.as_deref(), Some(edited.bytes()));
                let want = diff_reference::LineDiff::new(&old, parse, edited.changed_ranges());
                prop_assert_eq!(lazy, want.unified("a", "b"));
                prop_assert_eq!(counts, (want.removed(), want.added()));
                assert_same(&old, parse, edited.changed_ranges());
            }
        }
    }

    /// The diff's hunks and the lines between them, in order, rebuild `new`'s lines from `old`'s: every line it
    /// keeps is the same on both sides.
    fn assert_rebuilds(old: &Parse, new: &Parse, diff: &LineDiff) {
        let lines = |text: &str| -> Vec<String> {
            let starts = diff_reference::line_starts(text);
            starts
                .windows(2)
                .map(|w| text[w[0]..w[1]].to_string())
                .collect()
        };
        let (a, b) = (lines(old.text()), lines(new.text()));
        let same = |o: usize, n: usize, len: usize| {
            assert_eq!(
                a.get(o..o + len),
                b.get(n..n + len),
                "lines kept at old {o}, new {n}"
            );
        };
        let (mut oi, mut ni) = (0, 0);
        for op in diff.groups.iter().flatten() {
            // The lines since the last operation are the same on both sides (a deletion's place in the new
            // lines, and an insertion's in the old, are where the lines before them end).
            let (o, n) = (op.old_range(), op.new_range());
            let gap = match op {
                DiffOp::Delete { .. } => o.start - oi,
                DiffOp::Insert { .. } => n.start - ni,
                _ => {
                    assert_eq!(
                        o.start - oi,
                        n.start - ni,
                        "the lines between hunks differ in number"
                    );
                    o.start - oi
                }
            };
            same(oi, ni, gap);
            if let DiffOp::Equal { len, .. } = op {
                same(o.start, n.start, *len);
            }
            (oi, ni) = (oi + gap + o.len(), ni + gap + n.len());
        }
        assert_eq!(
            a.len() - oi,
            b.len() - ni,
            "the lines after the last hunk differ in number"
        );
        same(oi, ni, a.len() - oi);
    }

    #[test]
    fn an_edge_at_a_line_start_on_one_side_only_widens_that_sides_window() {
        // A line broken in two at the change's end (`0 HEA|D`), and an LF added after a lone CR, which makes
        // the line before the change's start end in CR LF: once windows a line off, the one change offsetting
        // the other (`-1 +2` for `-2 +3`).
        let old_text = b"0 HEAD\n0 @S@ SOUR\r1 NOTE w\r1 NAME z\r0 TRLR\n";
        let at = old_text.windows(6).position(|w| w == b"1 NAME").unwrap();
        let new_text = [
            &old_text[..5],
            b"\n",
            &old_text[5..at],
            b"\n",
            &old_text[at..],
        ]
        .concat();
        let changes = [
            Change {
                input: 5..5,
                output: 5..6,
            },
            Change {
                input: at..at,
                output: at + 1..at + 2,
            },
        ];
        let (old, new) = (parse_as(old_text, None), parse_as(&new_text, None));
        let diff = LineDiff::new(&old, &new, &changes);
        assert_rebuilds(&old, &new, &diff);
        assert_eq!((diff.removed(), diff.added()), (2, 3));
        assert_same(&old, &new, &changes);
    }

    #[test]
    fn a_line_break_split_between_tokens_counts_once() {
        // After the trailer everything is one token: its CR LF and lone CR must count as the lexer's do.
        let old = parse_as(b"0 HEAD\n0 TRLR\r\nab\r\ncd\re", None);
        let new = parse_as(b"0 HEAD\n0 TRLR\r\nab\r\ncX\re", None);
        let changes = [Change {
            input: 21..22,
            output: 21..22,
        }];
        assert_same(&old, &new, &changes);
        assert_eq!(
            LineDiff::new(&old, &new, &changes).unified("a", "b"),
            "--- a\n+++ b\n@@ -1,5 +1,5 @@\n 0 HEAD␊\n 0 TRLR␍␊\n ab␍␊\n-cd␍\n+cX␍\n e\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn large_files_are_scanned_on_two_threads_with_the_same_result() {
        let mut file = String::from("0 HEAD\r\n1 CHAR UTF-8\r\n");
        for i in 0..40_000 {
            file.push_str(&format!("0 @I{i}@ INDI\r\n1 NAME Person {i}\r\n1 SEX M\n"));
        }
        file.push_str("0 TRLR\r\n");
        assert!(file.len() > PARALLEL_LEN as usize);
        let old = parse_as(file.as_bytes(), None);
        let mut editor = Editor::new(&old);
        editor.rename_tag("NAME", "_NAM", None).unwrap();
        let edited = editor.apply_with(false).unwrap();
        let lazy = edited.unified_diff("a", "b");
        assert!(edited.made().0.is_none() && edited.made().1.is_some());
        let want = diff_reference::LineDiff::new(&old, edited.parse(), edited.changed_ranges());
        assert_eq!(lazy, want.unified("a", "b"));
        assert_eq!(edited.line_counts(), (40_000, 40_000));
    }
}
