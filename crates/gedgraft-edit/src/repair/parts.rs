//! The repairs of a file read in parts (the batches of a [`gedgraft_syntax::stream::RecordStream`], each
//! located in the file by [`Parse::origin`]): the edits are in the file's octets. Most repairs need only their
//! part; those that need the rest of the file ([`GATHERED_CODES`]) are made from what a pass over the parts
//! gathered first ([`FileFacts`]), the whole file's repairs without the whole tree.

use super::duplicates::DuplicateNames;
use super::lines::Ends;
use super::{by_editor_runs, ByEditorRuns, Cx, Repair};
use gedgraft_syntax::{codes, Diagnostic, Parse};

/// The codes whose repair needs the whole file: the trailers after a record and the file's end
/// (`record-after-trailer`), the file's line breaks, its header's `CHAR` for a mismatch found anywhere, every
/// holder of an identifier (`duplicate-xref`). [`repairs_of_part`] leaves them out; [`repairs_of_part_with`]
/// makes those of [`GATHERED_CODES`] from the [`FileFacts`] a pass over the file gathered. A file with one of
/// the others takes the whole-file path to be repaired the same.
pub const WHOLE_FILE_CODES: &[&str] = &[
    "record-after-trailer",
    "lf-cr-line-breaks",
    "mixed-line-breaks",
    "declared-encoding-mismatch",
    "duplicate-xref",
];

/// The codes of [`WHOLE_FILE_CODES`] that [`repairs_of_part_with`] repairs from [`FileFacts`].
pub const GATHERED_CODES: &[&str] = &["record-after-trailer", "duplicate-xref"];

/// [`repairs`](crate::repairs) for a parse of part of a file (a batch of
/// [`gedgraft_syntax::stream::RecordStream`], located in the file by [`Parse::origin`]): the edits are in the
/// file's octets, and the codes of [`WHOLE_FILE_CODES`] get no repair.
pub fn repairs_of_part(parse: &Parse, diagnostics: &[&Diagnostic]) -> Vec<Option<Repair>> {
    PartRepairs::new(parse, diagnostics, None).next_repairs(diagnostics.len(), None, &|_| 0)
}

/// [`repairs_of_part`] with the repairs of [`GATHERED_CODES`] too, the whole file's, made from `facts`
/// (gathered by passes over the file first: [`FileFacts`]) and `held(id)`, how many structures of the file
/// hold `id` (a first pass counts them: `gedgraft_model::StreamLowering::holder_count`). Call it on every
/// part, in file order.
pub fn repairs_of_part_with(
    parse: &Parse,
    diagnostics: &[&Diagnostic],
    facts: &mut FileFacts,
    held: &dyn Fn(&str) -> usize,
) -> Vec<Option<Repair>> {
    let mut repairs = PartRepairs::new(parse, diagnostics, Some(facts));
    repairs.next_repairs(diagnostics.len(), Some(facts), held)
}

/// The repairs of a part's diagnostics ([`repairs_of_part`], [`repairs_of_part_with`]) a slice at a time, for a
/// caller that shows or applies each slice's before it asks for the next: a record with a problem on every
/// other line has as many repairs, and holding them all would cost several times the record (#12). The
/// repairs one editor run over the part makes (`line-too-long`: the part re-wrapped once) are made at the
/// start, the others as their slice is asked for.
///
/// ```
/// use gedgraft_edit::{repairs_of_part, PartRepairs};
/// use gedgraft_model::{LowerOptions, StreamLowering};
/// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
/// let input = b"0 HEAD\n0 @N1@ NOTE a@b\n1 CONT \n0 @N2@ NOTE c\n2 _X\n0 TRLR\n";
/// let mut lowering = StreamLowering::new(&LowerOptions::default());
/// let (mut one_at_a_time, mut at_once) = (Vec::new(), Vec::new());
/// for batch in RecordStream::new(&input[..], StreamOptions::default()).unwrap() {
///     let batch = batch.unwrap();
///     let lowered = lowering.lower(batch.parse());
///     let diagnostics = lowered.all_diagnostics(batch.parse());
///     let mut slices = PartRepairs::new(batch.parse(), &diagnostics, None);
///     for _ in 0..diagnostics.len() {
///         one_at_a_time.extend(slices.next_repairs(1, None, &|_| 0));
///     }
///     at_once.extend(repairs_of_part(batch.parse(), &diagnostics));
/// }
/// assert_eq!(one_at_a_time, at_once);
/// let messages: Vec<_> = one_at_a_time.into_iter().flatten().map(|r| r.message).collect();
/// assert_eq!(messages.len(), 2, "{messages:?}"); // the bare `@`, the level jump
/// ```
pub struct PartRepairs<'p, 'd> {
    cx: Cx<'p>,
    diagnostics: &'d [&'d Diagnostic],
    /// The repairs made by one editor run, by the index of their diagnostic, in order.
    made: ByEditorRuns,
    /// The index of the next diagnostic whose repair is asked for.
    next: usize,
    /// Whether the repairs of [`GATHERED_CODES`] are made (from the [`FileFacts`] given).
    gathered: bool,
}

impl<'p, 'd> PartRepairs<'p, 'd> {
    /// The repairs of `diagnostics` (of `parse`, a part of a file, in file order), the whole file's from `facts`
    /// when given ([`repairs_of_part_with`]; pass the same facts to each [`next_repairs`](Self::next_repairs)).
    pub fn new(
        parse: &'p Parse,
        diagnostics: &'d [&'d Diagnostic],
        facts: Option<&FileFacts>,
    ) -> Self {
        let cx = Cx::new(parse);
        if let Some(facts) = facts {
            // The trailers and the end of the file are the whole file's, not this part's.
            let _ = cx.ends.set(facts.ends.clone());
        }
        // The line breaks' repairs need the whole file (`WHOLE_FILE_CODES`).
        let made = by_editor_runs(&cx, diagnostics, &[codes::LINE_TOO_LONG]);
        PartRepairs {
            cx,
            diagnostics,
            made,
            next: 0,
            gathered: facts.is_some(),
        }
    }

    /// The repairs of the next `n` diagnostics (fewer at the end), `None` where there is none; `facts` and
    /// `held(id)` as [`repairs_of_part_with`] takes them, if facts were given to [`new`](Self::new) (else
    /// `held` is not asked).
    pub fn next_repairs(
        &mut self,
        n: usize,
        mut facts: Option<&mut FileFacts>,
        held: &dyn Fn(&str) -> usize,
    ) -> Vec<Option<Repair>> {
        let end = self.next.saturating_add(n).min(self.diagnostics.len());
        let mut out = Vec::with_capacity(end.saturating_sub(self.next));
        for i in self.next..end {
            let Some(d) = self.diagnostics.get(i) else {
                break;
            };
            let repair = match self.made.next_if(|(at, _)| *at == i) {
                Some((_, r)) => r,
                None => match (d.code, facts.as_deref_mut()) {
                    ("record-after-trailer", Some(_)) if self.gathered => self.cx.one(d),
                    ("duplicate-xref", Some(facts)) if self.gathered => {
                        facts.names.one(&self.cx, d, held)
                    }
                    (code, _) if WHOLE_FILE_CODES.contains(&code) => None,
                    _ => self.cx.one(d),
                },
            };
            out.push(repair);
        }
        self.next = end;
        out
    }
}

/// What the repairs of a file read in parts (batches of records, in file order:
/// [`repairs_of_part_with`]) need from the rest of the file, so that they are the whole file's
/// ([`repairs`](crate::repairs)):
///
/// - for `record-after-trailer`, whether a later trailer ends the file, and how the file's last record ends
///   (the trailer moves there): [`gather_ends`](FileFacts::gather_ends), O(1) memory, in any pass;
/// - for `duplicate-xref`, where the holders of each identifier held more than once are, which pointers name
///   it, and where the file's parts start (an export appended to another):
///   [`gather_names`](FileFacts::gather_names), O(those holders and pointers) memory, in a pass after one
///   that counted the holders.
///
/// ```
/// use gedgraft_edit::{repairs_of_part_with, FileFacts};
/// use gedgraft_model::{LowerOptions, StreamLowering};
/// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
/// let input = b"0 HEAD\n0 @I1@ INDI\n0 @I1@ INDI\n0 @I1_2@ INDI\n0 TRLR\n0 @I1@ INDI\n0 TRLR\n";
/// let batches = || RecordStream::new(&input[..], StreamOptions::default().with_batch_size(1)).unwrap();
/// // A first pass counts the holders of each identifier and gathers the trailers, a second gathers where the
/// // duplicated identifiers are, a third lowers and repairs.
/// let mut lowering = StreamLowering::new(&LowerOptions::default());
/// let mut facts = FileFacts::default();
/// for batch in batches() {
///     let batch = batch.unwrap();
///     lowering.index_identifiers(batch.parse());
///     facts.gather_ends(batch.parse());
/// }
/// let held = |id: &str| lowering.holder_count(id);
/// for batch in batches() {
///     facts.gather_names(batch.unwrap().parse(), &held);
/// }
/// let mut messages = Vec::new();
/// for batch in batches() {
///     let batch = batch.unwrap();
///     let lowered = lowering.lower(batch.parse());
///     let diagnostics = lowered.all_diagnostics(batch.parse());
///     let held = |id: &str| lowering.holder_count(id);
///     let repairs = repairs_of_part_with(batch.parse(), &diagnostics, &mut facts, &held);
///     messages.extend(repairs.into_iter().flatten().map(|r| r.message));
/// }
/// // `@I1_2@` is taken: the second and third holders of `@I1@` become `@I1_3@` and `@I1_4@`.
/// assert_eq!(messages.len(), 3, "{messages:?}");
/// assert!(messages[0].starts_with("rename this one `@I1_3@`"), "{}", messages[0]);
/// // The inner trailer goes: a later one ends the file.
/// assert!(messages[1].starts_with("remove this inner trailer"), "{}", messages[1]);
/// assert!(messages[2].starts_with("rename this one `@I1_4@`"), "{}", messages[2]);
/// ```
#[derive(Debug, Default)]
pub struct FileFacts {
    ends: Ends,
    names: DuplicateNames,
}

impl FileFacts {
    /// Gathers where the trailers and the last record of one part (`parse`) are, after the parts before it.
    pub fn gather_ends(&mut self, parse: &Parse) {
        self.ends.gather(&Cx::new(parse));
    }

    /// Gathers the holders of the identifiers held more than once in one part (`parse`) and the pointers to
    /// them, after the parts before it; `held(id)` is how many structures of the file hold `id` (a first pass
    /// counts them). Only needed in a file where an identifier is held more than once.
    pub fn gather_names(&mut self, parse: &Parse, held: &dyn Fn(&str) -> usize) {
        self.names.gather(parse, held);
    }
}
