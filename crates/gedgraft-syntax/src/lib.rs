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
pub mod codes;
mod diagnostic;
mod dialect;
mod dump;
mod green;
mod green_walk;
mod kind;
mod lexer;
mod line_checks;
mod line_index;
mod not_gedcom;
mod parse;
mod parser;
mod select;
pub mod stream;
pub mod value;
pub mod work;
mod write;

pub use diagnostic::{Class, Diagnostic, Location, Severity};
pub use dialect::Dialect;
pub use dump::{dump, dump_to, json_string, MAX_INDENT};
pub use green_walk::{green_tokens, release_iteratively, GreenTokens};
pub use kind::{Elf, SyntaxElement, SyntaxKind, SyntaxNode, SyntaxToken};
pub use lexer::{lex_payload_text, next_line_break, MAX_LEVEL};
pub use line_checks::{is_not_a_character, line_octet_limit};
pub use line_index::LineIndex;
pub use parse::{parse, parse_with, Parse, ParseOptions};
pub use select::{Selector, SelectorError};
pub use value::Value;
pub use write::{write_green, write_green_threads, write_token};

pub use gedgraft_encoding as encoding;
pub use rowan;
pub use text_size::{TextRange, TextSize};

#[cfg(test)]
mod tests;

/// The README's examples, compiled and run as doctests so they cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
