//! ELF-2019 R-CONVENTIONS-01: the meta-test. Every binding row of `requirements.md` (level MUST, MUST NOT,
//! SHALL, SHALL NOT, REQUIRED or DEF) that applies to the parser or to all must be cited by a test: its ID in a
//! test name (`r_lines_04_…`) or in a comment (`// ELF-2019 R-LINES-04`) somewhere in the test sources — every
//! `.rs` file under `tests/` and `crates/*/tests`, and the `#[cfg(test)]` modules of `crates/*/src`. A row
//! that has no test yet must be in [`KNOWN_GAPS`] with its reason, so that the gap is visible.

use gedgraft_tests::{spec_dir, workspace_root};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Marks the reason of a row that another piece of work is covering; such entries are removed when it lands.
const ELSEWHERE: &str = "in progress elsewhere";

/// Binding parser rows with no test yet, each with the reason. An entry whose reason does not start with
/// [`ELSEWHERE`] must name a binding parser row that no test cites (the meta-test fails on a stale entry).
const KNOWN_GAPS: &[(&str, &str)] = &[
    (
        "R-LINE-CONT-02",
        "schema-aware mode only (rejecting a schema that maps CONT or CONC); gedgraft reads no schemas",
    ),
    (
        "R-ESCAPE-PRES-05",
        "applies only in R-ESCAPE-PRES-06's opt-in removal mode, which gedgraft does not have (escapes are kept)",
    ),
];

/// The levels whose rows bind an application.
const BINDING: &[&str] = &["MUST", "MUST NOT", "SHALL", "SHALL NOT", "REQUIRED", "DEF"];

/// One row of the catalogue.
#[derive(Debug)]
struct Row {
    id: String,
    level: String,
    applies_to: String,
}

/// The rows of `requirements.md`: every table line whose first cell is an ID.
fn rows(markdown: &str) -> Vec<Row> {
    markdown
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.strip_prefix('|')?.split('|').map(str::trim).collect();
            let id = *cells.first()?;
            if !id.starts_with("R-") || cells.len() < 5 {
                return None;
            }
            Some(Row {
                id: id.to_string(),
                level: cells[1].to_string(),
                applies_to: cells[2].to_string(),
            })
        })
        .collect()
}

/// The IDs of the binding rows that apply to the parser or to all.
fn binding_parser_ids(rows: &[Row]) -> Vec<&str> {
    rows.iter()
        .filter(|r| BINDING.contains(&r.level.as_str()))
        .filter(|r| r.applies_to == "parser" || r.applies_to == "all")
        .map(|r| r.id.as_str())
        .collect()
}

/// Every `.rs` file under `dir`, recursively, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The end (exclusive) of the block whose `{` is at `open`, skipping braces in comments, strings and
/// character literals; the end of `text` when the block is not closed.
fn block_end(text: &str, open: usize) -> usize {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(b.len(), |n| i + n);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
                continue;
            }
            b'r' if b.get(i + 1) == Some(&b'#') || b.get(i + 1) == Some(&b'"') => {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) == Some(&b'"')
                    && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
                {
                    let close = format!("\"{}", "#".repeat(hashes));
                    let from = i + 2 + hashes;
                    i = text[from..]
                        .find(&close)
                        .map_or(b.len(), |n| from + n + close.len());
                    continue;
                }
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') => i += 2,
            b'\'' if b.get(i + 1) == Some(&b'\\') => {
                i = text[i + 2..].find('\'').map_or(b.len(), |n| i + 2 + n);
            }
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// The test code of a library source file: its `#[cfg(test)]` inline modules, and the files of its
/// `#[cfg(test)] mod name;` declarations.
fn cfg_test_code(path: &Path, text: &str) -> String {
    let mut out = String::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let start = from + at;
        let rest = &text[start..];
        let Some(brace_or_semi) = rest.find(['{', ';']) else {
            break;
        };
        if rest.as_bytes()[brace_or_semi] == b'{' {
            let end = block_end(text, start + brace_or_semi);
            out.push_str(&text[start..end]);
            from = end;
            continue;
        }
        let declaration = &rest[..brace_or_semi];
        if let Some(name) = declaration
            .split_whitespace()
            .skip_while(|w| *w != "mod")
            .nth(1)
        {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            let dir = path.parent().unwrap_or(Path::new(""));
            let dir = if ["lib", "main", "mod"].contains(&stem) {
                dir.to_path_buf()
            } else {
                dir.join(stem)
            };
            for candidate in [
                dir.join(format!("{name}.rs")),
                dir.join(name).join("mod.rs"),
            ] {
                if let Ok(module) = std::fs::read_to_string(&candidate) {
                    out.push_str(&module);
                }
            }
        }
        from = start + brace_or_semi + 1;
    }
    out
}

/// This file without the [`KNOWN_GAPS`] list, which names rows without citing them.
fn without_known_gaps(source: &str) -> String {
    let Some(start) = source.find("const KNOWN_GAPS") else {
        return source.to_string();
    };
    let end = source[start..]
        .find("\n];")
        .map_or(source.len(), |n| start + n + 4);
    format!("{}{}", &source[..start], &source[end..])
}

/// The text of every test source of the workspace, joined.
fn test_sources(root: &Path) -> String {
    let mut text = String::new();
    let mut add = |path: &Path, only_cfg_test: bool| {
        let source = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        if only_cfg_test {
            text.push_str(&cfg_test_code(path, &source));
        } else if path.ends_with("tests/spec_rows.rs") {
            text.push_str(&without_known_gaps(&source));
        } else {
            text.push_str(&source);
        }
        text.push('\n');
    };
    for path in rust_files(&root.join("tests")) {
        add(&path, false);
    }
    let crates = std::fs::read_dir(root.join("crates")).expect("the crates directory");
    let mut crates: Vec<PathBuf> = crates.flatten().map(|e| e.path()).collect();
    crates.sort();
    for krate in crates {
        for path in rust_files(&krate.join("tests")) {
            add(&path, false);
        }
        for path in rust_files(&krate.join("src")) {
            add(&path, true);
        }
    }
    text
}

/// Whether `text` cites `id`: `R-LINES-04` or `r_lines_04`, not followed by another digit.
fn cites(text: &str, id: &str) -> bool {
    let snake = id.to_ascii_lowercase().replace('-', "_");
    [id, snake.as_str()].iter().any(|form| {
        text.match_indices(form).any(|(at, m)| {
            !text[at + m.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
    })
}

#[test]
#[cfg_attr(
    not(has_spec),
    ignore = "specs missing: see README, Tests and the corpus"
)]
fn r_conventions_01_every_binding_parser_row_is_cited_by_a_test() {
    let path = spec_dir().join("requirements.md");
    let markdown = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let rows = rows(&markdown);
    assert!(
        rows.len() > 200,
        "only {} rows: has the table layout changed?",
        rows.len()
    );
    let binding = binding_parser_ids(&rows);
    let sources = test_sources(&workspace_root());
    let gaps: BTreeSet<&str> = KNOWN_GAPS.iter().map(|(id, _)| *id).collect();
    let uncited: Vec<&str> = binding
        .iter()
        .copied()
        .filter(|id| !cites(&sources, id))
        .collect();
    println!(
        "{} binding parser/all rows, {} cited, {} known gaps",
        binding.len(),
        binding.len() - uncited.len(),
        KNOWN_GAPS.len()
    );
    let missing: Vec<&str> = uncited
        .iter()
        .copied()
        .filter(|id| !gaps.contains(id))
        .collect();
    assert!(
        missing.is_empty(),
        "binding rows no test cites (write a test naming the ID, or add it to KNOWN_GAPS with a reason):\n{}",
        missing.join("\n")
    );
    let stale: Vec<String> = KNOWN_GAPS
        .iter()
        .filter(|(_, reason)| !reason.starts_with(ELSEWHERE))
        .filter(|(id, _)| !uncited.contains(id))
        .map(|(id, reason)| format!("{id} ({reason})"))
        .collect();
    assert!(
        stale.is_empty(),
        "KNOWN_GAPS entries that are cited now, or are not binding parser rows: remove them:\n{}",
        stale.join("\n")
    );
}

/// The parts of the meta-test, on small inputs.
#[test]
fn the_meta_test_reads_rows_and_finds_citations() {
    let table = "| ID | Level | Applies to | Requirement | Test idea |\n\
                 |---|---|---|---|---|\n\
                 | R-A-01 | MUST | parser | x | y |\n\
                 | R-A-02 | MAY | parser | x | y |\n\
                 | R-A-03 | MUST NOT | writer | x | y |\n\
                 | R-A-04 | DEF | all | x \\| z | y |\n";
    let rows = rows(table);
    assert_eq!(rows.len(), 4);
    assert_eq!(binding_parser_ids(&rows), ["R-A-01", "R-A-04"]);
    assert!(cites("fn r_a_01_works() {}", "R-A-01"));
    assert!(cites("// ELF-2019 R-A-01: x", "R-A-01"));
    assert!(!cites("// R-A-010", "R-A-01"));
    assert!(!cites("fn r_a_012() {}", "R-A-01"));
    let src = "fn lib() { let _ = \"R-A-01 {\"; }\n#[cfg(test)]\nmod tests {\n    fn f() { let c = '}'; }\n    \
               // R-A-04\n}\nfn after() { /* R-A-02 */ }\n";
    let code = cfg_test_code(Path::new("lib.rs"), src);
    assert!(cites(&code, "R-A-04"), "{code}");
    assert!(!cites(&code, "R-A-01"), "{code}");
    assert!(!cites(&code, "R-A-02"), "{code}");
}
