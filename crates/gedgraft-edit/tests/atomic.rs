//! Atomic replacement of files: a failure before the rename leaves the original intact and no temporary file.

use gedgraft_edit::{check_replaceable, write_atomic, write_atomic_with};
use std::path::{Path, PathBuf};

fn temp_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("gedgraft-edit-atomic")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_failure_before_the_rename_leaves_the_original() {
    let dir = temp_dir("failure");
    let path = dir.join("family.ged");
    std::fs::write(&path, b"0 HEAD\n0 TRLR\n").expect("write");
    let mut seen_temp = None;
    let result = write_atomic_with(&path, b"new octets", Some(".orig"), |temp| {
        // The new octets are complete and on disk in the temporary file at this point.
        assert_eq!(std::fs::read(temp).expect("temp"), b"new octets");
        seen_temp = Some(temp.to_path_buf());
        Err(std::io::Error::other("injected failure"))
    });
    let err = result.expect_err("the hook's error is returned");
    assert_eq!(err.to_string(), "injected failure");
    assert_eq!(std::fs::read(&path).expect("original"), b"0 HEAD\n0 TRLR\n");
    let temp = seen_temp.expect("the hook ran");
    assert!(!temp.exists(), "the temporary file is removed");
    assert_eq!(entries(&dir), ["family.ged", "family.ged.orig"]);
}

#[test]
fn success_replaces_the_file_and_keeps_permissions() {
    let dir = temp_dir("success");
    let path = dir.join("family.ged");
    std::fs::write(&path, b"old").expect("write");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }
    write_atomic(&path, b"new", None).expect("write");
    assert_eq!(std::fs::read(&path).expect("read"), b"new");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert_eq!(entries(&dir), ["family.ged"]);
    // A new file is created too.
    write_atomic(&dir.join("new.ged"), b"x", Some(".bak")).expect("new file");
    assert_eq!(entries(&dir), ["family.ged", "new.ged"]);
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_is_followed() {
    let dir = temp_dir("symlink");
    let target = dir.join("real.ged");
    std::fs::write(&target, b"old").expect("write");
    let link = dir.join("link.ged");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    write_atomic(&link, b"new", None).expect("write");
    assert_eq!(std::fs::read(&target).expect("target"), b"new");
    assert!(std::fs::symlink_metadata(&link)
        .expect("link")
        .file_type()
        .is_symlink());
}

#[cfg(unix)]
#[test]
fn the_backup_of_a_symbolic_link_is_made_next_to_the_file_it_points_to() {
    let dir = temp_dir("symlink-backup");
    std::fs::create_dir(dir.join("real")).expect("mkdir");
    let target = dir.join("real/family.ged");
    std::fs::write(&target, b"old").expect("write");
    let link = dir.join("link.ged");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    write_atomic(&link, b"new", Some(".orig")).expect("write");
    assert_eq!(std::fs::read(&target).expect("target"), b"new");
    assert_eq!(
        std::fs::read(dir.join("real/family.ged.orig")).expect("backup"),
        b"old"
    );
    assert_eq!(entries(&dir), ["link.ged", "real"]);
}

#[test]
fn a_backup_replaces_what_is_at_its_name_without_writing_through_it() {
    let dir = temp_dir("backup-name");
    let path = dir.join("family.ged");
    std::fs::write(&path, b"original").expect("write");
    // A hard link to the file itself at the backup name: it is the original, and stays so.
    std::fs::hard_link(&path, dir.join("family.ged.orig")).expect("link");
    write_atomic(&path, b"new", Some(".orig")).expect("write");
    assert_eq!(std::fs::read(&path).expect("file"), b"new");
    assert_eq!(
        std::fs::read(dir.join("family.ged.orig")).expect("backup"),
        b"original"
    );
    assert_eq!(entries(&dir), ["family.ged", "family.ged.orig"]);
    #[cfg(unix)]
    {
        // A symbolic link to another file at the backup name: the link is replaced, the file is not touched.
        let victim = dir.join("victim.txt");
        std::fs::write(&victim, b"not yours").expect("write");
        std::fs::remove_file(dir.join("family.ged.orig")).expect("rm");
        std::os::unix::fs::symlink(&victim, dir.join("family.ged.orig")).expect("symlink");
        write_atomic(&path, b"newer", Some(".orig")).expect("write");
        assert_eq!(std::fs::read(&victim).expect("victim"), b"not yours");
        let backup = dir.join("family.ged.orig");
        assert!(!std::fs::symlink_metadata(&backup)
            .expect("backup")
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&backup).expect("backup"), b"new");
    }
}

#[test]
fn a_failed_write_keeps_the_earlier_backup_complete() {
    let dir = temp_dir("earlier-backup");
    let path = dir.join("family.ged");
    std::fs::write(&path, b"current").expect("write");
    std::fs::write(dir.join("family.ged.orig"), b"earlier backup").expect("write");
    let result = write_atomic_with(&path, b"new", Some(".orig"), |_| {
        Err(std::io::Error::other("injected failure"))
    });
    assert!(result.is_err());
    assert_eq!(std::fs::read(&path).expect("file"), b"current");
    // The backup made before the failure is the whole current file: a complete backup, never a partial one.
    assert_eq!(
        std::fs::read(dir.join("family.ged.orig")).expect("backup"),
        b"current"
    );
    assert_eq!(entries(&dir), ["family.ged", "family.ged.orig"]);
}

#[test]
fn bad_backup_suffixes_are_refused_before_anything_is_written() {
    let dir = temp_dir("bad-suffix");
    let path = dir.join("family.ged");
    std::fs::write(&path, b"old").expect("write");
    for suffix in ["", "/x", "../x"] {
        let err = write_atomic(&path, b"new", Some(suffix)).expect_err(suffix);
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{suffix:?}");
    }
    assert_eq!(std::fs::read(&path).expect("file"), b"old");
    assert_eq!(entries(&dir), ["family.ged"]);
}

#[test]
fn only_regular_files_are_replaced() {
    let dir = temp_dir("not-regular");
    std::fs::create_dir(dir.join("sub")).expect("mkdir");
    let err = write_atomic(&dir.join("sub"), b"new", None).expect_err("a directory");
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("a directory"), "{err}");
    assert!(check_replaceable(&dir.join("sub")).is_err());
    assert!(check_replaceable(&dir.join("missing.ged")).is_ok());
    #[cfg(unix)]
    {
        let status = std::process::Command::new("mkfifo")
            .arg(dir.join("fifo"))
            .status()
            .expect("run mkfifo");
        assert!(status.success());
        let err = write_atomic(&dir.join("fifo"), b"new", Some(".orig")).expect_err("a FIFO");
        assert!(err.to_string().contains("FIFO"), "{err}");
        let _socket =
            std::os::unix::net::UnixListener::bind(dir.join("socket")).expect("bind a socket");
        let err = write_atomic(&dir.join("socket"), b"new", None).expect_err("a socket");
        assert!(err.to_string().contains("socket"), "{err}");
        // A symbolic link to a FIFO is refused too.
        std::os::unix::fs::symlink(dir.join("fifo"), dir.join("link")).expect("symlink");
        assert!(write_atomic(&dir.join("link"), b"new", None).is_err());
        use std::os::unix::fs::FileTypeExt;
        let fifo = std::fs::symlink_metadata(dir.join("fifo")).expect("fifo");
        assert!(fifo.file_type().is_fifo(), "the FIFO is still a FIFO");
        assert_eq!(entries(&dir), ["fifo", "link", "socket", "sub"]);
    }
}
