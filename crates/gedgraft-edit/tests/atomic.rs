//! Atomic replacement of files: a failure before the rename leaves the original intact and no temporary file.

use gedgraft_edit::{write_atomic, write_atomic_with};
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
