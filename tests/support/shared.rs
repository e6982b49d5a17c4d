// Where the tests find the shared data: the corpus of real files and the specs, in `../shared/corpus` and
// `../shared/spec` beside the workspace, or under `$GEDGRAFT_SHARED` when that is set.
//
// One file serves two sides. The build scripts of the crates whose tests read the data `include!` it and call
// `configure`, which sets the cfgs `has_corpus` and `has_spec` (tests that need the data carry
// `#[cfg_attr(not(has_corpus), ignore = "…")]`, so `cargo test` lists them as ignored, with the reason) and the
// variable `GEDGRAFT_SHARED_DIR` (the tests read the data from there). The tests include it as a module and
// call `check_shared_data` from one always-run test, which fails under CI when the data is missing.
//
// It is written for `include!` (no inner attributes or doc comments), and some items serve only one side.

/// The variable that overrides where the shared data is (the directory holding `corpus` and `spec`).
#[allow(dead_code)]
pub const SHARED_ENV: &str = "GEDGRAFT_SHARED";

/// The shared data directory: `$GEDGRAFT_SHARED` when set, else `shared` beside the workspace root.
#[allow(dead_code)]
pub fn shared_dir_from(workspace_root: &std::path::Path) -> std::path::PathBuf {
    match std::env::var_os(SHARED_ENV) {
        Some(dir) if !dir.is_empty() => std::path::PathBuf::from(dir),
        _ => workspace_root.join("../shared"),
    }
}

/// The cfg of each kind of shared data, and the file whose presence says the data is there.
#[allow(dead_code)]
pub const SHARED_MARKERS: [(&str, &str); 2] = [
    ("has_corpus", "corpus/MANIFEST.md"),
    ("has_spec", "spec/requirements.md"),
];

/// What a build script prints: the cfgs `has_corpus` and `has_spec`, and `GEDGRAFT_SHARED_DIR`.
///
/// The script runs again when `GEDGRAFT_SHARED` changes, or when a watched marker file of data that was there
/// goes away. Data that appears after a build is not watched (watching a missing path would rebuild the crate
/// on every run); `check_shared_data` says how to rebuild then.
#[allow(dead_code)]
pub fn configure(workspace_root: &std::path::Path) {
    println!("cargo::rerun-if-env-changed={SHARED_ENV}");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(has_corpus)");
    println!("cargo::rustc-check-cfg=cfg(has_spec)");
    let shared = shared_dir_from(workspace_root);
    let shared = shared.canonicalize().unwrap_or(shared);
    for (cfg, marker) in SHARED_MARKERS {
        let path = shared.join(marker);
        if path.is_file() {
            println!("cargo::rustc-cfg={cfg}");
            println!("cargo::rerun-if-changed={}", path.display());
        } else {
            println!(
                "cargo::warning={} is missing: the tests that read it are ignored (see README, \"Tests and \
                 the corpus\")",
                path.display()
            );
        }
    }
    println!("cargo::rustc-env=GEDGRAFT_SHARED_DIR={}", shared.display());
}

/// The check of the always-run test: `built_with_corpus` and `built_with_spec` are the crate's cfgs.
///
/// # Panics
/// When `CI` is set and the corpus or the specs are missing, and when data is there that the test crate was
/// built without (its corpus tests would be ignored for nothing).
#[allow(dead_code)]
pub fn check_shared_data(shared: &std::path::Path, built_with_corpus: bool, built_with_spec: bool) {
    for ((_, marker), built_with) in SHARED_MARKERS
        .iter()
        .zip([built_with_corpus, built_with_spec])
    {
        let path = shared.join(marker);
        let present = path.is_file();
        assert!(
            present || std::env::var_os("CI").is_none(),
            "{} is missing and CI is set: the corpus and spec tests cannot run (see README, \"Tests and the \
             corpus\"; {SHARED_ENV} overrides where the data is)",
            path.display()
        );
        assert!(
            !present || built_with,
            "{} is there, but this test crate was built before it appeared and ignores the tests that read it: \
             run `cargo clean` (or touch the crate's build.rs) and test again",
            path.display()
        );
    }
}
