//! Which specification a file follows: its *dialect*, read from the header.
//!
//! The dialect is a reading of the lossless tree, never a different tree: the lexer and the parser treat every
//! file alike, and the lowering, `check` and the editor ask [`Parse::dialect`] which rules apply on top (GEDCOM
//! 7.0 doubles only a leading `@`, has no `CONC` and no escapes, and is UTF-8 only).
//!
//! Detection follows FamilySearch's *GEDCOM Version Detection* (`../shared/spec/gedcom7/version-detection.md`,
//! Apache-2.0) read over the tree instead of the octets: the payload of `HEAD.GEDC.VERS`, first five
//! characters, longest match against `7.0`, `5.5.1`, `5.5`, and the unofficial `5.5.5` the document mentions.
//! Two departures, both deliberate:
//!
//! - a header with an `ELF` structure of major version 1 is **ELF 1.0** whatever its `GEDC` says (FHISO ELF
//!   files carry a `GEDC` for older readers; `1 ELF 1.0` is what tells them apart);
//! - any `7.x` version is the GEDCOM 7 family ([`Dialect::Gedcom7`] with its minor version): the detection
//!   document predates 7.1, which keeps 7.0's line format.
//!
//! Versions the project does not read specially (3.0, 4.0, 5.0–5.4, 5.6) and files with no version at all are
//! [`Dialect::Unknown`] and are read by the ELF / GEDCOM 5.5.1 rules, as before dialects were detected.

use crate::ast::{AstToken, Document, Structure};
use crate::Parse;
use std::fmt;

/// The specification a file follows, as its header says: read from `HEAD.GEDC.VERS` (and an `ELF` structure)
/// per FamilySearch's *GEDCOM Version Detection*. A reading of the tree, never a different tree.
///
/// ```
/// use gedgraft_syntax::Dialect;
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 TRLR\n");
/// assert_eq!(parse.dialect(), Dialect::GEDCOM_7_0);
/// assert_eq!(parse.dialect().to_string(), "GEDCOM 7.0");
/// assert!(parse.dialect().is_gedcom7());
/// let old = gedgraft_syntax::parse(b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 TRLR\n");
/// assert_eq!(old.dialect(), Dialect::Gedcom551);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Dialect {
    /// FHISO ELF serialisation 1.0 (`1 ELF 1.x`).
    Elf10,
    /// GEDCOM 5.5 (`2 VERS 5.5`, also `5.5 EL` and other `5.5` revisions but 5.5.1 and 5.5.5).
    Gedcom55,
    /// GEDCOM 5.5.1.
    Gedcom551,
    /// GEDCOM 5.5.5 (gedcom.org's annotated 5.5.1; `FORM LINEAGE-LINKED` with its own `VERS`).
    Gedcom555,
    /// FamilySearch GEDCOM 7 with its minor version (`7.0`, `7.0.14` → 0; `7.1` → 1).
    Gedcom7 {
        /// The minor version.
        minor: u32,
    },
    /// No version, or one this library does not read specially: read by the ELF / GEDCOM 5.5.1 rules.
    #[default]
    Unknown,
}

impl Dialect {
    /// FamilySearch GEDCOM 7.0.
    pub const GEDCOM_7_0: Dialect = Dialect::Gedcom7 { minor: 0 };

    /// The dialect of a `GEDC.VERS` payload (the version-detection document's step 6).
    ///
    /// ```
    /// use gedgraft_syntax::Dialect;
    /// assert_eq!(Dialect::from_gedcom_version("7.0.14"), Dialect::GEDCOM_7_0);
    /// assert_eq!(Dialect::from_gedcom_version("5.5.5"), Dialect::Gedcom555);
    /// assert_eq!(Dialect::from_gedcom_version("5.5 EL"), Dialect::Gedcom55);
    /// assert_eq!(Dialect::from_gedcom_version("4.0"), Dialect::Unknown);
    /// ```
    pub fn from_gedcom_version(version: &str) -> Dialect {
        let v = version.trim_matches([' ', '\t']);
        if let Some(rest) = v.strip_prefix("7.") {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            return match rest.get(..digits).and_then(|d| d.parse().ok()) {
                Some(minor) => Dialect::Gedcom7 { minor },
                None => Dialect::Unknown,
            };
        }
        // Longest match over the first five characters.
        if v.starts_with("5.5.1") {
            Dialect::Gedcom551
        } else if v.starts_with("5.5.5") {
            Dialect::Gedcom555
        } else if v.starts_with("5.5") {
            Dialect::Gedcom55
        } else {
            Dialect::Unknown
        }
    }

    /// The dialect of a document, read from its header (the first record, if it is `HEAD`).
    pub fn of(document: &Document) -> Dialect {
        let Some(header) = document.header() else {
            return Dialect::Unknown;
        };
        let text = |s: &Structure| s.payload().map(|p| p.raw_text()).unwrap_or_default();
        let tagged = |s: &Structure, tag: &str| s.tag().is_some_and(|t| t.text() == tag);
        let mut gedc = None;
        for s in header.substructures() {
            if tagged(&s, "ELF") {
                let elf = text(&s);
                let major = elf
                    .trim_matches([' ', '\t'])
                    .split('.')
                    .next()
                    .unwrap_or("");
                if major.trim_start_matches('0') == "1" {
                    return Dialect::Elf10;
                }
            } else if tagged(&s, "GEDC") && gedc.is_none() {
                gedc = Some(s);
            }
        }
        gedc.and_then(|g| g.substructures().find(|s| tagged(s, "VERS")))
            .map_or(Dialect::Unknown, |vers| {
                Dialect::from_gedcom_version(&text(&vers))
            })
    }

    /// Whether this is FamilySearch GEDCOM 7 (any minor version).
    pub fn is_gedcom7(self) -> bool {
        matches!(self, Dialect::Gedcom7 { .. })
    }

    /// Whether only a *leading* `@` of a line string is doubled (GEDCOM 7: `@@me` means `@me`, `a@@b` is
    /// `a@@b`, `me@example.com` is as written). Otherwise every `@` is doubled and `@#…@` are escapes.
    pub fn doubles_only_leading_at(self) -> bool {
        self.is_gedcom7()
    }

    /// Whether `CONC` lines exist (not in GEDCOM 7, where a line may be as long as it needs to be).
    pub fn has_conc(self) -> bool {
        !self.is_gedcom7()
    }

    /// The identifier of the null pointer, if the dialect has one: GEDCOM 7's `@VOID@` (7.0 `voidPtr`), which
    /// points nowhere (no `UNDEF` record) and is no structure's identifier.
    pub fn null_pointer(self) -> Option<&'static str> {
        self.is_gedcom7().then_some("VOID")
    }

    /// Why `id` (without `@`s) cannot be a cross-reference identifier in a file of this dialect, beyond the
    /// grammar all dialects share: in GEDCOM 7 only upper-case letters, digits and `_` (7.0 `Xref = atsign
    /// 1*tagchar atsign`), and not the null pointer's `VOID`.
    pub fn xref_refusal(self, id: &str) -> Option<&'static str> {
        if !self.is_gedcom7() {
            return None;
        }
        if Some(id) == self.null_pointer() {
            return Some("`VOID` is GEDCOM 7's null pointer, no structure's identifier");
        }
        (!id.chars().all(gedcom7_tagchar)).then_some(
            "a GEDCOM 7 identifier is upper-case letters, digits and `_` only (7.0 Xref)",
        )
    }

    /// Why `tag` is not a tag of this dialect, if it is not: in GEDCOM 7 a tag is an upper-case letter then
    /// upper-case letters, digits and `_` (7.0 `stdTag`), or `_` then at least one of those (`extTag`); other
    /// dialects take any tag of `[0-9A-Za-z_]` (R-TAGS-01, the syntax layer's `bad-tag`).
    ///
    /// ```
    /// use gedgraft_syntax::Dialect;
    /// let seven = Dialect::from_gedcom_version("7.0");
    /// assert!(seven.tag_refusal("NAME").is_none() && seven.tag_refusal("_MY_TAG2").is_none());
    /// assert!(seven.tag_refusal("Name").is_some() && seven.tag_refusal("_myTag").is_some());
    /// assert!(seven.tag_refusal("_").is_some() && seven.tag_refusal("2X").is_some());
    /// assert!(Dialect::Gedcom551.tag_refusal("Name").is_none());
    /// ```
    pub fn tag_refusal(self, tag: &str) -> Option<&'static str> {
        if !self.is_gedcom7() {
            return None;
        }
        let ok = match tag.strip_prefix('_') {
            Some(rest) => !rest.is_empty() && rest.chars().all(gedcom7_tagchar),
            None => {
                tag.starts_with(|c: char| c.is_ascii_uppercase())
                    && tag.chars().all(gedcom7_tagchar)
            }
        };
        (!ok).then_some(
            "a GEDCOM 7 tag is upper-case letters, digits and `_`, starting with a letter or `_` (7.0 Tag)",
        )
    }

    /// Whether ELF's Unicode escapes (`@#U…@`) exist: not in a file that says it is GEDCOM 5.5, 5.5.1, 5.5.5 or
    /// 7, whose readers show one as text (a file with one declares ELF, R-SERIALISATION-VERSION-01).
    pub fn has_unicode_escapes(self) -> bool {
        !matches!(
            self,
            Dialect::Gedcom55 | Dialect::Gedcom551 | Dialect::Gedcom555 | Dialect::Gedcom7 { .. }
        )
    }

    /// Whether `@#…@` escape sequences exist (not in GEDCOM 7).
    pub fn has_escapes(self) -> bool {
        !self.is_gedcom7()
    }

    /// Whether the file must be UTF-8 (GEDCOM 7).
    pub fn is_utf8_only(self) -> bool {
        self.is_gedcom7()
    }

    /// Whether a file of this dialect may be in `encoding`: GEDCOM 7 is UTF-8 only (7.0 § Characters), GEDCOM
    /// 5.5.5 UTF-8 or UTF-16 (5.5.5 § Character sets: `UTF-8` or `UNICODE`); the others allow any.
    ///
    /// ```
    /// use gedgraft_syntax::{encoding::Encoding, Dialect};
    /// assert!(Dialect::Gedcom555.allows_encoding(Encoding::Utf16Le));
    /// assert!(!Dialect::Gedcom555.allows_encoding(Encoding::Windows1252));
    /// assert!(!Dialect::GEDCOM_7_0.allows_encoding(Encoding::Utf16Le));
    /// assert!(Dialect::Gedcom551.allows_encoding(Encoding::Ansel));
    /// ```
    pub fn allows_encoding(self, encoding: gedgraft_encoding::Encoding) -> bool {
        match self {
            Dialect::Gedcom7 { .. } => encoding == gedgraft_encoding::Encoding::Utf8,
            Dialect::Gedcom555 => {
                encoding == gedgraft_encoding::Encoding::Utf8 || encoding.is_utf16()
            }
            _ => true,
        }
    }

    /// Whether a file of this dialect may say `value` in `HEAD.CHAR` (surrounding spaces and case aside): only
    /// `UTF-8` in GEDCOM 7, `UTF-8` or `UNICODE` in GEDCOM 5.5.5, anything elsewhere.
    pub fn allows_char_value(self, value: &str) -> bool {
        let value = value.trim_matches([' ', '\t']);
        let is = |v: &str| value.eq_ignore_ascii_case(v);
        match self {
            Dialect::Gedcom7 { .. } => is("UTF-8"),
            Dialect::Gedcom555 => is("UTF-8") || is("UNICODE"),
            _ => true,
        }
    }

    /// The encodings [`allows_encoding`](Dialect::allows_encoding) allows, for a message: `UTF-8`, `UTF-8 or
    /// UTF-16`, or `any encoding`.
    pub fn allowed_encodings(self) -> &'static str {
        match self {
            Dialect::Gedcom7 { .. } => "UTF-8",
            Dialect::Gedcom555 => "UTF-8 or UTF-16",
            _ => "any encoding",
        }
    }

    /// Whether a syntax-layer diagnostic code applies in this dialect; not in GEDCOM 7: escape diagnostics
    /// (`bad-escape`, `unterminated-escape`; it has no escapes), `unescaped-at` (it doubles only a leading `@`),
    /// `line-too-long`, `conc-at-whitespace` and `conc-after-diacritic` (it has no `CONC`, no ANSEL and no
    /// line limit).
    pub fn applies(self, code: &str) -> bool {
        use crate::codes::{
            BAD_ESCAPE, CONC_AFTER_DIACRITIC, CONC_AT_WHITESPACE, LINE_TOO_LONG, UNESCAPED_AT,
            UNTERMINATED_ESCAPE,
        };
        !self.is_gedcom7()
            || !matches!(
                code,
                BAD_ESCAPE
                    | UNTERMINATED_ESCAPE
                    | UNESCAPED_AT
                    | LINE_TOO_LONG
                    | CONC_AT_WHITESPACE
                    | CONC_AFTER_DIACRITIC
            )
    }
}

/// GEDCOM 7's `tagchar` (`ucletter / DIGIT / underscore`), of which its tags and identifiers are made.
fn gedcom7_tagchar(c: char) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dialect::Elf10 => f.write_str("ELF 1.0"),
            Dialect::Gedcom55 => f.write_str("GEDCOM 5.5"),
            Dialect::Gedcom551 => f.write_str("GEDCOM 5.5.1"),
            Dialect::Gedcom555 => f.write_str("GEDCOM 5.5.5"),
            Dialect::Gedcom7 { minor } => write!(f, "GEDCOM 7.{minor}"),
            Dialect::Unknown => f.write_str("unknown"),
        }
    }
}

impl std::str::FromStr for Dialect {
    type Err = String;

    /// The dialect a [`Display`](fmt::Display) name gives back.
    fn from_str(s: &str) -> Result<Dialect, String> {
        match s {
            "ELF 1.0" => Ok(Dialect::Elf10),
            "unknown" => Ok(Dialect::Unknown),
            _ => match s.strip_prefix("GEDCOM ").map(Dialect::from_gedcom_version) {
                Some(d) if d != Dialect::Unknown && d.to_string() == s => Ok(d),
                _ => Err(format!("`{s}` is not a dialect name")),
            },
        }
    }
}

impl Parse {
    /// The file's dialect, read from its header ([`Dialect::of`]).
    pub fn dialect(&self) -> Dialect {
        self.dialect_override()
            .unwrap_or_else(|| Dialect::of(&self.document()))
    }
}

#[cfg(test)]
mod tests {
    use super::Dialect;

    fn dialect(text: &str) -> Dialect {
        crate::parse(text.as_bytes()).dialect()
    }

    /// The header shapes of each version, the GEDCOM 7.0 ones from the 7.0 specification's examples
    /// (`gedcom-1-hierarchical-container-format.md`, § The Header and Trailer: `HEAD.GEDC.VERS`, no `FORM`).
    #[test]
    fn header_shapes_of_each_version() {
        let cases = [
            ("\u{FEFF}0 HEAD\n1 GEDC\n2 VERS 7.0\n0 TRLR\n", "GEDCOM 7.0"),
            ("0 HEAD\n1 SCHMA\n2 TAG _SKYPEID http://xmlns.com/foaf/0.1/skypeID\n1 GEDC\n2 VERS 7.0.14\n0 TRLR\n", "GEDCOM 7.0"),
            ("0 HEAD\n1 GEDC\n2 VERS 7.1\n0 TRLR\n", "GEDCOM 7.1"),
            ("0 HEAD\n1 GEDC\n2 VERS 5.5.5\n2 FORM LINEAGE-LINKED\n3 VERS 5.5.5\n1 CHAR UTF-8\n0 TRLR\n", "GEDCOM 5.5.5"),
            ("0 HEAD\n1 CHAR ANSEL\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 TRLR\n", "GEDCOM 5.5.1"),
            ("0 HEAD\n1 GEDC\n2 VERS 5.5\n2 FORM LINEAGE-LINKED\n0 TRLR\n", "GEDCOM 5.5"),
            ("0 HEAD\n1 GEDC\n2 VERS 5.5 EL\n0 TRLR\n", "GEDCOM 5.5"),
            // R-PARSING-METADATA-06: an ELF header, with the GEDC it keeps for older readers.
            ("0 HEAD\n1 ELF 1.0\n1 GEDC\n2 VERS 5.5.1\n2 FORM LINEAGE-LINKED\n0 TRLR\n", "ELF 1.0"),
            ("0 HEAD\n1 GEDC\n2 VERS 5.5.1\n1 ELF 1.0\n0 TRLR\n", "ELF 1.0"),
            ("0 HEAD\n1 ELF 2.0\n1 GEDC\n2 VERS 5.5.1\n0 TRLR\n", "GEDCOM 5.5.1"),
            ("0 HEAD\n1 GEDC\n2 VERS 4.0\n0 TRLR\n", "unknown"),
            ("0 HEAD\n1 CHAR UTF-8\n0 TRLR\n", "unknown"),
            ("0 @I1@ INDI\n1 GEDC\n2 VERS 7.0\n0 TRLR\n", "unknown"),
            ("", "unknown"),
            // The first GEDC counts; a VERS elsewhere (SOUR.VERS) does not.
            ("0 HEAD\n1 SOUR X\n2 VERS 7.0\n1 GEDC\n2 VERS 5.5.1\n0 TRLR\n", "GEDCOM 5.5.1"),
            ("0 HEAD\r\n1 GEDC\r\n2 VERS 7.0\r\n0 TRLR\r\n", "GEDCOM 7.0"),
        ];
        for (text, name) in cases {
            assert_eq!(dialect(text).to_string(), name, "{text:?}");
        }
    }

    /// GEDCOM 7.0 § lineStr: only a leading `@` is doubled, so `name@example.com` is as written; § Lines: no
    /// `CONC`, no length limit. The syntax layer notes both in every file; the dialect drops them.
    #[test]
    fn gedcom7_drops_bare_at_and_long_lines() {
        let long = "w".repeat(300);
        for (version, kept) in [("7.0", 0), ("5.5.1", 2)] {
            let text = format!(
                "0 HEAD\n1 GEDC\n2 VERS {version}\n0 @I1@ INDI\n1 EMAIL name@example.com\n1 NOTE {long}\n0 TRLR\n"
            );
            let parse = crate::parse(text.as_bytes());
            let dialect = parse.dialect();
            let applying: Vec<&str> = parse
                .diagnostics()
                .iter()
                .filter(|d| dialect.applies(d.code))
                .map(|d| d.code)
                .collect();
            assert_eq!(applying.len(), kept, "{version}: {applying:?}");
            assert_eq!(
                parse.diagnostics().len(),
                2,
                "the syntax layer reads every file alike"
            );
        }
    }

    #[test]
    fn utf16_files_are_read_from_the_tree() {
        let text = "0 HEAD\n1 GEDC\n2 VERS 5.5.5\n0 TRLR\n";
        let mut octets = vec![0xFF, 0xFE];
        octets.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(crate::parse(&octets).dialect(), Dialect::Gedcom555);
    }

    #[test]
    fn names_round_trip_and_rules_follow_the_dialect() {
        for d in [
            Dialect::Elf10,
            Dialect::Gedcom55,
            Dialect::Gedcom551,
            Dialect::Gedcom555,
            Dialect::GEDCOM_7_0,
            Dialect::Gedcom7 { minor: 1 },
            Dialect::Unknown,
        ] {
            assert_eq!(d.to_string().parse::<Dialect>(), Ok(d));
            assert_eq!(d.has_conc(), !d.is_gedcom7());
            assert_eq!(d.doubles_only_leading_at(), d.is_gedcom7());
            assert_eq!(d.applies(crate::codes::BAD_ESCAPE), !d.is_gedcom7());
            // GEDCOM 7.0 § lineStr: only a leading `@` is doubled; § Lines: no line length limit.
            assert_eq!(d.applies(crate::codes::UNESCAPED_AT), !d.is_gedcom7());
            assert_eq!(d.applies(crate::codes::LINE_TOO_LONG), !d.is_gedcom7());
            assert_eq!(d.applies(crate::codes::CONC_AT_WHITESPACE), !d.is_gedcom7());
            assert!(d.applies(crate::codes::LEVEL_JUMP));
        }
        assert!("GEDCOM 7.0.1".parse::<Dialect>().is_err());
        assert!("GEDCOM 4.0".parse::<Dialect>().is_err());
    }
}
