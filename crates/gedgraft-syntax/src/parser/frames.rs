//! The parser's stack of open structures: a frame per structure, opened under the innermost one, closed into a
//! green node (or a shared leaf from the line cache).

use super::Parser;
use crate::green::{CachedFacts, GreenElement, LineKey, Template};
use crate::kind::SyntaxKind;
use rowan::NodeOrToken;

/// Below this many frames of room the stack keeps what it has.
const MIN_SHRUNK_STACK: usize = 1 << 12;

/// An open structure.
pub(super) struct Frame {
    pub(super) kind: SyntaxKind,
    /// The level (a parsed level fits: [`MAX_LEVEL`](crate::MAX_LEVEL) is `u32::MAX`); `u32` keeps the frames
    /// of deep nesting small.
    level: u32,
    pub(super) children: Vec<GreenElement>,
    pub(super) has_substructure: bool,
    /// Whether the structure's first line has a pointer payload.
    pub(super) pointer_payload: bool,
    /// A structure from the [`LineCache`] standing for the first line's tokens until anything else joins the
    /// structure (then its tokens are copied into `children`); if it is a leaf and nothing joins, it is the node.
    pub(super) shared: Option<Template>,
    /// The first line's key, if the structure may go into the cache.
    pub(super) shareable: Option<LineKey>,
    /// Whether the first line was found in the cache.
    pub(super) from_cache: bool,
    /// How many children the first line has: a structure that still has that many when it closes is a leaf.
    pub(super) first_len: u32,
}

impl Frame {
    /// The frame of a structure whose first line has `level` and the tokens `children`.
    pub(super) fn for_line(level: usize, children: Vec<GreenElement>) -> Frame {
        let kind = if level == 0 {
            SyntaxKind::Record
        } else {
            SyntaxKind::Structure
        };
        Frame::new(kind, level, children)
    }

    pub(super) fn new(kind: SyntaxKind, level: usize, children: Vec<GreenElement>) -> Frame {
        Frame {
            kind,
            level: u32::try_from(level).unwrap_or(u32::MAX),
            first_len: u32::try_from(children.len()).unwrap_or(u32::MAX),
            children,
            has_substructure: false,
            pointer_payload: false,
            shared: None,
            shareable: None,
            from_cache: false,
        }
    }
}

impl Frame {
    pub(super) fn level(&self) -> usize {
        self.level as usize
    }
}

impl Parser<'_> {
    pub(super) fn top(&mut self) -> &mut Frame {
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    /// The innermost open structure's children, ready for more (a shared leaf's tokens are copied in first).
    pub(super) fn top_children(&mut self) -> &mut Vec<GreenElement> {
        let last = self.stack.len() - 1;
        let frame = &mut self.stack[last];
        if let Some(template) = frame.shared.take() {
            frame.children = self.factory.buffer();
            frame.children.extend(template.line_tokens());
        }
        &mut frame.children
    }

    /// Closes every open structure whose level is `level` or deeper.
    pub(super) fn close_from(&mut self, level: usize) {
        while self.stack.len() > 1 && self.stack[self.stack.len() - 1].level() >= level {
            self.close_top();
            // Closing deep nesting builds a node per level: the stack gives its room back as it goes, so that
            // the frames and the nodes replacing them are not held at once. Shrinking to twice what is left once
            // under a quarter is used keeps this amortised constant per frame, and asks for less than half the
            // block: an allocator may keep a block that is asked to shrink by half or less (mimalloc does).
            let (len, capacity) = (self.stack.len(), self.stack.capacity());
            if capacity >= MIN_SHRUNK_STACK && len < capacity / 4 {
                self.stack.shrink_to(len.saturating_mul(2));
            }
        }
    }

    pub(super) fn close_top(&mut self) {
        if let Some(mut frame) = self.stack.pop() {
            let node = match frame.shared.take() {
                Some(template) if template.is_leaf() => template.node,
                shared => {
                    // A structure of its own; a template that is not a leaf lends its tokens to a leaf here.
                    if let Some(template) = shared {
                        frame.children = self.factory.buffer();
                        frame.children.extend(template.line_tokens());
                    }
                    let leaf = frame.children.len() == frame.first_len as usize;
                    let node = self.factory.node(frame.kind, frame.children);
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

    /// Opens `frame` under the innermost open structure.
    pub(super) fn open(&mut self, frame: Frame) {
        let top = self.top();
        if top.kind != SyntaxKind::Document {
            top.has_substructure = true;
        }
        self.stack.push(frame);
        self.max_depth = self.max_depth.max(self.stack.len());
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
        assert!(std::mem::size_of::<super::Frame>() <= 72);
        assert_eq!(
            std::mem::size_of::<Option<crate::green::LineKey>>(),
            std::mem::size_of::<crate::green::LineKey>()
        );
    }
}
