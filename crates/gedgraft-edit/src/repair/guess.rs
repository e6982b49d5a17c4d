//! Unsafe repairs: guesses at what the writer meant, offered only with `--repair-unsafe`.

use super::{Cx, Made};
use gedgraft_encoding::{declaration, is_char_tag, Encoding};
use gedgraft_syntax::ast::{AstNode, AstToken, Structure};
use gedgraft_syntax::{Diagnostic, SyntaxKind, TextRange, TextSize};
use std::collections::HashMap;

/// `level-jump` (unsafe): the line's level becomes its parent's plus one (R-LINES-04). The parser made the line
/// a substructure of the closest line of a lower level; that is the guess. The lines after it at the same jumped
/// level are its siblings (`1 NAME` / `3 GIVN` / `3 SURN`: the surname is not part of the given name), so the
/// whole run moves up by the same amount, with every line nested in it: the structure's shape stays as written.
pub(super) fn level_jump(cx: &Cx, d: &Diagnostic) -> Made {
    let node = cx.node_at(d.range.start(), SyntaxKind::Structure)?;
    let structure = Structure::cast(node.clone())?;
    let parent = Structure::cast(node.parent()?)?;
    let level = structure.level()?.value();
    let want = parent.level()?.value().checked_add(1)?;
    let by = level.checked_sub(want).filter(|&by| by > 0)?;
    let run = std::iter::successors(Some(node), |n| n.next_sibling())
        .filter_map(Structure::cast)
        .take_while(|s| s.level().is_some_and(|l| l.value() == level));
    let mut edits = Vec::new();
    for s in run {
        let levels = (s.syntax().descendants_with_tokens())
            .filter_map(|e| e.into_token())
            .filter_map(gedgraft_syntax::ast::Level::cast);
        for token in levels {
            let value = token.value();
            if value < level || value == usize::MAX {
                continue;
            }
            edits.push(cx.replace(token.syntax().text_range(), &(value - by).to_string())?);
        }
    }
    // One edit per line: the jumped line's, then the others'.
    let others = match edits.len().saturating_sub(1) {
        0 => String::new(),
        1 => ", and the line after it in its run or nested in it up as many levels".to_string(),
        n => format!(", and the {n} lines after it in its run or nested in it up as many levels"),
    };
    let message =
        format!("renumber the line to level {want}, one below its parent{others} (a guess)");
    Some((message, edits))
}

/// The encoding a `declared-encoding-mismatch` message says the octets look like.
fn likely(message: &str) -> Option<Encoding> {
    let rest = message.split_once("look like ")?.1;
    let name = rest.split_once(':').map_or(rest, |(n, _)| n);
    Encoding::from_name(name.trim())
}

/// `declared-encoding-mismatch` (unsafe): `HEAD.CHAR` is set to the encoding the octets look like (the
/// detection's guess, R-SPECIFIED-ENC-15), when that is one `CHAR` value with no `VERS` and the `CHAR` line has
/// no `VERS` under it. The file is then read differently: every character the guess decodes changes.
///
/// No guess while an `undecodable-octets` octet run is a UTF-8 character split across a `CONC` line (the safe
/// repair of [`super::payload::split_characters`]): those octets are what made the file look like another
/// encoding, and once the split is mended the declared encoding reads the file.
pub(super) fn char_value(cx: &Cx, d: &Diagnostic) -> Made {
    if cx.parse.diagnostics().iter().any(|o| {
        o.code == "undecodable-octets"
            && super::payload::split_characters(cx, o).is_some_and(|(_, edits)| !edits.is_empty())
    }) {
        return None;
    }
    let to = likely(&d.message)?;
    let wanted = declaration(to);
    if wanted.vers.is_some() || to.is_utf16() {
        return None;
    }
    let header = cx.parse.document().header()?;
    let char = header
        .substructures()
        .find(|s| s.tag().is_some_and(|t| is_char_tag(t.text())))?;
    if char.substructures().next().is_some() || char.continuation_lines().next().is_some() {
        return None;
    }
    let payload = char.payload()?;
    let tokens: Vec<_> = payload.tokens().collect();
    let range = TextRange::new(
        tokens.first()?.text_range().start(),
        tokens.last()?.text_range().end(),
    );
    let edit = cx.replace(range, wanted.char)?;
    Some((
        format!(
            "set `CHAR` to `{}`: the octets look like {to} (a guess; the file is then read as {to})",
            wanted.char
        ),
        vec![edit],
    ))
}

/// `duplicate-xref` (unsafe): this later holder of the identifier gets a new one, `ID_2` (or the next free
/// number), so that it is no longer ambiguous (R-POINTER-CONV-03, R-RECOVER-01). Its pointers follow: when a
/// trailer lies between the first holder and this one (an export appended to another, `record-after-trailer`),
/// the pointers to the identifier in this one's part (between the trailers around it) are its own and are
/// renamed with it; other pointers keep naming the first holder.
pub(super) fn duplicate_xref(cx: &Cx, d: &Diagnostic) -> Made {
    let (token, id) = holder_of(cx, d)?;
    let starts = cx.xref_holders().get(&id)?;
    let at = token.text_range().start();
    // The holders are in file order; the k-th later holder takes the k-th free `ID_n`.
    let k = starts.binary_search(&at).ok().filter(|&k| k > 0)?;
    let new = cx.fresh_id(&id, k - 1)?;
    let mut edits = vec![cx.replace(token.text_range(), &format!("@{new}@"))?];
    let part = cx.part_of(at);
    let first_in_part = part.contains(starts[0]) || part.end() == starts[0];
    let in_part = |sorted: &[gedgraft_syntax::TextSize]| {
        let from = sorted.partition_point(|&s| s < part.start());
        from..sorted.partition_point(|&s| s < part.end())
    };
    let mut moved = 0;
    // Its part's pointers follow it when no other later holder is in the part.
    if !first_in_part && in_part(&starts[1..]).len() == 1 {
        let pointers = cx.pointers_to(&id);
        let from = pointers.partition_point(|p| p.start() < part.start());
        let to = pointers.partition_point(|p| p.start() < part.end());
        for p in pointers.get(from..to).unwrap_or_default() {
            edits.push(cx.replace(*p, &format!("@{new}@"))?);
            moved += 1;
        }
    }
    Some((rename_message(&id, &new, moved), edits))
}

/// The identifier token of the later holder a `duplicate-xref` is about, and its identifier.
fn holder_of(cx: &Cx, d: &Diagnostic) -> Option<(gedgraft_syntax::SyntaxToken, String)> {
    let token = cx.token_at(d.range.start())?;
    let token = Some(token)
        .filter(|t| t.kind() == SyntaxKind::Xref)
        .or_else(|| {
            cx.node_at(d.range.start(), SyntaxKind::Structure)
                .or_else(|| cx.node_at(d.range.start(), SyntaxKind::Record))?
                .children_with_tokens()
                .filter_map(|e| e.into_token())
                .find(|t| t.kind() == SyntaxKind::Xref)
        })?;
    let id = gedgraft_syntax::lexical::strip_ats(token.text()).to_string();
    Some((token, id))
}

/// What the `duplicate-xref` repair renaming a holder of `id` to `new`, with `moved` pointers, says.
fn rename_message(id: &str, new: &str, moved: usize) -> String {
    if moved > 0 {
        format!(
            "rename this one `@{new}@` with the {} of its part of the file (a guess)",
            super::plural(moved, "pointer")
        )
    } else {
        format!("rename this one `@{new}@` (a guess; pointers to `@{id}@` keep naming the first)")
    }
}

/// The `duplicate-xref` repairs of a file read in parts (batches of records, in file order:
/// [`repairs_of_part_with`](crate::repairs_of_part_with)), with what the rest of the file tells: which holder
/// of an identifier each one is, and the identifiers later holders get, made as the parts come (O(duplicated
/// identifiers) memory). The repairs are the whole file's ([`repairs`](crate::repairs)) for a file of one
/// part: with an appended export (a record after a trailer, or a second header), the pointers that follow a
/// holder are in parts not read yet, and the whole file is needed ([`Parts`]).
///
/// ```
/// use gedgraft_edit::{repairs_of_part_with, DuplicateNames};
/// use gedgraft_model::{LowerOptions, StreamLowering};
/// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
/// let input = b"0 HEAD\n0 @I1@ INDI\n0 @I1@ INDI\n0 @I1_2@ INDI\n0 @I1@ INDI\n0 TRLR\n";
/// let batches = || RecordStream::new(&input[..], StreamOptions::default().with_batch_size(1)).unwrap();
/// // The first pass counts the holders of each identifier, the second lowers and repairs.
/// let mut lowering = StreamLowering::new(&LowerOptions::default());
/// for batch in batches() {
///     lowering.index_identifiers(batch.unwrap().parse());
/// }
/// let mut names = DuplicateNames::default();
/// let mut messages = Vec::new();
/// for batch in batches() {
///     let batch = batch.unwrap();
///     let lowered = lowering.lower(batch.parse());
///     let diagnostics = lowered.all_diagnostics(batch.parse());
///     let held = |id: &str| lowering.holder_count(id);
///     let repairs = repairs_of_part_with(batch.parse(), &diagnostics, &mut names, &held);
///     messages.extend(repairs.into_iter().flatten().map(|r| r.message));
/// }
/// // `@I1_2@` is taken: the second and third holders of `@I1@` become `@I1_3@` and `@I1_4@`.
/// assert_eq!(messages.len(), 2);
/// assert!(messages[0].starts_with("rename this one `@I1_3@`"), "{}", messages[0]);
/// assert!(messages[1].starts_with("rename this one `@I1_4@`"), "{}", messages[1]);
/// ```
#[derive(Debug, Default)]
pub struct DuplicateNames {
    /// By identifier held more than once: how many of its holders the parts so far held, how many names were
    /// made, and the number the next candidate name tries.
    ids: HashMap<String, Names>,
}

#[derive(Debug, Clone, Copy)]
struct Names {
    met: usize,
    made: usize,
    next: usize,
}

impl DuplicateNames {
    /// The `duplicate-xref` repairs of one part (`cx`'s parse), after the parts before it; `held(id)` is how
    /// many structures of the file hold `id`. Fills `out` where `diagnostics` has a `duplicate-xref`.
    pub(crate) fn repairs(
        &mut self,
        cx: &Cx,
        diagnostics: &[&Diagnostic],
        held: &dyn Fn(&str) -> usize,
        out: &mut [Option<super::Repair>],
    ) {
        // Which holder each structure of this part holding a duplicated identifier is, by its identifier's start.
        let mut rank = HashMap::new();
        for s in cx.parse.document().all_structures() {
            let Some(x) = s.xref() else { continue };
            let id = x.id();
            if held(id) < 2 {
                continue;
            }
            let names = self.ids.entry(id.to_string()).or_insert(Names {
                met: 0,
                made: 0,
                next: 2,
            });
            rank.insert(x.syntax().text_range().start(), names.met);
            names.met += 1;
        }
        for (d, slot) in diagnostics.iter().zip(out.iter_mut()) {
            if d.code != "duplicate-xref" {
                continue;
            }
            *slot = self.one(cx, d, &rank, held);
        }
    }

    fn one(
        &mut self,
        cx: &Cx,
        d: &Diagnostic,
        rank: &HashMap<TextSize, usize>,
        held: &dyn Fn(&str) -> usize,
    ) -> Option<super::Repair> {
        let (token, id) = holder_of(cx, d)?;
        let k = rank
            .get(&token.text_range().start())
            .copied()
            .filter(|&k| k > 0)?;
        let names = self.ids.get_mut(&id)?;
        // The k-th later holder takes the k-th free `ID_n` from `ID_2` on (as [`Cx::fresh_id`]); holders come
        // in file order, so the names are made in order, each once.
        let mut new = None;
        while names.made < k {
            let candidate = loop {
                let c = format!("{id}_{}", names.next);
                names.next += 1;
                if held(&c) == 0 {
                    break c;
                }
            };
            names.made += 1;
            new = Some(candidate);
        }
        let new = new.filter(|_| names.made == k)?;
        let edit = cx.replace(token.text_range(), &format!("@{new}@"))?;
        cx.repair(d.code, rename_message(&id, &new, 0), vec![edit])
    }
}

/// Where a part of the file starts at `record`, the file's `index`-th record: after a trailer, or at a header
/// that is not the file's first record (`(start, where the part after it starts)`).
fn part_bound(record: &gedgraft_syntax::ast::Record, index: usize) -> Option<(TextSize, TextSize)> {
    let range = record.syntax().text_range();
    match record.tag().map(|t| t.text().to_string()).as_deref() {
        Some("TRLR") => Some((range.start(), range.end())),
        Some("HEAD") if index > 0 => Some((range.start(), range.start())),
        _ => None,
    }
}

/// Whether a file read in parts (batches of records in file order) has more than one part: an export
/// appended to another (a record after a trailer, or a header that is not the first record). Its
/// `duplicate-xref` repairs need the whole file ([`DuplicateNames`]).
#[derive(Debug, Default, Clone)]
pub struct Parts {
    records: usize,
    after_trailer: bool,
    several: bool,
}

impl Parts {
    /// Counts the records of the next batch.
    pub fn count(&mut self, batch: &gedgraft_syntax::Parse) {
        for record in batch.document().records() {
            self.several |= self.after_trailer;
            self.after_trailer = false;
            if let Some((start, end)) = part_bound(&record, self.records) {
                // A header not first starts a part; a trailer ends one, which matters if a record follows.
                self.several |= start == end;
                self.after_trailer = start != end;
            }
            self.records += 1;
        }
    }

    /// Whether the batches so far have more than one part.
    pub fn several(&self) -> bool {
        self.several
    }
}

impl Cx<'_> {
    /// The part of the file holding tree offset `at`: an export appended to another starts after a trailer
    /// record, or at a header record that is not the file's first record (which stays when the trailer before
    /// it is moved by the `record-after-trailer` repair), and ends where the next part starts.
    pub(super) fn part_of(&self, at: gedgraft_syntax::TextSize) -> TextRange {
        let bounds = self.part_starts.get_or_init(|| {
            let records = self.parse.document().records().enumerate();
            records.filter_map(|(i, r)| part_bound(&r, i)).collect()
        });
        let next = bounds.partition_point(|b| b.0 <= at);
        let start = next
            .checked_sub(1)
            .and_then(|i| bounds.get(i))
            .map_or(0.into(), |b| b.1);
        let end = bounds
            .get(next)
            .map_or(self.root.text_range().end(), |b| b.0);
        TextRange::new(start, end.max(start))
    }

    /// The ranges of the pointers to `id` (built once for the file).
    pub(super) fn pointers_to(&self, id: &str) -> &[TextRange] {
        let map = self.pointers.get_or_init(|| {
            let mut map: HashMap<String, Vec<TextRange>> = HashMap::new();
            for t in self
                .root
                .descendants_with_tokens()
                .filter_map(|e| e.into_token())
            {
                if t.kind() == SyntaxKind::Pointer {
                    let target = gedgraft_syntax::lexical::strip_ats(t.text()).to_string();
                    map.entry(target).or_default().push(t.text_range());
                }
            }
            map
        });
        map.get(id).map_or(&[], Vec::as_slice)
    }

    /// The identifier the `k`-th later holder of `id` gets: the `k`-th free `ID_n` from `ID_2` on, the names
    /// made once per identifier (#12: 20 000 holders of one identifier made the last try as many names).
    pub(super) fn fresh_id(&self, id: &str, k: usize) -> Option<String> {
        let holders = self.xref_holders();
        let mut fresh = self.fresh.borrow_mut();
        let names = fresh.entry(id.to_string()).or_insert_with(|| {
            let later = holders.get(id).map_or(0, |h| h.len().saturating_sub(1));
            (2usize..)
                .map(|n| format!("{id}_{n}"))
                .filter(|c| !holders.contains_key(c.as_str()))
                .take(later)
                .collect()
        });
        names.get(k).cloned()
    }

    /// Every identifier of the file with the starts of its holders' identifiers, in file order (built once).
    pub(super) fn xref_holders(&self) -> &HashMap<String, Vec<gedgraft_syntax::TextSize>> {
        self.xrefs.get_or_init(|| {
            let mut map: HashMap<String, Vec<gedgraft_syntax::TextSize>> = HashMap::new();
            for s in self.parse.document().all_structures() {
                if let Some(x) = s.xref() {
                    map.entry(x.id().to_string())
                        .or_default()
                        .push(x.syntax().text_range().start());
                }
            }
            map
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn likely_reads_the_encoding_the_message_names() {
        let m = "`1 CHAR ASCII` gives ASCII, but the octets look like UTF-8: they include octets from 80 up";
        assert_eq!(likely(m), Some(Encoding::Utf8));
        assert_eq!(likely("no guess"), None);
    }
}
