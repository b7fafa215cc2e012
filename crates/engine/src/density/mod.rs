//! The Density lab (paper [003], Zong, Yang, Ley, Butts, Markopoulou, "Privacy by Projection:
//! Federated Population Density Estimation by Projecting on Random Features", PoPETs 2023; the
//! source is its poster, so the numbers are ours: docs/papers.md).
//!
//! A server wants a city's population density, a kernel density estimate on a grid, without
//! learning where anyone is. In the baseline federated KDE each person sends their own kernel
//! bump, which gives them away; in the paper's scheme each person sends a few random Fourier
//! features of their own, kept secret and fixed, so that one upload is a pattern of cosine
//! ridges in which the true location is one peak among many, while the ridges average out over
//! the city.
//!
//! - [`grid`]: the P × Q grid and its cells;
//! - [`kde`]: the Gaussian kernel, the exact KDE (Eq. 1) and the baseline's bumps (Eq. 5);
//! - [`rff`]: a person's frequencies and their upload (Eqs. 2–4, 6–7);
//! - [`nufft`]: the server's sum of N·B plane waves on the grid, fast;
//! - [`convergence`]: the estimate's error against the 1/√(N·B) that theory gives;
//! - [`attack`]: the server's peak picking, local maxima, repeated queries, random guessing;
//! - [`fit`]: the stronger server that fits a user's frequencies and phases to their upload;
//! - [`search`]: the fitted surface's maxima, ties, the density prior, and a user's displacement;
//! - [`config`], [`limits`] and [`settings`]: a run's settings, their bounds, and each one's
//!   row (key, label, help, control) for the page and its links;
//! - [`lab`]: a run on the shared driver interface (the page's worker, studies, the CLI);
//! - [`central_dp`]: secure sum + central DP (DP-FedAvg), a query a round;
//! - [`study`]: the privacy–utility study over B and GeoInd ε;
//! - [`experiments`]: the studies of `whereabouts reproduce --lab density`;
//! - [`visitor`]: the visitor's frequent places from their own file;
//! - [`bench`]: the aggregate's benchmark kernel.

pub mod attack;
pub mod bench;
pub mod central_dp;
pub mod config;
pub mod convergence;
pub mod experiments;
pub mod fit;
pub mod grid;
pub mod kde;
pub mod lab;
pub mod limits;
pub mod nufft;
pub mod rff;
pub mod search;
pub mod settings;
pub mod study;
pub mod visitor;

#[cfg(test)]
mod central_dp_tests;
#[cfg(test)]
mod secure_tests;
#[cfg(test)]
mod tests;

pub use config::{Attack, DensityConfig, Persistence, Scheme};
pub use lab::{DensityEvent, DensityLab, DensitySummary};
