//! `whereabouts reproduce --study disaggregation` (issue 39 §2): gradient disaggregation breaks
//! secure aggregation where Lam et al. say it does, and is refused where it cannot.

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

/// The cells of the row for `users` and the setting that starts with `what`.
fn row<'a>(md: &'a str, users: &str, what: &str) -> Vec<&'a str> {
    let line = md
        .lines()
        .find(|l| l.starts_with(&format!("| {users} | {what}")))
        .unwrap_or_else(|| panic!("no row {users}, {what}: {md}"));
    line.trim_matches('|').split(" | ").map(str::trim).collect()
}

#[test]
fn too_few_rounds_are_refused_and_many_rounds_of_a_fixed_model_give_your_update_back() {
    let out = whereabouts(&[
        "reproduce",
        "--study",
        "disaggregation",
        "--quick",
        "--seeds",
        "2",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let md = text(&out.stdout);
    assert!(md.contains("### Gradient disaggregation"), "{md}");
    assert!(
        md.contains("whereabouts reproduce --study disaggregation"),
        "{md}"
    );
    // Half as many rounds as users: the server cannot solve for everyone's update.
    let few = row(&md, "6", "fixed model, ½ × users rounds");
    assert_eq!(few[4], "2 of 2", "{few:?}");
    assert_eq!(few[5], "fewer rounds than users", "{few:?}");
    // Four times as many rounds of a fixed model: who took part, and your update, exactly.
    let many = row(&md, "6", "fixed model, 4 × users rounds |");
    assert_eq!(many[4], "0 of 2", "{many:?}");
    assert_eq!(many[6], "2 of 2", "{many:?}");
    assert!(many[7].starts_with("0.0 ±"), "{many:?}");
    // Lemma 1 on the recovered update is Lemma 1 on your own.
    assert_eq!(many[8], many[9], "{many:?}");
}

#[test]
fn the_study_is_the_signal_maps_alone() {
    let out = whereabouts(&["reproduce", "--lab", "density", "--study", "disaggregation"]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("no study “disaggregation”"), "{err}");
    assert!(err.contains("secure-sum"), "{err}");
}
