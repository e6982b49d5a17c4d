//! Rough timing of parse and write-back on one file (the real benchmark is `cargo xtask bench`).

use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let path = std::env::args().nth(1).expect("usage: timeparse FILE");
    let bytes = std::fs::read(path).expect("read");
    let threads = std::env::var("THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    let options = gedgraft_syntax::ParseOptions::default().with_threads(threads);
    let warmups = std::env::var("WARMUPS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(2);
    for _ in 0..warmups {
        let t = Instant::now();
        let p = gedgraft_syntax::parse_with(&bytes, &options);
        println!("warm-up parse {:.3}s", t.elapsed().as_secs_f64());
        drop(p);
    }
    let t = Instant::now();
    let p = gedgraft_syntax::parse_with(&bytes, &options);
    let parse = t.elapsed();
    let t = Instant::now();
    let out = p.to_bytes().expect("encode");
    let write = t.elapsed();
    assert_eq!(out, bytes);
    let mb = bytes.len() as f64 / 1e6;
    println!(
        "parse {:.3}s {:.0} MB/s; write {:.3}s {:.0} MB/s; {} diagnostics",
        parse.as_secs_f64(),
        mb / parse.as_secs_f64(),
        write.as_secs_f64(),
        mb / write.as_secs_f64(),
        p.diagnostics().len()
    );
}
