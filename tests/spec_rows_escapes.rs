//! Binding rows of `requirements.md` about serialisation, encodings, versions, escapes, continuation lines and
//! pointers, each tested with the row's own example (its last column). The meta-test `spec_rows.rs` checks
//! that every binding row is cited somewhere.

use gedgraft_model::codes as mc;
use gedgraft_syntax::{codes as sc, parse, Class};
use gedgraft_tests::rows::{findings, lowered, shape, strict};
use gedgraft_tests::{corpus_files, corpus_name};

/// The text of the record `@xref@`.
fn text_of<'d>(d: &'d gedgraft_model::Dataset, xref: &str) -> Option<&'d str> {
    d.record_by_xref(xref).and_then(|r| r.text())
}

// ----- Conformance of the output -----

/// ELF-2019 R-CONVENTIONS-05: what gedgraft writes is acceptable to a conformant reader: every corpus file
/// that lowers without errors, written back, lowers again in strict mode without stopping, to the same records.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn r_conventions_05_written_corpus_files_read_back_strictly() {
    let mut checked = 0;
    for path in corpus_files() {
        if path
            .extension()
            .is_none_or(|e| !e.eq_ignore_ascii_case("ged"))
            || std::fs::metadata(&path).map_or(true, |m| m.len() > 2_000_000)
        {
            continue;
        }
        let bytes = std::fs::read(&path).expect("read corpus file");
        let (p, l) = lowered(&bytes);
        if l.all_diagnostics(&p)
            .iter()
            .any(|d| d.class != Class::Warning)
        {
            continue;
        }
        let written = p.to_bytes().expect("write back");
        let (_, again) = strict(&written);
        let name = corpus_name(&path);
        assert_eq!(again.stopped_at, None, "{name}");
        assert_eq!(shape(&again.dataset), shape(&l.dataset), "{name}");
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} error-free corpus files");
}

// ----- Encodings and versions -----

/// ELF-2019 R-SPECIFIED-ENC-16: the error for an unsupported encoding never arises, because every encoding
/// the `CHAR` mapping gives is one gedgraft decodes: `1 CHAR ANSI ⏎ 2 VERS 1250` picks windows-1250, and its
/// octet B9 reads as `ą`.
#[test]
fn r_specified_enc_16_the_mapped_encoding_is_supported() {
    let (p, l) = lowered(b"0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n0 @N1@ NOTE \xB9\n0 TRLR\n");
    assert_eq!(p.encoding().to_string(), "windows-1250");
    assert!(findings(&p, &l).is_empty(), "{:?}", findings(&p, &l));
    assert_eq!(text_of(&l.dataset, "N1"), Some("ą"));
}

/// ELF-2019 R-GEDCOM-VERSION-04: `2 VERS 5.3` is not a supported version: lenient mode carries on with a
/// diagnostic on line 3; strict mode stops.
#[test]
fn r_gedcom_version_04_unknown_version_is_reported() {
    let input = b"0 HEAD\n1 GEDC\n2 VERS 5.3\n2 FORM LINEAGE-LINKED\n0 @N1@ NOTE x\n0 TRLR\n";
    let (p, l) = lowered(input);
    assert!(
        findings(&p, &l).contains(&(mc::UNSUPPORTED_GEDCOM_VERSION, Class::NonConformant, 3)),
        "{:?}",
        findings(&p, &l)
    );
    assert_eq!(text_of(&l.dataset, "N1"), Some("x"));
    let (_, l) = strict(input);
    assert!(l.stopped_at.is_some());
}

// ----- Serialising, escaping -----

/// ELF-2019 R-SERIALISING-STRUCTS-13: the even-`@` rule is not enforced when parsing: `1 EMAIL
/// name@example.com` gives `name@example.com`, read as written, and even strict mode goes on; the split
/// `@#DGREG ⏎ 3 CONC ORIAN@` draws only the escape's own diagnostic, none about the count of `@`s.
///
/// The draft calls this data non-conformant (L1557) and says only that the rule is not *enforced*; the
/// catalogue's "no diagnostic" is its gloss. `check` gives the advice to double the `@` as the warning
/// `unescaped-at` (issue 13), which enforces nothing: no error, no change, no stop.
#[test]
fn r_serialising_structs_13_odd_at_signs_are_not_an_error() {
    let input = b"0 HEAD\n0 @I1@ INDI\n1 EMAIL name@example.com\n0 TRLR\n";
    let (p, l) = lowered(input);
    assert_eq!(
        findings(&p, &l),
        [(sc::UNESCAPED_AT, Class::Warning, 3)],
        "advice only"
    );
    let (_, strict_l) = strict(input);
    assert!(strict_l.stopped_at.is_none(), "strict mode is not stopped");
    let email = l
        .dataset
        .record_by_xref("I1")
        .and_then(|i| i.child("EMAIL"));
    assert_eq!(email.and_then(|e| e.text()), Some("name@example.com"));
    let (p, l) =
        lowered(b"0 HEAD\n0 @I1@ INDI\n1 BIRT\n2 DATE @#DGREG\n3 CONC ORIAN@ 2 JAN 2019\n0 TRLR\n");
    let codes: Vec<_> = findings(&p, &l).into_iter().map(|f| f.0).collect();
    // Each line is unescaped on its own (R-PAYLOAD-UNESC-06, reading A): line 4's `@#` is unterminated and
    // line 5's `@` is bare. Neither is about the count of `@`s.
    assert_eq!(
        codes,
        [sc::UNTERMINATED_ESCAPE, sc::UNESCAPED_AT],
        "the escape and the bare `@`, nothing about odd counts"
    );
}

/// ELF-2019 R-SERIALISING-LINES-04: `1 FAMC␠␠@F9@` is read: the second space is the optional `S` before the
/// pointer; no warning.
#[test]
fn r_serialising_lines_04_two_spaces_before_a_pointer() {
    let (p, l) = lowered(b"0 HEAD\n0 @F9@ FAM\n0 @I1@ INDI\n1 FAMC  @F9@\n0 TRLR\n");
    assert!(findings(&p, &l).is_empty(), "{:?}", findings(&p, &l));
    let famc = l.dataset.record_by_xref("I1").and_then(|i| i.child("FAMC"));
    assert_eq!(famc.and_then(|f| f.pointer()).map(|p| p.target), Some("F9"));
    assert_eq!(
        famc.and_then(|f| f.target()).and_then(|t| t.xref()),
        Some("F9")
    );
}

/// ELF-2019 R-ESCAPING-04: a single unescaped `@` reads as though escaped: `name@example.com`.
#[test]
fn r_escaping_04_single_at_reads_as_escaped() {
    let (_, l) = lowered(
        b"0 HEAD\n0 @I1@ INDI\n1 EMAIL name@example.com\n0 @N1@ NOTE name@@example.com\n0 TRLR\n",
    );
    let email = l
        .dataset
        .record_by_xref("I1")
        .and_then(|i| i.child("EMAIL"));
    assert_eq!(email.and_then(|e| e.text()), text_of(&l.dataset, "N1"));
    assert_eq!(text_of(&l.dataset, "N1"), Some("name@example.com"));
}

/// ELF-2019 R-ESCAPE-SEQ-05: the escape type is the letter after `@#`: `@#UE9@` is a Unicode escape (decoded),
/// `@#DJULIAN@` a date escape (kept).
#[test]
fn r_escape_seq_05_type_is_the_letter_after_hash() {
    let (p, l) = lowered(b"0 HEAD\n0 @N1@ NOTE @#UE9@\n0 @N2@ NOTE @#DJULIAN@ 1540\n0 TRLR\n");
    assert!(findings(&p, &l).is_empty(), "{:?}", findings(&p, &l));
    assert_eq!(text_of(&l.dataset, "N1"), Some("é"));
    assert_eq!(text_of(&l.dataset, "N2"), Some("@#DJULIAN@ 1540"));
}

/// ELF-2019 R-PAYLOAD-UNESC-02: `@@` becomes `@`, Unicode escapes become their characters, other escapes stay:
/// `1 NOTE a@@b@#U21@` → `a@b!`; `2 DATE @#DJULIAN@ 30 JAN 1649` keeps its escape.
#[test]
fn r_payload_unesc_02_at_signs_and_unicode_escapes_are_replaced() {
    let (p, l) = lowered(
        b"0 HEAD\n0 @N1@ NOTE a@@b@#U21@\n0 @I1@ INDI\n1 DEAT\n2 DATE @#DJULIAN@ 30 JAN 1649\n0 TRLR\n",
    );
    assert!(findings(&p, &l).is_empty(), "{:?}", findings(&p, &l));
    assert_eq!(text_of(&l.dataset, "N1"), Some("a@b!"));
    let date = l
        .dataset
        .record_by_xref("I1")
        .and_then(|i| i.child("DEAT"))
        .and_then(|d| d.child("DATE"));
    assert_eq!(date.and_then(|d| d.text()), Some("@#DJULIAN@ 30 JAN 1649"));
}

/// ELF-2019 R-IDENTIFY-ESCS-02: `@@` is an escaped at sign and the scan resumes after it: `name@@example.com`
/// → `name@example.com`; `@@@` → `@@` then a bare `@`, read as `@@`.
#[test]
fn r_identify_escs_02_double_at_is_one_escaped_at() {
    let (p, l) = lowered(b"0 HEAD\n0 @N1@ NOTE name@@example.com\n0 @N2@ NOTE @@@\n0 TRLR\n");
    // Only the bare third `@` of `@@@` draws the advice to double it.
    assert_eq!(findings(&p, &l), [(sc::UNESCAPED_AT, Class::Warning, 3)]);
    assert_eq!(text_of(&l.dataset, "N1"), Some("name@example.com"));
    assert_eq!(text_of(&l.dataset, "N2"), Some("@@"));
}

/// ELF-2019 R-IDENTIFY-ESCS-03: `@#` starts an escape that ends at the next `@`, and the scan resumes after
/// it: `x@#UE9@@@y` → the escape, then `@@`: `xé@y`.
#[test]
fn r_identify_escs_03_escape_ends_at_the_next_at() {
    let (p, l) = lowered(b"0 HEAD\n0 @N1@ NOTE x@#UE9@@@y\n0 TRLR\n");
    assert!(findings(&p, &l).is_empty(), "{:?}", findings(&p, &l));
    assert_eq!(text_of(&l.dataset, "N1"), Some("xé@y"));
}

/// ELF-2019 R-PERMITTED-ESCS-02: not schema-aware, gedgraft applies exactly rules -03 to -05: `U` and `D`
/// permitted, every other type not.
#[test]
fn r_permitted_escs_02_non_schema_aware_rules() {
    let (p, l) = lowered(
        b"0 HEAD\n0 @N1@ NOTE @#U41@\n0 @N2@ NOTE @#DJULIAN@\n0 @N3@ NOTE @#XFOO@\n0 TRLR\n",
    );
    let f = findings(&p, &l);
    assert_eq!(f, [(mc::UNPERMITTED_ESCAPE, Class::NonConformant, 4)]);
}

/// ELF-2019 R-PERMITTED-ESCS-03: type `U` is permitted: `1 NOTE @#U41@` → `A`. In serialisation metadata it
/// never reaches unescaping: `1 ELF 1@#U2E@0` is no version.
#[test]
fn r_permitted_escs_03_unicode_escapes_are_permitted() {
    let (p, l) = lowered(b"0 HEAD\n0 @N1@ NOTE @#U41@\n0 TRLR\n");
    assert!(findings(&p, &l).is_empty(), "{:?}", findings(&p, &l));
    assert_eq!(text_of(&l.dataset, "N1"), Some("A"));
    let (p, l) = lowered(b"0 HEAD\n1 ELF 1@#U2E@0\n0 TRLR\n");
    assert_eq!(l.dataset.metadata.elf_version, None);
    assert!(
        findings(&p, &l).iter().any(|f| f.2 == 2),
        "{:?}",
        findings(&p, &l)
    );
}

/// ELF-2019 R-PERMITTED-ESCS-04: type `D` is permitted in every structure: `DATE` and `AGE` both, no
/// diagnostic.
#[test]
fn r_permitted_escs_04_date_escapes_are_permitted_everywhere() {
    let (p, l) = lowered(
        b"0 HEAD\n0 @I1@ INDI\n1 DEAT\n2 DATE @#DJULIAN@ 30 JAN 1649\n2 AGE @#DJULIAN@ 48y\n0 TRLR\n",
    );
    assert!(findings(&p, &l).is_empty(), "{:?}", findings(&p, &l));
    let deat = l
        .dataset
        .record_by_xref("I1")
        .and_then(|i| i.child("DEAT"))
        .expect("DEAT");
    assert_eq!(
        deat.child("AGE").and_then(|a| a.text()),
        Some("@#DJULIAN@ 48y")
    );
}

/// ELF-2019 R-PERMITTED-ESCS-05: no other escape type is permitted: `@#AFOO@`, `@#CANSEL@`, `@#FX@` and
/// `@#L12@` are non-conformant structures.
#[test]
fn r_permitted_escs_05_other_escape_types_are_not_permitted() {
    let (p, l) = lowered(
        b"0 HEAD\n0 @N1@ NOTE @#AFOO@\n0 @N2@ NOTE @#CANSEL@\n0 @N3@ NOTE @#FX@\n0 @N4@ NOTE @#L12@\n0 TRLR\n",
    );
    let f = findings(&p, &l);
    let want: Vec<_> = (2..=5)
        .map(|line| (mc::UNPERMITTED_ESCAPE, Class::NonConformant, line))
        .collect();
    assert_eq!(f, want);
}

// ----- Continuation lines -----

/// ELF-2019 R-MERGE-CONTS-01: `CONC` and `CONT` substructures are continuation substructures, recognised by
/// tag: before merging, `1 NOTE a ⏎ 2 CONT b` has one; after, none is left as a substructure.
#[test]
fn r_merge_conts_01_continuations_are_recognised_by_tag() {
    let input = b"0 HEAD\n0 @N1@ NOTE a\n1 CONT b\n0 TRLR\n";
    let p = parse(input);
    let note = p.document().records().nth(1).expect("the NOTE record");
    assert_eq!(note.continuation_lines().count(), 1);
    let (_, l) = lowered(input);
    let n1 = l.dataset.record_by_xref("N1").expect("N1");
    assert_eq!(n1.children().count(), 0);
    assert_eq!(n1.text(), Some("a\nb"));
}

/// ELF-2019 R-MERGE-CONTS-03: a continuation with substructures is a malformed structure: `2 CONT b ⏎ 3 CONC c`
/// and `2 CONT b ⏎ 3 SOUR x`.
#[test]
fn r_merge_conts_03_continuation_with_substructures_is_malformed() {
    let code = sc::CONTINUATION_WITH_SUBSTRUCTURES;
    for child in ["CONC c", "SOUR x"] {
        let input = format!("0 HEAD\n0 @N1@ NOTE a\n1 CONT b\n2 {child}\n0 TRLR\n");
        let (p, l) = lowered(input.as_bytes());
        assert!(
            findings(&p, &l).contains(&(code, Class::MalformedStructure, 4)),
            "{child}: {:?}",
            findings(&p, &l)
        );
        let (_, l) = strict(input.as_bytes());
        assert!(l.stopped_at.is_some(), "{child}");
    }
}

/// ELF-2019 R-MERGE-CONTS-08: continuations merge one at a time, in order: `a ⏎ CONC b ⏎ CONC c` → `abc`.
#[test]
fn r_merge_conts_08_continuations_merge_in_order() {
    let (_, l) = lowered(b"0 HEAD\n0 @N1@ NOTE a\n1 CONC b\n1 CONC c\n0 TRLR\n");
    assert_eq!(text_of(&l.dataset, "N1"), Some("abc"));
}

/// ELF-2019 R-MERGE-CONTS-09: a `CONT` appends a line break first, a `CONC` does not: `a\nb` and `ab`.
#[test]
fn r_merge_conts_09_cont_appends_a_line_break() {
    let (_, l) = lowered(b"0 HEAD\n0 @N1@ NOTE a\n1 CONT b\n0 @N2@ NOTE a\n1 CONC b\n0 TRLR\n");
    assert_eq!(text_of(&l.dataset, "N1"), Some("a\nb"));
    assert_eq!(text_of(&l.dataset, "N2"), Some("ab"));
}

// ----- Pointers -----

/// ELF-2019 R-POINTER-CONV-04: no meaning in the text of an xref_id: renaming `@I1@` to `@X9@` and `@F1@` to
/// `@I7@` consistently gives the same dataset, up to the renaming.
#[test]
fn r_pointer_conv_04_xref_text_has_no_meaning() {
    let (pa, a) = lowered(b"0 HEAD\n0 @I1@ INDI\n1 FAMS @F1@\n0 @F1@ FAM\n1 HUSB @I1@\n0 TRLR\n");
    let (pb, b) = lowered(b"0 HEAD\n0 @X9@ INDI\n1 FAMS @I7@\n0 @I7@ FAM\n1 HUSB @X9@\n0 TRLR\n");
    assert_eq!(findings(&pa, &a), findings(&pb, &b));
    let renamed: Vec<String> = shape(&a.dataset)
        .iter()
        .map(|s| s.replace("@I1@", "@X9@").replace("@F1@", "@I7@"))
        .collect();
    assert_eq!(renamed, shape(&b.dataset));
    let husb = b.dataset.record_by_xref("I7").and_then(|f| f.child("HUSB"));
    assert_eq!(husb.and_then(|h| h.target()).map(|t| t.tag()), Some("INDI"));
}

/// ELF-2019 R-POINTER-CONV-11: the `UNDEF` record made for a pointer to nothing has no payload and no
/// substructures.
#[test]
fn r_pointer_conv_11_undef_record_is_empty() {
    let (_, l) = lowered(b"0 HEAD\n0 @F1@ FAM\n1 CHIL @I9@\n0 TRLR\n");
    let undef = l
        .dataset
        .records_with_tag("UNDEF")
        .next()
        .expect("an UNDEF record");
    assert_eq!(undef.payload(), None);
    assert_eq!(undef.children().count(), 0);
    let chil = l.dataset.record_by_xref("F1").and_then(|f| f.child("CHIL"));
    assert_eq!(
        chil.and_then(|c| c.target()).map(|t| t.id()),
        Some(undef.id())
    );
}

// ----- Escape preservation -----

/// ELF-2019 R-ESCAPE-PRES-01: Unicode escapes follow their own rules, never the preservation ones: in an
/// escape-preserving `DATE`, `@#UE9@` is decoded, neither kept nor doubled.
#[test]
fn r_escape_pres_01_unicode_escapes_are_never_preserved() {
    let (p, l) = lowered(b"0 HEAD\n0 @I1@ INDI\n1 BIRT\n2 DATE @#UE9@ 1540\n0 TRLR\n");
    assert!(findings(&p, &l).is_empty(), "{:?}", findings(&p, &l));
    let date = l
        .dataset
        .record_by_xref("I1")
        .and_then(|i| i.child("BIRT"))
        .and_then(|b| b.child("DATE"));
    assert_eq!(date.and_then(|d| d.text()), Some("é 1540"));
}

/// ELF-2019 R-ESCAPE-PRES-04: in an escape-preserving structure a preserved escape is kept unchanged:
/// `2 DATE ABT @#DJULIAN@ 1540` → `ABT @#DJULIAN@ 1540`.
#[test]
fn r_escape_pres_04_preserved_escape_is_kept() {
    let (p, l) = lowered(b"0 HEAD\n0 @I1@ INDI\n1 BIRT\n2 DATE ABT @#DJULIAN@ 1540\n0 TRLR\n");
    assert!(findings(&p, &l).is_empty(), "{:?}", findings(&p, &l));
    let date = l
        .dataset
        .record_by_xref("I1")
        .and_then(|i| i.child("BIRT"))
        .and_then(|b| b.child("DATE"));
    assert_eq!(date.and_then(|d| d.text()), Some("ABT @#DJULIAN@ 1540"));
}
