//! How a `DATE` payload names its calendars, which differs between the dialects: GEDCOM 5.5, 5.5.1, 5.5.5 and
//! ELF write a calendar escape before a date (`@#DJULIAN@ 1 JAN 1700`, 5.5.1 `DATE_CALENDAR_ESCAPE`; ELF keeps
//! `D` escapes in a `DATE`, R-ESCAPE-PRES-02), GEDCOM 7 a calendar keyword (`JULIAN 1 JAN 1700`, 7.0
//! `date = [calendar D] …`), having no escapes. A writer that changes the dialect converts one form to the
//! other ([`calendars_as`]); a calendar the other dialect has no name for is refused, not written as text.
//!
//! The epoch of a year before year 1 differs too: 5.5.1 `44 B.C.` (`YEAR_GREG [B.C.]`), GEDCOM 7 `44 BCE`
//! (`epoch`); it converts with the calendars.
//!
//! The calendars both name: the Gregorian, the Julian, the French Republican and the Hebrew (7.0 Appendix A:
//! "Previous versions also provided for, but did not define the meaning of, ROMAN and UNKNOWN calendars").

use crate::serialise::d_escapes;
use crate::Dialect;
use std::borrow::Cow;
use std::ops::Range;

/// The calendars both forms name: the escape's value (after `@#D`) and GEDCOM 7's keyword.
const CALENDARS: [(&str, &str); 4] = [
    ("GREGORIAN", "GREGORIAN"),
    ("JULIAN", "JULIAN"),
    ("FRENCH R", "FRENCH_R"),
    ("HEBREW", "HEBREW"),
];

/// The words after which a date, and so its calendar, starts (5.5.1 `DATE_PERIOD`, `DATE_RANGE`,
/// `DATE_APPROXIMATED`, `INT`; 7.0 `DatePeriod`, `dateRange`, `dateApprox`).
const DATE_STARTS: [&str; 10] = [
    "FROM", "TO", "BET", "AND", "BEF", "AFT", "ABT", "CAL", "EST", "INT",
];

/// Why a date cannot be written in another dialect with the same meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// A calendar (as written) that the other dialect has no name for (`@#DROMAN@` in GEDCOM 7).
    NoName(String),
    /// Text (as written) that the other dialect would read as a calendar where this one does not (`JULIAN` in
    /// a 5.5.1 file, `@#DJULIAN@` as text in a GEDCOM 7 file).
    ReadsAsCalendar(String),
    /// Text (as written) after a year that the other dialect would read as its epoch where this one does not
    /// (`BCE` in a 5.5.1 file, `B.C.` in a GEDCOM 7 file).
    ReadsAsEpoch(String),
}

/// The text of a `DATE` payload written by `from` as `to` writes the same calendars and epochs (`B.C.`,
/// `BCE`), or why it cannot be.
/// Unchanged when both dialects name calendars alike.
///
/// A calendar is where a date starts: the payload's first word, or the word after `FROM`, `BET`, `ABT`, `INT`…
/// Elsewhere (a date phrase in parentheses, after a year) an escape is text and stays as it is.
///
/// ```
/// use gedgraft_syntax::internal::calendar::{calendars_as, Refused};
/// use gedgraft_syntax::Dialect;
/// let seven = Dialect::from_gedcom_version("7.0");
/// assert_eq!(calendars_as(Dialect::Gedcom551, seven, "BET @#DJULIAN@ 1700 AND @#DFRENCH R@ 1 VEND 1"),
///            Ok("BET JULIAN 1700 AND FRENCH_R 1 VEND 1".into()));
/// assert_eq!(calendars_as(seven, Dialect::Gedcom551, "ABT HEBREW 5500"), Ok("ABT @#DHEBREW@ 5500".into()));
/// assert_eq!(calendars_as(Dialect::Gedcom551, seven, "@#DROMAN@ 12"), Err(Refused::NoName("@#DROMAN@".into())));
/// // In 5.5.1 `JULIAN 1700` is text; in GEDCOM 7 it would be a Julian date.
/// assert_eq!(
///     calendars_as(Dialect::Gedcom551, seven, "JULIAN 1700"),
///     Err(Refused::ReadsAsCalendar("JULIAN".into()))
/// );
/// ```
pub fn calendars_as<'a>(
    from: Dialect,
    to: Dialect,
    date: &'a str,
) -> Result<Cow<'a, str>, Refused> {
    match (from.has_escapes(), to.has_escapes()) {
        (true, false) => epochs_as(escapes_to_keywords(date)?, EPOCHS),
        (false, true) => epochs_as(keywords_to_escapes(date)?, (EPOCHS.1, EPOCHS.0)),
        _ => Ok(Cow::Borrowed(date)),
    }
}

/// A GEDCOM 7 date without its default calendar: `GREGORIAN` where a date starts says what no calendar says
/// (5.5.1: "If `<DATE_CALENDAR_ESCAPE>` doesn't appear at this point, then `@#DGREGORIAN@` is assumed"; 7.0
/// likewise), so `GREGORIAN 1700` and `1700` are one date, for comparing (found by a helper).
///
/// ```
/// use gedgraft_syntax::internal::calendar::without_default_calendar;
/// assert_eq!(without_default_calendar("BET GREGORIAN 1700 AND JULIAN 1701"), "BET 1700 AND JULIAN 1701");
/// assert_eq!(without_default_calendar("1 GREGORIAN 1700"), "1 GREGORIAN 1700");
/// ```
pub fn without_default_calendar<'a>(date: impl Into<Cow<'a, str>>) -> Cow<'a, str> {
    let date = date.into();
    let keyword = CALENDARS[0].1;
    // The keyword and the one separator after it.
    let found: Vec<_> = (words(&date).filter(|w| w.2 && w.1 == keyword))
        .map(|(offset, ..)| {
            (
                offset..(offset + keyword.len() + 1).min(date.len()),
                String::new(),
            )
        })
        .collect();
    spliced(date, found)
}

/// `date` with each range of `changes` (in order, apart) replaced by its text; `date` itself when there are none.
fn spliced(date: Cow<'_, str>, changes: Vec<(Range<usize>, String)>) -> Cow<'_, str> {
    if changes.is_empty() {
        return date;
    }
    let mut out = String::with_capacity(date.len() + changes.len());
    let mut copied = 0;
    for (range, with) in changes {
        out.push_str(date.get(copied..range.start).unwrap_or(""));
        out.push_str(&with);
        copied = range.end;
    }
    out.push_str(date.get(copied..).unwrap_or(""));
    Cow::Owned(out)
}

/// The epoch of a year before year 1 as each form writes it: 5.5.1 `B.C.` after a year (`YEAR_GREG [B.C.]`,
/// `DATE_JULN`), GEDCOM 7 `BCE` (`date = … year [D epoch]`).
const EPOCHS: (&str, &str) = ("B.C.", "BCE");

/// The year of 5.5.1's year glued to its epoch (`44B.C.`): `word` without `epoch`, if that is a year.
fn glued<'w>(word: &'w str, epoch: &str) -> Option<&'w str> {
    word.strip_suffix(epoch).filter(|y| is_year(y))
}

/// Whether `word` is a year as a date writes it: digits, or 5.5.1's dual year (`1699/00`).
fn is_year(word: &str) -> bool {
    let (year, dual) = word.split_once('/').unwrap_or((word, "0"));
    [year, dual]
        .iter()
        .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
}

/// `44 B.C.` ↔ `44 BCE`: the epoch word `from` right after a year becomes `to`, in the date, not in a phrase
/// (from the first `(` on, which 5.5.1 writes last: `INT 1700 (phrase)`). 5.5.1's year glued to its epoch
/// (`44B.C.`, as its grammar writes it: `<YEAR_GREG>[B.C.]`) becomes the year, a space and the epoch, as
/// GEDCOM 7 writes it. Text there that the other dialect would read as an epoch (`to`, or 5.5.1's glued
/// form) is refused.
fn epochs_as<'a>(date: Cow<'a, str>, (from, to): (&str, &str)) -> Result<Cow<'a, str>, Refused> {
    let mut changes = Vec::new();
    let mut previous = "";
    for (offset, word, _) in words(&date) {
        if word.starts_with('(') {
            break;
        }
        if (word == to && is_year(previous)) || (to == EPOCHS.0 && glued(word, to).is_some()) {
            return Err(Refused::ReadsAsEpoch(to.to_string()));
        }
        if word == from && is_year(previous) {
            changes.push((offset..offset + word.len(), to.to_string()));
        } else if let Some(year) = glued(word, from).filter(|_| from == EPOCHS.0) {
            let at = offset + year.len();
            changes.push((at..at + from.len(), format!(" {to}")));
        }
        previous = word;
    }
    Ok(spliced(date, changes))
}

/// The words of `date` (separated by spaces or tabs, each one character) with their offsets, and whether a
/// date starts at each (found by a helper: `FROM<TAB>@#DJULIAN@ 1700` went unconverted and unrefused).
fn words(date: &str) -> impl Iterator<Item = (usize, &str, bool)> {
    let mut starts = true;
    let mut at = 0;
    date.split([' ', '\t']).filter_map(move |word| {
        let offset = at;
        at += word.len() + 1;
        if word.is_empty() {
            return None;
        }
        let here = starts;
        starts = DATE_STARTS.contains(&word);
        Some((offset, word, here))
    })
}

/// Whether `word`, where a date starts, names a calendar in GEDCOM 7: a calendar of both (`JULIAN`) or an
/// extension calendar (`_MAYA`).
fn is_keyword(word: &str) -> bool {
    word.starts_with('_') || CALENDARS.iter().any(|(_, keyword)| *keyword == word)
}

/// `@#DJULIAN@ 1700` → `JULIAN 1700`: each calendar escape the lexer reads where a date starts (as the writer
/// keeps them in a `DATE`) becomes its keyword, followed by a space. A word there that GEDCOM 7 would read as
/// a calendar is refused.
fn escapes_to_keywords(date: &str) -> Result<Cow<'_, str>, Refused> {
    let mut starts = Vec::new();
    for (offset, word, _) in words(date).filter(|w| w.2) {
        if is_keyword(word) {
            return Err(Refused::ReadsAsCalendar(word.to_string()));
        }
        starts.push(offset);
    }
    let mut calendars = Vec::new();
    for (from, to) in d_escapes(date)
        .into_iter()
        .filter(|(from, _)| starts.contains(from))
    {
        let piece = date.get(from..to).unwrap_or("");
        let Some(value) = piece.strip_prefix("@#D").and_then(|p| p.strip_suffix('@')) else {
            continue;
        };
        let (_, keyword) = CALENDARS
            .iter()
            .find(|(escape, _)| *escape == value)
            .ok_or_else(|| Refused::NoName(piece.to_string()))?;
        // The keyword stays a word of its own.
        let touching = to < date.len() && !date.get(to..).unwrap_or("").starts_with([' ', '\t']);
        let space = if touching { " " } else { "" };
        calendars.push((from..to, format!("{keyword}{space}")));
    }
    Ok(spliced(Cow::Borrowed(date), calendars))
}

/// `JULIAN 1700` → `@#DJULIAN@ 1700`: a keyword where a date starts becomes its escape; an extension calendar
/// (`_` first) there has none.
fn keywords_to_escapes(date: &str) -> Result<Cow<'_, str>, Refused> {
    // Text that the lexer would read as a calendar escape where a date starts: written as it is, what was text
    // would become a calendar. (Elsewhere an escape is no calendar: the writer keeps it, and it reads back as
    // the same text.)
    let escapes = d_escapes(date);
    if let Some((from, to)) = (words(date).filter(|w| w.2))
        .find_map(|(offset, _, _)| escapes.iter().find(|(from, _)| *from == offset))
    {
        return Err(Refused::ReadsAsCalendar(
            date.get(*from..*to).unwrap_or(date).to_string(),
        ));
    }
    let mut changes = Vec::new();
    for (offset, word, starts) in words(date) {
        if !starts || !is_keyword(word) {
            continue;
        }
        let (escape, _) = CALENDARS
            .iter()
            .find(|(_, keyword)| *keyword == word)
            .ok_or_else(|| Refused::NoName(word.to_string()))?;
        changes.push((offset..offset + word.len(), format!("@#D{escape}@")));
    }
    Ok(spliced(Cow::Borrowed(date), changes))
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
        // A tab separates words as a space does.
        assert_eq!(
            calendars_as(Dialect::Gedcom551, seven(), "FROM\t@#DJULIAN@ 1700").as_deref(),
            Ok("FROM\tJULIAN 1700")
        );
        assert_eq!(
            calendars_as(seven(), Dialect::Gedcom551, "44\tB.C."),
            Err(Refused::ReadsAsEpoch("B.C.".into()))
        );
        // An escape with no space after it still leaves the keyword a word of its own.
        assert_eq!(
            calendars_as(Dialect::Gedcom551, seven(), "@#DJULIAN@1700").as_deref(),
            Ok("JULIAN 1700")
        );
    }

    /// 5.5.1 `YEAR_GREG [B.C.]` and 7.0 `year [D epoch]` with `epoch = "BCE"`: the epoch after a year converts
    /// both ways, in every form of date, but not in a phrase or where no year is before it.
    #[test]
    fn epochs_convert_between_bc_and_bce() {
        let pairs = [
            ("44 B.C.", "44 BCE"),
            ("@#DJULIAN@ 1 MAR 44 B.C.", "JULIAN 1 MAR 44 BCE"),
            (
                "BET 100 B.C. AND @#DJULIAN@ 44 B.C.",
                "BET 100 BCE AND JULIAN 44 BCE",
            ),
            ("FROM 1 B.C. TO 1", "FROM 1 BCE TO 1"),
        ];
        for (five, seven_form) in pairs {
            assert_eq!(
                calendars_as(Dialect::Gedcom551, seven(), five).as_deref(),
                Ok(seven_form)
            );
            assert_eq!(
                calendars_as(seven(), Dialect::Gedcom551, seven_form).as_deref(),
                Ok(five)
            );
            assert_eq!(
                calendars_as(Dialect::Elf10, Dialect::Gedcom551, five).as_deref(),
                Ok(five)
            );
        }
        // 5.5.1's year glued to its epoch: GEDCOM 7 needs the space.
        assert_eq!(
            calendars_as(Dialect::Gedcom551, seven(), "44B.C.").as_deref(),
            Ok("44 BCE")
        );
        // In a phrase, or with no year before it, the epoch is text.
        for text in [
            "INT 44 (B.C. or so)",
            "(44 B.C.)",
            "B.C. 44",
            "JAN B.C.",
            "abc B.C.",
        ] {
            assert_eq!(
                calendars_as(Dialect::Gedcom551, seven(), text).as_deref(),
                Ok(text)
            );
        }
        assert_eq!(
            calendars_as(Dialect::Gedcom551, seven(), "INT 44 B.C. (44 B.C. or so)").as_deref(),
            Ok("INT 44 BCE (44 B.C. or so)")
        );
        for text in ["BCE 44", "44BCE", "JAN BCE"] {
            assert_eq!(
                calendars_as(seven(), Dialect::Gedcom551, text).as_deref(),
                Ok(text)
            );
        }
        // Text the other dialect would read as an epoch is refused (found by a helper): 5.5.1's `44 BCE`,
        // GEDCOM 7's `44 B.C.` and `44B.C.`; in a phrase it stays text.
        for (from, to, text, epoch) in [
            (Dialect::Gedcom551, seven(), "44 BCE", "BCE"),
            (
                Dialect::Gedcom551,
                seven(),
                "BET 1 JAN 44 BCE AND 40",
                "BCE",
            ),
            (seven(), Dialect::Gedcom551, "44 B.C.", "B.C."),
            (seven(), Dialect::Elf10, "JULIAN 44B.C.", "B.C."),
        ] {
            assert_eq!(
                calendars_as(from, to, text),
                Err(Refused::ReadsAsEpoch(epoch.into()))
            );
        }
        assert_eq!(
            calendars_as(Dialect::Gedcom551, seven(), "INT 44 B.C. (44 BCE)").as_deref(),
            Ok("INT 44 BCE (44 BCE)")
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
                Err(Refused::NoName(escape.to_string()))
            );
        }
        assert_eq!(
            calendars_as(seven(), Dialect::Gedcom551, "_MAYA 13"),
            Err(Refused::NoName("_MAYA".to_string()))
        );
        assert_eq!(
            calendars_as(seven(), Dialect::Gedcom551, "BET 1700 AND _MAYA 13"),
            Err(Refused::NoName("_MAYA".to_string()))
        );
        assert_eq!(
            calendars_as(seven(), Dialect::Gedcom551, "BET 1 AND @#DJULIAN@ 1700"),
            Err(Refused::ReadsAsCalendar("@#DJULIAN@".into()))
        );
        // GEDCOM 7 text with an escape where no date starts: the writer keeps it, and 5.5.1 reads it back as
        // the same text (found by a helper: it was refused, as if it were where a date starts).
        for text in ["44 @#DHEBREW@", "JAN @#DJULIAN@", "(x @#DJULIAN@ y)"] {
            assert_eq!(
                calendars_as(seven(), Dialect::Gedcom551, text).as_deref(),
                Ok(text)
            );
            assert_eq!(
                calendars_as(Dialect::Gedcom551, seven(), text).as_deref(),
                Ok(text)
            );
        }
        // A keyword that is no calendar's position is a word like any other.
        assert_eq!(
            calendars_as(seven(), Dialect::Gedcom551, "1 JULIAN 1700").as_deref(),
            Ok("1 JULIAN 1700")
        );
        // Where no date starts, an escape is text, in both dialects: left as it is (found by a helper).
        for text in [
            "(born @#DJULIAN@)",
            "INT 1700 (@#DJULIAN@ old style)",
            "1700 @#DJULIAN@",
            "1700\n@#DJULIAN@ x",
        ] {
            assert_eq!(
                calendars_as(Dialect::Gedcom551, seven(), text).as_deref(),
                Ok(text)
            );
        }
        // `INT` starts a date: its calendar converts both ways (found by a helper).
        assert_eq!(
            calendars_as(Dialect::Gedcom551, seven(), "INT @#DHEBREW@ 2 TVT 5758 (x)").as_deref(),
            Ok("INT HEBREW 2 TVT 5758 (x)")
        );
        assert_eq!(
            calendars_as(seven(), Dialect::Gedcom551, "INT HEBREW 2 TVT 5758 (x)").as_deref(),
            Ok("INT @#DHEBREW@ 2 TVT 5758 (x)")
        );
        // 5.5.1 text that GEDCOM 7 would read as a calendar is refused (found by a helper).
        for (text, word) in [
            ("JULIAN 1700", "JULIAN"),
            ("_MAYA 5", "_MAYA"),
            ("BET 1700 AND HEBREW 5600", "HEBREW"),
        ] {
            assert_eq!(
                calendars_as(Dialect::Gedcom551, seven(), text),
                Err(Refused::ReadsAsCalendar(word.to_string()))
            );
        }
        assert_eq!(
            calendars_as(Dialect::Gedcom551, seven(), "1 JULIAN 1700").as_deref(),
            Ok("1 JULIAN 1700")
        );
        // Doubled `@`s are text, not escapes.
        assert_eq!(
            calendars_as(Dialect::Gedcom551, seven(), "@@#DROMAN@@").as_deref(),
            Ok("@@#DROMAN@@")
        );
    }
}
