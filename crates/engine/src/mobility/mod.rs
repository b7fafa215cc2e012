//! The Mobility lab (paper [002], Zheng, Cao et al., "Enhancing Privacy of Spatiotemporal
//! Federated Learning against Gradient Inversion Attacks"): phones train a next-location
//! predictor, an LSTM over the last 8 positions, with FedAvg; the server inverts each round's
//! gradient to recover the 8 positions and the label (ST-GIA), and an adaptive geo-DP defence
//! spends a privacy budget round by round against it.
//!
//! The model ([`lstm`]: forward and back-propagation through time, written once for any
//! [`scalar::Scalar`]) and the gradient-inversion core ([`objective`]: the distance between a
//! dummy window's gradient and the observed one, with its exact derivative with respect to the
//! 8×2 dummy positions and the 2-D dummy label, carried on the core's forward-mode dual numbers
//! as the reference, and by reverse mode over reverse mode ([`adjoint`]) for the attack, because
//! it needs the derivative of a gradient), PyTorch's L-BFGS ([`optim`]; Adam is the core's),
//! one round's inversion ([`attack`]), ST-GIA's start ([`start`]), road mapping ([`mapping`])
//! and calibration over rounds ([`calibration`]), the metrics ([`metrics`]), the defences
//! ([`defence`]), the data ([`traces`], and the visitor's file as the target: [`visitor`]), the
//! run on the core's driver ([`lab`]; what the server unmasks when it sees only the round's
//! sum: [`secure`]), the page's study ([`study`]), the lab's settings as rows
//! ([`settings`]), the page's cards on the city's crowd (unicity, [`unicity`]; membership
//! inference on released counts, [`membership`]) and the command line's tables
//! ([`experiments`]).

pub mod adjoint;
pub mod attack;
pub mod bench;
pub mod calibration;
pub mod central_dp;
pub mod config;
pub mod defence;
pub mod experiments;
pub mod lab;
pub mod limits;
pub mod lstm;
pub mod mapping;
pub mod membership;
pub mod metrics;
pub mod objective;
pub mod optim;
pub mod pretrain;
pub mod scalar;
pub mod secure;
pub mod settings;
pub mod start;
pub mod study;
pub mod traces;
pub mod unicity;
pub mod visitor;

#[cfg(test)]
mod tests;
