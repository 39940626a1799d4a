//! The checked-in `generated/` must equal what vkgen makes from the registry it records
//! (`REGISTRY_VERSION`, `REGISTRY_SHA256`: vk-1.4.359 of the matrix today), like rust-analyzer's
//! codegen check. Regenerate with the command this test prints.

mod common;

use std::process::Command;

#[test]
fn generated_is_fresh() {
    let registry = common::checked_in_registry();
    let out = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["generate", "--check", "--registry"])
        .arg(&registry)
        .arg("--out")
        .arg(common::workspace().join("generated"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "generated/ is stale:\n{}{}\nrun: cargo run -p vkgen-generator -- generate --registry {} --out generated",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        registry.display()
    );
}

#[test]
fn check_reports_stale_files_and_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = common::options("1.3.239");
    let g = vkgen::generate(&opts).unwrap();
    vkgen::write(&g.files, tmp.path()).unwrap();
    assert!(vkgen::check(&g.files, tmp.path()).is_fresh());
    std::fs::write(tmp.path().join("src/commands.rs"), "// edited by hand\n").unwrap();
    std::fs::remove_file(tmp.path().join("libvulkan.map")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["generate", "--check", "--registry"])
        .arg(common::registry("1.3.239"))
        .arg("--out")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("stale:") && stdout.contains("src/commands.rs"),
        "{stdout}"
    );
    assert!(
        stdout.contains("missing:") && stdout.contains("libvulkan.map"),
        "{stdout}"
    );
    assert!(
        stdout.contains("regenerate with: cargo run -p vkgen-generator -- generate"),
        "{stdout}"
    );
    // --check wrote nothing.
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("src/commands.rs")).unwrap(),
        "// edited by hand\n"
    );
}

/// vkgen's reference drivers are `vkgen driver` output (their src/lib.rs, which only picks a
/// backend, is the hand-written part).
#[test]
fn reference_drivers_are_fresh() {
    let registry = common::checked_in_registry();
    for name in ["null", "host"] {
        let dir = common::workspace().join("runtime/drivers").join(name);
        let out = Command::new(env!("CARGO_BIN_EXE_vkgen"))
            .args([
                "driver",
                "--check",
                "--name",
                name,
                "--vkgen-root",
                "../../..",
                "--out",
            ])
            .arg(&dir)
            .arg("--registry")
            .arg(&registry)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{} is stale:\n{}{}\nrun: cargo run -p vkgen-generator -- driver --registry {} --name {name} --vkgen-root ../../.. --out runtime/drivers/{name}",
            dir.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            registry.display()
        );
    }
}

/// `--check` against another registry than the one the crate records says so, naming both.
#[test]
fn check_names_the_registry_the_crate_records() {
    let tmp = tempfile::tempdir().unwrap();
    let g = vkgen::generate(&common::options("1.3.239")).unwrap();
    vkgen::write(&g.files, tmp.path()).unwrap();
    let sha = vkgen::registry::sha256_hex(&std::fs::read(common::registry("1.3.239")).unwrap());
    assert_eq!(
        vkgen::recorded_registry(tmp.path()),
        Some(("1.3.239".to_owned(), sha.clone()))
    );
    let out = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["generate", "--check", "--registry"])
        .arg(common::registry("1.2.203"))
        .arg("--out")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("records vk.xml 1.3.239 (SHA-256 {sha})"))
            && stdout.contains("is vk.xml 1.2.203"),
        "{stdout}"
    );
}
