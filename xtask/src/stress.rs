//! `cargo xtask stress`: the pathological inputs of issue #12 at two sizes, each command of the release binary
//! run on them as a fresh process, with wall time and peak memory, the ratio between the two sizes (linear
//! cost: at most 2.3× per doubling) and peak memory against the budget `8 × file + 64 × lines + 64 MiB`.
//!
//! Each command runs `--repeats` times (default 3) on each size, alternating; the table shows the fastest time
//! (this host is noisy: sub-second times vary by 2× from run to run) and the highest peak.
//!
//! Every run is capped in address space (`prlimit --as`) and time (`timeout`), so a regression cannot take the
//! machine down: a run that hits a cap, panics or is killed is a FAIL row, not a failure of the task. Peak
//! memory is the maximum resident set `/usr/bin/time` reports for the process tree.

use crate::bench::{json_string, mb_s, target_dir};
use crate::gen_sample::{mb_to_octets, write_file};
use crate::Args;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

/// Most growth per doubling of the input, for time and for memory.
const MAX_RATIO: f64 = 2.3;
/// Below this wall time a ratio is mostly noise and is not judged.
const MIN_JUDGED_SECONDS: f64 = 0.25;
/// The memory budget: octets per file octet, per line, and a constant.
const BUDGET_PER_OCTET: u64 = 8;
const BUDGET_PER_LINE: u64 = 64;
const BUDGET_CONSTANT: u64 = 64 << 20;

/// The commands a case runs, by name.
const CHECK: &str = "check";
const CHECK_JSON: &str = "check --format json";
const LOWER: &str = "lower";
const DUMP: &str = "dump";
const FIX_O: &str = "fix -o";
const DELETE_FAM: &str = "fix --delete FAM -o";
const TO_UTF8: &str = "fix --to-encoding utf-8 -o";
const TO_UTF16: &str = "fix --to-encoding utf-16le -o";
const TO_ANSEL: &str = "fix --to-encoding ansel -o";
const REPAIR: &str = "fix --repair-unsafe -o";
const TO_CRLF: &str = "fix --eol crlf -o";
const SET_NOTE: &str = "fix --set @N1@=hello -o";
const SET_NOTE_CHECK: &str = "fix --set @N1@=hello --check";
const FMT_O: &str = "fmt -o";
/// `diff` of the file with itself (`SAME`: the file, twice).
const DIFF_SELF: &str = "diff -q SAME";

/// One pathological input: a name, a generator for about `n` octets and the commands to run on it.
struct Case {
    name: &'static str,
    what: &'static str,
    generate: fn(usize) -> Vec<u8>,
    commands: &'static [&'static str],
}

const EVERY_COMMAND: &[&str] = &[CHECK, CHECK_JSON, LOWER, DUMP, FIX_O];

const CASES: &[Case] = &[
    Case {
        name: "blank-lines",
        what: "LF only",
        generate: blank_lines,
        commands: EVERY_COMMAND,
    },
    Case {
        name: "random",
        what: "random octets (xorshift, fixed seed)",
        generate: random_octets,
        commands: EVERY_COMMAND,
    },
    Case {
        name: "crlf",
        what: "CR LF only",
        generate: crlf,
        commands: EVERY_COMMAND,
    },
    Case {
        name: "dangling",
        what: "one dangling pointer per record",
        generate: dangling_pointers,
        commands: &[CHECK, CHECK_JSON, FMT_O],
    },
    Case {
        name: "fam-records",
        what: "many FAM records, all deleted",
        generate: fam_records,
        commands: &[DELETE_FAM],
    },
    Case {
        name: "deep",
        what: "one level deeper on every line",
        generate: deep_nesting,
        commands: &[DUMP, CHECK_JSON, LOWER, FIX_O, FMT_O],
    },
    Case {
        name: "long-line",
        what: "one line, a bad octet at its end",
        generate: long_line,
        commands: &[CHECK, CHECK_JSON, DUMP],
    },
    Case {
        name: "long-text",
        what: "one line of plain text, transcoded",
        generate: long_text,
        commands: &[TO_UTF16, TO_ANSEL],
    },
    Case {
        name: "nul",
        what: "NUL octets only",
        generate: nul_octets,
        commands: &[CHECK, CHECK_JSON, DUMP],
    },
    Case {
        name: "at-signs",
        what: "`@` only",
        generate: at_signs,
        commands: &[CHECK, CHECK_JSON, DUMP],
    },
    Case {
        name: "utf16-records",
        what: "UTF-16LE records, every line changed by a transcode",
        generate: utf16_records,
        commands: &[CHECK, LOWER, FIX_O, TO_UTF8],
    },
    Case {
        name: "colliding-ids",
        what: "identifiers whose FNV-1a hashes share their low 20 bits",
        generate: colliding_ids,
        commands: &[CHECK, LOWER, FIX_O],
    },
    Case {
        name: "bad-level-0",
        what:
            "UTF-16LE, a malformed level-0 line (`0 @`) on every line: a batch cut refused on each",
        generate: bad_level_0,
        commands: &[CHECK, LOWER, FIX_O],
    },
    Case {
        name: "duplicate-ids",
        what: "one identifier held by every record: a fresh one guessed for each",
        generate: duplicate_ids,
        commands: &[CHECK, CHECK_JSON, REPAIR],
    },
    Case {
        name: "short-lines",
        what: "a record of 5-octet lines, every line break changed",
        generate: short_lines,
        commands: &[TO_CRLF, FIX_O, FMT_O],
    },
    Case {
        name: "after-trailer",
        what: "records after an early trailer (an appended export)",
        generate: after_trailer,
        commands: &[CHECK, CHECK_JSON, LOWER, FIX_O],
    },
    Case {
        name: "long-note",
        what: "one note of empty `CONT` lines, set to one word (the summary's line counts)",
        generate: long_note,
        commands: &[SET_NOTE, SET_NOTE_CHECK, FMT_O],
    },
    Case {
        name: "malformed-lines",
        what: "a malformed line in every record, left out of the data (`diff` compares what is left out)",
        generate: malformed_lines,
        commands: &[CHECK, LOWER, DIFF_SELF],
    },
    Case {
        name: "one-record-codes",
        what: "one record with a level jump on every other line: a batch of as many diagnostics",
        generate: one_record_codes,
        commands: &[CHECK, CHECK_JSON, LOWER],
    },
    Case {
        name: "bare-ats",
        what: "one line of `x@` pairs: a token per octet",
        generate: bare_ats,
        commands: &[CHECK, LOWER, FIX_O, REPAIR],
    },
    Case {
        name: "escaped-ats",
        what: "one line of `x@@` triples: two tokens per three octets (what the bare-ats repair writes)",
        generate: escaped_ats,
        commands: &[CHECK, LOWER, FIX_O],
    },
    Case {
        name: "escapes",
        what: "one line of escapes that are not permitted (`@#A@`): a diagnostic each, before runs",
        generate: escapes,
        commands: &[CHECK, CHECK_JSON, LOWER],
    },
    Case {
        name: "conc-7",
        what: "GEDCOM 7.0, one note of `CONC` lines (which 7.0 does not have)",
        generate: conc_7,
        commands: &[CHECK, CHECK_JSON, LOWER],
    },
    Case {
        name: "conc-splits",
        what: "one note of `CONC` splits after a space, every other line (a repair run each)",
        generate: conc_splits,
        commands: &[CHECK, REPAIR],
    },
    Case {
        name: "one-code",
        what: "a level jump on every other line",
        generate: one_code,
        commands: &[CHECK, CHECK_JSON, LOWER],
    },
];

fn blank_lines(n: usize) -> Vec<u8> {
    vec![b'\n'; n]
}

fn crlf(n: usize) -> Vec<u8> {
    b"\r\n".repeat(n / 2)
}

fn nul_octets(n: usize) -> Vec<u8> {
    vec![0; n]
}

fn at_signs(n: usize) -> Vec<u8> {
    vec![b'@'; n]
}

/// A file whose one note is a line of `unit` repeated to about `n` octets.
fn one_note_line(n: usize, unit: &str) -> Vec<u8> {
    let mut out = b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE ".to_vec();
    out.extend_from_slice(unit.repeat(n / unit.len()).as_bytes());
    out.extend_from_slice(b"\n0 TRLR\n");
    out
}

fn long_text(n: usize) -> Vec<u8> {
    one_note_line(n, "xy")
}

fn bare_ats(n: usize) -> Vec<u8> {
    one_note_line(n, "x@")
}

fn escaped_ats(n: usize) -> Vec<u8> {
    one_note_line(n, "x@@")
}

fn escapes(n: usize) -> Vec<u8> {
    one_note_line(n, "@#A@")
}

fn random_octets(n: usize) -> Vec<u8> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) as u8
        })
        .collect()
}

/// `0 HEAD`, then records from `record(i)` until about `n` octets, then `0 TRLR`.
fn records(n: usize, record: impl Fn(usize) -> String) -> Vec<u8> {
    let mut out = b"0 HEAD\n1 CHAR UTF-8\n".to_vec();
    let mut i = 0;
    while out.len() < n {
        out.extend_from_slice(record(i).as_bytes());
        i += 1;
    }
    out.extend_from_slice(b"0 TRLR\n");
    out
}

fn dangling_pointers(n: usize) -> Vec<u8> {
    records(n, |i| format!("0 @I{i}@ INDI\n1 FAMC @F{i}@\n"))
}

fn fam_records(n: usize) -> Vec<u8> {
    records(n, |i| {
        format!("0 @I{i}@ INDI\n1 NAME N{i}\n0 @F{i}@ FAM\n1 HUSB @I{i}@\n")
    })
}

fn deep_nesting(n: usize) -> Vec<u8> {
    let mut level = 0;
    let mut out = b"0 HEAD\n".to_vec();
    while out.len() < n {
        out.extend_from_slice(format!("{level} _X\n").as_bytes());
        level += 1;
    }
    out.extend_from_slice(b"0 TRLR\n");
    out
}

fn long_line(n: usize) -> Vec<u8> {
    let mut out = b"0 HEAD\n0 NOTE ".to_vec();
    out.resize(n, b'a');
    out.extend_from_slice(b"\xFF\n0 TRLR\n");
    out
}

fn utf16_records(n: usize) -> Vec<u8> {
    let text = records(n / 2, |i| format!("0 @I{i}@ INDI\n1 NAME N{i}\n"));
    let text = String::from_utf8_lossy(&text).replace("CHAR UTF-8", "CHAR UNICODE");
    let units = std::iter::once(0xFEFF).chain(text.encode_utf16());
    units.flat_map(u16::to_le_bytes).collect()
}

/// Records with identifiers made to collide under FNV-1a (the fixed hash the identifier tables used, #12), each
/// with a pointer to itself: the low bits of the hash follow from the low bits before each octet, so a pair of
/// three-letter blocks with the same low 20 bits from a common state, found at each stage, doubles the
/// identifiers that collide.
fn colliding_ids(n: usize) -> Vec<u8> {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let fnv = |h: u64, text: &[u8]| {
        text.iter()
            .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME))
    };
    let letters: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut ids: Vec<Vec<u8>> = vec![b"I".to_vec()];
    // Enough for the records of `n` octets: each takes more than 70.
    while ids.len() < n / 70 {
        let state = fnv(0xcbf2_9ce4_8422_2325, &ids[0]);
        let mut seen = std::collections::HashMap::new();
        let blocks = (letters.iter()).flat_map(|&a| {
            (letters.iter()).flat_map(move |&b| letters.iter().map(move |&c| [a, b, c]))
        });
        let Some((x, y)) = blocks
            .filter_map(|block| {
                seen.insert(fnv(state, &block) & 0xF_FFFF, block)
                    .map(|x| (x, block))
            })
            .next()
        else {
            break;
        };
        ids = (ids.iter())
            .flat_map(|id| [[&id[..], &x[..]].concat(), [&id[..], &y[..]].concat()])
            .collect();
    }
    let ids: Vec<String> = ids
        .into_iter()
        .map(|id| String::from_utf8_lossy(&id).into_owned())
        .collect();
    records(n, |i| {
        let id = &ids[i % ids.len()];
        format!("0 @{id}@ INDI\n1 FAMC @{id}@\n")
    })
}

fn bad_level_0(n: usize) -> Vec<u8> {
    let mut text = "0 HEAD\n1 CHAR UNICODE\n".to_string();
    while text.len() * 2 < n {
        text.push_str("0 @\n");
    }
    text.push_str("0 TRLR\n");
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

fn duplicate_ids(n: usize) -> Vec<u8> {
    records(n, |_| "0 @I1@ INDI\n".to_string())
}

fn short_lines(n: usize) -> Vec<u8> {
    // One record: its first line, then its substructures.
    records(n, |i| match i {
        0 => "0 @I1@ INDI\n".to_string(),
        _ => "1 _X\n".to_string(),
    })
}

fn after_trailer(n: usize) -> Vec<u8> {
    // The trailer first: every record after it (one `record-after-trailer`, then records as any).
    records(n, |i| match i {
        0 => "0 TRLR\n".to_string(),
        _ => format!("0 @I{i}@ INDI\n1 NAME A{i}\n1 FAMS @F{i}@\n"),
    })
}

fn long_note(n: usize) -> Vec<u8> {
    records(n, |i| match i {
        0 => "0 @N1@ NOTE start\n".to_string(),
        _ => "1 CONT\n".to_string(),
    })
}

fn conc_7(n: usize) -> Vec<u8> {
    let mut out = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @N1@ SNOTE start\n".to_vec();
    while out.len() < n {
        out.extend_from_slice(b"1 CONC ab\n");
    }
    out.extend_from_slice(b"0 TRLR\n");
    out
}

fn conc_splits(n: usize) -> Vec<u8> {
    records(n, |i| match i {
        0 => "0 @N1@ NOTE start\n".to_string(),
        _ => "1 CONC x \n1 CONC b\n".to_string(),
    })
}

fn malformed_lines(n: usize) -> Vec<u8> {
    records(n, |i| format!("0 @I{i}@ INDI\n1 NAME J{i}\n1 N@ME bad\n"))
}

fn one_record_codes(n: usize) -> Vec<u8> {
    records(n, |i| match i {
        0 => "0 @I1@ INDI\n".to_string(),
        _ => "1 _X\n3 _Y\n".to_string(),
    })
}

fn one_code(n: usize) -> Vec<u8> {
    records(n, |i| format!("0 @N{i}@ NOTE\n2 _X\n"))
}

/// `cargo xtask fuzz-seeds [--out DIR] [--size-kb K]`: writes every stress input at about K KB (default 60)
/// into DIR (default `fuzz/corpus/parse_roundtrip`), so that the fuzz targets start from long lines, deep
/// nesting, many records and long runs (run them with `-max_len` above the seeds' size).
pub fn write_seeds(rest: &[String]) -> Result<ExitCode, String> {
    let mut args = Args::new(rest);
    let out = args.value("--out")?;
    let size_kb: usize = args.parsed("--size-kb", 60)?;
    args.finish()?;
    let dir = out.map_or_else(
        || crate::workspace_root().join("fuzz/corpus/parse_roundtrip"),
        PathBuf::from,
    );
    for case in CASES {
        let path = dir.join(format!("stress-{}.ged", case.name));
        write_file(&path, &(case.generate)(size_kb * 1000))?;
        println!("{}", path.display());
    }
    for (code, bytes) in crate::repair_seeds::seeds() {
        for (suffix, bytes) in [
            ("", bytes.clone()),
            ("-ops", crate::repair_seeds::with_ops(&bytes)),
        ] {
            let path = dir.join(format!("repair-{code}{suffix}.ged"));
            write_file(&path, &bytes)?;
            println!("{}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Line breaks per the 2019 draft (LF, CR LF, CR) plus one: the line count of the budget.
fn line_count(bytes: &[u8]) -> u64 {
    gedgraft_syntax::line_cursor::count_line_breaks(bytes) + 1
}

/// What one run of a command gave.
#[derive(Debug, Clone)]
struct Run {
    seconds: f64,
    peak: u64,
    /// `None` when the run finished; else why it is a failure.
    failure: Option<String>,
}

/// One row: a command on a case at both sizes.
struct Row {
    case: &'static str,
    command: &'static str,
    octets: [usize; 2],
    budget: [u64; 2],
    runs: [Run; 2],
}

impl Row {
    fn time_ratio(&self) -> f64 {
        self.runs[1].seconds / self.runs[0].seconds.max(1e-3)
    }

    fn memory_ratio(&self) -> f64 {
        self.runs[1].peak as f64 / (self.runs[0].peak as f64).max(1.0)
    }

    /// Why the row fails, if it does.
    fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (run, label) in self.runs.iter().zip(["N", "2N"]) {
            if let Some(f) = &run.failure {
                problems.push(format!("{label}: {f}"));
            }
        }
        if problems.is_empty() {
            if self.runs[1].seconds >= MIN_JUDGED_SECONDS && self.time_ratio() > MAX_RATIO {
                problems.push(format!("time ×{:.2} per doubling", self.time_ratio()));
            }
            if self.memory_ratio() > MAX_RATIO {
                problems.push(format!("memory ×{:.2} per doubling", self.memory_ratio()));
            }
        }
        for (k, label) in ["N", "2N"].iter().enumerate() {
            if self.runs[k].failure.is_none() && self.runs[k].peak > self.budget[k] {
                problems.push(format!("{label}: peak over budget"));
            }
        }
        problems
    }
}

pub fn run(rest: &[String]) -> Result<ExitCode, String> {
    let mut args = Args::new(rest);
    let size_mb: f64 = args.parsed("--size-mb", 2.0)?;
    let timeout: u64 = args.parsed("--timeout", 60)?;
    let cap_mb: u64 = args.parsed("--cap-mb", 4000)?;
    let json = args.flag("--json");
    let repeats: usize = args.parsed("--repeats", 3)?;
    let binary = args.value("--bin")?;
    let only = args.value("--only")?;
    args.finish()?;
    let n = mb_to_octets(size_mb)?;
    let binary = match binary {
        Some(b) => PathBuf::from(b),
        None => build_release()?,
    };
    for tool in ["/usr/bin/time", "prlimit", "timeout"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !found {
            return Err(format!(
                "stress needs `{tool}` (GNU time, util-linux, coreutils)"
            ));
        }
    }
    let dir = target_dir().join("xtask").join("stress");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut rows = Vec::new();
    for case in CASES {
        if only.as_deref().is_some_and(|o| !case.name.contains(o)) {
            continue;
        }
        let mut files = Vec::new();
        for size in [n, 2 * n] {
            let bytes = (case.generate)(size);
            let path = dir.join(format!("{}-{size}.ged", case.name));
            write_file(&path, &bytes)?;
            let lines = line_count(&bytes);
            let budget =
                BUDGET_PER_OCTET * bytes.len() as u64 + BUDGET_PER_LINE * lines + BUDGET_CONSTANT;
            files.push((path, bytes.len(), budget));
        }
        for &command in case.commands {
            if !json {
                eprintln!("  {} ({}) · {command} ...", case.name, case.what);
            }
            let measure = |k: usize| {
                let out = dir.join("out.ged");
                measure(&binary, command, &files[k].0, &out, timeout, cap_mb << 20)
            };
            // N and 2N alternate `repeats` times: the fastest time of each (the least disturbed by the rest of a
            // noisy host) and the highest peak.
            let mut runs = [measure(0)?, measure(1)?];
            for _ in 1..repeats {
                for (k, run) in runs.iter_mut().enumerate() {
                    run.merge(measure(k)?);
                }
            }
            rows.push(Row {
                case: case.name,
                command,
                octets: [files[0].1, files[1].1],
                budget: [files[0].2, files[1].2],
                runs,
            });
        }
        for (path, _, _) in &files {
            let _ = std::fs::remove_file(path);
        }
    }
    let _ = std::fs::remove_file(dir.join("out.ged"));
    if json {
        print_json(&binary, &rows);
    } else {
        print_table(&binary, n, timeout, cap_mb, &rows);
    }
    Ok(ExitCode::SUCCESS)
}

/// Builds the release binary and returns its path.
pub(crate) fn build_release() -> Result<PathBuf, String> {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--quiet", "-p", "gedgraft"])
        .current_dir(crate::workspace_root())
        .status()
        .map_err(|e| format!("cargo build: {e}"))?;
    if !status.success() {
        return Err("cargo build --release -p gedgraft failed".into());
    }
    Ok(target_dir().join("release").join("gedgraft"))
}

/// Runs `binary COMMAND file` under `/usr/bin/time`, `prlimit --as` and `timeout`; output goes to `/dev/null`
/// (`fix` writes `out`).
fn measure(
    binary: &Path,
    command: &str,
    file: &Path,
    out: &Path,
    timeout: u64,
    cap: u64,
) -> Result<Run, String> {
    let mut args: Vec<String> = command.split(' ').map(str::to_string).collect();
    let file = file.display().to_string();
    if args.last().is_some_and(|a| a == "-o") {
        args.pop();
        args.extend([file, "-o".into(), out.display().to_string()]);
    } else if args.last().is_some_and(|a| a == "SAME") {
        args.pop();
        args.extend([file.clone(), file]);
    } else {
        args.push(file);
    }
    let output = Command::new("/usr/bin/time")
        .args(["-f", "STRESS %M %e %x"])
        .arg("prlimit")
        .arg(format!("--as={cap}"))
        .arg("--")
        .arg("timeout")
        .arg(timeout.to_string())
        .arg(binary)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("/usr/bin/time: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let Some(line) = stderr.lines().rev().find_map(|l| l.strip_prefix("STRESS ")) else {
        return Err(format!("no measurement from /usr/bin/time: {stderr}"));
    };
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [peak_kb, seconds, status] = fields[..] else {
        return Err(format!("cannot read /usr/bin/time's `{line}`"));
    };
    let peak = peak_kb.parse::<u64>().unwrap_or(0) * 1024;
    let seconds = seconds.parse::<f64>().unwrap_or(0.0);
    let status = status.parse::<i32>().unwrap_or(-1);
    let failure = match status {
        0 | 1 => None,
        124 => Some(format!("timed out after {timeout} s")),
        101 => Some("panicked (exit 101)".into()),
        s if s > 128 => Some(format!(
            "killed by signal {} (memory cap {} MB?)",
            s - 128,
            cap >> 20
        )),
        s => {
            let last = stderr
                .lines()
                .rfind(|l| l.starts_with("gedgraft") || l.contains("memory"))
                .unwrap_or("");
            Some(format!("exit {s} {last}").trim_end().to_string())
        }
    };
    Ok(Run {
        seconds,
        peak,
        failure,
    })
}

impl Run {
    /// Joins another run of the same command on the same file: the faster time, the higher peak, the first
    /// failure.
    fn merge(&mut self, other: Run) {
        self.seconds = self.seconds.min(other.seconds);
        self.peak = self.peak.max(other.peak);
        if self.failure.is_none() {
            self.failure = other.failure;
        }
    }
}

fn mib(octets: u64) -> f64 {
    octets as f64 / f64::from(1 << 20)
}

fn print_table(binary: &Path, n: usize, timeout: u64, cap_mb: u64, rows: &[Row]) {
    println!(
        "stress: {} at N = {:.1} MB and 2N; each run capped at {cap_mb} MB of address space and {timeout} s",
        binary.display(),
        n as f64 / 1e6
    );
    println!(
        "budget: peak ≤ {BUDGET_PER_OCTET} × file + {BUDGET_PER_LINE} × lines + 64 MiB; growth ≤ {MAX_RATIO}× per \
         doubling (time judged from {MIN_JUDGED_SECONDS} s)"
    );
    println!();
    println!(
        "{:<12} {:<20} {:>8} {:>8} {:>6}  {:>9} {:>9} {:>6} {:>9}  {:>7}  verdict",
        "input", "command", "N s", "2N s", "×", "N MiB", "2N MiB", "×", "budget", "2N MB/s"
    );
    let mut failed = 0;
    for row in rows {
        let problems = row.problems();
        failed += usize::from(!problems.is_empty());
        let shown = |run: &Run, value: String| {
            if run.failure.is_some() {
                "—".to_string()
            } else {
                value
            }
        };
        let both = |ratio: f64| {
            if row.runs.iter().any(|r| r.failure.is_some()) {
                "—".to_string()
            } else {
                format!("{ratio:.2}")
            }
        };
        println!(
            "{:<12} {:<20} {:>8} {:>8} {:>6}  {:>9} {:>9} {:>6} {:>9.1}  {:>7}  {}",
            row.case,
            row.command,
            shown(&row.runs[0], format!("{:.2}", row.runs[0].seconds)),
            shown(&row.runs[1], format!("{:.2}", row.runs[1].seconds)),
            both(row.time_ratio()),
            shown(&row.runs[0], format!("{:.1}", mib(row.runs[0].peak))),
            shown(&row.runs[1], format!("{:.1}", mib(row.runs[1].peak))),
            both(row.memory_ratio()),
            mib(row.budget[1]),
            shown(
                &row.runs[1],
                format!(
                    "{:.1}",
                    mb_s(
                        row.octets[1],
                        std::time::Duration::from_secs_f64(row.runs[1].seconds)
                    )
                )
            ),
            if problems.is_empty() {
                "ok".to_string()
            } else {
                format!("FAIL: {}", problems.join("; "))
            }
        );
    }
    println!();
    println!("{} of {} rows fail", failed, rows.len());
}

fn print_json(binary: &Path, rows: &[Row]) {
    let rows: Vec<String> = rows
        .iter()
        .map(|row| {
            let runs: Vec<String> = row
                .runs
                .iter()
                .zip(row.octets.iter().zip(&row.budget))
                .map(|(run, (octets, budget))| {
                    format!(
                        "{{\"octets\":{octets},\"seconds\":{:.3},\"peak_bytes\":{},\"budget_bytes\":{budget},\
                         \"failure\":{}}}",
                        run.seconds,
                        run.peak,
                        run.failure.as_deref().map_or("null".into(), json_string)
                    )
                })
                .collect();
            let problems: Vec<String> = row.problems().iter().map(|p| json_string(p)).collect();
            format!(
                "{{\"input\":{},\"command\":{},\"runs\":[{}],\"time_ratio\":{:.3},\"memory_ratio\":{:.3},\
                 \"ok\":{},\"problems\":[{}]}}",
                json_string(row.case),
                json_string(row.command),
                runs.join(","),
                row.time_ratio(),
                row.memory_ratio(),
                problems.is_empty(),
                problems.join(",")
            )
        })
        .collect();
    println!(
        "{{\"binary\":{},\"rows\":[{}]}}",
        json_string(&binary.display().to_string()),
        rows.join(",")
    );
}
