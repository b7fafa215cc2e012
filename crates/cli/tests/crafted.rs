//! `whereabouts reproduce --lab linkability --study crafted` (issue 42 §3, [004] §4's T3): the
//! adversary's crafted clients, one per place, as a user runs the study.

use std::process::{Command, Output};

fn whereabouts(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_whereabouts"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn reproduce_linkability_crafted_ranks_places_against_a_control() {
    let out = whereabouts(&[
        "reproduce",
        "--lab",
        "linkability",
        "--study",
        "crafted",
        "--quick",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let md = text(&out.stdout);
    assert!(md.contains("### T3, crafted clients"), "{md}");
    let row = |start: &str| -> Vec<String> {
        md.lines()
            .find(|l| l.starts_with(&format!("| {start}")))
            .unwrap_or_else(|| panic!("no row {start}: {md}"))
            .trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().to_string())
            .collect()
    };
    let at = row("one crafted client at each place");
    let control = row("as many at random points (control)");
    assert_eq!((at.len(), control.len()), (9, 9), "{at:?}");
    let mean = |c: &str| -> f64 { c.split(' ').next().unwrap().parse().unwrap() };
    // The crafted clients at the places beat their control's AP, by the MLP and the k-NN.
    assert!(mean(&at[1]) > mean(&control[1]) + 5.0, "{at:?} {control:?}");
    assert!(mean(&at[2]) > mean(&control[2]) + 5.0, "{at:?} {control:?}");
    // A study the lab does not have is refused, naming it and the lab's studies.
    let bad = whereabouts(&["reproduce", "--lab", "linkability", "--study", "crafty"]);
    assert!(!bad.status.success());
    let e = text(&bad.stderr);
    assert!(e.contains("crafty") && e.contains("crafted"), "{e}");
}
