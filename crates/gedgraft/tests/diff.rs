//! Integration tests of `gedgraft diff OLD NEW`: the semantic diff of two files' datasets (text and JSON),
//! exit statuses as diff(1)'s (0 same data, 1 different, 2 trouble), and no change for formatting-only edits
//! made by `gedgraft fix` (line breaks, encoding, CONC splits) on corpus files.

#[macro_use]
mod common;

use common::{
    corpus_file, exit_code, gedgraft_command, gedgraft_in, stderr, stdout, temp_dir, write,
};
use std::io::Write as _;

const SUITE: &str = "gedgraft-diff";

const OLD: &[u8] = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n0 @I1@ INDI\n1 NAME John /Smith/\n1 NOTE a\n1 NOTE b\n\
1 FAMS @F1@\n0 @I2@ INDI\n1 NAME Ann\n2 GIVN Ann\n1 BIRT\n2 DATE 1900\n0 @I3@ INDI\n1 _UID 77\n1 SEX F\n\
1 NAME Eve\n0 @F1@ FAM\n1 HUSB @I1@\n0 TRLR\n";

/// A scripted edit of OLD: a name corrected, a note changed (with a line break), a record removed and one
/// added, a tag renamed, two substructures reordered, the family renumbered (pointers follow it).
const NEW: &[u8] = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n0 @I1@ INDI\n1 NAME John /Smyth/\n1 NOTE a\n1 NOTE c\n2 CONT more\n\
1 FAMS @F7@\n0 @I3@ INDI\n1 UID 77\n1 NAME Eve\n1 SEX F\n0 @F7@ FAM\n1 HUSB @I1@\n0 @I9@ INDI\n1 NAME New /Person/\n0 TRLR\n";

fn files(test: &str) -> std::path::PathBuf {
    let dir = temp_dir(SUITE, test);
    write(&dir, "old.ged", OLD);
    write(&dir, "new.ged", NEW);
    dir
}

#[test]
fn text_output_names_each_change_by_path_and_exits_1() {
    let dir = files("text");
    let out = gedgraft_in(&dir, &["diff", "old.ged", "new.ged"]);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert_cli_snapshot!("diff_text", stdout(&out));
}

/// The text output is read on a terminal: control characters of the files' text (an escape sequence, a bell)
/// are shown as `\x1B`, in changed values and in the lines of added or removed records.
#[test]
fn control_characters_in_the_data_are_shown_escaped() {
    let dir = temp_dir(SUITE, "controls");
    write(
        &dir,
        "old.ged",
        b"0 HEAD\n0 @N1@ NOTE a\n0 @N2@ NOTE x\n0 TRLR\n",
    );
    write(
        &dir,
        "new.ged",
        b"0 HEAD\n0 @N1@ NOTE a \x1b[2Jb\x07\n0 @N3@ NOTE \x1b]0;t\x07\n0 TRLR\n",
    );
    let out = gedgraft_in(&dir, &["diff", "old.ged", "new.ged"]);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains(['\x1b', '\x07']), "{text:?}");
    // A changed value is quoted with its escapes (`\u001b`); the lines of a record as they read.
    assert!(text.contains(r#""a \u001b[2Jb\u0007""#), "{text}");
    assert!(text.contains("\\x1B]0;t\\x07"), "{text}");
}

#[test]
fn json_output_has_kinds_paths_lines_and_values() {
    let dir = files("json");
    let out = gedgraft_in(&dir, &["diff", "--format", "json", "old.ged", "new.ged"]);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(value["equal"], false);
    let first = &value["changes"][0];
    assert_eq!(first["kind"], "payload-changed");
    assert_eq!(first["old"]["path"], "@I1@ INDI.NAME");
    assert_eq!(first["old"]["line"], 5);
    assert_eq!(first["to"], "\"John /Smyth/\"");
    assert_cli_snapshot!("diff_json", stdout(&out));
}

#[test]
fn the_same_data_exits_0_and_prints_nothing() {
    let dir = temp_dir(SUITE, "same");
    write(&dir, "a.ged", OLD);
    // CR LF, indentation, a CONC split and an ASCII escape: other octets, the same data.
    let same = String::from_utf8_lossy(OLD)
        .replace("1 NAME John /Smith/", "1 NAME John /Sm\n2 CONC ith/")
        .replace("\n1 ", "\n  1 ")
        .replace('\n', "\r\n");
    write(&dir, "b.ged", same.as_bytes());
    for args in [["diff", "a.ged", "b.ged"], ["diff", "a.ged", "a.ged"]] {
        let out = gedgraft_in(&dir, &args);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        assert_eq!(stdout(&out), "");
    }
    let out = gedgraft_in(&dir, &["diff", "--format", "json", "a.ged", "b.ged"]);
    assert_eq!(exit_code(&out), 0);
    assert_eq!(
        stdout(&out),
        "{\"old\": \"a.ged\", \"new\": \"b.ged\", \"equal\": true, \"changes\": []}\n"
    );
}

#[test]
fn either_side_can_be_a_dataset_json_document() {
    let dir = files("json-side");
    let out = gedgraft_in(&dir, &["lower", "new.ged"]);
    write(&dir, "new.json", &out.stdout);
    let out = gedgraft_in(&dir, &["diff", "old.ged", "new.json"]);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let by_file = gedgraft_in(&dir, &["diff", "old.ged", "new.ged"]);
    assert_eq!(
        stdout(&out),
        stdout(&by_file).replace("+++ new.ged", "+++ new.json")
    );
    let out = gedgraft_in(&dir, &["diff", "new.json", "new.ged"]);
    assert_eq!((exit_code(&out), stdout(&out)), (0, String::new()));
    write(&dir, "bad.json", b"{\"records\": 3}");
    let out = gedgraft_in(&dir, &["diff", "old.ged", "bad.json"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("bad.json: line 1"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn quiet_prints_nothing_and_keeps_the_status() {
    let dir = files("quiet");
    let out = gedgraft_in(&dir, &["diff", "-q", "old.ged", "new.ged"]);
    assert_eq!((exit_code(&out), stdout(&out)), (1, String::new()));
}

#[test]
fn trouble_exits_2() {
    let dir = files("trouble");
    let out = gedgraft_in(&dir, &["diff", "old.ged", "missing.ged"]);
    assert_eq!(exit_code(&out), 2);
    assert!(stderr(&out).contains("missing.ged"), "{}", stderr(&out));
    let out = gedgraft_in(&dir, &["diff", "-", "-"]);
    assert_eq!(exit_code(&out), 2);
    assert!(stderr(&out).contains("standard input"), "{}", stderr(&out));
    let out = gedgraft_in(&dir, &["diff", "old.ged"]);
    assert_eq!(exit_code(&out), 2, "a usage error");
}

#[test]
fn one_side_can_be_standard_input() {
    let dir = files("stdin");
    let mut child = gedgraft_command(&dir, &["diff", "old.ged", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(OLD)
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(exit_code(&out), 0);
}

#[test]
fn help_teaches_the_output_and_the_exit_status() {
    let out = gedgraft_in(&temp_dir(SUITE, "help"), &["diff", "--help"]);
    let help = stdout(&out);
    for needle in ["INDI.NAME", "moved", "--format", "Exit status", "diff(1)"] {
        assert!(help.contains(needle), "{needle} missing from:\n{help}");
    }
}

/// Formatting-only fixes of corpus files give "no change in the data": this is how a user proves that
/// `fix --eol`, `--to-encoding` and `--rewrap` kept the data.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn formatting_fixes_of_corpus_files_give_no_change() {
    let dir = temp_dir(SUITE, "corpus");
    let files = [
        "gedcom4j/sample/5.5.1 sample 2.ged",
        "gedcom4j/sample/Harry_Potter.ged",
        "gedcom4j/sample/ANSEL.GED",
    ];
    let fixes: [&[&str]; 3] = [
        &["--eol", "crlf"],
        &["--to-encoding", "UTF-16LE"],
        &["--rewrap=40"],
    ];
    for name in files {
        let original = corpus_file(name);
        let original = original.to_str().expect("UTF-8 path");
        for fix in fixes {
            let mut args = vec!["fix", original, "-o", "out.ged"];
            args.extend_from_slice(fix);
            let out = gedgraft_in(&dir, &args);
            assert_eq!(exit_code(&out), 0, "{name} {fix:?}: {}", stderr(&out));
            let out = gedgraft_in(&dir, &["diff", original, "out.ged"]);
            assert_eq!(
                (exit_code(&out), stdout(&out)),
                (0, String::new()),
                "{name} {fix:?}: {}",
                stderr(&out)
            );
        }
    }
    // And two different files do differ.
    let out = gedgraft_in(
        &dir,
        &[
            "diff",
            "-q",
            corpus_file(files[0]).to_str().expect("path"),
            corpus_file(files[1]).to_str().expect("path"),
        ],
    );
    assert_eq!(exit_code(&out), 1);
}

/// Two files whose names differ only in Unicode normal form (`é` decomposed against composed) print alike; the
/// change says so, and names the forms. A payload that differs otherwise gets no such note.
#[test]
fn a_change_of_normal_form_only_says_so() {
    let dir = temp_dir(SUITE, "normal_form");
    let head = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME ";
    write(
        &dir,
        "nfc.ged",
        format!("{head}Jos\u{e9} /Garc\u{ed}a/\n1 NOTE a\n0 TRLR\n").as_bytes(),
    );
    write(
        &dir,
        "nfd.ged",
        format!("{head}Jose\u{301} /Garci\u{301}a/\n1 NOTE b\n0 TRLR\n").as_bytes(),
    );
    let out = gedgraft_in(&dir, &["diff", "nfc.ged", "nfd.ged"]);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    let name = text
        .lines()
        .find(|l| l.contains("INDI.NAME"))
        .unwrap_or_default();
    assert!(
        name.ends_with("(only the Unicode normal form differs: NFC → NFD)"),
        "{text}"
    );
    let note = text
        .lines()
        .find(|l| l.contains("INDI.NOTE"))
        .unwrap_or_default();
    assert_eq!(note, "~ @I1@ INDI.NOTE: \"a\" → \"b\"", "{text}");
}

/// diff compares data, and a malformed line (R-RECOVER-06: left out of the dataset) or content after the
/// trailer is not data: files that differ only there have the same data (exit 0) but are not the same file,
/// which is said on standard error, naming where; files whose left-out lines are alike are not warned about.
#[test]
fn files_that_differ_only_in_what_is_not_data_are_warned_about() {
    let dir = temp_dir(SUITE, "left-out");
    let clean = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n";
    write(&dir, "clean.ged", clean.as_bytes());
    write(
        &dir,
        "junk.ged",
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Bob\nthis is junk\n0 TRLR\n",
    );
    write(
        &dir,
        "junk2.ged",
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Bob\nother junk\n0 TRLR\n",
    );
    write(
        &dir,
        "after.ged",
        format!("{clean}after the end\n").as_bytes(),
    );
    write(&dir, "crlf.ged", clean.replace('\n', "\r\n").as_bytes());
    for (old, new, said) in [
        ("clean.ged", "junk.ged", "clean.ged: none; junk.ged: line 5"),
        (
            "junk.ged",
            "junk2.ged",
            "junk.ged: line 5; junk2.ged: line 5",
        ),
        (
            "after.ged",
            "clean.ged",
            "after.ged: line 6; clean.ged: none",
        ),
    ] {
        let out = gedgraft_in(&dir, &["diff", old, new]);
        assert_eq!(exit_code(&out), 0, "{old} {new}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{old} {new}");
        let err = stderr(&out);
        assert!(
            err.starts_with("warning: the files differ in what is not data"),
            "{err}"
        );
        assert!(err.contains(said), "{old} {new}: {err}");
    }
    for (old, new) in [("junk.ged", "junk.ged"), ("clean.ged", "crlf.ged")] {
        let out = gedgraft_in(&dir, &["diff", old, new]);
        assert_eq!(exit_code(&out), 0, "{old} {new}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{old} {new}");
    }
}

/// Octets the encoding cannot decode read as U+FFFD in the data (`E9` and `E8` alike): files that differ only
/// there are warned about, as files that differ in malformed lines (diff said nothing, found by a helper).
#[test]
fn files_that_differ_only_in_undecodable_octets_are_warned_about() {
    let dir = temp_dir(SUITE, "undecodable");
    let head = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 @I1@ INDI\n1 NAME ";
    write(
        &dir,
        "e9.ged",
        &[head.as_bytes(), b"Jos\xe9\n0 TRLR\n"].concat(),
    );
    write(
        &dir,
        "e8.ged",
        &[head.as_bytes(), b"Jos\xe8\n0 TRLR\n"].concat(),
    );
    let out = gedgraft_in(&dir, &["diff", "e9.ged", "e8.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("e9.ged: line 6; e8.ged: line 6"),
        "{}",
        stderr(&out)
    );
    let same = gedgraft_in(&dir, &["diff", "e9.ged", "e9.ged"]);
    assert_eq!((exit_code(&same), stderr(&same)), (0, String::new()));
}

/// A file that is not GEDCOM has no data to compare: trouble (diff(1): exit 2), not "the same" (two HTML
/// pages compared equal, found by a helper).
#[test]
fn a_file_that_is_not_gedcom_is_trouble() {
    let dir = files("not-gedcom");
    write(&dir, "a.html", b"<html><body>A</body></html>\n");
    write(&dir, "b.html", b"<html>B</html>\n");
    for (old, new) in [
        ("a.html", "b.html"),
        ("a.html", "old.ged"),
        ("old.ged", "b.html"),
    ] {
        let out = gedgraft_in(&dir, &["diff", old, new]);
        assert_eq!(exit_code(&out), 2, "{old} {new}");
        assert!(
            stderr(&out).contains(": not a GEDCOM file"),
            "{}",
            stderr(&out)
        );
    }
}

/// A dataset document may start with a UTF-8 byte-order mark, as `write` and `fix --from-dataset` read it:
/// `diff` read it as a GEDCOM file with every record removed.
#[test]
fn a_dataset_with_a_byte_order_mark_is_read_as_one() {
    let dir = files("bom-json");
    let lowered = gedgraft_in(&dir, &["lower", "old.ged"]);
    write(
        &dir,
        "old.json",
        &[&b"\xef\xbb\xbf"[..], &lowered.stdout].concat(),
    );
    let out = gedgraft_in(&dir, &["diff", "old.ged", "old.json"]);
    assert_eq!(
        (exit_code(&out), stdout(&out)),
        (0, String::new()),
        "{}",
        stderr(&out)
    );
}

/// A malformed line before the header is not data either (nothing before `0 HEAD` is lowered): files that
/// differ there are warned about (a helper's `garbage` line before `0 HEAD` went unsaid).
#[test]
fn a_malformed_line_before_the_header_is_warned_about() {
    let dir = temp_dir(SUITE, "before-head");
    let file = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 TRLR\n";
    write(&dir, "a.ged", file.as_bytes());
    write(&dir, "b.ged", format!("garbage\n{file}").as_bytes());
    write(&dir, "c.ged", format!("other\n{file}").as_bytes());
    for (old, new, said) in [
        ("a.ged", "b.ged", "a.ged: none; b.ged: line 1"),
        ("b.ged", "c.ged", "b.ged: line 1; c.ged: line 1"),
    ] {
        let out = gedgraft_in(&dir, &["diff", old, new]);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        assert!(stderr(&out).contains(said), "{old} {new}: {}", stderr(&out));
    }
    let same = gedgraft_in(&dir, &["diff", "b.ged", "b.ged"]);
    assert_eq!(stderr(&same), "");
}

/// A date's calendar is compared as both dialects mean it: GEDCOM 7's `JULIAN 1700` is 5.5.1's `@#DJULIAN@
/// 1700` (a file and its `fmt --dialect gedcom-7.0` hold the same dates: found by a helper), while 5.5.1's
/// text `JULIAN 1701`, which GEDCOM 7 reads as a Julian date, is a change, shown in the form compared. So are
/// epochs: 5.5.1 `44 B.C.` is GEDCOM 7's `44 BCE`.
#[test]
fn dates_are_compared_by_their_calendars_across_dialects() {
    let dir = temp_dir(SUITE, "calendars");
    let five =
        b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @I1@ INDI\n1 BIRT\n\
2 DATE BET @#DJULIAN@ 1700 AND @#DFRENCH R@ 1 VEND 3\n1 DEAT\n2 DATE JULIAN 1701\n1 BURI\n2 DATE 44 B.C.\n0 TRLR\n";
    let seven = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 BIRT\n2 DATE BET JULIAN 1700 AND FRENCH_R 1 VEND 3\n\
1 DEAT\n2 DATE JULIAN 1701\n1 BURI\n2 DATE 44 BCE\n0 TRLR\n";
    std::fs::write(dir.join("five.ged"), five).expect("write");
    std::fs::write(dir.join("seven.ged"), seven).expect("write");
    let out = gedgraft_in(&dir, &["diff", "five.ged", "seven.ged"]);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains("BIRT.DATE"), "{text}");
    // 5.5.1's `44 B.C.` is GEDCOM 7's `44 BCE`.
    assert!(!text.contains("BURI.DATE"), "{text}");
    assert!(
        text.contains(
            r#"~ @I1@ INDI.DEAT.DATE: "JULIAN 1701" (text in GEDCOM 5.5.1) → "JULIAN 1701""#
        ),
        "{text}"
    );
    // Found by a helper: dates that read otherwise were the same when compared in 5.5.1's form. In GEDCOM 7
    // `@@#DJULIAN@ 1700` is the text `@#DJULIAN@ 1700` and `44 B.C.` no date; 5.5.1's `44 BCE` is text, and
    // its `44B.C.` (as its grammar writes `<YEAR_GREG>[B.C.]`) is GEDCOM 7's `44 BCE`.
    let file = |name: &str, version: &str, date: &str| {
        let text = format!(
            "0 HEAD\n1 GEDC\n2 VERS {version}\n1 CHAR UTF-8\n0 @I1@ INDI\n1 BIRT\n2 DATE {date}\n0 TRLR\n"
        );
        std::fs::write(dir.join(name), text).expect("write");
    };
    for (old, new, same) in [
        (("7.0", "JULIAN 1700"), ("7.0", "@@#DJULIAN@ 1700"), false),
        (("7.0", "44 BCE"), ("7.0", "44 B.C."), false),
        (("7.0", "JULIAN 44 BCE"), ("7.0", "JULIAN 44 B.C."), false),
        (("5.5.1", "44 BCE"), ("7.0", "44 BCE"), false),
        (("5.5.1", "@#DROMAN@ 12"), ("7.0", "@@#DROMAN@ 12"), false),
        (("5.5.1", "44B.C."), ("7.0", "44 BCE"), true),
        (("5.5.1", "@#DJULIAN@1700"), ("7.0", "JULIAN 1700"), true),
        (("5.5.1", "@#DROMAN@ 12"), ("5.5.1", "@#DROMAN@ 12"), true),
        (("5.5.1", "44 @#DHEBREW@"), ("7.0", "44 @#DHEBREW@"), true),
        // The default calendar said or not: one date.
        (("5.5.1", "@#DGREGORIAN@ 1700"), ("7.0", "1700"), true),
        (
            ("7.0", "BET GREGORIAN 1 JAN 1700 AND 1701"),
            ("7.0", "BET 1 JAN 1700 AND 1701"),
            true,
        ),
        (
            ("5.5.1", "@#DGREGORIAN@ 1700"),
            ("5.5.1", "@#DJULIAN@ 1700"),
            false,
        ),
    ] {
        file("old.ged", old.0, old.1);
        file("new.ged", new.0, new.1);
        let out = gedgraft_in(&dir, &["diff", "old.ged", "new.ged"]);
        let text = stdout(&out);
        // Files of two dialects differ in their metadata; the date is what is compared here.
        assert_eq!(
            exit_code(&out),
            if same && old.0 == new.0 { 0 } else { 1 },
            "{text}"
        );
        assert_eq!(text.contains("BIRT.DATE"), !same, "{old:?} {new:?}: {text}");
    }
}
