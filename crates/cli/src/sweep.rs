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
//!
//! The directory's side (plan, run, count, merge) is `sweep/directory.rs`.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;
use whereabouts_core::sweep::{self, Sweep};
use whereabouts_core::table::Table;

mod directory;

pub use directory::{Selection, count, merge, plan, run};

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
    /// `reproduce --real DIR`: the folder of the user's copy of the real data sets (laid out as
    /// the project's shared data folder); the tables are then the lab's on real data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real: Option<String>,
}

fn reproduce_study() -> String {
    REPRODUCE.into()
}

/// The labs with studies.
pub const LABS: &str = "signal-map, density, linkability, mobility";

/// The study that makes the paper's tables.
pub const REPRODUCE: &str = "reproduce";

/// The tables of secure aggregation (issue 39 §2): every update beside only the sum.
pub const SECURE_SUM: &str = "secure-sum";

/// The Signal map's gradient disaggregation under secure aggregation (issue 39 §2).
pub const DISAGGREGATION: &str = "disaggregation";

/// The Mobility lab's unicity (de Montjoye et al. 2013, issue 40 §2): how many of a person's
/// points single them out, on the city's people and, with `--real`, on real check-ins.
pub const UNICITY: &str = "unicity";

/// The Mobility lab's membership inference on aggregates (Pyrgelis et al. 2018, issue 40 §2):
/// was this person in the group whose counts were released?
pub const MEMBERSHIP: &str = "membership";

/// The Signal map's defence comparison under [000]'s four protocols (Figs. 13–15, 27–30), the
/// tables `reproduce` prints of it, on their own.
pub const DEFENCES_COMPARED: &str = "defences-compared";

/// The Linkability lab's crafted clients ([004] §4's T3, issue 42 §3): one per place, and the
/// places a person visits ranked from their updates.
pub const CRAFTED: &str = "crafted";

/// Each lab's studies sized like `reproduce` (`--quick`, `--seeds`, `--model`), beside it; not
/// page studies.
pub const SIZED: [(&str, &[&str]); 4] = [
    (
        "signal-map",
        &[SECURE_SUM, DISAGGREGATION, DEFENCES_COMPARED],
    ),
    ("density", &[SECURE_SUM]),
    ("linkability", &[SECURE_SUM, CRAFTED]),
    ("mobility", &[SECURE_SUM, UNICITY, MEMBERSHIP]),
];

/// The studies sized like `reproduce` of `lab`.
fn sized(lab: &str) -> &'static [&'static str] {
    SIZED
        .iter()
        .find(|(l, _)| *l == lab)
        .map_or(&[], |(_, studies)| studies)
}

/// The labs with tables on real data (`reproduce --real`).
pub const REAL_LABS: [&str; 3] = ["signal-map", "mobility", "density"];

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
        let sized = sized(&self.lab);
        if self.study != REPRODUCE
            && !sized.contains(&self.study.as_str())
            && !studies.contains(&self.study.as_str())
        {
            let all: Vec<&str> = [REPRODUCE]
                .iter()
                .chain(sized)
                .chain(studies.iter())
                .copied()
                .collect();
            return Err(format!(
                "--study: the {} lab has no study “{}” ({})",
                self.lab,
                self.study,
                all.join(", ")
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
        if let Some(dir) = &self.real {
            if !REAL_LABS.contains(&self.lab.as_str()) {
                return Err(format!(
                    "--real {dir}: the {} lab has no tables on real data (--lab {})",
                    self.lab,
                    REAL_LABS.join(" or --lab ")
                ));
            }
            let people =
                self.lab == "mobility" && [UNICITY, MEMBERSHIP].contains(&self.study.as_str());
            if self.study != REPRODUCE && !people {
                return Err(format!(
                    "--real {dir}: runs the {REPRODUCE} study (the tables on real data; for the Mobility lab also {UNICITY} and {MEMBERSHIP}), not --study {}",
                    self.study
                ));
            }
        }
        if !self.page_study() && self.base.is_some() {
            return Err(format!(
                "--config: the {REPRODUCE} study has no base configuration; a page study has (--study {})",
                studies.join(" | ")
            ));
        }
        Ok(())
    }

    /// Whether this is one of a lab's page studies (not `reproduce` or one sized like it).
    fn page_study(&self) -> bool {
        self.study != REPRODUCE && !sized(&self.lab).contains(&self.study.as_str())
    }

    /// The `reproduce` command that makes the same tables.
    pub fn command(&self) -> String {
        let quick = if self.quick { " --quick" } else { "" };
        let seeds = self
            .seeds
            .map_or(String::new(), |n| format!(" --seeds {n}"))
            + &self
                .real
                .as_ref()
                .map_or(String::new(), |d| format!(" --real {d}"));
        if self.page_study() {
            let config = self
                .config
                .as_ref()
                .map_or(String::new(), |c| format!(" --config {c}"));
            format!(
                "whereabouts reproduce --lab {} --study {} --seed {}{config}",
                self.lab, self.study, self.seed
            )
        } else {
            let study = if self.study == REPRODUCE {
                String::new()
            } else {
                format!(" --study {}", self.study)
            };
            if self.lab == "signal-map" {
                format!(
                    "whereabouts reproduce{study} --seed {} --model {}{quick}{seeds}",
                    self.seed, self.model
                )
            } else {
                format!(
                    "whereabouts reproduce --lab {}{study} --seed {}{quick}{seeds}",
                    self.lab, self.seed
                )
            }
        }
    }

    /// The file names of the CSV tables: `<prefix>-<k>.csv`.
    fn csv_prefix(&self) -> String {
        match (self.page_study(), self.lab.as_str()) {
            (true, lab) => format!("{lab}-{}", self.study),
            (false, "signal-map") if self.study == REPRODUCE && self.real.is_some() => {
                "table-real".into()
            }
            (false, "signal-map") if self.study == REPRODUCE => "table".into(),
            (false, "signal-map") => self.study.clone(),
            (false, lab) if self.study != REPRODUCE => format!("{lab}-{}", self.study),
            (false, lab) if self.real.is_some() => format!("{lab}-real"),
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
                match self.study.as_str() {
                    SECURE_SUM => {
                        use whereabouts_engine::signal_map::experiments::SecureSum;
                        Ok(Box::new(SecureSum(scale)))
                    }
                    DISAGGREGATION => {
                        use whereabouts_engine::signal_map::experiments::Disaggregation;
                        Ok(Box::new(Disaggregation(scale)))
                    }
                    DEFENCES_COMPARED => {
                        use whereabouts_engine::signal_map::experiments::DefencesCompared;
                        Ok(Box::new(DefencesCompared(scale)))
                    }
                    _ => match &self.real {
                        Some(dir) => {
                            use whereabouts_engine::signal_map::experiments::RealReproduce;
                            let data = crate::real::load_cork(Path::new(dir))?;
                            Ok(Box::new(RealReproduce {
                                scale,
                                data: std::sync::Arc::new(data),
                            }))
                        }
                        None => Ok(Box::new(Reproduce(scale))),
                    },
                }
            }
            "density" => {
                use whereabouts_engine::density::experiments::{RealPeople, Reproduce, Scale};
                let mut scale = if self.quick {
                    Scale::quick(self.seed)
                } else {
                    Scale::full(self.seed)
                };
                scale.seeds = self.seeds.unwrap_or(scale.seeds);
                if self.study == SECURE_SUM {
                    use whereabouts_engine::density::experiments::SecureSum;
                    return Ok(Box::new(SecureSum(scale)));
                }
                if let Some(dir) = &self.real {
                    let data = crate::real::load(Path::new(dir))?;
                    let half = whereabouts_engine::density::DensityConfig::default().city_half_m;
                    scale.real = Some(std::sync::Arc::new(RealPeople::new(&data, half)));
                }
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
                if self.study == SECURE_SUM {
                    use whereabouts_engine::linkability::experiments::SecureSum;
                    return Ok(Box::new(SecureSum(scale)));
                }
                if self.study == CRAFTED {
                    use whereabouts_engine::linkability::experiments::Crafted;
                    return Ok(Box::new(Crafted(scale)));
                }
                Ok(Box::new(Reproduce(scale)))
            }
            "mobility" => {
                use whereabouts_engine::mobility::experiments::{RealTargets, Reproduce, Scale};
                let mut scale = if self.quick {
                    Scale::quick(self.seed)
                } else {
                    Scale::full(self.seed)
                };
                scale.seeds = self.seeds.unwrap_or(scale.seeds);
                if self.study == SECURE_SUM {
                    use whereabouts_engine::mobility::experiments::SecureSum;
                    return Ok(Box::new(SecureSum(scale)));
                }
                if self.study == UNICITY || self.study == MEMBERSHIP {
                    use whereabouts_engine::mobility::experiments::{
                        Membership, Unicity, unicity_people,
                    };
                    let real = match &self.real {
                        Some(dir) => {
                            let data = crate::real::load(Path::new(dir))?;
                            Some(std::sync::Arc::new(unicity_people(&data)))
                        }
                        None => None,
                    };
                    if self.study == MEMBERSHIP {
                        return Ok(Box::new(Membership { scale, real }));
                    }
                    return Ok(Box::new(Unicity { scale, real }));
                }
                if let Some(dir) = &self.real {
                    let data = crate::real::load(Path::new(dir))?;
                    let targets = RealTargets::new(&data, scale.rounds)?;
                    scale.real = Some(std::sync::Arc::new(targets));
                }
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
