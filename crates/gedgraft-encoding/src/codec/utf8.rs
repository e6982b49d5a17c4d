//! UTF-8, with invalid sequences kept as raw octets.

use crate::raw;
use crate::source_map::SourceMapBuilder;

/// Decodes UTF-8, keeping every octet of an invalid sequence (and of a real character in the raw range) raw.
pub(crate) fn decode_into(bytes: &[u8], text: &mut String, map: &mut SourceMapBuilder) {
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                push_valid(valid, text, map);
                return;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                push_valid(std::str::from_utf8(valid).unwrap_or_default(), text, map);
                let bad = e.error_len().unwrap_or(after.len()).min(after.len());
                push_raw(&after[..bad], text, map);
                rest = &after[bad..];
            }
        }
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
