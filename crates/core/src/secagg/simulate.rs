//! A whole round in one process: n [`Client`]s and a [`Server`] as plain values, the messages
//! handed from one to the other, clients falling silent where a [`Dropouts`] plan says, and
//! every party's computation timed and every message's bytes counted.
//!
//! What is simulated: the network (messages move by value, nothing is lost or late but what
//! the plan drops) and the clients' randomness (each client's keys, b_u and Shamir coefficients
//! come from its own seeded ChaCha20 stream, [`KeySource`]; a device would use its OS's). What
//! is real: every computation of Fig. 4 — key agreements, KDF, encryption, sharing, masks,
//! reconstruction — run as a deployment would run it on each party.

use super::client::Client;
use super::config::Config;
use super::error::{Round, SecAggError};
use super::keys::KeySource;
use super::messages::{MaskedInput, ShareKeys, UnmaskShares, Wire};
use super::quantise::Quantiser;
use super::server::Server;
use crate::error::ConfigError;
use crate::rng::Stream;
use std::collections::BTreeSet;

/// Which clients fall silent, and after which of their messages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dropouts {
    /// Never send anything: not in U1.
    pub before_keys: Vec<u32>,
    /// Send their keys (round 0), then nothing: in U1, not in U2, so nobody masks with them.
    pub after_keys: Vec<u32>,
    /// Send their encrypted shares (round 1), then nothing: in U2, not in U3. The others have
    /// masked with them, so the server reconstructs their s^SK to take those masks away.
    pub after_shares: Vec<u32>,
    /// Send their masked input (round 2), then nothing: in U3 (their input is in the sum), but
    /// they send no shares in round 4.
    pub after_masked_input: Vec<u32>,
}

/// After which message a client falls silent (for [`Dropouts::random`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Silent {
    BeforeKeys,
    AfterKeys,
    AfterShares,
    AfterMaskedInput,
}

impl Dropouts {
    pub fn none() -> Self {
        Self::default()
    }

    /// `count` clients of `clients`, drawn at random from `seed`, silent from `when` on.
    pub fn random(clients: usize, count: usize, when: Silent, seed: u64) -> Self {
        let mut ids: Vec<u32> = (0..clients as u32).collect();
        Stream::new(seed, "secagg dropouts").shuffle(&mut ids);
        ids.truncate(count.min(clients));
        ids.sort_unstable();
        let mut d = Self::default();
        *match when {
            Silent::BeforeKeys => &mut d.before_keys,
            Silent::AfterKeys => &mut d.after_keys,
            Silent::AfterShares => &mut d.after_shares,
            Silent::AfterMaskedInput => &mut d.after_masked_input,
        } = ids;
        d
    }

    /// The clients that send nothing in `round`.
    fn silent_in(&self, round: Round) -> BTreeSet<u32> {
        let lists: &[&Vec<u32>] = match round {
            Round::AdvertiseKeys => &[&self.before_keys],
            Round::ShareKeys => &[&self.before_keys, &self.after_keys],
            Round::MaskedInputCollection => {
                &[&self.before_keys, &self.after_keys, &self.after_shares]
            }
            Round::Unmasking => &[
                &self.before_keys,
                &self.after_keys,
                &self.after_shares,
                &self.after_masked_input,
            ],
        };
        lists.iter().flat_map(|l| l.iter().copied()).collect()
    }
}

/// One protocol round's cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RoundCost {
    pub round: Option<Round>,
    /// Clients that computed and sent in this round.
    pub clients: usize,
    /// Their computation in ms: summed, and the slowest client's.
    pub client_ms_total: f64,
    pub client_ms_max: f64,
    /// Bytes the clients sent the server: summed (= what the server received), and the most
    /// one client sent.
    pub client_sent_total: usize,
    pub client_sent_max: usize,
    /// Bytes the server sent the clients at the end of the round (what they read in the next):
    /// summed, and the most one client received.
    pub server_sent_total: usize,
    pub client_received_max: usize,
    /// Clients the server sent a message to at the end of the round.
    pub receivers: usize,
    /// The server's computation in ms.
    pub server_ms: f64,
}

impl RoundCost {
    pub fn client_ms_mean(&self) -> f64 {
        self.client_ms_total / self.clients.max(1) as f64
    }

    pub fn client_sent_mean(&self) -> f64 {
        self.client_sent_total as f64 / self.clients.max(1) as f64
    }

    pub fn client_received_mean(&self) -> f64 {
        self.server_sent_total as f64 / self.receivers.max(1) as f64
    }

    pub fn server_received(&self) -> usize {
        self.client_sent_total
    }
}

/// A finished round.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Σ x_u mod 2^32 over `included`.
    pub sum: Vec<u32>,
    /// U3: the clients whose inputs are in the sum.
    pub included: Vec<u32>,
    /// Rounds 0, 1, 2 and 4, in order.
    pub costs: Vec<RoundCost>,
}

/// Runs one round of secure aggregation on the clients' quantised `inputs` (one per client of
/// `config`), with clients falling silent as `dropouts` says; `seed` makes every client's
/// randomness; `clock` reads milliseconds (any monotonic clock; the costs are its differences).
pub fn run(
    config: &Config,
    inputs: &[Vec<u32>],
    dropouts: &Dropouts,
    seed: u64,
    clock: &dyn Fn() -> f64,
) -> Result<Outcome, SecAggError> {
    let t0 = clock();
    let mut server = Server::new(*config)?;
    let setup_ms = clock() - t0;
    if inputs.len() != config.clients {
        return Err(ConfigError::new(
            "secagg.inputs",
            format!("{} inputs for {} clients", inputs.len(), config.clients),
        )
        .into());
    }
    let graph = server.graph();
    let mut clients: Vec<Client> = Vec::with_capacity(config.clients);
    let mut costs = Vec::new();

    // Round 0: every client makes its keys; the silent ones send nothing.
    let mut cost = RoundCost {
        round: Some(Round::AdvertiseKeys),
        ..RoundCost::default()
    };
    let silent = dropouts.silent_in(Round::AdvertiseKeys);
    let mut adverts = Vec::new();
    for id in 0..config.clients as u32 {
        let t = clock();
        let mut c = Client::new(id, *config, graph.clone(), KeySource::new(seed, id));
        if !silent.contains(&id) {
            let m = c.advertise_keys()?;
            note(&mut cost, clock() - t, m.bytes());
            adverts.push(m);
        }
        clients.push(c);
    }
    let t = clock();
    let lists = server.advertise_keys(adverts)?;
    cost.server_ms = clock() - t + setup_ms;
    received(&mut cost, lists.iter().map(|(_, l)| l.bytes()));

    // Round 1.
    costs.push(std::mem::take(&mut cost));
    cost.round = Some(Round::ShareKeys);
    let silent = dropouts.silent_in(Round::ShareKeys);
    let mut shares: Vec<ShareKeys> = Vec::new();
    for (u, list) in &lists {
        if silent.contains(u) {
            continue;
        }
        let t = clock();
        let m = clients[*u as usize].share_keys(list)?;
        note(&mut cost, clock() - t, m.bytes());
        shares.push(m);
    }
    drop(lists);
    let t = clock();
    let inboxes = server.share_keys(shares)?;
    cost.server_ms = clock() - t;
    received(&mut cost, inboxes.iter().map(|(_, e)| e.bytes()));

    // Round 2.
    costs.push(std::mem::take(&mut cost));
    cost.round = Some(Round::MaskedInputCollection);
    let silent = dropouts.silent_in(Round::MaskedInputCollection);
    let mut masked: Vec<MaskedInput> = Vec::new();
    for (u, inbox) in &inboxes {
        if silent.contains(u) {
            continue;
        }
        let t = clock();
        let m = clients[*u as usize].masked_input(inbox, &inputs[*u as usize])?;
        note(&mut cost, clock() - t, m.bytes());
        masked.push(m);
    }
    drop(inboxes);
    let t = clock();
    let lists = server.masked_input(masked)?;
    cost.server_ms = clock() - t;
    received(&mut cost, lists.iter().map(|(_, s)| s.bytes()));

    // Round 4 (round 3, ConsistencyCheck, is not built: honest-but-curious variant).
    costs.push(std::mem::take(&mut cost));
    cost.round = Some(Round::Unmasking);
    let silent = dropouts.silent_in(Round::Unmasking);
    let mut answers: Vec<UnmaskShares> = Vec::new();
    for (u, survivors) in &lists {
        if silent.contains(u) {
            continue;
        }
        let t = clock();
        let m = clients[*u as usize].unmask(survivors)?;
        note(&mut cost, clock() - t, m.bytes());
        answers.push(m);
    }
    let included = server.survivors();
    let t = clock();
    let sum = server.unmask(answers)?;
    cost.server_ms = clock() - t;
    costs.push(cost);
    Ok(Outcome {
        sum,
        included,
        costs,
    })
}

fn note(cost: &mut RoundCost, ms: f64, bytes: usize) {
    cost.clients += 1;
    cost.client_ms_total += ms;
    cost.client_ms_max = cost.client_ms_max.max(ms);
    cost.client_sent_total += bytes;
    cost.client_sent_max = cost.client_sent_max.max(bytes);
}

fn received(cost: &mut RoundCost, bytes: impl Iterator<Item = usize>) {
    for b in bytes {
        cost.receivers += 1;
        cost.server_sent_total += b;
        cost.client_received_max = cost.client_received_max.max(b);
    }
}

/// The cohort's f32 updates through a round: quantised with `quantiser` (which must be made
/// for `config.clients`, so the sum cannot wrap), securely summed, and read back as floats.
/// The sum is over [`Outcome::included`] only.
pub fn secure_sum(
    config: &Config,
    quantiser: &Quantiser,
    updates: &[Vec<f32>],
    dropouts: &Dropouts,
    seed: u64,
    clock: &dyn Fn() -> f64,
) -> Result<(Vec<f32>, Outcome), SecAggError> {
    if quantiser.clients() < config.clients {
        return Err(ConfigError::new(
            "secagg.scale",
            format!(
                "the quantiser is made for {} clients, the round has {}: their sum could wrap",
                quantiser.clients(),
                config.clients
            ),
        )
        .into());
    }
    let inputs = updates
        .iter()
        .enumerate()
        .map(|(u, x)| quantiser.quantise(u as u32, x))
        .collect::<Result<Vec<_>, _>>()?;
    let outcome = run(config, &inputs, dropouts, seed, clock)?;
    Ok((quantiser.unquantise_sum(&outcome.sum), outcome))
}
