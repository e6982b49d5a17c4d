//! The typed CST: thin views over syntax nodes and tokens.
//!
//! Every getter returns an `Option`, because any part of the tree may be missing or malformed. The views are
//! cheap to clone and compare by identity of the underlying node.
//!
//! ```
//! use gedgraft_syntax::ast::AstToken;
//! let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob /Smith/\n1 FAMC @F1@\n0 TRLR\n");
//! let indi = parse.document().records().nth(1).unwrap();
//! assert_eq!(indi.xref().unwrap().id(), "I1");
//! let name = indi.substructures().next().unwrap();
//! assert_eq!(name.tag().unwrap().text(), "NAME");
//! assert_eq!(name.payload().unwrap().raw_text(), "Bob /Smith/");
//! let famc = indi.substructures().nth(1).unwrap();
//! assert_eq!(famc.payload().unwrap().pointer().unwrap().target(), "F1");
//! ```

use crate::kind::{SyntaxElement, SyntaxKind, SyntaxNode, SyntaxToken};
use std::ops::Deref;

/// A typed view of a syntax node.
pub trait AstNode: Sized {
    /// The view of `node`, if it has the right kind.
    fn cast(node: SyntaxNode) -> Option<Self>;
    /// The underlying node.
    fn syntax(&self) -> &SyntaxNode;
}

/// A typed view of a syntax token.
pub trait AstToken: Sized {
    /// The view of `token`, if it has the right kind.
    fn cast(token: SyntaxToken) -> Option<Self>;
    /// The underlying token.
    fn syntax(&self) -> &SyntaxToken;
    /// The token's text.
    fn text(&self) -> &str {
        self.syntax().text()
    }
}

macro_rules! ast_node {
    ($(#[$doc:meta])* $name:ident: $($kind:ident)|+) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name(SyntaxNode);

        impl AstNode for $name {
            fn cast(node: SyntaxNode) -> Option<Self> {
                matches!(node.kind(), $(SyntaxKind::$kind)|+).then(|| $name(node))
            }
            fn syntax(&self) -> &SyntaxNode {
                &self.0
            }
        }
    };
}

macro_rules! ast_token {
    ($(#[$doc:meta])* $name:ident: $kind:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name(SyntaxToken);

        impl AstToken for $name {
            fn cast(token: SyntaxToken) -> Option<Self> {
                (token.kind() == SyntaxKind::$kind).then(|| $name(token))
            }
            fn syntax(&self) -> &SyntaxToken {
                &self.0
            }
        }
    };
}

ast_node!(
    /// The whole file.
    Document: Document
);
ast_node!(
    /// A structure at any level: a record or a substructure.
    Structure: Record | Structure
);
/// One well-formed line: a structure's first line (the leading tokens of its `RECORD`/`STRUCTURE` node, up to
/// and including the line break) or a `CONT`/`CONC` continuation line (a `LINE` node).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Line(SyntaxNode);

impl AstNode for Line {
    /// Accepts `LINE` nodes only; a structure's first line comes from [`Structure::line`].
    fn cast(node: SyntaxNode) -> Option<Self> {
        (node.kind() == SyntaxKind::Line).then(|| Line(node))
    }
    fn syntax(&self) -> &SyntaxNode {
        &self.0
    }
}
ast_node!(
    /// A malformed line, kept as written.
    ErrorLine: Error
);
ast_token!(
    /// A line's level number.
    Level: Level
);
ast_token!(
    /// A cross-reference label such as `@I1@`.
    XrefId: Xref
);
ast_token!(
    /// A tag such as `INDI`.
    Tag: Tag
);
ast_token!(
    /// A pointer payload such as `@F1@`.
    Pointer: Pointer
);
ast_token!(
    /// An escape sequence such as `@#DJULIAN@`.
    Escape: Escape
);

/// A level-0 structure.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Record(Structure);

impl AstNode for Record {
    fn cast(node: SyntaxNode) -> Option<Self> {
        (node.kind() == SyntaxKind::Record).then(|| Record(Structure(node)))
    }
    fn syntax(&self) -> &SyntaxNode {
        &self.0 .0
    }
}

impl Deref for Record {
    type Target = Structure;
    fn deref(&self) -> &Structure {
        &self.0
    }
}

fn children<N: AstNode>(node: &SyntaxNode) -> impl Iterator<Item = N> {
    node.children().filter_map(N::cast)
}

impl Document {
    /// The document view of a root node (any node is accepted; only its children are looked at).
    pub fn from_root(node: SyntaxNode) -> Document {
        Document(node)
    }

    /// The level-0 records, header and trailer included.
    pub fn records(&self) -> impl Iterator<Item = Record> {
        children(&self.0)
    }

    /// The header record, if the first record is `HEAD`.
    pub fn header(&self) -> Option<Record> {
        self.records()
            .next()
            .filter(|r| r.tag().is_some_and(|t| t.text() == "HEAD"))
    }

    /// The trailer record, if the last record is `TRLR`.
    pub fn trailer(&self) -> Option<Record> {
        self.records()
            .last()
            .filter(|r| r.tag().is_some_and(|t| t.text() == "TRLR"))
    }

    /// The record whose cross-reference identifier is `id` (without the `@`s).
    pub fn record_by_xref(&self, id: &str) -> Option<Record> {
        self.records()
            .find(|r| r.xref().is_some_and(|x| x.id() == id))
    }

    /// Every structure in the file, depth first (iterative: deep files are fine).
    pub fn all_structures(&self) -> impl Iterator<Item = Structure> {
        self.0.descendants().filter_map(Structure::cast)
    }
}

impl Structure {
    /// The structure's first line.
    pub fn line(&self) -> Option<Line> {
        Some(Line(self.0.clone()))
    }

    /// The level of the first line.
    pub fn level(&self) -> Option<Level> {
        self.line()?.level()
    }

    /// The cross-reference identifier of the first line.
    pub fn xref(&self) -> Option<XrefId> {
        self.line()?.xref()
    }

    /// The tag of the first line.
    pub fn tag(&self) -> Option<Tag> {
        self.line()?.tag()
    }

    /// The payload of the first line, if it has a payload separator.
    pub fn payload(&self) -> Option<Payload> {
        self.line()?.payload()
    }

    /// The `CONT` and `CONC` lines that continue the first line.
    pub fn continuation_lines(&self) -> impl Iterator<Item = Line> {
        children::<Line>(&self.0)
    }

    /// The substructures, in order.
    pub fn substructures(&self) -> impl Iterator<Item = Structure> {
        children(&self.0)
    }

    /// The logical value of the structure's payload: escapes undone (`@@` → `@`, `@#U…@` → its characters;
    /// calendar escapes `@#D…@` kept), `CONT` lines merged as line feeds and `CONC` lines joined, per the file's
    /// dialect (GEDCOM 7 undoes only a leading `@@`); in an ANSEL file diacritics follow their letters. A
    /// pointer payload is [`Value::Pointer`](crate::Value::Pointer). `None` when the structure has no payload.
    /// This is the text [`Payload::raw_text`] holds escaped, the text the dataset holds, and the text the
    /// editor's `set_payload` takes. Undecodable octets read as U+FFFD.
    ///
    /// A structure does not know the encoding its file was read with: this goes by the file's `HEAD.CHAR`.
    /// For a file read in another encoding (mislabelled, or forced with `--encoding`),
    /// [`Parse::value`](crate::Parse::value) knows better.
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @N1@ NOTE a@@b @#U263A@\n1 CONC c\n1 CONT d\n0 @I1@ INDI\n1 FAMS @F1@\n0 TRLR\n");
    /// let doc = parse.document();
    /// let note = doc.record_by_xref("N1").unwrap();
    /// assert_eq!(note.value().unwrap().to_string(), "a@b \u{263A}c\nd");
    /// let fams = doc.record_by_xref("I1").unwrap().substructures().next().unwrap();
    /// assert_eq!(fams.value(), Some(gedgraft_syntax::Value::Pointer("F1".into())));
    /// ```
    pub fn value(&self) -> Option<crate::Value> {
        crate::value::of(self, None)
    }

    /// This structure's substructures, their substructures and so on, depth first in file order (pre-order; the
    /// structure itself not included). Iterative: deep files are fine.
    ///
    /// ```
    /// use gedgraft_syntax::ast::AstToken;
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 BIRT\n2 DATE 1900\n1 NAME Bob\n0 TRLR\n");
    /// let indi = parse.document().record_by_xref("I1").unwrap();
    /// let tags: Vec<String> = indi.descendants().filter_map(|s| s.tag()).map(|t| t.text().to_string()).collect();
    /// assert_eq!(tags, ["BIRT", "DATE", "NAME"]);
    /// ```
    pub fn descendants(&self) -> impl Iterator<Item = Structure> {
        self.0.descendants().skip(1).filter_map(Structure::cast)
    }

    /// Malformed lines nested in this structure.
    pub fn error_lines(&self) -> impl Iterator<Item = ErrorLine> {
        children(&self.0)
    }

    /// The parent structure, if this is not a record.
    pub fn parent(&self) -> Option<Structure> {
        self.0.parent().and_then(Structure::cast)
    }

    /// Whether this is a record (level 0).
    pub fn is_record(&self) -> bool {
        self.0.kind() == SyntaxKind::Record
    }

    /// Whether this is serialisation metadata or lies in it: a `HEAD` substructure tagged with one of
    /// [`SERIALISATION_METADATA`], or one of its substructures. Such structures cannot have continuation lines
    /// (2019 § Header metadata).
    ///
    /// ```
    /// use gedgraft_syntax::ast::{AstNode, Structure};
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n1 NOTE n\n0 TRLR\n");
    /// let head = parse.document().records().next().unwrap();
    /// let flags: Vec<bool> = head.syntax().descendants().filter_map(Structure::cast)
    ///     .map(|s| s.is_serialisation_metadata()).collect();
    /// assert_eq!(flags, [false, true, true, false]); // HEAD, GEDC, VERS, NOTE
    /// ```
    pub fn is_serialisation_metadata(&self) -> bool {
        let tag = |s: &Structure| s.tag().map(|t| t.text().to_string());
        let mut chain: Vec<Structure> =
            std::iter::successors(Some(self.clone()), Structure::parent).collect();
        let (Some(record), Some(under_head)) = (chain.pop(), chain.pop()) else {
            return false;
        };
        record.is_record()
            && tag(&record).as_deref() == Some("HEAD")
            && tag(&under_head).is_some_and(|t| SERIALISATION_METADATA.contains(&t.as_str()))
    }
}

/// The tags of the header's serialisation metadata (R-HEADER-02; `GEDC`, not `GED`, per R-HEADER-03).
pub const SERIALISATION_METADATA: [&str; 5] = ["CHAR", "ELF", "GEDC", "PLANG", "SCHMA"];

impl Line {
    /// The line's tokens, up to and including its line break.
    pub fn tokens(&self) -> impl Iterator<Item = SyntaxToken> {
        let mut ended = false;
        self.0
            .children_with_tokens()
            .map_while(SyntaxElement::into_token)
            .take_while(move |t| {
                let take = !ended;
                ended |= t.kind() == SyntaxKind::LineBreak;
                take
            })
    }

    /// The range of the line in the tree's text, line break included.
    pub fn text_range(&self) -> text_size::TextRange {
        let start = self.0.text_range().start();
        let end = self.tokens().last().map_or(start, |t| t.text_range().end());
        text_size::TextRange::new(start, end)
    }

    /// The node holding the line's tokens: a `LINE` node, or the `RECORD`/`STRUCTURE` whose first line this is.
    pub fn node(&self) -> &SyntaxNode {
        &self.0
    }

    fn token<T: AstToken>(&self) -> Option<T> {
        self.tokens().find_map(T::cast)
    }

    /// The level.
    pub fn level(&self) -> Option<Level> {
        self.token()
    }

    /// The cross-reference identifier.
    pub fn xref(&self) -> Option<XrefId> {
        self.token()
    }

    /// The tag.
    pub fn tag(&self) -> Option<Tag> {
        self.token()
    }

    /// The payload, if the line has a payload separator (possibly followed by nothing).
    pub fn payload(&self) -> Option<Payload> {
        let sep = self.tokens().find(|t| t.kind() == SyntaxKind::PayloadSep)?;
        Some(Payload { sep })
    }

    /// The line break at the end of the line, if any.
    pub fn line_break(&self) -> Option<SyntaxToken> {
        self.tokens()
            .last()
            .filter(|t| t.kind() == SyntaxKind::LineBreak)
    }

    /// Whether this is a `CONT` or `CONC` line.
    pub fn is_continuation(&self) -> bool {
        self.tag()
            .is_some_and(|t| matches!(t.text(), "CONT" | "CONC"))
    }
}

impl Level {
    /// The level as a number. A `LEVEL` token of a parsed tree always holds a level from 0 to
    /// [`MAX_LEVEL`](crate::MAX_LEVEL) (a larger one makes the line malformed, `level-out-of-range`); a token
    /// whose text is not such a level (only in a tree built by hand) gives `usize::MAX`.
    pub fn value(&self) -> usize {
        Level::value_of(self.text()).unwrap_or(usize::MAX)
    }

    /// The level a `LEVEL` token's text stands for (`0` or digits without a leading zero, R-LINES-03, up to
    /// [`MAX_LEVEL`](crate::MAX_LEVEL)), for code that holds the text rather than the token, such as a green tree.
    ///
    /// ```
    /// use gedgraft_syntax::ast::Level;
    /// assert_eq!(Level::value_of("2"), Some(2));
    /// assert_eq!(Level::value_of("02"), None);
    /// assert_eq!(Level::value_of("4294967296"), None);
    /// assert_eq!(Level::value_of("x"), None);
    /// ```
    pub fn value_of(text: &str) -> Option<usize> {
        crate::lexical::read_level(text).ok()
    }
}

impl XrefId {
    /// The identifier without its `@`s.
    pub fn id(&self) -> &str {
        crate::lexical::strip_ats(self.text())
    }
}

impl Pointer {
    /// The identifier pointed at, without its `@`s.
    pub fn target(&self) -> &str {
        crate::lexical::strip_ats(self.text())
    }
}

impl Escape {
    /// The escape type: the character after `@#` (`U`, `D`, …).
    pub fn escape_type(&self) -> Option<char> {
        self.text().get(2..)?.chars().next()
    }

    /// The escape value: the text between the type and the closing `@`.
    pub fn value(&self) -> &str {
        let t = self.text();
        let start = 2 + self.escape_type().map_or(0, char::len_utf8);
        t.get(start..t.len().saturating_sub(1)).unwrap_or("")
    }
}

/// The payload of a line: everything after its payload separator.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Payload {
    sep: SyntaxToken,
}

impl Payload {
    /// The payload's tokens, in order (text, `@@`, escapes, bare `@`, raw octets, or a pointer with the
    /// whitespace around it).
    pub fn tokens(&self) -> impl Iterator<Item = SyntaxToken> {
        let line = self.sep.parent();
        std::iter::successors(self.sep.next_token(), |t| t.next_token())
            .take_while(move |t| t.parent() == line && t.kind() != SyntaxKind::LineBreak)
    }

    /// The pointer, if the payload is one.
    pub fn pointer(&self) -> Option<Pointer> {
        self.tokens().find_map(Pointer::cast)
    }

    /// The escape sequences in the payload.
    pub fn escapes(&self) -> impl Iterator<Item = Escape> {
        self.tokens().filter_map(Escape::cast)
    }

    /// The payload as written (escapes not undone; raw octets as raw characters).
    pub fn raw_text(&self) -> String {
        self.tokens().map(|t| t.text().to_string()).collect()
    }

    /// The payload separator token.
    pub fn separator(&self) -> &SyntaxToken {
        &self.sep
    }
}
