//! The `whereabouts` binary as a user runs it.

use std::process::Command;

fn whereabouts(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_whereabouts"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn version_names_the_engine() {
    let out = whereabouts(&["version"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.trim(),
        format!("whereabouts {}", whereabouts_engine::VERSION)
    );
}

#[test]
fn unknown_command_is_an_error_with_usage() {
    let out = whereabouts(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("unknown command `frobnicate`") && err.contains("USAGE"),
        "{err}"
    );
}
