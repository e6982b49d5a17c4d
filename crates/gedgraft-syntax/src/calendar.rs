//! How a `DATE` payload names its calendars, which differs between the dialects: GEDCOM 5.5, 5.5.1, 5.5.5 and
//! ELF write a calendar escape before a date (`@#DJULIAN@ 1 JAN 1700`, 5.5.1 `DATE_CALENDAR_ESCAPE`; ELF keeps
//! `D` escapes in a `DATE`, R-ESCAPE-PRES-02), GEDCOM 7 a calendar keyword (`JULIAN 1 JAN 1700`, 7.0
//! `date = [calendar D] …`), having no escapes. A writer that changes the dialect converts one form to the
//! other ([`calendars_as`]); a calendar the other dialect has no name for is refused, not written as text.
//!
//! The calendars both name: the Gregorian, the Julian, the French Republican and the Hebrew (7.0 Appendix A:
//! "Previous versions also provided for, but did not define the meaning of, ROMAN and UNKNOWN calendars").

use crate::lexer::lex_payload_text;
use crate::{Dialect, SyntaxKind};
use std::borrow::Cow;

/// The calendars both forms name: the escape's value (after `@#D`) and GEDCOM 7's keyword.
const CALENDARS: [(&str, &str); 4] = [
    ("GREGORIAN", "GREGORIAN"),
    ("JULIAN", "JULIAN"),
    ("FRENCH R", "FRENCH_R"),
    ("HEBREW", "HEBREW"),
];

/// The GEDCOM 7 words after which a date, and so its calendar, starts (7.0 `DatePeriod`, `dateRange`,
/// `dateApprox`).
const DATE_STARTS: [&str; 9] = [
    "FROM", "TO", "BET", "AND", "BEF", "AFT", "ABT", "CAL", "EST",
];

/// The text of a `DATE` payload written by `from` as `to` writes the same calendars; `Err` with the calendar
/// (as written) that `to` has no name for, or with text `to` would read as a calendar escape. Unchanged when
/// both dialects name calendars alike.
///
/// ```
/// use gedgraft_syntax::internal::calendar::calendars_as;
/// use gedgraft_syntax::Dialect;
/// let seven = Dialect::from_gedcom_version("7.0");
/// assert_eq!(calendars_as(Dialect::Gedcom551, seven, "BET @#DJULIAN@ 1700 AND @#DFRENCH R@ 1 VEND 1"),
///            Ok("BET JULIAN 1700 AND FRENCH_R 1 VEND 1".into()));
/// assert_eq!(calendars_as(seven, Dialect::Gedcom551, "ABT HEBREW 5500"), Ok("ABT @#DHEBREW@ 5500".into()));
/// assert_eq!(calendars_as(Dialect::Gedcom551, seven, "@#DROMAN@ 12"), Err("@#DROMAN@".to_string()));
/// ```
pub fn calendars_as<'a>(from: Dialect, to: Dialect, date: &'a str) -> Result<Cow<'a, str>, String> {
    match (from.has_escapes(), to.has_escapes()) {
        (true, false) => escapes_to_keywords(date),
        (false, true) => keywords_to_escapes(date),
        _ => Ok(Cow::Borrowed(date)),
    }
}

/// `@#DJULIAN@ 1700` → `JULIAN 1700`: each calendar escape the lexer reads in the text (as the writer keeps
/// them in a `DATE`) becomes its keyword, followed by a space.
fn escapes_to_keywords(date: &str) -> Result<Cow<'_, str>, String> {
    if !date.contains("@#") {
        return Ok(Cow::Borrowed(date));
    }
    let mut out = String::with_capacity(date.len());
    let mut start = 0;
    for (kind, end) in lex_payload_text(date) {
        let piece = date.get(start..end).unwrap_or("");
        start = end;
        match piece.strip_prefix("@#D").and_then(|p| p.strip_suffix('@')) {
            Some(value) if kind == SyntaxKind::Escape => {
                let (_, keyword) = CALENDARS
                    .iter()
                    .find(|(escape, _)| *escape == value)
                    .ok_or_else(|| piece.to_string())?;
                out.push_str(keyword);
                if !date.get(end..).unwrap_or("").starts_with(' ') && end < date.len() {
                    out.push(' ');
                }
            }
            _ => out.push_str(piece),
        }
    }
    Ok(Cow::Owned(out))
}

/// `JULIAN 1700` → `@#DJULIAN@ 1700`: a keyword where a date starts (the payload's first word, or the word
/// after `FROM`, `BET`, `ABT`…) becomes its escape; an extension calendar (`_` first) there has none.
fn keywords_to_escapes(date: &str) -> Result<Cow<'_, str>, String> {
    if date.contains("@#") {
        // Written as it is, it would read as an escape: what was text would become a calendar.
        return Err(date.to_string());
    }
    let mut out = String::with_capacity(date.len() + 8);
    let mut starts = true;
    let mut changed = false;
    for (i, word) in date.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let escape = CALENDARS.iter().find(|(_, keyword)| *keyword == word);
        match escape {
            Some((escape, _)) if starts => {
                out.push_str("@#D");
                out.push_str(escape);
                out.push('@');
                changed = true;
            }
            _ if starts && word.starts_with('_') => return Err(word.to_string()),
            _ => out.push_str(word),
        }
        starts = DATE_STARTS.contains(&word);
    }
    Ok(if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(date)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seven() -> Dialect {
        Dialect::from_gedcom_version("7.0")
    }

    /// 5.5.1 `DATE_CALENDAR_ESCAPE` and 7.0 `calendar`: the four calendars both name, in each form of date.
    #[test]
    fn calendars_convert_between_escapes_and_keywords() {
        let pairs = [
            ("@#DJULIAN@ 1 JAN 1700", "JULIAN 1 JAN 1700"),
            ("@#DGREGORIAN@ 1700", "GREGORIAN 1700"),
            (
                "FROM @#DFRENCH R@ 1 VEND 1 TO @#DHEBREW@ 5500",
                "FROM FRENCH_R 1 VEND 1 TO HEBREW 5500",
            ),
            ("BEF @#DJULIAN@ 1700", "BEF JULIAN 1700"),
            ("1 JAN 1700", "1 JAN 1700"),
        ];
        for (escaped, keyword) in pairs {
            for five in [Dialect::Gedcom55, Dialect::Gedcom551, Dialect::Elf10] {
                assert_eq!(calendars_as(five, seven(), escaped).as_deref(), Ok(keyword));
                assert_eq!(calendars_as(seven(), five, keyword).as_deref(), Ok(escaped));
                assert_eq!(calendars_as(five, five, escaped).as_deref(), Ok(escaped));
            }
            assert_eq!(
                calendars_as(seven(), seven(), keyword).as_deref(),
                Ok(keyword)
            );
        }
        // An escape with no space after it still leaves the keyword a word of its own.
        assert_eq!(
            calendars_as(Dialect::Gedcom551, seven(), "@#DJULIAN@1700").as_deref(),
            Ok("JULIAN 1700")
        );
    }

    /// A calendar the other dialect has no name for is refused: 5.5.1's ROMAN and UNKNOWN (undefined, gone in
    /// 7.0), any other `D` escape, a GEDCOM 7 extension calendar; and text that would read as an escape.
    #[test]
    fn calendars_the_other_dialect_cannot_name_are_refused() {
        for escape in ["@#DROMAN@", "@#DUNKNOWN@", "@#Djulian@", "@#DFRENCH_R@"] {
            let date = format!("ABT {escape} 1700");
            assert_eq!(
                calendars_as(Dialect::Gedcom551, seven(), &date),
                Err(escape.to_string())
            );
        }
        assert_eq!(
            calendars_as(seven(), Dialect::Gedcom551, "_MAYA 13"),
            Err("_MAYA".to_string())
        );
        assert_eq!(
            calendars_as(seven(), Dialect::Gedcom551, "BET 1700 AND _MAYA 13"),
            Err("_MAYA".to_string())
        );
        assert!(calendars_as(seven(), Dialect::Gedcom551, "@#DJULIAN@ 1700").is_err());
        // A keyword that is no calendar's position is a word like any other.
        assert_eq!(
            calendars_as(seven(), Dialect::Gedcom551, "1 JULIAN 1700").as_deref(),
            Ok("1 JULIAN 1700")
        );
        // Doubled `@`s are text, not escapes.
        assert_eq!(
            calendars_as(Dialect::Gedcom551, seven(), "@@#DROMAN@@").as_deref(),
            Ok("@@#DROMAN@@")
        );
    }
}
