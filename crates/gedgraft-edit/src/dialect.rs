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
use crate::render::{
    clusters, glues_to_next, octets, split_lines, value_units, write_cluster, Unit, UnitKind,
};
use gedgraft_encoding::Encoding;
use gedgraft_syntax::internal::lex_payload_text;
use gedgraft_syntax::{Dialect, Parse, SyntaxKind};

/// The units of one line string of a new payload (`segment`: logical text without line breaks), escaped as the
/// dialect says.
pub(crate) fn payload_units(dialect: Dialect, segment: &str, encoding: Encoding) -> Vec<Unit> {
    if !dialect.doubles_only_leading_at() {
        return value_units(segment, encoding);
    }
    let text = if segment.starts_with('@') {
        format!("@{segment}")
    } else {
        segment.to_string()
    };
    // The tokens the lexer will make of the written line, so that the output parses back to the same tree.
    let mut units = Vec::new();
    let mut start = 0;
    for (kind, end) in lex_payload_text(&text) {
        let piece = text.get(start..end).unwrap_or("");
        start = end;
        let kind = match kind {
            SyntaxKind::EscapedAt => UnitKind::EscapedAt,
            SyntaxKind::AtSign => UnitKind::AtSign,
            SyntaxKind::Escape => UnitKind::Escape,
            _ => {
                for cluster in clusters(piece) {
                    let (kind, text) = write_cluster(cluster, encoding);
                    let octets = octets(&text, encoding);
                    let glued = glues_to_next(&text, encoding);
                    units.push(Unit {
                        kind,
                        text,
                        octets,
                        glued,
                    });
                }
                continue;
            }
        };
        units.push(Unit {
            kind,
            text: piece.to_string(),
            octets: octets(piece, encoding),
            glued: glues_to_next(piece, encoding),
        });
    }
    units
}

/// The line limit new payloads are laid out in: none in a dialect without `CONC`.
pub(crate) fn line_limit(dialect: Dialect, limit: usize) -> usize {
    if dialect.has_conc() {
        limit
    } else {
        usize::MAX
    }
}

/// The units of each line string (the first line's, then one per `CONT` line) of a new payload `value`.
pub(crate) fn segments(parse: &Parse, value: &str, encoding: Encoding) -> Vec<Vec<Unit>> {
    let dialect = parse.dialect();
    split_lines(value)
        .into_iter()
        .map(|segment| payload_units(dialect, segment, encoding))
        .collect()
}

/// Whether `escape_at_signs` writes a token of `kind` as `@@`: every bare `@` (`AT_SIGN`), or in GEDCOM 7 only
/// one that starts a line string. `previous` is the kind of the token before on the line; it moves on.
pub(crate) fn doubles_at_sign(
    dialect: Dialect,
    previous: &mut Option<SyntaxKind>,
    kind: rowan::SyntaxKind,
) -> bool {
    let before = std::mem::replace(previous, SyntaxKind::from_raw(kind.0));
    kind == SyntaxKind::AtSign.into()
        && (!dialect.doubles_only_leading_at() || before == Some(SyntaxKind::PayloadSep))
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

    fn texts(units: &[Unit]) -> Vec<(UnitKind, &str)> {
        units.iter().map(|u| (u.kind, u.text.as_str())).collect()
    }

    #[test]
    fn gedcom7_doubles_only_a_leading_at() {
        let d = Dialect::GEDCOM_7_0;
        let u = payload_units(d, "@me and me@example.com", Encoding::Utf8);
        let written: String = u.iter().map(|u| u.text.as_str()).collect();
        assert_eq!(written, "@@me and me@example.com");
        assert_eq!(u[0].kind, UnitKind::EscapedAt);
        assert!(texts(&u).contains(&(UnitKind::AtSign, "@")));
        // `a@@b` in GEDCOM 7 is literally `a@@b`: written as it is (the lexer's `@@` token, read literally).
        let u = payload_units(d, "a@@b", Encoding::Utf8);
        assert_eq!(
            texts(&u),
            [
                (UnitKind::Text, "a"),
                (UnitKind::EscapedAt, "@@"),
                (UnitKind::Text, "b")
            ]
        );
        // Elsewhere every `@` is doubled.
        let u = payload_units(Dialect::Gedcom551, "me@x", Encoding::Utf8);
        assert_eq!(
            u.iter().map(|u| u.text.as_str()).collect::<String>(),
            "me@@x"
        );
    }

    #[test]
    fn gedcom7_has_no_line_limit_and_doubles_only_a_leading_at_sign() {
        assert_eq!(line_limit(Dialect::GEDCOM_7_0, 255), usize::MAX);
        assert_eq!(line_limit(Dialect::Gedcom555, 255), 255);
        let at = SyntaxKind::AtSign.into();
        let mut previous = Some(SyntaxKind::PayloadSep);
        assert!(doubles_at_sign(Dialect::GEDCOM_7_0, &mut previous, at));
        assert_eq!(previous, Some(SyntaxKind::AtSign));
        assert!(!doubles_at_sign(Dialect::GEDCOM_7_0, &mut previous, at));
        assert!(doubles_at_sign(Dialect::Elf10, &mut previous, at));
        let text = SyntaxKind::Text.into();
        assert!(!doubles_at_sign(Dialect::Elf10, &mut previous, text));
    }
}
