//! Privacy mechanisms on plain vectors and locations, for every lab: the Gaussian mechanism with
//! its accountant ([`gaussian`]), the sampled Gaussian mechanism's Rényi DP
//! ([`sampled_gaussian`]) and DP-FedAvg's accountant over it ([`rdp`]), and the planar Laplace
//! mechanism of geo-indistinguishability ([`laplace`]); DP-FedAvg's round over a secure sum,
//! for every lab's "secure sum + central DP" ([`central`]).

pub mod central;
pub mod gaussian;
pub mod laplace;
pub mod rdp;
pub mod sampled_gaussian;
