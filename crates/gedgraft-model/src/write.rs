//! Writing a [`Dataset`] as an ELF / GEDCOM file ([`write`]): the 2019 draft's § Serialisation.
//!
//! The header first (`0 HEAD`, `CHAR`, `ELF`, `GEDC`, `PLANG`, then the dataset's schemas and metadata
//! structures in id order), the records in pre-order, `0 TRLR` last (R-SERIALISATION-META-01..03). Each
//! structure is its first line, its `CONT`/`CONC` lines, its `PLANG`/`DTYPE` annotations, then its
//! substructures (R-SERIALISING-STRUCTS-01). The payload rules (escaping, splitting) are shared with the editor
//! (`gedgraft_syntax::internal::serialise`); see `write/text.rs`. Pre-order with an explicit stack of subtree
//! ends: no recursion, any depth.
//!
//! The output reads back as the dataset: `lower(parse(write(d))) == d`, except for the serialisation metadata
//! the writer must add ([`written_metadata`]).
//!
//! Identifiers: no two structures are written with the same one (R-POINTER-CONV-03). When the dataset holds an
//! identifier more than once (read from a file with duplicates), the first keeps it and each later one gets a
//! fresh id no structure uses, valid under both identifier grammars and at most 20 characters (e.g. `I1_2`).
//! Pointers keep naming the identifier as written: they resolve to the first holder, as the lowering does.
//! Only then does the round trip rename.

mod parts;
mod report;
mod text;

pub use parts::{StreamPlanner, StreamWriter};
pub use report::{write_report, write_with_report, ElfNeed, Rename, WriteReport};

use crate::dataset::{Dataset, Metadata, Payload, StructureId, StructureRef, Version};
use gedgraft_encoding::{declaration, Encoding};
use gedgraft_syntax::internal::calendar::{calendars_as, Refused};
use gedgraft_syntax::internal::serialise::{
    lay_out, lay_out_segments, line_limit, octets, plain_pieces, split_lines, writable, Budget,
    Laid, Unit,
};
use gedgraft_syntax::internal::work::{in_order, workers_for};
use gedgraft_syntax::Dialect;
use rustc_hash::FxHashSet;
use std::borrow::Cow;
use std::fmt;

/// The line break the writer puts after every line (one form per file, R-SERIALISING-LINE-STRINGS-02).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum LineEnding {
    /// `LF` (the default).
    #[default]
    Lf,
    /// `CR LF`.
    CrLf,
    /// `CR`.
    Cr,
}

impl LineEnding {
    /// The line break's characters.
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::CrLf => "\r\n",
            LineEnding::Cr => "\r",
        }
    }
}

/// How [`write`](fn@write) writes. Built from [`WriteOptions::default`] with the `with_…` methods (the struct may
/// grow):
///
/// ```
/// use gedgraft_model::{LineEnding, WriteOptions};
/// use gedgraft_encoding::Encoding;
/// let options = WriteOptions::default().with_encoding(Encoding::Ansel).with_line_ending(LineEnding::CrLf);
/// assert_eq!(options.line_limit, None); // 255 octets (510 in UTF-16)
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteOptions {
    /// The output encoding (default UTF-8, R-SERIALISING-LINE-STRINGS-04). Characters it cannot write become
    /// Unicode escapes (R-UNICODE-ESCAPE-05).
    pub encoding: Encoding,
    /// The line break.
    pub line_ending: LineEnding,
    /// The most octets a line may take, its line break included, in the output encoding
    /// (R-SERIALISING-STRUCTS-08); `None`: 255, or 510 in UTF-16. Longer payloads are split with `CONC`
    /// lines; a line runs long only where no split is allowed (a long run of spaces, a long identifier).
    /// GEDCOM 7 has no `CONC` and no limit.
    pub line_limit: Option<usize>,
    /// Whether the output starts with a byte-order mark; `None`: in UTF-16 only (R-SERIALISING-LINE-STRINGS-06,
    /// -07). An encoding that cannot write U+FEFF refuses `Some(true)`.
    pub bom: Option<bool>,
    /// The dialect to write; `None`: the dataset's (`Metadata::dialect`). ELF 1.0 and GEDCOM 5.5.x write
    /// `CONC` lines and escapes; GEDCOM 7 doubles only a leading `@`, has no `CONC` and is UTF-8 only.
    pub dialect: Option<Dialect>,
}

impl Default for WriteOptions {
    /// UTF-8, LF, 255 octets, no byte-order mark, the dataset's dialect.
    fn default() -> WriteOptions {
        WriteOptions {
            encoding: Encoding::Utf8,
            line_ending: LineEnding::Lf,
            line_limit: None,
            bom: None,
            dialect: None,
        }
    }
}

impl WriteOptions {
    /// These options with [`encoding`](WriteOptions::encoding) set.
    pub fn with_encoding(mut self, encoding: Encoding) -> WriteOptions {
        self.encoding = encoding;
        self
    }

    /// These options with [`line_ending`](WriteOptions::line_ending) set.
    pub fn with_line_ending(mut self, line_ending: LineEnding) -> WriteOptions {
        self.line_ending = line_ending;
        self
    }

    /// These options with [`line_limit`](WriteOptions::line_limit) set.
    pub fn with_line_limit(mut self, limit: usize) -> WriteOptions {
        self.line_limit = Some(limit);
        self
    }

    /// These options with [`bom`](WriteOptions::bom) set.
    pub fn with_bom(mut self, bom: bool) -> WriteOptions {
        self.bom = Some(bom);
        self
    }

    /// These options with [`dialect`](WriteOptions::dialect) set.
    pub fn with_dialect(mut self, dialect: Dialect) -> WriteOptions {
        self.dialect = Some(dialect);
        self
    }
}

/// What is wrong with a date the dialect written cannot hold with its meaning ([`WriteError::Calendar`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DateProblem {
    /// A calendar the dialect written has no name for.
    NoName,
    /// Text where a date starts that the dialect written would read as a calendar.
    ReadsAsCalendar,
    /// Text after a year that the dialect written would read as the year's epoch.
    ReadsAsEpoch,
}

/// Why a dataset cannot be written: nothing is written then.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriteError {
    /// A structure tagged `CONT` or `CONC`, which would read as a continuation line (R-SERIALISING-STRUCTS-04).
    ContinuationTag {
        /// The structure.
        id: StructureId,
    },
    /// A metadata structure tagged `CHAR`, `ELF`, `GEDC`, `PLANG` or `SCHMA` (outside `schemas`), which would
    /// read as serialisation metadata (R-HEADER-02).
    MetadataTag {
        /// The structure.
        id: StructureId,
        /// Its tag.
        tag: String,
    },
    /// Text that cannot be written: an identifier or a pointer with a character the encoding cannot write
    /// (identifiers have no escapes), U+0000, U+FFFE or U+FFFF (not characters, R-LINES-01), a schema
    /// payload (written as it is, R-HEADER-04) with a line break or a character the encoding cannot write, or
    /// in GEDCOM 7 (no escapes) a line of a string payload that would read as a pointer (`␉@X@`).
    Unwritable {
        /// The structure.
        id: StructureId,
        /// What holds the text: `identifier`, `pointer`, `payload`.
        what: &'static str,
        /// The text.
        text: String,
        /// The structure's path (`@I1@ INDI.NOTE`).
        path: String,
        /// Its line in the file it was read from, if known.
        line: Option<usize>,
    },
    /// A `DATE` whose calendar the dialect written has no name for (GEDCOM 5.5.1's `@#DROMAN@` or
    /// `@#DUNKNOWN@` in GEDCOM 7, a GEDCOM 7 extension calendar `_MAYA` in 5.5.1 or ELF), or with text that it
    /// would read as a calendar where a date starts (5.5.1's text `JULIAN 1700` in GEDCOM 7) or as an epoch
    /// after a year (5.5.1's text `44 BCE` in GEDCOM 7): written as it is, the date would change meaning. The
    /// calendars and epochs both name are converted (`@#DJULIAN@ 44 B.C.` ↔ `JULIAN 44 BCE`).
    Calendar {
        /// The structure.
        id: StructureId,
        /// The calendar as written, or the text that would read as a calendar or an epoch.
        calendar: String,
        /// What is wrong with it.
        problem: DateProblem,
        /// The dialect written.
        dialect: Dialect,
        /// The structure's path (`@I1@ INDI.BIRT.DATE`).
        path: String,
        /// Its line in the file it was read from, if known.
        line: Option<usize>,
    },
    /// An identifier or pointer the dialect written does not allow: in GEDCOM 7 one outside 7.0 `Xref`
    /// (upper-case letters, digits and `_`: `@f-1@`), a structure identified `@VOID@`, or a pointer to `@VOID@`
    /// from a dialect where it names a record (in GEDCOM 7 it would be the null pointer, which leads nowhere);
    /// or a tag it does not allow (in GEDCOM 7 one outside 7.0 `Tag`: `Name`, `_myTag`).
    NotInDialect {
        /// The structure.
        id: StructureId,
        /// `identifier`, `pointer` or `tag`.
        what: &'static str,
        /// The identifier (without `@`s) or the tag.
        text: String,
        /// Why the dialect refuses it.
        why: &'static str,
        /// The dialect written.
        dialect: Dialect,
        /// The structure's path (`@f-1@ FAM`).
        path: String,
        /// Its line in the file it was read from, if known.
        line: Option<usize>,
    },
    /// The dialect does not allow the encoding (GEDCOM 7 is UTF-8 only, 5.5.5 UTF-8 or UTF-16).
    EncodingNotInDialect {
        /// The dialect.
        dialect: Dialect,
        /// The encoding.
        encoding: Encoding,
    },
    /// A byte-order mark was asked for in an encoding that cannot write U+FEFF (R-SERIALISING-LINE-STRINGS-05).
    NoBom {
        /// The encoding.
        encoding: Encoding,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::ContinuationTag { id } => write!(
                f,
                "structure {} is tagged CONT or CONC, which would read as a continuation line",
                id.index()
            ),
            WriteError::MetadataTag { id, tag } => write!(
                f,
                "metadata structure {} is tagged {tag}, which would read as serialisation metadata",
                id.index()
            ),
            WriteError::Unwritable {
                what,
                text,
                path,
                line,
                ..
            } => write!(
                f,
                "the {what} {text:?} of `{path}`{} cannot be written in this encoding and dialect",
                at_line(*line)
            ),
            WriteError::Calendar {
                calendar,
                problem,
                dialect,
                path,
                line,
                ..
            } => {
                write!(f, "the date of `{path}`{} ", at_line(*line))?;
                match problem {
                    DateProblem::NoName => write!(
                        f,
                        "names a calendar, `{calendar}`, that {dialect} has no name for: written as it is, \
                         it would read as another date or as text"
                    ),
                    DateProblem::ReadsAsCalendar => write!(
                        f,
                        "has `{calendar}` where a date starts, which {dialect} would read as a calendar and \
                         the file's dialect reads as text: if a calendar is meant, name it as the file's \
                         dialect does (5.5.x and ELF `@#DJULIAN@`, GEDCOM 7 `JULIAN`), else make it a date \
                         phrase"
                    ),
                    DateProblem::ReadsAsEpoch => write!(
                        f,
                        "has `{calendar}` after a year, which {dialect} would read as the year's epoch and \
                         the file's dialect reads as text: if an epoch is meant, write it as the file's \
                         dialect does (5.5.x and ELF `44 B.C.`, GEDCOM 7 `44 BCE`), else make it a date \
                         phrase"
                    ),
                }
            }
            WriteError::NotInDialect {
                what,
                text,
                why,
                dialect,
                path,
                line,
                ..
            } => {
                let (shown, hint) = match *what {
                    "tag" => (
                        format!("`{text}`"),
                        format!("rename it first (`gedgraft fix --rename-tag {text}=NEW`)"),
                    ),
                    "pointer" => (
                        format!("`@{text}@`"),
                        "renumber the record it leads to first (`gedgraft fix --set-xref`: pointers \
                         follow), or point it elsewhere (`--set-pointer`)"
                            .to_string(),
                    ),
                    _ => (
                        format!("`@{text}@`"),
                        "renumber it first (`gedgraft fix --set-xref`: pointers follow)".to_string(),
                    ),
                };
                write!(
                    f,
                    "the {what} {shown} of `{path}`{} cannot be written in {dialect}: {why}; {hint}",
                    at_line(*line)
                )
            }
            WriteError::EncodingNotInDialect { dialect, encoding } => {
                write!(
                    f,
                    "{dialect} files cannot be written in {}, only in {} (the output encoding: \
                     `gedgraft fmt --to-encoding`, `gedgraft write --encoding`)",
                    encoding.name(),
                    dialect.allowed_encodings()
                )
            }
            WriteError::NoBom { encoding } => {
                write!(f, "{} has no byte-order mark", encoding.name())
            }
        }
    }
}

impl std::error::Error for WriteError {}

/// ` (line N)` when the line is known.
fn at_line(line: Option<usize>) -> String {
    line.map(|l| format!(" (line {l})")).unwrap_or_default()
}

/// The serialisation metadata tags of the header (R-HEADER-02).
const METADATA_TAGS: [&str; 5] = ["CHAR", "ELF", "GEDC", "PLANG", "SCHMA"];

/// Writes `dataset` as octets (2019 § Serialisation).
///
/// ```
/// use gedgraft_model::{write, DatasetBuilder, NewStructure, WriteOptions};
/// let mut b = DatasetBuilder::new();
/// b.record(NewStructure::new("INDI").with_xref("I1"))?;
/// b.child(NewStructure::new("EMAIL").with_text("name@example.com"))?;
/// let octets = write(&b.finish(), &WriteOptions::default()).unwrap();
/// assert_eq!(
///     String::from_utf8(octets).unwrap(),
///     "0 HEAD\n1 CHAR UTF-8\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 @I1@ INDI\n1 EMAIL name@@example.com\n0 TRLR\n"
/// );
/// # Ok::<(), gedgraft_model::BuildError>(())
/// ```
pub fn write(dataset: &Dataset, options: &WriteOptions) -> Result<Vec<u8>, WriteError> {
    write_planned(dataset, &Plan::new(dataset, options)?)
}

/// [`write`] with the plan made.
fn write_planned(dataset: &Dataset, plan: &Plan) -> Result<Vec<u8>, WriteError> {
    let mut w = Lines {
        plan,
        out: String::with_capacity(dataset.len().saturating_mul(28)),
    };
    w.header(dataset)?;
    for part in write_records(dataset, plan) {
        w.out.push_str(&part?);
    }
    w.line(0, None, "TRLR", "");
    Ok(encoded(plan, plan.bom, w.out))
}

/// `text` in the plan's encoding, after a byte-order mark when `bom`.
fn encoded(plan: &Plan, bom: bool, text: String) -> Vec<u8> {
    let mut octets = Vec::with_capacity(text.len() + 4);
    if bom {
        let _ = plan.encoding.encode("\u{feff}", &mut octets);
    }
    if plan.encoding == Encoding::Utf8 && octets.is_empty() {
        return text.into_bytes();
    }
    // Everything written is writable (escaped, or checked), so encoding cannot fail.
    let _ = plan.encoding.encode(&text, &mut octets);
    octets
}

/// Structures per run of records written by one job: runs of the records are written on the cores, each into
/// its own text, then joined in order (records are independent once the plan has named every identifier).
const STRUCTURES_PER_JOB: usize = 1 << 16;

/// The records' lines (the `UNDEF` records the plan leaves to the reader excepted), in runs of about
/// [`STRUCTURES_PER_JOB`] structures written on the cores, in order; a run stops at its first error.
fn write_records(dataset: &Dataset, plan: &Plan) -> Vec<Result<String, WriteError>> {
    let mut runs: Vec<Vec<StructureRef<'_>>> = vec![Vec::new()];
    let mut size = 0;
    for record in dataset.records() {
        if plan.made_undef.contains(&record.id()) {
            continue;
        }
        if size >= STRUCTURES_PER_JOB {
            runs.push(Vec::new());
            size = 0;
        }
        size += record.subtree_end().index() - record.id().index();
        if let Some(run) = runs.last_mut() {
            run.push(record);
        }
    }
    let workers = workers_for(dataset.len(), STRUCTURES_PER_JOB);
    in_order(runs, workers, |run| {
        let structures: usize = run
            .iter()
            .map(|r| r.subtree_end().index() - r.id().index())
            .sum();
        let mut w = Lines {
            plan,
            out: String::with_capacity(structures.saturating_mul(28)),
        };
        for record in run {
            w.subtree(record, 0, false)?;
        }
        Ok(w.out)
    })
}

/// The serialisation metadata `write(dataset, options)` declares, which the output lowers to: the dataset's,
/// in the chosen dialect, with what the writer must add. `1 ELF 1.0.0` when the output holds a Unicode
/// escape, a schema, a payload language or a datatype (R-SERIALISATION-VERSION-01); a legacy GEDCOM version
/// (`5.5.1`, `LINEAGE-LINKED`) when the dataset has none (R-GEDCOM-VERSION-01, -02). GEDCOM 7 writes
/// `GEDC.VERS 7.x` and never `ELF`.
pub fn written_metadata(dataset: &Dataset, options: &WriteOptions) -> Result<Metadata, WriteError> {
    Ok(Plan::new(dataset, options)?.metadata)
}

/// What the writer decided before writing a line.
#[derive(Debug, Clone)]
struct Plan {
    /// The dialect written (the header's, once [`settled`](Plan::settle)).
    dialect: Dialect,
    /// The dialect asked for, or the dataset's: the one whose rules the payloads are checked by.
    asked: Dialect,
    /// The dataset's dialect, as read: how its dates name their calendars.
    read: Dialect,
    encoding: Encoding,
    eol: &'static str,
    limit: usize,
    bom: bool,
    /// The metadata the header declares (`schemas` and `other` as the dataset's).
    metadata: Metadata,
    /// The payload language that needs no `PLANG`.
    default_language: String,
    /// The `UNDEF` records the lowering made for pointers (R-POINTER-CONV-10): made again on reading.
    made_undef: FxHashSet<StructureId>,
    /// Fresh identifiers for structures whose identifier an earlier structure already holds
    /// (R-POINTER-CONV-03); pointers keep naming the identifier as written, which resolves to the first.
    renamed: rustc_hash::FxHashMap<StructureId, String>,
    /// The first thing found that takes `1 ELF` (R-SERIALISATION-VERSION-01), if any.
    need: Option<Need>,
}

/// What takes `1 ELF` in the output (R-SERIALISATION-VERSION-01).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Need {
    /// A schema (the first).
    Schema(StructureId),
    /// The header's default payload language (`PLANG`).
    DefaultLanguage(String),
    /// A payload language other than the default (`PLANG` under the structure).
    Language(StructureId, String),
    /// A datatype (`DTYPE`).
    Datatype(StructureId, String),
    /// A character written as a Unicode escape.
    Escape(StructureId, char),
}

impl Plan {
    fn new(dataset: &Dataset, options: &WriteOptions) -> Result<Plan, WriteError> {
        let mut plan = Plan::start(&dataset.metadata, options)?;
        for s in dataset.iter() {
            plan.made_undef.extend(made_record(s));
            plan.look_for_need(s);
        }
        plan.renamed = fresh_ids(dataset);
        plan.settle(&dataset.metadata);
        Ok(plan)
    }

    /// The plan's settings from the options and the dataset's metadata `given`, before any structure is
    /// read: no identifier renamed yet, and the header's metadata to [`settle`](Plan::settle).
    fn start(given: &Metadata, options: &WriteOptions) -> Result<Plan, WriteError> {
        let dialect = options.dialect.unwrap_or(given.dialect);
        let encoding = options.encoding;
        if !dialect.allows_encoding(encoding) {
            return Err(WriteError::EncodingNotInDialect { dialect, encoding });
        }
        let bom = options.bom.unwrap_or(encoding.is_utf16());
        if bom && !encoding.can_encode('\u{feff}') {
            return Err(WriteError::NoBom { encoding });
        }
        let need = match (given.schemas.first(), &given.default_language) {
            (Some(&id), _) => Some(Need::Schema(id)),
            (None, Some(lang)) => Some(Need::DefaultLanguage(lang.clone())),
            (None, None) => None,
        };
        let limit = options
            .line_limit
            .unwrap_or(if encoding.is_utf16() { 510 } else { 255 });
        Ok(Plan {
            dialect,
            asked: dialect,
            read: given.dialect,
            encoding,
            eol: options.line_ending.as_str(),
            limit: line_limit(dialect, limit),
            bom,
            metadata: given.clone(),
            default_language: given
                .default_language
                .as_deref()
                .unwrap_or("und")
                .to_string(),
            made_undef: FxHashSet::default(),
            renamed: rustc_hash::FxHashMap::default(),
            need,
        })
    }

    /// Whether `s` is the first structure that takes `1 ELF` (R-SERIALISATION-VERSION-01): noted if so.
    fn look_for_need(&mut self, s: StructureRef<'_>) -> bool {
        let Some(Payload::Text(t)) = s.payload().filter(|_| self.need.is_none()) else {
            return false;
        };
        self.need = if t.lang != self.default_language {
            Some(Need::Language(s.id(), t.lang.to_string()))
        } else if let Some(d) = t.datatype {
            Some(Need::Datatype(s.id(), d.to_string()))
        } else {
            text::first_unicode_escape(self.asked, s.tag(), t.text, self.encoding)
                .map(|c| Need::Escape(s.id(), c))
        };
        self.need.is_some()
    }

    /// Once every structure was read: the metadata the header declares, and the dialect written.
    fn settle(&mut self, given: &Metadata) {
        self.metadata = header_metadata(given, self.asked, self.need.is_some());
        self.dialect = self.metadata.dialect;
    }
}

/// The `UNDEF` record the lowering made for the pointer `s` (R-POINTER-CONV-10), if it is one that leads to
/// such a record: the reader makes it again, so it is not written.
fn made_record(s: StructureRef<'_>) -> Option<StructureId> {
    match s.payload() {
        Some(Payload::Pointer(p)) if p.undefined => p.record,
        _ => None,
    }
}

/// R-POINTER-CONV-03: the first structure holding an identifier keeps it, each later one gets a fresh id no
/// structure uses, valid under both grammars (R-POINTER-CONV-02) and at most 20 characters (R-POINTER-CONV-05):
/// the old id's leading valid characters (at most 12, `X` if none), `_` and a number, e.g. `I1_2`.
fn fresh_ids(dataset: &Dataset) -> rustc_hash::FxHashMap<StructureId, String> {
    let used: FxHashSet<&str> = dataset.iter().filter_map(|s| s.xref()).collect();
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    let later: Vec<(StructureId, &str)> = (dataset.iter())
        .filter_map(|s| Some((s.id(), s.xref()?)))
        .filter(|&(_, x)| !seen.insert(x))
        .collect();
    let fresh = fresh_names(later.iter().map(|&(_, x)| x), |x| used.contains(x));
    later.into_iter().map(|(id, _)| id).zip(fresh).collect()
}

/// The fresh identifiers of [`fresh_ids`] for the later holders of identifiers, given their identifiers in
/// file order, none of them `used`.
fn fresh_names<'x>(
    later: impl Iterator<Item = &'x str>,
    used: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut taken: FxHashSet<String> = FxHashSet::default();
    let mut next = 2u64;
    let mut names = Vec::new();
    for x in later {
        let stem: String = x
            .chars()
            .take_while(|&c| c.is_ascii_graphic() && !"@!:#%()/".contains(c))
            .take(12)
            .collect();
        let stem = if stem.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            stem
        } else {
            "X".to_string()
        };
        let fresh = loop {
            let candidate = format!("{stem}_{next}");
            next += 1;
            if !used(&candidate) && !taken.contains(&candidate) {
                break candidate;
            }
        };
        taken.insert(fresh.clone());
        names.push(fresh);
    }
    names
}

/// The metadata a header written in `dialect` declares (see [`written_metadata`]).
fn header_metadata(given: &Metadata, dialect: Dialect, needs_elf: bool) -> Metadata {
    let v = |s: &str| Version::parse(s);
    let mut m = given.clone();
    m.dialect = dialect;
    if let Dialect::Gedcom7 { minor } = dialect {
        m.elf_version = None;
        m.gedcom_form = None;
        if given.gedcom_version.is_none_or(|g| g.major != 7) {
            m.gedcom_version = Some(Version {
                major: 7,
                minor,
                revision: 0,
            });
        }
        return m;
    }
    // The dataset's version when it is of the dialect (`5.5.1` as it spelled it), else the dialect's.
    let gedcom = |name: &str| match given.gedcom_version {
        Some(g) if Dialect::from_gedcom_version(&short(g)) == dialect => Some(g),
        _ => v(name),
    };
    match dialect {
        Dialect::Gedcom55 => m.gedcom_version = gedcom("5.5"),
        Dialect::Gedcom555 => m.gedcom_version = gedcom("5.5.5"),
        Dialect::Gedcom551 => m.gedcom_version = gedcom("5.5.1"),
        _ => {}
    }
    // No version, or GEDCOM 7's under ELF (whose serialisation is 5.5.1's): a reader that goes by `GEDC.VERS`
    // would read the file by 7.0's rules.
    if m.gedcom_version.is_none_or(|g| g.major == 7) {
        m.gedcom_version = v("5.5.1");
    }
    if m.gedcom_form.is_none() {
        m.gedcom_form = Some("LINEAGE-LINKED".to_string());
    }
    if dialect == Dialect::Elf10 || needs_elf {
        m.elf_version = m.elf_version.or_else(|| v("1.0.0"));
    } else {
        m.elf_version = None;
    }
    m.dialect = if m.elf_version.is_some() {
        Dialect::Elf10
    } else {
        m.gedcom_version.map_or(Dialect::Unknown, |g| {
            Dialect::from_gedcom_version(&short(g))
        })
    };
    m
}

/// A legacy version as GEDCOM writes it: `5.5`, `5.5.1`, `7.0`.
fn short(v: Version) -> String {
    match v.revision {
        0 => format!("{}.{}", v.major, v.minor),
        r => format!("{}.{}.{r}", v.major, v.minor),
    }
}

/// The output text, line by line.
struct Lines<'p> {
    plan: &'p Plan,
    out: String,
}

impl Lines<'_> {
    /// One line: level, identifier, tag, payload (as written), line break (R-SERIALISING-LINES-01, -02).
    fn line(&mut self, level: usize, xref: Option<&str>, tag: &str, payload: &str) {
        self.head(level, xref, tag);
        if !payload.is_empty() {
            self.out.push(' ');
            self.out.push_str(payload);
        }
        self.out.push_str(self.plan.eol);
    }

    fn head(&mut self, level: usize, xref: Option<&str>, tag: &str) {
        use std::fmt::Write as _;
        let _ = write!(self.out, "{level} ");
        if let Some(x) = xref {
            self.out.push('@');
            self.out.push_str(x);
            self.out.push_str("@ ");
        }
        self.out.push_str(tag);
    }

    fn header(&mut self, dataset: &Dataset) -> Result<(), WriteError> {
        let plan = self.plan;
        let m = &plan.metadata;
        self.line(0, None, "HEAD", "");
        if !plan.dialect.is_utf8_only() {
            let declared = declaration(plan.encoding);
            self.line(1, None, "CHAR", declared.char);
            if let Some(vers) = declared.vers {
                self.line(2, None, "VERS", vers);
            }
        }
        if let Some(elf) = m.elf_version {
            self.line(1, None, "ELF", &elf.to_string());
        }
        if let Some(g) = m.gedcom_version {
            self.line(1, None, "GEDC", "");
            self.line(2, None, "VERS", &short(g));
            if let Some(form) = &m.gedcom_form {
                self.line(2, None, "FORM", form);
            }
        }
        if let Some(lang) = &m.default_language {
            self.line(1, None, "PLANG", lang);
        }
        // Schemas and metadata structures in id order: the order of the file they were read from.
        let mut roots: Vec<(StructureId, bool)> = m.schemas.iter().map(|&id| (id, true)).collect();
        roots.extend(m.other.iter().map(|&id| (id, false)));
        roots.sort_unstable();
        for (id, schema) in roots {
            let Some(s) = dataset.get(id) else { continue };
            if !schema && METADATA_TAGS.contains(&s.tag()) {
                return Err(WriteError::MetadataTag {
                    id,
                    tag: s.tag().to_string(),
                });
            }
            self.subtree(s, 1, schema)?;
        }
        Ok(())
    }

    /// A structure and its descendants in pre-order, from `level`, with a stack of the open structures'
    /// subtree ends. `literal`: a schema, whose payloads are written as they are (R-HEADER-04).
    fn subtree(
        &mut self,
        root: StructureRef<'_>,
        level: usize,
        literal: bool,
    ) -> Result<(), WriteError> {
        let mut open: Vec<StructureId> = Vec::new();
        for s in root.descendants() {
            while open.last().is_some_and(|&end| end <= s.id()) {
                open.pop();
            }
            self.structure(s, level + open.len(), literal)?;
            open.push(s.subtree_end());
        }
        Ok(())
    }

    fn structure(
        &mut self,
        s: StructureRef<'_>,
        level: usize,
        literal: bool,
    ) -> Result<(), WriteError> {
        let plan = self.plan;
        let id = s.id();
        let tag = s.tag();
        if matches!(tag, "CONT" | "CONC") {
            return Err(WriteError::ContinuationTag { id });
        }
        let unwritable = |what, text: &str| WriteError::Unwritable {
            id,
            what,
            text: text.to_string(),
            path: report::path_of(&s),
            line: s.line(),
        };
        let fits = |text: &str| text.chars().all(|c| writable(c, plan.encoding));
        let xref = plan.renamed.get(&id).map(String::as_str).or(s.xref());
        if let Some(x) = xref.filter(|x| !fits(x)) {
            return Err(unwritable("identifier", x));
        }
        let not_in_dialect = |what, text: &str, why| WriteError::NotInDialect {
            id,
            what,
            text: text.to_string(),
            why,
            dialect: plan.dialect,
            path: report::path_of(&s),
            line: s.line(),
        };
        if let Some(why) = xref.and_then(|x| plan.dialect.xref_refusal(x)) {
            return Err(not_in_dialect("identifier", xref.unwrap_or(""), why));
        }
        if let Some(why) = plan.dialect.tag_refusal(tag) {
            return Err(not_in_dialect("tag", tag, why));
        }
        match s.payload() {
            None => self.line(level, xref, tag, ""),
            Some(Payload::Pointer(p)) => {
                if !fits(p.target) {
                    return Err(unwritable("pointer", p.target));
                }
                let null = plan.dialect.null_pointer();
                let why = match Some(p.target) == null {
                    true => (plan.read.null_pointer() != null)
                        .then_some("it would read as the null pointer, which leads nowhere"),
                    false => plan.dialect.xref_refusal(p.target),
                };
                if let Some(why) = why {
                    return Err(not_in_dialect("pointer", p.target, why));
                }
                self.line(level, xref, tag, &format!("@{}@", p.target));
            }
            Some(Payload::Text(t)) if literal => {
                if !fits(t.text)
                    || t.text.contains(['\n', '\r'])
                    || t.text.chars().any(text::is_unwritable)
                {
                    return Err(unwritable("payload", t.text));
                }
                self.line(level, xref, tag, t.text);
            }
            Some(Payload::Text(t)) => {
                let date = match tag {
                    "DATE" => calendars_as(plan.read, plan.dialect, t.text).map_err(|refused| {
                        let (calendar, problem) = match refused {
                            Refused::NoName(c) => (c, DateProblem::NoName),
                            Refused::ReadsAsCalendar(c) => (c, DateProblem::ReadsAsCalendar),
                            Refused::ReadsAsEpoch(c) => (c, DateProblem::ReadsAsEpoch),
                        };
                        WriteError::Calendar {
                            id,
                            calendar,
                            problem,
                            dialect: plan.dialect,
                            path: report::path_of(&s),
                            line: s.line(),
                        }
                    })?,
                    _ => Cow::Borrowed(t.text),
                };
                let value = date.as_ref();
                // A carriage return is written `@#UD@`; without escapes (GEDCOM 7) it would read back as a line
                // break, a LF: refused rather than changed.
                let lost_cr = !plan.dialect.has_escapes() && value.contains('\r');
                if lost_cr || value.chars().any(text::is_unwritable) {
                    return Err(unwritable("payload", value));
                }
                if !self.text_lines(level, xref, tag, value) {
                    return Err(unwritable("payload", value));
                }
                if t.lang != plan.default_language || t.text.is_empty() {
                    self.line(level + 1, None, "PLANG", t.lang);
                }
                if let Some(datatype) = t.datatype {
                    self.line(level + 1, None, "DTYPE", datatype);
                }
            }
        }
        Ok(())
    }

    /// A string payload on its first line and its `CONT`/`CONC` lines (R-SERIALISING-STRUCTS-05..15); `false`
    /// if the dialect cannot write it ([`text::segments`]).
    fn text_lines(&mut self, level: usize, xref: Option<&str>, tag: &str, text: &str) -> bool {
        let plan = self.plan;
        let enc = plan.encoding;
        let eol = octets(plan.eol, enc);
        let start = self.out.len();
        self.head(level, xref, tag);
        let first_fixed = octets(&self.out[start..], enc) + octets(" ", enc) + eol;
        let as_is = text::as_is(text, enc);
        // Most payloads: one line of text written as it is that fits the limit.
        if as_is && first_fixed + octets(text, enc) <= plan.limit && !text.contains(['\n', '\r']) {
            self.payload(text);
            return true;
        }
        let budget = Budget {
            limit: plan.limit,
            first_fixed,
            more_fixed: octets(&format!("{} CONC ", level + 1), enc) + eol,
        };
        let laid: Laid<String> = if as_is {
            // Text written as it is (most long notes): laid out as text, no unit made per character.
            let segments = split_lines(text).into_iter();
            lay_out(segments.map(|segment| plain_pieces(segment, enc)), budget)
        } else {
            let Some(segments) = text::segments(plan.dialect, tag, text, enc) else {
                self.out.truncate(start);
                return false;
            };
            let laid = lay_out_segments(segments, budget);
            let text = |units: Vec<Unit>| units.iter().map(|u| u.text.as_str()).collect();
            Laid {
                first: text(laid.first),
                more: laid.more.into_iter().map(|(c, u)| (c, text(u))).collect(),
            }
        };
        self.payload(&laid.first);
        for (cont, line) in &laid.more {
            self.head(level + 1, None, if *cont { "CONT" } else { "CONC" });
            self.payload(line);
        }
        true
    }

    /// The rest of a line after its head: the separator and the payload unless it is empty, and the line break.
    fn payload(&mut self, payload: &str) {
        if !payload.is_empty() {
            self.out.push(' ');
            self.out.push_str(payload);
        }
        self.out.push_str(self.plan.eol);
    }
}
