//! Header metadata (2019 § Parsing serialisation metadata): CHAR, ELF, GEDC, PLANG, SCHMA and the header line.

use super::*;

impl<'p> Builder<'p> {
    pub(super) fn header(&mut self, header: Node<'p>, header_line: usize) {
        self.check_header_line(header);
        let mut seen: Vec<(&str, usize)> = Vec::new();
        let mut kept: Vec<(Node<'p>, usize, Mode)> = Vec::new();
        let mut line = header_line;
        for (element, start) in header.elements() {
            let sub = match element {
                NodeOrToken::Token(t) => {
                    line += usize::from(is_line_break(t));
                    continue;
                }
                NodeOrToken::Node(n) => Node::new(n, start),
            };
            let sub_line = line;
            if sub.kind() == SyntaxKind::Line {
                // A continuation line of the header (`bad-header`).
                line += count_line_breaks(sub);
                continue;
            }
            if !nests_in(sub, Some(0)) {
                line += self.leave_out(sub);
                continue;
            }
            self.keep_line();
            line += count_line_breaks(sub);
            let tag = sub.tag().unwrap_or("");
            if !SERIALISATION_METADATA.contains(&tag) {
                kept.push((sub, sub_line, Mode::Normal));
                continue;
            }
            self.check_metadata_tree(sub, tag);
            if tag != "SCHMA" {
                if let Some((_, first)) = seen.iter().find(|(t, _)| *t == tag) {
                    // R-PARSING-METADATA-04
                    self.report(
                        codes::DUPLICATE_METADATA,
                        Class::NonConformant,
                        format!(
                            "a second {tag} in the header (the first is on line {first}); ignored"
                        ),
                        sub.line().content,
                    );
                    continue;
                }
                seen.push((tag, sub_line));
            }
            match tag {
                "ELF" => self.elf_version(sub),
                "GEDC" => self.gedcom_version(sub),
                "PLANG" => self.default_language(sub),
                "SCHMA" => kept.push((sub, sub_line, Mode::Literal)),
                // R-PARSING-METADATA-05: CHAR was used when the file was decoded.
                _ => self.character_set(sub),
            }
        }
        self.keep_line();
        // Metadata structures and schemas are lowered once the default language is known, in file order. The
        // header's part comes first, so its local ids are the global ones.
        for (sub, line, mode) in kept {
            self.line = line;
            let id = StructureId::new(self.lower_tree(sub, mode, false) as usize);
            self.keep_line();
            match mode {
                Mode::Normal => self.metadata.other.push(id),
                Mode::Literal => self.metadata.schemas.push(id),
            }
        }
    }

    /// R-HEADER-01: no xref, payload or continuation lines on the header. A first line other than `0 HEAD` is
    /// already the syntax layer's `first-line-not-head`.
    fn check_header_line(&mut self, header: Node<'p>) {
        let start = header.start;
        let reported = self
            .parse
            .diagnostics()
            .iter()
            .any(|d| d.code == syntax_codes::FIRST_LINE_NOT_HEAD && d.range.start() == start);
        let line = header.line();
        let has_payload = !line.raw_payload().trim_matches([' ', '\t']).is_empty();
        if !reported && (line.xref.is_some() || has_payload) {
            self.report(
                codes::BAD_HEADER,
                Class::MalformedStructure,
                "the header record must be exactly `0 HEAD`, with no cross-reference identifier or payload"
                    .into(),
                line.content,
            );
        }
        for line in header.continuation_lines() {
            self.report(
                codes::BAD_HEADER,
                Class::MalformedStructure,
                "the header record has no payload to continue".into(),
                line.content,
            );
        }
    }

    /// R-PARSING-METADATA-02: inside serialisation metadata, no xrefs, pointers or continuation lines
    /// (misplaced `HEAD`/`CONT`/`CONC`/`TRLR` structures are the syntax layer's). Malformed lines and
    /// structures that do not nest by level are left out, as everywhere (`left_out.rs`).
    fn check_metadata_tree(&mut self, root: Node<'p>, root_tag: &str) {
        // Pre-order over the structures that nest, each with its level; an explicit stack (invariant 4).
        self.check_metadata_structure(root, root_tag);
        let mut stack = vec![(root.line().rest, 1usize)];
        while let Some((elements, level)) = stack.last_mut() {
            let level = *level;
            let Some((element, start)) = elements.next() else {
                stack.pop();
                continue;
            };
            let Some(node) = element.into_node().map(|n| Node::new(n, start)) else {
                continue;
            };
            if node.kind() == SyntaxKind::Line {
                self.keep_line();
            } else if nests_in(node, Some(level)) {
                self.keep_line();
                self.check_metadata_structure(node, root_tag);
                stack.push((node.line().rest, level.saturating_add(1)));
            } else {
                self.leave_out(node);
            }
        }
    }

    /// One structure of serialisation metadata: its identifier, pointer and continuation lines.
    fn check_metadata_structure(&mut self, s: Node<'p>, root_tag: &str) {
        let line = s.line();
        let tag = line.tag_text();
        let mut problems = Vec::new();
        if line.xref.is_some() {
            problems.push("has a cross-reference identifier");
        }
        if line.pointer.is_some() {
            problems.push("has a pointer payload");
        }
        for problem in problems {
            self.report(
                codes::BAD_METADATA_STRUCTURE,
                Class::NonConformant,
                format!("{tag} in the serialisation metadata structure {root_tag} {problem}"),
                line.content,
            );
        }
        for cont in s.continuation_lines() {
            let cont_tag = cont.tag_text();
            self.report(
                codes::BAD_METADATA_STRUCTURE,
                Class::NonConformant,
                format!(
                    "{cont_tag} line in the serialisation metadata structure {root_tag}: continuation lines \
                     and escapes are not interpreted in serialisation metadata"
                ),
                cont.content,
            );
        }
    }

    /// A version number from a metadata payload (taken literally, R-HEADER-04).
    pub(super) fn version(&mut self, line: &LineInfo<'_>, what: &str) -> Option<Version> {
        let text = line.raw_payload();
        let version = Version::parse(&text);
        if version.is_none() {
            self.report(
                codes::BAD_VERSION_NUMBER,
                Class::NonConformant,
                format!("{what} `{text}` is not a version number (digits.digits or digits.digits.digits)"),
                line.payload_range(),
            );
        }
        version
    }

    /// R-PARSING-METADATA-06, R-SERIALISATION-VERSION-02..04.
    fn elf_version(&mut self, s: Node<'p>) {
        let line = s.line();
        let Some(v) = self.version(&line, "the ELF serialisation version") else {
            return;
        };
        self.metadata.elf_version = Some(v);
        if v.major != 1 {
            self.report(
                codes::UNSUPPORTED_ELF_VERSION,
                Class::NonConformant,
                format!(
                    "ELF version {v} has major version {}; this parser reads ELF 1.x",
                    v.major
                ),
                line.payload_range(),
            );
        } else if v.minor != 0 {
            self.report(
                codes::UNKNOWN_ELF_VERSION,
                Class::Warning,
                format!("unknown ELF version {v}; read as ELF 1.0"),
                line.payload_range(),
            );
        }
    }

    /// The default payload language (`1 PLANG`).
    fn default_language(&mut self, s: Node<'p>) {
        let line = s.line();
        let text = literal_text(&line.raw_payload(), self.finishing);
        if text.is_empty() {
            self.report(
                codes::BAD_LANGUAGE_TAG,
                Class::NonConformant,
                "PLANG has no language tag; ignored".into(),
                line.content,
            );
            return;
        }
        self.default_language.clone_from(&text);
        self.metadata.default_language = Some(text);
    }

    // ----- The second pass (2019 § Second pass) -----
}

/// The substructures of serialisation metadata that the lowering reads: `GEDC.VERS`, `GEDC.FORM` and 5.5.5's
/// `GEDC.FORM.VERS`. `SCHMA` is kept whole, as a schema.
const READ_METADATA: [&str; 3] = ["GEDC.VERS", "GEDC.FORM", "GEDC.FORM.VERS"];

/// What the header's serialisation metadata (`CHAR`, `ELF`, `GEDC`, `PLANG`) holds that the lowering does not
/// read, and so the dataset does not keep (R-PARSING-METADATA-03: ignored, with no diagnostic): each subtree's
/// path and where it starts. A writer of the dataset writes the header anew without it, so a tool that
/// rewrites a file from its dataset says so (found by a helper: `fmt` dropped `2 _CX` under `1 CHAR` without
/// a word).
///
/// ```
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n1 CHAR UTF-8\n2 VERS 1.0\n0 TRLR\n");
/// let left: Vec<_> = gedgraft_model::metadata_not_kept(&parse)
///     .into_iter()
///     .map(|(path, at)| (path, at.line))
///     .collect();
/// assert_eq!(left, [("HEAD.CHAR.VERS".to_string(), 5)]);
/// ```
pub fn metadata_not_kept(parse: &Parse) -> Vec<(String, gedgraft_syntax::Location)> {
    use gedgraft_syntax::ast::{AstToken, Structure};
    let mut left = Vec::new();
    let Some(header) = parse.document().header() else {
        return left;
    };
    let tag = |s: &Structure| s.tag().map_or(String::new(), |t| t.text().to_string());
    // Explicit stack (invariant 4): the structures read, with their paths.
    let mut stack: Vec<(Structure, String)> = (header.substructures())
        .map(|s| (tag(&s), s))
        .filter(|(t, _)| t != "SCHMA" && SERIALISATION_METADATA.contains(&t.as_str()))
        .map(|(t, s)| (s, t))
        .collect();
    while let Some((structure, path)) = stack.pop() {
        for child in structure.substructures() {
            let path = format!("{path}.{}", tag(&child));
            if READ_METADATA.contains(&path.as_str()) {
                stack.push((child, path));
            } else if let Some(line) = child.line() {
                left.push((
                    format!("HEAD.{path}"),
                    parse.locate(line.text_range().start()),
                ));
            }
        }
    }
    left.sort_by_key(|(_, at)| at.offset);
    left
}
