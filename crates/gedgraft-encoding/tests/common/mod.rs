//! Helpers shared by the integration tests.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use gedgraft_encoding::{Decoded, Detection};

#[path = "../../../../tests/support/shared.rs"]
mod shared;

/// The shared corpus (`../shared/corpus` beside the workspace, or under `$GEDGRAFT_SHARED`). Tests that read
/// it carry `#[cfg_attr(not(has_corpus), ignore = "…")]`.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("GEDGRAFT_SHARED_DIR")).join("corpus")
}

/// The shared specs, beside the corpus. Tests that read them carry `#[cfg_attr(not(has_spec), ignore = "…")]`.
pub fn spec_dir() -> PathBuf {
    Path::new(env!("GEDGRAFT_SHARED_DIR")).join("spec")
}

/// The check of the always-run test (see `tests/support/shared.rs`).
pub fn check_shared_data(has_corpus: bool, has_spec: bool) {
    shared::check_shared_data(Path::new(env!("GEDGRAFT_SHARED_DIR")), has_corpus, has_spec);
}

/// Every corpus file (recursively, MANIFEST.md aside), as (path relative to the corpus, octets), sorted.
pub fn corpus_files() -> Vec<(String, Vec<u8>)> {
    let root = corpus_dir();
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n != "MANIFEST.md") {
                let rel = path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Reads one corpus file.
pub fn corpus_file(rel: &str) -> Vec<u8> {
    std::fs::read(corpus_dir().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Encodes a decoded document back: U+FEFF in the byte-order mark's encoding, the rest in the used one.
pub fn encode_document(decoded: &Decoded, detection: &Detection) -> Vec<u8> {
    let mut out = Vec::new();
    let mut text = decoded.text.as_str();
    if let Some(bom) = detection.bom {
        if let Some(rest) = text.strip_prefix('\u{FEFF}') {
            bom.encoding.encode("\u{FEFF}", &mut out).unwrap();
            text = rest;
        }
    }
    detection.used.encode(text, &mut out).unwrap();
    out
}
