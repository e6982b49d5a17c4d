//! `gedgraft fix --repair` and the repairs `check` shows (issue #16): a `= help:` line per fixable diagnostic
//! and rustc's summary, `"fix"` objects in JSON, `--repair`, `--repair-unsafe`, `--repair=CODE,…`, `--check`,
//! `-o` and `--in-place`.

#[macro_use]
mod common;

use common::{exit_code, fix_in, gedgraft_in, stderr, stdout, stdout_lossy, temp_dir, write};
use serde_json::Value;

/// A file with a raw line break in a note (safe: `CONT`), a bare `@` (safe), a blank line (safe), a level jump
/// (unsafe) and records after the trailer (safe).
const BROKEN: &[u8] =
    b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @I1@ INDI\n\
1 NOTE hello\nworld\n\n1 EMAIL a@b.c\n1 BIRT\n3 DATE 1900\n0 TRLR\n0 @I2@ INDI\n";

#[test]
fn check_shows_what_each_repair_does_and_how_many_are_fixable() {
    let dir = temp_dir("repair", "check-human");
    write(&dir, "broken.ged", BROKEN);
    let out = gedgraft_in(&dir, &["check", "broken.ged"]);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains(
        "= help: make the line a `2 CONT` line of the text above: it was cut by a raw line break (`gedgraft fix --repair`)"
    ), "{text}");
    assert!(text.contains(
        "help: 4 diagnostics fixable with `gedgraft fix --repair` (1 more with `--repair-unsafe`)"
    ), "{text}");
    assert_cli_snapshot!("repair_check_human", text);
}

#[test]
fn check_json_gives_each_fix_as_octet_edits() {
    let dir = temp_dir("repair", "check-json");
    write(&dir, "broken.ged", BROKEN);
    let out = gedgraft_in(&dir, &["check", "--format", "json", "broken.ged"]);
    let v: Value = serde_json::from_str(stdout(&out).trim()).expect("json");
    let diagnostics = v["diagnostics"].as_array().expect("diagnostics");
    let at = diagnostics
        .iter()
        .find(|d| d["code"] == "unescaped-at")
        .expect("unescaped-at");
    // The edit inserts `@` before the bare `@` at its octet offset (R-ESCAPING-01).
    let offset = at["offset"].as_u64().expect("offset");
    assert_eq!(at["fix"]["applicability"], "safe");
    assert_eq!(at["fix"]["edits"][0]["start"], offset);
    assert_eq!(at["fix"]["edits"][0]["end"], offset);
    assert_eq!(at["fix"]["edits"][0]["replacement"], "@");
    let jump = diagnostics
        .iter()
        .find(|d| d["code"] == "level-jump")
        .expect("level-jump");
    assert_eq!(jump["fix"]["applicability"], "unsafe");
    assert_eq!(jump["fix"]["edits"][0]["replacement"], "2");
    // A diagnostic with no repair has no `fix`.
    let left_out = diagnostics
        .iter()
        .find(|d| d["code"] == "lines-left-out")
        .expect("lines-left-out");
    assert!(left_out.get("fix").is_none());
}

#[test]
fn check_json_gives_non_utf8_replacements_in_hex() {
    let dir = temp_dir("repair", "check-hex");
    write(
        &dir,
        "split.ged",
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NOTE Jos\xC3\n2 CONC \xA9\n0 TRLR\n",
    );
    let out = gedgraft_in(&dir, &["check", "--format", "json", "split.ged"]);
    let v: Value = serde_json::from_str(stdout(&out).trim()).expect("json");
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "undecodable-octets");
    assert_eq!(d["fix"]["edits"][1]["replacement_hex"], "C3");
    assert!(d["fix"]["edits"][1].get("replacement").is_none());
}

#[test]
fn fix_repair_applies_the_safe_repairs_and_shows_a_diff() {
    let dir = temp_dir("repair", "diff");
    let file = write(&dir, "broken.ged", BROKEN);
    let out = fix_in(&dir, &["--repair", "broken.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_cli_snapshot!("repair_fix_diff", stdout_lossy(&out));
    assert_eq!(std::fs::read(&file).expect("read"), BROKEN, "untouched");
}

#[test]
fn fix_repair_unsafe_and_named_codes() {
    let dir = temp_dir("repair", "unsafe");
    write(&dir, "broken.ged", BROKEN);
    let out = fix_in(&dir, &["--repair-unsafe", "broken.ged", "-o", "out.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let repaired = std::fs::read(dir.join("out.ged")).expect("out");
    assert_eq!(
        String::from_utf8_lossy(&repaired),
        "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @I1@ INDI\n\
         1 NOTE hello\n2 CONT world\n1 EMAIL a@@b.c\n1 BIRT\n2 DATE 1900\n0 @I2@ INDI\n0 TRLR\n"
    );
    // Only the named code: the level jump, unsafe, applied because it was named.
    let out = fix_in(
        &dir,
        &["--repair=level-jump", "broken.ged", "-o", "jump.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let jump = std::fs::read(dir.join("jump.ged")).expect("out");
    let want = String::from_utf8_lossy(BROKEN).replace("3 DATE", "2 DATE");
    assert_eq!(String::from_utf8_lossy(&jump), want);
    // A code with no repair is refused.
    let out = fix_in(&dir, &["--repair=bad-tag", "broken.ged"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("no repair for `bad-tag`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn fix_repair_check_exits_1_when_a_repair_is_pending_and_in_place_writes() {
    let dir = temp_dir("repair", "check");
    let file = write(&dir, "broken.ged", BROKEN);
    assert_eq!(
        exit_code(&fix_in(&dir, &["--repair", "--check", "broken.ged"])),
        1
    );
    let out = fix_in(&dir, &["--repair", "--in-place", "broken.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_ne!(std::fs::read(&file).expect("read"), BROKEN);
    // Repaired to a fixed point: nothing safe is left.
    assert_eq!(
        exit_code(&fix_in(&dir, &["--repair", "--check", "broken.ged"])),
        0
    );
    assert_eq!(
        exit_code(&fix_in(&dir, &["--repair-unsafe", "--check", "broken.ged"])),
        1
    );
}

/// `--repair` on a file whose only repair is unsafe (a level jump, R-LINES-04) changes nothing and says how
/// many unsafe repairs `--repair-unsafe` would apply.
#[test]
fn safe_run_hints_at_unsafe_repairs_it_left() {
    let dir = temp_dir("repair", "unsafe-hint");
    write(
        &dir,
        "jump.ged",
        b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @I1@ INDI\n1 BIRT\n3 DATE 1900\n0 TRLR\n",
    );
    let out = gedgraft_in(&dir, &["fix", "--repair", "jump.ged"]);
    let err = stderr(&out);
    assert!(
        err.contains("jump.ged: hint: 1 unsafe repair available with `--repair-unsafe`"),
        "{err}"
    );
    assert!(err.contains("jump.ged: unchanged"), "{err}");
}

/// A run of level jumps longer than the passes (each pass renumbers one line, R-LINES-04): the run stops after
/// `MAX_PASSES` with a warning that repairs are left, and running it again on the output continues.
#[test]
fn repairs_left_after_the_last_pass_are_reported() {
    let dir = temp_dir("repair", "passes-left");
    let mut text = String::from(
        "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @I1@ INDI\n",
    );
    for level in (1..60).step_by(2) {
        text.push_str(&format!("{level} _X x\n"));
    }
    text.push_str("0 TRLR\n");
    write(&dir, "jumps.ged", text.as_bytes());
    let out = gedgraft_in(
        &dir,
        &["fix", "--repair-unsafe", "jumps.ged", "-o", "once.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("repair left after 16 passes") || err.contains("repairs left after 16 passes"),
        "{err}"
    );
    let again = gedgraft_in(
        &dir,
        &["fix", "--repair-unsafe", "once.ged", "-o", "twice.ged"],
    );
    assert!(
        stderr(&again).contains("once.ged: changed"),
        "{}",
        stderr(&again)
    );
}

/// The `CONC` line a `line-too-long` repair adds (safe) is not indented like a neighbour whose indentation
/// the others do not share (a space before `2 LANG` or a tab before `2 DATE`: `leading-whitespace` warnings): the repaired
/// file has no warning the original had not.
#[test]
fn a_new_conc_line_does_not_copy_a_stray_indentation() {
    let dir = temp_dir("repair", "stray-indent");
    let x = "x".repeat(300);
    let head = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @I1@ INDI\n";
    for (name, body) in [
        ("space.ged", format!("1 NOTE {x}\n 2 LANG en\n")),
        ("tab.ged", format!("1 NOTE {x}\n\t2 DATE b\n")),
    ] {
        write(&dir, name, format!("{head}{body}0 TRLR\n").as_bytes());
        let fixed = gedgraft_in(&dir, &["fix", "--repair", name, "-o", "fixed.ged"]);
        assert_eq!(exit_code(&fixed), 0, "{}", stderr(&fixed));
        let count = |file: &str| {
            let out = gedgraft_in(&dir, &["check", "--format", "json", file]);
            stdout(&out)
                .matches("\"code\":\"leading-whitespace\"")
                .count()
        };
        assert_eq!((count(name), count("fixed.ged")), (1, 1), "{name}");
        let text = std::fs::read_to_string(dir.join("fixed.ged")).expect("written");
        assert!(text.contains("\n2 CONC x"), "{text}");
    }
}

/// A file that indents by level keeps doing so on the `CONC` lines a repair adds, at a level no neighbour
/// has: levels 0 and 1 flush with the margin and two spaces a level below (as a corpus file writes
/// `1 NAME`, `  2 SURN`, `    3 TIME`).
#[test]
fn a_new_conc_line_is_indented_as_the_file_indents_its_levels() {
    let dir = temp_dir("repair", "indented");
    let long = "y".repeat(300);
    let text = format!(
        "0 HEAD\n1 GEDC\n  2 VERS 5.5.1\n  2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @I1@ INDI\n1 RESI\n  2 DATE 1900\n  2 NOTE {long}\n0 TRLR\n"
    );
    write(&dir, "indented.ged", text.as_bytes());
    let fixed = gedgraft_in(
        &dir,
        &["fix", "--repair", "indented.ged", "-o", "fixed.ged"],
    );
    assert_eq!(exit_code(&fixed), 0, "{}", stderr(&fixed));
    let out = std::fs::read_to_string(dir.join("fixed.ged")).expect("written");
    assert!(out.contains("\n    3 CONC "), "{out}");
}
