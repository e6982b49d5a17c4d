//! The editor: collects edits against one parsed file, then applies them all in one rebuild.

use crate::edited::{merge_changes, Change, Edited, NewFile};
use crate::error::{EditError, Warning};
use crate::render::{self, lay_out_payload, line_node, octets, token, Budget, GreenPayload, Style};
use crate::splice::{self, check_overlaps, GreenElement, NodeKey, Splice};
use crate::transform::{FileTransform, LineBreakConversion, Transcoder};
use crate::{dialect, scope::Scope};
use gedgraft_encoding::Encoding;
use gedgraft_syntax::ast::{AstNode, AstToken, Level, Structure};
use gedgraft_syntax::internal::green_view::Node as GreenView;
use gedgraft_syntax::lexical::{self, strip_ats};
use gedgraft_syntax::{
    write_green, Parse, Picker, SyntaxElement, SyntaxKind, SyntaxNode, SyntaxToken,
};
use rowan::{GreenNode, GreenNodeData, NodeOrToken};
use std::collections::{HashMap, HashSet};

mod apply;
mod charset;
mod conflicts;
mod insert;
mod protect;
mod rewrap;
mod structure_edits;
mod types;

use conflicts::{Checked, Claim};
pub use types::{LfCr, LineBreak, NewPayload, NewStructure, Position, RawOctets};

/// What a new payload is.
#[derive(Clone, Copy)]
enum Value<'a> {
    Text(&'a str),
    Pointer(&'a str),
}

/// The tokens of one line, by child index in its node.
struct LineInfo {
    tokens: Vec<SyntaxToken>,
    tag: Option<usize>,
    xref: Option<usize>,
    /// The child index after the line's last token (its line break included).
    end: usize,
    level: usize,
}

fn line_info(node: &SyntaxNode) -> LineInfo {
    let tokens: Vec<SyntaxToken> = render::first_line_tokens(node).collect();
    let find = |kind| tokens.iter().position(|t| t.kind() == kind);
    let level = level_of(&tokens);
    LineInfo {
        tag: find(SyntaxKind::Tag),
        xref: find(SyntaxKind::Xref),
        end: tokens.len(),
        level,
        tokens,
    }
}

/// The level a line's tokens give (0 without one).
fn level_of(tokens: &[SyntaxToken]) -> usize {
    (tokens.iter())
        .find_map(|t| Level::cast(t.clone()))
        .map_or(0, |l| l.value())
}

fn concat(tokens: &[SyntaxToken]) -> String {
    tokens.iter().map(|t| t.text()).collect()
}

/// `Tag ::= [0-9A-Za-z_]+` (R-TAGS-01).
fn check_tag_syntax(tag: &str) -> Result<(), EditError> {
    if lexical::is_tag(tag) {
        Ok(())
    } else {
        Err(EditError::InvalidTag {
            tag: tag.to_string(),
        })
    }
}

/// Checks an identifier the editor is asked to write: non-empty, its first character `[0-9A-Za-z_]`, the rest
/// ASCII characters that `IDChar` allows, so it is valid under both identifier grammars (R-POINTER-CONV-02,
/// R-XREF-IDS-01, -03, -04).
fn check_xref(id: &str) -> Result<(), EditError> {
    let bad = |reason: &str| EditError::InvalidXref {
        id: id.to_string(),
        reason: reason.to_string(),
    };
    let mut chars = id.chars();
    let Some(first) = chars.next() else {
        return Err(bad("the identifier is empty"));
    };
    if !lexical::is_portable_id_start(first) {
        return Err(bad(
            "an identifier must start with a letter, a digit or `_` (R-POINTER-CONV-02)",
        ));
    }
    if let Some(c) = chars.find(|&c| !lexical::is_portable_id_char(c)) {
        return Err(bad(&format!(
            "{} is not allowed in an identifier; use ASCII letters, digits and {} \
             (R-XREF-IDS-01, R-POINTER-CONV-02)",
            lexical::describe_char(c),
            lexical::ID_PUNCTUATION
        )));
    }
    Ok(())
}

const RESERVED: [&str; 6] = ["HEAD", "TRLR", "CONC", "CONT", "PLANG", "DTYPE"];

/// Batches edits of one parsed file and applies them in one pass.
///
/// Each method checks its arguments at once and records the edit; nothing changes until [`Editor::apply`],
/// which rejects overlapping edits, rebuilds the tree in one iterative pass (untouched subtrees stay the very
/// same green nodes), writes the octets, and re-parses them for fresh diagnostics. The input [`Parse`] is never
/// modified.
///
/// New and changed lines follow the file's own conventions (see the [`render`](crate#conventions) notes): its
/// encoding, with `@#U…@` for what it cannot encode; the line break, indentation, delimiter and payload
/// separator of the neighbouring lines; `@@` for `@`; `CONT`/`CONC` lines as the 2019 writer rules say.
///
/// Edits over the whole file ([`rename_tag`](Editor::rename_tag), [`escape_at_signs`](Editor::escape_at_signs),
/// [`rewrap`](Editor::rewrap)) overlap any other edit of the lines they touch; apply such batches one after the
/// other (`Editor::new(edited.parse())`).
///
/// ```
/// use gedgraft_edit::{Editor, NewStructure, Position};
/// let parse = gedgraft_syntax::parse(b"0 HEAD\r\n0 @I1@ INDI\r\n1 NAME Bob\r\n0 TRLR\r\n");
/// let indi = parse.document().record_by_xref("I1").unwrap();
/// let name = indi.substructures().next().unwrap();
/// let mut editor = Editor::new(&parse);
/// editor.set_payload(&name, "Bob /Smith/ bob@example.com").unwrap();
/// editor.insert(&indi, Position::LastChild, &NewStructure::new("NOTE").text("two\nlines")).unwrap();
/// let edited = editor.apply().unwrap();
/// assert_eq!(
///     edited.bytes(),
///     b"0 HEAD\r\n0 @I1@ INDI\r\n1 NAME Bob /Smith/ bob@@example.com\r\n1 NOTE two\r\n2 CONT lines\r\n0 TRLR\r\n"
/// );
/// assert!(edited.parse().diagnostics().is_empty());
/// ```
pub struct Editor<'p> {
    parse: &'p Parse,
    root: SyntaxNode,
    edits: Vec<String>,
    splices: Vec<Splice>,
    warnings: Vec<Warning>,
    /// Identifier changes: old → (new, edit).
    retarget: HashMap<String, (String, usize)>,
    /// Identifiers that no structure will have any more.
    removed_ids: Vec<String>,
    /// Identifiers given by this batch.
    added_ids: HashSet<String>,
    /// Identifiers new pointers name.
    pointed: Vec<String>,
    /// Identifiers given by this batch, with the start of the structure that gets each (None: a new one).
    new_ids: Vec<(String, Option<u32>)>,
    line_limit: Option<usize>,
    eol: Option<LineBreakConversion>,
    transcode: Option<(Encoding, RawOctets)>,
    /// Whether the parse is a later batch of a streamed file ([`Editor::later_batch`]).
    later_batch: bool,
    count: usize,
    xrefs: Option<HashMap<String, u32>>,
    /// The paths' picker ([`Editor::select`]), made on the first.
    picker: Option<Picker>,
    /// The paths that matched nothing, warned about.
    unmatched: HashSet<String>,
    /// The structures per-structure edits claimed, for conflicts found by the call that causes them.
    claims: conflicts::Claims,
}

impl std::fmt::Debug for Editor<'_> {
    /// The edits recorded so far, by their descriptions, and what the batch will do to the whole file.
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 _UID 1\n0 TRLR\n");
    /// let mut editor = gedgraft_edit::Editor::new(&parse);
    /// editor.rename_tag("_UID", "UID", None).unwrap();
    /// assert!(format!("{editor:?}").contains("renaming `_UID` to `UID`"));
    /// ```
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Editor")
            .field("edits", &self.edits)
            .field("change_count", &self.count)
            .field("line_limit", &self.line_limit)
            .field("line_breaks", &self.eol.map(|e| e.to))
            .field("transcode", &self.transcode)
            .field("warnings", &self.warnings)
            .finish_non_exhaustive()
    }
}

impl<'p> Editor<'p> {
    /// An editor for `parse`. The parse is only read.
    pub fn new(parse: &'p Parse) -> Editor<'p> {
        Editor {
            parse,
            root: parse.syntax(),
            edits: Vec::new(),
            splices: Vec::new(),
            warnings: Vec::new(),
            retarget: HashMap::new(),
            removed_ids: Vec::new(),
            added_ids: HashSet::new(),
            pointed: Vec::new(),
            new_ids: Vec::new(),
            line_limit: None,
            eol: None,
            transcode: None,
            later_batch: false,
            count: 0,
            xrefs: None,
            picker: None,
            unmatched: HashSet::new(),
            claims: conflicts::Claims::default(),
        }
    }

    /// The file being edited.
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 TRLR\n");
    /// let editor = gedgraft_edit::Editor::new(&parse);
    /// assert!(std::ptr::eq(editor.parse(), &parse));
    /// ```
    pub fn parse(&self) -> &'p Parse {
        self.parse
    }

    /// Sets the line limit in octets for the lines this editor writes (line break, level and tag included;
    /// R-SERIALISING-STRUCTS-08). The default is 255, or 510 in UTF-16. At least 32.
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 TRLR\n");
    /// let mut editor = gedgraft_edit::Editor::new(&parse);
    /// assert!(editor.set_line_limit(80).is_ok());
    /// assert!(editor.set_line_limit(10).is_err());
    /// ```
    pub fn set_line_limit(&mut self, octets: usize) -> Result<(), EditError> {
        check_limit(octets)?;
        self.line_limit = Some(octets);
        Ok(())
    }

    fn limit(&self) -> usize {
        self.line_limit
            .unwrap_or_else(|| gedgraft_syntax::line_octet_limit(self.parse.encoding()))
    }

    /// How many changes the edits so far make (tags renamed, payloads set, structures inserted, …).
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME a@b\n0 TRLR\n");
    /// let mut editor = gedgraft_edit::Editor::new(&parse);
    /// editor.rename_tag("NAME", "_NAME", None).unwrap();
    /// editor.escape_at_signs(None);
    /// assert_eq!(editor.change_count(), 2);
    /// ```
    pub fn change_count(&self) -> usize {
        self.count
    }

    /// The structures `scope` picks; when it picks none, the result of [`apply`](Editor::apply) warns
    /// ([`Warning::SelectorMatchedNothing`]).
    ///
    /// ```
    /// use gedgraft_edit::{Editor, Scope};
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n");
    /// let mut editor = Editor::new(&parse);
    /// let names = editor.select(&Scope::parse("INDI.NAME").unwrap());
    /// editor.set_payload(&names[0], "Robert").unwrap();
    /// assert!(editor.select(&Scope::parse("FAM").unwrap()).is_empty());
    /// assert_eq!(editor.apply().unwrap().warnings().len(), 1);
    /// ```
    pub fn select(&mut self, scope: &Scope) -> Vec<Structure> {
        let parse = self.parse;
        let picker = self
            .picker
            .get_or_insert_with(|| Picker::new(parse.document()));
        let found = picker.select(scope);
        if found.is_empty() {
            self.warn_unmatched(scope);
        }
        found
    }

    fn warn_unmatched(&mut self, scope: &Scope) {
        // Told once per path, found in a set: a plan of 10 000 paths that match nothing in a batch was
        // quadratic with a search of the warnings.
        if self.unmatched.insert(scope.path().to_string()) {
            self.warnings.push(Warning::SelectorMatchedNothing {
                path: scope.path().to_string(),
            });
        }
    }

    fn line_of(&self, offset: u32) -> usize {
        self.parse.locate(offset.into()).line
    }

    /// The style of new lines near `node` ([`Style::near`]), with the line break a conversion asks for.
    fn style_near(&self, node: &SyntaxNode) -> Style {
        Style::near(node, self.parse, self.eol.map(|e| e.to.as_str()))
    }

    fn new_edit(&mut self, description: String) -> usize {
        self.edits.push(description);
        self.edits.len() - 1
    }

    /// The node of `structure`, checked to belong to this editor's tree.
    fn own(&self, structure: &Structure) -> Result<SyntaxNode, EditError> {
        let node = structure.syntax().clone();
        let top = node.tree_top();
        if std::ptr::eq(top.green(), &**self.parse.green()) {
            Ok(node)
        } else {
            Err(EditError::ForeignNode)
        }
    }

    /// Renames the tag `from` to `to` on every structure, or on the structures `scope` picks and everything inside
    /// them. Returns how many tags will be renamed. Continuation lines are not structures and keep `CONT`/`CONC`.
    ///
    /// `to` must be a tag (R-TAGS-01) and not reserved (R-TAGS-03: `HEAD`, `TRLR`, `CONC`, `CONT`, `PLANG`,
    /// `DTYPE`); `from` may not be `HEAD`, `TRLR`, `CONC` or `CONT`. The header's serialisation metadata (`CHAR`,
    /// `GEDC`, `ELF`, `SCHMA`, `PLANG` and what is inside them, R-HEADER-02) is never renamed, and no header
    /// structure is renamed to one of those tags ([`EditError::Protected`]): they say how the whole file is read.
    /// One walk over the tree, whatever the number of matches.
    ///
    /// ```
    /// use gedgraft_edit::{Editor, Scope};
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 _UID 1\n0 @F1@ FAM\n1 _UID 2\n0 TRLR\n");
    /// let mut editor = Editor::new(&parse);
    /// assert_eq!(editor.rename_tag("_UID", "UID", Some(&Scope::parse("INDI").unwrap())).unwrap(), 1);
    /// let edited = editor.apply().unwrap();
    /// assert_eq!(edited.bytes(), b"0 HEAD\n0 @I1@ INDI\n1 UID 1\n0 @F1@ FAM\n1 _UID 2\n0 TRLR\n");
    /// ```
    pub fn rename_tag(
        &mut self,
        from: &str,
        to: &str,
        scope: Option<&Scope>,
    ) -> Result<usize, EditError> {
        check_tag_syntax(from)?;
        check_tag_syntax(to)?;
        if matches!(from, "HEAD" | "TRLR" | "CONC" | "CONT") {
            return Err(EditError::ReservedTag {
                tag: from.to_string(),
                role: "the renamed tag",
            });
        }
        if RESERVED.contains(&to) {
            return Err(EditError::ReservedTag {
                tag: to.to_string(),
                role: "the new tag",
            });
        }
        if from == to {
            return Ok(0);
        }
        let roots = self.scope_roots(scope);
        let edit = self.new_edit(format!("renaming `{from}` to `{to}`"));
        let new_tag = token(SyntaxKind::Tag, to);
        let mut found = Vec::new();
        for (node, offset) in &roots {
            let mut visit = |n: &GreenNodeData, at: u32| -> bool {
                if is_structure_kind(n.kind()) {
                    for (index, t, t_at) in first_line_green(n, at) {
                        if t.kind() == SyntaxKind::Tag.into() && t.text() == from {
                            // `from` and `to` differ.
                            let new = new_tag.clone();
                            found.push(Splice::replace_token(at, index, t, t_at, new, edit));
                        }
                    }
                    true
                } else {
                    n.kind() == SyntaxKind::Document.into()
                }
            };
            if node.parent().is_some() {
                visit(node.green(), *offset);
            }
            splice::walk_nodes(node.green(), *offset, visit);
        }
        self.check_metadata_rename(&found, from, to)?;
        let n = found.len();
        self.splices.extend(found);
        self.count += n;
        Ok(n)
    }

    /// The structure node starting at `offset`, found from the root.
    fn node_at(&self, offset: u32) -> Option<SyntaxNode> {
        let token = self.root.token_at_offset(offset.into()).right_biased()?;
        token
            .parent_ancestors()
            .find(|n| u32::from(n.text_range().start()) == offset && n.parent().is_some())
    }

    /// The subtrees a scope covers (the root when there is none), with their offsets.
    fn scope_roots(&mut self, scope: Option<&Scope>) -> Vec<(SyntaxNode, u32)> {
        match scope {
            None => vec![(self.root.clone(), 0)],
            Some(scope) => self
                .select(scope)
                .into_iter()
                .map(|s| {
                    let node = s.syntax().clone();
                    let at = u32::from(node.text_range().start());
                    (node, at)
                })
                .collect(),
        }
    }

    /// Sets a structure's payload to the string `value` (logical text), replacing its payload and its `CONT`/`CONC`
    /// lines. `@` is written `@@`, line feeds start `CONT` lines, long lines are split with `CONC` lines
    /// (R-SERIALISING-STRUCTS-06 to -14), characters the file's encoding lacks become `@#U…@`, and so does a carriage
    /// return (a character of the value, not a line break: [`EditError::DialectForbids`] in GEDCOM 7, which cannot
    /// escape it). An empty value leaves the line without a payload.
    ///
    /// Refused for the header, the trailer and `HEAD.CHAR` (use [`transcode`](Editor::transcode)).
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n1 CHAR ASCII\n0 @I1@ INDI\n1 NAME Bob\n2 CONC by\n0 TRLR\n");
    /// let name = parse.document().record_by_xref("I1").unwrap().substructures().next().unwrap();
    /// let mut editor = gedgraft_edit::Editor::new(&parse);
    /// editor.set_payload(&name, "João").unwrap();
    /// let edited = editor.apply().unwrap();
    /// assert_eq!(edited.bytes(), b"0 HEAD\n1 CHAR ASCII\n0 @I1@ INDI\n1 NAME Jo@#UE3@o\n0 TRLR\n");
    /// ```
    pub fn set_payload(&mut self, structure: &Structure, value: &str) -> Result<(), EditError> {
        let node = self.own(structure)?;
        self.protect(&node, "set the payload of")?;
        self.check_new_text(value)?;
        let line = self.line_of(u32::from(node.text_range().start()));
        let what = format!("setting the payload of line {line}");
        self.check_claim(&node, Claim::Change, &what)?;
        let edit = self.new_edit(what);
        self.record_claim(&node, Claim::Change, edit);
        self.replace_payload(&node, Value::Text(value), edit, self.parse.encoding());
        self.count += 1;
        Ok(())
    }

    /// Sets a structure's payload to a pointer to `id` (without `@`s), replacing its payload and continuation
    /// lines. Warns when no structure has that identifier.
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 FAMC @F9@\n0 @F1@ FAM\n0 TRLR\n");
    /// let famc = parse.document().record_by_xref("I1").unwrap().substructures().next().unwrap();
    /// let mut editor = gedgraft_edit::Editor::new(&parse);
    /// editor.set_pointer(&famc, "F1").unwrap();
    /// let edited = editor.apply().unwrap();
    /// assert_eq!(edited.bytes(), b"0 HEAD\n0 @I1@ INDI\n1 FAMC @F1@\n0 @F1@ FAM\n0 TRLR\n");
    /// assert!(edited.warnings().is_empty());
    /// ```
    pub fn set_pointer(&mut self, structure: &Structure, id: &str) -> Result<(), EditError> {
        self.check_new(&NewPayload::Pointer(id.to_string()), None)?;
        let node = self.own(structure)?;
        self.protect(&node, "set a pointer in")?;
        let line = self.line_of(u32::from(node.text_range().start()));
        let what = format!("setting the pointer of line {line}");
        self.check_claim(&node, Claim::Change, &what)?;
        let edit = self.new_edit(what);
        self.record_claim(&node, Claim::Change, edit);
        self.replace_payload(&node, Value::Pointer(id), edit, self.parse.encoding());
        self.pointed.push(id.to_string());
        self.count += 1;
        Ok(())
    }

    fn replace_payload(
        &mut self,
        node: &SyntaxNode,
        value: Value,
        edit: usize,
        encoding: Encoding,
    ) {
        let info = line_info(node);
        let Some(ti) = info.tag else { return };
        let children: Vec<SyntaxElement> = node.children_with_tokens().collect();
        let lines: Vec<usize> = children
            .iter()
            .enumerate()
            .filter(|(_, c)| c.kind() == SyntaxKind::Line)
            .map(|(i, _)| i)
            .collect();
        let last_line = lines.last().copied();
        let interleaved = last_line.is_some_and(|l| {
            (info.end..l).any(|i| {
                children
                    .get(i)
                    .is_some_and(|c| c.kind() != SyntaxKind::Line)
            })
        });
        let ends_with_break = match last_line {
            Some(l) => children
                .get(l)
                .and_then(|c| c.as_node())
                .and_then(SyntaxNode::last_token)
                .is_some_and(|t| t.kind() == SyntaxKind::LineBreak),
            None => info
                .tokens
                .last()
                .is_some_and(|t| t.kind() == SyntaxKind::LineBreak),
        };
        let style = self.style_near(node);
        let laid = match value {
            Value::Text(v) => {
                let head = concat(&info.tokens[..=ti]);
                let tag = info.tokens[ti].text();
                let segments = dialect::segments(self.parse, tag, v, encoding);
                let budget = self.budget(&head, &style, info.level, encoding);
                Some(lay_out_payload(segments, budget))
            }
            Value::Pointer(_) => None,
        };
        let more = laid.as_ref().map_or(0, |l| l.more.len());
        let last_has_break = ends_with_break || interleaved;
        let brk = |k: usize| (k < more || last_has_break).then_some(style.line_break.as_str());
        let mut with: Vec<GreenElement> = Vec::new();
        match (&laid, value) {
            (Some(laid), _) => {
                render::push_first_payload(&mut with, &style.sep, &laid.first);
            }
            (None, Value::Pointer(id)) => {
                with.push(NodeOrToken::Token(token(
                    SyntaxKind::PayloadSep,
                    &style.sep,
                )));
                with.push(NodeOrToken::Token(token(
                    SyntaxKind::Pointer,
                    &format!("@{id}@"),
                )));
            }
            (None, Value::Text(_)) => {}
        }
        if let Some(b) = brk(0) {
            with.push(NodeOrToken::Token(token(SyntaxKind::LineBreak, b)));
        }
        if let Some(laid) = laid {
            with.extend(continuation_nodes(laid.more, &style, info.level, brk));
        }
        let start = ti + 1;
        if interleaved {
            self.splices
                .push(Splice::new(node, start..info.end, with, edit));
            for l in lines {
                self.splices
                    .push(Splice::new(node, l..l + 1, Vec::new(), edit));
            }
        } else {
            let end = last_line.map_or(info.end, |l| l + 1);
            self.splices.push(Splice::new(node, start..end, with, edit));
        }
    }

    fn budget(&self, head: &str, style: &Style, level: usize, encoding: Encoding) -> Budget {
        let cont_head: String = style
            .head(level.saturating_add(1), None, "CONT")
            .iter()
            .map(|t| t.text())
            .collect();
        Budget {
            limit: dialect::line_limit(self.parse.dialect(), self.limit()),
            first_fixed: octets(
                &format!("{head}{}{}", style.sep, style.line_break),
                encoding,
            ),
            more_fixed: octets(
                &format!("{cont_head}{}{}", style.sep, style.line_break),
                encoding,
            ),
        }
    }

    /// The identifiers of the file: identifier → start of the structure that has it.
    fn xrefs(&mut self) -> &HashMap<String, u32> {
        self.xrefs.get_or_insert_with(|| {
            let mut map = HashMap::new();
            splice::walk_nodes(self.parse.green(), 0, |n, at| {
                if !is_structure_kind(n.kind()) {
                    return n.kind() == SyntaxKind::Document.into();
                }
                for (_, t, _) in first_line_green(n, at) {
                    if t.kind() == SyntaxKind::Xref.into() {
                        map.entry(strip_ats(t.text()).to_string()).or_insert(at);
                    }
                }
                true
            });
            map
        })
    }

    /// Gives a structure the cross-reference identifier `id` (without `@`s), or removes its identifier with
    /// `None`. Pointers to the old identifier are retargeted to the new one; after a removal, a warning counts
    /// the pointers left dangling.
    ///
    /// The identifier must be unique and valid under both of the draft's grammars: first character
    /// `[0-9A-Za-z_]`, then ASCII letters, digits and `?$&'*+,;=._~-` (R-POINTER-CONV-02, R-XREF-IDS-03/04).
    /// Refused for the header and the trailer, and (a new identifier) for serialisation metadata and what lies
    /// in it (`HEAD.CHAR`, its `VERS`, `GEDC`, `ELF`, `SCHMA`, …) and for `PLANG` and `DTYPE` lines: an
    /// identifier makes them non-conformant structures (R-PARSING-METADATA-02), and `HEAD.CHAR` with one no
    /// longer decides how the file is decoded.
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 FAMS @F1@\n0 @F1@ FAM\n1 HUSB @I1@\n0 TRLR\n");
    /// let indi = parse.document().record_by_xref("I1").unwrap();
    /// let mut editor = gedgraft_edit::Editor::new(&parse);
    /// editor.set_xref(&indi, Some("P1")).unwrap();
    /// let edited = editor.apply().unwrap();
    /// assert_eq!(edited.bytes(), b"0 HEAD\n0 @P1@ INDI\n1 FAMS @F1@\n0 @F1@ FAM\n1 HUSB @P1@\n0 TRLR\n");
    /// ```
    pub fn set_xref(&mut self, structure: &Structure, id: Option<&str>) -> Result<(), EditError> {
        let node = self.own(structure)?;
        if Self::is_header(&node) || Self::is_trailer(&node) {
            return Err(EditError::Protected {
                what: "the header and the trailer cannot have a cross-reference identifier".into(),
            });
        }
        if id.is_some() {
            self.check_identifiable(&node)?;
        }
        let info = line_info(&node);
        let old = info
            .xref
            .map(|i| strip_ats(info.tokens[i].text()).to_string());
        let start = u32::from(node.text_range().start());
        let line = self.line_of(start);
        self.check_claim(
            &node,
            Claim::Change,
            &format!("changing the identifier of line {line}"),
        )?;
        match id {
            Some(id) => {
                self.check_new(&NewPayload::None, Some(id))?;
                if old.as_deref() == Some(id) {
                    return Ok(());
                }
                // Against this batch now; against the file at `apply`, so that identifiers can be swapped.
                if self.added_ids.contains(id) {
                    return Err(EditError::DuplicateXref { id: id.to_string() });
                }
                self.new_ids.push((id.to_string(), Some(start)));
                let edit = self.new_edit(format!("setting the identifier of line {line}"));
                self.record_claim(&node, Claim::Change, edit);
                let xref = NodeOrToken::Token(token(SyntaxKind::Xref, &format!("@{id}@")));
                match (info.xref, info.tag) {
                    (Some(xi), _) => {
                        self.splices
                            .push(Splice::new(&node, xi..xi + 1, vec![xref], edit))
                    }
                    (None, Some(ti)) => {
                        let style = Style::near(&node, self.parse, None);
                        let delim = NodeOrToken::Token(token(SyntaxKind::Delimiter, &style.delim));
                        self.splices
                            .push(Splice::new(&node, ti..ti, vec![xref, delim], edit));
                    }
                    (None, None) => return Ok(()),
                }
                if let Some(old) = old {
                    self.retarget.insert(old, (id.to_string(), edit));
                }
                self.added_ids.insert(id.to_string());
            }
            None => {
                let (Some(xi), Some(old)) = (info.xref, old) else {
                    return Ok(());
                };
                let edit = self.new_edit(format!("removing the identifier of line {line}"));
                self.record_claim(&node, Claim::Change, edit);
                self.splices
                    .push(Splice::new(&node, xi..xi + 2, Vec::new(), edit));
                self.removed_ids.push(old);
            }
        }
        self.count += 1;
        Ok(())
    }

    /// Deletes a structure with its continuation lines and substructures (and any blank or malformed lines
    /// inside it). Warns when pointers to its identifier are left dangling. Refused for the header, the trailer
    /// and `HEAD.CHAR`.
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 NOTE a\n2 CONT b\n1 SEX M\n0 TRLR\n");
    /// let note = parse.document().record_by_xref("I1").unwrap().substructures().next().unwrap();
    /// let mut editor = gedgraft_edit::Editor::new(&parse);
    /// editor.delete(&note).unwrap();
    /// assert_eq!(editor.apply().unwrap().bytes(), b"0 HEAD\n0 @I1@ INDI\n1 SEX M\n0 TRLR\n");
    /// ```
    pub fn delete(&mut self, structure: &Structure) -> Result<(), EditError> {
        let node = self.own(structure)?;
        self.protect(&node, "delete")?;
        let Some(parent) = node.parent() else {
            return Err(EditError::ForeignNode);
        };
        let line = self.line_of(u32::from(node.text_range().start()));
        let what = format!("deleting line {line} (`{}`)", Self::tag_of(&node));
        if self.check_claim(&node, Claim::Remove, &what)? == Checked::AlreadyGone {
            return Ok(());
        }
        let edit = self.new_edit(what);
        self.record_claim(&node, Claim::Remove, edit);
        let i = node.index();
        self.splices
            .push(Splice::new(&parent, i..i + 1, Vec::new(), edit));
        if let Some(x) = line_info(&node).xref {
            let id = strip_ats(line_info(&node).tokens[x].text()).to_string();
            self.removed_ids.push(id);
        }
        self.count += 1;
        Ok(())
    }

    /// Writes every bare `@` (an `@` of a `TEXT` token: neither `@@`, nor part of an escape or a pointer) in string
    /// payloads as `@@` (§ Encoding `@`s, R-ESCAPING-01, R-SERIALISING-STRUCTS-12), in every structure or in those
    /// `scope` picks and everything inside them, continuation lines included. Returns how many. Doubling an `@`
    /// never changes how the rest of the line is read, and both spellings mean the same `@`.
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 @I1@ INDI\n1 EMAIL bob@example.com, b@x.org\n1 FAMC @F1@\n0 TRLR\n");
    /// let mut editor = gedgraft_edit::Editor::new(&parse);
    /// assert_eq!(editor.escape_at_signs(None), 2);
    /// let edited = editor.apply().unwrap();
    /// assert_eq!(edited.bytes(), b"0 HEAD\n0 @I1@ INDI\n1 EMAIL bob@@example.com, b@@x.org\n1 FAMC @F1@\n0 TRLR\n");
    /// ```
    pub fn escape_at_signs(&mut self, scope: Option<&Scope>) -> usize {
        let roots = self.scope_roots(scope);
        let edit = self.new_edit("escaping `@` as `@@`".into());
        let dialect = self.parse.dialect();
        let (mut found, mut doubled) = (Vec::new(), 0);
        for (node, offset) in &roots {
            let mut visit = |n: &GreenNodeData, at: u32| -> bool {
                let kind = n.kind();
                let tokens: Vec<_> = if is_structure_kind(kind) {
                    first_line_green(n, at).collect()
                } else if kind == SyntaxKind::Line.into() {
                    all_tokens_green(n, at).collect()
                } else {
                    return kind == SyntaxKind::Document.into();
                };
                let mut previous = None;
                for (index, t, t_at) in tokens {
                    if let Some((new, n)) = dialect::doubled_at_signs(dialect, &mut previous, t) {
                        found.push(Splice::replace_token(at, index, t, t_at, new, edit));
                        doubled += n;
                    }
                }
                is_structure_kind(kind)
            };
            if node.parent().is_some() {
                visit(node.green(), *offset);
            }
            splice::walk_nodes(node.green(), *offset, visit);
        }
        self.splices.extend(found);
        self.count += doubled;
        doubled
    }

    /// Converts every line break of the file to `to` when the batch is applied (new lines get it too). `lf_cr`
    /// says how an LF directly followed by a CR is read: as two breaks around a blank line, as the 2019 draft
    /// reads it (R-LINE-STRINGS-02), which become two `to`; or as one break (the June 2017 draft's and GEDCOM
    /// 5.5.1's reading), which becomes one.
    ///
    /// ```
    /// use gedgraft_edit::{Editor, LfCr, LineBreak};
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\r\n0 TRLR\n\r");
    /// let mut editor = Editor::new(&parse);
    /// editor.convert_line_breaks(LineBreak::CrLf, LfCr::OneBreak);
    /// assert_eq!(editor.apply().unwrap().bytes(), b"0 HEAD\r\n0 TRLR\r\n");
    /// ```
    pub fn convert_line_breaks(&mut self, to: LineBreak, lf_cr: LfCr) {
        self.new_edit("converting line breaks".into());
        self.eol = Some(LineBreakConversion {
            to,
            join_lf_cr: lf_cr == LfCr::OneBreak,
        });
    }

    /// Transcodes the whole file to `to` when the batch is applied: every character is written in the new
    /// encoding, characters it lacks in string payloads become `@#U…@` escapes (R-UNICODE-ESCAPE-05; a bare `@`
    /// on such a line becomes `@@` so that no new escape can form), and `HEAD.CHAR` declares the new encoding as
    /// genealogy programs read it ([`gedgraft_encoding::declaration`]: `UTF-8`, `UNICODE` for UTF-16, `ASCII`,
    /// `ANSEL`, `ANSI` for windows-1252, `ANSI` + `2 VERS 1250` for the other Windows code pages, `IBMPC`,
    /// `MACINTOSH`), inserted as the header's last substructure if missing; a declaration that already reads as
    /// `to` in a file read as `to` is kept, so transcoding an `ANSI` file to windows-1252 changes nothing. A
    /// byte-order mark is kept for UTF-8 and UTF-16, dropped for other encodings, and added for UTF-16
    /// (recommended by § Serialising line strings). Raw octets follow `raw`. When the output could not be
    /// transcoded back to the same octets (ANSEL `F8` and `F1` are both U+0328), the result warns
    /// ([`Warning::NotReversible`]).
    ///
    /// Fails at [`apply`](Editor::apply) if the file's reading is in doubt ([`EditError::DoubtfulDecoding`]:
    /// its octets contradict the encoding it was read with; parse it with the right encoding forced), if a
    /// cross-reference identifier, a pointer, a malformed line or the text after the trailer holds a character
    /// `to` lacks, or if the batch holds other edits than a line-break conversion (apply those first). Lines that
    /// grow past the line limit are not re-wrapped here: apply, then [`rewrap`](Editor::rewrap) the result, as
    /// `gedgraft fix --to-encoding … --rewrap` does.
    ///
    /// ```
    /// use gedgraft_edit::{Editor, RawOctets};
    /// use gedgraft_syntax::encoding::Encoding;
    /// let parse = gedgraft_syntax::parse("0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Jos\u{e9} \u{263A}\n0 TRLR\n".as_bytes());
    /// let mut editor = Editor::new(&parse);
    /// editor.transcode(Encoding::Ansel, RawOctets::Refuse);
    /// let edited = editor.apply().unwrap();
    /// assert_eq!(edited.bytes(), b"0 HEAD\n1 CHAR ANSEL\n0 @I1@ INDI\n1 NAME Jos\xE2e @#U263A@\n0 TRLR\n");
    /// assert_eq!(edited.parse().encoding(), Encoding::Ansel);
    /// ```
    pub fn transcode(&mut self, to: Encoding, raw: RawOctets) {
        self.new_edit(format!("transcoding to {to}"));
        self.transcode = Some((to, raw));
    }

    /// Makes the pointers to `old` point to `new` when the batch is applied, as [`set_xref`](Editor::set_xref)
    /// does for the structure it gives a new identifier: for a batch of a streamed file whose pointers name a
    /// structure that another batch renumbers. A pointer that follows is not counted as a change of its own.
    ///
    /// ```
    /// let batch = gedgraft_syntax::parse(b"0 @F1@ FAM\n1 HUSB @I1@\n1 WIFE @I2@\n0 TRLR\n");
    /// let mut editor = gedgraft_edit::Editor::new(&batch);
    /// editor.follow_identifier("I1", "P1");
    /// let edited = editor.apply().unwrap();
    /// assert_eq!(edited.bytes(), b"0 @F1@ FAM\n1 HUSB @P1@\n1 WIFE @I2@\n0 TRLR\n");
    /// assert_eq!(edited.change_count(), 0);
    /// ```
    pub fn follow_identifier(&mut self, old: &str, new: &str) {
        if self.retarget.contains_key(old) {
            return;
        }
        let edit = self.new_edit(format!("pointers to `@{old}@` following it to `@{new}@`"));
        self.retarget
            .insert(old.to_string(), (new.to_string(), edit));
    }

    /// Says that the parse is a batch of a streamed file after its first
    /// ([`RecordStream`](gedgraft_syntax::stream::RecordStream)): the file's start, its byte-order mark and its
    /// header, are in the first batch. A [`transcode`](Editor::transcode) of this batch then writes its text in
    /// the new encoding and leaves `HEAD.CHAR` and the byte-order mark to the first batch's edit.
    ///
    /// ```
    /// use gedgraft_edit::{Editor, RawOctets};
    /// use gedgraft_syntax::encoding::Encoding;
    /// let batch = gedgraft_syntax::parse("0 @I1@ INDI\n1 NAME Jos\u{e9}\n0 TRLR\n".as_bytes());
    /// let mut editor = Editor::new(&batch);
    /// editor.later_batch();
    /// editor.transcode(Encoding::Ansel, RawOctets::Refuse);
    /// assert_eq!(editor.apply().unwrap().bytes(), b"0 @I1@ INDI\n1 NAME Jos\xE2e\n0 TRLR\n");
    /// ```
    pub fn later_batch(&mut self) {
        self.later_batch = true;
    }
}

fn check_limit(octets: usize) -> Result<(), EditError> {
    if octets < 32 {
        return Err(EditError::InvalidOption {
            message: format!("a line limit of {octets} octets is too small; use at least 32"),
        });
    }
    Ok(())
}

/// `CONT`/`CONC` line nodes for the continuation lines of a layout; `brk(k)` is the break of line `k`
/// (0 = the first line).
fn continuation_nodes<'b>(
    more: Vec<(bool, GreenPayload)>,
    style: &Style,
    level: usize,
    brk: impl Fn(usize) -> Option<&'b str>,
) -> Vec<GreenElement> {
    // Each line's payload is dropped once its node is made: a long payload is not held twice (#12).
    more.into_iter()
        .enumerate()
        .map(|(k, (cont, payload))| {
            let tag = if cont { "CONT" } else { "CONC" };
            let head = style.head(level.saturating_add(1), None, tag);
            NodeOrToken::Node(line_node(
                head,
                &style.sep,
                payload.tokens().collect(),
                brk(k + 1),
            ))
        })
        .collect()
}

fn is_structure_kind(kind: rowan::SyntaxKind) -> bool {
    kind == SyntaxKind::Record.into() || kind == SyntaxKind::Structure.into()
}

/// The first line's tokens of a green structure node starting at `at`: (child index, token, offset).
fn first_line_green(
    node: &GreenNodeData,
    at: u32,
) -> impl Iterator<Item = (usize, &rowan::GreenTokenData, u32)> {
    let mut ended = false;
    GreenView::new(node, at.into())
        .elements()
        .enumerate()
        .map_while(move |(i, (c, start))| {
            let t = c.into_token()?;
            if ended {
                return None;
            }
            ended = t.kind() == SyntaxKind::LineBreak.into();
            Some((i, t, u32::from(start)))
        })
}

/// Every token child of a green node starting at `at`: (child index, token, offset).
fn all_tokens_green(
    node: &GreenNodeData,
    at: u32,
) -> impl Iterator<Item = (usize, &rowan::GreenTokenData, u32)> {
    GreenView::new(node, at.into())
        .elements()
        .enumerate()
        .filter_map(|(i, (c, start))| c.into_token().map(|t| (i, t, u32::from(start))))
}
