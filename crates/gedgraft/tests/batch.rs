//! Batch mode: `check` over many files on several workers (`--jobs`) prints what one worker prints, in argument
//! order, with the same exit status; no progress line when standard error is not a terminal.

mod common;

use common::{exit_code, gedgraft_command, temp_dir, write};
use std::path::{Path, PathBuf};

/// Files of different sizes and outcomes: clean, with warnings, with errors, one large enough to be streamed
/// in several batches.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut big = String::from("0 HEAD\n1 CHAR UTF-8\n");
    for i in 0..40_000 {
        big.push_str(&format!(
            "0 @I{i}@ INDI\n1 NAME A{i}\n1 FAMC @F{}@\n",
            i % 7
        ));
    }
    big.push_str("0 TRLR\n");
    vec![
        write(dir, "big.ged", big.as_bytes()),
        write(
            dir,
            "ok.ged",
            b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n0 TRLR\n",
        ),
        write(
            dir,
            "bad.ged",
            b"0 HEAD\n1 CHAR UTF-8\nx NOPE\n0 @I1@ INDI\n1 FAMC @F9@\n",
        ),
        write(
            dir,
            "warn.ged",
            b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NOTE a@b\n0 TRLR\n",
        ),
    ]
}

fn check(dir: &Path, files: &[PathBuf], args: &[&str]) -> (i32, Vec<u8>, Vec<u8>) {
    let mut all: Vec<&str> = vec!["check"];
    all.extend(files.iter().filter_map(|f| f.to_str()));
    all.extend_from_slice(args);
    let output = gedgraft_command(dir, &all).output().expect("run gedgraft");
    (exit_code(&output), output.stdout, output.stderr)
}

#[test]
fn many_files_on_two_workers_print_as_one_worker_does() {
    let dir = temp_dir("batch", "order");
    let files = files(&dir);
    for format in [&["--format", "json"][..], &[][..]] {
        let one = check(&dir, &files, &[format, &["--jobs", "1"]].concat());
        let two = check(&dir, &files, &[format, &["--jobs", "2"]].concat());
        let many = check(&dir, &files, &[format, &["-j", "8"]].concat());
        assert_eq!(one.0, 1, "bad.ged has an error");
        // Streamed in the default batches (big.ged is several), as the whole-file path reports it.
        let mut all: Vec<&str> = vec!["check"];
        all.extend(files.iter().filter_map(|f| f.to_str()));
        all.extend_from_slice(format);
        let whole = gedgraft_command(&dir, &all)
            .env("GEDGRAFT_WHOLE_FILE", "1")
            .output()
            .expect("run gedgraft");
        assert_eq!(
            (exit_code(&whole), whole.stdout, whole.stderr),
            one,
            "{format:?}"
        );
        assert_eq!(one, two, "{format:?}");
        assert_eq!(one, many, "{format:?}");
        // Not a terminal: no progress line on standard error.
        assert!(two.2.is_empty(), "{}", String::from_utf8_lossy(&two.2));
    }
    // JSON lines in argument order: one object per file.
    let (_, out, _) = check(&dir, &files, &["--format", "json", "-j", "2"]);
    let names: Vec<String> = String::from_utf8_lossy(&out)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("a JSON line")["file"].to_string()
        })
        .collect();
    let expected: Vec<String> = files
        .iter()
        .map(|f| format!("{:?}", f.display().to_string()))
        .collect();
    assert_eq!(names, expected);
}

/// An unreadable file in the middle of a batch: its JSON error line in its place, a message on standard
/// error, exit status 2, and the files after it still checked.
#[test]
fn an_unreadable_file_keeps_its_place_and_exit_status_2() {
    let dir = temp_dir("batch", "unreadable");
    let mut files = files(&dir);
    files.insert(2, dir.join("missing.ged"));
    let one = check(&dir, &files, &["--format", "json", "-j", "1"]);
    let two = check(&dir, &files, &["--format", "json", "-j", "2"]);
    assert_eq!(one, two);
    assert_eq!(two.0, 2);
    let out = String::from_utf8_lossy(&two.1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(
        lines[2].contains("\"error\":{\"code\":\"io\""),
        "{}",
        lines[2]
    );
    assert!(String::from_utf8_lossy(&two.2).contains("missing.ged"));
}

/// The corpus in one call: the same report on two workers as on one.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn the_corpus_in_one_call_on_two_workers() {
    let dir = temp_dir("batch", "corpus");
    let mut files = gedgraft_test_support::corpus_files();
    files.sort();
    assert!(files.len() > 100);
    let one = check(&dir, &files, &["--format", "json", "-j", "1"]);
    let two = check(&dir, &files, &["--format", "json", "-j", "2"]);
    assert_eq!(one, two);
}
