//! Octet-exact character encodings for ELF and GEDCOM files.
//!
//! The syntax tree stores UTF-8 text, so every file is decoded first. Decoding here is *lossless*: octets that
//! would not come back unchanged are kept as raw characters ([`raw`]), and a [`SourceMap`] turns text offsets
//! back into file offsets. Encoding decoded text gives back the original octets, for every codec and every input:
//!
//! ```
//! use gedgraft_encoding::Encoding;
//! let octets = b"0 HEAD\n1 NOTE Jos\xE9\n";
//! let decoded = Encoding::Utf8.decode(octets);
//! let mut back = Vec::new();
//! Encoding::Utf8.encode(&decoded.text, &mut back).unwrap();
//! assert_eq!(back, octets);
//! ```

mod codec;
mod detect;
pub mod raw;
mod source_map;

pub use detect::{decode_document, detect, Bom, DetectOptions, Detection, EncodingNote};
pub use source_map::{SourceMap, SourceMapBuilder};

use std::fmt;

/// A character encoding gedgraft can read and write octet for octet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// UTF-8 (the ELF default).
    Utf8,
}

/// Text decoded from octets, with the map back to them.
#[derive(Debug, Clone, Default)]
pub struct Decoded {
    /// The decoded text; octets that do not round-trip appear as raw characters.
    pub text: String,
    /// Maps offsets in `text` to offsets in the original octets.
    pub map: SourceMap,
}

/// A character the target encoding cannot represent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unencodable {
    /// The character.
    pub character: char,
    /// Its byte offset in the text being encoded.
    pub offset: usize,
    /// The encoding that cannot represent it.
    pub encoding: Encoding,
}

impl fmt::Display for Unencodable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} cannot encode U+{:04X} at text offset {}",
            self.encoding.name(),
            u32::from(self.character),
            self.offset
        )
    }
}

impl std::error::Error for Unencodable {}

impl Encoding {
    /// The name gedgraft reports for this encoding (`UTF-8`, `UTF-16LE`, `ANSEL`, or a WHATWG code-page name).
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
        }
    }

    /// Decodes octets losslessly.
    pub fn decode(self, bytes: &[u8]) -> Decoded {
        let mut text = String::with_capacity(bytes.len());
        let mut map = SourceMap::builder();
        self.decode_into(bytes, &mut text, &mut map);
        Decoded { text, map: map.finish() }
    }

    /// Decodes octets losslessly, appending to `text` and `map`.
    pub fn decode_into(self, bytes: &[u8], text: &mut String, map: &mut SourceMapBuilder) {
        match self {
            Encoding::Utf8 => codec::utf8::decode_into(bytes, text, map),
        }
    }

    /// Encodes text, turning raw characters back into their octets.
    ///
    /// Text that came from [`Encoding::decode`] of the same encoding always encodes; other text fails at the
    /// first character the encoding cannot represent (the caller may then write a Unicode escape instead).
    pub fn encode(self, text: &str, out: &mut Vec<u8>) -> Result<(), Unencodable> {
        if !raw::contains_raw(text) {
            return self.encode_str(text, 0, out);
        }
        let mut start = 0;
        for (i, c) in text.char_indices() {
            if let Some(octet) = raw::to_octet(c) {
                self.encode_str(&text[start..i], start, out)?;
                out.push(octet);
                start = i + c.len_utf8();
            }
        }
        self.encode_str(&text[start..], start, out)
    }

    /// Whether the encoding can represent `c` (raw characters always can).
    pub fn can_encode(self, c: char) -> bool {
        let mut buf = [0u8; 4];
        let mut out = Vec::new();
        self.encode(c.encode_utf8(&mut buf), &mut out).is_ok()
    }

    fn encode_str(self, text: &str, _base: usize, out: &mut Vec<u8>) -> Result<(), Unencodable> {
        match self {
            Encoding::Utf8 => {
                codec::utf8::encode_str(text, out);
                Ok(())
            }
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_round_trips_through_raw_characters() {
        let octets: &[u8] = b"1 NAME Jos\xE9 \xED\xA0\x80\xF4\x8F\xBC\x80 ok";
        let d = Encoding::Utf8.decode(octets);
        assert!(d.text.starts_with("1 NAME Jos"));
        assert!(raw::contains_raw(&d.text));
        let mut back = Vec::new();
        Encoding::Utf8.encode(&d.text, &mut back).unwrap();
        assert_eq!(back, octets);
        assert_eq!(d.map.file_len(), octets.len());
        assert_eq!(d.map.text_len(), d.text.len());
        let ok = d.text.find(" ok").unwrap();
        assert_eq!(d.map.file_offset(ok), octets.len() - 3);
    }
}
