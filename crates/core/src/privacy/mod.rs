//! Privacy mechanisms on plain vectors and locations, for every lab: the Gaussian mechanism with
//! its accountant ([`gaussian`]) and the planar Laplace mechanism of geo-indistinguishability
//! ([`laplace`]).

pub mod gaussian;
pub mod laplace;
