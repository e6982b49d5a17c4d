//! Re-wrapping string payloads: splitting lines over the limit ([`Editor::rewrap`]) and joining needless `CONC`
//! splits ([`Editor::join_conc`]), two edits a reviewer asks for separately.

use super::{check_limit, continuation_nodes, first_line_green, Editor};
use crate::dialect;
use crate::error::{EditError, Warning};
use crate::render::{
    self, lay_out_payload, octets, token, token_units, Budget, GreenPayload, Laid, Style, Unit,
};
use crate::scope::Scope;
use crate::splice::{GreenElement, Splice};
use gedgraft_encoding::Encoding;
use gedgraft_syntax::ast::{AstNode, Level, Structure};
use gedgraft_syntax::internal::text_pieces;
use gedgraft_syntax::{Elf, SyntaxKind, SyntaxNode};
use rowan::{GreenToken, GreenTokenData, Language, NodeOrToken};
use std::ops::Range;

/// Why a join is refused where undecodable octets end one line and start the next.
const RAW_MEETS: &str =
    "undecodable octets end a line and start the next: joined, they could read as \
     a character; repair the encoding first";

/// What a re-wrap does to a structure's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Split each line longer than the limit; leave every other line as it is.
    Split,
    /// Lay out again the text between `CONT` lines where a `CONC` line would fit on the line before it.
    Join,
}

/// One line of a structure: its first line or a continuation line.
struct L {
    /// The line's node (the structure's, for its first line).
    node: SyntaxNode,
    /// Child index in the structure, `None` for the first line.
    index: Option<usize>,
    cont: bool,
    /// The line's tokens, green: a line of a million tokens (a payload of bare `@`s) is a million shared
    /// pointers here, not a million red tokens (#12).
    tokens: Vec<GreenToken>,
    /// Where the payload is in `tokens`: after the separator, the line break left out.
    payload: Range<usize>,
    octets: usize,
}

/// A green token's kind.
fn kind_of(t: &GreenTokenData) -> SyntaxKind {
    Elf::kind_from_raw(t.kind())
}

/// The text of `tokens`, one after the other.
fn concat(tokens: &[GreenToken]) -> String {
    tokens.iter().map(|t| t.text()).collect()
}

/// The level of a structure's first line and the child index after it, from the tokens its `L` (the first of
/// `lines`) holds: a line of a million tokens is not read again (#12).
fn first_line_extent(lines: &[L]) -> (usize, usize) {
    lines.first().map_or((0, 0), |l| {
        let level = (l.tokens.iter().find(|t| kind_of(t) == SyntaxKind::Level))
            .map_or(0, |t| Level::value_of(t.text()).unwrap_or(usize::MAX));
        (level, l.tokens.len())
    })
}

impl L {
    fn new(
        node: &SyntaxNode,
        index: Option<usize>,
        tokens: Vec<GreenToken>,
        encoding: Encoding,
    ) -> L {
        let cont = (tokens.iter()).any(|t| kind_of(t) == SyntaxKind::Tag && t.text() == "CONT");
        let end = match tokens.last() {
            Some(t) if kind_of(t) == SyntaxKind::LineBreak => tokens.len() - 1,
            _ => tokens.len(),
        };
        let payload = match tokens
            .iter()
            .position(|t| kind_of(t) == SyntaxKind::PayloadSep)
        {
            Some(s) => (s + 1).min(end)..end,
            None => end..end,
        };
        L {
            node: node.clone(),
            index,
            cont,
            octets: octets(&concat(&tokens), encoding),
            tokens,
            payload,
        }
    }

    /// The payload's tokens.
    fn payload(&self) -> &[GreenToken] {
        &self.tokens[self.payload.clone()]
    }

    /// The payload's units, made as they are taken.
    fn units(&self, encoding: Encoding) -> impl Iterator<Item = Unit> + '_ {
        token_units(
            self.payload().iter().map(|t| (kind_of(t), t.text())),
            encoding,
        )
    }

    /// The line's break, if it has one.
    fn line_break(&self) -> Option<String> {
        self.tokens
            .last()
            .filter(|t| kind_of(t) == SyntaxKind::LineBreak)
            .map(|t| t.text().to_string())
    }

    /// Where the tag is.
    fn tag_index(&self) -> Result<usize, &'static str> {
        self.tokens
            .iter()
            .position(|t| kind_of(t) == SyntaxKind::Tag)
            .ok_or("a line without a tag")
    }
}

impl Editor<'_> {
    /// Splits the string payload lines longer than `limit` octets (line break included; default 255, 510 in
    /// UTF-16; R-SERIALISING-STRUCTS-08) with `CONC` lines, filling each line greedily. Every other line stays
    /// as it is, so the diff shows only the long lines; to join needless `CONC` splits, use
    /// [`join_conc`](Editor::join_conc). Splits go only between non-blank units (R-SERIALISING-STRUCTS-09 to
    /// -14), never inside `@@`, an escape or a character, and in ANSEL never between a diacritic and the letter
    /// after it (ANSEL writes the mark first). Escapes, `@@`, characters and raw octets are moved whole, never
    /// re-encoded, so the payload's text is unchanged.
    ///
    /// Skipped, with a warning, when the structure has a bare `@` (escape it first: a split next to one could
    /// make a new escape), a blank or malformed line between its continuation lines, or is serialisation
    /// metadata; a join also when undecodable octets end a line and start the next (joined, they could read as a
    /// character). Returns how many structures will be rewritten. Running it twice changes nothing the second
    /// time.
    ///
    /// ```
    /// let long = format!("0 HEAD\n0 @N1@ NOTE {}\n1 CONC cd\n0 TRLR\n", "x".repeat(40));
    /// let parse = gedgraft_syntax::parse(long.as_bytes());
    /// let mut editor = gedgraft_edit::Editor::new(&parse);
    /// assert_eq!(editor.rewrap(Some(32), None).unwrap(), 1);
    /// // 32 octets a line, line break included; the needless `CONC cd` stays.
    /// let want = format!("0 HEAD\n0 @N1@ NOTE {}\n1 CONC {}\n1 CONC cd\n0 TRLR\n", "x".repeat(19), "x".repeat(21));
    /// assert_eq!(editor.apply().unwrap().bytes(), want.as_bytes());
    /// ```
    pub fn rewrap(
        &mut self,
        limit: Option<usize>,
        scope: Option<&Scope>,
    ) -> Result<usize, EditError> {
        self.wrap(limit, scope, Mode::Split, "splitting long lines")
    }

    /// Joins needless `CONC` splits: where a `CONC` line's payload would fit on the line before it within
    /// `limit` octets (default 255, 510 in UTF-16), the text between two `CONT` lines is laid out again
    /// greedily (the layout new payloads get), under the same rules as [`rewrap`](Editor::rewrap). Lines with
    /// no needless split stay as they are. Returns how many structures will be rewritten.
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @N1@ NOTE ab\n1 CONC cd\n1 CONT ef\n0 TRLR\n");
    /// let mut editor = gedgraft_edit::Editor::new(&parse);
    /// assert_eq!(editor.join_conc(None, None).unwrap(), 1);
    /// assert_eq!(editor.apply().unwrap().bytes(), b"0 HEAD\n0 @N1@ NOTE abcd\n1 CONT ef\n0 TRLR\n");
    /// ```
    pub fn join_conc(
        &mut self,
        limit: Option<usize>,
        scope: Option<&Scope>,
    ) -> Result<usize, EditError> {
        self.wrap(limit, scope, Mode::Join, "joining needless CONC splits")
    }

    fn wrap(
        &mut self,
        limit: Option<usize>,
        scope: Option<&Scope>,
        mode: Mode,
        description: &str,
    ) -> Result<usize, EditError> {
        let limit = match limit {
            Some(l) => {
                check_limit(l)?;
                l
            }
            None => self.limit(),
        };
        if dialect::refuse_rewrap(self.parse, &mut self.warnings) {
            return Ok(0);
        }
        let roots = self.scope_roots(scope);
        let edit = self.new_edit(description.into());
        let encoding = self.parse.encoding();
        let mut rewritten = 0;
        let mut skipped: Vec<(&'static str, usize, usize)> = Vec::new();
        for (root, _) in roots {
            for node in root.descendants() {
                if !matches!(node.kind(), SyntaxKind::Record | SyntaxKind::Structure) {
                    continue;
                }
                match self.rewrap_structure(&node, limit, encoding, edit, mode) {
                    Ok(true) => rewritten += 1,
                    Ok(false) => {}
                    Err(reason) => match skipped.iter_mut().find(|(r, _, _)| *r == reason) {
                        Some((_, _, more)) => *more += 1,
                        None => {
                            let line = self.line_of(u32::from(node.text_range().start()));
                            skipped.push((reason, line, 0));
                        }
                    },
                }
            }
        }
        for (reason, line, more) in skipped {
            self.warnings.push(Warning::NotRewrapped {
                line,
                more,
                reason,
                joining: mode == Mode::Join,
            });
        }
        self.count += rewritten;
        Ok(rewritten)
    }

    /// Re-wraps one structure if it needs it; `Err` says why it cannot.
    fn rewrap_structure(
        &mut self,
        node: &SyntaxNode,
        limit: usize,
        encoding: Encoding,
        edit: usize,
        mode: Mode,
    ) -> Result<bool, &'static str> {
        // Green tokens and child nodes only: no red token is made for a line's tokens (#12).
        let start = u32::from(node.text_range().start());
        let first_line: Vec<GreenToken> = (first_line_green(node.green(), start))
            .map(|(_, t, _)| t.to_owned())
            .collect();
        let first_end = first_line.len();
        let mut lines = vec![L::new(node, None, first_line, encoding)];
        let mut last_line_index = None;
        for n in node.children().filter(|n| n.kind() == SyntaxKind::Line) {
            let i = n.index();
            if i < first_end {
                continue;
            }
            if last_line_index.is_some_and(|l: usize| l + 1 != i)
                || (last_line_index.is_none() && i != first_end)
            {
                return Err("a blank or malformed line sits between its continuation lines");
            }
            last_line_index = Some(i);
            let tokens = (n.green().children())
                .filter_map(|e| e.into_token().map(ToOwned::to_owned))
                .collect();
            lines.push(L::new(&n, Some(i), tokens, encoding));
        }
        let any_long = lines.iter().any(|l| l.octets > limit);
        let any_conc = lines.iter().skip(1).any(|l| !l.cont);
        let wanted = match mode {
            Mode::Split => any_long,
            Mode::Join => any_conc,
        };
        if !wanted {
            return Ok(false);
        }
        if Structure::cast(node.clone()).is_some_and(|s| s.is_serialisation_metadata()) {
            return match any_long {
                true => Err("serialisation metadata cannot have continuation lines (2019 § Header metadata)"),
                false => Ok(false),
            };
        }
        let mut has_at = false;
        for t in lines.iter().flat_map(|l| l.payload().iter()) {
            match kind_of(t) {
                SyntaxKind::Pointer => return Ok(false),
                SyntaxKind::Text => has_at |= text_pieces(t.text()).any(|p| p == "@"),
                _ => {}
            }
        }
        let at_reason = "it holds a bare `@`; escape it first (an `@` next to a new join or split could start an escape)";
        match mode {
            Mode::Split => self.split_long_lines(
                node,
                &lines,
                limit,
                encoding,
                edit,
                has_at.then_some(at_reason),
            ),
            Mode::Join => self.join_segments(
                node,
                &lines,
                limit,
                encoding,
                edit,
                has_at.then_some(at_reason),
            ),
        }
    }

    /// Splits each line of `lines` longer than `limit` into itself and new `CONC` lines right after it.
    fn split_long_lines(
        &mut self,
        node: &SyntaxNode,
        lines: &[L],
        limit: usize,
        encoding: Encoding,
        edit: usize,
        refuse: Option<&'static str>,
    ) -> Result<bool, &'static str> {
        let (first_level, first_end) = first_line_extent(lines);
        let style = render::Style::near(node, self.parse, None);
        let mut changed = false;
        for line in lines.iter().filter(|l| l.octets > limit) {
            let ti = line.tag_index()?;
            let units = line.units(encoding);
            let mut line_style = style.clone();
            let old_break = line.line_break();
            line_style.line_break = old_break
                .clone()
                .unwrap_or_else(|| style.line_break.clone());
            let head_text = concat(&line.tokens[..=ti]);
            let budget = Budget {
                limit,
                ..self.budget(&head_text, &line_style, first_level, encoding)
            };
            let laid = lay_out_payload([units], budget);
            if laid.more.is_empty() {
                continue;
            }
            if let Some(reason) = refuse {
                return Err(reason);
            }
            changed = true;
            let (mut with, concs) = relaid(
                laid,
                &line_style,
                first_level,
                &line_style.line_break,
                old_break.as_deref(),
            );
            match line.index {
                None => {
                    with.extend(concs);
                    self.splices
                        .push(Splice::new(node, ti + 1..first_end, with, edit));
                }
                Some(i) => {
                    let len = line.tokens.len();
                    self.splices
                        .push(Splice::new(&line.node, ti + 1..len, with, edit));
                    self.splices
                        .push(Splice::new(node, i + 1..i + 1, concs, edit));
                }
            }
        }
        Ok(changed)
    }

    /// Lays out again each run of a head line (the first line or a `CONT` line) and its `CONC` lines that has a
    /// needless split.
    fn join_segments(
        &mut self,
        node: &SyntaxNode,
        lines: &[L],
        limit: usize,
        encoding: Encoding,
        edit: usize,
        refuse: Option<&'static str>,
    ) -> Result<bool, &'static str> {
        let (first_level, first_end) = first_line_extent(lines);
        // Segments: a head line (the first line or a CONT line) and the CONC lines after it.
        let mut segments: Vec<std::ops::Range<usize>> = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            if i == 0 || l.cont {
                segments.push(i..i + 1);
            } else if let Some(s) = segments.last_mut() {
                s.end = i + 1;
            }
        }
        let style = render::Style::near(node, self.parse, None);
        let mut changed = false;
        for seg in segments {
            let seg_lines = &lines[seg.clone()];
            let needless = seg_lines.windows(2).any(|w| {
                let payload: String = concat(w[1].payload());
                w[0].octets + octets(&payload, encoding) <= limit
            });
            if !needless {
                continue;
            }
            if let Some(reason) = refuse {
                return Err(reason);
            }
            // Undecodable octets on both sides of a split (`c\xC3` / `CONC \xA9 d`, empty `CONC` lines between
            // or not) would meet on one line and could read as a character (`cé d`): a repair of the encoding,
            // not a join.
            if raw_octets_meet(seg_lines) {
                return Err(RAW_MEETS);
            }
            let head = &seg_lines[0];
            let ti = head.tag_index()?;
            let head_text = concat(&head.tokens[..=ti]);
            let old_break = head.line_break();
            let last_break = seg_lines.last().and_then(L::line_break);
            let line_break = old_break
                .clone()
                .unwrap_or_else(|| style.line_break.clone());
            let units = seg_lines.iter().flat_map(|l| l.units(encoding));
            let mut seg_style = style.clone();
            seg_style.line_break = line_break.clone();
            let budget = Budget {
                limit,
                ..self.budget(&head_text, &seg_style, first_level, encoding)
            };
            let laid = lay_out_payload([units], budget);
            // The same units on lines of the same octet lengths are the same lines (no unit is empty).
            let old_octets: Vec<usize> = seg_lines
                .iter()
                .map(|l| l.units(encoding).map(|u| u.octets).sum())
                .collect();
            let new_octets: Vec<usize> = std::iter::once(laid.first.octets())
                .chain(laid.more.iter().map(|(_, u)| u.octets()))
                .collect();
            if old_octets == new_octets {
                continue;
            }
            changed = true;
            let (mut with, concs) = relaid(
                laid,
                &seg_style,
                first_level,
                &line_break,
                last_break.as_deref(),
            );
            let conc_range = match (seg_lines.get(1), seg_lines.last()) {
                (Some(a), Some(b)) => a.index.unwrap_or(0)..b.index.unwrap_or(0) + 1,
                _ => {
                    let after = head.index.map_or(first_end, |i| i + 1);
                    after..after
                }
            };
            match head.index {
                None => {
                    // The first line: its payload and the CONC lines after it are one run of children.
                    with.extend(concs);
                    let end = conc_range.end.max(first_end);
                    self.splices
                        .push(Splice::new(node, ti + 1..end, with, edit));
                }
                Some(_) => {
                    let len = head.tokens.len();
                    self.splices
                        .push(Splice::new(&head.node, ti + 1..len, with, edit));
                    self.splices
                        .push(Splice::new(node, conc_range, concs, edit));
                }
            }
        }
        Ok(changed)
    }
}

/// Whether a payload's last token before a split is raw octets and so is the first after it, empty lines between
/// skipped: joined, the octets would be read together.
fn raw_octets_meet(lines: &[L]) -> bool {
    let raw = |t: Option<&GreenToken>| t.is_some_and(|t| kind_of(t) == SyntaxKind::Raw);
    let mut before_raw = false;
    for line in lines.iter().filter(|l| !l.payload().is_empty()) {
        if before_raw && raw(line.payload().first()) {
            return true;
        }
        before_raw = raw(line.payload().last());
    }
    false
}

/// The elements of a re-laid payload: the first line's payload and line break, and the `CONT`/`CONC` lines
/// after it. Every line but the last ends with `new_break`; the last keeps `last_break`, the break the text had
/// (none at the end of a file).
fn relaid(
    laid: Laid<GreenPayload>,
    style: &Style,
    level: usize,
    new_break: &str,
    last_break: Option<&str>,
) -> (Vec<GreenElement>, Vec<GreenElement>) {
    let n_more = laid.more.len();
    let brk = |k: usize| {
        if k < n_more {
            Some(new_break)
        } else {
            last_break
        }
    };
    let mut first: Vec<GreenElement> = Vec::new();
    render::push_first_payload(&mut first, &style.sep, &laid.first);
    if let Some(b) = brk(0) {
        first.push(NodeOrToken::Token(token(SyntaxKind::LineBreak, b)));
    }
    (first, continuation_nodes(laid.more, style, level, brk))
}
