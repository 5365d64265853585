//! Test helper: the LCMP artifact's data files, from a copy placed beside the repository
//! (`<repo>/../shared/data`). A missing file fails the test that asked for it, unless
//! `BRAID_SKIP_SHARED_DATA=1` says to skip such tests.

use std::path::PathBuf;

/// The path of `rel` under `<repo>/../shared/data` if the file is there; `None` (with a note)
/// if it is not and `BRAID_SKIP_SHARED_DATA=1`; a panic naming the file and the variable otherwise.
pub fn shared_file(rel: &str) -> Option<PathBuf> {
    let p: PathBuf =
        [env!("CARGO_MANIFEST_DIR"), "..", "..", "..", "shared", "data", rel].iter().collect();
    if p.is_file() {
        return Some(p);
    }
    if std::env::var("BRAID_SKIP_SHARED_DATA").as_deref() == Ok("1") {
        eprintln!("note: skipping (BRAID_SKIP_SHARED_DATA=1): {} not present", p.display());
        return None;
    }
    panic!(
        "shared data missing: {} not present; put the LCMP artifact's data in <repo>/../shared/data, or set BRAID_SKIP_SHARED_DATA=1 to skip the tests that need it",
        p.display()
    )
}
