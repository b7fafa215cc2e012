//! The server's side of [Bonawitz] Fig. 4: it collects each round's messages, checks that at
//! least t clients sent one, routes what the clients send each other, and in round 4 removes
//! the masks it can account for:
//!
//! Σ_{u∈U3} x_u = Σ_{u∈U3} y_u − Σ_{u∈U3} PRG(b_u) + Σ_{u∈U3, v∈U2∖U3} ±PRG(s_{u,v})
//!
//! with b_u reconstructed for every survivor and s_v^SK for every client that shared and then
//! dropped, the pairwise masks recomputed from s_v^SK and the survivors' public s-keys. A round
//! that cannot finish (fewer than t clients in a round, fewer than t shares of a secret it
//! needs) returns an error and no sum: the running sum of masked inputs is never handed out.

use super::config::Config;
use super::envelope::CIPHERTEXT_BYTES;
use super::error::{Round, SecAggError, Secret};
use super::keys::{self, KEY_BYTES, mask_seed};
use super::masks::{self, Sign};
use super::messages::{
    Addressed, AdvertiseKeys, Envelopes, KeyList, MaskedInput, OwnedShare, ShareKeys, Survivors,
    UnmaskShares,
};
use super::neighbours::Graph;
use super::shamir::{self, Lagrange, ReconstructError, Share};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// The server of one round.
pub struct Server {
    config: Config,
    graph: Arc<Graph>,
    /// U1 and the keys they advertised.
    keys: BTreeMap<u32, AdvertiseKeys>,
    /// U2: clients that sent their encrypted shares.
    shared: BTreeSet<u32>,
    /// U3: clients that sent their masked input; `sum` is Σ y_u over them.
    survived: BTreeSet<u32>,
    sum: Vec<u32>,
    /// The round whose messages it takes next; `None` once the round is over.
    next: Option<Round>,
}

impl Server {
    /// The server of a round; the config is checked here, before round 0.
    pub fn new(config: Config) -> Result<Self, SecAggError> {
        let graph = Arc::new(config.graph()?);
        Ok(Self {
            config,
            graph,
            keys: BTreeMap::new(),
            shared: BTreeSet::new(),
            survived: BTreeSet::new(),
            sum: Vec::new(),
            next: Some(Round::AdvertiseKeys),
        })
    }

    /// The round's graph (public: every client gets it with the config).
    pub fn graph(&self) -> Arc<Graph> {
        Arc::clone(&self.graph)
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// U3 so far: the clients whose inputs are in the sum.
    pub fn survivors(&self) -> Vec<u32> {
        self.survived.iter().copied().collect()
    }

    fn turn(&mut self, round: Round) -> Result<(), SecAggError> {
        match self.next {
            Some(next) if next == round => Ok(()),
            Some(next) => Err(SecAggError::OutOfTurn {
                round,
                problem: format!("the server is at {next}"),
            }),
            None => Err(SecAggError::OutOfTurn {
                round,
                problem: "the round is over; a new one needs a new server".into(),
            }),
        }
    }

    fn enough(&self, round: Round, arrived: usize) -> Result<(), SecAggError> {
        if arrived < self.config.threshold {
            return Err(SecAggError::TooFewClients {
                round,
                arrived,
                clients: self.config.clients,
                threshold: self.config.threshold,
            });
        }
        Ok(())
    }

    /// Every sender once, each in `allowed`.
    fn senders(
        round: Round,
        from: impl Iterator<Item = u32>,
        allowed: impl Fn(u32) -> bool,
    ) -> Result<BTreeSet<u32>, SecAggError> {
        let mut seen = BTreeSet::new();
        for u in from {
            let problem = if !allowed(u) {
                "it is not in this round's set of clients"
            } else if !seen.insert(u) {
                "it sent this round's message twice"
            } else {
                continue;
            };
            return Err(SecAggError::BadMessage {
                round,
                client: u,
                problem: problem.into(),
            });
        }
        Ok(seen)
    }

    /// Round 0 (AdvertiseKeys): U1; each member's list of its neighbours' keys.
    pub fn advertise_keys(
        &mut self,
        messages: Vec<AdvertiseKeys>,
    ) -> Result<Vec<(u32, KeyList)>, SecAggError> {
        let round = Round::AdvertiseKeys;
        self.turn(round)?;
        let n = self.config.clients as u32;
        let u1 = Self::senders(round, messages.iter().map(|m| m.from), |u| u < n)?;
        self.enough(round, u1.len())?;
        self.keys = messages.into_iter().map(|m| (m.from, m)).collect();
        self.next = Some(Round::ShareKeys);
        Ok(u1
            .iter()
            .map(|&u| {
                let keys = self
                    .graph
                    .neighbours(u)
                    .into_iter()
                    .filter_map(|v| self.keys.get(&v).cloned())
                    .collect();
                (u, KeyList { keys })
            })
            .collect())
    }

    /// Round 1 (ShareKeys): U2; each member's envelopes from the other members.
    pub fn share_keys(
        &mut self,
        messages: Vec<ShareKeys>,
    ) -> Result<Vec<(u32, Envelopes)>, SecAggError> {
        let round = Round::ShareKeys;
        self.turn(round)?;
        let u2 = Self::senders(round, messages.iter().map(|m| m.from), |u| {
            self.keys.contains_key(&u)
        })?;
        self.enough(round, u2.len())?;
        let mut inbox: BTreeMap<u32, Vec<Addressed>> = u2.iter().map(|&u| (u, vec![])).collect();
        for m in messages {
            let mut to = BTreeSet::new();
            for e in m.envelopes {
                let fine = self.graph.are_neighbours(m.from, e.peer)
                    && self.keys.contains_key(&e.peer)
                    && e.ciphertext.len() == CIPHERTEXT_BYTES
                    && to.insert(e.peer);
                if !fine {
                    return Err(SecAggError::BadMessage {
                        round,
                        client: m.from,
                        problem: format!("a bad envelope for client {}", e.peer),
                    });
                }
                // Envelopes to clients that dropped out of this round go nowhere.
                if let Some(list) = inbox.get_mut(&e.peer) {
                    list.push(Addressed {
                        peer: m.from,
                        ciphertext: e.ciphertext,
                    });
                }
            }
        }
        self.shared = u2;
        self.next = Some(Round::MaskedInputCollection);
        Ok(inbox
            .into_iter()
            .map(|(u, envelopes)| (u, Envelopes { envelopes }))
            .collect())
    }

    /// Round 2 (MaskedInputCollection): U3 and Σ y_u; each survivor's list of which of its
    /// holders survived.
    pub fn masked_input(
        &mut self,
        messages: Vec<MaskedInput>,
    ) -> Result<Vec<(u32, Survivors)>, SecAggError> {
        let round = Round::MaskedInputCollection;
        self.turn(round)?;
        let u3 = Self::senders(round, messages.iter().map(|m| m.from), |u| {
            self.shared.contains(&u)
        })?;
        let m = self.config.length;
        if let Some(bad) = messages.iter().find(|x| x.y.len() != m) {
            return Err(SecAggError::Length {
                round,
                client: bad.from,
                got: bad.y.len(),
                expected: m,
            });
        }
        self.enough(round, u3.len())?;
        let mut sum = vec![0u32; m];
        for msg in &messages {
            for (s, &w) in sum.iter_mut().zip(&msg.y) {
                *s = s.wrapping_add(w);
            }
        }
        self.sum = sum;
        self.survived = u3;
        self.next = Some(Round::Unmasking);
        let cohort = self.survived.len();
        Ok(self
            .survived
            .iter()
            .map(|&u| {
                let survivors = self
                    .graph
                    .holders(u)
                    .into_iter()
                    .filter(|v| self.survived.contains(v))
                    .collect();
                (u, Survivors { survivors, cohort })
            })
            .collect())
    }

    /// Round 4 (Unmasking): the sum of the survivors' inputs, or why it cannot be had.
    pub fn unmask(&mut self, messages: Vec<UnmaskShares>) -> Result<Vec<u32>, SecAggError> {
        let round = Round::Unmasking;
        self.turn(round)?;
        let u5 = Self::senders(round, messages.iter().map(|m| m.from), |u| {
            self.survived.contains(&u)
        })?;
        self.enough(round, u5.len())?;
        // Each owner's shares, by kind; a share must come from a holder of the owner's, of the
        // kind its owner's fate calls for.
        let mut seeds: BTreeMap<u32, Vec<Share>> = BTreeMap::new();
        let mut mask_keys: BTreeMap<u32, Vec<Share>> = BTreeMap::new();
        for m in &messages {
            let holder_of =
                |owner: u32| owner == m.from || self.graph.are_neighbours(owner, m.from);
            let bad = |problem: String| SecAggError::BadMessage {
                round,
                client: m.from,
                problem,
            };
            let mut owners = BTreeSet::new();
            for &OwnedShare { owner, share } in &m.self_mask_seeds {
                if !self.survived.contains(&owner) || !holder_of(owner) || !owners.insert(owner) {
                    return Err(bad(format!("an unasked share of client {owner}'s b")));
                }
                if share.x != shamir::x_of(m.from) {
                    return Err(bad(format!("a share of client {owner}'s b at another's x")));
                }
                seeds.entry(owner).or_default().push(share);
            }
            for &OwnedShare { owner, share } in &m.mask_keys {
                let dropped = self.shared.contains(&owner) && !self.survived.contains(&owner);
                if !dropped || !holder_of(owner) || !owners.insert(owner) {
                    return Err(bad(format!("an unasked share of client {owner}'s s^SK")));
                }
                if share.x != shamir::x_of(m.from) {
                    return Err(bad(format!(
                        "a share of client {owner}'s s^SK at another's x"
                    )));
                }
                mask_keys.entry(owner).or_default().push(share);
            }
        }
        let t = self.config.share_threshold();
        let mut lagrange = LagrangeCache::default();
        let mut sum = self.sum.clone();
        for &u in &self.survived {
            let shares = seeds.remove(&u).unwrap_or_default();
            let b = lagrange.reconstruct(u, Secret::SelfMaskSeed, shares, t)?;
            masks::apply(&mut sum, &b, Sign::Minus);
        }
        let dropped: Vec<u32> = self.shared.difference(&self.survived).copied().collect();
        for &v in &dropped {
            let shares = mask_keys.remove(&v).unwrap_or_default();
            let secret = lagrange.reconstruct(v, Secret::MaskKey, shares, t)?;
            for u in self.graph.neighbours(v) {
                if !self.survived.contains(&u) {
                    continue;
                }
                // u added sign(u, v)·PRG(s_{u,v}); take it away.
                let shared = keys::agree(secret, &self.keys[&u].s_public).ok_or_else(|| {
                    SecAggError::BadMessage {
                        round,
                        client: u,
                        problem: "its s-key is of low order".into(),
                    }
                })?;
                masks::apply(
                    &mut sum,
                    &mask_seed(&shared, u, v),
                    Sign::pairwise(u, v).flip(),
                );
            }
        }
        self.next = None;
        Ok(sum)
    }
}

/// Lagrange weights by set of holders: with the complete graph every secret is reconstructed
/// from the same holders' shares, so the weights are computed once.
#[derive(Default)]
struct LagrangeCache(HashMap<Vec<u64>, Lagrange>);

impl LagrangeCache {
    fn reconstruct(
        &mut self,
        owner: u32,
        secret: Secret,
        mut shares: Vec<Share>,
        t: usize,
    ) -> Result<[u8; KEY_BYTES], SecAggError> {
        if shares.len() < t {
            return Err(SecAggError::CannotReconstruct {
                owner,
                secret,
                shares: shares.len(),
                threshold: t,
            });
        }
        shares.sort_unstable_by_key(|s| s.x);
        shares.truncate(t);
        let xs: Vec<u64> = shares.iter().map(|s| s.x).collect();
        let disagree = || SecAggError::SharesDisagree { owner, secret };
        let lagrange = match self.0.entry(xs) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let l = Lagrange::new(e.key(), 0).map_err(|_: ReconstructError| disagree())?;
                e.insert(l)
            }
        };
        shamir::from_limbs(&lagrange.combine(shares.iter().map(|s| &s.y))).ok_or_else(disagree)
    }
}
