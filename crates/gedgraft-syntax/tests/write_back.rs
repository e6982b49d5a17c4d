//! Write back on several threads gives the same octets as on one, for every encoding.

use gedgraft_syntax::encoding::{raw, Encoding};
use gedgraft_syntax::rowan::{GreenNode, GreenToken, NodeOrToken};
use gedgraft_syntax::{parse, write_green, write_green_threads, Parse, SyntaxKind};
use proptest::prelude::*;

/// A file of `records` individuals, in UTF-8 text (encoded by the caller).
fn sample_text(records: usize) -> String {
    let mut text = String::from("0 HEAD\n1 GEDC\n2 VERS 5.5.1\n");
    for i in 0..records {
        text.push_str(&format!(
            "0 @I{i}@ INDI\n1 NAME José /Müller{i}/\n1 NOTE a@@b @#DGREGORIAN@ line\n2 CONT more\n2 CONC  text\n\
             1 BIRT\n2 DATE 1 JAN 19{:02}\n2 PLAC Zoë\n1 FAMS @F{i}@\n",
            i % 100
        ));
    }
    text.push_str("0 TRLR\n");
    text
}

/// Octets of `text` in `encoding`, with a `CHAR` line naming it.
fn encoded(text: &str, encoding: Encoding, bom: bool) -> Vec<u8> {
    let text = text.replacen(
        "0 HEAD\n",
        &format!("0 HEAD\n1 CHAR {}\n", encoding.name()),
        1,
    );
    let mut out = Vec::new();
    if bom {
        encoding.encode("\u{FEFF}", &mut out).expect("BOM");
    }
    encoding.encode(&text, &mut out).expect("encodable");
    out
}

/// Every way of writing `p` gives `expected`.
fn assert_all_writes(p: &Parse, expected: &[u8]) {
    let bom = p.detection().bom.map(|b| b.encoding);
    let mut sequential = Vec::new();
    write_green(p.green(), p.encoding(), bom, &mut sequential).expect("write_green");
    assert!(sequential == expected, "write_green differs");
    assert!(
        p.to_bytes().expect("to_bytes") == expected,
        "to_bytes differs"
    );
    for threads in 0..=7 {
        let out = p.to_bytes_threads(threads).expect("to_bytes_threads");
        assert!(out == expected, "{threads} threads differ");
    }
}

#[test]
fn utf8_with_raw_octets_on_many_threads() {
    let mut octets = encoded(&sample_text(40), Encoding::Utf8, false);
    // Undecodable octets in several records, so that several ranges come out shorter than their text.
    let mut at = 0;
    for _ in 0..6 {
        let Some(i) = octets[at..].windows(4).position(|w| w == b"Jos\xC3") else {
            break;
        };
        at += i + 3;
        octets.splice(at..at + 2, [0xE9, 0xFF, 0x80]);
    }
    let p = parse(&octets);
    assert!(p
        .syntax()
        .descendants_with_tokens()
        .any(|e| e.kind() == SyntaxKind::Raw));
    assert_all_writes(&p, &octets);
}

#[test]
fn utf8_bom_on_many_threads() {
    let octets = encoded(&sample_text(25), Encoding::Utf8, true);
    let p = parse(&octets);
    assert!(p.detection().bom.is_some());
    assert_all_writes(&p, &octets);
}

#[test]
fn utf16_on_many_threads() {
    for encoding in [Encoding::Utf16Le, Encoding::Utf16Be] {
        for bom in [true, false] {
            let mut octets = encoded(&sample_text(30), encoding, bom);
            // A lone surrogate and an odd trailing octet stay raw.
            if encoding == Encoding::Utf16Le {
                octets.extend_from_slice(&[0x00, 0xD8, 0x41]);
            } else {
                octets.extend_from_slice(&[0xD8, 0x00, 0x41]);
            }
            let p = parse(&octets);
            assert_eq!(p.encoding(), encoding);
            assert_all_writes(&p, &octets);
        }
    }
}

#[test]
fn single_byte_encodings_on_many_threads() {
    for encoding in [
        Encoding::Windows1252,
        Encoding::Windows1250,
        Encoding::Ibm437,
    ] {
        let octets = encoded(&sample_text(30), encoding, false);
        let p = parse(&octets);
        assert_eq!(p.encoding(), encoding);
        assert_all_writes(&p, &octets);
    }
}

#[test]
fn ansel_on_many_threads() {
    let mut text = String::from("0 HEAD\n1 CHAR ANSEL\n");
    let mut octets = text.clone().into_bytes();
    for i in 0..30 {
        text = format!("0 @I{i}@ INDI\n1 NAME Jos");
        octets.extend_from_slice(text.as_bytes());
        // A combining acute before its letter, then octets that stay raw (CD, CE, FF).
        octets.extend_from_slice(b"\xE2e /M\xE8uller/\n1 NOTE \xF8c \xCD \xCE \xFF\n");
    }
    octets.extend_from_slice(b"0 TRLR\n");
    let p = parse(&octets);
    assert_eq!(p.encoding(), Encoding::Ansel);
    assert_all_writes(&p, &octets);
}

#[test]
fn large_tree_is_written_on_all_cores_with_the_same_octets() {
    // Over 2 MB: `to_bytes` and `write_green` take the parallel path by themselves.
    let mut octets = encoded(&sample_text(30_000), Encoding::Utf8, false);
    octets.extend_from_slice(b"0 NOTE \xFF\n");
    assert!(octets.len() > 3 << 20);
    let p = parse(&octets);
    let mut appended = b"prefix".to_vec();
    write_green(p.green(), Encoding::Utf8, None, &mut appended).expect("write_green");
    assert!(appended[..6] == *b"prefix" && appended[6..] == octets[..]);
    assert!(p.to_bytes().expect("to_bytes") == octets);
    assert!(p.to_bytes_threads(1).expect("one thread") == octets);
    assert!(p.to_bytes_threads(3).expect("three threads") == octets);
}

/// A `0 NOTE text` record, as an editor would build it.
fn note_record(text: &str) -> NodeOrToken<GreenNode, GreenToken> {
    let token =
        |kind: SyntaxKind, text: &str| NodeOrToken::Token(GreenToken::new(kind.into(), text));
    NodeOrToken::Node(GreenNode::new(
        SyntaxKind::Record.into(),
        [
            token(SyntaxKind::Level, "0"),
            token(SyntaxKind::Delimiter, " "),
            token(SyntaxKind::Tag, "NOTE"),
            token(SyntaxKind::PayloadSep, " "),
            token(SyntaxKind::Text, text),
            token(SyntaxKind::LineBreak, "\n"),
        ],
    ))
}

#[test]
fn unencodable_characters_are_reported_from_every_thread() {
    let octets = encoded(&sample_text(30), Encoding::Windows1252, false);
    let p = parse(&octets);
    let children = p.green().children().len();
    // Two bad records, in different ranges: the first in document order is reported.
    let tree = p
        .green()
        .insert_child(children - 1, note_record("late \u{263A}"))
        .insert_child(children / 2, note_record("mid \u{2603}"));
    let mut sequential = Vec::new();
    let expected =
        write_green(&tree, Encoding::Windows1252, None, &mut sequential).expect_err("unencodable");
    assert_eq!(expected.character, '\u{2603}');
    assert_eq!(expected.encoding, Encoding::Windows1252);
    // What comes before the failing token is written.
    assert!(sequential.starts_with(&octets[..100]));
    assert!(sequential.ends_with(b"0 NOTE ") || sequential.ends_with(b"0 NOTE mid "));
    for threads in 0..=7 {
        let err = write_green_threads(&tree, Encoding::Windows1252, None, threads)
            .expect_err("unencodable");
        assert_eq!(err, expected, "{threads} threads");
    }
    // In UTF-8 nothing is unencodable; raw characters become their octets in RAW tokens only.
    let utf8 = parse(b"0 HEAD\n0 TRLR\n");
    let raw_char = raw::to_char(0xFF);
    let raw_record = NodeOrToken::Node(GreenNode::new(
        SyntaxKind::Record.into(),
        [
            NodeOrToken::Token(GreenToken::new(
                SyntaxKind::Raw.into(),
                &raw_char.to_string(),
            )),
            NodeOrToken::Token(GreenToken::new(SyntaxKind::Text.into(), "\u{263A}")),
            NodeOrToken::Token(GreenToken::new(SyntaxKind::LineBreak.into(), "\n")),
        ],
    ));
    let tree = utf8.green().insert_child(1, raw_record);
    let mut one = Vec::new();
    write_green(&tree, Encoding::Utf8, None, &mut one).expect("UTF-8 writes everything");
    assert_eq!(one, b"0 HEAD\n\xFF\xE2\x98\xBA\n0 TRLR\n");
    for threads in 0..=3 {
        assert_eq!(
            write_green_threads(&tree, Encoding::Utf8, None, threads).expect("UTF-8"),
            one
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn arbitrary_bytes_write_the_same_on_any_number_of_threads(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
        threads in 0usize..6,
    ) {
        let p = parse(&bytes);
        prop_assert_eq!(p.to_bytes_threads(threads).expect("octets"), bytes.clone());
        let mut sequential = Vec::new();
        write_green(p.green(), p.encoding(), p.detection().bom.map(|b| b.encoding), &mut sequential)
            .expect("octets");
        prop_assert_eq!(sequential, bytes);
    }

    #[test]
    fn line_soup_writes_the_same_on_any_number_of_threads(
        lines in proptest::collection::vec(
            ("[0-3]", "( @[A-Z][0-9]@)?", " [A-Z]{1,4}", "( [a-zé@#\u{FF}]{0,8})?", prop_oneof![Just("\n"), Just("\r\n"), Just("\r")]),
            0..60,
        ),
        encoding in prop_oneof![Just(Encoding::Utf8), Just(Encoding::Utf16Le), Just(Encoding::Ansel), Just(Encoding::Windows1252)],
        threads in 2usize..6,
    ) {
        let mut text = String::new();
        for (level, xref, tag, payload, brk) in lines {
            text.push_str(&format!("{level}{xref}{tag}{payload}{brk}"));
        }
        let mut octets = Vec::new();
        // Characters the encoding lacks are left out.
        let text: String = text.chars().filter(|&c| encoding.can_encode(c)).collect();
        encoding.encode(&text, &mut octets).expect("encodable");
        let p = gedgraft_syntax::parse_with(&octets, &gedgraft_syntax::ParseOptions::default().with_encoding(encoding).with_threads(1));
        prop_assert_eq!(p.to_bytes_threads(threads).expect("octets"), octets.clone());
        prop_assert_eq!(p.to_bytes_threads(1).expect("octets"), octets);
    }
}
