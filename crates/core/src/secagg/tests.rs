//! The protocol's evidence: exact sums with and without dropouts (SecAgg and SecAgg+), no sum
//! past n − t dropouts, a masked input that looks uniform, a server short of shares that
//! cannot unmask, and the refusals.

use super::client::Client;
use super::config::Config;
use super::error::{Round, SecAggError, Secret};
use super::keys::KeySource;
use super::masks::{self, Sign};
use super::messages::{MaskedInput, Survivors, UnmaskShares, Wire};
use super::neighbours::Neighbourhood;
use super::quantise::{Quantiser, wrapping_sum};
use super::server::Server;
use super::shamir::{self, LIMBS, Share};
use super::simulate::{Dropouts, run, secure_sum};
use crate::rng::Stream;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn no_clock() -> f64 {
    0.0
}

/// `n` updates of `m` coordinates in (−1.5, 1.5), clipped to ±1 and quantised for `n`.
fn quantised_inputs(n: usize, m: usize, seed: u64) -> (Quantiser, Vec<Vec<f32>>, Vec<Vec<u32>>) {
    let q = Quantiser::for_cohort(n, 1.0).unwrap();
    let mut s = Stream::new(seed, "secagg test inputs");
    let updates: Vec<Vec<f32>> = (0..n)
        .map(|_| (0..m).map(|_| s.range(-1.5, 1.5) as f32).collect())
        .collect();
    let words = updates
        .iter()
        .enumerate()
        .map(|(u, x)| q.quantise(u as u32, x).unwrap())
        .collect();
    (q, updates, words)
}

fn plus(n: usize, m: usize, degree: usize, share_threshold: usize) -> Config {
    Config {
        neighbourhood: Neighbourhood::Harary {
            degree,
            share_threshold,
            seed: 11,
        },
        ..Config::secagg(n, m)
    }
}

/// Both protocols: [Bonawitz]'s on n = 12 (t = 7) and SecAgg+ on n = 20 with k = 6 (shares
/// 4-out-of-7), so a neighbourhood is a third of the cohort and the graph is really sparse.
fn configs(m: usize) -> Vec<(&'static str, Config)> {
    vec![
        ("SecAgg", Config::secagg(12, m)),
        ("SecAgg+", plus(20, m, 6, 4)),
    ]
}

fn expected_sum(inputs: &[Vec<u32>], m: usize, included: &[u32]) -> Vec<u32> {
    wrapping_sum(m, included.iter().map(|&u| inputs[u as usize].as_slice()))
}

#[test]
fn the_unmasked_sum_is_the_plain_wrapping_sum_without_dropouts() {
    let m = 257;
    for (name, config) in configs(m) {
        let n = config.clients;
        let (q, updates, inputs) = quantised_inputs(n, m, 1);
        let out = run(&config, &inputs, &Dropouts::none(), 5, &no_clock).unwrap();
        assert_eq!(out.included, (0..n as u32).collect::<Vec<_>>(), "{name}");
        assert_eq!(out.sum, expected_sum(&inputs, m, &out.included), "{name}");
        // The same through the f32 path, within the quantiser's step per client.
        let (sum, _) = secure_sum(&config, &q, &updates, &Dropouts::none(), 5, &no_clock).unwrap();
        for (i, &s) in sum.iter().enumerate() {
            let plain: f32 = updates.iter().map(|u| u[i].clamp(-1.0, 1.0)).sum();
            assert!(
                f64::from((s - plain).abs()) <= n as f64 * q.step_error() + 1e-5,
                "{name} coordinate {i}: {s} vs {plain}"
            );
        }
    }
}

#[test]
fn the_sum_is_exact_with_dropouts_below_the_threshold() {
    let m = 100;
    for (name, config) in configs(m) {
        let n = config.clients;
        let (_, _, inputs) = quantised_inputs(n, m, 2);
        let plans = [
            (
                "after keys",
                Dropouts {
                    after_keys: vec![1, 5, 8],
                    ..Dropouts::none()
                },
            ),
            (
                "after shares",
                Dropouts {
                    after_shares: vec![0, 4, 11],
                    ..Dropouts::none()
                },
            ),
            (
                "after masked input",
                Dropouts {
                    after_masked_input: vec![2, 3, 9],
                    ..Dropouts::none()
                },
            ),
            (
                "one at each stage",
                Dropouts {
                    before_keys: vec![],
                    after_keys: vec![7],
                    after_shares: vec![3],
                    after_masked_input: vec![10],
                },
            ),
        ];
        for (what, plan) in plans {
            let out = run(&config, &inputs, &plan, 6, &no_clock)
                .unwrap_or_else(|e| panic!("{name}, dropped {what}: {e}"));
            let gone: Vec<u32> = [&plan.after_keys, &plan.after_shares]
                .into_iter()
                .flatten()
                .copied()
                .collect();
            let want: Vec<u32> = (0..n as u32).filter(|u| !gone.contains(u)).collect();
            assert_eq!(out.included, want, "{name}, dropped {what}");
            assert_eq!(
                out.sum,
                expected_sum(&inputs, m, &want),
                "{name}, dropped {what}"
            );
        }
    }
    // Full SecAgg at its limit: n − t = 5 of 12 drop after sharing.
    let config = Config::secagg(12, m);
    let (_, _, inputs) = quantised_inputs(12, m, 3);
    let plan = Dropouts {
        after_shares: vec![0, 2, 4, 6, 8],
        ..Dropouts::none()
    };
    let out = run(&config, &inputs, &plan, 7, &no_clock).unwrap();
    assert_eq!(out.sum, expected_sum(&inputs, m, &out.included));
    assert_eq!(out.included.len(), 7);
}

#[test]
fn more_than_n_minus_t_dropouts_fail_the_round_with_no_sum() {
    let m = 16;
    let config = Config::secagg(10, m);
    assert_eq!(config.threshold, 6);
    let (_, _, inputs) = quantised_inputs(10, m, 4);
    let cases = [
        (
            Dropouts {
                before_keys: vec![0, 1, 2, 3, 4],
                ..Dropouts::none()
            },
            Round::AdvertiseKeys,
        ),
        (
            Dropouts {
                after_keys: vec![0, 1, 2, 3, 4],
                ..Dropouts::none()
            },
            Round::ShareKeys,
        ),
        (
            Dropouts {
                after_shares: vec![5, 6, 7, 8, 9],
                ..Dropouts::none()
            },
            Round::MaskedInputCollection,
        ),
        (
            Dropouts {
                after_masked_input: vec![1, 3, 5, 7, 9],
                ..Dropouts::none()
            },
            Round::Unmasking,
        ),
        (
            Dropouts {
                after_keys: vec![0, 1],
                after_shares: vec![2, 3],
                after_masked_input: vec![4],
                ..Dropouts::none()
            },
            Round::Unmasking,
        ),
    ];
    for (plan, round) in cases {
        let e = run(&config, &inputs, &plan, 8, &no_clock).unwrap_err();
        assert_eq!(
            e,
            SecAggError::TooFewClients {
                round,
                arrived: 5,
                clients: 10,
                threshold: 6
            },
            "{plan:?}"
        );
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("round {} (", round.number())),
            "{text}"
        );
        assert!(text.contains("only 5 of the 10 clients"), "{text}");
        assert!(text.contains("at most n − t = 4 may"), "{text}");
        assert!(text.contains("no sum"), "{text}");
    }
    // SecAgg+ fails the same way.
    let config = plus(20, m, 6, 4);
    let (_, _, inputs) = quantised_inputs(20, m, 5);
    let plan = Dropouts {
        after_masked_input: (0..10).collect(),
        ..Dropouts::none()
    };
    let e = run(&config, &inputs, &plan, 9, &no_clock).unwrap_err();
    assert_eq!(
        e,
        SecAggError::TooFewClients {
            round: Round::Unmasking,
            arrived: 10,
            clients: 20,
            threshold: 11
        }
    );
}

/// SecAgg+ also fails when one neighbourhood loses too many holders, even if the cohort as a
/// whole is above t: the error names the client whose secret cannot be had.
#[test]
fn secagg_plus_needs_enough_holders_in_each_neighbourhood() {
    let m = 8;
    let config = plus(20, m, 6, 4);
    let graph = config.graph().unwrap();
    let (_, _, inputs) = quantised_inputs(20, m, 6);
    // Client 0 survives but four of its six neighbours do not answer round 4: it has 3 holders
    // left (itself and two neighbours), fewer than t_k = 4.
    let nb = graph.neighbours(0);
    let plan = Dropouts {
        after_masked_input: nb[..4].to_vec(),
        ..Dropouts::none()
    };
    let e = run(&config, &inputs, &plan, 10, &no_clock).unwrap_err();
    assert_eq!(
        e,
        SecAggError::CannotReconstruct {
            owner: 0,
            secret: Secret::SelfMaskSeed,
            shares: 3,
            threshold: 4
        },
        "{e}"
    );
}

/// χ² of the top 4 bits of `words` against 16 equal bins.
fn chi_square_top4(words: &[u32]) -> f64 {
    let mut bins = [0usize; 16];
    for &w in words {
        bins[(w >> 28) as usize] += 1;
    }
    let expected = words.len() as f64 / 16.0;
    bins.iter()
        .map(|&o| (o as f64 - expected).powi(2) / expected)
        .sum()
}

/// χ²(15) at p = 0.001: a uniform vector exceeds it one time in a thousand.
const CHI2_15_P001: f64 = 37.697;

/// Rounds 0–2 by hand: the server, the clients, the masked inputs and the survivors' lists.
struct Stepped {
    server: Server,
    clients: Vec<Client>,
    masked: Vec<MaskedInput>,
    lists: Vec<(u32, Survivors)>,
}

fn through_round_2(config: Config, inputs: &[Vec<u32>], seed: u64) -> Stepped {
    let mut server = Server::new(config).unwrap();
    let graph = server.graph();
    let mut clients: Vec<Client> = (0..config.clients as u32)
        .map(|u| Client::new(u, config, graph.clone(), KeySource::new(seed, u)))
        .collect();
    let adverts = clients
        .iter_mut()
        .map(|c| c.advertise_keys().unwrap())
        .collect();
    let lists = server.advertise_keys(adverts).unwrap();
    let shares = lists
        .iter()
        .map(|(u, l)| clients[*u as usize].share_keys(l).unwrap())
        .collect();
    let inboxes = server.share_keys(shares).unwrap();
    let masked: Vec<MaskedInput> = inboxes
        .iter()
        .map(|(u, e)| {
            clients[*u as usize]
                .masked_input(e, &inputs[*u as usize])
                .unwrap()
        })
        .collect();
    let lists = server.masked_input(masked.clone()).unwrap();
    Stepped {
        server,
        clients,
        masked,
        lists,
    }
}

#[test]
fn a_masked_input_is_statistically_uniform_even_for_an_input_of_zeros() {
    let m = 4096;
    for (name, config) in [
        ("SecAgg", Config::secagg(5, m)),
        ("SecAgg+", plus(12, m, 4, 3)),
    ] {
        let n = config.clients;
        let (_, _, mut inputs) = quantised_inputs(n, m, 7);
        inputs[0] = vec![0; m];
        // Client 1's input: one small value, far from uniform (its control below).
        inputs[1] = vec![12_345; m];
        let stepped = through_round_2(config, &inputs, 12);
        for u in [0usize, 1, 2] {
            let chi2 = chi_square_top4(&stepped.masked[u].y);
            assert!(
                chi2 < CHI2_15_P001,
                "{name}: client {u}'s masked input χ² = {chi2}"
            );
            // The input itself is nowhere near uniform (the test can tell).
            let raw = chi_square_top4(&inputs[u]);
            assert!(
                raw > 100.0 * CHI2_15_P001,
                "{name}: client {u}'s raw χ² = {raw}"
            );
        }
    }
}

#[test]
fn a_server_short_of_one_clients_shares_cannot_unmask() {
    let m = 64;
    let config = Config::secagg(7, m);
    let t = config.threshold;
    assert_eq!(t, 4);
    let (_, _, inputs) = quantised_inputs(7, m, 8);
    let Stepped {
        mut server,
        mut clients,
        masked,
        lists,
    } = through_round_2(config, &inputs, 13);
    let mut answers: Vec<UnmaskShares> = lists
        .iter()
        .map(|(u, s)| clients[*u as usize].unmask(s).unwrap())
        .collect();
    // Client 3's b-shares are lost on the way from all but t − 1 holders.
    let victim = 3u32;
    let mut kept = 0;
    for a in &mut answers {
        a.self_mask_seeds.retain(|s| {
            if s.owner != victim {
                return true;
            }
            kept += 1;
            kept < t
        });
    }
    let known: Vec<Share> = answers
        .iter()
        .flat_map(|a| a.self_mask_seeds.iter())
        .filter(|s| s.owner == victim)
        .map(|s| s.share)
        .collect();
    assert_eq!(known.len(), t - 1);
    // The code path says so, and gives no sum.
    let e = server.unmask(answers).unwrap_err();
    assert_eq!(
        e,
        SecAggError::CannotReconstruct {
            owner: victim,
            secret: Secret::SelfMaskSeed,
            shares: t - 1,
            threshold: t
        }
    );
    assert!(
        e.to_string()
            .contains("cannot reconstruct client 3's self-mask seed b")
    );
    // Nor could a server guess it: t − 1 shares are consistent with any seed, and every other
    // seed unmasks to something that is not the sum. Grant it every other client's true b.
    let sum_y = wrapping_sum(m, masked.iter().map(|x| x.y.as_slice()));
    let true_sum = wrapping_sum(m, inputs.iter().map(Vec::as_slice));
    let unmask_with = |b3: &[u8; 32]| {
        let mut s = sum_y.clone();
        for c in &clients {
            let b = if c.id() == victim {
                *b3
            } else {
                c.self_mask_seed()
            };
            masks::apply(&mut s, &b, Sign::Minus);
        }
        s
    };
    assert_eq!(unmask_with(&clients[3].self_mask_seed()), true_sum);
    let guess = [0x5au8; 32];
    assert_ne!(unmask_with(&guess), true_sum);
    // … and the guess fits the t − 1 shares the server holds as well as the true seed does:
    // a degree t − 1 polynomial through (0, guess) and them exists, and reconstructs to it.
    let mut xs = vec![0u64];
    xs.extend(known.iter().map(|s| s.x));
    let mut ys = vec![shamir::to_limbs(&guess)];
    ys.extend(known.iter().map(|s| s.y));
    let x_t = shamir::x_of(6);
    assert!(!xs.contains(&x_t));
    let mut y_t = [0u64; LIMBS];
    for (i, (&xi, yi)) in xs.iter().zip(&ys).enumerate() {
        let (mut num, mut den) = (1, 1);
        for (j, &xj) in xs.iter().enumerate() {
            if i != j {
                num = shamir::mul(num, shamir::sub(x_t, xj));
                den = shamir::mul(den, shamir::sub(xi, xj));
            }
        }
        let w = shamir::mul(num, shamir::inv(den));
        for (o, &v) in y_t.iter_mut().zip(yi) {
            *o = shamir::add(*o, shamir::mul(w, v));
        }
    }
    let mut fitted = known.clone();
    fitted.push(Share { x: x_t, y: y_t });
    assert_eq!(shamir::reconstruct(&fitted, t), Ok(guess));
    // The clients answered once; a second request is refused.
    let again = clients[0].unmask(&lists[0].1).unwrap_err();
    assert!(
        again.to_string().contains("already answered round 4"),
        "{again}"
    );
}

#[test]
fn mismatched_lengths_and_bad_settings_are_refused_by_name() {
    let m = 10;
    let config = Config::secagg(6, m);
    let (_, _, mut inputs) = quantised_inputs(6, m, 9);
    inputs[4].pop();
    let e = run(&config, &inputs, &Dropouts::none(), 1, &no_clock).unwrap_err();
    assert_eq!(
        e,
        SecAggError::Length {
            round: Round::MaskedInputCollection,
            client: 4,
            got: 9,
            expected: 10
        }
    );
    assert_eq!(
        e.to_string(),
        "round 2 (MaskedInputCollection): client 4's vector has 9 coordinates, the round's has 10"
    );
    // Too few inputs for the cohort.
    let e = run(&config, &inputs[..5], &Dropouts::none(), 1, &no_clock).unwrap_err();
    assert!(e.to_string().contains("5 inputs for 6 clients"), "{e}");
    // t out of range, before round 0.
    for t in [3, 7] {
        let bad = Config {
            threshold: t,
            ..config
        };
        match run(&bad, &inputs, &Dropouts::none(), 1, &no_clock).unwrap_err() {
            SecAggError::Config(c) => assert_eq!(c.field, "secagg.t"),
            other => panic!("{other}"),
        }
    }
    // A quantiser made for fewer clients than the round.
    let q = Quantiser::for_cohort(3, 1.0).unwrap();
    let updates = vec![vec![0.0f32; m]; 6];
    let e = secure_sum(&config, &q, &updates, &Dropouts::none(), 1, &no_clock).unwrap_err();
    assert!(e.to_string().contains("made for 3 clients"), "{e}");
}

#[test]
fn a_client_refuses_a_survivors_list_that_would_expose_a_peer() {
    let m = 4;
    let config = Config::secagg(5, m);
    let (_, _, inputs) = quantised_inputs(5, m, 10);
    let Stepped {
        mut clients, lists, ..
    } = through_round_2(config, &inputs, 14);
    // A list that leaves the client itself out, or repeats a client, is refused.
    let mut without_self = lists[0].1.clone();
    without_self.survivors.retain(|&v| v != 0);
    let e = clients[0].unmask(&without_self).unwrap_err();
    assert!(e.to_string().contains("leaves it out"), "{e}");
    let mut repeated = lists[1].1.clone();
    repeated.survivors.push(2);
    assert!(clients[1].unmask(&repeated).is_err());
    // A list shorter than t is refused (the server would learn s^SK of live clients).
    let short = Survivors {
        survivors: vec![2, 3],
        cohort: 2,
    };
    let e = clients[2].unmask(&short).unwrap_err();
    assert!(e.to_string().contains("fewer than the threshold"), "{e}");
    // An honest list is answered: b-shares for all five, no s^SK share.
    let a = clients[3].unmask(&lists[3].1).unwrap();
    assert_eq!(a.self_mask_seeds.len(), 5);
    assert!(a.mask_keys.is_empty());
}

#[test]
fn message_sizes_follow_the_neighbourhood() {
    let m = 50;
    for (config, holders) in [(Config::secagg(10, m), 10), (plus(16, m, 4, 3), 5)] {
        let (_, _, inputs) = quantised_inputs(config.clients, m, 11);
        let out = run(&config, &inputs, &Dropouts::none(), 2, &no_clock).unwrap();
        let n = config.clients;
        let [keys, shares, masked, unmask] = &out.costs[..] else {
            panic!("four rounds")
        };
        assert_eq!(keys.client_sent_max, 68);
        assert_eq!(keys.client_received_max, 68 * (holders - 1));
        assert_eq!(shares.client_sent_max, 4 + 108 * (holders - 1));
        assert_eq!(masked.client_sent_max, 4 + 4 * m);
        assert_eq!(masked.server_received(), n * (4 + 4 * m));
        assert_eq!(unmask.client_sent_max, 4 + 44 * holders);
        assert_eq!(unmask.clients, n);
        let one = MaskedInput {
            from: 0,
            y: vec![0; m],
        };
        assert_eq!(one.bytes(), 4 + 4 * m);
    }
}
