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

/// What `JsonStream::batch_to` made of `src` lowered in batches, against `JsonStream::batch`: the records'
/// JSON and the diagnostics' JSON (each, handed out and left over, joined), what `batch` gave for each, and
/// the sizes of the records' and the diagnostics' pieces as they were handed out.
struct Handed {
    records: (String, String),
    diagnostics: (String, String),
    record_pieces: Vec<usize>,
    diagnostic_pieces: Vec<usize>,
}

fn handed_out(src: &str) -> Handed {
    use gedgraft_model::{JsonStream, StreamLowering};
    use gedgraft_syntax::stream::{RecordStream, StreamOptions};
    let batches = || RecordStream::new(src.as_bytes(), StreamOptions::default()).expect("a stream");
    let mut lowering = StreamLowering::new(&LowerOptions::default());
    for batch in batches() {
        lowering.index(batch.expect("a batch").parse());
    }
    let (mut whole, mut whole_diagnostics) = (String::new(), String::new());
    let (mut records, mut diagnostics) = (String::new(), String::new());
    let (mut plain, mut flushing) = (JsonStream::new("x.ged"), JsonStream::new("x.ged"));
    let (mut record_pieces, mut diagnostic_pieces) = (Vec::new(), Vec::new());
    for batch in batches() {
        let batch = batch.expect("a batch");
        let lowered = lowering.lower(batch.parse());
        plain.batch(batch.parse(), &lowered, &mut whole, &mut whole_diagnostics);
        let mut sink = |part: &mut String| {
            record_pieces.push(part.len());
            records.push_str(part);
            part.clear();
            Ok(())
        };
        let mut diagnostics_sink = |part: &mut String| {
            diagnostic_pieces.push(part.len());
            diagnostics.push_str(part);
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
            .expect("written");
        records.push_str(&rest);
        diagnostics.push_str(&rest_diagnostics);
    }
    Handed {
        records: (records, whole),
        diagnostics: (diagnostics, whole_diagnostics),
        record_pieces,
        diagnostic_pieces,
    }
}

/// Issue #12: the JSON of one record of 100 000 nested structures is handed out a megabyte at a time while it
/// is made (`JsonStream::batch_to`), and the pieces are the document `batch` gives.
#[test]
fn the_json_of_a_huge_record_is_written_as_it_is_made() {
    let mut src = String::from("0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n");
    for level in 1..LEVELS {
        src.push_str(&format!("{level} _X x\n"));
    }
    src.push_str("0 TRLR\n");
    let handed = handed_out(&src);
    assert_eq!(handed.records.0, handed.records.1);
    assert_eq!(handed.diagnostics.0, handed.diagnostics.1);
    let pieces = handed.record_pieces;
    assert!(pieces.len() > 2, "{pieces:?}");
    assert!(pieces.iter().all(|&n| n < 2 << 20), "{pieces:?}");
}

/// Issue #12: the diagnostics' JSON of one record with a problem on every other line is handed out a megabyte
/// at a time too (`JsonStream::batch_to`'s second sink), and the pieces are what `batch` gives.
#[test]
fn the_diagnostics_of_a_huge_record_are_written_as_they_are_made() {
    let mut src = String::from("0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n");
    src.push_str(&"1 _X\n3 _Y\n".repeat(20_000));
    src.push_str("0 TRLR\n");
    let handed = handed_out(&src);
    assert_eq!(handed.records.0, handed.records.1);
    assert_eq!(handed.diagnostics.0, handed.diagnostics.1);
    let pieces = handed.diagnostic_pieces;
    assert!(pieces.len() > 2, "{pieces:?}");
    assert!(pieces.iter().all(|&n| n < 2 << 20), "{pieces:?}");
}
