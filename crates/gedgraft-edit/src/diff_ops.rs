//! The line diff of one window of changed lines, in time that grows with the window, not its square.
//!
//! Myers' algorithm takes time in (lines × differences): a change of every line (a transcode from UTF-16, a
//! change of every line break) is quadratic in the file, hours on a file of a million lines. A window up to
//! [`SMALL`] pairs of lines is diffed as it is. A larger one first leaves out the lines the other side does
//! not have (they are in no common subsequence: GNU diff discards them too); then the lines left that each
//! side has once are matched in their longest common order (patience diff's anchors), and Myers runs
//! between two anchors where the gap is up to [`SMALL`] pairs, a larger gap being one replacement after the
//! lines its two sides start and end with. Deterministic: the same window gives the same operations whatever
//! the machine (a deadline would not), so a file diffed whole and batch by batch stays the same; and each
//! gap costs at most [`SMALL`] steps, so a window costs about its lines × √[`SMALL`] at worst.

use similar::{Algorithm, DiffOp};
use std::hash::Hash;

/// The tables of lines: only looked up, never walked, so the operations do not depend on the hash's seed.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::quality::RandomState>;

/// Windows (and gaps between anchors) of up to this many pairs of lines (old × new) go to Myers as they are.
const SMALL: usize = 1 << 22;

/// Whether Myers' steps stay about [`SMALL`] on a window of `n` × `m` lines. They grow with the lines times
/// the differences, and a line one side has more is a difference: a window of few pairs but lopsided sides
/// (one line in place of 35 000 `CONT` lines: 35 000 pairs) took the longer side's square (#12: 22 s for a
/// 1 MB note set to one word). Balanced windows of up to [`SMALL`] pairs fit.
fn myers_fits(n: usize, m: usize) -> bool {
    let lines = n.saturating_add(m);
    n.saturating_mul(m) <= SMALL && lines.saturating_mul(lines) <= 4 * SMALL
}

/// The matched pairs of a window of up to [`SMALL`] pairs: Myers' when it fits ([`myers_fits`]), else (a
/// lopsided window) a longest common subsequence by table, in (`a` × `b`) steps.
fn small_matches<T: Hash + Eq + Ord>(a: &[T], b: &[T]) -> Vec<(usize, usize)> {
    match myers_fits(a.len(), b.len()) {
        true => myers_matches(a, b),
        false => table_matches(a, b),
    }
}

/// A longest common subsequence of `a` and `b` by dynamic programming over their (`a` × `b`) pairs, as
/// ascending matched pairs. For lopsided windows of up to [`SMALL`] pairs: its shorter side has at most
/// 2 048 lines (`n × m ≤ SMALL` with `n + m > 2 √SMALL`), so the lengths fit in 16 bits.
fn table_matches<T: Eq>(a: &[T], b: &[T]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let width = m + 1;
    // `lcs[i * width + j]`: the length of a longest common subsequence of `a[i..]` and `b[j..]`.
    let mut lcs = vec![0u16; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * width + j] = match a[i] == b[j] {
                true => lcs[(i + 1) * width + j + 1].saturating_add(1),
                false => lcs[(i + 1) * width + j].max(lcs[i * width + j + 1]),
            };
        }
    }
    let mut matches = Vec::with_capacity(usize::from(lcs[0]));
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] {
            matches.push((i, j));
            (i, j) = (i + 1, j + 1);
        } else if lcs[(i + 1) * width + j] >= lcs[i * width + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    matches
}

/// The operations turning `a` into `b` (indices in `a` and `b`; replacements as `Replace`, as
/// `similar::capture_diff_slices` gives them).
pub(crate) fn line_ops<T: Hash + Eq + Ord>(a: &[T], b: &[T]) -> Vec<DiffOp> {
    if myers_fits(a.len(), b.len()) {
        return similar::capture_diff_slices(Algorithm::Myers, a, b);
    }
    if a.len().saturating_mul(b.len()) <= SMALL {
        return from_matches(&table_matches(a, b), a.len(), b.len());
    }
    // How many times each line is on each side.
    let mut seen: HashMap<&T, (u32, u32)> =
        HashMap::with_capacity_and_hasher(a.len() + b.len(), Default::default());
    for x in a {
        seen.entry(x).or_default().0 += 1;
    }
    for y in b {
        seen.entry(y).or_default().1 += 1;
    }
    let both = |x: &T| seen.get(x).is_some_and(|&(m, n)| m > 0 && n > 0);
    let kept_a: Vec<usize> = (0..a.len()).filter(|&i| both(&a[i])).collect();
    let kept_b: Vec<usize> = (0..b.len()).filter(|&j| both(&b[j])).collect();
    let fa: Vec<&T> = kept_a.iter().map(|&i| &a[i]).collect();
    let fb: Vec<&T> = kept_b.iter().map(|&j| &b[j]).collect();
    let once = |x: &&T| seen.get(*x) == Some(&(1, 1));
    let mut matches = Vec::new();
    let (mut i, mut j) = (0, 0);
    for (x, y) in anchors(&fa, &fb, once)
        .into_iter()
        .chain([(fa.len(), fb.len())])
    {
        let (gap_a, gap_b) = (&fa[i..x], &fb[j..y]);
        let found = if gap_a.len().saturating_mul(gap_b.len()) <= SMALL {
            small_matches(gap_a, gap_b)
        } else {
            ends_alike(gap_a, gap_b)
        };
        matches.extend(found.into_iter().map(|(p, q)| (p + i, q + j)));
        if x < fa.len() {
            matches.push((x, y));
        }
        (i, j) = (x + 1, y + 1);
    }
    let matches: Vec<(usize, usize)> = (matches.into_iter())
        .map(|(p, q)| (kept_a[p], kept_b[q]))
        .collect();
    from_matches(&matches, a.len(), b.len())
}

/// The lines of `a` and `b` that `once` says each side has once, matched in their longest common order
/// (patience sorting: O(k log k) for k such lines), as ascending pairs of indices.
fn anchors<T: Hash + Eq>(a: &[T], b: &[T], once: impl Fn(&T) -> bool) -> Vec<(usize, usize)> {
    let in_b: HashMap<&T, usize> = (b.iter().enumerate())
        .filter(|(_, y)| once(y))
        .map(|(j, y)| (y, j))
        .collect();
    let pairs: Vec<(usize, usize)> = (a.iter().enumerate())
        .filter_map(|(i, x)| in_b.get(x).map(|&j| (i, j)))
        .collect();
    // The longest increasing run of `j`: `tops[k]` ends the best run of length k + 1 found so far.
    let mut tops: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = Vec::with_capacity(pairs.len());
    for (p, &(_, j)) in pairs.iter().enumerate() {
        let k = tops.partition_point(|&t| pairs[t].1 < j);
        before.push(k.checked_sub(1).map(|k| tops[k]));
        match tops.get_mut(k) {
            Some(top) => *top = p,
            None => tops.push(p),
        }
    }
    let mut chain = Vec::with_capacity(tops.len());
    let mut at = tops.last().copied();
    while let Some(p) = at {
        chain.push(pairs[p]);
        at = before[p];
    }
    chain.reverse();
    chain
}

/// Myers' matched pairs of `a` and `b`.
fn myers_matches<T: Hash + Eq + Ord>(a: &[T], b: &[T]) -> Vec<(usize, usize)> {
    let mut matches = Vec::new();
    for op in similar::capture_diff_slices(Algorithm::Myers, a, b) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            matches.extend((0..len).map(|k| (old_index + k, new_index + k)));
        }
    }
    matches
}

/// The lines `a` and `b` start and end with alike, as matched pairs.
fn ends_alike<T: Eq>(a: &[T], b: &[T]) -> Vec<(usize, usize)> {
    let start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let end = (a[start..].iter().rev())
        .zip(b[start..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let head = (0..start).map(|i| (i, i));
    let tail = (0..end).rev().map(|k| (a.len() - 1 - k, b.len() - 1 - k));
    head.chain(tail).collect()
}

/// The operations of a common subsequence given as its matched pairs (ascending on both sides): equal runs,
/// and between them a deletion, an insertion or a replacement.
fn from_matches(matches: &[(usize, usize)], a_len: usize, b_len: usize) -> Vec<DiffOp> {
    let mut ops = Vec::new();
    let (mut i, mut j) = (0, 0);
    let gap = |ops: &mut Vec<DiffOp>, (i, j): (usize, usize), (x, y): (usize, usize)| match (
        x > i,
        y > j,
    ) {
        (true, true) => ops.push(DiffOp::Replace {
            old_index: i,
            old_len: x - i,
            new_index: j,
            new_len: y - j,
        }),
        (true, false) => ops.push(DiffOp::Delete {
            old_index: i,
            old_len: x - i,
            new_index: j,
        }),
        (false, true) => ops.push(DiffOp::Insert {
            old_index: i,
            new_index: j,
            new_len: y - j,
        }),
        (false, false) => {}
    };
    for &(x, y) in matches {
        gap(&mut ops, (i, j), (x, y));
        match ops.last_mut() {
            Some(DiffOp::Equal {
                old_index,
                new_index,
                len,
            }) if *old_index + *len == x && *new_index + *len == y => *len += 1,
            _ => ops.push(DiffOp::Equal {
                old_index: x,
                new_index: y,
                len: 1,
            }),
        }
        (i, j) = (x + 1, y + 1);
    }
    gap(&mut ops, (i, j), (a_len, b_len));
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The lines kept and removed, added, as the operations say, and how many are equal.
    fn apply(ops: &[DiffOp], a: &[u32], b: &[u32]) -> (Vec<u32>, usize) {
        let mut out = Vec::new();
        let mut equal = 0;
        for op in ops {
            match *op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    assert_eq!(a[old_index..old_index + len], b[new_index..new_index + len]);
                    out.extend_from_slice(&a[old_index..old_index + len]);
                    equal += len;
                }
                DiffOp::Delete { .. } => {}
                DiffOp::Insert {
                    new_index, new_len, ..
                }
                | DiffOp::Replace {
                    new_index, new_len, ..
                } => out.extend_from_slice(&b[new_index..new_index + new_len]),
            }
        }
        (out, equal)
    }

    #[test]
    fn a_change_of_every_line_is_one_replacement() {
        // A transcode of 3 000 lines: no line alike (9 million pairs, past `SMALL`).
        let a: Vec<u32> = (0..3000).collect();
        let b: Vec<u32> = (10_000..13_000).collect();
        let ops = line_ops(&a, &b);
        assert_eq!(
            ops,
            [DiffOp::Replace {
                old_index: 0,
                old_len: 3000,
                new_index: 0,
                new_len: 3000
            }]
        );
    }

    #[test]
    fn large_windows_keep_every_line_both_sides_have_in_order() {
        // Every third line changed, in a window past `SMALL`: the unchanged lines are all matched.
        let a: Vec<u32> = (0..3000).collect();
        let b: Vec<u32> = (0..3000)
            .map(|i| if i % 3 == 0 { i + 100_000 } else { i })
            .collect();
        let (out, equal) = apply(&line_ops(&a, &b), &a, &b);
        assert_eq!(out, b);
        assert_eq!(equal, 2000);
        // An attacker's window: the changed lines become copies of unchanged ones, in reverse order (Myers
        // would take lines²). The anchors keep one line; the gaps past `SMALL` keep their ends.
        let a: Vec<u32> = (0..3000)
            .chain((0..3000).rev().map(|i| i + 10_000))
            .collect();
        let b: Vec<u32> = (0..3000)
            .map(|i| i + 10_000)
            .chain((0..3000).rev().map(|i| i + 10_000))
            .collect();
        let (out, equal) = apply(&line_ops(&a, &b), &a, &b);
        assert_eq!(out, b);
        assert!(equal >= 1, "{equal}");
    }

    #[test]
    fn a_lopsided_window_is_diffed_by_table_not_by_myers() {
        // One line in place of 35 000 (a long note set to one word): 35 000 pairs, but Myers' steps would be
        // 35 000². The table takes 35 000 steps.
        assert!(!myers_fits(35_000, 1) && myers_fits(2048, 2048) && !myers_fits(4096, 1025));
        let a: Vec<u32> = (0..35_000).collect();
        let ops = line_ops(&a, &[7]);
        let (out, equal) = apply(&ops, &a, &[7]);
        assert_eq!((out, equal), (vec![7], 1));
        assert_eq!(line_ops(&a, &[100_000]).len(), 1, "one replacement");
    }

    #[test]
    fn anchors_are_the_longest_common_order_of_lines_each_side_has_once() {
        let a = [1, 2, 3, 4, 5, 6, 9, 9];
        let b = [9, 3, 1, 4, 6, 2, 5, 9];
        let once = |x: &u32| *x != 9;
        // 1 4 6 (or 3 4 6, 3 4 5…): three in order; 9 is on each side twice.
        let found = anchors(&a, &b, once);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
        assert!(found.iter().all(|&(i, j)| a[i] == b[j]));
    }

    /// `base` with `edits` made: (position, lines removed there, line inserted there, if any).
    fn edited(base: &[u32], edits: &[(usize, usize, Option<u32>)]) -> Vec<u32> {
        let mut out = base.to_vec();
        let mut edits = edits.to_vec();
        edits.sort_by_key(|e| std::cmp::Reverse(e.0));
        for (at, removed, inserted) in edits {
            let at = at.min(out.len());
            let end = (at + removed).min(out.len());
            out.splice(at..end, inserted);
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Small windows are Myers' own operations.
        #[test]
        fn small_windows_are_myers(a in proptest::collection::vec(0u32..8, 0..60), b in proptest::collection::vec(0u32..8, 0..60)) {
            prop_assert_eq!(line_ops(&a, &b), similar::capture_diff_slices(Algorithm::Myers, &a, &b));
        }

        /// A large window of local edits (lines removed, changed, added, some of them copies of other lines)
        /// keeps as many lines as Myers does, and its operations make the new side.
        #[test]
        fn large_windows_of_local_edits_keep_what_myers_keeps(
            edits in proptest::collection::vec((0usize..2200, 0usize..3, proptest::option::of(0u32..2400)), 0..40),
        ) {
            let a: Vec<u32> = (0..2200).collect();
            let b = edited(&a, &edits);
            prop_assume!(a.len() * b.len() > SMALL);
            let (out, equal) = apply(&line_ops(&a, &b), &a, &b);
            prop_assert_eq!(&out, &b);
            prop_assert_eq!(equal, myers_matches(&a, &b).len());
        }

        /// The table keeps as many lines as Myers, in order, on lopsided windows and others.
        #[test]
        fn the_table_keeps_what_myers_keeps(a in proptest::collection::vec(0u32..6, 0..400), b in proptest::collection::vec(0u32..6, 0..8)) {
            for (a, b) in [(&a, &b), (&b, &a)] {
                let table = table_matches(a, b);
                prop_assert_eq!(table.len(), myers_matches(a, b).len());
                prop_assert!(table.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
                prop_assert!(table.iter().all(|&(i, j)| a[i] == b[j]));
                let (out, _) = apply(&from_matches(&table, a.len(), b.len()), a, b);
                prop_assert_eq!(&out, b);
            }
        }

        /// From matched pairs, the operations make `b` from `a`.
        #[test]
        fn operations_from_matches_make_the_new_side(a in proptest::collection::vec(0u32..8, 0..60), b in proptest::collection::vec(0u32..8, 0..60)) {
            let matches = myers_matches(&a, &b);
            let ops = from_matches(&matches, a.len(), b.len());
            let (out, equal) = apply(&ops, &a, &b);
            prop_assert_eq!(out, b);
            prop_assert_eq!(equal, matches.len());
        }
    }
}
