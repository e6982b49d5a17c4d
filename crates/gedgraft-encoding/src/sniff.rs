//! What the octets of an 8-bit or UTF-8 file say about their encoding, for [`detect`](crate::detect)'s
//! mismatch notes: one pass counts high octets, UTF-8 sequences, CESU-8 pairs and how well the octets read as
//! ANSEL.
//!
//! # ANSEL or windows-1252
//!
//! Most octets from `E0` up are letters in windows-1252 (`é` is `E9`) and combining diacritics in ANSEL, written
//! before their letter (`E9 61` is `ǎ`). A windows-1252 file whose accents are all followed by a letter is
//! therefore valid ANSEL, and read as ANSEL its names change (`Andréa` becomes `Andrǎa`). The octets decide
//! by weight of evidence:
//!
//! * against ANSEL: an octet ANSEL does not have, or a diacritic with no letter after it (strong evidence);
//!   a diacritic on an ASCII letter that composes to no precomposed letter (`FC 6C`, `l` with a slash overlay:
//!   in windows-1252 `ül`); more weakly, one that composes only to a rare letter (`ǎ`, Latin Extended-B and
//!   beyond);
//! * for ANSEL: diacritics on an ASCII letter that compose to a common letter (Latin-1 Supplement or Latin
//!   Extended-A, `E2 65` is `é`; stacked, Latin Extended Additional too, `E3 F2 65` is Vietnamese `ệ`), ANSEL's own letters (`B1` `ł`, `B2` `ø`, …), which windows-1252 reads as
//!   symbols (`±`, `²`), and more weakly its other characters (`C3` `©`).
//!
//! The octets read as ANSEL when there is no evidence against, or when the evidence for it is at least a tenth
//! of the evidence against: an octet ANSEL lacks weighs as much as a hundred common pairs (one in twenty high
//! octets, as before pairs were weighed), an odd pair as one common pair. The torture-test files
//! `TGC551*.ged` put every diacritic on every letter, so most of their pairs are rare or odd, but a tenth are
//! common. The weighing cannot catch every windows-1252 file: one whose accents happen to compose (`Renée`:
//! `E9 65` is `ě` in ANSEL) still reads as ANSEL.
//!
//! Octets after the trailer that are not lines (junk a transfer added, see [`before_junk`]) are not text of
//! the file and say nothing about its encoding: they are left out.

use crate::{ansel, Encoding};
use unicode_normalization::UnicodeNormalization;

/// What one pass over the octets tells about their likely encoding.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    /// Octets from `80` up.
    pub high: usize,
    pub first_high: Option<usize>,
    /// Valid UTF-8 multi-octet characters.
    pub multibyte: usize,
    pub first_multibyte: Option<usize>,
    /// Invalid UTF-8 sequences, CESU-8 pairs aside.
    pub invalid: usize,
    pub first_invalid: Option<usize>,
    /// Offsets of CESU-8 surrogate pairs.
    pub cesu: Vec<usize>,
    /// Octets that do not fit ANSEL: no table character, or a diacritic not followed by a letter.
    pub ansel_bad: usize,
    pub first_ansel_bad: Option<usize>,
    /// ANSEL diacritics on an ASCII letter that compose to a common letter (`E2 65`, `é`).
    common_pairs: usize,
    /// … to a rare precomposed letter only (`E9 61`, `ǎ`).
    rare_pairs: usize,
    /// … to no precomposed letter (`FC 6C`).
    odd_pairs: usize,
    /// The first rare or odd pair.
    pub first_odd_pair: Option<usize>,
    /// ANSEL's own letters (`Ł`, `ø`, `æ`, `ı`, …), which windows-1252 reads as symbols.
    ansel_letters: usize,
    /// ANSEL's other characters that are not diacritics (`©`, `°`, `£`, …).
    ansel_signs: usize,
}

/// How much the evidence for ANSEL must outweigh the evidence against it (see the module documentation).
const ANSEL_MARGIN: usize = 10;

impl Stats {
    pub(crate) fn of(body: &[u8]) -> Stats {
        let mut s = Stats::default();
        // Skip ASCII 64 octets at a time: most of a typical file is ASCII.
        let mut i = 0;
        while i < body.len() {
            if i % 64 == 0 {
                let end = body.len().min(i + 64);
                if body[i..end].is_ascii() {
                    i = end;
                    continue;
                }
            }
            let b = body[i];
            i += 1;
            if b >= 0x80 {
                s.high_octet(body, i - 1, b);
            }
        }
        if s.high == 0 {
            return s;
        }
        if std::str::from_utf8(body).is_ok() {
            s.first_multibyte = body.iter().position(|&b| b >= 0x80);
            s.multibyte = body.iter().filter(|&&b| b >= 0xC0).count();
            return s;
        }
        let mut offset = 0;
        let mut skip_until = 0;
        for chunk in body.utf8_chunks() {
            let valid = chunk.valid().as_bytes();
            if let Some(first) = valid.iter().position(|&b| b >= 0x80) {
                s.first_multibyte.get_or_insert(offset + first);
                s.multibyte += valid.iter().filter(|&&b| b >= 0xC0).count();
            }
            offset += valid.len();
            let invalid = chunk.invalid();
            if !invalid.is_empty() && offset >= skip_until {
                if is_cesu_pair(body.get(offset..).unwrap_or_default()) {
                    s.cesu.push(offset);
                    skip_until = offset + 6;
                } else {
                    s.invalid += 1;
                    s.first_invalid.get_or_insert(offset);
                }
            }
            offset += invalid.len();
        }
        s
    }

    /// Counts the high octet `b` at `i`: how it reads as ANSEL.
    fn high_octet(&mut self, body: &[u8], i: usize, b: u8) {
        self.high += 1;
        self.first_high.get_or_insert(i);
        let Some(c) = ansel::lossy_char(b) else {
            self.bad(i);
            return;
        };
        if !ansel::is_diacritic_octet(b) {
            if is_ansel_letter(b) {
                self.ansel_letters += 1;
            } else {
                self.ansel_signs += 1;
            }
            return;
        }
        // A diacritic is written before a letter: an ASCII letter, a special letter or another diacritic,
        // possibly at the start of the `CONC` line that continues this one.
        let next = match body.get(i + 1) {
            Some(b'\r' | b'\n') => after_conc(body, i + 1),
            other => other.copied(),
        };
        match next {
            Some(n) if n.is_ascii_alphabetic() => {
                // The letter with every diacritic written before it: ANSEL stacks them (`E3 F2 65`, `ệ`), and the
                // letter they make together is what the file means, not that of the last one alone (`ẹ`).
                let diacritic =
                    |j: &usize| body.get(*j).is_some_and(|&b| ansel::is_diacritic_octet(b));
                let first = (0..i).rev().take_while(diacritic).last().unwrap_or(i);
                let marks = body.get(first..i).unwrap_or_default().iter();
                let mut written: String = marks.filter_map(|&b| ansel::lossy_char(b)).collect();
                written.extend([c, char::from(n)]);
                let letter: String = ansel::to_unicode_order(&written).nfc().collect();
                let mut letters = letter.chars();
                match (letters.next(), letters.next()) {
                    (Some(l), None) if is_common_letter(l, first < i) => self.common_pairs += 1,
                    (Some(_), None) => {
                        self.rare_pairs += 1;
                        self.first_odd_pair.get_or_insert(i);
                    }
                    _ => {
                        self.odd_pairs += 1;
                        self.first_odd_pair.get_or_insert(i);
                    }
                }
            }
            Some(n) if n >= 0xA1 => {}
            _ => self.bad(i),
        }
    }

    fn bad(&mut self, i: usize) {
        self.ansel_bad += 1;
        self.first_ansel_bad.get_or_insert(i);
    }

    /// Whether the high octets read as ANSEL: the evidence for it outweighs the evidence against (see the module
    /// documentation).
    pub(crate) fn ansel_plausible(&self) -> bool {
        let against = 200 * self.ansel_bad + 2 * self.odd_pairs + self.rare_pairs;
        let support = 2 * self.common_pairs + 2 * self.ansel_letters + self.ansel_signs;
        against == 0 || against <= ANSEL_MARGIN * support
    }

    /// Where the first evidence against ANSEL is, if there is any.
    pub(crate) fn first_against_ansel(&self) -> Option<usize> {
        match (self.first_ansel_bad, self.first_odd_pair) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Why the octets do not read as ANSEL, for a note; `body` gives the first odd pair's octets.
    pub(crate) fn why_not_ansel(&self, body: &[u8]) -> String {
        let mut why = Vec::new();
        if self.ansel_bad > 0 {
            why.push(
                "they include octets ANSEL does not have or diacritics with no letter after them"
                    .to_string(),
            );
        }
        let pair = self
            .first_odd_pair
            .and_then(|at| body.get(at..at + 2))
            .filter(|_| self.odd_pairs + self.rare_pairs > 0);
        if let Some(pair) = pair {
            let as_ansel: String = ansel::to_unicode_order(&Encoding::Ansel.decode(pair).text)
                .nfc()
                .collect();
            let as_1252 = Encoding::Windows1252.decode(pair).text;
            why.push(format!(
                "read as ANSEL, {} of them make unusual letters (`{as_1252}` would be `{as_ansel}`)",
                self.odd_pairs + self.rare_pairs
            ));
        }
        why.join("; ")
    }

    /// The encoding the octets most likely are, if they are not plain ASCII.
    pub(crate) fn guess(&self) -> Option<Encoding> {
        if self.high == 0 {
            None
        } else if self.invalid == 0 && (self.multibyte > 0 || !self.cesu.is_empty()) {
            Some(Encoding::Utf8)
        } else {
            Some(self.guess_8bit())
        }
    }

    /// ANSEL or windows-1252, whichever the high octets fit.
    pub(crate) fn guess_8bit(&self) -> Encoding {
        if self.ansel_plausible() {
            Encoding::Ansel
        } else {
            Encoding::Windows1252
        }
    }
}

/// Whether `c` is a common precomposed letter: Latin-1 Supplement or Latin Extended-A (`é`, `ü`, `č`, `ł`),
/// not the signs `×` and `÷`; made by stacked diacritics, Latin Extended Additional too (Vietnamese `ệ`, `ễ`,
/// which no windows-1252 text makes: two accented letters and a letter).
fn is_common_letter(c: char, stacked: bool) -> bool {
    let latin = matches!(u32::from(c), 0xC0..=0x17F)
        || (stacked && matches!(u32::from(c), 0x1E00..=0x1EFF));
    latin && c.is_alphabetic()
}

/// ANSEL's own letters (`A1`–`A6`, `AC`, `AD`, `B1`–`B6`, `B8`, `BA`, `BC`, `BD`: `Ł Ø Đ Þ Æ Œ Ơ Ư ł ø đ þ æ
/// œ ı ð ơ ư`), which windows-1252 reads as symbols.
fn is_ansel_letter(b: u8) -> bool {
    matches!(b, 0xA1..=0xA6 | 0xAC | 0xAD | 0xB1..=0xB6 | 0xB8 | 0xBA | 0xBC | 0xBD)
}

/// The octets of `body` up to any junk after its first trailer: the part that is text of the file. After the
/// first `0 TRLR` line, lines are read as the parser reads them (see `gedgraft-syntax`'s `after_trailer`): the
/// first non-blank line must be a level-0 line and then every line that starts with a level is read; the first
/// other line, and the blank lines just before it, start the junk.
///
/// ```text
/// 0 TRLR ⏎ ^Z 00 FF FE   →  up to and including `0 TRLR ⏎`
/// ```
pub(crate) fn before_junk(body: &[u8]) -> &[u8] {
    let Some(mut pos) = first_trailer_end(body) else {
        return body;
    };
    let mut first = true;
    let mut blank_from = None;
    while pos < body.len() {
        let end = memchr::memchr2(b'\n', b'\r', &body[pos..]).map_or(body.len(), |p| pos + p);
        let mut words = body[pos..end]
            .split(|&b| b == b' ' || b == b'\t')
            .filter(|w| !w.is_empty());
        match words.next() {
            None => {
                blank_from.get_or_insert(pos);
            }
            Some(level) => {
                let read = if first {
                    level == b"0" && words.next().is_some()
                } else {
                    level.first().is_some_and(u8::is_ascii_digit)
                };
                if !read {
                    return &body[..blank_from.unwrap_or(pos)];
                }
                first = false;
                blank_from = None;
            }
        }
        pos = end + 1;
    }
    body
}

/// Where the line break after the first `0 TRLR` line ends.
fn first_trailer_end(body: &[u8]) -> Option<usize> {
    for at in memchr::memmem::find_iter(body, b"TRLR") {
        let start = body[..at]
            .iter()
            .rposition(|&b| b == b'\n' || b == b'\r')
            .map_or(0, |p| p + 1);
        let end = memchr::memchr2(b'\n', b'\r', &body[at..]).map_or(body.len(), |p| at + p);
        let mut words = body[start..end]
            .split(|&b| b == b' ' || b == b'\t')
            .filter(|w| !w.is_empty());
        if (words.next(), words.next(), words.next()) == (Some(b"0"), Some(b"TRLR"), None) {
            let rest = &body[end..];
            let eol = match rest {
                [b'\r', b'\n', ..] | [b'\n', b'\r', ..] => 2,
                [_, ..] => 1,
                [] => 0,
            };
            return Some(end + eol);
        }
    }
    None
}

/// The first payload octet of the line after the line break at `at`, if that line is a `CONC` line (`n CONC x`,
/// leading whitespace allowed): a `CONC` line's text joins the one before with nothing between, so an ANSEL
/// diacritic that ends a line marks the letter that starts it (gedcom4j's `issue81.ged`).
fn after_conc(body: &[u8], at: usize) -> Option<u8> {
    let rest = body.get(at..)?;
    let rest = rest.strip_prefix(b"\r").unwrap_or(rest);
    let rest = rest.strip_prefix(b"\n").unwrap_or(rest);
    let rest = skip(rest, |b| *b == b' ' || *b == b'\t');
    let digits = skip(rest, u8::is_ascii_digit);
    if digits.len() == rest.len() {
        return None;
    }
    let rest = skip(digits, |b| *b == b' ' || *b == b'\t').strip_prefix(b"CONC")?;
    skip(rest, |b| *b == b' ' || *b == b'\t')
        .first()
        .copied()
        .filter(|_| rest.first() == Some(&b' '))
}

/// `octets` without the leading ones for which `f` holds.
fn skip(octets: &[u8], f: fn(&u8) -> bool) -> &[u8] {
    let n = octets.iter().take_while(|b| f(b)).count();
    &octets[n..]
}

/// `ED A0`–`AF xx ED B0`–`BF xx`: a surrogate pair written as two 3-octet sequences.
fn is_cesu_pair(octets: &[u8]) -> bool {
    let cont = |b: u8| (0x80..=0xBF).contains(&b);
    matches!(octets, [0xED, h, a, 0xED, l, b, ..]
        if (0xA0..=0xAF).contains(h) && cont(*a) && (0xB0..=0xBF).contains(l) && cont(*b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junk_after_the_trailer_is_left_out() {
        let body = b"0 HEAD\n0 TRLR\n\x1a\x00\xff\xfe";
        assert_eq!(before_junk(body), b"0 HEAD\n0 TRLR\n");
        // Blank lines before the junk are junk too; records after the trailer are text.
        let body = b"0 HEAD\n0 TRLR\r\n\r\n<html>\xe9";
        assert_eq!(before_junk(body), b"0 HEAD\n0 TRLR\r\n");
        let body = b"0 HEAD\n0 TRLR\n0 @I1@ INDI\n1 NAME \xe9\n\x1a";
        assert_eq!(
            before_junk(body),
            b"0 HEAD\n0 TRLR\n0 @I1@ INDI\n1 NAME \xe9\n"
        );
        // `1 NOTE` right after the trailer is junk (the first line must be a level-0 line).
        assert_eq!(before_junk(b"0 TRLR\n1 NOTE \xe9"), b"0 TRLR\n");
        let whole: &[u8] = b"0 HEAD\n1 NOTE TRLR\n";
        assert_eq!(before_junk(whole), whole);
    }

    #[test]
    fn common_pairs_read_as_ansel_and_odd_ones_do_not() {
        // `E2 65` is `é` in ANSEL: common. `FC 6C` composes to nothing.
        assert!(Stats::of(b"Ren\xe2e").ansel_plausible());
        assert!(!Stats::of(b"M\xfcller").ansel_plausible());
        // `E9 61` composes to `ǎ` only.
        assert!(!Stats::of(b"Andr\xe9a").ansel_plausible());
        // An undefined octet (`D6`) among many common pairs is still too much.
        let mut body = b"\xe2e ".repeat(5);
        body.extend_from_slice(b"\xd6");
        assert!(!Stats::of(&body).ansel_plausible());
        // ANSEL's own letters count for it: `B1` is `ł`.
        assert!(Stats::of(b"\xb1od\xfcz").ansel_plausible());
    }

    /// Stacked diacritics make one letter with theirs: `E3 F2 65` (circumflex, dot below, `e`) is Vietnamese
    /// `ệ`, as gedgraft itself writes it in ANSEL. Judged by the last mark alone (`F2 65`, `ẹ`, rare) the octets
    /// read as windows-1252 (`òe`), and a file gedgraft transcoded to ANSEL could not be transcoded back (found
    /// by a helper): `Việt`, `Nguyễn`, `Đặng`, `Hồ` read as ANSEL.
    #[test]
    fn stacked_diacritics_are_judged_by_the_letter_they_make() {
        // As `fix --to-encoding ANSEL` writes them.
        for word in [
            &b"Vi\xe3\xf2et"[..],
            b"Nguy\xe4\xe3en",
            b"\xa3\xe6\xf2ang",
            b"H\xe1\xe3o",
        ] {
            let stats = Stats::of(word);
            assert!(stats.ansel_plausible(), "{}", String::from_utf8_lossy(word));
            assert_eq!(
                stats.first_against_ansel(),
                None,
                "{}",
                String::from_utf8_lossy(word)
            );
        }
        // A windows-1252 `ò` before a letter still reads as one: `F2 65` alone is the rare `ẹ`.
        assert!(!Stats::of(b"pi\xf2e").ansel_plausible());
    }
}
