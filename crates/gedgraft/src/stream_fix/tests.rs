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

/// Repairs with other edits stream when the file has nothing to repair (#17); not when it has (the
/// hint of an unsafe repair that `--repair` leaves counts), nor for repairs alone (their own path).
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
        let all = ["gedgraft", "fix", path_arg, "-o", "o.ged"];
        let cli = crate::cli::Cli::parse_from(all.iter().chain(args));
        let crate::cli::Command::Fix(args) = cli.command else {
            panic!("not fix");
        };
        let plan = Plan::new(&args).expect("a plan");
        streams_file(&path, &args, &plan, &ParseOptions::default())
    };
    let clean = format!("{head}0 @I1@ INDI\n1 CHAN\n0 TRLR\n");
    let rename = ["--repair", "--rename-tag", "CHAN=_CHN"];
    assert!(streams_file_with(&clean, &rename));
    assert!(streams_file_with(
        &clean,
        &["--repair-unsafe", "--escape-at"]
    ));
    assert!(!streams_file_with(&clean, &["--repair"]));
    // A blank line (a safe repair), a level jump (an unsafe one).
    assert!(!streams_file_with(
        &format!("{head}\n0 @I1@ INDI\n0 TRLR\n"),
        &rename
    ));
    let jump = format!("{head}0 @I1@ INDI\n1 BIRT\n3 DATE 1900\n0 TRLR\n");
    assert!(!streams_file_with(&jump, &rename));
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
