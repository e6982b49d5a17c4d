//! The human output of `gedgraft check`, like rustc's: each diagnostic with the record it is in, its source line
//! and a caret, a `= help:` line and a pointer to `gedgraft explain` the first time a code is shown, then what
//! was left out and a summary.
//!
//! A flood of one code shows its first [`SHOWN_PER_CODE`] diagnostics and a count of the rest (`--all` shows
//! them all). The report is handed on in pieces as it is written, and each diagnostic costs the length of what
//! is shown plus a logarithm of the file's lines and records.

use crate::input::Loaded;
use crate::record::Records;
use crate::style::Palette;
use gedgraft_model::codes::LINES_LEFT_OUT;
use gedgraft_syntax::encoding::{ansel, raw, Encoding};
use gedgraft_syntax::{Diagnostic, Parse, Severity, TextRange};
use std::fmt::Write;
use std::path::Path;

/// How many diagnostics of one code are shown without `--all`.
pub const SHOWN_PER_CODE: usize = 5;
/// Output is handed on in pieces of about this size.
const PIECE: usize = 1 << 16;

/// What the human report shows.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Leave out warnings (they are still counted in the summary).
    pub no_warnings: bool,
    /// Show every diagnostic, not only the first [`SHOWN_PER_CODE`] of each code.
    pub all: bool,
    /// The colours.
    pub palette: Palette,
}

/// How many diagnostics of one code were shown, and how many problems of it were left out.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Tally {
    code: &'static str,
    severity: Severity,
    shown: usize,
    left_out: u64,
}

/// Writes the human report of one file through `emit`: each diagnostic, what was left out, the `--strict`
/// note and the summary.
pub fn report(
    loaded: &Loaded,
    diagnostics: &[&Diagnostic],
    stopped: Option<&Diagnostic>,
    options: &Options,
    mut emit: impl FnMut(&str) -> Result<(), String>,
) -> Result<(), String> {
    let mut report = Report::new(options);
    let mut records = Records::new(&loaded.parse);
    let repairs = gedgraft_edit::repairs(&loaded.parse, diagnostics);
    report.add(
        &loaded.path,
        (&loaded.parse, &mut records),
        (diagnostics, &repairs),
        &mut emit,
    )?;
    report.finish(&loaded.path, loaded.parse.encoding(), stopped, emit)
}

/// The human report of one file, written as its diagnostics come (all at once, or batch by batch when the
/// file is streamed): the counts and the codes shown so far carry over.
pub struct Report<'o> {
    options: &'o Options,
    out: String,
    counts: Counts,
}

/// What a human report counted so far: what the rest of its text depends on (which codes it showed, how many
/// of each) and what its summary says. A few dozen octets a code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    errors: u64,
    warnings: u64,
    /// One entry per code met, in order of first appearance (a few dozen codes at most).
    tallies: Vec<Tally>,
    /// How many diagnostics have a repair.
    fixable: crate::repair::Fixable,
}

impl Counts {
    fn tally(&self, code: &str) -> Option<&Tally> {
        self.tallies.iter().find(|t| t.code == code)
    }

    /// Whether a report with these counts writes what follows as one with `other`'s does, given `end`: what
    /// that report counted at its end, after `other`. A code shown as often (up to the limit) in both, or
    /// one that report meets no more, writes its diagnostics the same.
    pub fn writes_on_as(&self, other: &Counts, end: &Counts, options: &Options) -> bool {
        let shown = |counts: &Counts, code: &str| {
            let shown = counts.tally(code).map_or(0, |t| t.shown);
            match options.all {
                true => shown.min(1),
                false => shown.min(SHOWN_PER_CODE),
            }
        };
        let same = |code: &str| {
            shown(self, code) == shown(other, code) || other.tally(code) == end.tally(code)
        };
        (self.tallies.iter().chain(&other.tallies)).all(|t| same(t.code))
    }

    /// These counts, then what a report counted from `from` to `end` (later counts of the same report): the
    /// counts of a report that [`writes_on_as`](Counts::writes_on_as) that one from `from` on.
    pub fn then(&self, from: &Counts, end: &Counts) -> Counts {
        let more = |at_end: u64, before: u64| at_end.saturating_sub(before);
        let mut counts = Counts {
            errors: self.errors + more(end.errors, from.errors),
            warnings: self.warnings + more(end.warnings, from.warnings),
            tallies: self.tallies.clone(),
            fixable: crate::repair::Fixable {
                safe: self.fixable.safe + more(end.fixable.safe, from.fixable.safe),
                unsafe_: self.fixable.unsafe_ + more(end.fixable.unsafe_, from.fixable.unsafe_),
            },
        };
        for t in &end.tallies {
            let (shown, left_out) = from.tally(t.code).map_or((0, 0), |f| (f.shown, f.left_out));
            let (shown, left_out) = (t.shown.saturating_sub(shown), more(t.left_out, left_out));
            match counts.tallies.iter_mut().find(|c| c.code == t.code) {
                Some(c) => {
                    c.shown += shown;
                    c.left_out += left_out;
                }
                None => counts.tallies.push(Tally {
                    shown,
                    left_out,
                    ..t.clone()
                }),
            }
        }
        counts
    }
}

impl<'o> Report<'o> {
    /// An empty report.
    pub fn new(options: &'o Options) -> Report<'o> {
        Report::with_counts(options, Counts::default())
    }

    /// A report that goes on from `counts` (those of an earlier report, [`Report::counts`]).
    pub fn with_counts(options: &'o Options, counts: Counts) -> Report<'o> {
        Report {
            options,
            out: String::with_capacity(PIECE + 4096),
            counts,
        }
    }

    /// What the report counted so far.
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// Counts from here on as if the report had counted `counts` so far.
    pub fn set_counts(&mut self, counts: Counts) {
        self.counts = counts;
    }

    /// What the report shows.
    pub fn options(&self) -> &Options {
        self.options
    }

    /// The text written and not yet handed on: it comes before what follows.
    pub fn unsent(&self) -> &str {
        &self.out
    }

    /// Hands on the text written so far.
    pub fn send(
        &mut self,
        emit: &mut impl FnMut(&str) -> Result<(), String>,
    ) -> Result<(), String> {
        if !self.out.is_empty() {
            emit(&self.out)?;
            self.out.clear();
        }
        Ok(())
    }

    /// Adds the diagnostics (in file order) of `parse`, a file or one batch of it, whose records `records`
    /// finds, with the repair of each (`repairs`, in the same order).
    pub fn add(
        &mut self,
        path: &Path,
        (parse, records): (&Parse, &mut Records<'_>),
        (diagnostics, repairs): (&[&Diagnostic], &[Option<gedgraft_edit::Repair>]),
        emit: &mut impl FnMut(&str) -> Result<(), String>,
    ) -> Result<(), String> {
        let options = self.options;
        let mut rest = diagnostics;
        while let Some((&d, after)) = rest.split_first() {
            let repair = repairs
                .get(diagnostics.len() - rest.len())
                .and_then(Option::as_ref);
            rest = after;
            // The summary counts problems, not diagnostics: a run of one code counts each of its lines.
            let n = u64::from(d.count.max(1));
            match d.severity() {
                Severity::Error => self.counts.errors += n,
                Severity::Warning => self.counts.warnings += n,
            }
            // What the lowering left out because of this line is a note of its diagnostic, not one of its own.
            let left_out = rest
                .iter()
                .take_while(|l| l.code == LINES_LEFT_OUT && l.range.start() == d.range.start())
                .count();
            let (notes, after_notes) = rest.split_at(left_out);
            if d.code != LINES_LEFT_OUT {
                rest = after_notes;
                self.counts.warnings +=
                    notes.iter().map(|l| u64::from(l.count.max(1))).sum::<u64>();
            }
            let notes = if d.code == LINES_LEFT_OUT || options.no_warnings {
                &[][..]
            } else {
                notes
            };
            if options.no_warnings && d.severity() == Severity::Warning {
                continue;
            }
            // Fixable diagnostics are counted whether shown or left out, as long as their kind is reported.
            if let Some(r) = repair {
                self.counts.fixable.count(r);
            }
            let tallies = &mut self.counts.tallies;
            let index = match tallies.iter().position(|t| t.code == d.code) {
                Some(i) => i,
                None => {
                    tallies.push(Tally {
                        code: d.code,
                        severity: d.severity(),
                        shown: 0,
                        left_out: 0,
                    });
                    tallies.len() - 1
                }
            };
            let tally = &mut tallies[index];
            if !options.all && tally.shown >= SHOWN_PER_CODE {
                tally.left_out += n;
                continue;
            }
            tally.shown += 1;
            let first = tally.shown == 1;
            diagnostic(
                &mut self.out,
                (path, parse),
                records,
                (d, repair),
                notes,
                first,
                &options.palette,
            );
            if self.out.len() >= PIECE {
                emit(&self.out)?;
                self.out.clear();
            }
        }
        Ok(())
    }

    /// Writes what was left out, the `--strict` note and the summary.
    pub fn finish(
        mut self,
        path: &Path,
        encoding: Encoding,
        stopped: Option<&Diagnostic>,
        mut emit: impl FnMut(&str) -> Result<(), String>,
    ) -> Result<(), String> {
        let pal = &self.options.palette;
        let out = &mut self.out;
        for t in self.counts.tallies.iter().filter(|t| t.left_out > 0) {
            let _ = writeln!(
                out,
                "\u{2026} and {} more {} {}{}; --all shows every one",
                t.left_out,
                t.code,
                t.severity.as_str(),
                crate::words::s(t.left_out),
            );
        }
        if let Some(d) = stopped {
            let loc = d.location;
            let _ = writeln!(
                out,
                "{}note{}: --strict: stopped at the first error ({} at {}:{})",
                pal.label, pal.label, d.code, loc.line, loc.column
            );
        }
        if let Some(line) = self.counts.fixable.summary() {
            let label = pal.label;
            let _ = writeln!(out, "{label}help{label:#}: {line}");
        }
        let (errors, warnings) = (self.counts.errors, self.counts.warnings);
        let _ = writeln!(
            out,
            "{}: {} error{}, {} warning{} (encoding {})",
            crate::output::shown_path(path),
            errors,
            crate::words::s(errors),
            warnings,
            crate::words::s(warnings),
            encoding.name()
        );
        emit(out)
    }
}

/// Appends one diagnostic: its headline, where it is, the source line with carets, `= note:` lines for what
/// the lowering left out because of it (`lines-left-out` diagnostics at the same place), and for the first of
/// its code a `= help:` line and a pointer to `gedgraft explain`.
fn diagnostic(
    out: &mut String,
    (path, parse): (&Path, &Parse),
    records: &mut Records<'_>,
    (d, repair): (&Diagnostic, Option<&gedgraft_edit::Repair>),
    notes: &[&Diagnostic],
    first_of_code: bool,
    pal: &Palette,
) {
    let sev = pal.severity(d.severity());
    let (msg, gut) = (pal.message, pal.gutter);
    let _ = write!(
        out,
        "{sev}{}[{}]{sev:#}{msg}: {}",
        d.severity().as_str(),
        d.code,
        d.message
    );
    if let Some(note) = d.run_note() {
        let _ = write!(out, " ({note})");
    }
    let _ = writeln!(out, "{msg:#}");
    let loc = d.location;
    let number = loc.line.to_string();
    let gutter = " ".repeat(number.len());
    let _ = write!(
        out,
        "{gutter}{gut}-->{gut:#} {}:{}:{} (byte {})",
        crate::output::shown_path(path),
        loc.line,
        loc.column,
        loc.offset
    );
    if let Some(place) = records.place(d.range.start()) {
        let _ = write!(out, ", {place}");
    }
    out.push('\n');
    let snippet = Snippet::of(parse, d.range.start(), d.range);
    let _ = writeln!(out, "{gut}{gutter} |{gut:#}");
    let _ = writeln!(out, "{gut}{number} |{gut:#} {}", snippet.source);
    let _ = writeln!(
        out,
        "{gut}{gutter} |{gut:#} {}{sev}{}{sev:#}",
        " ".repeat(snippet.pad),
        "^".repeat(snippet.width)
    );
    let label = pal.label;
    if !notes.is_empty() {
        let _ = writeln!(out, "{gut}{gutter} |{gut:#}");
    }
    for note in notes {
        let _ = writeln!(
            out,
            "{gut}{gutter} ={gut:#} {label}note{label:#}: {} [{}]",
            note.message, note.code
        );
    }
    if let Some(r) = repair {
        if notes.is_empty() {
            let _ = writeln!(out, "{gut}{gutter} |{gut:#}");
        }
        let _ = writeln!(
            out,
            "{gut}{gutter} ={gut:#} {label}help{label:#}: {}",
            crate::repair::help(r)
        );
    }
    if first_of_code {
        if let Some(entry) = crate::explain::entry(d.code) {
            if notes.is_empty() && repair.is_none() {
                let _ = writeln!(out, "{gut}{gutter} |{gut:#}");
            }
            let _ = writeln!(
                out,
                "{gut}{gutter} ={gut:#} {label}help{label:#}: {}",
                entry.help
            );
            let _ = writeln!(
                out,
                "{gut}{gutter} ={gut:#} {label}note{label:#}: see `gedgraft explain {}`",
                d.code
            );
        }
    }
    out.push('\n');
}

/// Lines whose shown form is up to this many columns are shown whole under a diagnostic; longer ones are cut
/// around what the diagnostic marks, so no line of the report is much longer.
const LONG_LINE: usize = 150;
/// How much of a cut line is shown: at most this many columns before what the diagnostic marks …
const SHOWN_BEFORE: usize = 45;
/// … and of what it marks (the rest of the line fills what is left of [`LONG_LINE`]).
const SHOWN_MARKED: usize = 60;

/// The source line shown under a diagnostic and where its caret goes.
#[derive(Debug, PartialEq, Eq)]
struct Snippet {
    /// The line (or, for a long line, the part around the diagnostic between `…`), printable.
    source: String,
    /// Columns before the caret.
    pad: usize,
    /// Carets: the columns the diagnostic marks on this line, at least one.
    width: usize,
}

/// One character as shown, and how many columns it takes (a combining mark takes none: it sits on the letter
/// before it).
struct Unit {
    text: String,
    columns: usize,
}

impl Snippet {
    /// The snippet of a diagnostic at tree offset `start` that marks `marked`: its line found through the
    /// parse's line index, so each diagnostic costs the length of its line, whatever the number of lines,
    /// siblings or diagnostics. Characters are shown as the review diff shows them: undecodable octets as
    /// `\xE9`, a byte-order mark as `[BOM]`, control characters as `\x1B`, ANSEL in Unicode order; carets count
    /// columns, not characters or octets.
    fn of(parse: &Parse, start: gedgraft_syntax::TextSize, marked: TextRange) -> Snippet {
        let text = parse.text();
        let line = parse.line_range(start);
        let line = usize::from(line.start())..usize::from(line.end());
        let at = floor_boundary(text, usize::from(marked.start())).clamp(line.start, line.end);
        let end = floor_boundary(text, usize::from(marked.end()).clamp(at, line.end));
        let ansel = parse.encoding() == Encoding::Ansel;
        // Only a window of the line is ever shown: look at no more of it than that (a line of megabytes costs
        // the window, not the line). Every character shown takes at most 4 octets of the text.
        let reach = 4 * (LONG_LINE + 1);
        let window_start = ceil_boundary(text, at.saturating_sub(reach).max(line.start));
        let inside_end = floor_boundary(text, end.min(at + reach));
        let window_end = floor_boundary(text, (inside_end + reach).min(line.end)).max(inside_end);
        let before = units(&text[window_start..at], ansel);
        let mut inside = units(&text[at..inside_end], ansel);
        // What follows the marked part, unless the marked part itself was cut.
        let mut after = if inside_end < end {
            Vec::new()
        } else {
            units(&text[inside_end..window_end], ansel)
        };
        let columns = |u: &[Unit]| u.iter().map(|u| u.columns).sum::<usize>();
        let mut source = String::new();
        let (mut cut_before, mut cut_after) = (0, inside_end < end || window_end < line.end);
        let too_long = window_start > line.start || cut_after;
        if too_long || columns(&before) + columns(&inside) + columns(&after) > LONG_LINE {
            let mut kept = 0;
            cut_before = before.len();
            while cut_before > 0 && kept + before[cut_before - 1].columns <= SHOWN_BEFORE {
                cut_before -= 1;
                kept += before[cut_before].columns;
            }
            let mut marked_columns = 0;
            let keep_inside = inside
                .iter()
                .take_while(|u| {
                    marked_columns += u.columns;
                    marked_columns <= SHOWN_MARKED
                })
                .count();
            if keep_inside < inside.len() {
                inside.truncate(keep_inside);
                after.clear();
                cut_after = true;
            }
            let room = LONG_LINE.saturating_sub(kept + columns(&inside));
            let mut used = 0;
            let keep_after = after
                .iter()
                .take_while(|u| {
                    used += u.columns;
                    used <= room
                })
                .count();
            cut_after |= keep_after < after.len();
            after.truncate(keep_after);
        }
        let mut pad = 0;
        if cut_before > 0 || window_start > line.start {
            source.push('\u{2026}');
            pad += 1;
        }
        for u in &before[cut_before..] {
            source.push_str(&u.text);
            pad += u.columns;
        }
        for u in inside.iter().chain(&after) {
            source.push_str(&u.text);
        }
        if cut_after {
            source.push('\u{2026}');
        }
        Snippet {
            source,
            pad,
            width: columns(&inside).max(1),
        }
    }
}

/// The smallest character boundary of `text` at or after `at` (at most its length).
fn ceil_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The largest character boundary of `text` at or before `at` (at most its length).
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `text` as shown (see [`Snippet::of`]; tabs as spaces so the caret lines up), character by character.
fn units(text: &str, ansel: bool) -> Vec<Unit> {
    let reordered;
    let text = if ansel {
        reordered = ansel::to_unicode_order(text);
        reordered.as_str()
    } else {
        text
    };
    text.chars()
        .map(|c| {
            let text = printable(c);
            let columns = if unicode_normalization::char::is_combining_mark(c) {
                0
            } else {
                text.chars().count()
            };
            Unit { text, columns }
        })
        .collect()
}

/// One character as the report shows it: an undecodable octet as `\xE9`, a byte-order mark as `[BOM]`, a tab
/// as a space, another control character as `\x1B`, anything else as itself.
fn printable(c: char) -> String {
    if let Some(octet) = raw::to_octet(c) {
        format!("\\x{octet:02X}")
    } else if c == '\u{FEFF}' {
        "[BOM]".to_string()
    } else if c == '\t' {
        " ".to_string()
    } else if c.is_control() {
        format!("\\x{:02X}", u32::from(c))
    } else {
        c.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::{Snippet, LONG_LINE};
    use gedgraft_syntax::{parse, Diagnostic};

    fn snippets(input: &[u8]) -> Vec<(String, Snippet)> {
        let parse = parse(input);
        let list: Vec<Diagnostic> = parse.diagnostics().to_vec();
        list.iter()
            .map(|d| {
                (
                    d.code.to_string(),
                    Snippet::of(&parse, d.range.start(), d.range),
                )
            })
            .collect()
    }

    /// The line around `at` as the whole text gives it.
    fn from_text(text: &str, at: usize) -> String {
        let start = text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
        let end = text[at..].find(['\n', '\r']).map_or(text.len(), |i| at + i);
        text[start..end].to_string()
    }

    #[test]
    fn short_lines_are_shown_whole_with_the_caret_at_the_column() {
        let input =
            b"0 HEAD\r\n  1 BAD@ line\r\n\r\n1 NOTE a @#x@ c\r2 CONC d\n0 TRLR\r\ntrailing\n";
        let parse = parse(input);
        let text = parse.text();
        for d in parse.diagnostics() {
            let snippet = Snippet::of(&parse, d.range.start(), d.range);
            let at = usize::from(d.range.start());
            let line = from_text(text, at);
            assert_eq!(snippet.source, line.replace('\t', " "), "{}", d.code);
            assert_eq!(snippet.pad, d.location.column - 1, "{}", d.code);
        }
        let codes: Vec<_> = snippets(input).into_iter().map(|(c, _)| c).collect();
        assert!(codes.contains(&"bad-escape".to_string()), "{codes:?}");
    }

    /// A long line shows a window around each diagnostic, so many diagnostics on one line cost their number.
    #[test]
    fn long_lines_are_shown_around_the_diagnostic() {
        let mut input = b"0 HEAD\n1 NOTE ".to_vec();
        input.extend(std::iter::repeat_n(b'a', 70_000));
        input.push(0xFF);
        input.extend(b"tail\n0 TRLR\n");
        let found = snippets(&input);
        let (_, s) = found
            .iter()
            .find(|(c, _)| c == "undecodable-octets")
            .expect("undecodable-octets");
        assert!(
            s.source.starts_with('…') && s.source.ends_with("tail"),
            "{}",
            s.source
        );
        assert!(s.source.chars().count() < LONG_LINE);
        let marked: String = s.source.chars().skip(s.pad).take(s.width).collect();
        assert_eq!(marked, "\\xFF");
    }

    /// Undecodable octets show as the review diff shows them, `\xE9`, and the caret covers the escape.
    #[test]
    fn raw_octets_show_as_escapes_under_the_caret() {
        let found = snippets(b"0 HEAD\n1 CHAR UTF-8\n1 NOTE caf\xE9 au lait\n0 TRLR\n");
        let (_, s) = found
            .iter()
            .find(|(c, _)| c == "undecodable-octets")
            .expect("undecodable-octets");
        assert_eq!(s.source, "1 NOTE caf\\xE9 au lait");
        assert_eq!((s.pad, s.width), (10, 4));
    }
}
