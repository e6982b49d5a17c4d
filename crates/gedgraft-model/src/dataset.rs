//! The ELF dataset: serialisation metadata, metadata structures and records.
//!
//! Structures live in flat arenas and refer to each other by [`StructureId`]: parents, subtrees and resolved
//! pointers are indices, never owned boxes. So a dataset of any depth is built, walked, serialised with serde
//! and dropped without recursion (invariant 4 of `ARCHITECTURE.md`). [`StructureRef`] is the view: a
//! structure together with its dataset, with every accessor.
//!
//! The storage is compact, because a large file has millions of structures: the structures of a contiguous
//! run of ids (a *part*: the header's, one per run of records lowered by one thread, the `UNDEF` records) are
//! kept in one vector, in pre-order, and all their strings (tags, identifiers, payloads, languages) in one
//! string of that part; a structure holds 32-bit offsets into it. Children are not listed: in pre-order, a
//! structure's first child follows it and every subtree is a contiguous run of ids, so each structure only
//! records where its subtree ends.

use gedgraft_syntax::Dialect;
use serde::{Deserialize, Serialize};
use std::fmt;
use text_size::{TextRange, TextSize};

/// The index of a structure in the dataset (ids run from 0 to [`Dataset::len`], in file order, `UNDEF`
/// records last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct StructureId(u32);

impl StructureId {
    /// The position of the structure in the dataset.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The id of position `index`. Tree offsets are 32-bit and every structure has a line of its own, so a
    /// dataset never holds 2^32 structures.
    pub(crate) fn new(index: usize) -> StructureId {
        StructureId(u32::try_from(index).unwrap_or(u32::MAX))
    }

    pub(crate) fn from_u32(index: u32) -> StructureId {
        StructureId(index)
    }
}

/// A lowered ELF document: serialisation metadata, metadata structures and the document's records
/// (2019 § Glossary: "Dataset: metadata and a document").
///
/// Two datasets are equal when they hold the same structures under the same ids, whatever the storage
/// (how many threads built them).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Dataset {
    /// What the header said about the serialisation, and the header's other substructures.
    pub metadata: Metadata,
    /// The records, in file order, followed by the `UNDEF` records created for pointers that match no record
    /// (R-POINTER-CONV-10). The header and the trailer are not records.
    pub(crate) records: Vec<StructureId>,
    /// The structures, in parts of consecutive ids.
    pub(crate) parts: Vec<Part>,
    /// For every cross-reference identifier that exactly one record has: that record.
    pub(crate) xrefs: XrefIndex,
}

/// The serialisation metadata taken out of the header, and the metadata structures that remain
/// (2019 § Header metadata, § Parsing serialisation metadata).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// The file's dialect, read from the header (`gedgraft_syntax::Dialect`): the rules the file was lowered by.
    #[serde(with = "dialect_name")]
    pub dialect: Dialect,
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

/// A [`Dialect`] in serde as its name (`"GEDCOM 7.0"`).
mod dialect_name {
    use gedgraft_syntax::Dialect;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(dialect: &Dialect, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(dialect)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Dialect, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
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

/// The payload of a structure: a language-tagged string or a pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload<'d> {
    /// A string payload, unescaped and with its continuation lines merged.
    Text(Text<'d>),
    /// A pointer payload.
    Pointer(Pointer<'d>),
}

/// A language-tagged string payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text<'d> {
    /// The string: `@@` → `@`, Unicode escapes replaced, other escapes as written, `CONT` → `\n`.
    pub text: &'d str,
    /// The language tag: from a `PLANG` substructure, else the header's default payload language, else `und`.
    pub lang: &'d str,
    /// The datatype given by a `DTYPE` substructure, if any.
    pub datatype: Option<&'d str>,
}

/// A pointer payload and the record it leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pointer<'d> {
    /// The identifier pointed at, as written, without its `@`s.
    pub target: &'d str,
    /// The record pointed at: the one record with that identifier, or an `UNDEF` record.
    pub record: Option<StructureId>,
    /// Whether the record is an `UNDEF` record created because no single record has the identifier
    /// (R-POINTER-CONV-10).
    pub undefined: bool,
}

// ----- Storage -----

/// No id, no line (a sentinel in 32-bit fields).
pub(crate) const NONE: u32 = u32::MAX;

/// A string of a part: `len` octets of [`Part::text`] from `start`, or, when `len` is [`NONE`], the string
/// `big[start]` (only for text past 4 GiB, which NFC expansion alone can reach), or no string at all when
/// `start` is [`NONE`] too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Str {
    start: u32,
    len: u32,
}

impl Str {
    /// No string (an optional string that is absent).
    pub const ABSENT: Str = Str {
        start: NONE,
        len: NONE,
    };

    /// The empty string.
    pub const EMPTY: Str = Str { start: 0, len: 0 };

    pub fn is_absent(self) -> bool {
        self == Str::ABSENT
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// A structure in its part. Ids, parents and ends are local to the part; lines are counted from the part's
/// first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Structure {
    pub tag: Str,
    /// The cross-reference identifier without its `@`s, or [`Str::ABSENT`].
    pub xref: Str,
    pub payload: Stored,
    /// The parent's local id, or [`NONE`] for records, metadata structures and schemas.
    pub parent: u32,
    /// The local id after the structure's last descendant.
    pub end: u32,
    /// The range of the CST node in the tree's text.
    pub from: u32,
    pub to: u32,
    /// The line of the structure's first line, counted from [`Part::line_base`]; [`NONE`] for `UNDEF`
    /// records.
    pub line: u32,
}

/// A stored payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Stored {
    None,
    Text {
        text: Str,
        lang: Str,
        /// [`Str::ABSENT`] without a `DTYPE`.
        datatype: Str,
    },
    Pointer {
        target: Str,
        /// The global id of the record pointed at ([`NONE`] until pointers are resolved).
        record: u32,
        undefined: bool,
    },
}

/// Consecutive structures and their strings.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Part {
    /// The id of the first structure.
    pub first: u32,
    /// The line number structure lines are counted from.
    pub line_base: usize,
    pub structures: Vec<Structure>,
    /// Every string of the part's structures.
    pub text: String,
    /// Strings that would end past 4 GiB of `text`.
    pub big: Vec<String>,
}

impl Part {
    /// The text of a string (empty for an absent or invalid one).
    pub fn str(&self, s: Str) -> &str {
        if s.len == NONE {
            return self.big.get(s.start as usize).map_or("", String::as_str);
        }
        let start = s.start as usize;
        self.text.get(start..start + s.len as usize).unwrap_or("")
    }

    /// An optional string.
    pub fn opt_str(&self, s: Str) -> Option<&str> {
        (!s.is_absent()).then(|| self.str(s))
    }

    /// The string written from `start` to the end of [`Part::text`].
    pub fn str_from(&mut self, start: usize) -> Str {
        let end = self.text.len();
        match (u32::try_from(start), u32::try_from(end)) {
            (Ok(s), Ok(e)) if e != NONE => Str {
                start: s,
                len: e - s,
            },
            _ => {
                let tail = self.text.split_off(start.min(end));
                let index = u32::try_from(self.big.len()).unwrap_or(NONE);
                if index == NONE {
                    return Str { start: 0, len: 0 };
                }
                self.big.push(tail);
                Str {
                    start: index,
                    len: NONE,
                }
            }
        }
    }

    /// Appends a string.
    pub fn push(&mut self, text: &str) -> Str {
        let start = self.text.len();
        self.text.push_str(text);
        self.str_from(start)
    }

    /// The structure with a global id.
    fn local(&self, id: StructureId) -> Option<(u32, &Structure)> {
        let local = id.0.checked_sub(self.first)?;
        Some((local, self.structures.get(local as usize)?))
    }

    /// The number of structures, as a global id offset.
    pub fn len_u32(&self) -> u32 {
        u32::try_from(self.structures.len()).unwrap_or(NONE)
    }
}

/// The identifiers of the records that alone have them: the record ids in order, and an open-addressing hash
/// table keyed by the identifier (hashed under the table's own [`HashKey`], stored with it, so that a
/// serialised dataset stays searchable). The table also holds the identifiers that are not indexed (several
/// holders, or only a substructure), as [`TOMBSTONE`]s, which lookups step over.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct XrefIndex {
    pub ids: Vec<StructureId>,
    /// A power-of-two number of slots: 0 for an empty one, [`TOMBSTONE`], or a record's id + 1.
    pub slots: Vec<u32>,
    pub key: HashKey,
}

/// A slot of an identifier that leads to no record.
pub(crate) const TOMBSTONE: u32 = u32::MAX;

/// The key of the hash of an identifier table (the dataset's [`XrefIndex`], the stream's index): drawn at
/// random for each table, so that no file can be written whose identifiers collide. With a fixed hash (FNV-1a
/// before) the low bits of chosen identifiers could be made equal at will, and a table of n such identifiers
/// took n² probes: minutes for a 3 MB file (#12).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub(crate) struct HashKey(u64, u64);

impl HashKey {
    /// A key no input can know: from the standard library's random hash keys.
    pub(crate) fn random() -> HashKey {
        use std::hash::BuildHasher;
        let state = std::collections::hash_map::RandomState::new();
        HashKey(state.hash_one(1u8), state.hash_one(2u8))
    }

    /// SipHash-2-4 of `text` under this key: the standard library's `SipHasher`, deprecated as a name only (its
    /// output is fixed), so that a serialised table reads the same in every version.
    pub(crate) fn hash(self, text: &str) -> u64 {
        use std::hash::Hasher;
        #[allow(deprecated)]
        let mut hasher = std::hash::SipHasher::new_with_keys(self.0, self.1);
        hasher.write(text.as_bytes());
        hasher.finish()
    }
}

impl XrefIndex {
    fn get(&self, dataset: &Dataset, xref: &str) -> Option<StructureId> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut i = self.key.hash(xref) as usize & mask;
        for _ in 0..self.slots.len() {
            match *self.slots.get(i)? {
                0 => return None,
                TOMBSTONE => {}
                slot => {
                    let id = StructureId(slot - 1);
                    if dataset.get(id).and_then(|s| s.xref()) == Some(xref) {
                        return Some(id);
                    }
                }
            }
            i = (i + 1) & mask;
        }
        None
    }
}

// ----- Navigation -----

impl Dataset {
    /// The structure with this id.
    pub fn get(&self, id: StructureId) -> Option<StructureRef<'_>> {
        let at = self.parts.partition_point(|p| p.first <= id.0);
        let part = self.parts.get(at.checked_sub(1)?)?;
        let (local, structure) = part.local(id)?;
        Some(StructureRef {
            dataset: self,
            part,
            local,
            structure,
        })
    }

    /// The number of structures (ids are `0..len()`).
    pub fn len(&self) -> usize {
        self.parts.iter().map(|p| p.structures.len()).sum()
    }

    /// Whether the dataset has no records and no metadata structures.
    pub fn is_empty(&self) -> bool {
        self.parts.iter().all(|p| p.structures.is_empty())
    }

    /// Every structure, in id order: file order (pre-order), `UNDEF` records last.
    pub fn iter(&self) -> impl Iterator<Item = StructureRef<'_>> {
        self.parts.iter().flat_map(move |part| {
            part.structures
                .iter()
                .zip(0u32..)
                .map(move |(structure, local)| StructureRef {
                    dataset: self,
                    part,
                    local,
                    structure,
                })
        })
    }

    fn refs<'a>(&'a self, ids: &'a [StructureId]) -> impl Iterator<Item = StructureRef<'a>> + 'a {
        ids.iter().filter_map(|id| self.get(*id))
    }

    /// The ids of the records, in file order, then the `UNDEF` records.
    pub fn record_ids(&self) -> &[StructureId] {
        &self.records
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
        self.xrefs.get(self, xref).and_then(|id| self.get(id))
    }

    /// The records that alone have their identifier, in file order: the ones [`Dataset::record_by_xref`]
    /// finds.
    pub fn xref_records(&self) -> impl Iterator<Item = StructureRef<'_>> {
        self.refs(&self.xrefs.ids)
    }

    /// The record a pointer leads to (an `UNDEF` record for a pointer that matched no single record).
    pub fn resolve(&self, pointer: &Pointer<'_>) -> Option<StructureRef<'_>> {
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
}

impl PartialEq for Dataset {
    /// The same metadata, records and structures under the same ids, and the same identifier index: the same
    /// meaning. Where the structures were read from ([`StructureRef::line`], [`StructureRef::range`]) is not
    /// compared, so a dataset equals the lowering of its serialisation and of its JSON.
    fn eq(&self, other: &Self) -> bool {
        self.metadata == other.metadata
            && self.records == other.records
            && self.len() == other.len()
            && self.xrefs.ids == other.xrefs.ids
            && self.iter().zip(other.iter()).all(|(a, b)| {
                a.id() == b.id()
                    && a.xref() == b.xref()
                    && a.tag() == b.tag()
                    && a.payload() == b.payload()
                    && a.parent().map(|p| p.id()) == b.parent().map(|p| p.id())
                    && a.subtree_end() == b.subtree_end()
            })
    }
}

impl Eq for Dataset {}

/// A structure together with its dataset: a tagged structure (2019 § Overview) with an optional
/// cross-reference identifier, a tag, an optional payload and substructures, plus where it came from.
#[derive(Debug, Clone, Copy)]
pub struct StructureRef<'d> {
    dataset: &'d Dataset,
    part: &'d Part,
    local: u32,
    structure: &'d Structure,
}

impl PartialEq for StructureRef<'_> {
    /// The same structure of the same dataset.
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.dataset, other.dataset) && self.id() == other.id()
    }
}

impl Eq for StructureRef<'_> {}

impl<'d> StructureRef<'d> {
    /// The structure's id.
    pub fn id(&self) -> StructureId {
        StructureId(self.part.first.saturating_add(self.local))
    }

    /// The dataset the structure belongs to.
    pub fn dataset(&self) -> &'d Dataset {
        self.dataset
    }

    /// The view of another structure of the same part.
    pub(crate) fn sibling(&self, local: u32) -> Option<StructureRef<'d>> {
        Some(StructureRef {
            dataset: self.dataset,
            part: self.part,
            local,
            structure: self.part.structures.get(local as usize)?,
        })
    }

    /// The cross-reference identifier, without its `@`s.
    pub fn xref(&self) -> Option<&'d str> {
        self.part.opt_str(self.structure.xref)
    }

    /// The tag.
    pub fn tag(&self) -> &'d str {
        self.part.str(self.structure.tag)
    }

    /// The payload. An empty string payload, written or omitted, is `None` (R-PAYLOADS-02 makes the two the
    /// same), unless a `PLANG` or `DTYPE` substructure annotated it.
    pub fn payload(&self) -> Option<Payload<'d>> {
        let part = self.part;
        match self.structure.payload {
            Stored::None => None,
            Stored::Text {
                text,
                lang,
                datatype,
            } => Some(Payload::Text(Text {
                text: part.str(text),
                lang: part.str(lang),
                datatype: part.opt_str(datatype),
            })),
            Stored::Pointer {
                target,
                record,
                undefined,
            } => Some(Payload::Pointer(Pointer {
                target: part.str(target),
                record: (record != NONE).then_some(StructureId(record)),
                undefined,
            })),
        }
    }

    /// The string payload's text, if the payload is a string.
    pub fn text(&self) -> Option<&'d str> {
        match self.payload()? {
            Payload::Text(t) => Some(t.text),
            Payload::Pointer(_) => None,
        }
    }

    /// The pointer payload, if the payload is a pointer.
    pub fn pointer(&self) -> Option<Pointer<'d>> {
        match self.payload()? {
            Payload::Pointer(p) => Some(p),
            Payload::Text(_) => None,
        }
    }

    /// The record the pointer payload leads to.
    pub fn target(&self) -> Option<StructureRef<'d>> {
        self.dataset.resolve(&self.pointer()?)
    }

    /// The local id after the last descendant (at least the next one).
    fn local_end(&self) -> u32 {
        self.structure.end.max(self.local.saturating_add(1))
    }

    /// The id after the structure's last descendant: its subtree is the ids from [`StructureRef::id`] up to
    /// this one.
    pub fn subtree_end(&self) -> StructureId {
        StructureId(self.part.first.saturating_add(self.local_end()))
    }

    /// The local ids of its substructures and their descendants: the first, and the one after the last.
    pub(crate) fn child_range(&self) -> (u32, u32) {
        (self.local.saturating_add(1), self.local_end())
    }

    /// Whether the structure has substructures.
    pub fn has_children(&self) -> bool {
        self.local_end() > self.local.saturating_add(1)
    }

    /// The substructures, in order (`CONT`/`CONC`, `PLANG` and `DTYPE` substructures are merged away).
    pub fn children(&self) -> Children<'d> {
        let (next, end) = self.child_range();
        Children {
            parent: *self,
            next,
            end,
        }
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

    /// The parent structure; `None` for records, metadata structures and schemas.
    pub fn parent(&self) -> Option<StructureRef<'d>> {
        match self.structure.parent {
            NONE => None,
            local => self.sibling(local),
        }
    }

    /// The 1-based line number of the structure's first line in the file; `None` for the `UNDEF` records the
    /// lowering creates, and for built structures given no line ([`crate::NewStructure::with_line`]).
    pub fn line(&self) -> Option<usize> {
        match self.structure.line {
            NONE => None,
            line => Some(self.part.line_base.saturating_add(line as usize)),
        }
    }

    /// The range of the structure's CST node in the tree's text (its lines, substructures included); `None`
    /// for `UNDEF` records and structures that were not lowered from a file ([`crate::DatasetBuilder`]).
    pub fn range(&self) -> Option<TextRange> {
        let s = self.structure;
        (s.line != NONE && s.from != NONE)
            .then(|| TextRange::new(TextSize::from(s.from), TextSize::from(s.to.max(s.from))))
    }

    /// The structure's node in the tree of `parse`, the parse this dataset was lowered from: the way back from
    /// the dataset to the octets, for example to edit what a query over the dataset found. `None` for `UNDEF`
    /// records, and when `parse` has no structure node at this structure's range (another file's parse).
    ///
    /// ```
    /// use gedgraft_model::{lower, LowerOptions};
    /// use gedgraft_syntax::ast::AstToken;
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n");
    /// let lowered = lower(&parse, &LowerOptions::default());
    /// let name = lowered.dataset.record_by_xref("I1").unwrap().child("NAME").unwrap();
    /// let node = name.syntax(&parse).unwrap();
    /// assert_eq!(node.tag().unwrap().text(), "NAME");
    /// ```
    pub fn syntax(
        &self,
        parse: &gedgraft_syntax::Parse,
    ) -> Option<gedgraft_syntax::ast::Structure> {
        use gedgraft_syntax::ast::{AstNode, Structure};
        use gedgraft_syntax::rowan::NodeOrToken;
        let range = self.range()?;
        let root = parse.syntax();
        if !root.text_range().contains_range(range) {
            return None;
        }
        let node = match root.covering_element(range) {
            NodeOrToken::Node(n) => n,
            NodeOrToken::Token(t) => t.parent()?,
        };
        node.ancestors()
            .filter_map(Structure::cast)
            .find(|s| s.syntax().text_range() == range)
    }

    /// This structure and all its descendants, depth first (pre-order: their ids in order).
    pub fn descendants(&self) -> impl Iterator<Item = StructureRef<'d>> + 'd {
        let this = *self;
        (self.local..self.local_end()).filter_map(move |local| this.sibling(local))
    }
}

/// The substructures of a structure, in order ([`StructureRef::children`]).
#[derive(Debug, Clone)]
pub struct Children<'d> {
    parent: StructureRef<'d>,
    next: u32,
    end: u32,
}

impl<'d> Iterator for Children<'d> {
    type Item = StructureRef<'d>;

    fn next(&mut self) -> Option<StructureRef<'d>> {
        if self.next >= self.end {
            return None;
        }
        let child = self.parent.sibling(self.next)?;
        self.next = child.local_end();
        Some(child)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_structure_takes_64_octets() {
        assert!(std::mem::size_of::<Structure>() <= 64);
    }

    #[test]
    fn strings_past_4_gib_would_go_to_big() {
        let mut part = Part::default();
        let s = part.push("abc");
        assert_eq!(part.str(s), "abc");
        assert_eq!(part.opt_str(Str::ABSENT), None);
        assert_eq!(part.str(Str::EMPTY), "");
        // An out-of-range string reads as empty rather than panicking (a deserialised dataset may hold one).
        assert_eq!(part.str(Str { start: 2, len: 100 }), "");
        assert_eq!(
            part.str(Str {
                start: 7,
                len: NONE
            }),
            ""
        );
    }
}
