//! Build script of `vkgen-abi`: tells dependents (`links = "vkgen_abi"`) where the
//! `ANativeWindow` mirror is, as `DEP_VKGEN_ABI_NATIVE_WINDOW`. `vkgen-window`'s build script
//! reads the operation codes from it; a path this package reports stays right wherever the
//! package is unpacked (a `cargo package` tarball, a registry, a vendored copy), where a path
//! from `vkgen-window` to its sibling directory does not.

fn main() {
    let manifest = std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    println!("cargo:rerun-if-changed=build.rs");
    println!(
        "cargo:native_window={}",
        manifest.join("src/native_window.rs").display()
    );
}
