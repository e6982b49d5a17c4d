//! The ELF editor: batched, local edits of ELF and GEDCOM files that leave every other octet as it was.
//!
//! The 2019 ELF draft defines an *ELF editor* as an application that applies a few changes and outputs data
//! identical to its input, octet for octet, except where the changes were made (R-APPLICATIONS-03); acting on a
//! conformant source it must output a conformant source (R-APPLICATIONS-04). This crate is that editor:
//!
//! 1. [`Editor::new`] borrows a [`Parse`](gedgraft_syntax::Parse); its methods record edits (and check their
//!    arguments at once): [rename a tag](Editor::rename_tag), [set a string payload](Editor::set_payload) or
//!    [a pointer](Editor::set_pointer), [set or remove an identifier](Editor::set_xref) (pointers follow),
//!    [insert](Editor::insert) or [delete](Editor::delete) a structure, [escape bare `@`s](Editor::escape_at_signs),
//!    [split long payload lines](Editor::rewrap), [join needless `CONC` splits](Editor::join_conc),
//!    [convert line breaks](Editor::convert_line_breaks),
//!    [transcode](Editor::transcode). Paths ([`Scope`]) limit edits; a path that matches nothing is reported.
//! 2. [`Editor::apply`] rejects overlapping edits, then rebuilds the tree in one iterative pass, splicing new
//!    green subtrees in: every untouched subtree is the very same green node as before. It writes the octets,
//!    re-parses them for fresh diagnostics, and returns an [`Edited`]: the new parse, the octets, the changed
//!    octet ranges ([`Change`]) in the input and the output, warnings, and a [unified diff](Edited::unified_diff).
//!    [`Editor::apply_lazily`] does the same but parses the output only when [`Edited::parse`] is called.
//! 3. [`write_atomic`] replaces a file on disk safely.
//!
//! Diagnostics that have a fix carry a [`Repair`] ([`repairs`]): octet edits with an [`Applicability`], applied
//! by [`apply_repairs`] or run to a fixed point by [`repair_to_fixed_point`] (`gedgraft fix --repair`).
//!
//! ```
//! use gedgraft_edit::{Editor, Scope};
//! let input = b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1  NAME  Bob\r\n1 EMAIL bob@example.com\r\n0 TRLR\r\n";
//! let parse = gedgraft_syntax::parse(input);
//! let mut editor = Editor::new(&parse);
//! editor.escape_at_signs(Some(&Scope::parse("INDI.EMAIL").unwrap()));
//! let edited = editor.apply().unwrap();
//! // Only the EMAIL line changed; the odd spacing of the NAME line and the CR LF breaks are kept.
//! assert_eq!(
//!     edited.bytes(),
//!     b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1  NAME  Bob\r\n1 EMAIL bob@@example.com\r\n0 TRLR\r\n"
//! );
//! // The change is the run of text the bare `@` is part of.
//! let change = &edited.changed_ranges()[0];
//! assert_eq!(&input[change.input.clone()], b"bob@example.com");
//! assert_eq!(&edited.bytes()[change.output.clone()], b"bob@@example.com");
//! ```
//!
//! # Conventions
//!
//! Lines the editor writes follow the file (DESIGN.md; R-APPLICATIONS-06, where the project chose to copy
//! untouched octets and write new lines in the file's own way):
//!
//! * **encoding**: the file's; a character it cannot write becomes a Unicode escape `@#U…@` (R-UNICODE-ESCAPE-05),
//!   after trying its canonical decomposition (ANSEL writes `é` as `E2 65`);
//! * **line break**: the break of the line being changed, else the nearest one before it, else after it;
//! * **indentation, delimiter, payload separator**: those of the structure's own line and its neighbours
//!   (indentation per level is carried on to deeper levels);
//! * **escaping**: every `@` of a new string payload is written `@@` (§ Encoding `@`s);
//! * **continuation**: a line break in a value starts a `CONT` line; lines longer than the limit (255 octets,
//!   510 in UTF-16, counting level, tag and line break in the file's encoding: R-SERIALISING-STRUCTS-08 and the
//!   project's choice in -15) are split with `CONC` between two non-blank units, never inside `@@`, an escape
//!   or a character (-09 to -14).
//!
//! # Dialects
//!
//! Every edit follows the file's dialect ([`Dialect`](gedgraft_syntax::Dialect), read from its header). In a
//! GEDCOM 7 file, which doubles only the leading `@` of a line string, has no `CONC` and is UTF-8 only: a new
//! payload doubles only a leading `@` (`@me` → `@@me`, `me@example.com` as it is) and is never split;
//! [`Editor::escape_at_signs`] doubles only a bare `@` that starts a line string; [`Editor::rewrap`] changes
//! nothing and warns ([`Warning::NotInDialect`]); [`Editor::transcode`] to anything but UTF-8 fails at apply
//! ([`EditError::DialectForbids`]), and to UTF-8 adds no `CHAR`.
//!
//! Octets the file's encoding could not decode (raw octets) are never re-encoded or moved, except by a
//! re-wrap of their own payload (which moves them whole) or a transcode (see [`RawOctets`]).
//!
//! # Cost
//!
//! Adding an edit costs the size of what it touches (a whole-file edit such as [`Editor::rename_tag`] walks the
//! tree once, whatever the number of matches); [`Editor::apply`] costs one walk over the paths to the changed
//! nodes, one write and one parse of the output (to check the spliced tree and give fresh diagnostics): linear in
//! the file's size, with no recursion on its depth. [`Editor::apply_lazily`] leaves out the parse until it is
//! asked for: when only the octets and the diff are wanted, a whole-file edit then costs little more than
//! writing the file. A [line diff](Edited::line_diff) costs one pass over the tokens of each file (on two
//! threads for large files), never a copy of either text; [`Edited::line_counts`] does not even read the
//! context lines.

mod atomic;
mod dialect;
mod diff;
mod diff_count;
mod diff_count_stream;
mod diff_lines;
mod diff_ops;
/// The test-only whole-text oracle of the review diff: kept with the tests, compiled into the unit tests only.
#[cfg(test)]
#[path = "../tests/support/diff_reference.rs"]
mod diff_reference;
mod diff_scan;
mod diff_stream;
mod edited;
mod editor;
mod error;
mod patch;
mod patch_stream;
mod render;
mod repair;
mod scope;
mod splice;
mod transcode_check;
mod transform;
mod unified;

pub use atomic::{
    check_backup_suffix, check_replaceable, remove_temporary_files, write_atomic,
    write_atomic_streamed, write_atomic_streamed_as, write_atomic_with,
};
pub use diff::{unified_diff, LineDiff};
pub use diff_stream::StreamedDiff;
pub use edited::{compose_changes, Change, Edited};
pub use editor::{Editor, LfCr, LineBreak, NewPayload, NewStructure, Position, RawOctets};
pub use error::{EditError, Warning};
pub use patch::{octet_line_changes, octet_patch, piecewise_line_changes};
pub use patch_stream::StreamedPatch;
pub use repair::{
    apply_repairs, repair_kind, repair_of_run, repair_to_fixed_point,
    repair_to_fixed_point_streamed, repairs, repairs_of_part, repairs_of_part_with, Applicability,
    FileFacts, OctetEdit, PartRepairs, Repair, Repaired, GATHERED_CODES, MAX_PASSES, REPAIR_KINDS,
    WHOLE_FILE_CODES,
};
pub use scope::Scope;
pub use unified::quote_path;

/// The README's examples, compiled and run as doctests so they cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
