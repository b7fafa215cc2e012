//! `whereabouts`: the native command line over the engine — the same algorithms the browser
//! runs, for scripted, reproducible experiments.
//!
//! Its length (about 800 lines): every subcommand's flags (clap) and their dispatch; each command's
//! work is in its own module.

mod density;
mod labs;
mod real;
mod secagg;
mod settings;
mod sweep;

use clap::{Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use whereabouts_engine::signal_map::lab::{Lab, LabEvent};
use whereabouts_engine::signal_map::scenario::ScenarioConfig;
use whereabouts_engine::signal_map::world::{Preset, World};

#[derive(Parser)]
#[command(
    name = "whereabouts",
    version,
    about = "How much of your whereabouts leaks out of federated learning — and what stops it"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate a synthetic world's measurements as CSV (user,time_unix,lat,lon,rsrp_dbm).
    Generate {
        /// campus or metro.
        #[arg(long, default_value = "campus")]
        preset: String,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        users: Option<usize>,
        #[arg(long)]
        weeks: Option<u32>,
        /// Output file (default: standard output).
        #[arg(long, short)]
        out: Option<PathBuf>,
    },
    /// Run one lab (the Signal map's scenario by default) from a TOML or JSON config and write
    /// its results as JSON: per round for the Signal map, the run's figures and the server's
    /// guesses for the others.
    Run {
        /// signal-map, density, linkability or mobility.
        #[arg(long, default_value = "signal-map")]
        lab: String,
        /// The run's settings (left-out ones keep the lab's defaults; without it, the lab's
        /// default run); `--print-config` prints a complete example.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Print the lab's default config (TOML) instead of running.
        #[arg(long)]
        print_config: bool,
        /// A setting by the page's key (as in the page's link; `whereabouts settings --lab LAB`
        /// lists them), applied over the config: `--set T=6 --set def=dp --set dpe=30`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Density: also write the exact KDE and the server's estimate, cell by cell.
        #[arg(long)]
        surfaces: bool,
        /// Output file (default: standard output).
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Signal map: include wall-clock attack times (makes the output differ between runs).
        #[arg(long)]
        timings: bool,
        /// Signal map: keep the attack-progress events (the DLG path is in each round's `trail`
        /// anyway).
        #[arg(long)]
        progress_events: bool,
        /// Your own file (CSV, GPX, GeoJSON, Google location history), put in as the page puts
        /// it: the Signal map's target (the world placed around it, rounds by its timestamps),
        /// the Density lab's places (its frequent places), the Linkability lab's visitor, the
        /// Mobility lab's target.
        #[arg(long)]
        data: Option<PathBuf>,
        /// With --data: keep at most one fix per this many seconds.
        #[arg(long, default_value_t = 0.0)]
        thin: f64,
    },
    /// Print the default scenario config (TOML), a starting point for `run --config`.
    Config,
    /// List a lab's settings by the page's keys (for `run --set`): each with its value in the
    /// lab's default run, its bound or choices, and what it does.
    Settings {
        /// signal-map, density, linkability or mobility.
        #[arg(long, default_value = "signal-map")]
        lab: String,
    },
    /// Run DLG on one case file (architecture, weights, observed update, settings).
    Attack {
        #[arg(long)]
        case: PathBuf,
    },
    /// Time one DLG iteration for each benchmarked architecture (native); with `--secagg`,
    /// time secure aggregation instead (client and server, bytes per round).
    Bench {
        #[arg(long, default_value_t = 2000)]
        iterations: usize,
        /// Benchmark one round of secure aggregation (SecAgg and SecAgg+) per cohort size.
        #[arg(long)]
        secagg: bool,
        /// With --secagg: the cohort sizes.
        #[arg(long, value_delimiter = ',', default_value = "10,100,1000")]
        clients: Vec<usize>,
        /// With --secagg: words per input (default: the Signal map's small model's parameters).
        #[arg(long)]
        length: Option<usize>,
        /// With --secagg: the share of clients that drop after sending their shares, in a
        /// second run of each cohort (0: none).
        #[arg(long, default_value_t = 0.1)]
        dropout: f64,
    },
    /// Read a GPS or signal file (CSV, GPX, GeoJSON, Google location history) and print what
    /// it holds, or exactly what is wrong with it.
    Import {
        file: PathBuf,
        /// Also print the fixes as CSV (time_unix,lat,lon,rsrp_dbm).
        #[arg(long)]
        fixes: bool,
    },
    /// Write the page's sample files (synthetic people; `www/samples` holds the committed copy).
    Samples {
        #[arg(long)]
        out: PathBuf,
    },
    /// Run the Density lab ([003]: federated KDE by random Fourier features and the server's
    /// attacks) once and write its figures as JSON: the same numbers as the page.
    Density {
        /// The run's settings (TOML or JSON; left-out settings keep their defaults).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Print the default settings (TOML) instead of running.
        #[arg(long)]
        print_config: bool,
        /// Also write the exact KDE and the server's estimate, cell by cell.
        #[arg(long)]
        surfaces: bool,
        /// Output file (default: standard output).
        #[arg(long, short)]
        out: Option<PathBuf>,
    },
    /// Reproduce the paper's Table 2, Table 3, defence comparison ([000] §4.5) and round-length
    /// study on the synthetic presets, as Markdown tables with the paper's numbers beside; with
    /// `--lab density`, the Density lab's studies ([003]); with `--lab linkability`, the
    /// Linkability lab's ([004]); with `--lab mobility`, the Mobility lab's ([002]). With
    /// `--study`, one of the lab's page studies on a base configuration (`--config`) instead.
    Reproduce {
        /// signal-map, density, linkability or mobility.
        #[arg(long, default_value = "signal-map")]
        lab: String,
        #[command(flatten)]
        size: StudySize,
        /// Markdown output file (default: standard output).
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Also write one CSV per table into this directory.
        #[arg(long)]
        csv: Option<PathBuf>,
        /// Run the lab's tables on real data instead of the synthetic world (signal-map: [000]'s
        /// one-user tables on the 5g-cork drive traces, a real cell a seed; mobility: [002]'s
        /// on the Foursquare New York check-ins' weekly trajectories; density: [003]'s with the
        /// check-ins as the population): DIR is the folder of your downloaded copy, laid out as
        /// DIR/5g-cork/5G-production-dataset.zip and DIR/foursquare-nyc/Foursquare_Sample.csv
        /// (docs/papers.md §3a, "Real data: 5g-cork"; §3f for foursquare-nyc). Nothing of it is
        /// copied anywhere.
        #[arg(long, value_name = "DIR")]
        real: Option<PathBuf>,
    },
    /// A study (`reproduce`'s or a page study) spread over many machines: plan its points into a directory, run
    /// point I anywhere (a batch engine's array task), merge the results into the same tables
    /// (docs/sweeps.md).
    Sweep {
        #[command(subcommand)]
        step: SweepStep,
    },
}

/// Which study and its size (`reproduce` and `sweep plan`).
#[derive(clap::Args)]
struct StudySize {
    /// reproduce (the paper's tables); secure-sum (the tables of secure aggregation, sized as
    /// reproduce: the Signal map's co-participants, Sybil server and minimum cohort; the Density
    /// lab's attacks on every upload beside only the sum; the Linkability lab's attacks,
    /// trained before, on sums of k devices' updates; the Mobility lab's ST-GIA against the
    /// co-participants); disaggregation (the Signal map's: gradient disaggregation of the
    /// secure sums, sized as reproduce); defences-compared (the Signal map's defence comparison
    /// under [000]'s four protocols, daily and weekly FedSGD and FedAvg, Figs. 13–15 and 27–30,
    /// sized as reproduce); unicity and membership (the Mobility lab's: how many of a person's
    /// points single them out, and membership inference on released counts; with --real also
    /// on the real check-ins); crafted (the Linkability lab's: [004] §4's T3, one crafted
    /// client per place, each person's places ranked from their updates, sized as reproduce);
    /// or one of the lab's page studies: signal-map defences, local-steps or co-participants;
    /// density schemes; linkability mitigations; mobility defences.
    #[arg(long, default_value = sweep::REPRODUCE)]
    study: String,
    /// A page study's base configuration (TOML, or JSON exported from the page); the lab's
    /// default without one.
    #[arg(long)]
    config: Option<PathBuf>,
    /// The seed (default 1; a page study's --config keeps its own unless this is given).
    #[arg(long)]
    seed: Option<u64>,
    /// small or paper (the Signal map's model).
    #[arg(long, default_value = "small")]
    model: String,
    /// A smoke-test size (seconds instead of minutes).
    #[arg(long)]
    quick: bool,
    /// Measure every figure on this many worlds (populations, cities: seeds from --seed on)
    /// instead of the study's default (5, or 2 with --quick); each cell is their mean and 95%
    /// interval.
    #[arg(long, alias = "worlds")]
    seeds: Option<u64>,
}

impl StudySize {
    fn of(self, lab: String) -> Result<sweep::StudySpec, String> {
        let base = match &self.config {
            Some(path) => Some(
                whereabouts_engine::config_text::parse::<serde_json::Value>(&read(path)?)
                    .map_err(|e| format!("{}: {e}", path.display()))?,
            ),
            None => None,
        };
        let file_seed = base
            .as_ref()
            .and_then(|b| b.get("seed"))
            .and_then(serde_json::Value::as_u64);
        Ok(sweep::StudySpec {
            lab,
            study: self.study,
            seed: self.seed.or(file_seed).unwrap_or(1),
            quick: self.quick,
            model: self.model,
            seeds: self.seeds,
            config: self.config.map(|p| p.display().to_string()),
            base,
            real: None,
        })
    }
}

#[derive(Subcommand)]
enum SweepStep {
    /// Write the study's points (one JSON line each) into a new directory.
    Plan {
        /// The lab whose study to plan (signal-map, density, linkability, mobility).
        lab: String,
        #[command(flatten)]
        size: StudySize,
        /// The sweep's directory (must not hold a sweep yet).
        #[arg(long, short)]
        out: PathBuf,
    },
    /// Run point I (or every point of shard K/N) that has no result yet.
    Run {
        dir: PathBuf,
        #[arg(long)]
        index: Option<usize>,
        /// K/N: the points i with i mod N = K − 1 (K from 1 to N).
        #[arg(long)]
        shard: Option<String>,
    },
    /// Print the number of points (for scripts).
    Count { dir: PathBuf },
    /// Check every point has its result and write the tables `reproduce` writes.
    Merge {
        dir: PathBuf,
        /// Markdown output file (default: standard output).
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Also write one CSV per table into this directory.
        #[arg(long)]
        csv: Option<PathBuf>,
    },
}

/// A span of `seconds` in the unit that reads best: minutes under two hours, hours under two
/// days, else days.
fn span(seconds: f64) -> String {
    if seconds < 7_200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else if seconds < 172_800.0 {
        format!("{:.1} hours", seconds / 3_600.0)
    } else {
        format!("{:.1} days", seconds / 86_400.0)
    }
}

/// Restores SIGPIPE's default action: writing to a closed pipe (`whereabouts … | head`) then
/// ends the process quietly, as it ends `cat`, instead of a panic at the next `println!` (Rust's
/// runtime ignores the signal).
fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called first in `main`, before any other thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and the version as clap prints them; an error with what it echoes cut.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            eprint!("{}", whereabouts_core::import::cut_words(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Generate {
            preset,
            seed,
            users,
            weeks,
            out,
        } => generate(&preset, seed, users, weeks, out.as_deref()),
        Command::Run {
            print_config: true,
            lab,
            ..
        } => labs::default_config(&lab).map(|t| print!("{t}")),
        Command::Run {
            lab,
            config,
            surfaces,
            out,
            timings,
            progress_events,
            data,
            thin,
            set,
            ..
        } => {
            // What can be refused is refused before any work.
            if !(thin.is_finite() && thin >= 0.0) {
                return fail(format!(
                    "--thin: {thin} is not a number of seconds from 0 up"
                ));
            }
            if let Err(e) = writable(out.as_deref()) {
                return fail(e);
            }
            let signal_only = [
                ("--timings", timings),
                ("--progress-events", progress_events),
            ];
            let density_only = [("--surfaces", surfaces)];
            let refuse = |flags: &[(&str, bool)], whose: &str| {
                flags
                    .iter()
                    .find(|(_, on)| *on)
                    .map_or(Ok(()), |(flag, _)| Err(format!("{flag} is {whose} only")))
            };
            let text =
                || settings::apply_sets(&lab, config.as_deref().map(read).transpose()?, &set);
            let file = || {
                data.as_deref()
                    .map(
                        |path| -> Result<(String, Vec<whereabouts_core::import::Fix>), String> {
                            let (name, i) = import_path(path)?;
                            Ok((name, whereabouts_core::import::thin(&i.fixes, thin)))
                        },
                    )
                    .transpose()
            };
            match lab.as_str() {
                "signal-map" => refuse(&density_only, "the Density lab's").and_then(|()| {
                    let name = config
                        .as_deref()
                        .map_or("--set".into(), |p| p.display().to_string());
                    run(
                        text()?.map(|t| (name, t)),
                        out.as_deref(),
                        timings,
                        progress_events,
                        data.as_deref(),
                        thin,
                    )
                }),
                other => refuse(&signal_only, "the Signal map's")
                    .and_then(|()| {
                        if other != "density" {
                            refuse(&density_only, "the Density lab's")?;
                        }
                        let (text, file) = (text()?, file()?);
                        match other {
                            "density" => density::run_with(text.as_deref(), surfaces, file),
                            "linkability" => labs::linkability(text.as_deref(), file),
                            "mobility" => labs::mobility(text.as_deref(), file),
                            _ => Err(format!("no lab is called “{other}” ({})", labs::LABS)),
                        }
                    })
                    .and_then(|json| write_out(out.as_deref(), &json)),
            }
        }
        Command::Config => ScenarioConfig::default().to_toml().map(|t| print!("{t}")),
        Command::Settings { lab } => settings::list(&lab).map(|t| print!("{t}")),
        Command::Attack { case } => attack(&case),
        Command::Bench {
            secagg: true,
            clients,
            length,
            dropout,
            ..
        } => secagg::bench(&whereabouts_core::secagg::bench::Plan {
            clients,
            length: length.unwrap_or_else(|| {
                whereabouts_engine::signal_map::model::ModelPreset::Small
                    .spec()
                    .parameter_count()
            }),
            dropout,
        }),
        Command::Bench { iterations, .. } => {
            if (1..=MAX_BENCH_ITERATIONS).contains(&iterations) {
                bench(iterations);
                Ok(())
            } else {
                Err(format!(
                    "--iterations: {iterations} is not a whole number from 1 to {MAX_BENCH_ITERATIONS}"
                ))
            }
        }
        Command::Import { file, fixes } => import_file(&file, fixes),
        Command::Samples { out } => write_samples(&out),
        Command::Density {
            print_config: true, ..
        } => density::default_config().map(|t| print!("{t}")),
        Command::Density {
            config,
            surfaces,
            out,
            ..
        } => config
            .as_deref()
            .map(density::read_config)
            .transpose()
            .and_then(|text| density::run(text.as_deref(), surfaces))
            .and_then(|json| write_out(out.as_deref(), &json)),
        Command::Reproduce {
            lab,
            size,
            out,
            csv,
            real,
        } => size.of(lab).and_then(|mut spec| {
            spec.real = real.map(|d| d.display().to_string());
            sweep::reproduce(&spec, out.as_deref(), csv.as_deref())
        }),
        Command::Sweep { step } => match step {
            SweepStep::Plan { lab, size, out } => {
                size.of(lab).and_then(|spec| sweep::plan(&spec, &out))
            }
            SweepStep::Run { dir, index, shard } => {
                sweep::Selection::from_args(index, shard.as_deref())
                    .and_then(|s| sweep::run(&dir, s))
            }
            SweepStep::Count { dir } => sweep::count(&dir),
            SweepStep::Merge { dir, out, csv } => {
                sweep::merge(&dir, out.as_deref(), csv.as_deref())
            }
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Most iterations `bench` times (each of its architectures takes them in turn).
const MAX_BENCH_ITERATIONS: usize = 1_000_000;

/// An error as `main` reports it.
/// Says what went wrong, its echoed input cut (a 2 MB value or a 100 kB argument shows its
/// start and its length).
fn fail(e: String) -> ExitCode {
    eprintln!("whereabouts: {}", whereabouts_core::import::cut_words(&e));
    ExitCode::FAILURE
}

/// Whether `out` can be written: its folder exists (checked before a run's work, not after).
fn writable(out: Option<&Path>) -> Result<(), String> {
    let Some(path) = out else { return Ok(()) };
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) if !dir.is_dir() => Err(format!(
            "--out {}: the folder {} does not exist",
            path.display(),
            dir.display()
        )),
        _ if path.is_dir() => Err(format!("--out {}: is a folder, not a file", path.display())),
        _ => Ok(()),
    }
}

fn write_out(out: Option<&Path>, text: &str) -> Result<(), String> {
    match out {
        Some(path) => std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display())),
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| e.to_string()),
    }
}

fn generate(
    preset: &str,
    seed: u64,
    users: Option<usize>,
    weeks: Option<u32>,
    out: Option<&Path>,
) -> Result<(), String> {
    let mut config = Preset::parse(preset)
        .map_err(|e| e.to_string())?
        .config(seed);
    if let Some(u) = users {
        config.mobility.users = u;
    }
    if let Some(w) = weeks {
        config.mobility.weeks = w;
    }
    let world = World::generate(&config).map_err(|e| e.to_string())?;
    let mut csv = String::from("user,time_unix,lat,lon,rsrp_dbm\n");
    for m in &world.measurements {
        csv.push_str(&format!(
            "{},{:.0},{:.7},{:.7},{:.1}\n",
            m.user, m.time, m.lat, m.lon, m.rsrp_dbm
        ));
    }
    write_out(out, &csv)?;
    eprintln!(
        "{} measurements from {} users over {} week(s) ({} preset, seed {seed})",
        world.measurements.len(),
        world.users.len(),
        config.mobility.weeks,
        preset
    );
    Ok(())
}

/// Runs the Signal map's scenario `config` (its name for messages, and its text; the default
/// scenario without one).
fn run(
    config: Option<(String, String)>,
    out: Option<&Path>,
    timings: bool,
    progress_events: bool,
    data: Option<&Path>,
    thin: f64,
) -> Result<(), String> {
    let mut config = match config {
        Some((name, text)) => ScenarioConfig::parse(&text).map_err(|e| format!("{name}: {e}"))?,
        None => ScenarioConfig::default(),
    };
    if let Some(path) = data {
        let (name, i) = import_path(path)?;
        let fixes = whereabouts_core::import::thin(&i.fixes, thin);
        if fixes.len() < 2 {
            return Err(format!("{name}: --thin {thin} leaves fewer than two fixes"));
        }
        let trace = whereabouts_engine::signal_map::placement::ImportedTrace::new(name, fixes);
        for note in &trace.placement()?.notes {
            eprintln!("whereabouts: {note}");
        }
        if !trace.has_signal() {
            eprintln!(
                "whereabouts: {} has no signal column; the synthetic field provides RSRP",
                trace.name
            );
        }
        config.trajectory = None;
        config.imported = Some(trace);
        config.validate().map_err(|e| e.to_string())?;
    }
    let mut lab = Lab::new(config.clone())?;
    let total = lab.total_rounds();
    let started = std::time::Instant::now();
    let clock = move || started.elapsed().as_secs_f64() * 1000.0;
    let progress = std::io::stderr().is_terminal();
    let mut events = Vec::new();
    let references = lab.references();
    let summary = lab.run(
        timings.then_some(&clock as &dyn Fn() -> f64),
        &mut |event| {
            if let (true, LabEvent::Attacked(r)) = (progress, &event) {
                let done = r.round + 1;
                let width = 30;
                let filled = width * done / total.max(1);
                eprint!(
                    "\r[{}{}] round {done}/{total}",
                    "#".repeat(filled),
                    " ".repeat(width - filled)
                );
            }
            // Progress and the interim reconstruction are for live displays; the round's
            // record repeats the final one.
            let live = matches!(
                event,
                LabEvent::Progress { .. }
                    | LabEvent::Reconstructed { .. }
                    | LabEvent::Simulated { .. }
            );
            if progress_events || !live {
                events.push(event);
            }
        },
    )?;
    if progress {
        eprintln!();
    }
    let result = serde_json::json!({
        "engine": whereabouts_engine::VERSION,
        "config": config,
        "events": events,
        "summary": summary,
        "references": references,
    });
    let text = serde_json::to_string_pretty(&result).map_err(|e| e.to_string())? + "\n";
    write_out(out, &text)?;
    let fmt = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.1}"));
    eprintln!(
        "{} round{} attacked: median error {} m, EMD {} m (random guessing {} m), {}% diverged, RMSE {} dB",
        summary.attacked_rounds,
        if summary.attacked_rounds == 1 {
            ""
        } else {
            "s"
        },
        fmt(summary.median_error_m),
        fmt(summary.emd_m),
        fmt(summary.random_emd_m),
        fmt(summary.diverged_percent),
        fmt(summary.final_rmse_db)
    );
    eprintln!(
        "on the same data: the mean predictor's RMSE {} dB, the same model trained centrally {} dB",
        fmt(Some(references.mean_rmse_db)),
        fmt(references.centralised_rmse_db)
    );
    if let Some(i) = &summary.imprint {
        eprintln!(
            "malicious server (imprint, {} rounds): {} of your {} fixes recovered exactly, {} of everyone's {} (within {} m; the largest error {} m)",
            i.rounds,
            i.your_exact,
            i.your_fixes,
            i.everyone_exact,
            i.everyone_fixes,
            whereabouts_engine::signal_map::imprint::EXACT_M,
            i.max_error_m.map_or("–".into(), |v| format!("{v:.3}"))
        );
    }
    Ok(())
}

fn attack(case_path: &Path) -> Result<(), String> {
    let text = read(case_path)?;
    let dir = case_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let load = move |name: &str| {
        let p = dir.join(name);
        std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))
    };
    let result = whereabouts_engine::signal_map::attack::case::run_case(&text, &load)
        .map_err(|e| format!("{}: {e}", case_path.display()))?;
    let text = serde_json::to_string_pretty(&result).map_err(|e| e.to_string())?;
    println!("{text}");
    Ok(())
}

fn bench(iterations: usize) {
    let started = std::time::Instant::now();
    let now = move || started.elapsed().as_secs_f64() * 1000.0;
    println!("DLG, one dummy point, cosine loss; native, one thread; {iterations} iterations");
    for (name, spec) in whereabouts_engine::signal_map::bench::architectures() {
        let ms =
            whereabouts_engine::signal_map::bench::dlg_ms_per_iteration(&spec, iterations, &now);
        println!("{name:<45} {:>9.2} µs/iteration", ms * 1000.0);
    }
    println!(
        "FedAvg-aware attack: one iteration (simulate K local steps, reverse through them) against one DLG iteration on the same model; native, one thread"
    );
    for (model, k, fedavg, dlg) in whereabouts_engine::signal_map::bench::fedavg_sweep(&now) {
        match fedavg {
            Ok(ms) => println!(
                "{model:<6} K = {k:<4} FedAvg-aware {:>10.3} ms/iteration, DLG {:>8.3} ms (×{:.0})",
                ms,
                dlg,
                ms / dlg
            ),
            Err(e) => println!("{model:<6} K = {k:<4} {e}"),
        }
    }
    println!("Import throughput; native, one thread; ~20 MB per format");
    let samples = whereabouts_engine::signal_map::bench::import_samples(20_000_000);
    for (name, mb_s, fixes) in
        whereabouts_engine::signal_map::bench::import_mb_per_s(&samples, &now)
    {
        println!("{name:<45} {mb_s:>9.1} MB/s ({fixes} fixes)");
    }
    println!("Density aggregate (N users × B features on 128 × 128); native, one thread");
    for (n, b) in [(1_000, 10), (10_000, 10)] {
        let (fast, direct, error) =
            whereabouts_engine::density::bench::aggregate_ms(n, b, 128, &now);
        println!(
            "N = {n}, B = {b}: NUFFT {fast:>8.1} ms, direct {direct:>9.1} ms (×{:.0}), max error {error:.1e} of N·B",
            direct / fast
        );
    }
    println!("Frequency fitting, one upload, 128 × 128, h = 300 m; native, one thread; 10 uploads");
    for b in [3, 10] {
        let (fast, direct) = whereabouts_engine::density::bench::fit_ms(b, 128, 10, &now);
        println!(
            "B = {b:<3} separated {fast:>8.2} ms   cell by cell {direct:>9.2} ms   ({:.1}× faster)",
            direct / fast
        );
    }
    println!(
        "Mobility attack objective (LSTM 2→16→2, a window of 8; the dummy gradient and its derivative in 18 unknowns); native, one thread"
    );
    for distance in whereabouts_engine::mobility::objective::Distance::ALL {
        use whereabouts_engine::mobility::bench::objective_ms;
        let (reverse, _) = objective_ms(distance, 5000, true, &now);
        let (dual, _) = objective_ms(distance, 2000, false, &now);
        println!(
            "{distance:?}: reverse over reverse {:.1} µs, dual numbers {:.1} µs per evaluation (×{:.1})",
            1000.0 * reverse,
            1000.0 * dual,
            dual / reverse
        );
    }
    let (round, evaluations) = whereabouts_engine::mobility::bench::round_ms(10, &now);
    println!(
        "Mobility: one ST-GIA round (200 L-BFGS iterations, road mapping), first 10 rounds; native, one thread: {round:.0} ms per round, {evaluations:.0} evaluations"
    );
    println!(
        "Signal map: one local update (the paper's model, dropout 0.05; 100 points, B = 20, E = 2); native, one thread"
    );
    {
        use whereabouts_engine::signal_map::bench::{local_training_candle_ms, local_training_ms};
        match (
            local_training_ms(20, &now),
            local_training_candle_ms(20, &now),
        ) {
            (Ok(hand), Ok((candle, difference))) => println!(
                "by hand {hand:>8.2} ms   candle {candle:>8.2} ms   ({:.1}× faster), max difference {difference:.1e}",
                candle / hand
            ),
            (Err(e), _) | (_, Err(e)) => println!("failed: {e}"),
        }
    }
    println!(
        "Linkability federation (30 people × 2 devices, 14 rounds): local SGD; native, one thread"
    );
    match whereabouts_engine::linkability::bench::local_training_ms(30, 14, &now) {
        Ok((hand, candle, updates, difference)) => println!(
            "{updates} updates: by hand {hand:>8.1} ms   candle {candle:>8.1} ms   ({:.1}× faster), max difference {difference:.1e}",
            candle / hand
        ),
        Err(e) => println!("failed: {e}"),
    }
}

/// Writes each table as `<prefix>-<k>.csv` into `dir` (made if missing).
pub(crate) fn write_csv(
    dir: &Path,
    tables: &[whereabouts_core::table::Table],
    prefix: &str,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (i, t) in tables.iter().enumerate() {
        let path = dir.join(format!("{prefix}-{}.csv", i + 1));
        std::fs::write(&path, t.to_csv()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

fn write_samples(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for s in whereabouts_engine::signal_map::samples::samples() {
        let path = dir.join(s.name);
        std::fs::write(&path, &s.contents).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("{}: {}", path.display(), s.label);
    }
    Ok(())
}

/// Reads and imports a file, refusing one too large before reading it.
fn import_path(path: &Path) -> Result<(String, whereabouts_core::import::Import), String> {
    use whereabouts_core::import::{ImportOptions, import};
    let name = path.display().to_string();
    let options = ImportOptions::default();
    let size = std::fs::metadata(path)
        .map_err(|e| format!("{name}: {e}"))?
        .len();
    if size > options.max_bytes as u64 {
        return Err(format!(
            "{name}: the file is {:.0} MB; the limit is {:.0} MB",
            size as f64 / 1e6,
            options.max_bytes as f64 / 1e6
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let i = import(&name, &bytes, &options).map_err(|e| e.to_string())?;
    Ok((name, i))
}

fn import_file(path: &Path, print_fixes: bool) -> Result<(), String> {
    let (name, i) = import_path(path)?;
    let (first, last) = (i.fixes[0], i.fixes[i.fixes.len() - 1]);
    // West to east the short way round the median longitude: a walk across ±180° (Fiji) spans
    // its few km, not the globe.
    use whereabouts_core::geo::{median_longitude, wrap_degrees};
    let middle = median_longitude(i.fixes.iter().map(|f| f.lon));
    let (mut s, mut n, mut w, mut e) = (90.0f64, -90.0f64, f64::INFINITY, f64::NEG_INFINITY);
    for f in &i.fixes {
        s = s.min(f.lat);
        n = n.max(f.lat);
        let lon = middle + wrap_degrees(f.lon - middle);
        w = w.min(lon);
        e = e.max(lon);
    }
    let back = |d: f64| if d.abs() <= 180.0 { d } else { wrap_degrees(d) };
    let (w, e) = (back(w), back(e));
    let across = if w > e { " (across ±180°)" } else { "" };
    println!("{name}: {}", i.format.describe());
    println!("  {} fixes, {} rows skipped", i.fixes.len(), i.skipped);
    println!(
        "  from {} to {} ({})",
        whereabouts_core::import::time::format_iso(first.time),
        whereabouts_core::import::time::format_iso(last.time),
        span(last.time - first.time)
    );
    println!("  latitude {s:.5} to {n:.5}, longitude {w:.5} to {e:.5}{across}");
    println!(
        "  signal: {}",
        if i.has_signal() {
            "from the file"
        } else {
            "none in the file (the synthetic signal field will provide RSRP)"
        }
    );
    if let Some(m) = &i.csv {
        let col = |k: usize| m.names.get(k).cloned().unwrap_or_default();
        println!(
            "  columns: time = {}, latitude = {}, longitude = {}, signal = {} (delimiter {:?})",
            col(m.time),
            col(m.lat),
            col(m.lon),
            m.signal.map_or("none".into(), col),
            m.delimiter
        );
    }
    for x in &i.skipped_examples {
        println!("  skipped {x}");
    }
    for x in &i.warnings {
        println!("  note: {x}");
    }
    if print_fixes {
        println!("time_unix,lat,lon,rsrp_dbm");
        for f in &i.fixes {
            let r = f.rsrp_dbm.map_or(String::new(), |v| v.to_string());
            println!("{},{},{},{r}", f.time, f.lat, f.lon);
        }
    }
    Ok(())
}
