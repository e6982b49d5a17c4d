//! Helpers shared by the lowering tests.
#![allow(dead_code, unused_imports)]

use gedgraft_model::{lower, Dataset, LowerOptions, Lowered, StructureRef};
use gedgraft_syntax::{parse, Parse};

/// Parses and lowers octets with the default (lenient) options.
pub fn lowered(bytes: &[u8]) -> (Parse, Lowered) {
    lowered_with(bytes, &LowerOptions::default())
}

/// Parses and lowers octets.
pub fn lowered_with(bytes: &[u8], options: &LowerOptions) -> (Parse, Lowered) {
    let parse = parse(bytes);
    let lowered = lower(&parse, options);
    (parse, lowered)
}

/// Lowers a file made of `body` between `0 HEAD` and `0 TRLR` lines (LF breaks).
pub fn body(body: &str) -> (Parse, Lowered) {
    lowered(format!("0 HEAD\n{body}\n0 TRLR\n").as_bytes())
}

/// The codes of the lowering's diagnostics, in order.
pub fn codes(l: &Lowered) -> Vec<&'static str> {
    l.diagnostics.iter().map(|d| d.code).collect()
}

/// The codes of the syntax layer's diagnostics, in order.
pub fn syntax_codes(p: &Parse) -> Vec<&'static str> {
    p.diagnostics().iter().map(|d| d.code).collect()
}

/// The first record with this tag.
pub fn record<'d>(d: &'d Dataset, tag: &str) -> StructureRef<'d> {
    d.records_with_tag(tag)
        .next()
        .unwrap_or_else(|| panic!("no {tag} record"))
}

/// The text payload of the first record with this tag.
pub fn record_text(d: &Dataset, tag: &str) -> String {
    record(d, tag).text().unwrap_or("").to_string()
}

/// The text payload of the first record of `body` (a one-record file).
pub fn text(src: &str) -> String {
    let (_, l) = body(src);
    let first = l.dataset.records().next();
    first
        .and_then(|r| r.text().map(str::to_string))
        .unwrap_or_default()
}

pub use gedgraft_test_support::{check_shared_data, corpus_dir, files_under};
