//! `cargo xtask bench-diff`: the dataset commands on the benchmark sample, as ratios in the same run.
//!
//! - `gedgraft diff` (parse and lower both files, then `gedgraft_model::compare`) against lowering both files,
//!   on the sample and a copy of it with CR LF line breaks (formatting: no change) and one `NAME` in 20 000
//!   changed; target ≤ 2.5×.
//! - The writer (`gedgraft_model::write` of the sample's dataset) against parsing the sample, as speeds (MB of
//!   file per second); target ≥ 0.5× parse speed. `gedgraft fmt` is parse + lower + write.

use crate::Args;
use gedgraft_model::{compare, lower, write, LowerOptions, WriteOptions};
use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The target: diff at most 2.5 times the time of lowering both files.
const TARGET_RATIO: f64 = 2.5;
/// The target: the writer at least half as fast as the parser.
const TARGET_WRITE_SPEED: f64 = 0.5;

pub fn run(rest: &[String]) -> Result<ExitCode, String> {
    let mut args = Args::new(rest);
    let size_mb: f64 = args.parsed("--size-mb", 100.0)?;
    let runs: usize = args.parsed("--runs", 3)?;
    args.finish()?;
    let path = crate::bench::cached_sample(size_mb, false, false)?;
    let old = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (new, edited) = edited_copy(&old);
    let options = LowerOptions::default();
    let lowered = |bytes: &[u8]| {
        let parse = gedgraft_syntax::parse(bytes);
        lower(&parse, &options).dataset
    };
    let (mut lower_both, mut comparing) = (Duration::MAX, Duration::MAX);
    let (mut parsing, mut lowering, mut writing) = (Duration::MAX, Duration::MAX, Duration::MAX);
    let (mut changes, mut written) = (0, 0);
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let a = lowered(black_box(&old));
        let b = lowered(black_box(&new));
        lower_both = lower_both.min(t.elapsed());
        let t = Instant::now();
        changes = black_box(compare(&a, &b)).len();
        comparing = comparing.min(t.elapsed());
        drop(b);
        let t = Instant::now();
        let parse = gedgraft_syntax::parse(black_box(&old));
        parsing = parsing.min(t.elapsed());
        let t = Instant::now();
        drop(black_box(lower(&parse, &options)));
        lowering = lowering.min(t.elapsed());
        drop(parse);
        let t = Instant::now();
        let out = write(&a, &WriteOptions::default()).map_err(|e| format!("write: {e}"))?;
        writing = writing.min(t.elapsed());
        written = black_box(out).len();
    }
    let mb = old.len() as f64 / 1e6;
    let speed = |d: Duration| mb / d.as_secs_f64().max(1e-9);
    let write_ratio = speed(writing) / speed(parsing);
    let fmt = parsing + lowering + writing;
    println!(
        "parse: {:.3} s ({:.0} MB/s); lower (of the parse): {:.3} s; write the dataset: {:.3} s ({:.0} MB/s of input, {:.1} MB written) = {:.2}x parse speed (target >= {TARGET_WRITE_SPEED}x){}",
        parsing.as_secs_f64(),
        speed(parsing),
        lowering.as_secs_f64(),
        writing.as_secs_f64(),
        speed(writing),
        written as f64 / 1e6,
        write_ratio,
        if write_ratio >= TARGET_WRITE_SPEED { "" } else { "  FAIL" }
    );
    println!(
        "fmt = parse + lower + write: {:.3} s = {:.2}x parse time",
        fmt.as_secs_f64(),
        fmt.as_secs_f64() / parsing.as_secs_f64().max(1e-9)
    );
    let ratio = (lower_both + comparing).as_secs_f64() / lower_both.as_secs_f64().max(1e-9);
    println!(
        "sample {} ({:.1} MB), copy with CR LF and {edited} names changed",
        path.display(),
        old.len() as f64 / 1e6
    );
    println!(
        "lower both: {:.3} s; compare: {:.3} s ({changes} changes); diff = lower both + compare = {:.2}x lower both (target <= {TARGET_RATIO}x){}",
        lower_both.as_secs_f64(),
        comparing.as_secs_f64(),
        ratio,
        if ratio <= TARGET_RATIO { "" } else { "  FAIL" }
    );
    Ok(
        if ratio <= TARGET_RATIO && write_ratio >= TARGET_WRITE_SPEED {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        },
    )
}

/// The sample with CR LF line breaks and an `x` after one `NAME` line in 20 000.
fn edited_copy(old: &[u8]) -> (Vec<u8>, usize) {
    let mut new = Vec::with_capacity(old.len() + old.len() / 16);
    let (mut names, mut edited) = (0usize, 0usize);
    for line in old.split_inclusive(|&b| b == b'\n') {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        new.extend_from_slice(body);
        if body.starts_with(b"1 NAME ") {
            names += 1;
            if names % 20_000 == 0 {
                new.push(b'x');
                edited += 1;
            }
        }
        if line.ends_with(b"\n") {
            new.extend_from_slice(b"\r\n");
        }
    }
    (new, edited)
}
