//! What a transcode must know before and while it rewrites a whole file: whether the file's reading is in doubt
//! (then it refuses), and which input octets would not come back if the output were transcoded back (then it
//! warns).

use crate::error::{EditError, Warning};
use crate::render::write_cluster;
use gedgraft_encoding::{ansel, Encoding};
use gedgraft_syntax::Parse;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

/// Refuses a transcode of a file whose octets contradict the encoding it was read with (DESIGN.md, meaning
/// safety: a transcode from a doubtful reading is refused unless the user names the reading).
pub(crate) fn check_reading(parse: &Parse) -> Result<(), EditError> {
    match doubt(parse) {
        Some((line, reason)) => Err(EditError::DoubtfulDecoding {
            encoding: parse.encoding(),
            line,
            reason,
        }),
        None => Ok(()),
    }
}

/// Refuses new text that is not ASCII for a file whose reading is in doubt: it would be written in the encoding
/// the file may have been misread with. ASCII is written alike in every encoding the doubt is between.
pub(crate) fn check_new_text(parse: &Parse, text: &str) -> Result<(), EditError> {
    if text.is_ascii() {
        return Ok(());
    }
    match doubt(parse) {
        Some((line, reason)) => Err(EditError::DoubtfulNewText {
            encoding: parse.encoding(),
            line,
            reason,
        }),
        None => Ok(()),
    }
}

/// The line and message of the note that puts the file's reading in doubt, if any.
fn doubt(parse: &Parse) -> Option<(usize, String)> {
    let note = parse.detection().doubt()?;
    Some((parse.doubt_line().unwrap_or(1), note.message.clone()))
}

/// Input octets and the octets a transcode back would write instead.
type Pair = (Vec<u8>, Vec<u8>);

/// The input octets a transcode writes so that a transcode back would give other octets, counted.
#[derive(Debug, Default)]
pub(crate) struct Reversal {
    counts: RefCell<BTreeMap<Pair, usize>>,
    /// ANSEL diacritics moved from the end of a line to the `CONC` line holding their letter.
    moved_marks: Cell<usize>,
}

impl Reversal {
    fn add(&self, old: Vec<u8>, back: Vec<u8>) {
        *self.counts.borrow_mut().entry((old, back)).or_default() += 1;
    }

    /// `n` ANSEL diacritics that ended a line were written with their letter, on the `CONC` line after it: a
    /// transcode back writes them at the start of that line (gedcom4j's `issue81.ged`).
    pub(crate) fn moved_marks(&self, n: usize) {
        self.moved_marks.set(self.moved_marks.get() + n);
    }

    /// Raw ANSEL octets that have a character another octet also stands for (`F8`, `C7`, `CD`, `CE`;
    /// R-ANSEL-02): they come back as that other octet.
    pub(crate) fn ansel_raw(&self, octets: &[u8]) {
        for &o in octets {
            let Some(c) = ansel::lossy_char(o).filter(|_| ansel::RAW_KEPT.contains(&o)) else {
                continue;
            };
            let mut back = Vec::new();
            if Encoding::Ansel.encode(&c.to_string(), &mut back).is_ok() && back != [o] {
                self.add(vec![o], back);
            }
        }
    }

    /// A cluster of logical text (Unicode order) written as `written` (tree text in `to`, ANSEL order for
    /// ANSEL) because `to` could not write it as it is: counted when writing `written` back in `from` gives
    /// other octets than the cluster had (`é` written in ANSEL as `e` + U+0301 comes back to UTF-8 decomposed).
    pub(crate) fn cluster(&self, cluster: &str, written: &str, from: Encoding, to: Encoding) {
        let in_order = |text: &str, e: Encoding| {
            if e == Encoding::Ansel {
                ansel::to_ansel_order(text)
            } else {
                text.to_string()
            }
        };
        let written_logical = if to == Encoding::Ansel {
            ansel::to_unicode_order(written)
        } else {
            written.to_string()
        };
        if written_logical == cluster {
            return;
        }
        let (_, back_text) = write_cluster(&written_logical, from);
        let (mut old, mut back) = (Vec::new(), Vec::new());
        let encoded = from.encode(&in_order(cluster, from), &mut old).is_ok()
            && from.encode(&back_text, &mut back).is_ok();
        if encoded && old != back {
            self.add(old, back);
        }
    }

    /// The warning for what was counted, if anything was.
    pub(crate) fn warning(&self, from: Encoding, to: Encoding) -> Option<Warning> {
        let counts = self.counts.borrow();
        let moved_marks = self.moved_marks.get();
        if counts.is_empty() && moved_marks == 0 {
            return None;
        }
        Some(Warning::NotReversible {
            from,
            to,
            octets: counts
                .iter()
                .map(|((old, back), n)| (old.clone(), back.clone(), *n))
                .collect(),
            moved_marks,
        })
    }
}
