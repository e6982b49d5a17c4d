//! The `duplicate-xref` repairs of a file read in parts (batches of records, in file order), the whole file's
//! (`guess::duplicate_xref`) without the whole tree: what the repair needs from the rest of the file, where the
//! holders of each duplicated identifier are, where the parts of the file start and which pointers name the
//! identifier, is gathered by a pass over the batches first ([`DuplicateNames::gather`]), in file offsets.

use super::guess::{
    holder_of, in_part, later_holder, part_bound, part_of, rename_message, FreshNames,
};
use super::{Cx, OctetEdit, Repair};
use gedgraft_syntax::ast::AstToken;
use gedgraft_syntax::{Diagnostic, Parse, SyntaxKind};
use std::collections::HashMap;

/// The `duplicate-xref` repairs of a file read in parts (batches of records, in file order): for the
/// identifiers held more than once, where their holders are and which pointers name them (O(their holders and
/// pointers) memory), and where the file's parts start (an export appended to another), gathered by a pass
/// over the parts ([`FileFacts::gather_names`](super::FileFacts::gather_names)); then each part's repairs are
/// made from them.
#[derive(Debug, Default)]
pub(crate) struct DuplicateNames {
    /// By identifier held more than once.
    ids: HashMap<String, Holders>,
    /// Where the parts of the file start (file offsets, [`part_bound`]).
    bounds: Vec<(u64, u64)>,
    /// The records and octets gathered so far.
    records: usize,
    end: u64,
    /// The names `ID_n` of an identifier `ID` held more than once that a structure holds: the names its later
    /// holders cannot take. `held` counts the holders the lowering keeps, not those of a header or a trailer
    /// (`0 @I1_2@ TRLR`), which the whole file's rule counts too (found by a differential run).
    taken: std::collections::HashSet<String>,
}

#[derive(Debug, Default)]
struct Holders {
    /// Where each holder's identifier starts, in file order.
    starts: Vec<u64>,
    /// The pointers naming the identifier, in file order.
    pointers: Vec<(u64, u64)>,
    /// The identifiers its later holders get.
    names: FreshNames,
}

impl DuplicateNames {
    /// Gathers one batch (`parse`, located in the file by its origin), after the batches before it; `held(id)`
    /// is how many structures of the file hold `id` (a first pass counts them).
    pub(crate) fn gather(&mut self, parse: &Parse, held: &dyn Fn(&str) -> usize) {
        let cx = Cx::new(parse);
        let file = |at| cx.file(at) as u64;
        for record in parse.document().records() {
            if let Some((start, end)) = part_bound(&record, self.records) {
                self.bounds.push((file(start), file(end)));
            }
            self.records += 1;
        }
        for s in parse.document().all_structures() {
            let Some(x) = s.xref() else { continue };
            let numbered = x.id().rsplit_once('_');
            if numbered.is_some_and(|(id, n)| n.parse::<usize>().is_ok() && held(id) > 1) {
                self.taken.insert(x.id().to_string());
            }
            if held(x.id()) > 1 {
                let holders = self.ids.entry(x.id().to_string()).or_default();
                holders.starts.push(file(x.syntax().text_range().start()));
            }
        }
        let tokens = cx
            .root
            .descendants_with_tokens()
            .filter_map(|e| e.into_token());
        for t in tokens.filter(|t| t.kind() == SyntaxKind::Pointer) {
            let target = gedgraft_syntax::lexical::strip_ats(t.text());
            if held(target) > 1 {
                let holders = self.ids.entry(target.to_string()).or_default();
                let range = t.text_range();
                holders
                    .pointers
                    .push((file(range.start()), file(range.end())));
            }
        }
        self.end = self.end.max(file(cx.root.text_range().end()));
    }

    /// The `duplicate-xref` repairs of one part (`cx`'s parse); `held(id)` is how many structures of the file
    /// hold `id`. Fills `out` where `diagnostics` has a `duplicate-xref`.
    pub(crate) fn one(
        &mut self,
        cx: &Cx,
        d: &Diagnostic,
        held: &dyn Fn(&str) -> usize,
    ) -> Option<Repair> {
        let (token, id) = holder_of(cx, d)?;
        let at = cx.file(token.text_range().start()) as u64;
        let part = part_of(&self.bounds, at, 0, self.end);
        let holders = self.ids.get_mut(&id)?;
        let (k, follow) = later_holder(&holders.starts, at, part)?;
        let taken = &self.taken;
        let new = (holders.names).get(&id, k, |c| held(c) > 0 || taken.contains(c))?;
        let text = format!("@{new}@");
        let mut edits = vec![cx.replace(token.text_range(), &text)?];
        let mut moved = 0;
        if follow {
            let mut replacement = Vec::new();
            cx.parse.encoding().encode(&text, &mut replacement).ok()?;
            let pointers = &holders.pointers;
            for &(start, end) in pointers
                .get(in_part(pointers, |p| p.0, part))
                .unwrap_or_default()
            {
                let range = usize::try_from(start).ok()?..usize::try_from(end).ok()?;
                edits.push(OctetEdit {
                    range,
                    replacement: replacement.clone(),
                });
                moved += 1;
            }
        }
        cx.repair(d.code, rename_message(&id, &new, moved), edits)
    }
}
