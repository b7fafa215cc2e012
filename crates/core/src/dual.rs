//! Forward-mode dual numbers with `N` tangents, in f32: a value and its partial derivatives with
//! respect to `N` independent variables — the one type the attacks' exact derivatives are carried
//! on: the Signal map's DLG loss (`Dual<3>`: the dummy location x′₀, x′₁ and label y′) and the
//! Mobility lab's reference objective and CPL's output term (`Dual<18>`: 8×2 dummy positions
//! and the 2-D dummy label).
//!
//! The tangents are a fixed-size array, so every operation is a loop the compiler turns into
//! SIMD lanes natively and in wasm (simd128). Only `+`, `−`, `·` and a few functions are needed
//! (the labs' activations go through [`Dual::chain`]). All arithmetic is plain IEEE mul/add in a
//! fixed order (Rust never fuses into FMA), and `sqrt`/`exp` come from [`libm`], so results are
//! bit-identical natively and in wasm.

use core::ops::{Add, AddAssign, Mul, Neg, Sub};

/// `repr(C)`: the value, then the tangents, with no padding, so a `Dual<3>` is one 128-bit
/// vector to the Signal map's simd128 kernel (`signal_map/attack/kernel.rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Dual<const N: usize> {
    /// The value.
    pub v: f32,
    /// ∂/∂ each of the `N` variables.
    pub d: [f32; N],
}

impl<const N: usize> Default for Dual<N> {
    fn default() -> Self {
        Self::ZERO
    }
}

impl<const N: usize> Dual<N> {
    pub const ZERO: Self = Dual {
        v: 0.0,
        d: [0.0; N],
    };

    /// A constant: every tangent zero.
    pub const fn constant(v: f32) -> Self {
        Dual { v, d: [0.0; N] }
    }

    /// The `k`-th independent variable with value `v`.
    pub fn variable(v: f32, k: usize) -> Self {
        let mut d = [0.0; N];
        d[k] = 1.0;
        Dual { v, d }
    }

    #[inline(always)]
    pub fn value(self) -> f32 {
        self.v
    }

    /// The `N` partial derivatives.
    #[inline(always)]
    pub fn tangents(self) -> [f32; N] {
        self.d
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

    /// Multiplication by a constant.
    #[inline(always)]
    pub fn scale(self, c: f32) -> Self {
        let mut d = self.d;
        for t in &mut d {
            *t *= c;
        }
        Dual { v: self.v * c, d }
    }

    /// `self + other · c` for a constant `c`, the inner step of every matrix–vector product.
    #[inline(always)]
    pub fn add_scaled(self, other: Self, c: f32) -> Self {
        let mut d = self.d;
        for (t, o) in d.iter_mut().zip(&other.d) {
            *t += o * c;
        }
        Dual {
            v: self.v + other.v * c,
            d,
        }
    }

    pub fn sqrt(self) -> Self {
        let s = libm::sqrtf(self.v);
        self.chain(s, 0.5 / s)
    }

    /// 1/x, with the derivative −1/x².
    pub fn recip(self) -> Self {
        let v = self.v;
        self.chain(1.0 / v, -1.0 / (v * v))
    }

    pub fn exp(self) -> Self {
        let e = libm::expf(self.v);
        self.chain(e, e)
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
    #[inline(always)]
    fn neg(self) -> Self {
        self.scale(-1.0)
    }
}

impl<const N: usize> Mul for Dual<N> {
    type Output = Self;
    /// The product rule: (a·b)′ = a′·b + a·b′.
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        let mut d = [0.0; N];
        for ((t, a), b) in d.iter_mut().zip(&self.d).zip(&o.d) {
            *t = a * o.v + self.v * b;
        }
        Dual { v: self.v * o.v, d }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn products_and_quotients_differentiate() {
        let x = Dual::<3>::variable(3.0, 0);
        let y = Dual::<3>::variable(2.0, 1);
        let f = x * x * y; // ∂x = 2xy = 12, ∂y = x² = 9
        assert_eq!(f.value(), 18.0);
        assert_eq!(f.tangents(), [12.0, 9.0, 0.0]);
        let g = (x * y).recip(); // 1/(xy): ∂x = −1/(x²y) = −1/18
        assert!((g.tangents()[0] + 1.0 / 18.0).abs() < 1e-7);
        let h = (x * x).sqrt(); // |x|: ∂x = 1
        assert!((h.tangents()[0] - 1.0).abs() < 1e-6);
        let e = (x - y).exp(); // e^{x−y}: ∂x = e, ∂y = −e
        assert!((e.value() - 1f32.exp()).abs() < 1e-6);
        assert_eq!(e.tangents()[0], e.value());
        assert_eq!(e.tangents()[1], -e.value());
    }
}
