//! A small path language for finding structures: `INDI.BIRT.DATE`, `@I1@.NAME`, `*.NOTE`.
//!
//! A path is segments separated by `.`. The first segment picks records: a tag, `*` for any record, or
//! `@ID@` for the record with that cross-reference identifier. Each later segment picks substructures of
//! what the previous segment picked: a tag, or `*` for any one tag.
//!
//! ```
//! use gedgraft_syntax::{parse, Selector};
//! let parse = parse(b"0 HEAD\n0 @I1@ INDI\n1 BIRT\n2 DATE 1900\n0 @I2@ INDI\n1 BIRT\n2 DATE 1901\n0 TRLR\n");
//! let dates = Selector::parse("INDI.BIRT.DATE").unwrap().select(&parse.document());
//! assert_eq!(dates.len(), 2);
//! let one = Selector::parse("@I2@.*.DATE").unwrap().select(&parse.document());
//! assert_eq!(one[0].payload().unwrap().raw_text(), "1901");
//! assert!(Selector::parse("INDI..DATE").is_err());
//! ```

use crate::ast::{Document, Structure};
use std::fmt;

/// A parsed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    first: First,
    rest: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum First {
    Xref(String),
    Segment(Segment),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Any,
    Tag(String),
}

/// Why a path could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError {
    /// The path as given.
    pub path: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid path `{}`: {}", self.path, self.reason)
    }
}

impl std::error::Error for SelectorError {}

impl Segment {
    fn parse(text: &str, path: &str) -> Result<Segment, SelectorError> {
        let err = |reason: String| SelectorError {
            path: path.to_string(),
            reason,
        };
        if text == "*" {
            Ok(Segment::Any)
        } else if text.is_empty() {
            Err(err(
                "empty segment (two dots in a row, or a dot at an end)".into()
            ))
        } else if text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            Ok(Segment::Tag(text.to_string()))
        } else {
            Err(err(format!(
                "`{text}` is not a tag (letters, digits and `_`), `*` or `@ID@`"
            )))
        }
    }

    fn matches(&self, s: &Structure) -> bool {
        match self {
            Segment::Any => true,
            Segment::Tag(tag) => s
                .tag()
                .is_some_and(|t| crate::ast::AstToken::text(&t) == tag),
        }
    }
}

impl Selector {
    /// Parses a path.
    pub fn parse(path: &str) -> Result<Selector, SelectorError> {
        let err = |reason: &str| SelectorError {
            path: path.to_string(),
            reason: reason.to_string(),
        };
        let (first, rest) = if let Some(after) = path.strip_prefix('@') {
            let close = after
                .find('@')
                .ok_or_else(|| err("`@` opens an identifier that no `@` closes"))?;
            let id = &after[..close];
            if id.is_empty() {
                return Err(err("empty cross-reference identifier"));
            }
            let rest = &after[close + 1..];
            let rest = match rest.strip_prefix('.') {
                Some(r) => Some(r),
                None if rest.is_empty() => None,
                None => return Err(err("a `.` must follow the `@ID@` segment")),
            };
            (First::Xref(id.to_string()), rest)
        } else {
            let (head, rest) = match path.split_once('.') {
                Some((h, r)) => (h, Some(r)),
                None => (path, None),
            };
            (First::Segment(Segment::parse(head, path)?), rest)
        };
        let rest = match rest {
            Some(r) => r
                .split('.')
                .map(|s| Segment::parse(s, path))
                .collect::<Result<_, _>>()?,
            None => Vec::new(),
        };
        Ok(Selector { first, rest })
    }

    /// The structures the path picks, in file order.
    pub fn select(&self, document: &Document) -> Vec<Structure> {
        let mut current: Vec<Structure> = document
            .records()
            .filter(|r| match &self.first {
                First::Xref(id) => r.xref().is_some_and(|x| x.id() == id),
                First::Segment(seg) => seg.matches(r),
            })
            .map(|r| (*r).clone())
            .collect();
        for seg in &self.rest {
            current = current
                .iter()
                .flat_map(|s| {
                    s.substructures()
                        .filter(|c| seg.matches(c))
                        .collect::<Vec<_>>()
                })
                .collect();
        }
        current
    }

    /// Whether `structure` is picked by the path (checked upwards from the structure).
    pub fn matches(&self, structure: &Structure) -> bool {
        let mut node = Some(structure.clone());
        for seg in self.rest.iter().rev() {
            match node {
                Some(s) if seg.matches(&s) => node = s.parent(),
                _ => return false,
            }
        }
        match node {
            Some(s) if s.is_record() => match &self.first {
                First::Xref(id) => s.xref().is_some_and(|x| x.id() == id),
                First::Segment(seg) => seg.matches(&s),
            },
            _ => false,
        }
    }
}

impl std::str::FromStr for Selector {
    type Err = SelectorError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Selector::parse(s)
    }
}
