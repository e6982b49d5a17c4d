//! Per-structure edits: `set_tag`, `move_to`, `copy_to`. Each result is checked the way every edit is
//! (`common::check`: the new parse writes the reported octets, the spliced tree equals the re-parsed one, octets
//! outside the changes are kept, no new errors).

mod common;

use common::check;
use gedgraft_edit::{EditError, Editor, Position};
use gedgraft_syntax::ast::{AstToken, Structure};
use gedgraft_syntax::{parse, Parse, Selector};

fn one(parse: &Parse, path: &str) -> Structure {
    let found = Selector::parse(path)
        .expect("path")
        .select(&parse.document());
    assert_eq!(found.len(), 1, "{path}");
    found.into_iter().next().expect("one")
}

fn applied(parse: &Parse, edit: impl FnOnce(&mut Editor)) -> Vec<u8> {
    let mut editor = Editor::new(parse);
    edit(&mut editor);
    let edited = editor.apply().expect("apply");
    check(parse, &edited);
    edited.bytes().to_vec()
}

const FILE: &[u8] = b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n  1 NAME Bob\r\n  1 BIRT\r\n    2 DATE 1900\r\n    2 NOTE a@@b\r\n      3 CONC c\r\n0 @F1@ FAM\r\n1 HUSB @I1@\r\n0 @N1@ NOTE shared\r\n1 _X y\r\n0 TRLR\r\n";

#[test]
fn set_tag_changes_one_tag_and_nothing_else() {
    let p = parse(FILE);
    let out = applied(&p, |e| {
        e.set_tag(&one(&p, "INDI.BIRT"), "DEAT").expect("set_tag")
    });
    assert_eq!(
        out,
        String::from_utf8_lossy(FILE)
            .replace("  1 BIRT", "  1 DEAT")
            .into_bytes()
    );
}

#[test]
fn set_tag_refuses_what_rename_tag_refuses() {
    let p = parse(FILE);
    let mut e = Editor::new(&p);
    assert!(matches!(
        e.set_tag(&one(&p, "INDI.NAME"), "CONC"),
        Err(EditError::ReservedTag { .. })
    ));
    assert!(matches!(
        e.set_tag(&one(&p, "INDI.NAME"), "NA ME"),
        Err(EditError::InvalidTag { .. })
    ));
    assert!(matches!(
        e.set_tag(&one(&p, "HEAD.CHAR"), "_CHR"),
        Err(EditError::Protected { .. })
    ));
    let header = parse(b"0 HEAD\n1 _ENC windows-1252\n0 TRLR\n");
    let mut e = Editor::new(&header);
    assert!(
        matches!(
            e.set_tag(&one(&header, "HEAD._ENC"), "CHAR"),
            Err(EditError::Protected { .. })
        ),
        "a header structure may not become serialisation metadata"
    );
}

#[test]
fn move_renumbers_levels_and_keeps_every_other_octet() {
    let p = parse(FILE);
    // A level-2 structure with a continuation line moves to the end of the record, one level up.
    let out = applied(&p, |e| {
        e.move_to(
            &one(&p, "INDI.BIRT.NOTE"),
            &one(&p, "INDI.NAME"),
            Position::After,
        )
        .expect("move")
    });
    assert_eq!(
        String::from_utf8_lossy(&out),
        "0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n  1 NAME Bob\r\n    1 NOTE a@@b\r\n      2 CONC c\r\n  1 BIRT\r\n    2 DATE 1900\r\n0 @F1@ FAM\r\n1 HUSB @I1@\r\n0 @N1@ NOTE shared\r\n1 _X y\r\n0 TRLR\r\n"
    );
}

#[test]
fn a_record_moved_into_a_structure_becomes_a_substructure_and_back() {
    let p = parse(FILE);
    let out = applied(&p, |e| {
        e.move_to(&one(&p, "NOTE"), &one(&p, "INDI.BIRT"), Position::LastChild)
            .expect("move")
    });
    let text = String::from_utf8_lossy(&out).into_owned();
    assert!(
        text.contains("      3 CONC c\r\n2 @N1@ NOTE shared\r\n3 _X y\r\n0 @F1@ FAM"),
        "{text}"
    );
    let moved = parse(&out);
    let notes = Selector::parse("INDI.BIRT.NOTE")
        .expect("path")
        .select(&moved.document());
    assert_eq!(notes.len(), 2);
    assert!(!notes[1].is_record());
    // And back to the top level, before the trailer.
    let trailer = moved.document().trailer().expect("trailer");
    let back = applied(&moved, |e| {
        let notes = Selector::parse("INDI.BIRT.NOTE")
            .expect("path")
            .select(&moved.document());
        e.move_to(&notes[1], &trailer, Position::Before)
            .expect("move back")
    });
    assert_eq!(back, FILE);
}

#[test]
fn a_moved_structure_keeps_its_identifier_and_the_pointers_to_it() {
    let p = parse(FILE);
    let out = applied(&p, |e| {
        e.move_to(&one(&p, "FAM"), &one(&p, "NOTE"), Position::After)
            .expect("move")
    });
    let moved = parse(&out);
    let fam = moved.document().record_by_xref("F1").expect("F1");
    assert_eq!(fam.tag().expect("tag").text(), "FAM");
    let lowered = gedgraft_model::lower(&moved, &gedgraft_model::LowerOptions::default());
    assert!(lowered.diagnostics.is_empty(), "{:?}", lowered.diagnostics);
}

#[test]
fn moves_that_make_no_sense_are_refused() {
    let p = parse(FILE);
    let mut e = Editor::new(&p);
    let birt = one(&p, "INDI.BIRT");
    for (anchor, position) in [
        (birt.clone(), Position::LastChild),
        (birt.clone(), Position::After),
        (one(&p, "INDI.BIRT.DATE"), Position::Before),
    ] {
        assert!(
            matches!(
                e.move_to(&birt, &anchor, position),
                Err(EditError::Protected { .. })
            ),
            "into or next to itself: {position:?}"
        );
    }
    let doc = p.document();
    let head = doc.header().expect("header");
    let trailer = doc.trailer().expect("trailer");
    assert!(e.move_to(&head, &trailer, Position::Before).is_err());
    assert!(e.move_to(&trailer, &head, Position::After).is_err());
    assert!(e.move_to(&birt, &head, Position::Before).is_err());
    assert!(e.move_to(&birt, &trailer, Position::After).is_err());
    assert!(e
        .move_to(&one(&p, "HEAD.CHAR"), &birt, Position::After)
        .is_err());
    assert_eq!(e.change_count(), 0);
}

#[test]
fn copy_keeps_the_formatting_and_refuses_identifiers() {
    let p = parse(FILE);
    let out = applied(&p, |e| {
        e.copy_to(
            &one(&p, "INDI.BIRT.NOTE"),
            &one(&p, "FAM"),
            Position::LastChild,
        )
        .expect("copy")
    });
    assert!(String::from_utf8_lossy(&out)
        .contains("1 HUSB @I1@\r\n    1 NOTE a@@b\r\n      2 CONC c\r\n0 @N1@"));
    let mut e = Editor::new(&p);
    assert!(matches!(
        e.copy_to(&one(&p, "NOTE"), &one(&p, "FAM"), Position::After),
        Err(EditError::DuplicateXref { id }) if id == "N1"
    ));
}

/// Conflicts are reported by the call that causes them, naming the earlier edit; deleting inside a deleted
/// structure is nothing to do (issue 14).
#[test]
fn conflicts_are_reported_by_the_call_that_causes_them() {
    let p = parse(FILE);
    // Deleting inside a deleted structure: nothing to do, and the result is the outer deletion's.
    let out = applied(&p, |e| {
        e.delete(&one(&p, "INDI.BIRT")).expect("delete BIRT");
        e.delete(&one(&p, "INDI.BIRT.DATE")).expect("no-op");
        e.delete(&one(&p, "INDI.BIRT.NOTE")).expect("no-op");
        assert_eq!(e.change_count(), 1);
    });
    assert!(!String::from_utf8_lossy(&out).contains("BIRT"));

    let mut e = Editor::new(&p);
    e.delete(&one(&p, "INDI.BIRT")).expect("delete");
    let err = e
        .set_payload(&one(&p, "INDI.BIRT.DATE"), "1901")
        .expect_err("inside a deleted structure");
    match &err {
        EditError::Overlap { first, second } => {
            assert_eq!(first, "deleting line 5 (`BIRT`)");
            assert_eq!(second, "setting the payload of line 6");
        }
        other => panic!("{other:?}"),
    }
    assert!(e
        .move_to(
            &one(&p, "INDI.BIRT.NOTE"),
            &one(&p, "INDI.NAME"),
            Position::After
        )
        .is_err());
    assert!(e.set_tag(&one(&p, "INDI.BIRT.DATE"), "_DATE").is_err());

    // Deleting around an edited structure is refused by the deletion, naming the edit.
    let mut e = Editor::new(&p);
    e.set_tag(&one(&p, "INDI.BIRT.DATE"), "_DATE")
        .expect("retag");
    let err = e.delete(&one(&p, "INDI")).expect_err("around an edit");
    assert!(
        matches!(&err, EditError::Overlap { first, .. } if first.starts_with("retagging line 6")),
        "{err:?}"
    );
    // Edits of neighbouring or enclosing structures' own lines do not conflict.
    let mut e = Editor::new(&p);
    e.set_tag(&one(&p, "INDI.BIRT"), "DEAT")
        .expect("retag the parent");
    e.delete(&one(&p, "INDI.BIRT.NOTE"))
        .expect("delete a child");
    e.set_payload(&one(&p, "INDI.NAME"), "Robert")
        .expect("a sibling");
    let edited = e.apply().expect("apply");
    check(&p, &edited);
}
