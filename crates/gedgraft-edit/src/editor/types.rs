//! The editor's value types: line breaks, raw-octet policy, insert positions, new structures.

/// The line break new and converted lines get (the syntax crate's [`gedgraft_syntax::LineBreak`]).
///
/// ```
/// assert_eq!(gedgraft_edit::LineBreak::CrLf.as_str(), "\r\n");
/// ```
pub use gedgraft_syntax::LineBreak;

/// How a line-break conversion reads an LF directly followed by a CR
/// ([`Editor::convert_line_breaks`](crate::Editor::convert_line_breaks)).
///
/// ```
/// assert_eq!(gedgraft_edit::LfCr::default(), gedgraft_edit::LfCr::TwoBreaks);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LfCr {
    /// Two line breaks around a blank line, as the 2019 draft reads it (R-LINE-STRINGS-02): LF CR becomes two
    /// breaks.
    #[default]
    TwoBreaks,
    /// One line break (the June 2017 draft's and GEDCOM 5.5.1's reading): LF CR becomes one break.
    OneBreak,
}

/// What a transcode does with octets the input's encoding could not decode (`RAW` tokens).
///
/// Raw octets are kept as written by every other edit. A transcode has to give them a character: by default it
/// refuses, naming the line. ANSEL octets that the codec keeps raw only because decoding them is not reversible
/// (`CD`, `CE`, `C7`, `F8`, R-ANSEL-02) do have a character and are always converted to it.
///
/// ```
/// assert_eq!(gedgraft_edit::RawOctets::default(), gedgraft_edit::RawOctets::Refuse);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RawOctets {
    /// Fail with [`EditError::RawOctets`](crate::EditError::RawOctets).
    #[default]
    Refuse,
    /// Write U+FFFD REPLACEMENT CHARACTER for each octet (as `@#UFFFD@` in a payload whose encoding lacks it, as
    /// `#` in a malformed line or after the trailer).
    Replace,
}

/// Where [`Editor::insert`](crate::Editor::insert) puts a new structure, relative to an existing one. Insertions at the same place
/// come out in the order they were added.
///
/// ```
/// use gedgraft_edit::{Editor, NewStructure, Position};
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n");
/// let indi = parse.document().record_by_xref("I1").unwrap();
/// let mut editor = Editor::new(&parse);
/// editor.insert(&indi, Position::FirstChild, &NewStructure::new("SEX").text("M")).unwrap();
/// editor.insert(&indi, Position::After, &NewStructure::new("NOTE").xref("N1")).unwrap();
/// assert_eq!(
///     editor.apply().unwrap().bytes(),
///     b"0 HEAD\n0 @I1@ INDI\n1 SEX M\n1 NAME Bob\n0 @N1@ NOTE\n0 TRLR\n"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// Just before the anchor, at its level.
    Before,
    /// Just after the anchor and its substructures, at its level.
    After,
    /// As the anchor's first substructure (after its continuation lines).
    FirstChild,
    /// As the anchor's last substructure (at the very end of the anchor).
    LastChild,
}

/// The payload of a [`NewStructure`].
///
/// ```
/// use gedgraft_edit::{NewPayload, NewStructure};
/// assert_eq!(NewPayload::default(), NewPayload::None);
/// let famc = NewStructure::new("FAMC").pointer("F1");
/// assert_eq!(famc, NewStructure::new("FAMC").pointer("F1"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum NewPayload {
    /// No payload.
    #[default]
    None,
    /// A string payload: logical text, escaped and split on writing.
    Text(String),
    /// A pointer to the structure with this cross-reference identifier (without `@`s).
    Pointer(String),
}

/// A structure to insert, with its substructures.
///
/// ```
/// use gedgraft_edit::NewStructure;
/// let note = NewStructure::new("NOTE").text("seen 1901\nin the census").child(NewStructure::new("SOUR").pointer("S1"));
/// assert_eq!(note.tag(), "NOTE");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewStructure {
    pub(super) tag: String,
    pub(super) xref: Option<String>,
    pub(super) payload: NewPayload,
    pub(super) children: Vec<NewStructure>,
}

impl NewStructure {
    /// A structure with this tag, no payload and no substructures.
    pub fn new(tag: &str) -> NewStructure {
        NewStructure {
            tag: tag.to_string(),
            xref: None,
            payload: NewPayload::None,
            children: Vec::new(),
        }
    }

    /// Gives it a cross-reference identifier (without `@`s).
    pub fn xref(mut self, id: &str) -> NewStructure {
        self.xref = Some(id.to_string());
        self
    }

    /// Gives it a string payload.
    pub fn text(mut self, value: &str) -> NewStructure {
        self.payload = NewPayload::Text(value.to_string());
        self
    }

    /// Gives it a pointer payload (the identifier without `@`s).
    pub fn pointer(mut self, id: &str) -> NewStructure {
        self.payload = NewPayload::Pointer(id.to_string());
        self
    }

    /// Appends a substructure.
    pub fn child(mut self, child: NewStructure) -> NewStructure {
        self.children.push(child);
        self
    }

    /// The tag.
    pub fn tag(&self) -> &str {
        &self.tag
    }
}
