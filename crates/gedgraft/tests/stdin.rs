//! `-` as an input file: every command reads standard input, like other Unix tools; `fix --in-place -` is
//! refused (there is no file to replace) and writes nothing.

mod common;

use common::{exit_code, stderr, temp_dir};
use std::io::Write;
use std::process::{Command, Output, Stdio};

const INPUT: &[u8] = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Bob\n1 FAMC @F9@\n0 TRLR\n";

fn with_stdin(dir: &std::path::Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gedgraft"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gedgraft");
    // A command that refuses before reading closes the pipe: a failed write is its answer, not the test's.
    let _ = child.stdin.take().expect("stdin").write_all(INPUT);
    child.wait_with_output().expect("wait")
}

#[test]
fn every_command_reads_standard_input_as_dash() {
    let dir = temp_dir("stdin", "every_command");
    let check = with_stdin(&dir, &["check", "-"]);
    assert_eq!(exit_code(&check), 0, "{}", stderr(&check));
    assert!(
        String::from_utf8_lossy(&check.stdout).contains("undefined-pointer"),
        "check reads the input: {check:?}"
    );
    let json = with_stdin(&dir, &["check", "--format", "json", "-"]);
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).expect("one JSON object");
    assert_eq!(value["file"], "-");
    let lower = with_stdin(&dir, &["lower", "-"]);
    let value: serde_json::Value = serde_json::from_slice(&lower.stdout).expect("JSON");
    assert_eq!(value["records"][0]["xref"], "I1");
    let dump = with_stdin(&dir, &["dump", "-"]);
    let root = format!("DOCUMENT@0..{}", INPUT.len());
    assert!(String::from_utf8_lossy(&dump.stdout).starts_with(&root));
    let copy = with_stdin(&dir, &["fix", "-", "-o", "-"]);
    assert_eq!(copy.stdout, INPUT, "identical octets");
    let renamed = with_stdin(&dir, &["fix", "--rename-tag", "NAME=_N", "-", "-o", "-"]);
    assert_eq!(
        String::from_utf8_lossy(&renamed.stdout),
        String::from_utf8_lossy(INPUT).replace("1 NAME", "1 _N")
    );
}

#[test]
fn standard_input_is_not_edited_in_place() {
    let dir = temp_dir("stdin", "in_place");
    let out = with_stdin(&dir, &["fix", "--rename-tag", "NAME=_N", "--in-place", "-"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("cannot edit standard input"),
        "{}",
        stderr(&out)
    );
    assert!(
        std::fs::read_dir(&dir).expect("dir").next().is_none(),
        "nothing written (no file named `-`)"
    );
}

/// A file of more than 64 KiB (a pipe's buffer, and the stream's first read) in many batches, with pointers to
/// records that come later and to none, so that `check` and `lower` take two passes and `--set-xref` a first
/// pass of its own.
fn many_records() -> Vec<u8> {
    let mut text = String::from("0 HEAD\n1 CHAR UTF-8\n");
    for i in 0..2000 {
        text.push_str(&format!(
            "0 @I{i}@ INDI\n1 NAME N{i}\n1 FAMC @F{i}@\n1 ASSO @I{}@\n",
            i + 1
        ));
    }
    text.push_str("0 TRLR\n");
    text.into_bytes()
}

/// `gedgraft ARGS…` in `dir` with `GEDGRAFT_BATCH_SIZE` at `batch` (unset if empty), `input` written to its
/// standard input if given.
fn run_with(dir: &std::path::Path, args: &[&str], batch: &str, input: Option<&[u8]>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gedgraft"));
    command.args(args).current_dir(dir);
    match batch {
        "" => command.env_remove("GEDGRAFT_BATCH_SIZE"),
        size => command.env("GEDGRAFT_BATCH_SIZE", size),
    };
    command.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = (command.stdout(Stdio::piped()).stderr(Stdio::piped()))
        .spawn()
        .expect("run gedgraft");
    if let Some(input) = input {
        let mut stdin = child.stdin.take().expect("stdin");
        let input = input.to_vec();
        // Written on a thread of its own: the command may write output before it has read all of it.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    // A command that opens a FIFO again waits for a writer that never comes: killed after a minute, so the
    // test fails rather than hangs.
    let read_all = |mut from: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut all = Vec::new();
            let _ = from.read_to_end(&mut all);
            all
        })
    };
    let stdout = read_all(Box::new(child.stdout.take().expect("stdout")));
    let stderr = read_all(Box::new(child.stderr.take().expect("stderr")));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let status = child.wait().expect("wait");
            let mut stderr = stderr.join().expect("stderr");
            stderr.extend_from_slice(b"\n[timed out after 60 s]");
            return Output {
                status,
                stdout: stdout.join().expect("stdout"),
                stderr,
            };
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout"),
        stderr: stderr.join().expect("stderr"),
    }
}

/// Found in a session's review: one input that reads once, named twice in one call (`-` and `/dev/stdin` on
/// one pipe, a FIFO twice) read empty (or waited for a writer) the second time in the commands that read a
/// file whole (`diff`, `fmt`, `fix` on its whole-file path). It is one input, copied once: it reads as a file
/// named twice does.
#[test]
fn one_input_that_reads_once_named_twice_reads_the_same_twice() {
    let dir = temp_dir("stdin", "named_twice");
    std::fs::write(dir.join("a.ged"), INPUT).expect("write");
    let json_lines = |o: &Output| -> Vec<serde_json::Value> {
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        let mut lines: Vec<serde_json::Value> = (text.lines())
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect();
        for line in &mut lines {
            line["file"] = serde_json::Value::Null;
        }
        lines
    };
    let check = ["check", "--format", "json"];
    let file = run_with(&dir, &[&check[..], &["a.ged", "a.ged"]].concat(), "", None);
    let piped = run_with(
        &dir,
        &[&check[..], &["-", "/dev/stdin"]].concat(),
        "",
        Some(INPUT),
    );
    assert_eq!(exit_code(&piped), exit_code(&file), "{}", stderr(&piped));
    assert_eq!(json_lines(&piped), json_lines(&file));
    assert_eq!(json_lines(&file).len(), 2);
    let diff = run_with(&dir, &["diff", "-", "/dev/stdin"], "", Some(INPUT));
    let same = run_with(&dir, &["diff", "a.ged", "a.ged"], "", None);
    assert_eq!(
        (exit_code(&diff), &diff.stdout),
        (exit_code(&same), &same.stdout)
    );
    #[cfg(unix)]
    {
        let fifo = dir.join("twice.ged");
        let _ = std::fs::remove_file(&fifo);
        assert!(Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success());
        let writer_path = fifo.clone();
        let writer = std::thread::spawn(move || {
            if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&writer_path) {
                let _ = f.write_all(INPUT);
            }
        });
        // Killed after a minute if it waits for a second writer: a failure, not a hang.
        let got = run_with(&dir, &["diff", "twice.ged", "twice.ged"], "", None);
        writer.join().expect("writer");
        assert_eq!(got.status.code(), same.status.code(), "{}", stderr(&got));
        assert_eq!(got.stdout, same.stdout);
    }
}

/// Found in a session's review: an input that reads once (standard input, a pipe such as `<(zcat f.ged.gz)` or
/// `/dev/stdin`, a FIFO) was opened again by the commands that read a file twice. From a pipe, `check` of a
/// file with dangling pointers reported "2 errors, 0 warnings" (the second pass read nothing) and `lower` wrote
/// no record; from standard input, `fix --set-xref … - -o OUT` wrote the first 64 KiB as the whole file (two
/// readers of its copy shared one position), exit 0. Each now reads a copy made on the first open, each reader
/// at a position of its own: every command gives what it gives for the file itself.
#[test]
fn inputs_that_read_once_read_as_the_file_does() {
    let dir = temp_dir("stdin", "read_once");
    let input = many_records();
    std::fs::write(dir.join("many.ged"), &input).expect("write");
    let commands: &[&[&str]] = &[
        &["check"],
        &["check", "--format", "json"],
        &["lower"],
        &["fix", "--set-xref", "@I1@=X1", "-o", "-"],
        &["fix", "--rename-tag", "NAME=_N", "--check"],
        &["fix", "--delete", "ASSO", "-o", "-"],
        &["fix", "--repair-unsafe", "-o", "-"],
        &["fix", "-o", "-"],
    ];
    let mut failures = Vec::new();
    for batch in ["300", ""] {
        for &command in commands {
            fn with<'a>(command: &[&'a str], path: &'a str) -> Vec<&'a str> {
                let mut args = vec![command[0], path];
                args.extend_from_slice(&command[1..]);
                args
            }
            let expected = run_with(&dir, &with(command, "many.ged"), batch, None);
            let show = |o: &Output| {
                let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
                (exit_code(o), text(&o.stdout), text(&o.stderr))
            };
            let expected = show(&expected);
            assert!(
                expected.1.len() + expected.2.len() > 20,
                "{command:?}: {expected:?}"
            );
            // What the file itself gives, named as `name`.
            let want = |name: &str| {
                let named = |t: &String| t.replace("many.ged", name);
                (expected.0, named(&expected.1), named(&expected.2))
            };
            for path in ["-", "/dev/stdin"] {
                let got = run_with(&dir, &with(command, path), batch, Some(&input));
                if show(&got) != want(path) {
                    failures.push(format!("{command:?} from {path}, batches {batch:?}"));
                }
            }
            #[cfg(unix)]
            {
                let fifo = dir.join("fifo.ged");
                let _ = std::fs::remove_file(&fifo);
                let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
                assert!(made.success());
                let (writer_path, data) = (fifo.clone(), input.clone());
                let writer = std::thread::spawn(move || {
                    // Blocks until the command opens the FIFO.
                    if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&writer_path) {
                        let _ = f.write_all(&data);
                    }
                });
                let got = run_with(&dir, &with(command, "fifo.ged"), batch, None);
                if !writer.is_finished() {
                    // The command did not read it all: drain it so the writer ends.
                    let mut rest = Vec::new();
                    let _ = std::io::Read::read_to_end(
                        &mut std::fs::File::open(&fifo).expect("open fifo"),
                        &mut rest,
                    );
                }
                writer.join().expect("writer");
                if show(&got) != want("fifo.ged") {
                    failures.push(format!("{command:?} from a FIFO, batches {batch:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An input that reads once is copied to a temporary file; a copy that fails (here the file size limit, as a
/// full disk would) is an error naming the input, exit 2, for every later read too. It was taken as the end of
/// the input, and the whole-file path read on from where the copy stopped: `check -` reported the tail of the
/// file as the file (`first-line-not-head`, exit 1).
#[test]
fn a_copy_of_standard_input_that_fails_is_an_error_not_the_input() {
    let dir = temp_dir("stdin", "copy_fails");
    let input = many_records().repeat(16);
    assert!(input.len() > 1 << 20, "larger than the limit below");
    for args in [
        &["check", "-"][..],
        &["check", "--format", "json", "-"],
        &["lower", "-"],
        &["dump", "-"],
        &["fix", "--set-xref", "@I1@=X1", "-"],
        &["fix", "--escape-at", "-", "-o", "-"],
        &["diff", "-", "/dev/null"],
    ] {
        // 512 blocks: 256 or 512 KiB, whichever unit the shell counts in.
        let script = format!("ulimit -f 512 && exec \"$0\" {}", args.join(" "));
        let mut child = Command::new("sh")
            .args(["-c", &script, env!("CARGO_BIN_EXE_gedgraft")])
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run sh");
        let mut stdin = child.stdin.take().expect("stdin");
        let writer = {
            let input = input.clone();
            std::thread::spawn(move || {
                let _ = stdin.write_all(&input);
            })
        };
        let out = child.wait_with_output().expect("wait");
        let _ = writer.join();
        assert_eq!(exit_code(&out), 2, "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("cannot read standard input into the temporary file"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("first-line-not-head"), "{args:?}: {err}");
        // Nothing from a part of the input; `--format json` reports the error as its record of the file.
        let stdout = String::from_utf8_lossy(&out.stdout);
        match args.contains(&"json") {
            true => assert!(
                stdout.starts_with(r#"{"file":"-","error":{"code":"io""#)
                    && stdout.lines().count() == 1,
                "{args:?}: {stdout}"
            ),
            false => assert!(stdout.is_empty(), "{args:?}: {stdout}"),
        }
    }
}
