//! Property tests of edit locality (DESIGN invariant 3, R-APPLICATIONS-03): random edits on generated files and
//! on corpus files change only the octets they report, the spliced tree is what re-parsing gives, and re-parsing
//! shows the edited structures. Corpus files are read from `../shared/corpus` (ignored when missing; see README).

mod common;

use common::{check, corpus, logical};
use gedgraft_edit::{EditError, Editor, LineBreak, NewStructure, Position, Scope};
use gedgraft_syntax::ast::{AstNode, AstToken, Structure};
use gedgraft_syntax::{parse, Parse, SyntaxKind};
use proptest::prelude::*;
use unicode_normalization::UnicodeNormalization;

/// One random edit; indices pick a structure modulo the number of structures.
#[derive(Debug, Clone)]
enum Op {
    Rename(usize),
    Set(usize, String),
    Delete(usize),
    Insert(usize, usize, String),
    EscapeAt(Option<usize>),
    Rewrap(usize),
    Xref(usize),
    Eol(usize),
}

const TAGS: [&str; 5] = ["NAME", "NOTE", "_X", "SOUR", "DATE"];

fn value() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "a",
        "b",
        "xyz",
        " ",
        "  ",
        "@",
        "@@",
        "é",
        "☺",
        "\n",
        "\r\n",
        "Ä",
        "e\u{301}",
        "@#DJULIAN@",
        "ł",
        "\u{263A}\u{263A}",
        "\t",
    ]);
    prop::collection::vec(piece, 0..120).prop_map(|p| p.concat())
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        any::<usize>().prop_map(Op::Rename),
        (any::<usize>(), value()).prop_map(|(i, v)| Op::Set(i, v)),
        any::<usize>().prop_map(Op::Delete),
        (any::<usize>(), 0..4usize, value()).prop_map(|(i, p, v)| Op::Insert(i, p, v)),
        prop::option::of(any::<usize>()).prop_map(Op::EscapeAt),
        (32..300usize).prop_map(Op::Rewrap),
        any::<usize>().prop_map(Op::Xref),
        (0..3usize).prop_map(Op::Eol),
    ]
}

/// A generated file: records of nested structures with string and pointer payloads, continuation lines,
/// optional indentation, one line-break form, and now and then an undecodable octet.
fn file() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop::sample::select(vec![
        &b"a"[..],
        b"Bob",
        b" ",
        b"@",
        b"@@",
        "é".as_bytes(),
        "☺".as_bytes(),
        b"@#DJULIAN@",
        b"\xFF",
        b"x@y",
    ]);
    let payload = prop::collection::vec(piece, 0..30).prop_map(|p| p.concat());
    let line = (
        0..3usize,
        0..TAGS.len(),
        payload.clone(),
        prop::collection::vec((any::<bool>(), payload), 0..3),
        any::<bool>(),
    );
    let record = prop::collection::vec(line, 0..6);
    (
        prop::sample::select(vec!["\n", "\r\n", "\r"]),
        any::<bool>(),
        prop::collection::vec(record, 1..6),
    )
        .prop_map(|(lb, indent, records)| {
            let mut out = Vec::new();
            let push = |level: usize, text: &[u8], out: &mut Vec<u8>| {
                if indent {
                    out.extend(std::iter::repeat_n(b' ', level * 2));
                }
                out.extend_from_slice(text);
                out.extend_from_slice(lb.as_bytes());
            };
            push(0, b"0 HEAD", &mut out);
            push(1, b"1 CHAR UTF-8", &mut out);
            let n = records.len();
            for (r, lines) in records.into_iter().enumerate() {
                push(0, format!("0 @R{r}@ _REC").as_bytes(), &mut out);
                let mut prev = 0;
                for (i, (deeper, tag, payload, conts, pointer)) in lines.into_iter().enumerate() {
                    let level = if i == 0 { 1 } else { (deeper % (prev + 1)) + 1 };
                    prev = level;
                    let mut first = format!("{level} {}", TAGS[tag]).into_bytes();
                    if pointer {
                        first.extend_from_slice(format!(" @R{}@", (r + 1) % n).as_bytes());
                    } else if !payload.is_empty() {
                        first.push(b' ');
                        first.extend_from_slice(&payload);
                    }
                    push(level, &first, &mut out);
                    if !pointer {
                        for (cont, p) in conts {
                            let tag = if cont { "CONT" } else { "CONC" };
                            let mut l = format!("{} {tag}", level + 1).into_bytes();
                            if !p.is_empty() {
                                l.push(b' ');
                                l.extend_from_slice(&p);
                            }
                            push(level + 1, &l, &mut out);
                        }
                    }
                }
            }
            push(0, b"0 TRLR", &mut out);
            out
        })
}

fn structures(parse: &Parse) -> Vec<Structure> {
    parse.document().all_structures().collect()
}

/// The header, the trailer, the header's structures and what lies in its serialisation metadata (`GEDC.VERS`
/// decides the dialect): edits refuse some of them.
fn is_frame(s: &Structure) -> bool {
    let tag = s.tag().map(|t| t.text().to_string()).unwrap_or_default();
    (s.is_record() && (tag == "HEAD" || tag == "TRLR"))
        || s.parent()
            .is_some_and(|p| p.is_record() && p.tag().is_some_and(|t| t.text() == "HEAD"))
        || s.is_serialisation_metadata()
}

fn same_text(a: &str, b: &str) -> bool {
    a.nfc().collect::<String>() == b.nfc().collect::<String>()
}

fn payloads(parse: &Parse) -> Vec<String> {
    structures(parse)
        .iter()
        .map(|s| logical(s, parse.encoding()))
        .collect()
}

/// Runs one edit and checks it; refusals of the frame or of overlapping edits are fine.
fn run(parse: &Parse, op: &Op) -> Result<(), TestCaseError> {
    let all = structures(parse);
    let targets: Vec<&Structure> = all.iter().filter(|s| !is_frame(s)).collect();
    let pick = |i: usize| targets.get(i % targets.len().max(1)).copied();
    let encoding = parse.encoding();
    let mut editor = Editor::new(parse);
    match op {
        Op::Rename(i) => {
            let from = pick(*i)
                .and_then(|s| s.tag())
                .map_or("NAME".to_string(), |t| t.text().to_string());
            let to = "_RENAMED";
            let before = count_tag(parse, &from) + count_tag(parse, to);
            match editor.rename_tag(&from, to, None) {
                Ok(_) => {}
                // A tag that also names serialisation metadata (`VERS` under `HEAD.GEDC`) is refused whole.
                Err(EditError::ReservedTag { .. } | EditError::Protected { .. }) => return Ok(()),
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
            }
            let edited = editor
                .apply()
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            check(parse, &edited);
            prop_assert_eq!(count_tag(edited.parse(), to), before);
        }
        Op::Set(i, v) => {
            let Some(target) = pick(*i) else {
                return Ok(());
            };
            let index = all.iter().position(|s| s == target).unwrap_or(0);
            match editor.set_payload(target, v) {
                Ok(()) => {}
                Err(EditError::DoubtfulNewText { .. }) => return refused_in_doubt(parse, v),
                Err(EditError::DialectForbids { .. }) => return refused_carriage_return(parse, v),
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
            }
            let edited = editor
                .apply()
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            check(parse, &edited);
            let after = structures(edited.parse());
            prop_assert_eq!(after.len(), all.len());
            let got = logical(&after[index], encoding);
            // A CR is a character of the value (R-MERGE-CONTS-10), not a line break.
            let want = v.clone();
            prop_assert!(same_text(&got, &want), "{:?} != {:?}", got, want);
        }
        Op::Delete(i) => {
            let Some(target) = pick(*i) else {
                return Ok(());
            };
            let gone = target
                .syntax()
                .descendants()
                .filter(|n| matches!(n.kind(), SyntaxKind::Structure | SyntaxKind::Record))
                .count();
            editor
                .delete(target)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let edited = editor
                .apply()
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            check(parse, &edited);
            prop_assert_eq!(structures(edited.parse()).len(), all.len() - gone);
        }
        Op::Insert(i, p, v) => {
            let Some(target) = pick(*i) else {
                return Ok(());
            };
            let position = [
                Position::Before,
                Position::After,
                Position::FirstChild,
                Position::LastChild,
            ][*p];
            let new = NewStructure::new("_NEW")
                .text(v)
                .child(NewStructure::new("_KID"));
            match editor.insert(target, position, &new) {
                Ok(()) => {}
                Err(EditError::Protected { .. }) => return Ok(()),
                Err(EditError::DoubtfulNewText { .. }) => return refused_in_doubt(parse, v),
                Err(EditError::DialectForbids { .. }) => return refused_carriage_return(parse, v),
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
            }
            let edited = editor
                .apply()
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            check(parse, &edited);
            let after = structures(edited.parse());
            prop_assert_eq!(after.len(), all.len() + 2);
            let new = after
                .iter()
                .find(|s| s.tag().is_some_and(|t| t.text() == "_NEW"))
                .ok_or_else(|| TestCaseError::fail("inserted structure not found"))?;
            // A CR is a character of the value (R-MERGE-CONTS-10), not a line break.
            let want = v.clone();
            prop_assert!(same_text(&logical(new, encoding), &want));
        }
        Op::EscapeAt(scope) => {
            let scope = scope.map(|i| {
                let tag = TAGS[i % TAGS.len()];
                Scope::parse(&format!("*.{tag}")).expect("path")
            });
            editor.escape_at_signs(scope.as_ref());
            let edited = editor
                .apply()
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            check(parse, &edited);
            prop_assert_eq!(payloads(edited.parse()), payloads(parse));
            if scope.is_none() {
                let bare = edited
                    .parse()
                    .syntax()
                    .descendants_with_tokens()
                    .filter_map(|e| e.into_token())
                    .any(|t| {
                        t.kind() == SyntaxKind::Text
                            && gedgraft_syntax::internal::text_pieces(t.text()).any(|p| p == "@")
                    });
                prop_assert!(!bare);
            }
        }
        Op::Rewrap(limit) => {
            editor
                .rewrap(Some(*limit), None)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let edited = editor
                .apply()
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            check(parse, &edited);
            prop_assert_eq!(payloads(edited.parse()), payloads(parse));
        }
        Op::Xref(i) => {
            let Some(target) = pick(*i) else {
                return Ok(());
            };
            editor
                .set_xref(target, Some("NEW_ID"))
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let edited = editor
                .apply()
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            check(parse, &edited);
            prop_assert!(edited
                .parse()
                .document()
                .all_structures()
                .any(|s| s.xref().is_some_and(|x| x.id() == "NEW_ID")));
        }
        Op::Eol(k) => {
            let to = [LineBreak::Lf, LineBreak::CrLf, LineBreak::Cr][*k];
            editor.convert_line_breaks(to, gedgraft_edit::LfCr::TwoBreaks);
            let edited = editor
                .apply()
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            check(parse, &edited);
            prop_assert_eq!(payloads(edited.parse()), payloads(parse));
            let breaks: Vec<String> = edited
                .parse()
                .syntax()
                .descendants_with_tokens()
                .filter_map(|e| e.into_token())
                .filter(|t| t.kind() == SyntaxKind::LineBreak)
                .map(|t| t.text().to_string())
                .collect();
            prop_assert!(breaks.iter().all(|b| b == to.as_str()));
        }
    }
    Ok(())
}

fn count_tag(parse: &Parse, tag: &str) -> usize {
    parse
        .document()
        .all_structures()
        .filter(|s| s.tag().is_some_and(|t| t.text() == tag))
        .count()
}

/// New text is refused only when it is not ASCII and the file's reading is in doubt (issue 11).
fn refused_in_doubt(parse: &Parse, value: &str) -> Result<(), TestCaseError> {
    prop_assert!(!value.is_ascii() && parse.detection().doubt().is_some());
    Ok(())
}

/// New text is refused by the dialect only when it holds a CR and the file is GEDCOM 7, which cannot escape it.
fn refused_carriage_return(parse: &Parse, value: &str) -> Result<(), TestCaseError> {
    prop_assert!(value.contains('\r') && parse.dialect().is_gedcom7());
    Ok(())
}

/// A batch of several edits at once: either refused as overlapping, or local and re-parsing to itself.
fn run_batch(parse: &Parse, ops: &[Op]) -> Result<(), TestCaseError> {
    let targets: Vec<Structure> = structures(parse)
        .into_iter()
        .filter(|s| !is_frame(s))
        .collect();
    if targets.is_empty() {
        return Ok(());
    }
    let mut editor = Editor::new(parse);
    for op in ops {
        let _ = match op {
            Op::Set(i, v) => editor.set_payload(&targets[i % targets.len()], v),
            Op::Delete(i) => editor.delete(&targets[i % targets.len()]),
            Op::Insert(i, p, v) => editor.insert(
                &targets[i % targets.len()],
                [
                    Position::Before,
                    Position::After,
                    Position::FirstChild,
                    Position::LastChild,
                ][*p],
                &NewStructure::new("_NEW").text(v),
            ),
            Op::Rename(i) => editor
                .rename_tag(TAGS[i % TAGS.len()], "_R", None)
                .map(|_| ()),
            _ => Ok(()),
        };
    }
    match editor.apply() {
        Ok(edited) => {
            check(parse, &edited);
            Ok(())
        }
        Err(EditError::Overlap { .. }) | Err(EditError::DuplicateXref { .. }) => Ok(()),
        Err(e) => Err(TestCaseError::fail(e.to_string())),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn edits_of_generated_files_are_local(bytes in file(), ops in prop::collection::vec(op(), 1..4)) {
        let parse = parse(&bytes);
        prop_assert_eq!(parse.to_bytes().expect("round trip"), bytes.clone());
        for op in &ops {
            run(&parse, op)?;
        }
        run_batch(&parse, &ops)?;
    }
}

const CORPUS: [&str; 6] = [
    "gedcom4j/sample/utf8_lf_nobom.ged",
    "gedcom4j/sample/utf8_crlf_bom.ged",
    "gedcom4j/sample/ANSEL.GED",
    "gedcom4j/sample/a31486.ged",
    "gedcom7code-test-files/5/char_utf16le-2.ged",
    "gedcom4j/sample/TGC551.ged",
];

#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn edits_of_corpus_files_are_local() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 24,
        ..ProptestConfig::default()
    });
    for name in CORPUS {
        let bytes = corpus(name);
        let parse = parse(&bytes);
        let result = runner.run(&prop::collection::vec(op(), 1..4), |ops| {
            for op in &ops {
                run(&parse, op)?;
            }
            run_batch(&parse, &ops)
        });
        if let Err(e) = result {
            panic!("{name}: {e}");
        }
    }
}
