//! Reading and parsing input files.

use crate::cli::InputArgs;
use gedgraft_syntax::encoding::{DetectOptions, Encoding};
use gedgraft_syntax::{parse_with, Parse, ParseOptions};
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A parsed input file.
pub struct Loaded {
    pub path: PathBuf,
    pub parse: Parse,
}

/// The parse options the input arguments ask for.
pub fn options(args: &InputArgs) -> Result<ParseOptions, String> {
    let force = args.encoding.as_deref().map(encoding_named).transpose()?;
    let default_encoding = args
        .default_encoding
        .as_deref()
        .map(encoding_named)
        .transpose()?;
    Ok(ParseOptions::default().with_detect(DetectOptions {
        force,
        default_encoding,
    }))
}

/// The encoding called `name`, or an error listing the known names.
fn encoding_named(name: &str) -> Result<Encoding, String> {
    name.parse()
        .map_err(|e: gedgraft_syntax::encoding::UnknownEncoding| e.to_string())
}

/// Reads and parses one file.
pub fn load(path: &Path, args: &InputArgs) -> Result<Loaded, String> {
    let options = options(args)?;
    load_with(path, &options)
}

/// Whether `path` is `-`, which names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Standard input, once a streamed command has copied it ([`open`]): an unlinked temporary file.
static STDIN_COPY: Mutex<Option<std::fs::File>> = Mutex::new(None);

/// Opens `path` for reading from its start; `-` opens a copy of standard input, made on the first call (read
/// once, in pieces, into an unlinked temporary file: the commands that read a file twice, or fall back to the
/// whole file after a look at its head, read standard input so). Memory stays bounded; the disk holds the copy.
pub fn open(path: &Path) -> Result<std::fs::File, String> {
    if !is_stdin(path) {
        return std::fs::File::open(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()));
    }
    let error = |e: std::io::Error| format!("cannot read standard input: {e}");
    let mut copy = STDIN_COPY
        .lock()
        .map_err(|_| "standard input's copy is lost".to_string())?;
    if copy.is_none() {
        let mut file = tempfile::tempfile().map_err(error)?;
        std::io::copy(&mut std::io::stdin().lock(), &mut file).map_err(error)?;
        *copy = Some(file);
    }
    let Some(file) = copy.as_mut() else {
        return Err("standard input's copy is lost".into());
    };
    file.rewind().map_err(error)?;
    file.try_clone().map_err(error)
}

/// Whether standard input was copied by [`open`].
fn stdin_copied() -> bool {
    STDIN_COPY.lock().is_ok_and(|c| c.is_some())
}

/// The octets of a file; `-` reads standard input (or its copy, if a streamed command made one).
pub fn read_octets(path: &Path) -> Result<Vec<u8>, String> {
    if is_stdin(path) {
        let mut bytes = Vec::new();
        let read = if stdin_copied() {
            open(path)?.read_to_end(&mut bytes)
        } else {
            std::io::stdin().lock().read_to_end(&mut bytes)
        };
        read.map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(bytes)
    } else {
        std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    }
}

/// Reads and parses one file with given options; `-` reads standard input.
pub fn load_with(path: &Path, options: &ParseOptions) -> Result<Loaded, String> {
    let bytes = read_octets(path)?;
    parse_octets(path, &bytes, options)
}

/// Refuses files of 4 GiB or more, which a tree of the whole file cannot hold.
pub fn check_size(path: &Path, bytes: &[u8]) -> Result<(), String> {
    match u32::try_from(bytes.len()) {
        Ok(_) => Ok(()),
        Err(_) => Err(format!(
            "{}: files of 4 GiB or more are not supported",
            path.display()
        )),
    }
}

/// Parses the octets read from `path`; files of 4 GiB or more are refused.
pub fn parse_octets(path: &Path, bytes: &[u8], options: &ParseOptions) -> Result<Loaded, String> {
    check_size(path, bytes)?;
    Ok(Loaded {
        path: path.to_path_buf(),
        parse: parse_with(bytes, options),
    })
}

/// Lets the process take a large result with it on exit instead of freeing it: the operating system reclaims
/// the memory at once, where freeing a parse node by node takes about 0.3 s per 100 MB of file. Only for the
/// last file of a command, just before it returns.
pub fn keep_until_exit<T>(value: T) {
    std::mem::forget(value);
}
