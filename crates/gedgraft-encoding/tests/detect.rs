//! Detection rules of the 2019 draft (§ Detecting a character encoding, § Specified character encodings), one
//! test per requirement ID, plus gedgraft's decisions.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use gedgraft_encoding::{
    ansel, decode_document, detect, DetectOptions, Detection, Encoding, EncodingNote,
};

fn run(bytes: &[u8]) -> Detection {
    detect(bytes, &DetectOptions::default())
}

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let e = if big_endian {
        Encoding::Utf16Be
    } else {
        Encoding::Utf16Le
    };
    e.encode(text, &mut out).unwrap();
    out
}

fn codes(d: &Detection) -> Vec<&'static str> {
    d.notes.iter().map(|n| n.code).collect()
}

#[test]
fn r_detected_enc_01_utf8_bom() {
    let d = run(b"\xEF\xBB\xBF0 HEAD\n0 TRLR\n");
    assert_eq!(d.detected, Some(Encoding::Utf8));
    assert_eq!(
        d.bom.map(|b| (b.encoding, b.len)),
        Some((Encoding::Utf8, 3))
    );
    assert_eq!(d.used, Encoding::Utf8);
}

#[test]
fn r_detected_enc_02_utf16_boms() {
    let mut le = b"\xFF\xFE".to_vec();
    le.extend(utf16("0 HEAD\n1 CHAR UNICODE\n0 TRLR\n", false));
    let d = run(&le);
    assert_eq!(d.detected, Some(Encoding::Utf16Le));
    assert_eq!(d.bom.map(|b| b.len), Some(2));
    assert_eq!(d.used, Encoding::Utf16Le);
    let text = decode_document(&le, &d).text;
    assert!(text.starts_with("\u{FEFF}0 HEAD\n"));

    let mut be = b"\xFE\xFF".to_vec();
    be.extend(utf16("0 HEAD\n0 TRLR\n", true));
    let d = run(&be);
    assert_eq!(d.detected, Some(Encoding::Utf16Be));
    assert_eq!(d.used, Encoding::Utf16Be);
}

/// The mark is not part of the scanned text: the first line string is exactly `0 HEAD`.
#[test]
fn r_detected_enc_03_bom_removed_before_scan() {
    let d = run(b"\xEF\xBB\xBF0 HEAD\n1 CHAR ANSEL\n0 TRLR\n");
    assert_eq!(d.declared.as_deref(), Some("ANSEL"));
}

#[test]
fn r_detected_enc_04_bomless_utf16() {
    assert_eq!(run(b"\x000\x00 \x00H").detected, Some(Encoding::Utf16Be));
    assert_eq!(run(b"0\x00 \x00H\x00").detected, Some(Encoding::Utf16Le));
    assert_eq!(run(b"0 HEAD").detected, None);
    assert_eq!(run(b"\x80\x00").detected, None);
    assert_eq!(run(b"\x00\x00").detected, None);
    assert_eq!(run(b"0").detected, None);
    let d = run(&utf16("0 HEAD\n1 CHAR UNICODE\n0 TRLR\n", true));
    assert_eq!(
        (d.detected, d.used),
        (Some(Encoding::Utf16Be), Encoding::Utf16Be)
    );
    assert_eq!(d.bom, None);
}

/// EBCDIC is not sniffed: no detected encoding, and the first line is not `0 HEAD`.
#[test]
fn r_detected_enc_05_no_other_sniffing() {
    let d = run(b"\xF0\x40\xC8\xC5\xC1\xC4\x25");
    assert_eq!(d.detected, None);
    assert_eq!(d.declared, None);
    assert_eq!(d.used, Encoding::Utf8);
}

#[test]
fn r_detected_enc_06_none() {
    assert_eq!(run(b"0 HEAD\n").detected, None);
}

/// CONFLICT row: 2019 detects any ASCII character in UTF-16, not just `0`.
#[test]
fn r_detected_enc_07_any_ascii_character() {
    assert_eq!(
        run(b"\x20\x000\x00 \x00H\x00").detected,
        Some(Encoding::Utf16Le)
    );
}

#[test]
fn r_specified_enc_01_scan_uses_detected_encoding() {
    let d = run(&utf16("0 HEAD\n1 CHAR UNICODE\n0 TRLR\n", false));
    assert_eq!(d.declared.as_deref(), Some("UNICODE"));
}

#[test]
fn r_specified_enc_02_scan_reads_octets_as_latin1() {
    let d = run(b"0 HEAD\n1 NOTE \xE9\n1 CHAR UTF-8\n0 TRLR\n");
    assert_eq!(d.declared.as_deref(), Some("UTF-8"));
    assert_eq!(d.used, Encoding::Utf8);
}

/// The NUL octet is an error note at its offset; decoding still goes on.
#[test]
fn r_specified_enc_03_nul_octet() {
    let bytes = b"0 HEAD\n1 N\x00TE\n1 CHAR ASCII\n0 TRLR\n";
    let d = run(bytes);
    assert_eq!(codes(&d), [EncodingNote::NUL_OCTET]);
    assert!(d.notes[0].is_error);
    assert_eq!(d.notes[0].file_offset, 10);
    assert_eq!(d.used, Encoding::Ascii);
    // After the header the scan has stopped: no note.
    assert!(run(b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NOTE \x00\n")
        .notes
        .is_empty());
    // With a detected encoding the check does not apply.
    assert!(run(b"\xEF\xBB\xBF0 HEAD\n1 NOTE \x00\n").notes.is_empty());
}

#[test]
fn r_specified_enc_04_restricted_characters_accepted() {
    let d = run(b"0 HEAD\n1 NOTE \x01\x7F\x85\n1 CHAR UTF-8\n");
    assert_eq!(d.used, Encoding::Utf8);
    assert_eq!(d.declared.as_deref(), Some("UTF-8"));
}

#[test]
fn r_specified_enc_05_normalised_and_upper_cased() {
    let d = run(b"0 HEAD \n1\tCHAR  utf-8\n");
    assert_eq!(d.used, Encoding::Utf8);
    assert_eq!(
        d.declared.as_deref(),
        Some("utf-8"),
        "declared is the payload as written"
    );
    let d = run(b"0 head\r\n  1   char   ansel  \r\n");
    assert_eq!(d.used, Encoding::Ansel);
    assert_eq!(d.declared.as_deref(), Some("ansel"));
}

#[test]
fn r_specified_enc_06_first_line_must_be_head() {
    for bad in [
        &b"0 @H1@ HEAD\n1 CHAR ANSEL\n"[..],
        b"0 HEAD x\n1 CHAR ANSEL\n",
        b"1 HEAD\n1 CHAR ANSEL\n",
    ] {
        let d = run(bad);
        assert_eq!(d.declared, None, "{:?}", String::from_utf8_lossy(bad));
        assert_eq!(d.used, Encoding::Utf8);
    }
    let d = run(b"\n\n  0  HEAD \n1 CHAR ANSEL\n");
    assert_eq!(d.used, Encoding::Ansel);
}

#[test]
fn r_specified_enc_07_scan_stops_at_next_record() {
    let d = run(b"0 HEAD\n0 @I1@ INDI\n1 CHAR ANSEL\n");
    assert_eq!(d.declared, None);
    assert_eq!(d.used, Encoding::Utf8);
}

/// A `CHAR` line that is not `1 CHAR` is ignored; later octets then decode as UTF-8.
#[test]
fn r_specified_enc_08_char_elsewhere_ignored() {
    let bytes = b"0 HEAD\n1 SOUR x\n2 CHAR ANSEL\n0 @I1@ INDI\n1 NAME Jos\xC3\xA9\n";
    let d = run(bytes);
    assert_eq!(d.declared, None);
    assert!(decode_document(bytes, &d).text.contains("Jos\u{E9}"));
}

#[test]
fn r_specified_enc_09_char_needs_a_space() {
    assert_eq!(run(b"0 HEAD\n1 CHAR\n0 TRLR\n").declared, None);
    assert_eq!(run(b"0 HEAD\n1 CHARSET ANSEL\n0 TRLR\n").declared, None);
    // The scan goes on past them.
    assert_eq!(run(b"0 HEAD\n1 CHAR\n1 CHAR ANSEL\n").used, Encoding::Ansel);
}

#[test]
fn r_specified_enc_10_ascii_ansel_utf8() {
    assert_eq!(run(b"0 HEAD\n1 CHAR ASCII\n").used, Encoding::Ascii);
    assert_eq!(run(b"0 HEAD\n1 CHAR ansel\n").used, Encoding::Ansel);
    assert_eq!(run(b"0 HEAD\n1 CHAR UTF-8\n").used, Encoding::Utf8);
}

/// UNICODE with detected UTF-16 → that byte order.
#[test]
fn r_specified_enc_12_unicode_with_utf16() {
    let d = run(&utf16("0 HEAD\n1 CHAR UNICODE\n", true));
    assert_eq!(d.used, Encoding::Utf16Be);
    assert!(d.notes.is_empty());
}

/// Implementation-defined values (decisions documented in `detect`): ANSI with and without VERS, the
/// real-world names, UNICODE in an 8-bit stream.
#[test]
fn r_specified_enc_13_implementation_defined() {
    let cases: &[(&[u8], Encoding)] = &[
        (b"0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n", Encoding::Windows1250),
        (
            b"0 HEAD\n1 CHAR ANSI\n2 VERS CP1251\n",
            Encoding::Windows1251,
        ),
        (
            b"0 HEAD\n1 CHAR ANSI\n2 VERS windows-1257\n",
            Encoding::Windows1257,
        ),
        (b"0 HEAD\n1 CHAR ANSI\n", Encoding::Windows1252),
        (b"0 HEAD\n1 CHAR ANSI\n2 VERS 5.5\n", Encoding::Windows1252),
        (b"0 HEAD\n1 CHAR ANSI\n1 SOUR x\n", Encoding::Windows1252),
        (b"0 HEAD\n1 CHAR UTF8\n", Encoding::Utf8),
        (b"0 HEAD\n1 CHAR UNICODE\n", Encoding::Utf8),
        (b"0 HEAD\n1 CHAR LATIN1\n", Encoding::Windows1252),
        (b"0 HEAD\n1 CHAR ISO8859-1\n", Encoding::Windows1252),
        (b"0 HEAD\n1 CHAR ISO-8859-1\n", Encoding::Windows1252),
        (b"0 HEAD\n1 CHAR IBMPC\n", Encoding::Ibm437),
        (b"0 HEAD\n1 CHAR IBM WINDOWS\n", Encoding::Windows1252),
        (b"0 HEAD\n1 CHAR MACINTOSH\n", Encoding::Macintosh),
        (b"0 HEAD\n1 CHAR UTF-16\n", Encoding::Utf8),
        (b"0 HEAD\n1 CHAR CP850\n", Encoding::Ibm850),
    ];
    for &(bytes, used) in cases {
        let d = run(bytes);
        assert_eq!(d.used, used, "{}", String::from_utf8_lossy(bytes));
        assert!(d.notes.is_empty(), "{:?}", d.notes);
    }
}

#[test]
fn r_specified_enc_14_unknown_value() {
    let bytes = b"0 HEAD\n1 CHAR FOO\n0 TRLR\n";
    let d = run(bytes);
    assert_eq!(d.used, Encoding::Utf8);
    assert_eq!(d.declared.as_deref(), Some("FOO"));
    assert_eq!(codes(&d), [EncodingNote::UNKNOWN_DECLARED_ENCODING]);
    assert_eq!(d.notes[0].file_offset, 7);
    assert!(d.notes[0].message.contains("FOO"));
    // With a BOM the detected encoding is used instead; with the ANSEL default, ANSEL.
    assert_eq!(
        run(b"\xEF\xBB\xBF0 HEAD\n1 CHAR FOO\n").used,
        Encoding::Utf8
    );
    let ansel_default = DetectOptions {
        default_encoding: Some(Encoding::Ansel),
        ..DetectOptions::default()
    };
    assert_eq!(detect(bytes, &ansel_default).used, Encoding::Ansel);
}

#[test]
fn r_specified_enc_15_specified_then_detected_then_utf8() {
    assert_eq!(
        run(b"\xEF\xBB\xBF0 HEAD\n1 CHAR ANSEL\n").used,
        Encoding::Ansel
    );
    assert_eq!(run(b"\xEF\xBB\xBF0 HEAD\n0 TRLR\n").used, Encoding::Utf8);
    assert_eq!(run(b"0 HEAD\n0 TRLR\n").used, Encoding::Utf8);
    assert_eq!(run(b"").used, Encoding::Utf8);
}

/// CONFLICT row: UTF-8 by default; GEDCOM 5.5.1's ANSEL on request.
#[test]
fn r_parsing_linestrs_02_default_encoding() {
    let bytes = b"0 HEAD\n1 NAME Jos\xC3\xA9\n0 TRLR\n";
    let d = run(bytes);
    assert_eq!(d.used, Encoding::Utf8);
    assert!(decode_document(bytes, &d).text.contains("Jos\u{E9}"));
    let options = DetectOptions {
        default_encoding: Some(Encoding::Ansel),
        ..DetectOptions::default()
    };
    assert_eq!(detect(bytes, &options).used, Encoding::Ansel);
    // A CHAR line still wins over the default.
    assert_eq!(
        detect(b"0 HEAD\n1 CHAR UTF-8\n", &options).used,
        Encoding::Utf8
    );
}

#[test]
fn force_wins_over_everything() {
    let options = DetectOptions {
        force: Some(Encoding::Windows1250),
        ..DetectOptions::default()
    };
    let d = detect(
        b"\xEF\xBB\xBF0 HEAD\n1 CHAR ANSEL\n1 NOTE \xC3\xA9\n",
        &options,
    );
    assert_eq!(d.used, Encoding::Windows1250);
    assert_eq!(d.declared.as_deref(), Some("ANSEL"));
    assert!(
        d.notes.is_empty(),
        "no mismatch notes when forced: {:?}",
        d.notes
    );
}

/// Decision: in a UTF-16 file an 8-bit CHAR cannot be right; UTF-16 is used, with a note.
#[test]
fn utf16_beats_an_8bit_char_value() {
    let mut bytes = b"\xFF\xFE".to_vec();
    bytes.extend(utf16("0 HEAD\n1 CHAR ANSEL\n0 TRLR\n", false));
    let d = run(&bytes);
    assert_eq!(d.used, Encoding::Utf16Le);
    assert_eq!(codes(&d), [EncodingNote::DECLARED_ENCODING_MISMATCH]);
    assert_eq!(d.notes[0].file_offset, 2 + 14);
    // Forced: no note about a choice that was not made.
    let forced = DetectOptions {
        force: Some(Encoding::Ansel),
        ..DetectOptions::default()
    };
    assert!(detect(&bytes, &forced).notes.is_empty());
    // A UTF-16 name in a file of the other byte order is taken as the detected order, silently.
    let d = run(&utf16("0 HEAD\n1 CHAR UTF-16LE\n", true));
    assert_eq!(d.used, Encoding::Utf16Be);
    assert!(d.notes.is_empty());
}

/// R-ENCODINGS-04: CESU-8 in a UTF-8 file: a warning per pair, at its offset, and no mismatch note.
#[test]
fn r_encodings_04_cesu_8_warning() {
    let bytes =
        b"0 HEAD\n1 CHAR UTF-8\n1 NAME \xED\xA1\x80\xED\xB0\xA1 and \xED\xA1\x80\xED\xB0\xA1\n";
    let d = run(bytes);
    assert_eq!(codes(&d), [EncodingNote::CESU_8, EncodingNote::CESU_8]);
    assert_eq!(d.notes[0].file_offset, 27);
    assert_eq!(d.notes[1].file_offset, 27 + 11);
    assert!(!d.notes[0].is_error);
    // Lossless: the six octets stay raw.
    let decoded = decode_document(bytes, &d);
    let mut back = Vec::new();
    d.used.encode(&decoded.text, &mut back).unwrap();
    assert_eq!(back, bytes);
    // Many pairs: the first ones one by one, then one note for the rest.
    let many = [
        &b"0 HEAD\n1 NOTE "[..],
        &b"\xED\xA1\x80\xED\xB0\xA1".repeat(150),
    ]
    .concat();
    let d = run(&many);
    assert_eq!(d.notes.len(), gedgraft_encoding::MAX_CESU_NOTES + 1);
    assert!(d.notes.last().unwrap().message.contains("50 more"));
}

/// R-ENCODINGS-10: `CHAR ANSI` with octet 80 → €.
#[test]
fn r_encodings_10_ansi_euro() {
    let bytes = b"0 HEAD\n1 CHAR ANSI\n1 NOTE \x80\n";
    let d = run(bytes);
    assert!(decode_document(bytes, &d).text.contains("1 NOTE \u{20AC}"));
}

/// R-ENCODINGS-01: é as ANSEL `E2 65` and as UTF-8 `C3 A9` (equal after NFC).
#[test]
fn r_encodings_01_three_encodings_of_e_acute() {
    let bytes = b"0 HEAD\n1 CHAR ANSEL\n1 NAME \xE2e\n";
    let text = decode_document(bytes, &run(bytes)).text;
    assert!(ansel::to_unicode_order(&text).contains("1 NAME e\u{301}"));
    let bytes = b"0 HEAD\n1 CHAR UTF-8\n1 NAME \xC3\xA9\n";
    assert!(decode_document(bytes, &run(bytes))
        .text
        .contains("1 NAME \u{E9}"));
}

fn mismatch(bytes: &[u8]) -> (Detection, String) {
    let d = run(bytes);
    let message = d
        .notes
        .iter()
        .find(|n| {
            n.code == EncodingNote::DECLARED_ENCODING_MISMATCH
                || n.code == EncodingNote::ENCODING_MISMATCH
        })
        .map(|n| n.message.clone())
        .unwrap_or_default();
    (d, message)
}

#[test]
fn declared_utf8_with_windows_1252_octets() {
    let bytes =
        b"0 HEAD\n1 CHAR UTF-8\n1 NAME Jos\xE9 /M\xFCller/\n2 NOTE Fran\xE7oise, \xC9mile\n";
    let (d, message) = mismatch(bytes);
    assert_eq!(d.used, Encoding::Utf8, "declared wins");
    assert_eq!(codes(&d), [EncodingNote::DECLARED_ENCODING_MISMATCH]);
    assert!(message.contains("windows-1252"), "{message}");
    assert_eq!(d.notes[0].file_offset, 30);
}

#[test]
fn declared_utf8_with_ansel_octets() {
    let (_, message) = mismatch(b"0 HEAD\n1 CHAR UTF-8\n1 NAME Jos\xE2e /M\xE8uller/\n");
    assert!(message.contains("ANSEL"), "{message}");
}

#[test]
fn declared_ansel_with_utf8_or_code_page_octets() {
    let (d, message) = mismatch(b"0 HEAD\n1 CHAR ANSEL\n1 NAME Jos\xC3\xA9 /M\xC3\xBCller/\n");
    assert_eq!(d.used, Encoding::Ansel);
    assert!(message.contains("UTF-8"), "{message}");
    let (_, message) = mismatch(
        b"0 HEAD\n1 CHAR ANSEL\n1 NAME Jos\xE9 /M\xFCller/\n2 NOTE Fran\xE7oise, \xC9mile\n",
    );
    assert!(message.contains("windows-1252"), "{message}");
    // Real ANSEL: no note.
    assert!(
        run(b"0 HEAD\n1 CHAR ANSEL\n1 NAME Jos\xE2e /M\xE8uller/ \xB2\n")
            .notes
            .is_empty()
    );
}

#[test]
fn declared_ascii_with_high_octets() {
    let (_, message) = mismatch(b"0 HEAD\n1 CHAR ASCII\n1 NAME Jos\xC3\xA9\n");
    assert!(message.contains("UTF-8"), "{message}");
    let (_, message) = mismatch(b"0 HEAD\n1 CHAR ASCII\n1 NAME Jos\xE9 Fran\xE7ois\n");
    assert!(message.contains("windows-1252"), "{message}");
}

#[test]
fn declared_code_page_with_utf8_octets() {
    let (d, message) = mismatch(b"0 HEAD\n1 CHAR ANSI\n1 NAME Jos\xC3\xA9\n");
    assert_eq!(d.used, Encoding::Windows1252);
    assert!(message.contains("UTF-8"), "{message}");
    // Real windows-1252: no note, even where the octets would also pass for ANSEL.
    assert!(run(b"0 HEAD\n1 CHAR ANSI\n1 NOTE Br\xF8derbund\n")
        .notes
        .is_empty());
}

#[test]
fn no_char_line_with_code_page_octets() {
    let (d, message) = mismatch(b"0 HEAD\n1 NAME Jos\xE9 Fran\xE7ois\n0 TRLR\n");
    assert_eq!(d.used, Encoding::Utf8);
    assert_eq!(codes(&d), [EncodingNote::ENCODING_MISMATCH]);
    assert!(
        message.contains("windows-1252") && message.contains("default"),
        "{message}"
    );
    let (_, message) = mismatch(b"\xEF\xBB\xBF0 HEAD\n1 NAME Jos\xE9 Fran\xE7ois\n0 TRLR\n");
    assert!(message.contains("byte-order mark"), "{message}");
}

/// Declared values are swapped into real corpus files: the notes name the encoding the octets really are.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn relabelled_corpus_files() {
    let dir = common::corpus_dir();
    let relabel = |rel: &str, from: &[u8], to: &[u8]| -> Vec<u8> {
        let bytes = std::fs::read(dir.join(rel)).unwrap();
        let at = bytes.windows(from.len()).position(|w| w == from).unwrap();
        [&bytes[..at], to, &bytes[at + from.len()..]].concat()
    };
    let cases: &[(&str, &[u8], &[u8], &str)] = &[
        (
            "gedcom4j/sample/ANSEL.GED",
            b"1 CHAR ANSEL",
            b"1 CHAR UTF-8",
            "ANSEL",
        ),
        (
            "gedcom4j/sample/TGC551.ged",
            b"1 CHAR ANSEL",
            b"1 CHAR ASCII",
            "ANSEL",
        ),
        (
            "gedcom4j/sample/issue81.ged",
            b"1 CHAR ANSEL",
            b"1 CHAR UTF-8",
            "ANSEL",
        ),
        (
            "fastgedcom/test/test_data/in_ansi.ged",
            b"1 CHAR ANSI",
            b"1 CHAR ANSEL",
            "windows-1252",
        ),
        (
            "fastgedcom/test/test_data/in_iso8859-1.ged",
            b"1 CHAR ISO8859-1",
            b"1 CHAR UTF-8",
            "windows-1252",
        ),
        (
            "fastgedcom/test/test_data/in_utf8.ged",
            b"1 CHAR UTF-8",
            b"1 CHAR ANSEL",
            "UTF-8",
        ),
        (
            "gedcom4j/sample/5.5.1 sample 1.ged",
            b"1 CHAR UTF-8",
            b"1 CHAR ANSI",
            "UTF-8",
        ),
    ];
    for &(rel, from, to, likely) in cases {
        let (d, message) = mismatch(&relabel(rel, from, to));
        assert_eq!(
            codes(&d),
            [EncodingNote::DECLARED_ENCODING_MISMATCH],
            "{rel}"
        );
        assert!(
            message.contains(&format!("look like {likely}")),
            "{rel}: {message}"
        );
    }
}

/// R-SPECIFIED-ENC-10…13: the `CHAR` (and `VERS`) a transcode writes for each encoding reads back as that
/// encoding, and is the value genealogy programs use (`ANSI`, `ANSI` + `VERS 1250`, `IBMPC`, `MACINTOSH`).
#[test]
fn r_specified_enc_13_every_declaration_reads_back_as_its_encoding() {
    for &e in Encoding::all() {
        let d = gedgraft_encoding::declaration(e);
        let mut text = format!("0 HEAD\n1 CHAR {}\n", d.char);
        if let Some(v) = d.vers {
            text.push_str(&format!("2 VERS {v}\n"));
        }
        text.push_str("0 TRLR\n");
        let mut bytes = Vec::new();
        if e.is_utf16() {
            e.encode("\u{FEFF}", &mut bytes).unwrap();
        }
        e.encode(&text, &mut bytes).unwrap();
        assert_eq!(run(&bytes).used, e, "{e}: {d:?}");
        let utf16 = Some(e).filter(|e| e.is_utf16());
        assert_eq!(
            gedgraft_encoding::declared_encoding(d.char, d.vers, utf16),
            Some(e)
        );
    }
    let names = |e| gedgraft_encoding::declaration(e);
    assert_eq!(names(Encoding::Windows1252).char, "ANSI");
    assert_eq!(names(Encoding::Windows1252).vers, None);
    assert_eq!(names(Encoding::Windows1251).vers, Some("1251"));
    assert_eq!(names(Encoding::Ibm437).char, "IBMPC");
    assert_eq!(names(Encoding::Macintosh).char, "MACINTOSH");
    assert_eq!(names(Encoding::Utf16Be).char, "UNICODE");
}

/// A file whose octets contradict its `CHAR` is in doubt until the caller forces a reading.
#[test]
fn doubt_is_the_mismatch_note_and_forcing_clears_it() {
    let ansel_1252 = b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n2 PLAC Alcal\xE1 de Henares\n0 TRLR\n";
    let note = run(ansel_1252).doubt().cloned().unwrap();
    assert_eq!(note.code, EncodingNote::DECLARED_ENCODING_MISMATCH);
    assert!(note.message.contains("windows-1252"), "{}", note.message);
    let forced = DetectOptions {
        force: Some(Encoding::Windows1252),
        ..DetectOptions::default()
    };
    assert!(detect(ansel_1252, &forced).doubt().is_none());
    // Clean files and ASCII-only files are not in doubt.
    assert!(run(b"0 HEAD\n1 CHAR ANSEL\n1 NOTE Jos\xE2e\n0 TRLR\n")
        .doubt()
        .is_none());
    assert!(run(b"\xEF\xBB\xBF0 HEAD\n1 CHAR ANSEL\n0 TRLR\n")
        .doubt()
        .is_none());
    // No CHAR, not UTF-8: the default reading is in doubt.
    assert!(run(b"0 HEAD\n1 NOTE Jos\xE9\n0 TRLR\n").doubt().is_some());
}

/// R-ANSEL-03: a diacritic that ends a line before a `CONC` line marks the letter that starts it (gedcom4j's
/// `issue81.ged`); the sniffing counts it as ANSEL, so such a file is not in doubt. Before a `CONT` line (a line
/// break is no letter) or at the end of a word it does not fit ANSEL.
#[test]
fn r_ansel_03_a_diacritic_before_a_conc_line_is_plausible_ansel() {
    let split = b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE arr\xE3\n1 CONC ete\n0 @N2@ NOTE b\xE2\r\n  2  CONC e\n0 TRLR\n";
    assert!(run(split).doubt().is_none(), "{:?}", run(split).notes);
    let cont = b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE arr\xE3\n1 CONT ete\n0 TRLR\n";
    assert!(run(cont).doubt().is_some());
    let word_end = b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE Jos\xE9 y Mar\xEDa\n0 TRLR\n";
    assert!(run(word_end).doubt().is_some());
}

/// The ANSEL-declared corpus files that really are ANSEL (MANIFEST.md: `CHAR` ANSEL, octets 8-bit or ASCII;
/// the UTF-16 and UTF-8 ones labelled ANSEL are not) read as ANSEL with no doubt, the torture tests
/// (`TGC551*.ged`, every diacritic on every letter) included. R-ANSEL-01
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn every_real_ansel_corpus_file_stays_undoubted() {
    let dir = common::corpus_dir();
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.md")).expect("MANIFEST.md");
    let mut seen = 0;
    for row in manifest.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (file, char, actual) = (cells[1].trim_matches('`'), cells[4], cells[5]);
        if char != "ANSEL" || !(actual == "8-bit non-UTF-8" || actual == "ASCII") {
            continue;
        }
        let d = run(&std::fs::read(dir.join(file)).unwrap());
        assert_eq!(d.used, Encoding::Ansel, "{file}");
        assert!(d.doubt().is_none(), "{file}: {:?}", d.doubt());
        seen += 1;
    }
    assert!(seen >= 15, "only {seen} ANSEL files in the manifest");
}

/// windows-1252 text whose accents are all followed by a letter is valid ANSEL octet for octet; the pairs'
/// ANSEL reading (`E9 61` `ǎ`, `FC 6C` `l̸`, `EF 76` `v̐`) gives it away (issue 11, F1). R-SPECIFIED-ENC-15
#[test]
fn windows_1252_that_is_valid_ansel_is_flagged() {
    let amb = b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME Andr\xe9a /M\xfcller/\n1 NOTE na\xefve\n0 TRLR\n";
    let (d, message) = mismatch(amb);
    assert_eq!(codes(&d), [EncodingNote::DECLARED_ENCODING_MISMATCH]);
    assert!(message.contains("look like windows-1252"), "{message}");
    assert!(
        message.contains("read as ANSEL, 3 of them make unusual letters (`éa` would be `ǎ`)"),
        "{message}"
    );
    assert_eq!(d.doubt().map(|n| n.file_offset), Some(43));
    // With no CHAR line the default UTF-8 is wrong, and the octets look like windows-1252, not ANSEL.
    let (d, message) = mismatch(b"0 HEAD\n0 @I1@ INDI\n1 NAME Mar\xeda\n0 TRLR\n");
    assert_eq!(codes(&d), [EncodingNote::ENCODING_MISMATCH]);
    assert!(message.contains("look like windows-1252"), "{message}");
    // Real ANSEL with the same shape stays ANSEL: `E2 65` is `é`, `E8 75` is `ü`.
    let real = b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME Ren\xe2ee /M\xe8uller/\n0 TRLR\n";
    assert!(run(real).doubt().is_none());
}

/// Octets after the trailer that are not lines (a DOS end-of-file mark, binary junk) are not text of the file
/// and not evidence about its encoding (issue 11, F4). R-TAGGED-STRUCTS-05
#[test]
fn junk_after_the_trailer_is_no_evidence() {
    let d = run(b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME A\n0 TRLR\n\x1a\x00\xff\xfe");
    assert!(d.notes.is_empty(), "{:?}", d.notes);
    // Records after the trailer are text: their octets count.
    let d = run(b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n0 @I1@ INDI\n1 NAME Jos\xe9\n0 TRLR\n");
    assert_eq!(codes(&d), [EncodingNote::DECLARED_ENCODING_MISMATCH]);
}

/// R-SPECIFIED-ENC-05: the header scan upper-cases line strings, so `1 char ANSEL` is the CHAR line; notes
/// quote it as written (issue 11, F2).
#[test]
fn r_specified_enc_05_a_lowercase_char_line_is_read_and_quoted_as_written() {
    let d = run(b"0 HEAD\n1 char ANSI\n0 @I1@ INDI\n1 NAME Mar\xc3\xada\n0 TRLR\n");
    assert_eq!(d.used, Encoding::Windows1252);
    let note = d.doubt().unwrap();
    assert!(
        note.message.starts_with("`1 char ANSI` gives windows-1252"),
        "{}",
        note.message
    );
    assert!(gedgraft_encoding::is_char_tag("cHaR"));
}
