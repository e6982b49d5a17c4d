//! What [`write`](super::write) changes beyond the layout, told before writing ([`write_report`]): the
//! dialect the header declares and why, the identifiers it renames, the letters ANSEL writes decomposed. A
//! caller that must not change meaning silently (the CLI's `write` and `fmt`) says these, or refuses.

use super::{text, Need, Plan, WriteError, WriteOptions};
use crate::dataset::{Dataset, Metadata, Payload, StructureId, StructureRef};
use gedgraft_encoding::Encoding;
use std::fmt;

/// What [`write`](super::write) with the same options will do that a reader should be told of
/// (see [`write_report`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteReport {
    /// The serialisation metadata the header declares (as [`written_metadata`](super::written_metadata)); its
    /// `dialect` is the dialect the output reads as.
    pub metadata: Metadata,
    /// The first thing found that takes `1 ELF` in the header (R-SERIALISATION-VERSION-01), which makes the
    /// output ELF 1.0 whatever dialect was asked for (GEDCOM 7 excepted, which never writes `ELF`).
    pub elf_needed_by: Option<ElfNeed>,
    /// The structures written with a fresh identifier because an earlier one holds theirs
    /// (R-POINTER-CONV-03), in dataset order.
    pub renames: Vec<Rename>,
    /// How many characters of string payloads are written decomposed (NFD) in ANSEL, which has no
    /// precomposed letters (R-SERIALISING-LINE-STRINGS-03); they read back canonically equivalent. 0 in other
    /// encodings.
    pub decomposed: usize,
    /// How many null pointers (GEDCOM 7's `@VOID@`) are written into a dialect that has none, where they read
    /// as pointers to no record. 0 otherwise.
    pub null_pointers: usize,
}

/// What takes `1 ELF` in the output, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ElfNeed {
    /// The structure that needs it; `None`: the header's default payload language.
    pub id: Option<StructureId>,
    /// Its path: the record's identifier and tag, then the tags down to it (`@I1@ INDI.NAME`); `HEAD` for the
    /// header's default language.
    pub path: String,
    /// Its line in the file it was read from, if known.
    pub line: Option<usize>,
    /// What needs ELF: `a Unicode escape for U+000B`, `payload language de (PLANG)`, `datatype … (DTYPE)`,
    /// `a schema (SCHMA)`, `the default payload language en (PLANG)`.
    pub what: String,
    /// The character written as a Unicode escape, when that is what needs ELF.
    pub character: Option<char>,
}

impl fmt::Display for ElfNeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{} in `{}` (line {line})", self.what, self.path),
            None => write!(f, "{} in `{}`", self.what, self.path),
        }
    }
}

/// A structure written with a fresh identifier (R-POINTER-CONV-03). Pointers keep naming `old`, which
/// resolves to the first structure holding it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rename {
    /// The renamed structure.
    pub id: StructureId,
    /// Its path before the rename (`@I1@ INDI`).
    pub path: String,
    /// Its line in the file it was read from, if known.
    pub line: Option<usize>,
    /// The identifier it holds in the dataset.
    pub old: String,
    /// The identifier it is written with.
    pub new: String,
}

/// Tells what `write(dataset, options)` will change beyond the layout, without writing; fails as
/// [`write`](super::write) would for the options. The decomposed count scans the payloads in ANSEL only.
///
/// ```
/// use gedgraft_model::{write_report, DatasetBuilder, NewStructure, WriteOptions};
/// use gedgraft_syntax::Dialect;
/// let mut b = DatasetBuilder::new();
/// b.record(NewStructure::new("NOTE").with_xref("N1").with_text("a\u{b}b"))?;
/// b.record(NewStructure::new("INDI").with_xref("N1"))?;
/// let options = WriteOptions::default().with_dialect(Dialect::Gedcom551);
/// let report = write_report(&b.finish(), &options).unwrap();
/// // The vertical tab is restricted: it is written `@#UB@`, which only ELF has.
/// assert_eq!(report.metadata.dialect, Dialect::Elf10);
/// assert_eq!(report.elf_needed_by.unwrap().to_string(), "a Unicode escape for U+000B in `@N1@ NOTE`");
/// assert_eq!((report.renames[0].old.as_str(), report.renames[0].new.as_str()), ("N1", "N1_2"));
/// # Ok::<(), gedgraft_model::BuildError>(())
/// ```
pub fn write_report(dataset: &Dataset, options: &WriteOptions) -> Result<WriteReport, WriteError> {
    Ok(report_of(dataset, Plan::new(dataset, options)?))
}

/// [`write`](super::write) and [`write_report`] at once, planning the output once (the plan reads every
/// payload and identifier of the dataset).
///
/// ```
/// use gedgraft_model::{write_with_report, DatasetBuilder, NewStructure, WriteOptions};
/// let mut b = DatasetBuilder::new();
/// b.record(NewStructure::new("NOTE").with_xref("N1").with_text("a"))?;
/// b.record(NewStructure::new("INDI").with_xref("N1"))?;
/// let (octets, report) = write_with_report(&b.finish(), &WriteOptions::default()).unwrap();
/// assert!(String::from_utf8(octets).unwrap().contains("0 @N1_2@ INDI\n"));
/// assert_eq!(report.renames[0].new, "N1_2");
/// # Ok::<(), gedgraft_model::BuildError>(())
/// ```
pub fn write_with_report(
    dataset: &Dataset,
    options: &WriteOptions,
) -> Result<(Vec<u8>, WriteReport), WriteError> {
    let plan = Plan::new(dataset, options)?;
    let octets = super::write_planned(dataset, &plan)?;
    Ok((octets, report_of(dataset, plan)))
}

/// The report of a plan made for `dataset`.
fn report_of(dataset: &Dataset, plan: Plan) -> WriteReport {
    let at = |id: StructureId| dataset.get(id);
    let elf_needed_by = plan.need.as_ref().map(|need| elf_need(need, dataset));
    let mut renames: Vec<Rename> = plan
        .renamed
        .iter()
        // The `UNDEF` records the lowering made are not written (the reader makes them again).
        .filter(|(id, _)| !plan.made_undef.contains(id))
        .filter_map(|(&id, new)| {
            let s = at(id)?;
            Some(Rename {
                new: new.clone(),
                ..rename_of(s)?
            })
        })
        .collect();
    renames.sort_unstable_by_key(|r| r.id);
    WriteReport {
        decomposed: decomposed_in(dataset, plan.encoding),
        null_pointers: null_pointers_in(dataset, &plan),
        metadata: plan.metadata,
        elf_needed_by,
        renames,
    }
}

/// What needs ELF (`need`, found in `dataset`), as the report tells it.
pub(super) fn elf_need(need: &Need, dataset: &Dataset) -> ElfNeed {
    let (id, what) = match need {
        Need::Schema(id) => (Some(*id), "a schema (SCHMA)".to_string()),
        Need::DefaultLanguage(lang) => {
            (None, format!("the default payload language {lang} (PLANG)"))
        }
        Need::Language(id, lang) => (Some(*id), format!("payload language {lang} (PLANG)")),
        Need::Datatype(id, d) => (Some(*id), format!("datatype {d} (DTYPE)")),
        Need::Escape(id, c) => (
            Some(*id),
            format!("a Unicode escape for U+{:04X}", u32::from(*c)),
        ),
    };
    let s = id.and_then(|id| dataset.get(id));
    ElfNeed {
        id,
        path: s.map_or_else(|| "HEAD".to_string(), |s| path_of(&s)),
        line: s.and_then(|s| s.line()),
        what,
        character: match need {
            Need::Escape(_, c) => Some(*c),
            _ => None,
        },
    }
}

/// The rename of `s`, a later holder of its identifier, with no new identifier yet.
pub(super) fn rename_of(s: StructureRef<'_>) -> Option<Rename> {
    Some(Rename {
        id: s.id(),
        path: path_of(&s),
        line: s.line(),
        old: s.xref()?.to_string(),
        new: String::new(),
    })
}

/// How many of `dataset`'s pointers are a null pointer the dialect `plan` writes has none of (see
/// [`WriteReport::null_pointers`]).
pub(super) fn null_pointers_in(dataset: &Dataset, plan: &Plan) -> usize {
    let Some(null) = plan
        .read
        .null_pointer()
        .filter(|_| plan.dialect.null_pointer().is_none())
    else {
        return 0;
    };
    (dataset.iter())
        .filter(|s| matches!(s.payload(), Some(Payload::Pointer(p)) if p.target == null))
        .count()
}

/// How many characters of `dataset`'s string payloads ANSEL writes decomposed; 0 in other encodings.
pub(super) fn decomposed_in(dataset: &Dataset, encoding: Encoding) -> usize {
    if encoding != Encoding::Ansel {
        return 0;
    }
    (dataset.iter())
        .map(|s| match s.payload() {
            Some(Payload::Text(t)) => text::ansel_decomposed(t.text),
            _ => 0,
        })
        .sum()
}

/// A structure's path: its record's identifier and tag, then the tags down to it (`@I1@ INDI.BIRT.DATE`).
pub(super) fn path_of(s: &StructureRef<'_>) -> String {
    let mut steps = vec![*s];
    while let Some(parent) = steps.last().and_then(|s| s.parent()) {
        steps.push(parent);
    }
    let mut out = String::new();
    let m = &s.dataset().metadata;
    if steps
        .last()
        .is_some_and(|top| m.schemas.contains(&top.id()) || m.other.contains(&top.id()))
    {
        out.push_str("HEAD.");
    }
    for (i, s) in steps.iter().rev().enumerate() {
        if i > 0 {
            out.push('.');
        }
        if let Some(x) = s.xref().filter(|_| i == 0) {
            out.push('@');
            out.push_str(x);
            out.push_str("@ ");
        }
        out.push_str(s.tag());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DatasetBuilder, NewStructure};
    use gedgraft_syntax::Dialect;

    fn dataset(records: &[(&str, &str, Option<&str>)]) -> Dataset {
        let mut b = DatasetBuilder::new();
        for &(xref, tag, text) in records {
            let mut s = NewStructure::new(tag).with_xref(xref);
            if let Some(t) = text {
                s = s.with_text(t);
            }
            b.record(s).expect("record");
        }
        b.finish()
    }

    /// R-SERIALISATION-VERSION-01: an escape (here of a character ASCII lacks) takes ELF; the report says
    /// which character, where.
    #[test]
    fn r_serialisation_version_01_the_first_escape_is_named() {
        let d = dataset(&[("N1", "NOTE", Some("plain")), ("N2", "NOTE", Some("Жук"))]);
        let ascii = WriteOptions::default()
            .with_encoding(Encoding::Ascii)
            .with_dialect(Dialect::Gedcom55);
        let report = write_report(&d, &ascii).expect("report");
        assert_eq!(report.metadata.dialect, Dialect::Elf10);
        let need = report.elf_needed_by.expect("needs ELF");
        assert_eq!(need.path, "@N2@ NOTE");
        assert_eq!(need.what, "a Unicode escape for U+0416");
        assert_eq!(need.character, Some('Ж'));
        // UTF-8 writes it as it is: no ELF, the dialect asked for.
        let utf8 = WriteOptions::default().with_dialect(Dialect::Gedcom55);
        let report = write_report(&d, &utf8).expect("report");
        assert_eq!(report.metadata.dialect, Dialect::Gedcom55);
        assert_eq!(report.elf_needed_by, None);
    }

    #[test]
    fn r_pointer_conv_03_renames_are_listed_in_order() {
        let d = dataset(&[
            ("I1", "INDI", None),
            ("I1", "INDI", None),
            ("F1", "FAM", None),
            ("I1", "INDI", None),
        ]);
        let report = write_report(&d, &WriteOptions::default()).expect("report");
        let renames: Vec<_> = report
            .renames
            .iter()
            .map(|r| (r.path.as_str(), r.old.as_str(), r.new.as_str()))
            .collect();
        assert_eq!(
            renames,
            [("@I1@ INDI", "I1", "I1_2"), ("@I1@ INDI", "I1", "I1_3")]
        );
        assert_eq!(report.decomposed, 0);
    }

    /// R-SERIALISING-LINE-STRINGS-03: ANSEL writes é decomposed.
    #[test]
    fn ansel_decomposition_is_counted() {
        let d = dataset(&[("N1", "NOTE", Some("José Müller"))]);
        let ansel = WriteOptions::default().with_encoding(Encoding::Ansel);
        assert_eq!(write_report(&d, &ansel).expect("report").decomposed, 2);
        let utf8 = WriteOptions::default();
        assert_eq!(write_report(&d, &utf8).expect("report").decomposed, 0);
    }
}
