//! Which `fix` invocations stream ([`super::streams`], [`super::streams_file`]); `tests/streaming.rs` compares
//! the outputs of both paths.

use super::*;
use clap::Parser;

/// Whether `gedgraft fix ARGS…` streams (the outputs of both paths are compared in `tests/streaming.rs`;
/// this says which path they took).
fn streams_with(args: &[&str]) -> bool {
    let cli = crate::cli::Cli::parse_from(["gedgraft", "fix"].iter().chain(args));
    let crate::cli::Command::Fix(args) = cli.command else {
        panic!("not fix");
    };
    let plan = Plan::new(&args).expect("a plan");
    streams(&args, &plan)
}

/// Repairs with other edits stream (#17): as without repairs when the file has nothing to repair, with the
/// repairs made first when it has (the hint of an unsafe repair that `--repair` leaves counts); not repairs
/// alone (their own path).
#[test]
fn repairs_with_other_edits_stream_when_there_is_nothing_to_repair() {
    let dir = tempfile::tempdir().expect("a directory");
    let head = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";
    let files = std::cell::Cell::new(0);
    let streams_file_with = |text: &str, args: &[&str]| {
        // A file of its own each time: a command must not see a file change between its reads.
        files.set(files.get() + 1);
        let path = dir.path().join(format!("f{}.ged", files.get()));
        std::fs::write(&path, text).expect("written");
        let path_arg = path.to_str().expect("a UTF-8 path");
        let out = match args.contains(&"-o") {
            true => &[][..],
            false => &["-o", "o.ged"][..],
        };
        let all = [&["gedgraft", "fix", path_arg][..], out, args].concat();
        let cli = crate::cli::Cli::parse_from(all);
        let crate::cli::Command::Fix(args) = cli.command else {
            panic!("not fix");
        };
        let plan = Plan::new(&args).expect("a plan");
        let reading = streams_file(&path, &args, &plan, &ParseOptions::default());
        match reading.expect("read") {
            Reading::Whole => None,
            Reading::Streamed(repairs) => Some(repairs.is_some()),
        }
    };
    let clean = format!("{head}0 @I1@ INDI\n1 CHAN\n0 TRLR\n");
    let rename = ["--repair", "--rename-tag", "CHAN=_CHN"];
    assert_eq!(streams_file_with(&clean, &rename), Some(false));
    assert_eq!(
        streams_file_with(&clean, &["--repair-unsafe", "--escape-at"]),
        Some(false)
    );
    assert_eq!(streams_file_with(&clean, &["--repair"]), None);
    // A blank line (a safe repair), a level jump (an unsafe one, whose hint `--repair` leaves): repaired
    // first, then streamed with the repairs.
    let blank = format!("{head}\n0 @I1@ INDI\n0 TRLR\n");
    assert_eq!(streams_file_with(&blank, &rename), Some(true));
    let jump = format!("{head}0 @I1@ INDI\n1 BIRT\n3 DATE 1900\n0 TRLR\n");
    assert_eq!(streams_file_with(&jump, &rename), Some(true));
    // Into a standard stream too (through a temporary file: a repair across a cut sends the file to the
    // whole-file path); with edits that make a first pass of their own too (it reads the batches repaired).
    let to_stdout = ["--repair", "--escape-at", "-o", "-"];
    assert_eq!(streams_file_with(&blank, &to_stdout), Some(true));
    let pointer = ["--repair", "--set-pointer", "@I1@.FAMS=F1"];
    assert_eq!(streams_file_with(&blank, &pointer), Some(true));
    let xref = ["--repair", "--set-xref", "@I1@=P1", "-o", "-"];
    assert_eq!(streams_file_with(&blank, &xref), Some(true));
    // Records after the trailer moved before it: the whole file's diff aligns the move.
    let after = format!("{head}0 TRLR\n0 @I1@ INDI\n");
    assert_eq!(streams_file_with(&after, &rename), None);
}

#[test]
fn new_identifiers_stream_in_two_passes_unless_deletions_or_new_pointers_count_pointers_to_them() {
    assert!(streams_with(&[
        "f.ged",
        "-o",
        "o.ged",
        "--set-xref",
        "@I1@=P1"
    ]));
    assert!(streams_with(&[
        "f.ged",
        "--set-xref",
        "@I1@=P1",
        "--set",
        "@I1@.NOTE=n"
    ]));
    assert!(streams_with(&[
        "f.ged",
        "-o",
        "o.ged",
        "--set-xref",
        "@I1@="
    ]));
    assert!(!streams_with(&[
        "f.ged",
        "--set-xref",
        "@I1@=P1",
        "--delete",
        "FAM"
    ]));
    assert!(!streams_with(&[
        "f.ged",
        "--set-xref",
        "@I1@=P1",
        "--set-pointer",
        "@I2@.FAMS=F1"
    ]));
}

#[test]
fn a_transcode_and_a_rewrap_stream_after_other_stages_too() {
    assert!(streams_with(&[
        "f.ged",
        "-o",
        "o.ged",
        "--to-encoding",
        "ansel"
    ]));
    assert!(streams_with(&[
        "f.ged",
        "--to-encoding",
        "ansel",
        "--eol",
        "crlf"
    ]));
    assert!(streams_with(&[
        "f.ged",
        "--to-encoding",
        "ansel",
        "--delete",
        "FAM"
    ]));
    assert!(streams_with(&[
        "f.ged",
        "--rename-tag",
        "A=B",
        "--rewrap=40"
    ]));
    assert!(streams_with(&["f.ged", "--rewrap=40"]));
}

#[test]
fn the_review_diff_and_a_patch_stream_but_not_the_repairs() {
    assert!(streams_with(&["f.ged", "--rename-tag", "A=B"]));
    assert!(streams_with(&["f.ged", "--rename-tag", "A=B", "--patch"]));
    assert!(!streams_with(&["f.ged", "--repair", "--patch"]));
}
