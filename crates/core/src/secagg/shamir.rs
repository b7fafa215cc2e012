//! Shamir's t-out-of-n secret sharing (SS.share / SS.recon of [Bonawitz] Fig. 4) of a 32-byte
//! secret, over the prime field F_p with p = 2^61 − 1 (a Mersenne prime: a product reduces with
//! a shift and an add, in u128, the same on every platform).
//!
//! - **Why our own.** The well-kept Rust crates for Shamir either share bytes over GF(2^8),
//!   which allows at most 255 holders (a round of 1,000 clients needs 1,000), or are built on
//!   elliptic-curve scalar fields with a much larger dependency tree. Sharing over a 61-bit
//!   prime field is forty lines, tested below.
//! - **A secret is five field elements.** The 32 bytes are cut into four 7-byte limbs and one
//!   4-byte limb (each < 2^56 < p), shared independently with the same x-coordinates. A share
//!   is then five elements, 40 bytes on the wire ([`SHARE_BYTES`]).
//! - **x-coordinates.** The holder with client id v holds the polynomial's value at x = v + 1
//!   ([`x_of`]): never 0, where the secret sits.
//! - **Privacy.** The polynomial's t − 1 other coefficients are uniform in F_p, so any t − 1
//!   shares are consistent with every secret (the tests build a second one); any t determine it.

/// p = 2^61 − 1.
pub const P: u64 = (1 << 61) - 1;
/// Field elements per secret.
pub const LIMBS: usize = 5;
/// Bytes of a share on the wire (its y-values; the holder is known from the addressing).
pub const SHARE_BYTES: usize = 8 * LIMBS;
/// Bytes of the secret.
pub const SECRET_BYTES: usize = 32;
const LIMB_BYTES: usize = 7;

#[inline]
fn reduce(s: u64) -> u64 {
    if s >= P { s - P } else { s }
}

#[inline]
pub fn add(a: u64, b: u64) -> u64 {
    reduce(a + b)
}

#[inline]
pub fn sub(a: u64, b: u64) -> u64 {
    reduce(a + P - b)
}

#[inline]
pub fn mul(a: u64, b: u64) -> u64 {
    let z = u128::from(a) * u128::from(b);
    reduce((z as u64 & P) + (z >> 61) as u64)
}

fn pow(mut a: u64, mut e: u64) -> u64 {
    let mut r = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = mul(r, a);
        }
        a = mul(a, a);
        e >>= 1;
    }
    r
}

/// a⁻¹ (a ≠ 0), by Fermat.
pub fn inv(a: u64) -> u64 {
    debug_assert!(a != 0 && a < P);
    pow(a, P - 2)
}

/// The x-coordinate of client `id`'s shares.
pub fn x_of(id: u32) -> u64 {
    u64::from(id) + 1
}

/// One holder's share: the polynomials' values at its x.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    pub x: u64,
    pub y: [u64; LIMBS],
}

impl Share {
    pub fn y_bytes(&self) -> [u8; SHARE_BYTES] {
        let mut out = [0u8; SHARE_BYTES];
        for (chunk, y) in out.chunks_exact_mut(8).zip(self.y) {
            chunk.copy_from_slice(&y.to_le_bytes());
        }
        out
    }

    /// The share at `x` from its wire bytes; `None` if a value is not a field element.
    pub fn from_y_bytes(x: u64, bytes: &[u8]) -> Option<Share> {
        if bytes.len() != SHARE_BYTES {
            return None;
        }
        let mut y = [0u64; LIMBS];
        for (v, chunk) in y.iter_mut().zip(bytes.chunks_exact(8)) {
            *v = u64::from_le_bytes(chunk.try_into().ok()?);
            if *v >= P {
                return None;
            }
        }
        Some(Share { x, y })
    }
}

/// The secret as field elements.
pub fn to_limbs(secret: &[u8; SECRET_BYTES]) -> [u64; LIMBS] {
    let mut limbs = [0u64; LIMBS];
    for (i, chunk) in secret.chunks(LIMB_BYTES).enumerate() {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        limbs[i] = u64::from_le_bytes(b);
    }
    limbs
}

/// The secret back from field elements, `None` when a limb is out of its range (what
/// interpolating shares of different secrets, or too few, almost always gives).
pub fn from_limbs(limbs: &[u64; LIMBS]) -> Option<[u8; SECRET_BYTES]> {
    let mut secret = [0u8; SECRET_BYTES];
    for (i, chunk) in secret.chunks_mut(LIMB_BYTES).enumerate() {
        if limbs[i] >> (8 * chunk.len()) != 0 {
            return None;
        }
        chunk.copy_from_slice(&limbs[i].to_le_bytes()[..chunk.len()]);
    }
    Some(secret)
}

/// A uniform field element from a source of 64-bit words (rejection of the one 61-bit value
/// that is p itself).
pub fn random_element(next_u64: &mut impl FnMut() -> u64) -> u64 {
    loop {
        let v = next_u64() >> 3;
        if v < P {
            return v;
        }
    }
}

/// SS.share: t-out-of-|holders| shares of `secret`, one for each holder's x (in its order).
/// `t` is at least 1 and at most the number of holders (the caller's config checks it).
pub fn share(
    secret: &[u8; SECRET_BYTES],
    t: usize,
    holders: &[u64],
    next_u64: &mut impl FnMut() -> u64,
) -> Vec<Share> {
    assert!(
        (1..=holders.len()).contains(&t),
        "t = {t} of {}",
        holders.len()
    );
    // coefficients[k][limb]: a_0 = the secret, a_1 … a_{t−1} uniform.
    let mut coefficients = vec![to_limbs(secret)];
    for _ in 1..t {
        let mut c = [0u64; LIMBS];
        for v in &mut c {
            *v = random_element(next_u64);
        }
        coefficients.push(c);
    }
    holders
        .iter()
        .map(|&x| {
            // Horner, the five limbs side by side.
            let mut y = [0u64; LIMBS];
            for c in coefficients.iter().rev() {
                for (acc, &ci) in y.iter_mut().zip(c) {
                    *acc = add(mul(*acc, x), ci);
                }
            }
            Share { x, y }
        })
        .collect()
}

/// Why shares did not give a secret back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReconstructError {
    /// Fewer than t shares.
    TooFew { have: usize, need: usize },
    /// Two shares at the same x, or one at x = 0.
    BadPoints,
    /// The interpolated value is not a 32-byte secret: the shares are not all of one secret.
    NotASecret,
}

/// Lagrange weights for interpolating at `at` from the values at `xs` (distinct): the value
/// there is Σ_i w_i·y_i. Computed once for a set of holders and used for every secret they
/// hold shares of.
#[derive(Clone, Debug)]
pub struct Lagrange {
    pub xs: Vec<u64>,
    weights: Vec<u64>,
}

impl Lagrange {
    pub fn new(xs: &[u64], at: u64) -> Result<Self, ReconstructError> {
        let mut sorted = xs.to_vec();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) || sorted.iter().any(|&x| x == 0 || x >= P) {
            return Err(ReconstructError::BadPoints);
        }
        let weights = xs
            .iter()
            .map(|&xi| {
                let (mut num, mut den) = (1, 1);
                for &xj in xs.iter().filter(|&&xj| xj != xi) {
                    num = mul(num, sub(at, xj));
                    den = mul(den, sub(xi, xj));
                }
                mul(num, inv(den))
            })
            .collect();
        Ok(Self {
            xs: xs.to_vec(),
            weights,
        })
    }

    /// The interpolated limbs from the values at `self.xs`, in the same order.
    pub fn combine<'a>(&self, ys: impl IntoIterator<Item = &'a [u64; LIMBS]>) -> [u64; LIMBS] {
        let mut out = [0u64; LIMBS];
        for (w, y) in self.weights.iter().zip(ys) {
            for (o, &v) in out.iter_mut().zip(y) {
                *o = add(*o, mul(*w, v));
            }
        }
        out
    }
}

/// SS.recon: the secret from the first `t` of `shares`.
pub fn reconstruct(shares: &[Share], t: usize) -> Result<[u8; SECRET_BYTES], ReconstructError> {
    if shares.len() < t || t == 0 {
        return Err(ReconstructError::TooFew {
            have: shares.len(),
            need: t,
        });
    }
    let used = &shares[..t];
    let xs: Vec<u64> = used.iter().map(|s| s.x).collect();
    let lagrange = Lagrange::new(&xs, 0)?;
    from_limbs(&lagrange.combine(used.iter().map(|s| &s.y))).ok_or(ReconstructError::NotASecret)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secagg::keys::KeySource;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn source(seed: u64) -> impl FnMut() -> u64 {
        let mut s = KeySource::new(seed, 0);
        move || s.next_u64()
    }

    #[test]
    fn field_arithmetic() {
        assert_eq!(mul(P - 1, P - 1), 1); // (−1)² = 1
        assert_eq!(add(P - 1, 1), 0);
        assert_eq!(sub(0, 1), P - 1);
        let mut next = source(1);
        for _ in 0..100 {
            let a = random_element(&mut next);
            if a != 0 {
                assert_eq!(mul(a, inv(a)), 1);
            }
        }
    }

    #[test]
    fn limbs_round_trip_and_out_of_range_is_not_a_secret() {
        let mut secret = [0u8; 32];
        for (i, b) in secret.iter_mut().enumerate() {
            *b = 255 - i as u8;
        }
        let limbs = to_limbs(&secret);
        assert!(limbs.iter().all(|&l| l < 1 << 56));
        assert_eq!(from_limbs(&limbs), Some(secret));
        let mut bad = limbs;
        bad[4] = 1 << 32;
        assert_eq!(from_limbs(&bad), None);
    }

    /// Any t of n shares give the secret back; so do more than t.
    #[test]
    fn any_t_shares_reconstruct() {
        let mut next = source(2);
        let secret = {
            let mut s = KeySource::new(3, 1);
            s.bytes32()
        };
        let n = 12;
        let t = 7;
        let xs: Vec<u64> = (0..n).map(x_of).collect();
        let shares = share(&secret, t, &xs, &mut next);
        assert_eq!(shares.len(), n as usize);
        // 40 subsets drawn at random, plus the first and the last t.
        let mut pick = source(4);
        for trial in 0..42 {
            let mut chosen = shares.clone();
            match trial {
                0 => chosen.truncate(t),
                1 => chosen = chosen[n as usize - t..].to_vec(),
                _ => {
                    // Fisher–Yates on the shares, then the first t (or t + 2).
                    for i in (1..chosen.len()).rev() {
                        let j = (pick() % (i as u64 + 1)) as usize;
                        chosen.swap(i, j);
                    }
                    chosen.truncate(if trial % 2 == 0 { t } else { t + 2 });
                }
            }
            assert_eq!(reconstruct(&chosen, t), Ok(secret), "trial {trial}");
        }
    }

    /// t − 1 shares do not determine the secret: for another secret there is a polynomial of
    /// the same degree through the same t − 1 shares, and its t-th share reconstructs that one.
    #[test]
    fn t_minus_one_shares_are_consistent_with_any_secret() {
        let mut next = source(5);
        let secret_a = [0x11u8; 32];
        let secret_b = [0x22u8; 32];
        let t = 5;
        let xs: Vec<u64> = (0..9).map(x_of).collect();
        let shares_a = share(&secret_a, t, &xs, &mut next);
        let known = &shares_a[..t - 1];
        // The polynomial through (0, B) and the t − 1 known shares has degree t − 1; its value
        // at the next holder's x is a share that, with the known ones, gives B.
        let mut points_xs: Vec<u64> = vec![0];
        points_xs.extend(known.iter().map(|s| s.x));
        let mut points_ys: Vec<[u64; LIMBS]> = vec![to_limbs(&secret_b)];
        points_ys.extend(known.iter().map(|s| s.y));
        let at = shares_a[t - 1].x;
        // Lagrange::new refuses x = 0 as a holder's point, so interpolate by hand.
        let mut y_b = [0u64; LIMBS];
        for (i, (&xi, yi)) in points_xs.iter().zip(&points_ys).enumerate() {
            let (mut num, mut den) = (1, 1);
            for (j, &xj) in points_xs.iter().enumerate() {
                if i != j {
                    num = mul(num, sub(at, xj));
                    den = mul(den, sub(xi, xj));
                }
            }
            let w = mul(num, inv(den));
            for (o, &v) in y_b.iter_mut().zip(yi) {
                *o = add(*o, mul(w, v));
            }
        }
        let forged = Share { x: at, y: y_b };
        let mut with_b = known.to_vec();
        with_b.push(forged);
        assert_eq!(reconstruct(&with_b, t), Ok(secret_b));
        assert_eq!(reconstruct(&shares_a[..t], t), Ok(secret_a));
        // Same t − 1 shares, two secrets: the t − 1 shares alone cannot tell them apart.
        assert_eq!(&with_b[..t - 1], &shares_a[..t - 1]);
        // And fewer than t shares are refused outright.
        assert_eq!(
            reconstruct(known, t),
            Err(ReconstructError::TooFew { have: 4, need: 5 })
        );
    }

    #[test]
    fn shares_of_different_secrets_do_not_interpolate_to_one() {
        let mut next = source(6);
        let xs: Vec<u64> = (0..5).map(x_of).collect();
        let a = share(&[1u8; 32], 3, &xs, &mut next);
        let b = share(&[2u8; 32], 3, &xs, &mut next);
        let mixed = [a[0], a[1], b[2]];
        assert_eq!(reconstruct(&mixed, 3), Err(ReconstructError::NotASecret));
        assert_eq!(
            reconstruct(&[a[0], a[0], a[1]], 3),
            Err(ReconstructError::BadPoints)
        );
    }

    #[test]
    fn a_share_travels_as_forty_bytes() {
        let s = Share {
            x: 3,
            y: [1, P - 1, 0, 42, 7],
        };
        assert_eq!(Share::from_y_bytes(3, &s.y_bytes()), Some(s));
        let mut bad = s.y_bytes();
        bad[..8].copy_from_slice(&P.to_le_bytes());
        assert_eq!(Share::from_y_bytes(3, &bad), None);
    }
}
