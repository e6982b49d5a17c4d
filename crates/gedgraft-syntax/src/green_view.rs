//! Cheap typed views of the green tree, for readers that walk a whole tree once (the lowering, the stream's
//! lowering): the one green-level view of the syntax crate (issue 14: the model used to keep its own copy).
//!
//! The lowering reads the tree once, front to back. Red `SyntaxNode` cursors allocate a node per step and
//! keep parent links alive, so the lowering walks the green tree directly instead: a child iterator of a green
//! node borrows the node's child slice and allocates nothing. Text offsets are kept by summing the lengths of
//! the children; line numbers are counted from `LINE_BREAK` tokens as the walk passes them.
//!
//! The accessors mirror the typed CST of `gedgraft_syntax::ast` (`Structure::line`, `Line::tokens`,
//! `Line::payload`, `Payload::tokens`, …) exactly; the lowering's tests and the corpus snapshots hold them to it.

use crate::SyntaxKind;
use rowan::{GreenNodeData, GreenTokenData, NodeOrToken};
use text_size::{TextRange, TextSize};

/// The syntax kind of a raw rowan kind.
fn kind(raw: rowan::SyntaxKind) -> SyntaxKind {
    <crate::Elf as rowan::Language>::kind_from_raw(raw)
}

/// A green element and where it starts.
pub type Element<'g> = (NodeOrToken<&'g GreenNodeData, &'g GreenTokenData>, TextSize);

/// A green node and its start offset in the tree's text.
#[derive(Clone, Copy)]
pub struct Node<'g> {
    /// The green node.
    pub green: &'g GreenNodeData,
    /// Where it starts in the tree's text.
    pub start: TextSize,
}

/// A green token and its start offset in the tree's text.
#[derive(Clone, Copy)]
pub struct Token<'g> {
    /// The green token.
    pub green: &'g GreenTokenData,
    /// Where it starts in the tree's text.
    pub start: TextSize,
}

impl<'g> Token<'g> {
    /// The token's kind.
    pub fn kind(self) -> SyntaxKind {
        kind(self.green.kind())
    }

    /// The token's text.
    pub fn text(self) -> &'g str {
        self.green.text()
    }

    /// The token's range in the tree's text.
    pub fn range(self) -> TextRange {
        TextRange::at(self.start, self.green.text_len())
    }
}

/// The children of a node with their offsets. Cloning is cheap (a slice iterator and an offset).
#[derive(Clone)]
pub struct Elements<'g> {
    children: rowan::Children<'g>,
    offset: TextSize,
}

impl<'g> Iterator for Elements<'g> {
    type Item = Element<'g>;

    #[inline]
    fn next(&mut self) -> Option<Element<'g>> {
        let element = self.children.next()?;
        let start = self.offset;
        self.offset += match element {
            NodeOrToken::Node(n) => n.text_len(),
            NodeOrToken::Token(t) => t.text_len(),
        };
        Some((element, start))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.children.size_hint()
    }
}

impl ExactSizeIterator for Elements<'_> {}

impl Elements<'_> {
    /// The start of the next element.
    pub fn offset(&self) -> TextSize {
        self.offset
    }
}

impl<'g> Node<'g> {
    /// The node `green` starting at `start`.
    pub fn new(green: &'g GreenNodeData, start: TextSize) -> Node<'g> {
        Node { green, start }
    }

    /// The node's kind.
    pub fn kind(self) -> SyntaxKind {
        kind(self.green.kind())
    }

    /// The node's range in the tree's text.
    pub fn range(self) -> TextRange {
        TextRange::at(self.start, self.green.text_len())
    }

    /// Whether this is a `RECORD` or `STRUCTURE` node (what `ast::Structure::cast` accepts).
    pub fn is_structure(self) -> bool {
        matches!(self.kind(), SyntaxKind::Record | SyntaxKind::Structure)
    }

    /// The node's children with their starts.
    pub fn elements(self) -> Elements<'g> {
        Elements {
            children: self.green.children(),
            offset: self.start,
        }
    }

    /// The child nodes with their offsets.
    pub fn child_nodes(self) -> impl Iterator<Item = Node<'g>> {
        self.elements().filter_map(|(e, start)| match e {
            NodeOrToken::Node(n) => Some(Node::new(n, start)),
            NodeOrToken::Token(_) => None,
        })
    }

    /// The substructures (`ast::Structure::substructures`).
    pub fn substructures(self) -> impl Iterator<Item = Node<'g>> {
        self.child_nodes().filter(|n| n.is_structure())
    }

    /// The `CONT`/`CONC` lines (`ast::Structure::continuation_lines`).
    pub fn continuation_lines(self) -> impl Iterator<Item = LineInfo<'g>> {
        self.child_nodes()
            .filter(|n| n.kind() == SyntaxKind::Line)
            .map(Node::line)
    }

    /// The node's first line: a structure's first line, or a `LINE` node (`ast::Structure::line`).
    pub fn line(self) -> LineInfo<'g> {
        LineInfo::scan(self)
    }

    /// The level of the first line (`ast::Level::value`), without scanning the rest of the line; `None` for a
    /// node whose first line has no `LEVEL` token (a malformed line).
    pub fn level(self) -> Option<usize> {
        for (element, _) in self.elements() {
            let NodeOrToken::Token(t) = element else {
                return None;
            };
            match kind(t.kind()) {
                SyntaxKind::Level => return crate::ast::Level::value_of(t.text()),
                SyntaxKind::Whitespace => {}
                _ => return None,
            }
        }
        None
    }

    /// The tag of the first line, without scanning the rest of the line.
    pub fn tag(self) -> Option<&'g str> {
        for (element, _) in self.elements() {
            let NodeOrToken::Token(t) = element else {
                return None;
            };
            match kind(t.kind()) {
                SyntaxKind::Tag => return Some(t.text()),
                SyntaxKind::LineBreak => return None,
                _ => {}
            }
        }
        None
    }
}

/// What the lowering needs of one line: `ast::Line` read in one pass over its tokens.
#[derive(Clone)]
pub struct LineInfo<'g> {
    /// The first `XREF` token.
    pub xref: Option<Token<'g>>,
    /// The first `TAG` token.
    pub tag: Option<Token<'g>>,
    /// The end of the first `PAYLOAD_SEP` token: the line has a payload (possibly empty) if it is set.
    pub sep_end: Option<TextSize>,
    /// The elements from just after the separator: the first `payload_len` are the payload's tokens.
    payload: Elements<'g>,
    payload_len: usize,
    /// The end of the last payload token (the separator's end if there is none).
    payload_end: TextSize,
    /// The first `POINTER` token of the payload.
    pub pointer: Option<Token<'g>>,
    /// The range from the first to the last token that is neither whitespace nor a line break.
    pub content: TextRange,
    /// The node's elements after the line.
    pub rest: Elements<'g>,
    /// Whether the line ends with a line break.
    pub line_break: bool,
}

impl<'g> LineInfo<'g> {
    /// `ast::Line::tokens`: the node's leading tokens, up to and including the first line break.
    fn scan(node: Node<'g>) -> LineInfo<'g> {
        const LINE_BREAK: u16 = SyntaxKind::LineBreak as u16;
        const WHITESPACE: u16 = SyntaxKind::Whitespace as u16;
        const XREF: u16 = SyntaxKind::Xref as u16;
        const TAG: u16 = SyntaxKind::Tag as u16;
        const PAYLOAD_SEP: u16 = SyntaxKind::PayloadSep as u16;
        const POINTER: u16 = SyntaxKind::Pointer as u16;
        let mut children = node.green.children();
        let mut offset = node.start;
        let mut info = LineInfo {
            xref: None,
            tag: None,
            sep_end: None,
            payload: Elements {
                children: children.clone(),
                offset,
            },
            payload_len: 0,
            payload_end: node.start,
            pointer: None,
            content: TextRange::empty(node.start),
            rest: Elements {
                children: children.clone(),
                offset,
            },
            line_break: false,
        };
        let mut content_start = None;
        let mut end = node.start;
        // The children after the last token read.
        let mut after = children.clone();
        while let Some(NodeOrToken::Token(t)) = children.next() {
            let start = offset;
            offset += t.text_len();
            let kind = t.kind().0;
            if kind == LINE_BREAK {
                info.line_break = true;
                after = children;
                break;
            }
            after = children.clone();
            if kind != WHITESPACE {
                content_start.get_or_insert(start);
                end = offset;
            }
            let token = || Token { green: t, start };
            if info.sep_end.is_some() {
                info.payload_len += 1;
                info.payload_end = offset;
                if kind == POINTER && info.pointer.is_none() {
                    info.pointer = Some(token());
                }
            }
            match kind {
                XREF if info.xref.is_none() => info.xref = Some(token()),
                TAG if info.tag.is_none() => info.tag = Some(token()),
                PAYLOAD_SEP if info.sep_end.is_none() => {
                    info.sep_end = Some(offset);
                    info.payload = Elements {
                        children: after.clone(),
                        offset,
                    };
                    info.payload_end = offset;
                }
                _ => {}
            }
        }
        info.content = TextRange::new(content_start.unwrap_or(end).min(end), end);
        info.rest = Elements {
            children: after,
            offset,
        };
        info
    }

    /// The payload's one token, if it has exactly one.
    pub fn only_payload_token(&self) -> Option<Token<'g>> {
        if self.payload_len != 1 {
            return None;
        }
        let (element, start) = self.payload.clone().next()?;
        Some(Token {
            green: element.into_token()?,
            start,
        })
    }

    /// The tag's text, empty if there is none.
    pub fn tag_text(&self) -> &'g str {
        self.tag.map_or("", Token::text)
    }

    /// The payload's tokens (`ast::Payload::tokens`); none if the line has no payload.
    pub fn payload_tokens(&self) -> impl Iterator<Item = Token<'g>> {
        self.payload
            .clone()
            .take(self.payload_len)
            .filter_map(|(e, start)| e.into_token().map(|green| Token { green, start }))
    }

    /// The payload as written (`ast::Payload::raw_text`), empty if there is none.
    pub fn raw_payload(&self) -> String {
        let mut text = String::new();
        for token in self.payload_tokens() {
            text.push_str(token.text());
        }
        text
    }

    /// The range of the payload after the separator, or the line's content if it has none.
    pub fn payload_range(&self) -> TextRange {
        match self.sep_end {
            Some(start) => TextRange::new(start, self.payload_end.max(start)),
            None => self.content,
        }
    }

    /// The cross-reference identifier without its `@`s (`ast::XrefId::id`).
    pub fn xref_id(&self) -> Option<&'g str> {
        self.xref.map(|x| strip_ats(x.text()))
    }
}

pub use crate::lexical::strip_ats;

/// The number of `LINE_BREAK` tokens in a subtree.
pub fn count_line_breaks(node: Node<'_>) -> usize {
    crate::green_walk::green_tokens(node.green)
        .filter(|t| is_line_break(t))
        .count()
}

/// How a tree's text ends: `None` if it is empty, else whether its last octet ends a line (`\n` or `\r`,
/// whatever token holds it: text after the trailer may end with one too). A streamed diff reads a side that
/// ends otherwise on into the next batch's first line.
///
/// ```
/// use gedgraft_syntax::internal::green_view::ends_with_line_break;
/// let ends = |text: &[u8]| ends_with_line_break(gedgraft_syntax::parse(text).green());
/// assert_eq!((ends(b"0 HEAD\n"), ends(b"0 HEAD"), ends(b"")), (Some(true), Some(false), None));
/// assert_eq!(ends(b"0 HEAD\n0 TRLR\nafter\n"), Some(true));
/// ```
pub fn ends_with_line_break(green: &GreenNodeData) -> Option<bool> {
    let mut node = green;
    loop {
        match node.children().last()? {
            NodeOrToken::Node(n) => node = n,
            NodeOrToken::Token(t) => return Some(t.text().ends_with(['\n', '\r'])),
        }
    }
}

/// Whether a token is a line break (the walk counts lines with this).
pub fn is_line_break(token: &GreenTokenData) -> bool {
    kind(token.kind()) == SyntaxKind::LineBreak
}
