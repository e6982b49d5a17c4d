//! Invariant 9 for the lowering over arbitrary octets: a file lowered batch by batch in two passes
//! (`StreamLowering`: the batches indexed, then lowered) gives the whole-file lowering's diagnostics (the syntax
//! layer's and the lowering's, located in the file, with their messages) and its records, in order. This is
//! what `check` and `lower` stream; a `lines-left-out` run across a batch cut was such a divergence. The lowering
//! for diagnostics alone (`StreamLowering::diagnostics_only`, `check`'s) gives the same diagnostics. So does the
//! lowering in one pass (`lower > FILE`'s), where the file has no identifier held twice nor line breaks counted
//! for the whole file: when pointers lead to no record, the batches from the first that holds one
//! (`StreamLowering::unresolved_batches`, or where the run its first diagnostic goes on starts) are lowered
//! again, resumed there (`RecordStream::resume`, `StreamLowering::into_second_pass_from`), after the one pass's
//! batches before it.
//!
//! Run from `fuzz/`: `RUSTC_BOOTSTRAP=1 cargo fuzz run stream_lower -- -max_total_time=300`.

#![no_main]

use gedgraft_model::{lower, Dataset, LowerOptions, StreamLowering};
use gedgraft_syntax::stream::{Batch, FileWide, RecordStream, ResumePoint, StreamOptions};
use gedgraft_syntax::{parse_with, Diagnostic, ParseOptions};
use libfuzzer_sys::fuzz_target;

fn seen(d: &Diagnostic) -> String {
    let l = d.location;
    format!("{} {}:{}:{} +{} {}", d.code, l.line, l.column, l.offset, d.count, d.message)
}

/// Each record's tag, identifier, line, text and substructure count.
fn records(dataset: &Dataset) -> Vec<String> {
    dataset
        .records()
        .map(|r| {
            let n = r.children().count();
            format!("{} {:?} {:?} {:?} {n}", r.tag(), r.xref(), r.line(), r.text())
        })
        .collect()
}

fn same_as_whole(data: &[u8], size: usize) {
    let mut options = LowerOptions::default();
    options.threads = 1;
    let whole = parse_with(data, &ParseOptions::default().with_threads(1));
    let stream = || RecordStream::new(data, StreamOptions::default().with_batch_size(size));
    let Ok(first) = stream() else { return };
    if first.notes_left_out() {
        return;
    }
    let lowered = lower(&whole, &options);
    let expected: Vec<String> = lowered.all_diagnostics(&whole).into_iter().map(seen).collect();
    let expected_records = records(&lowered.dataset);
    let mut lowering = StreamLowering::new(&options);
    // `check`'s: the same diagnostics, no records.
    let mut alone = StreamLowering::new(&options).diagnostics_only();
    let mut file_wide = FileWide::default();
    for batch in first {
        let batch = batch.expect("a batch");
        file_wide.count(&batch);
        lowering.index(batch.parse());
        alone.index(batch.parse());
    }
    let (mut found, mut found_records, mut found_alone) = (Vec::new(), Vec::new(), Vec::new());
    for batch in stream().expect("streams twice") {
        let mut batch = batch.expect("a batch");
        file_wide.apply(&mut batch);
        let lowered = lowering.lower(batch.parse());
        found.extend(lowered.all_diagnostics(batch.parse()).into_iter().map(seen));
        found_records.extend(records(&lowered.dataset));
        let lowered = alone.lower(batch.parse());
        found_alone.extend(lowered.all_diagnostics(batch.parse()).into_iter().map(seen));
        assert_eq!(lowered.dataset.records().count(), 0, "records kept for diagnostics alone");
    }
    // The `UNDEF` records come after the last batch, as the whole file puts them after its records.
    found_records.extend(records(&lowering.undefined_records()));
    assert_eq!(found_records, expected_records, "records differ (batches of {size})");
    assert_eq!(found, expected, "diagnostics differ (batches of {size})");
    assert_eq!(found_alone, expected, "diagnostics alone differ (batches of {size})");
    if file_wide.codes().is_empty() {
        in_one_pass(data, size, &options, (&expected, &expected_records));
    }
}

/// One batch lowered in one pass: where it starts, whether its first diagnostic goes on an earlier batch's run,
/// the `UNDEF` records listed before it, its diagnostics and its records.
type OnePassBatch = (ResumePoint, bool, usize, Vec<String>, Vec<String>);

/// The lowering in one pass of `lower > FILE`, and the batches lowered again when pointers lead nowhere.
fn in_one_pass(data: &[u8], size: usize, options: &LowerOptions, expected: (&[String], &[String])) {
    let stream_options = StreamOptions::default().with_batch_size(size);
    let stream = RecordStream::new(data, stream_options.clone()).expect("streams again");
    let detection = stream.detection().clone();
    let mut one = StreamLowering::one_pass(options);
    let mut batches: Vec<OnePassBatch> = Vec::new();
    let lowered_by = |lowering: &mut StreamLowering, batch: &Batch| {
        let lowered = lowering.lower(batch.parse());
        let diagnostics: Vec<String> = lowered.all_diagnostics(batch.parse()).into_iter().map(seen).collect();
        (diagnostics, records(&lowered.dataset))
    };
    for batch in stream {
        let batch = batch.expect("a batch");
        let (point, continued) = (batch.resume_point().clone(), batch.continued_run().is_some());
        let listed = one.undefined_count();
        let (diagnostics, records) = lowered_by(&mut one, &batch);
        batches.push((point, continued, listed, diagnostics, records));
    }
    // The command line takes two passes for a file with an identifier held twice.
    if one.has_duplicate_identifier() {
        return;
    }
    let mut first = match one.unresolved_batches() {
        Some(span) => usize::try_from(*span.start()).expect("a batch number"),
        None => batches.len(),
    };
    while first > 0 && first < batches.len() && batches[first].1 {
        first -= 1;
    }
    let (mut found, mut found_records) = (Vec::new(), Vec::new());
    for (_, _, _, diagnostics, records) in &batches[..first] {
        found.extend(diagnostics.iter().cloned());
        found_records.extend(records.iter().cloned());
    }
    let undefined = match batches.get(first) {
        None => one.undefined_records(),
        Some((point, _, listed, _, _)) => {
            let mut again = one.into_second_pass_from(*listed);
            let rest = &data[usize::try_from(point.offset()).expect("in the input")..];
            let resumed = RecordStream::resume(rest, stream_options, detection, point);
            for batch in resumed {
                let (diagnostics, records) = lowered_by(&mut again, &batch.expect("a batch"));
                found.extend(diagnostics);
                found_records.extend(records);
            }
            again.undefined_records()
        }
    };
    found_records.extend(records(&undefined));
    assert_eq!(found_records, expected.1, "records differ in one pass (batches of {size})");
    assert_eq!(found, expected.0, "diagnostics differ in one pass (batches of {size})");
}

fuzz_target!(|data: &[u8]| {
    let size = data.first().map_or(1, |&b| usize::from(b % 64) + 1);
    same_as_whole(data, size);
});
