//! The shortest tour of the library, and issue 14's acceptance program: read what you write
//! (`Structure::value`), descendant paths (`INDI.**.CHAN`), the way back from the dataset to the tree
//! (`StructureRef::syntax`), and per-node edits (`delete`, `set_tag`, `move_to`), through the public API only.
//! Runs as a test (`harness = false`): a failed assertion fails `cargo test`.

use gedgraft_edit::{Editor, Position};
use gedgraft_model::{lower, LowerOptions};
use gedgraft_syntax::{parse, Selector};

const INPUT: &[u8] = b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1 NAME John /Smith/\r\n1 NOTE a@@b\r\n2 CONC c\r\n2 CONT d\r\n1 _UID ABC\r\n1 BIRT\r\n2 DATE 1 JAN 1900\r\n2 CHAN\r\n3 DATE 1 JAN 2000\r\n1 CHAN\r\n2 DATE 2 JAN 2000\r\n1 _MARNM Jones\r\n0 TRLR\r\n";
const WANT: &[u8] = b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1 NAME John /Smith/\r\n2 _MARNM Jones\r\n1 NOTE a@@b\r\n2 CONC c\r\n2 CONT d\r\n1 UID ABC\r\n1 BIRT\r\n2 DATE 1 JAN 1900\r\n0 TRLR\r\n";

fn one(doc: &gedgraft_syntax::ast::Document, path: &str) -> gedgraft_syntax::ast::Structure {
    let found = Selector::parse(path).expect("selector").select(doc);
    assert_eq!(found.len(), 1, "{path}");
    found.into_iter().next().expect("one")
}

fn main() {
    let parse = parse(INPUT);
    let doc = parse.document();

    // Reading is symmetric with writing: the logical value, unescaped and with continuations merged.
    let note = one(&doc, "INDI.NOTE");
    assert_eq!(
        note.value().map(|v| v.to_string()).as_deref(),
        Some("a@bc\nd"),
        "Structure::value"
    );

    // A descendant step in paths.
    let chans = Selector::parse("INDI.**.CHAN")
        .expect("selector")
        .select(&doc);
    assert_eq!(chans.len(), 2, "INDI.**.CHAN");

    // From the dataset back to the tree.
    let lowered = lower(&parse, &LowerOptions::default());
    let indi = lowered
        .dataset
        .records()
        .find(|r| r.tag() == "INDI")
        .expect("INDI record");
    let node = indi.syntax(&parse).expect("StructureRef::syntax");
    assert_eq!(
        node.xref().map(|x| x.id().to_string()).as_deref(),
        Some("I1")
    );

    // Per-node edits: delete, retag one structure, move a subtree (levels renumbered, other octets kept).
    let mut editor = Editor::new(&parse);
    for chan in &chans {
        editor.delete(chan).expect("delete");
    }
    editor
        .set_tag(&one(&doc, "INDI._UID"), "UID")
        .expect("set_tag");
    editor
        .move_to(
            &one(&doc, "INDI._MARNM"),
            &one(&doc, "INDI.NAME"),
            Position::LastChild,
        )
        .expect("move_to");
    let edited = editor.apply().expect("apply");
    assert_eq!(
        String::from_utf8_lossy(edited.bytes()),
        String::from_utf8_lossy(WANT),
        "edited octets"
    );
    println!("lib-user: value, descendant paths, dataset-to-tree link, set_tag, move_to all work");
}
