//! Diagnostics: what is wrong with the input, where, and how badly.
//!
//! Diagnostics live beside the tree, never in it. Each has a stable kebab-case [`code`](Diagnostic::code), a
//! [`Class`] following the 2019 draft's error classes, and a position in the *original file*: byte offsets in
//! the input octets and a 1-based line and column.
//!
//! A run of problems of one code on neighbouring lines (a thousand blank lines, a line of undecodable octets
//! after another) is one diagnostic with a [`count`](Diagnostic::count): the first of the run gives its
//! position and message, [`last_line`](Diagnostic::last_line) the line of the last. So a file of blank lines costs
//! one diagnostic, not one per line (memory stays within a few octets per line whatever the input).

pub use crate::message::Message;
use std::fmt;
use text_size::{TextRange, TextSize};

/// The 2019 draft's classes of problems (§ Parsing lines, § Errors in structures).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// A line that does not match the `Line` production; a strict ELF parser stops.
    MalformedLine,
    /// Lines that do not assemble into valid structures; a strict ELF parser stops.
    MalformedStructure,
    /// A non-conformant structure or source; the parser must stop or warn.
    NonConformant,
    /// Allowed input that is worth knowing about.
    Warning,
}

impl Class {
    /// The class's name in JSON output: `malformed-line`, `malformed-structure`, `non-conformant-structure`,
    /// `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::MalformedLine => "malformed-line",
            Class::MalformedStructure => "malformed-structure",
            Class::NonConformant => "non-conformant-structure",
            Class::Warning => "warning",
        }
    }

    /// The severity of problems in this class.
    pub fn severity(self) -> Severity {
        match self {
            Class::Warning => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The input is not conformant.
    Error,
    /// The input is allowed but questionable.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// Where a diagnostic points in the original file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// Byte offset in the input octets.
    pub offset: usize,
    /// 1-based line number (line breaks per the 2019 draft: LF, CR LF, CR).
    pub line: usize,
    /// 1-based column, counted in characters (a raw octet counts as one).
    pub column: usize,
}

impl Default for Location {
    /// The start of the file: offset 0, line 1, column 1 (lines and columns are 1-based).
    fn default() -> Location {
        Location {
            offset: 0,
            line: 1,
            column: 1,
        }
    }
}

/// One problem found in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// A stable kebab-case code (see [`codes`](crate::codes)).
    pub code: &'static str,
    /// The draft's class of the problem.
    pub class: Class,
    /// A sentence for the user (shared with the diagnostics before it of the same code that say the same).
    pub message: Message,
    /// The range in the tree's text.
    pub range: TextRange,
    /// Where the range starts in the original file.
    pub location: Location,
    /// Where the range ends in the original file (byte offset in the input octets).
    pub end_offset: usize,
    /// How many problems this diagnostic stands for: 1, or the length of a run of problems of this code on
    /// neighbouring lines (each on the line of the one before or the next line), of which this is the first.
    pub count: u32,
    /// The 1-based line of the last problem of the run (`location.line` when `count` is 1).
    pub last_line: usize,
    /// Where the last problem of the run starts in the tree's text.
    last_start: TextSize,
}

impl Diagnostic {
    /// A diagnostic whose location is filled in later, when the parse result is assembled (until then it
    /// points at the start of the file: line 1, column 1). Text the message quotes from the file is made
    /// printable: a control character shows as `\x1B` (an escape sequence must not act on the terminal of
    /// whoever reads the report) and an undecodable octet as `\xE9`, as the review diff and the source snippets
    /// show them.
    ///
    /// ```
    /// use gedgraft_syntax::{Class, Diagnostic, TextRange};
    /// let d = Diagnostic::new("bad-level", Class::MalformedLine, "`1\u{1b}[2J` is not a level", TextRange::default());
    /// assert_eq!(d.message, "`1\\x1B[2J` is not a level");
    /// assert_eq!((d.location.line, d.location.column, d.last_line), (1, 1, 1)); // 1-based even before it is placed
    /// ```
    pub fn new(
        code: &'static str,
        class: Class,
        message: impl Into<String>,
        range: TextRange,
    ) -> Diagnostic {
        let message = Message::shared(code, printable(message.into()));
        Diagnostic {
            code,
            class,
            message,
            range,
            location: Location::default(),
            end_offset: 0,
            count: 1,
            last_line: 1,
            last_start: range.start(),
        }
    }

    /// Whether `other`, on this run's line or the next, is one more problem like this one, so that the two are
    /// shown as one run with this one's message: the same code and class. The messages of one code differ in
    /// what they quote, and share the code's help and repair, except `bad-level`'s: a level with a leading zero
    /// is not like a line that has no level (`x1 BIRT`, a broken note line), so those runs also need the same
    /// message up to its first quote or number.
    pub(crate) fn is_like(&self, other: &Diagnostic) -> bool {
        self.code == other.code
            && self.class == other.class
            && (self.code != crate::codes::BAD_LEVEL
                || fixed_part(&self.message) == fixed_part(&other.message))
    }

    /// Counts `other`, a problem of the same code that follows this run, as one more of the run.
    pub(crate) fn absorb(&mut self, other: &Diagnostic) {
        self.count = self.count.saturating_add(other.count);
        self.last_start = other.last_start;
    }

    /// Counts one more problem of this run, starting at `start` (after every other one).
    pub(crate) fn count_one_more(&mut self, start: TextSize) {
        self.count = self.count.saturating_add(1);
        self.last_start = start;
    }

    /// Makes this the first of a run of `count` problems, the last of which starts at `last_start`.
    pub(crate) fn run_of(&mut self, count: u32, last_start: TextSize) {
        self.count = count.max(1);
        self.last_start = last_start;
    }

    /// Where the last problem of the run starts in the tree's text (`range.start()` when `count` is 1).
    pub fn last_start(&self) -> TextSize {
        self.last_start
    }

    /// For a run (`count` > 1), what the human output adds: `and 4 more like this on lines 7–11` (or `on line 7`
    /// when the run is on one line); `None` for a single problem.
    pub fn run_note(&self) -> Option<String> {
        if self.count <= 1 {
            return None;
        }
        let (first, last) = (self.location.line, self.last_line.max(self.location.line));
        let lines = if first == last {
            format!("on line {first}")
        } else {
            format!("on lines {first}\u{2013}{last}")
        };
        Some(format!("and {} more like this {lines}", self.count - 1))
    }

    /// The severity, from the class.
    pub fn severity(&self) -> Severity {
        self.class.severity()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}[{}]: {}",
            self.location.line,
            self.location.column,
            self.severity().as_str(),
            self.code,
            self.message
        )
    }
}

/// `message` with control characters (tab excepted) as `\x1B` and undecodable octets as `\xE9`: text from a
/// file made safe to print on a terminal.
pub fn printable(message: String) -> String {
    if !message.chars().any(needs_escaping) {
        return message;
    }
    let mut out = String::with_capacity(message.len() + 8);
    message.chars().for_each(|c| push_printable(c, &mut out));
    out
}

/// Whether [`push_printable`] shows `c` as an escape.
fn needs_escaping(c: char) -> bool {
    (c != '\t' && c.is_control()) || gedgraft_encoding::raw::to_octet(c).is_some()
}

/// Appends `c` as [`printable`] shows it: an undecodable octet as `\xE9`, a control character other than tab
/// as `\x1B` (an escape sequence must not act on the reader's terminal), any other character as itself.
pub fn push_printable(c: char, out: &mut String) {
    use std::fmt::Write;
    match gedgraft_encoding::raw::to_octet(c) {
        Some(octet) => {
            let _ = write!(out, "\\x{octet:02X}");
        }
        None if needs_escaping(c) => {
            let _ = write!(out, "\\x{:02X}", u32::from(c));
        }
        None => out.push(c),
    }
}

/// The start of a message before the first thing it quotes or counts: what all messages about one kind of
/// problem share.
fn fixed_part(message: &str) -> &str {
    let end = message.find(|c: char| c == '`' || c.is_ascii_digit());
    &message[..end.unwrap_or(message.len())]
}

/// Sorts `diagnostics` by where they start, stably and in place: a cycle walk of swaps, no second vector of
/// them nor a sort's scratch buffer of half of them (a record can have a diagnostic on every other line, #12).
/// `None` if they were in order already (as a rule), else the order: at each position, the index it came from.
pub(crate) fn sort_by_start(diagnostics: &mut [Diagnostic]) -> Option<Vec<usize>> {
    if diagnostics.is_sorted_by_key(|d| d.range.start()) {
        return None;
    }
    let mut order: Vec<usize> = (0..diagnostics.len()).collect();
    order.sort_by_key(|&i| diagnostics.get(i).map(|d| d.range.start()));
    // Position `k` takes the diagnostic at `order[k]`: each cycle of the permutation is walked once.
    let mut done = vec![false; order.len()];
    for k in 0..order.len() {
        let mut j = k;
        while !done[j] {
            done[j] = true;
            let from = order[j];
            if from == k {
                break;
            }
            diagnostics.swap(j, from);
            j = from;
        }
    }
    Some(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(start: u32, message: &str) -> Diagnostic {
        let range = TextRange::at(start.into(), 1.into());
        Diagnostic::new("c", Class::Warning, message, range)
    }

    /// A file can have a diagnostic on every other line (#12): one takes 88 octets beside the tree (the
    /// message a pointer to a text shared by the diagnostics that say the same).
    #[test]
    fn a_diagnostic_is_small() {
        assert!(std::mem::size_of::<Diagnostic>() <= 88);
    }

    /// Diagnostics out of order are sorted by start, those that start together kept in the order they came
    /// (as a stable sort keeps them), and the order says where each came from.
    #[test]
    fn diagnostics_are_sorted_stably_in_place() {
        let mut sorted = vec![at(1, "a"), at(2, "b"), at(2, "c")];
        assert_eq!(sort_by_start(&mut sorted), None);
        let starts = [5, 1, 5, 3, 1, 0, 5, 2, 3, 0];
        let mut diagnostics: Vec<Diagnostic> = (starts.iter().enumerate())
            .map(|(i, &s)| at(s, &i.to_string()))
            .collect();
        let mut expected = diagnostics.clone();
        expected.sort_by_key(|d| d.range.start());
        let order = sort_by_start(&mut diagnostics).expect("out of order");
        assert_eq!(diagnostics, expected);
        let came_from: Vec<usize> = (diagnostics.iter())
            .map(|d| d.message.parse().expect("an index"))
            .collect();
        assert_eq!(order, came_from);
    }
}
