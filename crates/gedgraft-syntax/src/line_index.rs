//! Line and column numbers for offsets in decoded text.

use crate::diagnostic::Location;
use gedgraft_encoding::SourceMap;
use std::ops::Range;

/// The start offset of every line of a text, with line breaks per the 2019 draft (LF, CR LF, CR). Offsets are
/// 32-bit, as in the tree (rowan's texts are under 4 GiB): four octets a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut starts = vec![0u32];
        let mut pos = 0;
        while let Some(i) = memchr::memchr2(b'\n', b'\r', &bytes[pos..]) {
            let e = pos + i;
            let next = if bytes[e] == b'\r' && bytes.get(e + 1) == Some(&b'\n') {
                e + 2
            } else {
                e + 1
            };
            starts.push(u32::try_from(next).unwrap_or(u32::MAX));
            pos = next;
        }
        LineIndex { starts }
    }

    /// The number of lines (a final line break starts an empty last line).
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The range of the line holding text offset `offset` (clamped to the text), without its line break: the
    /// line [`LineIndex::locate`] gives the number of. `text` is the text this index was made from.
    pub fn line_range(&self, text: &str, offset: usize) -> Range<usize> {
        let offset = offset.min(text.len());
        let line = self.line_of(offset);
        let start = self.start(line - 1).unwrap_or(0);
        let end = match self.start(line) {
            Some(next)
                if text
                    .as_bytes()
                    .get(start..next)
                    .is_some_and(|l| l.ends_with(b"\r\n")) =>
            {
                next - 2
            }
            Some(next) => next.saturating_sub(1).max(start),
            None => text.len(),
        };
        start..end
    }

    /// The start offset of the line at 0-based index `index`.
    fn start(&self, index: usize) -> Option<usize> {
        self.starts.get(index).map(|&s| s as usize)
    }

    /// The 1-based line of a text offset.
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = u32::try_from(offset).unwrap_or(u32::MAX);
        self.starts.partition_point(|&s| s <= offset).max(1)
    }

    /// The location of a text offset: file offset through `map`, 1-based line, 1-based column in characters.
    /// A byte-order mark does not count as a column.
    pub fn locate(&self, text: &str, map: &SourceMap, offset: usize) -> Location {
        self.locate_after(text, map, offset, None)
    }

    /// [`LineIndex::locate`], counting the column from `before` (an earlier text offset and its location) when
    /// that is on the same line: locating offsets in ascending order then costs the length of the text once,
    /// not once per offset (many diagnostics on one long line).
    pub fn locate_after(
        &self,
        text: &str,
        map: &SourceMap,
        offset: usize,
        before: Option<(usize, Location)>,
    ) -> Location {
        let offset = offset.min(text.len());
        let line = self.line_of(offset);
        let first_column = self.start(line - 1).map_or(0, |s| {
            if line == 1 && text.starts_with('\u{FEFF}') {
                s + '\u{FEFF}'.len_utf8()
            } else {
                s
            }
        });
        if let Some((at, location)) = before {
            let counted = (location.line == line && first_column <= at && at <= offset)
                .then(|| text.get(at..offset))
                .flatten();
            if let Some(between) = counted {
                return Location {
                    offset: map.file_offset(offset),
                    line,
                    column: location.column + between.chars().count(),
                };
            }
        }
        let mut line_start = self.start(line - 1).unwrap_or(0);
        if line == 1 && text.starts_with('\u{FEFF}') {
            line_start = line_start
                .max('\u{FEFF}'.len_utf8())
                .min(offset.max(line_start));
        }
        let column = text
            .get(line_start..offset)
            .map_or(1, |s| s.chars().count() + 1);
        Location {
            offset: map.file_offset(offset),
            line,
            column,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_line_strings_01_all_break_forms_count() {
        let text = "0 HEAD\r\n1 A\r1 B\n\r0 TRLR";
        let index = LineIndex::new(text);
        let map = SourceMap::identity(text.len());
        let at = |needle: &str| index.locate(text, &map, text.find(needle).unwrap());
        assert_eq!((at("1 A").line, at("1 A").column), (2, 1));
        assert_eq!(at("1 B").line, 3);
        assert_eq!(
            at("0 TRLR").line,
            5,
            "LF CR is two breaks (R-LINE-STRINGS-02)"
        );
        assert_eq!(at("TRLR").column, 3);
    }

    #[test]
    fn line_ranges_leave_out_the_line_break() {
        let text = "0 HEAD\r\n1 A\r1 B\n\r0 TRLR";
        let index = LineIndex::new(text);
        let line = |at: usize| &text[index.line_range(text, at)];
        assert_eq!(line(0), "0 HEAD");
        assert_eq!(line(6), "0 HEAD", "the break belongs to its line");
        assert_eq!(line(text.find("1 A").unwrap() + 2), "1 A");
        assert_eq!(line(text.find("1 B").unwrap()), "1 B");
        assert_eq!(
            line(text.find("\n\r").unwrap() + 1),
            "",
            "LF CR: a blank line between"
        );
        assert_eq!(line(text.len()), "0 TRLR");
        assert_eq!(line(usize::MAX), "0 TRLR");
        assert_eq!(LineIndex::new("").line_range("", 0), 0..0);
    }

    #[test]
    fn locating_after_an_earlier_offset_gives_the_same_locations() {
        for text in [
            "\u{FEFF}0 HEAD\r\n1 NOTE é @#x@ ü\r\n\n\r0 TRLR",
            "0 HEAD\n1 NOTE aé@#x@b\n",
            "",
        ] {
            let index = LineIndex::new(text);
            let map = SourceMap::identity(text.len());
            let offsets: Vec<usize> = (0..=text.len() + 1)
                .filter(|&i| i > text.len() || text.is_char_boundary(i))
                .collect();
            let mut before = None;
            for &at in &offsets {
                let hinted = index.locate_after(text, &map, at, before);
                assert_eq!(hinted, index.locate(text, &map, at), "{text:?} at {at}");
                before = Some((at.min(text.len()), hinted));
            }
        }
    }

    #[test]
    fn byte_order_mark_is_not_a_column() {
        let text = "\u{FEFF}0 HEAD";
        let index = LineIndex::new(text);
        let map = SourceMap::identity(text.len());
        assert_eq!(index.locate(text, &map, 3).column, 1);
        assert_eq!(index.locate(text, &map, 5).column, 3);
    }
}
