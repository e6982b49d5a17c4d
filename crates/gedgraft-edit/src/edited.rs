//! The result of applying a batch of edits.

use crate::diff::{LineDiff, Side};
use crate::error::Warning;
use gedgraft_encoding::{detect_and_decode, DetectOptions, Encoding, SourceMap};
use gedgraft_syntax::{LineBreak, Parse, SyntaxKind};
use rowan::GreenNode;
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

/// A run of octets that differs between the input and the output; everything between two changes is identical.
///
/// ```
/// use gedgraft_edit::Change;
/// let c = Change { input: 7..11, output: 7..12 };
/// assert_eq!(c.input.len() + 1, c.output.len());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Change {
    /// The octets replaced, in the input file.
    pub input: Range<usize>,
    /// The octets that replace them, in the output file.
    pub output: Range<usize>,
}

/// Merges changes given as (input start, input end, new length), in any order, into sorted, disjoint changes
/// (touching ones are joined) with their output ranges. Merged in place, and the result made at its size: a
/// change of every line break is a change per line.
pub(crate) fn merge_changes(mut raw: Vec<(usize, usize, usize)>) -> Vec<Change> {
    raw.sort_unstable();
    raw.dedup_by(|&mut (start, end, len), last| {
        let joins = start <= last.1;
        if joins {
            last.1 = last.1.max(end);
            last.2 += len;
        }
        joins
    });
    raw.retain(|&(start, end, len)| start != end || len != 0);
    let mut changes = Vec::with_capacity(raw.len());
    let mut delta: isize = 0;
    for (start, end, len) in raw {
        let out_start = start.saturating_add_signed(delta);
        delta += len as isize - (end - start) as isize;
        changes.push(Change {
            input: start..end,
            output: out_start..out_start + len,
        });
    }
    changes
}

/// Composes two rounds of changes: `first` turns file A into B, `second` turns B into C; the result turns A into
/// C. Linear in the number of changes. Use it to show one diff for edits applied in several batches.
///
/// ```
/// use gedgraft_edit::{compose_changes, Change};
/// let first = [Change { input: 2..3, output: 2..5 }]; // one octet became three
/// let second = [Change { input: 10..10, output: 10..12 }]; // two inserted later on
/// assert_eq!(
///     compose_changes(&first, &second),
///     [Change { input: 2..3, output: 2..5 }, Change { input: 8..8, output: 10..12 }]
/// );
/// ```
pub fn compose_changes(first: &[Change], second: &[Change]) -> Vec<Change> {
    // Intervals in B: first's outputs and second's inputs; clusters of overlapping or touching ones.
    let mut spans: Vec<(usize, usize)> = first
        .iter()
        .map(|c| (c.output.start, c.output.end))
        .chain(second.iter().map(|c| (c.input.start, c.input.end)))
        .collect();
    spans.sort_unstable();
    let mut clusters: Vec<(usize, usize)> = Vec::new();
    for (s, e) in spans {
        match clusters.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => clusters.push((s, e)),
        }
    }
    // Map a point of B back to A through `first`, and forward to C through `second`. Cluster ends are either
    // change boundaries (mapped exactly) or in gaps (shifted by the changes before).
    let (mut i, mut j) = (0, 0);
    let (mut back, mut forward): (isize, isize) = (0, 0);
    let mut out = Vec::with_capacity(clusters.len());
    for (s, e) in clusters {
        while i < first.len() && first[i].output.end <= s && first[i].output.start < s {
            back += first[i].input.len() as isize - first[i].output.len() as isize;
            i += 1;
        }
        while j < second.len() && second[j].input.end <= s && second[j].input.start < s {
            forward += second[j].output.len() as isize - second[j].input.len() as isize;
            j += 1;
        }
        let a_start = s.saturating_add_signed(back);
        let c_start = s.saturating_add_signed(forward);
        while i < first.len() && first[i].output.start <= e && first[i].output.start >= s {
            back += first[i].input.len() as isize - first[i].output.len() as isize;
            i += 1;
        }
        while j < second.len() && second[j].input.start <= e && second[j].input.start >= s {
            forward += second[j].output.len() as isize - second[j].input.len() as isize;
            j += 1;
        }
        out.push(Change {
            input: a_start..e.saturating_add_signed(back),
            output: c_start..e.saturating_add_signed(forward),
        });
    }
    out
}

/// What [`Editor::apply`](crate::Editor::apply) made: the spliced tree, its octets, and its parse when made.
pub(crate) struct NewFile {
    /// The spliced tree: every untouched subtree is a node of the input's tree.
    pub green: GreenNode,
    /// A bound on the depth of the nodes of `green` that are not the input's (see [`Rebuilt`](crate::splice::Rebuilt)).
    pub new_depth: usize,
    /// The encoding of `bytes`.
    pub encoding: Encoding,
    /// The parse of `bytes`, if made already.
    pub parse: Option<Parse>,
    /// The source map of `bytes`, if known without decoding them.
    pub map: Option<SourceMap>,
    /// The octets of `green`.
    pub bytes: Vec<u8>,
    /// The line break before the new text in its file ([`Parse::break_before`]: a batch of a streamed file).
    pub break_before: Option<LineBreak>,
}

/// Trees whose new nodes go deeper than this are released without recursion.
const DEEP_TREE: usize = 512;

/// The outcome of [`Editor::apply`](crate::Editor::apply): the new file, parsed, with what changed.
///
/// ```
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n");
/// let mut editor = gedgraft_edit::Editor::new(&parse);
/// editor.rename_tag("NAME", "_NAME", None).unwrap();
/// let edited = editor.apply().unwrap();
/// assert_eq!(edited.changed_ranges()[0].input, 21..25);
/// assert_eq!(edited.changed_ranges()[0].output, 21..26);
/// assert_eq!(edited.line_counts(), (1, 1));
/// assert_eq!(
///     edited.unified_diff("a/x.ged", "b/x.ged"),
///     "--- a/x.ged\n+++ b/x.ged\n@@ -1,4 +1,4 @@\n 0 HEAD\n 0 @I1@ INDI\n-1 NAME Bob\n+1 _NAME Bob\n 0 TRLR\n"
/// );
/// ```
pub struct Edited<'p> {
    old: &'p Parse,
    green: GreenNode,
    new_depth: usize,
    encoding: Encoding,
    parse: OnceLock<Parse>,
    /// The new file's source map, when needed before (or without) its parse; `None` when the octets do not
    /// decode to the edited tree's text (raw octets an edit joined into a character: the parse reads them).
    map: OnceLock<Option<SourceMap>>,
    bytes: Vec<u8>,
    /// The line break before the new text in its file, which its parse is given.
    break_before: Option<LineBreak>,
    changes: Vec<Change>,
    warnings: Vec<Warning>,
    count: usize,
}

impl fmt::Debug for Edited<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Edited")
            .field("parse", &self.parse.get())
            .field("bytes", &self.bytes.len())
            .field("changes", &self.changes)
            .field("warnings", &self.warnings)
            .field("count", &self.count)
            .finish_non_exhaustive()
    }
}

impl<'p> Edited<'p> {
    pub(crate) fn new(
        old: &'p Parse,
        file: NewFile,
        changes: Vec<Change>,
        warnings: Vec<Warning>,
        count: usize,
    ) -> Edited<'p> {
        let parse = OnceLock::new();
        if let Some(p) = file.parse {
            let _ = parse.set(p.with_break_before(file.break_before));
        }
        let map = OnceLock::new();
        if let Some(m) = file.map {
            let _ = map.set(Some(m));
        }
        Edited {
            old,
            green: file.green,
            new_depth: file.new_depth,
            encoding: file.encoding,
            parse,
            map,
            bytes: file.bytes,
            break_before: file.break_before,
            changes,
            warnings,
            count,
        }
    }

    fn make_parse(&self) -> Parse {
        let parse =
            Parse::from_edited_like(self.green.clone(), &self.bytes, self.encoding, self.old).0;
        parse.with_break_before(self.break_before)
    }

    /// The new file, parsed: its tree (sharing every untouched subtree with the input's) and fresh diagnostics.
    /// After [`Editor::apply_lazily`](crate::Editor::apply_lazily), the parse is made on the first call.
    pub fn parse(&self) -> &Parse {
        self.parse.get_or_init(|| self.make_parse())
    }

    /// The new file, parsed, without the rest.
    pub fn into_parse(mut self) -> Parse {
        match self.parse.take() {
            Some(p) => p,
            None => self.make_parse(),
        }
    }

    /// The new file's tree without parsing the output: the one [`parse`](Edited::parse) holds once made, else
    /// the tree the edit spliced (the same, as a parse checks in debug builds). For reading the result, such as
    /// its pointers, without a second parse.
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n");
    /// let mut editor = gedgraft_edit::Editor::new(&parse);
    /// editor.rename_tag("NAME", "_NAME", None).unwrap();
    /// let edited = editor.apply_lazily().unwrap();
    /// assert_eq!(edited.green().to_string(), "0 HEAD\n0 @I1@ INDI\n1 _NAME Bob\n0 TRLR\n");
    /// ```
    pub fn green(&self) -> &GreenNode {
        match self.parse.get() {
            Some(p) => p.green(),
            None => &self.green,
        }
    }

    /// The input file, parsed.
    pub fn old(&self) -> &'p Parse {
        self.old
    }

    /// The line break before the new text in its file ([`Parse::break_before`]): the input's, as a line-break
    /// conversion writes it. The new file's parse has it; a batch of a streamed file that the edit left as it
    /// was is read after the new text of the batches before it, so the next edit of the batch takes this one.
    ///
    /// ```
    /// use gedgraft_edit::{Editor, LfCr, LineBreak};
    /// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
    /// let input = b"0 HEAD\r\n0 @I1@ INDI";
    /// let options = StreamOptions::default().with_batch_size(1);
    /// let last = RecordStream::new(&input[..], options).unwrap().last().unwrap().unwrap();
    /// let mut editor = Editor::new(last.parse());
    /// editor.convert_line_breaks(LineBreak::Lf, LfCr::TwoBreaks);
    /// let edited = editor.apply().unwrap();
    /// assert!(!edited.is_changed()); // `0 @I1@ INDI` has no line break of its own
    /// assert_eq!(edited.break_before(), Some(LineBreak::Lf)); // the header's is LF now
    /// assert_eq!(edited.parse().break_before(), Some(LineBreak::Lf));
    /// ```
    pub fn break_before(&self) -> Option<LineBreak> {
        self.break_before
    }

    /// The new file's octets.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The new file's octets, without the rest.
    pub fn into_bytes(mut self) -> Vec<u8> {
        std::mem::take(&mut self.bytes)
    }

    /// The runs of octets that changed, in file order; every octet outside them is the input's.
    pub fn changed_ranges(&self) -> &[Change] {
        &self.changes
    }

    /// Whether any octet changed.
    pub fn is_changed(&self) -> bool {
        !self.changes.is_empty()
    }

    /// What the user should be told (selectors that matched nothing, dangling pointers, …).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// How many changes the edits made (tags renamed, payloads set, structures inserted or deleted, `@`s doubled,
    /// structures re-wrapped; a line-break conversion or a transcode counts one).
    pub fn change_count(&self) -> usize {
        self.count
    }

    /// The parse, if made, and the source map, if known, without making either.
    #[cfg(test)]
    pub(crate) fn made(&self) -> (Option<&Parse>, Option<&SourceMap>) {
        (self.parse.get(), self.map.get().and_then(Option::as_ref))
    }

    /// The new file as one side of a diff: its parse if made, else the spliced tree and the octets' source map.
    pub(crate) fn side(&self) -> Side<'_> {
        if let Some(p) = self.parse.get() {
            return Side::of(p);
        }
        let map = self.map.get_or_init(|| {
            let options = DetectOptions {
                force: Some(self.encoding),
                default_encoding: None,
            };
            let (_, text, map) = detect_and_decode(&self.bytes, &options);
            // The map locates the decoded text: the edited tree's only if that is the tree's text (`caf\xC3` and
            // `\xA9 x` joined by `--join-conc` decode as one `é`, where the tree holds two raw octets: the
            // diff's ranges would shift onto the lines after, found by a helper).
            is_text_of(&self.green, &text).then_some(map)
        });
        match map {
            Some(map) => Side {
                root: &self.green,
                map,
                encoding: self.encoding,
            },
            None => Side::of(self.parse()),
        }
    }

    /// The line diff between the input and the output.
    pub fn line_diff(&self) -> LineDiff {
        LineDiff::between(Side::of(self.old), self.side(), &self.changes)
    }

    /// The line diff between `original` and the output, where `changes` (in octets) turn `original` into the
    /// output: for edits applied in batches, `original` is the first batch's input and `changes` come from
    /// [`compose_changes`].
    ///
    /// ```
    /// use gedgraft_edit::{compose_changes, Editor};
    /// let original = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n");
    /// let mut editor = Editor::new(&original);
    /// editor.rename_tag("NAME", "_NAME", None).unwrap();
    /// let first = editor.apply().unwrap();
    /// let mut editor = Editor::new(first.parse());
    /// editor.escape_at_signs(None); // nothing to do
    /// let second = editor.apply_lazily().unwrap();
    /// let changes = compose_changes(first.changed_ranges(), second.changed_ranges());
    /// assert_eq!(second.line_diff_from(&original, &changes).removed(), 1);
    /// ```
    pub fn line_diff_from(&self, original: &Parse, changes: &[Change]) -> LineDiff {
        LineDiff::between(Side::of(original), self.side(), changes)
    }

    /// How many lines were removed and added (as the [line diff](Edited::line_diff) counts them, without
    /// reading its context lines).
    pub fn line_counts(&self) -> (usize, usize) {
        LineDiff::count_between(Side::of(self.old), self.side(), &self.changes)
    }

    /// How many lines the [diff from `original`](Edited::line_diff_from) removes and adds.
    pub fn line_counts_from(&self, original: &Parse, changes: &[Change]) -> (usize, usize) {
        LineDiff::count_between(Side::of(original), self.side(), changes)
    }

    /// A unified diff of the change (see [`LineDiff`] for how text is shown); empty when nothing changed.
    pub fn unified_diff(&self, old_name: &str, new_name: &str) -> String {
        self.line_diff().unified(old_name, new_name)
    }
}

/// Whether `text` is the text of the tree `root` (its tokens' text, in order), without making that text.
fn is_text_of(root: &rowan::GreenNodeData, text: &str) -> bool {
    if usize::from(root.text_len()) != text.len() {
        return false;
    }
    let mut rest = text.as_bytes();
    gedgraft_syntax::internal::green_tokens(root).all(|t| {
        let token = t.text().as_bytes();
        match rest.strip_prefix(token) {
            Some(after) => {
                rest = after;
                true
            }
            None => false,
        }
    })
}

impl Drop for Edited<'_> {
    /// The nodes of the spliced tree that are not the input's (which lives on) are freed with it; rowan frees
    /// recursively, so a deep chain of them is released iteratively.
    fn drop(&mut self) {
        if self.new_depth <= DEEP_TREE {
            return;
        }
        let empty = GreenNode::new(SyntaxKind::Document.into(), std::iter::empty());
        let green = std::mem::replace(&mut self.green, empty);
        let held = self
            .parse
            .get()
            .is_some_and(|p| std::ptr::eq(&**p.green(), &*green));
        if !held {
            crate::splice::drop_deep(green);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Invariant 4 without the eager parse: the spliced tree of a 100 000-level file is diffed, parsed late,
    /// and released (with or without its parse) without recursion on its depth.
    #[test]
    fn deep_trees_edited_lazily_are_diffed_and_released_iteratively() {
        let depth = 100_000;
        let mut input = b"0 HEAD\n0 @N1@ NOTE top\n".to_vec();
        for level in 1..depth {
            input.extend_from_slice(format!("{level} _D x\n").as_bytes());
        }
        input.extend_from_slice(b"0 TRLR\n");
        let old = gedgraft_syntax::parse(&input);
        let edit = || {
            let mut editor = crate::Editor::new(&old);
            editor.rename_tag("_D", "_E", None).expect("rename");
            editor.apply_with(false).expect("apply")
        };
        // Released without ever being parsed.
        let edited = edit();
        assert_eq!(edited.line_counts(), (depth - 1, depth - 1));
        let diff = edited.unified_diff("a", "b");
        assert!(diff.contains(&format!("\n-{} _D x\n+1 _E x\n", depth - 1)));
        assert!(diff.ends_with(&format!("\n+{} _E x\n 0 TRLR\n", depth - 1)));
        assert!(edited.made().0.is_none());
        drop(edited);
        // Parsed late, then released.
        let edited = edit();
        assert!(edited.parse().diagnostics().is_empty());
        drop(edited);
        // Taken apart, the parse outliving the input's.
        let edited = edit();
        let bytes = edited.bytes().to_vec();
        let new = edited.into_parse();
        drop(old);
        assert_eq!(new.to_bytes().expect("octets"), bytes);
    }

    #[test]
    fn merge_joins_touching_changes() {
        let c = merge_changes(vec![(10, 12, 1), (0, 2, 3), (12, 13, 0)]);
        assert_eq!(
            c,
            [
                Change {
                    input: 0..2,
                    output: 0..3
                },
                Change {
                    input: 10..13,
                    output: 11..12
                }
            ]
        );
    }

    #[test]
    fn compose_overlapping_rounds() {
        // A = "abcdef"; first: "cd" → "XYZ" (B = "abXYZef"); second: "Ze" → "" (C = "abXYf").
        let first = [Change {
            input: 2..4,
            output: 2..5,
        }];
        let second = [Change {
            input: 4..6,
            output: 4..4,
        }];
        assert_eq!(
            compose_changes(&first, &second),
            [Change {
                input: 2..5,
                output: 2..4
            }]
        );
        // Disjoint, second before first.
        let second = [Change {
            input: 0..1,
            output: 0..0,
        }];
        assert_eq!(
            compose_changes(&first, &second),
            [
                Change {
                    input: 0..1,
                    output: 0..0
                },
                Change {
                    input: 2..4,
                    output: 1..4
                }
            ]
        );
    }
}
