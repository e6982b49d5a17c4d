//! `from_json` reads back what `to_json` writes: the same dataset (and the same lines) for every corpus file,
//! for generated files and for 100 000 nested levels on a small stack; malformed documents are errors with a
//! JSON path, a line and a column, never a panic.

mod common;

use common::{corpus_dir, files_under};
use gedgraft_model::{from_json, lower, to_json, Dataset, LowerOptions};
use gedgraft_syntax::parse;

/// Lowers `octets`, writes the JSON, reads it back, and checks the dataset and every structure's line.
fn round_trip(name: &str, octets: &[u8]) -> Dataset {
    let parse = parse(octets);
    let lowered = lower(&parse, &LowerOptions::default());
    let json = to_json(name, &parse, &lowered);
    let back = from_json(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(back == lowered.dataset, "{name}: dataset differs");
    let lines = |d: &Dataset| d.iter().map(|s| s.line()).collect::<Vec<_>>();
    assert_eq!(lines(&back), lines(&lowered.dataset), "{name}: lines");
    assert_eq!(
        to_json_of(name, &parse, &lowered.dataset),
        json,
        "{name}: JSON again"
    );
    back
}

/// The JSON of another dataset with the same parse (for the diagnostics and encoding members).
fn to_json_of(name: &str, parse: &gedgraft_syntax::Parse, dataset: &Dataset) -> String {
    let mut lowered = lower(parse, &LowerOptions::default());
    lowered.dataset = dataset.clone();
    to_json(name, parse, &lowered)
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn every_corpus_file_reads_back_as_its_dataset() {
    let files = files_under(&corpus_dir());
    assert!(files.len() > 100, "only {} corpus files", files.len());
    for path in &files {
        let name = path.display().to_string();
        let octets = std::fs::read(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        round_trip(&name, &octets);
    }
}

#[test]
fn pointers_undef_records_and_metadata_read_back() {
    // R-POINTER-CONV-10: @F9@ matches no record, @X@ is only a substructure's: two UNDEF records, made again.
    let d = round_trip(
        "x.ged",
        b"0 HEAD\n1 SOUR me\n1 SCHMA\n2 TAG _X http://x\n1 DATE 1 JAN 2000\n1 PLANG fr\n1 GEDC\n2 VERS 5.5.1\n\
          2 FORM LINEAGE-LINKED\n0 @I1@ INDI\n1 NAME A\n2 PLANG en\n1 FAMC @F9@\n1 @X@ NOTE n\n\
          1 ASSO @X@\n1 ALIA @I1@\n0 @N@ NOTE\n1 DTYPE http://d\n0 TRLR\n",
    );
    let undef: Vec<_> = d.records_with_tag("UNDEF").map(|r| r.xref()).collect();
    assert_eq!(undef, [Some("F9"), Some("X")]);
    assert_eq!(d.metadata.default_language.as_deref(), Some("fr"));
    // The schema sits between two metadata structures in the file, and keeps that id.
    assert_eq!(d.metadata.schemas.len(), 1);
    assert_eq!(d.metadata.schemas[0].index(), 1);
}

#[test]
fn gedcom_7_void_pointers_read_back() {
    let d = round_trip(
        "7.ged",
        b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 FAMC @VOID@\n0 TRLR\n",
    );
    assert_eq!(d.records_with_tag("UNDEF").count(), 0);
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn generated_files_read_back() {
    let texts = [
        "x",
        "a@@b",
        "\"quoted\" \\ é",
        "@#UE9@",
        "line\t",
        "@#DJULIAN@ 1700",
    ];
    let tags = ["NOTE", "NAME", "_X", "PLAC"];
    for seed in 1..40u64 {
        let mut rng = Rng(seed * 0x9E37_79B9);
        let mut src = String::from("0 HEAD\n1 CHAR UTF-8\n");
        let mut level = 0usize;
        for i in 0..60 {
            level = match level {
                0 => 0,
                l => rng.next(l + 2).min(l + 1),
            };
            if level == 0 {
                src.push_str(&format!("0 @R{i}@ {}\n", tags[rng.next(tags.len())]));
                level = 1;
                continue;
            }
            let tag = tags[rng.next(tags.len())];
            match rng.next(4) {
                0 => src.push_str(&format!("{level} {tag} @R{}@\n", rng.next(80))),
                1 => src.push_str(&format!(
                    "{level} {tag}\n{} CONT {}\n",
                    level + 1,
                    texts[rng.next(texts.len())]
                )),
                _ => src.push_str(&format!("{level} {tag} {}\n", texts[rng.next(texts.len())])),
            }
            level += 1;
            if rng.next(3) == 0 {
                level = 0;
            }
        }
        src.push_str("0 TRLR\n");
        round_trip(&format!("seed {seed}"), src.as_bytes());
    }
}

#[test]
fn hundred_thousand_levels_read_back_on_a_small_stack() {
    const LEVELS: usize = 100_000;
    let mut src = String::from("0 HEAD\n");
    for level in 0..LEVELS {
        src.push_str(&format!("{level} @X{level}@ A x@@y\n"));
    }
    src.push_str(&format!("{LEVELS} PTR @X0@\n0 TRLR\n"));
    let parse = parse(src.as_bytes());
    let lowered = lower(&parse, &LowerOptions::default());
    let json = to_json("deep.ged", &parse, &lowered);
    let worker = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let back = from_json(&json).expect("reads");
            let equal = back == lowered.dataset;
            drop(back);
            equal
        })
        .expect("spawn");
    assert!(worker.join().expect("no stack overflow"));
    drop(parse);
}

/// The error of reading `json`: (path, line, column, message).
fn error(json: &str) -> (String, usize, usize, String) {
    let e = from_json(json).expect_err(json);
    (e.path, e.line, e.column, e.message)
}

/// RFC 8259 § 4: names within an object SHOULD be unique, and readers differ when they are not (jq keeps the
/// last `records`, a reader that appends keeps both): a document read two ways is refused, at the second name.
#[test]
fn a_member_given_twice_is_refused() {
    let (path, line, column, message) = error(r#"{"records": [{"tag": "INDI"}], "records": []}"#);
    assert_eq!((path.as_str(), line, column), ("records", 1, 32));
    assert!(message.contains("`records` is given twice"), "{message}");
    let inner = error(r#"{"records": [{"tag": "INDI", "tag": "FAM"}]}"#);
    assert_eq!(inner.0, "records[0].tag");
    // The same name in different objects is fine.
    assert!(from_json(r#"{"records": [{"tag": "A"}, {"tag": "B"}]}"#).is_ok());
}

/// A value quoted in a message is cut after 40 characters: a line number of a million digits was echoed whole.
#[test]
fn long_values_are_quoted_short() {
    let digits = "9".repeat(100_000);
    let line = error(&format!(
        r#"{{"records": [{{"tag": "X", "line": {digits}}}]}}"#
    ))
    .3;
    assert!(line.len() < 200, "{line}");
    assert!(
        line.contains(&format!("`{}… (100000 characters)`", "9".repeat(40))),
        "{line}"
    );
    let tag = error(&format!(
        r#"{{"records": [{{"tag": "{}"}}]}}"#,
        "A B".repeat(50_000)
    ))
    .3;
    assert!(tag.len() < 200, "{tag}");
    let member = error(&format!(r#"{{"{}": 1}}"#, "m".repeat(50_000))).3;
    assert!(member.len() < 200, "{member}");
}

#[test]
fn errors_give_the_json_path_line_and_column() {
    let json = "{\"records\": [\n  {\"tag\": \"INDI\", \"children\": [\n    {\"tag\": \"NAME\", \"payload\": {\"text\": 3}}]}]}";
    assert_eq!(
        error(json),
        (
            "records[0].children[0].payload.text".to_string(),
            3,
            41,
            "expected a string, found a number".to_string()
        )
    );
    // A byte-order mark (which editors write and show nothing of) takes no column; on a later line it is text.
    for bom in ["", "\u{feff}"] {
        let (_, line, column, _) = error(&format!("{bom}  {{\"x\" 1}}"));
        assert_eq!((line, column), (1, 8), "{bom:?}");
        let (_, line, column, _) = error(&format!("{bom}{{\"records\": [],\n \"x\" 1}}"));
        assert_eq!((line, column), (2, 6), "{bom:?}");
    }
    let bad_tag = r#"{"records": [{"tag": "NA ME"}]}"#;
    assert_eq!(error(bad_tag).0, "records[0].tag");
    assert!(error(bad_tag).3.contains("`NA ME` is not a tag"));
    assert_eq!(
        error(r#"{"records": [{"xref": "I 1", "tag": "X"}]}"#).0,
        "records[0].xref"
    );
    let pointer = r#"{"records": [{"tag": "X", "payload": {"pointer": ""}}]}"#;
    assert_eq!(error(pointer).0, "records[0].payload.pointer");
    let no_tag = error(r#"{"records": [{"tag": "A"}, {"xref": "A"}]}"#);
    assert_eq!(
        (no_tag.0.as_str(), no_tag.3.as_str()),
        (
            "records[1]",
            "a structure needs a `tag` (before its `children`)"
        )
    );
    let before = error(r#"{"records": [{"children": [], "tag": "X"}]}"#);
    assert_eq!(
        before.3,
        "a structure needs a `tag` (before its `children`)"
    );
    let after = error(r#"{"records": [{"tag": "X", "children": [], "xref": "A"}]}"#);
    assert_eq!(after.0, "records[0].xref");
    assert!(
        after
            .3
            .contains("`children` must be the structure's last member"),
        "{}",
        after.3
    );
    let both = error(r#"{"records": [{"tag": "X", "payload": {"text": "a", "pointer": "b"}}]}"#);
    assert_eq!(both.0, "records[0].payload");
    assert_eq!(
        error(r#"{"records": [{"tag": "X", "childern": []}]}"#).3,
        "`childern` is not a member of a structure"
    );
    assert_eq!(
        error(r#"{"metadata": {}}"#).3,
        "the document has no `records` member"
    );
    assert_eq!(
        error(r#"{"records": []} x"#).3,
        "`x` cannot start a JSON value"
    );
    assert_eq!(
        error(r#"{"records": [],}"#).3,
        "expected a member name, found `}`"
    );
    assert_eq!(
        error(r#"{"records": [1,]}"#).3,
        "expected a structure (an object), found a number"
    );
    assert_eq!(
        error(r#"{"records": [{"tag": "X"},]}"#).3,
        "expected a structure (an object), found `]`"
    );
    let dialect = error(r#"{"metadata": {"dialect": "GEDCOM 9"}, "records": []}"#);
    assert_eq!(
        (dialect.0.as_str(), dialect.3.as_str()),
        ("metadata.dialect", "`GEDCOM 9` is not a dialect name")
    );
    assert_eq!(
        error(r#"{"metadata": {"elf_version": "1"}, "records": []}"#).0,
        "metadata.elf_version"
    );
    assert_eq!(
        error(r#"{"records": [{"tag": "X", "line": 0}]}"#).0,
        "records[0].line"
    );
    assert_eq!(
        error("").3,
        "expected the document's object, found the end of the text"
    );
    let wide = r#"{"records": [{"tag": "X", "payload": {"text": "é😀"}, "line": -1}]}"#;
    let column = wide[..wide.find("-1").expect("-1")].chars().count() + 1;
    assert_eq!(column, 62);
    assert_eq!(error(wide).2, column, "columns count characters");
}

#[test]
fn truncated_documents_are_errors_not_panics() {
    let parse = parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME A /B/\n2 GIVN A\n1 FAMC @F1@\n0 TRLR\n");
    let json = to_json("x", &parse, &lower(&parse, &LowerOptions::default()));
    for end in 0..json.len() {
        if let Some(prefix) = json.get(..end) {
            if prefix.trim_end() != json.trim_end() {
                assert!(from_json(prefix).is_err(), "{prefix}");
            }
        }
    }
}

#[test]
fn hand_written_json_needs_only_tags() {
    // Languages default to the metadata's default language, wherever the metadata is.
    let json = r#"{"records": [{"tag": "NOTE", "payload": {"text": "Bonjour"}}], "metadata": {"default_language": "fr"}}"#;
    let d = from_json(json).expect("reads");
    let note = d.records().next().expect("a record");
    match note.payload() {
        Some(gedgraft_model::Payload::Text(t)) => assert_eq!((t.text, t.lang), ("Bonjour", "fr")),
        other => panic!("{other:?}"),
    }
    assert_eq!(note.line(), None);
    assert_eq!(note.range(), None);
}
