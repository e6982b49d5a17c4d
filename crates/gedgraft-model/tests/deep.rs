//! Invariant 4: no recursion whose depth follows the input's nesting. A file of 100 000 nested levels is parsed,
//! lowered, rendered as JSON and dropped on a thread with a 256 KiB stack.

use gedgraft_model::{lower, to_json, LowerOptions};

const LEVELS: usize = 100_000;

#[test]
fn hundred_thousand_levels_on_a_small_stack() {
    let mut src = String::from("0 HEAD\n1 NOTE h\n2 CONT i\n");
    for level in 0..LEVELS {
        src.push_str(&format!("{level} @X{level}@ A x@@y\n"));
    }
    src.push_str(&format!("{LEVELS} PTR @X0@\n0 TRLR\n"));
    let worker = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let parse = gedgraft_syntax::parse(src.as_bytes());
            let lowered = lower(&parse, &LowerOptions::default());
            assert!(
                lowered.diagnostics.is_empty(),
                "{:?}",
                lowered.diagnostics.first()
            );
            let dataset = &lowered.dataset;
            assert_eq!(dataset.len(), LEVELS + 2);
            let root = dataset.records().next().expect("root");
            let deepest = root.descendants().last().expect("deepest");
            assert_eq!(deepest.tag(), "PTR");
            assert_eq!(deepest.target().map(|t| t.id()), Some(root.id()));
            assert_eq!(deepest.line(), Some(LEVELS + 4));
            let json = to_json("deep.ged", &parse, &lowered);
            assert_eq!(json.matches("\"text\": \"x@y\"").count(), LEVELS);
            let opens = json.matches('[').count();
            assert_eq!(opens, json.matches(']').count());
            assert!(
                json.len() < 300 * LEVELS,
                "indentation is capped: {} bytes",
                json.len()
            );
            drop(lowered);
            drop(parse);
            json.len()
        })
        .expect("spawn");
    let len = worker.join().expect("no stack overflow");
    assert!(len > 0);
}

/// Issue #12: the JSON of one record of 100 000 nested structures is handed out a megabyte at a time while it
/// is made (`JsonStream::batch_to`), and the pieces are the document `batch` gives.
#[test]
fn the_json_of_a_huge_record_is_written_as_it_is_made() {
    use gedgraft_model::{JsonStream, StreamLowering};
    use gedgraft_syntax::stream::{RecordStream, StreamOptions};
    let mut src = String::from("0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n");
    for level in 1..LEVELS {
        src.push_str(&format!("{level} _X x\n"));
    }
    src.push_str("0 TRLR\n");
    let batches = || RecordStream::new(src.as_bytes(), StreamOptions::default()).unwrap();
    let mut lowering = StreamLowering::new(&LowerOptions::default());
    for batch in batches() {
        lowering.index(batch.unwrap().parse());
    }
    let (mut whole, mut pieces) = (String::new(), String::new());
    let (mut whole_diagnostics, mut piece_diagnostics) = (String::new(), String::new());
    let (mut plain, mut flushing) = (JsonStream::new("x.ged"), JsonStream::new("x.ged"));
    let mut handed = Vec::new();
    for batch in batches() {
        let batch = batch.unwrap();
        let lowered = lowering.lower(batch.parse());
        plain.batch(batch.parse(), &lowered, &mut whole, &mut whole_diagnostics);
        let mut rest = String::new();
        let mut sink = |part: &mut String| {
            handed.push(part.len());
            pieces.push_str(part);
            part.clear();
            Ok(())
        };
        let mut diagnostics_sink = |part: &mut String| {
            piece_diagnostics.push_str(part);
            part.clear();
            Ok(())
        };
        let mut rest_diagnostics = String::new();
        flushing
            .batch_to(
                batch.parse(),
                &lowered,
                (&mut rest, &mut sink),
                (&mut rest_diagnostics, &mut diagnostics_sink),
            )
            .unwrap();
        piece_diagnostics.push_str(&rest_diagnostics);
        pieces.push_str(&rest);
    }
    assert_eq!(pieces, whole);
    assert_eq!(piece_diagnostics, whole_diagnostics);
    assert!(handed.len() > 2, "{handed:?}");
    assert!(handed.iter().all(|&n| n < 2 << 20), "{handed:?}");
}

/// Issue #12: the diagnostics' JSON of one record with a problem on every other line is handed out a megabyte
/// at a time too (`JsonStream::batch_to`'s second sink), and the pieces are what `batch` gives.
#[test]
fn the_diagnostics_of_a_huge_record_are_written_as_they_are_made() {
    use gedgraft_model::{JsonStream, StreamLowering};
    use gedgraft_syntax::stream::{RecordStream, StreamOptions};
    let mut src = String::from("0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n");
    src.push_str(&"1 _X\n3 _Y\n".repeat(20_000));
    src.push_str("0 TRLR\n");
    let batches = || RecordStream::new(src.as_bytes(), StreamOptions::default()).unwrap();
    let mut lowering = StreamLowering::new(&LowerOptions::default());
    for batch in batches() {
        lowering.index(batch.unwrap().parse());
    }
    let (mut whole, mut whole_diagnostics) = (String::new(), String::new());
    let (mut records, mut pieces) = (String::new(), String::new());
    let (mut plain, mut flushing) = (JsonStream::new("x.ged"), JsonStream::new("x.ged"));
    let mut handed = Vec::new();
    for batch in batches() {
        let batch = batch.unwrap();
        let lowered = lowering.lower(batch.parse());
        plain.batch(batch.parse(), &lowered, &mut whole, &mut whole_diagnostics);
        let mut sink = |part: &mut String| {
            records.push_str(part);
            part.clear();
            Ok(())
        };
        let mut diagnostics_sink = |part: &mut String| {
            handed.push(part.len());
            pieces.push_str(part);
            part.clear();
            Ok(())
        };
        let (mut rest, mut rest_diagnostics) = (String::new(), String::new());
        flushing
            .batch_to(
                batch.parse(),
                &lowered,
                (&mut rest, &mut sink),
                (&mut rest_diagnostics, &mut diagnostics_sink),
            )
            .unwrap();
        records.push_str(&rest);
        pieces.push_str(&rest_diagnostics);
    }
    assert_eq!(records, whole);
    assert_eq!(pieces, whole_diagnostics);
    assert!(handed.len() > 2, "{handed:?}");
    assert!(handed.iter().all(|&n| n < 2 << 20), "{handed:?}");
}
