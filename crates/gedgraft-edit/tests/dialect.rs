//! Every edit follows the file's dialect: in GEDCOM 7 (FamilySearch GEDCOM 7.0,
//! `../shared/spec/gedcom7/gedcom-1-hierarchical-container-format.md`) only a leading `@` is doubled, there is
//! no `CONC`, and the file is UTF-8 only.

mod common;

use common::{check, edit};
use gedgraft_edit::{EditError, Editor, NewStructure, Position, RawOctets, Warning};
use gedgraft_syntax::encoding::Encoding;
use gedgraft_syntax::{parse, Dialect};

const SEVEN: &[u8] = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 EMAIL me@example.com\n1 NOTE @me and a@b\n2 CONT @I too\n0 TRLR\n";

#[test]
fn escape_at_in_gedcom7_doubles_only_a_leading_at() {
    let out = edit(SEVEN, |e| assert_eq!(e.escape_at_signs(None), 2));
    assert_eq!(
        out,
        b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 EMAIL me@example.com\n1 NOTE @@me and a@b\n2 CONT @@I too\n0 TRLR\n"
    );
    // Every bare `@` in GEDCOM 5.5.1.
    let old = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 @I1@ INDI\n1 EMAIL me@example.com\n0 TRLR\n";
    let out = edit(old, |e| assert_eq!(e.escape_at_signs(None), 1));
    assert!(out.ends_with(b"1 EMAIL me@@example.com\n0 TRLR\n"));
}

#[test]
fn rewrap_in_gedcom7_does_nothing_and_warns() {
    let long = format!(
        "0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @N1@ SNOTE {}\n0 TRLR\n",
        "word ".repeat(80)
    );
    let parse = parse(long.as_bytes());
    let mut editor = Editor::new(&parse);
    assert_eq!(editor.rewrap(Some(40), None), Ok(0));
    let edited = editor.apply().expect("apply");
    assert_eq!(edited.bytes(), long.as_bytes());
    assert_eq!(
        edited.warnings(),
        [Warning::NotInDialect {
            dialect: Dialect::GEDCOM_7_0,
            what: "re-wrapped: it has no CONC lines and its lines may be as long as they need",
        }]
    );
}

#[test]
fn set_and_insert_in_gedcom7_escape_only_a_leading_at_and_never_split() {
    let value = format!("@x me@example.com a@@b {}", "long ".repeat(80));
    let parse = parse(SEVEN);
    let indi = parse.document().record_by_xref("I1").expect("I1");
    let email = indi.substructures().next().expect("EMAIL");
    let mut editor = Editor::new(&parse);
    editor.set_line_limit(40).expect("limit");
    editor.set_payload(&email, &value).expect("set");
    let new = NewStructure::new("NOTE").text("@y\n@z and w@v");
    editor
        .insert(&indi, Position::LastChild, &new)
        .expect("insert");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    let text = String::from_utf8(edited.bytes().to_vec()).expect("UTF-8");
    assert!(text.contains(&format!("\n1 EMAIL @{value}\n")), "{text}");
    assert!(
        text.contains("\n1 NOTE @@y\n2 CONT @@z and w@v\n"),
        "{text}"
    );
    assert!(!text.contains("CONC"));
}

#[test]
fn transcode_in_gedcom7_only_to_utf8() {
    let parse = parse(SEVEN);
    for to in [Encoding::Ansel, Encoding::Ascii, Encoding::Utf16Le] {
        let mut editor = Editor::new(&parse);
        editor.transcode(to, RawOctets::Refuse);
        match editor.apply() {
            Err(EditError::DialectForbids { dialect, .. }) => {
                assert_eq!(dialect, Dialect::GEDCOM_7_0)
            }
            other => panic!("{to}: {:?}", other.map(|e| e.bytes().to_vec())),
        }
    }
    // To UTF-8: allowed, and no CHAR is added (7.0 has none).
    let out = edit(SEVEN, |e| e.transcode(Encoding::Utf8, RawOctets::Refuse));
    assert_eq!(out, SEVEN);
}

/// GEDCOM 7.0 § Lines: `Xref = atsign 1*tagchar atsign ; but not "@VOID@"`, `tagchar = ucletter / DIGIT /
/// underscore`, and `@VOID@` is the null pointer. A structure renumbered `VOID` took over every null pointer
/// (`HEAD.SUBM @VOID@` led to it, found by a helper), and `x2` or `a.b` made identifiers 7.0 forbids: refused,
/// by `set_xref` and `insert` alike, and allowed in 5.5.1. A new pointer to `@VOID@` is no dangling pointer.
#[test]
fn gedcom7_identifiers_are_upper_case_and_never_void() {
    let seven = parse(b"0 HEAD\n1 GEDC\n2 VERS 7.0\n1 SUBM @VOID@\n0 @X1@ SNOTE a\n0 @I1@ INDI\n1 SNOTE @X1@\n0 TRLR\n");
    let five =
        parse(b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n0 @X1@ NOTE a\n0 @I1@ INDI\n1 NOTE @X1@\n0 TRLR\n");
    for (parse, gedcom7) in [(&seven, true), (&five, false)] {
        let x1 = parse.document().record_by_xref("X1").expect("X1");
        let indi = parse.document().record_by_xref("I1").expect("I1");
        for id in ["VOID", "x2", "a.b"] {
            let mut editor = Editor::new(parse);
            let set = editor.set_xref(&x1, Some(id));
            assert_eq!(
                matches!(set, Err(EditError::InvalidXref { .. })),
                gedcom7,
                "{id}: {set:?}"
            );
            let mut editor = Editor::new(parse);
            let new = NewStructure::new("_X").xref(id);
            let inserted = editor.insert(&indi, Position::After, &new);
            assert_eq!(
                matches!(inserted, Err(EditError::InvalidXref { .. })),
                gedcom7,
                "{id}: {inserted:?}"
            );
        }
        let mut editor = Editor::new(parse);
        editor
            .set_xref(&x1, Some("X_9"))
            .expect("upper case, digits and `_`");
        editor.apply().expect("applied");
        let mut editor = Editor::new(parse);
        let pointer = indi.substructures().next().expect("pointer");
        editor.set_pointer(&pointer, "VOID").expect("set");
        let edited = editor.apply().expect("applied");
        let dangles = edited
            .warnings()
            .iter()
            .any(|w| matches!(w, Warning::DanglingPointers { .. }));
        assert_eq!(dangles, !gedcom7, "{:?}", edited.warnings());
    }
}

/// GEDCOM 7.0 § Characters: the C0 controls but tab and line endings, and DEL, must not appear, and 7.0 has
/// no escape to write one: new text holding one is refused (`--set` wrote a raw ESC, found by a helper), as a
/// CR is; a new pointer's identifier follows `Xref` as a new identifier does, `@VOID@` aside.
#[test]
fn gedcom7_refuses_control_characters_and_lower_case_pointers() {
    let seven = parse(
        b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 NAME x\n1 FAMC @F1@\n0 @F1@ FAM\n0 TRLR\n",
    );
    let indi = seven.document().record_by_xref("I1").expect("I1");
    let mut children = indi.substructures();
    let (name, famc) = (
        children.next().expect("NAME"),
        children.next().expect("FAMC"),
    );
    for c in ['\u{1b}', '\u{1}', '\u{7f}', '\u{b}'] {
        let mut editor = Editor::new(&seven);
        let refused = editor.set_payload(&name, &format!("a{c}b"));
        assert!(
            matches!(refused, Err(EditError::DialectForbids { .. })),
            "{c:?}: {refused:?}"
        );
    }
    let mut editor = Editor::new(&seven);
    editor
        .set_payload(&name, "a\tb\nc")
        .expect("a tab and a line feed");
    let mut editor = Editor::new(&seven);
    let refused = editor.set_pointer(&famc, "f2");
    assert!(
        matches!(refused, Err(EditError::InvalidXref { .. })),
        "{refused:?}"
    );
    editor.set_pointer(&famc, "VOID").expect("the null pointer");
}
