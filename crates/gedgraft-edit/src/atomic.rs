//! Replacing a file atomically: readers see the old octets or the new ones, never a mix, and a failure leaves
//! the original untouched.
//!
//! Safety rules, each with a test in `tests/atomic.rs` or in the CLI's `tests/file_safety.rs`:
//! - only a regular file (or a symbolic link to one, which is followed) is ever replaced: a device, FIFO,
//!   socket or directory at the target is refused before anything is written;
//! - the temporary file is created with mode 0600 (0666 less the umask for a new file) and gets the original's
//!   owner, group and mode (set-user-ID bits included, set after the owner) only once its octets are written;
//!   when the owner and group cannot be kept the write is refused; on Linux it gets the original's access
//!   control list too (or the write is refused);
//! - a backup is never opened for writing: the original is hard-linked to a fresh temporary name that is
//!   renamed over the backup name (a rename replaces a link at that name, it never follows it), or, where
//!   hard links are not possible, copied to a new file created exclusively and renamed into place once
//!   complete. An earlier backup is replaced only by a complete new one;
//! - the temporary files being written are on a list that [`remove_temporary_files`] removes, for a command
//!   stopped by a signal (Ctrl-C) to leave none behind.

use std::ffi::OsString;
#[cfg(unix)]
use std::fs::Permissions;
use std::fs::{self, File, Metadata};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use tempfile::{Builder, NamedTempFile};

/// The temporary files this process is writing, for [`remove_temporary_files`].
static IN_FLIGHT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn in_flight() -> MutexGuard<'static, Vec<PathBuf>> {
    IN_FLIGHT.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A temporary file's name on the list of those being written ([`IN_FLIGHT`]), taken off when dropped.
struct InFlight(PathBuf);

impl InFlight {
    fn new(path: &Path) -> InFlight {
        in_flight().push(path.to_path_buf());
        InFlight(path.to_path_buf())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut list = in_flight();
        if let Some(i) = list.iter().position(|p| *p == self.0) {
            list.swap_remove(i);
        }
    }
}

/// Removes the temporary files this module's writers are writing, for a process about to die of a signal
/// (the command line calls it on `SIGINT`, `SIGTERM` and `SIGHUP`, as `sort -o` does, where `sed -i` leaves its
/// temporary file behind). The files being replaced are untouched: a temporary file only replaces one when it
/// is complete, by a rename, and one removed first is never renamed. The list stays locked afterwards, so that
/// no writer starts another temporary file before the process ends; how many were removed.
///
/// ```
/// // Nothing is being written here.
/// assert_eq!(gedgraft_edit::remove_temporary_files(), 0);
/// ```
pub fn remove_temporary_files() -> usize {
    let list = in_flight();
    let removed = list.iter().filter(|p| fs::remove_file(p).is_ok()).count();
    std::mem::forget(list);
    removed
}

/// Replaces the contents of `path` with `bytes` atomically: writes a temporary file in the same directory,
/// gives it the original's owner, group and permissions, flushes it to disk (`fsync`), then renames it over the
/// original (and flushes the directory on Unix). With `backup = Some(suffix)` the original is kept as
/// `path` + `suffix` (see [`check_backup_suffix`]). On any failure the temporary file is removed and the
/// original (and an earlier backup) is left as it was.
///
/// - Only a regular file is replaced; anything else at `path` (a device, FIFO, socket, directory) is refused
///   with [`io::ErrorKind::InvalidInput`] before anything is written (see [`check_replaceable`]).
/// - A symbolic link is followed: the file it points to is replaced, the link stays, and the backup is made
///   next to that file (a hard link must be in the same file system), not next to the link.
/// - On Unix the new file keeps the original's owner and group, or the write fails: a file edited by root
///   does not become root's. Its mode (set-user-ID and set-group-ID bits included) is set after the owner.
/// - The new file is a new inode: other hard links to the original keep the old octets (as with `sed -i`).
///
/// ```
/// let dir = std::env::temp_dir().join(format!("gedgraft-edit-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("family.ged");
/// std::fs::write(&path, b"old").unwrap();
/// gedgraft_edit::write_atomic(&path, b"new", Some(".orig")).unwrap();
/// assert_eq!(std::fs::read(&path).unwrap(), b"new");
/// assert_eq!(std::fs::read(dir.join("family.ged.orig")).unwrap(), b"old");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn write_atomic(path: &Path, bytes: &[u8], backup: Option<&str>) -> io::Result<()> {
    write_atomic_with(path, bytes, backup, |_| Ok(()))
}

/// [`write_atomic`] with a hook called with the temporary file's path just before the rename (after the
/// backup is made); an error from the hook aborts the write like any other failure (tests use it to check
/// that the original survives).
///
/// ```
/// let dir = std::env::temp_dir().join(format!("gedgraft-edit-doc2-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("family.ged");
/// std::fs::write(&path, b"old").unwrap();
/// let fail = |_: &std::path::Path| Err(std::io::Error::other("injected"));
/// assert!(gedgraft_edit::write_atomic_with(&path, b"new", None, fail).is_err());
/// assert_eq!(std::fs::read(&path).unwrap(), b"old");
/// assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file left behind");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn write_atomic_with(
    path: &Path,
    bytes: &[u8],
    backup: Option<&str>,
    before_rename: impl FnOnce(&Path) -> io::Result<()>,
) -> io::Result<()> {
    write_atomic_from(
        path,
        backup,
        None,
        |out| out.write_all(bytes),
        before_rename,
    )
}

/// [`write_atomic_streamed`] for a file made from another (`fix IN -o OUT`): when nothing is at `path` yet, the
/// new file gets `new_mode`'s permission bits (the input's, less set-user-ID and set-group-ID), less the umask,
/// as `cp` gives a copy its source's: a private input does not make a world-readable copy. A file already there
/// keeps its own mode, as always.
///
/// ```
/// # #[cfg(unix)] {
/// use std::os::unix::fs::PermissionsExt;
/// let dir = std::env::temp_dir().join(format!("gedgraft-edit-doc4-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("copy.ged");
/// let octets = b"0 HEAD\n0 TRLR\n";
/// gedgraft_edit::write_atomic_streamed_as(&path, None, Some(0o600), |out| out.write_all(octets)).unwrap();
/// assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # }
/// ```
pub fn write_atomic_streamed_as(
    path: &Path,
    backup: Option<&str>,
    new_mode: Option<u32>,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    write_atomic_from(path, backup, new_mode, fill, |_| Ok(()))
}

/// [`write_atomic`] for output made a piece at a time: `fill` writes the new file's octets (through a buffer)
/// into the temporary file; if it fails, the original is untouched and no temporary file is left behind.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("gedgraft-edit-doc3-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("family.ged");
/// gedgraft_edit::write_atomic_streamed(&path, None, |out| {
///     out.write_all(b"0 HEAD\n")?;
///     out.write_all(b"0 TRLR\n")
/// })
/// .unwrap();
/// assert_eq!(std::fs::read(&path).unwrap(), b"0 HEAD\n0 TRLR\n");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn write_atomic_streamed(
    path: &Path,
    backup: Option<&str>,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    write_atomic_from(path, backup, None, fill, |_| Ok(()))
}

fn write_atomic_from(
    path: &Path,
    backup: Option<&str>,
    new_mode: Option<u32>,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    before_rename: impl FnOnce(&Path) -> io::Result<()>,
) -> io::Result<()> {
    if let Some(suffix) = backup {
        check_backup_suffix(suffix)?;
    }
    let path = resolve(path)?;
    let original = regular_or_absent(&path)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // A new file gets the usual 0666 less the umask from the start; a replacement starts private and gets the
    // original's mode once it has the original's owner.
    let new = new_mode.map_or(0o666, |m| m & 0o777);
    let (mut temp, _in_flight) = temp_file(
        &dir,
        &path,
        ".tmp",
        if original.is_some() { 0o600 } else { new },
    )?;
    {
        let mut out = io::BufWriter::with_capacity(1 << 16, temp.as_file_mut());
        fill(&mut out)?;
        out.flush()?;
    }
    if let Some(meta) = &original {
        keep_owner_and_mode(temp.as_file(), meta)?;
        keep_access_control_list(&path, temp.as_file())?;
    }
    temp.as_file().sync_all()?;
    if let (Some(suffix), Some(meta)) = (backup, &original) {
        let mut name = path.clone().into_os_string();
        name.push(suffix);
        let backup_path = PathBuf::from(name);
        make_backup(&path, meta, &backup_path, &dir).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot make the backup {}: {e}", backup_path.display()),
            )
        })?;
    }
    before_rename(temp.path())?;
    // Checked again: something else may have been put there while the file was written.
    regular_or_absent(&path)?;
    temp.persist(&path).map_err(|e| e.error)?;
    sync_dir(&dir);
    Ok(())
}

/// Whether [`write_atomic`] may replace `path`: `Ok` when nothing is there yet or when it is a regular file
/// (through symbolic links); an [`io::ErrorKind::InvalidInput`] error saying what is there otherwise (a
/// directory, character or block device, FIFO or socket). Call it before reading a file to be rewritten in
/// place: reading a FIFO would wait for a writer.
pub fn check_replaceable(path: &Path) -> io::Result<()> {
    regular_or_absent(&resolve(path)?).map(|_| ())
}

/// Whether `suffix` can name a backup: not empty (the backup would be the file itself) and without a path
/// separator (the backup stays next to the file).
pub fn check_backup_suffix(suffix: &str) -> io::Result<()> {
    let problem = if suffix.is_empty() {
        "the backup suffix is empty"
    } else if suffix.contains('/') || (cfg!(windows) && suffix.contains('\\')) {
        "the backup suffix contains a path separator"
    } else {
        return Ok(());
    };
    Err(io::Error::new(io::ErrorKind::InvalidInput, problem))
}

/// The file a path names, through symbolic links. A link to what has no name in the file system (`/dev/stdin`
/// and `<(…)` lead to `pipe:[N]`) is refused for what it leads to, not as a missing file; a link to nothing
/// (a dangling link) is refused as such: it is not written through to make its target, as `cp` does not.
fn resolve(path: &Path) -> io::Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(|e| match fs::metadata(path) {
                Ok(target) if !target.is_file() => not_regular(&target),
                Err(missing) if missing.kind() == io::ErrorKind::NotFound => io::Error::new(
                    io::ErrorKind::NotFound,
                    format!(
                        "it is a symbolic link to {}, which does not exist; a dangling link is not written \
                         through",
                        fs::read_link(path).map_or("nothing".into(), |t| t.display().to_string())
                    ),
                ),
                _ => e,
            })
        }
        _ => Ok(path.to_path_buf()),
    }
}

/// The metadata of the regular file at `path` (not a link: already resolved), `None` when nothing is there,
/// or an error when something other than a regular file is there.
fn regular_or_absent(path: &Path) -> io::Result<Option<Metadata>> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => Ok(Some(meta)),
        Ok(meta) => Err(not_regular(&meta)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The refusal of a file that is not a regular file.
fn not_regular(meta: &Metadata) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "it is {}, not a regular file; only regular files are replaced",
            what_is(meta)
        ),
    )
}

/// What a file that is not a regular file is, for messages.
fn what_is(meta: &Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_fifo() {
            return "a FIFO (a pipe)";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// A new temporary file next to `target` (its name ends in `ending`), created exclusively with `mode` (less the
/// umask), removed when dropped, and on the list of those being written while the second is kept.
fn temp_file(
    dir: &Path,
    target: &Path,
    ending: &str,
    mode: u32,
) -> io::Result<(NamedTempFile, InFlight)> {
    let (prefix, suffix) = temp_affixes(target, ending);
    let mut builder = Builder::new();
    builder.prefix(&prefix).suffix(&suffix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = mode;
    // tempfile names the temporary file that could not be made ("at path …/.a.ged.XXXXXX.gedgraft.tmp"), which
    // never existed: the caller names the file being written.
    let temp = builder.tempfile_in(dir).map_err(|e| {
        let text = e.to_string();
        match text.find(" at path \"") {
            Some(cut) => io::Error::new(e.kind(), text[..cut].to_string()),
            None => e,
        }
    })?;
    let in_flight = InFlight::new(temp.path());
    Ok((temp, in_flight))
}

/// The longest file name most file systems take, in octets (`NAME_MAX`).
const NAME_MAX: usize = 255;

/// How many random characters `tempfile` puts between the prefix and the suffix.
const RANDOM_LEN: usize = 6;

/// The prefix and suffix of temporary names next to `target`: `.NAME.` and `.gedgraft` + `ending`, so that
/// they are hidden and recognisable as ours. A long NAME is cut so that the temporary name stays within
/// [`NAME_MAX`]: a file whose name is valid can always be edited in place.
fn temp_affixes(target: &Path, ending: &str) -> (OsString, String) {
    let suffix = format!(".gedgraft{ending}");
    let room = NAME_MAX.saturating_sub(suffix.len() + RANDOM_LEN + 2);
    let mut prefix = OsString::from(".");
    if let Some(name) = target.file_name() {
        prefix.push(cut_name(name, room));
    }
    prefix.push(".");
    (prefix, suffix)
}

/// `name`, or its first `room` octets when it is longer (any octets but `/` and NUL make a name on Unix).
#[cfg(unix)]
fn cut_name(name: &std::ffi::OsStr, room: usize) -> OsString {
    use std::os::unix::ffi::OsStrExt;
    let bytes = name.as_bytes();
    std::ffi::OsStr::from_bytes(&bytes[..bytes.len().min(room)]).to_os_string()
}

/// `name`, or its first `room` characters when it is longer.
#[cfg(not(unix))]
fn cut_name(name: &std::ffi::OsStr, room: usize) -> OsString {
    name.to_string_lossy()
        .chars()
        .take(room)
        .collect::<String>()
        .into()
}

/// Gives `file` the owner, group and mode of the file `meta` describes. The owner first: changing it may clear
/// the set-user-ID and set-group-ID bits, which the mode then sets again, for the original owner only.
fn keep_owner_and_mode(file: &File, meta: &Metadata) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let current = file.metadata()?;
        let (uid, gid) = (meta.uid(), meta.gid());
        if (current.uid(), current.gid()) != (uid, gid) {
            std::os::unix::fs::fchown(file, Some(uid), Some(gid)).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot keep the owner and group ({uid}:{gid}), so nothing was changed: {e}"),
                )
            })?;
        }
    }
    file.set_permissions(meta.permissions())
}

/// Gives `file` the access control list of `original` (`system.posix_acl_access`), after its mode: `sed -i`
/// keeps it, and without it the mode's group bits (the list's mask) would give the file's group what the list
/// denied it, and take from the users it named what it allowed them. A file system without such lists has
/// none to keep; one that cannot be kept refuses the write.
#[cfg(target_os = "linux")]
fn keep_access_control_list(original: &Path, file: &File) -> io::Result<()> {
    use rustix::io::Errno;
    const ACL: &str = "system.posix_acl_access";
    let none = |e: Errno| e == Errno::NODATA || e == Errno::NOTSUP || e == Errno::OPNOTSUPP;
    let mut value = match rustix::fs::getxattr_query(original, ACL) {
        Ok(0) => return Ok(()),
        Ok(size) => vec![0; size],
        Err(e) if none(e) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    match rustix::fs::getxattr(original, ACL, &mut value) {
        Ok(0) => return Ok(()),
        Ok(len) => value.truncate(len),
        Err(e) if none(e) => return Ok(()),
        Err(e) => return Err(e.into()),
    }
    rustix::fs::fsetxattr(file, ACL, &value, rustix::fs::XattrFlags::empty()).map_err(|e| {
        io::Error::new(
            io::Error::from(e).kind(),
            format!("cannot keep the access control list, so nothing was changed: {e}"),
        )
    })
}

#[cfg(not(target_os = "linux"))]
fn keep_access_control_list(_original: &Path, _file: &File) -> io::Result<()> {
    Ok(())
}

/// Makes `backup` a complete copy of `original` (described by `meta`) or leaves it as it was.
fn make_backup(original: &Path, meta: &Metadata, backup: &Path, dir: &Path) -> io::Result<()> {
    // Already another name of the original: it holds the original octets and keeps them after the rename.
    if fs::symlink_metadata(backup).is_ok_and(|b| same_file(&b, meta)) {
        return Ok(());
    }
    let (prefix, suffix) = temp_affixes(original, ".bak");
    let linked = Builder::new()
        .prefix(&prefix)
        .suffix(&suffix)
        .make_in(dir, |name| fs::hard_link(original, name));
    match linked {
        Ok(link) => {
            let name = link.path().to_path_buf();
            let _in_flight = InFlight::new(&name);
            link.persist(backup).map_err(|e| e.error)?;
            // A rename between two names of one file does nothing (POSIX): the backup name became a name of
            // the original in the meantime, and the temporary name is left to remove.
            if fs::symlink_metadata(&name).is_ok_and(|n| same_file(&n, meta)) {
                fs::remove_file(&name)?;
            }
            Ok(())
        }
        // No hard links here (or not allowed, as for a file of another user under protected_hardlinks).
        Err(_) => copy_backup(File::open(original)?, meta, original, backup, dir),
    }
}

/// Copies `from` (the original, described by `meta`) to a new file created exclusively next to `original`,
/// with the original's owner, mode and modification time, and renames it over `backup` once complete.
fn copy_backup(
    mut from: impl Read,
    meta: &Metadata,
    original: &Path,
    backup: &Path,
    dir: &Path,
) -> io::Result<()> {
    let (mut temp, _in_flight) = temp_file(dir, original, ".bak", 0o600)?;
    io::copy(&mut from, temp.as_file_mut())?;
    keep_owner_and_mode(temp.as_file(), meta)?;
    if let Ok(modified) = meta.modified() {
        temp.as_file().set_modified(modified)?;
    }
    temp.as_file().sync_all()?;
    temp.persist(backup).map_err(|e| e.error)?;
    Ok(())
}

/// Whether two metadata describe the same file.
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (a.dev(), a.ino()) == (b.dev(), b.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

/// Flushes a directory's entries (the rename) to disk where the platform allows it.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Yields `n` octets, then fails as a full disk does.
    struct FullAfter(usize);

    impl Read for FullAfter {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0 == 0 {
                return Err(io::Error::from(io::ErrorKind::StorageFull));
            }
            let n = self.0.min(buf.len());
            buf[..n].fill(b'x');
            self.0 -= n;
            Ok(n)
        }
    }

    #[test]
    fn a_copied_backup_that_fails_half_way_leaves_the_earlier_backup() {
        let dir = tempfile::tempdir().expect("temp dir");
        let original = dir.path().join("a.ged");
        let backup = dir.path().join("a.ged.orig");
        fs::write(&original, vec![b'x'; 100_000]).expect("write");
        fs::write(&backup, b"earlier good backup").expect("write");
        let meta = fs::metadata(&original).expect("meta");
        let err = copy_backup(FullAfter(50_000), &meta, &original, &backup, dir.path())
            .expect_err("the disk is full");
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
        assert_eq!(fs::read(&backup).expect("backup"), b"earlier good backup");
        let names: Vec<_> = fs::read_dir(dir.path())
            .expect("dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
    }

    #[test]
    fn a_copied_backup_is_complete_and_keeps_the_mode_and_time() {
        let dir = tempfile::tempdir().expect("temp dir");
        let original = dir.path().join("a.ged");
        let backup = dir.path().join("a.ged.orig");
        fs::write(&original, b"0 HEAD\n0 TRLR\n").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&original, Permissions::from_mode(0o640)).expect("chmod");
        }
        fs::write(&backup, b"earlier").expect("write");
        let meta = fs::metadata(&original).expect("meta");
        let from = File::open(&original).expect("open");
        copy_backup(from, &meta, &original, &backup, dir.path()).expect("copy");
        assert_eq!(fs::read(&backup).expect("backup"), b"0 HEAD\n0 TRLR\n");
        let copied = fs::metadata(&backup).expect("meta");
        assert_eq!(copied.permissions(), meta.permissions());
        assert_eq!(copied.modified().ok(), meta.modified().ok());
        assert!(!same_file(&copied, &meta), "a copy, not a link");
    }

    /// A name of 255 octets is valid: its temporary file's name is cut to fit, so it can be edited in place.
    #[test]
    fn files_with_the_longest_names_can_be_replaced() {
        let dir = tempfile::tempdir().expect("temp dir");
        for len in [200, 234, 235, 250, 255] {
            let target = dir.path().join("n".repeat(len));
            fs::write(&target, b"0 HEAD\n0 TRLR\n").expect("write");
            write_atomic(&target, b"0 HEAD\n1 NOTE x\n0 TRLR\n", Some(".o")).map_or_else(
                |e| assert!(len + 2 > NAME_MAX, "{len}: {e}"),
                |()| {
                    assert_eq!(
                        fs::read(&target).expect("read"),
                        b"0 HEAD\n1 NOTE x\n0 TRLR\n"
                    )
                },
            );
            let (temp, _in_flight) = temp_file(dir.path(), &target, ".tmp", 0o600).expect("temp");
            let name = temp.path().file_name().expect("name").len();
            assert!(name <= NAME_MAX, "{len}: {name}");
        }
        let left: Vec<_> = fs::read_dir(dir.path())
            .expect("dir")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".gedgraft.tmp"))
            .collect();
        assert!(left.is_empty(), "temporary files left: {left:?}");
    }

    #[cfg(unix)]
    #[test]
    fn a_replacement_starts_readable_by_its_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("a.ged");
        let (temp, _in_flight) = temp_file(dir.path(), &target, ".tmp", 0o600).expect("temp");
        let mode = temp
            .as_file()
            .metadata()
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o7777, 0o600);
        let name = temp.path().file_name().expect("name").to_string_lossy();
        assert!(
            name.starts_with(".a.ged.") && name.ends_with(".gedgraft.tmp"),
            "{name}"
        );
    }
}
