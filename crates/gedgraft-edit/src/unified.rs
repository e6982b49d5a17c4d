//! Printing unified diffs: hunk headers, lines with their signs, `\ No newline at end of file`, and the notes
//! that say why a line whose text did not change is in the diff (its octets did). Shared by the review diff
//! ([`crate::LineDiff`]), its test reference and the octet patch ([`crate::octet_patch`]).

use gedgraft_encoding::Encoding;
use similar::DiffOp;
use std::collections::HashMap;
use std::ops::Range;

/// How many lines the hunks `groups` remove.
pub(crate) fn removed_in(groups: &[Vec<DiffOp>]) -> usize {
    groups
        .iter()
        .flatten()
        .map(|op| match op {
            DiffOp::Delete { old_len, .. } | DiffOp::Replace { old_len, .. } => *old_len,
            _ => 0,
        })
        .sum()
}

/// How many lines the hunks `groups` add.
pub(crate) fn added_in(groups: &[Vec<DiffOp>]) -> usize {
    groups
        .iter()
        .flatten()
        .map(|op| match op {
            DiffOp::Insert { new_len, .. } | DiffOp::Replace { new_len, .. } => *new_len,
            _ => 0,
        })
        .sum()
}

/// One line as the review diff compares and shows it: its text as shown, its line break, and its octets (line
/// break included) in its file's encoding. Two lines are the same only when all three are.
pub(crate) type ShownLine<'l> = (&'l str, &'static str, &'l [u8]);

/// The unified diff of the hunks `groups` between files named `names` (old, new): `old` and `new` give a line
/// as shown ([`ShownLine`]). `markers` shows every line break (when the files mix them). A hunk whose lines
/// changed only in their octets (same text, same break: a transcode) says so in a note after its header,
/// `# octets only: line 4: ANSEL E2 65 → UTF-8 C3 A9`, with the encodings of `encodings` (old, new). Empty when
/// no line differs.
pub(crate) fn write_unified<'l>(
    groups: &[Vec<DiffOp>],
    markers: bool,
    (old_name, new_name): (&str, &str),
    encodings: (Encoding, Encoding),
    old: impl Fn(usize) -> Option<ShownLine<'l>>,
    new: impl Fn(usize) -> Option<ShownLine<'l>>,
) -> String {
    if groups.is_empty() {
        return String::new();
    }
    let push_line = |out: &mut String, sign: char, line: Option<ShownLine>| {
        let Some((text, line_break, _)) = line else {
            return;
        };
        out.push(sign);
        out.push_str(text);
        if markers {
            out.push_str(match line_break {
                "\r\n" => "␍␊",
                "\n" => "␊",
                "\r" => "␍",
                _ => "",
            });
        }
        out.push('\n');
        if line_break.is_empty() {
            out.push_str("\\ No newline at end of file\n");
        }
    };
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    for group in groups {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            hunk_range(&old_range),
            hunk_range(&new_range)
        ));
        if let Some(note) = octets_only_note(group, encodings, &old, &new) {
            out.push_str(&note);
        }
        walk_hunk(group, |mark, l| match mark {
            Mark::Context => push_line(&mut out, ' ', old(l)),
            Mark::Removed => push_line(&mut out, '-', old(l)),
            Mark::Added => push_line(&mut out, '+', new(l)),
        });
    }
    out
}

/// What a line of a hunk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// An unchanged line (an index of the old side).
    Context,
    /// A removed line (old side).
    Removed,
    /// An added line (new side).
    Added,
}

/// Walks the lines of one hunk in the order `diff -u` prints them: context lines as they come, and each run of
/// changes as its removed lines, then its added lines. Shared by the review diff and the octet patch.
pub(crate) fn walk_hunk(group: &[DiffOp], mut emit: impl FnMut(Mark, usize)) {
    let (mut minus, mut plus): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    let flush =
        |minus: &mut Vec<usize>, plus: &mut Vec<usize>, emit: &mut dyn FnMut(Mark, usize)| {
            minus.drain(..).for_each(|l| emit(Mark::Removed, l));
            plus.drain(..).for_each(|l| emit(Mark::Added, l));
        };
    for op in group {
        if let DiffOp::Equal { old_index, len, .. } = *op {
            flush(&mut minus, &mut plus, &mut emit);
            (old_index..old_index + len).for_each(|l| emit(Mark::Context, l));
        } else {
            minus.extend(op.old_range());
            plus.extend(op.new_range());
        }
    }
    flush(&mut minus, &mut plus, &mut emit);
}

/// The note for the lines of a hunk that changed only in their octets: in each run of changes, a removed line
/// and an added line with the same text and break (paired in order) but other octets. Names the first one
/// (1-based, in the new file) with its differing octets, and how many more there are. The pairs do not depend
/// on how the run is cut into operations (a whole file's diff and a streamed one cut it differently).
fn octets_only_note<'l>(
    group: &[DiffOp],
    (old_encoding, new_encoding): (Encoding, Encoding),
    old: &impl Fn(usize) -> Option<ShownLine<'l>>,
    new: &impl Fn(usize) -> Option<ShownLine<'l>>,
) -> Option<String> {
    let mut first: Option<(usize, &[u8], &[u8])> = None;
    let mut count = 0usize;
    let (mut removed, mut added): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    let mut pair_run = |removed: &mut Vec<usize>, added: &mut Vec<usize>| {
        // The added lines by text and break, each list in order, taken from the front.
        let mut by_text: HashMap<(&str, &str), AddedLines<'l>> = HashMap::new();
        for &l in added.iter() {
            if let Some((text, line_break, octets)) = new(l) {
                by_text
                    .entry((text, line_break))
                    .or_default()
                    .1
                    .push((l, octets));
            }
        }
        for &l in removed.iter() {
            let Some((text, line_break, octets)) = old(l) else {
                continue;
            };
            let Some((next, queue)) = by_text.get_mut(&(text, line_break)) else {
                continue;
            };
            let Some(&(new_line, new_octets)) = queue.get(*next) else {
                continue;
            };
            *next += 1;
            if octets != new_octets {
                count += 1;
                if first.is_none_or(|f| new_line < f.0) {
                    first = Some((new_line, octets, new_octets));
                }
            }
        }
        removed.clear();
        added.clear();
    };
    for op in group {
        if let DiffOp::Equal { .. } = op {
            pair_run(&mut removed, &mut added);
        } else {
            removed.extend(op.old_range());
            added.extend(op.new_range());
        }
    }
    pair_run(&mut removed, &mut added);
    let (line, a, b) = first?;
    let (a, b) = differing_octets(a, b);
    let more = match count {
        0 | 1 => String::new(),
        2 => " (and 1 more line)".to_string(),
        n => format!(" (and {} more lines)", n - 1),
    };
    Some(format!(
        "# octets only: line {}: {} {} → {} {}{more}\n",
        line + 1,
        old_encoding.name(),
        a,
        new_encoding.name(),
        b
    ))
}

/// The added lines of a run with one text and break, in order: how many were paired so far, and each line
/// with its octets.
type AddedLines<'l> = (usize, Vec<(usize, &'l [u8])>);

/// Octets shown in a note at most.
const NOTE_OCTETS: usize = 8;

/// The first run of octets where `a` and `b` differ, in hex, shortened with `…`: after their common start, up
/// to where they agree again for a few octets (or, when they do not soon, up to their common end).
pub(crate) fn differing_octets(a: &[u8], b: &[u8]) -> (String, String) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    // Where the two agree again: the first (i, j), by i + j, after which 3 octets (or the rest) are the same.
    let agree = |i: usize, j: usize| match (a.get(i..), b.get(j..)) {
        (Some(x), Some(y)) => x == y || (x.len() >= 3 && x.get(..3) == y.get(..3)),
        _ => false,
    };
    let resync = (1..=2 * NOTE_OCTETS)
        .flat_map(|sum| (0..=sum).map(move |i| (i, sum - i)))
        .find(|&(i, j)| agree(i, j));
    let (a, b) = match resync {
        Some((i, j)) => (&a[..i], &b[..j]),
        None => {
            let suffix = a
                .iter()
                .rev()
                .zip(b.iter().rev())
                .take_while(|(x, y)| x == y)
                .count();
            (&a[..a.len() - suffix], &b[..b.len() - suffix])
        }
    };
    let hex = |o: &[u8]| {
        let mut s: Vec<String> = o
            .iter()
            .take(NOTE_OCTETS)
            .map(|x| format!("{x:02X}"))
            .collect();
        if o.is_empty() {
            s.push("(none)".into());
        } else if o.len() > NOTE_OCTETS {
            s.push("…".into());
        }
        s.join(" ")
    };
    (hex(a), hex(b))
}

/// `@@` header range of 0-based lines `r`, as `diff -u` writes it.
pub(crate) fn hunk_range(r: &Range<usize>) -> String {
    match r.len() {
        0 => format!("{},0", r.start),
        1 => format!("{}", r.start + 1),
        n => format!("{},{n}", r.start + 1),
    }
}

/// `op` with its old indices moved on by `o` and its new ones by `n`.
pub(crate) fn shift(op: DiffOp, o: usize, n: usize) -> DiffOp {
    match op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => DiffOp::Equal {
            old_index: old_index + o,
            new_index: new_index + n,
            len,
        },
        DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        } => DiffOp::Delete {
            old_index: old_index + o,
            old_len,
            new_index: new_index + n,
        },
        DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        } => DiffOp::Insert {
            old_index: old_index + o,
            new_index: new_index + n,
            new_len,
        },
        DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => DiffOp::Replace {
            old_index: old_index + o,
            old_len,
            new_index: new_index + n,
            new_len,
        },
    }
}

/// A pair of line windows to compare: old lines, new lines.
pub(crate) type Window = (Range<usize>, Range<usize>);

/// Merges the windows of lines around each change (in order) into the windows to compare: merged where they
/// overlap (or touch, with `merge_touching`) or where the lines between them differ in number, so that lines
/// outside every window are the same on both sides. A first window whose lines before it differ in number
/// starts at line 0; the last one runs to the end when the lines after it differ in number; no change at all
/// is one window of everything.
pub(crate) fn merge_windows(
    around_changes: impl IntoIterator<Item = Window>,
    counts: (usize, usize),
    merge_touching: bool,
) -> Vec<Window> {
    let mut windows = joined_windows(around_changes, merge_touching);
    if let Some((po, pn)) = windows.first_mut().filter(|(po, pn)| po.start != pn.start) {
        (po.start, pn.start) = (0, 0);
    }
    let (old_count, new_count) = counts;
    match windows.last_mut() {
        Some((po, pn)) if old_count - po.end != new_count - pn.end => {
            po.end = old_count;
            pn.end = new_count;
        }
        None => windows.push((0..old_count, 0..new_count)),
        _ => {}
    }
    windows
}

/// The merging of [`merge_windows`] alone, without widening the first and last windows to the file's ends
/// (for a file placed a batch at a time, whose ends are not at hand: `patch_stream.rs`).
pub(crate) fn joined_windows(
    around_changes: impl IntoIterator<Item = Window>,
    merge_touching: bool,
) -> Vec<Window> {
    let around_changes = around_changes.into_iter();
    // At most one window per change: room made once (a repair pass can change every line, #12).
    let mut windows: Vec<Window> = Vec::with_capacity(around_changes.size_hint().0);
    for next in around_changes {
        match windows.last_mut() {
            Some(last) if joins(last, &next, merge_touching) => join(last, &next),
            _ => windows.push(next),
        }
    }
    windows
}

/// Whether the window `next` (after `last`, in order) joins it: they overlap (or touch, with `merge_touching`)
/// on either side, or the lines between them differ in number.
pub(crate) fn joins((po, pn): &Window, (wo, wn): &Window, merge_touching: bool) -> bool {
    wo.start < po.end
        || wn.start < pn.end
        || (merge_touching && (wo.start == po.end || wn.start == pn.end))
        || wo.start - po.end != wn.start - pn.end
}

/// Widens `last` to take in `next`, which [`joins`] it.
pub(crate) fn join((po, pn): &mut Window, (wo, wn): &Window) {
    po.end = po.end.max(wo.end);
    pn.end = pn.end.max(wn.end);
}

/// A file name as the `---` and `+++` lines of a unified diff give it: as it is, or quoted as git quotes it
/// (C escapes inside `"…"`, which GNU `patch` and `git apply` read) when it holds a control character, a `"` or
/// a `\`: a line break in a name would end the header line, and `patch` would edit another file (`a` for
/// `a<LF>b.ged`). Other characters, non-ASCII letters included, stay as they are.
///
/// ```
/// assert_eq!(gedgraft_edit::quote_path("a/Müller.ged"), "a/Müller.ged");
/// assert_eq!(gedgraft_edit::quote_path("a/a\nb.ged"), r#""a/a\nb.ged""#);
/// assert_eq!(gedgraft_edit::quote_path("b/x\u{1b}[2K\"y"), r#""b/x\033[2K\"y""#);
/// ```
pub fn quote_path(name: &str) -> String {
    if !name
        .chars()
        .any(|c| c.is_control() || c == '"' || c == '\\')
    {
        return name.to_string();
    }
    let mut out = String::from('"');
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                for b in c.encode_utf8(&mut [0; 4]).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::differing_octets;

    #[test]
    fn the_first_differing_run_is_shown() {
        let d = |a: &[u8], b: &[u8]| {
            let (x, y) = differing_octets(a, b);
            format!("{x} → {y}")
        };
        assert_eq!(
            d(
                b"Jos\xE2e /Garc\xE2ia/\n",
                b"Jose\xCC\x81 /Garci\xCC\x81a/\n"
            ),
            "E2 65 → 65 CC 81"
        );
        assert_eq!(d(b"caf\xE9\r\n", b"caf\xC3\xA9\r\n"), "E9 → C3 A9");
        assert_eq!(d(b"ab\n", b"ab\r\n"), "(none) → 0D");
        assert_eq!(d(b"a", b"0\x001"), "61 → 30 00 31");
        assert_eq!(
            d(&[0x30; 20], &[0x31; 20]),
            "30 30 30 30 30 30 30 30 … → 31 31 31 31 31 31 31 31 …"
        );
    }
}
