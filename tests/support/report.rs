//! The text that snapshot tests record for one parse: the tree dump, then the diagnostics.

use gedgraft_syntax::{dump, Parse};
use std::fmt::Write;

/// The dump of `parse` followed by one line per diagnostic:
/// `CODE (CLASS, SEVERITY) at LINE:COLUMN, byte OFFSET..END: MESSAGE`, and for a run of one code on neighbouring
/// lines `  (and N more like this on lines A–B)`.
pub fn dump_with_diagnostics(parse: &Parse) -> String {
    let mut out = dump(parse);
    out.push_str("--- diagnostics ---\n");
    if parse.diagnostics().is_empty() {
        out.push_str("(none)\n");
    }
    for d in parse.diagnostics() {
        let _ = writeln!(
            out,
            "{} ({}, {}) at {}:{}, byte {}..{}: {}",
            d.code,
            d.class.as_str(),
            d.severity().as_str(),
            d.location.line,
            d.location.column,
            d.location.offset,
            d.end_offset,
            d.message
        );
        if let Some(note) = d.run_note() {
            let _ = writeln!(out, "  ({note})");
        }
    }
    out
}

/// Asserts that `parse` writes back exactly `input` (invariant 2, lossless), naming `what` on failure.
///
/// # Panics
/// When the octets differ or cannot be written.
pub fn assert_round_trip(parse: &Parse, input: &[u8], what: &str) {
    match parse.to_bytes() {
        Ok(out) => {
            if out != input {
                let at = out
                    .iter()
                    .zip(input)
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.len().min(input.len()));
                panic!(
                    "{what}: round trip differs at byte {at}: input {:?}, output {:?}",
                    String::from_utf8_lossy(input),
                    String::from_utf8_lossy(&out)
                );
            }
        }
        Err(e) => panic!("{what}: cannot write the tree back: {e}"),
    }
}
