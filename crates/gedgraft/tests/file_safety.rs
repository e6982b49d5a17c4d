//! Safe file handling of `gedgraft fix` (issue 12, "Files"): `--backup`, `-o`, `--in-place` with links, special
//! files, owners, modes and the file size limit. Each numbered case of the issue is a test named after it; the
//! real binary runs in a fresh temporary directory. Cases that need root (device nodes, `chown`) fail when `CI`
//! is set and root is missing, and print a notice otherwise.
#![cfg(unix)]

mod common;

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use tempfile::TempDir;

use common::{exit_code, fix_command, fix_in, gedgraft_command, stderr, stdout_lossy};

/// A file with a bare `@` for `--escape-at` to change.
const SAMPLE: &[u8] = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 EMAIL bob@example.com\n0 TRLR\n";
/// `SAMPLE` after `--escape-at`.
const ESCAPED: &[u8] = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 EMAIL bob@@example.com\n0 TRLR\n";

fn temp_dir() -> TempDir {
    tempfile::Builder::new()
        .prefix("file-safety-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("temp dir")
}

/// The names in `dir`, sorted: shows that no temporary file was left behind.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn run(program: &str, args: &[&Path]) {
    let status = Command::new(program)
        .args(args)
        .status()
        .unwrap_or_else(|e| panic!("run {program}: {e}"));
    assert!(status.success(), "{program} failed");
}

/// Whether the tests run as root: the owner of a new file is the effective user.
fn is_root(dir: &Path) -> bool {
    let probe = dir.join(".probe");
    fs::write(&probe, b"").expect("probe");
    let root = fs::metadata(&probe).expect("probe").uid() == 0;
    fs::remove_file(&probe).expect("probe");
    root
}

/// `gedgraft ARGS…` in `dir` as the user `nobody` (root's tests of what other users may do).
fn as_nobody(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("setpriv")
        .args(["--reuid", "nobody", "--regid", "nogroup", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_gedgraft"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run setpriv (util-linux)")
}

/// True when root: the test goes on. Otherwise a failure under CI and a notice elsewhere.
fn needs_root(dir: &Path, what: &str) -> bool {
    if is_root(dir) {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{what} needs root and CI is set: run the tests as root"
    );
    eprintln!("NOTICE: {what} needs root; not checked in this run");
    false
}

fn is_symlink(path: &Path) -> bool {
    fs::symlink_metadata(path)
        .expect("metadata")
        .file_type()
        .is_symlink()
}

// 1. `--backup` never follows a link or truncates what is at the backup name.

#[test]
fn case_1a_backup_name_is_a_hard_link_to_the_file() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    fs::hard_link(d.join("a.ged"), d.join("a.ged.orig")).expect("ln");
    let out = fix_in(
        d,
        &["--escape-at", "--in-place", "--backup", ".orig", "a.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(fs::read(d.join("a.ged")).expect("file"), ESCAPED);
    assert_eq!(fs::read(d.join("a.ged.orig")).expect("backup"), SAMPLE);
    assert_eq!(entries(d), ["a.ged", "a.ged.orig"]);
}

#[test]
fn case_1b_backup_name_is_a_symlink_to_the_file() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    std::os::unix::fs::symlink("a.ged", d.join("a.ged.orig")).expect("ln -s");
    let out = fix_in(
        d,
        &["--escape-at", "--in-place", "--backup", ".orig", "a.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(fs::read(d.join("a.ged")).expect("file"), ESCAPED);
    assert!(!is_symlink(&d.join("a.ged.orig")), "the link was replaced");
    assert_eq!(fs::read(d.join("a.ged.orig")).expect("backup"), SAMPLE);
    assert_eq!(entries(d), ["a.ged", "a.ged.orig"]);
}

#[test]
fn case_1c_backup_name_is_a_symlink_to_another_file_which_is_not_touched() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    fs::write(d.join("victim.txt"), b"someone else's file\n").expect("write");
    fs::set_permissions(d.join("victim.txt"), fs::Permissions::from_mode(0o644)).expect("chmod");
    std::os::unix::fs::symlink("victim.txt", d.join("a.ged.orig")).expect("ln -s");
    let out = fix_in(
        d,
        &["--escape-at", "--in-place", "--backup", ".orig", "a.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        fs::read(d.join("victim.txt")).expect("victim"),
        b"someone else's file\n"
    );
    assert!(!is_symlink(&d.join("a.ged.orig")));
    assert_eq!(fs::read(d.join("a.ged.orig")).expect("backup"), SAMPLE);
    assert_eq!(entries(d), ["a.ged", "a.ged.orig", "victim.txt"]);
}

/// A backup that would replace another file named on the same command line (`a.ged a.ged.orig` with
/// `--backup .orig`, or a link named in its place) is refused before anything is written: `sed -i` would put
/// a.ged's text where a.ged.orig's was, then edit that (found by a helper). `fix` and `fmt` alike.
#[test]
fn case_1g_a_backup_never_replaces_another_file_named_to_be_edited() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    fs::write(d.join("a.ged.orig"), ESCAPED).expect("write");
    std::os::unix::fs::symlink("a.ged.orig", d.join("link.ged")).expect("ln -s");
    for args in [
        &[
            "fix",
            "--escape-at",
            "--in-place",
            "--backup",
            ".orig",
            "a.ged",
            "a.ged.orig",
        ][..],
        &[
            "fix",
            "--escape-at",
            "--in-place",
            "--backup",
            ".orig",
            "a.ged",
            "link.ged",
        ],
        &[
            "fmt",
            "--in-place",
            "--backup",
            ".orig",
            "a.ged.orig",
            "a.ged",
        ],
    ] {
        let out = gedgraft_command(d, args).output().expect("runs");
        assert_eq!(exit_code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("would replace"), "{}", stderr(&out));
        assert_eq!(fs::read(d.join("a.ged")).expect("file"), SAMPLE);
        assert_eq!(fs::read(d.join("a.ged.orig")).expect("file"), ESCAPED);
        assert_eq!(entries(d), ["a.ged", "a.ged.orig", "link.ged"]);
    }
    // A file named twice, by any path: its edits would be made twice (found by a helper).
    fs::write(d.join("real.ged"), SAMPLE).expect("write");
    let twice: [&[&str]; 3] = [
        &["fix", "--escape-at", "--in-place", "real.ged", "./real.ged"],
        &[
            "fix",
            "--escape-at",
            "--in-place",
            "--backup",
            ".b",
            "real.ged",
            "real.ged",
        ],
        &["fmt", "--in-place", "real.ged", "link-to-real.ged"],
    ];
    std::os::unix::fs::symlink("real.ged", d.join("link-to-real.ged")).expect("ln -s");
    for args in twice {
        let out = gedgraft_command(d, args).output().expect("runs");
        assert_eq!(exit_code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("are the same file"),
            "{}",
            stderr(&out)
        );
        assert_eq!(fs::read(d.join("real.ged")).expect("file"), SAMPLE);
    }
    fs::remove_file(d.join("link-to-real.ged")).expect("rm");
    fs::remove_file(d.join("real.ged")).expect("rm");
    // Another suffix: both edited, each backed up.
    let out = fix_in(
        d,
        &[
            "--escape-at",
            "--in-place",
            "--backup",
            ".bak",
            "a.ged",
            "a.ged.orig",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(fs::read(d.join("a.ged.bak")).expect("backup"), SAMPLE);
}

/// A file of about 10 KB: over the file size limit the tests set with `ulimit -f 1` (512 or 1 024 octets).
fn big_sample() -> Vec<u8> {
    let mut bytes = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 EMAIL bob@example.com\n".to_vec();
    for i in 0..400 {
        bytes.extend_from_slice(format!("0 @N{i}@ NOTE a long note\n").as_bytes());
    }
    bytes.extend_from_slice(b"0 TRLR\n");
    bytes
}

/// `gedgraft fix ARGS` under a file size limit of one block.
fn gedgraft_with_file_size_limit(dir: &Path, args: &[&str]) -> Output {
    gedgraft_with_file_size_limit_of(dir, 1, args)
}

/// `gedgraft fix ARGS` under a file size limit of `blocks` blocks (of 512 or 1 024 octets, as the shell counts).
fn gedgraft_with_file_size_limit_of(dir: &Path, blocks: usize, args: &[&str]) -> Output {
    let script = format!(
        "ulimit -f {blocks} && exec \"$0\" fix {}",
        args.iter()
            .map(|a| format!("'{a}'"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_gedgraft")])
        .current_dir(dir)
        .output()
        .expect("run sh")
}

#[test]
fn case_1d_disk_full_never_replaces_an_earlier_backup_with_a_partial_one() {
    let dir = temp_dir();
    let d = dir.path();
    // The write of the new file fails (as on a full disk): the earlier backup and the file stay as they were.
    let big = big_sample();
    fs::write(d.join("a.ged"), &big).expect("write");
    fs::write(d.join("a.ged.orig"), b"earlier good backup").expect("write");
    let out = gedgraft_with_file_size_limit(
        d,
        &["--escape-at", "--in-place", "--backup", ".orig", "a.ged"],
    );
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert_eq!(fs::read(d.join("a.ged")).expect("file"), big);
    assert_eq!(
        fs::read(d.join("a.ged.orig")).expect("backup"),
        b"earlier good backup"
    );
    assert_eq!(entries(d), ["a.ged", "a.ged.orig"]);
    // The backup itself writes no octets (it is a hard link): a file too large to copy under the limit is
    // backed up whole while its much smaller edited version is written.
    let out = gedgraft_with_file_size_limit(
        d,
        &[
            "--delete",
            "NOTE",
            "--in-place",
            "--backup",
            ".orig",
            "a.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(fs::read(d.join("a.ged.orig")).expect("backup"), big);
    assert_eq!(
        fs::read(d.join("a.ged")).expect("file"),
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 EMAIL bob@example.com\n0 TRLR\n"
    );
    assert_eq!(entries(d), ["a.ged", "a.ged.orig"]);
}

#[test]
fn case_1e_an_empty_backup_suffix_is_refused() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    for suffix in ["", "/x"] {
        let out = fix_in(
            d,
            &["--escape-at", "--in-place", "--backup", suffix, "a.ged"],
        );
        assert_eq!(exit_code(&out), 2, "{suffix:?}");
        assert!(stderr(&out).contains("backup suffix"), "{}", stderr(&out));
    }
    let out = fix_in(d, &["--escape-at", "--in-place", "--backup=", "a.ged"]);
    assert_eq!(exit_code(&out), 2);
    assert_eq!(fs::read(d.join("a.ged")).expect("file"), SAMPLE);
    assert_eq!(entries(d), ["a.ged"]);
}

// 2. `-o PATH`: standard output for `-`, and nothing but a regular file is ever replaced.

#[test]
fn case_2a_output_to_a_character_device_is_refused() {
    let dir = temp_dir();
    let d = dir.path();
    if !needs_root(d, "making a device node") {
        return;
    }
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    run(
        "mknod",
        &[
            &d.join("mynull"),
            Path::new("c"),
            Path::new("1"),
            Path::new("3"),
        ],
    );
    std::os::unix::fs::symlink("mynull", d.join("link")).expect("ln -s");
    for target in ["mynull", "link"] {
        let out = fix_in(d, &["--escape-at", "a.ged", "-o", target]);
        assert_eq!(exit_code(&out), 2, "{target}");
        let err = stderr(&out);
        assert!(
            err.contains("cannot write") && err.contains("character device"),
            "{err}"
        );
    }
    let meta = fs::symlink_metadata(d.join("mynull")).expect("mynull");
    assert!(meta.file_type().is_char_device(), "still a device");
    assert!(is_symlink(&d.join("link")));
    assert_eq!(entries(d), ["a.ged", "link", "mynull"]);
}

#[test]
fn case_2b_output_to_a_fifo_is_refused() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    run("mkfifo", &[&d.join("fifo")]);
    let out = fix_in(d, &["--escape-at", "a.ged", "-o", "fifo"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("fifo: it is a FIFO"),
        "{}",
        stderr(&out)
    );
    let meta = fs::symlink_metadata(d.join("fifo")).expect("fifo");
    assert!(meta.file_type().is_fifo());
    assert_eq!(entries(d), ["a.ged", "fifo"]);
}

#[test]
fn case_2c_output_to_a_socket_or_a_directory_is_refused() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    let _socket = std::os::unix::net::UnixListener::bind(d.join("socket")).expect("bind");
    fs::create_dir(d.join("sub")).expect("mkdir");
    for (target, what) in [("socket", "a socket"), ("sub", "a directory")] {
        let out = fix_in(d, &["--escape-at", "a.ged", "-o", target]);
        assert_eq!(exit_code(&out), 2, "{target}");
        assert!(stderr(&out).contains(what), "{}", stderr(&out));
    }
    assert!(fs::symlink_metadata(d.join("socket"))
        .expect("socket")
        .file_type()
        .is_socket());
    assert_eq!(entries(d), ["a.ged", "socket", "sub"]);
    assert_eq!(entries(&d.join("sub")), Vec::<String>::new());
}

#[test]
fn case_2d_output_dash_is_standard_output() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    let out = fix_in(d, &["--escape-at", "a.ged", "-o", "-"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(out.stdout, ESCAPED);
    assert!(stderr(&out).contains("a.ged: changed"), "{}", stderr(&out));
    assert_eq!(fs::read(d.join("a.ged")).expect("file"), SAMPLE);
    assert_eq!(entries(d), ["a.ged"]);
}

#[test]
fn case_2e_output_dev_stdout_writes_through_standard_output() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    // Into a pipe.
    let out = fix_in(d, &["--escape-at", "a.ged", "-o", "/dev/stdout"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(out.stdout, ESCAPED);
    // Appended to a file (`>> log`): the earlier content stays, and the log is the same file.
    fs::write(d.join("log"), b"earlier content\n").expect("write");
    let inode = fs::metadata(d.join("log")).expect("log").ino();
    let log = fs::OpenOptions::new()
        .append(true)
        .open(d.join("log"))
        .expect("open log");
    let out = fix_command(d, &["--escape-at", "a.ged", "-o", "/dev/stdout"])
        .stdout(Stdio::from(log))
        .output()
        .expect("run");
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let mut expected = b"earlier content\n".to_vec();
    expected.extend_from_slice(ESCAPED);
    assert_eq!(fs::read(d.join("log")).expect("log"), expected);
    assert_eq!(fs::metadata(d.join("log")).expect("log").ino(), inode);
    assert_eq!(entries(d), ["a.ged", "log"]);
}

/// Standard output appended to the input itself (`fix F -o - >> F`): the file is read before anything is
/// written, as `check F >> F` reads it. Streamed, `fix` read its own output: the header came twice, and a
/// file over a batch grew without end. Every path: no edit, an edit, the repairs alone, two passes.
#[test]
fn case_2f_output_appended_to_the_input_reads_the_input_first() {
    let dir = temp_dir();
    let d = dir.path();
    let mut large = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
    for i in 0..40_000 {
        large.extend_from_slice(format!("0 @N{i}@ NOTE a@b\n").as_bytes());
    }
    large.extend_from_slice(b"0 TRLR\n");
    for args in [
        &["-o", "-"][..],
        &["-o", "/dev/stdout"],
        &["--escape-at", "-o", "-"],
        &["--repair", "-o", "-"],
        &["--set-xref", "@N1@=M1", "-o", "-"],
    ] {
        fs::write(d.join("a.ged"), &large).expect("write");
        let expected = fix_in(d, &[&["a.ged"][..], args].concat()).stdout;
        let log = fs::OpenOptions::new()
            .append(true)
            .open(d.join("a.ged"))
            .expect("open");
        let mut command = fix_command(d, &[&["a.ged"][..], args].concat());
        let out = command
            .stdout(Stdio::from(log))
            .stderr(Stdio::piped())
            .output()
            .expect("run");
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
        let mut both = large.clone();
        both.extend_from_slice(&expected);
        assert!(
            fs::read(d.join("a.ged")).expect("a.ged") == both,
            "{args:?}: the file is the original and its output"
        );
    }
}

/// Standard output appended to a file given after the first (`check a.ged b.ged >> b.ged`): by the time it was
/// read it held the report of `a.ged` (read as part of it: exit 1), or a worker read it while that report was
/// appended (exit 2, "changed"). Refused as `cat a b >> b` refuses it ("input file is output file"), the
/// other files done; given first it is read whole before anything is written, as before. Commands whose
/// output is not standard output (`--in-place`, `-o`) are not concerned.
#[test]
fn case_2g_a_later_input_that_standard_output_is_appended_to_is_refused() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    let appended_to_b = |args: &[&str]| {
        fs::write(d.join("b.ged"), SAMPLE).expect("write");
        let log = fs::OpenOptions::new()
            .append(true)
            .open(d.join("b.ged"))
            .expect("open");
        let out = gedgraft_command(d, args)
            .stdout(Stdio::from(log))
            .stderr(Stdio::piped())
            .output()
            .expect("run");
        let written = fs::read(d.join("b.ged")).expect("b.ged");
        (out, written[SAMPLE.len()..].to_vec())
    };
    let alone = |args: &[&str]| gedgraft_command(d, args).output().expect("run").stdout;
    let refused = "b.ged: input file is output file";
    for (command, options) in [
        ("check", &[][..]),
        ("check", &["--format", "json"]),
        ("check", &["-j", "2"]),
        ("check", &["-j", "2", "--format", "json"]),
        ("fix", &["--escape-at"]),
        ("fmt", &[]),
    ] {
        let args = |files: &[&'static str]| [&[command][..], options, files].concat();
        let (out, written) = appended_to_b(&args(&["a.ged", "b.ged", "a.ged"]));
        assert_eq!(
            exit_code(&out),
            2,
            "{command} {options:?}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains(refused),
            "{command} {options:?}: {}",
            stderr(&out)
        );
        // What the other files gave, in order (and a JSON line for the refused one).
        let a = alone(&args(&["a.ged"]));
        let mut expected = a.clone();
        if options.contains(&"json") {
            let line = String::from_utf8_lossy(&written[a.len()..]).into_owned();
            assert!(
                line.starts_with(r#"{"file":"b.ged","error":{"code":"io""#),
                "{line}"
            );
            assert!(line.contains(refused), "{line}");
            expected.extend_from_slice(line.lines().next().unwrap_or_default().as_bytes());
            expected.push(b'\n');
        }
        expected.extend_from_slice(&a);
        assert!(
            written == expected,
            "{command} {options:?}: {}",
            String::from_utf8_lossy(&written)
        );
        // Given first, it is read whole before anything is written.
        fs::write(d.join("b.ged"), SAMPLE).expect("write");
        let expected = alone(&args(&["b.ged", "a.ged"]));
        let (out, written) = appended_to_b(&args(&["b.ged", "a.ged"]));
        assert_ne!(
            exit_code(&out),
            2,
            "{command} {options:?}: {}",
            stderr(&out)
        );
        assert!(
            written == expected,
            "{command} {options:?}: {}",
            String::from_utf8_lossy(&written)
        );
    }
    // Nothing goes to standard output: not concerned.
    let (out, _) = appended_to_b(&["fix", "--escape-at", "--check", "a.ged", "b.ged"]);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    assert!(!stderr(&out).contains(refused), "{}", stderr(&out));
    // Standard input that is that file (`check a.ged - < b.ged >> b.ged`) is refused too (found by a helper).
    fs::write(d.join("b.ged"), SAMPLE).expect("write");
    let input = fs::File::open(d.join("b.ged")).expect("open");
    let log = fs::OpenOptions::new()
        .append(true)
        .open(d.join("b.ged"))
        .expect("open");
    let out = gedgraft_command(d, &["check", "a.ged", "-"])
        .stdin(Stdio::from(input))
        .stdout(Stdio::from(log))
        .stderr(Stdio::piped())
        .output()
        .expect("run");
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("-: input file is output file"),
        "{}",
        stderr(&out)
    );
    // A device is not a file whose content comes back: `check a.ged /dev/null > /dev/null` is not refused.
    let out = gedgraft_command(d, &["check", "a.ged", "/dev/null"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run");
    assert!(
        !stderr(&out).contains("input file is output file"),
        "{}",
        stderr(&out)
    );
}

/// Standard output open for reading only (`1<file`): Rust's standard output would take the failed writes for
/// a sink, and every command would exit 0 having written nothing. Each says it cannot write (exit 2), as `cat`
/// does; a command with nothing for standard output (`--in-place`) is not concerned.
#[test]
fn standard_output_open_for_reading_only_is_an_error() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    fs::write(d.join("ro"), b"").expect("write");
    for args in [
        &["lower", "a.ged"][..],
        &["check", "--format", "json", "a.ged"],
        &["dump", "a.ged"],
        &["fix", "--escape-at", "a.ged"],
        &["fix", "--escape-at", "a.ged", "-o", "-"],
        &["fmt", "a.ged"],
    ] {
        let out = common::gedgraft_command(d, args)
            .stdout(Stdio::from(fs::File::open(d.join("ro")).expect("open")))
            .output()
            .expect("run");
        assert_eq!(exit_code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("cannot write to standard output: it is open for reading only"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let out = fix_command(d, &["--escape-at", "a.ged", "--in-place"])
        .stdout(Stdio::from(fs::File::open(d.join("ro")).expect("open")))
        .output()
        .expect("run");
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(fs::read(d.join("a.ged")).expect("file"), ESCAPED);
}

// 3. `--in-place` keeps owner and group, or refuses.

#[test]
fn case_3_in_place_keeps_owner_and_group() {
    let dir = temp_dir();
    let d = dir.path();
    if !needs_root(d, "chown to nobody") {
        return;
    }
    let nobody = |name: &str, mode: u32| {
        let path = d.join(name);
        fs::write(&path, SAMPLE).expect("write");
        run("chown", &[Path::new("nobody:nogroup"), &path]);
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("chmod");
        fs::metadata(&path).expect("meta")
    };
    let plain = nobody("plain.ged", 0o640);
    let setuid = nobody("setuid.ged", 0o4755);
    assert_ne!(plain.uid(), 0, "chown worked");
    let out = fix_in(
        d,
        &[
            "--escape-at",
            "--in-place",
            "--backup",
            ".orig",
            "plain.ged",
            "setuid.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    for (name, before) in [("plain.ged", &plain), ("setuid.ged", &setuid)] {
        let after = fs::metadata(d.join(name)).expect("meta");
        assert_eq!(fs::read(d.join(name)).expect("file"), ESCAPED);
        assert_ne!(after.ino(), before.ino(), "a new file");
        assert_eq!(
            (after.uid(), after.gid()),
            (before.uid(), before.gid()),
            "{name}"
        );
        // The set-user-ID bit stays with the original owner, never with root.
        assert_eq!(after.mode() & 0o7777, before.mode() & 0o7777, "{name}");
        let backup = fs::metadata(d.join(format!("{name}.orig"))).expect("backup");
        assert_eq!((backup.uid(), backup.gid()), (before.uid(), before.gid()));
        assert_eq!(backup.mode() & 0o7777, before.mode() & 0o7777);
    }
}

#[test]
fn case_3_in_place_refuses_when_the_owner_cannot_be_kept() {
    let dir = temp_dir();
    let d = dir.path();
    if !needs_root(d, "running as nobody") {
        return;
    }
    // A root file that nobody may write, in a directory nobody may write: nobody cannot give a new file to root.
    fs::set_permissions(d, fs::Permissions::from_mode(0o777)).expect("chmod dir");
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    fs::set_permissions(d.join("a.ged"), fs::Permissions::from_mode(0o666)).expect("chmod");
    let out = as_nobody(
        d,
        &[
            "fix",
            "--escape-at",
            "--in-place",
            "--backup",
            ".orig",
            "a.ged",
        ],
    );
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot write a.ged: cannot keep the owner and group (0:0)"),
        "{}",
        stderr(&out)
    );
    let meta = fs::metadata(d.join("a.ged")).expect("meta");
    assert_eq!((meta.uid(), meta.gid()), (0, 0));
    assert_eq!(fs::read(d.join("a.ged")).expect("file"), SAMPLE);
    assert_eq!(entries(d), ["a.ged"]);
}

// 4. The temporary file is never more readable than the original.

#[test]
fn case_4_a_private_file_stays_private() {
    // The temporary file is created with mode 0600 and given the original's mode only when complete (unit test
    // `a_replacement_starts_readable_by_its_owner_only` in gedgraft-edit); here: the result keeps 0600.
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    fs::set_permissions(d.join("a.ged"), fs::Permissions::from_mode(0o600)).expect("chmod");
    let out = Command::new("sh")
        .args([
            "-c",
            "umask 000 && exec \"$0\" fix --escape-at --in-place a.ged",
        ])
        .arg(env!("CARGO_BIN_EXE_gedgraft"))
        .current_dir(d)
        .output()
        .expect("run sh");
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(fs::read(d.join("a.ged")).expect("file"), ESCAPED);
    let mode = fs::metadata(d.join("a.ged")).expect("meta").mode();
    assert_eq!(mode & 0o7777, 0o600);
    assert_eq!(entries(d), ["a.ged"]);
}

// 5b. A write stopped by a signal (Ctrl-C) leaves no temporary file behind (`sed -i` leaves one).

/// `fix --escape-at --in-place` of a file of `records` records sent `signal` once its temporary file is
/// there, started by `env` with `dispositions` (whatever the test runs under: a job started with `&` by a
/// script ignores `SIGINT`): the exit status, and whether the signal came while it wrote (else it finished
/// first).
fn signalled_while_writing(
    d: &Path,
    records: usize,
    signal: &str,
    dispositions: &str,
) -> (std::process::ExitStatus, bool) {
    let mut bytes = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
    for i in 0..records {
        bytes.extend_from_slice(format!("0 @N{i}@ NOTE a@b\n").as_bytes());
    }
    bytes.extend_from_slice(b"0 TRLR\n");
    fs::write(d.join("a.ged"), &bytes).expect("write");
    let mut child = Command::new("env")
        .arg(dispositions)
        .arg(env!("CARGO_BIN_EXE_gedgraft"))
        .args(["fix", "--escape-at", "--in-place", "a.ged"])
        .current_dir(d)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut signalled = false;
    while child.try_wait().expect("wait").is_none() {
        if entries(d).iter().any(|n| n.ends_with(".gedgraft.tmp")) {
            run(
                "kill",
                &[
                    Path::new(&format!("-{signal}")),
                    Path::new(&child.id().to_string()),
                ],
            );
            signalled = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let status = child.wait().expect("wait");
    if signalled && !status.success() {
        assert_eq!(
            fs::read(d.join("a.ged")).expect("file"),
            bytes,
            "the original is untouched"
        );
    }
    (status, signalled)
}

/// [`signalled_while_writing`] with larger files until the signal comes while the file is written (a fast
/// machine may finish first).
fn signalled_in_time(d: &Path, signal: &str, dispositions: &str) -> std::process::ExitStatus {
    let caught = (0..6).map(|k| 100_000 << k).find_map(|records| {
        let (status, signalled) = signalled_while_writing(d, records, signal, dispositions);
        signalled.then_some(status)
    });
    caught.unwrap_or_else(|| panic!("SIG{signal} never came while the file was written"))
}

#[test]
fn case_5b_a_write_stopped_by_a_signal_leaves_no_temporary_file() {
    use std::os::unix::process::ExitStatusExt;
    let dir = temp_dir();
    let d = dir.path();
    for (signal, number) in [("INT", 2), ("TERM", 15), ("HUP", 1)] {
        let status = signalled_in_time(d, signal, "--default-signal=INT,TERM,HUP");
        // The process dies of the signal, as without the clean-up (a shell loop calling it stops).
        assert_eq!(status.signal(), Some(number), "SIG{signal}: {status:?}");
        assert_eq!(entries(d), ["a.ged"], "SIG{signal}: no temporary file left");
    }
    // A signal ignored when it starts (`nohup`) stays ignored: the file is written.
    let status = signalled_in_time(d, "HUP", "--ignore-signal=HUP");
    assert!(status.success(), "{status:?}");
    assert!(fs::read(d.join("a.ged"))
        .expect("file")
        .ends_with(b"a@@b\n0 TRLR\n"));
    assert_eq!(entries(d), ["a.ged"]);
}

// 5. A write over the file size limit is an I/O error, not a SIGXFSZ.

#[test]
fn case_5_the_file_size_limit_in_a_later_batch_names_the_file() {
    // The limit falls past the first batch (1 MiB) of a streamed `fix`: the message named no file and lost the
    // hint ("gedgraft: File too large").
    let dir = temp_dir();
    let d = dir.path();
    let mut large = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
    while large.len() < 4 << 20 {
        large.extend_from_slice(format!("0 @N{}@ NOTE a@b\n", large.len()).as_bytes());
    }
    large.extend_from_slice(b"0 TRLR\n");
    fs::write(d.join("a.ged"), &large).expect("write");
    for (args, name) in [
        (&["--escape-at", "--in-place", "a.ged"][..], "a.ged"),
        (&["--escape-at", "a.ged", "-o", "out.ged"], "out.ged"),
    ] {
        let out = gedgraft_with_file_size_limit_of(d, 3000, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(&format!("cannot write {name}: ")), "{err}");
        assert!(err.contains("ulimit -f"), "{err}");
        assert_eq!(fs::read(d.join("a.ged")).expect("file"), large);
        assert_eq!(entries(d), ["a.ged"], "no temporary file left");
    }
}

#[test]
fn case_5_the_file_size_limit_is_an_io_error() {
    let dir = temp_dir();
    let d = dir.path();
    let big = big_sample();
    fs::write(d.join("a.ged"), &big).expect("write");
    for args in [
        &["--escape-at", "--in-place", "a.ged"][..],
        &["--escape-at", "a.ged", "-o", "out.ged"][..],
    ] {
        let out = gedgraft_with_file_size_limit(d, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("cannot write"), "{err}");
        assert!(err.contains("ulimit -f"), "{err}");
        assert_eq!(fs::read(d.join("a.ged")).expect("file"), big);
        assert_eq!(entries(d), ["a.ged"], "no temporary file left");
    }
}

// 6. `--in-place` edits regular files only; links are followed.

#[test]
fn case_6_in_place_refuses_a_fifo() {
    let dir = temp_dir();
    let d = dir.path();
    run("mkfifo", &[&d.join("fifo.ged")]);
    // Refused before reading: reading would wait for a writer.
    let out = fix_in(d, &["--escape-at", "--in-place", "fifo.ged"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("cannot edit fifo.ged in place: it is a FIFO"),
        "{}",
        stderr(&out)
    );
    let meta = fs::symlink_metadata(d.join("fifo.ged")).expect("fifo");
    assert!(meta.file_type().is_fifo());
    assert_eq!(entries(d), ["fifo.ged"]);
}

#[test]
fn case_6_in_place_refuses_a_pipe_named_through_a_link() {
    // `/dev/stdin` (and `<(…)`) is a link to `pipe:[N]`, which has no name in the file system: refused for
    // being a pipe, not as a missing file.
    let dir = temp_dir();
    let d = dir.path();
    let mut child = fix_command(d, &["--escape-at", "--in-place", "/dev/stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(exit_code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("cannot edit /dev/stdin in place: it is a FIFO"),
        "{err}"
    );
    assert!(!err.contains("No such file"), "{err}");
    assert_eq!(entries(d), Vec::<String>::new());
}

#[test]
fn case_6_in_place_refuses_a_device() {
    let dir = temp_dir();
    let d = dir.path();
    if !needs_root(d, "making a device node") {
        return;
    }
    run(
        "mknod",
        &[
            &d.join("null.ged"),
            Path::new("c"),
            Path::new("1"),
            Path::new("3"),
        ],
    );
    let out = fix_in(d, &["--escape-at", "--in-place", "null.ged"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("character device"),
        "{}",
        stderr(&out)
    );
    let meta = fs::symlink_metadata(d.join("null.ged")).expect("device");
    assert!(meta.file_type().is_char_device());
    assert_eq!(entries(d), ["null.ged"]);
}

#[test]
fn case_6_in_place_through_a_symlink_replaces_the_file_and_backs_it_up_beside_it() {
    let dir = temp_dir();
    let d = dir.path();
    fs::create_dir(d.join("real")).expect("mkdir");
    fs::write(d.join("real/a.ged"), SAMPLE).expect("write");
    std::os::unix::fs::symlink("real/a.ged", d.join("link.ged")).expect("ln -s");
    let out = fix_in(
        d,
        &["--escape-at", "--in-place", "--backup", ".orig", "link.ged"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(is_symlink(&d.join("link.ged")), "the link stays");
    assert_eq!(fs::read(d.join("real/a.ged")).expect("file"), ESCAPED);
    assert_eq!(fs::read(d.join("real/a.ged.orig")).expect("backup"), SAMPLE);
    assert_eq!(entries(d), ["link.ged", "real"]);
    assert_eq!(entries(&d.join("real")), ["a.ged", "a.ged.orig"]);
}

#[test]
fn case_6_in_place_breaks_hard_links_as_sed_does() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    fs::hard_link(d.join("a.ged"), d.join("other-name.ged")).expect("ln");
    let out = fix_in(d, &["--escape-at", "--in-place", "a.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(fs::read(d.join("a.ged")).expect("file"), ESCAPED);
    assert_eq!(fs::read(d.join("other-name.ged")).expect("other"), SAMPLE);
}

#[test]
fn fix_help_documents_the_file_rules() {
    let out = Command::new(env!("CARGO_BIN_EXE_gedgraft"))
        .args(["fix", "--help"])
        .output()
        .expect("run");
    let help = stdout_lossy(&out).replace(char::is_whitespace, " ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for rule in [
        "`-` writes to standard output",
        "is refused with status 2 and left alone",
        "owner, group and permissions it keeps",
        "Only regular files are edited",
        "next to the file it points to",
        "other hard links to the original keep the old text",
        "SUFFIX may not be empty",
        "a file OUT is all or nothing",
    ] {
        assert!(help.contains(rule), "{rule:?} missing from fix --help");
    }
}

/// A command that reads a file twice stops if the file changed in between (`input::open`); what the command
/// writes itself is read as the new file: a file written over by `-o`. (The same file named twice in place is
/// refused: its edits would be made twice, `case_1g_…`.)
#[test]
fn a_file_the_command_wrote_itself_reads_as_new() {
    let dir = temp_dir();
    let d = dir.path();
    let text = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 EMAIL a@b.c\n0 TRLR\n";
    fs::write(d.join("a.ged"), text).expect("written");
    let out = fix_in(d, &["--escape-at", "--in-place", "a.ged", "a.ged", "a.ged"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert_eq!(fs::read_to_string(d.join("a.ged")).expect("a.ged"), text);
    let escaped = text.replace("a@b", "a@@b");
    fs::write(d.join("b.ged"), text).expect("written");
    let out = fix_in(
        d,
        &[
            "--escape-at",
            "--set-xref",
            "@I1@=I2",
            "b.ged",
            "-o",
            "b.ged",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let renamed = escaped.replace("@I1@", "@I2@");
    assert_eq!(fs::read_to_string(d.join("b.ged")).expect("b.ged"), renamed);
}

/// Standard error that cannot be written (`2>/dev/full`, a closed pipe): the messages are lost, not the work.
/// `eprintln!` panicked (exit 101) at the first message, and the files after it were not edited.
#[test]
fn standard_error_that_fails_neither_panics_nor_stops_the_files() {
    let dir = temp_dir();
    let d = dir.path();
    let full = || {
        Stdio::from(
            fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full"),
        )
    };
    for name in ["p.ged", "q.ged", "r.ged"] {
        fs::write(d.join(name), SAMPLE).expect("write");
    }
    let out = fix_command(d, &["--escape-at", "--in-place", "p.ged", "q.ged", "r.ged"])
        .stderr(full())
        .output()
        .expect("run");
    assert_eq!(exit_code(&out), 0);
    for name in ["p.ged", "q.ged", "r.ged"] {
        assert_eq!(fs::read(d.join(name)).expect("file"), ESCAPED, "{name}");
    }
    for (args, code) in [
        (&["check", "missing.ged"][..], 2),
        (&["fmt", "--check", "p.ged"], 1),
        (
            &["fix", "--escape-at", "missing.ged", "p.ged", "--check"],
            2,
        ),
    ] {
        let out = gedgraft_command(d, args)
            .stderr(full())
            .output()
            .expect("run");
        assert_eq!(exit_code(&out), code, "{args:?}");
    }
    // A help that cannot be written is not a success (`ls --help > /dev/full`).
    for args in [&["--help"][..], &["--version"], &["fix", "--help"]] {
        let out = gedgraft_command(d, args)
            .stdout(full())
            .output()
            .expect("run");
        assert_eq!(exit_code(&out), 2, "{args:?}");
        assert!(
            stderr(&out).contains("cannot write standard output"),
            "{args:?}"
        );
    }
}

/// `--backup` belongs to `--in-place`: with `-o` or `--check` it was accepted and made no backup.
#[test]
fn case_1f_backup_without_in_place_is_refused() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    for args in [
        &[
            "fix",
            "--escape-at",
            "--backup",
            ".orig",
            "a.ged",
            "-o",
            "out.ged",
        ][..],
        &[
            "fix",
            "--escape-at",
            "--backup",
            ".orig",
            "a.ged",
            "--check",
        ],
        &["fmt", "--backup", ".orig", "a.ged", "-o", "out.ged"],
        &["fmt", "--backup", ".orig", "a.ged", "--check"],
    ] {
        let out = gedgraft_command(d, args).output().expect("run");
        assert_eq!(exit_code(&out), 2, "{args:?}");
        assert!(
            stderr(&out).contains("--backup"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_eq!(entries(d), ["a.ged"], "{args:?}");
    }
}

/// An access control list is kept by `--in-place` and `-o` over an existing file, as `sed -i` keeps it: it
/// was dropped, and the mode's group bits (the list's mask) then let the group read what the list denied it.
#[cfg(target_os = "linux")]
#[test]
fn case_4_an_access_control_list_is_kept() {
    const ACL: &str = "system.posix_acl_access";
    // u::rw-, u:65534:r--, g::---, m::r--, o::--- (the kernel's binary form, version 2).
    let none = u32::MAX;
    let entries = [
        (1u16, 6u16, none),
        (2, 4, 65534),
        (4, 0, none),
        (0x10, 4, none),
        (0x20, 0, none),
    ];
    let mut acl = 2u32.to_le_bytes().to_vec();
    for (tag, perm, id) in entries {
        acl.extend_from_slice(&tag.to_le_bytes());
        acl.extend_from_slice(&perm.to_le_bytes());
        acl.extend_from_slice(&id.to_le_bytes());
    }
    let dir = temp_dir();
    let d = dir.path();
    for name in ["a.ged", "out.ged"] {
        fs::write(d.join(name), SAMPLE).expect("write");
        let set = rustix::fs::setxattr(d.join(name), ACL, &acl, rustix::fs::XattrFlags::empty());
        if set.is_err() {
            // Said, not skipped silently: a file system without access control lists has none to keep.
            eprintln!("no access control lists in {}: {set:?}", d.display());
            assert!(
                std::env::var_os("CI").is_none(),
                "CI's temporary directory must have them"
            );
            return;
        }
    }
    let read = |name: &str| {
        let mut value = vec![0; 256];
        rustix::fs::getxattr(d.join(name), ACL, &mut value).map(|len| {
            value.truncate(len);
            value
        })
    };
    for args in [
        &["--escape-at", "--in-place", "a.ged"][..],
        &["--escape-at", "a.ged", "-o", "out.ged"],
    ] {
        let out = fix_in(d, args);
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
        let name = args.last().expect("a name");
        assert_eq!(fs::read(d.join(name)).expect("file"), ESCAPED, "{args:?}");
        assert_eq!(read(name).ok(), Some(acl.clone()), "{args:?}");
        let mode = fs::metadata(d.join(name))
            .expect("file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o640, "{args:?}: the group bits are the mask");
    }
}

/// A new file made by `-o` from a private input is private too, as `cp` makes it (it was 0644 from a 0600
/// input); every command that writes one, streamed or whole. A file already at `-o` keeps its mode (case 3).
#[test]
fn case_4_a_new_output_of_a_private_input_is_private() {
    let dir = temp_dir();
    let d = dir.path();
    let mut large = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
    for i in 0..60_000 {
        large.extend_from_slice(format!("0 @N{i}@ NOTE a@b\n").as_bytes());
    }
    large.extend_from_slice(b"0 TRLR\n");
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    fs::write(d.join("big.ged"), &large).expect("write");
    for name in ["a.ged", "big.ged"] {
        fs::set_permissions(d.join(name), fs::Permissions::from_mode(0o600)).expect("chmod");
    }
    let lowered = gedgraft_command(d, &["lower", "a.ged"])
        .output()
        .expect("lower");
    fs::write(d.join("a.json"), &lowered.stdout).expect("write");
    fs::set_permissions(d.join("a.json"), fs::Permissions::from_mode(0o600)).expect("chmod");
    for (k, args) in [
        &["fix", "a.ged", "-o"][..],
        &["fix", "--escape-at", "a.ged", "-o"],
        &["fix", "--escape-at", "big.ged", "-o"],
        &["fix", "--repair", "big.ged", "-o"],
        &["fix", "big.ged", "-o"],
        &["fmt", "a.ged", "-o"],
        &["write", "a.json", "-o"],
    ]
    .iter()
    .enumerate()
    {
        let out = format!("out{k}.ged");
        let run = gedgraft_command(d, args).arg(&out).output().expect("run");
        assert!(
            matches!(exit_code(&run), 0 | 1),
            "{args:?}: {}",
            stderr(&run)
        );
        let mode = fs::metadata(d.join(&out))
            .expect("out")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600, "{args:?}");
    }
}

/// A temporary file that cannot be made is told as the file being written, not by the temporary name that
/// never existed ("… at path ".out.ged.XXXXXX.gedgraft.tmp"").
#[test]
fn a_failed_write_names_the_file_not_its_temporary() {
    let dir = temp_dir();
    let d = dir.path();
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    let out = fix_in(d, &["--escape-at", "a.ged", "-o", "nodir/out.ged"]);
    assert_eq!(exit_code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("cannot write nodir/out.ged: "), "{err}");
    assert!(!err.contains("gedgraft.tmp"), "{err}");
}

/// A file name with a line break or a quote is quoted in the patch's and the review diff's headers as git
/// quotes it: raw, `a<LF>b.ged` wrote `--- a/a` and a line `b.ged`, and `patch` edited the file `a`.
#[test]
fn names_that_would_break_a_patch_header_are_quoted() {
    let dir = temp_dir();
    let d = dir.path();
    let name = "a\nb\"c.ged";
    fs::write(d.join(name), SAMPLE).expect("write");
    let patch = fix_in(d, &["--escape-at", "--patch", name]);
    assert_eq!(exit_code(&patch), 0, "{}", stderr(&patch));
    let text = String::from_utf8_lossy(&patch.stdout).to_string();
    assert!(
        text.starts_with("--- \"a/a\\nb\\\"c.ged\"\n+++ \"b/a\\nb\\\"c.ged\"\n@@ "),
        "{text}"
    );
    let review = fix_in(d, &["--escape-at", name]);
    let text = String::from_utf8_lossy(&review.stdout).to_string();
    assert!(text.starts_with("--- \"a/a\\nb\\\"c.ged\" ("), "{text}");
    // A plain name, non-ASCII letters included, is as it is.
    fs::write(d.join("Müller.ged"), SAMPLE).expect("write");
    let plain = fix_in(d, &["--escape-at", "--patch", "Müller.ged"]);
    assert!(String::from_utf8_lossy(&plain.stdout).starts_with("--- a/Müller.ged\n"));
}

/// `-o` through a link to nothing is refused, as `cp` refuses ("not writing through dangling symlink"): the
/// message says what the link is, and nothing is made where it points.
#[test]
fn output_through_a_dangling_symlink_is_refused_and_says_so() {
    let dir = temp_dir();
    fs::write(dir.path().join("a.ged"), SAMPLE).expect("write");
    std::os::unix::fs::symlink("missing.ged", dir.path().join("out.ged")).expect("symlink");
    let out = fix_in(dir.path(), &["--escape-at", "a.ged", "-o", "out.ged"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "cannot write out.ged: it is a symbolic link to missing.ged, which does not exist"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(entries(dir.path()), ["a.ged", "out.ged"]);
    assert!(is_symlink(&dir.path().join("out.ged")));
    assert_eq!(fs::read(dir.path().join("a.ged")).expect("read"), SAMPLE);
}

/// A file name holding control characters (an escape sequence) is shown escaped (`\x1B`), in reports and in
/// errors, so that it cannot act on the reader's terminal (GNU tools quote such names).
#[test]
fn control_characters_of_file_names_are_shown_escaped() {
    let dir = temp_dir();
    let name = "bad\u{1b}[2Jname.ged";
    fs::write(dir.path().join(name), SAMPLE).expect("write");
    let out = gedgraft_command(dir.path(), &["check", name])
        .output()
        .expect("run");
    let report = stdout_lossy(&out);
    assert!(report.contains("bad\\x1B[2Jname.ged:"), "{report}");
    assert!(!report.contains('\u{1b}'), "{report}");
    let missing = "gone\u{1b}]0;title\u{7}.ged";
    let out = gedgraft_command(dir.path(), &["check", missing])
        .output()
        .expect("run");
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("gone\\x1B]0;title\\x07.ged"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains('\u{1b}'), "{}", stderr(&out));
    let out = fix_in(dir.path(), &["--escape-at", name, "-o", "out.ged"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(!stderr(&out).contains('\u{1b}'), "{}", stderr(&out));
}

/// `-o` over a file the user may not write (their own, write-protected) is refused, as `cp` refuses to
/// overwrite it: the directory being writable, the rename would replace it. In place, a write-protected file is
/// edited, as `sed -i` edits it (the user named it to be edited). Root may write any file, as with `cp`.
#[test]
fn output_over_a_write_protected_file_is_refused() {
    let dir = temp_dir();
    let d = dir.path();
    if !needs_root(d, "running as nobody") {
        return;
    }
    fs::set_permissions(d, fs::Permissions::from_mode(0o777)).expect("chmod dir");
    fs::write(d.join("a.ged"), SAMPLE).expect("write");
    for name in ["out.ged", "b.ged"] {
        fs::write(d.join(name), SAMPLE).expect("write");
        run("chown", &[Path::new("nobody:nogroup"), &d.join(name)]);
        fs::set_permissions(d.join(name), fs::Permissions::from_mode(0o444)).expect("chmod");
    }
    for args in [
        &["fix", "--escape-at", "a.ged", "-o", "out.ged"][..],
        &["fmt", "a.ged", "-o", "out.ged"],
    ] {
        let out = as_nobody(d, args);
        assert_eq!(exit_code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out)
                .contains("cannot write out.ged: it is write-protected, and is not replaced"),
            "{}",
            stderr(&out)
        );
        assert_eq!(fs::read(d.join("out.ged")).expect("file"), SAMPLE);
    }
    let in_place = as_nobody(d, &["fix", "--escape-at", "--in-place", "b.ged"]);
    assert_eq!(exit_code(&in_place), 0, "{}", stderr(&in_place));
    assert_eq!(fs::read(d.join("b.ged")).expect("file"), ESCAPED);
    let root = fix_in(d, &["--escape-at", "a.ged", "-o", "out.ged"]);
    assert_eq!(exit_code(&root), 0, "{}", stderr(&root));
    assert_eq!(fs::read(d.join("out.ged")).expect("file"), ESCAPED);
}

/// `lower FILE > out.json` (a regular file written from its end) that fails half way (the file size limit, as
/// a full disk would) leaves no JSON cut short behind: what it wrote is taken back, in one pass and in two
/// (found by a helper: 100 KiB of JSON was left). An input that changed while it was read is taken back the
/// same way (the same path; not timed here).
#[test]
fn lower_into_a_file_takes_back_what_a_failed_write_wrote() {
    let dir = temp_dir();
    let d = dir.path();
    let mut text = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
    for i in 0..4000 {
        let record = format!("0 @I{i}@ INDI\n1 NAME A{i} /B/\n1 FAMS @F{}@\n", i / 2);
        text.extend_from_slice(record.as_bytes());
    }
    text.extend_from_slice(b"0 TRLR\n");
    fs::write(d.join("a.ged"), &text).expect("write");
    for two_passes in [false, true] {
        let mut command = Command::new("sh");
        command
            .args(["-c", "ulimit -f 100 && exec \"$0\" lower a.ged > out.json"])
            .arg(env!("CARGO_BIN_EXE_gedgraft"))
            .env_remove("GEDGRAFT_WHOLE_FILE")
            .current_dir(d);
        match two_passes {
            true => command.env("GEDGRAFT_TWO_PASS", "1"),
            false => command.env_remove("GEDGRAFT_TWO_PASS"),
        };
        let out = command.output().expect("run sh");
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains("ulimit -f"), "{}", stderr(&out));
        let left = fs::read(d.join("out.json")).expect("read");
        assert!(
            left.is_empty(),
            "two passes {two_passes}: {} octets left",
            left.len()
        );
    }
}
