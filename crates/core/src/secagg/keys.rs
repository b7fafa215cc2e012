//! Key agreement (KA of [Bonawitz] Fig. 4) with X25519, and the key derivation from a shared
//! secret to what the protocol uses it for.
//!
//! - **Keys from bytes.** A key pair is made from 32 secret bytes the caller gives
//!   (`x25519-dalek`'s `StaticSecret`, clamped at use as RFC 7748 says). Nothing here asks the
//!   operating system for randomness: the simulation draws every client's bytes from its own
//!   seeded ChaCha20 stream ([`KeySource`]), so a run is reproducible from its seed. A
//!   deployment would draw them from the OS (`getrandom`) on each device instead; a seeded
//!   source is only safe here because every party lives in one process we control.
//! - **KDF.** HKDF-SHA256 (RFC 5869) turns a shared secret into a 32-byte key, with the purpose
//!   and the two client ids in its `info`: the pairwise mask's PRG seed s_{u,v} (one for the
//!   pair, the smaller id first, so both ends derive the same) and each direction's envelope
//!   key (u → v differs from v → u, so each key seals exactly one message).

use hkdf::Hkdf;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};
use x25519_dalek::{PublicKey, StaticSecret};

/// Bytes of an X25519 public key, secret key or shared secret.
pub const KEY_BYTES: usize = 32;

/// A public key as it travels.
pub type Public = [u8; KEY_BYTES];

/// One X25519 key pair: (c_u^PK, c_u^SK) or (s_u^PK, s_u^SK) of Fig. 4.
#[derive(Clone)]
pub struct KeyPair {
    secret: StaticSecret,
    public: PublicKey,
}

impl KeyPair {
    /// The key pair of 32 secret bytes (KA.gen with the randomness given).
    pub fn from_secret(bytes: [u8; KEY_BYTES]) -> Self {
        let secret = StaticSecret::from(bytes);
        let public = PublicKey::from(&secret);
        Self { secret, public }
    }

    pub fn public(&self) -> Public {
        self.public.to_bytes()
    }

    /// The secret bytes: what a client secret-shares of its masking key s_u^SK.
    pub fn secret_bytes(&self) -> [u8; KEY_BYTES] {
        self.secret.to_bytes()
    }

    /// KA.agree(own secret, their public): `None` when the result is the all-zero point (a
    /// low-order public key; RFC 7748 §6.1 says to refuse it).
    pub fn agree(&self, their: &Public) -> Option<[u8; KEY_BYTES]> {
        let shared = self.secret.diffie_hellman(&PublicKey::from(*their));
        shared.was_contributory().then(|| shared.to_bytes())
    }
}

/// KA.agree from raw secret bytes: the server's, once it has reconstructed a dropped client's
/// s_u^SK.
pub fn agree(secret: [u8; KEY_BYTES], their: &Public) -> Option<[u8; KEY_BYTES]> {
    KeyPair::from_secret(secret).agree(their)
}

fn hkdf(shared: &[u8; KEY_BYTES], purpose: &[u8], a: u32, b: u32) -> [u8; KEY_BYTES] {
    let kdf = Hkdf::<Sha256>::new(Some(b"whereabouts secagg v1"), shared);
    let mut info = Vec::with_capacity(purpose.len() + 8);
    info.extend_from_slice(purpose);
    info.extend_from_slice(&a.to_le_bytes());
    info.extend_from_slice(&b.to_le_bytes());
    let mut out = [0u8; KEY_BYTES];
    kdf.expand(&info, &mut out)
        .expect("32 bytes is within HKDF-SHA256's 8160");
    out
}

/// The PRG seed of the pairwise mask between clients `u` and `v` (the same from either end).
pub fn mask_seed(shared: &[u8; KEY_BYTES], u: u32, v: u32) -> [u8; KEY_BYTES] {
    hkdf(shared, b"pairwise mask", u.min(v), u.max(v))
}

/// The key that seals the shares `from` sends `to` (AE.enc's key in Fig. 4).
pub fn envelope_key(shared: &[u8; KEY_BYTES], from: u32, to: u32) -> [u8; KEY_BYTES] {
    hkdf(shared, b"share envelope", from, to)
}

/// A client's randomness in the simulation: ChaCha20 seeded from the run's seed and the
/// client's id (SHA-256 of both, so neighbouring ids give unrelated streams). It makes the key
/// pairs, the self-mask seed b_u and the Shamir polynomials' coefficients. A deployment would
/// use the device's OS randomness instead (see the module doc).
pub struct KeySource(ChaCha20Rng);

impl KeySource {
    pub fn new(seed: u64, client: u32) -> Self {
        let mut h = Sha256::new();
        h.update(b"whereabouts secagg simulated client");
        h.update(seed.to_le_bytes());
        h.update(client.to_le_bytes());
        Self(ChaCha20Rng::from_seed(h.finalize().into()))
    }

    pub fn bytes32(&mut self) -> [u8; KEY_BYTES] {
        let mut b = [0u8; KEY_BYTES];
        self.0.fill_bytes(&mut b);
        b
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn both_ends_agree_and_derive_the_same_mask_seed_but_different_envelope_keys() {
        let mut src = KeySource::new(7, 0);
        let a = KeyPair::from_secret(src.bytes32());
        let b = KeyPair::from_secret(src.bytes32());
        let ab = a.agree(&b.public()).unwrap();
        let ba = b.agree(&a.public()).unwrap();
        assert_eq!(ab, ba);
        assert_eq!(mask_seed(&ab, 3, 9), mask_seed(&ba, 9, 3));
        assert_ne!(envelope_key(&ab, 3, 9), envelope_key(&ab, 9, 3));
        // The server's path from the raw secret bytes gives the same secret.
        assert_eq!(agree(a.secret_bytes(), &b.public()).unwrap(), ab);
    }

    #[test]
    fn rfc_7748_section_6_1_vector() {
        // Alice's and Bob's keys from RFC 7748 §6.1.
        let hex = |s: &str| -> [u8; 32] {
            let mut out = [0u8; 32];
            for (i, o) in out.iter_mut().enumerate() {
                *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
            }
            out
        };
        let alice = KeyPair::from_secret(hex(
            "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a",
        ));
        let bob = KeyPair::from_secret(hex(
            "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb",
        ));
        assert_eq!(
            alice.public(),
            hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        );
        assert_eq!(
            alice.agree(&bob.public()).unwrap(),
            hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
        );
    }

    #[test]
    fn a_low_order_public_key_is_refused() {
        let a = KeyPair::from_secret([5u8; 32]);
        assert_eq!(a.agree(&[0u8; 32]), None);
    }

    #[test]
    fn client_streams_differ_and_repeat() {
        assert_eq!(
            KeySource::new(1, 2).bytes32(),
            KeySource::new(1, 2).bytes32()
        );
        assert_ne!(
            KeySource::new(1, 2).bytes32(),
            KeySource::new(1, 3).bytes32()
        );
        assert_ne!(
            KeySource::new(1, 2).bytes32(),
            KeySource::new(2, 2).bytes32()
        );
    }
}
