//! What an edit applies to: a path, kept with its text so that the user can be told when it matched nothing.

use gedgraft_syntax::ast::{Document, Structure};
use gedgraft_syntax::{Selector, SelectorError};
use std::fmt;

/// A [`Selector`] path together with the text it was parsed from.
///
/// Edits scoped by a path apply to the structures the path picks *and everything inside them* (their
/// continuation lines and substructures, at any depth).
///
/// ```
/// use gedgraft_edit::Scope;
/// let scope = Scope::parse("INDI.NAME").unwrap();
/// assert_eq!(scope.to_string(), "INDI.NAME");
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n");
/// assert_eq!(scope.select(&parse.document()).len(), 1);
/// assert!(Scope::parse("INDI..NAME").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    path: String,
    selector: Selector,
}

impl Scope {
    /// Parses a path (see [`Selector`] for the syntax).
    pub fn parse(path: &str) -> Result<Scope, SelectorError> {
        Ok(Scope {
            path: path.to_string(),
            selector: Selector::parse(path)?,
        })
    }

    /// The path as written.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The parsed selector.
    pub fn selector(&self) -> &Selector {
        &self.selector
    }

    /// The structures the path picks, in file order.
    pub fn select(&self, document: &Document) -> Vec<Structure> {
        self.selector.select(document)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path)
    }
}

impl std::str::FromStr for Scope {
    type Err = SelectorError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scope::parse(s)
    }
}
