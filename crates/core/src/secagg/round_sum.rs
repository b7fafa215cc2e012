//! What a lab's server sees (issue 39 §4): every client's update, as in the labs' papers, or
//! only the sum of a round's updates under secure aggregation ([Bonawitz]).
//!
//! [`RoundSum`] is the sum the protocol hands the server: each client's update clipped and
//! quantised into Z_{2^32} at the finest scale that cannot wrap for the round's cohort
//! ([`Quantiser::for_cohort`]), summed with wrapping arithmetic, read back as a signed number.
//! The protocol's unmasked sum *is* this sum, word for word (the core's tests, and
//! [`protocol_sum`] below, check it), so a lab whose round has too many clients, or too many
//! words, for the protocol to run in a browser tab adds its clients' words here instead and
//! says so (docs/secagg.md, "In the other labs"). A lab that can afford it runs
//! [`protocol_sum`] on the same words.
//!
//! Updates are f64 in the labs; they go through f32 on the way in, as the protocol's quantiser
//! takes (the f32 rounding, 6·10⁻⁸ of a coordinate, is far below the quantisation step for any
//! cohort a lab has).

use super::config::Config;
use super::error::SecAggError;
use super::quantise::Quantiser;
use super::simulate::{Dropouts, run};
use crate::choices;
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

/// What the server receives from the round's clients.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sees {
    /// Each client's update, as in the labs' papers.
    #[default]
    Updates,
    /// Only the sum of the round's updates (secure aggregation).
    Sum,
    /// The secure sum with DP-FedAvg's noise on it ([`crate::privacy::central`]): each client's
    /// update clipped, Gaussian noise added to the sum, user-level ε accounted.
    Dp,
}

choices!(Sees, "what a server can see", {
    Sees::Updates => "updates", "Every update";
    Sees::Sum => "sum", "Only the sum";
    Sees::Dp => "dp", "Sum + central DP";
});

/// A round's sum under secure aggregation, gathered client by client.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundSum {
    quantiser: Quantiser,
    words: Vec<u32>,
    /// Clients whose words are in the sum.
    added: usize,
}

impl RoundSum {
    /// An empty sum of vectors of `length` for a cohort of `clients`, each coordinate clipped to
    /// ±`clip`; refused (by the quantiser's setting) when the cohort is empty or the clip is not
    /// a positive number.
    pub fn new(clients: usize, clip: f64, length: usize) -> Result<Self, ConfigError> {
        Ok(Self {
            quantiser: Quantiser::for_cohort(clients, clip as f32)?,
            words: vec![0; length],
            added: 0,
        })
    }

    pub fn quantiser(&self) -> &Quantiser {
        &self.quantiser
    }

    /// Client `client`'s words: its update clipped and quantised, as it would mask them.
    pub fn encode(&self, client: u32, update: &[f64]) -> Result<Vec<u32>, SecAggError> {
        let x: Vec<f32> = update.iter().map(|&v| v as f32).collect();
        self.quantiser.quantise(client, &x)
    }

    /// Adds client `client`'s update; refused past the cohort the quantiser is made for (the
    /// sum could wrap) or for a vector of another length.
    pub fn add(&mut self, client: u32, update: &[f64]) -> Result<(), SecAggError> {
        let words = self.encode(client, update)?;
        self.add_words(&words)
    }

    /// Adds words already encoded (by [`Self::encode`]).
    pub fn add_words(&mut self, words: &[u32]) -> Result<(), SecAggError> {
        if words.len() != self.words.len() {
            return Err(ConfigError::new(
                "secagg.length",
                format!(
                    "an update of {} coordinates in a round of {}",
                    words.len(),
                    self.words.len()
                ),
            )
            .into());
        }
        if self.added >= self.quantiser.clients() {
            return Err(ConfigError::new(
                "secagg.n",
                format!(
                    "the sum is made for {} clients: one more could wrap it",
                    self.quantiser.clients()
                ),
            )
            .into());
        }
        for (s, w) in self.words.iter_mut().zip(words) {
            *s = s.wrapping_add(*w);
        }
        self.added += 1;
        Ok(())
    }

    /// Takes words added before out again (exact in Z_{2^32}): a client's update replaced.
    pub fn remove_words(&mut self, words: &[u32]) {
        for (s, w) in self.words.iter_mut().zip(words) {
            *s = s.wrapping_sub(*w);
        }
        self.added = self.added.saturating_sub(1);
    }

    /// The sum as the server unmasks it: words in Z_{2^32}.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// Clients in the sum.
    pub fn clients(&self) -> usize {
        self.added
    }

    /// The sum read back as numbers (each coordinate within `clients()`/(2·scale) of the sum of
    /// the clipped updates).
    pub fn value(&self) -> Vec<f64> {
        let scale = self.quantiser.scale();
        self.words
            .iter()
            .map(|&w| f64::from(w as i32) / scale)
            .collect()
    }
}

/// The sum of the clients' `words` through the core's protocol ([Bonawitz] Fig. 4, no dropouts,
/// keys from `seed`): what the server unmasks. One client's sum is its input (the protocol
/// needs two).
pub fn protocol_sum(words: &[Vec<u32>], seed: u64) -> Result<Vec<u32>, SecAggError> {
    match words.len() {
        0 => Err(ConfigError::new("secagg.n", "a round needs at least one client").into()),
        1 => Ok(words[0].clone()),
        n => {
            let config = Config::secagg(n, words[0].len());
            Ok(run(&config, words, &Dropouts::none(), seed, &|| 0.0)?.sum)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The sum a lab gathers is the protocol's unmasked sum, word for word, and reads back within
    /// the quantisation of the plain sum; a client replaced leaves the sum of the others plus
    /// the new one.
    #[test]
    fn the_gathered_sum_is_the_protocols() {
        let (n, m) = (7usize, 40usize);
        let mut s = Stream::new(3, "round-sum");
        let updates: Vec<Vec<f64>> = (0..n)
            .map(|_| (0..m).map(|_| s.range(-2.5, 2.5)).collect())
            .collect();
        let mut sum = RoundSum::new(n, 3.0, m).unwrap();
        let words: Vec<Vec<u32>> = updates
            .iter()
            .enumerate()
            .map(|(k, u)| sum.encode(k as u32, u).unwrap())
            .collect();
        for (k, u) in updates.iter().enumerate() {
            sum.add(k as u32, u).unwrap();
        }
        assert_eq!(sum.clients(), n);
        assert_eq!(sum.words(), protocol_sum(&words, 11).unwrap().as_slice());
        let plain: Vec<f64> = (0..m).map(|i| updates.iter().map(|u| u[i]).sum()).collect();
        let step = n as f64 * sum.quantiser().step_error() + 1e-5;
        for (a, b) in sum.value().iter().zip(&plain) {
            assert!((a - b).abs() <= step, "{a} vs {b}");
        }
        // Client 2 replaced by a vector of zeros: exactly the others' words.
        sum.remove_words(&words[2]);
        sum.add(2, &vec![0.0; m]).unwrap();
        let others: Vec<Vec<u32>> = words
            .iter()
            .enumerate()
            .map(|(k, w)| if k == 2 { vec![0; m] } else { w.clone() })
            .collect();
        assert_eq!(sum.words(), protocol_sum(&others, 12).unwrap().as_slice());
        // One more client than the cohort could wrap: refused by name.
        let e = sum.add(7, &vec![0.0; m]).unwrap_err().to_string();
        assert!(e.contains("secagg.n") && e.contains("7 clients"), "{e}");
        let e = RoundSum::new(0, 1.0, m).unwrap_err();
        assert_eq!(e.field, "secagg.n");
        let e = RoundSum::new(3, 0.0, m).unwrap_err();
        assert_eq!(e.field, "secagg.clip");
        assert_eq!(protocol_sum(&words[..1], 1).unwrap(), words[0]);
    }
}
