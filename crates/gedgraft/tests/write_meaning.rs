//! `gedgraft write` and `gedgraft fmt` never change what a file means without saying so: a dialect asked for
//! that the output cannot be in is refused, a dialect other than the file's is a warning, each renamed
//! identifier is a warning, ANSEL's decomposed letters a note. Snapshots are in `snapshots/cli/`.

#[macro_use]
mod common;

use common::{corpus_dir, exit_code, gedgraft_in, stderr, stdout, temp_dir, write};
use std::path::Path;

const SUITE: &str = "gedgraft-write-meaning";

/// The header of the audit's examples: GEDCOM 5.5.1, UTF-8.
const H: &str = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";

/// Writes `NAME.ged` with `body` after [`H`] and lowers it to `NAME.json` in `dir`.
fn lowered(dir: &Path, name: &str, header: &str, body: &str) {
    write(
        dir,
        &format!("{name}.ged"),
        format!("{header}{body}0 TRLR\n").as_bytes(),
    );
    let out = gedgraft_in(dir, &["lower", &format!("{name}.ged")]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    write(dir, &format!("{name}.json"), &out.stdout);
}

/// R-SERIALISATION-VERSION-01: a Unicode escape, a payload language or ASCII's escapes of Cyrillic would
/// make the output ELF 1.0; with `--dialect` asked for, nothing is written and the message says why and what
/// to do.
#[test]
fn r_serialisation_version_01_an_asked_dialect_is_never_overridden() {
    let dir = temp_dir(SUITE, "asked");
    lowered(&dir, "v", H, "0 @N1@ NOTE a\x0bb\n");
    lowered(&dir, "c", H, "0 @N1@ NOTE Жук\n");
    let elf = "0 HEAD\n1 ELF 1.0.0\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";
    lowered(&dir, "p", elf, "0 @N1@ NOTE Hallo\n1 PLANG de\n");
    let runs: [&[&str]; 3] = [
        &[
            "write",
            "v.json",
            "--dialect",
            "gedcom-5.5.1",
            "-o",
            "o.ged",
        ],
        &[
            "write",
            "c.json",
            "--encoding",
            "ascii",
            "--dialect",
            "gedcom-5.5",
            "-o",
            "o.ged",
        ],
        &[
            "write",
            "p.json",
            "--dialect",
            "gedcom-5.5.1",
            "-o",
            "o.ged",
        ],
    ];
    let mut messages = String::new();
    for args in runs {
        let out = gedgraft_in(&dir, args);
        assert_eq!(exit_code(&out), 2, "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "");
        assert!(!dir.join("o.ged").exists(), "{args:?} wrote o.ged");
        messages.push_str(&stderr(&out));
    }
    // The same asked for in `fmt`: the file is left alone.
    let out = gedgraft_in(
        &dir,
        &[
            "fmt",
            "c.ged",
            "--to-encoding",
            "ascii",
            "--dialect",
            "gedcom-5.5.1",
            "--in-place",
        ],
    );
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    messages.push_str(&stderr(&out));
    assert_cli_snapshot!("write_asked_dialect_refused", messages);
    // What the messages advise works, and the dialect then says nothing more.
    let out = gedgraft_in(&dir, &["write", "v.json", "--dialect", "elf-1.0"]);
    assert_eq!((exit_code(&out), stderr(&out).as_str()), (0, ""));
    assert!(stdout(&out).contains("1 ELF 1.0.0\n") && stdout(&out).contains("a@#UB@b"));
    let out = gedgraft_in(&dir, &["write", "c.json", "--dialect", "gedcom-5.5"]);
    assert_eq!((exit_code(&out), stderr(&out).as_str()), (0, ""));
    assert!(stdout(&out).contains("2 VERS 5.5\n"), "{}", stdout(&out));
    assert!(!stdout(&out).contains("ELF"), "{}", stdout(&out));
}

/// With no dialect asked for, `write` keeps the dataset's dialect when it can and warns when it cannot.
#[test]
fn r_serialisation_version_01_write_warns_when_the_dialect_changes() {
    let dir = temp_dir(SUITE, "warn");
    lowered(&dir, "v", H, "0 @N1@ NOTE a\x0bb\n");
    let out = gedgraft_in(&dir, &["write", "v.json"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("1 ELF 1.0.0\n"));
    assert_cli_snapshot!("write_dialect_warning", stderr(&out));
    // Nothing to say when the dialect stays.
    lowered(&dir, "plain", H, "0 @N1@ NOTE ab\n");
    let out = gedgraft_in(&dir, &["write", "plain.json"]);
    assert_eq!((exit_code(&out), stderr(&out).as_str()), (0, ""));
}

/// A header that named no GEDCOM version gets one from `fmt` and `write` (`GEDC`, the dialect it was read in):
/// the dataset's dialect goes from unknown to GEDCOM 5.5.1, which is said, not done silently (found by a
/// helper); a header that names one is left as it says.
#[test]
fn a_version_the_header_did_not_name_is_said_when_written() {
    let dir = temp_dir(SUITE, "no_gedc");
    let note = "f.ged: note: the header did not say which GEDCOM it is: written as GEDCOM 5.5.1";
    write(
        &dir,
        "f.ged",
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ann\n0 TRLR\n",
    );
    for args in [
        &["fmt", "f.ged", "-o", "o.ged"][..],
        &["fmt", "--check", "f.ged"],
        &["fmt", "f.ged"],
    ] {
        let out = gedgraft_in(&dir, args);
        assert!(stderr(&out).contains(note), "{args:?}: {}", stderr(&out));
    }
    let out = gedgraft_in(&dir, &["fmt", "o.ged", "-o", "o2.ged"]);
    assert_eq!(
        (exit_code(&out), stderr(&out).contains("note:")),
        (0, false),
        "{}",
        stderr(&out)
    );
}

/// `fmt` keeps the file's dialect; where it cannot (a schema, a vertical tab in a note), it says so instead of
/// only "would change".
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn r_serialisation_version_01_fmt_warns_on_corpus_files_that_become_elf() {
    let corpus = corpus_dir();
    let mut messages = String::new();
    for file in [
        "gedcom4j/sample/5.5.1 sample 1.ged",
        "fhiso-legacy-format/elfdm.ged",
        "fhiso-legacy-format/schema.ged",
    ] {
        let out = gedgraft_in(&corpus, &["fmt", "--check", file]);
        assert_eq!(exit_code(&out), 1, "{file}: {}", stderr(&out));
        assert_eq!(stdout(&out), "");
        messages.push_str(&stderr(&out));
    }
    assert_cli_snapshot!("fmt_corpus_dialect_warnings", messages);
}

/// R-POINTER-CONV-03: a later holder of an identifier is written with a fresh one; `write` says so, once per
/// rename, with the structure and its line.
#[test]
fn r_pointer_conv_03_write_warns_of_each_renamed_identifier() {
    let dir = temp_dir(SUITE, "renames");
    let body =
        "0 @I1@ INDI\n1 NAME A\n0 @I1@ INDI\n1 NAME B\n0 @F1@ FAM\n1 HUSB @I1@\n0 @I1@ NOTE c\n";
    write(&dir, "d.ged", format!("{H}{body}0 TRLR\n").as_bytes());
    let json = gedgraft_in(&dir, &["lower", "d.ged"]);
    write(&dir, "d.json", &json.stdout);
    let out = gedgraft_in(&dir, &["write", "d.json"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("0 @I1_2@ INDI\n") && text.contains("0 @I1_3@ NOTE c\n"),
        "{text}"
    );
    assert_cli_snapshot!("write_rename_warnings", stderr(&out));
}

/// R-SERIALISING-LINE-STRINGS-03: ANSEL has no precomposed letters; `write` and `fmt` say how many were
/// written decomposed.
#[test]
fn r_serialising_line_strings_03_ansel_decomposition_is_noted() {
    let dir = temp_dir(SUITE, "ansel");
    lowered(&dir, "a", H, "0 @N1@ NOTE José Müller\n0 @N2@ NOTE plain\n");
    let out = gedgraft_in(&dir, &["write", "a.json", "--encoding", "ansel"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(out.stdout.windows(3).any(|w| w == b"\xE2e "), "é in ANSEL");
    let fmt = gedgraft_in(
        &dir,
        &["fmt", "a.ged", "--to-encoding", "ansel", "-o", "b.ged"],
    );
    assert_eq!(exit_code(&fmt), 0, "{}", stderr(&fmt));
    assert_cli_snapshot!(
        "write_ansel_decomposed_note",
        format!("{}{}", stderr(&out), stderr(&fmt))
    );
    let utf8 = gedgraft_in(&dir, &["write", "a.json"]);
    assert_eq!(stderr(&utf8), "");
}

#[test]
fn lower_help_tells_its_exit_status() {
    let out = gedgraft_in(Path::new("."), &["lower", "--help"]);
    let help = stdout(&out);
    assert!(
        help.contains("Exit status: 0 when the file has no error")
            && help.contains("1 when it has one"),
        "{help}"
    );
    let dir = temp_dir(SUITE, "lower-exit");
    write(
        &dir,
        "bad.ged",
        format!("{H}0 @I1 INDI\n0 TRLR\n").as_bytes(),
    );
    let out = gedgraft_in(&dir, &["lower", "bad.ged"]);
    assert_eq!(exit_code(&out), 1);
    assert!(stdout(&out).contains("\"diagnostics\""));
}

/// R-SERIALISING-LINE-STRINGS-03: `diff` compares text character by character; its help says what that means
/// for a file written in ANSEL, and the diff shows the decomposed letters as a payload change.
#[test]
fn r_serialising_line_strings_03_diff_tells_of_ansel_decomposition() {
    let out = gedgraft_in(Path::new("."), &["diff", "--help"]);
    assert!(
        stdout(&out).contains("canonically equivalent"),
        "{}",
        stdout(&out)
    );
    let dir = temp_dir(SUITE, "ansel-diff");
    write(
        &dir,
        "a.ged",
        format!("{H}0 @N1@ NOTE José\n0 TRLR\n").as_bytes(),
    );
    let fmt = gedgraft_in(
        &dir,
        &["fmt", "a.ged", "--to-encoding", "ansel", "-o", "b.ged"],
    );
    assert_eq!(exit_code(&fmt), 0, "{}", stderr(&fmt));
    let diff = gedgraft_in(&dir, &["diff", "a.ged", "b.ged"]);
    assert_eq!(exit_code(&diff), 1);
    assert!(
        stdout(&diff).contains("~ @N1@ NOTE: \"José\" → \"Jose\u{301}\""),
        "{}",
        stdout(&diff)
    );
}

/// A date's calendar keeps its meaning across dialects: 5.5.1's calendar escape (`@#DJULIAN@`,
/// `DATE_CALENDAR_ESCAPE`) is GEDCOM 7's keyword (`JULIAN`, 7.0 `calendar`) and back, in `fmt` (streamed and
/// whole) and `write`; a calendar the other dialect has no name for (`@#DROMAN@`, an extension `_MAYA`) is
/// refused with its line, not written as text (`@@#DJULIAN@` was: no reader takes it for a Julian date). So is
/// a year's epoch: 5.5.1 `44 B.C.` (`YEAR_GREG [B.C.]`) is GEDCOM 7's `44 BCE` (`epoch`).
#[test]
fn a_dates_calendar_is_converted_between_dialects_or_refused() {
    let dir = temp_dir(SUITE, "calendar");
    let dates = "0 @I1@ INDI\n1 BIRT\n2 DATE @#DJULIAN@ 1 JAN 1700\n1 DEAT\n2 DATE BET @#DFRENCH R@ 1 VEND 1 AND @#DGREGORIAN@ 1800\n1 BURI\n2 DATE @#DJULIAN@ 44 B.C.\n";
    lowered(&dir, "five", H, dates);
    let seven = "0 HEAD\n1 GEDC\n2 VERS 7.0\n";
    let seven_dates = "0 @I1@ INDI\n1 BIRT\n2 DATE JULIAN 1 JAN 1700\n1 DEAT\n2 DATE BET FRENCH_R 1 VEND 1 AND GREGORIAN 1800\n1 BURI\n2 DATE JULIAN 44 BCE\n";
    let runs: [(&[&str], &str); 4] = [
        (
            &["fmt", "five.ged", "--dialect", "gedcom-7.0", "-o", "-"],
            seven_dates,
        ),
        (
            &["write", "five.json", "--dialect", "gedcom-7.0"],
            seven_dates,
        ),
        (
            &["fmt", "seven.ged", "--dialect", "gedcom-5.5.1", "-o", "-"],
            dates,
        ),
        (
            &["fmt", "seven.ged", "--dialect", "elf-1.0", "-o", "-"],
            dates,
        ),
    ];
    lowered(&dir, "seven", seven, seven_dates);
    // Streamed, and the whole file (`GEDGRAFT_WHOLE_FILE`).
    let run = |args: &[&str], whole: bool| common::gedgraft_whole_or_streamed(&dir, args, whole);
    for (args, expected) in runs {
        for whole in [false, true] {
            let out = run(args, whole);
            assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
            let text = stdout(&out);
            assert!(text.contains(expected), "{args:?} whole={whole}:\n{text}");
            // ELF's serialisation is 5.5.1's: its header says so, not 7.0 (found by a helper).
            if args.contains(&"elf-1.0") {
                assert!(text.contains("1 GEDC\n2 VERS 5.5.1\n"), "{text}");
            }
        }
    }
    // Where no date starts (a phrase), an escape is text and stays (found by a helper); `INT` starts a date.
    lowered(
        &dir,
        "phrase",
        H,
        "0 @I1@ INDI\n1 BIRT\n2 DATE INT @#DJULIAN@ 1700 (born @#DJULIAN@)\n",
    );
    for whole in [false, true] {
        let out = run(
            &["fmt", "phrase.ged", "--dialect", "gedcom-7.0", "-o", "-"],
            whole,
        );
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        assert!(
            stdout(&out).contains("2 DATE INT JULIAN 1700 (born @#DJULIAN@)\n"),
            "{}",
            stdout(&out)
        );
    }
    // Calendars with no name in the other dialect: refused, with the structure and its line, nothing written.
    lowered(
        &dir,
        "roman",
        H,
        "0 @I1@ INDI\n1 BIRT\n2 DATE ABT @#DROMAN@ 12\n",
    );
    lowered(
        &dir,
        "maya",
        seven,
        "0 @I1@ INDI\n1 BIRT\n2 DATE BEF _MAYA 13 BAKTUN\n",
    );
    lowered(&dir, "text", H, "0 @I1@ INDI\n1 BIRT\n2 DATE JULIAN 1700\n");
    // Text after a year that the other dialect reads as its epoch (found by a helper): 5.5.1's `44 BCE`.
    lowered(&dir, "bce", H, "0 @I1@ INDI\n1 BIRT\n2 DATE 1100 BCE\n");
    let refusals: [(&[&str], &str); 5] = [
        (
            &["fmt", "text.ged", "--dialect", "gedcom-7.0", "-o", "o.ged"],
            "`JULIAN` where a date starts, which GEDCOM 7.0 would read as a calendar",
        ),
        (
            &["fmt", "bce.ged", "--dialect", "gedcom-7.0", "-o", "o.ged"],
            "`BCE` after a year, which GEDCOM 7.0 would read as the year's epoch",
        ),
        (
            &["fmt", "roman.ged", "--dialect", "gedcom-7.0", "-o", "o.ged"],
            "`@#DROMAN@`",
        ),
        (
            &[
                "write",
                "roman.json",
                "--dialect",
                "gedcom-7.0",
                "-o",
                "o.ged",
            ],
            "`@#DROMAN@`",
        ),
        (
            &[
                "fmt",
                "maya.ged",
                "--dialect",
                "gedcom-5.5.1",
                "-o",
                "o.ged",
            ],
            "`_MAYA`",
        ),
    ];
    for (args, calendar) in refusals {
        for whole in [false, true] {
            let out = run(args, whole);
            assert_eq!(exit_code(&out), 2, "{args:?}: {}", stderr(&out));
            let err = stderr(&out);
            assert!(
                err.contains(calendar) && err.contains("`@I1@ INDI.BIRT.DATE` (line "),
                "{args:?}: {err}"
            );
            assert!(!dir.join("o.ged").exists(), "{args:?} wrote its output");
        }
    }
}

/// 7.0 `Xref = atsign 1*tagchar atsign ; but not "@VOID@"`: `fmt` and `write` into GEDCOM 7 refuse an identifier
/// or pointer outside it (`@f-1@`), a record identified `@VOID@` and a 5.5.1 pointer to `@VOID@` (which would
/// become the null pointer), naming the structure and its line; they wrote them as they were, a file their own
/// `check` rejected, and `1 FAMS @VOID@` lost its family (found by a helper). Streamed and whole alike.
#[test]
fn identifiers_gedcom_7_does_not_allow_are_refused_when_written_in_it() {
    let dir = temp_dir(SUITE, "identifiers-7");
    let cases = [
        (
            "lower",
            "0 @f-1@ FAM\n0 @I1@ INDI\n1 FAMC @f-1@\n",
            "the identifier `@f-1@` of `@f-1@ FAM` (line 6)",
        ),
        (
            "record-void",
            "0 @I1@ INDI\n0 @VOID@ FAM\n",
            "the identifier `@VOID@` of `@VOID@ FAM` (line 7)",
        ),
        (
            "pointer-void",
            "0 @I1@ INDI\n1 FAMS @VOID@\n",
            "the pointer `@VOID@` of `@I1@ INDI.FAMS` (line 7)",
        ),
    ];
    for (name, body, said) in cases {
        lowered(&dir, name, H, body);
        for args in [
            [
                "fmt",
                &format!("{name}.ged"),
                "--dialect",
                "gedcom-7.0",
                "-o",
                "o.ged",
            ],
            [
                "write",
                &format!("{name}.json"),
                "--dialect",
                "gedcom-7.0",
                "-o",
                "o.ged",
            ],
        ] {
            for whole in [false, true] {
                let out = common::gedgraft_whole_or_streamed(&dir, &args, whole);
                assert_eq!(exit_code(&out), 2, "{args:?}: {}", stderr(&out));
                assert!(stderr(&out).contains(said), "{args:?}: {}", stderr(&out));
                assert!(!dir.join("o.ged").exists(), "{args:?} wrote its output");
            }
        }
    }
    // The same file in GEDCOM 5.5.1 and ELF: written.
    let out = gedgraft_in(
        &dir,
        &["fmt", "lower.ged", "--dialect", "elf-1.0", "-o", "-"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("0 @f-1@ FAM"));
}

/// GEDCOM 7's null pointer (`@VOID@`, 7.0 `voidPtr`) has no counterpart in 5.5.1 or ELF, where it reads as a
/// pointer to no record: written as it is, with a warning that counts them (streamed and whole alike).
#[test]
fn null_pointers_written_into_a_dialect_without_one_are_warned_about() {
    let dir = temp_dir(SUITE, "null-pointers");
    let seven = "0 HEAD\n1 GEDC\n2 VERS 7.0\n1 SUBM @VOID@\n";
    lowered(&dir, "void", seven, "0 @I1@ INDI\n1 FAMC @VOID@\n");
    for (args, said) in [
        (
            ["fmt", "void.ged", "--dialect", "gedcom-5.5.1"],
            "void.ged: warning: 2 null pointers",
        ),
        (
            ["write", "void.json", "--dialect", "elf-1.0"],
            "void.json: warning: 2 null pointers",
        ),
        (["fmt", "void.ged", "--dialect", "gedcom-7.0"], ""),
    ] {
        for whole in [false, true] {
            let args = [&args[..], &["-o", "-"]].concat();
            let out = common::gedgraft_whole_or_streamed(&dir, &args, whole);
            assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
            assert!(stdout(&out).contains("1 FAMC @VOID@\n"), "{args:?}");
            match said {
                "" => assert!(!stderr(&out).contains("null pointer"), "{}", stderr(&out)),
                _ => assert!(stderr(&out).contains(said), "{args:?}: {}", stderr(&out)),
            }
        }
    }
}

/// R-PARSING-METADATA-03: what the header's `CHAR` and `GEDC` hold beyond what the lowering reads (`CHAR.VERS`,
/// an extension) is ignored, with no diagnostic, and not in the dataset; `fmt`, which writes the header anew,
/// says what it does not write (one warning per subtree), streamed and whole (found by a helper: `2 _CX
/// important` under `1 CHAR` was dropped without a word, and `diff`, which compares datasets, saw nothing).
#[test]
fn metadata_the_dataset_does_not_keep_is_warned_about_when_not_written() {
    let dir = temp_dir(SUITE, "metadata-not-kept");
    let header = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n2 _GX g\n1 CHAR UTF-8\n2 _CX important\n\
                  3 _CY deeper\n2 VERS 1.0\n";
    write(
        &dir,
        "h.ged",
        format!("{header}0 @I1@ INDI\n0 TRLR\n").as_bytes(),
    );
    let out = gedgraft_in(&dir, &["check", "h.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("0 errors, 0 warnings"),
        "{}",
        stdout(&out)
    );
    for whole in [false, true] {
        let out = common::gedgraft_whole_or_streamed(&dir, &["fmt", "h.ged", "-o", "o.ged"], whole);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        let err = stderr(&out);
        for (line, path) in [
            (5, "HEAD.GEDC._GX"),
            (7, "HEAD.CHAR._CX"),
            (9, "HEAD.CHAR.VERS"),
        ] {
            let said = format!(
                "h.ged: warning: line {line}: {path} is serialisation metadata the dataset does not keep: \
                 not written"
            );
            assert!(err.contains(&said), "whole={whole}: {err}");
        }
        assert_eq!(err.matches("not written").count(), 3, "{err}");
    }
    // A header with only what the lowering reads: no warning.
    write(
        &dir,
        "plain.ged",
        format!("{H}0 @I1@ INDI\n0 TRLR\n").as_bytes(),
    );
    let out = gedgraft_in(&dir, &["fmt", "plain.ged", "-o", "o.ged"]);
    assert!(!stderr(&out).contains("not written"), "{}", stderr(&out));
}

/// `fmt --dialect gedcom-7.0` of a file in an encoding GEDCOM 7 does not allow writes UTF-8 (7.0: UTF-8 only)
/// and says so, streamed and whole; `--to-encoding` naming one it does not allow is still refused (found by a
/// helper: an ASCII file, UTF-8 already, was refused until `--to-encoding UTF-8` was given).
#[test]
fn converting_to_gedcom_7_writes_utf8_unless_told_otherwise() {
    let dir = temp_dir(SUITE, "seven-utf8");
    let body = "0 @I1@ INDI\n1 NAME Ann /Smith/\n0 TRLR\n";
    let ascii = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR ASCII\n";
    write(&dir, "a.ged", format!("{ascii}{body}").as_bytes());
    for whole in [false, true] {
        let args = ["fmt", "a.ged", "--dialect", "gedcom-7.0", "-o", "-"];
        let out = common::gedgraft_whole_or_streamed(&dir, &args, whole);
        assert_eq!(exit_code(&out), 0, "whole={whole}: {}", stderr(&out));
        assert_eq!(stdout(&out), format!("0 HEAD\n1 GEDC\n2 VERS 7.0\n{body}"));
        assert!(
            stderr(&out).contains(
                "a.ged: note: written in UTF-8, as GEDCOM 7.0 files are (read as ASCII; --to-encoding \
                 chooses another)"
            ),
            "{}",
            stderr(&out)
        );
    }
    let out = gedgraft_in(
        &dir,
        &[
            "fmt",
            "a.ged",
            "--dialect",
            "gedcom-7.0",
            "--to-encoding",
            "ASCII",
            "-o",
            "-",
        ],
    );
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot be written in ASCII, only in UTF-8"),
        "{}",
        stderr(&out)
    );
}

/// GEDCOM 7.0 `Tag` (upper case: `stdTag`, `extTag`): a 5.5.1 tag outside it (`Name`, `_myTag`) is refused
/// when written as GEDCOM 7, with its line and the rename that fixes it, streamed, whole and by `write`; a
/// GEDCOM 7 file with one is non-conformant for `check` (`tag-not-allowed`; found by a helper: both passed).
#[test]
fn tags_gedcom_7_does_not_allow_are_refused_when_written_in_it() {
    let dir = temp_dir(SUITE, "seven-tags");
    lowered(&dir, "t", H, "0 @I1@ INDI\n1 NAME A /B/\n1 _myTag v\n");
    let said = "the tag `_myTag` of `@I1@ INDI._myTag` (line 8) cannot be written in GEDCOM 7.0";
    for (args, whole) in [
        (
            &["fmt", "t.ged", "--dialect", "gedcom-7.0", "-o", "o.ged"][..],
            false,
        ),
        (
            &["fmt", "t.ged", "--dialect", "gedcom-7.0", "-o", "o.ged"][..],
            true,
        ),
        (
            &["write", "t.json", "--dialect", "gedcom-7.0", "-o", "o.ged"][..],
            false,
        ),
    ] {
        let out = common::gedgraft_whole_or_streamed(&dir, args, whole);
        assert_eq!(exit_code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(said), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("fix --rename-tag _myTag=NEW"),
            "{}",
            stderr(&out)
        );
        assert!(!dir.join("o.ged").exists());
    }
    write(
        &dir,
        "seven.ged",
        b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 Name A\n1 _MY_TAG2 b\n0 TRLR\n",
    );
    let out = gedgraft_in(&dir, &["check", "seven.ged"]);
    assert_eq!(exit_code(&out), 1, "{}", stdout(&out));
    assert_eq!(
        stdout(&out).matches("[tag-not-allowed]").count(),
        1,
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("seven.ged:5:3"), "{}", stdout(&out));
}
