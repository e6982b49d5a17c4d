//! The rules of the lowering that depend on the file's dialect ([`Dialect`], read from the header by the syntax
//! layer): the `GEDC` structure, the encoding, the `@` rule and `CONC`.
//!
//! - ELF 1.0, GEDCOM 5.5 and 5.5.1 (and files of unknown version): `GEDC` holds exactly one `VERS` and one
//!   `FORM LINEAGE-LINKED` (R-PARSING-METADATA-07); every `@` is doubled, `@#…@` are escapes.
//! - GEDCOM 5.5.5: as 5.5.1, and `FORM` may carry its own `VERS`.
//! - GEDCOM 7 (FamilySearch GEDCOM 7.0, `../shared/spec/gedcom7/gedcom-1-hierarchical-container-format.md`):
//!   `GEDC` holds one `VERS` and no `FORM`; the file is UTF-8 (no `CHAR`, or `CHAR UTF-8` as some converters
//!   write it); only a leading `@` of a line string is doubled, "leading @ doubled" in its `lineStr`
//!   production, so `@@me` is `@me` and `a@@b`, `me@example.com` and `@#DJULIAN@` past the first character are
//!   literal text; there are no escapes; and `CONC` "does not appear in version 7": a `CONC` line is
//!   non-conformant (`conc-not-allowed`) and is still merged as GEDCOM 5.5.1 would, the reading its writer most
//!   likely meant. A line string starting with a single `@` that is not a pointer matches neither production
//!   and is non-conformant (`unescaped-leading-at`); its text is kept as written.

use super::Builder;
use crate::codes;
use crate::lower::left_out::nests_in;
use crate::lower::Sink;
use crate::unescape::{literal_text, TextBuilder};
use gedgraft_syntax::internal::green_view::{LineInfo, Node, Token};
use gedgraft_syntax::internal::text_pieces;
use gedgraft_syntax::{Class, Dialect, SyntaxKind};
use text_size::{TextRange, TextSize};

impl<'p> Builder<'p> {
    /// `GEDC` (R-PARSING-METADATA-07, R-GEDCOM-VERSION-03), by the rules of the file's dialect. Only a valid
    /// `GEDC` gives the GEDCOM version and form ("Otherwise `VERS` gives the legacy GEDCOM version"): an
    /// invalid one is reported and dropped, like an invalid `ELF`. A valid `GEDC` naming a version this parser
    /// does not read (`5.3`) still gives it, with `unsupported-gedcom-version` (R-GEDCOM-VERSION-04).
    pub(super) fn gedcom_version(&mut self, gedc: Node<'p>) {
        let dialect = self.finishing.dialect;
        let gedc_line = gedc.line();
        let range = gedc_line.content;
        let mut valid = true;
        if !gedc_line.raw_payload().is_empty() {
            valid = false;
            self.report(
                codes::BAD_GEDC,
                Class::NonConformant,
                "GEDC must not have a payload".into(),
                gedc_line.payload_range(),
            );
        }
        let subs: Vec<LineInfo<'p>> = gedc
            .substructures()
            .filter(|s| nests_in(*s, Some(1)))
            .map(Node::line)
            .collect();
        let vers: Vec<&LineInfo<'p>> = subs.iter().filter(|s| s.tag_text() == "VERS").collect();
        let forms: Vec<&LineInfo<'p>> = subs.iter().filter(|s| s.tag_text() == "FORM").collect();
        let mut wanted = vec![("VERS", vers.len())];
        if !dialect.is_gedcom7() {
            wanted.push(("FORM", forms.len()));
        }
        for (name, found) in wanted {
            if found != 1 {
                valid = false;
                self.report(
                    codes::BAD_GEDC,
                    Class::NonConformant,
                    format!("GEDC must have exactly one {name} substructure; it has {found}"),
                    range,
                );
            }
        }
        let mut version = None;
        if let Some(v) = vers.first() {
            version = self.version(v, "the GEDCOM version");
            valid &= version.is_some();
            if let Some(version) = version {
                let known = matches!(
                    (version.major, version.minor, version.revision),
                    (5, 5, 0 | 1 | 5) | (7, _, _)
                );
                if !known {
                    self.report(
                        codes::UNSUPPORTED_GEDCOM_VERSION,
                        Class::NonConformant,
                        format!("GEDCOM version {version} is not 5.5, 5.5.1, 5.5.5 or 7.x"),
                        v.payload_range(),
                    );
                }
                // A CHAR other than UTF-8 is reported at the CHAR line (`character_set`).
                let declared = self.parse.detection().declared.as_deref();
                let char_ok = declared.is_none_or(|d| d.eq_ignore_ascii_case("UTF-8"));
                if !dialect.allows_encoding(self.parse.encoding()) && char_ok {
                    self.report(
                        codes::ENCODING_NOT_ALLOWED,
                        Class::NonConformant,
                        format!(
                            "{dialect} files are {} only; this one is read as {}",
                            dialect.allowed_encodings(),
                            self.parse.encoding()
                        ),
                        v.payload_range(),
                    );
                }
            }
        }
        let mut form_text = None;
        if let Some(form) = forms.first() {
            let text = form.raw_payload();
            if dialect.is_gedcom7() {
                valid = false;
                self.report(
                    codes::BAD_GEDC,
                    Class::NonConformant,
                    format!("{dialect} has no GEDC.FORM (it was GEDCOM 5's); remove it"),
                    form.content,
                );
            } else if text != "LINEAGE-LINKED" {
                valid = false;
                self.report(
                    codes::BAD_GEDC,
                    Class::NonConformant,
                    format!("GEDC.FORM is `{text}`; it must be `LINEAGE-LINKED`"),
                    form.payload_range(),
                );
            }
            form_text = Some(literal_text(&text, self.finishing));
        }
        if valid {
            self.metadata.gedcom_version = version;
            self.metadata.gedcom_form = form_text;
        }
    }

    /// `HEAD.CHAR` in a UTF-8-only dialect: absent or `UTF-8` (R-PARSING-METADATA-05 otherwise: it was used
    /// when the file was decoded).
    pub(super) fn character_set(&mut self, char_structure: Node<'p>) {
        let dialect = self.finishing.dialect;
        let line = char_structure.line();
        let text = line.raw_payload();
        if !dialect.allows_char_value(&text) {
            self.report(
                codes::ENCODING_NOT_ALLOWED,
                Class::NonConformant,
                format!(
                    "{dialect} files are {} only; CHAR says `{text}`",
                    dialect.allowed_encodings()
                ),
                line.payload_range(),
            );
        }
    }

    /// A GEDCOM 7 tag outside 7.0 `Tag` (`Name`, `_myTag`). Non-conformant, kept as written.
    pub(super) fn gedcom7_tag(&mut self, tag: &str, range: TextRange) {
        if let Some(why) = self.finishing.dialect.tag_refusal(tag) {
            self.report(
                codes::TAG_NOT_ALLOWED,
                Class::NonConformant,
                why.into(),
                range,
            );
        }
    }

    /// A GEDCOM 7 identifier, of a structure or in a pointer (`pointer`), outside 7.0 `Xref`: upper-case
    /// letters, digits and `_`, and no structure's `VOID` (the null pointer's). Non-conformant, kept as written.
    pub(super) fn gedcom7_identifier(&mut self, id: &str, range: TextRange, pointer: bool) {
        let dialect = self.finishing.dialect;
        if !dialect.is_gedcom7() || (pointer && Some(id) == dialect.null_pointer()) {
            return;
        }
        if let Some(why) = dialect.xref_refusal(id) {
            self.report(
                codes::XREF_NOT_ALLOWED,
                Class::NonConformant,
                why.into(),
                range,
            );
        }
    }
}

/// The identifier of the null pointer, if the dialect has one ([`Dialect::null_pointer`]).
pub(super) fn null_pointer(dialect: Dialect) -> Option<&'static str> {
    dialect.null_pointer()
}

/// `CONC` lines one after the other in a dialect that has none, reported as one run.
pub(super) struct ConcRun {
    dialect: Dialect,
    /// The first line's range, how many lines, where the last starts.
    run: Option<(TextRange, u32, TextSize)>,
}

impl ConcRun {
    pub(super) fn new(dialect: Dialect) -> ConcRun {
        ConcRun { dialect, run: None }
    }

    /// The next element of the structure: a `CONC` line at `conc` goes on the run (or starts one); anything
    /// else ends it.
    pub(super) fn next(&mut self, sink: &mut Sink, conc: Option<TextRange>) {
        let Some(range) = conc.filter(|_| !self.dialect.has_conc()) else {
            return self.end(sink);
        };
        match &mut self.run {
            Some((_, count, last)) => {
                *count = count.saturating_add(1);
                *last = range.start();
            }
            None => self.run = Some((range, 1, range.start())),
        }
    }

    /// The run ends (a line that is not a `CONC` line, or the structure's end): reports it.
    pub(super) fn end(&mut self, sink: &mut Sink) {
        let Some((range, count, last)) = self.run.take() else {
            return;
        };
        let dialect = self.dialect;
        let message = format!(
            "{dialect} has no CONC lines (a line may be as long as it needs); merged as GEDCOM 5.5.1 would"
        );
        let what = (codes::CONC_NOT_ALLOWED, Class::NonConformant, message);
        sink.report_run(what, range, count, last);
    }
}

/// Unescapes one line string of a dialect that doubles only a leading `@` (GEDCOM 7): a leading `@@` is one
/// `@`, everything else is text as written.
pub(crate) fn unescape_leading_at_line<'g>(
    tokens: impl Iterator<Item = Token<'g>>,
    builder: &mut TextBuilder,
    out: &mut String,
    sink: &mut Sink,
) {
    for (i, token) in tokens.enumerate() {
        match token.kind() {
            // A leading `@@` is one `@`; any other `@@` is as written.
            SyntaxKind::Text if text_pieces(token.text()).next() != Some("@") => {
                builder.text(out, token.text(), i == 0)
            }
            SyntaxKind::Text | SyntaxKind::Escape if i == 0 => {
                // A bare `@` is the first octet of a `TEXT` token; an escape is shown whole.
                let (shown, range) = match token.kind() {
                    SyntaxKind::Text => ("@", TextRange::at(token.range().start(), 1.into())),
                    _ => (token.text(), token.range()),
                };
                sink.report(
                    codes::UNESCAPED_LEADING_AT,
                    Class::NonConformant,
                    format!(
                        "a GEDCOM 7 line string starting with `@` must double it (`@{shown}…`); kept as written"
                    ),
                    range,
                );
                builder.literal(out, token.text());
            }
            _ => builder.literal(out, token.text()),
        }
    }
}
