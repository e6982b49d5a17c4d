//! Lowering a streamed file batch by batch (DESIGN.md invariant 9; batches from `gedgraft_syntax::stream`), in
//! two passes over the file: the first indexes every cross-reference identifier the lowering keeps (its first
//! holder's line, how many structures hold it, whether the first is a record: one entry per identifier in a
//! compact table, O(records)); the second lowers each batch again into the dataset of its records, and reports
//! what its records have wrong, then the cross-record facts from the index: duplicate identifiers, and pointers
//! that lead to no record (undefined, ambiguous, to a substructure). The diagnostics and the records of each
//! batch are the whole-file lowering's, in the same order (tested against [`lower`](super::lower)); the
//! `UNDEF` records the pointers of the whole file call for come at the end
//! ([`StreamLowering::undefined_records`]).

use super::assemble::{
    duplicate_message, number_part, pointer_problem, push_undef_records, set_pointer,
};
use super::*;

mod holders;
mod index;
use index::Index;

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
/// assert!(lowering.has_error()); // @I1@ twice: `duplicate-xref`
/// let (mut codes, mut records) = (Vec::new(), Vec::new());
/// for batch in batches() {
///     let batch = batch.unwrap();
///     let lowered = lowering.lower(batch.parse());
///     codes.extend(lowered.all_diagnostics(batch.parse()).iter().map(|d| (d.code, d.location.line)));
///     records.extend(lowered.dataset.records().map(|r| (r.tag().to_string(), r.line())));
/// }
/// assert_eq!(codes, [("undefined-pointer", 3), ("duplicate-xref", 4)]);
/// assert_eq!(records, [("INDI".to_string(), Some(2)), ("INDI".to_string(), Some(4))]);
/// let undef = lowering.undefined_records();
/// assert_eq!(undef.records().map(|r| r.xref()).collect::<Vec<_>>(), [Some("F1")]);
/// ```
#[derive(Debug)]
pub struct StreamLowering {
    options: LowerOptions,
    language: String,
    index: Index,
    /// Whether an indexed batch has an error.
    error: bool,
    /// Whether an identifier has a second holder (a `duplicate-xref`).
    duplicate: bool,
    /// Whether a batch was indexed without its lowering's diagnostics
    /// ([`index_identifiers`](StreamLowering::index_identifiers)).
    unchecked: bool,
    /// Whether each batch is indexed as it is lowered ([`one_pass`](StreamLowering::one_pass)).
    one_pass: bool,
    /// Whether [`lower`](StreamLowering::lower) keeps the records' structures
    /// ([`diagnostics_only`](StreamLowering::diagnostics_only)).
    keep: bool,
    /// How many batches were lowered.
    lowered: u64,
}

impl StreamLowering {
    /// A lowering with `options` (`strict` is not streamed: it is ignored here).
    pub fn new(options: &LowerOptions) -> StreamLowering {
        let options = *options;
        StreamLowering {
            options: options.with_strict(false),
            language: "und".to_string(),
            index: Index::default(),
            error: false,
            duplicate: false,
            unchecked: false,
            one_pass: false,
            keep: true,
            lowered: 0,
        }
    }

    /// This lowering for its diagnostics alone: [`lower`](StreamLowering::lower) gives every diagnostic it
    /// would, with a dataset that holds the header's metadata and no record. The records' structures are
    /// counted, not kept, which is what `gedgraft check` needs: a third less memory on a record nested
    /// 850 000 levels deep (#12), and less time.
    ///
    /// ```
    /// use gedgraft_model::{LowerOptions, StreamLowering};
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NOTE a@@b@\n1 FAMC @F1@\n0 @I1@ INDI\n0 TRLR\n");
    /// let codes = |mut lowering: StreamLowering| {
    ///     lowering.index(&parse);
    ///     let lowered = lowering.lower(&parse);
    ///     let codes: Vec<_> = lowered.all_diagnostics(&parse).iter().map(|d| (d.code, d.location.line)).collect();
    ///     (codes, lowered.dataset.records().count())
    /// };
    /// let (all, records) = codes(StreamLowering::new(&LowerOptions::default()));
    /// assert_eq!(records, 2);
    /// assert!(all.contains(&("duplicate-xref", 5)) && all.contains(&("undefined-pointer", 4)));
    /// let diagnostics_only = StreamLowering::new(&LowerOptions::default()).diagnostics_only();
    /// assert_eq!(codes(diagnostics_only), (all, 0));
    /// ```
    pub fn diagnostics_only(mut self) -> StreamLowering {
        self.keep = false;
        self
    }

    /// A lowering in one pass, for a reader that can read the file again (`gedgraft check` takes it first):
    /// each batch is indexed as it is [`lower`](StreamLowering::lower)ed, with no first pass. A pointer to an
    /// identifier no batch so far held is *pending*: it gets no diagnostic (and no record). After the last
    /// batch, the diagnostics were the whole-file lowering's unless
    /// [`has_unresolved`](StreamLowering::has_unresolved) (a pending pointer leads to no record) or
    /// [`has_duplicate_identifier`](StreamLowering::has_duplicate_identifier) (a pointer to it may have been
    /// taken for one to a record); then a lowering in two passes gives them.
    ///
    /// ```
    /// use gedgraft_model::{LowerOptions, StreamLowering};
    /// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
    /// let lower = |input: &[u8]| {
    ///     let options = StreamOptions::default().with_batch_size(1);
    ///     let mut lowering = StreamLowering::one_pass(&LowerOptions::default());
    ///     let mut codes = Vec::new();
    ///     for batch in RecordStream::new(input, options).unwrap() {
    ///         let batch = batch.unwrap();
    ///         let lowered = lowering.lower(batch.parse());
    ///         codes.extend(lowered.all_diagnostics(batch.parse()).iter().map(|d| d.code));
    ///     }
    ///     (codes, lowering.has_unresolved())
    /// };
    /// // @F1@ comes after the pointer to it: pending, then resolved.
    /// assert_eq!(lower(b"0 HEAD\n0 @I1@ INDI\n1 FAMC @F1@\n0 @F1@ FAM\n0 TRLR\n"), (vec![], false));
    /// // No record @F2@: the pointer was pending and stays unresolved; two passes tell what it is.
    /// assert_eq!(lower(b"0 HEAD\n0 @I1@ INDI\n1 FAMC @F2@\n0 TRLR\n"), (vec![], true));
    /// ```
    pub fn one_pass(options: &LowerOptions) -> StreamLowering {
        StreamLowering {
            one_pass: true,
            ..StreamLowering::new(options)
        }
    }

    /// After the last batch of a lowering in [`one_pass`](StreamLowering::one_pass) that
    /// [`has_unresolved`](StreamLowering::has_unresolved) pointers: the lowering of a second pass over the
    /// file, whose index is complete (the first pass is not needed again). The batches lowered by it are the
    /// two-pass lowering's.
    pub fn into_second_pass(self) -> StreamLowering {
        self.into_second_pass_from(0)
    }

    /// [`into_second_pass`](StreamLowering::into_second_pass) to lower the batches again from one on, those
    /// before it being lowered as two passes lower them (none is in
    /// [`unresolved_batches`](StreamLowering::unresolved_batches)): `listed` is the
    /// [`undefined_count`](StreamLowering::undefined_count) where that batch starts; the `UNDEF` records of the
    /// batches before it are kept, in their order.
    ///
    /// ```
    /// use gedgraft_model::{LowerOptions, StreamLowering};
    /// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
    /// let input = b"0 HEAD\n0 @I1@ INDI\n1 @N1@ NOTE x\n1 ASSO @N1@\n0 @I2@ INDI\n1 FAMC @F9@\n0 TRLR\n";
    /// let batches = || RecordStream::new(&input[..], StreamOptions::default().with_batch_size(1)).unwrap();
    /// let mut lowering = StreamLowering::one_pass(&LowerOptions::default());
    /// let mut listed = Vec::new();
    /// for batch in batches() {
    ///     listed.push(lowering.undefined_count());
    ///     lowering.lower(batch.unwrap().parse());
    /// }
    /// // @N1@ is a substructure's (listed at once), @F9@ nobody's (pending, in batch 2).
    /// assert_eq!(lowering.unresolved_batches(), Some(2..=2));
    /// let mut again = lowering.into_second_pass_from(listed[2]);
    /// let codes: Vec<_> = batches().skip(2).flat_map(|batch| {
    ///     let batch = batch.unwrap();
    ///     let lowered = again.lower(batch.parse());
    ///     lowered.all_diagnostics(batch.parse()).iter().map(|d| d.code).collect::<Vec<_>>()
    /// }).collect();
    /// assert_eq!(codes, ["undefined-pointer"]);
    /// let undef = again.undefined_records();
    /// assert_eq!(undef.records().map(|r| r.xref()).collect::<Vec<_>>(), [Some("N1"), Some("F9")]);
    /// ```
    pub fn into_second_pass_from(mut self, listed: usize) -> StreamLowering {
        self.index.forget_meetings(listed);
        self.one_pass = false;
        self
    }

    /// How many identifiers pointers that lead to no record named so far (an `UNDEF` record each,
    /// [`undefined_records`](StreamLowering::undefined_records)).
    pub fn undefined_count(&self) -> usize {
        self.index.undefined_count()
    }

    /// After the last batch of a lowering in [`one_pass`](StreamLowering::one_pass): whether a pointer
    /// named an identifier before any batch held it, and the file has no record alone holding it (false
    /// for a lowering in two passes, which has no pending pointers).
    pub fn has_unresolved(&self) -> bool {
        self.index.has_unresolved()
    }

    /// After the last batch of a lowering in [`one_pass`](StreamLowering::one_pass): the first and the last
    /// batch (numbered from 0, in the order lowered) with a pointer that was pending and leads to no record,
    /// `None` if there is none ([`has_unresolved`](StreamLowering::has_unresolved) is false). The batches
    /// outside the span were lowered as two passes lower them: only those in it need lowering again
    /// (after [`into_second_pass`](StreamLowering::into_second_pass)) for a report that is the two passes'.
    ///
    /// ```
    /// use gedgraft_model::{LowerOptions, StreamLowering};
    /// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
    /// let input = b"0 HEAD\n0 @I1@ INDI\n1 FAMC @F1@\n0 @I2@ INDI\n1 FAMC @F2@\n0 @F1@ FAM\n0 @I3@ INDI\n1 FAMS @F2@\n0 TRLR\n";
    /// let options = StreamOptions::default().with_batch_size(1);
    /// let mut lowering = StreamLowering::one_pass(&LowerOptions::default());
    /// for batch in RecordStream::new(&input[..], options).unwrap() {
    ///     lowering.lower(batch.unwrap().parse());
    /// }
    /// // @F1@ (batch 1) comes later, @F2@ (batches 2 and 4) never does.
    /// assert_eq!(lowering.unresolved_batches(), Some(2..=4));
    /// ```
    pub fn unresolved_batches(&self) -> Option<std::ops::RangeInclusive<u64>> {
        let (first, last) = self.index.unresolved_batches()?;
        Some(u64::from(first)..=u64::from(last))
    }

    /// First pass: indexes the identifiers of one batch (batches in file order, the header's first), and looks
    /// for errors (the syntax layer's and the lowering's: [`has_error`](StreamLowering::has_error)).
    pub fn index(&mut self, batch: &Parse) {
        let is_error = |d: &Diagnostic| d.severity() == Severity::Error;
        self.error |= syntax_diagnostics(batch).into_iter().any(is_error);
        let (fragments, _) = self.fragments(batch, false);
        for (fragment, _) in &fragments {
            self.error |= fragment.diagnostics.iter().any(is_error);
            for &(xref, _, is_record, _, _) in &fragment.holders {
                self.hold(xref, is_record);
            }
        }
    }

    /// First pass, for a lowering that does not need [`has_error`](StreamLowering::has_error): indexes the
    /// identifiers of one batch as [`index`](StreamLowering::index) does, without lowering it (a walk over the
    /// structures' first lines; the header's batch is lowered, for the header's rules). The second pass is the
    /// same after either.
    pub fn index_identifiers(&mut self, batch: &Parse) {
        if batch.origin().offset == 0 {
            self.index(batch);
            return;
        }
        self.unchecked = true;
        let mut found = Vec::new();
        holders::each_holder(batch, |xref, is_record| found.push((xref, is_record)));
        for (xref, is_record) in found {
            self.hold(xref, is_record);
        }
    }

    /// A structure holds `xref`: a second holder is a `duplicate-xref`, which is an error.
    fn hold(&mut self, xref: &str, is_record: bool) {
        let second = self.index.hold(xref, is_record);
        self.duplicate |= second;
        self.error |= second;
    }

    /// After the first pass: whether the file has an error (the syntax layer's or the lowering's, duplicate
    /// identifiers included). A file without one lowers the same in strict mode as in the default mode, so
    /// a strict lowering can stream it; one with an error needs the whole file (a strict lowering stops at
    /// the first error and keeps no record). True, to be safe, once a batch was indexed with
    /// [`index_identifiers`](StreamLowering::index_identifiers), which does not look for errors.
    pub fn has_error(&self) -> bool {
        self.error || self.unchecked
    }

    /// After the first pass: whether some identifier is held twice (`duplicate-xref`).
    pub fn has_duplicate_identifier(&self) -> bool {
        self.duplicate
    }

    /// After the first pass: how many structures of the file hold `xref` (0 when only pointers name it, or
    /// nothing does).
    ///
    /// ```
    /// use gedgraft_model::{LowerOptions, StreamLowering};
    /// let mut lowering = StreamLowering::new(&LowerOptions::default());
    /// lowering.index_identifiers(&gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 FAMS @F1@\n0 @I1@ INDI\n0 TRLR\n"));
    /// assert_eq!((lowering.holder_count("I1"), lowering.holder_count("F1")), (2, 0));
    /// ```
    pub fn holder_count(&self, xref: &str) -> usize {
        self.index.holders(xref).0.map_or(0, |n| n as usize)
    }

    /// Second pass (or the only one, [`one_pass`](StreamLowering::one_pass)): one batch lowered (batches in
    /// file order, each once, after every batch was indexed). The
    /// dataset holds the batch's records (and, for the first batch, the header's metadata) with their lines in
    /// the file; a pointer to a record of another batch has no [`record`](crate::Pointer::record) in it, one
    /// that leads to no record is `undefined` (its `UNDEF` record comes with
    /// [`undefined_records`](StreamLowering::undefined_records)). The diagnostics are the whole-file lowering's
    /// at the batch's records, located in the file.
    pub fn lower(&mut self, batch: &Parse) -> Lowered {
        let (fragments, metadata) = self.fragments(batch, self.keep);
        let void = dialect_rules::null_pointer(batch.dialect());
        let mut dataset = Dataset {
            metadata: metadata.unwrap_or_default(),
            ..Dataset::default()
        };
        let mut diagnostics = Vec::new();
        let mut sink = Sink::default();
        let mut next_id = 0u32;
        let mut lists = Vec::with_capacity(fragments.len());
        // The records of this batch that alone have their identifier in the file, by identifier.
        // Keyed by the file's identifiers: the standard library's keyed hash, which no file can make collide.
        let mut here: std::collections::HashMap<&str, u32> = std::collections::HashMap::default();
        for (fragment, line_base) in fragments {
            let Fragment {
                mut part,
                records,
                holders,
                pointers,
                diagnostics: found,
                lines: _,
            } = fragment;
            let first = number_part(&mut dataset, &mut part, &records, &mut next_id, line_base);
            // Most batches are one fragment: its diagnostics are taken as they are, not copied (a record can
            // have a line left out on every other line, #12).
            if diagnostics.is_empty() {
                diagnostics = found;
            } else {
                diagnostics.extend(found);
            }
            let global = |local: u32| first.saturating_add(local);
            for &(xref, local, is_record, at, line) in &holders {
                if self.one_pass {
                    self.hold(xref, is_record);
                }
                let line = line_base.saturating_add(line as usize) as u64;
                match self.index.meet(xref, line) {
                    Some(first_line) => {
                        let message = duplicate_message(xref, Some(first_line));
                        sink.report(codes::DUPLICATE_XREF, Class::NonConformant, message, at);
                    }
                    None if is_record => {
                        here.insert(xref, global(local));
                    }
                    None => {}
                }
            }
            dataset.parts.push(part);
            lists.push(pointers);
        }
        for (part, pointers) in dataset.parts.iter_mut().zip(&lists) {
            for &(local, target, at) in pointers {
                let (count, unique_record) = self.index.holders(target);
                if unique_record {
                    let to = here.get(target).copied().unwrap_or(NONE);
                    set_pointer(part, local, to, false);
                    continue;
                }
                if Some(target) == void {
                    continue;
                }
                if self.one_pass && count.is_none() {
                    let batch = u32::try_from(self.lowered).unwrap_or(u32::MAX - 1);
                    self.index.pend(target, batch);
                    set_pointer(part, local, NONE, false);
                    continue;
                }
                let (code, message) = pointer_problem(target, count);
                sink.report(code, Class::Warning, message, at);
                self.index.list_undefined(target);
                set_pointer(part, local, NONE, true);
            }
        }
        diagnostics.extend(sink.diagnostics);
        self.lowered += 1;
        finish(batch, dataset, diagnostics, &self.options)
    }

    /// After the second pass: the `UNDEF` records of the file (R-POINTER-CONV-10..12), one per distinct
    /// identifier that pointers lead to and no one record has, in the order the pointers came; the whole-file
    /// lowering puts them after the records.
    pub fn undefined_records(&self) -> Dataset {
        let mut dataset = Dataset::default();
        push_undef_records(&mut dataset, 0, self.index.undefined().collect());
        dataset
    }

    /// The fragments of a batch as [`lower`](super::lower) makes them, each with its line base: the header's
    /// and the records after it for the first batch (which sets the default language and gives the metadata),
    /// the records for the others; `keep`: whether the records' structures are kept
    /// ([`diagnostics_only`](StreamLowering::diagnostics_only)).
    fn fragments<'p>(
        &mut self,
        batch: &'p Parse,
        keep: bool,
    ) -> (Vec<(Fragment<'p>, usize)>, Option<Metadata>) {
        let finishing = Finishing {
            ansel: batch.encoding() == Encoding::Ansel,
            nfc: self.options.nfc,
            dialect: batch.dialect(),
        };
        let document = Node::new(batch.green(), TextSize::from(0));
        let (header, trailers) = header_and_trailers(document);
        let first_line = batch.origin().line;
        let mut fragments = Vec::with_capacity(2);
        let mut metadata = None;
        let (elements, index, line_base) = if batch.origin().offset == 0 {
            let (mut head, elements, index) = lower_header(batch, finishing, document, header);
            self.language.clone_from(&head.default_language);
            metadata = Some(Metadata {
                dialect: finishing.dialect,
                ..std::mem::take(&mut head.metadata)
            });
            let head = head.into_fragment();
            let lines = head.lines;
            fragments.push((head, 0));
            (elements, index, lines)
        } else {
            (document.elements(), 0, first_line)
        };
        // The records in runs on the machine's cores, as the whole-file lowering cuts a file.
        let threads = (self.options.threads, STREAM_PARALLEL_CHUNK);
        let runs = split_records(elements, index, threads, batch.green().text_len());
        let language = &self.language;
        let workers = runs.len();
        let lowered = in_order(runs, workers, |run| {
            lower_run(batch, (finishing, keep), language, &trailers, run)
        });
        let mut line_base = line_base;
        for fragment in lowered {
            let lines = fragment.lines;
            fragments.push((fragment, line_base));
            line_base = line_base.saturating_add(lines);
        }
        (fragments, metadata)
    }
}

/// With [`LowerOptions::threads`] at 0, each thread lowering a batch gets at least this many octets of records
/// (a batch of `check` or `lower` is 256 KiB).
const STREAM_PARALLEL_CHUNK: usize = 96 << 10;

#[cfg(test)]
mod tests {
    use super::StreamLowering;
    use crate::{to_json, LowerOptions};
    use gedgraft_syntax::stream::{RecordStream, StreamOptions};

    /// One batch lowered: its diagnostics (code, line, message) and its JSON.
    fn lowered_batch(lowering: &mut StreamLowering, parse: &gedgraft_syntax::Parse) -> String {
        let lowered = lowering.lower(parse);
        let found = lowered.all_diagnostics(parse);
        let found: Vec<_> = found
            .iter()
            .map(|d| (d.code, d.location.line, &d.message))
            .collect();
        format!("{found:?}\n{}", to_json("f", parse, &lowered))
    }

    /// Each batch's lowering (its JSON and its diagnostics) in one pass and in two, in batches of `size`
    /// octets; `None` when one pass cannot tell (`has_unresolved`, `has_duplicate_identifier`).
    fn one_and_two_passes(input: &[u8], size: usize) -> Option<(Vec<String>, Vec<String>)> {
        let stream = || RecordStream::new(input, StreamOptions::default().with_batch_size(size));
        let options = LowerOptions::default();
        let mut two = StreamLowering::new(&options);
        for batch in stream().ok()? {
            two.index(batch.ok()?.parse());
        }
        let mut one = StreamLowering::one_pass(&options);
        let (mut ones, mut twos) = (Vec::new(), Vec::new());
        for batch in stream().ok()? {
            let batch = batch.ok()?;
            let parse = batch.parse();
            ones.push(lowered_batch(&mut one, parse));
            twos.push(lowered_batch(&mut two, parse));
        }
        (!one.has_unresolved() && !one.has_duplicate_identifier()).then_some((ones, twos))
    }

    /// Each batch's lowering (JSON and diagnostics) by a second pass after one pass
    /// ([`StreamLowering::into_second_pass`]) and by two passes, in batches of `size` octets.
    fn second_pass_and_two_passes(input: &[u8], size: usize) -> Option<(Vec<String>, Vec<String>)> {
        let stream = || RecordStream::new(input, StreamOptions::default().with_batch_size(size));
        let options = LowerOptions::default();
        let mut one = StreamLowering::one_pass(&options);
        let mut two = StreamLowering::new(&options);
        for batch in stream().ok()? {
            let batch = batch.ok()?;
            one.lower(batch.parse());
            two.index(batch.parse());
        }
        let mut second = one.into_second_pass();
        let (mut seconds, mut twos) = (Vec::new(), Vec::new());
        for batch in stream().ok()? {
            let batch = batch.ok()?;
            let parse = batch.parse();
            seconds.push(lowered_batch(&mut second, parse));
            twos.push(lowered_batch(&mut two, parse));
        }
        let undef = |l: &StreamLowering| {
            format!(
                "{:?}",
                l.undefined_records()
                    .records()
                    .map(|r| r.xref())
                    .collect::<Vec<_>>()
            )
        };
        seconds.push(undef(&second));
        twos.push(undef(&two));
        Some((seconds, twos))
    }

    /// Each batch's diagnostics (code, line, column, message) by two passes in batches of `size` octets, and
    /// how many records the batches' datasets hold; `only`: with [`StreamLowering::diagnostics_only`].
    fn diagnostics_of(input: &[u8], size: usize, only: bool) -> Option<(Vec<String>, usize)> {
        let stream = || RecordStream::new(input, StreamOptions::default().with_batch_size(size));
        let mut lowering = StreamLowering::new(&LowerOptions::default());
        for batch in stream().ok()? {
            lowering.index(batch.ok()?.parse());
        }
        if only {
            lowering = lowering.diagnostics_only();
        }
        let (mut found, mut records) = (Vec::new(), 0);
        for batch in stream().ok()? {
            let batch = batch.ok()?;
            let lowered = lowering.lower(batch.parse());
            records += lowered.dataset.records().count();
            let all = lowered.all_diagnostics(batch.parse());
            found.extend(all.iter().map(|d| {
                let at = &d.location;
                format!("{} {}:{} {}", d.code, at.line, at.column, d.message)
            }));
        }
        Some((found, records))
    }

    #[test]
    fn a_lowering_for_diagnostics_alone_finds_every_diagnostic_and_keeps_no_record() {
        let head = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";
        // Lowering diagnostics of every kind: duplicate identifiers (the message names the first holder's
        // line), pointers to no record or a substructure, bad escapes, misused annotations (R-SECOND-PASS-05),
        // a level jump left out, repeated leaves (the leaf cache) before and after one with a diagnostic.
        let file = format!(
            "{head}0 @I1@ INDI\n1 SEX M\n1 NOTE a@#Zzz@b\n2 PLANG\n2 PLANG en\n2 PLANG fr\n1 FAMC @F9@\n\
             0 @F1@ FAM\n1 @N1@ NOTE x\n2 DTYPE\n3 X y\n1 CHIL @N1@\n1 SEX M\n3 DEEP jump\n\
             0 @I1@ INDI\n1 SEX M\n1 FAMS @F1@\n2 PLANG en\n0 TRLR\n"
        );
        for size in [1, 60, 4096] {
            let (all, records) = diagnostics_of(file.as_bytes(), size, false).expect("lowered");
            let (only, none) = diagnostics_of(file.as_bytes(), size, true).expect("lowered");
            assert_eq!(only, all, "batches of {size}");
            assert_eq!((records, none), (3, 0), "batches of {size}");
            for code in [
                "duplicate-xref",
                "undefined-pointer",
                "misused-payload-annotation",
            ] {
                assert!(all.iter().any(|d| d.starts_with(code)), "{code}: {all:#?}");
            }
        }
    }

    #[test]
    fn a_second_pass_after_one_lowers_as_two_passes() {
        let head = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";
        // Pointers to no record (before and after one is known not to be), to a substructure, a duplicate.
        let file = format!(
            "{head}0 @I1@ INDI\n1 FAMS @F9@\n1 FAMC @N1@\n0 @F1@ FAM\n1 @N1@ NOTE x\n1 CHIL @F9@\n\
             0 @I2@ INDI\n1 FAMC @F1@\n0 @I2@ INDI\n0 TRLR\n"
        );
        for size in [1, 60, 4096] {
            let (second, two) = second_pass_and_two_passes(file.as_bytes(), size).expect("lowered");
            assert_eq!(second, two, "batches of {size}");
            assert!(
                two.iter().any(|b| b.contains("undefined-pointer")),
                "{two:?}"
            );
        }
    }

    #[test]
    fn one_pass_lowers_as_two_when_every_pending_pointer_finds_its_record() {
        let head = "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";
        // Pointers forward (pending, then met), back, within a batch, to a substructure met before them
        // (R-POINTER-CONV-10..12: a warning either way).
        let file = format!(
            "{head}0 @I1@ INDI\n1 FAMS @F1@\n1 @N1@ NOTE x\n0 @F1@ FAM\n1 HUSB @I1@\n1 CHIL @I2@\n\
             0 @I2@ INDI\n1 FAMC @F1@\n1 ASSO @N1@\n0 TRLR\n"
        );
        for size in [1, 60, 4096] {
            let (one, two) = one_and_two_passes(file.as_bytes(), size).expect("one pass tells");
            assert_eq!(one, two, "batches of {size}");
        }
        assert!(one_and_two_passes(
            format!("{head}0 @I1@ INDI\n1 FAMS @F9@\n0 TRLR\n").as_bytes(),
            1
        )
        .is_none());
    }

    #[test]
    #[cfg_attr(
        not(has_corpus),
        ignore = "corpus missing: see README, Tests and the corpus"
    )]
    fn one_pass_lowers_as_two_on_the_corpus() {
        let corpus = gedgraft_test_support::corpus_dir();
        let files = gedgraft_test_support::files_under(&corpus);
        assert!(files.len() > 100, "only {} corpus files", files.len());
        let mut told = 0;
        for path in &files {
            let bytes = std::fs::read(path).unwrap_or_default();
            for size in [1, 4096] {
                if let Some((one, two)) = one_and_two_passes(&bytes, size) {
                    assert_eq!(one, two, "{}, batches of {size}", path.display());
                    told += 1;
                }
                let only = diagnostics_of(&bytes, size, true).map(|(d, _)| d);
                let all = diagnostics_of(&bytes, size, false).map(|(d, _)| d);
                assert_eq!(
                    only,
                    all,
                    "{}, diagnostics alone, batches of {size}",
                    path.display()
                );
                if let Some((second, two)) = second_pass_and_two_passes(&bytes, size) {
                    assert_eq!(
                        second,
                        two,
                        "{}, second pass, batches of {size}",
                        path.display()
                    );
                }
            }
        }
        // Most files have every pointer lead to a record.
        assert!(
            told > files.len(),
            "one pass told {told} times of {}",
            2 * files.len()
        );
    }
}
