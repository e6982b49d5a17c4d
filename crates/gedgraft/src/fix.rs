//! `gedgraft fix`: rewriting files through the tree.

use crate::cli::FixArgs;
use crate::input;
use std::process::ExitCode;

/// Runs `fix`: parses the file and writes the tree's octets to the output.
pub fn run(args: &FixArgs) -> Result<ExitCode, String> {
    let loaded = input::load(&args.file, &args.input)?;
    let bytes = loaded
        .parse
        .to_bytes()
        .map_err(|e| format!("{}: {e}", args.file.display()))?;
    std::fs::write(&args.output, bytes)
        .map_err(|e| format!("cannot write {}: {e}", args.output.display()))?;
    Ok(ExitCode::SUCCESS)
}
