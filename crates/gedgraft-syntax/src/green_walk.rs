//! Walking green trees without recursion: the tokens of a subtree in text order, and releasing deep trees.
//! An explicit stack keeps depth on the heap, never on the call stack (invariant 4).

use rowan::{Children, GreenNode, GreenNodeData, GreenTokenData, NodeOrToken};

/// The tokens of a green subtree in text order.
///
/// ```
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 TRLR\n");
/// let text: String = gedgraft_syntax::internal::green_tokens(parse.green()).map(|t| t.text()).collect();
/// assert_eq!(text, "0 HEAD\n0 TRLR\n");
/// ```
pub fn green_tokens(node: &GreenNodeData) -> GreenTokens<'_> {
    GreenTokens {
        stack: vec![node.children()],
    }
}

/// The iterator of [`green_tokens`].
#[derive(Debug, Clone)]
pub struct GreenTokens<'a> {
    stack: Vec<Children<'a>>,
}

impl<'a> Iterator for GreenTokens<'a> {
    type Item = &'a GreenTokenData;

    fn next(&mut self) -> Option<&'a GreenTokenData> {
        loop {
            let children = self.stack.last_mut()?;
            match children.next() {
                None => {
                    self.stack.pop();
                }
                Some(NodeOrToken::Node(node)) => self.stack.push(node.children()),
                Some(NodeOrToken::Token(token)) => return Some(token),
            }
        }
    }
}

/// Releases green nodes without recursion. rowan frees a node's children recursively, which overflows the stack
/// on very deep trees: here every node of the subtrees is held in a list, parents before children, and the list
/// is released from the front, so each release frees one node.
///
/// ```
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n1 A\n2 B\n0 TRLR\n");
/// gedgraft_syntax::internal::release_iteratively(vec![parse.green().clone()]);
/// ```
pub fn release_iteratively(roots: Vec<GreenNode>) {
    let mut nodes = roots;
    let mut i = 0;
    while i < nodes.len() {
        let children: Vec<GreenNode> = nodes[i]
            .children()
            .filter_map(|c| c.into_node().map(|n| n.to_owned()))
            .collect();
        nodes.extend(children);
        i += 1;
    }
    for node in nodes {
        drop(node);
    }
}
