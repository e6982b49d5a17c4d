//! UTF-16 of either byte order, with lone surrogates and an odd trailing octet kept as raw octets.
//!
//! A surrogate pair decodes to one character (R-ENCODINGS-06); a high surrogate not followed by a low one, a low
//! surrogate on its own, and a final odd octet keep their original octets as raw characters. A pair that encodes
//! a character of the raw range itself (U+10FF00–U+10FFFF) is kept raw too, so that every raw character in
//! decoded text stands for exactly one octet.

use crate::raw;
use crate::source_map::SourceMapBuilder;

/// The code units of UTF-16 `octets` (`big_endian` or little endian), in order; an odd last octet is left out.
pub fn units(octets: &[u8], big_endian: bool) -> impl Iterator<Item = u16> + '_ {
    octets.chunks_exact(2).map(move |p| match big_endian {
        true => u16::from_be_bytes([p[0], p[1]]),
        false => u16::from_le_bytes([p[0], p[1]]),
    })
}

/// Decodes UTF-16 (`big_endian` or little endian) losslessly.
pub(crate) fn decode_into(
    bytes: &[u8],
    big_endian: bool,
    text: &mut String,
    map: &mut SourceMapBuilder,
) {
    let unit = |pair: &[u8]| -> u16 {
        let two = [
            pair.first().copied().unwrap_or(0),
            pair.get(1).copied().unwrap_or(0),
        ];
        if big_endian {
            u16::from_be_bytes(two)
        } else {
            u16::from_le_bytes(two)
        }
    };
    let even = bytes.len() & !1;
    let mut i = 0;
    while i < even {
        let u = unit(&bytes[i..i + 2]);
        match u {
            0xD800..=0xDBFF => {
                let low = if i + 4 <= even {
                    Some(unit(&bytes[i + 2..i + 4]))
                } else {
                    None
                };
                match low {
                    Some(v @ 0xDC00..=0xDFFF) => {
                        let scalar =
                            0x1_0000 + ((u32::from(u) - 0xD800) << 10) + (u32::from(v) - 0xDC00);
                        match char::from_u32(scalar) {
                            Some(c) if !raw::is_raw(c) => {
                                text.push(c);
                                map.push(c.len_utf8(), 4, 1);
                            }
                            _ => push_raw(&bytes[i..i + 4], text, map),
                        }
                        i += 4;
                    }
                    _ => {
                        push_raw(&bytes[i..i + 2], text, map);
                        i += 2;
                    }
                }
            }
            0xDC00..=0xDFFF => {
                push_raw(&bytes[i..i + 2], text, map);
                i += 2;
            }
            _ => {
                match char::from_u32(u32::from(u)) {
                    Some(c) => {
                        text.push(c);
                        map.push(c.len_utf8(), 2, 1);
                    }
                    None => push_raw(&bytes[i..i + 2], text, map),
                }
                i += 2;
            }
        }
    }
    if even < bytes.len() {
        push_raw(&bytes[even..], text, map);
    }
}

/// Appends octets as raw characters.
fn push_raw(octets: &[u8], text: &mut String, map: &mut SourceMapBuilder) {
    raw::push_octets(text, octets);
    map.push(raw::RAW_UTF8_LEN, 1, octets.len());
}

/// Encodes text (with no raw characters) as UTF-16 of the given byte order.
pub(crate) fn encode_str(text: &str, big_endian: bool, out: &mut Vec<u8>) {
    out.reserve(text.len() * 2);
    let mut buf = [0u16; 2];
    for c in text.chars() {
        for u in c.encode_utf16(&mut buf) {
            out.extend_from_slice(&if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{raw, Encoding};

    fn round_trip(e: Encoding, octets: &[u8]) -> String {
        let d = e.decode(octets);
        let mut back = Vec::new();
        e.encode(&d.text, &mut back).unwrap();
        assert_eq!(back, octets);
        assert_eq!(d.map.file_len(), octets.len());
        assert_eq!(d.map.text_len(), d.text.len());
        d.text
    }

    /// R-ENCODINGS-06: UTF-16LE `40 D8 21 DC` and UTF-16BE `D8 40 DC 21` are U+20021.
    #[test]
    fn r_encodings_06_surrogate_pairs() {
        assert_eq!(
            round_trip(Encoding::Utf16Le, b"\x40\xD8\x21\xDC"),
            "\u{20021}"
        );
        assert_eq!(
            round_trip(Encoding::Utf16Be, b"\xD8\x40\xDC\x21"),
            "\u{20021}"
        );
        let mut out = Vec::new();
        Encoding::Utf16Be.encode("\u{20021}", &mut out).unwrap();
        assert_eq!(out, b"\xD8\x40\xDC\x21");
    }

    #[test]
    fn milos_in_both_byte_orders() {
        assert_eq!(
            round_trip(Encoding::Utf16Le, b"M\0i\0l\0o\0\x61\x01"),
            "Milo\u{161}"
        );
        assert_eq!(
            round_trip(Encoding::Utf16Be, b"\0M\0i\0l\0o\x01\x61"),
            "Milo\u{161}"
        );
    }

    #[test]
    fn lone_surrogates_and_odd_octet_stay_raw() {
        // High surrogate then 'A'; lone low surrogate; odd trailing octet.
        let octets = b"\x00\xD8A\x00\x00\xDCB\x00\x7F";
        let text = round_trip(Encoding::Utf16Le, octets);
        let expected: String = [
            raw::to_char(0x00),
            raw::to_char(0xD8),
            'A',
            raw::to_char(0x00),
            raw::to_char(0xDC),
        ]
        .into_iter()
        .chain(['B', raw::to_char(0x7F)])
        .collect();
        assert_eq!(text, expected);
        // High surrogate at the very end.
        let text = round_trip(Encoding::Utf16Be, b"\0A\xD8\x00");
        assert_eq!(text.chars().filter(|c| raw::is_raw(*c)).count(), 2);
    }

    #[test]
    fn raw_range_characters_stay_raw() {
        // U+10FF41 is DBFF DF41.
        let text = round_trip(Encoding::Utf16Be, b"\xDB\xFF\xDF\x41");
        assert_eq!(raw::octets_of(&text), b"\xDB\xFF\xDF\x41");
        assert_eq!(text.chars().count(), 4);
    }

    #[test]
    fn source_map_counts_two_octets_per_bmp_character() {
        let d = Encoding::Utf16Le.decode(b"0\0 \0H\0\xE9\0x\0");
        let x = d.text.find('x').unwrap();
        assert_eq!(d.map.file_offset(x), 8);
        assert_eq!(d.map.text_offset(8), x);
    }
}
