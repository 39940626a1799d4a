//! Issue 14: vkgen from a build script, end to end.
//!
//! * The build mode writes the same modules `vkgen generate` writes, plus an entry file a crate
//!   can `include!` (no inner attributes, `#[path]`s into `OUT_DIR`).
//! * The loader builds from a registry at build time (`vkgen-generated`'s `regenerate` feature):
//!   from Debian's vk.xml its exports equal the checked-in build's; from vk-1.4.359 they equal
//!   that registry's `libvulkan.map` (AOSP android16's 251 symbols), and the modules it compiled
//!   equal `vkgen generate`'s for the same registry.
//! * The example crate (`docs/examples/build-script`) builds and runs from a temporary
//!   directory outside the checkout; a bad registry fails its build with FILE:LINE:COL.
//! * `cargo install --path generator` gives a working `vkgen`.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if !d.is_empty() => {
            let d = PathBuf::from(d);
            if d.is_absolute() {
                d
            } else {
                common::workspace().join(d)
            }
        }
        _ => common::workspace().join("target"),
    }
}

fn debian_registry() -> PathBuf {
    let p = Path::new(vkgen::registry::DEBIAN_REGISTRY);
    if p.is_file() {
        p.to_owned()
    } else {
        common::registry("1.3.239")
    }
}

/// The `global:` symbols of a linker version script.
fn map_symbols(map: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut global = false;
    for line in map.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        match line {
            "global:" => global = true,
            "local:" => global = false,
            l if global && !l.is_empty() => {
                out.insert(l.trim_end_matches(';').trim().to_owned());
            }
            _ => {}
        }
    }
    out
}

fn exported(lib: &Path) -> BTreeSet<String> {
    let nm = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(lib)
        .output()
        .expect("nm (binutils)");
    assert!(nm.status.success(), "nm {}", lib.display());
    String::from_utf8_lossy(&nm.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_owned))
        .filter(|s| s.starts_with("vk"))
        .collect()
}

/// Every `src/*.rs` module of `generate(opts)` is in `dir` with the same text.
fn assert_same_modules(opts: &vkgen::Options, dir: &Path) {
    let g = vkgen::generate(opts).unwrap();
    let mut n = 0;
    for f in g.files.iter().filter(|f| f.path.starts_with("src/")) {
        if f.path == "src/lib.rs" {
            continue;
        }
        let name = f.path.trim_start_matches("src/");
        let built = std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(name).display()));
        assert!(built == f.contents, "{name} differs from vkgen generate's");
        n += 1;
    }
    assert!(n >= 9, "only {n} modules compared");
    let map = g.files.iter().find(|f| f.path == "libvulkan.map").unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("libvulkan.map")).unwrap(),
        map.contents
    );
}

#[test]
fn build_mode_writes_the_generated_modules_and_an_includable_entry() {
    for registry in [debian_registry(), common::registry("1.4.359")] {
        let opts = vkgen::Options {
            registry: Some(registry.clone()),
            ..Default::default()
        };
        let tmp = tempfile::tempdir().unwrap();
        let out = vkgen::build::generate_into(&opts, tmp.path()).unwrap();
        assert_same_modules(&opts, tmp.path());
        let entry = std::fs::read_to_string(&out.entry).unwrap();
        assert!(
            !entry.contains("#![") && !entry.contains("//!"),
            "inner attributes cannot be include!d"
        );
        for m in [
            "commands",
            "dispatch",
            "driver",
            "extensions",
            "features",
            "pfn",
            "vk",
        ] {
            let path = tmp.path().join(format!("{m}.rs"));
            assert!(
                entry.contains(&format!(
                    "#[path = {:?}]\npub mod {m};",
                    path.to_str().unwrap()
                )),
                "{m} not declared with its OUT_DIR path:\n{entry}"
            );
        }
        assert!(entry.contains("pub const API_VERSION: u32"));
        assert!(
            !entry.contains("mod trampolines"),
            "the loader's, not the crate's"
        );
        assert_eq!(out.registry, registry);
    }
    // VKGEN_API_VERSION picks the version when the options leave it open.
    let opts = vkgen::Options {
        api_version: None,
        ..Default::default()
    };
    // SAFETY-free env use: this test binary's other tests do not read this variable.
    std::env::set_var("VKGEN_API_VERSION", "1.1");
    let with = vkgen::build::options_from_env(&opts).unwrap();
    std::env::set_var("VKGEN_API_VERSION", "one.two");
    let bad = vkgen::build::options_from_env(&opts);
    std::env::remove_var("VKGEN_API_VERSION");
    assert_eq!(with.api_version, Some((1, 1)));
    assert!(bad.is_err());
}

/// The `OUT_DIR` of `vkgen-generated` in `target` with the newest entry file.
fn generated_out_dir(target: &Path) -> PathBuf {
    let build = target.join("debug/build");
    std::fs::read_dir(&build)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("vkgen-generated-")
        })
        .map(|e| e.path().join("out"))
        .filter(|o| o.join(vkgen::build::ENTRY).is_file())
        .max_by_key(|o| {
            std::fs::metadata(o.join(vkgen::build::ENTRY))
                .and_then(|m| m.modified())
                .ok()
        })
        .expect("vkgen-generated's OUT_DIR with vkgen.rs")
}

#[test]
fn loader_builds_from_a_registry_at_build_time() {
    let workspace = common::workspace();
    let target = target_dir().join("regen");
    let checked_in = target_dir().join("release/libvulkan.so");
    assert!(
        checked_in.is_file(),
        "{} not built: cargo build --release --workspace",
        checked_in.display()
    );
    for (registry, expect) in [
        (debian_registry(), None),
        (common::registry("1.4.359"), Some(251)),
    ] {
        let build = Command::new(env!("CARGO"))
            .current_dir(&workspace)
            .args([
                "build",
                "--quiet",
                "-p",
                "vkgen-loader",
                "--features",
                "vkgen-generated/regenerate",
            ])
            .env("CARGO_TARGET_DIR", &target)
            .env("VKGEN_REGISTRY", &registry)
            .env_remove("VKGEN_API_VERSION")
            .output()
            .unwrap();
        assert!(
            build.status.success(),
            "loader build from {}:\n{}",
            registry.display(),
            String::from_utf8_lossy(&build.stderr)
        );
        let opts = vkgen::Options {
            registry: Some(registry.clone()),
            ..Default::default()
        };
        let out_dir = generated_out_dir(&target);
        assert_same_modules(&opts, &out_dir);
        let symbols = exported(&target.join("debug/libvulkan.so"));
        let map = map_symbols(&std::fs::read_to_string(out_dir.join("libvulkan.map")).unwrap());
        assert_eq!(symbols, map, "exports = the map of {}", registry.display());
        match expect {
            None => assert_eq!(
                symbols,
                exported(&checked_in),
                "same registry, same exports as the checked-in build"
            ),
            Some(n) => assert_eq!(symbols.len(), n, "AOSP android16 exports {n} symbols"),
        }
    }
}

#[test]
fn example_build_script_crate_builds_outside_the_checkout() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("example");
    let src = common::workspace().join("docs/examples/build-script");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    for f in ["build.rs", "src/main.rs"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let manifest = std::fs::read_to_string(src.join("Cargo.toml"))
        .unwrap()
        .replace(
            "path = \"../../../generator\"",
            &format!("path = {:?}", common::workspace().join("generator")),
        );
    assert!(manifest.contains("/generator\""), "{manifest}");
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    let run = |registry: &Path| {
        Command::new(env!("CARGO"))
            .args(["run", "--quiet", "--manifest-path"])
            .arg(dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", target_dir().join("example"))
            .env("VKGEN_REGISTRY", registry)
            .env_remove("VKGEN_API_VERSION")
            .output()
            .unwrap()
    };
    let out = run(&common::registry("1.4.359"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("Vulkan 1.4 (header 359)"), "{stdout}");
    assert!(stdout.contains("vkCreateInstance: Global"), "{stdout}");
    assert!(stdout.contains("vkCmdDraw: Device"), "{stdout}");
    // A broken registry fails the build with a located error.
    let bad = tmp.path().join("bad.xml");
    std::fs::write(&bad, "<registry>\n  <types>\n").unwrap();
    let out = run(&bad);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(&format!("error: vkgen: {}:", bad.display())),
        "{stderr}"
    );
}

#[test]
fn cargo_install_gives_a_working_vkgen() {
    let root = tempfile::tempdir().unwrap();
    let install = Command::new(env!("CARGO"))
        .args(["install", "--quiet", "--debug", "--locked", "--path"])
        .arg(common::workspace().join("generator"))
        .arg("--root")
        .arg(root.path())
        .env("CARGO_TARGET_DIR", target_dir().join("install"))
        .output()
        .unwrap();
    assert!(
        install.status.success(),
        "{}",
        String::from_utf8_lossy(&install.stderr)
    );
    let bin = root.path().join("bin/vkgen");
    // From an unrelated directory: nothing is looked up relative to the source tree.
    let work = tempfile::tempdir().unwrap();
    let info = Command::new(&bin)
        .current_dir(work.path())
        .args(["info", "--registry"])
        .arg(common::registry("1.4.359"))
        .output()
        .unwrap();
    assert!(
        info.status.success(),
        "{}",
        String::from_utf8_lossy(&info.stderr)
    );
    assert!(String::from_utf8_lossy(&info.stdout).contains("highest Vulkan 1.4"));
    let gen = Command::new(&bin)
        .current_dir(work.path())
        .args(["generate", "--registry"])
        .arg(common::registry("1.3.239"))
        .args(["--out", "out"])
        .output()
        .unwrap();
    assert!(
        gen.status.success(),
        "{}",
        String::from_utf8_lossy(&gen.stderr)
    );
    assert!(work.path().join("out/src/driver.rs").is_file());
}
