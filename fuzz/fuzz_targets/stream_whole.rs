//! Invariant 9 over arbitrary octets: a file streamed in batches (`RecordStream`, with the file-wide
//! diagnostics put in place by `FileWide`) gives the whole-file parse's octets, records and diagnostics, with
//! the detected encoding and read as UTF-16 (both orders: the cutter reads its code units); and a stream
//! resumed at one of its batches (`RecordStream::resume`) gives the batches from there as the first did.
//!
//! Run from `fuzz/`: `RUSTC_BOOTSTRAP=1 cargo fuzz run stream_whole -- -max_total_time=300`.

#![no_main]

use gedgraft_syntax::encoding::{DetectOptions, Encoding};
use gedgraft_syntax::stream::{FileWide, RecordStream, StreamError, StreamOptions};
use gedgraft_syntax::{parse_with, Diagnostic, ParseOptions};
use libfuzzer_sys::fuzz_target;

/// The notes a stream leaves out when it says so (`notes_left_out`): statistics of the whole body.
const WHOLE_BODY_NOTES: [&str; 3] = ["encoding-mismatch", "declared-encoding-mismatch", "cesu-8"];

fn seen(d: &Diagnostic) -> (&'static str, usize, usize, usize, u32, usize) {
    let l = d.location;
    (d.code, l.offset, l.line, l.column, d.count, d.last_line)
}

fn same_as_whole(data: &[u8], size: usize, force: Option<Encoding>) {
    let detect = DetectOptions { force, default_encoding: None };
    let whole = parse_with(data, &ParseOptions::default().with_detect(detect).with_threads(1));
    let options = StreamOptions::default().with_detect(detect).with_batch_size(size);
    let stream = match RecordStream::new(data, options.clone()) {
        Ok(s) => s,
        Err(StreamError::NotGedcom) => return,
        Err(e) => panic!("stream refused: {e}"),
    };
    let mut file_wide = FileWide::default();
    let detection = stream.detection().clone();
    let mut first = Vec::new();
    for batch in RecordStream::new(data, options.clone()).expect("streams twice") {
        let batch = batch.expect("a batch");
        file_wide.count(&batch);
        first.push(batch);
    }
    // Resumed at a batch picked by the input (one whose first diagnostic goes on no earlier run).
    let pick = data.get(1).map_or(0, |&b| usize::from(b)) % first.len().max(1);
    if let Some(at) = first.get(pick).filter(|b| b.continued_run().is_none()) {
        let point = at.resume_point();
        let rest = &data[usize::try_from(point.offset()).expect("in the input")..];
        let resumed = RecordStream::resume(rest, options, detection, point);
        let shown = |b: &gedgraft_syntax::stream::Batch| {
            let d: Vec<_> = b.diagnostics().iter().map(seen).collect();
            (b.parse().to_bytes().expect("written back"), b.offset(), b.first_line(), d)
        };
        let again: Vec<_> = resumed.map(|b| shown(&b.expect("a batch"))).collect();
        let expected: Vec<_> = first[pick..].iter().map(shown).collect();
        assert!(again == expected, "resumed at batch {pick} differs (batches of {size}, {force:?})");
    }
    drop(first);
    let left_out = stream.notes_left_out();
    let (mut octets, mut children, mut diagnostics) = (Vec::new(), Vec::new(), Vec::new());
    for batch in stream {
        let mut batch = batch.expect("a batch");
        file_wide.apply(&mut batch);
        octets.extend(batch.parse().to_bytes().expect("written back"));
        children.extend(batch.parse().green().children().map(|c| c.to_owned()));
        diagnostics.extend(batch.diagnostics().iter().map(seen));
    }
    assert!(octets == data, "octets differ (batches of {size}, {force:?})");
    let expected: Vec<_> = whole.green().children().map(|c| c.to_owned()).collect();
    assert!(children == expected, "records differ (batches of {size}, {force:?})");
    let mut expected: Vec<_> = whole.diagnostics().iter().map(seen).collect();
    if left_out {
        expected.retain(|d| !WHOLE_BODY_NOTES.contains(&d.0));
    }
    assert_eq!(diagnostics, expected, "diagnostics differ (batches of {size}, {force:?})");
}

fuzz_target!(|data: &[u8]| {
    let size = data.first().map_or(1, |&b| usize::from(b % 64) + 1);
    for force in [None, Some(Encoding::Utf16Le), Some(Encoding::Utf16Be)] {
        same_as_whole(data, size, force);
    }
});
