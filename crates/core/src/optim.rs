//! Adam (Kingma & Ba 2015, Algorithm 1) with PyTorch's defaults β = (0.9, 0.999), ε = 1e-8 —
//! the one implementation every attack's optimiser steps with: the Signal map's DLG and its
//! FedAvg-aware server (f64, a few unknowns each), and the Mobility lab's InvGrad (f32, as
//! `torch.optim.Adam` on the 18 unknowns).
//!
//! Per coordinate k at iteration t (from 1), with gradient g:
//! m ← β₁·m + (1 − β₁)·g, v ← β₂·v + (1 − β₂)·g², and the step to subtract is
//! lr · (m / (1 − β₁ᵗ)) / (√(v / (1 − β₂ᵗ)) + ε), every operation in that order in the
//! float type `F` (so the f32 and f64 labs keep their own arithmetic).

use core::ops::{Add, Div, Mul, Sub};

/// The float types Adam runs in, with their constants and the two functions it needs.
pub trait AdamFloat:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    const BETA1: Self;
    const BETA2: Self;
    const EPS: Self;
    /// βᵗ.
    fn power(beta: Self, t: u32) -> Self;
    fn sqrt(self) -> Self;
}

impl AdamFloat for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const BETA1: Self = 0.9;
    const BETA2: Self = 0.999;
    const EPS: Self = 1e-8;
    fn power(beta: Self, t: u32) -> Self {
        libm::pow(beta, f64::from(t))
    }
    fn sqrt(self) -> Self {
        libm::sqrt(self)
    }
}

impl AdamFloat for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const BETA1: Self = 0.9;
    const BETA2: Self = 0.999;
    const EPS: Self = 1e-8;
    /// Repeated multiplication (the Mobility lab's steps were pinned with it).
    fn power(beta: Self, t: u32) -> Self {
        beta.powi(t as i32)
    }
    /// IEEE square root (correctly rounded on every platform).
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
}

/// Adam's state for up to `N` coordinates: the first and second moments and the iteration
/// count. The learning rate is given at each step (it is the caller's setting).
#[derive(Clone, Debug, PartialEq)]
pub struct Adam<F, const N: usize> {
    m: [F; N],
    v: [F; N],
    t: u32,
}

impl<F: AdamFloat, const N: usize> Default for Adam<F, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<F: AdamFloat, const N: usize> Adam<F, N> {
    /// Zero moments, no iteration yet.
    pub fn new() -> Self {
        Adam {
            m: [F::ZERO; N],
            v: [F::ZERO; N],
            t: 0,
        }
    }

    /// Iterations taken.
    pub fn iterations(&self) -> u32 {
        self.t
    }

    /// One iteration on the gradient `g` of the first `g.len()` (≤ N) coordinates: updates
    /// their moments and returns the step to subtract from each (zero beyond `g`, whose
    /// moments stay as they were).
    pub fn step(&mut self, lr: F, g: &[F]) -> [F; N] {
        assert!(g.len() <= N, "Adam over {N} coordinates given {}", g.len());
        self.t += 1;
        let c1 = F::ONE - F::power(F::BETA1, self.t);
        let c2 = F::ONE - F::power(F::BETA2, self.t);
        let mut step = [F::ZERO; N];
        for (k, &gk) in g.iter().enumerate() {
            self.m[k] = F::BETA1 * self.m[k] + (F::ONE - F::BETA1) * gk;
            self.v[k] = F::BETA2 * self.v[k] + (F::ONE - F::BETA2) * gk * gk;
            step[k] = lr * (self.m[k] / c1) / ((self.v[k] / c2).sqrt() + F::EPS);
        }
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_first_step_is_lr_against_the_gradients_sign() {
        let mut a = Adam::<f64, 3>::new();
        let s = a.step(0.01, &[4.0, -0.5]);
        assert!(
            (s[0] - 0.01).abs() < 1e-9 && (s[1] + 0.01).abs() < 1e-9,
            "{s:?}"
        );
        assert_eq!(s[2], 0.0);
        assert_eq!(a.iterations(), 1);
        let mut b = Adam::<f32, 2>::new();
        let s = b.step(0.5, &[1e-3, -7.0]);
        assert!(
            (s[0] - 0.5).abs() < 1e-5 && (s[1] + 0.5).abs() < 1e-5,
            "{s:?}"
        );
    }

    #[test]
    fn steps_follow_the_formula_with_bias_correction() {
        // Two steps by hand: g = 1 then g = 3.
        let mut a = Adam::<f64, 1>::new();
        a.step(0.1, &[1.0]);
        let s = a.step(0.1, &[3.0])[0];
        let m = 0.9 * 0.1 + 0.1 * 3.0;
        let v = 0.999 * 0.001 + 0.001 * 9.0;
        let expected = 0.1 * (m / (1.0 - 0.81)) / ((v / (1.0 - 0.999f64 * 0.999)).sqrt() + 1e-8);
        assert!((s - expected).abs() < 1e-12, "{s} vs {expected}");
    }
}
