//! Invariant 9 for the lowering over arbitrary octets: a file lowered batch by batch in two passes
//! (`StreamLowering`: the batches indexed, then lowered) gives the whole-file lowering's diagnostics (the syntax
//! layer's and the lowering's, located in the file, with their messages) and its records, in order. This is
//! what `check` and `lower` stream; a `lines-left-out` run across a batch cut was such a divergence. The lowering
//! for diagnostics alone (`StreamLowering::diagnostics_only`, `check`'s) gives the same diagnostics.
//!
//! Run from `fuzz/`: `RUSTC_BOOTSTRAP=1 cargo fuzz run stream_lower -- -max_total_time=300`.

#![no_main]

use gedgraft_model::{lower, Dataset, LowerOptions, StreamLowering};
use gedgraft_syntax::stream::{FileWide, RecordStream, StreamOptions};
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
}

fuzz_target!(|data: &[u8]| {
    let size = data.first().map_or(1, |&b| usize::from(b % 64) + 1);
    same_as_whole(data, size);
});
