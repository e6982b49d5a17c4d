//! Shared helpers for the workspace-level tests: finding the corpus and the test data.

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The shared corpus directory (`../shared/corpus` beside the workspace).
pub fn corpus_dir() -> PathBuf {
    workspace_root().join("../shared/corpus")
}

/// Every file of the corpus (MANIFEST.md excluded), sorted; `None` when the corpus is missing outside CI.
///
/// # Panics
/// When the corpus is missing and the `CI` environment variable is set: CI must not pass without it.
pub fn corpus_files() -> Option<Vec<PathBuf>> {
    let dir = corpus_dir();
    if !dir.is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the corpus is missing at {} and CI is set",
            dir.display()
        );
        eprintln!("corpus not found at {}: skipped", dir.display());
        return None;
    }
    let mut files = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).unwrap_or_else(|e| panic!("cannot read {}: {e}", d.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n != "MANIFEST.md") {
                files.push(path);
            }
        }
    }
    files.sort();
    Some(files)
}

/// The path of `p` relative to the corpus directory, with `/` separators, for names in reports and snapshots.
pub fn corpus_name(p: &Path) -> String {
    p.strip_prefix(corpus_dir())
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The files of a data directory under `tests/data`, sorted.
pub fn data_files(sub: &str) -> Vec<PathBuf> {
    let dir = workspace_root().join("tests/data").join(sub);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

pub mod report;
