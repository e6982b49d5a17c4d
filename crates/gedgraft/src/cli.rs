//! Command-line arguments.

use crate::style::ColorWhen;
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
gedgraft explain bad-tag\n  gedgraft dump family.ged | less\n  gedgraft lower family.ged > family.json\n  gedgraft fix family.ged -o copy.ged\n  gedgraft write family.json -o family.ged\n  gedgraft fmt --check *.ged\n  gedgraft diff old.ged new.ged\n\nExit status: 0 when all is well, 1 when \
`check` found an error (or `diff` a difference), 2 when a file could not be read or written or the arguments are wrong."
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
    /// Nodes print as `KIND@START..END`, tokens as `KIND@START..END "TEXT"`; TEXT is a JSON string. Each
    /// element is indented two spaces per depth, up to 64 levels; a deeper element is indented 64 levels and
    /// starts with its depth, `[depth 20000] KIND@…`, so the output stays linear in the file however deep it
    /// nests.
    Dump(DumpArgs),
    /// Report problems: malformed lines and structures, encoding trouble, warnings.
    ///
    /// Each diagnostic has a stable code, a class from the ELF draft (malformed-line, malformed-structure,
    /// non-conformant-structure, warning), the file, line and column it points at, and the record it is in
    /// (`in @I643@ INDI`, `in the header`, `in NOTE on line 12`), so you can find it in your genealogy program.
    /// `gedgraft explain CODE` tells what a code means and how to fix it.
    Check(CheckArgs),
    /// Explain a diagnostic code: what it means, its class, the rule it comes from, an example and the fix.
    ///
    /// With no CODE, list every code with a one-line summary.
    Explain(ExplainArgs),
    /// Print the ELF dataset as JSON: metadata, records with unescaped, merged payloads, and diagnostics.
    ///
    /// The 2019 draft's parse: header metadata (CHAR, ELF, GEDC, PLANG, SCHMA) taken out, the trailer
    /// dropped, `@@` and Unicode escapes undone, CONT/CONC merged, pointers resolved (dangling ones to UNDEF
    /// records). The JSON schema is in crates/gedgraft-model/README.md.
    Lower(LowerArgs),
    /// Rewrite a file through the syntax tree.
    ///
    /// With no edit option the output is identical to the input, octet for octet.
    Fix(Box<FixArgs>),
    /// Write an ELF/GEDCOM file from a dataset in the JSON that `lower` prints.
    ///
    /// The header gets `CHAR`, `ELF 1.0.0` when the output needs it (Unicode escapes, languages, datatypes,
    /// schemas), `GEDC` and `PLANG`; records follow in pre-order, `0 TRLR` ends the file. Payloads are
    /// escaped (`@` → `@@`, characters the encoding lacks → `@#U…@`) and split with CONT/CONC lines within the
    /// line limit. The JSON input format is in crates/gedgraft-model/README.md.
    ///
    /// Nothing changes meaning silently: a warning on standard error when the output is in another dialect
    /// than the dataset's (and why) and for each identifier written renamed (a later holder of a duplicate
    /// `@I1@` becomes `@I1_2@`), a note when ANSEL writes letters decomposed.
    Write(WriteArgs),
    /// Rewrite a file in canonical form: lower it to its dataset and write that back (`lower` + `write`).
    ///
    /// The result means the same (the same dataset) with one line break form, single spaces, every `@`
    /// doubled, CONC splits within the line limit and the header's serialisation metadata in order; when the
    /// file's dialect cannot hold the result (a Unicode escape, a schema need ELF 1.0) it warns. Like
    /// `fix`, it shows a diff by default, record by record (each record against the one written for it);
    /// --in-place, -o and --check as there. A file with errors is refused:
    /// the dataset leaves malformed lines out, and formatting must not drop them silently.
    Fmt(Box<FmtArgs>),
    /// Compare the data of two files: what changed in the records, not in the lines.
    ///
    /// Both files are lowered (as `gedgraft lower` does, leniently) and their datasets compared: records by
    /// cross-reference identifier (and by content where identifiers were renumbered), substructures by tag and
    /// position. Each change names a structure path (`@I1@ INDI.NAME[2]`). Formatting is not data: line
    /// breaks, encoding, CONC splits, indentation and escapes give no change. Either file may also be a
    /// dataset JSON document as `gedgraft lower` prints it (to preview `fix --from-dataset`).
    ///
    /// What the data does not hold is not compared: lines the lowering leaves out (malformed lines and what
    /// nests in them), content after the trailer, octets the encoding cannot decode (read as U+FFFD). When the
    /// files differ there, a warning on standard error says where; the exit status is the data's. A file that
    /// is not GEDCOM has no data to compare: exit 2. A changed pointer says where it leads when its text does
    /// not: `@N1@ (the record now @N2@) → @N1@ (dangling)`.
    Diff(DiffArgs),
}

/// The dialects `write` and `fmt` can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    /// FHISO ELF 1.0 (`1 ELF 1.0.0` and `GEDC 5.5.1`).
    #[value(name = "elf-1.0")]
    Elf,
    /// GEDCOM 5.5.
    #[value(name = "gedcom-5.5")]
    Gedcom55,
    /// GEDCOM 5.5.1.
    #[value(name = "gedcom-5.5.1")]
    Gedcom551,
    /// GEDCOM 5.5.5 (UTF-8 or UTF-16 only).
    #[value(name = "gedcom-5.5.5")]
    Gedcom555,
    /// GEDCOM 7.0: UTF-8, only a leading `@` doubled, no CONC, no line limit.
    #[value(name = "gedcom-7.0")]
    Gedcom70,
}

/// How `write` and `fmt` lay out the file.
#[derive(Debug, Args)]
pub struct LayoutArgs {
    /// The line break after every line.
    #[arg(long, value_enum, value_name = "EOL")]
    pub eol: Option<crate::fix::Eol>,
    /// The most octets a line takes, its line break included (default 255, 510 in UTF-16); longer payloads
    /// are split with CONC lines, never inside `@@`, an escape or a character, nor next to a space, so a run
    /// with no such place (an escape between spaces, `D @#DFRENCH R@ 1`) can pass a small limit.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(16..))]
    pub line_limit: Option<u32>,
    /// Start the file with a byte-order mark (default: in UTF-16 only).
    #[arg(long, overrides_with = "no_bom")]
    pub bom: bool,
    /// No byte-order mark, not even in UTF-16.
    #[arg(long)]
    pub no_bom: bool,
    /// The dialect to write (default: the dataset's, from its header). When the output would need another (an
    /// `@#U…@` escape, a payload language or datatype, a schema need ELF 1.0), nothing is written and the message
    /// names the first structure that needs it. A date's calendar and epoch are written as the dialect names them
    /// (`@#DJULIAN@ 44 B.C.` in 5.5.x and ELF, `JULIAN 44 BCE` in GEDCOM 7); a calendar it has no name for
    /// (`@#DROMAN@` in GEDCOM 7, an extension `_MAYA` in 5.5.1) is refused with its line, as is an identifier
    /// GEDCOM 7 does not allow (`@f-1@`: renumber it with `fix --set-xref`). Only the serialisation is converted:
    /// structures the two define differently (NOTE and SNOTE records, dual years, date phrases) are written as they
    /// are, with a note.
    #[arg(long, value_enum, value_name = "DIALECT")]
    pub dialect: Option<DialectArg>,
}

/// `gedgraft write`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
gedgraft lower family.ged > family.json && gedgraft write family.json -o family2.ged\n  \
gedgraft lower family.ged | jq 'del(.records[] | select(.tag == \"_TODO\"))' | gedgraft write - > clean.ged\n  \
gedgraft write family.json --encoding ANSEL --eol crlf --line-limit 80\n\n\
Exit status: 0 when the file was written, 2 when the JSON is not a dataset (the message names the JSON \
path, line and column), the output cannot be written or cannot be in the --dialect asked for.")]
pub struct WriteArgs {
    /// The dataset JSON (`-` reads standard input).
    #[arg(value_name = "DATASET.json")]
    pub file: PathBuf,
    /// Write to OUT instead of standard output; OUT is replaced atomically if it is a regular file (`-` and
    /// /dev/stdout write to standard output).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// The output encoding (default UTF-8): UTF-8, UTF-16LE, UTF-16BE, ASCII, ANSEL, windows-1252, …
    /// Characters it lacks are written as `@#U…@` escapes.
    #[arg(long, value_name = "NAME")]
    pub encoding: Option<String>,
    #[command(flatten)]
    pub layout: LayoutArgs,
}

/// `gedgraft fmt`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
gedgraft fmt family.ged                     show what formatting would change\n  \
gedgraft fmt --in-place --backup .orig family.ged\n  \
gedgraft fmt --check *.ged                  exit 1 if a file is not in canonical form\n  \
gedgraft fmt --to-encoding UTF-8 --eol lf family.ged -o family-utf8.ged\n\n\
Exit status: 0 when all went well, 1 when --check found a file formatting would change, 2 when a file could \
not be read, has errors, or could not be written.")]
pub struct FmtArgs {
    /// The files to format (`-` reads standard input; write the result with -o).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Write the result to OUT instead of showing a diff (one FILE only), as `fix -o` does.
    #[arg(short, long, value_name = "OUT", conflicts_with_all = ["in_place", "check"])]
    pub output: Option<PathBuf>,
    /// Rewrite each FILE in place, atomically, as `fix --in-place` does. Unchanged files are not touched.
    #[arg(long, conflicts_with = "check")]
    pub in_place: bool,
    /// With --in-place: keep each original as FILE + SUFFIX.
    #[arg(long, value_name = "SUFFIX", requires = "in_place", conflicts_with_all = ["output", "check"], value_parser = backup_suffix)]
    pub backup: Option<String>,
    /// Change nothing and print no diff; exit with status 1 when formatting would change a file.
    #[arg(long)]
    pub check: bool,
    /// Write in this encoding (default: the file's own, or UTF-8 when --dialect names one that does not allow it,
    /// as GEDCOM 7, which allows UTF-8 only).
    #[arg(long, value_name = "NAME")]
    pub to_encoding: Option<String>,
    #[command(flatten)]
    pub layout: LayoutArgs,
    /// Print no per-file summary on stderr.
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub input: InputArgs,
}

/// Output formats of `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// One change per line, like `diff -u` but by structure path.
    Text,
    /// One JSON document with every change, its kind, paths, lines and values.
    Json,
}

/// `gedgraft diff`.
#[derive(Debug, Args)]
#[command(after_help = "Output (text):\n  \
~ @I1@ INDI.NAME: \"John /Smith/\" → \"John /Smyth/\"   a payload, tag (`tag A → B`) or identifier changed\n  \
+ @I9@ INDI                                     added, followed by its lines (`+   0 @I9@ INDI`)\n  \
- @I1@ INDI.NOTE[2]                             removed (the second NOTE of @I1@), with its lines\n  \
> @I1@ INDI.NOTE → @I2@ INDI.NOTE (line 7 → 12)   moved, elsewhere or among its siblings\n  \
~ HEAD metadata gedcom_version: 5.5.1 → 7.0.0   serialisation metadata changed\n\n\
Examples:\n  \
gedgraft diff old.ged new.ged                   what a script changed in the data\n  \
gedgraft fix --eol crlf family.ged -o x.ged && gedgraft diff family.ged x.ged   prove the data is the same\n  \
gedgraft diff --format json old.ged new.ged | jq '.changes[] | select(.kind == \"record-removed\")'\n  \
gedgraft diff family.ged edited.json            what `fix --from-dataset edited.json family.ged` would do\n\n\
Payload text is compared character by character: ANSEL has no precomposed letters, so a file written in \
ANSEL reads `é` back decomposed (e + U+0301) and a UTF-8 file's `é` shows as changed to the same-looking \
text (canonically equivalent; `write` and `fmt` note how many letters they wrote so).\n\n\
Exit status (as diff(1)): 0 when the data is the same, 1 when it differs, 2 when a file could not be read \
or an argument is wrong.")]
pub struct DiffArgs {
    /// The file before (`-` reads standard input).
    pub old: PathBuf,
    /// The file after (`-` reads standard input, if OLD does not).
    pub new: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// Print nothing; only the exit status tells whether the data differs.
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub input: InputArgs,
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
    /// The file to dump (`-` reads standard input).
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
#[command(after_help = "Examples:\n  \
gedgraft check family.ged                      every problem, with its line, its record and a caret\n  \
gedgraft check --no-warnings *.ged             errors only (warnings are still counted)\n  \
gedgraft check --all family.ged                every diagnostic, not the first 5 of each code\n  \
gedgraft check --color always family.ged | less -R   colour through a pager\n  \
gedgraft check --format json family.ged | jq '.diagnostics[] | select(.code == \"bad-tag\")'\n  \
gedgraft explain bad-tag                       what a code means and how to fix it\n\n\
Exit status: 0 when no file has an error (warnings are fine), 1 when one has, 2 when a file could not be \
read or an argument is wrong.")]
pub struct CheckArgs {
    /// The files to check (`-` reads standard input).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output format. `json` prints one object per file per line, with every diagnostic (README documents it).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Leave out warnings (human format only).
    #[arg(long)]
    pub no_warnings: bool,
    /// Show every diagnostic. By default the human format shows the first 5 of each code and counts the rest
    /// (`… and 312 more bad-tag errors`); the JSON format always has every one.
    #[arg(long)]
    pub all: bool,
    /// Colour the human format: `auto` colours on a terminal unless NO_COLOR is set (CLICOLOR_FORCE forces
    /// it).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// Stop at the first error, as the ELF draft says a strict parser must (malformed lines and structures,
    /// non-conformant structures); the default reports everything.
    #[arg(long)]
    pub strict: bool,
    /// Check this many files at a time, one per thread (0, the default: one per core). The output stays in
    /// the order of the arguments; a progress line shows on a terminal.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    pub jobs: usize,
    #[command(flatten)]
    pub input: InputArgs,
}

/// `gedgraft explain`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
gedgraft explain                  every code with a one-line summary\n  \
gedgraft explain bad-tag          what `error[bad-tag]` means, the rule, an example and the fix\n  \
gedgraft explain '[bad-tag]'      the code as `check` prints it works too")]
pub struct ExplainArgs {
    /// The code to explain, as `check` prints it (`bad-tag`, `error[bad-tag]`).
    pub code: Option<String>,
}

/// `gedgraft lower`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 when the file has no error (warnings are fine), 1 when it has one: the \
JSON is printed all the same, the errors in its `diagnostics` and the malformed lines left out of the dataset \
(with --strict the dataset is empty and `stopped` names the error); 2 when the file could not be read or an \
argument is wrong."
)]
pub struct LowerArgs {
    /// The file to lower (`-` reads standard input).
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

/// `gedgraft fix`: batched, local edits (the ELF editor of the 2019 draft). Every octet an edit does not touch
/// comes back identical. By default the edits are shown as a unified diff and no file is changed.
///
/// Edits run in this order, each on the result of the one before: `--delete`, `--set`, `--rename-tag`,
/// `--escape-at`, then `--eol` and `--to-encoding`, then `--rewrap` and `--join-conc`. Paths name structures as in the input
/// (`INDI.BIRT.DATE`, `@I1@.NAME`, `*.NOTE`).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gedgraft fix --rename-tag _UID=UID family.ged            show the diff\n  \
gedgraft fix --escape-at --rewrap --in-place --backup .orig *.ged\n  \
gedgraft fix --set '@I1@.NAME=Anne /Smith/' family.ged -o fixed.ged\n  \
gedgraft fix --to-encoding UTF-8 --eol lf --check old.ged     exit 1 if it would change\n  \
gedgraft lower f.ged > d.json; jq '…' d.json > d2.json; gedgraft fix --from-dataset d2.json f.ged --in-place\n  \
gedgraft fix --repair --in-place *.ged                   apply the repairs `check` offers (safe ones)\n\n\
Exit status: 0 when all went well, 1 when --check found a file the edits would change, 2 when a file could \
not be read, edited or written, or an option is wrong."
)]
pub struct FixArgs {
    /// The files to edit (`-` reads standard input; write the result with -o, not --in-place).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Write the result to OUT instead of showing a diff (one FILE only). With no edit option the output is
    /// identical to the input, octet for octet. `-` writes to standard output, and so does a path naming the
    /// file standard output is open on (such as /dev/stdout; /dev/stderr likewise writes to standard error).
    /// A stream is written as the file is read, record by record: an error found further on (an octet that
    /// cannot be decoded for --to-encoding, an edit the file refuses) can stop it with status 2 after what came
    /// before, as iconv does; a file OUT is all or nothing. Otherwise OUT is replaced atomically as with
    /// --in-place (owner, group and permissions kept when it exists; a symbolic link is followed) if it is a
    /// regular file; anything else there (a device such as /dev/null, a FIFO, a socket, a directory) is
    /// refused with status 2 and left alone.
    #[arg(short, long, value_name = "OUT", conflicts_with_all = ["in_place", "check"])]
    pub output: Option<PathBuf>,
    /// Rewrite each FILE in place, atomically: a temporary file in the same directory (readable only by its
    /// owner until complete) is written, flushed to disk and renamed over the original, whose owner, group and
    /// permissions it keeps; a file whose owner and group cannot be kept is refused. Unchanged files are not
    /// touched. Only regular files are edited: a FIFO, device or other special file is refused with status 2.
    /// A symbolic link is followed: the file it points to is replaced and the link stays. The edited file is a
    /// new file: other hard links to the original keep the old text (as with `sed -i`). Stopped by Ctrl-C
    /// (SIGINT), SIGTERM or SIGHUP, it removes its temporary file and leaves the original as it was. A file
    /// named twice (by any path or link) is refused: its edits would be made twice.
    #[arg(long, conflicts_with = "check")]
    pub in_place: bool,
    /// With --in-place: keep each original as FILE + SUFFIX (for example `.orig`), next to the file that is
    /// replaced (for a symbolic link, next to the file it points to). The backup is the original itself (a
    /// hard link) or a complete copy; whatever was at that name (a file, a link) is replaced, never written
    /// through, and only once the new backup is complete. SUFFIX may not be empty or contain `/`, and a
    /// backup may not replace another FILE named to be edited (`a.ged a.ged.orig` with `--backup .orig`).
    #[arg(long, value_name = "SUFFIX", requires = "in_place", conflicts_with_all = ["output", "check"], value_parser = backup_suffix)]
    pub backup: Option<String>,
    /// Change nothing and print no diff; exit with status 1 when the edits would change a file.
    #[arg(long)]
    pub check: bool,
    /// Make FILE hold the dataset NEW.json (the JSON `gedgraft lower` prints, edited with jq or any tool):
    /// each difference becomes an edit (payload, tag, identifier, insertion, deletion, move), so only the
    /// changed structures' lines change. What no edit expresses (header metadata) is refused with status 2,
    /// and so is a result that would not lower to NEW.json. One FILE only; runs before the other edit options.
    #[arg(long, value_name = "NEW.json")]
    pub from_dataset: Option<PathBuf>,
    /// Rename the tag OLD to NEW on every structure (or within --select). Repeatable.
    #[arg(long = "rename-tag", value_name = "OLD=NEW")]
    pub rename_tag: Vec<String>,
    /// Limit the edits to the structures PATH picks and everything inside them. Repairs are not limited by it:
    /// choose them by code with --repair=CODE,…. --eol and --to-encoding, which convert the whole file, are
    /// refused with it.
    #[arg(long, value_name = "PATH")]
    pub select: Option<String>,
    /// Set the payload of every structure PATH picks to VALUE: `@` is written `@@`, a line feed starts a
    /// `CONT` line, long lines are split with `CONC`. A carriage return is a character of the value, written
    /// `@#UD@` (refused in a GEDCOM 7 file, which cannot escape it). Repeatable.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
    /// Make the payload of every structure PATH picks a pointer to ID (`F1` or `@F1@`). Repeatable.
    #[arg(long, value_name = "PATH=ID")]
    pub set_pointer: Vec<String>,
    /// Give the structure PATH picks the cross-reference identifier ID (`I9` or `@I9@`; empty to remove it);
    /// pointers to its old identifier follow. Repeatable.
    #[arg(long, value_name = "PATH=ID")]
    pub set_xref: Vec<String>,
    /// Delete every structure PATH picks, with its continuation lines and substructures. Repeatable.
    #[arg(long, value_name = "PATH")]
    pub delete: Vec<String>,
    /// Write every bare `@` in string payloads as `@@`.
    #[arg(long)]
    pub escape_at: bool,
    /// Split every payload line longer than N octets, line break included (default 255, 510 in UTF-16), with
    /// CONC lines; no other line changes (see --join-conc). Never splits inside `@@`, an escape or a character,
    /// nor, in ANSEL, between a diacritic and its letter. Runs after the other edits, --eol and --to-encoding,
    /// so it measures the lines as they are written.
    #[arg(long, value_name = "N", num_args = 0..=1, require_equals = true)]
    pub rewrap: Option<Option<u32>>,
    /// Join needless CONC splits: where a CONC line would fit on the line before it (within --rewrap=N's
    /// limit, else 255 octets), lay that text out again greedily. Runs with --rewrap, last.
    #[arg(long)]
    pub join_conc: bool,
    /// Convert every line break to LF, CR LF or CR.
    #[arg(long, value_enum, value_name = "EOL")]
    pub eol: Option<crate::fix::Eol>,
    /// With --eol: read LF followed by CR as one line break (GEDCOM 5.5.1) rather than two around a blank
    /// line (the 2019 ELF draft).
    #[arg(long, requires = "eol")]
    pub join_lf_cr: bool,
    /// Transcode to this encoding (UTF-8, UTF-16LE, ASCII, ANSEL, windows-1252, …); `HEAD.CHAR` is set as
    /// genealogy programs read it (ANSI, ANSI + VERS 1250, IBMPC, MACINTOSH, UNICODE, …) and characters the
    /// encoding lacks become `@#U…@` escapes. A file whose octets contradict the encoding it is read with is
    /// refused: say which reading is right with --encoding NAME.
    #[arg(long, value_name = "NAME")]
    pub to_encoding: Option<String>,
    /// With --to-encoding: write undecodable octets as U+FFFD instead of refusing the file.
    #[arg(long, requires = "to_encoding")]
    pub replace_raw: bool,
    /// Apply the repairs of diagnostics that have a safe one (`gedgraft check` marks them with a `help:` line):
    /// raw line breaks in notes become `CONT` lines, characters split across `CONC` are joined, bare `@` become
    /// `@@`, long lines are re-wrapped, a missing trailer is added, blank lines are removed, and so on
    /// (`gedgraft explain CODE` says which codes have one). With `=CODE,…`, only the repairs of those codes,
    /// safe or not. Repairs run first, to a fixed point (a repair may expose the next), before the other edits.
    #[arg(long, value_name = "CODES", num_args = 0..=1, require_equals = true)]
    pub repair: Option<Option<String>>,
    /// Apply the unsafe repairs too: guesses such as a level jump renumbered, `CHAR` set to what the octets
    /// look like, a duplicate identifier renamed, NUL characters removed.
    #[arg(long)]
    pub repair_unsafe: bool,
    /// Print a patch made of the files' own octets instead of the review diff: `patch -p1 < p.diff` or
    /// `git apply p.diff` on the original gives exactly the octets `-o` writes. Refused for UTF-16 files.
    #[arg(long, conflicts_with_all = ["output", "in_place", "check"])]
    pub patch: bool,
    /// Print no per-file summary on stderr (warnings and errors are still printed).
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub input: InputArgs,
}

impl FixArgs {
    /// Whether `fix` shows its change rather than writing or checking it: the review diff, or the patch with
    /// `--patch` (no `-o`, no `--in-place`, no `--check`).
    pub(crate) fn reviews(&self) -> bool {
        self.output.is_none() && !self.in_place && !self.check
    }
}

impl FmtArgs {
    /// Whether `fmt` shows its change as a review diff on standard output (no `-o`, no `--in-place`, no
    /// `--check`).
    pub(crate) fn reviews(&self) -> bool {
        self.output.is_none() && !self.in_place && !self.check
    }
}

/// Checks a `--backup` suffix.
fn backup_suffix(suffix: &str) -> Result<String, String> {
    gedgraft_edit::check_backup_suffix(suffix)
        .map(|()| suffix.to_owned())
        .map_err(|e| e.to_string())
}
