//! The real data sets (`../shared/data/`, see its README; never in this repository, whose
//! licence theirs forbids) read as a user reads them: a slice of each through `whereabouts
//! import`. Where the folder is not found (set `WHEREABOUTS_DATA` to it), each test says so
//! and checks nothing; `./x test` says which it is. `reproduce --real DIR` runs small on the same
//! folder, and is refused by name where DIR or its file is missing.

use std::io::Read;
use std::path::PathBuf;
use std::process::Command;

/// The folder of the real data sets: `WHEREABOUTS_DATA`, else `shared/data` beside the
/// repository or one of its parents.
fn data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("WHEREABOUTS_DATA") {
        return Some(PathBuf::from(dir));
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.ancestors()
        .skip(1)
        .map(|a| a.join("shared/data"))
        .find(|d| d.is_dir())
}

fn absent(what: &str) {
    eprintln!(
        "real data: {what} not found (set WHEREABOUTS_DATA to the shared data folder); nothing checked"
    );
}

fn import(file: &PathBuf) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_whereabouts"))
        .arg("import")
        .arg(file)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("whereabouts-real-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The Foursquare sample, within the data folder.
const FOURSQUARE: &str = "foursquare-nyc/Foursquare_Sample.csv";

/// The Foursquare sample's header and first 400 check-ins, written to the temporary file
/// `name` (None where the data folder is not found).
fn foursquare_slice(name: &str) -> Option<PathBuf> {
    let file = data_dir()
        .map(|d| d.join(FOURSQUARE))
        .filter(|f| f.is_file())?;
    let text = std::fs::read_to_string(&file).unwrap();
    let slice: String = text.lines().take(401).map(|l| format!("{l}\n")).collect();
    let sliced = temp(name);
    std::fs::write(&sliced, slice).unwrap();
    Some(sliced)
}

#[test]
fn foursquare_check_ins_import_with_latitude_and_longitude_in_one_column() {
    // The first 400 check-ins.
    let Some(sliced) = foursquare_slice("foursquare.csv") else {
        return absent(FOURSQUARE);
    };
    let said = import(&sliced);
    assert!(
        said.contains("time = date_time, latitude = lat_lon, longitude = lat_lon"),
        "{said}"
    );
    assert!(said.contains("latitude 40."), "New York: {said}");
    assert!(
        said.contains("the column “tid” names") && said.contains("read here as one person's"),
        "{said}"
    );
    let fixes: usize = said
        .split_whitespace()
        .find_map(|w| w.parse().ok())
        .expect("a count of fixes");
    assert!(fixes > 350, "{said}");
}

#[test]
fn a_cork_5g_trace_imports_with_its_no_reading_sentinels_left_out() {
    let Some(zipped) = data_dir()
        .map(|d| d.join("5g-cork/5G-production-dataset.zip"))
        .filter(|f| f.is_file())
    else {
        return absent("5g-cork/5G-production-dataset.zip");
    };
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&zipped).unwrap()).unwrap();
    // The first trace with a −200 dBm "no reading".
    let mut found = None;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let name = entry.name().map(|n| n.to_string()).unwrap_or_default();
        if !name.ends_with(".csv") || name.contains("__MACOSX") {
            continue;
        }
        let mut text = String::new();
        entry.read_to_string(&mut text).unwrap();
        if text.contains(",-200,") {
            found = Some(text);
            break;
        }
    }
    let text = found.expect("a trace with a −200 dBm sentinel");
    let trace = temp("cork.csv");
    std::fs::write(&trace, text).unwrap();
    let said = import(&trace);
    assert!(said.contains("signal: from the file"), "{said}");
    assert!(said.contains("signal = RSRP"), "{said}");
    assert!(
        said.contains("outside a phone's range") && said.contains("such as -200"),
        "{said}"
    );
}

#[test]
fn the_mobility_lab_on_real_check_ins_scores_no_diverged_guess() {
    // The first 400 check-ins as one person's, 50 rounds as the paper, without the road mapping
    // (which would keep guesses on the synthetic streets): L-BFGS without a line search sends
    // some rounds' windows far out of the city.
    let Some(sliced) = foursquare_slice("foursquare-mobility.csv") else {
        return absent(FOURSQUARE);
    };
    let out = Command::new(env!("CARGO_BIN_EXE_whereabouts"))
        .args([
            "run",
            "--lab",
            "mobility",
            "--set",
            "m.T=50",
            "--set",
            "m.map=off",
        ])
        .arg("--data")
        .arg(&sliced)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let summary = &run["summary"];
    assert_eq!(summary["rounds_done"], 50);
    let diverged = summary["diverged_rounds"]
        .as_u64()
        .expect("a count of diverged rounds");
    eprintln!("real data: Foursquare, 50 rounds without the road mapping: {diverged} diverged");
    // Every scored error lies within 200 km (New York's check-ins span about 40 km).
    let errors = summary["errors_m"].as_array().unwrap();
    assert!(!errors.is_empty());
    for e in errors {
        assert!(e.as_f64().unwrap() < 200_000.0, "{e}");
    }
    // The mean ASR is over the rounds that have one.
    let asrs: Vec<f64> = summary["asr"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a.as_f64())
        .collect();
    let mean = asrs.iter().sum::<f64>() / asrs.len() as f64;
    assert!((summary["mean_asr"].as_f64().unwrap() - mean).abs() < 1e-12);
    // A guess flagged diverged is the only kind that may lie far out.
    for g in run["guesses"].as_array().unwrap() {
        if g["diverged"] == false {
            let (t, q) = (&g["truth"], &g["guess"]);
            let d = (t["east"].as_f64().unwrap() - q["east"].as_f64().unwrap())
                .hypot(t["north"].as_f64().unwrap() - q["north"].as_f64().unwrap());
            assert!(d < 200_000.0, "{g}");
        }
    }
}

/// Runs `whereabouts ARGS`, giving its status, standard output and standard error.
fn whereabouts(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_whereabouts"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn reproduce_on_real_check_ins_prints_the_mobility_and_density_tables() {
    // `reproduce --real DIR` reads the user's copy where it lies: here the shared data folder.
    let Some(dir) = data_dir().filter(|d| d.join(FOURSQUARE).is_file()) else {
        return absent(FOURSQUARE);
    };
    let dir = dir.to_str().unwrap();
    let csv = temp("real-csv");
    let (ok, md, err) = whereabouts(&[
        "reproduce",
        "--lab",
        "mobility",
        "--quick",
        "--real",
        dir,
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        err.contains("66961 check-ins in 3079 weekly trajectories"),
        "{err}"
    );
    assert!(md.contains(&format!("--quick --real {dir}`")), "{md}");
    for title in [
        "Attacks by round — on real data (foursquare-nyc), weekly check-in trajectories",
        "ST-GIA ablation ([002] Fig. 4) on real data (foursquare-nyc)",
        "Defences by ε ([002] Table 5) — on real data (foursquare-nyc)",
        "Utility against ASR ([002] Fig. 5) — on real data (foursquare-nyc)",
    ] {
        assert!(md.contains(title), "no “{title}” table: {md}");
    }
    // No synthetic table among them, and every table says which trajectories it ran on.
    assert!(!md.contains("vehicle-like data"), "{md}");
    assert_eq!(md.matches("seed 1: tid ").count(), 4, "{md}");
    assert!(md.contains("± its 95% interval"), "{md}");
    assert!(csv.join("mobility-real-1.csv").is_file());

    let (ok, md, err) = whereabouts(&["reproduce", "--lab", "density", "--quick", "--real", dir]);
    assert!(ok, "{err}");
    for title in [
        "Random features: utility, and each attack's error over B (N = 1000, 48², h = 300 m) — on real data (foursquare-nyc), check-ins as the population",
        "Geo-indistinguishability over ε (the poster's comparator) — on real data",
        "GeoInd and random features at matched utility",
        "Repeated queries",
        "Population size",
        "Convergence",
    ] {
        assert!(md.contains(title), "no “{title}” table: {md}");
    }
    assert!(!md.contains("A moving user"), "{md}");
    assert!(md.contains("Midtown Manhattan"), "{md}");
    eprintln!("real data: reproduce --real ran the mobility and density tables on {dir}");
}

#[test]
fn reproduce_real_refuses_a_missing_folder_or_file_by_name() {
    // Needs no data: the folder and the file are named in the refusal, nothing runs.
    let missing = temp("no-such-folder").join("nowhere");
    let missing = missing.to_str().unwrap();
    let (ok, _, err) = whereabouts(&["reproduce", "--lab", "mobility", "--real", missing]);
    assert!(!ok);
    assert!(
        err.contains(&format!("--real {missing}: no such folder")),
        "{err}"
    );
    assert!(
        err.contains("foursquare-nyc/Foursquare_Sample.csv"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // A folder without the file.
    let empty = temp("empty-data");
    std::fs::create_dir_all(&empty).unwrap();
    let empty = empty.to_str().unwrap();
    let (ok, _, err) = whereabouts(&["reproduce", "--lab", "density", "--real", empty]);
    assert!(!ok);
    assert!(
        err.contains(&format!(
            "{empty}/foursquare-nyc/Foursquare_Sample.csv is not there"
        )),
        "{err}"
    );
    // A file that is not the Foursquare sample.
    let wrong = temp("wrong-data");
    std::fs::create_dir_all(wrong.join("foursquare-nyc")).unwrap();
    std::fs::write(
        wrong.join(FOURSQUARE),
        "lat,lon,time\n40.7,-74.0,2012-11-12 05:17:18\n",
    )
    .unwrap();
    let (ok, _, err) = whereabouts(&[
        "reproduce",
        "--lab",
        "mobility",
        "--real",
        wrong.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(err.contains("no “tid” column"), "{err}");
    // The labs without real-data tables, and a page study, are refused before the data is read.
    let (ok, _, err) = whereabouts(&["reproduce", "--lab", "linkability", "--real", missing]);
    assert!(!ok);
    assert!(
        err.contains("the linkability lab has no tables on real data"),
        "{err}"
    );
    let (ok, _, err) = whereabouts(&[
        "reproduce",
        "--lab",
        "mobility",
        "--study",
        "defences",
        "--real",
        missing,
    ]);
    assert!(!ok);
    assert!(err.contains("not --study defences"), "{err}");
}

/// The 5g-cork zip, within the data folder.
const CORK: &str = "5g-cork/5G-production-dataset.zip";

#[test]
fn reproduce_on_real_cork_traces_prints_the_signal_maps_one_user_tables() {
    // Two of the smallest usable cells (seeds 47 and 48: under a hundred readings each), so the
    // debug binary runs every table in seconds; the docs' tables are seeds 1–5.
    let Some(dir) = data_dir().filter(|d| d.join(CORK).is_file()) else {
        return absent(CORK);
    };
    let dir = dir.to_str().unwrap();
    let csv = temp("cork-csv");
    let (ok, md, err) = whereabouts(&[
        "reproduce",
        "--quick",
        "--seed",
        "47",
        "--seeds",
        "2",
        "--real",
        dir,
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    // What was read and left out, counted.
    assert!(
        err.contains("151352 readings of 52 usable cells in 83 traces (188711 rows; left out: 73 “no reading” sentinels"),
        "{err}"
    );
    assert!(
        md.contains(&format!(
            "--seed 47 --model small --quick --seeds 2 --real {dir}`"
        )),
        "{md}"
    );
    for title in [
        "Findings check",
        "Round length T (FedSGD, user 0)",
        "The model's start (user 0)",
        "Table 2 — Diverse Batch (T = 1 week;",
        "Defences compared (T = 1 day,",
    ] {
        let heading = md
            .lines()
            .find(|l| l.starts_with("### ") && l.contains(title))
            .unwrap_or_else(|| panic!("no “{title}” table: {md}"));
        assert!(
            heading.ends_with("— on real data (5g-cork, one phone, a cell a seed)"),
            "{heading}"
        );
    }
    // Only the one-user tables, none of the synthetic world's, each saying which cells it ran on.
    assert_eq!(md.matches("\n### ").count(), 5, "{md}");
    assert!(
        !md.contains("Table 3") && !md.contains("Insight I3"),
        "{md}"
    );
    assert_eq!(
        md.matches("seed 47: 5G cell 13 of node A4E8 (92 readings")
            .count(),
        5,
        "{md}"
    );
    assert!(
        md.contains("seed 48: LTE cell 3 of node A992 (53 readings"),
        "{md}"
    );
    assert!(md.contains("± its 95% interval"), "{md}");
    assert!(csv.join("table-real-1.csv").is_file());

    // A seed past the usable cells is refused by name, before anything runs.
    let (ok, _, err) = whereabouts(&[
        "reproduce",
        "--quick",
        "--seed",
        "52",
        "--seeds",
        "2",
        "--real",
        dir,
    ]);
    assert!(!ok);
    assert!(
        err.contains(
            "--seed: 5g-cork has 52 usable cells (seeds 1–52, the largest first); seed 53 has none"
        ),
        "{err}"
    );
    eprintln!(
        "real data: reproduce --real ran the signal map's tables on {dir}'s 5g-cork cells 47 and 48"
    );
}

#[test]
fn reproduce_real_for_the_signal_map_names_the_missing_zip() {
    // Needs no data: a folder without the zip is refused naming where it should be.
    let empty = temp("empty-cork");
    std::fs::create_dir_all(&empty).unwrap();
    let empty = empty.to_str().unwrap();
    let (ok, _, err) = whereabouts(&["reproduce", "--quick", "--real", empty]);
    assert!(!ok);
    assert!(
        err.contains(&format!(
            "{empty}/5g-cork/5G-production-dataset.zip is not there"
        )),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // Only the paper's tables run on real data, not the secure-sum study.
    let (ok, _, err) = whereabouts(&["reproduce", "--study", "secure-sum", "--real", empty]);
    assert!(!ok);
    assert!(err.contains("not --study secure-sum"), "{err}");
}

#[test]
fn unicity_on_the_city_and_on_real_check_ins() {
    // Without --real: the city's people only.
    let (ok, md, err) = whereabouts(&[
        "reproduce",
        "--lab",
        "mobility",
        "--study",
        "unicity",
        "--quick",
    ]);
    assert!(ok, "{err}");
    assert!(md.contains("### Unicity ε_p on the synthetic city"), "{md}");
    assert!(!md.contains("on real check-ins"), "{md}");
    assert!(md.contains("| 250 m, 1 h of the week |"), "{md}");
    // Membership inference reads the same folder, and names it when it is missing.
    let (ok, _, err) = whereabouts(&[
        "reproduce",
        "--lab",
        "mobility",
        "--study",
        "membership",
        "--real",
        "/nowhere",
    ]);
    assert!(!ok && err.contains("/nowhere"), "{err}");
    // --real is refused for another lab's study, by name.
    let (ok, _, err) = whereabouts(&[
        "reproduce",
        "--lab",
        "mobility",
        "--study",
        "secure-sum",
        "--real",
        "/nowhere",
    ]);
    assert!(!ok && err.contains("not --study secure-sum"), "{err}");
    let Some(dir) = data_dir().filter(|d| d.join(FOURSQUARE).is_file()) else {
        return absent(FOURSQUARE);
    };
    let dir = dir.to_str().unwrap();
    let (ok, md, err) = whereabouts(&[
        "reproduce",
        "--lab",
        "mobility",
        "--study",
        "unicity",
        "--quick",
        "--real",
        dir,
    ]);
    assert!(ok, "{err}");
    assert!(
        md.contains("### Unicity ε_p on real check-ins (foursquare-nyc: 3079 weekly trajectories"),
        "{md}"
    );
    // Four hourly points at 250 m single out nearly every weekly trajectory (de Montjoye et
    // al.: 95% of phone users); the places alone far fewer.
    let row = |label: &str| -> Vec<f64> {
        let line = md
            .lines()
            .rfind(|l| l.starts_with(&format!("| {label} |")))
            .unwrap_or_else(|| panic!("no row {label}: {md}"));
        line.split('|')
            .skip(2)
            .filter(|c| !c.trim().is_empty())
            .map(|c| c.trim().split(' ').next().unwrap().parse().unwrap())
            .collect()
    };
    let hourly = row("250 m, 1 h of the week");
    let places = row("250 m, places only");
    assert!(
        hourly[3] > 90.0 && places[3] < hourly[3] - 10.0,
        "{hourly:?} {places:?}"
    );
    eprintln!(
        "real data: unicity on {dir}: ε_4 {} % with the hour, {} % places only",
        hourly[3], places[3]
    );
}
