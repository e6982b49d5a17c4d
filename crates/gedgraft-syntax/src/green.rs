//! Building green nodes directly, sharing the tokens that repeat.
//!
//! rowan's `GreenNodeBuilder` interns every token, unique payloads included, and slows down on large files.
//! Here short tokens of kinds that repeat (levels, delimiters, tags, separators, line breaks, leading whitespace)
//! go through a small direct-mapped cache: one hash and one comparison per token, bounded memory, and a miss
//! only costs an allocation. Short runs of undecodable octets (`RAW`) and of malformed-line text go through it
//! too: rare in real files, but random octets are one such token every two octets, and a shared token costs
//! its place in the parent only. Payload texts and pointers are not looked up: outside the repeated lines the line
//! cache already shares, few of them repeat (about one in seven in the benchmark sample), and looking each one
//! up costs two cache misses on a large file (the slot, then the token it evicts). Very short texts are the
//! exception: they are the pieces between the escapes (or undecodable octets) of a line that has many (a lone
//! `@` has a fixed slot), and a line of such pieces would otherwise cost an allocation per few octets. Child buffers are reused
//! between nodes.
//!
//! Whole lines repeat too (`1 SEX M`, `2 PLAC London`, `1 BIRT`): a [`LineCache`] keyed by the line's text hands
//! out the tokens of the last structure with that first line, and for a leaf (nothing under the line) the very
//! same green node, so a repeated line costs neither lexing nor token lookups, and a repeated leaf no node either.
//! rowan trees may share green nodes freely; positions live in the red tree.

use crate::kind::SyntaxKind;
use rowan::{GreenNode, GreenNodeData, GreenToken, NodeOrToken};
use std::hash::{BuildHasher, Hash, Hasher};

/// A green element: a node or a token.
pub type GreenElement = NodeOrToken<GreenNode, GreenToken>;

/// Longest token text worth sharing.
const MAX_SHARED_LEN: usize = 32;

/// Longest payload text that is shared: the pieces between escapes. A line of `x@#D@x@#D@…` is a token per
/// two or four octets, and unshared each would cost a 32-octet allocation besides its place in the line (#12).
const MAX_SHARED_TEXT_LEN: usize = 4;

/// The number of slots of a direct-mapped table meant to hold about `wanted`: a power of two from `min` to `max`.
fn table_size(wanted: usize, min: usize, max: usize) -> usize {
    wanted.clamp(min, max).next_power_of_two()
}

/// Slots for the commonest tokens (see [`fixed_slot`]).
const FIXED_SLOTS: usize = 16;

/// The fixed slot of a token, if it has one.
fn fixed_slot(kind: SyntaxKind, text: &str) -> Option<usize> {
    match (kind, text.as_bytes()) {
        (SyntaxKind::Level, &[d]) if d.is_ascii_digit() => Some(usize::from(d - b'0')),
        (SyntaxKind::Delimiter, b" ") => Some(10),
        (SyntaxKind::PayloadSep, b" ") => Some(11),
        (SyntaxKind::LineBreak, b"\n") => Some(12),
        (SyntaxKind::LineBreak, b"\r\n") => Some(13),
        (SyntaxKind::LineBreak, b"\r") => Some(14),
        (SyntaxKind::Text, b"@") => Some(15),
        _ => None,
    }
}

/// Most slots the token cache has (a power of two).
const MAX_CACHE_SLOTS: usize = 1 << 12;

/// Most emptied child buffers a factory keeps for reuse (a parser takes one or two at a time: a line's tokens,
/// a node's children; the open structures' children are on the parser's own stack).
const MAX_KEPT_BUFFERS: usize = 1 << 10;

/// Most elements a buffer kept for reuse has room for (the factory's child buffers, the lexer's token buffer):
/// the buffer of a line of a million tokens is given back to the system, not kept to the end of the parse (#12).
pub(crate) const MAX_KEPT_BUFFER_LEN: usize = 1 << 12;

thread_local! {
    /// The factory [`shared_token`] makes its tokens with: one per thread, its tables small.
    static SHARED: std::cell::RefCell<GreenFactory> =
        std::cell::RefCell::new(GreenFactory::for_text_len(0));
}

/// A token of `kind` with `text`, shared with an earlier one where the parser shares tokens (see
/// [`GreenFactory::token`]), for code that makes new lines outside a parse.
pub(crate) fn shared_token(kind: SyntaxKind, text: &str) -> GreenToken {
    SHARED.with_borrow_mut(|factory| factory.token(kind, text))
}

/// Makes green tokens and nodes, sharing repeated tokens.
pub(crate) struct GreenFactory {
    /// The commonest tokens, looked up without hashing: levels `0`–`9`, then `" "` as a delimiter, as a payload
    /// separator, `"\n"`, `"\r\n"`, `"\r"` as line breaks, and a bare `@`.
    fixed: Vec<Option<GreenToken>>,
    /// Direct-mapped: each slot keeps the hash of its token, so a miss is decided without touching the token.
    cache: Vec<(u64, Option<GreenToken>)>,
    hasher: rustc_hash::FxBuildHasher,
    buffers: Vec<Vec<GreenElement>>,
    /// Recent short continuation lines (`LINE` nodes), direct-mapped by a hash of their tokens.
    line_nodes: Vec<(u64, Option<GreenNode>)>,
}

/// Longest text of a continuation line whose node is shared.
const MAX_SHARED_LINE_LEN: usize = 64;

/// Slots for shared continuation lines (a power of two).
const LINE_NODE_SLOTS: usize = 256;

/// Whether `node` has the tokens `children`, in order.
fn same_tokens(node: &GreenNodeData, children: &[GreenElement]) -> bool {
    node.children().len() == children.len()
        && node.children().zip(children).all(|pair| match pair {
            // rowan's equality of tokens: the same kind and text.
            (NodeOrToken::Token(a), NodeOrToken::Token(b)) => *a == **b,
            _ => false,
        })
}

impl GreenFactory {
    /// A factory for `text_len` bytes of text: the token cache has about one slot per 64 bytes, so small files
    /// do not pay for a large table.
    pub(crate) fn for_text_len(text_len: usize) -> Self {
        GreenFactory {
            fixed: vec![None; FIXED_SLOTS],
            cache: vec![(0, None); table_size(text_len / 64, 256, MAX_CACHE_SLOTS)],
            hasher: rustc_hash::FxBuildHasher,
            buffers: Vec::new(),
            line_nodes: vec![(0, None); LINE_NODE_SLOTS],
        }
    }

    /// A token of `kind` with `text`; shared if the kind repeats.
    #[inline]
    pub(crate) fn token(&mut self, kind: SyntaxKind, text: &str) -> GreenToken {
        match fixed_slot(kind, text) {
            Some(slot) => self.fixed[slot]
                .get_or_insert_with(|| GreenToken::new(kind.into(), text))
                .clone(),
            None => self.cached_token(kind, text),
        }
    }

    /// A token that has no fixed slot: from the cache if it repeats, else new. Kept out of line so that the
    /// fixed-slot path of [`GreenFactory::token`] stays small enough to inline.
    #[inline(never)]
    fn cached_token(&mut self, kind: SyntaxKind, text: &str) -> GreenToken {
        let shareable = match kind {
            SyntaxKind::Level
            | SyntaxKind::Delimiter
            | SyntaxKind::Tag
            | SyntaxKind::PayloadSep
            | SyntaxKind::LineBreak
            | SyntaxKind::Whitespace
            | SyntaxKind::Bom
            | SyntaxKind::Escape
            | SyntaxKind::Raw
            | SyntaxKind::ErrorText => text.len() <= MAX_SHARED_LEN,
            SyntaxKind::Text => text.len() <= MAX_SHARED_TEXT_LEN,
            _ => false,
        };
        if !shareable {
            return GreenToken::new(kind.into(), text);
        }
        let mut h = self.hasher.build_hasher();
        (kind as u16).hash(&mut h);
        text.hash(&mut h);
        let hash = h.finish();
        let mask = self.cache.len() - 1;
        let slot = &mut self.cache[(hash as usize) & mask];
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
        self.keep(children);
    }

    /// Keeps an empty buffer for reuse, unless enough are kept already (a bound on what the pool can hold to
    /// the end of the parse).
    fn keep(&mut self, children: Vec<GreenElement>) {
        if self.buffers.len() < MAX_KEPT_BUFFERS && children.capacity() <= MAX_KEPT_BUFFER_LEN {
            self.buffers.push(children);
        }
    }

    /// A continuation line's `LINE` node from its tokens: the node of the last line with the same tokens when
    /// the line is short. A note of a million `1 CONT` lines is then a million places in its structure, not a
    /// million nodes of 88 octets (#12).
    pub(crate) fn line_node(&mut self, children: Vec<GreenElement>) -> GreenNode {
        let len =
            (children.iter()).try_fold(0usize, |len, c| Some(len + c.as_token()?.text().len()));
        if len.is_none_or(|len| len > MAX_SHARED_LINE_LEN) {
            return self.node(SyntaxKind::Line, children);
        }
        let mut h = self.hasher.build_hasher();
        for t in children.iter().filter_map(NodeOrToken::as_token) {
            t.kind().0.hash(&mut h);
            t.text().hash(&mut h);
        }
        let hash = h.finish();
        let slot = hash as usize & (LINE_NODE_SLOTS - 1);
        if let (slot_hash, Some(node)) = &self.line_nodes[slot] {
            if *slot_hash == hash && same_tokens(node, &children) {
                let node = node.clone();
                self.recycle(children);
                return node;
            }
        }
        let node = self.node(SyntaxKind::Line, children);
        self.line_nodes[slot] = (hash, Some(node.clone()));
        node
    }

    /// A node of `kind` from `children`; the buffer is kept for reuse.
    pub(crate) fn node(&mut self, kind: SyntaxKind, mut children: Vec<GreenElement>) -> GreenNode {
        let node = GreenNode::new(kind.into(), children.drain(..));
        self.keep(children);
        node
    }
}

/// Most slots a line cache has (a power of two); a larger text would find more repeats in a larger cache, but
/// past this the table falls out of the processor's caches.
const MAX_LINE_SLOTS: usize = 1 << 17;

/// Where a line's text (with its line break) lies in the text being parsed, and its hash: the key of the
/// line cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineKey {
    hash: u64,
    start: u32,
    /// Never 0 (an empty line is not cached), so that an `Option<LineKey>` takes no more room.
    len: std::num::NonZeroU32,
}

/// What the parser needs to know of a cached line besides its tokens (both follow from the line's text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CachedFacts {
    /// The line's level.
    pub level: usize,
    /// Whether its payload is a pointer.
    pub pointer_payload: bool,
}

/// A structure whose first line's tokens a repeated line can take: its first `first_len` children are those
/// tokens; when it has no other children it is the whole node of such a line (a leaf).
#[derive(Debug, Clone)]
pub(crate) struct Template {
    /// A structure node of the tree.
    pub node: GreenNode,
    /// How many of its first children are the first line's tokens.
    pub first_len: usize,
}

impl Template {
    /// Whether the node is just the line: then a structure of that line with nothing under it is this node.
    pub(crate) fn is_leaf(&self) -> bool {
        self.node.children().len() == self.first_len
    }

    /// Copies of the first line's tokens.
    pub(crate) fn line_tokens(&self) -> impl Iterator<Item = GreenElement> + '_ {
        self.node
            .children()
            .take(self.first_len)
            .map(|child| match child {
                NodeOrToken::Node(n) => NodeOrToken::Node(n.to_owned()),
                NodeOrToken::Token(t) => NodeOrToken::Token(t.to_owned()),
            })
    }
}

/// A slot of the line cache: 32 octets (the line's facts are kept, not worked out again).
#[derive(Clone)]
struct LineSlot {
    key: LineKey,
    node: GreenNode,
    level: u32,
    first_len: u16,
    pointer_payload: bool,
    /// Whether the line was found since it came in or since its last second chance.
    hit: bool,
}

/// A direct-mapped cache of structures keyed by the text of their first line, including its line break: a leaf
/// structure (a first line with nothing under it) is shared whole by every leaf of the same text, and any other
/// structure lends its first line's tokens (a [`Template`]), which spares lexing and token lookups. Only lines
/// whose tokens and diagnostics follow from their text alone go in (see the parser); the text of a line fully
/// determines its tokens. Slots hold no text: a key names where the line lies in the text being parsed.
pub(crate) struct LineCache {
    slots: Vec<Option<LineSlot>>,
    hasher: rustc_hash::FxBuildHasher,
}

impl LineCache {
    /// A cache sized for `text_len` bytes of text: about one slot per 128 bytes (a few lines), so small files
    /// do not pay for a large table.
    pub(crate) fn for_text_len(text_len: usize) -> LineCache {
        LineCache {
            slots: vec![None; table_size(text_len / 128, 64, MAX_LINE_SLOTS)],
            hasher: rustc_hash::FxBuildHasher,
        }
    }

    /// A cache that keeps nothing.
    #[cfg(test)]
    pub(crate) fn disabled() -> LineCache {
        LineCache {
            slots: Vec::new(),
            hasher: rustc_hash::FxBuildHasher,
        }
    }

    fn slot(&self, key: &LineKey) -> usize {
        (key.hash as usize) & self.slots.len().saturating_sub(1)
    }

    /// The key of the line `text[start..end]` (with its line break), if it can be cached.
    pub(crate) fn key(&self, text: &str, start: usize, end: usize) -> Option<LineKey> {
        if self.slots.is_empty() {
            return None;
        }
        let mut h = self.hasher.build_hasher();
        h.write(text.as_bytes().get(start..end)?);
        Some(LineKey {
            hash: h.finish(),
            start: u32::try_from(start).ok()?,
            len: std::num::NonZeroU32::new(u32::try_from(end - start).ok()?)?,
        })
    }

    /// Starts fetching the slot of `key` into the processor's cache, so that a later [`LineCache::get`] need
    /// not wait for memory (the table is larger than the caches of a large file's parse).
    pub(crate) fn prefetch(&self, key: &LineKey) {
        if !self.slots.is_empty() {
            prefetch_index::prefetch_index(&self.slots, self.slot(key));
        }
    }

    /// The cached structure for the line `key` of `text`, if its text is in the cache. A hit marks the slot as
    /// worth keeping (see [`LineCache::insert`]) and points its key at this latest occurrence of the line, so
    /// that the next comparison reads text read recently rather than wherever the line first appeared.
    pub(crate) fn get(&mut self, text: &str, key: &LineKey) -> Option<(CachedFacts, Template)> {
        let at = self.slot(key);
        let slot = self.slots.get_mut(at)?.as_mut()?;
        let line = |k: &LineKey| {
            let start = k.start as usize;
            text.as_bytes().get(start..start + k.len.get() as usize)
        };
        if slot.key.hash != key.hash || slot.key.len != key.len || line(&slot.key) != line(key) {
            if !slot.hit {
                // The line may well take this slot when its structure closes: start fetching the node it
                // would evict (whose reference count the eviction changes) now rather than then.
                prefetch_index::prefetch_index(
                    std::slice::from_ref::<GreenNodeData>(&slot.node),
                    0,
                );
            }
            return None;
        }
        slot.hit = true;
        slot.key.start = key.start;
        let facts = CachedFacts {
            level: slot.level as usize,
            pointer_payload: slot.pointer_payload,
        };
        let template = Template {
            node: slot.node.clone(),
            first_len: usize::from(slot.first_len),
        };
        Some((facts, template))
    }

    /// Remembers `node`, whose first `first_len` children are the tokens of the line `key` (with `facts`).
    /// Lines of very many tokens or very deep levels are not kept.
    pub(crate) fn insert(
        &mut self,
        key: LineKey,
        facts: CachedFacts,
        node: &GreenNode,
        first_len: usize,
    ) {
        let slot = self.slot(&key);
        let (Ok(level), Ok(first_len)) = (u32::try_from(facts.level), u16::try_from(first_len))
        else {
            return;
        };
        let Some(slot) = self.slots.get_mut(slot) else {
            return;
        };
        // Second chance: a line found since it came in stays for one more miss on its slot, so that unique lines
        // passing through do not evict a line that repeats. Not evicting also spares touching the evicted node.
        if let Some(occupant) = slot.as_mut().filter(|occupant| occupant.hit) {
            occupant.hit = false;
            return;
        }
        *slot = Some(LineSlot {
            key,
            node: node.clone(),
            level,
            first_len,
            pointer_payload: facts.pointer_payload,
            hit: false,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{CachedFacts, LineCache, LineKey};
    use crate::kind::SyntaxKind;
    use rowan::{GreenNode, GreenToken, NodeOrToken};

    /// A text of lines, the keys of its lines, and a leaf node per line.
    fn lines(text: &str) -> Vec<(LineKey, GreenNode)> {
        let cache = LineCache::for_text_len(0);
        let mut start = 0;
        text.split_inclusive('\n')
            .map(|line| {
                let key = cache.key(text, start, start + line.len()).unwrap();
                start += line.len();
                let token = GreenToken::new(SyntaxKind::Text.into(), line);
                let node =
                    GreenNode::new(SyntaxKind::Structure.into(), [NodeOrToken::Token(token)]);
                (key, node)
            })
            .collect()
    }

    const FACTS: CachedFacts = CachedFacts {
        level: 1,
        pointer_payload: false,
    };

    /// #12: the short pieces of text between the escapes of a line of many are shared, not an allocation each,
    /// and so are the escapes (a bare `@` and `@@` are part of the text). Longer payload text is not looked up.
    #[test]
    fn the_short_tokens_of_a_payload_are_shared() {
        let long = "y".repeat(super::MAX_SHARED_TEXT_LEN + 1);
        let text = format!(
            "0 HEAD\n0 @N1@ NOTE {}{}\n0 TRLR\n",
            "x@ab@#U41@".repeat(500),
            format!("{long}@#U41@").repeat(3)
        );
        let parse = crate::parse(text.as_bytes());
        let mut distinct = std::collections::HashMap::new();
        let mut total = std::collections::HashMap::new();
        for t in parse
            .syntax()
            .descendants_with_tokens()
            .filter_map(|e| e.into_token())
        {
            let kind = t.kind();
            if matches!(kind, SyntaxKind::Text | SyntaxKind::Escape) {
                let key = (kind, t.text().to_string());
                let at = std::ptr::from_ref(t.green()) as usize;
                distinct
                    .entry(key.clone())
                    .or_insert_with(std::collections::HashSet::new)
                    .insert(at);
                *total.entry(key).or_insert(0) += 1;
            }
        }
        let count = |kind, text: &str| {
            let key = (kind, text.to_string());
            (
                total.get(&key).copied(),
                distinct.get(&key).map(|d| d.len()),
            )
        };
        // A bare `@` is part of the text around it.
        assert_eq!(count(SyntaxKind::Text, "x@ab"), (Some(500), Some(1)));
        assert_eq!(count(SyntaxKind::Escape, "@#U41@"), (Some(503), Some(1)));
        assert_eq!(count(SyntaxKind::Text, &long), (Some(3), Some(3)));
    }

    /// #12: short continuation lines that repeat share their `LINE` node; a long one is its own.
    #[test]
    fn repeated_short_continuation_lines_share_their_node() {
        let long = format!("1 CONT {}\n", "z".repeat(super::MAX_SHARED_LINE_LEN));
        let text = format!(
            "0 HEAD\n0 @N1@ NOTE a\n{}{}{long}{long}0 TRLR\n",
            "1 CONT\n".repeat(100),
            "1 CONC b\n".repeat(50)
        );
        let parse = crate::parse(text.as_bytes());
        assert!(parse.diagnostics().is_empty(), "{:?}", parse.diagnostics());
        let mut nodes: std::collections::HashMap<String, std::collections::HashSet<usize>> =
            std::collections::HashMap::new();
        let mut lines = 0;
        for n in parse
            .syntax()
            .descendants()
            .filter(|n| n.kind() == SyntaxKind::Line)
        {
            lines += 1;
            let at = std::ptr::from_ref(n.green()) as usize;
            nodes.entry(n.text().to_string()).or_default().insert(at);
        }
        assert_eq!(lines, 100 + 50 + 2);
        assert_eq!(nodes["1 CONT\n"].len(), 1);
        assert_eq!(nodes["1 CONC b\n"].len(), 1);
        assert_eq!(nodes[&long].len(), 2);
        // The tree still reads back as the text.
        assert_eq!(parse.syntax().text().to_string(), text);
    }

    #[test]
    fn a_line_found_since_it_came_in_survives_one_eviction_and_no_more() {
        // Three different lines that fall into the same slot of the smallest cache, each followed by a repeat.
        let cache = LineCache::for_text_len(0);
        let slot_of = |text: &str| cache.slot(&cache.key(text, 0, text.len()).unwrap());
        let candidates: Vec<String> = (0..10_000).map(|i| format!("1 NOTE {i}\n")).collect();
        let first = &candidates[0];
        let same: Vec<&String> = candidates
            .iter()
            .filter(|c| slot_of(c) == slot_of(first))
            .take(3)
            .collect();
        assert_eq!(same.len(), 3);
        let text: String = same.iter().flat_map(|l| [l.as_str(), l.as_str()]).collect();
        let lines = lines(&text);
        let (a, a_again, b, b_again, c) = (&lines[0], &lines[1], &lines[2], &lines[3], &lines[4]);
        let mut cache = LineCache::for_text_len(0);
        cache.insert(a.0, FACTS, &a.1, 1);
        assert_eq!(cache.get(&text, &a_again.0).unwrap().1.node, a.1);
        // `a` was found: `b` does not evict it yet, but takes its one second chance.
        cache.insert(b.0, FACTS, &b.1, 1);
        assert!(cache.get(&text, &b_again.0).is_none());
        assert_eq!(cache.get(&text, &a_again.0).unwrap().1.node, a.1);
        // Found again, `a` has earned another chance; once that is used, `c` takes the slot.
        cache.insert(c.0, FACTS, &c.1, 1);
        cache.insert(c.0, FACTS, &c.1, 1);
        assert!(cache.get(&text, &a_again.0).is_none());
        assert_eq!(cache.get(&text, &c.0).unwrap().1.node, c.1);
    }

    #[test]
    fn a_hit_points_the_key_at_the_latest_occurrence() {
        let text = "2 PLAC London\n1 SEX M\n2 PLAC London\n";
        let lines = lines(text);
        let mut cache = LineCache::for_text_len(0);
        cache.insert(lines[0].0, FACTS, &lines[0].1, 1);
        assert!(cache.get(text, &lines[2].0).is_some());
        let slot = cache.slots[cache.slot(&lines[2].0)].as_ref().unwrap();
        assert_eq!(slot.key, lines[2].0);
    }
}
