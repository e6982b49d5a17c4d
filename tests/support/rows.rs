//! Helpers of the requirement-row tests (`spec_rows_*.rs`): parse and lower, findings, a dataset's shape.

use gedgraft_model::{lower, Dataset, LowerOptions, Lowered, StructureRef};
use gedgraft_syntax::{parse, Class, Parse};

/// Parses and lowers octets (lenient mode).
pub fn lowered(input: &[u8]) -> (Parse, Lowered) {
    let parse = parse(input);
    let lowered = lower(&parse, &LowerOptions::default());
    (parse, lowered)
}

/// Parses and lowers octets in strict mode.
pub fn strict(input: &[u8]) -> (Parse, Lowered) {
    let parse = parse(input);
    let options = LowerOptions::default().with_strict(true);
    let lowered = lower(&parse, &options);
    (parse, lowered)
}

/// Every diagnostic of the file (syntax and lowering) as `(code, class, line)`.
pub fn findings(parse: &Parse, lowered: &Lowered) -> Vec<(&'static str, Class, usize)> {
    lowered
        .all_diagnostics(parse)
        .iter()
        .map(|d| (d.code, d.class, d.location.line))
        .collect()
}

/// The text payload of the first record with `tag`.
pub fn record_text<'d>(d: &'d Dataset, tag: &str) -> Option<&'d str> {
    d.records_with_tag(tag).next().and_then(|r| r.text())
}

/// One structure and its substructures as `TAG [@XREF@] [payload] { … }`, line numbers left out.
pub fn shape_of(s: &StructureRef<'_>) -> String {
    let mut out = s.tag().to_string();
    if let Some(x) = s.xref() {
        out.push_str(&format!(" @{x}@"));
    }
    if let Some(t) = s.text() {
        out.push_str(&format!(" {t:?}"));
    }
    if let Some(p) = s.pointer() {
        out.push_str(&format!(" -> @{}@", p.target));
    }
    let children: Vec<String> = s.children().map(|c| shape_of(&c)).collect();
    if !children.is_empty() {
        out.push_str(&format!(" {{ {} }}", children.join(", ")));
    }
    out
}

/// The records of a dataset, in file order, as [`shape_of`] gives them.
pub fn shape(d: &Dataset) -> Vec<String> {
    d.records().map(|r| shape_of(&r)).collect()
}
