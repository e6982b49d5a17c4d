//! The first implementation of [`LineDiff`](crate::LineDiff), kept for tests: it reads both whole texts
//! ([`Parse::text`]) and finds every line start. The streaming one must find the very same hunks and lines; both
//! print them with [`write_unified`], whose output the tests pin with literal diffs.

#![allow(dead_code)]

use crate::edited::Change;
use crate::unified::{added_in, removed_in, shift, write_unified, ShownLine};
use gedgraft_encoding::{ansel, raw, Encoding};
use gedgraft_syntax::Parse;
use similar::{Algorithm, DiffOp};
use std::ops::Range;

/// The line diff of an edit: hunks of removed and added lines with three lines of context.
///
/// ```
/// use gedgraft_edit::Editor;
/// let parse = gedgraft_syntax::parse(b"0 HEAD\r\n0 @I1@ INDI\r\n1 NAME Bob\r\n0 TRLR\r\n");
/// let name = parse.document().record_by_xref("I1").unwrap().substructures().next().unwrap();
/// let mut editor = Editor::new(&parse);
/// editor.set_payload(&name, "Robert").unwrap();
/// let edited = editor.apply().unwrap();
/// let diff = edited.line_diff();
/// assert_eq!((diff.removed(), diff.added()), (1, 1));
/// assert!(diff.unified("old", "new").contains("-1 NAME Bob\n+1 NAME Robert\n"));
/// ```
#[derive(Debug, Clone)]
pub(crate) struct LineDiff {
    old: Vec<Shown>,
    new: Vec<Shown>,
    groups: Vec<Vec<DiffOp>>,
    markers: bool,
    encodings: (Encoding, Encoding),
}

/// One line as shown, and its break.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Shown {
    text: String,
    line_break: &'static str,
    /// The line's octets in its file's encoding, line break included.
    octets: Vec<u8>,
}

/// Where each line of `text` starts (and the text's end).
pub(crate) fn line_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                i += 1;
                starts.push(i);
            }
            b'\r' => {
                i += if bytes.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                starts.push(i);
            }
            _ => i += 1,
        }
    }
    if starts.last() != Some(&bytes.len()) {
        starts.push(bytes.len());
    }
    starts
}

/// The line holding text offset `at` (the last line for the end of the text).
fn line_of(starts: &[usize], at: usize) -> usize {
    starts
        .partition_point(|&s| s <= at)
        .saturating_sub(1)
        .min(starts.len().saturating_sub(2))
}

fn shown(text: &str, starts: &[usize], line: usize, encoding: Encoding) -> Shown {
    let (Some(&a), Some(&b)) = (starts.get(line), starts.get(line + 1)) else {
        return Shown {
            text: String::new(),
            line_break: "",
            octets: Vec::new(),
        };
    };
    let raw_line = text.get(a..b).unwrap_or("");
    let mut octets = Vec::new();
    if encoding.encode(raw_line, &mut octets).is_err() {
        octets.clear();
    }
    let content = raw_line.trim_end_matches(['\r', '\n']);
    let line_break = match &raw_line[content.len()..] {
        "\r\n" => "\r\n",
        "\n" => "\n",
        "\r" => "\r",
        _ => "",
    };
    let content = if encoding == Encoding::Ansel {
        ansel::to_unicode_order(content)
    } else {
        content.to_string()
    };
    let mut out = String::with_capacity(content.len());
    for c in content.chars() {
        if c == '\u{FEFF}' {
            out.push_str("[BOM]");
        } else if let Some(octet) = raw::to_octet(c) {
            out.push_str(&format!("\\x{octet:02X}"));
        } else if c != '\t' && c.is_control() {
            out.push_str(&format!("\\x{:02X}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Shown {
        text: out,
        line_break,
        octets,
    }
}

/// The window of lines a changed text range covers (`complete`: the text ends with a line break).
fn window(starts: &[usize], complete: bool, range: Range<usize>) -> Range<usize> {
    let count = starts.len() - 1;
    let end = starts.last().copied().unwrap_or(0);
    let lo = if range.start >= end {
        if complete {
            count
        } else {
            count.saturating_sub(1)
        }
    } else {
        line_of(starts, range.start)
    };
    let mut hi = if range.end > range.start {
        line_of(starts, range.end - 1) + 1
    } else {
        lo
    };
    if lo < count && starts.get(lo).is_some_and(|&s| s != range.start) {
        hi = hi.max(lo + 1);
    }
    lo..hi.max(lo)
}

/// Adds an operation; equal runs that meet are one run (a window can start or end with a line that is the same
/// on both sides): a hunk's context is the last lines of the run before it and the first of the run after it.
fn push(ops: &mut Vec<DiffOp>, op: DiffOp) {
    match (ops.last_mut(), op) {
        (Some(DiffOp::Equal { len, .. }), DiffOp::Equal { len: more, .. }) => *len += more,
        (_, op) => ops.push(op),
    }
}

impl LineDiff {
    /// The diff between `old` and `new`, where `changes` (in file octets) are the only places they differ.
    pub(crate) fn new(old: &Parse, new: &Parse, changes: &[Change]) -> LineDiff {
        let old_text = old.text();
        let new_text = new.text();
        let old_starts = line_starts(old_text);
        let new_starts = line_starts(new_text);
        let old_count = old_starts.len() - 1;
        let new_count = new_starts.len() - 1;
        let old_complete = old_text.ends_with(['\n', '\r']);
        let new_complete = new_text.ends_with(['\n', '\r']);
        // Windows of lines to compare, merged where they overlap or their gaps disagree.
        let mut windows: Vec<(Range<usize>, Range<usize>)> = Vec::new();
        for c in changes {
            let o = old.source_map().text_offset(c.input.start)
                ..old.source_map().text_offset(c.input.end);
            let n = new.source_map().text_offset(c.output.start)
                ..new.source_map().text_offset(c.output.end);
            let (mut wo, mut wn) = (
                window(&old_starts, old_complete, o.clone()),
                window(&new_starts, new_complete, n.clone()),
            );
            // An edge at a line start on one side only: that side takes the line before the start, or the
            // line at the end, which the other side's line at that edge shares text with.
            // The text's end is a line start when a line break ends the text (or it is empty).
            let at_start = |starts: &[usize], complete: bool, at: usize| {
                let end = starts.last().copied().unwrap_or(0);
                starts.binary_search(&at).is_ok() && (at < end || complete || end == 0)
            };
            let (os, ns) = (
                at_start(&old_starts, old_complete, o.start),
                at_start(&new_starts, new_complete, n.start),
            );
            if os != ns {
                let w = if os { &mut wo } else { &mut wn };
                w.start = w.start.saturating_sub(1);
            }
            let (oe, ne) = (
                at_start(&old_starts, old_complete, o.end),
                at_start(&new_starts, new_complete, n.end),
            );
            if oe != ne {
                let (w, starts, end) = if oe {
                    (&mut wo, &old_starts, o.end)
                } else {
                    (&mut wn, &new_starts, n.end)
                };
                w.end = w.end.max((line_of(starts, end) + 1).min(starts.len() - 1));
            }
            match windows.last_mut() {
                Some((po, pn))
                    if wo.start < po.end
                        || wn.start < pn.end
                        || wo.start - po.end != wn.start - pn.end =>
                {
                    po.end = po.end.max(wo.end);
                    pn.end = pn.end.max(wn.end);
                }
                _ => {
                    let first_gap_ok = windows.is_empty() && wo.start == wn.start;
                    if windows.is_empty() && !first_gap_ok {
                        windows.push((0..wo.end, 0..wn.end));
                    } else {
                        windows.push((wo, wn));
                    }
                }
            }
        }
        if let Some((po, pn)) = windows.last_mut() {
            if old_count - po.end != new_count - pn.end {
                po.end = old_count;
                pn.end = new_count;
            }
        }
        let (old_enc, new_enc) = (old.encoding(), new.encoding());
        let mut ops = Vec::new();
        let (mut oi, mut ni) = (0, 0);
        let mut old_lines = Vec::new();
        let mut new_lines = Vec::new();
        for (wo, wn) in windows {
            if wo.start > oi {
                push(
                    &mut ops,
                    DiffOp::Equal {
                        old_index: oi,
                        new_index: ni,
                        len: wo.start - oi,
                    },
                );
            }
            let a: Vec<Shown> = wo
                .clone()
                .map(|l| shown(old_text, &old_starts, l, old_enc))
                .collect();
            let b: Vec<Shown> = wn
                .clone()
                .map(|l| shown(new_text, &new_starts, l, new_enc))
                .collect();
            for op in similar::capture_diff_slices(Algorithm::Myers, &a, &b) {
                push(&mut ops, shift(op, wo.start, wn.start));
            }
            old_lines.push((wo.start, a));
            new_lines.push((wn.start, b));
            oi = wo.end;
            ni = wn.end;
        }
        if oi < old_count && ni < new_count && !ops.is_empty() {
            push(
                &mut ops,
                DiffOp::Equal {
                    old_index: oi,
                    new_index: ni,
                    len: (old_count - oi).min(new_count - ni),
                },
            );
        }
        let groups: Vec<Vec<DiffOp>> = similar::group_diff_ops(ops, 3)
            .into_iter()
            .filter(|g| g.iter().any(|op| !matches!(op, DiffOp::Equal { .. })))
            .collect();
        // Every line that is printed, as shown.
        let collect =
            |text: &str, starts: &[usize], enc, ranges: &mut dyn Iterator<Item = Range<usize>>| {
                ranges
                    .flat_map(|r| {
                        r.map(|l| (l, shown(text, starts, l, enc)))
                            .collect::<Vec<_>>()
                    })
                    .collect::<Vec<_>>()
            };
        let mut old_ranges = groups
            .iter()
            .flat_map(|g| g.iter().map(|op| op.old_range()));
        let mut new_ranges = groups
            .iter()
            .flat_map(|g| g.iter().map(|op| op.new_range()));
        let old_printed = collect(old_text, &old_starts, old_enc, &mut old_ranges);
        let new_printed = collect(new_text, &new_starts, new_enc, &mut new_ranges);
        let mut forms: Vec<&str> = Vec::new();
        for s in old_lines
            .iter()
            .flat_map(|(_, v)| v.iter())
            .chain(new_lines.iter().flat_map(|(_, v)| v.iter()))
            .chain(old_printed.iter().map(|(_, s)| s))
            .chain(new_printed.iter().map(|(_, s)| s))
        {
            if !s.line_break.is_empty() && !forms.contains(&s.line_break) {
                forms.push(s.line_break);
            }
        }
        LineDiff {
            old: index_lines(old_printed, old_count),
            new: index_lines(new_printed, new_count),
            groups,
            markers: forms.len() > 1,
            encodings: (old_enc, new_enc),
        }
    }

    /// How many lines were removed.
    pub(crate) fn removed(&self) -> usize {
        removed_in(&self.groups)
    }

    /// How many lines were added.
    pub(crate) fn added(&self) -> usize {
        added_in(&self.groups)
    }

    /// Whether no line differs.
    pub(crate) fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The unified diff, printed as the streaming [`crate::LineDiff`] prints it.
    pub(crate) fn unified(&self, old_name: &str, new_name: &str) -> String {
        write_unified(
            &self.groups,
            self.markers,
            (old_name, new_name),
            self.encodings,
            |l| shown_line(&self.old, l),
            |l| shown_line(&self.new, l),
        )
    }
}

/// Line `l` of `lines` as [`write_unified`] takes it.
fn shown_line(lines: &[Shown], l: usize) -> Option<ShownLine<'_>> {
    lines.get(l).map(|shown| {
        (
            shown.text.as_str(),
            shown.line_break,
            shown.octets.as_slice(),
        )
    })
}

/// A sparse list of printed lines turned into a vector indexed by line number (unprinted lines empty).
fn index_lines(printed: Vec<(usize, Shown)>, count: usize) -> Vec<Shown> {
    let max = printed
        .iter()
        .map(|(l, _)| l + 1)
        .max()
        .unwrap_or(0)
        .min(count);
    let mut out = vec![
        Shown {
            text: String::new(),
            line_break: "\n",
            octets: Vec::new(),
        };
        max
    ];
    for (l, s) in printed {
        if let Some(slot) = out.get_mut(l) {
            *slot = s;
        }
    }
    out
}
