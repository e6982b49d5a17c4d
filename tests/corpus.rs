//! Every corpus file round-trips byte for byte (invariant 2) and parses without panicking.

use gedgraft_syntax::parse;
use gedgraft_test_support::{check_shared_data, corpus_files, corpus_name};

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

/// Runs always: under CI the corpus and the specs must be there, or the tests above would be ignored unseen.
#[test]
fn shared_data_is_there_under_ci() {
    check_shared_data(cfg!(has_corpus), cfg!(has_spec));
}
