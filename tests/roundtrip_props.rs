//! Property tests for invariants 1 and 2: any octets parse without panicking and write back identically; and
//! invariant 3 for repairs (issue #16): every repair of any line soup changes only the octets of its edits.

use gedgraft_syntax::{parse, parse_with, ParseOptions};
use gedgraft_tests::repair::{all_diagnostics, only_edits_changed};
use proptest::prelude::*;

fn assert_round_trip(bytes: &[u8], options: &ParseOptions) -> Result<(), TestCaseError> {
    let p = parse_with(bytes, options);
    let out = p
        .to_bytes()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(out, bytes);
    for d in p.diagnostics() {
        prop_assert!(d.location.offset <= bytes.len());
        prop_assert!(d.location.line >= 1 && d.location.column >= 1);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn arbitrary_bytes_round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        assert_round_trip(&bytes, &ParseOptions::default())?;
    }

    /// Repairs of any octets never panic, change only their edits' octets, and reach a fixed point.
    #[test]
    fn repairs_of_arbitrary_bytes_change_only_their_edits(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let before = parse(&bytes);
        let diagnostics = all_diagnostics(&before);
        let refs: Vec<_> = diagnostics.iter().collect();
        let found = gedgraft_edit::repairs(&before, &refs);
        let chosen: Vec<_> = found.iter().flatten().collect();
        let applied = gedgraft_edit::apply_repairs(&bytes, &chosen);
        let taken: Vec<_> = applied.applied_indices.iter().filter_map(|&i| chosen.get(i).copied()).collect();
        prop_assert!(only_edits_changed(&bytes, &applied.bytes, &taken));
        let _ = gedgraft_edit::repair_to_fixed_point(&bytes, &before, &ParseOptions::default(), all_diagnostics, |_| true);
    }
}

/// One line of generated "line soup": valid, malformed, blank or deep lines in any mix.
fn line() -> impl Strategy<Value = String> {
    let level = prop_oneof![
        Just("0".to_string()),
        Just("1".into()),
        Just("2".into()),
        Just("01".into()),
        Just("99".into()),
        Just("".into()),
        "[0-9]{1,3}"
    ];
    let xref = prop_oneof![
        Just(String::new()),
        Just("@I1@ ".into()),
        Just("@@ ".into()),
        Just("@I 1@ ".into()),
        "@[A-Za-z0-9é]{1,4}@ "
    ];
    let tag = prop_oneof![
        Just("HEAD".to_string()),
        Just("TRLR".into()),
        Just("CONT".into()),
        Just("CONC".into()),
        Just("NAME".into()),
        Just("NA-ME".into()),
        Just("".into()),
        "[A-Z_]{1,5}"
    ];
    let payload = prop_oneof![
        Just(String::new()),
        Just(" @F1@".into()),
        Just("  @F1@ ".into()),
        Just(" a@@b".into()),
        Just(" x@#UE9@y".into()),
        Just(" @# open".into()),
        Just("\tTab".into()),
        " [ -~éЖ\u{1F600}]{0,12}",
    ];
    let indent = prop_oneof![Just(""), Just(" "), Just("\t "), Just("")];
    (
        indent,
        level,
        prop_oneof![Just(" "), Just("\t"), Just("  "), Just("")],
        xref,
        tag,
        payload,
    )
        .prop_map(|(i, l, d, x, t, p)| format!("{i}{l}{d}{x}{t}{p}"))
}

fn line_break() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("\n"),
        Just("\r\n"),
        Just("\r"),
        Just("\n\r"),
        Just("\n\n"),
        Just(" \t\n")
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn line_soup_round_trips(lines in proptest::collection::vec((line(), line_break()), 0..40), last_break in any::<bool>()) {
        let mut text = String::from("0 HEAD\n");
        let n = lines.len();
        for (i, (l, b)) in lines.into_iter().enumerate() {
            text.push_str(&l);
            if i + 1 < n || last_break {
                text.push_str(b);
            }
        }
        assert_round_trip(text.as_bytes(), &ParseOptions::default())?;
    }

    /// Edit locality of repairs: all repairs (safe and unsafe) of a line soup, applied together, leave every
    /// octet outside their edits as it was, and running them to a fixed point never panics and stops.
    #[test]
    fn repairs_of_line_soup_change_only_their_edits(lines in proptest::collection::vec((line(), line_break()), 0..30), trailer in any::<bool>()) {
        let mut text = String::from("0 HEAD\n1 CHAR UTF-8\n");
        for (l, b) in lines {
            text.push_str(&l);
            text.push_str(b);
        }
        if trailer {
            text.push_str("0 TRLR\n");
        }
        let input = text.as_bytes();
        let before = parse(input);
        let diagnostics = all_diagnostics(&before);
        let refs: Vec<_> = diagnostics.iter().collect();
        let found = gedgraft_edit::repairs(&before, &refs);
        let chosen: Vec<_> = found.iter().flatten().collect();
        let applied = gedgraft_edit::apply_repairs(input, &chosen);
        // Repairs that overlap are left for a later pass; those applied are exactly their edits.
        let taken: Vec<_> = applied.applied_indices.iter().filter_map(|&i| chosen.get(i).copied()).collect();
        prop_assert!(only_edits_changed(input, &applied.bytes, &taken));
        let fixed = gedgraft_edit::repair_to_fixed_point(input, &before, &ParseOptions::default(), all_diagnostics, |_| true);
        prop_assert!(fixed.applied <= gedgraft_edit::MAX_PASSES * (input.len() + 1));
        assert_round_trip(&fixed.bytes, &ParseOptions::default())?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn deep_levels_round_trip(depth in 1usize..3000, tail in "[ -~]{0,20}") {
        let mut text = String::from("0 HEAD\n");
        for level in 0..depth {
            text.push_str(&format!("{level} _X {tail}\n"));
        }
        text.push_str("0 TRLR\n");
        let p = parse(text.as_bytes());
        prop_assert!(p.diagnostics().iter().all(|d| d.code != "level-jump"));
        assert_round_trip(text.as_bytes(), &ParseOptions::default())?;
    }
}

/// One piece of note text: letters, spaces and tabs, `@@`, an escape, a multi-octet character.
fn note_piece() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("a"),
        Just("bc"),
        Just(" "),
        Just("  "),
        Just("\t"),
        Just("@@"),
        Just("@#DJULIAN@"),
        Just("é"),
        Just("e\u{301}"),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// R-SERIALISING-STRUCTS-10, -11 (`conc-at-whitespace`): a note cut into `CONC` lines anywhere, repaired to
    /// a fixed point with the safe repairs, has the same dataset; the splits the repair moved are off the
    /// whitespace, and a split still next to whitespace has no repair left (no place for it).
    #[test]
    fn conc_splits_moved_off_whitespace_keep_the_text(
        pieces in proptest::collection::vec(note_piece(), 1..16),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..5),
    ) {
        use gedgraft_edit::{repair_to_fixed_point, repairs, Applicability};
        use gedgraft_tests::dataset::dataset_of;
        let mut cut_at: Vec<usize> = cuts.iter().map(|i| i.index(pieces.len())).filter(|&i| i > 0).collect();
        cut_at.sort_unstable();
        cut_at.dedup();
        let mut text = String::from("0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @N1@ NOTE ");
        for (i, piece) in pieces.iter().enumerate() {
            if cut_at.contains(&i) {
                text.push_str("\n1 CONC ");
            }
            text.push_str(piece);
        }
        text.push_str("\n0 TRLR\n");
        let input = text.as_bytes();
        let before = parse(input);
        let safe = |r: &gedgraft_edit::Repair| r.applicability == Applicability::Safe;
        let fixed = repair_to_fixed_point(input, &before, &ParseOptions::default(), all_diagnostics, safe);
        let after = parse(&fixed.bytes);
        prop_assert_eq!(dataset_of(&before), dataset_of(&after), "{:?} -> {:?}", text, String::from_utf8_lossy(&fixed.bytes));
        let left = all_diagnostics(&after);
        let refs: Vec<_> = left.iter().filter(|d| d.code == "conc-at-whitespace").collect();
        prop_assert!(repairs(&after, &refs).iter().all(Option::is_none), "{:?}", String::from_utf8_lossy(&fixed.bytes));
    }
}
