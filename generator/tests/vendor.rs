//! Issue 20, distribution: the vendored copy of the runtime a scaffolded driver builds on
//! stands alone (nothing inherited from vkgen's workspace, no build-time generator), carries
//! the generated crate it is given (the driver's registry's, not the checkout's) and is
//! reproducible (same inputs, same files, same SHA-256).

mod common;

#[test]
fn the_vendored_runtime_stands_alone_and_is_reproducible() {
    let root = common::workspace();
    let generated = vkgen::generate(&common::options("1.3.239")).unwrap().files;
    let files = vkgen::vendor::files(&root, &generated).unwrap();
    let file = |p: &str| {
        files
            .iter()
            .find(|f| f.path == format!("vendor/vkgen/{p}"))
            .unwrap_or_else(|| panic!("{p} not vendored"))
    };
    for krate in vkgen::vendor::CRATES {
        let manifest = &file(&format!("{krate}/Cargo.toml")).contents;
        assert!(!manifest.contains("workspace"), "{krate}: {manifest}");
        // Issue 33: the runtime's copies package with the vendor's crate (members of its
        // workspace), so nothing says `publish = false`; their unit tests and dev-dependencies
        // stay vkgen's. The generated crate is byte for byte what `vkgen generate` writes
        // (checked below).
        let doc: toml_edit::DocumentMut = manifest.parse().unwrap();
        assert!(
            doc["package"].get("publish").is_none(),
            "{krate}: {manifest}"
        );
        if *krate != vkgen::vendor::GENERATED {
            assert_eq!(doc["lib"]["test"].as_bool(), Some(false), "{krate}");
            assert_eq!(doc["lib"]["doctest"].as_bool(), Some(false), "{krate}");
            assert!(doc.get("dev-dependencies").is_none(), "{krate}: {manifest}");
        }
        // The package metadata a member inherits is written out too.
        let version = format!("version = \"{}\"", env!("CARGO_PKG_VERSION"));
        assert!(manifest.contains(&version), "{krate}: {manifest}");
        assert!(
            manifest.contains("license = \"Apache-2.0\""),
            "{krate}: {manifest}"
        );
        assert!(
            !manifest.contains(&*root.to_string_lossy()),
            "{krate} names the checkout"
        );
        file(&format!("{krate}/src/lib.rs"));
    }
    // Inherited dependencies are written out, features merged with the member's own.
    let generator_manifest = &file("runtime/driver/Cargo.toml").contents;
    assert!(generator_manifest.contains(r#"ash = { version = "0.38""#));
    // The workspace's own crates: its path made the member's, its exact version kept.
    assert!(
        generator_manifest
            .contains(r#"vkgen-abi = { path = "../../runtime/abi", version = "=0.1.0" }"#),
        "{generator_manifest}"
    );
    let manifest = &file("generated/Cargo.toml").contents;
    assert!(!manifest.contains("[build-dependencies]"), "{manifest}");
    assert!(!manifest.contains("regenerate"), "{manifest}");
    // The generated crate is the one given, file for file, not the checkout's generated/.
    for g in &generated {
        assert_eq!(file(&format!("generated/{}", g.path)).contents, g.contents);
    }
    assert!(file("generated/src/lib.rs")
        .contents
        .contains("\"1.3.239\""));
    // Tests, benches and build outputs stay behind.
    assert!(files
        .iter()
        .all(|f| !f.path.contains("/tests/") && !f.path.contains("/target/")));
    let again = vkgen::vendor::files(&root, &generated).unwrap();
    assert_eq!(
        file("VENDORED.txt").contents,
        again.last().unwrap().contents,
        "the same checkout vendors the same copy"
    );
    assert!(file("VENDORED.txt").contents.contains("sha256 "));
}

/// `vkgen driver --runtime`: the three ways a crate outside the checkout takes the runtime.
#[test]
fn the_runtime_comes_vendored_by_version_or_by_git_revision() {
    use std::path::Path;
    use vkgen::scaffold::Runtime;
    let opts = common::options("1.4.359");
    let out = tempfile::tempdir().unwrap();
    let driver_files_on = |out: &Path, root: Option<&Path>, runtime: &Runtime| {
        let run = vkgen::record::resolve(
            opts.clone(),
            Some("acme".into()),
            out,
            root.map(Path::to_path_buf),
            Some(runtime.clone()),
            false,
        )?;
        vkgen::scaffold::driver_files(&run).map(|s| s.files)
    };
    let manifest = |runtime: &Runtime| {
        let files = driver_files_on(out.path(), None, runtime).unwrap();
        // vkgen.toml records a form other than the default, so a re-run keeps it.
        let record = &files
            .iter()
            .find(|f| f.path == "vkgen.toml")
            .unwrap()
            .contents;
        assert_eq!(
            record.contains("runtime = "),
            *runtime != Runtime::Vendored,
            "{record}"
        );
        let vendored = files.iter().any(|f| f.path.starts_with("vendor/"));
        let cargo = files.iter().find(|f| f.path == "Cargo.toml").unwrap();
        let doc: toml_edit::DocumentMut = cargo.contents.parse().expect("valid TOML");
        assert!(doc.get("workspace").is_some(), "its own workspace");
        let dep = doc["dependencies"]["vkgen-driver"].to_string();
        (dep.trim().to_owned(), vendored)
    };
    assert_eq!(
        manifest(&Runtime::Vendored),
        (
            format!(
                r#"{{ path = "vendor/vkgen/runtime/driver", version = "={}" }}"#,
                env!("CARGO_PKG_VERSION")
            ),
            true
        )
    );
    let version = format!("\"={}\"", env!("CARGO_PKG_VERSION"));
    assert_eq!(manifest(&"version".parse().unwrap()), (version, false));
    let git: Runtime = "git+https://example.org/vkgen.git#0123abc".parse().unwrap();
    assert_eq!(
        manifest(&git),
        (
            r#"{ git = "https://example.org/vkgen.git", rev = "0123abc" }"#.to_owned(),
            false
        )
    );
    for bad in ["", "git", "git+https://x", "git+#abc", "path"] {
        assert!(bad.parse::<Runtime>().is_err(), "{bad:?}");
    }
    // Inside the checkout the crate is a workspace member on the checkout's runtime.
    let inside = common::workspace().join("target/acme-inside");
    assert!(driver_files_on(&inside, None, &Runtime::Version).is_err());
    // A registry or git runtime needs no checkout: an installed vkgen scaffolds with it.
    let nowhere = out.path().join("no-checkout");
    assert!(driver_files_on(out.path(), Some(&nowhere), &Runtime::Vendored).is_err());
    driver_files_on(out.path(), Some(&nowhere), &git).unwrap();
}

/// Issue 36 item 8: a crate scaffolded on the vendored runtime and re-run with
/// `--runtime version` keeps its Cargo.toml (the vendor's), which still builds on
/// `vendor/vkgen`; `--check` said "up to date" over a modified copy. It now names the mismatch
/// (what Cargo.toml builds on, what the run chose, what to change) and compares the copy the
/// manifest builds on; once Cargo.toml takes the chosen runtime, `--check` passes.
#[test]
fn check_compares_what_cargo_toml_builds_on_with_the_chosen_runtime() {
    use std::process::Command;
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("acme");
    let vkgen = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_vkgen"))
            .args(["driver", "--out"])
            .arg(&dir)
            .args(args)
            .env("VKGEN_REGISTRY_DIR", common::registry_dir())
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status.code(), text)
    };
    // The registry the checkout's generated/ records: a version runtime builds on its tables.
    let registry = common::registry("1.4.359");
    let registry = registry.to_str().unwrap();
    let (code, text) = vkgen(&["--registry", registry, "--name", "acme"]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(vkgen(&["--check"]).0, Some(0), "fresh and vendored");
    // Re-run on a registry version: vkgen.toml records it, Cargo.toml stays as it was.
    let (code, text) = vkgen(&["--runtime", "version"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("warning:") && text.contains("--runtime version"),
        "{text}"
    );
    let lib = dir.join("vendor/vkgen/runtime/driver/src/lib.rs");
    let mut edited = std::fs::read_to_string(&lib).unwrap();
    edited.push_str("\npub fn vendor_patch() {}\n");
    std::fs::write(&lib, edited).unwrap();
    let (code, text) = vkgen(&["--check"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(!text.contains("up to date"), "{text}");
    assert!(
        text.contains("runtime mismatch:")
            && text.contains("builds on vkgen-driver from the path vendor/vkgen/runtime/driver")
            && text.contains(&format!(
                "`vkgen-driver = \"={}\"`",
                env!("CARGO_PKG_VERSION")
            )),
        "{text}"
    );
    assert!(
        text.contains("stale: ") && text.contains("vendor/vkgen/runtime/driver/src/lib.rs"),
        "the modified copy the manifest builds on is reported:\n{text}"
    );
    // Cargo.toml now takes the chosen runtime: the left-over copy no longer matters.
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap().replace(
        &format!(
            r#"{{ path = "vendor/vkgen/runtime/driver", version = "={}" }}"#,
            env!("CARGO_PKG_VERSION")
        ),
        &format!("\"={}\"", env!("CARGO_PKG_VERSION")),
    );
    std::fs::write(&manifest, text).unwrap();
    let (code, text) = vkgen(&["--check"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("up to date"), "{text}");
}
