//! What the model's arithmetic needs of a number, so that the LSTM's forward pass and its
//! back-propagation through time are written once: on `f32` they give the training gradient,
//! on the core's [`Dual`] numbers that gradient with its derivative with respect to the
//! attacker's unknowns.

use core::ops::{Add, AddAssign, Mul, Neg, Sub};
use whereabouts_core::dual::Dual;

pub trait Scalar:
    Copy + Add<Output = Self> + AddAssign + Sub<Output = Self> + Mul<Output = Self> + Neg<Output = Self>
{
    fn constant(v: f32) -> Self;
    fn value(self) -> f32;
    /// `self · c` for a constant `c`.
    fn scale(self, c: f32) -> Self;
    /// `self + other · c` for a constant `c` (the inner step of every product with a weight).
    fn add_scaled(self, other: Self, c: f32) -> Self;
    fn sigmoid(self) -> Self;
    fn tanh(self) -> Self;

    fn zero() -> Self {
        Self::constant(0.0)
    }
}

/// The logistic function, as PyTorch computes it in f32.
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + libm::expf(-x))
}

impl Scalar for f32 {
    fn constant(v: f32) -> Self {
        v
    }
    fn value(self) -> f32 {
        self
    }
    #[inline(always)]
    fn scale(self, c: f32) -> Self {
        self * c
    }
    #[inline(always)]
    fn add_scaled(self, other: Self, c: f32) -> Self {
        self + other * c
    }
    fn sigmoid(self) -> Self {
        sigmoid(self)
    }
    fn tanh(self) -> Self {
        libm::tanhf(self)
    }
}

impl<const N: usize> Scalar for Dual<N> {
    fn constant(v: f32) -> Self {
        Dual::constant(v)
    }
    fn value(self) -> f32 {
        self.v
    }
    #[inline(always)]
    fn scale(self, c: f32) -> Self {
        Dual::scale(self, c)
    }
    #[inline(always)]
    fn add_scaled(self, other: Self, c: f32) -> Self {
        Dual::add_scaled(self, other, c)
    }
    fn sigmoid(self) -> Self {
        let s = sigmoid(self.v);
        self.chain(s, s * (1.0 - s))
    }
    fn tanh(self) -> Self {
        let t = libm::tanhf(self.v);
        self.chain(t, 1.0 - t * t)
    }
}
