//! Building a dataset structure by structure: [`DatasetBuilder`].
//!
//! The builder fills the same compact arenas as the lowering (`dataset.rs`): one part for the header's
//! metadata structures and schemas, one for the records, each in pre-order. Structures are added one at a
//! time with an explicit stack of open ones, so any depth is built without recursion. [`DatasetBuilder::finish`]
//! numbers the parts and resolves identifiers and pointers by the lowering's own assembly (`lower/assemble.rs`):
//! a pointer leads to the one record with its identifier, else to an `UNDEF` record (R-POINTER-CONV-10), or to
//! nothing for GEDCOM 7's `@VOID@`.

use crate::dataset::{Dataset, Metadata, Part, Payload, Stored, Str, Structure, NONE};
use crate::lower::{assemble, line_u32, Fragment};
use gedgraft_syntax::lexical::{is_id_char, is_tag};
use rustc_hash::FxHashMap;
use std::fmt;
use text_size::TextRange;

/// A structure to add to a [`DatasetBuilder`]: a tag, and optionally a cross-reference identifier, a payload
/// and the line it was read from.
///
/// ```
/// use gedgraft_model::NewStructure;
/// let name = NewStructure::new("NAME").with_text("Bob /Smith/");
/// let family = NewStructure::new("FAMC").with_pointer("F1");
/// let note = NewStructure::new("NOTE").with_text("Bonjour").with_lang("fr").with_line(12);
/// # let _ = (name, family, note);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewStructure<'a> {
    xref: Option<&'a str>,
    tag: &'a str,
    payload: NewPayload<'a>,
    lang: Option<&'a str>,
    datatype: Option<&'a str>,
    line: Option<usize>,
}

/// The payload of a [`NewStructure`], before its language is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NewPayload<'a> {
    None,
    Text(&'a str),
    Pointer(&'a str),
}

impl<'a> NewStructure<'a> {
    /// A structure with this tag (`[0-9A-Za-z_]+`, R-TAGS-01), no identifier and no payload.
    pub fn new(tag: &'a str) -> NewStructure<'a> {
        NewStructure {
            xref: None,
            tag,
            payload: NewPayload::None,
            lang: None,
            datatype: None,
            line: None,
        }
    }

    /// This structure with the cross-reference identifier `xref`, without its `@`s (`I1`).
    pub fn with_xref(mut self, xref: &'a str) -> NewStructure<'a> {
        self.xref = Some(xref);
        self
    }

    /// This structure with a string payload. Its language is the one [`NewStructure::with_lang`] gives, else
    /// the dataset's default ([`Metadata::default_language`], else `und`, R-FIRST-PASS-01). An empty string
    /// with no language or datatype is no payload (R-PAYLOADS-02).
    pub fn with_text(mut self, text: &'a str) -> NewStructure<'a> {
        self.payload = NewPayload::Text(text);
        self
    }

    /// This structure with a pointer payload to the record with identifier `target` (without its `@`s).
    pub fn with_pointer(mut self, target: &'a str) -> NewStructure<'a> {
        self.payload = NewPayload::Pointer(target);
        self
    }

    /// This structure with the language tag of its string payload (a `PLANG` substructure in the file). A
    /// structure with a language but no text has an empty string payload.
    pub fn with_lang(mut self, lang: &'a str) -> NewStructure<'a> {
        self.lang = Some(lang);
        self
    }

    /// This structure with the datatype of its string payload (a `DTYPE` substructure in the file).
    pub fn with_datatype(mut self, datatype: &'a str) -> NewStructure<'a> {
        self.datatype = Some(datatype);
        self
    }

    /// This structure with the payload of another dataset's structure: its text, language and datatype, or
    /// its pointer's target (where the pointer leads is worked out again by [`DatasetBuilder::finish`]).
    pub fn with_payload(mut self, payload: Option<Payload<'a>>) -> NewStructure<'a> {
        (self.payload, self.lang, self.datatype) = match payload {
            None => (NewPayload::None, None, None),
            Some(Payload::Text(t)) => (NewPayload::Text(t.text), Some(t.lang), t.datatype),
            Some(Payload::Pointer(p)) => (NewPayload::Pointer(p.target), None, None),
        };
        self
    }

    /// This structure with the 1-based line it was read from ([`crate::StructureRef::line`]). Lines are not
    /// part of a dataset's meaning: datasets that differ only in lines are equal.
    pub fn with_line(mut self, line: usize) -> NewStructure<'a> {
        self.line = Some(line);
        self
    }
}

/// Why a [`DatasetBuilder`] refused a structure.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// The tag is not `[0-9A-Za-z_]+` (R-TAGS-01).
    BadTag(String),
    /// The cross-reference identifier is empty or holds a character `IDChar` does not allow (R-XREF-IDS-01).
    BadXref(String),
    /// The pointer's target is empty, starts with `#` or holds `@` or a line break (R-PAYLOADS-04).
    BadPointer(String),
    /// A language or datatype on a pointer payload (only strings have them).
    AnnotatedPointer,
    /// [`DatasetBuilder::child`] or [`DatasetBuilder::close`] with no open structure.
    NothingOpen,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::BadTag(t) => write!(
                f,
                "`{}` is not a tag: a tag is one or more of 0-9, A-Z, a-z, _",
                quoted(t)
            ),
            BuildError::BadXref(x) => {
                write!(f, "`{}` is not a cross-reference identifier", quoted(x))
            }
            BuildError::BadPointer(p) => write!(f, "`{p}` is not a pointer target: it is empty, starts with `#` or holds `@` or a line break"),
            BuildError::AnnotatedPointer => f.write_str("a pointer payload has no language or datatype"),
            BuildError::NothingOpen => f.write_str("no structure is open"),
        }
    }
}

impl std::error::Error for BuildError {}

/// Whether `id` is an identifier: one or more `IDChar`s.
fn is_identifier(id: &str) -> bool {
    !id.is_empty() && id.chars().all(is_id_char)
}

/// Where a top-level structure goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    Record,
    Schema,
    Metadata,
}

/// The structures of one part while they are added.
#[derive(Debug, Default)]
struct Section {
    part: Part,
    /// The top-level structures: local id, and for the header whether it is a schema.
    roots: Vec<(u32, bool)>,
    /// Every identifier: where it is in [`DatasetBuilder::names`], its structure's local id, whether that is a
    /// top-level structure.
    holders: Vec<(usize, usize, u32, bool)>,
    /// Every pointer payload: its structure's local id, where the target is in [`DatasetBuilder::names`].
    pointers: Vec<(u32, usize, usize)>,
    /// Tags, stored once in the part's text.
    tags: FxHashMap<String, Str>,
}

/// Builds a [`Dataset`] structure by structure, in pre-order: a top-level structure ([`record`],
/// [`metadata_structure`], [`schema`]), then its substructures, each added with [`child`] (which opens it)
/// and ended with [`close`]. Nothing is recursive, so any depth is fine.
///
/// [`record`]: DatasetBuilder::record
/// [`metadata_structure`]: DatasetBuilder::metadata_structure
/// [`schema`]: DatasetBuilder::schema
/// [`child`]: DatasetBuilder::child
/// [`close`]: DatasetBuilder::close
///
/// ```
/// use gedgraft_model::{DatasetBuilder, NewStructure};
/// let mut b = DatasetBuilder::new();
/// b.metadata_mut().default_language = Some("en".to_string());
/// b.record(NewStructure::new("INDI").with_xref("I1"))?;
/// b.child(NewStructure::new("NAME").with_text("Bob /Smith/"))?;
/// b.child(NewStructure::new("GIVN").with_text("Bob"))?;
/// b.close()?; // GIVN
/// b.close()?; // NAME
/// b.child(NewStructure::new("FAMC").with_pointer("F1"))?;
/// let dataset = b.finish();
/// let indi = dataset.record_by_xref("I1").unwrap();
/// assert_eq!(indi.child("NAME").unwrap().child("GIVN").unwrap().text(), Some("Bob"));
/// // No record has @F1@: the pointer leads to an UNDEF record, as in a lowered file (R-POINTER-CONV-10).
/// assert_eq!(indi.child("FAMC").unwrap().target().unwrap().tag(), "UNDEF");
/// # Ok::<(), gedgraft_model::BuildError>(())
/// ```
#[derive(Debug, Default)]
pub struct DatasetBuilder {
    metadata: Metadata,
    header: Section,
    body: Section,
    /// Whether the open structures are in the header's part.
    in_header: bool,
    /// The local ids of the open structures, outermost first.
    open: Vec<u32>,
    /// Identifiers and pointer targets, for the assembly.
    names: String,
}

impl DatasetBuilder {
    /// An empty builder: no metadata, no structures.
    pub fn new() -> DatasetBuilder {
        DatasetBuilder::default()
    }

    /// The serialisation metadata to give the dataset: dialect, versions, `FORM`, default language. Its
    /// `schemas` and `other` lists are ignored: [`DatasetBuilder::finish`] fills them with the structures
    /// added by [`DatasetBuilder::schema`] and [`DatasetBuilder::metadata_structure`].
    pub fn metadata_mut(&mut self) -> &mut Metadata {
        &mut self.metadata
    }

    /// How many structures are open: 0 before the first top-level structure, 1 inside a record, …
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    /// Closes every open structure and adds a record, which is then the open structure.
    pub fn record(&mut self, s: NewStructure<'_>) -> Result<(), BuildError> {
        self.top(s, Root::Record)
    }

    /// Closes every open structure and adds a metadata structure: a substructure of the header that is not
    /// serialisation metadata (`SOUR`, `DATE`, `NOTE`…). It is then the open structure.
    pub fn metadata_structure(&mut self, s: NewStructure<'_>) -> Result<(), BuildError> {
        self.top(s, Root::Metadata)
    }

    /// Closes every open structure and adds a schema reference (`SCHMA`, kept as written), which is then the
    /// open structure.
    pub fn schema(&mut self, s: NewStructure<'_>) -> Result<(), BuildError> {
        self.top(s, Root::Schema)
    }

    /// Adds a substructure to the open structure (after its earlier substructures); the new one is then the
    /// open structure, until [`DatasetBuilder::close`].
    pub fn child(&mut self, s: NewStructure<'_>) -> Result<(), BuildError> {
        let parent = *self.open.last().ok_or(BuildError::NothingOpen)?;
        let id = self.push(s, parent)?;
        self.open.push(id);
        Ok(())
    }

    /// Ends the open structure: the next [`DatasetBuilder::child`] adds to its parent.
    pub fn close(&mut self) -> Result<(), BuildError> {
        let id = self.open.pop().ok_or(BuildError::NothingOpen)?;
        let section = if self.in_header {
            &mut self.header
        } else {
            &mut self.body
        };
        let end = section.part.len_u32();
        if let Some(s) = section.part.structures.get_mut(id as usize) {
            s.end = end;
        }
        Ok(())
    }

    fn top(&mut self, s: NewStructure<'_>, root: Root) -> Result<(), BuildError> {
        check(&s)?;
        while !self.open.is_empty() {
            self.close()?;
        }
        self.in_header = root != Root::Record;
        let id = self.push(s, NONE)?;
        let section = self.section();
        section.roots.push((id, root == Root::Schema));
        self.open.push(id);
        Ok(())
    }

    fn section(&mut self) -> &mut Section {
        if self.in_header {
            &mut self.header
        } else {
            &mut self.body
        }
    }

    /// Adds a structure under the local id `parent` ([`NONE`] for a top-level one) in the current section.
    fn push(&mut self, s: NewStructure<'_>, parent: u32) -> Result<u32, BuildError> {
        check(&s)?;
        let names = &mut self.names;
        let section = if self.in_header {
            &mut self.header
        } else {
            &mut self.body
        };
        let id = section.part.len_u32();
        let part = &mut section.part;
        let tag = match section.tags.get(s.tag) {
            Some(&tag) => tag,
            None => {
                let tag = part.push(s.tag);
                section.tags.insert(s.tag.to_string(), tag);
                tag
            }
        };
        let xref = match s.xref {
            Some(x) => {
                section
                    .holders
                    .push((names.len(), x.len(), id, parent == NONE));
                names.push_str(x);
                part.push(x)
            }
            None => Str::ABSENT,
        };
        let payload = match s.payload {
            NewPayload::Pointer(target) => {
                section.pointers.push((id, names.len(), target.len()));
                names.push_str(target);
                Stored::Pointer {
                    target: part.push(target),
                    record: NONE,
                    undefined: false,
                }
            }
            NewPayload::Text(text) => text_payload(part, text, s.lang, s.datatype),
            NewPayload::None => text_payload(part, "", s.lang, s.datatype),
        };
        part.structures.push(Structure {
            tag,
            xref,
            payload,
            parent,
            end: id.saturating_add(1),
            from: NONE,
            to: NONE,
            line: s.line.map_or(NONE, line_u32),
        });
        Ok(id)
    }

    /// The dataset: the header's part, then the records', identifiers indexed and pointers resolved as the
    /// lowering does (R-POINTER-CONV-10..13), the `UNDEF` records last.
    pub fn finish(mut self) -> Dataset {
        while self.close().is_ok() {}
        let default = self.metadata.default_language.clone();
        let default = default.as_deref().unwrap_or("und");
        let mut header = std::mem::take(&mut self.header);
        let mut body = std::mem::take(&mut self.body);
        sort_by_line(&mut header);
        fill_languages(&mut header.part, default);
        fill_languages(&mut body.part, default);
        let mut metadata = std::mem::take(&mut self.metadata);
        metadata.schemas.clear();
        metadata.other.clear();
        for &(id, schema) in &header.roots {
            let id = crate::StructureId::from_u32(id);
            match schema {
                true => metadata.schemas.push(id),
                false => metadata.other.push(id),
            }
        }
        let names = std::mem::take(&mut self.names);
        let fragment = |section: Section, records: bool| -> Fragment<'_> {
            let name = |start: usize, len: usize| names.get(start..start + len).unwrap_or("");
            let empty = TextRange::default();
            Fragment {
                holders: section
                    .holders
                    .iter()
                    .map(|&(start, len, id, top)| {
                        let line = section
                            .part
                            .structures
                            .get(id as usize)
                            .map_or(0, |s| s.line);
                        (name(start, len), id, top && records, empty, line)
                    })
                    .collect(),
                pointers: section
                    .pointers
                    .iter()
                    .map(|&(id, start, len)| (id, name(start, len), empty))
                    .collect(),
                records: match records {
                    true => section.roots.iter().map(|r| r.0).collect(),
                    false => Vec::new(),
                },
                part: section.part,
                diagnostics: Vec::new(),
                lines: 0,
            }
        };
        let fragments = vec![fragment(header, false), fragment(body, true)];
        assemble(metadata, fragments).0
    }
}

/// Checks a new structure's tag, identifier and pointer.
fn check(s: &NewStructure<'_>) -> Result<(), BuildError> {
    check_tag(s.tag)?;
    if let Some(x) = s.xref {
        check_xref(x)?;
    }
    if let NewPayload::Pointer(p) = s.payload {
        check_pointer(p)?;
        if s.lang.is_some() || s.datatype.is_some() {
            return Err(BuildError::AnnotatedPointer);
        }
    }
    Ok(())
}

/// A tag is `[0-9A-Za-z_]+` (R-TAGS-01).
pub(crate) fn check_tag(tag: &str) -> Result<(), BuildError> {
    match is_tag(tag) {
        true => Ok(()),
        false => Err(BuildError::BadTag(tag.to_string())),
    }
}

/// A cross-reference identifier is one or more `IDChar`s (R-XREF-IDS-01).
pub(crate) fn check_xref(xref: &str) -> Result<(), BuildError> {
    match is_identifier(xref) {
        true => Ok(()),
        false => Err(BuildError::BadXref(xref.to_string())),
    }
}

/// A pointer's target is what `Pointer ::= "@" [^#x23#x40#xA#xD] [^#x40#xA#xD]* "@"` (R-PAYLOADS-04) holds
/// between its `@`s: the lexer reads any such payload as a pointer, whether or not an identifier could match.
pub(crate) fn check_pointer(target: &str) -> Result<(), BuildError> {
    let well_formed =
        !target.is_empty() && !target.starts_with('#') && !target.contains(['@', '\n', '\r']);
    match well_formed {
        true => Ok(()),
        false => Err(BuildError::BadPointer(target.to_string())),
    }
}

/// A string payload; none for an empty string with no language or datatype (R-PAYLOADS-02). A missing
/// language is [`Str::ABSENT`] until [`fill_languages`].
fn text_payload(part: &mut Part, text: &str, lang: Option<&str>, datatype: Option<&str>) -> Stored {
    if text.is_empty() && lang.is_none() && datatype.is_none() {
        return Stored::None;
    }
    let mut opt = |s: Option<&str>| s.map_or(Str::ABSENT, |s| part.push(s));
    let (lang, datatype) = (opt(lang), opt(datatype));
    Stored::Text {
        text: part.push(text),
        lang,
        datatype,
    }
}

/// Gives the string payloads that have no language the default one.
fn fill_languages(part: &mut Part, default: &str) {
    let mut lang = None;
    for i in 0..part.structures.len() {
        if let Some(Stored::Text { lang: l, .. }) = part.structures.get(i).map(|s| s.payload) {
            if l.is_absent() {
                let value = *lang.get_or_insert_with(|| part.push(default));
                if let Some(Structure {
                    payload: Stored::Text { lang: l, .. },
                    ..
                }) = part.structures.get_mut(i)
                {
                    *l = value;
                }
            }
        }
    }
}

/// Puts the header's top-level structures in the order of their lines when every one has a line (JSON lists
/// schemas apart from the other metadata structures, the file interleaves them), so that ids follow the file.
fn sort_by_line(section: &mut Section) {
    let structures = &section.part.structures;
    let line = |local: u32| structures.get(local as usize).map_or(NONE, |s| s.line);
    if section.roots.iter().any(|r| line(r.0) == NONE)
        || section
            .roots
            .windows(2)
            .all(|w| line(w[0].0) <= line(w[1].0))
    {
        return;
    }
    let mut order = section.roots.clone();
    order.sort_by_key(|r| line(r.0));
    // Each root's subtree moves as a block: new local = old local - old start + new start.
    let mut map = vec![0u32; structures.len()];
    let mut moved = Vec::with_capacity(structures.len());
    for &(root, _) in &order {
        let end = structures.get(root as usize).map_or(root, |s| s.end);
        let start = u32::try_from(moved.len()).unwrap_or(NONE);
        for old in root..end {
            if let Some(s) = structures.get(old as usize) {
                let shift = |x: u32| match x {
                    NONE => NONE,
                    x => x - root + start,
                };
                if let Some(m) = map.get_mut(old as usize) {
                    *m = shift(old);
                }
                moved.push(Structure {
                    parent: shift(s.parent),
                    end: shift(s.end),
                    ..s.clone()
                });
            }
        }
    }
    section.part.structures = moved;
    let new = |old: u32| map.get(old as usize).copied().unwrap_or(old);
    section.roots = order.iter().map(|&(r, schema)| (new(r), schema)).collect();
    for holder in &mut section.holders {
        holder.2 = new(holder.2);
    }
    for pointer in &mut section.pointers {
        pointer.0 = new(pointer.0);
    }
    section.holders.sort_by_key(|h| h.2);
    section.pointers.sort_by_key(|p| p.0);
}

/// A value of the input quoted in a message: its first 40 characters, and how long it is past them (a number of
/// a million digits was echoed whole).
pub(crate) fn quoted(text: &str) -> String {
    const SHOWN: usize = 40;
    match text.char_indices().nth(SHOWN) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}… ({} characters)", &text[..cut], text.chars().count()),
    }
}
