//! Rough timing of parse + lower on one file (the benchmark proper is `cargo xtask bench`).

use gedgraft_model::{lower, LowerOptions};
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let path = std::env::args().nth(1).expect("usage: timelower FILE");
    let bytes = std::fs::read(path).expect("read");
    let t = Instant::now();
    let parse = gedgraft_syntax::parse(&bytes);
    let parsed = t.elapsed();
    let lowered = lower(&parse, &LowerOptions::default());
    let total = t.elapsed();
    let mb = bytes.len() as f64 / 1e6;
    println!(
        "parse {:.3}s; parse + lower {:.3}s = {:.0} MB/s; {} records, {} diagnostics",
        parsed.as_secs_f64(),
        total.as_secs_f64(),
        mb / total.as_secs_f64(),
        lowered.dataset.records().count(),
        lowered.diagnostics.len()
    );
}
