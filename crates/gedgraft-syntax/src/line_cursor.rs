//! What a line is, in one place: where a line ends, which break ends it, and a forward cursor that numbers lines
//! and columns as text goes past it.
//!
//! A line ends at LF, CR LF or a lone CR (2019 draft, R-LINE-STRINGS-01); an LF followed by a CR is two breaks
//! around a blank line (R-LINE-STRINGS-02). The lexer ends its lines with [`line_end`]; the line index, the
//! lowering's locator, the review diff's scan, the stream's line counts and the CLI's snippets all walk lines
//! with a [`LineCursor`], so they cannot disagree on a line number.
//!
//! Columns count characters from the line's start, 1-based; a byte-order mark at the start of the text is not a
//! column. Offsets are octet offsets in the decoded (UTF-8) text, or in octets of an ASCII-compatible encoding.

/// A line break form.
///
/// ```
/// assert_eq!(gedgraft_syntax::LineBreak::CrLf.as_str(), "\r\n");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineBreak {
    /// `LF` (U+000A), Unix.
    Lf,
    /// `CR LF`, Windows.
    CrLf,
    /// `CR` (U+000D), classic Mac OS.
    Cr,
}

impl LineBreak {
    /// The break's characters.
    pub fn as_str(self) -> &'static str {
        match self {
            LineBreak::Lf => "\n",
            LineBreak::CrLf => "\r\n",
            LineBreak::Cr => "\r",
        }
    }

    /// The break's name in messages: `LF`, `CR LF`, `CR`.
    pub fn name(self) -> &'static str {
        match self {
            LineBreak::Lf => "LF",
            LineBreak::CrLf => "CR LF",
            LineBreak::Cr => "CR",
        }
    }

    /// The break spelled by `text` exactly (`None` for anything else, the empty text included).
    ///
    /// ```
    /// use gedgraft_syntax::LineBreak;
    /// assert_eq!(LineBreak::of("\r\n"), Some(LineBreak::CrLf));
    /// assert_eq!(LineBreak::of("\n\r"), None, "two breaks");
    /// ```
    pub fn of(text: &str) -> Option<LineBreak> {
        match text {
            "\n" => Some(LineBreak::Lf),
            "\r\n" => Some(LineBreak::CrLf),
            "\r" => Some(LineBreak::Cr),
            _ => None,
        }
    }
}

/// Bytes searched eight at a time before [`next_line_break`] hands over to `memchr`: GEDCOM lines are short,
/// and for a short line `memchr`'s set-up costs more than the search.
const SHORT_SEARCH: usize = 64;

/// The position of the first LF or CR at or after `from` (`None` past the end): where the lexer ends a line.
///
/// ```
/// assert_eq!(gedgraft_syntax::line_cursor::next_line_break(b"1 SEX M\n2 DATE", 0), Some(7));
/// assert_eq!(gedgraft_syntax::line_cursor::next_line_break(b"1 SEX M\n2 DATE", 8), None);
/// ```
pub fn next_line_break(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const LFS: u64 = u64::from_ne_bytes([b'\n'; 8]);
    const CRS: u64 = u64::from_ne_bytes([b'\r'; 8]);
    // Marks the zero bytes of `v` (exactly for the lowest one, which is all that is read here).
    let zeros = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let limit = bytes.len().min(from.saturating_add(SHORT_SEARCH));
    let mut i = from;
    while let Some(word) = bytes.get(i..i + 8).filter(|_| i + 8 <= limit) {
        let mut octets = [0u8; 8];
        octets.copy_from_slice(word);
        let w = u64::from_le_bytes(octets);
        let found = zeros(w ^ LFS) | zeros(w ^ CRS);
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    memchr::memchr2(b'\n', b'\r', bytes.get(i..)?).map(|at| i + at)
}

/// Where the line starting at `from` in `bytes` ends: the end of its content, the start of the next line, and
/// the break between them (`None` when the line runs to the end of `bytes`). A CR that ends `bytes` is a break.
///
/// ```
/// use gedgraft_syntax::{line_cursor::{line_end, LineEnd}, LineBreak};
/// assert_eq!(line_end(b"1 A\r\n1 B", 0), LineEnd { content_end: 3, next_start: 5, form: Some(LineBreak::CrLf) });
/// assert_eq!(line_end(b"1 A\n\r", 4), LineEnd { content_end: 4, next_start: 5, form: Some(LineBreak::Cr) });
/// assert_eq!(line_end(b"1 B", 0), LineEnd { content_end: 3, next_start: 3, form: None });
/// ```
pub fn line_end(bytes: &[u8], from: usize) -> LineEnd {
    match next_line_break(bytes, from) {
        Some(e) => {
            let (next_start, form) = break_at(bytes, e);
            LineEnd {
                content_end: e,
                next_start,
                form: Some(form),
            }
        }
        None => LineEnd {
            content_end: bytes.len(),
            next_start: bytes.len(),
            form: None,
        },
    }
}

/// The form of the last line break in `bytes` (`None` if they have none): the break that ends the text before
/// whatever follows them.
///
/// ```
/// use gedgraft_syntax::{line_cursor::last_line_break, LineBreak};
/// assert_eq!(last_line_break(b"0 HEAD\r\n0 @I1@ INDI"), Some(LineBreak::CrLf));
/// assert_eq!(last_line_break(b"0 HEAD\n\r"), Some(LineBreak::Cr), "LF CR is two breaks");
/// assert_eq!(last_line_break(b"0 HEAD"), None);
/// ```
pub fn last_line_break(bytes: &[u8]) -> Option<LineBreak> {
    let at = memchr::memrchr2(b'\n', b'\r', bytes)?;
    match bytes.get(..=at)? {
        [.., b'\r', b'\n'] => Some(LineBreak::CrLf),
        [.., b'\n'] => Some(LineBreak::Lf),
        _ => Some(LineBreak::Cr),
    }
}

/// The break starting at `at`, which holds an LF or a CR, and where the next line starts.
fn break_at(bytes: &[u8], at: usize) -> (usize, LineBreak) {
    if bytes.get(at) == Some(&b'\r') {
        if bytes.get(at + 1) == Some(&b'\n') {
            (at + 2, LineBreak::CrLf)
        } else {
            (at + 1, LineBreak::Cr)
        }
    } else {
        (at + 1, LineBreak::Lf)
    }
}

/// See [`line_end`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineEnd {
    /// Where the line's content ends (its break starts).
    pub content_end: usize,
    /// Where the next line starts (after the break).
    pub next_start: usize,
    /// The break, or `None` at the end of the text.
    pub form: Option<LineBreak>,
}

/// A piece of text cut at line starts ([`LineCursor::feed_text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextCut<'t> {
    /// Text within one line.
    Text(&'t str),
    /// A line starts here.
    LineStart(LineStart),
}

/// A line that starts, as a [`LineCursor`] reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineStart {
    /// The 1-based number of the line that starts.
    pub line: usize,
    /// Its start offset.
    pub at: usize,
    /// The break that ended the line before it.
    pub after: LineBreak,
}

/// A position a [`LineCursor`] gives: 1-based line and column, and where the line starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinePosition {
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters (1 at an offset inside a character).
    pub column: usize,
    /// The offset at which the line starts.
    pub line_start: usize,
}

/// The byte-order mark, in UTF-8.
const BOM: &[u8] = "\u{FEFF}".as_bytes();

/// A forward walk over a text given in pieces (the whole text, or a tree's tokens one by one), in amortised
/// constant time per octet: it knows the current line's number and start, reports every line that starts, and
/// gives the line and column of the offset reached ([`LineCursor::position`]), so that offsets asked for in
/// ascending order cost the length of the text once in all.
///
/// A CR at the end of a piece is a break whose form (CR or CR LF) the next piece decides: the cursor holds it
/// until then, or until [`LineCursor::finish`] says the text ended.
///
/// ```
/// use gedgraft_syntax::line_cursor::LineCursor;
/// let mut cursor = LineCursor::with_columns();
/// let mut starts = Vec::new();
/// for piece in ["0 HEAD\r", "\n1 NOTE é", "t\n\r0 TRLR"] {
///     cursor.feed(piece.as_bytes(), |s| starts.push((s.line, s.at)));
/// }
/// assert_eq!(starts, [(2, 8), (3, 19), (4, 20)], "CR LF split between pieces counts once; LF CR twice");
/// assert_eq!((cursor.position(None).line, cursor.position(None).column), (4, 7));
/// ```
#[derive(Debug, Clone, Default)]
pub struct LineCursor {
    /// Octets fed so far.
    offset: usize,
    /// Line breaks completed (the current line's number minus one).
    breaks: usize,
    line_start: usize,
    /// The octet before `offset` is a CR whose break the next octet decides.
    pending_cr: bool,
    /// Whether columns are counted.
    count_columns: bool,
    /// Characters from `line_start` to `offset`, a leading byte-order mark not counted.
    columns: usize,
    /// How many leading octets of the text match the byte-order mark (while `offset` is at most 3).
    bom_prefix: usize,
}

impl LineCursor {
    /// A cursor at the start of a text that numbers lines only.
    pub fn new() -> LineCursor {
        LineCursor::default()
    }

    /// A cursor at the start of a text that also counts columns.
    pub fn with_columns() -> LineCursor {
        LineCursor {
            count_columns: true,
            ..LineCursor::default()
        }
    }

    /// A column-counting cursor at the start of line `line` (1-based), which starts at offset `line_start`: for
    /// locating an offset from a line index's entry without walking the text before it.
    pub fn at_line(line: usize, line_start: usize) -> LineCursor {
        LineCursor {
            offset: line_start,
            breaks: line.saturating_sub(1),
            line_start,
            count_columns: true,
            // Past the start of the text a byte-order mark is an ordinary character.
            bom_prefix: if line_start == 0 { 0 } else { usize::MAX },
            ..LineCursor::default()
        }
    }

    /// The offset reached: how many octets were fed (plus the start of [`LineCursor::at_line`]).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The current line's number, 1-based (a CR held at the end of the last piece not counted yet).
    pub fn line(&self) -> usize {
        self.breaks + 1
    }

    /// Where the current line starts.
    pub fn line_start(&self) -> usize {
        self.line_start
    }

    /// Whether the last octet fed is a CR whose break is still undecided.
    pub fn pending_cr(&self) -> bool {
        self.pending_cr
    }

    /// [`feed`](LineCursor::feed) for `text`, the next piece of the text, which starts at offset `pos`: `on_cut`
    /// gets the piece cut at the lines that start in it, in order: the text before each line start
    /// ([`TextCut::Text`], never empty), the line start, and the text after the last one.
    ///
    /// ```
    /// use gedgraft_syntax::line_cursor::{LineCursor, TextCut};
    /// let mut cursor = LineCursor::new();
    /// let mut cuts = Vec::new();
    /// cursor.feed_text("a\nbc\nd", 0, |cut| cuts.push(match cut {
    ///     TextCut::Text(t) => t.to_string(),
    ///     TextCut::LineStart(s) => format!("[{}]", s.at),
    /// }));
    /// assert_eq!(cuts, ["a\n", "[2]", "bc\n", "[5]", "d"]);
    /// ```
    pub fn feed_text<'t>(
        &mut self,
        text: &'t str,
        pos: usize,
        mut on_cut: impl FnMut(TextCut<'t>),
    ) {
        let mut from = 0;
        self.feed(text.as_bytes(), |start| {
            let end = start.at - pos;
            if end > from {
                on_cut(TextCut::Text(text.get(from..end).unwrap_or("")));
                from = end;
            }
            on_cut(TextCut::LineStart(start));
        });
        if from < text.len() {
            on_cut(TextCut::Text(text.get(from..).unwrap_or("")));
        }
    }

    /// Walks past `bytes`, the next piece of the text, calling `on_line` for every line that starts in it (and for
    /// the line after a CR held from the last piece).
    pub fn feed(&mut self, bytes: &[u8], mut on_line: impl FnMut(LineStart)) {
        let base = self.offset;
        let mut from = 0;
        if std::mem::take(&mut self.pending_cr) {
            let Some(&first) = bytes.first() else {
                self.pending_cr = true;
                return;
            };
            if first == b'\n' {
                self.start_line(base + 1, LineBreak::CrLf, &mut on_line);
                from = 1;
            } else {
                self.start_line(base, LineBreak::Cr, &mut on_line);
            }
        }
        let mut segment = from;
        while let Some(at) = next_line_break(bytes, from) {
            if bytes[at] == b'\r' && at + 1 == bytes.len() {
                self.pending_cr = true;
                break;
            }
            let (next, form) = break_at(bytes, at);
            self.start_line(base + next, form, &mut on_line);
            from = next;
            segment = next;
        }
        if self.count_columns {
            self.count(bytes.get(segment..).unwrap_or(&[]), base + segment);
        }
        self.offset = base + bytes.len();
    }

    /// The end of the text: a CR held from the last piece is a break. Gives the line that starts after it.
    pub fn finish(&mut self) -> Option<LineStart> {
        let mut started = None;
        if std::mem::take(&mut self.pending_cr) {
            self.start_line(self.offset, LineBreak::Cr, &mut |s| started = Some(s));
        }
        started
    }

    /// The line and column of the offset reached, where `next` is the octet at that offset (`None` at the end
    /// of the text): it decides a held CR (a CR before an LF is still on its line) and whether the offset is
    /// inside a character (column 1). Columns are 1 for a cursor made by [`LineCursor::new`].
    pub fn position(&self, next: Option<u8>) -> LinePosition {
        if self.pending_cr && next != Some(b'\n') {
            return LinePosition {
                line: self.breaks + 2,
                column: 1,
                line_start: self.offset,
            };
        }
        let inside_character = next.is_some_and(|b| b & 0xC0 == 0x80);
        let column = if self.count_columns && !inside_character {
            // A CR before its LF is a character of its line, as `str::chars` counts it.
            self.columns + usize::from(self.pending_cr) + 1
        } else {
            1
        };
        LinePosition {
            line: self.breaks + 1,
            column,
            line_start: self.line_start,
        }
    }

    /// Walks on to `offset` of `text`, the whole text of which the cursor has walked a prefix, and gives the
    /// position there: offsets asked for in ascending order cost the length of the text once. An offset behind
    /// the cursor gives the cursor's own position; one past the end of the text, the end's.
    ///
    /// ```
    /// use gedgraft_syntax::line_cursor::LineCursor;
    /// let text = "0 HEAD\r\n1 NOTE é x".as_bytes();
    /// let mut cursor = LineCursor::with_columns();
    /// assert_eq!(cursor.seek(text, 7).line, 1, "between CR and LF");
    /// let x = cursor.seek(text, text.len() - 1);
    /// assert_eq!((x.line, x.column, x.line_start), (2, 10, 8));
    /// ```
    pub fn seek(&mut self, text: &[u8], offset: usize) -> LinePosition {
        let offset = offset.min(text.len()).max(self.offset);
        self.feed(text.get(self.offset..offset).unwrap_or(&[]), |_| ());
        self.position(text.get(offset).copied())
    }

    fn start_line(&mut self, at: usize, form: LineBreak, on_line: &mut impl FnMut(LineStart)) {
        self.breaks += 1;
        self.line_start = at;
        self.columns = 0;
        on_line(LineStart {
            line: self.breaks + 1,
            at,
            after: form,
        });
    }

    /// Counts the characters of `bytes` (on the current line, starting at text offset `start`) as columns.
    fn count(&mut self, bytes: &[u8], start: usize) {
        let held_cr = usize::from(self.pending_cr);
        let bytes = bytes
            .get(..bytes.len().saturating_sub(held_cr))
            .unwrap_or(&[]);
        self.columns += bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count();
        // A byte-order mark that starts the text is not a column.
        for (at, &b) in (start..).zip(bytes) {
            if at >= BOM.len() || self.bom_prefix != at {
                break;
            }
            if BOM.get(at) != Some(&b) {
                self.bom_prefix = usize::MAX;
                break;
            }
            self.bom_prefix += 1;
            if self.bom_prefix == BOM.len() {
                self.columns = self.columns.saturating_sub(1);
            }
        }
    }
}

/// How many line breaks `bytes` hold, as a [`LineCursor`] counts them (a final CR included), for callers that
/// hold octets rather than text (the stream counts its batches' lines with it).
///
/// ```
/// assert_eq!(gedgraft_syntax::line_cursor::count_line_breaks(b"1 A\r\n1 B\n\r1 C\r"), 4);
/// ```
pub fn count_line_breaks(bytes: &[u8]) -> u64 {
    // A break is an LF, or a CR that no LF follows (a CR LF is one break; a final CR is one): counted with two
    // vectorised searches rather than a walk line by line.
    let lf = memchr::memchr_iter(b'\n', bytes).count();
    let lone_cr = memchr::memchr_iter(b'\r', bytes)
        .filter(|&i| bytes.get(i + 1) != Some(&b'\n'))
        .count();
    (lf + lone_cr) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every offset's line and column, by the definition: lines start after LF, CR LF, lone CR; columns count
    /// `chars` from the line start; a leading BOM is no column; an offset inside a character is column 1.
    fn by_definition(text: &[u8], offset: usize) -> (usize, usize) {
        let mut line = 1;
        let mut start = 0;
        let mut i = 0;
        while i < offset.min(text.len()) {
            match text[i] {
                b'\n' => {
                    line += 1;
                    start = i + 1;
                }
                b'\r' if text.get(i + 1) == Some(&b'\n') => {
                    if i + 1 < offset {
                        line += 1;
                        start = i + 2;
                    }
                    i += 1;
                }
                b'\r' => {
                    line += 1;
                    start = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
        let mut from = start;
        if line == 1 && text.starts_with(BOM) {
            from = from.max(3).min(offset.max(from));
        }
        let column = std::str::from_utf8(text)
            .ok()
            .and_then(|t| t.get(from..offset))
            .map_or(1, |s| s.chars().count() + 1);
        (line, column)
    }

    fn positions_by_cursor(text: &[u8], cuts: &[usize]) -> Vec<(usize, usize)> {
        let mut cursor = LineCursor::with_columns();
        let mut out = Vec::new();
        let mut fed = 0;
        let mut points: Vec<usize> = cuts.iter().map(|&c| c.min(text.len())).collect();
        points.extend(0..=text.len());
        points.sort_unstable();
        for p in points {
            cursor.feed(&text[fed..p], |_| ());
            fed = p;
            let position = cursor.position(text.get(p).copied());
            out.push((p, (position.line, position.column)));
        }
        let mut seen = std::collections::BTreeMap::new();
        for (p, lc) in out {
            seen.entry(p).or_insert(lc);
        }
        seen.into_values().collect()
    }

    #[test]
    fn r_line_strings_01_02_break_forms_and_lf_cr() {
        let text = b"0 HEAD\r\n1 A\r1 B\n\r0 TRLR";
        let mut starts = Vec::new();
        let mut cursor = LineCursor::new();
        cursor.feed(text, |s| starts.push((s.line, s.at, s.after)));
        assert_eq!(
            starts,
            [
                (2, 8, LineBreak::CrLf),
                (3, 12, LineBreak::Cr),
                (4, 16, LineBreak::Lf),
                (5, 17, LineBreak::Cr),
            ],
            "LF CR is two breaks (R-LINE-STRINGS-02)"
        );
        assert_eq!(cursor.finish(), None);
        assert_eq!(count_line_breaks(text), 4);
    }

    #[test]
    fn a_final_cr_is_a_break_once_the_text_ends() {
        let mut cursor = LineCursor::new();
        cursor.feed(b"0 TRLR\r", |_| panic!("held"));
        assert_eq!(cursor.line(), 1);
        assert_eq!(cursor.position(None).line, 2);
        assert_eq!(cursor.position(Some(b'\n')).line, 1);
        assert_eq!(
            cursor.finish(),
            Some(LineStart {
                line: 2,
                at: 7,
                after: LineBreak::Cr
            })
        );
    }

    #[test]
    fn byte_order_mark_is_not_a_column() {
        let text = "\u{FEFF}0 HEAD\n\u{FEFF}x".as_bytes();
        assert_eq!(positions_by_cursor(text, &[])[3], (1, 1));
        assert_eq!(positions_by_cursor(text, &[])[5], (1, 3));
        assert_eq!(
            positions_by_cursor(text, &[1, 2])[13],
            (2, 2),
            "only at the start"
        );
    }

    /// Line breaks counted as the cursor counts them, the reference of [`count_line_breaks`].
    fn breaks_by_cursor(bytes: &[u8]) -> u64 {
        let mut cursor = LineCursor::new();
        cursor.feed(bytes, |_| ());
        cursor.finish();
        (cursor.line() - 1) as u64
    }

    proptest! {
        /// R-LINE-STRINGS-01/02: the count of breaks is the cursor's, for any mix of LF, CR LF, LF CR and CR.
        #[test]
        fn breaks_are_counted_as_the_cursor_counts_them(
            bytes in proptest::collection::vec(
                prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a'), Just(b' ')],
                0..200,
            ),
        ) {
            prop_assert_eq!(count_line_breaks(&bytes), breaks_by_cursor(&bytes));
        }

        /// The word-at-a-time search finds the same line break as `memchr`, from any start, in any bytes
        /// (line breaks near word edges, octets 0x80 and up next to them, long lines past the short search).
        #[test]
        fn next_line_break_agrees_with_memchr(
            bytes in proptest::collection::vec(
                prop_oneof![
                    Just(b'\n'), Just(b'\r'), Just(0x0Bu8), Just(0x8A), Just(0x8D), Just(0x00), Just(0xFF), Just(b'a')
                ],
                0..200,
            ),
            from in 0usize..210,
        ) {
            let expected = bytes
                .get(from..)
                .and_then(|rest| memchr::memchr2(b'\n', b'\r', rest))
                .map(|i| from + i);
            prop_assert_eq!(next_line_break(&bytes, from), expected);
        }
    }

    #[test]
    fn next_line_break_on_long_lines() {
        let mut line = vec![b'x'; 300];
        line.extend_from_slice(b"\r\n");
        assert_eq!(next_line_break(&line, 0), Some(300));
        assert_eq!(next_line_break(&line, 301), Some(301));
        assert_eq!(next_line_break(&line, 302), None);
        assert_eq!(next_line_break(&line, 400), None);
    }

    proptest! {
        #[test]
        fn every_offset_in_any_pieces_agrees_with_the_definition(
            pieces in proptest::collection::vec(
                prop_oneof![Just("\n"), Just("\r"), Just("a"), Just("é"), Just("\u{FEFF}"), Just("€")],
                0..30,
            ),
            cuts in proptest::collection::vec(0usize..60, 0..6),
        ) {
            let text = pieces.concat().into_bytes();
            let by_cursor = positions_by_cursor(&text, &cuts);
            let expected: Vec<(usize, usize)> = (0..=text.len()).map(|o| by_definition(&text, o)).collect();
            prop_assert_eq!(by_cursor, expected);
        }
    }
}
