//! Rough timing of parse + lower on one file (the benchmark proper is `cargo xtask bench`).
//!
//! `timelower FILE` parses and lowers; `timelower FILE parse` only parses (to tell the two apart in
//! peak-memory measurements).

use gedgraft_model::{lower, LowerOptions};
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: timelower FILE [parse]");
    let parse_only = args.next().as_deref() == Some("parse");
    let bytes = std::fs::read(path).expect("read");
    let t = Instant::now();
    let parse = gedgraft_syntax::parse(&bytes);
    let parsed = t.elapsed();
    if parse_only {
        println!("parse {:.3}s", parsed.as_secs_f64());
        return;
    }
    let lowered = lower(&parse, &LowerOptions::default());
    let total = t.elapsed();
    let mb = bytes.len() as f64 / 1e6;
    println!(
        "parse {:.3}s; parse + lower {:.3}s = {:.0} MB/s; {} records, {} structures, {} diagnostics",
        parsed.as_secs_f64(),
        total.as_secs_f64(),
        mb / total.as_secs_f64(),
        lowered.dataset.records().count(),
        lowered.dataset.structures.len(),
        lowered.diagnostics.len()
    );
}
