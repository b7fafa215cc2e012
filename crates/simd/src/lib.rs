//! The Signal map's DLG kernel for wasm `simd128`: the two matrix–vector passes that take nearly
//! all of an attack iteration (the engine's `signal_map/attack/kernel.rs` says what they
//! compute and holds the scalar reference, [`forward`] and [`backward`]'s safe front).
//!
//! Every term is a four-lane dual number (a value and three tangents, `#[repr(C)]`, 16 bytes)
//! times a constant weight, added to an accumulator. Here a dual number is one `v128` and each
//! term one `f32x4.mul` and one `f32x4.add`; simd128 has no fused multiply-add, so every lane
//! rounds as the scalar code does, and since each output's sum keeps its order the results are
//! the scalar kernel's bits. Four outputs (forward) or four rows of δ (backward) are taken per
//! sweep over the live inputs, so each loaded input serves four sums.
//!
//! **Why a crate of its own.** LLVM's WebAssembly backend gives every function of a module the
//! union of their target features, and the site's worker is one module (fat LTO): one
//! `#[target_feature(enable = "simd128")]` function in it made the whole worker SIMD, and a
//! module with one SIMD instruction does not load in a browser without simd128. So the site's
//! build compiles this crate alone, with rustc, into an object file for simd128 (the top-level
//! `build.rs`): it is linked into the worker as machine code, outside LTO, and wasm-split puts
//! it in a chunk that the worker fetches only where `WebAssembly.validate` accepts SIMD
//! (`src/worker/simd.rs`). Nothing here can panic or call out (no slices, no indexing that is
//! not proven in bounds): the object's only import is the stack pointer. The engine's wasm
//! tests use the crate as an ordinary library, each function enabling simd128 for itself.
//!
//! On other targets the crate is empty.
#![no_std]

#[cfg(target_arch = "wasm32")]
mod kernel;

#[cfg(target_arch = "wasm32")]
pub use kernel::{whereabouts_simd_backward as backward, whereabouts_simd_forward as forward};
