//! Developer tasks for gedgraft, run as `cargo xtask <command>`:
//!
//! - `gen-sample --size-mb N --out PATH [--crlf] [--seed S]`: writes a realistic, deterministic GEDCOM 5.5.1 file.
//! - `bench [--size-mb N] [--runs N] [--json] [--sample PATH]`: throughput and peak memory of parse and write-back against a
//!   line-splitting baseline.
//! - `bench-diff [--size-mb N] [--runs N]`: `gedgraft diff` against lowering both files, and the dataset writer
//!   (`write`, `fmt`) against parsing.
//! - `corpus [--dir PATH]`: parses every file of `../shared/corpus` and checks the round trip.
//! - `stress [--size-mb N] [--timeout S] [--cap-mb M] [--repeats K] [--bin PATH] [--only NAME] [--json]`: time and peak memory
//!   of every command on the pathological inputs of issue #12 at two sizes.
//! - `fuzz-seeds [--out DIR] [--size-kb K]`: those inputs, small, as seeds for the fuzz targets, and one small
//!   file per repair code (`repair_seeds.rs`).

mod bench;
mod bench_diff;
mod bench_processes;
mod corpus;
mod gen_sample;
mod repair_seeds;
mod rowan_floor;
mod stress;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The allocator the `gedgraft` binary ships with, so the benchmarks measure what users run.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "\
usage: cargo xtask <command> [options]

commands:
  gen-sample --size-mb N --out PATH [--crlf] [--seed S]
      write a deterministic, realistic GEDCOM 5.5.1 UTF-8 file of about N MB (10^6 octets)
  bench [--size-mb N] [--runs N] [--crlf] [--json] [--sample PATH] [--alternations N]
      best-of-N wall time, MB/s and peak memory of parse and write-back vs. a memchr line split;
      then fresh processes of the release gedgraft (fix -o, fix --rename-tag, fmt -o, check, lower), the baseline and
      the gedcomkit reference (bench-gedcomkit/, built apart), N alternating rounds (default 3; 0 skips):
      medians, ranges and ratios (needs GNU /usr/bin/time)
      (defaults: --size-mb 100 --runs 5; the sample is cached under target/xtask/;
      --sample measures an existing file instead)
  bench-diff [--size-mb N] [--runs N]
      time of `gedgraft diff` (lower both + compare) on the sample and a CR LF copy with some names
      changed, as a ratio to lowering both (target <= 2.5x); the dataset writer's speed as a ratio to
      the parser's (target >= 0.5x) and fmt (parse + lower + write); defaults --size-mb 100 --runs 3
  corpus [--dir PATH]
      parse every file of ../shared/corpus (or PATH), check the round trip, print a table;
      exits non-zero if any round trip fails
  stress [--size-mb N] [--timeout S] [--cap-mb M] [--repeats K] [--bin PATH] [--only NAME] [--json]
      pathological inputs (blank lines, random octets, CR LF, deep nesting, ...) at N and 2N MB (default 2):
      wall time and peak memory of each command of the release binary (or PATH) in a fresh process capped at
      M MB of address space (default 4000) and S seconds (default 60), the growth per doubling (goal <= 2.3x)
      and peak memory against 8 x file + 64 x lines + 64 MiB; each size runs K times alternating (default 3:
      the fastest time, the highest peak); failing rows say FAIL
  fuzz-seeds [--out DIR] [--size-kb K]
      write the stress inputs at about K KB (default 60) and one small file per repair code
      (repair-CODE.ged, and repair-CODE-ops.ged with edits for edit_locality) as fuzz seeds into DIR
      (default fuzz/corpus/parse_roundtrip)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match command.as_str() {
        "gen-sample" => gen_sample::run(rest),
        "bench" => bench::run(rest),
        "bench-child" => bench::run_child(rest),
        "bench-diff" => bench_diff::run(rest),
        "corpus" => corpus::run(rest),
        "stress" => stress::run(rest),
        "fuzz-seeds" => stress::write_seeds(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("xtask: {err}");
            ExitCode::from(2)
        }
    }
}

/// The workspace root (the parent of `xtask/`).
fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// A minimal command-line reader: `--flag`, `--key value` and `--key=value`.
struct Args<'a> {
    rest: &'a [String],
    used: Vec<bool>,
}

impl<'a> Args<'a> {
    fn new(rest: &'a [String]) -> Self {
        Args {
            rest,
            used: vec![false; rest.len()],
        }
    }

    /// Whether `--name` is present.
    fn flag(&mut self, name: &str) -> bool {
        let mut found = false;
        for (i, arg) in self.rest.iter().enumerate() {
            if arg == name {
                self.used[i] = true;
                found = true;
            }
        }
        found
    }

    /// The value of `--name value` or `--name=value`, if present.
    fn value(&mut self, name: &str) -> Result<Option<String>, String> {
        let prefix = format!("{name}=");
        let mut value = None;
        let mut i = 0;
        while i < self.rest.len() {
            let arg = &self.rest[i];
            if arg == name {
                let next = self
                    .rest
                    .get(i + 1)
                    .ok_or_else(|| format!("{name} needs a value"))?;
                self.used[i] = true;
                self.used[i + 1] = true;
                value = Some(next.clone());
                i += 1;
            } else if let Some(v) = arg.strip_prefix(&prefix) {
                self.used[i] = true;
                value = Some(v.to_string());
            }
            i += 1;
        }
        Ok(value)
    }

    /// The value of `--name`, parsed, or `default`.
    fn parsed<T: std::str::FromStr>(&mut self, name: &str, default: T) -> Result<T, String> {
        match self.value(name)? {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("{name}: cannot read `{v}`")),
        }
    }

    /// The arguments not consumed by any `flag`/`value` call.
    fn positional(&self) -> Vec<&'a str> {
        self.rest
            .iter()
            .zip(&self.used)
            .filter(|(_, used)| !**used)
            .map(|(a, _)| a.as_str())
            .collect()
    }

    /// Fails on any argument not consumed.
    fn finish(&self) -> Result<(), String> {
        match self.positional().first() {
            Some(arg) => Err(format!("unexpected argument `{arg}`\n\n{USAGE}")),
            None => Ok(()),
        }
    }
}
