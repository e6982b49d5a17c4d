//! The fresh-process part of `cargo xtask bench`: wall time and peak resident set (GNU `/usr/bin/time`) of the
//! release `gedgraft` as users run it (`fix FILE -o OUT`, `fix --rename-tag CHAN=_CHN`, `fmt FILE -o OUT`, `check`,
//! `lower > /dev/null`, `lower > OUT.json`), of the line-split baseline (`xtask bench-child baseline`) and of the gedcomkit
//! reference (`bench-gedcomkit/`: gedcomkit 0.1.19 parse + `to_bytes`, a crate of its own outside the workspace,
//! GPL-3.0-or-later, built here into `target/bench-gedcomkit`). The commands alternate, round after round, so
//! that a slow spell of a shared machine falls on all of them; each row gives the median and the range, and
//! the medians' ratios to gedcomkit's and to the baseline's.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One measured command.
pub(crate) struct ProcessRow {
    pub name: &'static str,
    /// Wall seconds and peak octets of each run.
    pub runs: Vec<(f64, u64)>,
    /// What the command said about its output, when it checks it (gedcomkit: whether it wrote the input back).
    pub note: String,
}

impl ProcessRow {
    fn median_seconds(&self) -> f64 {
        median(self.runs.iter().map(|r| r.0).collect())
    }

    fn median_peak(&self) -> f64 {
        median(self.runs.iter().map(|r| r.1 as f64).collect())
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// Builds the gedcomkit reference and returns its path.
fn build_gedcomkit() -> Result<PathBuf, String> {
    let root = crate::workspace_root();
    let target = crate::bench::target_dir().join("bench-gedcomkit");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "build",
            "--release",
            "--quiet",
            "--locked",
            "--manifest-path",
        ])
        .arg(root.join("bench-gedcomkit").join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .status()
        .map_err(|e| format!("cargo build (bench-gedcomkit): {e}"))?;
    if !status.success() {
        return Err(
            "cargo build --release --manifest-path bench-gedcomkit/Cargo.toml failed".into(),
        );
    }
    Ok(target.join("release").join("gedgraft-bench-gedcomkit"))
}

/// Runs `program args` under `/usr/bin/time` with standard output to `stdout` (or kept when `None`); its wall
/// seconds, peak octets and standard output.
fn time_process(
    program: &Path,
    args: &[&str],
    stdout: Option<&Path>,
) -> Result<(f64, u64, String), String> {
    let mut command = Command::new("/usr/bin/time");
    command
        .args(["-f", "BENCH %M %e %x"])
        .arg(program)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::piped());
    match stdout {
        Some(path) => {
            let file =
                std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
            command.stdout(file);
        }
        None => {
            command.stdout(Stdio::piped());
        }
    }
    let output = command
        .output()
        .map_err(|e| format!("/usr/bin/time (GNU time is needed): {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let measured = stderr.lines().rev().find_map(|l| l.strip_prefix("BENCH "));
    let fields: Vec<&str> = measured.unwrap_or("").split_whitespace().collect();
    let [peak_kb, seconds, status] = fields[..] else {
        return Err(format!("no measurement from /usr/bin/time: {stderr}"));
    };
    if !matches!(status, "0" | "1") {
        return Err(format!(
            "{} {args:?} exited with {status}: {stderr}",
            program.display()
        ));
    }
    let peak = peak_kb.parse::<u64>().unwrap_or(0) * 1024;
    let seconds = seconds.parse::<f64>().unwrap_or(0.0);
    Ok((
        seconds,
        peak,
        String::from_utf8_lossy(&output.stdout).into_owned(),
    ))
}

/// Measures the commands on `sample`, `alternations` rounds.
pub(crate) fn measure(sample: &Path, alternations: usize) -> Result<Vec<ProcessRow>, String> {
    let gedgraft = crate::stress::build_release()?;
    let gedcomkit = build_gedcomkit()?;
    let xtask = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let dir = crate::bench::target_dir().join("xtask");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out = dir.join("bench-out.ged");
    let json_out = dir.join("bench-out.json");
    let (file, out_s) = (sample.display().to_string(), out.display().to_string());
    let null = Path::new("/dev/null");
    type Job<'a> = (&'static str, &'a Path, Vec<&'a str>, Option<&'a Path>);
    let jobs: Vec<Job<'_>> = vec![
        (
            "baseline: read + line split",
            &xtask,
            vec!["bench-child", "baseline", &file],
            Some(null),
        ),
        (
            "gedcomkit 0.1.19: parse + to_bytes",
            &gedcomkit,
            vec![&file, &out_s],
            None,
        ),
        (
            "gedgraft fix FILE -o OUT",
            &gedgraft,
            vec!["fix", &file, "-o", &out_s],
            Some(null),
        ),
        (
            "gedgraft fix --rename-tag CHAN=_CHN",
            &gedgraft,
            vec![
                "fix",
                &file,
                "-o",
                &out_s,
                "--rename-tag",
                "CHAN=_CHN",
                "--quiet",
            ],
            Some(null),
        ),
        (
            "gedgraft fmt FILE -o OUT",
            &gedgraft,
            vec!["fmt", &file, "-o", &out_s],
            Some(null),
        ),
        (
            "gedgraft check",
            &gedgraft,
            vec!["check", &file],
            Some(null),
        ),
        (
            "gedgraft lower > /dev/null",
            &gedgraft,
            vec!["lower", &file],
            Some(null),
        ),
        (
            "gedgraft lower > OUT.json (one pass)",
            &gedgraft,
            vec!["lower", &file],
            Some(&json_out),
        ),
    ];
    let mut rows: Vec<ProcessRow> = jobs
        .iter()
        .map(|j| ProcessRow {
            name: j.0,
            runs: Vec::new(),
            note: String::new(),
        })
        .collect();
    for _ in 0..alternations {
        for (row, (_, program, args, stdout)) in rows.iter_mut().zip(&jobs) {
            let (seconds, peak, said) = time_process(program, args, *stdout)?;
            row.runs.push((seconds, peak));
            row.note = said.trim().to_string();
        }
    }
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&json_out);
    Ok(rows)
}

/// The table of [`measure`]'s rows.
pub(crate) fn print_text(rows: &[ProcessRow], len: usize) {
    let (Some(base), Some(reference)) = (rows.first(), rows.get(1)) else {
        return;
    };
    let runs = base.runs.len();
    println!();
    println!(
        "fresh processes, {runs} alternating rounds: median (min-max)      wall s            MB/s  vs gk  vs base    peak MiB (min-max)     vs gk  vs base"
    );
    for row in rows {
        let (t, m) = (row.median_seconds(), row.median_peak());
        let min_t = row.runs.iter().map(|r| r.0).fold(f64::INFINITY, f64::min);
        let max_t = row.runs.iter().map(|r| r.0).fold(0.0, f64::max);
        let min_m = row.runs.iter().map(|r| r.1).min().unwrap_or(0) as f64 / MIB;
        let max_m = row.runs.iter().map(|r| r.1).max().unwrap_or(0) as f64 / MIB;
        println!(
            "  {:<44} {:>6.2} ({:.2}-{:.2}) {:>7.1} {:>6.2} {:>7.2}   {:>8.1} ({:.0}-{:.0}) {:>6.3} {:>7.2}{}",
            row.name,
            t,
            min_t,
            max_t,
            len as f64 / 1e6 / t.max(1e-9),
            t / reference.median_seconds().max(1e-9),
            t / base.median_seconds().max(1e-9),
            m / MIB,
            min_m,
            max_m,
            m / reference.median_peak().max(1.0),
            m / base.median_peak().max(1.0),
            if row.note.is_empty() {
                String::new()
            } else {
                format!("  [{}]", row.note)
            }
        );
    }
}

/// The rows as a JSON array.
pub(crate) fn json(rows: &[ProcessRow]) -> String {
    let items: Vec<String> = rows
        .iter()
        .map(|r| {
            let runs: Vec<String> = r
                .runs
                .iter()
                .map(|(s, p)| format!("{{\"seconds\":{s:.3},\"peak_bytes\":{p}}}"))
                .collect();
            format!(
                "{{\"name\":{},\"median_seconds\":{:.3},\"median_peak_bytes\":{:.0},\"runs\":[{}]}}",
                crate::bench::json_string(r.name),
                r.median_seconds(),
                r.median_peak(),
                runs.join(",")
            )
        })
        .collect();
    format!("[{}]", items.join(","))
}

const MIB: f64 = 1024.0 * 1024.0;
