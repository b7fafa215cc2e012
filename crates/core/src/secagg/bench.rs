//! The secure-aggregation benchmark's measuring core: one round of the simulation ([`run`]) per
//! cohort size and protocol (Bonawitz et al.'s SecAgg, CCS 2017 Fig. 4; Bell et al.'s SecAgg+,
//! CCS 2020), each party's computation timed per protocol round, every message's bytes counted,
//! and the unmasked sum checked against the plain sum. The clock is passed in (milliseconds):
//! `std::time::Instant` natively (`whereabouts bench --secagg`), `performance.now()` in the
//! browser (the web crate's `tests/bench.rs`), since `Instant` panics on wasm32. The rows are
//! formatted here so both print the same table.

use super::config::MAX_CLIENTS;
use super::neighbours::Neighbourhood;
use super::quantise::wrapping_sum;
use super::{Config, Dropouts, Outcome, Quantiser, Silent, run};
use crate::rng::Stream;

/// What one benchmark run measures.
pub struct Plan {
    pub clients: Vec<usize>,
    /// Words per input; the Signal map's small model's parameter count in `./x bench`.
    pub length: usize,
    /// The share of clients that drop after sending their shares, in a second run of each
    /// cohort (0: no second run).
    pub dropout: f64,
}

impl Plan {
    /// Refuses an empty or out-of-range plan, naming the setting (the CLI's flag) and value.
    pub fn check(&self) -> Result<(), String> {
        if self.clients.is_empty() {
            return Err("--clients: give at least one cohort size".into());
        }
        if let Some(n) = self
            .clients
            .iter()
            .find(|n| !(2..=MAX_CLIENTS).contains(*n))
        {
            return Err(format!(
                "--clients: {n} is not a cohort size from 2 to {MAX_CLIENTS}"
            ));
        }
        if !(1..=10_000_000).contains(&self.length) {
            return Err(format!(
                "--length: {} is not a whole number from 1 to 10000000",
                self.length
            ));
        }
        if !(0.0..0.5).contains(&self.dropout) {
            return Err(format!(
                "--dropout: {} is not a share from 0 to below 0.5 (the default threshold \
                 t = ⌊n/2⌋ + 1 tolerates fewer than half)",
                self.dropout
            ));
        }
        Ok(())
    }
}

/// One measured round: the cohort, the protocol's name, how many dropped, what the
/// simulation counted and timed, and its wall time.
pub struct Measured {
    pub n: usize,
    pub protocol: String,
    pub dropped: usize,
    pub outcome: Outcome,
    pub wall_ms: f64,
}

/// A whole round from one client's and the server's side: a client's protocol rounds summed
/// (mean over clients) and the server's.
pub struct WholeRound {
    pub client_ms: f64,
    pub client_sent: f64,
    pub client_received: f64,
    pub server_ms: f64,
    pub server_received: usize,
}

impl Measured {
    pub fn whole_round(&self) -> WholeRound {
        let costs = &self.outcome.costs;
        WholeRound {
            client_ms: costs.iter().map(|c| c.client_ms_mean()).sum(),
            client_sent: costs.iter().map(|c| c.client_sent_mean()).sum(),
            client_received: costs.iter().map(|c| c.client_received_mean()).sum(),
            server_ms: costs.iter().map(|c| c.server_ms).sum(),
            server_received: costs.iter().map(|c| c.server_received()).sum(),
        }
    }

    /// The per-protocol-round rows of the Markdown table headed by [`PER_ROUND_HEADER`].
    pub fn per_round_rows(&self) -> Vec<String> {
        let (n, name, d) = (self.n, &self.protocol, self.dropped);
        self.outcome
            .costs
            .iter()
            .map(|c| {
                let round = c.round.map_or(String::new(), |r| r.to_string());
                format!(
                    "| {n} | {name} | {d} | {round} | {:.2} / {:.2} | {} | {} | {} | {} | {:.1} |",
                    c.client_ms_mean(),
                    c.client_ms_max,
                    kib(c.client_sent_mean()),
                    kib(c.client_received_mean()),
                    kib(c.server_received() as f64),
                    kib(c.server_sent_total as f64),
                    c.server_ms
                )
            })
            .collect()
    }

    /// The row of the Markdown table headed by [`WHOLE_ROUND_HEADER`].
    pub fn whole_round_row(&self) -> String {
        let w = self.whole_round();
        format!(
            "| {} | {} | {} | {:.1} | {} | {} | {:.1} | {} | {:.1} |",
            self.n,
            self.protocol,
            self.dropped,
            w.client_ms,
            kib(w.client_sent),
            kib(w.client_received),
            w.server_ms,
            kib(w.server_received as f64),
            self.wall_ms / 1000.0
        )
    }
}

pub const PER_ROUND_HEADER: &str = "| n | protocol | dropped | round | client ms (mean / max) | client sent | client received | server received | server sent | server ms |\n|---|---|---|---|---|---|---|---|---|---|";

pub const WHOLE_ROUND_HEADER: &str = "| n | protocol | dropped | client ms | client sent | client received | server ms | server received | simulation s |\n|---|---|---|---|---|---|---|---|---|";

/// Bytes as KiB, or MiB from 1 MiB up.
pub fn kib(bytes: f64) -> String {
    if bytes >= 1024.0 * 1024.0 {
        format!("{:.2} MiB", bytes / 1024.0 / 1024.0)
    } else {
        format!("{:.1} KiB", bytes / 1024.0)
    }
}

/// Runs the plan: for each n, inputs of `length` words uniform in ±1 quantised for the cohort
/// (seed 1), then SecAgg (complete graph) and SecAgg+ (random Harary graph, seed 7), each
/// without and, if `dropout` > 0, with that share silent after their shares. Each round's
/// unmasked sum must equal the plain wrapping sum of the included inputs, or the run stops
/// with an error. `done` sees each round as it is measured (for progress).
pub fn measure(
    plan: &Plan,
    clock: &dyn Fn() -> f64,
    done: &mut dyn FnMut(&Measured),
) -> Result<Vec<Measured>, String> {
    plan.check()?;
    let m = plan.length;
    let mut rows = Vec::new();
    for &n in &plan.clients {
        let q = Quantiser::for_cohort(n, 1.0).map_err(|e| e.to_string())?;
        let mut s = Stream::new(1, "secagg bench inputs");
        let inputs: Vec<Vec<u32>> = (0..n as u32)
            .map(|u| {
                let x: Vec<f32> = (0..m).map(|_| s.range(-1.0, 1.0) as f32).collect();
                q.quantise(u, &x)
            })
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let drops = if plan.dropout > 0.0 {
            vec![0, (plan.dropout * n as f64).round() as usize]
        } else {
            vec![0]
        };
        for config in [Config::secagg(n, m), Config::secagg_plus(n, m, 7)] {
            let graph = config.graph().map_err(|e| e.to_string())?;
            let protocol = match config.neighbourhood {
                Neighbourhood::Harary { .. } if graph.holder_count() < n => {
                    format!("SecAgg+ k={}", graph.holder_count() - 1)
                }
                Neighbourhood::Harary { .. } => "SecAgg+ (k ≥ n−1: complete)".to_string(),
                Neighbourhood::Complete => "SecAgg".to_string(),
            };
            for &d in &drops {
                let dropouts = Dropouts::random(n, d, Silent::AfterShares, 3);
                let t = clock();
                let outcome =
                    run(&config, &inputs, &dropouts, 5, clock).map_err(|e| e.to_string())?;
                let wall_ms = clock() - t;
                let want = wrapping_sum(
                    m,
                    outcome
                        .included
                        .iter()
                        .map(|&u| inputs[u as usize].as_slice()),
                );
                if outcome.sum != want {
                    return Err(format!("{protocol}, n = {n}: the unmasked sum is wrong"));
                }
                let row = Measured {
                    n,
                    protocol: protocol.clone(),
                    dropped: d,
                    outcome,
                    wall_ms,
                };
                done(&row);
                rows.push(row);
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_plan_sums_right_and_counts_the_bytes_it_did() {
        let plan = Plan {
            clients: vec![4, 40],
            length: 32,
            dropout: 0.25,
        };
        let mut seen = 0;
        let rows = measure(&plan, &|| 0.0, &mut |_| seen += 1).unwrap();
        // Two cohorts × two protocols × with and without dropouts, each reported once.
        assert_eq!(rows.len(), 8);
        assert_eq!(seen, 8);
        let names: Vec<_> = rows
            .iter()
            .map(|r| (r.n, r.protocol.as_str(), r.dropped))
            .collect();
        assert_eq!(names[0], (4, "SecAgg", 0));
        assert_eq!(names[1], (4, "SecAgg", 1));
        assert_eq!(names[2], (4, "SecAgg+ (k ≥ n−1: complete)", 0));
        assert_eq!(names[6], (40, "SecAgg+ k=18", 0));
        assert_eq!(names[7], (40, "SecAgg+ k=18", 10));
        // The sum was checked inside; the included clients are the ones that did not drop.
        for r in &rows {
            assert_eq!(r.outcome.included.len(), r.n - r.dropped);
        }
        // One client's masked input: a 4-byte header and 4 bytes a word (the figures the CLI
        // printed before the move: 0.1 KiB).
        let masked = &rows[4].outcome.costs[2];
        assert_eq!(masked.client_sent_mean(), 4.0 + 4.0 * 32.0);
        assert!(rows[4].per_round_rows()[2].starts_with(
            "| 40 | SecAgg | 0 | round 2 (MaskedInputCollection) | 0.00 / 0.00 | 0.1 KiB |"
        ));
        // Bytes from the whole round are the per-round ones summed.
        let w = rows[5].whole_round();
        let sent: f64 = rows[5]
            .outcome
            .costs
            .iter()
            .map(|c| c.client_sent_mean())
            .sum();
        assert_eq!(w.client_sent, sent);
        assert_eq!(w.client_ms, 0.0);
    }

    #[test]
    fn a_bad_plan_is_refused_by_name() {
        let bad = |clients: Vec<usize>, length, dropout| {
            measure(
                &Plan {
                    clients,
                    length,
                    dropout,
                },
                &|| 0.0,
                &mut |_| {},
            )
            .err()
            .unwrap()
        };
        assert!(bad(vec![], 8, 0.0).contains("--clients"));
        assert!(bad(vec![1], 8, 0.0).contains("--clients: 1"));
        assert!(bad(vec![4], 0, 0.0).contains("--length: 0"));
        assert!(bad(vec![4], 8, 0.5).contains("--dropout: 0.5"));
    }
}
