//! The stable codes of lowering diagnostics.
//!
//! The lowering reports only what the syntax layer does not (`gedgraft_syntax::codes`): a misplaced `HEAD`,
//! `CONT`, `CONC` or `TRLR` line, `CONT`/`CONC` lines continuing a pointer or holding one, a missing trailer, an
//! unterminated `@#` and an escape whose type is not a letter are already syntax diagnostics and are not
//! repeated here; [`LINES_LEFT_OUT`] only says which lines the lenient lowering left out because of them. Codes
//! never change meaning once released; new problems get new codes. Each constant names its class and the
//! requirement (`requirements.md`) it comes from.

/// Malformed structure: the header record has a cross-reference identifier, a payload or continuation lines
/// (R-HEADER-01), and the syntax layer did not already say its first line is not `0 HEAD`.
pub const BAD_HEADER: &str = "bad-header";
/// Non-conformant structure: an escape sequence whose type is neither `U` nor `D` (R-PERMITTED-ESCS-01,
/// R-PERMITTED-ESCS-05). Kept as written.
pub const UNPERMITTED_ESCAPE: &str = "unpermitted-escape";
/// Non-conformant structure: a `U` escape whose value does not match `UnicodeEsc` or names no character (not a
/// Unicode scalar value, or U+0000, U+FFFE, U+FFFF; R-UNICODE-ESCAPE-02). Kept as written.
pub const BAD_UNICODE_ESCAPE: &str = "bad-unicode-escape";
/// Warning: a `U` escape with lower-case hexadecimal digits, accepted (R-UNICODE-ESCAPE-03).
pub const LOWERCASE_UNICODE_ESCAPE: &str = "lowercase-unicode-escape";
/// Non-conformant structure: a serialisation metadata structure, or a structure nested in one, has a
/// cross-reference identifier, a pointer payload or continuation lines (R-PARSING-METADATA-02, R-HEADER-04). A
/// `HEAD` there is the syntax layer's `misplaced-header`.
pub const BAD_METADATA_STRUCTURE: &str = "bad-metadata-structure";
/// Non-conformant structure: a second `CHAR`, `ELF`, `GEDC` or `PLANG` in the header; it is ignored
/// (R-PARSING-METADATA-04).
pub const DUPLICATE_METADATA: &str = "duplicate-metadata";
/// Non-conformant structure: the payload of `ELF` or of `GEDC.VERS` is not a version number
/// (R-VERSION-NUMBERS-01, R-PARSING-METADATA-06, R-PARSING-METADATA-07).
pub const BAD_VERSION_NUMBER: &str = "bad-version-number";
/// Warning: the ELF serialisation version has major version 1 and a minor version other than 0
/// (R-SERIALISATION-VERSION-03).
pub const UNKNOWN_ELF_VERSION: &str = "unknown-elf-version";
/// Non-conformant source: the ELF serialisation version has a major version other than 1
/// (R-SERIALISATION-VERSION-04).
pub const UNSUPPORTED_ELF_VERSION: &str = "unsupported-elf-version";
/// Non-conformant structure: `GEDC` has a payload, not exactly one `VERS` and one `FORM`, or a `FORM` other
/// than `LINEAGE-LINKED` (R-PARSING-METADATA-07); in GEDCOM 7, not exactly one `VERS`, or a `FORM` at all.
pub const BAD_GEDC: &str = "bad-gedc";
/// Non-conformant source: the GEDCOM version is not 5.5, 5.5.1 (R-GEDCOM-VERSION-03, R-GEDCOM-VERSION-04),
/// 5.5.5 or 7.x (read by their own rules, see `gedgraft_syntax::Dialect`).
pub const UNSUPPORTED_GEDCOM_VERSION: &str = "unsupported-gedcom-version";
/// Non-conformant structure: a `PLANG` whose payload is empty, so it gives no language tag.
pub const BAD_LANGUAGE_TAG: &str = "bad-language-tag";
/// Non-conformant structure: a `PLANG` or `DTYPE` substructure that cannot annotate its parent's payload: it
/// has a cross-reference identifier, a pointer payload or substructures, repeats an earlier one, or its
/// parent's payload is a pointer (R-TAGS-03; the draft gives no class, see its ednote at L1401). Ignored.
pub const MISUSED_PAYLOAD_ANNOTATION: &str = "misused-payload-annotation";
/// Non-conformant structure: a cross-reference identifier used by more than one structure
/// (R-POINTER-CONV-03, R-RECOVER-01); pointers to it go to an `UNDEF` record (R-POINTER-CONV-10).
pub const DUPLICATE_XREF: &str = "duplicate-xref";
/// Warning: a pointer to an identifier no structure has; it now points to an `UNDEF` record
/// (R-POINTER-CONV-10, R-POINTER-CONV-12, R-POINTER-CONV-13).
pub const UNDEFINED_POINTER: &str = "undefined-pointer";
/// Warning: a pointer to an identifier that several structures have; it now points to an `UNDEF` record
/// (R-POINTER-CONV-10).
pub const AMBIGUOUS_POINTER: &str = "ambiguous-pointer";
/// Warning: a pointer to the identifier of a structure that is not a record; it now points to an `UNDEF`
/// record (R-GLOSSARY-03, R-POINTER-CONV-10).
pub const POINTER_TO_SUBSTRUCTURE: &str = "pointer-to-substructure";
/// Non-conformant source: a GEDCOM 7 file read in an encoding other than UTF-8, or whose `CHAR` names another
/// (GEDCOM 7.0 § Characters: UTF-8 only); a GEDCOM 5.5.5 file in an encoding other than UTF-8 or UTF-16
/// (5.5.5 § Character sets).
pub const ENCODING_NOT_ALLOWED: &str = "encoding-not-allowed";
/// Non-conformant structure: a `CONC` line in a GEDCOM 7 file (7.0 § Lines: `CONC` does not appear in version
/// 7); merged as GEDCOM 5.5.1 would.
pub const CONC_NOT_ALLOWED: &str = "conc-not-allowed";
/// Non-conformant structure: a GEDCOM 7 line string that starts with a single `@` and is not a pointer
/// (7.0 `lineStr`: a leading `@` is doubled); kept as written.
pub const UNESCAPED_LEADING_AT: &str = "unescaped-leading-at";
/// Non-conformant structure: a GEDCOM 7 identifier or pointer outside 7.0 `Xref` (upper-case letters, digits and
/// `_`: `@i1@`, `@I-1@`), or a structure identified by the null pointer's `@VOID@`; kept as written.
pub const XREF_NOT_ALLOWED: &str = "xref-not-allowed";
/// Non-conformant structure: in GEDCOM 7, a tag outside 7.0 `Tag` (upper-case letters, digits and `_`, starting
/// with a letter or `_`): `Name`, `_myTag`. Kept as written.
pub const TAG_NOT_ALLOWED: &str = "tag-not-allowed";
/// Warning: lines the lenient lowering leaves out of the dataset: a malformed line or a level jump, with the
/// lines nested in it (R-RECOVER-06, R-RECOVER-07, R-RECOVER-09). One per run of consecutive left-out lines,
/// right after the syntax layer's error on the run's first line. Strict mode stops at that error instead.
pub const LINES_LEFT_OUT: &str = "lines-left-out";

/// Every lowering code, for tests and documentation.
pub const ALL: &[&str] = &[
    BAD_HEADER,
    UNPERMITTED_ESCAPE,
    BAD_UNICODE_ESCAPE,
    LOWERCASE_UNICODE_ESCAPE,
    BAD_METADATA_STRUCTURE,
    DUPLICATE_METADATA,
    BAD_VERSION_NUMBER,
    UNKNOWN_ELF_VERSION,
    UNSUPPORTED_ELF_VERSION,
    BAD_GEDC,
    UNSUPPORTED_GEDCOM_VERSION,
    BAD_LANGUAGE_TAG,
    MISUSED_PAYLOAD_ANNOTATION,
    DUPLICATE_XREF,
    UNDEFINED_POINTER,
    AMBIGUOUS_POINTER,
    POINTER_TO_SUBSTRUCTURE,
    ENCODING_NOT_ALLOWED,
    CONC_NOT_ALLOWED,
    UNESCAPED_LEADING_AT,
    XREF_NOT_ALLOWED,
    TAG_NOT_ALLOWED,
    LINES_LEFT_OUT,
];
