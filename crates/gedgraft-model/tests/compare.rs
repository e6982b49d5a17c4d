//! `compare` over the corpus: a dataset has no change against itself nor against its JSON read back (the jq
//! round trip with no edit gives no edit), and `compare` finds a change exactly when the datasets differ by
//! meaning (`Dataset`'s `==`), checked on neighbouring corpus files and on one-line edits of each file.

mod common;

use common::{corpus_dir, files_under};
use gedgraft_model::{compare, from_json, lower, to_json, Dataset, LowerOptions};
use gedgraft_syntax::parse;

fn lowered(octets: &[u8]) -> (gedgraft_syntax::Parse, Dataset) {
    let parse = parse(octets);
    let dataset = lower(&parse, &LowerOptions::default()).dataset;
    (parse, dataset)
}

/// The file with the payload of its last line that has one replaced (a one-line edit), if it has one.
fn one_line_edit(octets: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(octets).ok()?;
    let line = text.lines().rev().find(|l| {
        l.split(' ').count() >= 3 && l.starts_with(|c: char| c.is_ascii_digit()) && !l.contains('@')
    })?;
    let edited = format!("{line} (edited)");
    Some(text.replacen(line, &edited, 1).into_bytes())
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn every_corpus_file_compares_equal_to_itself_and_its_json_and_differs_when_edited() {
    let files = files_under(&corpus_dir());
    assert!(files.len() > 100, "only {} corpus files", files.len());
    let mut previous: Option<Dataset> = None;
    let (mut pairs, mut edits) = (0, 0);
    for path in &files {
        let name = path.display().to_string();
        let octets = std::fs::read(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (parse, dataset) = lowered(&octets);
        assert!(compare(&dataset, &dataset).is_empty(), "{name}: itself");
        let json = to_json(&name, &parse, &lower(&parse, &LowerOptions::default()));
        let back = from_json(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
        let changes = compare(&dataset, &back);
        assert!(changes.is_empty(), "{name}: its JSON read back:\n{changes}");
        if let Some(before) = &previous {
            let changes = compare(before, &dataset);
            assert_eq!(
                changes.is_empty(),
                *before == dataset,
                "{name}: against the file before it"
            );
            pairs += 1;
        }
        if let Some(edited) = one_line_edit(&octets) {
            let (_, after) = lowered(&edited);
            if after != dataset {
                let changes = compare(&dataset, &after);
                assert!(!changes.is_empty(), "{name}: an edit went unseen");
                edits += 1;
            }
        }
        previous = Some(dataset);
    }
    assert!(pairs > 100 && edits > 50, "{pairs} pairs, {edits} edits");
}
