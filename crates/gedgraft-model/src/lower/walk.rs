//! The walk of a structure's subtree ([`Builder::lower_tree`]): every structure lowered in pre-order with an
//! explicit stack, repeated leaves taken from a cache by their shared green node, and the structures' ends set
//! after the walk.

use super::left_out::nests_in;
use super::{is_annotation, line_u32, Builder, Mode};
use crate::dataset::{Stored, Str, Structure, NONE};
use gedgraft_syntax::internal::green_view::{is_line_break, LineInfo, Node, Token};
use gedgraft_syntax::rowan::NodeOrToken;
use gedgraft_syntax::SyntaxKind;

/// The number of entries of [`Builder::leaves`].
pub(super) const LEAF_CACHE_BITS: u32 = 12;

/// The slot of an address in a direct-mapped cache of `2^bits` entries (Fibonacci hashing: the top bits of
/// the product).
pub(super) fn cache_slot(address: usize, bits: u32) -> usize {
    ((address as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
}

/// A leaf structure as lowered: what another structure with the same green node gets.
#[derive(Debug, Clone, Copy)]
pub(super) struct Leaf {
    tag: Str,
    payload: Stored,
    line_break: bool,
}

/// An empty slot of [`Builder::leaves`] (no green node has address 0).
pub(super) const NO_LEAF: (usize, Leaf) = (
    0,
    Leaf {
        tag: Str::EMPTY,
        payload: Stored::None,
        line_break: false,
    },
);

impl<'p> Builder<'p> {
    /// Lowers a structure and its substructures in pre-order and returns its local id. `self.line` is the line
    /// the structure starts on; on return it is the line after the structure's last line break. `is_record`:
    /// whether the structure is a record (not a metadata structure).
    ///
    /// One walk over the subtree's elements with an explicit stack: each structure's first line is read once,
    /// when the structure is met; it is lowered then, or, if it is a payload annotation (`PLANG`/`DTYPE`, not
    /// in serialisation metadata), applied to its parent's payload. Every line break passed (in first lines,
    /// continuation lines, malformed lines, blank lines and payload annotations) moves `line` on.
    pub(super) fn lower_tree(&mut self, root: Node<'p>, mode: Mode, is_record: bool) -> u32 {
        let line = root.line();
        let level = root
            .level()
            .map_or(0, |l| u32::try_from(l).unwrap_or(u32::MAX));
        let root_owner = self.lower_one(root, &line, NONE, level, is_record, mode);
        let root_id = root_owner.id;
        self.line += usize::from(line.line_break);
        let mut stack = std::mem::take(&mut self.stack);
        stack.push((line.rest, Some(root_owner)));
        while let Some((elements, owner)) = stack.last_mut() {
            let Some((element, start)) = elements.next() else {
                stack.pop();
                continue;
            };
            let node = match element {
                NodeOrToken::Token(t) => {
                    self.line += usize::from(is_line_break(t));
                    continue;
                }
                NodeOrToken::Node(n) => Node::new(n, start),
            };
            let Some(owner) = owner.as_mut() else {
                stack.push((node.elements(), None));
                continue;
            };
            if node.kind() == SyntaxKind::Line {
                // A continuation line, merged into the owner's payload.
                self.keep_line();
                stack.push((node.elements(), None));
                continue;
            }
            if !nests_in(node, Some(owner.level as usize)) {
                self.line += self.leave_out(node);
                continue;
            }
            self.keep_line();
            if mode == Mode::Normal && self.reuse_leaf(node, owner.id) {
                continue;
            }
            let line = node.line();
            let lowered = if mode == Mode::Normal && is_annotation(line.tag.map(Token::text)) {
                self.annotation(node, &line, owner);
                None
            } else {
                let diagnostics = self.sink.diagnostics.len();
                let lowered = self.lower_one(
                    node,
                    &line,
                    owner.id,
                    owner.level.saturating_add(1),
                    false,
                    mode,
                );
                if mode == Mode::Normal && self.sink.diagnostics.len() == diagnostics {
                    self.remember_leaf(node, &line);
                }
                Some(lowered)
            };
            self.line += usize::from(line.line_break);
            // A frame with nothing left to walk gives its place to its last element's: a chain of last
            // substructures (a record nested 400 000 levels deep, #12) takes one frame, not one per level. The
            // ends of the structures are found after the walk.
            if stack
                .last()
                .is_some_and(|(elements, _)| elements.len() == 0)
            {
                stack.pop();
            }
            stack.push((line.rest, lowered));
        }
        self.stack = stack;
        self.set_ends(root_id);
        root_id
    }

    /// Sets the end of the structures lowered from `first` on (`first` and its descendants, in pre-order): the
    /// id after a structure's last descendant is the greatest end of its substructures, or its own id's next.
    fn set_ends(&mut self, first: u32) {
        let structures = self
            .part
            .structures
            .get_mut(first as usize..)
            .unwrap_or_default();
        for i in (1..structures.len()).rev() {
            let (end, parent) = (structures[i].end, structures[i].parent);
            if let Some(p) = parent.checked_sub(first) {
                if let Some(s) = structures.get_mut(p as usize) {
                    s.end = s.end.max(end);
                }
            }
        }
    }

    /// If `node` is a leaf structure lowered before (the syntax layer shares the green node of a repeated
    /// leaf line, such as `2 SEX M`), lowers it again as the same tag and payload, and moves the line count on.
    fn reuse_leaf(&mut self, node: Node<'p>, parent: u32) -> bool {
        let address = std::ptr::from_ref(node.green) as usize;
        let Some(&(a, leaf)) = self.leaves.get(cache_slot(address, LEAF_CACHE_BITS)) else {
            return false;
        };
        if a != address {
            return false;
        }
        let id = self.count;
        let range = node.range();
        self.push_structure(Structure {
            tag: leaf.tag,
            xref: Str::ABSENT,
            payload: leaf.payload,
            parent,
            end: id.saturating_add(1),
            from: range.start().into(),
            to: range.end().into(),
            line: line_u32(self.line),
        });
        self.line += usize::from(leaf.line_break);
        true
    }

    /// Keeps a structure just lowered (as the last structure of the part) for [`Builder::reuse_leaf`] if it
    /// is a leaf whose lowering depends only on its text: no substructures or other lines, no
    /// cross-reference identifier, no pointer, and no diagnostic (whose location would differ).
    fn remember_leaf(&mut self, node: Node<'p>, line: &LineInfo<'p>) {
        if line.xref.is_some() || line.pointer.is_some() || line.rest.clone().next().is_some() {
            return;
        }
        // Without structures kept, a leaf is only counted again: its tag and payload are not needed.
        let (tag, payload) = match self.part.structures.last() {
            Some(s) if self.keep => (s.tag, s.payload),
            _ if !self.keep => (Str::EMPTY, Stored::None),
            _ => return,
        };
        let leaf = Leaf {
            tag,
            payload,
            line_break: line.line_break,
        };
        let address = std::ptr::from_ref(node.green) as usize;
        if let Some(slot) = self.leaves.get_mut(cache_slot(address, LEAF_CACHE_BITS)) {
            *slot = (address, leaf);
        }
    }
}
