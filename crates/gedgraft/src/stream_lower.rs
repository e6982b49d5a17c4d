//! `gedgraft lower FILE` record by record (DESIGN.md invariant 9): two passes over the file in batches of whole
//! records ([`gedgraft_syntax::stream`]), as `check` makes them ([`index_pass`]): the first indexes the
//! identifiers, the second lowers each batch and writes its records' JSON as it goes. The diagnostics come
//! after the records in the document: they are gathered aside (in memory up to [`SPILL`], then in an anonymous
//! temporary file) and written at the end, after the `UNDEF` records. Memory: the largest batch plus the index
//! (O(records)). The output and the exit status are the whole-file path's (tested on the corpus).
//!
//! What falls back to the whole-file path: `--strict` on a file with an error (found by the first pass: the
//! dataset is then empty and the diagnostics stop at the first error; a file without one lowers the same
//! strict or not, and streams), and what `check` does not stream (not GEDCOM, notes of the whole body,
//! `GEDGRAFT_WHOLE_FILE=1`).

use crate::cli::LowerArgs;
use crate::input;
use crate::stream_check::{index_pass, Indexed};
use crate::stream_fix::whole_file_forced;
use gedgraft_model::{JsonStream, LowerOptions};
use gedgraft_syntax::internal::work::Dropper;
use gedgraft_syntax::Severity;
use std::io::{Read, Seek, Write};

/// Diagnostics' JSON beyond this many octets goes to a temporary file.
const SPILL: usize = 4 << 20;

/// Lowers one file streamed: `Some(whether it has an error)` once its JSON is written, `None` when it takes the
/// whole-file path (nothing was written).
pub(crate) fn lower_streamed(
    args: &LowerArgs,
    lower: &LowerOptions,
) -> Result<Option<bool>, String> {
    let path = &args.file;
    if whole_file_forced() {
        return Ok(None);
    }
    let options = input::options(&args.input)?;
    let Some(Indexed {
        mut lowering,
        mut file_wide,
        batches,
        ..
    }) = index_pass(path, &options, lower, args.strict)
    else {
        return Ok(None);
    };
    // `--strict` stops at the first error: a file with one takes the whole-file path; one without checks the
    // same either way.
    if args.strict && lowering.has_error() {
        return Ok(None);
    }
    let mut writer = JsonStream::new(&path.display().to_string());
    let (mut json, mut diagnostics) = (String::new(), Diagnostics::default());
    let mut any_error = false;
    let dropper = Dropper::new();
    for batch in batches {
        let mut batch = batch.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        file_wide.apply(&mut batch);
        let parse = batch.parse();
        let lowered = lowering.lower(parse);
        any_error |= lowered
            .all_diagnostics(parse)
            .iter()
            .any(|d| d.severity() == Severity::Error);
        let mut sink = |part: &mut String| {
            let written = crate::output::emit(part);
            part.clear();
            written
        };
        writer.batch_to(parse, &lowered, &mut json, &mut diagnostics.text, &mut sink)?;
        sink(&mut json)?;
        diagnostics.spill_if_large()?;
        dropper.later((batch, lowered));
    }
    writer.end_records(&lowering.undefined_records(), &mut json);
    crate::output::emit(&json)?;
    json.clear();
    diagnostics.emit()?;
    writer.end(&mut json);
    // The whole-file path ends the document with a line break of its own too.
    json.push('\n');
    crate::output::emit(&json)?;
    Ok(Some(any_error))
}

/// The diagnostics' JSON gathered while the records are written: in memory, and in a temporary file past
/// [`SPILL`].
#[derive(Default)]
struct Diagnostics {
    text: String,
    file: Option<std::fs::File>,
}

impl Diagnostics {
    fn spill_if_large(&mut self) -> Result<(), String> {
        if self.text.len() < SPILL {
            return Ok(());
        }
        let error = |e: std::io::Error| format!("cannot write a temporary file: {e}");
        let file = match &mut self.file {
            Some(f) => f,
            None => self.file.insert(tempfile::tempfile().map_err(error)?),
        };
        file.write_all(self.text.as_bytes()).map_err(error)?;
        self.text.clear();
        Ok(())
    }

    /// Writes everything gathered to standard output, in order.
    fn emit(self) -> Result<(), String> {
        if let Some(mut file) = self.file {
            let error = |e: std::io::Error| format!("cannot read a temporary file: {e}");
            file.rewind().map_err(error)?;
            let mut chunk = vec![0; 1 << 20];
            loop {
                let n = file.read(&mut chunk).map_err(error)?;
                if n == 0 {
                    break;
                }
                crate::output::write_stdout(&mut std::io::stdout().lock(), &chunk[..n])?;
            }
        }
        crate::output::emit(&self.text)
    }
}
