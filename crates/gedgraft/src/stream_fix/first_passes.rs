//! The first passes of `fix` streamed (#17): `--set-pointer` gathers the file's identifiers, `--set-xref` finds
//! the structures that get new identifiers and checks them as the whole-file path does; with the repairs, over
//! the batches repaired, as the stages will read them.

use super::repaired::{Crossing, RepairedBatch, Repairs};
use super::{first_line_tokens, stream_options};
use crate::fix::{in_scope, Plan, SetValue, Stage};
use crate::input;
use gedgraft_edit::EditError;
use gedgraft_syntax::ast::AstNode;
use gedgraft_syntax::internal::work::ahead;
use gedgraft_syntax::lexical::strip_ats;
use gedgraft_syntax::stream::{RecordStream, StreamError};
use gedgraft_syntax::{Parse, ParseOptions, Picker, SyntaxKind};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// A first pass over the file's batches, each as `repairs` leave it (when given): `each` is called with every
/// batch, in file order; `false` when a repair crosses a cut between batches or is not reached (the whole-file
/// path repairs the file).
fn first_pass(
    path: &Path,
    options: &ParseOptions,
    repairs: Option<&Repairs>,
    mut each: impl FnMut(&Parse),
) -> Result<bool, StreamError> {
    let file = input::open(path).map_err(|e| StreamError::Io(std::io::Error::other(e)))?;
    let mut repairs = repairs.map(Repairs::rewound);
    for batch in ahead(RecordStream::new(file, stream_options(options))?) {
        let batch = batch?;
        match repairs.as_mut().map(|r| r.batch(batch.parse())) {
            Some(Err(Crossing)) => return Ok(false),
            Some(Ok(RepairedBatch {
                parse: Some(repaired),
                ..
            })) => each(&repaired),
            _ => each(batch.parse()),
        }
    }
    Ok(repairs.is_none_or(|r| r.all_applied()))
}

/// The first pass of `--set-pointer`: every cross-reference identifier of the file (O(records)), as `repairs`
/// leave it; `None` when a repair crosses a cut between batches.
pub(super) fn file_ids(
    path: &Path,
    options: &ParseOptions,
    repairs: Option<&Repairs>,
) -> Result<Option<HashSet<String>>, StreamError> {
    let mut ids = HashSet::new();
    let read = first_pass(path, options, repairs, |batch| {
        add_ids(batch, &mut ids);
        // GEDCOM 7's `@VOID@` is no structure's, and a new pointer to it does not dangle: it points nowhere.
        ids.extend(batch.dialect().null_pointer().map(str::to_string));
    })?;
    Ok(read.then_some(ids))
}

/// Adds the identifiers the structures of `batch` hold to `ids` (without their `@`s).
pub(super) fn add_ids(batch: &Parse, ids: &mut HashSet<String>) {
    first_line_tokens(batch.green(), SyntaxKind::Xref, |id| {
        ids.insert(strip_ats(id).to_string());
    });
}

/// What a file's structures get from `--set-xref`: identifiers old → new, the identifiers removed, and every
/// identifier given (to structures with an old one or without).
pub(super) type Renumbering = (HashMap<String, String>, HashSet<String>, HashSet<String>);

/// The first pass of `--set-xref`: the identifiers the file's structures get, old → new, and those removed,
/// checked as the whole-file path checks them (`Err`: the edit error): in the order of the `--set-xref`
/// options, then of the file, no identifier given twice, and none that a structure keeps (O(records) of
/// identifiers), over the file as `repairs` leave it; `None` when a repair crosses a cut between batches.
pub(super) fn renumbering(
    path: &Path,
    options: &ParseOptions,
    plan: &Plan,
    repairs: Option<&Repairs>,
) -> Result<Option<Result<Renumbering, String>>, StreamError> {
    let Some(sets) = plan.stages.iter().find_map(|s| match s {
        Stage::Set(sets) => Some(sets),
        _ => None,
    }) else {
        return Ok(Some(Ok(Renumbering::default())));
    };
    // Per option: (old identifier, new one) of each structure it picks, in file order.
    let mut picked: Vec<Vec<(Option<String>, Option<String>)>> = vec![Vec::new(); sets.len()];
    let mut ids = HashSet::new();
    // Each structure picked (where its batch starts, where it starts in the batch's text): one picked by two
    // options is an edit error the whole-file path gives before it writes anything, where the stream would
    // have written the batches before it to a standard stream (found by a helper).
    let (mut structures, mut twice) = (HashSet::new(), false);
    let read = first_pass(path, options, repairs, |parse| {
        add_ids(parse, &mut ids);
        let picker = Picker::new(parse.document());
        for ((path, value), picked) in sets.iter().zip(&mut picked) {
            let SetValue::Xref(new) = value else {
                continue;
            };
            for s in picker.select(path) {
                if in_scope(plan.scope.as_ref(), &s) {
                    let at = (
                        parse.origin().offset,
                        AstNode::syntax(&s).text_range().start(),
                    );
                    twice |= !structures.insert(at);
                    picked.push((s.xref().map(|x| x.id().to_string()), new.clone()));
                }
            }
        }
    })?;
    if !read || twice {
        return Ok(None);
    }
    let duplicate = |id: &str| EditError::DuplicateXref { id: id.to_string() }.to_string();
    let (mut given, mut renumbered, mut removed) = (Vec::new(), HashMap::new(), HashSet::new());
    let mut added = HashSet::new();
    for (old, new) in picked.into_iter().flatten() {
        let Some(new) = new else {
            removed.extend(old);
            continue;
        };
        if old.as_deref() == Some(new.as_str()) {
            continue;
        }
        if !added.insert(new.clone()) {
            return Ok(Some(Err(duplicate(&new))));
        }
        given.push(new.clone());
        if let Some(old) = old {
            renumbered.insert(old, new);
        }
    }
    // Another structure's identifier is free only if that structure gets a new one or loses it.
    if let Some(id) = given
        .iter()
        .find(|id| ids.contains(*id) && !renumbered.contains_key(*id) && !removed.contains(*id))
    {
        return Ok(Some(Err(duplicate(id))));
    }
    Ok(Some(Ok((renumbered, removed, added))))
}
