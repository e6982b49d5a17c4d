//! Every row of `../shared/spec/ansel-to-unicode.md` (normative, R-ANSEL-01), read from the markdown at test
//! time, against the ANSEL codec and `gedgraft_encoding::ansel`.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use gedgraft_encoding::{ansel, raw, Encoding};

struct Row {
    octet: u8,
    unicode: Option<char>,
    swap: bool,
}

fn parse_code_point(cell: &str) -> Option<char> {
    let hex = cell.trim().strip_prefix("U+")?;
    char::from_u32(u32::from_str_radix(hex, 16).ok()?)
}

/// The main table, the addendum's (octet, code point, type) rows, and the whole markdown.
type Tables = (Vec<Row>, Vec<(u8, char, String)>, String);

fn read_tables() -> Tables {
    let path = common::spec_dir().join("ansel-to-unicode.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (main, addendum) = text.split_once("# Addendum").expect("the addendum heading");
    let rows_of = |part: &str| -> Vec<Vec<String>> {
        part.lines()
            .filter(|l| {
                l.len() > 2
                    && l.as_bytes()[..2].iter().all(u8::is_ascii_hexdigit)
                    && l.contains('|')
            })
            .map(|l| l.split('|').map(|c| c.trim().to_string()).collect())
            .collect()
    };
    let main_rows = rows_of(main)
        .into_iter()
        .map(|cells| Row {
            octet: u8::from_str_radix(&cells[0], 16).unwrap(),
            unicode: parse_code_point(&cells[1]),
            swap: cells.get(2).is_some_and(|c| c.contains("Swap")),
        })
        .collect();
    let addendum_rows = rows_of(addendum)
        .into_iter()
        .filter_map(|cells| {
            Some((
                u8::from_str_radix(&cells[0], 16).unwrap(),
                parse_code_point(&cells[1])?,
                cells[2].clone(),
            ))
        })
        .collect();
    (main_rows, addendum_rows, text)
}

/// R-ANSEL-01: each octet's character, as the table gives it; R-ANSEL-02: which octets the codec keeps raw.
#[test]
#[cfg_attr(
    not(has_spec),
    ignore = "specs missing: see README, Tests and the corpus"
)]
fn r_ansel_01_every_table_row() {
    let (rows, _, _) = read_tables();
    assert_eq!(rows.len(), 256, "the table lists every octet");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(usize::from(row.octet), i, "rows in order");
        assert_eq!(
            ansel::lossy_char(row.octet),
            row.unicode,
            "lossy_char({:02X})",
            row.octet
        );

        let decoded = Encoding::Ansel.decode(&[row.octet]).text;
        let mut back = Vec::new();
        Encoding::Ansel.encode(&decoded, &mut back).unwrap();
        assert_eq!(back, [row.octet]);

        let claimed_elsewhere = rows.iter().any(|r| {
            r.octet != row.octet
                && r.unicode.is_some()
                && r.unicode == row.unicode
                && !ansel::RAW_KEPT.contains(&r.octet)
        });
        match row.unicode {
            // No character, or one another octet decodes to: the octet stays raw.
            None => assert_eq!(
                decoded,
                raw::to_char(row.octet).to_string(),
                "{:02X}",
                row.octet
            ),
            Some(_) if ansel::RAW_KEPT.contains(&row.octet) => {
                assert!(
                    claimed_elsewhere,
                    "{:02X} is kept raw, so another octet must have its character",
                    row.octet
                );
                assert_eq!(decoded, raw::to_char(row.octet).to_string());
            }
            // U+0000 is kept as the character it is (only ASCII, R-ENCODINGS-07, keeps `00` raw).
            Some(c) => {
                assert!(
                    !claimed_elsewhere,
                    "{:02X}: {c:?} would not be reversible",
                    row.octet
                );
                assert_eq!(decoded, c.to_string(), "{:02X}", row.octet);
                assert!(Encoding::Ansel.can_encode(c));
            }
        }

        // "Swap with next": the character moves after the octet that follows it.
        assert_eq!(
            row.swap,
            ansel::is_diacritic_octet(row.octet),
            "{:02X} swap",
            row.octet
        );
        if let (true, Some(c)) = (row.swap, row.unicode) {
            let text = Encoding::Ansel.decode(&[row.octet, b'a']).text;
            assert_eq!(
                ansel::to_unicode_order(&text),
                format!("a{c}"),
                "{:02X}",
                row.octet
            );
            assert!(ansel::stacking(c).is_some());
        } else if let Some(c) = row.unicode {
            assert_eq!(ansel::stacking(c), None, "{:02X}", row.octet);
            let text = Encoding::Ansel.decode(&[row.octet, b'a']).text;
            assert_eq!(
                ansel::to_unicode_order(&text),
                format!("{c}a"),
                "{:02X}",
                row.octet
            );
        }
    }
}

/// The addendum: each diacritic's type (High, Low, Center) decides the multiple-diacritic order.
#[test]
#[cfg_attr(
    not(has_spec),
    ignore = "specs missing: see README, Tests and the corpus"
)]
fn r_ansel_01_addendum_types() {
    let (_, addendum, _) = read_tables();
    assert!(addendum.len() >= 29, "{} addendum rows", addendum.len());
    for (octet, c, kind) in addendum {
        let expected = match kind.as_str() {
            "High" => ansel::Stacking::High,
            "Low" => ansel::Stacking::Low,
            "Center" => ansel::Stacking::Center,
            other => panic!("{octet:02X}: unknown type {other}"),
        };
        assert_eq!(ansel::lossy_char(octet), Some(c), "{octet:02X}");
        assert_eq!(ansel::stacking(c), Some(expected), "{octet:02X}");
    }
}

/// The worked examples of the markdown, read from it: `64 65 EA 66 67` and `E0 E9 F1 FC E8 F7 65`.
#[test]
#[cfg_attr(
    not(has_spec),
    ignore = "specs missing: see README, Tests and the corpus"
)]
fn r_ansel_01_examples_from_the_markdown() {
    let (_, _, text) = read_tables();
    let strip = |l: &str| {
        l.trim()
            .trim_start_matches("ANSEL:")
            .trim_start_matches("Unicode:")
            .replace('`', "")
    };
    let octet_line = |l: &str| -> Option<Vec<u8>> {
        let words: Vec<String> = strip(l).split_whitespace().map(str::to_string).collect();
        (words.len() > 1
            && words
                .iter()
                .all(|w| w.len() == 2 && w.bytes().all(|b| b.is_ascii_hexdigit())))
        .then(|| {
            words
                .iter()
                .map(|w| u8::from_str_radix(w, 16).unwrap())
                .collect()
        })
    };
    let unicode_line = |l: &str| -> Option<String> {
        let words: Vec<String> = strip(l).split_whitespace().map(str::to_string).collect();
        (words.len() > 1 && words.iter().all(|w| w.starts_with("U+")))
            .then(|| words.iter().map(|w| parse_code_point(w).unwrap()).collect())
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut checked = 0;
    for (i, line) in lines.iter().enumerate() {
        // Lines starting with "Reorder:" are octets too, but not an input.
        if line.trim_start().starts_with("Reorder") {
            continue;
        }
        let Some(octets) = octet_line(line) else {
            continue;
        };
        let Some(expected) = lines[i + 1..].iter().find_map(|l| unicode_line(l)) else {
            continue;
        };
        let decoded = Encoding::Ansel.decode(&octets).text;
        assert_eq!(
            ansel::to_unicode_order(&decoded),
            expected,
            "example {octets:02X?}"
        );
        checked += 1;
    }
    assert_eq!(checked, 2, "both examples found");
}
