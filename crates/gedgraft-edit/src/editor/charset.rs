//! Recording a transcode's new encoding in the header: `HEAD.CHAR` and the `VERS` line under it, written as
//! genealogy programs read them ([`gedgraft_encoding::declaration`]).

use super::{Editor, NewStructure, Value};
use crate::dialect;
use crate::error::EditError;
use crate::splice::Splice;
use gedgraft_encoding::{declaration, declared_encoding, is_char_tag, Encoding};
use gedgraft_syntax::ast::{AstNode, AstToken, Structure};
use rowan::NodeOrToken;

/// Whether `s` has the tag `tag`.
fn tagged(s: &Structure, tag: &str) -> bool {
    s.tag().is_some_and(|t| t.text() == tag)
}

/// The payload of `s` as written, if it has one.
fn payload_text(s: &Structure) -> Option<String> {
    s.payload().map(|p| p.raw_text())
}

impl Editor<'_> {
    /// The splices that record a transcode's new encoding in `HEAD.CHAR` (and its `VERS`). In a file read as
    /// `to`, a declaration that already reads as `to` (`ANSI` for windows-1252, `IBM WINDOWS`, `LATIN1`, …) is
    /// left as it is.
    pub(super) fn charset_splices(&mut self, to: Encoding) -> Result<(), EditError> {
        let Some(header) = self.file_header() else {
            return Err(EditError::Protected {
                what: "cannot transcode a file with no header: `HEAD.CHAR` must record the new encoding".into(),
            });
        };
        let edit = self.edits.len().saturating_sub(1);
        let wanted = declaration(to);
        // The line detection reads: `CHAR` in any case (`1 char UTF-8` is rewritten, not joined by a second).
        let char_structure = header
            .substructures()
            .find(|s| s.tag().is_some_and(|t| is_char_tag(t.text())));
        let Some(c) = char_structure else {
            if dialect::has_no_char(self.parse) {
                return Ok(());
            }
            let node = header.syntax().clone();
            let style = self.style_near(&node);
            let mut new = NewStructure::new("CHAR").text(wanted.char);
            if let Some(v) = wanted.vers {
                new = new.child(NewStructure::new("VERS").text(v));
            }
            let green = self.render_new(&new, 1, &style);
            let n = node.children_with_tokens().count();
            self.break_before_end(&node, n, edit);
            self.splices.push(Splice::new(
                &node,
                n..n,
                vec![NodeOrToken::Node(green)],
                edit,
            ));
            return Ok(());
        };
        // Detection reads a `VERS` only on the line right after `CHAR` (R-SPECIFIED-ENC-13).
        let first_vers = c.substructures().next().filter(|v| tagged(v, "VERS"));
        let present = payload_text(&c).and_then(|value| {
            let vers = first_vers.as_ref().and_then(payload_text);
            declared_encoding(&value, vers.as_deref(), Some(to).filter(|e| e.is_utf16()))
        });
        // Kept only when the file was read as `to` already: a UTF-16 file's `UNICODE` (which reads as UTF-8 in
        // an 8-bit file) becomes `UTF-8` when it is transcoded to UTF-8.
        if present == Some(to) && self.parse.encoding() == to {
            return Ok(());
        }
        let node = c.syntax().clone();
        self.replace_payload(&node, Value::Text(wanted.char), edit, Encoding::Ascii);
        let mut kept_vers = false;
        for v in c.substructures().filter(|v| tagged(v, "VERS")) {
            let n = v.syntax().clone();
            match wanted.vers {
                Some(value) if !kept_vers && first_vers.as_ref() == Some(&v) => {
                    self.replace_payload(&n, Value::Text(value), edit, Encoding::Ascii);
                    kept_vers = true;
                }
                _ => {
                    let i = n.index();
                    self.splices
                        .push(Splice::new(&node, i..i + 1, Vec::new(), edit));
                }
            }
        }
        if let (Some(value), false) = (wanted.vers, kept_vers) {
            let style = self.style_near(&node);
            let green = self.render_new(&NewStructure::new("VERS").text(value), 2, &style);
            // The first child after CHAR's own line (and any continuation lines), before its substructures.
            let index = node
                .children_with_tokens()
                .position(|e| {
                    matches!(
                        e.kind(),
                        gedgraft_syntax::SyntaxKind::Structure
                            | gedgraft_syntax::SyntaxKind::Record
                    )
                })
                .unwrap_or_else(|| node.children_with_tokens().count());
            self.break_before_end(&node, index, edit);
            self.splices.push(Splice::new(
                &node,
                index..index,
                vec![NodeOrToken::Node(green)],
                edit,
            ));
        }
        Ok(())
    }
}
