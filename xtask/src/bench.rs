//! `cargo xtask bench`: wall time, throughput and peak memory of parsing and writing back a large sample,
//! each compared with a baseline measured in the same run (splitting the file into lines with `memchr`).
//!
//! Peak memory is the `VmHWM` (peak resident set) of a fresh child process: xtask runs itself again as
//! `xtask bench-child MODE PATH`, which does one thing and prints its `VmHWM` from `/proc/self/status`.

use crate::gen_sample::{self, GENERATOR_VERSION};
use crate::Args;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

/// The targets of the performance issue.
const TARGET_PARSE_MB_S: f64 = 150.0;
const TARGET_WRITE_MB_S: f64 = 1000.0;
const TARGET_PEAK_X_FILE: f64 = 6.0;
/// The lowering issue's target: parse + lower of the sample.
const TARGET_LOWER_MB_S: f64 = 100.0;

pub fn run(rest: &[String]) -> Result<ExitCode, String> {
    let mut args = Args::new(rest);
    let size_mb: f64 = args.parsed("--size-mb", 100.0)?;
    let runs: usize = args.parsed("--runs", 5)?;
    let crlf = args.flag("--crlf");
    let json = args.flag("--json");
    let sample = args.value("--sample")?;
    let alternations: usize = args.parsed("--alternations", 3)?;
    args.finish()?;
    if runs == 0 {
        return Err("--runs must be at least 1".into());
    }

    let path = match sample {
        Some(p) => PathBuf::from(p),
        None => cached_sample(size_mb, crlf, json)?,
    };
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let len = bytes.len();
    let progress = |what: &str| {
        if !json {
            eprintln!("  measuring {what} ...");
        }
    };

    // Check the round trip once before measuring anything, so a bench never measures a broken writer.
    let (lines, errors, warnings, encoding) = {
        let parse = gedgraft_syntax::parse(&bytes);
        let out = parse
            .to_bytes()
            .map_err(|e| format!("write-back failed: {e}"))?;
        assert_round_trip(&bytes, &out)?;
        let errors = parse
            .diagnostics()
            .iter()
            .filter(|d| d.severity() == gedgraft_syntax::Severity::Error)
            .count();
        (
            count_lines(&bytes),
            errors,
            parse.diagnostics().len() - errors,
            parse.encoding().name(),
        )
    };

    progress("baseline (memchr line split)");
    let baseline = best_of(runs, || {
        let t = Stopwatch::start();
        black_box(count_lines(black_box(&bytes)));
        t.stop()
    });

    progress("parse");
    let parse_time = best_of(runs, || {
        let t = Stopwatch::start();
        let parse = gedgraft_syntax::parse(black_box(&bytes));
        let elapsed = t.stop();
        drop(black_box(parse));
        elapsed
    });

    progress("parse on one thread, and the minimal rowan tree for reference");
    let parse_one_thread = best_of(runs, || {
        let options = gedgraft_syntax::ParseOptions::default().with_threads(1);
        let t = Stopwatch::start();
        let parse = gedgraft_syntax::parse_with(black_box(&bytes), &options);
        let elapsed = t.stop();
        drop(black_box(parse));
        elapsed
    });
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| format!("the reference tree needs a UTF-8 sample: {e}"))?;
    let mut floor_len = 0;
    let rowan_floor = best_of(runs, || {
        let t = Stopwatch::start();
        let root = crate::rowan_floor::build(black_box(text));
        let elapsed = t.stop();
        floor_len = usize::from(root.text_len());
        drop(black_box(root));
        elapsed
    });
    if floor_len != len {
        return Err(format!(
            "the reference tree holds {floor_len} octets of {len}"
        ));
    }

    progress("parse + write back");
    let mut round_trip_err = None;
    let parse_write = best_of(runs, || {
        let t = Stopwatch::start();
        let parse = gedgraft_syntax::parse(black_box(&bytes));
        let out = parse.to_bytes();
        let elapsed = t.stop();
        match out {
            Ok(out) if out == bytes => {}
            Ok(out) => {
                round_trip_err = Some(assert_round_trip(&bytes, &out).err().unwrap_or_default())
            }
            Err(e) => round_trip_err = Some(e.to_string()),
        }
        drop(black_box(parse));
        elapsed
    });
    if let Some(err) = round_trip_err {
        return Err(format!("round trip failed: {err}"));
    }

    progress("write back alone and drop");
    let parse = gedgraft_syntax::parse(&bytes);
    let write = best_of(runs, || {
        let t = Stopwatch::start();
        let out = parse.to_bytes();
        let elapsed = t.stop();
        if !matches!(&out, Ok(out) if *out == bytes) {
            round_trip_err = Some("write back of an existing parse differs".into());
        }
        elapsed
    });
    if let Some(err) = round_trip_err {
        return Err(format!("round trip failed: {err}"));
    }
    drop(parse);
    let drop_time = best_of(runs, || {
        let parse = gedgraft_syntax::parse(&bytes);
        let t = Stopwatch::start();
        drop(black_box(parse));
        t.stop()
    });

    progress("parse + lower (the ELF dataset)");
    let parse_lower = best_of(runs, || {
        let t = Stopwatch::start();
        let parse = gedgraft_syntax::parse(black_box(&bytes));
        let lowered = gedgraft_model::lower(&parse, &gedgraft_model::LowerOptions::default());
        let elapsed = t.stop();
        drop(black_box(lowered));
        drop(black_box(parse));
        elapsed
    });

    progress("parse + rename a tag on (nearly) every record + write");
    let mut renames = 0;
    let mut rename_err = None;
    let parse_rename_write = best_of(runs, || {
        let t = Stopwatch::start();
        let parse = gedgraft_syntax::parse(black_box(&bytes));
        let out = rename_and_write(&parse, &mut renames);
        let elapsed = t.stop();
        if let Err(e) = out {
            rename_err = Some(e);
        }
        drop(black_box(parse));
        elapsed
    });
    if let Some(err) = rename_err {
        return Err(format!("rename failed: {err}"));
    }
    drop(bytes);

    progress("peak memory in fresh processes");
    let mem_baseline = child_peak("baseline", &path)?;
    let mem_parse = child_peak("parse", &path)?;
    let mem_round_trip = child_peak("roundtrip", &path)?;
    let mem_lower = child_peak("lower", &path)?;
    let mem_rename = child_peak("rename", &path)?;

    let timings = [
        Timing {
            name: "baseline: memchr line split",
            time: baseline,
        },
        Timing {
            name: "parse",
            time: parse_time,
        },
        Timing {
            name: "parse, 1 thread",
            time: parse_one_thread,
        },
        Timing {
            name: "reference: minimal rowan tree, 1 thread",
            time: rowan_floor,
        },
        Timing {
            name: "parse + write back",
            time: parse_write,
        },
        Timing {
            name: "write back alone (to_bytes)",
            time: write,
        },
        Timing {
            name: "drop of the parse",
            time: drop_time,
        },
        Timing {
            name: "parse + lower",
            time: parse_lower,
        },
        Timing {
            name: RENAME_NAME,
            time: parse_rename_write,
        },
    ];
    let memory = [
        Memory {
            name: "baseline: read + line split",
            peak: mem_baseline,
        },
        Memory {
            name: "parse (input kept)",
            peak: mem_parse,
        },
        Memory {
            name: "parse + write back",
            peak: mem_round_trip,
        },
        Memory {
            name: "parse + lower",
            peak: mem_lower,
        },
        Memory {
            name: RENAME_NAME,
            peak: mem_rename,
        },
    ];
    let lower_mb_s = mb_s(len, parse_lower.wall);
    let rename_ratio = ratio(parse_rename_write.wall, parse_write.wall);
    let parse_mb_s = mb_s(len, parse_time.wall);
    let write_mb_s = mb_s(len, write.wall);
    let peak_x = mem_parse as f64 / len as f64;
    let targets = [
        Target {
            name: "parse >= 150 MB/s",
            measured: format!("{parse_mb_s:.0} MB/s"),
            met: parse_mb_s >= TARGET_PARSE_MB_S,
        },
        Target {
            name: "write back >= 1 GB/s",
            measured: format!("{write_mb_s:.0} MB/s"),
            met: write_mb_s >= TARGET_WRITE_MB_S,
        },
        Target {
            name: "parse peak memory <= 6x file",
            measured: format!("{peak_x:.2}x"),
            met: peak_x <= TARGET_PEAK_X_FILE,
        },
        Target {
            name: "parse + lower >= 100 MB/s",
            measured: format!("{lower_mb_s:.0} MB/s"),
            met: lower_mb_s >= TARGET_LOWER_MB_S,
        },
        Target {
            name: "rename + write, as a ratio to parse + write (no target: reported)",
            measured: format!("{rename_ratio:.2}x ({renames} renames)"),
            met: true,
        },
    ];
    let info = SampleInfo {
        path: &path,
        len,
        lines,
        crlf,
        errors,
        warnings,
        encoding,
        runs,
        cores: std::thread::available_parallelism().map_or(1, usize::from),
    };
    progress("fresh processes: gedgraft, gedcomkit, baseline");
    let processes = match alternations {
        0 => Vec::new(),
        n => crate::bench_processes::measure(&path, n)?,
    };
    if json {
        print_json(&info, &timings, &memory, &targets, &processes);
    } else {
        print_text(&info, &timings, &memory, &targets);
        crate::bench_processes::print_text(&processes, len);
    }
    Ok(ExitCode::SUCCESS)
}

/// The timing row of the editor benchmark.
const RENAME_NAME: &str = "parse + rename CHAN→_CHN + write";

/// Renames `CHAN` (on most records of the sample) to `_CHN` and writes the file out, as `gedgraft fix -o` does
/// (`apply_lazily`: the output is not re-parsed).
fn rename_and_write(parse: &gedgraft_syntax::Parse, renames: &mut usize) -> Result<(), String> {
    let mut editor = gedgraft_edit::Editor::new(parse);
    *renames = editor
        .rename_tag("CHAN", "_CHN", None)
        .map_err(|e| e.to_string())?;
    let edited = editor.apply_lazily().map_err(|e| e.to_string())?;
    black_box(edited.bytes());
    Ok(())
}

/// `xtask bench-child MODE PATH`: does one job in a fresh process and prints `VmHWM_KB <n>`.
pub fn run_child(rest: &[String]) -> Result<ExitCode, String> {
    let [mode, path] = rest else {
        return Err("usage: xtask bench-child baseline|parse|roundtrip|lower|rename PATH".into());
    };
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    match mode.as_str() {
        "baseline" => {
            black_box(count_lines(black_box(&bytes)));
            println!("VmHWM_KB {}", vm_hwm_kb()?);
        }
        "parse" => {
            let parse = gedgraft_syntax::parse(black_box(&bytes));
            black_box(&parse);
            println!("VmHWM_KB {}", vm_hwm_kb()?);
            drop(parse);
        }
        "roundtrip" => {
            let parse = gedgraft_syntax::parse(black_box(&bytes));
            let out = parse.to_bytes().map_err(|e| e.to_string())?;
            assert_round_trip(&bytes, &out)?;
            println!("VmHWM_KB {}", vm_hwm_kb()?);
            drop(out);
            drop(parse);
        }
        "lower" => {
            let parse = gedgraft_syntax::parse(black_box(&bytes));
            let lowered = gedgraft_model::lower(&parse, &gedgraft_model::LowerOptions::default());
            black_box(&lowered);
            println!("VmHWM_KB {}", vm_hwm_kb()?);
        }
        "rename" => {
            let parse = gedgraft_syntax::parse(black_box(&bytes));
            rename_and_write(&parse, &mut 0)?;
            println!("VmHWM_KB {}", vm_hwm_kb()?);
        }
        other => return Err(format!("unknown bench-child mode `{other}`")),
    }
    Ok(ExitCode::SUCCESS)
}

/// The sample under `target/xtask/`, generated if missing.
pub(crate) fn cached_sample(size_mb: f64, crlf: bool, quiet: bool) -> Result<PathBuf, String> {
    let target = gen_sample::mb_to_octets(size_mb)?;
    let eol = if crlf { "crlf" } else { "lf" };
    let name = format!("sample-v{GENERATOR_VERSION}-{target}-{eol}.ged");
    let path = target_dir().join("xtask").join(name);
    let fresh = std::fs::metadata(&path)
        .map(|m| m.len() as usize >= target)
        .unwrap_or(false);
    if !fresh {
        if !quiet {
            eprintln!("generating {} ...", path.display());
        }
        let octets = gen_sample::generate(target, crlf, gen_sample::DEFAULT_SEED);
        gen_sample::write_file(&path, &octets)?;
    } else if !quiet {
        eprintln!("using cached {}", path.display());
    }
    Ok(path)
}

pub(crate) fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => crate::workspace_root().join("target"),
    }
}

/// The baseline: split into lines with `memchr`, touching every line (its length and first octet).
fn count_lines(bytes: &[u8]) -> usize {
    let mut lines = 0usize;
    let mut touch = 0usize;
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes) {
        let line = &bytes[start..end];
        touch = touch
            .wrapping_add(line.len())
            .wrapping_add(line.first().copied().unwrap_or(0) as usize);
        lines += 1;
        start = end + 1;
    }
    if start < bytes.len() {
        lines += 1;
        touch = touch.wrapping_add(bytes.len() - start);
    }
    black_box(touch);
    lines
}

/// The run with the shortest wall time.
fn best_of(runs: usize, mut f: impl FnMut() -> Span) -> Span {
    (0..runs)
        .map(|_| f())
        .min_by_key(|s| s.wall)
        .unwrap_or_default()
}

/// Wall time and CPU time (all threads of the process, user + system) of one measured run.
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    wall: Duration,
    cpu: Duration,
}

struct Stopwatch {
    wall: Instant,
    cpu: Duration,
}

impl Stopwatch {
    fn start() -> Self {
        let cpu = process_cpu();
        Stopwatch {
            wall: Instant::now(),
            cpu,
        }
    }

    fn stop(&self) -> Span {
        let wall = self.wall.elapsed();
        Span {
            wall,
            cpu: process_cpu().saturating_sub(self.cpu),
        }
    }
}

/// CPU time of the whole process (user + system, all threads, exited ones included):
/// `clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`.
fn process_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(
        t.tv_sec.max(0) as u64,
        t.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

fn assert_round_trip(input: &[u8], output: &[u8]) -> Result<(), String> {
    if input == output {
        return Ok(());
    }
    let at = input
        .iter()
        .zip(output)
        .position(|(a, b)| a != b)
        .unwrap_or(input.len().min(output.len()));
    Err(format!(
        "output differs from input at octet {at} (input {} octets, output {})",
        input.len(),
        output.len()
    ))
}

fn vm_hwm_kb() -> Result<u64, String> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("/proc/self/status: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| "no VmHWM in /proc/self/status".to_string())
}

/// Runs `xtask bench-child MODE PATH` and returns its peak resident set in octets.
fn child_peak(mode: &str, path: &Path) -> Result<u64, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let out = Command::new(exe)
        .arg("bench-child")
        .arg(mode)
        .arg(path)
        .output()
        .map_err(|e| format!("bench-child {mode}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "bench-child {mode} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM_KB "))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .ok_or_else(|| format!("bench-child {mode} printed no VmHWM: {stdout}"))
}

struct Timing {
    name: &'static str,
    time: Span,
}

struct Memory {
    name: &'static str,
    peak: u64,
}

struct Target {
    name: &'static str,
    measured: String,
    met: bool,
}

struct SampleInfo<'a> {
    path: &'a Path,
    len: usize,
    lines: usize,
    crlf: bool,
    errors: usize,
    warnings: usize,
    encoding: &'static str,
    runs: usize,
    cores: usize,
}

pub(crate) fn mb_s(len: usize, time: Duration) -> f64 {
    len as f64 / 1e6 / time.as_secs_f64().max(1e-9)
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}

fn print_text(info: &SampleInfo<'_>, timings: &[Timing], memory: &[Memory], targets: &[Target]) {
    let len = info.len;
    println!(
        "sample: {} ({} octets = {:.1} MB, {} lines, {}, {}; {} errors, {} warnings)",
        info.path.display(),
        len,
        len as f64 / 1e6,
        info.lines,
        if info.crlf { "CRLF" } else { "LF" },
        info.encoding,
        info.errors,
        info.warnings
    );
    println!("round trip: ok (bytes out == bytes in)");
    println!();
    println!(
        "time, best of {} runs ({} cores)        wall       MB/s   vs. baseline    cpu (all threads)",
        info.runs, info.cores
    );
    let base = timings[0].time.wall;
    for t in timings {
        println!(
            "  {:<33} {:>8.3} s {:>10.1}   {:>8.1}x    {:>8.2} s",
            t.name,
            t.time.wall.as_secs_f64(),
            mb_s(len, t.time.wall),
            ratio(t.time.wall, base),
            t.time.cpu.as_secs_f64()
        );
    }
    println!();
    println!("peak memory (VmHWM of a fresh process)     MiB   x file   vs. baseline");
    let base = memory[0].peak as f64;
    for m in memory {
        println!(
            "  {:<36} {:>8.1} {:>7.2}x   {:>6.2}x",
            m.name,
            m.peak as f64 / (1024.0 * 1024.0),
            m.peak as f64 / len as f64,
            m.peak as f64 / base
        );
    }
    println!();
    println!("targets");
    for t in targets {
        println!(
            "  {:<33} {:>12}   {}",
            t.name,
            t.measured,
            if t.met { "met" } else { "MISSED" }
        );
    }
}

/// A JSON string literal.
pub(crate) fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn print_json(
    info: &SampleInfo<'_>,
    timings: &[Timing],
    memory: &[Memory],
    targets: &[Target],
    processes: &[crate::bench_processes::ProcessRow],
) {
    let len = info.len;
    let base = timings[0].time.wall;
    let timings: Vec<String> = timings
        .iter()
        .map(|t| {
            format!(
                "{{\"name\":{},\"seconds\":{:.6},\"cpu_seconds\":{:.2},\"mb_per_s\":{:.2},\"x_baseline\":{:.3}}}",
                json_string(t.name),
                t.time.wall.as_secs_f64(),
                t.time.cpu.as_secs_f64(),
                mb_s(len, t.time.wall),
                ratio(t.time.wall, base)
            )
        })
        .collect();
    let base = memory[0].peak as f64;
    let memory: Vec<String> = memory
        .iter()
        .map(|m| {
            format!(
                "{{\"name\":{},\"peak_bytes\":{},\"x_file\":{:.3},\"x_baseline\":{:.3}}}",
                json_string(m.name),
                m.peak,
                m.peak as f64 / len as f64,
                m.peak as f64 / base
            )
        })
        .collect();
    let targets: Vec<String> = targets
        .iter()
        .map(|t| {
            format!(
                "{{\"name\":{},\"measured\":{},\"met\":{}}}",
                json_string(t.name),
                json_string(&t.measured),
                t.met
            )
        })
        .collect();
    println!(
        "{{\"sample\":{{\"path\":{},\"octets\":{},\"lines\":{},\"line_break\":\"{}\",\"encoding\":{},\"errors\":{},\
         \"warnings\":{}}},\"cores\":{},\"runs\":{},\"round_trip\":true,\"timings\":[{}],\"memory\":[{}],\"targets\":[{}],\"processes\":{}}}",
        json_string(&info.path.display().to_string()),
        len,
        info.lines,
        if info.crlf { "CRLF" } else { "LF" },
        json_string(info.encoding),
        info.errors,
        info.warnings,
        info.cores,
        info.runs,
        timings.join(","),
        memory.join(","),
        targets.join(","),
        crate::bench_processes::json(processes)
    );
}
