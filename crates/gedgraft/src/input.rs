//! Reading and parsing input files.

use crate::cli::InputArgs;
use gedgraft_syntax::encoding::{DetectOptions, Encoding};
use gedgraft_syntax::{parse_with, Parse, ParseOptions};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

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

/// Whether `path` can be read only once: standard input (`-`), or a path that is not a regular file (a pipe:
/// `<(zcat f.ged.gz)`, `/dev/stdin`; a FIFO; a device). A second open of a pipe reads on from where the first
/// stopped, so a command that reads a file twice read nothing the second time.
fn reads_once(path: &Path) -> bool {
    is_stdin(path) || std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// What an input that reads once is, however it is named: the device and inode that the path (or standard
/// input) opens, where the system tells (`-` and `/dev/stdin` on one pipe, a FIFO named twice: one input);
/// else the path.
#[derive(PartialEq, Eq)]
enum Source {
    Node(u64, u64),
    Path(PathBuf),
}

fn source_of(path: &Path) -> Source {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::MetadataExt;
        let meta = match is_stdin(path) {
            true => (std::io::stdin().as_fd().try_clone_to_owned())
                .map(std::fs::File::from)
                .and_then(|f| f.metadata()),
            false => std::fs::metadata(path),
        };
        if let Ok(m) = meta {
            return Source::Node(m.dev(), m.ino());
        }
    }
    Source::Path(path.to_path_buf())
}

/// The inputs that read once, copied by the first [`open`] of each: unlinked temporary files, or why the copy
/// failed (what a failed copy read is gone: a later open must not read on as if from the start).
type Copy = Result<Arc<std::fs::File>, String>;
static COPIES: Mutex<Vec<(Source, Copy)>> = Mutex::new(Vec::new());

/// An input opened for reading from its start ([`open`]): the file, or the copy of an input that reads once,
/// read at a position of its own. Readers of one copy are independent: a clone of a file handle would share
/// its position, so that a second reader moved the first (a streamed `fix` read a piped file's first 64 KiB
/// and wrote them as the whole file).
pub enum Reader {
    File(std::fs::File),
    Copy { file: Arc<std::fs::File>, at: u64 },
}

impl Read for Reader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Reader::File(file) => file.read(buf),
            Reader::Copy { file, at } => {
                let n = read_at(file, buf, *at)?;
                *at = at.saturating_add(n as u64);
                Ok(n)
            }
        }
    }
}

impl std::io::Seek for Reader {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        match self {
            Reader::File(file) => file.seek(to),
            Reader::Copy { file, at } => {
                let invalid = || std::io::Error::from(std::io::ErrorKind::InvalidInput);
                let (base, by) = match to {
                    std::io::SeekFrom::Start(n) => (0, i128::from(n)),
                    std::io::SeekFrom::Current(d) => (*at, i128::from(d)),
                    std::io::SeekFrom::End(d) => (file.metadata()?.len(), i128::from(d)),
                };
                *at = u64::try_from(i128::from(base) + by).map_err(|_| invalid())?;
                Ok(*at)
            }
        }
    }
}

#[cfg(unix)]
fn read_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(windows)]
fn read_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, at)
}

/// What reading `path` is called in messages.
fn source_name(path: &Path) -> String {
    match is_stdin(path) {
        true => "standard input".to_string(),
        false => path.display().to_string(),
    }
}

/// Opens `path` for reading from its start. An input that reads once ([`reads_once`]: `-`, a pipe, a FIFO, a
/// device) is copied on the first call (read once, in pieces, into an unlinked temporary file), and every call
/// opens the copy: the commands that read a file twice, or fall back to the whole file after a look at its
/// head, read such an input so. Memory stays bounded; the disk holds the copy.
pub fn open(path: &Path) -> Result<Reader, String> {
    if !reads_once(path) {
        return open_regular(path).map(Reader::File);
    }
    let lost = || format!("the copy of {} is lost", source_name(path));
    let source = source_of(path);
    let mut copies = COPIES.lock().map_err(|_| lost())?;
    if !copies.iter().any(|(s, _)| *s == source) {
        let copy = copy_of(path).map(Arc::new);
        copies.push((source_of(path), copy));
    }
    match copies.iter().find(|(s, _)| *s == source) {
        Some((_, Ok(file))) => Ok(Reader::Copy {
            file: Arc::clone(file),
            at: 0,
        }),
        Some((_, Err(e))) => Err(e.clone()),
        None => Err(lost()),
    }
}

/// A file (not one that reads once) opened for reading, which must be the file, unchanged, that the command
/// first opened under this path: a command that reads a file more than once (two passes; a look at its head,
/// then all of it) would otherwise join what two versions of it say, and `fix` would edit the second with what
/// its first pass found in the first. A file written in place (appended, rewritten) is told by its length and
/// modification time, one saved by a rename by its inode and birth time. A file the command itself writes
/// ([`replacing`]) is read as new.
fn open_regular(path: &Path) -> Result<std::fs::File, String> {
    let file = std::fs::File::open(path).map_err(|e| cannot_read(path, e))?;
    #[cfg(unix)]
    if let Ok(meta) = file.metadata() {
        let stamp = stamp_of(&meta);
        let mut seen = SEEN
            .lock()
            .map_err(|_| format!("cannot read {}", path.display()))?;
        match seen.get(path) {
            Some(first) if *first != stamp => return Err(changed(path)),
            Some(_) => {}
            None => {
                seen.insert(path.to_path_buf(), stamp);
            }
        }
    }
    Ok(file)
}

/// The message for an input that could not be read: `cannot read PATH: why`.
pub fn cannot_read(path: &Path, why: impl std::fmt::Display) -> String {
    format!("cannot read {}: {why}", path.display())
}

/// After the last read of `path` (a file [`open_regular`] opened): an error if the file it names was written
/// to since its first open. A file written in place while the command read it (its last pass, or its one
/// read) would otherwise give a report, or an output, of two versions of it (found by a session's helper: a
/// file rewritten during `check`'s second read gave a report of both, exit 0). A name removed or given to
/// another file since (a rename) is not an error here: what was read came from the file first opened, and a
/// command that opened the name again was stopped there. Nothing to check for an input that reads once (its
/// copy does not change) or one never opened.
pub fn unchanged(path: &Path) -> Result<(), String> {
    stamp_kept(path, false)
}

/// [`unchanged`], and the name still names that file: before a file made from it takes its name (`--in-place`),
/// which would otherwise replace what another program saved there meanwhile (by a rename, as editors save).
pub fn unchanged_at_its_name(path: &Path) -> Result<(), String> {
    stamp_kept(path, true)
}

/// Whether `path`'s file kept the stamp of its first open: also its name, if `at_name`.
fn stamp_kept(path: &Path, at_name: bool) -> Result<(), String> {
    #[cfg(unix)]
    if !reads_once(path) {
        let first = SEEN.lock().ok().and_then(|seen| seen.get(path).copied());
        let now = std::fs::metadata(path).ok().map(|meta| stamp_of(&meta));
        let same_file = |first: &Stamp| now.is_some_and(|now| (now.0, now.1) == (first.0, first.1));
        let changed_here = |first: Stamp| (at_name || same_file(&first)) && now != Some(first);
        if first.is_some_and(changed_here) {
            return Err(changed(path));
        }
    }
    #[cfg(not(unix))]
    let _ = (path, at_name);
    Ok(())
}

/// What tells a file's version apart ([`Stamp`]).
#[cfg(unix)]
fn stamp_of(meta: &std::fs::Metadata) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    (
        meta.dev(),
        meta.ino(),
        meta.created().ok(),
        meta.len(),
        meta.modified().ok(),
    )
}

/// The message for a file that changed while the command read it.
#[cfg(unix)]
fn changed(path: &Path) -> String {
    format!(
        "{} changed while gedgraft was reading it: run the command again once nothing writes to it",
        path.display()
    )
}

/// The permission bits a new file made from `path` gets (`-o OUT` where nothing is yet): the input's, as `cp`
/// gives a copy its source's (a private file does not make a world-readable copy); `None` (0666 less the
/// umask) for standard input, pipes and what cannot be read.
pub fn new_file_mode(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if reads_once(path) {
            return None;
        }
        std::fs::metadata(path)
            .ok()
            .map(|m| m.permissions().mode() & 0o777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Once the command has written `path` (`-o`, `--in-place`): what it reads there afterwards is the new file,
/// not the input changed under it.
pub fn replacing(path: &Path) {
    if let Ok(mut seen) = SEEN.lock() {
        seen.remove(path);
    }
}

/// The files [`open_regular`] opened, by path: device, inode, birth time, length and modification time at
/// the first open.
type Stamp = (
    u64,
    u64,
    Option<std::time::SystemTime>,
    u64,
    Option<std::time::SystemTime>,
);
static SEEN: LazyLock<Mutex<HashMap<PathBuf, Stamp>>> = LazyLock::new(Mutex::default);

/// A copy of an input that reads once, in an unlinked temporary file.
fn copy_of(path: &Path) -> Result<std::fs::File, String> {
    let name = source_name(path);
    let mut file = tempfile::tempfile().map_err(|e| {
        format!("cannot make a temporary file to hold {name}, which reads once: {e}")
    })?;
    let copied = match is_stdin(path) {
        true => std::io::copy(&mut std::io::stdin().lock(), &mut file),
        false => {
            std::fs::File::open(path).and_then(|mut source| std::io::copy(&mut source, &mut file))
        }
    };
    copied.map_err(|e| {
        format!("cannot read {name} into the temporary file that holds it (it reads once): {e}")
    })?;
    Ok(file)
}

/// The octets of a file; `-` reads standard input. An input that reads once is read from its copy ([`open`]),
/// so that it reads the same however often, and under whichever name, a command reads it. A file written to
/// while it was read is an error ([`unchanged`]): every command's whole-file read is checked here.
pub fn read_octets(path: &Path) -> Result<Vec<u8>, String> {
    if !reads_once(path) {
        let mut file = open_regular(path)?;
        let mut bytes = Vec::with_capacity(file.metadata().map_or(0, |m| m.len() as usize));
        file.read_to_end(&mut bytes)
            .map_err(|e| cannot_read(path, e))?;
        // Written to while it was read: its octets may be of two versions.
        unchanged(path)?;
        return Ok(bytes);
    }
    let mut bytes = Vec::new();
    (open(path)?.read_to_end(&mut bytes))
        .map_err(|e| format!("cannot read {}: {e}", source_name(path)))?;
    Ok(bytes)
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A file that changes between two reads of one command is an error at the second read, however it is
    /// read (streamed or whole); reading it again unchanged is not.
    #[test]
    fn a_file_that_changes_between_two_reads_is_an_error() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("f.ged");
        std::fs::write(&path, "0 HEAD\n0 TRLR\n").expect("written");
        assert!(open(&path).is_ok());
        assert_eq!(
            read_octets(&path).expect("the same file"),
            b"0 HEAD\n0 TRLR\n"
        );
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, b"0 NOTE x\n"))
            .expect("appended");
        let changed = |e: String| e.contains("f.ged changed while gedgraft was reading it");
        assert!(open(&path).err().is_some_and(changed));
        assert!(read_octets(&path).err().is_some_and(changed));
        // Saved by a rename: another inode under the name.
        let saved = dir.path().join("saved.ged");
        std::fs::write(&saved, "0 HEAD\n0 TRLR\n").expect("written");
        assert!(open(&saved).is_ok());
        let new = dir.path().join("new.ged");
        std::fs::write(&new, "0 HEAD\n0 TRLR\n").expect("written");
        std::fs::rename(&new, &saved).expect("renamed");
        assert!(open(&saved)
            .err()
            .is_some_and(|e| e.contains("saved.ged changed")));
        // Unless the command writes it itself.
        replacing(&saved);
        assert!(open(&saved).is_ok());
        // Another file is another file.
        let other = dir.path().join("g.ged");
        std::fs::write(&other, "0 HEAD\n0 TRLR\n").expect("written");
        assert!(read_octets(&other).is_ok());
    }

    /// A file written in place after the command's last open of it (same length, a later modification time)
    /// is found changed at the end ([`unchanged`]), and the file a command would make from it is not written
    /// ([`crate::output::replace_file`]): found by a session's helper, a file rewritten while `check` read it
    /// again gave a report of both versions, exit 0, and `fix -o` wrote a file of both.
    #[test]
    fn a_file_written_in_place_after_its_last_open_is_found_changed() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("f.ged");
        std::fs::write(&path, "0 HEAD\n0 TRLR\n").expect("written");
        drop(open(&path).expect("opened"));
        assert_eq!(unchanged(&path), Ok(()));
        let out = dir.path().join("out.ged");
        let copy = |to: &mut dyn std::io::Write| to.write_all(b"0 HEAD\n0 TRLR\n");
        crate::output::replace_file((&out, &path), None, copy).expect("written");
        std::fs::remove_file(&out).expect("removed");
        // Rewritten in place: the same length, a later modification time.
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("opened");
        std::io::Write::write_all(&mut &file, b"0 HEAD\n0 TRLX\n").expect("written");
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(10);
        file.set_modified(later).expect("modification time set");
        drop(file);
        let error = unchanged(&path).expect_err("changed");
        assert!(
            error.contains("changed while gedgraft was reading it"),
            "{error}"
        );
        let written = crate::output::replace_file((&out, &path), None, copy);
        let error = written.expect_err("not written").to_string();
        assert!(
            error.contains("changed while gedgraft was reading it"),
            "{error}"
        );
        assert!(!out.exists());
        // A file never opened has nothing to compare with.
        assert_eq!(unchanged(&dir.path().join("other.ged")), Ok(()));
        // A name given to another file, or removed, after one read: what was read is one file's (found by a
        // session's helper: `check`, `fix -o` refused a file moved away while they read it once). Not where
        // a file made from it would take that name: another program saved a file there meanwhile.
        let moved = dir.path().join("moved.ged");
        std::fs::write(&moved, "0 HEAD\n0 TRLR\n").expect("written");
        drop(open(&moved).expect("opened"));
        std::fs::rename(&moved, dir.path().join("elsewhere.ged")).expect("moved");
        assert_eq!(unchanged(&moved), Ok(()));
        assert!(unchanged_at_its_name(&moved).is_err());
        std::fs::write(&moved, "0 HEAD\n1 NOTE saved meanwhile\n0 TRLR\n").expect("saved");
        assert_eq!(unchanged(&moved), Ok(()));
        assert!(unchanged_at_its_name(&moved).is_err());
    }
}
