//! Forward-mode dual numbers with three tangents: ∂/∂x₀, ∂/∂x₁ (the dummy location) and ∂/∂y
//! (the dummy label). Four f32 lanes — value plus three tangents — so every multiply-add of a
//! constant weight by a dual number is one 4-wide vector operation on SIMD hardware.
//!
//! Only `+`, `·` and the activations are needed. All arithmetic is plain IEEE mul/add in a fixed
//! order (Rust never fuses into FMA), and `exp`/`tanh` come from `libm`, so results are
//! bit-identical natively and in wasm.

use core::ops::{Add, AddAssign, Mul, Neg, Sub};

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct D4(pub [f32; 4]);

impl D4 {
    pub const ZERO: D4 = D4([0.0; 4]);

    pub const fn constant(v: f32) -> Self {
        D4([v, 0.0, 0.0, 0.0])
    }

    /// The `k`-th independent variable (k = 0, 1, 2) with value `v`.
    pub fn variable(v: f32, k: usize) -> Self {
        let mut d = [v, 0.0, 0.0, 0.0];
        d[k + 1] = 1.0;
        D4(d)
    }

    #[inline(always)]
    pub fn value(self) -> f32 {
        self.0[0]
    }

    /// The three partial derivatives.
    pub fn tangents(self) -> [f32; 3] {
        [self.0[1], self.0[2], self.0[3]]
    }

    /// Multiplication by a constant.
    #[inline(always)]
    pub fn scale(self, c: f32) -> Self {
        let a = self.0;
        D4([a[0] * c, a[1] * c, a[2] * c, a[3] * c])
    }

    /// `self + other · c`, the inner step of every matrix–vector product.
    #[inline(always)]
    pub fn add_scaled(self, other: D4, c: f32) -> Self {
        let (a, b) = (self.0, other.0);
        D4([
            a[0] + b[0] * c,
            a[1] + b[1] * c,
            a[2] + b[2] * c,
            a[3] + b[3] * c,
        ])
    }

    /// f(self) for a function with value `f` and derivative `df` at self's value.
    #[inline(always)]
    pub fn chain(self, f: f32, df: f32) -> Self {
        let a = self.0;
        D4([f, a[1] * df, a[2] * df, a[3] * df])
    }

    pub fn sqrt(self) -> Self {
        let s = libm::sqrtf(self.value());
        self.chain(s, 0.5 / s)
    }

    pub fn recip(self) -> Self {
        let v = self.value();
        self.chain(1.0 / v, -1.0 / (v * v))
    }
}

impl Add for D4 {
    type Output = D4;
    #[inline(always)]
    fn add(self, o: D4) -> D4 {
        let (a, b) = (self.0, o.0);
        D4([a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]])
    }
}

impl AddAssign for D4 {
    #[inline(always)]
    fn add_assign(&mut self, o: D4) {
        *self = *self + o;
    }
}

impl Sub for D4 {
    type Output = D4;
    #[inline(always)]
    fn sub(self, o: D4) -> D4 {
        self + (-o)
    }
}

impl Neg for D4 {
    type Output = D4;
    #[inline(always)]
    fn neg(self) -> D4 {
        self.scale(-1.0)
    }
}

impl Mul for D4 {
    type Output = D4;
    #[inline(always)]
    fn mul(self, o: D4) -> D4 {
        let (a, b) = (self.0, o.0);
        D4([
            a[0] * b[0],
            a[1] * b[0] + a[0] * b[1],
            a[2] * b[0] + a[0] * b[2],
            a[3] * b[0] + a[0] * b[3],
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn products_and_quotients_differentiate() {
        let x = D4::variable(3.0, 0);
        let y = D4::variable(2.0, 1);
        let f = x * x * y; // ∂x = 2xy = 12, ∂y = x² = 9
        assert_eq!(f.value(), 18.0);
        assert_eq!(f.tangents(), [12.0, 9.0, 0.0]);
        let g = (x * y).recip(); // 1/(xy): ∂x = −1/(x²y) = −1/18
        assert!((g.tangents()[0] + 1.0 / 18.0).abs() < 1e-7);
        let h = (x * x).sqrt(); // |x|: ∂x = 1
        assert!((h.tangents()[0] - 1.0).abs() < 1e-6);
    }
}
