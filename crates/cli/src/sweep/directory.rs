//! `whereabouts sweep plan | run | count | merge`: a study's points through a directory
//! (`sweep.json`, `points.jsonl`, `results/I.json` written atomically, each result with its
//! point's fingerprint), so a batch engine can run them anywhere (docs/sweeps.md).

use super::{StudySpec, publish};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What `sweep.json` holds.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    study: StudySpec,
    /// The engine that planned it: results of another engine would not line up.
    engine: String,
    points: usize,
}

/// One line of `points.jsonl`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PointLine {
    index: usize,
    seed: u64,
    config: Value,
}

/// `results/I.json`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ResultFile {
    index: usize,
    /// The fingerprint of the point it is the outcome of ([`PointLine::fingerprint`]): a result
    /// copied from another sweep (another seed, another study) does not merge.
    #[serde(default)]
    point: Option<String>,
    outcome: Value,
}

impl PointLine {
    /// FNV-1a (64 bits, hex) of the point's seed and configuration as JSON (serde_json's maps
    /// are ordered by key, so equal points give equal text).
    fn fingerprint(&self) -> String {
        let text = serde_json::to_string(&(self.seed, &self.config)).unwrap_or_default();
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{h:016x}")
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| format!("{}: {e}", path.display())
}

/// `whereabouts sweep plan`: writes the study's points into `dir` (which must not hold a sweep).
pub fn plan(spec: &StudySpec, dir: &Path) -> Result<(), String> {
    let study = spec.open()?;
    let manifest_path = dir.join("sweep.json");
    if manifest_path.exists() {
        return Err(format!(
            "{} already holds a sweep; plan into a new directory (or remove it)",
            dir.display()
        ));
    }
    let points = study.points()?;
    std::fs::create_dir_all(dir.join("results")).map_err(io(dir))?;
    let mut lines = String::new();
    for (index, (seed, config)) in points.iter().enumerate() {
        let line = PointLine {
            index,
            seed: *seed,
            config: config.clone(),
        };
        lines += &serde_json::to_string(&line).map_err(|e| e.to_string())?;
        lines.push('\n');
    }
    let points_path = dir.join("points.jsonl");
    std::fs::write(&points_path, lines).map_err(io(&points_path))?;
    let manifest = Manifest {
        study: spec.clone(),
        engine: whereabouts_engine::VERSION.into(),
        points: points.len(),
    };
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    std::fs::write(&manifest_path, text + "\n").map_err(io(&manifest_path))?;
    let n = points.len();
    println!(
        "{n} points of `{}` planned in {d}.\nRun them, for instance:\n  whereabouts sweep run {d} --shard 1/2 & whereabouts sweep run {d} --shard 2/2\n  tools/sweep/parallel.sh {d}\n  sbatch --array=0-{last}%50 tools/sweep/slurm.sbatch {d}\nthen: whereabouts sweep merge {d}",
        spec.command(),
        d = dir.display(),
        last = n.saturating_sub(1)
    );
    Ok(())
}

/// A planned sweep read back from its directory.
struct Planned {
    dir: PathBuf,
    manifest: Manifest,
    points: Vec<PointLine>,
}

impl Planned {
    fn read(dir: &Path) -> Result<Self, String> {
        let manifest_path = dir.join("sweep.json");
        let text = std::fs::read_to_string(&manifest_path).map_err(|e| {
            format!(
                "{}: {e} (is it a directory made by `whereabouts sweep plan`?)",
                manifest_path.display()
            )
        })?;
        let manifest: Manifest =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", manifest_path.display()))?;
        if manifest.engine != whereabouts_engine::VERSION {
            return Err(format!(
                "{}: planned by engine {}, this is engine {}: run and merge a sweep with the engine that planned it",
                manifest_path.display(),
                manifest.engine,
                whereabouts_engine::VERSION
            ));
        }
        let points_path = dir.join("points.jsonl");
        let text = std::fs::read_to_string(&points_path).map_err(io(&points_path))?;
        let points = text
            .lines()
            .enumerate()
            .map(|(i, line)| {
                let p: PointLine = serde_json::from_str(line)
                    .map_err(|e| format!("{}, line {}: {e}", points_path.display(), i + 1))?;
                if p.index != i {
                    return Err(format!(
                        "{}, line {}: holds point {}, expected {i}",
                        points_path.display(),
                        i + 1,
                        p.index
                    ));
                }
                Ok(p)
            })
            .collect::<Result<Vec<_>, String>>()?;
        if points.len() != manifest.points {
            return Err(format!(
                "{}: {} points, sweep.json says {}",
                points_path.display(),
                points.len(),
                manifest.points
            ));
        }
        Ok(Planned {
            dir: dir.to_path_buf(),
            manifest,
            points,
        })
    }

    fn result_path(&self, i: usize) -> PathBuf {
        self.dir.join("results").join(format!("{i}.json"))
    }

    /// Point `i`'s stored outcome: `Ok(None)` when it has not run, `Err` when the file is
    /// there but does not hold point `i`'s outcome.
    fn result(&self, i: usize) -> Result<Option<Value>, String> {
        let path = self.result_path(i);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let r: ResultFile = serde_json::from_str(&text)
            .map_err(|e| format!("{}: corrupt ({e})", path.display()))?;
        if r.index != i {
            return Err(format!(
                "{}: corrupt (holds point {}'s result)",
                path.display(),
                r.index
            ));
        }
        let want = self.points[i].fingerprint();
        match r.point {
            Some(p) if p == want => Ok(Some(r.outcome)),
            Some(p) => Err(format!(
                "{}: the result of another point (fingerprint {p}; this sweep's point {i} is {want}): copied from another sweep?",
                path.display()
            )),
            None => Err(format!(
                "{}: written without its point's fingerprint (before results carried one): run it again",
                path.display()
            )),
        }
    }
}

/// Which points `sweep run` runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Selection {
    Index(usize),
    /// Shard k of n (1-based): the points i with i mod n = k − 1.
    Shard(usize, usize),
}

impl Selection {
    /// `--index I` or `--shard K/N` (exactly one).
    pub fn from_args(index: Option<usize>, shard: Option<&str>) -> Result<Self, String> {
        match (index, shard) {
            (Some(i), None) => Ok(Selection::Index(i)),
            (None, Some(s)) => {
                let parsed = s
                    .split_once('/')
                    .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
                match parsed {
                    Some((k, n)) if n >= 1 && (1..=n).contains(&k) => Ok(Selection::Shard(k, n)),
                    _ => Err(format!(
                        "--shard: “{s}” is not K/N with 1 ≤ K ≤ N (for instance 1/4)"
                    )),
                }
            }
            (Some(_), Some(_)) => Err("give --index or --shard, not both".into()),
            (None, None) => Err("give --index I or --shard K/N".into()),
        }
    }

    fn indices(self, total: usize) -> Result<Vec<usize>, String> {
        match self {
            Selection::Index(i) if i < total => Ok(vec![i]),
            Selection::Index(i) => Err(format!(
                "--index: the sweep has points 0 to {}, not {i}",
                total.saturating_sub(1)
            )),
            Selection::Shard(k, n) => Ok((0..total).filter(|i| i % n == k - 1).collect()),
        }
    }
}

/// Writes `text` to `path` atomically: a temporary file in the same directory, then a rename.
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension(format!("json.tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// `whereabouts sweep run`: runs the selected points that have no result yet.
pub fn run(dir: &Path, selection: Selection) -> Result<(), String> {
    let planned = Planned::read(dir)?;
    let study = planned.manifest.study.open()?;
    let indices = selection.indices(planned.points.len())?;
    let mut failed = Vec::new();
    for i in indices {
        match planned.result(i) {
            Ok(Some(_)) => {
                eprintln!("point {i}: done already");
                continue;
            }
            Ok(None) => {}
            // A corrupt result is run again (and replaced).
            Err(e) => eprintln!("{e}: running point {i} again"),
        }
        let started = std::time::Instant::now();
        match study.run(&planned.points[i].config) {
            Ok(outcome) => {
                let file = ResultFile {
                    index: i,
                    point: Some(planned.points[i].fingerprint()),
                    outcome,
                };
                let text = serde_json::to_string(&file).map_err(|e| e.to_string())?;
                write_atomically(&planned.result_path(i), &(text + "\n"))?;
                eprintln!(
                    "point {i}: done in {:.1} s",
                    started.elapsed().as_secs_f64()
                );
            }
            Err(e) => {
                eprintln!("point {i}: {e}");
                failed.push(format!("point {i}: {e}"));
            }
        }
    }
    match failed.len() {
        0 => Ok(()),
        1 => Err(failed.remove(0)),
        n => Err(format!("{n} points failed: {}", failed.join("; "))),
    }
}

/// `whereabouts sweep count`: the number of points (for scripts).
pub fn count(dir: &Path) -> Result<(), String> {
    println!("{}", Planned::read(dir)?.points.len());
    Ok(())
}

/// `whereabouts sweep merge`: every point's result into the tables `reproduce` writes.
pub fn merge(dir: &Path, out: Option<&Path>, csv: Option<&Path>) -> Result<(), String> {
    let planned = Planned::read(dir)?;
    let total = planned.points.len();
    let (mut outcomes, mut missing, mut corrupt) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..total {
        match planned.result(i) {
            Ok(Some(o)) => outcomes.push(o),
            Ok(None) => missing.push(i.to_string()),
            Err(e) => corrupt.push(e),
        }
    }
    if !missing.is_empty() || !corrupt.is_empty() {
        let mut why = Vec::new();
        if !missing.is_empty() {
            why.push(format!(
                "{} of {total} points have no result: {} (run them with `whereabouts sweep run {} --index I`)",
                missing.len(),
                missing.join(", "),
                dir.display()
            ));
        }
        why.extend(corrupt);
        return Err(why.join("; "));
    }
    let study = planned.manifest.study.open()?;
    let configs: Vec<Value> = planned.points.iter().map(|p| p.config.clone()).collect();
    let tables = study.tables(&configs, outcomes)?;
    let how = format!("merged by `whereabouts sweep merge` from {total} points");
    publish(&planned.manifest.study, &how, &tables, out, csv)
}
