//! The examples of the 2019 draft (`elf-serialisation-2019-12-11.md`) and the test ideas of `requirements.md`
//! that concern lowering, one test per requirement ID.

mod common;

use common::*;
use gedgraft_model::{codes as c, LowerOptions, Payload, Version};
use gedgraft_syntax::codes as sc;

// ----- Overview, first pass, records -----

#[test]
fn r_first_pass_03_overview_example() {
    let (p, l) = lowered(
        b"0 HEAD\n1 CHAR UTF-8\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 ELF 1.0.0\n0 INDI\n1 NAME Charlemagne\n0 TRLR\n",
    );
    assert!(p.diagnostics().is_empty(), "{:?}", p.diagnostics());
    assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
    let m = &l.dataset.metadata;
    assert_eq!(
        m.gedcom_version.map(|v| v.to_string()).as_deref(),
        Some("5.5.1")
    );
    assert_eq!(m.gedcom_form.as_deref(), Some("LINEAGE-LINKED"));
    assert_eq!(
        m.elf_version.map(|v| v.to_string()).as_deref(),
        Some("1.0.0")
    );
    assert!(m.other.is_empty() && m.schemas.is_empty());
    let records: Vec<_> = l.dataset.records().map(|r| r.tag().to_string()).collect();
    assert_eq!(records, ["INDI"], "HEAD is metadata, TRLR is discarded");
    let indi = record(&l.dataset, "INDI");
    assert_eq!(indi.line(), Some(7));
    assert_eq!(
        indi.child("NAME").and_then(|n| n.text()),
        Some("Charlemagne")
    );
}

#[test]
fn r_first_pass_03_nested_substructures() {
    let (_, l) = body("0 @I1@ INDI\n1 NAME Elizabeth\n1 BIRT\n2 DATE 21 APR 1926");
    let indi = l.dataset.record_by_xref("I1").expect("I1");
    let tags: Vec<_> = indi.children().map(|c| c.tag()).collect();
    assert_eq!(tags, ["NAME", "BIRT"]);
    let birt = indi.child("BIRT").expect("BIRT");
    assert_eq!(birt.payload(), None, "R-PAYLOADS-02: no payload");
    assert_eq!(
        birt.child("DATE").and_then(|d| d.text()),
        Some("21 APR 1926")
    );
    assert_eq!(
        birt.child("DATE").and_then(|d| d.parent()).map(|p| p.id()),
        Some(birt.id())
    );
}

#[test]
fn r_first_pass_01_string_payload_is_und() {
    let (_, l) = body("0 NAME Bob");
    let Some(Payload::Text(t)) = record(&l.dataset, "NAME").payload() else {
        panic!("no text payload")
    };
    assert_eq!((t.text, t.lang, t.datatype), ("Bob", "und", None));
}

#[test]
fn r_tagged_structs_03_04_records_and_trailer() {
    let (_, l) = body("0 @I1@ INDI\n1 NAME A\n0 @I2@ INDI");
    let xrefs: Vec<_> = l.dataset.records().map(|r| r.xref()).collect();
    assert_eq!(xrefs, [Some("I1"), Some("I2")]);
    assert_eq!(l.dataset.records_with_tag("TRLR").count(), 0);
    assert!(l.diagnostics.is_empty());
}

#[test]
fn r_tagged_structs_05_missing_trailer_is_the_syntax_layers() {
    let (p, l) = lowered(b"0 HEAD\n0 @I1@ INDI\n");
    assert!(syntax_codes(&p).contains(&sc::MISSING_TRAILER));
    assert!(
        l.diagnostics.is_empty(),
        "not repeated: {:?}",
        l.diagnostics
    );
    assert_eq!(l.dataset.records().count(), 1);
}

#[test]
fn r_tagged_structs_06_final_trailer_is_never_misplaced() {
    let (_, l) = body("0 NOTE x");
    assert!(l.diagnostics.is_empty());
}

#[test]
fn r_overview_01_pointer_links_records() {
    let (_, l) = body("0 @F1@ FAM\n1 CHIL @I1@\n0 @I1@ INDI");
    let chil = record(&l.dataset, "FAM").child("CHIL").expect("CHIL");
    let target = chil.target().expect("resolved");
    assert_eq!((target.tag(), target.xref()), ("INDI", Some("I1")));
    assert_eq!(chil.pointer().map(|p| p.undefined), Some(false));
    assert!(l.diagnostics.is_empty());
}

#[test]
fn r_payloads_02_omitted_and_empty_payloads_are_the_same() {
    let (_, a) = body("0 BIRT");
    let (_, b) = body("0 BIRT ");
    let pa = record(&a.dataset, "BIRT").payload();
    let pb = record(&b.dataset, "BIRT").payload();
    assert_eq!(pa, None);
    assert_eq!(pa, pb);
}

#[test]
fn r_payloads_03_pointer_or_string() {
    let (_, l) = body("0 @F2@ FAM\n0 X\n1 FAMC  @F2@ \n1 NOTE @F2@x\n1 NOTE @#DJULIAN@\n1 NOTE @@");
    let x = record(&l.dataset, "X");
    let kids: Vec<_> = x.children().collect();
    assert_eq!(kids[0].pointer().map(|p| p.target), Some("F2"));
    assert_eq!(kids[1].text(), Some("@F2@x"));
    assert_eq!(kids[2].text(), Some("@#DJULIAN@"));
    assert_eq!(kids[3].text(), Some("@"));
}

// ----- Header metadata -----

#[test]
fn r_header_02_serialisation_metadata_is_removed() {
    let (_, l) = lowered(
        b"0 HEAD\n1 CHAR UTF-8\n1 ELF 1.0\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 NOTE keep\n0 TRLR\n",
    );
    let other: Vec<_> = l
        .dataset
        .metadata_structures()
        .map(|s| (s.tag().to_string(), s.text().map(str::to_string)))
        .collect();
    assert_eq!(other, [("NOTE".to_string(), Some("keep".to_string()))]);
    assert!(l.diagnostics.is_empty());
}

#[test]
fn r_header_03_gedc_not_ged() {
    let (_, l) = lowered(b"0 HEAD\n1 GED 5.5\n0 TRLR\n");
    assert_eq!(l.dataset.metadata.gedcom_version, None);
    let tags: Vec<_> = l.dataset.metadata_structures().map(|s| s.tag()).collect();
    assert_eq!(tags, ["GED"]);
}

#[test]
fn r_header_04_escapes_are_not_interpreted_in_metadata() {
    // Example at L1650: `1 ELF 1@#U2E@0` is the string "1@#U2E@0", not a version number.
    let (_, l) = lowered(b"0 HEAD\n1 ELF 1@#U2E@0\n0 TRLR\n");
    assert_eq!(codes(&l), [c::BAD_VERSION_NUMBER]);
    assert_eq!(l.diagnostics[0].class.as_str(), "non-conformant-structure");
    assert_eq!(l.dataset.metadata.elf_version, None);
}

#[test]
fn r_header_05_other_metadata_may_use_escapes_and_continuations() {
    // Example at L1662 (the prose says `à`, but @#UC0@ is U+00C0 `À`).
    let (_, l) = lowered(
        b"0 HEAD\n1 NOTE Ceci est une note longue @#UC0@ pro\n2 CONC pos de ce document\n2 PLANG fr\n0 TRLR\n",
    );
    assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
    let note = l.dataset.metadata_structures().next().expect("NOTE");
    let Some(Payload::Text(t)) = note.payload() else {
        panic!()
    };
    assert_eq!(t.text, "Ceci est une note longue À propos de ce document");
    assert_eq!(t.lang, "fr", "the level-2 PLANG annotates the NOTE");
    assert_eq!(
        l.dataset.metadata.default_language, None,
        "it is not serialisation metadata"
    );
    assert_eq!(note.children().count(), 0);
}

#[test]
fn r_version_numbers_01_02_equivalent_and_invalid_versions() {
    // Example at L1695: 1.0, 1.0.0 and 1.000 are the same version.
    let v: Vec<_> = ["1.0", "1.0.0", "1.000", "01.00.000"]
        .iter()
        .map(|s| Version::parse(s))
        .collect();
    assert!(v.iter().all(|x| *x
        == Some(Version {
            major: 1,
            minor: 0,
            revision: 0
        })));
    for bad in [
        "5", "5.5.1.0", "5.5.1 EL", "v1.0", " 1.0", "1.0 ", "1..0", "", "1.x",
    ] {
        assert_eq!(Version::parse(bad), None, "{bad:?}");
    }
    for text in ["1.0", "1.0.0", "1.000"] {
        let (_, l) = lowered(format!("0 HEAD\n1 ELF {text}\n0 TRLR\n").as_bytes());
        assert!(l.diagnostics.is_empty(), "{text}");
        assert_eq!(
            l.dataset
                .metadata
                .elf_version
                .map(|v| v.to_string())
                .as_deref(),
            Some("1.0.0")
        );
    }
}

#[test]
fn r_serialisation_version_02_revision_only_is_fine() {
    let (_, l) = lowered(b"0 HEAD\n1 ELF 1.0.7\n0 TRLR\n");
    assert!(l.diagnostics.is_empty());
    assert_eq!(l.dataset.metadata.elf_version.map(|v| v.revision), Some(7));
}

#[test]
fn r_serialisation_version_03_unknown_minor_warns() {
    let (_, l) = lowered(b"0 HEAD\n1 ELF 1.3\n0 TRLR\n");
    assert_eq!(codes(&l), [c::UNKNOWN_ELF_VERSION]);
    assert_eq!(l.diagnostics[0].severity().as_str(), "warning");
}

#[test]
fn r_serialisation_version_04_other_major_is_non_conformant() {
    for v in ["2.0", "0.9"] {
        let (_, l) = lowered(format!("0 HEAD\n1 ELF {v}\n0 TRLR\n").as_bytes());
        assert_eq!(codes(&l), [c::UNSUPPORTED_ELF_VERSION], "{v}");
        assert_eq!(l.diagnostics[0].severity().as_str(), "error");
    }
}

fn gedc(vers: &str) -> Vec<&'static str> {
    let (_, l) = lowered(
        format!("0 HEAD\n1 GEDC\n2 VERS {vers}\n2 FORM LINEAGE-LINKED\n0 TRLR\n").as_bytes(),
    );
    codes(&l)
}

#[test]
fn r_gedcom_version_03_04_only_5_5_and_5_5_1() {
    for ok in ["5.5", "5.5.1", "5.5.0", "05.5", "5.05"] {
        assert!(gedc(ok).is_empty(), "{ok}");
    }
    // Example at L1767: 5.3, an abandoned draft of 1993.
    for bad in ["5.3", "5.5.2", "4.0"] {
        assert_eq!(gedc(bad), [c::UNSUPPORTED_GEDCOM_VERSION], "{bad}");
    }
    // 5.5.5 and 7.x are read by their own dialect's rules (`gedgraft_syntax::Dialect`, tests/dialect.rs): 5.5.5
    // is accepted, and a 7.0 `GEDC` has no `FORM`.
    assert!(gedc("5.5.5").is_empty());
    assert_eq!(gedc("7.0"), [c::BAD_GEDC]);
}

#[test]
fn r_parsing_metadata_01_nested_char_is_not_metadata() {
    let (_, l) = lowered(b"0 HEAD\n1 SOUR x\n2 CHAR ANSEL\n0 TRLR\n");
    let sour = l.dataset.metadata_structures().next().expect("SOUR");
    assert_eq!(sour.child("CHAR").and_then(|s| s.text()), Some("ANSEL"));
}

#[test]
fn r_parsing_metadata_02_no_xrefs_pointers_or_continuations() {
    // Example at L1800.
    let (p, l) = lowered(
        b"0 HEAD\n1 SCHMA https://example.com/this/is/a/very/long/IRI\n2 CONC /which/has/been/continued/on/to/two/lines\n0 TRLR\n",
    );
    assert!(p.diagnostics().is_empty());
    assert_eq!(codes(&l), [c::BAD_METADATA_STRUCTURE]);
    assert_eq!(l.diagnostics[0].location.line, 3);
    let (_, l) = lowered(b"0 HEAD\n1 PLANG @L1@\n0 TRLR\n");
    assert_eq!(codes(&l), [c::BAD_METADATA_STRUCTURE]);
    let (_, l) = lowered(b"0 HEAD\n1 @C@ ELF 1.0\n0 TRLR\n");
    assert_eq!(codes(&l), [c::BAD_METADATA_STRUCTURE]);
    // A nested HEAD is the syntax layer's `misplaced-header`.
    let (p, l) = lowered(b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n3 HEAD\n0 TRLR\n");
    assert_eq!(syntax_codes(&p), [sc::MISPLACED_HEADER]);
    assert!(l.diagnostics.is_empty());
}

#[test]
fn r_parsing_metadata_03_unknown_substructures_are_ignored() {
    let (_, l) = lowered(b"0 HEAD\n1 CHAR UTF-8\n2 FOO bar\n0 TRLR\n");
    assert!(l.diagnostics.is_empty());
    assert!(l.dataset.is_empty(), "FOO does not appear in the dataset");
}

#[test]
fn r_parsing_metadata_04_duplicates() {
    // Example at L1819.
    let (_, l) = lowered(b"0 HEAD\n1 PLANG nds\n1 PLANG de\n0 TRLR\n");
    assert_eq!(codes(&l), [c::DUPLICATE_METADATA]);
    assert_eq!(l.diagnostics[0].location.line, 3);
    assert_eq!(
        l.dataset.metadata.default_language.as_deref(),
        Some("nds"),
        "the first one wins"
    );
    let (_, l) =
        lowered(b"0 HEAD\n1 SCHMA https://a.example/\n1 SCHMA https://b.example/\n0 TRLR\n");
    assert!(l.diagnostics.is_empty());
    let schemas: Vec<_> = l
        .dataset
        .schemas()
        .map(|s| s.text().unwrap_or("").to_string())
        .collect();
    assert_eq!(schemas, ["https://a.example/", "https://b.example/"]);
}

#[test]
fn r_parsing_metadata_05_char_is_deleted() {
    let (_, l) = lowered(b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n");
    assert!(l.dataset.is_empty());
    assert!(l.diagnostics.is_empty());
}

#[test]
fn r_parsing_metadata_06_elf_version() {
    // Example at L1843.
    let (_, l) = lowered(b"0 HEAD\n1 ELF 1.0\n0 TRLR\n");
    assert_eq!(l.dataset.metadata.elf_version, Version::parse("1.0.0"));
    assert!(l.dataset.is_empty(), "the ELF structure is removed");
    let (_, l) = lowered(b"0 HEAD\n1 ELF one\n0 TRLR\n");
    assert_eq!(codes(&l), [c::BAD_VERSION_NUMBER]);
}

#[test]
fn r_parsing_metadata_07_gedc() {
    // Example at L1862.
    let (_, l) = lowered(b"0 HEAD\n1 GEDC\n2 VERS 5.5\n2 FORM LINEAGE-LINKED\n0 TRLR\n");
    assert!(l.diagnostics.is_empty());
    assert_eq!(l.dataset.metadata.gedcom_version, Version::parse("5.5"));
    assert!(l.dataset.is_empty());
    // Example at L1871: two reasons.
    let (_, l) = lowered(b"0 HEAD\n1 GEDC\n2 VERS 5.5.1 EL\n0 TRLR\n");
    let mut got = codes(&l);
    got.sort_unstable();
    assert_eq!(got, [c::BAD_GEDC, c::BAD_VERSION_NUMBER]);
    let (_, l) = lowered(b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM Lineage-Linked\n0 TRLR\n");
    assert_eq!(codes(&l), [c::BAD_GEDC]);
    let (_, l) =
        lowered(b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 TRLR\n");
    assert_eq!(codes(&l), [c::BAD_GEDC]);
    let (_, l) = lowered(b"0 HEAD\n1 GEDC x\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 TRLR\n");
    assert_eq!(codes(&l), [c::BAD_GEDC]);
}

#[test]
fn r_header_01_header_with_xref_is_the_syntax_layers() {
    let (p, l) = lowered(b"0 @H@ HEAD\n0 TRLR\n");
    assert!(syntax_codes(&p).contains(&sc::FIRST_LINE_NOT_HEAD));
    assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
    let (_, l) = lowered(b"0 HEAD\n1 CONT x\n0 TRLR\n");
    assert_eq!(codes(&l), [c::BAD_HEADER]);
}

// ----- Second pass -----

#[test]
fn r_second_pass_01_every_level_is_unescaped() {
    let mut src = String::from("0 HEAD\n");
    for level in 0..100 {
        src.push_str(&format!("{level} N{level} a@@b\n"));
    }
    src.push_str("0 TRLR\n");
    let (_, l) = lowered(src.as_bytes());
    let root = l.dataset.records().next().expect("record");
    let all: Vec<_> = root.descendants().collect();
    assert_eq!(all.len(), 100);
    assert!(all.iter().all(|s| s.text() == Some("a@b")));
}

#[test]
fn r_second_pass_02_misused_tags() {
    // All four are the syntax layer's; the lowering keeps the structures and does not repeat them.
    let (p, l) = body("0 @I1@ INDI\n1 HEAD");
    assert_eq!(syntax_codes(&p), [sc::MISPLACED_HEADER]);
    assert!(l.diagnostics.is_empty());
    assert_eq!(
        record(&l.dataset, "INDI").child("HEAD").map(|h| h.tag()),
        Some("HEAD")
    );
    let (p, l) = body("0 INDI\n1 TRLR");
    assert_eq!(syntax_codes(&p), [sc::MISPLACED_TRAILER]);
    assert!(l.diagnostics.is_empty());
    let (p, l) = body("0 HEAD");
    assert_eq!(syntax_codes(&p), [sc::MISPLACED_HEADER]);
    assert!(l.diagnostics.is_empty());
    assert_eq!(l.dataset.records_with_tag("HEAD").count(), 1);
    let (p, l) = body("0 @F1@ FAM\n0 X\n1 FAMC @F1@\n2 CONC x");
    assert_eq!(syntax_codes(&p), [sc::CONTINUATION_OF_POINTER]);
    assert!(l.diagnostics.is_empty());
    let famc = record(&l.dataset, "X").child("FAMC").expect("FAMC");
    assert_eq!(famc.target().map(|t| t.tag()), Some("FAM"));
}

#[test]
fn r_second_pass_04_unescape_and_merge() {
    let (_, l) = body("0 NOTE a@@b\n1 CONT c");
    let note = record(&l.dataset, "NOTE");
    assert_eq!(note.text(), Some("a@b\nc"));
    assert_eq!(note.children().count(), 0, "no CONT substructure left");
}

#[test]
fn r_second_pass_05_substructures_in_order() {
    let (_, l) = body("0 @I1@ INDI\n1 NAME Jo@#UE3@o\n2 GIVN Jo@#UE3@o");
    let name = record(&l.dataset, "INDI").child("NAME").expect("NAME");
    assert_eq!(name.text(), Some("João"));
    assert_eq!(name.child("GIVN").and_then(|g| g.text()), Some("João"));
}

// ----- Escapes -----

#[test]
fn r_escaped_at_01() {
    // Example at L1920.
    assert_eq!(text("0 EMAIL name@@example.com"), "name@example.com");
    assert_eq!(text("0 NOTE a@@b"), "a@b");
    assert_eq!(text("0 NOTE @@@@"), "@@");
}

#[test]
fn r_escape_seq_01_calendar_escape_is_kept() {
    // Example at L1944.
    let (_, l) = body("0 DATE @#DFRENCH R@ 6 COMP 11");
    assert_eq!(record_text(&l.dataset, "DATE"), "@#DFRENCH R@ 6 COMP 11");
    assert!(l.diagnostics.is_empty());
}

#[test]
fn r_escape_seq_02_type_must_be_upper_case() {
    let (p, l) = body("0 NOTE x@#dgregorian@");
    assert_eq!(syntax_codes(&p), [sc::BAD_ESCAPE]);
    assert!(l.diagnostics.is_empty(), "not repeated");
    assert_eq!(record_text(&l.dataset, "NOTE"), "x@#dgregorian@");
}

#[test]
fn r_escape_seq_03_04_space_after_escape_is_payload() {
    // Example at L1962: João.
    assert_eq!(text("0 NAME Jo@#UE3@o"), "João");
    assert_eq!(text("0 NAME @#U4A@ o"), "J o");
    assert_eq!(text("0 NAME @#U263A@ x"), "☺ x");
    assert_eq!(text("0 DATE @#DJULIAN@ 1540"), "@#DJULIAN@ 1540");
}

#[test]
fn r_escape_seq_07_escape_ends_at_first_at() {
    let (_, l) = body("0 NOTE @#Da@b@");
    assert_eq!(record_text(&l.dataset, "NOTE"), "@#Da@b@");
    assert!(l.diagnostics.is_empty());
}

#[test]
fn r_escape_seq_08_punctuation_in_unknown_escape() {
    let (_, l) = body("0 NOTE @#X a.b,c;d@");
    assert_eq!(codes(&l), [c::UNPERMITTED_ESCAPE]);
}

#[test]
fn r_unicode_escape_01_in_ascii_file() {
    let (_, l) = lowered(b"0 HEAD\n1 CHAR ASCII\n0 NAME Jo@#UE3@o\n0 TRLR\n");
    assert_eq!(record_text(&l.dataset, "NAME"), "João");
}

#[test]
fn r_unicode_escape_02_forms() {
    // Examples at L2079 and L2097.
    let forms = [
        "0 NAME عزيز",
        "0 NAME @#U639@@#U632@@#U64A@@#U632@",
        "0 NAME @#U 639 632 64A 632@",
    ];
    for form in forms {
        assert_eq!(text(form), "عزيز", "{form}");
    }
    assert_eq!(text("0 NAME Joa@#U303@o"), "Joa\u{303}o");
    assert_eq!(text("0 NAME @#U 41 @"), "A");
    let (_, l) = body("0 NAME @#U12G@");
    assert_eq!(codes(&l), [c::BAD_UNICODE_ESCAPE]);
    assert_eq!(
        record_text(&l.dataset, "NAME"),
        "@#U12G@",
        "kept as written"
    );
}

#[test]
fn r_unicode_escape_03_lower_case_hex_warns() {
    let (_, l) = body("0 NAME @#U11f@");
    assert_eq!(codes(&l), [c::LOWERCASE_UNICODE_ESCAPE]);
    assert_eq!(l.diagnostics[0].severity().as_str(), "warning");
    assert_eq!(record_text(&l.dataset, "NAME"), "ğ");
}

#[test]
fn r_unicode_escape_04_empty_escape_is_deleted() {
    assert_eq!(text("0 NOTE x @#U@"), "x ");
}

#[test]
fn r_unicode_escape_09_nfc_option() {
    let options = LowerOptions::default().with_nfc(true);
    let (_, l) = lowered_with(b"0 HEAD\n0 NAME Joa@#U303@o\n0 TRLR\n", &options);
    assert_eq!(record_text(&l.dataset, "NAME"), "João");
}

#[test]
fn r_identify_escs_01_to_05() {
    assert_eq!(text("0 NOTE a@"), "a@");
    assert_eq!(text("0 NOTE @@@"), "@@");
    assert_eq!(text("0 NOTE x@#UE9@@@y"), "xé@y");
    // R-IDENTIFY-ESCS-05, example at L2305.
    let (_, l) = body("0 EMAIL name@example.com");
    assert_eq!(record_text(&l.dataset, "EMAIL"), "name@example.com");
    assert!(l.diagnostics.is_empty());
}

#[test]
fn r_identify_escs_04_examples() {
    // Example at L2283: `@#` with no closing `@` is the syntax layer's `unterminated-escape`.
    let (p, l) = body("0 NOTE Lines containing only a @# are non-conformant.");
    assert_eq!(syntax_codes(&p), [sc::UNTERMINATED_ESCAPE]);
    assert!(l.diagnostics.is_empty(), "not repeated");
    assert_eq!(
        record_text(&l.dataset, "NOTE"),
        "Lines containing only a @# are non-conformant."
    );
    // Example at L2291: a space after `@#`.
    let (p, l) = body("0 NOTE Following a @# with a @ isn't necessarily conformant.");
    assert_eq!(syntax_codes(&p), [sc::BAD_ESCAPE]);
    assert_eq!(
        p.diagnostics()[0].class.as_str(),
        "non-conformant-structure"
    );
    assert!(l.diagnostics.is_empty());
    assert_eq!(
        record_text(&l.dataset, "NOTE"),
        "Following a @# with a @ isn't necessarily conformant."
    );
}

#[test]
fn r_identify_escs_06_table() {
    // Example table at L2314, unescaped.
    let cases = [
        ("name@example.com", "name@example.com", 0),
        ("name@@example.com", "name@example.com", 0),
        ("name@@@example.com", "name@@example.com", 0),
        ("name@@@@example.com", "name@@example.com", 0),
        ("some@#XYZ@thing", "some@#XYZ@thing", 1u32),
        ("some@@#XYZ@thing", "some@#XYZ@thing", 0),
        ("some@@@#XYZ@thing", "some@@#XYZ@thing", 1),
        ("@#XA@@#YB@", "@#XA@@#YB@", 2),
    ];
    for (payload, expected, unpermitted) in cases {
        let (_, l) = body(&format!("0 NOTE {payload}"));
        assert_eq!(record_text(&l.dataset, "NOTE"), expected, "{payload}");
        // Problems of one code on a line are one diagnostic with their count (#12).
        let problems: Vec<_> = l.diagnostics.iter().map(|d| (d.code, d.count)).collect();
        let want = (unpermitted > 0).then_some((c::UNPERMITTED_ESCAPE, unpermitted));
        assert_eq!(problems, Vec::from_iter(want), "{payload}");
    }
}

#[test]
fn r_permitted_escs_01_to_05() {
    let (_, l) = body("0 NOTE see @#XFOO@ here");
    assert_eq!(codes(&l), [c::UNPERMITTED_ESCAPE]);
    assert_eq!(text("0 NOTE @#U41@"), "A");
    // Example at L2351.
    let (_, l) = body("0 DEAT\n1 DATE @#DJULIAN@ 30 JAN 1649\n1 AGE @#DJULIAN@ 48y");
    assert!(l.diagnostics.is_empty());
    for esc in ["@#AFOO@", "@#CANSEL@", "@#FX@", "@#L12@"] {
        let (_, l) = body(&format!("0 NOTE {esc}"));
        assert_eq!(codes(&l), [c::UNPERMITTED_ESCAPE], "{esc}");
    }
}

#[test]
fn r_payload_unesc_01_02() {
    let (_, l) = body("0 NOTE a@#XQ@b@@c");
    assert_eq!(codes(&l), [c::UNPERMITTED_ESCAPE]);
    assert_eq!(record_text(&l.dataset, "NOTE"), "a@#XQ@b@c");
    assert_eq!(
        text("0 DATE @#DJULIAN@ 30 JAN 1649"),
        "@#DJULIAN@ 30 JAN 1649"
    );
    assert_eq!(text("0 NOTE a@@b@#U21@"), "a@b!");
}

#[test]
fn r_payload_unesc_03_no_double_unescaping() {
    // Example at L2229.
    assert_eq!(text("0 NOTE @@#U40@@"), "@#U40@");
    assert_eq!(text("0 NOTE @#U40@@#U40@"), "@@");
}

#[test]
fn r_payload_unesc_05_06_unescape_before_merging() {
    // Example at L2247 (reading A of R-PAYLOAD-UNESC-06).
    assert_eq!(text("0 NOTE @\n1 CONC #U21@"), "@#U21@");
    assert_eq!(text("0 NOTE a\n1 CONC b@#UE9@"), "abé");
    let (p, l) = body("0 DATE @#DGREG\n1 CONC ORIAN@ 2 JAN 2019");
    // The `@` closing the split escape is a bare `@` on its own line (a warning).
    assert_eq!(
        syntax_codes(&p),
        [sc::UNTERMINATED_ESCAPE, sc::UNESCAPED_AT],
        "non-conformant structure"
    );
    assert!(l.diagnostics.is_empty());
    assert_eq!(record_text(&l.dataset, "DATE"), "@#DGREGORIAN@ 2 JAN 2019");
}

// ----- Continuation lines -----

#[test]
fn r_line_cont_03_trailing_space_is_kept() {
    // Example at L2159.
    let t = text(
        "0 TEXT Pray for the soule of Edward Cowrtney esquyer secunde son\n1 CONT of sr Willm Cowrtney knyght of Povderam, which dyed the \n1 CONT firrst day of mch Ano dom mvcix on whos soule ihu have mci",
    );
    assert_eq!(
        t,
        "Pray for the soule of Edward Cowrtney esquyer secunde son\nof sr Willm Cowrtney knyght of Povderam, which dyed the \nfirrst day of mch Ano dom mvcix on whos soule ihu have mci"
    );
}

#[test]
fn r_line_cont_04_conc_joins_words() {
    // Example at L2183.
    let t = text(
        "0 NOTE Prof. D. H. Kelley speculates that the mother of King Ecg\n1 CONC berht of Wessex was a daughter of Æthelbeorht II of Kent.",
    );
    assert!(t.contains(" Ecgberht of Wessex"), "{t}");
}

#[test]
fn r_line_cont_07_conc_placement_has_no_meaning() {
    let a = text("0 NOTE abcdef");
    assert_eq!(a, text("0 NOTE abc\n1 CONC def"));
    assert_eq!(a, text("0 NOTE a\n1 CONC b\n1 CONC cdef"));
}

#[test]
fn r_merge_conts_02_xref_on_continuation_is_the_syntax_layers() {
    let (p, l) = body("0 NOTE a\n1 @C1@ CONT b");
    assert!(syntax_codes(&p).contains(&sc::CONTINUATION_WITH_XREF));
    assert!(l.diagnostics.is_empty());
    assert_eq!(record_text(&l.dataset, "NOTE"), "a\nb");
    let (p, l) = body("0 @N1@ NOTE a\n1 CONT b");
    assert!(p.diagnostics().is_empty() && l.diagnostics.is_empty());
}

#[test]
fn r_merge_conts_04_continuation_after_substructure() {
    // Example at L2412: the syntax layer reports the misplaced CONT; it stays as a structure.
    let (p, l) = body(
        "0 NOTE Start of note\n1 REFN 5bb43407-9f24-4b42-b00e-c32cc0f09d21\n1 CONT End of note",
    );
    assert_eq!(syntax_codes(&p), [sc::MISPLACED_CONTINUATION]);
    assert_eq!(p.diagnostics()[0].location.line, 4);
    assert!(l.diagnostics.is_empty());
    let note = record(&l.dataset, "NOTE");
    assert_eq!(note.text(), Some("Start of note"));
    let tags: Vec<_> = note.children().map(|c| c.tag()).collect();
    assert_eq!(tags, ["REFN", "CONT"]);
}

#[test]
fn r_merge_conts_05_continuation_record_is_the_syntax_layers() {
    let (p, l) = lowered(b"0 HEAD\n1 CHAR UTF-8\n0 CONT x\n0 TRLR\n");
    assert_eq!(syntax_codes(&p), [sc::CONTINUATION_AT_LEVEL_0]);
    assert!(l.diagnostics.is_empty());
}

#[test]
fn r_merge_conts_06_08_09_12_merging() {
    assert_eq!(text("0 NOTE a\n1 CONT\n1 CONC b\n1 CONT c"), "a\nb\nc");
    assert_eq!(text("0 NOTE a\n1 CONC b\n1 CONC c"), "abc");
    assert_eq!(text("0 NOTE a\n1 CONT b"), "a\nb");
    assert_eq!(text("0 NOTE a\n1 CONC b"), "ab");
    assert_eq!(
        text("0 NOTE ab\n1 CONC cd\n1 CONT ef"),
        "abcd\nef",
        "R-MERGE-CONTS-12"
    );
}

#[test]
fn r_merge_conts_07_pointer_in_continuation() {
    // Example at L2424.
    let (p, l) = body("0 @N1@ NOTE This can be found in:\n1 CONT @F1@");
    assert_eq!(syntax_codes(&p), [sc::POINTER_IN_CONTINUATION]);
    assert_eq!(
        p.diagnostics()[0].class.as_str(),
        "non-conformant-structure"
    );
    assert!(l.diagnostics.is_empty());
    assert_eq!(
        record_text(&l.dataset, "NOTE"),
        "This can be found in:\n@F1@"
    );
}

#[test]
fn r_merge_conts_10_one_break_form() {
    let (_, l) = lowered(b"0 HEAD\r\n0 NOTE a\r\n1 CONT b\n1 CONT c\r1 CONT d\r\n0 TRLR\r\n");
    assert_eq!(record_text(&l.dataset, "NOTE"), "a\nb\nc\nd");
}

#[test]
fn r_merge_conts_11_example() {
    // Example at L2468.
    let (_, l) = body(
        "0 NOTE This paragraph is sufficiently long that it has proved con\n1 CONC venient to wrap it onto a second line.\n1 CONT\n1 CONT This is a short paragraph.\n1 REFN 8e445bb6-cb27-4c12-8c74-e051395639c2",
    );
    let note = record(&l.dataset, "NOTE");
    assert_eq!(
        note.text(),
        Some("This paragraph is sufficiently long that it has proved convenient to wrap it onto a second line.\n\nThis is a short paragraph.")
    );
    let tags: Vec<_> = note.children().map(|c| c.tag()).collect();
    assert_eq!(tags, ["REFN"]);
}

// ----- Pointers -----

#[test]
fn r_pointer_conv_10_11_unmatched_pointer_goes_to_undef() {
    let (_, l) = body("0 @F1@ FAM\n1 CHIL @I9@");
    assert_eq!(codes(&l), [c::UNDEFINED_POINTER]);
    let chil = record(&l.dataset, "FAM").child("CHIL").expect("CHIL");
    let target = chil.target().expect("UNDEF");
    assert_eq!((target.tag(), target.xref()), ("UNDEF", Some("I9")));
    assert_eq!(target.payload(), None);
    assert_eq!(target.children().count(), 0);
    assert_eq!(chil.pointer().map(|p| p.undefined), Some(true));
    assert_eq!(l.dataset.record_by_xref("I9"), None);
}

#[test]
fn r_pointer_conv_10_duplicate_xrefs() {
    let (_, l) = body("0 @I1@ INDI\n0 @I1@ INDI\n0 @F1@ FAM\n1 HUSB @I1@");
    assert_eq!(codes(&l), [c::DUPLICATE_XREF, c::AMBIGUOUS_POINTER]);
    assert_eq!(l.diagnostics[0].location.line, 3);
    let husb = record(&l.dataset, "FAM").child("HUSB").expect("HUSB");
    assert_eq!(husb.target().map(|t| t.tag()), Some("UNDEF"));
}

#[test]
fn r_pointer_conv_12_one_undef_per_identifier() {
    let (_, l) = body("0 @F1@ FAM\n1 CHIL @I9@\n1 HUSB @I9@\n1 WIFE @I8@");
    let fam = record(&l.dataset, "FAM");
    let targets: Vec<_> = fam.children().map(|c| c.target().map(|t| t.id())).collect();
    assert_eq!(targets[0], targets[1]);
    assert_ne!(targets[0], targets[2]);
    assert_eq!(l.dataset.records_with_tag("UNDEF").count(), 2);
}

#[test]
fn r_pointer_conv_13_reserved_pointer_syntax_goes_to_undef() {
    let (_, l) = body("0 @F1@ FAM\n1 CHIL @F1!2@");
    let chil = record(&l.dataset, "FAM").child("CHIL").expect("CHIL");
    assert_eq!(chil.pointer().map(|p| p.target), Some("F1!2"));
    assert_eq!(chil.target().map(|t| t.tag()), Some("UNDEF"));
}

#[test]
fn r_glossary_01_metadata_order() {
    let (_, l) = lowered(b"0 HEAD\n1 NOTE first\n1 SOUR x\n1 NOTE second\n0 TRLR\n");
    let notes: Vec<_> = l
        .dataset
        .metadata_structures()
        .filter_map(|s| s.text())
        .collect();
    assert_eq!(notes, ["first", "x", "second"]);
}

#[test]
fn r_glossary_03_pointer_to_substructure() {
    let (_, l) = body("0 @I1@ INDI\n1 @N1@ NOTE x\n0 @F1@ FAM\n1 NOTE @N1@");
    assert_eq!(codes(&l), [c::POINTER_TO_SUBSTRUCTURE]);
    let note = record(&l.dataset, "FAM").child("NOTE").expect("NOTE");
    assert_eq!(note.target().map(|t| t.tag()), Some("UNDEF"));
}

// ----- Payload languages and datatypes (R-TAGS-03) -----

#[test]
fn r_tags_03_plang_and_dtype_annotate_their_parent() {
    let (_, l) = lowered(
        b"0 HEAD\n1 PLANG de\n0 NOTE x\n1 PLANG en\n1 DTYPE http://x.example/t\n0 NOTE y\n0 TRLR\n",
    );
    assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
    let notes: Vec<_> = l.dataset.records_with_tag("NOTE").collect();
    let Some(Payload::Text(x)) = notes[0].payload() else {
        panic!()
    };
    assert_eq!((x.lang, x.datatype), ("en", Some("http://x.example/t")));
    assert_eq!(
        notes[0].children().count(),
        0,
        "PLANG and DTYPE are removed"
    );
    let Some(Payload::Text(y)) = notes[1].payload() else {
        panic!()
    };
    assert_eq!((y.lang, y.datatype), ("de", None), "the default language");
}

#[test]
fn r_tags_03_misused_annotations() {
    for src in [
        "0 @F1@ FAM\n0 X @F1@\n1 PLANG en",
        "0 NOTE x\n1 PLANG en\n1 PLANG fr",
        "0 NOTE x\n1 @P@ PLANG en",
        "0 NOTE x\n1 DTYPE @F1@",
        "0 NOTE x\n1 PLANG en\n2 NOTE y",
    ] {
        let (_, l) = body(src);
        let found = codes(&l);
        assert!(
            found.contains(&c::MISUSED_PAYLOAD_ANNOTATION),
            "{src}: {found:?}"
        );
    }
    let (_, l) = body("0 NOTE x\n1 PLANG");
    assert_eq!(codes(&l), [c::BAD_LANGUAGE_TAG]);
}
