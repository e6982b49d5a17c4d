//! The one JSON string escaper and the one diagnostic-JSON writer of the workspace: the dump, the lowering's
//! JSON document (`gedgraft lower`) and `gedgraft check --format json` all write through here, so a string or a
//! diagnostic reads the same in each.

use crate::diagnostic::Diagnostic;
use std::fmt::Write as _;

/// Appends `text` as a JSON string literal. `"`, `\` and the line breaks and tab get their short escapes;
/// every other control character (C0, DEL, C1), the byte-order mark and the raw characters that stand for
/// undecodable octets are `\u` escaped (lower-case hex; a raw character as its UTF-16 surrogate pair), so
/// the output shows them and stays valid, printable JSON.
///
/// ```
/// let mut out = String::new();
/// gedgraft_syntax::internal::json_string("a\"\t\u{7f}", &mut out);
/// assert_eq!(out, r#""a\"\t\u007f""#);
/// ```
pub fn json_string(text: &str, out: &mut String) {
    out.push('"');
    json_escape(text, out);
    out.push('"');
}

/// The inside of [`json_string`] (no quotes): for writers that escape a long text piece by piece. Runs of
/// characters that need no escape are copied whole (most text is plain ASCII).
pub(crate) fn json_escape(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let (mut plain_from, mut at) = (0, 0);
    while let Some(&b) = bytes.get(at) {
        if (0x20..0x7F).contains(&b) && b != b'"' && b != b'\\' {
            at += 1;
            continue;
        }
        // `at` is at a character boundary: it only moves by whole characters.
        let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) else {
            break;
        };
        let len = c.len_utf8();
        if b >= 0x80 && !needs_escape(c) {
            at += len;
            continue;
        }
        out.push_str(text.get(plain_from..at).unwrap_or_default());
        escape_char(c, out);
        at += len;
        plain_from = at;
    }
    out.push_str(text.get(plain_from..).unwrap_or_default());
}

/// Whether a character other than `"`, `\` and printable ASCII is escaped.
fn needs_escape(c: char) -> bool {
    c.is_control() || c == '\u{FEFF}' || gedgraft_encoding::raw::is_raw(c)
}

/// Appends one character of a JSON string, escaped if [`json_escape`] escapes it.
fn escape_char(c: char, out: &mut String) {
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

/// A JSON string, or `null` for `None`.
pub fn json_option(text: Option<&str>, out: &mut String) {
    match text {
        Some(t) => json_string(t, out),
        None => out.push_str("null"),
    }
}

/// How a JSON object is laid out: `{"a":1,"b":2}` (one object a line, JSON lines) or `{"a": 1, "b": 2}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonLayout {
    /// No spaces: `{"a":1,"b":2}`.
    Compact,
    /// A space after each `:` and `,`: `{"a": 1, "b": 2}`.
    Spaced,
}

impl JsonLayout {
    /// The text between two members and between a key and its value.
    fn separators(self) -> (&'static str, &'static str) {
        match self {
            JsonLayout::Compact => (",", ":"),
            JsonLayout::Spaced => (", ", ": "),
        }
    }
}

/// Appends one diagnostic as a JSON object: `code`, `severity`, `class`, `message`, `offset`, `line` and
/// `column`, then `count` and `last_line` for a run of more than one; `more` appends further members (each
/// starting with the layout's comma) before the closing brace.
///
/// ```
/// use gedgraft_syntax::internal::{write_diagnostic_json, JsonLayout};
/// let parse = gedgraft_syntax::parse(b"0 HEAD\nx\n0 TRLR\n");
/// let mut out = String::new();
/// write_diagnostic_json(&parse.diagnostics()[0], JsonLayout::Compact, &mut out, |_| {});
/// assert!(out.starts_with(r#"{"code":"bad-level","severity":"error","#), "{out}");
/// assert!(out.ends_with(r#""offset":7,"line":2,"column":1}"#), "{out}");
/// ```
pub fn write_diagnostic_json(
    d: &Diagnostic,
    layout: JsonLayout,
    out: &mut String,
    more: impl FnOnce(&mut String),
) {
    let (comma, colon) = layout.separators();
    let key = |out: &mut String, first: bool, name: &str| {
        if !first {
            out.push_str(comma);
        }
        out.push('"');
        out.push_str(name);
        out.push('"');
        out.push_str(colon);
    };
    out.push('{');
    key(out, true, "code");
    json_string(d.code, out);
    key(out, false, "severity");
    json_string(d.severity().as_str(), out);
    key(out, false, "class");
    json_string(d.class.as_str(), out);
    key(out, false, "message");
    json_string(&d.message, out);
    let loc = d.location;
    for (name, value) in [
        ("offset", loc.offset),
        ("line", loc.line),
        ("column", loc.column),
    ] {
        key(out, false, name);
        let _ = write!(out, "{value}");
    }
    if d.count > 1 {
        key(out, false, "count");
        let _ = write!(out, "{}", d.count);
        key(out, false, "last_line");
        let _ = write!(out, "{}", d.last_line);
    }
    more(out);
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The run-copying escaper gives what escaping each character on its own gives.
        #[test]
        fn escaping_runs_is_escaping_each_character(text in "(\\PC|[\\x00-\\x1f\\x7f-\\u{9f}\"\\\\\u{feff}]|\u{10FF80})*") {
            let mut each = String::new();
            text.chars().for_each(|c| escape_char(c, &mut each));
            let mut runs = String::new();
            json_escape(&text, &mut runs);
            proptest::prop_assert_eq!(runs, each);
        }
    }

    /// The escapes a JSON reader needs and the dump shows: BOM, C1 and raw characters escaped; the result
    /// parses back to the same text.
    #[test]
    fn json_strings_escape_invisible_characters_and_read_back() {
        let raw = gedgraft_encoding::raw::to_char(0xE9);
        let text = format!("\u{FEFF}a\u{85}\u{8}\u{c}b\u{1}é{raw}");
        let mut out = String::new();
        json_string(&text, &mut out);
        assert_eq!(out, r#""\ufeffa\u0085\u0008\u000cb\u0001é\udbff\udfe9""#);
        assert_eq!(serde_json::from_str::<String>(&out).ok(), Some(text));
    }

    #[test]
    fn layouts_differ_only_in_spaces() {
        let parse = crate::parse(b"0 HEAD\n01 X\n0 TRLR\n");
        let d = &parse.diagnostics()[0];
        let (mut compact, mut spaced) = (String::new(), String::new());
        write_diagnostic_json(d, JsonLayout::Compact, &mut compact, |o| {
            o.push_str(",\"x\":1")
        });
        write_diagnostic_json(d, JsonLayout::Spaced, &mut spaced, |o| {
            o.push_str(", \"x\": 1")
        });
        assert_eq!(compact.replace(' ', ""), spaced.replace(' ', ""));
        assert!(compact.ends_with(",\"x\":1}") && spaced.contains("\"line\": 2, "));
    }
}
