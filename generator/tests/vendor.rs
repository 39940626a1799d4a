//! Issue 20, distribution: the vendored copy of the runtime a scaffolded driver builds on
//! stands alone (nothing inherited from vkgen's workspace, no build-time generator) and is
//! reproducible (same checkout, same files, same SHA-256).

mod common;

#[test]
fn the_vendored_runtime_stands_alone_and_is_reproducible() {
    let root = common::workspace();
    let files = vkgen::vendor::files(&root).unwrap();
    let file = |p: &str| {
        files
            .iter()
            .find(|f| f.path == format!("vendor/vkgen/{p}"))
            .unwrap_or_else(|| panic!("{p} not vendored"))
    };
    for krate in vkgen::vendor::CRATES {
        let manifest = &file(&format!("{krate}/Cargo.toml")).contents;
        assert!(!manifest.contains("workspace"), "{krate}: {manifest}");
        assert!(manifest.contains("publish = false"), "{krate}");
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
    let generated = &file("generated/Cargo.toml").contents;
    assert!(!generated.contains("[build-dependencies]"), "{generated}");
    assert!(generated.contains("regenerate = []"), "{generated}");
    // Tests, benches and build outputs stay behind.
    assert!(files
        .iter()
        .all(|f| !f.path.contains("/tests/") && !f.path.contains("/target/")));
    let again = vkgen::vendor::files(&root).unwrap();
    assert_eq!(
        file("VENDORED.txt").contents,
        again.last().unwrap().contents,
        "the same checkout vendors the same copy"
    );
    assert!(file("VENDORED.txt").contents.contains("sha256 "));
}
