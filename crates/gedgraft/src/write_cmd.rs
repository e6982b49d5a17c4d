//! `gedgraft write`: a dataset in `lower`'s JSON written as an ELF/GEDCOM file (`gedgraft_model::write`).
//! Also the options and the output that `fmt` shares.

use crate::cli::{DialectArg, LayoutArgs, WriteArgs};
use crate::fix::Eol;
use crate::{input, output};
use gedgraft_model::{from_json, write_with_report, LineEnding, WriteOptions, WriteReport};
use gedgraft_syntax::encoding::Encoding;
use gedgraft_syntax::Dialect;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Runs `write`.
pub fn run(args: &WriteArgs) -> Result<ExitCode, String> {
    let encoding = args
        .encoding
        .as_deref()
        .map(encoding_named)
        .transpose()?
        .unwrap_or(Encoding::Utf8);
    let options = write_options(&args.layout, encoding, None);
    let name = args.file.display().to_string();
    let json = read_json(&args.file)?;
    let dataset = from_json(&json).map_err(|e| {
        let at = if e.path.is_empty() {
            String::new()
        } else {
            format!("{}: ", e.path)
        };
        format!("{name}:{}:{}: {at}{}", e.line, e.column, e.message)
    })?;
    drop(json);
    let (octets, report) =
        write_with_report(&dataset, &options).map_err(|e| format!("{name}: cannot write: {e}"))?;
    let told = what_write_changes(&name, &report, &options, dataset.metadata.dialect)
        .map_err(|e| format!("{name}: cannot write: {e}"))?;
    for line in told {
        crate::output::say(&line);
    }
    let mut stdout = std::io::stdout().lock();
    match &args.output {
        Some(out) => write_out((out, &args.file), &octets, None, &mut stdout)?,
        None => output::write_stdout(&mut stdout, &octets)?,
    }
    input::keep_until_exit(dataset);
    Ok(ExitCode::SUCCESS)
}

/// The JSON text of `path` (`-`: standard input).
fn read_json(path: &Path) -> Result<String, String> {
    let bytes = input::read_octets(path)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        format!(
            "{}: not UTF-8 at byte {at}: JSON is UTF-8 text",
            path.display()
        )
    })
}

/// The encoding called `name`.
pub(crate) fn encoding_named(name: &str) -> Result<Encoding, String> {
    name.parse()
        .map_err(|e: gedgraft_syntax::encoding::UnknownEncoding| e.to_string())
}

/// The writer's options from the command line; `eol` is the line break when `--eol` gives none.
pub(crate) fn write_options(
    layout: &LayoutArgs,
    encoding: Encoding,
    eol: Option<LineEnding>,
) -> WriteOptions {
    let mut options = WriteOptions::default()
        .with_encoding(encoding)
        .with_line_ending(match layout.eol {
            Some(Eol::Lf) => LineEnding::Lf,
            Some(Eol::Crlf) => LineEnding::CrLf,
            Some(Eol::Cr) => LineEnding::Cr,
            None => eol.unwrap_or_default(),
        });
    if let Some(n) = layout.line_limit {
        options = options.with_line_limit(n as usize);
    }
    if layout.bom {
        options = options.with_bom(true);
    } else if layout.no_bom {
        options = options.with_bom(false);
    }
    if let Some(d) = asked_dialect(layout) {
        options = options.with_dialect(d);
    }
    options
}

/// The dialect `--dialect` asks for, if any.
pub(crate) fn asked_dialect(layout: &LayoutArgs) -> Option<Dialect> {
    layout.dialect.map(|d| match d {
        DialectArg::Elf => Dialect::Elf10,
        DialectArg::Gedcom55 => Dialect::Gedcom55,
        DialectArg::Gedcom551 => Dialect::Gedcom551,
        DialectArg::Gedcom555 => Dialect::Gedcom555,
        DialectArg::Gedcom70 => Dialect::GEDCOM_7_0,
    })
}

/// Writes `octets` to `out` as `fix -o` does: a path naming a standard stream goes through it, anything else
/// is replaced atomically (with a backup when asked); a new file gets the permissions of `from`, the input.
pub(crate) fn write_out(
    (out, from): (&Path, &Path),
    octets: &[u8],
    backup: Option<&str>,
    stdout: &mut impl Write,
) -> Result<(), String> {
    match output::stream_named(out) {
        Some(stream) => output::write_stream(stream, octets, stdout),
        None => output::replace_file((out, from), backup, |w| w.write_all(octets))
            .map_err(|e| output::write_error(&out.display().to_string(), &e)),
    }
}

/// What writing with `options` changed beyond the layout (`report`), as lines for standard error (each starting
/// `NAME: warning:` or `NAME: note:`): a dialect other than `read` (the dataset's or file's; none when it is
/// unknown), each renamed identifier (R-POINTER-CONV-03), the letters ANSEL writes decomposed. Fails when the
/// options name a dialect the output would not be in: the message says what needs the other one and what to
/// do instead.
pub(crate) fn what_write_changes(
    name: &str,
    report: &WriteReport,
    options: &WriteOptions,
    read: Dialect,
) -> Result<Vec<String>, String> {
    let written = report.metadata.dialect;
    let why = report.elf_needed_by.as_ref().map(|need| {
        let rule = "R-SERIALISATION-VERSION-01";
        format!("{need} needs ELF ({rule})")
    });
    let mut lines = Vec::new();
    match options.dialect {
        Some(asked) if asked != written => {
            let Some(why) = why else {
                return Err(format!("the output would be {written}, not {asked}"));
            };
            let other_encoding = report
                .elf_needed_by
                .as_ref()
                .and_then(|n| n.character)
                .filter(|c| !c.is_control() && options.encoding != Encoding::Utf8)
                .map_or(String::new(), |_| {
                    ", or another --encoding that has the character (UTF-8)".to_string()
                });
            return Err(format!(
                "{asked} cannot hold this dataset: {why}; write it as ELF with --dialect elf-1.0{other_encoding}"
            ));
        }
        Some(_) => {}
        None if written != read && read != Dialect::Unknown => {
            let why = why.map_or(String::new(), |w| format!(": {w}"));
            lines.push(format!(
                "{name}: warning: written as {written}, not {read} as read{why}"
            ));
        }
        // A header that named no version now names one: said, not done silently.
        None if written != read => lines.push(format!(
            "{name}: note: the header did not say which GEDCOM it is: written as {written}, which the new \
             header declares (`GEDC`)"
        )),
        None => {}
    }
    // Between 5.5.x (or ELF) and GEDCOM 7 the writer converts the serialisation, not the data model.
    if read != Dialect::Unknown && read.is_gedcom7() != written.is_gedcom7() {
        lines.push(format!(
            "{name}: note: {read} → {written}: the serialisation is converted (`@` doubling, CONC, escapes, \
             the header, dates' calendars, B.C. as BCE), not the structures: what the two define differently \
             (NOTE and SNOTE records, dual years, INT and date phrases, embedded OBJE) is written as it is"
        ));
    }
    for r in &report.renames {
        let line = r.line.map_or(String::new(), |l| format!("line {l}: "));
        lines.push(format!(
            "{name}: warning: {line}`{}`: identifier @{}@ is held by an earlier structure: written as @{}@ \
             (R-POINTER-CONV-03); pointers to @{}@ name the first",
            r.path, r.old, r.new, r.old
        ));
    }
    if report.null_pointers > 0 {
        let n = report.null_pointers;
        lines.push(format!(
            "{name}: warning: {n} null pointer{} (`@VOID@`) written as {}: {written} has no null pointer and \
             reads each as a pointer to no record (`undefined-pointer`)",
            crate::words::s(n),
            if n == 1 { "it is" } else { "they are" }
        ));
    }
    if report.decomposed > 0 {
        let n = report.decomposed;
        lines.push(format!(
            "{name}: note: {n} character{} written decomposed (NFD): ANSEL has no precomposed letters \
             (R-SERIALISING-LINE-STRINGS-03); the text reads back canonically equivalent",
            crate::words::s(n)
        ));
    }
    Ok(lines)
}
