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
    let bounds = cx.part_bounds();
    let part = part_of(bounds, at, 0.into(), cx.root.text_range().end());
    let (k, follow) = later_holder(starts, at, part)?;
    let new = cx.fresh_id(&id, k)?;
    let mut edits = vec![cx.replace(token.text_range(), &format!("@{new}@"))?];
    let mut moved = 0;
    if follow {
        let pointers = cx.pointers_to(&id);
        for p in pointers
            .get(in_part(pointers, |p| p.start(), part))
            .unwrap_or_default()
        {
            edits.push(cx.replace(*p, &format!("@{new}@"))?);
            moved += 1;
        }
    }
    Some((rename_message(&id, &new, moved), edits))
}

/// Which later holder of its identifier the one at `at` is (`k` ≥ 1: it takes the k-th free `ID_n`), among
/// `starts` (where every holder's identifier starts, in file order), and whether the pointers of its `part` of
/// the file follow it: when the first holder is not in the part and no other later holder is. Offsets of the
/// tree (whole file) or of the file (streamed, `duplicates.rs`): one rule for both.
pub(super) fn later_holder<T: Ord + Copy>(
    starts: &[T],
    at: T,
    part: (T, T),
) -> Option<(usize, bool)> {
    let k = starts.binary_search(&at).ok().filter(|&k| k > 0)?;
    let first = *starts.first()?;
    let first_in_part = (part.0 <= first && first < part.1) || part.1 == first;
    let later = starts.get(1..).unwrap_or_default();
    Some((k, !first_in_part && in_part(later, |&s| s, part).len() == 1))
}

/// The items of `sorted` (by `key`) that start in `part`.
pub(super) fn in_part<P, T: Ord + Copy>(
    sorted: &[P],
    key: impl Fn(&P) -> T,
    part: (T, T),
) -> std::ops::Range<usize> {
    sorted.partition_point(|p| key(p) < part.0)..sorted.partition_point(|p| key(p) < part.1)
}

/// The part of a file holding offset `at`, from `zero` to `end`, cut at `bounds` ([`part_bound`], in file
/// order): from where the part after the bound before `at` starts to where the next bound starts.
pub(super) fn part_of<T: Ord + Copy>(bounds: &[(T, T)], at: T, zero: T, end: T) -> (T, T) {
    let next = bounds.partition_point(|b| b.0 <= at);
    let start = next
        .checked_sub(1)
        .and_then(|i| bounds.get(i))
        .map_or(zero, |b| b.1);
    let end = bounds.get(next).map_or(end, |b| b.0);
    (start, end.max(start))
}

/// The identifier token of the later holder a `duplicate-xref` is about, and its identifier.
pub(super) fn holder_of(cx: &Cx, d: &Diagnostic) -> Option<(gedgraft_syntax::SyntaxToken, String)> {
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
pub(super) fn rename_message(id: &str, new: &str, moved: usize) -> String {
    if moved > 0 {
        format!(
            "rename this one `@{new}@` with the {} of its part of the file (a guess)",
            super::plural(moved, "pointer")
        )
    } else {
        format!("rename this one `@{new}@` (a guess; pointers to `@{id}@` keep naming the first)")
    }
}

/// The identifiers the later holders of one identifier get, made as they are asked for, each once (#12: 20 000
/// holders of one identifier made the last try as many names): the k-th later holder of `ID` gets the k-th
/// `ID_n` from `ID_2` on that no structure holds. The whole file's repair (`Cx::fresh_id`) and the streamed one
/// (`duplicates.rs`) both ask it. Only the numbers are kept (#12: 700 000 holders of one identifier kept as many
/// strings, a third of `fix --repair-unsafe`'s peak).
#[derive(Debug)]
pub(super) struct FreshNames {
    /// The `n` of each name given, in order.
    numbers: Vec<usize>,
    /// The number the next candidate tries.
    next: usize,
}

impl Default for FreshNames {
    fn default() -> FreshNames {
        FreshNames {
            numbers: Vec::new(),
            next: 2,
        }
    }
}

impl FreshNames {
    /// The identifier the `k`-th later holder (from 1) of `id` gets; `taken` says whether a structure of the
    /// file holds a candidate.
    pub(super) fn get(
        &mut self,
        id: &str,
        k: usize,
        taken: impl Fn(&str) -> bool,
    ) -> Option<String> {
        let name = |n: usize| format!("{id}_{n}");
        while self.numbers.len() < k {
            let n = self.next;
            self.next += 1;
            if !taken(&name(n)) {
                self.numbers.push(n);
            }
        }
        self.numbers.get(k.checked_sub(1)?).map(|&n| name(n))
    }
}

/// Where a part of the file starts at `record`, the file's `index`-th record: after a trailer, or at a header
/// that is not the file's first record (`(start, where the part after it starts)`).
pub(super) fn part_bound(
    record: &gedgraft_syntax::ast::Record,
    index: usize,
) -> Option<(TextSize, TextSize)> {
    let range = record.syntax().text_range();
    match record.tag().map(|t| t.text().to_string()).as_deref() {
        Some("TRLR") => Some((range.start(), range.end())),
        Some("HEAD") if index > 0 => Some((range.start(), range.start())),
        _ => None,
    }
}

impl Cx<'_> {
    /// Where the parts of the file start ([`part_bound`]): an export appended to another starts after a
    /// trailer record, or at a header record that is not the file's first record (which stays when the trailer
    /// before it is moved by the `record-after-trailer` repair), and ends where the next part starts (built once).
    pub(super) fn part_bounds(&self) -> &[(TextSize, TextSize)] {
        self.part_starts.get_or_init(|| {
            let records = self.parse.document().records().enumerate();
            records.filter_map(|(i, r)| part_bound(&r, i)).collect()
        })
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

    /// The identifier the `k`-th later holder (from 1) of `id` gets ([`FreshNames`]).
    pub(super) fn fresh_id(&self, id: &str, k: usize) -> Option<String> {
        let holders = self.xref_holders();
        let mut fresh = self.fresh.borrow_mut();
        let names = fresh.entry(id.to_string()).or_default();
        names.get(id, k, |c| holders.contains_key(c))
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
