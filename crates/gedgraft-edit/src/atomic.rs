//! Replacing a file atomically: readers see the old octets or the new ones, never a mix, and a failure leaves
//! the original untouched.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Replaces the contents of `path` with `bytes` atomically: writes a temporary file in the same directory,
/// flushes it to disk (`fsync`), gives it the original's permissions, then renames it over the original (and
/// flushes the directory on Unix). With `backup = Some(suffix)` the original is first copied to
/// `path` + `suffix`. A symbolic link is followed: the file it points to is replaced. On any failure the
/// temporary file is removed and the original is left as it was.
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

/// [`write_atomic`] with a hook called with the temporary file's path just before the rename; an error from the
/// hook aborts the write like any other failure (tests use it to check that the original survives).
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
    let path = resolve(path)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?
        .to_string_lossy()
        .into_owned();
    let (temp, mut file) = create_temp(&dir, &name)?;
    let result = (|| {
        file.write_all(bytes)?;
        if let Ok(meta) = fs::metadata(&path) {
            fs::set_permissions(&temp, meta.permissions())?;
        }
        file.sync_all()?;
        drop(file);
        if let Some(suffix) = backup {
            if path.exists() {
                let mut backup_path = path.clone().into_os_string();
                backup_path.push(suffix);
                fs::copy(&path, &backup_path)?;
            }
        }
        before_rename(&temp)?;
        fs::rename(&temp, &path)?;
        sync_dir(&dir);
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// The file a path names, through symbolic links.
fn resolve(path: &Path) -> io::Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path),
        _ => Ok(path.to_path_buf()),
    }
}

/// A new temporary file next to the target.
fn create_temp(dir: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    let pid = std::process::id();
    let mut last = None;
    for n in 0..100u32 {
        let temp = dir.join(format!(".{name}.gedgraft-{pid}-{n}.tmp"));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("cannot create a temporary file")))
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
