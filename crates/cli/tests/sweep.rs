//! `whereabouts sweep`: a study planned into a directory, run point by point in separate
//! processes (as a batch engine would: shards, GNU parallel, the Slurm script, the Kubernetes
//! Job's command), and merged into the same bytes as `reproduce` on one machine.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_whereabouts");

fn whereabouts(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("whereabouts-sweep-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    dir
}

fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Markdown without its heading (which says how the tables were made) and every CSV.
fn tables(md: &Path, csv: &Path) -> (String, Vec<(String, String)>) {
    let markdown = std::fs::read_to_string(md).unwrap();
    let body = markdown.splitn(4, '\n').nth(3).unwrap().to_string();
    let mut files: Vec<(String, String)> = std::fs::read_dir(csv)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    (body, files)
}

fn plan(dir: &Path) -> usize {
    let out = ok(whereabouts(&[
        "sweep",
        "plan",
        "density",
        "--quick",
        "--out",
        dir.to_str().unwrap(),
    ]));
    let n: usize = text(&out.stdout)
        .split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .expect("plan says how many points");
    let count = ok(whereabouts(&["sweep", "count", dir.to_str().unwrap()]));
    assert_eq!(text(&count.stdout).trim(), n.to_string());
    n
}

/// Runs the sweep in `dir` as two shards in two processes at once.
fn run_in_two_shards(dir: &Path) {
    let shard = |k: &str| {
        Command::new(BIN)
            .args(["sweep", "run", dir.to_str().unwrap(), "--shard", k])
            .spawn()
            .unwrap()
    };
    let (mut a, mut b) = (shard("1/2"), shard("2/2"));
    assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
}

/// The merged tables of the density quick study (whose heading they must carry).
fn merge(dir: &Path, name: &str) -> (String, Vec<(String, String)>) {
    let (merged, tables) = merged(dir, name);
    assert!(
        merged.starts_with("## `whereabouts reproduce --lab density --seed 1 --quick`"),
        "{merged}"
    );
    tables
}

/// `sweep merge` of `dir`: its whole Markdown, and its tables as [`tables`] reads them.
fn merged(dir: &Path, name: &str) -> (String, (String, Vec<(String, String)>)) {
    let (md, csv) = (fresh(&format!("{name}.md")), fresh(&format!("{name}-csv")));
    ok(whereabouts(&[
        "sweep",
        "merge",
        dir.to_str().unwrap(),
        "--out",
        md.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]));
    (std::fs::read_to_string(&md).unwrap(), tables(&md, &csv))
}

/// `reproduce` on one machine, once for every test.
fn reproduced() -> &'static (String, Vec<(String, String)>) {
    static ONCE: std::sync::OnceLock<(String, Vec<(String, String)>)> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        let (md, csv) = (fresh("reproduce.md"), fresh("reproduce-csv"));
        ok(whereabouts(&[
            "reproduce",
            "--lab",
            "density",
            "--quick",
            "--out",
            md.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
        ]));
        let t = tables(&md, &csv);
        assert_eq!(t.1.len(), 7, "one CSV per table");
        t
    })
}

#[test]
fn two_shards_in_two_processes_merge_into_reproduces_tables() {
    let dir = fresh("shards");
    let n = plan(&dir);
    assert!(n > 10, "{n} points");
    let lines = std::fs::read_to_string(dir.join("points.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), n);
    assert!(
        lines.starts_with("{\"index\":0,\"seed\":1,\"config\":{"),
        "{lines}"
    );
    run_in_two_shards(&dir);
    assert_eq!(merge(&dir, "shards"), *reproduced());
    // Running again redoes nothing.
    let again = ok(whereabouts(&[
        "sweep",
        "run",
        dir.to_str().unwrap(),
        "--index",
        "0",
    ]));
    assert!(text(&again.stderr).contains("point 0: done already"));
}

#[test]
fn gnu_parallel_runs_every_point_when_it_is_installed() {
    if Command::new("parallel").arg("--version").output().is_err() {
        eprintln!("GNU parallel is not installed: skipped");
        return;
    }
    let dir = fresh("parallel");
    plan(&dir);
    ok(Command::new("bash")
        .arg(repo().join("tools/sweep/parallel.sh"))
        .args([dir.to_str().unwrap(), "2"])
        .env("WHEREABOUTS", BIN)
        .output()
        .unwrap());
    assert_eq!(merge(&dir, "parallel"), *reproduced());
}

#[test]
fn the_slurm_script_and_the_kubernetes_job_run_their_index() {
    let dir = fresh("batch");
    let n = plan(&dir);
    // Slurm: the script as an array task would run it, the index in SLURM_ARRAY_TASK_ID.
    let slurm = repo().join("tools/sweep/slurm.sbatch");
    for i in (0..n).step_by(2) {
        ok(Command::new("bash")
            .arg(&slurm)
            .arg(&dir)
            .env("SLURM_ARRAY_TASK_ID", i.to_string())
            .env("WHEREABOUTS", BIN)
            .output()
            .unwrap());
    }
    let outside = Command::new("bash")
        .arg(&slurm)
        .arg(&dir)
        .env_remove("SLURM_ARRAY_TASK_ID")
        .output()
        .unwrap();
    assert!(!outside.status.success());
    assert!(text(&outside.stderr).contains("run me as a Slurm array task"));
    // Kubernetes: the container's command from the manifest, the index in
    // JOB_COMPLETION_INDEX, `whereabouts` on the PATH as in the image.
    let manifest = std::fs::read_to_string(repo().join("tools/sweep/k8s-job.yaml")).unwrap();
    assert!(manifest.contains("completionMode: Indexed"));
    let args_line = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("args:"))
        .expect("the manifest's args");
    let args: Vec<String> = serde_json::from_str(args_line.trim()).unwrap();
    assert_eq!(args[0], "-c");
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap());
    for i in (1..n).step_by(2) {
        ok(Command::new("sh")
            .args(["-c", &args[1]])
            .env("JOB_COMPLETION_INDEX", i.to_string())
            .env("SWEEP_DIR", &dir)
            .env("PATH", &path)
            .output()
            .unwrap());
    }
    assert_eq!(merge(&dir, "batch"), *reproduced());
}

#[test]
fn a_missing_or_corrupt_result_is_named_and_a_bad_point_fails_clearly() {
    let dir = fresh("broken");
    let n = plan(&dir);
    for i in [0, 1, 2, 3] {
        ok(whereabouts(&[
            "sweep",
            "run",
            dir.to_str().unwrap(),
            "--index",
            &i.to_string(),
        ]));
    }
    std::fs::write(dir.join("results/2.json"), "{\"index\": 2, \"outc").unwrap();
    let out = whereabouts(&["sweep", "merge", dir.to_str().unwrap()]);
    assert!(!out.status.success());
    let e = text(&out.stderr);
    let missing: Vec<String> = (4..n).map(|i| i.to_string()).collect();
    assert!(
        e.contains(&format!(
            "{} of {n} points have no result: {}",
            n - 4,
            missing.join(", ")
        )),
        "{e}"
    );
    assert!(e.contains("results/2.json: corrupt"), "{e}");
    // A re-run replaces the corrupt result.
    let rerun = ok(whereabouts(&[
        "sweep",
        "run",
        dir.to_str().unwrap(),
        "--index",
        "2",
    ]));
    assert!(text(&rerun.stderr).contains("running point 2 again"));
    // Out of range, a malformed shard, a second plan into the same directory.
    let far = whereabouts(&["sweep", "run", dir.to_str().unwrap(), "--index", "100000"]);
    assert!(
        text(&far.stderr).contains(&format!("the sweep has points 0 to {}, not 100000", n - 1))
    );
    let shard = whereabouts(&["sweep", "run", dir.to_str().unwrap(), "--shard", "3/2"]);
    assert!(text(&shard.stderr).contains("--shard: “3/2” is not K/N"));
    let again = whereabouts(&[
        "sweep",
        "plan",
        "density",
        "--quick",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(text(&again.stderr).contains("already holds a sweep"));
    // A point whose configuration is absurd fails with the lab's message, naming the point.
    let points = std::fs::read_to_string(dir.join("points.jsonl")).unwrap();
    let last = points.lines().last().unwrap();
    let bad = last.replacen("\"population\":", "\"population\":0,\"was\":", 1);
    std::fs::write(dir.join("points.jsonl"), points.replace(last, &bad)).unwrap();
    let out = whereabouts(&[
        "sweep",
        "run",
        dir.to_str().unwrap(),
        "--index",
        &(n - 1).to_string(),
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains(&format!("point {}:", n - 1)),
        "{}",
        text(&out.stderr)
    );
    // Not a sweep at all.
    let nowhere = whereabouts(&["sweep", "merge", fresh("nothing").to_str().unwrap()]);
    assert!(text(&nowhere.stderr).contains("made by `whereabouts sweep plan`"));
}

#[test]
fn a_result_copied_from_another_sweep_is_refused_by_name() {
    // The same study planned with another seed: point 0's result there is another point's.
    let (ours, theirs) = (fresh("ours"), fresh("theirs"));
    plan(&ours);
    ok(whereabouts(&[
        "sweep",
        "plan",
        "density",
        "--quick",
        "--seed",
        "2",
        "--out",
        theirs.to_str().unwrap(),
    ]));
    for dir in [&ours, &theirs] {
        ok(whereabouts(&[
            "sweep",
            "run",
            dir.to_str().unwrap(),
            "--index",
            "0",
        ]));
    }
    std::fs::copy(theirs.join("results/0.json"), ours.join("results/0.json")).unwrap();
    let out = whereabouts(&["sweep", "merge", ours.to_str().unwrap()]);
    assert!(!out.status.success());
    let e = text(&out.stderr);
    assert!(
        e.contains("results/0.json: the result of another point")
            && e.contains("copied from another sweep"),
        "{e}"
    );
    // `sweep run` runs it again in its place.
    let rerun = ok(whereabouts(&[
        "sweep",
        "run",
        ours.to_str().unwrap(),
        "--index",
        "0",
    ]));
    assert!(text(&rerun.stderr).contains("running point 0 again"));
}

/// A small city for the Density lab's page study (its settings over the lab's defaults).
const SMALL_CITY: &str = "population = 600\ngrid_side = 48\nattacked = 40\n";

#[test]
fn a_page_study_on_a_config_file_sweeps_into_reproduces_table() {
    let config = fresh("city.toml");
    std::fs::write(&config, SMALL_CITY).unwrap();
    let config = config.to_str().unwrap();
    let study = ["--study", "schemes", "--config", config, "--seed", "3"];
    let (md, csv) = (fresh("schemes.md"), fresh("schemes-csv"));
    let mut args = vec!["reproduce", "--lab", "density"];
    args.extend(study);
    args.extend([
        "--out",
        md.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    ok(whereabouts(&args));
    let here = tables(&md, &csv);
    assert!(
        here.0
            .contains("every scheme on one city (N = 600, seed 3)"),
        "{}",
        here.0
    );
    // B = 0 … 50, the own bump, five ε: one row each, in one table.
    assert_eq!(here.0.matches("\n| B = ").count(), 7, "{}", here.0);
    assert_eq!(here.1.len(), 1);
    assert_eq!(here.1[0].0, "density-schemes-1.csv");

    let dir = fresh("schemes");
    let mut args = vec!["sweep", "plan", "density"];
    args.extend(study);
    args.extend(["--out", dir.to_str().unwrap()]);
    let planned = text(&ok(whereabouts(&args)).stdout);
    assert!(
        planned.starts_with(
            "13 points of `whereabouts reproduce --lab density --study schemes --seed 3 --config "
        ),
        "{planned}"
    );
    let points = std::fs::read_to_string(dir.join("points.jsonl")).unwrap();
    assert!(
        points.lines().all(|l| l.contains("\"seed\":3,")),
        "{points}"
    );
    run_in_two_shards(&dir);
    assert_eq!(merged(&dir, "schemes-merged").1, here);
}

#[test]
fn every_lab_plans_its_reproduce_and_page_studies_and_wrong_choices_are_named() {
    let planned = |args: &[&str]| {
        let dir = fresh(&args.join("-").replace(['/', '.'], "_"));
        let mut all = vec!["sweep", "plan"];
        all.extend(args);
        all.extend(["--out", dir.to_str().unwrap()]);
        let out = ok(whereabouts(&all));
        text(&out.stdout)
            .split_whitespace()
            .next()
            .and_then(|w| w.parse::<usize>().ok())
            .unwrap()
    };
    // The Linkability lab's tables: a point per federation and its analysis, on each of the
    // quick scale's two populations (36 each: 28 for Tables 4/6 and 8, Figs. 8, 13 and 14, the
    // epochs and the unlabelled linkers; Table 3's three splits; Figs. 9 and 12's one federation
    // each; the raw data's three splits, Fig. 6, Tables 5/7 and Fig. 11).
    assert_eq!(planned(&["linkability", "--quick"]), 72);
    // Each page study: a point per run of the page's study.
    assert_eq!(planned(&["linkability", "--study", "mitigations"]), 16);
    assert_eq!(planned(&["mobility", "--study", "defences"]), 21);
    assert_eq!(planned(&["signal-map", "--study", "defences"]), 20);
    assert_eq!(planned(&["signal-map", "--study", "local-steps"]), 7);
    // The Signal map's defence comparison under [000]'s four protocols, sized as reproduce: a
    // point per defence setting (18 under FedAvg, 17 under FedSGD) and quick world (2).
    assert_eq!(
        planned(&["signal-map", "--study", "defences-compared", "--quick"]),
        2 * (18 + 17 + 17 + 18)
    );

    let refused = |args: &[&str]| {
        let mut all = vec!["reproduce"];
        all.extend(args);
        let out = whereabouts(&all);
        assert!(!out.status.success(), "{args:?}");
        text(&out.stderr)
    };
    let e = refused(&["--lab", "mobility", "--study", "schemes"]);
    assert!(
        e.contains(
            "--study: the mobility lab has no study “schemes” (reproduce, secure-sum, unicity, membership, defences)"
        ),
        "{e}"
    );
    let e = refused(&["--lab", "density", "--study", "schemes", "--quick"]);
    assert!(
        e.contains("--quick, --model and --seeds size the reproduce study"),
        "{e}"
    );
    let config = fresh("typo.toml");
    std::fs::write(&config, "populaton = 600\n").unwrap();
    let path = config.to_str().unwrap();
    let e = refused(&["--lab", "density", "--config", path]);
    assert!(
        e.contains("--config: the reproduce study has no base configuration"),
        "{e}"
    );
    let e = refused(&["--lab", "density", "--study", "schemes", "--config", path]);
    assert!(
        e.contains(&format!(
            "{path}: not a density configuration: unknown field `populaton`"
        )),
        "{e}"
    );
    let e = refused(&[
        "--lab",
        "density",
        "--study",
        "schemes",
        "--config",
        "/no/such.toml",
    ]);
    assert!(e.contains("/no/such.toml"), "{e}");
}
