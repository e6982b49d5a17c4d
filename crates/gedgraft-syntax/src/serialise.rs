//! The serialisation rules of payload text, shared by the editor (`gedgraft-edit`, new and re-wrapped lines)
//! and the dataset writer (`gedgraft-model`'s `write`): how logical text becomes *units* (escaped `@`, Unicode
//! escapes for characters the encoding cannot write, ANSEL order), how units are laid out on `CONT`/`CONC`
//! lines within a line limit, and the dialect's escaping rule. Pure functions of text, encoding and dialect:
//! nothing here knows a tree or a dataset.
//!
//! # Payloads
//!
//! A value is logical text. Each `@` becomes `@@` (§ Encoding `@`s, R-UNICODE-ESCAPE-07); each line break
//! (`CR LF`, `LF` or `CR`) starts a `CONT` line (R-SERIALISING-STRUCTS-06); a character the file's encoding cannot
//! write becomes a Unicode escape `@#U…@` with upper-case hex (R-UNICODE-ESCAPE-05, -03), after trying its
//! canonical decomposition (so `é` is written `E2 65` in ANSEL). A character with its combining marks is one
//! *unit*, as are `@@` and each escape; private-use characters in the raw range U+10FF00–U+10FFFF are always
//! escaped, since writing them would produce octets that read back as raw octets. In ANSEL the text is put in
//! ANSEL order (diacritics before their letter) as the tree keeps it.
//!
//! GEDCOM 7 doubles only the *leading* `@` of a line string (production `lineStr`) and has no `CONC`
//! ([`payload_units`], [`line_limit`]).
//!
//! # Line length (R-SERIALISING-STRUCTS-08, -15)
//!
//! A line is at most `limit` octets *including its level, cross-reference identifier, tag, separators,
//! indentation and line break*, counted in the file's encoding: the 2019 octet rule, which the project follows
//! (R-SERIALISING-STRUCTS-15). Splits go between two units neither of which touches whitespace at the split
//! (R-SERIALISING-STRUCTS-10, -11, R-LINE-CONT-04), so never inside `@@`, an escape or a multi-octet character
//! (R-SERIALISING-STRUCTS-14), and never leave an empty payload before a `CONC` (R-SERIALISING-STRUCTS-09).
//! Lines are filled greedily; when no allowed split fits, the line runs long up to the first allowed split (the
//! limit is only a SHOULD). In ANSEL a diacritic and the letter after it are one unit for splitting: ANSEL
//! writes the mark first, and no split follows it.

use crate::lexer::lex_payload_text;
use crate::{Dialect, SyntaxKind};
use compact_str::CompactString;
use gedgraft_encoding::{ansel, raw, Encoding};
use std::collections::VecDeque;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// What kind of token a unit becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    /// Literal text (one cluster).
    Text,
    /// `@@`: part of a `TEXT` token in the tree, a unit of its own so that nothing splits it.
    EscapedAt,
    /// An escape `@#X…@` (a Unicode escape for a character the encoding cannot write).
    Escape,
    /// A bare `@` (GEDCOM 7 writes `@` inside a line string as it is): part of a `TEXT` token in the tree, a
    /// unit of its own so that nothing splits or escapes it as text.
    AtSign,
    /// Raw octets (re-wrapped lines only).
    Raw,
}

impl UnitKind {
    /// The unit a piece of a `TEXT` token ([`text_pieces`](crate::internal::text_pieces)) is when it is an at
    /// sign: `@@` or a bare `@`; `None` for a run of text.
    pub fn of_at_sign(piece: &str) -> Option<UnitKind> {
        match piece {
            "@@" => Some(UnitKind::EscapedAt),
            "@" => Some(UnitKind::AtSign),
            _ => None,
        }
    }

    /// The kind of the token the unit is (part of) in the tree.
    pub fn syntax_kind(self) -> SyntaxKind {
        match self {
            UnitKind::Text | UnitKind::AtSign | UnitKind::EscapedAt => SyntaxKind::Text,
            UnitKind::Escape => SyntaxKind::Escape,
            UnitKind::Raw => SyntaxKind::Raw,
        }
    }
}

/// An indivisible piece of a payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// What the unit is.
    pub kind: UnitKind,
    /// The tree text (escapes written out, ANSEL order in ANSEL files); a character's text is kept inline,
    /// without an allocation.
    pub text: CompactString,
    /// Its length in octets in the file's encoding.
    pub octets: usize,
    /// No split may follow this unit: in ANSEL it ends with a combining diacritic, which ANSEL writes *before*
    /// the letter it marks, so the unit after it holds that letter (see [`glues_to_next`]).
    pub glued: bool,
}

impl Unit {
    /// A unit of `kind` with `text`, its length and glue ([`glues_to_next`]) in `encoding`.
    pub fn new(kind: UnitKind, text: impl Into<CompactString>, encoding: Encoding) -> Unit {
        let text = text.into();
        Unit {
            kind,
            octets: octets(&text, encoding),
            glued: glues_to_next(&text, encoding),
            text,
        }
    }
}

/// Whether a unit of tree text `text` in `encoding` must stay on the line of the unit after it: in ANSEL, a
/// combining diacritic (decoded, or a raw `F8`) comes before its base letter, so a `CONC` split after it would
/// end a line with the mark and start the next with its letter; the 2019 lowering joins them again, but other
/// readers see a mark with no letter (R-SERIALISING-STRUCTS-14: never split inside a character).
pub fn glues_to_next(text: &str, encoding: Encoding) -> bool {
    encoding == Encoding::Ansel
        && text.chars().next_back().is_some_and(|c| {
            ansel::stacking(c).is_some() || raw::to_octet(c).is_some_and(ansel::is_diacritic_octet)
        })
}

/// Whitespace for the splitting rules: space and tab (ELF's `S`), and any other Unicode white space.
pub fn is_space(c: char) -> bool {
    c == ' ' || c == '\t' || c.is_whitespace()
}

/// The octets of `text` in `encoding` (raw characters count one octet each).
pub fn octets(text: &str, encoding: Encoding) -> usize {
    // ASCII (but NUL) is one octet per character in every encoding but UTF-16.
    if encoding.is_ascii_compatible() && text.bytes().all(|b| b != 0 && b < 0x80) {
        return text.len();
    }
    if encoding == Encoding::Utf8 {
        // As it is, but a raw character (four octets of UTF-8 here) is its one octet.
        return text.len() - 3 * text.chars().filter(|&c| raw::is_raw(c)).count();
    }
    let mut out = Vec::new();
    match encoding.encode(text, &mut out) {
        Ok(()) => out.len(),
        // Only for text that holds unencodable characters, which callers escape first.
        Err(_) => text.chars().map(char::len_utf8).sum(),
    }
}

/// Whether a character cannot be written at all: U+0000, U+FFFE and U+FFFF are not characters, neither as
/// themselves (R-LINES-01) nor as a Unicode escape (R-UNICODE-ESCAPE-02).
pub fn is_unwritable(c: char) -> bool {
    matches!(c, '\0' | '\u{fffe}' | '\u{ffff}')
}

/// Whether `c` can be written as itself in `encoding` (raw-range characters never can: they would read back
/// as raw octets).
pub fn writable(c: char, encoding: Encoding) -> bool {
    !raw::is_raw(c) && encoding.can_encode(c)
}

/// The Unicode escape for `chars`: `@#U` + upper-case hex code points separated by spaces + `@`.
pub fn unicode_escape(chars: impl IntoIterator<Item = char>) -> String {
    let hex: Vec<String> = chars
        .into_iter()
        .map(|c| format!("{:X}", u32::from(c)))
        .collect();
    format!("@#U{}@", hex.join(" "))
}

/// Splits `text` into clusters: a character with the combining marks that follow it.
pub fn clusters(text: &str) -> Clusters<'_> {
    Clusters {
        rest: text,
        ansel: false,
    }
}

/// Splits tree text of an ANSEL file into clusters in ANSEL order: the combining diacritics *before* a
/// character, with it (`E2 65` is one cluster, `é`). Diacritics at the end, with no character after them, are
/// a cluster of their own.
pub fn ansel_clusters(text: &str) -> Clusters<'_> {
    Clusters {
        rest: text,
        ansel: true,
    }
}

/// The clusters of a text, one at a time ([`clusters`], [`ansel_clusters`]).
#[derive(Debug, Clone)]
pub struct Clusters<'a> {
    rest: &'a str,
    ansel: bool,
}

impl<'a> Iterator for Clusters<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        // An ASCII character before ASCII (or the end) is a cluster of its own in both orders.
        let bytes = self.rest.as_bytes();
        if bytes.first().is_some_and(u8::is_ascii) && bytes.get(1).is_none_or(u8::is_ascii) {
            let (cluster, rest) = self.rest.split_at(1);
            self.rest = rest;
            return Some(cluster);
        }
        let mut chars = self.rest.char_indices();
        let (_, first) = chars.next()?;
        let end = if self.ansel {
            // Marks up to and with the first character that is not one.
            match is_combining_mark(first) {
                false => first.len_utf8(),
                true => chars
                    .find(|&(_, c)| !is_combining_mark(c))
                    .map_or(self.rest.len(), |(i, c)| i + c.len_utf8()),
            }
        } else {
            // The first character and the marks after it.
            chars
                .find(|&(_, c)| !is_combining_mark(c))
                .map_or(self.rest.len(), |(i, _)| i)
        };
        let (cluster, rest) = self.rest.split_at(end);
        self.rest = rest;
        Some(cluster)
    }
}

/// How a cluster of logical text is written in `encoding`: as text (as it is, else composed, else decomposed;
/// in ANSEL order for ANSEL), or as one Unicode escape.
pub fn write_cluster(cluster: &str, encoding: Encoding) -> (UnitKind, CompactString) {
    let order = |s: &str| match encoding {
        Encoding::Ansel => CompactString::from(ansel::to_ansel_order(s)),
        _ => CompactString::from(s),
    };
    // ANSEL writes a diacritic before its letter: marks with no letter of their own (at the start of a line, or
    // after an `@@` or an escape) would be read as marks of the character written after them, which would change
    // the text. They are written as an escape, as a character the encoding lacks is.
    if encoding == Encoding::Ansel && cluster.chars().next().is_some_and(is_combining_mark) {
        return (UnitKind::Escape, unicode_escape(cluster.chars()).into());
    }
    if cluster.chars().all(|c| writable(c, encoding)) {
        return (UnitKind::Text, order(cluster));
    }
    // A letter with a combining mark (as ANSEL writes it) may have a precomposed form the target has
    // (`e` + U+0301 is `é` in windows-1252), and a precomposed one a decomposed form (for ANSEL).
    let composed: String = cluster.nfc().collect();
    if composed.chars().all(|c| writable(c, encoding)) {
        return (UnitKind::Text, order(&composed));
    }
    let decomposed: String = cluster.nfd().collect();
    if decomposed.chars().all(|c| writable(c, encoding)) {
        return (UnitKind::Text, order(&decomposed));
    }
    (UnitKind::Escape, unicode_escape(cluster.chars()).into())
}

/// The units of one line's worth of logical text (no line breaks in it). An `@` is written `@@`, and marks on
/// it after that, as marks with no letter of their own ([`write_cluster`]: in ANSEL, an escape).
pub fn value_units(segment: &str, encoding: Encoding) -> Vec<Unit> {
    let mut units = Vec::new();
    for cluster in clusters(segment) {
        let mut rest = cluster;
        if let Some(marks) = cluster.strip_prefix('@') {
            units.push(Unit::new(UnitKind::EscapedAt, "@@", encoding));
            rest = marks;
        }
        if !rest.is_empty() {
            let (kind, text) = write_cluster(rest, encoding);
            units.push(Unit::new(kind, text, encoding));
        }
    }
    units
}

/// Splits logical text at its line breaks: a line feed, the one form of break a `CONT` reads back as
/// (R-MERGE-CONTS-10). A carriage return is a character of the value, not a break: written as a break it would
/// read back as a LF and change the text ([`escaped_units`] escapes it; GEDCOM 7, with no escape, refuses it).
pub fn split_lines(value: &str) -> Vec<&str> {
    value.split('\n').collect()
}

/// What the layout needs of a piece of a payload: its octets, its text (for whitespace at its ends) and
/// whether no split may follow it.
pub trait Piece {
    /// Its length in octets in the file's encoding.
    fn octets(&self) -> usize;
    /// Its text as written.
    fn text(&self) -> &str;
    /// No split may follow it (an ANSEL diacritic, [`glues_to_next`]).
    fn glued(&self) -> bool;
}

/// A line being laid out, to which pieces are added in order.
pub trait LaidLine<P>: Default {
    /// Adds `piece` at the end of the line.
    fn push_piece(&mut self, piece: P);
}

impl Piece for Unit {
    fn octets(&self) -> usize {
        self.octets
    }
    fn text(&self) -> &str {
        &self.text
    }
    fn glued(&self) -> bool {
        self.glued
    }
}

/// A line of units: a unit is merged into the unit before it when both are text (or both raw), so a laid
/// line holds few units however long it is; the units' text is written as it is either way.
impl LaidLine<Unit> for Vec<Unit> {
    fn push_piece(&mut self, unit: Unit) {
        match self.last_mut() {
            Some(last)
                if last.kind == unit.kind
                    && matches!(unit.kind, UnitKind::Text | UnitKind::Raw) =>
            {
                last.text.push_str(&unit.text);
                last.octets += unit.octets;
                last.glued = unit.glued;
            }
            _ => self.push(unit),
        }
    }
}

/// A cluster of text that is written as it is: no `@`, no character the encoding cannot write, no
/// restricted character (see [`plain_pieces`]). Laid out into `String` lines, with no unit made.
#[derive(Debug, Clone, Copy)]
pub struct Plain<'a> {
    text: &'a str,
    octets: usize,
    glued: bool,
}

impl Piece for Plain<'_> {
    fn octets(&self) -> usize {
        self.octets
    }
    fn text(&self) -> &str {
        self.text
    }
    fn glued(&self) -> bool {
        self.glued
    }
}

impl<'a> LaidLine<Plain<'a>> for String {
    fn push_piece(&mut self, piece: Plain<'a>) {
        self.push_str(piece.text);
    }
}

/// The clusters of one line string as pieces written as they are: for text the caller knows needs no
/// escape and no reordering (every character writable in `encoding` and not restricted, no `@`, and in ANSEL
/// no combining mark). Laid out, they give what [`value_units`] would give such text.
pub fn plain_pieces(segment: &str, encoding: Encoding) -> impl Iterator<Item = Plain<'_>> {
    clusters(segment).map(move |c| Plain {
        text: c,
        octets: octets(c, encoding),
        glued: glues_to_next(c, encoding),
    })
}

/// Whether a split before unit `at` is allowed: not next to whitespace, not after an ANSEL diacritic.
pub fn split_allowed(units: &[Unit], at: usize) -> bool {
    at > 0 && at < units.len() && split_between(&units[at - 1], &units[at])
}

/// Whether a line may end after `before` and the next begin with `after`.
fn split_between<P: Piece>(before: &P, after: &P) -> bool {
    let (a, b) = (before.text(), after.text());
    !a.chars().next_back().is_some_and(is_space)
        && !b.chars().next().is_some_and(is_space)
        && !before.glued()
}

/// Lays `pieces` out on lines: the first line may hold `first` octets of payload, the others `rest`. Returns
/// each line (at least one line, possibly empty): `Vec<Unit>` for [`Unit`]s (neighbouring text merged),
/// `String` for [`Plain`] text.
///
/// Greedy: a line takes pieces while they fit, then ends at the last allowed split in it (not next to
/// whitespace, not after an ANSEL diacritic: [`split_allowed`]); with none, it runs on to the first allowed
/// split after it. The pieces are taken from the iterator as the lines need them, so a payload of any length
/// costs its lines, not a unit per character.
pub fn layout<P: Piece, L: LaidLine<P>>(
    pieces: impl IntoIterator<Item = P>,
    first: usize,
    rest: usize,
) -> Vec<L> {
    let mut pieces = pieces.into_iter();
    let mut pending: VecDeque<P> = VecDeque::new();
    let mut lines = Vec::new();
    loop {
        let budget = if lines.is_empty() { first } else { rest };
        // `fit`: how many pending pieces fit the budget; the piece after them (if any) does not.
        let (mut used, mut fit) = (0, 0);
        loop {
            if fit == pending.len() {
                match pieces.next() {
                    Some(p) => pending.push_back(p),
                    None => break,
                }
            }
            if used + pending[fit].octets() > budget {
                break;
            }
            used += pending[fit].octets();
            fit += 1;
        }
        let mut line = L::default();
        if fit == pending.len() {
            pending.drain(..).for_each(|p| line.push_piece(p));
            lines.push(line);
            return lines;
        }
        if let Some(b) = (1..=fit)
            .rev()
            .find(|&b| split_between(&pending[b - 1], &pending[b]))
        {
            pending.drain(..b).for_each(|p| line.push_piece(p));
            lines.push(line);
            continue;
        }
        // No allowed split fits: the line runs on to the first one after it (at least one piece).
        pending.drain(..fit).for_each(|p| line.push_piece(p));
        loop {
            if pending.len() < 2 {
                match pieces.next() {
                    Some(p) => pending.push_back(p),
                    None => {
                        pending.drain(..).for_each(|p| line.push_piece(p));
                        lines.push(line);
                        return lines;
                    }
                }
                continue;
            }
            let allowed = split_between(&pending[0], &pending[1]);
            if let Some(p) = pending.pop_front() {
                line.push_piece(p);
            }
            if allowed {
                break;
            }
        }
        lines.push(line);
    }
}

/// A payload laid out on lines: the first line's payload, then `(is_cont, payload)` for each continuation
/// line; a line's payload is its units (`Vec<Unit>`) or, for [`Plain`] text, its text (`String`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Laid<L = Vec<Unit>> {
    /// The first line's payload.
    pub first: L,
    /// Each continuation line: whether it is a `CONT` (else `CONC`), and its payload.
    pub more: Vec<(bool, L)>,
}

/// What the layout needs to know about the lines' fixed parts, in octets.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// The line limit.
    pub limit: usize,
    /// The first line's head (indentation to tag) plus separator plus line break.
    pub first_fixed: usize,
    /// A `CONT`/`CONC` line's head plus separator plus line break (both tags have four letters).
    pub more_fixed: usize,
}

/// Lays out segments of units (one per `CONT` line, the first on the first line) within `budget`.
pub fn lay_out_segments<S>(segments: impl IntoIterator<Item = S>, budget: Budget) -> Laid
where
    S: IntoIterator<Item = Unit>,
{
    lay_out(segments, budget)
}

/// [`lay_out_segments`] for any kind of piece: [`Plain`] text lays out into `String` lines.
pub fn lay_out<P, L, S>(segments: impl IntoIterator<Item = S>, budget: Budget) -> Laid<L>
where
    P: Piece,
    L: LaidLine<P>,
    S: IntoIterator<Item = P>,
{
    let first_room = budget.limit.saturating_sub(budget.first_fixed);
    let more_room = budget.limit.saturating_sub(budget.more_fixed);
    let mut first = L::default();
    let mut more = Vec::new();
    for (i, pieces) in segments.into_iter().enumerate() {
        let room = if i == 0 { first_room } else { more_room };
        for (j, part) in layout(pieces, room, more_room).into_iter().enumerate() {
            if i == 0 && j == 0 {
                first = part;
            } else {
                more.push((j == 0, part));
            }
        }
    }
    Laid { first, more }
}

/// The units of one line string of a new payload (`segment`: logical text without line breaks), escaped as the
/// dialect says.
pub fn payload_units(dialect: Dialect, segment: &str, encoding: Encoding) -> Vec<Unit> {
    if !dialect.doubles_only_leading_at() {
        return value_units(segment, encoding);
    }
    let text = if segment.starts_with('@') {
        format!("@{segment}")
    } else {
        segment.to_string()
    };
    // The tokens the lexer will make of the written line, so that the output parses back to the same tree.
    let mut units = Vec::new();
    let mut start = 0;
    for (kind, end) in lex_payload_text(&text) {
        let piece = text.get(start..end).unwrap_or("");
        start = end;
        if kind == SyntaxKind::Escape {
            units.push(Unit::new(UnitKind::Escape, piece, encoding));
            continue;
        }
        for piece in crate::lexer::text_pieces(piece) {
            if let Some(kind) = UnitKind::of_at_sign(piece) {
                units.push(Unit::new(kind, piece, encoding));
                continue;
            }
            for cluster in clusters(piece) {
                let (kind, text) = write_cluster(cluster, encoding);
                units.push(Unit::new(kind, text, encoding));
            }
        }
    }
    units
}

/// The line limit new payloads are laid out in: none in a dialect without `CONC`.
pub fn line_limit(dialect: Dialect, limit: usize) -> usize {
    if dialect.has_conc() {
        limit
    } else {
        usize::MAX
    }
}

/// Whether the escapes of type `D` in a payload of `tag` are written as they are: `DATE` is the only
/// escape-preserving tag, `D` its only type (the redux default schema, `ESC DATE D`; R-ESCAPE-PRES-02). Every
/// other escape-like text has its `@`s doubled (R-ESCAPE-PRES-03).
pub fn preserves_escapes(tag: &str) -> bool {
    tag == "DATE"
}

/// Whether `c` is written as a Unicode escape although the encoding could write it: C0 controls other than
/// tab, and DEL, are restricted characters (ELF Basic Concepts § 2.3; backspace is an error when read,
/// R-ENCODINGS-08).
pub fn is_restricted(c: char) -> bool {
    (c < ' ' && c != '\t') || c == '\u{7f}'
}

/// Where the escapes of type `D` (`@#DJULIAN@`) are that the lexer reads in a payload's text, in order: the
/// escapes a `DATE` keeps (R-ESCAPE-PRES-02), and its calendars.
pub fn d_escapes(text: &str) -> Vec<(usize, usize)> {
    if !text.contains("@#D") {
        return Vec::new();
    }
    let mut start = 0;
    lex_payload_text(text)
        .into_iter()
        .filter_map(|(kind, end)| {
            let span = (start, end);
            start = end;
            let piece = text.get(span.0..span.1)?;
            (kind == SyntaxKind::Escape && piece.starts_with("@#D")).then_some(span)
        })
        .collect()
}

/// One line string's units where escapes exist: kept `D` escapes, restricted characters escaped, and the rest
/// by the shared rules (every `@` doubled).
pub fn escaped_units(segment: &str, keep_d: bool, encoding: Encoding) -> Vec<Unit> {
    let mut units = Vec::new();
    let mut run = 0;
    let flush = |units: &mut Vec<Unit>, piece: &str| {
        if !piece.is_empty() {
            units.extend(value_units(piece, encoding));
        }
    };
    // The escapes the lexer would read in the text as it is: those of type `D` are kept in a DATE.
    let kept: Vec<(usize, usize)> = match keep_d {
        true => d_escapes(segment)
            .into_iter()
            .filter(|&(from, to)| {
                (segment.get(from..to).unwrap_or(""))
                    .chars()
                    .all(|c| writable(c, encoding) && !is_restricted(c))
            })
            .collect(),
        false => Vec::new(),
    };
    let mut kept = kept.into_iter().peekable();
    let mut chars = segment.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if let Some(&(from, to)) = kept.peek() {
            if i == from {
                flush(&mut units, segment.get(run..i).unwrap_or(""));
                let piece = segment.get(from..to).unwrap_or("");
                units.push(Unit::new(UnitKind::Escape, piece, encoding));
                kept.next();
                while chars.peek().is_some_and(|&(j, _)| j < to) {
                    chars.next();
                }
                run = to;
                continue;
            }
        }
        if is_restricted(c) || raw::is_raw(c) {
            flush(&mut units, segment.get(run..i).unwrap_or(""));
            units.push(Unit::new(UnitKind::Escape, unicode_escape([c]), encoding));
            run = i + c.len_utf8();
        }
    }
    flush(&mut units, segment.get(run..).unwrap_or(""));
    units
}

/// The units of each line string (the first line's, then one per `CONT` line) of a payload `value` of a
/// structure tagged `tag` in `dialect`: where escapes exist, `D` escapes kept in a `DATE` and restricted
/// characters escaped ([`escaped_units`]); in GEDCOM 7, by its rules ([`payload_units`]). The editor's new
/// payloads and the writer's alike.
pub fn dialect_segments(
    dialect: Dialect,
    tag: &str,
    value: &str,
    encoding: Encoding,
) -> Vec<Vec<Unit>> {
    let keep_d = preserves_escapes(tag);
    split_lines(value)
        .into_iter()
        .map(|segment| match dialect.has_escapes() {
            true => escaped_units(segment, keep_d, encoding),
            false => payload_units(dialect, segment, encoding),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(s: &str) -> Vec<Unit> {
        value_units(s, Encoding::Utf8)
    }

    fn kinds(units: &[Unit]) -> Vec<(UnitKind, &str)> {
        units.iter().map(|u| (u.kind, u.text.as_str())).collect()
    }

    fn texts(lines: &[Vec<Unit>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.iter().map(|x| x.text.as_str()).collect())
            .collect()
    }

    #[test]
    fn r_serialising_structs_14_at_pairs_and_escapes_are_atomic() {
        let u = units("name@example.com");
        assert!(u.iter().any(|x| x.text == "@@"));
        for width in 1..12 {
            for line in texts(&layout::<_, Vec<Unit>>(u.clone(), width, width)) {
                assert_eq!(line.matches('@').count() % 2, 0, "{line}");
            }
        }
        let u = value_units("Jo\u{263A}o", Encoding::Ascii);
        assert_eq!(u[2].text, "@#U263A@");
        assert_eq!(u[2].kind, UnitKind::Escape);
    }

    #[test]
    fn r_serialising_structs_10_11_no_split_next_to_whitespace() {
        let value = "a ".repeat(300);
        let u = units(&value);
        let lines = texts(&layout::<_, Vec<Unit>>(u.clone(), 20, 20));
        // Only spaces separate the letters, so no split is allowed: one long line.
        assert_eq!(lines.len(), 1);
        let u = units("aaa bbb");
        let lines = texts(&layout::<_, Vec<Unit>>(u.clone(), 4, 4));
        for pair in lines.windows(2) {
            assert!(
                !pair[0].ends_with(' ') && !pair[1].starts_with(' '),
                "{lines:?}"
            );
        }
        assert_eq!(lines.concat(), "aaa bbb");
    }

    #[test]
    fn r_serialising_structs_09_no_empty_line_before_conc() {
        let u = units("abcdef");
        let lines = texts(&layout::<_, Vec<Unit>>(u.clone(), 0, 2));
        assert!(lines.iter().all(|l| !l.is_empty()), "{lines:?}");
        assert_eq!(lines.concat(), "abcdef");
    }

    #[test]
    fn a_laid_line_is_one_unit_of_text_however_long() {
        let u = units(&"ab".repeat(5_000));
        let lines: Vec<Vec<Unit>> = layout(u, 7, 10);
        assert_eq!(lines.len(), 1 + (10_000usize - 7).div_ceil(10));
        assert!(lines.iter().all(|l| l.len() == 1), "text units are merged");
        assert_eq!(lines[0][0].text, "abababa");
        assert_eq!(lines[1][0].octets, 10);
    }

    #[test]
    fn multi_octet_characters_are_not_split() {
        let u = units("é".repeat(10).as_str());
        assert!(u.iter().all(|x| x.octets == 2));
        let lines = texts(&layout::<_, Vec<Unit>>(u, 5, 5));
        assert_eq!(
            lines, ["éé"; 5],
            "two characters of two octets each per line of five"
        );
        let u = units("e\u{301}e\u{301}");
        assert_eq!(u.len(), 2, "a letter and its combining mark stay together");
    }

    #[test]
    fn ansel_decomposes_and_reorders() {
        let u = value_units("José", Encoding::Ansel);
        assert_eq!(u[3].text, "\u{301}e");
        assert_eq!(u[3].octets, 2);
        let u = value_units("\u{263A}", Encoding::Ansel);
        assert_eq!(u[0].text, "@#U263A@");
    }

    #[test]
    fn ansel_clusters_put_a_diacritic_with_the_letter_after_it() {
        assert_eq!(
            ansel_clusters("\u{301}a\u{301}\u{308}eb\u{301}").collect::<Vec<_>>(),
            ["\u{301}a", "\u{301}\u{308}e", "b", "\u{301}"]
        );
        // A mark with no letter after it on its line (before a CONC line) glues to whatever comes next, in ANSEL
        // only; so does a raw `F8` (kept raw, R-ANSEL-02).
        assert!(glues_to_next("a\u{301}", Encoding::Ansel));
        assert!(!glues_to_next("a\u{301}", Encoding::Utf8));
        assert!(glues_to_next(
            &raw::to_char(0xF8).to_string(),
            Encoding::Ansel
        ));
    }

    #[test]
    fn raw_range_characters_are_escaped() {
        let c = raw::to_char(0xE9);
        let u = value_units(&c.to_string(), Encoding::Utf8);
        assert_eq!(u[0].text, "@#U10FFE9@");
    }

    #[test]
    fn line_breaks_split_segments() {
        // Only a LF breaks the value: a CR is a character, escaped as `@#UD@`.
        assert_eq!(
            split_lines("a\r\nb\nc\rd\n\re"),
            ["a\r", "b", "c\rd", "\re"]
        );
        let written: String =
            dialect_segments(Dialect::Gedcom551, "NOTE", "c\rd\r\u{301}", Encoding::Utf8)
                .concat()
                .iter()
                .map(|u| u.text.as_str())
                .collect();
        assert_eq!(written, "c@#UD@d@#UD@\u{301}");
        assert_eq!(split_lines(""), [""]);
        assert_eq!(split_lines("a\n"), ["a", ""]);
    }

    #[test]
    fn gedcom7_doubles_only_a_leading_at() {
        assert_eq!(line_limit(Dialect::GEDCOM_7_0, 255), usize::MAX);
        assert_eq!(line_limit(Dialect::Gedcom555, 255), 255);
        let d = Dialect::GEDCOM_7_0;
        let u = payload_units(d, "@me and me@example.com", Encoding::Utf8);
        let written: String = u.iter().map(|u| u.text.as_str()).collect();
        assert_eq!(written, "@@me and me@example.com");
        assert_eq!(u[0].kind, UnitKind::EscapedAt);
        assert!(kinds(&u).contains(&(UnitKind::AtSign, "@")));
        // `a@@b` in GEDCOM 7 is literally `a@@b`: written as it is (the lexer's `@@` token, read literally).
        let u = payload_units(d, "a@@b", Encoding::Utf8);
        assert_eq!(
            kinds(&u),
            [
                (UnitKind::Text, "a"),
                (UnitKind::EscapedAt, "@@"),
                (UnitKind::Text, "b")
            ]
        );
        // Elsewhere every `@` is doubled.
        let u = payload_units(Dialect::Gedcom551, "me@x", Encoding::Utf8);
        assert_eq!(
            u.iter().map(|u| u.text.as_str()).collect::<String>(),
            "me@@x"
        );
    }
}
