//! The lowering pass: typed CST → [`Dataset`] (2019 § Parsing steps 2b–4, § Header metadata, § Escaping,
//! § Pointer conversion).
//!
//! Every walk over the tree uses an explicit stack, so a file of 100 000 nested levels is fine (invariant 4).

use crate::codes;
use crate::dataset::{Dataset, Payload, Pointer, Structure, StructureId, Text, Version};
use crate::unescape::{literal_text, unescape_line, Finishing, TextBuilder};
use gedgraft_encoding::Encoding;
use gedgraft_syntax::ast::{AstNode, AstToken, Line, Structure as CstStructure};
use gedgraft_syntax::{codes as syntax_codes, Class, Diagnostic, Parse, Severity, SyntaxKind};
use std::collections::{BTreeMap, HashMap, HashSet};
use text_size::TextRange;

/// How to lower.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LowerOptions {
    /// Stop at the first malformed line, malformed structure or non-conformant structure, whether the syntax
    /// layer or the lowering found it (every diagnostic of severity error). The result then has an empty
    /// dataset, the lowering diagnostics up to that point and the diagnostic that stopped it
    /// ([`Lowered::stopped_at`]). The default, lenient mode recovers and reports everything.
    pub strict: bool,
    /// Normalise every string payload to Unicode Normalization Form C (R-UNICODE-ESCAPE-09). Off by default:
    /// the dataset keeps the characters as written.
    pub nfc: bool,
}

/// The result of lowering: the dataset and what the lowering found wrong.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lowered {
    /// The dataset; empty when strict mode stopped.
    pub dataset: Dataset,
    /// The lowering's own diagnostics, in file order. Syntax diagnostics are not repeated here: see
    /// [`Lowered::all_diagnostics`].
    pub diagnostics: Vec<Diagnostic>,
    /// In strict mode, the first error (from the syntax layer or the lowering) at which lowering stopped.
    pub stopped_at: Option<Diagnostic>,
}

impl Lowered {
    /// Every diagnostic of the file in file order: the syntax layer's and the lowering's (at equal offsets the
    /// syntax layer's first). After a strict stop, only those up to and including the one that stopped it.
    pub fn all_diagnostics<'a>(&'a self, parse: &'a Parse) -> Vec<&'a Diagnostic> {
        let syntax = parse.diagnostics();
        let mine = &self.diagnostics;
        let mut out = Vec::with_capacity(syntax.len() + mine.len());
        let (mut i, mut j) = (0, 0);
        while i < syntax.len() || j < mine.len() {
            let take_syntax = match (syntax.get(i), mine.get(j)) {
                (Some(s), Some(m)) => s.range.start() <= m.range.start(),
                (Some(_), None) => true,
                _ => false,
            };
            let d = if take_syntax {
                i += 1;
                &syntax[i - 1]
            } else {
                j += 1;
                &mine[j - 1]
            };
            out.push(d);
            if self.stopped_at.as_ref() == Some(d) {
                break;
            }
        }
        out
    }
}

/// Lowers a parsed file to its ELF dataset.
///
/// ```
/// use gedgraft_model::{lower, LowerOptions};
/// let parse = gedgraft_syntax::parse(
///     b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 @I1@ INDI\n1 NAME Jo@#UE3@o\n1 FAMC @F1@\n0 TRLR\n",
/// );
/// let lowered = lower(&parse, &LowerOptions::default());
/// let dataset = &lowered.dataset;
/// assert_eq!(dataset.metadata.gedcom_version.unwrap().to_string(), "5.5.1");
/// let indi = dataset.record_by_xref("I1").unwrap();
/// assert_eq!(indi.child("NAME").unwrap().text(), Some("João"));
/// let famc = indi.child("FAMC").unwrap();
/// assert_eq!(famc.target().unwrap().tag(), "UNDEF"); // no @F1@ in the file (R-POINTER-CONV-10)
/// assert_eq!(lowered.diagnostics[0].code, "undefined-pointer");
/// ```
pub fn lower(parse: &Parse, options: &LowerOptions) -> Lowered {
    let mut lowerer = Lowerer {
        parse,
        finishing: Finishing {
            ansel: parse.encoding() == Encoding::Ansel,
            nfc: options.nfc,
        },
        dataset: Dataset::default(),
        sink: Sink::default(),
        pointers: Vec::new(),
        default_language: "und".to_string(),
    };
    lowerer.run();
    lowerer.finish(options)
}

/// Collects diagnostics; locations are filled in at the end.
#[derive(Debug, Default)]
pub(crate) struct Sink {
    diagnostics: Vec<Diagnostic>,
}

impl Sink {
    /// Records a problem at `range` (tree offsets).
    pub fn report(
        &mut self,
        code: &'static str,
        class: Class,
        message: impl Into<String>,
        range: TextRange,
    ) {
        self.diagnostics
            .push(Diagnostic::new(code, class, message, range));
    }
}

/// How a subtree is lowered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The second pass (2019 § Second pass): escapes, continuation lines, `PLANG`/`DTYPE`.
    Normal,
    /// As written: serialisation metadata (`SCHMA`), whose payloads are never unescaped (R-HEADER-04).
    Literal,
}

/// A structure's payload before languages and pointers are settled.
enum Draft {
    Text(String),
    Pointer(String, TextRange),
}

struct Lowerer<'p> {
    parse: &'p Parse,
    finishing: Finishing,
    dataset: Dataset,
    sink: Sink,
    /// Structures with a pointer payload and the pointer's range.
    pointers: Vec<(StructureId, TextRange)>,
    default_language: String,
}

/// The serialisation metadata tags (R-HEADER-02; `GEDC`, not `GED`, per R-HEADER-03).
const SERIALISATION_METADATA: [&str; 5] = ["CHAR", "ELF", "GEDC", "PLANG", "SCHMA"];

fn tag_of(s: &CstStructure) -> String {
    s.tag().map(|t| t.text().to_string()).unwrap_or_default()
}

/// The range of a line's content: from its level to the end of its last token before the line break.
fn line_range(line: &Line) -> TextRange {
    let mut start = None;
    let mut end = line.text_range().start();
    for token in line.tokens() {
        match token.kind() {
            SyntaxKind::Whitespace | SyntaxKind::LineBreak => {}
            _ => {
                start.get_or_insert(token.text_range().start());
                end = token.text_range().end();
            }
        }
    }
    TextRange::new(start.unwrap_or(end).min(end), end)
}

fn first_line_range(s: &CstStructure) -> TextRange {
    s.line()
        .map(|l| line_range(&l))
        .unwrap_or_else(|| TextRange::empty(s.syntax().text_range().start()))
}

/// The payload as written, empty if there is none.
fn raw_payload(s: &CstStructure) -> String {
    s.payload().map(|p| p.raw_text()).unwrap_or_default()
}

fn payload_range(s: &CstStructure) -> TextRange {
    match s.payload() {
        Some(p) => {
            let start = p.separator().text_range().end();
            let end = p.tokens().last().map_or(start, |t| t.text_range().end());
            TextRange::new(start, end)
        }
        None => first_line_range(s),
    }
}

impl Lowerer<'_> {
    fn run(&mut self) {
        let document = self.parse.document();
        let records: Vec<CstStructure> = document
            .records()
            .filter_map(|r| CstStructure::cast(r.syntax().clone()))
            .collect();
        let mut start = 0;
        let mut end = records.len();
        if let Some(first) = records.first() {
            if tag_of(first) == "HEAD" {
                // R-TAGGED-STRUCTS-01/02: the header comes first and is read before the rest.
                self.header(first);
                start = 1;
            }
        }
        // R-TAGGED-STRUCTS-04: the trailer is discarded. The syntax layer has reported a trailer with an xref
        // or payload (`non-empty-trailer`) and anything after it, so any final TRLR record goes.
        if end > start && records.get(end - 1).is_some_and(|r| tag_of(r) == "TRLR") {
            end -= 1;
        }
        for record in records.get(start..end).unwrap_or_default() {
            let id = self.lower_tree(record.clone(), Mode::Normal);
            self.dataset.records.push(id);
        }
        self.resolve_pointers();
    }

    fn report(&mut self, code: &'static str, class: Class, message: String, range: TextRange) {
        self.sink.report(code, class, message, range);
    }

    // ----- Header metadata (2019 § Parsing serialisation metadata) -----

    fn header(&mut self, header: &CstStructure) {
        self.check_header_line(header);
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut kept: Vec<(CstStructure, Mode)> = Vec::new();
        for sub in header.substructures() {
            let tag = tag_of(&sub);
            if !SERIALISATION_METADATA.contains(&tag.as_str()) {
                kept.push((sub, Mode::Normal));
                continue;
            }
            self.check_metadata_tree(&sub, &tag);
            if tag != "SCHMA" {
                let line = self.parse.locate(sub.syntax().text_range().start()).line;
                if let Some(first) = seen.get(&tag) {
                    // R-PARSING-METADATA-04
                    self.report(
                        codes::DUPLICATE_METADATA,
                        Class::NonConformant,
                        format!(
                            "a second {tag} in the header (the first is on line {first}); ignored"
                        ),
                        first_line_range(&sub),
                    );
                    continue;
                }
                seen.insert(tag.clone(), line);
            }
            match tag.as_str() {
                "ELF" => self.elf_version(&sub),
                "GEDC" => self.gedcom_version(&sub),
                "PLANG" => self.default_language(&sub),
                "SCHMA" => kept.push((sub, Mode::Literal)),
                // R-PARSING-METADATA-05: CHAR was used when the file was decoded.
                _ => {}
            }
        }
        // Metadata structures and schemas are lowered once the default language is known, in file order.
        for (sub, mode) in kept {
            let id = self.lower_tree(sub, mode);
            match mode {
                Mode::Normal => self.dataset.metadata.other.push(id),
                Mode::Literal => self.dataset.metadata.schemas.push(id),
            }
        }
    }

    /// R-HEADER-01: no xref, payload or continuation lines on the header. A first line other than `0 HEAD` is
    /// already the syntax layer's `first-line-not-head`.
    fn check_header_line(&mut self, header: &CstStructure) {
        let start = header.syntax().text_range().start();
        let reported = self
            .parse
            .diagnostics()
            .iter()
            .any(|d| d.code == syntax_codes::FIRST_LINE_NOT_HEAD && d.range.start() == start);
        let has_payload = !raw_payload(header).trim_matches([' ', '\t']).is_empty();
        if !reported && (header.xref().is_some() || has_payload) {
            self.report(
                codes::BAD_HEADER,
                Class::MalformedStructure,
                "the header record must be exactly `0 HEAD`, with no cross-reference identifier or payload"
                    .into(),
                first_line_range(header),
            );
        }
        for line in header.continuation_lines() {
            self.report(
                codes::BAD_HEADER,
                Class::MalformedStructure,
                "the header record has no payload to continue".into(),
                line_range(&line),
            );
        }
    }

    /// R-PARSING-METADATA-02: inside serialisation metadata, no xrefs, pointers or continuation lines
    /// (misplaced `HEAD`/`CONT`/`CONC`/`TRLR` structures are the syntax layer's).
    fn check_metadata_tree(&mut self, root: &CstStructure, root_tag: &str) {
        for s in root.syntax().descendants().filter_map(CstStructure::cast) {
            let tag = tag_of(&s);
            let mut problems = Vec::new();
            if s.xref().is_some() {
                problems.push("has a cross-reference identifier");
            }
            if s.payload().and_then(|p| p.pointer()).is_some() {
                problems.push("has a pointer payload");
            }
            for problem in problems {
                self.report(
                    codes::BAD_METADATA_STRUCTURE,
                    Class::NonConformant,
                    format!("{tag} in the serialisation metadata structure {root_tag} {problem}"),
                    first_line_range(&s),
                );
            }
            for line in s.continuation_lines() {
                let cont = line.tag().map(|t| t.text().to_string()).unwrap_or_default();
                self.report(
                    codes::BAD_METADATA_STRUCTURE,
                    Class::NonConformant,
                    format!(
                        "{cont} line in the serialisation metadata structure {root_tag}: continuation lines \
                         and escapes are not interpreted in serialisation metadata"
                    ),
                    line_range(&line),
                );
            }
        }
    }

    /// A version number from a metadata payload (taken literally, R-HEADER-04).
    fn version(&mut self, s: &CstStructure, what: &str) -> Option<Version> {
        let text = raw_payload(s);
        let version = Version::parse(&text);
        if version.is_none() {
            self.report(
                codes::BAD_VERSION_NUMBER,
                Class::NonConformant,
                format!("{what} `{text}` is not a version number (digits.digits or digits.digits.digits)"),
                payload_range(s),
            );
        }
        version
    }

    /// R-PARSING-METADATA-06, R-SERIALISATION-VERSION-02..04.
    fn elf_version(&mut self, s: &CstStructure) {
        let Some(v) = self.version(s, "the ELF serialisation version") else {
            return;
        };
        self.dataset.metadata.elf_version = Some(v);
        if v.major != 1 {
            self.report(
                codes::UNSUPPORTED_ELF_VERSION,
                Class::NonConformant,
                format!(
                    "ELF version {v} has major version {}; this parser reads ELF 1.x",
                    v.major
                ),
                payload_range(s),
            );
        } else if v.minor != 0 {
            self.report(
                codes::UNKNOWN_ELF_VERSION,
                Class::Warning,
                format!("unknown ELF version {v}; read as ELF 1.0"),
                payload_range(s),
            );
        }
    }

    /// R-PARSING-METADATA-07, R-GEDCOM-VERSION-03.
    fn gedcom_version(&mut self, gedc: &CstStructure) {
        let range = first_line_range(gedc);
        if !raw_payload(gedc).is_empty() {
            self.report(
                codes::BAD_GEDC,
                Class::NonConformant,
                "GEDC must not have a payload".into(),
                payload_range(gedc),
            );
        }
        let subs: Vec<CstStructure> = gedc.substructures().collect();
        let vers: Vec<&CstStructure> = subs.iter().filter(|s| tag_of(s) == "VERS").collect();
        let forms: Vec<&CstStructure> = subs.iter().filter(|s| tag_of(s) == "FORM").collect();
        for (name, found) in [("VERS", vers.len()), ("FORM", forms.len())] {
            if found != 1 {
                self.report(
                    codes::BAD_GEDC,
                    Class::NonConformant,
                    format!("GEDC must have exactly one {name} substructure; it has {found}"),
                    range,
                );
            }
        }
        if let Some(v) = vers.first() {
            if let Some(version) = self.version(v, "the GEDCOM version") {
                self.dataset.metadata.gedcom_version = Some(version);
                let known = (version.major, version.minor) == (5, 5) && version.revision <= 1;
                if !known {
                    self.report(
                        codes::UNSUPPORTED_GEDCOM_VERSION,
                        Class::NonConformant,
                        format!("GEDCOM version {version} is neither 5.5 nor 5.5.1"),
                        payload_range(v),
                    );
                }
            }
        }
        if let Some(form) = forms.first() {
            let text = raw_payload(form);
            if text != "LINEAGE-LINKED" {
                self.report(
                    codes::BAD_GEDC,
                    Class::NonConformant,
                    format!("GEDC.FORM is `{text}`; it must be `LINEAGE-LINKED`"),
                    payload_range(form),
                );
            }
            self.dataset.metadata.gedcom_form = Some(literal_text(&text, self.finishing));
        }
    }

    /// The default payload language (`1 PLANG`).
    fn default_language(&mut self, s: &CstStructure) {
        let text = literal_text(&raw_payload(s), self.finishing);
        if text.is_empty() {
            self.report(
                codes::BAD_LANGUAGE_TAG,
                Class::NonConformant,
                "PLANG has no language tag; ignored".into(),
                first_line_range(s),
            );
            return;
        }
        self.default_language.clone_from(&text);
        self.dataset.metadata.default_language = Some(text);
    }

    // ----- The second pass (2019 § Second pass) -----

    /// Lowers a structure and its substructures (explicit stack, pre-order) and returns its id.
    fn lower_tree(&mut self, root: CstStructure, mode: Mode) -> StructureId {
        let root_id = StructureId::new(self.dataset.structures.len());
        let mut stack: Vec<(CstStructure, Option<StructureId>)> = vec![(root, None)];
        let mut children: Vec<CstStructure> = Vec::new();
        while let Some((cst, parent)) = stack.pop() {
            let id = self.lower_one(&cst, parent, mode, &mut children);
            if let Some(p) = parent.and_then(|p| self.dataset.structures.get_mut(p.index())) {
                p.children.push(id);
            }
            stack.extend(children.drain(..).rev().map(|c| (c, Some(id))));
        }
        root_id
    }

    /// Lowers one structure; its substructures still to lower are left in `children`.
    fn lower_one(
        &mut self,
        cst: &CstStructure,
        parent: Option<StructureId>,
        mode: Mode,
        children: &mut Vec<CstStructure>,
    ) -> StructureId {
        let tag = tag_of(cst);
        let range = cst.syntax().text_range();
        // R-SECOND-PASS-02: misplaced HEAD, CONT, CONC and TRLR structures are the syntax layer's
        // (`misplaced-header`, `misplaced-continuation`, `continuation-at-level-0`, `misplaced-trailer`); they stay
        // in the dataset as ordinary structures.
        let draft = match mode {
            Mode::Normal => self.payload(cst),
            Mode::Literal => Draft::Text(literal_text(&raw_payload(cst), self.finishing)),
        };
        let id = StructureId::new(self.dataset.structures.len());
        let mut language = None;
        let mut datatype = None;
        for sub in cst.substructures() {
            let sub_tag = tag_of(&sub);
            if mode == Mode::Normal && (sub_tag == "PLANG" || sub_tag == "DTYPE") {
                let slot = if sub_tag == "PLANG" {
                    &mut language
                } else {
                    &mut datatype
                };
                self.annotation(&sub, &sub_tag, &draft, slot);
            } else {
                children.push(sub);
            }
        }
        let payload = match draft {
            Draft::Pointer(target, at) => {
                self.pointers.push((id, at));
                Some(Payload::Pointer(Pointer {
                    target,
                    record: None,
                    undefined: false,
                }))
            }
            Draft::Text(text) if text.is_empty() && language.is_none() && datatype.is_none() => {
                None
            }
            Draft::Text(text) => Some(Payload::Text(Text {
                text,
                lang: language.unwrap_or_else(|| self.default_language.clone()),
                datatype,
            })),
        };
        self.dataset.structures.push(Structure {
            xref: cst.xref().map(|x| x.id().to_string()),
            tag,
            payload,
            children: Vec::new(),
            parent,
            range: Some(range),
            line: Some(self.parse.locate(range.start()).line),
        });
        id
    }

    /// A pointer, or the unescaped string with its continuation lines merged (R-SECOND-PASS-04,
    /// R-PAYLOAD-UNESC-01..06, R-MERGE-CONTS-08..12).
    fn payload(&mut self, cst: &CstStructure) -> Draft {
        let first = cst.payload();
        if let Some(pointer) = first.as_ref().and_then(|p| p.pointer()) {
            // CONT/CONC lines after a pointer are the syntax layer's `continuation-of-pointer`; ignored here.
            return Draft::Pointer(pointer.target().to_string(), pointer.syntax().text_range());
        }
        Draft::Text(self.merged_text(cst))
    }

    /// Unescapes every line of a string payload, then merges them: `CONT` adds `\n`, `CONC` nothing.
    fn merged_text(&mut self, cst: &CstStructure) -> String {
        let mut text = TextBuilder::default();
        if let Some(payload) = cst.payload() {
            unescape_line(payload.tokens(), &mut text, &mut self.sink);
        }
        for line in cst.continuation_lines() {
            if line.tag().is_some_and(|t| t.text() == "CONT") {
                text.decoded("\n");
            }
            let Some(payload) = line.payload() else {
                continue;
            };
            if payload.pointer().is_some() {
                // R-MERGE-CONTS-07: the syntax layer's `pointer-in-continuation`; merged as the text it is.
                text.literal(&payload.raw_text());
            } else {
                unescape_line(payload.tokens(), &mut text, &mut self.sink);
            }
        }
        text.finish(self.finishing)
    }

    /// A `PLANG` or `DTYPE` substructure: sets the language or datatype of its parent's payload.
    fn annotation(
        &mut self,
        sub: &CstStructure,
        tag: &str,
        parent: &Draft,
        value: &mut Option<String>,
    ) {
        let range = first_line_range(sub);
        let misuse = |this: &mut Self, why: String| {
            this.report(
                codes::MISUSED_PAYLOAD_ANNOTATION,
                Class::NonConformant,
                format!("{tag} {why}; ignored"),
                range,
            );
        };
        if sub.xref().is_some() {
            return misuse(self, "must not have a cross-reference identifier".into());
        }
        if sub.substructures().next().is_some() {
            return misuse(self, "must not have substructures".into());
        }
        if sub.payload().and_then(|p| p.pointer()).is_some() {
            return misuse(self, "must not have a pointer payload".into());
        }
        if matches!(parent, Draft::Pointer(..)) {
            return misuse(self, "cannot annotate a pointer payload".into());
        }
        if value.is_some() {
            return misuse(self, "repeats an earlier one on the same structure".into());
        }
        let text = self.merged_text(sub);
        if text.is_empty() {
            if tag == "PLANG" {
                self.report(
                    codes::BAD_LANGUAGE_TAG,
                    Class::NonConformant,
                    "PLANG has no language tag; ignored".into(),
                    range,
                );
            } else {
                misuse(self, "has no datatype".into());
            }
            return;
        }
        *value = Some(text);
    }

    // ----- Pointers (2019 § Pointer conversion) -----

    fn resolve_pointers(&mut self) {
        let structures = &self.dataset.structures;
        let mut holders: HashMap<&str, Vec<StructureId>> = HashMap::new();
        for (i, s) in structures.iter().enumerate() {
            if let Some(x) = &s.xref {
                holders
                    .entry(x.as_str())
                    .or_default()
                    .push(StructureId::new(i));
            }
        }
        // Duplicates, reported at every holder after the first, in file order.
        let mut duplicate_reports = Vec::new();
        for (i, s) in structures.iter().enumerate() {
            let Some(x) = &s.xref else { continue };
            let Some(ids) = holders.get(x.as_str()) else {
                continue;
            };
            if ids.len() > 1 && ids.first().is_some_and(|f| f.index() != i) {
                let first_line = ids
                    .first()
                    .and_then(|f| structures.get(f.index()))
                    .and_then(|f| f.line)
                    .unwrap_or(0);
                let at = s
                    .range
                    .map_or(TextRange::default(), |r| TextRange::empty(r.start()));
                duplicate_reports.push((
                    format!(
                        "@{x}@ is already the identifier of the structure on line {first_line}"
                    ),
                    at,
                ));
            }
        }
        let records: HashSet<StructureId> = self.dataset.records.iter().copied().collect();
        let mut xrefs = BTreeMap::new();
        for (x, ids) in &holders {
            if let [only] = ids.as_slice() {
                if records.contains(only) {
                    xrefs.insert((*x).to_string(), *only);
                }
            }
        }
        // Why each unmatched identifier is unmatched.
        let why: HashMap<String, (&'static str, usize)> = holders
            .iter()
            .filter(|(x, _)| !xrefs.contains_key(**x))
            .map(|(x, ids)| {
                let code = if ids.len() > 1 {
                    codes::AMBIGUOUS_POINTER
                } else {
                    codes::POINTER_TO_SUBSTRUCTURE
                };
                ((*x).to_string(), (code, ids.len()))
            })
            .collect();
        for (message, at) in duplicate_reports {
            self.report(codes::DUPLICATE_XREF, Class::NonConformant, message, at);
        }
        let mut undefined: HashMap<String, StructureId> = HashMap::new();
        for (id, at) in std::mem::take(&mut self.pointers) {
            let Some(Payload::Pointer(pointer)) = self
                .dataset
                .structures
                .get(id.index())
                .and_then(|s| s.payload.as_ref())
            else {
                continue;
            };
            let target = pointer.target.clone();
            let (record, is_undefined) = match xrefs.get(&target) {
                Some(record) => (*record, false),
                None => {
                    let (code, message) = match why.get(&target) {
                        Some((code, n)) if *code == codes::AMBIGUOUS_POINTER => (
                            *code,
                            format!("@{target}@ is the identifier of {n} structures; the pointer goes to an UNDEF record"),
                        ),
                        Some((code, _)) => (
                            *code,
                            format!("@{target}@ is the identifier of a substructure, not a record; the pointer goes to an UNDEF record"),
                        ),
                        None => (
                            codes::UNDEFINED_POINTER,
                            format!("no record has the identifier @{target}@; the pointer goes to an UNDEF record"),
                        ),
                    };
                    self.report(code, Class::Warning, message, at);
                    let record = match undefined.get(&target) {
                        Some(record) => *record,
                        None => {
                            let record = self.undefined_record(&target);
                            undefined.insert(target, record);
                            record
                        }
                    };
                    (record, true)
                }
            };
            if let Some(Payload::Pointer(pointer)) = self
                .dataset
                .structures
                .get_mut(id.index())
                .and_then(|s| s.payload.as_mut())
            {
                pointer.record = Some(record);
                pointer.undefined = is_undefined;
            }
        }
        self.dataset.xrefs = xrefs;
    }

    /// R-POINTER-CONV-10..12: one `UNDEF` record per distinct unmatched identifier, no payload, no children.
    fn undefined_record(&mut self, target: &str) -> StructureId {
        let id = StructureId::new(self.dataset.structures.len());
        self.dataset.structures.push(Structure {
            xref: Some(target.to_string()),
            tag: "UNDEF".to_string(),
            payload: None,
            children: Vec::new(),
            parent: None,
            range: None,
            line: None,
        });
        self.dataset.records.push(id);
        id
    }

    fn finish(self, options: &LowerOptions) -> Lowered {
        let parse = self.parse;
        let mut diagnostics = self.sink.diagnostics;
        diagnostics.sort_by_key(|d| d.range.start());
        for d in &mut diagnostics {
            d.location = parse.locate(d.range.start());
            d.end_offset = parse.source_map().file_offset(usize::from(d.range.end()));
        }
        let mut lowered = Lowered {
            dataset: self.dataset,
            diagnostics,
            stopped_at: None,
        };
        if options.strict {
            stop_at_first_error(parse, &mut lowered);
        }
        lowered
    }
}

/// Strict mode: find the first error in file order among the syntax and lowering diagnostics; keep the
/// lowering diagnostics before it, and empty the dataset.
fn stop_at_first_error(parse: &Parse, lowered: &mut Lowered) {
    let syntax = parse
        .diagnostics()
        .iter()
        .find(|d| d.severity() == Severity::Error);
    let mine = lowered
        .diagnostics
        .iter()
        .position(|d| d.severity() == Severity::Error);
    let stop = match (syntax, mine) {
        (Some(s), Some(m)) if lowered.diagnostics[m].range.start() < s.range.start() => {
            Some((lowered.diagnostics[m].clone(), m + 1))
        }
        (Some(s), _) => {
            let keep = lowered
                .diagnostics
                .iter()
                .take_while(|d| d.range.start() < s.range.start())
                .count();
            Some((s.clone(), keep))
        }
        (None, Some(m)) => Some((lowered.diagnostics[m].clone(), m + 1)),
        (None, None) => None,
    };
    if let Some((stop, keep)) = stop {
        lowered.diagnostics.truncate(keep);
        lowered.dataset = Dataset::default();
        lowered.stopped_at = Some(stop);
    }
}
