//! # Secure aggregation
//!
//! The server learns the sum of a round's update vectors and nothing else about any one of
//! them: the protocol of [Bonawitz] (Bonawitz et al., *Practical Secure Aggregation for
//! Privacy-Preserving Machine Learning*, CCS 2017, Fig. 4) and, as an option of the same code
//! path, SecAgg+ ([Bell]: Bell, Bonawitz, Gascón, Lepoint, Raykova, *Secure Single-Server
//! Aggregation with (Poly)Logarithmic Overhead*, CCS 2020), where a client masks and shares
//! only with its k neighbours in a random k-regular graph. The choices are recorded in
//! docs/secagg.md (docs/papers.md §3e).
//!
//! It runs as a simulation in one process ([`simulate`]): every client and the server are plain
//! Rust values, every message a struct whose size on the wire is counted ([`messages`]). The
//! computation is the protocol's own; only the network and the clients' randomness are
//! simulated (seeded ChaCha20 per client where a device would use its OS's randomness).
//!
//! ## The rounds (Fig. 4)
//!
//! - **0 AdvertiseKeys.** Each client makes two X25519 key pairs, (c^PK, c^SK) for sealing
//!   shares and (s^PK, s^SK) for masking, and sends the public keys. The server needs t of
//!   them (U1) and sends each client its neighbours' keys.
//! - **1 ShareKeys.** Each client draws its self-mask seed b_u, Shamir-shares b_u and s_u^SK
//!   among its neighbours and itself (t-out-of-n; t_k-out-of-(k + 1) in SecAgg+), and seals
//!   each neighbour's two shares under a key from their c-key agreement (ChaCha20-Poly1305).
//!   The server routes the envelopes; it needs t senders (U2).
//! - **2 MaskedInputCollection.** Each client sends y_u = x_u + PRG(b_u) + Σ_v ±PRG(s_{u,v})
//!   mod 2^32 over its neighbours in U2 (+ if u < v, − otherwise; s_{u,v} from the s-key
//!   agreement through HKDF; PRG = ChaCha20). The server needs t inputs (U3) and tells each
//!   survivor who survived.
//! - **3 ConsistencyCheck — not built.** This is the honest-but-curious variant: Fig. 4 marks
//!   round 3 and the signatures as needed only against an active adversary. A server here
//!   follows the protocol; the clients still check what they can (see [`client`]).
//! - **4 Unmasking.** Each survivor sends, for every neighbour that shared with it, the share
//!   of b_v if v survived or of s_v^SK if v dropped — never both. With t answers the server
//!   reconstructs each survivor's b_u and each dropped client's s_u^SK, takes the self-masks
//!   and the dropped clients' pairwise masks away, and has Σ_{u∈U3} x_u. With fewer, or fewer
//!   than t shares of a secret it needs, the round fails with an error and no sum.
//!
//! ## Inputs
//!
//! f32 updates are clipped to [−c, c] and quantised to fixed point in Z_{2^32} with a scale
//! such that n·⌊c·scale⌋ < 2^31, so the sum of n clipped updates never wraps and decodes as a
//! signed value ([`quantise`]).
//!
//! ## Files
//!
//! [`config`] (n, m, t, the neighbourhood; its checks), [`neighbours`] (the complete graph or
//! SecAgg+'s random Harary graph), [`keys`] (X25519, HKDF, the simulated randomness),
//! [`envelope`] (ChaCha20-Poly1305), [`shamir`] (t-out-of-n over F_{2^61−1}), [`masks`]
//! (ChaCha20 expansion, wrapping sums), [`quantise`] (f32 ↔ Z_{2^32}), [`messages`] (the
//! structs and their bytes), [`client`] and [`server`] (the rounds), [`simulate`] (a round in
//! one process, timed and counted), [`bench`] (the benchmark's rounds per cohort size, with the
//! clock passed in, and its table rows), [`error`] (what stops a round), [`round_sum`] (what a
//! lab's server sees: every update or the round's sum, gathered as the protocol unmasks it),
//! [`sybil`] (the n − 1 attack's two settings: the server's own clients, the devices' minimum
//! cohort of genuine ones).

pub mod bench;
pub mod client;
pub mod config;
pub mod disaggregation;
pub mod envelope;
pub mod error;
pub mod keys;
pub mod masks;
pub mod messages;
pub mod neighbours;
pub mod quantise;
pub mod round_sum;
pub mod server;
pub mod shamir;
pub mod simulate;
pub mod sybil;

#[cfg(test)]
mod tests;

pub use config::Config;
pub use error::{Round, SecAggError};
pub use neighbours::Neighbourhood;
pub use quantise::Quantiser;
pub use round_sum::{RoundSum, Sees, protocol_sum};
pub use simulate::{Dropouts, Outcome, RoundCost, Silent, run, secure_sum};
