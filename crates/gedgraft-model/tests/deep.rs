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
