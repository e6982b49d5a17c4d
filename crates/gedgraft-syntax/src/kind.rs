//! The kinds of tokens and nodes in the tree.

/// The kind of a token or node.
///
/// Tokens (leaves) carry text; nodes group tokens and other nodes. Every character of the decoded file lies in
/// exactly one token, so concatenating the tokens' text gives back the whole text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u16)]
pub enum SyntaxKind {
    // Trivia.
    /// A byte-order mark at the start of the file (U+FEFF).
    Bom = 0,
    /// Spaces and tabs before a line's level, or forming a whitespace-only line.
    Whitespace,
    /// One line break: `\n`, `\r\n` or `\r` (LF followed by CR is two breaks).
    LineBreak,
    /// Text after the trailer line (or a whole file that is not GEDCOM), as one token; undecodable octets are
    /// raw characters inside it (a `RAW` token elsewhere).
    TrailingText,

    // Line components.
    /// A line's level (`0`, `1`, …).
    Level,
    /// A run of spaces and tabs between a line's components, or around a pointer payload.
    Delimiter,
    /// A cross-reference label, `@I1@` (the at signs included).
    Xref,
    /// A tag, `INDI`.
    Tag,
    /// The one space or tab between the tag and the payload.
    PayloadSep,

    // Payload pieces.
    /// A pointer payload, `@I1@` (the at signs included).
    Pointer,
    /// The text of a string payload, at signs included: an escaped at sign `@@` (read as one `@`) and a bare
    /// `@` (neither `@@` nor the start of an escape, nor the `@` of an `@#` with no closing `@`; read as a
    /// literal `@`, R-ESCAPING-04) are part of the text around them. Escapes and undecodable octets are
    /// tokens of their own. `internal::text_pieces` gives the `@@`s and bare `@`s of a text.
    Text,
    /// An escape sequence, `@#UE9@` (the at signs included).
    Escape,

    // Anywhere.
    /// Original octets the file's encoding cannot decode (one raw character per octet).
    Raw,
    /// The text of a line that does not match the `Line` production.
    ErrorText,

    // Nodes.
    /// The whole file.
    Document,
    /// A level-0 structure.
    Record,
    /// A structure below level 0.
    Structure,
    /// One well-formed line (the first line of a structure, or a `CONT`/`CONC` continuation line).
    Line,
    /// A malformed line, kept as written.
    Error,
}

impl SyntaxKind {
    const LAST: u16 = SyntaxKind::Error as u16;

    /// Whether tokens of this kind are trivia (carry no line content).
    pub fn is_trivia(self) -> bool {
        matches!(
            self,
            SyntaxKind::Bom
                | SyntaxKind::Whitespace
                | SyntaxKind::LineBreak
                | SyntaxKind::TrailingText
        )
    }

    /// Whether this kind is a node kind rather than a token kind.
    pub fn is_node(self) -> bool {
        self as u16 >= SyntaxKind::Document as u16
    }

    /// The kind with raw value `raw`, if there is one.
    pub fn from_raw(raw: u16) -> Option<SyntaxKind> {
        if raw > Self::LAST {
            return None;
        }
        Some(ALL[usize::from(raw)])
    }

    /// The name used in dumps: `SCREAMING_SNAKE_CASE`.
    pub fn name(self) -> &'static str {
        match self {
            SyntaxKind::Bom => "BOM",
            SyntaxKind::Whitespace => "WHITESPACE",
            SyntaxKind::LineBreak => "LINE_BREAK",
            SyntaxKind::TrailingText => "TRAILING_TEXT",
            SyntaxKind::Level => "LEVEL",
            SyntaxKind::Delimiter => "DELIMITER",
            SyntaxKind::Xref => "XREF",
            SyntaxKind::Tag => "TAG",
            SyntaxKind::PayloadSep => "PAYLOAD_SEP",
            SyntaxKind::Pointer => "POINTER",
            SyntaxKind::Text => "TEXT",
            SyntaxKind::Escape => "ESCAPE",
            SyntaxKind::Raw => "RAW",
            SyntaxKind::ErrorText => "ERROR_TEXT",
            SyntaxKind::Document => "DOCUMENT",
            SyntaxKind::Record => "RECORD",
            SyntaxKind::Structure => "STRUCTURE",
            SyntaxKind::Line => "LINE",
            SyntaxKind::Error => "ERROR",
        }
    }
}

const ALL: [SyntaxKind; SyntaxKind::LAST as usize + 1] = [
    SyntaxKind::Bom,
    SyntaxKind::Whitespace,
    SyntaxKind::LineBreak,
    SyntaxKind::TrailingText,
    SyntaxKind::Level,
    SyntaxKind::Delimiter,
    SyntaxKind::Xref,
    SyntaxKind::Tag,
    SyntaxKind::PayloadSep,
    SyntaxKind::Pointer,
    SyntaxKind::Text,
    SyntaxKind::Escape,
    SyntaxKind::Raw,
    SyntaxKind::ErrorText,
    SyntaxKind::Document,
    SyntaxKind::Record,
    SyntaxKind::Structure,
    SyntaxKind::Line,
    SyntaxKind::Error,
];

impl From<SyntaxKind> for rowan::SyntaxKind {
    fn from(kind: SyntaxKind) -> Self {
        rowan::SyntaxKind(kind as u16)
    }
}

/// The rowan language of ELF/GEDCOM trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Elf {}

impl rowan::Language for Elf {
    type Kind = SyntaxKind;

    fn kind_from_raw(raw: rowan::SyntaxKind) -> SyntaxKind {
        SyntaxKind::from_raw(raw.0).unwrap_or(SyntaxKind::Error)
    }

    fn kind_to_raw(kind: SyntaxKind) -> rowan::SyntaxKind {
        kind.into()
    }
}

/// A node of the tree.
pub type SyntaxNode = rowan::SyntaxNode<Elf>;
/// A token of the tree.
pub type SyntaxToken = rowan::SyntaxToken<Elf>;
/// A node or a token.
pub type SyntaxElement = rowan::SyntaxElement<Elf>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_values_round_trip() {
        for (i, kind) in ALL.iter().enumerate() {
            assert_eq!(*kind as usize, i);
            assert_eq!(SyntaxKind::from_raw(i as u16), Some(*kind));
        }
        assert_eq!(SyntaxKind::from_raw(SyntaxKind::LAST + 1), None);
    }
}
