//! The pass of a line diff over each side's tokens ([`Scan`]): where the changes' edges lie on lines, and the
//! lines around them as shown, without a copy of either text; the windows of lines each change covers on each
//! side ([`Scanned::windows`]). [`crate::diff`] builds the diff from them.

use crate::diff::Side;
use crate::diff_lines::Lines;
use crate::unified::Window;
use gedgraft_encoding::Encoding;
use gedgraft_syntax::line_cursor::{LineCursor, TextCut};
use std::ops::Range;

/// The points a [`Scan`] places on lines per change: its start, its last character, its end.
const POINTS: usize = 3;

/// One pass over a side's tokens, in text order, without a copy of the text. Lines start where a [`LineCursor`]
/// says (a CR LF counts once, even split between two tokens), and the text's end starts a last, empty "line"
/// unless a line break ends the text. The pass finds the line of every change's start and end, and keeps
/// (as shown) the lines that touch a change, `context` lines either side of them, and the lines `wanted`.
pub(crate) struct Scan<'a, 'r> {
    encoding: Encoding,
    /// The changes' text ranges, sorted.
    ranges: &'r [Range<usize>],
    wanted: &'r [usize],
    context: usize,
    /// Offsets to place on lines: (offset, index into `found`), sorted.
    points: Vec<(usize, usize)>,
    /// For each point: how many lines start at or before it, and where the last of them starts.
    found: Vec<(usize, usize)>,
    next_point: usize,
    next_range: usize,
    next_wanted: usize,
    pos: usize,
    /// How many lines started so far (the current line's number plus one).
    starts: usize,
    line_start: usize,
    /// Where the line before the current one starts.
    last_start: usize,
    /// The pieces of the current line's text.
    current: Vec<&'a str>,
    /// The last lines not kept (at most `context`), in case a change follows.
    recent: std::collections::VecDeque<(usize, Vec<&'a str>)>,
    /// How many more lines to keep after a change.
    after: usize,
    lines: Lines,
    scratch: String,
}

/// What a [`Scan`] found.
pub(crate) struct Scanned {
    /// How many lines.
    pub(crate) count: usize,
    /// The text length.
    end: usize,
    /// Whether a line break ends the text.
    complete: bool,
    /// Where the last line starts.
    last_start: usize,
    /// For each point: (line holding it, unclamped; that line's start).
    found: Vec<(usize, usize)>,
    pub(crate) lines: Lines,
    /// The last lines not kept (at most the context), as the scan ended.
    pub(crate) tail: Lines,
}

impl<'a, 'r> Scan<'a, 'r> {
    /// Scans `side`; `ranges` are sorted text ranges of changes (their start and last character are placed on
    /// lines, in this order, in [`Scanned::found`]).
    pub(crate) fn run(
        side: Side<'a>,
        ranges: &'r [Range<usize>],
        wanted: &'r [usize],
        context: usize,
    ) -> Scanned {
        let mut points: Vec<(usize, usize)> = Vec::with_capacity(ranges.len() * POINTS);
        for (i, r) in ranges.iter().enumerate() {
            points.push((r.start, POINTS * i));
            points.push((r.end.saturating_sub(1).max(r.start), POINTS * i + 1));
            points.push((r.end, POINTS * i + 2));
        }
        points.sort_unstable();
        let mut scan = Scan {
            encoding: side.encoding,
            ranges,
            wanted,
            context,
            found: vec![(0, 0); points.len()],
            points,
            next_point: 0,
            next_range: 0,
            next_wanted: 0,
            pos: 0,
            starts: 1,
            line_start: 0,
            last_start: 0,
            current: Vec::new(),
            recent: std::collections::VecDeque::new(),
            after: 0,
            lines: Lines::default(),
            scratch: String::new(),
        };
        let mut cursor = LineCursor::new();
        let mut last = 0u8;
        for text in gedgraft_syntax::internal::green_tokens(side.root).map(|t| t.text()) {
            let bytes = text.as_bytes();
            let Some(&end_byte) = bytes.last() else {
                continue;
            };
            let pos = scan.pos;
            cursor.feed_text(text, pos, |cut| match cut {
                TextCut::Text(piece) => scan.current.push(piece),
                TextCut::LineStart(start) => scan.start_line(start.at),
            });
            scan.pos = pos + bytes.len();
            last = end_byte;
        }
        let end = scan.pos;
        match cursor.finish() {
            Some(start) => scan.start_line(start.at),
            None if scan.line_start != end => scan.start_line(end),
            None => {}
        }
        // Points at or past the end.
        let (starts, line_start) = (scan.starts, scan.line_start);
        for &(_, k) in &scan.points[scan.next_point..] {
            if let Some(f) = scan.found.get_mut(k) {
                *f = (starts - 1, line_start);
            }
        }
        let count = starts - 1;
        let last_start = scan.last_start;
        scan.lines.count = count;
        let mut tail = Lines::default();
        while let Some((l, p)) = scan.recent.pop_front() {
            tail.push(l, &p, scan.encoding, &mut scan.scratch);
        }
        tail.count = count;
        Scanned {
            tail,
            count,
            end,
            complete: matches!(last, b'\n' | b'\r'),
            last_start,
            found: scan.found,
            lines: scan.lines,
        }
    }
}

impl<'a> Scan<'a, '_> {
    /// A line starts at `at`: the current line (`line_start..at`) is complete.
    fn start_line(&mut self, at: usize) {
        let line = self.starts - 1;
        while let Some(&(offset, k)) = self.points.get(self.next_point) {
            if offset >= at {
                break;
            }
            if let Some(f) = self.found.get_mut(k) {
                *f = (line, self.line_start);
            }
            self.next_point += 1;
        }
        let s = self.line_start;
        // A change touches the line if its closed range meets the line's closed range.
        while self.ranges.get(self.next_range).is_some_and(|r| r.end < s) {
            self.next_range += 1;
        }
        let touched = self.ranges[self.next_range..]
            .iter()
            .take_while(|r| r.start <= at)
            .any(|r| r.end >= s);
        while self.wanted.get(self.next_wanted).is_some_and(|&w| w < line) {
            self.next_wanted += 1;
        }
        let wanted = self.wanted.get(self.next_wanted) == Some(&line);
        let mut pieces = std::mem::take(&mut self.current);
        let context = self.after > 0;
        if touched {
            while let Some((l, p)) = self.recent.pop_front() {
                self.lines.push(l, &p, self.encoding, &mut self.scratch);
            }
            self.after = self.context;
        } else if context {
            self.after -= 1;
        }
        if touched || wanted || context {
            self.lines
                .push(line, &pieces, self.encoding, &mut self.scratch);
            pieces.clear();
            self.current = pieces;
        } else if self.context > 0 {
            self.recent.push_back((line, pieces));
            self.current = if self.recent.len() > self.context {
                let mut old = self.recent.pop_front().map(|(_, p)| p).unwrap_or_default();
                old.clear();
                old
            } else {
                Vec::new()
            };
        } else {
            pieces.clear();
            self.current = pieces;
        }
        self.last_start = s;
        self.line_start = at;
        self.starts += 1;
    }
}

impl Scanned {
    /// The line of a point, as `line_starts`/`line_of` placed it on the whole text.
    fn line_of(&self, point: usize) -> (usize, usize) {
        let (line, start) = self.found.get(point).copied().unwrap_or((0, 0));
        (line.min(self.count.saturating_sub(1)), start)
    }

    /// Whether the `i`-th change's text range starts and ends at line starts (the text's end counts as one when
    /// a line break ends the text: else it is inside the last line).
    fn edges(&self, i: usize, range: &Range<usize>) -> (bool, bool) {
        let at_start = |point: usize, at: usize| match at >= self.end {
            true => self.complete || self.end == 0,
            false => self.found.get(point).is_some_and(|f| f.1 == at),
        };
        (
            at_start(POINTS * i, range.start),
            at_start(POINTS * i + 2, range.end),
        )
    }

    /// The `i`-th change's window of lines on each side: each side's own ([`Scanned::window`]), widened where
    /// an edge of the change is at a line start on one side only. There the other side's line at that edge
    /// holds text both sides share (an LF that joins a CR before the change into one line break, the rest of
    /// a line that the change broke in two or to whose start it added text), which this side has on the line
    /// before the change's start, or on the line that starts at its end: that line is in the window too, or
    /// the windows would face lines that differ (found by the batch-by-batch counts' property test).
    pub(crate) fn windows(
        old: (&Scanned, &Range<usize>),
        new: (&Scanned, &Range<usize>),
        i: usize,
    ) -> Window {
        let mut sides = [
            (old.0, old.0.window(i, old.1.clone())),
            (new.0, new.0.window(i, new.1.clone())),
        ];
        let (old_edges, new_edges) = (old.0.edges(i, old.1), new.0.edges(i, new.1));
        if old_edges.0 != new_edges.0 {
            let (_, w) = &mut sides[usize::from(new_edges.0)];
            w.start = w.start.saturating_sub(1);
        }
        if old_edges.1 != new_edges.1 {
            let (scan, w) = &mut sides[usize::from(new_edges.1)];
            let at_end = scan.found.get(POINTS * i + 2).map_or(0, |f| f.0);
            w.end = w.end.max((at_end + 1).min(scan.count));
        }
        let [(_, o), (_, n)] = sides;
        (o, n)
    }

    /// The window of lines the `i`-th change's text range covers.
    fn window(&self, i: usize, range: Range<usize>) -> Range<usize> {
        let count = self.count;
        let (lo, lo_start) = if range.start >= self.end {
            let lo = if self.complete {
                count
            } else {
                count.saturating_sub(1)
            };
            (lo, self.last_start)
        } else {
            self.line_of(POINTS * i)
        };
        let mut hi = if range.end > range.start {
            self.line_of(POINTS * i + 1).0 + 1
        } else {
            lo
        };
        if lo < count && lo_start != range.start {
            hi = hi.max(lo + 1);
        }
        lo..hi.max(lo)
    }
}

/// Texts at least this long are scanned on two threads (one per side).
pub(crate) const PARALLEL_LEN: u32 = 1 << 20;

/// Scans both sides, on two threads when they are large.
pub(crate) fn scan_both(
    old: Side,
    old_ranges: &[Range<usize>],
    new: Side,
    new_ranges: &[Range<usize>],
    context: usize,
) -> (Scanned, Scanned) {
    let shorter = u32::from(old.root.text_len()).min(u32::from(new.root.text_len()));
    // Two workers (one per side) once the shorter text reaches `PARALLEL_LEN`, if there are two cores.
    let workers =
        gedgraft_syntax::internal::work::workers_for(shorter as usize, PARALLEL_LEN as usize / 2);
    let sides = vec![(old, old_ranges), (new, new_ranges)];
    let mut scans = gedgraft_syntax::internal::work::in_order(sides, workers, |(side, ranges)| {
        Scan::run(side, ranges, &[], context)
    })
    .into_iter();
    match (scans.next(), scans.next()) {
        (Some(old_scan), Some(new_scan)) => (old_scan, new_scan),
        // `in_order` returns one result per side.
        _ => (
            Scan::run(old, old_ranges, &[], context),
            Scan::run(new, new_ranges, &[], context),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff_lines::show;
    use crate::diff_reference;
    use gedgraft_encoding::SourceMap;
    use proptest::prelude::*;
    use rowan::NodeOrToken;

    proptest! {
        #[test]
        fn scans_place_points_and_keep_lines_as_the_whole_text_does(
            pieces in prop::collection::vec(prop::sample::select(vec!["a", "\r", "\n", "\r\n", "bc", ""]), 0..12),
            split in prop::collection::vec(any::<bool>(), 12),
            points in prop::collection::vec(0..30usize, 0..4),
        ) {
            // Tokens cut anywhere, CR LF pairs included, in nested nodes.
            use gedgraft_syntax::SyntaxKind;
            use rowan::{GreenNode, GreenToken};
            let text: String = pieces.concat();
            let mut children = Vec::new();
            let mut inner = Vec::new();
            for (i, p) in pieces.iter().enumerate() {
                inner.push(NodeOrToken::Token(GreenToken::new(SyntaxKind::Text.into(), p)));
                if split[i] {
                    children.push(NodeOrToken::Node(GreenNode::new(SyntaxKind::Line.into(), inner.drain(..))));
                }
            }
            children.push(NodeOrToken::Node(GreenNode::new(SyntaxKind::Line.into(), inner)));
            let root = GreenNode::new(SyntaxKind::Document.into(), children);
            let map = SourceMap::identity(text.len());
            let side = Side { root: &root, map: &map, encoding: Encoding::Utf8 };
            let mut ranges: Vec<Range<usize>> = points.iter().map(|&p| p..p + 2).collect();
            ranges.sort_by_key(|r| r.start);
            let all: Vec<usize> = (0..40).collect();
            let scanned = Scan::run(side, &ranges, &all, 0);
            let starts = diff_reference::line_starts(&text);
            prop_assert_eq!(scanned.count, starts.len() - 1);
            prop_assert_eq!(scanned.end, text.len());
            for (i, r) in ranges.iter().enumerate() {
                let (first, last) = (POINTS * i, POINTS * i + 1);
                for (k, at) in [(first, r.start), (last, (r.end - 1).max(r.start)), (last + 1, r.end)] {
                    let line = starts.partition_point(|&s| s <= at).saturating_sub(1);
                    let (got, got_start) = scanned.found[k];
                    prop_assert_eq!(got, line);
                    if at < text.len() {
                        prop_assert_eq!(got_start, starts[line]);
                    }
                }
            }
            for l in 0..scanned.count {
                let mut want = String::new();
                let brk = show(&text[starts[l]..starts[l + 1]], Encoding::Utf8, &mut want);
                prop_assert_eq!(scanned.lines.get(l).map(|(t, b, _)| (t, b)), Some((want.as_str(), brk.map_or("", gedgraft_syntax::LineBreak::as_str))));
            }
        }
    }
}
