//! The ELF dataset: serialisation metadata, metadata structures and records.
//!
//! Structures live in one flat arena ([`Dataset::structures`]) and refer to each other by [`StructureId`]:
//! children, parents and resolved pointers are indices, never owned boxes. So a dataset of any depth is built,
//! walked, serialised with serde and dropped without recursion (invariant 4 of `DESIGN.md`).
//! [`StructureRef`] is the convenient view: a structure together with its dataset.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use text_size::TextRange;

/// The index of a structure in [`Dataset::structures`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct StructureId(u32);

impl StructureId {
    /// The position in [`Dataset::structures`].
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The id of position `index`. Tree offsets are 32-bit and every structure has a line of its own, so a
    /// dataset never holds 2^32 structures.
    pub(crate) fn new(index: usize) -> StructureId {
        StructureId(u32::try_from(index).unwrap_or(u32::MAX))
    }
}

/// A lowered ELF document: serialisation metadata, metadata structures and the document's records
/// (2019 § Glossary: "Dataset: metadata and a document").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dataset {
    /// What the header said about the serialisation, and the header's other substructures.
    pub metadata: Metadata,
    /// The records, in file order, followed by the `UNDEF` records created for pointers that match no record
    /// (R-POINTER-CONV-10). The header and the trailer are not records.
    pub records: Vec<StructureId>,
    /// Every structure of the dataset, in file order (pre-order), `UNDEF` records last.
    pub structures: Vec<Structure>,
    /// For every cross-reference identifier that exactly one record has: that record.
    pub xrefs: BTreeMap<String, StructureId>,
}

/// The serialisation metadata taken out of the header, and the metadata structures that remain
/// (2019 § Header metadata, § Parsing serialisation metadata).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// The ELF serialisation version (`1 ELF 1.0`), if the header gives a valid one.
    pub elf_version: Option<Version>,
    /// The legacy GEDCOM version (`1 GEDC` + `2 VERS 5.5.1`), if the header gives a valid one.
    pub gedcom_version: Option<Version>,
    /// The `FORM` under `GEDC`, as written (`LINEAGE-LINKED` when conformant).
    pub gedcom_form: Option<String>,
    /// The default payload language (`1 PLANG`), if any; `und` applies otherwise.
    pub default_language: Option<String>,
    /// The `SCHMA` structures (schema references), kept as written for schema-aware processing: their
    /// payloads are not unescaped and their substructures are generic structures.
    pub schemas: Vec<StructureId>,
    /// The header's other substructures (`SOUR`, `DATE`, `NOTE`, …), lowered like any structure.
    pub other: Vec<StructureId>,
}

/// A version number, `Integer "." Integer ( "." Integer )?` (2019 § Version numbers, R-VERSION-NUMBERS-01).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Version {
    /// The major version.
    pub major: u32,
    /// The minor version.
    pub minor: u32,
    /// The revision number (0 when omitted, R-VERSION-NUMBERS-02).
    pub revision: u32,
}

impl Version {
    /// Parses a version number: two or three groups of decimal digits separated by dots, leading zeros
    /// ignored. Nothing else is allowed, not even surrounding spaces. Absurdly large components saturate.
    ///
    /// ```
    /// use gedgraft_model::Version;
    /// assert_eq!(Version::parse("1.000"), Version::parse("1.0.0"));
    /// assert_eq!(Version::parse("05.5").map(|v| v.to_string()), Some("5.5.0".to_string()));
    /// assert_eq!(Version::parse("5.5.1 EL"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Version> {
        let parts: Vec<&str> = text.split('.').collect();
        let (major, minor, revision) = match parts.as_slice() {
            [major, minor] => (major, minor, None),
            [major, minor, revision] => (major, minor, Some(revision)),
            _ => return None,
        };
        Some(Version {
            major: Version::parse_component(major)?,
            minor: Version::parse_component(minor)?,
            revision: match revision {
                Some(r) => Version::parse_component(r)?,
                None => 0,
            },
        })
    }

    fn parse_component(digits: &str) -> Option<u32> {
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(digits.bytes().fold(0u32, |acc, d| {
            acc.saturating_mul(10).saturating_add(u32::from(d - b'0'))
        }))
    }
}

impl fmt::Display for Version {
    /// `major.minor.revision`, always three components.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.revision)
    }
}

/// A tagged structure (2019 § Overview): optional cross-reference identifier, tag, optional payload,
/// substructures, plus where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Structure {
    /// The cross-reference identifier, without its `@`s.
    pub xref: Option<String>,
    /// The tag.
    pub tag: String,
    /// The payload. An empty string payload, written or omitted, is `None` (R-PAYLOADS-02 makes the two the
    /// same), unless a `PLANG` or `DTYPE` substructure annotated it.
    pub payload: Option<Payload>,
    /// The substructures, in order (`CONT`/`CONC`, `PLANG` and `DTYPE` substructures are merged away).
    pub children: Vec<StructureId>,
    /// The parent structure; `None` for records, metadata structures and schemas.
    pub parent: Option<StructureId>,
    /// The range of the structure's CST node in the tree's text (its lines, substructures included); `None`
    /// for the `UNDEF` records the lowering creates.
    #[serde(with = "range_serde")]
    pub range: Option<TextRange>,
    /// The 1-based line number of the structure's first line in the file; `None` for `UNDEF` records.
    pub line: Option<usize>,
}

/// The payload of a structure: a language-tagged string or a pointer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Payload {
    /// A string payload, unescaped and with its continuation lines merged.
    Text(Text),
    /// A pointer payload.
    Pointer(Pointer),
}

/// A language-tagged string payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Text {
    /// The string: `@@` → `@`, Unicode escapes replaced, other escapes as written, `CONT` → `\n`.
    pub text: String,
    /// The language tag: from a `PLANG` substructure, else the header's default payload language, else `und`.
    pub lang: String,
    /// The datatype given by a `DTYPE` substructure, if any.
    pub datatype: Option<String>,
}

/// A pointer payload and the record it leads to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pointer {
    /// The identifier pointed at, as written, without its `@`s.
    pub target: String,
    /// The record pointed at: the one record with that identifier, or an `UNDEF` record.
    pub record: Option<StructureId>,
    /// Whether the record is an `UNDEF` record created because no single record has the identifier
    /// (R-POINTER-CONV-10).
    pub undefined: bool,
}

mod range_serde {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use text_size::{TextRange, TextSize};

    #[derive(Serialize, Deserialize)]
    struct Range {
        start: u32,
        end: u32,
    }

    pub fn serialize<S: Serializer>(range: &Option<TextRange>, s: S) -> Result<S::Ok, S::Error> {
        range
            .map(|r| Range {
                start: r.start().into(),
                end: r.end().into(),
            })
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<TextRange>, D::Error> {
        let range = Option::<Range>::deserialize(d)?;
        Ok(range
            .map(|r| TextRange::new(TextSize::from(r.start), TextSize::from(r.end.max(r.start)))))
    }
}

impl Dataset {
    /// The structure with this id.
    pub fn get(&self, id: StructureId) -> Option<StructureRef<'_>> {
        let structure = self.structures.get(id.index())?;
        Some(StructureRef {
            dataset: self,
            id,
            structure,
        })
    }

    fn refs<'a>(&'a self, ids: &'a [StructureId]) -> impl Iterator<Item = StructureRef<'a>> + 'a {
        ids.iter().filter_map(|id| self.get(*id))
    }

    /// The records, in file order, then the `UNDEF` records.
    pub fn records(&self) -> impl Iterator<Item = StructureRef<'_>> {
        self.refs(&self.records)
    }

    /// The records with this tag, in order.
    pub fn records_with_tag<'d, 't>(
        &'d self,
        tag: &'t str,
    ) -> impl Iterator<Item = StructureRef<'d>> + 't
    where
        'd: 't,
    {
        self.records().filter(move |r| r.tag() == tag)
    }

    /// The record a pointer `@xref@` leads to, if exactly one record has that identifier.
    pub fn record_by_xref(&self, xref: &str) -> Option<StructureRef<'_>> {
        self.xrefs.get(xref).and_then(|id| self.get(*id))
    }

    /// The record a pointer leads to (an `UNDEF` record for a pointer that matched no single record).
    pub fn resolve(&self, pointer: &Pointer) -> Option<StructureRef<'_>> {
        pointer.record.and_then(|id| self.get(id))
    }

    /// The header's metadata structures other than serialisation metadata.
    pub fn metadata_structures(&self) -> impl Iterator<Item = StructureRef<'_>> {
        self.refs(&self.metadata.other)
    }

    /// The `SCHMA` structures, as written.
    pub fn schemas(&self) -> impl Iterator<Item = StructureRef<'_>> {
        self.refs(&self.metadata.schemas)
    }

    /// Whether the dataset has no records and no metadata structures.
    pub fn is_empty(&self) -> bool {
        self.structures.is_empty()
    }
}

/// A structure together with its dataset, for navigation.
#[derive(Debug, Clone, Copy)]
pub struct StructureRef<'d> {
    dataset: &'d Dataset,
    id: StructureId,
    structure: &'d Structure,
}

impl PartialEq for StructureRef<'_> {
    /// The same structure of the same dataset.
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.dataset, other.dataset) && self.id == other.id
    }
}

impl Eq for StructureRef<'_> {}

impl<'d> StructureRef<'d> {
    /// The structure's id.
    pub fn id(&self) -> StructureId {
        self.id
    }

    /// The dataset the structure belongs to.
    pub fn dataset(&self) -> &'d Dataset {
        self.dataset
    }

    /// The structure's data.
    pub fn structure(&self) -> &'d Structure {
        self.structure
    }

    /// The cross-reference identifier.
    pub fn xref(&self) -> Option<&'d str> {
        self.structure.xref.as_deref()
    }

    /// The tag.
    pub fn tag(&self) -> &'d str {
        &self.structure.tag
    }

    /// The payload.
    pub fn payload(&self) -> Option<&'d Payload> {
        self.structure.payload.as_ref()
    }

    /// The string payload's text, if the payload is a string.
    pub fn text(&self) -> Option<&'d str> {
        match self.payload()? {
            Payload::Text(t) => Some(&t.text),
            Payload::Pointer(_) => None,
        }
    }

    /// The pointer payload, if the payload is a pointer.
    pub fn pointer(&self) -> Option<&'d Pointer> {
        match self.payload()? {
            Payload::Pointer(p) => Some(p),
            Payload::Text(_) => None,
        }
    }

    /// The record the pointer payload leads to.
    pub fn target(&self) -> Option<StructureRef<'d>> {
        self.dataset.resolve(self.pointer()?)
    }

    /// The substructures, in order.
    pub fn children(&self) -> impl Iterator<Item = StructureRef<'d>> + 'd {
        self.dataset.refs(&self.structure.children)
    }

    /// The substructures with this tag, in order.
    pub fn children_with_tag<'t>(&self, tag: &'t str) -> impl Iterator<Item = StructureRef<'d>> + 't
    where
        'd: 't,
    {
        self.children().filter(move |c| c.tag() == tag)
    }

    /// The first substructure with this tag.
    pub fn child(&self, tag: &str) -> Option<StructureRef<'d>> {
        self.children().find(|c| c.tag() == tag)
    }

    /// The parent structure, if this is not a record or a metadata structure.
    pub fn parent(&self) -> Option<StructureRef<'d>> {
        self.dataset.get(self.structure.parent?)
    }

    /// The 1-based line number of the first line in the file.
    pub fn line(&self) -> Option<usize> {
        self.structure.line
    }

    /// The range of the CST node in the tree's text.
    pub fn range(&self) -> Option<TextRange> {
        self.structure.range
    }

    /// This structure and all its descendants, depth first (iterative: deep datasets are fine).
    pub fn descendants(&self) -> impl Iterator<Item = StructureRef<'d>> + 'd {
        let dataset = self.dataset;
        let mut stack = vec![self.id];
        std::iter::from_fn(move || {
            let id = stack.pop()?;
            let node = dataset.get(id)?;
            stack.extend(node.structure.children.iter().rev().copied());
            Some(node)
        })
    }
}
