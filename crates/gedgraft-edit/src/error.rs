//! What can go wrong with an edit, and what the user should be told even when nothing went wrong.

use gedgraft_encoding::Encoding;
use std::fmt;

/// Why an edit was refused. Nothing is changed when an edit fails: the input [`Parse`](gedgraft_syntax::Parse)
/// is never modified, and [`Editor::apply`](crate::Editor::apply) either gives a complete result or this error.
///
/// ```
/// use gedgraft_edit::{EditError, Editor};
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 TRLR\n");
/// let err = Editor::new(&parse).rename_tag("NOTE", "CONT", None).unwrap_err();
/// assert!(matches!(err, EditError::ReservedTag { .. }));
/// assert_eq!(err.to_string(), "`CONT` is reserved (R-TAGS-03) and cannot be the new tag");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EditError {
    /// A tag that does not match `[0-9A-Za-z_]+` (R-TAGS-01).
    InvalidTag {
        /// The tag as given.
        tag: String,
    },
    /// A reserved tag (`HEAD`, `TRLR`, `CONC`, `CONT`, `PLANG`, `DTYPE`; R-TAGS-03) used where it may not be.
    ReservedTag {
        /// The tag as given.
        tag: String,
        /// What it was meant to be: "the new tag", "the renamed tag", "a new structure's tag".
        role: &'static str,
    },
    /// A cross-reference identifier the editor will not write (see [`Editor::set_xref`](crate::Editor::set_xref)).
    InvalidXref {
        /// The identifier as given (without `@`s).
        id: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Another record already has this cross-reference identifier (R-POINTER-CONV: identifiers are unique).
    DuplicateXref {
        /// The identifier (without `@`s).
        id: String,
    },
    /// The structure does not belong to the tree this editor was made for.
    ForeignNode,
    /// The edit would break the file's frame: the header, the trailer or `HEAD.CHAR` cannot be edited this way.
    Protected {
        /// What cannot be done, as a sentence fragment.
        what: String,
    },
    /// The file's dialect forbids the edit (a GEDCOM 7 file is UTF-8 only, so it cannot be transcoded to
    /// another encoding).
    DialectForbids {
        /// The file's dialect.
        dialect: gedgraft_syntax::Dialect,
        /// The edit refused and why.
        what: String,
    },
    /// Two edits touch the same octets; apply them one after the other instead.
    Overlap {
        /// The edit added first.
        first: String,
        /// The edit added later.
        second: String,
    },
    /// An option value that makes no sense (a line limit too small, …).
    InvalidOption {
        /// What is wrong.
        message: String,
    },
    /// A character the target encoding cannot write, in a place where no Unicode escape may stand (a
    /// cross-reference identifier, a pointer, a malformed line, text after the trailer).
    Unencodable {
        /// The character.
        character: char,
        /// The target encoding.
        encoding: Encoding,
        /// 1-based line in the input file.
        line: usize,
        /// Where on the line: "a cross-reference identifier", "a malformed line", ….
        place: &'static str,
    },
    /// Octets the input's encoding could not decode, which a transcode cannot carry over (see
    /// [`RawOctets`](crate::RawOctets)).
    RawOctets {
        /// 1-based line in the input file.
        line: usize,
        /// The octets, as the input had them.
        octets: Vec<u8>,
        /// The input's encoding.
        encoding: Encoding,
    },
    /// A transcode of a file whose decoding is in doubt: its octets contradict the encoding it was read with
    /// (a `declared-encoding-mismatch` or `encoding-mismatch` note, see
    /// [`Detection::doubt`](gedgraft_encoding::Detection::doubt)). Transcoding would write the misread text as
    /// new characters (`Alcalá` read as ANSEL becomes `Alcal ̀de`). Read the file with the encoding it really has
    /// ([`DetectOptions::force`](gedgraft_encoding::DetectOptions::force); `--encoding NAME` on the command line),
    /// then transcode: the right `CHAR` is written.
    DoubtfulDecoding {
        /// The encoding the file was read with.
        encoding: Encoding,
        /// 1-based line of the first octet that contradicts it.
        line: usize,
        /// What detection found, naming the likely encoding.
        reason: String,
    },
    /// A bug in the editor, not in the input or the edits: an invariant the editor keeps did not hold. Nothing
    /// was changed; please report it with the input and the edits.
    Internal {
        /// What went wrong.
        what: String,
    },
    /// New text holding U+0000, U+FFFE or U+FFFF, which are not characters: no file may hold them, neither as
    /// themselves (R-LINES-01) nor as a Unicode escape (R-UNICODE-ESCAPE-02).
    NotACharacter {
        /// The character.
        character: char,
    },
    /// New non-ASCII text for a file whose decoding is in doubt (see [`EditError::DoubtfulDecoding`]): it would
    /// be written in the encoding the file was misread with (`José` as windows-1252 octets into a UTF-8 file
    /// labelled `ANSI`). Name the reading first (`--encoding NAME`).
    DoubtfulNewText {
        /// The encoding the file was read with.
        encoding: Encoding,
        /// 1-based line of the first octet that contradicts it.
        line: usize,
        /// What detection found, naming the likely encoding.
        reason: String,
    },
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::InvalidTag { tag } => write!(
                f,
                "`{}` is not a tag: a tag is letters, digits and `_` only (R-TAGS-01)",
                tag.escape_debug()
            ),
            EditError::ReservedTag { tag, role } => {
                write!(f, "`{tag}` is reserved (R-TAGS-03) and cannot be {role}")
            }
            EditError::InvalidXref { id, reason } => {
                write!(f, "`@{}@` cannot be written: {reason}", id.escape_debug())
            }
            EditError::DuplicateXref { id } => {
                write!(f, "another structure already has the identifier `@{id}@`")
            }
            EditError::ForeignNode => {
                f.write_str("the structure does not belong to the file this editor edits")
            }
            EditError::Protected { what } => write!(f, "{what}"),
            EditError::DialectForbids { dialect, what } => {
                write!(f, "the file is {dialect}, which refuses {what}")
            }
            EditError::Overlap { first, second } => write!(
                f,
                "edits overlap: {first} and {second} touch the same lines; apply them one after the other"
            ),
            EditError::InvalidOption { message } => f.write_str(message),
            EditError::Internal { what } => write!(f, "internal error in the editor: {what}"),
            EditError::Unencodable {
                character,
                encoding,
                line,
                place,
            } => write!(
                f,
                "line {line}: {place} holds U+{:04X}, which {encoding} cannot encode and no Unicode escape may \
                 stand for there",
                u32::from(*character)
            ),
            EditError::RawOctets {
                line,
                octets,
                encoding,
            } => {
                let shown: Vec<String> = octets.iter().map(|o| format!("{o:02X}")).collect();
                let (s, they, them) = if octets.len() == 1 {
                    ("", "it", "it")
                } else {
                    ("s", "they", "them")
                };
                write!(
                    f,
                    "line {line}: octet{s} {} could not be decoded as {encoding}, so {they} cannot be \
                     transcoded; fix {them} first, or ask for {them} to be replaced (U+FFFD)",
                    shown.join(" ")
                )
            }
            EditError::DoubtfulDecoding {
                encoding,
                line,
                reason,
            } => write!(
                f,
                "line {line}: the file's encoding is in doubt, so it is not transcoded: {reason}. A transcode \
                 would write the text as misread in {encoding}; name the encoding the file is really in \
                 (`--encoding NAME`) and the transcode writes the right `CHAR`"
            ),
            EditError::NotACharacter { character } => write!(
                f,
                "U+{:04X} is not a character: no file may hold it, neither as itself nor as a Unicode escape \
                 (R-LINES-01, R-UNICODE-ESCAPE-02)",
                u32::from(*character)
            ),
            EditError::DoubtfulNewText {
                encoding,
                line,
                reason,
            } => write!(
                f,
                "line {line}: the file's encoding is in doubt, so no new text other than ASCII is written into it: \
                 {reason}. The new text would be written in {encoding}, which the file may not be in; name the \
                 encoding the file is really in (`--encoding NAME`)"
            ),
        }
    }
}

impl std::error::Error for EditError {}

/// Something the user should know about an edit that was nonetheless applied.
///
/// ```
/// use gedgraft_edit::{Editor, Scope, Warning};
/// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 TRLR\n");
/// let mut editor = Editor::new(&parse);
/// let path = Scope::parse("INDI.NAME").unwrap();
/// assert_eq!(editor.escape_at_signs(Some(&path)), 0);
/// let edited = editor.apply().unwrap();
/// assert_eq!(edited.warnings(), [Warning::SelectorMatchedNothing { path: "INDI.NAME".into() }]);
/// assert_eq!(edited.warnings()[0].to_string(), "selector `INDI.NAME` matched nothing");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// A path given to scope or target an edit picked no structure.
    SelectorMatchedNothing {
        /// The path as written.
        path: String,
    },
    /// Pointers still name an identifier that no structure has any more (after a delete or an xref removal), or
    /// a new pointer names one that no structure has.
    DanglingPointers {
        /// The identifier (without `@`s).
        id: String,
        /// How many pointers.
        count: usize,
    },
    /// Pointers to an identifier a structure was given that named no structure before, or one deleted or
    /// renumbered by the same edits: they do not follow a renumbering, so they now lead to the structure given
    /// that identifier (`HUSB @I7@` pointing nowhere, then `@I2@` renumbered `@I7@`: the husband is now `@I2@`).
    /// Said, since a pointer's meaning changed; it may be what was meant (a dangling pointer repaired).
    PointersTakenOver {
        /// The identifier (without `@`s).
        id: String,
        /// How many pointers.
        count: usize,
    },
    /// Characters written as ELF's Unicode escapes (`@#U…@`: a character the encoding lacks, a control
    /// character) into a file of a dialect without them (GEDCOM 5.5.x): its readers show the escape as text.
    /// gedgraft reads it back as the character; `gedgraft fmt` writes the file as ELF, which has them.
    UnicodeEscapesNotInDialect {
        /// The file's dialect.
        dialect: gedgraft_syntax::Dialect,
        /// How many escapes the edits wrote beyond those of the text they replaced (a transcode: beyond those
        /// of the file).
        count: usize,
    },
    /// Structures whose lines were not re-wrapped, and why (one warning per reason).
    NotRewrapped {
        /// 1-based line of the first such structure in the input.
        line: usize,
        /// How many more structures were skipped for the same reason.
        more: usize,
        /// Why.
        reason: &'static str,
        /// Whether the edit was [`join_conc`](crate::Editor::join_conc) (else [`rewrap`](crate::Editor::rewrap)):
        /// the two may skip the same structures, and their warnings are summed apart.
        joining: bool,
    },
    /// A transcode whose output cannot be transcoded back to the input's octets: some input octets stand for
    /// characters that other octets also stand for (ANSEL's `F8` and `F1` both give U+0328, `C7` and `CF` both
    /// `ß`, R-ANSEL-02), or a character the target lacks was written decomposed (`é` in ANSEL is `e` + U+0301).
    /// A line-break conversion read each LF directly followed by a CR as two line breaks (the 2019 draft,
    /// R-LINE-STRINGS-02: a blank line between), and wrote two: a file written by a program that meant one break
    /// by LF CR gains a blank line at each ([`LfCr::OneBreak`](crate::LfCr::OneBreak) reads them as one, GEDCOM
    /// 5.5.1's reading).
    LfCrAsTwoBreaks {
        /// How many LF CR pairs.
        pairs: usize,
    },
    /// A transcode copied the text after the trailer as it is, octet for octet (it is not part of the file's
    /// data, and may not be text in any encoding), where the new encoding reads those octets otherwise.
    AfterTrailerNotTranscoded {
        /// The line it starts on.
        line: usize,
        /// How many octets it has.
        octets: usize,
        /// The encoding it is still in.
        from: Encoding,
    },
    /// The text means the same; its octets would not come back.
    NotReversible {
        /// The input's encoding.
        from: Encoding,
        /// The output's encoding.
        to: Encoding,
        /// Each kind of change: the input's octets, the octets a transcode back would write, how many times.
        octets: Vec<(Vec<u8>, Vec<u8>, usize)>,
        /// ANSEL diacritics that ended a line before the `CONC` line holding their letter: the output writes them
        /// with the letter, and a transcode back to ANSEL writes them at the start of the `CONC` line.
        moved_marks: usize,
    },
    /// The edit tree did not re-parse to itself and the re-parsed tree was used instead. The octets are right;
    /// untouched subtrees are then not shared with the input tree. This indicates an editor bug on unusual input.
    Reparsed,
    /// An edit that does not apply in the file's dialect was skipped (re-wrapping a GEDCOM 7 file, which has no
    /// `CONC`).
    NotInDialect {
        /// The file's dialect.
        dialect: gedgraft_syntax::Dialect,
        /// The edit skipped and why.
        what: &'static str,
    },
}

impl Warning {
    /// Adds `later`, the same warning of a later part of one file (a file edited batch by batch, in order),
    /// to this one, as an edit of the whole file gives it once: a transcode's octets that would not come back
    /// (each kind counted, in order of its octets, and the moved marks), and structures not re-wrapped for one
    /// reason (the first structure's line stays, the others are counted). Whether it was added: `false` for
    /// warnings of other kinds, and for two of these that differ in kind, reason or edit (`joining`).
    ///
    /// ```
    /// use gedgraft_edit::Warning;
    /// let skipped = |line, more| Warning::NotRewrapped { line, more, reason: "a long word", joining: false };
    /// let mut file = skipped(3, 0);
    /// assert!(file.absorb(&skipped(900, 2)));
    /// assert_eq!(file, skipped(3, 3));
    /// assert!(!file.absorb(&Warning::NotRewrapped { line: 4, more: 0, reason: "another", joining: false }));
    /// // `--join-conc`'s skips are not `--rewrap`'s.
    /// assert!(!file.absorb(&Warning::NotRewrapped { line: 4, more: 0, reason: "a long word", joining: true }));
    /// ```
    pub fn absorb(&mut self, later: &Warning) -> bool {
        match (self, later) {
            (
                Warning::NotReversible {
                    octets: all,
                    moved_marks: all_moved,
                    ..
                },
                Warning::NotReversible {
                    octets,
                    moved_marks,
                    ..
                },
            ) => {
                *all_moved += moved_marks;
                for (old, back, n) in octets {
                    match all.iter_mut().find(|(o, b, _)| o == old && b == back) {
                        Some(entry) => entry.2 += n,
                        None => all.push((old.clone(), back.clone(), *n)),
                    }
                }
                // In the order the whole file's warning lists them (by octets).
                all.sort();
                true
            }
            (
                Warning::NotRewrapped {
                    more: all,
                    reason: a,
                    joining: j,
                    ..
                },
                Warning::NotRewrapped {
                    more,
                    reason: b,
                    joining: k,
                    ..
                },
            ) if a == b && j == k => {
                *all += more + 1;
                true
            }
            (
                Warning::UnicodeEscapesNotInDialect { count: all, .. },
                Warning::UnicodeEscapesNotInDialect { count, .. },
            ) => {
                *all += count;
                true
            }
            (Warning::LfCrAsTwoBreaks { pairs: all }, Warning::LfCrAsTwoBreaks { pairs }) => {
                *all += pairs;
                true
            }
            _ => false,
        }
    }

    /// Whether an edit of a whole file gives this warning once, for the whole file (batches of it are summed
    /// with [`absorb`](Warning::absorb)).
    pub fn is_file_wide(&self) -> bool {
        matches!(
            self,
            Warning::NotReversible { .. }
                | Warning::NotRewrapped { .. }
                | Warning::UnicodeEscapesNotInDialect { .. }
                | Warning::LfCrAsTwoBreaks { .. }
        )
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::SelectorMatchedNothing { path } => {
                write!(f, "selector `{path}` matched nothing")
            }
            Warning::UnicodeEscapesNotInDialect { dialect, count } => write!(
                f,
                "{count} character{} written as a Unicode escape (`@#U…@`), which {dialect} does not have: its \
                 readers show {} as text (`gedgraft fmt` writes the file as ELF, which has them)",
                if *count == 1 { "" } else { "s" },
                if *count == 1 { "it" } else { "them" }
            ),
            Warning::PointersTakenOver { id, count } => write!(
                f,
                "{count} pointer{} to `@{id}@` now lead{} to the structure given that identifier (before, {} to \
                 no structure, or to one deleted or renumbered)",
                if *count == 1 { "" } else { "s" },
                if *count == 1 { "s" } else { "" },
                if *count == 1 { "it led" } else { "they led" }
            ),
            Warning::DanglingPointers { id, count } => write!(
                f,
                "{count} pointer{} to `@{id}@` point{} at no structure",
                if *count == 1 { "" } else { "s" },
                if *count == 1 { "s" } else { "" }
            ),
            Warning::NotRewrapped {
                line, more, reason, ..
            } => {
                write!(f, "line {line}: not re-wrapped: {reason}")?;
                if *more > 0 {
                    write!(
                        f,
                        " (and {more} more structure{} for the same reason)",
                        if *more == 1 { "" } else { "s" }
                    )?;
                }
                Ok(())
            }
            Warning::NotInDialect { dialect, what } => {
                write!(f, "the file is {dialect}: not {what}")
            }
            Warning::LfCrAsTwoBreaks { pairs } => write!(
                f,
                "{pairs} LF CR pair{} read as two line breaks each (the 2019 draft, R-LINE-STRINGS-02) and \
                 written as two, a blank line between; if the file meant one break by each (GEDCOM 5.5.1's \
                 reading), join them (`--join-lf-cr`)",
                if *pairs == 1 { "" } else { "s" }
            ),
            Warning::AfterTrailerNotTranscoded {
                line,
                octets,
                from,
            } => {
                // One octet or more: the words that agree with it.
                let (what, is, it_is, it, it_does) = match *octets {
                    1 => ("octet".to_string(), "is", "it is", "it", "it does"),
                    n => (format!("{n} octets"), "are", "they are", "them", "they do"),
                };
                write!(
                    f,
                    "line {line}: the {what} after the trailer {is} copied as {it_is}, still {from}: no \
                     reader takes {it} for data, but {it_does} not read as the new encoding \
                     (`content-after-trailer`: remove {it}, or move what matters into a record before the \
                     trailer)"
                )
            }
            Warning::NotReversible {
                from,
                to,
                octets,
                moved_marks,
            } => {
                let hex = |o: &[u8]| {
                    o.iter()
                        .map(|b| format!("{b:02X}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                let plural = |n: usize| if n == 1 { "" } else { "s" };
                write!(f, "transcoding {from} to {to} cannot be undone octet for octet: ")?;
                let total: usize = octets.iter().map(|(_, _, n)| n).sum();
                if total > 0 {
                    let shown: Vec<String> = octets
                        .iter()
                        .map(|(old, back, n)| format!("{} ×{n} would come back as {}", hex(old), hex(back)))
                        .collect();
                    write!(
                        f,
                        "{total} character{} of the input would not come back as written ({})",
                        plural(total),
                        shown.join(", ")
                    )?;
                }
                if *moved_marks > 0 {
                    let and = if total > 0 { "; " } else { "" };
                    write!(
                        f,
                        "{and}{moved_marks} diacritic{} ending a line would come back at the start of the CONC \
                         line that holds {} letter",
                        plural(*moved_marks),
                        if *moved_marks == 1 { "its" } else { "their" }
                    )?;
                }
                // CD, CE (midline e and o) and F8 read as other octets' characters in FHISO's table (R-ANSEL-02).
                let midline = octets.iter().any(|(old, _, _)| matches!(old[..], [0xCD] | [0xCE]));
                let f8 = octets.iter().any(|(old, _, _)| old[..] == [0xF8]);
                f.write_str("; the text reads the same")?;
                let mut table = Vec::new();
                if midline {
                    table.push("it reads the midline e and o, CD and CE, as plain e and o");
                }
                if f8 {
                    table.push("it reads F8 as the ogonek F1 is, where MARC-8 has a right hook");
                }
                if !table.is_empty() {
                    write!(f, " by FHISO's ANSEL table, which gedgraft uses ({})", table.join("; "))?;
                }
                Ok(())
            }
            Warning::Reparsed => f.write_str(
                "the edited tree was rebuilt by re-parsing the output (its octets are right; please report this)",
            ),
        }
    }
}
