//! A round's settings — n, the vector's length, the threshold t, the neighbourhood — and the
//! checks that refuse a bad one before round 0.
//!
//! - **t.** The server needs at least t clients in every round, so a round survives up to
//!   n − t dropouts. It must be more than n/2: below that, two disjoint sets of clients could
//!   each reach t, the bound against a curious server (issue 39's "Bad input"; [Bonawitz]'s
//!   active variant needs more, t > 2n/3, and is not built here). Default: ⌊n/2⌋ + 1, the
//!   smallest allowed, which tolerates the most dropouts; raise it to trade dropout tolerance
//!   for a larger coalition needed to pool shares.
//! - **Shares.** With the complete graph each secret is shared t-out-of-n. In SecAgg+ it is
//!   shared t_k-out-of-(k + 1) among the client's neighbours and itself, with the same rule
//!   inside the neighbourhood: (k + 1)/2 < t_k ≤ k + 1, default ⌊(k + 1)/2⌋ + 1.

use super::neighbours::{Graph, Neighbourhood, default_degree};
use crate::error::ConfigError;

/// The most clients a round takes (ids are u32; a round this large is far beyond the page).
pub const MAX_CLIENTS: usize = 1 << 20;

/// One round of secure aggregation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// n: the clients the server picked for the round (ids 0 … n − 1).
    pub clients: usize,
    /// m: words in every input vector.
    pub length: usize,
    /// t: the fewest clients every round needs; t-out-of-n sharing with the complete graph.
    pub threshold: usize,
    pub neighbourhood: Neighbourhood,
}

/// ⌊holders/2⌋ + 1: a strict majority.
pub fn default_threshold(holders: usize) -> usize {
    holders / 2 + 1
}

impl Config {
    /// [Bonawitz]'s protocol with the default threshold.
    pub fn secagg(clients: usize, length: usize) -> Self {
        Self {
            clients,
            length,
            threshold: default_threshold(clients),
            neighbourhood: Neighbourhood::Complete,
        }
    }

    /// SecAgg+ with the default degree and share threshold; the graph drawn from `seed`.
    pub fn secagg_plus(clients: usize, length: usize, seed: u64) -> Self {
        let degree = default_degree(clients);
        let holders = degree.min(clients.saturating_sub(1)) + 1;
        Self {
            clients,
            length,
            threshold: default_threshold(clients),
            neighbourhood: Neighbourhood::Harary {
                degree,
                share_threshold: default_threshold(holders),
                seed,
            },
        }
    }

    /// The round's graph, or the setting that is wrong.
    pub fn graph(&self) -> Result<Graph, ConfigError> {
        let n = self.clients;
        if !(2..=MAX_CLIENTS).contains(&n) {
            return Err(ConfigError::new(
                "secagg.n",
                format!(
                    "a round needs from 2 to {MAX_CLIENTS} clients (one client's sum is its \
                     input), not {n}"
                ),
            ));
        }
        if self.length == 0 {
            return Err(ConfigError::new(
                "secagg.length",
                "the vectors must have at least one coordinate",
            ));
        }
        check_threshold("secagg.t", self.threshold, n, "n", "clients")?;
        match self.neighbourhood {
            Neighbourhood::Complete => Ok(Graph::Complete(n)),
            Neighbourhood::Harary {
                degree,
                share_threshold,
                seed,
            } => {
                let graph = Graph::harary(n, degree, seed)?;
                check_threshold(
                    "secagg.tk",
                    share_threshold,
                    graph.holder_count(),
                    "k + 1",
                    "holders of each client's shares",
                )?;
                Ok(graph)
            }
        }
    }

    /// The threshold of the Shamir sharing: t, or t_k in SecAgg+.
    pub fn share_threshold(&self) -> usize {
        match self.neighbourhood {
            Neighbourhood::Complete => self.threshold,
            Neighbourhood::Harary {
                share_threshold, ..
            } => share_threshold,
        }
    }
}

fn check_threshold(
    field: &str,
    t: usize,
    of: usize,
    symbol: &str,
    what: &str,
) -> Result<(), ConfigError> {
    if 2 * t > of && t <= of {
        return Ok(());
    }
    Err(ConfigError::new(
        field,
        format!(
            "t = {t} is out of range for {symbol} = {of} {what}: it must be more than \
             {symbol}/2 = {} (at or below half, two disjoint groups could each reach it: the \
             bound against a curious server) and at most {symbol} = {of}",
            of as f64 / 2.0
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn thresholds_out_of_range_are_refused_by_name() {
        let mut c = Config::secagg(10, 4);
        assert_eq!(c.threshold, 6);
        assert!(c.graph().is_ok());
        for bad in [0, 3, 5, 11] {
            c.threshold = bad;
            let e = c.graph().unwrap_err();
            assert_eq!(e.field, "secagg.t");
            assert!(e.problem.contains(&format!("t = {bad} ")), "{e}");
        }
        c.threshold = 10;
        assert!(c.graph().is_ok());
        assert_eq!(Config::secagg(1, 4).graph().unwrap_err().field, "secagg.n");
        assert_eq!(
            Config::secagg(5, 0).graph().unwrap_err().field,
            "secagg.length"
        );
    }

    #[test]
    fn secagg_plus_defaults_and_its_share_threshold() {
        let c = Config::secagg_plus(100, 4, 1);
        assert_eq!(
            c.neighbourhood,
            Neighbourhood::Harary {
                degree: 22,
                share_threshold: 12,
                seed: 1
            }
        );
        assert_eq!(c.graph().unwrap().holder_count(), 23);
        // At n = 10 the default degree covers everyone: the complete graph, shares of 10.
        let small = Config::secagg_plus(10, 4, 1);
        assert_eq!(small.graph().unwrap(), Graph::Complete(10));
        assert_eq!(small.share_threshold(), 6);
        let mut bad = c;
        bad.neighbourhood = Neighbourhood::Harary {
            degree: 22,
            share_threshold: 11,
            seed: 1,
        };
        assert_eq!(bad.graph().unwrap_err().field, "secagg.tk");
    }
}
