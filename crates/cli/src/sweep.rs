//! `whereabouts reproduce` and `whereabouts sweep`: a lab's studies as independent points
//! ([`whereabouts_core::sweep`]), run on this machine's threads or spread over a batch engine
//! through a directory:
//!
//! ```text
//! DIR/sweep.json          what the sweep is of (lab, seed, size, engine version) and its size
//! DIR/points.jsonl        one line per point: {"index", "seed", "config"}
//! DIR/results/I.json      point I's outcome and its point's fingerprint, written atomically by `sweep run`
//! ```
//!
//! `reproduce` is plan + run (threads) + merge in memory; `sweep plan`, `sweep run` and
//! `sweep merge` are the same three steps through the directory, so their tables are the
//! same bytes (docs/sweeps.md).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};
use whereabouts_core::sweep::{self, Sweep};
use whereabouts_core::table::Table;

/// Which study, at which size: everything that decides its points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudySpec {
    /// signal-map, density, linkability or mobility.
    pub lab: String,
    /// `reproduce` (the paper's tables) or one of the lab's page studies ([`STUDIES`]).
    #[serde(default = "reproduce_study")]
    pub study: String,
    pub seed: u64,
    pub quick: bool,
    /// The Signal map's model (small or paper).
    pub model: String,
    /// Worlds (populations, cities) every figure is measured on, seeds from `seed` on; the
    /// study's own default (5, 2 with `quick`) without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<u64>,
    /// A page study's base configuration file, as named on the command line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// Its contents (the lab's default configuration without one); its seed is `seed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<Value>,
}

fn reproduce_study() -> String {
    REPRODUCE.into()
}

/// The labs with studies.
pub const LABS: &str = "signal-map, density, linkability, mobility";

/// The study that makes the paper's tables.
pub const REPRODUCE: &str = "reproduce";

/// Each lab's page studies (its Studies panel), by their command-line names.
pub const STUDIES: [(&str, &[&str]); 4] = [
    (
        "signal-map",
        &["defences", "local-steps", "co-participants"],
    ),
    ("density", &["schemes"]),
    ("linkability", &["mitigations"]),
    ("mobility", &["defences"]),
];

impl StudySpec {
    /// Checks the options and names what is wrong.
    pub fn check(&self) -> Result<(), String> {
        let Some((_, studies)) = STUDIES.iter().find(|(lab, _)| *lab == self.lab) else {
            return Err(format!(
                "--lab: “{}” is not a lab with studies ({LABS})",
                self.lab
            ));
        };
        if self.study != REPRODUCE && !studies.contains(&self.study.as_str()) {
            return Err(format!(
                "--study: the {} lab has no study “{}” ({REPRODUCE}, {})",
                self.lab,
                self.study,
                studies.join(", ")
            ));
        }
        if !["small", "paper"].contains(&self.model.as_str()) {
            return Err(format!(
                "--model: “{}” is not a model (small, paper)",
                self.model
            ));
        }
        if let Some(seeds) = self.seeds {
            if !(1..=32).contains(&seeds) {
                return Err(format!("--seeds: {seeds} is not between 1 and 32"));
            }
            if self.seed.checked_add(seeds).is_none() {
                return Err(format!(
                    "--seed: {} leaves no room for {seeds} seeds",
                    self.seed
                ));
            }
        }
        if self.page_study() && (self.quick || self.model != "small" || self.seeds.is_some()) {
            return Err(format!(
                "--quick, --model and --seeds size the {REPRODUCE} study; the {} study's size is its --config",
                self.study
            ));
        }
        if !self.page_study() && self.base.is_some() {
            return Err(format!(
                "--config: the {REPRODUCE} study has no base configuration; a page study has (--study {})",
                studies.join(" | ")
            ));
        }
        Ok(())
    }

    /// Whether this is one of a lab's page studies (not `reproduce`).
    fn page_study(&self) -> bool {
        self.study != REPRODUCE
    }

    /// The `reproduce` command that makes the same tables.
    pub fn command(&self) -> String {
        let quick = if self.quick { " --quick" } else { "" };
        let seeds = self
            .seeds
            .map_or(String::new(), |n| format!(" --seeds {n}"));
        if self.page_study() {
            let config = self
                .config
                .as_ref()
                .map_or(String::new(), |c| format!(" --config {c}"));
            format!(
                "whereabouts reproduce --lab {} --study {} --seed {}{config}",
                self.lab, self.study, self.seed
            )
        } else if self.lab == "signal-map" {
            format!(
                "whereabouts reproduce --seed {} --model {}{quick}{seeds}",
                self.seed, self.model
            )
        } else {
            format!(
                "whereabouts reproduce --lab {} --seed {}{quick}{seeds}",
                self.lab, self.seed
            )
        }
    }

    /// The file names of the CSV tables: `<prefix>-<k>.csv`.
    fn csv_prefix(&self) -> String {
        match (self.page_study(), self.lab.as_str()) {
            (true, lab) => format!("{lab}-{}", self.study),
            (false, "signal-map") => "table".into(),
            (false, lab) => lab.into(),
        }
    }

    /// A page study's base configuration: the lab's default with the file's settings over it
    /// (a hand-written file need only name what it changes).
    fn base<C: Serialize + DeserializeOwned + Default>(&self) -> Result<C, String> {
        let Some(file) = &self.base else {
            return Ok(C::default());
        };
        let mut merged = serde_json::to_value(C::default()).map_err(|e| e.to_string())?;
        overlay(&mut merged, file);
        serde_json::from_value(merged).map_err(|e| {
            format!(
                "{}: not a {} configuration: {e}",
                self.config.as_deref().unwrap_or("--config"),
                self.lab
            )
        })
    }

    /// The study.
    fn open(&self) -> Result<Box<dyn AnyStudy>, String> {
        use whereabouts_core::sweep::PageSweep;
        self.check()?;
        if self.page_study() {
            return match self.lab.as_str() {
                "signal-map" => {
                    use whereabouts_engine::signal_map::scenario::ScenarioConfig;
                    use whereabouts_engine::signal_map::studies::{Study, StudyOn, StudyRun};
                    let mut base: ScenarioConfig = self.base()?;
                    base.seed = self.seed;
                    let study = match self.study.as_str() {
                        "local-steps" => Study::LocalSteps,
                        "co-participants" => Study::CoParticipants,
                        _ => Study::Defences,
                    };
                    Ok(Box::new(PageSweep::<StudyRun>(StudyOn { study, base })))
                }
                "density" => {
                    use whereabouts_engine::density::{DensityConfig, study::StudyRun};
                    let mut base: DensityConfig = self.base()?;
                    base.seed = self.seed;
                    Ok(Box::new(PageSweep::<StudyRun>(base)))
                }
                "linkability" => {
                    use whereabouts_engine::linkability::{config::LinkConfig, study::StudyRun};
                    let mut base: LinkConfig = self.base()?;
                    base.seed = self.seed;
                    Ok(Box::new(PageSweep::<StudyRun>(base)))
                }
                _ => {
                    use whereabouts_engine::mobility::{config::MobConfig, study::StudyRun};
                    let mut base: MobConfig = self.base()?;
                    base.seed = self.seed;
                    Ok(Box::new(PageSweep::<StudyRun>(base)))
                }
            };
        }
        match self.lab.as_str() {
            "signal-map" => {
                use whereabouts_engine::signal_map::experiments::{Reproduce, Scale};
                use whereabouts_engine::signal_map::model::ModelPreset;
                let mut scale = if self.quick {
                    Scale::quick(self.seed)
                } else {
                    Scale::full(self.seed)
                };
                scale.model = match self.model.as_str() {
                    "paper" => ModelPreset::Paper,
                    _ => ModelPreset::Small,
                };
                scale.seeds = self.seeds.unwrap_or(scale.seeds);
                Ok(Box::new(Reproduce(scale)))
            }
            "density" => {
                use whereabouts_engine::density::experiments::{Reproduce, Scale};
                let mut scale = if self.quick {
                    Scale::quick(self.seed)
                } else {
                    Scale::full(self.seed)
                };
                scale.seeds = self.seeds.unwrap_or(scale.seeds);
                Ok(Box::new(Reproduce(scale)))
            }
            "linkability" => {
                use whereabouts_engine::linkability::experiments::{Reproduce, Scale};
                let mut scale = if self.quick {
                    Scale::quick(self.seed)
                } else {
                    Scale::full(self.seed)
                };
                scale.seeds = self.seeds.unwrap_or(scale.seeds);
                Ok(Box::new(Reproduce(scale)))
            }
            "mobility" => {
                use whereabouts_engine::mobility::experiments::{Reproduce, Scale};
                let mut scale = if self.quick {
                    Scale::quick(self.seed)
                } else {
                    Scale::full(self.seed)
                };
                scale.seeds = self.seeds.unwrap_or(scale.seeds);
                Ok(Box::new(Reproduce(scale)))
            }
            lab => Err(format!("--lab: “{lab}” is not a lab with studies ({LABS})")),
        }
    }
}

/// Writes `over`'s settings into `base`, table by table (a value that is not a table replaces
/// the base's whole).
fn overlay(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(key) {
                    Some(slot) => overlay(slot, value),
                    None => {
                        base.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (base, over) => *base = over.clone(),
    }
}

/// A study with its configurations and outcomes as JSON, whatever its lab.
trait AnyStudy {
    /// Plan + run on `threads` threads + merge, in memory.
    fn here(
        &self,
        threads: usize,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Vec<Table>, String>;
    /// Each point's configuration and the seed it carries.
    fn points(&self) -> Result<Vec<(u64, Value)>, String>;
    fn run(&self, config: &Value) -> Result<Value, String>;
    fn tables(&self, configs: &[Value], outcomes: Vec<Value>) -> Result<Vec<Table>, String>;
}

impl<S: Sweep> AnyStudy for S {
    fn here(
        &self,
        threads: usize,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Vec<Table>, String> {
        sweep::run_here(self, threads, progress)
    }

    fn points(&self) -> Result<Vec<(u64, Value)>, String> {
        sweep::plan(self)?
            .iter()
            .map(|c| {
                let v = serde_json::to_value(c).map_err(|e| e.to_string())?;
                Ok((S::seed(c), v))
            })
            .collect()
    }

    fn run(&self, config: &Value) -> Result<Value, String> {
        let c: S::Config = serde_json::from_value(config.clone())
            .map_err(|e| format!("its configuration does not read: {e}"))?;
        let outcome = Sweep::run(self, &c)?;
        serde_json::to_value(outcome).map_err(|e| e.to_string())
    }

    fn tables(&self, configs: &[Value], outcomes: Vec<Value>) -> Result<Vec<Table>, String> {
        let configs = configs
            .iter()
            .enumerate()
            .map(|(i, c)| {
                serde_json::from_value(c.clone())
                    .map_err(|e| format!("point {i}: its configuration does not read: {e}"))
            })
            .collect::<Result<Vec<S::Config>, String>>()?;
        let outcomes = outcomes
            .into_iter()
            .enumerate()
            .map(|(i, o)| {
                serde_json::from_value(o)
                    .map_err(|e| format!("results/{i}.json: the outcome does not read: {e}"))
            })
            .collect::<Result<Vec<S::Outcome>, String>>()?;
        sweep::merge(self, &configs, outcomes)
    }
}

/// The tables as `reproduce` writes them: a heading that says how to get them again and
/// `how` they were made, every table as Markdown to `out` (or standard output), and one CSV per
/// table into `csv`.
fn publish(
    spec: &StudySpec,
    how: &str,
    tables: &[Table],
    out: Option<&Path>,
    csv: Option<&Path>,
) -> Result<(), String> {
    let mut text = format!(
        "## `{}`\n\nEngine {}; {how}.\n\n",
        spec.command(),
        whereabouts_engine::VERSION
    );
    for t in tables {
        text += &t.to_markdown();
        text.push('\n');
    }
    if let Some(dir) = csv {
        crate::write_csv(dir, tables, &spec.csv_prefix())?;
    }
    crate::write_out(out, &text)
}

/// This machine's threads.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `whereabouts reproduce`: plan, run every point on this machine's threads, merge.
pub fn reproduce(spec: &StudySpec, out: Option<&Path>, csv: Option<&Path>) -> Result<(), String> {
    let study = spec.open()?;
    let started = std::time::Instant::now();
    let lab = &spec.lab;
    let tables = study.here(threads(), &|done, total| {
        eprintln!("reproduce {lab}: {done} of {total} runs done");
    })?;
    let how = format!("{:.0} s on this machine", started.elapsed().as_secs_f64());
    publish(spec, &how, &tables, out, csv)
}

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
