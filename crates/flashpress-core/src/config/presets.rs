//! Named presets, embedded from the repository's `configs/` folder so the core, the Rust
//! benchmarks and the Python package all see the same files.

use crate::error::{Error, Result};

const PRESETS: &[(&str, &str)] = &[
    ("default", include_str!("../../../../configs/default.toml")),
    (
        "bench-mlc-2g",
        include_str!("../../../../configs/bench-mlc-2g.toml"),
    ),
    ("tiny", include_str!("../../../../configs/tiny.toml")),
    ("waltz", include_str!("../../../../configs/waltz.toml")),
    ("prssd", include_str!("../../../../configs/prssd.toml")),
    ("cagc", include_str!("../../../../configs/cagc.toml")),
    ("nvme", include_str!("../../../../configs/nvme.toml")),
    ("zns", include_str!("../../../../configs/zns.toml")),
];

/// Named device schemes of a seed (`scheme = "SEED/NAME"`), one file per seed.
const SCHEMES: &[(&str, &str)] = &[
    (
        "prssd",
        include_str!("../../../../configs/schemes/prssd.toml"),
    ),
    (
        "cagc",
        include_str!("../../../../configs/schemes/cagc.toml"),
    ),
];

/// TOML text of a seed's scheme file.
pub fn scheme_text(seed: &str) -> Option<&'static str> {
    SCHEMES.iter().find(|(n, _)| *n == seed).map(|(_, t)| *t)
}

/// Seeds with scheme files.
pub fn scheme_seeds() -> impl Iterator<Item = &'static str> {
    SCHEMES.iter().map(|(n, _)| *n)
}

/// Names of the built-in presets.
pub fn preset_names() -> impl Iterator<Item = &'static str> {
    PRESETS.iter().map(|(n, _)| *n)
}

/// TOML text of a preset.
pub fn preset_text(name: &str) -> Result<&'static str> {
    PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .ok_or_else(|| Error::UnknownPreset {
            name: name.to_string(),
            known: preset_names().collect::<Vec<_>>().join(", "),
        })
}
