//! Each edit kind on small inputs: what it writes, what it leaves alone, what it refuses.
//! Requirement IDs (R-…) refer to `../shared/spec/requirements.md`.

mod common;

use common::{check, edit, lines_with_breaks, logical, parse_as, utf16le_lines};
use gedgraft_edit::{
    compose_changes, EditError, Editor, LfCr, LineBreak, NewStructure, Position, RawOctets, Scope,
    Warning,
};
use gedgraft_syntax::ast::{AstNode, AstToken, Structure};
use gedgraft_syntax::encoding::Encoding;
use gedgraft_syntax::parse;

fn scope(path: &str) -> Scope {
    Scope::parse(path).expect("path")
}

fn first_sub(parse: &gedgraft_syntax::Parse, xref: &str) -> Structure {
    parse
        .document()
        .record_by_xref(xref)
        .expect("record")
        .substructures()
        .next()
        .expect("substructure")
}

const SAMPLE: &[u8] = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Bob /Smith/\n1 NOTE a\n2 CONT b\n0 @I2@ INDI\n1 NAME Ann\n1 FAMS @F1@\n0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n0 TRLR\n";

/// Invariant 3 (edit locality): records the edit does not touch are the very same green nodes.
#[test]
fn untouched_records_are_the_same_green_nodes() {
    let parse = parse(SAMPLE);
    let name = first_sub(&parse, "I2");
    let mut editor = Editor::new(&parse);
    editor.set_payload(&name, "Anne").expect("set");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    let old: Vec<_> = parse.document().records().collect();
    let new: Vec<_> = edited.parse().document().records().collect();
    assert_eq!(old.len(), new.len());
    for (i, (a, b)) in old.iter().zip(&new).enumerate() {
        let same = std::ptr::eq(a.syntax().green(), b.syntax().green());
        assert_eq!(same, i != 2, "record {i}");
    }
    // Inside the edited record, the untouched FAMS structure is shared too.
    let fams_old = old[2].substructures().nth(1).expect("FAMS");
    let fams_new = new[2].substructures().nth(1).expect("FAMS");
    assert!(std::ptr::eq(
        fams_old.syntax().green(),
        fams_new.syntax().green()
    ));
}

#[test]
fn r_applications_03_only_the_changed_line_differs() {
    // CR LF, a tab separator, trailing spaces, `1 FAMC  @F9@`, an unescaped `@`, a UTF-8 BOM, junk lines.
    let input = b"\xEF\xBB\xBF0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1 NAME\tBob  \r\n1 FAMC  @F9@\r\n1 EMAIL name@example.com\r\n  \r\n1 NOTE x\r\n0 TRLR\r\n";
    let parse = parse(input);
    let note = parse
        .document()
        .record_by_xref("I1")
        .expect("I1")
        .substructures()
        .nth(3)
        .expect("NOTE");
    let mut editor = Editor::new(&parse);
    editor.set_payload(&note, "New Name").expect("set");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    let mut expected = input.to_vec();
    let at = expected
        .windows(8)
        .position(|w| w == b"1 NOTE x")
        .expect("NOTE line");
    expected.splice(at + 7..at + 8, b"New Name".iter().copied());
    assert_eq!(edited.bytes(), expected);
    assert_eq!(edited.changed_ranges().len(), 1);
}

#[test]
fn rename_everywhere_and_in_scope() {
    let out = edit(SAMPLE, |e| {
        assert_eq!(e.rename_tag("NAME", "_NAME", None).expect("rename"), 2);
    });
    assert_eq!(
        String::from_utf8(out)
            .expect("utf8")
            .matches("1 _NAME ")
            .count(),
        2
    );
    let out = edit(SAMPLE, |e| {
        assert_eq!(
            e.rename_tag("NAME", "_NAME", Some(&scope("@I2@")))
                .expect("rename"),
            1
        );
    });
    let text = String::from_utf8(out).expect("utf8");
    assert!(text.contains("1 NAME Bob /Smith/\n") && text.contains("1 _NAME Ann\n"));
}

#[test]
fn r_tags_01_03_rename_validation() {
    let parse = parse(SAMPLE);
    let mut e = Editor::new(&parse);
    for bad in ["NA-ME", "", "ÉVÉN", "A B", "A\nB"] {
        assert!(
            matches!(
                e.rename_tag("NAME", bad, None),
                Err(EditError::InvalidTag { .. })
            ),
            "{bad:?}"
        );
    }
    for reserved in ["HEAD", "TRLR", "CONC", "CONT", "PLANG", "DTYPE"] {
        assert!(
            matches!(
                e.rename_tag("NAME", reserved, None),
                Err(EditError::ReservedTag { .. })
            ),
            "{reserved}"
        );
    }
    for from in ["CONT", "CONC", "HEAD", "TRLR"] {
        assert!(matches!(
            e.rename_tag(from, "X", None),
            Err(EditError::ReservedTag { .. })
        ));
    }
    assert!(matches!(
        e.rename_tag("CHAR", "X", None),
        Err(EditError::Protected { .. })
    ));
    assert_eq!(e.rename_tag("NAME", "NAME", None), Ok(0));
}

/// R-APPLICATIONS-04, R-SERIALISING-STRUCTS-06: line breaks (LF) in a value become CONT lines; the old CONT is
/// gone. A CR is a character of the value (R-MERGE-CONTS-10: a CONT reads back as a LF), written `@#UD@`.
#[test]
fn set_payload_with_line_breaks() {
    let parse = parse(SAMPLE);
    let note = parse
        .document()
        .record_by_xref("I1")
        .expect("I1")
        .substructures()
        .nth(1)
        .expect("NOTE");
    let mut editor = Editor::new(&parse);
    editor
        .set_payload(&note, "one\r\ntwo\n\nfour\n")
        .expect("set");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    let text = String::from_utf8(edited.bytes().to_vec()).expect("utf8");
    assert!(
        text.contains("1 NOTE one@#UD@\n2 CONT two\n2 CONT\n2 CONT four\n2 CONT\n0 @I2@"),
        "{text}"
    );
    let note = edited
        .parse()
        .document()
        .record_by_xref("I1")
        .expect("I1")
        .substructures()
        .nth(1)
        .expect("NOTE");
    assert_eq!(logical(&note, Encoding::Utf8), "one\r\ntwo\n\nfour\n");
}

fn long_value() -> String {
    let mut v = String::new();
    for i in 0..40 {
        v.push_str(&format!("Grüße aus Köln {i} — user@example.com; "));
    }
    v.push_str("@#DJULIAN@ ☺ end");
    v
}

/// R-SERIALISING-STRUCTS-08, -09, -10, -11, -12, -14: a long value with non-ASCII text and `@`s.
#[test]
fn long_values_are_split_by_the_writer_rules() {
    for (input, limit, lb) in [
        (&b"0 HEAD\n0 @N1@ NOTE x\n0 TRLR\n"[..], 255, "\n"),
        (&b"0 HEAD\r\n0 @N1@ NOTE x\r\n0 TRLR\r\n"[..], 255, "\r\n"),
    ] {
        let parse = parse(input);
        let note = parse.document().record_by_xref("N1").expect("N1");
        let value = long_value();
        let mut editor = Editor::new(&parse);
        editor.set_payload(&note, &value).expect("set");
        let edited = editor.apply().expect("apply");
        check(&parse, &edited);
        let lines = lines_with_breaks(edited.bytes());
        assert!(lines.len() > 5);
        for line in &lines {
            assert!(line.len() <= limit, "{} octets", line.len());
            assert!(line.ends_with(lb.as_bytes()));
        }
        let text = String::from_utf8(edited.bytes().to_vec()).expect("utf8");
        let note_lines: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("NOTE") || l.starts_with("1 CONC"))
            .collect();
        for (i, l) in note_lines.iter().enumerate() {
            let payload = l.trim_end_matches('\r').splitn(3, ' ').nth(2).unwrap_or("");
            assert_eq!(
                payload.matches('@').count() % 2,
                0,
                "R-SERIALISING-STRUCTS-12: {l}"
            );
            assert!(!payload.is_empty(), "R-SERIALISING-STRUCTS-09");
            if i + 1 < note_lines.len() {
                assert!(
                    !payload.ends_with([' ', '\t']),
                    "R-SERIALISING-STRUCTS-10: {l:?}"
                );
            }
            if i > 0 {
                assert!(
                    !payload.starts_with([' ', '\t']),
                    "R-SERIALISING-STRUCTS-11: {l:?}"
                );
            }
        }
        assert!(text.contains("@@#DJULIAN@@"), "escape-like text is doubled");
        let note = edited.parse().document().record_by_xref("N1").expect("N1");
        assert_eq!(logical(&note, Encoding::Utf8), value);
    }
}

/// R-SERIALISING-STRUCTS-08: 510 octets in UTF-16, line break included.
#[test]
fn utf16_lines_may_have_510_octets() {
    let text = "\u{FEFF}0 HEAD\n1 CHAR UNICODE\n0 @N1@ NOTE x\n0 TRLR\n";
    let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let parse = parse(&bytes);
    assert_eq!(parse.encoding(), Encoding::Utf16Le);
    let note = parse.document().record_by_xref("N1").expect("N1");
    let value = "abcdefghij".repeat(60);
    let mut editor = Editor::new(&parse);
    editor.set_payload(&note, &value).expect("set");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    let lines = utf16le_lines(edited.bytes());
    assert!(lines.iter().all(|l| l.len() <= 510));
    assert!(
        lines.iter().any(|l| l.len() > 400),
        "lines are filled up to 510 octets"
    );
    let note = edited.parse().document().record_by_xref("N1").expect("N1");
    assert_eq!(logical(&note, Encoding::Utf16Le), value);
}

/// R-SERIALISING-STRUCTS-15: the octet rule counts the line break: 254 characters plus CR LF is too long.
#[test]
fn r_serialising_structs_15_the_break_counts() {
    let input = b"0 HEAD\r\n0 @N1@ NOTE x\r\n0 TRLR\r\n";
    let parse = parse(input);
    let note = parse.document().record_by_xref("N1").expect("N1");
    let prefix = "0 @N1@ NOTE ".len();
    let value = "a".repeat(254 - prefix);
    let mut editor = Editor::new(&parse);
    editor.set_payload(&note, &value).expect("set");
    let edited = editor.apply().expect("apply");
    let lines = lines_with_breaks(edited.bytes());
    assert_eq!(lines.len(), 4, "split into NOTE + CONC");
    assert!(lines.iter().all(|l| l.len() <= 255));
}

#[test]
fn set_payload_in_ascii_and_ansel_files() {
    let input = b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME x\n0 TRLR\n";
    let out = edit(input, |e| {
        let name = first_sub(e.parse(), "I1");
        e.set_payload(&name, "Jos\u{e9} \u{263A} ł").expect("set");
    });
    assert_eq!(
        out,
        b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME Jos\xE2e @#U263A@ \xB1\n0 TRLR\n"
    );
    let input = b"0 HEAD\n1 CHAR ASCII\n0 @I1@ INDI\n1 NAME x\n0 TRLR\n";
    let out = edit(input, |e| {
        let name = first_sub(e.parse(), "I1");
        e.set_payload(&name, "Jo\u{e3}o e\u{301}").expect("set");
    });
    // R-UNICODE-ESCAPE-05, -03: upper-case hex; a letter and its combining mark are one escape.
    assert_eq!(
        out,
        b"0 HEAD\n1 CHAR ASCII\n0 @I1@ INDI\n1 NAME Jo@#UE3@o @#U65 301@\n0 TRLR\n"
    );
}

#[test]
fn setting_a_payload_keeps_blank_and_malformed_lines_between_continuations() {
    let input = b"0 HEAD\n0 @N1@ NOTE a\n\n1 CONC b\nbad line\n1 CONT c\n1 SOUR x\n0 TRLR\n";
    let parse = parse(input);
    let note = parse.document().record_by_xref("N1").expect("N1");
    let mut editor = Editor::new(&parse);
    editor.set_payload(&note, "z\ny").expect("set");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert_eq!(
        edited.bytes(),
        b"0 HEAD\n0 @N1@ NOTE z\n1 CONT y\n\nbad line\n1 SOUR x\n0 TRLR\n"
    );
}

#[test]
fn set_payload_on_the_last_line_without_a_break() {
    let out = edit(b"0 HEAD\n0 @N1@ NOTE a", |e| {
        let n = e.parse().document().record_by_xref("N1").expect("N1");
        e.set_payload(&n, "b\nc").expect("set");
    });
    assert_eq!(out, b"0 HEAD\n0 @N1@ NOTE b\n1 CONT c");
}

#[test]
fn the_frame_is_protected() {
    let parse = parse(SAMPLE);
    let document = parse.document();
    let head = document.header().expect("HEAD");
    let trlr = document.trailer().expect("TRLR");
    let charset = head.substructures().next().expect("CHAR");
    let mut e = Editor::new(&parse);
    assert!(matches!(
        e.set_payload(&head, "x"),
        Err(EditError::Protected { .. })
    ));
    assert!(matches!(
        e.set_payload(&trlr, "x"),
        Err(EditError::Protected { .. })
    ));
    assert!(matches!(
        e.set_payload(&charset, "ANSEL"),
        Err(EditError::Protected { .. })
    ));
    assert!(matches!(e.delete(&head), Err(EditError::Protected { .. })));
    assert!(matches!(e.delete(&trlr), Err(EditError::Protected { .. })));
    assert!(matches!(
        e.delete(&charset),
        Err(EditError::Protected { .. })
    ));
    assert!(matches!(
        e.set_xref(&head, Some("H")),
        Err(EditError::Protected { .. })
    ));
    let new = NewStructure::new("NOTE");
    assert!(matches!(
        e.insert(&head, Position::Before, &new),
        Err(EditError::Protected { .. })
    ));
    assert!(matches!(
        e.insert(&trlr, Position::After, &new),
        Err(EditError::Protected { .. })
    ));
    assert!(matches!(
        e.insert(&trlr, Position::LastChild, &new),
        Err(EditError::Protected { .. })
    ));
    let other = gedgraft_syntax::parse(SAMPLE);
    let foreign = other.document().header().expect("HEAD");
    assert_eq!(e.delete(&foreign), Err(EditError::ForeignNode));
}

#[test]
fn set_pointer_and_dangling_warning() {
    let parse = parse(SAMPLE);
    let fams = parse
        .document()
        .record_by_xref("I2")
        .expect("I2")
        .substructures()
        .nth(1)
        .expect("FAMS");
    let mut editor = Editor::new(&parse);
    editor.set_pointer(&fams, "F9").expect("pointer");
    assert!(matches!(
        editor.set_pointer(&fams, "@F1@"),
        Err(EditError::InvalidXref { .. })
    ));
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert!(String::from_utf8_lossy(edited.bytes()).contains("1 FAMS @F9@\n"));
    assert_eq!(
        edited.warnings(),
        [Warning::DanglingPointers {
            id: "F9".into(),
            count: 1
        }]
    );
}

#[test]
fn xrefs_are_set_retargeted_and_removed() {
    // Rename an identifier: every pointer follows.
    let out = edit(SAMPLE, |e| {
        let i1 = e.parse().document().record_by_xref("I1").expect("I1");
        e.set_xref(&i1, Some("P1")).expect("xref");
    });
    let text = String::from_utf8(out).expect("utf8");
    assert!(text.contains("0 @P1@ INDI") && text.contains("1 HUSB @P1@") && !text.contains("@I1@"));
    // Give a record an identifier: the delimiter style of its line is used.
    let out = edit(b"0 HEAD\n0\tNOTE x\n0 TRLR\n", |e| {
        let note = e.parse().document().records().nth(1).expect("NOTE");
        e.set_xref(&note, Some("N1")).expect("xref");
    });
    assert_eq!(out, b"0 HEAD\n0\t@N1@\tNOTE x\n0 TRLR\n");
    // Remove one: the pointers left dangling are counted.
    let parse = parse(SAMPLE);
    let i1 = parse.document().record_by_xref("I1").expect("I1");
    let mut editor = Editor::new(&parse);
    editor.set_xref(&i1, None).expect("remove");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert!(String::from_utf8_lossy(edited.bytes()).contains("\n0 INDI\n"));
    assert_eq!(
        edited.warnings(),
        [Warning::DanglingPointers {
            id: "I1".into(),
            count: 1
        }]
    );
    // Refused: duplicates, and identifiers that are not valid under both grammars (R-POINTER-CONV-02).
    let mut editor = Editor::new(&parse);
    for bad in ["", "-x", "I 1", "Ж1", "a@b", "a\nb", "I#1"] {
        assert!(
            matches!(
                editor.set_xref(&i1, Some(bad)),
                Err(EditError::InvalidXref { .. })
            ),
            "{bad:?}"
        );
    }
    // Uniqueness is checked against the file when the batch is applied (so that identifiers can be swapped).
    editor.set_xref(&i1, Some("I2")).expect("recorded");
    assert_eq!(
        editor.apply().map(|_| ()),
        Err(EditError::DuplicateXref { id: "I2".into() })
    );
}

#[test]
fn swapping_identifiers_in_one_batch() {
    let out = edit(SAMPLE, |e| {
        let d = e.parse().document();
        let i1 = d.record_by_xref("I1").expect("I1");
        let i2 = d.record_by_xref("I2").expect("I2");
        e.set_xref(&i1, Some("I2")).expect("I1 → I2");
        e.set_xref(&i2, Some("I1")).expect("I2 → I1");
    });
    let text = String::from_utf8(out).expect("utf8");
    assert!(text.contains("0 @I2@ INDI\n1 NAME Bob"));
    assert!(text.contains("1 HUSB @I2@\n1 WIFE @I1@"));
}

#[test]
fn insert_in_every_position() {
    let parse = parse(SAMPLE);
    let i2 = parse.document().record_by_xref("I2").expect("I2");
    let name = i2.substructures().next().expect("NAME");
    let mut editor = Editor::new(&parse);
    editor
        .insert(&name, Position::Before, &NewStructure::new("SEX").text("F"))
        .expect("before");
    editor
        .insert(&name, Position::After, &NewStructure::new("_A"))
        .expect("after");
    editor
        .insert(&i2, Position::FirstChild, &NewStructure::new("_FIRST"))
        .expect("first");
    editor
        .insert(
            &i2,
            Position::LastChild,
            &NewStructure::new("NOTE").text("a@b\nc").child(
                NewStructure::new("SOUR")
                    .pointer("S1")
                    .child(NewStructure::new("PAGE").text("3")),
            ),
        )
        .expect("last");
    editor
        .insert_record(&NewStructure::new("SOUR").xref("S1").text("Census"))
        .expect("record");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    let text = String::from_utf8(edited.bytes().to_vec()).expect("utf8");
    assert!(
        text.contains(
            "0 @I2@ INDI\n1 SEX F\n1 _FIRST\n1 NAME Ann\n1 _A\n1 FAMS @F1@\n1 NOTE a@@b\n2 CONT c\n2 SOUR @S1@\n3 PAGE 3\n0 @F1@ FAM"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("1 WIFE @I2@\n0 @S1@ SOUR Census\n0 TRLR\n"),
        "{text}"
    );
    assert!(edited.warnings().is_empty(), "{:?}", edited.warnings());
}

#[test]
fn insert_at_the_end_of_a_file_without_a_final_break() {
    let out = edit(b"0 HEAD\r\n0 @I1@ INDI\r\n1 NAME Bob", |e| {
        let i1 = e.parse().document().record_by_xref("I1").expect("I1");
        e.insert(
            &i1,
            Position::LastChild,
            &NewStructure::new("SEX").text("M"),
        )
        .expect("insert");
    });
    assert_eq!(out, b"0 HEAD\r\n0 @I1@ INDI\r\n1 NAME Bob\r\n1 SEX M\r\n");
}

#[test]
fn insert_validation() {
    let parse = parse(SAMPLE);
    let i1 = parse.document().record_by_xref("I1").expect("I1");
    let mut e = Editor::new(&parse);
    for tag in ["CONT", "CONC", "HEAD", "TRLR"] {
        assert!(matches!(
            e.insert(&i1, Position::LastChild, &NewStructure::new(tag)),
            Err(EditError::ReservedTag { .. })
        ));
    }
    assert!(matches!(
        e.insert(
            &i1,
            Position::LastChild,
            &NewStructure::new("A").child(NewStructure::new("B C"))
        ),
        Err(EditError::InvalidTag { .. })
    ));
    let twice = NewStructure::new("A")
        .xref("X1")
        .child(NewStructure::new("B").xref("X1"));
    assert_eq!(
        e.insert(&i1, Position::After, &twice),
        Err(EditError::DuplicateXref { id: "X1".into() })
    );
    // PLANG and DTYPE may be inserted where they belong (R-TAGS-03).
    let head = parse.document().header().expect("HEAD");
    assert!(e
        .insert(
            &head,
            Position::LastChild,
            &NewStructure::new("PLANG").text("en")
        )
        .is_ok());
    let mut e = Editor::new(&parse);
    e.insert(&i1, Position::After, &NewStructure::new("INDI").xref("I2"))
        .expect("recorded");
    assert_eq!(
        e.apply().map(|_| ()),
        Err(EditError::DuplicateXref { id: "I2".into() })
    );
}

#[test]
fn delete_takes_continuations_and_substructures() {
    let parse = parse(SAMPLE);
    let i1 = parse.document().record_by_xref("I1").expect("I1");
    let mut editor = Editor::new(&parse);
    editor.delete(&i1).expect("delete");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert_eq!(
        edited.bytes(),
        b"0 HEAD\n1 CHAR UTF-8\n0 @I2@ INDI\n1 NAME Ann\n1 FAMS @F1@\n0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n0 TRLR\n"
    );
    assert_eq!(
        edited.warnings(),
        [Warning::DanglingPointers {
            id: "I1".into(),
            count: 1
        }]
    );
}

#[test]
fn overlapping_edits_are_refused() {
    let parse = parse(SAMPLE);
    let i1 = parse.document().record_by_xref("I1").expect("I1");
    let name = i1.substructures().next().expect("NAME");
    // The call that causes the overlap reports it, naming the earlier edit (issue 14).
    let mut editor = Editor::new(&parse);
    editor.delete(&i1).expect("delete");
    let err = editor.set_payload(&name, "x").expect_err("overlap");
    assert!(matches!(err, EditError::Overlap { .. }), "{err}");
    assert!(err.to_string().contains("deleting line 3"), "{err}");
    // Inserting into a deleted structure is an overlap too.
    let mut editor = Editor::new(&parse);
    editor.delete(&i1).expect("delete");
    let err = editor
        .insert(&i1, Position::LastChild, &NewStructure::new("X"))
        .expect_err("insert into a deleted record");
    assert!(matches!(err, EditError::Overlap { .. }), "{err}");
    // A whole-file edit inside a deleted record is still found at `apply`.
    let mut editor = Editor::new(&parse);
    editor.delete(&i1).expect("delete");
    editor.rename_tag("NAME", "_NAME", None).expect("rename");
    assert!(matches!(editor.apply(), Err(EditError::Overlap { .. })));
    // A rename and a payload change of the same line touch different tokens: fine.
    let mut editor = Editor::new(&parse);
    editor.rename_tag("NAME", "_NAME", None).expect("rename");
    editor.set_payload(&name, "Robert").expect("set");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert!(String::from_utf8_lossy(edited.bytes()).contains("1 _NAME Robert\n"));
    // Two edits of the same payload overlap.
    let mut editor = Editor::new(&parse);
    editor.set_payload(&name, "A").expect("set");
    editor.set_payload(&name, "B").expect("set");
    assert!(matches!(editor.apply(), Err(EditError::Overlap { .. })));
}

/// § Encoding `@`s, R-ESCAPING-01: bare `@` becomes `@@`; pointers, `@@` and escapes stay.
#[test]
fn escape_at_signs() {
    let input = b"0 HEAD\n0 @I1@ INDI\n1 EMAIL a@b.c\n2 CONC @x\n1 FAMC @F1@\n1 NOTE @@ @#DJULIAN@ @#bad\n0 TRLR\n";
    let out = edit(input, |e| {
        assert_eq!(e.escape_at_signs(None), 3);
    });
    assert_eq!(
        out,
        b"0 HEAD\n0 @I1@ INDI\n1 EMAIL a@@b.c\n2 CONC @@x\n1 FAMC @F1@\n1 NOTE @@ @#DJULIAN@ @@#bad\n0 TRLR\n"
    );
    let out = edit(input, |e| {
        assert_eq!(e.escape_at_signs(Some(&scope("INDI.NOTE"))), 1);
    });
    assert!(out.windows(7).any(|w| w == b"@@#bad\n"));
}

#[test]
fn rewrap_splits_long_lines_and_join_conc_joins_needless_splits() {
    let long = "word".repeat(100);
    let input = format!("0 HEAD\n0 @N1@ NOTE {long}\n1 CONT short\n1 CONC er\n0 @N2@ NOTE fine\n1 CONC ly split\n0 TRLR\n");
    let parse = parse(input.as_bytes());
    // `rewrap` only splits the long line: the needless CONC splits stay, so the diff shows only what was asked.
    let mut editor = Editor::new(&parse);
    assert_eq!(editor.rewrap(None, None).expect("rewrap"), 1);
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    let text = String::from_utf8(edited.bytes().to_vec()).expect("utf8");
    assert!(lines_with_breaks(edited.bytes())
        .iter()
        .all(|l| l.len() <= 255));
    assert!(text.contains("1 CONT short\n1 CONC er\n"), "{text}");
    assert!(
        text.contains("0 @N2@ NOTE fine\n1 CONC ly split\n"),
        "{text}"
    );
    assert_eq!(edited.line_counts(), (1, 2), "one line out, two in: {text}");
    // `join_conc` joins them.
    let split = edited.into_parse();
    let mut editor = Editor::new(&split);
    assert_eq!(editor.join_conc(None, None).expect("join"), 2);
    let edited = editor.apply().expect("apply");
    check(&split, &edited);
    let text = String::from_utf8(edited.bytes().to_vec()).expect("utf8");
    assert!(text.contains("1 CONT shorter\n"), "{text}");
    assert!(text.contains("0 @N2@ NOTE finely split\n"), "{text}");
    for xref in ["N1", "N2"] {
        let old = parse.document().record_by_xref(xref).expect("old");
        let new = edited.parse().document().record_by_xref(xref).expect("new");
        assert_eq!(logical(&old, Encoding::Utf8), logical(&new, Encoding::Utf8));
    }
    // Idempotent: a second run of either finds nothing to do.
    let again = edited.into_parse();
    let mut editor = Editor::new(&again);
    assert_eq!(editor.rewrap(None, None).expect("rewrap"), 0);
    assert_eq!(editor.join_conc(None, None).expect("join"), 0);
    assert!(!editor.apply().expect("apply").is_changed());
}

#[test]
fn rewrap_leaves_needed_splits_and_warns_about_bare_at_signs() {
    let a = "a".repeat(240);
    let input = format!("0 HEAD\n0 @N1@ NOTE {a}\n1 CONC bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n0 @N2@ NOTE x@y\n1 CONC z\n0 TRLR\n");
    let parse = parse(input.as_bytes());
    let mut editor = Editor::new(&parse);
    assert_eq!(
        editor.rewrap(None, Some(&scope("NOTE"))).expect("rewrap"),
        0
    );
    assert_eq!(
        editor.join_conc(None, Some(&scope("NOTE"))).expect("join"),
        0
    );
    let edited = editor.apply().expect("apply");
    assert!(!edited.is_changed());
    assert_eq!(
        edited.warnings(),
        [Warning::NotRewrapped {
            line: 4,
            more: 0,
            reason: "it holds a bare `@`; escape it first (an `@` next to a new join or split could start an escape)",
            joining: true,
        }]
    );
    let mut editor = Editor::new(&parse);
    assert!(matches!(
        editor.rewrap(Some(8), None),
        Err(EditError::InvalidOption { .. })
    ));
}

/// A join never puts undecodable octets side by side: `c\xC3` / `CONC \xA9 d` joined is `c\xC3\xA9 d`, which
/// reads `cé d` (found by a helper: `--join-conc` repaired the encoding under another name). Refused with a
/// reason; a split whose junction has text on one side is joined as before.
#[test]
fn join_conc_never_joins_undecodable_octets_into_a_character() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE c\xC3\n1 CONC \xA9 d\n0 @N2@ NOTE e\xC3\n1 CONC f\n0 TRLR\n";
    let parse = parse(&input[..]);
    let mut editor = Editor::new(&parse);
    assert_eq!(editor.join_conc(None, None).expect("join"), 1);
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert_eq!(
        edited.bytes(),
        &b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE c\xC3\n1 CONC \xA9 d\n0 @N2@ NOTE e\xC3f\n0 TRLR\n"[..]
    );
    let refused = |warnings: &[Warning]| {
        matches!(warnings, [Warning::NotRewrapped { line: 3, more: 0, reason, joining: true }]
            if reason.starts_with("undecodable octets end a line and start the next"))
    };
    assert!(refused(edited.warnings()), "{:?}", edited.warnings());
    // Empty `CONC` lines between the halves hide nothing (found by a helper).
    for between in [&b"1 CONC\n"[..], b"1 CONC \n1 CONC\n"] {
        let input = [
            &b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE c\xC3\n"[..],
            between,
            b"1 CONC \xA9 d\n0 TRLR\n",
        ]
        .concat();
        let parsed = gedgraft_syntax::parse(&input);
        let mut editor = Editor::new(&parsed);
        assert_eq!(editor.join_conc(None, None).expect("join"), 0);
        let edited = editor.apply().expect("apply");
        assert!(!edited.is_changed());
        assert!(refused(edited.warnings()), "{:?}", edited.warnings());
    }
}

#[test]
fn rewrap_leaves_serialisation_metadata_whole() {
    // R-HEADER-02: CHAR, ELF, GEDC, PLANG and SCHMA (with their substructures) cannot have continuation lines;
    // re-wrapping them would make a conformant file non-conformant. Other header structures are re-wrapped.
    let head = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 SCHMA\n2 TAG _X https://example.com/a/long/uri\n";
    let input = format!("{head}1 NOTE a header note that is long enough to be wrapped\n0 TRLR\n");
    let parse = parse(input.as_bytes());
    let mut editor = Editor::new(&parse);
    assert_eq!(editor.rewrap(Some(32), None).expect("rewrap"), 1);
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    let output = String::from_utf8_lossy(edited.bytes()).into_owned();
    assert!(output.starts_with(head), "{output}");
    assert!(output.contains("\n2 CONC "), "{output}");
    assert!(
        output[head.len()..].lines().all(|l| l.len() < 32),
        "{output}"
    );
    assert_eq!(
        edited.warnings(),
        [Warning::NotRewrapped {
            line: 6,
            more: 0,
            reason:
                "serialisation metadata cannot have continuation lines (2019 § Header metadata)",
            joining: false,
        }]
    );
}

#[test]
fn rewrap_with_a_narrow_limit_keeps_raw_octets_whole() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE Jos\xE9 Mar\xEDa de la Cruz y Fern\xE1ndez-Hidalgo\n0 TRLR\n";
    let parse = parse(input);
    let mut editor = Editor::new(&parse);
    assert_eq!(editor.rewrap(Some(32), None).expect("rewrap"), 1);
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    let old = parse.document().record_by_xref("N1").expect("old");
    let new = edited.parse().document().record_by_xref("N1").expect("new");
    assert_eq!(logical(&old, Encoding::Utf8), logical(&new, Encoding::Utf8));
    assert!(lines_with_breaks(edited.bytes())
        .iter()
        .all(|l| l.len() <= 32));
}

#[test]
fn line_break_conversion() {
    let input = b"0 HEAD\r\n1 NOTE a\n\r2 CONT b\r0 TRLR";
    for (to, join, expected) in [
        (
            LineBreak::Lf,
            false,
            &b"0 HEAD\n1 NOTE a\n\n2 CONT b\n0 TRLR"[..],
        ),
        (
            LineBreak::Lf,
            true,
            &b"0 HEAD\n1 NOTE a\n2 CONT b\n0 TRLR"[..],
        ),
        (
            LineBreak::CrLf,
            true,
            &b"0 HEAD\r\n1 NOTE a\r\n2 CONT b\r\n0 TRLR"[..],
        ),
        (
            LineBreak::Cr,
            false,
            &b"0 HEAD\r1 NOTE a\r\r2 CONT b\r0 TRLR"[..],
        ),
    ] {
        let out = edit(input, |e| {
            e.convert_line_breaks(
                to,
                if join {
                    LfCr::OneBreak
                } else {
                    LfCr::TwoBreaks
                },
            )
        });
        assert_eq!(out, expected, "{to:?} {join}");
    }
    // New lines get the new break even when the conversion is asked for last.
    let out = edit(b"0 HEAD\n0 TRLR\n", |e| {
        e.insert_record(&NewStructure::new("NOTE").text("a\nb"))
            .expect("insert");
        e.convert_line_breaks(LineBreak::CrLf, LfCr::TwoBreaks);
    });
    assert_eq!(out, b"0 HEAD\r\n0 NOTE a\r\n1 CONT b\r\n0 TRLR\r\n");
}

#[test]
fn transcode_utf8_to_ascii_and_utf16() {
    let input = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Jos\u{e9} @x \u{263A}\n1 NOTE a@@b @#DJULIAN@\n0 TRLR\n";
    let parse = parse(input.as_bytes());
    let mut editor = Editor::new(&parse);
    editor.transcode(Encoding::Ascii, RawOctets::Refuse);
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert_eq!(
        edited.bytes(),
        b"0 HEAD\n1 CHAR ASCII\n0 @I1@ INDI\n1 NAME Jos@#UE9@ @@x @#U263A@\n1 NOTE a@@b @#DJULIAN@\n0 TRLR\n"
    );
    assert_eq!(edited.parse().encoding(), Encoding::Ascii);
    assert_eq!(edited.changed_ranges().len(), 1);
    let reread = gedgraft_syntax::parse(edited.bytes());
    assert_eq!(
        reread.encoding(),
        Encoding::Ascii,
        "detection reads the new CHAR"
    );

    let mut editor = Editor::new(&parse);
    editor.transcode(Encoding::Utf16Le, RawOctets::Refuse);
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    let expected: Vec<u8> = "\u{FEFF}0 HEAD\n1 CHAR UNICODE\n0 @I1@ INDI\n1 NAME Jos\u{e9} @x \u{263A}\n1 NOTE a@@b @#DJULIAN@\n0 TRLR\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    assert_eq!(edited.bytes(), expected, "a BOM is added for UTF-16");
    assert_eq!(
        gedgraft_syntax::parse(edited.bytes()).encoding(),
        Encoding::Utf16Le
    );
}

#[test]
fn transcode_keeps_or_drops_the_bom() {
    let input = b"\xEF\xBB\xBF0 HEAD\n1 CHAR UTF-8\n0 TRLR\n";
    let out = edit(input, |e| e.transcode(Encoding::Utf16Be, RawOctets::Refuse));
    let expected: Vec<u8> = "\u{FEFF}0 HEAD\n1 CHAR UNICODE\n0 TRLR\n"
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    assert_eq!(out, expected);
    let out = edit(input, |e| {
        e.transcode(Encoding::Windows1252, RawOctets::Refuse)
    });
    assert_eq!(out, b"0 HEAD\n1 CHAR ANSI\n0 TRLR\n");
    assert_eq!(
        gedgraft_syntax::parse(&out).encoding(),
        Encoding::Windows1252
    );
}

#[test]
fn transcode_from_ansel_reorders_diacritics_and_converts_kept_octets() {
    // `E2 65` is é; `CD` (midline e) is kept raw by the codec but has a character (R-ANSEL-02).
    let input = b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME Jos\xE2e \xCD\n0 TRLR\n";
    let out = edit(input, |e| e.transcode(Encoding::Utf8, RawOctets::Refuse));
    assert_eq!(
        out,
        "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Jose\u{301} e\n0 TRLR\n".as_bytes()
    );
}

#[test]
fn transcode_from_ansel_keeps_a_diacritic_with_its_letter_across_conc() {
    // R-ANSEL-03 (a diacritic precedes the letter it marks) across a CONC split, as in gedcom4j's
    // issue81.ged: `arr` + circumflex (E3) ends the line, `ete` starts the CONC line: the word is `arrête`.
    // A diacritic before a CONT stays where it is: a line break is no letter.
    // (A mark before a CONT line does not fit ANSEL, so detection doubts this small file: it is read as ANSEL
    // by the caller's word, as `--encoding ANSEL` does.)
    let input =
        b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE arr\xE3\n1 CONC ete\n1 CONT d\xE2\n1 CONT x\n0 TRLR\n";
    let edit = |input: &[u8], f: &dyn Fn(&mut Editor)| {
        let parse = parse_as(input, Encoding::Ansel);
        let mut editor = Editor::new(&parse);
        f(&mut editor);
        let edited = editor.apply().expect("apply");
        check(&parse, &edited);
        edited.into_bytes()
    };
    let utf8 = edit(input, &|e| e.transcode(Encoding::Utf8, RawOctets::Refuse));
    assert_eq!(
        String::from_utf8_lossy(&utf8),
        "0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE arr\n1 CONC e\u{302}te\n1 CONT d\u{301}\n1 CONT x\n0 TRLR\n"
    );
    // windows-1252 has the composed letter; `d` with an acute has none and becomes an escape.
    let cp1252 = edit(input, &|e| {
        e.transcode(Encoding::Windows1252, RawOctets::Refuse)
    });
    assert_eq!(
        cp1252,
        b"0 HEAD\n1 CHAR ANSI\n0 @N1@ NOTE arr\n1 CONC \xEAte\n1 CONT @#U64 301@\n1 CONT x\n0 TRLR\n"
    );
    // A payload of diacritics alone (`NAME` + acute, `CONC e`; `CONC` + acute between): the marks go to their
    // letter and the line keeps no payload; the value stays `é` (found by a helper: it became U+0301 + `e`).
    for (input, want) in [
        (
            &b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME \xE2\n2 CONC e\n0 TRLR\n"[..],
            "1 NAME\n2 CONC e\u{301}\n",
        ),
        (
            b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME x\n2 CONC \xE2\n2 CONC e\n0 TRLR\n",
            "1 NAME x\n2 CONC\n2 CONC e\u{301}\n",
        ),
    ] {
        let utf8 = edit(input, &|e| e.transcode(Encoding::Utf8, RawOctets::Refuse));
        let text = String::from_utf8_lossy(&utf8);
        assert!(text.contains(want), "{text}");
        let value = |octets: &[u8], encoding| {
            let parse = parse_as(octets, encoding);
            let record = parse.document().record_by_xref("I1").expect("I1");
            logical(&record, encoding)
        };
        assert_eq!(value(&utf8, Encoding::Utf8), value(input, Encoding::Ansel));
    }
}

#[test]
fn transcode_raw_octets_are_refused_or_replaced() {
    // Declared UTF-8, not valid UTF-8: the reading is in doubt (they may be windows-1252) and no transcode
    // is made, whatever the raw-octet policy; with the reading named (`--encoding UTF-8`), the policy applies.
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Jos\xE9\nbad \xFF line\n0 TRLR\n";
    let doubtful = parse(input);
    for policy in [RawOctets::Refuse, RawOctets::Replace] {
        let mut editor = Editor::new(&doubtful);
        editor.transcode(Encoding::Windows1252, policy);
        let err = editor.apply().expect_err("in doubt");
        assert!(
            matches!(
                err,
                EditError::DoubtfulDecoding {
                    line: 4,
                    encoding: Encoding::Utf8,
                    ..
                }
            ),
            "{err:?}"
        );
    }
    let parse = parse_as(input, Encoding::Utf8);
    let mut editor = Editor::new(&parse);
    editor.transcode(Encoding::Windows1252, RawOctets::Refuse);
    let err = editor.apply().expect_err("raw octets");
    assert_eq!(
        err,
        EditError::RawOctets {
            line: 4,
            octets: vec![0xE9],
            encoding: Encoding::Utf8
        }
    );
    assert!(err.to_string().contains("line 4: octet E9"), "{err}");
    let mut editor = Editor::new(&parse);
    editor.transcode(Encoding::Utf8, RawOctets::Replace);
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert_eq!(
        edited.bytes(),
        "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Jos\u{FFFD}\nbad \u{FFFD} line\n0 TRLR\n"
            .as_bytes()
    );
}

#[test]
fn transcode_inserts_or_fixes_char() {
    let out = edit(b"0 HEAD\n1 SOUR x\n0 TRLR\n", |e| {
        e.transcode(Encoding::Ascii, RawOctets::Refuse)
    });
    assert_eq!(out, b"0 HEAD\n1 SOUR x\n1 CHAR ASCII\n0 TRLR\n");
    let input = b"0 HEAD\r\n1 CHAR ANSI\r\n2 VERS 1250\r\n0 @N1@ NOTE \x8A\r\n0 TRLR\r\n";
    let parse = parse(input);
    assert_eq!(parse.encoding(), Encoding::Windows1250);
    let mut editor = Editor::new(&parse);
    editor.transcode(Encoding::Utf8, RawOctets::Refuse);
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert_eq!(
        edited.bytes(),
        "0 HEAD\r\n1 CHAR UTF-8\r\n0 @N1@ NOTE \u{160}\r\n0 TRLR\r\n".as_bytes()
    );
}

#[test]
fn transcode_refusals() {
    let parse = parse("0 HEAD\n0 @Ж1@ INDI\n0 TRLR\n".as_bytes());
    let mut editor = Editor::new(&parse);
    editor.transcode(Encoding::Ascii, RawOctets::Refuse);
    let err = editor.apply().expect_err("xref");
    assert!(
        matches!(
            err,
            EditError::Unencodable {
                line: 2,
                character: 'Ж',
                ..
            }
        ),
        "{err}"
    );
    let parse = gedgraft_syntax::parse(SAMPLE);
    let mut editor = Editor::new(&parse);
    editor.rename_tag("NAME", "_N", None).expect("rename");
    editor.transcode(Encoding::Ascii, RawOctets::Refuse);
    assert!(matches!(
        editor.apply(),
        Err(EditError::InvalidOption { .. })
    ));
}

#[test]
fn windows_1252_file_edits_stay_in_windows_1252() {
    let input = b"0 HEAD\r\n1 CHAR ANSI\r\n0 @I1@ INDI\r\n1 NAME Br\xF8derbund\r\n0 TRLR\r\n";
    let parse = parse(input);
    assert_eq!(parse.encoding(), Encoding::Windows1252);
    let name = first_sub(&parse, "I1");
    let mut editor = Editor::new(&parse);
    editor.set_payload(&name, "Brøderbund – € ☺").expect("set");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert_eq!(
        edited.bytes(),
        b"0 HEAD\r\n1 CHAR ANSI\r\n0 @I1@ INDI\r\n1 NAME Br\xF8derbund \x96 \x80 @#U263A@\r\n0 TRLR\r\n"
    );
}

#[test]
fn forced_encoding_is_kept() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME x\n0 TRLR\n";
    let parse = parse_as(input, Encoding::Ibm437);
    let name = first_sub(&parse, "I1");
    let mut editor = Editor::new(&parse);
    editor.set_payload(&name, "Ä").expect("set");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert_eq!(edited.parse().encoding(), Encoding::Ibm437);
    assert!(edited.bytes().windows(8).any(|w| w == b"NAME \x8E\n0"));
}

/// Invariant 4: a file of 100 000 nested levels is edited without recursion on its depth.
#[test]
fn deep_trees_are_edited_iteratively() {
    let depth = 100_000;
    let mut input = b"0 HEAD\n0 @N1@ NOTE top\n".to_vec();
    for level in 1..depth {
        input.extend_from_slice(format!("{level} _D x@y\n").as_bytes());
    }
    input.extend_from_slice(b"0 TRLR\n");
    let parse = parse(&input);
    let deepest = parse
        .document()
        .all_structures()
        .filter(|s| s.tag().is_some_and(|t| t.text() == "_D"))
        .last()
        .expect("a structure");
    assert_eq!(deepest.level().expect("level").value(), depth - 1);
    let mut editor = Editor::new(&parse);
    editor.set_payload(&deepest, "bottom\nline").expect("set");
    editor
        .insert(
            &deepest,
            Position::LastChild,
            &NewStructure::new("NOTE").text("n"),
        )
        .expect("insert");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    let tail = format!(
        "{} _D bottom\n{depth} CONT line\n{depth} NOTE n\n0 TRLR\n",
        depth - 1
    );
    assert!(edited.bytes().ends_with(tail.as_bytes()));
    // A whole-file edit over every level.
    let mut editor = Editor::new(&parse);
    assert_eq!(editor.escape_at_signs(None), depth - 1);
    assert_eq!(
        editor.rename_tag("_D", "_E", None).expect("rename"),
        depth - 1
    );
    editor.convert_line_breaks(LineBreak::CrLf, LfCr::TwoBreaks);
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert!(edited
        .bytes()
        .ends_with(format!("{} _E x@@y\r\n0 TRLR\r\n", depth - 1).as_bytes()));
}

/// Two batches applied one after the other give one set of changes for one diff.
#[test]
fn changes_of_two_batches_compose() {
    let parse = parse(SAMPLE);
    let mut editor = Editor::new(&parse);
    editor.rename_tag("NAME", "_NAME", None).expect("rename");
    let first = editor.apply().expect("first");
    let first_changes = first.changed_ranges().to_vec();
    let middle = first.into_parse();
    let mut editor = Editor::new(&middle);
    let fams = middle
        .document()
        .record_by_xref("I2")
        .expect("I2")
        .substructures()
        .nth(1)
        .expect("FAMS");
    editor.delete(&fams).expect("delete");
    editor.convert_line_breaks(LineBreak::CrLf, LfCr::TwoBreaks);
    let second = editor.apply().expect("second");
    let changes = compose_changes(&first_changes, second.changed_ranges());
    let input = parse.to_bytes().expect("input");
    common::assert_local(&input, second.bytes(), &changes);
    let diff = gedgraft_edit::unified_diff(&parse, second.parse(), &changes, "a", "b");
    for line in [
        "-1 NAME Ann␊\n",
        "+1 _NAME Ann␍␊\n",
        "-1 FAMS @F1@␊\n",
        "-0 HEAD␊\n-1 CHAR",
        "+0 HEAD␍␊\n",
    ] {
        assert!(diff.contains(line), "{line}: {diff}");
    }
    assert!(!diff.contains("+1 FAMS"), "{diff}");
}

#[test]
fn diff_shows_line_numbers_and_a_missing_final_break() {
    let parse = parse(b"0 HEAD\n1 NOTE a\n0 TRLR");
    let mut editor = Editor::new(&parse);
    editor.rename_tag("NOTE", "_NOTE", None).expect("rename");
    editor
        .insert_record(&NewStructure::new("X"))
        .expect("insert");
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert_eq!(
        edited.unified_diff("old", "new"),
        "--- old\n+++ new\n@@ -1,3 +1,4 @@\n 0 HEAD\n-1 NOTE a\n+1 _NOTE a\n+0 X\n 0 TRLR\n\\ No newline at end of file\n"
    );
    assert_eq!(edited.line_counts(), (1, 2));
}

#[test]
fn unmatched_selectors_are_reported() {
    let parse = parse(SAMPLE);
    let mut editor = Editor::new(&parse);
    assert_eq!(
        editor
            .rename_tag("NAME", "X", Some(&scope("SOUR")))
            .expect("rename"),
        0
    );
    assert!(editor.select(&scope("INDI.BIRT")).is_empty());
    let edited = editor.apply().expect("apply");
    assert!(!edited.is_changed());
    let shown: Vec<String> = edited.warnings().iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "selector `SOUR` matched nothing",
            "selector `INDI.BIRT` matched nothing"
        ]
    );
}

/// R-APPLICATIONS-06: new lines copy their neighbours' indentation and delimiters.
#[test]
fn new_lines_follow_the_neighbours_style() {
    let input = b"0 HEAD\n  1 CHAR UTF-8\n0 @I1@ INDI\n  1\tNAME\tBob\n    2 GIVN Bob\n0 TRLR\n";
    let out = edit(input, |e| {
        let name = first_sub(e.parse(), "I1");
        e.insert(
            &name,
            Position::LastChild,
            &NewStructure::new("SURN").text("x"),
        )
        .expect("insert");
        e.set_payload(&name, &"y".repeat(300)).expect("set");
    });
    let text = String::from_utf8(out).expect("utf8");
    assert!(text.contains("  1\tNAME\tyyyy"), "{text}");
    assert!(text.contains("\n    2\tCONC\tyyyy"), "{text}");
    assert!(text.contains("    2 GIVN Bob\n    2\tSURN\tx\n"), "{text}");
}
