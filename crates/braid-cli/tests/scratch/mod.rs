//! A scratch folder for a test, removed when the test is done with it (kept apart from `common`,
//! whose counting allocator a test binary must opt into).

use std::path::{Path, PathBuf};

/// `<temp>/braid-<prefix>-<pid>-<name>`, emptied on creation and removed on drop.
pub struct TmpDir(PathBuf);

impl TmpDir {
    pub fn new(prefix: &str, name: &str) -> TmpDir {
        let d = std::env::temp_dir().join(format!("braid-{prefix}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TmpDir(d)
    }
}

impl std::ops::Deref for TmpDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TmpDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for TmpDir {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for TmpDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
