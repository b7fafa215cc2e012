//! The defences in a whole federation (campus preset), as the evidence asks.
use super::*;
use crate::signal_map::lab::Lab;
use crate::signal_map::scenario::{RoundRecord, ScenarioConfig, WorldChoice};
use crate::signal_map::trace::{RoundLength, Sample, centroid};
use crate::signal_map::world::Preset;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::rng::Stream;

fn campus(defence: Defence) -> ScenarioConfig {
    ScenarioConfig {
        seed: 2,
        world: WorldChoice {
            preset: Preset::Campus,
            users: Some(1),
            weeks: Some(1),
            cell: None,
            background: None,
        },
        round_length: RoundLength::Day,
        defence,
        ..ScenarioConfig::default()
    }
}

fn run(config: ScenarioConfig) -> (Lab, Vec<RoundRecord>) {
    let mut lab = Lab::new(config).unwrap();
    lab.run(None, &mut |_| {}).unwrap();
    let records = lab.records();
    (lab, records)
}

fn mean_dlg_error(records: &[RoundRecord]) -> f64 {
    let e: Vec<f64> = records
        .iter()
        .filter_map(|r| r.dlg.as_ref().map(|d| d.reconstruction.error_m))
        .collect();
    assert!(!e.is_empty());
    e.iter().sum::<f64>() / e.len() as f64
}

/// Per-coordinate standard deviation of positions, metres (the paper's Fig. 25 measure).
fn spread(samples: &[Sample]) -> f64 {
    let c = centroid(samples).unwrap();
    let n = samples.len() as f64;
    let ve = samples
        .iter()
        .map(|s| (s.pos.east - c.east).powi(2))
        .sum::<f64>()
        / n;
    let vn = samples
        .iter()
        .map(|s| (s.pos.north - c.north).powi(2))
        .sum::<f64>()
        / n;
    (ve.sqrt() + vn.sqrt()) / 2.0
}

const DIVERSE: Defence = Defence::DiverseBatch {
    eps_km: 0.05,
    min_samples: 5,
};

#[test]
fn diverse_batch_spreads_the_batch_and_raises_the_dlg_error() {
    let (plain, fedsgd) = run(campus(Defence::None));
    let (_, diverse) = run(campus(DIVERSE));
    // The batch is spread wider than the round's data (one point per place, not hundreds at
    // home): compare on every round with data.
    let selector = DIVERSE.selector(plain.data());
    let mut wider = 0;
    let mut rounds = 0;
    for t in 0..plain.data().rounds() {
        let d = plain.data().local_data(0, t, false);
        let b = selector.select(d, &mut Stream::new(1, "t")).unwrap();
        if b.len() >= 2 {
            rounds += 1;
            if spread(&b) > spread(d) {
                wider += 1;
            }
        }
    }
    assert!(rounds >= 5 && wider == rounds, "{wider} of {rounds} rounds");
    let (a, b) = (mean_dlg_error(&fedsgd), mean_dlg_error(&diverse));
    assert!(b > a, "Diverse Batch {b:.0} m vs FedSGD {a:.0} m");
}

#[test]
fn farthest_batch_moves_the_reconstruction_further_than_diverse_batch() {
    let (_, diverse) = run(campus(DIVERSE));
    let (_, farthest) = run(campus(Defence::FarthestBatch {
        eps_km: 0.05,
        min_samples: 5,
        num: 10,
    }));
    let (d, f) = (mean_dlg_error(&diverse), mean_dlg_error(&farthest));
    assert!(f > d, "Farthest {f:.0} m vs Diverse {d:.0} m");
}

#[test]
fn local_dp_is_accounted_and_its_budget_stops_training() {
    let dp = dp::LocalDp::at(100.0);
    let (s, records) = run(campus(Defence::LocalDp(dp)));
    let eps: Vec<f64> = records.iter().map(|r| r.dp_epsilon.unwrap()).collect();
    assert!(eps.windows(2).all(|w| w[1] > w[0]), "{eps:?}");
    assert_eq!(s.summary().dp_epsilon, eps.last().copied());
    // A budget between the 3rd and 4th update's ε stops the run after 3 attacked rounds.
    let budget = (eps[2] + eps[3]) / 2.0;
    let (s, records) = run(campus(Defence::LocalDp(dp::LocalDp {
        budget: Some(budget),
        ..dp
    })));
    assert_eq!(records.len(), 3);
    let summary = s.summary();
    assert!(summary.stopped.unwrap().contains("budget"));
}

#[test]
fn geoind_noise_moves_what_the_server_sees() {
    let (_, plain) = run(campus(Defence::None));
    let (_, noisy) = run(campus(Defence::GeoInd {
        epsilon_per_m: 0.005,
    }));
    // The metric stays the distance to the true D_t centroid.
    assert_eq!(plain[0].true_centroid, noisy[0].true_centroid);
    assert_ne!(plain[0].analytic, noisy[0].analytic);
}

#[test]
fn a_geoind_run_sends_each_fix_once_and_its_summary_counts_every_one() {
    let (lab, records) = run(campus(Defence::GeoInd {
        epsilon_per_m: 0.005,
    }));
    let sent: usize = records.iter().map(|r| r.batch_points).sum();
    assert!(sent > 0 && records.iter().all(|r| r.batch_points == r.points));
    let loss = lab.summary().geoind.expect("GeoInd states its ε");
    assert_eq!((loss.releases_per_fix, loss.reports), (1, sent));
    // Other defences state none.
    assert_eq!(run(campus(Defence::None)).0.summary().geoind, None);
}

#[test]
fn a_gan_obfuscated_run_completes_and_reports_its_figures() {
    let (_, plain) = run(campus(Defence::None));
    let (lab, gan) = run(campus(Defence::Gan { rho: 0.5 }));
    assert_eq!(gan.len(), plain.len());
    let summary = lab.summary();
    assert!(summary.stopped.is_none(), "{summary:?}");
    assert!(
        summary.final_rmse_db.is_some_and(f64::is_finite),
        "{summary:?}"
    );
    assert!(summary.emd_m.is_some() || summary.diverged_percent == Some(100.0));
    for (p, g) in plain.iter().zip(&gan) {
        // The metric stays the distance to the true D_t centroid; every fix is trained on,
        // obfuscated.
        assert_eq!(p.true_centroid, g.true_centroid);
        assert_eq!(g.batch_points, g.points);
        assert_ne!(p.analytic, g.analytic);
    }
}

#[test]
fn bad_defence_settings_are_refused() {
    let bad = campus(Defence::FarthestBatch {
        eps_km: 0.05,
        min_samples: 5,
        num: 0,
    });
    assert!(Lab::new(bad).err().unwrap().contains("defence.num"));
    let bad = campus(Defence::GeoInd {
        epsilon_per_m: -1.0,
    });
    assert!(Lab::new(bad).err().unwrap().contains("epsilon_per_m"));
    for rho in [0.0, 0.005, 1.5, f64::NAN] {
        let e = Lab::new(campus(Defence::Gan { rho })).err().unwrap();
        assert!(e.contains("defence.rho") && e.contains("0.01 and 1"), "{e}");
    }
    let toml = "kind = \"gan\"\nrho = 0.25\n";
    let d: Defence = toml::from_str(toml).unwrap();
    assert_eq!(d, Defence::Gan { rho: 0.25 });
    let toml = "kind = \"diverse_batch\"\neps_km = 0.05\n";
    let d: Defence = toml::from_str(toml).unwrap();
    assert_eq!(d, DIVERSE);
}
