//! `gedgraft check`: diagnostics for humans (rustc style, [`crate::human`]) and for programs (JSON lines).

use crate::cli::{CheckArgs, Format};
use crate::human;
use crate::input::{self, Loaded};
use crate::record::{Place, Records};
use crate::style::Palette;
use gedgraft_model::{lower, LowerOptions};
use gedgraft_syntax::encoding::Detection;
use gedgraft_syntax::internal::{json_option, json_string, write_diagnostic_json, JsonLayout};
use gedgraft_syntax::{Diagnostic, Dialect, Severity};
use std::fmt::Write;
use std::path::Path;
use std::process::ExitCode;

/// Runs `check` over every file; exit status 1 if any file has an error, 2 if one could not be read. Several
/// files are checked on `--jobs` workers, one file each ([`crate::batch`]); the output stays in argument order.
pub fn run(args: &CheckArgs) -> Result<ExitCode, String> {
    let options = input::options(&args.input)?;
    let human = human::Options {
        no_warnings: args.no_warnings,
        all: args.all,
        palette: Palette::new(args.format == Format::Human && args.color.for_stdout()),
    };
    let count = args.files.len();
    let workers = crate::batch::workers(args.jobs, count);
    let (mut any_error, mut unreadable) = (false, false);
    let mut tally = |outcome: Outcome| {
        any_error |= outcome.error;
        if let Some(e) = outcome.unreadable {
            crate::output::error(&e);
            unreadable = true;
        }
    };
    // Standard input is read by one file only; it keeps the files in this thread.
    if workers <= 1 || args.files.iter().any(|p| input::is_stdin(p)) {
        for (i, path) in args.files.iter().enumerate() {
            let last = i + 1 == count;
            tally(check_file(
                (path, i),
                args,
                &options,
                &human,
                last,
                &mut crate::output::emit,
            )?);
        }
    } else {
        let job = |i: usize| {
            let mut out = String::new();
            let path = &args.files[i];
            let outcome = check_file(
                (path, i),
                args,
                &options,
                &human,
                false,
                &mut |text: &str| {
                    out.push_str(text);
                    Ok(())
                },
            );
            (out, outcome)
        };
        crate::batch::in_order(count, workers, job, |_, (out, outcome)| {
            crate::output::emit(&out)?;
            tally(outcome?);
            Ok(())
        })?;
    }
    Ok(crate::output::exit_status(unreadable, any_error))
}

/// What checking one file found.
struct Outcome {
    error: bool,
    /// Why the file could not be read.
    unreadable: Option<String>,
}

/// Checks one file (and its index among the files), its report written through `emit` (streamed when it can
/// be); `last`: the process's last file, whose parse is left to the operating system.
fn check_file(
    (path, index): (&Path, usize),
    args: &CheckArgs,
    options: &gedgraft_syntax::ParseOptions,
    human: &human::Options,
    last: bool,
    emit: &mut dyn FnMut(&str) -> Result<(), String>,
) -> Result<Outcome, String> {
    let refused = crate::output::refuse_later_input_as_output(path, index);
    if refused.is_ok() {
        if let Some(error) = crate::stream_check::check_streamed(path, args, options, human, emit)?
        {
            // A file changed while it was read: its report may tell two versions of it.
            return Ok(Outcome {
                error,
                unreadable: input::unchanged(path).err(),
            });
        }
    }
    let loaded = match refused.and_then(|()| input::load_with(path, options)) {
        Ok(l) => l,
        Err(e) => {
            // JSON readers get a line for every argument: `{"file": …, "error": {"code": "io", …}}`.
            if args.format == Format::Json {
                let mut line = String::from("{\"file\":");
                json_string(&path.display().to_string(), &mut line);
                line.push_str(",\"error\":{\"code\":\"io\",\"message\":");
                json_string(&e, &mut line);
                line.push_str("}}\n");
                emit(&line)?;
            }
            return Ok(Outcome {
                error: false,
                unreadable: Some(e),
            });
        }
    };
    let lowered = lower(
        &loaded.parse,
        &LowerOptions::default().with_strict(args.strict),
    );
    let diagnostics = lowered.all_diagnostics(&loaded.parse);
    let error = diagnostics.iter().any(|d| d.severity() == Severity::Error);
    let stopped = lowered.stopped_at.as_ref();
    match args.format {
        Format::Json => json_report(&loaded, &diagnostics, stopped, &mut *emit)?,
        Format::Human => human::report(&loaded, &diagnostics, stopped, human, &mut *emit)?,
    }
    if last {
        drop(diagnostics);
        input::keep_until_exit((loaded, lowered));
    }
    Ok(Outcome {
        error,
        unreadable: None,
    })
}

/// Writes the JSON object of one file and its line break through `emit`, a piece at a time (a file with millions
/// of diagnostics is never one string in memory); with `--strict`, `stopped` is the error checking stopped at
/// (or null). Keys in this order: `file`, `encoding` (`detected`, `declared`, `used`), `dialect`, `diagnostics`,
/// `stopped`. Every diagnostic is there, with the record it is in.
pub fn json_report(
    loaded: &Loaded,
    diagnostics: &[&Diagnostic],
    stopped: Option<&Diagnostic>,
    mut emit: impl FnMut(&str) -> Result<(), String>,
) -> Result<(), String> {
    let parse = &loaded.parse;
    let mut records = Records::new(parse);
    let mut out = String::with_capacity(PIECE + 512);
    json_head(&mut out, &loaded.path, parse.detection(), parse.dialect());
    let repairs = gedgraft_edit::repairs(parse, diagnostics);
    json_diagnostics(
        &mut out,
        &mut records,
        (diagnostics, &repairs),
        true,
        &mut emit,
    )?;
    json_tail(
        &mut out,
        stopped.map(|d| (d, records.place(d.range.start()))),
    );
    emit(&out)
}

/// Output is handed on in pieces of about this size.
const PIECE: usize = 1 << 16;

/// The start of a file's JSON object, up to the opening `[` of its diagnostics.
pub fn json_head(out: &mut String, path: &Path, detection: &Detection, dialect: Dialect) {
    out.push_str("{\"file\":");
    json_string(&path.display().to_string(), out);
    out.push_str(",\"encoding\":{\"detected\":");
    json_option(detection.detected.map(|e| e.name()), out);
    out.push_str(",\"declared\":");
    json_option(detection.declared.as_deref(), out);
    out.push_str(",\"used\":");
    json_string(detection.used.name(), out);
    out.push_str("},\"dialect\":");
    json_string(&dialect.to_string(), out);
    out.push_str(",\"diagnostics\":[");
}

/// Appends diagnostics (of a file, or of one batch of it: `first` says whether any came before), each with its
/// repair (`repairs`, in the same order), handing
/// `out` on through `emit` as it grows.
pub fn json_diagnostics(
    out: &mut String,
    records: &mut Records<'_>,
    (diagnostics, repairs): (&[&Diagnostic], &[Option<gedgraft_edit::Repair>]),
    mut first: bool,
    emit: &mut impl FnMut(&str) -> Result<(), String>,
) -> Result<(), String> {
    for (i, d) in diagnostics.iter().enumerate() {
        if !first {
            out.push(',');
        }
        first = false;
        let repair = repairs.get(i).and_then(Option::as_ref);
        diagnostic_json(out, d, records.place(d.range.start()).as_ref(), repair);
        if out.len() >= PIECE {
            emit(out)?;
            out.clear();
        }
    }
    Ok(())
}

/// The end of a file's JSON object: the `stopped` diagnostic (with its place) if any, and the line break.
pub fn json_tail(out: &mut String, stopped: Option<(&Diagnostic, Option<Place>)>) {
    out.push(']');
    if let Some((d, place)) = stopped {
        out.push_str(",\"stopped\":");
        diagnostic_json(out, d, place.as_ref(), None);
    }
    out.push_str("}\n");
}

/// One diagnostic as a JSON object; `count` and `last_line` only for a run of more than one; `record` the record
/// it is in (`{"xref": "I1" | null, "tag": "INDI" | null, "line": 12}`), or null outside records; `fix` its
/// repair, if it has one ([`crate::repair::fix_json`]).
fn diagnostic_json(
    out: &mut String,
    d: &Diagnostic,
    place: Option<&Place>,
    repair: Option<&gedgraft_edit::Repair>,
) {
    write_diagnostic_json(d, JsonLayout::Compact, out, |out| {
        out.push_str(",\"record\":");
        match place {
            Some(Place::Record(r)) => {
                out.push_str("{\"xref\":");
                json_option(r.xref.as_deref(), out);
                out.push_str(",\"tag\":");
                json_option(r.tag.as_deref(), out);
                let _ = write!(out, ",\"line\":{}}}", r.line);
            }
            Some(Place::AfterTrailer) | None => out.push_str("null"),
        }
        if let Some(r) = repair {
            crate::repair::fix_json(out, r);
        }
    });
}
