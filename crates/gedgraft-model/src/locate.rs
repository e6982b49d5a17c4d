//! Locations of the lowering's diagnostics, found in one pass over the green tokens.
//!
//! `Parse::locate` gives the same answers, but its first call writes the whole tree out as one string and
//! indexes its lines, which for a large file costs more than the lowering itself. Here the tokens are walked
//! once, up to the last diagnostic, with the line rules of `gedgraft_syntax::LineIndex` (LF, CR LF and CR are
//! one break each; LF CR is two) and its columns (characters from the line's start, a byte-order mark not
//! counted).

use gedgraft_syntax::{Diagnostic, Location, Parse};

/// Fills in `location` and `end_offset` of diagnostics sorted by their start.
pub(crate) fn locate_sorted(parse: &Parse, diagnostics: &mut [Diagnostic]) {
    let map = parse.source_map();
    for d in diagnostics.iter_mut() {
        d.end_offset = map.file_offset(usize::from(d.range.end()));
    }
    let Some(last) = diagnostics.last() else {
        return;
    };
    let root = parse.green();
    let total = usize::from(root.text_len());
    let wanted = usize::from(last.range.start()).min(total);
    let mut lines = Lines::default();
    let mut next = 0;
    let mut pos = 0;
    for token in gedgraft_syntax::internal::green_tokens(root).map(|t| t.text()) {
        if token.is_empty() {
            continue;
        }
        let start = pos;
        pos += token.len();
        lines.scan(start, token);
        while let Some(d) = diagnostics.get_mut(next) {
            let offset = usize::from(d.range.start()).min(total);
            if offset >= pos {
                break;
            }
            d.location = lines.locate(offset, Some((start, token)), map);
            next += 1;
        }
        lines.commit(start, token);
        if pos > wanted {
            break;
        }
    }
    lines.end(total);
    for d in diagnostics.iter_mut().skip(next) {
        let offset = usize::from(d.range.start()).min(total);
        d.location = lines.locate(offset, None, map);
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

/// The line state of the walk.
#[derive(Default)]
struct Lines<'t> {
    /// Whether the text starts with a byte-order mark (known from the first token on).
    bom: bool,
    seen_text: bool,
    /// Line starts before the current token (not counting the start of the text).
    breaks: usize,
    /// The start of the current line.
    line_start: usize,
    /// The tokens (or the tail of a token) from `line_start` up to the current token.
    pieces: Vec<(usize, &'t str)>,
    /// The previous token ended with a CR whose break depends on the next character.
    pending_cr: bool,
    /// Line starts inside the current token, in order.
    local: Vec<usize>,
}

impl<'t> Lines<'t> {
    /// Finds the line starts inside a token at `start` (as `LineIndex::new` does over the whole text).
    fn scan(&mut self, start: usize, token: &str) {
        if !self.seen_text {
            self.seen_text = true;
            self.bom = token.starts_with('\u{FEFF}');
        }
        self.local.clear();
        let bytes = token.as_bytes();
        let mut p = 0;
        if std::mem::take(&mut self.pending_cr) {
            if bytes.first() == Some(&b'\n') {
                self.local.push(start + 1);
                p = 1;
            } else {
                self.local.push(start);
            }
        }
        while let Some(i) = bytes
            .get(p..)
            .and_then(|b| memchr::memchr2(b'\n', b'\r', b))
        {
            let e = p + i;
            if bytes.get(e) == Some(&b'\r') {
                match bytes.get(e + 1) {
                    Some(b'\n') => p = e + 2,
                    Some(_) => p = e + 1,
                    None => {
                        self.pending_cr = true;
                        break;
                    }
                }
            } else {
                p = e + 1;
            }
            self.local.push(start + p);
        }
    }

    /// The location of `offset`, which lies in `current` (the scanned token) or, without one, at the end.
    fn locate(
        &self,
        offset: usize,
        current: Option<(usize, &str)>,
        map: &gedgraft_encoding::SourceMap,
    ) -> Location {
        let inside = self.local.partition_point(|&s| s <= offset);
        let line = 1 + self.breaks + inside;
        let mut line_start = match inside.checked_sub(1).and_then(|i| self.local.get(i)) {
            Some(&s) => s,
            None => self.line_start,
        };
        if line == 1 && self.bom {
            line_start = line_start
                .max('\u{FEFF}'.len_utf8())
                .min(offset.max(line_start));
        }
        Location {
            offset: map.file_offset(offset),
            line,
            column: self.column(line_start, offset, current),
        }
    }

    /// `text.get(from..to).map_or(1, |s| s.chars().count() + 1)` over the pieces of the current line.
    fn column(&self, from: usize, to: usize, current: Option<(usize, &str)>) -> usize {
        if from > to {
            return 1;
        }
        let mut count = 0;
        for &(start, text) in self.pieces.iter().chain(current.as_ref()) {
            let end = start + text.len();
            let (a, b) = (from.max(start), to.min(end));
            if a >= b {
                continue;
            }
            match text.get(a - start..b - start) {
                Some(s) => count += s.chars().count(),
                None => return 1,
            }
        }
        count + 1
    }

    /// Moves past a scanned token.
    fn commit(&mut self, start: usize, token: &'t str) {
        self.breaks += self.local.len();
        match self.local.last() {
            Some(&last) => {
                self.line_start = last;
                self.pieces.clear();
                if let Some(rest) = token.get(last - start..).filter(|r| !r.is_empty()) {
                    self.pieces.push((last, rest));
                }
            }
            None => self.pieces.push((start, token)),
        }
        self.local.clear();
    }

    /// The end of the text: a final CR is a break.
    fn end(&mut self, total: usize) {
        self.local.clear();
        if std::mem::take(&mut self.pending_cr) {
            self.breaks += 1;
            self.line_start = total;
            self.pieces.clear();
        }
    }
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
