//! A readable dump of the tree, one element per line.
//!
//! Nodes print as `KIND@START..END`, tokens as `KIND@START..END "TEXT"`, indented two spaces per depth.
//! START and END are byte offsets in the *input file*; TEXT is a JSON string literal (raw octets appear as
//! their private-use raw characters, escaped). The indentation stops growing at depth 64 (`MAX_INDENT`): a deeper
//! element is indented as deep as that and starts with its depth, `[depth 20000] KIND@…`, so the dump stays
//! linear in the input however deep the tree (invariant 4).

use crate::json::json_escape;
use crate::kind::SyntaxKind;
use crate::parse::Parse;
use rowan::WalkEvent;
use std::fmt::Write as _;
use std::io;

/// The deepest level of indentation the dump shows (two spaces a level); deeper elements show their depth.
pub(crate) const MAX_INDENT: usize = 64;

/// The dump of a whole parse, as a string (see [`dump_to`]).
///
/// ```
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n");
/// let dump = gedgraft_syntax::dump(&parse);
/// assert!(dump.starts_with("DOCUMENT@0..7\n  RECORD@0..7\n    LEVEL@0..1 \"0\"\n"));
/// ```
pub fn dump(parse: &Parse) -> String {
    let mut out = Vec::new();
    // Writing to a `Vec` cannot fail, and the dump is UTF-8 (JSON strings and ASCII).
    let _ = dump_to(parse, &mut out);
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Writes the dump of a whole parse to `out`, one line at a time (the dump is never held whole; wrap `out` in
/// a `BufWriter` when it is unbuffered).
///
/// ```
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n");
/// let mut out = Vec::new();
/// gedgraft_syntax::dump_to(&parse, &mut out).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), gedgraft_syntax::dump(&parse));
/// ```
pub fn dump_to(parse: &Parse, out: &mut (impl io::Write + ?Sized)) -> io::Result<()> {
    let map = parse.source_map();
    let mut line = String::new();
    let mut depth = 0usize;
    for event in parse.syntax().preorder_with_tokens() {
        match event {
            WalkEvent::Enter(element) => {
                line.clear();
                indent(depth, &mut line);
                let range = element.text_range();
                let start = map.file_offset(usize::from(range.start()));
                let end = map.file_offset(usize::from(range.end()));
                let kind: SyntaxKind = element.kind();
                let _ = write!(line, "{}@{start}..{end}", kind.name());
                if let Some(token) = element.as_token() {
                    line.push_str(" \"");
                    // A long token (binary trailing text) is written piece by piece, not escaped whole.
                    let mut text = token.text();
                    while !text.is_empty() {
                        let mut cut = text.len().min(PIECE);
                        while !text.is_char_boundary(cut) {
                            cut += 1;
                        }
                        let (piece, rest) = text.split_at(cut);
                        json_escape(piece, &mut line);
                        if line.len() >= PIECE {
                            out.write_all(line.as_bytes())?;
                            line.clear();
                        }
                        text = rest;
                    }
                    line.push('"');
                }
                line.push('\n');
                out.write_all(line.as_bytes())?;
                depth += 1;
            }
            WalkEvent::Leave(_) => depth = depth.saturating_sub(1),
        }
    }
    out.flush()
}

/// How much of a long token's escaped text the dump holds before writing it out.
const PIECE: usize = 1 << 16;

/// The indentation of an element at `depth`: two spaces a level up to [`MAX_INDENT`], then `[depth N] `.
fn indent(depth: usize, out: &mut String) {
    out.extend(std::iter::repeat_n("  ", depth.min(MAX_INDENT)));
    if depth > MAX_INDENT {
        let _ = write!(out, "[depth {depth}] ");
    }
}

#[cfg(test)]
mod tests {
    use super::{dump, MAX_INDENT, PIECE};

    /// Invariant 4: the dump of a tree `n` levels deep is linear in `n` (the indentation is capped), and
    /// deep elements show their depth.
    #[test]
    fn deep_trees_dump_linearly_with_their_depth_shown() {
        let size = |depth: usize| {
            let mut input = String::from("0 HEAD\n");
            for level in 1..depth {
                input.push_str(&format!("{level} _X\n"));
            }
            let text = dump(&crate::parse(input.as_bytes()));
            (input.len(), text)
        };
        let (small_in, small) = size(2_000);
        let (large_in, large) = size(4_000);
        let ratio = large.len() as f64 / small.len() as f64;
        let input_ratio = large_in as f64 / small_in as f64;
        assert!(
            ratio < input_ratio * 1.1,
            "dump grew {ratio:.2}x for {input_ratio:.2}x input"
        );
        let deep = large
            .lines()
            .find(|l| l.contains("[depth 3000] "))
            .expect("a line at depth 3000");
        assert!(deep.starts_with(&" ".repeat(2 * MAX_INDENT)));
        assert!(!deep[2 * MAX_INDENT..].starts_with(' '));
        let shallow = large
            .lines()
            .find(|l| l.trim_start().starts_with("STRUCTURE@"))
            .expect("a structure");
        assert!(!shallow.contains("[depth"));
        let at_cap = large
            .lines()
            .find(|l| l.starts_with(&" ".repeat(2 * MAX_INDENT)))
            .expect("a line at the cap");
        assert!(
            !at_cap.contains("[depth"),
            "depth {MAX_INDENT} is still shown by indentation: {at_cap}"
        );
    }

    /// A token longer than a piece (binary trailing text, one token) is dumped as one JSON string, the same
    /// as a short one is.
    #[test]
    fn long_tokens_are_escaped_piece_by_piece_into_one_string() {
        let mut input = b"\x89PNG\r\n".to_vec();
        input.extend((0..3 * PIECE).map(|i| [b'a', 0xFF, 0xC3, 0xA9, b'"', 0x00][i % 6]));
        let parse = crate::parse(&input);
        let green = parse.green();
        let token = green.children().last().and_then(|c| c.into_token());
        let token = token.expect("one trailing token");
        let mut expected = String::new();
        crate::json::json_string(token.text(), &mut expected);
        let text = dump(&parse);
        let line = text.lines().last().expect("the token's line");
        assert!(line.ends_with(&format!(" {expected}")), "{}", &line[..80]);
        assert_eq!(parse.to_bytes().expect("octets"), input, "lossless");
    }
}
