//! Where the unit tests find real inputs: files of this repository (`configs/`, `testdata/`)
//! and the data `make testdata` downloads (`$FLASHPRESS_TESTDATA`, else `target/testdata`).

use std::path::{Path, PathBuf};

/// `rel` under the repository's root.
pub(crate) fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// `rel` under the folder `make testdata` fills; a missing file panics naming the command.
pub(crate) fn fetched(rel: &str) -> PathBuf {
    let dir = std::env::var_os("FLASHPRESS_TESTDATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo("target/testdata"));
    let p = dir.join(rel);
    assert!(
        p.exists(),
        "{} is missing: run `make testdata` (or set FLASHPRESS_TESTDATA)",
        p.display()
    );
    p
}

/// Job file `name` of fio's own examples (Debian's fio-examples package, `make testdata`).
pub(crate) fn fio_example(name: &str) -> PathBuf {
    fetched("fio-examples").join(name)
}
