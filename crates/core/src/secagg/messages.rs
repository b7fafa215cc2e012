//! The messages of [Bonawitz] Fig. 4 as plain structs, each with its size on the wire
//! ([`Wire::bytes`]): what the benchmark counts per client and per round.
//!
//! The sizes are the payload a compact encoding would send: a client id is 4 bytes, a public
//! key 32, a share 40 ([`SHARE_BYTES`]), an envelope 104 (88 bytes sealed plus Poly1305's 16),
//! a word 4. Transport framing (TLS, HTTP, protobuf tags) is left out, the same for every
//! message.

use super::envelope::CIPHERTEXT_BYTES;
use super::keys::{KEY_BYTES, Public};
use super::shamir::{SHARE_BYTES, Share};

/// Bytes of a client id.
pub const ID_BYTES: usize = 4;

/// A message's size on the wire.
pub trait Wire {
    fn bytes(&self) -> usize;
}

/// Round 0, client → server: c_u^PK ‖ s_u^PK (no signature: honest-but-curious variant).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdvertiseKeys {
    pub from: u32,
    /// The key the envelopes are sealed under.
    pub c_public: Public,
    /// The key the pairwise masks come from.
    pub s_public: Public,
}

impl Wire for AdvertiseKeys {
    fn bytes(&self) -> usize {
        ID_BYTES + 2 * KEY_BYTES
    }
}

/// Round 0 → 1, server → client u: the keys of u's neighbours that advertised (all of U1 but
/// u with the complete graph).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyList {
    pub keys: Vec<AdvertiseKeys>,
}

impl Wire for KeyList {
    fn bytes(&self) -> usize {
        self.keys.iter().map(Wire::bytes).sum()
    }
}

/// One sealed envelope with its address (the receiver on the way in, the sender on the way
/// out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Addressed {
    pub peer: u32,
    pub ciphertext: Vec<u8>,
}

impl Wire for Addressed {
    fn bytes(&self) -> usize {
        ID_BYTES + self.ciphertext.len()
    }
}

/// Round 1, client → server: e_{u,v} for every holder v of u's shares but u.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareKeys {
    pub from: u32,
    /// `peer` is the receiver.
    pub envelopes: Vec<Addressed>,
}

impl Wire for ShareKeys {
    fn bytes(&self) -> usize {
        ID_BYTES + self.envelopes.iter().map(Wire::bytes).sum::<usize>()
    }
}

/// Round 1 → 2, server → client v: the envelopes addressed to v by clients in U2 (from which
/// v infers U2 among its neighbours).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelopes {
    /// `peer` is the sender.
    pub envelopes: Vec<Addressed>,
}

impl Wire for Envelopes {
    fn bytes(&self) -> usize {
        self.envelopes.iter().map(Wire::bytes).sum()
    }
}

/// Round 2, client → server: y_u.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaskedInput {
    pub from: u32,
    pub y: Vec<u32>,
}

impl Wire for MaskedInput {
    fn bytes(&self) -> usize {
        ID_BYTES + 4 * self.y.len()
    }
}

/// Round 2 → 4, server → client u: which holders of u's neighbourhood sent their masked input
/// (U3 restricted to u and its neighbours; all of U3 with the complete graph), and how many
/// did in all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Survivors {
    pub survivors: Vec<u32>,
    /// |U3|.
    pub cohort: usize,
}

impl Wire for Survivors {
    fn bytes(&self) -> usize {
        ID_BYTES * (self.survivors.len() + 1)
    }
}

/// A share with the client whose secret it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnedShare {
    pub owner: u32,
    pub share: Share,
}

/// Round 4, client → server: b_{v,u} for the survivors v, s_{v,u}^SK for the neighbours that
/// shared and then dropped — never both for one v.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnmaskShares {
    pub from: u32,
    pub self_mask_seeds: Vec<OwnedShare>,
    pub mask_keys: Vec<OwnedShare>,
}

impl Wire for UnmaskShares {
    fn bytes(&self) -> usize {
        ID_BYTES + (ID_BYTES + SHARE_BYTES) * (self.self_mask_seeds.len() + self.mask_keys.len())
    }
}

/// The size of one envelope on the way in or out, for estimates.
pub const ENVELOPE_WIRE_BYTES: usize = ID_BYTES + CIPHERTEXT_BYTES;
