//! ST-GIA's road mapping ([002] §3.2): after every optimiser step each dummy position moves to
//! the nearest valid point — the paper's prior, the road network (a vehicle or a person in a
//! city is on a street), or, as the authors' code does, the nearest of the target's own
//! recorded points (an oracle prior, since that set holds the truth). The label is not mapped.

use super::config::Mapping;
use super::lstm::INPUT;
use super::traces::Scaler;
use whereabouts_core::world::roads::RoadNetwork;

/// A mapping in the target's normalised coordinates.
pub type Map<'a> = Box<dyn Fn([f32; INPUT]) -> [f32; INPUT] + 'a>;

fn dist(a: [f32; INPUT], b: [f32; INPUT]) -> f32 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)
}

/// The mapping of kind `mapping` in the target's normalised coordinates (`scaler`): onto the
/// nearest point of `roads`, or the nearest of `own_points` (the target's, normalised); `None`
/// when off.
pub fn mapper<'a>(
    mapping: Mapping,
    scaler: Scaler,
    roads: &'a RoadNetwork,
    own_points: &'a [[f32; INPUT]],
) -> Option<Map<'a>> {
    match mapping {
        Mapping::Off => None,
        Mapping::Roads => Some(Box::new(move |x| {
            scaler.normalise(roads.snap(scaler.denormalise(x)).position)
        })),
        Mapping::OwnPoints => Some(Box::new(move |x| {
            *own_points
                .iter()
                .min_by(|a, b| dist(**a, x).total_cmp(&dist(**b, x)))
                .expect("the target has points")
        })),
    }
}
