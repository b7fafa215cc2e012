//! Where the Density, Linkability and Mobility labs' hosts come from.
//!
//! In the site's build (`--features split`, tools/build.mjs) each is a split point
//! (src/bin/worker.rs): wasm-split
//! (`wasm_split_cli_support`) moves the code only it reaches (its lab's engine: the Density
//! lab's FFT, the Linkability lab's matching, the Mobility lab's LSTM) out of the worker's
//! binary into a chunk of its own, which the worker fetches the first time the page sends that
//! lab a message. A first visit, which opens the Signal map, downloads only the Signal map's
//! engine (issue 41 §1; BENCHMARKS.md "Download size"). In every other build (native tests,
//! the wasm tests, trunk's) there is nothing to fetch and the host is made at once.

use super::LabHost;
use crate::protocol::LabKind;
use std::{future::Future, pin::Pin};

/// The labs whose engine is fetched when first asked for (the Signal map's is always there).
pub const FETCHED: [LabKind; 3] = [LabKind::Density, LabKind::Linkability, LabKind::Mobility];

/// The host of `kind` now, if its code is in the binary: `None` in the split build, where it
/// must be fetched (a [`Fetch`]).
pub fn at_once(kind: LabKind) -> Option<Box<dyn LabHost>> {
    #[cfg(all(feature = "split", target_family = "wasm"))]
    {
        let _ = kind;
        None
    }
    #[cfg(not(all(feature = "split", target_family = "wasm")))]
    Some(make(kind))
}

/// A lab's host, made here. Not in the split build, where only each lab's own split point may
/// name its host (a function that named all three would keep them in the worker's binary).
#[cfg(not(all(feature = "split", target_family = "wasm")))]
fn make(kind: LabKind) -> Box<dyn LabHost> {
    match kind {
        LabKind::Density => Box::<super::density::DensityHost>::default(),
        LabKind::Linkability => Box::<super::linkability::LinkHost>::default(),
        LabKind::Mobility => Box::<super::mobility::MobHost>::default(),
        LabKind::Signal => Box::<super::signal_map::SignalHost>::default(),
    }
}

/// How the worker fetches a lab's chunk and makes its host, or says why it could not: the
/// split build's worker binary gives one to [`super::start`] (src/bin/worker.rs, where the split
/// points are: a split point is an exported symbol, and in this library it would keep every
/// lab's engine in the page's binary too).
pub type Fetch = fn(LabKind) -> Fetching;

/// A lab's host on its way: made once its chunk is here, or why it could not be.
pub type Fetching = Pin<Box<dyn Future<Output = Result<Box<dyn LabHost>, String>>>>;
