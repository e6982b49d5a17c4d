//! Every corpus file streamed in batches gives the whole-file parse's octets, records and diagnostics
//! (DESIGN.md invariant 9).

use gedgraft_syntax::stream::{FileWide, RecordStream, StreamError, StreamOptions};
use gedgraft_syntax::{parse, Diagnostic};
use gedgraft_test_support::{corpus_files, corpus_name};

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
    let stream = match RecordStream::new(bytes, options.clone()) {
        Ok(s) => s,
        Err(StreamError::NeedsWholeFile | StreamError::NotGedcom) => return None,
        Err(e) => return Some(e.to_string()),
    };
    let mut file_wide = FileWide::default();
    for batch in RecordStream::new(bytes, options).ok()? {
        file_wide.count(&batch.ok()?);
    }
    let (mut octets, mut children, mut diagnostics) = (Vec::new(), Vec::new(), Vec::new());
    for batch in stream {
        let mut batch = match batch {
            Ok(b) => b,
            Err(StreamError::NeedsWholeFile) => return None,
            Err(e) => return Some(e.to_string()),
        };
        file_wide.apply(&mut batch);
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

/// What differs between the lowering streamed (two passes over batches of `size`) and whole: its diagnostics,
/// and the JSON document (`JsonStream` against `to_json`: the records, the `UNDEF` records, the metadata).
fn lowering_difference(bytes: &[u8], size: usize) -> Option<String> {
    use gedgraft_model::{lower, to_json, JsonStream, LowerOptions, StreamLowering};
    let whole = parse(bytes);
    let options = LowerOptions::default();
    let lowered = lower(&whole, &options);
    let expected: Vec<Seen> = lowered
        .all_diagnostics(&whole)
        .into_iter()
        .map(seen)
        .collect();
    let stream_options = StreamOptions::default()
        .with_batch_size(size)
        .with_exact_notes(true);
    let batches = || RecordStream::new(bytes, stream_options.clone());
    let mut lowering = StreamLowering::new(&options);
    let mut file_wide = FileWide::default();
    for batch in batches().ok()? {
        let batch = batch.ok()?;
        file_wide.count(&batch);
        lowering.index(batch.parse());
    }
    let mut found = Vec::new();
    let mut writer = JsonStream::new("f.ged");
    let (mut json, mut diagnostics) = (String::new(), String::new());
    for batch in batches().ok()? {
        let mut batch = batch.ok()?;
        file_wide.apply(&mut batch);
        let lowered = lowering.lower(batch.parse());
        found.extend(lowered.all_diagnostics(batch.parse()).into_iter().map(seen));
        writer.batch(batch.parse(), &lowered, &mut json, &mut diagnostics);
    }
    writer.end_records(&lowering.undefined_records(), &mut json);
    json.push_str(&diagnostics);
    writer.end(&mut json);
    if found != expected {
        return Some(format!(
            "lowering diagnostics differ:\n{found:?}\nvs\n{expected:?}"
        ));
    }
    let whole_json = to_json("f.ged", &whole, &lowered);
    (json != whole_json).then(|| format!("JSON differs:\n{json}\nvs\n{whole_json}"))
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn every_corpus_file_lowers_streamed_as_whole() {
    let files = corpus_files();
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).expect("read corpus file");
        for size in [1, 4096] {
            if let Some(d) = lowering_difference(&bytes, size) {
                failures.push(format!("{} (batches of {size}): {d}", corpus_name(path)));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What differs between writing the lowering of `bytes` streamed (batches of `size`, planned and written in
/// parts: `StreamPlanner`, `StreamWriter`) and writing the whole file's dataset with `options`: the octets,
/// the report (dialect, what needs ELF, renames, decomposed letters), or whether it can be written. `Ok`:
/// whether the file could be written.
fn writing_difference(
    bytes: &[u8],
    size: usize,
    options: &gedgraft_model::WriteOptions,
) -> Result<bool, String> {
    use gedgraft_model::{lower, write_with_report, LowerOptions, StreamLowering, StreamPlanner};
    let whole = lower(&parse(bytes), &LowerOptions::default());
    let expected = write_with_report(&whole.dataset, options);
    let stream_options = StreamOptions::default()
        .with_batch_size(size)
        .with_exact_notes(true);
    let batches = || RecordStream::new(bytes, stream_options.clone());
    let mut lowering = StreamLowering::new(&LowerOptions::default());
    let Ok(stream) = batches() else {
        return Ok(false);
    };
    for batch in stream {
        lowering.index(batch.map_err(|e| e.to_string())?.parse());
    }
    let mut planner = StreamPlanner::new(options);
    for batch in batches().map_err(|e| e.to_string())? {
        planner.plan(
            &lowering
                .lower(batch.map_err(|e| e.to_string())?.parse())
                .dataset,
        );
    }
    planner.made(&lowering.undefined_records());
    let written = planner.finish().and_then(|mut writer| {
        let mut octets = Vec::new();
        for batch in batches().expect("streamed once") {
            let batch = batch.expect("read once");
            octets.extend(writer.write(&lowering.lower(batch.parse()).dataset)?);
        }
        let report = writer.report().clone();
        octets.extend(writer.finish());
        Ok((octets, report))
    });
    // The report's structure ids are the parts' own: compared without them.
    let shown = |r: Result<(Vec<u8>, gedgraft_model::WriteReport), gedgraft_model::WriteError>| {
        r.map(|(octets, report)| {
            let renames: Vec<_> = (report.renames.iter())
                .map(|r| (r.path.clone(), r.line, r.old.clone(), r.new.clone()))
                .collect();
            let need = (report.elf_needed_by.as_ref())
                .map(|n| (n.path.clone(), n.line, n.what.clone(), n.character));
            let text = String::from_utf8_lossy(&octets).into_owned();
            (
                text,
                report.metadata.dialect,
                need,
                renames,
                report.decomposed,
            )
        })
        .map_err(|e| match e {
            gedgraft_model::WriteError::Unwritable { what, text, .. } => format!("{what} {text:?}"),
            gedgraft_model::WriteError::ContinuationTag { .. } => "CONT or CONC".into(),
            gedgraft_model::WriteError::MetadataTag { tag, .. } => tag,
            other => other.to_string(),
        })
    };
    let (found, expected) = (shown(written), shown(expected));
    if found != expected {
        return Err(format!("written differently:\n{found:?}\nvs\n{expected:?}"));
    }
    Ok(found.is_ok())
}

/// The write options the writing tests try: UTF-8 as read; ASCII in GEDCOM 5.5 (where a character ASCII lacks
/// needs an escape, which takes ELF); ANSEL (decomposed letters), with CR LF and a short line limit.
fn write_options_tried() -> Vec<gedgraft_model::WriteOptions> {
    use gedgraft_model::{LineEnding, WriteOptions};
    use gedgraft_syntax::encoding::Encoding;
    vec![
        WriteOptions::default(),
        WriteOptions::default()
            .with_encoding(Encoding::Ascii)
            .with_dialect(gedgraft_syntax::Dialect::Gedcom55),
        WriteOptions::default()
            .with_encoding(Encoding::Ansel)
            .with_line_ending(LineEnding::CrLf)
            .with_line_limit(40),
    ]
}

/// Invariant 9: every corpus file's dataset written in parts, as `gedgraft fmt` streams it, is the whole
/// dataset written, with the same report.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn every_corpus_file_writes_streamed_as_whole() {
    let files = corpus_files();
    let (mut failures, mut written) = (Vec::new(), 0);
    for path in &files {
        let bytes = std::fs::read(path).expect("read corpus file");
        'file: for options in write_options_tried() {
            for size in [1, 4096] {
                match writing_difference(&bytes, size, &options) {
                    Ok(w) => written += usize::from(w),
                    Err(d) => {
                        let name = corpus_name(path);
                        failures.push(format!("{name} (batches of {size}, {options:?}): {d}"));
                        break 'file;
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Most files can be written in most of the options: the comparison is of octets, not of two refusals.
    assert!(
        written > files.len() * 3,
        "only {written} writings of {} files",
        files.len()
    );
}

/// Cross-record facts across batches (2019 R-POINTER-CONV: pointers to no record, to several, to a
/// substructure; duplicate identifiers), and record-local ones (left-out lines, escapes), in GEDCOM 5.5.1 and
/// 7.0 (whose `VOID` pointer is no problem).
#[test]
fn generated_files_lower_streamed_as_whole() {
    for version in ["5.5.1", "7.0"] {
        let mut s = format!("0 HEAD\n1 GEDC\n2 VERS {version}\n1 LANG French\n");
        for i in 0..40 {
            s.push_str(&format!(
                "0 @I{i}@ INDI\n1 NAME A{i}\n1 FAMC @F{}@\n",
                i % 13
            ));
            if i % 5 == 0 {
                s.push_str("1 NOTE x @#Dbad\n3 JUMP\n1 ASSO @VOID@\n2 @S9@ SUBX\n");
            }
            if i % 9 == 0 {
                s.push_str(&format!("0 @I{}@ INDI\n1 FAMS @S9@\n", i / 3));
            }
        }
        s.push_str("0 @F1@ FAM\n0 @F2@ FAM\n0 @F2@ FAM\n0 TRLR\n0 @F3@ FAM\n0 TRLR\n");
        for size in [1, 50, 1000] {
            if let Some(d) = lowering_difference(s.as_bytes(), size) {
                panic!("{version}, batches of {size}: {d}");
            }
        }
    }
}

/// A generated line of a record body: a level (jumps and malformed lines included), maybe an identifier, a
/// tag and a payload that is often a pointer, so that identifiers and pointers meet across batches.
fn body_line() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let level = prop_oneof![Just("1"), Just("2"), Just("3"), Just("x"), Just("1")];
    let xref = prop_oneof![Just(""), Just(""), Just("@I1@ "), Just("@S9@ ")];
    let tag = prop_oneof![
        Just("NAME"),
        Just("FAMC"),
        Just("NOTE"),
        Just("CONT"),
        Just("_X")
    ];
    let payload = prop_oneof![
        Just(""),
        Just(" @I1@"),
        Just(" @I2@"),
        Just(" @F1@"),
        Just(" @S9@"),
        Just(" @VOID@"),
        Just(" text"),
        Just(" café, a line of text longer than a short line limit"),
        Just(" a\u{b}b"),
        Just(" a@b @#Dbad"),
    ];
    (level, xref, tag, payload).prop_map(|(l, x, t, p)| format!("{l} {x}{t}{p}\n"))
}

/// A generated file: a header of a version, records with identifiers that repeat, bodies of generated lines,
/// maybe a trailer with records after it.
fn generated_file() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let record = (
        prop_oneof![
            Just(""),
            Just("@I1@ "),
            Just("@I2@ "),
            Just("@F1@ "),
            Just("@S9@ ")
        ],
        prop_oneof![Just("INDI"), Just("FAM"), Just("_R")],
        proptest::collection::vec(body_line(), 0..5),
    )
        .prop_map(|(x, t, body)| format!("0 {x}{t}\n{}", body.concat()));
    (
        prop_oneof![Just("5.5.1"), Just("7.0")],
        proptest::collection::vec(record, 0..12),
        prop_oneof![
            Just(""),
            Just("0 TRLR\n"),
            Just("0 TRLR\n0 @I2@ INDI\n0 TRLR\n")
        ],
    )
        .prop_map(|(v, records, end)| {
            format!("0 HEAD\n1 GEDC\n2 VERS {v}\n{}{end}", records.concat())
        })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// Invariant 9: a generated file lowered streamed, in batches of one record and of a few, gives the
    /// whole-file lowering's diagnostics and JSON document (`UNDEF` records, R-POINTER-CONV-10..12, included).
    #[test]
    fn generated_files_lower_streamed_as_whole_prop(text in generated_file()) {
        for size in [1, 64] {
            if let Some(d) = lowering_difference(text.as_bytes(), size) {
                proptest::prop_assert!(false, "batches of {}: {}\n{}", size, d, text);
            }
        }
    }

    /// Invariant 9: a generated file's dataset written in parts (batches of one record and of a few) is the
    /// whole dataset written (identifiers held twice renamed, R-POINTER-CONV-03; the first structure that
    /// needs ELF, R-SERIALISATION-VERSION-01; in every option of [`write_options_tried`]).
    #[test]
    fn generated_files_write_streamed_as_whole_prop(text in generated_file()) {
        for options in write_options_tried() {
            for size in [1, 64] {
                if let Err(d) = writing_difference(text.as_bytes(), size, &options) {
                    proptest::prop_assert!(false, "batches of {}, {:?}: {}\n{}", size, options, d, text);
                }
            }
        }
    }
}
