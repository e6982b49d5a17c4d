//! Peak memory of one parse, for quick checks (the benchmark proper is `cargo xtask bench`):
//! `peakparse FILE` reads the file, parses it, keeps both, and prints the peak resident set (`VmHWM`).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let path = std::env::args().nth(1).expect("usage: peakparse FILE");
    let bytes = std::fs::read(&path).expect("read");
    let parse = gedgraft_syntax::parse(&bytes);
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let peak_kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    println!(
        "{path}: {} diagnostics; peak {:.1} MiB = {:.2}x the file",
        parse.diagnostics().len(),
        peak_kb / 1024.0,
        peak_kb * 1024.0 / bytes.len() as f64
    );
}
