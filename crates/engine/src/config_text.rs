//! A lab's settings as text, read the same way by every lab: JSON when the text opens with `{`
//! (an export from the page), TOML otherwise (a file written by hand). An error names the
//! setting it is about (`defence.epsilon: invalid type …`), found with `serde_path_to_error`
//! (the derive's own messages name only a line and column), and a TOML `nan` or `inf` is
//! refused by its key before any setting reads it (JSON has no such numbers, so a value that
//! goes through JSON on its way, as a page study's base does, would otherwise arrive as `null`).

use serde::Serialize;
use serde::de::DeserializeOwned;
use whereabouts_core::import::cut_words;

/// Parses `text` as JSON or TOML (by its first non-blank character); the error says which and
/// names the setting.
pub fn parse<T: DeserializeOwned + Serialize>(text: &str) -> Result<T, String> {
    let (format, t, given) = read::<T>(text)?;
    // serde's deny_unknown_fields lets a variant without settings (`kind = "none"`) take any
    // key: each such table is checked against what the variant kept.
    let kept = serde_json::to_value(&t).map_err(|e| e.to_string())?;
    match unknown_in_tagged(&given, &kept, String::new()) {
        Some(e) => Err(format!("invalid {format} config: {}", cut_words(&e))),
        None => Ok(t),
    }
}

/// The text as `T`, with its format's name and the keys it gave.
fn read<T: DeserializeOwned>(text: &str) -> Result<(&'static str, T, serde_json::Value), String> {
    if text.trim_start().starts_with('{') {
        let mut de = serde_json::Deserializer::from_str(text);
        let t: T = serde_path_to_error::deserialize(&mut de)
            .map_err(|e| at(e.path(), e.inner()))
            .and_then(|t| de.end().map(|()| t).map_err(|e| e.to_string()))
            .map_err(|e| format!("invalid JSON config: {}", cut_words(&e)))?;
        let given = serde_json::from_str(text).map_err(|e| e.to_string())?;
        Ok(("JSON", t, given))
    } else {
        let de = toml::Deserializer::parse(text)
            .map_err(|e| format!("invalid TOML config: {}", cut_words(&e.to_string())))?;
        let table: toml::Table = toml::from_str(text)
            .map_err(|e| format!("invalid TOML config: {}", cut_words(&e.to_string())))?;
        let table = toml::Value::Table(table);
        if let Some((key, v)) = non_finite(&table, String::new()) {
            return Err(format!(
                "invalid TOML config: {key}: {v} is not a number a setting can take"
            ));
        }
        let t: T = serde_path_to_error::deserialize(de).map_err(|e| {
            format!(
                "invalid TOML config: {}",
                cut_words(&at(e.path(), e.inner()))
            )
        })?;
        let given = serde_json::to_value(&table).map_err(|e| e.to_string())?;
        Ok(("TOML", t, given))
    }
}

/// The first key given in a table tagged by `kind` that the variant it names did not keep.
fn unknown_in_tagged(
    given: &serde_json::Value,
    kept: &serde_json::Value,
    path: String,
) -> Option<String> {
    let (serde_json::Value::Object(given), serde_json::Value::Object(kept)) = (given, kept) else {
        return None;
    };
    let child = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    if let (Some(kind), Some(_)) = (given.get("kind"), kept.get("kind"))
        && let Some(key) = given
            .iter()
            .find(|(k, v)| !v.is_null() && !kept.contains_key(*k))
            .map(|(k, _)| k)
    {
        return Some(format!(
            "{}: unknown field `{key}`: kind = {kind} takes no such setting",
            child(key)
        ));
    }
    given
        .iter()
        .filter_map(|(k, v)| kept.get(k).map(|w| (k, v, w)))
        .find_map(|(k, v, w)| unknown_in_tagged(v, w, child(k)))
}

/// "path: message", or the message alone for an error about the whole text.
fn at(path: &serde_path_to_error::Path, e: &dyn std::fmt::Display) -> String {
    let path = path.to_string();
    if path == "." || path.is_empty() {
        e.to_string()
    } else {
        format!("{path}: {e}")
    }
}

/// The first float in `v` that is NaN or infinite, with its key's path.
fn non_finite(v: &toml::Value, path: String) -> Option<(String, f64)> {
    let child = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match v {
        toml::Value::Float(f) if !f.is_finite() => Some((path, *f)),
        toml::Value::Table(t) => t.iter().find_map(|(k, v)| non_finite(v, child(k))),
        toml::Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, v)| non_finite(v, format!("{path}[{i}]"))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn an_error_names_the_setting_and_nan_is_refused_by_its_key() {
        use crate::mobility::config::MobConfig;
        let e = parse::<MobConfig>("{\"seed\": \"x\"}").unwrap_err();
        assert!(
            e.starts_with("invalid JSON config: seed: invalid type"),
            "{e}"
        );
        let e = parse::<MobConfig>("seed = \"x\"\n").unwrap_err();
        assert!(e.starts_with("invalid TOML config: seed: "), "{e}");
        assert!(e.contains("expected u64"), "{e}");
        let e =
            parse::<crate::linkability::config::LinkConfig>("[mlp]\nepochs = \"x\"\n").unwrap_err();
        assert!(e.contains("mlp.epochs: "), "{e}");
        for (text, key) in [
            ("learning_rate = nan\n", "learning_rate: NaN"),
            ("[mlp]\nepochs = inf\n", "mlp.epochs: inf"),
        ] {
            let e = parse::<serde_json::Value>(text).unwrap_err();
            assert!(e.contains(key), "{e}");
            assert!(!e.contains("null"), "{e}");
        }
        // Trailing text after the JSON is refused; good text still reads.
        assert!(parse::<serde_json::Value>("{} x").is_err());
        let c = parse::<MobConfig>("seed = 7\n").unwrap();
        assert_eq!(c.seed, 7);
    }

    /// serde lets a variant without settings (`kind = "none"`) take any key; a misspelt one
    /// is named (issue 41 §5.6), and the fields an error expects are listed whole.
    #[test]
    fn a_key_beside_a_kind_that_takes_no_settings_is_named() {
        use crate::mobility::config::MobConfig;
        let e = parse::<MobConfig>("[defence]\nkind = \"none\"\nepsilonn = 5.0\n").unwrap_err();
        assert!(
            e.contains("defence.epsilonn: unknown field `epsilonn`"),
            "{e}"
        );
        let e = parse::<MobConfig>("[target]\nkind = \"synthetic\"\nwaypoint = 5\n").unwrap_err();
        assert!(e.contains("target.waypoint"), "{e}");
        let e = parse::<crate::density::config::DensityConfig>(
            "[scheme]\nkind = \"kde\"\nbandwidth_m = 300\n",
        )
        .unwrap_err();
        assert!(e.contains("scheme.bandwidth_m: unknown field"), "{e}");
        let json = r#"{"defence": {"kind": "none", "epsilonn": 5}}"#;
        assert!(
            parse::<MobConfig>(json)
                .unwrap_err()
                .contains("defence.epsilonn")
        );
        assert!(parse::<MobConfig>("[defence]\nkind = \"none\"\n").is_ok());
        assert!(parse::<MobConfig>("[defence]\nkind = \"geo_i\"\nepsilon = 5.0\n").is_ok());
        let e = parse::<MobConfig>("[attack]\niterationz = 5\n").unwrap_err();
        assert!(e.contains("expected one of `method`"), "{e}");
    }

    #[test]
    fn an_error_quotes_a_huge_line_cut_to_its_start_and_length() {
        let text = format!("seed = {}", "9".repeat(2_000_000));
        let e = parse::<crate::mobility::config::MobConfig>(&text).unwrap_err();
        assert!(e.len() < 2_000, "{} characters", e.len());
        assert!(e.contains("… (2000000 characters)"), "{e}");
        let json = format!("{{\"seed\": \"{}\"}}", "x".repeat(100_000));
        assert!(
            parse::<crate::mobility::config::MobConfig>(&json)
                .unwrap_err()
                .len()
                < 2_000
        );
    }
}
