//! Helpers shared by the integration tests.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions
#![allow(dead_code, unused_imports)]

use gedgraft_encoding::{Decoded, Detection};

pub use gedgraft_test_support::{
    check_shared_data, corpus_bytes as corpus_file, corpus_dir, spec_dir,
};

/// Every corpus file (recursively, MANIFEST.md aside), as (path relative to the corpus, octets), sorted.
pub fn corpus_files() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = gedgraft_test_support::corpus_files()
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (gedgraft_test_support::corpus_name(&path), bytes)
        })
        .collect();
    out.sort();
    out
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
