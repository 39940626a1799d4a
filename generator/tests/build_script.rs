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
//! * `cargo install --path generator` gives a working `vkgen`, built from a copy of the source
//!   tree that is deleted before the binary runs (templates and the overlay are compiled in).
//!
//! The nested cargo builds share one target directory (`target/e2e`) and one set of profile
//! settings ([`cargo`]), so vkgen's dependencies compile once for the loader, the example and
//! the install.

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

/// The target directory of every nested build here.
fn e2e_target() -> PathBuf {
    target_dir().join("e2e")
}

/// `cargo` in `dir` on [`e2e_target`], with settings that make a dependency compiled for the
/// workspace (where `vkgen` is a member) and for a crate outside it (where `vkgen` is a path
/// dependency) the same unit: no debug info, no optimisation, no incremental state.
fn cargo(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO"));
    c.current_dir(dir)
        .args(["--config", "profile.dev.package.\"*\".opt-level=0"])
        .env("CARGO_TARGET_DIR", e2e_target())
        .env("CARGO_INCREMENTAL", "0")
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .env("CARGO_PROFILE_DEV_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_DEV_BUILD_OVERRIDE_DEBUG", "0")
        .env("CARGO_PROFILE_DEV_BUILD_OVERRIDE_OPT_LEVEL", "0")
        .env_remove("VKGEN_API_VERSION")
        .env_remove("VKGEN_REGISTRY");
    c
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
    // VKGEN_API_VERSION picks the version when the options leave it open, and only then.
    let open = vkgen::Options::default();
    let with = vkgen::build::options_with_api_version(&open, Some("1.1")).unwrap();
    assert_eq!(with.api_version, Some((1, 1)));
    assert_eq!(
        vkgen::build::options_with_api_version(&open, None)
            .unwrap()
            .api_version,
        None
    );
    let pinned = vkgen::Options {
        api_version: Some((1, 2)),
        ..Default::default()
    };
    let kept = vkgen::build::options_with_api_version(&pinned, Some("1.1")).unwrap();
    assert_eq!(kept.api_version, Some((1, 2)));
    for bad in ["one.two", "1", "1.x", ""] {
        let err = vkgen::build::options_with_api_version(&open, Some(bad)).unwrap_err();
        assert!(err.to_string().contains("VKGEN_API_VERSION"), "{err}");
    }
}

/// `(API_VERSION, HEADER_VERSION)` declared by a `lib.rs` or an entry file.
fn constants(text: &str) -> (u32, u32) {
    let get = |name: &str| -> u32 {
        let decl = format!("pub const {name}: u32 = ");
        let line = text
            .lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(decl.as_str()))
            .unwrap_or_else(|| panic!("no {name} in\n{text}"));
        line.trim_end_matches(';').parse().unwrap()
    };
    (get("API_VERSION"), get("HEADER_VERSION"))
}

/// The modules a `lib.rs` or an entry file declares: `(name, public)`, sorted.
fn declared_modules(text: &str) -> BTreeSet<(String, bool)> {
    text.lines()
        .map(str::trim)
        .filter_map(|l| {
            let (public, rest) = match l.strip_prefix("pub ") {
                Some(rest) => (true, rest),
                None => (false, l),
            };
            let name = rest.strip_prefix("mod ")?.strip_suffix(';')?;
            Some((name.to_owned(), public))
        })
        .collect()
}

#[test]
fn build_mode_equals_the_checked_in_crate() {
    let generated = common::workspace().join("generated");
    let lib = std::fs::read_to_string(generated.join("src/lib.rs")).unwrap();
    let (api, header) = constants(&lib);
    let minor = (api >> 12) & 0x3ff;
    let opts = vkgen::Options {
        registry: Some(common::checked_in_registry()),
        api_version: Some((api >> 22, minor)),
        ..Default::default()
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = vkgen::build::generate_into(&opts, tmp.path()).unwrap();
    // Every module file and the linker map, byte for byte.
    let mut compared = Vec::new();
    for e in std::fs::read_dir(generated.join("src")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "lib.rs" {
            continue;
        }
        let built = std::fs::read_to_string(tmp.path().join(&name))
            .unwrap_or_else(|err| panic!("build mode wrote no {name}: {err}"));
        assert!(
            built == std::fs::read_to_string(e.path()).unwrap(),
            "{name} differs from generated/src/{name}"
        );
        compared.push(name);
    }
    // ... which are all the files lib.rs declares (trampolines.rs included) and the runtime
    // files modules include by `#[path]` (driver.rs's driver_resolve.rs, recorder.rs's recorder_runtime.rs), no more, no less.
    compared.sort();
    let mut files: Vec<String> = declared_modules(&lib)
        .into_iter()
        .map(|(m, _)| format!("{m}.rs"))
        .collect();
    for f in files.clone() {
        let text = std::fs::read_to_string(generated.join("src").join(&f)).unwrap_or_default();
        for line in text.lines() {
            if let Some(rest) = line.trim().strip_prefix("#[path = \"") {
                files.push(rest.trim_end_matches("\"]").to_owned());
            }
        }
    }
    files.sort();
    assert_eq!(compared, files);
    assert_eq!(compared.len(), 19, "{compared:?}");
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("libvulkan.map")).unwrap(),
        std::fs::read_to_string(generated.join("libvulkan.map")).unwrap()
    );
    // The wrapper: the same modules with the same visibility (trampolines are the loader's)
    // and the same constants as the checked-in lib.rs.
    let entry = std::fs::read_to_string(&out.entry).unwrap();
    let mut lib_modules = declared_modules(&lib);
    lib_modules.remove(&("trampolines".to_owned(), false));
    assert_eq!(declared_modules(&entry), lib_modules);
    assert_eq!(lib_modules.len(), 16, "{lib_modules:?}");
    assert_eq!(constants(&entry), (api, header));
}

#[test]
fn rerun_directives_name_the_registry_the_overlay_and_every_variable() {
    let opts = vkgen::Options {
        registry: Some("/r/vk.xml".into()),
        android_ext: Some("/o/anb.xml".into()),
        ..Default::default()
    };
    let lines = vkgen::build::rerun_directives(&opts);
    assert_eq!(
        lines,
        [
            "cargo:rerun-if-env-changed=VKGEN_REGISTRY",
            "cargo:rerun-if-env-changed=VKGEN_API_VERSION",
            "cargo:rerun-if-changed=/r/vk.xml",
            "cargo:rerun-if-changed=/o/anb.xml",
        ]
    );
    // The built-in overlay is no file: nothing to watch.
    let builtin = vkgen::Options {
        android_ext: None,
        ..opts.clone()
    };
    assert_eq!(vkgen::build::rerun_directives(&builtin).len(), 3);
    // A relative registry is the package directory's (a build script's working directory).
    let rel = vkgen::Options {
        registry: Some("x/vk.xml".into()),
        ..Default::default()
    };
    let resolved = vkgen::build::resolve_registry(&rel).unwrap();
    assert_eq!(
        resolved.registry.unwrap(),
        std::env::current_dir().unwrap().join("x/vk.xml")
    );
}

/// The `OUT_DIR` of `vkgen-generated`'s build script, from cargo's JSON messages.
fn generated_out_dir(messages: &[u8]) -> PathBuf {
    let mut found = None;
    for line in String::from_utf8_lossy(messages).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let package = msg["package_id"].as_str().unwrap_or("");
        if msg["reason"] == "build-script-executed" && package.contains("vkgen-generated") {
            found = msg["out_dir"].as_str().map(PathBuf::from);
        }
    }
    found.expect("cargo reported no build-script run of vkgen-generated")
}

#[test]
fn loader_builds_from_a_registry_at_build_time() {
    let workspace = common::workspace();
    let checked_in = target_dir().join("release/libvulkan.so");
    assert!(
        checked_in.is_file(),
        "{} not built: cargo build --release --workspace",
        checked_in.display()
    );
    // Without the feature the generated crate has no build-dependency on vkgen (a workspace
    // build compiles vkgen once); with it, vkgen is its build-dependency.
    let tree = |features: &[&str]| {
        let out = cargo(&workspace)
            .args(["tree", "-p", "vkgen-generated", "-e", "normal,build"])
            .args(["--prefix", "none", "--format", "{p}"])
            .args(features)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .any(|l| l.starts_with("vkgen-generator v"))
    };
    assert!(
        !tree(&[]),
        "vkgen-generated depends on vkgen-generator without `regenerate`"
    );
    assert!(tree(&["--features", "regenerate"]));

    // The registry of the checked-in crate (vk-1.4.359 today) is always among those built.
    let checked_in_registry = common::checked_in_registry();
    let mut registries = vec![debian_registry(), common::registry("1.4.359")];
    if !registries.contains(&checked_in_registry) {
        registries.push(checked_in_registry.clone());
    }
    for registry in registries {
        let build = cargo(&workspace)
            .args(["build", "-p", "vkgen-loader", "--message-format=json"])
            // Without the desktop presenter, which builds on the checked-in driver runtime.
            .args([
                "--no-default-features",
                "--features",
                "vkgen-generated/regenerate",
            ])
            .env("VKGEN_REGISTRY", &registry)
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
        // The modules the loader compiled (tables, dispatch, lookup, trampolines) are vkgen
        // generate's for this registry, byte for byte.
        let out_dir = generated_out_dir(&build.stdout);
        assert_same_modules(&opts, &out_dir);
        // The build script told cargo what to watch.
        let said = std::fs::read_to_string(out_dir.with_file_name("output")).unwrap();
        for line in [
            format!("cargo:rerun-if-changed={}", registry.display()),
            "cargo:rerun-if-env-changed=VKGEN_REGISTRY".to_owned(),
            "cargo:rerun-if-env-changed=VKGEN_API_VERSION".to_owned(),
        ] {
            assert!(said.lines().any(|l| l == line), "no {line} in:\n{said}");
        }
        // Exports: exactly the generator's map for this registry.
        let symbols = exported(&e2e_target().join("debug/libvulkan.so"));
        let g = vkgen::generate(&opts).unwrap();
        let map = g.files.iter().find(|f| f.path == "libvulkan.map").unwrap();
        assert_eq!(
            symbols,
            map_symbols(&map.contents),
            "exports = vkgen's map of {}",
            registry.display()
        );
        if registry == checked_in_registry {
            // Same registry as the checked-in crate: the release build of it exports these and,
            // with its default `desktop` feature, the Linux-host extras (X11/Wayland surfaces, the
            // Khronos loader's other exports: tests/tests/exports.rs checks those).
            let map_names = map_symbols(&map.contents);
            let aosp: BTreeSet<String> = exported(&checked_in)
                .into_iter()
                .filter(|s| map_names.contains(s))
                .collect();
            assert_eq!(symbols, aosp);
        }
        if registry.ends_with("vk-1.4.359.xml") {
            assert_eq!(symbols.len(), 251, "AOSP android16 exports 251 symbols");
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
    // The workspace's versions of vkgen's dependencies (the example resolves no others), so
    // the shared target directory already holds them.
    std::fs::copy(
        common::workspace().join("Cargo.lock"),
        dir.join("Cargo.lock"),
    )
    .unwrap();
    let run = |registry: &Path| {
        cargo(&dir)
            .args(["run", "--quiet"])
            .env("VKGEN_REGISTRY", registry)
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
    // `error: vkgen: FILE:LINE:COL: message`, shown by cargo as the build script's failure.
    let prefix = format!("error: vkgen: {}:", bad.display());
    let located = stderr.lines().find_map(|l| {
        let rest = l.trim().strip_prefix(prefix.as_str())?;
        let mut parts = rest.splitn(3, ':');
        let line: u32 = parts.next()?.parse().ok()?;
        let col: u32 = parts.next()?.parse().ok()?;
        Some((line, col, parts.next()?.trim().to_owned()))
    });
    let (line, col, message) =
        located.unwrap_or_else(|| panic!("no {prefix}LINE:COL: in\n{stderr}"));
    assert!(line >= 1 && col >= 1 && !message.is_empty(), "{stderr}");
    assert!(
        stderr.contains("failed to run custom build command"),
        "{stderr}"
    );
}

/// Copies the checkout's sources (no `target/`, `.git` or `fuzz/`) to `to`, links as links.
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let name = e.file_name();
        if [".git", "target", "fuzz"].iter().any(|n| name == *n) {
            continue;
        }
        let kind = e.file_type().unwrap();
        if kind.is_dir() {
            copy_sources(&e.path(), &to.join(&name));
        } else if kind.is_file() {
            std::fs::copy(e.path(), to.join(&name)).unwrap();
        } else if kind.is_symlink() {
            // `generator/templates` and `generator/registry` (what the generator's package
            // holds): relative links, valid in the copy too.
            std::os::unix::fs::symlink(std::fs::read_link(e.path()).unwrap(), to.join(&name))
                .unwrap();
        }
    }
}

#[test]
fn cargo_install_gives_a_working_vkgen() {
    // Installed from a copy of the source tree that is gone before the binary runs: templates,
    // the overlay and the ash type list must be compiled in.
    let sources = tempfile::tempdir().unwrap();
    copy_sources(&common::workspace(), sources.path());
    let root = tempfile::tempdir().unwrap();
    let install = cargo(sources.path())
        .args([
            "install",
            "--quiet",
            "--debug",
            "--locked",
            "--path",
            "generator",
        ])
        .arg("--root")
        .arg(root.path())
        .output()
        .unwrap();
    assert!(
        install.status.success(),
        "{}",
        String::from_utf8_lossy(&install.stderr)
    );
    let copied = sources.path().to_owned();
    sources.close().unwrap();
    assert!(!copied.exists());
    let bin = root.path().join("bin/vkgen");
    let work = tempfile::tempdir().unwrap();
    let vkgen = |args: &[&str], registry: &str| {
        let out = Command::new(&bin)
            .current_dir(work.path())
            .args(args)
            .arg("--registry")
            .arg(common::registry(registry))
            .env_remove("VKGEN_REGISTRY")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "vkgen {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let info = vkgen(&["info"], "1.4.359");
    assert!(info.contains("highest Vulkan 1.4"), "{info}");
    // generate: the Cargo.toml and README templates and the built-in overlay.
    vkgen(&["generate", "--out", "out"], "1.3.239");
    let generated = |f: &str| std::fs::read_to_string(work.path().join("out").join(f)).unwrap();
    assert!(generated("Cargo.toml").contains("name = \"vkgen-generated\""));
    assert!(generated("README.md").len() > 100);
    assert!(generated("src/vk.rs").contains("pub struct NativeBufferANDROID"));
    // driver: the scaffold's templates (the checkout is only named in its Cargo.toml).
    let root_arg = common::workspace().display().to_string();
    vkgen(
        &[
            "driver",
            "--name",
            "acme",
            "--out",
            "acme",
            "--vkgen-root",
            &root_arg,
        ],
        "1.3.239",
    );
    let lib = std::fs::read_to_string(work.path().join("acme/src/lib.rs")).unwrap();
    assert!(lib.contains("AcmeDriver"), "{lib}");
}
