//! Rough timing of parse + lower on one file (the benchmark proper is `cargo xtask bench`).
//!
//! `timelower FILE` parses and lowers; `timelower FILE parse` only parses (to tell the two apart in
//! peak-memory measurements); `timelower FILE N` lowers with `N` threads (`LowerOptions::threads`; 1 for
//! instruction counts under callgrind, whose `--toggle-collect` only sees the calling thread).

use gedgraft_model::{lower, LowerOptions};
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: timelower FILE [parse | THREADS]");
    let mode = args.next();
    let parse_only = mode.as_deref() == Some("parse");
    let threads = mode.and_then(|m| m.parse().ok()).unwrap_or(0);
    let bytes = std::fs::read(path).expect("read");
    let t = Instant::now();
    let parse = gedgraft_syntax::parse(&bytes);
    let parsed = t.elapsed();
    if parse_only {
        println!("parse {:.3}s", parsed.as_secs_f64());
        return;
    }
    let options = LowerOptions::default().with_threads(threads);
    let lowered = lower(&parse, &options);
    let total = t.elapsed();
    let mb = bytes.len() as f64 / 1e6;
    println!(
        "parse {:.3}s; lower {:.3}s; parse + lower {:.3}s = {:.0} MB/s; {} records, {} structures, {} diagnostics",
        parsed.as_secs_f64(),
        (total - parsed).as_secs_f64(),
        total.as_secs_f64(),
        mb / total.as_secs_f64(),
        lowered.dataset.records().count(),
        lowered.dataset.len(),
        lowered.diagnostics.len()
    );
}
