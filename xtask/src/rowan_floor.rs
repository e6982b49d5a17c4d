//! A reference point for the parse benchmark: the least work that builds a rowan tree of the parser's shape.
//!
//! One thread; each line becomes a node whose children are its level, a space, its tag, a separator and a
//! payload text, and its line break, nested by level. Levels, spaces, line breaks and tags are shared tokens;
//! every payload is a token of its own; nodes are built from reused child buffers with mimalloc, as in the
//! parser. What it leaves out is what the parser adds: UTF-8 validation, lexing of xrefs, pointers and escapes,
//! diagnostics, continuation lines, the line cache, and threads. A line of any other shape is kept whole as one
//! token, so the tree still holds every octet (checked by the caller through its text length).

use rowan::{GreenNode, GreenToken, NodeOrToken, SyntaxKind};
use std::collections::HashMap;

type Element = NodeOrToken<GreenNode, GreenToken>;

const LEVEL: SyntaxKind = SyntaxKind(1);
const SPACE: SyntaxKind = SyntaxKind(2);
const TAG: SyntaxKind = SyntaxKind(3);
const TEXT: SyntaxKind = SyntaxKind(4);
const LINE_BREAK: SyntaxKind = SyntaxKind(5);
const STRUCTURE: SyntaxKind = SyntaxKind(6);
const DOCUMENT: SyntaxKind = SyntaxKind(7);

/// Builds the tree of `text` (LF line breaks; anything else stays in the line's text) and returns its root.
pub fn build(text: &str) -> GreenNode {
    let levels: Vec<GreenToken> = (0..10)
        .map(|d: u8| GreenToken::new(LEVEL, &d.to_string()))
        .collect();
    let space = GreenToken::new(SPACE, " ");
    let line_break = GreenToken::new(LINE_BREAK, "\n");
    let mut tags: HashMap<&str, GreenToken, rustc_hash::FxBuildHasher> = HashMap::default();
    // Open structures: (level, children); the document at the bottom.
    let mut stack: Vec<(usize, Vec<Element>)> = vec![(0, Vec::new())];
    let mut buffers: Vec<Vec<Element>> = Vec::new();
    for line in text.split_inclusive('\n') {
        let (content, has_break) = match line.strip_suffix('\n') {
            Some(content) => (content, true),
            None => (line, false),
        };
        let bytes = content.as_bytes();
        let level = match bytes {
            [d, b' ', ..] if d.is_ascii_digit() => Some(usize::from(d - b'0')),
            _ => None,
        };
        let level_or_deepest = level.unwrap_or(9);
        while stack.len() > 1 && stack.last().is_some_and(|(l, _)| *l >= level_or_deepest) {
            close_top(&mut stack, &mut buffers);
        }
        let mut children = buffers.pop().unwrap_or_default();
        match level {
            Some(level) => {
                let rest = &content[2..];
                let (tag, payload) = match rest.split_once(' ') {
                    Some((tag, payload)) => (tag, Some(payload)),
                    None => (rest, None),
                };
                let tag = tags
                    .entry(tag)
                    .or_insert_with(|| GreenToken::new(TAG, tag))
                    .clone();
                children.push(NodeOrToken::Token(levels[level].clone()));
                children.push(NodeOrToken::Token(space.clone()));
                children.push(NodeOrToken::Token(tag));
                if let Some(payload) = payload {
                    children.push(NodeOrToken::Token(space.clone()));
                    children.push(NodeOrToken::Token(GreenToken::new(TEXT, payload)));
                }
            }
            None => children.push(NodeOrToken::Token(GreenToken::new(TEXT, content))),
        }
        if has_break {
            children.push(NodeOrToken::Token(line_break.clone()));
        }
        stack.push((level_or_deepest, children));
    }
    while stack.len() > 1 {
        close_top(&mut stack, &mut buffers);
    }
    let children = stack
        .pop()
        .map(|(_, children)| children)
        .unwrap_or_default();
    GreenNode::new(DOCUMENT, children)
}

/// Closes the innermost open structure (never the document) into a node of its parent.
fn close_top(stack: &mut Vec<(usize, Vec<Element>)>, buffers: &mut Vec<Vec<Element>>) {
    if stack.len() > 1 {
        if let Some((_, mut children)) = stack.pop() {
            let node = GreenNode::new(STRUCTURE, children.drain(..));
            buffers.push(children);
            if let Some((_, parent)) = stack.last_mut() {
                parent.push(NodeOrToken::Node(node));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_tree_holds_every_octet_in_order() {
        for text in [
            "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Zoë /Łukasz/\n2 GIVN Zoë\n1 SEX F\n0 TRLR\n",
            "0 HEAD\n  not a line\n\n3 DEEP\n1 x\n0 TRLR",
            "",
        ] {
            assert_eq!(super::build(text).to_string(), text);
        }
    }
}
