//! The simd128 DLG kernel in the worker (issue 41 §2; BENCHMARKS.md "DLG").
//!
//! `crates/simd` holds the Signal map's two DLG passes for wasm simd128; build.rs compiles it
//! apart and links it into the worker as an object file, so that no other code of the worker is
//! SIMD (crates/simd/src/lib.rs says why). In the site's build the worker's split point for it
//! (src/bin/worker.rs) puts it in a chunk of its own; [`load`] (at the worker's first Signal-map
//! request) fetches that chunk only where the browser validates a SIMD module, and installs the
//! kernel for the attacks made from then on. Its results are the scalar kernel's bits (the engine's equivalence matrix runs under
//! both), so a round attacked before the chunk arrives gives the numbers it would have given
//! after. Where SIMD is absent, or the chunk cannot be fetched, the scalar kernel runs.

use crate::protocol::Response;
use std::{future::Future, pin::Pin};
use web_sys::DedicatedWorkerGlobalScope;
use whereabouts_engine::signal_map::attack::kernel::{self, Kernel};

#[cfg(target_family = "wasm")]
unsafe extern "C" {
    // crates/simd/src/kernel.rs (the object build.rs links). Typed by `Simd128::new` below,
    // which the crate's own functions are typed by in the engine's tests.
    fn whereabouts_simd_forward(
        rows: *const f32,
        grows: *const f32,
        bias: *const f32,
        gbias: *const f32,
        outputs: usize,
        inputs: usize,
        active: *const usize,
        compact: *const f32,
        n: usize,
        z: *mut f32,
        ga: *mut f32,
    );
    fn whereabouts_simd_backward(
        rows: *const f32,
        inputs: usize,
        delta: *const f32,
        outputs: usize,
        active: *const usize,
        n: usize,
        back: *mut f32,
    );
}

/// The simd128 kernel, from the linked object. Only for a machine with simd128 ([`supported`]).
// SAFETY: the two functions are crates/simd's, whose contracts `Simd128` keeps; `new`'s other
// condition (simd128 present) is on whoever installs it.
#[cfg(target_family = "wasm")]
pub static SIMD128: kernel::Simd128 =
    unsafe { kernel::Simd128::new(whereabouts_simd_forward, whereabouts_simd_backward) };

/// The smallest module with a SIMD instruction: one function returning `v128.const 0`.
const PROBE: &[u8] = &[
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
    0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // types: () -> v128
    0x03, 0x02, 0x01, 0x00, // one function of type 0
    0x0a, 0x16, 0x01, 0x14, 0x00, 0xfd, 0x0c, // code: no locals, v128.const
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0b, // its 16 bytes, end
];

/// True if this browser's WebAssembly has simd128 (it validates [`PROBE`]).
pub fn supported() -> bool {
    js_sys::WebAssembly::validate(&js_sys::Uint8Array::from(PROBE).into()).unwrap_or(false)
}

/// How the site's worker fetches the simd128 kernel's chunk, or says why it could not.
pub type Load = fn() -> Loading;

/// The simd128 kernel on its way, or why it could not come.
pub type Loading = Pin<Box<dyn Future<Output = Result<&'static dyn Kernel, String>>>>;

/// Where the browser has SIMD, fetches the kernel (`load`), installs it for the attacks made
/// from then on and tells the page ([`Response::Kernel`]: its status line says so); elsewhere,
/// or if the chunk does not come, the scalar kernel stays (said on the console: the numbers are
/// the same either way).
pub fn load(load: Load, scope: DedicatedWorkerGlobalScope) {
    if !supported() {
        web_sys::console::info_1(
            &"whereabouts: no wasm SIMD here; DLG runs its scalar kernel".into(),
        );
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        match load().await {
            Ok(k) => {
                kernel::install(k);
                super::post(
                    &scope,
                    &Response::Kernel {
                        name: k.name().into(),
                    },
                );
            }
            Err(why) => web_sys::console::warn_1(
                &format!("whereabouts: DLG runs its scalar kernel: {why}").into(),
            ),
        }
    });
}
