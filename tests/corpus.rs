//! Every corpus file round-trips byte for byte (invariant 2) and parses without panicking.

use gedgraft_syntax::parse;
use gedgraft_tests::{check_shared_data, corpus_files, corpus_name};

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn every_corpus_file_round_trips_byte_identically() {
    let files = corpus_files();
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).expect("read corpus file");
        let parse = parse(&bytes);
        match parse.to_bytes() {
            Ok(out) if out == bytes => {}
            Ok(out) => {
                let at = out
                    .iter()
                    .zip(&bytes)
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.len().min(bytes.len()));
                failures.push(format!("{}: differs at byte {at}", corpus_name(path)));
            }
            Err(e) => failures.push(format!("{}: {e}", corpus_name(path))),
        }
    }
    println!("round-tripped {} corpus files", files.len());
    assert!(files.len() > 100, "only {} corpus files found", files.len());
    assert!(
        failures.is_empty(),
        "round trip failed:\n{}",
        failures.join("\n")
    );
}

/// Reading is symmetric with the dataset: for every structure the lowering keeps in every corpus file, the
/// tree's logical value (`Parse::value`, found through `StructureRef::syntax`) is the dataset's payload. The
/// header's serialisation metadata is left aside: its payloads are never unescaped (R-HEADER-04).
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn every_structure_value_is_the_lowered_payload() {
    use gedgraft_model::{lower, LowerOptions, Payload};
    use gedgraft_syntax::Value;
    let files = corpus_files();
    let (mut compared, mut failures) = (0usize, Vec::new());
    for path in &files {
        let bytes = std::fs::read(path).expect("read corpus file");
        let parse = parse(&bytes);
        let lowered = lower(&parse, &LowerOptions::default());
        let metadata: Vec<_> = lowered
            .dataset
            .metadata_structures()
            .map(|m| m.id())
            .collect();
        for record in lowered.dataset.records() {
            for s in record.descendants() {
                if s.range().is_none() || metadata.contains(&s.id()) {
                    continue;
                }
                let Some(node) = s.syntax(&parse) else {
                    failures.push(format!(
                        "{}: line {:?}: no node",
                        corpus_name(path),
                        s.line()
                    ));
                    continue;
                };
                let want = match s.payload() {
                    Some(Payload::Text(t)) => Some(Value::Text(t.text.to_string())),
                    Some(Payload::Pointer(p)) => Some(Value::Pointer(p.target.to_string())),
                    None => None,
                };
                let got = parse.value(&node);
                // The dataset has no payload where the text is empty.
                let got = got.filter(|v| *v != Value::Text(String::new()));
                if got != want && failures.len() < 20 {
                    failures.push(format!(
                        "{}: line {:?}: value {got:?}, dataset {want:?}",
                        corpus_name(path),
                        s.line()
                    ));
                }
                compared += 1;
            }
        }
    }
    println!("compared {compared} structures");
    assert!(compared > 10_000, "only {compared} structures compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Runs always: under CI the corpus and the specs must be there, or the tests above would be ignored unseen.
#[test]
fn shared_data_is_there_under_ci() {
    check_shared_data(cfg!(has_corpus), cfg!(has_spec));
}
