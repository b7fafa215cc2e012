//! Defences against the curious server ([000] §4.3–4.5): FL-native batch curation (Diverse
//! Batch, Farthest Batch) with its random-subset baseline, and the local baselines (DP on the
//! update, geo-indistinguishability on the locations, GAN obfuscation of the round's data).
//! Each participant applies the same defence on its device.
//!
//! The attack metric for defences that change the batch stays the distance to the centroid of
//! the full round data D_t (what the visitor wants hidden), not of the curated subset.

pub mod batch;
pub use whereabouts_core::dbscan;
pub mod dp;
pub mod gan;
pub mod geoind;

use crate::signal_map::fl::{AllData, BatchSelector};
use crate::signal_map::limits;
use crate::signal_map::trace::Dataset;
use batch::{DiverseBatch, FarthestBatch, RandomSubset};
use dp::LocalDp;
use gan::{Gan, LabelScale};
use geoind::GeoInd;
use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;

/// DBSCAN's min_samples for the batch defences: 5, scikit-learn's default. [000] gives only
/// `eps` (§4.3, Table 2; §4.4), not min_samples; our choice, see docs/papers.md §3a. A
/// configuration may set another (`min_samples`); the page always uses this one.
pub const DEFAULT_MIN_SAMPLES: usize = 5;

fn default_min_samples() -> usize {
    DEFAULT_MIN_SAMPLES
}

/// Which defence the devices apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Defence {
    #[default]
    None,
    /// One point per DBSCAN cluster of D_t ([000] §4.3); eps in km as in the paper's Table 2.
    DiverseBatch {
        eps_km: f64,
        #[serde(default = "default_min_samples")]
        min_samples: usize,
    },
    /// `num` points from the clusters farthest from D_t's centroid ([000] §4.4, Algorithm 3).
    FarthestBatch {
        eps_km: f64,
        #[serde(default = "default_min_samples")]
        min_samples: usize,
        num: usize,
    },
    /// A random subset of D_t of Diverse Batch's size (with these settings): the baseline that
    /// shows whether curation, not just a smaller batch, is what protects.
    RandomSubset {
        eps_km: f64,
        #[serde(default = "default_min_samples")]
        min_samples: usize,
    },
    /// Clip and noise the update ([000] §4.5, "DP").
    LocalDp(LocalDp),
    /// Planar-Laplace noise on every location, ε per metre ([000] §4.5, "GeoInd").
    GeoInd { epsilon_per_m: f64 },
    /// GAN obfuscation of the round's data at obfuscation level ρ ([000] §4.5, "Gan", after its
    /// ref. [15]; [`gan`]).
    Gan { rho: f64 },
}

impl Defence {
    pub fn validate(&self) -> Result<(), ConfigError> {
        let eps = |e: f64| limits::DBSCAN_EPS_KM.check("defence.eps_km", e).map(|_| ());
        let min = |m: usize| {
            limits::MIN_SAMPLES
                .check("defence.min_samples", m as f64)
                .map(|_| ())
        };
        match *self {
            Defence::None => Ok(()),
            Defence::DiverseBatch {
                eps_km,
                min_samples,
            }
            | Defence::RandomSubset {
                eps_km,
                min_samples,
            } => eps(eps_km).and(min(min_samples)),
            Defence::FarthestBatch {
                eps_km,
                min_samples,
                num,
            } => {
                eps(eps_km)?;
                min(min_samples)?;
                limits::FARTHEST_NUM.check("defence.num", num as f64)?;
                Ok(())
            }
            Defence::LocalDp(dp) => dp.validate(),
            Defence::GeoInd { epsilon_per_m } => limits::GEOIND_EPSILON_PER_M
                .check("defence.epsilon_per_m", epsilon_per_m)
                .map(|_| ()),
            Defence::Gan { rho } => limits::GAN_RHO.check("defence.rho", rho).map(|_| ()),
        }
    }

    /// How the device picks (or alters) its LocalBatch, on `data`'s standardisation.
    pub fn selector(&self, data: &Dataset) -> Box<dyn BatchSelector> {
        let standardizer = data.standardizer;
        match *self {
            Defence::None | Defence::LocalDp(_) => Box::new(AllData),
            Defence::DiverseBatch {
                eps_km,
                min_samples,
            } => Box::new(DiverseBatch {
                eps_m: eps_km * 1000.0,
                min_samples,
            }),
            Defence::FarthestBatch {
                eps_km,
                min_samples,
                num,
            } => Box::new(FarthestBatch {
                eps_m: eps_km * 1000.0,
                min_samples,
                num,
            }),
            Defence::RandomSubset {
                eps_km,
                min_samples,
            } => Box::new(RandomSubset {
                like: DiverseBatch {
                    eps_m: eps_km * 1000.0,
                    min_samples,
                },
            }),
            Defence::GeoInd { epsilon_per_m } => Box::new(GeoInd {
                epsilon_per_m,
                standardizer,
            }),
            Defence::Gan { rho } => Box::new(Gan {
                rho,
                standardizer,
                labels: LabelScale::fit(data.train.iter().chain(&data.test).map(|s| s.y)),
                training: gan::TRAINING,
            }),
        }
    }

    /// The update mechanism, for local DP.
    pub fn dp(&self) -> Option<LocalDp> {
        match *self {
            Defence::LocalDp(dp) => Some(dp),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
