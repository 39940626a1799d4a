//! `vkgen features`, `vkgen vkjson` and `vkgen profile check` on real drivers, through our loader
//! (`target/release/libvulkan.so`):
//!
//! * lavapipe, found by our loader through `VK_DRIVER_FILES` (no HAL driver: an empty HAL root);
//! * vkgen's null driver, found through a temporary Android HAL root
//!   (`<root>/vendor/lib64/hw/vulkan.null.so`, `ro.hardware.vulkan=null`; no ICD manifest visible).
//!
//! Each run is a child process with its own explicit environment, so tests never share state.
//! Missing prerequisites (the release loader and null driver, lavapipe) fail loudly with the fix.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use tempfile::TempDir;

const LAVAPIPE_ICD: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
const ROADMAP_2022: &str = "/usr/share/vulkan/registry/profiles/VP_KHR_roadmap_2022.json";

/// `<target>/release`, beside the `vkgen` binary under test.
fn release_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_vkgen"))
        .parent()
        .and_then(Path::parent)
        .expect("vkgen lives in <target>/<profile>/")
        .join("release")
}

fn built(name: &str) -> PathBuf {
    let p = release_dir().join(name);
    assert!(
        p.is_file(),
        "{} not built: run `cargo build --release -p vkgen-loader -p vkgen-driver-null` (or --workspace)",
        p.display()
    );
    p
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Which driver a child process sees.
enum Driver {
    Lavapipe,
    Null,
    Nothing,
}

/// A `vkgen` command on our loader with an explicit driver environment; the returned directory
/// holds the HAL root and must outlive the run.
fn vkgen(driver: Driver, args: &[&str]) -> (Command, TempDir) {
    let root = tempfile::tempdir().unwrap();
    let no_icds = root.path().join("no-icds");
    std::fs::create_dir_all(&no_icds).unwrap();
    let props = root.path().join("build.prop");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vkgen"));
    cmd.args(args)
        .arg("--loader")
        .arg(built("libvulkan.so"))
        .arg("--registry")
        .arg(common::registry("1.3.239"))
        .env_remove("VKGEN_REGISTRY")
        .env_remove("VK_ICD_FILENAMES")
        .env_remove("VK_ADD_DRIVER_FILES")
        .env_remove("VKGEN_HOST_ICD")
        .env("VKGEN_HAL_ROOT", root.path())
        .env("VKGEN_PROPERTIES", &props);
    match driver {
        Driver::Lavapipe => {
            assert!(
                Path::new(LAVAPIPE_ICD).is_file(),
                "lavapipe missing: apt-get install mesa-vulkan-drivers"
            );
            std::fs::write(&props, "# no HAL driver\n").unwrap();
            cmd.env("VK_DRIVER_FILES", LAVAPIPE_ICD);
        }
        Driver::Null => {
            let hw = root.path().join("vendor/lib64/hw");
            std::fs::create_dir_all(&hw).unwrap();
            std::os::unix::fs::symlink(built("libvulkan_null.so"), hw.join("vulkan.null.so"))
                .unwrap();
            std::fs::write(&props, "ro.hardware.vulkan=null\n").unwrap();
            cmd.env("VK_DRIVER_FILES", &no_icds);
        }
        Driver::Nothing => {
            std::fs::write(&props, "# no HAL driver\n").unwrap();
            cmd.env("VK_DRIVER_FILES", &no_icds);
        }
    }
    (cmd, root)
}

fn run(driver: Driver, args: &[&str]) -> Output {
    let (mut cmd, _root) = vkgen(driver, args);
    cmd.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn vkjson(driver: Driver) -> Value {
    let out = run(driver, &["vkjson"]);
    assert!(out.status.success(), "vkjson failed: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("vkjson prints valid JSON")
}

#[test]
fn vkjson_lavapipe() {
    let v = vkjson(Driver::Lavapipe);
    assert!(v["instance"]["apiVersion"].as_u64().unwrap() >= u64::from(ash::vk::API_VERSION_1_1));
    assert!(v["vkgen"]["loader"]
        .as_str()
        .unwrap()
        .ends_with("libvulkan.so"));
    let devices = v["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1, "lavapipe is the only device");
    let d = &devices[0];
    let name = d["properties"]["deviceName"].as_str().unwrap();
    assert!(name.starts_with("llvmpipe"), "{name}");
    assert_eq!(d["properties"]["deviceType"], "VK_PHYSICAL_DEVICE_TYPE_CPU");
    assert!(
        d["properties"]["limits"]["maxImageDimension2D"]
            .as_u64()
            .unwrap()
            >= 4096
    );
    assert_eq!(
        d["properties"]["limits"]["maxComputeWorkGroupSize"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert!(d["features"]["robustBufferAccess"].is_boolean());

    let formats = d["formats"].as_object().unwrap();
    assert!(!formats.is_empty());
    let rgba = &formats["VK_FORMAT_R8G8B8A8_UNORM"]["optimalTilingFeatures"];
    assert!(rgba
        .as_array()
        .unwrap()
        .contains(&Value::from("VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT")));
    assert!(!formats.contains_key("VK_FORMAT_UNDEFINED"));

    let queues = d["queues"].as_array().unwrap();
    assert!(!queues.is_empty());
    assert!(queues[0]["queueFlags"]
        .as_array()
        .unwrap()
        .contains(&Value::from("VK_QUEUE_GRAPHICS_BIT")));
    let heaps = d["memory"]["memoryHeaps"].as_array().unwrap();
    assert_eq!(
        heaps.len() as u64,
        d["memory"]["memoryHeapCount"].as_u64().unwrap()
    );

    let driver = &d["extendedProperties"]["VkPhysicalDeviceDriverProperties"];
    assert_eq!(driver["driverID"], "VK_DRIVER_ID_MESA_LLVMPIPE");
    assert!(d["extendedFeatures"]["VkPhysicalDeviceVulkan11Features"].is_object());
    assert!(d["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["extensionName"] == "VK_KHR_maintenance1"));
    assert!(d["externalFenceProperties"]["VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT"].is_object());
    assert!(
        d["externalSemaphoreProperties"]["VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT"]
            .is_object()
    );
    assert_eq!(
        d["skippedStructures"],
        Value::Array(vec![]),
        "every chained structure has a layout"
    );
}

#[test]
fn vkjson_is_deterministic_and_writes_files() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dump.json");
    let out = run(
        Driver::Lavapipe,
        &["vkjson", "--out", file.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let again = run(Driver::Lavapipe, &["vkjson"]);
    assert_eq!(std::fs::read(&file).unwrap(), again.stdout);
}

#[test]
fn vkjson_null_driver_through_hal() {
    let v = vkjson(Driver::Null);
    let devices = v["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1);
    let d = &devices[0];
    assert_eq!(d["properties"]["deviceName"], "vkgen null device");
    assert_eq!(
        d["properties"]["deviceType"],
        "VK_PHYSICAL_DEVICE_TYPE_OTHER"
    );
    let api = d["properties"]["apiVersion"].as_u64().unwrap() as u32;
    assert_eq!(
        (
            ash::vk::api_version_major(api),
            ash::vk::api_version_minor(api)
        ),
        // The null driver implements the newest version the checked-in tables describe.
        (1, ash::vk::api_version_minor(vkgen_generated::API_VERSION))
    );
    assert_eq!(d["memory"]["memoryHeaps"][0]["size"], 256u64 << 20);
    assert!(!d["formats"].as_object().unwrap().is_empty());
    assert!(d["extendedFeatures"]["VkPhysicalDeviceVulkan13Features"].is_object());
    assert!(
        !d["extensions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["extensionName"] == "VK_ANDROID_native_buffer"),
        "the loader hides the driver-private ANB extension"
    );
}

fn read_feature(path: &Path) -> (String, u64) {
    let text = std::fs::read_to_string(path).unwrap();
    let doc =
        roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "permissions");
    let f = root.children().find(|n| n.has_tag_name("feature")).unwrap();
    (
        f.attribute("name").unwrap().to_owned(),
        f.attribute("version").unwrap().parse().unwrap(),
    )
}

fn xml_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn features_lavapipe_agree_with_its_vkjson() {
    let out_dir = tempfile::tempdir().unwrap();
    let out = run(
        Driver::Lavapipe,
        &[
            "features",
            "--deqp-date",
            "2019-03-01",
            "--out",
            out_dir.path().to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let files = xml_files(out_dir.path());

    let v = vkjson(Driver::Lavapipe);
    let d = &v["devices"][0];
    let api = d["properties"]["apiVersion"].as_u64().unwrap() as u32;
    let (major, minor) = (
        ash::vk::api_version_major(api),
        ash::vk::api_version_minor(api),
    );
    assert!((major, minor) >= (1, 1), "plausible lavapipe version");
    let version_file = format!("android.hardware.vulkan.version-{major}_{minor}.xml");
    assert!(files.contains(&version_file), "{files:?}");
    assert_eq!(
        read_feature(&out_dir.path().join(&version_file)),
        (
            "android.hardware.vulkan.version".to_owned(),
            u64::from((major << 22) | (minor << 12))
        )
    );
    assert_eq!(
        read_feature(
            &out_dir
                .path()
                .join("android.software.vulkan.deqp.level-2019-03-01.xml")
        ),
        ("android.software.vulkan.deqp.level".to_owned(), 0x07E3_0301)
    );

    // Level: ETC2 decides between "no level" and level 0 or 1.
    let etc2 = d["features"]["textureCompressionETC2"] == Value::Bool(true);
    let level_files: Vec<&String> = files
        .iter()
        .filter(|f| f.contains("vulkan.level-"))
        .collect();
    assert_eq!(level_files.is_empty(), !etc2, "{files:?}");

    // Compute: variablePointers and at least 16 storage buffers per stage.
    let vp = d["extendedFeatures"]["VkPhysicalDeviceVulkan11Features"]["variablePointers"]
        == Value::Bool(true);
    let sb = d["properties"]["limits"]["maxPerStageDescriptorStorageBuffers"]
        .as_u64()
        .unwrap();
    let compute = files.contains(&"android.hardware.vulkan.compute-0.xml".to_owned());
    assert_eq!(compute, vp && sb >= 16, "{files:?}");
    if compute {
        assert_eq!(
            read_feature(&out_dir.path().join("android.hardware.vulkan.compute-0.xml")).1,
            0
        );
    }
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("llvmpipe"), "{table}");
    assert!(table.contains("best device: 0"));
}

#[test]
fn features_null_driver_through_hal() {
    let out_dir = tempfile::tempdir().unwrap();
    let out = run(
        Driver::Null,
        &[
            "features",
            "--out",
            out_dir.path().to_str().unwrap(),
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // The null driver: the checked-in tables' Vulkan version (1.4), no ETC2, the spec's minimum
    // 4 storage buffers per stage.
    let version_file = format!(
        "android.hardware.vulkan.version-1_{}.xml",
        ash::vk::api_version_minor(vkgen_generated::API_VERSION)
    );
    assert_eq!(
        xml_files(out_dir.path()),
        std::slice::from_ref(&version_file)
    );
    assert_eq!(
        read_feature(&out_dir.path().join(&version_file)),
        (
            "android.hardware.vulkan.version".to_owned(),
            u64::from(vkgen_generated::API_VERSION)
        )
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let dev = &report["devices"][0];
    assert_eq!(dev["name"], "vkgen null device");
    assert_eq!(dev["level"], Value::Null);
    assert_eq!(
        dev["level_lacks"],
        serde_json::json!(["textureCompressionETC2"])
    );
    assert_eq!(dev["compute"], Value::Null);
    assert_eq!(dev["max_per_stage_descriptor_storage_buffers"], 4);
    assert_eq!(dev["version"], vkgen_generated::API_VERSION);
}

#[test]
fn no_device_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["features", "--out", dir.path().to_str().unwrap()],
        vec!["vkjson"],
        vec!["profile", "check", ROADMAP_2022],
    ] {
        let out = run(Driver::Nothing, &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("no Vulkan physical device found"),
            "{args:?}: {err}"
        );
    }
    assert!(
        xml_files(dir.path()).is_empty(),
        "nothing written without a device"
    );
}

#[test]
fn bad_options_and_loaders() {
    let out = run(Driver::Lavapipe, &["features", "--deqp-date", "2019-02-30"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("day 30 does not exist"),
        "{}",
        stderr(&out)
    );

    let out = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["vkjson", "--loader", "/nonexistent/libvulkan.so"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot load the Vulkan loader `/nonexistent/libvulkan.so`"));
}

fn profile_json(driver: Driver, file: &Path, extra: &[&str]) -> (Option<i32>, Vec<Value>) {
    let mut args = vec!["profile", "check", file.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let out = run(driver, &args);
    let reports: Vec<Value> =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    (out.status.code(), reports)
}

fn result<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no requirement {name}"))
}

/// Every feature requirement of a report must agree with the device's own vkjson.
fn features_agree_with_vkjson(report: &Value, vkjson: &Value) {
    let d = &vkjson["devices"][0];
    let mut checked = 0;
    for r in report["results"].as_array().unwrap() {
        if r["kind"] != "feature" || r["required"] != Value::Bool(true) {
            continue;
        }
        let name = r["name"].as_str().unwrap();
        let (st, member) = name.split_once('.').unwrap();
        let dev = if st == "VkPhysicalDeviceFeatures" {
            &d["features"][member]
        } else {
            &d["extendedFeatures"][st][member]
        };
        if dev.is_null() {
            // Alias names: the profile's structure is reported under its core name.
            continue;
        }
        assert_eq!(r["ok"], *dev, "{name}");
        checked += 1;
    }
    assert!(checked > 10, "checked {checked} feature requirements");
}

#[test]
fn roadmap_2022_on_lavapipe() {
    assert!(
        Path::new(ROADMAP_2022).is_file(),
        "{ROADMAP_2022} missing: it ships with libvulkan-dev (dpkg -L libvulkan-dev | grep -i profile)"
    );
    let (code, reports) = profile_json(Driver::Lavapipe, Path::new(ROADMAP_2022), &[]);
    assert_eq!(reports.len(), 1);
    let r = &reports[0];
    assert_eq!(r["profile"], "VP_KHR_roadmap_2022");
    assert_eq!(r["device"], 0);
    assert!(r["device_name"].as_str().unwrap().starts_with("llvmpipe"));
    assert_eq!(
        code,
        Some(if r["supported"] == Value::Bool(true) {
            0
        } else {
            1
        })
    );
    let groups = r["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 8, "the profile's eight capabilities");
    let results = r["results"].as_array().unwrap();
    assert_eq!(results.len() as u64, r["requirements"].as_u64().unwrap());
    for row in results {
        for key in ["capability", "kind", "name", "required", "device", "ok"] {
            assert!(row.get(key).is_some(), "{row} lacks {key}");
        }
    }
    // Known results on lavapipe (a Vulkan 1.3 CPU driver).
    assert_eq!(result(r, "apiVersion")["ok"], true);
    assert_eq!(
        result(r, "VkPhysicalDeviceFeatures.robustBufferAccess")["ok"],
        true
    );
    assert_eq!(
        result(r, "VkPhysicalDeviceVulkan13Features.dynamicRendering")["ok"],
        true
    );
    assert_eq!(
        result(r, "VkPhysicalDeviceVulkan13Features.synchronization2")["ok"],
        true
    );
    let dim = result(r, "VkPhysicalDeviceProperties.limits.maxImageDimension2D");
    assert_eq!(
        (dim["required"].as_u64(), dim["ok"].as_bool()),
        (Some(8192), Some(true))
    );
    assert_eq!(
        result(r, "VkPhysicalDeviceProperties.limits.maxColorAttachments")["ok"],
        true
    );
    assert_eq!(
        result(
            r,
            "VkPhysicalDeviceProperties.limits.bufferImageGranularity"
        )["ok"],
        true
    );
    // Optionals are not requirements.
    assert!(!r["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x["capability"] == "vulkan10optionals_roadmap2022"));
    let stages = result(
        r,
        "VkPhysicalDeviceVulkan11Properties.subgroupSupportedStages",
    );
    assert_eq!(stages["ok"], true, "{stages}");

    let vk = vkjson(Driver::Lavapipe);
    features_agree_with_vkjson(r, &vk);
    let info = vk["devices"][0]["extendedProperties"]["VkPhysicalDeviceDriverProperties"]
        ["driverInfo"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    if info.starts_with("Mesa 22.") {
        // Debian 12's lavapipe (Mesa 22.3) predates descriptor indexing and global priority.
        assert_eq!(r["supported"], false);
        assert_eq!(
            result(r, "VkPhysicalDeviceVulkan12Features.descriptorIndexing")["ok"],
            false
        );
        assert_eq!(result(r, "VK_KHR_global_priority")["ok"], false);
        assert_eq!(
            result(r, "VkPhysicalDeviceVulkan11Features.samplerYcbcrConversion")["ok"],
            false
        );
    }

    // The table says the same.
    let out = run(
        Driver::Lavapipe,
        &["profile", "check", ROADMAP_2022, "--only-failed"],
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.lines().any(|l| l.starts_with("ok ")),
        "--only-failed lists failures only"
    );
    let verdict = if r["supported"] == Value::Bool(true) {
        "supported"
    } else {
        "NOT supported"
    };
    assert!(
        text.contains(&format!("VP_KHR_roadmap_2022: {verdict}")),
        "{text}"
    );
}

#[test]
fn android_baseline_2021_fixture_on_lavapipe() {
    let (code, reports) = profile_json(
        Driver::Lavapipe,
        &fixture("VP_ANDROID_baseline_2021.json"),
        &[],
    );
    let r = &reports[0];
    assert_eq!(r["profile"], "VP_ANDROID_baseline_2021");
    let groups: Vec<&str> = r["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["capabilities"][0].as_str().unwrap())
        .collect();
    assert_eq!(
        groups,
        [
            "baseline_extensions",
            "baseline_features",
            "baseline_limits",
            "baseline_formats",
            "baseline_queues"
        ]
    );
    let kinds: std::collections::BTreeSet<&str> = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        [
            "api-version",
            "extension",
            "feature",
            "format",
            "property",
            "queue-family"
        ]
    );
    assert_eq!(result(r, "apiVersion")["ok"], true);
    assert_eq!(result(r, "VK_KHR_maintenance1")["ok"], true);
    assert_eq!(result(r, "VK_KHR_variable_pointers")["ok"], true);
    assert_eq!(
        result(r, "VkPhysicalDeviceFeatures.robustBufferAccess")["ok"],
        true
    );
    assert_eq!(
        result(
            r,
            "VkPhysicalDeviceProperties.limits.maxComputeWorkGroupSize"
        )["ok"],
        true
    );
    assert_eq!(
        result(r, "VkPhysicalDeviceProperties.limits.viewportBoundsRange")["ok"],
        true
    );
    assert_eq!(
        result(
            r,
            "VkPhysicalDeviceProperties.limits.minUniformBufferOffsetAlignment"
        )["ok"],
        true
    );
    assert_eq!(
        result(
            r,
            "VK_FORMAT_R8G8B8A8_UNORM.VkFormatProperties.optimalTilingFeatures"
        )["ok"],
        true
    );
    assert_eq!(result(r, "queueFamiliesProperties[0]")["ok"], true);
    let vk = vkjson(Driver::Lavapipe);
    features_agree_with_vkjson(r, &vk);
    // Without ETC2 support, the ETC2 formats cannot have their sampling features either.
    let etc2 = vk["devices"][0]["features"]["textureCompressionETC2"] == Value::Bool(true);
    if !etc2 {
        assert_eq!(
            result(r, "VkPhysicalDeviceFeatures.textureCompressionETC2")["ok"],
            false
        );
        assert_eq!(
            result(
                r,
                "VK_FORMAT_ETC2_R8G8B8_UNORM_BLOCK.VkFormatProperties.optimalTilingFeatures"
            )["ok"],
            false
        );
        assert_eq!(r["supported"], false);
    }
    assert_eq!(
        code,
        Some(if r["supported"] == Value::Bool(true) {
            0
        } else {
            1
        })
    );
}

#[test]
fn android_baseline_2021_fixture_on_the_null_driver() {
    let (code, reports) = profile_json(
        Driver::Null,
        &fixture("VP_ANDROID_baseline_2021.json"),
        &["--name", "VP_ANDROID_baseline_2021"],
    );
    let r = &reports[0];
    assert_eq!(r["device_name"], "vkgen null device");
    assert_eq!(
        result(r, "VkPhysicalDeviceFeatures.robustBufferAccess")["ok"],
        true
    );
    // The null driver reports the spec's minimum limits, below the baseline.
    assert_eq!(
        result(r, "VkPhysicalDeviceFeatures.textureCompressionETC2")["ok"],
        false
    );
    let sb = result(
        r,
        "VkPhysicalDeviceProperties.limits.maxPerStageDescriptorStorageBuffers",
    );
    assert_eq!(
        (sb["device"].as_u64(), sb["ok"].as_bool()),
        (Some(4), Some(true))
    );
    assert_eq!(r["supported"], false);
    assert_eq!(code, Some(1));
}

#[test]
fn profile_input_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"capabilities\": {}}").unwrap();
    let out = run(
        Driver::Lavapipe,
        &["profile", "check", bad.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no `profiles` object"),
        "{}",
        stderr(&out)
    );

    let out = run(
        Driver::Lavapipe,
        &[
            "profile",
            "check",
            fixture("VP_ANDROID_baseline_2021.json").to_str().unwrap(),
            "--name",
            "VP_NOPE",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no profile `VP_NOPE` (the file defines VP_ANDROID_baseline_2021)")
    );

    let out = run(
        Driver::Lavapipe,
        &["profile", "check", "/nonexistent/profile.json"],
    );
    assert_eq!(out.status.code(), Some(2));
}
