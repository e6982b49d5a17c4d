//! Lowering a streamed file batch by batch (DESIGN.md invariant 9; batches from `gedgraft_syntax::stream`), in
//! two passes over the file: the first indexes every cross-reference identifier the lowering keeps (its first
//! holder's offset and line, how many structures hold it, whether the first is a record: one entry per
//! identifier, O(records)); the second lowers each batch again and reports what its records have wrong, then the
//! cross-record facts from the index: duplicate identifiers, and pointers that lead to no record (undefined,
//! ambiguous, to a substructure). The diagnostics of each batch are the whole-file lowering's at its records, in
//! the same order (tested against [`lower`](super::lower)); the dataset is not built.

use super::assemble::{duplicate_message, pointer_problem};
use super::*;

/// An identifier of the file: where its first holder is, its line, how many structures hold it, whether the
/// first is a record.
#[derive(Debug, Clone, Copy)]
struct Held {
    offset: usize,
    line: usize,
    count: u32,
    record: bool,
}

/// The lowering of a streamed file: the header's context and the index of identifiers.
///
/// ```
/// use gedgraft_model::{LowerOptions, StreamLowering};
/// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
/// let input = b"0 HEAD\n0 @I1@ INDI\n1 FAMC @F1@\n0 @I1@ INDI\n0 TRLR\n";
/// let batches = || RecordStream::new(&input[..], StreamOptions::default().with_batch_size(1)).unwrap();
/// let mut lowering = StreamLowering::new(&LowerOptions::default());
/// for batch in batches() {
///     lowering.index(batch.unwrap().parse());
/// }
/// let mut codes = Vec::new();
/// for batch in batches() {
///     let batch = batch.unwrap();
///     let lowered = lowering.lower(batch.parse());
///     codes.extend(lowered.all_diagnostics(batch.parse()).iter().map(|d| (d.code, d.location.line)));
/// }
/// assert_eq!(codes, [("undefined-pointer", 3), ("duplicate-xref", 4)]);
/// ```
#[derive(Debug)]
pub struct StreamLowering {
    options: LowerOptions,
    language: String,
    table: FxHashMap<Box<str>, Held>,
}

impl StreamLowering {
    /// A lowering with `options` (`strict` is not streamed: it is ignored here).
    pub fn new(options: &LowerOptions) -> StreamLowering {
        let options = *options;
        StreamLowering {
            options: options.with_strict(false),
            language: "und".to_string(),
            table: FxHashMap::default(),
        }
    }

    /// First pass: indexes the identifiers of one batch (batches in file order, the header's first).
    pub fn index(&mut self, batch: &Parse) {
        let fragments = self.fragments(batch);
        for (fragment, line_base) in &fragments {
            for &(xref, local, is_record, _) in &fragment.holders {
                let (offset, line) = holder_place(batch, fragment, *line_base, local);
                self.table
                    .entry(xref.into())
                    .and_modify(|h| h.count = h.count.saturating_add(1))
                    .or_insert(Held {
                        offset,
                        line,
                        count: 1,
                        record: is_record,
                    });
            }
        }
    }

    /// Second pass: the lowering's diagnostics of one batch (batches in file order, after every batch was
    /// indexed), located in the file; the dataset is left empty.
    pub fn lower(&mut self, batch: &Parse) -> Lowered {
        let fragments = self.fragments(batch);
        let void = dialect_rules::null_pointer(batch.dialect());
        let mut diagnostics = Vec::new();
        let mut sink = Sink::default();
        for (fragment, _) in &fragments {
            diagnostics.extend(fragment.diagnostics.iter().cloned());
        }
        for (fragment, line_base) in &fragments {
            for &(xref, local, _, at) in &fragment.holders {
                let (offset, _) = holder_place(batch, fragment, *line_base, local);
                let Some(first) = self.table.get(xref).filter(|h| h.offset != offset) else {
                    continue;
                };
                let message = duplicate_message(xref, Some(first.line));
                sink.report(codes::DUPLICATE_XREF, Class::NonConformant, message, at);
            }
        }
        for (fragment, _) in &fragments {
            for &(_, target, at) in &fragment.pointers {
                let held = self.table.get(target);
                if held.is_some_and(|h| h.count == 1 && h.record) || Some(target) == void {
                    continue;
                }
                let (code, message) = pointer_problem(target, held.map(|h| h.count));
                sink.report(code, Class::Warning, message, at);
            }
        }
        diagnostics.extend(sink.diagnostics);
        finish(batch, Dataset::default(), diagnostics, &self.options)
    }

    /// The fragments of a batch as [`lower`](super::lower) makes them, each with its line base: the header's
    /// and the records after it for the first batch (which sets the default language), the records for the
    /// others.
    fn fragments<'p>(&mut self, batch: &'p Parse) -> Vec<(Fragment<'p>, usize)> {
        let finishing = Finishing {
            ansel: batch.encoding() == Encoding::Ansel,
            nfc: self.options.nfc,
            dialect: batch.dialect(),
        };
        let document = Node::new(batch.green(), TextSize::from(0));
        let (header, trailers) = header_and_trailers(document);
        let first_line = batch.origin().line;
        let mut fragments = Vec::with_capacity(2);
        let (elements, index, line_base) = if batch.origin().offset == 0 {
            let (head, elements, index) = lower_header(batch, finishing, document, header);
            self.language.clone_from(&head.default_language);
            let head = head.into_fragment();
            let lines = head.lines;
            fragments.push((head, 0));
            (elements, index, lines)
        } else {
            (document.elements(), 0, first_line)
        };
        let mut builder = Builder::new(batch, finishing, self.language.clone());
        builder.lower_elements(elements, index, usize::MAX, &trailers);
        fragments.push((builder.into_fragment(), line_base));
        fragments
    }
}

/// The file offset and line of the structure with local id `local` of a fragment.
fn holder_place(
    batch: &Parse,
    fragment: &Fragment<'_>,
    line_base: usize,
    local: u32,
) -> (usize, usize) {
    let Some(s) = fragment.part.structures.get(local as usize) else {
        return (usize::MAX, 0);
    };
    let offset = batch.source_map().file_offset(s.from as usize) + batch.origin().offset;
    (offset, line_base.saturating_add(s.line as usize))
}
