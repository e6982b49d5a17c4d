//! The parser's stack of open structures: a frame per structure, opened under the innermost one, closed into a
//! green node (or a shared leaf from the line cache). The children of every open structure lie in one stack of
//! elements (the parser's `children`), each frame's after its parent's: an open structure costs its
//! frame and its elements, with no buffer of its own that grows when its substructure closes, and both stacks
//! are kept in blocks given back as they empty ([`Chunked`]; #12: deep nesting holds a frame per level).

use super::chunked::Chunked;
use super::Parser;
use crate::green::{CachedFacts, GreenElement, LineKey, Template};
use crate::kind::SyntaxKind;
use rowan::{GreenNode, NodeOrToken};

/// How many frames a block of the stack of open structures holds (48 KiB).
pub(super) const FRAME_BLOCK: usize = 1 << 10;
/// How many elements a block of the stack of children holds (64 KiB).
pub(crate) const CHILD_BLOCK: usize = 1 << 12;

/// An open structure.
pub(super) struct Frame {
    pub(super) kind: SyntaxKind,
    /// The level (a parsed level fits: [`MAX_LEVEL`](crate::MAX_LEVEL) is `u32::MAX`); `u32` keeps the frames
    /// of deep nesting small.
    level: u32,
    /// Where its children start in the parser's stack of elements (they run to the end of it while it is the
    /// innermost open structure).
    start: usize,
    pub(super) has_substructure: bool,
    /// Whether the structure's first line has a pointer payload.
    pub(super) pointer_payload: bool,
    /// A structure from the [`LineCache`](crate::green::LineCache) whose first `first_len` children are the
    /// first line's tokens, standing for them until anything else joins the structure (then they are copied
    /// onto the stack of elements); if it is a leaf and nothing joins, it is the node.
    pub(super) shared: Option<GreenNode>,
    /// The first line's key, if the structure may go into the cache.
    pub(super) shareable: Option<LineKey>,
    /// Whether the first line was found in the cache.
    pub(super) from_cache: bool,
    /// How many children the first line has: a structure that still has that many when it closes is a leaf.
    pub(super) first_len: u32,
}

impl Frame {
    /// The frame of a structure whose first line has `level` and `first_len` tokens (given to
    /// [`Parser::open`]).
    pub(super) fn for_line(level: usize, first_len: usize) -> Frame {
        let kind = if level == 0 {
            SyntaxKind::Record
        } else {
            SyntaxKind::Structure
        };
        Frame::new(kind, level, first_len)
    }

    pub(super) fn new(kind: SyntaxKind, level: usize, first_len: usize) -> Frame {
        Frame {
            kind,
            level: u32::try_from(level).unwrap_or(u32::MAX),
            start: 0,
            first_len: u32::try_from(first_len).unwrap_or(u32::MAX),
            has_substructure: false,
            pointer_payload: false,
            shared: None,
            shareable: None,
            from_cache: false,
        }
    }

    /// The shared structure as a template of the first line's tokens.
    fn template(&self, node: GreenNode) -> Template {
        Template {
            node,
            first_len: self.first_len as usize,
        }
    }
}

impl Frame {
    pub(super) fn level(&self) -> usize {
        self.level as usize
    }
}

impl Parser<'_> {
    /// The innermost open structure: the document's frame when no other is open.
    pub(super) fn top(&mut self) -> &mut Frame {
        self.stack.last_mut().unwrap_or(&mut self.document)
    }

    /// The stack of elements, ready for more children of the innermost open structure (a shared leaf's tokens
    /// are copied in first).
    pub(super) fn top_children(&mut self) -> &mut Chunked<GreenElement, CHILD_BLOCK> {
        let frame = self.top();
        if let Some(node) = frame.shared.take() {
            let template = frame.template(node);
            self.children.extend(template.line_tokens());
        }
        &mut self.children
    }

    /// Closes every open structure whose level is `level` or deeper.
    pub(super) fn close_from(&mut self, level: usize) {
        while self
            .stack
            .last_mut()
            .is_some_and(|top| top.level() >= level)
        {
            self.close_top();
        }
    }

    pub(super) fn close_top(&mut self) {
        if let Some(mut frame) = self.stack.pop() {
            let node = match frame.shared.take().map(|node| frame.template(node)) {
                Some(template) if template.is_leaf() => template.node,
                shared => {
                    // A structure of its own; a template that is not a leaf lends its tokens to a leaf here
                    // (nothing joined it, so its children start at the end of the stack).
                    if let Some(template) = shared {
                        self.children.extend(template.line_tokens());
                    }
                    let kind = frame.kind.into();
                    let (leaf, node) = self.children.drain_into(frame.start, |children| {
                        let leaf = children.len() == frame.first_len as usize;
                        (leaf, GreenNode::new(kind, children))
                    });
                    // A line that came from the cache is only put back as a leaf, so a line that is sometimes a
                    // leaf and sometimes not keeps its shareable leaf in the cache.
                    if let Some(key) = frame.shareable.filter(|_| leaf || !frame.from_cache) {
                        let facts = CachedFacts {
                            level: frame.level as usize,
                            pointer_payload: frame.pointer_payload,
                        };
                        self.line_cache
                            .insert(key, facts, &node, frame.first_len as usize);
                    }
                    node
                }
            };
            self.top_children().push(NodeOrToken::Node(node));
        }
    }

    /// Opens `frame` under the innermost open structure, its first line's tokens taken from `tokens` (left
    /// empty; none when the frame has a shared structure standing for them).
    pub(super) fn open(&mut self, mut frame: Frame, tokens: &mut Vec<GreenElement>) {
        let top = self.top();
        if top.kind != SyntaxKind::Document {
            top.has_substructure = true;
        }
        frame.start = self.children.len();
        self.children.append(tokens);
        self.stack.push(frame);
        // The document's frame is one more.
        self.max_depth = self.max_depth.max(self.stack.len() + 1);
    }

    /// Whether a continuation line of `level` continues the innermost open structure.
    pub(super) fn continues_top(&mut self, level: usize) -> bool {
        let top = self.top();
        top.kind != SyntaxKind::Document
            && top.level().saturating_add(1) == level
            && !top.has_substructure
    }
}

#[cfg(test)]
mod tests {
    /// Issue #12: deep nesting holds one frame per open level (400 000 for a 4 MB file of one level deeper
    /// on every line), so a frame's size is part of the peak.
    #[test]
    fn a_frame_stays_small() {
        assert!(std::mem::size_of::<super::Frame>() <= 48);
        assert_eq!(
            std::mem::size_of::<Option<crate::green::LineKey>>(),
            std::mem::size_of::<crate::green::LineKey>()
        );
    }
}
