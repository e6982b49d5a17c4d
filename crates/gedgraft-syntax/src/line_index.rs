//! Line and column numbers for offsets in decoded text, in any order: a [`LineCursor`] finds the lines once.

use crate::diagnostic::Location;
use crate::line_cursor::LineCursor;
use gedgraft_encoding::SourceMap;
use std::ops::Range;

/// The start offset of every line of a text, as [`LineCursor`] finds them (LF, CR LF, CR; LF CR is two). Offsets
/// are 32-bit, as in the tree (rowan's texts are under 4 GiB): four octets a line. For offsets in ascending
/// order a [`LineCursor`] alone is cheaper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0u32];
        let mut cursor = LineCursor::new();
        let mut push = |at: usize| starts.push(u32::try_from(at).unwrap_or(u32::MAX));
        cursor.feed(text.as_bytes(), |s| push(s.at));
        if let Some(s) = cursor.finish() {
            push(s.at);
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
            Some(_) => crate::line_cursor::line_end(text.as_bytes(), start).content_end,
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
        let offset = offset.min(text.len());
        let line = self.line_of(offset);
        let start = self.start(line - 1).unwrap_or(0).min(offset);
        Location {
            offset: map.file_offset(offset),
            line,
            column: LineCursor::at_line(line, start)
                .seek(text.as_bytes(), offset)
                .column,
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
    fn byte_order_mark_is_not_a_column() {
        let text = "\u{FEFF}0 HEAD";
        let index = LineIndex::new(text);
        let map = SourceMap::identity(text.len());
        assert_eq!(index.locate(text, &map, 3).column, 1);
        assert_eq!(index.locate(text, &map, 5).column, 3);
    }
}
