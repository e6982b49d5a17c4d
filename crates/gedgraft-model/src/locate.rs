//! Locations of the lowering's diagnostics, found in one pass over the green tokens.
//!
//! `Parse::locate` gives the same answers, but its first call writes the whole tree out as one string and
//! indexes its lines, which for a large file costs more than the lowering itself. Here a
//! [`LineCursor`] walks the tokens once, up to the last diagnostic.

use gedgraft_syntax::line_cursor::LineCursor;
use gedgraft_syntax::{Diagnostic, Location, Parse};

/// Fills in `location` and `end_offset` of diagnostics sorted by their start, and `last_line` of runs.
pub(crate) fn locate_sorted(parse: &Parse, diagnostics: &mut [Diagnostic]) {
    let map = parse.source_map();
    for d in diagnostics.iter_mut() {
        d.end_offset = map.file_offset(usize::from(d.range.end()));
    }
    let starts: Vec<usize> = diagnostics
        .iter()
        .map(|d| usize::from(d.range.start()))
        .collect();
    let mut found = positions(parse, &starts).into_iter();
    for d in diagnostics.iter_mut() {
        let (offset, position) = found.next().unwrap_or_default();
        d.location = Location {
            offset: map.file_offset(offset),
            line: position.0,
            column: position.1,
        };
    }
    // The lines of the runs' last problems (a run of `conc-not-allowed`), in a second walk.
    let mut runs: Vec<(usize, usize)> = (diagnostics.iter().enumerate())
        .filter(|(_, d)| d.count > 1)
        .map(|(i, d)| (usize::from(d.last_start()), i))
        .collect();
    runs.sort_unstable();
    let lasts: Vec<usize> = runs.iter().map(|&(at, _)| at).collect();
    let last_lines = positions(parse, &lasts)
        .into_iter()
        .map(|(_, (line, _))| line);
    // A batch of a streamed file is located in the file.
    let origin = parse.origin();
    for d in diagnostics.iter_mut() {
        d.location.offset += origin.offset;
        d.location.line += origin.line - 1;
        d.end_offset += origin.offset;
        d.last_line = d.location.line;
    }
    for (&(_, i), line) in runs.iter().zip(last_lines) {
        if let Some(d) = diagnostics.get_mut(i) {
            d.last_line = (line + origin.line - 1).max(d.location.line);
        }
    }
}

/// The (offset, (line, column)) of each of `offsets` (ascending), each offset kept within the text.
fn positions(parse: &Parse, offsets: &[usize]) -> Vec<(usize, (usize, usize))> {
    let mut out = Vec::with_capacity(offsets.len());
    let root = parse.green();
    let total = usize::from(root.text_len());
    let mut tokens = gedgraft_syntax::internal::green_tokens(root)
        .map(|t| t.text())
        .filter(|t| !t.is_empty())
        .fuse();
    let mut cursor = LineCursor::with_columns();
    // The token holding the offsets asked for, and where it starts.
    let (mut token, mut start) = ("", 0);
    for &offset in offsets {
        let offset = offset.min(total);
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
        out.push((offset, (position.line, position.column)));
    }
    out
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
