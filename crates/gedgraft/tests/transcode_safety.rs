//! `gedgraft fix` never changes what a file means behind the user's back (issue 11): `--to-encoding` refuses a
//! file whose reading is in doubt (exit 2, the file named, nothing written) until `--encoding NAME` names the
//! reading, `--rename-tag` leaves the header's serialisation metadata alone, `HEAD.CHAR` is written as genealogy
//! programs read it, an irreversible transcode warns, `--rewrap` splits only long lines (in ANSEL never between
//! a diacritic and its letter) and `--join-conc` joins. Snapshots are in `snapshots/cli/` at the workspace root;
//! corpus files are read from `../shared/corpus` (skipped when missing, unless `CI` is set).

#[macro_use]
mod common;

use common::{corpus_file, exit_code, fix_in, stderr, stdout_lossy, temp_dir, write};
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
fn ansel_to_utf8_warns_about_the_octets_that_cannot_come_back() {
    let Some(ansel) = corpus_file("gedcom4j/sample/ANSEL.GED") else {
        return;
    };
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

/// Lines that end with an ANSEL diacritic and are followed by a `CONC` line.
fn marks_before_conc(bytes: &[u8]) -> usize {
    let lines: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n' || b == b'\r')
        .filter(|l| !l.is_empty())
        .collect();
    lines
        .windows(2)
        .filter(|w| {
            w[0].last()
                .is_some_and(|&o| (0xE0..=0xFE).contains(&o) && o != 0xFD)
                && w[1].windows(6).any(|x| x == b" CONC ")
        })
        .count()
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
    let lowered = |path: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_gedgraft"))
            .args(["lower", path])
            .current_dir(&dir)
            .output()
            .expect("lower");
        let mut json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        without_lines(&mut json["records"]);
        json["records"].clone()
    };
    assert!(
        lowered("f.ged") == lowered("out.ged"),
        "the lowered records differ"
    );
    if let Some(ansel) = corpus_file("gedcom4j/sample/ANSEL.GED") {
        std::fs::copy(&ansel, dir.join("ANSEL.GED")).expect("copy");
        let out = fix_in(&dir, &["--rewrap=32", "ANSEL.GED", "-o", "rewrapped.ged"]);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        let written = std::fs::read(dir.join("rewrapped.ged")).expect("out");
        assert_eq!(marks_before_conc(&written), 0);
        assert!(
            lowered("ANSEL.GED") == lowered("rewrapped.ged"),
            "the lowered records differ"
        );
    }
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
}
