//! Tells the kit which registry its generated tables come from, so one kit source compiles
//! against the `vkgen-generated` crate of any registry it supports (a vendor crate's vendored
//! tables are generated from *its* vk.xml, not vkgen's).
//!
//! The generated crate's build script reports the registry's version
//! (`links = "vkgen_generated"` → `DEP_VKGEN_GENERATED_REGISTRY_VERSION`, e.g. `1.3.239`). From
//! it this script sets one cumulative cfg per core version the registry defines past 1.0:
//! `vk_1_1` … `vk_1_4`. `#[cfg(vk_1_4)]` therefore means "the tables have Vulkan 1.4's names
//! and structures" (`EntryTable::map_memory2`, `vk::MemoryMapInfo`, …), whatever API version
//! the driver claims at run time. The registry decides, not `--api-version`: a 1.4 registry
//! generated at 1.3 still names `vkMapMemory2KHR`'s entry `map_memory2`.
//!
//! The oldest registry the kit supports is [`OLDEST`]: its sync core and `…2` routes are
//! written against Vulkan 1.3's names. `vkgen driver` refuses older registries before
//! anything is built; this script repeats the check for a hand-assembled build.

/// The oldest registry (`major.minor`) whose tables the kit compiles against.
const OLDEST: (u32, u32) = (1, 3);

/// The newest core version the kit knows a cfg for.
const NEWEST: (u32, u32) = (1, 4);

fn main() {
    let cfgs: Vec<String> = (1..=NEWEST.1)
        .map(|minor| format!("vk_1_{minor}"))
        .collect();
    println!("cargo::rustc-check-cfg=cfg({})", cfgs.join(", "));
    println!("cargo::rerun-if-env-changed=DEP_VKGEN_GENERATED_REGISTRY_VERSION");
    // Cargo does not re-run this script when only the generated crate's metadata changes (a
    // vendor's `vkgen driver --registry <newer>` rewrites the tables in place): watch the files
    // that carry the registry version, so a regenerated crate re-derives the cfgs.
    if let Some(trampolines) = std::env::var_os("DEP_VKGEN_GENERATED_TRAMPOLINES") {
        let trampolines = std::path::PathBuf::from(trampolines);
        println!("cargo::rerun-if-changed={}", trampolines.display());
        let lib = trampolines.with_file_name("lib.rs");
        if lib.is_file() {
            println!("cargo::rerun-if-changed={}", lib.display());
        }
    }
    let Some(version) = std::env::var("DEP_VKGEN_GENERATED_REGISTRY_VERSION").ok() else {
        eprintln!(
            "error: vkgen-generated reports no registry version (DEP_VKGEN_GENERATED_REGISTRY_VERSION): \
             regenerate it with this vkgen (`vkgen generate`, or `vkgen driver` for a vendored copy)"
        );
        std::process::exit(1);
    };
    let mut parts = version.split('.').map(str::parse::<u32>);
    let (Some(Ok(major)), Some(Ok(minor))) = (parts.next(), parts.next()) else {
        eprintln!(
            "error: vkgen-generated reports registry version {version:?}, not MAJOR.MINOR.HEADER"
        );
        std::process::exit(1);
    };
    if (major, minor) < OLDEST {
        eprintln!(
            "error: the driver kit needs a Vulkan {}.{} registry or newer; vkgen-generated is \
             generated from vk.xml {version}",
            OLDEST.0, OLDEST.1
        );
        std::process::exit(1);
    }
    for m in 1..=NEWEST.1 {
        if major > 1 || m <= minor {
            println!("cargo::rustc-cfg=vk_1_{m}");
        }
    }
}
