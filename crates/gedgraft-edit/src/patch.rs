//! A patch of an edit made of the files' own octets, for `patch -p1` and `git apply`.
//!
//! The review diff ([`crate::LineDiff`]) shows decoded text for people; a patch must instead hold the very
//! octets of both files, so that applying it to the original reproduces the edited file octet for octet. Lines
//! are what `patch` and `git apply` take them to be: octets up to and including an LF. A CR before the LF is
//! part of the line (both tools keep it, as long as the patch's own lines end in LF only, which they do here), so
//! CR LF files patch like LF files. A file with lone CRs only is one long line to these tools: its patch is
//! correct but replaces the whole file in one line. A last line without an LF is followed by
//! `\ No newline at end of file`.
//!
//! UTF-16 files are refused ([`octet_patch`] gives `None`): their octets hold NULs and an LF's second octet
//! starts the next "line", which neither tool handles.

use crate::diff::{push_op, CONTEXT};
use crate::edited::Change;
use crate::unified::{hunk_range, merge_windows, shift, walk_hunk, Mark};
use gedgraft_encoding::Encoding;
use similar::DiffOp;
use std::ops::Range;

/// The start of every line of `octets` (lines end after an LF; a last line may have none).
pub(crate) fn line_starts(octets: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(
        octets
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .map(|(i, _)| i + 1),
    );
    if starts.last() == Some(&octets.len()) {
        starts.pop();
    }
    starts
}

/// Line `l` of `octets` (with its LF, if any).
pub(crate) fn line<'a>(octets: &'a [u8], starts: &[usize], l: usize) -> &'a [u8] {
    let start = starts.get(l).copied().unwrap_or(octets.len());
    let end = starts.get(l + 1).copied().unwrap_or(octets.len());
    octets.get(start..end).unwrap_or(&[])
}

/// The patch text of the hunks `groups` (empty when no group changes anything): the `---`/`+++` header, then
/// each hunk's lines as octets, with `\ No newline at end of file` after a last line without one.
pub(crate) fn write_hunks<'a>(
    groups: Vec<Vec<DiffOp>>,
    old_line: impl Fn(usize) -> &'a [u8],
    new_line: impl Fn(usize) -> &'a [u8],
    old_name: &str,
    new_name: &str,
) -> Vec<u8> {
    let mut out = Vec::new();
    let push_line = |out: &mut Vec<u8>, sign: u8, text: &[u8]| {
        out.push(sign);
        out.extend_from_slice(text);
        if text.last() != Some(&b'\n') {
            out.extend_from_slice(b"\n\\ No newline at end of file\n");
        }
    };
    for group in groups {
        if group.iter().all(|op| matches!(op, DiffOp::Equal { .. })) {
            continue;
        }
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        if out.is_empty() {
            out.extend_from_slice(format!("--- {old_name}\n+++ {new_name}\n").as_bytes());
        }
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        out.extend_from_slice(
            format!(
                "@@ -{} +{} @@\n",
                hunk_range(&old_range),
                hunk_range(&new_range)
            )
            .as_bytes(),
        );
        walk_hunk(&group, |mark, l| match mark {
            Mark::Context => push_line(&mut out, b' ', old_line(l)),
            Mark::Removed => push_line(&mut out, b'-', old_line(l)),
            Mark::Added => push_line(&mut out, b'+', new_line(l)),
        });
    }
    out
}

/// The lines an octet range touches: from the line holding its start to the line holding its end (included,
/// so a range ending at a line's start takes that line too: comparing one line more changes nothing).
pub(crate) fn window(starts: &[usize], range: &Range<usize>) -> Range<usize> {
    let line_of = |at: usize| starts.partition_point(|&s| s <= at).saturating_sub(1);
    let count = starts.len();
    let lo = line_of(range.start).min(count);
    let hi = (line_of(range.end.max(range.start)) + 1).min(count);
    lo..hi.max(lo)
}

/// The changed octet ranges between two files split into lines at LF (as `patch` splits them), found by a
/// line diff of the two, and how many lines they remove and add: for a file written anew (`gedgraft fmt`),
/// whose changes are not known from its edits. The same files give the same changes on any machine, in time
/// about linear in the lines even when every line changes.
///
/// ```
/// use gedgraft_edit::{octet_line_changes, Change};
/// let (changes, removed, added) = octet_line_changes(b"a\nb\nc\n", b"a\nB\nc\nd\n");
/// let expected = [Change { input: 2..4, output: 2..4 }, Change { input: 6..6, output: 6..8 }];
/// assert_eq!((changes, removed, added), (expected.to_vec(), 1, 2));
/// assert_eq!(octet_line_changes(b"x\n", b"x\n"), (Vec::new(), 0, 0));
/// ```
pub fn octet_line_changes(old: &[u8], new: &[u8]) -> (Vec<Change>, usize, usize) {
    if old == new {
        return (Vec::new(), 0, 0);
    }
    let a: Vec<&[u8]> = old.split_inclusive(|&x| x == b'\n').collect();
    let b: Vec<&[u8]> = new.split_inclusive(|&x| x == b'\n').collect();
    let octets = |lines: &[&[u8]], from: usize, to: usize| -> usize {
        (lines.get(from..to)).map_or(0, |l| l.iter().map(|x| x.len()).sum())
    };
    let (mut changes, mut removed, mut added) = (Vec::<Change>::new(), 0, 0);
    let (mut at_old, mut at_new) = (0usize, 0usize);
    for op in crate::diff_ops::line_ops(&a, &b) {
        let (old_range, new_range) = (op.old_range(), op.new_range());
        let old_len = octets(&a, old_range.start, old_range.end);
        let new_len = octets(&b, new_range.start, new_range.end);
        if !matches!(op, DiffOp::Equal { .. }) {
            removed += old_range.len();
            added += new_range.len();
            match changes.last_mut() {
                Some(last) if last.input.end == at_old && last.output.end == at_new => {
                    last.input.end += old_len;
                    last.output.end += new_len;
                }
                _ => changes.push(Change {
                    input: at_old..at_old + old_len,
                    output: at_new..at_new + new_len,
                }),
            }
        }
        at_old += old_len;
        at_new += new_len;
    }
    (changes, removed, added)
}

/// [`octet_line_changes`] piece by piece: `old` and `new` cut at `old_cuts` and `new_cuts` (octet offsets,
/// increasing), the i-th piece of one diffed with the i-th of the other alone. A file and its rewrite cut at
/// their records' starts give each record's changes on its own lines: linear in the records, where one diff of
/// the whole files may take quadratic time, and the same whether the files are diffed whole or batch by batch
/// (batches of whole records). `None` when the files have not as many pieces, or a cut does not follow a LF
/// (the pieces would not be whole lines).
///
/// ```
/// use gedgraft_edit::{piecewise_line_changes, Change};
/// let (old, new) = (b"0 A\n1 B\n0 C\n", b"0 A\n1 b\n0 C\n1 D\n");
/// let (changes, removed, added) = piecewise_line_changes(old, &[8], new, &[8]).unwrap();
/// let expected = [Change { input: 4..8, output: 4..8 }, Change { input: 12..12, output: 12..16 }];
/// assert_eq!((changes, removed, added), (expected.to_vec(), 1, 2));
/// assert_eq!(piecewise_line_changes(old, &[8], new, &[]), None);
/// ```
pub fn piecewise_line_changes(
    old: &[u8],
    old_cuts: &[usize],
    new: &[u8],
    new_cuts: &[usize],
) -> Option<(Vec<Change>, usize, usize)> {
    let whole_lines = |octets: &[u8], cuts: &[usize]| {
        let mut before = 0;
        cuts.iter().all(|&cut| {
            let ok = cut > before && cut <= octets.len() && octets[cut - 1] == b'\n';
            before = cut;
            ok
        })
    };
    if old_cuts.len() != new_cuts.len()
        || !whole_lines(old, old_cuts)
        || !whole_lines(new, new_cuts)
    {
        return None;
    }
    let bounds = |cuts: &[usize], len: usize| {
        let starts = std::iter::once(0).chain(cuts.iter().copied());
        let ends = cuts.iter().copied().chain(std::iter::once(len));
        starts.zip(ends).collect::<Vec<_>>()
    };
    let (mut changes, mut removed, mut added) = (Vec::<Change>::new(), 0, 0);
    for ((a, b), (c, d)) in bounds(old_cuts, old.len())
        .into_iter()
        .zip(bounds(new_cuts, new.len()))
    {
        let (piece, r, n) = octet_line_changes(&old[a..b], &new[c..d]);
        removed += r;
        added += n;
        for change in piece {
            let (input, output) = (
                change.input.start + a..change.input.end + a,
                change.output.start + c..change.output.end + c,
            );
            match changes.last_mut() {
                // A change that ends a piece and one that starts the next are one, as one diff makes them.
                Some(last) if last.input.end == input.start && last.output.end == output.start => {
                    last.input.end = input.end;
                    last.output.end = output.end;
                }
                _ => changes.push(Change { input, output }),
            }
        }
    }
    Some((changes, removed, added))
}

/// The unified diff that turns `old` into `new` (which differ only in `changes`, octet ranges in each) with
/// `patch -p1` or `git apply`, with the headers `--- old_name` and `+++ new_name` (give them as `a/PATH` and
/// `b/PATH`). Empty when the files are the same; `None` when either encoding is UTF-16 (see the module
/// documentation).
///
/// ```
/// use gedgraft_edit::{octet_patch, Change};
/// use gedgraft_encoding::Encoding;
/// let old = b"0 HEAD\r\n1 NOTE a\r\n0 TRLR\r\n";
/// let new = b"0 HEAD\r\n1 NOTE bc\r\n0 TRLR\r\n";
/// let changes = [Change { input: 15..16, output: 15..17 }];
/// let patch = octet_patch(old, Encoding::Utf8, new, Encoding::Utf8, &changes, "a/f.ged", "b/f.ged").unwrap();
/// assert_eq!(
///     patch,
///     b"--- a/f.ged\n+++ b/f.ged\n@@ -1,3 +1,3 @@\n 0 HEAD\r\n-1 NOTE a\r\n+1 NOTE bc\r\n 0 TRLR\r\n"
/// );
/// ```
pub fn octet_patch(
    old: &[u8],
    old_encoding: Encoding,
    new: &[u8],
    new_encoding: Encoding,
    changes: &[Change],
    old_name: &str,
    new_name: &str,
) -> Option<Vec<u8>> {
    if old_encoding.is_utf16() || new_encoding.is_utf16() {
        return None;
    }
    if old == new {
        return Some(Vec::new());
    }
    let (old_starts, new_starts) = (line_starts(old), line_starts(new));
    let (old_count, new_count) = (old_starts.len(), new_starts.len());
    let mut sorted: Vec<&Change> = changes.iter().collect();
    sorted.sort_by_key(|c| (c.input.start, c.output.start));
    // Changes beyond either file's end, or out of order, make one window of everything from the first on.
    let windows = merge_windows(
        sorted.into_iter().map(|c| {
            (
                window(&old_starts, &c.input),
                window(&new_starts, &c.output),
            )
        }),
        (old_count, new_count),
        true,
    );
    let mut ops = Vec::new();
    let (mut oi, mut ni) = (0, 0);
    // Equal runs are joined as they are added (`push_op`): the equal lines that end a window and those after
    // it are one run, so that a hunk has `CONTEXT` lines around its changes however the changes were cut into
    // windows (the patch made batch by batch, `patch_stream.rs`, is the whole file's).
    for (wo, wn) in &windows {
        if wo.start > oi {
            let gap = DiffOp::Equal {
                old_index: oi,
                new_index: ni,
                len: wo.start - oi,
            };
            push_op(&mut ops, gap);
        }
        let a: Vec<&[u8]> = wo.clone().map(|l| line(old, &old_starts, l)).collect();
        let b: Vec<&[u8]> = wn.clone().map(|l| line(new, &new_starts, l)).collect();
        for op in crate::diff_ops::line_ops(&a, &b) {
            push_op(&mut ops, shift(op, wo.start, wn.start));
        }
        oi = wo.end;
        ni = wn.end;
    }
    if oi < old_count && ni < new_count {
        let rest = DiffOp::Equal {
            old_index: oi,
            new_index: ni,
            len: (old_count - oi).min(new_count - ni),
        };
        push_op(&mut ops, rest);
    }
    let groups = similar::group_diff_ops(ops, CONTEXT);
    Some(write_hunks(
        groups,
        |l| line(old, &old_starts, l),
        |l| line(new, &new_starts, l),
        old_name,
        new_name,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Applies a patch made by [`octet_patch`] (a small applier for the property test; the CLI tests use the
    /// real `patch` and `git apply`).
    fn apply(old: &[u8], patch: &[u8]) -> Vec<u8> {
        let starts = line_starts(old);
        let mut lines = patch.split_inclusive(|&b| b == b'\n').skip(2).peekable();
        let mut out = Vec::new();
        let mut at = 0; // next old line to copy
        while let Some(header) = lines.next() {
            let header = std::str::from_utf8(header).unwrap();
            let old_start: usize = header[4..]
                .split([',', ' '])
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let old_len: usize = header[4..]
                .split(' ')
                .next()
                .unwrap()
                .split(',')
                .nth(1)
                .map_or(1, |n| n.parse().unwrap());
            let first = if old_len == 0 {
                old_start
            } else {
                old_start - 1
            };
            for l in at..first {
                out.extend_from_slice(line(old, &starts, l));
            }
            at = first;
            while let Some(l) = lines.next_if(|l| !l.starts_with(b"@@")) {
                let mut text = &l[1..];
                if lines.peek().is_some_and(|n| n.starts_with(b"\\ ")) {
                    lines.next();
                    text = &text[..text.len() - 1];
                }
                match l[0] {
                    b' ' => {
                        out.extend_from_slice(text);
                        at += 1;
                    }
                    b'-' => at += 1,
                    _ => out.extend_from_slice(text),
                }
            }
        }
        for l in at..starts.len() {
            out.extend_from_slice(line(old, &starts, l));
        }
        out
    }

    fn file() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop::sample::select(vec![
            &b"0 HEAD"[..],
            b"1 NAME Bob",
            b"\n",
            b"\r\n",
            b"\r",
            b"x",
            b"\xE2e",
        ]);
        prop::collection::vec(piece, 0..30).prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn applying_the_patch_gives_the_new_octets(
            old in file(),
            cut in prop::collection::vec((0..200usize, 0..8usize, prop::collection::vec(any::<u8>(), 0..6)), 0..4),
        ) {
            // Edits at ascending places; the changes are their octet ranges in both files.
            let mut cut = cut;
            cut.sort_by_key(|c| c.0);
            let (mut new, mut changes, mut from) = (Vec::new(), Vec::new(), 0usize);
            for (at, len, with) in cut {
                let at = at.min(old.len()).max(from);
                let end = (at + len).min(old.len());
                new.extend_from_slice(&old[from..at]);
                let out_start = new.len();
                new.extend_from_slice(&with);
                changes.push(Change { input: at..end, output: out_start..new.len() });
                from = end;
            }
            new.extend_from_slice(&old[from..]);
            let patch = octet_patch(&old, Encoding::Utf8, &new, Encoding::Utf8, &changes, "a/f", "b/f").unwrap();
            prop_assert_eq!(patch.is_empty(), old == new);
            prop_assert_eq!(apply(&old, &patch), new);
        }
    }

    #[test]
    fn utf16_is_refused() {
        assert!(octet_patch(b"", Encoding::Utf16Le, b"", Encoding::Utf8, &[], "a", "b").is_none());
    }
}
