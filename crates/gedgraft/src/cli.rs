//! Command-line arguments.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Lossless editor for ELF and GEDCOM genealogy files.
///
/// Every octet that a command does not change comes back identical: encoding, line breaks, indentation,
/// blank lines, malformed lines and junk after the trailer included.
#[derive(Debug, Parser)]
#[command(name = "gedgraft", version, propagate_version = true)]
#[command(
    after_help = "Examples:\n  gedgraft check family.ged\n  gedgraft check --format json *.ged\n  \
gedgraft dump family.ged | less\n  gedgraft lower family.ged > family.json\n  gedgraft fix family.ged -o copy.ged\n\nExit status: 0 when all is well, 1 when \
`check` found an error, 2 when a file could not be read or written or the arguments are wrong."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the syntax tree: one element per line, with byte offsets in the input file.
    ///
    /// Nodes print as `KIND@START..END`, tokens as `KIND@START..END "TEXT"`; TEXT is a JSON string.
    Dump(DumpArgs),
    /// Report problems: malformed lines and structures, encoding trouble, warnings.
    ///
    /// Each diagnostic has a stable code, a class from the ELF draft (malformed-line, malformed-structure,
    /// non-conformant-structure, warning), and the file, line and column it points at.
    Check(CheckArgs),
    /// Print the ELF dataset as JSON: metadata, records with unescaped, merged payloads, and diagnostics.
    ///
    /// The 2019 draft's parse: header metadata (CHAR, ELF, GEDC, PLANG, SCHMA) taken out, the trailer
    /// dropped, `@@` and Unicode escapes undone, CONT/CONC merged, pointers resolved (dangling ones to UNDEF
    /// records). The JSON schema is in crates/gedgraft-model/README.md.
    Lower(LowerArgs),
    /// Rewrite a file through the syntax tree.
    ///
    /// With no edit option the output is identical to the input, octet for octet.
    Fix(FixArgs),
}

/// Options for reading input files.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Read the files in this encoding, whatever they declare (UTF-8, UTF-16LE, UTF-16BE, ASCII, ANSEL,
    /// windows-1252, IBM437, macintosh, …).
    #[arg(long, value_name = "NAME")]
    pub encoding: Option<String>,
    /// The encoding for files with no byte-order mark and no usable `HEAD.CHAR`: UTF-8 by the 2019 ELF draft
    /// (the default), ANSEL by GEDCOM 5.5.1.
    #[arg(long, value_name = "NAME")]
    pub default_encoding: Option<String>,
}

/// `gedgraft dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// The file to dump.
    pub file: PathBuf,
    #[command(flatten)]
    pub input: InputArgs,
}

/// Output formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Messages with the source line and a caret, like rustc.
    Human,
    /// One JSON object per file per line.
    Json,
}

/// `gedgraft check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The files to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Leave out warnings (human format only).
    #[arg(long)]
    pub no_warnings: bool,
    /// Stop at the first error, as the ELF draft says a strict parser must (malformed lines and structures,
    /// non-conformant structures); the default reports everything.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub input: InputArgs,
}

/// `gedgraft lower`.
#[derive(Debug, Args)]
pub struct LowerArgs {
    /// The file to lower.
    pub file: PathBuf,
    /// Stop at the first error (the dataset is then empty and `stopped` names the error).
    #[arg(long)]
    pub strict: bool,
    /// Normalise payload text to Unicode NFC.
    #[arg(long)]
    pub nfc: bool,
    #[command(flatten)]
    pub input: InputArgs,
}

/// `gedgraft fix`.
#[derive(Debug, Args)]
pub struct FixArgs {
    /// The file to rewrite.
    pub file: PathBuf,
    /// Where to write the result.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    #[command(flatten)]
    pub input: InputArgs,
}
