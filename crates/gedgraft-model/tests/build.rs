//! `DatasetBuilder`: a dataset built structure by structure equals the lowering of the file that writes it,
//! pointers resolve as the lowering resolves them (R-POINTER-CONV-10..13), any depth is built without
//! recursion, and malformed structures are refused.

use gedgraft_model::{
    lower, BuildError, DatasetBuilder, LowerOptions, NewStructure, Payload, Version,
};
use gedgraft_syntax::Dialect;

fn lowered(src: &str) -> gedgraft_model::Dataset {
    let parse = gedgraft_syntax::parse(src.as_bytes());
    let lowered = lower(&parse, &LowerOptions::default());
    lowered.dataset
}

/// Every structure as a line of text, and the metadata: what dataset equality compares.
fn describe(d: &gedgraft_model::Dataset) -> Vec<String> {
    let mut out = vec![format!("{:?} records {:?}", d.metadata, d.record_ids())];
    for s in d.iter() {
        out.push(format!(
            "{} {:?} {} {:?} parent {:?} end {}",
            s.id().index(),
            s.xref(),
            s.tag(),
            s.payload(),
            s.parent().map(|p| p.id().index()),
            s.subtree_end().index()
        ));
    }
    out
}

#[test]
fn built_dataset_equals_the_lowered_file() -> Result<(), BuildError> {
    let file = lowered(
        "0 HEAD\n1 SOUR me\n1 SCHMA\n2 TAG _X http://x\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 PLANG fr\n\
         0 @I1@ INDI\n1 NAME Bob /Smith/\n2 GIVN Bob\n2 PLANG en\n1 FAMS @F1@\n1 NOTE a@@b\n2 CONT c\n1 BIRT\n\
         0 @F1@ FAM\n1 HUSB @I1@\n1 CHIL @I2@\n0 TRLR\n",
    );
    let mut b = DatasetBuilder::new();
    let m = b.metadata_mut();
    m.dialect = Dialect::Gedcom551;
    m.gedcom_version = Version::parse("5.5.1");
    m.gedcom_form = Some("LINEAGE-LINKED".to_string());
    m.default_language = Some("fr".to_string());
    // Built in another order than the file: records first, the schema after the metadata structure.
    b.record(NewStructure::new("INDI").with_xref("I1"))?;
    b.child(
        NewStructure::new("NAME")
            .with_text("Bob /Smith/")
            .with_lang("en"),
    )?;
    b.child(NewStructure::new("GIVN").with_text("Bob"))?;
    b.close()?;
    b.close()?;
    b.child(NewStructure::new("FAMS").with_pointer("F1"))?;
    b.close()?;
    b.child(NewStructure::new("NOTE").with_text("a@b\nc"))?;
    b.close()?;
    b.child(NewStructure::new("BIRT"))?;
    b.record(NewStructure::new("FAM").with_xref("F1"))?;
    b.child(NewStructure::new("HUSB").with_pointer("I1"))?;
    b.close()?;
    b.child(NewStructure::new("CHIL").with_pointer("I2"))?;
    b.metadata_structure(NewStructure::new("SOUR").with_text("me").with_line(2))?;
    b.schema(NewStructure::new("SCHMA").with_line(3))?;
    b.child(
        NewStructure::new("TAG")
            .with_text("_X http://x")
            .with_lang("fr"),
    )?;
    assert_eq!(b.depth(), 2);
    let built = b.finish();
    assert_eq!(describe(&built), describe(&file));
    assert!(built == file);
    // @I2@ matches no record: an UNDEF record, last (R-POINTER-CONV-10).
    let chil = built.record_by_xref("F1").and_then(|f| f.child("CHIL"));
    let undef = chil.and_then(|c| c.target()).expect("UNDEF");
    assert_eq!((undef.tag(), undef.xref()), ("UNDEF", Some("I2")));
    assert_eq!(
        chil.and_then(|c| c.pointer()).map(|p| p.undefined),
        Some(true)
    );
    Ok(())
}

#[test]
fn pointers_resolve_as_the_lowering_resolves_them() -> Result<(), BuildError> {
    // R-POINTER-CONV-10..13: to the one record with the identifier; to an UNDEF record when several records
    // have it or only a substructure does; to nothing for GEDCOM 7's @VOID@.
    let mut b = DatasetBuilder::new();
    b.metadata_mut().dialect = Dialect::GEDCOM_7_0;
    b.record(NewStructure::new("A").with_xref("TWICE"))?;
    b.record(NewStructure::new("A").with_xref("TWICE"))?;
    b.record(NewStructure::new("B").with_xref("ONE"))?;
    b.child(NewStructure::new("C").with_xref("SUB"))?;
    b.record(NewStructure::new("P"))?;
    for target in ["ONE", "TWICE", "SUB", "VOID", "SUB"] {
        b.child(NewStructure::new("PTR").with_pointer(target))?;
        b.close()?;
    }
    let d = b.finish();
    let p = d.records_with_tag("P").next().expect("P");
    let targets: Vec<_> = p
        .children()
        .map(|c| {
            (
                c.pointer().map(|p| p.undefined),
                c.target().map(|t| (t.tag(), t.xref())),
            )
        })
        .collect();
    assert_eq!(
        targets,
        [
            (Some(false), Some(("B", Some("ONE")))),
            (Some(true), Some(("UNDEF", Some("TWICE")))),
            (Some(true), Some(("UNDEF", Some("SUB")))),
            (Some(false), None),
            (Some(true), Some(("UNDEF", Some("SUB")))),
        ]
    );
    assert_eq!(d.records_with_tag("UNDEF").count(), 2);
    assert_eq!(d.record_by_xref("ONE").map(|r| r.tag()), Some("B"));
    assert!(d.record_by_xref("TWICE").is_none());
    Ok(())
}

#[test]
fn payloads_and_languages() -> Result<(), BuildError> {
    let mut b = DatasetBuilder::new();
    b.record(NewStructure::new("NOTE").with_text(""))?;
    b.record(NewStructure::new("NOTE").with_lang("de"))?;
    b.record(
        NewStructure::new("NOTE")
            .with_text("x")
            .with_datatype("http://d"),
    )?;
    let d = b.finish();
    let payloads: Vec<_> = d.records().map(|r| r.payload()).collect();
    // R-PAYLOADS-02: an empty string is no payload, unless annotated.
    assert_eq!(payloads[0], None);
    fn text<'d>(p: &Option<Payload<'d>>) -> Option<(&'d str, &'d str, Option<&'d str>)> {
        match p {
            Some(Payload::Text(t)) => Some((t.text, t.lang, t.datatype)),
            _ => None,
        }
    }
    assert_eq!(text(&payloads[1]), Some(("", "de", None)));
    assert_eq!(text(&payloads[2]), Some(("x", "und", Some("http://d"))));
    Ok(())
}

#[test]
fn malformed_structures_are_refused() {
    let mut b = DatasetBuilder::new();
    assert_eq!(
        b.child(NewStructure::new("X")),
        Err(BuildError::NothingOpen)
    );
    assert_eq!(b.close(), Err(BuildError::NothingOpen));
    assert_eq!(
        b.record(NewStructure::new("NA ME")),
        Err(BuildError::BadTag("NA ME".to_string()))
    );
    assert_eq!(
        b.record(NewStructure::new("X").with_xref("I 1")),
        Err(BuildError::BadXref("I 1".to_string()))
    );
    for target in ["", "#x", "a@b", "a\nb"] {
        assert_eq!(
            b.record(NewStructure::new("X").with_pointer(target)),
            Err(BuildError::BadPointer(target.to_string()))
        );
    }
    assert_eq!(
        b.record(NewStructure::new("X").with_pointer("I1").with_lang("en")),
        Err(BuildError::AnnotatedPointer)
    );
    // Nothing refused was added.
    assert!(b.finish().is_empty());
}

#[test]
fn hundred_thousand_levels_on_a_small_stack() {
    let worker = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| -> Result<usize, BuildError> {
            let mut b = DatasetBuilder::new();
            b.record(NewStructure::new("A").with_xref("X0"))?;
            for _ in 0..100_000 {
                b.child(NewStructure::new("A").with_text("x"))?;
            }
            b.child(NewStructure::new("PTR").with_pointer("X0"))?;
            let d = b.finish();
            let deepest = d.iter().last().expect("deepest");
            assert_eq!(deepest.target().map(|t| t.id().index()), Some(0));
            Ok(d.len())
        })
        .expect("spawn");
    assert_eq!(worker.join().expect("no stack overflow"), Ok(100_002));
}
