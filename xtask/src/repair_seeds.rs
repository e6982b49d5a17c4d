//! Fuzz seeds that reach the repairs (issue #16): one small file per repair code of
//! [`gedgraft_edit::REPAIR_KINDS`], each with a diagnostic that has a repair of that code (the test below
//! checks both). `cargo xtask fuzz-seeds` writes them beside the stress inputs, as `repair-CODE.ged` and, for
//! the `edit_locality` target, `repair-CODE-ops.ged` (the file, `0xFF 0xFE`, then a few edits).

/// A valid 5.5.1 header, up to and including `CHAR UTF-8`.
const HEAD: &[u8] = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n";
const TRLR: &[u8] = b"0 TRLR\n";

/// The edit octets appended after `0xFF 0xFE` in the `-ops` copies: set a payload, rewrap, insert, delete,
/// escape at signs (four octets an edit: kind, target, value, position; see `fuzz/fuzz_targets/edit_locality.rs`).
const OPS: &[u8] = &[0, 1, 2, 0, 6, 0, 3, 1, 2, 2, 7, 2, 1, 3, 0, 0, 5, 0, 0, 0];

fn file(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// `(repair code, file)` for every repair code.
pub fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let long = [b"1 NOTE ".as_slice(), &b"word ".repeat(80), b"\n"].concat();
    vec![
        (
            "bad-level",
            file(&[
                HEAD,
                b"0 @N1@ NOTE first line\nsecond line\n1 CONT more\n",
                TRLR,
            ]),
        ),
        (
            "undecodable-octets",
            file(&[
                HEAD,
                b"0 @I1@ INDI\n1 NOTE Jos\xC3\n2 CONC \xA9 M\xC3\xBCller\n",
                TRLR,
            ]),
        ),
        (
            "unescaped-at",
            file(&[HEAD, b"0 @I1@ INDI\n1 EMAIL bob@example.com\n", TRLR]),
        ),
        (
            "line-too-long",
            file(&[HEAD, b"0 @I1@ INDI\n", &long, TRLR]),
        ),
        (
            "missing-trailer",
            file(&[HEAD, b"0 @I1@ INDI\n1 NAME A /B/\n"]),
        ),
        (
            "record-after-trailer",
            file(&[HEAD, TRLR, b"0 @I1@ INDI\n1 NAME A /B/\n"]),
        ),
        (
            "lf-cr-line-breaks",
            file(&[HEAD, b"0 @I1@ INDI\n", TRLR]).replace_breaks(b"\n\r"),
        ),
        (
            "mixed-line-breaks",
            file(&[HEAD, b"0 @I1@ INDI\r\n1 NAME A /B/\r\n1 SEX M\r", TRLR]),
        ),
        (
            "conc-at-whitespace",
            file(&[HEAD, b"0 @I1@ INDI\n1 NOTE abc\n2 CONC  def\n", TRLR]),
        ),
        (
            "blank-line",
            file(&[HEAD, b"\n0 @I1@ INDI\n\n1 NAME A /B/\n", TRLR]),
        ),
        (
            "conc-after-diacritic",
            file(&[
                b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR ANSEL\n",
                b"0 @I1@ INDI\n1 NOTE Jos\xE2\n2 CONC e\n",
                TRLR,
            ]),
        ),
        (
            "bad-gedc",
            file(&[
                b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM Lineage-Linked\n1 CHAR UTF-8\n",
                TRLR,
            ]),
        ),
        (
            "level-jump",
            file(&[HEAD, b"0 @I1@ INDI\n1 BIRT\n3 DATE 1900\n", TRLR]),
        ),
        (
            "declared-encoding-mismatch",
            file(&[
                b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME Jos\xC3\xA9 /M\xC3\xBCller/\n",
                TRLR,
            ]),
        ),
        (
            "duplicate-xref",
            file(&[
                HEAD,
                b"0 @I1@ INDI\n1 NAME A /B/\n0 @I1@ INDI\n1 NAME C /D/\n",
                TRLR,
            ]),
        ),
        (
            "not-a-character",
            file(&[HEAD, b"0 @I1@ INDI\n1 NAME A\x00 /B/\n", TRLR]),
        ),
    ]
}

trait ReplaceBreaks {
    fn replace_breaks(self, with: &[u8]) -> Vec<u8>;
}

impl ReplaceBreaks for Vec<u8> {
    /// Every LF becomes `with`.
    fn replace_breaks(self, with: &[u8]) -> Vec<u8> {
        self.split(|&b| b == b'\n').collect::<Vec<_>>().join(with)
    }
}

/// The `edit_locality` copy of a seed: the file, the separator, the edits.
pub fn with_ops(seed: &[u8]) -> Vec<u8> {
    [seed, &[0xFF, 0xFE], OPS].concat()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gedgraft_model::{lower, LowerOptions};

    /// Issue #16: the fuzz seeds reach every repair: each seed has a diagnostic (the syntax layer's or the
    /// lowering's, as `gedgraft fix --repair` finds them) with a repair of its code, and every repair code
    /// has a seed.
    #[test]
    fn every_repair_code_has_a_seed_that_repairs() {
        let seeds = seeds();
        for (code, _, _) in gedgraft_edit::REPAIR_KINDS {
            assert!(seeds.iter().any(|(c, _)| c == code), "no seed for {code}");
        }
        for (code, bytes) in &seeds {
            let parse = gedgraft_syntax::parse(bytes);
            let lowered = lower(&parse, &LowerOptions::default());
            let diagnostics = lowered.all_diagnostics(&parse);
            let found = gedgraft_edit::repairs(&parse, &diagnostics);
            let codes: Vec<_> = found.iter().flatten().map(|r| r.code).collect();
            assert!(
                codes.contains(code),
                "{code}: the seed's repairs are {codes:?}"
            );
        }
    }

    #[test]
    fn the_lf_cr_seed_has_lf_cr_breaks() {
        let seeds = seeds();
        let (_, lf_cr) = seeds
            .iter()
            .find(|(c, _)| *c == "lf-cr-line-breaks")
            .unwrap();
        assert!(lf_cr.starts_with(b"0 HEAD\n\r1 GEDC\n\r"));
        assert!(lf_cr.ends_with(b"0 TRLR\n\r"));
    }
}
