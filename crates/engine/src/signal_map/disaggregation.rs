//! Gradient disaggregation on the Signal map (issue 39 §2): the server sees only each round's
//! secure sum, over many rounds with random subsets of the users, and knows how often each
//! user took part per window of rounds; it recovers the participation matrix and every user's
//! update from the sums (the core's [`whereabouts_core::secagg::disaggregation`], Lam et al.,
//! ICML 2021), then runs Lemma 1 on your recovered update.
//!
//! It needs what the paper needs: at least as many rounds as users, a participation matrix of
//! full column rank, and updates that do not change between rounds. Here they do not change
//! when the server holds the model fixed and each phone trains on the same data every round
//! (`drift = false`: the day of your first round, FedSGD, so every update is the same); they
//! drift when the model moves with FedAvg and each round is a new day (`drift = true`).

use crate::signal_map::attack::{analytic, observed_gradient};
use crate::signal_map::fl::AllData;
use crate::signal_map::lab::Lab;
use crate::signal_map::secure::{self, Contribution};
use crate::signal_map::trace::centroid;
use serde::{Deserialize, Serialize};
use whereabouts_core::rng::Stream;
use whereabouts_core::secagg::disaggregation::{self as core, Count};

/// What the server does over the rounds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub rounds: usize,
    /// Rounds in a window of the users' participation counts.
    pub window: usize,
    /// The model moves with FedAvg and each round is a new day (else: fixed model, one day).
    pub drift: bool,
}

/// What it got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub users: usize,
    pub rounds: usize,
    /// Whether P came back exactly.
    pub participation_exact: bool,
    /// max |Δ̂ − Δ| over your update's coordinates, against max |Δ|.
    pub relative_error: f64,
    /// Lemma 1's distance to your centroid on the recovered update, on your own update, and
    /// on the first round's aggregate (the blend), m.
    pub lemma1_recovered_m: Option<f64>,
    pub lemma1_own_m: Option<f64>,
    pub lemma1_sum_m: Option<f64>,
}

/// Runs `plan` on `lab`'s world and federation (its target is "you"); `Err` says why the server
/// could not disaggregate (too few rounds, a rank-deficient P, no fitting participation vector).
pub fn run(lab: &Lab, plan: Plan, seed: u64) -> Result<Outcome, String> {
    let data = lab.data();
    let federation = lab.federation();
    let me = lab.config().target;
    let day = (0..data.rounds())
        .find(|&t| !data.local_data(me, t, false).is_empty())
        .ok_or("you have no fixes in any round")?;
    let users: Vec<u32> = lab
        .users()
        .iter()
        .copied()
        .filter(|&u| !data.local_data(u, day, false).is_empty())
        .collect();
    let n = users.len();
    let mut s = Stream::new(seed, "disaggregation-participation");
    let mut w = lab.initial().to_vec();
    let mut p: Vec<Vec<bool>> = Vec::with_capacity(plan.rounds);
    let mut sums: Vec<Vec<f64>> = Vec::with_capacity(plan.rounds);
    let mut own: Option<(Vec<f32>, Vec<f32>)> = None;
    let mut blend: Option<Vec<f32>> = None;
    for r in 0..plan.rounds {
        let t = if plan.drift {
            (day + r) % data.rounds()
        } else {
            day
        };
        let mut row: Vec<bool> = (0..n).map(|_| s.uniform() < 0.5).collect();
        if !row.iter().any(|&x| x) {
            row[s.next_u64() as usize % n] = true;
        }
        let mut contributions = Vec::new();
        for (i, &u) in users.iter().enumerate() {
            if !row[i] {
                continue;
            }
            match federation
                .local_update(data, u, t, &w, &AllData)
                .map_err(|(u, e)| format!("round {r}, user {u}: {e}"))?
            {
                Some(update) => {
                    let c = Contribution::of(&update, &w);
                    if u == me && own.is_none() {
                        own = Some((w.clone(), c.delta.clone()));
                    }
                    contributions.push(c);
                }
                // No data that day: the user did not take part.
                None => row[i] = false,
            }
        }
        let (sum, weight) = if contributions.is_empty() {
            (vec![0.0; w.len()], 0)
        } else {
            let round = secure::aggregate(&contributions, Vec::new(), r, seed)?;
            round.genuine.ok_or("a round with no weight")?
        };
        let mut total: Vec<f64> = sum.iter().map(|&x| f64::from(x) * weight as f64).collect();
        total.push(weight as f64);
        if blend.is_none() && row[users.iter().position(|&u| u == me).unwrap_or(0)] {
            blend = Some(sum.clone());
        }
        if plan.drift && weight > 0 {
            for (a, d) in w.iter_mut().zip(&sum) {
                *a += d;
            }
        }
        p.push(row);
        sums.push(total);
    }
    core::check(&sums, n).map_err(|e| e.to_string())?;
    let counts: Vec<Vec<Count>> = core::counts(&p, n, plan.window);
    let found = core::participation(&sums, &counts).map_err(|e| e.to_string())?;
    let updates = core::updates(&found, &sums).map_err(|e| e.to_string())?;
    let mine = users
        .iter()
        .position(|&u| u == me)
        .ok_or("you took no part")?;
    let x = &updates[mine];
    let (before, delta) = own.ok_or("you were never in a round")?;
    let weight = x[x.len() - 1];
    let recovered: Vec<f32> = x[..x.len() - 1]
        .iter()
        .map(|v| (v / weight) as f32)
        .collect();
    let scale = delta.iter().fold(0.0f32, |m, d| m.max(d.abs()));
    let gap = recovered
        .iter()
        .zip(&delta)
        .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
    let truth = centroid(data.local_data(me, day, false)).ok_or("no fixes")?;
    let lr = federation.config.local.learning_rate;
    let lemma1 = |d: &[f32]| {
        let after: Vec<f32> = before.iter().zip(d).map(|(a, b)| a + b).collect();
        analytic::reconstruct(
            &federation.spec,
            &observed_gradient(&before, &after, lr),
            &data.standardizer,
        )
        .map(|p| p.distance(&truth))
    };
    Ok(Outcome {
        users: n,
        rounds: plan.rounds,
        participation_exact: found == p,
        relative_error: f64::from(gap / scale.max(f32::MIN_POSITIVE)),
        lemma1_recovered_m: lemma1(&recovered),
        lemma1_own_m: lemma1(&delta),
        lemma1_sum_m: blend.as_deref().and_then(lemma1),
    })
}

#[cfg(test)]
mod tests;
