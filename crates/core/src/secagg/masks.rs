//! The masks: PRG(seed) expanded to a vector of Z_{2^32} words with ChaCha20, added or
//! subtracted with wrapping arithmetic ([Bonawitz] Fig. 4, round 2: y_u = x_u + PRG(b_u) +
//! Σ_v ±PRG(s_{u,v}) mod R, here R = 2^32).
//!
//! The PRG is `rand_chacha`'s ChaCha20Rng (the 20-round ChaCha block function, key = the
//! 32-byte seed, stream 0, 64-bit block counter from 0), read as little-endian u32 words: the
//! same words on every platform. Every word of a mask is uniform in Z_{2^32}, so the masked
//! input y_u is uniform whatever x_u is.
//!
//! Sign convention: client u adds +PRG(s_{u,v}) when u < v and −PRG(s_{u,v}) when u > v, so
//! the pair's two masks cancel in the sum. (Fig. 4 writes the opposite sign, Δ = 1 when u > v;
//! either cancels.)

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// Whether a mask is added or subtracted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sign {
    Plus,
    Minus,
}

impl Sign {
    /// The sign of client `u`'s pairwise mask with `v`: + if u < v, − otherwise.
    pub fn pairwise(u: u32, v: u32) -> Sign {
        if u < v { Sign::Plus } else { Sign::Minus }
    }

    pub fn flip(self) -> Sign {
        match self {
            Sign::Plus => Sign::Minus,
            Sign::Minus => Sign::Plus,
        }
    }
}

/// Words the PRG writes per refill of its buffer.
const CHUNK_WORDS: usize = 256;

/// acc ± PRG(seed), word by word, wrapping mod 2^32.
pub fn apply(acc: &mut [u32], seed: &[u8; 32], sign: Sign) {
    let mut rng = ChaCha20Rng::from_seed(*seed);
    let mut bytes = [0u8; 4 * CHUNK_WORDS];
    for chunk in acc.chunks_mut(CHUNK_WORDS) {
        let buf = &mut bytes[..4 * chunk.len()];
        rng.fill_bytes(buf);
        let words = buf
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        match sign {
            Sign::Plus => chunk
                .iter_mut()
                .zip(words)
                .for_each(|(a, w)| *a = a.wrapping_add(w)),
            Sign::Minus => chunk
                .iter_mut()
                .zip(words)
                .for_each(|(a, w)| *a = a.wrapping_sub(w)),
        }
    }
}

/// PRG(seed) as `len` words.
pub fn expand(seed: &[u8; 32], len: usize) -> Vec<u32> {
    let mut v = vec![0u32; len];
    apply(&mut v, seed, Sign::Plus);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_pair_of_masks_cancels_and_chunks_do_not_matter() {
        let seed = [3u8; 32];
        let len = 1000; // not a multiple of the chunk
        let mut a = vec![7u32; len];
        apply(&mut a, &seed, Sign::pairwise(1, 2));
        assert_ne!(a, vec![7u32; len]);
        apply(&mut a, &seed, Sign::pairwise(2, 1));
        assert_eq!(a, vec![7u32; len]);
        // The first words of a longer expansion are the shorter one's.
        assert_eq!(expand(&seed, 300)[..], expand(&seed, len)[..300]);
    }

    #[test]
    fn chacha20_keystream_is_the_specified_one() {
        // ChaCha20 with an all-zero key, nonce and counter 0: the first keystream words of
        // RFC 7539 §2.3.2's block function test vector family (RFC 8439 A.1, test vector #1).
        let words = expand(&[0u8; 32], 4);
        assert_eq!(
            words,
            vec![0xade0_b876, 0x903d_f1a0, 0xe56a_5d40, 0x28bd_8653]
        );
    }
}
