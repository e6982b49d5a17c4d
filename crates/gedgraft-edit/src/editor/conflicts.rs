//! Conflicts between per-structure edits, reported by the call that causes them and naming the earlier edit
//! (`EditError::Overlap`), instead of at [`apply`](super::Editor::apply). Deleting a structure inside one an
//! earlier edit deleted (or moved) is nothing to do. Whole-file edits (`rename_tag`, `escape_at_signs`, …) are
//! still checked against the others at `apply`.
//!
//! Each check and record is a logarithm of the number of edits: the structures are kept by their start in
//! ordered maps (a batch deleting every record of a large file stays linear).

use super::*;
use std::collections::BTreeMap;

/// The structures per-structure edits have claimed: tree offsets, start → (end, edit).
#[derive(Debug, Default)]
pub(super) struct Claims {
    /// Structures deleted or moved away. Never nested: deleting inside one is nothing to do, and deleting
    /// around an edited one is refused.
    removed: BTreeMap<u32, (u32, usize)>,
    /// Structures a per-structure edit changes (deleted and moved ones included).
    touched: BTreeMap<u32, (u32, usize)>,
}

/// What an edit does to the structure it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Claim {
    /// Changes its lines (tag, payload, identifier).
    Change,
    /// Removes it with everything inside it (a deletion, the source of a move).
    Remove,
    /// Only places something next to or inside it (an insertion's or a copy's anchor, a copy's source).
    Read,
}

/// The outcome of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Checked {
    /// Go on and record the edit.
    Go,
    /// Nothing to do: the structure is inside one an earlier edit removes.
    AlreadyGone,
}

impl Editor<'_> {
    /// Checks an edit described as `what` that claims `node` as `claim` against the edits so far.
    pub(super) fn check_claim(
        &self,
        node: &SyntaxNode,
        claim: Claim,
        what: &str,
    ) -> Result<Checked, EditError> {
        let range = node.text_range();
        let (start, end) = (u32::from(range.start()), u32::from(range.end()));
        let earlier = |edit: usize| self.edits.get(edit).cloned().unwrap_or_default();
        let overlap = |edit: usize| EditError::Overlap {
            first: earlier(edit),
            second: what.to_string(),
        };
        if let Some((_, &(removed_end, edit))) = self.claims.removed.range(..=start).next_back() {
            if end <= removed_end {
                return match claim {
                    Claim::Remove => Ok(Checked::AlreadyGone),
                    _ => Err(overlap(edit)),
                };
            }
        }
        if claim == Claim::Remove {
            if let Some((_, &(_, edit))) = self.claims.touched.range(start..end).next() {
                return Err(overlap(edit));
            }
        }
        Ok(Checked::Go)
    }

    /// Records that edit `edit` claims `node` as `claim` (after [`check_claim`](Editor::check_claim) said go).
    pub(super) fn record_claim(&mut self, node: &SyntaxNode, claim: Claim, edit: usize) {
        let range = node.text_range();
        let (start, end) = (u32::from(range.start()), u32::from(range.end()));
        match claim {
            Claim::Read => {}
            Claim::Change => {
                self.claims.touched.entry(start).or_insert((end, edit));
            }
            Claim::Remove => {
                self.claims.removed.insert(start, (end, edit));
                self.claims.touched.insert(start, (end, edit));
            }
        }
    }
}
