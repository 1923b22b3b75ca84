//! Configuration: typed, validated once, loaded from TOML, JSON-like values and named presets.
//!
//! Every run starts from a preset (`default` unless the config names another with
//! `preset = "NAME"`) and the user's values are merged over it, so every key has an explicit
//! value that ends up in the resolved `config.json`. Tables merge key by key, except
//! `workload` and tagged policy tables (`{ type = "..." }`), which the user replaces whole.
//! Unknown keys are errors naming the dotted key.

mod content;
mod presets;
mod schema;
mod stack;

pub use presets::{preset_names, preset_text};
pub use schema::*;
pub use stack::*;

use crate::error::{Error, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Merge `over` into `base`: objects merge recursively, anything else replaces.
fn merge(base: &mut Value, over: Value, path: &str) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                let child = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                // A tagged policy table (`{ type = ... }`) replaces the preset's whole: its
                // fields belong to its variant, not to the preset's.
                let tagged = v.as_object().is_some_and(|o| o.contains_key("type"));
                if child == "workload" || tagged || !b.contains_key(&k) {
                    b.insert(k, v);
                } else {
                    merge(b.get_mut(&k).expect("key checked above"), v, &child);
                }
            }
        }
        (b, o) => *b = o,
    }
}

fn toml_to_json(text: &str, source_name: &str) -> Result<Value> {
    let v: toml::Value = toml::from_str(text).map_err(|e| {
        let msg = e.message().to_string();
        let where_ = match e.span() {
            Some(span) => {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                format!("line {line}")
            }
            None => "document".to_string(),
        };
        Error::config(source_name, where_, format!("invalid TOML: {msg}"))
    })?;
    serde_json::to_value(v).map_err(|e| Error::config(source_name, "document", e.to_string()))
}

/// The preset a config is based on, as a JSON value.
fn preset_value(name: &str) -> Result<Value> {
    let text = preset_text(name)?;
    toml_to_json(text, &format!("preset `{name}`"))
}

impl SimConfig {
    /// Named preset from `configs/NAME.toml`, validated.
    pub fn preset(name: &str) -> Result<SimConfig> {
        let v = preset_value(name)?;
        Self::from_resolved_value(v, &format!("preset `{name}`"), None)
    }

    /// Load a TOML file; relative workload paths resolve against the file's folder.
    pub fn from_toml_file(path: &Path) -> Result<SimConfig> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let name = path.display().to_string();
        let v = toml_to_json(&text, &name)?;
        Self::from_value(v, &name, path.parent())
    }

    /// Load TOML text (`source_name` names it in errors).
    pub fn from_toml_str(text: &str, source_name: &str) -> Result<SimConfig> {
        let v = toml_to_json(text, source_name)?;
        Self::from_value(v, source_name, None)
    }

    /// Load from a JSON value (e.g. a Python dict): merged over its preset, then validated.
    pub fn from_value(
        user: Value,
        source_name: &str,
        base_dir: Option<&Path>,
    ) -> Result<SimConfig> {
        let Value::Object(mut user) = user else {
            return Err(Error::config(
                source_name,
                "document",
                "expected a table of config keys",
            ));
        };
        let preset = match user.remove("preset") {
            None => "default".to_string(),
            Some(Value::String(s)) => s,
            Some(other) => {
                return Err(Error::config(
                    source_name,
                    "preset",
                    format!("expected a preset name string, got {other}"),
                ));
            }
        };
        let mut base = preset_value(&preset)?;
        merge(&mut base, Value::Object(user), "");
        Self::from_resolved_value(base, source_name, base_dir)
    }

    /// Deserialize a complete config (no preset merge) and validate it.
    pub fn from_resolved_value(
        v: Value,
        source_name: &str,
        base_dir: Option<&Path>,
    ) -> Result<SimConfig> {
        let mut cfg: SimConfig = serde_path_to_error::deserialize(v).map_err(|e| {
            let key = e.path().to_string();
            let key = if key == "." {
                "document".to_string()
            } else {
                key
            };
            Error::config(source_name, key, e.into_inner().to_string())
        })?;
        if let Some(dir) = base_dir {
            cfg.workload.resolve_paths(dir);
        }
        cfg.validate(source_name)?;
        Ok(cfg)
    }

    /// The resolved config as pretty JSON (written as `config.json` beside results).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("config serializes")
    }
}

impl WorkloadConfig {
    fn resolve_paths(&mut self, dir: &Path) {
        let fix = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = dir.join(&*p);
            }
        };
        match self {
            WorkloadConfig::Fio(f) => {
                if let Some(p) = f.path.as_mut() {
                    fix(p)
                }
            }
            WorkloadConfig::Trace(t) => fix(&mut t.path),
            WorkloadConfig::Filebench(f) => {
                if let Some(p) = f.path.as_mut() {
                    fix(p)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_loads_and_validates() {
        for name in preset_names() {
            SimConfig::preset(name).unwrap_or_else(|e| panic!("preset {name}: {e}"));
        }
    }

    #[test]
    fn unknown_key_names_its_path() {
        let err = SimConfig::from_toml_str("[ftl]\nop_ratoi = 0.1\n", "t.toml").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("ftl") && msg.contains("op_ratoi"), "{msg}");
    }

    #[test]
    fn stats_interval_outside_1us_to_1e12ms_is_rejected_naming_the_key() {
        for bad in [
            "0.0", "1e-6", "1e-300", "0.000999", "-1.0", "inf", "1.1e12", "nan",
        ] {
            let err =
                SimConfig::from_toml_str(&format!("[stats]\ninterval_ms = {bad}\n"), "t.toml")
                    .expect_err(bad);
            let msg = err.to_string();
            assert!(msg.contains("stats.interval_ms"), "{bad}: {msg}");
            // (NaN and infinity are refused earlier, as non-numbers)
            assert!(
                ["nan", "inf"].contains(&bad) || msg.contains("[0.001, 1e12]"),
                "{bad}: {msg}"
            );
        }
        for ok in ["0.001", "1e12", "100.0"] {
            SimConfig::from_toml_str(&format!("[stats]\ninterval_ms = {ok}\n"), "t.toml")
                .unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
    }

    #[test]
    fn user_values_override_preset() {
        let c = SimConfig::from_toml_str("seed = 7\n[ftl]\nop_ratio = 0.25\n", "t.toml").unwrap();
        assert_eq!(c.seed, 7);
        assert_eq!(c.ftl.op_ratio, 0.25);
        let d = SimConfig::preset("default").unwrap();
        assert_eq!(c.nand.channels, d.nand.channels);
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    const NUMERIC_KEYS: &[&str] = &[
        "seed",
        "nand.channels",
        "nand.chips_per_channel",
        "nand.dies_per_chip",
        "nand.planes_per_die",
        "nand.blocks_per_plane",
        "nand.pages_per_block",
        "nand.page_size",
        "nand.erase_latency_us",
        "nand.channel_mb_per_s",
        "nand.power.vcc_v",
        "ftl.op_ratio",
        "ftl.write_buffer_pages",
        "ftl.gc.threshold",
        "ftl.gc.background_threshold",
        "ftl.gc.step_pages",
        "ftl.gc.hard_floor",
        "controller.starvation_us",
        "controller.ecc_decode_us",
        "controller.suspend.program_suspend_us",
        "controller.suspend.erase_suspend_us",
        "controller.suspend.resume_us",
        "controller.suspend.max_per_op",
        "host.link_mb_per_s",
        "host.command_overhead_ns",
        "precondition.fill_fraction",
        "precondition.fill_block_size",
        "precondition.aging_fraction",
        "stats.interval_ms",
    ];

    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<i64>().prop_map(|v| v.to_string()),
            any::<f64>().prop_map(|v| format!("{v:?}")),
            Just("nan".to_string()),
            Just("inf".to_string()),
            Just("-inf".to_string()),
            Just("0".to_string()),
            Just("-1".to_string()),
            Just("4294967295".to_string()),
            "[a-z]{0,6}".prop_map(|s| format!("\"{s}\"")),
            Just("[1.0, 2.0]".to_string()),
            Just("true".to_string()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn any_text_loads_or_errors(text in ".{0,200}") {
            let _ = SimConfig::from_toml_str(&text, "fuzz");
        }

        #[test]
        fn any_value_at_any_key_loads_or_errors(key in proptest::sample::select(NUMERIC_KEYS), v in value()) {
            let (table, leaf) = match key.rsplit_once('.') {
                Some((t, l)) => (format!("[{t}]\n"), l.to_string()),
                None => (String::new(), key.to_string()),
            };
            let text = format!("{table}{leaf} = {v}\n");
            if let Ok(cfg) = SimConfig::from_toml_str(&text, "fuzz") {
                // whatever was accepted is in range: re-validation and the derived sizes hold
                cfg.validate("fuzz").unwrap();
                prop_assert!(crate::ftl::logical_pages(&cfg) > 0);
            }
        }
    }
}
