//! Building green nodes directly, sharing the tokens that repeat.
//!
//! rowan's `GreenNodeBuilder` interns every token, unique payloads included, and slows down on large files.
//! Here short tokens of kinds that repeat (levels, delimiters, tags, separators, line breaks, leading whitespace,
//! short payload texts such as `M` or a place name, pointers) go through a fixed-size direct-mapped cache: one
//! hash and one comparison per token, bounded memory, and a miss only costs an allocation. Child buffers are
//! reused between nodes.

use crate::kind::SyntaxKind;
use rowan::{GreenNode, GreenToken, NodeOrToken};
use std::hash::{BuildHasher, Hash, Hasher};

/// A green element: a node or a token.
pub type GreenElement = NodeOrToken<GreenNode, GreenToken>;

/// Longest token text worth sharing.
const MAX_SHARED_LEN: usize = 32;

/// Slots for the commonest tokens (see [`fixed_slot`]).
const FIXED_SLOTS: usize = 15;

/// The fixed slot of a token, if it has one.
fn fixed_slot(kind: SyntaxKind, text: &str) -> Option<usize> {
    match (kind, text.as_bytes()) {
        (SyntaxKind::Level, &[d]) if d.is_ascii_digit() => Some(usize::from(d - b'0')),
        (SyntaxKind::Delimiter, b" ") => Some(10),
        (SyntaxKind::PayloadSep, b" ") => Some(11),
        (SyntaxKind::LineBreak, b"\n") => Some(12),
        (SyntaxKind::LineBreak, b"\r\n") => Some(13),
        (SyntaxKind::LineBreak, b"\r") => Some(14),
        _ => None,
    }
}

/// Slots in the token cache (a power of two).
const CACHE_SLOTS: usize = 1 << 14;

/// Makes green tokens and nodes, sharing repeated tokens.
pub(crate) struct GreenFactory {
    /// The commonest tokens, looked up without hashing: levels `0`–`9`, then `" "` as a delimiter, as a payload
    /// separator, and `"\n"`, `"\r\n"`, `"\r"` as line breaks.
    fixed: Vec<Option<GreenToken>>,
    /// Direct-mapped: each slot keeps the hash of its token, so a miss is decided without touching the token.
    cache: Vec<(u64, Option<GreenToken>)>,
    hasher: rustc_hash::FxBuildHasher,
    buffers: Vec<Vec<GreenElement>>,
}

impl Default for GreenFactory {
    fn default() -> Self {
        GreenFactory {
            fixed: vec![None; FIXED_SLOTS],
            cache: vec![(0, None); CACHE_SLOTS],
            hasher: rustc_hash::FxBuildHasher,
            buffers: Vec::new(),
        }
    }
}

impl GreenFactory {
    /// A token of `kind` with `text`; shared if the kind repeats.
    pub(crate) fn token(&mut self, kind: SyntaxKind, text: &str) -> GreenToken {
        if let Some(slot) = fixed_slot(kind, text) {
            return self.fixed[slot]
                .get_or_insert_with(|| GreenToken::new(kind.into(), text))
                .clone();
        }
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
        let mut h = self.hasher.build_hasher();
        (kind as u16).hash(&mut h);
        text.hash(&mut h);
        let hash = h.finish();
        let slot = &mut self.cache[(hash as usize) & (CACHE_SLOTS - 1)];
        if let (slot_hash, Some(t)) = slot {
            if *slot_hash == hash && t.kind() == kind.into() && t.text() == text {
                return t.clone();
            }
        }
        let t = GreenToken::new(kind.into(), text);
        *slot = (hash, Some(t.clone()));
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
