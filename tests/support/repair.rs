//! Helpers of the repair tests (`repair_cases.rs`, the corpus test): every diagnostic of a file, and its
//! repairs shown as JSON.

use gedgraft_edit::Repair;
use gedgraft_syntax::Diagnostic;

/// The codes whose (safe) repair must keep the lenient lowering's dataset: their inputs are warnings, not
/// malformed, so the data must mean the same after the repair (blank lines, bare `@`, long lines, line-break
/// forms, `CONC` splits).
pub const KEEPS_DATASET: [&str; 6] = [
    "blank-line",
    "unescaped-at",
    "line-too-long",
    "lf-cr-line-breaks",
    "mixed-line-breaks",
    "conc-at-whitespace",
];

/// Every diagnostic of a parse, the syntax layer's and the lenient lowering's, as `gedgraft check` reports them.
pub use gedgraft_model::diagnose as all_diagnostics;

/// One diagnostic and its fix as a JSON value, in the shape of `gedgraft check --format json`'s `"fix"`.
pub fn diagnostic_json(d: &Diagnostic, repair: Option<&Repair>) -> serde_json::Value {
    let mut v = serde_json::json!({
        "code": d.code,
        "line": d.location.line,
        "offset": d.location.offset,
    });
    if let Some(r) = repair {
        let edits: Vec<serde_json::Value> = r
            .edits
            .iter()
            .map(|e| {
                let replacement = match std::str::from_utf8(&e.replacement) {
                    Ok(t) => serde_json::json!(t),
                    Err(_) => serde_json::json!({ "hex": e.replacement.iter().map(|b| format!("{b:02X}")).collect::<String>() }),
                };
                serde_json::json!({ "start": e.range.start, "end": e.range.end, "replacement": replacement })
            })
            .collect();
        v["fix"] = serde_json::json!({
            "applicability": r.applicability.as_str(),
            "message": r.message,
            "edits": edits,
        });
    }
    v
}

/// Octets shown line by line: UTF-8 lines with `\r`, `\t`, `\0` escaped, other lines as escaped octets.
pub fn show_octets(bytes: &[u8]) -> String {
    let mut out = String::new();
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        match std::str::from_utf8(line) {
            Ok(s) => out.push_str(&s.escape_debug().to_string()),
            Err(_) => out.push_str(&line.escape_ascii().to_string()),
        }
        out.push('\n');
    }
    out
}

/// Whether `output` is `input` with `chosen`'s edits and nothing else (octets between edits identical).
pub fn only_edits_changed(input: &[u8], output: &[u8], chosen: &[&Repair]) -> bool {
    let mut edits: Vec<_> = chosen.iter().flat_map(|r| &r.edits).collect();
    edits.sort_by_key(|e| e.range.start);
    let (mut i, mut o) = (0usize, 0usize);
    for e in edits {
        let keep = e.range.start - i;
        if input.get(i..e.range.start) != output.get(o..o + keep) {
            return false;
        }
        o += keep;
        if output.get(o..o + e.replacement.len()) != Some(&e.replacement[..]) {
            return false;
        }
        o += e.replacement.len();
        i = e.range.end;
    }
    input.get(i..) == output.get(o..)
}
