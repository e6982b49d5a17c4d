//! Records after the trailer (issue #11): an export appended to another is read as records of a malformed
//! file (R-TAGGED-STRUCTS-03, -05), so whole-file edits, selections and the lowering reach them; octets after
//! the trailer that are not lines stay as they are. Snapshots are in `snapshots/cli/` at the workspace root.

#[macro_use]
mod common;

use common::{gedgraft_in, stderr, stdout, stdout_lossy, write};
use std::path::PathBuf;

/// An appended export, then a saved web page and a DOS end-of-file mark.
const APPENDED: &[u8] = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ann /Old/\n0 TRLR\n0 @I9@ INDI\n\
1 NAME Bob /Late/\n2 GIVN Bob\n0 @F1@ FAM\n1 HUSB @I9@\n0 TRLR\n<html>\n1 NAME not a record\n</html>\n\x1a";

/// A fresh directory for one test, holding `f.ged` with `APPENDED`.
fn temp_dir(test: &str) -> PathBuf {
    let dir = common::temp_dir("gedgraft-after-trailer", test);
    write(&dir, "f.ged", APPENDED);
    dir
}

#[test]
fn rename_tag_reaches_records_after_the_trailer_and_not_the_junk() {
    let dir = temp_dir("rename");
    let out = gedgraft_in(&dir, &["fix", "--rename-tag", "NAME=_NAM", "f.ged"]);
    assert_eq!(out.status.code(), Some(0));
    let diff = stdout(&out);
    assert!(diff.contains("+1 _NAM Bob /Late/\n"), "{diff}");
    assert!(!diff.contains("_NAM not a record"), "{diff}");
    assert_eq!(stderr(&out), "f.ged: would change: 2 edits, -2 +2 lines\n");
    assert_cli_snapshot!("after_trailer_rename_tag", diff);
    // Written: only the two NAME lines change; the junk is kept octet for octet.
    let out = gedgraft_in(
        &dir,
        &["fix", "--rename-tag", "NAME=_NAM", "f.ged", "-o", "out.ged"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = std::fs::read(dir.join("out.ged")).expect("read output");
    let want = String::from_utf8_lossy(APPENDED)
        .replacen("1 NAME Ann", "1 _NAM Ann", 1)
        .replacen("1 NAME Bob", "1 _NAM Bob", 1);
    assert_eq!(written, want.as_bytes());
}

#[test]
fn selections_and_the_lowering_reach_records_after_the_trailer() {
    let dir = temp_dir("select");
    let out = gedgraft_in(&dir, &["fix", "--delete", "@I9@.NAME.GIVN", "f.ged"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout_lossy(&out).contains("-2 GIVN Bob\n"));
    let out = gedgraft_in(&dir, &["lower", "f.ged"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let xrefs: Vec<&str> = json["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["xref"].as_str())
        .collect();
    assert_eq!(xrefs, ["I1", "I9", "F1"]);
    let codes: Vec<&str> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"record-after-trailer"), "{codes:?}");
    assert!(codes.contains(&"content-after-trailer"), "{codes:?}");
    // check reports the first record after the trailer with its line.
    let out = gedgraft_in(&dir, &["check", "f.ged"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout_lossy(&out).contains("error[record-after-trailer]"));
}
