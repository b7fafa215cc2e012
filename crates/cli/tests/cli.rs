//! The `whereabouts` binary as a user runs it.

use std::path::PathBuf;
use std::process::{Command, Output};
use whereabouts_core::rng::Stream;
use whereabouts_engine::signal_map::model::ModelPreset;

fn whereabouts(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_whereabouts"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("whereabouts-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn version_names_the_engine() {
    let out = whereabouts(&["--version"]);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains(whereabouts_engine::VERSION));
}

#[test]
fn unknown_command_is_an_error_with_usage() {
    let out = whereabouts(&["frobnicate"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("unrecognized subcommand 'frobnicate'"));
}

#[test]
fn generate_writes_a_csv_of_the_world() {
    let path = temp("campus.csv");
    let out = whereabouts(&[
        "generate",
        "--preset",
        "campus",
        "--users",
        "1",
        "--weeks",
        "1",
        "--out",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let csv = std::fs::read_to_string(&path).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("user,time_unix,lat,lon,rsrp_dbm"));
    let rows = lines.count();
    assert!(rows > 1000, "{rows} rows");
    assert!(text(&out.stderr).contains(&format!("{rows} measurements")));
    let bad = whereabouts(&["generate", "--preset", "moon"]);
    assert!(!bad.status.success());
    assert!(text(&bad.stderr).contains("unknown preset `moon`"));
}

#[test]
fn run_is_reproducible_and_its_config_round_trips() {
    let config = whereabouts(&["config"]);
    assert!(config.status.success());
    let toml = text(&config.stdout).replace("seed = 1", "seed = 3\nmax_rounds = 2");
    let toml = toml.replace(
        "[world]\npreset = \"campus\"",
        "[world]\npreset = \"campus\"\nweeks = 1",
    );
    let cfg = temp("quick.toml");
    std::fs::write(&cfg, toml).unwrap();
    let run = |out: &PathBuf| {
        let o = whereabouts(&[
            "run",
            "--config",
            cfg.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        std::fs::read_to_string(out).unwrap()
    };
    let (a, b) = (run(&temp("a.json")), run(&temp("b.json")));
    assert_eq!(a, b, "same config, same JSON");
    let json: serde_json::Value = serde_json::from_str(&a).unwrap();
    let events = json["events"].as_array().unwrap();
    assert_eq!(events.first().unwrap()["event"], "started");
    let rounds: Vec<_> = events.iter().filter(|e| e["event"] == "attacked").collect();
    assert_eq!(rounds.len(), 2);
    for r in rounds {
        assert!(r["true_centroid"]["latlon"]["lat"].is_number());
        assert!(r["dlg"]["reconstruction"]["error_m"].is_number());
        assert!(r["analytic"]["error_m"].is_number());
        assert!(r["rmse_db"].is_number());
    }
    assert!(json["summary"]["emd_m"].is_number());
}

#[test]
fn a_bad_config_names_the_problem_and_fails() {
    let cfg = temp("bad.toml");
    let toml = text(&whereabouts(&["config"]).stdout).replace("epochs = 1", "epochs = 0");
    std::fs::write(&cfg, toml).unwrap();
    let out = whereabouts(&["run", "--config", cfg.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("bad.toml") && err.contains("fl.local.epochs"),
        "{err}"
    );
    let missing = whereabouts(&["run", "--config", "/nonexistent/x.toml"]);
    assert!(text(&missing.stderr).contains("/nonexistent/x.toml"));
}

/// A case made elsewhere: the exact gradient of one point, inline JSON.
#[test]
fn attack_recovers_the_point_behind_a_case_file() {
    let spec = ModelPreset::Small.spec();
    let weights = spec.init(0.0, &mut Stream::new(1, "w"));
    let (x, y) = ([0.6, -0.4], -101.0);
    let g: Vec<f32> = spec
        .example_gradient(&weights, x, y)
        .iter()
        .map(|&v| v as f32)
        .collect();
    let case = serde_json::json!({
        "model": "small",
        "weights": weights,
        "update": { "kind": "gradient", "values": g },
        "standardizer": { "mean": [0.0, 0.0], "sd": [500.0, 500.0] },
        "start": [-700.0, 600.0],
    });
    let path = temp("case.json");
    std::fs::write(&path, case.to_string()).unwrap();
    let out = whereabouts(&["attack", "--case", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (e, n) = (
        r["dlg"]["position"]["east"].as_f64().unwrap(),
        r["dlg"]["position"]["north"].as_f64().unwrap(),
    );
    assert!(
        (e - 300.0).abs() < 2.0 && (n + 200.0).abs() < 2.0,
        "{e}, {n}"
    );
    assert!((r["dlg"]["label_dbm"].as_f64().unwrap() + 101.0).abs() < 0.5);

    let broken = serde_json::json!({ "model": "small", "weights": [1.0, 2.0],
        "update": { "kind": "gradient", "values": g } });
    std::fs::write(&path, broken.to_string()).unwrap();
    let out = whereabouts(&["attack", "--case", path.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("weights: 2 numbers, but the model has 4417 parameters"));

    // The attack block may give only what it changes (docs/formats.md: the rest defaults).
    let mut partial = case.clone();
    partial["attack"] = serde_json::json!({ "max_iterations": 3000 });
    std::fs::write(&path, partial.to_string()).unwrap();
    let out = whereabouts(&["attack", "--case", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // No local step, or a standardiser that maps every input to one point, is refused.
    for (key, value, said) in [
        (
            "update",
            serde_json::json!({ "kind": "gradient", "values": g, "steps": 0 }),
            "update.steps",
        ),
        (
            "standardizer",
            serde_json::json!({ "mean": [0.0, 0.0], "sd": [0.0, 0.0] }),
            "standardizer: sd [0.0, 0.0] must be positive",
        ),
    ] {
        let mut bad = case.clone();
        bad[key] = value;
        std::fs::write(&path, bad.to_string()).unwrap();
        let out = whereabouts(&["attack", "--case", path.to_str().unwrap()]);
        assert!(!out.status.success(), "{key}");
        assert!(text(&out.stderr).contains(said), "{}", text(&out.stderr));
    }
}

/// A FedAvg case: the weights before and after two local steps of one point each; the
/// FedAvg-aware attack simulates them and answers with one dummy per step.
#[test]
fn attack_runs_the_fedavg_aware_attack_on_a_fedavg_case() {
    use whereabouts_engine::signal_map::model::train::{LocalTraining, train_local};
    use whereabouts_engine::signal_map::trace::Sample;
    let spec = ModelPreset::Small.spec();
    let before = spec.init(0.0, &mut Stream::new(2, "w"));
    let sample = |x: [f32; 2], y| Sample {
        user: 0,
        time: 0.0,
        pos: whereabouts_core::geo::Metres::new(0.0, 0.0),
        x,
        y,
    };
    let batch = [sample([0.6, -0.4], -101.0), sample([-0.2, 0.3], -92.0)];
    let local = LocalTraining {
        batch_size: Some(1),
        epochs: 1,
        learning_rate: 0.01,
    };
    let after = train_local(&spec, &before, &batch, &local, &mut Stream::new(3, "t"))
        .unwrap()
        .params;
    let mut case = serde_json::json!({
        "model": "small",
        "weights": after,
        "update": { "kind": "weights", "before": before, "after": after,
                    "learning_rate": 0.01, "steps": 2 },
        "standardizer": { "mean": [0.0, 0.0], "sd": [500.0, 500.0] },
        "fedavg": { "samples": 2, "batch_size": 1, "epochs": 1,
                    "attack": { "max_iterations": 300, "optimizer": { "kind": "adam", "lr": 0.02 },
                                "init": { "kind": "previous" }, "label": "joint",
                                "distance": "cosine", "dummies": "per_step",
                                "tolerance_m": 0.01, "patience": 10, "trail_every": 10 } },
    });
    let path = temp("fedavg-case.json");
    std::fs::write(&path, case.to_string()).unwrap();
    let out = whereabouts(&["attack", "--case", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = &r["fedavg"];
    assert_eq!(f["dummies"].as_array().map(Vec::len), Some(2), "{f}");
    assert!(f["iterations"].as_u64().unwrap() <= 300);
    assert!(f["neg_cosine"].as_f64().unwrap() < -0.9, "{f}");
    assert!(r["dlg"]["position"]["east"].as_f64().unwrap().is_finite());

    case["update"] = serde_json::json!({ "kind": "gradient", "values": after });
    std::fs::write(&path, case.to_string()).unwrap();
    let out = whereabouts(&["attack", "--case", path.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("the update must be"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn reproduce_secure_sum_writes_both_tables_and_the_sybil_server_holds_your_update() {
    // One world at the smoke-test size (about 30 s in a debug build).
    let out = whereabouts(&[
        "reproduce",
        "--study",
        "secure-sum",
        "--quick",
        "--seeds",
        "1",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let md = text(&out.stdout);
    assert!(md.contains("### What the server learns from sums"), "{md}");
    assert!(
        md.contains("### The n − 1 (Sybil) attack on secure aggregation"),
        "{md}"
    );
    let sybil = md
        .lines()
        .find(|l| l.contains("Sybil server (10 of its own clients), no minimum"))
        .expect("the Sybil server's row");
    assert!(
        sybil.contains("equal to \"you alone\""),
        "the Sybil server should hold your update: {sybil}"
    );
}

#[test]
fn reproduce_refuses_an_unknown_model() {
    let out = whereabouts(&["reproduce", "--quick", "--model", "huge"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("--model: “huge” is not a model"));
}

#[test]
fn reproduce_refuses_an_absurd_number_of_seeds() {
    // `--worlds` is the older spelling of `--seeds`.
    for (flag, n) in [("--seeds", "0"), ("--seeds", "33"), ("--worlds", "40")] {
        let out = whereabouts(&["reproduce", "--quick", flag, n]);
        assert!(!out.status.success());
        assert!(text(&out.stderr).contains(&format!("--seeds: {n} is not between 1 and 32")));
    }
}

/// `reproduce --lab <lab> --quick` with its tables written to a Markdown file and to CSV files,
/// once it succeeded: the Markdown and the first table's CSV (`<lab>-1.csv`).
fn reproduced_as_files(lab: &str) -> (String, String) {
    let dir = temp(&format!("{lab}-csv"));
    let md = temp(&format!("{lab}.md"));
    let out = whereabouts(&[
        "reproduce",
        "--lab",
        lab,
        "--quick",
        "--out",
        md.to_str().unwrap(),
        "--csv",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let markdown = std::fs::read_to_string(&md).unwrap();
    let first = std::fs::read_to_string(dir.join(format!("{lab}-1.csv"))).unwrap();
    (markdown, first)
}

#[test]
fn reproduce_linkability_writes_the_papers_tables_as_markdown_and_csv() {
    let (markdown, first) = reproduced_as_files("linkability");
    for title in [
        "Identification, closed world",
        "Matching",
        "Per layer",
        "Open world",
        "Without labels",
        "Mitigations",
        "The collaborative task",
        "Training-set size",
        "Which rounds",
        "Distinctiveness",
        "Identification from the raw data",
        "Aggregation",
    ] {
        assert!(markdown.contains(title), "no “{title}” table");
    }
    assert!(markdown.contains("| random | MLP |"));
    assert!(first.starts_with("split,attack,mean AP % (×chance),top-1 %,top-5 %,paper"));
    let unknown = whereabouts(&["reproduce", "--lab", "nowhere", "--quick"]);
    assert!(text(&unknown.stderr).contains("signal-map, density, linkability, mobility"));
}

#[test]
fn reproduce_mobility_writes_the_papers_tables_as_markdown_and_csv() {
    let (markdown, first) = reproduced_as_files("mobility");
    for title in [
        "Attacks by round — vehicle-like data",
        "Attacks by round — check-in-like data",
        "ST-GIA ablation",
        "Defences by ε",
        "Utility against ASR",
        "One client against FedAvg",
        "The attack as the model converges",
    ] {
        assert!(markdown.contains(title), "no “{title}” table");
    }
    // Both ST-GIAs, each named for what it is.
    assert!(markdown.contains("| ST-GIA as the authors' code (causal calibration, Eq. 9) |"));
    assert!(markdown.contains("| ST-GIA as Algorithm 1 prints it (causal calibration, Eq. 9) |"));
    assert!(first.starts_with("attack,round 1,round 10,mean ASR,AIT"));
}

#[test]
fn import_summarises_a_good_file_and_names_the_problem_in_a_bad_one() {
    let good = temp("good.csv");
    std::fs::write(
        &good,
        "time,lat,lon,rsrp\n2024-05-01T10:00:00Z,33.6455,-117.8425,-95\n2024-05-01T10:01:00Z,33.6460,-117.8430,-97\n",
    )
    .unwrap();
    let out = whereabouts(&["import", good.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.contains("CSV") && said.contains("2 fixes, 0 rows skipped"),
        "{said}"
    );
    assert!(
        said.contains("from 2024-05-01T10:00:00Z to 2024-05-01T10:01:00Z (1 min)"),
        "{said}"
    );
    assert!(said.contains("signal: from the file"), "{said}");
}

/// Every file of the bad-file corpus through the binary: a clear message, a non-zero exit for
/// errors, never a panic; a file read whole says `message` in its summary.
#[test]
fn import_handles_the_whole_bad_file_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/import");
    let expected = std::fs::read_to_string(dir.join("expected.tsv")).unwrap();
    for line in expected
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut f = line.splitn(3, '\t');
        let (file, kind, message) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
        let path = dir.join("bad").join(file);
        let out = whereabouts(&["import", path.to_str().unwrap()]);
        let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(!said.contains("panicked"), "{file}: {said}");
        assert_eq!(out.status.success(), kind != "error", "{file}: {said}");
        assert!(
            said.contains(message),
            "{file}: got “{said}”, want “{message}”"
        );
    }
}

#[test]
fn run_with_data_places_the_world_around_the_file_and_follows_its_days() {
    let config = whereabouts(&["config"]);
    let toml = text(&config.stdout).replace("seed = 1", "seed = 3\nmax_rounds = 2");
    let cfg = temp("data.toml");
    std::fs::write(&cfg, toml).unwrap();
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../www/samples/signal-log.csv"
    );
    let out = temp("data.json");
    let o = whereabouts(&[
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--data",
        sample,
        "--thin",
        "600",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let rounds: Vec<_> = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "attacked")
        .collect();
    assert_eq!(rounds.len(), 2);
    // The sample's first day starts 2026-01-05 (UTC); its fixes are on the synthetic campus.
    assert_eq!(rounds[0]["start_unix"], 1_767_571_200.0);
    let lat = rounds[0]["true_centroid"]["latlon"]["lat"]
        .as_f64()
        .unwrap();
    assert!((33.63..33.66).contains(&lat), "{lat}");
    // Thinned to one fix per 10 minutes: at most 144 a day.
    assert!(rounds[0]["points"].as_u64().unwrap() <= 144);
    // A file that is not there, and a thinning that leaves nothing, are clear errors.
    let o = whereabouts(&[
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--data",
        "nope.gpx",
    ]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("nope.gpx"));
    let o = whereabouts(&[
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--data",
        sample,
        "--thin",
        "9999999",
    ]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("--thin 9999999 leaves fewer than two fixes"));
}

#[test]
fn density_runs_a_configuration_to_json_and_names_a_bad_setting() {
    let config = temp("density.toml");
    std::fs::write(
        &config,
        "population = 400\ngrid_side = 32\nattacked = 20\n[scheme]\nkind = \"kde\"\n",
    )
    .unwrap();
    let out = whereabouts(&[
        "density",
        "--config",
        config.to_str().unwrap(),
        "--surfaces",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The baseline's bumps give everyone away (to the 250 m cell), and its estimate is the
    // exact KDE.
    let worst = json["guesses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let d = |k: &str| g["truth"][k].as_f64().unwrap() - g["guess"][k].as_f64().unwrap();
            d("east").hypot(d("north"))
        })
        .fold(0.0, f64::max);
    assert!(worst <= 125.0 * 2f64.sqrt() + 1e-9, "{worst}");
    assert_eq!(json["summary"]["utility"]["spearman_all"], 1.0);
    assert_eq!(json["guesses"].as_array().unwrap().len(), 20);
    assert_eq!(json["exact"].as_array().unwrap().len(), 32 * 32);
    assert_eq!(json["visitor"].as_array().unwrap().len(), 2);
    // The same settings give the same numbers.
    let again = whereabouts(&[
        "density",
        "--config",
        config.to_str().unwrap(),
        "--surfaces",
    ]);
    assert_eq!(out.stdout, again.stdout);
    let printed = whereabouts(&["density", "--print-config"]);
    assert!(text(&printed.stdout).contains("bandwidth_m = 300.0"));
    std::fs::write(&config, "bandwidth_m = -1\n").unwrap();
    let bad = whereabouts(&["density", "--config", config.to_str().unwrap()]);
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("bandwidth_m"),
        "{}",
        text(&bad.stderr)
    );
    // More uploads attacked than people in the city: refused by name, before any work.
    std::fs::write(&config, "population = 100\nattacked = 300\n").unwrap();
    let bad = whereabouts(&["density", "--config", config.to_str().unwrap()]);
    assert!(!bad.status.success());
    let said = text(&bad.stderr);
    assert!(
        said.contains("attacked") && said.contains("100 people"),
        "{said}"
    );
}

#[test]
fn run_takes_any_lab_from_a_config_with_the_labs_defaults_for_what_it_leaves_out() {
    // Linkability: a small federation; the same settings give the same numbers.
    let config = temp("link.toml");
    std::fs::write(&config, "people = 10\nrounds = 6\n[mlp]\nepochs = 5\n").unwrap();
    let args = [
        "run",
        "--lab",
        "linkability",
        "--config",
        config.to_str().unwrap(),
    ];
    let out = whereabouts(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["summary"]["people"], 10);
    assert_eq!(json["summary"]["rounds_done"], 6);
    // Left out: the lab's default (the MLP's hidden layer, the devices' learning rate).
    assert_eq!(json["config"]["mlp"]["hidden"], 128);
    assert_eq!(json["config"]["learning_rate"], 0.05);
    assert_eq!(whereabouts(&args).stdout, out.stdout);

    // Mobility on the visitor's own file: the target is its positions.
    let config = temp("mob.toml");
    std::fs::write(&config, "rounds = 3\nusers = 20\n").unwrap();
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../www/samples/campus-week.gpx"
    );
    let out = whereabouts(&[
        "run",
        "--lab",
        "mobility",
        "--config",
        config.to_str().unwrap(),
        "--data",
        sample,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["config"]["target"]["kind"], "fixes");
    assert_eq!(json["summary"]["rounds_done"], 3);

    // Each lab prints its defaults; a bad setting, a bad lab and another lab's flag are named.
    for (lab, key) in [
        ("signal-map", "round_length"),
        ("density", "bandwidth_m"),
        ("linkability", "local_epochs"),
        ("mobility", "learning_rate"),
    ] {
        let printed = whereabouts(&["run", "--lab", lab, "--print-config"]);
        assert!(text(&printed.stdout).contains(key), "{lab}");
    }
    std::fs::write(&config, "rounds = 0\n").unwrap();
    let bad = whereabouts(&[
        "run",
        "--lab",
        "mobility",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("rounds"),
        "{}",
        text(&bad.stderr)
    );
    let bad = whereabouts(&["run", "--lab", "weather"]);
    assert!(text(&bad.stderr).contains("no lab is called “weather”"));
    let bad = whereabouts(&["run", "--lab", "mobility", "--timings"]);
    assert!(text(&bad.stderr).contains("--timings is the Signal map's only"));
    let bad = whereabouts(&["run", "--surfaces"]);
    assert!(text(&bad.stderr).contains("--surfaces is the Density lab's only"));
}

/// `whereabouts … | head -0`: the reader has gone before the first line; the command ends
/// quietly as Unix tools do (killed by SIGPIPE, or done), never a panic or an abort.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_whereabouts"))
        .args(["generate", "--users", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        out.status.success() || out.status.signal() == Some(13),
        "{:?}: {stderr}",
        out.status
    );
}

#[test]
fn what_can_be_refused_is_refused_before_any_work() {
    let cases: [(&[&str], &str); 8] = [
        (
            &["bench", "--secagg", "--clients", "10,1"],
            "--clients: 1 is not a cohort size from 2",
        ),
        (
            &["bench", "--secagg", "--dropout", "0.5"],
            "--dropout: 0.5 is not a share from 0 to below 0.5",
        ),
        (
            &["run", "--lab", "mobility", "--out", "/nonexistent/x.json"],
            "the folder /nonexistent does not exist",
        ),
        (&["run", "--out", "/nonexistent/x.json"], "does not exist"),
        (
            &["run", "--thin", "nan"],
            "--thin: NaN is not a number of seconds",
        ),
        (
            &["bench", "--iterations", "0"],
            "--iterations: 0 is not a whole number from 1",
        ),
        (
            &["bench", "--iterations", "1000000000000"],
            "is not a whole number from 1 to 1000000",
        ),
        (
            &[
                "run",
                "--lab",
                "mobility",
                "--config",
                "/dev/null",
                "--set",
                "m.def=geoi",
                "--out",
                "/",
            ],
            "is a folder, not a file",
        ),
    ];
    for (args, said) in cases {
        let started = std::time::Instant::now();
        let out = whereabouts(args);
        assert!(!out.status.success(), "{args:?}");
        let e = text(&out.stderr);
        assert!(e.contains(said), "{args:?}: {e}");
        assert!(
            started.elapsed().as_secs_f64() < 5.0,
            "{args:?} worked first"
        );
    }
}

#[test]
fn bench_secagg_times_a_round_and_counts_its_bytes() {
    let out = whereabouts(&[
        "bench",
        "--secagg",
        "--clients",
        "4,40",
        "--length",
        "32",
        "--dropout",
        "0.25",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    // Every protocol round of both protocols, with and without dropouts.
    for row in [
        "| 4 | SecAgg | 0 | round 0 (AdvertiseKeys) |",
        "| 4 | SecAgg | 1 | round 4 (Unmasking) |",
        "| 40 | SecAgg | 10 | round 1 (ShareKeys) |",
        "| 40 | SecAgg+ k=18 | 0 | round 2 (MaskedInputCollection) |",
        "| 4 | SecAgg+ (k ≥ n−1: complete) | 0 | round 0 (AdvertiseKeys) |",
    ] {
        assert!(table.contains(row), "no row {row} in\n{table}");
    }
    // One client's masked input: 4 + 4 · 32 bytes.
    assert!(
        table.contains("| 40 | SecAgg | 0 | round 2 (MaskedInputCollection) | ")
            && table.contains(" | 0.1 KiB | "),
        "{table}"
    );
}

/// `--worlds 3` (the older spelling of `--seeds`) runs every figure on three worlds in every
/// lab, Density's included (issue 41 §5.6: it was ignored there); planned, not run.
#[test]
fn every_lab_measures_on_as_many_worlds_as_asked() {
    for (lab, study) in [
        ("density", "secure-sum"),
        ("linkability", "reproduce"),
        ("mobility", "reproduce"),
    ] {
        for (worlds, seeds) in [(None, vec![1, 2]), (Some("3"), vec![1, 2, 3])] {
            let dir = temp(&format!("worlds-{lab}-{}", worlds.unwrap_or("default")));
            let mut args = vec![
                "sweep",
                "plan",
                lab,
                "--study",
                study,
                "--quick",
                "--out",
                dir.to_str().unwrap(),
            ];
            args.extend(worlds.map(|w| ["--worlds", w]).into_iter().flatten());
            let out = whereabouts(&args);
            assert!(out.status.success(), "{lab}: {}", text(&out.stderr));
            let points = std::fs::read_to_string(dir.join("points.jsonl")).unwrap();
            let planned: std::collections::BTreeSet<u64> = points
                .lines()
                .map(|l| {
                    serde_json::from_str::<serde_json::Value>(l).unwrap()["seed"]
                        .as_u64()
                        .unwrap()
                })
                .collect();
            assert_eq!(
                planned.into_iter().collect::<Vec<_>>(),
                seeds,
                "{lab} {worlds:?}"
            );
        }
    }
}

/// A config the engine refuses names the key and the value before any work (issue 41 §5.6):
/// a trail without a pace, and imported fixes out of time order.
#[test]
fn a_config_the_engine_refuses_is_named_before_any_work() {
    let default = text(&whereabouts(&["config"]).stdout);
    let fixes = "\n[imported]\nname = \"x.csv\"\nfixes = [ { time = 1767600000.0, lat = 33.6455, lon = -117.8425, line = 2 }, { time = 1767590000.0, lat = 33.6460, lon = -117.8430, line = 3 }, { time = 1767610000.0, lat = 33.6465, lon = -117.8435, line = 4 } ]\n";
    for (name, config, said) in [
        (
            "trail.toml",
            default.replace("trail_every = 10", "trail_every = 0"),
            "attack.trail_every: must be at least 1 (not 0)",
        ),
        (
            "unsorted.toml",
            default.clone() + fixes,
            "imported: x.csv: fix 2 (line 3) is at time 1767590000, not after the fix before it (1767600000)",
        ),
    ] {
        let path = temp(name);
        std::fs::write(&path, config).unwrap();
        let started = std::time::Instant::now();
        let out = whereabouts(&["run", "--config", path.to_str().unwrap()]);
        assert!(!out.status.success(), "{name}");
        assert!(
            text(&out.stderr).contains(said),
            "{name}: {}",
            text(&out.stderr)
        );
        assert!(started.elapsed().as_secs_f64() < 5.0, "{name} worked first");
    }
}

/// Whatever a message echoes is cut to its start and its length (issue 41 §5.7): an argument
/// of 100,000 characters, clap's own errors, a GPX file's 2 MB first tag, a case file's 2 MB
/// field name.
#[test]
fn a_message_echoes_no_more_than_the_start_of_a_huge_input() {
    let huge = "x".repeat(100_000);
    let gpx = temp("huge.gpx");
    std::fs::write(&gpx, format!("<{}>", "x".repeat(2_000_000))).unwrap();
    let case = temp("huge-case.json");
    std::fs::write(&case, format!("{{\"{}\": 1}}", "x".repeat(2_000_000))).unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["run", "--lab", &huge], "x… (10000"),
        (&["run", "--data", &huge], "x… (10000"),
        (&["bench", "--iterations", &huge], "x… (10000"),
        (&["import", gpx.to_str().unwrap()], "not a GPX file"),
        (
            &["attack", "--case", case.to_str().unwrap()],
            "case file: unknown field",
        ),
    ];
    for (args, said) in cases {
        let out = whereabouts(args);
        assert!(!out.status.success());
        let e = text(&out.stderr);
        assert!(e.len() < 1_000, "{} bytes for {}", e.len(), args[0]);
        assert!(e.contains(said), "{e}");
    }
    // Help still prints whole, to standard output.
    let help = whereabouts(&["run", "--help"]);
    assert!(help.status.success() && text(&help.stdout).contains("--print-config"));
}
