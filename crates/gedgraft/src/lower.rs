//! `gedgraft lower`: the ELF dataset as JSON.

use crate::cli::LowerArgs;
use crate::input;
use gedgraft_model::{lower, to_json, LowerOptions};
use gedgraft_syntax::Severity;
use std::process::ExitCode;

/// Runs `lower`: prints the dataset JSON; exit status 1 if the file has an error.
pub fn run(args: &LowerArgs) -> Result<ExitCode, String> {
    let options = LowerOptions::default()
        .with_strict(args.strict)
        .with_nfc(args.nfc);
    if let Some(error) = crate::stream_lower::lower_streamed(args, &options)? {
        return Ok(exit_code(error));
    }
    let loaded = input::load(&args.file, &args.input)?;
    let lowered = lower(&loaded.parse, &options);
    // The dataset's JSON can be several times the file: the line break is added in place, not by a copy.
    let mut json = to_json(&loaded.path.display().to_string(), &loaded.parse, &lowered);
    json.push('\n');
    crate::output::emit(&json)?;
    let error = lowered
        .all_diagnostics(&loaded.parse)
        .iter()
        .any(|d| d.severity() == Severity::Error);
    input::keep_until_exit((loaded, lowered));
    Ok(exit_code(error))
}

/// 1 if the file has an error, else 0.
fn exit_code(error: bool) -> ExitCode {
    crate::output::exit_status(false, error)
}
