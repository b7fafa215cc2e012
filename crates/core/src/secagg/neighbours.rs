//! Who masks with whom and who holds whose shares: every other client ([Bonawitz], the complete
//! graph) or a client's k neighbours in a random k-regular graph (SecAgg+, [Bell]).
//!
//! The protocol's code path is one: a client agrees keys, masks and shares only with
//! [`Graph::neighbours`], and its secrets are held by its neighbours and itself. The complete
//! graph makes that Bonawitz et al.'s protocol; a sparse one makes it SecAgg+, whose cost per
//! client grows with k instead of n.
//!
//! - **The graph (SecAgg+).** A Harary graph H(k, n) on a random ring: the server draws a
//!   uniform permutation of the n clients from a public seed (the core's seeded stream), lays
//!   them on a ring in that order and joins each to the k/2 nearest on either side. It is
//!   k-regular (k even) and stays connected after any k − 1 removals; the permutation makes a
//!   client's neighbours a random set the clients cannot choose. This is the k-regular graph
//!   of [Bell] with the ring construction Google's and Flower's SecAgg+ implementations use.
//! - **k.** [`default_degree`]: 3·⌈log₂ n⌉ rounded up to even (n = 100: 22; n = 1,000: 30),
//!   O(log n) as [Bell] requires. [Bell]'s proven parameters for a given fraction of corrupt
//!   and dropped clients and its statistical security are larger: this default is a cost
//!   illustration, not their bound. When k ≥ n − 1 the graph is the complete one.

use crate::error::ConfigError;
use crate::rng::Stream;

/// How the server lays out the cohort.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Neighbourhood {
    /// Every client is every other's neighbour: [Bonawitz]'s protocol.
    Complete,
    /// SecAgg+: a random Harary graph of even degree k; each client's secrets are shared
    /// t_k-out-of-(k + 1) among its neighbours and itself.
    Harary {
        degree: usize,
        share_threshold: usize,
        seed: u64,
    },
}

/// SecAgg+'s default degree for `n` clients: 3·⌈log₂ n⌉, rounded up to even.
pub fn default_degree(n: usize) -> usize {
    let log = (usize::BITS - n.saturating_sub(1).leading_zeros()) as usize;
    let k = (3 * log).max(2);
    k + k % 2
}

/// The cohort's graph, fixed before round 0 and public.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Graph {
    Complete(usize),
    /// Each client's neighbours, sorted.
    Lists(Vec<Vec<u32>>),
}

impl Graph {
    /// H(k, n) on a ring ordered by a permutation drawn from `seed`; the complete graph when
    /// k ≥ n − 1. `k` must be even and at least 2.
    pub fn harary(n: usize, k: usize, seed: u64) -> Result<Graph, ConfigError> {
        if k < 2 || !k.is_multiple_of(2) {
            return Err(ConfigError::new(
                "secagg.k",
                format!("the neighbourhood's degree must be an even number of at least 2, not {k}"),
            ));
        }
        if k >= n.saturating_sub(1) {
            return Ok(Graph::Complete(n));
        }
        let mut order: Vec<u32> = (0..n as u32).collect();
        Stream::new(seed, "secagg+ ring").shuffle(&mut order);
        let mut lists = vec![Vec::with_capacity(k); n];
        for (p, &u) in order.iter().enumerate() {
            for j in 1..=k / 2 {
                lists[u as usize].push(order[(p + j) % n]);
                lists[u as usize].push(order[(p + n - j) % n]);
            }
        }
        for l in &mut lists {
            l.sort_unstable();
        }
        Ok(Graph::Lists(lists))
    }

    pub fn clients(&self) -> usize {
        match self {
            Graph::Complete(n) => *n,
            Graph::Lists(l) => l.len(),
        }
    }

    /// Client `u`'s neighbours, sorted (never `u` itself).
    pub fn neighbours(&self, u: u32) -> Vec<u32> {
        match self {
            Graph::Complete(n) => (0..*n as u32).filter(|&v| v != u).collect(),
            Graph::Lists(l) => l[u as usize].clone(),
        }
    }

    pub fn are_neighbours(&self, u: u32, v: u32) -> bool {
        match self {
            Graph::Complete(n) => u != v && (u as usize) < *n && (v as usize) < *n,
            Graph::Lists(l) => l
                .get(u as usize)
                .is_some_and(|n| n.binary_search(&v).is_ok()),
        }
    }

    /// Who holds shares of `u`'s secrets: its neighbours and itself, sorted.
    pub fn holders(&self, u: u32) -> Vec<u32> {
        let mut h = self.neighbours(u);
        let at = h.partition_point(|&v| v < u);
        h.insert(at, u);
        h
    }

    /// The number of holders of each client's shares: k + 1, or n for the complete graph.
    pub fn holder_count(&self) -> usize {
        match self {
            Graph::Complete(n) => *n,
            Graph::Lists(l) => l.first().map_or(0, |n| n.len() + 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_harary_graph_is_k_regular_symmetric_and_connected() {
        for (n, k) in [(10, 4), (100, 22), (1000, 30), (7, 2)] {
            let g = Graph::harary(n, k, 5).unwrap();
            assert_eq!(g.holder_count(), k + 1);
            let mut seen = vec![false; n];
            let mut queue = vec![0u32];
            seen[0] = true;
            for u in 0..n as u32 {
                let nb = g.neighbours(u);
                assert_eq!(nb.len(), k, "n {n} k {k} client {u}");
                assert!(!nb.contains(&u));
                assert!(nb.windows(2).all(|w| w[0] < w[1]));
                for &v in &nb {
                    assert!(g.are_neighbours(v, u), "{u}–{v} one way only");
                }
                assert_eq!(g.holders(u).len(), k + 1);
            }
            while let Some(u) = queue.pop() {
                for v in g.neighbours(u) {
                    if !seen[v as usize] {
                        seen[v as usize] = true;
                        queue.push(v);
                    }
                }
            }
            assert!(seen.iter().all(|&s| s), "n {n} k {k}: not connected");
        }
    }

    #[test]
    fn the_ring_is_random_and_the_degree_checked() {
        let a = Graph::harary(100, 6, 1).unwrap();
        let b = Graph::harary(100, 6, 2).unwrap();
        assert_ne!(a, b);
        assert_eq!(a, Graph::harary(100, 6, 1).unwrap());
        assert_eq!(Graph::harary(10, 10, 1).unwrap(), Graph::Complete(10));
        assert_eq!(Graph::harary(10, 3, 1).unwrap_err().field, "secagg.k");
        assert_eq!(Graph::harary(10, 0, 1).unwrap_err().field, "secagg.k");
        assert_eq!(Graph::Complete(4).neighbours(2), vec![0, 1, 3]);
        assert_eq!(Graph::Complete(4).holders(2), vec![0, 1, 2, 3]);
    }

    #[test]
    fn default_degree_grows_as_log_n() {
        assert_eq!(default_degree(10), 12);
        assert_eq!(default_degree(100), 22);
        assert_eq!(default_degree(1000), 30);
        assert_eq!(default_degree(1_000_000), 60);
        assert_eq!(default_degree(2), 4);
    }
}
