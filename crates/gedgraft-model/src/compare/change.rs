//! The changes a comparison finds, as values, and how they print.

use crate::dataset::StructureId;
use std::fmt;
use text_size::TextRange;

/// Where a structure is in one of the two datasets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The structure's id in its dataset.
    pub id: StructureId,
    /// Its path: the record (`@I1@ INDI`, or `NOTE[2]` for the second record `NOTE` without an identifier), then
    /// the tags down to it, each with its position among siblings of the same tag where there are several
    /// (`@I1@ INDI.NAME[2].GIVN`). Header metadata starts with `HEAD`. Very deep paths keep their first and last
    /// 16 steps around `…(N levels)…`.
    pub path: String,
    /// Its level: 0 for a record, 1 for a header substructure or a record's substructure, and so on.
    pub level: usize,
    /// The 1-based line of its first line in the file, if it came from a file.
    pub line: Option<usize>,
    /// Its lines in the tree's text, if it came from a file ([`StructureRef::range`](crate::StructureRef::range)).
    pub range: Option<TextRange>,
}

/// The structure a new or moved structure follows in the old dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Anchor {
    /// Just after this structure of the old dataset (a sibling that stays where it is).
    After(StructureId),
    /// First among the children of this parent in the old dataset.
    First(Parent),
}

/// A parent in the old dataset: a structure, the header (for metadata structures) or the document (for records).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Parent {
    /// The document: the new structure is a record.
    Document,
    /// The header: the new structure is a metadata structure (a `SCHMA` or another header substructure).
    Header,
    /// A structure of the old dataset.
    Structure(StructureId),
}

/// One difference between two datasets ([`compare`](crate::compare)).
///
/// The values (`from`, `to`) are printed forms: a string payload as a quoted JSON string (with its language
/// or datatype when those differ), a pointer as `@X@`, no payload as `none`. The datasets themselves have the
/// full values under the places' ids.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// A record is only in the new dataset.
    RecordAdded {
        /// The new record.
        new: Place,
        /// Where it goes in the old dataset's order.
        at: Anchor,
    },
    /// A record is only in the old dataset.
    RecordRemoved {
        /// The old record.
        old: Place,
    },
    /// A substructure (or a metadata structure) is only in the new dataset, with everything inside it.
    StructureAdded {
        /// The new structure.
        new: Place,
        /// Where it goes in the old dataset.
        at: Anchor,
    },
    /// A substructure (or a metadata structure) is only in the old dataset, with everything inside it.
    StructureRemoved {
        /// The old structure.
        old: Place,
    },
    /// A structure's payload changed: its text, language, datatype or pointer.
    PayloadChanged {
        /// The structure in the old dataset.
        old: Place,
        /// The structure in the new dataset.
        new: Place,
        /// The old payload, printed.
        from: String,
        /// The new payload, printed.
        to: String,
    },
    /// A structure's tag changed (its payload and substructures are compared as usual).
    TagChanged {
        /// The structure in the old dataset.
        old: Place,
        /// The structure in the new dataset.
        new: Place,
        /// The old tag.
        from: String,
        /// The new tag.
        to: String,
    },
    /// A structure's cross-reference identifier changed; pointers that followed it are not changes.
    XrefChanged {
        /// The structure in the old dataset.
        old: Place,
        /// The structure in the new dataset.
        new: Place,
        /// The old identifier, without `@`s.
        from: Option<String>,
        /// The new identifier, without `@`s.
        to: Option<String>,
    },
    /// A structure went elsewhere: to another parent, or to another position among its siblings. Changes
    /// inside it are listed after this one.
    Moved {
        /// Where it was.
        old: Place,
        /// Where it is.
        new: Place,
        /// Where it goes in the old dataset.
        at: Anchor,
    },
    /// Serialisation metadata changed (`dialect`, `elf_version`, `gedcom_version`, `gedcom_form`,
    /// `default_language`).
    MetadataChanged {
        /// The [`Metadata`](crate::Metadata) field.
        field: &'static str,
        /// The old value, printed.
        from: String,
        /// The new value, printed.
        to: String,
    },
}

impl Change {
    /// The structure in the old dataset, if the change has one.
    pub fn before(&self) -> Option<&Place> {
        match self {
            Change::RecordRemoved { old }
            | Change::StructureRemoved { old }
            | Change::PayloadChanged { old, .. }
            | Change::TagChanged { old, .. }
            | Change::XrefChanged { old, .. }
            | Change::Moved { old, .. } => Some(old),
            Change::RecordAdded { .. }
            | Change::StructureAdded { .. }
            | Change::MetadataChanged { .. } => None,
        }
    }

    /// The structure in the new dataset, if the change has one.
    pub fn after(&self) -> Option<&Place> {
        match self {
            Change::RecordAdded { new, .. }
            | Change::StructureAdded { new, .. }
            | Change::PayloadChanged { new, .. }
            | Change::TagChanged { new, .. }
            | Change::XrefChanged { new, .. }
            | Change::Moved { new, .. } => Some(new),
            Change::RecordRemoved { .. }
            | Change::StructureRemoved { .. }
            | Change::MetadataChanged { .. } => None,
        }
    }

    /// A short name of the kind of change (`payload-changed`, `record-added`, …), as the JSON output has it.
    pub fn kind(&self) -> &'static str {
        match self {
            Change::RecordAdded { .. } => "record-added",
            Change::RecordRemoved { .. } => "record-removed",
            Change::StructureAdded { .. } => "structure-added",
            Change::StructureRemoved { .. } => "structure-removed",
            Change::PayloadChanged { .. } => "payload-changed",
            Change::TagChanged { .. } => "tag-changed",
            Change::XrefChanged { .. } => "xref-changed",
            Change::Moved { .. } => "moved",
            Change::MetadataChanged { .. } => "metadata-changed",
        }
    }

    /// The printed old and new values of a changed payload, tag, identifier or metadata field.
    pub fn values(&self) -> Option<(String, String)> {
        match self {
            Change::PayloadChanged { from, to, .. }
            | Change::TagChanged { from, to, .. }
            | Change::MetadataChanged { from, to, .. } => Some((from.clone(), to.clone())),
            Change::XrefChanged { from, to, .. } => {
                Some((xref(from.as_deref()), xref(to.as_deref())))
            }
            _ => None,
        }
    }
}

/// When two printed payloads differ only in their Unicode normal form (a decomposed `é` against a composed
/// one: the same text to a reader, printed alike), which forms they are in (`: NFC → NFD`, or nothing when
/// either is in neither); `None` when they differ otherwise.
fn normal_forms(from: &str, to: &str) -> Option<String> {
    use unicode_normalization::{is_nfc, is_nfd, UnicodeNormalization};
    if from == to || !from.nfc().eq(to.nfc()) {
        return None;
    }
    let form = |s: &str| match (is_nfc(s), is_nfd(s)) {
        (true, _) => Some("NFC"),
        (_, true) => Some("NFD"),
        _ => None,
    };
    Some(match (form(from), form(to)) {
        (Some(a), Some(b)) => format!(": {a} → {b}"),
        _ => String::new(),
    })
}

fn xref(id: Option<&str>) -> String {
    id.map_or_else(|| "none".to_string(), |id| format!("@{id}@"))
}

impl fmt::Display for Change {
    /// One line, like a line of `diff -u` but by structure path: `+ added`, `- removed`, `~ changed: from → to`,
    /// `> moved → to (line 12 → 14)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::RecordAdded { new, .. } | Change::StructureAdded { new, .. } => {
                write!(f, "+ {}", new.path)
            }
            Change::RecordRemoved { old } | Change::StructureRemoved { old } => {
                write!(f, "- {}", old.path)
            }
            Change::PayloadChanged { old, from, to, .. } => {
                write!(f, "~ {}: {from} → {to}", old.path)?;
                match normal_forms(from, to) {
                    Some(forms) => write!(f, " (only the Unicode normal form differs{forms})"),
                    None => Ok(()),
                }
            }
            Change::TagChanged { old, from, to, .. } => {
                write!(f, "~ {}: tag {from} → {to}", old.path)
            }
            Change::XrefChanged { old, from, to, .. } => write!(
                f,
                "~ {}: xref {} → {}",
                old.path,
                xref(from.as_deref()),
                xref(to.as_deref())
            ),
            Change::Moved { old, new, .. } => {
                write!(f, "> {} → {}", old.path, new.path)?;
                match (old.line, new.line) {
                    (Some(a), Some(b)) => write!(f, " (line {a} → {b})"),
                    _ => Ok(()),
                }
            }
            Change::MetadataChanged { field, from, to } => {
                write!(f, "~ HEAD metadata {field}: {from} → {to}")
            }
        }
    }
}

/// The changes between two datasets, in the new dataset's order (removed structures where they were).
///
/// `Display` prints one change per line; an empty list prints nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    pub(super) changes: Vec<Change>,
}

impl Changes {
    /// Whether the datasets hold the same data.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// How many changes.
    pub fn len(&self) -> usize {
        self.changes.len()
    }

    /// The changes, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Change> {
        self.changes.iter()
    }

    /// The changes as a vector.
    pub fn into_vec(self) -> Vec<Change> {
        self.changes
    }
}

impl<'a> IntoIterator for &'a Changes {
    type Item = &'a Change;
    type IntoIter = std::slice::Iter<'a, Change>;

    fn into_iter(self) -> Self::IntoIter {
        self.changes.iter()
    }
}

impl fmt::Display for Changes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for change in &self.changes {
            writeln!(f, "{change}")?;
        }
        Ok(())
    }
}
