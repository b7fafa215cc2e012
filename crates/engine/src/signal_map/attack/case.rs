//! A self-contained attack case: an architecture, the weights the dummy gradient is taken at,
//! the observed update and the attack settings — so an update produced elsewhere (PyTorch,
//! say) can be attacked with exactly the engine's DLG. The format is documented in
//! `docs/formats.md`.
//!
//! Tensors come inline as flat JSON arrays (our layout: per layer W row-major (out × in), then
//! b) or from a safetensors file with PyTorch's `nn.Linear` naming (`<prefix>.<i>.weight` of
//! shape (out, in) and `<prefix>.<i>.bias`), ordered by the layer index `i`.

use super::dlg::{self, DlgConfig, DlgResult, InitContext};
use super::fedavg::{self, FedAvgConfig, FedAvgResult};
use super::objective::Objective;
use super::unroll::{LocalSchedule, Unrolled};
use super::{analytic, observed_gradient};
use crate::signal_map::limits;
use crate::signal_map::model::MlpSpec;
use crate::signal_map::scenario::ModelChoice;
use crate::signal_map::trace::Standardizer;
use serde::{Deserialize, Serialize};
use whereabouts_core::geo::Metres;
use whereabouts_core::import::cut_words;

/// Where a tensor list comes from.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Tensors {
    Inline(Vec<f32>),
    File { safetensors: String },
}

/// What the server observed.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Observation {
    /// A gradient (sum of the local steps' gradients), in the flat layout.
    Gradient {
        values: Tensors,
        #[serde(default = "one")]
        steps: usize,
    },
    /// Weights before and after the local update; g_obs = (before − after) / η.
    Weights {
        before: Tensors,
        after: Tensors,
        learning_rate: f32,
        #[serde(default = "one")]
        steps: usize,
    },
}

fn one() -> usize {
    1
}

/// The case file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub model: ModelChoice,
    /// Where the dummy gradient is computed (the paper: the target's updated model).
    pub weights: Tensors,
    pub update: Observation,
    /// Maps model inputs to metres; default: inputs are already metres-like units.
    #[serde(default)]
    pub standardizer: Option<Standardizer>,
    /// The area of interest in metres, `[[min_east, min_north], [max_east, max_north]]`;
    /// default: ±3 standard deviations around the standardiser's mean.
    #[serde(default)]
    pub area: Option<[[f64; 2]; 2]>,
    #[serde(default)]
    pub attack: Option<DlgConfig>,
    /// Starting point in metres; default: the Lemma 1 estimate (or the area's centre).
    #[serde(default)]
    pub start: Option<[f64; 2]>,
    /// The attacker's mean-label prior (Joint label modes); default −96 dBm.
    #[serde(default)]
    pub prior_label: Option<f32>,
    /// The phone's local training, for the FedAvg-aware attack (needs a `weights` update).
    #[serde(default)]
    pub fedavg: Option<FedAvgCase>,
}

/// What the server knows of the phone's local training (FedAvg's protocol and the n its
/// weighting sends), and the FedAvg-aware attack's settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FedAvgCase {
    /// n, the phone's local samples.
    pub samples: usize,
    /// B; leave it out for B = ∞.
    #[serde(default)]
    pub batch_size: Option<usize>,
    /// E.
    pub epochs: usize,
    #[serde(default)]
    pub attack: Option<FedAvgConfig>,
}

/// The attack's answer.
#[derive(Clone, Debug, Serialize)]
pub struct CaseResult {
    pub dlg: DlgResult,
    /// The reconstruction in the model's input units.
    pub input: [f64; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analytic: Option<Metres>,
    /// The FedAvg-aware attack's result, when the case describes the local training.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fedavg: Option<FedAvgResult>,
}

/// Loads and runs a case. `load` returns the bytes of a file the case refers to.
pub fn run_case(
    text: &str,
    load: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<CaseResult, String> {
    // serde echoes what it did not expect (a 2 MB field name whole): cut it.
    let case: Case = serde_json::from_str(text)
        .map_err(|e| format!("case file: {}", cut_words(&e.to_string())))?;
    let spec = case.model.spec();
    spec.validate().map_err(|e| e.to_string())?;
    let weights = resolve(&case.weights, &spec, load, "weights")?;
    let mut weights_change = None;
    let (g_obs, steps) = match &case.update {
        Observation::Gradient { values, steps } => {
            (resolve(values, &spec, load, "update.values")?, *steps)
        }
        Observation::Weights {
            before,
            after,
            learning_rate,
            steps,
        } => {
            if !(learning_rate.is_finite() && *learning_rate > 0.0) {
                return Err("update.learning_rate: must be a positive number".into());
            }
            let b = resolve(before, &spec, load, "update.before")?;
            let a = resolve(after, &spec, load, "update.after")?;
            let g = observed_gradient(&b, &a, *learning_rate);
            weights_change = Some((b, a, *learning_rate));
            (g, *steps)
        }
    };
    if steps == 0 {
        return Err("update.steps: the phone took at least one local step (1 or more)".into());
    }
    let cfg = case.attack.clone().unwrap_or_default();
    cfg.validate().map_err(|e| e.to_string())?;
    let std = case.standardizer.unwrap_or(Standardizer {
        mean: [0.0, 0.0],
        sd: [1.0, 1.0],
    });
    if !std.sd.iter().all(|s| s.is_finite() && *s > 0.0) || !std.mean.iter().all(|m| m.is_finite())
    {
        return Err(format!(
            "standardizer: sd {:?} must be positive and mean {:?} finite (metres per unit of input)",
            std.sd, std.mean
        ));
    }
    let area = match case.area {
        Some([lo, hi]) => (Metres::new(lo[0], lo[1]), Metres::new(hi[0], hi[1])),
        None => (std.to_metres([-3.0, -3.0]), std.to_metres([3.0, 3.0])),
    };
    let mut objective = Objective::new(&spec, &weights, &g_obs, steps);
    if objective.observed_norm() == 0.0 || !objective.observed_norm().is_finite() {
        return Err(
            "update: the observed gradient is zero or not finite; nothing to invert".into(),
        );
    }
    let lemma = analytic::reconstruct(&spec, &g_obs, &std);
    let start = case
        .start
        .map(|[e, n]| Metres::new(e, n))
        .or(lemma)
        .unwrap_or_else(|| std.to_metres([0.0, 0.0]));
    let result = dlg::run(
        &mut objective,
        &cfg,
        &std,
        area,
        start,
        case.prior_label.unwrap_or(-96.0),
    );
    let fedavg = match (&case.fedavg, weights_change) {
        (None, _) => None,
        (Some(_), None) => {
            return Err(
                "fedavg: the FedAvg-aware attack simulates the weights, so the update must be \
                 { \"kind\": \"weights\", … }"
                    .into(),
            );
        }
        (Some(f), Some((before, after, lr))) => {
            limits::EPOCHS
                .check("fedavg.epochs", f.epochs as f64)
                .map_err(|e| e.to_string())?;
            if f.samples == 0 {
                return Err("fedavg.samples: the phone trained on at least one point".into());
            }
            if let Some(b) = f.batch_size {
                limits::BATCH_SIZE
                    .check("fedavg.batch_size (leave it out for B = ∞)", b as f64)
                    .map_err(|e| e.to_string())?;
            }
            let cfg = f.attack.clone().unwrap_or_default();
            cfg.validate().map_err(|e| e.to_string())?;
            let schedule = LocalSchedule::new(f.samples, f.batch_size, f.epochs, lr, cfg.dummies);
            let mut objective =
                Unrolled::new(&spec, &before, &after, schedule, cfg.label, cfg.distance)
                    .map_err(|e| format!("fedavg: {e}"))?;
            let ctx = InitContext {
                area,
                previous: Some(start),
                true_centroid: None,
                analytic: lemma,
            };
            let mut s = whereabouts_core::rng::Stream::new(1, "case-fedavg-init");
            Some(fedavg::run(
                &mut objective,
                &cfg,
                &std,
                &ctx,
                case.prior_label.unwrap_or(-96.0),
                &mut s,
            ))
        }
    };
    let x = std.to_input(result.position);
    Ok(CaseResult {
        input: [f64::from(x[0]), f64::from(x[1])],
        dlg: result,
        analytic: lemma,
        fedavg,
    })
}

fn resolve(
    t: &Tensors,
    spec: &MlpSpec,
    load: &dyn Fn(&str) -> Result<Vec<u8>, String>,
    what: &str,
) -> Result<Vec<f32>, String> {
    let flat = match t {
        Tensors::Inline(v) => v.clone(),
        Tensors::File { safetensors } => {
            let bytes = load(safetensors).map_err(|e| format!("{what}: {e}"))?;
            from_safetensors(&bytes, spec).map_err(|e| format!("{what} ({safetensors}): {e}"))?
        }
    };
    let want = spec.parameter_count();
    if flat.len() != want {
        return Err(format!(
            "{what}: {} numbers, but the model has {want} parameters",
            flat.len()
        ));
    }
    if let Some(i) = flat.iter().position(|v| !v.is_finite()) {
        return Err(format!("{what}: value {i} is not a finite number"));
    }
    Ok(flat)
}

/// Reads PyTorch-named linear layers from safetensors into the flat layout.
pub fn from_safetensors(bytes: &[u8], spec: &MlpSpec) -> Result<Vec<f32>, String> {
    let tensors = candle_core::safetensors::load_buffer(bytes, &candle_core::Device::Cpu)
        .map_err(|e| format!("not a readable safetensors file: {e}"))?;
    let index = |name: &str| -> Option<u64> {
        let stem = name
            .strip_suffix(".weight")
            .or(name.strip_suffix(".bias"))?;
        stem.rsplit('.').next()?.parse().ok()
    };
    let mut layers: Vec<u64> = tensors.keys().filter_map(|k| index(k)).collect();
    layers.sort_unstable();
    layers.dedup();
    let shapes = spec.layers();
    if layers.len() != shapes.len() {
        return Err(format!(
            "found {} linear layers (names ending in .<i>.weight/.bias), the model has {}",
            layers.len(),
            shapes.len()
        ));
    }
    let mut flat = Vec::with_capacity(spec.parameter_count());
    for (i, shape) in layers.iter().zip(&shapes) {
        for (suffix, dims) in [
            ("weight", vec![shape.outputs, shape.inputs]),
            ("bias", vec![shape.outputs]),
        ] {
            let (name, tensor) = tensors
                .iter()
                .find(|(k, _)| index(k) == Some(*i) && k.ends_with(suffix))
                .ok_or_else(|| format!("layer {i} has no .{suffix}"))?;
            if tensor.dims() != dims.as_slice() {
                return Err(format!(
                    "{name} has shape {:?}, the model needs {dims:?}",
                    tensor.dims()
                ));
            }
            let values = tensor
                .to_dtype(candle_core::DType::F32)
                .and_then(|t| t.flatten_all())
                .and_then(|t| t.to_vec1::<f32>())
                .map_err(|e| format!("{name}: {e}"))?;
            flat.extend(values);
        }
    }
    Ok(flat)
}
