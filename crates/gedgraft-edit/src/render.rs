//! Writing new lines the way the file writes its own: indentation, delimiters, line breaks, and the payload's
//! tokens. How payload text becomes units and lines (escaping, `CONT`/`CONC` splitting, the line limit) is
//! `gedgraft_syntax::internal::serialise`, shared with the dataset writer; this module re-exports what the
//! editor uses.

use crate::splice::GreenElement;
use gedgraft_encoding::Encoding;
use gedgraft_syntax::ast::{AstToken, Level};
pub(crate) use gedgraft_syntax::internal::serialise::{
    ansel_clusters, clusters, octets, writable, write_cluster, Budget, Laid, Unit, UnitKind,
};
use gedgraft_syntax::internal::serialise::{lay_out, LaidLine};
use gedgraft_syntax::internal::text_pieces;
use gedgraft_syntax::{Parse, SyntaxKind, SyntaxNode, SyntaxToken};
use rowan::{GreenNode, GreenToken, NodeOrToken};

/// The units of the payload tokens of an existing line (for re-wrapping): text is cut into clusters, `@@`s and
/// bare `@`s, every other token is one unit. Made as they are taken, so a long line is never held as units whole.
pub(crate) fn token_units<'a>(
    tokens: impl IntoIterator<Item = (SyntaxKind, &'a str)> + 'a,
    encoding: Encoding,
) -> impl Iterator<Item = Unit> + 'a {
    let unit = move |kind, text: &str| Unit::new(kind, text, encoding);
    tokens
        .into_iter()
        .flat_map(move |(kind, text)| -> Box<dyn Iterator<Item = Unit> + 'a> {
            let kind = match kind {
                SyntaxKind::Text => {
                    // A `@@` and a bare `@` are units of their own; the text around them is cut into clusters.
                    let pieces = text_pieces(text).flat_map(
                        move |piece| -> Box<dyn Iterator<Item = Unit>> {
                            if let Some(kind) = UnitKind::of_at_sign(piece) {
                                return Box::new(std::iter::once(unit(kind, piece)));
                            }
                            let clusters = match encoding {
                                Encoding::Ansel => ansel_clusters(piece),
                                _ => clusters(piece),
                            };
                            Box::new(clusters.map(move |c| unit(UnitKind::Text, c)))
                        },
                    );
                    return Box::new(pieces);
                }
                SyntaxKind::Escape => UnitKind::Escape,
                _ => UnitKind::Raw,
            };
            Box::new(std::iter::once(unit(kind, text)))
        })
}

/// Appends a first line's payload: the separator and the payload's tokens, unless the payload is empty.
pub(crate) fn push_first_payload(out: &mut Vec<GreenElement>, sep: &str, first: &GreenPayload) {
    if !first.is_empty() {
        out.push(NodeOrToken::Token(token(SyntaxKind::PayloadSep, sep)));
        out.extend(first.tokens().map(NodeOrToken::Token));
    }
}

/// Green payload tokens for `units`, merging neighbouring text (and raw) units into one token as the lexer does.
pub(crate) fn payload_tokens(units: impl IntoIterator<Item = Unit>) -> Vec<GreenToken> {
    let mut payload = GreenPayload::default();
    units.into_iter().for_each(|u| payload.push_piece(u));
    payload.tokens().collect()
}

/// The payload of a laid-out line as green tokens, made as its units are laid: a long payload is never held
/// as units whole (#12: a unit is 40 octets, a token's place 8).
#[derive(Debug, Default)]
pub(crate) struct GreenPayload {
    tokens: Vec<GreenToken>,
    /// Text (bare `@`s included) or raw octets not made a token yet: neighbouring units that are the same kind
    /// of token are one token, as the lexer makes them.
    open: Option<(SyntaxKind, String)>,
    octets: usize,
}

impl LaidLine<Unit> for GreenPayload {
    fn push_piece(&mut self, unit: Unit) {
        self.octets += unit.octets;
        let kind = unit.kind.syntax_kind();
        match &mut self.open {
            Some((open, text)) if *open == kind => text.push_str(&unit.text),
            _ => {
                if let Some((open, text)) = self.open.take() {
                    self.tokens.push(token(open, &text));
                }
                match kind {
                    SyntaxKind::Text | SyntaxKind::Raw => {
                        self.open = Some((kind, unit.text.into()))
                    }
                    kind => self.tokens.push(token(kind, &unit.text)),
                }
            }
        }
    }
}

impl GreenPayload {
    /// The payload's tokens.
    pub(crate) fn tokens(&self) -> impl Iterator<Item = GreenToken> + '_ {
        let open = (self.open.as_ref()).map(|(kind, text)| token(*kind, text));
        self.tokens.iter().cloned().chain(open)
    }

    /// Its length in octets in the file's encoding.
    pub(crate) fn octets(&self) -> usize {
        self.octets
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.tokens.is_empty() && self.open.is_none()
    }
}

/// Lays out `segments` (see `gedgraft_syntax::internal::serialise::lay_out`) into lines of green tokens.
pub(crate) fn lay_out_payload<S>(
    segments: impl IntoIterator<Item = S>,
    budget: Budget,
) -> Laid<GreenPayload>
where
    S: IntoIterator<Item = Unit>,
{
    lay_out(segments, budget)
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
    /// The style of the lines around `node` (a structure of `parse`): its own first line, its continuation
    /// lines, its parent, its neighbours and its first substructures. `line_break` overrides the neighbours'
    /// break ([`break_near`]).
    pub(crate) fn near(node: &SyntaxNode, parse: &Parse, line_break: Option<&str>) -> Style {
        let mut refs: Vec<SyntaxNode> = vec![node.clone()];
        refs.extend(node.children().filter(is_line_like).take(4));
        refs.extend(node.parent().filter(is_structure));
        // A substructure's neighbours are in its record; a record's are other records (or lines left out of
        // them), which a streamed file may hold in another batch: a record's style is its own, streamed or not.
        if node.kind() != SyntaxKind::Record {
            refs.extend(node.prev_sibling().filter(is_structure));
            refs.extend(node.next_sibling().filter(is_structure));
        }
        let seen: Vec<(usize, String)> = refs.iter().filter_map(indent_of).collect();
        // One line indented among neighbours that are not is a stray (`leading-whitespace`), not the file's
        // way: a new line does not copy it (a re-wrap's `CONC` line next to a lone ` 2 DATE`).
        let stray = seen.iter().filter(|(_, ws)| !ws.is_empty()).count() == 1 && seen.len() > 1;
        let mut indents: Vec<(usize, String)> = Vec::new();
        for (level, ws) in seen {
            if !indents.iter().any(|(l, _)| *l == level) {
                indents.push((level, if stray { String::new() } else { ws }));
            }
        }
        let delim = first_line_tokens(node)
            .find(|t| t.kind() == SyntaxKind::Delimiter)
            .map_or(" ".to_string(), |t| t.text().to_string());
        let sep = refs
            .iter()
            .find_map(|r| first_line_tokens(r).find(|t| t.kind() == SyntaxKind::PayloadSep))
            .map_or(" ".to_string(), |t| t.text().to_string());
        let line_break = match line_break {
            Some(b) => b.to_string(),
            None => break_near(node, parse),
        };
        Style {
            indents,
            delim,
            sep,
            line_break,
        }
    }

    /// The whitespace before the level of a new line at `level`: a neighbour's at the same level, or else the
    /// neighbours' indentation carried on (as in a file that indents each level by two spaces), or none when
    /// they disagree.
    pub(crate) fn indent(&self, level: usize) -> String {
        match self.indents.iter().find(|(l, _)| *l == level) {
            Some((_, ws)) => ws.clone(),
            None => self.carried(level).unwrap_or_default(),
        }
    }

    /// The neighbours' indentation carried on to `level`: `n₁ + b × (level − l₁)` repetitions of their one
    /// whitespace character (none where that is below zero), on the line through the two deepest neighbours'
    /// (level, width) points (through the origin for one neighbour); `None` when they disagree (two
    /// characters, or a neighbour off that line).
    fn carried(&self, level: usize) -> Option<String> {
        let mut fill: Option<char> = None;
        let mut points: Vec<(i64, i64)> = Vec::new();
        let int = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        for (l, ws) in &self.indents {
            for c in ws.chars() {
                if fill.is_some_and(|f| f != c) {
                    return None;
                }
                fill = Some(c);
            }
            points.push((int(*l), int(ws.chars().count())));
        }
        let Some(fill) = fill else {
            return Some(String::new());
        };
        points.sort_unstable();
        let (l1, n1, b) = match points.as_slice() {
            [(l, n)] if *l > 0 && n % l == 0 => (*l, *n, n / l),
            // The two deepest: the shallow levels of a file may be flush with the margin (`1 NAME` over
            // `  2 SURN`, `    3 TIME`: two spaces a level below level 1).
            [.., (l1, n1), (l2, n2)] if n2 >= n1 && (n2 - n1) % (l2 - l1) == 0 => {
                (*l1, *n1, (n2 - n1) / (l2 - l1))
            }
            _ => return None,
        };
        let width = |l: i64| {
            n1.saturating_add(b.saturating_mul(l.saturating_sub(l1)))
                .max(0)
        };
        if points.iter().any(|&(l, n)| width(l) != n) {
            return None;
        }
        let n = usize::try_from(width(int(level))).unwrap_or(0);
        Some(std::iter::repeat_n(fill, n).collect())
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
    let mut tokens = first_line_tokens(node);
    let first = tokens.next()?;
    let ws = match first.kind() == SyntaxKind::Whitespace {
        true => first.text().to_string(),
        false => String::new(),
    };
    let level = std::iter::once(first).chain(tokens).find_map(Level::cast)?;
    let value = Some(level.value()).filter(|&v| v <= gedgraft_syntax::MAX_LEVEL)?;
    Some((value, ws))
}

/// The leading tokens of a node up to and including its first line break (its first line), as they are read:
/// a line of a million tokens (a payload of bare `@`s) is not held as a million red tokens by each caller that
/// only looks for its tag or line break (#12: 200 MB of them at once for a 1 MB line).
pub(crate) fn first_line_tokens(node: &SyntaxNode) -> impl Iterator<Item = SyntaxToken> {
    let mut ended = false;
    node.children_with_tokens().map_while(move |child| {
        let NodeOrToken::Token(t) = child else {
            return None;
        };
        if ended {
            return None;
        }
        ended = t.kind() == SyntaxKind::LineBreak;
        Some(t)
    })
}

/// The line break nearest to `node`'s first line (`node` is in `parse`): its own, else the closest one before,
/// else after, else LF. Before the start of `parse`'s text, the closest one is the file's line break before it
/// ([`Parse::break_before`]: a batch of a streamed file cannot see the batches before it), so a batch gives the
/// line break the whole file gives.
pub(crate) fn break_near(node: &SyntaxNode, parse: &Parse) -> String {
    const LOOK: usize = 4096;
    if let Some(b) = first_line_tokens(node).find(|t| t.kind() == SyntaxKind::LineBreak) {
        return b.text().to_string();
    }
    let Some(first) = node.first_token() else {
        return "\n".into();
    };
    let mut before = std::iter::successors(first.prev_token(), SyntaxToken::prev_token);
    if let Some(b) = (before.by_ref().take(LOOK)).find(|t| t.kind() == SyntaxKind::LineBreak) {
        return b.text().to_string();
    }
    // The search reached the start of the text (not its limit): what is before it is the file's.
    if let (None, Some(b)) = (before.next(), parse.break_before()) {
        return b.as_str().to_string();
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

/// A green token, shared with an earlier one where the parser shares tokens (rowan trees share green tokens
/// freely): a re-laid line of `x@x@…` is a token per octet, and each would otherwise be an allocation (#12).
pub(crate) fn token(kind: SyntaxKind, text: &str) -> GreenToken {
    gedgraft_syntax::internal::shared_token(kind, text)
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let alone = Style {
            indents: vec![(2, "\t ".into())],
            ..style.clone()
        };
        assert_eq!(alone.indent(2), "\t ");
        // Levels 0 and 1 flush with the margin, two spaces a level below (a corpus file, `Case006`).
        let below_one = Style {
            indents: vec![(0, String::new()), (1, String::new()), (2, "  ".into())],
            ..style.clone()
        };
        assert_eq!(below_one.indent(3), "    ");
    }

    /// #12: the tokens of a re-laid payload share their short texts (a line of `x@@x@@…` re-wrapped is a token
    /// per three octets), and a merged run of text is one token, as the lexer makes it.
    #[test]
    fn new_short_tokens_are_shared() {
        use gedgraft_encoding::Encoding;
        let at = |t: &GreenToken| std::ptr::from_ref::<rowan::GreenTokenData>(t) as usize;
        let units = (0..100).flat_map(|_| {
            [
                Unit::new(UnitKind::Text, "x", Encoding::Utf8),
                Unit::new(UnitKind::Escape, "@#U41@", Encoding::Utf8),
            ]
        });
        let tokens = payload_tokens(units);
        assert_eq!(tokens.len(), 200);
        let distinct: std::collections::HashSet<usize> = tokens.iter().map(at).collect();
        assert_eq!(distinct.len(), 2);
        // Text, `@@` and a bare `@` are one text token, as the lexer makes them.
        let merged = payload_tokens([
            Unit::new(UnitKind::Text, "ab", Encoding::Utf8),
            Unit::new(UnitKind::EscapedAt, "@@", Encoding::Utf8),
            Unit::new(UnitKind::AtSign, "@", Encoding::Utf8),
            Unit::new(UnitKind::Text, "ef", Encoding::Utf8),
        ]);
        assert_eq!(
            merged.iter().map(|t| t.text()).collect::<Vec<_>>(),
            ["ab@@@ef"]
        );
        // Longer than any text the parser shares.
        let long = "y".repeat(40);
        assert_ne!(
            at(&token(SyntaxKind::Text, &long)),
            at(&token(SyntaxKind::Text, &long))
        );
    }
}
