//! `gedgraft fix` never changes what a file means behind the user's back (issue 11): `--to-encoding` refuses a
//! file whose reading is in doubt (exit 2, the file named, nothing written) until `--encoding NAME` names the
//! reading, `--rename-tag` leaves the header's serialisation metadata alone, `HEAD.CHAR` is written as genealogy
//! programs read it, an irreversible transcode warns, `--rewrap` splits only long lines (in ANSEL never between
//! a diacritic and its letter) and `--join-conc` joins. Snapshots are in `snapshots/cli/` at the workspace root;
//! corpus files are read from `../shared/corpus` (ignored when missing; see README).

#[macro_use]
mod common;

use common::{corpus_file, exit_code, fix_in, gedgraft_in, stderr, stdout_lossy, temp_dir, write};
use gedgraft_test_support::marks_before_conc;
use std::path::Path;
use std::process::Command;

/// The folder of this file's scratch directories under Cargo's temporary directory.
const SUITE: &str = "gedgraft-transcode-safety";

/// A windows-1252 file whose header says ANSEL.
const ANSEL_LABEL_1252: &[u8] =
    b"0 HEAD\r\n1 CHAR ANSEL\r\n0 @I1@ INDI\r\n1 NAME Mar\xEDa /L\xF3pez/\r\n1 BIRT\r\n2 PLAC Alcal\xE1 de Henares\r\n0 TRLR\r\n";

/// A UTF-8 file whose header says ANSI.
const ANSI_LABEL_UTF8: &[u8] =
    b"0 HEAD\n1 CHAR ANSI\n0 @I1@ INDI\n1 NAME Mar\xC3\xADa /L\xC3\xB3pez/\n0 TRLR\n";

#[test]
fn to_encoding_refuses_a_windows_1252_file_labelled_ansel() {
    let dir = temp_dir(SUITE, "ansel_label");
    write(&dir, "f.ged", ANSEL_LABEL_1252);
    let out = fix_in(&dir, &["--to-encoding", "UTF-8", "f.ged", "-o", "out.ged"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(!dir.join("out.ged").exists(), "nothing is written");
    assert_eq!(stdout_lossy(&out), "");
    assert_cli_snapshot!("transcode_safety_ansel_label_refused", stderr(&out));
    // Named: read as windows-1252, the output says UTF-8 and keeps `Alcalá`.
    let out = fix_in(
        &dir,
        &[
            "--encoding",
            "windows-1252",
            "--to-encoding",
            "UTF-8",
            "f.ged",
            "-o",
            "out.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read(dir.join("out.ged")).expect("out"),
        "0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1 NAME María /López/\r\n1 BIRT\r\n2 PLAC Alcalá de Henares\r\n0 TRLR\r\n"
            .as_bytes()
    );
}

#[test]
fn to_encoding_in_place_refuses_a_utf8_file_labelled_ansi() {
    let dir = temp_dir(SUITE, "ansi_label");
    let path = write(&dir, "f.ged", ANSI_LABEL_UTF8);
    let out = fix_in(&dir, &["--to-encoding", "UTF-8", "--in-place", "f.ged"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&path).expect("read"),
        ANSI_LABEL_UTF8,
        "untouched"
    );
    assert_cli_snapshot!("transcode_safety_ansi_label_refused", stderr(&out));
    // The diff mode refuses too, and shows nothing.
    let out = fix_in(&dir, &["--to-encoding", "UTF-8", "f.ged"]);
    assert_eq!((exit_code(&out), stdout_lossy(&out).as_str()), (2, ""));
    let out = fix_in(
        &dir,
        &[
            "--encoding",
            "UTF-8",
            "--to-encoding",
            "UTF-8",
            "--in-place",
            "f.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&path).expect("read"),
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Mar\xC3\xADa /L\xC3\xB3pez/\n0 TRLR\n",
        "not double-encoded"
    );
}

#[test]
fn to_encoding_with_a_named_reading_still_refuses_raw_octets_unless_replaced() {
    let dir = temp_dir(SUITE, "raw");
    write(
        &dir,
        "f.ged",
        b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE a\xFFb\n0 TRLR\n",
    );
    let out = fix_in(
        &dir,
        &[
            "--to-encoding",
            "ASCII",
            "--replace-raw",
            "f.ged",
            "-o",
            "out.ged",
        ],
    );
    assert_eq!(exit_code(&out), 2, "in doubt: {}", stderr(&out));
    assert!(
        stderr(&out).contains("f.ged: line 3: the file's encoding is in doubt"),
        "{}",
        stderr(&out)
    );
    let out = fix_in(
        &dir,
        &[
            "--encoding",
            "UTF-8",
            "--to-encoding",
            "ASCII",
            "f.ged",
            "-o",
            "out.ged",
        ],
    );
    assert_eq!(exit_code(&out), 2);
    assert!(
        // One octet is "it", several are "they".
        stderr(&out).contains(
            "octet FF could not be decoded as UTF-8, so it cannot be transcoded; fix it first"
        ),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("(--replace-raw)"), "{}", stderr(&out));
    assert!(!dir.join("out.ged").exists());
    let out = fix_in(
        &dir,
        &[
            "--encoding",
            "UTF-8",
            "--to-encoding",
            "ASCII",
            "--replace-raw",
            "f.ged",
            "-o",
            "out.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read(dir.join("out.ged")).expect("out"),
        b"0 HEAD\n1 CHAR ASCII\n0 @N1@ NOTE a@#UFFFD@b\n0 TRLR\n"
    );
}

#[test]
fn rename_tag_to_char_in_the_header_is_refused() {
    let dir = temp_dir(SUITE, "rename_char");
    let input = b"0 HEAD\n1 _ENC windows-1252\n0 @I1@ INDI\n1 NAME Zo\xC3\xAB\n0 TRLR\n";
    let path = write(&dir, "f.ged", input);
    for rename in [
        "_ENC=CHAR",
        "_ENC=GEDC",
        "_ENC=ELF",
        "_ENC=SCHMA",
        "_ENC=PLANG",
    ] {
        let out = fix_in(&dir, &["--rename-tag", rename, "--in-place", "f.ged"]);
        assert_eq!(exit_code(&out), 2, "{rename}: {}", stderr(&out));
        assert_eq!(std::fs::read(&path).expect("read"), input);
    }
    let out = fix_in(&dir, &["--rename-tag", "_ENC=CHAR", "f.ged"]);
    assert_eq!(stdout_lossy(&out), "");
    assert_cli_snapshot!("transcode_safety_rename_to_char_refused", stderr(&out));
}

#[test]
fn to_encoding_writes_the_char_values_programs_read() {
    let dir = temp_dir(SUITE, "char_values");
    write(
        &dir,
        "f.ged",
        "0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE Zo\u{eb}\n0 TRLR\n".as_bytes(),
    );
    let out = fix_in(&dir, &["--to-encoding", "windows-1250", "f.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_cli_snapshot!("transcode_safety_char_ansi_vers_1250", stdout_lossy(&out));
    for (to, char_line) in [
        ("IBM437", "1 CHAR IBMPC\n0 @N1@"),
        ("macintosh", "1 CHAR MACINTOSH\n0 @N1@"),
        ("windows-1252", "1 CHAR ANSI\n0 @N1@"),
    ] {
        let out = fix_in(&dir, &["--to-encoding", to, "f.ged", "-o", "out.ged"]);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        let written = std::fs::read(dir.join("out.ged")).expect("out");
        assert!(
            written.starts_with(format!("0 HEAD\n{char_line}").as_bytes()),
            "{to}: {}",
            String::from_utf8_lossy(&written)
        );
    }
    // windows-1252 on a file declared ANSI: nothing to do.
    let out = fix_in(
        &dir,
        &["--to-encoding", "windows-1252", "--in-place", "out.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(stderr(&out), "out.ged: unchanged\n");
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn ansel_to_utf8_warns_about_the_octets_that_cannot_come_back() {
    let ansel = corpus_file("gedcom4j/sample/ANSEL.GED");
    let dir = temp_dir(SUITE, "ansel_round_trip");
    std::fs::copy(&ansel, dir.join("ANSEL.GED")).expect("copy");
    let out = fix_in(
        &dir,
        &["--to-encoding", "UTF-8", "ANSEL.GED", "-o", "utf8.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_cli_snapshot!("transcode_safety_ansel_not_reversible", stderr(&out));
    let out = fix_in(
        &dir,
        &["--to-encoding", "ANSEL", "utf8.ged", "-o", "back.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let original = std::fs::read(dir.join("ANSEL.GED")).expect("original");
    let back = std::fs::read(dir.join("back.ged")).expect("back");
    let differing = original.iter().zip(&back).filter(|(a, b)| a != b).count();
    assert_eq!((back.len(), differing), (original.len(), 52));
}

/// Drops every `line` field (re-wrapping moves lines).
fn without_lines(value: &mut serde_json::Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(map) => {
                map.remove("line");
                stack.extend(map.values_mut());
            }
            serde_json::Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// R-SERIALISING-STRUCTS-14: `--rewrap=32` on an ANSEL NOTE of `E2 61 E2 65 …` keeps each mark with its letter.
#[test]
fn rewrap_never_splits_an_ansel_mark_from_its_letter() {
    let dir = temp_dir(SUITE, "ansel_rewrap");
    let mut input = b"0 HEAD\r\n1 CHAR ANSEL\r\n0 @N1@ NOTE ".to_vec();
    input.extend_from_slice(&b"\xE2a\xE2e\xE2i\xE2o\xE2u".repeat(8));
    input.extend_from_slice(b"\r\n0 TRLR\r\n");
    write(&dir, "f.ged", &input);
    let out = fix_in(&dir, &["--rewrap=32", "f.ged", "-o", "out.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let written = std::fs::read(dir.join("out.ged")).expect("out");
    assert_eq!(marks_before_conc(&written), 0);
    assert!(written.windows(6).filter(|w| w == b" CONC ").count() >= 3);
    assert!(
        lowered_records(&dir, "f.ged") == lowered_records(&dir, "out.ged"),
        "the lowered records differ"
    );
}

/// R-SERIALISING-STRUCTS-14 on the corpus's ANSEL file: `--rewrap=32` keeps each mark with its letter.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn rewrap_never_splits_an_ansel_mark_from_its_letter_in_the_corpus_file() {
    let dir = temp_dir(SUITE, "ansel_rewrap_corpus");
    std::fs::copy(
        corpus_file("gedcom4j/sample/ANSEL.GED"),
        dir.join("ANSEL.GED"),
    )
    .expect("copy");
    let out = fix_in(&dir, &["--rewrap=32", "ANSEL.GED", "-o", "rewrapped.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let written = std::fs::read(dir.join("rewrapped.ged")).expect("out");
    assert_eq!(marks_before_conc(&written), 0);
    assert!(
        lowered_records(&dir, "ANSEL.GED") == lowered_records(&dir, "rewrapped.ged"),
        "the lowered records differ"
    );
}

/// The records `gedgraft lower` gives for `dir/path`, without their line numbers.
fn lowered_records(dir: &Path, path: &str) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_gedgraft"))
        .args(["lower", path])
        .current_dir(dir)
        .output()
        .expect("lower");
    let mut json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    without_lines(&mut json["records"]);
    json["records"].clone()
}

/// `--rewrap` shows only the long lines; `--join-conc` is asked for separately.
#[test]
fn rewrap_splits_only_and_join_conc_joins() {
    let dir = temp_dir(SUITE, "join_conc");
    let long = "word ".repeat(12);
    let input = format!(
        "0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE {}\n0 @N2@ NOTE fine\n1 CONC ly split\n0 TRLR\n",
        long.trim_end()
    );
    write(&dir, "f.ged", input.as_bytes());
    let out = fix_in(&dir, &["--rewrap=40", "f.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_cli_snapshot!("transcode_safety_rewrap_splits_only", stdout_lossy(&out));
    let out = fix_in(&dir, &["--join-conc", "f.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_cli_snapshot!("transcode_safety_join_conc", stdout_lossy(&out));
    let out = fix_in(
        &dir,
        &["--rewrap=40", "--join-conc", "f.ged", "-o", "both.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let both = String::from_utf8(std::fs::read(dir.join("both.ged")).expect("out")).expect("utf8");
    assert!(both.contains("0 @N2@ NOTE finely split\n"), "{both}");
    assert!(both.lines().all(|l| l.len() < 40), "{both}");
    // One payload that both touch: a long line and needless `CONC` splits after it. Split, then joined, a
    // stage each (found by a helper: in one batch the two overlapped, exit 2), streamed and whole alike.
    let input = format!(
        "0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE {}\n1 CONC s\n1 CONC t\n0 @N2@ NOTE a\n1 CONC b\n0 TRLR\n",
        long.trim_end()
    );
    write(&dir, "g.ged", input.as_bytes());
    let mut outputs = Vec::new();
    for whole in [false, true] {
        let out = common::gedgraft_whole_or_streamed(
            &dir,
            &["fix", "--rewrap=40", "--join-conc", "g.ged", "-o", "-"],
            whole,
        );
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        outputs.push(stdout_lossy(&out));
    }
    assert_eq!(outputs[0], outputs[1]);
    let both = &outputs[0];
    assert!(both.contains("0 @N2@ NOTE ab\n"), "{both}");
    assert!(both.lines().all(|l| l.len() < 40), "{both}");
    let joined: String = (both.lines())
        .skip_while(|l| !l.starts_with("0 @N1@"))
        .take_while(|l| !l.starts_with("0 @N2@"))
        .map(|l| {
            l.trim_start_matches("0 @N1@ NOTE ")
                .trim_start_matches("1 CONC ")
        })
        .collect();
    assert_eq!(joined, format!("{}st", long.trim_end()));
}

/// R-SPECIFIED-ENC-05: `1 char` is the CHAR line detection reads, so every guard of `HEAD.CHAR` holds for it,
/// and a transcode rewrites it rather than adding a second CHAR line (issue 11, F2).
#[test]
fn a_lowercase_char_line_is_guarded_and_rewritten() {
    let dir = temp_dir(SUITE, "lowercase_char");
    let renamed = b"0 HEAD\n1 _ENC ANSEL\n0 @I1@ INDI\n1 NAME Mar\xc3\xada\n0 TRLR\n";
    write(&dir, "lc3.ged", renamed);
    let out = fix_in(
        &dir,
        &["--rename-tag", "_ENC=char", "lc3.ged", "-o", "o.ged"],
    );
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(!dir.join("o.ged").exists());
    let input = b"0 HEAD\n1 char UTF-8\n0 @I1@ INDI\n1 NAME Mar\xc3\xada\n0 TRLR\n";
    write(&dir, "lc6.ged", input);
    let mut refusals = String::new();
    for edit in [
        ["--set", "HEAD.char=ANSEL"],
        ["--delete", "HEAD.char"],
        ["--rename-tag", "char=_C"],
    ] {
        let out = fix_in(&dir, &[edit[0], edit[1], "lc6.ged", "-o", "o.ged"]);
        assert_eq!(exit_code(&out), 2, "{edit:?}: {}", stderr(&out));
        assert!(!dir.join("o.ged").exists(), "{edit:?}");
        refusals.push_str(&stderr(&out));
    }
    assert_cli_snapshot!("transcode_safety_lowercase_char_refused", refusals);
    let out = fix_in(
        &dir,
        &["--to-encoding", "windows-1252", "lc6.ged", "-o", "o.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read(dir.join("o.ged")).expect("out"),
        b"0 HEAD\n1 char ANSI\n0 @I1@ INDI\n1 NAME Mar\xeda\n0 TRLR\n"
    );
}

/// windows-1252 text whose accents are each followed by a letter is valid ANSEL octet for octet; `check` says
/// so and `--to-encoding` refuses until `--encoding` names the reading (issue 11, F1).
#[test]
fn windows_1252_that_reads_as_ansel_is_in_doubt() {
    let dir = temp_dir(SUITE, "ambiguous_ansel");
    let amb = b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME Andr\xe9a /M\xfcller/\n1 NOTE na\xefve\n0 TRLR\n";
    write(&dir, "amb.ged", amb);
    let out = gedgraft_in(&dir, &["check", "amb.ged"]);
    assert_cli_snapshot!("transcode_safety_ambiguous_ansel_check", stdout_lossy(&out));
    let out = fix_in(&dir, &["--to-encoding", "UTF-8", "amb.ged", "-o", "o.ged"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(!dir.join("o.ged").exists());
    let out = fix_in(
        &dir,
        &[
            "--encoding",
            "windows-1252",
            "--to-encoding",
            "UTF-8",
            "amb.ged",
            "-o",
            "o.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read(dir.join("o.ged")).expect("out"),
        "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Andréa /Müller/\n1 NOTE naïve\n0 TRLR\n"
            .as_bytes()
    );
    // No CHAR line: the hint names windows-1252, not ANSEL.
    write(
        &dir,
        "nochar.ged",
        b"0 HEAD\n0 @I1@ INDI\n1 NAME Mar\xeda\n0 TRLR\n",
    );
    let out = gedgraft_in(&dir, &["check", "nochar.ged"]);
    let report = stdout_lossy(&out);
    assert!(report.contains("look like windows-1252"), "{report}");
}

/// gedcom4j's `issue81.ged` splits `arr` + circumflex | `CONC ete`; in UTF-8 the mark goes with its letter, so
/// ANSEL → UTF-8 → ANSEL changes octets: the first transcode warns (issue 11, F3).
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn ansel_mark_before_conc_warns_that_it_cannot_come_back() {
    let issue81 = corpus_file("gedcom4j/sample/issue81.ged");
    let dir = temp_dir(SUITE, "issue81");
    std::fs::copy(&issue81, dir.join("issue81.ged")).expect("copy");
    let out = fix_in(
        &dir,
        &["--to-encoding", "UTF-8", "issue81.ged", "-o", "a.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_cli_snapshot!("transcode_safety_issue81_not_reversible", stderr(&out));
    let out = fix_in(&dir, &["--to-encoding", "ANSEL", "a.ged", "-o", "b.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
}

/// Junk after the trailer is not text of the file: it puts no doubt on the reading and a transcode copies it
/// octet for octet, with or without `--replace-raw` (issue 11, F4), with a warning that names it when it does
/// not read the same in the new encoding (found by a helper); ASCII junk into an 8-bit encoding reads alike.
#[test]
fn junk_after_the_trailer_does_not_block_a_transcode_and_is_copied() {
    let dir = temp_dir(SUITE, "junk_after_trailer");
    write(
        &dir,
        "bin.ged",
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME A\n0 TRLR\n\x1a\x00\xff\xfe",
    );
    for extra in [None, Some("--replace-raw")] {
        let mut args = vec!["--to-encoding", "windows-1252", "bin.ged", "-o", "o.ged"];
        args.extend(extra);
        let out = fix_in(&dir, &args);
        assert_eq!(exit_code(&out), 0, "{extra:?}: {}", stderr(&out));
        assert_eq!(
            std::fs::read(dir.join("o.ged")).expect("out"),
            b"0 HEAD\n1 CHAR ANSI\n0 @I1@ INDI\n1 NAME A\n0 TRLR\n\x1a\x00\xff\xfe"
        );
        let said = "line 6: the 4 octets after the trailer are copied as they are, still UTF-8";
        assert!(stderr(&out).contains(said), "{extra:?}: {}", stderr(&out));
        std::fs::remove_file(dir.join("o.ged")).expect("remove");
    }
    // UTF-16LE to BE: ASCII junk reads otherwise too (found by a helper).
    let le: Vec<u8> = "\u{feff}0 HEAD\n1 CHAR UNICODE\n0 TRLR\nx\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    write(&dir, "le.ged", &le);
    let out = fix_in(
        &dir,
        &["--to-encoding", "UTF-16BE", "le.ged", "-o", "o.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let said = "line 4: the 4 octets after the trailer are copied as they are, still UTF-16LE";
    assert!(stderr(&out).contains(said), "{}", stderr(&out));
    write(&dir, "ascii.ged", b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n\x1a");
    let out = fix_in(
        &dir,
        &["--to-encoding", "windows-1252", "ascii.ged", "-o", "o.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("after the trailer"),
        "{}",
        stderr(&out)
    );
}

/// `--set` writes new text in the encoding the file was read with: while that reading is in doubt, text that
/// is not ASCII is refused as a transcode is, with the same hint (issue 11, N1).
#[test]
fn set_refuses_new_text_while_the_reading_is_in_doubt() {
    let dir = temp_dir(SUITE, "set_in_doubt");
    let path = write(&dir, "f.ged", ANSI_LABEL_UTF8);
    let out = fix_in(&dir, &["--set", "@I1@.NAME=José", "--in-place", "f.ged"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert_eq!(std::fs::read(&path).expect("read"), ANSI_LABEL_UTF8);
    assert_cli_snapshot!("transcode_safety_set_in_doubt_refused", stderr(&out));
    let out = fix_in(
        &dir,
        &[
            "--encoding",
            "UTF-8",
            "--set",
            "@I1@.NAME=José",
            "--in-place",
            "f.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let written = std::fs::read(&path).expect("read");
    assert!(written.windows(5).any(|w| w == "José".as_bytes()));
}

/// GEDCOM 5.5.5 allows UTF-8 and UTF-16 only: a transcode to windows-1252 is refused, and `check` reports a
/// 5.5.5 file in another encoding (issue 11, N2).
#[test]
fn gedcom_555_stays_utf8_or_utf16() {
    let dir = temp_dir(SUITE, "gedcom555");
    let header = "0 HEAD\n1 GEDC\n2 VERS 5.5.5\n2 FORM LINEAGE-LINKED\n3 VERS 5.5.5\n";
    write(
        &dir,
        "u.ged",
        format!("{header}1 CHAR UTF-8\n0 TRLR\n").as_bytes(),
    );
    let out = fix_in(
        &dir,
        &["--to-encoding", "windows-1252", "u.ged", "-o", "o.ged"],
    );
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(!dir.join("o.ged").exists());
    let out2 = fix_in(&dir, &["--to-encoding", "UTF-16", "u.ged", "-o", "o.ged"]);
    assert_eq!(exit_code(&out2), 0, "{}", stderr(&out2));
    write(
        &dir,
        "a.ged",
        format!("{header}1 CHAR ANSEL\n0 TRLR\n").as_bytes(),
    );
    let check = gedgraft_in(&dir, &["check", "a.ged"]);
    assert_eq!(exit_code(&check), 1);
    assert_cli_snapshot!(
        "transcode_safety_gedcom555_encodings",
        format!("{}{}", stderr(&out), stdout_lossy(&check))
    );
}

/// `HEAD.GEDC.VERS` and `HEAD.ELF` decide the dialect, and with it how every line is read: `--set`,
/// `--delete` and `--rename-tag` leave them alone (issue 11, N3).
#[test]
fn edits_that_change_the_dialect_are_refused() {
    let dir = temp_dir(SUITE, "dialect_edits");
    let input = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 TRLR\n";
    let path = write(&dir, "g7.ged", input);
    let mut refusals = String::new();
    for edit in [
        ["--set", "HEAD.GEDC.VERS=5.5.1"],
        ["--delete", "HEAD.GEDC"],
        ["--rename-tag", "GEDC=_G"],
    ] {
        let out = fix_in(&dir, &[edit[0], edit[1], "--in-place", "g7.ged"]);
        assert_eq!(exit_code(&out), 2, "{edit:?}: {}", stderr(&out));
        assert_eq!(std::fs::read(&path).expect("read"), input);
        refusals.push_str(&stderr(&out));
    }
    assert_cli_snapshot!("transcode_safety_dialect_edits_refused", refusals);
}
