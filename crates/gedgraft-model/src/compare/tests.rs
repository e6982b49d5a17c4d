use super::*;
use crate::{lower, LowerOptions};

fn dataset(text: &str) -> Dataset {
    lower(
        &gedgraft_syntax::parse(text.as_bytes()),
        &LowerOptions::default(),
    )
    .dataset
}

fn diff(old: &str, new: &str) -> String {
    compare(&dataset(old), &dataset(new)).to_string()
}

#[test]
fn formatting_alone_is_no_change() {
    let old = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Bob@@home\n1 NOTE long\n2 CONC er\n2 CONT line\n0 TRLR\n";
    let new = "0 HEAD\r\n1 CHAR ASCII\r\n  0 @I1@ INDI\r\n  1 NAME Bob@@home\r\n  1 NOTE lon\r\n  2 CONC ger\r\n  2 CONT line\r\n0 TRLR\r\n";
    assert_eq!(diff(old, new), "");
}

#[test]
fn a_changed_payload_names_its_path_and_both_lines() {
    let old = dataset("0 HEAD\n0 @I1@ INDI\n1 NAME John /Smith/\n0 TRLR\n");
    let new = dataset("0 HEAD\n0 @I1@ INDI\n1 SEX M\n1 NAME John /Smyth/\n0 TRLR\n");
    let changes = compare(&old, &new).into_vec();
    assert_eq!(
        changes.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "+ @I1@ INDI.SEX",
            "~ @I1@ INDI.NAME: \"John /Smith/\" → \"John /Smyth/\""
        ]
    );
    let Change::PayloadChanged { old, new, .. } = &changes[1] else {
        panic!("{changes:?}")
    };
    assert_eq!((old.line, new.line), (Some(3), Some(4)));
    assert!(old.range.is_some());
    let Change::StructureAdded { at, .. } = &changes[0] else {
        panic!()
    };
    assert_eq!(*at, Anchor::First(Parent::Structure(StructureId::new(0))));
}

#[test]
fn repeated_siblings_get_positions() {
    assert_eq!(
        diff(
            "0 HEAD\n0 @I1@ INDI\n1 NAME A\n1 NAME B\n2 GIVN b\n0 TRLR\n",
            "0 HEAD\n0 @I1@ INDI\n1 NAME A\n1 NAME B\n2 GIVN c\n0 TRLR\n"
        ),
        "~ @I1@ INDI.NAME[2].GIVN: \"b\" → \"c\"\n"
    );
}

#[test]
fn records_added_and_removed() {
    assert_eq!(
        diff(
            "0 HEAD\n0 @I1@ INDI\n0 @I2@ INDI\n1 NAME Two\n0 TRLR\n",
            "0 HEAD\n0 @I1@ INDI\n0 @I3@ INDI\n1 NAME Three\n0 TRLR\n"
        ),
        "- @I2@ INDI\n+ @I3@ INDI\n"
    );
}

#[test]
fn a_retag_is_a_tag_change() {
    assert_eq!(
        diff(
            "0 HEAD\n0 @I1@ INDI\n1 _UID 12\n1 NAME x\n0 TRLR\n",
            "0 HEAD\n0 @I1@ INDI\n1 UID 12\n1 NAME x\n0 TRLR\n"
        ),
        "~ @I1@ INDI._UID: tag _UID → UID\n"
    );
}

#[test]
fn reordered_siblings_and_records_are_moves() {
    assert_eq!(
        diff(
            "0 HEAD\n0 @I1@ INDI\n1 NAME A\n1 SEX M\n1 BIRT\n0 @I2@ INDI\n0 TRLR\n",
            "0 HEAD\n0 @I2@ INDI\n0 @I1@ INDI\n1 SEX M\n1 BIRT\n1 NAME A\n0 TRLR\n"
        ),
        "> @I1@ INDI → @I1@ INDI (line 2 → 3)\n> @I1@ INDI.NAME → @I1@ INDI.NAME (line 3 → 6)\n"
    );
}

#[test]
fn a_structure_moved_to_another_record_is_one_move() {
    assert_eq!(
        diff(
            "0 HEAD\n0 @I1@ INDI\n1 NOTE seen\n2 SOUR @S1@\n0 @I2@ INDI\n0 @S1@ SOUR\n0 TRLR\n",
            "0 HEAD\n0 @I1@ INDI\n0 @I2@ INDI\n1 NOTE seen\n2 SOUR @S1@\n0 @S1@ SOUR\n0 TRLR\n"
        ),
        "> @I1@ INDI.NOTE → @I2@ INDI.NOTE (line 3 → 4)\n"
    );
}

#[test]
fn renumbered_records_change_only_their_identifiers() {
    let old =
        "0 HEAD\n0 @I1@ INDI\n1 NAME Ann\n1 FAMS @F1@\n0 @I2@ INDI\n1 NAME Bob\n1 FAMS @F1@\n\
               0 @F1@ FAM\n1 HUSB @I2@\n1 WIFE @I1@\n0 TRLR\n";
    let new =
        "0 HEAD\n0 @P1@ INDI\n1 NAME Ann\n1 FAMS @G7@\n0 @P2@ INDI\n1 NAME Bob\n1 FAMS @G7@\n\
               0 @G7@ FAM\n1 HUSB @P2@\n1 WIFE @P1@\n0 TRLR\n";
    assert_eq!(
        diff(old, new),
        "~ @I1@ INDI: xref @I1@ → @P1@\n~ @I2@ INDI: xref @I2@ → @P2@\n~ @F1@ FAM: xref @F1@ → @G7@\n"
    );
}

#[test]
fn a_pointer_to_another_record_is_a_payload_change() {
    assert_eq!(
        diff(
            "0 HEAD\n0 @I1@ INDI\n1 FAMC @F1@\n0 @F1@ FAM\n0 @F2@ FAM\n1 NOTE x\n0 TRLR\n",
            "0 HEAD\n0 @I1@ INDI\n1 FAMC @F2@\n0 @F1@ FAM\n0 @F2@ FAM\n1 NOTE x\n0 TRLR\n"
        ),
        "~ @I1@ INDI.FAMC: @F1@ → @F2@\n"
    );
}

#[test]
fn metadata_and_languages() {
    assert_eq!(
        diff(
            "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n1 SOUR x\n0 @N1@ NOTE hi\n0 TRLR\n",
            "0 HEAD\n1 GEDC\n2 VERS 5.5.5\n1 SOUR y\n0 @N1@ NOTE hi\n1 PLANG fr\n0 TRLR\n"
        ),
        "~ HEAD metadata dialect: GEDCOM 5.5.1 → GEDCOM 5.5.5\n\
         ~ HEAD.SOUR: \"x\" → \"y\"\n\
         ~ @N1@ NOTE: \"hi\" (lang und) → \"hi\" (lang fr)\n"
    );
}

#[test]
fn deep_nesting_needs_no_recursion_and_paths_stay_short() {
    let depth = 100_000;
    let mut old = String::from("0 HEAD\n0 @I1@ INDI\n");
    for level in 1..=depth {
        old.push_str(&format!("{level} NOTE\n"));
    }
    let new = format!("{old}{} NOTE x\n0 TRLR\n", depth + 1);
    old.push_str("0 TRLR\n");
    let changes = compare(&dataset(&old), &dataset(&new)).into_vec();
    assert_eq!(changes.len(), 1);
    let path = &changes[0]
        .after()
        .map(|p| p.path.clone())
        .unwrap_or_default();
    assert!(path.starts_with("@I1@ INDI.NOTE.NOTE."), "{path}");
    assert!(path.contains(".…(99970 levels)…."), "{path}");
    assert!(path.len() < 300);
    // Equal deep datasets compare equal.
    assert!(compare(&dataset(&old), &dataset(&old)).is_empty());
}

#[test]
fn equal_hashes_are_confirmed() {
    // Two records of the same shape, different text: hashes differ, and `same` says so too.
    let a = dataset("0 HEAD\n0 @I1@ INDI\n1 NAME a\n0 TRLR\n");
    let b = dataset("0 HEAD\n0 @I1@ INDI\n1 NAME b\n0 TRLR\n");
    let map = XrefMap::default();
    let (ra, rb) = (records(&a)[0], records(&b)[0]);
    assert!(!same(ra, rb, &map));
    assert!(same(ra, records(&a)[0], &map));
}

#[test]
fn spec_equivalences_are_no_change() {
    // R-PAYLOADS-02: `1 BIRT` and `1 BIRT␠` lower to the same structure.
    assert_eq!(
        diff(
            "0 HEAD\n0 @I1@ INDI\n1 BIRT\n0 TRLR\n",
            "0 HEAD\n0 @I1@ INDI\n1 BIRT \n0 TRLR\n"
        ),
        ""
    );
    // R-LINE-STRINGS-01: LF, CR LF and CR are line breaks alike.
    assert_eq!(
        diff(
            "0 HEAD\n0 @I1@ INDI\n1 NAME x\n0 TRLR\n",
            "0 HEAD\r0 @I1@ INDI\r\n1 NAME x\r0 TRLR\r"
        ),
        ""
    );
    // R-LINE-STRINGS-05: `1 NOTE a␠ ⏎ 2 CONC b` → `a␠b`; trailing spaces are data.
    assert_eq!(
        diff(
            "0 HEAD\n0 @N1@ NOTE a \n1 CONC b\n0 TRLR\n",
            "0 HEAD\n0 @N1@ NOTE a b\n0 TRLR\n"
        ),
        ""
    );
    assert_eq!(
        diff(
            "0 HEAD\n0 @I1@ INDI\n1 NAME Bob  \n0 TRLR\n",
            "0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n"
        ),
        "~ @I1@ INDI.NAME: \"Bob  \" → \"Bob\"\n"
    );
}

#[test]
fn undef_records_are_not_compared_but_their_pointers_are() {
    // R-POINTER-CONV-10: `1 CHIL @I9@` with no `@I9@` points to an UNDEF record the lowering makes.
    let old = "0 HEAD\n0 @F1@ FAM\n1 CHIL @I9@\n0 TRLR\n";
    assert_eq!(diff(old, old), "");
    assert_eq!(
        diff(old, "0 HEAD\n0 @F1@ FAM\n1 CHIL @I8@\n0 TRLR\n"),
        "~ @F1@ FAM.CHIL: @I9@ (dangling) → @I8@ (dangling)\n"
    );
    assert_eq!(
        diff(old, "0 HEAD\n0 @F1@ FAM\n0 TRLR\n"),
        "- @F1@ FAM.CHIL\n"
    );
}

/// R-POINTER-CONV-10: a dangling pointer points to an `UNDEF` record, not to a record of that name on the other
/// side. A record renumbered with a pointer to it left behind changed what the pointer means, and a pointer
/// that dangled and now finds a record too; each side says where its pointer leads (they printed
/// `@N1@ → @N1@`, or no change at all).
#[test]
fn a_pointer_that_dangles_on_one_side_only_changed() {
    let file = |xref: &str, target: &str| {
        format!("0 HEAD\n0 @I1@ INDI\n1 NOTE @{target}@\n0 @{xref}@ NOTE hello\n0 TRLR\n")
    };
    let (resolved, left_behind) = (file("N1", "N1"), file("N2", "N1"));
    assert_eq!(
        diff(&resolved, &left_behind),
        "~ @I1@ INDI.NOTE: @N1@ (the record now @N2@) → @N1@ (dangling)\n~ @N1@ NOTE: xref @N1@ → @N2@\n"
    );
    assert_eq!(
        diff(&left_behind, &resolved),
        "~ @I1@ INDI.NOTE: @N1@ (dangling) → @N1@\n~ @N2@ NOTE: xref @N2@ → @N1@\n"
    );
    // Renumbered with the pointer following: only the identifier changed.
    assert_eq!(
        diff(&resolved, &file("N2", "N2")),
        "~ @N1@ NOTE: xref @N1@ → @N2@\n"
    );
    assert_eq!(diff(&left_behind, &left_behind), "");
}

#[test]
fn swapped_payloads_are_payload_changes_not_retags() {
    // Husband and wife swapped: two changed pointers.
    let husb_wife = |h: &str, w: &str| {
        format!(
            "0 HEAD\n0 @I1@ INDI\n0 @I2@ INDI\n0 @F1@ FAM\n1 HUSB @{h}@\n1 WIFE @{w}@\n0 TRLR\n"
        )
    };
    assert_eq!(
        diff(&husb_wife("I1", "I2"), &husb_wife("I2", "I1")),
        "~ @F1@ FAM.HUSB: @I1@ → @I2@\n~ @F1@ FAM.WIFE: @I2@ → @I1@\n"
    );
    // Birth and death dates swapped: two changed dates.
    let events = |b: &str, d: &str| {
        format!("0 HEAD\n0 @I1@ INDI\n1 BIRT\n2 DATE {b}\n1 DEAT\n2 DATE {d}\n0 TRLR\n")
    };
    assert_eq!(
        diff(&events("1900", "1950"), &events("1950", "1900")),
        "~ @I1@ INDI.BIRT.DATE: \"1900\" → \"1950\"\n~ @I1@ INDI.DEAT.DATE: \"1950\" → \"1900\"\n"
    );
}
