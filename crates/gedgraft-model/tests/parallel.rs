//! Lowering on several threads gives the same dataset, diagnostics and JSON as lowering on one, whatever the
//! number of runs the records are cut into (`LowerOptions::threads`).

mod common;

use common::{corpus_dir, files_under};
use gedgraft_model::{lower, to_json, LowerOptions, Lowered};
use gedgraft_syntax::{parse, Parse};
use gedgraft_test_support::Rng;

/// Lowers with 1 thread and with `threads`, and checks that everything agrees.
fn check_same(name: &str, parse: &Parse, strict: bool, nfc: bool, threads: &[usize]) {
    let with = |threads| {
        lower(
            parse,
            &LowerOptions::default()
                .with_strict(strict)
                .with_nfc(nfc)
                .with_threads(threads),
        )
    };
    let one = with(1);
    let json = to_json(name, parse, &one);
    for &n in threads {
        let many: Lowered = with(n);
        assert_eq!(
            many.diagnostics, one.diagnostics,
            "{name}: diagnostics with {n} threads"
        );
        assert_eq!(many.stopped_at, one.stopped_at, "{name}: {n} threads");
        assert!(
            many.dataset == one.dataset,
            "{name}: dataset with {n} threads"
        );
        // Dataset equality is by meaning; where each structure came from must agree too.
        let origins = |d: &gedgraft_model::Dataset| {
            d.iter().map(|s| (s.line(), s.range())).collect::<Vec<_>>()
        };
        assert_eq!(
            origins(&many.dataset),
            origins(&one.dataset),
            "{name}: lines and ranges with {n} threads"
        );
        assert_eq!(
            to_json(name, parse, &many),
            json,
            "{name}: JSON with {n} threads"
        );
    }
}

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn corpus_files_lower_the_same_on_several_threads() {
    let corpus = corpus_dir();
    let files = files_under(&corpus);
    assert!(files.len() > 100, "only {} corpus files", files.len());
    for path in &files {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let parse = parse(&bytes);
        check_same(&name, &parse, false, false, &[0, 2, 3, 8]);
        check_same(&name, &parse, true, true, &[2, 5]);
    }
}

/// A file with a bit of everything the resolution pass cares about, spread over many records: identifiers
/// defined once, twice or only on substructures, pointers to all of them and to nothing, payload
/// annotations (good and misused), escapes, continuation lines, malformed and blank lines.
fn generated(seed: u64, records: usize) -> String {
    let mut rng = Rng(seed | 1);
    let mut src = String::from("0 HEAD\n1 PLANG nl\n1 NOTE @X1@\n1 SOUR x\n2 @S1@ VERS 1\n");
    for i in 0..records {
        let xref = match rng.below(10) {
            0 => String::new(),
            1 => format!("@D{}@ ", rng.below(5)),
            _ => format!("@X{i}@ "),
        };
        src.push_str(&format!("0 {xref}INDI\n"));
        for _ in 0..rng.below(6) {
            match rng.below(14) {
                0 => src.push_str(&format!("1 FAMC @X{}@\n", rng.below(records + 20))),
                1 => src.push_str(&format!("1 ASSO @D{}@\n", rng.below(6))),
                2 => src.push_str("1 ALIA @S1@\n"),
                3 => src.push_str("1 NOTE a @#U41@ b @#U4a@ @#Zz@ @@ c\n2 CONT d\n2 CONC e\n"),
                4 => src.push_str("1 NAME Jo\n2 PLANG en\n2 DTYPE t\n2 GIVN Jo\n"),
                5 => src.push_str("1 NAME Jo\n2 PLANG\n2 PLANG fr\n2 @Q@ DTYPE x\n"),
                6 => src.push_str("1 FAMS @X0@\n2 PLANG de\n"),
                7 => src.push_str("this is not a line\n"),
                8 => src.push('\n'),
                9 => src.push_str(&format!("1 @Y{}@ EVEN sub\n", rng.below(4))),
                10 => src.push_str("1 NOTE @Y1@\n"),
                11 => src.push_str("1 BIRT\n2 DATE 1 JAN 1900\n3 TIME 12:00\n2 PLAC here\n"),
                12 => src.push_str("1 NOTE x\n2 CONT @X1@\n"),
                _ => src.push_str("1 SEX M\n"),
            }
        }
    }
    src.push_str("0 TRLR\n");
    src
}

#[test]
fn generated_files_lower_the_same_on_several_threads() {
    for seed in 1..=12 {
        let src = generated(seed, 40 + seed as usize * 7);
        let parse = parse(src.as_bytes());
        let name = format!("generated-{seed}");
        if seed == 12 {
            let codes: Vec<_> = lower(&parse, &LowerOptions::default())
                .diagnostics
                .iter()
                .map(|d| d.code)
                .collect();
            for code in [
                "duplicate-xref",
                "ambiguous-pointer",
                "pointer-to-substructure",
                "undefined-pointer",
                "misused-payload-annotation",
                "lowercase-unicode-escape",
                "unpermitted-escape",
            ] {
                assert!(codes.contains(&code), "{code} in {codes:?}");
            }
        }
        check_same(&name, &parse, false, false, &[2, 3, 4, 16, 1000]);
        check_same(&name, &parse, false, true, &[3]);
        check_same(&name, &parse, true, false, &[2, 7]);
    }
}

#[test]
fn files_without_header_or_trailer_lower_the_same_on_several_threads() {
    for src in [
        "",
        "\n\n",
        "0 INDI\n0 @I1@ INDI\n1 FAMC @I1@\n",
        "0 TRLR\n",
        "0 HEAD\n",
        "junk\n0 @A@ X\n0 Y @A@\n\n0 TRLR\njunk\n",
        "0 HEAD\n0 TRLR\n0 TRLR\n",
    ] {
        let parse = parse(src.as_bytes());
        check_same(src, &parse, false, false, &[2, 3, 9]);
    }
}

#[test]
fn a_large_file_is_cut_into_runs_by_default() {
    // More than two PARALLEL_CHUNKs of records, so that the default cuts them when there are cores.
    let mut src = String::from("0 HEAD\n");
    let mut i = 0;
    while src.len() < 2 * gedgraft_model::internal::PARALLEL_CHUNK + 4096 {
        src.push_str(&format!(
            "0 @I{i}@ INDI\n1 NAME N{i}\n1 FAMC @F{}@\n0 @F{i}@ FAM\n1 CHIL @I{i}@\n",
            i / 2
        ));
        i += 1;
    }
    src.push_str("0 TRLR\n");
    let parse = parse(src.as_bytes());
    check_same("large", &parse, false, false, &[0, 2]);
}
