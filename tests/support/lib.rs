//! Shared helpers for the workspace-level tests: finding the corpus and the test data.

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
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

pub mod repair;

pub mod dataset;

/// The snapshot name of a data-driven case (`tests/data/…/CODE[.variant].ged`): its file name without `.ged`.
pub fn case_name(path: &Path) -> String {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .expect("UTF-8 file name");
    name.strip_suffix(".ged").unwrap_or(name).to_string()
}

/// The diagnostic code a data-driven case is named after: its name up to the first `.`.
pub fn expected_code(path: &Path) -> String {
    let name = case_name(path);
    name.split('.').next().unwrap_or_default().to_string()
}
