//! Configuration: typed, validated once, loaded from TOML, JSON-like values and named presets.
//!
//! Every run starts from a preset (`default` unless the config names another with
//! `preset = "NAME"`) and the user's values are merged over it, so every key has an explicit
//! value that ends up in the resolved `config.json`. Tables merge key by key, except
//! `workload` and tagged policy tables (`{ type = "..." }`), which the user replaces whole.
//! Unknown keys are errors naming the dotted key.

mod content;
mod presets;
pub mod ranges;
mod schema;
mod stack;
mod unknown;

pub use presets::{preset_names, preset_text, scheme_seeds, scheme_text};
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
        let Some(span) = e.span() else {
            return Error::config(source_name, "document", format!("invalid TOML: {msg}"));
        };
        let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
        match key_at_line(text, line) {
            Some(key) => Error::config(
                source_name,
                key,
                format!("line {line}: invalid TOML: {msg}"),
            ),
            None => Error::config(
                source_name,
                format!("line {line}"),
                format!("invalid TOML: {msg}"),
            ),
        }
    })?;
    toml_value_to_json(v, "", source_name)
}

/// The dotted key a TOML line sets (`[nand]` then `blocks_per_plane = ...` on `line` gives
/// `nand.blocks_per_plane`), for errors the TOML parser reports by position only (a number
/// too large). `None` when the line is not a plain `key = value`.
fn key_at_line(text: &str, line: usize) -> Option<String> {
    let mut table = String::new();
    for (n, l) in text.lines().enumerate() {
        let t = l.trim();
        if n + 1 == line {
            let (k, _) = t.split_once('=')?;
            let k: String = k
                .trim()
                .split('.')
                .map(|p| p.trim().trim_matches('"'))
                .collect::<Vec<_>>()
                .join(".");
            let plain = !k.is_empty()
                && k.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
            return plain.then(|| {
                if table.is_empty() {
                    k
                } else {
                    format!("{table}.{k}")
                }
            });
        }
        if let Some(h) = t.strip_prefix('[') {
            let h = h.trim_start_matches('[');
            if let Some((name, _)) = h.split_once(']') {
                table = name.trim().to_string();
            }
        }
    }
    None
}

/// A TOML value as JSON, refusing what JSON cannot carry by the dotted key that holds it:
/// NaN and infinities (serde_json would make them `null`, reported as a wrong type) and
/// date-times (which no config key takes).
fn toml_value_to_json(v: toml::Value, key: &str, source_name: &str) -> Result<Value> {
    let child = |k: &str| {
        if key.is_empty() {
            k.to_string()
        } else {
            format!("{key}.{k}")
        }
    };
    Ok(match v {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Float(f) => match serde_json::Number::from_f64(f) {
            Some(n) => Value::Number(n),
            None => return Err(non_finite(source_name, key, f)),
        },
        toml::Value::Datetime(d) => {
            return Err(Error::config(
                source_name,
                key,
                format!(
                    "expected a number, string, boolean, array or table, got the date-time {d}"
                ),
            ))
        }
        toml::Value::Array(a) => Value::Array(
            a.into_iter()
                .enumerate()
                .map(|(i, x)| toml_value_to_json(x, &format!("{key}[{i}]"), source_name))
                .collect::<Result<_>>()?,
        ),
        toml::Value::Table(t) => Value::Object(
            t.into_iter()
                .map(|(k, x)| {
                    let c = child(&k);
                    toml_value_to_json(x, &c, source_name).map(|j| (k, j))
                })
                .collect::<Result<_>>()?,
        ),
    })
}

/// The error for a NaN or infinite value at `key`.
pub fn non_finite(source_name: &str, key: &str, v: f64) -> Error {
    let key = if key.is_empty() { "document" } else { key };
    Error::config(
        source_name,
        key,
        format!("expected a finite number, got {v}"),
    )
}

/// A named scheme `SEED/NAME` as `{preset, common, scheme}`: the seed's default preset, the
/// keys every scheme of the seed shares, and the scheme's own keys.
fn scheme_value(name: &str, source_name: &str) -> Result<Value> {
    let err = |m: String| Error::config(source_name, "scheme", m);
    let seeds = || scheme_seeds().collect::<Vec<_>>().join(", ");
    let (seed, scheme) = name.split_once('/').ok_or_else(|| {
        err(format!(
            "expected SEED/NAME (seeds: {}), got {name:?}",
            seeds()
        ))
    })?;
    let text = scheme_text(seed).ok_or_else(|| {
        err(format!(
            "unknown seed {seed:?} (seeds with schemes: {})",
            seeds()
        ))
    })?;
    let v = toml_to_json(text, &format!("schemes of {seed}"))?;
    let names: Vec<&str> = v
        .as_object()
        .map(|o| {
            o.iter()
                .filter(|(k, t)| t.is_object() && *k != "common")
                .map(|(k, _)| k.as_str())
                .collect()
        })
        .unwrap_or_default();
    // Only a table is a scheme: `preset` (the file's default preset) and `common` are not.
    let Some(t) = v
        .get(scheme)
        .filter(|t| t.is_object() && scheme != "common")
    else {
        return Err(err(format!(
            "unknown scheme {scheme:?} of {seed} (known: {})",
            names.join(", ")
        )));
    };
    if let Some(why) = t.get("unavailable").and_then(Value::as_str) {
        return Err(err(format!("{name}: {why}")));
    }
    Ok(serde_json::json!({
        "preset": v.get("preset").cloned().unwrap_or(Value::Null),
        "common": v.get("common").cloned().unwrap_or(Value::Null),
        "scheme": t.clone(),
    }))
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
        let scheme = match user.remove("scheme") {
            None => None,
            Some(Value::String(s)) => Some((s.clone(), scheme_value(&s, source_name)?)),
            Some(other) => {
                return Err(Error::config(
                    source_name,
                    "scheme",
                    format!("expected a scheme name string like \"prssd/DP\", got {other}"),
                ));
            }
        };
        let preset = match user.remove("preset") {
            None => scheme
                .as_ref()
                .and_then(|(_, v)| v.get("preset"))
                .and_then(Value::as_str)
                .unwrap_or("default")
                .to_string(),
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
        if let Some((name, v)) = scheme {
            for part in ["common", "scheme"] {
                if let Some(t) = v.get(part) {
                    merge(&mut base, t.clone(), "");
                }
            }
            base["scheme"] = Value::String(name);
        }
        merge(&mut base, Value::Object(user), "");
        Self::from_resolved_value(base, source_name, base_dir)
    }

    /// Deserialize a complete config (no preset merge) and validate it.
    pub fn from_resolved_value(
        v: Value,
        source_name: &str,
        base_dir: Option<&Path>,
    ) -> Result<SimConfig> {
        let mut cfg: SimConfig = match serde_path_to_error::deserialize(v.clone()) {
            Ok(cfg) => cfg,
            Err(e) => {
                let key = e.path().to_string();
                let msg = e.into_inner().to_string();
                let key = if key == "." {
                    "document".to_string()
                } else {
                    inner_key(&v, key, &msg)
                };
                return Err(Error::config(source_name, key, msg));
            }
        };
        unknown::check(&v, &cfg, source_name)?;
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

/// The error of deserializing `v` as a config, as text (None when it deserializes).
fn config_error(v: &Value) -> Option<String> {
    serde_json::from_value::<SimConfig>(v.clone())
        .err()
        .map(|e| e.to_string())
}

/// The dotted key of a config error that serde reports at a tagged table (`workload`, whose
/// `type` picks the variant: serde buffers such a table and loses the path inside it). The
/// key inside is found by taking each entry out in turn: the one whose absence changes the
/// error is the culprit (a wrong value fails as its entry is read, before any missing-field
/// check), descending through tables and arrays. Only runs for an error, so its cost (one
/// deserialization per entry tried) does not touch valid configs.
fn inner_key(v: &Value, key: String, msg: &str) -> String {
    let mut path: Vec<String> = key.split('.').map(str::to_string).collect();
    let at = |v: &Value, path: &[String]| -> Option<Value> {
        let mut cur = v;
        for p in path {
            cur = match cur {
                Value::Object(m) => m.get(p)?,
                Value::Array(a) => a.get(p.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(cur.clone())
    };
    let without = |v: &Value, path: &[String], entry: &str| -> Option<Value> {
        let mut out = v.clone();
        let mut cur = &mut out;
        for p in path {
            cur = match cur {
                Value::Object(m) => m.get_mut(p)?,
                Value::Array(a) => a.get_mut(p.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        match cur {
            Value::Object(m) => {
                m.remove(entry)?;
            }
            Value::Array(a) => {
                let i = entry.parse::<usize>().ok()?;
                if i >= a.len() {
                    return None;
                }
                a.remove(i);
            }
            _ => return None,
        }
        Some(out)
    };
    // Descend while exactly one entry of the current table or array is the culprit.
    for _ in 0..16 {
        let entries: Vec<String> = match at(v, &path) {
            Some(Value::Object(m)) => m.keys().filter(|k| *k != "type").cloned().collect(),
            Some(Value::Array(a)) => (0..a.len()).map(|i| i.to_string()).collect(),
            _ => break,
        };
        let culprits: Vec<&String> = entries
            .iter()
            .filter(|e| {
                without(v, &path, e)
                    .map(|w| config_error(&w).as_deref() != Some(msg))
                    .unwrap_or(false)
            })
            .collect();
        match culprits.as_slice() {
            [one] => path.push((*one).clone()),
            _ => break,
        }
    }
    path.join(".")
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
                ["nan", "inf"].contains(&bad) || msg.contains("expected 0.001 to 1e12 ms"),
                "{bad}: {msg}"
            );
        }
        for ok in ["0.001", "1e12", "100.0"] {
            SimConfig::from_toml_str(&format!("[stats]\ninterval_ms = {ok}\n"), "t.toml")
                .unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
    }

    #[test]
    fn a_scheme_sits_between_its_preset_and_the_users_keys() {
        let c = |t: &str| SimConfig::from_toml_str(t, "t.toml");
        let dp = c("scheme = \"prssd/DP\"\n").unwrap();
        assert_eq!(dp.scheme.as_deref(), Some("prssd/DP"));
        assert_eq!(dp.nand.page_size, 16384, "the prssd preset");
        assert_eq!(dp.nand.partial_unit(), Some(4096));
        let z = dp.ftl.compression().unwrap();
        assert_eq!(
            (z.max_chunks_per_page, z.min_saving, z.zero_units),
            (12, 0.1, true)
        );
        assert_eq!(z.codec, crate::codec::CodecKind::Dpc);
        let base = c("scheme = \"prssd/Baseline\"\n").unwrap();
        assert!(base.ftl.compression().is_none() && base.nand.partial_unit().is_none());
        let p = c("scheme = \"prssd/P\"\n").unwrap();
        assert!(p.ftl.compression().is_none() && p.nand.partial_unit().is_some());
        for (name, codec, chunks) in [("S", "lz4", 20), ("M", "fpc", 20), ("D", "dpc", 12)] {
            let s = c(&format!("scheme = \"prssd/{name}\"\n")).unwrap();
            let z = s.ftl.compression().unwrap();
            assert_eq!(z.codec.to_string(), codec, "{name}");
            assert_eq!(z.max_chunks_per_page, chunks, "{name}");
            assert!(s.nand.partial_unit().is_none(), "{name} reads whole pages");
            let sp = c(&format!("scheme = \"prssd/{name}P\"\n")).unwrap();
            assert_eq!(sp.ftl.compression(), s.ftl.compression(), "{name}P");
            assert!(sp.nand.partial_unit().is_some(), "{name}P reads partially");
        }
        for (name, decision) in [
            ("PR", crate::config::SplitDecision::Bit),
            ("PR_LRU", crate::config::SplitDecision::Lru),
            ("PR_SplitAll", crate::config::SplitDecision::All),
        ] {
            let pr = c(&format!("scheme = \"prssd/{name}\"\n")).unwrap();
            let z = pr.ftl.compression().unwrap();
            assert_eq!(z.split.as_ref().unwrap().decision, decision, "{name}");
            let mut dp = dp.ftl.compression().unwrap().clone();
            dp.split = z.split.clone();
            assert_eq!(&dp, z, "{name} is DP with split");
        }
        // The user's keys win over the scheme's; a named preset replaces the scheme's.
        let o = c("scheme = \"prssd/DP\"\n[ftl.compression]\nmax_chunks_per_page = 16\n").unwrap();
        assert_eq!(o.ftl.compression().unwrap().max_chunks_per_page, 16);
        for (text, says) in [
            ("scheme = \"prssd/PR_all\"\n", "known: Baseline"),
            ("scheme = \"prssd/X\"\n", "known: Baseline"),
            // the scheme file's own keys are not schemes
            ("scheme = \"prssd/preset\"\n", "unknown scheme \"preset\""),
            ("scheme = \"cagc/preset\"\n", "unknown scheme \"preset\""),
            ("scheme = \"prssd/common\"\n", "unknown scheme \"common\""),
            ("scheme = \"cagc/X\"\n", "known: Baseline, CAGC"),
            ("scheme = \"lossy/X\"\n", "unknown seed"),
            ("scheme = \"DP\"\n", "SEED/NAME"),
            ("scheme = 3\n", "scheme name string"),
        ] {
            match c(text) {
                Err(Error::Config { key, msg, .. }) => {
                    assert_eq!(key, "scheme", "{text}");
                    assert!(msg.contains(says), "{text}: {msg}");
                }
                other => panic!("{text}: {other:?}"),
            }
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
