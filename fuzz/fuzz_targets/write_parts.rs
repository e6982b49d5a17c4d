//! Invariant 9 for the writer over arbitrary octets: a file's dataset written in parts, as `gedgraft fmt`
//! streams it (`StreamPlanner` over every batch's lowering, then `StreamWriter` batch by batch; and the one
//! pass, a writer made after the first batch, `writer_so_far`, for as long as `still_holds`), gives the octets
//! and the report of the whole dataset written, or fails where it fails. The options come from the input's
//! first octet: the file's encoding or ASCII in GEDCOM 5.5 (escapes that take ELF) or ANSEL with a short line
//! limit.
//!
//! Run from `fuzz/`: `RUSTC_BOOTSTRAP=1 cargo fuzz run write_parts -- -max_total_time=300`.

#![no_main]

use gedgraft_model::{
    lower, write_with_report, LowerOptions, StreamLowering, StreamPlanner, WriteOptions, WriteReport,
};
use gedgraft_syntax::encoding::Encoding;
use gedgraft_syntax::stream::{RecordStream, StreamOptions};
use gedgraft_syntax::{parse_with, Dialect, ParseOptions};
use libfuzzer_sys::fuzz_target;

/// The report without structure ids (a part's own in the streamed writer).
fn shown(report: &WriteReport) -> String {
    let renames: Vec<_> = (report.renames.iter())
        .map(|r| format!("{} {:?} {} {}", r.path, r.line, r.old, r.new))
        .collect();
    let need = (report.elf_needed_by.as_ref()).map(|n| format!("{} {:?} {}", n.path, n.line, n.what));
    format!("{:?} {need:?} {renames:?} {}", report.metadata.dialect, report.decomposed)
}

fn same_as_whole(data: &[u8], size: usize, options: &WriteOptions) {
    let mut lower_options = LowerOptions::default();
    lower_options.threads = 1;
    let whole = parse_with(data, &ParseOptions::default().with_threads(1));
    let stream = || RecordStream::new(data, StreamOptions::default().with_batch_size(size));
    let Ok(first) = stream() else { return };
    if first.notes_left_out() {
        return;
    }
    let expected = write_with_report(&lower(&whole, &lower_options).dataset, options)
        .map(|(octets, report)| (octets, shown(&report)));
    let mut lowering = StreamLowering::new(&lower_options);
    for batch in first {
        lowering.index(batch.expect("a batch").parse());
    }
    let mut planner = StreamPlanner::new(options);
    // The one pass's writer, and whether it held for every part.
    let (mut early, mut held) = (None, true);
    for batch in stream().expect("streams twice") {
        planner.plan(&lowering.lower(batch.expect("a batch").parse()).dataset);
        match &early {
            None => early = Some(planner.writer_so_far()),
            Some(Ok(writer)) => held &= planner.still_holds(writer),
            Some(Err(_)) => {}
        }
    }
    planner.made(&lowering.undefined_records());
    let mut early = early.and_then(Result::ok).filter(|_| held);
    let written = planner.finish().and_then(|mut writer| {
        let (mut octets, mut one_pass) = (Vec::new(), Vec::new());
        for batch in stream().expect("streams again") {
            let dataset = lowering.lower(batch.expect("a batch").parse()).dataset;
            octets.extend(writer.write(&dataset)?);
            if let Some(early) = early.as_mut() {
                one_pass.extend(early.write(&dataset).expect("the one pass writes what the two do"));
            }
        }
        let report = shown(writer.report());
        octets.extend(writer.finish());
        if let Some(early) = early {
            one_pass.extend(early.finish());
            assert_eq!(one_pass, octets, "the one pass's octets differ (batches of {size})");
        }
        Ok((octets, report))
    });
    match (written, expected) {
        (Ok(found), Ok(expected)) => assert_eq!(found, expected, "written differently (batches of {size})"),
        (Err(_), Err(_)) => {}
        (found, expected) => panic!(
            "one fails, not the other (batches of {size}): {:?} vs {:?}",
            found.map(|f| f.1),
            expected.map(|e| e.1)
        ),
    }
}

fuzz_target!(|data: &[u8]| {
    let first = data.first().copied().unwrap_or(0);
    let size = usize::from(first % 64) + 1;
    let options = match first / 64 {
        0 | 1 => WriteOptions::default(),
        2 => WriteOptions::default()
            .with_encoding(Encoding::Ascii)
            .with_dialect(Dialect::Gedcom55),
        _ => WriteOptions::default()
            .with_encoding(Encoding::Ansel)
            .with_line_limit(40),
    };
    same_as_whole(data, size, &options);
});
