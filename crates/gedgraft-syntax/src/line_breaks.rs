//! The line-break forms of a file's lines, and the one `mixed-line-breaks` warning of a file that uses more than
//! one of LF, CR LF and CR. Each form is a line break (R-LINE-STRINGS-01), so the file reads the same; but
//! tools that split on one form (diff, grep, many genealogy programs) see stray CRs or one long line, and an
//! editor cannot tell which form a new line should get. The repair converts every break to the file's
//! majority form ([`Tally::majority`]).
//!
//! An LF directly followed by a lone CR (an LF CR pair, `lf-cr-line-breaks`, R-LINE-STRINGS-02) counts as
//! neither form: it is one break written the GEDCOM 5.5.1 way, and has its own diagnostic. Only the breaks of
//! lines count: text after the trailer is not read as lines.
//!
//! The parser tallies the lines it reads ([`Tally::add`]); the chunks of a parse (and the batches of a stream,
//! [`crate::stream::FileWide`]) are joined with [`Tally::append`]; the repair tallies the line-break tokens of
//! a tree with the same rule.

use crate::codes;
use crate::diagnostic::{Class, Diagnostic};
use crate::line_cursor::LineBreak;

/// Where a break is: its offset (in the text, or in the file for a stream's tally) and its 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    /// The offset of the break's first character.
    pub offset: usize,
    /// The 1-based line the break ends, counted from the start of the tallied text.
    pub line: u64,
}

/// The breaks of one form: how many, the first and the last.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Form {
    count: u64,
    first: Option<Seen>,
    last: Option<Seen>,
}

/// The forms in a fixed order: LF, CR LF, CR.
const FORMS: [LineBreak; 3] = [LineBreak::Lf, LineBreak::CrLf, LineBreak::Cr];

fn slot(form: LineBreak) -> usize {
    match form {
        LineBreak::Lf => 0,
        LineBreak::CrLf => 1,
        LineBreak::Cr => 2,
    }
}

/// How many line breaks of each form a text's lines end with (LF CR pairs counted as neither), where the first
/// and last of each are, and how many breaks there were in all (pairs as two, as lines are numbered).
///
/// ```
/// use gedgraft_syntax::{internal::line_breaks::Tally, LineBreak};
/// let mut tally = Tally::default();
/// // `0D 0A … 0D … 0A` (R-LINE-STRINGS-01): CR LF, then CR, then LF.
/// let text = "0 HEAD\r\n1 CHAR UTF-8\r0 TRLR\n";
/// tally.add("\r\n", 6);
/// tally.add("\r", 20);
/// tally.add("\n", 27);
/// tally.finish();
/// assert_eq!(tally, Tally::of_breaks(text));
/// assert_eq!(tally.count(LineBreak::Cr), 1);
/// assert!(tally.is_mixed());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    forms: [Form; 3],
    /// Breaks seen, LF CR pairs as two: the line of the next break is one more.
    breaks: u64,
    /// An LF not counted yet: a lone CR right after it makes an LF CR pair.
    pending_lf: Option<Seen>,
}

impl Tally {
    /// Counts the break `text` (LF, CR LF or CR; anything else, the empty text of a last line without a break
    /// included, is not a break) that starts at `offset`. Call [`Tally::finish`] after the last.
    pub fn add(&mut self, text: &str, offset: usize) {
        let Some(form) = LineBreak::of(text) else {
            return;
        };
        self.breaks += 1;
        let seen = Seen {
            offset,
            line: self.breaks,
        };
        match self.pending_lf.take() {
            // The empty line between the LF and the CR of a pair: neither is counted.
            Some(lf) if form == LineBreak::Cr && lf.offset + 1 == offset => return,
            Some(lf) => self.record(LineBreak::Lf, lf),
            None => {}
        }
        if form == LineBreak::Lf {
            self.pending_lf = Some(seen);
        } else {
            self.record(form, seen);
        }
    }

    fn record(&mut self, form: LineBreak, seen: Seen) {
        let f = &mut self.forms[slot(form)];
        f.count += 1;
        f.first.get_or_insert(seen);
        f.last = Some(seen);
    }

    /// Counts an LF still waiting for a CR: the text has ended.
    pub fn finish(&mut self) {
        if let Some(lf) = self.pending_lf.take() {
            self.record(LineBreak::Lf, lf);
        }
    }

    /// The tally of every line break of `text` (for tests and small texts: the parser tallies as it goes).
    pub fn of_breaks(text: &str) -> Tally {
        let mut tally = Tally::default();
        let mut at = 0;
        while at < text.len() {
            let end = crate::line_cursor::line_end(text.as_bytes(), at);
            tally.add(&text[end.content_end..end.next_start], end.content_end);
            at = end.next_start;
        }
        tally.finish();
        tally
    }

    /// The tally of the line-break tokens of a tree (the lines' breaks, as the parser tallied them), in one
    /// walk over its tokens.
    ///
    /// ```
    /// use gedgraft_syntax::{internal::line_breaks::Tally, LineBreak};
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\r\n0 TRLR\n\nnot\rlines\n");
    /// let tally = Tally::of_tree(parse.green());
    /// // The text after the trailer is not lines: its breaks are not counted.
    /// assert_eq!((tally.count(LineBreak::CrLf), tally.count(LineBreak::Lf), tally.count(LineBreak::Cr)), (1, 1, 0));
    /// ```
    pub fn of_tree(root: &rowan::GreenNodeData) -> Tally {
        let mut tally = Tally::default();
        let mut offset = 0;
        for t in crate::green_walk::green_tokens(root) {
            if t.kind() == crate::SyntaxKind::LineBreak.into() {
                tally.add(t.text(), offset);
            }
            offset += t.text().len();
        }
        tally.finish();
        tally
    }

    /// Adds the tally of the text that follows this one's, whose offsets become `offset(o)` and whose lines
    /// come after `lines_before` lines.
    pub fn append(&mut self, later: &Tally, offset: impl Fn(usize) -> usize, lines_before: u64) {
        let shift = |s: Seen| Seen {
            offset: offset(s.offset),
            line: s.line + lines_before,
        };
        for (f, l) in self.forms.iter_mut().zip(&later.forms) {
            f.count += l.count;
            if f.first.is_none() {
                f.first = l.first.map(shift);
            }
            if l.last.is_some() {
                f.last = l.last.map(shift);
            }
        }
        self.breaks = lines_before + later.breaks;
    }

    /// How many breaks of `form` there are (outside LF CR pairs).
    pub fn count(&self, form: LineBreak) -> u64 {
        self.forms[slot(form)].count
    }

    /// How many breaks there are in all, LF CR pairs as two (the number of lines that end with a break).
    pub fn breaks(&self) -> u64 {
        self.breaks
    }

    /// Whether more than one form is used.
    pub fn is_mixed(&self) -> bool {
        self.forms.iter().filter(|f| f.count > 0).count() > 1
    }

    /// The most common form: LF or CR when it outnumbers the others, otherwise CR LF (also when there is
    /// no break outside LF CR pairs; ties go to CR LF, then LF).
    ///
    /// ```
    /// use gedgraft_syntax::{internal::line_breaks::Tally, LineBreak};
    /// assert_eq!(Tally::of_breaks("a\n\rb\n\rc\n").majority(), LineBreak::Lf, "pairs count as neither");
    /// assert_eq!(Tally::of_breaks("a\n\rb\n\r").majority(), LineBreak::CrLf);
    /// assert_eq!(Tally::of_breaks("a\rb\rc\r\n").majority(), LineBreak::Cr);
    /// assert_eq!(Tally::of_breaks("a\nb\r\n").majority(), LineBreak::CrLf);
    /// ```
    pub fn majority(&self) -> LineBreak {
        let [lf, crlf, cr] = self.forms.map(|f| f.count);
        if lf > crlf && lf >= cr {
            LineBreak::Lf
        } else if cr > crlf && cr > lf {
            LineBreak::Cr
        } else {
            LineBreak::CrLf
        }
    }

    /// For a mixed file: the first and the last break that is not of the majority form, and how many there are.
    pub fn minority(&self) -> Option<(Seen, LineBreak, Seen, u64)> {
        if !self.is_mixed() {
            return None;
        }
        let majority = slot(self.majority());
        let others = || {
            (self.forms.iter().zip(FORMS).enumerate())
                .filter(move |(i, _)| *i != majority)
                .map(|(_, f)| f)
        };
        let (first, form) = others()
            .filter_map(|(f, form)| Some((f.first?, form)))
            .min_by_key(|(s, _)| s.offset)?;
        let last = others()
            .filter_map(|(f, _)| f.last)
            .max_by_key(|s| s.offset)?;
        let count = others().map(|(f, _)| f.count).sum();
        Some((first, form, last, count))
    }

    /// The `mixed-line-breaks` diagnostic of a text with this tally (its offsets in the text), at its first
    /// break that is not of the majority form, counting every such break.
    pub(crate) fn diagnostic(&self) -> Option<Diagnostic> {
        let (first, _, last, _) = self.minority()?;
        self.diagnostic_at(first.offset, last.offset)
    }

    /// The `mixed-line-breaks` diagnostic of a file with this tally, placed at text offset `at` (where the
    /// first break not of the majority form is in the text at hand), the run's last break at `last_start`.
    pub(crate) fn diagnostic_at(&self, at: usize, last_start: usize) -> Option<Diagnostic> {
        let (_, form, _, count) = self.minority()?;
        let range = crate::parser::range(at, at + form.as_str().len());
        let message = self.message();
        let mut d = Diagnostic::new(codes::MIXED_LINE_BREAKS, Class::Warning, message, range);
        let last_start = crate::parser::range(last_start, last_start).start();
        d.run_of(u32::try_from(count).unwrap_or(u32::MAX), last_start);
        Some(d)
    }

    fn message(&self) -> String {
        let name = LineBreak::name;
        let counts: Vec<String> = (FORMS.iter())
            .filter(|&&form| self.count(form) > 0)
            .map(|&form| format!("{} {}", self.count(form), name(form)))
            .collect();
        let majority = self.majority();
        format!(
            "line breaks of more than one form ({}): this is the first that is not {}",
            counts.join(", "),
            majority.name(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_line_strings_01_spec_example_is_mixed_at_the_first_minority_break() {
        // `… 0D 0A … 0D … 0A` (CR LF, then CR, then LF): one of each, so CR LF wins the tie.
        let tally = Tally::of_breaks("a\r\nb\rc\n");
        assert_eq!(tally.majority(), LineBreak::CrLf);
        let (first, form, last, count) = tally.minority().unwrap();
        assert_eq!((first.offset, first.line, form), (4, 2, LineBreak::Cr));
        assert_eq!((last.offset, last.line, count), (6, 3, 2));
    }

    #[test]
    fn one_form_or_lf_cr_pairs_are_not_mixed() {
        assert!(!Tally::of_breaks("a\nb\nc").is_mixed());
        assert!(!Tally::of_breaks("a\r\nb\r\n").is_mixed());
        assert!(
            !Tally::of_breaks("a\n\rb\n\r").is_mixed(),
            "LF CR pairs only"
        );
        assert!(!Tally::of_breaks("a\n\rb\n").is_mixed(), "a pair and an LF");
        assert!(Tally::of_breaks("a\n\r\nb\n").is_mixed(), "LF, then CR LF");
    }

    #[test]
    fn a_parse_in_chunks_gives_the_one_diagnostic_of_a_parse_in_one() {
        use crate::parser::{chunk_starts, parse_chunks};
        let mut text = String::from("0 HEAD\r\n");
        for i in 0..40 {
            let brk = if i % 10 == 3 { "\n" } else { "\r\n" };
            text.push_str(&format!("0 @I{i}@ INDI{brk}1 NAME A{brk}"));
        }
        text.push_str("0 TRLR\r");
        let utf8 = gedgraft_encoding::Encoding::Utf8;
        let one = parse_chunks(&text, utf8, &[0]);
        let many = parse_chunks(&text, utf8, &chunk_starts(text.as_bytes(), 4));
        assert_eq!(one.diagnostics, many.diagnostics);
        let d = &one.diagnostics[..];
        assert_eq!(
            (d.len(), d[0].code, d[0].count),
            (1, codes::MIXED_LINE_BREAKS, 9)
        );
        assert_eq!(
            d[0].message,
            "line breaks of more than one form (8 LF, 73 CR LF, 1 CR): this is the first that is not CR LF"
        );
    }

    #[test]
    fn append_shifts_the_later_text() {
        let mut whole = Tally::of_breaks("a\nb\n");
        whole.append(&Tally::of_breaks("c\r\nd\n"), |o| o + 4, 2);
        assert_eq!(whole, Tally::of_breaks("a\nb\nc\r\nd\n"));
    }
}
