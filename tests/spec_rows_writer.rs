//! The writer rows of `requirements.md` (`gedgraft_model::write`), each with the row's own example, and the
//! meta-test for them: every binding writer row is cited by a test or listed in [`KNOWN_WRITER_GAPS`].

use gedgraft_encoding::Encoding;
use gedgraft_model::{
    lower, write, Dataset, DatasetBuilder, LineEnding, LowerOptions, NewStructure, WriteError,
    WriteOptions,
};
use gedgraft_test_support::spec_dir;
use gedgraft_tests::workspace_root;

/// Binding writer rows with no test, each with the reason (the meta-test fails on a stale entry).
const KNOWN_WRITER_GAPS: &[(&str, &str)] = &[];

/// A dataset of one record: `tag` with payload `text` under `INDI @I1@`.
fn one(tag: &str, text: &str) -> Dataset {
    let mut b = DatasetBuilder::new();
    b.record(NewStructure::new("INDI").with_xref("I1"))
        .expect("record");
    b.child(NewStructure::new(tag).with_text(text))
        .expect("child");
    b.finish()
}

/// The output as text (decoded with the options' encoding, BOM dropped) and its lines.
fn written(d: &Dataset, options: &WriteOptions) -> String {
    let octets = write(d, options).expect("writes");
    let text = options.encoding.decode(&octets).text;
    text.strip_prefix('\u{feff}').unwrap_or(&text).to_string()
}

fn utf8(d: &Dataset) -> String {
    written(d, &WriteOptions::default())
}

/// The lowered dataset of octets.
fn reread(octets: &[u8]) -> Dataset {
    let parse = gedgraft_syntax::parse(octets);
    lower(&parse, &LowerOptions::default()).dataset
}

fn narrow(limit: usize) -> WriteOptions {
    WriteOptions::default().with_line_limit(limit)
}

// ELF-2019 R-SERIALISING-01, R-SERIALISING-STRUCTS-01, R-SERIALISATION-META-02 (records in the dataset's order)
#[test]
fn r_serialising_01_r_serialising_structs_01_header_records_in_pre_order_trailer() {
    let mut b = DatasetBuilder::new();
    b.metadata_structure(NewStructure::new("NOTE").with_text("meta"))
        .expect("note");
    b.record(NewStructure::new("INDI").with_xref("I1"))
        .expect("indi");
    b.child(NewStructure::new("NAME").with_text("Bob"))
        .expect("name");
    b.close().expect("close");
    b.child(NewStructure::new("NOTE").with_text("a\nb"))
        .expect("note");
    b.child(NewStructure::new("SOUR").with_text("x"))
        .expect("sour");
    b.close().expect("close");
    b.close().expect("close");
    b.child(NewStructure::new("FAMS").with_pointer("F1"))
        .expect("fams");
    b.record(NewStructure::new("FAM").with_xref("F1"))
        .expect("fam");
    assert_eq!(
        utf8(&b.finish()),
        "0 HEAD\n1 CHAR UTF-8\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 NOTE meta\n\
         0 @I1@ INDI\n1 NAME Bob\n1 NOTE a\n2 CONT b\n2 SOUR x\n1 FAMS @F1@\n0 @F1@ FAM\n0 TRLR\n"
    );
}

#[test]
fn r_serialising_02_conversions_act_as_if_simultaneous() {
    let d = one("NOTE", "a@é");
    let ascii = WriteOptions::default().with_encoding(Encoding::Ascii);
    let out = written(&d, &ascii);
    assert!(out.contains("1 NOTE a@@@#UE9@\n"), "{out}");
    let back = reread(&write(&d, &ascii).expect("writes"));
    let note = back.records().next().and_then(|r| r.child("NOTE"));
    assert_eq!(note.and_then(|n| n.text()), Some("a@é"));
}

#[test]
fn r_serialising_03_r_serialising_structs_15_splits_at_characters_counting_octets() {
    let d = one("NOTE", &"é".repeat(200));
    let octets = write(&d, &WriteOptions::default()).expect("writes");
    for line in octets.split_inclusive(|&b| b == b'\n') {
        assert!(std::str::from_utf8(line).is_ok(), "{line:?}");
        assert!(line.len() <= 255);
    }
    assert!(utf8(&d).contains("2 CONC "), "400 octets are split");
    // 254 ASCII characters plus CR LF is 256 octets: split, though 254 characters would pass a character rule.
    let d = one("NOTE", &"a".repeat(254 - "1 NOTE ".len()));
    let crlf = WriteOptions::default().with_line_ending(LineEnding::CrLf);
    let out = write(&d, &crlf).expect("writes");
    assert!(out.split(|&b| b == b'\n').all(|l| l.len() < 255));
    assert!(written(&d, &crlf).contains("CONC"));
}

// ELF-2019 R-SERIALISING-LINE-STRINGS-01, R-SERIALISING-LINE-STRINGS-02
#[test]
fn r_serialising_line_strings_01_02_one_break_form_and_one_after_the_last_line() {
    let d = DatasetBuilder::new().finish();
    assert_eq!(
        utf8(&d),
        "0 HEAD\n1 CHAR UTF-8\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 TRLR\n"
    );
    let d = one("NOTE", "a\nb\r\nc");
    let out = write(
        &d,
        &WriteOptions::default().with_line_ending(LineEnding::CrLf),
    )
    .expect("writes");
    assert!(out.ends_with(b"0 TRLR\r\n"));
    for (i, &b) in out.iter().enumerate() {
        if b == b'\n' {
            assert_eq!(out.get(i.wrapping_sub(1)), Some(&b'\r'), "lone LF at {i}");
        }
        if b == b'\r' {
            assert_eq!(out.get(i + 1), Some(&b'\n'), "lone CR at {i}");
        }
    }
}

#[test]
fn r_serialising_line_strings_03_r_encoding_01_char_names_the_encoding() {
    let d = one("NOTE", "\u{e9}");
    let ansel = WriteOptions::default().with_encoding(Encoding::Ansel);
    let octets = write(&d, &ansel).expect("writes");
    assert!(written(&d, &ansel).contains("1 CHAR ANSEL\n"));
    assert!(octets.windows(9).any(|w| w == b"1 NOTE \xE2\x65"), "E2 65");
    let be = WriteOptions::default().with_encoding(Encoding::Utf16Be);
    assert!(written(&d, &be).contains("1 CHAR UNICODE\n"));
    assert!(utf8(&d).contains("1 CHAR UTF-8\n"));
}

// ELF-2019 R-SERIALISING-LINE-STRINGS-04, -05, -06, -07, R-ENCODINGS-02
#[test]
fn r_serialising_line_strings_04_to_07_r_encodings_02_defaults_and_byte_order_marks() {
    let d = one("NOTE", "x");
    let default = write(&d, &WriteOptions::default()).expect("writes");
    assert!(std::str::from_utf8(&default).is_ok());
    assert!(
        !default.starts_with(b"\xEF\xBB\xBF"),
        "no BOM in UTF-8 by default"
    );
    let bom = write(&d, &WriteOptions::default().with_bom(true)).expect("writes");
    assert!(bom.starts_with(b"\xEF\xBB\xBF0 HEAD"));
    let utf16 = write(
        &d,
        &WriteOptions::default().with_encoding(Encoding::Utf16Le),
    )
    .expect("writes");
    assert!(utf16.starts_with(b"\xFF\xFE0\x00"));
    let ascii = WriteOptions::default()
        .with_encoding(Encoding::Ascii)
        .with_bom(true);
    assert_eq!(
        write(&d, &ascii),
        Err(WriteError::NoBom {
            encoding: Encoding::Ascii
        })
    );
}

// ELF-2019 R-SERIALISING-STRUCTS-02, R-SERIALISING-STRUCTS-03
#[test]
fn r_serialising_structs_02_03_levels_and_continuation_lines() {
    let mut b = DatasetBuilder::new();
    b.record(NewStructure::new("INDI")).expect("indi");
    b.child(NewStructure::new("BIRT")).expect("birt");
    b.child(NewStructure::new("NOTE").with_text("This is a test\nwith one line break"))
        .expect("note");
    let out = utf8(&b.finish());
    assert!(
        out.contains("2 NOTE This is a test\n3 CONT with one line break\n"),
        "{out}"
    );
    let mut b = DatasetBuilder::new();
    b.record(NewStructure::new("NOTE").with_xref("N1").with_text("a\nb"))
        .expect("note");
    assert!(utf8(&b.finish()).contains("0 @N1@ NOTE a\n1 CONT b\n"));
}

#[test]
fn r_serialising_structs_04_no_structure_is_tagged_cont_or_conc() {
    for tag in ["CONT", "CONC"] {
        let d = one(tag, "x");
        assert!(matches!(
            write(&d, &WriteOptions::default()),
            Err(WriteError::ContinuationTag { .. })
        ));
    }
}

#[test]
fn r_serialising_structs_06_one_cont_per_line_break() {
    assert!(utf8(&one("NOTE", "a\n\nb")).contains("1 NOTE a\n2 CONT\n2 CONT b\n"));
}

#[test]
fn r_serialising_structs_08_lines_within_255_octets_or_510_in_utf_16() {
    let d = one("NOTE", &"abcdefghij".repeat(60));
    let crlf = WriteOptions::default().with_line_ending(LineEnding::CrLf);
    let out = write(&d, &crlf).expect("writes");
    assert!(out.split_inclusive(|&b| b == b'\n').all(|l| l.len() <= 255));
    let utf16 = WriteOptions::default().with_encoding(Encoding::Utf16Le);
    let text = written(&d, &utf16);
    assert!(text.lines().all(|l| 2 * (l.len() + 1) <= 510), "{text}");
    assert!(
        text.lines().any(|l| 2 * (l.len() + 1) > 255),
        "UTF-16 lines use the 510 limit"
    );
}

// ELF-2019 R-SERIALISING-STRUCTS-09, R-SERIALISING-STRUCTS-10, R-SERIALISING-STRUCTS-11
#[test]
fn r_serialising_structs_09_10_11_splits_between_non_space_characters() {
    let d = one("NOTE", &"a ".repeat(300));
    let out = written(&d, &narrow(30));
    let lines: Vec<&str> = out.lines().collect();
    for pair in lines.windows(2) {
        if pair[1].starts_with("2 CONC") {
            assert!(!pair[0].ends_with([' ', '\t']), "{pair:?}");
            assert!(!pair[1].starts_with("2 CONC  "), "{pair:?}");
            assert!(
                !pair[0].ends_with("NOTE"),
                "empty payload before CONC: {pair:?}"
            );
        }
    }
    let d = one("NOTE", "abcdefghijklmnopqrstuvwxyz");
    let out = written(&d, &narrow(12));
    assert!(!out.contains("1 NOTE\n2 CONC"), "{out}");
}

// ELF-2019 R-SERIALISING-STRUCTS-12, R-SERIALISING-STRUCTS-14, R-ESCAPING-02
#[test]
fn r_serialising_structs_12_14_r_escaping_02_at_pairs_and_escapes_stay_whole() {
    for (tag, text) in [
        ("NOTE", "a@b"),
        ("DATE", "@#DJULIAN@ 1540"),
        ("NOTE", "x@@y"),
    ] {
        let d = one(tag, &text.repeat(20));
        for limit in [12, 13, 14, 17, 20] {
            let out = written(&d, &narrow(limit));
            for line in out.lines() {
                assert_eq!(line.matches('@').count() % 2, 0, "{line} in\n{out}");
            }
            if tag == "DATE" {
                assert_eq!(out.matches("@#DJULIAN@").count(), 20, "{out}");
            }
            let back = reread(&write(&d, &narrow(limit)).expect("writes"));
            let child = back.records().next().and_then(|r| r.child(tag));
            assert_eq!(child.and_then(|c| c.text()), Some(text.repeat(20).as_str()));
        }
    }
    assert!(utf8(&one("EMAIL", "name@example.com")).contains("1 EMAIL name@@example.com\n"));
    assert!(utf8(&one("NOTE", "@I1@")).contains("1 NOTE @@I1@@\n"));
    assert!(utf8(&one("NOTE", "@#Dx@")).contains("1 NOTE @@#Dx@@\n"));
    assert!(utf8(&one("NOTE", "a@@b")).contains("1 NOTE a@@@@b\n"));
}

// ELF-2019 R-SERIALISING-LINES-01, R-SERIALISING-LINES-02, R-SERIALISING-LINES-03
#[test]
fn r_serialising_lines_01_02_03_one_space_per_separator_and_bare_pointers() {
    assert!(utf8(&one("NAME", "Bob")).contains("\n1 NAME Bob\n"));
    assert!(utf8(&one("NAME", " Bob")).contains("\n1 NAME  Bob\n"));
    let mut b = DatasetBuilder::new();
    b.record(NewStructure::new("INDI").with_xref("I1"))
        .expect("indi");
    b.child(NewStructure::new("FAMC").with_pointer("F9"))
        .expect("famc");
    b.record(NewStructure::new("FAM").with_xref("F9"))
        .expect("fam");
    let out = utf8(&b.finish());
    assert!(out.contains("\n0 @I1@ INDI\n1 FAMC @F9@\n"), "{out}");
}

#[test]
fn r_serialisation_version_01_r_gedcom_version_01_versions_in_the_header() {
    let ascii = WriteOptions::default().with_encoding(Encoding::Ascii);
    let d = one("NAME", "João");
    let out = written(&d, &ascii);
    assert!(out.contains("1 ELF 1.0.0\n"), "{out}");
    assert!(out.contains("1 NAME Jo@#UE3@o\n"));
    assert!(
        out.contains("1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n"),
        "ELF without SCHMA: GEDC too"
    );
    let plain = utf8(&one("NAME", "Bob"));
    assert!(!plain.contains("ELF"), "{plain}");
    assert!(plain.contains("1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n"));
    // A payload language needs ELF too.
    let mut b = DatasetBuilder::new();
    b.record(
        NewStructure::new("NOTE")
            .with_text("Bonjour")
            .with_lang("fr"),
    )
    .expect("note");
    assert!(utf8(&b.finish()).contains("1 ELF 1.0.0\n"));
}

// ELF-2019 R-UNICODE-ESCAPE-03, R-UNICODE-ESCAPE-05, R-UNICODE-ESCAPE-06, R-ENCODING-02
#[test]
fn r_unicode_escape_03_05_06_r_encoding_02_escapes_only_where_needed() {
    let ascii = WriteOptions::default().with_encoding(Encoding::Ascii);
    assert!(written(&one("NAME", "\u{11f}"), &ascii).contains("1 NAME @#U11F@\n"));
    let ansel = WriteOptions::default().with_encoding(Encoding::Ansel);
    let d = one("NOTE", "☺ 𠀡");
    assert!(written(&d, &ansel).contains("1 NOTE @#U263A@ @#U20021@\n"));
    let back = reread(&write(&d, &ansel).expect("writes"));
    assert_eq!(
        back.records()
            .next()
            .and_then(|r| r.child("NOTE"))
            .and_then(|n| n.text()),
        Some("☺ 𠀡")
    );
    let out = write(&one("NAME", "João"), &WriteOptions::default()).expect("writes");
    assert!(
        out.windows(2).any(|w| w == b"\xC3\xA3"),
        "no escape in UTF-8"
    );
}

#[test]
fn r_encodings_05_no_cesu_8() {
    let out = write(&one("NOTE", "𠀡"), &WriteOptions::default()).expect("writes");
    assert!(out.windows(4).any(|w| w == b"\xF0\xA0\x80\xA1"));
    assert!(!out.contains(&0xED));
}

// ELF-2019 R-ESCAPE-PRES-02, R-ESCAPE-PRES-03, R-ESCAPE-SEQ-06, R-ENCODING-AT-01
#[test]
fn r_escape_pres_02_03_r_escape_seq_06_r_encoding_at_01_date_keeps_d_escapes() {
    assert!(utf8(&one("DATE", "ABT @#DJULIAN@ 1540")).contains("1 DATE ABT @#DJULIAN@ 1540\n"));
    assert!(utf8(&one("NOTE", "ABT @#DJULIAN@ 1540")).contains("1 NOTE ABT @@#DJULIAN@@ 1540\n"));
    assert!(utf8(&one("NOTE", "a@#XQ@b")).contains("1 NOTE a@@#XQ@@b\n"));
    assert!(utf8(&one("DATE", "@#XQ@")).contains("1 DATE @@#XQ@@\n"));
}

// ELF-2019 R-POINTER-CONV-08, R-POINTER-CONV-09, R-SPECIFIED-ENC-17, R-SERIALISATION-META-01, R-SERIALISATION-META-03
#[test]
fn r_pointer_conv_08_09_r_specified_enc_17_r_serialisation_meta_01_03_header_and_trailer() {
    let mut b = DatasetBuilder::new();
    b.metadata_structure(NewStructure::new("NOTE").with_text("n"))
        .expect("note");
    b.record(NewStructure::new("INDI")).expect("indi");
    b.child(NewStructure::new("FAMC").with_pointer("F2"))
        .expect("famc");
    b.record(NewStructure::new("FAM").with_xref("F2"))
        .expect("fam");
    let out = utf8(&b.finish());
    assert!(out.starts_with("0 HEAD\n1 CHAR UTF-8\n"), "{out}");
    assert!(out.contains("1 NOTE n\n0 INDI\n1 FAMC @F2@\n"), "{out}");
    assert!(out.ends_with("\n0 TRLR\n"));
    assert_eq!(out.matches("1 CHAR").count(), 1);
    assert!(!out.contains("@ HEAD") && !out.contains("@ CHAR") && !out.contains("@ TRLR"));
}

#[test]
fn r_line_strings_08_r_conventions_03_no_leading_whitespace_or_blank_lines() {
    let d = one("NOTE", "\n\n  x\t\n\n");
    for options in [WriteOptions::default(), narrow(12)] {
        let out = written(&d, &options);
        assert!(
            !out.contains("\n\n") && !out.starts_with([' ', '\t']),
            "{out:?}"
        );
        assert!(out.lines().all(|l| !l.starts_with([' ', '\t'])), "{out:?}");
        // Every line is a `Line`: the output reads back with no diagnostic at all.
        let parse = gedgraft_syntax::parse(out.as_bytes());
        assert!(parse.diagnostics().is_empty(), "{:?}", parse.diagnostics());
    }
}

/// The binding writer rows of `requirements.md` (level MUST, MUST NOT, SHALL, SHALL NOT, REQUIRED or DEF).
fn binding_writer_rows(markdown: &str) -> Vec<String> {
    const BINDING: &[&str] = &["MUST", "MUST NOT", "SHALL", "SHALL NOT", "REQUIRED", "DEF"];
    markdown
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.strip_prefix('|')?.split('|').map(str::trim).collect();
            let (id, level, applies) = (*cells.first()?, *cells.get(1)?, *cells.get(2)?);
            (id.starts_with("R-") && BINDING.contains(&level) && applies == "writer")
                .then(|| id.to_string())
        })
        .collect()
}

/// Whether this file cites `id` in a test name (`r_serialising_02_…`) or a comment.
fn cited(source: &str, id: &str) -> bool {
    let snake = id.to_lowercase().replace('-', "_");
    let bounded = |text: &str, needle: &str| {
        text.match_indices(needle)
            .any(|(i, _)| !text[i + needle.len()..].starts_with(|c: char| c.is_ascii_digit()))
    };
    bounded(source, &snake) || bounded(source, id)
}

#[test]
#[cfg_attr(
    not(has_spec),
    ignore = "specs missing: see README, Tests and the corpus"
)]
fn r_conventions_01_every_binding_writer_row_is_cited_by_a_writer_test() {
    let path = spec_dir().join("requirements.md");
    let markdown = std::fs::read_to_string(&path).expect("requirements.md");
    let rows = binding_writer_rows(&markdown);
    assert!(rows.len() > 30, "only {} writer rows", rows.len());
    let mut sources = String::new();
    for file in [
        "tests/spec_rows_writer.rs",
        "crates/gedgraft-model/tests/write_round_trip.rs",
        "crates/gedgraft-model/src/write/text.rs",
    ] {
        sources.push_str(&std::fs::read_to_string(workspace_root().join(file)).expect(file));
    }
    // Only the gap table and below names rows without testing them.
    let tests_only = sources.replacen(
        sources
            .split("const KNOWN_WRITER_GAPS")
            .nth(1)
            .and_then(|rest| rest.split("];").next())
            .unwrap_or(""),
        "",
        1,
    );
    let gaps: Vec<&str> = KNOWN_WRITER_GAPS.iter().map(|(id, _)| *id).collect();
    let missing: Vec<&String> = rows
        .iter()
        .filter(|id| !cited(&tests_only, id) && !gaps.contains(&id.as_str()))
        .collect();
    assert!(missing.is_empty(), "writer rows no test cites: {missing:?}");
    let stale: Vec<&&str> = gaps.iter().filter(|id| cited(&tests_only, id)).collect();
    assert!(
        stale.is_empty(),
        "KNOWN_WRITER_GAPS entries that are cited now: {stale:?}"
    );
}

/// R-POINTER-CONV-03 ("merging two inputs that both use `@I1@` -> one of them is renamed"): the first keeps
/// `I1`, the later one gets a fresh id no structure uses (`I1_2` is taken here, so `I1_3`); the pointer keeps
/// naming `I1`, the first, as the lowering resolves it.
#[test]
fn r_pointer_conv_03_duplicate_identifiers_are_renamed() {
    let d = reread(b"0 HEAD\n0 @I1@ INDI\n1 NAME A\n0 @I1@ INDI\n1 NAME B\n0 @I1_2@ NOTE x\n0 @F1@ FAM\n1 HUSB @I1@\n0 TRLR\n");
    let text = utf8(&d);
    assert!(text.contains("0 @I1@ INDI\n1 NAME A\n"), "{text}");
    assert!(text.contains("0 @I1_3@ INDI\n1 NAME B\n"), "{text}");
    assert!(text.contains("0 @I1_2@ NOTE x\n"), "{text}");
    assert!(text.contains("1 HUSB @I1@\n"), "{text}");
    let again = reread(text.as_bytes());
    let ids: Vec<&str> = again.iter().filter_map(|s| s.xref()).collect();
    let distinct: std::collections::HashSet<&str> = ids.iter().copied().collect();
    assert_eq!(ids.len(), distinct.len(), "{ids:?}");
}

/// R-POINTER-CONV-01 ("CHIL points to an INDI that has no id -> `0 @I1@ INDI`, `1 CHIL @I1@`"): the model
/// cannot express that case: a pointer is built from the identifier it names (`with_pointer("I1")`), so
/// its target holds one by construction; the writer writes both with it.
#[test]
fn r_pointer_conv_01_a_pointed_at_structure_is_written_with_its_id() {
    let mut b = DatasetBuilder::new();
    b.record(NewStructure::new("INDI").with_xref("I1"))
        .expect("record");
    b.record(NewStructure::new("FAM").with_xref("F1"))
        .expect("record");
    b.child(NewStructure::new("CHIL").with_pointer("I1"))
        .expect("child");
    let text = utf8(&b.finish());
    assert!(text.contains("0 @I1@ INDI\n"), "{text}");
    assert!(text.contains("1 CHIL @I1@\n"), "{text}");
}
