//! Integration tests of `gedgraft fix`: the diff shown by default, `--in-place` (atomic, permissions kept),
//! `--backup`, `-o`, `--check` exit statuses, many files per call, and clear errors (exit status 2) for bad
//! option values. Corpus files are read from `../shared/corpus` (ignored when missing; see README).

mod common;

use common::{corpus_file, exit_code, fix_in, stderr, stdout_lossy, temp_dir, write};
use std::process::Command;

/// The folder of this file's scratch directories under Cargo's temporary directory.
const SUITE: &str = "gedgraft-fix";

const SAMPLE: &[u8] = b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1 NAME Bob /Smith/\r\n1 EMAIL bob@example.com\r\n1 NOTE a\r\n0 @I2@ INDI\r\n1 NAME Ann\r\n0 TRLR\r\n";

#[test]
fn the_default_is_a_diff_and_no_file_changes() {
    let dir = temp_dir(SUITE, "diff");
    let file = write(&dir, "family.ged", SAMPLE);
    let out = fix_in(
        &dir,
        &["--rename-tag", "NAME=_NAME", "--escape-at", "family.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout_lossy(&out),
        "--- a/family.ged (UTF-8)\n+++ b/family.ged (UTF-8)\n@@ -1,9 +1,9 @@\n 0 HEAD\n 1 CHAR UTF-8\n 0 @I1@ INDI\n\
         -1 NAME Bob /Smith/\n-1 EMAIL bob@example.com\n+1 _NAME Bob /Smith/\n+1 EMAIL bob@@example.com\n 1 NOTE a\n \
         0 @I2@ INDI\n-1 NAME Ann\n+1 _NAME Ann\n 0 TRLR\n"
    );
    assert_eq!(
        stderr(&out),
        "family.ged: would change: 3 edits, -3 +3 lines\n"
    );
    assert_eq!(
        std::fs::read(&file).expect("read"),
        SAMPLE,
        "the file is untouched"
    );
}

#[test]
fn in_place_rewrites_atomically_and_keeps_permissions() {
    let dir = temp_dir(SUITE, "in-place");
    let file = write(&dir, "family.ged", SAMPLE);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    }
    let out = fix_in(
        &dir,
        &[
            "--in-place",
            "--set",
            "@I2@.NAME=Anne /Smith/\nnée Jones",
            "family.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout_lossy(&out), "", "no diff with --in-place");
    let written = std::fs::read(&file).expect("read");
    let expected = String::from_utf8(SAMPLE.to_vec()).expect("utf8").replace(
        "1 NAME Ann\r\n",
        "1 NAME Anne /Smith/\r\n2 CONT née Jones\r\n",
    );
    assert_eq!(String::from_utf8(written).expect("utf8"), expected);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
    }
    let names: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["family.ged"], "no temporary or backup file left");
}

#[test]
fn backup_keeps_the_original() {
    let dir = temp_dir(SUITE, "backup");
    let file = write(&dir, "family.ged", SAMPLE);
    let out = fix_in(
        &dir,
        &[
            "--in-place",
            "--backup",
            ".orig",
            "--delete",
            "@I2@",
            "family.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read(dir.join("family.ged.orig")).expect("backup"),
        SAMPLE
    );
    let written = String::from_utf8(std::fs::read(&file).expect("read")).expect("utf8");
    assert!(!written.contains("@I2@") && written.ends_with("1 NOTE a\r\n0 TRLR\r\n"));
    // --backup needs --in-place.
    let out = fix_in(&dir, &["--backup", ".orig", "--escape-at", "family.ged"]);
    assert_eq!(exit_code(&out), 2);
}

#[test]
fn output_file_with_and_without_edits() {
    let dir = temp_dir(SUITE, "output");
    write(&dir, "family.ged", SAMPLE);
    let out = fix_in(&dir, &["family.ged", "-o", "copy.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(std::fs::read(dir.join("copy.ged")).expect("copy"), SAMPLE);
    let out = fix_in(&dir, &["family.ged", "--eol", "lf", "-o", "lf.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let lf = std::fs::read(dir.join("lf.ged")).expect("lf");
    assert_eq!(
        lf,
        String::from_utf8_lossy(SAMPLE)
            .replace("\r\n", "\n")
            .as_bytes()
    );
    assert_eq!(
        std::fs::read(dir.join("family.ged")).expect("input"),
        SAMPLE
    );
    // One input only.
    write(&dir, "other.ged", SAMPLE);
    let out = fix_in(&dir, &["family.ged", "other.ged", "-o", "x.ged"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("exactly one input file"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join("x.ged").exists());
}

#[test]
fn check_exit_statuses() {
    let dir = temp_dir(SUITE, "check");
    let file = write(&dir, "family.ged", SAMPLE);
    let out = fix_in(&dir, &["--check", "--escape-at", "family.ged"]);
    assert_eq!(exit_code(&out), 1, "an edit would change the file");
    assert_eq!(stdout_lossy(&out), "");
    assert!(stderr(&out).contains("family.ged: would change: 1 edit, -1 +1 lines"));
    assert_eq!(std::fs::read(&file).expect("read"), SAMPLE);
    let out = fix_in(&dir, &["--check", "--eol", "crlf", "family.ged"]);
    assert_eq!(exit_code(&out), 0, "already CR LF: {}", stderr(&out));
    assert!(stderr(&out).contains("family.ged: unchanged"));
    let out = fix_in(
        &dir,
        &["--check", "--escape-at", "family.ged", "-o", "x.ged"],
    );
    assert_eq!(exit_code(&out), 2, "--check and -o conflict");
}

#[test]
fn many_files_and_errors_naming_the_file() {
    let dir = temp_dir(SUITE, "many");
    write(&dir, "a.ged", SAMPLE);
    write(&dir, "b.ged", b"0 HEAD\n1 NOTE x@y\n0 TRLR\n");
    let out = fix_in(
        &dir,
        &["--in-place", "--escape-at", "a.ged", "missing.ged", "b.ged"],
    );
    assert_eq!(exit_code(&out), 2, "one file could not be read");
    let err = stderr(&out);
    assert!(err.contains("missing.ged"), "{err}");
    assert!(err.contains("a.ged: changed: 1 edit"), "{err}");
    assert!(err.contains("b.ged: changed: 1 edit"), "{err}");
    assert!(std::fs::read_to_string(dir.join("b.ged"))
        .expect("b")
        .contains("x@@y"));
    // An edit the library refuses names the file and leaves it alone.
    let out = fix_in(&dir, &["--in-place", "--delete", "HEAD", "a.ged"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("a.ged: cannot delete the header"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn unmatched_paths_are_reported() {
    let dir = temp_dir(SUITE, "unmatched");
    write(&dir, "family.ged", SAMPLE);
    let out = fix_in(
        &dir,
        &[
            "--set",
            "FAM.NOTE=x",
            "--select",
            "@I9@",
            "--rename-tag",
            "NAME=X",
            "family.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("family.ged: warning: selector `@I9@` matched nothing"),
        "{err}"
    );
    assert!(err.contains("family.ged: unchanged"), "{err}");
    let out = fix_in(&dir, &["--set", "FAM.NOTE=x", "family.ged"]);
    assert!(stderr(&out).contains("warning: selector `FAM.NOTE` matched nothing"));
}

#[test]
fn set_paths_may_name_identifiers_with_equals_signs() {
    let dir = temp_dir(SUITE, "equals");
    write(&dir, "family.ged", b"0 HEAD\n0 @a=b@ NOTE x\n0 TRLR\n");
    let out = fix_in(&dir, &["--set", "@a=b@=y=z", "family.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout_lossy(&out).contains("+0 @a=b@ NOTE y=z\n"),
        "{}",
        stdout_lossy(&out)
    );
}

#[test]
fn select_limits_the_edits() {
    let dir = temp_dir(SUITE, "select");
    write(&dir, "family.ged", SAMPLE);
    let out = fix_in(
        &dir,
        &[
            "--select",
            "@I2@",
            "--rename-tag",
            "NAME=_NAME",
            "--set",
            "INDI.NAME=Z",
            "family.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let diff = stdout_lossy(&out);
    assert!(diff.contains("-1 NAME Ann\n+1 _NAME Z\n"), "{diff}");
    assert!(!diff.contains("-1 NAME Bob"), "{diff}");
}

/// A transcode or a line-break conversion limited by `--select` converted the records it reached but not the
/// header: `--select @I1@ --to-encoding UTF-16LE` wrote UTF-16 records under `1 CHAR UTF-8` (exit 0, the
/// file unreadable), ANSEL or windows-1252 octets under it (`José` read back as `Jos\u{FFFD}e`), and
/// `--eol crlf` converted from the selected record to the end of the file. Both convert the whole file: with
/// `--select` they are refused before anything is written.
#[test]
fn select_cannot_limit_a_whole_file_conversion() {
    let dir = temp_dir(SUITE, "select_whole");
    let text = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Jos\xc3\xa9\n0 @I2@ INDI\n0 TRLR\n";
    write(&dir, "s.ged", text);
    for (args, option) in [
        (&["--to-encoding", "UTF-16LE"][..], "--to-encoding"),
        (&["--to-encoding", "ANSEL"], "--to-encoding"),
        (
            &["--to-encoding", "windows-1252", "--rename-tag", "NAME=_N"],
            "--to-encoding",
        ),
        (&["--eol", "crlf"], "--eol"),
    ] {
        for out in [&["-o", "o.ged"][..], &[], &["--in-place"]] {
            let all = [&["--select", "@I1@"][..], args, out, &["s.ged"]].concat();
            let run = fix_in(&dir, &all);
            assert_eq!(exit_code(&run), 2, "{all:?}: {}", stderr(&run));
            let message = format!("{option} converts the whole file (its header included) and cannot be limited with --select");
            assert!(stderr(&run).contains(&message), "{all:?}: {}", stderr(&run));
            assert!(run.stdout.is_empty(), "{all:?}");
            assert!(!dir.join("o.ged").exists(), "{all:?}");
            assert_eq!(
                std::fs::read(dir.join("s.ged")).expect("s.ged"),
                text,
                "{all:?}"
            );
        }
    }
    // Without --select, the whole file is converted, its CHAR with it.
    let run = fix_in(&dir, &["--to-encoding", "UTF-16LE", "s.ged", "-o", "o.ged"]);
    assert_eq!(exit_code(&run), 0, "{}", stderr(&run));
    let lowered = common::gedgraft_in(&dir, &["lower", "o.ged"]);
    assert_eq!(exit_code(&lowered), 0, "{}", stderr(&lowered));
    assert!(
        stdout_lossy(&lowered).contains("\"Jos\u{e9}\""),
        "{}",
        stdout_lossy(&lowered)
    );
}

#[test]
fn bad_option_values_exit_2_with_a_clear_message() {
    let dir = temp_dir(SUITE, "bad");
    write(&dir, "family.ged", SAMPLE);
    for (args, message) in [
        (
            &["--rename-tag", "NAME"][..],
            "--rename-tag `NAME`: expected OLD=NEW",
        ),
        (&["--rename-tag", "NAME=NA-ME"], "`NA-ME` is not a tag"),
        (
            &["--rename-tag", "NAME=CONT"],
            "`CONT` is reserved (R-TAGS-03)",
        ),
        (
            &["--set", "INDI..NAME=x"],
            "--set: invalid path `INDI..NAME`",
        ),
        (&["--set", "INDI.NAME"], "expected PATH=VALUE"),
        (
            &["--select", "@I1", "--escape-at"],
            "--select: invalid path `@I1`",
        ),
        (&["--rewrap=5"], "a line limit of 5 octets is too small"),
        (&["--to-encoding", "klingon"], "unknown encoding `klingon`"),
        (
            &["--encoding", "klingon", "--escape-at"],
            "unknown encoding `klingon`",
        ),
        (&[], "nothing to do"),
    ] {
        let mut all = args.to_vec();
        all.push("family.ged");
        let out = fix_in(&dir, &all);
        assert_eq!(exit_code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }
    for args in [
        &["--eol", "unix"][..],
        &["--rewrap=abc"],
        &["--join-lf-cr", "--escape-at"],
        &["--in-place", "-o", "x.ged", "--escape-at"],
    ] {
        let mut all = args.to_vec();
        all.push("family.ged");
        let out = fix_in(&dir, &all);
        assert_eq!(exit_code(&out), 2, "{args:?}: {}", stderr(&out));
    }
    assert_eq!(std::fs::read(dir.join("family.ged")).expect("read"), SAMPLE);
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn transcoding_a_utf16_corpus_file() {
    let input = corpus_file("gedcom7code-test-files/5/char_utf16le-2.ged");
    let dir = temp_dir(SUITE, "transcode");
    let bytes = std::fs::read(&input).expect("read");
    write(&dir, "u16.ged", &bytes);
    let out = fix_in(
        &dir,
        &[
            "--to-encoding",
            "utf-8",
            "--eol",
            "crlf",
            "u16.ged",
            "-o",
            "u8.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let text = String::from_utf8(std::fs::read(dir.join("u8.ged")).expect("out")).expect("utf8");
    assert!(
        text.starts_with("\u{FEFF}0 HEAD\r\n"),
        "the BOM is kept for UTF-8"
    );
    assert!(
        text.contains("1 CHAR UTF-8\r\n1 NOTE UTF-16LE with BOM: ¶ ☺ 𒍅\r\n"),
        "{text}"
    );
    let out = fix_in(&dir, &["--to-encoding", "ascii", "u8.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout_lossy(&out).contains("+1 NOTE UTF-16LE with BOM: @#UB6@ @#U263A@ @#U12345@\n"),
        "{}",
        stdout_lossy(&out)
    );
}

#[test]
fn fix_help_lists_the_edit_options() {
    let out = Command::new(env!("CARGO_BIN_EXE_gedgraft"))
        .args(["fix", "--help"])
        .output()
        .expect("run");
    assert_eq!(exit_code(&out), 0);
    let help = stdout_lossy(&out);
    for option in [
        "--rename-tag",
        "--select",
        "--set",
        "--delete",
        "--escape-at",
        "--rewrap",
        "--eol",
        "--to-encoding",
        "--in-place",
        "--backup",
        "--check",
        "--output",
        "--encoding",
        "Exit status",
    ] {
        assert!(help.contains(option), "{option} missing from fix --help");
    }
}

#[test]
fn set_pointer_and_set_xref_retarget_pointers() {
    let dir = temp_dir(SUITE, "set-pointer-xref");
    let input = b"0 HEAD\n0 @I1@ INDI\n1 FAMC @F1@\n0 @I2@ INDI\n0 @F1@ FAM\n1 HUSB @I2@\n0 TRLR\n";
    let path = write(&dir, "a.ged", input);
    let out = fix_in(
        &dir,
        &[
            "a.ged",
            "--set-xref",
            "@I2@=@G1@",
            "--set-pointer",
            "@I1@.FAMC=F9",
            "-o",
            "b.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("@F9@"),
        "a dangling new pointer is reported: {}",
        stderr(&out)
    );
    let written = std::fs::read(dir.join("b.ged")).unwrap();
    assert_eq!(
        written,
        b"0 HEAD\n0 @I1@ INDI\n1 FAMC @F9@\n0 @G1@ INDI\n0 @F1@ FAM\n1 HUSB @G1@\n0 TRLR\n"
    );
    // A duplicate identifier is refused and the file is left alone.
    let out = fix_in(&dir, &["a.ged", "--set-xref", "@I2@=I1", "--in-place"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("already has the identifier"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&path).unwrap(), input);
}

#[test]
fn rewrap_applies_to_the_transcoded_text() {
    // 200 × é: 400 octets of UTF-8, but 1 200 of ASCII once each é is the escape `@#UE9@`. Re-wrapping must
    // measure the lines the new encoding writes, so it runs after the transcode (and after --eol).
    let dir = temp_dir(SUITE, "rewrap-after-transcode");
    let note = "é".repeat(200);
    let input = format!("0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE {note}\n0 TRLR\n");
    write(&dir, "in.ged", input.as_bytes());
    for extra in [&[][..], &["--eol", "crlf"][..]] {
        let mut args = vec![
            "--to-encoding",
            "ASCII",
            "--rewrap",
            "in.ged",
            "-o",
            "out.ged",
        ];
        args.extend_from_slice(extra);
        let out = fix_in(&dir, &args);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        let output = std::fs::read(dir.join("out.ged")).expect("output");
        let longest = output
            .split_inclusive(|&b| b == b'\n')
            .map(<[u8]>::len)
            .max()
            .unwrap_or(0);
        assert!(longest <= 255, "a line of {longest} octets with {extra:?}");
        // The note's text is unchanged once unescaped and merged.
        let parse = gedgraft_syntax::parse(&output);
        assert!(!parse.has_errors());
        let lowered = gedgraft_model::lower(&parse, &gedgraft_model::LowerOptions::default());
        let text = lowered
            .dataset
            .record_by_xref("N1")
            .and_then(|n| n.text().map(str::to_string));
        assert_eq!(text.as_deref(), Some(note.as_str()), "{extra:?}");
    }
}

/// A file that is not GEDCOM (`not-gedcom`) is left as it is, and `fix` says so rather than a bare
/// "unchanged": with repairs alone (streamed), other edits and `-o` (a copy), and the whole-file path.
#[test]
fn a_file_that_is_not_gedcom_is_left_alone_with_a_warning() {
    let dir = temp_dir(SUITE, "not-gedcom");
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    write(&dir, "photo.png", png);
    for args in [
        &["--repair-unsafe", "photo.png", "-o", "out.png"][..],
        &["--repair", "photo.png"],
        &["--rename-tag", "NAME=_NAME", "photo.png", "-o", "out.png"],
        &["--repair", "--check", "photo.png"],
    ] {
        for whole in [false, true] {
            let all = [&["fix"][..], args].concat();
            let out = common::gedgraft_whole_or_streamed(&dir, &all, whole);
            assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
            assert_eq!(
                stderr(&out),
                "photo.png: warning: not a GEDCOM file (`gedgraft check` says why); nothing in it was edited\n\
                 photo.png: unchanged\n",
                "{args:?}, whole {whole:?}"
            );
            if args.contains(&"out.png") {
                assert_eq!(std::fs::read(dir.join("out.png")).expect("written"), png);
            }
        }
    }
}
