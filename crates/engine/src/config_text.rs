//! A lab's settings as text, read the same way by every lab: JSON when the text opens with `{`
//! (an export from the page), TOML otherwise (a file written by hand). An error names the
//! setting it is about (`defence.epsilon: invalid type …`), found with `serde_path_to_error`
//! (the derive's own messages name only a line and column), and a TOML `nan` or `inf` is
//! refused by its key before any setting reads it (JSON has no such numbers, so a value that
//! goes through JSON on its way, as a page study's base does, would otherwise arrive as `null`).

use serde::de::DeserializeOwned;
use whereabouts_core::import::cut_lines;

/// Parses `text` as JSON or TOML (by its first non-blank character); the error says which and
/// names the setting.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    if text.trim_start().starts_with('{') {
        let mut de = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut de)
            .map_err(|e| at(e.path(), e.inner()))
            .and_then(|t| de.end().map(|()| t).map_err(|e| e.to_string()))
            .map_err(|e| format!("invalid JSON config: {}", cut_lines(&e)))
    } else {
        let de = toml::Deserializer::parse(text)
            .map_err(|e| format!("invalid TOML config: {}", cut_lines(&e.to_string())))?;
        let table: toml::Table = toml::from_str(text)
            .map_err(|e| format!("invalid TOML config: {}", cut_lines(&e.to_string())))?;
        if let Some((key, v)) = non_finite(&toml::Value::Table(table), String::new()) {
            return Err(format!(
                "invalid TOML config: {key}: {v} is not a number a setting can take"
            ));
        }
        serde_path_to_error::deserialize(de).map_err(|e| {
            format!(
                "invalid TOML config: {}",
                cut_lines(&at(e.path(), e.inner()))
            )
        })
    }
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

    #[test]
    fn an_error_quotes_a_huge_line_cut_to_its_start_and_length() {
        let text = format!("seed = {}", "9".repeat(2_000_000));
        let e = parse::<crate::mobility::config::MobConfig>(&text).unwrap_err();
        assert!(e.len() < 2_000, "{} characters", e.len());
        assert!(e.contains("… (2000011 characters)"), "{e}");
        let json = format!("{{\"seed\": \"{}\"}}", "x".repeat(100_000));
        assert!(
            parse::<crate::mobility::config::MobConfig>(&json)
                .unwrap_err()
                .len()
                < 2_000
        );
    }
}
