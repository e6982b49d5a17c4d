//! Every file of `../shared/corpus` detects to a sensible encoding and round-trips octet for octet.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use common::{corpus_file, corpus_files, encode_document};
use gedgraft_encoding::{
    decode_document, detect, raw, DetectOptions, Detection, Encoding, EncodingNote,
};

fn detect_file(rel: &str) -> (Vec<u8>, Detection) {
    let bytes = corpus_file(rel);
    let d = detect(&bytes, &DetectOptions::default());
    (bytes, d)
}

fn codes(d: &Detection) -> Vec<&'static str> {
    d.notes.iter().map(|n| n.code).collect()
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn every_corpus_file_round_trips_octet_for_octet() {
    let files = corpus_files();
    assert!(files.len() > 100, "only {} corpus files", files.len());
    for (rel, bytes) in &files {
        let detection = detect(bytes, &DetectOptions::default());
        let decoded = decode_document(bytes, &detection);
        assert_eq!(decoded.map.file_len(), bytes.len(), "{rel}");
        assert_eq!(decoded.map.text_len(), decoded.text.len(), "{rel}");
        assert!(
            encode_document(&decoded, &detection) == *bytes,
            "{rel} does not round-trip"
        );
    }
    println!("round-tripped {} corpus files", files.len());
}

/// Each corpus file also round-trips under every encoding, not just the detected one.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn every_corpus_file_round_trips_under_every_encoding() {
    let files = corpus_files();
    for (rel, bytes) in files.iter().filter(|(_, b)| b.len() < 100_000) {
        for &e in Encoding::all() {
            let d = e.decode(bytes);
            let mut back = Vec::new();
            e.encode(&d.text, &mut back).unwrap();
            assert!(back == *bytes, "{rel} under {e}");
            assert_eq!(d.map.file_len(), bytes.len());
        }
    }
}

/// Clean files (whose octets match their `CHAR`) get no mismatch note, and the ones listed here get exactly
/// the notes they deserve.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn mismatch_notes_fire_only_where_the_octets_disagree() {
    let expected: &[(&str, &[&str])] = &[
        // CHAR ASCII with windows-1252 ÆØÅæøå in `2 VERS`.
        (
            "gedinline/src/test/resources/gedcom-files/error-3.ged",
            &[EncodingNote::DECLARED_ENCODING_MISMATCH],
        ),
        // UTF-16 files whose CHAR says ANSEL.
        (
            "gedcom4j/sample/utf16be.ged",
            &[EncodingNote::DECLARED_ENCODING_MISMATCH],
        ),
        (
            "gedcom4j/sample/utf16le.ged",
            &[EncodingNote::DECLARED_ENCODING_MISMATCH],
        ),
    ];
    for (rel, bytes) in corpus_files() {
        let d = detect(&bytes, &DetectOptions::default());
        let want = expected
            .iter()
            .find(|(r, _)| *r == rel)
            .map_or(&[][..], |(_, c)| *c);
        assert_eq!(codes(&d), want, "{rel}: {:#?}", d.notes);
    }
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn error_3_names_windows_1252() {
    let (bytes, d) = detect_file("gedinline/src/test/resources/gedcom-files/error-3.ged");
    assert_eq!(d.used, Encoding::Ascii);
    let note = &d.notes[0];
    assert!(note.message.contains("windows-1252"), "{}", note.message);
    assert_eq!(bytes[note.file_offset], 0xC6);
}

/// Detections the MANIFEST states: BOMs, BOM-less UTF-16 (R-DETECTED-ENC-04), `UNICODE` (R-SPECIFIED-ENC-12),
/// ANSEL, ANSI (R-SPECIFIED-ENC-13), LATIN1 / ISO8859-1, UNICODE in an 8-bit file.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn manifest_detections() {
    use Encoding::*;
    // (file, detected, BOM length, declared, used)
    type Case<'a> = (
        &'a str,
        Option<Encoding>,
        Option<usize>,
        Option<&'a str>,
        Encoding,
    );
    let cases: &[Case] = &[
        (
            "gedcom7code-test-files/5/char_utf16be-1.ged",
            Some(Utf16Be),
            None,
            Some("UNICODE"),
            Utf16Be,
        ),
        (
            "gedcom7code-test-files/5/char_utf16be-2.ged",
            Some(Utf16Be),
            Some(2),
            Some("UNICODE"),
            Utf16Be,
        ),
        (
            "gedcom7code-test-files/5/char_utf16le-1.ged",
            Some(Utf16Le),
            None,
            Some("UNICODE"),
            Utf16Le,
        ),
        (
            "gedcom7code-test-files/5/char_utf16le-2.ged",
            Some(Utf16Le),
            Some(2),
            Some("UNICODE"),
            Utf16Le,
        ),
        (
            "gedcom7code-test-files/5/char_utf8-1.ged",
            None,
            None,
            Some("UTF-8"),
            Utf8,
        ),
        (
            "gedcom7code-test-files/5/char_utf8-2.ged",
            None,
            None,
            Some("UNICODE"),
            Utf8,
        ),
        (
            "gedcom7code-test-files/5/char_utf8-3.ged",
            Some(Utf8),
            Some(3),
            Some("UTF-8"),
            Utf8,
        ),
        (
            "gedcom7code-test-files/5/char_ascii_1.ged",
            None,
            None,
            Some("ASCII"),
            Ascii,
        ),
        (
            "gedcom7code-test-files/5/char_ascii_2.ged",
            None,
            None,
            Some("LATIN1"),
            Windows1252,
        ),
        (
            "gedcom7code-test-files/5/tiny-1.ged",
            None,
            None,
            None,
            Utf8,
        ),
        (
            "gedcom7code-test-files/7/char_ascii_1.ged",
            Some(Utf8),
            Some(3),
            None,
            Utf8,
        ),
        (
            "gedcom4j/sample/willis-unicode-bigendian.ged",
            Some(Utf16Be),
            None,
            Some("UNICODE"),
            Utf16Be,
        ),
        (
            "gedcom4j/sample/willis-unicode-littleendian.ged",
            Some(Utf16Le),
            None,
            Some("UNICODE"),
            Utf16Le,
        ),
        (
            "gedcom4j/sample/unicode-littleendian-crlf.ged",
            Some(Utf16Le),
            None,
            Some("UNICODE"),
            Utf16Le,
        ),
        (
            "gedcom4j/sample/unicode-littleendian-cronly.ged",
            Some(Utf16Le),
            None,
            Some("UNICODE"),
            Utf16Le,
        ),
        (
            "gedcom4j/sample/utf16be.ged",
            Some(Utf16Be),
            Some(2),
            Some("ANSEL"),
            Utf16Be,
        ),
        (
            "gedcom4j/sample/utf16le.ged",
            Some(Utf16Le),
            Some(2),
            Some("ANSEL"),
            Utf16Le,
        ),
        // R-SPECIFIED-ENC-15: a UTF-8 BOM and CHAR ANSEL → ANSEL.
        (
            "gedcom4j/sample/utf8.ged",
            Some(Utf8),
            Some(3),
            Some("ANSEL"),
            Ansel,
        ),
        (
            "gedcom4j/sample/ANSEL.GED",
            None,
            None,
            Some("ANSEL"),
            Ansel,
        ),
        (
            "gedcom4j/sample/TGC551.ged",
            None,
            None,
            Some("ANSEL"),
            Ansel,
        ),
        (
            "gedcom4j/sample/TGC55CLF.ged",
            None,
            None,
            Some("ANSEL"),
            Ansel,
        ),
        (
            "gedcom4j/sample/willis-ansel.ged",
            None,
            None,
            Some("ANSEL"),
            Ansel,
        ),
        (
            "gedcom4j/sample/issue81.ged",
            None,
            None,
            Some("ANSEL"),
            Ansel,
        ),
        (
            "gedcom4j/sample/a31486.ged",
            None,
            None,
            Some("ANSI"),
            Windows1252,
        ),
        (
            "gedcom4j/sample/Issue87.ged",
            None,
            None,
            Some("ANSI"),
            Windows1252,
        ),
        (
            "fastgedcom/test/test_data/in_ansi.ged",
            None,
            None,
            Some("ANSI"),
            Windows1252,
        ),
        (
            "fastgedcom/test/test_data/in_iso8859-1.ged",
            None,
            None,
            Some("ISO8859-1"),
            Windows1252,
        ),
        (
            "fastgedcom/test/test_data/in_ansel.ged",
            None,
            None,
            Some("ANSEL"),
            Ansel,
        ),
        (
            "fastgedcom/test/test_data/in_unicode.ged",
            Some(Utf16Le),
            Some(2),
            Some("UNICODE"),
            Utf16Le,
        ),
        (
            "gedinline/src/test/resources/gedcom-files/encoding-utf-16.ged",
            Some(Utf16Be),
            Some(2),
            Some("UNICODE"),
            Utf16Be,
        ),
        (
            "gedinline/src/test/resources/gedcom-files/encoding-ansel.ged",
            None,
            None,
            Some("ANSEL"),
            Ansel,
        ),
        (
            "gedinline/src/test/resources/gedcom-files/w15.ged",
            None,
            None,
            Some("ANSI"),
            Windows1252,
        ),
        (
            "gedinline/src/test/resources/gedcom-files/empty.ged",
            None,
            None,
            None,
            Utf8,
        ),
        (
            "fhiso-legacy-format/tests/extra-conc.ged",
            None,
            None,
            None,
            Utf8,
        ),
    ];
    for &(rel, detected, bom_len, declared, used) in cases {
        let (_, d) = detect_file(rel);
        assert_eq!(d.detected, detected, "{rel}: detected");
        assert_eq!(d.bom.map(|b| b.len), bom_len, "{rel}: BOM");
        assert_eq!(d.declared.as_deref(), declared, "{rel}: declared");
        assert_eq!(d.used, used, "{rel}: used");
    }
}

/// Characters the corpus ANSEL files describe in their own notes, in ANSEL order and in Unicode order.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn ansel_corpus_characters() {
    let (bytes, d) = detect_file("gedcom4j/sample/ANSEL.GED");
    let text = decode_document(&bytes, &d).text;
    for needle in [
        "slash l - uppercase (\u{141})",
        "slash o - uppercase (\u{D8})",
        "thorn - uppercase (\u{DE})",
        "musical flat (\u{266D})",
        "british pound (\u{A3})",
        "eth (\u{F0})",
        "es zet (\u{DF})",
        "copyright symbol (\u{A9})",
    ] {
        assert!(text.contains(needle), "ANSEL.GED lacks {needle:?}");
    }
    // The acute row: E2 before each letter, decoded in octet order.
    assert!(text.contains("\u{301}A\u{301}B\u{301}C"));

    // TGC551: the LDS midline e and o (CD, CE) stay raw; their table characters are e and o.
    let (bytes, d) = detect_file("gedcom4j/sample/TGC551LF.ged");
    let text = decode_document(&bytes, &d).text;
    let midline_e = format!("midline e - LDS extension ({})", raw::to_char(0xCD));
    assert!(text.contains(&midline_e));
    assert!(
        gedgraft_encoding::ansel::to_unicode_order(&text).contains("midline e - LDS extension (e)")
    );
    assert!(text.contains("copyright symbol (\u{A9})"));
    assert!(text.contains("es zet (\u{DF})"));

    // issue81: French text with grave and acute accents (E1, E2) and a cedilla (F0).
    let (bytes, d) = detect_file("gedcom4j/sample/issue81.ged");
    let unicode = gedgraft_encoding::ansel::to_unicode_order(&decode_document(&bytes, &d).text);
    for word in [
        "Dolore\u{300}s",
        "VACQUE\u{301}",
        "Midi-Pyre\u{301}ne\u{301}es",
        "franc\u{327}aise",
    ] {
        assert!(unicode.contains(word), "issue81 lacks {word:?}");
    }

    // willis-ansel: B2 is ø.
    let (bytes, d) = detect_file("gedcom4j/sample/willis-ansel.ged");
    assert!(decode_document(&bytes, &d).text.contains("Br\u{F8}derbund"));

    // encoding-ansel: B5 æ, B2 ø.
    let (bytes, d) = detect_file("gedinline/src/test/resources/gedcom-files/encoding-ansel.ged");
    let text = decode_document(&bytes, &d).text;
    assert!(text.contains("/M\u{E6}hlum/") && text.contains("/Indst\u{F8}y/"));

    // in_ansel: acute e, grave a, cedilla c.
    let (bytes, d) = detect_file("fastgedcom/test/test_data/in_ansel.ged");
    let unicode = gedgraft_encoding::ansel::to_unicode_order(&decode_document(&bytes, &d).text);
    assert!(unicode.contains("1 NAME e\u{301}a\u{300}c\u{327} /E\u{301}A\u{300}C\u{327}/"));
}

/// R-ENCODINGS-10: the code-page files decode to the characters they mean.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn code_page_corpus_characters() {
    for rel in [
        "fastgedcom/test/test_data/in_ansi.ged",
        "fastgedcom/test/test_data/in_iso8859-1.ged",
    ] {
        let (bytes, d) = detect_file(rel);
        assert!(
            decode_document(&bytes, &d)
                .text
                .contains("1 NAME \u{E9}\u{E0}\u{E7} /\u{C9}\u{C0}\u{C7}/"),
            "{rel}"
        );
    }
    let (bytes, d) = detect_file("gedcom4j/sample/a31486.ged");
    assert!(decode_document(&bytes, &d)
        .text
        .contains("Br\u{F8}derbund WFT"));
    // UTF-16 and UTF-8 versions of the same name.
    for rel in [
        "fastgedcom/test/test_data/in_unicode.ged",
        "fastgedcom/test/test_data/in_utf8.ged",
    ] {
        let (bytes, d) = detect_file(rel);
        assert!(
            decode_document(&bytes, &d)
                .text
                .contains("\u{E9}\u{E0}\u{E7}"),
            "{rel}"
        );
    }
}

/// The source map points a known line of UTF-16 and ANSEL files at its octets.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn source_map_finds_known_lines() {
    for (rel, line) in [
        ("gedcom4j/sample/willis-unicode-littleendian.ged", "0 TRLR"),
        ("gedcom4j/sample/willis-unicode-bigendian.ged", "0 TRLR"),
        (
            "gedcom7code-test-files/5/char_utf16le-2.ged",
            "1 CHAR UNICODE",
        ),
        ("fastgedcom/test/test_data/in_unicode.ged", "2 SURN"),
    ] {
        let (bytes, d) = detect_file(rel);
        let decoded = decode_document(&bytes, &d);
        let at = decoded
            .text
            .rfind(line)
            .unwrap_or_else(|| panic!("{rel}: {line}"));
        let file_at = decoded.map.file_offset(at);
        let mut expected = Vec::new();
        d.used.encode(line, &mut expected).unwrap();
        assert_eq!(
            &bytes[file_at..file_at + expected.len()],
            &expected[..],
            "{rel}"
        );
        assert_eq!(decoded.map.text_offset(file_at), at, "{rel}");
    }
    for (rel, line) in [
        ("gedcom4j/sample/issue81.ged", "2 PLAC Boucau"),
        ("gedcom4j/sample/TGC551.ged", "1 CONT CF es zet"),
        ("gedcom4j/sample/willis-ansel.ged", "0 TRLR"),
    ] {
        let (bytes, d) = detect_file(rel);
        let decoded = decode_document(&bytes, &d);
        let at = decoded
            .text
            .rfind(line)
            .unwrap_or_else(|| panic!("{rel}: {line}"));
        let file_at = decoded.map.file_offset(at);
        let found = bytes
            .windows(line.len())
            .rposition(|w| w == line.as_bytes())
            .unwrap();
        assert_eq!(file_at, found, "{rel}");
        assert_eq!(decoded.map.text_offset(file_at), at, "{rel}");
    }
}

/// Runs always: under CI the corpus and the specs must be there, or the tests above would be ignored unseen.
#[test]
fn shared_data_is_there_under_ci() {
    common::check_shared_data(cfg!(has_corpus), cfg!(has_spec));
}
