//! What the honest-but-curious server does with the updates it receives.
//!
//! - [`dlg`]: Algorithm 2, gradient inversion with one dummy point and a cosine loss.
//! - [`analytic`]: Lemma 1's closed form, and the quantities of Theorems 1–2.
//! - [`objective`]: the exact, allocation-free DLG loss and its gradient (on the core's dual
//!   numbers).
//! - [`fedavg`], [`unroll`]: beyond the paper, a server that simulates the phone's local
//!   training on dummies (FedAvg-aware inversion) and the exact gradient of that simulation.

pub mod analytic;
/// Attack cases from files (the CLI's `attack --case`; native builds, since reading PyTorch's safetensors uses candle).
#[cfg(not(target_arch = "wasm32"))]
pub mod case;
pub mod dlg;
pub mod fedavg;
pub mod kernel;
pub mod objective;
pub mod unroll;

/// Turns a model update into the gradient it stands for: g_obs = (w_before − w_after) / η.
///
/// For FedSGD this is exactly ∇ℓ(w_{t−1}; D_t^k); for FedAvg it is the sum of the local steps'
/// gradients (Insight I3). The sign matters for the cosine: the paper reports a converged loss
/// below −0.9988 ([000] §4.1, Fig. 6), i.e. it minimises cos(Δw, g′) with Δw = w_t^k − w_{t−1}^k
/// (Algorithm 1), which is the same as matching g′ to −Δw/η (our reading, see docs/papers.md).
pub fn observed_gradient(before: &[f32], after: &[f32], learning_rate: f32) -> Vec<f32> {
    before
        .iter()
        .zip(after)
        .map(|(b, a)| (b - a) / learning_rate)
        .collect()
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_fedavg;
