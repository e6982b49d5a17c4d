//! Helpers shared by the editor's integration tests.

#![allow(dead_code, unused_imports)]

use gedgraft_edit::{Change, Edited, Editor, Warning};
use gedgraft_syntax::ast::{AstToken, Structure};
use gedgraft_syntax::encoding::{ansel, Encoding};
use gedgraft_syntax::{parse_with, Parse, ParseOptions, Severity, SyntaxKind};

pub use gedgraft_test_support::{check_shared_data, corpus_dir};

pub use gedgraft_test_support::corpus_bytes as corpus;

/// Checks that every octet outside the reported changes is the input's (comparing the runs between changes,
/// and the prefix and suffix around them).
pub fn assert_local(input: &[u8], output: &[u8], changes: &[Change]) {
    let (mut i, mut o) = (0, 0);
    for c in changes {
        assert!(
            c.input.start >= i && c.output.start >= o,
            "changes out of order: {changes:?}"
        );
        assert_eq!(
            c.input.start - i,
            c.output.start - o,
            "gap lengths differ before {c:?}"
        );
        assert!(
            input[i..c.input.start] == output[o..c.output.start],
            "octets outside the changes differ before {c:?}"
        );
        i = c.input.end;
        o = c.output.end;
    }
    assert_eq!(input.len() - i, output.len() - o, "suffix lengths differ");
    assert!(input[i..] == output[o..], "suffix differs");
}

/// Checks what every edit must give: the new parse writes the reported octets, the spliced tree was kept
/// (re-parsing gave the same tree), the changes are local, and a file without errors stays without errors
/// (R-APPLICATIONS-04).
pub fn check(old: &Parse, edited: &Edited) {
    let input = old.to_bytes().expect("input octets");
    let output = edited.bytes();
    assert_eq!(
        edited.parse().to_bytes().expect("output octets"),
        output,
        "the new parse writes other octets"
    );
    assert!(
        !edited.warnings().contains(&Warning::Reparsed),
        "the spliced tree differs from the re-parsed one:\n{}",
        String::from_utf8_lossy(output)
    );
    if edited.parse().encoding() == old.encoding() {
        assert_local(&input, output, edited.changed_ranges());
    }
    if !old.has_errors() {
        let errors: Vec<_> = edited
            .parse()
            .diagnostics()
            .iter()
            .filter(|d| d.severity() == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "new errors: {errors:?}");
    }
    assert_eq!(edited.is_changed(), input != output);
}

/// Parses octets with the encoding forced, as `gedgraft --encoding` does.
pub fn parse_as(bytes: &[u8], encoding: Encoding) -> Parse {
    let mut options = ParseOptions::default();
    options.detect.force = Some(encoding);
    parse_with(bytes, &options)
}

/// Edits, applies, checks, and returns the output octets.
pub fn edit(input: &[u8], f: impl FnOnce(&mut Editor)) -> Vec<u8> {
    let parse = gedgraft_syntax::parse(input);
    let mut editor = Editor::new(&parse);
    f(&mut editor);
    let edited = editor.apply().expect("apply");
    check(&parse, &edited);
    edited.into_bytes()
}

/// The logical value of a structure's payload: each line's payload unescaped (`@@` → `@`, Unicode escapes
/// decoded, a bare `@` kept), `CONT` lines joined with LF and `CONC` lines without (R-SERIALISING-STRUCTS-05);
/// ANSEL text in Unicode order.
pub fn logical(structure: &Structure, encoding: Encoding) -> String {
    let mut lines = vec![structure.line().expect("first line")];
    lines.extend(structure.continuation_lines());
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 && line.tag().is_some_and(|t| t.text() == "CONT") {
            out.push('\n');
        }
        let Some(payload) = line.payload() else {
            continue;
        };
        let mut text = String::new();
        for t in payload.tokens() {
            match t.kind() {
                SyntaxKind::Text => {
                    for piece in gedgraft_syntax::internal::text_pieces(t.text()) {
                        text.push_str(if piece == "@@" { "@" } else { piece });
                    }
                }
                SyntaxKind::Escape if t.text().starts_with("@#U") => {
                    let hex = &t.text()[3..t.text().len() - 1];
                    for h in hex.split_whitespace() {
                        let c = u32::from_str_radix(h, 16)
                            .ok()
                            .and_then(char::from_u32)
                            .expect("a valid Unicode escape");
                        text.push(c);
                    }
                }
                _ => text.push_str(t.text()),
            }
        }
        if encoding == Encoding::Ansel {
            text = ansel::to_unicode_order(&text);
        }
        out.push_str(&text);
    }
    out
}

/// The octets of each line of `bytes` with its line break (any of CR LF, LF, CR).
pub fn lines_with_breaks(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                i += 1;
                out.push(&bytes[start..i]);
                start = i;
            }
            b'\r' => {
                i += if bytes.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                out.push(&bytes[start..i]);
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < bytes.len() {
        out.push(&bytes[start..]);
    }
    out
}

/// UTF-16LE lines (split on `0A 00` / `0D 00`), each with its break.
pub fn utf16le_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i + 1] == 0 && (bytes[i] == b'\n' || bytes[i] == b'\r') {
            let crlf = bytes[i] == b'\r' && bytes.get(i + 2..i + 4) == Some(b"\n\0");
            i += if crlf { 4 } else { 2 };
            out.push(&bytes[start..i]);
            start = i;
        } else {
            i += 2;
        }
    }
    if start < bytes.len() {
        out.push(&bytes[start..]);
    }
    out
}
