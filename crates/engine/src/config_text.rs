//! A lab's settings as text, read the same way by every lab: JSON when the text opens with `{`
//! (an export from the page), TOML otherwise (a file written by hand).

use serde::de::DeserializeOwned;

/// Parses `text` as JSON or TOML (by its first non-blank character); the error says which.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    if text.trim_start().starts_with('{') {
        serde_json::from_str(text).map_err(|e| format!("invalid JSON config: {e}"))
    } else {
        toml::from_str(text).map_err(|e| format!("invalid TOML config: {e}"))
    }
}
