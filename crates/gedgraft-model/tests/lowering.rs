//! Lowering behaviour beyond the draft's examples: encodings and raw octets, strict mode, the JSON document,
//! the data model API.

mod common;

use common::*;
use gedgraft_model::{codes as c, lower, to_json, Dataset, LowerOptions, Payload};
use gedgraft_syntax::{codes as sc, parse};

fn strict() -> LowerOptions {
    LowerOptions::default().with_strict(true)
}

// ----- Encodings -----

#[test]
fn ansel_text_is_converted_to_unicode_order() {
    // E2 is the combining acute accent, written before its letter in ANSEL (R-ANSEL-01).
    let (p, l) = lowered(
        b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME Jos\xE2e\n1 NOTE x\xE2\n2 CONC e\n1 NOTE \xCDtude\n0 TRLR\n",
    );
    assert_eq!(p.encoding().name(), "ANSEL");
    let indi = record(&l.dataset, "INDI");
    assert_eq!(
        indi.child("NAME").and_then(|n| n.text()),
        Some("Jose\u{301}")
    );
    let notes: Vec<_> = indi
        .children_with_tag("NOTE")
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(
        notes,
        ["xe\u{301}", "etude"],
        "a diacritic joins the letter on the CONC line; CD is the table's `e`"
    );
    let nfc = LowerOptions::default().with_nfc(true);
    let l = lower(&p, &nfc);
    let name = record(&l.dataset, "INDI")
        .child("NAME")
        .and_then(|n| n.text().map(str::to_string));
    assert_eq!(name.as_deref(), Some("José"));
}

#[test]
fn raw_octets_become_replacement_characters() {
    let (p, l) = lowered(b"0 HEAD\n1 CHAR UTF-8\n0 NOTE Jos\xE9 \xFF\xFEx\n0 TRLR\n");
    // Two runs of undecodable octets on one line: one diagnostic that counts both.
    let undecodable: Vec<_> = p
        .diagnostics()
        .iter()
        .filter(|d| d.code == sc::UNDECODABLE_OCTETS)
        .map(|d| (d.count, d.location.line, d.last_line))
        .collect();
    assert_eq!(undecodable, [(2, 3, 3)]);
    assert!(l.diagnostics.is_empty(), "the syntax layer reported them");
    assert_eq!(
        record_text(&l.dataset, "NOTE"),
        "Jos\u{FFFD} \u{FFFD}\u{FFFD}x"
    );
    let (_, l) = lowered(b"0 HEAD\n1 CHAR ANSEL\n0 NOTE a\x80b\n0 TRLR\n");
    assert_eq!(
        record_text(&l.dataset, "NOTE"),
        "a\u{FFFD}b",
        "no table character for 80"
    );
}

#[test]
fn utf16_files_lower_like_utf8() {
    let text = "0 HEAD\n1 CHAR UNICODE\n0 NOTE Jo@#UE3@o\n0 TRLR\n";
    let mut octets = vec![0xFF, 0xFE];
    for unit in text.encode_utf16() {
        octets.extend(unit.to_le_bytes());
    }
    let (_, l) = lowered(&octets);
    assert_eq!(record_text(&l.dataset, "NOTE"), "João");
    assert_eq!(record(&l.dataset, "NOTE").line(), Some(3));
}

// ----- Structure and locations -----

#[test]
fn structures_keep_their_cst_range_and_line() {
    let src = "0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n\n1 BIRT\n2 DATE 1900\n0 TRLR\n";
    let (p, l) = lowered(src.as_bytes());
    let indi = record(&l.dataset, "INDI");
    let range = indi.range().expect("range");
    assert_eq!(
        &p.text()[range],
        "0 @I1@ INDI\n1 NAME Bob\n\n1 BIRT\n2 DATE 1900\n"
    );
    let lines: Vec<_> = indi.descendants().map(|s| s.line()).collect();
    assert_eq!(lines, [Some(2), Some(3), Some(5), Some(6)]);
}

#[test]
fn diagnostics_point_at_the_original_file() {
    let (_, l) = lowered(b"\xEF\xBB\xBF0 HEAD\n0 NOTE ab @#XQ@\n0 TRLR\n");
    let d = &l.diagnostics[0];
    assert_eq!(d.code, c::UNPERMITTED_ESCAPE);
    assert_eq!(
        (d.location.line, d.location.column, d.location.offset),
        (2, 11, 20)
    );
    assert_eq!(d.end_offset, 25);
}

/// #12: problems of one code in a payload's lines, on one line or the next, are one diagnostic with their
/// count, as the syntax layer counts its runs (a line of half a million escapes that are not permitted was half
/// a million diagnostics, 380 MiB for 2 MB); one on a line further on starts a run of its own.
#[test]
fn runs_of_one_escape_problem_in_a_payload_are_one_diagnostic() {
    let src = format!(
        "0 HEAD\n0 @N1@ NOTE {}\n1 CONT @#XQ@ @#U6a@ @#U6b@\n1 CONT ok\n1 CONT @#XR@\n0 TRLR\n",
        "@#XQ@ ".repeat(1000)
    );
    let (p, l) = lowered(src.as_bytes());
    let got: Vec<_> = (l.all_diagnostics(&p).iter())
        .map(|d| (d.code, d.count, d.location.line, d.last_line))
        .collect();
    assert_eq!(
        got,
        [
            ("line-too-long", 1, 2, 2),
            (c::UNPERMITTED_ESCAPE, 1001, 2, 3),
            (c::LOWERCASE_UNICODE_ESCAPE, 2, 3, 3),
            (c::UNPERMITTED_ESCAPE, 1, 5, 5)
        ]
    );
}

#[test]
fn malformed_lines_are_left_out() {
    let (p, l) = body("0 INDI\n1 N@ME x\n1 NAME y");
    assert!(syntax_codes(&p).contains(&sc::BAD_TAG));
    let tags: Vec<_> = record(&l.dataset, "INDI")
        .children()
        .map(|s| s.tag())
        .collect();
    assert_eq!(tags, ["NAME"]);
}

// ----- Recovery: malformed lines and level jumps (R-RECOVER-06, R-RECOVER-07, R-RECOVER-09) -----

/// The tags of a structure's children.
fn child_tags(s: gedgraft_model::StructureRef<'_>) -> Vec<&str> {
    s.children().map(|c| c.tag()).collect()
}

/// The left-out notes: (line, message).
fn left_out(l: &gedgraft_model::Lowered) -> Vec<(usize, &str)> {
    l.diagnostics
        .iter()
        .filter(|d| d.code == c::LINES_LEFT_OUT)
        .map(|d| (d.location.line, d.message.as_str()))
        .collect()
}

// redux R-RECOVER-06, R-RECOVER-07: the redux draft's own example.
#[test]
fn r_recover_06_redux_example_leaves_out_only_the_jumped_line() {
    let (p, l) = lowered(
        b"0 @pepin@ INDI
1 NAME Pepin the Short
1 @charlemagne@ INDI
3 NAME Charlemagne
2 BIRT
          3 DATE @#DJULIAN@ BET 2 APR 742 AND 2 APR 748
0 TRLR
",
    );
    assert!(syntax_codes(&p).contains(&sc::LEVEL_JUMP));
    let pepin = l.dataset.record_by_xref("pepin").expect("pepin");
    assert_eq!(child_tags(pepin), ["NAME", "INDI"]);
    // R-RECOVER-07: @charlemagne@ stays at level 1, a substructure of @pepin@, never promoted to a record.
    assert_eq!(l.dataset.records().count(), 1);
    let charlemagne = pepin.child("INDI").expect("charlemagne");
    assert_eq!(charlemagne.xref(), Some("charlemagne"));
    assert_eq!(
        child_tags(charlemagne),
        ["BIRT"],
        "only `3 NAME Charlemagne` is dropped"
    );
    let birt = charlemagne.child("BIRT").expect("BIRT");
    assert_eq!(child_tags(birt), ["DATE"]);
    assert_eq!(left_out(&l), [(4, "this line is left out of the dataset")]);
}

// R-RECOVER-06: a level jump goes with the lines nested in it; its level is not changed.
#[test]
fn a_level_jump_is_left_out_with_its_nested_lines() {
    let (_, l) = body(
        "0 @I1@ INDI
2 PLAC Moscow
3 ROMN Moscow
1 NAME Ivan",
    );
    let indi = l.dataset.record_by_xref("I1").expect("I1");
    assert_eq!(
        child_tags(indi),
        ["NAME"],
        "PLAC does not become a child of INDI"
    );
    let notes = left_out(&l);
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].0, 3);
    assert!(notes[0]
        .1
        .starts_with("this line and the next one are left out"));
}

// R-RECOVER-09: a malformed line goes with the lines nested in it.
#[test]
fn a_malformed_line_is_left_out_with_its_nested_lines() {
    let (_, l) = body(
        "0 @I1@ INDI
1 N@ME x
2 DATE y
1 SEX M",
    );
    let indi = l.dataset.record_by_xref("I1").expect("I1");
    assert_eq!(
        child_tags(indi),
        ["SEX"],
        "DATE does not become a child of INDI"
    );
    assert_eq!(left_out(&l).first().map(|n| n.0), Some(3));
}

// R-RECOVER-09 at level 0: the record's line and its substructures go, the next record stays.
#[test]
fn a_malformed_level_0_line_is_left_out_with_its_nested_lines() {
    let (_, l) = body(
        "0 @I1 INDI
1 NAME x
0 @I2@ INDI
1 NAME y",
    );
    let xrefs: Vec<_> = l.dataset.records().map(|r| r.xref()).collect();
    assert_eq!(xrefs, [Some("I2")]);
    assert_eq!(left_out(&l).len(), 1);
}

// R-RECOVER-07: a line after a left-out line, at its level, would be a level jump too; lines back at a level
// that nests are kept.
#[test]
fn lines_at_the_level_of_a_left_out_line_are_left_out_too() {
    let (_, l) = body(
        "0 @I1@ INDI
1 BIRT
3 DATE 1900
3 PLAC Paris
2 PLAC Lyon
1 SEX F",
    );
    let indi = l.dataset.record_by_xref("I1").expect("I1");
    assert_eq!(child_tags(indi), ["BIRT", "SEX"]);
    assert_eq!(child_tags(indi.child("BIRT").expect("BIRT")), ["PLAC"]);
    assert_eq!(
        indi.child("BIRT")
            .and_then(|b| b.child("PLAC"))
            .and_then(|p| p.text()),
        Some("Lyon")
    );
    let notes = left_out(&l);
    assert_eq!(
        notes.len(),
        1,
        "one note for the run of two lines: {notes:?}"
    );
}

#[test]
fn left_out_lines_do_not_change_strict_mode() {
    let src = b"0 HEAD
0 @I1@ INDI
2 PLAC Moscow
1 NAME Ivan
0 TRLR
";
    let (_, l) = lowered_with(src, &strict());
    assert_eq!(l.stopped_at.as_ref().map(|d| d.code), Some(sc::LEVEL_JUMP));
    assert!(l.diagnostics.is_empty() && l.dataset.is_empty());
}

#[test]
fn no_header_means_no_metadata() {
    let (p, l) = lowered(b"0 @I1@ INDI\n0 TRLR\n");
    assert_eq!(syntax_codes(&p), [sc::FIRST_LINE_NOT_HEAD]);
    assert!(l.diagnostics.is_empty());
    assert_eq!(l.dataset.records().count(), 1);
    assert_eq!(l.dataset.metadata, Default::default());
}

#[test]
fn empty_input_lowers_to_an_empty_dataset() {
    let (_, l) = lowered(b"");
    assert!(l.dataset.is_empty());
    let (_, l) = lowered(b"0 TRLR\n");
    assert!(l.dataset.is_empty());
}

// ----- Strict mode -----

#[test]
fn strict_mode_on_a_clean_file_is_lenient_mode() {
    let src = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 @I1@ INDI\n1 NAME @#U11f@\n0 TRLR\n";
    let (_, lenient) = lowered(src);
    let (_, strict) = lowered_with(src, &strict());
    assert_eq!(strict.stopped_at, None);
    assert_eq!(strict, lenient, "a warning does not stop");
}

#[test]
fn strict_mode_stops_at_the_first_lowering_error() {
    let src = b"0 HEAD\n0 NOTE @#U11f@\n0 NOTE x@#XQ@\n0 NOTE @#XR@\n0 TRLR\n";
    let (p, l) = lowered_with(src, &strict());
    assert_eq!(
        codes(&l),
        [c::LOWERCASE_UNICODE_ESCAPE, c::UNPERMITTED_ESCAPE]
    );
    let stop = l.stopped_at.as_ref().expect("stopped");
    assert_eq!(
        (stop.code, stop.location.line, stop.location.column),
        (c::UNPERMITTED_ESCAPE, 3, 9)
    );
    assert!(l.dataset.is_empty());
    assert_eq!(l.all_diagnostics(&p).len(), 2);
}

#[test]
fn strict_mode_stops_at_a_syntax_error_too() {
    let src = b"0 HEAD\n0 NOTE @#U11f@\n2 NOTE level jump\n0 NOTE @#XQ@\n0 TRLR\n";
    let (p, l) = lowered_with(src, &strict());
    let stop = l.stopped_at.as_ref().expect("stopped");
    assert_eq!((stop.code, stop.location.line), (sc::LEVEL_JUMP, 3));
    assert_eq!(codes(&l), [c::LOWERCASE_UNICODE_ESCAPE]);
    let all: Vec<_> = l.all_diagnostics(&p).iter().map(|d| d.code).collect();
    assert_eq!(all, [c::LOWERCASE_UNICODE_ESCAPE, sc::LEVEL_JUMP]);
    let (_, lenient) = lowered(src);
    assert_eq!(lenient.stopped_at, None);
    assert!(codes(&lenient).contains(&c::UNPERMITTED_ESCAPE));
}

#[test]
fn strict_mode_reports_header_problems_first() {
    // R-TAGGED-STRUCTS-02: the header is read before the rest.
    let (_, l) = lowered_with(b"0 HEAD\n1 ELF 2.0\n0 NOTE @#XQ@\n0 TRLR\n", &strict());
    assert_eq!(
        l.stopped_at.map(|d| d.code),
        Some(c::UNSUPPORTED_ELF_VERSION)
    );
}

// ----- JSON -----

fn json(src: &[u8], options: &LowerOptions) -> serde_json::Value {
    let parse = parse(src);
    let lowered = lower(&parse, options);
    let text = to_json("t.ged", &parse, &lowered);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn json_document_shape() {
    let v = json(
        b"0 HEAD\n1 CHAR UTF-8\n1 ELF 1.0\n1 PLANG en\n1 SCHMA https://s.example/\n2 ESC DATE D\n1 NOTE hi\n0 @I1@ INDI\n1 FAMC @F9@\n1 NOTE a\"b\\c\n2 CONT \t\n2 DTYPE t\n\n0 TRLR\n",
        &LowerOptions::default(),
    );
    assert_eq!(v["file"], "t.ged");
    assert_eq!(
        v["encoding"],
        serde_json::json!({"detected": null, "declared": "UTF-8", "used": "UTF-8"})
    );
    let m = &v["metadata"];
    assert_eq!(m["elf_version"], "1.0.0");
    assert_eq!(m["gedcom_version"], serde_json::Value::Null);
    assert_eq!(m["default_language"], "en");
    assert_eq!(m["schemas"][0]["payload"]["text"], "https://s.example/");
    assert_eq!(m["schemas"][0]["children"][0]["tag"], "ESC");
    assert_eq!(
        m["other"][0],
        serde_json::json!({"xref": null, "tag": "NOTE", "payload": {"text": "hi", "lang": "en"}, "line": 7, "children": []})
    );
    let records = v["records"].as_array().expect("records");
    assert_eq!(records.len(), 2);
    let indi = &records[0];
    assert_eq!(indi["xref"], "I1");
    assert_eq!(indi["payload"], serde_json::Value::Null);
    assert_eq!(
        indi["children"][0]["payload"],
        serde_json::json!({"pointer": "F9", "undefined": true})
    );
    assert_eq!(
        indi["children"][1]["payload"],
        serde_json::json!({"text": "a\"b\\c\n\t", "lang": "en", "datatype": "t"})
    );
    assert_eq!(
        records[1],
        serde_json::json!({"xref": "F9", "tag": "UNDEF", "payload": null, "line": null, "children": []})
    );
    let diagnostics = v["diagnostics"].as_array().expect("diagnostics");
    let found: Vec<_> = diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(found, [c::UNDEFINED_POINTER, sc::BLANK_LINE]);
    assert_eq!(
        diagnostics[0],
        serde_json::json!({"code": "undefined-pointer", "severity": "warning", "class": "warning",
            "message": "no record has the identifier @F9@; the pointer goes to an UNDEF record",
            "offset": 110, "line": 9, "column": 8})
    );
    assert_eq!(v["stopped"], serde_json::Value::Null);
}

#[test]
fn json_of_a_strict_stop() {
    let v = json(b"0 HEAD\n0 NOTE x\n2 NOTE jump\n0 TRLR\n", &strict());
    assert_eq!(v["records"], serde_json::json!([]));
    assert_eq!(v["stopped"]["code"], sc::LEVEL_JUMP);
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(1));
}

// ----- API -----

#[test]
fn dataset_api_navigation_and_serde() {
    let (_, l) =
        body("0 @F1@ FAM\n1 HUSB @I1@\n1 CHIL @I2@\n0 @I1@ INDI\n1 NAME A\n0 @I2@ INDI\n1 NAME B");
    let d = &l.dataset;
    let fam = d.record_by_xref("F1").expect("F1");
    let names: Vec<_> = fam
        .children()
        .filter_map(|c| c.target())
        .filter_map(|i| i.child("NAME").and_then(|n| n.text()))
        .collect();
    assert_eq!(names, ["A", "B"]);
    assert_eq!(d.records_with_tag("INDI").count(), 2);
    let husb = fam.child("HUSB").expect("HUSB");
    let pointer = husb.pointer().expect("pointer");
    assert_eq!(d.resolve(&pointer), d.record_by_xref("I1"));
    assert_eq!(d.xref_records().count(), 3);
    let json = serde_json::to_string(d).expect("serialise");
    let back: Dataset = serde_json::from_str(&json).expect("deserialise");
    assert_eq!(&back, d);
    assert!(matches!(
        back.get(husb.id()).and_then(|s| s.payload()),
        Some(Payload::Pointer(_))
    ));
}

#[test]
fn lowering_codes_are_distinct_and_kebab_case() {
    let syntax = [
        sc::FIRST_LINE_NOT_HEAD,
        sc::BAD_LEVEL,
        sc::MISSING_DELIMITER,
        sc::BAD_TAG,
        sc::BAD_XREF,
        sc::LEVEL_JUMP,
        sc::MISPLACED_CONTINUATION,
        sc::CONTINUATION_AT_LEVEL_0,
        sc::CONTINUATION_WITH_XREF,
        sc::CONTINUATION_WITH_SUBSTRUCTURES,
        sc::MISSING_TRAILER,
        sc::NON_EMPTY_TRAILER,
        sc::MISPLACED_TRAILER,
        sc::CONTENT_AFTER_TRAILER,
        sc::JUNK_AFTER_TRAILER,
        sc::BLANK_LINE,
        sc::LEADING_WHITESPACE,
        sc::UNDECODABLE_OCTETS,
        sc::UNTERMINATED_ESCAPE,
        sc::BAD_ESCAPE,
        sc::MISPLACED_HEADER,
        sc::CONTINUATION_OF_POINTER,
        sc::POINTER_IN_CONTINUATION,
        sc::LEVEL_OUT_OF_RANGE,
    ];
    let mut seen = std::collections::HashSet::new();
    for code in c::ALL {
        assert!(seen.insert(*code), "{code} twice");
        assert!(!syntax.contains(code), "{code} is a syntax code");
        assert!(
            code.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
            "{code} is not kebab-case"
        );
    }
}

// ----- Records after the trailer -----

#[test]
fn r_tagged_structs_03_records_after_the_trailer_are_lowered() {
    // An export appended to another: its records are records of the dataset (R-TAGGED-STRUCTS-03), a pointer
    // from them to the first part resolves, each bare trailer goes (the project's reading of
    // R-TAGGED-STRUCTS-04 for appended parts), and the junk at the end is not a record.
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ann\n0 TRLR\n0 @I9@ INDI\n1 NAME Bob\n\
0 @F1@ FAM\n1 HUSB @I9@\n1 WIFE @I1@\n0 TRLR\n\x1a";
    for threads in [1, 3] {
        let options = LowerOptions::default().with_threads(threads);
        let p = parse(input);
        assert!(p
            .diagnostics()
            .iter()
            .any(|d| d.code == sc::RECORD_AFTER_TRAILER));
        let l = lower(&p, &options);
        let tags: Vec<(Option<&str>, &str)> =
            l.dataset.records().map(|r| (r.xref(), r.tag())).collect();
        assert_eq!(
            tags,
            [
                (Some("I1"), "INDI"),
                (Some("I9"), "INDI"),
                (Some("F1"), "FAM")
            ],
            "{threads} threads"
        );
        let codes: Vec<&str> = l.diagnostics.iter().map(|d| d.code).collect();
        assert!(!codes.contains(&c::UNDEFINED_POINTER), "{codes:?}");
    }
    // A TRLR record with more than its level and tag is not a trailer: it stays, like a misplaced structure.
    let l = lower(
        &parse(b"0 HEAD\n0 TRLR\n0 @I9@ INDI\n0 TRLR x\n0 @I8@ INDI\n0 TRLR\n"),
        &LowerOptions::default(),
    );
    let tags: Vec<&str> = l.dataset.records().map(|r| r.tag()).collect();
    assert_eq!(tags, ["INDI", "TRLR", "INDI"]);
}
