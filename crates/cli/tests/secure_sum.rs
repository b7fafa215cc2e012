//! `whereabouts` when the server sees only the sum (issue 39 §2): the labs' `secure-sum`
//! studies, the Signal map's `disaggregation` study and `run --set …sees=sum`, as a user runs
//! them.

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

/// The cells of the table row that starts with `scheme | server`.
fn row<'a>(md: &'a str, scheme: &str, server: &str) -> Vec<&'a str> {
    let line = md
        .lines()
        .find(|l| l.starts_with(&format!("| {scheme} | {server} |")))
        .unwrap_or_else(|| panic!("no row {scheme}, {server}: {md}"));
    line.trim_matches('|').split(" | ").map(str::trim).collect()
}

/// `reproduce --lab <lab> --study secure-sum`, quick on two seeds: its tables, once it
/// succeeded.
fn secure_sum_study(lab: &str) -> String {
    let out = whereabouts(&[
        "reproduce",
        "--lab",
        lab,
        "--study",
        "secure-sum",
        "--quick",
        "--seeds",
        "2",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn reproduce_density_secure_sum_puts_every_update_beside_the_sum() {
    let md = secure_sum_study("density");
    assert!(md.contains("### Under secure aggregation"), "{md}");
    assert!(md.contains("--lab density --study secure-sum"), "{md}");
    for server in ["peak picking", "fitting", "fitting + prior"] {
        // The density is a sum either way: random features rank the cells alike.
        let cells = row(&md, "B = 3", server);
        assert_eq!(cells[2], cells[3], "{server}: {cells:?}");
    }
    // Fitting finds everyone from their own upload at B = 3 (0 m) and not from the sum.
    let fit = row(&md, "B = 3", "fitting");
    assert!(fit[4].starts_with("0 ± 0 m (100"), "{fit:?}");
    assert!(!fit[5].starts_with("0 "), "{fit:?}");
    // Central DP beside the sum: each arm with its clip, the visitor's ε and the density.
    let (_, central) = md
        .split_once("### Under secure aggregation with central DP")
        .expect("the central-DP table");
    assert!(central.contains("built only in the Signal map"), "{md}");
    let cells = |l: &str| {
        l.trim_matches('|')
            .split(" | ")
            .map(str::trim)
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let rows: Vec<Vec<String>> = central
        .lines()
        .filter(|l| l.starts_with("| B = 3 | peak picking | "))
        .map(cells)
        .collect();
    let sees: Vec<&str> = rows.iter().map(|r| r[2].as_str()).collect();
    assert_eq!(
        sees,
        [
            "only the sum",
            "sum + DP, z = 0.5",
            "sum + DP, z = 2",
            "sum + DP, z = 1, the phones' noise, 10% drop out"
        ],
        "{md}"
    );
    assert_eq!(
        (rows[0][3].as_str(), rows[0][4].as_str()),
        ("–", "∞ (no noise)")
    );
    // At 48² and B = 3 the clip is the median norm √(48²·3/2) = 58.8; ε falls as z grows.
    assert_eq!(rows[1][3], "58.8", "{:?}", rows[1]);
    let eps = |r: &[String]| r[4].split(' ').next().unwrap().parse::<f64>().unwrap();
    assert!(
        eps(&rows[1]) > eps(&rows[2]) && eps(&rows[2]) > 0.0,
        "{rows:?}"
    );
    assert!(
        central.contains("| own bump | peak picking | sum + DP, z = 2 | 3.2 |"),
        "{md}"
    );
}

#[test]
fn sweep_plans_the_density_secure_sum_study_with_its_central_dp_arms() {
    let dir = std::env::temp_dir().join(format!(
        "whereabouts-density-secure-plan-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let out = whereabouts(&[
        "sweep",
        "plan",
        "density",
        "--study",
        "secure-sum",
        "--quick",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Two quick cities: 13 schemes × servers under every update and the sum (26), and the
    // second table's 3 schemes × servers under the sum and 3 central-DP arms (12).
    let n: usize = text(&out.stdout)
        .split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap();
    assert_eq!(n, 2 * (26 + 12), "{}", text(&out.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_honours_sees_and_names_a_bad_value() {
    let args = |sees: &str| {
        vec![
            "run".to_string(),
            "--lab".into(),
            "density".into(),
            "--set".into(),
            "d.N=300".into(),
            "--set".into(),
            "d.grid=64".into(),
            "--set".into(),
            format!("d.sees={sees}"),
        ]
    };
    let run = |sees: &str| {
        let a = args(sees);
        whereabouts(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let out = run("sum");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["config"]["sees"], "sum");
    let sum = json["summary"]["privacy"]["located"].as_f64().unwrap();
    let out = run("updates");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let every = json["summary"]["privacy"]["located"].as_f64().unwrap();
    assert!(
        every > sum + 0.3,
        "located: every update {every}, only the sum {sum}"
    );
    let bad = run("half");
    assert!(!bad.status.success());
    let e = text(&bad.stderr);
    assert!(
        e.contains("What the server sees") && e.contains("half"),
        "{e}"
    );
    // The sum + central DP: the visitor's ε over the query, the density beside its reference.
    let out = run("dp");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["config"]["sees"], "dp");
    let dp = &json["summary"]["central_dp"];
    assert_eq!(
        (dp["rounds"].as_u64(), dp["delta"].as_f64()),
        (Some(1), Some(1e-5))
    );
    assert!(dp["epsilon_total"].as_f64().unwrap() > 0.0, "{dp}");
    let rho = |v: &serde_json::Value| v["spearman_all"].as_f64().unwrap();
    let (noised, without) = (&json["summary"]["utility"], &json["summary"]["without_dp"]);
    assert!(rho(noised) < rho(without), "{noised} vs {without}");
    let mut a = args("dp");
    a.extend(["--set".into(), "d.dpclip=0".into()]);
    let bad = whereabouts(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!bad.status.success());
    let e = text(&bad.stderr);
    assert!(e.contains("Clip C") && e.contains("100,000"), "{e}");
}

#[test]
fn secure_sum_is_a_study_of_its_labs_only_and_not_on_real_data() {
    let bad = whereabouts(&[
        "reproduce",
        "--lab",
        "density",
        "--study",
        "secure-sum",
        "--real",
        "/nonexistent",
    ]);
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("--real /nonexistent: runs the reproduce study"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn reproduce_mobility_secure_sum_counts_the_co_participants() {
    let md = secure_sum_study("mobility");
    assert!(md.contains("### Under secure aggregation: ST-GIA"), "{md}");
    for co in ["0", "1", "2", "5", "10"] {
        assert!(md.contains(&format!("\n| {co} | ")), "{co}: {md}");
    }
    // Central DP beside every update and the sum, alone and with ten others: your ε over the
    // run, none without noise, and the malicious server said to be the Signal map's only.
    assert!(
        md.contains("### Under secure aggregation with central DP"),
        "{md}"
    );
    assert!(md.contains("built only in the Signal map"), "{md}");
    let cells = |l: &str| {
        l.trim_matches('|')
            .split(" | ")
            .map(str::trim)
            .map(String::from)
            .collect::<Vec<_>>()
    };
    for co in ["0", "10"] {
        let rows: Vec<Vec<String>> = md
            .lines()
            .filter(|l| l.starts_with(&format!("| {co} | ")) && l.split(" | ").count() == 9)
            .map(cells)
            .collect();
        let sees: Vec<&str> = rows.iter().map(|r| r[1].as_str()).collect();
        assert_eq!(
            sees,
            [
                "every update",
                "only the sum",
                "sum + DP, z = 0.5",
                "sum + DP, z = 2",
                "sum + DP, z = 1, the phones' noise, 10% drop out"
            ],
            "{md}"
        );
        assert_eq!(rows[1][5], "∞ (no noise)", "{:?}", rows[1]);
        // Trusted noise at q = 1: ε falls as z grows, and is the same on every seed.
        let eps = |r: &[String]| r[5].split(' ').next().unwrap().parse::<f64>().unwrap();
        assert!(
            eps(&rows[2]) > eps(&rows[3]) && eps(&rows[3]) > 0.0,
            "{rows:?}"
        );
        assert!(rows[2][5].ends_with("± 0.0"), "{:?}", rows[2]);
    }
    // The n − 1 attack: a Sybil server holds your gradient alone (one genuine phone in the
    // sum), a minimum cohort of k makes it let k in.
    let (_, sybil) = md
        .split_once("### The n − 1 (Sybil) attack")
        .expect("the Sybil table");
    let genuine = |name: &str| {
        let line = sybil
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row {name}: {sybil}"));
        cells(line)[1].clone()
    };
    assert_eq!(
        genuine("only the sum, Sybil server (5 of its own phones), no minimum"),
        "1.0 ± 0.0"
    );
    assert_eq!(
        genuine("only the sum, honest server, you and 5 others"),
        "6.0 ± 0.0"
    );
    for k in [3, 6] {
        assert_eq!(
            genuine(&format!(
                "only the sum, Sybil server, phones ask for {k} genuine"
            )),
            format!("{k}.0 ± 0.0")
        );
    }
}

#[test]
fn run_mobility_under_central_dp_reports_your_epsilon_and_refuses_noise_the_sum_cannot_hold() {
    let args = |extra: &[&str]| {
        let mut a = vec![
            "run",
            "--lab",
            "mobility",
            "--set",
            "m.T=3",
            "--set",
            "m.iters=3",
            "--set",
            "m.co=4",
            "--set",
            "m.sees=dp",
            "--set",
            "m.dpq=0.5",
        ];
        a.extend_from_slice(extra);
        whereabouts(&a)
    };
    let out = args(&["--set", "m.dpz=2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["config"]["sees"], "dp");
    assert_eq!(json["config"]["central_dp"]["noise_multiplier"], 2.0);
    let dp = &json["summary"]["central_dp"];
    assert_eq!(
        (
            dp["rounds"].as_u64(),
            dp["delta"].as_f64(),
            dp["sampling_rate"].as_f64()
        ),
        (Some(3), Some(1e-5), Some(0.5))
    );
    assert!(
        dp["epsilon_total"].as_f64().unwrap() > dp["epsilon_round"].as_f64().unwrap(),
        "{dp}"
    );
    assert!(json["summary"]["utility_error_m"].as_f64().is_some());
    let bad = args(&["--set", "m.dpnoise=distributed", "--set", "m.dpz=20"]);
    assert!(!bad.status.success());
    let e = text(&bad.stderr);
    assert!(
        e.contains("central_dp.noise_multiplier") && e.contains("z = 20") && e.contains("±64"),
        "{e}"
    );
    let bad = args(&["--set", "m.dpclip=9"]);
    assert!(!bad.status.success());
    let e = text(&bad.stderr);
    assert!(e.contains("Clip C") && e.contains('9'), "{e}");
}

#[test]
fn run_mobility_with_co_participants_and_a_round_the_city_cannot_fill() {
    let out = whereabouts(&[
        "run",
        "--lab",
        "mobility",
        "--set",
        "m.T=2",
        "--set",
        "m.iters=5",
        "--set",
        "m.co=3",
        "--set",
        "m.sees=sum",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["config"]["sees"], "sum");
    assert_eq!(json["config"]["co_participants"], 3);
    assert_eq!(json["summary"]["rounds_done"], 2);
    let bad = whereabouts(&[
        "run",
        "--lab",
        "mobility",
        "--set",
        "m.users=5",
        "--set",
        "m.co=7",
    ]);
    assert!(!bad.status.success());
    let e = text(&bad.stderr);
    assert!(
        e.contains("Co-participants") && e.contains("7 co-participants") && e.contains("it has 5"),
        "{e}"
    );
}

#[test]
fn reproduce_linkability_secure_sum_scores_sums_of_k_devices() {
    let out = whereabouts(&[
        "reproduce",
        "--lab",
        "linkability",
        "--study",
        "secure-sum",
        "--quick",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let md = text(&out.stdout);
    assert!(
        md.contains("### Under secure aggregation: a server that trained its attacks before"),
        "{md}"
    );
    assert!(md.contains("--lab linkability --study secure-sum"), "{md}");
    // Quick: 12 people, so the largest cohort is all of them.
    let cells = |k: &str| -> Vec<String> {
        let line = md
            .lines()
            .find(|l| l.starts_with(&format!("| {k} | ")))
            .unwrap_or_else(|| panic!("no row k = {k}: {md}"));
        line.trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().to_string())
            .collect()
    };
    for k in ["1", "2", "5", "10", "12"] {
        cells(k);
    }
    // A sum of one is the lab's identification: its MLP top-1 is the note's.
    let one = cells("1");
    assert!(
        md.contains(&format!("MLP top-1 {}, top-5 {}", one[2], one[5])),
        "{one:?}: {md}"
    );
    // A sum of everyone holds every owner: every first answer hits, as chance does.
    let all = cells("12");
    assert_eq!(all[4], "100.0", "{all:?}");
    assert!(all[2].starts_with("100.0 ± 0.0"), "{all:?}");
    assert_eq!(all[10], "at chance", "{all:?}");
    // Sum + central DP: the map's error under two noise levels beside no DP and the
    // references, with your ε (larger at the smaller z); the malicious server named as the
    // Signal map's.
    assert!(
        md.contains("### Under secure aggregation + central DP: the signal map's test error"),
        "{md}"
    );
    let row = |name: &str| -> Vec<String> {
        let line = md
            .lines()
            .find(|l| l.starts_with(&format!("| {name}")))
            .unwrap_or_else(|| panic!("no row {name}: {md}"));
        line.trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().to_string())
            .collect()
    };
    let plain = row("every update, or only the sum (no DP)");
    assert!(
        plain[1].contains('±') && plain[2] == "∞ (no DP)",
        "{plain:?}"
    );
    let eps = |r: &[String]| -> f64 { r[2].split(' ').next().unwrap().parse().unwrap() };
    let (low, high) = (
        row("sum + central DP, z = 0.3"),
        row("sum + central DP, z = 1,"),
    );
    assert!(
        eps(&low) > eps(&high) && eps(&high) > 0.0,
        "{low:?} {high:?}"
    );
    row("mean predictor");
    row("the same model trained centrally");
    assert!(md.contains("built only in the Signal"), "{md}");
    // The noised sums: a row an arm and cohort size.
    assert!(
        md.contains(
            "### Under secure aggregation + central DP: the same server scoring noised sums"
        ),
        "{md}"
    );
    assert!(md.contains("| z = 1, C = 3 | 12 | "), "{md}");
}

/// `reproduce --study disaggregation`: gradient disaggregation breaks secure aggregation where
/// Lam et al. say it does, and is refused where it cannot.
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
    let many = row(&md, "6", "fixed model, 4 × users rounds");
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
