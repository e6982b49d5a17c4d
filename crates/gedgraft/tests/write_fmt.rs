//! Integration tests of `gedgraft write` (a dataset's JSON written as a file) and `gedgraft fmt` (lower +
//! write, shown and written as `fix` does). Snapshots are in `snapshots/cli/` at the workspace root.

#[macro_use]
mod common;

use common::{exit_code, gedgraft, gedgraft_command, gedgraft_in, stderr, stdout, temp_dir, write};
use std::io::Write as _;
use std::process::Stdio;

const SUITE: &str = "gedgraft-write-fmt";

/// A file with what `fmt` changes: CR LF kept, a bare `@`, a needless CONC, a double space, no GEDC.
const MESSY: &[u8] =
    b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1 NAME Bob /Smith/\r\n1 EMAIL bob@example.com\r\n\
1  NOTE a\r\n2 CONC b\r\n1 FAMS @F1@\r\n0 @F1@ FAM\r\n1 HUSB @I1@\r\n0 TRLR\r\n";

/// Runs `gedgraft ARGS` in `dir` with `input` on standard input.
fn with_stdin(dir: &std::path::Path, args: &[&str], input: &[u8]) -> std::process::Output {
    let mut child = gedgraft_command(dir, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write stdin");
    child.wait_with_output().expect("wait")
}

#[test]
fn write_turns_lower_json_back_into_a_file() {
    let json = gedgraft(&["lower", "clean.ged"]);
    assert_eq!(exit_code(&json), 0);
    let dir = temp_dir(SUITE, "write");
    write(&dir, "clean.json", &json.stdout);
    let out = gedgraft_in(&dir, &["write", "clean.json"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_cli_snapshot!("write_clean", stdout(&out));
    // The file lowers to the same records (lines aside): the JSON of both, `line` removed.
    write(&dir, "written.ged", &out.stdout);
    let again = gedgraft_in(&dir, &["lower", "written.ged"]);
    let records = |o: &std::process::Output| {
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        let text = v["records"].take().to_string();
        text.split("\"line\":")
            .map(|s| s.trim_start_matches(|c: char| c.is_ascii_digit()))
            .collect::<String>()
    };
    assert_eq!(records(&again), records(&json));
    // Standard input and -o.
    let piped = with_stdin(&dir, &["write", "-", "-o", "out.ged"], &json.stdout);
    assert_eq!(exit_code(&piped), 0, "{}", stderr(&piped));
    assert_eq!(
        std::fs::read(dir.join("out.ged")).expect("out.ged"),
        out.stdout
    );
}

#[test]
fn write_options_choose_encoding_line_breaks_and_limit() {
    let dir = temp_dir(SUITE, "options");
    let json = r#"{"records": [{"tag": "NOTE", "payload": {"text": "Jos\u00e9 wrote a long note about the family of Jos\u00e9"}}]}"#;
    write(&dir, "d.json", json.as_bytes());
    let out = gedgraft_in(
        &dir,
        &[
            "write",
            "d.json",
            "--encoding",
            "ANSEL",
            "--eol",
            "crlf",
            "--line-limit",
            "24",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let octets = out.stdout;
    assert!(octets.starts_with(b"0 HEAD\r\n1 CHAR ANSEL\r\n"));
    assert!(
        octets.windows(3).any(|w| w == b"\xE2e "),
        "é in ANSEL: {octets:?}"
    );
    for line in octets.split_inclusive(|&b| b == b'\n') {
        assert!(line.len() <= 24, "{line:?}");
        assert!(line.ends_with(b"\r\n"));
    }
    let utf16 = gedgraft_in(&dir, &["write", "d.json", "--encoding", "UTF-16LE"]);
    assert!(
        utf16.stdout.starts_with(b"\xFF\xFE0\x00"),
        "UTF-16 starts with a BOM"
    );
    let no_bom = gedgraft_in(
        &dir,
        &["write", "d.json", "--encoding", "UTF-16LE", "--no-bom"],
    );
    assert!(no_bom.stdout.starts_with(b"0\x00"));
    let seven = gedgraft_in(&dir, &["write", "d.json", "--dialect", "gedcom-7.0"]);
    assert_eq!(
        stdout(&seven),
        "0 HEAD\n1 GEDC\n2 VERS 7.0\n0 NOTE José wrote a long note about the family of José\n0 TRLR\n"
    );
}

#[test]
fn write_reports_bad_json_with_its_path_line_and_column() {
    let dir = temp_dir(SUITE, "bad-json");
    write(
        &dir,
        "bad.json",
        b"{\"records\": [\n  {\"tag\": \"INDI\", \"children\": [\n    {\"tag\": \"NA ME\"}]}]}\n",
    );
    let out = gedgraft_in(&dir, &["write", "bad.json"]);
    assert_eq!(exit_code(&out), 2);
    assert_eq!(stdout(&out), "");
    assert_cli_snapshot!("write_bad_json", stderr(&out));
    let out = gedgraft_in(&dir, &["write", "bad.json", "--encoding", "EBCDIC-9"]);
    assert_eq!(exit_code(&out), 2);
    let missing = gedgraft_in(&dir, &["write", "missing.json"]);
    assert_eq!(exit_code(&missing), 2);
    assert!(stderr(&missing).contains("missing.json"));
}

#[test]
fn fmt_shows_a_diff_and_changes_nothing() {
    let dir = temp_dir(SUITE, "fmt-diff");
    let file = write(&dir, "messy.ged", MESSY);
    let out = gedgraft_in(&dir, &["fmt", "messy.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_cli_snapshot!(
        "fmt_diff",
        format!("{}\n--- stderr\n{}", stdout(&out), stderr(&out))
    );
    assert_eq!(std::fs::read(&file).expect("read"), MESSY);
}

#[test]
fn fmt_check_in_place_and_output() {
    let dir = temp_dir(SUITE, "fmt-write");
    let file = write(&dir, "messy.ged", MESSY);
    let check = gedgraft_in(&dir, &["fmt", "--check", "messy.ged"]);
    assert_eq!(exit_code(&check), 1, "{}", stderr(&check));
    assert_eq!(stdout(&check), "");
    let to_stdout = gedgraft_in(&dir, &["fmt", "messy.ged", "-o", "-", "--quiet"]);
    assert_eq!(exit_code(&to_stdout), 0);
    let formatted = to_stdout.stdout;
    assert!(
        formatted.ends_with(b"0 TRLR\r\n"),
        "the file's CR LF is kept"
    );
    let in_place = gedgraft_in(
        &dir,
        &["fmt", "--in-place", "--backup", ".orig", "messy.ged"],
    );
    assert_eq!(exit_code(&in_place), 0, "{}", stderr(&in_place));
    // No GEDC: the version the new header declares is said.
    let note = "messy.ged: note: the header did not say which GEDCOM it is: written as GEDCOM 5.5.1, which \
                the new header declares (`GEDC`)\n";
    assert_eq!(
        stderr(&in_place),
        format!("{note}messy.ged: formatted: -3 +5 lines\n")
    );
    assert_eq!(std::fs::read(&file).expect("read"), formatted);
    assert_eq!(
        std::fs::read(dir.join("messy.ged.orig")).expect("backup"),
        MESSY
    );
    // Formatted once, it is canonical: nothing changes any more.
    let again = gedgraft_in(&dir, &["fmt", "--check", "messy.ged"]);
    assert_eq!(exit_code(&again), 0);
    assert_eq!(stderr(&again), "messy.ged: unchanged\n");
    // The same octets as lower + write.
    let lowered = gedgraft_in(&dir, &["lower", "messy.ged.orig"]);
    let written = with_stdin(&dir, &["write", "-", "--eol", "crlf"], &lowered.stdout);
    assert_eq!(written.stdout, formatted);
}

#[test]
fn fmt_refuses_a_file_with_errors() {
    let out = gedgraft(&["fmt", "errors.ged"]);
    assert_eq!(exit_code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("errors.ged: not formatted:"), "{err}");
    assert!(err.contains("gedgraft check errors.ged"), "{err}");
}

#[test]
fn help_teaches_write_and_fmt() {
    for sub in ["write", "fmt"] {
        let out = gedgraft(&[sub, "--help"]);
        assert_eq!(exit_code(&out), 0);
        assert_cli_snapshot!(format!("{sub}_help"), stdout(&out));
    }
    let top = stdout(&gedgraft(&["--help"]));
    assert!(top.contains("gedgraft write family.json") && top.contains("gedgraft fmt --check"));
}

/// `fmt`'s summary counts the lines its review diff shows: where lines end in a CR alone (a CR-only or an
/// LF CR file) or the file is UTF-16, it counted lines of octets ending in LF (`-1 +1` for a diff of `-573
/// +337`: found by a helper); now those files are counted on the trees, streamed or not, `-o` or not.
#[test]
fn the_summary_counts_the_lines_the_review_diff_shows() {
    let dir = temp_dir(SUITE, "summary-lines");
    let utf16: Vec<u8> =
        "\u{feff}0 HEAD\r\n1 CHAR UNICODE\r\n0 @I1@ INDI\r\n1 NAME A\r\n2 CONC b\r\n0 TRLR\r\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
    let files: [(&str, &[u8]); 4] = [
        (
            "cr.ged",
            b"0 HEAD\r1 CHAR UTF-8\r0 @I1@ INDI\r1 NAME A\r2 CONC b\r0 TRLR\r",
        ),
        (
            "lfcr.ged",
            b"0 HEAD\n\r1 CHAR UTF-8\n\r0 @I1@ INDI\n\r1 NAME A\n\r2 CONC b\n\r0 TRLR\n\r",
        ),
        ("utf16.ged", &utf16),
        ("messy.ged", MESSY),
    ];
    for (name, octets) in files {
        write(&dir, name, octets);
        let diff = gedgraft_in(&dir, &["fmt", name]);
        assert_eq!(exit_code(&diff), 0, "{name}: {}", stderr(&diff));
        let shown = |sign: char| {
            let text = stdout(&diff);
            let lines = text
                .lines()
                .filter(|l| !l.starts_with("---") && !l.starts_with("+++"));
            lines.filter(|l| l.starts_with(sign)).count()
        };
        let said = format!("would change: -{} +{} lines", shown('-'), shown('+'));
        assert!(
            stderr(&diff).contains(&said),
            "{name}: {said}\n{}",
            stderr(&diff)
        );
        let done = said.replace("would change", "formatted");
        for whole in [false, true] {
            let out =
                common::gedgraft_whole_or_streamed(&dir, &["fmt", name, "-o", "out.ged"], whole);
            assert!(
                stderr(&out).contains(&done),
                "{name} whole={whole}: {}",
                stderr(&out)
            );
        }
    }
}
