//! Binding rows of `requirements.md` about conformance, parsing order, line strings, lines and structures,
//! each tested with the row's own example (its last column). The meta-test `spec_rows.rs` checks that every
//! binding row is cited somewhere.

use gedgraft_model::codes as mc;
use gedgraft_syntax::ast::AstToken;
use gedgraft_syntax::{codes as sc, parse, Class, Severity};
use gedgraft_tests::rows::{findings, lowered, record_text, shape, strict};

// ----- Conventions and applications -----

/// ELF-2019 R-CONVENTIONS-02: `S` is only U+0020 and U+0009, so a no-break space after the level is no
/// separator: `1` U+00A0 `NAME x` is a malformed line.
#[test]
fn r_conventions_02_no_break_space_is_not_whitespace() {
    let p = parse("0 HEAD\n1\u{A0}NAME x\n0 TRLR\n".as_bytes());
    let errors: Vec<_> = p
        .diagnostics()
        .iter()
        .map(|d| (d.class, d.location.line))
        .collect();
    assert_eq!(errors, [(Class::MalformedLine, 2)]);
}

/// ELF-2019 R-CONVENTIONS-02: the only line breaks are LF, CR and CR LF; all three split lines. Mixing them is
/// allowed (R-LINE-STRINGS-01): the only diagnostic is the `mixed-line-breaks` warning, at the CR.
#[test]
fn r_conventions_02_lf_cr_and_crlf_are_the_line_breaks() {
    let (p, l) = lowered(b"0 HEAD\r\n0 @A@ NOTE a\r0 @B@ NOTE b\n0 TRLR\r\n");
    let found: Vec<_> = (p.diagnostics().iter())
        .map(|d| (d.code, d.class, d.location.line, d.count))
        .collect();
    assert_eq!(found, [("mixed-line-breaks", Class::Warning, 2, 2)]);
    assert_eq!(shape(&l.dataset), ["NOTE @A@ \"a\"", "NOTE @B@ \"b\""]);
}

/// ELF-2019 R-APPLICATIONS-01: a conformant source (`CHAR ANSI`, encoding chosen in an implementation-defined
/// way) is read without error.
#[test]
fn r_applications_01_conformant_source_is_read_without_error() {
    let (p, l) = strict(b"0 HEAD\n1 CHAR ANSI\n1 NOTE plain\n0 TRLR\n");
    assert_eq!(l.stopped_at, None);
    assert!(
        !p.has_errors() && l.diagnostics.is_empty(),
        "{:?}",
        findings(&p, &l)
    );
    assert_eq!(p.encoding().to_string(), "windows-1252");
}

/// ELF-2019 R-APPLICATIONS-02: a non-conformant source (two `PLANG`s) never gives a clean result: strict mode
/// stops, lenient mode reports it.
#[test]
fn r_applications_02_non_conformant_source_is_never_silent() {
    let input = b"0 HEAD\n1 PLANG nds\n1 PLANG de\n0 TRLR\n";
    let (p, l) = lowered(input);
    assert!(
        findings(&p, &l)
            .iter()
            .any(|f| f.0 == mc::DUPLICATE_METADATA && f.2 == 3),
        "{:?}",
        findings(&p, &l)
    );
    let (_, l) = strict(input);
    assert!(l.stopped_at.is_some(), "strict mode stops");
}

// ----- Parsing order, glossary -----

/// ELF-2019 R-PARSING-01: decode, parse lines, take the metadata out, unescape (`@@`, Unicode escapes) and only
/// then merge continuations.
#[test]
fn r_parsing_01_the_steps_in_order() {
    let (p, l) =
        lowered(b"0 HEAD\n1 CHAR ASCII\n1 ELF 1.0\n0 @N1@ NOTE a@@b@#UE9@\n1 CONT c\n0 TRLR\n");
    assert!(findings(&p, &l).is_empty(), "{:?}", findings(&p, &l));
    assert_eq!(record_text(&l.dataset, "NOTE"), Some("a@bé\nc"));
    let metadata: Vec<_> = l
        .dataset
        .metadata_structures()
        .map(|s| s.tag().to_string())
        .collect();
    assert!(
        !metadata.iter().any(|t| t == "CHAR" || t == "ELF"),
        "{metadata:?}"
    );
    assert_eq!(l.dataset.records().count(), 1, "HEAD is not a record");
}

/// ELF-2019 R-GLOSSARY-02: substructures of the same type keep their relative order.
#[test]
fn r_glossary_02_same_type_substructures_keep_their_order() {
    let (_, l) = lowered(b"0 HEAD\n0 @I1@ INDI\n1 NAME A\n1 BIRT\n1 NAME B\n0 TRLR\n");
    let indi = l.dataset.record_by_xref("I1").expect("I1");
    let names: Vec<_> = indi.children_with_tag("NAME").map(|n| n.text()).collect();
    assert_eq!(names, [Some("A"), Some("B")]);
}

/// ELF-2019 R-GLOSSARY-04: superstructure links are acyclic: from every lowered structure, following parents
/// reaches a record.
#[test]
fn r_glossary_04_parents_lead_to_a_record() {
    let (_, l) = lowered(
        b"0 HEAD\n0 @I1@ INDI\n1 BIRT\n2 DATE 1900\n3 _X y\n1 NAME A\n0 @F1@ FAM\n1 CHIL @I1@\n0 TRLR\n",
    );
    let d = &l.dataset;
    let mut checked = 0;
    for record in d.records() {
        for s in record.descendants() {
            let mut at = s;
            let mut steps = 0;
            while let Some(parent) = at.parent() {
                at = parent;
                steps += 1;
                assert!(steps < 10, "a cycle above {}", s.tag());
            }
            assert_eq!(at.id(), record.id(), "{} ends at its record", s.tag());
            checked += 1;
        }
    }
    assert!(checked >= 5, "{checked}");
}

/// ELF-2019 R-GLOSSARY-05: the document is an unordered set: two files that differ only in record order lower
/// to the same records.
#[test]
fn r_glossary_05_record_order_does_not_change_the_dataset() {
    let (_, a) = lowered(b"0 HEAD\n0 @I1@ INDI\n1 FAMS @F1@\n0 @F1@ FAM\n1 HUSB @I1@\n0 TRLR\n");
    let (_, b) = lowered(b"0 HEAD\n0 @F1@ FAM\n1 HUSB @I1@\n0 @I1@ INDI\n1 FAMS @F1@\n0 TRLR\n");
    let mut sa = shape(&a.dataset);
    let mut sb = shape(&b.dataset);
    sa.sort();
    sb.sort();
    assert_eq!(sa, sb);
    for l in [&a, &b] {
        let husb = l.dataset.record_by_xref("F1").and_then(|f| f.child("HUSB"));
        assert_eq!(
            husb.and_then(|h| h.target()).and_then(|t| t.xref()),
            Some("I1")
        );
    }
}

// ----- Line strings -----

/// ELF-2019 R-PARSING-LINESTRS-01: the octets, decoded, become the line strings `0 HEAD`, `1 CHAR UTF-8`,
/// `0 TRLR`.
#[test]
fn r_parsing_linestrs_01_octets_become_line_strings() {
    let octets = [
        0x30, 0x20, 0x48, 0x45, 0x41, 0x44, 0x0D, 0x0A, 0x31, 0x20, 0x43, 0x48, 0x41, 0x52, 0x20,
        0x55, 0x54, 0x46, 0x2D, 0x38, 0x0D, 0x0A, 0x30, 0x20, 0x54, 0x52, 0x4C, 0x52, 0x0D, 0x0A,
    ];
    let p = parse(&octets);
    assert!(p.diagnostics().is_empty(), "{:?}", p.diagnostics());
    let lines: Vec<&str> = p.text().split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines, ["0 HEAD", "1 CHAR UTF-8", "0 TRLR"]);
    let tags: Vec<String> = p
        .document()
        .records()
        .filter_map(|r| r.line().and_then(|l| l.tag()).map(|t| t.text().to_string()))
        .collect();
    assert_eq!(tags, ["HEAD", "TRLR"]);
}

/// ELF-2019 R-LINE-STRINGS-03: a line of any length: `1 NOTE` and 1 MiB of `x` is one payload, not truncated.
#[test]
fn r_line_strings_03_a_one_mebibyte_line_is_read_whole() {
    let big = "x".repeat(1 << 20);
    let input = format!("0 HEAD\n0 NOTE {big}\n0 TRLR\n");
    let (p, l) = lowered(input.as_bytes());
    let errors: Vec<_> = findings(&p, &l)
        .into_iter()
        .filter(|f| f.1 != Class::Warning)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(
        record_text(&l.dataset, "NOTE").map(str::len),
        Some(1_048_576)
    );
}

/// ELF-2019 R-LINE-STRINGS-04: leading whitespace is removed: `␠⇥1 NAME Bob` is the valid line `1 NAME Bob`.
#[test]
fn r_line_strings_04_leading_whitespace_is_removed() {
    let (p, l) = lowered(b"0 HEAD\n0 @I1@ INDI\n \t1 NAME Bob\n0 TRLR\n");
    let f = findings(&p, &l);
    assert!(f.iter().all(|f| f.1 == Class::Warning), "{f:?}");
    assert!(f.iter().any(|f| f.0 == sc::LEADING_WHITESPACE && f.2 == 3));
    assert_eq!(shape(&l.dataset), ["INDI @I1@ { NAME \"Bob\" }"]);
}

/// ELF-2019 R-LINE-STRINGS-07: leading whitespace and blank lines are accepted and ignored: the same dataset
/// as without them, and no error.
#[test]
fn r_line_strings_07_blank_lines_and_indentation_are_ignored() {
    let (p, l) = lowered(b"\n\n0 HEAD\n  1 CHAR UTF-8\n\n0 @N1@ NOTE x\n0 TRLR\n\n");
    let (_, plain) = lowered(b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE x\n0 TRLR\n");
    let f = findings(&p, &l);
    assert!(f.iter().all(|f| f.1 == Class::Warning), "{f:?}");
    assert_eq!(shape(&l.dataset), shape(&plain.dataset));
    assert_eq!(l.dataset.metadata, plain.dataset.metadata);
}

// ----- Lines -----

/// ELF-2019 R-LINES-02: `1 N@ME x` is a malformed line (line 3); strict lowering stops and gives no dataset.
#[test]
fn r_lines_02_malformed_line_stops_processing() {
    let (p, l) = strict(b"0 HEAD\n1 CHAR UTF-8\n1 N@ME x\n0 TRLR\n");
    let malformed: Vec<_> = p
        .diagnostics()
        .iter()
        .filter(|d| d.class == Class::MalformedLine)
        .map(|d| d.location.line)
        .collect();
    assert_eq!(malformed, [3]);
    let stop = l.stopped_at.as_ref().expect("strict mode stops");
    assert_eq!((stop.class, stop.location.line), (Class::MalformedLine, 3));
    assert_eq!(l.dataset.records().count(), 0);
}

/// ELF-2019 R-LINES-05: a malformed line is never just a warning: with the default options the level jump of
/// the spec's `2 PLAC` example is an error, and strict lowering returns no dataset.
#[test]
fn r_lines_05_malformed_line_is_not_merely_a_warning() {
    let input = "0 @I1@ INDI\n2 PLAC Москва\n0 TRLR\n";
    let p = parse(input.as_bytes());
    let jump = p
        .diagnostics()
        .iter()
        .find(|d| d.code == sc::LEVEL_JUMP)
        .expect("a level-jump diagnostic");
    assert_eq!(
        (jump.class, jump.severity(), jump.location.line),
        (Class::MalformedLine, Severity::Error, 2)
    );
    let (_, l) = strict(input.as_bytes());
    assert!(l.stopped_at.is_some());
    assert_eq!(l.dataset.records().count(), 0);
}

/// ELF-2019 R-LINES-06: whitespace is required between the components: `0@I1@INDI` and `0 @I1@INDI` are
/// malformed lines.
#[test]
fn r_lines_06_run_together_components_are_malformed() {
    for line in ["0@I1@INDI", "0 @I1@INDI"] {
        let input = format!("0 HEAD\n{line}\n0 TRLR\n");
        let p = parse(input.as_bytes());
        let on_line_2: Vec<_> = p
            .diagnostics()
            .iter()
            .filter(|d| d.location.line == 2)
            .map(|d| d.class)
            .collect();
        assert_eq!(on_line_2, [Class::MalformedLine], "{line}");
    }
}

/// ELF-2019 R-LINES-09: the first line must be `0 HEAD`, so a first line of `1 HEAD` is an error on line 1 and
/// strict lowering gives nothing.
#[test]
fn r_lines_09_first_line_has_level_0() {
    let (p, l) = strict(b"1 HEAD\n0 TRLR\n");
    let d = p
        .diagnostics()
        .iter()
        .find(|d| d.code == sc::FIRST_LINE_NOT_HEAD)
        .expect("first-line-not-head");
    assert_eq!((d.severity(), d.location.line), (Severity::Error, 1));
    assert!(l.stopped_at.is_some());
    assert_eq!(l.dataset.records().count(), 0);
}

// ----- Payloads, records, first and second pass -----

/// ELF-2019 R-PAYLOADS-01: `1 NOTE see @N1@` is a string; `1 NOTE␠␠@N1@␠` is the pointer `@N1@`.
#[test]
fn r_payloads_01_string_or_pointer() {
    let (_, l) =
        lowered(b"0 HEAD\n0 @N1@ NOTE x\n0 @S1@ SOUR\n1 NOTE see @N1@\n1 NOTE  @N1@ \n0 TRLR\n");
    let sour = l.dataset.record_by_xref("S1").expect("S1");
    let notes: Vec<_> = sour.children_with_tag("NOTE").collect();
    assert_eq!(notes[0].text(), Some("see @N1@"));
    assert!(notes[0].pointer().is_none());
    assert_eq!(notes[1].pointer().map(|p| p.target), Some("N1"));
    assert_eq!(notes[1].text(), None);
}

/// ELF-2019 R-TAGGED-STRUCTS-01: the first record is the header: `HEAD`, and with its metadata removed it has no
/// substructures left.
#[test]
fn r_tagged_structs_01_first_record_is_the_header() {
    let (p, l) = lowered(b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n");
    assert!(findings(&p, &l).is_empty(), "{:?}", findings(&p, &l));
    let first = p.document().records().next().expect("a record");
    assert_eq!(
        first
            .line()
            .and_then(|l| l.tag())
            .map(|t| t.text().to_string()),
        Some("HEAD".to_string())
    );
    assert_eq!(l.dataset.records().count(), 0, "the header is not a record");
    assert!(l.dataset.metadata.other.is_empty());
}

/// ELF-2019 R-FIRST-PASS-02: a structure ends at the next line whose level is not greater: `1 DEAT Y ⏎ 0 TRLR`
/// gives `DEAT` with payload `Y` and no substructures.
#[test]
fn r_first_pass_02_structure_ends_at_a_lower_or_equal_level() {
    let (_, l) = lowered(b"0 HEAD\n0 @I1@ INDI\n1 DEAT Y\n0 TRLR\n");
    assert_eq!(shape(&l.dataset), ["INDI @I1@ { DEAT \"Y\" }"]);
    let (_, l) = lowered(b"0 HEAD\n0 @I1@ INDI\n1 DEAT Y\n1 BIRT\n0 TRLR\n");
    assert_eq!(shape(&l.dataset), ["INDI @I1@ { DEAT \"Y\", BIRT }"]);
}

/// ELF-2019 R-SECOND-PASS-03: gedgraft is not schema-aware, so no typed structures: `1 NAME x` keeps its tag.
#[test]
fn r_second_pass_03_non_schema_aware_mode_keeps_tags() {
    let (_, l) = lowered(b"0 HEAD\n0 @I1@ INDI\n1 NAME x\n0 TRLR\n");
    let name = l
        .dataset
        .record_by_xref("I1")
        .and_then(|i| i.child("NAME"))
        .expect("NAME");
    assert_eq!((name.tag(), name.text()), ("NAME", Some("x")));
}

// ----- Errors in structures -----

/// ELF-2019 R-ERROR-STRUCTURES-01: a malformed structure (the NOTE/REFN/CONT example of R-MERGE-CONTS-04: a
/// `CONT` after another substructure) is detected, and strict lowering stops with no dataset.
#[test]
fn r_error_structures_01_malformed_structure_stops() {
    let input = b"0 HEAD\n0 @N1@ NOTE a\n1 REFN x\n1 CONT b\n0 TRLR\n";
    let (p, l) = lowered(input);
    assert!(
        findings(&p, &l)
            .iter()
            .any(|f| f.1 == Class::MalformedStructure && f.2 == 4),
        "{:?}",
        findings(&p, &l)
    );
    let (_, l) = strict(input);
    let stop = l.stopped_at.as_ref().expect("strict mode stops");
    assert_eq!(stop.class, Class::MalformedStructure);
    assert_eq!(l.dataset.records().count(), 0);
}

/// ELF-2019 R-ERROR-STRUCTURES-02: `0 NOTE x@#Xy@` is a non-conformant structure: strict mode stops; lenient
/// mode gives the dataset and a diagnostic on that line.
#[test]
fn r_error_structures_02_non_conformant_structure_stops_or_warns() {
    let input = b"0 HEAD\n0 NOTE x@#Xy@\n0 TRLR\n";
    let (p, l) = lowered(input);
    assert!(
        findings(&p, &l)
            .iter()
            .any(|f| f.1 == Class::NonConformant && f.2 == 2),
        "{:?}",
        findings(&p, &l)
    );
    assert_eq!(l.dataset.records().count(), 1);
    let (_, l) = strict(input);
    assert_eq!(
        l.stopped_at.as_ref().map(|d| d.class),
        Some(Class::NonConformant)
    );
}
