//! One line into the tree: its tokens, its checks (levels, header, line findings, LF CR gaps), a well-formed
//! or cached structure's first line, a continuation line, a malformed line, the text after the trailer.

use super::{frames::Frame, range, Parser};
use crate::after_trailer;
use crate::codes;
use crate::diagnostic::{Class, Diagnostic};
use crate::green::{CachedFacts, GreenElement, LineKey, Template};
use crate::kind::SyntaxKind;
use crate::lexer::{lex_line, LineFacts, LineShape};
use crate::line_checks;
use crate::serialise::is_space;
use gedgraft_encoding::{ansel, Encoding};
use rowan::NodeOrToken;

impl Parser<'_> {
    /// Green tokens for the lexed line plus its line break.
    pub(super) fn line_children(
        &mut self,
        start: usize,
        line_end: usize,
        break_end: usize,
    ) -> Vec<GreenElement> {
        let mut children = self.factory.buffer();
        // At its size at once: a line of a million tokens does not leave the smaller buffers it grew through.
        children.reserve_exact(self.tokens.len() + 1);
        let mut from = start;
        for i in 0..self.tokens.len() {
            let (kind, end) = self.tokens[i];
            let token = self.factory.token(kind, &self.text[from..start + end]);
            children.push(NodeOrToken::Token(token));
            from = start + end;
        }
        debug_assert_eq!(from, line_end);
        if break_end > line_end {
            let token = self
                .factory
                .token(SyntaxKind::LineBreak, &self.text[line_end..break_end]);
            children.push(NodeOrToken::Token(token));
        }
        children
    }

    pub(super) fn line(
        &mut self,
        start: usize,
        line_end: usize,
        break_end: usize,
        key: Option<LineKey>,
    ) {
        if line_checks::is_lf_cr_gap(self.text, start, line_end, break_end) {
            // Not a line of its own for runs of diagnostics: the lines around it are neighbours.
            self.lf_cr_gap(start, break_end);
            return;
        }
        self.prev_line_start = self.line_start;
        self.line_start = Some(self.base + start);
        self.line_flagged = false;
        if let Some(end) = self.record_after_trailer.take() {
            self.diag(
                codes::RECORD_AFTER_TRAILER,
                Class::MalformedStructure,
                "a record after the trailer line: `0 TRLR` must end the file (read as a record of a \
                 malformed file)",
                start,
                end,
            );
        }
        let line_text = &self.text[start..break_end];
        if let Some(finding) = line_checks::length_finding(line_text, self.encoding) {
            self.finding(start, finding);
        }
        if let Some((facts, template)) = key
            .as_ref()
            .and_then(|key| self.line_cache.get(self.text, key))
        {
            self.cached_line(start, line_end, facts, template, key);
            return;
        }
        let line = &self.text[start..line_end];
        if self.tokens.capacity() > crate::green::MAX_KEPT_BUFFER_LEN {
            // The room a line of a million tokens took goes back to the system, not kept to the end (#12).
            self.tokens = Vec::new();
        }
        let shape = lex_line(line, &mut self.tokens);
        if shape == LineShape::Blank {
            self.diag(
                codes::BLANK_LINE,
                Class::Warning,
                "blank line (ignored)",
                start,
                break_end,
            );
            let mut children = self.line_children(start, line_end, break_end);
            self.top_children().append(&mut children);
            self.factory.recycle(children);
            return;
        }
        if self
            .tokens
            .first()
            .is_some_and(|t| t.0 == SyntaxKind::Whitespace)
        {
            let end = start + self.tokens[0].1;
            self.diag(
                codes::LEADING_WHITESPACE,
                Class::Warning,
                "whitespace before the level (ignored)",
                start,
                end,
            );
        }
        let tokens = std::mem::take(&mut self.tokens);
        let encoding = self.encoding;
        line_checks::raw_findings(line, &tokens, encoding, &mut |f| self.finding(start, f));
        self.tokens = tokens;
        line_checks::character_findings(line, &mut |f| self.finding(start, f));
        if let LineShape::Line(facts) = &shape {
            let at = line_checks::bare_at_finding(facts);
            at.into_iter().for_each(|f| self.finding(start, f));
        }
        let first = !self.seen_first_line;
        self.seen_first_line = true;
        match shape {
            LineShape::Blank => {}
            LineShape::Line(facts) => {
                if first {
                    self.check_header_line(line, &facts, start, line_end);
                }
                self.well_formed_line(start, line_end, break_end, &facts, first, key);
            }
            LineShape::Malformed {
                level,
                code,
                message,
                at,
            } => {
                if first {
                    self.first_line_not_head(start, line_end);
                }
                self.diag(
                    code,
                    Class::MalformedLine,
                    message,
                    start + at,
                    line_end.max(start + at + 1).min(line_end),
                );
                if let Some(level) = level {
                    self.check_level(level, start, line_end);
                    self.close_from(level);
                }
                let children = self.line_children(start, line_end, break_end);
                let node = self.factory.node(SyntaxKind::Error, children);
                self.top_children().push(NodeOrToken::Node(node));
            }
        }
    }

    /// Reports a finding of [`line_checks`] on the line starting at `start`.
    pub(super) fn finding(
        &mut self,
        start: usize,
        (code, class, message, at, end): line_checks::Finding,
    ) {
        self.line_flagged = true;
        self.diag(code, class, message, start + at, start + end);
    }

    /// The empty line between the LF and CR of an LF CR pair: kept as a blank line of the tree, and counted in
    /// this parser's one `lf-cr-line-breaks` diagnostic.
    pub(super) fn lf_cr_gap(&mut self, start: usize, break_end: usize) {
        let at = range(self.base + start, self.base + break_end);
        match self.lf_cr.and_then(|i| self.diagnostics.get_mut(i)) {
            Some(d) => d.count_one_more(at.start()),
            None => {
                self.lf_cr = Some(self.diagnostics.len());
                let message = line_checks::LF_CR_MESSAGE;
                let d = Diagnostic::new(codes::LF_CR_LINE_BREAKS, Class::Warning, message, at);
                self.diagnostics.push(d);
            }
        }
        self.tokens.clear();
        let mut children = self.line_children(start, start, break_end);
        self.top_children().append(&mut children);
        self.factory.recycle(children);
    }

    /// R-SPECIFIED-ENC-06: after normalisation the first line must be exactly `0 HEAD`.
    pub(super) fn check_header_line(
        &mut self,
        line: &str,
        facts: &LineFacts,
        start: usize,
        line_end: usize,
    ) {
        let tag = &line[facts.tag_start..facts.tag_end];
        let payload_blank = facts
            .payload_start
            .is_none_or(|p| line[p..].trim_matches([' ', '\t']).is_empty());
        if facts.level != 0 || facts.has_xref || tag != "HEAD" || !payload_blank {
            self.first_line_not_head(start, line_end);
        }
    }

    /// R-SPECIFIED-ENC-06: the first line is not `0 HEAD`.
    pub(super) fn first_line_not_head(&mut self, start: usize, line_end: usize) {
        let message = "the first line must be `0 HEAD`";
        self.diag(
            codes::FIRST_LINE_NOT_HEAD,
            Class::MalformedStructure,
            message,
            start,
            line_end,
        );
    }

    /// R-LINES-04: a line may be at most one level deeper than the line before it.
    pub(super) fn check_level(&mut self, level: usize, start: usize, line_end: usize) {
        if let Some(prev) = self.prev_level {
            if level > prev.saturating_add(1) {
                let message = format!(
                    "level {level} follows level {prev}; a line may go at most one level deeper"
                );
                self.diag(
                    codes::LEVEL_JUMP,
                    Class::MalformedLine,
                    message,
                    start,
                    line_end,
                );
            }
        }
        if let Some(cont) = self.continuation_level {
            if level > cont {
                self.diag(
                    codes::CONTINUATION_WITH_SUBSTRUCTURES,
                    Class::MalformedStructure,
                    "a line nested below a CONT/CONC continuation line",
                    start,
                    line_end,
                );
            }
        }
        self.prev_level = Some(level);
        self.continuation_level = None;
    }

    pub(super) fn well_formed_line(
        &mut self,
        start: usize,
        line_end: usize,
        break_end: usize,
        facts: &LineFacts,
        first: bool,
        key: Option<LineKey>,
    ) {
        let level = facts.level;
        let line = &self.text[start..line_end];
        let ws = line.len() - line.trim_start_matches([' ', '\t']).len();
        let tag = &line[facts.tag_start..facts.tag_end];
        self.check_level(level, start + ws, line_end);
        for &at in &facts.bad_escapes {
            self.diag(
                codes::BAD_ESCAPE,
                Class::NonConformant,
                "an escape sequence's type, the character after `@#`, must be an upper-case letter A-Z",
                start + at,
                start + at + 3,
            );
        }
        if tag == "HEAD" && !first {
            self.diag(
                codes::MISPLACED_HEADER,
                Class::MalformedStructure,
                "HEAD is only allowed as the file's first line",
                start + ws,
                line_end,
            );
        }
        for &at in &facts.unterminated_escapes {
            self.diag(
                codes::UNTERMINATED_ESCAPE,
                Class::NonConformant,
                "`@#` starts an escape but no `@` closes it on this line",
                start + at,
                start + at + 2,
            );
        }
        self.close_from(level);
        let children = self.line_children(start, line_end, break_end);
        let mut children = if tag == "CONT" || tag == "CONC" {
            match self.continuation_line(tag, facts, children, start + ws, line_end) {
                Some(children) => children,
                None => {
                    if tag == "CONC" {
                        self.conc_split(line, facts, start + ws, line_end);
                    }
                    return;
                }
            }
        } else {
            children
        };
        if tag == "TRLR" {
            let payload = facts.payload_start.map_or("", |p| &line[p..]);
            self.trailer_line(
                level,
                facts.has_xref || !payload.is_empty(),
                start + ws,
                line_end,
            );
        }
        // A line whose node and diagnostics follow from its text alone may be shared as a leaf: no leading
        // whitespace, no raw octets, no escape problems, and no tag the parser treats specially.
        let shareable = ws == 0
            && !first
            && facts.bad_escapes.is_empty()
            && facts.unterminated_escapes.is_empty()
            && !matches!(tag, "TRLR" | "HEAD" | "CONT" | "CONC")
            && !self.line_flagged
            && !self.tokens.iter().any(|t| t.0 == SyntaxKind::Raw);
        // The first line's tokens sit directly in the structure node (no LINE node: one allocation less per line).
        let mut frame = Frame::for_line(level, children.len());
        frame.pointer_payload = facts.pointer_payload;
        frame.shareable = key.filter(|_| shareable);
        self.open(frame, &mut children);
        self.factory.recycle(children);
    }

    /// A `CONT`/`CONC` line (its checks), joined as a `LINE` node to the structure it continues (`None`), or
    /// its tokens given back when it continues nothing (it is then a structure of its own). `at` is where the
    /// line's level starts.
    fn continuation_line(
        &mut self,
        tag: &str,
        facts: &LineFacts,
        children: Vec<GreenElement>,
        at: usize,
        line_end: usize,
    ) -> Option<Vec<GreenElement>> {
        let level = facts.level;
        if level == 0 {
            let message = format!("a {tag} line cannot be at level 0");
            self.diag(
                codes::CONTINUATION_AT_LEVEL_0,
                Class::MalformedStructure,
                message,
                at,
                line_end,
            );
        } else if self.continues_top(level) {
            if facts.has_xref {
                let message = format!("a {tag} line cannot have a cross-reference identifier");
                self.diag(
                    codes::CONTINUATION_WITH_XREF,
                    Class::MalformedStructure,
                    message,
                    at,
                    line_end,
                );
            }
            if self.top().pointer_payload {
                let message = format!("a {tag} line cannot continue a pointer payload");
                let class = Class::MalformedStructure;
                self.diag(codes::CONTINUATION_OF_POINTER, class, message, at, line_end);
            }
            if facts.pointer_payload {
                let message = format!("a {tag} line cannot have a pointer payload");
                let class = Class::NonConformant;
                self.diag(codes::POINTER_IN_CONTINUATION, class, message, at, line_end);
            }
            let line_node = NodeOrToken::Node(self.factory.line_node(children));
            self.top_children().push(line_node);
            self.continuation_level = Some(level);
            return None;
        } else {
            let message =
                format!("this {tag} line does not directly follow the line it would continue");
            self.diag(
                codes::MISPLACED_CONTINUATION,
                Class::MalformedStructure,
                message,
                at,
                line_end,
            );
        }
        Some(children)
    }

    /// A `CONC` line joined to the structure it continues: its split must not be next to whitespace
    /// (R-SERIALISING-STRUCTS-10, -11). `line` is its text, `at` where its level starts.
    fn conc_split(&mut self, line: &str, facts: &LineFacts, at: usize, line_end: usize) {
        let first = facts
            .payload_start
            .and_then(|p| line.get(p..))
            .and_then(|payload| payload.chars().next());
        let after = first.is_some_and(is_space);
        // The diacritic marks what starts this line: a letter (or another diacritic, stacked), not nothing, a
        // space or an `@` (found by a helper: moving the split then left a diacritic before a space, which
        // reads as another encoding).
        if self.payload_mark && first.is_some_and(|c| !is_space(c) && c != '@') {
            self.diag(
                codes::CONC_AFTER_DIACRITIC,
                Class::Warning,
                "the line before this `CONC` line ends with an ANSEL diacritic, which marks the letter this \
                 line starts with: readers that decode each line alone put it on no letter, or on the line \
                 break",
                at,
                line_end,
            );
        }
        let message = match (self.payload_space, after) {
            (false, false) => return,
            (true, false) => "the line before this `CONC` line ends with whitespace",
            (false, true) => "this `CONC` line's text starts with whitespace",
            (true, true) => "this `CONC` line splits the text between two whitespace characters",
        };
        let message = format!(
            "{message}, which readers that trim lines lose (a `CONC` split belongs between two other characters)"
        );
        self.diag(
            codes::CONC_AT_WHITESPACE,
            Class::Warning,
            message,
            at,
            line_end,
        );
    }

    /// Notes whether the payload of `line`, just read, ends with whitespace or, in ANSEL, a diacritic (blank
    /// lines and the empty line of an LF CR pair are not lines of a payload: they leave the notes as they
    /// were).
    pub(super) fn note_payload_end(&mut self, line: &str) {
        if line.trim_start_matches([' ', '\t']).is_empty() {
            return;
        }
        // ANSEL decodes each diacritic octet to its combining character, where it was written: before its
        // letter (only a payload holds one).
        self.payload_mark = self.encoding == Encoding::Ansel
            && line
                .chars()
                .next_back()
                .is_some_and(|c| ansel::stacking(c).is_some());
        // Lexed again only when the line ends with whitespace (rare): the payload is then not empty.
        self.payload_space = line.ends_with(is_space)
            && matches!(
                lex_line(line, &mut Vec::new()),
                LineShape::Line(facts) if facts.payload_start.is_some_and(|p| p < line.len())
            );
    }

    /// The checks of a `TRLR` line (`not_bare`: it has an identifier or a payload), and the count of trailers.
    fn trailer_line(&mut self, level: usize, not_bare: bool, at: usize, line_end: usize) {
        if level > 0 {
            self.diag(
                codes::MISPLACED_TRAILER,
                Class::MalformedStructure,
                "TRLR is only allowed at level 0",
                at,
                line_end,
            );
        } else {
            if not_bare {
                self.diag(
                    codes::NON_EMPTY_TRAILER,
                    Class::MalformedStructure,
                    "the trailer line must be exactly `0 TRLR`",
                    at,
                    line_end,
                );
            }
            self.trailer_seen = true;
            self.trailers += 1;
        }
    }

    /// A line whose text is that of a cached structure's first line: the same checks a well-formed line of that
    /// text gets, then a structure that holds the cached one until its own children are known (see
    /// [`Parser::well_formed_line`] for which lines are cached).
    pub(super) fn cached_line(
        &mut self,
        start: usize,
        line_end: usize,
        facts: CachedFacts,
        template: Template,
        key: Option<LineKey>,
    ) {
        let level = facts.level;
        self.check_level(level, start, line_end);
        self.close_from(level);
        let mut frame = Frame::for_line(level, template.first_len);
        frame.pointer_payload = facts.pointer_payload;
        frame.shared = Some(template.node);
        frame.from_cache = true;
        // A leaf from a template that is not one is worth caching in its place.
        frame.shareable = key;
        self.open(frame, &mut Vec::new());
    }

    /// Everything after the trailer line, kept as trailing text.
    pub(super) fn trailing_text(&mut self, pos: usize) {
        self.close_from(0);
        let rest = &self.text[pos..];
        if after_trailer::is_dos_end_of_file(rest) {
            self.diag(
                codes::JUNK_AFTER_TRAILER,
                Class::Warning,
                "a DOS end-of-file mark (Ctrl-Z) after the trailer; it and what follows it are ignored",
                pos,
                self.text.len(),
            );
        } else {
            self.diag(
                codes::CONTENT_AFTER_TRAILER,
                Class::MalformedStructure,
                "content after the trailer line",
                pos,
                self.text.len(),
            );
        }
        self.consumed_rest = true;
        self.trailing = true;
        // One token: trailing text keeps undecodable octets as raw characters inside it (the writer turns them
        // back into their octets), so binary junk costs no token per run of raw octets.
        if !rest.is_empty() {
            let token = self.factory.token(SyntaxKind::TrailingText, rest);
            self.top_children().push(NodeOrToken::Token(token));
        }
    }
}
