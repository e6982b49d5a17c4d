//! Requirements of the 2019 draft (see `requirements.md`) first found unchecked, now reported by the syntax layer.
//!
//! Each test states the expected diagnostic class and line.
//! Each code also has a `tests/data/err/CODE.ged` case.

use gedgraft_syntax::{parse, Class};

/// The `(class, line)` pairs of the diagnostics of `input`.
fn classes_and_lines(input: &[u8]) -> Vec<(Class, usize)> {
    parse(input)
        .diagnostics()
        .iter()
        .map(|d| (d.class, d.location.line))
        .collect()
}

fn assert_reports(input: &[u8], class: Class, line: usize) {
    let found = classes_and_lines(input);
    assert!(
        found.contains(&(class, line)),
        "expected a {} diagnostic on line {line} of {:?}; got {found:?}",
        class.as_str(),
        String::from_utf8_lossy(input)
    );
}

/// R-IDENTIFY-ESCS-04, R-ESCAPE-SEQ-02 (spec example at line 2291): `@#` followed by something that is not an
/// upper-case letter does not match `EscapeSeq`, so the structure is non-conformant.
#[test]
fn r_identify_escs_04_escape_not_matching_escapeseq_is_non_conformant() {
    assert_reports(
        b"0 HEAD\n0 NOTE Following a @# with a @ isn't necessarily conformant.\n0 TRLR\n",
        Class::NonConformant,
        2,
    );
    assert_reports(
        b"0 HEAD\n0 NOTE x\n1 NOTE x@#dgregorian@\n0 TRLR\n",
        Class::NonConformant,
        3,
    );
}

/// R-MERGE-CONTS-07 (spec example at line 2424): a continuation line whose payload is a pointer is a
/// non-conformant structure.
#[test]
fn r_merge_conts_07_continuation_with_pointer_is_non_conformant() {
    assert_reports(
        b"0 HEAD\n0 @N1@ NOTE This can be found in:\n1 CONT @F1@\n0 TRLR\n",
        Class::NonConformant,
        3,
    );
}

/// R-SECOND-PASS-02: `HEAD` below level 0 or as a second record is a malformed structure (as `TRLR` below
/// level 0 is: `misplaced-trailer`).
#[test]
fn r_second_pass_02_misplaced_head_is_malformed() {
    assert_reports(
        b"0 HEAD\n0 @I1@ INDI\n1 HEAD\n0 TRLR\n",
        Class::MalformedStructure,
        3,
    );
    assert_reports(b"0 HEAD\n0 HEAD\n0 TRLR\n", Class::MalformedStructure, 2);
}

/// R-SECOND-PASS-02: a pointer payload is not unescaped, so a `CONC` below it is never merged and is a
/// malformed structure.
#[test]
fn r_second_pass_02_continuation_of_pointer_payload_is_malformed() {
    assert_reports(
        b"0 HEAD\n0 @I1@ INDI\n1 FAMC @F1@\n2 CONC x\n0 TRLR\n",
        Class::MalformedStructure,
        4,
    );
}

/// The passing counterpart: the unterminated escape of the spec example at line 2283 is reported.
#[test]
fn r_identify_escs_04_unterminated_escape_is_non_conformant() {
    assert_reports(
        b"0 HEAD\n0 NOTE Lines containing only a @# are non-conformant.\n0 TRLR\n",
        Class::NonConformant,
        2,
    );
}
