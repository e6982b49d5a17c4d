//! The lowering pass: typed CST → [`Dataset`] (2019 § Parsing steps 2b–4, § Header metadata, § Escaping,
//! § Pointer conversion).
//!
//! Every walk over the tree uses an explicit stack, so a file of 100 000 nested levels is fine (invariant 4).
//!
//! The header is lowered first, on the calling thread (it gives the default payload language). The records
//! after it are cut into runs of about equal size at record boundaries; each run is lowered by one thread
//! into a [`Fragment`]: a part of the dataset with ids, parents and line numbers local to it, the
//! identifiers it defines, its pointers and its diagnostics. [`assemble`] then numbers the parts in file
//! order and resolves identifiers and pointers in one sequential pass, in the order one thread would have met
//! them, so the dataset and the diagnostics do not depend on the number of threads.

use crate::codes;
use crate::dataset::{
    Dataset, HashKey, Metadata, Part, Stored, Str, Structure, StructureId, Version, XrefIndex,
    NONE, TOMBSTONE,
};
use crate::locate::locate_sorted;
use crate::trailers::header_and_trailers;
use crate::unescape::{literal_text, unescape_line, Finishing, TextBuilder};
use gedgraft_encoding::Encoding;
use gedgraft_syntax::internal::green_view::{
    count_line_breaks, is_line_break, strip_ats, Elements, LineInfo, Node, Token,
};
use gedgraft_syntax::internal::walk_depth;
use gedgraft_syntax::internal::work::{in_order, workers_for};
use gedgraft_syntax::rowan::{GreenNodeData, NodeOrToken};
use gedgraft_syntax::{codes as syntax_codes, Class, Diagnostic, Parse, Severity, SyntaxKind};
use text_size::{TextRange, TextSize};

mod assemble;
pub(crate) use assemble::assemble;
pub use header::metadata_not_kept;
pub(crate) mod dialect_rules;
mod header;
mod left_out;
pub(crate) mod stream;
mod walk;
use left_out::{nests_in, LeftOut};
use walk::{cache_slot, Leaf, LEAF_CACHE_BITS, NO_LEAF};

/// How to lower. Built from [`LowerOptions::default`] with the `with_…` methods (the struct may grow):
///
/// ```
/// let options = gedgraft_model::LowerOptions::default().with_strict(true).with_threads(1);
/// assert!(options.strict && !options.nfc);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LowerOptions {
    /// Stop at the first malformed line, malformed structure or non-conformant structure, whether the syntax
    /// layer or the lowering found it (every diagnostic of severity error). The result then has an empty
    /// dataset, the lowering diagnostics up to that point and the diagnostic that stopped it
    /// ([`Lowered::stopped_at`]). The default, lenient mode recovers and reports everything: a malformed line
    /// or a level jump is left out of the dataset with the lines nested in it (`lines-left-out`).
    pub strict: bool,
    /// Normalise every string payload to Unicode Normalization Form C (R-UNICODE-ESCAPE-09). Off by default:
    /// the dataset keeps the characters as written.
    pub nfc: bool,
    /// How many threads lower the records: `0` (the default) takes one per core for a large file (at least
    /// 1 MiB of records each) and only the calling thread otherwise; `n` cuts the records
    /// into `n` runs (fewer if there are fewer records), each lowered by a thread of its own. The result is
    /// the same whatever the number.
    pub threads: usize,
}

impl LowerOptions {
    /// These options with [`strict`](LowerOptions::strict) set to `strict`.
    pub fn with_strict(mut self, strict: bool) -> LowerOptions {
        self.strict = strict;
        self
    }

    /// These options with [`nfc`](LowerOptions::nfc) set to `nfc`.
    pub fn with_nfc(mut self, nfc: bool) -> LowerOptions {
        self.nfc = nfc;
        self
    }

    /// These options with [`threads`](LowerOptions::threads) set to `threads`.
    pub fn with_threads(mut self, threads: usize) -> LowerOptions {
        self.threads = threads;
        self
    }
}

/// With [`LowerOptions::threads`] at 0, each thread gets at least this many octets of records.
pub const PARALLEL_CHUNK: usize = 1 << 20;

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
    /// Syntax diagnostics that do not apply in the file's dialect (escapes in GEDCOM 7) are left out.
    pub fn all_diagnostics<'a>(&'a self, parse: &'a Parse) -> Vec<&'a Diagnostic> {
        let syntax = syntax_diagnostics(parse).into_iter();
        in_file_order(syntax, self.diagnostics.iter(), self.stopped_at.as_ref())
    }

    /// [`Lowered::all_diagnostics`], owned: the dataset is dropped first and the lowering's diagnostics are moved,
    /// not copied, so a file with a diagnostic on every line holds them once (#12).
    ///
    /// ```
    /// use gedgraft_model::{lower, LowerOptions};
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n0 @I1@ INDI\n1 NOTE a@b\n");
    /// let lowered = lower(&parse, &LowerOptions::default());
    /// let borrowed: Vec<_> = lowered.all_diagnostics(&parse).into_iter().cloned().collect();
    /// assert_eq!(lowered.into_all_diagnostics(&parse), borrowed);
    /// ```
    pub fn into_all_diagnostics(self, parse: &Parse) -> Vec<Diagnostic> {
        let Lowered {
            dataset,
            diagnostics,
            stopped_at,
        } = self;
        drop(dataset);
        let syntax = syntax_diagnostics(parse).into_iter().cloned();
        in_file_order(syntax, diagnostics.into_iter(), stopped_at.as_ref())
    }
}

/// The syntax layer's diagnostics (`syntax`) and the lowering's (`mine`), each in file order, merged in file order
/// (at equal offsets the syntax layer's first), up to and including `stopped_at`.
fn in_file_order<D: std::borrow::Borrow<Diagnostic>>(
    syntax: impl ExactSizeIterator<Item = D>,
    mine: impl ExactSizeIterator<Item = D>,
    stopped_at: Option<&Diagnostic>,
) -> Vec<D> {
    let mut out = Vec::with_capacity(syntax.len() + mine.len());
    let (mut syntax, mut mine) = (syntax.peekable(), mine.peekable());
    loop {
        let take_syntax = match (syntax.peek(), mine.peek()) {
            (Some(s), Some(m)) => s.borrow().range.start() <= m.borrow().range.start(),
            (Some(_), None) => true,
            _ => false,
        };
        let next = if take_syntax {
            syntax.next()
        } else {
            mine.next()
        };
        let Some(d) = next else {
            break;
        };
        let stop = stopped_at == Some(d.borrow());
        out.push(d);
        if stop {
            break;
        }
    }
    out
}

/// The syntax layer's diagnostics that apply in the file's dialect.
fn syntax_diagnostics(parse: &Parse) -> Vec<&Diagnostic> {
    let dialect = parse.dialect();
    let all = parse.diagnostics().iter();
    all.filter(|d| dialect.applies(d.code)).collect()
}

/// Every diagnostic of a parse, owned: the syntax layer's and the lenient lowering's, as `gedgraft check`
/// reports them ([`Lowered::all_diagnostics`] with the default options). It fits the `diagnose` argument of
/// `gedgraft_edit::repair_to_fixed_point`.
///
/// ```
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n0 @I1@ INDI\n0 TRLR\n");
/// let codes: Vec<_> = gedgraft_model::diagnose(&parse).iter().map(|d| d.code).collect();
/// assert!(codes.contains(&"duplicate-xref")); // the lowering's
/// ```
pub fn diagnose(parse: &Parse) -> Vec<Diagnostic> {
    lower(parse, &LowerOptions::default()).into_all_diagnostics(parse)
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
        dialect: parse.dialect(),
    };
    let root: &GreenNodeData = parse.green();
    let document = Node::new(root, TextSize::from(0));
    let (header, trailers) = header_and_trailers(document);
    let (mut head, elements, index) = lower_header(parse, finishing, document, header);
    let runs = split_records(
        elements,
        index,
        (options.threads, PARALLEL_CHUNK),
        root.text_len(),
    );
    let language = head.default_language.clone();
    let lower_run = |run| lower_run(parse, (finishing, true), &language, &trailers, run);
    let mut fragments = Vec::with_capacity(runs.len() + 1);
    let metadata = Metadata {
        dialect: finishing.dialect,
        ..std::mem::take(&mut head.metadata)
    };
    fragments.push(head.into_fragment());
    // One thread per run, the first on this one.
    let workers = runs.len();
    fragments.extend(in_order(runs, workers, lower_run));
    let (dataset, diagnostics) = assemble(metadata, fragments);
    finish(parse, dataset, diagnostics, options)
}

/// R-TAGGED-STRUCTS-01/02: the header comes first and is read before the rest. Its part is the first, with
/// absolute line numbers. Returns its builder, the elements after it and the index of the first of them.
fn lower_header<'p>(
    parse: &'p Parse,
    finishing: Finishing,
    document: Node<'p>,
    header: Option<usize>,
) -> (Builder<'p>, Elements<'p>, usize) {
    let mut head = Builder::new(parse, finishing, "und".to_string());
    head.line = 1;
    let mut elements = document.elements();
    let mut index = 0;
    if let Some(h) = header {
        for (element, start) in elements.by_ref().take(h + 1) {
            match element {
                NodeOrToken::Token(t) => head.line += usize::from(is_line_break(t)),
                NodeOrToken::Node(n) => {
                    let node = Node::new(n, start);
                    let line = head.line;
                    if index == h {
                        head.header(node, line);
                    }
                    head.line = line + count_line_breaks(node);
                }
            }
            index += 1;
        }
    }
    (head, elements, index)
}

/// A run of document elements: the index of its first element, the elements from there, how many, and their
/// length in octets.
type Run<'p> = (usize, Elements<'p>, usize, usize);

/// Lowers the records of a run into a fragment.
fn lower_run<'p>(
    parse: &'p Parse,
    (finishing, keep): (Finishing, bool),
    language: &str,
    trailers: &[usize],
    (first, elements, count, len): Run<'p>,
) -> Fragment<'p> {
    let mut builder = Builder::new(parse, finishing, language.to_string());
    builder.keep = keep;
    // Room for about one structure per line of average length, and the strings (at most as long as the
    // lines, and much shorter without tags and levels), so that the vectors rarely grow.
    if keep {
        builder.part.structures.reserve(len / 24);
    }
    builder.run = (usize::from(elements.offset()), len);
    // The walk's frames, at once: a bound that a deep record's walk would otherwise double its way to (#12);
    // no more than a frame per two octets, a line's least.
    builder
        .stack
        .reserve(walk_depth(parse).min(len / 2).saturating_add(2));
    builder.part.text.reserve(len / 2);
    builder.lower_elements(elements, first, count, trailers);
    builder.into_fragment()
}

/// Cuts the document's elements from `elements` (the first of which has index `first`) into runs of about
/// equal length that start at records: `threads` of them, or with `threads` at 0 one per core if each gets
/// `min_len` octets.
fn split_records(
    elements: Elements<'_>,
    first: usize,
    (threads, min_len): (usize, usize),
    total: TextSize,
) -> Vec<Run<'_>> {
    let start = usize::from(elements.offset());
    let len = usize::from(total).saturating_sub(start);
    let count = match threads {
        0 => workers_for(len, min_len),
        n => n.max(1),
    };
    // The starts of the runs: the first element, then the first record at or after each cut.
    let mut starts = vec![(first, elements.clone())];
    let mut probe = elements;
    let mut index = first;
    for k in 1..count {
        let cut = start + len / count * k;
        loop {
            let before = probe.clone();
            let Some((element, at)) = probe.next() else {
                break;
            };
            let is_record = element
                .as_node()
                .is_some_and(|n| Node::new(n, at).kind() == SyntaxKind::Record);
            index += 1;
            if is_record && usize::from(at) >= cut && index - 1 > starts.last().map_or(0, |s| s.0) {
                starts.push((index - 1, before));
                break;
            }
        }
    }
    let mut ends: Vec<(usize, usize)> = starts
        .iter()
        .skip(1)
        .map(|(i, e)| (*i, usize::from(e.offset())))
        .collect();
    ends.push((usize::MAX, usize::from(total)));
    starts
        .into_iter()
        .zip(ends)
        .map(|((first, elements), (end, end_offset))| {
            let len = end_offset.saturating_sub(usize::from(elements.offset()));
            (first, elements, end - first, len)
        })
        .collect()
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

    /// Records a problem at `range` in a line of a payload, or counts it in the run of its code that `runs`
    /// has open on this line or the one before (#12: a line of half a million escapes that are not permitted is
    /// one diagnostic with its count, as the syntax layer counts runs, not half a million).
    pub fn report_in(
        &mut self,
        runs: &mut PayloadRuns,
        (code, class, message): (&'static str, Class, String),
        range: TextRange,
    ) {
        let line = runs.line;
        let open = (runs.open.iter_mut())
            .find(|(c, _, last)| *c == code && last.saturating_add(1) >= line);
        if let Some((_, index, last)) = open {
            if let Some(d) = self.diagnostics.get_mut(*index) {
                let count = d.count.saturating_add(1);
                gedgraft_syntax::internal::make_run(d, count, range.start());
                *last = line;
                return;
            }
        }
        runs.open.retain(|(c, _, _)| *c != code);
        runs.open.push((code, self.diagnostics.len(), line));
        self.report(code, class, message, range);
    }

    /// Records a run of `count` problems on neighbouring lines: the first at `range`, the last starting at
    /// `last_start`.
    pub fn report_run(
        &mut self,
        (code, class, message): (&'static str, Class, String),
        range: TextRange,
        count: u32,
        last_start: TextSize,
    ) {
        let mut d = Diagnostic::new(code, class, message, range);
        gedgraft_syntax::internal::make_run(&mut d, count, last_start);
        self.diagnostics.push(d);
    }
}

/// The runs of problems of one code open in the lines of one payload ([`Sink::report_in`]): for each code, its
/// diagnostic and the line (counted in the payload) of its last problem.
#[derive(Debug, Default)]
pub(crate) struct PayloadRuns {
    open: Vec<(&'static str, usize, u32)>,
    line: u32,
}

impl PayloadRuns {
    /// The payload's next line begins.
    pub(crate) fn next_line(&mut self) {
        self.line = self.line.saturating_add(1);
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

/// What one thread lowered: a part of the dataset whose ids, parents and lines are local to it.
pub(crate) struct Fragment<'p> {
    pub part: Part,
    /// The local ids of the records.
    pub records: Vec<u32>,
    /// Every structure with a cross-reference identifier: the identifier, its local id, whether it is a
    /// record, the identifier's range and the structure's line (from the part's line base).
    pub holders: Vec<(&'p str, u32, bool, TextRange, u32)>,
    /// Every pointer payload: the structure's local id, the target and the pointer's range.
    pub pointers: Vec<(u32, &'p str, TextRange)>,
    pub diagnostics: Vec<Diagnostic>,
    /// The line count after the last element (from the part's line base).
    pub lines: usize,
}

/// Lowers structures into one part.
struct Builder<'p> {
    parse: &'p Parse,
    finishing: Finishing,
    part: Part,
    /// Tags, stored once in the part's text. Keyed by the file's text: the standard library's keyed hash, which no
    /// file can make collide (#12).
    tags: std::collections::HashMap<&'p str, Str>,
    /// Tags by the address of their token (0: an empty slot).
    tag_cache: [(usize, Str); TAG_CACHE],
    /// Leaf structures by the address of their green node ([`Builder::reuse_leaf`]).
    leaves: Vec<(usize, Leaf)>,
    /// The default payload language, and its string once stored.
    default_language: String,
    default_lang: Option<Str>,
    /// The header's metadata (only the header's builder fills it).
    metadata: Metadata,
    sink: Sink,
    records: Vec<u32>,
    holders: Vec<(&'p str, u32, bool, TextRange, u32)>,
    pointers: Vec<(u32, &'p str, TextRange)>,
    /// Whether the structures are kept (else only counted: a lowering for its diagnostics alone,
    /// [`StreamLowering::diagnostics_only`]).
    keep: bool,
    /// How many structures were lowered: the local id of the next.
    count: u32,
    /// The line number of the next element, from the part's line base.
    line: usize,
    /// The assembler of string payloads.
    text: TextBuilder,
    /// The stack of [`Builder::lower_tree`], kept between records.
    stack: Vec<Frame<'p>>,
    /// The run being lowered: its first offset in the tree and its length in octets
    /// ([`Builder::push_structure`]).
    run: (usize, usize),
    /// The run of left-out lines not yet reported ([`Builder::leave_out`]).
    left_out: Option<LeftOut>,
}

/// A frame of the walk in [`Builder::lower_tree`]: the elements of a node still to walk, and if the node is a
/// lowered structure, that structure as the owner of the structures found in it; `None` for lines, malformed
/// lines and annotations.
type Frame<'p> = (Elements<'p>, Option<Owner>);

/// A lowered structure while its substructures are walked: 12 octets, so that a frame of the walk takes 40
/// (a record nested 400 000 levels deep has as many frames, #12).
#[derive(Debug, Clone, Copy)]
struct Owner {
    /// Its local id.
    id: u32,
    /// Its level (a substructure's is one more; a parsed level fits, [`MAX_LEVEL`](gedgraft_syntax::MAX_LEVEL)
    /// being `u32::MAX`).
    level: u32,
    /// Whether its payload is a pointer (which annotations cannot annotate).
    pointer: bool,
    /// Whether an annotation gave its payload a language or a datatype (which its payload then holds).
    lang: bool,
    datatype: bool,
}

/// The number of entries of [`Builder::tag_cache`].
const TAG_CACHE: usize = 1 << TAG_CACHE_BITS;
const TAG_CACHE_BITS: u32 = 8;

use gedgraft_syntax::ast::SERIALISATION_METADATA;

/// Whether a substructure with this tag is a payload annotation, taken out by the second pass.
fn is_annotation(tag: Option<&str>) -> bool {
    matches!(tag, Some("PLANG" | "DTYPE"))
}

/// A 32-bit line number (saturating: a tree has fewer than 2^32 octets, so fewer lines).
pub(crate) fn line_u32(line: usize) -> u32 {
    u32::try_from(line).unwrap_or(NONE - 1).min(NONE - 1)
}

impl<'p> Builder<'p> {
    fn new(parse: &'p Parse, finishing: Finishing, default_language: String) -> Builder<'p> {
        Builder {
            parse,
            finishing,
            part: Part::default(),
            tags: std::collections::HashMap::default(),
            tag_cache: [(0, Str::EMPTY); TAG_CACHE],
            leaves: vec![NO_LEAF; 1 << LEAF_CACHE_BITS],
            default_language,
            default_lang: None,
            metadata: Metadata::default(),
            sink: Sink::default(),
            records: Vec::new(),
            holders: Vec::new(),
            pointers: Vec::new(),
            keep: true,
            count: 0,
            line: 0,
            text: TextBuilder::new(finishing),
            stack: Vec::new(),
            run: (0, 0),
            left_out: None,
        }
    }

    fn into_fragment(self) -> Fragment<'p> {
        Fragment {
            part: self.part,
            records: self.records,
            holders: self.holders,
            pointers: self.pointers,
            diagnostics: self.sink.diagnostics,
            lines: self.line,
        }
    }

    /// Lowers `count` document elements (the first has index `first`): records become records, malformed
    /// lines and structures that are not records are left out, and everything else (and the trailer) only
    /// moves the line count on.
    fn lower_elements(
        &mut self,
        elements: Elements<'p>,
        first: usize,
        count: usize,
        trailers: &[usize],
    ) {
        for (i, (element, start)) in (first..).zip(elements.take(count)) {
            let node = match element {
                NodeOrToken::Token(t) => {
                    self.line += usize::from(is_line_break(t));
                    continue;
                }
                NodeOrToken::Node(n) => Node::new(n, start),
            };
            if !nests_in(node, None) {
                self.line += self.leave_out(node);
                continue;
            }
            self.keep_line();
            if trailers.binary_search(&i).is_ok() {
                self.line += count_line_breaks(node);
            } else {
                let id = self.lower_tree(node, Mode::Normal, true);
                if self.keep {
                    self.records.push(id);
                }
            }
        }
        self.keep_line();
    }

    fn report(&mut self, code: &'static str, class: Class, message: String, range: TextRange) {
        self.sink.report(code, class, message, range);
    }

    /// The string of a tag, stored once per part. The syntax layer shares repeated tokens, so most tags are
    /// found by the token's address in a small cache before the map is asked.
    fn tag(&mut self, token: Option<Token<'p>>) -> Str {
        let Some(token) = token else {
            return self.tag_text("");
        };
        let address = std::ptr::from_ref(token.green) as usize;
        let slot = cache_slot(address, TAG_CACHE_BITS);
        match self.tag_cache.get(slot) {
            Some(&(a, s)) if a == address => s,
            _ => {
                let s = self.tag_text(token.text());
                if let Some(entry) = self.tag_cache.get_mut(slot) {
                    *entry = (address, s);
                }
                s
            }
        }
    }

    fn tag_text(&mut self, tag: &'p str) -> Str {
        if let Some(s) = self.tags.get(tag) {
            return *s;
        }
        let s = self.part.push(tag);
        self.tags.insert(tag, s);
        s
    }

    /// The string of the default payload language, stored once per part.
    fn default_lang(&mut self) -> Str {
        match self.default_lang {
            Some(s) => s,
            None => {
                let s = self.part.push(&self.default_language);
                self.default_lang = Some(s);
                s
            }
        }
    }

    /// Adds a structure to the part. Once the room reserved for the run is full, it grows by what the rest of
    /// the run needs at the density of structures so far (and an eighth more), rather than doubling: a grown
    /// vector hands its old buffer back to the allocator, which keeps it a while (mimalloc purges after a
    /// delay), so each doubling of a large run's vector costs its size again in peak memory (a record of
    /// 400 000 lines nested one in the other, #12).
    fn push_structure(&mut self, structure: Structure) {
        self.count = self.count.saturating_add(1);
        if !self.keep {
            return;
        }
        let structures = &mut self.part.structures;
        if structures.len() == structures.capacity() {
            let (start, len) = self.run;
            let done = (structure.from as usize).saturating_sub(start).max(1);
            let rest = structures.len().saturating_mul(len.saturating_sub(done)) / done;
            structures.reserve(rest.saturating_add(rest / 8).max(64));
        }
        structures.push(structure);
    }

    /// Lowers one structure (not its substructures) and returns it as the owner of its substructures.
    fn lower_one(
        &mut self,
        cst: Node<'p>,
        line: &LineInfo<'p>,
        parent: u32,
        level: u32,
        is_record: bool,
        mode: Mode,
    ) -> Owner {
        let id = self.count;
        // R-SECOND-PASS-02: misplaced HEAD, CONT, CONC and TRLR structures are the syntax layer's
        // (`misplaced-header`, `misplaced-continuation`, `continuation-at-level-0`, `misplaced-trailer`); they stay
        // in the dataset as ordinary structures.
        let payload = match (mode, line.pointer) {
            (Mode::Normal, Some(pointer)) => {
                // A pointer (R-SECOND-PASS-04). CONT/CONC lines after it are the syntax layer's
                // `continuation-of-pointer`; ignored here.
                let target = strip_ats(pointer.text());
                self.gedcom7_identifier(target, pointer.range(), true);
                self.pointers.push((id, target, pointer.range()));
                Stored::Pointer {
                    target: self.part.push(target),
                    record: NONE,
                    undefined: false,
                }
            }
            (Mode::Normal, None) => self.text_payload(line),
            (Mode::Literal, _) => {
                let text = self
                    .part
                    .push(&literal_text(&line.raw_payload(), self.finishing));
                self.text_or_none(text)
            }
        };
        let tag = self.tag(line.tag);
        if let Some(token) = line.tag {
            self.gedcom7_tag(token.text(), token.range());
        }
        let xref = match (line.xref_id(), line.xref) {
            (Some(x), Some(token)) => {
                self.gedcom7_identifier(x, token.range(), false);
                self.holders
                    .push((x, id, is_record, token.range(), line_u32(self.line)));
                self.part.push(x)
            }
            _ => Str::ABSENT,
        };
        let range = cst.range();
        self.push_structure(Structure {
            tag,
            xref,
            payload,
            parent,
            end: id.saturating_add(1),
            from: range.start().into(),
            to: range.end().into(),
            line: line_u32(self.line),
        });
        Owner {
            id,
            level,
            pointer: matches!(payload, Stored::Pointer { .. }),
            lang: false,
            datatype: false,
        }
    }

    /// The unescaped string with its continuation lines merged (R-PAYLOAD-UNESC-01..06, R-MERGE-CONTS-08..12),
    /// `None` if it is empty (R-PAYLOADS-02) until an annotation says otherwise.
    fn text_payload(&mut self, line: &LineInfo<'p>) -> Stored {
        let text = self.merged_text(line);
        self.text_or_none(text)
    }

    /// A string payload in the default language, or none if it is empty.
    fn text_or_none(&mut self, text: Str) -> Stored {
        if text.is_empty() {
            return Stored::None;
        }
        Stored::Text {
            text,
            lang: self.default_lang(),
            datatype: Str::ABSENT,
        }
    }

    /// Unescapes every line of a string payload, then merges them: `CONT` adds `\n`, `CONC` nothing.
    fn merged_text(&mut self, line: &LineInfo<'p>) -> Str {
        let out = &mut self.part.text;
        let start = out.len();
        let text = &mut self.text;
        let mut runs = PayloadRuns::default();
        match line.only_payload_token() {
            // Most payloads are one run of plain text, with no `@` to read.
            Some(token) if token.kind() == SyntaxKind::Text && !token.text().contains('@') => {
                text.literal(out, token.text())
            }
            _ => unescape_line(line.payload_tokens(), text, out, &mut self.sink, &mut runs),
        }
        // CONC lines one after the other in a dialect that has none: one diagnostic for the run (#12: a note
        // of a million of them is not a million diagnostics).
        let mut conc_run = dialect_rules::ConcRun::new(self.finishing.dialect);
        for (element, at) in line.rest.clone() {
            let node = element.into_node().map(|n| Node::new(n, at));
            // Continuation lines come before any substructure: the parser makes a CONT/CONC line a LINE node
            // only while the structure has none (ARCHITECTURE.md, tree shape).
            if node.is_some_and(|n| matches!(n.kind(), SyntaxKind::Record | SyntaxKind::Structure))
            {
                break;
            }
            let cont = node
                .filter(|n| n.kind() == SyntaxKind::Line)
                .map(Node::line);
            // Every other element ends a run of `CONC` lines.
            let conc = (cont.as_ref())
                .filter(|c| c.tag_text() != "CONT")
                .map(|c| c.content);
            conc_run.next(&mut self.sink, conc);
            let Some(cont) = cont else {
                continue;
            };
            runs.next_line();
            if conc.is_none() {
                text.decoded(out, "\n");
            }
            if cont.sep_end.is_none() {
                continue;
            }
            if cont.pointer.is_some() {
                // R-MERGE-CONTS-07: the syntax layer's `pointer-in-continuation`; merged as the text it is.
                for token in cont.payload_tokens() {
                    text.literal(out, token.text());
                }
            } else {
                unescape_line(cont.payload_tokens(), text, out, &mut self.sink, &mut runs);
            }
        }
        conc_run.end(&mut self.sink);
        text.finish(out, start, self.finishing);
        self.part.str_from(start)
    }

    /// A `PLANG` or `DTYPE` substructure: sets the language or datatype of its parent's payload.
    fn annotation(&mut self, sub: Node<'p>, line: &LineInfo<'p>, parent: &mut Owner) {
        let is_plang = line.tag_text() == "PLANG";
        let tag = if is_plang { "PLANG" } else { "DTYPE" };
        let range = line.content;
        let misuse = |this: &mut Self, why: &str| {
            this.report(
                codes::MISUSED_PAYLOAD_ANNOTATION,
                Class::NonConformant,
                format!("{tag} {why}; ignored"),
                range,
            );
        };
        if line.xref.is_some() {
            return misuse(self, "must not have a cross-reference identifier");
        }
        if sub.substructures().any(|s| nests_in(s, sub.level())) {
            return misuse(self, "must not have substructures");
        }
        if line.pointer.is_some() {
            return misuse(self, "must not have a pointer payload");
        }
        if parent.pointer {
            return misuse(self, "cannot annotate a pointer payload");
        }
        let repeated = if is_plang {
            parent.lang
        } else {
            parent.datatype
        };
        if repeated {
            return misuse(self, "repeats an earlier one on the same structure");
        }
        let text_given = self.merged_text(line);
        if text_given.is_empty() {
            if is_plang {
                self.report(
                    codes::BAD_LANGUAGE_TAG,
                    Class::NonConformant,
                    "PLANG has no language tag; ignored".into(),
                    range,
                );
            } else {
                misuse(self, "has no datatype");
            }
            return;
        }
        // The parent's payload becomes (or stays) a string with this language and datatype, even if empty; the
        // other of the two is the payload's if an earlier annotation gave it, else the default.
        let default_lang = if is_plang || parent.lang {
            Str::ABSENT
        } else {
            self.default_lang()
        };
        if let Some(s) = self.part.structures.get_mut(parent.id as usize) {
            let (text, lang, datatype) = match s.payload {
                Stored::Text {
                    text,
                    lang,
                    datatype,
                } => (text, lang, datatype),
                _ => (Str::EMPTY, Str::ABSENT, Str::ABSENT),
            };
            s.payload = Stored::Text {
                text,
                lang: match (is_plang, parent.lang) {
                    (true, _) => text_given,
                    (false, true) => lang,
                    (false, false) => default_lang,
                },
                datatype: match (is_plang, parent.datatype) {
                    (false, _) => text_given,
                    (true, true) => datatype,
                    (true, false) => Str::ABSENT,
                },
            };
        }
        if is_plang {
            parent.lang = true;
        } else {
            parent.datatype = true;
        }
    }
}

/// Sorts and locates the diagnostics, and cuts at the first error in strict mode.
fn finish(
    parse: &Parse,
    dataset: Dataset,
    mut diagnostics: Vec<Diagnostic>,
    options: &LowerOptions,
) -> Lowered {
    gedgraft_syntax::internal::sort_diagnostics(&mut diagnostics);
    locate_sorted(parse, &mut diagnostics);
    let mut lowered = Lowered {
        dataset,
        diagnostics,
        stopped_at: None,
    };
    if options.strict {
        stop_at_first_error(parse, &mut lowered);
    }
    lowered
}

/// Strict mode: find the first error in file order among the syntax and lowering diagnostics; keep the
/// lowering diagnostics before it, and empty the dataset.
fn stop_at_first_error(parse: &Parse, lowered: &mut Lowered) {
    let syntax = syntax_diagnostics(parse)
        .into_iter()
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

#[cfg(test)]
mod frame_size {
    /// A record nested 400 000 levels deep has a frame of the walk per level (#12): they stay small.
    #[test]
    fn a_walk_frame_takes_40_octets() {
        assert!(std::mem::size_of::<super::Owner>() <= 12);
        assert!(std::mem::size_of::<super::Frame<'_>>() <= 40);
    }
}
