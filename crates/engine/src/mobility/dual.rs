//! Forward-mode dual numbers with `N` tangents, in f32: a value and its partial derivatives
//! with respect to `N` independent variables (the attack's 8×2 dummy positions and 2-D dummy
//! label: N = 18). The tangents are a fixed-size array, so every operation is a loop the
//! compiler turns into SIMD lanes natively and in wasm (simd128).
//!
//! As in the signal map's `D4`, arithmetic is plain IEEE mul/add in a fixed order and the
//! transcendental functions come from `libm`, so results are the same natively and in wasm.

use super::scalar::{Scalar, sigmoid};
use core::ops::{Add, AddAssign, Mul, Neg, Sub};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dual<const N: usize> {
    pub v: f32,
    pub d: [f32; N],
}

impl<const N: usize> Dual<N> {
    pub const ZERO: Self = Dual {
        v: 0.0,
        d: [0.0; N],
    };

    /// The `k`-th independent variable with value `v`.
    pub fn variable(v: f32, k: usize) -> Self {
        let mut d = [0.0; N];
        d[k] = 1.0;
        Dual { v, d }
    }

    /// f(self) for a function with value `f` and derivative `df` at self's value.
    #[inline(always)]
    pub fn chain(self, f: f32, df: f32) -> Self {
        let mut d = self.d;
        for t in &mut d {
            *t *= df;
        }
        Dual { v: f, d }
    }

    pub fn sqrt(self) -> Self {
        let s = libm::sqrtf(self.v);
        self.chain(s, 0.5 / s)
    }

    pub fn recip(self) -> Self {
        let r = 1.0 / self.v;
        self.chain(r, -r * r)
    }

    pub fn exp(self) -> Self {
        let e = libm::expf(self.v);
        self.chain(e, e)
    }
}

impl<const N: usize> Scalar for Dual<N> {
    fn constant(v: f32) -> Self {
        Dual { v, d: [0.0; N] }
    }
    fn value(self) -> f32 {
        self.v
    }
    #[inline(always)]
    fn scale(self, c: f32) -> Self {
        let mut d = self.d;
        for t in &mut d {
            *t *= c;
        }
        Dual { v: self.v * c, d }
    }
    #[inline(always)]
    fn add_scaled(self, other: Self, c: f32) -> Self {
        let mut d = self.d;
        for (t, o) in d.iter_mut().zip(&other.d) {
            *t += o * c;
        }
        Dual {
            v: self.v + other.v * c,
            d,
        }
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

impl<const N: usize> Add for Dual<N> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        let mut d = self.d;
        for (t, b) in d.iter_mut().zip(&o.d) {
            *t += b;
        }
        Dual { v: self.v + o.v, d }
    }
}

impl<const N: usize> AddAssign for Dual<N> {
    #[inline(always)]
    fn add_assign(&mut self, o: Self) {
        *self = *self + o;
    }
}

impl<const N: usize> Sub for Dual<N> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        let mut d = self.d;
        for (t, b) in d.iter_mut().zip(&o.d) {
            *t -= b;
        }
        Dual { v: self.v - o.v, d }
    }
}

impl<const N: usize> Neg for Dual<N> {
    type Output = Self;
    fn neg(self) -> Self {
        self.scale(-1.0)
    }
}

impl<const N: usize> Mul for Dual<N> {
    type Output = Self;
    /// The product rule: (a·b)' = a'·b + a·b'.
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        let mut d = [0.0; N];
        for ((t, a), b) in d.iter_mut().zip(&self.d).zip(&o.d) {
            *t = a * o.v + self.v * b;
        }
        Dual { v: self.v * o.v, d }
    }
}
