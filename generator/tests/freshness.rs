//! The checked-in `generated/` must equal what vkgen makes from Debian's vk.xml (1.3.239), like
//! rust-analyzer's codegen check. Regenerate with the command this test prints.

mod common;

use std::process::Command;

#[test]
fn generated_is_fresh() {
    let registry = std::path::Path::new(vkgen::registry::DEBIAN_REGISTRY);
    let registry = if registry.is_file() {
        registry.to_owned()
    } else {
        // The matrix holds the same 1.3.239 registry Debian 12 installs.
        common::registry("1.3.239")
    };
    let out = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["generate", "--check", "--registry"])
        .arg(&registry)
        .arg("--out")
        .arg(common::workspace().join("generated"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "generated/ is stale:\n{}{}\nrun: cargo run -p vkgen -- generate --out generated",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
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
        stdout.contains("regenerate with: cargo run -p vkgen -- generate"),
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
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{} is stale:\n{}\nrun: cargo run -p vkgen -- driver --name {name} --vkgen-root ../../.. --out runtime/drivers/{name}",
            dir.display(),
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
