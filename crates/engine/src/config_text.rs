//! A lab's settings as text, read the same way by every lab: JSON when the text opens with `{`
//! (an export from the page), TOML otherwise (a file written by hand).

use serde::de::DeserializeOwned;
use whereabouts_core::import::cut_lines;

/// Parses `text` as JSON or TOML (by its first non-blank character); the error says which.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    if text.trim_start().starts_with('{') {
        serde_json::from_str(text)
            .map_err(|e| format!("invalid JSON config: {}", cut_lines(&e.to_string())))
    } else {
        toml::from_str(text)
            .map_err(|e| format!("invalid TOML config: {}", cut_lines(&e.to_string())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

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
