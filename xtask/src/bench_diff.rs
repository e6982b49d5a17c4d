//! `cargo xtask bench-diff`: the cost of `gedgraft diff` (parse and lower both files, then
//! `gedgraft_model::compare`) against lowering both files, on the benchmark sample and a copy of it with CR LF
//! line breaks (formatting: no change) and one `NAME` in 20 000 changed.

use crate::Args;
use gedgraft_model::{compare, lower, LowerOptions};
use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The target: diff at most 2.5 times the time of lowering both files.
const TARGET_RATIO: f64 = 2.5;

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
    let mut changes = 0;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let a = lowered(black_box(&old));
        let b = lowered(black_box(&new));
        lower_both = lower_both.min(t.elapsed());
        let t = Instant::now();
        changes = black_box(compare(&a, &b)).len();
        comparing = comparing.min(t.elapsed());
    }
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
    Ok(if ratio <= TARGET_RATIO {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
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
