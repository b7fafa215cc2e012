//! `whereabouts bench --secagg`: one round of secure aggregation (the core's simulation of
//! Bonawitz et al.'s protocol, and SecAgg+) for each cohort size, timed per party and round,
//! with the bytes each message carries. BENCHMARKS.md records its tables.

use std::time::Instant;
use whereabouts_core::rng::Stream;
use whereabouts_core::secagg::config::MAX_CLIENTS;
use whereabouts_core::secagg::neighbours::Neighbourhood;
use whereabouts_core::secagg::{Config, Dropouts, Outcome, Quantiser, Silent, run};

/// What one benchmark run measures.
pub struct Plan {
    pub clients: Vec<usize>,
    /// Words per input; by default the Signal map's small model's parameter count.
    pub length: usize,
    /// The share of clients that drop after sending their shares, in a second run of each
    /// cohort (0: no second run).
    pub dropout: f64,
}

impl Plan {
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

fn kib(bytes: f64) -> String {
    if bytes >= 1024.0 * 1024.0 {
        format!("{:.2} MiB", bytes / 1024.0 / 1024.0)
    } else {
        format!("{:.1} KiB", bytes / 1024.0)
    }
}

/// Runs the plan and prints one Markdown table per round kind and one of totals.
pub fn bench(plan: &Plan) -> Result<(), String> {
    plan.check()?;
    let started = Instant::now();
    let clock = move || started.elapsed().as_secs_f64() * 1000.0;
    let m = plan.length;
    println!(
        "Secure aggregation, one round in one process; native, one thread; m = {m} words \
         (4 bytes each); inputs clipped to ±1 and quantised for the cohort"
    );
    println!(
        "SecAgg: complete graph, t = ⌊n/2⌋ + 1. SecAgg+: random Harary graph, k = 3⌈log₂ n⌉ \
         (even), shares t_k = ⌊(k+1)/2⌋ + 1 of k + 1. Dropped: clients silent after sending \
         their shares (the server reconstructs their s^SK)."
    );
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
            let name = match config.neighbourhood {
                Neighbourhood::Harary { .. } if graph.holder_count() < n => {
                    format!("SecAgg+ k={}", graph.holder_count() - 1)
                }
                Neighbourhood::Harary { .. } => "SecAgg+ (k ≥ n−1: complete)".to_string(),
                Neighbourhood::Complete => "SecAgg".to_string(),
            };
            for &d in &drops {
                let dropouts = Dropouts::random(n, d, Silent::AfterShares, 3);
                let t = clock();
                let out = run(&config, &inputs, &dropouts, 5, &clock).map_err(|e| e.to_string())?;
                let wall = clock() - t;
                let want = whereabouts_core::secagg::quantise::wrapping_sum(
                    m,
                    out.included.iter().map(|&u| inputs[u as usize].as_slice()),
                );
                if out.sum != want {
                    return Err(format!("{name}, n = {n}: the unmasked sum is wrong"));
                }
                eprintln!("n = {n:>5} {name:<28} dropped {d:>4}: {wall:>9.0} ms");
                rows.push((n, name.clone(), d, out, wall));
            }
        }
    }
    print_tables(&rows);
    Ok(())
}

type Row = (usize, String, usize, Outcome, f64);

fn print_tables(rows: &[Row]) {
    println!();
    println!(
        "Per round (client: mean over the clients that sent, and the slowest; bytes: what one client sent and received on average, what the server received and sent in all; a round's \"received\" is the server's answer the clients read in the next round)"
    );
    println!();
    println!(
        "| n | protocol | dropped | round | client ms (mean / max) | client sent | client received | server received | server sent | server ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (n, name, d, out, _) in rows {
        for c in &out.costs {
            let round = c.round.map_or(String::new(), |r| r.to_string());
            println!(
                "| {n} | {name} | {d} | {round} | {:.2} / {:.2} | {} | {} | {} | {} | {:.1} |",
                c.client_ms_mean(),
                c.client_ms_max,
                kib(c.client_sent_mean()),
                kib(c.client_received_mean()),
                kib(c.server_received() as f64),
                kib(c.server_sent_total as f64),
                c.server_ms
            );
        }
    }
    println!();
    println!(
        "Whole round (a client's four rounds summed, mean over clients; the server's; wall time of the simulation)"
    );
    println!();
    println!(
        "| n | protocol | dropped | client ms | client sent | client received | server ms | server received | simulation s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (n, name, d, out, wall) in rows {
        let client_ms: f64 = out.costs.iter().map(|c| c.client_ms_mean()).sum();
        let sent: f64 = out.costs.iter().map(|c| c.client_sent_mean()).sum();
        let got: f64 = out.costs.iter().map(|c| c.client_received_mean()).sum();
        let server_ms: f64 = out.costs.iter().map(|c| c.server_ms).sum();
        let server_in: usize = out.costs.iter().map(|c| c.server_received()).sum();
        println!(
            "| {n} | {name} | {d} | {client_ms:.1} | {} | {} | {server_ms:.1} | {} | {:.1} |",
            kib(sent),
            kib(got),
            kib(server_in as f64),
            wall / 1000.0
        );
    }
}
