//! The phones' model and what the server keeps of each update: the signal map's small MLP
//! (fixed, not a setting), and the coordinates of its flat parameter vector for the kept
//! [`Layers`] ([004] §6: the attacks read the last layer's update, or all of it). The
//! settings' bound on the log's size and the federation both read it from here.

use super::features::Layers;
use crate::signal_map::model::{MlpSpec, ModelPreset};

/// The phones' model: the signal map's small MLP (2 → 64 tanh → 64 sigmoid → 1).
pub fn model_spec() -> MlpSpec {
    ModelPreset::Small.spec()
}

/// The coordinates of the flat parameter vector the server keeps for `layers`.
pub fn kept_range(spec: &MlpSpec, layers: Layers) -> std::ops::Range<usize> {
    match layers {
        Layers::All => 0..spec.parameter_count(),
        Layers::Last => {
            let last = *spec.layers().last().expect("the model has layers");
            last.w..last.b + last.outputs
        }
    }
}
