//! `gedgraft write`: a dataset in `lower`'s JSON written as an ELF/GEDCOM file (`gedgraft_model::write`).
//! Also the options and the output that `fmt` shares.

use crate::cli::{DialectArg, LayoutArgs, WriteArgs};
use crate::fix::Eol;
use crate::{input, output};
use gedgraft_edit::write_atomic;
use gedgraft_model::{from_json, write, LineEnding, WriteOptions};
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
    let octets = write(&dataset, &options).map_err(|e| format!("{name}: cannot write: {e}"))?;
    let mut stdout = std::io::stdout().lock();
    match &args.output {
        Some(out) => write_out(out, &octets, None, &mut stdout)?,
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
    if let Some(d) = layout.dialect {
        options = options.with_dialect(match d {
            DialectArg::Elf => Dialect::Elf10,
            DialectArg::Gedcom55 => Dialect::Gedcom55,
            DialectArg::Gedcom551 => Dialect::Gedcom551,
            DialectArg::Gedcom555 => Dialect::Gedcom555,
            DialectArg::Gedcom70 => Dialect::GEDCOM_7_0,
        });
    }
    options
}

/// Writes `octets` to `out` as `fix -o` does: a path naming a standard stream goes through it, anything else
/// is replaced atomically (with a backup when asked).
pub(crate) fn write_out(
    out: &Path,
    octets: &[u8],
    backup: Option<&str>,
    stdout: &mut impl Write,
) -> Result<(), String> {
    match output::stream_named(out) {
        Some(stream) => output::write_stream(stream, octets, stdout),
        None => write_atomic(out, octets, backup)
            .map_err(|e| output::write_error(&out.display().to_string(), &e)),
    }
}
