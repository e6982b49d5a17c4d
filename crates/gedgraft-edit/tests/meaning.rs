//! Edits never change what a file means behind the user's back (DESIGN.md, meaning safety; issue 11): a
//! transcode refuses a doubtful reading until the reading is named, the header's serialisation metadata cannot be
//! renamed into or out of existence, `HEAD.CHAR` is written as genealogy programs read it, a transcode warns
//! when its octets cannot come back, and ANSEL diacritics stay with their letters when lines are split.
//! Corpus files are read from `../shared/corpus` (ignored when missing; see README).

mod common;

use common::{check, corpus, parse_as};
use gedgraft_edit::{EditError, Editor, NewStructure, Position, RawOctets, Scope, Warning};
use gedgraft_model::{lower, LowerOptions};
use gedgraft_syntax::encoding::Encoding;
use gedgraft_syntax::{parse, Parse};
use gedgraft_test_support::marks_before_conc;
use unicode_normalization::UnicodeNormalization;

/// A windows-1252 file whose header says ANSEL (the issue's `Alcalá`).
const ANSEL_LABEL_1252: &[u8] =
    b"0 HEAD\r\n1 CHAR ANSEL\r\n0 @I1@ INDI\r\n1 NAME Mar\xEDa /L\xF3pez/\r\n1 BIRT\r\n2 PLAC Alcal\xE1 de Henares\r\n0 TRLR\r\n";

/// A UTF-8 file whose header says ANSI (windows-1252).
const ANSI_LABEL_UTF8: &[u8] =
    b"0 HEAD\n1 CHAR ANSI\n0 @I1@ INDI\n1 NAME Mar\xC3\xADa /L\xC3\xB3pez/\n0 TRLR\n";

fn transcode(parse: &Parse, to: Encoding) -> Result<gedgraft_edit::Edited<'_>, EditError> {
    let mut editor = Editor::new(parse);
    editor.transcode(to, RawOctets::Refuse);
    editor.apply()
}

/// Every structure's tag and payload text after lowering, in NFC (ANSEL has no precomposed letters).
fn payloads(parse: &Parse) -> Vec<(String, Option<String>)> {
    let lowered = lower(parse, &LowerOptions::default());
    lowered
        .dataset
        .iter()
        .map(|s| (s.tag().to_string(), s.text().map(|t| t.nfc().collect())))
        .collect()
}

#[test]
fn transcode_refuses_a_windows_1252_file_labelled_ansel_until_the_reading_is_named() {
    let parse = parse(ANSEL_LABEL_1252);
    let err = transcode(&parse, Encoding::Utf8).expect_err("in doubt");
    let EditError::DoubtfulDecoding {
        encoding,
        line,
        reason,
    } = &err
    else {
        panic!("{err:?}");
    };
    // Line 4's `Mar\xEDa`: `ED 61` is no letter in ANSEL (`í` + `a` in windows-1252).
    assert_eq!((*encoding, *line), (Encoding::Ansel, 4));
    assert!(reason.contains("look like windows-1252"), "{reason}");
    assert!(err.to_string().contains("--encoding NAME"), "{err}");
    // Named: read as windows-1252, written as UTF-8 with the right CHAR.
    let named = parse_as(ANSEL_LABEL_1252, Encoding::Windows1252);
    let edited = transcode(&named, Encoding::Utf8).expect("named reading");
    check(&named, &edited);
    assert_eq!(
        edited.bytes(),
        "0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1 NAME María /López/\r\n1 BIRT\r\n2 PLAC Alcalá de Henares\r\n0 TRLR\r\n"
            .as_bytes()
    );
    assert!(edited.parse().detection().doubt().is_none());
}

#[test]
fn transcode_refuses_a_utf8_file_labelled_ansi_instead_of_double_encoding_it() {
    let parse = parse(ANSI_LABEL_UTF8);
    assert!(matches!(
        transcode(&parse, Encoding::Utf8),
        Err(EditError::DoubtfulDecoding {
            encoding: Encoding::Windows1252,
            line: 4,
            ..
        })
    ));
    // Even an identity transcode (nothing would be rewritten but CHAR) waits for the reading.
    assert!(transcode(&parse, Encoding::Windows1252).is_err());
    let named = parse_as(ANSI_LABEL_UTF8, Encoding::Utf8);
    let edited = transcode(&named, Encoding::Utf8).expect("named reading");
    assert_eq!(
        edited.bytes(),
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Mar\xC3\xADa /L\xC3\xB3pez/\n0 TRLR\n"
    );
    assert_eq!(edited.line_counts(), (1, 1), "only the CHAR line changes");
}

#[test]
fn r_header_02_serialisation_metadata_is_not_renamed_into_or_out_of_existence() {
    let input = b"0 HEAD\n1 _ENC windows-1252\n1 GEDC\n2 VERS 5.5.1\n2 _F x\n1 CHAR UTF-8\n1 NOTE n\n0 @I1@ INDI\n1 _ENC x\n1 CHAR y\n0 TRLR\n";
    let parse = parse(input);
    for (from, to) in [
        ("_ENC", "CHAR"),
        ("_ENC", "GEDC"),
        ("_ENC", "ELF"),
        ("_ENC", "SCHMA"),
        ("CHAR", "_ENC"),
        ("GEDC", "_GEDC"),
        ("VERS", "_V"),
        ("_F", "FORM"),
    ] {
        let err = Editor::new(&parse)
            .rename_tag(from, to, None)
            .expect_err(from);
        assert!(
            matches!(err, EditError::Protected { .. }),
            "{from}={to}: {err:?}"
        );
        assert!(err.to_string().contains("line "), "{err}");
    }
    // PLANG is reserved (R-TAGS-03) and never a new tag.
    assert!(matches!(
        Editor::new(&parse).rename_tag("_ENC", "PLANG", None),
        Err(EditError::ReservedTag { .. })
    ));
    // Outside the header, and for other header structures, renames go on.
    let mut editor = Editor::new(&parse);
    let indi = Scope::parse("INDI").expect("scope");
    assert_eq!(
        editor
            .rename_tag("_ENC", "CHAR", Some(&indi))
            .expect("INDI"),
        1
    );
    let mut editor = Editor::new(&parse);
    assert_eq!(editor.rename_tag("NOTE", "_NOTE", None).expect("NOTE"), 1);
    // Inserting a CHAR into the header, or anything into HEAD.CHAR, changes the decoding too.
    let header = parse.document().header().expect("header");
    let head_structure = parse.document().all_structures().next().expect("HEAD");
    let mut editor = Editor::new(&parse);
    assert!(matches!(
        editor.insert(
            &head_structure,
            Position::FirstChild,
            &NewStructure::new("CHAR").text("ANSEL")
        ),
        Err(EditError::Protected { .. })
    ));
    let char_structure = parse
        .document()
        .all_structures()
        .find(|s| {
            s.tag()
                .is_some_and(|t| gedgraft_syntax::ast::AstToken::text(&t) == "CHAR")
        })
        .expect("CHAR");
    assert!(matches!(
        editor.insert(
            &char_structure,
            Position::LastChild,
            &NewStructure::new("VERS").text("1250")
        ),
        Err(EditError::Protected { .. })
    ));
    drop(header);
}

/// R-SPECIFIED-ENC-10…13: `--to-encoding` writes the CHAR (and VERS) values programs read, and the output
/// reads back as the target.
#[test]
fn r_specified_enc_13_transcode_writes_the_char_values_programs_read() {
    let input = "0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE Zo\u{eb}\n0 TRLR\n";
    let parse = parse(input.as_bytes());
    let cases: [(Encoding, &str); 6] = [
        (Encoding::Windows1252, "1 CHAR ANSI\n0 @N1@"),
        (Encoding::Windows1250, "1 CHAR ANSI\n2 VERS 1250\n0 @N1@"),
        (Encoding::Windows1251, "1 CHAR ANSI\n2 VERS 1251\n0 @N1@"),
        (Encoding::Ibm437, "1 CHAR IBMPC\n0 @N1@"),
        (Encoding::Macintosh, "1 CHAR MACINTOSH\n0 @N1@"),
        (Encoding::Ansel, "1 CHAR ANSEL\n0 @N1@"),
    ];
    for (to, header) in cases {
        let edited = transcode(&parse, to).expect("transcode");
        check(&parse, &edited);
        let text = String::from_utf8_lossy(edited.bytes()).into_owned();
        assert!(
            text.starts_with(&format!("0 HEAD\n{header}")),
            "{to}: {text}"
        );
        assert_eq!(gedgraft_syntax::parse(edited.bytes()).encoding(), to);
    }
    let edited = transcode(&parse, Encoding::Utf16Le).expect("UTF-16");
    assert_eq!(
        gedgraft_syntax::parse(edited.bytes()).encoding(),
        Encoding::Utf16Le
    );
    assert!(
        gedgraft_syntax::parse(edited.bytes())
            .detection()
            .declared
            .as_deref()
            == Some("UNICODE")
    );
    // An existing VERS under ANSI is rewritten, not duplicated; one that names no code page goes.
    let ansi_1250 = b"0 HEAD\n1 CHAR ANSI\n2 VERS 1250\n0 TRLR\n";
    let ansi = parse_as(ansi_1250, Encoding::Windows1250);
    let edited = transcode(&ansi, Encoding::Windows1251).expect("1251");
    assert_eq!(
        edited.bytes(),
        b"0 HEAD\n1 CHAR ANSI\n2 VERS 1251\n0 TRLR\n"
    );
    let edited = transcode(&ansi, Encoding::Utf8).expect("UTF-8");
    assert_eq!(edited.bytes(), b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n");
}

#[test]
fn transcoding_an_ansi_file_to_windows_1252_is_a_no_op() {
    for input in [
        &b"0 HEAD\n1 CHAR ANSI\n0 @N1@ NOTE Zo\xEB\n0 TRLR\n"[..],
        b"0 HEAD\n1 CHAR IBM WINDOWS\n0 @N1@ NOTE Zo\xEB\n0 TRLR\n",
        b"0 HEAD\n1 CHAR ansi\n2 VERS 1252\n0 TRLR\n",
    ] {
        let parse = parse(input);
        let edited = transcode(&parse, Encoding::Windows1252).expect("no-op");
        assert!(!edited.is_changed(), "{}", String::from_utf8_lossy(input));
        assert_eq!(edited.bytes(), input);
        assert!(edited.warnings().is_empty());
    }
}

/// R-ANSEL-02: `F8` and `F1` both stand for U+0328 (and `C7`, `CF` for `ß`), so ANSEL → UTF-8 → ANSEL changes
/// those octets; the first transcode says so, naming the octets and how many.
#[test]
fn r_ansel_02_a_transcode_that_cannot_come_back_warns() {
    let input = b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE \xF8a \xF8e \xC7 \xF1a\n0 TRLR\n";
    let parse = parse(input);
    let edited = transcode(&parse, Encoding::Utf8).expect("to UTF-8");
    assert_eq!(
        edited.warnings(),
        [Warning::NotReversible {
            from: Encoding::Ansel,
            to: Encoding::Utf8,
            octets: vec![(vec![0xC7], vec![0xCF], 1), (vec![0xF8], vec![0xF1], 2)],
            moved_marks: 0,
        }]
    );
    let message = edited.warnings()[0].to_string();
    assert!(message.contains("3 characters"), "{message}");
    assert!(message.contains("F8 ×2 would come back as F1"), "{message}");
    let utf8 = edited.into_parse();
    let back = transcode(&utf8, Encoding::Ansel).expect("back");
    let differing = input
        .iter()
        .zip(back.bytes())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!((back.bytes().len(), differing), (input.len(), 3));
    // The other way: a precomposed letter ANSEL writes decomposed comes back decomposed.
    let parse =
        gedgraft_syntax::parse("0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE Jos\u{e9}\n0 TRLR\n".as_bytes());
    let edited = transcode(&parse, Encoding::Ansel).expect("to ANSEL");
    assert_eq!(
        edited.warnings(),
        [Warning::NotReversible {
            from: Encoding::Utf8,
            to: Encoding::Ansel,
            octets: vec![(vec![0xC3, 0xA9], vec![0x65, 0xCC, 0x81], 1)],
            moved_marks: 0,
        }]
    );
    // Reversible transcodes do not warn.
    let parse =
        gedgraft_syntax::parse("0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE Jos\u{e9}\n0 TRLR\n".as_bytes());
    assert!(transcode(&parse, Encoding::Windows1252)
        .expect("1252")
        .warnings()
        .is_empty());
}

/// The issue's real file: 52 octets of gedcom4j's ANSEL.GED do not come back.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn r_ansel_02_the_corpus_ansel_file_warns_about_its_52_octets() {
    let bytes = corpus("gedcom4j/sample/ANSEL.GED");
    let parse = parse(&bytes);
    assert!(
        parse.detection().doubt().is_none(),
        "a clean ANSEL file is not in doubt"
    );
    let edited = transcode(&parse, Encoding::Utf8).expect("to UTF-8");
    let [Warning::NotReversible { octets, .. }] = edited.warnings() else {
        panic!("{:?}", edited.warnings());
    };
    assert_eq!(octets.iter().map(|(_, _, n)| n).sum::<usize>(), 52);
    let utf8 = edited.into_parse();
    let back = transcode(&utf8, Encoding::Ansel).expect("back");
    let differing = bytes
        .iter()
        .zip(back.bytes())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(differing, 52);
}

/// R-SERIALISING-STRUCTS-14 and R-ANSEL-03: a re-wrap never puts a split between an ANSEL diacritic and the
/// letter after it, and the result lowers to the same text.
#[test]
fn r_serialising_structs_14_rewrap_keeps_ansel_marks_with_their_letters() {
    let note: Vec<u8> = b"\xE2a\xE2e\xE2i\xE2o\xE2u\xE8a\xE8e\xF0c".repeat(12);
    let mut input = b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE ".to_vec();
    input.extend_from_slice(&note);
    input.extend_from_slice(b"\n0 TRLR\n");
    let parse = parse(&input);
    assert!(parse.detection().doubt().is_none());
    for limit in 32..48 {
        let mut editor = Editor::new(&parse);
        assert_eq!(editor.rewrap(Some(limit), None).expect("rewrap"), 1);
        let edited = editor.apply().expect("apply");
        check(&parse, &edited);
        assert_eq!(marks_before_conc(edited.bytes()), 0, "limit {limit}");
        assert!(edited.bytes().windows(6).filter(|w| w == b" CONC ").count() > 3);
        assert_eq!(payloads(&parse), payloads(edited.parse()), "limit {limit}");
    }
    // `--set` and the same layout: a new ANSEL value is split between letters only.
    let mut editor = Editor::new(&parse);
    editor.set_line_limit(32).expect("limit");
    let n1 = parse.document().record_by_xref("N1").expect("N1");
    editor.set_payload(&n1, &"áéíóú".repeat(10)).expect("set");
    let edited = editor.apply().expect("apply");
    assert_eq!(marks_before_conc(edited.bytes()), 0);
    assert!(edited.bytes().windows(6).any(|w| w == b" CONC "));
}

/// The issue's real file: `--rewrap=32` on ANSEL.GED used to end 56 lines with a diacritic.
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "corpus missing: see README, Tests and the corpus"
)]
fn r_serialising_structs_14_rewrap_of_the_corpus_ansel_file_keeps_marks_with_letters() {
    let bytes = corpus("gedcom4j/sample/ANSEL.GED");
    let parse = parse(&bytes);
    let mut editor = Editor::new(&parse);
    assert!(editor.rewrap(Some(32), None).expect("rewrap") > 0);
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    assert_eq!(marks_before_conc(edited.bytes()), 0);
    assert_eq!(payloads(&parse), payloads(edited.parse()));
}

/// `rewrap` changes only the lines over the limit; joining needless splits is `join_conc`'s job.
#[test]
fn rewrap_touches_only_long_lines() {
    let mut input = String::from("0 HEAD\n1 CHAR UTF-8\n");
    for i in 0..23 {
        input.push_str(&format!(
            "0 @N{i}@ NOTE {}\n",
            "long ".repeat(60).trim_end()
        ));
        input.push_str(&format!(
            "0 @S{i}@ NOTE short\n1 CONC needless\n1 CONC ly split\n"
        ));
    }
    input.push_str("0 TRLR\n");
    let parse = parse(input.as_bytes());
    let mut editor = Editor::new(&parse);
    assert_eq!(editor.rewrap(None, None).expect("rewrap"), 23);
    let edited = editor.apply().expect("apply");
    assert_eq!(edited.line_counts(), (23, 46));
    assert_eq!(payloads(&parse), payloads(edited.parse()));
    let mut editor = Editor::new(&parse);
    assert_eq!(editor.join_conc(None, None).expect("join"), 23);
    let edited = editor.apply().expect("apply");
    assert_eq!(edited.line_counts(), (69, 23));
    assert_eq!(payloads(&parse), payloads(edited.parse()));
}

/// R-ANSEL-03 the other way: a UTF-8 file split between a letter and its combining mark (`e` | `CONC` U+0301)
/// transcoded to ANSEL keeps the mark on its letter: ANSEL writes it before the letter, on the first line.
#[test]
fn r_ansel_03_transcode_to_ansel_keeps_a_mark_split_off_by_conc_with_its_letter() {
    let input =
        "0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE Jose\n1 CONC \u{301} y Mar\u{ed}a\n1 CONT x\n0 TRLR\n";
    let parse = parse(input.as_bytes());
    let edited = transcode(&parse, Encoding::Ansel).expect("to ANSEL");
    check(&parse, &edited);
    assert_eq!(
        edited.bytes(),
        b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE Jos\xE2e\n1 CONC  y Mar\xE2ia\n1 CONT x\n0 TRLR\n"
    );
    assert_eq!(payloads(&parse), payloads(edited.parse()));
}

/// The first structure tagged `tag` (as written).
fn tagged(parse: &Parse, tag: &str) -> gedgraft_syntax::ast::Structure {
    parse
        .document()
        .all_structures()
        .find(|s| {
            s.tag()
                .is_some_and(|t| gedgraft_syntax::ast::AstToken::text(&t) == tag)
        })
        .unwrap_or_else(|| panic!("no {tag}"))
}

/// R-SPECIFIED-ENC-05: detection upper-cases the header lines it scans, so `1 char UTF-8` is the CHAR line.
/// Every guard matches it alike: it cannot be set, deleted, renamed or inserted into, nothing is renamed to
/// `char`, and a transcode rewrites it instead of adding a second CHAR line (issue 11, F2).
#[test]
fn r_specified_enc_05_a_lowercase_char_line_is_guarded_like_char() {
    let input = b"0 HEAD\n1 char UTF-8\n1 _ENC ANSEL\n0 @I1@ INDI\n1 NAME Mar\xC3\xADa\n0 TRLR\n";
    let parse = parse(input);
    assert_eq!(parse.encoding(), Encoding::Utf8);
    let char_line = tagged(&parse, "char");
    let protected = |r: Result<(), EditError>| matches!(r, Err(EditError::Protected { .. }));
    assert!(protected(
        Editor::new(&parse).set_payload(&char_line, "ANSEL")
    ));
    assert!(protected(Editor::new(&parse).delete(&char_line)));
    assert!(protected(Editor::new(&parse).insert(
        &char_line,
        Position::LastChild,
        &NewStructure::new("VERS").text("1250")
    )));
    let head = tagged(&parse, "HEAD");
    assert!(protected(Editor::new(&parse).insert(
        &head,
        Position::LastChild,
        &NewStructure::new("Char").text("ANSEL")
    )));
    for (from, to) in [("char", "_C"), ("_ENC", "char"), ("_ENC", "cHAR")] {
        let err = Editor::new(&parse)
            .rename_tag(from, to, None)
            .expect_err(to);
        assert!(matches!(err, EditError::Protected { .. }), "{err:?}");
    }
    let err = Editor::new(&parse)
        .rename_tag("char", "_C", None)
        .expect_err("char");
    assert!(err.to_string().contains("(`1 char UTF-8`)"), "{err}");
    // The transcode rewrites the `char` line's value; the tag stays as written.
    let edited = transcode(&parse, Encoding::Windows1252).expect("to windows-1252");
    check(&parse, &edited);
    assert_eq!(
        edited.bytes(),
        b"0 HEAD\n1 char ANSI\n1 _ENC ANSEL\n0 @I1@ INDI\n1 NAME Mar\xEDa\n0 TRLR\n"
    );
    assert_eq!(edited.parse().encoding(), Encoding::Windows1252);
}

/// The dialect (`HEAD.GEDC.VERS`, `HEAD.ELF`) decides how every line is read (GEDCOM 7 has no CONC and doubles
/// only a leading `@`): edits inside `GEDC` or `ELF` are refused like edits of `CHAR` (issue 11, N3).
#[test]
fn edits_that_change_the_dialect_are_refused() {
    let parse = parse(b"0 HEAD\n1 GEDC\n2 VERS 7.0\n1 NOTE n\n0 TRLR\n");
    let vers = tagged(&parse, "VERS");
    let err = Editor::new(&parse)
        .set_payload(&vers, "5.5.1")
        .expect_err("GEDC.VERS");
    assert!(matches!(err, EditError::Protected { .. }), "{err:?}");
    assert!(
        err.to_string().contains("which version of GEDCOM or ELF"),
        "{err}"
    );
    assert!(Editor::new(&parse).delete(&tagged(&parse, "GEDC")).is_err());
    let head = tagged(&parse, "HEAD");
    for tag in ["ELF", "GEDC"] {
        assert!(matches!(
            Editor::new(&parse).insert(&head, Position::LastChild, &NewStructure::new(tag)),
            Err(EditError::Protected { .. })
        ));
    }
    let elf = gedgraft_syntax::parse(b"0 HEAD\n1 ELF 1.0\n0 TRLR\n");
    assert!(Editor::new(&elf)
        .set_payload(&tagged(&elf, "ELF"), "2.0")
        .is_err());
    // Other header structures are edited as before.
    let mut editor = Editor::new(&parse);
    editor
        .set_payload(&tagged(&parse, "NOTE"), "m")
        .expect("NOTE");
    assert_eq!(
        editor.apply().expect("apply").bytes(),
        b"0 HEAD\n1 GEDC\n2 VERS 7.0\n1 NOTE m\n0 TRLR\n"
    );
}

/// New text that is not ASCII is written in the encoding the file was read with; while that reading is in
/// doubt it is refused as a transcode is (issue 11, N1). ASCII is the same octets in either reading.
#[test]
fn new_text_is_refused_while_the_reading_is_in_doubt() {
    let doubtful = parse(ANSI_LABEL_UTF8);
    let name = tagged(&doubtful, "NAME");
    let err = Editor::new(&doubtful)
        .set_payload(&name, "José")
        .expect_err("in doubt");
    let EditError::DoubtfulNewText { encoding, line, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!((*encoding, *line), (Encoding::Windows1252, 4));
    assert!(err.to_string().contains("--encoding NAME"), "{err}");
    let indi = tagged(&doubtful, "INDI");
    let new = NewStructure::new("NOTE").child(NewStructure::new("_X").text("ä"));
    assert!(matches!(
        Editor::new(&doubtful).insert(&indi, Position::LastChild, &new),
        Err(EditError::DoubtfulNewText { .. })
    ));
    let mut editor = Editor::new(&doubtful);
    editor.set_payload(&name, "Jose").expect("ASCII");
    // Named, the reading is no longer in doubt.
    let named = parse_as(ANSI_LABEL_UTF8, Encoding::Utf8);
    let mut editor = Editor::new(&named);
    editor
        .set_payload(&tagged(&named, "NAME"), "José")
        .expect("named");
    assert!(editor
        .apply()
        .expect("apply")
        .bytes()
        .windows(5)
        .any(|w| w == "José".as_bytes()));
}

/// The reading stays in doubt after an edit: a file edited (another stage of `fix`, or the repairs) is read as
/// the file it was made from, whatever the edit removed. `--delete NOTE --set @I1@.NAME=José` on a UTF-8 file
/// whose `NOTE` holds `M\xFCller` wrote `José` in UTF-8 next to `G\xE4rtner` (exit 0), because the deletion
/// took the line whose octets put the reading in doubt and the edited file was read afresh (found by a
/// helper).
#[test]
fn new_text_is_refused_in_an_edited_file_whose_reading_was_in_doubt() {
    let doubtful = parse(b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE M\xfcller\n0 @I1@ INDI\n1 NAME A\n1 NOTE G\xe4rtner\n0 TRLR\n");
    assert!(doubtful.detection().doubt().is_some());
    let mut editor = Editor::new(&doubtful);
    editor.delete(&tagged(&doubtful, "NOTE")).expect("delete");
    let deleted = editor.apply().expect("applied");
    let edited = deleted.parse();
    assert!(edited.detection().doubt().is_some(), "the doubt stays");
    let err = Editor::new(edited)
        .set_payload(&tagged(edited, "NAME"), "José")
        .expect_err("in doubt");
    // Named by the line of the note that says why, which the deletion removed (it said line 1).
    assert!(
        matches!(err, EditError::DoubtfulNewText { line: 3, .. }),
        "{err:?}"
    );
    // A transcode is another reading: its doubt is the new file's own.
    let named = parse_as(
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME G\xe4rtner\n0 TRLR\n",
        Encoding::Windows1252,
    );
    let utf8 = transcode(&named, Encoding::Utf8).expect("transcoded");
    assert!(utf8.parse().detection().doubt().is_none());
}

/// GEDCOM 5.5.5 files are UTF-8 or UTF-16 (5.5.5 § Character sets); a transcode to another encoding is
/// refused as for GEDCOM 7 (issue 11, N2).
#[test]
fn gedcom_555_is_transcoded_only_to_utf8_or_utf16() {
    let input = b"0 HEAD\n1 GEDC\n2 VERS 5.5.5\n2 FORM LINEAGE-LINKED\n3 VERS 5.5.5\n1 CHAR UTF-8\n0 TRLR\n";
    let parse = parse(input);
    for to in [Encoding::Windows1252, Encoding::Ansel, Encoding::Ascii] {
        let err = transcode(&parse, to).expect_err("not UTF");
        assert!(matches!(err, EditError::DialectForbids { .. }), "{err:?}");
        assert!(err.to_string().contains("UTF-8 or UTF-16 only"), "{err}");
    }
    let edited = transcode(&parse, Encoding::Utf16Le).expect("UTF-16");
    assert_eq!(edited.parse().encoding(), Encoding::Utf16Le);
}

/// An ANSEL diacritic that ends a line before the `CONC` line holding its letter (gedcom4j's `issue81.ged`)
/// travels with its letter in UTF-8; back in ANSEL it starts the `CONC` line, so the first transcode warns
/// (issue 11, F3). R-ANSEL-03
#[test]
fn r_ansel_03_a_mark_moved_across_conc_is_warned_about() {
    let input = b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE arr\xE3\n1 CONC ete\n0 TRLR\n";
    let parse = parse(input);
    let edited = transcode(&parse, Encoding::Utf8).expect("to UTF-8");
    assert_eq!(
        edited.warnings(),
        [Warning::NotReversible {
            from: Encoding::Ansel,
            to: Encoding::Utf8,
            octets: Vec::new(),
            moved_marks: 1,
        }]
    );
    let message = edited.warnings()[0].to_string();
    assert!(
        message.contains("1 diacritic ending a line would come back at the start of the CONC line"),
        "{message}"
    );
    let back = transcode(edited.parse(), Encoding::Ansel).expect("back");
    assert_eq!(
        back.bytes(),
        b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE arr\n1 CONC \xE3ete\n0 TRLR\n"
    );
    assert!(back.warnings().is_empty(), "{:?}", back.warnings());
}

/// Junk after the trailer (a DOS end-of-file mark, binary octets) is not text of the file: it puts no doubt on
/// the reading, and a transcode copies its octets as they are, raw octets or not (issue 11, F4).
/// R-TAGGED-STRUCTS-05
#[test]
fn junk_after_the_trailer_is_copied_by_a_transcode() {
    let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Jos\xC3\xA9\n0 TRLR\n\x1a\x00\xff\xfe";
    let parse = parse(input);
    assert!(parse.detection().doubt().is_none());
    for to in [Encoding::Windows1252, Encoding::Ansel, Encoding::Utf16Le] {
        for policy in [RawOctets::Refuse, RawOctets::Replace] {
            let mut editor = Editor::new(&parse);
            editor.transcode(to, policy);
            let edited = editor.apply().expect("transcode");
            // The junk may read differently in `to` (`FF FE` is `ÿþ` in windows-1252): not `check`ed.
            assert_eq!(edited.parse().encoding(), to);
            assert!(
                edited.bytes().ends_with(b"\x1a\x00\xff\xfe"),
                "{to}: {:?}",
                edited.bytes()
            );
            assert!(!edited.warnings().contains(&Warning::Reparsed), "{to}");
        }
    }
    let edited = transcode(&parse, Encoding::Windows1252).expect("1252");
    assert_eq!(
        edited.bytes(),
        b"0 HEAD\n1 CHAR ANSI\n0 @I1@ INDI\n1 NAME Jos\xE9\n0 TRLR\n\x1a\x00\xff\xfe"
    );
}

/// The NOTE payload of the file's first record after lowering, in NFC.
fn note_text(parse: &Parse) -> String {
    payloads(parse)
        .into_iter()
        .find_map(|(tag, text)| (tag == "NOTE").then_some(text).flatten())
        .unwrap_or_default()
}

/// A UTF-8 file whose `@I1@` has a NOTE of `text` (`@` doubled, each line break a `CONT` line).
fn utf8_note(text: &str) -> Vec<u8> {
    let lines: Vec<String> = text.split('\n').map(|l| l.replace('@', "@@")).collect();
    let mut out = String::from(
        "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @I1@ INDI\n",
    );
    out.push_str(&format!("1 NOTE {}\n", lines[0]));
    for line in &lines[1..] {
        out.push_str(&format!("2 CONT {line}\n"));
    }
    out.push_str("0 TRLR\n");
    out.into_bytes()
}

/// R-ANSEL-01: ANSEL writes a diacritic before its letter, and a reader swaps it with the character after it.
/// A combining mark with no letter of its own in the text written (at the start of a line, after an `@@` or an
/// escape) was written as it came, so it read back as a mark of the next character: `cafe` / `CONT ́x`
/// became `cafe` / `x́`, `a@@́b` became `a@b́` (found by a helper). Such marks are written as a Unicode escape,
/// by a transcode, by `set_payload` and by the writer alike.
#[test]
fn r_ansel_01_marks_with_no_letter_of_their_own_keep_their_meaning_in_ansel() {
    for text in [
        "cafe\n\u{301}x",
        "\u{301}lead",
        "a@\u{301}b",
        "@#DJULIAN@\u{301} 1700",
        "\u{e9}\u{301} x",
        "\u{fe20}x\u{fe21}y",
        "Jose\u{301} @ ok\n\u{327}\u{301}",
    ] {
        let [(transcoded, before), (set, wanted)] = through_ansel(text);
        assert_eq!(transcoded, before, "{text:?}: transcode");
        assert_eq!(set, wanted, "{text:?}: set_payload");
    }
}

/// `text` as a NOTE of a UTF-8 file transcoded to ANSEL, and set as the NOTE of that ANSEL file: each read
/// back (lowered, NFC) with what it should read.
fn through_ansel(text: &str) -> [(String, String); 2] {
    let source = parse(&utf8_note(text));
    let before = note_text(&source);
    let edited = transcode(&source, Encoding::Ansel).expect("transcoded");
    let ansel = edited.parse();
    let mut editor = Editor::new(ansel);
    let note = tagged(ansel, "NOTE");
    editor.set_payload(&note, text).expect("set");
    let set = editor.apply().expect("applied");
    [
        (note_text(ansel), before),
        (note_text(set.parse()), text.nfc().collect()),
    ]
}

use proptest::prelude::*;

proptest! {
    /// Text of letters, `@`, spaces, line breaks and combining marks anywhere (ANSEL's and its ligature
    /// halves) keeps its meaning through a transcode to ANSEL and through `set_payload` in an ANSEL file.
    #[test]
    fn marks_anywhere_keep_their_meaning_in_ansel(
        chars in proptest::collection::vec(
            proptest::sample::select(vec!['a', 'e', 'Z', '@', ' ', '\n', '\u{301}', '\u{327}', '\u{308}', '\u{fe20}', '\u{fe21}', '\u{e9}']),
            1..24,
        )
    ) {
        let text: String = chars.into_iter().collect();
        let [(transcoded, before), (set, wanted)] = through_ansel(&text);
        prop_assert_eq!(transcoded, before);
        prop_assert_eq!(set, wanted);
    }
}

/// R-MERGE-CONTS-10: a `CONT` line reads back as a line feed, the one form of inserted break. A carriage return
/// in new text is a character of the value: `set_payload` and `insert` split it into a `CONT` line, which
/// read back as a LF (`a\rb` became `a\nb`, silently). Where escapes exist it is written `@#UD@`, in every
/// encoding; GEDCOM 7, which has none, refuses it.
#[test]
fn a_carriage_return_in_new_text_is_a_character_not_a_line_break() {
    for (char, encoding) in [
        ("UTF-8", Encoding::Utf8),
        ("ANSEL", Encoding::Ansel),
        ("ANSI", Encoding::Windows1252),
        ("ASCII", Encoding::Ascii),
    ] {
        let input = format!("0 HEAD\n1 CHAR {char}\n0 @N1@ NOTE old\n0 TRLR\n");
        let parse = parse(input.as_bytes());
        assert_eq!(parse.encoding(), encoding);
        for text in ["a\rb", "a\r\nb", "\r", "a\n\rb\r", "x\r\u{301}y"] {
            let mut editor = Editor::new(&parse);
            editor
                .set_payload(&tagged(&parse, "NOTE"), text)
                .expect("set");
            let set = editor.apply().expect("applied");
            assert_eq!(
                note_text(set.parse()),
                text.nfc().collect::<String>(),
                "{char} {text:?}"
            );
            let mut editor = Editor::new(&parse);
            let record = parse.document().record_by_xref("N1").expect("N1");
            editor
                .insert(
                    &record,
                    Position::Before,
                    &NewStructure::new("NOTE").text(text),
                )
                .expect("insert");
            let inserted = editor.apply().expect("applied");
            assert_eq!(
                note_text(inserted.parse()),
                text.nfc().collect::<String>(),
                "{char} {text:?}"
            );
        }
    }
    let seven = parse(b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @N1@ SNOTE old\n0 TRLR\n");
    let snote = tagged(&seven, "SNOTE");
    let mut editor = Editor::new(&seven);
    let refused = editor.set_payload(&snote, "a\r\nb");
    assert!(
        matches!(&refused, Err(EditError::DialectForbids { what, .. }) if what.contains("carriage return")),
        "{refused:?}"
    );
    let refused = editor.insert(
        &snote,
        Position::LastChild,
        &NewStructure::new("NOTE").text("a\rb"),
    );
    assert!(
        matches!(refused, Err(EditError::DialectForbids { .. })),
        "{refused:?}"
    );
    editor
        .set_payload(&snote, "a\nb")
        .expect("a LF is a line break");
}

/// R-ESCAPE-PRES-02: `DATE` preserves escapes of type `D`, so a date's value `@#DJULIAN@ 1 JAN 1700` holds
/// the calendar escape: `set_payload` and `insert` write it as it is, as the writer does (they doubled its
/// `@`s, turning the Julian date into text no reader takes for a date, found by a helper), and double the
/// `@`s of the same text anywhere else (R-ESCAPE-PRES-03). Restricted characters take a Unicode escape, and
/// what is not a character (U+0000, U+FFFE, U+FFFF) is refused: they were written raw.
#[test]
fn new_text_keeps_a_dates_calendar_escape_and_escapes_what_it_must() {
    let input =
        b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @I1@ INDI\n1 BIRT\n\
2 DATE 1 JAN 1700\n1 NOTE n\n0 TRLR\n";
    let parse = parse(input);
    let mut editor = Editor::new(&parse);
    let date = "@#DJULIAN@ 1 JAN 1700";
    editor
        .set_payload(&tagged(&parse, "DATE"), date)
        .expect("date");
    editor
        .set_payload(&tagged(&parse, "NOTE"), &format!("{date}\u{8}"))
        .expect("note");
    let birt = tagged(&parse, "BIRT");
    let new = NewStructure::new("DATE").text("@#DGREGORIAN@ 2 FEB 1702");
    editor
        .insert(
            &birt,
            Position::After,
            &NewStructure::new("DEAT").child(new),
        )
        .expect("insert");
    let edited = editor.apply().expect("applied");
    let text = String::from_utf8(edited.bytes().to_vec()).expect("UTF-8");
    assert!(text.contains("\n2 DATE @#DJULIAN@ 1 JAN 1700\n"), "{text}");
    assert!(
        text.contains("\n1 NOTE @@#DJULIAN@@ 1 JAN 1700@#U8@\n"),
        "{text}"
    );
    assert!(
        text.contains("\n1 DEAT\n2 DATE @#DGREGORIAN@ 2 FEB 1702\n"),
        "{text}"
    );
    let payloads = payloads(edited.parse());
    for (tag, want) in [("DATE", date), ("NOTE", &format!("{date}\u{8}"))] {
        let got = payloads
            .iter()
            .find(|(t, _)| t == tag)
            .and_then(|(_, p)| p.clone());
        assert_eq!(got.as_deref(), Some(want), "{tag}");
    }
    for bad in ['\0', '\u{fffe}', '\u{ffff}'] {
        let mut editor = Editor::new(&parse);
        let refused = editor.set_payload(&tagged(&parse, "NOTE"), &format!("a{bad}"));
        assert_eq!(refused, Err(EditError::NotACharacter { character: bad }));
    }
}

/// R-PARSING-METADATA-02: serialisation metadata and what lies in it have no identifier, and `PLANG` and
/// `DTYPE` lines (R-TAGS-03) none either. `set_xref` gave one to `HEAD.CHAR.VERS` (the file then decoded as
/// windows-1252 instead of windows-1250: `Łukasz` read `£ukasz`), to `HEAD.CHAR` (read as UTF-8) and to a
/// `DTYPE` (the payload lost its datatype), found by a helper; now refused, and removing none is refused.
#[test]
fn r_parsing_metadata_02_metadata_is_given_no_identifier() {
    let input = b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR ANSI\n2 VERS 1250\n1 ELF 1.0\n\
0 @I1@ INDI\n1 NAME x\n2 DTYPE y\n0 TRLR\n";
    let parse = parse(input);
    let all: Vec<_> = parse.document().all_structures().collect();
    for (i, structure) in all.iter().enumerate() {
        let tag = structure
            .tag()
            .map(|t| gedgraft_syntax::ast::AstToken::text(&t).to_string());
        let mut editor = Editor::new(&parse);
        let done = editor.set_xref(structure, Some("X1"));
        match tag.as_deref() {
            Some("INDI" | "NAME") => assert_eq!(done, Ok(()), "{i}"),
            _ => assert!(
                matches!(done, Err(EditError::Protected { .. })),
                "{i} {tag:?}: {done:?}"
            ),
        }
    }
}

/// A pointer that names the new identifier of `set_xref` without following a renumbering (it led nowhere, or
/// to a record deleted by the same edits) now leads to the renumbered structure: said, as the pointer's meaning
/// changed (a helper's `HUSB @I7@` pointing nowhere became the child's husband with no word); pointers that
/// follow a renumbering (a swap) are not counted.
#[test]
fn pointers_a_new_identifier_takes_over_are_warned_about() {
    let input = b"0 HEAD\n0 @I2@ INDI\n0 @I3@ INDI\n0 @F1@ FAM\n1 HUSB @I7@\n1 WIFE @I7@\n1 CHIL @I2@\n0 TRLR\n";
    let parse = parse(input);
    let record = |id: &str| parse.document().record_by_xref(id).expect("record");
    let mut editor = Editor::new(&parse);
    editor.set_xref(&record("I2"), Some("I7")).expect("set");
    let edited = editor.apply().expect("applied");
    assert_eq!(
        edited.warnings(),
        [Warning::PointersTakenOver {
            id: "I7".into(),
            count: 2
        }]
    );
    assert!(edited.warnings()[0]
        .to_string()
        .starts_with("2 pointers to `@I7@` now lead to"));
    let mut editor = Editor::new(&parse);
    editor.set_xref(&record("I2"), Some("I3")).expect("set");
    editor.set_xref(&record("I3"), Some("I2")).expect("set");
    let swapped = editor.apply().expect("applied");
    assert_eq!(swapped.warnings(), []);
}

/// R-SERIALISATION-VERSION-01: a Unicode escape (`@#U…@`) is ELF's; a GEDCOM 5.5.1 reader shows it as text.
/// A transcode to an encoding that lacks a character, or new text it lacks, writes one into a 5.5.1 file:
/// said, with how many (it was silent, found by a helper), and not in an ELF file, which has them.
#[test]
fn unicode_escapes_in_a_dialect_without_them_are_warned_about() {
    let five = parse(b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Jos\xc3\xa9 \xc3\xa9\n0 TRLR\n");
    let elf = parse(
        b"0 HEAD\n1 ELF 1.0\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Jos\xc3\xa9 \xc3\xa9\n0 TRLR\n",
    );
    let said = |edited: &gedgraft_edit::Edited<'_>| {
        edited.warnings().iter().find_map(|w| match w {
            Warning::UnicodeEscapesNotInDialect { count, .. } => Some(*count),
            _ => None,
        })
    };
    for (parse, warned) in [(&five, Some(2)), (&elf, None)] {
        let edited = transcode(parse, Encoding::Ascii).expect("transcoded");
        assert_eq!(said(&edited), warned);
        let mut editor = Editor::new(edited.parse());
        editor
            .set_payload(&tagged(edited.parse(), "NAME"), "€€€ and @#U20AC@")
            .expect("set");
        let set = editor.apply().expect("applied");
        assert_eq!(
            said(&set),
            warned.map(|_| 1),
            "{}",
            String::from_utf8_lossy(set.bytes())
        );
    }
}
