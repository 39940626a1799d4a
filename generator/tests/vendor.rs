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
        assert!(manifest.contains("publish = false"), "{krate}");
        assert!(
            !manifest.contains(&*root.to_string_lossy()),
            "{krate} names the checkout"
        );
        file(&format!("{krate}/src/lib.rs"));
    }
    // Inherited dependencies are written out, features merged with the member's own.
    let generator_manifest = &file("runtime/driver/Cargo.toml").contents;
    assert!(generator_manifest.contains(r#"ash = { version = "0.38""#));
    assert!(generator_manifest.contains(r#"vkgen-abi = { path = "../abi" }"#));
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
