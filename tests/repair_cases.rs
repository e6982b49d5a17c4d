//! Data-driven repair tests over `tests/data/repair/CODE.VARIANT.ged` (issue #16), as `data_driven.rs` does for
//! the syntax codes.
//!
//! Each file has a diagnostic of the code it is named after, and that diagnostic has a repair. The snapshot
//! (`snapshots/data_repair`, named after the file) holds the input, every diagnostic with its fix as JSON, and
//! the output of the repairs run to a fixed point (the safe ones; the unsafe ones too for an unsafe code).
//! After the repairs the diagnostic is gone, no error appears that was not there, and the error count does not
//! grow; for the codes of `KEEPS_DATASET` the lenient lowering's dataset is the same. Every code of
//! `REPAIR_KINDS` has a case.

use gedgraft_edit::{repair_kind, repair_to_fixed_point, repairs, Applicability, REPAIR_KINDS};
use gedgraft_syntax::{parse, ParseOptions, Severity};
use gedgraft_tests::dataset::dataset_of;
use gedgraft_tests::repair::{all_diagnostics, diagnostic_json, show_octets, KEEPS_DATASET};
use gedgraft_tests::{case_name, data_files, expected_code, workspace_root};
use std::collections::BTreeSet;

fn errors(diagnostics: &[gedgraft_syntax::Diagnostic]) -> (u64, BTreeSet<&'static str>) {
    let errors: Vec<_> = diagnostics
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .collect();
    (
        errors.iter().map(|d| u64::from(d.count.max(1))).sum(),
        errors.iter().map(|d| d.code).collect(),
    )
}

/// The snapshot of the case `tests/data/FOLDER/NAME.ged` (in `snapshots/data_FOLDER`): the input, the
/// diagnostics with their fixes, and the octets after the repairs (under `heading`).
fn assert_case_snapshot(
    folder: &str,
    case: &Case,
    heading: &str,
    repaired: &gedgraft_edit::Repaired,
) {
    let Case {
        name, input, shown, ..
    } = case;
    let report = format!(
        "input:\n{}\ndiagnostics:\n{}\n\n{heading} ({} repairs):\n{}",
        show_octets(input),
        serde_json::to_string_pretty(shown).unwrap_or_default(),
        repaired.applied,
        show_octets(&repaired.bytes)
    );
    insta::with_settings!({
        snapshot_path => workspace_root().join(format!("snapshots/data_{folder}")),
        prepend_module_to_snapshot => false,
        description => format!("tests/data/{folder}/{name}.ged"),
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name.to_string(), report);
    });
}

/// A case file read and diagnosed: its name, the code it is named after, its octets and parse, every
/// diagnostic with the repair offered for it, and those as the snapshot shows them.
struct Case {
    name: String,
    code: String,
    input: Vec<u8>,
    before: gedgraft_syntax::Parse,
    diagnostics: Vec<gedgraft_syntax::Diagnostic>,
    found: Vec<Option<gedgraft_edit::Repair>>,
    shown: Vec<serde_json::Value>,
}

impl Case {
    fn read(path: &std::path::Path) -> Case {
        let input = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let before = parse(&input);
        let diagnostics = all_diagnostics(&before);
        let refs: Vec<_> = diagnostics.iter().collect();
        let found = repairs(&before, &refs);
        let shown = (refs.iter().zip(&found))
            .map(|(d, r)| diagnostic_json(d, r.as_ref()))
            .collect();
        Case {
            name: case_name(path),
            code: expected_code(path),
            input,
            before,
            diagnostics,
            found,
            shown,
        }
    }

    /// The case's octets repaired to a fixed point with the repairs `wanted` takes.
    fn repaired(&self, wanted: impl Fn(&gedgraft_edit::Repair) -> bool) -> gedgraft_edit::Repaired {
        let options = ParseOptions::default();
        repair_to_fixed_point(&self.input, &self.before, &options, all_diagnostics, wanted)
    }

    /// Each diagnostic with its repair, if any.
    fn pairs(
        &self,
    ) -> impl Iterator<Item = (&gedgraft_syntax::Diagnostic, Option<&gedgraft_edit::Repair>)> {
        self.diagnostics
            .iter()
            .zip(self.found.iter().map(Option::as_ref))
    }
}

#[test]
fn repair_cases_fix_their_code() {
    let files = data_files("repair");
    assert!(!files.is_empty(), "no files in tests/data/repair");
    let mut failures = Vec::new();
    for path in &files {
        let case = Case::read(path);
        let (name, code) = (&case.name, &case.code);
        let own = case.pairs().find(|(d, _)| d.code == code);
        let Some((_, Some(repair))) = own else {
            failures.push(format!("repair/{name}: no repaired `{code}` diagnostic"));
            continue;
        };
        let upto = repair.applicability;
        let repaired = case.repaired(|r| r.applicability <= upto);
        let after = parse(&repaired.bytes);
        let after_diagnostics = all_diagnostics(&after);
        if after_diagnostics.iter().any(|d| d.code == code) {
            failures.push(format!("repair/{name}: `{code}` is still reported"));
        }
        if KEEPS_DATASET.contains(&code.as_str())
            && dataset_of(&case.before).0 != dataset_of(&after).0
        {
            failures.push(format!("repair/{name}: the repairs changed the dataset"));
        }
        let (n_before, codes_before) = errors(&case.diagnostics);
        let (n_after, codes_after) = errors(&after_diagnostics);
        if n_after > n_before || !codes_after.is_subset(&codes_before) {
            failures.push(format!(
                "repair/{name}: errors {codes_before:?} ({n_before}) became {codes_after:?} ({n_after})"
            ));
        }
        assert_case_snapshot("repair", &case, "repaired", &repaired);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every code with a repair has a case, and every case is named after such a code.
#[test]
fn every_repair_kind_has_a_case() {
    let covered: BTreeSet<String> = data_files("repair")
        .iter()
        .map(|p| expected_code(p))
        .collect();
    for (code, _, _) in REPAIR_KINDS {
        assert!(covered.contains(*code), "no tests/data/repair/{code}.*.ged");
    }
    for code in &covered {
        assert!(
            repair_kind(code).is_some(),
            "tests/data/repair/{code}: no repair for that code"
        );
    }
}

/// A repair changes only the octets of its own edits; an unsafe one is never applied by a safe-only run.
#[test]
fn safe_runs_leave_unsafe_repairs_alone() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 BIRT\n3 DATE 1900\n0 TRLR\n";
    let before = parse(input);
    let repaired = repair_to_fixed_point(
        input,
        &before,
        &ParseOptions::default(),
        all_diagnostics,
        |r| r.applicability == Applicability::Safe,
    );
    assert_eq!(repaired.bytes, input);
    assert_eq!(repaired.applied, 0);
}

/// Cases in `tests/data/norepair/CODE.VARIANT.ged`: each has a diagnostic of the code it is named after and no
/// repair of that code is offered, because a repair would change the meaning. The snapshot
/// (`snapshots/data_norepair`) holds the input, the diagnostics with their fixes, and what the safe repairs do.
///
/// The `bad-level` cases: a line with no level is made a `CONT` line (R-LINE-CONT-03, R-SERIALISING-STRUCTS-06:
/// one `CONT` line for each line break of a payload) only under free text, and only when it reads as text. A
/// line under a one-line value (`NAME`, `PLAC`), a damaged GEDCOM line (`x1 BIRT`, `SEX M`, `@ TRLR`, as in the
/// corpus's `fhiso-legacy-format/tests/extra-conc.ged`) and the DOS end-of-file mark (Ctrl-Z) are left alone.
#[test]
fn norepair_cases_offer_no_repair_of_their_code() {
    let files = data_files("norepair");
    assert!(!files.is_empty(), "no files in tests/data/norepair");
    let mut failures = Vec::new();
    for path in &files {
        let case = Case::read(path);
        let (name, code) = (&case.name, &case.code);
        if !case.pairs().any(|(d, _)| d.code == code) {
            failures.push(format!("norepair/{name}: no `{code}` diagnostic"));
        }
        if case.pairs().any(|(d, r)| d.code == code && r.is_some()) {
            failures.push(format!("norepair/{name}: a `{code}` repair is offered"));
        }
        let repaired = case.repaired(|r| r.applicability == Applicability::Safe);
        assert_case_snapshot("norepair", &case, "after the safe repairs", &repaired);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
