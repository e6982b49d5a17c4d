//! Unescaping string payloads (2019 § Unescaping string payloads, § Identifying escapes, § Permitted escapes,
//! § Unicode escapes), and turning decoded tree text into dataset text.
//!
//! The CST has already identified the escapes of each line (R-IDENTIFY-ESCS-01..03): a payload is a run of
//! `TEXT`, `ESCAPED_AT` (`@@`), `ESCAPE` (`@#…@`; the syntax layer reports one whose type is not a letter),
//! `AT_SIGN` (any other `@`, including the `@` of an unterminated `@#`, which the syntax layer reports) and `RAW`
//! tokens. Each line is unescaped on its own and
//! only then are the lines merged (R-PAYLOAD-UNESC-06, reading A), so an escape split over two lines is not an
//! escape: `0 NOTE @` + `1 CONC #U21@` is the string `@#U21@`.

use crate::codes;
use crate::green::Token;
use crate::lower::Sink;
use gedgraft_encoding::{ansel, raw};
use gedgraft_syntax::{Class, SyntaxKind};
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// How decoded tree text becomes dataset text.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Finishing {
    /// The file is ANSEL: literal text is in ANSEL order (diacritic before its letter) and is reordered.
    pub ansel: bool,
    /// Normalise to NFC.
    pub nfc: bool,
}

/// A string payload being assembled from its lines.
///
/// Text written in the file ("literal": plain text, `@` from `@@` or a bare `@`, escapes kept as written, raw
/// octets) is kept apart from text the lowering made (characters of Unicode escapes, the line breaks of
/// `CONT`): only literal text is in the file's octet order, so only it is reordered for ANSEL, and only its raw
/// characters stand for undecodable octets.
///
/// A builder made with [`TextBuilder::new`] for a file that is not ANSEL needs no reordering, so it maps raw
/// octets as literal text arrives and writes everything into one buffer, which [`TextBuilder::take`] reuses
/// for the next payload. The default builder keeps the pieces apart until [`TextBuilder::finish`].
#[derive(Debug, Default)]
pub(crate) struct TextBuilder {
    /// Literal runs are written straight into `out` (the file is not ANSEL).
    direct: bool,
    out: String,
    /// A buffer kept for payloads of several lines (direct builders).
    scratch: String,
    pieces: Vec<(bool, String)>,
}

impl TextBuilder {
    /// A builder for payloads that will be finished with `finishing`.
    pub fn new(finishing: Finishing) -> TextBuilder {
        TextBuilder {
            direct: !finishing.ansel,
            ..TextBuilder::default()
        }
    }

    /// Appends text as written in the file.
    pub fn literal(&mut self, text: &str) {
        if self.direct {
            push_mapping_raw(&mut self.out, text);
        } else {
            self.push(true, text);
        }
    }

    /// Appends text the lowering produced (Unicode escapes, line breaks).
    pub fn decoded(&mut self, text: &str) {
        if self.direct {
            self.out.push_str(text);
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

    /// The dataset text: literal runs reordered for ANSEL (`ansel::to_unicode_order`, which also gives the
    /// table character of the octets ANSEL keeps raw), every remaining raw octet as U+FFFD, then NFC if asked.
    pub fn finish(mut self, finishing: Finishing) -> String {
        self.take(finishing)
    }

    /// Makes room for a payload of about `len` bytes (an upper bound for one line: escapes and raw octets only
    /// shrink), so that a payload without escapes is written once, into a string of its exact length.
    pub fn reserve_exact(&mut self, len: usize) {
        if self.direct && self.out.is_empty() && self.out.capacity() != len {
            if self.out.capacity() > self.scratch.capacity() {
                std::mem::swap(&mut self.out, &mut self.scratch);
            }
            self.out = String::with_capacity(len);
        }
    }

    /// Writes the next payload into the kept buffer (for a payload of unknown length).
    pub fn use_scratch(&mut self) {
        if self.direct && self.out.is_empty() && self.out.capacity() < self.scratch.capacity() {
            std::mem::swap(&mut self.out, &mut self.scratch);
        }
    }

    /// [`TextBuilder::finish`], leaving the builder empty for the next payload. The string is allocated at its
    /// exact length: it is the buffer itself when that is full, otherwise a copy (and the buffer is kept).
    pub fn take(&mut self, finishing: Finishing) -> String {
        if !self.direct {
            let mut out = String::new();
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
                push_mapping_raw(&mut out, &piece);
            }
            self.out = out;
        }
        let text = if finishing.nfc && is_nfc_quick(self.out.chars()) != IsNormalized::Yes {
            self.out.nfc().collect()
        } else if self.out.len() == self.out.capacity() {
            std::mem::take(&mut self.out)
        } else {
            self.out.as_str().to_owned()
        };
        self.out.clear();
        text
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

/// Text as written, finished (for serialisation metadata, whose payloads are never unescaped, R-HEADER-04).
pub(crate) fn literal_text(text: &str, finishing: Finishing) -> String {
    let mut builder = TextBuilder::new(finishing);
    builder.literal(text);
    builder.finish(finishing)
}

/// What one escape sequence means.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum EscapeMeaning {
    /// A Unicode escape and its characters; `lowercase` if it used lower-case hex digits.
    Unicode { chars: String, lowercase: bool },
    /// A permitted escape left as written (`D`, R-PERMITTED-ESCS-04, R-PAYLOAD-UNESC-02).
    Kept,
    /// Not acceptable: a code and a message; the escape stays as written.
    Rejected(&'static str, String),
    /// Not an escape sequence (`@#` then no upper-case letter, R-ESCAPE-SEQ-02): the syntax layer reports it
    /// (`bad-escape`); it stays as written.
    Malformed,
}

/// Classifies an `ESCAPE` token's text (`@#` … `@`).
pub(crate) fn escape_meaning(text: &str) -> EscapeMeaning {
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
            codes::UNPERMITTED_ESCAPE,
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
                codes::BAD_UNICODE_ESCAPE,
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
            Some(c) => chars.push(c),
            None => {
                return EscapeMeaning::Rejected(
                    codes::BAD_UNICODE_ESCAPE,
                    format!("Unicode escape `{text}`: {number} is not a Unicode scalar value"),
                )
            }
        }
    }
    EscapeMeaning::Unicode { chars, lowercase }
}

/// Unescapes one line's payload tokens into `out`, reporting escapes that are not permitted.
pub(crate) fn unescape_line<'g>(
    tokens: impl Iterator<Item = Token<'g>>,
    out: &mut TextBuilder,
    sink: &mut Sink,
) {
    for token in tokens {
        match token.kind() {
            SyntaxKind::EscapedAt => out.literal("@"),
            SyntaxKind::Escape => match escape_meaning(token.text()) {
                EscapeMeaning::Unicode { chars, lowercase } => {
                    if lowercase {
                        sink.report(
                            codes::LOWERCASE_UNICODE_ESCAPE,
                            Class::Warning,
                            format!(
                                "Unicode escape `{}` uses lower-case hexadecimal digits; write them in upper case",
                                token.text()
                            ),
                            token.range(),
                        );
                    }
                    out.decoded(&chars);
                }
                EscapeMeaning::Kept | EscapeMeaning::Malformed => out.literal(token.text()),
                EscapeMeaning::Rejected(code, message) => {
                    sink.report(code, Class::NonConformant, message, token.range());
                    out.literal(token.text());
                }
            },
            _ => out.literal(token.text()),
        }
    }
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
                matches!(escape_meaning(text), EscapeMeaning::Rejected(c, _) if c == codes::UNPERMITTED_ESCAPE),
                "{text}"
            );
        }
        for text in ["@# with a @", "@#dgregorian@", "@#@", "@#1@"] {
            assert!(escape_meaning(text) == EscapeMeaning::Malformed, "{text}");
        }
    }

    #[test]
    fn finishing_maps_raw_octets_and_keeps_decoded_text() {
        let mut b = TextBuilder::default();
        let mut lit = String::from("Jos");
        raw::push_octets(&mut lit, &[0xE9]);
        b.literal(&lit);
        b.decoded(&raw::to_char(0x41).to_string());
        assert_eq!(
            b.finish(Finishing::default()),
            format!("Jos\u{FFFD}{}", raw::to_char(0x41))
        );
    }

    #[test]
    fn finishing_reorders_ansel_literal_text_only() {
        let ansel_on = Finishing {
            ansel: true,
            nfc: false,
        };
        let mut b = TextBuilder::default();
        b.literal("Jos\u{301}e");
        assert_eq!(b.finish(ansel_on), "Jose\u{301}");
        let mut b = TextBuilder::default();
        b.literal("e");
        b.decoded("\u{301}");
        b.literal("x");
        assert_eq!(b.finish(ansel_on), "e\u{301}x");
        let mut b = TextBuilder::default();
        b.literal("Jos\u{301}e");
        let nfc = Finishing {
            ansel: true,
            nfc: true,
        };
        assert_eq!(b.finish(nfc), "José");
    }
}
