//! Data-driven parser tests over `tests/data/{ok,err}/*.ged`, in the manner of rust-analyzer's `test_data`.
//!
//! - `ok/*.ged`: valid inputs (line-break forms, BOMs, tabs, deep nesting, escapes, …): no error diagnostics
//!   (warnings such as `blank-line` are allowed).
//! - `err/CODE.ged` or `err/CODE.VARIANT.ged`: each exercises the diagnostic `CODE`, which must be reported.
//!   Every code of `crates/gedgraft-syntax/src/codes.rs` (and every encoding note code of
//!   `crates/gedgraft-encoding/src/detect.rs`) must have at least one such file.
//!
//! For every file the tree dump and the diagnostics are a snapshot (`snapshots/data_ok`, `snapshots/data_err`,
//! named after the file) and the parse must write back the file's exact octets (invariant 2).

use gedgraft_syntax::{parse, Severity};
use gedgraft_tests::report::{assert_round_trip, dump_with_diagnostics};
use gedgraft_tests::{case_name, data_files, expected_code, workspace_root};

/// The string values of `pub const NAME: &str = "value";` (or `&'static str`) declarations in `source`.
fn declared_codes(source: &str) -> Vec<String> {
    source
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("pub const ") && l.contains("str = \""))
        .filter_map(|l| {
            let value = l.split_once("str = \"")?.1;
            Some(value.split_once('"')?.0.to_string())
        })
        .collect()
}

fn snapshot_group(group: &str) {
    let files = data_files(group);
    assert!(
        !files.is_empty(),
        "no files in tests/data/{group}: run from the workspace"
    );
    let mut failures = Vec::new();
    for path in &files {
        let name = case_name(path);
        let input = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let parse = parse(&input);
        assert_round_trip(&parse, &input, &format!("{group}/{name}"));
        let codes: Vec<&str> = parse.diagnostics().iter().map(|d| d.code).collect();
        if group == "ok" {
            let errors: Vec<&str> = parse
                .diagnostics()
                .iter()
                .filter(|d| d.severity() == Severity::Error)
                .map(|d| d.code)
                .collect();
            if !errors.is_empty() {
                failures.push(format!("ok/{name}: unexpected errors {errors:?}"));
            }
        } else {
            let code = expected_code(path);
            if !codes.contains(&code.as_str()) {
                failures.push(format!("err/{name}: expected `{code}`, got {codes:?}"));
            }
        }
        insta::with_settings!({
            // An absolute path: insta resolves relative ones from the cargo workspace it finds with
            // `cargo metadata`, which lands them in the wrong folder when that lookup fails.
            snapshot_path => workspace_root().join(format!("snapshots/data_{group}")),
            prepend_module_to_snapshot => false,
            description => format!("tests/data/{group}/{name}.ged"),
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name, dump_with_diagnostics(&parse));
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ok_files_have_no_errors() {
    snapshot_group("ok");
}

#[test]
fn err_files_report_their_code() {
    snapshot_group("err");
}

/// Every stable code has an `err/` case, so a new code cannot land untested.
#[test]
fn every_diagnostic_code_has_an_err_case() {
    let root = workspace_root();
    let mut codes = Vec::new();
    for source in [
        "crates/gedgraft-syntax/src/codes.rs",
        "crates/gedgraft-encoding/src/detect.rs",
    ] {
        let path = root.join(source);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let found = declared_codes(&text);
        assert!(!found.is_empty(), "no codes found in {source}");
        codes.extend(found);
    }
    let covered: Vec<String> = data_files("err").iter().map(|p| expected_code(p)).collect();
    let missing: Vec<&String> = codes.iter().filter(|c| !covered.contains(c)).collect();
    assert!(
        missing.is_empty(),
        "codes without a tests/data/err/CODE.ged case: {missing:?}"
    );
    let unknown: Vec<&String> = covered.iter().filter(|c| !codes.contains(c)).collect();
    assert!(
        unknown.is_empty(),
        "err/ files named after no known code: {unknown:?}"
    );
}

#[test]
fn declared_codes_reads_both_declaration_forms() {
    let source = "/// doc\npub const A: &str = \"a-b\";\n    pub const B: &'static str = \"c\";\nconst C: &str = \"d\";\n";
    assert_eq!(declared_codes(source), ["a-b", "c"]);
}
