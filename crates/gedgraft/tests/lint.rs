//! `gedgraft check` as a linter people live with (issue 13): floods of one code cut to their first few, the
//! record each diagnostic is in, `= help:` lines and `gedgraft explain`, colour, and snippets that show what the
//! lowering and the review diff show.

#[macro_use]
mod common;

use common::{exit_code, gedgraft, gedgraft_command, gedgraft_in, stderr, stdout, temp_dir, write};
use serde_json::Value;

/// A file with `n` bad tags, each between good lines (so each is a diagnostic of its own, not a run), and two
/// level jumps.
fn flood(n: usize) -> Vec<u8> {
    let mut input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n".to_vec();
    for i in 0..n {
        input.extend(format!("1 NA*ME n{i}\n1 SEX F\n").as_bytes());
    }
    input.extend(b"0 @I2@ INDI\n2 NAME x\n0 @I3@ INDI\n2 NAME y\n0 TRLR\n");
    input
}

#[test]
fn a_flood_of_one_code_shows_its_first_five_and_counts_the_rest() {
    let dir = temp_dir("lint", "flood");
    write(&dir, "flood.ged", &flood(300));
    let out = gedgraft_in(&dir, &["check", "flood.ged"]);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.matches("error[bad-tag]").count(), 5, "{text}");
    assert_eq!(text.matches("error[level-jump]").count(), 2, "{text}");
    // The explanation pointers come once per code, with its first diagnostic.
    assert_eq!(
        text.matches("= note: see `gedgraft explain bad-tag`")
            .count(),
        1
    );
    assert_cli_snapshot!("lint_flood", text);

    let all = stdout(&gedgraft_in(&dir, &["check", "--all", "flood.ged"]));
    assert_eq!(all.matches("error[bad-tag]").count(), 300);
    assert!(!all.contains("--all shows"), "{all}");
    // Each bad line and level jump is also left out of the dataset: a `lines-left-out` note (a warning) each.
    assert!(all.ends_with("flood.ged: 302 errors, 302 warnings (encoding UTF-8)\n"));

    // JSON always has everything.
    let json = stdout(&gedgraft_in(
        &dir,
        &["check", "--format", "json", "flood.ged"],
    ));
    let v: Value = serde_json::from_str(json.trim()).expect("one JSON object");
    let diagnostics = v["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(
        diagnostics
            .iter()
            .filter(|d| d["code"] == "bad-tag")
            .count(),
        300
    );
}

#[test]
fn a_left_out_warning_is_counted_as_a_warning_and_no_warnings_leaves_it_out() {
    // Blank lines between good lines: a warning each, not one run.
    let mut input = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
    for _ in 0..7 {
        input.extend(b"1 NOTE a\n\n");
    }
    input.extend(b"0 TRLR\n");
    let dir = temp_dir("lint", "warnings");
    write(&dir, "w.ged", &input);
    let text = stdout(&gedgraft_in(&dir, &["check", "w.ged"]));
    assert!(
        text.contains("\u{2026} and 2 more blank-line warnings; --all shows every one\n"),
        "{text}"
    );
    let text = stdout(&gedgraft_in(&dir, &["check", "--no-warnings", "w.ged"]));
    assert_eq!(text, "w.ged: 0 errors, 7 warnings (encoding UTF-8)\n");
}

/// The record each diagnostic is in, as a genealogy program shows it: by identifier and tag, `the header`,
/// `the trailer`, or tag and line when it has no identifier.
const RECORDS: &[u8] =
    b"0 HEAD\n1 CHAR UTF-8\n1 @C1@ GEDC\n0 @I643@ INDI\n1 NA*ME Ann\n0 NOTE free\n2 SOUR x\n\
0 TRLR junk\n\x1a";

#[test]
fn each_diagnostic_names_the_record_it_is_in() {
    let dir = temp_dir("lint", "records");
    write(&dir, "records.ged", RECORDS);
    let out = gedgraft_in(&dir, &["check", "records.ged"]);
    let text = stdout(&out);
    for place in [
        ", in the header\n",
        ", in @I643@ INDI\n",
        ", in NOTE on line 6\n",
        ", in the trailer\n",
        ", after the trailer\n",
    ] {
        assert!(text.contains(place), "{place:?} in\n{text}");
    }
    assert_cli_snapshot!("lint_records", text);

    let json = stdout(&gedgraft_in(
        &dir,
        &["check", "--format", "json", "records.ged"],
    ));
    let v: Value = serde_json::from_str(json.trim()).expect("one JSON object");
    let records: Vec<String> = v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| format!("{} {}", d["code"], d["record"]))
        .collect();
    assert!(
        records.contains(&r#""bad-tag" {"xref":"I643","tag":"INDI","line":4}"#.to_string()),
        "{records:#?}"
    );
    assert!(
        records.contains(&r#""level-jump" {"xref":null,"tag":"NOTE","line":6}"#.to_string()),
        "{records:#?}"
    );
    assert!(
        records.contains(&r#""junk-after-trailer" null"#.to_string()),
        "{records:#?}"
    );
}

#[test]
fn duplicate_xref_underlines_the_identifier() {
    let dir = temp_dir("lint", "duplicate");
    write(
        &dir,
        "d.ged",
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n0 @I1@ INDI\n0 TRLR\n",
    );
    let text = stdout(&gedgraft_in(&dir, &["check", "d.ged"]));
    assert!(
        text.contains("4 | 0 @I1@ INDI\n  |   ^^^^\n"),
        "the carets mark @I1@:\n{text}"
    );
}

/// ANSEL's `CD` (a midline e) and `C7` (eszett) are kept as raw octets, since they do not survive a round
/// trip; the snippet shows the character they stand for, as the lowering and the review diff do, not `�`.
#[test]
fn ansel_snippets_show_what_the_review_diff_shows() {
    let dir = temp_dir("lint", "ansel");
    let input = b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NOTE Stra\xc7e a @#x@ \xcd\n0 TRLR\n";
    write(&dir, "a.ged", input);
    let text = stdout(&gedgraft_in(&dir, &["check", "a.ged"]));
    let shown = "1 NOTE Stra\u{df}e a @#x@ e";
    assert!(text.contains(&format!("4 | {shown}\n")), "{text}");
    assert!(!text.contains('\u{FFFD}'), "{text}");
    let diff = stdout(&gedgraft_in(
        &dir,
        &["fix", "--rename-tag", "NOTE=_NOTE", "a.ged"],
    ));
    assert!(diff.contains(&format!("\n-{shown}\n")), "{diff}");
    // An octet that does not decode at all is an escape, as in the review diff.
    write(
        &dir,
        "b.ged",
        b"0 HEAD\n1 CHAR UTF-8\n1 NOTE caf\xe9\n0 TRLR\n",
    );
    let text = stdout(&gedgraft_in(&dir, &["check", "b.ged"]));
    assert!(
        text.contains("3 | 1 NOTE caf\\xE9\n  |           ^^^^\n"),
        "{text}"
    );
}

#[test]
fn explain_tells_what_a_code_means_and_how_to_fix_it() {
    let out = gedgraft(&["explain", "bad-tag"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    for part in [
        "Class: malformed line",
        "Rule: R-TAGS-01",
        "Example:",
        "How to fix it:",
    ] {
        assert!(text.contains(part), "{part} in\n{text}");
    }
    assert_cli_snapshot!("lint_explain_bad_tag", text);
    // The code as `check` prints it works too.
    assert_eq!(stdout(&gedgraft(&["explain", "error[bad-tag]"])), text);
    assert_eq!(stdout(&gedgraft(&["explain", "[bad-tag]:"])), text);
}

#[test]
fn explain_with_no_code_lists_every_code() {
    let out = gedgraft(&["explain"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    // One from each of the three crates that declare codes.
    for code in ["bad-tag", "declared-encoding-mismatch", "duplicate-xref"] {
        assert!(text.contains(&format!("\n  {code} ")), "{code} in\n{text}");
    }
    assert_cli_snapshot!("lint_explain_list", text);
}

#[test]
fn explain_of_an_unknown_code_exits_2() {
    let out = gedgraft(&["explain", "no-such-code"]);
    assert_eq!(exit_code(&out), 2);
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out)
            .contains("no diagnostic code `no-such-code`; `gedgraft explain` lists them all"),
        "{}",
        stderr(&out)
    );
}

/// Colour as rustc has it, with the escape character made visible.
#[test]
fn color_always_colours_severity_code_gutter_and_carets() {
    let out = gedgraft(&["check", "--color", "always", "errors.ged"]);
    let text = stdout(&out).replace('\x1b', "\u{241b}");
    assert!(
        text.contains("\u{241b}[1m\u{241b}[91merror[level-jump]\u{241b}[0m"),
        "{text}"
    );
    assert_cli_snapshot!("lint_color_always", text);
}

/// Whether `check` colours with the environment variable `name` set to `value` and arguments `args`, its
/// output a pipe.
fn coloured(env: &[(&str, &str)], args: &[&str]) -> bool {
    let mut command = gedgraft_command(&common::data_dir(), &["check"]);
    command.args(args).arg("errors.ged");
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().expect("run gedgraft");
    out.stdout.contains(&0x1b)
}

#[test]
fn colour_follows_no_color_clicolor_force_and_the_option() {
    assert!(!coloured(&[], &[]), "a pipe gets no colour");
    assert!(coloured(&[("CLICOLOR_FORCE", "1")], &[]));
    assert!(!coloured(
        &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")],
        &[]
    ));
    assert!(!coloured(&[("CLICOLOR_FORCE", "1")], &["--color", "never"]));
    assert!(coloured(&[("NO_COLOR", "1")], &["--color", "always"]));
    assert!(!coloured(&[], &["--color", "always", "--format", "json"]));
}

/// On a terminal (a pseudo-terminal made by `script`) `check` colours; with `NO_COLOR` it does not.
#[test]
fn a_terminal_gets_colour_unless_no_color_is_set() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("script(1) not found: skipped");
        return;
    }
    let run = |no_color: bool| {
        let line = format!("'{}' check errors.ged", env!("CARGO_BIN_EXE_gedgraft"));
        let mut command = std::process::Command::new("script");
        command
            .args(["-qec", &line, "/dev/null"])
            .current_dir(common::data_dir())
            .env("TERM", "xterm-256color");
        for name in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
            command.env_remove(name);
        }
        if no_color {
            command.env("NO_COLOR", "1");
        }
        command.output().expect("run script")
    };
    let out = run(false);
    assert!(out.stdout.contains(&0x1b), "{}", stdout(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("level-jump"));
    let out = run(true);
    assert!(!out.stdout.contains(&0x1b), "{}", stdout(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("level-jump"));
}

#[test]
fn help_of_check_and_explain_teaches_by_example() {
    let check = stdout(&gedgraft(&["check", "--help"]));
    for part in [
        "Examples:",
        "gedgraft explain bad-tag",
        "--all",
        "--color",
        "NO_COLOR",
    ] {
        assert!(check.contains(part), "{part} in\n{check}");
    }
    let explain = stdout(&gedgraft(&["explain", "--help"]));
    assert!(
        explain.contains("Examples:") && explain.contains("gedgraft explain bad-tag"),
        "{explain}"
    );
}

/// No line of the report is much longer than a terminal: a line of 300 or 600 characters is cut around the
/// caret, and the caret stays under what it marks.
#[test]
fn long_source_lines_are_cut_around_the_caret() {
    let dir = temp_dir("lint", "long_lines");
    for len in [160, 300, 600, 5000] {
        let mut input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NOTE ".to_vec();
        input.extend(std::iter::repeat_n(b'a', len));
        input.extend(b"\n1 N@ME ");
        input.extend(std::iter::repeat_n(b'b', len));
        input.extend(b"\n0 TRLR\n");
        write(&dir, "long.ged", &input);
        let out = stdout(&gedgraft_in(&dir, &["check", "long.ged"]));
        let widest = out.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(
            widest <= 170,
            "{len}: a line of {widest} characters:\n{out}"
        );
        assert!(out.contains("bad-tag"), "{out}");
        assert_eq!(out.contains("line-too-long"), len > 250, "{out}");
        // The bad tag's caret starts under its `@`, where the diagnostic points.
        let source = out.lines().find(|l| l.contains("1 N@ME")).expect("snippet");
        let caret = out
            .lines()
            .skip_while(|l| !l.contains("1 N@ME"))
            .nth(1)
            .expect("caret line");
        assert_eq!(source.find("@ME"), caret.find('^'), "{source}\n{caret}");
    }
}

/// Text a message quotes from the file cannot act on the terminal: control characters and undecodable octets
/// are shown as `\x1B` and `\xFF`, in the human report and in JSON alike.
#[test]
fn messages_quote_control_characters_escaped() {
    let dir = temp_dir("lint", "control_in_messages");
    write(
        &dir,
        "inj.ged",
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1\x1b[2J\x1b]0;pwned\x07 NAME x\n1 NOTE \xff\n0 TRLR\n",
    );
    let out = gedgraft_in(&dir, &["check", "inj.ged"]);
    let text = stdout(&out);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    assert!(
        text.contains(r"`1\x1B[2J\x1B]0;pwned\x07` is not a level number"),
        "{text}"
    );
    let json = stdout(&gedgraft_in(
        &dir,
        &["check", "--format", "json", "inj.ged"],
    ));
    assert!(json.contains(r"1\\x1B[2J"), "{json}");
    assert!(!json.contains("\\u001b"), "{json}");
}
