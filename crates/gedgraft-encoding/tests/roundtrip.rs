//! Property tests of the core contract, for every codec: arbitrary octets decode and encode back to themselves,
//! the source map agrees with the octets, and every piece of decoded text cut on character boundaries encodes
//! to exactly the octets it came from (per-token bijectivity). 10 500 cases of arbitrary octets in all.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use gedgraft_encoding::{ansel, decode_document, detect, raw, DetectOptions, Encoding};
use proptest::prelude::*;

/// Octets that mix ASCII, high octets and the octets that matter to each codec (NUL, surrogates, CESU-8,
/// UTF-8 lead bytes, ANSEL diacritics).
fn octets() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => any::<u8>().prop_map(|b| vec![b]),
        3 => (0x20u8..0x7F).prop_map(|b| vec![b]),
        1 => Just(vec![0]),
        1 => prop::sample::select(vec![
            b"\xED\xA0\x80\xED\xB0\x80".to_vec(),
            b"\xF4\x8F\xBC\x80".to_vec(),
            b"\xC3\xA9".to_vec(),
            b"\xF0\xA0\x80\xA1".to_vec(),
            b"\x00\xD8\x00\xDC".to_vec(),
            b"\xD8\x00\xDC\x00".to_vec(),
            b"\xFF\xDB\xFF\xDF".to_vec(),
            b"\xDB\xFF\xDF\xFF".to_vec(),
            b"\xE2e".to_vec(),
            b"\xE0\xE9\xF1\xFC\xE8\xF7e".to_vec(),
            b"\xCD\xCE\xF8\xC7".to_vec(),
            b"\r\n".to_vec(),
        ]),
    ];
    prop::collection::vec(piece, 0..96).prop_map(|v| v.concat())
}

/// Checks the whole contract for one encoding and one octet sequence; `cuts` are split points, taken modulo
/// the number of characters.
fn check_contract(e: Encoding, bytes: &[u8], cuts: &[usize]) -> Result<(), TestCaseError> {
    let d = e.decode(bytes);
    prop_assert_eq!(d.map.file_len(), bytes.len());
    prop_assert_eq!(d.map.text_len(), d.text.len());
    let mut back = Vec::new();
    prop_assert!(e.encode(&d.text, &mut back).is_ok());
    prop_assert_eq!(&back, bytes);

    // Character by character: each encodes to its own octets, and the map knows where they are.
    let mut at = 0;
    for (i, c) in d.text.char_indices() {
        prop_assert_eq!(
            d.map.file_offset(i),
            at,
            "{} file offset of text offset {}",
            e,
            i
        );
        prop_assert_eq!(
            d.map.text_offset(at),
            i,
            "{} text offset of file offset {}",
            e,
            at
        );
        let mut one = Vec::new();
        prop_assert!(e.encode(c.encode_utf8(&mut [0; 4]), &mut one).is_ok());
        prop_assert_eq!(
            &one[..],
            &bytes[at..at + one.len()],
            "{} character {:?} at {}",
            e,
            c,
            i
        );
        at += one.len();
    }
    prop_assert_eq!(at, bytes.len());

    // Random tokens.
    let bounds: Vec<usize> = d
        .text
        .char_indices()
        .map(|(i, _)| i)
        .chain([d.text.len()])
        .collect();
    let mut points: Vec<usize> = cuts.iter().map(|c| bounds[c % bounds.len()]).collect();
    points.extend([0, d.text.len()]);
    points.sort_unstable();
    points.dedup();
    let mut joined = Vec::new();
    for w in points.windows(2) {
        let token = &d.text[w[0]..w[1]];
        let mut piece = Vec::new();
        prop_assert!(e.encode(token, &mut piece).is_ok());
        prop_assert_eq!(
            &piece[..],
            &bytes[d.map.file_offset(w[0])..d.map.file_offset(w[1])]
        );
        joined.extend(piece);
    }
    prop_assert_eq!(&joined, bytes);
    Ok(())
}

fn single_byte_encodings() -> Vec<Encoding> {
    Encoding::all()
        .iter()
        .copied()
        .filter(|e| !matches!(e, Encoding::Utf8 | Encoding::Utf16Le | Encoding::Utf16Be))
        .collect()
}

/// The characters an encoding decodes some octet to (its repertoire, raw octets aside).
fn repertoire(e: Encoding) -> Vec<char> {
    let mut out: Vec<char> = (0..=255u8)
        .filter_map(|b| {
            let t = e.decode(&[b]).text;
            let mut cs = t.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) if !raw::is_raw(c) => Some(c),
                _ => None,
            }
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(2_500) })]

    /// R-ENCODINGS-04, -06: UTF-8 with invalid sequences, CESU-8 and raw-range characters.
    #[test]
    fn utf8_octets_round_trip(bytes in octets(), cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        check_contract(Encoding::Utf8, &bytes, &cuts)?;
    }

    /// The ANSEL codec, per octet (R-ANSEL-01, -02).
    #[test]
    fn ansel_octets_round_trip(bytes in octets(), cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        check_contract(Encoding::Ansel, &bytes, &cuts)?;
    }

    /// Every Windows, ISO, Mac and IBM code page, and ASCII.
    #[test]
    fn single_byte_octets_round_trip(
        index in 0usize..64,
        bytes in octets(),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let all = single_byte_encodings();
        check_contract(all[index % all.len()], &bytes, &cuts)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(1_500) })]

    /// R-ENCODINGS-06: UTF-16LE with lone surrogates, odd lengths and raw-range characters.
    #[test]
    fn utf16le_octets_round_trip(bytes in octets(), cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        check_contract(Encoding::Utf16Le, &bytes, &cuts)?;
    }

    /// R-ENCODINGS-06: UTF-16BE likewise.
    #[test]
    fn utf16be_octets_round_trip(bytes in octets(), cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        check_contract(Encoding::Utf16Be, &bytes, &cuts)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(1_000) })]

    /// Text in the Unicode encodings' repertoire (everything but the raw range) encodes, then decodes to itself.
    #[test]
    fn unicode_text_round_trips(text in any::<String>()) {
        let text: String = text.chars().filter(|c| !raw::is_raw(*c)).collect();
        for e in [Encoding::Utf8, Encoding::Utf16Le, Encoding::Utf16Be] {
            let mut out = Vec::new();
            prop_assert!(e.encode(&text, &mut out).is_ok());
            prop_assert_eq!(&e.decode(&out).text, &text);
        }
    }

    /// Text in a single-byte encoding's repertoire encodes, then decodes to itself; a character outside it fails
    /// with its offset.
    #[test]
    fn single_byte_text_round_trips(index in 0usize..64, picks in prop::collection::vec(any::<usize>(), 0..64)) {
        let all = single_byte_encodings();
        let e = all[index % all.len()];
        let rep = repertoire(e);
        let text: String = picks.iter().map(|p| rep[p % rep.len()]).collect();
        let mut out = Vec::new();
        prop_assert!(e.encode(&text, &mut out).is_ok());
        prop_assert_eq!(out.len(), text.chars().count());
        prop_assert_eq!(&e.decode(&out).text, &text);
        for (i, c) in text.char_indices() {
            prop_assert!(e.can_encode(c));
            let _ = i;
        }
        let bad = format!("{text}\u{1F600}");
        let err = e.encode(&bad, &mut Vec::new()).unwrap_err();
        prop_assert_eq!(err.offset, text.len());
        prop_assert_eq!(err.character, '\u{1F600}');
    }

    /// `to_ansel_order` undoes `to_unicode_order`: converting to Unicode order is the same before and after a
    /// trip through ANSEL order. (The text ends with a letter: diacritics with no letter after them have no
    /// defined place.)
    #[test]
    fn ansel_reordering_is_consistent(bytes in octets()) {
        let text = Encoding::Ansel.decode(&[&bytes[..], b"x"].concat()).text;
        let unicode = ansel::to_unicode_order(&text);
        prop_assert_eq!(ansel::to_unicode_order(&ansel::to_ansel_order(&unicode)), unicode.clone());
        prop_assert_eq!(unicode.chars().count(), text.chars().count());
    }

    /// Detection never panics, and the document it describes round-trips, whatever follows a header.
    #[test]
    fn detected_documents_round_trip(
        header in prop::sample::select(vec![
            &b""[..], b"0 HEAD\n1 CHAR ANSEL\n", b"0 HEAD\n1 CHAR UTF-8\n", b"0 HEAD\r\n1 CHAR ANSI\r\n2 VERS 1250\r\n",
            b"\xEF\xBB\xBF0 HEAD\n1 CHAR ASCII\n", b"\xFF\xFE0\x00 \x00H\x00", b"\xFE\xFF\x000", b"0\x00", b"\x000",
            b"0 HEAD\n1 CHAR UNICODE\n", b"0 HEAD\n1 CHAR IBMPC\n", b"0 HEAD\n1 CHAR WHATEVER\n",
        ]),
        bytes in octets(),
        force in prop::option::of(0usize..32),
    ) {
        let file = [header, &bytes[..]].concat();
        let force = force.and_then(|i| Encoding::all().get(i).copied());
        let d = detect(&file, &DetectOptions { force, ..DetectOptions::default() });
        if let Some(f) = force {
            prop_assert_eq!(d.used, f);
        }
        for note in &d.notes {
            prop_assert!(note.file_offset <= file.len());
        }
        let decoded = decode_document(&file, &d);
        prop_assert_eq!(decoded.map.file_len(), file.len());
        let mut out = Vec::new();
        let mut text = decoded.text.as_str();
        if let Some(bom) = d.bom {
            text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
            bom.encoding.encode("\u{FEFF}", &mut out).unwrap();
        }
        prop_assert!(d.used.encode(text, &mut out).is_ok());
        prop_assert_eq!(out, file);
    }
}
