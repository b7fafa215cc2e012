//! The malicious server's imprint module (issue 39 §2): Fowl, Geiping, Czaja, Goldblum and
//! Goldstein, *Robbing the Fed: Directly Obtaining Private Data in Federated Learning with
//! Modified Models*, ICLR 2022 — built for the Signal map's model.
//!
//! **The module.** The server puts a block in front of the model it sends: a dense layer of k
//! bins with ReLU whose rows all measure one linear function of the input, m(x) = a·x, with
//! biases −q_i at the quantiles q_0 < q_1 < … < q_{k−1} of m's distribution (the "cumulative"
//! structure: bin i is active for every input with m(x) > q_i); then a connection into the
//! model's first layer whose columns are all equal, so that every bin receives the same
//! ∂L/∂h from an input (the authors' `ImprintBlock`, breaching
//! `cases/malicious_modifications/imprint.py`: rows 1/d, the bins at normal quantiles, the
//! layer after it all ones). Here a = (½, ½) on the standardised position (the input's mean,
//! as theirs), and the quantiles are those of m over the area — the server knows the area it
//! asked for, nobody's fixes (docs/papers.md §3h).
//!
//! **The readout.** An input x active in bin i adds δ(x)·x to the gradient of row i's weights
//! and δ(x) to its bias's, the same δ(x) in every bin it reaches. Differences of consecutive
//! bins, ∇W_i − ∇W_{i+1} and ∇b_i − ∇b_{i+1}, keep only the inputs with q_i < m(x) ≤ q_{i+1};
//! when exactly one input lies there, their ratio is that input, verbatim. The ratio does not
//! care how the differences were scaled, so it survives FedAvg's weighted mean and the sum of
//! secure aggregation: the server reads the round's *aggregate* change ([`read`]), and recovers
//! every fix that was alone in its bin among everyone's.
//!
//! **Several local steps.** The ratio also survives a sum of steps when the same lone input
//! stays in the same bin (each step adds c_s·δ_s(x)·(x, 1)). Two things are only approximate
//! then: after the first step the bins' rows and the connection's columns have moved apart
//! (their gradients differ), so the inputs of the bins above leak a little into a difference,
//! and an input near a boundary may change bin. What holds in our runs is measured
//! (docs/secagg.md "The malicious server"), not assumed.

use crate::signal_map::model::{Activation, Hidden, MlpSpec};
use crate::signal_map::trace::{Sample, Standardizer};
use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;
use whereabouts_core::geo::Metres;

#[cfg(test)]
mod tests;

/// A recovered fix counts as exact within this distance of a true fix (m). What moves a lone
/// fix's recovery is rounding: the phone's f32 sums over every fix above a bin, whose
/// difference of two neighbours cancels all but one, and the secure sum's quantisation; in the
/// lab's runs that is 2 mm to 11 cm (docs/papers.md §3h). A blend of several fixes is their
/// δ-weighted combination, metres from each unless one fix's residual dominates it.
pub const EXACT_M: f64 = 0.25;

/// The module's gain G: its rows are a/G and its biases −q_i/G, the connection's columns
/// G·u, so the model computes the same function while each bin's gradient grows G-fold and its
/// parameters shrink G-fold. Two roundings shrink with it: the phone's f32 w_after − w_before
/// (relative to the parameters) and the secure sum's fixed quantisation step (relative to the
/// change). Measured on a campus day of 5 phones, FedSGD (docs/papers.md §3h): at G = 16 one
/// of 47 lone fixes comes back within [`EXACT_M`], at 64 nineteen, at 256 all 47 (the sum's
/// largest weighted coordinate 13, far inside its clip of 1,024). The price: each local step
/// moves the bins G² times as far, which matters under several local steps.
pub const GAIN: f32 = 256.0;

/// Grid points a side over which the server takes m's quantiles on the area.
const AREA_GRID: usize = 256;

/// The malicious server's settings: how many bins its imprint module has.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImprintConfig {
    pub bins: usize,
}

impl Default for ImprintConfig {
    /// 64 bins: the authors' configuration (breaching `malicious-model-rtf.yaml`, `num_bins: 64`).
    fn default() -> Self {
        Self { bins: 64 }
    }
}

impl ImprintConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::signal_map::limits::IMPRINT_BINS
            .check("secure_aggregation.imprint.bins", self.bins as f64)?;
        Ok(())
    }
}

/// The server's secret: where the bins are.
#[derive(Clone, Debug, PartialEq)]
pub struct Imprint {
    /// a, the measurement on the standardised input.
    pub direction: [f32; 2],
    /// q_0 < … < q_{k−1}: bin i holds q_i < m(x) ≤ q_{i+1} (the last bin has no top).
    pub thresholds: Vec<f32>,
    /// G ([`GAIN`]).
    pub gain: f32,
}

impl Imprint {
    /// k bins at the quantiles i/k (i = 0…k−1) of m over the area (uniform), the lowest moved
    /// a bin's width (of m's range over k) below the area's least m, so that it holds every
    /// input in the area (the authors put it at −10 on N(0, 1), where no input reaches; so far
    /// below our inputs, it would saturate the layer after it).
    pub fn over_area(bins: usize, standardizer: &Standardizer, area: (Metres, Metres)) -> Self {
        let direction = [0.5f32, 0.5];
        let (lo, hi) = area;
        let mut m: Vec<f32> = Vec::with_capacity(AREA_GRID * AREA_GRID);
        for i in 0..AREA_GRID {
            for j in 0..AREA_GRID {
                let p = Metres::new(
                    lo.east + (hi.east - lo.east) * (i as f64 + 0.5) / AREA_GRID as f64,
                    lo.north + (hi.north - lo.north) * (j as f64 + 0.5) / AREA_GRID as f64,
                );
                m.push(measure(direction, standardizer.to_input(p)));
            }
        }
        m.sort_by(f32::total_cmp);
        let mut thresholds: Vec<f32> = (0..bins).map(|i| m[i * m.len() / bins]).collect();
        let spread = m[m.len() - 1] - m[0];
        thresholds[0] = m[0] - spread / bins as f32;
        Self {
            direction,
            thresholds,
            gain: GAIN,
        }
    }

    pub fn bins(&self) -> usize {
        self.thresholds.len()
    }

    /// The bin an input falls in (the last threshold it exceeds), as the planted layer sees
    /// it before any training.
    pub fn bin_of(&self, x: [f32; 2]) -> usize {
        let m = measure(self.direction, x);
        self.thresholds
            .iter()
            .rposition(|&q| m - q > 0.0)
            .unwrap_or(0)
    }

    /// The model the server sends: this module in front of `spec` with `honest` parameters, at
    /// gain [`GAIN`]. The connection's column for every bin is G·u, u = (W₁·(1, 1))/k, W₁ the
    /// model's first layer;
    /// the model's other layers are kept. No dropout (the server's choice: dropout would give
    /// each bin its own mask, and the bins' gradients would no longer share δ).
    pub fn plant(&self, spec: &MlpSpec, honest: &[f32]) -> (MlpSpec, Vec<f32>) {
        let k = self.bins();
        let first = spec.layers()[0];
        let width = first.outputs;
        let mut hidden = vec![Hidden {
            width: k,
            activation: Activation::Relu,
        }];
        hidden.extend(spec.hidden.iter().copied());
        let planted = MlpSpec {
            hidden,
            dropout: 0.0,
        };
        let s = 1.0 / self.gain;
        let mut params = Vec::with_capacity(planted.parameter_count());
        for _ in 0..k {
            params.extend(self.direction.map(|a| a * s));
        }
        params.extend(self.thresholds.iter().map(|q| -q * s));
        let u: Vec<f32> = (0..width)
            .map(|j| (honest[first.w + 2 * j] + honest[first.w + 2 * j + 1]) / (k as f32 * s))
            .collect();
        for &uj in &u {
            params.extend(std::iter::repeat_n(uj, k));
        }
        params.extend_from_slice(&honest[first.b..]);
        debug_assert_eq!(params.len(), planted.parameter_count());
        (planted, params)
    }

    /// Every bin's readout from a change Δ of the planted model (one phone's, or the mean of a
    /// secure sum): the standardised input (∇W_i − ∇W_{i+1}) / (∇b_i − ∇b_{i+1}) where the bias
    /// difference exceeds what rounding can make of an empty bin. `noise`: the most one
    /// coordinate of Δ may be off (the quantisation; 0 for a plain float change); `planted`
    /// the parameters Δ was taken from (f32 rounding of after − before scales with them).
    pub fn read(&self, planted: &[f32], delta: &[f32], noise: f64) -> Vec<Readout> {
        let k = self.bins();
        let w = |i: usize, j: usize| f64::from(delta[2 * i + j]);
        let b = |i: usize| f64::from(delta[2 * k + i]);
        let size = |i: usize| f64::from(planted[2 * k + i].abs() + delta[2 * k + i].abs());
        let mut out = Vec::new();
        for i in 0..k {
            let (dw, db, floor) = if i + 1 < k {
                (
                    [w(i, 0) - w(i + 1, 0), w(i, 1) - w(i + 1, 1)],
                    b(i) - b(i + 1),
                    2.0 * noise + 2.0 * f64::from(f32::EPSILON) * (size(i) + size(i + 1)),
                )
            } else {
                (
                    [w(i, 0), w(i, 1)],
                    b(i),
                    noise + 2.0 * f64::from(f32::EPSILON) * size(i),
                )
            };
            if db.abs() > floor {
                out.push(Readout {
                    bin: i,
                    input: [dw[0] / db, dw[1] / db],
                });
            }
        }
        out
    }
}

/// m(x) = a·x.
fn measure(a: [f32; 2], x: [f32; 2]) -> f32 {
    a[0] * x[0] + a[1] * x[1]
}

/// One bin's readout: the standardised input it gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Readout {
    pub bin: usize,
    pub input: [f64; 2],
}

/// What the malicious server got from a round: every bin's readout as a position, and how many
/// fixes — yours and everyone's in the sum — are among them exactly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImprintRecord {
    pub bins: usize,
    /// Bins whose difference is not empty (each gives one position: a fix or a blend).
    pub hit_bins: usize,
    /// Every hit bin's position, plane metres.
    pub recovered: Vec<Metres>,
    /// Your fixes the phone trained on, and how many of them are recovered exactly.
    pub your_fixes: usize,
    pub your_exact: usize,
    /// Your fixes recovered exactly (to draw).
    pub yours: Vec<Metres>,
    /// Every genuine phone's fixes in the sum (yours included), and how many are recovered.
    pub everyone_fixes: usize,
    pub everyone_exact: usize,
    /// The largest distance from an exactly recovered fix to its recovery, m.
    pub max_error_m: Option<f64>,
    /// Hit bins that match no fix (a blend of several, or a fix that moved bins).
    pub blends: usize,
}

impl ImprintRecord {
    /// Matches `readouts` against the fixes: `yours` the target's batch, `others` every other
    /// genuine phone's. A fix is recovered exactly when a readout lies within [`EXACT_M`].
    pub fn new(
        bins: usize,
        readouts: &[Readout],
        standardizer: &Standardizer,
        yours: &[Sample],
        others: &[&[Sample]],
    ) -> Self {
        let recovered: Vec<Metres> = readouts
            .iter()
            .map(|r| standardizer.to_metres(r.input))
            .collect();
        let nearest = |p: &Metres| {
            recovered
                .iter()
                .map(|r| r.distance(p))
                .fold(f64::INFINITY, f64::min)
        };
        let mut max_error: Option<f64> = None;
        let mut exact = |s: &Sample| {
            let d = nearest(&s.pos);
            (d <= EXACT_M)
                .then(|| max_error = Some(max_error.map_or(d, |m: f64| m.max(d))))
                .is_some()
        };
        let mine: Vec<Metres> = yours.iter().filter(|s| exact(s)).map(|s| s.pos).collect();
        let your_exact = mine.len();
        let others_exact = others
            .iter()
            .flat_map(|b| b.iter())
            .filter(|s| exact(s))
            .count();
        let all: Vec<Metres> = yours
            .iter()
            .chain(others.iter().flat_map(|b| b.iter()))
            .map(|s| s.pos)
            .collect();
        let blends = recovered
            .iter()
            .filter(|r| all.iter().all(|p| p.distance(r) > EXACT_M))
            .count();
        Self {
            bins,
            hit_bins: readouts.len(),
            your_fixes: yours.len(),
            your_exact,
            yours: mine,
            everyone_fixes: all.len(),
            everyone_exact: your_exact + others_exact,
            max_error_m: max_error,
            blends,
            recovered,
        }
    }
}

/// The malicious server's haul over a run: the rounds it read and the fixes recovered exactly.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ImprintSummary {
    pub rounds: usize,
    pub your_fixes: usize,
    pub your_exact: usize,
    pub everyone_fixes: usize,
    pub everyone_exact: usize,
    /// The largest distance from an exactly recovered fix to its recovery, m.
    pub max_error_m: Option<f64>,
}

impl ImprintSummary {
    /// Over `records` (`None` when no round had the malicious server's readout).
    pub fn of(records: &[crate::signal_map::scenario::RoundRecord]) -> Option<Box<Self>> {
        let mut s: Option<Box<Self>> = None;
        for r in records.iter().filter_map(|r| r.imprint.as_ref()) {
            let t = s.get_or_insert_with(Box::default);
            t.rounds += 1;
            t.your_fixes += r.your_fixes;
            t.your_exact += r.your_exact;
            t.everyone_fixes += r.everyone_fixes;
            t.everyone_exact += r.everyone_exact;
            t.max_error_m = match (t.max_error_m, r.max_error_m) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
        }
        s
    }
}
