//! The corpus: every file lowers without panicking, in both modes, with a consistent dataset; the files of
//! `gedcom7code-test-files/5/` and `fhiso-legacy-format/` have snapshots of their `gedgraft lower` JSON in
//! `snapshots/lowering/` at the top of the workspace.

mod common;

use common::{corpus_dir, files_under};
use gedgraft_model::{lower, to_json, Dataset, LowerOptions, Payload};
use gedgraft_syntax::parse;
use std::path::Path;

fn name_in(corpus: &Path, path: &Path) -> String {
    path.strip_prefix(corpus)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Parent links, children and pointers agree with each other.
fn check_consistency(name: &str, d: &Dataset) {
    assert_eq!(d.iter().count(), d.len(), "{name}");
    for (i, s) in d.iter().enumerate() {
        assert_eq!(s.id().index(), i, "{name}: ids in order");
        for child in s.children() {
            let parent = child.parent().map(|p| p.id());
            assert_eq!(parent, Some(s.id()), "{name}: parent link");
        }
        let descendants = s.descendants().count();
        assert_eq!(s.subtree_end().index() - i, descendants, "{name}: subtree");
        if let Some(Payload::Pointer(p)) = s.payload() {
            if p.record.is_none() {
                // GEDCOM 7's null pointer (7.0 `voidPtr`).
                assert!(
                    p.target == "VOID" && d.metadata.dialect.is_gedcom7(),
                    "{name}"
                );
                continue;
            }
            let target = d
                .resolve(&p)
                .unwrap_or_else(|| panic!("{name}: unresolved @{}@", p.target));
            assert!(target.parent().is_none(), "{name}: pointer to a non-record");
            assert_eq!(
                p.undefined,
                target.tag() == "UNDEF" && target.line().is_none()
            );
        }
    }
    for r in d.records() {
        assert!(r.parent().is_none(), "{name}: record with a parent");
    }
    for r in d.xref_records() {
        let xref = r
            .xref()
            .unwrap_or_else(|| panic!("{name}: indexed without xref"));
        assert_eq!(d.record_by_xref(xref), Some(r), "{name}: @{xref}@");
    }
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn every_corpus_file_lowers() {
    let corpus = corpus_dir();
    let files = files_under(&corpus);
    assert!(files.len() > 100, "only {} corpus files", files.len());
    for path in &files {
        let name = name_in(&corpus, path);
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let parse = parse(&bytes);
        let lenient = lower(&parse, &LowerOptions::default());
        check_consistency(&name, &lenient.dataset);
        let json = to_json(&name, &parse, &lenient);
        if let Err(e) = serde_json::from_str::<serde_json::Value>(&json) {
            // serde_json's reader stops at 128 levels of nesting; deeper files are checked by tests/deep.rs.
            assert!(
                e.to_string().contains("recursion limit"),
                "{name}: invalid JSON: {e}"
            );
        }
        let strict = lower(
            &parse,
            &LowerOptions::default().with_strict(true).with_nfc(true),
        );
        if strict.stopped_at.is_none() {
            assert_eq!(
                strict.dataset.record_ids().len(),
                lenient.dataset.record_ids().len(),
                "{name}"
            );
        } else {
            assert!(strict.dataset.is_empty(), "{name}");
        }
    }
}

/// Inputs larger than this get no snapshot.
const MAX_SNAPSHOT_INPUT: usize = 20_000;

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn corpus_snapshots() {
    let corpus = corpus_dir();
    let mut files = files_under(&corpus.join("gedcom7code-test-files/5"));
    files.extend(files_under(&corpus.join("fhiso-legacy-format")));
    assert!(files.len() >= 25, "only {} files found", files.len());
    for path in &files {
        let name = name_in(&corpus, path);
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        if bytes.len() > MAX_SNAPSHOT_INPUT {
            continue; // lowered without panic in the test above; a snapshot of it would be too large to review
        }
        let parse = parse(&bytes);
        let lowered = lower(&parse, &LowerOptions::default());
        let json = to_json(&name, &parse, &lowered);
        let snapshot = name.replace(['/', '.'], "_");
        insta::with_settings!({
            snapshot_path => "../../../snapshots/lowering",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(snapshot, json);
        });
    }
}

/// Runs always: under CI the corpus and the specs must be there, or the tests above would be ignored unseen.
#[test]
fn shared_data_is_there_under_ci() {
    common::check_shared_data(cfg!(has_corpus), cfg!(has_spec));
}
