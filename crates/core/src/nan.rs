//! Reading back a float that JSON wrote as null. serde_json writes NaN and ±∞ as `null`, so a
//! stored outcome that holds a diverged figure (NaN) would not read again; with
//! `#[serde(deserialize_with = "whereabouts_core::nan::f32_or_null")]` (or `f64_or_null`) it
//! reads as NaN.

use serde::{Deserialize, Deserializer};

/// An `f32`, NaN where the JSON has `null`.
pub fn f32_or_null<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    Ok(Option::<f32>::deserialize(d)?.unwrap_or(f32::NAN))
}

/// An `f64`, NaN where the JSON has `null`.
pub fn f64_or_null<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[derive(Debug, serde::Serialize, serde::Deserialize)]
    struct Figure {
        #[serde(deserialize_with = "super::f32_or_null")]
        distance: f32,
    }

    #[test]
    fn a_nan_written_as_null_reads_back_as_nan() {
        let text = serde_json::to_string(&Figure { distance: f32::NAN }).unwrap();
        assert_eq!(text, r#"{"distance":null}"#);
        let back: Figure = serde_json::from_str(&text).unwrap();
        assert!(back.distance.is_nan());
        let back: Figure = serde_json::from_str(r#"{"distance":1.5}"#).unwrap();
        assert_eq!(back.distance, 1.5);
        #[derive(serde::Deserialize)]
        struct Wide {
            #[serde(deserialize_with = "super::f64_or_null")]
            ap: f64,
        }
        let back: Wide = serde_json::from_str(r#"{"ap":null}"#).unwrap();
        assert!(back.ap.is_nan());
    }
}
