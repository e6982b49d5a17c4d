//! `-` as an input file: every command reads standard input, like other Unix tools; `fix --in-place -` is
//! refused (there is no file to replace) and writes nothing.

mod common;

use common::{exit_code, stderr, temp_dir};
use std::io::Write;
use std::process::{Command, Output, Stdio};

const INPUT: &[u8] = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Bob\n1 FAMC @F9@\n0 TRLR\n";

fn with_stdin(dir: &std::path::Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gedgraft"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gedgraft");
    // A command that refuses before reading closes the pipe: a failed write is its answer, not the test's.
    let _ = child.stdin.take().expect("stdin").write_all(INPUT);
    child.wait_with_output().expect("wait")
}

#[test]
fn every_command_reads_standard_input_as_dash() {
    let dir = temp_dir("stdin", "every_command");
    let check = with_stdin(&dir, &["check", "-"]);
    assert_eq!(exit_code(&check), 0, "{}", stderr(&check));
    assert!(
        String::from_utf8_lossy(&check.stdout).contains("undefined-pointer"),
        "check reads the input: {check:?}"
    );
    let json = with_stdin(&dir, &["check", "--format", "json", "-"]);
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).expect("one JSON object");
    assert_eq!(value["file"], "-");
    let lower = with_stdin(&dir, &["lower", "-"]);
    let value: serde_json::Value = serde_json::from_slice(&lower.stdout).expect("JSON");
    assert_eq!(value["records"][0]["xref"], "I1");
    let dump = with_stdin(&dir, &["dump", "-"]);
    let root = format!("DOCUMENT@0..{}", INPUT.len());
    assert!(String::from_utf8_lossy(&dump.stdout).starts_with(&root));
    let copy = with_stdin(&dir, &["fix", "-", "-o", "-"]);
    assert_eq!(copy.stdout, INPUT, "identical octets");
    let renamed = with_stdin(&dir, &["fix", "--rename-tag", "NAME=_N", "-", "-o", "-"]);
    assert_eq!(
        String::from_utf8_lossy(&renamed.stdout),
        String::from_utf8_lossy(INPUT).replace("1 NAME", "1 _N")
    );
}

#[test]
fn standard_input_is_not_edited_in_place() {
    let dir = temp_dir("stdin", "in_place");
    let out = with_stdin(&dir, &["fix", "--rename-tag", "NAME=_N", "--in-place", "-"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("cannot edit standard input"),
        "{}",
        stderr(&out)
    );
    assert!(
        std::fs::read_dir(&dir).expect("dir").next().is_none(),
        "nothing written (no file named `-`)"
    );
}
