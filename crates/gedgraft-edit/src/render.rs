//! Writing new lines the way the file writes its own: payload escaping, `CONT`/`CONC` splitting, indentation,
//! delimiters and line breaks.
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
//! # Line length (R-SERIALISING-STRUCTS-08, -15)
//!
//! A line is at most `limit` octets *including its level, cross-reference identifier, tag, separators,
//! indentation and line break*, counted in the file's encoding: the 2019 octet rule, which the project follows
//! (R-SERIALISING-STRUCTS-15). The default limit is 255 octets, 510 in UTF-16. Splits go between two units
//! neither of which touches whitespace at the split (R-SERIALISING-STRUCTS-10, -11, R-LINE-CONT-04), so never
//! inside `@@`, an escape or a multi-octet character (R-SERIALISING-STRUCTS-14), and never leave an empty
//! payload before a `CONC` (R-SERIALISING-STRUCTS-09). Lines are filled greedily; when no allowed split fits,
//! the line runs long up to the first allowed split (the limit is only a SHOULD). In ANSEL a diacritic and the
//! letter after it are one unit for splitting: ANSEL writes the mark first, and no split follows it.

use crate::splice::GreenElement;
use gedgraft_encoding::{ansel, raw, Encoding};
use gedgraft_syntax::ast::{AstToken, Level};
use gedgraft_syntax::{SyntaxKind, SyntaxNode, SyntaxToken};
use rowan::{GreenNode, GreenToken, NodeOrToken};
use std::ops::Range;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// What kind of token a unit becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnitKind {
    Text,
    EscapedAt,
    Escape,
    AtSign,
    Raw,
}

impl UnitKind {
    pub(crate) fn syntax_kind(self) -> SyntaxKind {
        match self {
            UnitKind::Text => SyntaxKind::Text,
            UnitKind::EscapedAt => SyntaxKind::EscapedAt,
            UnitKind::Escape => SyntaxKind::Escape,
            UnitKind::AtSign => SyntaxKind::AtSign,
            UnitKind::Raw => SyntaxKind::Raw,
        }
    }
}

/// An indivisible piece of a payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unit {
    pub kind: UnitKind,
    /// The tree text (escapes written out, ANSEL order in ANSEL files).
    pub text: String,
    /// Its length in octets in the file's encoding.
    pub octets: usize,
    /// No split may follow this unit: in ANSEL it ends with a combining diacritic, which ANSEL writes *before*
    /// the letter it marks, so the unit after it holds that letter (see [`glues_to_next`]).
    pub glued: bool,
}

impl Unit {
    fn starts_with_space(&self) -> bool {
        self.text.chars().next().is_some_and(is_space)
    }
    fn ends_with_space(&self) -> bool {
        self.text.chars().next_back().is_some_and(is_space)
    }
}

/// Whether a unit of tree text `text` in `encoding` must stay on the line of the unit after it: in ANSEL, a
/// combining diacritic (decoded, or a raw `F8`) comes before its base letter, so a `CONC` split after it would
/// end a line with the mark and start the next with its letter; the 2019 lowering joins them again, but other
/// readers see a mark with no letter (R-SERIALISING-STRUCTS-14: never split inside a character).
pub(crate) fn glues_to_next(text: &str, encoding: Encoding) -> bool {
    encoding == Encoding::Ansel
        && text.chars().next_back().is_some_and(|c| {
            ansel::stacking(c).is_some() || raw::to_octet(c).is_some_and(ansel::is_diacritic_octet)
        })
}

/// Whitespace for the splitting rules: space and tab (ELF's `S`), and any other Unicode white space.
fn is_space(c: char) -> bool {
    c == ' ' || c == '\t' || c.is_whitespace()
}

/// The octets of `text` in `encoding` (raw characters count one octet each).
pub(crate) fn octets(text: &str, encoding: Encoding) -> usize {
    let mut out = Vec::new();
    match encoding.encode(text, &mut out) {
        Ok(()) => out.len(),
        // Only for text that holds unencodable characters, which callers escape first.
        Err(_) => text.chars().map(char::len_utf8).sum(),
    }
}

/// Whether `c` can be written as itself in `encoding` (raw-range characters never can: they would read back
/// as raw octets).
pub(crate) fn writable(c: char, encoding: Encoding) -> bool {
    !raw::is_raw(c) && encoding.can_encode(c)
}

/// The Unicode escape for `chars`: `@#U` + upper-case hex code points separated by spaces + `@`.
pub(crate) fn unicode_escape(chars: impl IntoIterator<Item = char>) -> String {
    let hex: Vec<String> = chars
        .into_iter()
        .map(|c| format!("{:X}", u32::from(c)))
        .collect();
    format!("@#U{}@", hex.join(" "))
}

/// Splits `text` into clusters: a character with the combining marks that follow it.
pub(crate) fn clusters(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if i > start && !is_combining_mark(c) {
            out.push(&text[start..i]);
            start = i;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// Splits tree text of an ANSEL file into clusters in ANSEL order: the combining diacritics *before* a
/// character, with it (`E2 65` is one cluster, `é`). Diacritics at the end, with no character after them, are
/// a cluster of their own.
pub(crate) fn ansel_clusters(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if !is_combining_mark(c) {
            let end = i + c.len_utf8();
            out.push(&text[start..end]);
            start = end;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// How a cluster of logical text is written in `encoding`: as text (as it is, else composed, else decomposed;
/// in ANSEL order for ANSEL), or as one Unicode escape.
pub(crate) fn write_cluster(cluster: &str, encoding: Encoding) -> (UnitKind, String) {
    let order = |s: String| {
        if encoding == Encoding::Ansel {
            ansel::to_ansel_order(&s)
        } else {
            s
        }
    };
    if cluster.chars().all(|c| writable(c, encoding)) {
        return (UnitKind::Text, order(cluster.to_string()));
    }
    // A letter with a combining mark (as ANSEL writes it) may have a precomposed form the target has
    // (`e` + U+0301 is `é` in windows-1252), and a precomposed one a decomposed form (for ANSEL).
    let composed: String = cluster.nfc().collect();
    if composed.chars().all(|c| writable(c, encoding)) {
        return (UnitKind::Text, order(composed));
    }
    let decomposed: String = cluster.nfd().collect();
    if decomposed.chars().all(|c| writable(c, encoding)) {
        return (UnitKind::Text, order(decomposed));
    }
    (UnitKind::Escape, unicode_escape(cluster.chars()))
}

/// The units of one line's worth of logical text (no line breaks in it).
pub(crate) fn value_units(segment: &str, encoding: Encoding) -> Vec<Unit> {
    clusters(segment)
        .into_iter()
        .map(|cluster| {
            let (kind, text) = if cluster == "@" {
                (UnitKind::EscapedAt, "@@".to_string())
            } else {
                write_cluster(cluster, encoding)
            };
            let octets = octets(&text, encoding);
            let glued = glues_to_next(&text, encoding);
            Unit {
                kind,
                text,
                octets,
                glued,
            }
        })
        .collect()
}

/// Splits logical text at its line breaks (`CR LF`, `LF`, `CR`; LF CR is two breaks, as the 2019 draft reads it).
pub(crate) fn split_lines(value: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = value.as_bytes();
    let mut start = 0;
    loop {
        let end = gedgraft_syntax::line_cursor::line_end(bytes, start);
        out.push(value.get(start..end.content_end).unwrap_or(""));
        if end.form.is_none() {
            return out;
        }
        start = end.next_start;
    }
}

/// The units of the payload tokens of an existing line (for re-wrapping): text is cut into clusters, every other
/// token is one unit.
pub(crate) fn token_units(tokens: &[SyntaxToken], encoding: Encoding) -> Vec<Unit> {
    let mut out = Vec::new();
    for t in tokens {
        let kind = match t.kind() {
            SyntaxKind::Text => {
                let pieces = if encoding == Encoding::Ansel {
                    ansel_clusters(t.text())
                } else {
                    clusters(t.text())
                };
                for c in pieces {
                    out.push(Unit {
                        kind: UnitKind::Text,
                        text: c.to_string(),
                        octets: octets(c, encoding),
                        glued: glues_to_next(c, encoding),
                    });
                }
                continue;
            }
            SyntaxKind::EscapedAt => UnitKind::EscapedAt,
            SyntaxKind::Escape => UnitKind::Escape,
            SyntaxKind::AtSign => UnitKind::AtSign,
            _ => UnitKind::Raw,
        };
        out.push(Unit {
            kind,
            text: t.text().to_string(),
            octets: octets(t.text(), encoding),
            glued: glues_to_next(t.text(), encoding),
        });
    }
    out
}

/// Whether a split before unit `at` is allowed: not next to whitespace, not after an ANSEL diacritic.
fn split_allowed(units: &[Unit], at: usize) -> bool {
    at > 0
        && at < units.len()
        && !units[at - 1].ends_with_space()
        && !units[at].starts_with_space()
        && !units[at - 1].glued
}

/// Lays `units` out on lines: the first line may hold `first` octets of payload, the others `rest`. Returns the
/// unit range of each line (at least one line, possibly empty).
pub(crate) fn layout(units: &[Unit], first: usize, rest: usize) -> Vec<Range<usize>> {
    let mut lines = Vec::new();
    let mut start = 0;
    loop {
        let budget = if lines.is_empty() { first } else { rest };
        let mut used = 0;
        let mut end = start;
        while end < units.len() && used + units[end].octets <= budget {
            used += units[end].octets;
            end += 1;
        }
        if end == units.len() {
            lines.push(start..end);
            return lines;
        }
        let split = (start + 1..=end)
            .rev()
            .find(|&b| split_allowed(units, b))
            .or_else(|| (end + 1..units.len()).find(|&b| split_allowed(units, b)));
        match split {
            Some(b) => {
                lines.push(start..b);
                start = b;
            }
            None => {
                lines.push(start..units.len());
                return lines;
            }
        }
    }
}

/// Appends a first line's payload: the separator and the payload's tokens, unless the payload is empty.
pub(crate) fn push_first_payload(out: &mut Vec<GreenElement>, sep: &str, first: &[Unit]) {
    if !first.is_empty() {
        out.push(NodeOrToken::Token(token(SyntaxKind::PayloadSep, sep)));
        out.extend(payload_tokens(first).into_iter().map(NodeOrToken::Token));
    }
}

/// Green payload tokens for `units`, merging neighbouring text (and raw) units into one token as the lexer does.
pub(crate) fn payload_tokens(units: &[Unit]) -> Vec<GreenToken> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < units.len() {
        let kind = units[i].kind;
        let mut text = units[i].text.clone();
        i += 1;
        if matches!(kind, UnitKind::Text | UnitKind::Raw) {
            while i < units.len() && units[i].kind == kind {
                text.push_str(&units[i].text);
                i += 1;
            }
        }
        out.push(GreenToken::new(kind.syntax_kind().into(), &text));
    }
    out
}

/// How new lines look in this neighbourhood: indentation by level, delimiter, payload separator, line break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Style {
    /// Known indentations: (level, whitespace before the level).
    indents: Vec<(usize, String)>,
    /// The run of whitespace between level, identifier and tag.
    pub delim: String,
    /// The one character between tag and payload.
    pub sep: String,
    /// The line break.
    pub line_break: String,
}

impl Style {
    /// The style of the lines around `node` (a structure): its own first line, its continuation lines, its
    /// parent, its neighbours and its first substructures. `line_break` overrides the neighbours' break.
    pub(crate) fn near(node: &SyntaxNode, line_break: Option<&str>) -> Style {
        let mut refs: Vec<SyntaxNode> = vec![node.clone()];
        refs.extend(node.children().filter(is_line_like).take(4));
        refs.extend(node.parent().filter(is_structure));
        refs.extend(node.prev_sibling().filter(is_structure));
        refs.extend(node.next_sibling().filter(is_structure));
        let mut indents = Vec::new();
        for r in &refs {
            if let Some((level, ws)) = indent_of(r) {
                if !indents.iter().any(|(l, _)| *l == level) {
                    indents.push((level, ws));
                }
            }
        }
        let first_tokens = first_line_tokens(node);
        let delim = first_tokens
            .iter()
            .find(|t| t.kind() == SyntaxKind::Delimiter)
            .map_or(" ".to_string(), |t| t.text().to_string());
        let sep = refs
            .iter()
            .find_map(|r| {
                first_line_tokens(r)
                    .into_iter()
                    .find(|t| t.kind() == SyntaxKind::PayloadSep)
            })
            .map_or(" ".to_string(), |t| t.text().to_string());
        let line_break = match line_break {
            Some(b) => b.to_string(),
            None => break_near(node),
        };
        Style {
            indents,
            delim,
            sep,
            line_break,
        }
    }

    /// The whitespace before the level of a new line at `level`: a neighbour's at the same level, or else the
    /// neighbours' indentation carried on as `a + b × level` repetitions of their one whitespace character (as
    /// in a file that indents each level by two spaces), or none when the neighbours disagree.
    pub(crate) fn indent(&self, level: usize) -> String {
        if let Some((_, ws)) = self.indents.iter().find(|(l, _)| *l == level) {
            return ws.clone();
        }
        let mut fill: Option<char> = None;
        let mut points: Vec<(usize, usize)> = Vec::new();
        for (l, ws) in &self.indents {
            for c in ws.chars() {
                if fill.is_some_and(|f| f != c) {
                    return String::new();
                }
                fill = Some(c);
            }
            points.push((*l, ws.chars().count()));
        }
        let Some(fill) = fill else {
            return String::new();
        };
        points.sort_unstable();
        let (a, b) = match points.as_slice() {
            [(l, n)] if *l > 0 && n % l == 0 => (0, n / l),
            [(l1, n1), (l2, n2), ..] if n2 >= n1 && (n2 - n1) % (l2 - l1) == 0 => {
                let b = (n2 - n1) / (l2 - l1);
                match n1.checked_sub(b * l1) {
                    Some(a) => (a, b),
                    None => return String::new(),
                }
            }
            _ => return String::new(),
        };
        if points.iter().any(|&(l, n)| a + b * l != n) {
            return String::new();
        }
        std::iter::repeat_n(fill, a.saturating_add(b.saturating_mul(level))).collect()
    }

    /// The tokens of a new line without its payload: indentation, level, delimiter, identifier, tag.
    pub(crate) fn head(&self, level: usize, xref: Option<&str>, tag: &str) -> Vec<GreenToken> {
        let mut out = Vec::new();
        let indent = self.indent(level);
        if !indent.is_empty() {
            out.push(token(SyntaxKind::Whitespace, &indent));
        }
        out.push(token(SyntaxKind::Level, &level.to_string()));
        out.push(token(SyntaxKind::Delimiter, &self.delim));
        if let Some(id) = xref {
            out.push(token(SyntaxKind::Xref, &format!("@{id}@")));
            out.push(token(SyntaxKind::Delimiter, &self.delim));
        }
        out.push(token(SyntaxKind::Tag, tag));
        out
    }
}

fn is_structure(node: &SyntaxNode) -> bool {
    matches!(node.kind(), SyntaxKind::Record | SyntaxKind::Structure)
}

fn is_line_like(node: &SyntaxNode) -> bool {
    matches!(
        node.kind(),
        SyntaxKind::Line | SyntaxKind::Structure | SyntaxKind::Record
    )
}

/// The level and leading whitespace of a node's first line.
fn indent_of(node: &SyntaxNode) -> Option<(usize, String)> {
    let tokens = first_line_tokens(node);
    let level = tokens.iter().find_map(|t| Level::cast(t.clone()))?;
    let value = Some(level.value()).filter(|&v| v <= gedgraft_syntax::MAX_LEVEL)?;
    let ws = tokens
        .first()
        .filter(|t| t.kind() == SyntaxKind::Whitespace)
        .map_or(String::new(), |t| t.text().to_string());
    Some((value, ws))
}

/// The leading tokens of a node up to and including its first line break (its first line).
pub(crate) fn first_line_tokens(node: &SyntaxNode) -> Vec<SyntaxToken> {
    let mut out = Vec::new();
    for child in node.children_with_tokens() {
        let NodeOrToken::Token(t) = child else { break };
        let end = t.kind() == SyntaxKind::LineBreak;
        out.push(t);
        if end {
            break;
        }
    }
    out
}

/// The line break nearest to `node`'s first line: its own, else the closest one before, else after, else LF.
pub(crate) fn break_near(node: &SyntaxNode) -> String {
    const LOOK: usize = 4096;
    let own = first_line_tokens(node);
    if let Some(b) = own.iter().find(|t| t.kind() == SyntaxKind::LineBreak) {
        return b.text().to_string();
    }
    let Some(first) = node.first_token() else {
        return "\n".into();
    };
    let before = std::iter::successors(first.prev_token(), SyntaxToken::prev_token).take(LOOK);
    if let Some(b) = before
        .into_iter()
        .find(|t| t.kind() == SyntaxKind::LineBreak)
    {
        return b.text().to_string();
    }
    let after = std::iter::successors(first.next_token(), SyntaxToken::next_token).take(LOOK);
    if let Some(b) = after
        .into_iter()
        .find(|t| t.kind() == SyntaxKind::LineBreak)
    {
        return b.text().to_string();
    }
    "\n".into()
}

/// A green token.
pub(crate) fn token(kind: SyntaxKind, text: &str) -> GreenToken {
    GreenToken::new(kind.into(), text)
}

/// A `LINE` node (a continuation line) from its head tokens, payload tokens and whether it ends with a break.
pub(crate) fn line_node(
    head: Vec<GreenToken>,
    sep: &str,
    payload: Vec<GreenToken>,
    line_break: Option<&str>,
) -> GreenNode {
    let mut children: Vec<GreenElement> = head.into_iter().map(NodeOrToken::Token).collect();
    if !payload.is_empty() {
        children.push(NodeOrToken::Token(token(SyntaxKind::PayloadSep, sep)));
        children.extend(payload.into_iter().map(NodeOrToken::Token));
    }
    if let Some(b) = line_break {
        children.push(NodeOrToken::Token(token(SyntaxKind::LineBreak, b)));
    }
    GreenNode::new(SyntaxKind::Line.into(), children)
}

/// A payload laid out on lines: the first line's payload units, then `(is_cont, units)` for each continuation
/// line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Laid {
    pub first: Vec<Unit>,
    pub more: Vec<(bool, Vec<Unit>)>,
}

/// What the layout needs to know about the lines' fixed parts, in octets.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    /// The line limit.
    pub limit: usize,
    /// The first line's head (indentation to tag) plus separator plus line break.
    pub first_fixed: usize,
    /// A `CONT`/`CONC` line's head plus separator plus line break (both tags have four letters).
    pub more_fixed: usize,
}

/// Lays out segments of units (one per `CONT` line, the first on the first line) within `budget`.
pub(crate) fn lay_out_segments(segments: Vec<Vec<Unit>>, budget: Budget) -> Laid {
    let first_room = budget.limit.saturating_sub(budget.first_fixed);
    let more_room = budget.limit.saturating_sub(budget.more_fixed);
    let mut first = Vec::new();
    let mut more = Vec::new();
    for (i, units) in segments.into_iter().enumerate() {
        let room = if i == 0 { first_room } else { more_room };
        let lines = layout(&units, room, more_room);
        for (j, range) in lines.into_iter().enumerate() {
            let part = units[range].to_vec();
            if i == 0 && j == 0 {
                first = part;
            } else {
                more.push((j == 0, part));
            }
        }
    }
    Laid { first, more }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(s: &str) -> Vec<Unit> {
        value_units(s, Encoding::Utf8)
    }

    fn texts(u: &[Unit], lines: &[Range<usize>]) -> Vec<String> {
        lines
            .iter()
            .map(|r| u[r.clone()].iter().map(|x| x.text.as_str()).collect())
            .collect()
    }

    #[test]
    fn r_serialising_structs_14_at_pairs_and_escapes_are_atomic() {
        let u = units("name@example.com");
        assert!(u.iter().any(|x| x.text == "@@"));
        for width in 1..12 {
            for line in texts(&u, &layout(&u, width, width)) {
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
        let lines = texts(&u, &layout(&u, 20, 20));
        // Only spaces separate the letters, so no split is allowed: one long line.
        assert_eq!(lines.len(), 1);
        let u = units("aaa bbb");
        let lines = texts(&u, &layout(&u, 4, 4));
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
        let lines = texts(&u, &layout(&u, 0, 2));
        assert!(lines.iter().all(|l| !l.is_empty()), "{lines:?}");
        assert_eq!(lines.concat(), "abcdef");
    }

    #[test]
    fn multi_octet_characters_are_not_split() {
        let u = units("é".repeat(10).as_str());
        assert!(u.iter().all(|x| x.octets == 2));
        let lines = layout(&u, 5, 5);
        assert!(lines.iter().all(|r| r.len() == 2), "{lines:?}");
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
            ansel_clusters("\u{301}a\u{301}\u{308}eb\u{301}"),
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
        assert_eq!(
            split_lines("a\r\nb\nc\rd\n\re"),
            ["a", "b", "c", "d", "", "e"]
        );
        assert_eq!(split_lines(""), [""]);
        assert_eq!(split_lines("a\n"), ["a", ""]);
    }

    #[test]
    fn indentation_is_carried_on() {
        let style = Style {
            indents: vec![(1, "  ".into()), (2, "    ".into())],
            delim: " ".into(),
            sep: " ".into(),
            line_break: "\n".into(),
        };
        assert_eq!(style.indent(3), "      ");
        assert_eq!(style.indent(1), "  ");
        let flat = Style {
            indents: vec![(0, String::new()), (1, String::new())],
            ..style.clone()
        };
        assert_eq!(flat.indent(4), "");
        let shifted = Style {
            indents: vec![(0, "  ".into()), (1, "    ".into())],
            ..style.clone()
        };
        assert_eq!(shifted.indent(2), "      ");
        let odd = Style {
            indents: vec![(0, "\t".into()), (1, "  ".into())],
            ..style.clone()
        };
        assert_eq!(odd.indent(2), "");
    }
}
