//! Repairs over the corpus (issue #16): for every corpus file, the safe repairs run to a fixed point (as
//! `gedgraft fix --repair` runs them)
//!
//! - never raise the error count, never add a diagnostic code the file did not have;
//! - change octets only inside their edits, and each line-local repair's edits lie on its diagnostic's lines;
//! - keep the lenient lowering's dataset where the repaired diagnostics are warnings (blank lines, bare `@`,
//!   long lines, line-break forms: `KEEPS_DATASET`): those inputs were not malformed, so the data must mean the same.

use gedgraft_edit::{apply_repairs, repair_to_fixed_point, repairs, Applicability, Repair};
use gedgraft_syntax::{parse, Diagnostic, ParseOptions, Severity};
use gedgraft_test_support::{corpus_files, corpus_name};
use gedgraft_tests::dataset::dataset_of;
use gedgraft_tests::repair::{all_diagnostics, only_edits_changed, KEEPS_DATASET};
use std::collections::BTreeSet;

/// Files larger than this are left out (the debug build is slow; the repairs are the same).
const MAX_FILE: u64 = 256 * 1024;

/// Codes whose repair edits only the lines of its diagnostic (the others add or move a trailer at the end,
/// convert every line break, set `CHAR` for a mismatch found elsewhere, rename pointers with an identifier, or
/// move a `CONC` split into the line before).
const NOT_LINE_LOCAL: [&str; 8] = [
    "duplicate-xref",
    "record-after-trailer",
    "missing-trailer",
    "lf-cr-line-breaks",
    "mixed-line-breaks",
    "level-jump",
    "conc-at-whitespace",
    "declared-encoding-mismatch",
];

fn error_count(diagnostics: &[Diagnostic]) -> u64 {
    diagnostics
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .map(|d| u64::from(d.count.max(1)))
        .sum()
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn safe_repairs_of_every_corpus_file_keep_errors_codes_octets_and_data() {
    let files = corpus_files();
    assert!(!files.is_empty(), "no corpus files");
    let mut failures = Vec::new();
    let (mut tried, mut repaired_files) = (0, 0);
    for path in files {
        if std::fs::metadata(&path).map_or(true, |m| m.len() > MAX_FILE) {
            continue;
        }
        let Ok(input) = std::fs::read(&path) else {
            continue;
        };
        let name = corpus_name(&path);
        tried += 1;
        let before = parse(&input);
        let diagnostics = all_diagnostics(&before);
        let refs: Vec<&Diagnostic> = diagnostics.iter().collect();
        let found = repairs(&before, &refs);
        // One pass: the output is the input with the edits, and line-local edits stay on their lines.
        let chosen: Vec<&Repair> = found
            .iter()
            .flatten()
            .filter(|r| r.applicability == Applicability::Safe)
            .collect();
        let pass = apply_repairs(&input, &chosen);
        let taken: Vec<&Repair> = pass
            .applied_indices
            .iter()
            .filter_map(|&i| chosen.get(i).copied())
            .collect();
        if !only_edits_changed(&input, &pass.bytes, &taken) {
            failures.push(format!("{name}: octets outside the repairs changed"));
        }
        for (d, r) in refs.iter().zip(&found) {
            let Some(r) = r else { continue };
            if NOT_LINE_LOCAL.contains(&r.code) {
                continue;
            }
            let mut lines = before.line_range(d.range.start());
            if matches!(d.code, "conc-at-whitespace" | "conc-after-diacritic") {
                // A split between a `CONC` line and the line before it: moving it edits both lines.
                lines = before.line_range(lines.start().checked_sub(1.into()).unwrap_or_default());
            }
            let start = before.source_map().file_offset(usize::from(lines.start()));
            let last = before.line_range(d.last_start().max(d.range.start()));
            let end = before.source_map().file_offset(usize::from(last.end())) + 2;
            if r.edits
                .iter()
                .any(|e| e.range.start < start || e.range.end > end)
            {
                failures.push(format!(
                    "{name}: the {} repair at line {} edits other lines",
                    r.code, d.location.line
                ));
            }
        }
        // To a fixed point: no more errors, no new codes.
        let options = ParseOptions::default();
        let safe = |r: &Repair| r.applicability == Applicability::Safe;
        let repaired = repair_to_fixed_point(&input, &before, &options, all_diagnostics, safe);
        if repaired.applied == 0 {
            continue;
        }
        repaired_files += 1;
        let after = parse(&repaired.bytes);
        let after_diagnostics = all_diagnostics(&after);
        let codes_before: BTreeSet<_> = diagnostics.iter().map(|d| d.code).collect();
        let new: BTreeSet<_> = after_diagnostics
            .iter()
            .map(|d| d.code)
            .filter(|c| !codes_before.contains(c))
            .collect();
        if !new.is_empty() {
            failures.push(format!("{name}: new codes {new:?}"));
        }
        if error_count(&after_diagnostics) > error_count(&diagnostics) {
            failures.push(format!("{name}: more errors after the repairs"));
        }
        // Repairs of warnings only: the same dataset.
        let warnings_only = |r: &Repair| safe(r) && KEEPS_DATASET.contains(&r.code);
        let kept = repair_to_fixed_point(&input, &before, &options, all_diagnostics, warnings_only);
        if kept.applied > 0 && dataset_of(&before).0 != dataset_of(&parse(&kept.bytes)).0 {
            failures.push(format!("{name}: repairs of warnings changed the dataset"));
        }
    }
    eprintln!("{tried} corpus files, {repaired_files} repaired");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
