//! Aligning two lists of siblings: which old structure each new one is, and which keep their order.
//!
//! Linear in the lists (hash maps, no quadratic LCS), then `O(k log k)` for the order of the `k` pairs:
//! 1. the same identifier (old ones through the identifier map);
//! 2. the same subtree (exact hash, confirmed);
//! 3. the same payload and children under another tag (a retag), when neither tag is left to pair with;
//! 4. the same tag, neither with an identifier: the k-th unpaired old one with the k-th unpaired new one.
//!
//! The pairs that keep their relative order are the longest increasing run of new positions in old order;
//! the others moved.

use super::hash::{same, same_payload, Hashes, XrefMap};
use crate::dataset::StructureRef;
use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;

/// No pair.
const NONE: u32 = u32::MAX;

/// The pairing of two sibling lists.
pub(super) struct Alignment {
    /// For each new sibling: the old one paired with it, or [`NONE`].
    pub new_to_old: Vec<u32>,
    /// For each old sibling: whether it is paired.
    pub old_paired: Vec<bool>,
    /// For each new sibling: whether its pair keeps its order (false for unpaired ones).
    pub stable: Vec<bool>,
    /// For each new sibling: whether its pair is known to hold the same data.
    pub identical: Vec<bool>,
}

impl Alignment {
    pub fn old_of(&self, j: usize) -> Option<usize> {
        match self.new_to_old.get(j) {
            Some(&i) if i != NONE => Some(i as usize),
            _ => None,
        }
    }
}

/// The hashes of both datasets and the identifier map.
pub(super) struct Side<'h, 'a> {
    pub old: &'h Hashes,
    pub new: &'h Hashes,
    pub map: &'h XrefMap<'a>,
}

fn at(h: &[u64], s: &StructureRef<'_>) -> u64 {
    h.get(s.id().index()).copied().unwrap_or(0)
}

struct Pairing {
    new_to_old: Vec<u32>,
    old_to_new: Vec<u32>,
    identical: Vec<bool>,
}

impl Pairing {
    fn pair(&mut self, i: usize, j: usize, identical: bool) {
        self.new_to_old[j] = i as u32;
        self.old_to_new[i] = j as u32;
        self.identical[j] = identical;
    }

    fn free_old(&self, i: usize) -> bool {
        self.old_to_new[i] == NONE
    }

    fn free_new(&self, j: usize) -> bool {
        self.new_to_old[j] == NONE
    }
}

/// Pairs each unpaired old sibling with the first unpaired new one of the same key that `accept` takes.
fn pair_by<'s, K: std::hash::Hash + Eq>(
    p: &mut Pairing,
    old: &'s [StructureRef<'s>],
    new: &'s [StructureRef<'s>],
    key_old: impl Fn(&StructureRef<'s>) -> Option<K>,
    key_new: impl Fn(&StructureRef<'s>) -> Option<K>,
    accept: impl Fn(&StructureRef<'s>, &StructureRef<'s>) -> bool,
    identical: bool,
) {
    let mut queues: FxHashMap<K, (usize, Vec<u32>)> = FxHashMap::default();
    for (j, s) in new.iter().enumerate() {
        if p.free_new(j) {
            if let Some(k) = key_new(s) {
                queues.entry(k).or_default().1.push(j as u32);
            }
        }
    }
    if queues.is_empty() {
        return;
    }
    for (i, s) in old.iter().enumerate() {
        if !p.free_old(i) {
            continue;
        }
        let Some(k) = key_old(s) else { continue };
        let Entry::Occupied(mut e) = queues.entry(k) else {
            continue;
        };
        let (cursor, js) = e.get_mut();
        while let Some(&j) = js.get(*cursor) {
            let j = j as usize;
            *cursor += 1;
            if p.free_new(j) && accept(s, &new[j]) {
                p.pair(i, j, identical);
                break;
            }
        }
    }
}

/// Aligns the old siblings `old` with the new siblings `new`.
pub(super) fn align<'s>(
    side: &Side<'_, 's>,
    old: &'s [StructureRef<'s>],
    new: &'s [StructureRef<'s>],
) -> Alignment {
    let mut p = Pairing {
        new_to_old: vec![NONE; new.len()],
        old_to_new: vec![NONE; old.len()],
        identical: vec![false; new.len()],
    };
    let map = side.map;
    // 1. The same identifier.
    pair_by(
        &mut p,
        old,
        new,
        |s| s.xref().map(|x| map.get(x).copied().unwrap_or(x)),
        |s| s.xref(),
        |_, _| true,
        false,
    );
    // 2. The same subtree.
    pair_by(
        &mut p,
        old,
        new,
        |s| Some(at(&side.old.exact, s)),
        |s| Some(at(&side.new.exact, s)),
        |a, b| same(*a, *b, map),
        true,
    );
    // 3. A retag: the same payload and children, another tag; only when the old tag is gone from the unpaired
    // new siblings and the new tag was not among the unpaired old ones. Otherwise the same tag is there to
    // pair with (step 4): two `HUSB`/`WIFE` pointers swapped are two changed pointers, not two retags and a move.
    let free_tags = |list: &'s [StructureRef<'s>], free: &dyn Fn(usize) -> bool| {
        let mut tags: FxHashMap<&'s str, usize> = FxHashMap::default();
        for (k, s) in list.iter().enumerate() {
            if free(k) && s.xref().is_none() {
                *tags.entry(s.tag()).or_default() += 1;
            }
        }
        tags
    };
    let old_tags = free_tags(old, &|i| p.free_old(i));
    let new_tags = free_tags(new, &|j| p.free_new(j));
    pair_by(
        &mut p,
        old,
        new,
        |s| s.xref().is_none().then(|| at(&side.old.body, s)),
        |s| s.xref().is_none().then(|| at(&side.new.body, s)),
        |a, b| {
            !new_tags.contains_key(a.tag())
                && !old_tags.contains_key(b.tag())
                && same_payload(a, b, map)
                && a.children().count() == b.children().count()
                && a.children().zip(b.children()).all(|(x, y)| same(x, y, map))
        },
        false,
    );
    // 4. The same tag.
    pair_by(
        &mut p,
        old,
        new,
        |s| s.xref().is_none().then(|| s.tag()),
        |s| s.xref().is_none().then(|| s.tag()),
        |_, _| true,
        false,
    );
    let stable = longest_increasing(&p.old_to_new, new.len());
    Alignment {
        old_paired: p.old_to_new.iter().map(|&j| j != NONE).collect(),
        new_to_old: p.new_to_old,
        stable,
        identical: p.identical,
    }
}

/// The new positions that keep their order: the longest increasing run of `old_to_new` (pairs only), as a
/// mark per new position. Patience sorting, `O(k log k)`.
fn longest_increasing(old_to_new: &[u32], new_len: usize) -> Vec<bool> {
    let seq: Vec<u32> = old_to_new.iter().copied().filter(|&j| j != NONE).collect();
    // tails[l]: index in `seq` of the smallest tail of an increasing run of length l + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<usize> = vec![usize::MAX; seq.len()];
    for (k, &j) in seq.iter().enumerate() {
        let l = tails.partition_point(|&t| seq[t] < j);
        if l > 0 {
            before[k] = tails[l - 1];
        }
        if l == tails.len() {
            tails.push(k);
        } else {
            tails[l] = k;
        }
    }
    let mut stable = vec![false; new_len];
    let mut k = tails.last().copied().unwrap_or(usize::MAX);
    while let Some(&j) = seq.get(k) {
        if let Some(mark) = stable.get_mut(j as usize) {
            *mark = true;
        }
        k = before[k];
    }
    stable
}

/// For each sibling: its 1-based position among the siblings of its tag, or 0 when its tag is alone.
pub(super) fn positions(list: &[StructureRef<'_>]) -> Vec<u32> {
    let mut counts: FxHashMap<&str, u32> = FxHashMap::default();
    let index: Vec<u32> = list
        .iter()
        .map(|s| {
            let n = counts.entry(s.tag()).or_insert(0);
            *n += 1;
            *n
        })
        .collect();
    list.iter()
        .zip(index)
        .map(|(s, i)| {
            if counts.get(s.tag()) == Some(&1) {
                0
            } else {
                i
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::longest_increasing;

    #[test]
    fn the_longest_increasing_run_keeps_order_and_marks_the_rest_moved() {
        // old 0..4 paired with new 2, 0, 1, 3: the new positions 0, 1, 3 keep order; 2 moved.
        assert_eq!(
            longest_increasing(&[2, 0, 1, 3], 4),
            vec![true, true, false, true]
        );
        assert_eq!(longest_increasing(&[u32::MAX, 0], 2), vec![true, false]);
        assert!(longest_increasing(&[], 0).is_empty());
    }
}
