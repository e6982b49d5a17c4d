//! Choosing the encoding of a file (2019 draft § Detecting a character encoding, § Specified character encodings).

use crate::source_map::SourceMap;
use crate::{Decoded, Encoding};

/// What the caller allows or demands when the encoding is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DetectOptions {
    /// Use this encoding whatever the file says (`--encoding NAME`).
    pub force: Option<Encoding>,
}

/// A byte-order mark at the start of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bom {
    /// The encoding the mark belongs to; the mark's octets are written back in this encoding.
    pub encoding: Encoding,
    /// How many octets the mark takes.
    pub len: usize,
}

/// The outcome of encoding detection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    /// The detected encoding (byte-order mark or UTF-16 sniffing), if any.
    pub detected: Option<Encoding>,
    /// The byte-order mark, if the file starts with one.
    pub bom: Option<Bom>,
    /// The `HEAD.CHAR` payload as written, if the header scan found one.
    pub declared: Option<String>,
    /// The encoding used to decode the file.
    pub used: Encoding,
    /// Findings about the file's encoding, for the syntax layer to report as diagnostics.
    pub notes: Vec<EncodingNote>,
}

/// A finding about a file's encoding (a NUL octet, CESU-8, a `CHAR` the octets contradict, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodingNote {
    /// A stable kebab-case code, such as `nul-octet` or `declared-encoding-mismatch`.
    pub code: &'static str,
    /// Whether the finding is an error (the spec says stop) rather than a warning.
    pub is_error: bool,
    /// A sentence for the user, naming the likely encoding where there is one.
    pub message: String,
    /// Where in the original octets the finding is.
    pub file_offset: usize,
}

/// Chooses the encoding of `bytes`.
///
/// ```
/// use gedgraft_encoding::{detect, DetectOptions, Encoding};
/// let d = detect(b"\xEF\xBB\xBF0 HEAD\n1 CHAR UTF-8\n0 TRLR\n", &DetectOptions::default());
/// assert_eq!(d.used, Encoding::Utf8);
/// assert_eq!(d.bom.map(|b| b.len), Some(3));
/// assert_eq!(d.declared.as_deref(), Some("UTF-8"));
/// ```
pub fn detect(bytes: &[u8], options: &DetectOptions) -> Detection {
    let bom = bytes.starts_with(b"\xEF\xBB\xBF").then_some(Bom { encoding: Encoding::Utf8, len: 3 });
    let detected = bom.map(|b| b.encoding);
    let declared = scan_declared_char(&bytes[bom.map_or(0, |b| b.len)..]);
    let used = options.force.or(detected).unwrap_or(Encoding::Utf8);
    Detection { detected, bom, declared, used, notes: Vec::new() }
}

/// Decodes a whole file as `detection` says: the byte-order mark (if any) becomes U+FEFF, the rest is decoded
/// with the used encoding.
pub fn decode_document(bytes: &[u8], detection: &Detection) -> Decoded {
    let mut text = String::with_capacity(bytes.len() + 16);
    let mut map = SourceMap::builder();
    let mut rest = bytes;
    if let Some(bom) = detection.bom {
        if bytes.len() >= bom.len {
            text.push('\u{FEFF}');
            map.push('\u{FEFF}'.len_utf8(), bom.len, 1);
            rest = &bytes[bom.len..];
        }
    }
    detection.used.decode_into(rest, &mut text, &mut map);
    Decoded { text, map: map.finish() }
}

/// The header scan, reading octets as ISO-8859-1: the `1 CHAR` payload of the `HEAD` record, as written.
fn scan_declared_char(bytes: &[u8]) -> Option<String> {
    let mut lines = bytes
        .split(|&b| b == b'\n' || b == b'\r')
        .map(|l| l.iter().map(|&b| char::from(b)).collect::<String>())
        .filter(|l| !l.trim_matches([' ', '\t']).is_empty());
    let first = normalise(&lines.next()?);
    if first != "0 HEAD" {
        return None;
    }
    for line in lines {
        let norm = normalise(&line);
        if norm.starts_with("0 ") {
            return None;
        }
        if let Some(value) = norm.strip_prefix("1 CHAR ") {
            let _ = value;
            // Report the value as written: the raw line after the tag and its one separator.
            let trimmed = line.trim_start_matches([' ', '\t']);
            let after_level = trimmed.get(1..).unwrap_or("").trim_start_matches([' ', '\t']);
            let after_tag = after_level.get(4..).unwrap_or("");
            return Some(after_tag.get(1..).unwrap_or("").to_string());
        }
    }
    None
}

/// Whitespace-normalises a line and upper-cases ASCII letters (2019 § Specified character encodings).
fn normalise(line: &str) -> String {
    line.split([' ', '\t']).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ").to_ascii_uppercase()
}
