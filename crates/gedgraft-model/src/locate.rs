//! Locations of the lowering's diagnostics, found in one pass over the green tokens.
//!
//! `Parse::locate` gives the same answers, but its first call writes the whole tree out as one string and
//! indexes its lines, which for a large file costs more than the lowering itself. Here a
//! [`LineCursor`] walks the tokens once, up to the last diagnostic.

use gedgraft_syntax::line_cursor::LineCursor;
use gedgraft_syntax::{Diagnostic, Location, Parse};

/// Fills in `location` and `end_offset` of diagnostics sorted by their start.
pub(crate) fn locate_sorted(parse: &Parse, diagnostics: &mut [Diagnostic]) {
    let map = parse.source_map();
    for d in diagnostics.iter_mut() {
        d.end_offset = map.file_offset(usize::from(d.range.end()));
    }
    let root = parse.green();
    let total = usize::from(root.text_len());
    let mut tokens = gedgraft_syntax::internal::green_tokens(root)
        .map(|t| t.text())
        .filter(|t| !t.is_empty())
        .fuse();
    let mut cursor = LineCursor::with_columns();
    // The token holding the offsets asked for, and where it starts.
    let (mut token, mut start) = ("", 0);
    for d in diagnostics.iter_mut() {
        let offset = usize::from(d.range.start()).min(total);
        while offset >= start + token.len() {
            cursor.feed(rest_of(token, start, &cursor), |_| ());
            let Some(next) = tokens.next() else {
                break;
            };
            start += token.len();
            token = next;
        }
        let bytes = token.as_bytes();
        let local = offset.saturating_sub(start).min(bytes.len());
        let fed = cursor.offset().saturating_sub(start);
        cursor.feed(bytes.get(fed..local).unwrap_or(&[]), |_| ());
        let position = cursor.position(bytes.get(local).copied());
        d.location = Location {
            offset: map.file_offset(offset),
            line: position.line,
            column: position.column,
        };
    }
    // The lowering reports each problem once (runs are counted by the syntax layer only). A batch of a
    // streamed file is located in the file.
    let origin = parse.origin();
    for d in diagnostics.iter_mut() {
        d.location.offset += origin.offset;
        d.location.line += origin.line - 1;
        d.end_offset += origin.offset;
        d.last_line = d.location.line;
    }
}

/// The octets of `token` (starting at text offset `start`) that `cursor` has not walked yet.
fn rest_of<'t>(token: &'t str, start: usize, cursor: &LineCursor) -> &'t [u8] {
    let fed = cursor.offset().saturating_sub(start);
    token.as_bytes().get(fed..).unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;
    use gedgraft_syntax::{Class, TextRange, TextSize};

    /// Every offset of a few awkward texts is located as `Parse::locate` locates it.
    #[test]
    fn agrees_with_parse_locate() {
        let texts: [&[u8]; 9] = [
            b"0 HEAD\n1 NOTE a\n0 TRLR\n",
            b"0 HEAD\r\n1 NOTE \xc3\xa9t\xc3\xa9\r\n0 TRLR",
            b"0 HEAD\r1 NOTE x\r\r0 TRLR\r",
            b"0 HEAD\n\r1 NOTE x\n\r\n0 TRLR\n\r",
            b"\xef\xbb\xbf0 HEAD\n1 NOTE \xe2\x82\xac\n0 TRLR\n",
            b"\xef\xbb\xbf0 HEAD",
            b"0 HEAD\n0 TRLR\nafter\r\nthe\rtrailer\n\r",
            b"0 HEAD\n1 CHAR ANSEL\n1 NOTE \xe2a\xff\n  \n0 TRLR\n",
            b"",
        ];
        for bytes in texts {
            let parse = gedgraft_syntax::parse(bytes);
            let total = u32::from(parse.green().text_len());
            let mut diagnostics: Vec<Diagnostic> = (0..=total + 2)
                .map(|o| {
                    let at = TextSize::from(o);
                    Diagnostic::new("x", Class::Warning, "", TextRange::new(at, at))
                })
                .collect();
            locate_sorted(&parse, &mut diagnostics);
            for d in &diagnostics {
                let expected = parse.locate(d.range.start());
                assert_eq!(d.location, expected, "{bytes:?} at {:?}", d.range);
                assert_eq!(
                    d.end_offset,
                    parse.source_map().file_offset(usize::from(d.range.end()))
                );
            }
            // Only some offsets.
            let mut some: Vec<Diagnostic> = diagnostics.iter().step_by(3).cloned().collect();
            let expected: Vec<Location> = some.iter().map(|d| d.location).collect();
            some.iter_mut()
                .for_each(|d| d.location = Location::default());
            locate_sorted(&parse, &mut some);
            assert_eq!(
                some.iter().map(|d| d.location).collect::<Vec<_>>(),
                expected
            );
        }
    }
}
