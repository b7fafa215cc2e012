//! The n − 1 (Sybil) attack in the Mobility lab (issue 39 §2): a server that fills the round
//! with its own phones subtracts their words from the secure sum and holds the target's own
//! gradient, so ST-GIA does what it does on every update; a minimum cohort of k genuine phones
//! leaves it the mean of k, the blend; a setting beyond its bound or a minimum no round can
//! meet is refused by name.

use super::*;
use crate::mobility::config::AttackConfig;
use crate::mobility::secure::GRADIENT_CLIP;
use crate::mobility::settings::{SETTINGS, lab_default};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::metrics::median;
use whereabouts_core::secagg::RoundSum;
use whereabouts_core::setting::set;

fn config(sees: Sees, co: usize, sybils: usize, min_genuine: usize) -> MobConfig {
    MobConfig {
        rounds: 5,
        held_out: 2,
        users: 12,
        co_participants: co,
        sees,
        sybils,
        min_genuine,
        attack: AttackConfig {
            iterations: 120,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Round 0's observed gradient and the secure sum's record, with every genuine phone's
/// gradient (user 0 first).
fn round_zero(c: MobConfig) -> (Vec<f32>, SecureRound, Vec<Vec<f32>>) {
    let lab = MobLab::start(c).unwrap();
    let Phase::Attack(_, round) = &lab.phase else {
        panic!("round 0 is attacked at once without a self-audit");
    };
    let info = round.secure.clone().unwrap();
    let gradients = (0..lab.trainers())
        .map(|u| {
            let (w, y) = traces::window(&lab.users[u].normalised, 0).unwrap();
            lstm::loss_and_gradient(&lab.params, &w, &y).1
        })
        .collect();
    let observed = round.observed.as_ref().unwrap().gradient.clone();
    (observed, info, gradients)
}

/// Every round's errors of ST-GIA's reconstruction to the target's own positions, metres.
fn errors(c: MobConfig) -> Vec<f64> {
    let mut lab = MobLab::start(c).unwrap();
    lab.finish(&mut |_| {}).unwrap();
    lab.records()
        .iter()
        .flat_map(|r| r.errors_m.clone())
        .collect()
}

/// With three Sybils and no minimum, the server subtracts its own phones' words and holds
/// your gradient alone: bit for bit your own words decoded (your gradient rounded to the
/// round's quantisation, within its step), so ST-GIA runs on your own update to the
/// quantisation. Over five rounds it lands as near your positions as on every update (here
/// under 500 m at the median), and far nearer than on the honest server's sum of the same
/// five phones.
#[test]
fn a_sybil_server_without_a_minimum_inverts_your_own_gradient() {
    let (observed, info, gradients) = round_zero(config(Sees::Sum, 4, 3, 1));
    assert_eq!((info.clients, info.sybils, info.protocol), (1, 3, true));
    let sum = RoundSum::new(4, GRADIENT_CLIP, lstm::PARAMETERS).unwrap();
    let own: Vec<f64> = gradients[0].iter().map(|&v| f64::from(v)).collect();
    let scale = sum.quantiser().scale();
    let rounded: Vec<f32> = sum
        .encode(0, &own)
        .unwrap()
        .iter()
        .map(|&w| (f64::from(w as i32) / scale / 1.0) as f32)
        .collect();
    assert_eq!(observed, rounded);
    for (o, g) in observed.iter().zip(&gradients[0]) {
        assert!((f64::from(o - g)).abs() <= info.step + 1e-7);
    }

    let sybil = median(&errors(config(Sees::Sum, 4, 3, 1))).unwrap();
    let every = median(&errors(config(Sees::Updates, 0, 0, 1))).unwrap();
    let honest = median(&errors(config(Sees::Sum, 4, 0, 1))).unwrap();
    assert!(
        sybil < 500.0 && every < 500.0 && 2.0 * sybil < honest,
        "Sybil server: median {sybil} m; every update {every} m; the honest sum of 5 {honest} m"
    );
}

/// A minimum cohort of three genuine phones: the server must let two others in, and what is
/// left after its Sybils is the three phones' mean — ST-GIA lands about as far from your
/// positions as on an honest sum of three (within a factor of 2), and more than twice as far
/// as with no minimum.
#[test]
fn a_minimum_cohort_leaves_the_sybil_server_the_blend() {
    let (observed, info, gradients) = round_zero(config(Sees::Sum, 4, 3, 3));
    assert_eq!((info.clients, info.sybils), (3, 3));
    let genuine = crate::mobility::secure::cohort(3, 3, 5, 0, MobConfig::default().seed);
    assert_eq!((genuine.len(), genuine[0]), (3, 0));
    for (i, o) in observed.iter().enumerate() {
        let mean = genuine
            .iter()
            .map(|&u| f64::from(gradients[u][i]))
            .sum::<f64>()
            / 3.0;
        assert!((f64::from(*o) - mean).abs() <= info.step + 1e-7, "{i}");
    }
    let no_minimum = median(&errors(config(Sees::Sum, 4, 3, 1))).unwrap();
    let minimum = median(&errors(config(Sees::Sum, 4, 3, 3))).unwrap();
    let honest_three = median(&errors(config(Sees::Sum, 2, 0, 1))).unwrap();
    assert!(
        minimum > 2.0 * no_minimum && minimum > 500.0,
        "minimum of 3: median {minimum} m against {no_minimum} m with none"
    );
    assert!(
        minimum > 0.5 * honest_three && minimum < 2.0 * honest_three,
        "minimum of 3: median {minimum} m against {honest_three} m for an honest sum of 3"
    );
}

/// Sybils beyond their bound and a minimum above the round's phones are refused by the engine
/// and by the rows, naming the setting and the value; the training rows do not shrink the
/// round below the minimum.
#[test]
fn a_sybil_setting_out_of_bounds_or_a_minimum_above_the_round_is_refused_by_name() {
    let e = config(Sees::Sum, 4, 101, 1).validate().unwrap_err();
    assert!(e.starts_with("sybils") && e.contains("101"), "{e}");
    let e = config(Sees::Sum, 4, 3, 0).validate().unwrap_err();
    assert!(e.starts_with("min_genuine") && e.contains('0'), "{e}");
    let e = config(Sees::Sum, 4, 3, 6).validate().unwrap_err();
    assert!(
        e.starts_with("min_genuine")
            && e.contains("6 genuine phones")
            && e.contains("the 5 phones"),
        "{e}"
    );
    assert!(config(Sees::Sum, 4, 3, 5).validate().is_ok());
    // The minimum does not apply where the server sees every update.
    assert!(config(Sees::Updates, 4, 0, 6).validate().is_ok());

    let mut c = lab_default();
    set(SETTINGS, &mut c, "m.sees", "sum").unwrap();
    set(SETTINGS, &mut c, "m.co", "4").unwrap();
    set(SETTINGS, &mut c, "m.sybil", "3").unwrap();
    let e = set(SETTINGS, &mut c, "m.cohort", "6").unwrap_err();
    assert_eq!(
        e,
        "Minimum genuine phones a round: 6 is more than the 5 users taking part: no round would ever be sent"
    );
    let e = set(SETTINGS, &mut c, "m.sybil", "101").unwrap_err();
    assert!(
        e.starts_with("Sybil clients (n − 1 attack)") && e.contains("101"),
        "{e}"
    );
    set(SETTINGS, &mut c, "m.cohort", "5").unwrap();
    let e = set(SETTINGS, &mut c, "m.co", "3").unwrap_err();
    assert!(
        e.starts_with("Co-participants") && e.contains("minimum cohort of 5"),
        "{e}"
    );
    set(SETTINGS, &mut c, "m.fed", "fedavg").unwrap();
    set(SETTINGS, &mut c, "m.co", "0").unwrap();
    let e = set(SETTINGS, &mut c, "m.users", "4").unwrap_err();
    assert!(
        e.starts_with("Users in the city") && e.contains("minimum cohort of 5"),
        "{e}"
    );
    let e = set(SETTINGS, &mut c, "m.fed", "one").unwrap_err();
    assert!(e.contains("1 phones training"), "{e}");
    assert_eq!((c.sybils, c.min_genuine, c.users), (3, 5, 100));
    c.validate().unwrap();
}

/// A link names the two settings under `m.`: they round-trip, and a config without them is an
/// honest server with no minimum, written without them.
#[test]
fn the_sybil_settings_round_trip_and_default_to_an_honest_server() {
    let c: MobConfig = serde_json::from_str(r#"{"rounds": 3}"#).unwrap();
    assert_eq!((c.sybils, c.min_genuine), (0, 1));
    let text = serde_json::to_string(&MobConfig::default()).unwrap();
    assert!(
        !text.contains("sybils") && !text.contains("min_genuine"),
        "{text}"
    );
    let mut c = lab_default();
    let pairs = [
        ("m.cohort", "3"),
        ("m.sybil", "2"),
        ("m.co", "4"),
        ("m.sees", "sum"),
    ];
    assert!(whereabouts_core::setting::apply(SETTINGS, &mut c, &pairs).is_empty());
    assert_eq!((c.sybils, c.min_genuine, c.co_participants), (2, 3, 4));
    let text = whereabouts_core::setting::pairs(SETTINGS, &c);
    assert!(text.contains(&"m.sybil=2".to_string()), "{text:?}");
    assert!(text.contains(&"m.cohort=3".to_string()), "{text:?}");
}
