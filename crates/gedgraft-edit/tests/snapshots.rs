//! Snapshots of the diff of each edit kind on corpus files in UTF-8 (LF and CR LF), ANSEL, UTF-16LE and
//! windows-1252, including a `set` value longer than 255 octets with non-ASCII text and an `@`
//! (R-SERIALISING-STRUCTS-08 to -14). Snapshots live in `snapshots/edit/` at the workspace root. Corpus files are
//! read from `../shared/corpus` (ignored when missing; see README).

mod common;

use common::{check, corpus};
use gedgraft_edit::{Editor, LineBreak, NewStructure, Position, RawOctets, Scope};
use gedgraft_syntax::encoding::Encoding;
use gedgraft_syntax::parse;

struct Case {
    label: &'static str,
    file: &'static str,
    record: &'static str,
    eol: LineBreak,
    encoding: Encoding,
}

const CASES: [Case; 5] = [
    Case {
        label: "utf8_lf",
        file: "gedcom4j/sample/utf8_lf_nobom.ged",
        record: "I2",
        eol: LineBreak::CrLf,
        encoding: Encoding::Ascii,
    },
    Case {
        label: "utf8_crlf",
        file: "gedcom4j/sample/Harry_Potter.ged",
        record: "I1",
        eol: LineBreak::Lf,
        encoding: Encoding::Utf16Le,
    },
    Case {
        label: "ansel",
        file: "gedcom4j/sample/ANSEL.GED",
        record: "CHILD0",
        eol: LineBreak::Lf,
        encoding: Encoding::Utf8,
    },
    Case {
        label: "utf16le",
        file: "gedcom7code-test-files/5/char_utf16le-2.ged",
        record: "1",
        eol: LineBreak::CrLf,
        encoding: Encoding::Utf8,
    },
    Case {
        label: "windows1252",
        file: "gedcom4j/sample/a31486.ged",
        record: "I4004",
        eol: LineBreak::Lf,
        encoding: Encoding::Utf8,
    },
];

/// More than 255 octets in every encoding, with non-ASCII text, an `@` and a line break.
fn long_value() -> String {
    let mut v = String::from("Grüße aus Köln, Łódź und Zürich — write to archive@example.org; ");
    v.push_str("the parish register of St. Æthelberht (☺ 1791–1799) lists the baptism, marriage and burial ");
    v.push_str("of every member of the family, with the godparents' names spelt as the curate heard them.\n");
    v.push_str("Second paragraph: the end.");
    v
}

const EDITS: [&str; 9] = [
    "rename",
    "set",
    "delete",
    "insert",
    "escape_at",
    "rewrap",
    "eol",
    "transcode",
    "xref",
];

fn run(case: &Case, edit: &str) -> String {
    let bytes = corpus(case.file);
    let parse = parse(&bytes);
    let record = parse
        .document()
        .record_by_xref(case.record)
        .unwrap_or_else(|| panic!("{}: no @{}@", case.file, case.record));
    let scope = Scope::parse(&format!("@{}@", case.record)).expect("path");
    let mut editor = Editor::new(&parse);
    match edit {
        "rename" => {
            editor
                .rename_tag("NAME", "_NAME", Some(&scope))
                .expect("rename");
        }
        "set" => {
            let first = record.substructures().next().expect("a substructure");
            editor.set_payload(&first, &long_value()).expect("set");
        }
        "delete" => {
            let last = record.substructures().last().expect("a substructure");
            editor.delete(&last).expect("delete");
        }
        "insert" => {
            let note = NewStructure::new("NOTE")
                .text("First line, with é and an @\nSecond line")
                .child(NewStructure::new("SOUR").text("Parish register"));
            editor
                .insert(&record, Position::LastChild, &note)
                .expect("insert");
        }
        "escape_at" => {
            editor.escape_at_signs(None);
        }
        "rewrap" => {
            editor.rewrap(Some(60), Some(&scope)).expect("rewrap");
        }
        "eol" => editor.convert_line_breaks(case.eol, gedgraft_edit::LfCr::TwoBreaks),
        "transcode" => editor.transcode(case.encoding, RawOctets::Replace),
        "xref" => {
            editor.set_xref(&record, Some("NEW1")).expect("xref");
        }
        other => panic!("unknown edit {other}"),
    }
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    let warnings: Vec<String> = edited
        .warnings()
        .iter()
        .map(|w| format!("warning: {w}\n"))
        .collect();
    let (removed, added) = edited.line_counts();
    format!(
        "{}: {} → {}, {} change(s), -{removed} +{added} lines\n{}{}",
        case.file,
        parse.encoding(),
        edited.parse().encoding(),
        edited.changed_ranges().len(),
        warnings.concat(),
        edited.unified_diff(&format!("a/{}", case.file), &format!("b/{}", case.file))
    )
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn diffs_of_every_edit_kind_on_corpus_files() {
    for case in &CASES {
        for edit in EDITS {
            let diff = run(case, edit);
            insta::with_settings!({
                snapshot_path => "../../../snapshots/edit",
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                insta::assert_snapshot!(format!("{}__{edit}", case.label), diff);
            });
        }
    }
}

/// Bare `@`s (§ Encoding `@`s): escaped, then the needless `CONC` split re-joined in a second batch; one diff
/// for both batches through composed changes.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn escape_at_then_rewrap_on_the_at_sign_file() {
    let name = "gedcom7code-test-files/5/atsign.ged";
    let bytes = corpus(name);
    let parse = parse(&bytes);
    let mut editor = Editor::new(&parse);
    let escaped = editor.escape_at_signs(None);
    let first = editor.apply().expect("escape");
    check(&parse, &first);
    let first_changes = first.changed_ranges().to_vec();
    let middle = first.into_parse();
    let mut editor = Editor::new(&middle);
    let rewrapped = editor.join_conc(None, None).expect("join");
    let second = editor.apply().expect("rewrap");
    check(&middle, &second);
    let changes = gedgraft_edit::compose_changes(&first_changes, second.changed_ranges());
    common::assert_local(&bytes, second.bytes(), &changes);
    let diff = gedgraft_edit::unified_diff(
        &parse,
        second.parse(),
        &changes,
        "a/atsign.ged",
        "b/atsign.ged",
    );
    insta::with_settings!({
        snapshot_path => "../../../snapshots/edit",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(
            "atsign__escape_at_then_rewrap",
            format!("{escaped} `@` escaped, {rewrapped} structure(s) re-wrapped\n{diff}")
        );
    });
}

/// Runs always: under CI the corpus and the specs must be there, or the tests above would be ignored unseen.
#[test]
fn shared_data_is_there_under_ci() {
    common::check_shared_data(cfg!(has_corpus), cfg!(has_spec));
}
