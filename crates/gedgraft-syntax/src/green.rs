//! Building green nodes directly, sharing the tokens that repeat.
//!
//! rowan's `GreenNodeBuilder` interns every token, unique payloads included, and slows down on large files.
//! Here only short tokens of kinds that repeat (levels, delimiters, tags, separators, line breaks, leading
//! whitespace, short payload texts such as `M` or a place name, pointers) are shared, in bounded tables; child
//! buffers are reused between nodes.

use crate::kind::SyntaxKind;
use rowan::{GreenNode, GreenToken, NodeOrToken};
use rustc_hash::FxHashMap;

/// A green element: a node or a token.
pub type GreenElement = NodeOrToken<GreenNode, GreenToken>;

/// Longest token text worth sharing.
const MAX_SHARED_LEN: usize = 32;

/// How many distinct texts of one kind are remembered for sharing (bounds the table on files of unique payloads).
const MAX_SHARED_PER_KIND: usize = 1 << 16;

/// Makes green tokens and nodes, sharing repeated tokens.
#[derive(Default)]
pub(crate) struct GreenFactory {
    /// Shared tokens, one map per token kind (indexed by the kind's raw value).
    shared: Vec<FxHashMap<Box<str>, GreenToken>>,
    buffers: Vec<Vec<GreenElement>>,
}

impl GreenFactory {
    /// A token of `kind` with `text`; shared if the kind repeats.
    pub(crate) fn token(&mut self, kind: SyntaxKind, text: &str) -> GreenToken {
        let shareable = text.len() <= MAX_SHARED_LEN
            && matches!(
                kind,
                SyntaxKind::Level
                    | SyntaxKind::Delimiter
                    | SyntaxKind::Tag
                    | SyntaxKind::PayloadSep
                    | SyntaxKind::LineBreak
                    | SyntaxKind::Whitespace
                    | SyntaxKind::Bom
                    | SyntaxKind::Text
                    | SyntaxKind::Pointer
                    | SyntaxKind::EscapedAt
            );
        if !shareable {
            return GreenToken::new(kind.into(), text);
        }
        let index = kind as usize;
        if self.shared.len() <= index {
            self.shared.resize_with(index + 1, FxHashMap::default);
        }
        let map = &mut self.shared[index];
        if let Some(t) = map.get(text) {
            return t.clone();
        }
        let t = GreenToken::new(kind.into(), text);
        if map.len() < MAX_SHARED_PER_KIND {
            map.insert(text.into(), t.clone());
        }
        t
    }

    /// An empty child buffer, reused if one is free.
    pub(crate) fn buffer(&mut self) -> Vec<GreenElement> {
        self.buffers.pop().unwrap_or_default()
    }

    /// Gives an emptied buffer back for reuse.
    pub(crate) fn recycle(&mut self, mut children: Vec<GreenElement>) {
        children.clear();
        self.buffers.push(children);
    }

    /// A node of `kind` from `children`; the buffer is kept for reuse.
    pub(crate) fn node(&mut self, kind: SyntaxKind, mut children: Vec<GreenElement>) -> GreenNode {
        let node = GreenNode::new(kind.into(), children.drain(..));
        self.buffers.push(children);
        node
    }
}
