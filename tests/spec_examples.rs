//! Every ELF example of the 2019 serialisation draft, read from the spec at test time: the tree and the
//! diagnostics of each are snapshots (`snapshots/spec_examples/example_LNNNN.snap`, NNNN being the line of the
//! `{.example` marker in `elf-serialisation-2019-12-11.md`), and each round-trips byte for byte.
//!
//! An example box is `{.example ...}` … `{/}` (several paragraphs) or `{.example}` (one paragraph). Its code
//! blocks are the lines indented by four spaces; a block whose first line starts with a digit is ELF. Many
//! examples are fragments without `HEAD`/`TRLR`, so their snapshots show `first-line-not-head` and
//! `missing-trailer`: that is expected.

use gedgraft_syntax::parse;
use gedgraft_test_support::spec_dir;
use gedgraft_tests::report::{assert_round_trip, dump_with_diagnostics};
use gedgraft_tests::workspace_root;
use std::path::PathBuf;

/// One ELF example of the spec.
struct Example {
    /// The 1-based line of the `{.example` marker.
    line: usize,
    /// The fragment: the ELF code lines without their four-space indent, each ending in LF.
    text: String,
}

impl Example {
    fn name(&self) -> String {
        format!("example_L{:04}", self.line)
    }
}

fn spec_path() -> PathBuf {
    spec_dir().join("elf-serialisation-2019-12-11.md")
}

fn snapshot_dir() -> PathBuf {
    workspace_root().join("snapshots/spec_examples")
}

/// The ELF examples of the spec, in file order.
fn extract_examples(markdown: &str) -> Vec<Example> {
    let lines: Vec<&str> = markdown
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut examples = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let marker = lines[i];
        if !marker.starts_with("{.example") {
            i += 1;
            continue;
        }
        // `{.example ...}` runs to `{/}`; `{.example}` is one paragraph, ending at the first blank line.
        let boxed = marker.starts_with("{.example ...}");
        let mut end = i + 1;
        while end < lines.len() {
            let l = lines[end];
            if (boxed && l.starts_with("{/}")) || (!boxed && l.trim().is_empty()) {
                break;
            }
            end += 1;
        }
        let mut text = String::new();
        let mut in_elf_block = false;
        let mut prev_was_code = false;
        for l in &lines[i + 1..end] {
            match l.strip_prefix("    ") {
                Some(code) => {
                    if !prev_was_code {
                        in_elf_block = code.starts_with(|c: char| c.is_ascii_digit());
                    }
                    if in_elf_block {
                        text.push_str(code);
                        text.push('\n');
                    }
                    prev_was_code = true;
                }
                None => prev_was_code = false,
            }
        }
        if !text.is_empty() {
            examples.push(Example { line: i + 1, text });
        }
        i = end;
    }
    examples
}

fn examples() -> Vec<Example> {
    let path = spec_path();
    let markdown = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    extract_examples(&markdown)
}

#[test]
#[cfg_attr(
    not(has_spec),
    ignore = "specs missing: see README, Tests and the corpus"
)]
fn spec_examples_snapshots_and_round_trips() {
    let examples = examples();
    assert!(
        examples.len() >= 30,
        "only {} ELF examples found in the spec: has the example markup changed?",
        examples.len()
    );
    for example in &examples {
        let parse = parse(example.text.as_bytes());
        // Invariant 2: every fragment, well-formed or not, writes back unchanged.
        assert_round_trip(&parse, example.text.as_bytes(), &example.name());
        insta::with_settings!({
            // `snapshots/spec_examples`, absolute: see `data_driven.rs`.
            snapshot_path => snapshot_dir(),
            prepend_module_to_snapshot => false,
            description => example.text.as_str(),
            omit_expression => true,
        }, {
            insta::assert_snapshot!(example.name(), dump_with_diagnostics(&parse));
        });
    }
}

/// A snapshot whose example disappeared (the spec was edited) would otherwise linger unnoticed.
#[test]
#[cfg_attr(
    not(has_spec),
    ignore = "specs missing: see README, Tests and the corpus"
)]
fn every_spec_example_snapshot_has_its_example() {
    let examples = examples();
    let names: Vec<String> = examples.iter().map(Example::name).collect();
    let stale: Vec<String> = std::fs::read_dir(snapshot_dir())
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter_map(|f| f.strip_suffix(".snap").map(str::to_string))
                .filter(|stem| !names.contains(stem))
                .collect()
        })
        .unwrap_or_default();
    assert!(stale.is_empty(), "snapshots without an example: {stale:?}");
}

/// R-LINES-04 (spec line 1024): `2 PLAC Москва` after a level-0 line is a malformed line.
#[test]
#[cfg_attr(
    not(has_spec),
    ignore = "specs missing: see README, Tests and the corpus"
)]
fn r_lines_04_spec_level_jump_example_is_malformed() {
    let examples = examples();
    let example = examples
        .iter()
        .find(|e| e.text.contains("2 PLAC Москва"))
        .expect("the level-jump example of § Levels");
    let parse = parse(example.text.as_bytes());
    let jumps: Vec<_> = parse
        .diagnostics()
        .iter()
        .filter(|d| d.code == gedgraft_syntax::codes::LEVEL_JUMP)
        .map(|d| d.location.line)
        .collect();
    assert_eq!(jumps, [2], "{:?}", parse.diagnostics());
}

/// R-LINES-01 (spec line 961): the three example lines are well-formed; only the missing header and
/// trailer are reported.
#[test]
#[cfg_attr(
    not(has_spec),
    ignore = "specs missing: see README, Tests and the corpus"
)]
fn r_lines_01_spec_cleopatra_example_has_only_fragment_diagnostics() {
    let examples = examples();
    let example = examples
        .iter()
        .find(|e| e.text.starts_with("0 @I1@ INDI\n1 NAME Cleopatra"))
        .expect("the Cleopatra example of § Parsing lines");
    let codes: Vec<&str> = parse(example.text.as_bytes())
        .diagnostics()
        .iter()
        .map(|d| d.code)
        .collect();
    assert_eq!(codes, ["first-line-not-head", "missing-trailer"]);
}

#[test]
fn extraction_handles_boxed_and_one_paragraph_examples() {
    let md = "text\n\n{.example ...} Intro.\n\n    0 HEAD\n    1 CHAR UTF-8\n\nMore.\n\n    Number ::= \"0\"\n\n    \
              1 NOTE x\n{/}\n\n{.example} One paragraph,\nno code.\n\n    1 NOTE outside\n";
    let found: Vec<(usize, String)> = extract_examples(md)
        .into_iter()
        .map(|e| (e.line, e.text))
        .collect();
    assert_eq!(found, [(3, "0 HEAD\n1 CHAR UTF-8\n1 NOTE x\n".to_string())]);
}
