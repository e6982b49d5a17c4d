//! The lines of one side of a review diff that the diff compares or prints: their text as shown, their line
//! break and their octets (see [`crate::LineDiff`] for how lines are shown and compared).

use crate::diff::Side;
use crate::diff_scan::Scan;
use crate::unified::ShownLine;
use gedgraft_encoding::{ansel, Encoding};
use gedgraft_syntax::LineBreak;
use std::ops::Range;

/// Lines of one side as shown, by line number: only those the diff compares or prints.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lines {
    /// The lines held, by line number.
    pub index: Vec<Held>,
    pub text: String,
    /// The lines' octets in the side's encoding, line breaks included.
    pub octets: Vec<u8>,
    /// How many lines the side has.
    pub count: usize,
}

/// One line held by [`Lines`]: its number, where its shown text lies in [`Lines::text`] and its octets in
/// [`Lines::octets`], its break.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Held {
    pub line: u32,
    pub start: u32,
    pub end: u32,
    pub octets: (u32, u32),
    pub line_break: Option<LineBreak>,
}

impl Lines {
    /// Holds no line, keeping the memory for the next ones.
    pub(crate) fn clear(&mut self) {
        self.index.clear();
        self.text.clear();
        self.octets.clear();
        self.count = 0;
    }

    pub(crate) fn find(&self, l: usize) -> Option<usize> {
        let l = u32::try_from(l).ok()?;
        self.index.binary_search_by_key(&l, |e| e.line).ok()
    }

    pub(crate) fn get(&self, l: usize) -> Option<ShownLine<'_>> {
        if l >= self.count {
            return None;
        }
        Some(self.shown(self.index.get(self.find(l)?)?))
    }

    pub(crate) fn shown(&self, held: &Held) -> ShownLine<'_> {
        (
            self.text
                .get(held.start as usize..held.end as usize)
                .unwrap_or(""),
            held.line_break.map_or("", LineBreak::as_str),
            self.octets
                .get(held.octets.0 as usize..held.octets.1 as usize)
                .unwrap_or(&[]),
        )
    }

    /// The position of the first held line at or after `l`, searched from `at` (where the last search ended):
    /// a few steps forward, else a binary search.
    pub(crate) fn seek(&self, at: &mut usize, l: u32) -> usize {
        let near = self.index.get(*at).is_some_and(|h| h.line <= l)
            && self.index.get(*at + 8).is_none_or(|h| h.line >= l);
        if near {
            while self.index.get(*at).is_some_and(|h| h.line < l) {
                *at += 1;
            }
        } else {
            *at = self.index.partition_point(|h| h.line < l);
        }
        *at
    }

    /// Like [`Lines::get`], for lines asked for in ascending order: `at` is where the last one was found.
    pub(crate) fn get_from(&self, at: &mut usize, l: usize) -> Option<ShownLine<'_>> {
        if l >= self.count {
            return None;
        }
        let l = u32::try_from(l).ok()?;
        let held = self.index.get(self.seek(at, l)).filter(|h| h.line == l)?;
        Some(self.shown(held))
    }

    /// The lines of `range` as shown, with their breaks and octets (empty for lines not held).
    pub(crate) fn shown_range(&self, range: Range<usize>) -> Vec<ShownLine<'_>> {
        let mut at = 0;
        range
            .map(|l| self.get_from(&mut at, l).unwrap_or(("", "", &[])))
            .collect()
    }

    /// The line numbers in `ranges` (each ascending, starting in ascending order) that are not held, ascending.
    pub(crate) fn missing(&self, ranges: impl Iterator<Item = Range<usize>>) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        let mut at = 0;
        let mut next = 0; // lines below this were looked at
        for r in ranges {
            for l in r.start.max(next)..r.end {
                let held = u32::try_from(l).is_ok_and(|l| {
                    self.index
                        .get(self.seek(&mut at, l))
                        .is_some_and(|h| h.line == l)
                });
                if !held {
                    out.push(l);
                }
            }
            next = next.max(r.end);
        }
        out
    }

    /// Adds line `l` (with its break), given as the pieces of its text.
    pub(crate) fn push(
        &mut self,
        l: usize,
        pieces: &[&str],
        encoding: Encoding,
        scratch: &mut String,
    ) {
        let start = self.text.len();
        for p in pieces {
            self.text.push_str(p);
        }
        // Most lines are shown as they are, without their break: no copy.
        let line = self.text.get(start..).unwrap_or("");
        let octets_start = self.octets.len();
        if encoding.encode(line, &mut self.octets).is_err() {
            // Text read from a file in this encoding always encodes; were it not to, no octets are compared.
            self.octets.truncate(octets_start);
        }
        let octets = (
            u32::try_from(octets_start).unwrap_or(u32::MAX),
            u32::try_from(self.octets.len()).unwrap_or(u32::MAX),
        );
        let plain = !needs_showing(line, encoding);
        let line_break = if plain {
            let content = line.trim_end_matches(['\r', '\n']).len();
            let line_break = LineBreak::of(line.get(content..).unwrap_or(""));
            self.text.truncate(start + content);
            line_break
        } else {
            scratch.clear();
            scratch.push_str(line);
            self.text.truncate(start);
            show(scratch, encoding, &mut self.text)
        };
        let start = start as u32;
        self.index.push(Held {
            line: u32::try_from(l).unwrap_or(u32::MAX),
            start,
            end: self.text.len() as u32,
            octets,
            line_break,
        });
    }

    /// Adds line `l` of `other` as line `l` (after the lines held), if `other` holds it.
    pub(crate) fn copy_line(&mut self, other: &Lines, l: usize) -> bool {
        let Some(held) = other.find(l).and_then(|i| other.index.get(i)) else {
            return false;
        };
        let text = other
            .text
            .get(held.start as usize..held.end as usize)
            .unwrap_or("");
        let octets = other
            .octets
            .get(held.octets.0 as usize..held.octets.1 as usize)
            .unwrap_or(&[]);
        let start = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        let octets_start = u32::try_from(self.octets.len()).unwrap_or(u32::MAX);
        self.text.push_str(text);
        self.octets.extend_from_slice(octets);
        self.index.push(Held {
            start,
            end: u32::try_from(self.text.len()).unwrap_or(u32::MAX),
            octets: (
                octets_start,
                u32::try_from(self.octets.len()).unwrap_or(u32::MAX),
            ),
            ..*held
        });
        self.count = self.count.max(l + 1);
        true
    }

    /// Adds the lines of `other` (another text's, or a batch's) as lines `base` and after.
    pub(crate) fn append_shifted(&mut self, other: &Lines, base: usize) {
        let shift = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        let octets_shift = u32::try_from(self.octets.len()).unwrap_or(u32::MAX);
        let base = u32::try_from(base).unwrap_or(u32::MAX);
        let sorted_after = self.index.last().map(|h| h.line);
        self.index.extend(other.index.iter().map(|h| Held {
            line: h.line.saturating_add(base),
            start: h.start.saturating_add(shift),
            end: h.end.saturating_add(shift),
            octets: (
                h.octets.0.saturating_add(octets_shift),
                h.octets.1.saturating_add(octets_shift),
            ),
            ..*h
        }));
        self.text.push_str(&other.text);
        self.octets.extend_from_slice(&other.octets);
        let first_new = other.index.first().map(|h| h.line.saturating_add(base));
        if let (Some(last), Some(first)) = (sorted_after, first_new) {
            if first <= last {
                self.index.sort_by_key(|e| e.line);
            }
        }
        let end = self.index.last().map_or(0, |h| h.line as usize + 1);
        self.count = self.count.max(end);
    }

    /// Adds the lines `wanted` (ascending, not held yet) of a side, in one more pass over its tree.
    pub(crate) fn add(&mut self, side: Side, wanted: &[usize]) {
        if wanted.is_empty() {
            return;
        }
        let found = Scan::run(side, &[], wanted, 0).lines;
        let shift = self.text.len() as u32;
        let octets_shift = self.octets.len() as u32;
        self.index.extend(found.index.iter().map(|h| Held {
            start: h.start + shift,
            end: h.end + shift,
            octets: (h.octets.0 + octets_shift, h.octets.1 + octets_shift),
            ..*h
        }));
        self.text.push_str(&found.text);
        self.octets.extend_from_slice(&found.octets);
        self.index.sort_unstable_by_key(|e| e.line);
    }
}

/// Whether a line's text (its break aside) is shown other than as it is: in ANSEL (Unicode order), or when it
/// holds a byte-order mark (starts with EF), a raw character (U+10FF00 up: F4) or a control character other
/// than tab (C0, DEL, C1: C2 80–9F).
fn needs_showing(text: &str, encoding: Encoding) -> bool {
    encoding == Encoding::Ansel
        || text.bytes().any(|b| {
            matches!(b, 0xEF | 0xF4 | 0xC2 | 0x7F)
                || (b < 0x20 && !matches!(b, b'\t' | b'\r' | b'\n'))
        })
}

/// Appends how a line (with its break) is shown to `out`, and gives its break.
pub(crate) fn show(raw_line: &str, encoding: Encoding, out: &mut String) -> Option<LineBreak> {
    let content = raw_line.trim_end_matches(['\r', '\n']);
    let line_break = LineBreak::of(raw_line.get(content.len()..).unwrap_or(""));
    if !needs_showing(content, encoding) {
        out.push_str(content);
        return line_break;
    }
    let reordered;
    let content = if encoding == Encoding::Ansel {
        reordered = ansel::to_unicode_order(content);
        reordered.as_str()
    } else {
        content
    };
    for c in content.chars() {
        if c == '\u{FEFF}' {
            out.push_str("[BOM]");
        } else {
            // An escape sequence must not act on the reviewer's terminal (or hide a line from the review).
            gedgraft_syntax::internal::push_printable(c, out);
        }
    }
    line_break
}
