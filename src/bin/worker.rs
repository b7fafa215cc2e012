//! The Web Worker's entry point; see [`whereabouts_web::worker::start`].
//!
//! In the site's build (`--features split`) it also holds the worker's split points, one per lab
//! fetched later (src/worker/split.rs), one for the simd128 DLG kernel (src/worker/simd.rs) and
//! one for secure aggregation's protocol (src/worker/secure.rs) and one for the importer of the
//! visitor's files (src/worker/import.rs): they are exported symbols, so
//! they live in this binary and not in the library the page links too.
fn main() {
    #[cfg(all(feature = "split", target_family = "wasm"))]
    whereabouts_web::worker::start(whereabouts_web::worker::Chunks {
        labs: Some(chunks::fetch),
        simd: Some(chunks::simd128),
        protocol: Some(chunks::protocol),
        import: Some(chunks::import),
    });
    #[cfg(not(all(feature = "split", target_family = "wasm")))]
    whereabouts_web::worker::start(whereabouts_web::worker::Chunks::default());
}

#[cfg(all(feature = "split", target_family = "wasm"))]
mod chunks {
    use wasm_split_helpers::{SplitLoaderError, wasm_split};
    use whereabouts_engine::signal_map::attack::kernel::Kernel;
    use whereabouts_engine::signal_map::secure::Protocol;
    use whereabouts_web::protocol::LabKind;
    use whereabouts_web::worker::secure::Loading as ProtocolLoading;
    use whereabouts_web::worker::simd::{Loading, SIMD128};
    use whereabouts_web::worker::split::Fetching;
    use whereabouts_web::worker::{LabHost, density, import, linkability, mobility};

    type Made = Result<Box<dyn LabHost>, SplitLoaderError>;

    /// Each split point only makes its lab's host: what the host's methods reach through its
    /// vtable goes into the lab's chunk, unless the rest of the worker reaches it too.
    #[wasm_split(density, fallible)]
    fn density() -> Made {
        Ok(Box::<density::DensityHost>::default())
    }

    #[wasm_split(linkability, fallible)]
    fn linkability() -> Made {
        Ok(Box::<linkability::LinkHost>::default())
    }

    #[wasm_split(mobility, fallible)]
    fn mobility() -> Made {
        Ok(Box::<mobility::MobHost>::default())
    }

    /// The simd128 kernel: its chunk holds crates/simd's two passes and `Simd128`'s checks.
    #[wasm_split(simd128, fallible)]
    fn simd128_kernel() -> Result<&'static dyn Kernel, SplitLoaderError> {
        Ok(&SIMD128)
    }

    /// Secure aggregation's protocol: its chunk holds the core's `secagg` and its cryptography.
    #[wasm_split(secagg, fallible)]
    fn secagg_protocol() -> Result<Protocol, SplitLoaderError> {
        Ok(whereabouts_core::secagg::run)
    }

    /// The importer of the visitor's files: its chunk holds the core's CSV, GPX, GeoJSON and
    /// time parsers, and the worker's reading and report of a file.
    #[wasm_split(import, fallible)]
    fn importer() -> Result<import::Run, SplitLoaderError> {
        Ok(import::run)
    }

    /// The [`whereabouts_web::worker::import::Load`] of this build.
    pub fn import() -> import::Loading {
        Box::pin(async { importer().await.map_err(|e| e.to_string()) })
    }

    /// The [`whereabouts_web::worker::secure::Load`] of this build.
    pub fn protocol() -> ProtocolLoading {
        Box::pin(async {
            secagg_protocol()
                .await
                .map_err(|e| format!("its chunk could not be loaded ({e})"))
        })
    }

    /// The [`whereabouts_web::worker::simd::Load`] of this build.
    pub fn simd128() -> Loading {
        Box::pin(async {
            simd128_kernel()
                .await
                .map_err(|e| format!("its chunk could not be loaded ({e})"))
        })
    }

    /// The [`whereabouts_web::worker::split::Fetch`] of this build.
    pub fn fetch(kind: LabKind) -> Fetching {
        Box::pin(async move {
            let made = match kind {
                LabKind::Density => density().await,
                LabKind::Linkability => linkability().await,
                LabKind::Mobility => mobility().await,
                LabKind::Signal => return Err("the Signal map is never fetched".into()),
            };
            made.map_err(|e| {
                format!(
                    "the {} lab's engine could not be loaded ({e}); reload the page to try again",
                    kind.title()
                )
            })
        })
    }
}
