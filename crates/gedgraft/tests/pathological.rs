//! Pathological inputs (issue #12): no input may make any command panic (exit 101) or die of a signal.
//!
//! Each input is generated here, in a scratch directory, and every command runs on it under a memory cap, so a
//! regression fails the test instead of taking the machine's memory. Speed is not asserted here (operation
//! counts in the crates' unit tests do that).

mod common;

use common::temp_dir;
use std::path::Path;
use std::process::{Command, Output};

/// The folder of this file's scratch directories under Cargo's temporary directory.
const SUITE: &str = "gedgraft-pathological";

/// Address space each child process may use, in KiB (`ulimit -v`): the inputs are a few megabytes.
const MEMORY_CAP_KIB: u64 = 3_000_000;

/// Runs `gedgraft ARGS` in `dir` with its memory capped.
fn gedgraft(dir: &Path, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_CAP_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_gedgraft"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run gedgraft")
}

/// `0 NOTE ` and `n` × `a`, then an undecodable octet: a diagnostic at column `n + 8`.
fn long_line(n: usize) -> Vec<u8> {
    let mut bytes = b"0 NOTE ".to_vec();
    bytes.extend(std::iter::repeat_n(b'a', n));
    bytes.push(0xFF);
    bytes
}

/// A record nested `depth` levels deep (R-LINES-03: no upper limit on levels).
fn deep(depth: usize) -> Vec<u8> {
    let mut text = String::from("0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n");
    for level in 1..depth {
        text.push_str(&format!("{level} _X\n"));
    }
    text.push_str("0 TRLR\n");
    text.into_bytes()
}

/// The inputs of issue #12, items 7, 8, 10 and 12, by name.
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let mut escapes = b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE ".to_vec();
    for _ in 0..20_000 {
        escapes.extend(b"@#x@ ");
    }
    escapes.extend(b"\n0 TRLR\n");
    vec![
        // Item 7: the caret of a diagnostic at column 65 532, and past 65 537 (`{:pad$}` panicked).
        ("long-line.ged", long_line(65_524)),
        ("longer-line.ged", long_line(70_000)),
        ("nul.ged", vec![0; 1 << 20]),
        ("at-signs.ged", vec![b'@'; 2 << 20]),
        // Many diagnostics on one long line: each shows a window of the line, not all of it.
        ("escapes.ged", escapes),
        // Item 10: the dump's indentation made its output quadratic in the depth.
        ("deep.ged", deep(20_000)),
        // Item 8: one blank-line diagnostic per line among many siblings.
        ("crlf.ged", b"\r\n".repeat(200_000)),
        // Item 12: levels past the largest level.
        (
            "levels.ged",
            b"0 HEAD\n0 @I1@ INDI\n1 NAME A\n4294967296 Y\n99999999999999999999 X\n2 DATE 1\n0 TRLR\n"
                .to_vec(),
        ),
    ]
}

#[test]
fn no_command_panics_on_pathological_inputs() {
    let dir = temp_dir(SUITE, "commands");
    let commands: [&[&str]; 8] = [
        &["check"],
        &["check", "--format", "json"],
        &["check", "--strict"],
        &["dump"],
        &["lower"],
        &["fix", "-o", "out.ged"],
        &["fix", "--escape-at", "-o", "out.ged"],
        &["fix", "--rewrap", "-o", "out.ged"],
    ];
    let mut failures = Vec::new();
    for (name, bytes) in inputs() {
        std::fs::write(dir.join(name), &bytes).expect("write input");
        for command in commands {
            let mut args = command.to_vec();
            args.push(name);
            let out = gedgraft(&dir, &args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let shown = args.join(" ");
            match out.status.code() {
                None => failures.push(format!("`{shown}` was killed by a signal")),
                Some(101) => failures.push(format!("`{shown}` exited 101: {stderr:.400}")),
                Some(_) if stderr.contains("panicked") => {
                    failures.push(format!("`{shown}` panicked: {stderr:.400}"))
                }
                Some(_) => {}
            }
            // With no edit option `fix -o` writes the input back, octet for octet.
            if command == ["fix", "-o", "out.ged"] && out.status.code() == Some(0) {
                let written = std::fs::read(dir.join("out.ged")).expect("read output");
                if written != bytes {
                    failures.push(format!("`{shown}` did not write the input back"));
                }
            }
            let _ = std::fs::remove_file(dir.join("out.ged"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Item 12: an out-of-range level is one clear diagnostic quoting the level as written (R-LINES-03), never a
/// saturated number.
#[test]
fn r_lines_03_out_of_range_levels_are_quoted_as_written() {
    let dir = temp_dir(SUITE, "levels");
    // Not neighbours: a run of one code on neighbouring lines is one diagnostic with a count.
    let input =
        b"0 HEAD\n0 @I1@ INDI\n1 NAME A\n4294967296 Y\n1 SEX M\n99999999999999999999 X\n0 TRLR\n";
    std::fs::write(dir.join("levels.ged"), input).expect("write input");
    let out = gedgraft(&dir, &["check", "levels.ged"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("error[level-out-of-range]: level `4294967296` is out of range"),
        "{text}"
    );
    assert!(
        text.contains("error[level-out-of-range]: level `99999999999999999999` is out of range"),
        "{text}"
    );
    assert!(!text.contains("18446744073709551615"), "{text}");
    assert!(!text.contains("level-jump"), "{text}");
}

/// Item 10: past 64 levels the dump shows the depth as a number instead of indenting further.
#[test]
fn dump_of_a_deep_file_shows_deep_depths_as_numbers() {
    let dir = temp_dir(SUITE, "dump");
    std::fs::write(dir.join("deep.ged"), deep(1_000)).expect("write input");
    let out = gedgraft(&dir, &["dump", "deep.ged"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).expect("UTF-8 dump");
    let widest = text
        .lines()
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .max();
    assert_eq!(widest, Some(128), "indentation stops at 64 levels");
    // DOCUMENT, RECORD INDI at depth 1, then the structure of level L at depth L + 1.
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("[depth 1000] STRUCTURE@")),
        "the structure of level 999"
    );
    assert!(text
        .lines()
        .any(|l| l.trim_start().starts_with("[depth 65] ")));
    assert!(!text.contains("[depth 64]"));
}
