//! Secure aggregation in the Mobility lab's federation (issue 39 §2): the server receives only
//! the sum of the round's updates and attacks the mean it unmasks.
//!
//! **What a phone sends.** Its one SGD step's gradient on its window t ([002] Algorithm 1, after
//! its defence), every phone the same weight (one window each, FedAvg's equal weights), clipped
//! to ±[`GRADIENT_CLIP`] a coordinate and quantised at the finest scale that cannot wrap for the
//! round's phones ([`RoundSum`]). The server unmasks Σ g_k and divides by the phones, so the
//! model moves as without secure aggregation (to the quantisation step), and the only gradient
//! it has to invert is that mean.
//!
//! **The protocol.** A round of up to [`PROTOCOL_CLIENTS`] phones — the target and up to 19
//! co-participants — runs the core's protocol for real ([Bonawitz] Fig. 4: keys, shares,
//! masked inputs, unmasking), as the Signal map does: 11 phones and the LSTM's 1,314 words take
//! about 0.1 s a round natively. A larger round — every user training (100 by default) —
//! would take 1.8 s a round natively (SecAgg+ 0.4 s; `whereabouts bench --secagg --clients
//! 11,100 --length 1316 --dropout 0`), 90 s over 50 rounds, too long for the page: its words
//! are summed as [`RoundSum`] adds them, which `secure_tests.rs` checks is word for word the
//! protocol's sum.

use serde::{Deserialize, Serialize};
use whereabouts_core::rng::Stream;
use whereabouts_core::secagg::{RoundSum, protocol_sum};

/// The clip of one gradient coordinate: far above what a window's gradient reaches in the lab's
/// runs, so nothing is clipped in practice (each round counts it: [`SecureRound::clipped`]).
pub const GRADIENT_CLIP: f64 = 64.0;

/// The largest round that runs the protocol itself; above it the words are summed directly.
pub const PROTOCOL_CLIENTS: usize = 20;

/// What a round under secure aggregation reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SecureRound {
    /// Phones in the sum (the target included).
    pub clients: usize,
    /// Whether the protocol ran (else the same words were summed directly).
    pub protocol: bool,
    /// Coordinates clipped over the round's phones.
    pub clipped: usize,
    /// The most one coordinate of the mean may move in the round trip: clients/(2·scale)/clients.
    pub step: f64,
}

/// The mean of the round's `gradients` as the server unmasks it: their sum through secure
/// aggregation (round `t`'s keys from `seed`), divided by the phones.
pub fn mean_of_sum(
    gradients: &[Vec<f32>],
    t: usize,
    seed: u64,
) -> Result<(Vec<f32>, SecureRound), String> {
    let (sum, info) = sum_of(gradients, t, seed)?;
    let n = info.clients as f64;
    Ok((sum.iter().map(|s| (s / n) as f32).collect(), info))
}

/// The sum of the round's `words` as the server unmasks it (round `t`'s keys from `seed`):
/// each clipped to ±[`GRADIENT_CLIP`] a coordinate and quantised for the round's phones, summed
/// by the protocol (up to [`PROTOCOL_CLIENTS`] phones) or as [`RoundSum`] adds them, read back.
/// Under `sees = dp` the words are the phones' clipped (and, distributed, noised) gradients
/// (`central_dp.rs`); the round counts the coordinates the ±64 clip cut.
pub fn sum_of(words: &[Vec<f32>], t: usize, seed: u64) -> Result<(Vec<f64>, SecureRound), String> {
    let n = words.len();
    let len = words.first().map_or(0, Vec::len);
    let fail = |e: &dyn std::fmt::Display| format!("round {t}: secure aggregation: {e}");
    let mut sum = RoundSum::new(n, GRADIENT_CLIP, len).map_err(|e| fail(&e))?;
    let encoded: Vec<Vec<u32>> = words
        .iter()
        .enumerate()
        .map(|(k, g)| {
            let g: Vec<f64> = g.iter().map(|&v| f64::from(v)).collect();
            sum.encode(k as u32, &g)
        })
        .collect::<Result<_, _>>()
        .map_err(|e| fail(&e))?;
    let protocol = n <= PROTOCOL_CLIENTS;
    let total = if protocol {
        let keys = Stream::new(seed, &format!("secagg-round-{t}")).next_u64();
        protocol_sum(&encoded, keys).map_err(|e| fail(&e))?
    } else {
        for w in &encoded {
            sum.add_words(w).map_err(|e| fail(&e))?;
        }
        sum.words().to_vec()
    };
    let q = sum.quantiser();
    let total = total
        .iter()
        .map(|&w| f64::from(w as i32) / q.scale())
        .collect();
    let clipped = words
        .iter()
        .flatten()
        .filter(|v| f64::from(v.abs()) > GRADIENT_CLIP)
        .count();
    Ok((
        total,
        SecureRound {
            clients: n,
            protocol,
            clipped,
            step: q.step_error(),
        },
    ))
}
