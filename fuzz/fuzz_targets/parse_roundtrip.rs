//! Invariants 1, 2 and 5 over arbitrary octets: parsing never panics, `parse(b).to_bytes() == b` with the
//! detected encoding and with every forced encoding, and every diagnostic points inside the file.
//!
//! Run from `fuzz/`: `RUSTC_BOOTSTRAP=1 cargo fuzz run parse_roundtrip -- -max_total_time=300`
//! (add `../../shared/corpus` after the target name to seed it with the real-world corpus).

#![no_main]

use gedgraft_syntax::encoding::Encoding;
use gedgraft_syntax::{parse, parse_with, Parse, ParseOptions};
use libfuzzer_sys::fuzz_target;

fn check(data: &[u8], parse: &Parse, how: &str) {
    match parse.to_bytes() {
        Ok(out) => assert!(
            out == data,
            "round trip failed ({how}, decoded as {}): {} octets in, {} out, first difference at {}",
            parse.encoding().name(),
            data.len(),
            out.len(),
            data.iter().zip(&out).position(|(a, b)| a != b).unwrap_or(data.len().min(out.len()))
        ),
        Err(e) => panic!("to_bytes failed ({how}, decoded as {}): {e}", parse.encoding().name()),
    }
    for d in parse.diagnostics() {
        assert!(
            d.location.offset <= data.len()
                && d.end_offset <= data.len()
                && d.location.offset <= d.end_offset,
            "diagnostic outside the file ({how}): {d} at {}..{} of {}",
            d.location.offset,
            d.end_offset,
            data.len()
        );
    }
}

fuzz_target!(|data: &[u8]| {
    check(data, &parse(data), "detected");
    for &encoding in Encoding::all() {
        let options = ParseOptions::default().with_encoding(encoding);
        check(data, &parse_with(data, &options), encoding.name());
    }
});
