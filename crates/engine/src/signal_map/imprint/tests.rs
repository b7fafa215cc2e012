//! The imprint module on the Signal map's model: exact recovery of a fix alone in its bin, a
//! blend where several share one, and the same fixes through the real secure sum.

use super::*;
use crate::signal_map::model::ModelPreset;
use crate::signal_map::model::train::{LocalTraining, train_local_with};
use crate::signal_map::secure::{Contribution, aggregate};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::rng::Stream;

const AREA: (Metres, Metres) = (Metres::new(0.0, 0.0), Metres::new(1000.0, 1000.0));

fn standardizer() -> Standardizer {
    Standardizer {
        mean: [500.0, 500.0],
        sd: [290.0, 290.0],
    }
}

fn sample(user: u32, pos: Metres, y: f32) -> Sample {
    Sample {
        user,
        time: 0.0,
        pos,
        x: standardizer().to_input(pos),
        y,
    }
}

/// A fix at the middle of bin `bin` (positions along the diagonal, where m rises fastest),
/// moved across it by `shift` of the bin's width.
fn in_bin(imprint: &Imprint, user: u32, bin: usize, shift: f64, y: f32) -> Sample {
    let std = standardizer();
    // m = (x₁ + x₂)/2 = ((e − 500) + (n − 500))/(2·290) on the diagonal e = n: m = (e − 500)/290.
    let lo = f64::from(imprint.thresholds[bin].max(-1.8));
    let hi = imprint
        .thresholds
        .get(bin + 1)
        .map_or(lo + 0.05, |&q| f64::from(q));
    let m = lo + (hi - lo) * (0.5 + shift);
    let e = 500.0 + m * std.sd[0];
    sample(user, Metres::new(e, e), y)
}

fn fedsgd() -> LocalTraining {
    LocalTraining {
        batch_size: None,
        epochs: 1,
        learning_rate: 0.05,
    }
}

/// One phone's change of the planted model on `batch`.
fn change(spec: &MlpSpec, planted: &[f32], batch: &[Sample], local: &LocalTraining) -> Vec<f32> {
    let mut s = Stream::new(7, "imprint-test");
    let after = train_local_with(spec, planted, batch, local, &mut s, None)
        .unwrap()
        .params;
    after.iter().zip(planted).map(|(a, b)| a - b).collect()
}

fn setup(bins: usize) -> (Imprint, MlpSpec, Vec<f32>) {
    let honest_spec = ModelPreset::Small.spec();
    let honest = honest_spec.init(-90.0, &mut Stream::new(3, "init"));
    let imprint = Imprint::over_area(bins, &standardizer(), AREA);
    let (spec, planted) = imprint.plant(&honest_spec, &honest);
    (imprint, spec, planted)
}

#[test]
fn the_bins_are_the_area_quantiles_and_the_model_keeps_its_layers() {
    let (imprint, spec, planted) = setup(16);
    assert_eq!(imprint.bins(), 16);
    assert!(imprint.thresholds.windows(2).all(|w| w[0] < w[1]));
    // Equal mass: of a fine uniform grid over the area, each bin holds about 1/16.
    let std = standardizer();
    let mut counts = [0usize; 16];
    for i in 0..100 {
        for j in 0..100 {
            let p = Metres::new(5.0 + 10.0 * i as f64, 5.0 + 10.0 * j as f64);
            counts[imprint.bin_of(std.to_input(p))] += 1;
        }
    }
    for c in counts {
        assert!((560..=690).contains(&c), "{counts:?}");
    }
    assert_eq!(spec.hidden.len(), 3);
    assert_eq!(planted.len(), spec.parameter_count());
    let honest_spec = ModelPreset::Small.spec();
    let honest = honest_spec.init(-90.0, &mut Stream::new(3, "init"));
    // Everything after the connection is the honest model's.
    let tail = honest_spec.layers()[0].b;
    assert_eq!(
        &planted[planted.len() - (honest.len() - tail)..],
        &honest[tail..]
    );
}

/// FedSGD, one fix in each of several bins: every hit bin gives its fix exactly, and no other
/// bin is hit.
#[test]
fn one_fix_per_bin_is_recovered_exactly() {
    let (imprint, spec, planted) = setup(32);
    let batch: Vec<Sample> = [3usize, 7, 8, 15, 20, 31]
        .iter()
        .enumerate()
        .map(|(j, &b)| {
            in_bin(
                &imprint,
                0,
                b,
                0.1 * j as f64 - 0.25,
                -80.0 - 3.0 * j as f32,
            )
        })
        .collect();
    for s in &batch {
        assert!(
            batch
                .iter()
                .filter(|o| imprint.bin_of(o.x) == imprint.bin_of(s.x))
                .count()
                == 1
        );
    }
    let delta = change(&spec, &planted, &batch, &fedsgd());
    let readouts = imprint.read(&planted, &delta, 0.0);
    assert_eq!(readouts.len(), batch.len(), "{readouts:?}");
    let record = ImprintRecord::new(32, &readouts, &standardizer(), &batch, &[]);
    assert_eq!(record.your_exact, batch.len(), "{record:?}");
    assert_eq!(record.blends, 0);
    let worst = record.max_error_m.unwrap();
    assert!(worst < 1e-3, "{worst} m");
}

/// Two fixes in one bin: that bin gives their blend, (δ_a·x_a + δ_b·x_b)/(δ_a + δ_b) — between
/// them when their residuals share a sign, as here (both labels above the model's −90 dBm) —
/// which matches neither; the lone fix is still exact.
#[test]
fn several_fixes_in_a_bin_give_their_blend() {
    let (imprint, spec, planted) = setup(32);
    let batch = vec![
        in_bin(&imprint, 0, 10, -0.3, -70.0),
        in_bin(&imprint, 0, 10, 0.3, -60.0),
        in_bin(&imprint, 0, 20, 0.0, -90.0),
    ];
    let delta = change(&spec, &planted, &batch, &fedsgd());
    let readouts = imprint.read(&planted, &delta, 0.0);
    let record = ImprintRecord::new(32, &readouts, &standardizer(), &batch, &[]);
    assert_eq!(record.hit_bins, 2, "{readouts:?}");
    assert_eq!(record.your_exact, 1);
    assert_eq!(record.blends, 1);
    let blend = readouts.iter().find(|r| r.bin == 10).unwrap();
    let p = standardizer().to_metres(blend.input);
    let (a, b) = (batch[0].pos, batch[1].pos);
    // On the segment between the two (both lie on the diagonal), away from each.
    assert!(
        p.east > a.east.min(b.east) && p.east < a.east.max(b.east),
        "{p:?}"
    );
    assert!(p.distance(&a) > 1.0 && p.distance(&b) > 1.0);
}

/// Two phones through the core's protocol (FedAvg's weighted mean of [n_k·Δ_k, n_k], quantised
/// and masked): the server reads the same fixes from the unmasked sum as from the two changes
/// summed in floats, yours and the other phone's.
#[test]
fn the_secure_sum_gives_the_same_fixes() {
    let (imprint, spec, planted) = setup(32);
    let mine = vec![
        in_bin(&imprint, 0, 4, 0.0, -80.0),
        in_bin(&imprint, 0, 12, 0.2, -95.0),
        in_bin(&imprint, 0, 25, -0.2, -100.0),
    ];
    let theirs = vec![
        in_bin(&imprint, 1, 6, 0.1, -85.0),
        in_bin(&imprint, 1, 18, 0.0, -75.0),
    ];
    let a = change(&spec, &planted, &mine, &fedsgd());
    let b = change(&spec, &planted, &theirs, &fedsgd());
    let plain: Vec<f32> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (3.0 * x + 2.0 * y) / 5.0)
        .collect();
    let contributions = [
        Contribution {
            weight: 3,
            delta: a,
        },
        Contribution {
            weight: 2,
            delta: b,
        },
    ];
    let round = aggregate(&contributions, Vec::new(), 0, 11).unwrap();
    let (mean, weight) = round.genuine.clone().unwrap();
    assert_eq!(weight, 5);
    let noise = round.encoding.mean_step(2, weight);
    let secure = imprint.read(&planted, &mean, noise);
    let floats = imprint.read(&planted, &plain, 0.0);
    let bins = |r: &[Readout]| r.iter().map(|x| x.bin).collect::<Vec<_>>();
    assert_eq!(bins(&secure), bins(&floats));
    let record = ImprintRecord::new(32, &secure, &standardizer(), &mine, &[&theirs]);
    assert_eq!(
        (record.your_exact, record.everyone_exact),
        (3, 5),
        "{record:?}"
    );
    assert_eq!(record.everyone_fixes, 5);
    assert!(record.max_error_m.unwrap() <= EXACT_M);
}

#[test]
fn bins_out_of_range_are_refused_by_name() {
    for bins in [0, 1, 1025] {
        let e = ImprintConfig { bins }.validate().unwrap_err().to_string();
        assert!(e.contains("secure_aggregation.imprint.bins"), "{e}");
    }
    ImprintConfig::default().validate().unwrap();
}

/// `sees=malicious` turns the server malicious over secure aggregation; its bins are a row of
/// their own (shown only then), refused by name out of range, and leaving it clears them.
#[test]
fn the_malicious_server_is_a_value_of_what_the_server_sees() {
    use crate::signal_map::scenario::ScenarioConfig;
    use crate::signal_map::settings::SETTINGS;
    use whereabouts_core::setting::{get, set};
    let mut c = ScenarioConfig::default();
    set(SETTINGS, &mut c, "sees", "malicious").unwrap();
    assert_eq!(get(SETTINGS, &c, "sees"), "malicious");
    let sa = c.secure_aggregation.as_ref().unwrap();
    assert_eq!(sa.imprint, Some(ImprintConfig::default()));
    set(SETTINGS, &mut c, "bins", "256").unwrap();
    assert_eq!(get(SETTINGS, &c, "bins"), "256");
    c.validate().unwrap();
    for bad in ["1", "1025", "2.5"] {
        let e = set(SETTINGS, &mut c, "bins", bad).unwrap_err();
        assert!(
            e.starts_with("Imprint bins: must be a whole number from 2 to 1024"),
            "{e}"
        );
    }
    set(SETTINGS, &mut c, "sees", "sum").unwrap();
    assert_eq!(get(SETTINGS, &c, "sees"), "sum");
    assert_eq!(c.secure_aggregation.as_ref().unwrap().imprint, None);
    set(SETTINGS, &mut c, "sees", "updates").unwrap();
    assert_eq!(c.secure_aggregation, None);
    // An engine config with an absurd number of bins is refused by name.
    let mut c = ScenarioConfig::default();
    set(SETTINGS, &mut c, "sees", "malicious").unwrap();
    c.secure_aggregation.as_mut().unwrap().imprint = Some(ImprintConfig { bins: 5000 });
    let e = c.validate().unwrap_err().to_string();
    assert!(e.contains("secure_aggregation.imprint.bins"), "{e}");
}
