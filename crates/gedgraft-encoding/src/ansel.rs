//! ANSEL as GEDCOM uses it: FHISO's table (`ansel-to-unicode.md`, normative for R-ANSEL-01) and its
//! diacritic reordering.
//!
//! # Octet order in the tree
//!
//! ANSEL writes a combining diacritic *before* its base letter (`E2 65` is `é`); Unicode writes it after. The
//! lossless tree keeps ANSEL **octet order**: [`Encoding::Ansel`](crate::Encoding::Ansel) decodes every octet
//! to one character on its own, so `E2 65` decodes to U+0301 U+0065, the diacritic first. This keeps decoding a
//! per-octet table, bijective per token, and lets any slice of the text encode back to its own octets.
//! [`to_unicode_order`] then gives real Unicode text (R-ENCODINGS-09) for semantic lowering, and
//! [`to_ansel_order`] goes back for writers.
//!
//! # Octets that stay raw (R-ANSEL-02)
//!
//! The codec keeps an octet raw when the table gives it no character, or when its character is already the
//! decoding of another octet, since decoding it could not be reversed:
//!
//! * `CD` and `CE` (midline e and o, a GEDCOM extension) map to plain `e` and `o`, which are `65` and `6F`;
//! * `F8` maps to U+0328, the same as `F1` (MARC-8 would say U+031C, but the FHISO table is normative);
//! * `C7` maps to U+00DF (the MARC 21 extension), the same as `CF` (GEDCOM's es-zet, the older one, which
//!   keeps the character).
//!
//! [`lossy_char`] still gives the table's character for each of them, and [`to_unicode_order`] uses it, so the
//! lowered text is what the table says while the tree keeps the original octets.

/// The table of `ansel-to-unicode.md` for the octets `80`–`FF` that have a character (`00`–`7F` are ASCII).
#[rustfmt::skip]
const TABLE: [(u8, u32); 71] = [
    (0xA1, 0x0141), (0xA2, 0x00D8), (0xA3, 0x0110), (0xA4, 0x00DE), (0xA5, 0x00C6), (0xA6, 0x0152),
    (0xA7, 0x02B9), (0xA8, 0x00B7), (0xA9, 0x266D), (0xAA, 0x00AE), (0xAB, 0x00B1), (0xAC, 0x01A0),
    (0xAD, 0x01AF), (0xAE, 0x02BE),
    (0xB0, 0x02BF), (0xB1, 0x0142), (0xB2, 0x00F8), (0xB3, 0x0111), (0xB4, 0x00FE), (0xB5, 0x00E6),
    (0xB6, 0x0153), (0xB7, 0x02BA), (0xB8, 0x0131), (0xB9, 0x00A3), (0xBA, 0x00F0), (0xBC, 0x01A1),
    (0xBD, 0x01B0), (0xBE, 0x25A1), (0xBF, 0x25A0),
    (0xC0, 0x00B0), (0xC1, 0x2113), (0xC2, 0x2117), (0xC3, 0x00A9), (0xC4, 0x266F), (0xC5, 0x00BF),
    (0xC6, 0x00A1), (0xC7, 0x00DF), (0xC8, 0x20AC), (0xCD, 0x0065), (0xCE, 0x006F), (0xCF, 0x00DF),
    (0xE0, 0x0309), (0xE1, 0x0300), (0xE2, 0x0301), (0xE3, 0x0302), (0xE4, 0x0303), (0xE5, 0x0304),
    (0xE6, 0x0306), (0xE7, 0x0307), (0xE8, 0x0308), (0xE9, 0x030C), (0xEA, 0x030A), (0xEB, 0xFE20),
    (0xEC, 0xFE21), (0xED, 0x0315), (0xEE, 0x030B), (0xEF, 0x0310), (0xF0, 0x0327), (0xF1, 0x0328),
    (0xF2, 0x0323), (0xF3, 0x0324), (0xF4, 0x0325), (0xF5, 0x0333), (0xF6, 0x0332), (0xF7, 0x0326),
    (0xF8, 0x0328), (0xF9, 0x032E), (0xFA, 0xFE22), (0xFB, 0xFE23), (0xFC, 0x0338), (0xFE, 0x0313),
];

/// The octets whose table character is not reversible, so the codec keeps them raw (see the module docs).
pub const RAW_KEPT: [u8; 4] = [0xC7, 0xCD, 0xCE, 0xF8];

/// Where a combining diacritic sits, per the addendum of `ansel-to-unicode.md`; it decides the order in which
/// several diacritics on one letter are written in Unicode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stacking {
    /// Above the letter (`E0`–`EF`, `FA`, `FB`, `FE`).
    High,
    /// Below the letter (`F0`–`F9`).
    Low,
    /// Through the letter (`FC`, the slash U+0338).
    Center,
}

/// The table's character for `octet`: ASCII for `00`–`7F`, the `ansel-to-unicode.md` row otherwise, `None` for
/// the octets with no character (`80`–`A0`, `AF`, `BB`, `C9`–`CC`, `D0`–`DF`, `FD`, `FF`).
///
/// Unlike the codec this also answers for the octets it keeps raw ([`RAW_KEPT`]): `CD` → `e`, `CE` → `o`,
/// `F8` → U+0328, `C7` → `ß`, for semantic lowering.
///
/// ```
/// use gedgraft_encoding::ansel;
/// assert_eq!(ansel::lossy_char(0xE2), Some('\u{301}'));
/// assert_eq!(ansel::lossy_char(0xCD), Some('e'));
/// assert_eq!(ansel::lossy_char(0xF8), Some('\u{328}'));
/// assert_eq!(ansel::lossy_char(0x80), None);
/// ```
pub fn lossy_char(octet: u8) -> Option<char> {
    if octet < 0x80 {
        return Some(char::from(octet));
    }
    TABLE
        .iter()
        .find(|(b, _)| *b == octet)
        .and_then(|(_, c)| char::from_u32(*c))
}

/// What the codec decodes `octet` to: [`lossy_char`] except for the octets kept raw.
pub(crate) fn codec_char(octet: u8) -> Option<char> {
    if RAW_KEPT.contains(&octet) {
        None
    } else {
        lossy_char(octet)
    }
}

/// Whether `octet` is one of ANSEL's combining diacritics (`E0`–`FE` except `FD`), written before its letter.
pub fn is_diacritic_octet(octet: u8) -> bool {
    (0xE0..=0xFE).contains(&octet) && octet != 0xFD
}

/// How the combining character `c` stacks, if it is one of the ANSEL diacritics' code points.
pub fn stacking(c: char) -> Option<Stacking> {
    Some(match u32::from(c) {
        0x0338 => Stacking::Center,
        0x0327 | 0x0328 | 0x0323 | 0x0324 | 0x0325 | 0x0333 | 0x0332 | 0x0326 | 0x032E => {
            Stacking::Low
        }
        0x0309
        | 0x0300..=0x0304
        | 0x0306..=0x0308
        | 0x030C
        | 0x030A
        | 0xFE20..=0xFE23
        | 0x0315
        | 0x030B
        | 0x0310
        | 0x0313 => Stacking::High,
        _ => return None,
    })
}

/// The character a piece of ANSEL-decoded text really stands for: raw characters of octets with a table
/// character ([`RAW_KEPT`]) become that character; everything else is itself.
fn table_char(c: char) -> char {
    match crate::raw::to_octet(c) {
        Some(octet) => lossy_char(octet).unwrap_or(c),
        None => c,
    }
}

/// Converts text decoded with [`Encoding::Ansel`](crate::Encoding::Ansel) (ANSEL octet order) to Unicode.
///
/// Each run of diacritics moves after the character that follows it ("swap with next"); when several stack on
/// one letter they are reordered as the addendum of `ansel-to-unicode.md` says: the letter, then the centre
/// diacritic (U+0338), then the low ones in their original order, then the high ones in reverse order
/// (R-ANSEL-01). Raw characters of the octets the codec keeps raw become their table characters
/// ([`lossy_char`]); other raw characters (octets with no character) are left for the caller to report.
/// Diacritics at the very end, with no letter after them, stay as they are.
///
/// Apply it to a whole line string or payload: a diacritic is never moved past the text given.
///
/// ```
/// use gedgraft_encoding::{ansel, Encoding};
/// let text = Encoding::Ansel.decode(b"\xE0\xE9\xF1\xFC\xE8\xF7e").text;
/// assert_eq!(ansel::to_unicode_order(&text), "e\u{338}\u{328}\u{326}\u{308}\u{30C}\u{309}");
/// ```
pub fn to_unicode_order(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending: Vec<(char, Stacking)> = Vec::new();
    for c in text.chars().map(table_char) {
        if let Some(kind) = stacking(c) {
            pending.push((c, kind));
            continue;
        }
        out.push(c);
        if !pending.is_empty() {
            push_unicode_stack(&pending, &mut out);
            pending.clear();
        }
    }
    out.extend(pending.iter().map(|(c, _)| *c));
    out
}

/// Writes the diacritics of one letter in Unicode order: centre, low (as written), high (reversed).
fn push_unicode_stack(marks: &[(char, Stacking)], out: &mut String) {
    out.extend(marks_of(marks, Stacking::Center));
    out.extend(marks_of(marks, Stacking::Low));
    out.extend(marks_of(marks, Stacking::High).rev());
}

/// The diacritics of one stacking position, in the order given.
fn marks_of(
    marks: &[(char, Stacking)],
    kind: Stacking,
) -> impl DoubleEndedIterator<Item = char> + '_ {
    marks
        .iter()
        .filter(move |(_, k)| *k == kind)
        .map(|(c, _)| *c)
}

/// Converts Unicode text to ANSEL octet order, the inverse of [`to_unicode_order`] for text in the order it
/// produces: the ANSEL diacritics that follow a character move before it, high ones first (in reverse), then
/// the centre one, then the low ones. The result encodes with [`Encoding::Ansel`](crate::Encoding::Ansel) as
/// far as its characters are in the table; precomposed letters such as `é` are not decomposed here.
///
/// ```
/// use gedgraft_encoding::ansel;
/// assert_eq!(ansel::to_ansel_order("Jose\u{301}"), "Jos\u{301}e");
/// ```
pub fn to_ansel_order(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut base: Option<char> = None;
    let mut marks: Vec<(char, Stacking)> = Vec::new();
    let flush = |base: Option<char>, marks: &mut Vec<(char, Stacking)>, out: &mut String| {
        out.extend(marks_of(marks, Stacking::High).rev());
        out.extend(marks_of(marks, Stacking::Center));
        out.extend(marks_of(marks, Stacking::Low));
        marks.clear();
        out.extend(base);
    };
    for c in text.chars() {
        match stacking(c) {
            Some(kind) if base.is_some() => marks.push((c, kind)),
            Some(_) => out.push(c),
            None => {
                flush(base, &mut marks, &mut out);
                base = Some(c);
            }
        }
    }
    flush(base, &mut marks, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{raw, Encoding};

    /// R-ANSEL-01, the multiple-diacritic example of `ansel-to-unicode.md`.
    #[test]
    fn r_ansel_01_stacked_diacritics() {
        let d = Encoding::Ansel.decode(b"\xE0\xE9\xF1\xFC\xE8\xF7\x65");
        assert_eq!(d.text, "\u{309}\u{30C}\u{328}\u{338}\u{308}\u{326}e");
        assert_eq!(
            to_unicode_order(&d.text),
            "e\u{338}\u{328}\u{326}\u{308}\u{30C}\u{309}"
        );
    }

    /// R-ANSEL-01, the single-diacritic example: `64 65 EA 66 67` → d e f U+030A g.
    #[test]
    fn r_ansel_01_swap_with_next() {
        let d = Encoding::Ansel.decode(b"\x64\x65\xEA\x66\x67");
        assert_eq!(to_unicode_order(&d.text), "def\u{30A}g");
    }

    /// R-ANSEL-02: F8 and F1 give the same Unicode text, yet each octet comes back as written.
    #[test]
    fn r_ansel_02_non_reversible_octets_stay_raw() {
        for (a, b) in [(0xF8u8, 0xF1u8), (0xCD, 0x65), (0xCE, 0x6F), (0xC7, 0xCF)] {
            let da = Encoding::Ansel.decode(&[a, b'c']);
            let db = Encoding::Ansel.decode(&[b, b'c']);
            assert!(raw::is_raw(da.text.chars().next().unwrap()));
            assert_ne!(da.text, db.text);
            assert_eq!(to_unicode_order(&da.text), to_unicode_order(&db.text));
            let mut back = Vec::new();
            Encoding::Ansel.encode(&da.text, &mut back).unwrap();
            assert_eq!(back, [a, b'c']);
        }
    }

    /// R-ENCODINGS-09: `Jos E2 65` lowers to `Jose` + U+0301.
    #[test]
    fn r_encodings_09_diacritic_moves_after_letter() {
        let d = Encoding::Ansel.decode(b"Jos\xE2e");
        assert_eq!(d.text, "Jos\u{301}e");
        assert_eq!(to_unicode_order(&d.text), "Jose\u{301}");
        assert_eq!(to_ansel_order("Jose\u{301}"), d.text);
    }

    #[test]
    fn trailing_and_unmapped() {
        assert_eq!(to_unicode_order("a\u{301}"), "a\u{301}");
        let d = Encoding::Ansel.decode(b"\xE2\x80x");
        // The diacritic attaches to the raw octet that follows it, which stays raw.
        assert_eq!(
            to_unicode_order(&d.text),
            format!("{}\u{301}x", raw::to_char(0x80))
        );
    }

    #[test]
    fn stacking_covers_every_diacritic_octet() {
        for b in 0xE0..=0xFEu8 {
            assert_eq!(is_diacritic_octet(b), b != 0xFD);
            if is_diacritic_octet(b) {
                let c = lossy_char(b).unwrap();
                let expected = match b {
                    0xFC => Stacking::Center,
                    0xF0..=0xF9 => Stacking::Low,
                    _ => Stacking::High,
                };
                assert_eq!(stacking(c), Some(expected), "{b:02X}");
            }
        }
        for b in 0..0xE0u8 {
            if let Some(c) = lossy_char(b) {
                assert_eq!(stacking(c), None, "{b:02X}");
            }
        }
    }
}
