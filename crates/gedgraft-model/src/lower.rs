//! The lowering pass: typed CST → [`Dataset`] (2019 § Parsing steps 2b–4, § Header metadata, § Escaping,
//! § Pointer conversion).
//!
//! Every walk over the tree uses an explicit stack, so a file of 100 000 nested levels is fine (invariant 4).

use crate::codes;
use crate::dataset::{Dataset, Payload, Pointer, Structure, StructureId, Text, Version};
use crate::green::{
    count_line_breaks, count_structures, is_line_break, strip_ats, Elements, LineInfo, Node,
};
use crate::locate::locate_sorted;
use crate::unescape::{literal_text, unescape_line, Finishing, TextBuilder};
use gedgraft_encoding::Encoding;
use gedgraft_syntax::rowan::{GreenNodeData, NodeOrToken};
use gedgraft_syntax::{codes as syntax_codes, Class, Diagnostic, Parse, Severity, SyntaxKind};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use text_size::{TextRange, TextSize};

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
    let finishing = Finishing {
        ansel: parse.encoding() == Encoding::Ansel,
        nfc: options.nfc,
    };
    let mut lowerer = Lowerer {
        parse,
        finishing,
        dataset: Dataset::default(),
        sink: Sink::default(),
        pointers: Vec::new(),
        default_language: "und".to_string(),
        text: TextBuilder::new(finishing),
        stack: Vec::new(),
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
    /// The buffer string payloads are assembled in.
    text: TextBuilder,
    /// The stack of [`Lowerer::lower_tree`], kept between records.
    stack: Vec<Frame<'p>>,
}

/// A frame of the walk in [`Lowerer::lower_tree`]: the elements of a node still to walk, and if the node is a
/// lowered structure, its id (the parent of the structures found in it) and whether some of its substructures
/// are payload annotations; `None` for lines, malformed lines and annotations.
type Frame<'p> = (Elements<'p>, Option<(StructureId, bool)>);

/// The serialisation metadata tags (R-HEADER-02; `GEDC`, not `GED`, per R-HEADER-03).
const SERIALISATION_METADATA: [&str; 5] = ["CHAR", "ELF", "GEDC", "PLANG", "SCHMA"];

/// Whether a substructure with this tag is a payload annotation, taken out by the second pass.
fn is_annotation(tag: Option<&str>) -> bool {
    matches!(tag, Some("PLANG" | "DTYPE"))
}

impl<'p> Lowerer<'p> {
    fn run(&mut self) {
        let root: &'p GreenNodeData = self.parse.green();
        let document = Node::new(root, TextSize::from(0));
        // The records are the document's RECORD children (with their positions among its elements).
        let mut records = document
            .elements()
            .enumerate()
            .filter_map(|(i, (element, start))| {
                let node = Node::new(element.into_node()?, start);
                (node.kind() == SyntaxKind::Record).then_some((i, node))
            });
        let first = records.next();
        let last = records.last().or(first);
        // R-TAGGED-STRUCTS-01/02: the header comes first and is read before the rest.
        let header = first
            .filter(|(_, r)| r.tag() == Some("HEAD"))
            .map(|(i, _)| i);
        // R-TAGGED-STRUCTS-04: the trailer is discarded. The syntax layer has reported a trailer with an xref
        // or payload (`non-empty-trailer`) and anything after it, so any final TRLR record goes.
        let trailer = last
            .filter(|(i, r)| header != Some(*i) && r.tag() == Some("TRLR"))
            .map(|(i, _)| i);
        self.dataset
            .structures
            .reserve(count_structures(root).saturating_add(1));
        // 1-based line number of the next element, counted from the line breaks passed.
        let mut line = 1;
        for (i, (element, start)) in document.elements().enumerate() {
            let node = match element {
                NodeOrToken::Token(t) => {
                    line += usize::from(is_line_break(t));
                    continue;
                }
                NodeOrToken::Node(n) => Node::new(n, start),
            };
            if node.kind() != SyntaxKind::Record || trailer == Some(i) {
                line += count_line_breaks(node);
            } else if header == Some(i) {
                self.header(node, line);
                line += count_line_breaks(node);
            } else {
                let id = self.lower_tree(node, &mut line, Mode::Normal);
                self.dataset.records.push(id);
            }
        }
        self.resolve_pointers();
    }

    fn report(&mut self, code: &'static str, class: Class, message: String, range: TextRange) {
        self.sink.report(code, class, message, range);
    }

    // ----- Header metadata (2019 § Parsing serialisation metadata) -----

    fn header(&mut self, header: Node<'p>, header_line: usize) {
        self.check_header_line(header);
        let mut seen: Vec<(&str, usize)> = Vec::new();
        let mut kept: Vec<(Node<'p>, usize, Mode)> = Vec::new();
        let mut line = header_line;
        for (element, start) in header.elements() {
            let sub = match element {
                NodeOrToken::Token(t) => {
                    line += usize::from(is_line_break(t));
                    continue;
                }
                NodeOrToken::Node(n) => Node::new(n, start),
            };
            let sub_line = line;
            line += count_line_breaks(sub);
            if !sub.is_structure() {
                continue;
            }
            let tag = sub.tag().unwrap_or("");
            if !SERIALISATION_METADATA.contains(&tag) {
                kept.push((sub, sub_line, Mode::Normal));
                continue;
            }
            self.check_metadata_tree(sub, tag);
            if tag != "SCHMA" {
                if let Some((_, first)) = seen.iter().find(|(t, _)| *t == tag) {
                    // R-PARSING-METADATA-04
                    self.report(
                        codes::DUPLICATE_METADATA,
                        Class::NonConformant,
                        format!(
                            "a second {tag} in the header (the first is on line {first}); ignored"
                        ),
                        sub.line().content,
                    );
                    continue;
                }
                seen.push((tag, sub_line));
            }
            match tag {
                "ELF" => self.elf_version(sub),
                "GEDC" => self.gedcom_version(sub),
                "PLANG" => self.default_language(sub),
                "SCHMA" => kept.push((sub, sub_line, Mode::Literal)),
                // R-PARSING-METADATA-05: CHAR was used when the file was decoded.
                _ => {}
            }
        }
        // Metadata structures and schemas are lowered once the default language is known, in file order.
        for (sub, mut line, mode) in kept {
            let id = self.lower_tree(sub, &mut line, mode);
            match mode {
                Mode::Normal => self.dataset.metadata.other.push(id),
                Mode::Literal => self.dataset.metadata.schemas.push(id),
            }
        }
    }

    /// R-HEADER-01: no xref, payload or continuation lines on the header. A first line other than `0 HEAD` is
    /// already the syntax layer's `first-line-not-head`.
    fn check_header_line(&mut self, header: Node<'p>) {
        let start = header.start;
        let reported = self
            .parse
            .diagnostics()
            .iter()
            .any(|d| d.code == syntax_codes::FIRST_LINE_NOT_HEAD && d.range.start() == start);
        let line = header.line();
        let has_payload = !line.raw_payload().trim_matches([' ', '\t']).is_empty();
        if !reported && (line.xref.is_some() || has_payload) {
            self.report(
                codes::BAD_HEADER,
                Class::MalformedStructure,
                "the header record must be exactly `0 HEAD`, with no cross-reference identifier or payload"
                    .into(),
                line.content,
            );
        }
        for line in header.continuation_lines() {
            self.report(
                codes::BAD_HEADER,
                Class::MalformedStructure,
                "the header record has no payload to continue".into(),
                line.content,
            );
        }
    }

    /// R-PARSING-METADATA-02: inside serialisation metadata, no xrefs, pointers or continuation lines
    /// (misplaced `HEAD`/`CONT`/`CONC`/`TRLR` structures are the syntax layer's).
    fn check_metadata_tree(&mut self, root: Node<'p>, root_tag: &str) {
        // Pre-order over the root and its descendant nodes, as `SyntaxNode::descendants`.
        let mut pending = vec![root];
        let mut stack = Vec::new();
        loop {
            let s = match pending.pop() {
                Some(s) => s,
                None => {
                    let Some(children) = stack.last_mut() else {
                        break;
                    };
                    match Iterator::next(children) {
                        Some((NodeOrToken::Node(n), start)) => Node::new(n, start),
                        Some((NodeOrToken::Token(_), _)) => continue,
                        None => {
                            stack.pop();
                            continue;
                        }
                    }
                }
            };
            stack.push(s.elements());
            if !s.is_structure() {
                continue;
            }
            let line = s.line();
            let tag = line.tag_text();
            let mut problems = Vec::new();
            if line.xref.is_some() {
                problems.push("has a cross-reference identifier");
            }
            if line.pointer.is_some() {
                problems.push("has a pointer payload");
            }
            for problem in problems {
                self.report(
                    codes::BAD_METADATA_STRUCTURE,
                    Class::NonConformant,
                    format!("{tag} in the serialisation metadata structure {root_tag} {problem}"),
                    line.content,
                );
            }
            for cont in s.continuation_lines() {
                let cont_tag = cont.tag_text();
                self.report(
                    codes::BAD_METADATA_STRUCTURE,
                    Class::NonConformant,
                    format!(
                        "{cont_tag} line in the serialisation metadata structure {root_tag}: continuation lines \
                         and escapes are not interpreted in serialisation metadata"
                    ),
                    cont.content,
                );
            }
        }
    }

    /// A version number from a metadata payload (taken literally, R-HEADER-04).
    fn version(&mut self, line: &LineInfo<'_>, what: &str) -> Option<Version> {
        let text = line.raw_payload();
        let version = Version::parse(&text);
        if version.is_none() {
            self.report(
                codes::BAD_VERSION_NUMBER,
                Class::NonConformant,
                format!("{what} `{text}` is not a version number (digits.digits or digits.digits.digits)"),
                line.payload_range(),
            );
        }
        version
    }

    /// R-PARSING-METADATA-06, R-SERIALISATION-VERSION-02..04.
    fn elf_version(&mut self, s: Node<'p>) {
        let line = s.line();
        let Some(v) = self.version(&line, "the ELF serialisation version") else {
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
                line.payload_range(),
            );
        } else if v.minor != 0 {
            self.report(
                codes::UNKNOWN_ELF_VERSION,
                Class::Warning,
                format!("unknown ELF version {v}; read as ELF 1.0"),
                line.payload_range(),
            );
        }
    }

    /// R-PARSING-METADATA-07, R-GEDCOM-VERSION-03.
    fn gedcom_version(&mut self, gedc: Node<'p>) {
        let gedc_line = gedc.line();
        let range = gedc_line.content;
        if !gedc_line.raw_payload().is_empty() {
            self.report(
                codes::BAD_GEDC,
                Class::NonConformant,
                "GEDC must not have a payload".into(),
                gedc_line.payload_range(),
            );
        }
        let subs: Vec<LineInfo<'p>> = gedc.substructures().map(Node::line).collect();
        let vers: Vec<&LineInfo<'p>> = subs.iter().filter(|s| s.tag_text() == "VERS").collect();
        let forms: Vec<&LineInfo<'p>> = subs.iter().filter(|s| s.tag_text() == "FORM").collect();
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
                        v.payload_range(),
                    );
                }
            }
        }
        if let Some(form) = forms.first() {
            let text = form.raw_payload();
            if text != "LINEAGE-LINKED" {
                self.report(
                    codes::BAD_GEDC,
                    Class::NonConformant,
                    format!("GEDC.FORM is `{text}`; it must be `LINEAGE-LINKED`"),
                    form.payload_range(),
                );
            }
            self.dataset.metadata.gedcom_form = Some(literal_text(&text, self.finishing));
        }
    }

    /// The default payload language (`1 PLANG`).
    fn default_language(&mut self, s: Node<'p>) {
        let line = s.line();
        let text = literal_text(&line.raw_payload(), self.finishing);
        if text.is_empty() {
            self.report(
                codes::BAD_LANGUAGE_TAG,
                Class::NonConformant,
                "PLANG has no language tag; ignored".into(),
                line.content,
            );
            return;
        }
        self.default_language.clone_from(&text);
        self.dataset.metadata.default_language = Some(text);
    }

    // ----- The second pass (2019 § Second pass) -----

    /// Lowers a structure and its substructures in pre-order and returns its id. `line` is the line the
    /// structure starts on; on return it is the line after the structure's last line break.
    ///
    /// One walk over the subtree's elements with an explicit stack: structures are lowered as they are met,
    /// and every line break passed (in first lines, continuation lines, malformed lines, blank lines and
    /// payload annotations) moves `line` on.
    fn lower_tree(&mut self, root: Node<'p>, line: &mut usize, mode: Mode) -> StructureId {
        let root_id = self.lower_one(root, *line, None, mode);
        let mut stack = std::mem::take(&mut self.stack);
        stack.push((root.elements(), Some(root_id)));
        while let Some((elements, owner)) = stack.last_mut() {
            let Some((element, start)) = elements.next() else {
                stack.pop();
                continue;
            };
            let owner = *owner;
            let node = match element {
                NodeOrToken::Token(t) => {
                    *line += usize::from(is_line_break(t));
                    continue;
                }
                NodeOrToken::Node(n) => Node::new(n, start),
            };
            let lowered = match owner {
                Some((parent, annotated))
                    if node.is_structure() && !(annotated && is_annotation(node.tag())) =>
                {
                    let lowered = self.lower_one(node, *line, Some(parent), mode);
                    if let Some(p) = self.dataset.structures.get_mut(parent.index()) {
                        p.children.push(lowered.0);
                    }
                    Some(lowered)
                }
                _ => None,
            };
            stack.push((node.elements(), lowered));
        }
        self.stack = stack;
        root_id.0
    }

    /// Lowers one structure (not its substructures, whose slots in `children` are reserved). Returns its id and
    /// whether it has payload annotations (`PLANG`/`DTYPE` substructures taken out by the second pass).
    fn lower_one(
        &mut self,
        cst: Node<'p>,
        line_number: usize,
        parent: Option<StructureId>,
        mode: Mode,
    ) -> (StructureId, bool) {
        let line = cst.line();
        // One look at the children after the first line: continuation lines, substructures, annotations.
        let mut continued = false;
        let mut substructures = 0;
        let mut annotations = 0;
        for (element, start) in line.rest.clone() {
            let NodeOrToken::Node(n) = element else {
                continue;
            };
            let node = Node::new(n, start);
            match node.kind() {
                SyntaxKind::Line => continued = true,
                SyntaxKind::Record | SyntaxKind::Structure => {
                    substructures += 1;
                    if mode == Mode::Normal && is_annotation(node.tag()) {
                        annotations += 1;
                    }
                }
                _ => {}
            }
        }
        // R-SECOND-PASS-02: misplaced HEAD, CONT, CONC and TRLR structures are the syntax layer's
        // (`misplaced-header`, `misplaced-continuation`, `continuation-at-level-0`, `misplaced-trailer`); they stay
        // in the dataset as ordinary structures.
        let draft = match mode {
            Mode::Normal => self.payload(&line, continued),
            Mode::Literal => Draft::Text(literal_text(&line.raw_payload(), self.finishing)),
        };
        let id = StructureId::new(self.dataset.structures.len());
        let mut language = None;
        let mut datatype = None;
        if annotations > 0 {
            for sub in cst.substructures() {
                let sub_tag = sub.tag();
                if is_annotation(sub_tag) {
                    let (tag, slot) = if sub_tag == Some("PLANG") {
                        ("PLANG", &mut language)
                    } else {
                        ("DTYPE", &mut datatype)
                    };
                    self.annotation(sub, tag, &draft, slot);
                }
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
            xref: line.xref_id().map(str::to_string),
            tag: line.tag_text().to_string(),
            payload,
            children: Vec::with_capacity(substructures - annotations),
            parent,
            range: Some(cst.range()),
            line: Some(line_number),
        });
        (id, annotations > 0)
    }

    /// A pointer, or the unescaped string with its continuation lines merged (R-SECOND-PASS-04,
    /// R-PAYLOAD-UNESC-01..06, R-MERGE-CONTS-08..12). `continued`: whether the structure has continuation lines.
    fn payload(&mut self, line: &LineInfo<'p>, continued: bool) -> Draft {
        if let Some(pointer) = line.pointer {
            // CONT/CONC lines after a pointer are the syntax layer's `continuation-of-pointer`; ignored here.
            return Draft::Pointer(strip_ats(pointer.text()).to_string(), pointer.range());
        }
        Draft::Text(self.merged_text(line, continued))
    }

    /// Unescapes every line of a string payload, then merges them: `CONT` adds `\n`, `CONC` nothing.
    fn merged_text(&mut self, line: &LineInfo<'p>, continued: bool) -> String {
        let text = &mut self.text;
        if continued {
            text.use_scratch();
        } else {
            text.reserve_exact(line.payload_len());
        }
        unescape_line(line.payload_tokens(), text, &mut self.sink);
        let rest = line
            .rest
            .clone()
            .take(if continued { usize::MAX } else { 0 });
        let continuation_lines = rest.filter_map(|(element, start)| match element {
            NodeOrToken::Node(n) => {
                let node = Node::new(n, start);
                (node.kind() == SyntaxKind::Line).then(|| node.line())
            }
            NodeOrToken::Token(_) => None,
        });
        for cont in continuation_lines {
            if cont.tag_text() == "CONT" {
                text.decoded("\n");
            }
            if cont.sep_end.is_none() {
                continue;
            }
            if cont.pointer.is_some() {
                // R-MERGE-CONTS-07: the syntax layer's `pointer-in-continuation`; merged as the text it is.
                for token in cont.payload_tokens() {
                    text.literal(token.text());
                }
            } else {
                unescape_line(cont.payload_tokens(), text, &mut self.sink);
            }
        }
        text.take(self.finishing)
    }

    /// A `PLANG` or `DTYPE` substructure: sets the language or datatype of its parent's payload.
    fn annotation(&mut self, sub: Node<'p>, tag: &str, parent: &Draft, value: &mut Option<String>) {
        let line = sub.line();
        let range = line.content;
        let misuse = |this: &mut Self, why: String| {
            this.report(
                codes::MISUSED_PAYLOAD_ANNOTATION,
                Class::NonConformant,
                format!("{tag} {why}; ignored"),
                range,
            );
        };
        if line.xref.is_some() {
            return misuse(self, "must not have a cross-reference identifier".into());
        }
        if sub.substructures().next().is_some() {
            return misuse(self, "must not have substructures".into());
        }
        if line.pointer.is_some() {
            return misuse(self, "must not have a pointer payload".into());
        }
        if matches!(parent, Draft::Pointer(..)) {
            return misuse(self, "cannot annotate a pointer payload".into());
        }
        if value.is_some() {
            return misuse(self, "repeats an earlier one on the same structure".into());
        }
        let continued = sub.continuation_lines().next().is_some();
        let text = self.merged_text(&line, continued);
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
        let records = &self.dataset.records;
        let sink = &mut self.sink;
        // Every identifier: its first holder and how many structures have it.
        let mut holders: FxHashMap<&str, (StructureId, usize)> = FxHashMap::default();
        for (i, s) in structures.iter().enumerate() {
            if let Some(x) = &s.xref {
                holders
                    .entry(x.as_str())
                    .and_modify(|(_, n)| *n += 1)
                    .or_insert((StructureId::new(i), 1));
            }
        }
        // Duplicates, reported at every holder after the first, in file order.
        for (i, s) in structures.iter().enumerate() {
            let Some(x) = &s.xref else { continue };
            let Some(&(first, n)) = holders.get(x.as_str()) else {
                continue;
            };
            if n > 1 && first.index() != i {
                let first_line = structures
                    .get(first.index())
                    .and_then(|f| f.line)
                    .unwrap_or(0);
                let at = s
                    .range
                    .map_or(TextRange::default(), |r| TextRange::empty(r.start()));
                sink.report(
                    codes::DUPLICATE_XREF,
                    Class::NonConformant,
                    format!(
                        "@{x}@ is already the identifier of the structure on line {first_line}"
                    ),
                    at,
                );
            }
        }
        // Records are in file order, so `records` is sorted (the UNDEF records come later).
        let is_record = |id: StructureId| records.binary_search(&id).is_ok();
        let record_of = |target: &str| match holders.get(target) {
            Some(&(only, 1)) if is_record(only) => Some(only),
            _ => None,
        };
        let mut undefined: FxHashMap<&str, StructureId> = FxHashMap::default();
        let mut undefined_targets: Vec<&str> = Vec::new();
        let mut resolved = Vec::with_capacity(self.pointers.len());
        for &(id, at) in &self.pointers {
            let Some(Payload::Pointer(pointer)) =
                structures.get(id.index()).and_then(|s| s.payload.as_ref())
            else {
                continue;
            };
            let target = pointer.target.as_str();
            let (record, is_undefined) = match record_of(target) {
                Some(record) => (record, false),
                None => {
                    let (code, message) = match holders.get(target) {
                        Some(&(_, n)) if n > 1 => (
                            codes::AMBIGUOUS_POINTER,
                            format!("@{target}@ is the identifier of {n} structures; the pointer goes to an UNDEF record"),
                        ),
                        Some(_) => (
                            codes::POINTER_TO_SUBSTRUCTURE,
                            format!("@{target}@ is the identifier of a substructure, not a record; the pointer goes to an UNDEF record"),
                        ),
                        None => (
                            codes::UNDEFINED_POINTER,
                            format!("no record has the identifier @{target}@; the pointer goes to an UNDEF record"),
                        ),
                    };
                    sink.report(code, Class::Warning, message, at);
                    let record = *undefined.entry(target).or_insert_with(|| {
                        undefined_targets.push(target);
                        StructureId::new(structures.len() + undefined_targets.len() - 1)
                    });
                    (record, true)
                }
            };
            resolved.push((id, record, is_undefined));
        }
        // For every identifier that exactly one record has: that record. Sorted first, so that the map is
        // built from a sorted run.
        // The first eight octets, big-endian, order the identifiers as the strings do (up to ties), so most
        // comparisons are of two integers.
        let prefix = |x: &str| {
            let mut octets = [0; 8];
            for (o, b) in octets.iter_mut().zip(x.bytes()) {
                *o = b;
            }
            u64::from_be_bytes(octets)
        };
        let mut unique: Vec<(u64, &str, StructureId)> = holders
            .keys()
            .filter_map(|x| record_of(x).map(|id| (prefix(x), *x, id)))
            .collect();
        unique.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
        let xrefs: BTreeMap<String, StructureId> = unique
            .into_iter()
            .map(|(_, x, id)| (x.to_string(), id))
            .collect();
        let undefined_targets: Vec<String> =
            undefined_targets.into_iter().map(str::to_string).collect();
        drop(holders);
        for target in undefined_targets {
            self.undefined_record(target);
        }
        for (id, record, is_undefined) in resolved {
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
    fn undefined_record(&mut self, target: String) -> StructureId {
        let id = StructureId::new(self.dataset.structures.len());
        self.dataset.structures.push(Structure {
            xref: Some(target),
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
        locate_sorted(parse, &mut diagnostics);
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
