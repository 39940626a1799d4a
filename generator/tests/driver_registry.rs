//! Issue 20: a scaffolded driver crate's tables are generated from its own registry. Outside
//! the checkout the vendored `vkgen-generated` is exactly what `vkgen generate` writes for the
//! crate's vk.xml and `--api-version`; `vkgen.toml` records the registry so `--check` needs no
//! arguments and refuses a registry whose SHA-256 changed; registries the kit cannot build on
//! (older than 1.3, or inside the checkout one other than `generated/`'s) are refused.

mod common;

use std::path::{Path, PathBuf};

use vkgen::record::{self, Record};
use vkgen::scaffold;

/// A crate directory outside the checkout.
fn outside() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("vkgen-driver-registry-")
        .tempdir_in(std::env::temp_dir())
        .unwrap();
    let out = dir.path().join("acme");
    assert!(!out.starts_with(common::workspace()));
    (dir, out)
}

fn run_in(out: &Path, registry: Option<&str>, check: bool) -> vkgen::Result<record::DriverRun> {
    let opts = vkgen::Options {
        registry: registry.map(common::registry),
        ..Default::default()
    };
    let name = (registry.is_some()).then(|| "acme".to_owned());
    record::resolve(opts, name, out, Some(common::workspace()), None, check)
}

fn message(e: vkgen::Error) -> String {
    e.to_string()
}

#[test]
fn vendored_tables_are_the_crates_registrys() {
    let (_dir, out) = outside();
    let run = run_in(&out, Some("1.3.239"), false).unwrap();
    let s = scaffold::driver(&run).unwrap();
    assert!(
        s.registry.contains("vk-1.3.239.xml") && s.registry.contains("1.3.239"),
        "{}",
        s.registry
    );
    // Exactly `vkgen generate --registry vk-1.3.239.xml`, file for file.
    let g = vkgen::generate(&common::options("1.3.239")).unwrap();
    let vendored: Vec<_> = s
        .files
        .iter()
        .filter_map(|f| {
            let rel = f.path.strip_prefix("vendor/vkgen/generated/")?;
            Some((rel.to_owned(), f.contents.clone()))
        })
        .collect();
    let expected: Vec<_> = g
        .files
        .iter()
        .map(|f| (f.path.clone(), f.contents.clone()))
        .collect();
    assert_eq!(vendored, expected);
    let features = std::fs::read_to_string(out.join("vendor/vkgen/generated/src/features.rs"))
        .expect("written");
    assert!(
        !features.contains("Vulkan14") && features.contains("Vulkan13Features"),
        "1.3.239's feature tables, not the checkout's 1.4"
    );
    // The generated crate tells the kit which registry it holds.
    let build = std::fs::read_to_string(out.join("vendor/vkgen/generated/build.rs")).unwrap();
    assert!(build.contains("cargo:registry_version=1.3.239"), "{build}");

    // The record: registry file, path, version, SHA-256 and the driver's name.
    let rec = Record::read(&out).unwrap().expect("vkgen.toml written");
    assert_eq!(rec.name, "acme");
    assert_eq!(rec.registry_file, "vk-1.3.239.xml");
    assert_eq!(rec.registry_version, "1.3.239");
    assert_eq!(rec.registry_sha256, g.provenance.1);
    assert_eq!(rec.api_version, None);
    assert_eq!(
        out.join(&rec.registry_path).canonicalize().unwrap(),
        common::registry("1.3.239").canonicalize().unwrap()
    );
    // The ICD manifest follows the registry's version.
    let icd = std::fs::read_to_string(out.join("acme_icd.json")).unwrap();
    assert!(icd.contains(r#""api_version": "1.3.0""#), "{icd}");

    // --check with no arguments: everything from the record, and fresh.
    let check = run_in(&out, None, true).unwrap();
    assert_eq!(check.name, "acme");
    assert_eq!(
        check.expect_sha256.as_deref(),
        Some(g.provenance.1.as_str())
    );
    let again = scaffold::driver_files(&check).unwrap();
    let stale = vkgen::check(&again.files, &out);
    assert!(stale.is_fresh(), "{stale:?}");
    assert!(again.registry.contains("recorded in vkgen.toml"));

    // A tampered SHA-256 (the registry changed under the crate) is refused by --check; a
    // plain re-run takes the registry in and records it again.
    let toml = std::fs::read_to_string(out.join("vkgen.toml")).unwrap();
    let tampered = toml.replace(&g.provenance.1, &"0".repeat(64));
    std::fs::write(out.join("vkgen.toml"), &tampered).unwrap();
    let check = run_in(&out, None, true).unwrap();
    let err = message(scaffold::driver_files(&check).unwrap_err());
    assert!(
        err.contains("registry changed") && err.contains("re-run vkgen driver"),
        "{err}"
    );
    scaffold::driver(&run_in(&out, None, false).unwrap()).unwrap();
    assert_eq!(
        std::fs::read_to_string(out.join("vkgen.toml")).unwrap(),
        toml
    );
}

#[test]
fn api_version_is_recorded_and_leaves_the_vendored_tables_whole() {
    let (_dir, out) = outside();
    let mut run = run_in(&out, Some("1.4.359"), false).unwrap();
    run.opts.api_version = Some((1, 1));
    let s = scaffold::driver(&run).unwrap();
    // The device's version is src/vkgen.rs's; the tables are the registry's whole, so the kit
    // (which compiles its 1.2+ paths against them) builds for a 1.1 device too.
    let vkgen_rs = &s
        .files
        .iter()
        .find(|f| f.path == "src/vkgen.rs")
        .unwrap()
        .contents;
    assert!(vkgen_rs.contains("1, 1"), "{vkgen_rs}");
    let g = vkgen::generate(&common::options("1.4.359")).unwrap();
    let lib = |files: &[vkgen::OutputFile], path: &str| {
        files
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.contents.clone())
            .unwrap()
    };
    assert_eq!(
        lib(&s.files, "vendor/vkgen/generated/src/lib.rs"),
        lib(&g.files, "src/lib.rs")
    );
    // Recorded, so a re-run and --check without arguments keep 1.1.
    let check = run_in(&out, None, true).unwrap();
    assert_eq!(check.opts.api_version, Some((1, 1)));
    assert!(vkgen::check(&scaffold::driver_files(&check).unwrap().files, &out).is_fresh());
}

#[test]
fn registries_the_kit_cannot_build_on_are_refused() {
    for old in ["1.1.130", "1.2.203"] {
        let (_dir, out) = outside();
        let err = message(scaffold::driver(&run_in(&out, Some(old), false).unwrap()).unwrap_err());
        assert!(
            err.contains(&format!("vk-{old}.xml"))
                && err.contains("oldest supported is vk-1.3.239.xml"),
            "{err}"
        );
        assert!(!out.exists(), "{old}: nothing is written");
    }
    // Inside the checkout the crate builds on generated/ (vk-1.4.359): another registry is
    // refused, the checkout's own is fine.
    let inside = tempfile::Builder::new()
        .prefix("driver-registry-")
        .tempdir_in(common::workspace().join("target"))
        .unwrap();
    let out = inside.path().join("acme");
    let err = message(
        scaffold::driver_files(&run_in(&out, Some("1.3.239"), false).unwrap()).unwrap_err(),
    );
    assert!(
        err.contains("inside the vkgen checkout") && err.contains("scaffold the crate outside"),
        "{err}"
    );
    let own = scaffold::driver_files(&run_in(&out, Some("1.4.359"), false).unwrap()).unwrap();
    assert!(own.files.iter().all(|f| !f.path.starts_with("vendor/")));
}

#[test]
fn check_without_a_record_asks_for_a_name() {
    let (_dir, out) = outside();
    let err = message(run_in(&out, None, true).unwrap_err());
    assert!(
        err.contains("vkgen.toml") && err.contains("--name"),
        "{err}"
    );
}

/// The kit compiles, warning-free, against the tables of each supported registry family it is
/// not built against elsewhere: 1.3.281 (1.3's last header before 1.4; `driver_scaffold` and
/// `copy_engine` build on 1.3.239, the workspace on 1.4.359) and 1.4.359 for a 1.1 device (the
/// tables stay the registry's whole). One shared target directory, so the
/// dependencies build once.
#[test]
fn the_kit_compiles_against_each_supported_registry() {
    // Each test its own target: Cargo hashes a path package by its path relative to the
    // workspace, so every scaffold's vendored kit shares one build-script output directory.
    let target = common::workspace().join("target/driver-registries/compile");
    for (version, api) in [("1.3.281", None), ("1.4.359", Some((1, 1)))] {
        let (_dir, out) = outside();
        let mut run = run_in(&out, Some(version), false).unwrap();
        run.opts.api_version = api;
        scaffold::driver(&run).unwrap();
        let check = std::process::Command::new(env!("CARGO"))
            .args(["check", "--quiet", "--manifest-path"])
            .arg(out.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            .env("RUSTFLAGS", "-D warnings")
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "the kit does not compile against vk-{version}.xml's tables (api {api:?}):\n{}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
}

/// A registry that predates vk.xml's `<require><feature>` markup still makes its versions'
/// features mandatory: the rows come from `registry/required-features.txt` (fresh from
/// vk-1.4.359), so a kit device scaffolded from 1.3.239 has `timelineSemaphore` and
/// `synchronization2` (the copy engine's sync core needs them).
#[test]
fn registries_without_feature_markup_use_the_builtin_requirements() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["required-features", "--check", "--registry"])
        .arg(common::registry("1.4.359"))
        .arg("--out")
        .arg(common::workspace().join("registry/required-features.txt"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "registry/required-features.txt is stale:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    for version in ["1.3.239", "1.3.281"] {
        let g = vkgen::generate(&common::options(version)).unwrap();
        let features = &g
            .files
            .iter()
            .find(|f| f.path == "src/features.rs")
            .unwrap()
            .contents;
        for row in [
            r#"RequiredFeature { by: "VK_VERSION_1_2", depends: "", feature: "timelineSemaphore" }"#,
            r#"RequiredFeature { by: "VK_VERSION_1_3", depends: "", feature: "synchronization2" }"#,
            r#"RequiredFeature { by: "VK_VERSION_1_3", depends: "", feature: "dynamicRendering" }"#,
        ] {
            assert!(features.contains(row), "{version}: no {row}");
        }
        // Rows of what the registry lacks are left out (1.4, and its structures).
        assert!(!features.contains("by: \"VK_VERSION_1_4\""), "{version}");
        assert!(
            features.contains("registry/required-features.txt"),
            "{version}"
        );
    }
}

/// The recorded path is a hint, the SHA-256 the identity: the same vk.xml read from another
/// place (another machine's registry directory) leaves the record, and so the crate, fresh.
#[test]
fn the_same_registry_elsewhere_keeps_the_crate_fresh() {
    let (dir, out) = outside();
    scaffold::driver(&run_in(&out, Some("1.3.239"), false).unwrap()).unwrap();
    let elsewhere = dir.path().join("elsewhere/vk-1.3.239.xml");
    std::fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
    std::fs::copy(common::registry("1.3.239"), &elsewhere).unwrap();
    let opts = vkgen::Options {
        registry: Some(elsewhere),
        ..Default::default()
    };
    let run = record::resolve(opts, None, &out, Some(common::workspace()), None, true).unwrap();
    let files = scaffold::driver_files(&run).unwrap().files;
    let stale = vkgen::check(&files, &out);
    assert!(stale.is_fresh(), "{stale:?}");
}

/// The kit's build script repeats the refusal for a hand-assembled build: tables generated
/// from a registry older than 1.3 stop the build with a message naming it, before the kit
/// compiles against names it lacks.
#[test]
fn the_kit_refuses_tables_older_than_1_3_at_build_time() {
    let target = common::workspace().join("target/driver-registries/refusal");
    let (_dir, out) = outside();
    scaffold::driver(&run_in(&out, Some("1.3.239"), false).unwrap()).unwrap();
    let generated = out.join("vendor/vkgen/generated");
    std::fs::remove_dir_all(&generated).unwrap();
    let g = vkgen::generate(&common::options("1.2.203")).unwrap();
    vkgen::write(&g.files, &generated).unwrap();
    let check = std::process::Command::new(env!("CARGO"))
        .args(["check", "--quiet", "--manifest-path"])
        .arg(out.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .env("RUSTFLAGS", "-D warnings")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(
        !check.status.success(),
        "built on 1.2.203's tables: {stderr}"
    );
    assert!(
        stderr.contains("the driver kit needs a Vulkan 1.3 registry or newer")
            && stderr.contains("vk.xml 1.2.203"),
        "{stderr}"
    );
}

/// Inside its crate, `vkgen driver` needs no argument at all: `--out` defaults to `.`, the
/// record supplies the rest, and a re-run writes in place (`.` has no file name of its own).
#[test]
fn a_re_run_inside_the_crate_takes_everything_from_the_record() {
    let (_dir, out) = outside();
    scaffold::driver(&run_in(&out, Some("1.3.239"), false).unwrap()).unwrap();
    std::fs::remove_file(out.join("src/vkgen.rs")).unwrap();
    let vkgen = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_vkgen"))
            .args(["driver"])
            .args(args)
            .current_dir(&out)
            .output()
            .unwrap()
    };
    let stale = vkgen(&["--check"]);
    assert_eq!(stale.status.code(), Some(1), "{stale:?}");
    let rerun = vkgen(&[]);
    assert!(rerun.status.success(), "{rerun:?}");
    assert!(out.join("src/vkgen.rs").is_file());
    let fresh = vkgen(&["--check"]);
    assert!(fresh.status.success(), "{fresh:?}");
}
