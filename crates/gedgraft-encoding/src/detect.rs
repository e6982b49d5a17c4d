//! Choosing the encoding of a file (2019 draft § Detecting a character encoding, § Specified character encodings).
//!
//! The steps, in order:
//!
//! 1. **Detected encoding** (R-DETECTED-ENC-01…07): a UTF-8 or UTF-16 byte-order mark, or else BOM-less UTF-16
//!    sniffed from the first two octets (`xx 00` → UTF-16LE, `00 xx` → UTF-16BE, `xx` in `01`–`7F`).
//! 2. **Header scan** (R-SPECIFIED-ENC-01…09): the start of the file is decoded provisionally with the detected
//!    encoding, or octet by octet as ISO-8859-1 if there is none; line strings are whitespace-normalised and
//!    upper-cased; the first non-blank one must be `0 HEAD`; the scan stops at the next line starting `0 `; it
//!    reads the first `1 CHAR` line and a `2 VERS` line right after it.
//! 3. **Specified encoding** (R-SPECIFIED-ENC-10…14), from the `CHAR` value:
//!    * `ASCII`, `ANSEL`, `UTF-8` → that encoding (R-SPECIFIED-ENC-10);
//!    * `UNICODE` → the detected UTF-16 (R-SPECIFIED-ENC-12). *Decision* (R-SPECIFIED-ENC-13): with no UTF-16
//!      detected, `UNICODE` means UTF-8. The scan could read the `CHAR` line octet by octet, so the file is not
//!      UTF-16; files that say `UNICODE` in an 8-bit stream are UTF-8 in practice (gedcom7code
//!      `char_utf8-2.ged`). If the octets are not valid UTF-8 a `declared-encoding-mismatch` note says so.
//!    * `ANSI` → the Windows code page named by the `VERS` line (`1250`…`1258`, `CP1250`, `windows-1250`, …),
//!      windows-1252 without one (R-SPECIFIED-ENC-13, the draft's own example);
//!    * any other name [`Encoding::from_name`] knows, including the real-world values `UTF8`, `IBMPC` (IBM437),
//!      `IBM WINDOWS` (windows-1252), `MACINTOSH`, and `LATIN1` / `ISO8859-1` / `ISO-8859-1`, which mean
//!      windows-1252 as in WHATWG, since files labelled Latin-1 use its `80`–`9F` characters
//!      (R-SPECIFIED-ENC-13);
//!    * anything else: no specified encoding and an `unknown-declared-encoding` warning (R-SPECIFIED-ENC-14).
//! 4. **Used encoding** (R-SPECIFIED-ENC-15): specified, else detected, else [`DetectOptions::default_encoding`]
//!    (UTF-8 unless the caller asks for GEDCOM 5.5.1's ANSEL, R-PARSING-LINESTRS-02); [`DetectOptions::force`]
//!    wins over everything. *Decision*: when UTF-16 is detected and `CHAR` names something else (gedcom4j
//!    `utf16le.ged` says `ANSEL`), UTF-16 is used and a `declared-encoding-mismatch` note explains why: the
//!    `CHAR` line was itself read as UTF-16, and decoding UTF-16 octets as an 8-bit encoding would make even
//!    `0 HEAD` unreadable. Otherwise the declared encoding is used even where the octets disagree; the notes
//!    below only tell the user.
//!
//! Notes ([`EncodingNote`]) report a NUL octet in the scan (R-SPECIFIED-ENC-03, an error; decoding still goes
//! on), an unknown `CHAR` value, octets that contradict the used encoding (naming the likely one), and CESU-8
//! under UTF-8 (R-ENCODINGS-04). Their offsets are in the original octets.

use std::ops::Range;

use crate::sniff::{before_junk, Stats};
use crate::source_map::SourceMap;
use crate::{Decoded, Encoding};

/// What the caller allows or demands when the encoding is chosen. `Default` gives the 2019 rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DetectOptions {
    /// Use this encoding whatever the file says (`--encoding NAME`). A byte-order mark is still recognised and
    /// kept as such.
    pub force: Option<Encoding>,
    /// The encoding to use when there is neither a specified nor a detected encoding. `None` means UTF-8, the
    /// 2019 rule (R-SPECIFIED-ENC-15, R-PARSING-LINESTRS-02); `Some(Encoding::Ansel)` gives GEDCOM 5.5.1's
    /// default.
    pub default_encoding: Option<Encoding>,
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
#[non_exhaustive]
pub struct Detection {
    /// The detected encoding (byte-order mark or UTF-16 sniffing), if any.
    pub detected: Option<Encoding>,
    /// The byte-order mark, if the file starts with one.
    pub bom: Option<Bom>,
    /// The `HEAD.CHAR` payload as written (case and inner spacing kept, surrounding spaces and tabs trimmed),
    /// if the header scan found one.
    pub declared: Option<String>,
    /// The encoding used to decode the file.
    pub used: Encoding,
    /// Findings about the file's encoding, for the syntax layer to report as diagnostics.
    pub notes: Vec<EncodingNote>,
}

impl Detection {
    /// The note that puts the file's reading in doubt, if any: the octets contradict the encoding they were
    /// decoded with (a [`EncodingNote::DECLARED_ENCODING_MISMATCH`] or [`EncodingNote::ENCODING_MISMATCH`], the
    /// likely encoding named in its message). A caller that forced the encoding ([`DetectOptions::force`]) said
    /// which reading is right, and detection then makes no such note.
    ///
    /// Whole-file rewrites (a transcode) refuse a file in doubt: the text they would write is the misread one.
    ///
    /// ```
    /// use gedgraft_encoding::{detect, DetectOptions, Encoding};
    /// let bytes = b"0 HEAD\n1 CHAR ANSI\n0 @I1@ INDI\n1 NAME Mar\xC3\xADa\n0 TRLR\n";
    /// let note = detect(bytes, &DetectOptions::default()).doubt().cloned().unwrap();
    /// assert!(note.message.contains("look like UTF-8"));
    /// let forced = DetectOptions { force: Some(Encoding::Utf8), ..DetectOptions::default() };
    /// assert!(detect(bytes, &forced).doubt().is_none());
    /// ```
    pub fn doubt(&self) -> Option<&EncodingNote> {
        self.notes.iter().find(|n| {
            n.code == EncodingNote::DECLARED_ENCODING_MISMATCH
                || n.code == EncodingNote::ENCODING_MISMATCH
        })
    }
}

/// How a file declares an encoding in its header: the `HEAD.CHAR` value and the `VERS` line under it that
/// genealogy programs read (see [`declaration`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declaration {
    /// The `1 CHAR` payload.
    pub char: &'static str,
    /// The `2 VERS` payload right after it, if the value needs one (the `ANSI` code pages).
    pub vers: Option<&'static str>,
}

/// The `HEAD.CHAR` value (and `VERS`) that declares `encoding`, as genealogy programs write and read it, and as
/// detection reads it back (R-SPECIFIED-ENC-10…13): `UTF-8`, `UNICODE` for UTF-16, `ASCII`, `ANSEL`, `ANSI` for
/// windows-1252, `ANSI` with `VERS 1250` (…) for the other Windows code pages, `IBMPC` for IBM437, `MACINTOSH`,
/// and the encoding's own name for the rest (`ISO-8859-2`, `KOI8-R`, `IBM850`, …).
///
/// ```
/// use gedgraft_encoding::{declaration, Encoding};
/// assert_eq!(declaration(Encoding::Windows1252).char, "ANSI");
/// assert_eq!(declaration(Encoding::Windows1250).vers, Some("1250"));
/// assert_eq!(declaration(Encoding::Ibm437).char, "IBMPC");
/// ```
pub fn declaration(encoding: Encoding) -> Declaration {
    let plain = |char| Declaration { char, vers: None };
    let ansi = |vers| Declaration {
        char: "ANSI",
        vers: Some(vers),
    };
    match encoding {
        Encoding::Utf8 => plain("UTF-8"),
        Encoding::Utf16Le | Encoding::Utf16Be => plain("UNICODE"),
        Encoding::Ascii => plain("ASCII"),
        Encoding::Ansel => plain("ANSEL"),
        Encoding::Windows1252 => plain("ANSI"),
        Encoding::Windows1250 => ansi("1250"),
        Encoding::Windows1251 => ansi("1251"),
        Encoding::Windows1253 => ansi("1253"),
        Encoding::Windows1254 => ansi("1254"),
        Encoding::Windows1255 => ansi("1255"),
        Encoding::Windows1256 => ansi("1256"),
        Encoding::Windows1257 => ansi("1257"),
        Encoding::Windows1258 => ansi("1258"),
        Encoding::Windows874 => ansi("874"),
        Encoding::Ibm437 => plain("IBMPC"),
        Encoding::Macintosh => plain("MACINTOSH"),
        other => plain(other.name()),
    }
}

/// The encoding a `HEAD.CHAR` value (and the `VERS` line right after it) declares, read as detection reads it
/// (normalised, upper-cased; R-SPECIFIED-ENC-10…14); `utf16` is the UTF-16 detected from the first octets, if
/// any. `None` for a value that names no known encoding.
///
/// ```
/// use gedgraft_encoding::{declared_encoding, Encoding};
/// assert_eq!(declared_encoding("ansi", Some("1250"), None), Some(Encoding::Windows1250));
/// assert_eq!(declared_encoding("IBM  WINDOWS", None, None), Some(Encoding::Windows1252));
/// assert_eq!(declared_encoding("UNICODE", None, Some(Encoding::Utf16Be)), Some(Encoding::Utf16Be));
/// ```
pub fn declared_encoding(
    char: &str,
    vers: Option<&str>,
    utf16: Option<Encoding>,
) -> Option<Encoding> {
    let vers = vers.map(normalise);
    specified_encoding(&normalise(char), vers.as_deref(), utf16)
}

/// A finding about a file's encoding (a NUL octet, CESU-8, a `CHAR` the octets contradict, …).
///
/// The codes are the associated constants ([`EncodingNote::NUL_OCTET`], …).
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

impl EncodingNote {
    /// Error: octet `00` met while scanning a file with no detected encoding (R-SPECIFIED-ENC-03). The spec says
    /// stop; gedgraft still decodes the whole file so that it can be kept and shown.
    pub const NUL_OCTET: &'static str = "nul-octet";
    /// Warning: the `CHAR` value names no encoding gedgraft knows (R-SPECIFIED-ENC-14, -16); the detected or
    /// default encoding is used instead.
    pub const UNKNOWN_DECLARED_ENCODING: &'static str = "unknown-declared-encoding";
    /// Warning: the octets contradict the encoding `CHAR` declares (invalid UTF-8, high octets under ASCII,
    /// UTF-8 or code-page text under ANSEL, UTF-8 under a code page, or an 8-bit `CHAR` in a UTF-16 file). The
    /// message names the likely encoding.
    pub const DECLARED_ENCODING_MISMATCH: &'static str = "declared-encoding-mismatch";
    /// Warning: as [`EncodingNote::DECLARED_ENCODING_MISMATCH`], for a file with no usable `CHAR` line, decoded
    /// with its byte-order mark's encoding or the default.
    pub const ENCODING_MISMATCH: &'static str = "encoding-mismatch";
    /// Warning: a CESU-8 surrogate pair (`ED A0`–`AF xx ED B0`–`BF xx`) in a file decoded as UTF-8
    /// (R-ENCODINGS-04). Its six octets stay raw in the text. After [`MAX_CESU_NOTES`] of them one more note
    /// counts the rest.
    pub const CESU_8: &'static str = "cesu-8";
    /// Every code above, for tests and documentation.
    pub const ALL: &'static [&'static str] = &[
        EncodingNote::NUL_OCTET,
        EncodingNote::UNKNOWN_DECLARED_ENCODING,
        EncodingNote::DECLARED_ENCODING_MISMATCH,
        EncodingNote::ENCODING_MISMATCH,
        EncodingNote::CESU_8,
    ];

    fn warning(code: &'static str, file_offset: usize, message: String) -> EncodingNote {
        EncodingNote {
            code,
            is_error: false,
            message,
            file_offset,
        }
    }
}

/// How many `cesu-8` notes [`detect`] gives one by one before summing up the rest in one note.
pub const MAX_CESU_NOTES: usize = 100;

/// Chooses the encoding of `bytes` (see the module documentation for the rules and decisions).
///
/// ```
/// use gedgraft_encoding::{detect, DetectOptions, Encoding};
/// let d = detect(b"\xEF\xBB\xBF0 HEAD\n1 CHAR UTF-8\n0 TRLR\n", &DetectOptions::default());
/// assert_eq!(d.used, Encoding::Utf8);
/// assert_eq!(d.bom.map(|b| b.len), Some(3));
/// assert_eq!(d.declared.as_deref(), Some("UTF-8"));
///
/// let d = detect(b"0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n0 TRLR\n", &DetectOptions::default());
/// assert_eq!(d.used, Encoding::Windows1250);
/// ```
pub fn detect(bytes: &[u8], options: &DetectOptions) -> Detection {
    detect_inner(bytes, options, true).0
}

/// Detects the encoding and decodes the file in one go: [`detect`] then [`decode_document`], except that
/// clean UTF-8 is validated once, not twice (validation is a pass over the whole file), and the text borrows
/// `bytes` when they already are it (UTF-8 with no byte-order mark, valid, free of raw-range characters).
///
/// ```
/// use gedgraft_encoding::{detect_and_decode, DetectOptions, Encoding};
/// let (detection, text, map) = detect_and_decode(b"0 HEAD\n0 TRLR\n", &DetectOptions::default());
/// assert_eq!(detection.used, Encoding::Utf8);
/// assert!(matches!(text, std::borrow::Cow::Borrowed("0 HEAD\n0 TRLR\n")));
/// assert_eq!(map.file_len(), 14);
/// ```
pub fn detect_and_decode<'a>(
    bytes: &'a [u8],
    options: &DetectOptions,
) -> (Detection, std::borrow::Cow<'a, str>, SourceMap) {
    let (detection, clean_body) = detect_inner(bytes, options, true);
    match clean_body {
        Some(text) if detection.bom.is_none() && !crate::raw::contains_raw(text) => {
            let map = SourceMap::identity(text.len());
            (detection, std::borrow::Cow::Borrowed(text), map)
        }
        _ => {
            let decoded = decode_document(bytes, &detection);
            (
                detection,
                std::borrow::Cow::Owned(decoded.text),
                decoded.map,
            )
        }
    }
}

/// [`detect`] for a caller that validates the file itself, in pieces on several threads say: the body is taken to
/// be valid UTF-8, so the statistics behind the mismatch and CESU-8 notes (which only invalid UTF-8 can raise)
/// are skipped when the file is read as UTF-8. A caller that then finds invalid UTF-8 must call [`detect`].
///
/// ```
/// use gedgraft_encoding::{detect, internal::detect_trusting_utf8, DetectOptions};
/// let bytes = b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n";
/// let options = DetectOptions::default();
/// assert_eq!(detect_trusting_utf8(bytes, &options), detect(bytes, &options));
/// ```
pub fn detect_trusting_utf8(bytes: &[u8], options: &DetectOptions) -> Detection {
    detect_inner(bytes, options, false).0
}

/// Detection; `validate` says whether a body read as UTF-8 is checked, in which case the body comes back as text
/// when it is valid UTF-8 (else it is trusted to be valid, and no text comes back).
fn detect_inner<'a>(
    bytes: &'a [u8],
    options: &DetectOptions,
    validate: bool,
) -> (Detection, Option<&'a str>) {
    let (bom, detected) = detect_initial(bytes);
    let start = bom.map_or(0, |b| b.len);
    let body = bytes.get(start..).unwrap_or_default();
    let scan = scan_header(body, detected);
    let mut notes = Vec::new();

    if detected.is_none() {
        if let Some(at) = scan.nul {
            notes.push(EncodingNote {
                code: EncodingNote::NUL_OCTET,
                is_error: true,
                message: "octet 00 (NUL) in the header of a file with no detected encoding: it is not ASCII, \
                          ANSEL or UTF-8 text"
                    .to_string(),
                file_offset: start + at,
            });
        }
    }

    let char_line = scan.char_line.clone().unwrap_or_default();
    let char_offset = start + scan.char_offset;
    let specified = match &scan.char_value {
        Some(value) => {
            let found = specified_encoding(value, scan.vers.as_deref(), detected);
            if found.is_none() {
                let fallback = options
                    .force
                    .or(detected)
                    .or(options.default_encoding)
                    .unwrap_or(Encoding::Utf8);
                notes.push(EncodingNote::warning(
                    EncodingNote::UNKNOWN_DECLARED_ENCODING,
                    char_offset,
                    format!(
                        "`{char_line}` names no known character encoding; decoding as {fallback}"
                    ),
                ));
            }
            found
        }
        None => None,
    };

    let mut chosen = specified
        .or(detected)
        .or(options.default_encoding)
        .unwrap_or(Encoding::Utf8);
    if let (Some(d), Some(s)) = (detected, specified) {
        if d.is_utf16() && s != d && options.force.is_none() {
            chosen = d;
            notes.push(EncodingNote::warning(
                EncodingNote::DECLARED_ENCODING_MISMATCH,
                char_offset,
                format!(
                    "`{char_line}` names {s}, but the file is {d} (its first octets say so and the \
                     CHAR line itself is written in {d}); decoding as {d}"
                ),
            ));
        }
    }
    let used = options.force.unwrap_or(chosen);

    // Valid UTF-8 read as UTF-8 can have neither a mismatch nor CESU-8 (which is invalid UTF-8): skip the
    // statistics, which cost as much as decoding.
    let clean_body = if used == Encoding::Utf8 && validate {
        std::str::from_utf8(body).ok()
    } else {
        None
    };
    let trusted_utf8 = used == Encoding::Utf8 && !validate;
    if used.is_ascii_compatible() && clean_body.is_none() && !trusted_utf8 {
        // Junk after the trailer is not text of the file: it says nothing about the encoding.
        let text = before_junk(body);
        let stats = Stats::of(text);
        if options.force.is_none() {
            let said = Said {
                from_char: specified.is_some(),
                char_line: &char_line,
                bom,
            };
            if let Some(note) = mismatch_note(&stats, text, used, &said, start) {
                notes.push(note);
            }
        }
        if used == Encoding::Utf8 {
            cesu_notes(&stats, start, &mut notes);
        }
    }

    let detection = Detection {
        detected,
        bom,
        declared: scan.declared,
        used,
        notes,
    };
    (detection, clean_body)
}

/// Like [`decode_document`], but borrows `bytes` as the text when they already are it (UTF-8 with no byte-order
/// mark, valid, and free of raw-range characters), which saves a copy the size of the file.
///
/// ```
/// use gedgraft_encoding::{detect, internal::decode_document_cow, DetectOptions};
/// let bytes = b"0 HEAD\n0 TRLR\n";
/// let (text, map) = decode_document_cow(bytes, &detect(bytes, &DetectOptions::default()));
/// assert!(matches!(text, std::borrow::Cow::Borrowed(_)));
/// assert_eq!(map.file_offset(7), 7);
/// ```
pub fn decode_document_cow<'a>(
    bytes: &'a [u8],
    detection: &Detection,
) -> (std::borrow::Cow<'a, str>, SourceMap) {
    if detection.bom.is_none() && detection.used == Encoding::Utf8 {
        if let Ok(text) = std::str::from_utf8(bytes) {
            if !crate::raw::contains_raw(text) {
                return (
                    std::borrow::Cow::Borrowed(text),
                    SourceMap::identity(text.len()),
                );
            }
        }
    }
    let decoded = decode_document(bytes, detection);
    (std::borrow::Cow::Owned(decoded.text), decoded.map)
}

/// Decodes a whole file as `detection` says: the byte-order mark (if any) becomes U+FEFF, the rest is decoded
/// with the used encoding. Encoding the text back (U+FEFF in the mark's encoding, the rest in the used one)
/// gives the original octets.
pub fn decode_document(bytes: &[u8], detection: &Detection) -> Decoded {
    let mut text = String::with_capacity(bytes.len() + bytes.len() / 2 + 16);
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
    Decoded {
        text,
        map: map.finish(),
    }
}

/// The byte-order mark and the detected encoding (R-DETECTED-ENC-01…07).
fn detect_initial(bytes: &[u8]) -> (Option<Bom>, Option<Encoding>) {
    let bom = if bytes.starts_with(b"\xEF\xBB\xBF") {
        Some(Bom {
            encoding: Encoding::Utf8,
            len: 3,
        })
    } else if bytes.starts_with(b"\xFF\xFE") {
        Some(Bom {
            encoding: Encoding::Utf16Le,
            len: 2,
        })
    } else if bytes.starts_with(b"\xFE\xFF") {
        Some(Bom {
            encoding: Encoding::Utf16Be,
            len: 2,
        })
    } else {
        None
    };
    if let Some(b) = bom {
        return (bom, Some(b.encoding));
    }
    // R-DETECTED-ENC-04, -07: any ASCII character U+0001–U+007F in UTF-16, not just `0`.
    let ascii = |b: u8| (0x01..=0x7F).contains(&b);
    let sniffed = match bytes {
        [a, 0, ..] if ascii(*a) => Some(Encoding::Utf16Le),
        [0, b, ..] if ascii(*b) => Some(Encoding::Utf16Be),
        _ => None,
    };
    (None, sniffed)
}

/// What the header scan found. Offsets are relative to the octets after the byte-order mark.
#[derive(Debug, Default)]
struct Scan {
    /// The `CHAR` payload as written.
    declared: Option<String>,
    /// The whole `CHAR` line as written, surrounding spaces and tabs trimmed (`1 char ANSEL`).
    char_line: Option<String>,
    /// The `CHAR` payload, normalised and upper-cased.
    char_value: Option<String>,
    /// Where the `CHAR` line starts.
    char_offset: usize,
    /// The `VERS` payload right after `CHAR`, normalised and upper-cased.
    vers: Option<String>,
    /// The first NUL octet (or UTF-16 code unit 0) met during the scan.
    nul: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Expecting the first non-blank line, `0 HEAD`.
    Head,
    /// Inside the `HEAD` record, looking for `1 CHAR`.
    Body,
    /// Just after `1 CHAR`: the next non-blank line may be `2 VERS`.
    Vers,
    /// Finished.
    Done,
}

/// The header scan (R-SPECIFIED-ENC-01…09). It stops as soon as it can, so its cost is the header's size.
fn scan_header(body: &[u8], detected: Option<Encoding>) -> Scan {
    match detected {
        Some(e @ (Encoding::Utf16Le | Encoding::Utf16Be)) => {
            let big_endian = e == Encoding::Utf16Be;
            let units = (crate::codec::utf16::units(body, big_endian).enumerate())
                .map(|(i, unit)| (2 * i, u32::from(unit)));
            scan_units(body, units, 2, detected)
        }
        _ => scan_units(
            body,
            body.iter().enumerate().map(|(i, &b)| (i, u32::from(b))),
            1,
            detected,
        ),
    }
}

/// Splits code units into line strings (at CR and LF, R-LINE-STRINGS-01) and feeds them to the scan.
fn scan_units(
    body: &[u8],
    units: impl Iterator<Item = (usize, u32)>,
    unit_len: usize,
    detected: Option<Encoding>,
) -> Scan {
    let mut scan = Scan::default();
    let mut stage = Stage::Head;
    let mut line = String::new();
    let mut line_start = 0;
    let mut end = 0;
    for (offset, unit) in units {
        end = offset + unit_len;
        if unit == 0 && scan.nul.is_none() {
            scan.nul = Some(offset);
        }
        if unit == 0x0A || unit == 0x0D {
            stage = scan_line(&mut scan, stage, &line, line_start..offset, body, detected);
            if stage == Stage::Done {
                return scan;
            }
            line.clear();
            line_start = end;
        } else {
            // Only ASCII matters for matching; other code units map to some non-ASCII character.
            line.push(char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER));
        }
    }
    if !line.is_empty() {
        scan_line(&mut scan, stage, &line, line_start..end, body, detected);
    }
    scan
}

/// Handles one line string of the scan and returns the next stage.
fn scan_line(
    scan: &mut Scan,
    stage: Stage,
    line: &str,
    range: Range<usize>,
    body: &[u8],
    detected: Option<Encoding>,
) -> Stage {
    let norm = normalise(line);
    if norm.is_empty() {
        return stage;
    }
    match stage {
        // R-SPECIFIED-ENC-06: the first line string must be `0 HEAD`; if not, there is no specified encoding.
        Stage::Head => {
            if norm == "0 HEAD" {
                Stage::Body
            } else {
                Stage::Done
            }
        }
        // R-SPECIFIED-ENC-07: stop at the next record.
        Stage::Body if norm.starts_with("0 ") => Stage::Done,
        Stage::Body => match char_value(&norm) {
            Some(value) => {
                scan.char_value = Some(value.to_string());
                scan.char_offset = range.start;
                let written = provisional_decode(body.get(range).unwrap_or_default(), detected);
                scan.declared = Some(payload_as_written(&written));
                scan.char_line = Some(written.trim_matches([' ', '\t']).to_string());
                Stage::Vers
            }
            None => Stage::Body,
        },
        // R-SPECIFIED-ENC-13: one more line string, used if it begins `2 VERS `.
        Stage::Vers => {
            if let Some(value) = norm.strip_prefix("2 VERS ") {
                scan.vers = Some(value.to_string());
            }
            Stage::Done
        }
        Stage::Done => Stage::Done,
    }
}

/// The value of a normalised header line if it is the `CHAR` line: level 1, a tag [`is_char_tag`] accepts, and
/// a space (R-SPECIFIED-ENC-09: `1 CHAR` followed by a space).
fn char_value(norm: &str) -> Option<&str> {
    let rest = norm.strip_prefix("1 ")?;
    let (tag, value) = rest.split_once(' ')?;
    is_char_tag(tag).then_some(value)
}

/// Whether `tag` is the tag of the `CHAR` line as detection reads it: `CHAR` in any case, since the header scan
/// upper-cases line strings before it matches them (R-SPECIFIED-ENC-05), so `1 char ANSEL` decides the
/// encoding as `1 CHAR ANSEL` does. Whatever guards `HEAD.CHAR` (an editor that must not change how the file
/// decodes) matches tags with this.
///
/// ```
/// use gedgraft_encoding::{detect, is_char_tag, DetectOptions, Encoding};
/// assert!(is_char_tag("CHAR") && is_char_tag("char") && is_char_tag("Char"));
/// assert!(!is_char_tag("_CHAR"));
/// let d = detect(b"0 HEAD\n1 char ANSEL\n0 TRLR\n", &DetectOptions::default());
/// assert_eq!(d.used, Encoding::Ansel);
/// ```
pub fn is_char_tag(tag: &str) -> bool {
    tag.eq_ignore_ascii_case("CHAR")
}

/// Decodes the octets of one scanned line for display: with the detected encoding, or as ISO-8859-1 if none
/// (R-SPECIFIED-ENC-02). Undecodable parts become U+FFFD: this text is only shown, never written back.
fn provisional_decode(octets: &[u8], detected: Option<Encoding>) -> String {
    match detected {
        None => octets.iter().map(|&b| char::from(b)).collect(),
        Some(e @ (Encoding::Utf16Le | Encoding::Utf16Be)) => {
            let units = crate::codec::utf16::units(octets, e == Encoding::Utf16Be);
            char::decode_utf16(units)
                .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect()
        }
        Some(_) => String::from_utf8_lossy(octets).into_owned(),
    }
}

/// The payload of a `1 CHAR` line as written: after the level, the tag and the whitespace that follows it,
/// with surrounding spaces and tabs trimmed.
fn payload_as_written(line: &str) -> String {
    let ws = [' ', '\t'];
    let rest = line.trim_start_matches(ws);
    let rest = rest
        .strip_prefix('1')
        .unwrap_or(rest)
        .trim_start_matches(ws);
    let rest = rest.get(4..).unwrap_or_default();
    rest.trim_matches(ws).to_string()
}

/// Whitespace-normalises a line string and upper-cases ASCII letters (R-SPECIFIED-ENC-05).
fn normalise(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for word in line.split([' ', '\t']).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().map(|c| c.to_ascii_uppercase()));
    }
    out
}

/// The specified encoding for a normalised `CHAR` value (R-SPECIFIED-ENC-10…14); see the module documentation.
fn specified_encoding(
    value: &str,
    vers: Option<&str>,
    detected: Option<Encoding>,
) -> Option<Encoding> {
    let utf16 = detected.filter(|e| e.is_utf16());
    match value {
        "ASCII" => Some(Encoding::Ascii),
        "ANSEL" => Some(Encoding::Ansel),
        "UTF-8" => Some(Encoding::Utf8),
        "UNICODE" => Some(utf16.unwrap_or(Encoding::Utf8)),
        "ANSI" => Some(
            vers.and_then(code_page_from_vers)
                .unwrap_or(Encoding::Windows1252),
        ),
        _ => Encoding::from_name(value).map(|e| {
            if e.is_utf16() {
                utf16.unwrap_or(Encoding::Utf8)
            } else {
                e
            }
        }),
    }
}

/// The code page a `VERS` line under `CHAR ANSI` names: `1250`, `CP1250`, `WINDOWS-1250`, `IBM437`, ….
fn code_page_from_vers(vers: &str) -> Option<Encoding> {
    Encoding::windows_code_page(vers.trim())
        .or_else(|| Encoding::from_name(vers))
        .filter(|e| {
            !matches!(
                e,
                Encoding::Utf16Le | Encoding::Utf16Be | Encoding::Utf8 | Encoding::Ansel
            )
        })
}

/// What chose the used encoding, for a mismatch note.
struct Said<'a> {
    /// A `CHAR` line did.
    from_char: bool,
    /// That line as written (`1 char ANSEL`).
    char_line: &'a str,
    bom: Option<Bom>,
}

/// The note for octets (`text`, the file's text after any byte-order mark) that contradict the used encoding,
/// if they do.
fn mismatch_note(
    stats: &Stats,
    text: &[u8],
    used: Encoding,
    said: &Said,
    start: usize,
) -> Option<EncodingNote> {
    let (likely, at, why) = match used {
        Encoding::Utf8 if stats.invalid > 0 => (
            stats.guess_8bit(),
            stats.first_invalid?,
            "they are not valid UTF-8".to_string(),
        ),
        Encoding::Ascii if stats.high > 0 => {
            let at = stats.first_high?;
            (
                stats.guess()?,
                at,
                "they include octets from 80 up, which ASCII does not have".to_string(),
            )
        }
        Encoding::Ansel => match stats.guess()? {
            Encoding::Utf8 => (
                Encoding::Utf8,
                stats.first_multibyte?,
                "they are valid UTF-8".to_string(),
            ),
            Encoding::Ansel => return None,
            other => (
                other,
                stats.first_against_ansel()?,
                stats.why_not_ansel(text),
            ),
        },
        Encoding::Utf8 | Encoding::Ascii | Encoding::Utf16Le | Encoding::Utf16Be => return None,
        _ => match stats.guess()? {
            Encoding::Utf8 => (
                Encoding::Utf8,
                stats.first_multibyte?,
                "they are valid UTF-8".to_string(),
            ),
            _ => return None,
        },
    };
    let at = start + at;
    let (code, said) = if said.from_char {
        (
            EncodingNote::DECLARED_ENCODING_MISMATCH,
            format!("`{}` gives {used}", said.char_line),
        )
    } else if let Some(b) = said.bom {
        (
            EncodingNote::ENCODING_MISMATCH,
            format!("the byte-order mark gives {}", b.encoding),
        )
    } else {
        (
            EncodingNote::ENCODING_MISMATCH,
            format!("with no usable `CHAR` line the default is {used}"),
        )
    };
    Some(EncodingNote::warning(
        code,
        at,
        format!("{said}, but the octets look like {likely}: {why} (first at octet {at}); decoded as {used}"),
    ))
}

/// One `cesu-8` note per CESU-8 pair, up to [`MAX_CESU_NOTES`], then one for the rest (R-ENCODINGS-04).
fn cesu_notes(stats: &Stats, start: usize, notes: &mut Vec<EncodingNote>) {
    for &at in stats.cesu.iter().take(MAX_CESU_NOTES) {
        notes.push(EncodingNote::warning(
            EncodingNote::CESU_8,
            start + at,
            "CESU-8: a character outside the Basic Multilingual Plane written as two 3-octet surrogates, \
             which is not valid UTF-8; its octets are kept as they are"
                .to_string(),
        ));
    }
    if let Some(&at) = stats.cesu.get(MAX_CESU_NOTES) {
        let more = stats.cesu.len() - MAX_CESU_NOTES;
        notes.push(EncodingNote::warning(
            EncodingNote::CESU_8,
            start + at,
            format!("{more} more CESU-8 sequences from here on"),
        ));
    }
}
