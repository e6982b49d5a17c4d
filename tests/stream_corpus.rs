//! Every corpus file streamed in batches gives the whole-file parse's octets, records and diagnostics
//! (DESIGN.md invariant 9).

use gedgraft_syntax::stream::{RecordStream, StreamError, StreamOptions};
use gedgraft_syntax::{parse, Diagnostic};
use gedgraft_tests::{corpus_files, corpus_name};

type Seen = (
    &'static str,
    gedgraft_syntax::Class,
    usize,
    usize,
    usize,
    usize,
    u32,
    usize,
);

fn seen(d: &Diagnostic) -> Seen {
    let l = d.location;
    (
        d.code,
        d.class,
        l.offset,
        l.line,
        l.column,
        d.end_offset,
        d.count,
        d.last_line,
    )
}

/// What differs between streaming `bytes` in batches of `size` and parsing them whole, if anything.
fn difference(bytes: &[u8], size: usize) -> Option<String> {
    let whole = parse(bytes);
    let options = StreamOptions::default()
        .with_batch_size(size)
        .with_exact_notes(true);
    let stream = match RecordStream::new(bytes, options) {
        Ok(s) => s,
        Err(StreamError::Utf16) if whole.encoding().is_utf16() => return None,
        Err(StreamError::NeedsWholeFile) => return None,
        Err(e) => return Some(e.to_string()),
    };
    let (mut octets, mut children, mut diagnostics) = (Vec::new(), Vec::new(), Vec::new());
    for batch in stream {
        let batch = match batch {
            Ok(b) => b,
            Err(StreamError::NeedsWholeFile) => return None,
            Err(e) => return Some(e.to_string()),
        };
        octets.extend(batch.parse().to_bytes().unwrap_or_default());
        children.extend(batch.parse().green().children().map(|c| c.to_owned()));
        diagnostics.extend(batch.diagnostics().iter().map(seen));
    }
    let expected: Vec<Seen> = whole.diagnostics().iter().map(seen).collect();
    let whole_children: Vec<_> = whole.green().children().map(|c| c.to_owned()).collect();
    if octets != bytes {
        Some("octets differ".into())
    } else if children != whole_children {
        Some("records differ".into())
    } else if diagnostics != expected {
        Some(format!(
            "diagnostics differ: {diagnostics:?} vs {expected:?}"
        ))
    } else {
        None
    }
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn every_corpus_file_streams_as_it_parses_whole() {
    let files = corpus_files();
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).expect("read corpus file");
        for size in [1, 4096, 1 << 20] {
            if let Some(d) = difference(&bytes, size) {
                failures.push(format!("{} (batches of {size}): {d}", corpus_name(path)));
                break;
            }
        }
    }
    assert!(files.len() > 100, "only {} corpus files found", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
