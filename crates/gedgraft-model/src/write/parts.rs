//! Writing a dataset that comes in parts, in file order: the batches of a streamed lowering
//! ([`StreamLowering`](crate::StreamLowering)), never the whole dataset at once (DESIGN.md invariant 9). What
//! the writer decides for the whole file is decided in a first pass over every part ([`StreamPlanner`]): the
//! header's dialect (whether something takes `1 ELF`, and the first thing that does), the identifiers held
//! twice and their fresh names (which must differ from every identifier of the file), the letters ANSEL writes
//! decomposed. The second pass writes each part's records as it comes ([`StreamWriter`]). Memory: a part, and
//! the file's identifiers (O(records)). The octets are [`write`](super::write)'s of the parts joined (tested).

use super::report::{decomposed_in, elf_need, null_pointers_in, rename_of};
use super::{encoded, fresh_names, made_record, write_records, Lines, Plan};
use super::{Rename, WriteError, WriteOptions, WriteReport};
use crate::dataset::{Dataset, Metadata, StructureId};
use rustc_hash::FxHashSet;
use std::collections::VecDeque;

/// The first pass of writing a dataset in parts (see the module documentation): every part, in file order,
/// the header's first ([`plan`](StreamPlanner::plan)), and the `UNDEF` records the lowering made
/// ([`made`](StreamPlanner::made)); then [`finish`](StreamPlanner::finish) gives the writer.
///
/// ```
/// use gedgraft_model::{write, LowerOptions, StreamLowering, StreamPlanner, WriteOptions};
/// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
/// let input = b"0 HEAD\n0 @I1@ INDI\n1 NAME Ann\n0 @I1@ INDI\n1 NOTE caf\xc3\xa9\n0 TRLR\n";
/// let batches = || RecordStream::new(&input[..], StreamOptions::default().with_batch_size(1)).unwrap();
/// let options = WriteOptions::default();
/// // First pass: each batch lowered and planned.
/// let (mut lowering, mut planner) = (StreamLowering::new(&LowerOptions::default()), StreamPlanner::new(&options));
/// for batch in batches() {
///     lowering.index(batch.as_ref().unwrap().parse());
/// }
/// for batch in batches() {
///     planner.plan(&lowering.lower(batch.unwrap().parse()).dataset);
/// }
/// planner.made(&lowering.undefined_records());
/// let mut writer = planner.finish()?;
/// assert_eq!(writer.report().renames[0].new, "I1_2");
/// // Second pass: each batch lowered again and written.
/// let mut octets = Vec::new();
/// for batch in batches() {
///     octets.extend(writer.write(&lowering.lower(batch.unwrap().parse()).dataset)?);
/// }
/// octets.extend(writer.finish());
/// let whole = gedgraft_model::lower(&gedgraft_syntax::parse(input), &LowerOptions::default());
/// assert_eq!(octets, write(&whole.dataset, &options)?);
/// # Ok::<(), gedgraft_model::WriteError>(())
/// ```
#[derive(Debug)]
pub struct StreamPlanner {
    options: WriteOptions,
    /// The plan, from the first part on; why it cannot be made, if so.
    plan: Option<Result<Plan, WriteError>>,
    /// How many parts were planned.
    parts: usize,
    /// The file's identifiers so far.
    used: FxHashSet<Box<str>>,
    /// The later holders of an identifier, each with its part, in file order (their new identifiers not
    /// yet made).
    later: Vec<(usize, Rename)>,
    /// What takes `1 ELF`, as the report tells it.
    elf: Option<super::ElfNeed>,
    decomposed: usize,
    /// How many null pointers the dialect written has none of, so far.
    null_pointers: usize,
}

impl StreamPlanner {
    /// The first pass of writing with `options`.
    pub fn new(options: &WriteOptions) -> StreamPlanner {
        StreamPlanner {
            options: *options,
            plan: None,
            parts: 0,
            used: FxHashSet::default(),
            later: Vec::new(),
            elf: None,
            decomposed: 0,
            null_pointers: 0,
        }
    }

    /// Plans the next part (the parts in file order, each once; the first holds the header's metadata).
    pub fn plan(&mut self, part: &Dataset) {
        let k = self.parts;
        self.parts += 1;
        if self.plan.is_none() {
            let plan = Plan::start(&part.metadata, &self.options);
            if let Some(need) = plan.as_ref().ok().and_then(|p| p.need.as_ref()) {
                self.elf = Some(elf_need(need, part));
            }
            self.plan = Some(plan);
        }
        let Some(Ok(plan)) = self.plan.as_mut() else {
            return;
        };
        for s in part.iter() {
            if plan.look_for_need(s) {
                self.elf = plan.need.as_ref().map(|need| elf_need(need, part));
            }
            let Some(x) = s.xref() else { continue };
            if self.used.contains(x) {
                self.later.extend(rename_of(s).map(|r| (k, r)));
            } else {
                self.used.insert(x.into());
            }
        }
        self.decomposed += decomposed_in(part, plan.encoding);
        self.null_pointers += null_pointers_in(part, plan);
    }

    /// Notes the `UNDEF` records the lowering made for pointers (R-POINTER-CONV-10;
    /// [`StreamLowering::undefined_records`](crate::StreamLowering::undefined_records)): they are not written
    /// (a reader makes them again), and a fresh identifier is never theirs.
    pub fn made(&mut self, made: &Dataset) {
        self.used
            .extend(made.iter().filter_map(|s| s.xref()).map(Box::from));
    }

    /// A writer of the parts planned so far, for a writer in one pass: each part written as soon as it is
    /// planned, the writer made after the first. Its octets are [`finish`](StreamPlanner::finish)'s writer's
    /// as long as [`still_holds`](StreamPlanner::still_holds) after every later part is planned (most files:
    /// nothing later takes ELF, no identifier is held twice); else the parts must be written again, by
    /// `finish`'s writer. Fails as `finish` would.
    ///
    /// ```
    /// use gedgraft_model::{LowerOptions, StreamLowering, StreamPlanner, WriteOptions};
    /// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
    /// let input = b"0 HEAD\n0 @I1@ INDI\n0 @N1@ NOTE a\x0bb\n0 TRLR\n";
    /// let options = StreamOptions::default().with_batch_size(1);
    /// let mut lowering = StreamLowering::one_pass(&LowerOptions::default());
    /// let (mut planner, mut early) = (StreamPlanner::new(&WriteOptions::default()), None);
    /// let mut held = Vec::new();
    /// for batch in RecordStream::new(&input[..], options).unwrap() {
    ///     planner.plan(&lowering.lower(batch.unwrap().parse()).dataset);
    ///     let writer = early.get_or_insert_with(|| planner.writer_so_far().unwrap());
    ///     held.push(planner.still_holds(writer));
    /// }
    /// // The vertical tab of the last record takes an escape, which only ELF has: the header written first
    /// // said GEDCOM 5.5.1, so the file must be written again (the trailer is a batch of its own).
    /// assert_eq!(held, [true, true, false, false]);
    /// ```
    pub fn writer_so_far(&self) -> Result<StreamWriter, WriteError> {
        let planner = StreamPlanner {
            options: self.options,
            plan: self.plan.clone(),
            parts: self.parts,
            used: FxHashSet::default(),
            later: self.later.clone(),
            elf: self.elf.clone(),
            decomposed: self.decomposed,
            null_pointers: self.null_pointers,
        };
        planner.finish()
    }

    /// Whether `writer`, made by [`writer_so_far`](StreamPlanner::writer_so_far), writes every part as the
    /// writer of [`finish`](StreamPlanner::finish) would, given the parts planned since: nothing in them
    /// takes ELF unless something did before, and no identifier is renamed.
    pub fn still_holds(&self, writer: &StreamWriter) -> bool {
        self.later.is_empty()
            && writer.report.renames.is_empty()
            && self.elf.is_some() == writer.report.elf_needed_by.is_some()
    }

    /// The writer of the parts planned, or why they cannot be written (as [`write`](super::write) would
    /// fail before writing anything).
    pub fn finish(self) -> Result<StreamWriter, WriteError> {
        let mut plan = match self.plan {
            Some(plan) => plan?,
            None => Plan::start(&Metadata::default(), &self.options)?,
        };
        let given = plan.metadata.clone();
        plan.settle(&given);
        let used = &self.used;
        let fresh = fresh_names(self.later.iter().map(|(_, r)| r.old.as_str()), |x| {
            used.contains(x)
        });
        let (mut queue, mut renames) = (VecDeque::new(), Vec::new());
        for ((part, mut rename), new) in self.later.into_iter().zip(fresh) {
            queue.push_back((part, rename.id, new.clone()));
            rename.new = new;
            renames.push(rename);
        }
        let report = WriteReport {
            metadata: plan.metadata.clone(),
            elf_needed_by: self.elf,
            renames,
            decomposed: self.decomposed,
            null_pointers: self.null_pointers,
        };
        Ok(StreamWriter {
            plan,
            report,
            renames: queue,
            parts: 0,
        })
    }
}

/// The second pass of writing a dataset in parts ([`StreamPlanner::finish`]): the parts planned, in the same
/// order, each [`write`](StreamWriter::write)n as it comes, then the trailer
/// ([`finish`](StreamWriter::finish)).
#[derive(Debug)]
pub struct StreamWriter {
    plan: Plan,
    report: WriteReport,
    /// The fresh identifiers still to write: part, structure in it, identifier.
    renames: VecDeque<(usize, StructureId, String)>,
    /// How many parts were written.
    parts: usize,
}

impl StreamWriter {
    /// What writing the parts changes beyond the layout, as [`write_report`](super::write_report) tells it
    /// for the whole dataset; a structure's `id` is its id in its part.
    pub fn report(&self) -> &WriteReport {
        &self.report
    }

    /// The octets of the next part: the byte-order mark and the header before the first part's records.
    /// Fails as [`write`](super::write) fails on a structure it cannot write (what was written before stays
    /// written: a caller that must write all or nothing writes to a temporary file).
    pub fn write(&mut self, part: &Dataset) -> Result<Vec<u8>, WriteError> {
        let k = self.parts;
        self.parts += 1;
        self.plan.renamed.clear();
        while let Some((_, id, new)) = self.renames.front().filter(|r| r.0 == k).cloned() {
            self.renames.pop_front();
            self.plan.renamed.insert(id, new);
        }
        self.plan.made_undef = part.iter().filter_map(made_record).collect();
        let plan = &self.plan;
        let mut w = Lines {
            plan,
            out: String::new(),
        };
        if k == 0 {
            w.header(part)?;
        }
        for run in write_records(part, plan) {
            w.out.push_str(&run?);
        }
        Ok(encoded(plan, k == 0 && plan.bom, w.out))
    }

    /// The octets after the last part: the trailer (and the header, if no part was written).
    pub fn finish(self) -> Vec<u8> {
        let first = self.parts == 0;
        let mut w = Lines {
            plan: &self.plan,
            out: String::new(),
        };
        if first {
            // An empty dataset's header holds no structure, so it cannot fail.
            let _ = w.header(&Dataset::default());
        }
        w.line(0, None, "TRLR", "");
        let out = std::mem::take(&mut w.out);
        encoded(&self.plan, first && self.plan.bom, out)
    }
}
