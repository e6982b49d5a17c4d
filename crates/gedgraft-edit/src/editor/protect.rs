//! What edits may not touch: the header and trailer lines, and the header's serialisation metadata (`HEAD.CHAR`,
//! `GEDC`, `ELF`, `SCHMA`, `PLANG`), which decide how the whole file is read (R-HEADER-02). Changing `HEAD.CHAR`
//! changes how every octet decodes: only a transcode writes it.

use super::Editor;
use crate::error::EditError;
use crate::render;
use crate::splice::Splice;
use gedgraft_syntax::ast::{AstNode, Structure, SERIALISATION_METADATA};
use gedgraft_syntax::{SyntaxKind, SyntaxNode};

impl Editor<'_> {
    pub(super) fn tag_of(node: &SyntaxNode) -> String {
        render::first_line_tokens(node)
            .into_iter()
            .find(|t| t.kind() == SyntaxKind::Tag)
            .map_or(String::new(), |t| t.text().to_string())
    }

    pub(super) fn is_header(node: &SyntaxNode) -> bool {
        node.kind() == SyntaxKind::Record && Self::tag_of(node) == "HEAD"
    }

    pub(super) fn is_trailer(node: &SyntaxNode) -> bool {
        node.kind() == SyntaxKind::Record && Self::tag_of(node) == "TRLR"
    }

    /// `HEAD.CHAR` or a structure inside it (its `VERS`): they decide how the file is decoded.
    pub(super) fn is_charset(node: &SyntaxNode) -> bool {
        node.ancestors().any(|a| {
            a.kind() == SyntaxKind::Structure
                && Self::tag_of(&a) == "CHAR"
                && a.parent().is_some_and(|p| Self::is_header(&p))
        })
    }

    pub(super) fn protect(&self, node: &SyntaxNode, action: &str) -> Result<(), EditError> {
        let what = if Self::is_header(node) {
            "the header (`0 HEAD`)"
        } else if Self::is_trailer(node) {
            "the trailer (`0 TRLR`)"
        } else if Self::is_charset(node) {
            "`HEAD.CHAR`, which says how the file is encoded (transcode the file instead)"
        } else {
            return Ok(());
        };
        Err(EditError::Protected {
            what: format!("cannot {action} {what}"),
        })
    }

    /// Refuses a rename (the tags `found` would get) that renames serialisation metadata or a structure inside
    /// it, or makes a header structure serialisation metadata: `0 HEAD / 1 _ENC windows-1252` renamed to `CHAR`
    /// would change how the whole file decodes. Only matches inside the header are looked at.
    pub(super) fn check_metadata_rename(
        &self,
        found: &[Splice],
        from: &str,
        to: &str,
    ) -> Result<(), EditError> {
        let Some(header) = self.parse.document().header() else {
            return Ok(());
        };
        let range = header.syntax().text_range();
        for s in found {
            if !range.contains(s.parent.start.into()) {
                continue;
            }
            let Some(node) = self.node_at(s.parent.start) else {
                continue;
            };
            let renames_metadata = Structure::cast(node.clone())
                .is_some_and(|structure| structure.is_serialisation_metadata());
            let makes_metadata = SERIALISATION_METADATA.contains(&to)
                && node.parent().is_some_and(|p| Self::is_header(&p));
            if renames_metadata || makes_metadata {
                let line = self.line_of(u32::from(node.text_range().start()));
                return Err(EditError::Protected {
                    what: format!(
                        "cannot rename `{from}` to `{to}` on line {line}: the header's {} (R-HEADER-02) say how \
                         the whole file is read (its encoding, version, schema and language); transcode the \
                         file to change its encoding",
                        SERIALISATION_METADATA.join(", ")
                    ),
                });
            }
        }
        Ok(())
    }

    /// Refuses to insert a structure that would change how the file decodes: a `CHAR` directly under the header,
    /// or anything inside `HEAD.CHAR`.
    pub(super) fn check_charset_insert(
        &self,
        parent: &SyntaxNode,
        tag: &str,
    ) -> Result<(), EditError> {
        if Self::is_charset(parent) || (tag == "CHAR" && Self::is_header(parent)) {
            return Err(EditError::Protected {
                what: "cannot insert into `HEAD.CHAR` or add a `HEAD.CHAR`, which says how the file is encoded \
                       (transcode the file instead)"
                    .into(),
            });
        }
        Ok(())
    }
}
