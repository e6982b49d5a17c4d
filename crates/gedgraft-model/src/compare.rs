//! Comparing two datasets: what changed in the data, whatever changed in the formatting.
//!
//! [`compare`] matches records by identifier, and by content where identifiers were renumbered (pointers that
//! follow a renumbered record are not changes); substructures by identifier, content, tag and position; and
//! reports what differs as [`Change`] values with the path and lines of each structure in both datasets.
//! Formatting (line breaks, encoding, `CONC` splits, indentation, escapes) is not data: two files that differ
//! only there give no change.
//!
//! Cost: one bottom-up hash of every structure of both datasets, then only the records and structures whose
//! hashes differ are walked, with an explicit stack (no recursion on depth). Sibling lists are aligned with hash
//! maps and a longest increasing run (see `align.rs`), never a quadratic table.

mod align;
mod change;
mod hash;
mod paths;

pub use change::{Anchor, Change, Changes, Parent, Place};

use crate::dataset::{Dataset, Payload, StructureId, StructureRef};
use align::{align, positions, Side};
use gedgraft_syntax::internal::calendar::Refused;
use hash::{hash_range, same, same_payload, Hashes, Ids, XrefMap};
use paths::{Paths, ROOT};
use rustc_hash::{FxHashMap, FxHashSet};

/// The changes that turn the dataset `old` into `new` ([`Changes`] is empty when they hold the same data).
///
/// Line numbers and ranges are where each structure came from; they are not compared. `UNDEF` records (made by
/// the lowering for dangling pointers) are not compared either: the pointers are.
///
/// ```
/// use gedgraft_model::{compare, lower, Change, LowerOptions};
/// let lowered = |text: &[u8]| lower(&gedgraft_syntax::parse(text), &LowerOptions::default()).dataset;
/// let old = lowered(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n");
/// // The same data in other clothes: CR LF, indentation, a CONC split.
/// let same = lowered(b"0 HEAD\r\n  0 @I1@ INDI\r\n    1 NAME B\r\n      2 CONC ob\r\n0 TRLR\r\n");
/// assert!(compare(&old, &same).is_empty());
/// let new = lowered(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bobby\n0 TRLR\n");
/// let changes = compare(&old, &new);
/// let Some(Change::PayloadChanged { old: place, .. }) = changes.iter().next() else { panic!() };
/// assert_eq!((place.path.as_str(), place.line), ("@I1@ INDI.NAME", Some(3)));
/// ```
///
/// # Snapshot-diffing edits in review
///
/// The changes print one per line, so a test of a scripted edit can snapshot what it did to the *data*:
///
/// ```
/// use gedgraft_model::{compare, lower, LowerOptions};
/// let before = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME John /Smith/\n0 TRLR\n");
/// let after = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME John /Smyth/\n1 SEX M\n0 TRLR\n");
/// let options = LowerOptions::default();
/// let changes = compare(&lower(&before, &options).dataset, &lower(&after, &options).dataset);
/// insta::assert_snapshot!(changes.to_string(), @r#"
/// ~ @I1@ INDI.NAME: "John /Smith/" → "John /Smyth/"
/// + @I1@ INDI.SEX
/// "#);
/// ```
pub fn compare<'a>(old: &'a Dataset, new: &'a Dataset) -> Changes {
    let old_records = records(old);
    let new_records = records(new);
    let map = match_records(old, new, &old_records, &new_records);
    let old_hashes = hash_range(old, 0, old.len(), Ids::Mapped(&map));
    let new_hashes = hash_range(new, 0, new.len(), Ids::AsWritten);
    let mut walk = Walk {
        side: Side {
            old: &old_hashes,
            new: &new_hashes,
            map: &map,
        },
        old_paths: Paths::new(old),
        new_paths: Paths::new(new),
        out: Vec::new(),
        stack: Vec::new(),
    };
    walk.metadata(old, new);
    let lists = [
        (
            list(old, &old.metadata.schemas),
            list(new, &new.metadata.schemas),
            Paths::HEADER,
            Parent::Header,
        ),
        (
            list(old, &old.metadata.other),
            list(new, &new.metadata.other),
            Paths::HEADER,
            Parent::Header,
        ),
        (old_records, new_records, ROOT, Parent::Document),
    ];
    for (o, n, at, parent) in lists {
        let list = walk.list(&o, &n, (at, at), parent);
        walk.run(list);
    }
    let mut changes = walk.out;
    find_moves(&mut changes, old, new, &old_hashes, &new_hashes, &map);
    Changes { changes }
}

fn list<'d>(d: &'d Dataset, ids: &[StructureId]) -> Vec<StructureRef<'d>> {
    ids.iter().filter_map(|id| d.get(*id)).collect()
}

/// The records to compare: all but the `UNDEF` records the lowering made.
fn records(d: &Dataset) -> Vec<StructureRef<'_>> {
    d.records()
        .filter(|r| !(r.tag() == "UNDEF" && r.line().is_none() && !r.has_children()))
        .collect()
}

/// The unmatched records with one content key: how many on each side, and (the last) one's identifier.
#[derive(Default)]
struct Candidates<'a> {
    old: u32,
    new: u32,
    old_xref: Option<&'a str>,
    new_xref: Option<&'a str>,
}

/// The identifier map: records with the same identifier in both, then records renumbered, matched by content
/// (tag, payloads and pointers already matched; a content alone on each side), in up to three rounds, so that
/// families follow their renumbered members.
fn match_records<'a>(
    old: &'a Dataset,
    new: &'a Dataset,
    old_records: &[StructureRef<'a>],
    new_records: &[StructureRef<'a>],
) -> XrefMap<'a> {
    let mut map = XrefMap::default();
    let mut matched: FxHashSet<&'a str> = FxHashSet::default();
    for r in old_records {
        let Some(x) = r.xref() else { continue };
        if let Some(n) = new.record_by_xref(x).and_then(|n| n.xref()) {
            if old.record_by_xref(x).is_some_and(|o| o.id() == r.id()) {
                map.insert(x, n);
                matched.insert(n);
            }
        }
    }
    for _round in 0..3 {
        let key = |d: &'a Dataset, r: &StructureRef<'a>, ids: Ids<'_, 'a>| {
            let (first, end) = (r.id().index(), r.subtree_end().index());
            hash_range(d, first, end, ids).exact.first().copied()
        };
        let mut keys: FxHashMap<u64, Candidates<'a>> = FxHashMap::default();
        for r in old_records {
            if let Some(x) = r.xref().filter(|x| !map.contains_key(x)) {
                if let Some(k) = key(old, r, Ids::Content(&map)) {
                    let e = keys.entry(k).or_default();
                    e.old += 1;
                    e.old_xref = Some(x);
                }
            }
        }
        for r in new_records {
            if let Some(x) = r.xref().filter(|x| !matched.contains(x)) {
                if let Some(k) = key(new, r, Ids::ContentNew(&matched)) {
                    let e = keys.entry(k).or_default();
                    e.new += 1;
                    e.new_xref = Some(x);
                }
            }
        }
        let mut found = false;
        for c in keys.into_values() {
            if let (1, 1, Some(o), Some(n)) = (c.old, c.new, c.old_xref, c.new_xref) {
                map.insert(o, n);
                matched.insert(n);
                found = true;
            }
        }
        if !found {
            break;
        }
    }
    map
}

/// A step of the walk: a pair to compare, or a change to report in order.
enum Task<'a> {
    Pair {
        old: StructureRef<'a>,
        new: StructureRef<'a>,
        paths: (u32, u32),
    },
    Report(Change),
}

struct Walk<'h, 'a> {
    side: Side<'h, 'a>,
    old_paths: Paths<'a>,
    new_paths: Paths<'a>,
    out: Vec<Change>,
    stack: Vec<Task<'a>>,
}

fn place(paths: &Paths<'_>, step: u32, s: &StructureRef<'_>) -> Place {
    Place {
        id: s.id(),
        path: paths.render(step),
        level: paths.level(step),
        line: s.line(),
        range: s.range(),
    }
}

/// For a date whose text reads otherwise in the other side's dialect, shown when the two texts are the same:
/// GEDCOM 7's form, the one both are compared in (` (read as "JULIAN 1701")` for 5.5.1's `@#DJULIAN@ 1701`),
/// or what GEDCOM 7 cannot read as the date it is (` (text in GEDCOM 5.5.1)` for 5.5.1's text `JULIAN 1701`,
/// which GEDCOM 7 reads as a Julian date).
fn read_as(s: &StructureRef<'_>, other: &StructureRef<'_>) -> String {
    let (Some(Payload::Text(t)), Some(Payload::Text(o))) = (s.payload(), other.payload()) else {
        return String::new();
    };
    if t.text != o.text {
        return String::new();
    }
    match hash::compared_text(s, t.text) {
        (Some(Refused::NoName(_)), _) => " (a calendar GEDCOM 7 has no name for)".to_string(),
        (Some(_), _) => format!(" (text in {})", s.dataset().metadata.dialect),
        (None, compared) if compared != t.text => {
            let mut out = String::from(" (read as ");
            gedgraft_syntax::internal::json_string(&compared, &mut out);
            out.push(')');
            out
        }
        (None, _) => String::new(),
    }
}

/// A payload printed for a change: a quoted string (with its language and datatype when `other` has others),
/// `@X@`, or `none`.
fn show(p: Option<Payload<'_>>, other: Option<Payload<'_>>) -> String {
    match p {
        None => "none".to_string(),
        Some(Payload::Pointer(p)) => format!("@{}@", p.target),
        Some(Payload::Text(t)) => {
            let mut out = String::new();
            gedgraft_syntax::internal::json_string(t.text, &mut out);
            let (lang, datatype) = match other {
                Some(Payload::Text(o)) => (o.lang != t.lang, o.datatype != t.datatype),
                _ => (false, false),
            };
            if lang {
                out.push_str(&format!(" (lang {})", t.lang));
            }
            if datatype {
                out.push_str(&format!(" (datatype {})", t.datatype.unwrap_or("none")));
            }
            out
        }
    }
}

/// What a changed pointer points to, when its printed target does not say it: ` (dangling)` when no record
/// has the identifier, and on the old side (`renamed`: the identifier map) ` (the record now @N2@)` when its
/// record was renumbered, so that a pointer left behind by a renumbering reads `@N1@ (the record now @N2@) →
/// @N1@ (dangling)`, not `@N1@ → @N1@`.
fn whose(s: &StructureRef<'_>, renamed: Option<&XrefMap<'_>>) -> String {
    let Some(pointer) = s.pointer() else {
        return String::new();
    };
    if pointer.undefined {
        return " (dangling)".to_string();
    }
    match renamed.and_then(|map| map.get(pointer.target)) {
        Some(now) if *now != pointer.target => format!(" (the record now @{now}@)"),
        _ => String::new(),
    }
}

fn shown<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "none".to_string(), |v| v.to_string())
}

impl<'h, 'a> Walk<'h, 'a> {
    fn metadata(&mut self, old: &Dataset, new: &Dataset) {
        let (a, b) = (&old.metadata, &new.metadata);
        let fields = [
            ("dialect", a.dialect.to_string(), b.dialect.to_string()),
            ("elf_version", shown(a.elf_version), shown(b.elf_version)),
            (
                "gedcom_version",
                shown(a.gedcom_version),
                shown(b.gedcom_version),
            ),
            (
                "gedcom_form",
                shown(a.gedcom_form.as_deref()),
                shown(b.gedcom_form.as_deref()),
            ),
            (
                "default_language",
                shown(a.default_language.as_deref()),
                shown(b.default_language.as_deref()),
            ),
        ];
        for (field, from, to) in fields {
            if from != to {
                self.out.push(Change::MetadataChanged { field, from, to });
            }
        }
    }

    /// Runs tasks until the stack is empty.
    fn run(&mut self, tasks: Vec<Task<'a>>) {
        self.stack.extend(tasks.into_iter().rev());
        while let Some(task) = self.stack.pop() {
            match task {
                Task::Report(change) => self.out.push(change),
                Task::Pair { old, new, paths } => {
                    let more = self.pair(old, new, paths);
                    self.stack.extend(more.into_iter().rev());
                }
            }
        }
    }

    /// Compares a pair: its own line, then (as tasks) its children.
    fn pair(
        &mut self,
        old: StructureRef<'a>,
        new: StructureRef<'a>,
        paths: (u32, u32),
    ) -> Vec<Task<'a>> {
        let (ho, hn) = (&self.side.old, &self.side.new);
        let map = self.side.map;
        let exact = |h: &Hashes, s: &StructureRef<'_>| h.exact.get(s.id().index()).copied();
        if exact(ho, &old) == exact(hn, &new) && same(old, new, map) {
            return Vec::new();
        }
        let places = || {
            (
                place(&self.old_paths, paths.0, &old),
                place(&self.new_paths, paths.1, &new),
            )
        };
        if old.tag() != new.tag() {
            let (o, n) = places();
            self.out.push(Change::TagChanged {
                old: o,
                new: n,
                from: old.tag().to_string(),
                to: new.tag().to_string(),
            });
        }
        if old.xref() != new.xref() {
            let (o, n) = places();
            self.out.push(Change::XrefChanged {
                old: o,
                new: n,
                from: old.xref().map(str::to_string),
                to: new.xref().map(str::to_string),
            });
        }
        if !same_payload(&old, &new, map) {
            let (o, n) = places();
            self.out.push(Change::PayloadChanged {
                old: o,
                new: n,
                from: show(old.payload(), new.payload())
                    + &whose(&old, Some(map))
                    + &read_as(&old, &new),
                to: show(new.payload(), old.payload()) + &whose(&new, None) + &read_as(&new, &old),
            });
        }
        let o: Vec<StructureRef<'a>> = old.children().collect();
        let n: Vec<StructureRef<'a>> = new.children().collect();
        let body = |h: &Hashes, s: &StructureRef<'_>| h.body.get(s.id().index()).copied();
        if body(ho, &old) == body(hn, &new)
            && o.len() == n.len()
            && o.iter().zip(&n).all(|(a, b)| same(*a, *b, map))
        {
            return Vec::new();
        }
        self.list(&o, &n, paths, Parent::Structure(old.id()))
    }

    /// Aligns two sibling lists under parents with path steps `parents` and returns the tasks in the new order:
    /// pairs to compare, and removed, added and moved siblings to report.
    fn list(
        &mut self,
        old: &[StructureRef<'a>],
        new: &[StructureRef<'a>],
        parents: (u32, u32),
        parent: Parent,
    ) -> Vec<Task<'a>> {
        let al = align(&self.side, old, new);
        let (old_index, new_index) = (positions(old), positions(new));
        let record = parent == Parent::Document;
        let mut tasks = Vec::new();
        let mut next_old = 0;
        let mut anchor = Anchor::First(parent);
        let mut removed_until = |tasks: &mut Vec<Task<'a>>, walk: &mut Self, end: usize| {
            while next_old < end {
                if let (Some(s), Some(false)) = (old.get(next_old), al.old_paired.get(next_old)) {
                    let step = walk.old_paths.push(parents.0, s.id(), old_index[next_old]);
                    let old = place(&walk.old_paths, step, s);
                    tasks.push(Task::Report(if record {
                        Change::RecordRemoved { old }
                    } else {
                        Change::StructureRemoved { old }
                    }));
                }
                next_old += 1;
            }
        };
        // For each new position: the old position of the next stable pair from there on (removed siblings
        // before it print before what was added in their place, as in `diff -u`).
        let mut next_stable = vec![old.len(); new.len() + 1];
        for j in (0..new.len()).rev() {
            next_stable[j] = match al.old_of(j) {
                Some(i) if al.stable[j] => i,
                _ => next_stable[j + 1],
            };
        }
        for (j, n) in new.iter().enumerate() {
            let new_step = self.new_paths.push(parents.1, n.id(), new_index[j]);
            let Some((i, o)) = al.old_of(j).and_then(|i| Some((i, old.get(i)?))) else {
                removed_until(&mut tasks, self, next_stable[j]);
                let new = place(&self.new_paths, new_step, n);
                tasks.push(Task::Report(if record {
                    Change::RecordAdded { new, at: anchor }
                } else {
                    Change::StructureAdded { new, at: anchor }
                }));
                continue;
            };
            let old_step = self.old_paths.push(parents.0, o.id(), old_index[i]);
            if al.stable[j] {
                removed_until(&mut tasks, self, i);
                anchor = Anchor::After(o.id());
            } else {
                tasks.push(Task::Report(Change::Moved {
                    old: place(&self.old_paths, old_step, o),
                    new: place(&self.new_paths, new_step, n),
                    at: anchor,
                }));
            }
            if !al.identical[j] {
                tasks.push(Task::Pair {
                    old: *o,
                    new: *n,
                    paths: (old_step, new_step),
                });
            }
        }
        removed_until(&mut tasks, self, old.len());
        tasks
    }
}

/// Turns a removed structure and an added one that hold the same data into a move.
fn find_moves<'a>(
    changes: &mut Vec<Change>,
    old: &'a Dataset,
    new: &'a Dataset,
    old_hashes: &Hashes,
    new_hashes: &Hashes,
    map: &XrefMap<'a>,
) {
    let mut removed: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
    for (k, c) in changes.iter().enumerate() {
        if let Change::StructureRemoved { old: o } = c {
            if let Some(&h) = old_hashes.exact.get(o.id.index()) {
                removed.entry(h).or_default().push(k);
            }
        }
    }
    if removed.is_empty() {
        return;
    }
    let mut gone = vec![false; changes.len()];
    for k in 0..changes.len() {
        let Change::StructureAdded { new: n, at } = &changes[k] else {
            continue;
        };
        let Some(ns) = new.get(n.id) else { continue };
        let Some(list) = new_hashes
            .exact
            .get(n.id.index())
            .and_then(|h| removed.get_mut(h))
        else {
            continue;
        };
        let found = list.iter().position(|&r| {
            matches!(&changes[r], Change::StructureRemoved { old: o }
                if old.get(o.id).is_some_and(|os| same(os, ns, map)))
        });
        if let Some(pos) = found {
            let r = list.remove(pos);
            if let Change::StructureRemoved { old: o } = &changes[r] {
                let moved = Change::Moved {
                    old: o.clone(),
                    new: n.clone(),
                    at: *at,
                };
                gone[r] = true;
                changes[k] = moved;
            }
        }
    }
    let mut k = 0;
    changes.retain(|_| {
        k += 1;
        !gone[k - 1]
    });
}

#[cfg(test)]
mod tests;
