//! The global model's predicted RSRP over the area after a round, on a grid (the page's heat
//! map, drawn under the markers).

use super::Lab;
use crate::signal_map::model::Predictor;
use serde::{Deserialize, Serialize};
use whereabouts_core::geo::Metres;

/// The global model's predicted RSRP on a grid over the area (row 0 = north).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeatMap {
    pub round: Option<usize>,
    pub cols: usize,
    pub rows: usize,
    pub values_dbm: Vec<f32>,
}

impl Lab {
    /// The global model's prediction over the area after round `round` (`None`: the initial
    /// model), on a grid of about `cells` cells shaped like the area.
    pub fn heat_map(&self, round: Option<usize>, cells: usize) -> Option<HeatMap> {
        let params = match round {
            None => &self.initial,
            Some(t) => &self.rounds.get(t)?.after,
        };
        let (lo, hi) = self.world.area();
        let (w, h) = (hi.east - lo.east, hi.north - lo.north);
        let cols = ((cells.max(4) as f64 * w / h).sqrt().round() as usize).clamp(2, 256);
        let rows = (cells.max(4) / cols).clamp(2, 256);
        let mut values_dbm = Vec::with_capacity(cols * rows);
        let mut predictor = Predictor::new(&self.federation.spec);
        for r in 0..rows {
            for c in 0..cols {
                let p = Metres::new(
                    lo.east + (c as f64 + 0.5) * w / cols as f64,
                    hi.north - (r as f64 + 0.5) * h / rows as f64,
                );
                let x = self.data.standardizer.to_input(p);
                values_dbm.push(predictor.predict(params, x));
            }
        }
        Some(HeatMap {
            round,
            cols,
            rows,
            values_dbm,
        })
    }
}
