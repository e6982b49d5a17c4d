//! Lowering: the lossless CST of `gedgraft-syntax` becomes the ELF dataset of the 2019 draft.
//!
//! [`lower`] runs the parse steps the syntax layer leaves out (2019 § Parsing, steps 3 and 4): it takes the
//! serialisation metadata out of the header (`CHAR`, `ELF`, `GEDC`, `PLANG`, `SCHMA`), drops the trailer,
//! unescapes string payloads (`@@`, Unicode escapes, permitted escapes) line by line and then merges their
//! `CONT`/`CONC` lines, applies payload languages and datatypes, and resolves pointers (a pointer that matches
//! no single record leads to an `UNDEF` record). It never edits text: it only reads the tree.
//!
//! ```
//! use gedgraft_model::{lower, LowerOptions};
//! let parse = gedgraft_syntax::parse(
//!     b"0 HEAD\n1 PLANG fr\n0 @N1@ NOTE Ceci est une note @#UC0@ pro\n1 CONC pos\n1 CONT du document\n0 TRLR\n",
//! );
//! let lowered = lower(&parse, &LowerOptions::default());
//! let note = lowered.dataset.record_by_xref("N1").unwrap();
//! assert_eq!(note.text(), Some("Ceci est une note À propos\ndu document"));
//! assert_eq!(lowered.dataset.metadata.default_language.as_deref(), Some("fr"));
//! assert!(lowered.diagnostics.is_empty());
//! ```
//!
//! Decisions worth knowing (see also `README.md` in this crate):
//!
//! * **Raw octets.** Octets the file's encoding cannot decode (`RAW` tokens, already reported by the syntax
//!   layer) become U+FFFD, one per octet; in ANSEL files the octets the codec keeps raw but the FHISO table
//!   maps (`CD`, `CE`, `C7`, `F8`) become their table characters instead.
//! * **ANSEL.** The tree keeps ANSEL octet order; text written in the file is converted to Unicode order
//!   (`gedgraft_encoding::ansel::to_unicode_order`) after merging continuation lines, so a diacritic at the
//!   end of a line joins the first letter of its `CONC` line. Characters of Unicode escapes are already in
//!   Unicode order and are not moved.
//! * **Strict mode** stops at the first error of either layer and returns an empty dataset. The default,
//!   lenient mode leaves a malformed line or a level jump out of the dataset together with the lines nested in
//!   it, never changing a line's level (redux R-RECOVER-06, -07, -09), and reports each run of such lines as
//!   [`codes::LINES_LEFT_OUT`].
//! * **Metadata.** Only a valid `ELF` or `GEDC` gives a version (R-PARSING-METADATA-06, -07).
//! * **No recursion** on the input's nesting: structures live in compact arenas (see [`Dataset`]), every
//!   walk uses an explicit stack, and [`to_json`] writes nested JSON by hand.

mod build;
pub mod codes;
mod compare;
mod dataset;
mod from_json;
mod json;
mod locate;
mod lower;
mod trailers;
mod unescape;
mod write;

pub use build::{BuildError, DatasetBuilder, NewStructure};
pub use compare::{compare, Anchor, Change, Changes, Parent, Place};
pub use dataset::{
    Children, Dataset, Metadata, Payload, Pointer, StructureId, StructureRef, Text, Version,
};
pub use from_json::{from_json, FromJsonError};
pub use json::{to_json, JsonStream, MAX_INDENT};
pub use lower::stream::StreamLowering;
pub use lower::{diagnose, lower, metadata_not_kept, LowerOptions, Lowered};
pub use write::{
    write, write_report, write_with_report, written_metadata, DateProblem, ElfNeed, LineEnding,
    Rename, StreamPlanner, StreamWriter, WriteError, WriteOptions, WriteReport,
};

/// Constants the workspace's tests share with this crate.
///
/// **Not part of the API**: hidden from the documentation, and free to change in any release.
#[doc(hidden)]
pub mod internal {
    pub use crate::lower::PARALLEL_CHUNK;
}

/// The README's examples, compiled and run as doctests so they cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
