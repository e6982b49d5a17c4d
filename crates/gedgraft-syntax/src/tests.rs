//! Parser tests on small inputs: placement of lines, diagnostics and byte-exact round trips.

use crate::ast::{AstNode, AstToken};
use crate::{codes, dump, parse, Class, SyntaxKind};

fn codes_of(input: &[u8]) -> Vec<&'static str> {
    parse(input).diagnostics().iter().map(|d| d.code).collect()
}

fn round_trips(input: &[u8]) {
    let p = parse(input);
    assert_eq!(
        p.to_bytes().unwrap(),
        input,
        "round trip of {:?}",
        String::from_utf8_lossy(input)
    );
    assert_eq!(p.text().len(), p.source_map().text_len());
}

#[test]
fn clean_file_has_no_diagnostics() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Elizabeth\n1 BIRT\n2 DATE 21 APR 1926\n0 TRLR\n";
    assert_eq!(codes_of(input), Vec::<&str>::new());
    round_trips(input);
}

#[test]
fn r_first_pass_03_structures_nest_by_level() {
    let p = parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Elizabeth\n1 BIRT\n2 DATE 21 APR 1926\n0 TRLR\n");
    let indi = p.document().record_by_xref("I1").unwrap();
    let subs: Vec<String> = indi
        .substructures()
        .map(|s| s.tag().unwrap().text().to_string())
        .collect();
    assert_eq!(subs, ["NAME", "BIRT"]);
    let birt = indi.substructures().nth(1).unwrap();
    assert_eq!(
        birt.substructures()
            .next()
            .unwrap()
            .payload()
            .unwrap()
            .raw_text(),
        "21 APR 1926"
    );
}

#[test]
fn r_line_cont_01_continuation_lines_join_their_structure() {
    let p = parse(b"0 HEAD\n0 NOTE a\n1 CONC b\n1 CONT c\n1 SOUR @S1@\n0 TRLR\n");
    let note = p.document().records().nth(1).unwrap();
    assert_eq!(note.continuation_lines().count(), 2);
    assert_eq!(note.substructures().count(), 1);
    assert!(p.diagnostics().is_empty(), "{:?}", p.diagnostics());
}

#[test]
fn misplaced_continuations_are_reported() {
    assert_eq!(
        codes_of(b"0 HEAD\n0 NOTE a\n1 SOUR x\n1 CONC b\n0 TRLR\n"),
        [codes::MISPLACED_CONTINUATION]
    );
    assert_eq!(
        codes_of(b"0 HEAD\n0 CONT a\n0 TRLR\n"),
        [codes::CONTINUATION_AT_LEVEL_0]
    );
    assert_eq!(
        codes_of(b"0 HEAD\n0 NOTE a\n1 @X@ CONC b\n0 TRLR\n"),
        [codes::CONTINUATION_WITH_XREF]
    );
    assert_eq!(
        codes_of(b"0 HEAD\n0 NOTE a\n1 CONC b\n2 DATE x\n0 TRLR\n"),
        [codes::CONTINUATION_WITH_SUBSTRUCTURES]
    );
}

/// R-LINES-03 sets no upper limit, but a level past `MAX_LEVEL` cannot be valid (R-LINES-04 in a 32-bit tree):
/// one `level-out-of-range` error quoting the level as written, the line kept as an `ERROR` node that neither
/// nests nor sets the previous level, and no saturated number anywhere.
#[test]
fn r_lines_03_out_of_range_level_is_one_clear_error() {
    // Not neighbours: a run of one code on neighbouring lines is one diagnostic with a count.
    let input = "0 HEAD\n0 @I1@ INDI\n1 NAME A\n4294967296 Y\n1 SEX M\n99999999999999999999 NOTE x\n2 DATE 1\n0 TRLR\n";
    let p = parse(input.as_bytes());
    let codes_seen: Vec<(&str, usize)> = p
        .diagnostics()
        .iter()
        .map(|d| (d.code, d.location.line))
        .collect();
    assert_eq!(
        codes_seen,
        [
            (codes::LEVEL_OUT_OF_RANGE, 4),
            (codes::LEVEL_OUT_OF_RANGE, 6)
        ]
    );
    let messages: Vec<&str> = p.diagnostics().iter().map(|d| d.message.as_str()).collect();
    assert!(messages[0].contains("`4294967296`"), "{messages:?}");
    assert!(
        messages[1].contains("`99999999999999999999`"),
        "{messages:?}"
    );
    assert!(!messages.iter().any(|m| m.contains("18446744073709551615")));
    assert_eq!(p.diagnostics()[0].class, Class::MalformedLine);
    // Each bad line is an error inside the structure before it; `2 DATE` still nests under `1 SEX`.
    let subs: Vec<_> = p
        .document()
        .record_by_xref("I1")
        .unwrap()
        .substructures()
        .collect();
    let tags: Vec<String> = subs
        .iter()
        .map(|s| s.tag().unwrap().text().to_string())
        .collect();
    assert_eq!(tags, ["NAME", "SEX"]);
    for s in &subs {
        let errors = s
            .syntax()
            .children()
            .filter(|n| n.kind() == SyntaxKind::Error)
            .count();
        assert_eq!(errors, 1, "{}", s.syntax());
    }
    assert_eq!(
        subs[1]
            .substructures()
            .next()
            .unwrap()
            .tag()
            .unwrap()
            .text(),
        "DATE"
    );
    round_trips(input.as_bytes());
    // The largest level in range is a level (here a jump), not out of range.
    let p = parse(format!("0 HEAD\n{} X\n0 TRLR\n", crate::MAX_LEVEL).as_bytes());
    let codes_seen: Vec<&str> = p.diagnostics().iter().map(|d| d.code).collect();
    assert_eq!(codes_seen, [codes::LEVEL_JUMP]);
    assert!(p.diagnostics()[0]
        .message
        .contains("level 4294967295 follows level 0"));
}

#[test]
fn r_lines_04_level_jump_keeps_its_level_and_nests_under_deepest() {
    let input =
        "0 HEAD\n0 @I1@ INDI\n2 PLAC Москва\n3 ROMN Moscow\n1 NAME Иван Васильевич\n0 TRLR\n";
    let p = parse(input.as_bytes());
    let jumps: Vec<_> = p
        .diagnostics()
        .iter()
        .filter(|d| d.code == codes::LEVEL_JUMP)
        .collect();
    assert_eq!(jumps.len(), 1);
    assert_eq!(jumps[0].location.line, 3);
    assert_eq!(jumps[0].class, Class::MalformedLine);
    let indi = p.document().record_by_xref("I1").unwrap();
    let plac = indi.substructures().next().unwrap();
    assert_eq!(plac.level().unwrap().value(), 2);
    assert_eq!(
        plac.substructures().next().unwrap().tag().unwrap().text(),
        "ROMN"
    );
    round_trips(input.as_bytes());
}

#[test]
fn r_lines_04_trailer_after_deep_cont_is_not_a_jump() {
    assert!(codes_of(b"0 HEAD\n0 INDI\n1 NOTE x\n2 CONT y\n0 TRLR\n").is_empty());
}

#[test]
fn r_specified_enc_06_first_line_must_be_head() {
    for bad in [
        &b"0 @H1@ HEAD\n0 TRLR\n"[..],
        b"0 HEAD x\n0 TRLR\n",
        b"1 HEAD\n0 TRLR\n",
        b"",
    ] {
        assert!(
            codes_of(bad).contains(&codes::FIRST_LINE_NOT_HEAD),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
    let ok = b"\n\n  0  HEAD \n0 TRLR\n";
    assert!(!codes_of(ok).contains(&codes::FIRST_LINE_NOT_HEAD));
    round_trips(ok);
}

#[test]
fn r_tagged_structs_05_trailer_problems() {
    assert!(codes_of(b"0 HEAD\n").contains(&codes::MISSING_TRAILER));
    assert!(codes_of(b"0 HEAD\n0 TRLR x\n").contains(&codes::NON_EMPTY_TRAILER));
    assert!(codes_of(b"0 HEAD\n0 @T@ TRLR\n").contains(&codes::NON_EMPTY_TRAILER));
    assert!(codes_of(b"0 HEAD\n0 TRLR\n1 NOTE x\n").contains(&codes::CONTENT_AFTER_TRAILER));
    assert_eq!(
        codes_of(b"0 HEAD\n0 TRLR\n0 @I1@ INDI\n"),
        [codes::RECORD_AFTER_TRAILER]
    );
    assert_eq!(
        codes_of(b"0 HEAD\n0 TRLR\n\x1a"),
        [codes::JUNK_AFTER_TRAILER]
    );
    // Only a DOS end-of-file mark is let off with a warning (a departure from R-LINES-01, documented in
    // `after_trailer.rs`); NUL padding or binary after the trailer is content (R-TAGGED-STRUCTS-05).
    assert_eq!(
        codes_of(b"0 HEAD\r\n0 TRLR\r\n\r\n\x1a\x1a\x00junk"),
        [codes::JUNK_AFTER_TRAILER]
    );
    assert_eq!(
        codes_of(b"0 HEAD\n0 TRLR\n\x00\x00\x00"),
        [codes::CONTENT_AFTER_TRAILER]
    );
    assert!(codes_of(b"0 HEAD\n0 INDI\n1 TRLR\n0 TRLR\n").contains(&codes::MISPLACED_TRAILER));
    for input in [
        &b"0 HEAD\n0 TRLR\n1 NOTE x\n"[..],
        b"0 HEAD\n0 TRLR\n\x1a",
        b"0 HEAD\n0 TRLR\r\n\r\n",
    ] {
        round_trips(input);
    }
}

/// The dump lines of the document's children: their kinds only.
fn top_kinds(p: &crate::Parse) -> Vec<String> {
    p.syntax()
        .children_with_tokens()
        .map(|e| format!("{:?}", e.kind()))
        .collect()
}

#[test]
fn r_tagged_structs_03_records_after_the_trailer_are_records_and_junk_stays_text() {
    // An export appended to another, then junk a transfer added: the records are records (a malformed file,
    // R-TAGGED-STRUCTS-05: one error on the first record after each trailer); the HTML, the blank line just
    // before it and the ^Z stay trailing text.
    let input = b"0 HEAD\n0 @I1@ INDI\n1 NAME A\n0 TRLR\n\n0 @I9@ INDI\n1 NAME Bob\n0 @F1@ FAM\n1 HUSB @I9@\n0 TRLR\n\
0 HEAD\n0 @I10@ INDI\n0 TRLR\r\n\r\n<html>\n1 NOTE not a record\n\x1a";
    let p = parse(input);
    round_trips(input);
    assert_eq!(
        codes_of(input),
        [
            codes::BLANK_LINE,
            codes::RECORD_AFTER_TRAILER,
            codes::RECORD_AFTER_TRAILER,
            codes::MISPLACED_HEADER,
            // The last trailer's CR LF (and the blank line's) in a file of LFs (R-LINE-STRINGS-01).
            codes::MIXED_LINE_BREAKS,
            codes::CONTENT_AFTER_TRAILER
        ]
    );
    let kinds = top_kinds(&p);
    assert_eq!(
        kinds.iter().filter(|k| *k == "Record").count(),
        9,
        "{kinds:?}"
    );
    assert_eq!(kinds.last().map(String::as_str), Some("TrailingText"));
    let trailing = p
        .syntax()
        .children_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| t.kind() == SyntaxKind::TrailingText)
        .map(|t| t.text().to_string())
        .collect::<String>();
    assert_eq!(trailing, "\r\n<html>\n1 NOTE not a record\n\x1a");
    // Selections reach them.
    let doc = p.document();
    let names: Vec<String> = crate::Selector::parse("INDI.NAME")
        .unwrap()
        .select(&doc)
        .iter()
        .map(|s| s.payload().map(|p| p.raw_text()).unwrap_or_default())
        .collect();
    assert_eq!(names, ["A", "Bob"]);
    assert!(doc.record_by_xref("I10").is_some());
    // The first record after each trailer is the one reported.
    let at: Vec<usize> = p
        .diagnostics()
        .iter()
        .filter(|d| d.code == codes::RECORD_AFTER_TRAILER)
        .map(|d| d.location.line)
        .collect();
    assert_eq!(at, [6, 11]);
}

#[test]
fn after_the_trailer_a_level_1_line_or_html_first_is_trailing_text() {
    for input in [
        &b"0 HEAD\n0 TRLR\n1 NOTE x\n0 @I1@ INDI\n"[..],
        b"0 HEAD\n0 TRLR\n\n<html>\n0 @I1@ INDI\n",
    ] {
        let p = parse(input);
        assert_eq!(codes_of(input), [codes::CONTENT_AFTER_TRAILER]);
        assert_eq!(
            top_kinds(&p).last().map(String::as_str),
            Some("TrailingText")
        );
        assert!(p.document().record_by_xref("I1").is_none());
        round_trips(input);
    }
}

#[test]
fn r_line_strings_06_blank_lines_and_indentation_are_warnings() {
    let input = b"0 HEAD\n\n \t\n  1 CHAR UTF-8\n0 TRLR\n";
    let p = parse(input);
    let found: Vec<_> = p
        .diagnostics()
        .iter()
        .map(|d| (d.code, d.class, d.location.line, d.count, d.last_line))
        .collect();
    // The two blank lines are one run: one diagnostic at the first, counting both.
    assert_eq!(
        found,
        [
            (codes::BLANK_LINE, Class::Warning, 2, 2, 3),
            (codes::LEADING_WHITESPACE, Class::Warning, 4, 1, 4)
        ]
    );
    round_trips(input);
}

#[test]
fn r_line_strings_02_lf_cr_is_two_breaks() {
    let p = parse(b"0 HEAD\n\r1 CHAR UTF-8\n\r0 TRLR\n\r");
    // One warning for the file, counting the three empty lines between LF and CR, instead of three
    // `blank-line` warnings.
    let found: Vec<_> = p
        .diagnostics()
        .iter()
        .map(|d| (d.code, d.location.line, d.count, d.last_line))
        .collect();
    assert_eq!(found, [(codes::LF_CR_LINE_BREAKS, 2, 3, 6)]);
    let breaks = p
        .syntax()
        .descendants_with_tokens()
        .filter(|e| e.kind() == SyntaxKind::LineBreak)
        .count();
    assert_eq!(breaks, 6);
}

/// R-SERIALISING-STRUCTS-10, -11: a `CONC` split next to whitespace is a warning on the `CONC` line (one run
/// for neighbouring ones); the text is read as written (R-LINE-STRINGS-05's example `1 NOTE a␠ ⏎ 2 CONC b`).
#[test]
fn r_serialising_structs_10_11_conc_split_at_whitespace() {
    let found = |input: &str| -> Vec<(&str, usize, u32)> {
        let p = parse(input.as_bytes());
        (p.diagnostics().iter())
            .map(|d| (d.code, d.location.line, d.count))
            .collect()
    };
    let at = codes::CONC_AT_WHITESPACE;
    assert_eq!(found("0 HEAD\n1 NOTE a \n2 CONC b\n0 TRLR\n"), [(at, 3, 1)]);
    assert_eq!(found("0 HEAD\n1 NOTE a\n2 CONC  b\n0 TRLR\n"), [(at, 3, 1)]);
    assert_eq!(
        found("0 HEAD\n1 NOTE a\t\n2 CONT b \n2 CONC c\n0 TRLR\n"),
        [(at, 4, 1)]
    );
    // Two neighbouring splits are one run; a blank line between the lines is no line of the payload.
    let run = "0 HEAD\n1 NOTE a \n2 CONC b \n\n2 CONC c\n0 TRLR\n";
    assert_eq!(found(run)[0], (at, 3, 1));
    assert_eq!(found(run)[2], (at, 5, 1));
    assert_eq!(
        found("0 HEAD\n1 NOTE a \n2 CONC b \n2 CONC c\n0 TRLR\n"),
        [(at, 3, 2)]
    );
    // Not at a split: whitespace before a `CONT` line, inside a line, or the separator of an empty payload.
    for fine in [
        "0 HEAD\n1 NOTE a \n2 CONT b\n0 TRLR\n",
        "0 HEAD\n1 NOTE a b\n2 CONC c d\n0 TRLR\n",
        "0 HEAD\n1 NOTE \n2 CONC b\n0 TRLR\n",
        "0 HEAD\n1 NOTE a \n2 DATE 1900\n0 TRLR\n",
    ] {
        assert_eq!(found(fine), [], "{fine:?}");
    }
}

#[test]
fn r_line_strings_02_lf_cr_in_chunks_is_one_diagnostic() {
    use crate::parser::{chunk_starts, parse_chunks};
    let mut text = String::from("0 HEAD\n\r");
    for i in 0..4 {
        text.push_str(&format!("0 @I{i}@ INDI\n\r"));
        text.push_str(&"1 NOTE a@b\n\r".repeat(50));
    }
    text.push_str("0 TRLR\n\r");
    let one = parse_chunks(&text, gedgraft_encoding::Encoding::Utf8, &[0]);
    let many = parse_chunks(
        &text,
        gedgraft_encoding::Encoding::Utf8,
        &chunk_starts(text.as_bytes(), 4),
    );
    let summary = |d: &[crate::Diagnostic]| -> Vec<(&str, u32)> {
        d.iter().map(|d| (d.code, d.count)).collect()
    };
    assert_eq!(summary(&one.diagnostics), summary(&many.diagnostics));
    // The gaps do not break runs: each record's 50 `a@b` lines, two line numbers apart, are one run.
    let mut expected = vec![(codes::LF_CR_LINE_BREAKS, 206)];
    expected.extend([(codes::UNESCAPED_AT, 50); 4]);
    assert_eq!(summary(&one.diagnostics), expected);
}

#[test]
fn lines_with_findings_are_checked_each_time_they_repeat() {
    // The line cache shares repeated lines; a line with a finding must not be shared, or its repeats would
    // go unreported (runs are broken here by the clean lines between them).
    let mut text = String::from("0 HEAD\n");
    for _ in 0..50 {
        text.push_str("0 @I1@ INDI\n1 EMAIL a@b\n1 NOTE x\u{B}y\n1 SEX M\n");
    }
    text.push_str("0 TRLR\n");
    let p = parse(text.as_bytes());
    let count = |code| p.diagnostics().iter().filter(|d| d.code == code).count();
    assert_eq!(count(codes::UNESCAPED_AT), 50);
    assert_eq!(count(codes::CONTROL_CHARACTER), 50);
}

#[test]
fn malformed_lines_become_error_nodes_with_positions() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n1 N@ME x\n0 TRLR\n";
    let p = parse(input);
    let d = &p.diagnostics()[0];
    assert_eq!(
        (
            d.code,
            d.class,
            d.location.line,
            d.location.column,
            d.location.offset
        ),
        (codes::BAD_TAG, Class::MalformedLine, 3, 4, 23)
    );
    let head = p.document().header().unwrap();
    assert_eq!(head.error_lines().count(), 1);
    round_trips(input);
}

#[test]
fn missing_final_line_break_and_mixed_breaks_round_trip() {
    round_trips(b"0 HEAD\r\n1 CHAR UTF-8\r0 @I1@ INDI\n0 TRLR");
    assert!(codes_of(b"0 HEAD\n0 TRLR").is_empty());
}

#[test]
fn bom_is_a_token_and_round_trips() {
    let input = b"\xEF\xBB\xBF0 HEAD\n0 TRLR\n";
    let p = parse(input);
    assert_eq!(p.syntax().first_token().unwrap().kind(), SyntaxKind::Bom);
    assert!(p.diagnostics().is_empty());
    round_trips(input);
    assert!(dump(&p).contains("BOM@0..3 \"\\ufeff\""));
}

#[test]
fn raw_octets_are_reported_at_their_file_offset() {
    let input = b"0 HEAD\n1 NOTE \xFF\xFEab\n0 TRLR\n";
    let p = parse(input);
    let d = &p.diagnostics()[0];
    assert_eq!(
        (d.code, d.location.offset, d.end_offset, d.location.column),
        (codes::UNDECODABLE_OCTETS, 14, 16, 8)
    );
    assert!(d.message.contains("FF FE"), "{}", d.message);
    round_trips(input);
}

#[test]
fn unterminated_escape_is_non_conformant() {
    let p = parse(b"0 HEAD\n0 NOTE a @# b\n0 TRLR\n");
    assert_eq!(p.diagnostics()[0].code, codes::UNTERMINATED_ESCAPE);
    assert_eq!(p.diagnostics()[0].class, Class::NonConformant);
}

#[test]
fn hundred_thousand_nested_levels_parse_write_and_drop() {
    let mut input = String::from("0 HEAD\n");
    for level in 0..100_000 {
        input.push_str(&format!("{level} _X\n"));
    }
    input.push_str("0 TRLR\n");
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let p = parse(input.as_bytes());
            assert!(p.diagnostics().is_empty());
            assert_eq!(p.to_bytes().unwrap(), input.as_bytes());
            let deepest = p
                .syntax()
                .descendants()
                .filter(|n| n.kind() == SyntaxKind::Structure)
                .count();
            assert_eq!(deepest, 99_999);
            assert_eq!(p.text(), input);
            drop(p);
        })
        .unwrap();
    handle.join().unwrap();
}

#[test]
fn typed_views_reject_other_kinds() {
    let p = parse(b"0 HEAD\n0 TRLR\n");
    let root = p.syntax();
    assert!(crate::ast::Structure::cast(root.clone()).is_none());
    assert!(crate::ast::Document::cast(root).is_some());
}

#[test]
fn chunked_parse_builds_the_same_tree_as_one_pass() {
    use crate::parser::{chunk_starts, parse_chunks, parse_chunks_on, work_starts};
    let mut text = String::from("\u{FEFF}0 HEAD\r\n1 CHAR UTF-8\n");
    for i in 0..400 {
        text.push_str(&format!(
            "0 @I{i}@ INDI\n1 NAME N{i}\n\n1 NOTE a\n2 CONC b\n2 CONT c\n"
        ));
        if i % 7 == 0 {
            text.push_str("1 N@ME bad\n  2 DATE x\n0 CONT y\n3 JUMP\n");
        }
        if i % 11 == 0 {
            text.push_str("0 @F1@ FAM\r1 CHIL @I1@\r\n");
        }
    }
    let endings = [
        "0 TRLR\n",
        "0 TRLR\n0 @X@ INDI\n1 NAME after\n",
        "0 TRLR\n0 @X@ INDI\n1 NAME after\n\n<html>\n0 @Y@ INDI\n\x1a",
        "",
        "0 TRLR\n\x1a",
    ];
    for ending in endings {
        let whole = format!("{text}{ending}");
        let one = parse_chunks(&whole, gedgraft_encoding::Encoding::Utf8, &[0]);
        for n in [2, 3, 7] {
            let starts = chunk_starts(whole.as_bytes(), n);
            assert_eq!(starts.len(), n, "{n} chunks");
            let many = parse_chunks(&whole, gedgraft_encoding::Encoding::Utf8, &starts);
            assert_eq!(usize::from(one.green.text_len()), whole.len());
            assert_eq!(
                usize::from(many.green.text_len()),
                whole.len(),
                "{n} chunks, ending {ending:?}"
            );
            assert_eq!(many.green, one.green, "{n} chunks, ending {ending:?}");
            assert_eq!(many.diagnostics, one.diagnostics);
        }
    }
    // More chunks than threads, as large files are parsed: threads take chunks from a queue.
    let whole = format!("{text}0 TRLR\n");
    let one = parse_chunks(&whole, gedgraft_encoding::Encoding::Utf8, &[0]);
    for workers in [2, 3] {
        let starts = work_starts(whole.as_bytes(), workers);
        assert_eq!(starts.len(), 3 * workers, "{workers} workers");
        assert!(starts.windows(2).all(|w| w[0] < w[1]));
        assert!(starts[1..].iter().all(|&s| whole[s..].starts_with("0 ")));
        let many = parse_chunks_on(&whole, gedgraft_encoding::Encoding::Utf8, &starts, workers);
        assert_eq!(many.green, one.green, "{workers} workers");
        assert_eq!(many.diagnostics, one.diagnostics);
    }
    // A trailer inside an early chunk: later chunks are records after the trailer, then (in the second case)
    // trailing text from the HTML on, exactly as in one pass (R-TAGGED-STRUCTS-03).
    for junk in ["", "<html>\n0 @Z@ INDI\n"] {
        let records = text.trim_start_matches('\u{FEFF}');
        let early = format!("0 HEAD\n0 TRLR\n{records}{junk}");
        let one = parse_chunks(&early, gedgraft_encoding::Encoding::Utf8, &[0]);
        assert_eq!(usize::from(one.green.text_len()), early.len());
        let many = parse_chunks(
            &early,
            gedgraft_encoding::Encoding::Utf8,
            &chunk_starts(early.as_bytes(), 4),
        );
        assert_eq!(many.green, one.green);
        assert_eq!(many.diagnostics, one.diagnostics);
        assert!(one
            .diagnostics
            .iter()
            .any(|d| d.code == codes::RECORD_AFTER_TRAILER));
    }
}

/// A run of one code on neighbouring lines is one diagnostic, also where chunk cuts fall inside the run (every
/// `0 CONT` line here may start a chunk): the parallel parse joins it as one pass does.
#[test]
fn runs_of_one_code_are_one_diagnostic_across_chunk_cuts() {
    use crate::parser::{chunk_starts, parse_chunks};
    let mut text = String::from("0 HEAD\n");
    for i in 0..200 {
        text.push_str(&"0 CONT y\n".repeat(1 + i % 5));
        text.push_str(&"\n".repeat(i % 3));
        text.push_str("0 NOTE x\n");
    }
    text.push_str("0 TRLR\n");
    let one = parse_chunks(&text, gedgraft_encoding::Encoding::Utf8, &[0]);
    let conts: u32 = one
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::CONTINUATION_AT_LEVEL_0)
        .map(|d| d.count)
        .sum();
    assert_eq!(conts, (0..200).map(|i| 1 + i % 5).sum::<u32>());
    assert_eq!(
        one.diagnostics.len(),
        200 + (0..200).filter(|i| i % 3 != 0).count(),
        "one per run of `0 CONT` lines, one per run of blank lines"
    );
    for n in [2, 3, 7, 50] {
        let many = parse_chunks(
            &text,
            gedgraft_encoding::Encoding::Utf8,
            &chunk_starts(text.as_bytes(), n),
        );
        assert_eq!(many.diagnostics, one.diagnostics, "{n} chunks");
    }
    let located = parse(text.as_bytes());
    let first = &located.diagnostics()[0];
    assert_eq!(
        (first.location.line, first.count, first.last_line),
        (2, 1, 2)
    );
    let second = &located.diagnostics()[1];
    assert_eq!(
        (second.location.line, second.count, second.last_line),
        (4, 2, 5)
    );
    assert_eq!(
        second.run_note().as_deref(),
        Some("and 1 more like this on lines 4\u{2013}5")
    );
}

#[test]
fn parse_results_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<crate::Parse>();
    let p = parse(b"0 HEAD\n0 TRLR\n");
    let handle = std::thread::spawn(move || p.to_bytes().unwrap());
    assert_eq!(handle.join().unwrap(), b"0 HEAD\n0 TRLR\n");
}

#[test]
fn r_ansel_02_irreversible_ansel_octets_are_not_reported_as_undecodable() {
    use crate::encoding::{DetectOptions, Encoding};
    let options = crate::ParseOptions {
        detect: DetectOptions {
            force: Some(Encoding::Ansel),
            ..DetectOptions::default()
        },
        threads: 1,
    };
    let input = b"0 HEAD\n1 CHAR ANSEL\n0 NOTE \xF8c \xCD \xCE\n0 TRLR\n";
    let p = crate::parse_with(input, &options);
    assert!(p.diagnostics().is_empty(), "{:?}", p.diagnostics());
    assert_eq!(p.to_bytes().unwrap(), input);
    // An octet with no ANSEL meaning at all is still reported.
    let bad = b"0 HEAD\n1 CHAR ANSEL\n0 NOTE \xFF\n0 TRLR\n";
    assert_eq!(codes_of_with(bad, &options), [codes::UNDECODABLE_OCTETS]);
}

fn codes_of_with(input: &[u8], options: &crate::ParseOptions) -> Vec<&'static str> {
    crate::parse_with(input, options)
        .diagnostics()
        .iter()
        .map(|d| d.code)
        .collect()
}

/// The nodes of the structures tagged `tag`, in document order.
fn structures_tagged(p: &crate::Parse, tag: &str) -> Vec<crate::SyntaxNode> {
    p.syntax()
        .descendants()
        .filter(|n| {
            crate::ast::Structure::cast(n.clone())
                .and_then(|s| s.tag())
                .is_some_and(|t| t.text() == tag)
        })
        .collect()
}

#[test]
fn repeated_leaf_lines_share_one_green_node() {
    let input =
        b"0 HEAD\n0 @I1@ INDI\n1 SEX M\n1 FAMC @F1@\n0 @I2@ INDI\n1 SEX M\n1 FAMC @F1@\n0 TRLR\n";
    let p = parse(input);
    assert!(p.diagnostics().is_empty());
    round_trips(input);
    for tag in ["SEX", "FAMC"] {
        let nodes = structures_tagged(&p, tag);
        assert_eq!(nodes.len(), 2);
        assert!(std::ptr::eq(nodes[0].green(), nodes[1].green()), "{tag}");
        assert_ne!(nodes[0].text_range(), nodes[1].text_range());
    }
}

#[test]
fn a_cached_leaf_line_that_gets_children_builds_its_own_node() {
    // The second `1 FAMC @F1@` has a continuation (a pointer cannot be continued) and the third a substructure:
    // neither may be the shared leaf, and the continuation must still be reported.
    // (A line is looked up before the structure above it closes: `1 SEX M` lets the first FAMC go into the cache.)
    let input = b"0 HEAD\n0 @I1@ INDI\n1 FAMC @F1@\n1 SEX M\n1 FAMC @F1@\n2 CONC x\n1 FAMC @F1@\n2 PEDI birth\n0 TRLR\n";
    let p = parse(input);
    round_trips(input);
    assert_eq!(codes_of(input), [codes::CONTINUATION_OF_POINTER]);
    let famc = structures_tagged(&p, "FAMC");
    assert_eq!(famc.len(), 3);
    let children = |n: &crate::SyntaxNode| n.children().count();
    assert_eq!(famc.iter().map(children).collect::<Vec<_>>(), [0, 1, 1]);
    assert!(!std::ptr::eq(famc[0].green(), famc[1].green()));
    assert_eq!(famc[1].text(), "1 FAMC @F1@\n2 CONC x\n");
    assert_eq!(famc[2].text(), "1 FAMC @F1@\n2 PEDI birth\n");
}

#[test]
fn r_lines_04_a_cached_leaf_line_still_reports_its_level_jump() {
    let input = b"0 HEAD\n0 @I1@ INDI\n1 BIRT\n2 DATE 1900\n0 @I2@ INDI\n2 DATE 1900\n0 @I3@ INDI\n2 DATE 1900\n0 TRLR\n";
    let jumps = codes_of(input)
        .into_iter()
        .filter(|&c| c == codes::LEVEL_JUMP)
        .count();
    assert_eq!(jumps, 2);
    round_trips(input);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// Sharing leaf nodes changes nothing but memory: line soup full of repeats (leaves, lines that later get
    /// children or continuations, pointers, level jumps, escapes, blank and indented lines, CR/LF mixes) parses
    /// to the same tree and diagnostics as a parse that shares no leaf.
    #[test]
    fn leaf_sharing_builds_the_same_tree_and_diagnostics(
        lines in proptest::collection::vec(0usize..LEAF_SOUP.len(), 1..120),
        breaks in proptest::collection::vec(0usize..4, 120),
    ) {
        let mut text = String::from("0 HEAD\n");
        for (i, &l) in lines.iter().enumerate() {
            text.push_str(LEAF_SOUP[l]);
            text.push_str(["\n", "\r\n", "\r", "\n"][breaks[i]]);
        }
        let shared = crate::parser::parse_chunks(&text, gedgraft_encoding::Encoding::Utf8, &[0]);
        let unshared = crate::parser::parse_unshared(&text, gedgraft_encoding::Encoding::Utf8);
        proptest::prop_assert_eq!(&shared.green, &unshared.green);
        proptest::prop_assert_eq!(shared.diagnostics, unshared.diagnostics);
        proptest::prop_assert_eq!(usize::from(shared.green.text_len()), text.len());
    }

    /// A text parsed in chunks (as a large file is, on the cores) gives one pass's tree and diagnostics, LF CR
    /// gaps and runs of one code across the cuts included.
    #[test]
    fn chunks_give_one_pass_s_tree_and_diagnostics(
        lines in proptest::collection::vec(0usize..LEAF_SOUP.len(), 1..120),
        breaks in proptest::collection::vec(0usize..5, 120),
        chunks in 2usize..6,
    ) {
        let mut text = String::from("0 HEAD\n");
        for (i, &l) in lines.iter().enumerate() {
            text.push_str(LEAF_SOUP[l]);
            text.push_str(["\n", "\r\n", "\r", "\n", "\n\r"][breaks[i]]);
        }
        let encoding = gedgraft_encoding::Encoding::Utf8;
        let one = crate::parser::parse_chunks(&text, encoding, &[0]);
        let starts = crate::parser::chunk_starts(text.as_bytes(), chunks);
        let many = crate::parser::parse_chunks(&text, encoding, &starts);
        proptest::prop_assert_eq!(&many.green, &one.green);
        proptest::prop_assert_eq!(many.diagnostics, one.diagnostics);
    }
}

/// Lines for [`leaf_sharing_builds_the_same_tree_and_diagnostics`], mostly repeats of each other at several levels.
const LEAF_SOUP: &[&str] = &[
    "0 @I1@ INDI",
    "0 @I1@ INDI",
    "1 SEX M",
    "1 SEX M",
    "2 SEX M",
    "1 FAMC @F1@",
    "2 FAMC @F1@",
    "2 CONC more",
    "2 CONT more",
    "3 CONC more",
    "1 NOTE a@@b",
    "1 NOTE @#Zbad@",
    "1 NOTE @#unterminated",
    "2 DATE 1900",
    "3 DATE 1900",
    "  1 SEX M",
    "1 SEX M ",
    "",
    "1 N@ME x",
    "0 TRLR",
    "1 HEAD",
    "1 TRLR",
    "10 DEEP x",
];

#[test]
fn utf8_pieces_give_the_tree_and_diagnostics_of_one_pass_or_step_aside() {
    use crate::parser::{parse_chunks, parse_utf8_pieces};
    let mut text = String::from("0 HEAD\r\n1 CHAR UTF-8\n");
    for i in 0..300 {
        text.push_str(&format!(
            "0 @I{i}@ INDI\n1 NAME Zoë {i}\n\n1 NOTE a@@b\n2 CONC b\n1 SEX M\n"
        ));
        if i % 7 == 0 {
            text.push_str("1 N@ME bad\n  2 DATE x\n0 CONT y\n3 JUMP\n");
        }
    }
    for ending in [
        "0 TRLR\n",
        "",
        "0 TRLR\n\x1a",
        "0 TRLR\n1 LATE x\n",
        "0 TRLR\n0 @L@ INDI\n1 LATE x\n<p>\n",
    ] {
        let whole = format!("{text}{ending}");
        let one = parse_chunks(&whole, gedgraft_encoding::Encoding::Utf8, &[0]);
        for n in [2, 3, 7] {
            let pieces = parse_utf8_pieces(whole.as_bytes(), n).expect("usable pieces");
            assert_eq!(pieces.green, one.green, "{n} pieces, ending {ending:?}");
            assert_eq!(pieces.diagnostics, one.diagnostics, "{n} pieces");
        }
    }
    // A trailer before the last piece: its trailing text would cross pieces, so the caller must decode the
    // whole file; the same for invalid UTF-8 or raw-range characters in any piece.
    let early = format!("0 HEAD\n0 TRLR\n{text}");
    assert!(parse_utf8_pieces(early.as_bytes(), 4).is_none());
    let mut invalid = text.clone().into_bytes();
    invalid.extend_from_slice(b"0 NOTE \xFF\n0 TRLR\n");
    assert!(parse_utf8_pieces(&invalid, 3).is_none());
    let raw = format!(
        "{text}0 NOTE {}\n0 TRLR\n",
        gedgraft_encoding::raw::to_char(0xFF)
    );
    assert!(parse_utf8_pieces(raw.as_bytes(), 3).is_none());
}

#[test]
fn a_large_utf8_file_parsed_in_pieces_matches_one_thread_with_file_locations() {
    // Over twice the per-thread minimum, so two threads take the chunks from a queue; a diagnostic in the first
    // half and one in a small chunk at the end. With a byte-order mark the file is decoded whole and the
    // decoded text is chunked instead of the octets.
    for (line_break, bom) in [("\n", ""), ("\r\n", ""), ("\r", ""), ("\n", "\u{FEFF}")] {
        let record = "0 @I1@ INDI\n1 NAME Zoë /Łukasz/\n1 BIRT\n2 DATE 1 JAN 1900\n2 PLAC Kraków\n"
            .replace('\n', line_break);
        let mut text = format!("{bom}0 HEAD{line_break}1 CHAR UTF-8{line_break}");
        let half = (9 << 20) / 2;
        while text.len() < half {
            text.push_str(&record);
        }
        text.push_str(&format!("4 JUMP{line_break}"));
        while text.len() < 2 * half {
            text.push_str(&record);
        }
        text.push_str(&format!("  1 INDENTED x{line_break}0 TRLR{line_break}"));
        let options = |threads| crate::ParseOptions {
            threads,
            ..Default::default()
        };
        let pieces = crate::parse_with(text.as_bytes(), &options(2));
        let one = crate::parse_with(text.as_bytes(), &options(1));
        assert_eq!(pieces.green(), one.green(), "{line_break:?} {bom:?}");
        assert_eq!(pieces.diagnostics(), one.diagnostics());
        let lines: Vec<usize> = pieces
            .diagnostics()
            .iter()
            .map(|d| d.location.line)
            .collect();
        let lines_before = |at: usize| text[..at].matches(line_break).count();
        let jump_line = lines_before(text.find("4 JUMP").unwrap()) + 1;
        let indented_line = lines_before(text.find("  1 INDENTED").unwrap()) + 1;
        assert_eq!(lines, [jump_line, indented_line], "{line_break:?} {bom:?}");
    }
}

#[test]
fn text_is_the_red_tree_text_with_boms_raw_octets_and_trailing_text() {
    for input in [
        &b"\xEF\xBB\xBF0 HEAD\r\n1 NOTE caf\xC3\xA9 \xFF\xFE @@ @#UE9@\n  \n0 TRLR\n\x1a junk"[..],
        b"",
        b"\xFF\xFE0\x00 \x00H\x00",
    ] {
        let p = parse(input);
        assert_eq!(p.text(), p.syntax().to_string());
        assert_eq!(p.text().len(), usize::from(p.green().text_len()));
    }
}

#[test]
fn only_like_problems_make_a_run_r_lines_03() {
    // Two levels with leading zeros are one run; the line after them that has no level at all is another
    // problem of the same code, with another remedy, and is reported on its own.
    let text = "0 HEAD\n0 @I1@ INDI\n01 SEX F\n02 DATE 1900\nx1 BIRT\n1 NOTE a\n1 NOTE b\n0 TRLR\n";
    let parsed = parse(text.as_bytes());
    let runs: Vec<_> = (parsed.diagnostics().iter())
        .filter(|d| d.code == crate::codes::BAD_LEVEL)
        .map(|d| (d.location.line, d.count, d.message.as_str()))
        .collect();
    assert_eq!(
        runs,
        [
            (3, 2, "level `01` has a leading zero"),
            (5, 1, "the line does not start with a level number"),
        ]
    );
    // Long lines of different lengths are alike.
    let long = |n: usize| format!("1 NOTE {}\n", "x".repeat(n));
    let text = format!("0 HEAD\n0 @I1@ INDI\n{}{}0 TRLR\n", long(300), long(400));
    let parsed = parse(text.as_bytes());
    let long_lines: Vec<_> = (parsed.diagnostics().iter())
        .filter(|d| d.code == crate::codes::LINE_TOO_LONG)
        .map(|d| (d.location.line, d.count))
        .collect();
    assert_eq!(long_lines, [(3, 2)]);
}
