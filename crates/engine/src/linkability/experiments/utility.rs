//! The collaborative task itself ([004] §8.2, Table 3): what the federation learns beside the
//! same model trained centrally, a k-NN on the raw input and a trivial predictor, by split. In
//! the paper the task is multi-label photo classification scored by AP (higher is better); here
//! it is the signal map scored by test RMSE (lower is better).

use super::{Analysis, LinkPoint, LinkRuns, Scale};
use crate::linkability::attack::knn;
use crate::linkability::config::Split;
use whereabouts_core::stats;
use whereabouts_core::sweep::each;
use whereabouts_core::table::Table;

/// [004] Table 3 on the signal map: the federation, the centralised model, k-NN and the mean
/// predictor, by split.
pub fn utility(scale: &Scale, runs: &mut LinkRuns) -> Result<Table, String> {
    let mut by_split = Vec::new();
    for split in Split::ALL {
        by_split.push(each(runs, scale.seeds(), |seed| LinkPoint {
            config: scale.config(seed, scale.people, split),
            analysis: Analysis::Utility,
        })?);
    }
    type Figure = fn(&super::Findings) -> Option<f64>;
    let methods: [(&str, Figure, &str); 4] = [
        (
            "FedAvg (the federation)",
            |o| o.test_rmse,
            "45.1 · 37.7 · 62.9 · 63.9 · 62.2",
        ),
        (
            "Centralised",
            |o| o.references.and_then(|r| r.centralised_rmse_db),
            "49.7 · 40.7 · 68.0 · 69.2 · 67.8",
        ),
        (
            "k-NN on the position",
            |o| o.knn_rmse,
            "14.9 · 15.8 · 9.7 · 13.5 · 13.6",
        ),
        (
            "Mean predictor (chance)",
            |o| o.references.map(|r| r.mean_rmse_db),
            "9.5 · 9.7 · 6.3 · 6.3 · 6.3",
        ),
    ];
    let rows =
        methods
            .into_iter()
            .map(|(name, figure, paper)| {
                let mut row = vec![name.to_string()];
                row.extend(by_split.iter().map(|os| {
                    stats::cell(os.iter().map(|o| figure(o).unwrap_or(f64::NAN)), 2, 1.0)
                }));
                row.push(paper.into());
                row
            })
            .collect();
    Ok(Table {
        title: format!(
            "The collaborative task: test RMSE (dB) of the signal map, {} people × 2 devices, {} rounds ([004] §8.2, Table 3)",
            scale.people, scale.rounds
        ),
        notes: vec![format!(
            "Lower is better here; the paper's column is its class-mean AP % (higher is better) for PIPA random · photoset and OpenImages random · day · chrono, where FedAvg comes within 5 points of the centralised model and far above k-NN (on pretrained image features, K lost) and chance. Centralised: the same model trained on every training point pooled; k-NN: the mean RSRP of the {} nearest training points by position (our K: the identification k-NN's); mean predictor: the training data's mean RSRP everywhere (the chance of a regression). Mean over {} populations ± 95% interval.",
            knn::K,
            scale.seeds
        )],
        columns: ["method"]
            .into_iter()
            .map(String::from)
            .chain(Split::ALL.iter().map(|s| format!("{} split", s.name())))
            .chain(["paper (AP %)".to_string()])
            .collect(),
        rows,
    })
}
