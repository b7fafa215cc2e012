//! Privacy and utility metrics ([000] §3.2), all in honest units.
//!
//! - Distance from each round's reconstruction to that round's true batch centroid, metres.
//! - EMD between the distribution of all true locations and the reconstructions (diverged ones
//!   removed), computed as the paper does — a sliced Wasserstein distance with 1,000 random
//!   projections (Bonneel et al.; POT's `sliced_wasserstein_distance`, whose default p = 2 we
//!   use) — but on the metric plane, so it is in metres. The paper's EMD values (5–35) are in
//!   unstated units; compare ratios, e.g. EMD / random-guess EMD.
//! - The random-guess baseline: as many points as reconstructions, uniform in the area of
//!   interest, averaged over 5 draws (the paper's Campus baseline used 5 realisations).

use crate::geo::Metres;
use crate::rng::Stream;

/// Random projections of every EMD (the paper's 1,000).
pub const EMD_PROJECTIONS: usize = 1000;
/// The Wasserstein order p of every EMD (POT's default, 2).
pub const EMD_P: f64 = 2.0;

/// The EMD between two point clouds in metres: [`sliced_wasserstein`] with the paper's
/// projections and order.
pub fn emd(a: &[Metres], b: &[Metres], stream: &mut Stream) -> Option<f64> {
    sliced_wasserstein(a, b, EMD_PROJECTIONS, EMD_P, stream)
}

/// Sliced p-Wasserstein distance between two point clouds with uniform weights, using
/// `projections` random directions from `stream`.
pub fn sliced_wasserstein(
    a: &[Metres],
    b: &[Metres],
    projections: usize,
    p: f64,
    stream: &mut Stream,
) -> Option<f64> {
    if a.is_empty() || b.is_empty() || projections == 0 {
        return None;
    }
    let mut pa = vec![0.0; a.len()];
    let mut pb = vec![0.0; b.len()];
    let mut total = 0.0;
    for _ in 0..projections {
        let theta = stream.range(0.0, 2.0 * core::f64::consts::PI);
        let (c, s) = (libm::cos(theta), libm::sin(theta));
        for (v, m) in pa.iter_mut().zip(a) {
            *v = m.east * c + m.north * s;
        }
        for (v, m) in pb.iter_mut().zip(b) {
            *v = m.east * c + m.north * s;
        }
        total += wasserstein_1d_pow(&mut pa, &mut pb, p);
    }
    Some(libm::pow(total / projections as f64, 1.0 / p))
}

/// W_p^p between two 1-D empirical distributions with uniform weights (sorts its inputs):
/// the integral over quantile levels of |F⁻¹(u) − G⁻¹(u)|^p, walking both sorted samples.
pub fn wasserstein_1d_pow(a: &mut [f64], b: &mut [f64], p: f64) -> f64 {
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (wa, wb) = (1.0 / a.len() as f64, 1.0 / b.len() as f64);
    let (mut i, mut j) = (0, 0);
    let (mut left_a, mut left_b) = (wa, wb);
    let mut sum = 0.0;
    while i < a.len() && j < b.len() {
        let mass = left_a.min(left_b);
        sum += mass * libm::pow((a[i] - b[j]).abs(), p);
        left_a -= mass;
        left_b -= mass;
        if left_a <= 1e-15 {
            i += 1;
            left_a = wa;
        }
        if left_b <= 1e-15 {
            j += 1;
            left_b = wb;
        }
    }
    sum
}

/// EMD of `count` uniform guesses in the area against the truth, averaged over `draws`.
pub fn random_guess_emd(
    truth: &[Metres],
    count: usize,
    area: (Metres, Metres),
    draws: usize,
    stream: &mut Stream,
) -> Option<f64> {
    if count == 0 || draws == 0 {
        return None;
    }
    let (lo, hi) = area;
    let mut sum = 0.0;
    for _ in 0..draws {
        let guesses: Vec<Metres> = (0..count)
            .map(|_| {
                Metres::new(
                    stream.range(lo.east, hi.east),
                    stream.range(lo.north, hi.north),
                )
            })
            .collect();
        sum += emd(truth, &guesses, stream)?;
    }
    Some(sum / draws as f64)
}

/// The median of some values (None if empty).
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Root-mean-square error of predictions, in the labels' unit (dB for RSRP).
pub fn rmse(pairs: impl Iterator<Item = (f64, f64)>) -> Option<f64> {
    let (mut n, mut sum) = (0usize, 0.0);
    for (prediction, truth) in pairs {
        sum += (prediction - truth).powi(2);
        n += 1;
    }
    (n > 0).then(|| libm::sqrt(sum / n as f64))
}

/// Ranks of `values` from 1 (smallest), ties sharing their average rank (the convention of
/// Spearman's ρ).
pub fn ranks(values: &[f64]) -> Vec<f64> {
    let order = crate::order::stable_order(values.len(), &|a, b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = rank;
        }
        i = j + 1;
    }
    out
}

/// Pearson's correlation of two equally long series (None if shorter than 2 or constant).
pub fn pearson(a: &[f64], b: &[f64]) -> Option<f64> {
    let n = a.len().min(b.len());
    if n < 2 {
        return None;
    }
    let (ma, mb) = (
        a[..n].iter().sum::<f64>() / n as f64,
        b[..n].iter().sum::<f64>() / n as f64,
    );
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a[..n].iter().zip(&b[..n]) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    (saa > 0.0 && sbb > 0.0).then(|| sab / libm::sqrt(saa * sbb))
}

/// Spearman's rank correlation ρ: Pearson's correlation of the ranks (ties averaged). The
/// utility metric of [003] §"Numerical Tests" ("rank correlation").
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    pearson(&ranks(a), &ranks(b))
}

/// The indices of the `k` largest values (ties broken by index, so the set is reproducible).
pub fn top_k(values: &[f64], k: usize) -> Vec<usize> {
    let mut order = crate::order::stable_order(values.len(), &|a, b| {
        values[b].total_cmp(&values[a]).then(a.cmp(&b))
    });
    order.truncate(k);
    order
}

/// Hotspot F1: how well the `k` highest cells of an estimate match the `k` highest of the
/// truth (precision and recall of the top-k set; both sets hold `k` cells, so F1 is the share
/// they have in common). The heat-map metric of Google's federated location heatmaps.
pub fn hotspot_f1(estimate: &[f64], truth: &[f64], k: usize) -> Option<f64> {
    let k = k.min(estimate.len()).min(truth.len());
    if k == 0 {
        return None;
    }
    let mut chosen = vec![false; truth.len()];
    for i in top_k(truth, k) {
        chosen[i] = true;
    }
    let hits = top_k(estimate, k)
        .into_iter()
        .filter(|&i| chosen[i])
        .count();
    Some(hits as f64 / k as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn one_dimensional_wasserstein_matches_hand_computation() {
        // {0, 1} vs {0.5}: every unit of mass moves 0.5, so W1 = 0.5 and W2² = 0.25.
        assert!((wasserstein_1d_pow(&mut [0.0, 1.0], &mut [0.5], 1.0) - 0.5).abs() < 1e-12);
        assert!((wasserstein_1d_pow(&mut [1.0, 0.0], &mut [0.5], 2.0) - 0.25).abs() < 1e-12);
        // Unequal sizes: {0,0,3} vs {0,3}: mass 1/3 of the middle 0 moves to 3 → W1 = 1/3·… = 0.5
        let w = wasserstein_1d_pow(&mut [0.0, 0.0, 3.0], &mut [0.0, 3.0], 1.0);
        assert!((w - 0.5).abs() < 1e-12, "{w}");
    }

    #[test]
    fn sliced_distance_of_a_shift_is_the_mean_projected_shift() {
        // Shifting a cloud by d moves every projection by d·cos θ: SW2 = d·sqrt(E cos²θ) = d/√2.
        let mut s = Stream::new(1, "cloud");
        let a: Vec<Metres> = (0..400)
            .map(|_| Metres::new(s.gaussian(0.0, 100.0), s.gaussian(0.0, 100.0)))
            .collect();
        let b: Vec<Metres> = a
            .iter()
            .map(|m| Metres::new(m.east + 300.0, m.north))
            .collect();
        let sw = sliced_wasserstein(&a, &b, 1000, 2.0, &mut Stream::new(2, "proj")).unwrap();
        assert!((sw - 300.0 / 2f64.sqrt()).abs() < 8.0, "{sw}");
        let same = sliced_wasserstein(&a, &a, 100, 2.0, &mut Stream::new(3, "proj")).unwrap();
        assert!(same < 1e-9);
    }

    #[test]
    fn guessing_at_random_is_far_from_a_concentrated_truth() {
        let truth = vec![Metres::new(10.0, 10.0); 50];
        let area = (Metres::new(-500.0, -500.0), Metres::new(500.0, 500.0));
        let emd = random_guess_emd(&truth, 20, area, 5, &mut Stream::new(4, "g")).unwrap();
        assert!(emd > 200.0, "{emd}");
    }

    #[test]
    fn median_and_rmse() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        let r = rmse([(1.0, 0.0), (-1.0, 0.0)].into_iter()).unwrap();
        assert!((r - 1.0).abs() < 1e-12);
    }

    #[test]
    fn spearman_sees_order_not_scale_and_averages_ties() {
        assert_eq!(ranks(&[3.0, 1.0, 2.0, 1.0]), vec![4.0, 1.5, 3.0, 1.5]);
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let cubed: Vec<f64> = a.iter().map(|x| x * x * x).collect();
        assert!((spearman(&a, &cubed).unwrap() - 1.0).abs() < 1e-12);
        let reversed: Vec<f64> = a.iter().rev().copied().collect();
        assert!((spearman(&a, &reversed).unwrap() + 1.0).abs() < 1e-12);
        // Hand computation: ranks (1,2,3,4) vs (2,1,4,3): 1 − 6·4/(4·15) = 0.6.
        assert!(
            (spearman(&[1.0, 2.0, 3.0, 4.0], &[2.0, 1.0, 4.0, 3.0]).unwrap() - 0.6).abs() < 1e-12
        );
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn hotspot_f1_is_the_share_of_top_cells_in_common() {
        let truth = [9.0, 8.0, 7.0, 1.0, 0.0];
        assert_eq!(hotspot_f1(&truth, &truth, 3), Some(1.0));
        // The estimate's top three are cells 0, 3, 4: one in common with 0, 1, 2.
        let estimate = [9.0, 0.0, 0.0, 5.0, 6.0];
        assert!((hotspot_f1(&estimate, &truth, 3).unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(hotspot_f1(&estimate, &truth, 0), None);
    }
}
