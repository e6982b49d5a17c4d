//! Single-byte encodings: ASCII, ANSEL (octet order), the Windows, ISO and Mac code pages (tables taken from
//! `encoding_rs`) and the IBM PC code pages 437 and 850 (hand-written tables).
//!
//! Each encoding is a 256-entry table built once. An octet decodes to its character only when that character
//! encodes back to the same octet and no other octet claims it; every other octet stays raw. Decoding is
//! therefore one octet at a time and bijective per character, which is what per-token re-encoding needs.

use std::sync::OnceLock;

use crate::raw;
use crate::source_map::SourceMapBuilder;
use crate::Encoding;

/// A decode table and its inverse.
#[derive(Debug)]
pub(crate) struct Table {
    /// The character each octet decodes to, or `None` if it stays raw.
    decode: [Option<char>; 256],
    /// `decode[b] == Some(b)` for the ASCII octets `b`, for the fast paths.
    ascii_identity: [bool; 128],
    /// Every decodable non-identity character with its octet, sorted by character.
    encode: Vec<(char, u8)>,
}

impl Table {
    /// Builds a table from a per-octet decoder; an octet whose character an earlier octet already claims stays
    /// raw, so the table is always injective.
    fn build(decode_octet: impl Fn(u8) -> Option<char>) -> Table {
        let mut decode = [None; 256];
        let mut ascii_identity = [false; 128];
        let mut encode: Vec<(char, u8)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for b in 0..=255u8 {
            let Some(c) = decode_octet(b) else { continue };
            if raw::is_raw(c) || !seen.insert(c) {
                continue;
            }
            decode[usize::from(b)] = Some(c);
            if b < 0x80 && u32::from(c) == u32::from(b) {
                ascii_identity[usize::from(b)] = true;
            } else {
                encode.push((c, b));
            }
        }
        encode.sort_unstable();
        Table {
            decode,
            ascii_identity,
            encode,
        }
    }

    /// ASCII in `00`–`7F` and a hand-written table for `80`–`FF`.
    fn ascii_plus(high: &[u16; 128]) -> Table {
        Table::build(|b| {
            if b < 0x80 {
                Some(char::from(b))
            } else {
                char::from_u32(u32::from(high[usize::from(b - 0x80)]))
            }
        })
    }

    /// The table of an `encoding_rs` single-byte encoding: each octet decoded alone, kept only if it gives one
    /// character that encodes back to the same octet.
    fn from_encoding_rs(encoding: &'static encoding_rs::Encoding) -> Table {
        Table::build(|b| {
            let octet = [b];
            let decoded = encoding.decode_without_bom_handling_and_without_replacement(&octet)?;
            let mut chars = decoded.chars();
            let c = chars.next()?;
            if chars.next().is_some() {
                return None;
            }
            let (encoded, _, had_errors) = encoding.encode(&decoded);
            (!had_errors && encoded.as_ref() == octet).then_some(c)
        })
    }

    /// The character octet `b` decodes to, if it does not stay raw.
    #[cfg(test)]
    pub(crate) fn decode_octet(&self, b: u8) -> Option<char> {
        self.decode[usize::from(b)]
    }

    /// The octet that encodes `c`, if any.
    pub(crate) fn encode_char(&self, c: char) -> Option<u8> {
        let v = u32::from(c);
        if v < 0x80 && self.ascii_identity[v as usize] {
            return Some(v as u8);
        }
        self.encode
            .binary_search_by(|(k, _)| k.cmp(&c))
            .ok()
            .and_then(|i| self.encode.get(i))
            .map(|(_, b)| *b)
    }

    /// Decodes octets one at a time; octets with no reversible mapping become raw characters.
    pub(crate) fn decode_into(&self, bytes: &[u8], text: &mut String, map: &mut SourceMapBuilder) {
        let mut i = 0;
        while i < bytes.len() {
            let start = i;
            while let Some(&b) = bytes.get(i) {
                if b >= 0x80 || !self.ascii_identity[usize::from(b)] {
                    break;
                }
                i += 1;
            }
            if i > start {
                text.extend(bytes[start..i].iter().map(|&b| char::from(b)));
                map.push(1, 1, i - start);
                continue;
            }
            let b = bytes[i];
            match self.decode[usize::from(b)] {
                Some(c) => {
                    text.push(c);
                    map.push(c.len_utf8(), 1, 1);
                }
                None => {
                    text.push(raw::to_char(b));
                    map.push(raw::RAW_UTF8_LEN, 1, 1);
                }
            }
            i += 1;
        }
    }

    /// Encodes text with no raw characters; on failure gives the character and its offset plus `base`.
    pub(crate) fn encode_str(
        &self,
        text: &str,
        base: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), (char, usize)> {
        out.reserve(text.len());
        for (i, c) in text.char_indices() {
            match self.encode_char(c) {
                Some(b) => out.push(b),
                None => return Err((c, base + i)),
            }
        }
        Ok(())
    }
}

/// The table of a single-byte encoding, built on first use. (For UTF-8 and UTF-16, which do not use tables,
/// this is the ASCII table.)
pub(crate) fn table(encoding: Encoding) -> &'static Table {
    static TABLES: [OnceLock<Table>; 32] = [const { OnceLock::new() }; 32];
    let index = encoding as usize;
    match TABLES.get(index) {
        Some(cell) => cell.get_or_init(|| build(encoding)),
        None => {
            static FALLBACK: OnceLock<Table> = OnceLock::new();
            FALLBACK.get_or_init(|| build(encoding))
        }
    }
}

fn build(encoding: Encoding) -> Table {
    match encoding {
        // R-ENCODINGS-07: ASCII is U+0001–U+007F only; `00` (U+0000 is not a character) stays raw.
        Encoding::Ascii | Encoding::Utf8 | Encoding::Utf16Le | Encoding::Utf16Be => {
            Table::build(|b| (0x01..0x80).contains(&b).then(|| char::from(b)))
        }
        Encoding::Ansel => Table::build(crate::ansel::codec_char),
        Encoding::Windows1250 => Table::from_encoding_rs(encoding_rs::WINDOWS_1250),
        Encoding::Windows1251 => Table::from_encoding_rs(encoding_rs::WINDOWS_1251),
        Encoding::Windows1252 => Table::from_encoding_rs(encoding_rs::WINDOWS_1252),
        Encoding::Windows1253 => Table::from_encoding_rs(encoding_rs::WINDOWS_1253),
        Encoding::Windows1254 => Table::from_encoding_rs(encoding_rs::WINDOWS_1254),
        Encoding::Windows1255 => Table::from_encoding_rs(encoding_rs::WINDOWS_1255),
        Encoding::Windows1256 => Table::from_encoding_rs(encoding_rs::WINDOWS_1256),
        Encoding::Windows1257 => Table::from_encoding_rs(encoding_rs::WINDOWS_1257),
        Encoding::Windows1258 => Table::from_encoding_rs(encoding_rs::WINDOWS_1258),
        Encoding::Windows874 => Table::from_encoding_rs(encoding_rs::WINDOWS_874),
        Encoding::Latin2 => Table::from_encoding_rs(encoding_rs::ISO_8859_2),
        Encoding::Latin9 => Table::from_encoding_rs(encoding_rs::ISO_8859_15),
        Encoding::Koi8R => Table::from_encoding_rs(encoding_rs::KOI8_R),
        Encoding::Macintosh => Table::from_encoding_rs(encoding_rs::MACINTOSH),
        Encoding::Ibm866 => Table::from_encoding_rs(encoding_rs::IBM866),
        Encoding::Ibm437 => Table::ascii_plus(&IBM437_HIGH),
        Encoding::Ibm850 => Table::ascii_plus(&IBM850_HIGH),
    }
}

/// IBM PC code page 437, octets `80`–`FF`. (`00`–`7F` are ASCII, as in text files; the PC's glyphs for the
/// control codes are a display matter.)
#[rustfmt::skip]
const IBM437_HIGH: [u16; 128] = [
    // 80: accented Latin letters
    0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7, 0x00EA, 0x00EB, 0x00E8, 0x00EF, 0x00EE, 0x00EC, 0x00C4, 0x00C5,
    // 90
    0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9, 0x00FF, 0x00D6, 0x00DC, 0x00A2, 0x00A3, 0x00A5, 0x20A7, 0x0192,
    // A0
    0x00E1, 0x00ED, 0x00F3, 0x00FA, 0x00F1, 0x00D1, 0x00AA, 0x00BA, 0x00BF, 0x2310, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB,
    // B0: shades and box drawing
    0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x2561, 0x2562, 0x2556, 0x2555, 0x2563, 0x2551, 0x2557, 0x255D, 0x255C, 0x255B, 0x2510,
    // C0
    0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x255E, 0x255F, 0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x2567,
    // D0
    0x2568, 0x2564, 0x2565, 0x2559, 0x2558, 0x2552, 0x2553, 0x256B, 0x256A, 0x2518, 0x250C, 0x2588, 0x2584, 0x258C, 0x2590, 0x2580,
    // E0: Greek and mathematics
    0x03B1, 0x00DF, 0x0393, 0x03C0, 0x03A3, 0x03C3, 0x00B5, 0x03C4, 0x03A6, 0x0398, 0x03A9, 0x03B4, 0x221E, 0x03C6, 0x03B5, 0x2229,
    // F0
    0x2261, 0x00B1, 0x2265, 0x2264, 0x2320, 0x2321, 0x00F7, 0x2248, 0x00B0, 0x2219, 0x00B7, 0x221A, 0x207F, 0x00B2, 0x25A0, 0x00A0,
];

/// IBM PC code page 850 (DOS Latin-1), octets `80`–`FF`.
#[rustfmt::skip]
const IBM850_HIGH: [u16; 128] = [
    // 80: as code page 437
    0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7, 0x00EA, 0x00EB, 0x00E8, 0x00EF, 0x00EE, 0x00EC, 0x00C4, 0x00C5,
    // 90
    0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9, 0x00FF, 0x00D6, 0x00DC, 0x00F8, 0x00A3, 0x00D8, 0x00D7, 0x0192,
    // A0
    0x00E1, 0x00ED, 0x00F3, 0x00FA, 0x00F1, 0x00D1, 0x00AA, 0x00BA, 0x00BF, 0x00AE, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB,
    // B0
    0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x00C1, 0x00C2, 0x00C0, 0x00A9, 0x2563, 0x2551, 0x2557, 0x255D, 0x00A2, 0x00A5, 0x2510,
    // C0
    0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x00E3, 0x00C3, 0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x00A4,
    // D0
    0x00F0, 0x00D0, 0x00CA, 0x00CB, 0x00C8, 0x0131, 0x00CD, 0x00CE, 0x00CF, 0x2518, 0x250C, 0x2588, 0x2584, 0x00A6, 0x00CC, 0x2580,
    // E0
    0x00D3, 0x00DF, 0x00D4, 0x00D2, 0x00F5, 0x00D5, 0x00B5, 0x00FE, 0x00DE, 0x00DA, 0x00DB, 0x00D9, 0x00FD, 0x00DD, 0x00AF, 0x00B4,
    // F0
    0x00AD, 0x00B1, 0x2017, 0x00BE, 0x00B6, 0x00A7, 0x00F7, 0x00B8, 0x00B0, 0x00A8, 0x00B7, 0x00B9, 0x00B3, 0x00B2, 0x25A0, 0x00A0,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_injective_and_invertible() {
        for &e in Encoding::all() {
            if !matches!(e, Encoding::Utf8 | Encoding::Utf16Le | Encoding::Utf16Be) {
                let t = table(e);
                for b in 0..=255u8 {
                    if let Some(c) = t.decode_octet(b) {
                        assert_eq!(t.encode_char(c), Some(b), "{e}: octet {b:02X}");
                    }
                }
            }
        }
    }

    #[test]
    fn hand_written_tables_have_no_duplicates() {
        for high in [&IBM437_HIGH, &IBM850_HIGH] {
            let mut sorted = high.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 128);
            assert!(high.iter().all(|&v| v >= 0xA0));
        }
        let t = table(Encoding::Ibm437);
        assert!((0..=255u8).all(|b| t.decode_octet(b).is_some()));
    }

    #[test]
    fn known_code_page_characters() {
        let cases: &[(Encoding, u8, char)] = &[
            (Encoding::Windows1252, 0x80, '€'),
            (Encoding::Windows1252, 0xE9, 'é'),
            (Encoding::Windows1252, 0x9F, 'Ÿ'),
            (Encoding::Windows1250, 0x8A, 'Š'),
            (Encoding::Windows1250, 0xF8, 'ř'),
            (Encoding::Windows1251, 0xC0, 'А'),
            (Encoding::Windows1253, 0xC1, 'Α'),
            (Encoding::Macintosh, 0x8E, 'é'),
            (Encoding::Macintosh, 0xA5, '•'),
            (Encoding::Ibm437, 0x82, 'é'),
            (Encoding::Ibm437, 0x9E, '₧'),
            (Encoding::Ibm437, 0xE1, 'ß'),
            (Encoding::Ibm437, 0xFF, '\u{A0}'),
            (Encoding::Ibm850, 0x9B, 'ø'),
            (Encoding::Ibm850, 0xD5, 'ı'),
            (Encoding::Ibm850, 0xF2, '‗'),
            (Encoding::Latin2, 0xB9, 'š'),
            (Encoding::Latin9, 0xA4, '€'),
            (Encoding::Koi8R, 0xC1, 'а'),
            (Encoding::Ibm866, 0x80, 'А'),
        ];
        for &(e, b, c) in cases {
            assert_eq!(table(e).decode_octet(b), Some(c), "{e} {b:02X}");
            assert_eq!(e.decode(&[b]).text, c.to_string());
        }
    }

    /// WHATWG windows-1253 leaves AA, D2 and FF undefined: they stay raw.
    #[test]
    fn undefined_code_page_octets_stay_raw() {
        let t = table(Encoding::Windows1253);
        for b in [0xAA, 0xD2, 0xFF] {
            assert_eq!(t.decode_octet(b), None);
        }
    }

    /// R-ENCODINGS-07: under ASCII, `00` and every octet from `80` up stay raw.
    #[test]
    fn r_encodings_07_ascii_is_01_to_7f() {
        let t = table(Encoding::Ascii);
        assert_eq!(t.decode_octet(0), None);
        assert_eq!(t.decode_octet(0x80), None);
        assert_eq!(t.decode_octet(0x41), Some('A'));
        assert_eq!(t.decode_octet(0x7F), Some('\u{7F}'));
        let d = Encoding::Ascii.decode(b"A\0\xE9");
        assert_eq!(
            d.text,
            format!("A{}{}", raw::to_char(0), raw::to_char(0xE9))
        );
    }
}
