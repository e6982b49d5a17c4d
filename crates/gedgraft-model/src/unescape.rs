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
use gedgraft_syntax::{Class, Dialect, SyntaxKind};
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// How decoded tree text becomes dataset text.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Finishing {
    /// The file is ANSEL: literal text is in ANSEL order (diacritic before its letter) and is reordered.
    pub ansel: bool,
    /// Normalise to NFC.
    pub nfc: bool,
    /// The file's dialect: GEDCOM 7 doubles only a leading `@` and has no escapes.
    pub dialect: Dialect,
}

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
pub(crate) struct TextBuilder {
    /// Literal runs are written straight into the output (the file is not ANSEL).
    direct: bool,
    /// Only a leading `@@` is an escape (GEDCOM 7).
    leading_at_only: bool,
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

/// Text as written, finished (for serialisation metadata, whose payloads are never unescaped, R-HEADER-04).
pub(crate) fn literal_text(text: &str, finishing: Finishing) -> String {
    let mut out = String::new();
    let mut builder = TextBuilder::new(finishing);
    builder.literal(&mut out, text);
    builder.finish(&mut out, 0, finishing);
    out
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
            // R-UNICODE-ESCAPE-02: each number is the code point of a character; U+0000, U+FFFE and U+FFFF are
            // not characters (Basic Concepts § 2, 2019 L615).
            Some(c) if gedgraft_syntax::is_not_a_character(c) => {
                return EscapeMeaning::Rejected(
                    codes::BAD_UNICODE_ESCAPE,
                    format!(
                        "Unicode escape `{text}`: U+{:04X} is not a character",
                        u32::from(c)
                    ),
                )
            }
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
    builder: &mut TextBuilder,
    out: &mut String,
    sink: &mut Sink,
) {
    if builder.leading_at_only {
        return crate::lower::dialect_rules::unescape_leading_at_line(tokens, builder, out, sink);
    }
    for token in tokens {
        match token.kind() {
            SyntaxKind::EscapedAt => builder.literal(out, "@"),
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
                    builder.decoded(out, &chars);
                }
                EscapeMeaning::Kept | EscapeMeaning::Malformed => {
                    builder.literal(out, token.text())
                }
                EscapeMeaning::Rejected(code, message) => {
                    sink.report(code, Class::NonConformant, message, token.range());
                    builder.literal(out, token.text());
                }
            },
            _ => builder.literal(out, token.text()),
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
        // Not characters (Basic Concepts § 2, 2019 L615): rejected, kept as written.
        for text in ["@#U0@", "@#U 41 0@", "@#UFFFE@", "@#UFFFF@"] {
            assert!(
                matches!(escape_meaning(text), EscapeMeaning::Rejected(c, _) if c == codes::BAD_UNICODE_ESCAPE),
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
                matches!(escape_meaning(text), EscapeMeaning::Rejected(c, _) if c == codes::UNPERMITTED_ESCAPE),
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
