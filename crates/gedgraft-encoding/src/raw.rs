//! Raw octets inside decoded text.
//!
//! rowan stores UTF-8 text only, so an octet that does not survive decode → encode unchanged is kept as one
//! *raw character*: a code point in the private-use range `U+10FF00..=U+10FFFF`, whose low eight bits are the
//! octet. Decoders never produce these code points for real input: a file that really contains one has its
//! octets kept raw instead, so every raw character in decoded text stands for exactly one original octet.

/// The first raw character: `U+10FF00` stands for octet `00`.
pub const RAW_BASE: u32 = 0x10_FF00;

/// The raw character that stands for `octet`.
///
/// ```
/// use gedgraft_encoding::raw;
/// assert_eq!(raw::to_char(0xE9) as u32, 0x10_FFE9);
/// assert_eq!(raw::to_octet(raw::to_char(0xE9)), Some(0xE9));
/// ```
pub fn to_char(octet: u8) -> char {
    char::from_u32(RAW_BASE | u32::from(octet)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The octet a raw character stands for, or `None` if `c` is not a raw character.
pub fn to_octet(c: char) -> Option<u8> {
    let v = c as u32;
    if v & !0xFF == RAW_BASE {
        Some((v & 0xFF) as u8)
    } else {
        None
    }
}

/// Whether `c` is a raw character.
pub fn is_raw(c: char) -> bool {
    to_octet(c).is_some()
}

/// The UTF-8 length of every raw character.
pub const RAW_UTF8_LEN: usize = 4;

/// Whether the UTF-8 text at `bytes[i..]` starts with a raw character.
///
/// Raw characters are `F4 8F BC 80` to `F4 8F BF BF` in UTF-8.
pub fn starts_with_raw(bytes: &[u8], i: usize) -> bool {
    bytes.len() >= i + 4
        && bytes[i] == 0xF4
        && bytes[i + 1] == 0x8F
        && (0xBC..=0xBF).contains(&bytes[i + 2])
}

/// Whether `text` contains any raw character.
pub fn contains_raw(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(0xF4, bytes).any(|i| starts_with_raw(bytes, i))
}

/// Appends the raw characters for `octets` to `text`.
pub fn push_octets(text: &mut String, octets: &[u8]) {
    text.extend(octets.iter().map(|&b| to_char(b)));
}

/// The octets of a text made only of raw characters; other characters are skipped.
pub fn octets_of(text: &str) -> Vec<u8> {
    text.chars().filter_map(to_octet).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_octet_has_its_own_raw_character() {
        for b in 0..=255u8 {
            let c = to_char(b);
            assert!(is_raw(c));
            assert_eq!(to_octet(c), Some(b));
            let mut s = String::new();
            s.push(c);
            assert_eq!(s.len(), RAW_UTF8_LEN);
            assert!(starts_with_raw(s.as_bytes(), 0));
        }
        assert!(!is_raw('a'));
        assert!(!is_raw('\u{10FEFF}'));
    }
}
