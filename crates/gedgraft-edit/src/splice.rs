//! Splicing green subtrees: the one-pass, iterative rebuild behind every edit.
//!
//! An edit becomes one or more [`Splice`]s: "in the node that starts at offset X, replace children `a..b` with
//! these elements" (an empty range inserts). All splices of a batch are checked for overlap, sorted, and applied
//! in a single walk over the old tree: a subtree that holds no splice target is reused as the very same green
//! node; only the nodes on the paths to the targets are rebuilt. The walk keeps its own stack, so depth costs
//! heap, never call stack, and a batch of `n` splices over a tree of `N` elements costs `O(N + n log n)` at
//! worst (no per-edit walks).
//!
//! Nodes are named by their start offset in the old tree: every `RECORD`, `STRUCTURE`, `LINE` and `ERROR` node
//! starts with a non-empty token of its own, so a node's start is unique among non-root nodes; the root
//! `DOCUMENT` (which shares offset 0 with its first child) is named apart.

use crate::error::EditError;
use gedgraft_syntax::SyntaxNode;
use rowan::{GreenNode, GreenNodeData, GreenToken, GreenTokenData, NodeOrToken};
use std::ops::Range;

/// A green element: a node or a token.
pub(crate) type GreenElement = NodeOrToken<GreenNode, GreenToken>;

/// The name of a node of the old tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct NodeKey {
    /// Whether this is the root.
    pub root: bool,
    /// The node's start offset in the old tree's text.
    pub start: u32,
}

impl NodeKey {
    /// The key of a node of the old tree.
    pub(crate) fn of(node: &SyntaxNode) -> NodeKey {
        NodeKey {
            root: node.parent().is_none(),
            start: u32::from(node.text_range().start()),
        }
    }
}

/// One replacement of a run of children.
#[derive(Debug)]
pub(crate) struct Splice {
    /// The node whose children are replaced.
    pub parent: NodeKey,
    /// The children replaced, by index (empty: an insertion before child `children.start`).
    pub children: Range<usize>,
    /// The old text those children cover (empty at the insertion point for an insertion). [`Splice::new`] leaves
    /// it empty at 0; [`resolve_texts`] fills it in for a whole batch before anything reads it.
    pub text: Range<u32>,
    /// The new elements.
    pub with: Vec<GreenElement>,
    /// Which edit this splice belongs to (an index into the editor's list of edits).
    pub edit: usize,
    /// Whether the new elements are known to spell other text than the children they replace (a tag renamed
    /// to another tag, …); when not, [`Editor::apply`](crate::Editor::apply) compares the texts and drops the
    /// splice if they are the same.
    pub known_change: bool,
}

impl Splice {
    /// A splice replacing the token `old`, child `index` of the non-root node that starts at `node_at` and
    /// itself starting at `old_at`, with `new`, which the caller knows spells other text.
    pub(crate) fn replace_token(
        node_at: u32,
        index: usize,
        old: &GreenTokenData,
        old_at: u32,
        new: GreenToken,
        edit: usize,
    ) -> Splice {
        Splice {
            parent: NodeKey {
                root: false,
                start: node_at,
            },
            children: index..index + 1,
            text: old_at..old_at + u32::from(old.text_len()),
            with: vec![NodeOrToken::Token(new)],
            edit,
            known_change: true,
        }
    }

    /// A splice replacing the children `children` of `parent`. Its `text` is left for [`resolve_texts`]: working
    /// it out here would walk the parent's children from the first for every splice, quadratic for a batch of
    /// deletions among the records of a large file.
    pub(crate) fn new(
        parent: &SyntaxNode,
        children: Range<usize>,
        with: Vec<GreenElement>,
        edit: usize,
    ) -> Splice {
        Splice {
            parent: NodeKey::of(parent),
            children,
            text: 0..0,
            with,
            edit,
            known_change: false,
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Children stepped over by [`resolve_texts`] (operation counts for the scaling tests).
    pub(crate) static CHILDREN_STEPPED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Sets the `text` of every splice of a batch: the old text its children cover (an empty range at the insertion
/// point for an insertion; indices past the last child stand for the node's end). The splices are taken in
/// order of parent and child index and each parent's children are walked once with a running offset, so a batch
/// of `n` splices over a tree of `N` elements costs `O(N + n log n)`.
pub(crate) fn resolve_texts(root: &GreenNodeData, splices: &mut [Splice]) {
    // Each splice asks for the offsets before two child indices; (parent, child index, splice, is its end).
    let mut wanted: Vec<(NodeKey, usize, usize, bool)> = Vec::with_capacity(2 * splices.len());
    for (i, s) in splices.iter().enumerate() {
        let end = s.children.end.max(s.children.start);
        wanted.push((s.parent, s.children.start, i, false));
        wanted.push((s.parent, end, i, true));
    }
    wanted.sort_unstable();
    let mut next = 0;
    let mut resolve = |node: &GreenNodeData, key: NodeKey, at: u32| {
        let mut offset = at;
        let mut children = node.children().enumerate();
        let mut child = children.next();
        // Keys that name no node of the tree (none should) keep the empty range they have.
        while wanted.get(next).is_some_and(|w| w.0 < key) {
            next += 1;
        }
        while let Some(&(parent, index, i, is_end)) = wanted.get(next) {
            if parent != key {
                break;
            }
            // Step to child `index` (or past the last one).
            while let Some((_, element)) = child.filter(|(c, _)| *c < index) {
                #[cfg(test)]
                CHILDREN_STEPPED.with(|n| n.set(n.get() + 1));
                offset += u32::from(element.text_len());
                child = children.next();
            }
            if let Some(s) = splices.get_mut(i) {
                if is_end {
                    s.text.end = offset;
                } else {
                    s.text.start = offset;
                }
            }
            next += 1;
        }
    };
    let root_key = NodeKey {
        root: true,
        start: 0,
    };
    let mut starts: Vec<u32> = wanted
        .iter()
        .filter(|w| !w.0.root)
        .map(|w| w.0.start)
        .collect();
    starts.dedup();
    // Non-root keys sort before the root's (`root: false` first), in order of start, as `visit_starts` visits.
    visit_starts(root, &starts, |node, at| {
        resolve(
            node,
            NodeKey {
                root: false,
                start: at,
            },
            at,
        );
    });
    resolve(root, root_key, 0);
}

/// Whether inserting before child `index` of `node` inserts at the end of the node's text: no child from
/// `index` on has any text (steps over those empty children only, so it is cheap anywhere in a large node).
pub(crate) fn inserts_at_end(node: &SyntaxNode, index: usize) -> bool {
    node.green()
        .children()
        .skip(index)
        .all(|c| c.text_len() == 0.into())
}

/// Checks that no two splices of different edits touch the same old text, or one sits inside what another
/// replaces. `describe` names an edit for the error message.
pub(crate) fn check_overlaps(
    splices: &[Splice],
    describe: impl Fn(usize) -> String,
) -> Result<(), EditError> {
    let mut replaced: Vec<(u32, u32, usize)> = splices
        .iter()
        .filter(|s| s.text.start < s.text.end)
        .map(|s| (s.text.start, s.text.end, s.edit))
        .collect();
    replaced.sort_unstable();
    let overlap = |a: usize, b: usize| EditError::Overlap {
        first: describe(a.min(b)),
        second: describe(a.max(b)),
    };
    for pair in replaced.windows(2) {
        if pair[1].0 < pair[0].1 {
            return Err(overlap(pair[0].2, pair[1].2));
        }
    }
    // The replaced range holding `at`, if any (`strict`: `at` must lie strictly inside).
    let holding = |at: u32, strict: bool| -> Option<(u32, u32, usize)> {
        let i = replaced.partition_point(|r| r.0 <= at);
        let r = *replaced.get(i.checked_sub(1)?)?;
        let inside = if strict {
            r.0 < at && at < r.1
        } else {
            at < r.1
        };
        inside.then_some(r)
    };
    for s in splices {
        if !s.parent.root {
            if let Some(r) = holding(s.parent.start, false) {
                if r.2 != s.edit {
                    return Err(overlap(r.2, s.edit));
                }
            }
        }
        if s.text.start == s.text.end {
            if let Some(r) = holding(s.text.start, true) {
                return Err(overlap(r.2, s.edit));
            }
        }
    }
    Ok(())
}

/// A whole-file change applied during the rebuild, to every old token outside the splices and to every node
/// once its children are complete.
pub(crate) trait Transform {
    /// Pushes what replaces `token` (the token itself to keep it). `offset` is its start in the old text.
    fn token(&mut self, token: &GreenTokenData, offset: u32, out: &mut Vec<GreenElement>);

    /// Rewrites the complete children of a rebuilt node of kind `kind` (a raw rowan kind).
    fn node(
        &mut self,
        kind: rowan::SyntaxKind,
        children: &mut Vec<GreenElement>,
    ) -> Result<(), EditError>;
}

struct Frame<'a> {
    node: &'a GreenNodeData,
    children: rowan::Children<'a>,
    index: usize,
    offset: u32,
    out: Vec<GreenElement>,
    splices: Range<usize>,
    skip_until: usize,
}

/// The outcome of [`rebuild`]: the new tree, and a bound on the depth of the nodes in it that are new (not nodes
/// of the old tree), which says whether releasing it while the old tree lives could recurse deeply.
pub(crate) struct Rebuilt {
    pub green: GreenNode,
    pub new_depth: usize,
}

/// Applies `splices` (checked for overlaps) to the tree `root`, and `transform` to everything when given.
pub(crate) fn rebuild(
    root: &GreenNodeData,
    mut splices: Vec<Splice>,
    mut transform: Option<&mut dyn Transform>,
) -> Result<Rebuilt, EditError> {
    splices.sort_by(|a, b| {
        (a.parent, a.children.start, a.children.end, a.edit).cmp(&(
            b.parent,
            b.children.start,
            b.children.end,
            b.edit,
        ))
    });
    let mut targets: Vec<u32> = splices
        .iter()
        .filter(|s| !s.parent.root)
        .map(|s| s.parent.start)
        .collect();
    targets.dedup();
    let full = transform.is_some();
    let splices_of = |key: NodeKey, splices: &[Splice]| -> Range<usize> {
        let start = splices.partition_point(|s| s.parent < key);
        let end = splices.partition_point(|s| s.parent <= key);
        start..end
    };
    let root_key = NodeKey {
        root: true,
        start: 0,
    };
    let mut stack = vec![Frame {
        node: root,
        children: root.children(),
        index: 0,
        offset: 0,
        out: Vec::new(),
        splices: splices_of(root_key, &splices),
        skip_until: 0,
    }];
    let mut new_depth = 1;
    let mut made = MadeNodes::default();
    let result = loop {
        let depth = stack.len();
        new_depth = new_depth.max(depth);
        let Some(frame) = stack.last_mut() else {
            break Err(None);
        };
        while frame.splices.start < frame.splices.end
            && splices[frame.splices.start].children.start == frame.index
        {
            let s = &mut splices[frame.splices.start];
            new_depth = new_depth.max(depth.saturating_add(elements_depth(&s.with)));
            frame.out.append(&mut s.with);
            frame.skip_until = frame.skip_until.max(s.children.end);
            frame.splices.start += 1;
        }
        let Some(child) = frame.children.next() else {
            // Splices past the last child (a range ending at the end) were emitted above; finish the node.
            let Some(mut done) = stack.pop() else {
                break Err(None);
            };
            if let Some(t) = transform.as_deref_mut() {
                if let Err(e) = t.node(done.node.kind(), &mut done.out) {
                    stack.push(done);
                    break Err(Some(e));
                }
            }
            // A node whose children all came back unchanged (a whole-file transform that found nothing to do
            // here) is kept as it was, so it stays shared with the old tree.
            let node = if unchanged(done.node, &done.out) {
                done.node.to_owned()
            } else {
                made.node(done.node.kind(), done.out)
            };
            match stack.last_mut() {
                Some(parent) => parent.out.push(NodeOrToken::Node(node)),
                None => {
                    break Ok(Rebuilt {
                        green: node,
                        new_depth,
                    })
                }
            }
            continue;
        };
        let index = frame.index;
        let offset = frame.offset;
        frame.index += 1;
        frame.offset += u32::from(child.text_len());
        if index < frame.skip_until {
            continue;
        }
        match child {
            NodeOrToken::Token(token) => match transform.as_deref_mut() {
                Some(t) => t.token(token, offset, &mut frame.out),
                None => frame.out.push(NodeOrToken::Token(token.to_owned())),
            },
            NodeOrToken::Node(node) => {
                let end = offset + u32::from(node.text_len());
                let i = targets.partition_point(|&t| t < offset);
                let holds_target = targets.get(i).is_some_and(|&t| t < end);
                if full || holds_target {
                    let key = NodeKey {
                        root: false,
                        start: offset,
                    };
                    let range = splices_of(key, &splices);
                    stack.push(Frame {
                        node,
                        children: node.children(),
                        index: 0,
                        offset,
                        out: Vec::new(),
                        splices: range,
                        skip_until: 0,
                    });
                } else {
                    frame.out.push(NodeOrToken::Node(node.to_owned()));
                }
            }
        }
    };
    match result {
        Ok(rebuilt) => Ok(rebuilt),
        Err(error) => {
            for frame in stack {
                drop_deep_elements(frame.out);
            }
            Err(error.unwrap_or(EditError::Internal {
                what: "the rebuild lost its root".into(),
            }))
        }
    }
}

/// The nodes a rebuild makes, shared where they are the same: a change of every line break makes the same new
/// line node many times over (`1 _X` CR LF), and one node then stands for all of them, so the new tree does not
/// grow with the lines it changes. Green nodes are immutable and shared anyway (every node left as it was is
/// the old tree's). A small table indexed by a hash of the kind and children, each slot holding the last node
/// made there, so that its memory does not grow with the file either; only nodes of a few children (lines, not
/// records) are looked up.
struct MadeNodes {
    slots: Vec<Option<GreenNode>>,
}

/// Slots of [`MadeNodes`].
const MADE_SLOTS: usize = 1 << 10;

/// Nodes with more children than this are made without a look-up.
const SHARED_CHILDREN: usize = 8;

impl Default for MadeNodes {
    fn default() -> MadeNodes {
        MadeNodes {
            slots: vec![None; MADE_SLOTS],
        }
    }
}

impl MadeNodes {
    /// A node of `kind` with `children`: one made before with the same children (the same child nodes, tokens
    /// of the same kind and text), else a new one.
    fn node(&mut self, kind: rowan::SyntaxKind, children: Vec<GreenElement>) -> GreenNode {
        if children.len() > SHARED_CHILDREN {
            return GreenNode::new(kind, children);
        }
        let mix = |h: u64, x: u64| (h.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
        let mut h = mix(0, u64::from(kind.0));
        for child in &children {
            h = match child {
                NodeOrToken::Node(n) => {
                    mix(h, std::ptr::from_ref::<GreenNodeData>(n) as usize as u64)
                }
                NodeOrToken::Token(t) => t.text().as_bytes().chunks(8).fold(
                    mix(
                        h,
                        u64::from(t.kind().0) << 32 | u64::from(u32::from(t.text_len())),
                    ),
                    |h, chunk| {
                        let mut word = [0u8; 8];
                        word[..chunk.len()].copy_from_slice(chunk);
                        mix(h, u64::from_le_bytes(word))
                    },
                ),
            };
        }
        let Some(slot) = self.slots.get_mut((h % MADE_SLOTS as u64) as usize) else {
            return GreenNode::new(kind, children);
        };
        if let Some(node) = slot.as_ref().filter(|n| same_node(n, kind, &children)) {
            return node.clone();
        }
        let node = GreenNode::new(kind, children);
        *slot = Some(node.clone());
        node
    }
}

/// Whether `node` is of `kind` with `children`: the same child nodes, and tokens of the same kind and text.
fn same_node(node: &GreenNodeData, kind: rowan::SyntaxKind, children: &[GreenElement]) -> bool {
    node.kind() == kind
        && node.children().len() == children.len()
        && node.children().zip(children).all(|pair| match pair {
            (NodeOrToken::Node(a), NodeOrToken::Node(b)) => std::ptr::eq(a, &**b),
            (NodeOrToken::Token(a), NodeOrToken::Token(b)) => {
                a.kind() == b.kind() && a.text() == b.text()
            }
            _ => false,
        })
}

/// How deep the nodes among `elements` go (0 for tokens only); iterative.
fn elements_depth(elements: &[GreenElement]) -> usize {
    let mut deepest = 0;
    for e in elements {
        let NodeOrToken::Node(n) = e else { continue };
        let mut stack = vec![n.children()];
        deepest = deepest.max(1);
        while let Some(children) = stack.last_mut() {
            match children.next() {
                None => {
                    stack.pop();
                }
                Some(NodeOrToken::Node(c)) => {
                    stack.push(c.children());
                    deepest = deepest.max(stack.len());
                }
                Some(NodeOrToken::Token(_)) => {}
            }
        }
    }
    deepest
}

/// Whether `children` are exactly `node`'s children (the same green nodes and tokens).
fn unchanged(node: &GreenNodeData, children: &[GreenElement]) -> bool {
    node.children().len() == children.len()
        && node.children().zip(children).all(|pair| match pair {
            (NodeOrToken::Node(a), NodeOrToken::Node(b)) => std::ptr::eq(a, &**b),
            (NodeOrToken::Token(a), NodeOrToken::Token(b)) => std::ptr::eq(a, &**b),
            _ => false,
        })
}

/// Releases green elements without recursion (see [`gedgraft_syntax::internal::release_iteratively`]).
pub(crate) fn drop_deep_elements(elements: Vec<GreenElement>) {
    gedgraft_syntax::internal::release_iteratively(
        elements.into_iter().filter_map(|e| e.into_node()).collect(),
    );
}

/// Releases a green tree without recursion (see [`drop_deep_elements`]).
pub(crate) fn drop_deep(node: GreenNode) {
    drop_deep_elements(vec![NodeOrToken::Node(node)]);
}

/// Visits every node below `node` (which starts at `offset`) in document order, with its start offset;
/// iterative. `f` returns whether to descend into the node.
pub(crate) fn walk_nodes(
    node: &GreenNodeData,
    offset: u32,
    mut f: impl FnMut(&GreenNodeData, u32) -> bool,
) {
    let mut stack = vec![(node.children(), offset)];
    while let Some((children, offset)) = stack.last_mut() {
        let Some(child) = children.next() else {
            stack.pop();
            continue;
        };
        let at = *offset;
        *offset += u32::from(child.text_len());
        if let NodeOrToken::Node(n) = child {
            if f(n, at) {
                stack.push((n.children(), at));
            }
        }
    }
}

/// Calls `f(node, offset)` for every non-root node of the tree `root` that starts at one of `starts` (sorted,
/// deduplicated), in document order; walks only the paths to them.
pub(crate) fn visit_starts(
    root: &GreenNodeData,
    starts: &[u32],
    mut f: impl FnMut(&GreenNodeData, u32),
) {
    walk_nodes(root, 0, |node, at| {
        let end = at + u32::from(node.text_len());
        let next = starts.get(starts.partition_point(|&s| s < at));
        if next == Some(&at) {
            f(node, at);
        }
        // Down only towards a start inside this node.
        next.is_some_and(|&s| s < end)
    });
}

/// The token texts of a run of green elements, in order.
pub(crate) fn texts<'a>(
    elements: impl Iterator<Item = NodeOrToken<&'a GreenNodeData, &'a GreenTokenData>>,
) -> impl Iterator<Item = &'a str> {
    elements.flat_map(|e| {
        let (token, node) = match e {
            NodeOrToken::Token(t) => (Some(t), None),
            NodeOrToken::Node(n) => (None, Some(gedgraft_syntax::internal::green_tokens(n))),
        };
        token
            .into_iter()
            .chain(node.into_iter().flatten())
            .map(|t| t.text())
    })
}

/// The borrowed form of an owned green element.
pub(crate) fn element_ref(e: &GreenElement) -> NodeOrToken<&GreenNodeData, &GreenTokenData> {
    match e {
        NodeOrToken::Node(n) => NodeOrToken::Node(&**n),
        NodeOrToken::Token(t) => NodeOrToken::Token(&**t),
    }
}

/// Whether two runs of text pieces spell the same text, however they are cut.
pub(crate) fn same_text<'a, 'b>(
    mut a: impl Iterator<Item = &'a str>,
    mut b: impl Iterator<Item = &'b str>,
) -> bool {
    let (mut x, mut y): (&[u8], &[u8]) = (&[], &[]);
    loop {
        while x.is_empty() {
            match a.next() {
                Some(s) => x = s.as_bytes(),
                None => break,
            }
        }
        while y.is_empty() {
            match b.next() {
                Some(s) => y = s.as_bytes(),
                None => break,
            }
        }
        match (x.is_empty(), y.is_empty()) {
            (true, true) => return true,
            (false, false) => {}
            _ => return false,
        }
        let n = x.len().min(y.len());
        if x[..n] != y[..n] {
            return false;
        }
        x = &x[n..];
        y = &y[n..];
    }
}

#[cfg(test)]
mod tests {
    use super::{resolve_texts, NodeKey, Splice, CHILDREN_STEPPED};
    use gedgraft_syntax::ast::AstToken;
    use gedgraft_syntax::SyntaxNode;
    use std::ops::Range;

    /// The text of children `range` of `node`, walked from the first child (the straightforward way).
    fn walked(node: &SyntaxNode, range: Range<usize>) -> Range<u32> {
        let starts: Vec<u32> = node
            .children_with_tokens()
            .map(|c| u32::from(c.text_range().start()))
            .chain([u32::from(node.text_range().end())])
            .collect();
        let at = |i: usize| starts[i.min(starts.len() - 1)];
        at(range.start)..at(range.end)
    }

    #[test]
    fn resolved_texts_are_the_children_texts() {
        let parse = gedgraft_syntax::parse(
            b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME A\n2 GIVN A\n1 NOTE x\n2 CONT y\n\n0 TRLR\n",
        );
        let root = parse.syntax();
        let mut splices = Vec::new();
        let mut expected = Vec::new();
        let nodes = std::iter::once(root.clone()).chain(root.descendants().skip(1));
        for node in nodes {
            let n = node.children_with_tokens().count();
            for start in 0..=n + 1 {
                for end in start..=n + 1 {
                    splices.push(Splice::new(&node, start..end, Vec::new(), 0));
                    expected.push(walked(&node, start..end));
                }
            }
        }
        // In reverse, so that the batch is not already in order.
        splices.reverse();
        expected.reverse();
        resolve_texts(parse.green(), &mut splices);
        let texts: Vec<Range<u32>> = splices.iter().map(|s| s.text.clone()).collect();
        assert_eq!(texts, expected);
        // A key that names no node leaves its splice alone and does not stop the others.
        let mut stray = vec![
            Splice::new(&root, 1..2, Vec::new(), 0),
            Splice {
                parent: NodeKey {
                    root: false,
                    start: 1,
                },
                ..Splice::new(&root, 0..1, Vec::new(), 0)
            },
        ];
        resolve_texts(parse.green(), &mut stray);
        assert_eq!(
            (stray[0].text.clone(), stray[1].text.clone()),
            (walked(&root, 1..2), 0..0)
        );
    }

    /// Children stepped over while deleting every FAM record of a file of `families` families.
    fn steps_deleting_families(families: usize) -> usize {
        let mut input = String::from("0 HEAD\n1 CHAR UTF-8\n");
        for i in 0..families {
            input.push_str(&format!(
                "0 @I{i}@ INDI\n1 FAMS @F{i}@\n0 @F{i}@ FAM\n1 HUSB @I{i}@\n"
            ));
        }
        input.push_str("0 TRLR\n");
        let parse = gedgraft_syntax::parse(input.as_bytes());
        let mut editor = crate::Editor::new(&parse);
        for record in parse.document().records() {
            if record.tag().is_some_and(|t| t.text() == "FAM") {
                editor.delete(&record).expect("delete");
            }
        }
        CHILDREN_STEPPED.with(|n| n.set(0));
        let edited = editor.apply().expect("apply");
        assert!(!edited.bytes().windows(5).any(|w| w == b" FAM\n"));
        CHILDREN_STEPPED.with(|n| n.get())
    }

    /// Issue #12: splicing `n` deletions among the records walks the document's children once, not once per
    /// deletion (which was quadratic: 10.9 s for 100 000 records).
    #[test]
    fn deleting_many_records_steps_over_each_child_once() {
        let small = steps_deleting_families(1_000);
        let large = steps_deleting_families(2_000);
        // 2 records per family, plus the header and trailer: the walk stops at the last FAM.
        assert!(small <= 2 * 1_000 + 2, "{small} steps for 1 000 families");
        assert!(large <= 2 * 2_000 + 2, "{large} steps for 2 000 families");
        assert!(large <= small * 23 / 10, "{small} → {large}");
    }
}
