//! The Signal-map lab (papers [000] and [001]): phones learn a cellular signal map (RSRP from
//! location) by online federated learning, and the honest-but-curious server reconstructs each
//! round's batch centroid from the updates (DLG, Lemma 1); the defences of [000] §4.3–4.5.
//!
//! world → dataset (rounds) → each round: participants train → the server aggregates and
//! attacks the target's update → metrics → events ([`lab::Lab`], the one round pipeline).

pub mod attack;
pub mod bench;
pub mod central_dp;
pub mod defence;
pub mod disaggregation;
pub mod experiments;
pub mod fl;
pub mod imprint;
pub mod lab;
pub mod limits;
pub mod model;
pub mod placement;
pub mod real;
pub mod reference;
pub mod samples;
pub mod scenario;
pub mod secure;
pub mod settings;
pub mod studies;
pub mod trace;
pub mod trajectory;
pub mod undefended;
pub mod warm_start;
pub mod world;

#[cfg(test)]
mod test_world;
