//! Whole-file edits keep the ELF dataset: every corpus file, transcoded to UTF-8, UTF-16, ASCII and ANSEL (then
//! re-wrapped), with bare `@`s escaped, re-wrapped narrowly, with needless `CONC` splits joined, or with its line breaks converted, lowers to the
//! same records as before (line numbers aside; text compared in NFC, since ANSEL has no precomposed letters)
//! and has no error it did not have before. This is what a user running `gedgraft fix` on legacy files relies
//! on; it found a diacritic moved onto the wrong letter across a CONC split, `--rewrap` measuring lines before
//! a transcode, and re-wrapping that split header metadata.
//!
//! The same edits give no change in `gedgraft_model::compare` either (the semantic diff of `gedgraft diff`):
//! formatting is not data.

use gedgraft_edit::{Edited, Editor, LineBreak, RawOctets};
use gedgraft_model::{compare, lower, LowerOptions};
use gedgraft_syntax::encoding::Encoding;
use gedgraft_syntax::{parse, Parse};
use gedgraft_test_support::{corpus_files, corpus_name};
use gedgraft_tests::dataset::dataset_of;

/// Files larger than this are left out (the debug build is slow; the operations are the same).
const MAX_FILE: u64 = 256 * 1024;

/// One edit: a name and what it does to a parse (`None` when the editor refuses, which is allowed).
type Operation = (&'static str, fn(&Parse) -> Option<Parse>);

fn applied(editor: Editor) -> Option<Parse> {
    editor.apply_lazily().ok().map(Edited::into_parse)
}

fn transcoded(parse: &Parse, to: Encoding) -> Option<Parse> {
    let mut editor = Editor::new(parse);
    editor.transcode(to, RawOctets::Replace);
    let parse = applied(editor)?;
    let mut editor = Editor::new(&parse);
    editor.rewrap(None, None).ok()?;
    applied(editor)
}

const OPERATIONS: [Operation; 8] = [
    ("to UTF-8", |p| transcoded(p, Encoding::Utf8)),
    ("to UTF-16LE", |p| transcoded(p, Encoding::Utf16Le)),
    ("to ASCII", |p| transcoded(p, Encoding::Ascii)),
    ("to ANSEL", |p| transcoded(p, Encoding::Ansel)),
    ("escape @", |p| {
        let mut editor = Editor::new(p);
        editor.escape_at_signs(None);
        applied(editor)
    }),
    ("rewrap 40", |p| {
        let mut editor = Editor::new(p);
        editor.rewrap(Some(40), None).ok()?;
        applied(editor)
    }),
    ("join CONC", |p| {
        let mut editor = Editor::new(p);
        editor.join_conc(None, None).ok()?;
        applied(editor)
    }),
    ("CR LF", |p| {
        let mut editor = Editor::new(p);
        editor.convert_line_breaks(LineBreak::CrLf, gedgraft_edit::LfCr::OneBreak);
        applied(editor)
    }),
];

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn whole_file_edits_keep_the_dataset_of_every_corpus_file() {
    let files = corpus_files();
    let (mut checked, mut failures) = (0, Vec::new());
    for path in files {
        if path.extension().is_none_or(|e| e != "ged")
            || std::fs::metadata(&path).map_or(true, |m| m.len() > MAX_FILE)
        {
            continue;
        }
        let bytes = std::fs::read(&path).expect("read corpus file");
        let original = parse(&bytes);
        let (records, errors) = dataset_of(&original);
        let dataset = lower(&original, &LowerOptions::default().with_nfc(true)).dataset;
        for (name, operation) in OPERATIONS {
            let Some(edited) = operation(&original) else {
                continue;
            };
            checked += 1;
            let (new_records, new_errors) = dataset_of(&edited);
            let new_dataset = lower(&edited, &LowerOptions::default().with_nfc(true)).dataset;
            if new_records != records {
                failures.push(format!(
                    "{} ({name}): the dataset changed",
                    corpus_name(&path)
                ));
            }
            let changes = compare(&dataset, &new_dataset);
            if !changes.is_empty() {
                failures.push(format!(
                    "{} ({name}): gedgraft diff finds changes:\n{changes}",
                    corpus_name(&path)
                ));
            }
            let added: Vec<_> = new_errors.difference(&errors).collect();
            if !added.is_empty() {
                failures.push(format!(
                    "{} ({name}): new errors {added:?}",
                    corpus_name(&path)
                ));
            }
        }
    }
    println!("{checked} edited files checked");
    assert!(checked > 0, "no corpus file was checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
