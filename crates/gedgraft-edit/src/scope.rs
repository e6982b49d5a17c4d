//! What an edit applies to: a [`Selector`] path.

use gedgraft_syntax::Selector;

/// The path an edit applies to: the same type as [`Selector`], which keeps the text it was parsed from so that
/// the user can be told when it matched nothing.
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
pub type Scope = Selector;
