//! The JSON document of a lowered file (`gedgraft lower`), written by hand with an explicit stack.
//!
//! serde_json serialises nested values by recursion, which a file of 100 000 nested levels would overflow, so
//! the nested `children` arrays are written here iteratively. The layout is one structure per line, indented
//! by depth (indentation stops growing after [`MAX_INDENT`] levels so output stays linear in size); it is
//! ordinary JSON. The schema is described in the crate's `README.md`.

use crate::dataset::{Dataset, Metadata, Payload, StructureId, StructureRef, Version};
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
    let dataset = &lowered.dataset;
    w.head(file, parse, &dataset.metadata, dataset);
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

/// [`to_json`]'s document written batch by batch, for a file lowered by a [`StreamLowering`]
/// (non-strict): the records as they come, the diagnostics gathered aside (into a second sink the caller
/// keeps, on disk if it wishes), and at the end the `UNDEF` records, the diagnostics and the tail. The
/// text is [`to_json`]'s for the whole file (tested on the corpus).
///
/// ```
/// use gedgraft_model::{lower, to_json, JsonStream, LowerOptions, StreamLowering};
/// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
/// let input = b"0 HEAD\n0 @I1@ INDI\n1 FAMC @F1@\n0 @I1@ INDI\n0 TRLR\n";
/// let batches = || RecordStream::new(&input[..], StreamOptions::default().with_batch_size(1)).unwrap();
/// let mut lowering = StreamLowering::new(&LowerOptions::default());
/// for batch in batches() {
///     lowering.index(batch.unwrap().parse());
/// }
/// let (mut json, mut diagnostics) = (String::new(), String::new());
/// let mut stream = JsonStream::new("x.ged");
/// for batch in batches() {
///     let batch = batch.unwrap();
///     let lowered = lowering.lower(batch.parse());
///     stream.batch(batch.parse(), &lowered, &mut json, &mut diagnostics);
/// }
/// stream.end_records(&lowering.undefined_records(), &mut json);
/// json.push_str(&diagnostics);
/// stream.end(&mut json);
/// let whole = gedgraft_syntax::parse(input);
/// assert_eq!(json, to_json("x.ged", &whole, &lower(&whole, &LowerOptions::default())));
/// ```
///
/// [`StreamLowering`]: crate::StreamLowering
#[derive(Debug, Clone)]
pub struct JsonStream {
    file: String,
    head_written: bool,
    any_record: bool,
    any_diagnostic: bool,
}

impl JsonStream {
    /// The document of `file` (its name as [`to_json`] writes it), before its first batch.
    pub fn new(file: &str) -> JsonStream {
        JsonStream {
            file: file.to_string(),
            head_written: false,
            any_record: false,
            any_diagnostic: false,
        }
    }

    /// One batch lowered: its records go to `out` (after the head, with the first batch's metadata), its
    /// diagnostics to `diagnostics`, which the caller writes after [`end_records`](JsonStream::end_records).
    pub fn batch(
        &mut self,
        parse: &Parse,
        lowered: &Lowered,
        out: &mut String,
        diagnostics: &mut String,
    ) {
        let _ = self.batch_into(parse, lowered, out, diagnostics, None);
    }

    /// [`batch`](JsonStream::batch), with the records' JSON handed to `sink` (which empties the string it is
    /// given) whenever `out` holds a megabyte or more, so that a batch of one huge record is written as it is
    /// made; what is left is in `out`. The diagnostics' JSON likewise goes to `diagnostics_sink` from
    /// `diagnostics` (a record with a problem on every line is a batch of as many diagnostics). The first error
    /// of a sink is returned (the batch is still finished).
    #[allow(clippy::type_complexity)]
    pub fn batch_to(
        &mut self,
        parse: &Parse,
        lowered: &Lowered,
        (out, sink): (
            &mut String,
            &mut dyn FnMut(&mut String) -> Result<(), String>,
        ),
        (diagnostics, diagnostics_sink): (
            &mut String,
            &mut dyn FnMut(&mut String) -> Result<(), String>,
        ),
    ) -> Result<(), String> {
        self.batch_into(
            parse,
            lowered,
            out,
            diagnostics,
            Some((sink, diagnostics_sink)),
        )
    }

    /// [`batch`](JsonStream::batch) and [`batch_to`](JsonStream::batch_to): the records' JSON handed to `sink`,
    /// if any, as it is made.
    fn batch_into(
        &mut self,
        parse: &Parse,
        lowered: &Lowered,
        out: &mut String,
        diagnostics: &mut String,
        sinks: Option<(Sink<'_>, Sink<'_>)>,
    ) -> Result<(), String> {
        let (sink, diagnostics_sink) = sinks.unzip();
        let mut w = Writer {
            out: std::mem::take(out),
            sink,
            failed: None,
        };
        let dataset = &lowered.dataset;
        if !std::mem::replace(&mut self.head_written, true) {
            w.head(&self.file, parse, &dataset.metadata, dataset);
            w.out.push('[');
        }
        self.any_record |= w.items(dataset, &dataset.records, 1, self.any_record);
        *out = std::mem::take(&mut w.out);
        let failed = w.failed.take();
        // A batch of a million diagnostics (one record with a problem on every other line) is not held as one
        // string either (#12).
        let mut w = Writer {
            out: std::mem::take(diagnostics),
            sink: diagnostics_sink,
            failed: None,
        };
        for d in lowered.all_diagnostics(parse) {
            let first = !std::mem::replace(&mut self.any_diagnostic, true);
            w.out.push_str(if first { "\n    " } else { ",\n    " });
            w.diagnostic(d);
            w.maybe_flush();
        }
        *diagnostics = std::mem::take(&mut w.out);
        failed.or(w.failed).map_or(Ok(()), Err)
    }

    /// After the last batch: `undefined` (the [`StreamLowering`](crate::StreamLowering)'s `UNDEF` records)
    /// and the end of the records go to `out`, then the start of the diagnostics.
    pub fn end_records(&mut self, undefined: &Dataset, out: &mut String) {
        let mut w = Writer {
            out: std::mem::take(out),
            ..Writer::default()
        };
        if !self.head_written {
            // No batch at all: an empty input, which has no records.
            w.head(
                &self.file,
                &gedgraft_syntax::parse(b""),
                &Default::default(),
                undefined,
            );
            w.out.push('[');
        }
        self.any_record |= w.items(undefined, &undefined.records, 1, self.any_record);
        w.out.push_str(if self.any_record { "\n  ]" } else { "]" });
        w.out.push_str(",\n  \"diagnostics\": [");
        *out = w.out;
    }

    /// After the diagnostics: the end of the document.
    pub fn end(self, out: &mut String) {
        if self.any_diagnostic {
            out.push_str("\n  ");
        }
        out.push_str("],\n  \"stopped\": null\n}\n");
    }
}

/// How the JSON of a batch's records is written out while it is made: `out` is handed over whenever it holds
/// [`FLUSH_AT`] octets, so that a record of millions of structures is not held as one string.
type Sink<'s> = &'s mut dyn FnMut(&mut String) -> Result<(), String>;

/// See [`Sink`].
const FLUSH_AT: usize = 1 << 20;

#[derive(Default)]
struct Writer<'s> {
    out: String,
    sink: Option<Sink<'s>>,
    /// The first error of the sink; nothing more is handed to it after one.
    failed: Option<String>,
}

impl Writer<'_> {
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

    /// Everything before the records' array: the file, its encoding, the metadata (structures of `dataset`).
    fn head(&mut self, file: &str, parse: &Parse, metadata: &Metadata, dataset: &Dataset) {
        let detection = parse.detection();
        self.out.push_str("{\n  \"file\": ");
        self.string(file);
        self.out.push_str(",\n  \"encoding\": {\"detected\": ");
        self.opt_string(detection.detected.map(|e| e.name()));
        self.out.push_str(", \"declared\": ");
        self.opt_string(detection.declared.as_deref());
        self.out.push_str(", \"used\": ");
        self.string(detection.used.name());
        self.out
            .push_str("},\n  \"metadata\": {\n    \"dialect\": ");
        self.string(&parse.dialect().to_string());
        self.out.push_str(",\n    \"elf_version\": ");
        self.version(metadata.elf_version);
        self.out.push_str(",\n    \"gedcom_version\": ");
        self.version(metadata.gedcom_version);
        self.out.push_str(",\n    \"gedcom_form\": ");
        self.opt_string(metadata.gedcom_form.as_deref());
        self.out.push_str(",\n    \"default_language\": ");
        self.opt_string(metadata.default_language.as_deref());
        self.out.push_str(",\n    \"schemas\": ");
        self.structures(dataset, &metadata.schemas, 2);
        self.out.push_str(",\n    \"other\": ");
        self.structures(dataset, &metadata.other, 2);
        self.out.push_str("\n  },\n  \"records\": ");
    }

    /// Writes `[structure, …]` for `roots`, whose array sits at indentation `depth`, without recursion.
    fn structures(&mut self, dataset: &Dataset, roots: &[StructureId], depth: usize) {
        self.out.push('[');
        if self.items(dataset, roots, depth, false) {
            self.indent(depth);
        }
        self.out.push(']');
    }

    /// Writes the items of an array at indentation `depth` for `roots` (`null` for an id that has no
    /// structure), after others if `after`; whether it wrote any.
    fn items(
        &mut self,
        dataset: &Dataset,
        roots: &[StructureId],
        depth: usize,
        after: bool,
    ) -> bool {
        for (i, id) in roots.iter().enumerate() {
            if after || i > 0 {
                self.out.push(',');
            }
            self.indent(depth + 1);
            match dataset.get(*id) {
                Some(s) => self.subtree(s, depth + 1),
                None => self.out.push_str("null"),
            }
        }
        !roots.is_empty()
    }

    /// Writes `root` and its substructures, `root` at indentation `depth`, without recursion. A frame of the
    /// walk is one open array of substructures: the local id of the next one, the id after the last one, and
    /// whether one was written — 12 octets a level, so that a record nested a million levels deep costs
    /// little more than its structures.
    fn subtree(&mut self, root: StructureRef<'_>, depth: usize) {
        let mut stack: Vec<(u32, u32, bool)> = Vec::new();
        let mut next = Some(root);
        loop {
            if let Some(s) = next.take() {
                self.open(s);
                if s.has_children() {
                    let (first, end) = s.child_range();
                    stack.push((first, end, false));
                } else {
                    self.out.push_str("]}");
                }
            }
            let Some(frame) = stack.last_mut() else {
                break;
            };
            match (frame.0 < frame.1).then(|| root.sibling(frame.0)).flatten() {
                Some(child) => {
                    frame.0 = child.child_range().1;
                    if std::mem::replace(&mut frame.2, true) {
                        self.out.push(',');
                    }
                    self.indent(depth + stack.len());
                    next = Some(child);
                }
                None => {
                    stack.pop();
                    self.indent(depth + stack.len());
                    self.out.push_str("]}");
                    self.maybe_flush();
                }
            }
        }
    }

    /// Writes a structure up to the opening of its array of substructures.
    fn open(&mut self, s: StructureRef<'_>) {
        self.out.push_str("{\"xref\": ");
        self.opt_string(s.xref());
        self.out.push_str(", \"tag\": ");
        self.string(s.tag());
        self.out.push_str(", \"payload\": ");
        self.payload(s.payload());
        self.out.push_str(", \"line\": ");
        self.opt_number(s.line());
        self.out.push_str(", \"children\": [");
        self.maybe_flush();
    }

    /// Hands `out` to the sink once it holds [`FLUSH_AT`] octets.
    fn maybe_flush(&mut self) {
        if self.out.len() < FLUSH_AT || self.failed.is_some() {
            return;
        }
        if let Some(sink) = self.sink.as_mut() {
            if let Err(e) = sink(&mut self.out) {
                self.failed = Some(e);
            }
        }
    }

    fn diagnostic(&mut self, d: &Diagnostic) {
        write_diagnostic_json(d, JsonLayout::Spaced, &mut self.out, |_| {});
    }
}
