//! Driver kit acceptance 1 (issue 9): `vkgen driver --name acme`, scaffolded into a temporary
//! directory outside the checkout and built there unedited, is a working device:
//! `vulkaninfo` (default, `--summary`, `--json`) exits 0 through our loader (HAL root) and
//! through Debian's loader (ICD manifest), with the dynamic linker's log proving which loader
//! ran; a swapchain on the runtime's `BufferQueue` presents frames through our loader; the
//! library exports exactly the HAL module and the Khronos ICD entry points; installed next to
//! lavapipe it leaves the other device working. Re-running the
//! scaffold keeps the vendor's files and `--check` guards the generated one.
//!
//! The crate is scaffolded from vk-1.3.239.xml (issue 20): its vendored tables are what
//! `vkgen generate` writes for that registry, not the checkout's 1.4.359 ones; the device
//! reports Vulkan 1.3, answers 1.3 commands and has no 1.4 one; `vkgen.toml` records the
//! registry, so `vkgen driver --check` needs no arguments, and a registry whose SHA-256
//! changed is refused.
//!
//! One build of the scaffold, in `target/scaffold`, incremental across runs; the requirements
//! report (`--check --report`) builds its copy in `target/scaffold-report`.

mod wsi_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use ash::vk;
use vkgen_tests::env::{controlled_command, in_child, output_with_timeout, Env};
use vkgen_tests::{paths, require};

struct Scaffold {
    _dir: tempfile::TempDir,
    crate_dir: PathBuf,
    lib: PathBuf,
}

fn vkgen_bin() -> PathBuf {
    let p = paths::profile_dir().join("vkgen");
    assert!(
        p.is_file(),
        "{} not built: cargo build --release --workspace",
        p.display()
    );
    p
}

/// The registry the scaffold is generated from: vkgen's matrix (`$VKGEN_REGISTRY_DIR`, else
/// `../shared/registry` beside the checkout).
const REGISTRY: &str = "vk-1.3.239.xml";

fn registry() -> PathBuf {
    let dir = std::env::var_os("VKGEN_REGISTRY_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| paths::workspace_root().join("../shared/registry"));
    let p = dir.join(REGISTRY);
    assert!(p.is_file(), "registry matrix missing: {}", p.display());
    p
}

fn vkgen(args: &[&str], out: &Path) -> std::process::Output {
    Command::new(vkgen_bin())
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .expect("run vkgen")
}

/// Scaffolds and builds `acme` once per test process.
fn scaffold() -> &'static Scaffold {
    static S: OnceLock<Scaffold> = OnceLock::new();
    S.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("vkgen-acme-")
            .tempdir_in(std::env::temp_dir())
            .unwrap();
        let crate_dir = dir.path().join("acme");
        assert!(
            !crate_dir.starts_with(paths::workspace_root()),
            "the scaffold must live outside the checkout"
        );
        let registry = registry();
        let out = vkgen(
            &[
                "driver",
                "--name",
                "acme",
                "--registry",
                &registry.to_string_lossy(),
            ],
            &crate_dir,
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "vkgen driver: {stderr}");
        // It says which registry it read: file, version and SHA-256.
        assert!(
            stderr.contains(&format!("registry {REGISTRY} (vk.xml 1.3.239, SHA-256 ")),
            "{stderr}"
        );
        let target = paths::target_dir().join("scaffold");
        let build = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--manifest-path"])
            .arg(crate_dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            .output()
            .unwrap();
        assert!(
            build.status.success(),
            "the unedited scaffold does not build:\n{}",
            String::from_utf8_lossy(&build.stderr)
        );
        let lib = target.join("debug/libvulkan_acme.so");
        assert!(lib.is_file());
        Scaffold {
            _dir: dir,
            crate_dir,
            lib,
        }
    })
}

/// Runs vulkaninfo in `mode` with `shim` (a dir holding `libvulkan.so{,.1}`) or the system
/// loader first on the library path; returns stdout. Asserts exit 0, the device's name in the
/// output, and (with `LD_DEBUG=libs`) that the expected loader was initialised.
fn vulkaninfo(mode: &[&str], shim: Option<&Path>, env: &Env, expect_loader: &Path) -> String {
    let bin = require(paths::vulkaninfo_bin());
    let work = tempfile::tempdir().unwrap();
    let mut cmd = controlled_command(&bin, env);
    cmd.current_dir(work.path())
        .args(mode)
        .env("LD_DEBUG", "libs")
        .env("LD_DEBUG_OUTPUT", work.path().join("ld"));
    // Cargo puts target/release (which holds our libvulkan.so) on the test's library path:
    // name the loader's directory explicitly either way.
    cmd.env(
        "LD_LIBRARY_PATH",
        shim.map_or_else(paths::system_lib_dir, Path::to_path_buf),
    );
    let out = output_with_timeout(&mut cmd, std::time::Duration::from_secs(60)).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "vulkaninfo {mode:?} failed ({}):\n{}\n{stdout}",
        vkgen_tests::env::describe_status(out.status),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut ld = String::new();
    let mut report = stdout;
    for e in std::fs::read_dir(work.path()).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        if name.starts_with("ld.") {
            ld.push_str(&text);
        } else if name.ends_with(".json") {
            // `--json` writes its report to a file in the working directory.
            serde_json::from_str::<serde_json::Value>(&text)
                .unwrap_or_else(|e| panic!("vulkaninfo {mode:?} wrote invalid JSON {name}: {e}"));
            report.push_str(&text);
        }
    }
    // Any of the loader's names (libvulkan.so, libvulkan.so.1, …) resolving to the same file.
    let expected = expect_loader.canonicalize().unwrap();
    let loaders: Vec<PathBuf> = ld
        .lines()
        .filter_map(|l| l.split("calling init: ").nth(1))
        .filter(|p| p.contains("libvulkan.so"))
        .filter_map(|p| Path::new(p.trim()).canonicalize().ok())
        .collect();
    assert!(
        loaders.contains(&expected),
        "vulkaninfo {mode:?} did not initialise {} (initialised: {loaders:?})",
        expected.display()
    );
    assert!(
        ld.contains("libvulkan_acme.so") || ld.contains("vulkan.acme.so"),
        "vulkaninfo {mode:?} did not load the acme driver"
    );
    report
}

#[test]
fn unedited_scaffold_is_a_working_device_through_both_loaders() {
    let s = scaffold();

    // Exactly the HAL module and the ICD entry points.
    let nm = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&s.lib)
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

    // Our loader, the driver as the HAL module.
    let loader = require(paths::loader_under_test()).canonicalize().unwrap();
    let shim = tempfile::tempdir().unwrap();
    for name in ["libvulkan.so", "libvulkan.so.1"] {
        std::os::unix::fs::symlink(&loader, shim.path().join(name)).unwrap();
    }
    let (hal, _root) = wsi_support::hal_env_for(&s.lib, "acme", "");
    let shim_loader = shim.path().join("libvulkan.so");
    for mode in [&[][..], &["--summary"], &["--json"]] {
        let out = vulkaninfo(mode, Some(shim.path()), &hal, &shim_loader);
        assert!(
            out.contains("acme device"),
            "{mode:?}: no acme device:\n{out}"
        );
    }

    // Debian's loader, the driver through an ICD manifest.
    let system = require(paths::system_loader());
    let manifest_dir = tempfile::tempdir().unwrap();
    let manifest = manifest_dir.path().join("acme_icd.json");
    std::fs::write(
        &manifest,
        format!(
            r#"{{"file_format_version":"1.0.0","ICD":{{"library_path":"{}","api_version":"1.3.0"}}}}"#,
            s.lib.display()
        ),
    )
    .unwrap();
    let icd = Env::new().set("VK_DRIVER_FILES", &manifest);
    for mode in [&[][..], &["--summary"], &["--json"]] {
        let out = vulkaninfo(mode, None, &icd, &system);
        assert!(
            out.contains("acme device"),
            "{mode:?}: no acme device:\n{out}"
        );
    }

    // Installed next to lavapipe, it breaks nothing: both devices, exit 0.
    let both =
        std::env::join_paths([manifest.clone(), require(paths::lavapipe_manifest())]).unwrap();
    let out = vulkaninfo(
        &["--summary"],
        None,
        &Env::new().set("VK_DRIVER_FILES", &both),
        &system,
    );
    assert!(
        out.contains("acme device") && out.contains("llvmpipe"),
        "acme next to lavapipe:\n{out}"
    );

    // A swapchain on the runtime's BufferQueue through our loader: the native-buffer path.
    in_child(
        "unedited_scaffold_is_a_working_device_through_both_loaders",
        &hal,
        || {
            let wsi = wsi_support::Wsi::new(&loader, &[], &[], &[]).expect("instance and device");
            let window = wsi_support::window(64, 48);
            let surface = wsi
                .create_surface(&window)
                .expect("vkCreateAndroidSurfaceKHR");
            let info = wsi.swapchain_info(surface);
            let swapchain = wsi.create_swapchain(&info).expect("vkCreateSwapchainKHR");
            let fence = wsi.fence();
            for _ in 0..5 {
                let (index, _) = wsi
                    .acquire(swapchain, fence, u64::MAX)
                    .expect("vkAcquireNextImageKHR");
                assert_eq!(wsi.present(swapchain, index), vk::Result::SUCCESS);
            }
            assert_eq!(window.frame_count(), 5, "five frames queued to the window");
            check_vulkan_1_3(&wsi);
            // SAFETY: the fence is idle and belongs to the device.
            unsafe { wsi.device.destroy_fence(fence, None) };
            wsi.destroy_swapchain(swapchain);
            wsi.destroy_surface(surface);
        },
    );
}

/// The device of a crate scaffolded from a 1.3 registry is a Vulkan 1.3 device: it says so,
/// its 1.3 commands answer, and no 1.4 command exists.
fn check_vulkan_1_3(wsi: &wsi_support::Wsi) {
    // SAFETY: the physical device of the live instance.
    let props = unsafe { wsi.instance.get_physical_device_properties(wsi.pd) };
    assert_eq!(
        (
            vk::api_version_major(props.api_version),
            vk::api_version_minor(props.api_version)
        ),
        (1, 3),
        "apiVersion of a driver scaffolded from {REGISTRY}"
    );
    let gdpa = |name: &std::ffi::CStr| {
        // SAFETY: a live device and a NUL-terminated name.
        unsafe { (wsi.instance.fp_v1_0().get_device_proc_addr)(wsi.device.handle(), name.as_ptr()) }
    };
    for present in [
        c"vkQueueSubmit2",
        c"vkCmdPipelineBarrier2",
        c"vkGetDeviceBufferMemoryRequirements",
    ] {
        assert!(gdpa(present).is_some(), "{present:?} (Vulkan 1.3) is NULL");
    }
    for absent in [
        c"vkMapMemory2",
        c"vkCmdBindIndexBuffer2",
        c"vkCmdPushDescriptorSet2",
    ] {
        assert!(gdpa(absent).is_none(), "{absent:?} (Vulkan 1.4) exists");
    }
    // A 1.3 command works: the buffer requirements of a buffer never created.
    let info = vk::BufferCreateInfo::default()
        .size(4096)
        .usage(vk::BufferUsageFlags::TRANSFER_DST);
    let query = vk::DeviceBufferMemoryRequirements::default().create_info(&info);
    let mut reqs = vk::MemoryRequirements2::default();
    // SAFETY: valid structures on a live device whose physical device reports 1.3.
    unsafe {
        wsi.device
            .get_device_buffer_memory_requirements(&query, &mut reqs)
    };
    assert!(
        reqs.memory_requirements.size >= 4096 && reqs.memory_requirements.memory_type_bits != 0,
        "vkGetDeviceBufferMemoryRequirements: {:?}",
        reqs.memory_requirements
    );
}

#[test]
fn rescaffolding_keeps_vendor_files_and_check_guards_generated_ones() {
    let s = scaffold();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("acme");
    paths::copy_tree(&s.crate_dir, &copy);
    // --check needs no arguments: vkgen.toml names the registry.
    let ok = vkgen(&["driver", "--check"], &copy);
    assert!(
        ok.status.success(),
        "fresh scaffold reported stale: {}{}",
        String::from_utf8_lossy(&ok.stdout),
        String::from_utf8_lossy(&ok.stderr)
    );
    let record = std::fs::read_to_string(copy.join("vkgen.toml")).unwrap();
    assert!(
        record.contains(&format!("file = \"{REGISTRY}\"")) && record.contains("name = \"acme\""),
        "{record}"
    );

    // The vendored tables are exactly what `vkgen generate` writes for the crate's registry.
    let generated = dir.path().join("generated");
    let gen = Command::new(vkgen_bin())
        .args(["generate", "--registry"])
        .arg(registry())
        .arg("--out")
        .arg(&generated)
        .output()
        .unwrap();
    assert!(
        gen.status.success(),
        "{}",
        String::from_utf8_lossy(&gen.stderr)
    );
    let vendored = copy.join("vendor/vkgen/generated");
    let mut files = Vec::new();
    collect(&generated, &generated, &mut files);
    assert!(files.len() > 10, "{files:?}");
    for f in &files {
        assert_eq!(
            std::fs::read(vendored.join(f)).ok(),
            std::fs::read(generated.join(f)).ok(),
            "vendor/vkgen/generated/{} is not vk-1.3.239's",
            f.display()
        );
    }

    // A registry whose SHA-256 is not the recorded one is refused.
    let sha = record
        .lines()
        .find_map(|l| l.strip_prefix("sha256 = "))
        .unwrap()
        .trim_matches('"')
        .to_owned();
    std::fs::write(
        copy.join("vkgen.toml"),
        record.replace(&sha, &"0".repeat(64)),
    )
    .unwrap();
    let changed = vkgen(&["driver", "--check"], &copy);
    assert_eq!(changed.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&changed.stderr);
    assert!(
        stderr.contains("registry changed") && stderr.contains("re-run vkgen driver"),
        "{stderr}"
    );
    std::fs::write(copy.join("vkgen.toml"), &record).unwrap();

    // Distribution: the crate names the runtime by a relative path into its vendored copy,
    // whose manifests stand alone (nothing inherited from vkgen's workspace).
    let manifest = std::fs::read_to_string(copy.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains(r#"vkgen-driver = { path = "vendor/vkgen/runtime/driver", version = "#),
        "{manifest}"
    );
    let root = paths::workspace_root().to_string_lossy().into_owned();
    for m in [
        "Cargo.toml",
        "vendor/vkgen/runtime/driver/Cargo.toml",
        "vendor/vkgen/runtime/abi/Cargo.toml",
        "vendor/vkgen/runtime/platform/Cargo.toml",
        "vendor/vkgen/runtime/driver-macros/Cargo.toml",
        "vendor/vkgen/generated/Cargo.toml",
    ] {
        let text = std::fs::read_to_string(copy.join(m)).unwrap();
        assert!(!text.contains(&root), "{m} names the checkout: {text}");
        assert!(
            !text.contains("workspace = true") && !text.contains(".workspace"),
            "{m}: {text}"
        );
    }
    // The copy is vkgen's: an edit is stale, and a re-run restores it.
    let vendored = copy.join("vendor/vkgen/runtime/driver/src/lib.rs");
    let original = std::fs::read(&vendored).unwrap();
    std::fs::write(&vendored, "// edited\n").unwrap();
    let stale = vkgen(&["driver", "--name", "acme", "--check"], &copy);
    assert_eq!(stale.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&stale.stdout).contains("vendor/vkgen/runtime/driver/src/lib.rs")
    );
    assert!(vkgen(&["driver", "--name", "acme"], &copy).status.success());
    assert_eq!(std::fs::read(&vendored).unwrap(), original);

    // The vendor's edits survive a re-run; the generated file is rewritten.
    for f in ["Cargo.toml", "src/lib.rs"] {
        let mut text = std::fs::read_to_string(copy.join(f)).unwrap();
        text.push_str("# vendor edit\n");
        std::fs::write(copy.join(f), text).unwrap();
    }
    std::fs::write(copy.join("src/vkgen.rs"), "// stale\n").unwrap();
    let stale = vkgen(&["driver", "--name", "acme", "--check"], &copy);
    assert_eq!(stale.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&stale.stdout).contains("src/vkgen.rs"));
    let again = vkgen(&["driver", "--name", "acme"], &copy);
    assert!(again.status.success());
    for f in ["Cargo.toml", "src/lib.rs"] {
        assert!(std::fs::read_to_string(copy.join(f))
            .unwrap()
            .ends_with("# vendor edit\n"));
    }
    assert_eq!(
        std::fs::read(copy.join("src/vkgen.rs")).unwrap(),
        std::fs::read(s.crate_dir.join("src/vkgen.rs")).unwrap()
    );

    // --api-version is honoured in the generated file.
    let v11 = vkgen(&["driver", "--name", "acme", "--api-version", "1.1"], &copy);
    assert!(v11.status.success());
    let text = std::fs::read_to_string(copy.join("src/vkgen.rs")).unwrap();
    assert!(text.contains("make_api_version(0, 1, 1, 0)"), "{text}");
    // The ICD manifest follows the version, so a bump never leaves it stale.
    let manifest = std::fs::read_to_string(copy.join("acme_icd.json")).unwrap();
    assert!(manifest.contains(r#""api_version": "1.1.0""#), "{manifest}");
    assert!(
        manifest.contains(r#""library_path": "./libvulkan_acme.so""#),
        "{manifest}"
    );

    // Names that make no crate are refused, and nothing is written.
    for bad in ["1abc", "", "a b", "../evil", "x-"] {
        let empty = dir.path().join("bad");
        let out = vkgen(&["driver", "--name", bad], &empty);
        assert_eq!(out.status.code(), Some(2), "name {bad:?} accepted");
        assert!(!empty.exists(), "name {bad:?} wrote files");
    }
}

/// Issue 20: `vkgen driver --check --report` runs the crate's requirements test (written by the
/// scaffold) in the scaffold's build, prints the report, and fails on a mandatory gap; lowering
/// the API version of an existing crate warns, and the report names each feature it drops.
#[test]
fn check_report_names_what_the_description_misses_and_what_a_down_bump_drops() {
    let s = scaffold();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("acme");
    paths::copy_tree(&s.crate_dir, &copy);
    // Not `target/scaffold`: Cargo hashes a crate by its path within its own workspace, so this
    // copy and the scaffold the other tests build there would share (and overwrite) artifacts.
    let target = paths::target_dir().join("scaffold-report");
    let report = || {
        Command::new(vkgen_bin())
            .args(["driver", "--name", "acme", "--check", "--report", "--out"])
            .arg(&copy)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            .output()
            .unwrap()
    };
    let text = |o: &std::process::Output| {
        format!(
            "{}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    let clean = report();
    assert!(clean.status.success(), "{}", text(&clean));
    let out = String::from_utf8_lossy(&clean.stdout);
    assert!(
        out.contains("vkgen requirements report")
            && out.contains("`acme device` (Vulkan 1.")
            && out.contains("0 missing, 0 warnings")
            && out.contains("Vulkan-Profiles@"),
        "{out}"
    );

    // A description that lowers a limit and turns on a 1.2 feature, then a down-bump to 1.1.
    let lib = copy.join("src/lib.rs");
    let source = std::fs::read_to_string(&lib).unwrap().replace(
        "let device = PhysicalDeviceDesc::new(c\"acme device\", ());",
        "let mut device = PhysicalDeviceDesc::new(c\"acme device\", ());\n        \
         device.properties.max_image_dimension2_d = 1024;\n        \
         device.features.timeline_semaphore = true;",
    );
    assert!(source.contains("max_image_dimension2_d = 1024"));
    std::fs::write(&lib, source).unwrap();
    let down = vkgen(&["driver", "--name", "acme", "--api-version", "1.1"], &copy);
    assert!(down.status.success(), "{}", text(&down));
    let warning = String::from_utf8_lossy(&down.stderr);
    assert!(
        warning.contains("goes down from Vulkan 1.") && warning.contains(" to 1.1"),
        "{}",
        text(&down)
    );
    let gaps = report();
    assert_eq!(gaps.status.code(), Some(1), "{}", text(&gaps));
    let out = String::from_utf8_lossy(&gaps.stdout);
    assert!(
        out.contains("missing: VK_VERSION_1_0 requires maxImageDimension2D 4096 (max), has 1024"),
        "{out}"
    );
    assert!(
        out.contains(
            "warning: feature timelineSemaphore is on but dropped: only \
             VK_VERSION_1_2,VK_KHR_timeline_semaphore expose it"
        ),
        "{out}"
    );
}

/// Issue 30: the unedited scaffold is a valid device at 1.3 and, bumped to the 1.4 registry,
/// at 1.4 — timestamps on its queue family, the limits of the features 1.4 requires, a real
/// `driverID` — and `--check --report` names each cross-check a description fails.
#[test]
fn check_report_runs_the_cross_checks_at_1_3_and_1_4() {
    let s = scaffold();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("acme");
    paths::copy_tree(&s.crate_dir, &copy);
    // Its own target: see `check_report_names_what_the_description_misses…`.
    let target = paths::target_dir().join("scaffold-cross-checks");
    let report = || {
        Command::new(vkgen_bin())
            .args(["driver", "--name", "acme", "--check", "--report", "--out"])
            .arg(&copy)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            .output()
            .unwrap()
    };
    let text = |o: &std::process::Output| {
        format!(
            "{}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    let clean13 = report();
    assert!(clean13.status.success(), "{}", text(&clean13));
    assert!(
        text(&clean13).contains("(Vulkan 1.3): 0 missing, 0 warnings"),
        "{}",
        text(&clean13)
    );
    let newest = registry().with_file_name("vk-1.4.359.xml");
    let bump = vkgen(
        &[
            "driver",
            "--name",
            "acme",
            "--registry",
            &newest.to_string_lossy(),
        ],
        &copy,
    );
    assert!(bump.status.success(), "{}", text(&bump));
    let clean14 = report();
    assert!(clean14.status.success(), "{}", text(&clean14));
    assert!(
        text(&clean14).contains("(Vulkan 1.4): 0 missing, 0 warnings"),
        "{}",
        text(&clean14)
    );

    let lib = copy.join("src/lib.rs");
    let source = std::fs::read_to_string(&lib).unwrap().replace(
        "let device = PhysicalDeviceDesc::new(c\"acme device\", ());",
        "let mut device = PhysicalDeviceDesc::new(c\"acme device\", ());\n        \
         device.queue_families[0].timestamp_valid_bits = 0;\n        \
         device.properties.line_sub_pixel_precision_bits = 0;\n        \
         device.properties.driver_id = vk::DriverId::from_raw(0);",
    );
    assert!(source.contains("timestamp_valid_bits = 0"));
    std::fs::write(&lib, source).unwrap();
    let gaps = report();
    assert_eq!(gaps.status.code(), Some(1), "{}", text(&gaps));
    let out = String::from_utf8_lossy(&gaps.stdout);
    for line in [
        "missing: timestamps: timestampComputeAndGraphics is on but graphics/compute queue family 0 reports 0 timestampValidBits",
        "missing: feature bresenhamLines, rectangularLines or smoothLines requires lineSubPixelPrecisionBits 4 (bits), has 0",
        "missing: driverID 0 is not a VkDriverId of the registry: set properties.driver_id",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
}

/// Every file under `dir`, relative to `base`.
fn collect(base: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(base, &p, out);
        } else {
            out.push(p.strip_prefix(base).unwrap().to_owned());
        }
    }
}
