//! Geo-indistinguishability (Andrés et al., CCS 2013), the paper's GeoInd baseline ([000] §4.5,
//! App. B.1): every location gets planar-Laplace noise on the device, before local training.
//!
//! The planar Laplace density is ∝ exp(−ε·r) around the true point (ε per metre). Its exact
//! sampler: θ ~ U[0, 2π) and r = C⁻¹(p) = −(1/ε)·(W₋₁((p − 1)/e) + 1), p ~ U[0, 1), where W₋₁
//! is the −1 branch of the Lambert W function (Andrés et al., §4.1). The radius follows
//! Gamma(2, 1/ε), so its mean is 2/ε (tested). Labels stay: the phone measured the signal where
//! it really was.

use crate::signal_map::fl::BatchSelector;
use crate::signal_map::model::train::TrainError;
use crate::signal_map::trace::{Sample, Standardizer};
use whereabouts_core::geo::Metres;
use whereabouts_core::privacy::laplace::planar_laplace;
use whereabouts_core::rng::Stream;

/// GeoInd on the device: every fix of D_t moved by planar-Laplace noise before training.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoInd {
    pub epsilon_per_m: f64,
    pub standardizer: Standardizer,
}

impl BatchSelector for GeoInd {
    fn select(&self, data: &[Sample], s: &mut Stream) -> Result<Vec<Sample>, TrainError> {
        Ok(data
            .iter()
            .map(|d| {
                let n = planar_laplace(self.epsilon_per_m, s);
                let pos = Metres::new(d.pos.east + n.east, d.pos.north + n.north);
                Sample {
                    pos,
                    x: self.standardizer.to_input(pos),
                    ..*d
                }
            })
            .collect())
    }
}
