//! The parse result: the green tree, its diagnostics, the encoding and the map back to the file.

use crate::ast::Document;
use crate::diagnostic::{Diagnostic, Location};
use crate::green_walk::{green_tokens, release_iteratively};
use crate::kind::{SyntaxKind, SyntaxNode};
use crate::line_cursor::{LineBreak, LineCursor};
use crate::line_index::LineIndex;
use crate::not_gedcom;
use crate::parser::{chunks_for, parse_text, parse_utf8_pieces, Parsed};
use gedgraft_encoding::{
    detect_and_decode, internal::detect_trusting_utf8, DetectOptions, Detection, Encoding,
    EncodingNote, SourceMap, Unencodable,
};
use rowan::{GreenNode, GreenNodeData, NodeOrToken};
use std::borrow::Cow;
use std::sync::OnceLock;
use text_size::{TextRange, TextSize};

/// How to parse. Built from [`ParseOptions::default`] with the `with_…` methods (the struct may grow):
///
/// ```
/// use gedgraft_syntax::{encoding::Encoding, ParseOptions};
/// let options = ParseOptions::default().with_encoding(Encoding::Ansel).with_threads(1);
/// assert_eq!(options.detect.force, Some(Encoding::Ansel));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    /// How to choose the encoding (`force` overrides detection).
    pub detect: DetectOptions,
    /// How many threads large inputs may be parsed on: 0 for one per core, 1 for the calling thread only.
    /// The tree and diagnostics are the same either way.
    pub threads: usize,
}

impl ParseOptions {
    /// These options with [`detect`](ParseOptions::detect) set to `detect`.
    pub fn with_detect(mut self, detect: DetectOptions) -> ParseOptions {
        self.detect = detect;
        self
    }

    /// These options with the encoding forced to `encoding`, whatever the file declares (`--encoding NAME`).
    pub fn with_encoding(mut self, encoding: Encoding) -> ParseOptions {
        self.detect.force = Some(encoding);
        self
    }

    /// These options with [`threads`](ParseOptions::threads) set to `threads`.
    pub fn with_threads(mut self, threads: usize) -> ParseOptions {
        self.threads = threads;
        self
    }
}

/// A parsed file: owns its tree and diagnostics, and is `Send + Sync`. Cloning is cheap for the tree, which is
/// shared (green nodes are reference-counted), and copies the diagnostics.
///
/// ```
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n");
/// assert!(parse.diagnostics().is_empty());
/// assert_eq!(parse.to_bytes().unwrap(), b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n");
/// ```
#[derive(Debug, Clone)]
pub struct Parse {
    green: GreenNode,
    diagnostics: Vec<Diagnostic>,
    detection: Detection,
    source_map: SourceMap,
    line_index: OnceLock<LineIndex>,
    text: OnceLock<String>,
    max_depth: usize,
    /// For one batch of a streamed file ([`crate::stream`]): where its text starts in the file (and the line
    /// break before it), and the file's dialect (read from the header, which is in the first batch only). Zero
    /// and `None` for a whole file.
    origin: Origin,
    dialect: Option<crate::Dialect>,
    /// In an edited parse that carries the doubt of the parse it was made from ([`Parse::from_edited_like`]):
    /// the line the note had there ([`Parse::doubt_line`]).
    carried_doubt_line: Option<usize>,
}

/// Where a parsed text starts in its file: the file offset of its first octet, how many lines come before, and
/// the line break that ends the text before it (`None` at the file's start); and how it was read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Origin {
    pub(crate) offset: usize,
    pub(crate) lines_before: usize,
    pub(crate) break_before: Option<LineBreak>,
    pub(crate) reading: Reading,
}

/// How a batch of a streamed file was read after the text before it ([`crate::stream`]): whether the file's
/// first line came before it, and whether it follows a trailer (with a record still to come:
/// [`crate::parser::parse_piece`]'s `after_trailer`). `None` for a whole file. A re-parse of an edited batch
/// reads its text the same way ([`Parse::from_edited_like`]): what follows a trailer is read as the whole
/// file reads it (a line with no level there is trailing text, not a malformed line).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Reading {
    pub(crate) piece: Option<(bool, Option<bool>)>,
}

impl Origin {
    /// A location in the text as a location in the file.
    fn apply(self, location: Location) -> Location {
        Location {
            offset: location.offset.saturating_add(self.offset),
            line: location.line.saturating_add(self.lines_before),
            column: location.column,
        }
    }
}

/// Parses octets with the default options (2019 rules: detection, then UTF-8).
pub fn parse(bytes: &[u8]) -> Parse {
    parse_with(bytes, &ParseOptions::default())
}

/// Parses octets. Never fails and never panics: any octet sequence gives a tree plus diagnostics.
pub fn parse_with(bytes: &[u8], options: &ParseOptions) -> Parse {
    if let Some(parse) = parse_utf8_in_pieces(bytes, options) {
        return parse;
    }
    let (detection, text, source_map) = detect_and_decode(bytes, &options.detect);
    let parsed = match not_gedcom::not_gedcom(&text) {
        Some(message) => not_gedcom::parsed(&text, message),
        None => parse_text(&text, detection.used, options.threads),
    };
    finish(parsed, detection, source_map, || text)
}

/// The fast path for large UTF-8 files without a byte-order mark: each thread validates and parses its own piece
/// of the file (see [`parse_utf8_pieces`]). `None` when the file does not qualify; the caller takes the usual path.
fn parse_utf8_in_pieces(bytes: &[u8], options: &ParseOptions) -> Option<Parse> {
    let pieces = chunks_for(bytes.len(), options.threads);
    if pieces < 2 {
        return None;
    }
    // A file that is not GEDCOM takes the usual path, which tells so (the rule looks at the start only).
    let start = bytes.get(..not_gedcom::PROBE_BYTES).unwrap_or(bytes);
    let start = std::str::from_utf8(start)
        .or_else(|e| std::str::from_utf8(&start[..e.valid_up_to()]))
        .unwrap_or_default();
    if not_gedcom::not_gedcom(start).is_some() {
        return None;
    }
    let detection = detect_trusting_utf8(bytes, &options.detect);
    if detection.used != Encoding::Utf8 || detection.bom.is_some() {
        return None;
    }
    let parsed = parse_utf8_pieces(bytes, pieces)?;
    let source_map = SourceMap::identity(bytes.len());
    // The pieces were valid UTF-8, so the whole is: this only runs when there is a diagnostic to place.
    let text = || Cow::Borrowed(std::str::from_utf8(bytes).unwrap_or_default());
    Some(finish(parsed, detection, source_map, text))
}

/// The parse result from the parser's output: encoding notes become diagnostics, and every diagnostic gets its
/// file location (`text` gives the decoded text, asked for only when there is a diagnostic).
fn finish<'a>(
    parsed: Parsed,
    detection: Detection,
    source_map: SourceMap,
    text: impl FnOnce() -> Cow<'a, str>,
) -> Parse {
    let mut parse = Parse {
        green: parsed.green,
        diagnostics: parsed.diagnostics,
        detection,
        source_map,
        line_index: OnceLock::new(),
        text: OnceLock::new(),
        max_depth: parsed.max_depth,
        origin: Origin::default(),
        dialect: None,
        carried_doubt_line: None,
    };
    let notes = std::mem::take(&mut parse.detection.notes);
    // A file that is not GEDCOM gets that one diagnostic and no other (see `not_gedcom.rs`).
    let not_gedcom = parse
        .diagnostics
        .iter()
        .any(|d| d.code == crate::codes::NOT_GEDCOM);
    for note in notes.iter().filter(|_| !not_gedcom) {
        let d = note_diagnostic(note, &parse.source_map);
        parse.diagnostics.push(d);
    }
    drop_shadowed_by_nul(&mut parse.diagnostics);
    parse.detection.notes = notes;
    if !parse.diagnostics.is_empty() {
        parse.locate_diagnostics(&text());
    }
    parse
}

/// The NUL octet the detection scan met is not a character either: one diagnostic says so (the `nul-octet`
/// note; a `not-a-character` of that octet alone is dropped).
pub(crate) fn drop_shadowed_by_nul(diagnostics: &mut Vec<Diagnostic>) {
    let nul: Vec<TextSize> = diagnostics
        .iter()
        .filter(|d| d.code == EncodingNote::NUL_OCTET)
        .map(|d| d.range.start())
        .collect();
    if !nul.is_empty() {
        diagnostics.retain(|n| {
            n.code != crate::codes::NOT_A_CHARACTER
                || n.count > 1
                || !nul.contains(&n.range.start())
        });
    }
}

pub(crate) fn note_diagnostic(note: &EncodingNote, map: &SourceMap) -> Diagnostic {
    use crate::diagnostic::Class;
    let at = map.text_offset(note.file_offset);
    let class = if note.is_error {
        Class::NonConformant
    } else {
        Class::Warning
    };
    Diagnostic::new(
        note.code,
        class,
        note.message.clone(),
        crate::parser::range(at, at),
    )
}

impl Parse {
    /// The parse of one batch of a streamed file: `diagnostics` in the batch's text (sorted by start, ties in
    /// the order a whole-file parse gives), located here in the file through `origin`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn of_batch(
        green: GreenNode,
        diagnostics: Vec<Diagnostic>,
        detection: Detection,
        source_map: SourceMap,
        text: &str,
        max_depth: usize,
        origin: Origin,
        dialect: Option<crate::Dialect>,
    ) -> Parse {
        let mut parse = Parse {
            green,
            diagnostics,
            detection,
            source_map,
            line_index: OnceLock::new(),
            text: OnceLock::new(),
            max_depth,
            origin,
            dialect,
            carried_doubt_line: None,
        };
        if !parse.diagnostics.is_empty() {
            parse.locate_diagnostics(text);
        }
        parse
    }

    /// This parse, read in the dialect of `other`'s file: for the parse of an edited batch of a streamed file
    /// ([`crate::stream`]), whose header (which gives the dialect) is in the first batch only.
    pub fn with_dialect_of(mut self, other: &Parse) -> Parse {
        self.dialect = other.dialect;
        self
    }

    /// This parse, placed at `origin` in its file (the file offset and line of its first octet; the column is
    /// not used): for the parse of an edited batch of a streamed file, whose lines continue those of the batches
    /// before it, so that what is said of its lines names the file's.
    ///
    /// ```
    /// use gedgraft_syntax::Location;
    /// let batch = gedgraft_syntax::parse(b"0 @I1@ INDI\n1 NAME A\n");
    /// let placed = batch.with_origin(Location { offset: 100, line: 7, column: 1 });
    /// assert_eq!(placed.locate(12.into()).line, 8);
    /// ```
    pub fn with_origin(mut self, origin: Location) -> Parse {
        self.origin.offset = origin.offset;
        self.origin.lines_before = origin.line.saturating_sub(1);
        self
    }

    /// The line break that ends the file's text before this parse's: for a batch of a streamed file
    /// ([`crate::stream`]) after the first, the last line break of the batches before it; `None` for a whole
    /// file (nothing comes before it). New lines follow the file's line breaks, and a batch that is one line
    /// without a line break (the file's last) has none of its own: the editor takes this one, as it takes the
    /// line break before that line in the whole file.
    ///
    /// ```
    /// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
    /// use gedgraft_syntax::LineBreak;
    /// let input = b"0 HEAD\r\n0 @I1@ INDI";
    /// let options = StreamOptions::default().with_batch_size(1);
    /// let batches: Vec<_> = RecordStream::new(&input[..], options).unwrap().map(Result::unwrap).collect();
    /// let before: Vec<_> = batches.iter().map(|b| b.parse().break_before()).collect();
    /// assert_eq!(before, [None, Some(LineBreak::CrLf)]);
    /// assert_eq!(gedgraft_syntax::parse(input).break_before(), None);
    /// ```
    pub fn break_before(&self) -> Option<LineBreak> {
        self.origin.break_before
    }

    /// This parse with [`break_before`](Parse::break_before) set to `line_break`: for the parse of an edited
    /// batch of a streamed file, which follows the text the edit made of the batches before it.
    pub fn with_break_before(mut self, line_break: Option<LineBreak>) -> Parse {
        self.origin.break_before = line_break;
        self
    }

    /// The file location of the parse's first octet: offset 0, line 1, column 1 for a whole file; for a batch of
    /// a streamed file ([`crate::stream`]), where the batch starts. Layers above that locate tree offsets
    /// themselves add it.
    pub fn origin(&self) -> Location {
        Location {
            offset: self.origin.offset,
            line: self.origin.lines_before.saturating_add(1),
            column: 1,
        }
    }

    /// Takes `like`'s place in its file ([`crate::internal::located_like`]).
    pub(crate) fn locate_like(&mut self, like: &Parse) {
        self.origin = like.origin;
    }

    /// The diagnostics, for the stream to join a run of one code across two batches.
    pub(crate) fn diagnostics_mut(&mut self) -> &mut Vec<Diagnostic> {
        &mut self.diagnostics
    }

    /// Locates `d` (a run whose last problem is on file line `last_line`) and puts it where a whole-file parse
    /// has it, for the stream to add a diagnostic of the whole file: after the diagnostics that start before
    /// it and the parser's that start where it starts, before the encoding notes that start there (a
    /// whole-file parse adds the notes after the parser's diagnostics, then sorts by start, stably).
    pub(crate) fn insert_diagnostic(&mut self, mut d: Diagnostic, last_line: usize) {
        let start = d.range.start();
        d.location = self.locate(start);
        d.end_offset = (self.source_map.file_offset(usize::from(d.range.end())))
            .saturating_add(self.origin.offset);
        d.last_line = last_line.max(d.location.line);
        let before = |e: &Diagnostic| {
            let first = e.range.start();
            first < start || (first == start && !EncodingNote::ALL.contains(&e.code))
        };
        let at = (self.diagnostics).partition_point(before);
        self.diagnostics.insert(at, d);
    }

    /// The file's dialect as the stream read it from the first batch, if this is a later batch.
    pub(crate) fn dialect_override(&self) -> Option<crate::Dialect> {
        self.dialect
    }

    /// Places the diagnostics in the file, in one walk over the text in file order (linear however many there
    /// are), and a second over the ends of runs if there are any.
    fn locate_diagnostics(&mut self, text: &str) {
        let bytes = text.as_bytes();
        crate::diagnostic::sort_by_start(&mut self.diagnostics);
        let mut cursor = LineCursor::with_columns();
        for d in &mut self.diagnostics {
            let at = usize::from(d.range.start());
            let position = cursor.seek(bytes, at);
            d.location = self.origin.apply(Location {
                offset: self.source_map.file_offset(at.min(bytes.len())),
                line: position.line,
                column: position.column,
            });
            d.end_offset =
                self.source_map.file_offset(usize::from(d.range.end())) + self.origin.offset;
            d.last_line = d.location.line;
        }
        let mut runs: Vec<(TextSize, usize)> = (self.diagnostics.iter().enumerate())
            .filter(|(_, d)| d.count > 1)
            .map(|(i, d)| (d.last_start(), i))
            .collect();
        runs.sort_unstable();
        let mut cursor = LineCursor::new();
        for (last_start, i) in runs {
            let line = cursor.seek(bytes, usize::from(last_start)).line;
            if let Some(d) = self.diagnostics.get_mut(i) {
                d.last_line = line + self.origin.lines_before;
            }
        }
    }

    /// The logical value of a structure of this parse, as [`Structure::value`](crate::ast::Structure::value)
    /// gives it, with the encoding the file was really read with (an ANSEL file's diacritics follow their
    /// letters even when its `HEAD.CHAR` says otherwise or the encoding was forced).
    ///
    /// ```
    /// use gedgraft_syntax::{encoding::{DetectOptions, Encoding}, parse_with, ParseOptions};
    /// let mut options = ParseOptions::default();
    /// options.detect = DetectOptions { force: Some(Encoding::Ansel), default_encoding: None };
    /// let parse = parse_with(b"0 HEAD\n0 @N1@ NOTE Jos\xE2e\n0 TRLR\n", &options);
    /// let note = parse.document().record_by_xref("N1").unwrap();
    /// assert_eq!(parse.value(&note).unwrap().to_string(), "Jose\u{301}");
    /// assert_eq!(note.value().unwrap().to_string(), "Jos\u{301}e", "no CHAR: read in tree order");
    /// ```
    pub fn value(&self, structure: &crate::ast::Structure) -> Option<crate::Value> {
        crate::value::of(structure, Some(self.encoding() == Encoding::Ansel))
    }

    /// The root of the tree.
    pub fn syntax(&self) -> SyntaxNode {
        SyntaxNode::new_root(self.green.clone())
    }

    /// The typed root of the tree.
    pub fn document(&self) -> Document {
        Document::from_root(self.syntax())
    }

    /// The green tree.
    pub fn green(&self) -> &GreenNode {
        &self.green
    }

    /// The deepest the parser's stack of open structures went (the document counted): with one more for a
    /// line, how deep a walk over the tree goes.
    pub(crate) fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// The diagnostics, in file order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity() == crate::Severity::Error)
    }

    /// How the encoding was chosen.
    pub fn detection(&self) -> &Detection {
        &self.detection
    }

    /// The encoding the file was decoded with (and untouched text is written back with).
    pub fn encoding(&self) -> Encoding {
        self.detection.used
    }

    /// The map from tree offsets to file offsets.
    pub fn source_map(&self) -> &SourceMap {
        &self.source_map
    }

    /// The decoded text of the whole tree (built on first use, from the green tree: a red-tree walk would
    /// allocate a cursor per element).
    pub fn text(&self) -> &str {
        self.text.get_or_init(|| green_text(&self.green))
    }

    /// The file location of a tree offset: byte offset in the input, 1-based line and column.
    pub fn locate(&self, offset: TextSize) -> Location {
        let text = self.text();
        let index = self.line_index.get_or_init(|| LineIndex::new(text));
        self.origin
            .apply(index.locate(text, &self.source_map, usize::from(offset)))
    }

    /// The tree range of the line holding tree offset `offset`, without its line break (the line
    /// [`Parse::locate`] numbers). Logarithmic in the number of lines, once the line index is built.
    pub fn line_range(&self, offset: TextSize) -> TextRange {
        let text = self.text();
        let index = self.line_index.get_or_init(|| LineIndex::new(text));
        let range = index.line_range(text, usize::from(offset));
        let at = |o: usize| TextSize::from(u32::try_from(o).unwrap_or(u32::MAX));
        TextRange::new(at(range.start), at(range.end))
    }

    /// The file's octets, written back through the tree token by token.
    ///
    /// For a parsed file this is always `Ok` and equal to the input. It fails only for an edited tree that holds a
    /// character the file's encoding cannot represent.
    ///
    /// Large trees are written on all cores ([`Parse::to_bytes_threads`] chooses); the octets are the same.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Unencodable> {
        self.to_bytes_threads(0)
    }
}

/// Which tree [`Parse::from_edited`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditedTree {
    /// The edited tree itself: its octets parse back to it, so untouched subtrees stay the original's nodes.
    Kept,
    /// The freshly parsed tree: the octets parse to another tree (an editor that splices correctly never
    /// sees this).
    Reparsed,
}

impl Parse {
    /// The parse of an edited tree: parses `bytes`, the octets of `green` written with `encoding`, with that
    /// encoding forced, so that the diagnostics, detection and source map are those of the new file. When the
    /// parsed tree is equal to `green` (compared node by node, iteratively), the result holds `green` itself,
    /// so subtrees an editor did not touch stay the very green nodes of the original tree
    /// ([`EditedTree::Kept`]). Otherwise the freshly parsed tree is kept ([`EditedTree::Reparsed`]).
    ///
    /// ```
    /// use gedgraft_syntax::{encoding::Encoding, parse, EditedTree, Parse};
    /// let old = parse(b"0 HEAD\n0 TRLR\n");
    /// let green = old.green().clone();
    /// let (new, tree) = Parse::from_edited(green, b"0 HEAD\n0 TRLR\n", Encoding::Utf8);
    /// assert!(tree == EditedTree::Kept && std::ptr::eq(&**new.green(), &**old.green()));
    /// let (new, tree) = Parse::from_edited(old.green().clone(), b"0 HEAD\n", Encoding::Utf8);
    /// assert!(tree == EditedTree::Reparsed && new.has_errors()); // not that tree's octets: the parsed tree wins
    /// ```
    pub fn from_edited(green: GreenNode, bytes: &[u8], encoding: Encoding) -> (Parse, EditedTree) {
        Parse::from_edited_reading(green, bytes, encoding, Reading::default())
    }

    /// [`Parse::from_edited`] for the edit of `like`: `bytes` are read as `like`'s text was, a whole file or a
    /// batch of a streamed file after the batches before it ([`crate::stream`]: whether it follows the file's
    /// first line, and a trailer), so that an edited batch parses back to its edited tree. In `like`'s encoding,
    /// the note that put `like`'s reading in doubt ([`Detection::doubt`](crate::encoding::Detection::doubt))
    /// stays in the new parse's detection.
    ///
    /// ```
    /// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
    /// use gedgraft_syntax::{EditedTree, Parse};
    /// // After a trailer, a line with no level is trailing text (in a batch of its own, not a malformed line).
    /// let input = b"0 HEAD\n0 TRLR\n0 @I1@ INDI\n0 @I2@ INDI\nINDI\n";
    /// let options = StreamOptions::default().with_batch_size(1);
    /// let batches: Vec<_> = RecordStream::new(&input[..], options).unwrap().map(Result::unwrap).collect();
    /// let last = batches.last().unwrap().parse();
    /// let bytes = last.to_bytes().unwrap();
    /// let (again, tree) = Parse::from_edited_like(last.green().clone(), &bytes, last.encoding(), last);
    /// assert_eq!(tree, EditedTree::Kept);
    /// let (alone, tree) = Parse::from_edited(last.green().clone(), &bytes, last.encoding());
    /// assert_eq!(tree, EditedTree::Reparsed);
    /// ```
    pub fn from_edited_like(
        green: GreenNode,
        bytes: &[u8],
        encoding: Encoding,
        like: &Parse,
    ) -> (Parse, EditedTree) {
        let (mut parse, tree) =
            Parse::from_edited_reading(green, bytes, encoding, like.origin.reading);
        // Read as `like` was: what put its reading in doubt still does, whatever the edit removed (new text is
        // not written into a file read in doubt, whichever edit comes first).
        if encoding == like.encoding() && parse.detection.doubt().is_none() {
            parse
                .detection
                .notes
                .extend(like.detection.doubt().cloned());
            parse.carried_doubt_line = like.doubt_line();
        }
        (parse, tree)
    }

    /// The line of the note that puts the reading in doubt ([`Detection::doubt`]), if there is one: the line
    /// of its diagnostic, or, in an edited parse that carries the doubt of the parse it was made from
    /// ([`Parse::from_edited_like`]) after the edit removed that line, the line the note had there.
    ///
    /// ```
    /// use gedgraft_syntax::{parse, EditedTree, Parse};
    /// let doubtful = parse(b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE M\xfcller\n0 TRLR\n");
    /// assert_eq!(doubtful.doubt_line(), Some(3));
    /// // The NOTE record deleted: the doubt stays, with the line it was on.
    /// let bytes = b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n";
    /// let tree = gedgraft_syntax::parse(bytes).green().clone();
    /// let (edited, _) = Parse::from_edited_like(tree, bytes, doubtful.encoding(), &doubtful);
    /// assert_eq!(edited.doubt_line(), Some(3));
    /// ```
    pub fn doubt_line(&self) -> Option<usize> {
        let note = self.detection.doubt()?;
        let of_diagnostic = self.diagnostics.iter().find(|d| d.code == note.code);
        of_diagnostic
            .map(|d| d.location.line)
            .or(self.carried_doubt_line)
    }

    fn from_edited_reading(
        green: GreenNode,
        bytes: &[u8],
        encoding: Encoding,
        reading: Reading,
    ) -> (Parse, EditedTree) {
        let detect = DetectOptions {
            force: Some(encoding),
            default_encoding: None,
        };
        let mut parse = match reading.piece {
            None => parse_with(bytes, &ParseOptions { detect, threads: 0 }),
            Some((later, after_trailer)) => {
                let (detection, text, source_map) = detect_and_decode(bytes, &detect);
                let out = crate::parser::parse_piece(&text, encoding, later, after_trailer);
                let green = GreenNode::new(SyntaxKind::Document.into(), out.children);
                let origin = Origin {
                    reading,
                    ..Origin::default()
                };
                let (diagnostics, depth) = (out.diagnostics, out.max_depth);
                Parse::of_batch(
                    green,
                    diagnostics,
                    detection,
                    source_map,
                    &text,
                    depth,
                    origin,
                    None,
                )
            }
        };
        let same = same_tree(&parse.green, &green);
        let unused = if same {
            std::mem::replace(&mut parse.green, green)
        } else {
            green
        };
        // Released through a throwaway `Parse`, whose drop is iterative for deep trees.
        drop(Parse {
            green: unused,
            diagnostics: Vec::new(),
            detection: parse.detection.clone(),
            source_map: SourceMap::default(),
            line_index: OnceLock::new(),
            text: OnceLock::new(),
            max_depth: usize::MAX,
            carried_doubt_line: None,
            origin: Origin::default(),
            dialect: None,
        });
        let tree = if same {
            EditedTree::Kept
        } else {
            EditedTree::Reparsed
        };
        (parse, tree)
    }
}

/// The text of a green subtree, token after token.
fn green_text(node: &GreenNodeData) -> String {
    let mut text = String::with_capacity(usize::from(node.text_len()));
    green_tokens(node).for_each(|token| text.push_str(token.text()));
    text
}

/// Whether two green trees have the same kinds and texts throughout (iterative; shared subtrees are skipped).
fn same_tree(a: &GreenNodeData, b: &GreenNodeData) -> bool {
    if a.kind() != b.kind() || a.text_len() != b.text_len() {
        return false;
    }
    let mut stack = vec![(a.children(), b.children())];
    while let Some((left, right)) = stack.last_mut() {
        match (left.next(), right.next()) {
            (None, None) => {
                stack.pop();
            }
            (Some(NodeOrToken::Node(x)), Some(NodeOrToken::Node(y))) => {
                if std::ptr::eq(x, y) {
                    continue;
                }
                if x.kind() != y.kind() || x.text_len() != y.text_len() {
                    return false;
                }
                stack.push((x.children(), y.children()));
            }
            (Some(NodeOrToken::Token(x)), Some(NodeOrToken::Token(y))) => {
                if x.kind() != y.kind() || x.text() != y.text() {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

/// Trees deeper than this are torn down iteratively on drop.
const DEEP_TREE: usize = 512;

impl Drop for Parse {
    /// rowan frees green nodes recursively, which would overflow the stack on very deep trees (invariant 4):
    /// hold every node of a deep tree in a list in pre-order and release them parents first, so each release
    /// frees one node.
    fn drop(&mut self) {
        if self.max_depth <= DEEP_TREE {
            return;
        }
        let green = std::mem::replace(
            &mut self.green,
            GreenNode::new(SyntaxKind::Document.into(), std::iter::empty()),
        );
        release_iteratively(vec![green]);
    }
}
