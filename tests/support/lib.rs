//! Shared helpers for the workspace-level tests: finding the corpus and the test data.

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Where the shared corpus and specs are found (the build script's side is there too).
#[path = "shared.rs"]
pub mod shared;

/// The shared data directory, holding `corpus` and `spec`: `../shared` beside the workspace, or
/// `$GEDGRAFT_SHARED` when set at build time.
pub fn shared_dir() -> PathBuf {
    PathBuf::from(env!("GEDGRAFT_SHARED_DIR"))
}

/// The shared corpus directory.
pub fn corpus_dir() -> PathBuf {
    shared_dir().join("corpus")
}

/// The shared spec directory.
pub fn spec_dir() -> PathBuf {
    shared_dir().join("spec")
}

/// The check of each test crate's always-run test: under CI, the corpus and the specs must be there; and the
/// crate must have been built with the data that is there. `has_corpus` and `has_spec` are the calling
/// crate's cfgs (`cfg!(has_corpus)`).
///
/// # Panics
/// When the check fails.
pub fn check_shared_data(has_corpus: bool, has_spec: bool) {
    shared::check_shared_data(&shared_dir(), has_corpus, has_spec);
}

/// Every file of the corpus (MANIFEST.md excluded), sorted. Tests that call it carry
/// `#[cfg_attr(not(has_corpus), ignore = "…")]`.
///
/// # Panics
/// When the corpus cannot be read.
pub fn corpus_files() -> Vec<PathBuf> {
    let dir = corpus_dir();
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
    files
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

pub mod rows;
