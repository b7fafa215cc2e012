//! A client's side of [Bonawitz] Fig. 4, round by round: a plain value that takes the server's
//! message of the previous round and returns its own (or the check that failed).
//!
//! The client masks with, and shares among, its neighbours ([`Graph::neighbours`]): everyone
//! with the complete graph, k clients in SecAgg+. Its checks are Fig. 4's, with the
//! neighbourhood in place of the cohort: enough holders for its shares (round 1), enough
//! clients that shared (round 2), enough survivors (round 4), the envelopes authentic and
//! addressed to it, and — the protocol's safety — for each peer it reveals the share of b or
//! the share of s^SK, never both: round 4 is answered once, each peer in exactly one list.

use super::config::Config;
use super::envelope::{self, Contents};
use super::error::{Round, SecAggError};
use super::keys::{KEY_BYTES, KeyPair, KeySource, Public, envelope_key, mask_seed};
use super::masks::{self, Sign};
use super::messages::{
    Addressed, AdvertiseKeys, Envelopes, KeyList, MaskedInput, OwnedShare, ShareKeys, Survivors,
    UnmaskShares,
};
use super::neighbours::Graph;
use super::shamir::{self, Share};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A neighbour's public keys, and the shared secret of the c-keys once agreed.
struct Peer {
    c_public: Public,
    s_public: Public,
    c_shared: Option<[u8; KEY_BYTES]>,
}

/// Where the client is in the protocol.
enum Stage {
    /// Made; round 0 not yet answered.
    New,
    /// Keys advertised.
    Advertised,
    /// Shares sent: its own share of b kept (its own share of s^SK is never asked for: a
    /// client asked in round 4 survived).
    Shared { own_self_mask_seed: Share },
    /// Masked input sent: the envelopes it received kept for round 4.
    Masked {
        own_self_mask_seed: Share,
        envelopes: BTreeMap<u32, Vec<u8>>,
    },
    /// Round 4 answered: it answers nothing more.
    Done,
}

/// One client of the round.
pub struct Client {
    id: u32,
    config: Config,
    graph: Arc<Graph>,
    random: KeySource,
    c: KeyPair,
    s: KeyPair,
    self_mask_seed: [u8; KEY_BYTES],
    peers: BTreeMap<u32, Peer>,
    stage: Stage,
}

impl Client {
    /// Client `id` of the round `config` (whose graph is `graph`), its key pairs and b_u drawn
    /// from `random`.
    pub fn new(id: u32, config: Config, graph: Arc<Graph>, mut random: KeySource) -> Self {
        let c = KeyPair::from_secret(random.bytes32());
        let s = KeyPair::from_secret(random.bytes32());
        let self_mask_seed = random.bytes32();
        Self {
            id,
            config,
            graph,
            random,
            c,
            s,
            self_mask_seed,
            peers: BTreeMap::new(),
            stage: Stage::New,
        }
    }

    pub fn id(&self) -> u32 {
        self.id
    }

    fn abort(&self, round: Round, problem: impl Into<String>) -> SecAggError {
        SecAggError::ClientAbort {
            round,
            client: self.id,
            problem: problem.into(),
        }
    }

    /// Round 0 (AdvertiseKeys): c_u^PK ‖ s_u^PK.
    pub fn advertise_keys(&mut self) -> Result<AdvertiseKeys, SecAggError> {
        if !matches!(self.stage, Stage::New) {
            return Err(self.abort(Round::AdvertiseKeys, "it has already advertised its keys"));
        }
        self.stage = Stage::Advertised;
        Ok(AdvertiseKeys {
            from: self.id,
            c_public: self.c.public(),
            s_public: self.s.public(),
        })
    }

    /// Round 1 (ShareKeys): b_u drawn, s_u^SK and b_u shared among the holders that
    /// advertised, each holder's two shares sealed under the c-key agreed with it.
    pub fn share_keys(&mut self, keys: &KeyList) -> Result<ShareKeys, SecAggError> {
        let round = Round::ShareKeys;
        if !matches!(self.stage, Stage::Advertised) {
            return Err(self.abort(round, "round 1 out of turn"));
        }
        let mut seen_keys = BTreeSet::from([self.c.public(), self.s.public()]);
        for k in &keys.keys {
            if !self.graph.are_neighbours(self.id, k.from) {
                return Err(self.abort(round, format!("client {} is not its neighbour", k.from)));
            }
            if !seen_keys.insert(k.c_public) || !seen_keys.insert(k.s_public) {
                return Err(self.abort(
                    round,
                    format!("client {}'s public keys repeat keys already seen", k.from),
                ));
            }
            self.peers.insert(
                k.from,
                Peer {
                    c_public: k.c_public,
                    s_public: k.s_public,
                    c_shared: None,
                },
            );
        }
        let holders: Vec<u32> = self
            .graph
            .holders(self.id)
            .into_iter()
            .filter(|v| *v == self.id || self.peers.contains_key(v))
            .collect();
        let t = self.config.share_threshold();
        if holders.len() < t {
            return Err(self.abort(
                round,
                format!(
                    "only {} holders of its shares advertised keys (itself included), fewer \
                     than the threshold t = {t}",
                    holders.len()
                ),
            ));
        }
        let xs: Vec<u64> = holders.iter().map(|&v| shamir::x_of(v)).collect();
        let mut next = || self.random.next_u64();
        let key_shares = shamir::share(&self.s.secret_bytes(), t, &xs, &mut next);
        let seed_shares = shamir::share(&self.self_mask_seed, t, &xs, &mut next);
        let mut envelopes = Vec::with_capacity(holders.len().saturating_sub(1));
        let mut own = None;
        for ((&v, mask_key), self_mask_seed) in holders.iter().zip(key_shares).zip(seed_shares) {
            if v == self.id {
                own = Some(self_mask_seed);
                continue;
            }
            let peer = self.peers.get_mut(&v).expect("holders are peers");
            let Some(shared) = self.c.agree(&peer.c_public) else {
                return Err(SecAggError::ClientAbort {
                    round,
                    client: self.id,
                    problem: format!("client {v}'s c-key is of low order"),
                });
            };
            peer.c_shared = Some(shared);
            let contents = Contents {
                from: self.id,
                to: v,
                mask_key,
                self_mask_seed,
            };
            envelopes.push(Addressed {
                peer: v,
                ciphertext: envelope::seal(&envelope_key(&shared, self.id, v), &contents),
            });
        }
        let own_self_mask_seed = own.expect("a client holds its own shares");
        self.stage = Stage::Shared { own_self_mask_seed };
        Ok(ShareKeys {
            from: self.id,
            envelopes,
        })
    }

    /// Round 2 (MaskedInputCollection): y_u = x_u + PRG(b_u) + Σ_v ±PRG(s_{u,v}) over the
    /// neighbours whose envelopes arrived (U2), mod 2^32.
    pub fn masked_input(
        &mut self,
        received: &Envelopes,
        input: &[u32],
    ) -> Result<MaskedInput, SecAggError> {
        let round = Round::MaskedInputCollection;
        let Stage::Shared { own_self_mask_seed } = self.stage else {
            return Err(self.abort(round, "round 2 out of turn"));
        };
        if input.len() != self.config.length {
            return Err(SecAggError::Length {
                round,
                client: self.id,
                got: input.len(),
                expected: self.config.length,
            });
        }
        let mut envelopes = BTreeMap::new();
        for e in &received.envelopes {
            if !self.peers.contains_key(&e.peer) {
                return Err(self.abort(
                    round,
                    format!(
                        "an envelope from client {}, which did not advertise to it",
                        e.peer
                    ),
                ));
            }
            if envelopes.insert(e.peer, e.ciphertext.clone()).is_some() {
                return Err(self.abort(round, format!("two envelopes from client {}", e.peer)));
            }
        }
        let t = self.config.share_threshold();
        if envelopes.len() + 1 < t {
            return Err(self.abort(
                round,
                format!(
                    "only {} holders of its shares are left (itself included), fewer than the \
                     threshold t = {t}",
                    envelopes.len() + 1
                ),
            ));
        }
        let mut y = input.to_vec();
        masks::apply(&mut y, &self.self_mask_seed, Sign::Plus);
        for &v in envelopes.keys() {
            let peer = &self.peers[&v];
            let Some(shared) = self.s.agree(&peer.s_public) else {
                return Err(self.abort(round, format!("client {v}'s s-key is of low order")));
            };
            masks::apply(
                &mut y,
                &mask_seed(&shared, self.id, v),
                Sign::pairwise(self.id, v),
            );
        }
        self.stage = Stage::Masked {
            own_self_mask_seed,
            envelopes,
        };
        Ok(MaskedInput { from: self.id, y })
    }

    /// Round 4 (Unmasking): for each neighbour v that shared with it (and itself), the share
    /// of b_v if v survived, of s_v^SK if it dropped. Answered once.
    pub fn unmask(&mut self, survivors: &Survivors) -> Result<UnmaskShares, SecAggError> {
        let round = Round::Unmasking;
        let Stage::Masked {
            own_self_mask_seed,
            ref envelopes,
        } = self.stage
        else {
            let problem = if matches!(self.stage, Stage::Done) {
                "it has already answered round 4 (a second answer could reveal both shares of \
                 one peer)"
            } else {
                "round 4 out of turn"
            };
            return Err(self.abort(round, problem));
        };
        let alive: BTreeSet<u32> = survivors.survivors.iter().copied().collect();
        if alive.len() != survivors.survivors.len() {
            return Err(self.abort(round, "the survivors' list repeats a client"));
        }
        if !alive.contains(&self.id) {
            return Err(self.abort(round, "the survivors' list leaves it out"));
        }
        if let Some(v) = alive
            .iter()
            .find(|&&v| v != self.id && !envelopes.contains_key(&v))
        {
            return Err(self.abort(
                round,
                format!("client {v} is listed as a survivor but never shared with it"),
            ));
        }
        let t = self.config.threshold;
        let complete = matches!(*self.graph, Graph::Complete(_));
        if survivors.cohort < t
            || survivors.cohort < alive.len()
            || (complete && survivors.cohort != alive.len())
        {
            return Err(self.abort(
                round,
                format!(
                    "the server reports {} survivors ({} listed), fewer than the threshold \
                     t = {t} or inconsistent",
                    survivors.cohort,
                    alive.len()
                ),
            ));
        }
        let mut answer = UnmaskShares {
            from: self.id,
            self_mask_seeds: vec![OwnedShare {
                owner: self.id,
                share: own_self_mask_seed,
            }],
            mask_keys: Vec::new(),
        };
        for (&v, ciphertext) in envelopes {
            let shared = self.peers[&v]
                .c_shared
                .expect("a peer that shared was sent an envelope");
            let Some(contents) = envelope::open(&envelope_key(&shared, v, self.id), ciphertext)
            else {
                return Err(self.abort(round, format!("client {v}'s envelope does not open")));
            };
            if contents.from != v || contents.to != self.id {
                return Err(self.abort(round, format!("client {v}'s envelope is misaddressed")));
            }
            if alive.contains(&v) {
                answer.self_mask_seeds.push(OwnedShare {
                    owner: v,
                    share: contents.self_mask_seed,
                });
            } else {
                answer.mask_keys.push(OwnedShare {
                    owner: v,
                    share: contents.mask_key,
                });
            }
        }
        self.stage = Stage::Done;
        Ok(answer)
    }

    /// The client's self-mask seed, for tests that play a server with more than it gets.
    #[cfg(test)]
    pub(crate) fn self_mask_seed(&self) -> [u8; KEY_BYTES] {
        self.self_mask_seed
    }
}
