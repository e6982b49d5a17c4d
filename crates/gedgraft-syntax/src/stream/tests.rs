//! The streamed batches against the whole-file parse (DESIGN.md invariant 9: same trees, diagnostics, octets).

use super::{Batch, FileWide, RecordStream, StreamError, StreamOptions};
use crate::encoding::{DetectOptions, Encoding};
use crate::{parse_with, Diagnostic, ParseOptions};
use proptest::prelude::*;

/// What a diagnostic says and where, as a user sees it.
type Seen = (
    &'static str,
    crate::Class,
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

/// The codes of the encoding notes only the whole body gives.
const WHOLE_BODY_NOTES: [&str; 3] = ["encoding-mismatch", "declared-encoding-mismatch", "cesu-8"];

fn options_for(size: usize, detect: DetectOptions) -> StreamOptions {
    StreamOptions::default()
        .with_detect(detect)
        .with_batch_size(size)
}

fn fail(e: StreamError) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// Streams `input` in batches of `size` and checks octets, records and diagnostics against `parse_with`.
fn same_as_whole(input: &[u8], size: usize, detect: DetectOptions) -> Result<(), TestCaseError> {
    let whole = parse_with(input, &ParseOptions { detect, threads: 1 });
    let options = StreamOptions::default()
        .with_detect(detect)
        .with_batch_size(size);
    let stream = match RecordStream::new(input, options) {
        Ok(s) => s,
        Err(StreamError::NotGedcom) => {
            prop_assert!(whole.diagnostics().iter().any(|d| d.code == "not-gedcom"));
            return Ok(());
        }
        Err(e) => return Err(TestCaseError::fail(e.to_string())),
    };
    prop_assert_eq!(stream.detection().used, whole.encoding());
    let mut file_wide = FileWide::default();
    let first = RecordStream::new(input, options_for(size, detect)).map_err(fail)?;
    for batch in first {
        file_wide.count(&batch.map_err(fail)?);
    }
    let mut stream = stream;
    let (mut octets, mut children, mut diagnostics) = (Vec::new(), Vec::new(), Vec::new());
    let mut expected_offset = 0u64;
    for batch in &mut stream {
        let mut batch = batch.map_err(|e| TestCaseError::fail(e.to_string()))?;
        file_wide.apply(&mut batch);
        prop_assert_eq!(batch.offset(), expected_offset);
        expected_offset += batch.len() as u64;
        octets.extend(
            batch
                .parse()
                .to_bytes()
                .map_err(|e| TestCaseError::fail(e.to_string()))?,
        );
        children.extend(batch.parse().green().children().map(|c| c.to_owned()));
        diagnostics.extend(batch.diagnostics().iter().map(seen));
    }
    prop_assert_eq!(&octets[..], input);
    let whole_children: Vec<_> = whole.green().children().map(|c| c.to_owned()).collect();
    prop_assert!(children == whole_children, "records differ");
    let mut expected: Vec<Seen> = whole.diagnostics().iter().map(seen).collect();
    if stream.notes_left_out() {
        expected.retain(|d| !WHOLE_BODY_NOTES.contains(&d.0));
    }
    prop_assert_eq!(diagnostics, expected);
    Ok(())
}

/// Lines that exercise the parser: records, nesting, level jumps, malformed lines, trailers, raw octets.
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"0 HEAD".to_vec()),
        Just(b"1 CHAR UTF-8".to_vec()),
        Just(b"1 CHAR ANSEL".to_vec()),
        Just(b"0 @I1@ INDI".to_vec()),
        Just(b"0 @F1@ FAM".to_vec()),
        Just(b"1 NAME Jos\xC3\xA9 /M/".to_vec()),
        Just(b"1 NOTE a".to_vec()),
        Just(b"2 CONC b".to_vec()),
        Just(b"2 CONT".to_vec()),
        Just(b"3 DATE 1900".to_vec()),
        Just(b"5 JUMP".to_vec()),
        Just(b"0 TRLR".to_vec()),
        Just(b"".to_vec()),
        Just(b"  ".to_vec()),
        Just(b"  0 X".to_vec()),
        Just(b"x y".to_vec()),
        Just(b"0".to_vec()),
        Just(b"1 NOTE \xFF\xFE".to_vec()),
        Just(b"1 NOTE @#Dbad".to_vec()),
        Just(b"\x1A".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..6),
    ]
}

fn file() -> impl Strategy<Value = Vec<u8>> {
    let breaks = prop_oneof![Just(&b"\n"[..]), Just(&b"\r\n"[..]), Just(&b"\r"[..])];
    (
        any::<bool>(),
        proptest::collection::vec((line(), breaks), 0..40),
        any::<bool>(),
    )
        .prop_map(|(bom, lines, last_break)| {
            let mut out = Vec::new();
            if bom {
                out.extend_from_slice(b"\xEF\xBB\xBF");
            }
            let n = lines.len();
            for (i, (l, b)) in lines.into_iter().enumerate() {
                out.extend(l);
                if i + 1 < n || last_break {
                    out.extend_from_slice(b);
                }
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    // Invariant 9 (DESIGN.md): for any input and any batch size, the batches give the input's octets, the
    // whole-file parse's records and its diagnostics (code, class, offset, line, column, count).
    #[test]
    fn batches_equal_the_whole_file_parse(input in file(), size in 1usize..200) {
        same_as_whole(&input, size, DetectOptions::default())?;
    }

    #[test]
    fn batches_of_arbitrary_octets_equal_the_whole_file_parse(
        input in proptest::collection::vec(any::<u8>(), 0..300),
        size in 1usize..64,
    ) {
        same_as_whole(&input, size, DetectOptions::default())?;
    }

    /// A batch large enough is parsed in chunks on the cores (`parse_piece_on`): any line soup, cut into 2–5
    /// chunks, gives one parser's children, diagnostics, flags and line-break tally.
    #[test]
    fn a_piece_in_chunks_equals_one_parser(input in file(), later in any::<bool>(), chunks in 2usize..6) {
        let text = String::from_utf8_lossy(&input);
        let one = crate::parser::parse_piece_on(&text, Encoding::Utf8, later, 1);
        let many = crate::parser::parse_piece_on(&text, Encoding::Utf8, later, chunks);
        prop_assert_eq!(
            crate::parser::piece_summary(many),
            crate::parser::piece_summary(one)
        );
    }

    /// UTF-16 with and without a byte-order mark, either order, with a lone surrogate or an odd last octet.
    #[test]
    fn batches_in_utf16_equal_the_whole_file_parse(
        input in file(),
        size in 1usize..200,
        (big_endian, bom) in (any::<bool>(), any::<bool>()),
        junk in prop_oneof![Just(&[][..]), Just(&[0x00, 0xD8][..]), Just(&[0xD8, 0x00][..]), Just(&[0x41][..])],
    ) {
        let mut input = utf16(&input, big_endian, bom);
        let at = (input.len() / 2).min(40) & !1;
        input.splice(at..at, junk.iter().copied());
        same_as_whole(&input, size, DetectOptions::default())?;
    }

    /// A stream resumed at a batch ([`RecordStream::resume`]) gives that batch and the ones after it as the
    /// first stream did: octets, offsets, lines, records, diagnostics, runs across cuts; any batch whose first
    /// diagnostic does not go on a run of an earlier one (UTF-8, UTF-16 and a forced 8-bit encoding).
    #[test]
    fn a_stream_resumed_at_a_batch_gives_the_batches_from_there(
        input in file(),
        size in 1usize..100,
        encoding in 0..3,
    ) {
        let (input, detect) = match encoding {
            0 => (input, DetectOptions::default()),
            1 => (utf16(&input, false, true), DetectOptions::default()),
            _ => (input, DetectOptions { force: Some(Encoding::Ansel), default_encoding: None }),
        };
        let options = options_for(size, detect).with_exact_notes(false);
        let Ok(stream) = RecordStream::new(&input[..], options.clone()) else {
            return Ok(());
        };
        let detection = stream.detection().clone();
        let shown = |batch: &Batch| -> Result<_, TestCaseError> {
            let octets = batch.parse().to_bytes().map_err(|e| TestCaseError::fail(e.to_string()))?;
            let run = batch.run_goes_on().map(|(d, n)| (seen(d), n));
            let diagnostics: Vec<Seen> = batch.diagnostics().iter().map(seen).collect();
            Ok((octets, batch.offset(), batch.first_line(), batch.parse().dialect(), run, diagnostics))
        };
        let batches: Vec<Batch> = stream.collect::<Result<_, _>>().map_err(fail)?;
        let all = batches.iter().map(shown).collect::<Result<Vec<_>, _>>()?;
        for (k, batch) in batches.iter().enumerate() {
            if batch.continued_run().is_some() {
                continue;
            }
            let at = batch.resume_point();
            prop_assert_eq!(at.batch(), k as u64);
            let rest = &input[usize::try_from(at.offset()).unwrap_or(usize::MAX)..];
            let resumed = RecordStream::resume(rest, options.clone(), detection.clone(), at);
            let resumed: Vec<Batch> = resumed.collect::<Result<_, _>>().map_err(fail)?;
            let resumed = resumed.iter().map(shown).collect::<Result<Vec<_>, _>>()?;
            prop_assert_eq!(&resumed[..], &all[k..], "resumed at batch {}", k);
        }
    }

    #[test]
    fn batches_in_a_forced_8_bit_encoding_equal_the_whole_file_parse(input in file(), size in 1usize..100) {
        for force in [Encoding::Ansel, Encoding::Windows1252, Encoding::Ascii] {
            let detect = DetectOptions { force: Some(force), default_encoding: None };
            same_as_whole(&input, size, detect)?;
        }
    }
}

/// The spec's minimal file, streamed a record at a time: the header first, then each record, then the trailer;
/// records after it are read on (2019 R-TAGGED-STRUCTS-03), in batches (#12: an export appended to another
/// streams), with `record-after-trailer` on the first; trailing text after a trailer runs to the end.
#[test]
fn header_first_and_records_after_the_trailer_in_batches() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n0 TRLR\n0 @I2@ INDI\n0 TRLR\n";
    let options = StreamOptions::default().with_batch_size(1);
    let batches: Vec<_> = RecordStream::new(&input[..], options.clone())
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    let starts: Vec<_> = batches
        .iter()
        .map(|b| (b.offset(), b.first_line()))
        .collect();
    // A batch never ends with a trailer a record follows (the lowering keeps a non-bare one that is not last).
    assert_eq!(starts, [(0, 1), (20, 3), (32, 4), (51, 6)]);
    let codes: Vec<Vec<_>> = (batches.iter())
        .map(|b| b.diagnostics().iter().map(|d| d.code).collect())
        .collect();
    assert_eq!(codes[2], ["record-after-trailer"]);
    assert!(codes[3].is_empty());
    same_as_whole(input, 1, DetectOptions::default()).unwrap();
    // Junk after a record after the trailer: that batch runs to the end, as the whole file reads it.
    let junk = b"0 HEAD\n0 TRLR\n0 @I2@ INDI\n1 NAME A\n<html>\n0 @I3@ INDI\n0 TRLR\n";
    let batches: Vec<_> = RecordStream::new(&junk[..], options)
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    // (The trailer stays with the record after it: the last batch starts at the trailer.)
    assert_eq!(batches.last().map(|b| b.offset()), Some(7));
    same_as_whole(junk, 1, DetectOptions::default()).unwrap();
    // Consecutive trailers: a run of `record-after-trailer` across cuts is one diagnostic, as in the whole file.
    same_as_whole(
        b"0 HEAD\n0 TRLR\n0 TRLR\n  0 TRLR\n\n0 TRLR\n",
        1,
        DetectOptions::default(),
    )
    .unwrap();
}

/// A level-0 line longer than the stream reads to decide a cut: a record's first line when its payload begins
/// within what is read (the rest cannot make it malformed), else not a cut: a malformed `0 @…` line stays with
/// the left-out run before it (the `stream_lower` fuzz target found the run split in two).
#[test]
fn a_long_level_0_line_is_a_cut_only_when_well_formed() {
    let long = "x".repeat(2 * super::LONGEST_FIRST_LINE);
    let wellformed = format!("0 HEAD\n0 @N1@ NOTE {long}\n0 @N2@ NOTE {long}\n0 TRLR\n");
    let options = StreamOptions::default().with_batch_size(1);
    let offsets = |input: &str| -> Vec<u64> {
        RecordStream::new(input.as_bytes(), options.clone())
            .unwrap()
            .map(|b| b.unwrap().offset())
            .collect()
    };
    assert_eq!(offsets(&wellformed).len(), 4);
    let malformed = format!("0 HEAD\n{}0 @{long}\n0 TRLR\n", "0 @\n".repeat(3));
    let starts = offsets(&malformed);
    // The header's batch runs to the trailer: no cut at the malformed lines, the long one included.
    assert_eq!(starts, [0, (23 + long.len()) as u64]);
    same_as_whole(malformed.as_bytes(), 1, DetectOptions::default()).unwrap();
}

/// A run of one code across a cut is one diagnostic, where it starts, as in a whole-file parse.
#[test]
fn a_run_across_batches_is_one_diagnostic() {
    let input = b"0 HEAD\n0 @I1@ INDI\n\n0 @I2@ INDI\n\n\n0 TRLR\n";
    same_as_whole(input, 1, DetectOptions::default()).unwrap();
}

/// A file whose head is not the whole input: its encoding notes need statistics of the whole body.
fn large(header: &str, last_record: &[u8]) -> Vec<u8> {
    let mut input = format!("0 HEAD\n1 CHAR {header}\n").into_bytes();
    for i in 0..5000 {
        input.extend(format!("0 @I{i}@ INDI\n1 NAME Ann /Smith/\n").bytes());
    }
    input.extend_from_slice(last_record);
    input.extend_from_slice(b"0 TRLR\n");
    input
}

#[test]
fn exact_notes_refuse_what_needs_the_whole_body() {
    let latin1 = large("UTF-8", b"0 @I1@ INDI\n1 NAME M\xFCller\n");
    let options = StreamOptions::default()
        .with_exact_notes(true)
        .with_batch_size(1000);
    let results: Vec<_> = RecordStream::new(&latin1[..], options).unwrap().collect();
    assert!(matches!(
        results.last(),
        Some(Err(StreamError::NeedsWholeFile))
    ));
    let ansel = large("ANSEL", b"");
    let options = StreamOptions::default().with_exact_notes(true);
    assert!(matches!(
        RecordStream::new(&ansel[..], options),
        Err(StreamError::NeedsWholeFile)
    ));
    // Without exact notes both stream, with the whole file's octets and every other diagnostic.
    same_as_whole(&latin1, 1000, DetectOptions::default()).unwrap();
    same_as_whole(&ansel, 1000, DetectOptions::default()).unwrap();
}

/// Large inputs (the head is not the whole input) in batches of several sizes.
#[test]
fn large_inputs_equal_the_whole_file_parse() {
    let input = large("UTF-8", b"0 @I1@ INDI\n\n\n1 NAME x\n\n");
    for size in [1, 100, 4096, 100_000, 1 << 20] {
        same_as_whole(&input, size, DetectOptions::default()).unwrap();
    }
}

/// UTF-16 streams too: the cuts are at level-0 lines of the text, the lines counted in the text (R-LINES-01:
/// a line break is a code unit `000A` or `000D` there, not the octet).
#[test]
fn utf16_is_cut_at_its_level_0_lines() {
    let text =
        "0 HEAD\n1 CHAR UNICODE\n0 @I1@ INDI\n1 NAME \u{0A0D}\u{0D0A}\n0 @I2@ INDI\r\n0 TRLR\n";
    for big_endian in [false, true] {
        let input = utf16(text.as_bytes(), big_endian, true);
        let stream = RecordStream::new(&input[..], StreamOptions::default().with_batch_size(1));
        let batches: Vec<Batch> = stream
            .expect("streams")
            .map(|b| b.expect("a batch"))
            .collect();
        let at: Vec<(u64, u64)> = batches
            .iter()
            .map(|b| (b.offset(), b.first_line()))
            .collect();
        // U+0A0D and U+0D0A hold the octets of line breaks and are none: the mark and 22 units, 22, 13.
        assert_eq!(
            at,
            [(0, 1), (46, 3), (90, 5), (116, 6)],
            "big endian: {big_endian}"
        );
        for size in [1, 7, 64, 4096] {
            same_as_whole(&input, size, DetectOptions::default()).expect("the whole file's parse");
        }
    }
}

/// A `cargo fuzz` find (`stream_whole`): read as UTF-16BE, the file's first minority line break is the unit
/// `00 0A` whose NUL octet the detection notes (`nul-octet`, at the same offset): the stream put its
/// `mixed-line-breaks` after the note, the whole-file parse before it.
#[test]
fn mixed_line_breaks_come_before_an_encoding_note_at_the_same_offset() {
    let input = b"\x34\x09\x00\x0A\xE0\xFF\xD2\xD6\x8C\x02\xEF\xFF\xFF\x0D\x00\x0D\x00\x37\x00\x0D\x00\xFF\xFF\xFF\
                  \x00\x02\xEF\xFF\xFF\x0D\x00\x0D\x00\x37\x00\x0D\x00\xFF\xFF\xFF\xFF\xFE\xFF";
    let detect = DetectOptions {
        force: Some(Encoding::Utf16Be),
        default_encoding: None,
    };
    for size in [1, 53, 4096] {
        same_as_whole(input, size, detect).expect("the whole file's parse");
    }
}

/// The UTF-16 cut search reads a window after its target and doubles it: on text of lines of random length
/// (up to twice the first window, CR LF, LF and CR breaks, `0 `, `0\t`, `0` and `00` line starts), every
/// target finds the start a search over the whole narrowed text finds, in both orders.
#[test]
fn the_utf16_cut_search_finds_what_a_search_of_everything_finds() {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut text = String::new();
    while text.len() < 40_000 {
        let start = ["0 ", "0\t", "0", "00", "1 ", "é"][next(6) as usize];
        let len = if next(8) == 0 { next(9000) } else { next(40) };
        text.push_str(start);
        text.extend((0..len).map(|i| if i % 7 == 3 { 'ü' } else { 'x' }));
        text.push_str(["\r\n", "\n", "\r"][next(3) as usize]);
    }
    let narrow: Vec<u8> = text
        .chars()
        .map(|c| if c.is_ascii() { c as u8 } else { 0xFF })
        .collect();
    for big_endian in [false, true] {
        let octets = utf16(text.as_bytes(), big_endian, false);
        for target in (0..octets.len() + 3).step_by(61) {
            let whole = crate::parser::starts_near(&narrow, &[target.div_ceil(2)])
                .get(1)
                .map(|s| s * 2);
            let found = crate::parser::next_start_utf16(&octets, target, big_endian);
            assert_eq!(found, whole, "target {target}, big endian {big_endian}");
        }
    }
}

/// The header's batch holds the file's first record even after a byte-order mark and blank lines (a user's
/// find: the header was cut into the second batch and lowered as a record).
#[test]
fn the_first_batch_holds_the_first_record_after_blank_lines() {
    let text = "0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n0 TRLR\n";
    for before in ["\u{FEFF}\n", "\u{FEFF}", "\n\r\n \t\n", ""] {
        let input = format!("{before}{text}");
        let utf8 = input.as_bytes().to_vec();
        for (octets, name) in [
            (utf8, "UTF-8"),
            (utf16(input.as_bytes(), false, false), "UTF-16LE"),
        ] {
            let options = StreamOptions::default().with_batch_size(1);
            let first = RecordStream::new(&octets[..], options)
                .expect("streams")
                .next()
                .expect("a batch")
                .expect("read");
            let heads = first
                .parse()
                .green()
                .children()
                .filter(|c| c.to_string().contains("HEAD"))
                .count();
            assert_eq!(heads, 1, "{name} after {before:?}");
            for size in [1, 30, 4096] {
                same_as_whole(&octets, size, DetectOptions::default())
                    .expect("the whole file's parse");
            }
        }
    }
}

/// `input` (lossily UTF-8) in UTF-16, with a byte-order mark if `bom`.
fn utf16(input: &[u8], big_endian: bool, bom: bool) -> Vec<u8> {
    let text = String::from_utf8_lossy(input);
    let units = bom.then_some(0xFEFF).into_iter().chain(text.encode_utf16());
    units
        .flat_map(|u| match big_endian {
            true => u.to_be_bytes(),
            false => u.to_le_bytes(),
        })
        .collect()
}

/// A proptest find: blank lines on either side of an LF CR gap are one run in both parses.
#[test]
fn blank_lines_around_an_lf_cr_gap_are_one_run() {
    let input = b"0 HEAD\n\r0 @I1@ INDI\n\n\r\r\n";
    for size in [1, 8, 200] {
        same_as_whole(input, size, DetectOptions::default()).expect("same as the whole-file parse");
    }
}

/// A proptest find: a run of one code goes on across a batch cut and an LF CR gap.
#[test]
fn a_run_goes_on_across_a_cut_and_an_lf_cr_gap() {
    let input = b"0 HEAD\n0 HEAD\n\r0 HEAD";
    for size in [1, 8, 200] {
        same_as_whole(input, size, DetectOptions::default()).expect("same as the whole-file parse");
    }
}
