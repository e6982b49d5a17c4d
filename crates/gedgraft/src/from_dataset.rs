//! `gedgraft fix --from-dataset NEW.json FILE`: the changes between FILE's dataset and NEW.json (a dataset as
//! `gedgraft lower` writes it, edited by any tool) become the editor's edits, so that only the changed
//! structures' lines change.
//!
//! Each [`Change`] of `gedgraft_model::compare` is one edit: a payload becomes `set_payload`/`set_pointer`, a
//! tag `set_tag`, an identifier `set_xref` (pointers follow), an added structure `insert` (its language and
//! datatype as `PLANG`/`DTYPE` substructures), a removed one `delete`, a moved one `move_to`; a payload's new
//! language or datatype sets, inserts or deletes its `PLANG`/`DTYPE` substructure. What no edit expresses
//! (serialisation metadata) is an error.
//!
//! Two passes (two `fix` stages): the first leaves out edits that overlap an earlier one of its batch (a change
//! inside a structure that moves, a pointer an identifier's renaming also retargets); the second compares its
//! input, the first one's output, with NEW.json again and makes what is left. Before the second pass's edits
//! are handed over, they are applied once and the result lowered and compared with NEW.json: any difference
//! left is an error (exit status 2), never a partial result.

use gedgraft_edit::{EditError, Editor, NewStructure, Position};
use gedgraft_model::{
    compare, from_json, lower, Anchor, Change, Changes, Dataset, LowerOptions, Parent, Payload,
    StructureId, StructureRef,
};
use gedgraft_syntax::ast::{AstToken, Structure};
use std::path::Path;

/// New structures deeper than this are refused: a new structure is a nested value the editor renders and
/// drops level by level.
const MAX_NEW_DEPTH: usize = 1000;

/// Reads the dataset JSON at `path` (`-`: standard input).
pub(crate) fn read(path: &Path) -> Result<Dataset, String> {
    let name = path.display();
    let text = String::from_utf8(crate::input::read_octets(path)?)
        .map_err(|_| format!("{name}: the dataset JSON is not UTF-8"))?;
    from_json(&text).map_err(|e| format!("{name}: {e}"))
}

/// Records in `editor` the edits that turn its file's dataset into `target`. A first pass (`last` false) leaves
/// out edits that overlap earlier ones (a change inside a moved structure), for the last pass, which runs on
/// the first one's output and must then reach `target`: its edits are applied once, the result lowered and
/// compared with `target`, and any difference left is an error.
pub(crate) fn add_edits(editor: &mut Editor, target: &Dataset, last: bool) -> Result<(), String> {
    let parse = editor.parse();
    let options = LowerOptions::default();
    let old = lower(parse, &options).dataset;
    let changes = compare(&old, target);
    if changes.is_empty() {
        return Ok(());
    }
    let mut trial = Editor::new(parse);
    record(&mut trial, &old, target, &changes, !last)?;
    let edited = trial.apply().map_err(|e| e.to_string())?;
    if last {
        let left = compare(&lower(edited.parse(), &options).dataset, target);
        if !left.is_empty() {
            return Err(format!(
                "the edits would not give the dataset: these changes would be left (nothing was written):\n{left}"
            ));
        }
    }
    record(editor, &old, target, &changes, !last)
}

/// One edit per change.
/// One edit per change; with `defer`, a change whose edit overlaps an earlier one is left for the next pass.
fn record(
    editor: &mut Editor,
    old: &Dataset,
    new: &Dataset,
    changes: &Changes,
    defer: bool,
) -> Result<(), String> {
    let parse = editor.parse();
    let node = |id: StructureId| -> Result<Structure, String> {
        old.get(id)
            .and_then(|s| s.syntax(parse))
            .ok_or_else(|| "a structure of the dataset is not in the file".to_string())
    };
    let header = || -> Result<Structure, String> {
        parse
            .document()
            .header()
            .map(|h| (*h).clone())
            .ok_or_else(|| "the file has no header to add to".to_string())
    };
    let place = |at: &Anchor| -> Result<(Structure, Position), String> {
        Ok(match at {
            Anchor::After(id) => (node(*id)?, Position::After),
            Anchor::First(Parent::Structure(id)) => (node(*id)?, Position::FirstChild),
            Anchor::First(Parent::Header) => (header()?, Position::FirstChild),
            Anchor::First(Parent::Document) => (header()?, Position::After),
            _ => return Err("an unknown place".into()),
        })
    };
    for change in changes {
        let fail = |e: String| format!("cannot make the change `{change}`: {e}");
        let done = match change {
            Change::RecordRemoved { old } | Change::StructureRemoved { old } => {
                editor.delete(&node(old.id).map_err(fail)?)
            }
            Change::RecordAdded { new: n, at } | Change::StructureAdded { new: n, at } => {
                let (anchor, position) = place(at).map_err(fail)?;
                let s = new.get(n.id).ok_or_else(|| fail("not in the dataset".into()))?;
                editor.insert(&anchor, position, &new_structure(new, s).map_err(fail)?)
            }
            Change::Moved { old, at, .. } => {
                let (anchor, position) = place(at).map_err(fail)?;
                editor.move_to(&node(old.id).map_err(fail)?, &anchor, position)
            }
            Change::TagChanged { old, to, .. } => editor.set_tag(&node(old.id).map_err(fail)?, to),
            Change::XrefChanged { old, to, .. } => {
                editor.set_xref(&node(old.id).map_err(fail)?, to.as_deref())
            }
            Change::PayloadChanged { old: o, new: n, .. } => {
                let (Some(a), Some(b)) = (old.get(o.id), new.get(n.id)) else {
                    return Err(fail("not in the datasets".into()));
                };
                let structure = node(o.id).map_err(fail)?;
                let default = default_language(old);
                set_payload(editor, &structure, a.payload(), b.payload(), default)
            }
            // Serialisation metadata (and kinds of change this version does not know).
            _ => {
                return Err(fail(
                    "serialisation metadata is not edited from a dataset; edit the header with `gedgraft fix`"
                        .into(),
                ))
            }
        };
        match done {
            Ok(()) | Err(EditError::Overlap { .. }) if defer => {}
            done => done.map_err(|e| fail(e.to_string()))?,
        }
    }
    Ok(())
}

/// The edits that turn the payload `was` of `structure` into `now`: the payload line, and the `PLANG` and
/// `DTYPE` substructures where the language (`default` without one) or the datatype changes.
fn set_payload(
    editor: &mut Editor,
    structure: &Structure,
    was: Option<Payload<'_>>,
    now: Option<Payload<'_>>,
    default: &str,
) -> Result<(), EditError> {
    let t = match now {
        None => return editor.set_payload(structure, ""),
        Some(Payload::Pointer(p)) => return editor.set_pointer(structure, p.target),
        Some(Payload::Text(t)) => t,
    };
    let (text, lang, datatype) = match was {
        Some(Payload::Text(was)) => (Some(was.text), was.lang, was.datatype),
        _ => (None, default, None),
    };
    if t.lang != lang {
        annotate(
            editor,
            structure,
            "PLANG",
            (t.lang != default).then_some(t.lang),
        )?;
    }
    if t.datatype != datatype {
        annotate(editor, structure, "DTYPE", t.datatype)?;
    }
    if text != Some(t.text) {
        editor.set_payload(structure, t.text)?;
    }
    Ok(())
}

/// Gives `structure` the payload annotation `tag` (`PLANG`, `DTYPE`) with the value `want`, or none: the
/// substructure's payload is set, or it is inserted first, or deleted.
fn annotate(
    editor: &mut Editor,
    structure: &Structure,
    tag: &str,
    want: Option<&str>,
) -> Result<(), EditError> {
    let existing = structure
        .substructures()
        .find(|s| s.tag().is_some_and(|t| t.text() == tag));
    match (existing, want) {
        (Some(s), Some(value)) => editor.set_payload(&s, value),
        (Some(s), None) => editor.delete(&s),
        (None, Some(value)) => editor.insert(
            structure,
            Position::FirstChild,
            &NewStructure::new(tag).text(value),
        ),
        (None, None) => Ok(()),
    }
}

/// The language of a text payload without `PLANG` (R-PAYLOAD-LANG: the header's default, else `und`).
fn default_language(d: &Dataset) -> &str {
    d.metadata.default_language.as_deref().unwrap_or("und")
}

/// The structure `root` of the new dataset as a structure to insert, built bottom-up with an explicit stack.
fn new_structure(dataset: &Dataset, root: StructureRef<'_>) -> Result<NewStructure, String> {
    let lang = default_language(dataset);
    let mut stack = vec![(root, root.children(), Vec::new())];
    loop {
        let Some((_, children, _)) = stack.last_mut() else {
            return Err("an empty structure".into());
        };
        if let Some(child) = children.next() {
            if stack.len() >= MAX_NEW_DEPTH {
                return Err(format!(
                    "a new structure nests more than {MAX_NEW_DEPTH} levels deep"
                ));
            }
            stack.push((child, child.children(), Vec::new()));
            continue;
        }
        let Some((s, _, built)) = stack.pop() else {
            return Err("an empty structure".into());
        };
        let mut new = NewStructure::new(s.tag());
        if let Some(x) = s.xref() {
            new = new.xref(x);
        }
        match s.payload() {
            None => {}
            Some(Payload::Pointer(p)) => new = new.pointer(p.target),
            Some(Payload::Text(t)) => {
                new = new.text(t.text);
                if t.lang != lang {
                    new = new.child(NewStructure::new("PLANG").text(t.lang));
                }
                if let Some(d) = t.datatype {
                    new = new.child(NewStructure::new("DTYPE").text(d));
                }
            }
        }
        for child in built {
            new = new.child(child);
        }
        match stack.last_mut() {
            Some((_, _, siblings)) => siblings.push(new),
            None => return Ok(new),
        }
    }
}
