//! The repairs with other edits, streamed (#17): the repairs are made first, to their fixed point, over the
//! file's octets as `--repair` alone makes them (`crate::repair::repair_octets`: the old and the new octets,
//! twice the file, for as long as that takes); only their changes and new octets are kept, and the edits then
//! stream over the file as they do without repairs, each batch repaired first ([`Repairs::batch`]) and read by
//! the first stage as it reads the repaired file's part. The batch's changes are the repairs' composed with
//! the stages', from the file's own octets, so the review diff, the patch and the line counts are the
//! whole-file path's. Memory: twice the file while the repairs are made, then a batch (#17: `fix --repair
//! --rename-tag` of a file with something to repair held the trees of the whole file, six times it).
//!
//! A repair that crosses a cut between batches (one change of several records' lines: found only as the
//! stream gets there) sends the file to the whole-file path, nothing written yet: so the repairs stream only
//! where the output can be taken back ([`super::streams_file`]: not into a standard stream).

use crate::input;
use gedgraft_edit::Change;
use gedgraft_syntax::line_cursor::{count_line_breaks, last_line_break};
use gedgraft_syntax::{LineBreak, Location, Parse, ParseOptions};
use std::path::Path;
use std::sync::Arc;

/// The repairs of one file, applied batch by batch ([`Repairs::batch`]).
pub(crate) struct Repairs {
    /// The repairs' changes of the file's octets, in file order, each with its new octets (shared with the
    /// first passes that read the batches repaired: [`Repairs::rewound`]).
    changes: Arc<Vec<(Change, Vec<u8>)>>,
    /// The first change not yet applied.
    next: usize,
    /// The file's length in octets: a change at its very end belongs to the last batch.
    file_len: usize,
    /// How many repairs were applied, for the summary.
    pub(crate) applied: usize,
    /// What the repairs leave to tell (repairs left when the passes ran out, unsafe ones not applied).
    pub(crate) notes: Vec<String>,
    /// The lines the repairs added, less those they removed, in the batches so far.
    lines: isize,
    /// The last line break of the repaired batches so far.
    break_before: Option<LineBreak>,
}

/// A batch as the repairs left it ([`Repairs::batch`]); the default is a batch no repair touched.
#[derive(Default)]
pub(crate) struct RepairedBatch {
    /// The batch repaired and placed in the repaired file; `None` when it is the batch as read.
    pub(crate) parse: Option<Parse>,
    /// The repairs' changes of the batch's octets (none when no repair is in it).
    pub(crate) changes: Vec<Change>,
    /// The lines the repairs added, less those they removed, in the batches before it.
    pub(crate) shift: isize,
}

/// A repair crosses a cut between batches, or the batches did not reach one: the whole-file path repairs the
/// file.
pub(crate) struct Crossing;

impl Repairs {
    /// Repairs the file at `path` to the fixed point, from the repairs of its first pass (`first`, found by
    /// the caller: not empty), and keeps the changes.
    pub(crate) fn of_file(
        path: &Path,
        first: Vec<gedgraft_edit::Repair>,
        which: &crate::repair::Which,
        options: &ParseOptions,
    ) -> Result<Repairs, String> {
        let name = path.display().to_string();
        let bytes = input::read_octets(path)?;
        input::check_size(path, &bytes)?;
        let mut notes = Vec::new();
        let repaired =
            crate::repair::repair_octets(&bytes, Some(first), which, options, &name, &mut notes);
        let (changes, applied) = match repaired {
            Some(r) => {
                let new = |c: &Change| r.bytes.get(c.output.clone()).unwrap_or_default().to_vec();
                let changes = r.changes.iter().map(|c| (c.clone(), new(c))).collect();
                (changes, r.applied)
            }
            None => (Vec::new(), 0),
        };
        Ok(Repairs {
            changes: Arc::new(changes),
            next: 0,
            file_len: bytes.len(),
            applied,
            notes,
            lines: 0,
            break_before: None,
        })
    }

    /// The next batch of the file (batches in file order, each once) as the repairs left it: its octets with
    /// the repairs in it, read as the batch was, placed after the repaired batches before it (its first line,
    /// the line break before it).
    pub(crate) fn batch(&mut self, batch: &Parse) -> Result<RepairedBatch, Crossing> {
        let origin = batch.origin();
        let old = batch.to_bytes().map_err(|_| Crossing)?;
        let (start, end) = (origin.offset, origin.offset.saturating_add(old.len()));
        let first = self.next;
        while let Some((change, _)) = self.changes.get(self.next) {
            let at_the_end = change.input.start == end && end == self.file_len;
            if change.input.start >= end && !at_the_end {
                break;
            }
            if change.input.start < start || change.input.end > end {
                return Err(Crossing);
            }
            self.next += 1;
        }
        let shift = self.lines;
        let placed = Location {
            line: origin.line.saturating_add_signed(shift),
            ..origin
        };
        let before = match start {
            0 => batch.break_before(),
            _ => self.break_before,
        };
        let mine = self.changes.get(first..self.next).unwrap_or_default();
        let Some(((first_change, _), _)) = mine.split_first() else {
            self.break_before = last_line_break(batch.text().as_bytes()).or(before);
            let moved = shift != 0 || before != batch.break_before();
            return Ok(RepairedBatch {
                parse: moved.then(|| batch.clone().with_origin(placed).with_break_before(before)),
                changes: Vec::new(),
                shift,
            });
        };
        // The batch's octets with its repairs, and their changes counted from the batch's start on both sides.
        let new_start = first_change.output.start;
        let mut new = Vec::with_capacity(old.len());
        let mut at = 0;
        let mut changes = Vec::with_capacity(mine.len());
        for (change, octets) in mine {
            let input = change.input.start - start..change.input.end - start;
            new.extend_from_slice(old.get(at..input.start).unwrap_or_default());
            new.extend_from_slice(octets);
            at = input.end;
            let output = change.output.start - new_start + (first_change.input.start - start);
            changes.push(Change {
                output: output..output + octets.len(),
                input,
            });
        }
        new.extend_from_slice(old.get(at..).unwrap_or_default());
        let (parse, _) =
            Parse::from_edited_like(batch.green().clone(), &new, batch.encoding(), batch);
        let parse = parse.with_dialect_of(batch);
        // Counted in the text as the stream counts its batches' lines (UTF-16 octets are not the text's).
        let lines = |p: &Parse| isize::try_from(count_line_breaks(p.text().as_bytes()));
        let added = lines(&parse).unwrap_or(isize::MAX) - lines(batch).unwrap_or(isize::MAX);
        self.lines = self.lines.saturating_add(added);
        self.break_before = last_line_break(parse.text().as_bytes()).or(before);
        Ok(RepairedBatch {
            parse: Some(parse.with_origin(placed).with_break_before(before)),
            changes,
            shift,
        })
    }

    /// The same repairs, to apply to the file's batches from its first again (a first pass over the batches
    /// repaired, before the stream that writes them): none applied yet, no notes.
    pub(crate) fn rewound(&self) -> Repairs {
        Repairs {
            changes: Arc::clone(&self.changes),
            next: 0,
            file_len: self.file_len,
            applied: self.applied,
            notes: Vec::new(),
            lines: 0,
            break_before: None,
        }
    }

    /// Whether every repair was in a batch (after the last).
    pub(crate) fn all_applied(&self) -> bool {
        self.next == self.changes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gedgraft_syntax::stream::{RecordStream, StreamOptions};

    /// The repairs of `changes` (input range, new octets) over `input`.
    fn repairs(input: &[u8], changes: &[(std::ops::Range<usize>, &[u8])]) -> Repairs {
        let mut shift = 0isize;
        let changes = (changes.iter())
            .map(|(range, new)| {
                let start = range.start.saturating_add_signed(shift);
                shift += new.len() as isize - range.len() as isize;
                let change = Change {
                    input: range.clone(),
                    output: start..start + new.len(),
                };
                (change, new.to_vec())
            })
            .collect();
        Repairs {
            changes: Arc::new(changes),
            next: 0,
            file_len: input.len(),
            applied: 0,
            notes: Vec::new(),
            lines: 0,
            break_before: None,
        }
    }

    /// Each batch repaired in turn: the batches' new octets, their lines, or where a repair crossed a cut.
    fn batches(input: &[u8], size: usize, repairs: &mut Repairs) -> Result<Vec<Parse>, usize> {
        let options = StreamOptions::default().with_batch_size(size);
        let stream = RecordStream::new(input, options).expect("a stream");
        let mut parses = Vec::new();
        for (i, batch) in stream.enumerate() {
            let batch = batch.expect("a batch");
            let repaired = repairs.batch(batch.parse()).map_err(|Crossing| i)?;
            // The batch's changes lead from its old octets to its new ones.
            let old = batch.parse().to_bytes().expect("octets");
            let new = match &repaired.parse {
                Some(parse) => parse.to_bytes().expect("octets"),
                None => old.clone(),
            };
            let (mut at_old, mut at_new) = (0, 0);
            for change in &repaired.changes {
                let (before_old, before_new) =
                    (change.input.start - at_old, change.output.start - at_new);
                assert_eq!(before_old, before_new, "unchanged octets before a change");
                at_old = change.input.end;
                at_new = change.output.end;
            }
            assert_eq!(
                old.len() - at_old,
                new.len() - at_new,
                "unchanged octets after the last"
            );
            parses.push(repaired.parse.unwrap_or_else(|| batch.into_parse()));
        }
        Ok(parses)
    }

    const INPUT: &[u8] =
        b"0 HEAD\n1 CHAR UTF-8\n0 @I1@ INDI\n1 NOTE a\n\n\n0 @I2@ INDI\n1 NOTE b\n0 TRLR\n";

    /// The repaired batches joined are the repaired file, each placed at its line in it (blank lines removed
    /// before it move it up), with the line break before it; a change at the file's very end belongs to the
    /// last batch.
    #[test]
    fn the_batches_repaired_are_the_file_repaired() {
        let blank = 41..43; // the two blank lines
        assert_eq!(&INPUT[blank.clone()], b"\n\n");
        let note = 62..63; // the `b` of `1 NOTE b`
        assert_eq!(&INPUT[note.clone()], b"b");
        let end = INPUT.len()..INPUT.len();
        let changes: [(std::ops::Range<usize>, &[u8]); 3] =
            [(blank, b""), (note, b"bee"), (end, b"0 @X@ _Z\n")];
        let mut whole = INPUT.to_vec();
        whole.splice(INPUT.len()..INPUT.len(), b"0 @X@ _Z\n".iter().copied());
        whole.splice(62..63, b"bee".iter().copied());
        whole.splice(41..43, []);
        for size in [1, 2, 30, 4096] {
            let parses = batches(INPUT, size, &mut repairs(INPUT, &changes)).expect("no crossing");
            let joined: Vec<u8> = parses
                .iter()
                .flat_map(|p| p.to_bytes().expect("octets"))
                .collect();
            assert_eq!(
                String::from_utf8_lossy(&joined),
                String::from_utf8_lossy(&whole),
                "{size}"
            );
            if size == 1 {
                let lines: Vec<usize> = parses.iter().map(|p| p.origin().line).collect();
                assert_eq!(
                    lines,
                    [1, 3, 5, 7],
                    "@I2@ and the trailer move up two lines (from 7, 9)"
                );
            }
        }
    }

    /// A change across a cut between batches is found in the batch where it starts; one the batches never
    /// reach is not applied (the caller sends both to the whole-file path).
    #[test]
    fn a_change_across_a_cut_is_refused() {
        let across = 36..49; // from `1 NOTE a` to `0 @I2@`, across the cut before `0 @I2@ INDI`
        let changes: [(std::ops::Range<usize>, &[u8]); 1] = [(across, b"")];
        let crossed = batches(INPUT, 1, &mut repairs(INPUT, &changes));
        assert_eq!(crossed.err(), Some(1), "in the @I1@ record's batch");
        assert!(
            batches(INPUT, 4096, &mut repairs(INPUT, &changes)).is_ok(),
            "one batch"
        );
        let beyond: [(std::ops::Range<usize>, &[u8]); 1] = [(500..501, b"")];
        let mut never = repairs(INPUT, &beyond);
        assert!(batches(INPUT, 1, &mut never).is_ok());
        assert!(!never.all_applied());
    }
}
