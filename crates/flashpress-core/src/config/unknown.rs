//! Unknown config keys where serde's `deny_unknown_fields` cannot see them: the extra keys of
//! a tagged table's unit variant (`placement = { type = "single", bogus = 1 }`). A key the
//! config does not write back after deserializing was ignored, unless it is a known optional
//! key left empty, which a probe tells apart.

use super::SimConfig;
use crate::error::{Error, Result};
use serde_json::Value;

/// Refuse `cfg`, deserialized from `v`, when `v` holds a key deserializing ignored, naming it
/// (and the `type` of its table).
pub(super) fn check(v: &Value, cfg: &SimConfig, source_name: &str) -> Result<()> {
    let back = serde_json::to_value(cfg).expect("config serializes");
    let Some(key) = ignored_key(v, &back) else {
        return Ok(());
    };
    let msg = match parent_type(v, &key) {
        Some(t) => format!("unknown key (a `type = \"{t}\"` table has no such field)"),
        None => "unknown key".to_string(),
    };
    Err(Error::config(source_name, key, msg))
}

/// The first key of `v` that deserializing ignored, given `back`, the config it gave written
/// back.
pub(super) fn ignored_key(v: &Value, back: &Value) -> Option<String> {
    first_ignored(v, back, &|p| reads_key(v, back, p))
}

/// The first key of `input` that deserializing ignored: present in the input with a value,
/// absent from `output` (the same config serialized back). This catches the extra keys
/// serde lets through where `deny_unknown_fields` cannot act (the unit variants of tagged
/// tables, `{ type = "single", bogus = 1 }`). An empty value (`[]`, `{}`) missing from the
/// output may be a known optional key that is not written back when empty: `known` decides
/// (given the key's JSON pointer in `input`); so may a null (JSON's absent value).
fn first_ignored(input: &Value, output: &Value, known: &dyn Fn(&str) -> bool) -> Option<String> {
    fn go(
        i: &Value,
        o: &Value,
        key: &str,
        ptr: &str,
        known: &dyn Fn(&str) -> bool,
    ) -> Option<String> {
        match (i, o) {
            (Value::Object(im), Value::Object(om)) => {
                for (k, iv) in im {
                    let child = if key.is_empty() {
                        k.clone()
                    } else {
                        format!("{key}.{k}")
                    };
                    let child_ptr = format!("{ptr}/{}", k.replace('~', "~0").replace('/', "~1"));
                    match om.get(k) {
                        Some(ov) => {
                            if let Some(found) = go(iv, ov, &child, &child_ptr, known) {
                                return Some(found);
                            }
                        }
                        None => {
                            let ignored = match iv {
                                Value::Null => !known(&child_ptr),
                                Value::Array(a) if a.is_empty() => !known(&child_ptr),
                                Value::Object(m) if m.is_empty() => !known(&child_ptr),
                                // A known table left out because it is the default
                                // (`map_cache = { type = "full" }`): any key beside its `type`
                                // was ignored.
                                Value::Object(m) if known(&child_ptr) => {
                                    if let Some(k) = m.keys().find(|k| *k != "type") {
                                        return Some(format!("{child}.{k}"));
                                    }
                                    false
                                }
                                _ => true,
                            };
                            if ignored {
                                return Some(child);
                            }
                        }
                    }
                }
                None
            }
            (Value::Array(ia), Value::Array(oa)) if ia.len() == oa.len() => {
                ia.iter().zip(oa).enumerate().find_map(|(n, (a, b))| {
                    go(a, b, &format!("{key}[{n}]"), &format!("{ptr}/{n}"), known)
                })
            }
            _ => None,
        }
    }
    go(input, output, "", "", known)
}

/// Whether the key at JSON pointer `ptr` of config `v` is one deserializing reads: with a
/// probe string in place of its value, deserializing fails or writes something different
/// back (`back`: `v` written back). An unknown key takes the probe and changes nothing.
fn reads_key(v: &Value, back: &Value, ptr: &str) -> bool {
    let mut probe = v.clone();
    match probe.pointer_mut(ptr) {
        Some(slot) => *slot = Value::String("\u{1}flashpress-probe".to_string()),
        None => return false,
    }
    match serde_json::from_value::<SimConfig>(probe) {
        Err(_) => true,
        Ok(cfg) => serde_json::to_value(&cfg).map_or(true, |b| &b != back),
    }
}

/// The `type` of the table holding dotted `key` in `v`, if it has one.
fn parent_type(v: &Value, key: &str) -> Option<String> {
    let (parent, _) = key.rsplit_once('.')?;
    let mut cur = v;
    for p in parent.split('.') {
        cur = cur.get(p)?;
    }
    cur.get("type")?.as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> (String, String) {
        match SimConfig::from_toml_str(text, "t.toml") {
            Err(Error::Config { key, msg, .. }) => (key, msg),
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn unknown_keys_in_tagged_tables_are_refused() {
        for (text, key) in [
            ("[ftl]\nplacement = { type = \"single\", bogus = 1 }\n", "ftl.placement.bogus"),
            ("[ftl]\nplacement = { type = \"gc_separate\", bogus = 1 }\n", "ftl.placement.bogus"),
            ("preset = \"waltz\"\n[stack]\nspace = { type = \"fixed\", bogus = 1 }\n", "stack.space.bogus"),
            ("preset = \"waltz\"\n[stack]\nspace = { type = \"coco_op\", step = 0.01, max = 0.1, interval_ms = 1.0, bogus = 1 }\n", "stack.space.bogus"),
            ("[content]\nratio = { type = \"fixed\", ratio = 2.0, bogus = 1 }\n", "content.ratio.bogus"),
            ("[content]\nsource = { type = \"generated\", bogus = 1 }\n", "content.source.bogus"),
            ("[content]\ncost = { type = \"host_cpu\", compress_mb_per_s = 1.0, decompress_mb_per_s = 1.0, bogus = 1 }\n", "content.cost.bogus"),
            ("[workload]\ntype = \"fio\"\nbogus = 1\n", "workload.bogus"),
            // empty values too: not written back, yet not a key any table reads
            ("[ftl]\nplacement = { type = \"single\", bogus = [] }\n", "ftl.placement.bogus"),
            ("preset = \"waltz\"\n[stack]\nspace = { type = \"fixed\", bogus = {} }\n", "stack.space.bogus"),
            ("[workload]\ntype = \"fio\"\nbogus = []\n", "workload.bogus"),
            // a default table is not written back: its extra keys are still found
            ("[ftl]\nmap_cache = { type = \"full\", bogus = 1 }\n", "ftl.map_cache.bogus"),
        ] {
            let (k, m) = err(text);
            assert_eq!(k, key, "{text}: {m}");
            assert!(m.contains("unknown"), "{text}: {m}");
        }
    }

    #[test]
    fn an_unknown_key_set_to_null_is_refused_and_a_known_one_accepted() {
        let v = serde_json::json!({"ftl": {"placement": {"type": "single", "bogus": null}}});
        match SimConfig::from_value(v, "test", None) {
            Err(crate::Error::Config { key, .. }) => assert_eq!(key, "ftl.placement.bogus"),
            other => panic!("expected a config error, got {other:?}"),
        }
        let v =
            serde_json::json!({"workload": {"type": "fio", "args": null, "jobs": [{"name": "a"}]}});
        if let Err(e) = SimConfig::from_value(v, "test", None) {
            // `args` is read (a list), so null is refused as a value, never as an unknown key
            assert!(!e.to_string().contains("unknown key"), "{e}");
        }
    }

    #[test]
    fn known_keys_left_empty_are_accepted() {
        // `args` and `vars` are not written back when empty: they are read, so accepted
        for text in [
            "[workload]\ntype = \"fio\"\nargs = []\nvars = {}\n[[workload.jobs]]\nname = \"a\"\n",
            "[workload]\ntype = \"fio\"\nargs = []\n[[workload.jobs]]\nname = \"a\"\n",
        ] {
            if let Err(e) = SimConfig::from_toml_str(text, "test") {
                panic!("{text}: {e}");
            }
        }
    }

    #[test]
    fn a_default_table_written_out_is_accepted() {
        // Left out when written back because it is the default, yet read: accepted.
        for text in [
            "[ftl]\nmap_cache = { type = \"full\" }\n",
            "preset = \"tiny\"\n[ftl.gc]\ncopyback = false\n[ftl.dedup]\nmode = \"gc\"\nhash_us = 14.0\nindex_cache = { type = \"full\" }\n",
        ] {
            let cfg =
                SimConfig::from_toml_str(text, "test").unwrap_or_else(|e| panic!("{text}: {e}"));
            assert!(cfg.ftl.map_cache.is_full());
        }
    }
}
