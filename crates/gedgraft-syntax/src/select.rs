//! A small path language for finding structures: `INDI.BIRT.DATE`, `@I1@.NAME`, `*.NOTE`, `INDI.**.CHAN`.
//!
//! A path is segments separated by `.`. The first segment picks records: a tag, `*` for any record, or
//! `@ID@` for the record with that cross-reference identifier. Each later segment picks substructures of
//! what the previous segment picked: a tag, or `*` for any one tag. `**` stands for any number of levels,
//! none included: `INDI.**.CHAN` picks the `CHAN` of an `INDI` record and every `CHAN` deeper inside it, and
//! `**.DATE` every `DATE` in the file. `**` is followed by a tag or `*`.
//!
//! ```
//! use gedgraft_syntax::{parse, Selector};
//! let parse = parse(b"0 HEAD\n0 @I1@ INDI\n1 BIRT\n2 DATE 1900\n0 @I2@ INDI\n1 BIRT\n2 DATE 1901\n0 TRLR\n");
//! let dates = Selector::parse("INDI.BIRT.DATE").unwrap().select(&parse.document());
//! assert_eq!(dates.len(), 2);
//! let one = Selector::parse("@I2@.*.DATE").unwrap().select(&parse.document());
//! assert_eq!(one[0].payload().unwrap().raw_text(), "1901");
//! assert_eq!(Selector::parse("@I1@.**.DATE").unwrap().select(&parse.document()).len(), 1);
//! assert!(Selector::parse("INDI..DATE").is_err());
//! assert_eq!(Selector::parse("INDI.**.DATE").unwrap().to_string(), "INDI.**.DATE");
//! ```

use crate::ast::{AstNode, AstToken, Document, Structure};
use std::fmt;

/// A parsed path. [`Display`](fmt::Display) gives the path as it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    path: String,
    steps: Vec<Step>,
}

/// One segment, and whether `**` comes before it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Step {
    /// Any number of levels (none included) lie between the previous step and this one.
    deep: bool,
    pick: Pick,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Pick {
    Any,
    Tag(String),
    /// Only as the first step: the record with this identifier.
    Xref(String),
}

/// Many paths over one document ([`Selector::select`] for each): the records are indexed by identifier on the
/// first path that starts at one (`@I1@.NAME`), which then costs a look-up, not a walk over the records (a
/// `fix` of 10 000 `--set-xref` options walked them 10 000 times).
///
/// ```
/// use gedgraft_syntax::{parse, Picker, Selector};
/// let parse = parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME A\n0 @I2@ INDI\n1 NAME B\n0 TRLR\n");
/// let picker = Picker::new(parse.document());
/// let names = picker.select(&Selector::parse("@I2@.NAME").unwrap());
/// assert_eq!(names[0].payload().unwrap().raw_text(), "B");
/// assert_eq!(picker.select(&Selector::parse("INDI.NAME").unwrap()).len(), 2);
/// ```
pub struct Picker {
    document: Document,
    by_xref: std::cell::OnceCell<std::collections::HashMap<String, Vec<Structure>>>,
}

impl Picker {
    /// A picker over `document`.
    pub fn new(document: Document) -> Picker {
        Picker {
            document,
            by_xref: std::cell::OnceCell::new(),
        }
    }

    /// What `path` picks ([`Selector::select`]).
    pub fn select(&self, path: &Selector) -> Vec<Structure> {
        let Some(_) = path.first_identifier() else {
            return path.select(&self.document);
        };
        let index = self.by_xref.get_or_init(|| {
            let mut index: std::collections::HashMap<String, Vec<Structure>> = Default::default();
            for record in self.document.records() {
                if let Some(xref) = record_xref(&record) {
                    index
                        .entry(xref.id().to_string())
                        .or_default()
                        .push((*record).clone());
                }
            }
            index
        });
        path.select_with(&self.document, &|id| {
            index.get(id).cloned().unwrap_or_default()
        })
    }
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

impl Pick {
    fn matches(&self, s: &Structure) -> bool {
        match self {
            Pick::Any => true,
            Pick::Tag(tag) => s.tag().is_some_and(|t| t.text() == tag),
            Pick::Xref(id) => record_xref(s).is_some_and(|x| x.id() == id),
        }
    }
}

/// The identifier an `@ID@` step matches a structure by: a record's own (not a substructure's).
fn record_xref(s: &Structure) -> Option<crate::ast::XrefId> {
    s.xref().filter(|_| s.is_record())
}

impl Selector {
    /// Parses a path.
    pub fn parse(path: &str) -> Result<Selector, SelectorError> {
        let err = |reason: String| SelectorError {
            path: path.to_string(),
            reason,
        };
        let (first, rest) = match path.strip_prefix('@') {
            Some(after) => {
                let close = after
                    .find('@')
                    .ok_or_else(|| err("`@` opens an identifier that no `@` closes".into()))?;
                let id = &after[..close];
                if id.is_empty() {
                    return Err(err("empty cross-reference identifier".into()));
                }
                let rest = &after[close + 1..];
                let rest = match rest.strip_prefix('.') {
                    Some(r) => Some(r),
                    None if rest.is_empty() => None,
                    None => return Err(err("a `.` must follow the `@ID@` segment".into())),
                };
                (Some(Pick::Xref(id.to_string())), rest)
            }
            None => (None, Some(path)),
        };
        let mut steps: Vec<Step> = first
            .map(|pick| Step { deep: false, pick })
            .into_iter()
            .collect();
        let mut deep = false;
        for segment in rest.map(|r| r.split('.')).into_iter().flatten() {
            match segment {
                "**" if deep => return Err(err("`**.**` says nothing more than `**`".into())),
                "**" => deep = true,
                "*" => {
                    steps.push(Step {
                        deep,
                        pick: Pick::Any,
                    });
                    deep = false;
                }
                "" => {
                    return Err(err(
                        "empty segment (two dots in a row, or a dot at an end)".into()
                    ))
                }
                tag if crate::lexical::is_tag(tag) => {
                    steps.push(Step {
                        deep,
                        pick: Pick::Tag(tag.to_string()),
                    });
                    deep = false;
                }
                other => {
                    return Err(err(format!(
                        "`{other}` is not a tag (letters, digits and `_`), `*`, `**` or `@ID@`"
                    )))
                }
            }
        }
        if deep {
            return Err(err(
                "`**` must be followed by a tag or `*` (`INDI.**.DATE`); a path picks what is inside \
                 what it names anyway"
                    .into(),
            ));
        }
        Ok(Selector {
            path: path.to_string(),
            steps,
        })
    }

    /// The path as it was written.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The structures the path picks, in file order, each once.
    pub fn select(&self, document: &Document) -> Vec<Structure> {
        self.select_with(document, &|id| {
            (document.records())
                .map(|r| (*r).clone())
                .filter(|r| record_xref(r).is_some_and(|x| x.id() == id))
                .collect()
        })
    }

    /// The identifier of the records the path starts at (`I1` for `@I1@.NAME`), if it starts at one.
    pub fn first_identifier(&self) -> Option<&str> {
        match self.steps.first() {
            Some(Step {
                deep: false,
                pick: Pick::Xref(id),
            }) => Some(id),
            _ => None,
        }
    }

    /// [`select`](Selector::select) with the records a path starting at `@ID@` picks first given by
    /// `records_holding(ID)` (the document's records with that identifier, in file order): [`Picker`] keeps
    /// them indexed.
    fn select_with(
        &self,
        document: &Document,
        records_holding: &dyn Fn(&str) -> Vec<Structure>,
    ) -> Vec<Structure> {
        let mut steps = self.steps.iter();
        let Some(first) = steps.next() else {
            return Vec::new();
        };
        let mut current: Vec<Structure> = if let Some(id) = self.first_identifier() {
            records_holding(id)
        } else if first.deep {
            document
                .all_structures()
                .filter(|s| first.pick.matches(s))
                .collect()
        } else {
            document
                .records()
                .map(|r| (*r).clone())
                .filter(|r| first.pick.matches(r))
                .collect()
        };
        for step in steps {
            let mut next: Vec<Structure> = Vec::new();
            for s in &current {
                if step.deep {
                    next.extend(s.descendants().filter(|c| step.pick.matches(c)));
                } else {
                    next.extend(s.substructures().filter(|c| step.pick.matches(c)));
                }
            }
            if step.deep {
                // A structure inside another picked one is reached twice.
                next.sort_by_key(|s| s.syntax().text_range().start());
                next.dedup_by_key(|s| s.syntax().text_range().start());
            }
            current = next;
        }
        current
    }

    /// Whether `structure` is picked by the path (checked upwards from the structure).
    pub fn matches(&self, structure: &Structure) -> bool {
        // The structure and its ancestors, the structure first.
        let chain: Vec<Structure> =
            std::iter::successors(Some(structure.clone()), Structure::parent).collect();
        // Walk the steps from the last, which must match the structure itself: `at` holds the positions in the
        // chain where the current step may match.
        let mut at: Vec<usize> = vec![0];
        for (k, step) in self.steps.iter().enumerate().rev() {
            let mut next: Vec<usize> = Vec::new();
            for &i in &at {
                let Some(s) = chain.get(i) else { continue };
                if !step.pick.matches(s) {
                    continue;
                }
                let above = i + 1;
                if k == 0 {
                    // The first step picks records, or with `**` any structure.
                    if step.deep || above == chain.len() {
                        return true;
                    }
                    continue;
                }
                next.push(above);
            }
            // A `**` before this step lets the previous step match any ancestor further up.
            if step.deep {
                let lowest = next.iter().copied().min();
                next = lowest.map_or_else(Vec::new, |lo| (lo..chain.len()).collect());
            }
            next.sort_unstable();
            next.dedup();
            at = next;
            if at.is_empty() {
                return false;
            }
        }
        false
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path)
    }
}

impl std::str::FromStr for Selector {
    type Err = SelectorError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Selector::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &[u8] = b"0 HEAD\n0 @I1@ INDI\n1 CHAN\n2 DATE 1\n1 BIRT\n2 CHAN\n3 DATE 2\n1 NAME n\n0 @F1@ FAM\n1 CHAN\n0 CHAN\n0 TRLR\n";

    fn tags_of(path: &str) -> Vec<String> {
        let parse = crate::parse(FILE);
        Selector::parse(path)
            .expect("path")
            .select(&parse.document())
            .iter()
            .map(|s| {
                format!(
                    "{}@{}",
                    s.tag().map(|t| t.text().to_string()).unwrap_or_default(),
                    u32::from(crate::ast::AstNode::syntax(s).text_range().start())
                )
            })
            .collect()
    }

    /// A picker picks what each path picks alone: records held twice, a header with an identifier, paths that
    /// start at none, `**` after an identifier, an identifier no record holds or only a substructure holds.
    #[test]
    fn a_picker_picks_what_each_path_picks() {
        let file = b"0 @H@ HEAD\n0 @I1@ INDI\n1 NAME a\n1 @S1@ NOTE x\n0 @I1@ INDI\n1 NAME b\n0 @F1@ FAM\n\
                     1 CHAN\n2 DATE 1\n0 TRLR\n";
        let parse = crate::parse(file);
        let picker = Picker::new(parse.document());
        let start = |s: &Structure| crate::ast::AstNode::syntax(s).text_range().start();
        for path in [
            "@I1@",
            "@I1@.NAME",
            "@H@",
            "@F1@.**.DATE",
            "@S1@",
            "@X@.NAME",
            "INDI.NAME",
            "**.DATE",
            "*",
        ] {
            let path = Selector::parse(path).expect("path");
            let alone: Vec<_> = path.select(&parse.document()).iter().map(start).collect();
            let picked: Vec<_> = picker.select(&path).iter().map(start).collect();
            assert_eq!(picked, alone, "{path}");
        }
        assert_eq!(
            picker
                .select(&Selector::parse("@I1@.NAME").expect("path"))
                .len(),
            2
        );
    }

    #[test]
    fn descendant_steps_pick_every_depth_once() {
        assert_eq!(tags_of("INDI.**.CHAN").len(), 2);
        assert_eq!(tags_of("INDI.**.DATE").len(), 2);
        assert_eq!(tags_of("**.CHAN").len(), 4, "records too");
        assert_eq!(tags_of("*.**.CHAN").len(), 3);
        assert_eq!(tags_of("@I1@.**.*").len(), 6);
        assert_eq!(tags_of("INDI.**.BIRT.**.DATE").len(), 1);
        assert_eq!(tags_of("INDI.*.*.DATE").len(), 1);
    }

    #[test]
    fn matches_agrees_with_select_for_every_structure() {
        let parse = crate::parse(FILE);
        let doc = parse.document();
        for path in [
            "INDI.**.CHAN",
            "**.CHAN",
            "*.**.DATE",
            "@I1@.**.*",
            "INDI.BIRT.**.DATE",
            "INDI.**.BIRT.CHAN",
            "**.BIRT.**.DATE",
            "FAM.CHAN",
            "CHAN",
            "**.*",
            "INDI.**.INDI",
        ] {
            let selector = Selector::parse(path).expect("path");
            let picked: Vec<u32> = selector
                .select(&doc)
                .iter()
                .map(|s| u32::from(crate::ast::AstNode::syntax(s).text_range().start()))
                .collect();
            let matching: Vec<u32> = doc
                .all_structures()
                .filter(|s| selector.matches(s))
                .map(|s| u32::from(crate::ast::AstNode::syntax(&s).text_range().start()))
                .collect();
            assert_eq!(picked, matching, "{path}");
        }
    }

    #[test]
    fn bad_descendant_paths_are_refused() {
        for path in ["INDI.**", "**", "INDI.**.**.DATE", "**.@I1@"] {
            assert!(Selector::parse(path).is_err(), "{path}");
        }
    }
}
