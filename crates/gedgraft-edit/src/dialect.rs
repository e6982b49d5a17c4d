//! The editor's rules that depend on the file's dialect ([`Dialect`], read from the header by the syntax layer).
//!
//! GEDCOM 7 (FamilySearch GEDCOM 7.0, `../shared/spec/gedcom7/gedcom-1-hierarchical-container-format.md`) differs
//! from ELF and GEDCOM 5.5.x in what the editor writes:
//!
//! - only the *leading* `@` of a line string is doubled ("leading @ doubled", production `lineStr`): a new
//!   payload `@me` is written `@@me`, `me@example.com` as it is; [`Editor::escape_at_signs`] doubles only a
//!   bare `@` at the start of a line string;
//! - there is no `CONC`: a new payload is never split (a line may be as long as it needs), and
//!   [`Editor::rewrap`] does nothing, with a warning;
//! - the file is UTF-8: [`Editor::transcode`] to anything else is refused (GEDCOM 5.5.5 files are UTF-8 or
//!   UTF-16: a transcode to another encoding is refused too).
//!
//! [`Editor::escape_at_signs`]: crate::Editor::escape_at_signs
//! [`Editor::rewrap`]: crate::Editor::rewrap
//! [`Editor::transcode`]: crate::Editor::transcode

use crate::error::{EditError, Warning};
use crate::render::{token, Unit};
use gedgraft_encoding::Encoding;
pub(crate) use gedgraft_syntax::internal::serialise::{
    dialect_segments, is_restricted, is_unwritable, line_limit,
};
use gedgraft_syntax::internal::text_pieces;
use gedgraft_syntax::{Dialect, Parse, SyntaxKind};
use rowan::{GreenToken, GreenTokenData};

/// The units of each line string (the first line's, then one per `CONT` line) of a new payload `value` of a
/// structure tagged `tag`: as the writer writes it, `@#D…@` escapes kept in a `DATE` (R-ESCAPE-PRES-02: the
/// value `@#DJULIAN@ 1700` is a Julian date, not text to double) and restricted characters escaped.
pub(crate) fn segments(
    parse: &Parse,
    tag: &str,
    value: &str,
    encoding: Encoding,
) -> Vec<Vec<Unit>> {
    dialect_segments(parse.dialect(), tag, value, encoding)
}

/// The token `escape_at_signs` writes for the payload token `t`, if it changes it, and how many `@`s it doubles:
/// in a `TEXT` token every bare `@` (each `@` that is not half of a `@@`), or in GEDCOM 7 only one that starts
/// a line string. `previous` is the kind of the token before on the line; it moves on.
pub(crate) fn doubled_at_signs(
    dialect: Dialect,
    previous: &mut Option<SyntaxKind>,
    t: &GreenTokenData,
) -> Option<(GreenToken, usize)> {
    let before = std::mem::replace(previous, SyntaxKind::from_raw(t.kind().0));
    if t.kind() != SyntaxKind::Text.into() || !t.text().contains('@') {
        return None;
    }
    if dialect.doubles_only_leading_at() {
        let first = before == Some(SyntaxKind::PayloadSep);
        let bare = text_pieces(t.text()).next() == Some("@");
        return (first && bare).then(|| (token(SyntaxKind::Text, &format!("@{}", t.text())), 1));
    }
    let mut doubled = String::with_capacity(t.text().len() + 8);
    let mut n = 0;
    for piece in text_pieces(t.text()) {
        if piece == "@" {
            doubled.push('@');
            n += 1;
        }
        doubled.push_str(piece);
    }
    (n > 0).then(|| (token(SyntaxKind::Text, &doubled), n))
}

/// Whether the file's dialect has no `HEAD.CHAR` (GEDCOM 7: UTF-8 goes without saying), so a transcode to UTF-8
/// (the only one [`check_transcode`] allows) adds none.
pub(crate) fn has_no_char(parse: &Parse) -> bool {
    parse.dialect().is_utf8_only()
}

/// Whether re-wrapping is refused in the file's dialect (GEDCOM 7 has no `CONC`), with a warning that says so.
pub(crate) fn refuse_rewrap(parse: &Parse, warnings: &mut Vec<Warning>) -> bool {
    let dialect = parse.dialect();
    if dialect.has_conc() {
        return false;
    }
    warnings.push(Warning::NotInDialect {
        dialect,
        what: "re-wrapped: it has no CONC lines and its lines may be as long as they need",
    });
    true
}

/// Refuses new text no file can hold (U+0000, U+FFFE, U+FFFF: [`EditError::NotACharacter`]), and text the
/// file's dialect cannot hold: in GEDCOM 7, which has no escape, a control character, and a carriage return,
/// which would end the line and read back as a line feed (elsewhere both are written `@#U…@`,
/// [`escaped_units`](gedgraft_syntax::internal::serialise::escaped_units)).
pub(crate) fn check_new_text(parse: &Parse, text: &str) -> Result<(), EditError> {
    if let Some(character) = text.chars().find(|&c| is_unwritable(c)) {
        return Err(EditError::NotACharacter { character });
    }
    let dialect = parse.dialect();
    if dialect.has_escapes() {
        return Ok(());
    }
    // A control character other than a tab or a line feed: GEDCOM 7 forbids it (7.0 § Characters) and has
    // no escape to write it with (elsewhere it is written `@#U…@`).
    let banned = |c: char| c != '\r' && c != '\n' && is_restricted(c);
    if let Some(c) = text.chars().find(|&c| banned(c)) {
        return Err(EditError::DialectForbids {
            dialect,
            what: format!(
                "the control character U+{:04X} in a payload: it forbids it (7.0 § Characters) and has no escape \
                 for it",
                u32::from(c)
            ),
        });
    }
    if text.contains('\r') {
        return Err(EditError::DialectForbids {
            dialect,
            what: "a carriage return in a payload: it has no escape for one, and a CONT line would read back as a \
                   line feed (write line breaks as LF)"
                .to_string(),
        });
    }
    Ok(())
}

/// Refuses a new identifier the file's dialect does not allow ([`Dialect::xref_refusal`]: in GEDCOM 7, only
/// upper-case letters, digits and `_`, and not `VOID`, its null pointer, which every `@VOID@` pointer would
/// then lead to).
pub(crate) fn check_xref(parse: &Parse, id: &str) -> Result<(), EditError> {
    match parse.dialect().xref_refusal(id) {
        Some(reason) => Err(EditError::InvalidXref {
            id: id.to_string(),
            reason: reason.to_string(),
        }),
        None => Ok(()),
    }
}

/// Refuses a new pointer to an identifier the file's dialect does not allow (GEDCOM 7: upper case, digits and
/// `_`), but not to its null pointer (`@VOID@`).
pub(crate) fn check_pointer(parse: &Parse, id: &str) -> Result<(), EditError> {
    match Some(id) == parse.dialect().null_pointer() {
        true => Ok(()),
        false => check_xref(parse, id),
    }
}

/// Refuses a transcode the file's dialect forbids (GEDCOM 7 is UTF-8 only, GEDCOM 5.5.5 UTF-8 or UTF-16 only).
pub(crate) fn check_transcode(parse: &Parse, to: Encoding) -> Result<(), EditError> {
    let dialect = parse.dialect();
    if !dialect.allows_encoding(to) {
        return Err(EditError::DialectForbids {
            dialect,
            what: format!(
                "transcoding to {to}: its files are {} only",
                dialect.allowed_encodings()
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gedcom7_doubles_only_a_leading_at_sign() {
        let written = |t: Option<(GreenToken, usize)>| t.map(|(t, n)| (t.text().to_string(), n));
        let text = token(SyntaxKind::Text, "@me@x@@");
        let mut previous = Some(SyntaxKind::PayloadSep);
        let got = written(doubled_at_signs(Dialect::GEDCOM_7_0, &mut previous, &text));
        assert_eq!(got, Some(("@@me@x@@".to_string(), 1)));
        assert_eq!(previous, Some(SyntaxKind::Text));
        assert_eq!(
            doubled_at_signs(Dialect::GEDCOM_7_0, &mut previous, &text),
            None
        );
        // Elsewhere every bare `@` is doubled; `@@` is one already.
        let got = written(doubled_at_signs(Dialect::Elf10, &mut previous, &text));
        assert_eq!(got, Some(("@@me@@x@@".to_string(), 2)));
        for done in ["me", "@@me@@"] {
            let done = token(SyntaxKind::Text, done);
            assert_eq!(doubled_at_signs(Dialect::Elf10, &mut previous, &done), None);
        }
        let mut previous = Some(SyntaxKind::PayloadSep);
        let escaped = token(SyntaxKind::Text, "@@me");
        assert_eq!(
            doubled_at_signs(Dialect::GEDCOM_7_0, &mut previous, &escaped),
            None
        );
    }
}
