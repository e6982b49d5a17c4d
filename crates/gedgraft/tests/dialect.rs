//! Integration tests of dialects (ELF 1.0, GEDCOM 5.5/5.5.1/5.5.5/7.0): `check` and `lower` report the file's
//! dialect and follow its rules, and every `fix` edit writes what the dialect means. GEDCOM 7.0 rules are from
//! FamilySearch GEDCOM 7.0 (`../shared/spec/gedcom7/`): only a leading `@` is doubled, no `CONC`, UTF-8 only,
//! `GEDC` with `VERS` and no `FORM`. Small inputs live in `tests/data/`; corpus files are read from
//! `../shared/corpus` (ignored when missing; see README). Snapshots are in `snapshots/cli/`.

#[macro_use]
mod common;

use common::{corpus_file, data_dir, exit_code, gedgraft_in, stderr, stdout, temp_dir, write};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;

/// A fresh directory for one test, holding `name` with `bytes`.
fn temp_file(test: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let dir = temp_dir("gedgraft-dialect", test);
    write(&dir, name, bytes);
    dir
}

/// The JSON objects `check --format json` printed, one per file.
fn reports(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

fn errors(report: &Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| format!("{} at line {}: {}", d["code"], d["line"], d["message"]))
        .collect()
}

/// A GEDCOM 7.0 file made of the specification's examples (§ Lines: the `me@example.com` note and the
/// four-line note; § Extensions: the `_SKYPEID` schema), plus a `@VOID@` pointer.
#[test]
fn check_json_on_a_gedcom7_file_names_the_dialect_and_finds_no_error() {
    let out = gedgraft_in(&data_dir(), &["check", "--format", "json", "gedcom7.ged"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    let report = &reports(&out)[0];
    assert_eq!(report["dialect"], "GEDCOM 7.0");
    assert_eq!(report["diagnostics"], Value::Array(Vec::new()));
    // With a file whose line strings start with a single `@` (7.0 `lineStr`: a leading `@` is doubled).
    let out = gedgraft_in(
        &data_dir(),
        &["check", "--format", "json", "gedcom7.ged", "gedcom7-at.ged"],
    );
    assert_eq!(exit_code(&out), 1, "stderr: {}", stderr(&out));
    assert_cli_snapshot!("check_json_gedcom7", stdout(&out));
}

#[test]
fn lower_reports_the_dialect_and_reads_the_leading_at_rule() {
    let out = gedgraft_in(&data_dir(), &["lower", "gedcom7.ged"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(v["metadata"]["dialect"], "GEDCOM 7.0");
    assert_eq!(v["metadata"]["gedcom_form"], Value::Null);
    let note = &v["records"][0]["children"][1]["payload"]["text"];
    assert_eq!(
        note,
        "me@example.com is my email\n@me and @I are my social media handles"
    );
}

/// Every valid GEDCOM 7 file of the corpus (and the 5.5.5 ones) checks with no error; files that are meant to
/// break rules `check` does not test (ages, dates) are included, since their lines are well formed.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn gedcom7_and_555_corpus_files_check_without_errors() {
    let gedcom7 = [
        "gedcom7code-test-files/7/age-invalid.ged",
        "gedcom7code-test-files/7/age-valid.ged",
        "gedcom7code-test-files/7/atsign.ged",
        "gedcom7code-test-files/7/char_ascii_1.ged",
        "gedcom7code-test-files/7/char_utf16be-1.ged",
        "gedcom7code-test-files/7/char_utf8-1.ged",
        "gedcom7code-test-files/7/char_utf8-3.ged",
        "gedcom7code-test-files/7/date-all.ged",
        "gedcom7code-test-files/7/enum-ext.ged",
        "gedcom7code-test-files/7/filename-1.ged",
        "gedcom7code-test-files/7/lang-all.ged",
        "gedcom7code-test-files/7/notes-1.ged",
        "gedcom7code-test-files/7/obje-1.ged",
        "gedcom7code-test-files/7/obsolete-1.ged",
        "gedcom7code-test-files/7/pedi-1.ged",
        "gedcom7code-test-files/7/rela_1.ged",
        "gedcom7code-test-files/7/sour-1.ged",
        "gedcom7code-test-files/7/tiny-1.ged",
        "gedcom7code-test-files/7/xref-case.ged",
        "familysearch-gedcom.io/testfiles/gedcom70/date.ged",
        "familysearch-gedcom.io/testfiles/gedcom70/maximal70.ged",
        "familysearch-gedcom.io/testfiles/gedcom71/minimal71.ged",
        "familysearch-gedcom.io/testfiles/gedcom71/notes71.ged",
        "armidale-gedcom7/Tests/samples/name-pieces-multiple.ged",
        "armidale-gedcom7/Tests/samples/note.ged",
        "armidale-gedcom7/Tests/samples/snote.ged",
        "gedinline/src/test/resources/gedcom-files/fs-escapes.ged",
        "gedinline/src/test/resources/gedcom-files/fs-long-url.ged",
        "gedinline/src/test/resources/gedcom-files/fs-spaces.ged",
    ];
    let gedcom555 = [
        "ged_io/tests/fixtures/sample.ged",
        "gedcom-rs/data/complete.ged",
        "read-gedcom/tests/data/sample555.ged",
        "gedinline/src/test/resources/gedcom-files/olson-555.ged",
    ];
    let files: Vec<(PathBuf, &str)> = gedcom7
        .iter()
        .map(|f| (f, "GEDCOM 7."))
        .chain(gedcom555.iter().map(|f| (f, "GEDCOM 5.5.5")))
        .map(|(f, d)| (corpus_file(f), d))
        .collect();
    let mut args = vec!["check".to_string(), "--format".into(), "json".into()];
    args.extend(files.iter().map(|(p, _)| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = gedgraft_in(&data_dir(), &args);
    let reports = reports(&out);
    assert_eq!(reports.len(), files.len(), "stderr: {}", stderr(&out));
    for ((path, dialect), report) in files.iter().zip(&reports) {
        let name = path.display();
        let found = report["dialect"].as_str().unwrap_or("");
        assert!(found.starts_with(dialect), "{name}: dialect {found}");
        assert_eq!(errors(report), Vec::<String>::new(), "{name}");
    }
    assert_eq!(exit_code(&out), 0);
}

/// 7.0 § Lines: "`@` is only doubled in this version if it is the first character of a line string".
#[test]
fn fix_escape_at_on_gedcom7_doubles_only_a_leading_at() {
    let out = gedgraft_in(&data_dir(), &["fix", "--escape-at", "gedcom7-at.ged"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    let diff = stdout(&out);
    assert!(diff.contains("+1 NOTE @@me is a handle; a@@b stays as it is\n"));
    assert!(diff.contains("+2 CONT @@I too, and 50@#1 is text\n"));
    assert!(
        diff.contains("\n 1 EMAIL me@example.com\n"),
        "me@example.com is context, left as it is: {diff}"
    );
    assert_cli_snapshot!("fix_escape_at_gedcom7", diff);
    // The result checks clean: the leading `@`s were the only errors.
    let dir = temp_file(
        "escape-at",
        "g.ged",
        &std::fs::read(data_dir().join("gedcom7-at.ged")).expect("read"),
    );
    let out = gedgraft_in(&dir, &["fix", "--escape-at", "--in-place", "g.ged"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    let out = gedgraft_in(&dir, &["check", "--format", "json", "g.ged"]);
    assert_eq!(errors(&reports(&out)[0]), Vec::<String>::new());
}

/// 7.0 § Lines: `CONC` "does not appear in version 7"; lines may be long.
#[test]
fn fix_rewrap_on_gedcom7_changes_nothing_and_says_so() {
    let long = "word ".repeat(80);
    let input = format!("0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @N1@ SNOTE {long}\n0 TRLR\n");
    let dir = temp_file("rewrap", "g.ged", input.as_bytes());
    let out = gedgraft_in(&dir, &["fix", "--rewrap=40", "--in-place", "g.ged"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("g.ged: warning: the file is GEDCOM 7.0: not re-wrapped"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(dir.join("g.ged")).expect("read"),
        input.as_bytes()
    );
}

/// A new payload in a GEDCOM 7 file: only a leading `@` doubled, never a `CONC` line however long.
#[test]
fn fix_set_on_gedcom7_escapes_only_a_leading_at_and_never_adds_conc() {
    let input = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 NOTE old\n0 TRLR\n";
    let dir = temp_file("set", "g.ged", input);
    let value = format!("@me at me@example.com {}", "long ".repeat(70));
    let set = format!("@I1@.NOTE={value}");
    let out = gedgraft_in(&dir, &["fix", "--set", &set, "-o", "out.ged", "g.ged"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    let written = std::fs::read_to_string(dir.join("out.ged")).expect("read");
    assert_eq!(
        written,
        format!("0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 NOTE @{value}\n0 TRLR\n")
    );
    let out = gedgraft_in(&dir, &["lower", "out.ged"]);
    let v: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(
        v["records"][0]["children"][0]["payload"]["text"],
        value.as_str()
    );
}

/// 7.0 § Characters: UTF-8 only. Refused with exit status 2, naming the file; nothing written.
#[test]
fn fix_to_encoding_other_than_utf8_on_gedcom7_is_refused() {
    let input = "0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 NAME Jos\u{e9}\n0 TRLR\n";
    let dir = temp_file("to-encoding", "g.ged", input.as_bytes());
    for to in ["windows-1252", "ANSEL", "UTF-16LE"] {
        let out = gedgraft_in(&dir, &["fix", "--to-encoding", to, "--in-place", "g.ged"]);
        assert_eq!(exit_code(&out), 2, "{to}: stdout: {}", stdout(&out));
        let err = stderr(&out);
        assert!(
            err.contains("g.ged") && err.contains("GEDCOM 7.0") && err.contains("UTF-8 only"),
            "{to}: {err}"
        );
        assert_eq!(
            std::fs::read(dir.join("g.ged")).expect("read"),
            input.as_bytes()
        );
    }
    // UTF-8 is allowed, and adds no CHAR (7.0 has none).
    let out = gedgraft_in(&dir, &["fix", "--to-encoding", "UTF-8", "--check", "g.ged"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
}

/// 7.0's header rules: a `CHAR` other than UTF-8, a UTF-16 file, a `GEDC.FORM` and a `CONC` line are errors.
#[test]
fn check_reports_what_gedcom7_does_not_allow() {
    let dir = temp_file(
        "not-7",
        "g.ged",
        b"0 HEAD\n1 GEDC\n2 VERS 7.0\n2 FORM LINEAGE-LINKED\n1 CHAR ANSI\n0 @N1@ SNOTE a\n1 CONC b\n0 TRLR\n",
    );
    let text = "0 HEAD\n1 GEDC\n2 VERS 7.0\n0 TRLR\n";
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    std::fs::write(dir.join("u.ged"), utf16).expect("write");
    let out = gedgraft_in(&dir, &["check", "--format", "json", "g.ged", "u.ged"]);
    assert_eq!(exit_code(&out), 1);
    let reports = reports(&out);
    let codes = |r: &Value| -> Vec<String> {
        r["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|d| d["code"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(
        codes(&reports[0]),
        ["bad-gedc", "encoding-not-allowed", "conc-not-allowed"]
    );
    assert_eq!(codes(&reports[1]), ["encoding-not-allowed"]);
    assert_eq!(reports[1]["dialect"], "GEDCOM 7.0");
}

/// GEDCOM 7 has no `CONC` (7.0 § Line values: "`CONC` does not appear in version 7"): `CONC` lines one after
/// the other are one `conc-not-allowed` run, counted, as the syntax layer counts its runs (#12: a note of a
/// million of them is not a million diagnostics); a `CONT` line ends the run. Streamed or whole, the same.
#[test]
fn gedcom7_conc_lines_in_a_row_are_one_counted_diagnostic() {
    let dir = temp_file(
        "conc-run-7",
        "g.ged",
        b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @N1@ SNOTE a\n1 CONC b\n1 CONC c\n1 CONC d\n1 CONT e\n1 CONC f\n0 TRLR\n",
    );
    let out = gedgraft_in(&dir, &["check", "--format", "json", "g.ged"]);
    assert_eq!(exit_code(&out), 1);
    let report = &reports(&out)[0];
    let runs: Vec<(u64, u64, u64)> = (report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter())
    .filter(|d| d["code"] == "conc-not-allowed")
    .map(|d| {
        let n = |key: &str| d[key].as_u64().unwrap_or(1);
        (
            n("line"),
            n("count"),
            d["last_line"].as_u64().unwrap_or(n("line")),
        )
    })
    .collect();
    assert_eq!(runs, [(5, 3, 7), (9, 1, 9)]);
    let human = gedgraft_in(&dir, &["check", "g.ged"]);
    assert!(
        stdout(&human).contains("(and 2 more like this on lines 5–7)"),
        "{}",
        stdout(&human)
    );
    assert!(stdout(&human).contains("4 errors"), "{}", stdout(&human));
    let whole = common::gedgraft_command(&dir, &["check", "--format", "json", "g.ged"])
        .env("GEDGRAFT_WHOLE_FILE", "1")
        .output()
        .expect("run");
    assert_eq!(stdout(&whole), stdout(&out));
    // `fmt` refuses the file, counting each problem of a run as `check` does.
    let fmt = gedgraft_in(&dir, &["fmt", "g.ged"]);
    assert_eq!(exit_code(&fmt), 2);
    assert!(
        stderr(&fmt).contains("not formatted: 4 errors"),
        "{}",
        stderr(&fmt)
    );
    // The lowering reads the lines as 5.5.1 would.
    let lowered = gedgraft_in(&dir, &["lower", "g.ged"]);
    assert!(
        stdout(&lowered).contains("abcd\\nef"),
        "{}",
        stdout(&lowered)
    );
}
