//! Edits of one structure as a whole: giving it another tag, moving it, copying it. Their octets are kept; only
//! the tag, or the levels a new depth needs, change.

use super::conflicts::{Checked, Claim};
use super::*;

impl Editor<'_> {
    /// Gives one structure the tag `tag` (its continuation lines keep `CONT`/`CONC`). The per-structure
    /// counterpart of [`rename_tag`](Editor::rename_tag), with the same rules: `tag` must be a tag (R-TAGS-01)
    /// and not reserved (R-TAGS-03); the header, the trailer and serialisation metadata are never retagged, and no
    /// header structure becomes serialisation metadata ([`EditError::Protected`]).
    ///
    /// ```
    /// use gedgraft_syntax::Selector;
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 _UID 1\n1 _UID 2\n0 TRLR\n");
    /// let second = Selector::parse("INDI._UID").unwrap().select(&parse.document())[1].clone();
    /// let mut editor = gedgraft_edit::Editor::new(&parse);
    /// editor.set_tag(&second, "UID").unwrap();
    /// assert_eq!(editor.apply().unwrap().bytes(), b"0 HEAD\n0 @I1@ INDI\n1 _UID 1\n1 UID 2\n0 TRLR\n");
    /// ```
    pub fn set_tag(&mut self, structure: &Structure, tag: &str) -> Result<(), EditError> {
        check_tag_syntax(tag)?;
        if RESERVED.contains(&tag) {
            return Err(EditError::ReservedTag {
                tag: tag.to_string(),
                role: "the new tag",
            });
        }
        let node = self.own(structure)?;
        self.protect(&node, "retag")?;
        let info = line_info(&node);
        let Some(index) = info.tag else {
            return Err(EditError::Protected {
                what: "cannot retag a line that has no tag".into(),
            });
        };
        let Some(old) = info.tokens.get(index) else {
            return Err(EditError::ForeignNode);
        };
        let from = old.text().to_string();
        if from == tag {
            return Ok(());
        }
        let line = self.line_of(u32::from(node.text_range().start()));
        let what = format!("retagging line {line} from `{from}` to `{tag}`");
        self.check_claim(&node, Claim::Change, &what)?;
        let edit = self.edits.len();
        let splice = Splice::new(
            &node,
            index..index + 1,
            vec![NodeOrToken::Token(token(SyntaxKind::Tag, tag))],
            edit,
        );
        self.check_metadata_rename(std::slice::from_ref(&splice), &from, tag)?;
        self.new_edit(what);
        self.record_claim(&node, Claim::Change, edit);
        self.splices.push(splice);
        self.count += 1;
        Ok(())
    }

    /// Moves a structure, with its continuation lines and substructures, to `position` relative to `anchor`. Its
    /// octets are kept as they are (indentation, line breaks, payload, malformed lines inside it) except the
    /// levels, which are renumbered for the new depth. Its cross-reference identifier goes with it, so pointers
    /// to it still find it.
    ///
    /// Refused for the header, the trailer and `HEAD.CHAR`, into or next to the structure itself or anything
    /// inside it, and where [`insert`](Editor::insert) would refuse a new structure (before the header, after the
    /// trailer, into `HEAD.CHAR`).
    ///
    /// ```
    /// use gedgraft_edit::{Editor, Position};
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n1 _MARNM Jones\n2 _SRC x\n0 TRLR\n");
    /// let indi = parse.document().record_by_xref("I1").unwrap();
    /// let mut subs = indi.substructures();
    /// let (name, marnm) = (subs.next().unwrap(), subs.next().unwrap());
    /// let mut editor = Editor::new(&parse);
    /// editor.move_to(&marnm, &name, Position::LastChild).unwrap();
    /// assert_eq!(
    ///     editor.apply().unwrap().bytes(),
    ///     b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n2 _MARNM Jones\n3 _SRC x\n0 TRLR\n"
    /// );
    /// ```
    pub fn move_to(
        &mut self,
        structure: &Structure,
        anchor: &Structure,
        position: Position,
    ) -> Result<(), EditError> {
        let node = self.own(structure)?;
        self.protect(&node, "move")?;
        let Some(parent) = node.parent() else {
            return Err(EditError::ForeignNode);
        };
        let anchor_node = self.own(anchor)?;
        if anchor_node.ancestors().any(|a| a == node) {
            return Err(EditError::Protected {
                what:
                    "cannot move a structure into, before or after itself or a structure inside it"
                        .into(),
            });
        }
        self.place(&node, &anchor_node, position, Some(&parent))
    }

    /// Copies a structure, with its continuation lines and substructures, to `position` relative to `anchor`,
    /// keeping its octets (formatting, escapes, encoding) except the levels, which are renumbered for the new
    /// depth: the way to repeat an existing structure rather than re-typing it as a
    /// [`NewStructure`](crate::NewStructure). A structure that has, or holds one that has, a cross-reference
    /// identifier is refused ([`EditError::DuplicateXref`]): identifiers are unique.
    ///
    /// ```
    /// use gedgraft_edit::{Editor, Position};
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 SOUR @S1@\n2 PAGE p. 4\n0 @I2@ INDI\n0 TRLR\n");
    /// let doc = parse.document();
    /// let sour = doc.record_by_xref("I1").unwrap().substructures().next().unwrap();
    /// let mut editor = Editor::new(&parse);
    /// editor.copy_to(&sour, &doc.record_by_xref("I2").unwrap(), Position::LastChild).unwrap();
    /// assert_eq!(
    ///     editor.apply().unwrap().bytes(),
    ///     b"0 HEAD\n0 @I1@ INDI\n1 SOUR @S1@\n2 PAGE p. 4\n0 @I2@ INDI\n1 SOUR @S1@\n2 PAGE p. 4\n0 TRLR\n"
    /// );
    /// ```
    pub fn copy_to(
        &mut self,
        structure: &Structure,
        anchor: &Structure,
        position: Position,
    ) -> Result<(), EditError> {
        let node = self.own(structure)?;
        self.protect(&node, "copy")?;
        if let Some(id) = structure
            .xref()
            .or_else(|| structure.descendants().find_map(|s| s.xref()))
        {
            return Err(EditError::DuplicateXref {
                id: id.id().to_string(),
            });
        }
        let anchor_node = self.own(anchor)?;
        self.place(&node, &anchor_node, position, None)
    }

    /// Places a copy of `node`, relevelled, at `position` relative to `anchor`; with `from`, its parent, the
    /// node leaves its place (a move), else it stays (a copy).
    fn place(
        &mut self,
        node: &SyntaxNode,
        anchor: &SyntaxNode,
        position: Position,
        from: Option<&SyntaxNode>,
    ) -> Result<(), EditError> {
        let (to_parent, index, level) = self.destination(anchor, position)?;
        let green = self.relevelled(node, level)?;
        Self::check_placement(&to_parent, &Self::tag_of(node))?;
        let what = format!(
            "{} line {} (`{}`) near line {}",
            if from.is_some() { "moving" } else { "copying" },
            self.line_of(u32::from(node.text_range().start())),
            Self::tag_of(node),
            self.line_of(u32::from(anchor.text_range().start()))
        );
        self.check_claim(anchor, Claim::Read, &what)?;
        let claim = if from.is_some() {
            Claim::Remove
        } else {
            Claim::Read
        };
        if self.check_claim(node, claim, &what)? == Checked::AlreadyGone {
            return Err(EditError::Overlap {
                first: "an earlier edit removing the structure around it".into(),
                second: what,
            });
        }
        let edit = self.new_edit(what);
        self.record_claim(node, claim, edit);
        if let Some(parent) = from {
            let i = node.index();
            self.splices
                .push(Splice::new(parent, i..i + 1, Vec::new(), edit));
        }
        self.break_before_end(&to_parent, index, edit);
        self.splices.push(Splice::new(
            &to_parent,
            index..index,
            vec![NodeOrToken::Node(green)],
            edit,
        ));
        self.count += 1;
        Ok(())
    }

    /// A copy of `node`'s green subtree whose levels are shifted so that its first line is at `level`: a record
    /// at level 0, a structure deeper. Refused for a subtree whose last line has no line break (the end of a file
    /// with no final line break): its lines would run into what follows.
    fn relevelled(&self, node: &SyntaxNode, level: usize) -> Result<GreenNode, EditError> {
        if node
            .last_token()
            .is_some_and(|t| t.kind() != SyntaxKind::LineBreak)
        {
            return Err(EditError::Protected {
                what: "cannot move or copy a structure that ends the file without a line break"
                    .into(),
            });
        }
        let from = line_info(node).level;
        let shift = |old: usize| {
            if level >= from {
                old.saturating_add(level - from)
            } else {
                old.saturating_sub(from - level)
            }
        };
        let relevel = |t: &rowan::GreenTokenData| {
            (t.kind() == SyntaxKind::Level.into()).then(|| {
                let old = Level::value_of(t.text()).unwrap_or(0);
                token(SyntaxKind::Level, &shift(old).to_string())
            })
        };
        let mapped = crate::transform::map_tokens(node.green(), &relevel);
        let kind = if level == 0 {
            SyntaxKind::Record
        } else {
            SyntaxKind::Structure
        };
        if mapped.kind() == kind.into() {
            return Ok(mapped);
        }
        let children: Vec<GreenElement> = mapped.children().map(|c| c.to_owned()).collect();
        Ok(GreenNode::new(kind.into(), children))
    }
}
