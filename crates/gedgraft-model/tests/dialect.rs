//! The lowering by the file's dialect: GEDCOM 7's `@` rule, `CONC`, header rules, `@VOID@`; GEDCOM 5.5.5's
//! header; the dialect in the metadata. GEDCOM 7.0 rules are from FamilySearch GEDCOM 7.0
//! (`../shared/spec/gedcom7/gedcom-1-hierarchical-container-format.md`).

mod common;

use common::*;
use gedgraft_model::{codes as c, to_json, Payload};
use gedgraft_syntax::{codes as sc, Dialect};

const HEAD7: &str = "0 HEAD\n1 GEDC\n2 VERS 7.0\n";

fn seven(body: &str) -> (gedgraft_syntax::Parse, gedgraft_model::Lowered) {
    lowered(format!("{HEAD7}{body}\n0 TRLR\n").as_bytes())
}

/// 7.0 § Lines, the specification's example: only a leading `@` is doubled.
#[test]
fn gedcom7_doubles_only_a_leading_at() {
    let (p, l) = seven(
        "0 @I1@ INDI\n1 NOTE me@example.com is my email\n2 CONT @@me and @I are my social media handles",
    );
    assert_eq!(p.dialect(), Dialect::GEDCOM_7_0);
    assert_eq!(codes(&l), Vec::<&str>::new());
    let indi = record(&l.dataset, "INDI");
    assert_eq!(
        indi.child("NOTE").and_then(|n| n.text()),
        Some("me@example.com is my email\n@me and @I are my social media handles")
    );
}

/// `a@@b` is literally `a@@b` in 7.0, and `@#…@` past the first character is text (there are no escapes).
#[test]
fn gedcom7_has_no_inner_escapes() {
    let (p, l) = seven("0 @N1@ SNOTE a@@b @#UE9@ @#DJULIAN@ 50@#1\n1 CONT x @#");
    assert_eq!(
        record_text(&l.dataset, "SNOTE"),
        "a@@b @#UE9@ @#DJULIAN@ 50@#1\nx @#"
    );
    // The syntax layer's escape diagnostics do not apply in 7.0.
    assert!(syntax_codes(&p).contains(&sc::UNTERMINATED_ESCAPE));
    assert!(l.all_diagnostics(&p).is_empty());
    // The same lines in GEDCOM 5.5.1: `@@` is one `@` and `@#UE9@` is `é`.
    let (_, l) = lowered(
        b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 @N1@ NOTE a@@b @#UE9@\n0 TRLR\n",
    );
    assert_eq!(record_text(&l.dataset, "NOTE"), "a@b \u{e9}");
}

#[test]
fn gedcom7_leading_single_at_is_non_conformant_and_kept() {
    let (_, l) = seven("0 @N1@ SNOTE @me\n1 CONT @#DJULIAN@ 1700");
    assert_eq!(
        codes(&l),
        [c::UNESCAPED_LEADING_AT, c::UNESCAPED_LEADING_AT]
    );
    assert_eq!(record_text(&l.dataset, "SNOTE"), "@me\n@#DJULIAN@ 1700");
}

/// 7.0 § Lines: `Xref = atsign 1*tagchar atsign ; but not "@VOID@"` (tagchar: upper-case letters, digits, `_`)
/// and `pointer = voidPtr / Xref`: a lower-case or punctuated identifier or pointer, and a structure identified
/// `@VOID@`, are non-conformant and kept as written; `@VOID@` as a pointer is the null pointer. In 5.5.1 the
/// same identifiers are fine (R-XREF-IDS-01).
#[test]
fn gedcom7_identifiers_outside_xref_are_non_conformant() {
    let body =
        "0 @i1@ INDI\n1 FAMC @F-1@\n1 NOTE @VOID@\n0 @VOID@ SNOTE v\n0 @F-1@ FAM\n0 @I_2@ INDI";
    let (p, l) = seven(body);
    let found: Vec<(&str, usize)> = (l.all_diagnostics(&p).iter())
        .map(|d| (d.code, d.location.line))
        .collect();
    assert_eq!(
        found,
        [
            (c::XREF_NOT_ALLOWED, 4),
            (c::XREF_NOT_ALLOWED, 5),
            (c::XREF_NOT_ALLOWED, 7),
            (c::XREF_NOT_ALLOWED, 8)
        ]
    );
    // Kept: the family is still the child's.
    let indi = record(&l.dataset, "INDI");
    assert!(
        matches!(indi.child("FAMC").and_then(|f| f.payload()), Some(Payload::Pointer(p)) if p.target == "F-1" && p.record.is_some())
    );
    let (p, l) = lowered(
        format!("0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n{body}\n0 TRLR\n").as_bytes(),
    );
    assert!(!l
        .all_diagnostics(&p)
        .iter()
        .any(|d| d.code == c::XREF_NOT_ALLOWED));
}

/// 7.0 § Lines: `CONC` does not appear in version 7. Reported, and merged as 5.5.1 would.
#[test]
fn gedcom7_conc_is_non_conformant_and_merged() {
    let (_, l) = seven("0 @N1@ SNOTE ab\n1 CONC cd");
    assert_eq!(codes(&l), [c::CONC_NOT_ALLOWED]);
    assert_eq!(record_text(&l.dataset, "SNOTE"), "abcd");
}

/// 7.0 § The Header, § Characters: `GEDC` with `VERS` and no `FORM`; UTF-8 only.
#[test]
fn gedcom7_header_rules() {
    let (_, l) = seven("0 @I1@ INDI");
    assert_eq!(codes(&l), Vec::<&str>::new());
    assert_eq!(
        l.dataset.metadata.gedcom_version.map(|v| v.to_string()),
        Some("7.0.0".into())
    );
    assert_eq!(l.dataset.metadata.dialect, Dialect::GEDCOM_7_0);
    let (_, l) = lowered(b"0 HEAD\n1 CHAR UTF-8\n1 GEDC\n2 VERS 7.0\n0 TRLR\n");
    assert_eq!(codes(&l), Vec::<&str>::new(), "CHAR UTF-8 is harmless");
    let (_, l) =
        lowered(b"0 HEAD\n1 GEDC\n2 VERS 7.0\n2 FORM LINEAGE-LINKED\n1 CHAR ANSEL\n0 TRLR\n");
    assert_eq!(codes(&l), [c::BAD_GEDC, c::ENCODING_NOT_ALLOWED]);
    let (_, l) = lowered(b"0 HEAD\n1 GEDC\n0 TRLR\n");
    assert_eq!(codes(&l), [c::BAD_GEDC, c::BAD_GEDC], "no VERS, no FORM");
    let mut utf16 = vec![0xFE, 0xFF];
    utf16.extend(
        "0 HEAD\n1 GEDC\n2 VERS 7.0\n0 TRLR\n"
            .encode_utf16()
            .flat_map(u16::to_be_bytes),
    );
    let (_, l) = lowered(&utf16);
    assert_eq!(codes(&l), [c::ENCODING_NOT_ALLOWED]);
}

/// 7.0 `voidPtr`: `@VOID@` is a null pointer, not an undefined one.
#[test]
fn gedcom7_void_is_a_null_pointer() {
    let (_, l) = seven("0 @F1@ FAM\n1 HUSB @VOID@");
    assert_eq!(codes(&l), Vec::<&str>::new());
    let husb = record(&l.dataset, "FAM").child("HUSB").expect("HUSB");
    match husb.payload() {
        Some(Payload::Pointer(p)) => assert!(p.record.is_none() && !p.undefined),
        other => panic!("{other:?}"),
    }
    assert!(l.dataset.records_with_tag("UNDEF").next().is_none());
    // In 5.5.1 it is an ordinary identifier no record has.
    let (_, l) = body("1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 @F1@ FAM\n1 HUSB @VOID@");
    assert_eq!(codes(&l), [c::UNDEFINED_POINTER]);
}

#[test]
fn gedcom555_header_is_accepted() {
    let (p, l) = lowered(
        b"0 HEAD\n1 GEDC\n2 VERS 5.5.5\n2 FORM LINEAGE-LINKED\n3 VERS 5.5.5\n1 CHAR UTF-8\n0 @N1@ NOTE a@@b\n0 TRLR\n",
    );
    assert_eq!(p.dialect(), Dialect::Gedcom555);
    assert_eq!(codes(&l), Vec::<&str>::new());
    assert_eq!(record_text(&l.dataset, "NOTE"), "a@b");
    // R-GEDCOM-VERSION-03: other versions stay unsupported.
    let (_, l) = body("1 GEDC\n2 VERS 4.0\n2 FORM LINEAGE-LINKED");
    assert_eq!(codes(&l), [c::UNSUPPORTED_GEDCOM_VERSION]);
}

#[test]
fn the_json_metadata_names_the_dialect() {
    for (text, name) in [
        ("0 HEAD\n1 GEDC\n2 VERS 7.0\n0 TRLR\n", "GEDCOM 7.0"),
        ("0 HEAD\n1 ELF 1.0\n0 TRLR\n", "ELF 1.0"),
        ("0 HEAD\n0 TRLR\n", "unknown"),
    ] {
        let (p, l) = lowered(text.as_bytes());
        let v: serde_json::Value = serde_json::from_str(&to_json("x.ged", &p, &l)).expect("JSON");
        assert_eq!(v["metadata"]["dialect"], name);
        let json = serde_json::to_value(&l.dataset.metadata).expect("serde");
        assert_eq!(json["dialect"], name);
    }
}
