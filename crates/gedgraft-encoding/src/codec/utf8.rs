//! UTF-8, with invalid sequences kept as raw octets.

use crate::raw;
use crate::source_map::SourceMapBuilder;

/// Decodes UTF-8, keeping every octet of an invalid sequence (and of a real character in the raw range) raw.
///
/// An invalid sequence is what [`std::str::Utf8Chunk::invalid`] reports (at most three octets); CESU-8
/// surrogates (`ED A0`–`ED BF` …) are invalid UTF-8, so their octets stay raw too (R-ENCODINGS-04; detection
/// warns about them). Linear in the input, however many errors it holds.
pub(crate) fn decode_into(bytes: &[u8], text: &mut String, map: &mut SourceMapBuilder) {
    // Clean files are the common case, and whole-input validation is several times faster than chunking.
    if let Ok(valid) = std::str::from_utf8(bytes) {
        push_valid(valid, text, map);
        return;
    }
    for chunk in bytes.utf8_chunks() {
        push_valid(chunk.valid(), text, map);
        push_raw(chunk.invalid(), text, map);
    }
}

/// Appends valid UTF-8, except that characters in the raw range are kept as their raw octets.
fn push_valid(valid: &str, text: &mut String, map: &mut SourceMapBuilder) {
    let bytes = valid.as_bytes();
    let mut start = 0;
    for i in memchr::memchr_iter(0xF4, bytes) {
        if i >= start && raw::starts_with_raw(bytes, i) {
            text.push_str(&valid[start..i]);
            map.push(1, 1, i - start);
            push_raw(&bytes[i..i + 4], text, map);
            start = i + 4;
        }
    }
    text.push_str(&valid[start..]);
    map.push(1, 1, valid.len() - start);
}

/// Appends octets as raw characters.
pub(crate) fn push_raw(octets: &[u8], text: &mut String, map: &mut SourceMapBuilder) {
    raw::push_octets(text, octets);
    map.push(raw::RAW_UTF8_LEN, 1, octets.len());
}

/// Encodes text (with no raw characters) as UTF-8.
pub(crate) fn encode_str(text: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use crate::{raw, Encoding};

    /// The 2019 draft's examples: "Miloš" is `4D 69 6C 6F C5 A1`; "𠀡" is `F0 A0 80 A1`.
    #[test]
    fn spec_examples() {
        assert_eq!(
            Encoding::Utf8.decode(b"\x4D\x69\x6C\x6F\xC5\xA1").text,
            "Milo\u{161}"
        );
        assert_eq!(Encoding::Utf8.decode(b"\xF0\xA0\x80\xA1").text, "\u{20021}");
    }

    /// R-ENCODINGS-04: CESU-8 `ED A1 80 ED B0 A1` stays as six raw octets.
    #[test]
    fn r_encodings_04_cesu_8_stays_raw() {
        let d = Encoding::Utf8.decode(b"\xED\xA1\x80\xED\xB0\xA1");
        assert_eq!(d.text.chars().count(), 6);
        assert_eq!(raw::octets_of(&d.text), b"\xED\xA1\x80\xED\xB0\xA1");
    }

    #[test]
    fn many_errors_decode_in_linear_time() {
        let octets: Vec<u8> = (0..200_000)
            .map(|i| if i % 2 == 0 { b'a' } else { 0xE9 })
            .collect();
        let d = Encoding::Utf8.decode(&octets);
        assert_eq!(d.map.file_len(), octets.len());
        assert_eq!(d.text.len(), 100_000 * (1 + raw::RAW_UTF8_LEN));
    }
}
