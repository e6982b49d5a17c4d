//! The result of applying a batch of edits.

use crate::diff::LineDiff;
use crate::error::Warning;
use gedgraft_syntax::Parse;
use std::ops::Range;

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
/// (touching ones are joined) with their output ranges.
pub(crate) fn merge_changes(mut raw: Vec<(usize, usize, usize)>) -> Vec<Change> {
    raw.sort_unstable();
    let mut merged: Vec<(usize, usize, usize)> = Vec::new();
    for (start, end, len) in raw {
        match merged.last_mut() {
            Some(last) if start <= last.1 => {
                last.1 = last.1.max(end);
                last.2 += len;
            }
            _ => merged.push((start, end, len)),
        }
    }
    let mut delta: isize = 0;
    merged
        .into_iter()
        .filter(|&(start, end, len)| start != end || len != 0)
        .map(|(start, end, len)| {
            let out_start = start.saturating_add_signed(delta);
            delta += len as isize - (end - start) as isize;
            Change {
                input: start..end,
                output: out_start..out_start + len,
            }
        })
        .collect()
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

/// The outcome of [`Editor::apply`](crate::Editor::apply): the new file, parsed, with what changed.
///
/// ```
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n");
/// let mut editor = gedgraft_edit::Editor::new(&parse);
/// editor.rename_tag("NAME", "_NAME", None).unwrap();
/// let edited = editor.apply().unwrap();
/// assert_eq!(edited.changes()[0].input, 21..25);
/// assert_eq!(edited.changes()[0].output, 21..26);
/// assert_eq!(edited.line_counts(), (1, 1));
/// assert_eq!(
///     edited.unified_diff("a/x.ged", "b/x.ged"),
///     "--- a/x.ged\n+++ b/x.ged\n@@ -1,4 +1,4 @@\n 0 HEAD\n 0 @I1@ INDI\n-1 NAME Bob\n+1 _NAME Bob\n 0 TRLR\n"
/// );
/// ```
#[derive(Debug)]
pub struct Edited<'p> {
    old: &'p Parse,
    parse: Parse,
    bytes: Vec<u8>,
    changes: Vec<Change>,
    warnings: Vec<Warning>,
    count: usize,
}

impl<'p> Edited<'p> {
    pub(crate) fn new(
        old: &'p Parse,
        parse: Parse,
        bytes: Vec<u8>,
        changes: Vec<Change>,
        warnings: Vec<Warning>,
        count: usize,
    ) -> Edited<'p> {
        Edited {
            old,
            parse,
            bytes,
            changes,
            warnings,
            count,
        }
    }

    /// The new file, parsed: its tree (sharing every untouched subtree with the input's) and fresh diagnostics.
    pub fn parse(&self) -> &Parse {
        &self.parse
    }

    /// The new file, parsed, without the rest.
    pub fn into_parse(self) -> Parse {
        self.parse
    }

    /// The input file, parsed.
    pub fn old(&self) -> &'p Parse {
        self.old
    }

    /// The new file's octets.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The new file's octets, without the rest.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The runs of octets that changed, in file order; every octet outside them is the input's.
    pub fn changes(&self) -> &[Change] {
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
    pub fn edit_count(&self) -> usize {
        self.count
    }

    /// The line diff between the input and the output.
    pub fn line_diff(&self) -> LineDiff {
        LineDiff::new(self.old, &self.parse, &self.changes)
    }

    /// How many lines were removed and added.
    pub fn line_counts(&self) -> (usize, usize) {
        let d = self.line_diff();
        (d.removed(), d.added())
    }

    /// A unified diff of the change (see [`LineDiff`] for how text is shown); empty when nothing changed.
    pub fn unified_diff(&self, old_name: &str, new_name: &str) -> String {
        self.line_diff().unified(old_name, new_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
