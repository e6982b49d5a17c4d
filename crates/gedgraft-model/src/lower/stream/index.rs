//! The index of identifiers of a streamed lowering: one entry per identifier of the file, in a compact table
//! (O(records) memory, about 40 octets an identifier): an open-addressing table of `u32` slots (hashed under a
//! random key, as the dataset's own index), entries of 24 octets, and the identifiers' text in one arena.

use crate::dataset::HashKey;

/// The top bit of a `u64` field, used as a flag.
const FLAG: u64 = 1 << 63;
/// The top bit of [`Entry::count`]: the identifier is listed for an `UNDEF` record.
const LISTED: u32 = 1 << 31;
/// The top bit of [`Entry::len`]: a pointer named the identifier before any structure held it (a lowering
/// in one pass, [`Index::pend`]).
const PENDING: u32 = 1 << 31;

/// One identifier.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Where its text starts in the arena; [`FLAG`]: its first holder was met in the second pass.
    start: u64,
    /// The line of its first holder, once the second pass met it; [`FLAG`]: that holder is a record.
    line: u64,
    /// The length of its text, below [`PENDING`], which marks one a pointer named before it was held.
    len: u32,
    /// How many structures hold it (0: only pointers name it), saturating below [`LISTED`], which marks one
    /// listed for an `UNDEF` record.
    count: u32,
}

impl Entry {
    fn count(&self) -> u32 {
        self.count & !LISTED
    }
}

/// The identifiers of a file.
#[derive(Debug, Default)]
pub(super) struct Index {
    /// A power-of-two number of slots (or none): 0 for an empty one, else an index in `entries` + 1.
    slots: Vec<u32>,
    entries: Vec<Entry>,
    arena: String,
    /// The entries listed for `UNDEF` records, in order.
    undefined: Vec<u32>,
    /// The key of the slots' hash, drawn when the table gets its first slots.
    key: HashKey,
    /// A lowering in one pass: by entry, the first and the last batch whose pointers named it while no
    /// structure held it ([`Index::pend`]; `u32::MAX` in both for none); as long as the entries that were.
    pended: Vec<(u32, u32)>,
}

impl Index {
    /// The slot of `xref`: its entry's, or the empty one where it would go (`None` with no slots).
    fn slot(&self, xref: &str) -> Option<usize> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut i = self.key.hash(xref) as usize & mask;
        loop {
            let e = *self.slots.get(i)?;
            if e == 0 || self.text(e as usize - 1) == xref {
                return Some(i);
            }
            i = (i + 1) & mask;
        }
    }

    fn text(&self, entry: usize) -> &str {
        let Some(e) = self.entries.get(entry) else {
            return "";
        };
        let start = usize::try_from(e.start & !FLAG).unwrap_or(usize::MAX);
        let end = start.saturating_add((e.len & !PENDING) as usize);
        self.arena.get(start..end).unwrap_or("")
    }

    fn entry(&self, xref: &str) -> Option<usize> {
        let slot = self.slot(xref)?;
        self.slots.get(slot)?.checked_sub(1).map(|e| e as usize)
    }

    /// The entry of `xref`, added (held by no structure) if it has none.
    fn entry_or_add(&mut self, xref: &str) -> usize {
        if self.entries.len() * 2 >= self.slots.len() {
            self.grow();
        }
        if let Some(e) = self.entry(xref) {
            return e;
        }
        let start = self.arena.len() as u64;
        self.arena.push_str(xref);
        self.entries.push(Entry {
            start,
            line: 0,
            len: u32::try_from(xref.len())
                .unwrap_or(u32::MAX)
                .min(PENDING - 1),
            count: 0,
        });
        let e = self.entries.len() - 1;
        if let Some(slot) = self.slot(xref) {
            self.slots[slot] = u32::try_from(e + 1).unwrap_or(u32::MAX);
        }
        e
    }

    /// Doubles the slots (at least 1 024) and places the entries again.
    fn grow(&mut self) {
        if self.slots.is_empty() {
            self.key = HashKey::random();
        }
        let size = (self.slots.len() * 2).max(1 << 10);
        self.slots = vec![0; size];
        let mask = size - 1;
        for e in 0..self.entries.len() {
            let mut i = self.key.hash(self.text(e)) as usize & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = u32::try_from(e + 1).unwrap_or(u32::MAX);
        }
    }

    /// First pass: a structure holds `xref` (a record if `record`); whether an earlier one did.
    pub fn hold(&mut self, xref: &str, record: bool) -> bool {
        let e = self.entry_or_add(xref);
        let entry = &mut self.entries[e];
        let first = entry.count() == 0;
        if first && record {
            entry.line = FLAG;
        }
        if entry.count() < LISTED - 1 {
            entry.count += 1;
        }
        !first
    }

    /// Second pass: a holder of `xref` on `line` is met; the line of the first holder if this is a later one.
    /// (The first pass does not count lines: the second gives the first holder's line when it meets it, before
    /// any later holder.)
    pub fn meet(&mut self, xref: &str, line: u64) -> Option<usize> {
        let e = self.entry(xref)?;
        let entry = self.entries.get_mut(e)?;
        if entry.start & FLAG == 0 {
            entry.start |= FLAG;
            entry.line = (entry.line & FLAG) | (line & !FLAG);
            return None;
        }
        usize::try_from(entry.line & !FLAG).ok()
    }

    /// How many structures hold `xref` (`None`: none), and whether exactly one does, a record.
    pub fn holders(&self, xref: &str) -> (Option<u32>, bool) {
        let Some(e) = self.entry(xref).and_then(|e| self.entries.get(e)) else {
            return (None, false);
        };
        let count = e.count();
        (
            (count > 0).then_some(count),
            count == 1 && e.line & FLAG != 0,
        )
    }

    /// A lowering in one pass: a pointer of batch `batch` names `xref`, which no structure held so far.
    pub fn pend(&mut self, xref: &str, batch: u32) {
        let e = self.entry_or_add(xref);
        self.entries[e].len |= PENDING;
        if self.pended.len() <= e {
            self.pended.resize(e + 1, (u32::MAX, u32::MAX));
        }
        let (first, last) = &mut self.pended[e];
        if *first == u32::MAX {
            *first = batch;
        }
        *last = batch;
    }

    /// The entries [`pend`](Index::pend) marked that are not held by exactly one structure, a record: a
    /// pointer that named them before they were held leads to no record.
    fn unresolved(&self) -> impl Iterator<Item = usize> + '_ {
        (self.entries.iter().enumerate())
            .filter(|(_, e)| e.len & PENDING != 0 && !(e.count() == 1 && e.line & FLAG != 0))
            .map(|(i, _)| i)
    }

    /// Whether a pointer that named an identifier before it was held leads to no record.
    pub fn has_unresolved(&self) -> bool {
        self.unresolved().next().is_some()
    }

    /// The first and the last batch with a pointer that named an identifier before it was held and leads to
    /// no record (`None`: there is none).
    pub fn unresolved_batches(&self) -> Option<(u32, u32)> {
        let spans = self
            .unresolved()
            .filter_map(|e| self.pended.get(e).copied());
        spans.fold(None, |span, (first, last)| match span {
            None => Some((first, last)),
            Some((a, b)) => Some((first.min(a), last.max(b))),
        })
    }

    /// After a lowering in one pass: the index of a first pass (every holder counted, none met, nothing
    /// pending), with the first `listed` identifiers listed for `UNDEF` records kept.
    pub fn forget_meetings(&mut self, listed: usize) {
        for e in &mut self.entries {
            e.start &= !FLAG;
            e.line &= FLAG;
            e.len &= !PENDING;
            e.count &= !LISTED;
        }
        self.undefined.truncate(listed);
        for &e in &self.undefined {
            if let Some(entry) = self.entries.get_mut(e as usize) {
                entry.count |= LISTED;
            }
        }
        self.pended = Vec::new();
    }

    /// Lists `xref` for an `UNDEF` record, unless it is listed already.
    pub fn list_undefined(&mut self, xref: &str) {
        let e = self.entry_or_add(xref);
        let entry = &mut self.entries[e];
        if entry.count & LISTED == 0 {
            entry.count |= LISTED;
            self.undefined.push(u32::try_from(e).unwrap_or(u32::MAX));
        }
    }

    /// How many identifiers are listed for `UNDEF` records (asked before every batch of a one pass: not a walk
    /// over them).
    pub fn undefined_count(&self) -> usize {
        self.undefined.len()
    }

    /// The identifiers listed for `UNDEF` records, in order.
    pub fn undefined(&self) -> impl Iterator<Item = &str> {
        self.undefined.iter().map(|&e| self.text(e as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a, 64 bits (the fixed hash the tables used before), of `text` after the octets that gave `state`.
    fn fnv_from(state: u64, text: &[u8]) -> u64 {
        (text.iter()).fold(state, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }

    fn fnv(text: &[u8]) -> u64 {
        fnv_from(0xcbf2_9ce4_8422_2325, text)
    }

    /// 2^`stages` identifiers whose FNV-1a hashes share their low 16 bits, as an attacker makes them: the low
    /// bits of the hash follow from the low bits before each octet, so one pair of blocks with the
    /// same low bits from a common state (three letters each), chosen at each stage, doubles the colliding identifiers.
    fn colliding_identifiers(stages: u32) -> Vec<String> {
        let letters: Vec<u8> = (b'A'..=b'Z')
            .chain(b'a'..=b'z')
            .chain(b'0'..=b'9')
            .collect();
        let mut ids = vec![b"I".to_vec()];
        for _ in 0..stages {
            let state = fnv(&ids[0]);
            let step = |block: &[u8]| fnv_from(state, block) & 0xFFFF;
            let mut seen = std::collections::HashMap::new();
            let mut pair = None;
            'search: for &a in &letters {
                for &b in &letters {
                    for &c in &letters {
                        let block = [a, b, c];
                        if let Some(other) = seen.insert(step(&block), block) {
                            pair = Some((other, block));
                            break 'search;
                        }
                    }
                }
            }
            let (x, y) = pair.expect("a collision among 238 328 blocks");
            ids = (ids.iter())
                .flat_map(|id| [[&id[..], &x[..]].concat(), [&id[..], &y[..]].concat()])
                .collect();
        }
        let low = fnv(&ids[0]) & 0xFFFF;
        assert!(ids.iter().all(|id| fnv(id) & 0xFFFF == low));
        ids.into_iter()
            .map(|id| String::from_utf8(id).expect("ASCII"))
            .collect()
    }

    /// #12: identifiers made to collide under a fixed hash do not collide under the table's random key: the
    /// slots stepped over to find each stay a few on average, not a run as long as the identifiers (4 096 of
    /// them under FNV-1a: 8 million steps).
    #[test]
    fn identifiers_made_to_collide_take_few_probes() {
        let ids = colliding_identifiers(12);
        let mut index = Index::default();
        for id in &ids {
            index.hold(id, true);
        }
        let steps = |index: &Index, xref: &str| {
            let mask = index.slots.len() - 1;
            let home = index.key.hash(xref) as usize & mask;
            let found = index.slot(xref).expect("a slot");
            found.wrapping_sub(home) & mask
        };
        let total: usize = ids.iter().map(|id| steps(&index, id)).sum();
        assert!(
            total < 4 * ids.len(),
            "{total} steps for {} identifiers",
            ids.len()
        );
        // Under FNV-1a they would all start at one slot.
        let mask = index.slots.len() - 1;
        let homes: std::collections::HashSet<usize> = ids
            .iter()
            .map(|id| fnv(id.as_bytes()) as usize & mask)
            .collect();
        assert_eq!(homes.len(), 1);
    }

    #[test]
    fn counts_first_holders_and_lists_undefined_once() {
        let mut index = Index::default();
        for i in 0..5000u64 {
            assert!(!index.hold(&format!("I{i}"), i % 2 == 0));
        }
        assert!(index.hold("I7", true));
        assert_eq!(index.holders("I4").0, Some(1));
        assert_eq!(index.holders("I7").0, Some(2));
        assert_eq!(index.holders("X").0, None);
        assert!(index.holders("I4").1);
        assert!(!index.holders("I3").1); // not a record
        assert!(!index.holders("I7").1); // two holders
        assert_eq!(index.meet("I7", 8), None);
        assert_eq!(index.meet("I7", 9000), Some(8));
        assert!(!index.holders("I7").1);
        assert_eq!(index.meet("I4", 5), None);
        assert!(index.holders("I4").1); // the line does not touch the flag
        index.list_undefined("X");
        index.list_undefined("I7");
        index.list_undefined("X");
        assert_eq!(index.undefined().collect::<Vec<_>>(), ["X", "I7"]);
        assert_eq!(index.holders("X").0, None);
        assert_eq!(index.holders("I7").0, Some(2));
    }

    #[test]
    fn pending_identifiers_are_resolved_by_one_record_holding_them() {
        let mut index = Index::default();
        index.pend("F1", 0);
        assert!(index.has_unresolved()); // named, held by nothing yet
        assert_eq!(index.unresolved_batches(), Some((0, 0)));
        index.hold("F1", true);
        assert!(!index.has_unresolved());
        assert_eq!(index.unresolved_batches(), None);
        assert_eq!(index.holders("F1").0, Some(1));
        index.pend("S1", 3);
        index.pend("X1", 5);
        index.pend("S1", 7);
        index.hold("S1", false); // held by a substructure: a pointer to it leads to no record
        index.hold("X1", true);
        assert!(index.has_unresolved());
        // The batches with pointers that lead nowhere: those to @S1@, not to @X1@ nor @F1@.
        assert_eq!(index.unresolved_batches(), Some((3, 7)));
        let mut index = Index::default();
        index.pend("F2", 2);
        index.hold("F2", true);
        index.hold("F2", true); // two holders
        assert!(index.has_unresolved());
        assert_eq!(index.unresolved_batches(), Some((2, 2)));
        // The mark does not change the identifier's text.
        index.list_undefined("F2");
        assert_eq!(index.undefined().collect::<Vec<_>>(), ["F2"]);
    }
}
