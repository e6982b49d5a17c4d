//! The repair of a run of one code across parts of a file (the batches of a
//! [`gedgraft_syntax::stream::RecordStream`]): a stream counts a run that goes on across a cut in the diagnostic
//! where it starts, whose repair, made on that part's tree, covers only that part's lines. [`repair_of_run`]
//! makes the whole run's from each part's tree, the whole file's repair: the edits of the parts in order, the
//! message remade for the whole run (the rule of each code is here, next to the part functions it sums).

use super::{lines, payload, Cx, OctetEdit, Repair};
use gedgraft_syntax::{codes, Diagnostic, Parse};

/// What the message of a run's repair counts in one part of it (bare `@`s, NUL characters; LF and CR of blank
/// lines), summed over the parts.
pub(super) type Counts = [usize; 2];

/// One part's edits and counts; `None` when the run gets no repair at all.
type Part = Option<(Vec<OctetEdit>, Counts)>;

/// The repair of a run that goes on across parts of a file, the whole file's: `first` is the part where the
/// run starts (its parse, the diagnostic counting the whole run, and the repair made of it in that part, as
/// [`repairs_of_part`](super::repairs_of_part) made it); `rest` the later parts that hold the rest of the run,
/// in file order, each with its part of the run as that part's parser made it (the stream's
/// `Batch::continued_run`). Codes whose repair reads only the run's first problem keep `first`'s repair.
///
/// ```
/// use gedgraft_edit::{repair_of_run, repairs_of_part};
/// use gedgraft_syntax::stream::{RecordStream, StreamOptions};
/// let input = b"0 HEAD\n0 @N1@ NOTE a@b\n0 @N2@ NOTE c@d\n0 TRLR\n";
/// let options = StreamOptions::default().with_batch_size(1);
/// let batches: Vec<_> = RecordStream::new(&input[..], options).unwrap().map(Result::unwrap).collect();
/// let (run, _) = batches[1].run_goes_on().unwrap();
/// let part = repairs_of_part(batches[1].parse(), &[run]).pop().flatten();
/// assert_eq!(part.as_ref().map(|r| r.message.as_str()), Some("write the `@` as `@@`"));
/// let rest = [(batches[2].parse(), batches[2].continued_run().unwrap())];
/// let whole = repair_of_run((batches[1].parse(), run, part), &rest).unwrap();
/// assert_eq!(whole.message, "write the 2 bare `@`s as `@@`");
/// let at: Vec<_> = whole.edits.iter().map(|e| e.range.start).collect();
/// assert_eq!(at, [20, 36]);
/// ```
pub fn repair_of_run(
    first: (&Parse, &Diagnostic, Option<Repair>),
    rest: &[(&Parse, &Diagnostic)],
) -> Option<Repair> {
    let (parse, d, repair) = first;
    if rest.is_empty() {
        return repair;
    }
    let code = d.code;
    let parts = std::iter::once((parse, d)).chain(rest.iter().copied());
    let cx = Cx::new(parse);
    match code {
        codes::BLANK_LINE => counted(parts, lines::blank_part, lines::blank_message, code),
        codes::UNESCAPED_AT => {
            counted(parts, payload::bare_at_part, payload::bare_at_message, code)
        }
        codes::NOT_A_CHARACTER => counted(parts, payload::nul_part, payload::nul_message, code),
        // Every part's inner trailers, as one part's repair removes them all (a part after no bare trailer
        // has none); the last part's, if no later trailer ends the file, moves one to its end.
        codes::RECORD_AFTER_TRAILER => {
            let mut edits = repair?.edits;
            for (parse, d) in rest {
                if let Some((_, more)) = lines::trailer_to_end(&Cx::new(parse), d) {
                    edits.extend(more);
                }
            }
            let removed = edits.iter().filter(|e| e.replacement.is_empty()).count();
            let moved = edits.len() > removed;
            cx.repair(code, lines::trailer_message(removed, moved), edits)
        }
        // One message whatever the run's length: the parts' edits together.
        codes::LINE_TOO_LONG | codes::UNDECODABLE_OCTETS => {
            let mut message = repair.as_ref().map(|r| r.message.clone());
            let mut edits = repair.map_or_else(Vec::new, |r| r.edits);
            for (parse, d) in rest {
                let part_cx = Cx::new(parse);
                let made = match code {
                    codes::LINE_TOO_LONG => {
                        let mut out = [None];
                        payload::long_lines(&part_cx, &[*d], &mut out);
                        let [made] = out;
                        made.map(|r| (r.message, r.edits))
                    }
                    _ => payload::split_characters(&part_cx, d),
                };
                if let Some((m, e)) = made {
                    message.get_or_insert(m);
                    edits.extend(e);
                }
            }
            cx.repair(code, message?, edits)
        }
        _ => repair,
    }
}

/// The repair of a run of a code whose message counts what the parts hold (`part` of each, `message` of the
/// sums), `None` if a part has none.
fn counted<'a>(
    parts: impl Iterator<Item = (&'a Parse, &'a Diagnostic)>,
    part: fn(&Cx, &Diagnostic) -> Part,
    message: fn(Counts) -> String,
    code: &'static str,
) -> Option<Repair> {
    let mut edits: Vec<OctetEdit> = Vec::new();
    let mut counts = [0usize; 2];
    let mut first_cx = None;
    for (parse, d) in parts {
        let cx = Cx::new(parse);
        let (more, [a, b]) = part(&cx, d)?;
        counts = [counts[0].saturating_add(a), counts[1].saturating_add(b)];
        for edit in more {
            match edits.last_mut() {
                // Blank lines are removed in one edit in the whole file: the parts' removals join.
                Some(last)
                    if code == codes::BLANK_LINE
                        && last.range.end == edit.range.start
                        && last.replacement.is_empty()
                        && edit.replacement.is_empty() =>
                {
                    last.range.end = edit.range.end;
                }
                _ => edits.push(edit),
            }
        }
        first_cx.get_or_insert(cx);
    }
    first_cx?.repair(code, message(counts), edits)
}
