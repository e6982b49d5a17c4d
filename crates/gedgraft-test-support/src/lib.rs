//! Test helpers the gedgraft crates share, so that each crate's `tests/common/mod.rs` keeps only what is its
//! own: where the shared corpus and specs are, the always-run check that they were found, and walking them.
//!
//! A `publish = false` dev-dependency by path: Cargo drops it when a crate is packaged, so publishing the
//! crates does not need it. It depends on no gedgraft crate (a crate's tests would otherwise see two copies of
//! the crate under test).

use std::path::{Path, PathBuf};

#[path = "../../../tests/support/shared.rs"]
mod shared;

/// The shared data directory, holding `corpus` and `spec`: `../shared` beside the workspace, or
/// `$GEDGRAFT_SHARED` when set at build time.
pub fn shared_dir() -> PathBuf {
    PathBuf::from(env!("GEDGRAFT_SHARED_DIR"))
}

/// The shared corpus. Tests that read it carry `#[cfg_attr(not(has_corpus), ignore = "…")]`.
pub fn corpus_dir() -> PathBuf {
    shared_dir().join("corpus")
}

/// The shared specs. Tests that read them carry `#[cfg_attr(not(has_spec), ignore = "…")]`.
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

/// Every file under `dir`, recursively, sorted, `MANIFEST.md` left out.
///
/// # Panics
/// When a directory cannot be read.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
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

/// Every file of the corpus ([`files_under`] the corpus directory).
pub fn corpus_files() -> Vec<PathBuf> {
    files_under(&corpus_dir())
}

/// The path of `p` relative to the corpus directory, with `/` separators, for names in reports and snapshots.
pub fn corpus_name(p: &Path) -> String {
    p.strip_prefix(corpus_dir())
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The octets of a corpus file, by its name relative to the corpus.
///
/// # Panics
/// When the file cannot be read.
pub fn corpus_bytes(name: &str) -> Vec<u8> {
    let path = corpus_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("corpus file {}: {e}", path.display()))
}

/// How many lines of `bytes` end with an ANSEL diacritic (octets E0–FE but FD) and are followed by a `CONC`
/// line: the splits a re-wrap must never make (R-SERIALISING-STRUCTS-14, R-ANSEL-03).
pub fn marks_before_conc(bytes: &[u8]) -> usize {
    let lines: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n' || b == b'\r')
        .filter(|l| !l.is_empty())
        .collect();
    lines
        .windows(2)
        .filter(|w| {
            w[0].last()
                .is_some_and(|&o| (0xE0..=0xFE).contains(&o) && o != 0xFD)
                && w[1].windows(6).any(|x| x == b" CONC ")
        })
        .count()
}

/// A small deterministic generator (xorshift64) for tests that make varied inputs from a seed, without a
/// dependency.
///
/// ```
/// let mut rng = gedgraft_test_support::Rng(7);
/// assert!(rng.below(10) < 10);
/// ```
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits (a seed of 0 stays 0: give another).
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}
