//! A figure over several seeds: its mean and 95% confidence interval, and whether two figures'
//! intervals separate (the only case in which a comparison in the docs "holds").
//!
//! The interval is Student's t: mean ± t₀.₉₇₅,ₙ₋₁ · s/√n, with s the sample standard deviation
//! (n − 1 in its denominator). The runs of one seed share a world across the rows of a table (a
//! paired design, docs/sweeps.md), so two rows' intervals are a conservative test of their
//! difference: separate intervals are a difference at the 5% level, overlapping ones may still
//! hide one, and the docs then say "inconclusive here".

/// t₀.₉₇₅ with `df` degrees of freedom, df = 1…30 (the two-sided 95% quantiles of Student's t,
/// as tabulated e.g. in NIST/SEMATECH e-Handbook of Statistical Methods §1.3.6.7.2); beyond 30
/// the normal quantile with the first two terms of its Cornish–Fisher expansion (Abramowitz &
/// Stegun 26.7.5), within 0.001 of the exact value.
pub fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        _ => {
            let (z, n) = (1.959_964f64, df as f64);
            z + (z.powi(3) + z) / (4.0 * n)
                + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * n * n)
        }
    }
}

/// The mean of a figure over seeds and the half-width of its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub mean: f64,
    /// t₀.₉₇₅ · s/√n; infinite with one value (no spread can be estimated), 0 with none.
    pub half_width: f64,
    /// How many finite values it was made of.
    pub n: usize,
}

impl Estimate {
    /// The estimate of the finite values among `values` (a diverged run's NaN is left out, and
    /// `n` says how many remained). `None` without any.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Estimate> {
        let v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
        let n = v.len();
        if n == 0 {
            return None;
        }
        let mean = v.iter().sum::<f64>() / n as f64;
        let half_width = if n == 1 {
            f64::INFINITY
        } else {
            let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            t975(n - 1) * (var / n as f64).sqrt()
        };
        Some(Estimate {
            mean,
            half_width,
            n,
        })
    }

    pub fn low(&self) -> f64 {
        self.mean - self.half_width
    }

    pub fn high(&self) -> f64 {
        self.mean + self.half_width
    }

    /// Whether this interval lies wholly above `other`'s.
    pub fn above(&self, other: &Estimate) -> bool {
        self.low() > other.high()
    }

    /// "mean ± half-width" with `digits` decimals, scaled by `scale` (100 for a percentage);
    /// "mean (1 run)" when there is no spread to estimate.
    pub fn cell(&self, digits: usize, scale: f64) -> String {
        let m = self.mean * scale;
        if self.half_width.is_finite() {
            format!("{m:.digits$} ± {:.digits$}", self.half_width * scale)
        } else {
            format!("{m:.digits$} (1 run)")
        }
    }
}

/// How two figures compare over seeds: one higher where the intervals separate, else
/// inconclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The first figure's interval lies wholly above the second's.
    Higher,
    /// Wholly below.
    Lower,
    /// The intervals overlap: no difference can be claimed here.
    Inconclusive,
}

impl Verdict {
    pub fn of(a: &Estimate, b: &Estimate) -> Verdict {
        if a.above(b) {
            Verdict::Higher
        } else if b.above(a) {
            Verdict::Lower
        } else {
            Verdict::Inconclusive
        }
    }
}

/// A cell for `values` over seeds: "mean ± half-width", or "–" without a finite value.
pub fn cell(values: impl IntoIterator<Item = f64>, digits: usize, scale: f64) -> String {
    Estimate::of(values).map_or("–".into(), |e| e.cell(digits, scale))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_interval_is_students_t() {
        // 1, 2, 3, 4, 5: mean 3, s = √2.5, t₀.₉₇₅,₄ = 2.776: half-width 2.776·√2.5/√5 = 1.963.
        let e = Estimate::of([1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!(e.mean, 3.0);
        assert!(
            (e.half_width - 2.776 * (0.5f64).sqrt()).abs() < 1e-12,
            "{e:?}"
        );
        assert_eq!(e.cell(1, 1.0), "3.0 ± 2.0");
        assert_eq!(e.cell(0, 100.0), "300 ± 196");
        // NaN (a diverged run) is left out and counted out.
        let f = Estimate::of([1.0, f64::NAN, 3.0]).unwrap();
        assert_eq!((f.n, f.mean), (2, 2.0));
        assert!((f.half_width - 12.706 * (2.0f64).sqrt() / (2.0f64).sqrt()).abs() < 1e-9);
        assert_eq!(Estimate::of([7.0]).unwrap().cell(1, 1.0), "7.0 (1 run)");
        assert!(Estimate::of([f64::NAN]).is_none());
        assert_eq!(cell(Vec::<f64>::new(), 1, 1.0), "–");
    }

    #[test]
    fn the_quantiles_fall_towards_the_normal() {
        assert_eq!(t975(4), 2.776);
        assert!(t975(0).is_infinite());
        let mut last = t975(1);
        for df in 2..200 {
            assert!(t975(df) < last, "df {df}");
            last = t975(df);
        }
        // Beyond the table the expansion is within 0.001 of the exact quantiles (df 31: 2.0395,
        // 40: 2.0211, 60: 2.0003, 120: 1.9799).
        for (df, exact) in [(31, 2.0395), (40, 2.0211), (60, 2.0003), (120, 1.9799)] {
            assert!((t975(df) - exact).abs() < 0.001, "df {df}: {}", t975(df));
        }
    }

    #[test]
    fn a_verdict_needs_separate_intervals() {
        let low = Estimate::of([1.0, 1.1, 0.9, 1.0, 1.05]).unwrap();
        let high = Estimate::of([2.0, 2.1, 1.9, 2.0, 2.05]).unwrap();
        let wide = Estimate::of([0.0, 3.0, 1.0, 2.5, 0.5]).unwrap();
        assert_eq!(Verdict::of(&high, &low), Verdict::Higher);
        assert_eq!(Verdict::of(&low, &high), Verdict::Lower);
        assert_eq!(Verdict::of(&wide, &low), Verdict::Inconclusive);
        assert_eq!(Verdict::of(&low, &low), Verdict::Inconclusive);
    }
}
