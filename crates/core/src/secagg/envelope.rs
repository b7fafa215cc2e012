//! Authenticated encryption (AE of [Bonawitz] Fig. 4) of the shares one client sends another
//! through the server: ChaCha20-Poly1305 (RFC 8439, the `chacha20poly1305` crate).
//!
//! Each key comes from the pair's c-key agreement and the direction ([`super::keys::envelope_key`])
//! and seals exactly one message, so the nonce is fixed at zero. The plaintext is Fig. 4's
//! u ‖ v ‖ s_{u,v}^SK ‖ b_{u,v}: the sender's and receiver's ids (checked on opening), then
//! the two shares. The server relays the envelope and cannot read it: it never learns a share
//! the protocol does not hand it in round 4.

use super::keys::KEY_BYTES;
use super::shamir::{SHARE_BYTES, Share};
use chacha20poly1305::aead::Aead;
use chacha20poly1305::{ChaCha20Poly1305, Key, KeyInit, Nonce};

/// Poly1305's tag.
pub const TAG_BYTES: usize = 16;
/// u ‖ v ‖ s-share ‖ b-share.
pub const PLAINTEXT_BYTES: usize = 4 + 4 + 2 * SHARE_BYTES;
/// A sealed envelope.
pub const CIPHERTEXT_BYTES: usize = PLAINTEXT_BYTES + TAG_BYTES;

/// What a client seals for one holder of its shares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contents {
    pub from: u32,
    pub to: u32,
    /// The holder's share of the sender's masking key s^SK.
    pub mask_key: Share,
    /// The holder's share of the sender's self-mask seed b.
    pub self_mask_seed: Share,
}

fn cipher(key: &[u8; KEY_BYTES]) -> ChaCha20Poly1305 {
    ChaCha20Poly1305::new(&Key::from(*key))
}

/// AE.enc: the envelope of `contents` under `key`.
pub fn seal(key: &[u8; KEY_BYTES], contents: &Contents) -> Vec<u8> {
    let mut plain = Vec::with_capacity(PLAINTEXT_BYTES);
    plain.extend_from_slice(&contents.from.to_le_bytes());
    plain.extend_from_slice(&contents.to.to_le_bytes());
    plain.extend_from_slice(&contents.mask_key.y_bytes());
    plain.extend_from_slice(&contents.self_mask_seed.y_bytes());
    cipher(key)
        .encrypt(&Nonce::default(), plain.as_slice())
        .expect("a message of 88 bytes is within ChaCha20-Poly1305's limits")
}

/// AE.dec: the contents, or `None` when the envelope does not authenticate under `key` or is
/// not one envelope's size. The shares' x-coordinate is the receiver's (`to` + 1).
pub fn open(key: &[u8; KEY_BYTES], ciphertext: &[u8]) -> Option<Contents> {
    if ciphertext.len() != CIPHERTEXT_BYTES {
        return None;
    }
    let plain = cipher(key).decrypt(&Nonce::default(), ciphertext).ok()?;
    let from = u32::from_le_bytes(plain[0..4].try_into().ok()?);
    let to = u32::from_le_bytes(plain[4..8].try_into().ok()?);
    let x = super::shamir::x_of(to);
    let mask_key = Share::from_y_bytes(x, &plain[8..8 + SHARE_BYTES])?;
    let self_mask_seed = Share::from_y_bytes(x, &plain[8 + SHARE_BYTES..])?;
    Some(Contents {
        from,
        to,
        mask_key,
        self_mask_seed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn contents() -> Contents {
        let x = super::super::shamir::x_of(4);
        Contents {
            from: 2,
            to: 4,
            mask_key: Share {
                x,
                y: [1, 2, 3, 4, 5],
            },
            self_mask_seed: Share {
                x,
                y: [6, 7, 8, 9, 10],
            },
        }
    }

    #[test]
    fn an_envelope_opens_under_its_key_only() {
        let key = [9u8; 32];
        let sealed = seal(&key, &contents());
        assert_eq!(sealed.len(), CIPHERTEXT_BYTES);
        assert_eq!(open(&key, &sealed), Some(contents()));
        assert_eq!(open(&[8u8; 32], &sealed), None);
        let mut tampered = sealed.clone();
        tampered[10] ^= 1;
        assert_eq!(open(&key, &tampered), None);
        assert_eq!(open(&key, &sealed[1..]), None);
    }
}
