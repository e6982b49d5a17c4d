//! The logical value of a payload: what a structure's lines say once escapes are undone and continuation
//! lines merged (2019 § Unescaping string payloads, § Identifying escapes, § Permitted escapes, § Unicode
//! escapes, § Merging continuation lines), read the way the file's dialect says.
//!
//! The tree keeps the text as written ([`Payload::raw_text`](crate::ast::Payload::raw_text): `a@@b`, one
//! line); [`Structure::value`](crate::ast::Structure::value) gives the logical text (`a@b` and the `CONC`/`CONT`
//! lines after it), the same text the dataset of `gedgraft_model::lower` holds and the text
//! `gedgraft_edit::Editor::set_payload` takes. So a tool can read a value, change it and write it back.
//!
//! Each line is unescaped on its own and only then are the lines merged (R-PAYLOAD-UNESC-06, reading A), so an
//! escape split over two lines is not an escape. The helpers below the [`Value`] type are shared with the
//! lowering and are not part of the API.

use crate::ast::{AstNode, AstToken, Line, Structure};
use crate::{Dialect, SyntaxKind};
use gedgraft_encoding::{ansel, raw};
use std::fmt;
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// The logical value of a structure's payload.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Value {
    /// A string: escapes undone, continuation lines merged (`CONT` as a line feed).
    Text(String),
    /// A pointer to the structure with this cross-reference identifier (without its `@`s).
    Pointer(String),
}

impl fmt::Display for Value {
    /// The text, or the pointer as written (`@I1@`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Text(text) => f.write_str(text),
            Value::Pointer(id) => write!(f, "@{id}@"),
        }
    }
}

/// The value of `structure` (see [`Structure::value`]): `None` when its first line has no payload and no
/// continuation line adds text. `ansel`: whether the file was read as ANSEL; `None` to go by its `HEAD.CHAR`.
pub(crate) fn of(structure: &Structure, ansel: Option<bool>) -> Option<Value> {
    if let Some(pointer) = structure.payload().and_then(|p| p.pointer()) {
        return Some(Value::Pointer(pointer.target().to_string()));
    }
    let document = crate::ast::Document::from_root(structure.syntax().ancestors().last()?);
    let finishing = Finishing {
        ansel: ansel.unwrap_or_else(|| declares_ansel(&document)),
        nfc: false,
        dialect: Dialect::of(&document),
    };
    let mut builder = TextBuilder::new(finishing);
    let mut out = String::new();
    let first = structure.payload();
    let mut any = first.is_some();
    if let Some(payload) = first {
        unescape(payload.tokens(), &mut builder, &mut out);
    }
    for line in structure.continuation_lines() {
        any = true;
        if line.tag().is_some_and(|t| t.text() == "CONT") {
            builder.decoded(&mut out, "\n");
        }
        if let Some(payload) = Line::payload(&line) {
            unescape(payload.tokens(), &mut builder, &mut out);
        }
    }
    builder.finish(&mut out, 0, finishing);
    any.then_some(Value::Text(out))
}

/// Whether the document's header declares ANSEL: its literal text is then in ANSEL order (a diacritic before
/// its letter) and is reordered.
fn declares_ansel(document: &crate::ast::Document) -> bool {
    use gedgraft_encoding::{declared_encoding, is_char_tag, Encoding};
    let Some(header) = document.header() else {
        return false;
    };
    let char = header
        .substructures()
        .find(|s| s.tag().is_some_and(|t| is_char_tag(t.text())));
    char.is_some_and(|c| {
        let value = c.payload().map(|p| p.raw_text()).unwrap_or_default();
        let vers = c
            .substructures()
            .find(|v| v.tag().is_some_and(|t| t.text() == "VERS"))
            .and_then(|v| v.payload())
            .map(|p| p.raw_text());
        declared_encoding(&value, vers.as_deref(), None) == Some(Encoding::Ansel)
    })
}

/// Unescapes one line's payload tokens (no diagnostics: the lowering reports what is wrong).
fn unescape(
    tokens: impl Iterator<Item = crate::SyntaxToken>,
    builder: &mut TextBuilder,
    out: &mut String,
) {
    for (i, token) in tokens.enumerate() {
        match token.kind() {
            SyntaxKind::Text => builder.text(out, token.text(), i == 0),
            SyntaxKind::Escape if !builder.leading_at_only => match escape_meaning(token.text()) {
                EscapeMeaning::Unicode { chars, .. } => builder.decoded(out, &chars),
                _ => builder.literal(out, token.text()),
            },
            _ => builder.literal(out, token.text()),
        }
    }
}

#[doc(hidden)]
/// What kind of escape is not acceptable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EscapeProblem {
    /// A type other than `U` and `D` (R-PERMITTED-ESCS-01, R-PERMITTED-ESCS-05).
    Unpermitted,
    /// A `U` escape that does not match `UnicodeEsc` or names no character (R-UNICODE-ESCAPE-02).
    BadUnicode,
}

#[doc(hidden)]
/// How decoded tree text becomes dataset text.
#[derive(Debug, Clone, Copy, Default)]
pub struct Finishing {
    /// The file is ANSEL: literal text is in ANSEL order (diacritic before its letter) and is reordered.
    pub ansel: bool,
    /// Normalise to NFC.
    pub nfc: bool,
    /// The file's dialect: GEDCOM 7 doubles only a leading `@` and has no escapes.
    pub dialect: Dialect,
}

#[doc(hidden)]
/// A string payload being assembled from its lines, at the end of an output string (the part's text).
///
/// Text written in the file ("literal": plain text, `@` from `@@` or a bare `@`, escapes kept as written, raw
/// octets) is kept apart from text the lowering made (characters of Unicode escapes, the line breaks of
/// `CONT`): only literal text is in the file's octet order, so only it is reordered for ANSEL, and only its raw
/// characters stand for undecodable octets.
///
/// A builder made with [`TextBuilder::new`] for a file that is not ANSEL needs no reordering, so it maps raw
/// octets as literal text arrives and writes everything straight into the output. The default builder keeps
/// the pieces apart until [`TextBuilder::finish`].
#[derive(Debug, Default)]
pub struct TextBuilder {
    /// Literal runs are written straight into the output (the file is not ANSEL).
    direct: bool,
    /// Only a leading `@@` is an escape (GEDCOM 7).
    pub leading_at_only: bool,
    pieces: Vec<(bool, String)>,
}

impl TextBuilder {
    /// A builder for payloads that will be finished with `finishing`.
    pub fn new(finishing: Finishing) -> TextBuilder {
        TextBuilder {
            direct: !finishing.ansel,
            leading_at_only: finishing.dialect.doubles_only_leading_at(),
            ..TextBuilder::default()
        }
    }

    /// Appends text as written in the file.
    #[inline]
    pub fn literal(&mut self, out: &mut String, text: &str) {
        if self.direct {
            push_mapping_raw(out, text);
        } else {
            self.push(true, text);
        }
    }

    /// Appends the text of a `TEXT` token, each escaped at sign `@@` as one `@` (R-IDENTIFY-ESCS-02; a bare `@`
    /// is a literal `@`); in a dialect that doubles only a leading `@` (GEDCOM 7), only a `@@` that starts the
    /// line string, which `first` says the token does.
    pub fn text(&mut self, out: &mut String, text: &str, first: bool) {
        if !text.contains("@@") {
            return self.literal(out, text);
        }
        if self.leading_at_only {
            match text.strip_prefix("@@").filter(|_| first) {
                Some(rest) => {
                    self.literal(out, "@");
                    self.literal(out, rest);
                }
                None => self.literal(out, text),
            }
            return;
        }
        for piece in crate::lexer::text_pieces(text) {
            self.literal(out, if piece == "@@" { "@" } else { piece });
        }
    }

    /// Appends text the lowering produced (Unicode escapes, line breaks).
    pub fn decoded(&mut self, out: &mut String, text: &str) {
        if self.direct {
            out.push_str(text);
        } else {
            self.push(false, text);
        }
    }

    fn push(&mut self, literal: bool, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.pieces.last_mut() {
            Some((l, s)) if *l == literal => s.push_str(text),
            _ => self.pieces.push((literal, text.to_string())),
        }
    }

    /// Finishes the payload, which is `out` from `start` on plus the pieces kept apart: literal runs reordered
    /// for ANSEL (`ansel::to_unicode_order`, which also gives the table character of the octets ANSEL keeps
    /// raw), every remaining raw octet as U+FFFD, then NFC if asked. The builder is then empty for the next
    /// payload.
    #[inline]
    pub fn finish(&mut self, out: &mut String, start: usize, finishing: Finishing) {
        if !self.pieces.is_empty() || finishing.nfc {
            self.finish_pieces(out, start, finishing);
        }
    }

    fn finish_pieces(&mut self, out: &mut String, start: usize, finishing: Finishing) {
        for (literal, piece) in self.pieces.drain(..) {
            if !literal {
                out.push_str(&piece);
                continue;
            }
            let piece = if finishing.ansel {
                ansel::to_unicode_order(&piece)
            } else {
                piece
            };
            push_mapping_raw(out, &piece);
        }
        if finishing.nfc {
            let written = out.get(start..).unwrap_or("");
            if is_nfc_quick(written.chars()) != IsNormalized::Yes {
                let normalized: String = written.nfc().collect();
                out.truncate(start);
                out.push_str(&normalized);
            }
        }
    }
}

/// Appends literal text, every raw octet as U+FFFD.
fn push_mapping_raw(out: &mut String, text: &str) {
    // Raw characters are not ASCII, and most payload pieces are.
    if !text.is_ascii() && raw::contains_raw(text) {
        out.extend(text.chars().map(|c| {
            if raw::is_raw(c) {
                char::REPLACEMENT_CHARACTER
            } else {
                c
            }
        }));
    } else {
        out.push_str(text);
    }
}

#[doc(hidden)]
/// Text as written, finished (for serialisation metadata, whose payloads are never unescaped, R-HEADER-04).
pub fn literal_text(text: &str, finishing: Finishing) -> String {
    let mut out = String::new();
    let mut builder = TextBuilder::new(finishing);
    builder.literal(&mut out, text);
    builder.finish(&mut out, 0, finishing);
    out
}

#[doc(hidden)]
/// What one escape sequence means.
#[derive(Debug, PartialEq, Eq)]
pub enum EscapeMeaning {
    /// A Unicode escape and its characters; `lowercase` if it used lower-case hex digits.
    Unicode { chars: String, lowercase: bool },
    /// A permitted escape left as written (`D`, R-PERMITTED-ESCS-04, R-PAYLOAD-UNESC-02).
    Kept,
    /// Not acceptable: what is wrong and a message; the escape stays as written.
    Rejected(EscapeProblem, String),
    /// Not an escape sequence (`@#` then no upper-case letter, R-ESCAPE-SEQ-02): the syntax layer reports it
    /// (`bad-escape`); it stays as written.
    Malformed,
}

#[doc(hidden)]
/// Classifies an `ESCAPE` token's text (`@#` … `@`).
pub fn escape_meaning(text: &str) -> EscapeMeaning {
    let inner = text
        .strip_prefix("@#")
        .and_then(|t| t.strip_suffix('@'))
        .unwrap_or("");
    let mut chars = inner.chars();
    let kind = chars.next();
    let value = chars.as_str();
    match kind {
        Some('U') => unicode_escape(text, value),
        Some('D') => EscapeMeaning::Kept,
        Some(c) if c.is_ascii_uppercase() => EscapeMeaning::Rejected(
            EscapeProblem::Unpermitted,
            format!(
                "escape `{text}` has type `{c}`; only `U` (Unicode) and `D` (calendar) escapes are permitted"
            ),
        ),
        _ => EscapeMeaning::Malformed,
    }
}

/// `UnicodeEsc ::= S? ( HexNumber (S HexNumber)* S? )?` with `HexNumber ::= [0-9A-F]+` (R-UNICODE-ESCAPE-02);
/// lower-case digits are accepted with a warning (R-UNICODE-ESCAPE-03).
fn unicode_escape(text: &str, value: &str) -> EscapeMeaning {
    let mut chars = String::new();
    let mut lowercase = false;
    for number in value.split([' ', '\t']).filter(|n| !n.is_empty()) {
        if !number.bytes().all(|b| b.is_ascii_hexdigit()) {
            return EscapeMeaning::Rejected(
                EscapeProblem::BadUnicode,
                format!(
                    "Unicode escape `{text}` may hold only hexadecimal numbers separated by spaces"
                ),
            );
        }
        lowercase |= number.bytes().any(|b| b.is_ascii_lowercase());
        let digits = number.trim_start_matches('0');
        let code = if digits.len() > 8 {
            None
        } else {
            u32::from_str_radix(if digits.is_empty() { "0" } else { digits }, 16).ok()
        };
        match code.and_then(char::from_u32) {
            // R-UNICODE-ESCAPE-02: each number is the code point of a character; U+0000, U+FFFE and U+FFFF are
            // not characters (Basic Concepts § 2, 2019 L615).
            Some(c) if crate::is_not_a_character(c) => {
                return EscapeMeaning::Rejected(
                    EscapeProblem::BadUnicode,
                    format!(
                        "Unicode escape `{text}`: U+{:04X} is not a character",
                        u32::from(c)
                    ),
                )
            }
            Some(c) => chars.push(c),
            None => {
                return EscapeMeaning::Rejected(
                    EscapeProblem::BadUnicode,
                    format!("Unicode escape `{text}`: {number} is not a Unicode scalar value"),
                )
            }
        }
    }
    EscapeMeaning::Unicode { chars, lowercase }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unicode(text: &str) -> Option<String> {
        match escape_meaning(text) {
            EscapeMeaning::Unicode { chars, .. } => Some(chars),
            _ => None,
        }
    }

    #[test]
    fn r_unicode_escape_02_values() {
        assert_eq!(unicode("@#UE3@").as_deref(), Some("ã"));
        assert_eq!(unicode("@#U 639 632 64A 632@").as_deref(), Some("عزيز"));
        assert_eq!(unicode("@#U 41 @").as_deref(), Some("A"));
        assert_eq!(unicode("@#U\t41\t42@").as_deref(), Some("AB"));
        assert_eq!(unicode("@#U@").as_deref(), Some(""), "R-UNICODE-ESCAPE-04");
        assert_eq!(unicode("@#U @").as_deref(), Some(""));
        assert_eq!(unicode("@#U0000000041@").as_deref(), Some("A"));
        assert_eq!(unicode("@#UD800@"), None, "a surrogate is not a character");
        assert_eq!(unicode("@#U110000@"), None);
        // Not characters (Basic Concepts § 2, 2019 L615): rejected, kept as written.
        for text in ["@#U0@", "@#U 41 0@", "@#UFFFE@", "@#UFFFF@"] {
            assert!(
                matches!(
                    escape_meaning(text),
                    EscapeMeaning::Rejected(EscapeProblem::BadUnicode, _)
                ),
                "{text}"
            );
        }
        assert_eq!(unicode("@#UFFFD@").as_deref(), Some("\u{FFFD}"));
        assert_eq!(unicode("@#U123456789@"), None);
        assert_eq!(unicode("@#UXYZ@"), None);
        assert_eq!(unicode("@#U4-1@"), None);
    }

    #[test]
    fn r_unicode_escape_03_lowercase_is_flagged() {
        assert_eq!(
            escape_meaning("@#U11f@"),
            EscapeMeaning::Unicode {
                chars: "ğ".into(),
                lowercase: true
            }
        );
        assert_eq!(
            escape_meaning("@#U11F@"),
            EscapeMeaning::Unicode {
                chars: "ğ".into(),
                lowercase: false
            }
        );
    }

    #[test]
    fn r_permitted_escs_escape_types() {
        assert_eq!(escape_meaning("@#DJULIAN@"), EscapeMeaning::Kept);
        assert_eq!(escape_meaning("@#DFRENCH R@"), EscapeMeaning::Kept);
        for text in ["@#AFOO@", "@#CANSEL@", "@#FX@", "@#L12@", "@#X a.b,c;d@"] {
            assert!(
                matches!(
                    escape_meaning(text),
                    EscapeMeaning::Rejected(EscapeProblem::Unpermitted, _)
                ),
                "{text}"
            );
        }
        for text in ["@# with a @", "@#dgregorian@", "@#@", "@#1@"] {
            assert!(escape_meaning(text) == EscapeMeaning::Malformed, "{text}");
        }
    }

    /// Writes literal (`true`) and decoded pieces after a prefix and finishes them, with the builder that
    /// keeps pieces apart and (when the file is not ANSEL) the direct one, which must agree.
    fn built(pieces: &[(bool, &str)], finishing: Finishing) -> String {
        let mut results = Vec::new();
        for direct in [false, !finishing.ansel] {
            let mut b = TextBuilder {
                direct,
                ..TextBuilder::default()
            };
            let mut out = String::from("prefix");
            for (literal, text) in pieces {
                if *literal {
                    b.literal(&mut out, text);
                } else {
                    b.decoded(&mut out, text);
                }
            }
            b.finish(&mut out, 6, finishing);
            let rest = out.strip_prefix("prefix").expect("the prefix is kept");
            results.push(rest.to_string());
        }
        assert_eq!(results[0], results[1]);
        results.swap_remove(0)
    }

    #[test]
    fn finishing_maps_raw_octets_and_keeps_decoded_text() {
        let mut lit = String::from("Jos");
        raw::push_octets(&mut lit, &[0xE9]);
        let a = raw::to_char(0x41).to_string();
        assert_eq!(
            built(&[(true, &lit), (false, &a)], Finishing::default()),
            format!("Jos\u{FFFD}{}", raw::to_char(0x41))
        );
    }

    #[test]
    fn finishing_reorders_ansel_literal_text_only() {
        let ansel_on = Finishing {
            ansel: true,
            nfc: false,
            dialect: Dialect::Unknown,
        };
        assert_eq!(built(&[(true, "Jos\u{301}e")], ansel_on), "Jose\u{301}");
        assert_eq!(
            built(&[(true, "e"), (false, "\u{301}"), (true, "x")], ansel_on),
            "e\u{301}x"
        );
        let nfc = Finishing {
            ansel: true,
            nfc: true,
            dialect: Dialect::Unknown,
        };
        assert_eq!(built(&[(true, "Jos\u{301}e")], nfc), "José");
        let nfc_only = Finishing {
            ansel: false,
            nfc: true,
            dialect: Dialect::Unknown,
        };
        assert_eq!(built(&[(true, "Jose\u{301}")], nfc_only), "José");
    }
}
