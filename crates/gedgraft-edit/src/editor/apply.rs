//! Applying a batch: overlap checks, the one-pass rebuild, new identifiers, pointers that follow, and the written octets.

use super::*;
use rowan::TextRange;

impl<'p> Editor<'p> {
    /// Applies every edit in one pass and gives the new file, its changed ranges and warnings.
    ///
    /// Fails, changing nothing, if two edits overlap ([`EditError::Overlap`]), an identifier given by the batch
    /// is already taken ([`EditError::DuplicateXref`]) or a transcode cannot be done.
    ///
    /// ```
    /// use gedgraft_edit::{EditError, Editor};
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n");
    /// let indi = parse.document().record_by_xref("I1").unwrap();
    /// let mut editor = Editor::new(&parse);
    /// editor.delete(&indi).unwrap();
    /// editor.rename_tag("NAME", "_NAME", None).unwrap(); // inside the deleted record
    /// assert!(matches!(editor.apply(), Err(EditError::Overlap { .. })));
    /// ```
    pub fn apply(self) -> Result<Edited<'p>, EditError> {
        self.apply_with(true)
    }

    /// Applies every edit like [`apply`](Editor::apply), but leaves the new file unparsed until
    /// [`Edited::parse`] is first called: the octets, the changes, the warnings and the
    /// [diff](Edited::unified_diff) come from the spliced tree alone. Use it when only the octets and the diff are
    /// wanted (as `gedgraft fix` does); it saves a parse of the whole output.
    ///
    /// The difference: `apply` checks that the output parses back to the spliced tree and reports
    /// [`Warning::Reparsed`] if not (an editor bug; the octets are right either way). This does the same check in
    /// debug builds only; in release builds, a parse made later simply holds the re-parsed tree.
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n");
    /// let mut editor = gedgraft_edit::Editor::new(&parse);
    /// editor.rename_tag("NAME", "_NAME", None).unwrap();
    /// let edited = editor.apply_lazily().unwrap();
    /// assert_eq!(edited.bytes(), b"0 HEAD\n0 @I1@ INDI\n1 _NAME Bob\n0 TRLR\n");
    /// assert_eq!(edited.line_counts(), (1, 1));
    /// assert!(edited.parse().diagnostics().is_empty()); // parsed now
    /// ```
    pub fn apply_lazily(self) -> Result<Edited<'p>, EditError> {
        self.apply_with(cfg!(debug_assertions))
    }

    /// Applies the edits; `parse_now`: parse the output at once and check it against the spliced tree.
    pub(crate) fn apply_with(mut self, parse_now: bool) -> Result<Edited<'p>, EditError> {
        self.check_new_ids()?;
        splice::resolve_texts(self.parse.green(), &mut self.splices);
        self.resolve_pointers();
        let mut encoding = self.parse.encoding();
        let mut bom_encoding = self.parse.detection().bom.map(|b| b.encoding);
        let mut transcoder = None;
        if let Some((to, raw)) = self.transcode {
            transcoder = Some(self.prepare_transcode(to, raw, &mut bom_encoding)?);
            encoding = to;
        }
        if let Some(eol) = self.eol {
            for s in &mut self.splices {
                crate::transform::convert_breaks(&mut s.with, eol.to);
            }
        }
        let parse = self.parse;
        let noop = no_op_splices(parse.green(), &self.splices);
        let mut index = 0;
        self.splices.retain(|_| {
            index += 1;
            !noop.get(index - 1).copied().unwrap_or(false)
        });
        let edits = &self.edits;
        check_overlaps(&self.splices, |i| {
            edits.get(i).cloned().unwrap_or_else(|| "an edit".into())
        })?;
        // Text offsets are file offsets in the new file too when they are in the old one, the file stays UTF-8
        // without a byte-order mark, and the new text holds no raw characters (new text never does).
        let identity = parse.source_map().is_identity()
            && parse.encoding() == Encoding::Utf8
            && encoding == Encoding::Utf8
            && bom_encoding.is_none()
            && parse.detection().bom.is_none()
            && self.splices.iter().all(|s| {
                splice::texts(s.with.iter().map(splice::element_ref))
                    .all(|t| !gedgraft_encoding::raw::contains_raw(t))
            });
        let map = parse.source_map();
        let mut changes = splice_changes(parse, &self.splices, encoding, bom_encoding)?;
        let mut transform = FileTransform {
            eol: self.eol.map(|e| crate::transform::EolState::new(e, parse)),
            transcode: transcoder,
            drop_bom: bom_encoding.is_none() && parse.detection().bom.is_some(),
        };
        let active = transform.eol.is_some() || transform.transcode.is_some() || transform.drop_bom;
        // New Unicode escapes, in a dialect without them, are said: those of new text, and those a transcode
        // writes (counted by the transcode as it makes them).
        let no_escapes = !parse.dialect().has_unicode_escapes();
        // The splices' new escapes beyond those of the text they replace (a re-wrapped line keeps its escapes,
        // moved to its new CONC lines).
        let written = match no_escapes {
            true => {
                let new: usize = (self.splices.iter())
                    .flat_map(|s| s.with.iter())
                    .map(|e| match e {
                        NodeOrToken::Token(t) => usize::from(is_unicode_escape(t.kind(), t.text())),
                        NodeOrToken::Node(n) => {
                            unicode_escapes(&SyntaxNode::new_root(n.clone()), None)
                        }
                    })
                    .sum();
                match new {
                    0 => 0,
                    _ => {
                        let root = parse.syntax();
                        let old = |s: &Splice| {
                            let range = TextRange::new(s.text.start.into(), s.text.end.into());
                            unicode_escapes(&root, Some(range))
                        };
                        new.saturating_sub(self.splices.iter().map(old).sum())
                    }
                }
            }
            false => 0,
        };
        let splices = std::mem::take(&mut self.splices);
        let rebuilt = splice::rebuild(
            parse.green(),
            splices,
            if active { Some(&mut transform) } else { None },
        )?;
        let green = rebuilt.green;
        let added = match no_escapes {
            true => (transform.transcode.as_ref()).map_or(0, Transcoder::escapes_written),
            false => 0,
        };
        if written.max(added) > 0 {
            self.warnings.push(Warning::UnicodeEscapesNotInDialect {
                dialect: parse.dialect(),
                count: written.max(added),
            });
        }
        let mut bytes = Vec::with_capacity(map.file_len());
        if let Err(e) = write_green(&green, encoding, bom_encoding, &mut bytes) {
            // Every new element was written above and a transcode checks every old token: this cannot fail.
            splice::drop_deep(green);
            return Err(EditError::Internal {
                what: format!(
                    "the edited text holds U+{:04X}, which {} cannot encode",
                    u32::from(e.character),
                    e.encoding
                ),
            });
        }
        let lf_cr = transform.eol.as_ref().map_or(0, |eol| eol.lf_cr);
        if let Some(eol) = &mut transform.eol {
            // Moved, not copied: a change of every line break is a change per line.
            let mut breaks = std::mem::take(&mut eol.changes);
            breaks.append(&mut changes);
            changes = breaks;
        }
        self.warnings.extend(
            transform
                .transcode
                .as_ref()
                .and_then(Transcoder::reversal_warning),
        );
        self.warnings
            .extend((transform.transcode.as_ref()).and_then(Transcoder::junk_warning));
        // The file-wide warnings in this order: the CLI's streamed `fix` sums each over the batches and gives
        // them in it too (`stream_fix::report` ranks them; a new file-wide warning goes there as well).
        if lf_cr > 0 {
            self.warnings
                .push(Warning::LfCrAsTwoBreaks { pairs: lf_cr });
        }
        let whole = transform.transcode.is_some();
        // The line break before a batch of a streamed file, as the edit writes the batches before it.
        let break_before = (parse.break_before()).map(|b| self.eol.map_or(b, |e| e.to));
        let new_parse = if parse_now {
            let (new_parse, tree) = Parse::from_edited_like(green.clone(), &bytes, encoding, parse);
            if tree == gedgraft_syntax::EditedTree::Reparsed {
                self.warnings.push(Warning::Reparsed);
            }
            Some(new_parse)
        } else {
            None
        };
        let changes: Vec<Change> = if whole {
            let old_len = map.file_len();
            // A later batch of a streamed file whose octets stay as they were can still read differently: its
            // raw octets (after the trailer) in the new encoding. The whole file's transcode is one change,
            // whose diff shows such a line; so is the batch's. (Asked only of octets that stayed.)
            let reads_differently =
                || self.later_batch && parse.encoding() != encoding && !bytes.is_ascii();
            if same_octets(parse, &bytes) && !reads_differently() {
                Vec::new()
            } else {
                vec![Change {
                    input: 0..old_len,
                    output: 0..bytes.len(),
                }]
            }
        } else {
            merge_changes(changes)
        };
        Ok(Edited::new(
            parse,
            NewFile {
                green,
                new_depth: rebuilt.new_depth,
                encoding,
                parse: new_parse,
                map: identity.then(|| gedgraft_encoding::SourceMap::identity(bytes.len())),
                bytes,
                break_before,
            },
            changes,
            self.warnings,
            self.count + usize::from(whole) + self.eol.map_or(0, |_| 1),
        ))
    }

    /// Checks a transcode to `to` and adds the splices it needs (`HEAD.CHAR`, a byte-order mark a UTF-16 or
    /// UTF-8-with-mark file must have); `bom_encoding` becomes the new file's mark encoding.
    fn prepare_transcode(
        &mut self,
        to: Encoding,
        raw: RawOctets,
        bom_encoding: &mut Option<Encoding>,
    ) -> Result<Transcoder, EditError> {
        if !self.splices.is_empty() {
            return Err(EditError::InvalidOption {
                message:
                    "a transcode cannot be combined with other edits (a line-break conversion \
                          excepted); apply the other edits first"
                        .into(),
            });
        }
        dialect::check_transcode(self.parse, to)?;
        let t = Transcoder::new(self.parse, to, raw)?;
        if self.later_batch {
            // The header and the byte-order mark are the first batch's.
            *bom_encoding = None;
            return Ok(t);
        }
        self.charset_splices(to)?;
        splice::resolve_texts(self.parse.green(), &mut self.splices);
        if bom_encoding.is_some() || to.is_utf16() {
            if to.is_utf16() || to == Encoding::Utf8 {
                if bom_encoding.is_none() {
                    self.splices.push(Splice {
                        parent: NodeKey {
                            root: true,
                            start: 0,
                        },
                        children: 0..0,
                        text: 0..0,
                        with: vec![NodeOrToken::Token(token(SyntaxKind::Bom, "\u{FEFF}"))],
                        edit: self.edits.len().saturating_sub(1),
                        known_change: true,
                    });
                }
                *bom_encoding = Some(to);
            } else {
                *bom_encoding = None;
            }
        }
        Ok(t)
    }

    /// Checks the identifiers this batch gives against those the file keeps (R-POINTER-CONV: unique).
    fn check_new_ids(&mut self) -> Result<(), EditError> {
        if self.new_ids.is_empty() {
            return Ok(());
        }
        let new_ids = std::mem::take(&mut self.new_ids);
        for (id, start) in &new_ids {
            let Some(&at) = self.xrefs().get(id) else {
                continue;
            };
            let freed = self.retarget.contains_key(id) || self.removed_ids.contains(id);
            if Some(at) != *start && !freed {
                return Err(EditError::DuplicateXref { id: id.clone() });
            }
        }
        Ok(())
    }

    /// Retargets pointers to changed identifiers and warns about dangling ones, in one walk.
    fn resolve_pointers(&mut self) {
        if self.retarget.is_empty()
            && self.removed_ids.is_empty()
            && self.pointed.is_empty()
            && self.added_ids.is_empty()
        {
            return;
        }
        let mut deleted: Vec<(u32, u32)> = self
            .splices
            .iter()
            .filter(|s| s.with.is_empty() && s.text.start < s.text.end)
            .map(|s| (s.text.start, s.text.end))
            .collect();
        deleted.sort_unstable();
        let inside_deleted = |at: u32| {
            let i = deleted.partition_point(|d| d.0 <= at);
            i > 0 && at < deleted[i - 1].1
        };
        let removed: HashSet<String> = self.removed_ids.iter().cloned().collect();
        let mut dangling: HashMap<String, usize> = HashMap::new();
        // Pointers that do not follow a renumbering but name a new identifier: they lead to its structure now.
        let mut taken: HashMap<String, usize> = HashMap::new();
        let new_ids: HashSet<&str> = (self.retarget.values().map(|(n, _)| n.as_str()))
            .chain(self.added_ids.iter().map(String::as_str))
            .collect();
        let mut new_splices = Vec::new();
        let retarget = &self.retarget;
        splice::walk_nodes(self.parse.green(), 0, |n, at| {
            if !is_structure_kind(n.kind()) {
                return n.kind() == SyntaxKind::Document.into();
            }
            for (index, t, t_at) in first_line_green(n, at) {
                if t.kind() != SyntaxKind::Pointer.into() || inside_deleted(t_at) {
                    continue;
                }
                let target = strip_ats(t.text());
                if let Some((new, edit)) = retarget.get(target) {
                    // Only identifiers that change are retargeted.
                    let new = token(SyntaxKind::Pointer, &format!("@{new}@"));
                    new_splices.push(Splice::replace_token(at, index, t, t_at, new, *edit));
                } else if new_ids.contains(target) {
                    *taken.entry(target.to_string()).or_default() += 1;
                } else if removed.contains(target) {
                    *dangling.entry(target.to_string()).or_default() += 1;
                }
            }
            true
        });
        drop(new_ids);
        self.splices.extend(new_splices);
        let mut ids: Vec<_> = dangling.into_iter().collect();
        let pointed = std::mem::take(&mut self.pointed);
        for id in pointed {
            // GEDCOM 7's `@VOID@` points nowhere by design: no dangling pointer.
            let exists = (self.xrefs().contains_key(&id) && !removed.contains(&id))
                || self.added_ids.contains(&id)
                || self.retarget.values().any(|(n, _)| *n == id)
                || Some(id.as_str()) == self.parse.dialect().null_pointer();
            let gone = self.retarget.contains_key(&id);
            if (!exists || gone) && !ids.iter().any(|(i, _)| *i == id) {
                ids.push((id, 1));
            }
        }
        ids.sort();
        for (id, count) in ids {
            self.warnings.push(Warning::DanglingPointers { id, count });
        }
        let mut taken: Vec<_> = taken.into_iter().collect();
        taken.sort();
        for (id, count) in taken {
            self.warnings.push(Warning::PointersTakenOver { id, count });
        }
    }
}

/// Whether a token is a Unicode escape (`@#U…@`).
fn is_unicode_escape(kind: rowan::SyntaxKind, text: &str) -> bool {
    kind == SyntaxKind::Escape.into() && text.starts_with("@#U")
}

/// How many Unicode escapes a tree holds (within `range` of its text, if given).
fn unicode_escapes(root: &SyntaxNode, range: Option<TextRange>) -> usize {
    let top = match range {
        Some(range) if range.is_empty() => return 0,
        Some(range) => match root.covering_element(range) {
            NodeOrToken::Node(n) => n,
            NodeOrToken::Token(t) => {
                return usize::from(is_unicode_escape(t.kind().into(), t.text()))
            }
        },
        None => root.clone(),
    };
    (top.descendants_with_tokens())
        .filter_map(|e| e.into_token())
        .filter(|t| range.is_none_or(|r| r.contains_range(t.text_range())))
        .filter(|t| is_unicode_escape(t.kind().into(), t.text()))
        .count()
}

/// Which splices change nothing: their new elements spell the very text of the children they replace. Lengths
/// are compared first; the rest are checked in one walk down the paths to their nodes.
fn no_op_splices(root: &GreenNodeData, splices: &[Splice]) -> Vec<bool> {
    let mut noop = vec![false; splices.len()];
    let mut candidates: Vec<usize> = Vec::new();
    for (i, s) in splices.iter().enumerate() {
        if s.known_change {
            continue;
        }
        let new_len: u64 = s
            .with
            .iter()
            .map(|e| u64::from(u32::from(e.text_len())))
            .sum();
        if new_len != u64::from(s.text.end.saturating_sub(s.text.start)) {
            continue;
        }
        if s.text.start == s.text.end {
            noop[i] = true; // nothing replaced by nothing
        } else if s.parent.root {
            noop[i] = same_children_text(root, s);
        } else {
            candidates.push(i);
        }
    }
    if candidates.is_empty() {
        return noop;
    }
    candidates.sort_by_key(|&i| splices[i].parent.start);
    let mut starts: Vec<u32> = candidates
        .iter()
        .map(|&i| splices[i].parent.start)
        .collect();
    starts.dedup();
    let mut next = 0;
    splice::visit_starts(root, &starts, |node, at| {
        while let Some(&i) = candidates.get(next) {
            match splices[i].parent.start.cmp(&at) {
                std::cmp::Ordering::Less => next += 1,
                std::cmp::Ordering::Equal => {
                    noop[i] = same_children_text(node, &splices[i]);
                    next += 1;
                }
                std::cmp::Ordering::Greater => break,
            }
        }
    });
    noop
}

/// Whether a splice's new elements spell the text of the children of `node` it replaces.
fn same_children_text(node: &GreenNodeData, s: &Splice) -> bool {
    let old = node
        .children()
        .skip(s.children.start)
        .take(s.children.end.saturating_sub(s.children.start));
    let new = s.with.iter().map(splice::element_ref);
    splice::same_text(splice::texts(old), splice::texts(new))
}

/// Whether `parse` writes exactly `bytes` (compared piece by piece, without a second copy of the file).
fn same_octets(parse: &Parse, bytes: &[u8]) -> bool {
    let encoding = parse.encoding();
    let bom = parse.detection().bom.map_or(encoding, |b| b.encoding);
    let mut rest = bytes;
    let mut piece = Vec::new();
    for t in gedgraft_syntax::internal::green_tokens(parse.green()) {
        piece.clear();
        if gedgraft_syntax::internal::write_token(t, encoding, bom, &mut piece).is_err() {
            return false;
        }
        match rest.strip_prefix(&piece[..]) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    rest.is_empty()
}

/// Each splice's change in the old file's octets, with the new octet length (computed before the splices are
/// consumed); a new text the encoding cannot write is an error here.
fn splice_changes(
    parse: &Parse,
    splices: &[Splice],
    encoding: Encoding,
    bom_encoding: Option<Encoding>,
) -> Result<Vec<(usize, usize, usize)>, EditError> {
    let map = parse.source_map();
    let mut changes = Vec::with_capacity(splices.len());
    let mut scratch = Vec::new();
    for s in splices {
        scratch.clear();
        for e in &s.with {
            let line = || parse.locate(s.text.start.into()).line;
            write_element(e, encoding, bom_encoding, &mut scratch, line)?;
        }
        changes.push((
            map.file_offset(s.text.start as usize),
            map.file_offset(s.text.end as usize),
            scratch.len(),
        ));
    }
    Ok(changes)
}

/// Writes one green element's octets; `line` is the 1-based line of the input where it goes.
fn write_element(
    e: &GreenElement,
    encoding: Encoding,
    bom_encoding: Option<Encoding>,
    out: &mut Vec<u8>,
    line: impl FnOnce() -> usize,
) -> Result<(), EditError> {
    let result = match e {
        NodeOrToken::Node(n) => write_green(n, encoding, bom_encoding, out),
        NodeOrToken::Token(t) => {
            let enc = if t.kind() == SyntaxKind::Bom.into() {
                bom_encoding.unwrap_or(encoding)
            } else {
                encoding
            };
            enc.encode(t.text(), out)
        }
    };
    result.map_err(|e| EditError::Unencodable {
        character: e.character,
        encoding: e.encoding,
        line: line(),
        place: "new text",
    })
}
