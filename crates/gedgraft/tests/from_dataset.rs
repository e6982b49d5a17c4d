//! Integration tests of `gedgraft fix --from-dataset NEW.json FILE`: the jq round trip. Each test edits the JSON
//! that `gedgraft lower` prints (in Rust, as `jq` would), runs `fix --from-dataset`, and checks that the output
//! differs from the input only in the changed structures' lines (every other octet, with its odd formatting,
//! stays) and that the output lowers to the edited dataset. Changes no edit expresses exit 2 and write nothing.

#[macro_use]
mod common;

use common::{corpus_file, exit_code, gedgraft_in, stderr, stdout, temp_dir, write};
use gedgraft_model::{compare, from_json, lower, LowerOptions};
use gedgraft_test_support::Rng;
use serde_json::{json, Value};
use std::path::Path;

const SUITE: &str = "gedgraft-from-dataset";

/// CR LF, indentation, `@@`, a CONC split, a trailing space: formatting the edits must keep.
const FILE: &[u8] = concat!(
    "0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n  1 NAME John /Smith/\r\n  1 EMAIL bob@@example.com\r\n",
    "  1 NOTE long no\r\n    2 CONC te \r\n  1 FAMS @F1@\r\n0 @I2@ INDI\r\n  1 NAME Ann\r\n  1 _UID 7\r\n",
    "0 @F1@ FAM\r\n  1 HUSB @I1@\r\n0 TRLR\r\n"
)
.as_bytes();

/// `gedgraft lower f.ged`, as a JSON value.
fn lowered(dir: &Path) -> Value {
    let out = gedgraft_in(dir, &["lower", "f.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("lower prints JSON")
}

/// Writes FILE, edits its dataset JSON with `edit`, runs `fix --from-dataset d2.json f.ged -o out.ged`, checks
/// that `out.ged` lowers to d2.json, and returns its octets.
fn round_trip(test: &str, file: &[u8], edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let dir = temp_dir(SUITE, test);
    write(&dir, "f.ged", file);
    let mut dataset = lowered(&dir);
    edit(&mut dataset);
    let d2 = serde_json::to_string_pretty(&dataset).expect("JSON");
    write(&dir, "d2.json", d2.as_bytes());
    let out = gedgraft_in(
        &dir,
        &["fix", "--from-dataset", "d2.json", "f.ged", "-o", "out.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let output = std::fs::read(dir.join("out.ged")).expect("output");
    let parse = gedgraft_syntax::parse(&output);
    let got = lower(&parse, &LowerOptions::default()).dataset;
    let want = from_json(&d2).expect("d2.json reads back");
    let left = compare(&got, &want);
    assert!(left.is_empty(), "lower(output) != d2:\n{left}");
    output
}

/// The records array.
fn records(d: &mut Value) -> &mut Vec<Value> {
    d["records"].as_array_mut().expect("records")
}

/// Record `r`'s children.
fn children(d: &mut Value, r: usize) -> &mut Vec<Value> {
    records(d)[r]["children"].as_array_mut().expect("children")
}

/// The input with `from` replaced by `to` (once): the expected output of a local edit.
fn replaced(from: &str, to: &str) -> Vec<u8> {
    let text = String::from_utf8(FILE.to_vec()).expect("UTF-8");
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1).into_bytes()
}

#[test]
fn a_changed_payload_changes_its_line_only() {
    let out = round_trip("payload", FILE, |d| {
        children(d, 0)[0]["payload"]["text"] = json!("John /Smyth/ john@example.com");
    });
    assert_eq!(
        out,
        replaced(
            "1 NAME John /Smith/\r\n",
            "1 NAME John /Smyth/ john@@example.com\r\n"
        )
    );
}

#[test]
fn a_changed_tag() {
    let out = round_trip("tag", FILE, |d| {
        children(d, 1)[1]["tag"] = json!("UID");
    });
    assert_eq!(out, replaced("  1 _UID 7\r\n", "  1 UID 7\r\n"));
}

#[test]
fn an_added_child_takes_its_neighbours_style() {
    let out = round_trip("added", FILE, |d| {
        children(d, 1).insert(
            1,
            json!({"xref": null, "tag": "SEX", "payload": {"text": "F", "lang": "und"}, "children": []}),
        );
    });
    assert_eq!(
        out,
        replaced("  1 NAME Ann\r\n", "  1 NAME Ann\r\n  1 SEX F\r\n")
    );
}

#[test]
fn a_deleted_structure_takes_its_continuation_lines_along() {
    let out = round_trip("deleted", FILE, |d| {
        children(d, 0).remove(2);
    });
    assert_eq!(out, replaced("  1 NOTE long no\r\n    2 CONC te \r\n", ""));
}

#[test]
fn a_moved_structure_keeps_its_octets() {
    let out = round_trip("moved", FILE, |d| {
        let note = children(d, 0).remove(2);
        children(d, 1).push(note);
    });
    let text = String::from_utf8(FILE.to_vec())
        .expect("UTF-8")
        .replacen("  1 NOTE long no\r\n    2 CONC te \r\n", "", 1)
        .replacen(
            "  1 _UID 7\r\n",
            "  1 _UID 7\r\n  1 NOTE long no\r\n    2 CONC te \r\n",
            1,
        );
    assert_eq!(String::from_utf8(out).expect("UTF-8"), text);
}

#[test]
fn a_renamed_identifier_takes_its_pointers_along() {
    let out = round_trip("xref", FILE, |d| {
        records(d)[0]["xref"] = json!("P1");
        children(d, 2)[0]["payload"]["pointer"] = json!("P1");
    });
    let text = String::from_utf8(FILE.to_vec())
        .expect("UTF-8")
        .replace("@I1@", "@P1@");
    assert_eq!(String::from_utf8(out).expect("UTF-8"), text);
}

#[test]
fn an_added_record_goes_where_the_dataset_has_it() {
    let out = round_trip("record", FILE, |d| {
        records(d).insert(
            1,
            json!({"xref": "N1", "tag": "NOTE", "payload": {"text": "two\nlines", "lang": "en"}, "children": []}),
        );
    });
    assert_eq!(
        out,
        replaced(
            "0 @I2@ INDI\r\n",
            "0 @N1@ NOTE two\r\n  1 CONT lines\r\n  1 PLANG en\r\n0 @I2@ INDI\r\n"
        )
    );
}

#[test]
fn one_payload_in_a_corpus_file_changes_one_line() {
    let original = std::fs::read(corpus_file("gedcom4j/sample/5.5.1 sample 2.ged")).expect("read");
    let out = round_trip("corpus", &original, |d| {
        let records = records(d);
        let last = records.len() - 1;
        let child = &mut records[last]["children"][0];
        child["payload"] = json!({"text": "edited by jq", "lang": "und"});
    });
    let (a, b): (Vec<&[u8]>, Vec<&[u8]>) = (
        original.split(|&c| c == b'\n').collect(),
        out.split(|&c| c == b'\n').collect(),
    );
    assert_eq!(a.len(), b.len(), "no line added or removed");
    let differing: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    assert_eq!(differing.len(), 1, "{differing:?}");
    assert!(String::from_utf8_lossy(b[differing[0]]).contains("edited by jq"));
}

#[test]
fn the_default_is_a_review_diff_and_check_and_in_place_work_as_for_fix() {
    let dir = temp_dir(SUITE, "modes");
    write(&dir, "f.ged", FILE);
    let mut d = lowered(&dir);
    children(&mut d, 1)[0]["payload"]["text"] = json!("Anne");
    write(&dir, "d2.json", d.to_string().as_bytes());
    let out = gedgraft_in(&dir, &["fix", "--from-dataset", "d2.json", "f.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_cli_snapshot!("from_dataset_review_diff", stdout(&out));
    let out = gedgraft_in(
        &dir,
        &["fix", "--check", "--from-dataset", "d2.json", "f.ged"],
    );
    assert_eq!(exit_code(&out), 1);
    let out = gedgraft_in(
        &dir,
        &["fix", "--in-place", "--from-dataset", "d2.json", "f.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read(dir.join("f.ged")).expect("read"),
        replaced("  1 NAME Ann\r\n", "  1 NAME Anne\r\n")
    );
    // Now the file holds the dataset: nothing more to do.
    let out = gedgraft_in(
        &dir,
        &["fix", "--check", "--from-dataset", "d2.json", "f.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
}

/// Runs `fix --from-dataset` on an edit no editor call expresses: exit 2, the message, no output file.
fn refused(test: &str, edit: impl FnOnce(&mut Value)) -> String {
    let dir = temp_dir(SUITE, test);
    write(&dir, "f.ged", FILE);
    let mut d = lowered(&dir);
    edit(&mut d);
    write(&dir, "d2.json", d.to_string().as_bytes());
    let out = gedgraft_in(
        &dir,
        &["fix", "--from-dataset", "d2.json", "f.ged", "-o", "out.ged"],
    );
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(!dir.join("out.ged").exists(), "nothing is written");
    stderr(&out)
}

#[test]
fn what_no_edit_expresses_is_refused_with_status_2() {
    let err = refused("metadata", |d| {
        d["metadata"]["default_language"] = json!("fr");
    });
    assert!(err.contains("HEAD metadata default_language"), "{err}");
    assert!(
        err.contains("serialisation metadata is not edited"),
        "{err}"
    );
    let err = refused("bad-json", |d| {
        children(d, 1)[0]["payload"] = json!(3);
    });
    assert!(err.contains("records[1].children[0].payload"), "{err}");
}

#[test]
fn an_identifier_renamed_without_its_pointers_leaves_them_dangling_as_the_dataset_says() {
    // The editor's renaming takes pointers along; the pointer is set back in a second pass (the two edits
    // overlap in one batch), so the file says what the dataset says: `@I1@` points at nothing.
    let out = round_trip("xref-without-pointers", FILE, |d| {
        records(d)[0]["xref"] = json!("P1");
    });
    let want =
        String::from_utf8(FILE.to_vec())
            .expect("UTF-8")
            .replacen("0 @I1@ INDI", "0 @P1@ INDI", 1);
    assert_eq!(String::from_utf8(out).expect("UTF-8"), want);
}

#[test]
fn a_payload_language_or_datatype_is_its_plang_or_dtype_line() {
    let out = round_trip("lang", FILE, |d| {
        children(d, 1)[0]["payload"]["lang"] = json!("de");
        children(d, 0)[0]["payload"]["datatype"] = json!("https://example.com/name");
    });
    let want = String::from_utf8(FILE.to_vec())
        .expect("UTF-8")
        .replacen(
            "  1 NAME John /Smith/\r\n",
            "  1 NAME John /Smith/\r\n    2 DTYPE https://example.com/name\r\n",
            1,
        )
        .replacen("  1 NAME Ann\r\n", "  1 NAME Ann\r\n    2 PLANG de\r\n", 1);
    assert_eq!(String::from_utf8(out).expect("UTF-8"), want);
}

#[test]
fn reordered_records_move_as_they_are() {
    let out = round_trip("records-moved", FILE, |d| {
        let family = records(d).remove(2);
        records(d).insert(0, family);
    });
    let text = String::from_utf8(FILE.to_vec()).expect("UTF-8");
    let family = "0 @F1@ FAM\r\n  1 HUSB @I1@\r\n";
    let want = text.replacen(family, "", 1).replacen(
        "1 CHAR UTF-8\r\n",
        &format!("1 CHAR UTF-8\r\n{family}"),
        1,
    );
    assert_eq!(String::from_utf8(out).expect("UTF-8"), want);
}

/// A family file with continuation lines, pointers both ways and repeated tags.
fn family_file() -> String {
    let mut text =
        String::from("0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n");
    for i in 1..=6 {
        text.push_str(&format!(
            "0 @I{i}@ INDI\n1 NAME Person{i} /Family/\n1 SEX {}\n1 BIRT\n2 DATE {} JAN 19{i}0\n2 PLAC Town {i}\n\
             1 NOTE first line of note {i}\n2 CONT second line\n2 CONC  joined\n1 FAMS @F{}@\n",
            if i % 2 == 0 { "F" } else { "M" },
            i + 1,
            (i + 1) / 2
        ));
    }
    for f in 1..=3 {
        text.push_str(&format!(
            "0 @F{f}@ FAM\n1 HUSB @I{}@\n1 WIFE @I{}@\n1 CHIL @I{}@\n",
            2 * f - 1,
            2 * f,
            (f % 6) + 1
        ));
    }
    text.push_str("0 TRLR\n");
    text
}

/// One random edit of the dataset JSON, as a script would make it.
fn mutate(d: &mut Value, rng: &mut Rng, k: usize) {
    let count = records(d).len();
    let r = rng.below(count);
    let kids = children(d, r).len();
    let c = rng.below(kids);
    let new_note = json!({"tag": "NOTE", "payload": {"text": format!("added {k}\nline two"), "lang": "und"}, "children": []});
    match rng.below(8) {
        0 if kids > 0 => {
            let child = &mut children(d, r)[c];
            if child["payload"]["text"].is_string() {
                child["payload"]["text"] = json!(format!("value {k} @ home"));
            }
        }
        1 if kids > 0 => children(d, r)[c]["tag"] = json!(format!("_T{k}")),
        2 if kids > 0 => {
            children(d, r).remove(c);
        }
        3 => children(d, r).insert(c.min(kids), new_note),
        4 if kids > 0 => {
            let moved = children(d, r).remove(c);
            let to = rng.below(count);
            let at = rng.below(children(d, to).len() + 1);
            children(d, to).insert(at, moved);
        }
        5 => children(d, r).reverse(),
        6 => {
            let at = rng.below(count + 1);
            records(d).insert(
                at,
                json!({"xref": format!("N{k}"), "tag": "NOTE", "payload": {"text": "a new record", "lang": "und"}, "children": []}),
            );
        }
        _ => {
            records(d).remove(r);
        }
    }
}

/// Random scripts of one to three JSON edits (payloads, tags, deletions, insertions, moves across records,
/// reversed children, new and deleted records): `fix --from-dataset` either writes a file that lowers to the
/// edited dataset or refuses with status 2, never a wrong file; and it refuses rarely (moved structures with
/// changes inside them take the second pass).
#[test]
fn random_json_edits_give_the_dataset_or_are_refused() {
    let dir = temp_dir(SUITE, "random");
    let file = family_file();
    write(&dir, "f.ged", file.as_bytes());
    let base = lowered(&dir);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (cases, mut made) = (100, 0);
    for case in 0..cases {
        let mut d = base.clone();
        for step in 0..1 + rng.below(3) {
            mutate(&mut d, &mut rng, case * 10 + step);
        }
        let d2 = d.to_string();
        write(&dir, "d2.json", d2.as_bytes());
        let out = gedgraft_in(
            &dir,
            &[
                "fix",
                "-q",
                "--from-dataset",
                "d2.json",
                "f.ged",
                "-o",
                "out.ged",
            ],
        );
        match exit_code(&out) {
            0 => {
                let output = std::fs::read(dir.join("out.ged")).expect("output");
                let got = lower(&gedgraft_syntax::parse(&output), &LowerOptions::default()).dataset;
                let left = compare(&got, &from_json(&d2).expect("JSON"));
                assert!(left.is_empty(), "case {case}: exit 0 but:\n{left}\n{d2}");
                made += 1;
            }
            2 => assert!(
                stderr(&out).contains("cannot make the change")
                    || stderr(&out).contains("would not give the dataset"),
                "case {case}: {}",
                stderr(&out)
            ),
            code => panic!("case {case}: exit {code}: {}", stderr(&out)),
        }
        let _ = std::fs::remove_file(dir.join("out.ged"));
    }
    println!("{made} of {cases} edited datasets written");
    assert!(
        made * 20 >= cases * 19,
        "only {made} of {cases} edits were made"
    );
}
