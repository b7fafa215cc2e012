//! GAN obfuscation, the third local baseline of [000] §4.5 ("Gan") and App. B.1 (Figs. 15 and
//! 27–30), after [000]'s ref. [15] (Zhang, Clark, Clark, Psounis, Kairouz, *Privacy-utility
//! trades in crowdsourced signal map obfuscation*, Computer Networks 215, 2022). [000] gives
//! only its parameter, the obfuscation level ρ (smaller ρ: more privacy, worse RMSE), and says
//! it is applied "to obfuscate users' private data before the data leaves the mobile device".
//! [15]'s body is not held here; the design follows its co-author's code (github
//! lillyclark/pytorch_privacy, `clean/privacy.py`: `make_gap_privatizer`, `make_adversary`,
//! `make_privatizer_loss`, `train`). Every choice where both are silent is ours and is listed
//! in docs/papers.md §3a, "GAN obfuscation".
//!
//! Each device, every round, before local training, obfuscates its round data D_t:
//! - each sample is z = (x, y, label), the position z-scored with the dataset's
//!   [`Standardizer`] and the RSRP label with the cell's mean and standard deviation
//!   ([`LabelScale`]);
//! - a privatizer g (MLP 3 → 32 → ReLU → 32 → ReLU → 3, linear output) outputs new values, with
//!   no noise input, as the authors' `make_gap_privatizer`;
//! - an adversary h (MLP 3 → 32 → ReLU → 32 → ReLU → 2) predicts the true standardised
//!   position (x, y) from g(z): the "whereabouts" head of the authors' `make_adversary`. Its
//!   user-id head is dropped: a device holds one user's data, so there is no other user to
//!   tell apart;
//! - the adversary minimises L_A = mean ‖h(g(z)) − (x, y)‖₂ (the code's location term with
//!   w_loc = 1), the privatizer minimises L_P = ρ·U − (1 − ρ)·L_A with U = mean ‖g(z) − z‖₂
//!   (the code's distortion term `l2`). The code's other utility terms are left out: the
//!   degree-2 polynomial signal map's coefficients (`l1`, a least-squares fit that a round of a
//!   few fixes at one place makes singular), the location distance (`l3`, a part of U here,
//!   where the position is two of the three features) and the density term (`l6`, a count of
//!   the batch's points near the origin of the whole data set's z-scores, which says nothing
//!   of one device's round);
//! - training alternates in blocks of mini-batches as the code's "k = 5": 5 adversary steps,
//!   then 5 privatizer steps, each step Adam (lr 1e-3, β = (0.9, 0.999)) on a mini-batch of
//!   128 (or all of D_t if smaller), gradients clipped to norm 1000 as the code's
//!   `clip_grad_norm_`, fresh networks each round (PyTorch's default initialisation drawn from
//!   the device's stream), in f64 as the code's `.double()`. The block counter runs across
//!   epochs (the code's restarts every epoch, which on a device's handful of mini-batches would
//!   never reach a privatizer step) and the last, smaller mini-batch of an epoch is kept (the
//!   code skips it, which would drop a small round whole);
//! - the code's 5 epochs, and at least 500 mini-batch steps in all ([`Training::min_steps`]):
//!   the authors' 5 epochs ran over a whole city's data, thousands of mini-batches, where a
//!   device's day is 3 or 4, and 5 passes over it (15–25 steps) leave both networks at their
//!   random start — the privatizer's output is then the same scramble at every ρ (measured on
//!   campus days: distortion 1.3–1.7 standard deviations at ρ = 1 as at ρ = 0.01). At 500 steps
//!   ρ = 1 keeps the data within 0.03–0.05 standard deviations and ρ = 0.1 leaves the
//!   adversary near its no-information error, the shape of the authors' own logs; [000] §4.5
//!   says the two networks need "hundreds of training rounds" to converge.
//!
//! The device then trains on g(z): positions g(z)'s first two values de-standardised, the label
//! its third. The attack metric stays the distance to the centroid of the true D_t (module
//! [`super`]). The arithmetic is plain f64 (IEEE +, ×, ÷, √): the same bits natively and in
//! wasm.

use crate::signal_map::fl::BatchSelector;
use crate::signal_map::model::train::TrainError;
use crate::signal_map::trace::{Sample, Standardizer};
use whereabouts_core::optim::Adam;
use whereabouts_core::rng::Stream;

/// Units in each hidden layer of both networks (the code's `NUM_UNITS`).
pub const HIDDEN: usize = 32;
/// The privatizer's layer widths: z (3) → 32 → 32 → g(z) (3).
const G_SIZES: [usize; 4] = [3, HIDDEN, HIDDEN, 3];
/// The adversary's: g(z) (3) → 32 → 32 → (x, y) (2).
const H_SIZES: [usize; 4] = [3, HIDDEN, HIDDEN, 2];

const fn parameters(s: [usize; 4]) -> usize {
    (s[0] + 1) * s[1] + (s[1] + 1) * s[2] + (s[2] + 1) * s[3]
}

const G_PARAMS: usize = parameters(G_SIZES);
const H_PARAMS: usize = parameters(H_SIZES);

/// How the two networks are trained on one device's round.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Training {
    /// Passes over D_t (the code's `NUM_EPOCHS`).
    pub epochs: usize,
    /// At least this many mini-batches in all (more passes where D_t is small).
    pub min_steps: usize,
    /// Mini-batch size (all of D_t if smaller).
    pub batch_size: usize,
    /// Mini-batches in a block: `block` adversary steps, then `block` privatizer steps.
    pub block: usize,
    /// Adam's step for both networks.
    pub learning_rate: f64,
    /// Gradient-norm clip for both networks.
    pub clip: f64,
}

/// The schedule every device runs (docs/papers.md §3a, "GAN obfuscation").
pub const TRAINING: Training = Training {
    epochs: 5,
    min_steps: 500,
    batch_size: 128,
    block: 5,
    learning_rate: 1e-3,
    clip: 1000.0,
};

impl Training {
    /// Mini-batch steps on `n` samples.
    pub fn steps(&self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let per_epoch = n.div_ceil(self.batch_size.min(n));
        (self.epochs * per_epoch).max(self.min_steps)
    }
}

/// z-scoring of the RSRP label: the cell's mean and standard deviation, from every measurement
/// of the cell (both splits, every user) as the [`Standardizer`]'s, fixed for the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabelScale {
    pub mean: f64,
    pub sd: f64,
}

impl LabelScale {
    /// A degenerate spread (every label the same) keeps a unit scale of 1 dB.
    pub fn fit(labels: impl Iterator<Item = f32> + Clone) -> Self {
        let n = labels.clone().count().max(1) as f64;
        let mean = labels.clone().map(f64::from).sum::<f64>() / n;
        let var = labels.map(|y| (f64::from(y) - mean).powi(2)).sum::<f64>() / n;
        Self {
            mean,
            sd: libm::sqrt(var).max(1.0),
        }
    }
}

/// GAN obfuscation on the device at obfuscation level ρ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gan {
    pub rho: f64,
    pub standardizer: Standardizer,
    pub labels: LabelScale,
    pub training: Training,
}

/// What obfuscating one round gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Obfuscated {
    /// g(z) of every sample, in D_t's order (standardised).
    pub values: Vec<[f64; 3]>,
    /// U = mean ‖g(z) − z‖₂ over D_t.
    pub distortion: f64,
    /// L_A = mean ‖h(g(z)) − (x, y)‖₂ over D_t: the co-trained adversary's location error, in
    /// standardised units.
    pub adversary_error: f64,
    /// Mini-batch steps taken (adversary and privatizer).
    pub steps: usize,
}

impl Gan {
    /// z = (x, y, label) standardised.
    pub fn standardise(&self, s: &Sample) -> [f64; 3] {
        [
            f64::from(s.x[0]),
            f64::from(s.x[1]),
            (f64::from(s.y) - self.labels.mean) / self.labels.sd,
        ]
    }

    /// Trains g and h on `data` (fresh networks from `stream`) and returns g(z) of every sample.
    pub fn obfuscate(
        &self,
        data: &[Sample],
        stream: &mut Stream,
    ) -> Result<Obfuscated, TrainError> {
        let z: Vec<[f64; 3]> = data.iter().map(|s| self.standardise(s)).collect();
        obfuscate(&z, self.rho, &self.training, stream)
    }

    /// A standardised g(z) as the sample the device trains on.
    fn sample(&self, like: &Sample, v: [f64; 3]) -> Sample {
        let pos = self.standardizer.to_metres([v[0], v[1]]);
        Sample {
            pos,
            x: self.standardizer.to_input(pos),
            y: (v[2] * self.labels.sd + self.labels.mean) as f32,
            ..*like
        }
    }
}

impl BatchSelector for Gan {
    fn select(&self, data: &[Sample], stream: &mut Stream) -> Result<Vec<Sample>, TrainError> {
        if data.is_empty() {
            return Ok(Vec::new());
        }
        // Its own stream: one draw from the device's, whatever the GAN then takes.
        let mut own = stream.child("gan-obfuscation");
        let out = self.obfuscate(data, &mut own)?;
        let samples: Vec<Sample> = data
            .iter()
            .zip(&out.values)
            .map(|(s, &v)| self.sample(s, v))
            .collect();
        let finite =
            |s: &Sample| s.pos.east.is_finite() && s.pos.north.is_finite() && s.y.is_finite();
        if samples.iter().all(finite) {
            Ok(samples)
        } else {
            Err(TrainError::GanDiverged { step: out.steps })
        }
    }
}

/// A small MLP with ReLU between its three dense layers and a linear output, its parameters
/// flat (each layer's weights, row by row, then its biases), and its Adam state.
struct Mlp<const N: usize> {
    sizes: [usize; 4],
    params: Vec<f64>,
    adam: Adam<f64, N>,
}

/// One mini-batch through an [`Mlp`]: the input, both hidden layers after ReLU, the output.
struct Trace {
    acts: [Vec<f64>; 4],
    n: usize,
}

impl<const N: usize> Mlp<N> {
    /// PyTorch's default for `nn.Linear` (what the authors' networks start from): weights and
    /// biases uniform in ±1/√fan_in.
    fn new(sizes: [usize; 4], stream: &mut Stream) -> Self {
        let mut params = Vec::with_capacity(N);
        for l in 0..3 {
            let bound = 1.0 / libm::sqrt(sizes[l] as f64);
            for _ in 0..(sizes[l] + 1) * sizes[l + 1] {
                params.push(stream.range(-bound, bound));
            }
        }
        debug_assert_eq!(params.len(), N);
        Self {
            sizes,
            params,
            adam: Adam::new(),
        }
    }

    /// Layer `l`'s weights (out × in, row-major) and biases.
    fn layer(&self, l: usize) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let mut off = 0;
        for k in 0..l {
            off += (self.sizes[k] + 1) * self.sizes[k + 1];
        }
        let w = self.sizes[l] * self.sizes[l + 1];
        (off..off + w, off + w..off + w + self.sizes[l + 1])
    }

    fn forward(&self, input: Vec<f64>) -> Trace {
        let n = input.len() / self.sizes[0];
        let mut acts: [Vec<f64>; 4] = [input, Vec::new(), Vec::new(), Vec::new()];
        for l in 0..3 {
            let (i, o) = (self.sizes[l], self.sizes[l + 1]);
            let (wr, br) = self.layer(l);
            let (w, b) = (&self.params[wr], &self.params[br]);
            let mut next = vec![0.0; n * o];
            for s in 0..n {
                let a = &acts[l][s * i..(s + 1) * i];
                for j in 0..o {
                    let row = &w[j * i..(j + 1) * i];
                    let mut v = b[j];
                    for k in 0..i {
                        v += row[k] * a[k];
                    }
                    // ReLU on the hidden layers (NaN stays NaN, to be caught).
                    next[s * o + j] = if l < 2 && v < 0.0 { 0.0 } else { v };
                }
            }
            acts[l + 1] = next;
        }
        Trace { acts, n }
    }

    /// Back-propagates `d_out` (the loss's gradient at the output) through `trace`: adds the
    /// parameters' gradient into `grads` when given, and returns the input's gradient when
    /// `want_input`.
    fn backward(
        &self,
        trace: &Trace,
        d_out: Vec<f64>,
        mut grads: Option<&mut [f64]>,
        want_input: bool,
    ) -> Vec<f64> {
        let n = trace.n;
        let mut d = d_out;
        for l in (0..3).rev() {
            let (i, o) = (self.sizes[l], self.sizes[l + 1]);
            let (wr, br) = self.layer(l);
            let a = &trace.acts[l];
            if let Some(g) = grads.as_deref_mut() {
                for s in 0..n {
                    let a = &a[s * i..(s + 1) * i];
                    for j in 0..o {
                        let dj = d[s * o + j];
                        if dj == 0.0 {
                            continue;
                        }
                        let gw = &mut g[wr.start + j * i..wr.start + (j + 1) * i];
                        for k in 0..i {
                            gw[k] += dj * a[k];
                        }
                        g[br.start + j] += dj;
                    }
                }
            }
            if l == 0 && !want_input {
                return Vec::new();
            }
            let w = &self.params[wr];
            let mut prev = vec![0.0; n * i];
            for s in 0..n {
                let p = &mut prev[s * i..(s + 1) * i];
                for j in 0..o {
                    let dj = d[s * o + j];
                    if dj == 0.0 {
                        continue;
                    }
                    let row = &w[j * i..(j + 1) * i];
                    for k in 0..i {
                        p[k] += row[k] * dj;
                    }
                }
                // Through the ReLU below (its gradient at 0 is 0, as PyTorch's).
                if l > 0 {
                    for (pk, &ak) in p.iter_mut().zip(&a[s * i..(s + 1) * i]) {
                        if ak <= 0.0 {
                            *pk = 0.0;
                        }
                    }
                }
            }
            d = prev;
        }
        d
    }

    /// Clips `grads` to norm `clip` (as `torch.nn.utils.clip_grad_norm_`) and takes Adam's step;
    /// false if a parameter left the finite numbers.
    fn step(&mut self, grads: &mut [f64], lr: f64, clip: f64) -> bool {
        let norm = libm::sqrt(grads.iter().map(|g| g * g).sum::<f64>());
        let coef = clip / (norm + 1e-6);
        if coef < 1.0 {
            for g in grads.iter_mut() {
                *g *= coef;
            }
        }
        let step = self.adam.step(lr, &*grads);
        for (p, s) in self.params.iter_mut().zip(step.iter()) {
            *p -= s;
        }
        self.params.iter().all(|p| p.is_finite())
    }
}

/// mean_i ‖a_i − b_i‖₂ over rows of `dim` values, and its gradient in `a` scaled by `scale`
/// (a zero distance has gradient 0, the subgradient PyTorch's `pow(0.5)` would make NaN).
fn mean_distance(a: &[f64], b: &[f64], dim: usize, scale: f64) -> (f64, Vec<f64>) {
    let n = a.len() / dim;
    let mut grad = vec![0.0; a.len()];
    let mut sum = 0.0;
    for s in 0..n {
        let r = s * dim..(s + 1) * dim;
        let d = libm::sqrt(
            a[r.clone()]
                .iter()
                .zip(&b[r.clone()])
                .map(|(x, y)| (x - y) * (x - y))
                .sum::<f64>(),
        );
        sum += d;
        if d > 0.0 {
            for k in r {
                grad[k] = scale * (a[k] - b[k]) / (d * n as f64);
            }
        }
    }
    (sum / n as f64, grad)
}

/// The GAN's game on standardised samples `z` at level `rho`: fresh networks from `stream`,
/// trained as `training` says; g(z) of every sample afterwards, with the distortion and the
/// co-trained adversary's error.
pub fn obfuscate(
    z: &[[f64; 3]],
    rho: f64,
    training: &Training,
    stream: &mut Stream,
) -> Result<Obfuscated, TrainError> {
    let n = z.len();
    if n == 0 {
        return Ok(Obfuscated {
            values: Vec::new(),
            distortion: 0.0,
            adversary_error: 0.0,
            steps: 0,
        });
    }
    let mut g = Mlp::<G_PARAMS>::new(G_SIZES, &mut stream.child("privatizer"));
    let mut h = Mlp::<H_PARAMS>::new(H_SIZES, &mut stream.child("adversary"));
    let mut shuffles = stream.child("mini-batches");
    let steps = training.steps(n);
    let b = training.batch_size.min(n).max(1);
    let mut order: Vec<usize> = (0..n).collect();
    let mut next = n; // the position in `order`; n: reshuffle first
    let mut g_grads = vec![0.0; G_PARAMS];
    let mut h_grads = vec![0.0; H_PARAMS];
    for step in 0..steps {
        if next >= n {
            shuffles.shuffle(&mut order);
            next = 0;
        }
        let batch = &order[next..(next + b).min(n)];
        next += batch.len();
        let input: Vec<f64> = batch.iter().flat_map(|&i| z[i]).collect();
        let target: Vec<f64> = batch.iter().flat_map(|&i| [z[i][0], z[i][1]]).collect();
        let gt = g.forward(input.clone());
        let gz = gt.acts[3].clone();
        let ht = h.forward(gz.clone());
        let adversary_turn = (step / training.block).is_multiple_of(2);
        let finite = if adversary_turn {
            let (loss, d) = mean_distance(&ht.acts[3], &target, 2, 1.0);
            h_grads.fill(0.0);
            h.backward(&ht, d, Some(&mut h_grads), false);
            loss.is_finite() && h.step(&mut h_grads, training.learning_rate, training.clip)
        } else {
            let (l_a, d_h) = mean_distance(&ht.acts[3], &target, 2, -(1.0 - rho));
            let (u, d_u) = mean_distance(&gz, &input, 3, rho);
            let mut d_g = h.backward(&ht, d_h, None, true);
            for (a, b) in d_g.iter_mut().zip(&d_u) {
                *a += b;
            }
            g_grads.fill(0.0);
            g.backward(&gt, d_g, Some(&mut g_grads), false);
            let loss = rho * u - (1.0 - rho) * l_a;
            loss.is_finite() && g.step(&mut g_grads, training.learning_rate, training.clip)
        };
        if !finite {
            return Err(TrainError::GanDiverged { step });
        }
    }
    let input: Vec<f64> = z.iter().flatten().copied().collect();
    let target: Vec<f64> = z.iter().flat_map(|v| [v[0], v[1]]).collect();
    let gz = g.forward(input.clone()).acts[3].clone();
    let (adversary_error, _) = mean_distance(&h.forward(gz.clone()).acts[3], &target, 2, 1.0);
    let (distortion, _) = mean_distance(&gz, &input, 3, 1.0);
    let values: Vec<[f64; 3]> = gz.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
    if !(distortion.is_finite() && adversary_error.is_finite()) {
        return Err(TrainError::GanDiverged { step: steps });
    }
    Ok(Obfuscated {
        values,
        distortion,
        adversary_error,
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal_map::fl::{Federation, FlConfig};
    use crate::signal_map::model::train::LocalTraining;
    use crate::signal_map::trace::Dataset;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    use whereabouts_core::geo::{LatLon, LocalProjection, Metres};

    /// A device's day: 300 fixes around home, work and a shop (metres), each place with its
    /// own signal level, standardised on a 2 km square.
    fn day() -> (Vec<Sample>, Standardizer, LabelScale) {
        let places = [
            (-400.0, -300.0, -85.0),
            (500.0, 200.0, -100.0),
            (0.0, 600.0, -110.0),
        ];
        let mut s = Stream::new(3, "day");
        let corners = [Metres::new(-1000.0, -1000.0), Metres::new(1000.0, 1000.0)];
        let std = Standardizer::fit(corners.iter().copied());
        let samples = (0..300)
            .map(|i| {
                let (e, n, rsrp) = places[i % 3];
                let pos = Metres::new(e + s.gaussian(0.0, 30.0), n + s.gaussian(0.0, 30.0));
                Sample {
                    user: 0,
                    time: i as f64 * 60.0,
                    pos,
                    x: std.to_input(pos),
                    y: (rsrp + s.gaussian(0.0, 3.0)) as f32,
                }
            })
            .collect::<Vec<_>>();
        let labels = LabelScale::fit(samples.iter().map(|s| s.y));
        (samples, std, labels)
    }

    fn gan(rho: f64) -> (Gan, Vec<Sample>) {
        let (data, standardizer, labels) = day();
        let gan = Gan {
            rho,
            standardizer,
            labels,
            training: TRAINING,
        };
        (gan, data)
    }

    #[test]
    fn the_obfuscation_is_deterministic_for_a_seed_and_finite() {
        let (gan, data) = gan(0.5);
        let a = gan.select(&data, &mut Stream::new(1, "device")).unwrap();
        let b = gan.select(&data, &mut Stream::new(1, "device")).unwrap();
        let c = gan.select(&data, &mut Stream::new(2, "device")).unwrap();
        assert_eq!(a, b, "the same seed gives the same samples, bit for bit");
        assert_ne!(a, c, "another seed, other networks");
        assert_eq!(a.len(), data.len());
        assert!(a.iter().zip(&data).all(|(o, d)| {
            o.pos.east.is_finite()
                && o.pos.north.is_finite()
                && o.y.is_finite()
                && o.x == gan.standardizer.to_input(o.pos)
                && (o.user, o.time) == (d.user, d.time)
        }));
        assert_eq!(
            gan.select(&[], &mut Stream::new(1, "device")),
            Ok(Vec::new())
        );
        // Plain f64 arithmetic: the same bits natively and in wasm (one pinned fingerprint).
        let o = gan.obfuscate(&data, &mut Stream::new(1, "device")).unwrap();
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in o
            .values
            .iter()
            .flatten()
            .flat_map(|v| v.to_bits().to_le_bytes())
        {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        assert_eq!(format!("{h:016x}"), "c2d26f359d50e4c3");
        // At least 500 mini-batches; 5 epochs of 200 mini-batches where D_t is that large.
        assert_eq!(TRAINING.steps(0), 0);
        assert_eq!(TRAINING.steps(300), 500);
        assert_eq!(TRAINING.steps(25_600), 1000);
    }

    #[test]
    fn rho_one_keeps_the_data_and_a_small_rho_hides_the_locations() {
        let run = |rho: f64| {
            let (gan, data) = gan(rho);
            gan.obfuscate(&data, &mut Stream::new(1, "device")).unwrap()
        };
        let (keep, hide) = (run(1.0), run(0.1));
        // In standardised units: the places are about 0.5 apart, the fixes' spread 0.03.
        assert!(
            keep.distortion < 0.15,
            "ρ = 1: distortion {}",
            keep.distortion
        );
        assert!(
            hide.distortion > 3.0 * keep.distortion,
            "ρ = 0.1: distortion {} against {}",
            hide.distortion,
            keep.distortion
        );
        assert!(
            hide.adversary_error > 3.0 * keep.adversary_error,
            "the adversary's error: ρ = 0.1 {} against ρ = 1 {}",
            hide.adversary_error,
            keep.adversary_error
        );
    }

    #[test]
    fn a_diverging_gan_is_an_error_naming_the_device() {
        // A label scale no real cell has: z's third value is 1e300, and the networks overflow.
        let (mut gan, data) = gan(0.5);
        gan.labels = LabelScale {
            mean: 0.0,
            sd: 1e-298,
        };
        let e = gan
            .select(&data, &mut Stream::new(1, "device"))
            .unwrap_err();
        assert!(matches!(e, TrainError::GanDiverged { .. }), "{e:?}");
        assert!(e.to_string().contains("GAN obfuscation diverged"), "{e}");
        // Through the federation: the error carries the device, which the lab words as
        // "round t, user k: …".
        let mut data = data;
        for s in &mut data {
            s.time = 0.0;
        }
        let dataset = Dataset {
            standardizer: gan.standardizer,
            projection: LocalProjection::new(LatLon {
                lat: 51.5,
                lon: 0.0,
            }),
            train: data,
            test: Vec::new(),
            t0: 0.0,
            round_s: 86_400.0,
        };
        let spec = crate::signal_map::model::ModelPreset::Small.spec();
        let fl = Federation::new(
            spec.clone(),
            FlConfig {
                local: LocalTraining {
                    batch_size: None,
                    epochs: 1,
                    learning_rate: 0.001,
                },
                client_fraction: 1.0,
                cumulative: false,
            },
            1,
        );
        let start = vec![0.0; spec.parameter_count()];
        let failed = fl.local_update(&dataset, 0, 0, &start, &gan).unwrap_err();
        assert!(
            matches!(failed, (0, TrainError::GanDiverged { .. })),
            "{failed:?}"
        );
    }
}
