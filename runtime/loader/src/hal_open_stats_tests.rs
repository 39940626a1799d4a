//! AOSP's trace sections and GraphicsEnv statistics around `Hal::Open`, asserted through the
//! recording doubles ([`crate::trace::record`], [`RecordingStats`]) for each way the search
//! ends: the built-in HAL, the APEX's, the updatable driver (found or missing), and none.

use std::path::Path;
use std::sync::Arc;

use crate::config::LoaderConfig;
use crate::driver::hal::tests::build_hal;
use crate::driver::hal_search::load;
use crate::gpu_stats::{Api, Driver, GpuStats, RecordingStats, StatsCall};
use crate::properties::Properties;
use crate::testutil::isolated_config;

/// The APEX's library dir, as the host linker lays it out (`lib64` in 64-bit processes).
const LIB: &str = if cfg!(target_pointer_width = "64") {
    "lib64"
} else {
    "lib"
};

/// A configuration (module names `a` then `b`, plus `extra`) whose statistics are recorded.
fn recorded(root: &Path, extra: &[(&str, &str)]) -> (LoaderConfig, Arc<RecordingStats>) {
    let mut pairs = vec![("ro.hardware.vulkan", "a"), ("ro.board.platform", "b")];
    pairs.extend_from_slice(extra);
    let stats = Arc::new(RecordingStats::new());
    let config = LoaderConfig {
        properties: Properties::from_pairs(pairs),
        gpu_stats: Some(Arc::clone(&stats) as Arc<dyn GpuStats>),
        ..isolated_config(root)
    };
    (config, stats)
}

/// `load(&config.driver_settings())`'s trace sections, as `B name` / `E`, and whether a driver loaded.
fn sections(config: &LoaderConfig) -> (bool, Vec<String>) {
    let pid = std::process::id();
    let (loaded, markers) = crate::trace::record(|| load(&config.driver_settings()).is_ok());
    let shown = markers
        .iter()
        .map(|m| match m.strip_prefix(&format!("B|{pid}|")) {
            Some(name) => format!("B {name}"),
            None => {
                assert_eq!(m, &format!("E|{pid}"));
                "E".to_owned()
            }
        })
        .collect();
    (loaded, shown)
}

/// The statistics, with `setDriverLoaded`'s time checked (non-negative) and then zeroed.
fn calls(stats: &RecordingStats) -> Vec<StatsCall> {
    stats
        .take()
        .into_iter()
        .map(|call| match call {
            StatsCall::DriverLoaded {
                api,
                loaded,
                loading_time_ns,
            } => {
                assert!(loading_time_ns >= 0);
                StatsCall::DriverLoaded {
                    api,
                    loaded,
                    loading_time_ns: 0,
                }
            }
            other => other,
        })
        .collect()
}

fn loaded(yes: bool) -> StatsCall {
    StatsCall::DriverLoaded {
        api: Api::Vk,
        loaded: yes,
        loading_time_ns: 0,
    }
}

#[test]
fn built_in_hal_open_is_traced_and_reported() {
    let root = tempfile::tempdir().unwrap();
    build_hal(root.path(), "b", &[]);
    let (config, stats) = recorded(root.path(), &[]);
    let (ok, markers) = sections(&config);
    assert!(ok);
    assert_eq!(
        markers,
        [
            "B Open",
            "B LoadUpdatedDriver",
            "E",
            "B LoadDriverFromApex",
            "E",
            "B LoadBuiltinDriver",
            "B LoadDriver",
            "E",
            "E",
            "B hwvulkan module open",
            "E",
            "E",
        ]
    );
    assert_eq!(
        calls(&stats),
        [StatsCall::DriverToLoad(Driver::Vulkan), loaded(true)]
    );
}

/// An APEX namespace without the module: `LoadDriverFromApex` and then `LoadBuiltinDriver`
/// each say VULKAN, as AOSP's do; with the module there, only the APEX's does.
#[test]
fn apex_driver_is_reported_as_vulkan() {
    let root = tempfile::tempdir().unwrap();
    let (built_in, _) = build_hal(root.path(), "a", &[]);
    let apex = root.path().join(format!("apex/com.x.vulkan/{LIB}"));
    std::fs::create_dir_all(&apex).unwrap();
    let (config, stats) = recorded(root.path(), &[("ro.vulkan.apex", "com.x.vulkan")]);
    assert!(sections(&config).0);
    assert_eq!(
        calls(&stats),
        [
            StatsCall::DriverToLoad(Driver::Vulkan),
            StatsCall::DriverToLoad(Driver::Vulkan),
            loaded(true)
        ]
    );
    std::fs::copy(&built_in, apex.join("vulkan.a.so")).unwrap();
    let (ok, markers) = sections(&config);
    assert!(ok);
    assert_eq!(
        markers,
        [
            "B Open",
            "B LoadUpdatedDriver",
            "E",
            "B LoadDriverFromApex",
            "B LoadDriver",
            "E",
            "E",
            "B hwvulkan module open",
            "E",
            "E",
        ]
    );
    assert_eq!(
        calls(&stats),
        [StatsCall::DriverToLoad(Driver::Vulkan), loaded(true)]
    );
}

#[test]
fn updatable_driver_is_reported_as_vulkan_updated() {
    let root = tempfile::tempdir().unwrap();
    let (built_in, _) = build_hal(root.path(), "a", &[]);
    let updatable = root.path().join("updatable");
    std::fs::create_dir_all(&updatable).unwrap();
    let config = LoaderConfig {
        updatable_driver_dir: Some(updatable.clone()),
        ..recorded(root.path(), &[]).0
    };
    let stats = Arc::new(RecordingStats::new());
    let config = LoaderConfig {
        gpu_stats: Some(Arc::clone(&stats) as Arc<dyn GpuStats>),
        ..config
    };
    let (ok, markers) = sections(&config);
    assert!(!ok, "a missing updatable driver is fatal");
    assert_eq!(
        markers,
        [
            "B Open",
            "B LoadUpdatedDriver",
            "B LoadDriver",
            "E",
            "E",
            "E"
        ]
    );
    assert_eq!(
        calls(&stats),
        [
            StatsCall::DriverToLoad(Driver::VulkanUpdated),
            loaded(false)
        ]
    );
    std::fs::copy(&built_in, updatable.join("vulkan.a.so")).unwrap();
    assert!(sections(&config).0);
    assert_eq!(
        calls(&stats),
        [StatsCall::DriverToLoad(Driver::VulkanUpdated), loaded(true)]
    );
}

/// No module anywhere: AOSP's stub HAL, `setDriverLoaded(API_VK, false, …)`.
#[test]
fn no_hal_is_reported_as_not_loaded() {
    let root = tempfile::tempdir().unwrap();
    let (config, stats) = recorded(root.path(), &[]);
    let (ok, markers) = sections(&config);
    assert!(!ok);
    assert_eq!(markers.first().map(String::as_str), Some("B Open"));
    assert!(!markers.iter().any(|m| m == "B hwvulkan module open"));
    assert_eq!(
        calls(&stats),
        [StatsCall::DriverToLoad(Driver::Vulkan), loaded(false)]
    );
}

/// A device without one of the platform functions (here `android_load_sphal_library`): the
/// loader does not fall back to the stub HAL (zero GPUs) but fails to initialise, naming the
/// symbol, before any driver is looked for.
#[test]
fn a_missing_platform_symbol_fails_initialisation_naming_it() {
    let root = tempfile::tempdir().unwrap();
    build_hal(root.path(), "a", &[]);
    let (mut config, _stats) = recorded(root.path(), &[]);
    let linker = Arc::new(
        crate::driver::linker::RecordingLinker::new(&config.driver_settings())
            .missing_platform_symbol(crate::platform_symbols::MissingSymbol {
                library: "libvndksupport.so".into(),
                symbol: "android_load_sphal_library".into(),
                reason: "dlsym returned null".into(),
            }),
    );
    config.linker = Some(linker.clone());
    let loader = crate::init::Loader::load(config.clone());
    let failure = loader.drivers.as_ref().unwrap_err();
    assert_eq!(failure.result, ash::vk::Result::ERROR_INITIALIZATION_FAILED);
    assert!(
        failure.message.contains("android_load_sphal_library")
            && failure.message.contains("libvndksupport.so"),
        "{}",
        failure.message
    );
    assert!(
        !linker
            .take()
            .iter()
            .any(|c| c.starts_with("android_load_sphal_library")),
        "no driver is looked for"
    );
    // With the platform complete the same device loads its HAL.
    config.linker = Some(Arc::new(crate::driver::linker::RecordingLinker::new(
        &config.driver_settings(),
    )));
    assert!(crate::init::Loader::load(config).drivers.is_ok());
}
