//! Subtree hashes, computed bottom-up without recursion, and the exact check behind an equal hash.
//!
//! A structure's *body* hash covers its payload and its children's exact hashes; its *exact* hash adds its tag
//! and identifier. In the old dataset, identifiers and pointer targets go through the identifier map first (old
//! identifier → new identifier of the matched record), so a record renumbered with every pointer to it hashes
//! as it did. A hash only proposes a match: [`same`] confirms it, so a collision never hides a change.

use crate::dataset::{Dataset, Payload, StructureId, StructureRef};
use gedgraft_syntax::internal::calendar::{calendars_as, without_default_calendar, Refused};
use gedgraft_syntax::Dialect;
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::borrow::Cow;
use std::hash::Hasher;

/// Old identifier → new identifier, for matched records.
pub(super) type XrefMap<'a> = FxHashMap<&'a str, &'a str>;

/// How identifiers and pointer targets are hashed.
#[derive(Clone, Copy)]
pub(super) enum Ids<'m, 'a> {
    /// As written (the new dataset).
    AsWritten,
    /// Through the map, else as written (the old dataset).
    Mapped(&'m XrefMap<'a>),
    /// For matching old records by content: the structure's own identifier and unmapped targets left out.
    Content(&'m XrefMap<'a>),
    /// For matching new records by content: the structure's own identifier and targets of unmatched records
    /// left out.
    ContentNew(&'m FxHashSet<&'a str>),
}

impl<'a> Ids<'_, 'a> {
    fn target(self, target: &'a str) -> Option<&'a str> {
        match self {
            Ids::AsWritten => Some(target),
            Ids::Mapped(map) => Some(map.get(target).copied().unwrap_or(target)),
            Ids::Content(map) => map.get(target).copied(),
            Ids::ContentNew(matched) => matched.contains(target).then_some(target),
        }
    }
}

/// The hashes of every structure of a dataset, by id.
pub(super) struct Hashes {
    pub exact: Vec<u64>,
    pub body: Vec<u64>,
}

fn text(h: &mut FxHasher, s: &str) {
    h.write(s.as_bytes());
    h.write_u8(0xff);
}

/// A payload's text as compared, with what it is when a `DATE` cannot be read as a GEDCOM 7 date with its
/// meaning ([`Refused`]). A `DATE`'s text is compared in GEDCOM 7's form, whatever the dialect it was read in:
/// 5.5.1's `@#DJULIAN@ 44 B.C.` (and `44B.C.`) is GEDCOM 7's `JULIAN 44 BCE`, the default calendar goes
/// (`GREGORIAN 1700` is `1700`), and the files `fmt --dialect`
/// makes of one dataset hold the same dates. A date GEDCOM 7 would read otherwise (5.5.1's text `JULIAN 1700`
/// or `44 BCE`, a calendar it has no name for) is compared with what it is, so no GEDCOM 7 date equals it.
pub(super) fn compared_text<'a>(
    s: &StructureRef<'a>,
    text: &'a str,
) -> (Option<Refused>, Cow<'a, str>) {
    if s.tag() != "DATE" {
        return (None, Cow::Borrowed(text));
    }
    match calendars_as(s.dataset().metadata.dialect, Dialect::GEDCOM_7_0, text) {
        Ok(date) => (None, without_default_calendar(date)),
        Err(refused) => (Some(refused), Cow::Borrowed(text)),
    }
}

fn payload_hash<'a>(h: &mut FxHasher, s: &StructureRef<'a>, ids: Ids<'_, 'a>) {
    match s.payload() {
        None => h.write_u8(0),
        Some(Payload::Text(t)) => {
            h.write_u8(1);
            let (refused, compared) = compared_text(s, t.text);
            h.write_u8(match refused {
                None => 0,
                Some(Refused::NoName(_)) => 1,
                Some(_) => 2,
            });
            text(h, &compared);
            text(h, t.lang);
            if let Some(d) = t.datatype {
                text(h, d);
            }
        }
        Some(Payload::Pointer(p)) => {
            // A dangling pointer (to an `UNDEF` record) is not one to a record of that name on the other side.
            h.write_u8(if p.undefined { 3 } else { 2 });
            let target = match ids {
                Ids::AsWritten | Ids::Mapped(_) if p.undefined => Some(p.target),
                _ => ids.target(p.target),
            };
            if let Some(t) = target {
                text(h, t);
            }
        }
    }
}

fn finish(h: FxHasher) -> u64 {
    // Fx's last multiply leaves the low bits weak; fold the high ones in.
    let x = h.finish();
    x ^ (x >> 29)
}

/// Hashes of the structures `first..end` (a subtree, or the whole dataset), as a vector indexed from `first`.
pub(super) fn hash_range<'a>(
    dataset: &'a Dataset,
    first: usize,
    end: usize,
    ids: Ids<'_, 'a>,
) -> Hashes {
    let n = end.saturating_sub(first);
    let mut exact = vec![0u64; n];
    let mut body = vec![0u64; n];
    for index in (first..end).rev() {
        let Some(s) = dataset.get(StructureId::new(index)) else {
            continue;
        };
        let mut h = FxHasher::default();
        payload_hash(&mut h, &s, ids);
        for c in s.children() {
            let at = c.id().index().wrapping_sub(first);
            h.write_u64(exact.get(at).copied().unwrap_or(0));
        }
        let b = finish(h);
        let mut h = FxHasher::default();
        h.write_u64(b);
        text(&mut h, s.tag());
        // A structure's own identifier as written (a renumbering is a change); none when matching by content.
        let own = match ids {
            Ids::Content(_) | Ids::ContentNew(_) => None,
            Ids::AsWritten | Ids::Mapped(_) => s.xref(),
        };
        if let Some(x) = own {
            text(&mut h, x);
        }
        let local = index - first;
        body[local] = b;
        exact[local] = finish(h);
    }
    Hashes { exact, body }
}

/// Whether the old structure `a` and the new structure `b` hold the same data: same tags, identifiers and
/// payloads (old pointers through the map), same tree shape. One pass over both subtrees, no recursion.
pub(super) fn same<'a>(a: StructureRef<'a>, b: StructureRef<'a>, map: &XrefMap<'a>) -> bool {
    let size = |s: &StructureRef<'_>| s.subtree_end().index() - s.id().index();
    if size(&a) != size(&b) {
        return false;
    }
    a.descendants().zip(b.descendants()).all(|(x, y)| {
        size(&x) == size(&y)
            && x.tag() == y.tag()
            && x.xref() == y.xref()
            && same_payload(&x, &y, map)
    })
}

/// Whether two payloads are the same, the old pointer's target through the map. A dangling pointer is the same
/// only as a dangling pointer with the same target: `@N1@` to no record is not `@N1@` to a record renamed
/// `N1` (nor, the other way, a pointer left behind by a renumbering).
pub(super) fn same_payload<'a>(
    a: &StructureRef<'a>,
    b: &StructureRef<'a>,
    map: &XrefMap<'a>,
) -> bool {
    match (a.payload(), b.payload()) {
        (None, None) => true,
        (Some(Payload::Text(x)), Some(Payload::Text(y))) => {
            (x.lang, x.datatype) == (y.lang, y.datatype)
                && compared_text(a, x.text) == compared_text(b, y.text)
        }
        (Some(Payload::Pointer(x)), Some(Payload::Pointer(y))) if x.undefined || y.undefined => {
            x.undefined && y.undefined && x.target == y.target
        }
        (Some(Payload::Pointer(x)), Some(Payload::Pointer(y))) => {
            Ids::Mapped(map).target(x.target) == Some(y.target)
        }
        _ => false,
    }
}
