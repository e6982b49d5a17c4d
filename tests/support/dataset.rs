//! The dataset of a parse as the semantic tests compare it (`edit_semantics.rs`, `repair_corpus.rs`).

use gedgraft_model::{lower, to_json, LowerOptions};
use gedgraft_syntax::{Parse, Severity};
use std::collections::BTreeSet;
use unicode_normalization::UnicodeNormalization;

/// The records of a parse's dataset as `lower` writes them in JSON, without line numbers, in NFC; and its error
/// codes. (The JSON text is compared as text: some corpus files nest deeper than a JSON parser's limit.)
pub fn dataset_of(parse: &Parse) -> (String, BTreeSet<&'static str>) {
    let lowered = lower(parse, &LowerOptions::default());
    let json = to_json("f", parse, &lowered);
    let records = json
        .find("\"records\":")
        .and_then(|start| {
            json[start..]
                .find("\"diagnostics\":")
                .map(|len| &json[start..start + len])
        })
        .unwrap_or(&json);
    let errors = lowered
        .all_diagnostics(parse)
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .map(|d| d.code)
        .collect();
    (without_lines(records).nfc().collect(), errors)
}

/// `json` without its `"line": N, ` fields.
pub fn without_lines(json: &str) -> String {
    const FIELD: &str = "\"line\": ";
    let mut out = String::with_capacity(json.len());
    let mut rest = json;
    while let Some(at) = rest.find(FIELD) {
        out.push_str(&rest[..at]);
        let after = &rest[at + FIELD.len()..];
        let value_end = after
            .find(|c: char| !c.is_ascii_digit() && c != 'n' && c != 'u' && c != 'l')
            .unwrap_or(after.len());
        rest = after[value_end..].trim_start_matches([',', ' ']);
    }
    out.push_str(rest);
    out
}
