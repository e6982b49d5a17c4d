//! Files over 4 GiB (issue #17), run by hand — it writes two files of about 5 GB under Cargo's temporary
//! directory and takes minutes:
//!
//! ```text
//! cargo test --release -p gedgraft --test huge -- --ignored --nocapture
//! GEDGRAFT_HUGE_GB=6 cargo test --release -p gedgraft --test huge -- --ignored --nocapture
//! ```
//!
//! `fix FILE -o OUT` streams it back octet for octet, `check --format json` streams it with offsets past 4 GiB
//! in its diagnostics, each in bounded memory (peak resident set, measured with GNU `/usr/bin/time` when it is
//! there).

mod common;

use common::{gedgraft_command, temp_dir};
use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::process::Command;

/// Writes a GEDCOM 5.5.1 file of about `gb` × 10⁹ octets: records of about 4 KB (a note of 40 `CONT` lines),
/// one identifier each, pointers to the records before; one lone `@` on a line past 4 GiB. Returns the file
/// offset of that `@`.
fn write_huge(path: &Path, gb: u64) -> u64 {
    let target = gb * 1_000_000_000;
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).expect("create"));
    let mut written = 0u64;
    let mut put = |out: &mut BufWriter<std::fs::File>, s: &str| {
        out.write_all(s.as_bytes()).expect("write");
        written += s.len() as u64;
        written
    };
    put(
        &mut out,
        "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n",
    );
    let line = "2 CONT The quick brown fox jumps over the lazy dog, again and again and again.\n";
    let mut at = None;
    let mut i = 0u64;
    loop {
        let so_far = put(
            &mut out,
            &format!("0 @I{i}@ INDI\n1 NAME Person{i} /Family/\n1 NOTE n\n"),
        );
        for _ in 0..40 {
            put(&mut out, line);
        }
        if i > 0 {
            put(&mut out, &format!("1 ASSO @I{}@\n", i - 1));
        }
        if at.is_none() && so_far > (4u64 << 30) + 1000 {
            let before = put(&mut out, "1 EMAIL me");
            at = Some(before);
            put(&mut out, "@example.com\n");
        }
        i += 1;
        if so_far >= target {
            break;
        }
    }
    put(&mut out, "0 TRLR\n");
    out.flush().expect("flush");
    at.expect("the file passes 4 GiB")
}

/// Runs `gedgraft ARGS` (under `/usr/bin/time` when there is one): exit status, standard output, peak KiB.
fn run_measured(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<u8>, Option<u64>) {
    let time = Path::new("/usr/bin/time");
    let output = if time.exists() {
        let mut command = Command::new(time);
        command
            .args(["-f", "HUGE %M %e"])
            .arg(env!("CARGO_BIN_EXE_gedgraft"))
            .args(args)
            .current_dir(dir);
        command.output()
    } else {
        gedgraft_command(dir, args).output()
    }
    .expect("run gedgraft");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let measured = stderr.lines().rev().find_map(|l| l.strip_prefix("HUGE "));
    let peak = measured.and_then(|m| m.split(' ').next()?.parse().ok());
    eprintln!(
        "gedgraft {args:?}: {:?}, {}",
        output.status.code(),
        measured.unwrap_or("")
    );
    (output.status.code(), output.stdout, peak)
}

/// Whether two files hold the same octets, read 1 MiB at a time.
fn same_octets(a: &Path, b: &Path) -> bool {
    let open = |p: &Path| std::fs::File::open(p).expect("open");
    let (mut a, mut b) = (open(a), open(b));
    let (mut x, mut y) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    loop {
        let n = read_full(&mut a, &mut x);
        let m = read_full(&mut b, &mut y);
        if n != m || x[..n] != y[..m] {
            return false;
        }
        if n == 0 {
            return true;
        }
    }
}

fn read_full(r: &mut impl Read, buf: &mut [u8]) -> usize {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) => panic!("read: {e}"),
        }
    }
    filled
}

#[test]
#[ignore = "writes two files of about 5 GB and takes minutes: run by hand (see the module documentation)"]
fn files_over_4_gib_stream_through_fix_and_check() {
    let gb: u64 = std::env::var("GEDGRAFT_HUGE_GB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let dir = temp_dir("huge", "over_4_gib");
    let file = dir.join("huge.ged");
    let at = write_huge(&file, gb);
    let len = std::fs::metadata(&file).expect("metadata").len();
    assert!(len > 4 << 30, "{len} octets");

    // Written back octet for octet (DESIGN invariant 1), streamed.
    let (code, _, peak) = run_measured(&dir, &["fix", "huge.ged", "-o", "out.ged"]);
    assert_eq!(code, Some(0));
    assert!(
        same_octets(&file, &dir.join("out.ged")),
        "fix -o changed octets"
    );
    let _ = std::fs::remove_file(dir.join("out.ged"));
    if let Some(kib) = peak {
        assert!(kib < 256 << 10, "fix -o peaked at {kib} KiB");
    }

    // Checked streamed: the lone `@` past 4 GiB is reported at its offset (u64 offsets).
    let (code, out, peak) = run_measured(&dir, &["check", "--format", "json", "huge.ged"]);
    assert_eq!(code, Some(0), "warnings only");
    let report: serde_json::Value = serde_json::from_slice(&out).expect("one JSON line");
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "unescaped-at");
    assert_eq!(diagnostics[0]["offset"].as_u64(), Some(at));
    if let Some(kib) = peak {
        // The largest batch plus the index of about a million identifiers.
        assert!(kib < 512 << 10, "check peaked at {kib} KiB");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
