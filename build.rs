//! The split build (`--features split`, tools/build.mjs) links the worker with its relocations
//! kept (`--emit-relocs`): wasm-split reads them to tell which code each split point reaches
//! (src/worker/split.rs). Other builds are linked as cargo links them.
fn main() {
    let wasm =
        std::env::var("CARGO_CFG_TARGET_FAMILY").is_ok_and(|f| f.split(',').any(|f| f == "wasm"));
    if wasm && std::env::var_os("CARGO_FEATURE_SPLIT").is_some() {
        println!("cargo:rustc-link-arg-bin=worker=--emit-relocs");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
