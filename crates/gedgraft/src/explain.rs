//! `gedgraft explain CODE`, like `rustc --explain`: what a diagnostic code means, its class, the rule it comes
//! from, a minimal example and how to fix it; with no code, every code with a one-line summary.
//!
//! [`ENTRIES`] is the one list of every code `check` can print. The codes themselves are declared in three
//! crates (`gedgraft_syntax::codes`, `gedgraft_model::codes`, `gedgraft_encoding::EncodingNote`); a test fails
//! when a code declared there has no entry here, or an entry names no declared code, and another runs every
//! example through `check` to see that it reports its code with the class given here.

use crate::cli::ExplainArgs;
use gedgraft_syntax::Class;
use std::fmt::Write;
use std::process::ExitCode;

/// What `gedgraft explain` says about one code.
#[derive(Debug)]
pub struct Entry {
    /// The stable kebab-case code.
    pub code: &'static str,
    /// The class of the diagnostic (its severity follows).
    pub class: Class,
    /// The requirement IDs of `requirements.md` (or the GEDCOM 7.0 section) it comes from; empty when the
    /// diagnostic is gedgraft's own advice.
    pub rules: &'static [&'static str],
    /// What it means, in one line.
    pub summary: &'static str,
    /// A longer explanation.
    pub detail: &'static str,
    /// A minimal file that has the problem (its octets).
    pub example: &'static [u8],
    /// How to fix it, in one line (also the `= help:` line of `check`).
    pub help: &'static str,
}

/// The entry of `code`.
pub fn entry(code: &str) -> Option<&'static Entry> {
    ENTRIES.iter().find(|e| e.code == code)
}

/// Runs `gedgraft explain`: exit status 2 for an unknown code.
pub fn run(args: &ExplainArgs) -> Result<ExitCode, String> {
    let Some(asked) = args.code.as_deref() else {
        crate::output::emit(&list())?;
        return Ok(ExitCode::SUCCESS);
    };
    // `error[bad-tag]`, `[bad-tag]` and `bad-tag` all name `bad-tag`.
    let code = asked
        .rsplit_once('[')
        .map_or(asked, |(_, rest)| rest)
        .trim_end_matches([']', ':'])
        .trim();
    match entry(&code.to_ascii_lowercase()) {
        Some(e) => {
            crate::output::emit(&explain(e))?;
            Ok(ExitCode::SUCCESS)
        }
        None => Err(format!(
            "no diagnostic code `{asked}`; `gedgraft explain` lists them all"
        )),
    }
}

/// Every code with its severity and summary, one a line, in the order of [`ENTRIES`].
pub fn list() -> String {
    let width = ENTRIES.iter().map(|e| e.code.len()).max().unwrap_or(0);
    let mut out = String::from(
        "Diagnostic codes of `gedgraft check` (`gedgraft explain CODE` says more):\n\n",
    );
    for e in ENTRIES {
        let code = e.code;
        let severity = e.class.severity().as_str();
        let _ = writeln!(out, "  {code:<width$}  {severity:<7}  {}", e.summary);
    }
    out
}

/// The whole explanation of one code.
pub fn explain(e: &Entry) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}\n", e.code, e.summary);
    let _ = writeln!(out, "Class: {}", class_text(e.class));
    if !e.rules.is_empty() {
        let _ = writeln!(out, "Rule: {}", e.rules.join(", "));
    }
    let _ = writeln!(out, "\n{}\n\nExample:\n", e.detail);
    for line in show_example(e.example).lines() {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(out, "\nHow to fix it: {}", e.help);
    let _ = writeln!(out, "\n{}", repair_text(e.code));
    out
}

/// Whether a code has a repair, of which kind, and what it does (from [`gedgraft_edit::REPAIR_KINDS`]).
fn repair_text(code: &str) -> String {
    match gedgraft_edit::repair_kind(code) {
        Some((gedgraft_edit::Applicability::Safe, what)) => {
            format!("Repair (safe, `gedgraft fix --repair`): {what}.")
        }
        Some((_, what)) => format!(
            "Repair (unsafe, a guess: `gedgraft fix --repair-unsafe` or `--repair={code}`): {what}."
        ),
        None => "Repair: none; `gedgraft fix --repair` leaves this to you.".to_string(),
    }
}

/// What a class means to the user.
fn class_text(class: Class) -> &'static str {
    match class {
        Class::MalformedLine => "malformed line (error): a strict ELF parser stops here",
        Class::MalformedStructure => "malformed structure (error): a strict ELF parser stops here",
        Class::NonConformant => {
            "non-conformant structure or source (error): a parser must stop or warn"
        }
        Class::Warning => "warning: the input is allowed, but worth knowing about",
    }
}

/// An example's octets as text: UTF-8 as it is, other octets and control characters (but line breaks) as `\xE9`.
fn show_example(octets: &[u8]) -> String {
    let mut out = String::new();
    for chunk in octets.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() && c != '\n' {
                let _ = write!(out, "\\x{:02X}", u32::from(c));
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out
}

use Class::{MalformedLine as Line, MalformedStructure as Structure, NonConformant, Warning};

/// Every code `check` can report: the syntax layer's, the encoding notes, then the lowering's.
pub static ENTRIES: &[Entry] = &[
    // ----- gedgraft_syntax::codes -----
    Entry {
        code: "first-line-not-head",
        class: Structure,
        rules: &["R-SPECIFIED-ENC-06"],
        summary: "the file does not start with a `0 HEAD` line",
        detail: "Every file starts with its header, a record whose first line is `0 HEAD` with nothing after the \
                 tag. Programs read the header to learn the encoding and version; without it they guess.",
        example: b"0 @I1@ INDI\n1 NAME Ann\n0 TRLR\n",
        help: "make `0 HEAD` the first line (an empty file or a fragment needs a header too)",
    },
    Entry {
        code: "bad-level",
        class: Line,
        rules: &["R-LINES-03"],
        summary: "a line's level is missing or is not a number without leading zeros",
        detail: "Each line starts with its level: `0` for a record, one more for each level of nesting. A line \
                 that starts with something else (a letter, `-1`, `01`) cannot be placed in the tree; it is \
                 kept as a malformed line. Often it is a line of a note that was broken in two by an editor.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NOTE First line\nsecond line\n0 TRLR\n",
        help: "give the line its level, or join it to the line it belongs to (with `CONT` for a new line of a note)",
    },
    Entry {
        code: "level-out-of-range",
        class: Line,
        rules: &["R-LINES-03", "R-LINES-04"],
        summary: "a level too large to be the level of any well-formed file",
        detail: "A level above 4 294 967 295 cannot be the depth of a real structure: the line is kept as a \
                 malformed line, with its level as written.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n99999999999 NAME Ann\n0 TRLR\n",
        help: "write the level the line really has (one more than its parent's)",
    },
    Entry {
        code: "missing-delimiter",
        class: Line,
        rules: &["R-LINES-06"],
        summary: "no space between a line's level, identifier, tag and payload",
        detail: "The parts of a line are separated by whitespace: `0 @I1@ INDI`, not `0@I1@ INDI` or \
                 `0 @I1@INDI`.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@INDI\n1 NAME Ann\n0 TRLR\n",
        help: "put a space between the parts of the line",
    },
    Entry {
        code: "bad-tag",
        class: Line,
        rules: &["R-TAGS-01"],
        summary: "a line has no tag, or its tag has characters other than letters, digits and `_`",
        detail: "A tag names what a line holds (`NAME`, `BIRT`, `_UID`). It is made of the letters A to Z and a \
                 to z, the digits and `_`; anything else means the line was damaged or is not a GEDCOM line.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NA*ME Ann\n0 TRLR\n",
        help: "write the tag with letters, digits and `_` only (a program's own tags start with `_`)",
    },
    Entry {
        code: "bad-xref",
        class: Line,
        rules: &["R-XREF-IDS-01"],
        summary: "a cross-reference identifier is empty, unclosed or has characters other than letters, digits and `_`",
        detail: "Identifiers such as `@I1@` name records so that other records can point at them. One that is \
                 empty (`@@`), unclosed (`@I1`) or holds other characters cannot be pointed at reliably.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I 1@ INDI\n1 NAME Ann\n0 TRLR\n",
        help: "write the identifier as `@`, letters, digits or `_`, `@` (and change the pointers to it too)",
    },
    Entry {
        code: "level-jump",
        class: Line,
        rules: &["R-LINES-04"],
        summary: "a line is more than one level deeper than the line before it",
        detail: "A line may go at most one level deeper than the line before it: after a level 1 line comes \
                 level 2 at most. A jump means a line in between was lost or a level was mistyped.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n2 NAME Ann\n0 TRLR\n",
        help: "fix the level, or restore the missing line in between",
    },
    Entry {
        code: "misplaced-continuation",
        class: Structure,
        rules: &["R-MERGE-CONTS-01"],
        summary: "a `CONT` or `CONC` line that cannot continue the line above it",
        detail: "A `CONT` (new line) or `CONC` (same line) continues the payload of its parent, and comes right \
                 after it, one level deeper, before any substructure. One after a substructure, or at the wrong \
                 level, continues nothing.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE Start of note\n1 REFN 5bb4\n1 CONT End of note\n0 TRLR\n",
        help: "move the line up, right after the line it continues, at one level deeper",
    },
    Entry {
        code: "continuation-at-level-0",
        class: Structure,
        rules: &["R-MERGE-CONTS-01"],
        summary: "a `CONT` or `CONC` line at level 0, where it continues nothing",
        detail: "Continuation lines belong to a structure; at level 0 there is none to continue.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 CONT lost text\n0 TRLR\n",
        help: "give the line the level of the structure it continues plus one, or remove it",
    },
    Entry {
        code: "continuation-with-xref",
        class: Structure,
        rules: &["R-MERGE-CONTS-01"],
        summary: "a `CONT` or `CONC` line with a cross-reference identifier",
        detail: "A continuation line is part of its parent's payload and cannot be pointed at.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE a\n1 @X1@ CONT b\n0 TRLR\n",
        help: "remove the identifier from the `CONT`/`CONC` line",
    },
    Entry {
        code: "continuation-with-substructures",
        class: Structure,
        rules: &["R-MERGE-CONTS-01"],
        summary: "a line nested below a `CONT` or `CONC` line",
        detail: "A continuation line has no substructures: the lines below it belong to the structure it \
                 continues, at its level.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE a\n1 CONT b\n2 SOUR c\n0 TRLR\n",
        help: "move the nested line up a level, after the continuation lines",
    },
    Entry {
        code: "missing-trailer",
        class: Structure,
        rules: &["R-TAGGED-STRUCTS-05"],
        summary: "the file has no `0 TRLR` line at its end",
        detail: "A file ends with `0 TRLR`. A missing trailer often means the file was cut short (a full disk, \
                 an interrupted download): check that its last records are complete.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ann\n",
        help: "check the end of the file is complete, then add the line `0 TRLR`",
    },
    Entry {
        code: "non-empty-trailer",
        class: Structure,
        rules: &["R-TAGGED-STRUCTS-05"],
        summary: "the trailer line has an identifier or a payload",
        detail: "The trailer is the bare line `0 TRLR`.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 TRLR end of file\n",
        help: "remove what follows `TRLR` on that line",
    },
    Entry {
        code: "misplaced-trailer",
        class: Structure,
        rules: &["R-SECOND-PASS-02"],
        summary: "a `TRLR` line below level 0",
        detail: "The trailer is a record, at level 0; a nested `TRLR` ends nothing.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 TRLR\n0 TRLR\n",
        help: "remove the nested `TRLR` line",
    },
    Entry {
        code: "content-after-trailer",
        class: Structure,
        rules: &["R-TAGGED-STRUCTS-05"],
        summary: "text after the trailer that is not records of the format",
        detail: "Nothing follows `0 TRLR` but, at most, line breaks. Text there (a saved web page, a stray line) \
                 is kept as it is, but no program reads it.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n1 NOTE not a record\n",
        help: "remove the text after `0 TRLR`, or move what matters into a record before it",
    },
    Entry {
        code: "record-after-trailer",
        class: Structure,
        rules: &["R-TAGGED-STRUCTS-03", "R-TAGGED-STRUCTS-05"],
        summary: "records after the trailer line (one export appended to another)",
        detail: "The records after `0 TRLR` are read as records of the file, so `check`, `fix` and `lower` \
                 reach them, but other programs stop at the first trailer and never see them.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n0 @I1@ INDI\n1 NAME Ann\n0 TRLR\n",
        help: "remove the inner `0 TRLR` lines (and a second header) so that the file has one header and one trailer",
    },
    Entry {
        code: "junk-after-trailer",
        class: Warning,
        rules: &["R-TAGGED-STRUCTS-05"],
        summary: "a DOS end-of-file mark (^Z) after the trailer",
        detail: "Old DOS programs end files with octet 1A (^Z). It is kept as it is and harms nothing. (Other \
                 text or octets after the trailer are `content-after-trailer`.)",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 TRLR\n\x1a",
        help: "nothing needs doing; remove it if another program complains",
    },
    Entry {
        code: "blank-line",
        class: Warning,
        rules: &["R-LINE-STRINGS-06"],
        summary: "a blank or whitespace-only line",
        detail: "Blank lines are allowed and ignored, but some programs stop at them. A run of them on \
                 neighbouring lines is reported once, with a count.",
        example: b"0 HEAD\n1 CHAR UTF-8\n\n0 TRLR\n",
        help: "nothing needs doing; remove blank lines if another program complains",
    },
    Entry {
        code: "leading-whitespace",
        class: Warning,
        rules: &["R-LINE-STRINGS-04"],
        summary: "whitespace before a line's level",
        detail: "Indentation before the level is allowed and ignored (some programs indent by level).",
        example: b"0 HEAD\n  1 CHAR UTF-8\n0 TRLR\n",
        help: "nothing needs doing; remove the indentation if another program complains",
    },
    Entry {
        code: "undecodable-octets",
        class: NonConformant,
        rules: &["R-SPECIFIED-ENC-01"],
        summary: "octets the file's encoding cannot decode, kept as they are",
        detail: "The file is read in one encoding (its `CHAR` line, a byte-order mark or the default), and \
                 these octets are not text in it. Usually the file is in another encoding than it says; \
                 `check` then also warns `declared-encoding-mismatch` and names the likely one. The snippet \
                 shows such octets as `\\xE9`.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Jos\xe9\n0 TRLR\n",
        help: "read the file in its real encoding (`--encoding NAME`), then transcode it with `fix --to-encoding`",
    },
    Entry {
        code: "unterminated-escape",
        class: NonConformant,
        rules: &["R-IDENTIFY-ESCS-04"],
        summary: "`@#` with no `@` closing it on the line",
        detail: "`@#` starts an escape sequence (`@#DGREGORIAN@`, `@#U00E9@`) that ends at the next `@`. A lone \
                 `@` in text is written `@@` in GEDCOM 5.5.1.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE see @#1 below\n0 TRLR\n",
        help: "close the escape with `@`, or write the `@` as `@@` (`fix --escape-at` does it)",
    },
    Entry {
        code: "bad-escape",
        class: NonConformant,
        rules: &["R-ESCAPE-SEQ-02", "R-IDENTIFY-ESCS-04"],
        summary: "an escape sequence whose type (the character after `@#`) is not an upper-case letter",
        detail: "An escape sequence is `@#`, an upper-case letter naming its type, its text and `@`. Text such \
                 as `a @#x@ b` is most likely a bare `@` that should have been doubled.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE a @#x@ b\n0 TRLR\n",
        help: "write a bare `@` as `@@` (`fix --escape-at` does it)",
    },
    Entry {
        code: "misplaced-header",
        class: Structure,
        rules: &["R-SECOND-PASS-02"],
        summary: "a `HEAD` line that is not the file's first line",
        detail: "The header is the first record; a second one (often from files pasted together) is not read \
                 as a header.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n0 HEAD\n0 TRLR\n",
        help: "remove the second header (keep what it says that matters in the first)",
    },
    Entry {
        code: "continuation-of-pointer",
        class: Structure,
        rules: &["R-SECOND-PASS-02"],
        summary: "a `CONT` or `CONC` line continuing a pointer",
        detail: "A pointer such as `@F1@` is a whole payload; it is never continued.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 FAMC @F1@\n2 CONC x\n0 TRLR\n",
        help: "remove the continuation line, or move its text to a `NOTE`",
    },
    Entry {
        code: "pointer-in-continuation",
        class: NonConformant,
        rules: &["R-MERGE-CONTS-07"],
        summary: "a `CONT` or `CONC` line whose payload is a pointer",
        detail: "A continuation line holds text; a pointer there is read as text, not as a link.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE This can be found in:\n1 CONT @F1@\n0 TRLR\n",
        help: "write the `@` as `@@` if it is text, or make the pointer a structure of its own",
    },
    Entry {
        code: "not-a-character",
        class: Line,
        rules: &["R-LINES-01", "R-UNICODE-ESCAPE-02"],
        summary: "the line holds U+0000 (NUL), U+FFFE or U+FFFF, which are not characters",
        detail: "These code points are not characters at all, so a line holding one is malformed; it is kept \
                 as written. They are usually corruption, or the sign of a wrongly guessed encoding. The escapes \
                 `@#U0@`, `@#UFFFE@` and `@#UFFFF@` are refused for the same reason (`bad-unicode-escape`).",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME a\x00b\n0 TRLR\n",
        help: "delete the character, or read the file with the encoding it really has (`--encoding NAME`)",
    },
    Entry {
        code: "backspace",
        class: NonConformant,
        rules: &["R-ENCODINGS-08"],
        summary: "the text holds U+0008 (backspace), which must never appear",
        detail: "Old systems overstruck a letter with an accent by writing a backspace between them. The \
                 character has no meaning in a file today and must not occur; it is kept as written.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Jose\x08'\n0 TRLR\n",
        help: "delete it and write the accented letter itself (or `@#U…@` in ASCII)",
    },
    Entry {
        code: "control-character",
        class: Warning,
        rules: &["R-SPECIFIED-ENC-04"],
        summary: "the text holds an invisible control character (vertical tab, form feed, escape, DEL, …)",
        detail: "Control characters are restricted in ELF and banned in GEDCOM 7; they usually come from text \
                 pasted out of a word processor. It is kept as written.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NOTE a\x0bb\n0 TRLR\n",
        help: "remove it, or replace it with a space or a `CONT` line break",
    },
    Entry {
        code: "line-too-long",
        class: Warning,
        rules: &["R-SERIALISING-STRUCTS-08"],
        summary: "a line is longer than 255 octets (510 in UTF-16), line break included",
        detail: "Writers keep lines within 255 octets by splitting long text with `CONC` lines; older programs \
                 may cut a longer line. GEDCOM 7 has no limit (and no `CONC`), so its files are not told.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n0 TRLR\n",
        help: "`gedgraft fix --rewrap` splits it with `CONC` lines without changing the text",
    },
    Entry {
        code: "unescaped-at",
        class: Warning,
        rules: &["R-IDENTIFY-ESCS-05", "R-ESCAPING-01"],
        summary: "a single `@` in text, which ELF and GEDCOM 5.5.x want written `@@`",
        detail: "A bare `@` that starts no escape is read as itself, but writers must double it so that it can \
                 never be taken for a pointer or an escape. GEDCOM 7 doubles only a leading `@` \
                 (`unescaped-leading-at`).",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 EMAIL ann@example.com\n0 TRLR\n",
        help: "`gedgraft fix --escape-at` doubles every bare `@`",
    },
    Entry {
        code: "lf-cr-line-breaks",
        class: Warning,
        rules: &["R-LINE-STRINGS-02"],
        summary: "the line breaks are LF followed by CR, read as two breaks around an empty line",
        detail: "Each LF CR pair is read as two line breaks with an ignored empty line between them. One \
                 warning is given for the file, counting the pairs, instead of one `blank-line` per line.",
        example: b"0 HEAD\n\r1 CHAR UTF-8\n\r0 TRLR\n\r",
        help: "`gedgraft fix --eol crlf --join-lf-cr` rewrites them as CR LF",
    },
    Entry {
        code: "mixed-line-breaks",
        class: Warning,
        rules: &["R-LINE-STRINGS-01"],
        summary: "the lines end with more than one form of line break (LF, CR LF, CR)",
        detail: "Each of LF, CR LF and CR ends a line, so the file reads the same, but programs that split \
                 lines on one form see stray CR characters or run lines together, and an edit cannot tell \
                 which form a new line should get. One warning is given for the file, at the first break \
                 that is not of the most common form, counting every such break. An LF directly followed by \
                 a CR is `lf-cr-line-breaks`, not counted here.",
        example: b"0 HEAD\r\n1 CHAR UTF-8\r\n0 @I1@ INDI\n0 TRLR\r\n",
        help: "`gedgraft fix --repair` makes every line break the most common form (or choose one: `--eol crlf`)",
    },
    Entry {
        code: "conc-at-whitespace",
        class: Warning,
        rules: &["R-SERIALISING-STRUCTS-10", "R-SERIALISING-STRUCTS-11", "R-LINE-STRINGS-05"],
        summary: "a `CONC` line splits the text next to a space or tab",
        detail: "Writers must not end a line that a `CONC` line continues with whitespace, and should not start \
                 a `CONC` payload with it, because many readers trim lines and so lose the space between two \
                 words. gedgraft reads the text as written, whitespace included. Neighbouring `CONC` lines \
                 split this way are one warning. Not in GEDCOM 7, which has no `CONC`.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE Born in the \n1 CONC parish of Ely\n0 TRLR\n",
        help: "`gedgraft fix --repair` moves the split between two other characters; the text stays the same",
    },
    Entry {
        code: "conc-after-diacritic",
        class: Warning,
        rules: &["R-ANSEL-01", "R-ENCODINGS-09", "R-LINE-STRINGS-05"],
        summary: "in ANSEL, a `CONC` line splits a diacritic from the letter it marks",
        detail: "ANSEL writes a combining diacritic before its letter (`E2 65` is `é`). When a line ends with \
                 the diacritic and the letter starts the `CONC` line after it, gedgraft joins the payload \
                 first, so the mark goes on that letter; readers that decode each line alone put it on no \
                 letter, or on the line break, and show a stray accent. The editor never splits there. \
                 Neighbouring `CONC` lines split this way are one warning. Not in GEDCOM 7, which has no \
                 `CONC` and no ANSEL.",
        example: b"0 HEAD\n1 CHAR ANSEL\n0 @N1@ NOTE Jos\xE2\n1 CONC e Smith\n0 TRLR\n",
        help: "`gedgraft fix --repair` moves the split off the diacritic; the text stays the same",
    },
    Entry {
        code: "not-gedcom",
        class: Structure,
        rules: &["R-SPECIFIED-ENC-06"],
        summary: "the file is not a GEDCOM file (an HTML page, a picture, a program)",
        detail: "None of the first lines starts with a level number as GEDCOM lines do, so nothing else is \
                 checked and no other diagnostic is given; the file is kept as it is.",
        example: b"<!DOCTYPE html>\n<html><body>My family tree</body></html>\n",
        help: "open the right file, or export the tree again from your genealogy program as GEDCOM",
    },
    // ----- gedgraft_encoding::EncodingNote -----
    Entry {
        code: "nul-octet",
        class: NonConformant,
        rules: &["R-SPECIFIED-ENC-03"],
        summary: "a NUL octet (00) where the file's encoding was being worked out",
        detail: "Octet 00 is in no text encoding GEDCOM uses but UTF-16, so the file is damaged or not a \
                 GEDCOM file. gedgraft still reads it to show and keep it.",
        example: b"0 HEAD\n1 NOTE a\x00b\n1 CHAR UTF-8\n0 TRLR\n",
        help: "remove the NUL octets, or read the file as UTF-16 if it is (`--encoding UTF-16LE`)",
    },
    Entry {
        code: "unknown-declared-encoding",
        class: Warning,
        rules: &["R-SPECIFIED-ENC-14", "R-SPECIFIED-ENC-16"],
        summary: "the `CHAR` line names an encoding gedgraft does not know",
        detail: "The file is read in the detected or default encoding instead; the message says which.",
        example: b"0 HEAD\n1 CHAR KLINGON\n0 TRLR\n",
        help: "write the encoding's usual name in `1 CHAR` (UTF-8, ANSEL, ANSI, ASCII, UNICODE)",
    },
    Entry {
        code: "declared-encoding-mismatch",
        class: Warning,
        rules: &["R-SPECIFIED-ENC-01"],
        summary: "the octets contradict the encoding the `CHAR` line declares",
        detail: "Many files say one encoding and are written in another (windows-1252 labelled ANSEL, UTF-8 \
                 labelled ANSI). The message names the likely one. Edits that keep octets are safe; a \
                 transcode is refused until you say which reading is right.",
        example: b"0 HEAD\n1 CHAR ASCII\n0 @I1@ INDI\n1 NAME Jos\xc3\xa9\n0 TRLR\n",
        help: "check with `--encoding NAME` which reading is right, then fix `CHAR` or transcode with `fix --to-encoding`",
    },
    Entry {
        code: "encoding-mismatch",
        class: Warning,
        rules: &["R-SPECIFIED-ENC-01"],
        summary: "a file with no usable `CHAR` line whose octets contradict the encoding it is read in",
        detail: "Without `CHAR` the file is read in its byte-order mark's encoding or the default (UTF-8), and \
                 its octets do not fit. The message names the likely encoding.",
        example: b"0 HEAD\n0 @I1@ INDI\n1 NAME Jos\xe9\n0 TRLR\n",
        help: "read the file with `--encoding NAME` and add a `1 CHAR` line that names it",
    },
    Entry {
        code: "cesu-8",
        class: Warning,
        rules: &["R-ENCODINGS-04"],
        summary: "a character outside the Basic Multilingual Plane written as CESU-8, not UTF-8",
        detail: "Some old Java and Oracle programs write characters such as emoji as two encoded surrogates \
                 (six octets), which is not valid UTF-8. The octets are kept as they are.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE \xed\xa0\xbd\xed\xb8\x80\n0 TRLR\n",
        help: "write the character in UTF-8 (four octets) instead",
    },
    // ----- gedgraft_model::codes -----
    Entry {
        code: "bad-header",
        class: Structure,
        rules: &["R-HEADER-01"],
        summary: "the header record has an identifier, a payload or continuation lines",
        detail: "The header is `0 HEAD` with substructures only.",
        example: b"0 HEAD\n1 CONT text\n1 CHAR UTF-8\n0 TRLR\n",
        help: "remove what follows `HEAD` on its line and its `CONT`/`CONC` lines",
    },
    Entry {
        code: "unpermitted-escape",
        class: NonConformant,
        rules: &["R-PERMITTED-ESCS-01", "R-PERMITTED-ESCS-05"],
        summary: "an escape sequence whose type is neither `U` (Unicode) nor `D` (date calendar)",
        detail: "Only `@#U…@` and `@#D…@` escapes have a meaning; others are kept as written.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE a @#X1@ b\n0 TRLR\n",
        help: "remove the escape, or write its `@` as `@@` if it is text",
    },
    Entry {
        code: "bad-unicode-escape",
        class: NonConformant,
        rules: &["R-UNICODE-ESCAPE-02"],
        summary: "a `@#U…@` escape that is not hexadecimal digits naming a Unicode character",
        detail: "`@#U00E9@` stands for `é`. One with other characters, or a number that is no character, is \
                 kept as written.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE caf@#UZZ@\n0 TRLR\n",
        help: "write the character's code point in hexadecimal (`@#U00E9@`), or the character itself",
    },
    Entry {
        code: "lowercase-unicode-escape",
        class: Warning,
        rules: &["R-UNICODE-ESCAPE-03"],
        summary: "a `@#U…@` escape with lower-case hexadecimal digits",
        detail: "It is read, but the draft asks for upper-case digits (`@#U00E9@`).",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE caf@#U00e9@\n0 TRLR\n",
        help: "write the digits in upper case",
    },
    Entry {
        code: "bad-metadata-structure",
        class: NonConformant,
        rules: &["R-PARSING-METADATA-02", "R-HEADER-04"],
        summary: "a header metadata structure (`CHAR`, `GEDC`, …) with an identifier, a pointer or continuation lines",
        detail: "`CHAR`, `ELF`, `GEDC`, `PLANG` and `SCHMA` in the header, and what is nested in them, say how \
                 the file is read; they are plain lines.",
        example: b"0 HEAD\n1 @C1@ CHAR UTF-8\n0 TRLR\n",
        help: "remove the identifier, pointer or continuation lines",
    },
    Entry {
        code: "duplicate-metadata",
        class: NonConformant,
        rules: &["R-PARSING-METADATA-04"],
        summary: "a second `CHAR`, `ELF`, `GEDC` or `PLANG` in the header; it is ignored",
        detail: "The first one counts. If they disagree, programs may read the file differently.",
        example: b"0 HEAD\n1 CHAR UTF-8\n1 CHAR ANSEL\n0 TRLR\n",
        help: "keep the one that is right and remove the other",
    },
    Entry {
        code: "bad-version-number",
        class: NonConformant,
        rules: &["R-VERSION-NUMBERS-01", "R-PARSING-METADATA-06", "R-PARSING-METADATA-07"],
        summary: "the version of `ELF` or of `GEDC.VERS` is not a version number",
        detail: "A version is numbers separated by dots: `5.5.1`, `1.0`.",
        example: b"0 HEAD\n1 GEDC\n2 VERS five\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 TRLR\n",
        help: "write the version as numbers and dots (`2 VERS 5.5.1`)",
    },
    Entry {
        code: "unknown-elf-version",
        class: Warning,
        rules: &["R-SERIALISATION-VERSION-03"],
        summary: "an ELF version 1.x newer than 1.0",
        detail: "It is read as ELF 1.0.",
        example: b"0 HEAD\n1 ELF 1.1\n1 CHAR UTF-8\n0 TRLR\n",
        help: "nothing needs doing if the file reads as expected",
    },
    Entry {
        code: "unsupported-elf-version",
        class: NonConformant,
        rules: &["R-SERIALISATION-VERSION-04"],
        summary: "an ELF version whose major version is not 1",
        detail: "gedgraft reads ELF 1.x; another major version may mean something else.",
        example: b"0 HEAD\n1 ELF 2.0\n1 CHAR UTF-8\n0 TRLR\n",
        help: "check the version the file really follows",
    },
    Entry {
        code: "bad-gedc",
        class: NonConformant,
        rules: &["R-PARSING-METADATA-07"],
        summary: "`GEDC` is not one `VERS` and one `FORM LINEAGE-LINKED` (in GEDCOM 7, one `VERS` and no `FORM`)",
        detail: "`GEDC` says which GEDCOM version the file follows; programs read the file by it.",
        example: b"0 HEAD\n1 GEDC\n2 VERS 5.5.1\n1 CHAR UTF-8\n0 TRLR\n",
        help: "write `1 GEDC`, `2 VERS 5.5.1`, `2 FORM LINEAGE-LINKED` (GEDCOM 7: `2 VERS 7.0` only)",
    },
    Entry {
        code: "unsupported-gedcom-version",
        class: NonConformant,
        rules: &["R-GEDCOM-VERSION-03", "R-GEDCOM-VERSION-04"],
        summary: "a GEDCOM version other than 5.5, 5.5.1, 5.5.5 or 7.x",
        detail: "The file is read by the 5.5.1 rules.",
        example: b"0 HEAD\n1 GEDC\n2 VERS 6.0\n2 FORM LINEAGE-LINKED\n1 CHAR UTF-8\n0 TRLR\n",
        help: "write the version the file really follows",
    },
    Entry {
        code: "bad-language-tag",
        class: NonConformant,
        rules: &["R-PARSING-METADATA-05"],
        summary: "a `PLANG` line with no language tag",
        detail: "`PLANG` gives the language of the file's payloads, such as `en` or `de-AT`.",
        example: b"0 HEAD\n1 CHAR UTF-8\n1 PLANG\n0 TRLR\n",
        help: "write the language tag after `PLANG`, or remove the line",
    },
    Entry {
        code: "misused-payload-annotation",
        class: NonConformant,
        rules: &["R-TAGS-03"],
        summary: "a `PLANG` or `DTYPE` that cannot annotate its parent's payload; it is ignored",
        detail: "`PLANG` and `DTYPE` below a structure give its payload's language and datatype. One with an \
                 identifier, a pointer or substructures, a second one, or one below a pointer, is ignored.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @N1@ NOTE Guten Tag\n1 PLANG de\n1 PLANG en\n0 TRLR\n",
        help: "keep one plain `PLANG`/`DTYPE` line below a text payload",
    },
    Entry {
        code: "duplicate-xref",
        class: NonConformant,
        rules: &["R-POINTER-CONV-03", "R-RECOVER-01"],
        summary: "a cross-reference identifier used by more than one structure",
        detail: "Pointers to it cannot tell which one is meant, so they go to an `UNDEF` record. Files pasted \
                 together often repeat identifiers.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NAME Ann\n0 @I1@ INDI\n1 NAME Bob\n0 TRLR\n",
        help: "give one of them a new identifier (`fix --set-xref '@I1@=@I9@'` renames the pointers with it)",
    },
    Entry {
        code: "undefined-pointer",
        class: Warning,
        rules: &["R-POINTER-CONV-10", "R-POINTER-CONV-12", "R-POINTER-CONV-13"],
        summary: "a pointer to an identifier no structure has",
        detail: "The record it points to is missing (deleted, or left out of an export). It now points to an \
                 `UNDEF` record.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 FAMC @F9@\n0 TRLR\n",
        help: "restore the missing record, or remove the pointer",
    },
    Entry {
        code: "ambiguous-pointer",
        class: Warning,
        rules: &["R-POINTER-CONV-10"],
        summary: "a pointer to an identifier that several structures have",
        detail: "It cannot tell which is meant, so it now points to an `UNDEF` record (see `duplicate-xref`).",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n0 @I1@ INDI\n0 @F1@ FAM\n1 HUSB @I1@\n0 TRLR\n",
        help: "give the structures distinct identifiers, then point at the one that is meant",
    },
    Entry {
        code: "pointer-to-substructure",
        class: Warning,
        rules: &["R-GLOSSARY-03", "R-POINTER-CONV-10"],
        summary: "a pointer to the identifier of a structure that is not a record",
        detail: "Pointers go to records (level 0). It now points to an `UNDEF` record.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 @N1@ NOTE x\n0 @I2@ INDI\n1 ASSO @N1@\n0 TRLR\n",
        help: "make the structure pointed at a record of its own, or point at its record",
    },
    Entry {
        code: "encoding-not-allowed",
        class: NonConformant,
        rules: &["GEDCOM 7.0 \u{a7} Characters"],
        summary: "a GEDCOM 7 file that is not UTF-8, or whose `CHAR` names another encoding",
        detail: "GEDCOM 7 files are UTF-8 only. A 5.5.1 file relabelled `VERS 7.0` shows this: fix its header.",
        example: b"0 HEAD\n1 GEDC\n2 VERS 7.0\n1 CHAR ANSEL\n0 TRLR\n",
        help: "transcode to UTF-8 (`fix --to-encoding UTF-8`), or fix the version in `GEDC.VERS`",
    },
    Entry {
        code: "conc-not-allowed",
        class: NonConformant,
        rules: &["GEDCOM 7.0 \u{a7} Lines"],
        summary: "a `CONC` line in a GEDCOM 7 file",
        detail: "GEDCOM 7 has no `CONC`: long lines stay whole. It is merged as GEDCOM 5.5.1 would.",
        example: b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @N1@ SNOTE a long\n1 CONC  note\n0 TRLR\n",
        help: "join the `CONC` line to the line before it (`fix --join-conc`), or fix the version",
    },
    Entry {
        code: "unescaped-leading-at",
        class: NonConformant,
        rules: &["GEDCOM 7.0 lineStr"],
        summary: "a GEDCOM 7 payload that starts with a single `@` and is not a pointer",
        detail: "In GEDCOM 7 a payload starting with `@` is doubled (`@@home`); an `@` elsewhere stays single.",
        example: b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @N1@ SNOTE @home\n0 TRLR\n",
        help: "double the leading `@` (`fix --escape-at` does it)",
    },
    Entry {
        code: "xref-not-allowed",
        class: NonConformant,
        rules: &["GEDCOM 7.0 Xref"],
        summary: "a GEDCOM 7 identifier or pointer that is not upper-case letters, digits and `_`, or `@VOID@` on a structure",
        detail: "GEDCOM 7 identifiers are upper-case letters, digits and `_` (`@I1@`, `@F_2@`); `@VOID@` is the \
                 null pointer, which leads nowhere, never a structure's identifier. GEDCOM 5.5.1 allowed more \
                 (`@i-1@`): a file relabelled `VERS 7.0` shows this. The line is kept as written.",
        example: b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @i1@ INDI\n0 TRLR\n",
        help: "renumber the identifier and its pointers (`fix --set-xref @i1@=I1`), or fix the version",
    },
    Entry {
        code: "tag-not-allowed",
        class: NonConformant,
        rules: &["GEDCOM 7.0 Tag"],
        summary: "a GEDCOM 7 tag that is not upper-case letters, digits and `_` (starting with a letter or `_`)",
        detail: "GEDCOM 7 tags are upper case (`NAME`, extension tags `_MYTAG`); GEDCOM 5.5.1 and ELF allowed \
                 lower case (`Name`, `_myTag`): a file relabelled `VERS 7.0`, or written by a tool that kept \
                 the old tags, shows this. The line is kept as written.",
        example: b"0 HEAD\n1 GEDC\n2 VERS 7.0\n0 @I1@ INDI\n1 _myTag x\n0 TRLR\n",
        help: "rename the tag (`fix --rename-tag _myTag=_MYTAG`), or fix the version",
    },
    Entry {
        code: "lines-left-out",
        class: Warning,
        rules: &["R-RECOVER-06", "R-RECOVER-07", "R-RECOVER-09"],
        summary: "the dataset leaves out a malformed line or a level jump, with the lines nested in it",
        detail: "A line that cannot be read, or that goes more than one level deeper than the line before it, \
                 has no place in the dataset. `gedgraft lower` and the other readers of the dataset leave it \
                 out together with the lines nested under it, and never change any line's level (the redux \
                 draft's recovery rules); the file itself keeps every octet. The error on the first of these \
                 lines says what is wrong with it; `--strict` stops there instead.",
        example: b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n2 PLAC Moscow\n3 ROMN Moskva\n1 NAME Ivan\n0 TRLR\n",
        help: "fix the first line of the run (its level or its tag); its nested lines then come back",
    },
];

#[cfg(test)]
mod tests {
    use super::{entry, explain, list, show_example, ENTRIES};
    use gedgraft_model::{lower, LowerOptions};
    use std::collections::BTreeSet;
    use std::path::Path;

    /// The string values of `pub const NAME: &str = "value";` (or `&'static str`) declarations in a source
    /// file of the workspace: what the crates really declare, whether or not their `ALL` lists keep up.
    fn declared(file: &str) -> BTreeSet<String> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(file);
        let source = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        source
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("pub const ") && l.contains("str = \""))
            .filter_map(|l| Some(l.split_once("str = \"")?.1.split_once('"')?.0.to_string()))
            .collect()
    }

    fn set(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|c| (*c).to_string()).collect()
    }

    /// One list of every code that cannot drift: every code the three crates declare has an entry, every
    /// entry names a declared code, and each crate's `ALL` lists exactly what it declares.
    #[test]
    fn every_declared_code_has_one_entry_and_every_entry_a_code() {
        let syntax = declared("crates/gedgraft-syntax/src/codes.rs");
        let encoding = declared("crates/gedgraft-encoding/src/detect.rs");
        let model = declared("crates/gedgraft-model/src/codes.rs");
        assert_eq!(
            set(gedgraft_syntax::codes::ALL),
            syntax,
            "gedgraft_syntax::codes::ALL"
        );
        assert_eq!(
            set(gedgraft_syntax::encoding::EncodingNote::ALL),
            encoding,
            "EncodingNote::ALL"
        );
        assert_eq!(
            set(gedgraft_model::codes::ALL),
            model,
            "gedgraft_model::codes::ALL"
        );
        let codes: BTreeSet<String> = syntax.into_iter().chain(encoding).chain(model).collect();
        let entries: Vec<String> = ENTRIES.iter().map(|e| e.code.to_string()).collect();
        let missing: Vec<&String> = codes.iter().filter(|c| !entries.contains(c)).collect();
        assert!(
            missing.is_empty(),
            "codes with no `gedgraft explain` entry: {missing:?}"
        );
        let unknown: Vec<&String> = entries.iter().filter(|c| !codes.contains(*c)).collect();
        assert!(
            unknown.is_empty(),
            "entries naming no declared code: {unknown:?}"
        );
        assert_eq!(
            entries.len(),
            set(&ENTRIES.iter().map(|e| e.code).collect::<Vec<_>>()).len(),
            "an entry twice"
        );
    }

    /// Each entry's example, checked as `check` checks a file, reports the entry's code with the entry's class,
    /// so the class `explain` states is the one `check` prints; and no message cites a rule ID.
    #[test]
    fn every_example_reports_its_code_with_its_class() {
        let mut wrong = Vec::new();
        for e in ENTRIES {
            let parse = gedgraft_syntax::parse(e.example);
            let lowered = lower(&parse, &LowerOptions::default());
            let diagnostics = lowered.all_diagnostics(&parse);
            let found: Vec<_> = diagnostics.iter().map(|d| (d.code, d.class)).collect();
            // Messages speak plainly: rule IDs are for `explain`.
            for d in diagnostics.iter().filter(|d| d.message.contains("R-")) {
                wrong.push(format!(
                    "{}: a rule ID in the message {:?}",
                    d.code, d.message
                ));
            }
            if !found.contains(&(e.code, e.class)) {
                wrong.push(format!(
                    "{} ({:?}): the example reports {found:?}",
                    e.code, e.class
                ));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// Every requirement ID an entry cites is a row of `requirements.md`.
    #[test]
    #[cfg_attr(
        not(has_spec),
        ignore = "specs missing: see README, Tests and the corpus"
    )]
    fn every_cited_rule_is_in_the_requirements() {
        let path = Path::new(env!("GEDGRAFT_SHARED_DIR")).join("spec/requirements.md");
        let requirements =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let missing: Vec<(&str, &str)> = ENTRIES
            .iter()
            .flat_map(|e| e.rules.iter().map(move |r| (e.code, *r)))
            .filter(|(_, r)| r.starts_with("R-") && !requirements.contains(&format!("| {r} ")))
            .collect();
        assert!(
            missing.is_empty(),
            "rules not in requirements.md: {missing:?}"
        );
    }

    /// Every code with a repair says so, with its kind, and names an existing entry; the others say there is
    /// none (issue #16).
    #[test]
    fn every_repair_code_says_it_has_a_repair_of_its_kind() {
        for (code, applicability, _) in gedgraft_edit::REPAIR_KINDS {
            let e = entry(code).unwrap_or_else(|| panic!("repair of `{code}`: no entry"));
            let text = explain(e);
            let kind = format!("Repair ({}", applicability.as_str());
            assert!(text.contains(&kind), "{code}: {text}");
        }
        let text = explain(entry("bad-tag").expect("entry"));
        assert!(text.contains("Repair: none"), "{text}");
    }

    #[test]
    fn summaries_and_help_are_one_plain_line_without_rule_ids() {
        for e in ENTRIES {
            for text in [e.summary, e.help] {
                assert!(
                    !text.contains('\n') && !text.contains("R-"),
                    "{}: {text}",
                    e.code
                );
            }
        }
        assert!(list()
            .lines()
            .any(|l| l.contains("bad-tag") && l.contains("error")));
        let text = explain(entry("undecodable-octets").expect("entry"));
        assert!(text.contains("1 NAME Jos\\xE9"), "{text}");
        assert_eq!(show_example(b"a\x00\xFF\xc3\xa9\n"), "a\\x00\\xFFé\n");
    }
}
