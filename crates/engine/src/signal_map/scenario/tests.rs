use super::*;
use crate::signal_map::lab::{Lab, LabEvent};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn quick(round_length: RoundLength, weeks: u32) -> ScenarioConfig {
    ScenarioConfig {
        seed: 5,
        world: WorldChoice {
            preset: Preset::Campus,
            users: Some(1),
            weeks: Some(weeks),
            cell: None,
            background: None,
        },
        round_length,
        ..ScenarioConfig::default()
    }
}

fn run(config: ScenarioConfig) -> (Vec<LabEvent>, Summary) {
    let mut lab = Lab::new(config).unwrap();
    let mut events = Vec::new();
    let summary = lab.run(None, &mut |e| events.push(e)).unwrap();
    (events, summary)
}

#[test]
fn same_seed_same_json() {
    let mut config = quick(RoundLength::Day, 1);
    config.max_rounds = Some(3);
    let a = serde_json::to_string(&run(config.clone()).0).unwrap();
    let b = serde_json::to_string(&run(config.clone()).0).unwrap();
    assert_eq!(a, b);
    config.seed = 6;
    assert_ne!(a, serde_json::to_string(&run(config).0).unwrap());
}

#[test]
fn events_describe_every_round_and_the_model_learns() {
    let (events, summary) = run(quick(RoundLength::Day, 1));
    let LabEvent::Started {
        rounds,
        initial_rmse_db,
        ..
    } = events[0]
    else {
        panic!("first event is Started")
    };
    assert_eq!(rounds, 7);
    let records: Vec<&RoundRecord> = events
        .iter()
        .filter_map(|e| match e {
            LabEvent::Attacked(r) => Some(r.as_ref()),
            _ => None,
        })
        .collect();
    assert_eq!(records.len(), 7);
    assert!(matches!(events.last(), Some(LabEvent::Finished(_))));
    // Each round: trained, then attack progress, then the finished record.
    let trained = events
        .iter()
        .position(|e| matches!(e, LabEvent::Trained { round: 0, .. }));
    let progress = events
        .iter()
        .position(|e| matches!(e, LabEvent::Progress { round: 0, .. }));
    let finished = events
        .iter()
        .position(|e| matches!(e, LabEvent::Attacked(r) if r.round == 0));
    assert!(
        trained < progress && progress < finished,
        "{trained:?} {progress:?} {finished:?}"
    );
    for r in &records {
        let dlg = r.dlg.as_ref().expect("DLG ran");
        assert!(r.points > 0 && dlg.result.iterations > 0);
        assert!(r.analytic.is_some());
    }
    assert!(
        summary.final_rmse_db.unwrap() < initial_rmse_db,
        "the model did not learn"
    );
    assert!(summary.emd_m.unwrap() < summary.random_emd_m.unwrap());
}

/// Insight I1 / [000] §4.1: shorter rounds mean lower-variance batches and more leakage.
#[test]
fn shorter_rounds_leak_more() {
    let (_, daily) = run(quick(RoundLength::Day, 2));
    let (_, weekly) = run(quick(RoundLength::Week, 2));
    // The paper's measure ([000] §4.1): EMD between the true locations and the reconstructions. More
    // rounds, each a tighter batch, trace the places someone was (home, work) more closely.
    let (de, we) = (daily.emd_m.unwrap(), weekly.emd_m.unwrap());
    assert!(de < we, "EMD: daily {de:.1} m vs weekly {we:.1} m");
}

#[test]
fn configs_parse_from_toml_and_json_and_errors_name_the_field() {
    let toml = r#"
seed = 9
output_bias = "zero"
round_length = "week"
test_fraction = 0.2
target = 0
model = "paper"
[world]
preset = "metro"
users = 2
[fl]
client_fraction = 1.0
cumulative = false
[fl.local]
epochs = 5
batch_size = 20
learning_rate = 0.001
[attack]
dlg = true
analytic = true
bounds = false
[attack.settings]
max_iterations = 400
optimizer = { kind = "adam", lr = 0.02 }
init = { kind = "grid", spacing_m = 350.0 }
label = { mode = "analytic" }
weights = "post_update"
tolerance_m = 0.01
patience = 10
trail_every = 10
"#;
    let c = ScenarioConfig::parse(toml).unwrap();
    assert_eq!(c.world.preset, Preset::Metro);
    assert_eq!(c.model, ModelChoice::Preset(ModelPreset::Paper));
    assert_eq!(c.fl.local.batch_size, Some(20));
    let json = serde_json::to_string(&c).unwrap();
    assert_eq!(ScenarioConfig::parse(&json).unwrap(), c);

    let bad = toml.replace("learning_rate = 0.001", "learning_rate = -1.0");
    assert!(
        ScenarioConfig::parse(&bad)
            .unwrap_err()
            .contains("fl.local.learning_rate")
    );
    let typo = toml.replace("cumulative = false", "cumulativ = false");
    let e = ScenarioConfig::parse(&typo).unwrap_err();
    assert!(e.contains("cumulativ"), "{e}");
}

/// Every key may be left out, as in the other labs' configs: a file that names only what it
/// changes runs the default scenario with those changes, nested tables included, and still
/// refuses a misspelt key.
#[test]
fn a_partial_config_keeps_the_defaults_of_what_it_leaves_out() {
    let c = ScenarioConfig::parse("model = \"paper\"\n[fl.local]\nepochs = 3\n").unwrap();
    let want = ScenarioConfig {
        model: ModelChoice::Preset(ModelPreset::Paper),
        fl: crate::signal_map::fl::FlConfig {
            local: crate::signal_map::model::train::LocalTraining {
                epochs: 3,
                ..Default::default()
            },
            ..Default::default()
        },
        // Documented: left out, `participants` is everyone in the world.
        participants: None,
        ..ScenarioConfig::default()
    };
    assert_eq!(c, want);
    let c = ScenarioConfig::parse("[world]\nusers = 3\n[attack]\ndlg = false\n").unwrap();
    assert_eq!(c.world.preset, Preset::Campus);
    assert_eq!(c.world.users, Some(3));
    assert!(!c.attack.dlg && c.attack.analytic);
    assert_eq!(c.attack.settings, ScenarioConfig::default().attack.settings);
    assert_eq!(c.seed, ScenarioConfig::default().seed);
    let json = ScenarioConfig::parse(r#"{"seed": 4, "fl": {"client_fraction": 0.5}}"#).unwrap();
    assert_eq!((json.seed, json.fl.client_fraction), (4, 0.5));
    assert_eq!(json.fl.local, ScenarioConfig::default().fl.local);
    let e = ScenarioConfig::parse("[fl.local]\nepoch = 3\n").unwrap_err();
    assert!(e.contains("epoch"), "{e}");
}

#[test]
fn a_target_outside_the_federation_is_refused() {
    let mut c = quick(RoundLength::Day, 1);
    c.target = 3;
    c.participants = None;
    let e = Lab::new(c).err().unwrap();
    assert!(e.contains("user 3 does not exist"), "{e}");
}

#[test]
fn a_config_that_spells_it_defense_still_reads() {
    let c = ScenarioConfig {
        defence: crate::signal_map::defence::Defence::GeoInd {
            epsilon_per_m: 0.01,
        },
        ..ScenarioConfig::default()
    };
    let json = serde_json::to_string(&c).unwrap();
    assert!(json.contains("\"defence\""));
    let old = json.replace("\"defence\"", "\"defense\"");
    assert_eq!(ScenarioConfig::parse(&old).unwrap(), c);
}

#[test]
fn a_split_that_leaves_nothing_a_run_of_no_rounds_and_a_negative_weight_are_refused() {
    use crate::signal_map::attack::objective::LabelMode;
    let refused = |f: fn(&mut ScenarioConfig)| {
        let mut c = ScenarioConfig::default();
        f(&mut c);
        c.validate().unwrap_err().to_string()
    };
    for bad in [0.0, 1.0, -0.2, f64::NAN] {
        let c = ScenarioConfig {
            test_fraction: bad,
            ..ScenarioConfig::default()
        };
        assert!(
            c.validate()
                .unwrap_err()
                .to_string()
                .starts_with("test_fraction"),
            "{bad}"
        );
    }
    assert!(refused(|c| c.max_rounds = Some(0)).starts_with("max_rounds"));
    assert!(refused(|c| c.world.users = Some(0)).starts_with("world.users"));
    assert!(refused(|c| c.world.weeks = Some(53)).starts_with("world.weeks"));
    let e = refused(|c| c.attack.settings.label = LabelMode::JointL2 { weight: -1.0 });
    assert!(e.starts_with("attack.label.weight"), "{e}");
    let mut fine = ScenarioConfig::default();
    fine.attack.settings.label = LabelMode::JointL2 { weight: 0.5 };
    fine.max_rounds = Some(1);
    assert!(fine.validate().is_ok());
    // A trail with no pace (issue 41 §5.6), DLG's and the FedAvg-aware attack's.
    let e = refused(|c| c.attack.settings.trail_every = 0);
    assert!(
        e.starts_with("attack.trail_every: must be at least 1 (not 0)"),
        "{e}"
    );
    let e = refused(|c| {
        c.attack.fedavg = Some(FedAvgConfig {
            trail_every: 0,
            ..FedAvgConfig::default()
        });
    });
    assert!(e.starts_with("attack.fedavg.trail_every"), "{e}");
}

#[test]
fn the_same_batch_round_after_round_shrinks_the_update_and_is_refused_where_it_cannot_be() {
    // [000] Fig. 7: week 2's data, trained on three times, from a start that fits the labels on
    // average (so the model moves and the update changes).
    let mut c = quick(RoundLength::Week, 3);
    c.output_bias = OutputBias::MeanLabel;
    c.fl.local.learning_rate = 0.05;
    c.same_batch = Some(SameBatch {
        round: 1,
        rounds: 3,
    });
    let mut lab = Lab::new(c.clone()).unwrap();
    lab.run(None, &mut |_| {}).unwrap();
    let records = lab.records();
    assert_eq!(records.len(), 3);
    for r in &records {
        assert_eq!(r.points, records[0].points);
        assert_eq!(r.true_centroid.position, records[0].true_centroid.position);
    }
    let norms: Vec<f64> = records.iter().map(|r| r.update_norm.unwrap()).collect();
    assert!(norms.iter().all(|n| n.is_finite() && *n > 0.0), "{norms:?}");
    assert_ne!(norms[0], norms[2]);
    // The final model on the data it trained on.
    let past = lab.past_rmse().unwrap();
    assert!(past.is_finite() && past > 0.0);
    // A round the target has no data in, no rounds, and a drawn trajectory are refused.
    let mut empty = c.clone();
    empty.same_batch = Some(SameBatch {
        round: 40,
        rounds: 2,
    });
    let e = Lab::new(empty).err().unwrap();
    assert!(e.contains("same_batch.round") && e.contains("40"), "{e}");
    let mut none = c.clone();
    none.same_batch = Some(SameBatch {
        round: 1,
        rounds: 0,
    });
    assert_eq!(none.validate().unwrap_err().field, "same_batch.rounds");
}

#[test]
fn the_label_prior_is_the_mean_of_what_it_names() {
    let mut c = quick(RoundLength::Week, 1);
    c.world.users = None;
    let lab = Lab::new(c.clone()).unwrap();
    let data = lab.data();
    let mean =
        |ys: Vec<f32>| (ys.iter().map(|&y| f64::from(y)).sum::<f64>() / ys.len() as f64) as f32;
    let everyone = LabelPrior::Everyone.of(data, 0, 5);
    assert_eq!(everyone, data.mean_label());
    let target = LabelPrior::Target.of(data, 0, 5);
    assert_eq!(
        target,
        mean(data.user_data(0).iter().map(|s| s.y).collect())
    );
    assert_ne!(target, everyone, "the campus has other users");
    // All of it is everyone's; a sample is drawn from the seed, the same each time.
    assert!((LabelPrior::Sample { percent: 100.0 }.of(data, 0, 5) - everyone).abs() < 1e-3);
    let one = LabelPrior::Sample { percent: 1.0 };
    assert_eq!(one.of(data, 0, 5), one.of(data, 0, 5));
    assert_ne!(one.of(data, 0, 5), one.of(data, 0, 6));
    for bad in [0.0, -1.0, 101.0, f64::NAN] {
        c.attack.label_prior = LabelPrior::Sample { percent: bad };
        assert_eq!(
            c.validate().unwrap_err().field,
            "attack.label_prior.percent"
        );
    }
}
