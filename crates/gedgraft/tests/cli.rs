//! Integration tests of the `gedgraft` binary: `check` (human and JSON output, exit statuses), `dump`,
//! `fix` and `--help`. Small inputs live in `tests/data/`; corpus files are read from `../shared/corpus`
//! (ignored when missing; see README). Snapshots are in `snapshots/cli/` at the workspace root.

#[macro_use]
mod common;

use common::{corpus_file, data_dir, exit_code, gedgraft, stderr, stdout};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

#[test]
fn check_human_output_for_a_file_with_errors_exits_1() {
    let out = gedgraft(&["check", "errors.ged"]);
    assert_eq!(exit_code(&out), 1, "stderr: {}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert_cli_snapshot!("check_human_errors", stdout(&out));
}

#[test]
fn check_no_warnings_leaves_out_warnings_but_counts_them() {
    let out = gedgraft(&["check", "--no-warnings", "errors.ged"]);
    assert_eq!(exit_code(&out), 1);
    let text = stdout(&out);
    assert!(!text.contains("warning["), "{text}");
    assert!(text.contains("error[level-jump]"), "{text}");
    assert!(text.contains("3 errors, 3 warnings"), "{text}"); // lines-left-out counts as a warning
}

#[test]
fn check_clean_file_exits_0() {
    let out = gedgraft(&["check", "clean.ged"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    assert_cli_snapshot!("check_human_clean", stdout(&out));
}

#[test]
fn check_warnings_only_exits_0() {
    let out = gedgraft(&["check", "warnings.ged"]);
    assert_eq!(exit_code(&out), 0, "stderr: {}", stderr(&out));
    assert_cli_snapshot!("check_human_warnings", stdout(&out));
}

#[test]
fn check_unreadable_path_exits_2_and_names_the_path() {
    let out = gedgraft(&["check", "no-such-dir/missing.ged"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("no-such-dir/missing.ged"),
        "stderr: {}",
        stderr(&out)
    );
    assert_eq!(stdout(&out), "");
}

#[test]
fn check_reports_readable_files_even_when_one_is_unreadable() {
    let out = gedgraft(&["check", "--format", "json", "missing.ged", "clean.ged", "."]);
    assert_eq!(exit_code(&out), 2);
    assert!(stderr(&out).contains("missing.ged"), "{}", stderr(&out));
    // An object for every argument, in order (#13): unreadable ones carry an `io` error instead of a report.
    let lines: Vec<Value> = json_lines(&stdout(&out));
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0]["file"], "missing.ged");
    assert_eq!(lines[0]["error"]["code"], "io");
    assert!(
        lines[0]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("missing.ged")),
        "{}",
        lines[0]
    );
    assert!(lines[0].get("diagnostics").is_none());
    assert_eq!(lines[1]["file"], "clean.ged");
    assert!(lines[1]["diagnostics"].is_array());
    assert_eq!(
        (&lines[2]["file"], &lines[2]["error"]["code"]),
        (&Value::from("."), &Value::from("io"))
    );
}

#[test]
fn check_a_directory_exits_2() {
    let out = gedgraft(&["check", "."]);
    assert_eq!(exit_code(&out), 2);
    assert!(stderr(&out).contains("gedgraft:"), "{}", stderr(&out));
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect()
}

#[test]
fn check_json_has_the_documented_shape() {
    let out = gedgraft(&["check", "--format", "json", "errors.ged"]);
    assert_eq!(exit_code(&out), 1);
    let lines = json_lines(&stdout(&out));
    assert_eq!(lines.len(), 1, "one JSON object per file");
    let report = &lines[0];
    let keys: Vec<&String> = report.as_object().expect("an object").keys().collect();
    assert_eq!(keys, ["file", "encoding", "dialect", "diagnostics"]);
    assert_eq!(report["file"], "errors.ged");
    assert_eq!(
        report["dialect"], "unknown",
        "errors.ged has no GEDC or ELF"
    );
    let encoding = report["encoding"].as_object().expect("encoding object");
    let keys: Vec<&String> = encoding.keys().collect();
    assert_eq!(keys, ["detected", "declared", "used"]);
    assert_eq!(report["encoding"]["detected"], Value::Null);
    assert_eq!(report["encoding"]["declared"], "UTF-8");
    assert_eq!(report["encoding"]["used"], "UTF-8");
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics array");
    assert!(!diagnostics.is_empty());
    for d in diagnostics {
        let keys: Vec<&String> = d.as_object().expect("diagnostic object").keys().collect();
        // `fix` (issue #16) only on a diagnostic with a repair, last.
        let keys: Vec<&String> = keys.into_iter().filter(|k| *k != "fix").collect();
        assert_eq!(
            keys,
            ["code", "severity", "class", "message", "offset", "line", "column", "record"]
        );
        // Every diagnostic of errors.ged is in its INDI record, which has the identifier @I1@ (line 3).
        assert_eq!(
            d["record"],
            serde_json::json!({"xref": "I1", "tag": "INDI", "line": 3})
        );
        assert!(d["code"].is_string() && d["message"].is_string());
        assert!(["error", "warning"].contains(&d["severity"].as_str().unwrap_or_default()));
        assert!(d["offset"].is_u64() && d["line"].is_u64() && d["column"].is_u64());
    }
    // R-LINES-04: `2 NAME Ann` follows a level-0 line; it starts at octet 32 (line 4, column 1).
    let jump = diagnostics
        .iter()
        .find(|d| d["code"] == "level-jump")
        .expect("a level-jump diagnostic");
    assert_eq!(jump["severity"], "error");
    assert_eq!(jump["class"], "malformed-line");
    assert_eq!(
        (&jump["offset"], &jump["line"], &jump["column"]),
        (&Value::from(32), &Value::from(4), &Value::from(1))
    );
    let undecodable = diagnostics
        .iter()
        .find(|d| d["code"] == "undecodable-octets")
        .expect("an undecodable-octets diagnostic");
    assert_eq!(undecodable["class"], "non-conformant-structure");
    assert_eq!(
        (
            &undecodable["offset"],
            &undecodable["line"],
            &undecodable["column"]
        ),
        (&Value::from(63), &Value::from(6), &Value::from(11))
    );
    let warning = diagnostics
        .iter()
        .find(|d| d["code"] == "leading-whitespace")
        .expect("a leading-whitespace diagnostic");
    assert_eq!(
        (&warning["severity"], &warning["class"]),
        (&Value::from("warning"), &Value::from("warning"))
    );
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn check_json_reports_detected_encoding_of_a_bom_file() {
    let path = corpus_file("gedcom7code-test-files/5/char_utf16le-2.ged");
    let out = gedgraft(&[
        "check",
        "--format",
        "json",
        path.to_str().expect("UTF-8 path"),
    ]);
    let lines = json_lines(&stdout(&out));
    assert_eq!(lines[0]["encoding"]["detected"], "UTF-16LE");
    assert_eq!(lines[0]["encoding"]["declared"], "UNICODE");
    assert_eq!(lines[0]["encoding"]["used"], "UTF-16LE");
}

#[test]
fn check_json_prints_one_line_per_file_in_order() {
    let out = gedgraft(&[
        "check",
        "--format",
        "json",
        "clean.ged",
        "errors.ged",
        "warnings.ged",
    ]);
    assert_eq!(exit_code(&out), 1, "one file has errors");
    let text = stdout(&out);
    assert!(text.ends_with('\n'));
    let files: Vec<Value> = json_lines(&text)
        .into_iter()
        .map(|v| v["file"].clone())
        .collect();
    assert_eq!(files, ["clean.ged", "errors.ged", "warnings.ged"]);
    let clean = &json_lines(&text)[0];
    assert_eq!(clean["diagnostics"], Value::Array(Vec::new()));
}

#[test]
fn unknown_encoding_exits_2_and_lists_the_known_ones() {
    for command in ["check", "dump"] {
        let out = gedgraft(&[command, "--encoding", "klingon", "clean.ged"]);
        assert_eq!(exit_code(&out), 2, "{command}");
        let err = stderr(&out);
        assert!(err.contains("klingon"), "{command}: {err}");
        for known in ["UTF-8", "UTF-16LE", "ANSEL", "windows-1252"] {
            assert!(
                err.contains(known),
                "{command}: `{known}` not listed in: {err}"
            );
        }
        assert_eq!(stdout(&out), "", "{command}");
    }
}

#[test]
fn known_encoding_override_is_used() {
    let out = gedgraft(&[
        "check",
        "--format",
        "json",
        "--encoding",
        "windows-1252",
        "errors.ged",
    ]);
    let report = &json_lines(&stdout(&out))[0];
    assert_eq!(report["encoding"]["used"], "windows-1252");
    assert!(
        !report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .any(|d| d["code"] == "undecodable-octets"),
        "E9 is é in windows-1252: {report}"
    );
}

/// One line of `gedgraft dump`: depth, kind, start, end and the token text (None for nodes).
struct DumpLine {
    depth: usize,
    kind: String,
    start: usize,
    end: usize,
    text: Option<String>,
}

/// Parses `KIND@START..END` or `KIND@START..END "TEXT"` lines, indented two spaces per depth.
fn parse_dump(dump: &str) -> Vec<DumpLine> {
    dump.lines()
        .map(|line| {
            let body = line.trim_start_matches(' ');
            let indent = line.len() - body.len();
            assert_eq!(indent % 2, 0, "odd indentation: {line:?}");
            let (kind, rest) = body.split_once('@').expect("KIND@");
            assert!(
                !kind.is_empty() && kind.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
                "bad kind in {line:?}"
            );
            let (range, text) = match rest.split_once(' ') {
                Some((range, text)) => (range, Some(text)),
                None => (rest, None),
            };
            let (start, end) = range.split_once("..").expect("START..END");
            let text = text.map(|t| {
                serde_json::from_str::<String>(t)
                    .unwrap_or_else(|e| panic!("token text is not a JSON string ({e}): {line:?}"))
            });
            DumpLine {
                depth: indent / 2,
                kind: kind.to_string(),
                start: start.parse().expect("START is a number"),
                end: end.parse().expect("END is a number"),
                text,
            }
        })
        .collect()
}

#[test]
fn dump_prints_kind_range_and_text_covering_the_file() {
    let out = gedgraft(&["dump", "clean.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert_cli_snapshot!("dump_clean", text.clone());
    let lines = parse_dump(&text);
    let input = std::fs::read(data_dir().join("clean.ged")).expect("read clean.ged");
    assert_eq!(lines[0].kind, "DOCUMENT");
    assert_eq!(
        (lines[0].depth, lines[0].start, lines[0].end),
        (0, 0, input.len())
    );
    // Tokens tile the file: each starts where the previous ended, and their texts are the file (UTF-8).
    let mut at = 0;
    let mut joined = String::new();
    for l in lines.iter().filter(|l| l.text.is_some()) {
        assert_eq!(
            l.start, at,
            "token {} does not start where the last ended",
            l.kind
        );
        assert!(l.end >= l.start);
        at = l.end;
        joined.push_str(l.text.as_deref().unwrap_or_default());
    }
    assert_eq!(at, input.len());
    assert_eq!(joined.as_bytes(), input);
}

/// Dump offsets are octets of the input file, not of the decoded text: in UTF-16 every character is two.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn dump_offsets_are_file_offsets_in_utf16() {
    for (name, bom) in [
        ("gedcom7code-test-files/5/char_utf16le-2.ged", 2),
        ("gedcom7code-test-files/5/char_utf16be-1.ged", 0),
    ] {
        let path = corpus_file(name);
        let input = std::fs::read(&path).expect("read corpus file");
        let out = gedgraft(&["dump", path.to_str().expect("UTF-8 path")]);
        assert_eq!(exit_code(&out), 0, "{name}: {}", stderr(&out));
        let lines = parse_dump(&stdout(&out));
        assert_eq!(lines[0].end, input.len(), "{name}");
        let levels: Vec<&DumpLine> = lines.iter().filter(|l| l.kind == "LEVEL").collect();
        // `0 HEAD` and its LF are 7 characters, 14 octets: the second line's level starts at BOM + 14.
        assert_eq!(
            (levels[0].start, levels[0].end),
            (bom, bom + 2),
            "{name}: first LEVEL"
        );
        assert_eq!(
            (levels[1].start, levels[1].end, levels[1].text.as_deref()),
            (bom + 14, bom + 16, Some("1")),
            "{name}: second LEVEL"
        );
        // The octets at the reported range are the level digit in UTF-16.
        let digit = &input[levels[1].start..levels[1].end];
        assert!(
            digit == [b'1', 0] || digit == [0, b'1'],
            "{name}: {digit:?}"
        );
        if bom > 0 {
            let first = &lines[1];
            assert_eq!(
                (first.kind.as_str(), first.start, first.end),
                ("BOM", 0, 2),
                "{name}"
            );
        }
    }
}

#[test]
fn dump_unreadable_path_exits_2() {
    let out = gedgraft(&["dump", "missing.ged"]);
    assert_eq!(exit_code(&out), 2);
    assert!(stderr(&out).contains("missing.ged"), "{}", stderr(&out));
}

fn fix_round_trip(input: &Path, label: &str) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gedgraft-cli-fix");
    std::fs::create_dir_all(&dir).expect("create temp dir");
    let output = dir.join(format!("{label}.out"));
    let _ = std::fs::remove_file(&output);
    let out = Command::new(env!("CARGO_BIN_EXE_gedgraft"))
        .arg("fix")
        .arg(input)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("run gedgraft fix");
    assert_eq!(exit_code(&out), 0, "{label}: {}", stderr(&out));
    let original = std::fs::read(input).expect("read input");
    let written = std::fs::read(&output).expect("read output");
    assert!(
        written == original,
        "{label}: fix changed the octets ({} → {} octets)",
        original.len(),
        written.len()
    );
}

/// Invariant 2 through the CLI: UTF-16 (BOM and sniffed), ANSEL (CRLF and CR-only), mixed breaks, a BOM.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn fix_writes_identical_octets_for_corpus_files() {
    let names = [
        "gedcom7code-test-files/5/char_utf16le-2.ged",
        "gedcom7code-test-files/5/char_utf16be-1.ged",
        "gedcom7code-test-files/5/char_utf8-3.ged",
        "gedcom4j/sample/ANSEL.GED",
        "gedcom4j/sample/TGC551.ged",
        "gedcom4j/sample/5.5.1 sample 4.ged",
    ];
    for name in names {
        let path = corpus_file(name);
        let label = name.replace(['/', ' '], "_");
        fix_round_trip(&path, &label);
    }
}

#[test]
fn fix_writes_identical_octets_for_local_files() {
    for name in ["errors.ged", "clean.ged", "warnings.ged"] {
        fix_round_trip(&data_dir().join(name), name);
    }
}

#[test]
fn fix_unreadable_input_exits_2() {
    let out = gedgraft(&["fix", "missing.ged", "-o", "never-written.ged"]);
    assert_eq!(exit_code(&out), 2);
    assert!(stderr(&out).contains("missing.ged"), "{}", stderr(&out));
    assert!(!data_dir().join("never-written.ged").exists());
}

#[test]
fn fix_requires_an_output() {
    let out = gedgraft(&["fix", "clean.ged"]);
    assert_eq!(exit_code(&out), 2, "clap usage error");
}

#[test]
fn help_mentions_each_subcommand() {
    let out = gedgraft(&["--help"]);
    assert_eq!(exit_code(&out), 0);
    let text = stdout(&out);
    for sub in ["dump", "check", "fix"] {
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with(&format!("{sub} "))),
            "`{sub}` missing from --help:\n{text}"
        );
        let sub_help = gedgraft(&[sub, "--help"]);
        assert_eq!(exit_code(&sub_help), 0, "{sub} --help");
        assert!(
            stdout(&sub_help).contains("Usage: gedgraft"),
            "{sub} --help"
        );
    }
    assert!(text.contains("Exit status"), "{text}");
}

#[test]
fn no_arguments_is_a_usage_error() {
    let out = gedgraft(&[]);
    assert_eq!(exit_code(&out), 2);
    assert!(stderr(&out).contains("Usage"), "{}", stderr(&out));
}

#[test]
fn lower_prints_the_dataset_json() {
    let out = gedgraft(&["lower", "lowering.ged"]);
    assert_eq!(exit_code(&out), 1, "the file has an unpermitted escape");
    let value: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let indi = &value["records"][0];
    assert_eq!(indi["xref"], "I1");
    assert_eq!(
        indi["children"][0]["payload"]["text"], "João",
        "R-UNICODE-ESCAPE-02"
    );
    assert_eq!(indi["children"][1]["payload"]["pointer"], "F9");
    assert_eq!(
        value["records"][1]["tag"], "UNDEF",
        "a dangling pointer leads to an UNDEF record"
    );
    let codes: Vec<&str> = value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        [
            "undefined-pointer",
            "unpermitted-escape",
            "unpermitted-escape"
        ]
    );
}

#[test]
fn check_reports_lowering_diagnostics_and_strict_stops_at_the_first_error() {
    let lenient = gedgraft(&["check", "--format", "json", "lowering.ged"]);
    assert_eq!(exit_code(&lenient), 1);
    let value = &json_lines(&stdout(&lenient))[0];
    assert_eq!(value["diagnostics"].as_array().unwrap().len(), 3);
    assert!(value.get("stopped").is_none());
    let strict = gedgraft(&["check", "--strict", "--format", "json", "lowering.ged"]);
    assert_eq!(exit_code(&strict), 1);
    let value = &json_lines(&stdout(&strict))[0];
    assert_eq!(
        value["diagnostics"].as_array().unwrap().len(),
        2,
        "nothing after the first error"
    );
    assert_eq!(value["stopped"]["code"], "unpermitted-escape");
    assert_eq!(value["stopped"]["line"], 6);
}

#[test]
fn a_closed_output_pipe_is_not_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    // A file whose dump is far larger than a pipe buffer, so the write after the reader closes must fail.
    let dir = std::env::temp_dir().join(format!("gedgraft-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.ged");
    let mut text = String::from("0 HEAD\n");
    for i in 0..20_000 {
        text.push_str(&format!("0 @I{i}@ INDI\n1 NAME Person {i}\n"));
    }
    text.push_str("0 TRLR\n");
    std::fs::write(&path, text).unwrap();
    // Every command that prints more than a pipe holds (#13: `gedgraft fix … | head -1` said "Broken pipe" and
    // exited 2); `check` exits 1 for its errors, as it would with the whole output read.
    let path = path.to_str().expect("UTF-8 temp path");
    let commands: [(&[&str], i32); 6] = [
        (&["dump", path], 0),
        (&["lower", path], 0),
        (&["check", "--format", "json", path], 0),
        (&["fix", "--rename-tag", "NAME=_NAME", path], 0),
        (&["fix", "--rename-tag", "NAME=_NAME", "--patch", path], 0),
        (&["fix", path, "-o", "-"], 0),
    ];
    for (args, want) in commands {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gedgraft"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap(); // then the pipe is closed
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(want),
            "{args:?}: stderr: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("panicked"), "{args:?}");
        assert!(
            !stderr(&out).contains("Broken pipe"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue #12 (memory per line): a run of one code on neighbouring lines is one diagnostic with a count, in
/// JSON (`count`, `last_line`, only for runs) and in the human output; a single problem has no count.
#[test]
fn check_reports_a_run_of_blank_lines_once_with_its_count() {
    let out = gedgraft(&["check", "--format", "json", "blank-runs.ged"]);
    let lines = json_lines(&stdout(&out));
    let diagnostics = lines[0]["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let d = &diagnostics[0];
    assert_eq!(d["code"], "blank-line");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(
        (d["count"].as_u64(), d["last_line"].as_u64()),
        (Some(3), Some(4))
    );
    let out = gedgraft(&["check", "--format", "json", "warnings.ged"]);
    let lines = json_lines(&stdout(&out));
    for d in lines[0]["diagnostics"].as_array().expect("diagnostics") {
        assert!(
            d.get("count").is_none() && d.get("last_line").is_none(),
            "{d}"
        );
    }
    let human = stdout(&gedgraft(&["check", "blank-runs.ged"]));
    assert!(
        human.contains(
            "warning[blank-line]: blank line (ignored) (and 2 more like this on lines 2\u{2013}4)"
        ),
        "{human}"
    ); // The summary counts each blank line of the run.
    assert!(
        human.contains("blank-runs.ged: 0 errors, 3 warnings"),
        "{human}"
    );
}

/// Runs always: under CI the corpus and the specs must be there, or the tests above would be ignored unseen.
#[test]
fn shared_data_is_there_under_ci() {
    common::check_shared_data(cfg!(has_corpus), cfg!(has_spec));
}
