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
//!
//! **The n − 1 (Sybil) attack** (the Signal map's, `signal_map/secure.rs`; the settings are the
//! core's, [`whereabouts_core::secagg::sybil`]): a server that picks the round's phones puts
//! the target in with as few genuine co-participants as the phones accept (`min_genuine` − 1,
//! drawn among the round's trainers: [`cohort`]) and `sybils` phones of its own, each a real
//! client of the sum whose gradient it knows because it made the window ([`sybil_gradient`]).
//! It subtracts their words from the unmasked sum in Z_2^32, exactly ([`mean_less_known`]),
//! divides by the genuine phones it let in, and inverts that: with no minimum, the target's own
//! gradient to the quantisation, so ST-GIA does what it does on every update; with a minimum of
//! k genuine phones, the mean of k, the blend again. The model moves by the genuine phones'
//! mean (the server leaves its own gradients out: it knows them). Under `sees = dp` the server
//! samples honestly (DP-FedAvg's Poisson sample); the Sybil server is `sees = sum`'s.

use super::lstm::{self, INPUT, OUTPUT, Window};
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
    /// Genuine phones in the sum (the target included).
    pub clients: usize,
    /// The server's own phones (Sybils) in the sum, whose words it subtracted again (0: an
    /// honest server).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sybils: usize,
    /// Whether the protocol ran (else the same words were summed directly).
    pub protocol: bool,
    /// Coordinates clipped over the round's genuine phones.
    pub clipped: usize,
    /// The most one coordinate of the mean may move in the round trip: clients/(2·scale)/clients.
    pub step: f64,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Who trains and sends in round `t` under `sees = sum`, of the round's `trainers` (user 0 the
/// target): every one of them for an honest server (`sybils` = 0); for a Sybil server the
/// target and `min_genuine` − 1 others drawn at random among them, in order.
pub fn cohort(
    sybils: usize,
    min_genuine: usize,
    trainers: usize,
    t: usize,
    seed: u64,
) -> Vec<usize> {
    if sybils == 0 {
        return (0..trainers).collect();
    }
    let mut others: Vec<usize> = (1..trainers).collect();
    Stream::new(seed, &format!("sybil-round-{t}")).shuffle(&mut others);
    others.truncate(min_genuine.saturating_sub(1));
    let mut genuine = vec![0];
    genuine.extend(others);
    genuine.sort_unstable();
    genuine
}

/// Sybil `j`'s gradient in round `t`: the server's own phone takes the phones' one step on a
/// window it made up (nine positions uniform over the normalised square, the last the label),
/// at the round's weights `params`, so the server knows it exactly.
pub fn sybil_gradient(params: &[f32], t: usize, j: usize, seed: u64) -> Vec<f32> {
    let mut s = Stream::new(seed, &format!("sybil-round-{t}-client-{j}"));
    let mut point = || -> [f32; INPUT] { std::array::from_fn(|_| s.range(0.0, 1.0) as f32) };
    let window: Window<f32> = std::array::from_fn(|_| point());
    let label: [f32; OUTPUT] = point();
    lstm::loss_and_gradient(params, &window, &label).1
}

/// The mean of the round's `gradients` as the server unmasks it: their sum through secure
/// aggregation (round `t`'s keys from `seed`), divided by the phones.
pub fn mean_of_sum(
    gradients: &[Vec<f32>],
    t: usize,
    seed: u64,
) -> Result<(Vec<f32>, SecureRound), String> {
    mean_less_known(gradients, 0, t, seed)
}

/// The genuine phones' mean as a Sybil server gets it: the round's `gradients` — the genuine
/// phones' first, then the last `known` the server's own — summed through secure aggregation,
/// the server's own words subtracted from the unmasked sum, divided by the genuine phones.
pub fn mean_less_known(
    gradients: &[Vec<f32>],
    known: usize,
    t: usize,
    seed: u64,
) -> Result<(Vec<f32>, SecureRound), String> {
    let (sum, info) = sum_less_known(gradients, known, t, seed)?;
    let n = info.clients as f64;
    Ok((sum.iter().map(|s| (s / n) as f32).collect(), info))
}

/// The sum of the round's `words` as the server unmasks it (round `t`'s keys from `seed`):
/// each clipped to ±[`GRADIENT_CLIP`] a coordinate and quantised for the round's phones, summed
/// by the protocol (up to [`PROTOCOL_CLIENTS`] phones) or as [`RoundSum`] adds them, read back.
/// Under `sees = dp` the words are the phones' clipped (and, distributed, noised) gradients
/// (`central_dp.rs`); the round counts the coordinates the ±64 clip cut.
pub fn sum_of(words: &[Vec<f32>], t: usize, seed: u64) -> Result<(Vec<f64>, SecureRound), String> {
    sum_less_known(words, 0, t, seed)
}

/// [`sum_of`] with the last `known` of `words` the server's own: all of them go through the
/// secure sum, quantised at the scale for the whole round, and the server takes its own words
/// away from the unmasked sum (wrapping, in Z_2^32: exactly) before reading it back.
pub fn sum_less_known(
    words: &[Vec<f32>],
    known: usize,
    t: usize,
    seed: u64,
) -> Result<(Vec<f64>, SecureRound), String> {
    let n = words.len();
    let genuine = n.saturating_sub(known);
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
    let mut total = if protocol {
        let keys = Stream::new(seed, &format!("secagg-round-{t}")).next_u64();
        protocol_sum(&encoded, keys).map_err(|e| fail(&e))?
    } else {
        for w in &encoded {
            sum.add_words(w).map_err(|e| fail(&e))?;
        }
        sum.words().to_vec()
    };
    for own in &encoded[genuine..] {
        for (a, w) in total.iter_mut().zip(own) {
            *a = a.wrapping_sub(*w);
        }
    }
    let q = sum.quantiser();
    let total = total
        .iter()
        .map(|&w| f64::from(w as i32) / q.scale())
        .collect();
    let clipped = words[..genuine]
        .iter()
        .flatten()
        .filter(|v| f64::from(v.abs()) > GRADIENT_CLIP)
        .count();
    Ok((
        total,
        SecureRound {
            clients: genuine,
            sybils: n - genuine,
            protocol,
            clipped,
            step: q.step_error(),
        },
    ))
}
