//! The stable codes of syntax-layer diagnostics.
//!
//! Codes never change meaning once released; new problems get new codes.

/// Every syntax code, for tests and documentation (`gedgraft explain` has an entry for each; a test there
/// checks this list against the constants below).
pub const ALL: &[&str] = &[
    FIRST_LINE_NOT_HEAD,
    BAD_LEVEL,
    LEVEL_OUT_OF_RANGE,
    MISSING_DELIMITER,
    BAD_TAG,
    BAD_XREF,
    LEVEL_JUMP,
    MISPLACED_CONTINUATION,
    CONTINUATION_AT_LEVEL_0,
    CONTINUATION_WITH_XREF,
    CONTINUATION_WITH_SUBSTRUCTURES,
    MISSING_TRAILER,
    NON_EMPTY_TRAILER,
    MISPLACED_TRAILER,
    CONTENT_AFTER_TRAILER,
    RECORD_AFTER_TRAILER,
    JUNK_AFTER_TRAILER,
    BLANK_LINE,
    LEADING_WHITESPACE,
    UNDECODABLE_OCTETS,
    UNTERMINATED_ESCAPE,
    BAD_ESCAPE,
    MISPLACED_HEADER,
    CONTINUATION_OF_POINTER,
    POINTER_IN_CONTINUATION,
    NOT_A_CHARACTER,
    BACKSPACE,
    CONTROL_CHARACTER,
    LINE_TOO_LONG,
    UNESCAPED_AT,
    LF_CR_LINE_BREAKS,
    MIXED_LINE_BREAKS,
    CONC_AT_WHITESPACE,
    CONC_AFTER_DIACRITIC,
    NOT_GEDCOM,
];

/// The first line is not `0 HEAD` (R-SPECIFIED-ENC-06).
pub const FIRST_LINE_NOT_HEAD: &str = "first-line-not-head";
/// A line's level is missing or is not `0` or a number without leading zeros (R-LINES-03).
pub const BAD_LEVEL: &str = "bad-level";
/// A level too large to be a level of any well-formed file (more than `MAX_LEVEL`, 4 294 967 295;
/// R-LINES-03, R-LINES-04): a malformed line, reported with the level as written.
pub const LEVEL_OUT_OF_RANGE: &str = "level-out-of-range";
/// No whitespace between a line's components (R-LINES-06).
pub const MISSING_DELIMITER: &str = "missing-delimiter";
/// The line has no tag, or the tag has characters outside `[0-9A-Za-z_]` (R-TAGS-01).
pub const BAD_TAG: &str = "bad-tag";
/// A cross-reference label does not match `XRefLabel` (R-XREF-IDS-01).
pub const BAD_XREF: &str = "bad-xref";
/// A line is more than one level deeper than the line before it (R-LINES-04).
pub const LEVEL_JUMP: &str = "level-jump";
/// A `CONT`/`CONC` line that cannot continue the structure above it (after a substructure, or at the wrong level).
pub const MISPLACED_CONTINUATION: &str = "misplaced-continuation";
/// A `CONT`/`CONC` line at level 0.
pub const CONTINUATION_AT_LEVEL_0: &str = "continuation-at-level-0";
/// A `CONT`/`CONC` line with a cross-reference identifier.
pub const CONTINUATION_WITH_XREF: &str = "continuation-with-xref";
/// A line nested below a `CONT`/`CONC` line.
pub const CONTINUATION_WITH_SUBSTRUCTURES: &str = "continuation-with-substructures";
/// The file has no trailer line (R-TAGGED-STRUCTS-05).
pub const MISSING_TRAILER: &str = "missing-trailer";
/// The trailer line has a cross-reference identifier or a payload (R-TAGGED-STRUCTS-05).
pub const NON_EMPTY_TRAILER: &str = "non-empty-trailer";
/// A `TRLR` line below level 0 (R-SECOND-PASS-02).
pub const MISPLACED_TRAILER: &str = "misplaced-trailer";
/// Text after the trailer that is not records of the format (an HTML page, a level-1 line right after the
/// trailer), kept as trailing text (R-TAGGED-STRUCTS-05).
pub const CONTENT_AFTER_TRAILER: &str = "content-after-trailer";
/// Records after the trailer line (an export appended to another): read as records of a malformed file, so
/// that edits and the lowering reach them (R-TAGGED-STRUCTS-03, -05). Reported on the first record after each
/// trailer.
pub const RECORD_AFTER_TRAILER: &str = "record-after-trailer";
/// Warning: a DOS end-of-file mark, `^Z`, after the trailer (with whatever follows it), ignored: a deliberate
/// departure from R-LINES-01 and R-TAGGED-STRUCTS-05, see `after_trailer::is_dos_end_of_file`. Other text after
/// the trailer is `content-after-trailer`.
pub const JUNK_AFTER_TRAILER: &str = "junk-after-trailer";
/// A blank or whitespace-only line (allowed, R-LINE-STRINGS-06).
pub const BLANK_LINE: &str = "blank-line";
/// Whitespace before a line's level (allowed, R-LINE-STRINGS-04).
pub const LEADING_WHITESPACE: &str = "leading-whitespace";
/// Octets the file's encoding cannot decode, kept as they are.
pub const UNDECODABLE_OCTETS: &str = "undecodable-octets";
/// `@#` with no closing `@` on the line (R-IDENTIFY-ESCS-04).
pub const UNTERMINATED_ESCAPE: &str = "unterminated-escape";
/// An escape sequence whose type (the character after `@#`) is not an upper-case letter (R-ESCAPE-SEQ-02,
/// R-IDENTIFY-ESCS-04).
pub const BAD_ESCAPE: &str = "bad-escape";
/// A `HEAD` line that is not the file's first line (R-SECOND-PASS-02).
pub const MISPLACED_HEADER: &str = "misplaced-header";
/// A `CONT`/`CONC` line continuing a pointer payload, which is never merged (R-SECOND-PASS-02).
pub const CONTINUATION_OF_POINTER: &str = "continuation-of-pointer";
/// A `CONT`/`CONC` line whose payload is a pointer (R-MERGE-CONTS-07).
pub const POINTER_IN_CONTINUATION: &str = "pointer-in-continuation";
/// Malformed line: U+0000, U+FFFE or U+FFFF in a line; they are not characters (2019 L615, Basic Concepts § 2),
/// so the line string cannot match `Line` (R-LINES-01). Kept as written.
pub const NOT_A_CHARACTER: &str = "not-a-character";
/// Non-conformant source: the backspace character U+0008 must not occur (R-ENCODINGS-08). Kept as written.
pub const BACKSPACE: &str = "backspace";
/// Warning: a C0 control character other than tab, LF, CR and backspace, or DEL, in a line: a restricted
/// character in ELF (Basic Concepts § 2.3, R-SPECIFIED-ENC-04), banned in GEDCOM 7. Kept as written.
pub const CONTROL_CHARACTER: &str = "control-character";
/// Warning: a line longer than 255 octets (510 in UTF-16), line break included, in the file's encoding
/// (R-SERIALISING-STRUCTS-08). Not in GEDCOM 7, which has no limit.
pub const LINE_TOO_LONG: &str = "line-too-long";
/// Warning: a bare `@` in a string payload, not part of `@@` or an escape; read as a literal `@`
/// (R-IDENTIFY-ESCS-05) but it should be doubled (R-ESCAPING-01). Not in GEDCOM 7, which doubles only a
/// leading `@` (the lowering's `unescaped-leading-at`).
pub const UNESCAPED_AT: &str = "unescaped-at";
/// Warning: the file's line breaks are LF CR, read as two line breaks around an empty line (R-LINE-STRINGS-02);
/// one diagnostic for the file, counting the pairs, instead of a `blank-line` per line.
pub const LF_CR_LINE_BREAKS: &str = "lf-cr-line-breaks";
/// Warning: the file's lines end with more than one form of line break (LF, CR LF, CR). Each is a line break
/// (R-LINE-STRINGS-01), but tools that split on one form do not read the file as written. One diagnostic for
/// the file, at the first break not of the majority form, counting every such break.
pub const MIXED_LINE_BREAKS: &str = "mixed-line-breaks";
/// Warning: a `CONC` line splits the text next to whitespace: the line before ends with whitespace
/// (R-SERIALISING-STRUCTS-10) or the `CONC` payload starts with it (R-SERIALISING-STRUCTS-11). Read as written
/// (R-LINE-STRINGS-05), but many readers trim lines and lose it. Not in GEDCOM 7, which has no `CONC`.
pub const CONC_AT_WHITESPACE: &str = "conc-at-whitespace";
/// Warning: in ANSEL, a `CONC` line splits a diacritic from its letter: the line before ends with a combining
/// diacritic, which ANSEL writes before the letter it marks (`ansel-to-unicode.md`). Read as one text, as the
/// payload is (the mark goes on the `CONC` line's first letter); but readers that decode each line alone put
/// it on no letter, and writers must not split there (as the editor's splits never do). Not in GEDCOM 7.
pub const CONC_AFTER_DIACRITIC: &str = "conc-after-diacritic";
/// Malformed structure: the file is not a GEDCOM file at all (an HTML page, a picture, a program): none of its
/// first lines starts with a level and a tag (see `not_gedcom.rs` for the rule). The only diagnostic of the
/// file; the whole text is kept as trailing text (R-SPECIFIED-ENC-06: stop parsing the stream as ELF).
pub const NOT_GEDCOM: &str = "not-gedcom";
