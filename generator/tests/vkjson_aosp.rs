//! `vkgen vkjson --aosp` on lavapipe, checked field by field against AOSP's vkjson schema
//! (`src/device/vkjson_aosp.json`, extracted from frameworks/native android16-release
//! `vulkan/vkjson/vkjson.cc`): every object has exactly the keys vkjson.cc's `Iterate` visits,
//! the version-gated sections are those of the device's version, and every value has vkjson's
//! encoding (`uint64_t` as `"0x%016x"`, `VkBool32`/enums/flags and every other number as a real,
//! `1.0`: vkjson's `ToJsonValue` makes them `double`s and its reader's `AsValue` accepts only
//! `Json::realValue`; `char[]` as strings).
//!
//! It runs through Debian's loader (`libvulkan.so.1`), so it needs no release build; the
//! document's shape does not depend on the loader.

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use vkgen::device::vkjson::{Aosp, AOSP_COMMENT};

const LAVAPIPE_ICD: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
const DEBIAN_LOADER: &str = "/usr/lib/x86_64-linux-gnu/libvulkan.so.1";

fn lavapipe_aosp_vkjson() -> Value {
    aosp_vkjson(Path::new(DEBIAN_LOADER), &[])
}

/// `vkgen vkjson --aosp` on lavapipe through `loader`, with `env` added.
fn aosp_vkjson(loader: &Path, env: &[(&str, &Path)]) -> Value {
    assert!(
        Path::new(LAVAPIPE_ICD).is_file() && loader.is_file(),
        "lavapipe or {} missing: apt-get install mesa-vulkan-drivers libvulkan1, \
         cargo build --release -p vkgen-loader",
        loader.display()
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vkgen"));
    cmd.args(["vkjson", "--aosp", "--loader"]).arg(loader);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .env_remove("VKGEN_REGISTRY")
        .env_remove("VK_ICD_FILENAMES")
        .env_remove("VK_INSTANCE_LAYERS")
        .env("VK_DRIVER_FILES", LAVAPIPE_ICD)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "vkjson --aosp failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .unwrap_or_else(|| panic!("an object: {v}"))
        .keys()
        .cloned()
        .collect();
    k.sort();
    k
}

fn sorted(list: &[String]) -> Vec<String> {
    let mut l = list.to_vec();
    l.sort();
    l
}

fn is_hex64(v: &Value) -> bool {
    v.as_str().is_some_and(|s| {
        s.len() == 18 && s.starts_with("0x") && s[2..].bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// Members of vkjson structures that are structures themselves.
fn nested(key: &str) -> Option<&'static str> {
    Some(match key {
        "limits" => "VkPhysicalDeviceLimits",
        "sparseProperties" => "VkPhysicalDeviceSparseProperties",
        "memoryTypes" => "VkMemoryType",
        "memoryHeaps" => "VkMemoryHeap",
        "minImageTransferGranularity" => "VkExtent3D",
        "conformanceVersion" => "VkConformanceVersionKHR",
        _ => return None,
    })
}

/// `v` is a `ty` as vkjson writes it: exactly the schema's keys, nested structures too, and
/// only numbers, strings and arrays of them as leaves.
fn check_struct(a: &Aosp, ty: &str, v: &Value, at: &str) {
    let want = a
        .keys(ty)
        .unwrap_or_else(|| panic!("{at}: {ty} not in AOSP's schema"));
    assert_eq!(keys(v), sorted(want), "{at}: the members of {ty}");
    for (k, x) in v.as_object().unwrap() {
        let here = format!("{at}.{k}");
        match (nested(k), x) {
            (Some(t), Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    check_struct(a, t, item, &format!("{here}[{i}]"));
                }
            }
            (Some(t), _) => check_struct(a, t, x, &here),
            (None, Value::Number(n)) => assert!(n.is_f64(), "{here}: {n} is not a real"),
            (None, Value::String(_)) => {}
            (None, Value::Array(items)) => assert!(
                items.iter().all(Value::is_f64),
                "{here}: vkjson arrays of scalars hold reals"
            ),
            (None, other) => panic!("{here}: {other} is not a vkjson leaf"),
        }
    }
}

fn registry() -> vkgen::model::Registry {
    let (loaded, _) = vkgen::load(&vkgen::Options {
        registry: Some(vkgen::registry::DEBIAN_REGISTRY.into()),
        ..Default::default()
    })
    .expect("Debian's vk.xml (libvulkan-dev)");
    loaded.registry
}

#[test]
fn aosp_schema_field_by_field_on_lavapipe() {
    let reg = registry();
    let a = Aosp::new(&reg);
    assert!(a
        .keys("VkPhysicalDeviceLimits")
        .is_some_and(|k| k.len() == 106));
    let doc = lavapipe_aosp_vkjson();
    // A 1.2+ instance: every section of VkJsonInstance.
    assert_eq!(
        keys(&doc),
        [
            "_comment",
            "apiVersion",
            "deviceGroups",
            "devices",
            "extensions",
            "layers"
        ]
    );
    assert_eq!(doc["_comment"], AOSP_COMMENT);
    assert!(doc["apiVersion"]
        .as_f64()
        .is_some_and(|v| v >= f64::from(1 << 22 | 2 << 12)));
    assert!(doc["apiVersion"].is_f64(), "apiVersion as a real");
    for e in doc["extensions"].as_array().unwrap() {
        check_struct(&a, "VkExtensionProperties", e, "extensions[]");
    }
    for l in doc["layers"].as_array().unwrap() {
        assert_eq!(keys(l), ["extensions", "properties"]);
        check_struct(
            &a,
            "VkLayerProperties",
            &l["properties"],
            "layers[].properties",
        );
    }
    let groups = doc["deviceGroups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "lavapipe is one device in one group");
    assert_eq!(
        groups[0],
        serde_json::json!({"devices": [0.0], "subsetAllocation": 0.0})
    );

    let dev = &doc["devices"][0];
    let version = dev["properties"]["apiVersion"].as_f64().unwrap() as u32;
    let minor = (version >> 12) & 0x3ff;
    assert!(minor >= 2, "lavapipe is a 1.2+ device");
    let mut want: Vec<String> = [
        "properties",
        "features",
        "memory",
        "queues",
        "extensions",
        "layers",
        "formats",
        "externalFenceProperties",
        "externalSemaphoreProperties",
        "core11",
        "core12",
    ]
    .map(String::from)
    .to_vec();
    want.extend(a.core11.iter().map(|(k, _)| k.clone()));
    for m in 3..=minor {
        want.push(format!("core1{m}"));
    }
    let has = |name: &str| {
        dev["extensions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["extensionName"] == name)
    };
    want.extend(
        a.extensions
            .iter()
            .filter(|(k, _)| has(k))
            .map(|(k, _)| k.clone()),
    );
    assert_eq!(keys(dev), sorted(&want), "the device's sections");
    assert!(
        a.extensions.iter().filter(|(k, _)| has(k)).count() >= 10,
        "lavapipe reports most of vkjson's extension sections"
    );

    check_struct(
        &a,
        "VkPhysicalDeviceProperties",
        &dev["properties"],
        "properties",
    );
    check_struct(&a, "VkPhysicalDeviceFeatures", &dev["features"], "features");
    check_struct(
        &a,
        "VkPhysicalDeviceMemoryProperties",
        &dev["memory"],
        "memory",
    );
    for q in dev["queues"].as_array().unwrap() {
        check_struct(&a, "VkQueueFamilyProperties", q, "queues[]");
    }
    for e in dev["extensions"].as_array().unwrap() {
        check_struct(&a, "VkExtensionProperties", e, "device extensions[]");
    }
    for m in 1..=minor {
        let c = &dev[format!("core1{m}")];
        assert_eq!(keys(c), ["features", "properties"]);
        let p = format!("VkPhysicalDeviceVulkan1{m}Properties");
        let f = format!("VkPhysicalDeviceVulkan1{m}Features");
        check_struct(&a, &p, &c["properties"], &p);
        check_struct(&a, &f, &c["features"], &f);
    }
    for (k, ty) in &a.core11 {
        check_struct(&a, ty, &dev[k], k);
    }
    for (section, structs) in a.extensions.iter().filter(|(k, _)| has(k)) {
        let want: Vec<String> = structs.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(keys(&dev[section]), sorted(&want), "{section}");
        for (k, ty) in structs {
            check_struct(&a, ty, &dev[section][k], &format!("{section}.{k}"));
        }
    }
    // Maps are arrays of [key, value] pairs.
    let formats = dev["formats"].as_array().unwrap();
    assert!(formats.len() > 100);
    for pair in formats {
        assert!(pair[0].is_f64());
        assert!(pair[0].as_f64().map(|f| f as u64).is_some_and(
            |f| (1..=184).contains(&f) || (1_000_156_000..=1_000_156_033).contains(&f)
        ));
        check_struct(&a, "VkFormatProperties", &pair[1], "formats[][1]");
    }
    for (key, ty) in [
        ("externalFenceProperties", "VkExternalFenceProperties"),
        (
            "externalSemaphoreProperties",
            "VkExternalSemaphoreProperties",
        ),
    ] {
        for pair in dev[key].as_array().unwrap() {
            assert!(pair[0].is_f64());
            assert!(pair[0]
                .as_f64()
                .is_some_and(|b| (b as u64).is_power_of_two()));
            check_struct(&a, ty, &pair[1], key);
        }
    }

    // vkjson's encodings.
    let limits = &dev["properties"]["limits"];
    for k in [
        "bufferImageGranularity",
        "minMemoryMapAlignment",
        "nonCoherentAtomSize",
    ] {
        assert!(
            is_hex64(&limits[k]),
            "limits.{k} (uint64_t/size_t): {}",
            limits[k]
        );
    }
    assert!(is_hex64(&dev["memory"]["memoryHeaps"][0]["size"]));
    assert!(is_hex64(
        &dev["maintenance3Properties"]["maxMemoryAllocationSize"]
    ));
    assert_eq!(
        dev["features"]["robustBufferAccess"], 1.0,
        "VkBool32 as a real"
    );
    assert_eq!(
        dev["properties"]["deviceType"], 4.0,
        "VK_PHYSICAL_DEVICE_TYPE_CPU as a real"
    );
    assert!(dev["properties"]["deviceName"]
        .as_str()
        .is_some_and(|n| n.starts_with("llvmpipe")));
    assert_eq!(
        dev["properties"]["pipelineCacheUUID"]
            .as_array()
            .map(Vec::len),
        Some(16)
    );
    assert!(limits["maxComputeWorkGroupSize"]
        .as_array()
        .is_some_and(|a| a.len() == 3 && a.iter().all(Value::is_f64)));
    assert!(dev["queues"][0]["queueFlags"]
        .as_f64()
        .is_some_and(|f| f as u64 & 1 != 0));
}

/// The document's shape: objects as their keys' shapes, arrays as their first element's,
/// leaves as their JSON type.
fn shape(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), shape(x))).collect()),
        Value::Array(a) => Value::Array(a.first().map(shape).into_iter().collect()),
        Value::Number(_) => "number".into(),
        Value::String(_) => "string".into(),
        other => other.clone(),
    }
}

/// Through vkgen's own loader (the release `libvulkan.so`, no HAL driver) the device has the
/// same sections, structures and encodings as through Debian's: the schema does not depend on
/// the loader, and ours answers every query vkjson makes.
#[test]
fn aosp_schema_through_our_loader_matches_debians() {
    let ours = Path::new(env!("CARGO_BIN_EXE_vkgen"))
        .parent()
        .and_then(Path::parent)
        .expect("vkgen lives in <target>/<profile>/")
        .join("release/libvulkan.so");
    let root = tempfile::tempdir().unwrap();
    let props = root.path().join("build.prop");
    std::fs::write(&props, "# no HAL driver\n").unwrap();
    let doc = aosp_vkjson(
        &ours,
        &[
            ("VKGEN_HAL_ROOT", root.path()),
            ("VKGEN_PROPERTIES", &props),
        ],
    );
    let debian = lavapipe_aosp_vkjson();
    assert_eq!(keys(&doc), keys(&debian));
    let (a, b) = (&doc["devices"][0], &debian["devices"][0]);
    // Extension sections follow the extension lists, which may differ by loader; and through
    // ours lavapipe runs behind the host driver (`libvulkan_host.so`), which adds `SYNC_FD`
    // fence and semaphore export for Android's WSI, so the external fence and semaphore
    // lists may hold entries Debian's lacks. Those are checked against the schema's entry
    // shape; everything else must match.
    const EXTERNAL: [&str; 2] = ["externalFenceProperties", "externalSemaphoreProperties"];
    let without_sections = |d: &Value| {
        let mut d = shape(d);
        if let Value::Object(o) = &mut d {
            o.retain(|k, _| !k.starts_with("VK_") && !EXTERNAL.contains(&k.as_str()));
        }
        d
    };
    assert_eq!(without_sections(a), without_sections(b));
    for list in EXTERNAL {
        for entry in a[list].as_array().expect(list) {
            let pair = entry.as_array().expect("[handle type, properties]");
            assert!(
                pair.len() == 2 && pair[0].is_f64() && pair[1].is_object(),
                "{list}: {entry}"
            );
        }
    }
    for (k, v) in a
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.starts_with("VK_"))
    {
        assert_eq!(shape(v), shape(&b[k]), "{k}");
    }
}
