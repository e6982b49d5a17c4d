//! Octet-exact character encodings for ELF and GEDCOM files.
//!
//! The syntax tree stores UTF-8 text, so every file is decoded first. Decoding here is *lossless*: octets that
//! would not come back unchanged are kept as raw characters ([`raw`]), and a [`SourceMap`] turns text offsets
//! back into file offsets. Encoding decoded text gives back the original octets, for every codec and every input:
//!
//! ```
//! use gedgraft_encoding::Encoding;
//! let octets = b"0 HEAD\n1 NOTE Jos\xE9\n";
//! for encoding in Encoding::all() {
//!     let decoded = encoding.decode(octets);
//!     let mut back = Vec::new();
//!     encoding.encode(&decoded.text, &mut back).unwrap();
//!     assert_eq!(back, octets);
//! }
//! ```
//!
//! Every codec is also *bijective per token*: each decoded character stands for a fixed run of octets of its own,
//! so any piece of decoded text cut on character boundaries encodes to exactly the octets it came from. The
//! syntax layer relies on this when it re-encodes single tokens.
//!
//! Detection ([`detect`]) follows the 2019 draft (§ Detecting a character encoding, § Specified character
//! encodings); [`ansel`] holds the ANSEL table and the diacritic reordering of `ansel-to-unicode.md`.

pub mod ansel;
mod codec;
mod detect;
pub mod raw;
mod sniff;
mod source_map;

pub use detect::{
    declaration, declared_encoding, decode_document, detect, detect_and_decode, is_char_tag, Bom,
    Declaration, DetectOptions, Detection, EncodingNote, MAX_CESU_NOTES,
};
pub use source_map::{SourceMap, SourceMapBuilder};

/// Helpers the sibling crates share with this one.
///
/// **Not part of the API**: hidden from the documentation, and free to change in any release.
#[doc(hidden)]
pub mod internal {
    pub use crate::codec::utf16::units as utf16_units;
    pub use crate::detect::{decode_document_cow, detect_trusting_utf8};
}

use std::fmt;

/// A character encoding gedgraft can read and write octet for octet.
///
/// Every codec is lossless (see the crate documentation). [`Encoding::name`] gives the name gedgraft reports,
/// [`Encoding::from_name`] reads a name or a common alias back, and [`Encoding::all`] lists every encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Encoding {
    /// UTF-8 (the ELF default, R-SPECIFIED-ENC-15). Invalid sequences, CESU-8 surrogates and real characters in
    /// the raw range stay raw.
    Utf8,
    /// UTF-16, little endian (R-ENCODINGS-03, R-ENCODINGS-06). Lone surrogates and an odd trailing octet stay raw.
    Utf16Le,
    /// UTF-16, big endian (R-ENCODINGS-03, R-ENCODINGS-06). Lone surrogates and an odd trailing octet stay raw.
    Utf16Be,
    /// ASCII as the 2019 draft defines it: the octets `01`–`7F` only (R-ENCODINGS-07). The octet `00` (U+0000
    /// is not a character) and every octet from `80` up stay raw.
    Ascii,
    /// ANSEL in GEDCOM's extended form (`ansel-to-unicode.md`), decoded one octet at a time and kept in ANSEL
    /// octet order: a combining diacritic comes *before* its base letter, as in the octets. See [`ansel`] for
    /// the conversion to Unicode order and for which octets stay raw.
    Ansel,
    /// Windows code page 1250 (Central European).
    Windows1250,
    /// Windows code page 1251 (Cyrillic).
    Windows1251,
    /// Windows code page 1252 (Western European; also what `LATIN1` and `ISO8859-1` mean, as in WHATWG).
    Windows1252,
    /// Windows code page 1253 (Greek).
    Windows1253,
    /// Windows code page 1254 (Turkish).
    Windows1254,
    /// Windows code page 1255 (Hebrew).
    Windows1255,
    /// Windows code page 1256 (Arabic).
    Windows1256,
    /// Windows code page 1257 (Baltic).
    Windows1257,
    /// Windows code page 1258 (Vietnamese).
    Windows1258,
    /// Windows code page 874 (Thai).
    Windows874,
    /// ISO-8859-2 (Latin-2, Central European).
    Latin2,
    /// ISO-8859-15 (Latin-9, Western European with the euro sign).
    Latin9,
    /// KOI8-R (Russian).
    Koi8R,
    /// Mac OS Roman (`macintosh`).
    Macintosh,
    /// IBM PC code page 437 (the original DOS code page; GEDCOM's `IBMPC`).
    Ibm437,
    /// IBM PC code page 850 (DOS Western European).
    Ibm850,
    /// IBM PC code page 866 (DOS Cyrillic).
    Ibm866,
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

/// Every encoding, in the order of [`Encoding::all`].
const ALL: [Encoding; 22] = [
    Encoding::Utf8,
    Encoding::Utf16Le,
    Encoding::Utf16Be,
    Encoding::Ascii,
    Encoding::Ansel,
    Encoding::Windows1250,
    Encoding::Windows1251,
    Encoding::Windows1252,
    Encoding::Windows1253,
    Encoding::Windows1254,
    Encoding::Windows1255,
    Encoding::Windows1256,
    Encoding::Windows1257,
    Encoding::Windows1258,
    Encoding::Windows874,
    Encoding::Latin2,
    Encoding::Latin9,
    Encoding::Koi8R,
    Encoding::Macintosh,
    Encoding::Ibm437,
    Encoding::Ibm850,
    Encoding::Ibm866,
];

/// Names and aliases accepted by [`Encoding::from_name`], compared after [`name_key`].
const ALIASES: &[(&str, Encoding)] = &[
    ("utf8", Encoding::Utf8),
    ("unicode11utf8", Encoding::Utf8),
    ("utf16le", Encoding::Utf16Le),
    ("utf16", Encoding::Utf16Le),
    ("unicode", Encoding::Utf16Le),
    ("ucs2", Encoding::Utf16Le),
    ("utf16be", Encoding::Utf16Be),
    ("unicodefffe", Encoding::Utf16Be),
    ("ascii", Encoding::Ascii),
    ("usascii", Encoding::Ascii),
    ("ansix3.4", Encoding::Ascii),
    ("ansel", Encoding::Ansel),
    ("z39.47", Encoding::Ansel),
    ("ansiz39.47", Encoding::Ansel),
    ("latin1", Encoding::Windows1252),
    ("iso88591", Encoding::Windows1252),
    ("l1", Encoding::Windows1252),
    ("cp819", Encoding::Windows1252),
    ("ansi", Encoding::Windows1252),
    ("ibmwindows", Encoding::Windows1252),
    ("windows", Encoding::Windows1252),
    ("latin2", Encoding::Latin2),
    ("iso88592", Encoding::Latin2),
    ("l2", Encoding::Latin2),
    ("latin9", Encoding::Latin9),
    ("iso885915", Encoding::Latin9),
    ("l9", Encoding::Latin9),
    ("koi8r", Encoding::Koi8R),
    ("koi8", Encoding::Koi8R),
    ("macintosh", Encoding::Macintosh),
    ("mac", Encoding::Macintosh),
    ("macroman", Encoding::Macintosh),
    ("xmacroman", Encoding::Macintosh),
    ("csmacintosh", Encoding::Macintosh),
    ("ibm437", Encoding::Ibm437),
    ("cp437", Encoding::Ibm437),
    ("437", Encoding::Ibm437),
    ("ibmpc", Encoding::Ibm437),
    ("ibm850", Encoding::Ibm850),
    ("cp850", Encoding::Ibm850),
    ("850", Encoding::Ibm850),
    ("ibm866", Encoding::Ibm866),
    ("cp866", Encoding::Ibm866),
    ("866", Encoding::Ibm866),
];

/// Lower-cases `name` and drops spaces, hyphens and underscores, so that `UTF-8`, `utf8` and `Utf_8` agree.
fn name_key(name: &str) -> String {
    name.trim()
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_' | '\t'))
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

impl Encoding {
    /// The name gedgraft reports for this encoding: `UTF-8`, `UTF-16LE`, `UTF-16BE`, `ASCII`, `ANSEL`, or the
    /// WHATWG name of a code page (`windows-1252`, `macintosh`, `IBM437`, …).
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::Utf16Le => "UTF-16LE",
            Encoding::Utf16Be => "UTF-16BE",
            Encoding::Ascii => "ASCII",
            Encoding::Ansel => "ANSEL",
            Encoding::Windows1250 => "windows-1250",
            Encoding::Windows1251 => "windows-1251",
            Encoding::Windows1252 => "windows-1252",
            Encoding::Windows1253 => "windows-1253",
            Encoding::Windows1254 => "windows-1254",
            Encoding::Windows1255 => "windows-1255",
            Encoding::Windows1256 => "windows-1256",
            Encoding::Windows1257 => "windows-1257",
            Encoding::Windows1258 => "windows-1258",
            Encoding::Windows874 => "windows-874",
            Encoding::Latin2 => "ISO-8859-2",
            Encoding::Latin9 => "ISO-8859-15",
            Encoding::Koi8R => "KOI8-R",
            Encoding::Macintosh => "macintosh",
            Encoding::Ibm437 => "IBM437",
            Encoding::Ibm850 => "IBM850",
            Encoding::Ibm866 => "IBM866",
        }
    }

    /// Every encoding gedgraft supports, UTF-8 first.
    pub fn all() -> &'static [Encoding] {
        &ALL
    }

    /// The encoding with this name or alias, compared case-insensitively and ignoring spaces, hyphens and
    /// underscores (for `--encoding NAME`).
    ///
    /// Accepts every [`Encoding::name`] and common aliases: `utf8`, `utf-16` and `unicode` (UTF-16LE, as on
    /// Windows), `us-ascii`, `latin1` / `iso-8859-1` / `ansi` / `cp1252` (windows-1252, as WHATWG does),
    /// `cpNNNN` / `winNNNN` for the Windows code pages, `mac` / `macroman`, `cp437` / `ibmpc`, `cp850`, ….
    ///
    /// ```
    /// use gedgraft_encoding::Encoding;
    /// assert_eq!(Encoding::from_name("utf8"), Some(Encoding::Utf8));
    /// assert_eq!(Encoding::from_name("Latin1"), Some(Encoding::Windows1252));
    /// assert_eq!(Encoding::from_name("CP1250"), Some(Encoding::Windows1250));
    /// assert_eq!(Encoding::from_name("klingon"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Encoding> {
        let key = name_key(name);
        if key.is_empty() {
            return None;
        }
        if let Some(e) = Encoding::all().iter().find(|e| name_key(e.name()) == key) {
            return Some(*e);
        }
        if let Some((_, e)) = ALIASES.iter().find(|(alias, _)| *alias == key) {
            return Some(*e);
        }
        // cp1250, win1250, xcp1250, ms1250 and friends.
        let digits = key.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let prefix = &key[..key.len() - digits.len()];
        if matches!(prefix, "cp" | "win" | "xcp" | "ms" | "windows") {
            return Encoding::windows_code_page(digits);
        }
        None
    }

    /// The Windows code page with this number (`"1250"` … `"1258"`, `"874"`).
    pub(crate) fn windows_code_page(number: &str) -> Option<Encoding> {
        Some(match number {
            "1250" => Encoding::Windows1250,
            "1251" => Encoding::Windows1251,
            "1252" => Encoding::Windows1252,
            "1253" => Encoding::Windows1253,
            "1254" => Encoding::Windows1254,
            "1255" => Encoding::Windows1255,
            "1256" => Encoding::Windows1256,
            "1257" => Encoding::Windows1257,
            "1258" => Encoding::Windows1258,
            "874" => Encoding::Windows874,
            "437" => Encoding::Ibm437,
            "850" => Encoding::Ibm850,
            "866" => Encoding::Ibm866,
            _ => return None,
        })
    }

    /// Whether this is UTF-16 of either byte order.
    pub fn is_utf16(self) -> bool {
        matches!(self, Encoding::Utf16Le | Encoding::Utf16Be)
    }

    /// Whether the encoding writes every ASCII character U+0001–U+007F as the one octet of the same value
    /// (everything but UTF-16), so that a `CHAR` line can be read without knowing the encoding.
    pub fn is_ascii_compatible(self) -> bool {
        !self.is_utf16()
    }

    /// Decodes octets losslessly.
    pub fn decode(self, bytes: &[u8]) -> Decoded {
        let mut text = String::with_capacity(bytes.len() + bytes.len() / 2);
        let mut map = SourceMap::builder();
        self.decode_into(bytes, &mut text, &mut map);
        Decoded {
            text,
            map: map.finish(),
        }
    }

    /// Decodes octets losslessly, appending to `text` and `map`.
    pub fn decode_into(self, bytes: &[u8], text: &mut String, map: &mut SourceMapBuilder) {
        match self {
            Encoding::Utf8 => codec::utf8::decode_into(bytes, text, map),
            Encoding::Utf16Le => codec::utf16::decode_into(bytes, false, text, map),
            Encoding::Utf16Be => codec::utf16::decode_into(bytes, true, text, map),
            _ => codec::single_byte::table(self).decode_into(bytes, text, map),
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
        if raw::is_raw(c) {
            return true;
        }
        match self {
            Encoding::Utf8 | Encoding::Utf16Le | Encoding::Utf16Be => true,
            _ => codec::single_byte::table(self).encode_char(c).is_some(),
        }
    }

    /// Encodes text that holds no raw characters; `base` is the offset of `text` in the whole text, for errors.
    /// Encodes text known to hold no raw characters (any in the raw range are encoded as ordinary characters).
    ///
    /// The syntax tree keeps raw characters in `RAW` tokens only, so writing every other token through this
    /// skips the scan for raw characters that [`Encoding::encode`] makes.
    ///
    /// ```
    /// use gedgraft_encoding::Encoding;
    /// let mut out = Vec::new();
    /// Encoding::Utf16Le.encode_plain("0 HEAD", &mut out).unwrap();
    /// assert_eq!(out, b"0\0 \0H\0E\0A\0D\0");
    /// ```
    pub fn encode_plain(self, text: &str, out: &mut Vec<u8>) -> Result<(), Unencodable> {
        self.encode_str(text, 0, out)
    }

    fn encode_str(self, text: &str, base: usize, out: &mut Vec<u8>) -> Result<(), Unencodable> {
        match self {
            Encoding::Utf8 => {
                codec::utf8::encode_str(text, out);
                Ok(())
            }
            Encoding::Utf16Le => {
                codec::utf16::encode_str(text, false, out);
                Ok(())
            }
            Encoding::Utf16Be => {
                codec::utf16::encode_str(text, true, out);
                Ok(())
            }
            _ => codec::single_byte::table(self)
                .encode_str(text, base, out)
                .map_err(|(character, offset)| Unencodable {
                    character,
                    offset,
                    encoding: self,
                }),
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An encoding name that [`Encoding::from_name`] does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownEncoding(pub String);

impl fmt::Display for UnknownEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = Encoding::all().iter().map(|e| e.name()).collect();
        write!(
            f,
            "unknown encoding `{}`; known encodings: {}",
            self.0,
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownEncoding {}

impl std::str::FromStr for Encoding {
    type Err = UnknownEncoding;

    /// [`Encoding::from_name`], for `parse`: the pair of [`Display`](fmt::Display).
    ///
    /// ```
    /// use gedgraft_encoding::Encoding;
    /// let e: Encoding = "windows-1252".parse().unwrap();
    /// assert_eq!(e.to_string().parse::<Encoding>(), Ok(e));
    /// assert!("klingon".parse::<Encoding>().unwrap_err().to_string().contains("known encodings: UTF-8"));
    /// ```
    fn from_str(s: &str) -> Result<Encoding, UnknownEncoding> {
        Encoding::from_name(s).ok_or_else(|| UnknownEncoding(s.to_string()))
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

    #[test]
    fn all_lists_every_encoding_once() {
        let all = Encoding::all();
        for (_, e) in ALIASES {
            assert!(all.contains(e));
        }
        for (i, a) in all.iter().enumerate() {
            assert!(!all[..i].contains(a), "{a} listed twice");
            assert_eq!(Encoding::from_name(a.name()), Some(*a));
            assert_eq!(
                Encoding::from_name(&a.name().to_ascii_lowercase()),
                Some(*a)
            );
        }
    }

    #[test]
    fn names_are_the_reported_ones() {
        let names: Vec<&str> = Encoding::all().iter().map(|e| e.name()).collect();
        for expected in [
            "UTF-8",
            "UTF-16LE",
            "UTF-16BE",
            "ASCII",
            "ANSEL",
            "windows-1250",
            "windows-1251",
            "windows-1252",
            "windows-1253",
            "windows-1254",
            "windows-1255",
            "windows-1256",
            "windows-1257",
            "windows-1258",
            "IBM437",
            "macintosh",
            "IBM850",
        ] {
            assert!(names.contains(&expected), "{expected} missing");
        }
    }

    #[test]
    fn aliases() {
        for (name, e) in [
            ("utf8", Encoding::Utf8),
            ("UTF_8", Encoding::Utf8),
            ("utf-16le", Encoding::Utf16Le),
            ("UTF-16", Encoding::Utf16Le),
            ("utf16be", Encoding::Utf16Be),
            ("us-ascii", Encoding::Ascii),
            ("ansel", Encoding::Ansel),
            ("latin1", Encoding::Windows1252),
            ("ISO-8859-1", Encoding::Windows1252),
            ("iso8859-1", Encoding::Windows1252),
            ("cp1252", Encoding::Windows1252),
            ("ansi", Encoding::Windows1252),
            ("IBM WINDOWS", Encoding::Windows1252),
            ("win1250", Encoding::Windows1250),
            ("cp1258", Encoding::Windows1258),
            ("MACINTOSH", Encoding::Macintosh),
            ("macroman", Encoding::Macintosh),
            ("IBMPC", Encoding::Ibm437),
            ("cp437", Encoding::Ibm437),
            ("cp850", Encoding::Ibm850),
            ("latin-2", Encoding::Latin2),
            ("koi8-r", Encoding::Koi8R),
        ] {
            assert_eq!(Encoding::from_name(name), Some(e), "{name}");
        }
        for bad in ["", "  ", "utf", "cp9999", "windows-1259", "ebcdic"] {
            assert_eq!(Encoding::from_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn unencodable_reports_offset_in_whole_text() {
        let text = format!("ab{}c\u{263A}", raw::to_char(0x99));
        let mut out = Vec::new();
        let err = Encoding::Windows1252.encode(&text, &mut out).unwrap_err();
        assert_eq!(err.character, '\u{263A}');
        assert_eq!(err.offset, 2 + raw::RAW_UTF8_LEN + 1);
        assert_eq!(err.encoding, Encoding::Windows1252);
        assert!(!Encoding::Ascii.can_encode('\0'));
        assert!(Encoding::Ascii.can_encode('\u{1}'));
        assert!(Encoding::Ascii.can_encode(raw::to_char(0)));
        assert!(Encoding::Utf16Be.can_encode('\u{20021}'));
        assert!(Encoding::Windows1252.can_encode('€'));
        assert!(!Encoding::Windows1252.can_encode('\u{263A}'));
    }
}

/// The README's examples, compiled and run as doctests so they cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
