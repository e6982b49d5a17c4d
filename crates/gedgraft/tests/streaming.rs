//! The command line streams record by record (DESIGN.md invariant 9) and gives the same output as the
//! whole-file path (`GEDGRAFT_WHOLE_FILE=1`): the same octets, warnings, summary and exit status, on every
//! corpus file and on generated files, in small batches (`GEDGRAFT_BATCH_SIZE`) so that every file is cut.

mod common;

use common::{corpus_dir, gedgraft_command, temp_dir, write};
use std::path::{Path, PathBuf};

/// What a run gave: exit status, standard output, standard error, the output file.
type Outcome = (Option<i32>, Vec<u8>, Vec<u8>, Option<Vec<u8>>);

fn run(dir: &Path, args: &[&str], whole: bool, out: Option<&Path>) -> Outcome {
    match whole {
        true => run_env(dir, args, &[("GEDGRAFT_WHOLE_FILE", "1")], out),
        false => run_env(dir, args, &[("GEDGRAFT_BATCH_SIZE", "300")], out),
    }
}

/// `gedgraft ARGS…` with the environment variables `env`.
fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)], out: Option<&Path>) -> Outcome {
    if let Some(o) = out {
        let _ = std::fs::remove_file(o);
    }
    let mut command = gedgraft_command(dir, args);
    command.envs(env.iter().copied());
    let output = command.output().expect("run gedgraft");
    let written = out.and_then(|o| std::fs::read(o).ok());
    (output.status.code(), output.stdout, output.stderr, written)
}

/// `fix FILE -o OUT EDITS…` streamed and whole; the differences, if any.
fn fix_difference(dir: &Path, file: &Path, edits: &[&str]) -> Option<String> {
    let out = dir.join("out.ged");
    let mut args = vec!["fix", file.to_str()?, "-o", out.to_str()?];
    args.extend_from_slice(edits);
    let streamed = run(dir, &args, false, Some(&out));
    let whole = run(dir, &args, true, Some(&out));
    (streamed != whole).then(|| {
        format!(
            "{} {edits:?}: streamed {:?} {} vs whole {:?} {}",
            file.display(),
            streamed.0,
            String::from_utf8_lossy(&streamed.2),
            whole.0,
            String::from_utf8_lossy(&whole.2)
        )
    })
}

/// The edits `fix` streams (local to a record), with selectors that match in some batches and not in others.
const EDITS: &[&[&str]] = &[
    &[],
    &["--rename-tag", "NOTE=_NOTE"],
    &["--delete", "INDI.NOTE", "--delete", "_NOPE"],
    &["--delete", "FAM"],
    &["--delete", "@I1@"],
    &["--escape-at"],
    &["--eol", "crlf"],
    &["--eol", "lf", "--join-lf-cr"],
    &[
        "--select",
        "INDI",
        "--escape-at",
        "--rename-tag",
        "NAME=_NAME",
    ],
    &["--delete", "SOUR", "--eol", "cr", "--quiet"],
    &[
        "--set",
        "INDI.NAME=José /Smith/ me@x",
        "--set",
        "@I1@.NOTE=n",
    ],
    &["--set", "@NOPE@.NAME=x", "--set", "HEAD.NOTE=y"],
    // A `--set` of what a `--delete` before it removes picks nothing, as in the whole file (found by a helper).
    &[
        "--delete",
        "@I1@",
        "--set",
        "@I1@.NAME=x",
        "--set",
        "@I2@.NAME=y",
    ],
    &["--rewrap=20"],
    &["--rewrap=30", "--join-conc", "--select", "FAM"],
    &["--join-conc"],
    &[
        "--set-pointer",
        "@I2@.FAMS=F29",
        "--set-pointer",
        "@I3@.FAMS=I99",
    ],
    &["--set-pointer", "INDI.FAMS=NOPE", "--delete", "@F1@"],
    &[
        "--delete",
        "@I99@",
        "--set-pointer",
        "@I4@.FAMS=I99",
        "--set",
        "@I5@.NAME=x",
    ],
    // A transcode: `HEAD.CHAR` and a byte-order mark in the first batch only, a summed `not reversible`.
    &["--to-encoding", "utf-8"],
    &["--to-encoding", "ansel", "--eol", "crlf"],
    &["--to-encoding", "utf-16le"],
    &["--to-encoding", "utf-16le", "--rewrap=40"],
    &[
        "--rename-tag",
        "NOTE=_NOTE",
        "--delete",
        "SOUR",
        "--rewrap=25",
    ],
    // A transcode and a re-wrap after another stage: each reads the batch placed at its line in the file the
    // stages before it made, so their messages name the whole-file path's lines.
    &[
        "--to-encoding",
        "ascii",
        "--rewrap=40",
        "--delete",
        "INDI.NOTE",
    ],
    // New identifiers: a first pass finds them, pointers in every batch follow; swaps, and the errors of an
    // identifier given twice or kept by another structure; removals, whose dangling pointers are counted in
    // every batch.
    &["--set-xref", "@I1@=P1"],
    &[
        "--set-xref",
        "@I1@=I2",
        "--set-xref",
        "@I2@=I1",
        "--rename-tag",
        "NAME=_NAME",
    ],
    &["--set-xref", "@F1@=I3"],
    &["--set-xref", "INDI=Q", "--select", "INDI"],
    &["--set-xref", "@I1@=", "--set", "@I2@.NOTE=n"],
    &["--set-xref", "@F1@=", "--set-xref", "@I2@=F1"],
];

fn files_under(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, found);
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ged"))
        {
            found.push(path);
        }
    }
}

/// The corpus's `.ged` files, sorted (at least 100 of them).
fn sorted_corpus() -> Vec<PathBuf> {
    let mut files = Vec::new();
    files_under(&corpus_dir(), &mut files);
    files.sort();
    assert!(files.len() > 100, "only {} corpus files", files.len());
    files
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn fix_streamed_equals_fix_whole_on_the_corpus() {
    let dir = temp_dir("streaming", "fix_corpus");
    let files = sorted_corpus();
    let mut failures = Vec::new();
    for (i, file) in files.iter().enumerate() {
        // Every file written back; the edits on every third file (each edit on a third of the corpus).
        let edits: Vec<&[&str]> = if i % 3 == 0 {
            EDITS.to_vec()
        } else {
            vec![EDITS[0], EDITS[1 + i % (EDITS.len() - 1)]]
        };
        for e in edits {
            failures.extend(fix_difference(&dir, file, e));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A generated file with what crosses batches: pointers to records deleted in other batches, runs of one
/// diagnostic across cuts, `@` signs, notes, a 7.0 header (whose `@` rules every batch must follow), records
/// after a trailer.
fn generated(version: &str) -> Vec<u8> {
    let mut s = format!("0 HEAD\n1 GEDC\n2 VERS {version}\n1 CHAR UTF-8\n");
    for i in 0..60 {
        s.push_str(&format!(
            "0 @I{i}@ INDI\n1 NAME Ann{i} /Smith/\n1 FAMS @F{}@\n",
            i / 2
        ));
        if i % 4 == 0 {
            s.push_str("1 NOTE mail me@example.com\n2 CONT @ home\n\n\n");
        }
        if i % 7 == 0 {
            s.push_str("1 EMAIL @x\n1 _X y\r\n");
        }
    }
    for f in 0..30 {
        s.push_str(&format!(
            "0 @F{f}@ FAM\n1 HUSB @I{}@\n1 NOTE @I1@ was here\n",
            2 * f
        ));
    }
    s.push_str("0 @S1@ SOUR\n1 TITL t\n0 TRLR\n0 @I99@ INDI\n1 FAMC @F1@\n0 TRLR\n");
    s.into_bytes()
}

#[test]
fn fix_streamed_equals_fix_whole_on_generated_files() {
    let dir = temp_dir("streaming", "fix_generated");
    let mut failures = Vec::new();
    for version in ["5.5.1", "7.0"] {
        let file = write(&dir, &format!("g{version}.ged"), &generated(version));
        for e in EDITS {
            failures.extend(fix_difference(&dir, &file, e));
        }
        failures.extend(fix_difference(&dir, &file, &["--delete", "TRLR"]));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `fix FILE EDITS…` without `-o`: the review diff, made batch by batch (each batch's diff joined to the
/// file's, context and hunks across cuts), is the whole file's, and so are the summary and the exit status.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn review_diff_streamed_equals_review_diff_whole_on_the_corpus() {
    let dir = temp_dir("streaming", "review_corpus");
    let files = sorted_corpus();
    let mut failures = Vec::new();
    for (i, file) in files.iter().enumerate() {
        // Two edits per file, each edit on a fifth of the corpus or more.
        for k in [1 + i % (EDITS.len() - 1), 1 + (i + 7) % (EDITS.len() - 1)] {
            failures.extend(command_difference(&dir, "fix", file, EDITS[k]));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn review_diff_streamed_equals_review_diff_whole_on_generated_files() {
    let dir = temp_dir("streaming", "review_generated");
    let mut failures = Vec::new();
    for version in ["5.5.1", "7.0"] {
        let file = write(&dir, &format!("g{version}.ged"), &generated(version));
        for e in EDITS {
            failures.extend(command_difference(&dir, "fix", &file, e));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `--patch` streams: the batches' octet patches joined (hunks and context across cuts) are the whole file's
/// patch, octet for octet, with the same summary and status; where the batches cannot make it (a change after
/// the last line break, UTF-16), the whole-file path does, with the same result.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn patch_streamed_equals_patch_whole() {
    let dir = temp_dir("streaming", "patch");
    let mut failures = Vec::new();
    let with_patch = |e: &[&'static str]| -> Vec<&'static str> {
        ["--patch"].iter().chain(e.iter()).copied().collect()
    };
    for version in ["5.5.1", "7.0"] {
        let file = write(&dir, &format!("g{version}.ged"), &generated(version));
        for e in EDITS {
            failures.extend(command_difference(&dir, "fix", &file, &with_patch(e)));
        }
    }
    for (i, file) in sorted_corpus().iter().enumerate() {
        let k = 1 + (i + 3) % (EDITS.len() - 1);
        failures.extend(command_difference(&dir, "fix", file, &with_patch(EDITS[k])));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A `0 HEAD` that is not the file's first record is a record like any other, streamed as whole: renaming a
/// tag inside it is not renaming the header's metadata (a later batch has no header; found by a helper testing
/// the tool, both files refused streamed and renamed whole).
#[test]
fn a_second_head_record_is_not_the_header_streamed_as_whole() {
    let dir = temp_dir("streaming", "second_head");
    let out = dir.join("out.ged");
    for (name, text) in [
        (
            "second.ged",
            &b"0 HEAD\n0 HEAD\n1 CHAR UTF-8\n2 NOTE same\n"[..],
        ),
        (
            "not-first.ged",
            b"0 @I1@ INDI\n0 HEAD\n1 GEDC\n2 NOTE same\n",
        ),
    ] {
        write(&dir, name, text);
        let args = ["fix", name, "--rename-tag", "NOTE=_NOTE", "-o", "out.ged"];
        let whole = run(&dir, &args, true, Some(&out));
        let streamed = run_env(&dir, &args, &[("GEDGRAFT_BATCH_SIZE", "1")], Some(&out));
        assert_eq!(
            whole.0,
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&whole.2)
        );
        assert_eq!(streamed, whole, "{name}");
        let written = String::from_utf8(whole.3.unwrap_or_default()).unwrap_or_default();
        assert!(written.ends_with("2 _NOTE same\n"), "{name}: {written}");
    }
}

/// A record's new lines take the record's own style, streamed as whole: `--rewrap` gave the new `CONC` lines
/// the indentation of a line of the record before it in the whole file (found by a helper), none streamed,
/// where that record was in another batch.
#[test]
fn a_record_takes_its_own_style_streamed_as_whole() {
    let dir = temp_dir("streaming", "own_style");
    let out = dir.join("out.ged");
    let text = b"0 @I3@ INDI\n0 @@ X\n 1 NAME lead\n0 @N1@ NOTE some note long enough to be rewrapped at 32\n";
    write(&dir, "f.ged", text);
    let args = ["fix", "f.ged", "--rewrap=32", "-o", "out.ged"];
    let whole = run(&dir, &args, true, Some(&out));
    let streamed = run_env(&dir, &args, &[("GEDGRAFT_BATCH_SIZE", "1")], Some(&out));
    assert_eq!(whole.0, Some(0), "{}", String::from_utf8_lossy(&whole.2));
    assert_eq!(streamed, whole);
    let written = String::from_utf8(whole.3.unwrap_or_default()).unwrap_or_default();
    assert!(written.contains("\n1 CONC "), "{written}");
}

/// New lines where a batch has no line break of its own (a batch that is the file's last line, without one)
/// take the file's line break, streamed as whole: a batch cannot see the batches before it, and took LF in
/// files of CR LF or CR (`missing-trailer`'s repair in `check`, the `CONC` lines of `--rewrap`, the `CONT`
/// lines of `--set`); a stage after `--eol` takes the converted one, the batch itself unchanged by it.
#[test]
fn a_batch_without_a_line_break_takes_the_files_streamed_as_whole() {
    let dir = temp_dir("streaming", "break_before");
    let out = dir.join("out.ged");
    let out_path = out.to_str().expect("UTF-8");
    let long = "x".repeat(300);
    let edits: &[&[&str]] = &[
        &["--rewrap"],
        &["--set", "@N1@=a\nb"],
        &["--eol", "lf", "--rewrap"],
        &["--eol", "cr", "--set", "@N1@=a\nb", "--rewrap=40"],
    ];
    let sizes: &[&str] = &["1", "2", "700"];
    let mut failures = Vec::new();
    for (form, brk) in [
        ("crlf", "\r\n"),
        ("cr", "\r"),
        ("lf", "\n"),
        ("lfcr", "\n\r"),
    ] {
        let files = [
            format!("0 HEAD{brk}0 @I1@ INDI"),
            format!("0 HEAD{brk}0 @N1@ NOTE {long}"),
            format!("0 HEAD{brk}1 CHAR UTF-8{brk}0 @I1@ INDI{brk}1 NAME A{brk}0 @N1@ NOTE {long}"),
        ];
        for (i, text) in files.iter().enumerate() {
            let file = write(&dir, &format!("{form}{i}.ged"), text.as_bytes());
            let path = file.to_str().expect("UTF-8");
            for args in [CHECKS[0], CHECKS[1]] {
                let mut all = vec!["check", path];
                all.extend_from_slice(args);
                failures.extend(sizes_difference(&dir, &all, (sizes, &[]), None));
                let two = [("GEDGRAFT_TWO_PASS", "1")];
                failures.extend(sizes_difference(&dir, &all, (sizes, &two), None));
            }
            for edit in edits {
                let mut all = vec!["fix", path, "-o", out_path];
                all.extend_from_slice(edit);
                failures.extend(sizes_difference(&dir, &all, (sizes, &[]), Some(&out)));
                let mut all = vec!["fix", "--check", path];
                all.extend_from_slice(edit);
                failures.extend(sizes_difference(&dir, &all, (sizes, &[]), None));
                failures.extend(in_place_difference(&dir, text.as_bytes(), edit));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // What both give: the file's own line break.
    let json = ["check", "--format", "json", "crlf0.ged"];
    let streamed = run_env(&dir, &json, &[("GEDGRAFT_BATCH_SIZE", "1")], None);
    let stdout = String::from_utf8_lossy(&streamed.1);
    assert!(
        stdout.contains(r#""replacement":"\r\n0 TRLR\r\n""#),
        "{stdout}"
    );
    let rewrap = ["fix", "cr1.ged", "--rewrap", "-o", out_path];
    let streamed = run_env(&dir, &rewrap, &[("GEDGRAFT_BATCH_SIZE", "1")], Some(&out));
    let written = String::from_utf8(streamed.3.unwrap_or_default()).unwrap_or_default();
    assert!(
        written.contains("\r1 CONC x") && !written.contains('\n'),
        "{written:?}"
    );
}

/// A first batch whose records are all deleted leaves its byte-order mark alone, inside a line the whole file's
/// diff reads on into the next record: the review diff and the patch are the whole file's (the whole-file path
/// makes them), not a lone `+[BOM]` without a line break.
#[test]
fn a_batch_left_inside_a_line_is_diffed_as_the_whole_file() {
    let dir = temp_dir("streaming", "inside_a_line");
    write(
        &dir,
        "bom.ged",
        b"\xEF\xBB\xBF0 @F1@ FAM\n1 HUSB @I1@\n0 @I1@ INDI\n1 NAME A\n0 TRLR\n",
    );
    for extra in [&[][..], &["--patch"]] {
        let mut args = vec!["fix", "bom.ged", "--delete", "FAM"];
        args.extend_from_slice(extra);
        let whole = run(&dir, &args, true, None);
        let streamed = run_env(&dir, &args, &[("GEDGRAFT_BATCH_SIZE", "1")], None);
        assert_eq!(whole.0, Some(0), "{}", String::from_utf8_lossy(&whole.2));
        assert_eq!(
            (
                String::from_utf8_lossy(&streamed.1),
                String::from_utf8_lossy(&streamed.2)
            ),
            (
                String::from_utf8_lossy(&whole.1),
                String::from_utf8_lossy(&whole.2)
            ),
            "{extra:?}"
        );
        assert!(
            String::from_utf8_lossy(&whole.2).contains("-3 +1 lines"),
            "{extra:?}"
        );
    }
}

/// Text after the trailer that ends with a line break ends no batch inside a line (one fact for the streamed
/// fix and the streamed diff: `green_view::ends_with_line_break`); without one, it does. Either way the
/// review diff, the patch and the `-o` summary are the whole file's, in one batch and in many.
#[test]
fn text_after_the_trailer_ends_a_batch_as_its_last_octet_says() {
    let dir = temp_dir("streaming", "after_trailer_end");
    let mut failures = Vec::new();
    for (name, tail) in [
        ("lf.ged", "after\n"),
        ("none.ged", "after"),
        ("crlf.ged", "x\r\n"),
    ] {
        let text =
            format!("0 HEAD\n1 CHAR UTF-8\n0 @F1@ FAM\n1 HUSB @I1@\n0 @I1@ INDI\n0 TRLR\n{tail}");
        let file = write(&dir, name, text.as_bytes());
        for edits in [&["--delete", "FAM"][..], &["--rename-tag", "INDI=_IND"]] {
            failures.extend(fix_difference(&dir, &file, edits));
            for extra in [&[][..], &["--patch"]] {
                let mut args: Vec<&str> = vec!["fix", name];
                args.extend_from_slice(edits);
                args.extend_from_slice(extra);
                failures.extend(sizes_difference(&dir, &args, (&["1", "100000"], &[]), None));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The `-o` summary's line counts when the first batch loses all its records but the byte-order mark: the
/// mark joins the next batch's first line in the whole file (`-3 +1`, not `-2 +1`); the whole-file path
/// counts them (nothing is written before).
#[test]
fn a_batch_left_inside_a_line_is_counted_as_the_whole_file() {
    let dir = temp_dir("streaming", "inside_a_line_counted");
    let bom = "\u{FEFF}0 @F1@ FAM\n1 HUSB @I1@\n";
    let files = [
        format!("{bom}0 @I1@ INDI\n1 NAME A\n0 TRLR\n"),
        format!("{bom}0 @F2@ FAM\n0 @I1@ INDI\n1 NAME A\n0 TRLR\n"),
        format!("{bom}0 @F2@ FAM\n"),
        // Found by a helper's differential run: two records deleted in the first batch at the default size,
        // and a last line without a line break.
        "\u{FEFF}0 @I1@ INDI\n0 @I2@ INDI\n0 TRLR\n".to_string(),
        "\u{FEFF}0 @I1@ INDI\n0 TRLR".to_string(),
    ];
    let edits: &[&[&str]] = &[
        &["--delete", "FAM"],
        &["--delete", "INDI"],
        &["--delete", "FAM", "--rename-tag", "INDI=_IND"],
        &["--delete", "FAM", "--set", "INDI.NAME=B"],
    ];
    let out = dir.join("out.ged");
    let mut failures = Vec::new();
    for (i, text) in files.iter().enumerate() {
        let file = write(&dir, &format!("bom{i}.ged"), text.as_bytes());
        for edit in edits {
            let mut args = vec![
                "fix",
                file.to_str().expect("UTF-8"),
                "-o",
                out.to_str().expect("UTF-8"),
            ];
            args.extend_from_slice(edit);
            let sizes = (&["1", "1000000"][..], &[][..]);
            failures.extend(sizes_difference(&dir, &args, sizes, Some(&out)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let file = dir.join("bom0.ged");
    let args = [
        "fix",
        file.to_str().expect("UTF-8"),
        "-o",
        out.to_str().expect("UTF-8"),
        "--delete",
        "FAM",
    ];
    let streamed = run_env(&dir, &args, &[("GEDGRAFT_BATCH_SIZE", "1")], Some(&out));
    assert!(String::from_utf8_lossy(&streamed.2).contains("-3 +1 lines"));
}

/// `--delete` of records others point at warns as the whole-file path does, though the pointers are in other
/// batches (the identifiers are gathered across batches).
#[test]
fn dangling_pointers_are_counted_across_batches() {
    let dir = temp_dir("streaming", "dangling");
    let file = write(&dir, "g.ged", &generated("5.5.1"));
    let out = dir.join("out.ged");
    let args = [
        "fix", "g.ged", "-o", "out.ged", "--delete", "@I0@", "--delete", "@F1@",
    ];
    let (code, _, stderr, _) = run(&dir, &args, false, Some(&out));
    assert_eq!(code, Some(0));
    let stderr = String::from_utf8_lossy(&stderr);
    assert!(
        stderr.contains("warning: 1 pointer to `@I0@` points at no structure"),
        "{stderr}"
    );
    // `@F1@` is named by I2 and I3 near the start and by I99 after the trailer, batches apart.
    assert!(
        stderr.contains("warning: 3 pointers to `@F1@` point at no structure"),
        "{stderr}"
    );
    let _ = file;
}

/// Files whose pointers lead to no record (R-POINTER-CONV-10) where `check` in one pass reads again only the
/// batches from the first that holds one (#17): the report is the whole file's in batches of one record, of
/// two and of a few, human (with `--all`, `--no-warnings`) and JSON; and so is the JSON of `lower` into a
/// file, which takes back what it wrote from that batch on and writes on from there. The files put what the report written
/// again carries over to test it: a pointer leading nowhere in the header's batch, the first record, the
/// middle and the last; a run of `unescaped-at` across cuts up to it (the batches are read again from where
/// the run starts); more `undefined-pointer`s than are shown (the count of those left out); pointers to a
/// substructure before and after it (shown once more than in one pass until the limit); other warnings after.
#[test]
fn dangling_pointers_are_checked_again_from_their_batch_as_whole() {
    let dir = temp_dir("streaming", "dangling_again");
    let head = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";
    let records = |n: usize, at: &[(usize, &str)]| {
        let mut text = head.to_string();
        for i in 0..n {
            text.push_str(&format!("0 @I{i}@ INDI\n1 NAME A{i} /B/\n"));
            for (_, line) in at.iter().filter(|(k, _)| *k == i) {
                text.push_str(line);
                text.push('\n');
            }
        }
        text + "0 TRLR\n"
    };
    let nowhere = "1 ASSO @NOWHERE@";
    let notes_run: Vec<(usize, &str)> = (4..9).map(|i| (i, "1 NOTE a@b")).collect();
    let mut substructure: Vec<(usize, &str)> =
        vec![(2, "1 ASSO @S1@"), (3, "1 EVEN\n2 @S1@ NOTE x")];
    substructure.extend((4..14).map(|i| (i, "1 ASSO @S1@")));
    let mut files = vec![
        format!(
            "0 HEAD\n1 ASSO @NOWHERE@\n{}",
            &records(6, &[])[head.len()..]
        ),
        records(6, &[(0, nowhere)]),
        records(12, &[(6, nowhere), (9, "1 SEX")]),
        records(12, &[(11, nowhere)]),
        records(12, &[notes_run.as_slice(), &[(8, nowhere)]].concat()),
        records(16, &substructure),
        records(
            16,
            &[
                substructure.as_slice(),
                &[(1, nowhere), (15, "1 ASSO @ELSEWHERE@")],
            ]
            .concat(),
        ),
    ];
    // Records of one line each with an `unescaped-at` on it: one run across the cuts, the last with a
    // pointer leading nowhere after it.
    let notes: String = (0..8).map(|i| format!("0 @N{i}@ NOTE a@b\n")).collect();
    let notes = records(3, &[]).replace("0 TRLR\n", &format!("{notes}1 SOUR @NOWHERE@\n0 TRLR\n"));
    files.push(notes);
    // A pointer to a substructure before the first that leads nowhere: its `UNDEF` record comes first.
    files.push(records(
        10,
        &[
            (1, "1 EVEN\n2 @S2@ NOTE y"),
            (2, "1 ASSO @S2@"),
            (6, nowhere),
            (7, "1 ASSO @S2@"),
        ],
    ));
    let many: Vec<(usize, &str)> = (1..20).step_by(2).map(|i| (i, nowhere)).collect();
    files.push(records(
        24,
        &[many.as_slice(), &[(22, "1 NOTE c@d")]].concat(),
    ));
    let mut failures = Vec::new();
    for (i, text) in files.iter().enumerate() {
        let name = format!("d{i}.ged");
        write(&dir, &name, text.as_bytes());
        for args in CHECKS {
            let mut all = vec!["check", name.as_str()];
            all.extend_from_slice(args);
            failures.extend(sizes_difference(
                &dir,
                &all,
                (&["1", "2", "90", "300"], &[]),
                None,
            ));
        }
        // `lower` into a file takes back what it wrote from the first batch with one on, and writes on.
        let all = ["lower", name.as_str()];
        let whole = run(&dir, &all, true, None);
        for size in ["1", "2", "90", "300"] {
            let got = run_into_file(&dir, &all, &[("GEDGRAFT_BATCH_SIZE", size)], b"");
            failures.extend(outcome_difference(&all, (size, &got), &whole));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `COMMAND FILE ARGS…` streamed and whole (the same exit status, output and messages); the difference, if any.
fn command_difference(dir: &Path, command: &str, file: &Path, args: &[&str]) -> Option<String> {
    let mut all = vec![command, file.to_str()?];
    all.extend_from_slice(args);
    let streamed = run(dir, &all, false, None);
    let whole = run(dir, &all, true, None);
    outcome_difference(&all, ("streamed", &streamed), &whole)
}

/// How `got` (what the run `name` gave) differs from the whole-file path's outcome, if it does.
fn outcome_difference(
    all: &[&str],
    (name, got): (&str, &Outcome),
    whole: &Outcome,
) -> Option<String> {
    let show = |o: &Outcome| {
        let (out, err) = (String::from_utf8_lossy(&o.1), String::from_utf8_lossy(&o.2));
        format!("{:?}\n{out}\n{err}", o.0)
    };
    (got != whole).then(|| format!("{all:?}: {name} {}\nvs whole {}", show(got), show(whole)))
}

/// `all` run whole, and streamed in batches of each of `sizes` octets (with `env` as well): how each differs.
fn sizes_difference(
    dir: &Path,
    all: &[&str],
    (sizes, env): (&[&str], &[(&str, &str)]),
    out: Option<&Path>,
) -> Vec<String> {
    let whole = run(dir, all, true, out);
    (sizes.iter())
        .filter_map(|&size| {
            let mut vars = vec![("GEDGRAFT_BATCH_SIZE", size)];
            vars.extend_from_slice(env);
            let streamed = run_env(dir, all, &vars, out);
            outcome_difference(all, (size, &streamed), &whole)
        })
        .collect()
}

/// `check FILE ARGS…` streamed (in one pass where it can be, and in two: `GEDGRAFT_TWO_PASS`) and whole; the
/// differences, if any.
fn check_difference(dir: &Path, file: &Path, args: &[&str]) -> Option<String> {
    let mut all = vec!["check", file.to_str()?];
    all.extend_from_slice(args);
    let whole = run(dir, &all, true, None);
    let streamed = run(dir, &all, false, None);
    let two = [("GEDGRAFT_BATCH_SIZE", "300"), ("GEDGRAFT_TWO_PASS", "1")];
    let two_passes = run_env(dir, &all, &two, None);
    let one = outcome_difference(&all, ("streamed", &streamed), &whole);
    let two = outcome_difference(&all, ("in two passes", &two_passes), &whole);
    let both: Vec<String> = one.into_iter().chain(two).collect();
    (!both.is_empty()).then(|| both.join("\n"))
}

const CHECKS: &[&[&str]] = &[
    &[],
    &["--format", "json"],
    &["--all"],
    &["--no-warnings"],
    &["--strict"],
    &["--strict", "--format", "json"],
];

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn check_streamed_equals_check_whole_on_the_corpus() {
    let dir = temp_dir("streaming", "check_corpus");
    let files = sorted_corpus();
    let mut failures = Vec::new();
    for (i, file) in files.iter().enumerate() {
        for args in [CHECKS[0], CHECKS[1], CHECKS[2 + i % 4]] {
            failures.extend(check_difference(&dir, file, args));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn check_streamed_equals_check_whole_on_generated_files() {
    let dir = temp_dir("streaming", "check_generated");
    let mut failures = Vec::new();
    for version in ["5.5.1", "7.0"] {
        let file = write(&dir, &format!("g{version}.ged"), &generated(version));
        for args in CHECKS {
            failures.extend(check_difference(&dir, &file, args));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A `duplicate-xref`'s repair (R-POINTER-CONV-03) names each later holder of an identifier by its rank among
/// the file's holders and the names free in the whole file, and in an appended export takes the pointers of
/// its part with it: `check` streams it (a pass gathers the holders and pointers) and agrees with the whole
/// file, batches of one record included, in files of one part and of several.
#[test]
fn duplicate_identifiers_are_repaired_streamed_as_whole() {
    let dir = temp_dir("streaming", "duplicates");
    let head = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";
    let mut one_part = head.to_string();
    for i in 0..40 {
        one_part.push_str(&format!("0 @I{}@ INDI\n1 FAMS @F1@\n", i % 3));
        if i % 5 == 0 {
            // Taken names, a substructure holding the identifier, a duplicate family.
            one_part.push_str(&format!(
                "0 @I0_{}@ INDI\n1 @I1@ NOTE n\n0 @F1@ FAM\n",
                i + 2
            ));
        }
    }
    let several = format!(
        "{one_part}0 TRLR\n0 @F8@ FAM\n1 WIFE @I2@\n{head}0 @I2@ INDI\n0 @F9@ FAM\n1 HUSB @I2@\n0 TRLR\n\
         0 @F7@ FAM\n1 HUSB @I1@\n0 @I1@ INDI\n0 @I0@ INDI\n0 @I0@ INDI\n1 FAMS @I0@\n"
    );
    // Parts begun by a second header alone.
    let headers = format!(
        "{one_part}0 @F8@ FAM\n1 WIFE @I2@\n{head}0 @I2@ INDI\n0 @F9@ FAM\n1 HUSB @I2@\n{head}\
         0 @F7@ FAM\n1 HUSB @I1@\n0 @I1@ INDI\n0 @I0@ INDI\n0 @I0@ INDI\n1 FAMS @I0@\n0 TRLR\n"
    );
    one_part.push_str("0 TRLR\n");
    let mut failures = Vec::new();
    // A trailer or header holding a name a later holder would take (found by a differential run: the
    // lowering's count of holders leaves them out, the whole file's rule does not).
    let trailer = "0 HEAD\n0 @I1@ INDI\n0 @I1@ INDI\n0 @I1_2@ TRLR\n".to_string();
    let header = "0 @I1_2@ HEAD\n0 @I1@ INDI\n0 @I1@ INDI\n0 TRLR\n".to_string();
    let files = [
        ("one-part.ged", &one_part),
        ("several.ged", &several),
        ("headers.ged", &headers),
        ("trailer.ged", &trailer),
        ("header.ged", &header),
    ];
    for (name, text) in files {
        let file = write(&dir, name, text.as_bytes());
        for args in [CHECKS[0], CHECKS[1]] {
            failures.extend(check_difference(&dir, &file, args));
            let mut all = vec!["check", file.to_str().expect("UTF-8 path")];
            all.extend_from_slice(args);
            let sizes = (&["1", "2", "700"][..], &[][..]);
            failures.extend(sizes_difference(&dir, &all, sizes, None));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A `record-after-trailer`'s repair (R-TAGGED-STRUCTS-03, -05) removes the trailer before the record, and moves
/// it to the end of the file when no later trailer ends it: `check` and `fix --repair` stream it (the first pass gathers where
/// the trailers and the last record are) and agrees with the whole file, batches of one record included: a
/// later trailer or none, a trailer with a payload (not moved), a run of trailers, junk after the last one, a
/// last line without a line break (the moved trailer gets the file's break before it), CR LF, UTF-16.
#[test]
fn records_after_a_trailer_are_repaired_streamed_as_whole() {
    let dir = temp_dir("streaming", "after_trailer_repairs");
    let head = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";
    let mut long = head.to_string();
    for i in 0..30 {
        long.push_str(&format!("0 @I{i}@ INDI\n1 NAME A{i} /B/\n"));
        if i % 7 == 3 {
            long.push_str("0 TRLR\n");
        }
    }
    let files = [
        format!("{head}0 @I1@ INDI\n0 TRLR\n0 @I2@ INDI\n1 NAME x\n0 TRLR\n0 @I3@ INDI\n0 TRLR\n0 TRLR\n0 @I4@ INDI"),
        format!("{head}0 @I1@ INDI\n0 TRLR\n0 @I2@ INDI\n1 NAME x\n"),
        format!("{head}0 TRLR\n{head}0 @I1@ INDI\n0 TRLR\n0 TRLR x\n0 @I2@ INDI\n0 TRLR\n1 NOTE y\n0 @I5@ INDI\n"),
        format!("{head}0 @I1@ INDI\n0 TRLR\n0 @I2@ INDI\n0 TRLR\n\x1a"),
        format!("{head}0 @I1@ INDI\n0 TRLR\n0 @I2@ INDI\n0 TRLR\n<html>\n0 TRLR\n"),
        long.clone(),
        long.replace('\n', "\r\n").trim_end().to_string(),
        // Runs of trailers, longer than the passes a fix makes: one repair removes a run's inner trailers.
        format!("{head}0 @I1@ INDI\n{}", "0 TRLR\n".repeat(40)),
        format!("{head}0 @I1@ INDI\n{}0 @I2@ INDI\n", "0 TRLR\n".repeat(30)),
    ];
    let mut failures = Vec::new();
    for (i, text) in files.iter().enumerate() {
        let mut octets = vec![(format!("f{i}.ged"), text.clone().into_bytes())];
        if i == 0 || i == 6 {
            let unicode = text.replace("UTF-8", "UNICODE");
            let utf16 = unicode.encode_utf16().flat_map(u16::to_le_bytes);
            let octets16 = [0xFF, 0xFE].into_iter().chain(utf16).collect();
            octets.push((format!("f{i}-16.ged"), octets16));
        }
        for (name, octets) in octets {
            let file = write(&dir, &name, &octets);
            for args in [CHECKS[0], CHECKS[1]] {
                failures.extend(check_difference(&dir, &file, args));
                let mut all = vec!["check", file.to_str().expect("UTF-8 path")];
                all.extend_from_slice(args);
                let sizes = (&["1", "2", "700"][..], &[("GEDGRAFT_TWO_PASS", "1")][..]);
                failures.extend(sizes_difference(&dir, &all, sizes, None));
            }
            // `fix --repair` takes each pass's repairs from the batches too.
            let out = dir.join("out.ged");
            let (path, out_arg) = (file.to_str().expect("UTF-8"), out.to_str().expect("UTF-8"));
            let all = ["fix", "--repair", path, "-o", out_arg];
            failures.extend(sizes_difference(
                &dir,
                &all,
                (&["1", "2", "700"], &[]),
                Some(&out),
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The runs are repaired whole in one pass, not one trailer a pass (16 passes left 24 of 40 behind).
    for (i, kept) in [
        (7, "0 @I1@ INDI\n0 TRLR\n"),
        (8, "0 @I1@ INDI\n0 @I2@ INDI\n0 TRLR\n"),
    ] {
        let file = dir.join(format!("f{i}.ged"));
        let out = dir.join("out.ged");
        let path = file.to_str().expect("UTF-8");
        let run = gedgraft_command(
            &dir,
            &["fix", "--repair", path, "-o", out.to_str().expect("UTF-8")],
        )
        .output()
        .expect("run");
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(err.contains("changed: 1 edit"), "{err}");
        let fixed = std::fs::read_to_string(&out).expect("out");
        assert_eq!(fixed, format!("{head}{kept}"));
    }
}

/// An edited batch after a trailer parses back as the batch it is (`Parse::from_edited_like`): a line with no
/// level there is trailing text, which `--eol` leaves as it is (R-TAGGED-STRUCTS-03), in the stage after an
/// edit too (found by a differential run: a re-parse of the batch alone read it as a malformed line, and
/// `--eol` converted its line break).
#[test]
fn a_stage_after_an_edit_reads_a_batch_after_a_trailer_as_the_whole_file() {
    let dir = temp_dir("streaming", "stages_after_trailer");
    let files: &[&[u8]] = &[
        b"0 HEAD\r\n0 TRLR\r\n0 FAM\r\n\r\n0 FAM\r\n<html>\r\n",
        b"0 TRLR\n0 @X4@ INDI\n0 SOUR\n1 A @\nINDI\n",
        b"0 HEAD\n0 TRLR\n0 @I1@ INDI\n0 FAM\n1 A @\nNEG\n",
    ];
    let out = dir.join("out.ged");
    let mut failures = Vec::new();
    for (i, text) in files.iter().enumerate() {
        let file = write(&dir, &format!("s{i}.ged"), text);
        let (file, out) = (file.to_str().expect("UTF-8"), out.to_str().expect("UTF-8"));
        for edits in [&["--rename-tag", "FAM=X"][..], &["--escape-at"]] {
            let mut all = vec!["fix", file, "-o", out];
            all.extend_from_slice(edits);
            all.extend_from_slice(&["--eol", "cr"]);
            let sizes = (&["1", "2", "1000000"][..], &[][..]);
            failures.extend(sizes_difference(&dir, &all, sizes, Some(Path::new(out))));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A file with a repair of most kinds in many records: runs of one code across records (so across cuts), a
/// duplicate identifier with pointers to it, a level jump, a raw line break, a long line, a `CONC` split at a
/// space, a NUL, a `FORM` in the wrong case; none whose repair needs the whole file.
fn with_repairs() -> String {
    let mut s = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM lineage-linked\n1 CHAR UTF-8\n".to_string();
    for i in 0..40 {
        s.push_str(&format!(
            "0 @I{}@ INDI\n1 NAME Ann{i} /Smith/\n1 FAMS @F{}@\n",
            i % 7,
            i % 5
        ));
        s.push_str(&match i % 7 {
            0 => format!("1 NOTE a@b\n0 @N{i}@ NOTE c@d\n"),
            1 => "\n\n".to_string(),
            2 => "1 BIRT\n3 DATE 1900\n".to_string(),
            3 => "1 NOTE a raw\nline break\n".to_string(),
            4 => format!("1 NOTE {}\n", "x".repeat(300)),
            5 => "1 NOTE split \n2 CONC at space\n".to_string(),
            _ => "1 NOTE nul\0here\n".to_string(),
        });
    }
    s.push_str("0 @F1@ FAM\n1 HUSB @I1@\n0 TRLR\n");
    s
}

/// `fix --repair` takes each pass's repairs from a streamed check (no tree of the whole file, #12), falling
/// back to the whole file for a pass where the batches cannot tell (a run of one code across a cut, a repair
/// that needs the whole file): the output, summary and hints are the whole file's, batches of one record
/// included, with other edits as well.
#[test]
fn repairs_streamed_equal_repairs_whole() {
    let dir = temp_dir("streaming", "repairs");
    let out = dir.join("out.ged");
    let out_arg = out.to_str().expect("UTF-8 path");
    let mut failures = Vec::new();
    let files = [
        ("mixed.ged", with_repairs().into_bytes()),
        ("g5.ged", generated("5.5.1")),
        ("g7.ged", generated("7.0")),
    ];
    for (name, text) in files {
        let file = write(&dir, name, &text);
        let path = file.to_str().expect("UTF-8 path");
        for repair in [
            "--repair",
            "--repair-unsafe",
            "--repair=duplicate-xref,unescaped-at",
        ] {
            let sizes = (&["1", "2", "300", "700"][..], &[][..]);
            // With other edits too: they stream when the file has nothing to repair (#17). The first passes of
            // `--set-xref` and `--set-pointer` read the batches repaired (`@I1_2@` is the repairs' identifier
            // for the second `@I1@`; `@I3@` picks several structures until they are repaired).
            let others: [&[&str]; 5] = [
                &[],
                &["--rename-tag", "NOTE=_NOTE"],
                &["--eol", "crlf", "--escape-at"],
                &["--set-xref", "@I1_2@=I99", "--set-xref", "@I3@=I98"],
                &["--set-pointer", "@F1@.HUSB=I2_2", "--rename-tag", "NAME=_N"],
            ];
            for other in others {
                let mut all = vec!["fix", repair, path, "-o", out_arg];
                all.extend_from_slice(other);
                failures.extend(sizes_difference(&dir, &all, sizes, Some(&out)));
                let mut all = vec!["fix", repair, path, "-o", "-"];
                all.extend_from_slice(other);
                failures.extend(sizes_difference(&dir, &all, sizes, None));
                let mut all = vec!["fix", repair, path];
                all.extend_from_slice(other);
                failures.extend(sizes_difference(&dir, &all, sizes, None));
                all.push("--check");
                failures.extend(sizes_difference(&dir, &all, sizes, None));
            }
        }
    }
    // Streamed with the repairs made first (#17): blank lines they remove move the lines after them up, and a
    // later stage's warning names the line in the repaired file, as the whole-file path's does.
    let words = "word ".repeat(80);
    let shifted = format!(
        "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n\n\n0 @N1@ NOTE {words}\nraw line\n1 CONC more\n\n0 TRLR\n"
    );
    let file = write(&dir, "shifted.ged", shifted.as_bytes());
    let path = file.to_str().expect("UTF-8 path");
    let sizes = (&["1", "2", "300"][..], &[][..]);
    for other in [&["--rewrap"][..], &["--rename-tag", "NOTE=_N", "--rewrap"]] {
        let mut all = vec!["fix", "--repair=blank-line", path];
        all.extend_from_slice(other);
        failures.extend(sizes_difference(&dir, &all, sizes, None));
        all.extend_from_slice(&["-o", out_arg]);
        failures.extend(sizes_difference(&dir, &all, sizes, Some(&out)));
    }
    // Records after the trailer moved before it: the review diff and the line counts align the move over the
    // whole file (found by a helper: batches of their own gave `-0 TRLR … +0 TRLR`).
    for (name, after) in [
        ("after.ged", "0 HEAD\n1 CHAR UTF-8\n0 TRLR\n0 @I1@ INDI\n"),
        (
            "after2.ged",
            "0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE a\n0 TRLR\n0 @I1@ INDI\n1 NAME A\n0 @I2@ INDI\n",
        ),
    ] {
        let file = write(&dir, name, after.as_bytes());
        let path = file.to_str().expect("UTF-8 path");
        for mode in [&[][..], &["--patch"], &["-o", out_arg]] {
            let mut all = vec!["fix", "--repair", "--to-encoding", "ANSEL", path];
            all.extend_from_slice(mode);
            let out = mode.contains(&"-o").then_some(out.as_path());
            failures.extend(sizes_difference(&dir, &all, sizes, out));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// New text is not written into a file whose reading is in doubt (`M\xFCller` under `CHAR UTF-8`, or no `CHAR`),
/// streamed or whole, with the repairs or not, whatever edit comes first: the streamed repairs read each
/// batch afresh and wrote `José` in UTF-8 next to windows-1252 text (exit 0), and a `--delete` of the
/// doubtful line did so on every path (found by a helper). Refused alike, with the same message, at every
/// batch size.
#[test]
fn new_text_into_a_file_read_in_doubt_is_refused_streamed_as_whole() {
    let dir = temp_dir("streaming", "doubt");
    let out = dir.join("out.ged");
    let out_arg = out.to_str().expect("UTF-8 path");
    let files: [(&str, &[u8]); 3] = [
        ("no-char.ged", b"0 HEAD\n1 NOTE M\xfcller\n0 @I1@ INDI\n1 NAME a\n"),
        (
            "blank.ged",
            b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE M\xfcller\n0 @I1@ INDI\n1 NAME A\n1 NOTE G\xe4rtner\n\n0 TRLR\n",
        ),
        (
            "clean.ged",
            b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE M\xfcller\n0 @I1@ INDI\n1 NAME A\n1 NOTE G\xe4rtner\n0 TRLR\n",
        ),
    ];
    let mut failures = Vec::new();
    for (name, text) in files {
        let file = write(&dir, name, text);
        let path = file.to_str().expect("UTF-8 path");
        for edits in [
            &["--repair", "--set", "@I1@.NAME=Jos\u{e9}"][..],
            &[
                "--repair",
                "--delete",
                "NOTE",
                "--set",
                "@I1@.NAME=Jos\u{e9}",
            ],
            &["--delete", "NOTE", "--set", "@I1@.NAME=Jos\u{e9}"],
            &["--set", "@I1@.NAME=Jos\u{e9}"],
        ] {
            let mut all = vec!["fix", path, "-o", out_arg];
            all.extend_from_slice(edits);
            let whole = run(&dir, &all, true, Some(&out));
            let said = String::from_utf8_lossy(&whole.2);
            assert_eq!(whole.0, Some(2), "{all:?}: {said}");
            assert!(said.contains("encoding is in doubt"), "{all:?}: {said}");
            assert!(whole.3.is_none(), "{all:?}: nothing written");
            failures.extend(sizes_difference(
                &dir,
                &all,
                (&["1", "2", "300"], &[]),
                Some(&out),
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `fix` with repairs alone, written (`-o FILE`, `-o -`, `--in-place`), checked (`--check`) or reviewed (the
/// review diff, `--patch`), reads no tree of the whole file (#12): its passes stream, and its review diff, patch
/// and `-R +A` lines are made batch by batch from the old and new octets (a patch only the whole file can make,
/// UTF-16's refusal included, by the whole-file path). The output, summary, hints and exit status are the whole-file path's, in UTF-16, with a byte-order
/// mark, with CR or CR LF line breaks, with a mislabelled encoding (a pass that needs the whole file), for a
/// file that is not GEDCOM, and for one with nothing to repair.
#[test]
fn repairs_alone_written_checked_or_reviewed_equal_the_whole_files() {
    let dir = temp_dir("streaming", "repairs_alone");
    let out = dir.join("out.ged");
    let out_arg = out.to_str().expect("UTF-8 path");
    let text = with_repairs();
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            text.replace("UTF-8", "UNICODE")
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("utf16.ged", utf16),
        (
            "bom-cr.ged",
            [&b"\xEF\xBB\xBF"[..], text.replace('\n', "\r").as_bytes()].concat(),
        ),
        ("crlf.ged", text.replace('\n', "\r\n").into_bytes()),
        (
            "mislabelled.ged",
            text.replace("UTF-8", "ASCII")
                .replace("Ann1 ", "J\u{e9}r\u{f4}me ")
                .into_bytes(),
        ),
        ("not-gedcom.ged", b"just some text\nand more\n".to_vec()),
        (
            "appended-no-final-break.ged",
            b"0 HEAD\r1 CHAR UTF-8\r0 TRLR\r0 @I29@ INDI\r0 @O30@ OBJE".to_vec(),
        ),
        ("clean.ged", generated("5.5.1")),
    ];
    let mut failures = Vec::new();
    for (name, octets) in &files {
        let file = write(&dir, name, octets);
        let path = file.to_str().expect("UTF-8 path");
        for repair in ["--repair", "--repair-unsafe"] {
            let sizes = (&["1", "300"][..], &[][..]);
            let written = ["fix", repair, path, "-o", out_arg];
            failures.extend(sizes_difference(&dir, &written, sizes, Some(&out)));
            let to_stdout = ["fix", repair, path, "-o", "-"];
            failures.extend(sizes_difference(&dir, &to_stdout, sizes, None));
            let checked = ["fix", "--check", repair, path];
            failures.extend(sizes_difference(&dir, &checked, sizes, None));
            let reviewed = ["fix", repair, path];
            failures.extend(sizes_difference(&dir, &reviewed, sizes, None));
            let patched = ["fix", repair, "--patch", path];
            failures.extend(sizes_difference(&dir, &patched, sizes, None));
            failures.extend(in_place_difference(&dir, octets, &[repair]));
        }
        assert_eq!(
            std::fs::read(&file).ok().as_ref(),
            Some(octets),
            "{name}: --check wrote"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A malformed level-0 line longer than the stream reads to choose a cut stays with the left-out run before it,
/// in UTF-8 and UTF-16 (the `stream_lower` fuzz target's crash was a UTF-16 file): `check` and `lower` streamed
/// give the whole file's diagnostics.
#[test]
fn a_long_malformed_level_0_line_is_no_cut() {
    let dir = temp_dir("streaming", "long_malformed");
    let text = format!(
        "0 HEAD\n1 CHAR UTF-8\n{}0 @{}\n0 TRLR\n",
        "0 @\n".repeat(10),
        "x".repeat(5000)
    );
    let utf16: Vec<u8> = text
        .replace("UTF-8", "UNICODE")
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let mut failures = Vec::new();
    for (name, octets) in [("utf8.ged", text.into_bytes()), ("utf16.ged", utf16)] {
        let file = write(&dir, name, &octets);
        for command in [&["check", "--format", "json"][..], &["lower"]] {
            let mut all = command.to_vec();
            all.push(file.to_str().expect("UTF-8"));
            let sizes = (&["1"][..], &[("GEDGRAFT_TWO_PASS", "1")][..]);
            failures.extend(sizes_difference(&dir, &all, sizes, None));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A trailer with a payload or an identifier is a record unless it is the file's last (R-TAGGED-STRUCTS-04,
/// `trailers.rs`): the stream never ends a batch with a trailer a record follows, so `lower` keeps it as the
/// whole file does (found by a helper's differential run once records after a trailer were cut into batches).
#[test]
fn a_trailer_a_record_follows_is_lowered_as_in_the_whole_file() {
    let dir = temp_dir("streaming", "trailer_records");
    let files: &[&[u8]] = &[
        b"0 TRLR x\n0 HEAD\n",
        b"0 HEAD\n0 TRLR x\n0 @I1@ INDI\n0 TRLR\n",
        b"0 HEAD\n0 TRLR @I1@\n0 TRLR\n",
        b"0 HEAD\n0 @T@ TRLR\n0 @I1@ INDI\n",
        b"0 HEAD\n0 TRLR\n0 TRLR\n0 TRLR y\n\n0 @I1@ INDI\n0 TRLR\n",
    ];
    let mut failures = Vec::new();
    for (i, text) in files.iter().enumerate() {
        let file = write(&dir, &format!("t{i}.ged"), text);
        let all = ["lower", file.to_str().expect("UTF-8")];
        let sizes = (&["1", "2", "7", "1000000"][..], &[][..]);
        failures.extend(sizes_difference(&dir, &all, sizes, None));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `fix --in-place EDITS… FILE` streamed and whole on copies of `original`: the same exit status, output,
/// summary and resulting file (and backup); an unchanged file keeps its modification time.
fn in_place_difference(dir: &Path, original: &[u8], edits: &[&str]) -> Option<String> {
    command_in_place_difference(dir, original, "fix", edits)
}

/// [`in_place_difference`] of `COMMAND --in-place … FILE ARGS…`.
fn command_in_place_difference(
    dir: &Path,
    original: &[u8],
    command: &str,
    edits: &[&str],
) -> Option<String> {
    let mut results = Vec::new();
    for whole in [false, true] {
        let file = write(dir, "in-place.ged", original);
        let backup = dir.join("in-place.ged.orig");
        let _ = std::fs::remove_file(&backup);
        let before = std::fs::metadata(&file).and_then(|m| m.modified()).ok();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let mut args = vec![command, "--in-place", "--backup", ".orig", "in-place.ged"];
        args.extend_from_slice(edits);
        let outcome = run(dir, &args, whole, None);
        let after = std::fs::metadata(&file).and_then(|m| m.modified()).ok();
        let text = std::fs::read(&file).ok();
        let kept = std::fs::read(&backup).ok();
        if text.as_deref() == Some(original) && before != after {
            return Some(format!(
                "{edits:?} (whole: {whole}): an unchanged file was rewritten"
            ));
        }
        results.push((outcome, text, kept));
    }
    (results[0] != results[1]).then(|| {
        format!(
            "{edits:?}: streamed {:?}\nvs whole {:?}",
            results[0], results[1]
        )
    })
}

/// `fix --check EDITS… FILE` streamed and whole: the same summary and exit status (1 when something would
/// change), and the file untouched.
#[test]
fn fix_check_streamed_equals_fix_check_whole() {
    let dir = temp_dir("streaming", "fix_check");
    let mut failures = Vec::new();
    for version in ["5.5.1", "7.0"] {
        let original = generated(version);
        let file = write(&dir, "g.ged", &original);
        for e in EDITS
            .iter()
            .chain([&["--rename-tag", "_NONE=_X"][..]].iter())
        {
            let mut args = vec!["fix", "--check", "g.ged"];
            args.extend_from_slice(e);
            let streamed = run(&dir, &args, false, None);
            let whole = run(&dir, &args, true, None);
            if streamed != whole {
                failures.push(format!(
                    "{e:?}: streamed {:?} {}\nvs whole {:?} {}",
                    streamed.0,
                    String::from_utf8_lossy(&streamed.2),
                    whole.0,
                    String::from_utf8_lossy(&whole.2)
                ));
            }
        }
        assert_eq!(std::fs::read(&file).ok(), Some(original), "--check wrote");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `--in-place` streams too (with `--backup`): the same file, backup, summary and status as the whole-file
/// path, and an unchanged file is not touched.
#[test]
fn fix_in_place_streamed_equals_fix_in_place_whole() {
    let dir = temp_dir("streaming", "fix_in_place");
    let mut failures = Vec::new();
    for version in ["5.5.1", "7.0"] {
        let original = generated(version);
        for e in EDITS {
            failures.extend(in_place_difference(&dir, &original, e));
        }
        failures.extend(in_place_difference(
            &dir,
            &original,
            &["--rename-tag", "_NONE=_X"],
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `gedgraft ARGS…` with `env`, its standard output a file holding `before` (opened to append to it, as
/// `>>` does; `before` empty: a new file, as `>` makes, the one `lower` writes in one pass): what the file
/// holds after `before`.
fn run_into_file(dir: &Path, args: &[&str], env: &[(&str, &str)], before: &[u8]) -> Outcome {
    let out = dir.join("stdout.json");
    std::fs::write(&out, before).expect("written");
    let mut open = std::fs::OpenOptions::new();
    match before.is_empty() {
        true => open.write(true).truncate(true),
        false => open.append(true),
    };
    let file = open.open(&out).expect("opened");
    let mut command = gedgraft_command(dir, args);
    command.envs(env.iter().copied()).stdout(file);
    let output = command.output().expect("run gedgraft");
    let written = std::fs::read(&out).expect("read back");
    let Some(after) = written.strip_prefix(before) else {
        return (
            output.status.code(),
            b"(what was there is lost)".to_vec(),
            output.stderr,
            None,
        );
    };
    (output.status.code(), after.to_vec(), output.stderr, None)
}

/// `lower FILE ARGS…` streamed and whole: the same JSON document and exit status; the difference, if any.
/// Streamed into a pipe and into a file with text before (`>>`) (one pass, held aside), into a new file (one
/// pass, taken back when it cannot tell), and into a new file in two passes (`GEDGRAFT_TWO_PASS`).
fn lower_difference(dir: &Path, file: &Path, args: &[&str]) -> Option<String> {
    let mut all = vec!["lower", file.to_str()?];
    all.extend_from_slice(args);
    let whole = run(dir, &all, true, None);
    let batches = ("GEDGRAFT_BATCH_SIZE", "300");
    let runs = [
        ("streamed", run(dir, &all, false, None)),
        ("into a file", run_into_file(dir, &all, &[batches], b"")),
        (
            "after text",
            run_into_file(dir, &all, &[batches], b"text\n"),
        ),
        (
            "in two passes",
            run_into_file(dir, &all, &[batches, ("GEDGRAFT_TWO_PASS", "1")], b""),
        ),
    ];
    let found: Vec<String> = (runs.iter())
        .filter_map(|(name, got)| outcome_difference(&all, (name, got), &whole))
        .collect();
    (!found.is_empty()).then(|| found.join("\n"))
}

/// `lower` streams (records written batch by batch, `UNDEF` records and diagnostics after them) and gives the
/// whole-file document, octet for octet, on every corpus file; `--nfc` and `--strict` on a third each.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn lower_streamed_equals_lower_whole_on_the_corpus() {
    let dir = temp_dir("streaming", "lower_corpus");
    let files = sorted_corpus();
    let mut failures = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let args: &[&str] = match i % 3 {
            0 => &[],
            1 => &["--nfc"],
            _ => &["--strict"],
        };
        failures.extend(lower_difference(&dir, file, args));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Found by a user's test: `lower` into a file, in one pass, met a batch the stream refuses (not UTF-8 in a file
/// read as UTF-8: its notes need the whole file) and gave up with half the JSON written; and a byte-order mark
/// and a blank line (or any line that is not a record's) before `0 HEAD` left the header out of the stream's
/// first batch (the header read as a record). Each way `lower` and `check` run gives the whole file's output.
#[test]
fn lower_takes_back_what_one_pass_cannot_read_and_finds_the_header_after_blank_lines() {
    let dir = temp_dir("streaming", "lower_found");
    let clean = String::from_utf8(generated("5.5.1")).expect("UTF-8");
    let mut bad_late = clean.clone().into_bytes();
    let at = bad_late.len() - 200;
    bad_late.splice(at..at, [0xFF]);
    let utf16_after_blank: Vec<u8> = "\u{FEFF}\n"
        .encode_utf16()
        .chain(clean.encode_utf16())
        .flat_map(u16::to_le_bytes)
        .collect();
    let files: [(&str, Vec<u8>); 8] = [
        ("bad-late.ged", bad_late),
        // Found by the `stream_lower` fuzz target: a line before the header that is not blank (here an
        // undecodable octet after a byte-order mark) ended the stream's first batch before the header.
        ("fuzz-junk-head.ged", b"\xEF\xBB\xBF\xBF\n0 HEAD".to_vec()),
        (
            "junk-before-head.ged",
            [&b"\xEF\xBB\xBF\xBF\n"[..], clean.as_bytes()].concat(),
        ),
        (
            "malformed-before-head.ged",
            [&b"0 @\nstray text\n"[..], clean.as_bytes()].concat(),
        ),
        (
            "level-1-before-head.ged",
            [&b"1 NOTE x\n"[..], clean.as_bytes()].concat(),
        ),
        (
            "bom-blank.ged",
            [&b"\xEF\xBB\xBF\n"[..], clean.as_bytes()].concat(),
        ),
        (
            "blank-lines.ged",
            [&b"\n\r\n  \n"[..], clean.as_bytes()].concat(),
        ),
        ("utf16-bom-blank.ged", utf16_after_blank),
    ];
    let mut failures = Vec::new();
    for (name, bytes) in files {
        let file = write(&dir, name, &bytes);
        failures.extend(lower_difference(&dir, &file, &[]));
        failures.extend(check_difference(&dir, &file, &[]));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Standard output the input itself (`lower f >> f`): the file is read before anything is written to it.
    // Past the stream's first read (64 KiB), so that it reads the file while the JSON is written to it.
    let mut original = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
    for i in 0..8000 {
        original.extend(format!("0 @I{i}@ INDI\n1 NAME N{i} /X/\n").bytes());
    }
    original.extend(b"0 TRLR\n");
    let file = write(&dir, "self.ged", &original);
    let expected = run(&dir, &["lower", "self.ged"], true, None);
    let batches = [("GEDGRAFT_BATCH_SIZE", "300")];
    let got = run_into_file_named(&dir, &["lower", "self.ged"], &batches, &file);
    assert_eq!(
        got.0,
        expected.0,
        "exit status: {}",
        String::from_utf8_lossy(&got.2)
    );
    let written = std::fs::read(&file).expect("read back");
    assert_eq!(
        &written[..original.len()],
        &original[..],
        "the input is kept"
    );
    assert!(
        written[original.len()..] == expected.1[..],
        "the JSON of the input alone"
    );
}

/// Found by a user's test: a transcode keeps the octets after the trailer as they are, and a later batch that
/// holds nothing else kept its octets: the batch said it had not changed, so the review diff left out that
/// its non-ASCII octets read differently in the new encoding (`é` in windows-1252, `\xE9` in UTF-8), which the
/// whole file's diff (one change, the whole file) shows. Such a batch is now a change too.
#[test]
fn a_transcode_shows_what_reads_differently_after_the_trailer_streamed_as_whole() {
    let dir = temp_dir("streaming", "after_trailer_transcode");
    let mut text = b"0 HEAD\n1 CHAR ANSI\n".to_vec();
    for i in 0..20 {
        text.extend(format!("0 @I{i}@ INDI\n1 NAME A{i} /B/\n").bytes());
    }
    text.extend(b"0 TRLR\n\xE9t\xE9\n1 NAME \xC3\xA9l\xC3\xA8ve\n");
    let file = write(&dir, "after-trailer.ged", &text);
    // Found by a user's test: an edit error in the first batch (no header to record the new encoding) came
    // before the whole file's (an undecodable octet further on, which the whole-file path reads first); an
    // error in the first batch, before anything is written, now takes the whole-file path for its verdict.
    let no_header: Vec<u8> = "0 @I1@ INDI\n0 @I2@ INDI\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .chain([b'\n'])
        .collect();
    let no_header = write(&dir, "no-header-odd-end.ged", &no_header);
    let mut failures = Vec::new();
    for args in [
        &["--to-encoding", "utf-8"][..],
        &["--to-encoding", "ansel"],
        &["--to-encoding", "utf-8", "--check"],
    ] {
        for file in [&file, &no_header] {
            failures.extend(command_difference(&dir, "fix", file, args));
            failures.extend(fix_difference(&dir, file, args));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Found by a user's test: `--rewrap --join-conc` both skip a structure with a malformed line between its
/// continuation lines. The whole file gives each edit's warning, and one that reads as the other's once; the
/// batches summed the two edits' skips into one warning ("and 1 more structure"). Each edit's are summed apart.
#[test]
fn rewrap_and_join_conc_warnings_are_summed_apart_across_batches() {
    let dir = temp_dir("streaming", "rewrap_join");
    let mut text = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
    for i in 0..30 {
        text.extend(format!("0 @N{i}@ NOTE a\n1 CONT b\nstray\n1 CONT c\n").bytes());
        if i % 3 == 0 {
            text.extend(
                format!("0 @N{i}x@ NOTE a word that is long enough to be wrapped somewhere\n")
                    .bytes(),
            );
        }
    }
    text.extend(b"0 TRLR\n");
    let file = write(&dir, "skips.ged", &text);
    let mut failures = Vec::new();
    for edits in [
        &["--rewrap", "--join-conc"][..],
        &["--rewrap=40", "--join-conc"],
        &["--join-conc", "--rewrap=40"],
    ] {
        failures.extend(fix_difference(&dir, &file, edits));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A run of lines left out of the dataset (R-RECOVER-06) that goes on past a level-0 line: `4 X` (a level jump)
/// then `0 @` (a malformed level-0 line) and what is nested in it are one run, one `lines-left-out` note, in the
/// whole file. Batches used to be cut before any level-0 line, `0 @` too, and the streamed `lower` then gave
/// the run as two notes; a batch now begins only at a record's first line. The runs come at every offset of
/// the 300-octet batches.
#[test]
fn a_left_out_run_across_a_level_0_line_is_one_note_streamed_as_whole() {
    let dir = temp_dir("streaming", "left_out_run");
    let mut text = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
    for i in 0..40 {
        let pad = "a".repeat(i % 17);
        text.extend(
            format!(
                "0 @I{i}@ INDI\n1 NAME A{pad} /B/\n1 BIRT\n2 DATE 1900\n4 X\n0 @\n1 NOTE y\n0 @ \n"
            )
            .bytes(),
        );
    }
    text.extend(b"0 TRLR\n");
    // Found by a user's test: in UTF-16, an odd octet at the end belongs to the last line (`0 TRLR` and an
    // undecodable octet: malformed, left out with the malformed line before it); the batch cut took the line
    // without it for a record's first line.
    let odd: Vec<u8> = "0 HEAD\n0 @I 1@ INDI\n0 TRLR\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let odd = write(&dir, "utf16-odd-end.ged", &odd[..odd.len() - 1]);
    let mut failures: Vec<String> = lower_difference(&dir, &odd, &[]).into_iter().collect();
    failures.extend(check_difference(&dir, &odd, &["--format", "json"]));
    let file = write(&dir, "left-out.ged", &text);
    let whole = run(&dir, &["lower", "left-out.ged"], true, None);
    let notes = String::from_utf8_lossy(&whole.1)
        .matches("\"lines-left-out\"")
        .count();
    assert_eq!(notes, 40, "one note per run in the whole file");
    failures.extend(lower_difference(&dir, &file, &[]));
    failures.extend(check_difference(&dir, &file, &["--format", "json"]));
    failures.extend(command_difference(&dir, "dump", &file, &[]));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `gedgraft ARGS…` with `env`, its standard output appended to `file` (as `>>` does).
fn run_into_file_named(dir: &Path, args: &[&str], env: &[(&str, &str)], file: &Path) -> Outcome {
    let out = std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .expect("opened");
    let mut command = gedgraft_command(dir, args);
    command.envs(env.iter().copied()).stdout(out);
    let output = command.output().expect("run gedgraft");
    (output.status.code(), Vec::new(), output.stderr, None)
}

/// R-POINTER-CONV-10..12 across batches: pointers to records in other batches, to none (one `UNDEF` record per
/// identifier, after every record), duplicates; `--strict` takes the whole-file path and agrees too.
#[test]
fn lower_streamed_equals_lower_whole_on_generated_files() {
    let dir = temp_dir("streaming", "lower_generated");
    let mut failures = Vec::new();
    for version in ["5.5.1", "7.0"] {
        let file = write(&dir, &format!("g{version}.ged"), &generated(version));
        for args in [&[][..], &["--nfc"], &["--strict"]] {
            failures.extend(lower_difference(&dir, &file, args));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `gedgraft ARGS` with `input` on standard input, streamed (batches of 300 octets) or whole.
fn run_stdin(dir: &Path, args: &[&str], input: &[u8], whole: bool) -> Outcome {
    use std::io::Write;
    let mut command = gedgraft_command(dir, args);
    if whole {
        command.env("GEDGRAFT_WHOLE_FILE", "1");
    } else {
        command.env("GEDGRAFT_BATCH_SIZE", "300");
    }
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run gedgraft");
    let _ = child.stdin.take().expect("stdin").write_all(input);
    let output = child.wait_with_output().expect("wait");
    (output.status.code(), output.stdout, output.stderr, None)
}

/// Standard input streams too (read once into a copy on disk, then in batches): `check -`, `lower -` and
/// `fix - -o -` give the whole-file output; UTF-16 input, which the stream refuses after reading its head,
/// falls back to the whole-file path with every octet still there.
#[test]
fn standard_input_streamed_equals_standard_input_whole() {
    let dir = temp_dir("streaming", "stdin");
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            String::from_utf8_lossy(&generated("5.5.1"))
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    let commands: &[&[&str]] = &[
        &["check", "-"],
        &["check", "--format", "json", "-"],
        &["lower", "-"],
        &["fix", "-", "-o", "-"],
        &[
            "fix",
            "-",
            "-o",
            "-",
            "--rename-tag",
            "NOTE=_NOTE",
            "--delete",
            "@F1@",
        ],
    ];
    for input in [generated("5.5.1"), generated("7.0"), utf16] {
        for args in commands {
            let streamed = run_stdin(&dir, args, &input, false);
            let whole = run_stdin(&dir, args, &input, true);
            assert_eq!(
                streamed,
                whole,
                "{args:?}: {}",
                String::from_utf8_lossy(&streamed.2)
            );
            assert!(!streamed.1.is_empty(), "{args:?} printed nothing");
        }
    }
    let fix = run_stdin(&dir, &["fix", "-", "-o", "-"], &generated("7.0"), false);
    assert_eq!(fix.1, generated("7.0"), "written back octet for octet");
}

/// `--strict` streams a file without an error (strict or not, the same report) and takes the whole-file path
/// for one with an error, found by the first pass (a duplicate identifier, known only from the index, or a
/// malformed line) — the same output either way.
#[test]
fn strict_streams_files_without_errors() {
    let dir = temp_dir("streaming", "strict");
    let clean = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 FAMC @F1@\n0 @F1@ FAM\n0 TRLR\n".to_vec();
    let duplicate =
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n0 @I2@ INDI\n0 @I1@ FAM\n0 TRLR\n".to_vec();
    let malformed = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\nx BAD\n0 @I2@ INDI\n0 TRLR\n".to_vec();
    let mut failures = Vec::new();
    for (name, bytes) in [
        ("clean", clean),
        ("duplicate", duplicate),
        ("malformed", malformed),
    ] {
        let file = write(&dir, &format!("{name}.ged"), &bytes);
        failures.extend(check_difference(&dir, &file, &["--strict"]));
        failures.extend(check_difference(
            &dir,
            &file,
            &["--strict", "--format", "json"],
        ));
        failures.extend(lower_difference(&dir, &file, &["--strict"]));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A run of one code on neighbouring lines that goes on across a cut between batches is one diagnostic in
/// the batch where it starts, and its repair is the whole run's, made with the batches that hold the rest of
/// it: the same message (`write the 2 bare `@`s as `@@``, not the first batch's `write the `@` as `@@``) and
/// edits as the whole file's, human and JSON, in one pass and two, batches of one record, two octets, 700
/// octets and the default size; `fix` repairs such a run streamed as whole.
#[test]
fn a_run_across_a_cut_is_repaired_whole() {
    let dir = temp_dir("streaming", "runs");
    let long = |n: usize| format!("0 @N{n}@ NOTE {}\n", "z".repeat(286));
    let many = |record: &dyn Fn(usize) -> String| (0..120).map(record).collect::<String>();
    let files: Vec<(&str, Vec<u8>)> = vec![
        (
            "at.ged",
            b"0 HEAD\n0 OBJE\n1 F a@b\n0 INDI @\n0 TRLR\n".to_vec(),
        ),
        ("no-head.ged", b"0 OBJE\n1 F a@b\n0 INDI @\n".to_vec()),
        (
            "nul.ged",
            b"0 HEAD\n0 @N1@ NOTE a\0\n0 @N2@ NOTE \0b\n0 TRLR\n".to_vec(),
        ),
        (
            "long.ged",
            format!("0 HEAD\n{}{}{}0 TRLR\n", long(1), long(2), long(3)).into_bytes(),
        ),
        (
            "blank.ged",
            b"0 HEAD\n0 INDI\n\n\n0 FAM\n \n\t\n0 @I1@ INDI\n\n0 TRLR\n\n".to_vec(),
        ),
        (
            "many.ged",
            format!(
                "0 HEAD\n1 CHAR UTF-8\n{}{}{}0 TRLR\n",
                many(&|i| format!("0 @N{i}@ NOTE a@b@\n")),
                many(&|i| format!("0 @M{i}@ NOTE n\0u\0l\n")),
                many(&|i| format!("0 @L{i}@ NOTE {}\n\n", "y".repeat(250 + i % 9))),
            )
            .into_bytes(),
        ),
    ];
    let mut failures = Vec::new();
    for (name, text) in files {
        let file = write(&dir, name, &text);
        let path = file.to_str().expect("UTF-8 path");
        let runs: [&[&str]; 4] = [
            &["check", path],
            &["check", "--format", "json", path],
            &["fix", "--repair", path],
            &["fix", "--repair-unsafe", path],
        ];
        for all in runs {
            for env in [&[][..], &[("GEDGRAFT_TWO_PASS", "1")][..]] {
                let sizes = (&["1", "2", "700"][..], env);
                failures.extend(sizes_difference(&dir, all, sizes, None));
                // The default size: the header's batch ends at its first record.
                let whole = run(&dir, all, true, None);
                let default = run_env(&dir, all, env, None);
                failures.extend(outcome_difference(all, ("default", &default), &whole));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The layouts and encodings the `fmt` tests ask for: the file's own; ANSEL (letters written decomposed);
/// short lines with CR LF; ASCII in GEDCOM 5.5 (a character ASCII lacks takes an escape, which only ELF has:
/// refused, naming it); UTF-16 (its lines counted as the whole file's octets 0A).
const FMTS: &[&[&str]] = &[
    &[],
    &["--to-encoding", "ANSEL"],
    &["--line-limit", "40", "--eol", "crlf"],
    &["--to-encoding", "ASCII", "--dialect", "gedcom-5.5"],
    &["--to-encoding", "UTF-16LE"],
];

/// `fmt FILE -o OUT ARGS…`, `fmt --check FILE ARGS…`, `fmt FILE -o - ARGS…` and the review diff (`fmt FILE
/// ARGS…`) streamed (in batches of 300 octets and of 64 KiB) and whole: how they differ, if they do.
fn fmt_difference(dir: &Path, file: &Path, args: &[&str]) -> Vec<String> {
    let out = dir.join("fmt.ged");
    let (Some(file), Some(out_name)) = (file.to_str(), out.to_str()) else {
        return vec!["a path that is not UTF-8".into()];
    };
    let sizes: (&[&str], &[(&str, &str)]) = (&["300", "65536"], &[]);
    let mut written = vec!["fmt", file, "-o", out_name];
    written.extend_from_slice(args);
    let mut checked = vec!["fmt", "--check", file];
    checked.extend_from_slice(args);
    let mut to_stdout = vec!["fmt", file, "-o", "-"];
    to_stdout.extend_from_slice(args);
    let mut reviewed = vec!["fmt", file];
    reviewed.extend_from_slice(args);
    let mut found = sizes_difference(dir, &written, sizes, Some(&out));
    found.extend(sizes_difference(dir, &checked, sizes, None));
    found.extend(sizes_difference(dir, &to_stdout, sizes, None));
    found.extend(sizes_difference(dir, &reviewed, sizes, None));
    found
}

/// `fmt` streams when it writes (`-o`, `--in-place`) or checks (`--check`), in two passes over the batches:
/// the same output file, messages (the dialect written, identifiers renamed, letters decomposed, refusals),
/// summary (lines removed and added, counted batch by batch) and exit status as the whole-file path, on every
/// corpus file.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn fmt_streamed_equals_fmt_whole_on_the_corpus() {
    let dir = temp_dir("streaming", "fmt_corpus");
    let files = sorted_corpus();
    let mut failures = Vec::new();
    for (i, file) in files.iter().enumerate() {
        for args in [FMTS[0], FMTS[1 + i % (FMTS.len() - 1)]] {
            failures.extend(fmt_difference(&dir, file, args));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A generated file `fmt` formats (it has no error): pointers to records in later and earlier batches and to
/// no record, `@` signs, letters ANSEL lacks precomposed, long notes to re-wrap, `CONC` and `CONT` lines, CR LF
/// lines among LF ones (`CONC` in 5.5.1 only: 7.0 has none).
fn formattable(version: &str) -> Vec<u8> {
    let form = if version == "7.0" {
        ""
    } else {
        "2 FORM LINEAGE-LINKED\n"
    };
    let mut s = format!("0 HEAD\n1 GEDC\n2 VERS {version}\n{form}1 CHAR UTF-8\n");
    for i in 0..60 {
        s.push_str(&format!(
            "0 @I{i}@ INDI\n1 NAME Zoë{i} /Müller/\n1 FAMS @F{}@\n",
            i / 2
        ));
        if i % 4 == 0 {
            s.push_str("1 NOTE mail me@@example.com, a note long enough to be wrapped again at a short limit\n");
            if version != "7.0" {
                s.push_str("2 CONC  and more\n");
            }
            s.push_str("2 CONT a second line\n");
        }
        if i % 7 == 0 {
            s.push_str("1 ASSO @I1000@\r\n1 _X y  \n");
        }
    }
    for f in 0..30 {
        s.push_str(&format!("0 @F{f}@ FAM\n1 HUSB @I{}@\n", 2 * f));
    }
    if version != "7.0" {
        // A vertical tab takes an escape, which only ELF has (R-SERIALISATION-VERSION-01): found in the last
        // batch, after the header was written as 5.5.1 by the one pass, which then gives way to two.
        s.push_str("0 @N1@ NOTE a\u{b}b\n");
    }
    s.push_str("0 TRLR\n");
    s.into_bytes()
}

/// The same on generated files, and `fmt --in-place` (with `--backup`) as well; a file formatted already is
/// unchanged, and not touched in place.
#[test]
fn fmt_streamed_equals_fmt_whole_on_generated_files() {
    let dir = temp_dir("streaming", "fmt_generated");
    let mut failures = Vec::new();
    for version in ["5.5.1", "7.0"] {
        let original = formattable(version);
        let file = write(&dir, &format!("g{version}.ged"), &original);
        for args in FMTS {
            failures.extend(fmt_difference(&dir, &file, args));
            failures.extend(command_in_place_difference(&dir, &original, "fmt", args));
        }
        let done = run(
            &dir,
            &["fmt", file.to_str().unwrap_or("-"), "-o", "done.ged"],
            true,
            None,
        );
        assert_eq!(done.0, Some(0), "{}", String::from_utf8_lossy(&done.2));
        let formatted = std::fs::read(dir.join("done.ged")).expect("formatted");
        assert_ne!(formatted, original, "formatting changes the file");
        let elf = String::from_utf8_lossy(&formatted).contains("\n1 ELF 1.0.0\n");
        assert_eq!(
            elf,
            version != "7.0",
            "{}",
            String::from_utf8_lossy(&formatted)
        );
        failures.extend(fmt_difference(&dir, &dir.join("done.ged"), &[]));
        failures.extend(command_in_place_difference(&dir, &formatted, "fmt", &[]));
    }
    // An octet UTF-8 cannot decode past the head the stream detects from (64 KiB): its encoding note needs the
    // whole file, which tells it (found by a helper: the streamed `fmt` said it could not read the file).
    let mut bad = formattable("5.5.1");
    let body = bad.split_off(bad.len() - b"0 TRLR\n".len());
    for i in 0..4000 {
        bad.extend_from_slice(format!("0 @P{i}@ NOTE padding\n").as_bytes());
    }
    bad.extend_from_slice(b"0 @N2@ NOTE caf\xE9\n");
    bad.extend_from_slice(&body);
    let file = write(&dir, "bad-octet.ged", &bad);
    let outcome = run(
        &dir,
        &["fmt", "--check", file.to_str().unwrap_or("-")],
        false,
        None,
    );
    assert!(
        String::from_utf8_lossy(&outcome.2).contains("cannot be decoded as UTF-8"),
        "{}",
        String::from_utf8_lossy(&outcome.2)
    );
    failures.extend(fmt_difference(&dir, &file, &[]));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A batch's diagnostics are checked and repaired a slice of a few thousand at a time (#12: a record with a
/// level jump on every other line held a repair for each): one record of 5 000 level jumps, each with the
/// `lines-left-out` note that the human report shows under it (a slice is cut after a diagnostic and before
/// its note: one diagnostic comes first), long lines among them (whose repairs one re-wrap of the batch
/// makes), a duplicate identifier (a repair from what a first pass gathered) and a run of bare `@`s that goes
/// on into the next record (its repair the whole run's): `check`, its JSON and `--all`, and `fix
/// --repair-unsafe`, give what the whole file gives.
#[test]
fn a_batch_of_many_diagnostics_is_checked_a_slice_at_a_time_as_whole() {
    let dir = temp_dir("streaming", "slices");
    let mut text =
        String::from("0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n");
    text.push_str("0 @I1@ INDI\n1 NOTE a@b\n");
    for i in 0..5_000 {
        text.push_str("1 _X\n3 _Y\n");
        if i % 1_500 == 0 {
            text.push_str(&format!("1 NOTE {}\n", "w ".repeat(150)));
        }
    }
    text.push_str("1 NOTE c@d\n0 @I1@ INDI\n1 NOTE e@f\n0 @F1@ FAM\n1 HUSB @I1@\n0 TRLR\n");
    let file = write(&dir, "slices.ged", text.as_bytes());
    let path = file.to_str().expect("UTF-8 path");
    let mut failures = Vec::new();
    for args in [&[][..], &["--format", "json"], &["--all"]] {
        failures.extend(check_difference(&dir, &file, args));
    }
    let all = ["fix", "--repair-unsafe", path];
    failures.extend(sizes_difference(
        &dir,
        &all,
        (&["300", "100000"], &[]),
        None,
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The slices are there to be cut: more diagnostics than a slice holds, and every level jump reported.
    let json = run(&dir, &["check", "--format", "json", path], false, None);
    let report = String::from_utf8_lossy(&json.1);
    assert_eq!(report.matches("\"code\":\"level-jump\"").count(), 5_000);
    assert_eq!(report.matches("\"code\":\"lines-left-out\"").count(), 5_000);
}

/// `fix -o -` writes record by record (`fix --help`, `-o`): an edit a later batch refuses (`--delete TRLR`)
/// stops it with status 2 after the batches before it, as iconv stops at an octet it cannot convert, while
/// `-o FILE` is all or nothing: no file. The whole-file path, which reads the whole file first, writes nothing.
#[test]
fn a_stream_stops_after_what_came_before_and_a_file_is_all_or_nothing() {
    let dir = temp_dir("streaming", "stops");
    let text = generated("5.5.1");
    let file = write(&dir, "g.ged", &text);
    let path = file.to_str().expect("UTF-8 path");
    let out = dir.join("out.ged");
    let out_arg = out.to_str().expect("UTF-8 path");
    let stream = ["fix", path, "--delete", "TRLR", "-o", "-"];
    let (status, stdout, stderr, _) = run(&dir, &stream, false, None);
    assert_eq!(status, Some(2), "{}", String::from_utf8_lossy(&stderr));
    assert!(String::from_utf8_lossy(&stderr).contains("cannot delete the trailer"));
    assert!(!stdout.is_empty() && text.starts_with(&stdout) && stdout.len() < text.len());
    let whole = run(&dir, &stream, true, None);
    assert_eq!((whole.0, whole.1.len()), (Some(2), 0));
    let to_file = run(
        &dir,
        &["fix", path, "--delete", "TRLR", "-o", out_arg],
        false,
        Some(&out),
    );
    assert_eq!((to_file.0, to_file.3), (Some(2), None));
}

/// A file with identifiers held twice is refused by `fmt` streamed as by the whole-file path (#17: the whole
/// file's tree was read for the refusal alone): the errors counted in two passes, pointers to the identifiers
/// held twice before and after their holders, across batches, with other errors before and after.
#[test]
fn fmt_refuses_identifiers_held_twice_streamed_as_whole() {
    let dir = temp_dir("streaming", "fmt_twice");
    let mut text =
        String::from("0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n");
    for i in 0..30 {
        text.push_str(&format!("0 @I{i}@ INDI\n1 FAMS @F{}@\n", i % 4));
        if i % 7 == 3 {
            text.push_str("1 BIRT\n3 DATE 1900\n");
        }
        if i % 5 == 0 {
            text.push_str(&format!("0 @F{}@ FAM\n1 HUSB @I{i}@\n", i % 4));
        }
    }
    text.push_str("0 @I3@ NOTE held twice\n0 TRLR\n");
    let file = write(&dir, "twice.ged", text.as_bytes());
    let failures = fmt_difference(&dir, &file, &[]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let (status, _, stderr, _) = run(
        &dir,
        &["fmt", "--check", file.to_str().expect("UTF-8")],
        false,
        None,
    );
    assert_eq!(status, Some(2));
    assert!(String::from_utf8_lossy(&stderr).contains("not formatted: "));
}

/// What a stream holds in a temporary file (`fmt -o -` and `fix --repair` with other edits into a stream, the
/// whole output; `lower`, its diagnostics past 4 MiB) is written as the whole-file path writes it when no
/// temporary file can be made (`TMPDIR` unusable) or written (`ulimit -f`): found by a helper, the stream
/// exited 2 with "cannot write a temporary file" where the whole-file path wrote the file.
#[test]
fn no_temporary_file_to_be_had_is_no_failure() {
    let dir = temp_dir("streaming", "no-temporary-file");
    // 74 KB, clean but for a blank line (a safe repair).
    let mut blank =
        "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n".to_string();
    for i in 0..2000 {
        blank.push_str(&format!("0 @I{i}@ INDI\n1 NAME Ann{i} /Smith/\n"));
        if i == 1000 {
            blank.push('\n');
        }
    }
    blank.push_str("0 TRLR\n");
    let blank = write(&dir, "blank.ged", blank.as_bytes());
    let blank = blank.to_str().expect("UTF-8 path");
    // 20 000 pointers that lead to no record: over 4 MiB of diagnostics' JSON.
    let mut dangling = "0 HEAD\n1 CHAR UTF-8\n".to_string();
    for i in 0..20_000 {
        dangling.push_str(&format!("0 @I{i}@ INDI\n1 FAMC @Z{i}@\n"));
    }
    dangling.push_str("0 TRLR\n");
    let dangling = write(&dir, "dangling.ged", dangling.as_bytes());
    let dangling = dangling.to_str().expect("UTF-8 path");
    let commands: [&[&str]; 3] = [
        &["fmt", blank, "-o", "-"],
        &["fix", "--repair", "--escape-at", blank, "-o", "-"],
        &["lower", dangling],
    ];
    let no_directory = [("TMPDIR", "/nonexistent/gedgraft")];
    let mut failures = Vec::new();
    for all in commands {
        failures.extend(sizes_difference(&dir, all, (&["300"], &no_directory), None));
    }
    // A file-size limit the temporary file meets and standard output (a device) does not.
    for all in commands {
        let limited = |whole: bool| {
            let script = "ulimit -f 16; exec \"$0\" \"$@\" > /dev/null";
            let mut command = std::process::Command::new("bash");
            command.args(["-c", script, env!("CARGO_BIN_EXE_gedgraft")]);
            command.args(all).env_remove("GEDGRAFT_WHOLE_FILE");
            if whole {
                command.env("GEDGRAFT_WHOLE_FILE", "1");
            }
            let output = command.output().expect("run bash");
            (output.status.code(), output.stdout, output.stderr, None)
        };
        let (streamed, whole) = (limited(false), limited(true));
        let name = "streamed under `ulimit -f 16`";
        failures.extend(outcome_difference(all, (name, &streamed), &whole));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A value no structure of the file can take (a GEDCOM 7 identifier or pointer in lower case, a carriage return
/// in 7.0 text, U+FFFE anywhere) is refused before the first batch is written: streamed into standard output,
/// the batches before the one that picked it were printed first (found by a helper), where the whole-file path
/// prints nothing. Both now print nothing and exit 2, whether the selector picks anything or not.
#[test]
fn a_value_the_file_cannot_take_is_refused_before_any_output() {
    let dir = temp_dir("streaming", "refused-values");
    let mut seven = String::from("0 HEAD\n1 GEDC\n2 VERS 7.0\n");
    for i in 0..200 {
        seven.push_str(&format!(
            "0 @N{i}@ SNOTE a note of some length, number {i}\n"
        ));
    }
    seven.push_str("0 @I1@ INDI\n1 NOTE x\n0 TRLR\n");
    let file = write(&dir, "seven.ged", seven.as_bytes());
    let path = file.to_str().expect("UTF-8 path");
    let values: [[&str; 2]; 5] = [
        ["--set-xref", "@I1@=i9"],
        ["--set-pointer", "@N3@=f2"],
        ["--set", "@I1@.NOTE=a\rb"],
        ["--set", "@I1@.NOTE=a\u{fffe}b"],
        ["--set-xref", "@NOBODY@=i9"],
    ];
    for value in values {
        let mut all = vec!["fix", path, "-o", "-"];
        all.extend_from_slice(&value);
        for whole in [false, true] {
            let out = run(&dir, &all, whole, None);
            assert_eq!(out.0, Some(2), "{all:?} whole={whole}");
            assert!(
                out.1.is_empty(),
                "{all:?} whole={whole} wrote {} octets",
                out.1.len()
            );
        }
    }
}

/// Two `--set-xref` options that pick one structure are an edit error ("edits overlap") that the whole-file
/// path gives before it writes anything; streamed into standard output, the batches before that structure's
/// were written first (found by a helper). The first pass of `--set-xref` sees it and takes the whole-file
/// path.
#[test]
fn two_new_identifiers_for_one_structure_write_nothing() {
    let dir = temp_dir("streaming", "set-xref-twice");
    let file = write(
        &dir,
        "f.ged",
        b"0 HEAD\n0 @I1@ INDI\n0 @I2@ INDI\n0 @S1@ SUBM\n0 TRLR\n",
    );
    let path = file.to_str().expect("UTF-8 path");
    let mut failures = Vec::new();
    for sets in [
        ["--set-xref", "@S1@=NEW", "--set-xref", "@S1@=X"],
        ["--set-xref", "@S1@=NEW", "--set-xref", "SUBM=NEW"],
    ] {
        let mut all = vec!["fix", path, "-o", "-"];
        all.extend_from_slice(&sets);
        failures.extend(sizes_difference(&dir, &all, (&["1", "300"], &[]), None));
        let streamed = run(&dir, &all, false, None);
        assert_eq!(streamed.0, Some(2), "{all:?}");
        assert!(
            streamed.1.is_empty(),
            "{all:?} wrote {:?}",
            String::from_utf8_lossy(&streamed.1)
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `--join-conc` where raw octets end a line and start the next (`caf\xC3` and `\xA9 x` under `CHAR UTF-8`):
/// joined they would read as a character (`café x`), so the join is refused with a warning, streamed as whole,
/// and the other needless split (`NOTE y` / `CONC `) is joined. (Before the refusal this case found that the
/// whole-file path's diff marked an unchanged line after such a join as changed.)
#[test]
fn raw_octets_are_not_joined_into_a_character_streamed_or_whole() {
    let dir = temp_dir("streaming", "joined-raw-octets");
    let files: [(&str, &[u8]); 2] = [
        (
            "a.ged",
            b"0 HEAD\n1 NOTE caf\xc3\n2 CONC \xa9 x\n0 @S1@ SOUR\n1 NOTE y\n2 CONC \n0 TRLR\n\n",
        ),
        (
            "b.ged",
            b"0 @F2@ FAM\r\n1 NOTE caf\xc3\r\n2 CONC \xa9 x\r\n0 TRLR\r\n1 NOTE bad\xffoct\r\n0 @O1@ OBJE\r\n\r",
        ),
    ];
    let mut failures = Vec::new();
    for (name, text) in files {
        let file = write(&dir, name, text);
        let path = file.to_str().expect("UTF-8 path");
        let all = ["fix", "--join-conc", path];
        failures.extend(sizes_difference(&dir, &all, (&["1", "300"], &[]), None));
    }
    let whole = run(&dir, &["fix", "--join-conc", "a.ged"], true, None);
    let said = String::from_utf8_lossy(&whole.2);
    assert!(said.contains("1 edit, -1 +0 lines"), "{said}");
    assert!(
        said.contains("line 2: not re-wrapped: undecodable octets"),
        "{said}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The review diff of `fmt` streams only where every record, and every batch, starts after a LF: with LF CR
/// breaks a batch of one record ends in CR, and its own diff aligned the header's lines otherwise than the
/// whole file's (found by a helper at `GEDGRAFT_BATCH_SIZE=1`).
#[test]
fn fmt_review_of_lf_cr_lines_is_the_whole_files_in_batches_of_one_record() {
    let dir = temp_dir("streaming", "fmt_lf_cr");
    let text =
        b"0 HEAD\n\r1 SOUR X\n\r1 GEDC\n\r2 VERS 5.5.1\n\r2 FORM LINEAGE-LINKED\n\r1 NOE @#DJULIAN@ 1 TE a@b line\n\r\
2 CONT second\n\r1 BIRT\n\r2 DATE @#DJULIAN@ 1 JAN 1700\n\r1 FAMS @F1@\n\r0 @F1@ FAM\n\r1 WIFE @I2@\n\r1 HUSB @I1@\n\r0 TRLR\n\r";
    let file = write(&dir, "lfcr.ged", text);
    let path = file.to_str().expect("UTF-8 path");
    let mut failures = Vec::new();
    for args in [
        &["fmt", path][..],
        &["fmt", "--dialect", "gedcom-7.0", path][..],
    ] {
        failures.extend(sizes_difference(
            &dir,
            args,
            (&["1", "50", "300"], &[]),
            None,
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// R-LINE-STRINGS-02: `--eol` reads an LF directly followed by a CR as two line breaks and writes two (a blank
/// line between); a file that meant one break by each gains a blank line at every one, so the conversion says
/// how many pairs it met and how to join them (found by a helper), streamed as whole; `--join-lf-cr` is silent.
#[test]
fn lf_cr_pairs_written_as_two_breaks_are_warned_about() {
    let dir = temp_dir("streaming", "lf-cr-warning");
    let file = write(
        &dir,
        "f.ged",
        b"0 HEAD\n\r1 CHAR UTF-8\n\r0 @I1@ INDI\n\r0 TRLR\n\r",
    );
    let path = file.to_str().expect("UTF-8 path");
    for whole in [false, true] {
        let out = run(&dir, &["fix", path, "--eol", "lf", "-o", "-"], whole, None);
        assert_eq!(out.0, Some(0));
        assert_eq!(
            out.1,
            b"0 HEAD\n\n1 CHAR UTF-8\n\n0 @I1@ INDI\n\n0 TRLR\n\n"
        );
        let said = String::from_utf8_lossy(&out.2);
        assert!(
            said.contains("warning: 4 LF CR pairs read as two line breaks each"),
            "{said}"
        );
        let out = run(
            &dir,
            &["fix", path, "--eol", "lf", "--join-lf-cr", "-o", "-"],
            whole,
            None,
        );
        assert_eq!(out.1, b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n0 TRLR\n");
        // The pair after a line an edit rewrites (a transcode's `HEAD.CHAR`) is one too (found by a helper).
        let args = [
            "fix",
            path,
            "--eol",
            "crlf",
            "--to-encoding",
            "ASCII",
            "--join-lf-cr",
            "-o",
            "-",
        ];
        let out = run(&dir, &args, whole, None);
        assert_eq!(
            out.1,
            b"0 HEAD\r\n1 CHAR ASCII\r\n0 @I1@ INDI\r\n0 TRLR\r\n"
        );
        assert!(
            !String::from_utf8_lossy(&out.2).contains("LF CR"),
            "{}",
            String::from_utf8_lossy(&out.2)
        );
    }
}

/// File-wide warnings come in the whole-file path's order whichever batch met each first (a streamed
/// transcode gave the LF CR warning of the header's batch before the Unicode escapes of a later one: found by
/// a helper).
#[test]
fn file_wide_warnings_come_in_one_order_streamed_and_whole() {
    let dir = temp_dir("streaming", "warning-order");
    write(
        &dir,
        "f.ged",
        b"0 HEAD\n\r1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME \xc3\xa9\n0 TRLR\n",
    );
    let all = [
        "fix",
        "f.ged",
        "--to-encoding",
        "ASCII",
        "--eol",
        "cr",
        "-o",
        "out.ged",
    ];
    let failures = sizes_difference(&dir, &all, (&["1", "300"], &[]), None);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `lower FILE | …` (into a pipe, where nothing written can be taken back) lowers in one pass too (#17: two
/// passes took 2.4 s on the 100 MB sample into `wc -l`, one 2.0 s): the records' JSON is held aside, past
/// 4 MiB in a temporary file, taken back there when a pointer leads to no record, and written out once
/// complete. Its output is the whole file's with a dangling pointer late in the file (the JSON taken back
/// inside the temporary file) and early, with one held twice, and when no temporary file can be made
/// (`TMPDIR` missing: two passes, nothing lost).
#[test]
fn lower_into_a_pipe_holds_its_json_aside_in_one_pass() {
    let dir = temp_dir("streaming", "lower-pipe");
    let file = |dangling: usize, twice: usize| {
        let mut text = String::from("0 HEAD\n1 CHAR UTF-8\n");
        for i in 0..30_000 {
            let id = if i == twice { 0 } else { i };
            text.push_str(&format!(
                "0 @I{id}@ INDI\n1 NAME Ann{i} /Smith/\n1 FAMS @F{}@\n",
                i / 2
            ));
            if i == dangling {
                text.push_str("1 NOTE @N9@\n");
            }
        }
        for i in 0..15_000 {
            text.push_str(&format!("0 @F{i}@ FAM\n1 HUSB @I{}@\n", 2 * i));
        }
        text + "0 TRLR\n"
    };
    let missing = dir.join("missing");
    let missing = missing.to_str().expect("UTF-8 path");
    for (name, dangling, twice) in [
        ("late.ged", 25_000, 0),
        ("early.ged", 3, 0),
        ("twice.ged", 0, 20_000),
    ] {
        write(&dir, name, file(dangling, twice).as_bytes());
        let args = ["lower", name];
        let whole = run(&dir, &args, true, None);
        assert!(whole.1.len() > 8 << 20, "{name}: {} octets", whole.1.len());
        let batches = ("GEDGRAFT_BATCH_SIZE", "65536");
        for (how, env) in [
            ("piped", vec![batches]),
            ("no temporary file", vec![batches, ("TMPDIR", missing)]),
        ] {
            let got = run_env(&dir, &args, &env, None);
            assert!(
                outcome_difference(&args, (how, &got), &whole).is_none(),
                "{name} {how}: {:?} {} octets, {}",
                got.0,
                got.1.len(),
                String::from_utf8_lossy(&got.2)
            );
        }
    }
}

/// `lower FILE > /dev/null` (for the exit status and the messages alone) lowers in one pass, as into a file:
/// nothing written to the null device is kept, so nothing needs taking back (#17: two passes, 2.0 s on the
/// 100 MB sample, against 1.1 s). Its exit status and messages are those of two passes into a pipe, on files
/// that take the one pass back (a dangling pointer, an identifier held twice, `--strict` with an error).
#[test]
fn lower_into_the_null_device_tells_what_two_passes_tell() {
    let dir = temp_dir("streaming", "lower-null");
    let files: [(&str, &[u8]); 4] = [
        (
            "forward.ged",
            b"0 HEAD\n0 @I1@ INDI\n1 FAMS @F1@\n0 @F1@ FAM\n1 HUSB @I1@\n0 TRLR\n",
        ),
        (
            "dangling.ged",
            b"0 HEAD\n0 @I1@ INDI\n1 FAMS @F9@\n0 @F1@ FAM\n0 TRLR\n",
        ),
        (
            "twice.ged",
            b"0 HEAD\n0 @I1@ INDI\n0 @I1@ INDI\n1 NOTE x\n0 TRLR\n",
        ),
        ("jump.ged", b"0 HEAD\n0 @I1@ INDI\n3 NAME x\n0 TRLR\n"),
    ];
    for (name, octets) in files {
        write(&dir, name, octets);
        for strict in [false, true] {
            let mut args = vec!["lower", name];
            if strict {
                args.push("--strict");
            }
            let run = |null: bool| {
                let mut command = gedgraft_command(&dir, &args);
                command
                    .env("GEDGRAFT_BATCH_SIZE", "1")
                    .env_remove("GEDGRAFT_WHOLE_FILE");
                if null {
                    command.stdout(std::fs::File::create("/dev/null").expect("/dev/null"));
                }
                let out = command.output().expect("runs");
                (
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                )
            };
            assert_eq!(run(true), run(false), "{name} strict={strict}");
        }
    }
}
