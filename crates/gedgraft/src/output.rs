//! Writing to standard output without panicking when the reader goes away (`gedgraft dump big.ged | head`),
//! and telling an output path that names a standard stream from a file to replace.

use std::io::{BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once standard output is closed; later output is dropped.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Streams output to standard output through a buffer: `write` writes (and flushes) it piece by piece, so large
/// output is never held whole. A closed pipe is not an error, as for [`emit`].
pub fn stream(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), String> {
    if CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    writable()?;
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    settle(write(&mut out).and_then(|()| out.flush()))
}

/// Writes `text` to standard output. A closed pipe is not an error: the rest of the output is dropped and the
/// command still finishes with its own exit status. Other write errors are reported.
pub fn emit(text: &str) -> Result<(), String> {
    write_stdout(&mut std::io::stdout().lock(), text.as_bytes())
}

/// Writes `bytes` to `out`, the locked standard output, and flushes it, with [`emit`]'s rule for a closed pipe
/// (`gedgraft fix … | head`).
pub fn write_stdout(out: &mut impl Write, bytes: &[u8]) -> Result<(), String> {
    if CLOSED.load(Ordering::Relaxed) || bytes.is_empty() {
        return Ok(());
    }
    writable()?;
    settle(out.write_all(bytes).and_then(|()| out.flush()))
}

/// Whether standard output can be written, asked once, before the first output. Rust's standard output takes
/// a descriptor that refuses writes (`EBADF`) for a sink: a command run with `1<file` would exit 0 having
/// written nothing. Like `cat`, it fails instead (exit status 2). (A closed standard output, `>&-`, is opened
/// on `/dev/null` by Rust's runtime before `main`, and cannot be told from `> /dev/null`.)
fn writable() -> Result<(), String> {
    static WRITABLE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    WRITABLE.get_or_init(stdout_writable).clone()
}

#[cfg(unix)]
fn stdout_writable() -> Result<(), String> {
    use rustix::fs::OFlags;
    use std::os::fd::AsFd;
    match rustix::fs::fcntl_getfl(std::io::stdout().as_fd()) {
        Err(e) => Err(write_error("to standard output", &e.into())),
        Ok(flags) if !flags.intersects(OFlags::WRONLY | OFlags::RDWR) => {
            Err("cannot write to standard output: it is open for reading only".to_string())
        }
        Ok(_) => Ok(()),
    }
}

#[cfg(not(unix))]
fn stdout_writable() -> Result<(), String> {
    Ok(())
}

/// The outcome of a write to standard output: a closed pipe is remembered and is not an error; other errors
/// are.
fn settle(written: std::io::Result<()>) -> Result<(), String> {
    match written {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(write_error("to standard output", &e)),
    }
}

/// A standard stream that an output path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// The standard stream `path` names: `-` is standard output, and a path naming the very file that standard
/// output or standard error is open on (`/dev/stdout`, `/dev/fd/2`, the terminal, the file the shell redirected
/// it to) is that stream. Output to such a path goes through the stream: replacing the file by renaming would
/// truncate what was appended to it, or fail for a pipe.
pub fn stream_named(path: &Path) -> Option<Stream> {
    if path.as_os_str() == "-" {
        return Some(Stream::Stdout);
    }
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let target = std::fs::metadata(path).ok()?;
        let is =
            |fd: std::os::fd::BorrowedFd<'_>| open_on(fd).is_some_and(|m| same_file(&m, &target));
        if is(std::io::stdout().as_fd()) {
            return Some(Stream::Stdout);
        }
        if is(std::io::stderr().as_fd()) {
            return Some(Stream::Stderr);
        }
    }
    None
}

/// What the file descriptor `fd` is open on.
#[cfg(unix)]
fn open_on(fd: std::os::fd::BorrowedFd<'_>) -> Option<std::fs::Metadata> {
    let open = fd.try_clone_to_owned().map(std::fs::File::from);
    open.and_then(|f| f.metadata()).ok()
}

/// Whether two metadata are of one file (device and inode).
#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

/// Whether standard output is the file `path` itself (`lower f.ged >> f.ged`; `-` is standard input there):
/// a streamed command would read what it writes, so the whole-file path reads the file before it writes.
pub fn stdout_is(path: &Path) -> bool {
    !crate::input::is_stdin(path) && stream_named(path) == Some(Stream::Stdout)
}

/// Refuses the file `path`, the command's input number `index` (from 0), when standard output is open on it
/// and it is not the first (`check a.ged b.ged >> b.ged`; `-` when standard input is that file, `check a.ged -
/// < b.ged >> b.ged`), as `cat` does ("input file is output file"): by the time it is read it holds what was
/// written for the files before it, and a worker could read it while that is appended. Only a regular file:
/// what is written to a device such as `/dev/null` or a terminal is not read back. The first file is read
/// whole before anything is written ([`stdout_is`]).
pub fn refuse_later_input_as_output(path: &Path, index: usize) -> Result<(), String> {
    #[cfg(unix)]
    let same = || {
        use std::os::fd::AsFd;
        let Some(out) = open_on(std::io::stdout().as_fd()).filter(std::fs::Metadata::is_file)
        else {
            return false;
        };
        match crate::input::is_stdin(path) {
            true => open_on(std::io::stdin().as_fd()).is_some_and(|m| same_file(&m, &out)),
            false => stdout_is(path),
        }
    };
    #[cfg(not(unix))]
    let same = || stdout_is(path);
    match index > 0 && same() {
        true => Err(format!(
            "{}: input file is output file: standard output is written to it, after what was written for the \
             files before it; give it first or alone, or write the output elsewhere",
            path.display()
        )),
        false => Ok(()),
    }
}

/// Writes `bytes` to `stream` (`stdout` is the locked standard output).
pub fn write_stream(stream: Stream, bytes: &[u8], stdout: &mut impl Write) -> Result<(), String> {
    match stream {
        Stream::Stdout => write_stdout(stdout, bytes),
        Stream::Stderr => {
            let mut err = std::io::stderr().lock();
            err.write_all(bytes)
                .and_then(|()| err.flush())
                .map_err(|e| write_error("standard error", &e))
        }
    }
}

/// Writes the file `out` (`-o OUT`, or the input itself in place) made from the input `from`, atomically, with
/// a backup when asked ([`gedgraft_edit::write_atomic_streamed_as`]): a new `out` gets the input's permissions
/// ([`crate::input::new_file_mode`]), and what the command reads at `out` afterwards is the new file
/// ([`crate::input::replacing`]). The one way the commands write a file.
pub fn replace_file(
    (out, from): (&Path, &Path),
    backup: Option<&str>,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if out != from {
        write_protected(out)?;
    }
    static SIGNALS: std::sync::Once = std::sync::Once::new();
    SIGNALS.call_once(crate::clean_up_on_signals);
    let mode = crate::input::new_file_mode(from);
    // A file made from an input that changed while it was read is not written: it would hold two versions.
    // In place, not over a file another program saved at the input's name meanwhile either.
    let fill = |to: &mut dyn Write| {
        fill(to)?;
        let kept = match out == from {
            true => crate::input::unchanged_at_its_name(from),
            false => crate::input::unchanged(from),
        };
        kept.map_err(std::io::Error::other)
    };
    let written = gedgraft_edit::write_atomic_streamed_as(out, backup, mode, fill);
    crate::input::replacing(out);
    written
}

/// The message for a temporary file that could not be made or written (output spilled to disk).
pub fn temporary_file_error(e: std::io::Error) -> String {
    format!("cannot write a temporary file: {e}")
}

/// An unlinked temporary file that a stream's output is held in until the end, when the stream may still give
/// way to the whole-file path (`fmt -o -`, `fix --repair` with other edits into a stream). No file to be had
/// (`TMPDIR` unusable) or a write that fails (a full disk, `ulimit -f`) is no failure of the command: nothing
/// is written yet, and the whole-file path writes the output straight to the stream.
pub struct Spill {
    file: std::fs::File,
    failed: bool,
}

impl Spill {
    /// A new temporary file; `None` when none can be made.
    pub fn new() -> Option<Spill> {
        let file = tempfile::tempfile().ok()?;
        Some(Spill {
            file,
            failed: false,
        })
    }

    /// Appends `octets`; a failure is remembered ([`Spill::failed`]).
    pub fn write(&mut self, octets: &[u8]) -> Result<(), String> {
        use std::io::Write;
        self.file.write_all(octets).map_err(|e| {
            self.failed = true;
            temporary_file_error(e)
        })
    }

    /// Whether a write failed: the caller takes the whole-file path.
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// The file, to copy out ([`copy_spilled`]).
    pub fn into_file(self) -> std::fs::File {
        self.file
    }
}

/// Writes what a temporary file holds, from its start, to standard output, with [`emit`]'s rules; the kernel
/// moves the octets where it can (`splice` into a pipe), not this process.
pub fn copy_spilled_to_stdout(mut file: std::fs::File) -> Result<(), String> {
    use std::io::Seek;
    if CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    writable()?;
    file.rewind()
        .map_err(|e| format!("cannot read a temporary file: {e}"))?;
    let mut out = std::io::stdout().lock();
    settle(
        out.flush()
            .and_then(|()| std::io::copy(&mut file, &mut out))
            .and_then(|_| out.flush()),
    )
}

/// Gives `write` what a temporary file holds, from its start, a chunk at a time (output spilled to disk while
/// it was made: `lower`'s diagnostics, `fmt -o -`).
pub fn copy_spilled(
    mut file: std::fs::File,
    mut write: impl FnMut(&[u8]) -> Result<(), String>,
) -> Result<(), String> {
    use std::io::{Read, Seek};
    let error = |e: std::io::Error| format!("cannot read a temporary file: {e}");
    file.rewind().map_err(error)?;
    let mut chunk = vec![0; 1 << 20];
    loop {
        let n = file.read(&mut chunk).map_err(error)?;
        if n == 0 {
            return Ok(());
        }
        write(&chunk[..n])?;
    }
}

/// Refuses an output file (`-o OUT`, not the input itself) that is there and that the user may not write: it
/// would be replaced all the same (the directory is writable), where `cp` refuses to overwrite it. In place,
/// a write-protected file is edited, as `sed -i` does (the user asked to edit that file).
#[cfg(unix)]
fn write_protected(out: &Path) -> std::io::Result<()> {
    use rustix::fs::{access, Access};
    let denied =
        |e: rustix::io::Errno| e == rustix::io::Errno::ACCESS || e == rustix::io::Errno::PERM;
    match access(out, Access::WRITE_OK) {
        Err(e) if denied(e) => Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "it is write-protected, and is not replaced (as `cp` does not overwrite it); make it writable \
             (chmod u+w) or remove it first",
        )),
        _ => Ok(()),
    }
}

#[cfg(not(unix))]
fn write_protected(_: &Path) -> std::io::Result<()> {
    Ok(())
}

/// Writes a message to standard error. A failed write (`2>/dev/full`, a closed pipe) is let go: it must not
/// panic (exit 101) or stop the files still to do, and the exit status still tells what happened, as with
/// `cat missing 2>/dev/full`.
pub fn to_stderr(message: std::fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(message).and_then(|()| err.flush());
}

/// `text` as it may be shown on a terminal: control characters other than line breaks and tabs written as
/// `\x1B`. A file name may hold an escape sequence (`bad\x1B[2J.ged`), and printed as it is it would act on
/// the reader's terminal; GNU tools quote such names too.
pub fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    let escaped = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(escaped) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match escaped(c) {
            true => gedgraft_syntax::internal::push_printable(c, &mut out),
            false => out.push(c),
        }
    }
    out.into()
}

/// A file name as [`shown`] shows it.
pub fn shown_path(path: &std::path::Path) -> String {
    shown(&path.display().to_string()).into_owned()
}

/// Tells the user `line` on standard error ([`shown`]).
pub fn say(line: &str) {
    to_stderr(format_args!("{}\n", shown(line)));
}

/// Reports an error on standard error: `gedgraft: ` and the message ([`shown`]).
pub fn error(message: &str) {
    to_stderr(format_args!("gedgraft: {}\n", shown(message)));
}

/// The message for a failed write to `what` (a file name or a stream), with a hint when the file size limit
/// stopped it.
pub fn write_error(what: &str, e: &std::io::Error) -> String {
    let hint = if e.kind() == ErrorKind::FileTooLarge {
        " (the output is larger than the file size limit, see `ulimit -f`)"
    } else {
        ""
    };
    format!("cannot write {what}: {e}{hint}")
}

/// The exit status of every command, one rule: 2 when something could not be read, edited or written (or an
/// argument was wrong), else 1 when the command found what it reports (an error for `check`/`lower`, a change
/// for `fix --check`/`fmt --check`/`diff`), else 0.
pub fn exit_status(trouble: bool, found: bool) -> std::process::ExitCode {
    if trouble {
        std::process::ExitCode::from(2)
    } else if found {
        std::process::ExitCode::from(1)
    } else {
        std::process::ExitCode::SUCCESS
    }
}

/// Refuses, for `--in-place`, a file named twice (`a.ged ./a.ged`, or through a link: its edits would be
/// made twice, and with `--backup` the backup would hold the once-edited text) and a `--backup` that would
/// replace another file named on the command line (`a.ged a.ged.orig` with `--backup .orig`: backing up the
/// first would put its text where the second's was before the second is edited, and the second's text would be
/// gone; GNU `sed -i` does both, we do neither). Backups go next to the file each path leads to.
pub(crate) fn check_in_place_files(files: &[PathBuf], suffix: Option<&str>) -> Result<(), String> {
    if files.len() < 2 {
        return Ok(());
    }
    // What each named file leads to, found once.
    let resolved: Vec<Option<PathBuf>> = files
        .iter()
        .map(|f| std::fs::canonicalize(f).ok())
        .collect();
    for (i, r) in resolved.iter().enumerate().filter(|(_, r)| r.is_some()) {
        if let Some(j) = resolved[..i].iter().position(|earlier| earlier == r) {
            return Err(format!(
                "--in-place: {} and {} are the same file: name it once (its edits would be made twice)",
                shown_path(&files[j]),
                shown_path(&files[i])
            ));
        }
    }
    let Some(suffix) = suffix else {
        return Ok(());
    };
    // The name each file is reached by, its directory resolved (a link named there is replaced, not followed).
    let by_name = |p: &Path| {
        let dir = (p.parent())
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Some(std::fs::canonicalize(dir).ok()?.join(p.file_name()?))
    };
    let reached: Vec<Option<PathBuf>> = files.iter().map(|f| by_name(f)).collect();
    for (i, r) in resolved.iter().enumerate() {
        let Some(r) = r else { continue };
        let mut backup = r.clone().into_os_string();
        backup.push(suffix);
        let backup = Some(PathBuf::from(backup));
        if let Some(j) = (0..files.len()).find(|&j| reached[j] == backup || resolved[j] == backup) {
            return Err(format!(
                "--backup {suffix}: the backup of {} would replace {}, which is named to be edited too; \
                 choose another suffix",
                shown_path(&files[i]),
                shown_path(&files[j])
            ));
        }
    }
    Ok(())
}
