//! The Mobility lab when the server sees only the sum (issue 39 §2): the gradient ST-GIA
//! inverts is the protocol's sum of the round's gradients over the phones, the model moves by
//! it, and the reconstruction lands on a blend, not on your window.

use super::*;
use crate::mobility::config::AttackConfig;
use crate::mobility::secure::GRADIENT_CLIP;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::secagg::{RoundSum, protocol_sum};

fn config(sees: Sees, co: usize, rounds: usize, iterations: usize) -> MobConfig {
    MobConfig {
        rounds,
        held_out: 2,
        users: 12,
        co_participants: co,
        sees,
        attack: AttackConfig {
            iterations,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Round 0's observed gradient is the protocol's sum of the four phones' gradients over four,
/// word for word, within the quantisation of their plain mean, and not the target's own; the
/// model then moves by it.
#[test]
fn the_attack_inverts_the_sum_of_the_rounds_gradients() {
    let mut lab = MobLab::start(config(Sees::Sum, 3, 2, 3)).unwrap();
    let gradients: Vec<Vec<f32>> = (0..4)
        .map(|u| {
            let (w, y) = traces::window(&lab.users[u].normalised, 0).unwrap();
            lstm::loss_and_gradient(&lab.params, &w, &y).1
        })
        .collect();
    let sum = RoundSum::new(4, GRADIENT_CLIP, lstm::PARAMETERS).unwrap();
    let words: Vec<Vec<u32>> = gradients
        .iter()
        .enumerate()
        .map(|(k, g)| {
            let g: Vec<f64> = g.iter().map(|&v| f64::from(v)).collect();
            sum.encode(k as u32, &g).unwrap()
        })
        .collect();
    let scale = sum.quantiser().scale();
    let want: Vec<f32> = protocol_sum(&words, 5)
        .unwrap()
        .iter()
        .map(|&w| (f64::from(w as i32) / scale / 4.0) as f32)
        .collect();
    let Phase::Attack(_, round) = &lab.phase else {
        panic!("round 0 is attacked at once without a self-audit");
    };
    let observed = &round.observed.as_ref().unwrap().gradient;
    assert_eq!(observed, &want);
    let info = round.secure.clone().unwrap();
    assert_eq!((info.clients, info.protocol, info.clipped), (4, true, 0));
    for (i, o) in observed.iter().enumerate() {
        let plain = gradients.iter().map(|g| f64::from(g[i])).sum::<f64>() / 4.0;
        assert!((f64::from(*o) - plain).abs() <= info.step + 1e-6, "{i}");
    }
    assert!(
        observed
            .iter()
            .zip(&gradients[0])
            .any(|(a, b)| (a - b).abs() > 1e-4)
    );
    let before = lab.params.clone();
    lab.work(&|| 0.0, f64::INFINITY, &mut |_| {}).unwrap();
    let lr = lab.config.learning_rate;
    for ((a, b), g) in lab.params.iter().zip(&before).zip(&want) {
        assert_eq!(*a, b - lr * g);
    }
    assert_eq!(lab.records()[0].secure, Some(info));
}

/// With every update ST-GIA finds your window; with only the sum of yours and five others' it
/// does not — measured on the same round's model and data.
#[test]
fn the_sum_hides_your_window_among_the_rounds() {
    let run = |sees| {
        let mut lab = MobLab::start(config(sees, 5, 3, 120)).unwrap();
        lab.finish(&mut |_| {}).unwrap();
        let errors: Vec<f64> = lab
            .records()
            .iter()
            .flat_map(|r| r.errors_m.clone())
            .collect();
        whereabouts_core::metrics::median(&errors).unwrap()
    };
    let (every, sum) = (run(Sees::Updates), run(Sees::Sum));
    assert!(every < 500.0, "every update: median {every} m");
    assert!(
        sum > 2.0 * every && sum > 500.0,
        "only the sum: median {sum} m against {every} m"
    );
}

/// A stored config without `sees` or co-participants is the paper's: the target alone, every
/// update.
#[test]
fn without_sees_the_server_sees_your_update() {
    let c: MobConfig = serde_json::from_str(r#"{"rounds": 3}"#).unwrap();
    assert_eq!((c.sees, c.co_participants), (Sees::Updates, 0));
    assert_eq!(trainers(&c), 1);
    let text = serde_json::to_string(&MobConfig::default()).unwrap();
    assert!(
        !text.contains("sees") && !text.contains("co_participants"),
        "{text}"
    );
}
