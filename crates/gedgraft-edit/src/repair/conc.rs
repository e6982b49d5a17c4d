//! `conc-at-whitespace` (safe): a `CONC` split next to whitespace is moved, by as few characters as it takes,
//! to a place between two other characters (R-SERIALISING-STRUCTS-10, -11); `conc-after-diacritic` (safe), a
//! split between an ANSEL diacritic and its letter, the same way. The units of the two lines are the
//! editor's ([`token_units`]) and a split goes only where the shared rule allows one
//! ([`split_allowed`]: never inside `@@`, an escape or a character, never after an ANSEL diacritic), so the
//! joined text, and the lowering, stay the same.

use super::{plural, Cx, Made, OctetEdit};
use crate::render::{token_units, Unit, UnitKind};
use gedgraft_syntax::ast::{AstNode, AstToken, Line, Structure};
use gedgraft_syntax::internal::serialise::split_allowed;
use gedgraft_syntax::{line_octet_limit, Diagnostic, SyntaxKind, SyntaxNode, TextRange, TextSize};

/// One line of a structure's payload: its units as the repair leaves them, and where they are.
struct PayloadLine {
    units: Vec<Unit>,
    /// The tree range of the payload as written (empty after the separator when there is no text).
    range: TextRange,
    /// Whether the line has a payload separator (a line without one cannot take text).
    has_separator: bool,
    /// The line's octets outside its payload (level, tag, separators, line break), and all of them.
    fixed: usize,
    written: usize,
    /// Where the line starts in the tree, and whether it is a `CONC` line.
    start: TextSize,
    conc: bool,
    /// The tree text length of each unit as written.
    written_units: Vec<usize>,
    /// How the units changed: units as written cut from the start and the end, units added at the start and
    /// the end (`whole`: the ends met, the payload is replaced whole).
    cut: (usize, usize),
    added: (usize, usize),
    whole: bool,
}

impl PayloadLine {
    fn of(cx: &Cx, line: &Line) -> PayloadLine {
        let encoding = cx.parse.encoding();
        let payload = line.payload();
        let tokens: Vec<_> = payload.iter().flat_map(|p| p.tokens()).collect();
        let units: Vec<Unit> =
            token_units(tokens.iter().map(|t| (t.kind(), t.text())), encoding).collect();
        let line_range = line.text_range();
        let range = match (tokens.first(), tokens.last(), &payload) {
            (Some(first), Some(last), _) => {
                TextRange::new(first.text_range().start(), last.text_range().end())
            }
            (_, _, Some(p)) => TextRange::empty(p.separator().text_range().end()),
            _ => TextRange::empty(line_range.end()),
        };
        let written = cx.file(line_range.end()) - cx.file(line_range.start());
        let payload_octets: usize = units.iter().map(|u| u.octets).sum();
        PayloadLine {
            written_units: units.iter().map(|u| u.text.len()).collect(),
            cut: (0, 0),
            added: (0, 0),
            whole: false,
            units,
            range,
            has_separator: payload.is_some(),
            fixed: written.saturating_sub(payload_octets),
            written,
            start: line_range.start(),
            conc: line.tag().is_some_and(|t| t.text() == "CONC"),
        }
    }

    fn changed(&self) -> bool {
        self.whole || self.cut != (0, 0) || self.added != (0, 0)
    }

    /// How many of the units as written are still there.
    fn kept(&self) -> usize {
        self.written_units.len() - self.cut.0 - self.cut.1
    }

    /// The edits that make the line's payload its units: the changed start and end, or the whole payload.
    fn edits(&self, cx: &Cx) -> Option<Vec<OctetEdit>> {
        let text = |units: &[Unit]| -> String { units.iter().map(|u| u.text.as_str()).collect() };
        if self.whole {
            let all = text(&self.units);
            let (at, old, new) = changed_part(cx.text(self.range), &all);
            let start = self.range.start() + TextSize::of(&cx.text(self.range)[..at]);
            return Some(vec![
                cx.replace(TextRange::at(start, TextSize::of(old)), new)?
            ]);
        }
        let size =
            |lens: &[usize]| TextSize::from(u32::try_from(lens.iter().sum::<usize>()).unwrap_or(0));
        let w = &self.written_units;
        let n = self.units.len();
        let head = TextRange::at(self.range.start(), size(&w[..self.cut.0]));
        let tail = TextRange::new(
            self.range.end() - size(&w[w.len() - self.cut.1..]),
            self.range.end(),
        );
        let mut edits = Vec::new();
        if self.cut.0 + self.added.0 > 0 {
            edits.push(cx.replace(head, &text(&self.units[..self.added.0]))?);
        }
        if self.cut.1 + self.added.1 > 0 {
            edits.push(cx.replace(tail, &text(&self.units[n - self.added.1..]))?);
        }
        Some(edits)
    }

    /// Whether the repair may move this line's units: text, `@@` and whole escapes only (no bare `@`, which
    /// may pair with another across the split, no raw octets, no pointer).
    fn movable(&self) -> bool {
        self.has_separator
            && (self.units.iter()).all(|u| {
                matches!(
                    u.kind,
                    UnitKind::Text | UnitKind::EscapedAt | UnitKind::Escape
                )
            })
    }

    /// Whether the line, holding units of `octets` octets, stays within the limit (or no longer than it was).
    fn fits(&self, octets: usize, limit: usize) -> bool {
        self.fixed + octets <= limit.max(self.written)
    }
}

/// `conc-at-whitespace` (safe): each flagged split of the run is moved to the nearest allowed place (towards
/// the line before on a tie) that keeps both lines non-empty and within the line limit; a split with no such
/// place is left as it is, and the repair is offered when at least one moves.
pub(super) fn conc_splits(cx: &Cx, d: &Diagnostic) -> Made {
    if cx.parse.dialect().is_gedcom7() {
        return None;
    }
    let first = Line::cast(cx.node_at(d.range.start(), SyntaxKind::Line)?)?;
    let structure = Structure::cast(first.node().parent()?)?;
    let last = d.last_start().max(d.range.start());
    // The run's lines and the line before them: a split moves between two neighbouring lines only, so the
    // structure's other lines stay as they are (and are not read: a note of 4 000 runs read all its 8 000
    // lines for each, #12).
    let line_nodes = |from: Option<SyntaxNode>, next: fn(&SyntaxNode) -> Option<SyntaxNode>| {
        std::iter::successors(from, next).filter_map(Line::cast)
    };
    let before = line_nodes(first.node().prev_sibling(), SyntaxNode::prev_sibling)
        .next()
        .or_else(|| structure.line())?;
    let run = line_nodes(Some(first.node().clone()), SyntaxNode::next_sibling)
        .take_while(|l| l.text_range().start() <= last);
    let mut lines: Vec<PayloadLine> = std::iter::once(before)
        .chain(run)
        .map(|l| PayloadLine::of(cx, &l))
        .collect();
    let limit = line_octet_limit(cx.parse.encoding());
    let mut moved = 0;
    for i in 1..lines.len() {
        let start = lines[i].start;
        if lines[i].conc && start >= first.text_range().start() && start <= last {
            moved += usize::from(move_split(&mut lines, i, limit));
        }
    }
    if moved == 0 {
        return None;
    }
    let mut edits = Vec::new();
    for line in lines.iter().filter(|l| l.changed()) {
        edits.extend(line.edits(cx)?);
    }
    let splits = if moved == 1 {
        "the `CONC` split".to_string()
    } else {
        format!("the {}", plural(moved, "`CONC` split"))
    };
    let off = match d.code {
        "conc-after-diacritic" => "the diacritic and its letter",
        _ => "the whitespace",
    };
    let message = format!("move {splits} off {off} (the text stays the same)");
    Some((message, edits))
}

/// The part of `old` that differs from `new`: where it starts in `old`, it, and what replaces it (the two
/// without their common start and end, cut at character boundaries).
fn changed_part<'a, 'b>(old: &'a str, new: &'b str) -> (usize, &'a str, &'b str) {
    let prefix: usize = (old.chars().zip(new.chars()))
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    let (old_rest, new_rest) = (&old[prefix..], &new[prefix..]);
    let suffix: usize = (old_rest.chars().rev().zip(new_rest.chars().rev()))
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    let old_part = &old_rest[..old_rest.len() - suffix];
    let new_part = &new_rest[..new_rest.len() - suffix];
    (prefix, old_part, new_part)
}

/// Moves the split between `lines[i - 1]` and `lines[i]` to the nearest allowed place; whether it moved.
fn move_split(lines: &mut [PayloadLine], i: usize, limit: usize) -> bool {
    let (before, rest) = lines.split_at_mut(i);
    let (Some(a), Some(b)) = (before.last_mut(), rest.first_mut()) else {
        return false;
    };
    if !a.movable() || !b.movable() {
        return false;
    }
    let k = a.units.len();
    let mut joined = std::mem::take(&mut a.units);
    joined.append(&mut std::mem::take(&mut b.units));
    // Octets before each unit, so that each candidate costs the same whatever the lines' length.
    let mut before_unit = Vec::with_capacity(joined.len() + 1);
    let mut sum = 0;
    before_unit.push(0);
    for u in &joined {
        sum += u.octets;
        before_unit.push(sum);
    }
    let n = joined.len();
    let fits = |j: usize| a.fits(before_unit[j], limit) && b.fits(sum - before_unit[j], limit);
    let mut chosen = None;
    if !split_allowed(&joined, k) {
        for distance in 1..n {
            let left = k.checked_sub(distance).filter(|&j| j >= 1);
            let right = Some(k + distance).filter(|&j| j < n);
            if left.is_none() && right.is_none() {
                break;
            }
            chosen = [left, right]
                .into_iter()
                .flatten()
                .find(|&j| split_allowed(&joined, j) && fits(j));
            if chosen.is_some() {
                break;
            }
        }
    }
    let j = chosen.unwrap_or(k);
    b.units = joined.split_off(j);
    a.units = joined;
    if j < k {
        // Units from the end of `a` (as written, unless they are what an earlier split put at its start).
        let m = k - j;
        if m <= a.kept() && a.added.1 == 0 {
            a.cut.1 += m;
        } else {
            a.whole = true;
        }
        b.added.0 += m;
    } else if j > k {
        // Units from the start of `b`, which no split has changed yet.
        let m = j - k;
        a.added.1 += m;
        b.cut.0 += m;
    }
    chosen.is_some()
}

#[cfg(test)]
mod tests {
    use crate::repair::repairs;

    /// The output of the repair of the one `conc-at-whitespace` diagnostic of `input`, if it has a repair.
    fn repaired(input: &[u8]) -> Option<Vec<u8>> {
        let parse = gedgraft_syntax::parse(input);
        let d: Vec<_> = (parse.diagnostics().iter())
            .filter(|d| d.code == "conc-at-whitespace")
            .collect();
        assert_eq!(d.len(), 1, "{:?}", parse.diagnostics());
        let r = repairs(&parse, &d).pop()??;
        Some(crate::apply_repairs(input, &[&r]).bytes)
    }

    #[test]
    fn r_serialising_structs_10_the_split_moves_to_the_nearest_place_between_two_characters() {
        assert_eq!(
            repaired(b"0 HEAD\n1 NOTE abc def \n2 CONC ghi\n0 TRLR\n").as_deref(),
            Some(&b"0 HEAD\n1 NOTE abc def g\n2 CONC hi\n0 TRLR\n"[..])
        );
        assert_eq!(
            repaired(b"0 HEAD\n1 NOTE abc de\n2 CONC  fgh\n0 TRLR\n").as_deref(),
            Some(&b"0 HEAD\n1 NOTE abc d\n2 CONC e fgh\n0 TRLR\n"[..])
        );
    }

    #[test]
    fn r_serialising_structs_14_never_inside_an_escape_or_at_at() {
        // Next to the space: after `@@`, after the escape; so the split goes after `a`.
        assert_eq!(
            repaired(b"0 HEAD\n1 NOTE a@@ \n2 CONC @#DJULIAN@ 1540\n0 TRLR\n").as_deref(),
            Some(&b"0 HEAD\n1 NOTE a\n2 CONC @@ @#DJULIAN@ 1540\n0 TRLR\n"[..])
        );
    }

    /// R-ANSEL-01 (`ansel-to-unicode.md`: a diacritic precedes its letter), R-ENCODINGS-09: a line that ends
    /// with an ANSEL diacritic before a `CONC` line is flagged (`conc-after-diacritic`, one warning for
    /// neighbouring splits), and the repair moves each split before the diacritic (or after the letter, when
    /// the line would be left empty), the joined text, and so the lowering, the same. Not in UTF-8, where a
    /// combining mark follows its letter.
    #[test]
    fn r_ansel_01_a_split_between_a_diacritic_and_its_letter_is_flagged_and_moved() {
        let flagged = |input: &[u8]| {
            let parse = gedgraft_syntax::parse(input);
            (parse.diagnostics().iter())
                .filter(|d| d.code == "conc-after-diacritic")
                .map(|d| (d.location.line, d.count))
                .collect::<Vec<_>>()
        };
        let input =
            b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE Jos\xE2\n1 CONC e Ren\xE2\n1 CONC e\n0 TRLR\n";
        assert_eq!(flagged(input), [(4, 2)]);
        let parse = gedgraft_syntax::parse(input);
        let d: Vec<_> = (parse.diagnostics().iter())
            .filter(|d| d.code == "conc-after-diacritic")
            .collect();
        let r = repairs(&parse, &d).pop().flatten().expect("a repair");
        assert!(
            r.message.contains("off the diacritic and its letter"),
            "{}",
            r.message
        );
        let out = crate::apply_repairs(input, &[&r]).bytes;
        assert_eq!(
            out,
            b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE Jos\n1 CONC \xE2e Ren\n1 CONC \xE2e\n0 TRLR\n"
        );
        assert!(flagged(&out).is_empty());
        let lowered = |bytes: &[u8]| {
            let parse = gedgraft_syntax::parse(bytes);
            gedgraft_model::lower(&parse, &gedgraft_model::LowerOptions::default()).dataset
        };
        let (before, after) = (lowered(input), lowered(&out));
        assert!(gedgraft_model::compare(&before, &after).is_empty());
        let text =
            |d: &gedgraft_model::Dataset| format!("{:?}", d.records().next().map(|r| r.payload()));
        assert!(
            text(&after).contains(r"Jose\u{301} Rene\u{301}"),
            "{}",
            text(&after)
        );
        // A `CONC` line that starts with no letter for it (a space, an `@`, nothing): the diacritic marks no
        // letter either way, and moving the split would leave it before a space (found by a helper).
        for next in [&b"  e"[..], b"@@e", b""] {
            let input = [
                &b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE Jos\xE2\n1 CONC "[..],
                next,
                b"\n0 TRLR\n",
            ]
            .concat();
            assert!(
                flagged(&input).is_empty(),
                "{}",
                String::from_utf8_lossy(next)
            );
        }
        // A diacritic that ends a `CONT` line, or a line with no `CONC` after it, is not this warning.
        assert!(
            flagged(b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE Jos\xE2\n1 CONT e\n0 TRLR\n").is_empty()
        );
        // UTF-8: the combining mark follows its letter, and the split after it is where it belongs.
        assert!(flagged(
            "0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE Jose\u{301}\n1 CONC x\n0 TRLR\n".as_bytes()
        )
        .is_empty());
    }

    #[test]
    fn the_changed_part_is_cut_at_characters() {
        use super::changed_part;
        assert_eq!(changed_part("abc def", "abXc def"), (2, "", "X"));
        assert_eq!(changed_part("é x", "è x"), (0, "é", "è"));
        assert_eq!(changed_part("ab", "ab"), (2, "", ""));
    }

    /// R-SERIALISING-STRUCTS-10: runs of flagged splits apart in one note (not neighbours: three diagnostics),
    /// each repaired on its own lines and the line before them, the first run's line before being the note's
    /// first line; applied together they give every split moved. (#12: each run reads only its lines; a note
    /// of 4 000 runs read all its lines for each and took 16 s.)
    #[test]
    fn r_serialising_structs_10_runs_apart_are_each_repaired_on_their_own_lines() {
        let input = b"0 HEAD\n1 NOTE abc \n2 CONC def\n2 CONT ghi\n2 CONC jk \n2 CONC lmn\n2 CONT o\n2 CONC pq \n2 CONC rs\n0 TRLR\n";
        let parse = gedgraft_syntax::parse(input);
        let d: Vec<_> = (parse.diagnostics().iter())
            .filter(|d| d.code == "conc-at-whitespace")
            .collect();
        assert_eq!(d.len(), 3, "{:?}", parse.diagnostics());
        let found: Vec<_> = repairs(&parse, &d).into_iter().flatten().collect();
        assert_eq!(found.len(), 3);
        let out = crate::apply_repairs(input, &found.iter().collect::<Vec<_>>());
        assert_eq!(
            String::from_utf8(out.bytes).unwrap(),
            "0 HEAD\n1 NOTE abc d\n2 CONC ef\n2 CONT ghi\n2 CONC jk l\n2 CONC mn\n2 CONT o\n2 CONC pq r\n2 CONC s\n0 TRLR\n"
        );
    }

    #[test]
    fn r_line_strings_05_no_place_no_repair() {
        // `1 NOTE a␠ ⏎ 2 CONC b`: the only other split is next to the space too.
        assert_eq!(repaired(b"0 HEAD\n1 NOTE a \n2 CONC b\n0 TRLR\n"), None);
        // A bare `@` may pair with another across the split: not moved.
        assert_eq!(repaired(b"0 HEAD\n1 NOTE a@b \n2 CONC cd\n0 TRLR\n"), None);
    }
}
