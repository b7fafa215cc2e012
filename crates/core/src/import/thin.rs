//! Sub-sampling a long trace: the "Keep" setting of the data panel and `run --thin`.

use super::Fix;

/// Keeps at most one fix per `min_interval_s` seconds (the first of each run), for huge traces.
/// Returns the thinned fixes; 0 or less keeps everything.
pub fn thin(fixes: &[Fix], min_interval_s: f64) -> Vec<Fix> {
    if min_interval_s.is_nan() || min_interval_s <= 0.0 {
        return fixes.to_vec();
    }
    let mut out: Vec<Fix> = Vec::with_capacity(fixes.len());
    for &f in fixes {
        if out.last().is_none_or(|l| f.time - l.time >= min_interval_s) {
            out.push(f);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn fix(time: f64) -> Fix {
        Fix {
            time,
            lat: 47.0,
            lon: 8.0,
            rsrp_dbm: None,
            line: 1,
        }
    }

    #[test]
    fn thinning_keeps_one_fix_per_interval() {
        let fixes: Vec<Fix> = (0..100).map(|i| fix(i as f64)).collect();
        assert_eq!(thin(&fixes, 0.0).len(), 100);
        let t = thin(&fixes, 10.0);
        assert_eq!(t.len(), 10);
        assert_eq!(t[1].time, 10.0);
    }
}
