//! Splitting one line string into tokens (2019 § Parsing lines).
//!
//! The lexer sees one line at a time, without its line break. Every character lands in exactly one token;
//! a line that does not match `Line ::= Number S (XRefLabel S)? Tag (PayloadSep Payload)?` becomes
//! `ERROR_TEXT` (and `RAW`) tokens after its leading whitespace, with the reason in [`LineShape::Malformed`].

use crate::codes;
use crate::kind::SyntaxKind;
use crate::lexical::{describe_char, is_id_char, is_tag_octet};
use crate::lexical::{read_level, BadLevel, MAX_LEVEL};
use gedgraft_encoding::raw;

/// A token of a line: its kind and the offset where it ends, relative to the line start.
pub(crate) type LineToken = (SyntaxKind, usize);

/// What a line turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineShape {
    /// Empty, or spaces and tabs only.
    Blank,
    /// A well-formed line.
    Line(LineFacts),
    /// A line that does not match the `Line` production.
    Malformed {
        /// The level, if the line starts with a valid one.
        level: Option<usize>,
        /// The diagnostic code.
        code: &'static str,
        /// What is wrong.
        message: String,
        /// Where the problem is, relative to the line start.
        at: usize,
    },
}

/// The facts about a well-formed line that the parser needs to place it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LineFacts {
    pub level: usize,
    pub has_xref: bool,
    pub tag_start: usize,
    pub tag_end: usize,
    /// Where the payload starts (after the separator), if the line has a separator.
    pub payload_start: Option<usize>,
    /// Unterminated escapes (`@#` with no closing `@`), relative to the line start.
    pub unterminated_escapes: Vec<usize>,
    /// Escapes whose type is not an upper-case letter, relative to the line start.
    pub bad_escapes: Vec<usize>,
    /// The first bare `@` of the payload (neither `@@`, nor part of an escape, nor the `@` of an unterminated
    /// `@#`), relative to the line start, and how many there are: they are part of `TEXT` tokens.
    pub first_bare_at: Option<usize>,
    pub bare_ats: usize,
    /// Whether the payload is a pointer.
    pub pointer_payload: bool,
}

/// The payload tokens the lexer makes of `text` written after a payload separator, as (kind, end offset in
/// `text`) pairs: what a new payload must be spliced as so that the written file parses back to the same tree.
///
/// ```
/// use gedgraft_syntax::{internal::lex_payload_text, SyntaxKind};
/// assert_eq!(
///     lex_payload_text("@@me a@b"),
///     [(SyntaxKind::Text, 8)]
/// );
/// ```
pub fn lex_payload_text(text: &str) -> Vec<(SyntaxKind, usize)> {
    let mut out = Vec::new();
    lex_payload(text, 0, &mut out, &mut LineFacts::default());
    out
}

/// Tokenises `line` into `out` (cleared first) and says what shape the line has.
pub(crate) fn lex_line(line: &str, out: &mut Vec<LineToken>) -> LineShape {
    out.clear();
    let bytes = line.as_bytes();
    let mut pos = skip_blanks(bytes, 0);
    if pos > 0 {
        out.push((SyntaxKind::Whitespace, pos));
    }
    if pos == bytes.len() {
        return LineShape::Blank;
    }
    let content_start = pos;
    match lex_fields(line, pos, out) {
        Ok(facts) => LineShape::Line(facts),
        Err(mut malformed) => {
            out.truncate(usize::from(content_start > 0));
            pos = content_start;
            push_split_raw(line, pos, bytes.len(), SyntaxKind::ErrorText, out);
            if let LineShape::Malformed { at, .. } = &mut malformed {
                *at = (*at).min(bytes.len());
            }
            malformed
        }
    }
}

fn malformed(
    level: Option<usize>,
    code: &'static str,
    message: impl Into<String>,
    at: usize,
) -> LineShape {
    LineShape::Malformed {
        level,
        code,
        message: message.into(),
        at,
    }
}

fn skip_blanks(bytes: &[u8], mut pos: usize) -> usize {
    while pos < bytes.len() && (bytes[pos] == b' ' || bytes[pos] == b'\t') {
        pos += 1;
    }
    pos
}

/// Lexes level, delimiters, xref, tag and payload; on failure the caller re-tokenises the line as an error.
fn lex_fields(line: &str, start: usize, out: &mut Vec<LineToken>) -> Result<LineFacts, LineShape> {
    let bytes = line.as_bytes();
    let (level, mut pos) = lex_level(line, start, out)?;
    let has_xref = bytes.get(pos) == Some(&b'@');
    if has_xref {
        pos = lex_xref(line, pos, level, out)?;
    }
    let (tag_start, mut pos) = lex_tag(line, pos, level)?;
    let tag_end = pos;
    out.push((SyntaxKind::Tag, pos));
    let mut facts = LineFacts {
        level,
        has_xref,
        tag_start,
        tag_end,
        payload_start: None,
        unterminated_escapes: Vec::new(),
        bad_escapes: Vec::new(),
        first_bare_at: None,
        bare_ats: 0,
        pointer_payload: false,
    };
    if pos == bytes.len() {
        return Ok(facts);
    }
    // Exactly one separator; everything after it is payload (R-LINES-08).
    pos += 1;
    out.push((SyntaxKind::PayloadSep, pos));
    facts.payload_start = Some(pos);
    lex_payload(line, pos, out, &mut facts);
    Ok(facts)
}

/// Lexes the level and the delimiter after it (R-LINES-03): the level and where the next field starts, which
/// is inside the line.
fn lex_level(
    line: &str,
    start: usize,
    out: &mut Vec<LineToken>,
) -> Result<(usize, usize), LineShape> {
    let bytes = line.as_bytes();
    // Level: "0" | [1-9][0-9]* (R-LINES-03).
    let mut pos = start;
    while pos < bytes.len() && bytes[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos == start {
        return Err(malformed(
            None,
            codes::BAD_LEVEL,
            "the line does not start with a level number",
            start,
        ));
    }
    let digits = &line[start..pos];
    let level = match read_level(digits) {
        Ok(level) => level,
        Err(BadLevel::LeadingZero) => {
            return Err(malformed(
                None,
                codes::BAD_LEVEL,
                format!("level `{digits}` has a leading zero"),
                start,
            ))
        }
        Err(BadLevel::OutOfRange) => {
            return Err(malformed(
                None,
                codes::LEVEL_OUT_OF_RANGE,
                format!("level `{digits}` is out of range: levels go up to {MAX_LEVEL}"),
                start,
            ))
        }
        Err(BadLevel::NotANumber) => {
            return Err(malformed(
                None,
                codes::BAD_LEVEL,
                "the line does not start with a level number",
                start,
            ))
        }
    };
    out.push((SyntaxKind::Level, pos));
    let after_level = pos;
    pos = skip_blanks(bytes, pos);
    if pos == after_level {
        return Err(match bytes.get(pos) {
            None => malformed(
                Some(level),
                codes::BAD_TAG,
                "the line has a level but no tag",
                pos,
            ),
            Some(b'@') => malformed(
                Some(level),
                codes::MISSING_DELIMITER,
                "a space or tab must separate the level from the cross-reference identifier",
                pos,
            ),
            Some(_) => {
                let end = line[start..]
                    .find([' ', '\t'])
                    .map_or(line.len(), |e| start + e);
                malformed(
                    None,
                    codes::BAD_LEVEL,
                    format!("`{}` is not a level number", &line[start..end]),
                    start,
                )
            }
        });
    }
    out.push((SyntaxKind::Delimiter, pos));
    if pos == bytes.len() {
        return Err(malformed(
            Some(level),
            codes::BAD_TAG,
            "the line has a level but no tag",
            pos,
        ));
    }
    Ok((level, pos))
}

/// Lexes a cross-reference label at `pos` (an `@`) and the delimiter after it (R-XREF-IDS-01): where the tag
/// starts.
fn lex_xref(
    line: &str,
    mut pos: usize,
    level: usize,
    out: &mut Vec<LineToken>,
) -> Result<usize, LineShape> {
    let bytes = line.as_bytes();
    let xref_start = pos;
    let Some(close) = line[pos + 1..].find('@').map(|i| pos + 1 + i) else {
        return Err(malformed(
            Some(level),
            codes::BAD_XREF,
            "the cross-reference identifier has no closing `@`",
            pos,
        ));
    };
    let id = &line[pos + 1..close];
    if id.is_empty() {
        return Err(malformed(
            Some(level),
            codes::BAD_XREF,
            "the cross-reference identifier `@@` is empty",
            pos,
        ));
    }
    if let Some((i, c)) = id.char_indices().find(|&(_, c)| !is_id_char(c)) {
        return Err(malformed(
            Some(level),
            codes::BAD_XREF,
            format!(
                "{} is not allowed in a cross-reference identifier",
                describe_char(c)
            ),
            pos + 1 + i,
        ));
    }
    pos = close + 1;
    out.push((SyntaxKind::Xref, pos));
    let after_xref = pos;
    pos = skip_blanks(bytes, pos);
    if pos == bytes.len() {
        return Err(malformed(
            Some(level),
            codes::BAD_TAG,
            "the line has no tag after its cross-reference identifier",
            pos,
        ));
    }
    if pos == after_xref {
        return Err(malformed(
            Some(level),
            codes::MISSING_DELIMITER,
            "a space or tab must separate the cross-reference identifier from the tag",
            pos,
        ));
    }
    out.push((SyntaxKind::Delimiter, pos));
    debug_assert!(xref_start < pos);
    Ok(pos)
}

/// Finds the tag at `pos` (R-TAGS-01): where it starts and ends (a space, a tab or the end of the line).
fn lex_tag(line: &str, mut pos: usize, level: usize) -> Result<(usize, usize), LineShape> {
    let bytes = line.as_bytes();
    // Tag (R-TAGS-01).
    let tag_start = pos;
    while pos < bytes.len() && is_tag_octet(bytes[pos]) {
        pos += 1;
    }
    if tag_start == pos {
        let c = line[pos..].chars().next().unwrap_or(' ');
        return Err(malformed(
            Some(level),
            codes::BAD_TAG,
            format!("a tag cannot start with {}", describe_char(c)),
            pos,
        ));
    }
    if pos < bytes.len() && bytes[pos] != b' ' && bytes[pos] != b'\t' {
        let c = line[pos..].chars().next().unwrap_or(' ');
        return Err(malformed(
            Some(level),
            codes::BAD_TAG,
            format!("{} is not allowed in a tag", describe_char(c)),
            pos,
        ));
    }
    Ok((tag_start, pos))
}

/// Lexes a payload: a pointer (with optional surrounding whitespace) or string pieces.
fn lex_payload(line: &str, start: usize, out: &mut Vec<LineToken>, facts: &mut LineFacts) {
    let bytes = line.as_bytes();
    if start == bytes.len() {
        return;
    }
    if let Some((p_start, p_end)) = pointer_span(bytes, start) {
        if p_start > start {
            out.push((SyntaxKind::Delimiter, p_start));
        }
        out.push((SyntaxKind::Pointer, p_end));
        facts.pointer_payload = true;
        if p_end < bytes.len() {
            out.push((SyntaxKind::Delimiter, bytes.len()));
        }
        return;
    }
    let mut pos = start;
    let mut text_start = start;
    while let Some(i) = memchr::memchr2(b'@', 0xF4, &bytes[pos..]).map(|i| pos + i) {
        let (kind, end) = if bytes[i] == b'@' {
            match bytes.get(i + 1) {
                Some(b'@') => {
                    // An escaped at sign, `@@` (R-IDENTIFY-ESCS-02): part of the text too, read by whoever reads
                    // the text (#12: a line of `x@@x@@…` was two tokens per three octets).
                    pos = i + 2;
                    continue;
                }
                Some(b'#') => match escape_end(bytes, i) {
                    Some(end) => {
                        if !bytes.get(i + 2).is_some_and(u8::is_ascii_uppercase) {
                            facts.bad_escapes.push(i);
                        }
                        (SyntaxKind::Escape, end)
                    }
                    None => {
                        // Read as a literal `@`, part of the text; reported as an unterminated escape.
                        facts.unterminated_escapes.push(i);
                        pos = i + 1;
                        continue;
                    }
                },
                _ => {
                    // A bare `@`: read as a literal `@`, part of the text (R-ESCAPING-04); one token for a run
                    // of text and bare `@`s, not a token per `@` (#12: a line of `x@x@…` was a token per octet).
                    facts.first_bare_at.get_or_insert(i);
                    facts.bare_ats += 1;
                    pos = i + 1;
                    continue;
                }
            }
        } else if raw::starts_with_raw(bytes, i) {
            let mut end = i;
            while raw::starts_with_raw(bytes, end) {
                end += raw::RAW_UTF8_LEN;
            }
            (SyntaxKind::Raw, end)
        } else {
            pos = i + 1;
            continue;
        };
        if i > text_start {
            out.push((SyntaxKind::Text, i));
        }
        out.push((kind, end));
        pos = end;
        text_start = end;
    }
    if text_start < bytes.len() {
        out.push((SyntaxKind::Text, bytes.len()));
    }
}

/// The end of an escape sequence starting with `@#` at `at`: the offset after the next `@`, if one follows
/// with no raw octet in between (R-IDENTIFY-ESCS-03).
fn escape_end(bytes: &[u8], at: usize) -> Option<usize> {
    let close = memchr::memchr2(b'@', 0xF4, &bytes[at + 2..]).map(|i| at + 2 + i)?;
    (bytes[close] == b'@').then_some(close + 1)
}

/// The pieces of a `TEXT` token's text, as the lexer identified them (R-IDENTIFY-ESCS-01, -02): each escaped at
/// sign `@@`, each bare `@` (read as a literal `@`, R-IDENTIFY-ESCS-05), and the runs of text between them.
/// Every `@` of a `TEXT` token is one or the other (escapes are tokens of their own), taken from left to
/// right: `@@@` is `@@` then a bare `@`. What the 2019 draft's tokenisation vectors show (R-IDENTIFY-ESCS-06),
/// and how the lowering, the re-wrap, the transcoder and the repairs read the `@`s of a text.
///
/// ```
/// use gedgraft_syntax::internal::text_pieces;
/// assert_eq!(text_pieces("me@x@@@").collect::<Vec<_>>(), ["me", "@", "x", "@@", "@"]);
/// ```
pub fn text_pieces(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let end = match rest.find('@') {
            _ if rest.is_empty() => return None,
            Some(0) if rest.as_bytes().get(1) == Some(&b'@') => 2,
            Some(0) => 1,
            Some(i) => i,
            None => rest.len(),
        };
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

/// Whether a line's whole payload text reads as a pointer (R-PAYLOADS-04): a writer whose
/// dialect cannot escape the `@`s (GEDCOM 7) must not write such a string payload.
///
/// ```
/// use gedgraft_syntax::internal::reads_as_pointer;
/// assert!(reads_as_pointer("\t@I1@ "));
/// assert!(!reads_as_pointer("@@I1@"));
/// assert!(!reads_as_pointer("@#DJULIAN@"));
/// ```
pub fn reads_as_pointer(payload: &str) -> bool {
    pointer_span(payload.as_bytes(), 0).is_some()
}

/// `Payload ::= S? Pointer S?` with `Pointer ::= "@" [^#x23#x40#xA#xD] [^#x40#xA#xD]* "@"` (R-PAYLOADS-04):
/// the pointer's span, if the whole payload is one.
fn pointer_span(bytes: &[u8], start: usize) -> Option<(usize, usize)> {
    let p_start = skip_blanks(bytes, start);
    let mut p_end = bytes.len();
    while p_end > p_start && (bytes[p_end - 1] == b' ' || bytes[p_end - 1] == b'\t') {
        p_end -= 1;
    }
    let p = &bytes[p_start..p_end];
    if p.len() < 3 || p[0] != b'@' || p[p.len() - 1] != b'@' || p[1] == b'#' {
        return None;
    }
    let inner = &p[1..p.len() - 1];
    if inner.contains(&b'@')
        || memchr::memchr(0xF4, inner)
            .is_some_and(|_| inner.windows(4).any(|w| raw::starts_with_raw(w, 0)))
    {
        return None;
    }
    Some((p_start, p_end))
}

/// Pushes `line[start..end]` as tokens of `kind`, with raw runs as `RAW` tokens.
pub(crate) fn push_split_raw(
    line: &str,
    start: usize,
    end: usize,
    kind: SyntaxKind,
    out: &mut Vec<LineToken>,
) {
    let bytes = line.as_bytes();
    let mut text_start = start;
    let mut pos = start;
    while let Some(i) = memchr::memchr(0xF4, &bytes[pos..end]).map(|i| pos + i) {
        if !raw::starts_with_raw(bytes, i) {
            pos = i + 1;
            continue;
        }
        let mut raw_end = i;
        while raw_end < end && raw::starts_with_raw(bytes, raw_end) {
            raw_end += raw::RAW_UTF8_LEN;
        }
        if i > text_start {
            out.push((kind, i));
        }
        out.push((SyntaxKind::Raw, raw_end));
        pos = raw_end;
        text_start = raw_end;
    }
    if text_start < end {
        out.push((kind, end));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SyntaxKind::*;

    fn lex(line: &str) -> (Vec<(SyntaxKind, String)>, LineShape) {
        let mut out = Vec::new();
        let shape = lex_line(line, &mut out);
        let mut start = 0;
        let tokens = out
            .iter()
            .map(|&(k, end)| {
                let t = (k, line[start..end].to_string());
                start = end;
                t
            })
            .collect();
        assert_eq!(start, line.len(), "tokens cover the line");
        (tokens, shape)
    }

    fn kinds(line: &str) -> Vec<SyntaxKind> {
        lex(line).0.into_iter().map(|(k, _)| k).collect()
    }

    #[test]
    fn r_lines_01_spec_example_lines() {
        assert_eq!(
            kinds("0 @I1@ INDI"),
            [Level, Delimiter, Xref, Delimiter, Tag]
        );
        assert_eq!(
            kinds("1 NAME Cleopatra"),
            [Level, Delimiter, Tag, PayloadSep, Text]
        );
        assert_eq!(
            kinds("1 FAMC @F2@"),
            [Level, Delimiter, Tag, PayloadSep, Pointer]
        );
    }

    #[test]
    fn r_lines_01_malformed_lines() {
        for line in [
            "1NAME x",
            "1 @I1@",
            "x NAME",
            "01 NAME x",
            "-1 NAME x",
            "0@I1@INDI",
            "0 @I1@INDI",
            "1 NA-ME x",
        ] {
            let (tokens, shape) = lex(line);
            assert!(
                matches!(shape, LineShape::Malformed { .. }),
                "{line}: {shape:?}"
            );
            assert!(
                tokens.iter().all(|(k, _)| *k == ErrorText),
                "{line}: {tokens:?}"
            );
        }
    }

    #[test]
    fn r_lines_03_levels_read_in_one_place() {
        assert_eq!(read_level("0"), Ok(0));
        assert_eq!(read_level("149"), Ok(149));
        assert_eq!(read_level("4294967295"), Ok(MAX_LEVEL));
        assert_eq!(read_level("4294967296"), Err(BadLevel::OutOfRange));
        assert_eq!(
            read_level("99999999999999999999"),
            Err(BadLevel::OutOfRange)
        );
        assert_eq!(read_level("01"), Err(BadLevel::LeadingZero));
        assert_eq!(read_level(""), Err(BadLevel::NotANumber));
        assert_eq!(read_level("1a"), Err(BadLevel::NotANumber));
        let (tokens, shape) = lex("4294967296 Y");
        assert!(
            matches!(&shape, LineShape::Malformed { level: None, code, .. } if *code == codes::LEVEL_OUT_OF_RANGE),
            "{shape:?}"
        );
        assert!(tokens.iter().all(|(k, _)| *k == ErrorText), "{tokens:?}");
    }

    #[test]
    fn r_lines_07_tabs_and_runs_of_spaces_delimit() {
        assert_eq!(
            lex("0  @I1@\tINDI").0,
            [
                (Level, "0".into()),
                (Delimiter, "  ".into()),
                (Xref, "@I1@".into()),
                (Delimiter, "\t".into()),
                (Tag, "INDI".into())
            ]
        );
    }

    #[test]
    fn r_lines_08_one_separator_then_payload() {
        assert_eq!(lex("1 NAME  Bob").0.last(), Some(&(Text, " Bob".into())));
        assert_eq!(lex("1 NAME \tBob").0.last(), Some(&(Text, "\tBob".into())));
        assert_eq!(lex("1 NAME\tBob").0.last(), Some(&(Text, "Bob".into())));
        assert_eq!(
            lex("1 NAME Bob  ").0.last(),
            Some(&(Text, "Bob  ".into())),
            "R-LINE-STRINGS-05"
        );
    }

    #[test]
    fn r_xref_ids_01_identifier_characters() {
        assert!(matches!(lex("0 @Ж-1.a_~@ INDI").1, LineShape::Line(_)));
        for bad in [
            "0 @I:1@ INDI",
            "0 @I!1@ INDI",
            "0 @I#1@ INDI",
            "0 @I/1@ INDI",
            "0 @I 1@ INDI",
            "0 @@ INDI",
            "0 @I\u{E000}@ INDI",
            "0 @I\u{FFF0}@ INDI",
        ] {
            assert!(
                matches!(
                    lex(bad).1,
                    LineShape::Malformed {
                        code: codes::BAD_XREF,
                        ..
                    } | LineShape::Malformed {
                        code: codes::MISSING_DELIMITER,
                        ..
                    } | LineShape::Malformed {
                        code: codes::BAD_TAG,
                        ..
                    }
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn r_payloads_03_pointer_or_string() {
        assert_eq!(
            kinds("1 FAMC  @F2@ "),
            [Level, Delimiter, Tag, PayloadSep, Delimiter, Pointer, Delimiter]
        );
        assert_eq!(
            kinds("1 NOTE @F2@x"),
            [Level, Delimiter, Tag, PayloadSep, Text]
        );
        assert_eq!(
            kinds("1 NOTE @#DJULIAN@"),
            [Level, Delimiter, Tag, PayloadSep, Escape]
        );
        assert_eq!(
            kinds("1 NOTE @@"),
            [Level, Delimiter, Tag, PayloadSep, Text]
        );
        assert_eq!(
            kinds("1 CHIL @F1!2@"),
            [Level, Delimiter, Tag, PayloadSep, Pointer],
            "R-PAYLOADS-04"
        );
        assert_eq!(
            kinds("1 NOTE @a b@"),
            [Level, Delimiter, Tag, PayloadSep, Pointer]
        );
    }

    /// The payload's tokens, a `TEXT` token cut into its pieces (a bare `@` is one): the draft's tokens.
    fn payload(line: &str) -> Vec<String> {
        let (tokens, _) = lex(line);
        let sep = tokens.iter().position(|(k, _)| *k == PayloadSep).unwrap();
        let pieces = |(kind, text): &(SyntaxKind, String)| match kind {
            Text => text_pieces(text).map(str::to_string).collect(),
            _ => vec![text.clone()],
        };
        tokens[sep + 1..].iter().flat_map(pieces).collect()
    }

    #[test]
    fn r_identify_escs_06_tokenisation_vectors() {
        let cases: [(&str, &[&str]); 8] = [
            ("name@example.com", &["name", "@", "example.com"]),
            ("name@@example.com", &["name", "@@", "example.com"]),
            ("name@@@example.com", &["name", "@@", "@", "example.com"]),
            ("name@@@@example.com", &["name", "@@", "@@", "example.com"]),
            ("some@#XYZ@thing", &["some", "@#XYZ@", "thing"]),
            ("some@@#XYZ@thing", &["some", "@@", "#XYZ", "@", "thing"]),
            ("some@@@#XYZ@thing", &["some", "@@", "@#XYZ@", "thing"]),
            ("@#XA@@#YB@", &["@#XA@", "@#YB@"]),
        ];
        for (text, expected) in cases {
            assert_eq!(payload(&format!("1 NOTE {text}")), expected, "{text}");
        }
    }

    #[test]
    fn r_identify_escs_04_unterminated_escape_is_reported() {
        let (_, shape) = lex("0 NOTE Lines containing only a @# are non-conformant.");
        let LineShape::Line(facts) = shape else {
            panic!("{shape:?}")
        };
        assert_eq!(facts.unterminated_escapes, [31]);
    }

    /// R-IDENTIFY-ESCS-05, #12: bare `@`s are part of the text around them (a line of `x@x@…` is one token,
    /// not a token per octet); the lexer counts them and keeps the first, the `@` of an unterminated `@#` apart.
    #[test]
    fn r_identify_escs_05_bare_at_signs_are_text_and_counted() {
        let line = format!("1 NOTE {} @@c@ and a@# end", "x@".repeat(1000));
        assert_eq!(kinds(&line), [Level, Delimiter, Tag, PayloadSep, Text]);
        let (_, shape) = lex(&line);
        let LineShape::Line(facts) = shape else {
            panic!("{shape:?}")
        };
        assert_eq!(facts.unterminated_escapes, [2018]);
        assert_eq!((facts.first_bare_at, facts.bare_ats), (Some(8), 1001));
        let (_, shape) = lex("1 EMAIL me@@x.org");
        let LineShape::Line(facts) = shape else {
            panic!("{shape:?}")
        };
        assert_eq!((facts.first_bare_at, facts.bare_ats), (None, 0));
    }

    #[test]
    fn raw_octets_are_their_own_tokens() {
        let mut line = String::from("1 NAME Jos");
        raw::push_octets(&mut line, &[0xE9]);
        line.push_str(" x");
        assert_eq!(
            kinds(&line),
            [Level, Delimiter, Tag, PayloadSep, Text, Raw, Text]
        );
        let mut bad = String::from("1 N");
        raw::push_octets(&mut bad, &[0xC9]);
        bad.push_str("ME x");
        assert_eq!(kinds(&bad), [ErrorText, Raw, ErrorText]);
    }

    #[test]
    fn blank_and_indented_lines() {
        assert_eq!(lex(" \t").1, LineShape::Blank);
        assert_eq!(lex("").1, LineShape::Blank);
        assert_eq!(
            kinds("  1 NAME Bob"),
            [Whitespace, Level, Delimiter, Tag, PayloadSep, Text]
        );
        assert_eq!(kinds("  x"), [Whitespace, ErrorText]);
    }
}
