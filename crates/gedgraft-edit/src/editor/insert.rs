//! Inserting new structures: argument checks and rendering in the file's conventions.

use super::*;

impl Editor<'_> {
    /// Inserts `new` (with its substructures) relative to `anchor`. Its lines are written in the anchor's style
    /// (indentation, delimiter, separator, line break) and the file's encoding.
    ///
    /// Tags must be valid and not `HEAD`, `TRLR`, `CONC` or `CONT` (R-TAGS-01, -03; `PLANG` and `DTYPE` are allowed
    /// since they are meant to be inserted where they belong). Nothing may go before the header, after the
    /// trailer, or into the trailer.
    ///
    /// ```
    /// use gedgraft_edit::{Editor, NewStructure, Position};
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n  0 @I1@ INDI\n    1 NAME Bob\n  0 TRLR");
    /// let indi = parse.document().record_by_xref("I1").unwrap();
    /// let mut editor = Editor::new(&parse);
    /// let birth = NewStructure::new("BIRT").child(NewStructure::new("DATE").text("1901"));
    /// editor.insert(&indi, Position::LastChild, &birth).unwrap();
    /// let edited = editor.apply().unwrap();
    /// assert_eq!(edited.bytes(), b"0 HEAD\n  0 @I1@ INDI\n    1 NAME Bob\n    1 BIRT\n      2 DATE 1901\n  0 TRLR");
    /// ```
    pub fn insert(
        &mut self,
        anchor: &Structure,
        position: Position,
        new: &NewStructure,
    ) -> Result<(), EditError> {
        let node = self.own(anchor)?;
        let (parent, index, level) = self.destination(&node, position)?;
        self.check_new_tree(new)?;
        self.check_charset_insert(&parent, new)?;
        let line = self.line_of(u32::from(node.text_range().start()));
        let what = format!("inserting `{}` near line {line}", new.tag);
        self.check_claim(&node, super::conflicts::Claim::Read, &what)?;
        let edit = self.new_edit(what);
        let style = self.style_near(&node);
        let green = self.render_new(new, level, &style);
        self.break_before_end(&parent, index, edit);
        self.splices.push(Splice::new(
            &parent,
            index..index,
            vec![NodeOrToken::Node(green)],
            edit,
        ));
        self.count += 1;
        Ok(())
    }

    /// Where a structure placed at `position` relative to `anchor` goes: its parent, its child index there, and
    /// its level. Nothing may go before the header, after the trailer, or into the trailer.
    pub(super) fn destination(
        &self,
        anchor: &SyntaxNode,
        position: Position,
    ) -> Result<(SyntaxNode, usize, usize), EditError> {
        let node = anchor;
        Ok(match position {
            Position::Before | Position::After => {
                if position == Position::Before && Self::is_header(node) {
                    return Err(EditError::Protected {
                        what: "nothing can go before the header".into(),
                    });
                }
                if position == Position::After && Self::is_trailer(node) {
                    return Err(EditError::Protected {
                        what: "nothing can go after the trailer".into(),
                    });
                }
                let Some(parent) = node.parent() else {
                    return Err(EditError::ForeignNode);
                };
                let i = node.index() + usize::from(position == Position::After);
                (parent, i, line_info(node).level)
            }
            Position::FirstChild | Position::LastChild => {
                if Self::is_trailer(node) {
                    return Err(EditError::Protected {
                        what: "nothing can go into the trailer".into(),
                    });
                }
                let count = node.children_with_tokens().count();
                let i = match position {
                    Position::FirstChild => node
                        .children_with_tokens()
                        .position(|c| {
                            matches!(c.kind(), SyntaxKind::Structure | SyntaxKind::Record)
                        })
                        .unwrap_or(count),
                    _ => count,
                };
                (node.clone(), i, line_info(node).level.saturating_add(1))
            }
        })
    }

    /// Inserts a new record just before the trailer (at the end if there is none).
    ///
    /// ```
    /// use gedgraft_edit::{Editor, NewStructure};
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 TRLR\n");
    /// let mut editor = Editor::new(&parse);
    /// editor.insert_record(&NewStructure::new("NOTE").xref("N1").text("hello")).unwrap();
    /// assert_eq!(editor.apply().unwrap().bytes(), b"0 HEAD\n0 @N1@ NOTE hello\n0 TRLR\n");
    /// ```
    pub fn insert_record(&mut self, new: &NewStructure) -> Result<(), EditError> {
        let document = self.parse.document();
        if let Some(trailer) = document.trailer() {
            return self.insert(&trailer, Position::Before, new);
        }
        match document.records().last() {
            Some(last) => self.insert(&last, Position::After, new),
            None => Err(EditError::Protected {
                what: "cannot insert a record into a file with no records".into(),
            }),
        }
    }

    /// If `index` in `parent` is the end of the text and the text does not end with a line break, adds one to
    /// the last line, so that new lines start on a line of their own.
    pub(super) fn break_before_end(&mut self, parent: &SyntaxNode, index: usize, edit: usize) {
        if !splice::inserts_at_end(parent, index)
            || parent.text_range().end() != self.root.text_range().end()
        {
            return;
        }
        let Some(last) = self.root.last_token() else {
            return;
        };
        if last.kind() == SyntaxKind::LineBreak {
            return;
        }
        let Some(holder) = last.parent() else { return };
        let style = self.style_near(&holder);
        let n = holder.children_with_tokens().count();
        self.splices.push(Splice::new(
            &holder,
            n..n,
            vec![NodeOrToken::Token(token(
                SyntaxKind::LineBreak,
                &style.line_break,
            ))],
            edit,
        ));
    }

    /// Checks the tags, identifiers and pointers of a new structure tree (iteratively).
    fn check_new_tree(&mut self, new: &NewStructure) -> Result<(), EditError> {
        let mut stack = vec![new];
        while let Some(s) = stack.pop() {
            check_tag_syntax(&s.tag)?;
            if matches!(s.tag.as_str(), "HEAD" | "TRLR" | "CONC" | "CONT") {
                return Err(EditError::ReservedTag {
                    tag: s.tag.clone(),
                    role: "a new structure's tag",
                });
            }
            if let Some(id) = &s.xref {
                self.check_new(&NewPayload::None, Some(id))?;
                if !self.added_ids.insert(id.clone()) {
                    return Err(EditError::DuplicateXref { id: id.clone() });
                }
                self.new_ids.push((id.clone(), None));
            }
            if let NewPayload::Pointer(id) = &s.payload {
                self.check_new(&s.payload, None)?;
                self.pointed.push(id.clone());
            }
            stack.extend(s.children.iter());
        }
        Ok(())
    }

    /// The green node of a new structure tree at `level` (iterative, children after their parent's lines).
    pub(super) fn render_new(&self, new: &NewStructure, level: usize, style: &Style) -> GreenNode {
        let encoding = self.parse.encoding();
        // Post-order with an explicit stack: (structure, level, rendered children so far).
        struct Pending<'a> {
            s: &'a NewStructure,
            level: usize,
            next: usize,
            children: Vec<GreenElement>,
        }
        let lines_of = |s: &NewStructure, level: usize| -> Vec<GreenElement> {
            let head = style.head(level, s.xref.as_deref(), &s.tag);
            let head_text: String = head.iter().map(|t| t.text()).collect();
            let mut out: Vec<GreenElement> = head.into_iter().map(NodeOrToken::Token).collect();
            let b = style.line_break.as_str();
            match &s.payload {
                NewPayload::None => out.push(NodeOrToken::Token(token(SyntaxKind::LineBreak, b))),
                NewPayload::Pointer(id) => {
                    out.push(NodeOrToken::Token(token(
                        SyntaxKind::PayloadSep,
                        &style.sep,
                    )));
                    out.push(NodeOrToken::Token(token(
                        SyntaxKind::Pointer,
                        &format!("@{id}@"),
                    )));
                    out.push(NodeOrToken::Token(token(SyntaxKind::LineBreak, b)));
                }
                NewPayload::Text(v) => {
                    let segments = dialect::segments(self.parse, &s.tag, v, encoding);
                    let budget = self.budget(&head_text, style, level, encoding);
                    let laid = render::lay_out_payload(segments, budget);
                    render::push_first_payload(&mut out, &style.sep, &laid.first);
                    out.push(NodeOrToken::Token(token(SyntaxKind::LineBreak, b)));
                    out.extend(continuation_nodes(laid.more, style, level, |_| Some(b)));
                }
            }
            out
        };
        let mut stack = vec![Pending {
            s: new,
            level,
            next: 0,
            children: lines_of(new, level),
        }];
        loop {
            let Some(top) = stack.last_mut() else {
                // Unreachable: the loop returns when the root is done.
                return GreenNode::new(SyntaxKind::Structure.into(), std::iter::empty());
            };
            if let Some(child) = top.s.children.get(top.next) {
                top.next += 1;
                let l = top.level.saturating_add(1);
                let lines = lines_of(child, l);
                stack.push(Pending {
                    s: child,
                    level: l,
                    next: 0,
                    children: lines,
                });
                continue;
            }
            let Some(done) = stack.pop() else { continue };
            let kind = if done.level == 0 {
                SyntaxKind::Record
            } else {
                SyntaxKind::Structure
            };
            let node = GreenNode::new(kind.into(), done.children);
            match stack.last_mut() {
                Some(parent) => parent.children.push(NodeOrToken::Node(node)),
                None => return node,
            }
        }
    }
}
