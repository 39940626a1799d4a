//! `vkgen driver` scaffolds a standalone crate that builds and exports exactly the HAL module and
//! the Khronos ICD entry points.

mod common;

use std::process::Command;

use vkgen_tests::env::{in_child, Env};

#[test]
fn driver_scaffold_builds_and_exports_hal_and_icd() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("acme");
    let out = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["driver", "--name", "acme", "--registry"])
        .arg(common::registry("1.3.239"))
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    // The vendor's file survives a re-scaffold.
    std::fs::write(dir.join("src/lib.rs"), format!("{lib}\n// vendor edit\n")).unwrap();
    let again = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["driver", "--name", "acme", "--registry"])
        .arg(common::registry("1.3.239"))
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(again.status.success());
    assert!(std::fs::read_to_string(dir.join("src/lib.rs"))
        .unwrap()
        .ends_with("// vendor edit\n"));

    let target = common::workspace().join("target/matrix");
    let build = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let so = target.join("debug/libvulkan_acme.so");
    let nm = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&so)
        .output()
        .unwrap();
    let mut symbols: Vec<String> = String::from_utf8_lossy(&nm.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_owned))
        .filter(|s| !s.starts_with('_'))
        .collect();
    symbols.sort();
    assert_eq!(
        symbols,
        [
            "HMI",
            "vk_icdGetInstanceProcAddr",
            "vk_icdGetPhysicalDeviceProcAddr",
            "vk_icdNegotiateLoaderICDInterfaceVersion"
        ]
    );

    // The scaffold loads in our loader through the HAL: instance created, no GPUs yet.
    let loader = vkgen_tests::paths::our_loader();
    assert!(
        loader.is_file(),
        "{} not built: cargo build --release --workspace",
        loader.display()
    );
    let root = tempfile::tempdir().unwrap();
    let hw = root.path().join("vendor/lib64/hw");
    std::fs::create_dir_all(&hw).unwrap();
    std::os::unix::fs::symlink(&so, hw.join("vulkan.acme.so")).unwrap();
    let props = root.path().join("build.prop");
    std::fs::write(&props, "ro.board.platform=acme\n").unwrap();
    let no_icds = root.path().join("icd.d");
    std::fs::create_dir_all(&no_icds).unwrap();
    let env = Env::new()
        .set("VKGEN_HAL_ROOT", root.path())
        .set("VKGEN_PROPERTIES", &props)
        .set("VK_DRIVER_FILES", &no_icds);
    in_child(
        "driver_scaffold_builds_and_exports_hal_and_icd",
        &env,
        || {
            let entry = vkgen_tests::require(vkgen_tests::compute::load_entry(&loader));
            let instance = vkgen_tests::compute::create_instance(&entry, &[], &[])
                .expect("vkCreateInstance through the scaffold's HAL module");
            // SAFETY: valid instance, destroyed by its owner.
            let devices = unsafe { instance.enumerate_physical_devices() }
                .expect("vkEnumeratePhysicalDevices");
            assert!(
                devices.is_empty(),
                "the scaffold starts with no physical devices"
            );
            println!("acme loaded through the HAL: instance created, 0 devices");
        },
    );
}

#[test]
fn bad_driver_names_are_rejected() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["driver", "--name", "../evil", "--registry"])
        .arg(common::registry("1.3.239"))
        .arg("--out")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
