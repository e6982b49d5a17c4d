//! What edits may not touch: the header and trailer lines, and the header's serialisation metadata (`HEAD.CHAR`,
//! `GEDC`, `ELF`, `SCHMA`, `PLANG`), which decide how the whole file is read (R-HEADER-02). Changing `HEAD.CHAR`
//! changes how every octet decodes: only a transcode writes it. Changing `HEAD.GEDC` (its `VERS`, and the
//! `FORM` that tells GEDCOM 5.5.5 apart) or `HEAD.ELF` changes the file's dialect, and with it how every line
//! is read (GEDCOM 7 has no `CONC` and doubles only a leading `@`).
//!
//! Tags are matched as the readers match them: `CHAR` in any case, as the encoding detection reads it
//! ([`is_char_tag`]: `1 char ANSEL` decides the encoding), `GEDC` and `ELF` as written, as the dialect detection
//! reads them.

use super::{Editor, NewPayload};
use crate::error::EditError;
use crate::render;
use crate::splice::Splice;
use crate::transcode_check::check_new_text;
use gedgraft_encoding::is_char_tag;
use gedgraft_syntax::ast::{AstNode, Structure, SERIALISATION_METADATA};
use gedgraft_syntax::{SyntaxKind, SyntaxNode};

/// Header structures that decide how the file is read, besides `CHAR`: the dialect's.
const DIALECT_METADATA: [&str; 2] = ["GEDC", "ELF"];

/// Which header structure that decides the reading a node is, or lies in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// `HEAD.CHAR` (any case) and its `VERS`: the encoding.
    Charset,
    /// `HEAD.GEDC` or `HEAD.ELF` and what is inside: the dialect.
    Dialect,
}

impl Reading {
    /// The reading a header substructure's tag decides, if any.
    fn of_tag(tag: &str) -> Option<Reading> {
        if is_char_tag(tag) {
            Some(Reading::Charset)
        } else if DIALECT_METADATA.contains(&tag) {
            Some(Reading::Dialect)
        } else {
            None
        }
    }

    /// What it is, for a refusal.
    fn describe(self, tag: &str) -> String {
        match self {
            Reading::Charset => format!(
                "`HEAD.{tag}`, which says how the file is encoded (transcode the file instead)"
            ),
            Reading::Dialect => format!(
                "`HEAD.{tag}` or what is inside it, which says which version of GEDCOM or ELF the file follows \
                 and so how every line is read"
            ),
        }
    }
}

impl Editor<'_> {
    pub(super) fn tag_of(node: &SyntaxNode) -> String {
        render::first_line_tokens(node)
            .find(|t| t.kind() == SyntaxKind::Tag)
            .map_or(String::new(), |t| t.text().to_string())
    }

    pub(super) fn is_header(node: &SyntaxNode) -> bool {
        node.kind() == SyntaxKind::Record && Self::tag_of(node) == "HEAD"
    }

    /// The file's header: its first record if that is `HEAD`; none in a later batch of a streamed file, whose
    /// first record is not the file's (a second `0 HEAD` there is a record like any other, as in the whole file).
    pub(super) fn file_header(&self) -> Option<gedgraft_syntax::ast::Record> {
        match self.later_batch {
            true => None,
            false => self.parse.document().header(),
        }
    }

    pub(super) fn is_trailer(node: &SyntaxNode) -> bool {
        node.kind() == SyntaxKind::Record && Self::tag_of(node) == "TRLR"
    }

    /// The header structure deciding the reading that `node` is or lies in, with its tag as written.
    fn reading(node: &SyntaxNode) -> Option<(Reading, String)> {
        node.ancestors().find_map(|a| {
            if a.kind() != SyntaxKind::Structure || !a.parent().is_some_and(|p| Self::is_header(&p))
            {
                return None;
            }
            let tag = Self::tag_of(&a);
            Reading::of_tag(&tag).map(|r| (r, tag))
        })
    }

    /// `HEAD.CHAR` (any case, as detection reads it) or a structure inside it (its `VERS`): they decide how the
    /// file is decoded.
    pub(super) fn is_charset(node: &SyntaxNode) -> bool {
        Self::reading(node).is_some_and(|(r, _)| r == Reading::Charset)
    }

    pub(super) fn protect(&self, node: &SyntaxNode, action: &str) -> Result<(), EditError> {
        let what = if Self::is_header(node) {
            "the header (`0 HEAD`)".to_string()
        } else if Self::is_trailer(node) {
            "the trailer (`0 TRLR`)".to_string()
        } else if let Some((reading, tag)) = Self::reading(node) {
            reading.describe(&tag)
        } else {
            return Ok(());
        };
        Err(EditError::Protected {
            what: format!("cannot {action} {what}"),
        })
    }

    /// Refuses a new identifier for a structure that may not have one: serialisation metadata or a structure in
    /// it (R-PARSING-METADATA-02: `HEAD.CHAR` with an identifier no longer says how the file is decoded), and
    /// the payload metadata lines `PLANG` and `DTYPE` (R-TAGS-03: an identifier makes `DTYPE` a structure,
    /// and the payload loses its datatype).
    pub(super) fn check_identifiable(&self, node: &SyntaxNode) -> Result<(), EditError> {
        let tag = Self::tag_of(node);
        let in_metadata =
            (node.ancestors().filter_map(Structure::cast)).any(|s| s.is_serialisation_metadata());
        if in_metadata || matches!(tag.as_str(), "PLANG" | "DTYPE") {
            return Err(EditError::Protected {
                what: format!(
                    "cannot give an identifier to `{tag}`: serialisation and payload metadata have none \
                     (R-PARSING-METADATA-02, R-TAGS-03)"
                ),
            });
        }
        Ok(())
    }

    /// Checks a new payload and identifier on their own against the file's dialect, as
    /// [`set_payload`](Editor::set_payload), [`set_pointer`](Editor::set_pointer),
    /// [`set_xref`](Editor::set_xref) and [`insert`](Editor::insert) check them before they change a structure:
    /// what no structure of this file can take (in GEDCOM 7, a carriage return or a control character in text,
    /// an identifier or pointer outside `[A-Z0-9_]+`; in any dialect, U+FFFE or an identifier with a space) is
    /// refused before anything is picked. A tool that edits a file batch by batch checks its arguments so before
    /// it writes the first batch.
    ///
    /// ```
    /// use gedgraft_edit::{Editor, NewPayload};
    /// let seven = gedgraft_syntax::parse(b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 TRLR\n");
    /// let editor = Editor::new(&seven);
    /// assert!(editor.check_new(&NewPayload::Pointer("F1".into()), Some("I9")).is_ok());
    /// assert!(editor.check_new(&NewPayload::None, Some("i9")).is_err());
    /// assert!(editor.check_new(&NewPayload::Text("a\rb".into()), None).is_err());
    /// ```
    pub fn check_new(&self, payload: &NewPayload, xref: Option<&str>) -> Result<(), EditError> {
        match payload {
            NewPayload::None => {}
            NewPayload::Text(text) => crate::dialect::check_new_text(self.parse, text)?,
            NewPayload::Pointer(id) => {
                super::check_xref(id)?;
                crate::dialect::check_pointer(self.parse, id)?;
            }
        }
        if let Some(id) = xref {
            super::check_xref(id)?;
            crate::dialect::check_xref(self.parse, id)?;
        }
        Ok(())
    }

    /// Refuses new text that is not ASCII while the file's reading is in doubt (see [`check_new_text`]), and
    /// text the dialect cannot hold ([`crate::dialect::check_new_text`]).
    pub(super) fn check_new_text(&self, text: &str) -> Result<(), EditError> {
        check_new_text(self.parse, text)?;
        crate::dialect::check_new_text(self.parse, text)
    }

    /// Refuses a rename (the tags `found` would get) that renames serialisation metadata or a structure inside
    /// it, or makes a header structure serialisation metadata: `0 HEAD / 1 _ENC windows-1252` renamed to `CHAR`
    /// (or `char`, which detection reads alike) would change how the whole file decodes. Only matches inside the
    /// header are looked at.
    pub(super) fn check_metadata_rename(
        &self,
        found: &[Splice],
        from: &str,
        to: &str,
    ) -> Result<(), EditError> {
        let Some(header) = self.file_header() else {
            return Ok(());
        };
        let range = header.syntax().text_range();
        let to_metadata = SERIALISATION_METADATA.contains(&to) || is_char_tag(to);
        for s in found {
            if !range.contains(s.parent.start.into()) {
                continue;
            }
            let Some(node) = self.node_at(s.parent.start) else {
                continue;
            };
            let renames_metadata = Structure::cast(node.clone())
                .is_some_and(|structure| structure.is_serialisation_metadata())
                || Self::is_charset(&node);
            let makes_metadata = to_metadata && node.parent().is_some_and(|p| Self::is_header(&p));
            if renames_metadata || makes_metadata {
                let line = self.line_of(u32::from(node.text_range().start()));
                return Err(EditError::Protected {
                    what: format!(
                        "cannot rename `{from}` to `{to}` on line {line} (`{}`): the header's {} (`CHAR` in \
                         any case) say how the whole file is read (its encoding, version, schema and language); \
                         transcode the file to change its encoding",
                        self.first_line_text(&node),
                        SERIALISATION_METADATA.join(", ")
                    ),
                });
            }
        }
        Ok(())
    }

    /// A structure's first line as written, without its line break, for a message.
    fn first_line_text(&self, node: &SyntaxNode) -> String {
        render::first_line_tokens(node)
            .filter(|t| t.kind() != SyntaxKind::LineBreak)
            .map(|t| t.text().to_string())
            .collect::<String>()
            .trim()
            .to_string()
    }

    /// Refuses to insert a structure that would change how the file is read: a `CHAR` (any case), `GEDC` or `ELF`
    /// directly under the header, or anything inside them; and new text that is not ASCII while the reading is
    /// in doubt.
    pub(super) fn check_charset_insert(
        &self,
        parent: &SyntaxNode,
        new: &super::NewStructure,
    ) -> Result<(), EditError> {
        Self::check_placement(parent, &new.tag)?;
        let mut stack = vec![new];
        while let Some(s) = stack.pop() {
            if let super::NewPayload::Text(text) = &s.payload {
                self.check_new_text(text)?;
            }
            stack.extend(s.children.iter());
        }
        Ok(())
    }

    /// Refuses to place a structure tagged `tag` (new, moved or copied) where it would change how the file is
    /// read: a `CHAR` (any case), `GEDC` or `ELF` directly under the header, or anything inside them.
    pub(super) fn check_placement(parent: &SyntaxNode, tag: &str) -> Result<(), EditError> {
        let added = Self::is_header(parent)
            .then(|| Reading::of_tag(tag).map(|r| (r, tag.to_string())))
            .flatten();
        if let Some((reading, tag)) = Self::reading(parent).or(added) {
            return Err(EditError::Protected {
                what: format!("cannot insert into or add {}", reading.describe(&tag)),
            });
        }
        Ok(())
    }
}
