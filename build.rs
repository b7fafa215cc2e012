//! Two things for wasm builds:
//!
//! - **The simd128 DLG passes** (`crates/simd`) are compiled here, alone, with rustc, into an
//!   object file for wasm simd128, and linked into the worker and the integration tests
//!   (`src/worker/simd.rs` names its two functions). Compiled with the rest they would make the
//!   whole worker SIMD (LLVM's WebAssembly backend gives every function of a module the union
//!   of their features), and a module with one SIMD instruction does not load in a browser
//!   without simd128. As an object of its own it is machine code outside LTO, and in the site's
//!   build wasm-split puts it in a chunk fetched only where the browser has SIMD. A binary that
//!   never names the two functions loses them to the linker's garbage collection.
//! - **The split build** (`--features split`, tools/build.mjs) links the worker and the page with
//!   their relocations kept (`--emit-relocs`): wasm-split reads them to tell which code each split
//!   point reaches (src/worker/split.rs, src/shell/lab_views.rs). Other builds are linked as cargo
//!   links them.
use std::{env, path::PathBuf, process::Command};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let wasm = env::var("CARGO_CFG_TARGET_FAMILY").is_ok_and(|f| f.split(',').any(|f| f == "wasm"));
    if !wasm {
        return;
    }
    let object = simd_object();
    for to in ["bin=worker", "tests"] {
        println!("cargo:rustc-link-arg-{to}={}", object.display());
    }
    if env::var_os("CARGO_FEATURE_SPLIT").is_some() {
        for bin in ["worker", "whereabouts-web"] {
            println!("cargo:rustc-link-arg-bin={bin}=--emit-relocs");
        }
    }
}

/// `crates/simd` as one object file for simd128, optimised as the engine is (`opt-level = 3`).
fn simd_object() -> PathBuf {
    let source = PathBuf::from("crates/simd/src");
    for file in ["lib.rs", "kernel.rs"] {
        println!("cargo:rerun-if-changed={}", source.join(file).display());
    }
    let object = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("whereabouts_simd.o");
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let target = env::var("TARGET").expect("cargo sets TARGET");
    let status = Command::new(&rustc)
        .args(["--edition", "2024", "--crate-type", "lib", "--emit", "obj"])
        .args(["--crate-name", "whereabouts_simd", "--target", &target])
        .args([
            "-C",
            "opt-level=3",
            "-C",
            "codegen-units=1",
            "-C",
            "panic=abort",
        ])
        .args(["-C", "target-feature=+simd128", "-o"])
        .arg(&object)
        .arg(source.join("lib.rs"))
        .status()
        .unwrap_or_else(|e| panic!("could not run {rustc:?} for crates/simd: {e}"));
    assert!(
        status.success(),
        "rustc could not compile crates/simd for simd128 ({status})"
    );
    object
}
