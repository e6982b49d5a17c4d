//! The gedcomkit reference of `cargo xtask bench`: `gedgraft-bench-gedcomkit IN OUT` reads IN, decodes and
//! parses it with gedcomkit (`Document::from_bytes_with`, limits raised to the file), writes
//! `Document::to_bytes` to OUT and prints whether OUT is IN octet for octet. One job per process, so that the
//! caller measures its wall time and peak resident set as it does gedgraft's.

use gedcomkit::{Document, Limits};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("usage: gedgraft-bench-gedcomkit IN OUT");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(input) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{input}: {e}");
            return ExitCode::from(2);
        }
    };
    let limits = Limits::DEFAULT.with_input_bytes(bytes.len().saturating_mul(4).max(1 << 20));
    let document = match Document::from_bytes_with(&bytes, limits) {
        Ok((document, _report)) => document,
        Err(e) => {
            eprintln!("gedcomkit: {e}");
            return ExitCode::from(2);
        }
    };
    let out = document.to_bytes();
    if let Err(e) = std::fs::write(output, &out) {
        eprintln!("{output}: {e}");
        return ExitCode::from(2);
    }
    println!("identical {}", out == bytes);
    ExitCode::SUCCESS
}
