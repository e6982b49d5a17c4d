//! Counting the lines a review diff removes and adds ([`LineDiff::counts`](crate::LineDiff::counts), the summary
//! of `gedgraft fix -o`) window by window, as both sides are read together, so that the memory is that of the
//! largest window and not of every changed line: a change of every line break is a window per line.
//!
//! The windows are those of the diff itself ([`crate::diff`]: the lines each change touches, joined by
//! [`joins`]), and so are the counts: a window's lines are compared as the diff compares them
//! ([`line_ops`](crate::diff_ops::line_ops)), and a window with no line on one side is counted without reading
//! its lines. Only what one pass cannot see is left to the diff ([`counts`] gives `None`): changes out of order,
//! out of the text or overlapping, and windows the diff widens over lines between or around them (a first
//! window whose lines before it differ in number, windows joined across lines they do not touch, a last one
//! whose lines after it differ in number).

use crate::diff::{text_ranges, Side};
use crate::diff_lines::Lines;
use crate::edited::Change;
use crate::unified::{added_in, join, joins, removed_in, Window};
use gedgraft_encoding::Encoding;
use gedgraft_syntax::internal::green_view::ends_with_line_break;
use gedgraft_syntax::internal::GreenTokens;
use gedgraft_syntax::line_cursor::{LineCursor, TextCut};
use std::collections::VecDeque;
use std::ops::Range;

/// How many lines the diff of `old` and `new`, which differ only in `changes`, removes and adds; `None` where
/// one pass over both sides cannot tell (see the module's documentation).
pub(crate) fn counts(old: Side, new: Side, changes: &[Change]) -> Option<(usize, usize)> {
    if changes.is_empty() {
        return Some((0, 0));
    }
    let ranges =
        text_ranges(old, changes, |c| &c.input).zip(text_ranges(new, changes, |c| &c.output));
    let mut sides = (Reading::new(old), Reading::new(new));
    let mut pending: Option<Window> = None;
    let (mut removed, mut added) = (0, 0);
    for (o, n) in ranges {
        let (old_window, old_edges) = sides.0.window(o)?;
        let (new_window, new_edges) = sides.1.window(n)?;
        // An edge at a line start on one side only widens the diff's windows by a line it has not read
        // (`Scanned::windows`): left to the diff.
        if old_edges != new_edges {
            return None;
        }
        let next = (old_window, new_window);
        match &mut pending {
            // The diff starts a first window at line 0 when the lines before it differ in number.
            None if next.0.start != next.1.start => return None,
            None => pending = Some(next),
            Some(last) if joins(last, &next, false) => {
                // Joined over lines no change touches, which were not kept.
                if next.0.start > last.0.end || next.1.start > last.1.end {
                    return None;
                }
                join(last, &next);
            }
            Some(last) => {
                let (r, a) = window_counts(&mut sides, last)?;
                (removed, added) = (removed + r, added + a);
                sides.0.forget_before(next.0.start);
                sides.1.forget_before(next.1.start);
                *last = next;
            }
        }
    }
    let last = pending?;
    let after = (
        sides.0.finish().checked_sub(last.0.end),
        sides.1.finish().checked_sub(last.1.end),
    );
    // The diff runs a last window to the end when the lines after it differ in number.
    if after.0.is_none() || after.0 != after.1 {
        return None;
    }
    let (r, a) = window_counts(&mut sides, &last)?;
    Some((removed + r, added + a))
}

/// How many lines a window removes and adds, as the diff compares them.
fn window_counts((old, new): &mut (Reading, Reading), (wo, wn): &Window) -> Option<(usize, usize)> {
    if wo.is_empty() || wn.is_empty() {
        return Some((wo.len(), wn.len()));
    }
    old.show(wo.clone())?;
    new.show(wn.clone())?;
    let a = old.shown.shown_range(wo.clone());
    let b = new.shown.shown_range(wn.clone());
    if let ([x], [y]) = (&a[..], &b[..]) {
        return Some(if x == y { (0, 0) } else { (1, 1) });
    }
    let ops = [crate::diff_ops::line_ops(&a, &b)];
    Some((removed_in(&ops), added_in(&ops)))
}

/// One side read line by line: the lines of the windows not yet counted are kept, as their text.
struct Reading<'a> {
    lines: LineReader<'a>,
    /// The text's length.
    len: usize,
    /// Whether a line break ends the text.
    complete: bool,
    encoding: Encoding,
    /// The last offset placed on a line: changes must come after it.
    last_point: usize,
    /// The last line read: its number, start and end.
    current: Option<(usize, usize, usize)>,
    /// The lines kept, in order: their numbers and where their text lies in `text`.
    held: VecDeque<(usize, Range<usize>)>,
    text: String,
    /// A window's lines as the diff shows and compares them.
    shown: Lines,
    scratch: String,
}

impl<'a> Reading<'a> {
    fn new(side: Side<'a>) -> Reading<'a> {
        Reading {
            lines: LineReader::new(gedgraft_syntax::internal::green_tokens(side.root)),
            len: u32::from(side.root.text_len()) as usize,
            complete: ends_with_line_break(side.root) == Some(true),
            encoding: side.encoding,
            last_point: 0,
            current: None,
            held: VecDeque::new(),
            text: String::new(),
            shown: Lines::default(),
            scratch: String::new(),
        }
    }

    /// The lines of the change at text range `r`, as the diff's window places them (`Scanned::window`), and
    /// whether the range starts and ends at line starts (`Scanned::edges`); `None` for a range out of the text
    /// or before the last one.
    fn window(&mut self, r: Range<usize>) -> Option<(Range<usize>, (bool, bool))> {
        if r.start >= self.len || r.end > self.len || r.end < r.start || r.start < self.last_point {
            return None;
        }
        let (lo, lo_start) = self.locate(r.start, false)?;
        let last = r.end.saturating_sub(1).max(r.start);
        self.last_point = last;
        let (mut hi, ends_at_start) = if r.end > r.start {
            let (line, _) = self.locate(last, true)?;
            let line_end = self.current.map_or(r.end, |c| c.2);
            // The text's end is a line start when a line break ends the text (`Scanned::edges`).
            let at_end = r.end == self.len;
            (line + 1, line_end == r.end && (!at_end || self.complete))
        } else {
            (lo, lo_start == r.start)
        };
        if lo_start != r.start {
            hi = hi.max(lo + 1);
        }
        Some((lo..hi.max(lo), (lo_start == r.start, ends_at_start)))
    }

    /// The number and start of the line holding offset `at` (at or after the last one asked for), reading on;
    /// keeps that line, and with `keep_all` every line read on the way.
    fn locate(&mut self, at: usize, keep_all: bool) -> Option<(usize, usize)> {
        loop {
            if let Some((number, start, end)) = self.current {
                if at < end {
                    return Some((number, start));
                }
            }
            let line = self.lines.next()?;
            if keep_all || line.end > at {
                let from = self.text.len();
                self.text.push_str(&line.spilled);
                for piece in &line.pieces {
                    self.text.push_str(piece);
                }
                self.held.push_back((line.number, from..self.text.len()));
            }
            self.current = Some((line.number, line.start, line.end));
            self.lines.recycle(line);
        }
    }

    /// Drops the lines kept before line `first`.
    fn forget_before(&mut self, first: usize) {
        while self.held.front().is_some_and(|(number, _)| *number < first) {
            self.held.pop_front();
        }
        let Some(shift) = self.held.front().map(|(_, text)| text.start) else {
            self.text.clear();
            return;
        };
        self.text.drain(..shift);
        for (_, text) in &mut self.held {
            *text = text.start - shift..text.end - shift;
        }
    }

    /// Places the lines `window` (all kept) in [`Reading::shown`]; `None` if one is not kept.
    fn show(&mut self, window: Range<usize>) -> Option<()> {
        self.shown.clear();
        let first = self.held.iter().position(|(n, _)| *n == window.start)?;
        for (l, (number, text)) in window.clone().zip(self.held.iter().skip(first)) {
            if *number != l {
                return None;
            }
            let line = self.text.get(text.clone()).unwrap_or("");
            self.shown
                .push(l, &[line], self.encoding, &mut self.scratch);
        }
        if self.shown.index.len() != window.len() {
            return None;
        }
        self.shown.count = window.end;
        Some(())
    }

    /// Reads to the end; gives how many lines the side has.
    fn finish(&mut self) -> usize {
        while let Some(line) = self.lines.next() {
            self.lines.recycle(line);
        }
        self.lines.done.next_number
    }
}

/// A side's lines, one at a time: where lines start is what a [`LineCursor`] says over the tokens' text (as in
/// [`crate::diff::Scan`]), and the text's end ends a last line unless a line break does.
struct LineReader<'a> {
    tokens: GreenTokens<'a>,
    cursor: LineCursor,
    /// The text offset after the tokens read.
    pos: usize,
    done: Completed<'a>,
    finished: bool,
}

/// One line read: its number (from 0), its text range, and its text (its break included): `spilled`, then
/// `pieces`.
struct ReadLine<'a> {
    number: usize,
    start: usize,
    end: usize,
    spilled: String,
    pieces: Vec<&'a str>,
}

/// Most pieces a line holds as pieces; past them its text is copied (#12: a line of a million tokens is a
/// million pieces of 16 octets each, where its text is a few octets a token).
const MAX_PIECES: usize = 64;

/// Most room a text or piece list kept for reuse may have.
const MAX_KEPT: usize = 1 << 12;

/// The lines completed and not yet taken, and the line being read.
#[derive(Default)]
struct Completed<'a> {
    ready: VecDeque<ReadLine<'a>>,
    next_number: usize,
    line_start: usize,
    spilled: String,
    pieces: Vec<&'a str>,
    /// Texts and piece lists to reuse.
    spare: Vec<(String, Vec<&'a str>)>,
}

impl<'a> Completed<'a> {
    /// A line starts at `at`: the current one is complete.
    fn start_line(&mut self, at: usize) {
        let (spilled, pieces) = self.spare.pop().unwrap_or_default();
        let spilled = std::mem::replace(&mut self.spilled, spilled);
        let pieces = std::mem::replace(&mut self.pieces, pieces);
        self.ready.push_back(ReadLine {
            number: self.next_number,
            start: self.line_start,
            end: at,
            spilled,
            pieces,
        });
        self.next_number += 1;
        self.line_start = at;
    }

    /// Adds a piece of text to the line being read.
    fn push(&mut self, piece: &'a str) {
        if self.pieces.len() < MAX_PIECES {
            self.pieces.push(piece);
            return;
        }
        for p in self.pieces.drain(..) {
            self.spilled.push_str(p);
        }
        self.spilled.push_str(piece);
    }
}

impl<'a> LineReader<'a> {
    fn new(tokens: GreenTokens<'a>) -> LineReader<'a> {
        LineReader {
            tokens,
            cursor: LineCursor::new(),
            pos: 0,
            done: Completed::default(),
            finished: false,
        }
    }

    fn next(&mut self) -> Option<ReadLine<'a>> {
        loop {
            if let Some(line) = self.done.ready.pop_front() {
                return Some(line);
            }
            if self.finished {
                return None;
            }
            match self.tokens.next() {
                Some(token) => self.feed(token.text()),
                None => {
                    self.finished = true;
                    match self.cursor.finish() {
                        Some(start) => self.done.start_line(start.at),
                        None if self.done.line_start != self.pos => self.done.start_line(self.pos),
                        None => {}
                    }
                }
            }
        }
    }

    fn feed(&mut self, text: &'a str) {
        if text.is_empty() {
            return;
        }
        let pos = self.pos;
        let done = &mut self.done;
        self.cursor.feed_text(text, pos, |cut| match cut {
            TextCut::Text(piece) => done.push(piece),
            TextCut::LineStart(start) => done.start_line(start.at),
        });
        self.pos = pos + text.len();
    }

    /// Gives back a line's text and piece list, to reuse.
    fn recycle(&mut self, line: ReadLine<'a>) {
        let (mut spilled, mut pieces) = (line.spilled, line.pieces);
        if spilled.capacity() <= MAX_KEPT && pieces.capacity() <= MAX_KEPT {
            spilled.clear();
            pieces.clear();
            self.done.spare.push((spilled, pieces));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! The counts read window by window against the first, whole-text diff ([`crate::diff_reference`]).

    use super::*;
    use crate::diff_reference;
    use crate::{Editor, LfCr, LineBreak};
    use gedgraft_syntax::Parse;
    use proptest::prelude::*;

    /// The reference's counts, and this module's (`None`: left to the diff).
    fn both(
        old: &Parse,
        new: &Parse,
        changes: &[Change],
    ) -> ((usize, usize), Option<(usize, usize)>) {
        let want = diff_reference::LineDiff::new(old, new, changes);
        (
            (want.removed(), want.added()),
            counts(Side::of(old), Side::of(new), changes),
        )
    }

    #[test]
    fn a_change_of_every_line_break_counts_every_line() {
        let mut file = String::from("0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n");
        for i in 0..500 {
            file.push_str(if i % 7 == 0 { "1 _X\r\n" } else { "1 _X\n" });
        }
        file.push_str("0 TRLR\n");
        let old = gedgraft_syntax::parse(file.as_bytes());
        let mut editor = Editor::new(&old);
        editor.convert_line_breaks(LineBreak::CrLf, LfCr::TwoBreaks);
        let edited = editor.apply().unwrap();
        // Every line but the 72 that end in CR LF already.
        let (want, got) = both(&old, edited.parse(), edited.changed_ranges());
        assert_eq!(want, (432, 432));
        assert_eq!(got, Some(want), "read window by window");
        assert_eq!(edited.line_counts(), want);
    }

    /// #12: a line of more tokens than [`MAX_PIECES`] is read as text; its counts are the reference's.
    #[test]
    fn a_line_of_many_tokens_is_counted_as_the_reference_counts_it() {
        for n in [
            MAX_PIECES / 2 - 1,
            MAX_PIECES / 2,
            MAX_PIECES,
            3 * MAX_PIECES + 1,
        ] {
            let note = "x@@".repeat(n);
            let file =
                format!("0 HEAD\n0 @N1@ NOTE {note}\n0 @N2@ NOTE {note}\n1 CONT z\n0 TRLR\n");
            let old = gedgraft_syntax::parse(file.as_bytes());
            let mut editor = Editor::new(&old);
            editor.rename_tag("NOTE", "_NT", None).unwrap();
            let edited = editor.apply().unwrap();
            let (want, got) = both(&old, edited.parse(), edited.changed_ranges());
            assert_eq!(want, (2, 2), "{n}");
            assert_eq!(got, Some(want), "{n}");
        }
    }

    #[test]
    fn lines_inserted_and_deleted_are_counted_without_their_text() {
        let old =
            gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NOTE a\n2 CONT b\n1 SEX M\n0 TRLR\n");
        let note = old
            .document()
            .record_by_xref("I1")
            .unwrap()
            .substructures()
            .next()
            .unwrap();
        let mut editor = Editor::new(&old);
        editor.delete(&note).unwrap();
        let edited = editor.apply().unwrap();
        let (want, got) = both(&old, edited.parse(), edited.changed_ranges());
        assert_eq!(want, (2, 0));
        assert_eq!(got, Some(want));
    }

    /// Records whose lines the edits below change, keep, delete and split (the streamed counts' tests too).
    pub(crate) const RECORDS: &[&str] = &[
        "0 @I@ INDI\n1 NAME a\n",
        "0 @I@ INDI\r\n1 NAME b\r\n1 SEX M\r\n",
        "0 @N@ NOTE x\n1 CONT y\n",
        "0 @S@ SOUR\r1 NOTE w\r1 NAME z\r",
        "0 @T@ _X\n\n1 _Y @a\n\r1 NOTE j\n",
    ];

    /// A file of the records `picks` names, between a header and a trailer.
    pub(crate) fn file_of(picks: &[usize]) -> String {
        let records: String = picks.iter().map(|&p| RECORDS[p]).collect();
        format!("0 HEAD\n{records}0 TRLR\n")
    }

    /// The `which`-th of [`EDITS`] kinds of edit: line breaks converted (CR LF, or LF with LF CR as one),
    /// `NAME` renamed, `@` escaped, `NOTE`s deleted.
    pub(crate) fn edit(editor: &mut Editor, which: usize) {
        match which {
            0 => editor.convert_line_breaks(LineBreak::CrLf, LfCr::TwoBreaks),
            1 => editor.convert_line_breaks(LineBreak::Lf, LfCr::OneBreak),
            2 => {
                let _ = editor.rename_tag("NAME", "_NAME", None);
            }
            3 => {
                editor.escape_at_signs(None);
            }
            _ => {
                let notes = crate::Scope::parse("*.NOTE").unwrap();
                for s in editor.select(&notes) {
                    let _ = editor.delete(&s);
                }
            }
        }
    }

    /// How many kinds of edit [`edit`] makes.
    pub(crate) const EDITS: usize = 5;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Whenever the changes can be read window by window, the counts are the diff's.
        #[test]
        fn counts_read_window_by_window_are_the_diffs(
            picks in prop::collection::vec(0..RECORDS.len(), 0..12),
            which in 0..EDITS,
        ) {
            let file = file_of(&picks);
            let old = gedgraft_syntax::parse(file.as_bytes());
            let mut editor = Editor::new(&old);
            edit(&mut editor, which);
            let result = editor.apply();
            if let Ok(edited) = &result {
                let (want, got) = both(&old, edited.parse(), edited.changed_ranges());
                if let Some(got) = got {
                    prop_assert_eq!(got, want);
                }
                prop_assert_eq!(edited.line_counts(), want);
            }
        }
    }
}
