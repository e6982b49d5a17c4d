//! Whole-file edits applied during the rebuild: line-break conversion and transcoding.

use crate::editor::{LineBreak, RawOctets};
use crate::error::{EditError, Warning};
use crate::render::{clusters, payload_tokens, token, writable, write_cluster, Unit, UnitKind};
use crate::splice::{GreenElement, Transform};
use crate::transcode_check::{check_reading, Reversal};
use gedgraft_encoding::{ansel, raw, Encoding, SourceMap};
use gedgraft_syntax::internal::{serialise::LaidLine, text_pieces};
use gedgraft_syntax::{Elf, Parse, SyntaxKind};
use rowan::{GreenNode, GreenNodeData, GreenToken, GreenTokenData, Language, NodeOrToken};
use unicode_normalization::UnicodeNormalization;

/// A requested line-break conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineBreakConversion {
    pub to: LineBreak,
    pub join_lf_cr: bool,
}

/// Line-break conversion as the rebuild meets each old line break.
pub(crate) struct EolState<'p> {
    conversion: LineBreakConversion,
    token: GreenToken,
    octets: usize,
    map: &'p SourceMap,
    /// Where each CR that directly follows an LF starts in the old tree, in order: the CR of an LF CR pair,
    /// whether the LF before it is kept or rewritten by an edit (a transcode's new `HEAD.CHAR` line).
    cr_after_lf: Vec<u32>,
    /// Changes in the old file's octets: (start, end, new length).
    pub changes: Vec<(usize, usize, usize)>,
    /// How many LF CR pairs were written as two breaks.
    pub lf_cr: usize,
}

impl<'p> EolState<'p> {
    pub(crate) fn new(conversion: LineBreakConversion, parse: &'p Parse) -> EolState<'p> {
        let text = conversion.to.as_str();
        let mut out = Vec::new();
        let octets = match parse.encoding().encode(text, &mut out) {
            Ok(()) => out.len(),
            Err(_) => text.len(),
        };
        EolState {
            conversion,
            token: token(SyntaxKind::LineBreak, text),
            octets,
            map: parse.source_map(),
            cr_after_lf: cr_after_lf(parse.green()),
            changes: Vec::new(),
            lf_cr: 0,
        }
    }

    fn line_break(&mut self, t: &GreenTokenData, offset: u32, out: &mut Vec<GreenElement>) {
        let end = offset + u32::from(t.text_len());
        let file = |o: u32| self.map.file_offset(o as usize);
        if t.text() == "\r" && self.cr_after_lf.binary_search(&offset).is_ok() {
            if self.conversion.join_lf_cr {
                self.changes.push((file(offset), file(end), 0));
                return;
            }
            self.lf_cr += 1;
        }
        if t.text() == self.conversion.to.as_str() {
            out.push(NodeOrToken::Token(t.to_owned()));
        } else {
            self.changes.push((file(offset), file(end), self.octets));
            out.push(NodeOrToken::Token(self.token.clone()));
        }
    }
}

/// Where each line-break CR that directly follows a line-break LF starts, in order.
fn cr_after_lf(root: &GreenNodeData) -> Vec<u32> {
    let mut out = Vec::new();
    let mut at = 0u32;
    let mut lf_end = None;
    for t in gedgraft_syntax::internal::green_tokens(root) {
        let line_break = t.kind() == SyntaxKind::LineBreak.into();
        if line_break && t.text() == "\r" && lf_end == Some(at) {
            out.push(at);
        }
        at += u32::from(t.text_len());
        lf_end = (line_break && t.text() == "\n").then_some(at);
    }
    out
}

/// Everything the rebuild does to the whole file.
pub(crate) struct FileTransform<'p> {
    pub eol: Option<EolState<'p>>,
    pub transcode: Option<Transcoder>,
    pub drop_bom: bool,
}

impl Transform for FileTransform<'_> {
    fn token(&mut self, t: &GreenTokenData, offset: u32, out: &mut Vec<GreenElement>) {
        let kind = t.kind();
        if kind == SyntaxKind::Bom.into() && self.drop_bom {
            return;
        }
        match &mut self.eol {
            Some(eol) if kind == SyntaxKind::LineBreak.into() => eol.line_break(t, offset, out),
            _ => out.push(NodeOrToken::Token(t.to_owned())),
        }
    }

    fn node(
        &mut self,
        kind: rowan::SyntaxKind,
        children: &mut Vec<GreenElement>,
    ) -> Result<(), EditError> {
        if let Some(t) = &self.transcode {
            t.convert_node(kind, children);
        }
        Ok(())
    }
}

/// Replaces the line breaks in new elements (new lines made before a conversion was asked for).
pub(crate) fn convert_breaks(elements: &mut [GreenElement], to: LineBreak) {
    let new = token(SyntaxKind::LineBreak, to.as_str());
    let convert = |t: &GreenTokenData| {
        (t.kind() == SyntaxKind::LineBreak.into() && t.text() != to.as_str()).then(|| new.clone())
    };
    for e in elements.iter_mut() {
        match e {
            NodeOrToken::Token(t) => {
                if let Some(n) = convert(t) {
                    *t = n;
                }
            }
            NodeOrToken::Node(n) => *n = map_tokens(n, &convert),
        }
    }
}

/// A copy of a (new, shallow or deep) green node with some tokens replaced; iterative.
pub(crate) fn map_tokens(
    node: &GreenNodeData,
    f: &impl Fn(&GreenTokenData) -> Option<GreenToken>,
) -> GreenNode {
    struct Frame<'a> {
        kind: rowan::SyntaxKind,
        children: rowan::Children<'a>,
        out: Vec<GreenElement>,
    }
    let mut stack = vec![Frame {
        kind: node.kind(),
        children: node.children(),
        out: Vec::new(),
    }];
    loop {
        let Some(top) = stack.last_mut() else {
            return node.to_owned();
        };
        match top.children.next() {
            Some(NodeOrToken::Token(t)) => top
                .out
                .push(NodeOrToken::Token(f(t).unwrap_or_else(|| t.to_owned()))),
            Some(NodeOrToken::Node(n)) => stack.push(Frame {
                kind: n.kind(),
                children: n.children(),
                out: Vec::new(),
            }),
            None => {
                let Some(done) = stack.pop() else {
                    return node.to_owned();
                };
                let built = GreenNode::new(done.kind, done.out);
                match stack.last_mut() {
                    Some(parent) => parent.out.push(NodeOrToken::Node(built)),
                    None => return built,
                }
            }
        }
    }
}

/// Converting the tree's text from one encoding to another.
pub(crate) struct Transcoder {
    from: Encoding,
    to: Encoding,
    /// Nothing to do: the same encoding, and raw octets are to stay.
    identity: bool,
    /// What would not come back by a transcode back.
    reversal: Reversal,
    /// The text after the trailer, copied as it is (its line and octets), when it does not read the same in
    /// `to`: none of it is ASCII, or one encoding is UTF-16 and the other not.
    junk: Option<(usize, usize)>,
    /// How many characters of payloads were written as new Unicode escapes (`to` lacks them).
    escaped: std::cell::Cell<usize>,
}

impl Transcoder {
    /// Checks that the file's reading is not in doubt and that the whole file can be transcoded (one walk), then
    /// gives the converter.
    pub(crate) fn new(
        parse: &Parse,
        to: Encoding,
        policy: RawOctets,
    ) -> Result<Transcoder, EditError> {
        check_reading(parse)?;
        let from = parse.encoding();
        let identity = from == to && policy == RawOctets::Refuse;
        let mut t = Transcoder {
            from,
            to,
            identity,
            reversal: Reversal::default(),
            junk: None,
            escaped: std::cell::Cell::new(0),
        };
        if identity {
            return Ok(t);
        }
        let mut error = None;
        let (junk, text) = junk_after_trailer(parse.green());
        // ASCII reads alike in the encodings that write it as it is (not UTF-16 LE against BE).
        let alike = from == to
            || (text.is_ascii() && from.is_ascii_compatible() && to.is_ascii_compatible());
        if !text.is_empty() && !alike {
            let mut octets = Vec::new();
            let octets = match from.encode(&text, &mut octets) {
                Ok(_) => octets.len(),
                Err(_) => text.len(),
            };
            t.junk = Some((parse.locate(junk.into()).line, octets));
        }
        walk_tokens(parse.green(), |kind, text, offset| {
            // Junk after the trailer is copied octet for octet (see `copy_junk`).
            if error.is_some() || offset >= junk {
                return;
            }
            let line = || parse.locate(offset.into()).line;
            let unencodable = |character, place| EditError::Unencodable {
                character,
                encoding: to,
                line: line(),
                place,
            };
            match kind {
                SyntaxKind::Raw => {
                    let octets = raw::octets_of(text);
                    let has_char = from == Encoding::Ansel
                        && octets.iter().all(|&o| ansel::RAW_KEPT.contains(&o));
                    if has_char {
                        t.reversal.ansel_raw(&octets);
                    }
                    if !has_char && policy == RawOctets::Refuse {
                        error = Some(EditError::RawOctets {
                            line: line(),
                            octets,
                            encoding: from,
                        });
                    }
                }
                SyntaxKind::Xref | SyntaxKind::Pointer | SyntaxKind::Escape => {
                    if let Some(c) = text.chars().find(|&c| !writable(c, to)) {
                        let place = match kind {
                            SyntaxKind::Xref => "a cross-reference identifier",
                            SyntaxKind::Pointer => "a pointer",
                            _ => "an escape sequence",
                        };
                        error = Some(unencodable(c, place));
                    }
                }
                SyntaxKind::ErrorText => {
                    if let Err(c) = t.plain(text) {
                        error = Some(unencodable(c, "a malformed line"));
                    }
                }
                _ => {}
            }
        });
        match error {
            Some(e) => Err(e),
            None => Ok(t),
        }
    }

    /// The warning for octets a transcode back would not restore, if there are any.
    pub(crate) fn reversal_warning(&self) -> Option<Warning> {
        self.reversal.warning(self.from, self.to)
    }

    /// How many new Unicode escapes the transcode wrote (for characters of payloads `to` lacks): the only
    /// escapes it makes, every other character being written as itself or refused.
    pub(crate) fn escapes_written(&self) -> usize {
        self.escaped.get()
    }

    /// The warning for text after the trailer that is copied as it is and reads otherwise in the new encoding.
    pub(crate) fn junk_warning(&self) -> Option<Warning> {
        let (line, octets) = self.junk?;
        Some(Warning::AfterTrailerNotTranscoded {
            line,
            octets,
            from: self.from,
        })
    }

    /// Text outside payloads in the target encoding: Unicode order, decomposed where that helps, raw octets
    /// replaced; `Err` names a character the target cannot write.
    fn plain(&self, text: &str) -> Result<String, char> {
        let logical = self.logical(text, false);
        let mut out = String::new();
        for cluster in clusters(&logical) {
            match write_cluster(cluster, self.to) {
                (UnitKind::Text, s) => out.push_str(&s),
                _ => {
                    let decomposed: String = cluster.nfd().collect();
                    let bad = decomposed
                        .chars()
                        .find(|&c| !writable(c, self.to))
                        .unwrap_or('\u{FFFD}');
                    return Err(bad);
                }
            }
        }
        Ok(out)
    }

    /// The Unicode text of tree text in the source encoding: ANSEL order undone, raw octets that have a character
    /// (ANSEL's irreversible ones) converted, other raw octets replaced by U+FFFD (outside payloads `#` where the
    /// target cannot write U+FFFD; in a payload it becomes `@#UFFFD@`, as [`RawOctets::Replace`] says; a refused
    /// raw octet never gets here).
    fn logical(&self, text: &str, in_payload: bool) -> String {
        let unicode = if self.from == Encoding::Ansel {
            ansel::to_unicode_order(text)
        } else {
            text.to_string()
        };
        let replacement = if in_payload || writable('\u{FFFD}', self.to) {
            '\u{FFFD}'
        } else {
            '#'
        };
        unicode
            .chars()
            .map(|c| if raw::is_raw(c) { replacement } else { c })
            .collect()
    }

    /// Converts a structure's first line (its first `line_len` children) and, when ANSEL is involved, the
    /// continuation lines right after it, together (a diacritic and its letter may be split across them),
    /// into `out`; the continuation lines leave `children`.
    fn convert_first_lines(
        &self,
        children: &mut Vec<GreenElement>,
        line_len: usize,
        ansel: bool,
        out: &mut Vec<GreenElement>,
    ) {
        let line: Vec<GreenToken> = children[..line_len]
            .iter()
            .filter_map(|c| c.as_token().cloned())
            .collect();
        // The continuation lines right after the first line, still in the source encoding.
        let continuations = if ansel {
            children[line_len..]
                .iter()
                .take_while(|c| c.kind() == SyntaxKind::Line.into())
                .count()
        } else {
            0
        };
        let mut lines = vec![line];
        lines.extend(
            children[line_len..line_len + continuations]
                .iter()
                .map(|c| {
                    c.as_node()
                        .map(|n| {
                            n.children()
                                .filter_map(|t| t.into_token().map(|t| t.to_owned()))
                                .collect()
                        })
                        .unwrap_or_default()
                }),
        );
        if self.from == Encoding::Ansel {
            let moved = move_dangling_diacritics(&mut lines);
            if self.to != Encoding::Ansel {
                self.reversal.moved_marks(moved);
            }
        } else {
            move_leading_marks(&mut lines);
        }
        let mut lines = lines.into_iter().map(|line| self.convert_line(line));
        if let Some(first) = lines.next() {
            out.extend(first.into_iter().map(NodeOrToken::Token));
        }
        for (line, old) in lines.zip(&children[line_len..line_len + continuations]) {
            let tokens = line.into_iter().map(NodeOrToken::Token);
            out.push(NodeOrToken::Node(GreenNode::new(old.kind(), tokens)));
        }
        children.drain(line_len..line_len + continuations);
    }

    /// Converts the children of one rebuilt node.
    fn convert_node(&self, kind: rowan::SyntaxKind, children: &mut Vec<GreenElement>) {
        if self.identity {
            return;
        }
        // From ANSEL, continuation lines are converted with the line they continue (see
        // `move_dangling_diacritics`), by their parent.
        // To ANSEL, likewise: combining marks that start a `CONC` line belong to the letter that ends the line
        // before (see `move_leading_marks`).
        let ansel = self.from == Encoding::Ansel || self.to == Encoding::Ansel;
        if ansel && kind == SyntaxKind::Line.into() {
            return;
        }
        let line_len = first_line_len(kind, children);
        let mut out: Vec<GreenElement> = Vec::with_capacity(children.len());
        if line_len > 0 {
            self.convert_first_lines(children, line_len, ansel, &mut out);
        }
        // Everything else: nodes as they are, runs of text tokens (malformed lines, trailing text) converted.
        let mut run: Option<(rowan::SyntaxKind, String)> = None;
        let junk = kind == SyntaxKind::Document.into();
        let flush = |run: &mut Option<(rowan::SyntaxKind, String)>, out: &mut Vec<GreenElement>| {
            if let Some((k, text)) = run.take() {
                if junk {
                    out.push(NodeOrToken::Token(self.copy_junk(&text)));
                    return;
                }
                let converted = self.plain(&text).unwrap_or(text);
                out.push(NodeOrToken::Token(GreenToken::new(k, &converted)));
            }
        };
        for c in children.drain(..).skip(line_len) {
            let text_kind = match &c {
                NodeOrToken::Token(t)
                    if t.kind() == SyntaxKind::ErrorText.into()
                        || t.kind() == SyntaxKind::TrailingText.into() =>
                {
                    Some(t.kind())
                }
                NodeOrToken::Token(t) if t.kind() == SyntaxKind::Raw.into() => {
                    let in_error = kind == SyntaxKind::Error.into();
                    Some(if in_error {
                        SyntaxKind::ErrorText.into()
                    } else {
                        SyntaxKind::TrailingText.into()
                    })
                }
                _ => None,
            };
            match (text_kind, &c) {
                (Some(k), NodeOrToken::Token(t)) => match &mut run {
                    Some((_, text)) => text.push_str(t.text()),
                    None => run = Some((k, t.text().to_string())),
                },
                _ => {
                    flush(&mut run, &mut out);
                    out.push(c);
                }
            }
        }
        flush(&mut run, &mut out);
        *children = out;
    }

    /// The token of junk after the trailer (the document's trailing `TRAILING_TEXT` and `RAW` tokens) in the
    /// new file: it is not text of the file, so its octets are copied as they are, and the token is what the
    /// new file's decoding makes of them (text where `to` reads them, raw characters elsewhere), as a re-parse
    /// would.
    fn copy_junk(&self, text: &str) -> GreenToken {
        let mut octets = Vec::new();
        if self.from.encode(text, &mut octets).is_err() {
            return token(SyntaxKind::TrailingText, text);
        }
        // One token, raw octets kept inside it, as the parser makes trailing text.
        let decoded = self.to.decode(&octets).text;
        token(SyntaxKind::TrailingText, &decoded)
    }

    /// Converts one well-formed line's tokens.
    fn convert_line(&self, line: Vec<GreenToken>) -> Vec<GreenToken> {
        let Some(sep) = line
            .iter()
            .position(|t| t.kind() == SyntaxKind::PayloadSep.into())
        else {
            return line;
        };
        let end = line
            .iter()
            .position(|t| t.kind() == SyntaxKind::LineBreak.into())
            .unwrap_or(line.len());
        let payload = &line[sep + 1..end];
        if payload
            .iter()
            .any(|t| t.kind() == SyntaxKind::Pointer.into())
        {
            return line;
        }
        let mut units: Vec<Unit> = Vec::new();
        let mut run = String::new();
        let mut escaped = false;
        let mut flush = |run: &mut String, units: &mut Vec<Unit>| {
            if run.is_empty() {
                return;
            }
            let logical = self.logical(run, true);
            for cluster in clusters(&logical) {
                let (kind, text) = write_cluster(cluster, self.to);
                escaped |= kind == UnitKind::Escape;
                self.escaped
                    .set(self.escaped.get() + usize::from(kind == UnitKind::Escape));
                if kind == UnitKind::Text {
                    self.reversal.cluster(cluster, &text, self.from, self.to);
                }
                // Text merges into the text before it: a line of a million characters is not a unit each (#12).
                units.push_piece(Unit {
                    kind,
                    text,
                    octets: 0,
                    glued: false,
                });
            }
            run.clear();
        };
        let unit = |kind, text: &str| Unit {
            kind,
            text: text.into(),
            octets: 0,
            glued: false,
        };
        for t in payload {
            let k = t.kind();
            if k == SyntaxKind::Text.into() {
                // A `@@` and a bare `@` are units of their own, the text around them one run.
                for piece in text_pieces(t.text()) {
                    let Some(kind) = UnitKind::of_at_sign(piece) else {
                        run.push_str(piece);
                        continue;
                    };
                    flush(&mut run, &mut units);
                    units.push(unit(kind, piece));
                }
                continue;
            }
            if k == SyntaxKind::Raw.into() {
                run.push_str(t.text());
                continue;
            }
            flush(&mut run, &mut units);
            units.push(unit(UnitKind::Escape, t.text()));
        }
        flush(&mut run, &mut units);
        if escaped {
            for u in &mut units {
                if u.kind == UnitKind::AtSign {
                    u.kind = UnitKind::EscapedAt;
                    u.text = "@@".into();
                }
            }
        }
        let mut out: Vec<GreenToken> = line[..=sep].to_vec();
        out.extend(payload_tokens(units));
        out.extend(line[end..].iter().cloned());
        out
    }
}

/// Moves ANSEL diacritics that end a line to the start of the next line's payload when that line is a `CONC`
/// continuation. In ANSEL a diacritic comes before the letter it marks, and a `CONC` line's text joins the one
/// before it with nothing between, so a diacritic written last on a line marks the first letter of the next
/// (as in gedcom4j's `issue81.ged`: `arr` + circumflex, then `CONC ete`). Lines are converted one by one, so
/// the diacritic has to travel with its letter first. `lines` are a structure's first line and the
/// continuation lines right after it, as token lists in the source (ANSEL) order. Gives how many diacritics
/// moved: a transcode back to ANSEL writes them before their letter, at the start of the `CONC` line.
fn move_dangling_diacritics(lines: &mut [Vec<GreenToken>]) -> usize {
    let mut moved_marks = 0;
    for i in 1..lines.len() {
        let Some((last, first)) = conc_seam(lines, i) else {
            continue;
        };
        // This line's payload ends with text that ends with diacritics.
        let text = lines[i - 1][last].text();
        let keep = text.trim_end_matches(|c| ansel::stacking(c).is_some());
        if keep.len() == text.len() {
            continue;
        }
        let marks = &text[keep.len()..];
        moved_marks += marks.chars().count();
        let moved = format!("{marks}{}", lines[i][first].text());
        let keep = keep.to_string();
        lines[i][first] = token(SyntaxKind::Text, &moved);
        if keep.is_empty() {
            // Diacritics alone (`1 NAME` + acute, then `CONC e`): the text goes, and the separator before it
            // when nothing else is left of the payload; the line stays, with no payload (found by a helper:
            // left there, the mark was converted on its own, before the letter).
            let line = &mut lines[i - 1];
            line.remove(last);
            if last > 0 && line[last - 1].kind() == SyntaxKind::PayloadSep.into() {
                line.remove(last - 1);
            }
        } else {
            lines[i - 1][last] = token(SyntaxKind::Text, &keep);
        }
    }
    moved_marks
}

/// Moves combining marks that start a `CONC` line's payload (Unicode order: they mark the letter that ends the
/// line before) to the end of the line before, when transcoding to ANSEL: ANSEL writes a mark *before* its
/// letter, so left where it is the mark would land on the next line's first letter. The mirror of
/// `move_dangling_diacritics`; `lines` are a structure's first line and its continuation lines.
fn move_leading_marks(lines: &mut [Vec<GreenToken>]) {
    for i in 1..lines.len() {
        let Some((last, first)) = conc_seam(lines, i) else {
            continue;
        };
        let text = lines[i][first].text();
        let rest = text.trim_start_matches(unicode_normalization::char::is_combining_mark);
        if rest.len() == text.len() || rest.is_empty() {
            continue;
        }
        let moved = format!(
            "{}{}",
            lines[i - 1][last].text(),
            &text[..text.len() - rest.len()]
        );
        lines[i][first] = token(SyntaxKind::Text, rest);
        lines[i - 1][last] = token(SyntaxKind::Text, &moved);
    }
}

/// Where line `i`, a `CONC` line, joins the line before: the index of the text token that ends line `i - 1`'s
/// payload and of the text token that starts line `i`'s payload. `None` if line `i` is not a `CONC` line or
/// either side is not text at the seam.
fn conc_seam(lines: &[Vec<GreenToken>], i: usize) -> Option<(usize, usize)> {
    let is_text = |t: &GreenToken| t.kind() == SyntaxKind::Text.into();
    let line = lines.get(i)?;
    let before = lines.get(i.checked_sub(1)?)?;
    let is_conc = line
        .iter()
        .any(|t| t.kind() == SyntaxKind::Tag.into() && t.text() == "CONC");
    if !is_conc {
        return None;
    }
    let first = line
        .iter()
        .position(|t| t.kind() == SyntaxKind::PayloadSep.into())
        .map(|sep| sep + 1)
        .filter(|&f| line.get(f).is_some_and(is_text))?;
    let last = before
        .iter()
        .rposition(|t| t.kind() != SyntaxKind::LineBreak.into())
        .filter(|&l| is_text(&before[l]))?;
    Some((last, first))
}

/// The junk after the trailer: where it starts (the offset of the run of `TRAILING_TEXT` and `RAW` tokens that
/// ends the document; its length if there is none), and its text.
fn junk_after_trailer(root: &GreenNodeData) -> (u32, String) {
    let mut at = 0u32;
    let mut run: Option<(u32, String)> = None;
    for child in root.children() {
        let junk = child.as_token().filter(|t| {
            t.kind() == SyntaxKind::TrailingText.into() || t.kind() == SyntaxKind::Raw.into()
        });
        run = match junk {
            Some(t) => {
                let (start, mut text) = run.unwrap_or((at, String::new()));
                text.push_str(t.text());
                Some((start, text))
            }
            None => None,
        };
        at += u32::from(child.text_len());
    }
    run.unwrap_or((at, String::new()))
}

/// Visits every token of a green tree with its kind, text and offset.
fn walk_tokens(root: &GreenNodeData, mut f: impl FnMut(SyntaxKind, &str, u32)) {
    let mut at = 0u32;
    for t in gedgraft_syntax::internal::green_tokens(root) {
        let kind = Elf::kind_from_raw(t.kind());
        f(kind, t.text(), at);
        at += u32::from(t.text_len());
    }
}

/// How many children of a node of `kind` make its first line (tokens up to its line break): none for a node
/// that does not start with a line.
fn first_line_len(kind: rowan::SyntaxKind, children: &[GreenElement]) -> usize {
    let first_line_node = kind == SyntaxKind::Record.into()
        || kind == SyntaxKind::Structure.into()
        || kind == SyntaxKind::Line.into();
    if first_line_node {
        let mut n = 0;
        for c in children.iter() {
            let NodeOrToken::Token(t) = c else { break };
            n += 1;
            if t.kind() == SyntaxKind::LineBreak.into() {
                break;
            }
        }
        n
    } else {
        0
    }
}
