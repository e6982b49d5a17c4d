//! Assembly and pointers (2019 § Pointer conversion): fragments numbered in order, identifiers indexed,
//! pointers resolved.

use super::*;

/// Numbers the fragments' parts in order and resolves identifiers and pointers, in the order of one pass
/// over the file: duplicate identifiers in id order, then pointers in id order. The diagnostics are the
/// fragments' in order, then those of the resolution. Pointers are resolved by one thread per fragment.
pub(crate) fn assemble(
    metadata: Metadata,
    fragments: Vec<Fragment<'_>>,
) -> (Dataset, Vec<Diagnostic>) {
    let mut dataset = Dataset {
        metadata,
        ..Dataset::default()
    };
    let mut diagnostics = Vec::new();
    let holders_len = fragments.iter().map(|f| f.holders.len()).sum();
    let records_len = fragments.iter().map(|f| f.records.len()).sum();
    let mut next_id = 0u32;
    let mut line_base = 0usize;
    let mut table = Holders::with_capacity(holders_len);
    // Every holder after the first of its identifier, in file order: (identifier, global id, its range).
    let mut repeats: Vec<(&str, u32, TextRange)> = Vec::new();
    let mut lists = Vec::with_capacity(fragments.len());
    dataset.records.reserve(records_len);
    for fragment in fragments {
        let Fragment {
            mut part,
            records,
            holders,
            pointers,
            diagnostics: found,
            lines,
        } = fragment;
        let first = number_part(&mut dataset, &mut part, &records, &mut next_id, line_base);
        line_base = line_base.saturating_add(lines);
        diagnostics.extend(found);
        let global = |local: u32| first.saturating_add(local);
        // Every identifier: its first holder, how many structures have it, whether the first is a record.
        for &(xref, local, is_record, range, _) in &holders {
            if table.insert(xref, global(local), is_record) {
                repeats.push((xref, global(local), range));
            }
        }
        dataset.parts.push(part);
        lists.push(pointers);
    }
    let mut sink = Sink::default();
    // Reported at every holder after the first, in file order.
    for (xref, _, at) in repeats {
        let Some(&Holder { first, .. }) = table.get(xref) else {
            continue;
        };
        let first_line = dataset
            .get(StructureId::from_u32(first))
            .and_then(|f| f.line());
        // Marks the identifier itself, so the column is where the user sees it.
        sink.report(
            codes::DUPLICATE_XREF,
            Class::NonConformant,
            duplicate_message(xref, first_line),
            at,
        );
    }
    // Pointers to the one record with their identifier, on one thread per fragment; the others are left.
    let shared = &table;
    let work: Vec<_> = dataset
        .parts
        .iter_mut()
        .zip(&lists)
        .map(|(part, pointers)| (part, pointers.as_slice()))
        .collect();
    // The header's part and the first run's on this thread, each other run's on one of its own.
    let workers = work.len().saturating_sub(1);
    let unresolved: Vec<Vec<(u32, &str, TextRange)>> =
        in_order(work, workers, |(part, pointers)| {
            resolve(shared, part, pointers)
        });
    // The others go to an UNDEF record per distinct identifier, in file order.
    // Keyed by the file's identifiers: the standard library's keyed hash, which no file can make collide.
    let mut undefined: std::collections::HashMap<&str, u32> = std::collections::HashMap::default();
    let mut undefined_targets: Vec<&str> = Vec::new();
    let void = dialect_rules::null_pointer(dataset.metadata.dialect);
    for (part, left) in dataset.parts.iter_mut().zip(unresolved) {
        for (local, target, at) in left.into_iter().filter(|p| Some(p.1) != void) {
            let (code, message) = pointer_problem(target, table.get(target).map(|h| h.count));
            sink.report(code, Class::Warning, message, at);
            let record = *undefined.entry(target).or_insert_with(|| {
                undefined_targets.push(target);
                next_id.saturating_add(u32::try_from(undefined_targets.len() - 1).unwrap_or(NONE))
            });
            set_pointer(part, local, record, true);
        }
    }
    dataset.xrefs = table.index();
    push_undef_records(&mut dataset, next_id, undefined_targets);
    diagnostics.extend(sink.diagnostics);
    (dataset, diagnostics)
}

/// Numbers a fragment's part from `next_id` (which moves past it) with its line base, and lists its records
/// (`records`: local ids) in `dataset`; returns the part's first id.
pub(super) fn number_part(
    dataset: &mut Dataset,
    part: &mut Part,
    records: &[u32],
    next_id: &mut u32,
    line_base: usize,
) -> u32 {
    let first = *next_id;
    part.first = first;
    part.line_base = line_base;
    *next_id = first.saturating_add(part.len_u32());
    dataset.records.extend(
        records
            .iter()
            .map(|&local| StructureId::from_u32(first.saturating_add(local))),
    );
    first
}

/// R-POINTER-CONV-10..12: one `UNDEF` record per distinct unmatched identifier (`targets`, in file order), no
/// payload, no children, numbered from `first`.
pub(super) fn push_undef_records(dataset: &mut Dataset, first: u32, targets: Vec<&str>) {
    if targets.is_empty() {
        return;
    }
    let mut part = Part {
        first,
        ..Part::default()
    };
    let tag = part.push("UNDEF");
    for (local, target) in (0u32..).zip(targets) {
        let xref = part.push(target);
        part.structures.push(Structure {
            tag,
            xref,
            payload: Stored::None,
            parent: NONE,
            end: local.saturating_add(1),
            from: 0,
            to: 0,
            line: NONE,
        });
        dataset
            .records
            .push(StructureId::from_u32(first.saturating_add(local)));
    }
    dataset.parts.push(part);
}

/// The message of a `duplicate-xref` at a later holder of `xref`, whose first holder is on `first_line` (a
/// structure read from the file always has a line; no line 0 stands for an unknown one).
pub(super) fn duplicate_message(xref: &str, first_line: Option<usize>) -> String {
    match first_line {
        Some(line) => format!("@{xref}@ is already the identifier of the structure on line {line}"),
        None => format!("@{xref}@ is already the identifier of another structure"),
    }
}

/// The code and message of a pointer to `target` that leads to no record: `count` structures have the
/// identifier (`None`: none).
pub(super) fn pointer_problem(target: &str, count: Option<u32>) -> (&'static str, String) {
    match count {
        Some(count) if count > 1 => (
            codes::AMBIGUOUS_POINTER,
            format!("@{target}@ is the identifier of {count} structures; the pointer goes to an UNDEF record"),
        ),
        Some(_) => (
            codes::POINTER_TO_SUBSTRUCTURE,
            format!("@{target}@ is the identifier of a substructure, not a record; the pointer goes to an UNDEF record"),
        ),
        None => (
            codes::UNDEFINED_POINTER,
            format!("no record has the identifier @{target}@; the pointer goes to an UNDEF record"),
        ),
    }
}

/// Points the pointers of a part that lead to the one record with their identifier there; returns the
/// others, in order.
fn resolve<'p>(
    table: &Holders<'p>,
    part: &mut Part,
    pointers: &[(u32, &'p str, TextRange)],
) -> Vec<(u32, &'p str, TextRange)> {
    let mut left = Vec::new();
    for &(local, target, at) in pointers {
        match table.get(target) {
            Some(&Holder {
                first,
                count: 1,
                record: true,
                ..
            }) => set_pointer(part, local, first, false),
            _ => left.push((local, target, at)),
        }
    }
    left
}

/// Sets where the pointer payload of a structure leads.
pub(super) fn set_pointer(part: &mut Part, local: u32, to: u32, is_undefined: bool) {
    if let Some(Structure {
        payload: Stored::Pointer {
            record, undefined, ..
        },
        ..
    }) = part.structures.get_mut(local as usize)
    {
        *record = to;
        *undefined = is_undefined;
    }
}

/// The cross-reference identifiers of the dataset being assembled: an open-addressing hash table of their
/// first holders, which becomes the dataset's [`XrefIndex`].
struct Holders<'p> {
    /// A power-of-two number of slots: 0 for an empty one, else an index in `entries` + 1.
    slots: Vec<u32>,
    entries: Vec<Holder<'p>>,
    key: HashKey,
}

/// An identifier, its first holder (a global id), how many structures have it, whether the first is a
/// record.
#[derive(Debug, Clone, Copy)]
struct Holder<'p> {
    xref: &'p str,
    first: u32,
    count: u32,
    record: bool,
}

impl<'p> Holders<'p> {
    fn with_capacity(n: usize) -> Holders<'p> {
        let size = n.saturating_mul(2).max(1).next_power_of_two();
        Holders {
            slots: vec![0; size],
            entries: Vec::with_capacity(n),
            key: HashKey::random(),
        }
    }

    /// The slot of `xref`: its entry's, or the empty one where it would go.
    fn slot(&self, xref: &str) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.key.hash(xref) as usize & mask;
        loop {
            match self.slots[i] {
                0 => return i,
                e if self.entries[e as usize - 1].xref == xref => return i,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Counts a holder of `xref`; whether it is a repeat.
    fn insert(&mut self, xref: &'p str, id: u32, record: bool) -> bool {
        let i = self.slot(xref);
        match self.slots[i] {
            0 => {
                self.entries.push(Holder {
                    xref,
                    first: id,
                    count: 1,
                    record,
                });
                self.slots[i] = u32::try_from(self.entries.len()).unwrap_or(NONE);
                false
            }
            e => {
                let entry = &mut self.entries[e as usize - 1];
                entry.count = entry.count.saturating_add(1);
                true
            }
        }
    }

    fn get(&self, xref: &str) -> Option<&Holder<'p>> {
        match self.slots[self.slot(xref)] {
            0 => None,
            e => self.entries.get(e as usize - 1),
        }
    }

    /// The index of the identifiers that exactly one record has: this table, the others as tombstones.
    fn index(self) -> XrefIndex {
        let unique = |h: &Holder<'_>| h.count == 1 && h.record;
        let ids = self
            .entries
            .iter()
            .filter(|h| unique(h))
            .map(|h| StructureId::from_u32(h.first))
            .collect();
        let mut slots = self.slots;
        for slot in &mut slots {
            if let Some(h) = slot
                .checked_sub(1)
                .and_then(|e| self.entries.get(e as usize))
            {
                *slot = if unique(h) {
                    h.first.saturating_add(1)
                } else {
                    TOMBSTONE
                };
            }
        }
        XrefIndex {
            ids,
            slots,
            key: self.key,
        }
    }
}
