//! The radio side of the synthetic world: cell towers and their RSRP fields.
//!
//! No real measurement set can be downloaded here, so the signal is synthesised with a textbook
//! propagation model ([000] has no synthetic data: our choice, see docs/papers.md):
//!
//! RSRP(x) = P₀ − 10·n·log₁₀(max(d, d_min)/1 m) + S(x) + F
//!
//! - log-distance path loss with exponent `n` from the tower at distance `d`;
//! - `S(x)`: shadowing, a zero-mean Gaussian process with standard deviation `shadowing_sd_db`
//!   and correlation length `shadowing_corr_m`, sampled exactly as a sum of random Fourier
//!   features (Rahimi & Recht 2007) of a squared-exponential kernel, so it is smooth, has
//!   something for a model to learn, and is defined everywhere (drawn trajectories included);
//! - `F`: per-measurement fast fading / measurement noise, i.i.d. normal (`fading_sd_db`), which
//!   sets the floor of any model's RMSE (the paper's models reach 4.8–6 dB);
//! - `P₀` is calibrated so the noise-free field averages `mean_rsrp_dbm` over the area of
//!   interest (the paper's cell x204 averages −95.96 dBm).
//!
//! Values are clamped to the 3GPP RSRP reporting range, −140 to −44 dBm.

use serde::{Deserialize, Serialize};
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;

/// The RSRP reporting range of 3GPP TS 36.133.
pub const RSRP_MIN_DBM: f64 = -140.0;
pub const RSRP_MAX_DBM: f64 = -44.0;

/// Parameters of every tower's field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RadioConfig {
    pub towers: usize,
    pub path_loss_exponent: f64,
    pub min_distance_m: f64,
    pub mean_rsrp_dbm: f64,
    pub shadowing_sd_db: f64,
    pub shadowing_corr_m: f64,
    pub fading_sd_db: f64,
}

/// One cell tower and its signal field.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tower {
    pub id: usize,
    pub position: Metres,
    /// P₀, calibrated (see the module docs).
    pub reference_dbm: f64,
    pub path_loss_exponent: f64,
    pub min_distance_m: f64,
    shadowing_sd_db: f64,
    /// Random Fourier features: (ω_east, ω_north, phase).
    features: Vec<[f64; 3]>,
}

/// Number of random Fourier features per tower's shadowing field.
const SHADOWING_FEATURES: usize = 192;

impl Tower {
    fn new(id: usize, position: Metres, cfg: &RadioConfig, stream: &mut Stream) -> Self {
        let features = (0..SHADOWING_FEATURES)
            .map(|_| {
                [
                    stream.normal() / cfg.shadowing_corr_m,
                    stream.normal() / cfg.shadowing_corr_m,
                    stream.range(0.0, 2.0 * core::f64::consts::PI),
                ]
            })
            .collect();
        Self {
            id,
            position,
            reference_dbm: 0.0,
            path_loss_exponent: cfg.path_loss_exponent,
            min_distance_m: cfg.min_distance_m,
            shadowing_sd_db: cfg.shadowing_sd_db,
            features,
        }
    }

    /// Shadowing S(x) in dB.
    pub fn shadowing_db(&self, x: Metres) -> f64 {
        let scale = self.shadowing_sd_db * libm::sqrt(2.0 / self.features.len() as f64);
        scale
            * self
                .features
                .iter()
                .map(|[we, wn, b]| libm::cos(we * x.east + wn * x.north + b))
                .sum::<f64>()
    }

    fn path_gain_db(&self, x: Metres) -> f64 {
        let d = x.distance(&self.position).max(self.min_distance_m);
        -10.0 * self.path_loss_exponent * libm::log10(d)
    }

    /// The noise-free RSRP field at `x`, in dBm.
    pub fn rsrp_dbm(&self, x: Metres) -> f64 {
        (self.reference_dbm + self.path_gain_db(x) + self.shadowing_db(x))
            .clamp(RSRP_MIN_DBM, RSRP_MAX_DBM)
    }
}

/// Places `cfg.towers` towers: tower 0 (the default cell) near the centre of the area, the
/// others anywhere in the area widened by 30%, each field calibrated to the target mean.
pub fn place_towers(cfg: &RadioConfig, half_w: f64, half_h: f64, seed: u64) -> Vec<Tower> {
    let mut stream = Stream::new(seed, "towers");
    (0..cfg.towers.max(1))
        .map(|id| {
            let spread = if id == 0 { 0.2 } else { 1.3 };
            let position = Metres::new(
                stream.range(-spread, spread) * half_w,
                stream.range(-spread, spread) * half_h,
            );
            let mut tower = Tower::new(id, position, cfg, &mut stream.child("field"));
            tower.reference_dbm = calibrate(&tower, cfg.mean_rsrp_dbm, half_w, half_h);
            tower
        })
        .collect()
}

/// P₀ such that the unclamped field averages `target` over a 41×41 grid of the area.
fn calibrate(tower: &Tower, target: f64, half_w: f64, half_h: f64) -> f64 {
    let n = 41;
    let mut sum = 0.0;
    for i in 0..n {
        for j in 0..n {
            let x = Metres::new(
                -half_w + 2.0 * half_w * i as f64 / (n - 1) as f64,
                -half_h + 2.0 * half_h * j as f64 / (n - 1) as f64,
            );
            sum += tower.path_gain_db(x) + tower.shadowing_db(x);
        }
    }
    target - sum / (n * n) as f64
}
