//! The JSON document of a lowered file (`gedgraft lower`), written by hand with an explicit stack.
//!
//! serde_json serialises nested values by recursion, which a file of 100 000 nested levels would overflow, so
//! the nested `children` arrays are written here iteratively. The layout is one structure per line, indented
//! by depth (indentation stops growing after [`MAX_INDENT`] levels so output stays linear in size); it is
//! ordinary JSON. The schema is described in the crate's `README.md`.

use crate::dataset::{Children, Dataset, Payload, StructureId, StructureRef, Version};
use crate::lower::Lowered;
use gedgraft_syntax::internal::{json_option, json_string, write_diagnostic_json, JsonLayout};
use gedgraft_syntax::{Diagnostic, Parse};
use std::fmt::Write as _;

/// Indentation grows with depth up to this many levels, then stays.
pub const MAX_INDENT: usize = 32;

/// Renders the JSON document of a lowered file: `file`, `encoding`, `metadata`, `records`, `diagnostics`
/// (syntax and lowering, in file order) and `stopped` (the diagnostic a strict lowering stopped at, or null).
///
/// ```
/// use gedgraft_model::{lower, to_json, LowerOptions};
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n");
/// let json = to_json("x.ged", &parse, &lower(&parse, &LowerOptions::default()));
/// let value: serde_json::Value = serde_json::from_str(&json).unwrap();
/// assert_eq!(value["records"][0]["children"][0]["payload"]["text"], "Bob");
/// assert_eq!(value["records"][0]["line"], 2);
/// ```
pub fn to_json(file: &str, parse: &Parse, lowered: &Lowered) -> String {
    let mut w = Writer::default();
    let detection = parse.detection();
    let dataset = &lowered.dataset;
    let metadata = &dataset.metadata;
    w.out.push_str("{\n  \"file\": ");
    w.string(file);
    w.out.push_str(",\n  \"encoding\": {\"detected\": ");
    w.opt_string(detection.detected.map(|e| e.name()));
    w.out.push_str(", \"declared\": ");
    w.opt_string(detection.declared.as_deref());
    w.out.push_str(", \"used\": ");
    w.string(detection.used.name());
    w.out.push_str("},\n  \"metadata\": {\n    \"dialect\": ");
    w.string(&parse.dialect().to_string());
    w.out.push_str(",\n    \"elf_version\": ");
    w.version(metadata.elf_version);
    w.out.push_str(",\n    \"gedcom_version\": ");
    w.version(metadata.gedcom_version);
    w.out.push_str(",\n    \"gedcom_form\": ");
    w.opt_string(metadata.gedcom_form.as_deref());
    w.out.push_str(",\n    \"default_language\": ");
    w.opt_string(metadata.default_language.as_deref());
    w.out.push_str(",\n    \"schemas\": ");
    w.structures(dataset, &metadata.schemas, 2);
    w.out.push_str(",\n    \"other\": ");
    w.structures(dataset, &metadata.other, 2);
    w.out.push_str("\n  },\n  \"records\": ");
    w.structures(dataset, &dataset.records, 1);
    w.out.push_str(",\n  \"diagnostics\": [");
    for (i, d) in lowered.all_diagnostics(parse).into_iter().enumerate() {
        w.out.push_str(if i == 0 { "\n    " } else { ",\n    " });
        w.diagnostic(d);
    }
    if !w.out.ends_with('[') {
        w.out.push_str("\n  ");
    }
    w.out.push_str("],\n  \"stopped\": ");
    match &lowered.stopped_at {
        Some(d) => w.diagnostic(d),
        None => w.out.push_str("null"),
    }
    w.out.push_str("\n}\n");
    w.out
}

/// The structures of one JSON array: listed ids, or a structure's children.
enum Items<'d> {
    Roots(&'d Dataset, std::slice::Iter<'d, StructureId>),
    Children(Children<'d>),
}

impl<'d> Iterator for Items<'d> {
    type Item = Option<StructureRef<'d>>;

    fn next(&mut self) -> Option<Option<StructureRef<'d>>> {
        match self {
            Items::Roots(dataset, ids) => ids.next().map(|id| dataset.get(*id)),
            Items::Children(children) => children.next().map(Some),
        }
    }
}

#[derive(Default)]
struct Writer {
    out: String,
}

impl Writer {
    fn indent(&mut self, depth: usize) {
        self.out.push('\n');
        for _ in 0..depth.min(MAX_INDENT) {
            self.out.push_str("  ");
        }
    }

    fn string(&mut self, s: &str) {
        json_string(s, &mut self.out);
    }

    fn opt_string(&mut self, s: Option<&str>) {
        json_option(s, &mut self.out);
    }

    fn opt_number(&mut self, n: Option<usize>) {
        match n {
            Some(n) => {
                let _ = write!(self.out, "{n}");
            }
            None => self.out.push_str("null"),
        }
    }

    fn version(&mut self, v: Option<Version>) {
        match v {
            Some(v) => self.string(&v.to_string()),
            None => self.out.push_str("null"),
        }
    }

    fn payload(&mut self, payload: Option<Payload<'_>>) {
        match payload {
            None => self.out.push_str("null"),
            Some(Payload::Pointer(p)) => {
                self.out.push_str("{\"pointer\": ");
                self.string(p.target);
                if p.undefined {
                    self.out.push_str(", \"undefined\": true");
                }
                self.out.push('}');
            }
            Some(Payload::Text(t)) => {
                self.out.push_str("{\"text\": ");
                self.string(t.text);
                self.out.push_str(", \"lang\": ");
                self.string(t.lang);
                if let Some(datatype) = t.datatype {
                    self.out.push_str(", \"datatype\": ");
                    self.string(datatype);
                }
                self.out.push('}');
            }
        }
    }

    /// Writes `[structure, …]` for `roots`, whose array sits at indentation `depth`, without recursion.
    fn structures(&mut self, dataset: &Dataset, roots: &[StructureId], depth: usize) {
        self.out.push('[');
        if roots.is_empty() {
            self.out.push(']');
            return;
        }
        // Each frame: the structures of one array (`None` for an id that has none), whether one was written,
        // the array's indentation.
        let mut stack: Vec<(Items<'_>, bool, usize)> =
            vec![(Items::Roots(dataset, roots.iter()), false, depth)];
        while let Some(frame) = stack.last_mut() {
            let level = frame.2;
            if let Some(item) = frame.0.next() {
                if frame.1 {
                    self.out.push(',');
                }
                frame.1 = true;
                self.indent(level + 1);
                let Some(s) = item else {
                    self.out.push_str("null");
                    continue;
                };
                self.out.push_str("{\"xref\": ");
                self.opt_string(s.xref());
                self.out.push_str(", \"tag\": ");
                self.string(s.tag());
                self.out.push_str(", \"payload\": ");
                self.payload(s.payload());
                self.out.push_str(", \"line\": ");
                self.opt_number(s.line());
                self.out.push_str(", \"children\": [");
                if s.has_children() {
                    stack.push((Items::Children(s.children()), false, level + 1));
                } else {
                    self.out.push_str("]}");
                }
            } else {
                stack.pop();
                self.indent(level);
                self.out.push(']');
                if !stack.is_empty() {
                    self.out.push('}');
                }
            }
        }
    }

    fn diagnostic(&mut self, d: &Diagnostic) {
        write_diagnostic_json(d, JsonLayout::Spaced, &mut self.out, |_| {});
    }
}
