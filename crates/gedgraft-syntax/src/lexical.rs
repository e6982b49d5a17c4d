//! The lexical facts of the grammar, each in one place: what a level, a tag and a cross-reference identifier
//! are, how `@`s enclose an identifier, and how messages name a character.
//!
//! The lexer, the typed tree ([`ast`](crate::ast)), the selector, the lowering and the editor all ask here;
//! none keeps a copy of these rules.
//!
//! ```
//! use gedgraft_syntax::lexical::{is_tag, read_level, strip_ats, BadLevel};
//! assert_eq!(read_level("12"), Ok(12));
//! assert_eq!(read_level("012"), Err(BadLevel::LeadingZero));
//! assert!(is_tag("_UID") && !is_tag("BIRT.DATE"));
//! assert_eq!(strip_ats("@I1@"), "I1");
//! ```

use gedgraft_encoding::raw;

/// The deepest level a line may have. R-LINES-03 sets no upper limit, but a line of level `L` can only be
/// well formed after `L` lines of levels `0..L` in the same record (R-LINES-04), each at least four octets
/// long, so a level past `u32::MAX` can never be valid in a tree rowan can hold (its offsets are 32-bit).
/// Larger levels are reported as [`codes::LEVEL_OUT_OF_RANGE`](crate::codes::LEVEL_OUT_OF_RANGE) instead of
/// being silently saturated.
pub const MAX_LEVEL: usize = u32::MAX as usize;

/// Why a run of characters is not a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BadLevel {
    /// Empty or not all ASCII digits.
    NotANumber,
    /// More than one digit, starting with `0` (R-LINES-03).
    LeadingZero,
    /// More than [`MAX_LEVEL`].
    OutOfRange,
}

/// The value of a level as written: `0` or `[1-9][0-9]*` (R-LINES-03), at most [`MAX_LEVEL`]. The one place a
/// level's text is read: the lexer, [`Level::value`](crate::ast::Level::value) and, through it, the lowering
/// and the editor all go through here.
///
/// ```
/// use gedgraft_syntax::lexical::{read_level, BadLevel};
/// assert_eq!(read_level("4294967295"), Ok(4294967295));
/// assert_eq!(read_level("4294967296"), Err(BadLevel::OutOfRange));
/// assert_eq!(read_level("1a"), Err(BadLevel::NotANumber));
/// ```
pub fn read_level(digits: &str) -> Result<usize, BadLevel> {
    if digits.is_empty() || !digits.bytes().all(|d| d.is_ascii_digit()) {
        return Err(BadLevel::NotANumber);
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return Err(BadLevel::LeadingZero);
    }
    let mut level = 0usize;
    for d in digits.bytes() {
        level = level
            .checked_mul(10)
            .and_then(|l| l.checked_add(usize::from(d - b'0')))
            .filter(|&l| l <= MAX_LEVEL)
            .ok_or(BadLevel::OutOfRange)?;
    }
    Ok(level)
}

/// Whether an octet may stand in a tag: `Tag ::= [0-9A-Za-z_]+` (R-TAGS-01).
pub fn is_tag_octet(octet: u8) -> bool {
    octet.is_ascii_alphanumeric() || octet == b'_'
}

/// Whether `text` is a tag: one or more of [`is_tag_octet`] (R-TAGS-01).
///
/// ```
/// assert!(gedgraft_syntax::lexical::is_tag("_MARNM"));
/// assert!(!gedgraft_syntax::lexical::is_tag(""));
/// assert!(!gedgraft_syntax::lexical::is_tag("NAME:"));
/// ```
pub fn is_tag(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(is_tag_octet)
}

/// The ASCII punctuation an identifier may hold (`IDChar`, R-XREF-IDS-01).
pub const ID_PUNCTUATION: &str = "?$&'*+,;=._~-";

/// Whether a character may stand in a cross-reference identifier: `IDChar` (R-XREF-IDS-01), ASCII letters,
/// digits, [`ID_PUNCTUATION`] and the non-ASCII ranges the 2019 draft allows.
pub fn is_id_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || ID_PUNCTUATION.contains(c)
        || matches!(u32::from(c), 0xA0..=0xD7FF | 0xF900..=0xFFEF | 0x1_0000..=0xE_FFFF)
}

/// Whether a character may stand in an identifier under both identifier grammars, the ELF one and GEDCOM's
/// (R-XREF-IDS-01, R-POINTER-CONV-02): the ASCII characters of [`is_id_char`]. What the editor writes.
pub fn is_portable_id_char(c: char) -> bool {
    c.is_ascii() && is_id_char(c)
}

/// Whether a character may start an identifier the editor writes: `[0-9A-Za-z_]` (R-POINTER-CONV-02).
pub fn is_portable_id_start(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `@X@` → `X`: an identifier or a pointer without its `@`s; any other text as it is.
///
/// ```
/// use gedgraft_syntax::lexical::strip_ats;
/// assert_eq!(strip_ats("@F1@"), "F1");
/// assert_eq!(strip_ats("F1"), "F1");
/// assert_eq!(strip_ats("@F1"), "@F1");
/// ```
pub fn strip_ats(text: &str) -> &str {
    text.strip_prefix('@')
        .and_then(|t| t.strip_suffix('@'))
        .unwrap_or(text)
}

/// How messages name a character: an undecodable octet as such, a control or white-space character by its
/// code point, any other in backquotes.
///
/// ```
/// use gedgraft_syntax::lexical::describe_char;
/// assert_eq!(describe_char('#'), "`#`");
/// assert_eq!(describe_char('\t'), "U+0009");
/// ```
pub fn describe_char(c: char) -> String {
    if let Some(octet) = raw::to_octet(c) {
        format!("the undecodable octet {octet:02X}")
    } else if c.is_control() || c.is_whitespace() {
        format!("U+{:04X}", u32::from(c))
    } else {
        format!("`{c}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ELF-2019 R-XREF-IDS-01: IDChar; the editor writes the ASCII part only.
    #[test]
    fn r_xref_ids_01_identifier_characters() {
        for c in ['A', 'z', '0', '?', '~', '-', 'é', '\u{F900}', '\u{10000}'] {
            assert!(is_id_char(c), "{c:?}");
        }
        for c in ['@', ' ', '#', '!', '\u{9F}', '\u{E000}'] {
            assert!(!is_id_char(c), "{c:?}");
        }
        assert!(is_portable_id_char('~') && !is_portable_id_char('é'));
        assert!(is_portable_id_start('_') && !is_portable_id_start('-'));
    }
}
