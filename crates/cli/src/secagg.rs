//! `whereabouts bench --secagg`: one round of secure aggregation (the core's simulation of
//! Bonawitz et al.'s protocol, and SecAgg+) for each cohort size, timed per party and round,
//! with the bytes each message carries. The rounds are measured by the core
//! (`whereabouts_core::secagg::bench`, also run in the browser by the web crate's
//! `tests/bench.rs`); this prints them with `Instant` as the clock. BENCHMARKS.md records its
//! tables.

use std::time::Instant;
use whereabouts_core::secagg::bench::{
    Measured, PER_ROUND_HEADER, Plan, WHOLE_ROUND_HEADER, measure,
};

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
    let rows = measure(plan, &clock, &mut |r| {
        eprintln!(
            "n = {:>5} {:<28} dropped {:>4}: {:>9.0} ms",
            r.n, r.protocol, r.dropped, r.wall_ms
        )
    })?;
    print_tables(&rows);
    Ok(())
}

fn print_tables(rows: &[Measured]) {
    println!();
    println!(
        "Per round (client: mean over the clients that sent, and the slowest; bytes: what one client sent and received on average, what the server received and sent in all; a round's \"received\" is the server's answer the clients read in the next round)"
    );
    println!();
    println!("{PER_ROUND_HEADER}");
    for r in rows {
        for line in r.per_round_rows() {
            println!("{line}");
        }
    }
    println!();
    println!(
        "Whole round (a client's four rounds summed, mean over clients; the server's; wall time of the simulation)"
    );
    println!();
    println!("{WHOLE_ROUND_HEADER}");
    for r in rows {
        println!("{}", r.whole_round_row());
    }
}
