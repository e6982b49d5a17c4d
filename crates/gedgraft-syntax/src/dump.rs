//! A readable dump of the tree, one element per line.
//!
//! Nodes print as `KIND@START..END`, tokens as `KIND@START..END "TEXT"`, indented two spaces per depth.
//! START and END are byte offsets in the *input file*; TEXT is a JSON string literal (raw octets appear as
//! their private-use raw characters, escaped).

use crate::kind::SyntaxKind;
use crate::parse::Parse;
use rowan::WalkEvent;
use std::fmt::Write;

/// The dump of a whole parse.
///
/// ```
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n");
/// let dump = gedgraft_syntax::dump(&parse);
/// assert!(dump.starts_with("DOCUMENT@0..7\n  RECORD@0..7\n    LEVEL@0..1 \"0\"\n"));
/// ```
pub fn dump(parse: &Parse) -> String {
    let map = parse.source_map();
    let mut out = String::new();
    let mut depth = 0usize;
    for event in parse.syntax().preorder_with_tokens() {
        match event {
            WalkEvent::Enter(element) => {
                let range = element.text_range();
                let start = map.file_offset(usize::from(range.start()));
                let end = map.file_offset(usize::from(range.end()));
                let kind: SyntaxKind = element.kind();
                let _ = write!(
                    out,
                    "{:indent$}{}@{start}..{end}",
                    "",
                    kind.name(),
                    indent = depth * 2
                );
                if let Some(token) = element.as_token() {
                    out.push(' ');
                    json_string(token.text(), &mut out);
                }
                out.push('\n');
                depth += 1;
            }
            WalkEvent::Leave(_) => depth = depth.saturating_sub(1),
        }
    }
    out
}

/// Appends `text` as a JSON string literal; control characters and raw characters are `\u` escaped.
pub fn json_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || c == '\u{FEFF}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c if gedgraft_encoding::raw::is_raw(c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
