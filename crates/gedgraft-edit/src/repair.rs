//! Repairs: the edits that fix a diagnostic, attached to it, as rustc and clippy attach a suggestion.
//!
//! [`repairs`] looks at a parse and its diagnostics (the syntax layer's and, when the caller has them, the
//! lowering's) and gives each diagnostic it knows how to fix a [`Repair`]: an [`Applicability`] (*safe*: the
//! data means the same, or the file becomes what its writer obviously meant; *unsafe*: a guess), a message
//! saying what it does, and its edits as octet ranges of the file with their replacement octets
//! ([`OctetEdit`]). [`apply_repairs`] splices chosen repairs into the octets; [`repair_to_fixed_point`] applies,
//! re-parses, re-diagnoses and repeats (a repair may expose the next) for a bounded number of passes.
//!
//! Every replacement is written in the file's own conventions, as the [`Editor`](crate::Editor) writes new
//! text: the file's encoding, the line break and delimiters of the neighbouring lines; where the editor has the
//! operation (re-wrapping long lines, converting line breaks) the repair *is* the editor's output, split by the
//! diagnostic it fixes. A repair only ever touches the octets of its own edits: everything else is copied
//! (DESIGN.md invariant 3). One small module per kind of repair:
//!
//! - `lines.rs`: blank lines, a missing trailer, records after the trailer, LF CR line breaks;
//! - `payload.rs`: a raw line break in a payload, a character split across `CONC`, a bare `@`, a long line,
//!   `FORM` in the wrong case, NUL characters;
//! - `guess.rs` (unsafe): a level jump, a `CHAR` the octets contradict, a duplicate identifier.
//!
//! ```
//! use gedgraft_edit::{apply_repairs, repairs, Applicability};
//! let input = b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 EMAIL bob@example.com\n0 TRLR\n";
//! let parse = gedgraft_syntax::parse(input);
//! let diagnostics: Vec<_> = parse.diagnostics().iter().collect();
//! let found = repairs(&parse, &diagnostics);
//! let repair = found[0].as_ref().unwrap(); // the `unescaped-at` warning
//! assert_eq!((repair.code, repair.applicability), ("unescaped-at", Applicability::Safe));
//! assert_eq!((repair.edits[0].range.clone(), &repair.edits[0].replacement[..]), (43..43, &b"@"[..]));
//! let repaired = apply_repairs(input, &[repair]);
//! assert_eq!(repaired.bytes, b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 EMAIL bob@@example.com\n0 TRLR\n");
//! ```

use crate::edited::Change;
pub use fixed_point::{repair_to_fixed_point, repair_to_fixed_point_streamed, MAX_PASSES};
use gedgraft_syntax::{codes, Diagnostic, Parse, SyntaxKind, SyntaxNode, SyntaxToken};
use gedgraft_syntax::{TextRange, TextSize};
use std::ops::Range;

mod conc;
mod duplicates;
mod fixed_point;
mod guess;
mod lines;
mod parts;
pub use parts::{
    repairs_of_part, repairs_of_part_with, FileFacts, PartRepairs, GATHERED_CODES, WHOLE_FILE_CODES,
};
mod payload;
mod runs;
pub use runs::repair_of_run;

/// How sure a repair is of what the file meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Applicability {
    /// The data means the same, or the file becomes what its writer obviously meant: `gedgraft fix --repair`.
    Safe,
    /// A guess that may change what the file says: only with `gedgraft fix --repair-unsafe`.
    Unsafe,
}

impl Applicability {
    /// `safe` or `unsafe`, as in JSON output.
    ///
    /// ```
    /// assert_eq!(gedgraft_edit::Applicability::Unsafe.as_str(), "unsafe");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
        }
    }
}

/// One replacement of octets of the file: `range` (offsets in the file's octets; empty to insert) becomes
/// `replacement`, octets in the file's encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OctetEdit {
    /// The octets replaced, in the input file.
    pub range: Range<usize>,
    /// The octets that replace them.
    pub replacement: Vec<u8>,
}

/// The fix of one diagnostic: its edits, how sure they are, and what they do.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Repair {
    /// The code of the diagnostic it fixes.
    pub code: &'static str,
    /// Safe or unsafe.
    pub applicability: Applicability,
    /// What the repair does, for a `help:` line (`remove the blank line`).
    pub message: String,
    /// The edits, in file order, none overlapping another.
    pub edits: Vec<OctetEdit>,
}

/// The kinds of repair, by diagnostic code: the code, its applicability, and what the repair does in general
/// (for `gedgraft explain`). Not every diagnostic of such a code has a repair (a `bad-level` line is repaired
/// only when it reads as the rest of a payload broken by a raw line break).
pub const REPAIR_KINDS: &[(&str, Applicability, &str)] = &[
    (
        "bad-level",
        Applicability::Safe,
        "a line with no level under a text payload (a raw line break) becomes a `CONT` line",
    ),
    (
        "undecodable-octets",
        Applicability::Safe,
        "a UTF-8 character split across a `CONC` line is moved whole onto the `CONC` line",
    ),
    (
        "unescaped-at",
        Applicability::Safe,
        "the bare `@` is written `@@` (ELF and GEDCOM 5.5.x)",
    ),
    (
        "line-too-long",
        Applicability::Safe,
        "the payload is split with `CONC` lines within the limit",
    ),
    (
        "missing-trailer",
        Applicability::Safe,
        "`0 TRLR` is added at the end",
    ),
    (
        "record-after-trailer",
        Applicability::Safe,
        "the trailer before the record is moved to the end of the file",
    ),
    (
        "lf-cr-line-breaks",
        Applicability::Safe,
        "every line break becomes the file's most common form (CR LF if all are LF CR)",
    ),
    (
        "mixed-line-breaks",
        Applicability::Safe,
        "every line break becomes the file's most common form",
    ),
    (
        "conc-at-whitespace",
        Applicability::Safe,
        "the `CONC` split moves by the fewest characters to a place between two other characters",
    ),
    (
        "conc-after-diacritic",
        Applicability::Safe,
        "the `CONC` split moves by the fewest characters off the ANSEL diacritic and its letter",
    ),
    (
        "blank-line",
        Applicability::Safe,
        "the blank lines are removed",
    ),
    (
        "bad-gedc",
        Applicability::Safe,
        "a `FORM` of `LINEAGE-LINKED` in another case is written `LINEAGE-LINKED`",
    ),
    (
        "level-jump",
        Applicability::Unsafe,
        "the line's level becomes its parent's plus one; the lines after it at the same level, and the lines nested in them, move up by as much",
    ),
    (
        "declared-encoding-mismatch",
        Applicability::Unsafe,
        "`CHAR` is set to the encoding the octets look like",
    ),
    (
        "duplicate-xref",
        Applicability::Unsafe,
        "the later structure gets a new identifier, with the pointers of its part of the file when it is an appended export",
    ),
    (
        "not-a-character",
        Applicability::Unsafe,
        "the NUL characters are removed",
    ),
];

/// The kind of repair a code has, if any: its applicability and what it does.
///
/// ```
/// use gedgraft_edit::{repair_kind, Applicability};
/// assert_eq!(repair_kind("blank-line").map(|k| k.0), Some(Applicability::Safe));
/// assert!(repair_kind("bad-tag").is_none());
/// ```
pub fn repair_kind(code: &str) -> Option<(Applicability, &'static str)> {
    REPAIR_KINDS
        .iter()
        .find(|k| k.0 == code)
        .map(|&(_, a, what)| (a, what))
}

/// The repair of each diagnostic of `diagnostics` (of `parse`: its own and, for the codes of the lowering such
/// as `duplicate-xref`, the lowering's), `None` where there is none. Linear in the size of the file.
pub fn repairs(parse: &Parse, diagnostics: &[&Diagnostic]) -> Vec<Option<Repair>> {
    let mut out: Vec<Option<Repair>> = vec![None; diagnostics.len()];
    each_repair(parse, diagnostics, |i, r| {
        if let Some(slot) = out.get_mut(i) {
            *slot = Some(r);
        }
    });
    out
}

/// The codes whose repairs one editor run over the whole file makes, split by the diagnostic they fix.
const BY_EDITOR_RUN: &[&str] = &[
    codes::LINE_TOO_LONG,
    codes::LF_CR_LINE_BREAKS,
    codes::MIXED_LINE_BREAKS,
];

/// [`repairs`] one at a time: `each` gets the index and the repair of every diagnostic that has one, in the
/// order of `diagnostics`, so that a caller keeping only part of each repair never holds them all (#12).
pub(crate) fn each_repair(
    parse: &Parse,
    diagnostics: &[&Diagnostic],
    mut each: impl FnMut(usize, Repair),
) {
    let cx = Cx::new(parse);
    let mut made = by_editor_runs(&cx, diagnostics, BY_EDITOR_RUN);
    for (i, d) in diagnostics.iter().enumerate() {
        let repair = match made.next_if(|(at, _)| *at == i) {
            Some((_, r)) => r,
            None => cx.one(d),
        };
        if let Some(r) = repair {
            each(i, r);
        }
    }
}

/// Repairs made by editor runs, each with the index of its diagnostic, in order ([`by_editor_runs`]).
type ByEditorRuns = std::iter::Peekable<std::vec::IntoIter<(usize, Option<Repair>)>>;

/// The repairs of the diagnostics of `codes` (of [`BY_EDITOR_RUN`]) that one editor run over `cx`'s parse makes
/// (the whole part re-wrapped once, its line breaks converted once), split by the diagnostic they fix.
fn by_editor_runs(cx: &Cx, diagnostics: &[&Diagnostic], codes: &[&str]) -> ByEditorRuns {
    let (indices, picked): (Vec<usize>, Vec<&Diagnostic>) = diagnostics
        .iter()
        .enumerate()
        .filter(|(_, d)| codes.contains(&d.code))
        .unzip();
    let mut made: Vec<Option<Repair>> = vec![None; picked.len()];
    payload::long_lines(cx, &picked, &mut made);
    lines::line_breaks(cx, &picked, &mut made);
    let made: Vec<_> = indices.into_iter().zip(made).collect();
    made.into_iter().peekable()
}

/// A file with repairs applied: its octets and the changed ranges (as [`Edited::changed_ranges`](crate::Edited)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Repaired {
    /// The new octets.
    pub bytes: Vec<u8>,
    /// The changed ranges, input to output.
    pub changes: Vec<Change>,
    /// How many repairs were applied (a repair whose edits overlap an earlier one's is left for a later pass).
    pub applied: usize,
    /// Which of the repairs given to [`apply_repairs`] were applied, by index (empty for
    /// [`repair_to_fixed_point`], whose passes each have their own).
    pub applied_indices: Vec<usize>,
    /// For [`repair_to_fixed_point`]: how many wanted repairs the final octets still have because the run
    /// stopped after [`MAX_PASSES`] passes (running it again continues), else 0.
    pub left: usize,
    /// For [`repair_to_fixed_point`]: how many unsafe repairs of the final octets were not wanted (for a hint
    /// that `--repair-unsafe` has more to offer).
    pub unwanted_unsafe: usize,
}

/// Applies `chosen` repairs of the file `input`: every octet outside their edits is copied. A repair whose
/// edits overlap those of a repair before it in `chosen` is left out (whole), for a later pass.
pub fn apply_repairs(input: &[u8], chosen: &[&Repair]) -> Repaired {
    fixed_point::splice(
        input,
        chosen.iter().map(|r| {
            r.edits
                .iter()
                .map(|e| (e.range.clone(), e.replacement.as_slice()))
        }),
    )
}

/// What the repairs of one parse share: the parse, and where its text lies in the file.
pub(crate) struct Cx<'a> {
    pub parse: &'a Parse,
    pub root: SyntaxNode,
    origin: usize,
    /// The file's identifiers and their holders, when a repair asks (`guess.rs`).
    xrefs: std::cell::OnceCell<std::collections::HashMap<String, Vec<TextSize>>>,
    /// Where each structure asked about has its first substructure (by the structure's start), so that many
    /// repairs in one large structure look at its children once.
    first_children: std::cell::RefCell<std::collections::HashMap<TextSize, Option<TextSize>>>,
    /// Where appended parts start and end (`guess.rs`: (start, where the part after it starts)), and every
    /// pointer by target, when a repair asks.
    part_starts: std::cell::OnceCell<Vec<(TextSize, TextSize)>>,
    pointers: std::cell::OnceCell<std::collections::HashMap<String, Vec<TextRange>>>,
    /// The identifiers later holders of an identifier get (`guess.rs`, made once per identifier).
    fresh: std::cell::RefCell<std::collections::HashMap<String, guess::FreshNames>>,
    /// Where the file's trailers and last record are (`lines.rs`): this parse's, or the whole file's
    /// gathered by [`FileFacts`] for a part of it.
    ends: std::cell::OnceCell<lines::Ends>,
}

impl<'a> Cx<'a> {
    fn new(parse: &'a Parse) -> Cx<'a> {
        Cx {
            parse,
            root: parse.syntax(),
            origin: parse.origin().offset,
            xrefs: std::cell::OnceCell::new(),
            first_children: std::cell::RefCell::default(),
            part_starts: std::cell::OnceCell::new(),
            pointers: std::cell::OnceCell::new(),
            fresh: std::cell::RefCell::default(),
            ends: std::cell::OnceCell::new(),
        }
    }

    /// Where the file's trailers and last record are: gathered from this parse when asked, unless they were
    /// given ([`FileFacts`]).
    fn ends(&self) -> &lines::Ends {
        self.ends.get_or_init(|| {
            let mut ends = lines::Ends::default();
            ends.gather(self);
            ends
        })
    }

    /// The repair of one diagnostic, for the codes repaired one diagnostic at a time.
    fn one(&self, d: &Diagnostic) -> Option<Repair> {
        let made = match d.code {
            "blank-line" => lines::blank_lines(self, d),
            "missing-trailer" => lines::missing_trailer(self, d),
            "record-after-trailer" => lines::trailer_to_end(self, d),
            "bad-level" => payload::raw_line_breaks(self, d),
            "undecodable-octets" => payload::split_characters(self, d),
            "unescaped-at" => payload::bare_at(self, d),
            "bad-gedc" => payload::form_case(self, d),
            "not-a-character" => payload::nul_characters(self, d),
            "conc-at-whitespace" | "conc-after-diacritic" => conc::conc_splits(self, d),
            "level-jump" => guess::level_jump(self, d),
            "declared-encoding-mismatch" => guess::char_value(self, d),
            "duplicate-xref" => guess::duplicate_xref(self, d),
            _ => None,
        }?;
        let (message, edits) = made;
        self.repair(d.code, message, edits)
    }

    /// A repair of `code` with these edits (`None` when there are none).
    pub fn repair(
        &self,
        code: &'static str,
        message: String,
        mut edits: Vec<OctetEdit>,
    ) -> Option<Repair> {
        if edits.is_empty() {
            return None;
        }
        edits.sort_by_key(|e| (e.range.start, e.range.end));
        let (applicability, _) = repair_kind(code)?;
        // A message made by `format!` has room for twice its text; `check` keeps one per repair.
        let mut message = message;
        message.shrink_to_fit();
        Some(Repair {
            code,
            applicability,
            message,
            edits,
        })
    }

    /// The file offset of a tree offset.
    pub fn file(&self, at: TextSize) -> usize {
        self.parse.source_map().file_offset(usize::from(at)) + self.origin
    }

    /// The edit replacing the tree range `range` with `text`, written in the file's encoding (`None` if it
    /// cannot be: the repair is then not offered).
    pub fn replace(&self, range: TextRange, text: &str) -> Option<OctetEdit> {
        let mut replacement = Vec::new();
        self.parse.encoding().encode(text, &mut replacement).ok()?;
        Some(OctetEdit {
            range: self.file(range.start())..self.file(range.end()),
            replacement,
        })
    }

    /// An edit made of an editor's change: `change` is in the octets of this parse, `bytes` the editor's output.
    pub fn edit_of_change(&self, change: &Change, bytes: &[u8]) -> Option<OctetEdit> {
        Some(OctetEdit {
            range: change.input.start + self.origin..change.input.end + self.origin,
            replacement: bytes.get(change.output.clone())?.to_vec(),
        })
    }

    /// The tree range from the start of the line holding `first` to the end of the line holding `last`, its line
    /// break included.
    pub fn lines(&self, first: TextSize, last: TextSize) -> TextRange {
        let start = self.parse.line_range(first).start();
        let end = self.parse.line_range(last).end();
        let text = self.parse.text();
        let rest = text.get(usize::from(end)..).unwrap_or("");
        let brk = if rest.starts_with("\r\n") {
            2
        } else if rest.starts_with('\n') || rest.starts_with('\r') {
            1
        } else {
            0
        };
        TextRange::new(start, end + TextSize::from(brk))
    }

    /// The lines a diagnostic's run covers: from its first problem's line to its last one's.
    pub fn run_lines(&self, d: &Diagnostic) -> TextRange {
        self.lines(d.range.start(), d.last_start().max(d.range.start()))
    }

    /// The tokens that start inside `range`, in text order.
    pub fn tokens_in(&self, range: TextRange) -> impl Iterator<Item = SyntaxToken> + '_ {
        let first = self.token_at(range.start()).and_then(|t| {
            if t.text_range().start() >= range.start() {
                Some(t)
            } else {
                t.next_token()
            }
        });
        std::iter::successors(first, SyntaxToken::next_token)
            .take_while(move |t| t.text_range().start() < range.end())
    }

    /// The innermost node of `kind` holding the token that starts at (or covers) `at`.
    pub fn node_at(&self, at: TextSize, kind: SyntaxKind) -> Option<SyntaxNode> {
        let token = self.token_at(at)?;
        token.parent_ancestors().find(|n| n.kind() == kind)
    }

    /// The token covering tree offset `at` (the one starting there, at a boundary), found by rowan's binary
    /// search over each node's children on the way down (`token_at_offset` walks the children one by one,
    /// which costs a record's position for each diagnostic).
    pub fn token_at(&self, at: TextSize) -> Option<SyntaxToken> {
        let end = self.root.text_range().end();
        let probe = if at < end {
            TextRange::at(at, 1.into())
        } else {
            TextRange::empty(end)
        };
        let mut node = self.root.clone();
        loop {
            match node.child_or_token_at_range(probe)? {
                rowan::NodeOrToken::Token(t) => return Some(t),
                rowan::NodeOrToken::Node(n) => node = n,
            }
        }
    }

    /// Where the first substructure of `node` (a record or structure) starts, if it has one.
    pub fn first_substructure(&self, node: &SyntaxNode) -> Option<TextSize> {
        let key = node.text_range().start();
        *self
            .first_children
            .borrow_mut()
            .entry(key)
            .or_insert_with(|| {
                node.children()
                    .find(|n| n.kind() == SyntaxKind::Structure)
                    .map(|n| n.text_range().start())
            })
    }

    /// The text of the tree range `range`.
    pub fn text(&self, range: TextRange) -> &str {
        self.parse
            .text()
            .get(usize::from(range.start())..usize::from(range.end()))
            .unwrap_or("")
    }
}

/// What a repair of one diagnostic makes: its message and its edits.
pub(crate) type Made = Option<(String, Vec<OctetEdit>)>;

/// `n` things, with an `s` when `n` is not 1.
pub(crate) fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repair(edits: &[(Range<usize>, &[u8])]) -> Repair {
        repair_with(Applicability::Safe, edits)
    }

    /// A `blank-line` repair of these edits (for the tests of `fixed_point.rs` too).
    pub(super) fn repair_with(
        applicability: Applicability,
        edits: &[(Range<usize>, &[u8])],
    ) -> Repair {
        Repair {
            code: "blank-line",
            applicability,
            message: "a message a plan does not keep".into(),
            edits: edits
                .iter()
                .map(|(r, b)| OctetEdit {
                    range: r.clone(),
                    replacement: b.to_vec(),
                })
                .collect(),
        }
    }

    #[test]
    fn overlapping_repairs_are_left_whole_for_a_later_pass() {
        let input = b"abcdef";
        let first = repair(&[(1..2, b"X"), (4..4, b"+")]);
        let clash = repair(&[(5..6, b"Y"), (4..4, b"-")]); // inserts where `first` inserts
        let touching = repair(&[(2..3, b"")]); // touches `first`'s edit at 2: allowed
        let out = apply_repairs(input, &[&first, &clash, &touching]);
        assert_eq!(out.bytes, b"aXd+ef");
        assert_eq!(
            (out.applied, out.applied_indices.as_slice()),
            (2, &[0, 2][..])
        );
        assert_eq!(
            out.changes,
            [
                Change {
                    input: 1..3,
                    output: 1..2
                },
                Change {
                    input: 4..4,
                    output: 3..4
                }
            ]
        );
    }

    #[test]
    fn a_repair_whose_own_edits_overlap_or_leave_the_file_is_not_applied() {
        let input = b"abc";
        let bad = repair(&[(0..2, b""), (1..3, b"")]);
        let outside = repair(&[(2..9, b"")]);
        let out = apply_repairs(input, &[&bad, &outside]);
        assert_eq!((out.bytes.as_slice(), out.applied), (&input[..], 0));
    }
}
