//! Data-driven lowering tests over `tests/data/lower/CODE.ged` and `tests/data/lower/CODE.VARIANT.ged`, as
//! `data_driven.rs` does for the syntax codes.
//!
//! Each file exercises the lowering code it is named after (`crates/gedgraft-model/src/codes.rs`), which must
//! be reported. Its expected output is a snapshot next to the other data snapshots (`snapshots/data_lower`,
//! named after the file): the `gedgraft lower` JSON document, with the dataset and every diagnostic of the
//! file. Every lowering code has at least one case. The `lines-left-out.*` cases are the lenient recovery
//! (R-RECOVER-06, R-RECOVER-07, R-RECOVER-09; `lines-left-out.redux-pepin` is the redux draft's own example).

use gedgraft_model::{codes, lower, to_json, LowerOptions, Lowered};
use gedgraft_syntax::{parse, Parse, Severity};
use gedgraft_tests::{case_name, data_files, expected_code, workspace_root};

fn lowered(input: &[u8], options: &LowerOptions) -> (Parse, Lowered) {
    let parse = parse(input);
    let lowered = lower(&parse, options);
    (parse, lowered)
}

#[test]
fn lower_files_report_their_code() {
    let files = data_files("lower");
    assert!(
        !files.is_empty(),
        "no files in tests/data/lower: run from the workspace"
    );
    let mut failures = Vec::new();
    for path in &files {
        let name = case_name(path);
        let code = expected_code(path);
        let input = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (parse, lenient) = lowered(&input, &LowerOptions::default());
        let found: Vec<&str> = lenient.diagnostics.iter().map(|d| d.code).collect();
        if !found.contains(&code.as_str()) {
            failures.push(format!("lower/{name}: expected `{code}`, got {found:?}"));
        }
        // The records are cut into runs for threads at record boundaries: the same result on two threads.
        let (_, two) = lowered(&input, &LowerOptions::default().with_threads(2));
        if two != lenient {
            failures.push(format!("lower/{name}: two threads give another result"));
        }
        // A left-out line follows an error; strict mode stops at that error with an empty dataset (R-LINES-05).
        if code == codes::LINES_LEFT_OUT {
            let (_, strict) = lowered(&input, &LowerOptions::default().with_strict(true));
            let note = lenient.diagnostics.iter().find(|d| d.code == code);
            let stopped_before = match (&strict.stopped_at, note) {
                (Some(stop), Some(note)) => {
                    stop.severity() == Severity::Error && stop.range.start() <= note.range.start()
                }
                _ => false,
            };
            if !stopped_before || !strict.dataset.is_empty() {
                failures.push(format!(
                    "lower/{name}: strict mode did not stop before the left-out lines"
                ));
            }
        }
        let json = to_json(&format!("{name}.ged"), &parse, &lenient);
        insta::with_settings!({
            snapshot_path => workspace_root().join("snapshots/data_lower"),
            prepend_module_to_snapshot => false,
            description => format!("tests/data/lower/{name}.ged"),
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name, json);
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every lowering code has a `lower/` case, so a new code cannot land untested.
#[test]
fn every_lowering_code_has_a_case() {
    let covered: Vec<String> = data_files("lower")
        .iter()
        .map(|p| expected_code(p))
        .collect();
    let missing: Vec<&&str> = codes::ALL
        .iter()
        .filter(|c| !covered.iter().any(|k| k == **c))
        .collect();
    assert!(
        missing.is_empty(),
        "lowering codes without a tests/data/lower/CODE.ged case: {missing:?}"
    );
    let unknown: Vec<&String> = covered
        .iter()
        .filter(|k| !codes::ALL.contains(&k.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "lower/ files named after no lowering code: {unknown:?}"
    );
}
