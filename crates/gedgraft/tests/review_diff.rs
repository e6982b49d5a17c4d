//! The two diffs of `gedgraft fix` (issue #11, "a review diff that shows every change"):
//!
//! * the review diff (the default) shows decoded text, but every line whose octets change is in it and in the
//!   summary counts, even when its text is the same (a transcode), with a `# octets only:` note; its header
//!   names both encodings;
//! * `--patch` prints the files' own octets, so that the real `patch -p1` and `git apply` on the original give
//!   exactly what `-o` writes, in every ASCII-compatible encoding and line-break form. UTF-16 is refused.
//!
//! Snapshots are in `snapshots/cli/` at the workspace root.

#[macro_use]
mod common;

use common::{exit_code, fix_in, stderr, stdout, temp_dir};
use std::process::Command;

/// The folder of this file's scratch directories under Cargo's temporary directory.
const SUITE: &str = "gedgraft-review-diff";

/// An ANSEL file: `é` is `E2 65` (the mark before its letter), `ü` is `E8 75`.
const ANSEL: &[u8] =
    b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME Jos\xE2e /Garc\xE2ia/\n1 NOTE plain text\n\
1 NOTE M\xE8uller\n0 @I2@ INDI\n1 NAME Ann\n0 TRLR\n";

/// A windows-1252 file declared `ANSI`: `é` is `E9`.
const WINDOWS_1252: &[u8] =
    b"0 HEAD\r\n1 CHAR ANSI\r\n0 @I1@ INDI\r\n1 NAME Jos\xE9 /Smith/\r\n1 NOTE caf\xE9\r\n1 NOTE plain\r\n0 TRLR\r\n";

#[test]
fn ansel_to_utf8_shows_every_line_whose_octets_change() {
    let dir = temp_dir(SUITE, "ansel_review");
    std::fs::write(dir.join("f.ged"), ANSEL).expect("write a file");
    let out = fix_in(&dir, &["--to-encoding", "UTF-8", "f.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let diff = stdout(&out);
    // The CHAR line and the two lines holding ANSEL letters: three lines, not one.
    assert!(diff.starts_with("--- a/f.ged (ANSEL)\n+++ b/f.ged (UTF-8)\n"));
    assert!(diff.contains("# octets only: line 4: ANSEL E2 65 → UTF-8"));
    assert_eq!(stderr(&out), "f.ged: would change: 1 edit, -3 +3 lines\n");
    assert_cli_snapshot!("review_diff_ansel_to_utf8", diff);
}

/// The review diff is read on a terminal: control characters in the file (an escape sequence that colours,
/// retitles or clears, a bell, C1 controls) are shown as `\x1B`, never sent to the terminal, as `check` shows
/// them. Tab stays. `--patch` keeps the file's own octets.
#[test]
fn control_characters_are_shown_escaped_in_the_review_diff() {
    let dir = temp_dir(SUITE, "controls");
    let input = "0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE x \x1b[31mred\x1b]0;t\x07\tend\u{85}\n0 TRLR\n";
    std::fs::write(dir.join("f.ged"), input).expect("write a file");
    let out = fix_in(&dir, &["--rename-tag", "NOTE=_N", "f.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let diff = stdout(&out);
    assert!(!diff.contains(['\x1b', '\x07', '\u{85}']), "{diff:?}");
    assert!(
        diff.contains("-0 @N1@ NOTE x \\x1B[31mred\\x1B]0;t\\x07\tend\\x85\n"),
        "{diff}"
    );
    let out = fix_in(&dir, &["--rename-tag", "NOTE=_N", "--patch", "f.ged"]);
    assert!(
        stdout(&out).contains("\x1b[31mred"),
        "the patch holds the file's octets"
    );
}

#[test]
fn windows_1252_read_as_such_to_utf8_shows_the_changed_lines() {
    let dir = temp_dir(SUITE, "cp1252_review");
    std::fs::write(dir.join("f.ged"), WINDOWS_1252).expect("write a file");
    let out = fix_in(
        &dir,
        &[
            "--encoding",
            "windows-1252",
            "--to-encoding",
            "UTF-8",
            "f.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let diff = stdout(&out);
    assert!(diff.contains("# octets only: line 4: windows-1252 E9 → UTF-8 C3 A9 (and 1 more line)"));
    assert_eq!(stderr(&out), "f.ged: would change: 1 edit, -3 +3 lines\n");
    assert_cli_snapshot!("review_diff_windows1252_to_utf8", diff);
}

#[test]
fn line_break_conversions_show_every_line_with_its_break() {
    let dir = temp_dir(SUITE, "eol_review");
    std::fs::write(dir.join("f.ged"), b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n").expect("write a file");
    let out = fix_in(&dir, &["--eol", "crlf", "f.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(stderr(&out), "f.ged: would change: 1 edit, -3 +3 lines\n");
    assert_cli_snapshot!("review_diff_eol_crlf", stdout(&out));
}

#[test]
fn an_edit_that_changes_no_octet_of_other_lines_shows_no_note() {
    let dir = temp_dir(SUITE, "plain_review");
    std::fs::write(dir.join("f.ged"), ANSEL).expect("write a file");
    let out = fix_in(&dir, &["--rename-tag", "NOTE=_NOTE", "f.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let diff = stdout(&out);
    assert!(diff.starts_with("--- a/f.ged (ANSEL)\n+++ b/f.ged (ANSEL)\n"));
    assert!(!diff.contains("# octets only"));
    assert_eq!(stderr(&out), "f.ged: would change: 2 edits, -2 +2 lines\n");
}

/// Applies `--patch`'s output for `args` to a copy of `input` with the real `patch -p1` and `git apply`, and
/// checks both give the octets `fix -o` writes. Returns the patch.
fn patch_reproduces_output(test: &str, input: &[u8], args: &[&str]) -> Vec<u8> {
    let dir = temp_dir(SUITE, test);
    std::fs::write(dir.join("f.ged"), input).expect("write a file");
    let mut with_output = args.to_vec();
    with_output.extend(["f.ged", "-o", "want.ged"]);
    let out = fix_in(&dir, &with_output);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let want = std::fs::read(dir.join("want.ged")).expect("read a file");
    assert_ne!(want, input, "the edit changes the file");
    let mut with_patch = args.to_vec();
    with_patch.extend(["--patch", "f.ged"]);
    let out = fix_in(&dir, &with_patch);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let patch = out.stdout;
    std::fs::write(dir.join("p.diff"), &patch).expect("write a file");
    assert_eq!(
        std::fs::read(dir.join("f.ged")).expect("read a file"),
        input,
        "--patch writes no file"
    );

    for (tool, command) in [
        ("patch", vec!["patch", "-p1", "--quiet", "-i", "../p.diff"]),
        ("git", vec!["git", "apply", "../p.diff"]),
    ] {
        let work = dir.join(tool);
        std::fs::create_dir_all(&work).expect("create a directory");
        std::fs::write(work.join("f.ged"), input).expect("write a file");
        let run = Command::new(command[0])
            .args(&command[1..])
            .current_dir(&work)
            .output()
            .unwrap_or_else(|e| panic!("run {tool}: {e}"));
        assert!(
            run.status.success(),
            "{tool} failed: {}{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
        assert_eq!(
            std::fs::read(work.join("f.ged")).expect("read a file"),
            want,
            "{tool} on the original gives fix -o's octets"
        );
    }
    patch
}

/// The patch with every octet outside printable ASCII written `\xNN` (CR included), for a snapshot.
fn escaped(patch: &[u8]) -> String {
    patch
        .split_inclusive(|&b| b == b'\n')
        .map(|line| {
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            let mut s: String = body
                .iter()
                .map(|&b| {
                    if (0x20..0x7F).contains(&b) {
                        (b as char).to_string()
                    } else {
                        format!("\\x{b:02X}")
                    }
                })
                .collect();
            if line.ends_with(b"\n") {
                s.push('\n');
            }
            s
        })
        .collect()
}

#[test]
fn patch_of_an_lf_file_applies() {
    let input =
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Bob\n1 _UID 1\n0 @I2@ INDI\n1 _UID 2\n0 TRLR\n";
    let patch = patch_reproduces_output("lf", input, &["--rename-tag", "_UID=UID"]);
    assert!(patch.starts_with(b"--- a/f.ged\n+++ b/f.ged\n"));
}

#[test]
fn patch_of_a_crlf_file_keeps_the_crs() {
    let input =
        b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1 NAME Bob\r\n1 _UID 1\r\n0 @I2@ INDI\r\n1 _UID 2\r\n0 TRLR\r\n";
    let patch = patch_reproduces_output("crlf", input, &["--rename-tag", "_UID=UID"]);
    assert_cli_snapshot!("patch_crlf_rename", escaped(&patch));
}

#[test]
fn patch_of_an_ansel_transcode_holds_the_files_own_octets() {
    let patch = patch_reproduces_output("ansel", ANSEL, &["--to-encoding", "UTF-8"]);
    // The removed lines are ANSEL octets, the added ones UTF-8: not the decoded text of the review diff.
    assert!(patch.windows(4).any(|w| w == b"\xE2e /"));
    assert_cli_snapshot!("patch_ansel_to_utf8", escaped(&patch));
}

#[test]
fn patch_of_a_windows_1252_file() {
    patch_reproduces_output(
        "cp1252_set",
        WINDOWS_1252,
        &["--set", "@I1@.NAME=Jos\u{e9} /Garc\u{ed}a/"],
    );
    patch_reproduces_output(
        "cp1252_transcode",
        WINDOWS_1252,
        &["--encoding", "windows-1252", "--to-encoding", "UTF-8"],
    );
}

#[test]
fn patch_of_a_file_without_a_final_line_break() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR";
    // An edit next to the unterminated last line, and a conversion that gives it a break.
    let patch = patch_reproduces_output("no_eol_rename", input, &["--rename-tag", "NAME=_NAM"]);
    assert!(patch.ends_with(b"\n 0 TRLR\n\\ No newline at end of file\n"));
    patch_reproduces_output("no_eol_crlf", input, &["--eol", "crlf"]);
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NOTE a\n0 TRLR\n1 NOTE b";
    patch_reproduces_output("no_eol_last_line", input, &["--rename-tag", "NOTE=_NOTE"]);
}

#[test]
fn patch_of_line_break_conversions() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n";
    patch_reproduces_output("lf_to_crlf", input, &["--eol", "crlf"]);
    let input = b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\n1 NAME Bob\r\n0 TRLR\r\n";
    patch_reproduces_output("mixed_to_lf", input, &["--eol", "lf"]);
}

#[test]
fn patch_of_a_cr_only_file_replaces_its_one_long_line() {
    // `patch` and `git apply` split lines at LF only: a CR-only file is one line to them, so its patch is
    // exact but replaces the whole file.
    let input = b"0 HEAD\r1 CHAR UTF-8\r0 @I1@ INDI\r1 NAME Bob\r0 TRLR\r";
    let patch = patch_reproduces_output("cr_only", input, &["--rename-tag", "NAME=_NAM"]);
    assert_cli_snapshot!("patch_cr_only_rename", escaped(&patch));
    patch_reproduces_output("cr_to_lf", input, &["--eol", "lf"]);
}

#[test]
fn patch_of_a_utf16_file_is_refused_and_nothing_is_printed() {
    let dir = temp_dir(SUITE, "utf16");
    let text = "0 HEAD\n1 CHAR UNICODE\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n";
    let mut input = vec![0xFF, 0xFE];
    input.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    std::fs::write(dir.join("f.ged"), &input).expect("write a file");
    let out = fix_in(&dir, &["--rename-tag", "NAME=_NAM", "--patch", "f.ged"]);
    assert_eq!(exit_code(&out), 2);
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).starts_with("gedgraft: f.ged: --patch cannot write a patch for a UTF-16 file"),
        "{}",
        stderr(&out)
    );
    // Transcoding a UTF-8 file to UTF-16 is refused too.
    std::fs::write(dir.join("g.ged"), b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n").expect("write a file");
    let out = fix_in(&dir, &["--to-encoding", "UTF-16LE", "--patch", "g.ged"]);
    assert_eq!(exit_code(&out), 2);
    assert!(out.stdout.is_empty());
}

#[test]
fn patch_conflicts_with_writing_options() {
    let dir = temp_dir(SUITE, "conflicts");
    std::fs::write(dir.join("f.ged"), b"0 HEAD\n0 TRLR\n").expect("write a file");
    for extra in [&["-o", "x.ged"][..], &["--in-place"], &["--check"]] {
        let mut args = vec!["--patch", "--eol", "crlf", "f.ged"];
        args.extend(extra);
        let out = fix_in(&dir, &args);
        assert_eq!(exit_code(&out), 2, "{extra:?}");
        assert!(
            stderr(&out).contains("cannot be used with"),
            "{}",
            stderr(&out)
        );
    }
}
