//! `gedgraft fmt`: a file in canonical form, its dataset written back (`lower` + `gedgraft_model::write`).
//!
//! Shown as `fix` shows its edits (the review diff, `--in-place`, `-o`, `--check`). The diff's changed ranges
//! come from a line diff of the two files' octets ([`gedgraft_edit::octet_line_changes`]: the same on every
//! machine, and about linear in the lines when every line changes).

use crate::cli::{FmtArgs, LayoutArgs};
use crate::fix::review_diff;
use crate::write_cmd::{encoding_named, what_write_changes, write_options, write_out};
use crate::{input, output};
use gedgraft_edit::{check_replaceable, Change, LineDiff};
use gedgraft_model::{lower, write_with_report, LineEnding, LowerOptions};
use gedgraft_syntax::encoding::Encoding;
use gedgraft_syntax::{parse_with, Parse, ParseOptions, Severity};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Runs `fmt` over every file.
pub fn run(args: &FmtArgs) -> Result<ExitCode, String> {
    if args.output.is_some() && args.files.len() != 1 {
        return Err("-o/--output takes exactly one input file".into());
    }
    let to = args
        .to_encoding
        .as_deref()
        .map(encoding_named)
        .transpose()
        .map_err(|e| format!("--to-encoding: {e}"))?;
    if args.in_place {
        crate::output::check_in_place_files(&args.files, args.backup.as_deref())?;
    }
    let options = input::options(&args.input)?;
    let (mut failed, mut would_change) = (false, false);
    let mut stdout = std::io::stdout().lock();
    for (i, path) in args.files.iter().enumerate() {
        let refused = match args.reviews() {
            true => crate::output::refuse_later_input_as_output(path, i),
            false => Ok(()),
        };
        match refused.and_then(|()| fmt_file(path, args, to, &options, &mut stdout)) {
            Ok((changed, summary)) => {
                would_change |= changed;
                if !args.quiet {
                    crate::output::say(&summary);
                }
            }
            Err(e) => {
                failed = true;
                crate::output::error(&e);
            }
        }
    }
    let _ = stdout.flush();
    Ok(crate::output::exit_status(
        failed,
        args.check && would_change,
    ))
}

/// Formats one file: whether it changed, and the summary line.
fn fmt_file(
    path: &Path,
    args: &FmtArgs,
    to: Option<Encoding>,
    options: &ParseOptions,
    stdout: &mut impl Write,
) -> Result<(bool, String), String> {
    let name = path.display().to_string();
    if args.in_place && input::is_stdin(path) {
        return Err(
            "cannot format standard input (`-`) in place: write the result with -o OUT or -o -"
                .into(),
        );
    }
    if args.in_place {
        check_replaceable(path).map_err(|e| format!("cannot format {name} in place: {e}"))?;
    }
    // Written or checked: record by record, unless the file needs the whole-file path to tell.
    if let Some(mut done) = crate::stream_fmt::fmt_streamed(path, args, to, options)? {
        for line in &done.told {
            crate::output::say(line);
        }
        if let Some(review) = done.review.take().filter(|_| done.changed) {
            output::write_stdout(stdout, review_diff(&name, &review).as_bytes())?;
        }
        if let Some((stream, file)) = done.spilled.take() {
            // Held until the end: nothing of a file that changed while it was read is written.
            input::unchanged(path)?;
            output::copy_spilled(file, |chunk| output::write_stream(stream, chunk, stdout))?;
        }
        return Ok((
            done.changed,
            summary(&name, args, done.changed, done.removed, done.added),
        ));
    }
    let loaded = input::load_with(path, options)?;
    let parse = &loaded.parse;
    let lowered = lower(parse, &LowerOptions::default());
    if let Some((count, first)) = errors(&lowered.all_diagnostics(parse)) {
        return Err(refusal(&name, count, first));
    }
    let not_written: Vec<String> = (encoding_note(to, parse.encoding(), &args.layout).into_iter())
        .chain(metadata_not_written(parse))
        .collect();
    let encoding = output_encoding(to, parse.encoding(), &args.layout);
    let write_options = write_options(&args.layout, encoding, Some(line_ending_of(parse.text())));
    let original = parse.to_bytes().map_err(|e| format!("{name}: {e}"))?;
    let cuts = record_cuts(parse);
    let utf16 = parse.encoding().is_utf16() || encoding.is_utf16();
    // Where lines do not all end in LF, the lines a change takes are counted on the trees, as the review diff
    // shows them ([`by_octet_lines`]).
    let on_trees = !by_octet_lines(&original, utf16);
    // Only the review diff (and such a count) needs the tree again: otherwise its memory goes to the output.
    let review = args.reviews();
    let loaded = (review || on_trees).then_some(loaded);
    let (octets, report) = write_with_report(&lowered.dataset, &write_options)
        .map_err(|e| format!("{name}: cannot format: {e}"))?;
    let told = what_write_changes(
        &name,
        &report,
        &write_options,
        lowered.dataset.metadata.dialect,
    )
    .map_err(|e| format!("{name}: not formatted: {e}"))?;
    for line in told
        .into_iter()
        .chain(not_written.iter().map(|note| format!("{name}: {note}")))
    {
        crate::output::say(&line);
    }
    drop(lowered);
    let changed = octets != original;
    let (changes, mut removed, mut added) = line_changes(&original, &cuts, &octets, utf16);
    let new_tree = loaded
        .as_ref()
        .filter(|_| changed)
        .map(|_| parse_written(&octets, encoding));
    if let (Some(old), Some(new)) = (loaded.as_ref().filter(|_| on_trees), new_tree.as_ref()) {
        (removed, added) = LineDiff::counts(&old.parse, new, &changes);
    }
    if let Some(out) = &args.output {
        write_out((out, path), &octets, None, stdout)?;
    } else if args.in_place {
        if changed {
            write_out((path, path), &octets, args.backup.as_deref(), stdout)?;
        }
    } else if let (Some(loaded), Some(new)) = (loaded.as_ref(), new_tree.as_ref()) {
        let diff = LineDiff::new(&loaded.parse, new, &changes);
        output::write_stdout(stdout, review_diff(&name, &diff).as_bytes())?;
    }
    input::keep_until_exit(loaded);
    Ok((changed, summary(&name, args, changed, removed, added)))
}

/// The errors among `diagnostics`: how many problems (a run of them is one diagnostic with a count; `check`
/// counts each), and the first; `None` without one.
pub(crate) fn errors<'d>(
    diagnostics: &[&'d gedgraft_syntax::Diagnostic],
) -> Option<(usize, &'d gedgraft_syntax::Diagnostic)> {
    let mut errors = (diagnostics.iter().copied())
        .filter(|d| d.severity() == Severity::Error)
        .peekable();
    let first = *errors.peek()?;
    Some((errors.map(|d| d.count.max(1) as usize).sum(), first))
}

/// Why a file with errors is not formatted: how many (`count`) and the first.
pub(crate) fn refusal(name: &str, count: usize, first: &gedgraft_syntax::Diagnostic) -> String {
    format!(
        "{name}: not formatted: {} error{} (the first on line {}: {}); the dataset leaves malformed lines \
         out, so fix them first (`gedgraft check {name}`)",
        count,
        crate::words::s(count),
        first.location.line,
        first.message
    )
}

/// The summary line of a formatted file.
fn summary(name: &str, args: &FmtArgs, changed: bool, removed: usize, added: usize) -> String {
    if !changed {
        return format!("{name}: unchanged");
    }
    let verb = if args.output.is_some() || args.in_place {
        "formatted"
    } else {
        "would change"
    };
    format!("{name}: {verb}: -{removed} +{added} lines")
}

/// The file's line break: its first one, as the lexer ends a line (LF when it has none).
pub(crate) fn line_ending_of(text: &str) -> LineEnding {
    use gedgraft_syntax::LineBreak;
    match gedgraft_syntax::line_cursor::line_end(text.as_bytes(), 0).form {
        Some(LineBreak::CrLf) => LineEnding::CrLf,
        Some(LineBreak::Cr) => LineEnding::Cr,
        Some(LineBreak::Lf) | None => LineEnding::Lf,
    }
}

/// The octets `fmt` wrote, parsed in the encoding they were written in (for the review diff's lines).
pub(crate) fn parse_written(octets: &[u8], encoding: Encoding) -> Parse {
    let mut force = ParseOptions::default();
    force.detect.force = Some(encoding);
    parse_with(octets, &force)
}

/// Where each record after the first starts in the octets of `parse` (a file, or a batch of whole records).
pub(crate) fn record_cuts(parse: &Parse) -> Vec<usize> {
    use gedgraft_syntax::ast::AstNode;
    let map = parse.source_map();
    (parse.document().records().skip(1))
        .map(|r| map.file_offset(usize::from(r.syntax().text_range().start())))
        .collect()
}

/// The changed octet ranges between a file (`old`, its records after the first starting at `cuts`) and what
/// `fmt` wrote of it, record by record ([`gedgraft_edit::piecewise_line_changes`]: the writer writes a record
/// as a line `0 …` after a line feed, with no blank line or indentation), and how many lines they remove and
/// add; `None` when the records do not pair. The same for the whole file and for each batch of whole records,
/// so the streamed review diff is the whole file's.
pub(crate) fn record_line_changes(
    old: &[u8],
    cuts: &[usize],
    new: &[u8],
) -> Option<(Vec<Change>, usize, usize)> {
    let written: Vec<usize> = (1..new.len())
        .filter(|&i| new[i - 1] == b'\n' && new[i..].starts_with(b"0 "))
        .collect();
    gedgraft_edit::piecewise_line_changes(old, cuts, new, &written)
}

/// Whether the lines of `octets` (a file, or what `fmt` writes of it) are its lines of octets ending in LF, as
/// the review diff shows them: not in UTF-16, nor where a CR ends a line alone (a CR-only or LF CR file), whose
/// lines are counted on the trees instead (the streamed path leaves those to the whole file).
pub(crate) fn by_octet_lines(octets: &[u8], utf16: bool) -> bool {
    !utf16 && !memchr::memchr_iter(b'\r', octets).any(|i| octets.get(i + 1) != Some(&b'\n'))
}

/// The changed octet ranges between a file (its records after the first starting at `cuts`) and what `fmt`
/// wrote, line by line (lines end at LF): record by record where they pair ([`record_line_changes`]), else
/// one diff of the files; and how many lines they remove and add. In UTF-16 an octet `0A` is not a line end:
/// the whole file is one change there.
fn line_changes(
    old: &[u8],
    cuts: &[usize],
    new: &[u8],
    utf16: bool,
) -> (Vec<Change>, usize, usize) {
    if !utf16 || old == new {
        return record_line_changes(old, cuts, new)
            .unwrap_or_else(|| gedgraft_edit::octet_line_changes(old, new));
    }
    let count = |o: &[u8]| o.split_inclusive(|&x| x == b'\n').count();
    let change = Change {
        input: 0..old.len(),
        output: 0..new.len(),
    };
    (vec![change], count(old), count(new))
}

/// The encoding `fmt` writes: `--to-encoding`, else the file's own, unless the dialect `--dialect` asks for
/// does not allow it (GEDCOM 7 allows UTF-8 only, 5.5.5 UTF-8 and UTF-16): then UTF-8, and
/// [`encoding_note`] says so (found by a helper: an ASCII file, UTF-8 already, was refused for GEDCOM 7
/// until `--to-encoding UTF-8` was given).
pub(crate) fn output_encoding(
    to: Option<Encoding>,
    read: Encoding,
    layout: &LayoutArgs,
) -> Encoding {
    match (to, crate::write_cmd::asked_dialect(layout)) {
        (Some(to), _) => to,
        (None, Some(dialect)) if !dialect.allows_encoding(read) => Encoding::Utf8,
        _ => read,
    }
}

/// The note for an encoding [`output_encoding`] changed for the dialect, if it did.
pub(crate) fn encoding_note(
    to: Option<Encoding>,
    read: Encoding,
    layout: &LayoutArgs,
) -> Option<String> {
    let written = output_encoding(to, read, layout);
    let dialect = crate::write_cmd::asked_dialect(layout)?;
    (to.is_none() && written != read).then(|| {
        format!(
            "note: written in {}, as {dialect} files are (read as {}; --to-encoding chooses another)",
            written.name(),
            read.name()
        )
    })
}

/// The warnings for what the header's serialisation metadata holds that the dataset does not keep, and so is
/// not written ([`gedgraft_model::metadata_not_kept`], R-PARSING-METADATA-03): `warning: line 7:
/// HEAD.CHAR.VERS is …` (found by a helper: `fmt` dropped `2 _CX important` under `1 CHAR` without a word).
pub(crate) fn metadata_not_written(parse: &Parse) -> Vec<String> {
    (gedgraft_model::metadata_not_kept(parse).into_iter())
        .map(|(path, at)| {
            format!(
                "warning: line {}: {path} is serialisation metadata the dataset does not keep: not written",
                at.line
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_the_lines_that_differ() {
        let (changes, removed, added) = line_changes(b"a\nb\nc\n", &[], b"a\nB\nc\nd\n", false);
        assert_eq!(
            changes,
            [
                Change {
                    input: 2..4,
                    output: 2..4
                },
                Change {
                    input: 6..6,
                    output: 6..8
                }
            ]
        );
        assert_eq!((removed, added), (1, 2));
        assert_eq!(line_changes(b"x\n", &[], b"x\n", false), (Vec::new(), 0, 0));
    }

    #[test]
    fn the_first_line_break_is_the_files() {
        assert_eq!(line_ending_of("0 HEAD\r\n0 TRLR\n"), LineEnding::CrLf);
        assert_eq!(line_ending_of("0 HEAD\r0 TRLR"), LineEnding::Cr);
        assert_eq!(line_ending_of("0 HEAD"), LineEnding::Lf);
    }
}
