//! The generated crate's `build.rs`. Its own module, not `build`'s: `lib.rs` writes this file
//! for every generated crate, and `build` calls back into `lib.rs` (`generate`), so keeping the
//! text here leaves the arrows running one way.

use super::PREAMBLE;

/// The `build.rs` of a generated crate. Every generated crate has one, for its dependents
/// (`links = "vkgen_generated"`): `DEP_VKGEN_GENERATED_MAP` and `DEP_VKGEN_GENERATED_TRAMPOLINES`
/// say where the loader's `libvulkan.map` and `trampolines.rs` are, and
/// `DEP_VKGEN_GENERATED_REGISTRY_VERSION` / `DEP_VKGEN_GENERATED_API_VERSION` what the tables
/// hold, so the driver kit's build script can leave out what this registry lacks (its
/// `vk_1_x` cfgs). The checked-in `generated/` crate (see `Options::self_regenerating`) can also
/// generate its modules at build time with the `regenerate` feature: they come from
/// [`crate::build::main`], and so do the versions it reports.
pub fn crate_build_rs(
    self_regenerating: bool,
    registry_version: &str,
    (major, minor): (u32, u32),
) -> String {
    let checked_in = format!(
        r#"let manifest = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
        println!("cargo:rerun-if-changed=libvulkan.map");
        println!("cargo:rerun-if-changed=src/trampolines.rs");
        println!("cargo:map={{}}", manifest.join("libvulkan.map").display());
        println!("cargo:registry_version={registry_version}");
        println!("cargo:api_version={major}.{minor}");
        manifest.join("src")"#
    );
    let body = if self_regenerating {
        format!(
            r#"    #[cfg(feature = "regenerate")]
    let dir = {{
        let out = vkgen::build::main(&vkgen::Options::default());
        println!("cargo:map={{}}", out.dir.join("libvulkan.map").display());
        println!("cargo:registry_version={{}}", out.registry_version);
        println!(
            "cargo:api_version={{}}.{{}}",
            out.api_version.0, out.api_version.1
        );
        out.dir
    }};
    #[cfg(not(feature = "regenerate"))]
    let dir = {{
        {checked_in}
    }};"#
        )
    } else {
        format!("    let dir = {{\n        {checked_in}\n    }};")
    };
    let regenerate_note = if self_regenerating {
        "\n//! With the `regenerate` feature it generates the modules at build time (`vkgen::build`, \
         from\n//! `$VKGEN_REGISTRY`, else Debian's vk.xml, at `$VKGEN_API_VERSION`, else the \
         registry's newest)\n//! and `src/lib.rs` includes them instead of `src/`."
    } else {
        ""
    };
    format!(
        r#"// {}
//! Build script of the generated crate.{regenerate_note}
//! It tells dependents (`links = "vkgen_generated"`) where the loader's `libvulkan.map` and
//! `trampolines.rs` are (`DEP_VKGEN_GENERATED_MAP`, `DEP_VKGEN_GENERATED_TRAMPOLINES`) and what
//! the tables hold (`DEP_VKGEN_GENERATED_REGISTRY_VERSION`, `DEP_VKGEN_GENERATED_API_VERSION`):
//! the driver kit compiles only what this registry defines.

fn main() {{
{body}
    println!("cargo:trampolines={{}}", dir.join("trampolines.rs").display());
}}
"#,
        PREAMBLE
    )
}
