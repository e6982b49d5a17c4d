//! A lossless concrete syntax tree for FHISO ELF and GEDCOM 5.5/5.5.1 files.
//!
//! Any octet sequence parses into a [rowan] tree plus [diagnostics](Diagnostic); writing the tree back gives
//! the same octets, in every encoding. Start with [`parse`]:
//!
//! ```
//! use gedgraft_syntax::{parse, ast::AstToken};
//! let octets = b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\r\n1 NAME Jos\xE9\r\n0 TRLR\r\n";
//! let parse = parse(octets);
//! assert_eq!(parse.to_bytes().unwrap(), octets); // invalid UTF-8 is kept as written
//! let d = &parse.diagnostics()[0];
//! assert_eq!((d.code, d.location.line, d.location.column, d.location.offset), ("undecodable-octets", 4, 11, 45));
//! let indi = parse.document().record_by_xref("I1").unwrap();
//! assert_eq!(indi.tag().unwrap().text(), "INDI");
//! ```
//!
//! Layers: [`lexer`](crate) splits lines into tokens, the parser groups lines into records and structures with an
//! explicit stack (no recursion, so 100 000 nested levels are fine), [`ast`] gives typed views and [`Selector`]
//! finds structures by path.

mod after_trailer;
pub mod ast;
pub(crate) mod calendar;
pub mod codes;
mod diagnostic;
mod dialect;
mod dump;
mod green;
mod green_view;
mod green_walk;
mod json;
mod kind;
mod lexer;
pub mod lexical;
mod line_breaks;
mod line_checks;
pub mod line_cursor;
mod line_index;
mod message;
mod not_gedcom;
mod parse;
mod parser;
mod select;
mod serialise;
pub mod stream;
pub mod value;
mod work;
mod write;

pub use diagnostic::{Class, Diagnostic, Location, Message, Severity};
pub use dialect::Dialect;
pub use dump::{dump, dump_to};
pub use kind::{Elf, SyntaxElement, SyntaxKind, SyntaxNode, SyntaxToken};
pub use lexical::MAX_LEVEL;
pub use line_checks::{is_not_a_character, line_octet_limit};
pub use line_cursor::LineBreak;
pub use line_index::LineIndex;
pub use parse::{parse, parse_with, EditedTree, Parse, ParseOptions};
pub use select::{Picker, Selector, SelectorError};
pub use value::Value;
pub use write::write_green;

pub use gedgraft_encoding as encoding;
/// The tree library: [`SyntaxNode`], [`Parse::green`]'s `GreenNode` and the walks over them are rowan types,
/// re-exported so that callers use the very version this crate was built with.
pub use rowan;
pub use text_size::{TextRange, TextSize};

/// Helpers the sibling crates (`gedgraft-model`, `gedgraft-edit`, the `gedgraft` CLI) share with this one.
///
/// **Not part of the API**: hidden from the documentation, and free to change in any release. Use the crate's
/// documented items instead.
#[doc(hidden)]
pub mod internal {
    pub use crate::green_walk::{green_tokens, release_iteratively, GreenTokens};
    /// Typed views of green nodes with their offsets, for readers of a whole tree (the lowering).
    pub mod green_view {
        pub use crate::green_view::*;
    }
    pub use crate::diagnostic::{printable, push_printable};
    pub mod calendar {
        pub use crate::calendar::{calendars_as, without_default_calendar, Refused};
    }

    /// Sorts diagnostics by where they start, stably and in place: no copy of them, and no work beyond a look
    /// when they are in order already, as they nearly always are (the lowering's, as the parser's).
    pub fn sort_diagnostics(diagnostics: &mut [crate::Diagnostic]) {
        crate::diagnostic::sort_by_start(diagnostics);
    }

    /// A green token shared with an earlier one of the same kind and text where the parser shares tokens
    /// (levels, delimiters, tags, line breaks, a bare `@`, payload texts of up to 4 octets), through a small
    /// table per thread: for the editor's new lines, so that a re-laid line of `x@@x@@…` is not an allocation
    /// per token (#12).
    pub fn shared_token(kind: crate::SyntaxKind, text: &str) -> rowan::GreenToken {
        crate::green::shared_token(kind, text)
    }

    /// Makes `d` the first of a run of `count` problems like it on neighbouring lines, the last of which starts
    /// at `last_start` (the lowering's runs; [`Diagnostic::count`](crate::Diagnostic::count)).
    pub fn make_run(d: &mut crate::Diagnostic, count: u32, last_start: crate::TextSize) {
        d.run_of(count, last_start);
    }
    pub use crate::json::{json_option, json_string, write_diagnostic_json, JsonLayout};
    pub use crate::lexer::{lex_payload_text, reads_as_pointer, text_pieces};
    pub use crate::write::{write_green_threads, write_token};

    /// `parse` located where `like` is in its file (its first octet, line and the line break before it): the
    /// parse of a piece of another version of a streamed file, read like one of its batches
    /// ([`Parse::from_edited_like`](crate::Parse::from_edited_like)), for a streamed line diff whose hunks
    /// count lines from the file's start.
    pub fn located_like(mut parse: crate::Parse, like: &crate::Parse) -> crate::Parse {
        parse.locate_like(like);
        parse
    }

    /// How deep a walk over `parse`'s tree goes at most: the deepest the parser's stack of open structures
    /// went, and one for a line; a walk with an explicit stack makes room for that many frames at once rather
    /// than doubling its way there (the lowering of a record nested 400 000 deep, #12).
    pub fn walk_depth(parse: &crate::Parse) -> usize {
        parse.max_depth().saturating_add(1)
    }

    /// The tally of a file's line-break forms (`mixed-line-breaks` and its repair).
    pub mod line_breaks {
        pub use crate::line_breaks::{Seen, Tally};
    }

    /// The serialisation rules of payload text (units, escaping, `CONT`/`CONC` layout), shared by the editor
    /// and the dataset writer.
    pub mod serialise {
        pub use crate::serialise::*;
    }

    /// The one work queue the parser, the writer and the lowering run their chunks on.
    pub mod work {
        pub use crate::work::{ahead, in_order, on_workers, workers_for, Ahead, Dropper};
    }
}

#[cfg(test)]
mod tests;

/// The README's examples, compiled and run as doctests so they cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
