//! Checks of one line beyond its tokens: undecodable octets, characters the drafts exclude, the line length
//! limit, bare `@`s and LF CR line breaks. The parser calls them for every line it lexes; a line with any finding is never shared
//! through the line cache, so a repeated line is checked like any other.
//!
//! - **Not a character** (`not-a-character`, malformed line): U+0000, U+FFFE and U+FFFF are not characters
//!   (2019 L615 and Basic Concepts § 2: `Char ::= [#x1-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]`), so a
//!   line string holding one cannot match `Line` (R-LINES-01). The encoding note `nul-octet` covers only the
//!   detection scan of the header in a file with no byte-order mark (R-SPECIFIED-ENC-03); this check covers
//!   every line of every encoding. Surrogates never reach the text: they are undecodable octets.
//! - **Backspace** (`backspace`, non-conformant source): U+0008 must not occur (R-ENCODINGS-08).
//! - **Other control characters** (`control-character`, warning): the C0 controls but tab, LF and CR, and DEL,
//!   are restricted characters in ELF (Basic Concepts § 2.3, R-SPECIFIED-ENC-04: accepted) and banned in
//!   GEDCOM 7 and GEDCOM 5.5.1's grammar; real files have them (a vertical tab pasted from a word processor),
//!   so they are reported and read as written.
//! - **Long lines** (`line-too-long`, warning): more than [`line_octet_limit`] octets, line break included,
//!   in the file's encoding (R-SERIALISING-STRUCTS-08), counted as the editor's re-wrap counts them.
//! - **Bare `@`** (`unescaped-at`, warning): an `@` in a string payload that is not part of `@@` or an escape
//!   is read as itself (R-IDENTIFY-ESCS-05, a deprecated allowance) but should be written `@@` (R-ESCAPING-01,
//!   GEDCOM 5.5.1). GEDCOM 7 doubles only a leading `@`, so [`Dialect::applies`](crate::Dialect::applies) drops
//!   this code there.
//! - **LF CR** (`lf-cr-line-breaks`, warning): the 2019 draft reads LF CR as two line breaks around a blank line
//!   (R-LINE-STRINGS-02). A file written that way gets one diagnostic counting every such pair, instead of a
//!   `blank-line` warning per line.

use crate::codes;
use crate::diagnostic::{Class, Diagnostic};
use crate::kind::SyntaxKind;
use crate::lexer::{LineFacts, LineToken};
use gedgraft_encoding::{ansel, raw, Encoding};

/// The longest a line should be, in octets of `encoding` with its line break: 255, or 510 in UTF-16
/// (R-SERIALISING-STRUCTS-08). The editor's default re-wrap limit.
///
/// ```
/// use gedgraft_syntax::{encoding::Encoding, line_octet_limit};
/// assert_eq!(line_octet_limit(Encoding::Utf8), 255);
/// assert_eq!(line_octet_limit(Encoding::Utf16Le), 510);
/// ```
pub fn line_octet_limit(encoding: Encoding) -> usize {
    if encoding.is_utf16() {
        510
    } else {
        255
    }
}

/// Lines of at most this many bytes of text are within [`line_octet_limit`] in every encoding: a character
/// takes at least as many bytes in the text (UTF-8) as octets in an 8-bit encoding or UTF-8, and at least half
/// as many as in UTF-16; a raw octet takes four bytes for one octet.
const SURELY_SHORT: usize = 255;

/// Whether `c` is not a character at all (U+0000, U+FFFE, U+FFFF; Basic Concepts § 2), so that no line string
/// and no Unicode escape may hold it.
///
/// ```
/// assert!(gedgraft_syntax::is_not_a_character('\0'));
/// assert!(gedgraft_syntax::is_not_a_character('\u{FFFF}'));
/// assert!(!gedgraft_syntax::is_not_a_character('\u{FFFD}'));
/// ```
pub fn is_not_a_character(c: char) -> bool {
    matches!(c, '\0' | '\u{FFFE}' | '\u{FFFF}')
}

/// What is wrong with one character, if anything: its code, class and name in messages.
fn character_problem(c: char) -> Option<(&'static str, Class)> {
    if is_not_a_character(c) {
        Some((codes::NOT_A_CHARACTER, Class::MalformedLine))
    } else if c == '\u{8}' {
        Some((codes::BACKSPACE, Class::NonConformant))
    } else if (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{7F}' {
        Some((codes::CONTROL_CHARACTER, Class::Warning))
    } else {
        None
    }
}

/// How a character the checks report is named: `U+000B (vertical tab)`.
fn name(c: char) -> String {
    let known = match c {
        '\0' => " (NUL)",
        '\u{7}' => " (bell)",
        '\u{8}' => " (backspace)",
        '\u{B}' => " (vertical tab)",
        '\u{C}' => " (form feed)",
        '\u{1A}' => " (Ctrl-Z, the DOS end-of-file mark)",
        '\u{1B}' => " (escape)",
        '\u{7F}' => " (delete)",
        _ => "",
    };
    format!("U+{:04X}{known}", u32::from(c))
}

/// Whether `bytes` may hold a character [`character_problem`] reports: an octet below 0x20 (tab included,
/// which is then looked at closely), 0x7F, or 0xEF (the first octet of U+FFFE and U+FFFF). Eight octets at a
/// time: most lines have none of them.
fn may_have_problem(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const SPACES: u64 = u64::from_ne_bytes([0x20; 8]);
    const DELS: u64 = u64::from_ne_bytes([0x7F; 8]);
    const EFS: u64 = u64::from_ne_bytes([0xEF; 8]);
    let zeros = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut octets = [0u8; 8];
        octets.copy_from_slice(word);
        let w = u64::from_ne_bytes(octets);
        // Marks an octet below 0x20 (exactly whether there is one, which is all that is asked).
        let below_space = w.wrapping_sub(SPACES) & !w & HIGHS;
        if below_space | zeros(w ^ DELS) | zeros(w ^ EFS) != 0 {
            return true;
        }
    }
    words
        .remainder()
        .iter()
        .any(|&b| b < 0x20 || b == 0x7F || b == 0xEF)
}

/// A finding on a line: code, class, message, and where it starts and ends relative to the line start.
pub(crate) type Finding = (&'static str, Class, String, usize, usize);

/// One `undecodable-octets` finding per run of raw octets in `line`, lexed into `tokens`, decoded with
/// `encoding`. ANSEL octets whose decoding is valid but not reversible (CD, CE, C7, F8) are kept raw for the
/// round trip only: they are good ANSEL, not undecodable (R-ANSEL-02).
pub(crate) fn raw_findings(
    line: &str,
    tokens: &[LineToken],
    encoding: Encoding,
    report: &mut impl FnMut(Finding),
) {
    let mut from = 0;
    for &(kind, end) in tokens {
        let start = std::mem::replace(&mut from, end);
        if kind != SyntaxKind::Raw {
            continue;
        }
        let octets = raw::octets_of(&line[start..end]);
        if encoding == Encoding::Ansel && octets.iter().all(|o| ansel::RAW_KEPT.contains(o)) {
            continue;
        }
        let shown: Vec<String> = octets.iter().take(8).map(|o| format!("{o:02X}")).collect();
        let more = if octets.len() > 8 { " …" } else { "" };
        let message = format!(
            "octet{} {}{more} cannot be decoded as {}; kept as written",
            if octets.len() == 1 { "" } else { "s" },
            shown.join(" "),
            encoding.name()
        );
        report((
            codes::UNDECODABLE_OCTETS,
            Class::NonConformant,
            message,
            start,
            end,
        ));
    }
}

/// The characters of `line` (without its line break) that are not characters or are excluded: one finding per
/// code and line, at the first such character, saying how many there are.
pub(crate) fn character_findings(line: &str, report: &mut impl FnMut(Finding)) {
    if !may_have_problem(line.as_bytes()) {
        return;
    }
    // (code, class, first character and where it is, how many) for each code, in order of first occurrence.
    let mut found: Vec<(&'static str, Class, char, usize, usize)> = Vec::new();
    for (at, c) in line.char_indices() {
        let Some((code, class)) = character_problem(c) else {
            continue;
        };
        match found.iter_mut().find(|f| f.0 == code) {
            Some(f) => f.4 += 1,
            None => found.push((code, class, c, at, 1)),
        }
    }
    for (code, class, c, at, count) in found {
        let more = if count > 1 {
            format!(" (and {} more on this line)", count - 1)
        } else {
            String::new()
        };
        let message = match code {
            codes::NOT_A_CHARACTER => {
                format!(
                    "{} is not a character and cannot be part of a line{more}; kept as written",
                    name(c)
                )
            }
            codes::BACKSPACE => {
                format!(
                    "{} must not appear in the file{more}; kept as written",
                    name(c)
                )
            }
            _ => format!("control character {}{more}; kept as written", name(c)),
        };
        report((code, class, message, at, at + c.len_utf8()));
    }
}

/// A `line-too-long` finding for the line `text` (line break included) when it is longer than the limit
/// once encoded in `encoding`.
pub(crate) fn length_finding(text: &str, encoding: Encoding) -> Option<Finding> {
    if text.len() <= SURELY_SHORT {
        return None;
    }
    let limit = line_octet_limit(encoding);
    let length = if encoding == Encoding::Utf8 && !raw::contains_raw(text) {
        text.len()
    } else {
        let mut octets = Vec::new();
        match encoding.encode(text, &mut octets) {
            Ok(()) => octets.len(),
            Err(_) => text.len(),
        }
    };
    (length > limit).then(|| {
        let message = format!(
            "the line is {length} octets long, line break included; lines should be at most {limit}"
        );
        (codes::LINE_TOO_LONG, Class::Warning, message, 0, text.len())
    })
}

/// An `unescaped-at` finding at the first bare `@` of a well-formed line (not the `@` of an unterminated `@#`,
/// reported as such already), counting the others, as the lexer found them.
pub(crate) fn bare_at_finding(facts: &LineFacts) -> Option<Finding> {
    let at = facts.first_bare_at?;
    let more = if facts.bare_ats > 1 {
        format!(" (and {} more on this line)", facts.bare_ats - 1)
    } else {
        String::new()
    };
    let message =
        format!("a lone `@` in the text{more}: write it `@@` (it is read as a literal `@`)");
    Some((codes::UNESCAPED_AT, Class::Warning, message, at, at + 1))
}

/// Whether the line at `start..line_end` of `text`, whose break ends at `break_end`, is the empty line between the
/// LF and the CR of an LF CR pair.
pub(crate) fn is_lf_cr_gap(text: &str, start: usize, line_end: usize, break_end: usize) -> bool {
    start == line_end
        && text.get(line_end..break_end) == Some("\r")
        && start > 0
        && text.as_bytes().get(start - 1) == Some(&b'\n')
}

/// The message of the one `lf-cr-line-breaks` diagnostic.
pub(crate) const LF_CR_MESSAGE: &str =
    "line breaks are LF CR, read as two breaks around an empty line \
    (`gedgraft fix --eol crlf --join-lf-cr` makes them CR LF)";

/// Joins the `lf-cr-line-breaks` diagnostics of the chunks of a parse into the first, so that the file has one.
pub(crate) fn merge_lf_cr(diagnostics: &mut Vec<Diagnostic>) {
    let mut first = None;
    diagnostics.retain_mut(|d| {
        if d.code != codes::LF_CR_LINE_BREAKS {
            return true;
        }
        match &mut first {
            None => {
                first = Some(d.clone());
                true
            }
            Some(f) => {
                f.absorb(d);
                false
            }
        }
    });
    if let Some(merged) = first {
        if let Some(d) = diagnostics
            .iter_mut()
            .find(|d| d.code == codes::LF_CR_LINE_BREAKS)
        {
            *d = merged;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(line: &str) -> Vec<(&'static str, Class, usize)> {
        let mut out = Vec::new();
        character_findings(line, &mut |(code, class, _, at, _)| {
            out.push((code, class, at))
        });
        out
    }

    #[test]
    fn r_lines_01_u0000_and_noncharacters_are_not_characters() {
        assert_eq!(
            findings("1 NAME a\0b"),
            [(codes::NOT_A_CHARACTER, Class::MalformedLine, 8)]
        );
        assert_eq!(
            findings("1 NOTE \u{FFFE}x\u{FFFF}"),
            [(codes::NOT_A_CHARACTER, Class::MalformedLine, 7)]
        );
        assert!(findings("1 NOTE \u{FFFD}\u{FEFF}\u{EFFF}é\tx").is_empty());
    }

    #[test]
    fn r_encodings_08_backspace_and_other_controls() {
        // The draft's example: `1 NAME Jose 08 27`.
        assert_eq!(
            findings("1 NAME Jose\u{8}'"),
            [(codes::BACKSPACE, Class::NonConformant, 11)]
        );
        assert_eq!(
            findings("1 NOTE a\u{B}b\u{7F}\u{1}"),
            [(codes::CONTROL_CHARACTER, Class::Warning, 8)]
        );
    }

    #[test]
    fn the_quick_test_finds_every_reported_character() {
        for c in (0u32..0x11_0000).filter_map(char::from_u32) {
            if character_problem(c).is_some() {
                for pad in 0..9 {
                    let line = format!("{}{c}{}", "a".repeat(pad), "b".repeat(8 - pad % 8));
                    assert!(may_have_problem(line.as_bytes()), "{c:?} at {pad}");
                }
            }
        }
        assert!(!may_have_problem(
            b"1 NAME Elizabeth /Windsor/ and more text"
        ));
    }

    #[test]
    fn r_serialising_structs_08_limit_with_the_line_break() {
        let line = |n: usize| format!("1 NOTE {}\r\n", "x".repeat(n - 9));
        assert_eq!(line(255).len(), 255);
        assert!(length_finding(&line(255), Encoding::Utf8).is_none());
        let (code, _, message, ..) = length_finding(&line(256), Encoding::Utf8).unwrap();
        assert_eq!(code, codes::LINE_TOO_LONG);
        assert!(message.contains("256 octets"), "{message}");
        // UTF-16: two octets a unit, so 510.
        assert!(length_finding(&line(255), Encoding::Utf16Le).is_none());
        assert!(length_finding(&line(256), Encoding::Utf16Le).is_some());
        // Counted in the file's encoding: 200 `é` are 400 octets of UTF-8 but 200 of windows-1252.
        let accents = format!("1 NOTE {}\n", "é".repeat(200));
        assert!(length_finding(&accents, Encoding::Utf8).is_some());
        assert!(length_finding(&accents, Encoding::Windows1252).is_none());
        // A raw octet is one octet of the file, four bytes of the text.
        let mut raw_line = String::from("1 NOTE ");
        raw::push_octets(&mut raw_line, &[0xE9; 100]);
        assert!(raw_line.len() > 255);
        assert!(length_finding(&raw_line, Encoding::Utf8).is_none());
    }

    #[test]
    fn lf_cr_gap_is_an_empty_line_ending_in_a_lone_cr_after_lf() {
        let text = "0 HEAD\n\r1 X\r\n\r\n";
        assert!(is_lf_cr_gap(text, 7, 7, 8));
        assert!(
            !is_lf_cr_gap(text, 14, 14, 16),
            "CR LF after CR LF is a blank line"
        );
    }
}
