//! Helpers shared by the CLI integration tests in `tests/`: where the test data, snapshots and corpus are,
//! fresh scratch directories, running the `gedgraft` binary, and reading what it printed. Each test file has
//! `mod common;` (`#[macro_use]` for `assert_cli_snapshot!`) and uses what it needs, so some items are unused
//! in some files.
#![allow(dead_code, unused_imports, unused_macros)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// This crate's `tests/data` directory; commands run there so that paths in the output are short and stable.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// `snapshots/cli` at the workspace root. Absolute, because insta resolves a relative `snapshot_path` from
/// the workspace it finds with `cargo metadata`, and puts snapshots in the wrong folder when that fails.
pub fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../snapshots/cli")
}

/// Asserts an insta snapshot named `$name` in [`snapshot_dir`], without the module prefix or the expression.
macro_rules! assert_cli_snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!({
            snapshot_path => $crate::common::snapshot_dir(),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!($name, $value);
        });
    };
}

pub use gedgraft_test_support::{check_shared_data, corpus_dir};

/// The path of a corpus file, which must be there.
///
/// # Panics
/// When the file is missing.
pub fn corpus_file(name: &str) -> PathBuf {
    let path = corpus_dir().join(name);
    assert!(path.is_file(), "corpus file {} is missing", path.display());
    path
}

/// A fresh, empty directory `suite/test` under Cargo's temporary directory (emptied if a run left it).
pub fn temp_dir(suite: &str, test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(suite)
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Writes `bytes` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write input");
    path
}

/// The command `gedgraft ARGS` in `dir`, with none of the colour settings of the environment the tests run in
/// (`NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE`), so that its output is the same everywhere.
pub fn gedgraft_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gedgraft"));
    command.args(args).current_dir(dir);
    for name in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
        command.env_remove(name);
    }
    command
}

/// Runs `gedgraft ARGS` in `dir`.
pub fn gedgraft_in(dir: &Path, args: &[&str]) -> Output {
    gedgraft_command(dir, args).output().expect("run gedgraft")
}

/// Runs `gedgraft ARGS` in `dir` reading the whole file at once (`GEDGRAFT_WHOLE_FILE`), or streamed: a test
/// that compares the two paths runs both.
pub fn gedgraft_whole_or_streamed(dir: &Path, args: &[&str], whole: bool) -> Output {
    let mut command = gedgraft_command(dir, args);
    match whole {
        true => command.env("GEDGRAFT_WHOLE_FILE", "1"),
        false => command.env_remove("GEDGRAFT_WHOLE_FILE"),
    };
    command.output().expect("run gedgraft")
}

/// Runs `gedgraft ARGS` in the data directory ([`data_dir`]).
pub fn gedgraft(args: &[&str]) -> Output {
    gedgraft_in(&data_dir(), args)
}

/// The command `gedgraft fix ARGS` in `dir`, for a test that sets up its standard streams.
pub fn fix_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = gedgraft_command(dir, &["fix"]);
    command.args(args);
    command
}

/// Runs `gedgraft fix ARGS` in `dir`.
pub fn fix_in(dir: &Path, args: &[&str]) -> Output {
    fix_command(dir, args).output().expect("run gedgraft fix")
}

/// Standard output, which must be UTF-8.
pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

/// Standard output, any octet that is not UTF-8 replaced.
pub fn stdout_lossy(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Standard error, any octet that is not UTF-8 replaced.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The exit status; the process must not have been killed by a signal.
pub fn exit_code(out: &Output) -> i32 {
    out.status
        .code()
        .expect("exit code (not killed by a signal)")
}
