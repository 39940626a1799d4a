//! Where the HAL driver is looked for (`driver.cpp`'s `Hal::Open` search); [`super::hal`]
//! opens what is found, through [`super::linker`]. On Android the linker's namespaces decide
//! the dirs; the dirs below are what [`super::linker::HostLinker`] stands in with on other hosts
//! (and what [`candidates`] lists).
//!
//! **Where** (`Hal::Open`): three namespaces in order, each tried only when the one before found
//! nothing (`-ENOENT`): the updatable driver's (`GraphicsEnv::getDriverNamespace()`; host
//! stand-in: the dir in `VKGEN_UPDATABLE_DRIVER_DIR`), the APEX's (`ro.vulkan.apex`, `.` → `_`;
//! stand-in: `<root>/apex/<ro.vulkan.apex>/lib64`), then the sphal namespace, whose search path
//! is `/odm/lib64`, `/vendor/lib64`, `/vendor/lib64/egl`, `/vendor/lib64/hw` (`lib` for 32-bit
//! processes). In each, every property value is tried in turn, and for one value every dir of
//! the namespace. An updatable driver that is configured but cannot be loaded is fatal
//! (AOSP aborts the process with `LOG_ALWAYS_FATAL`; vkgen never crashes, so
//! `vkCreateInstance` fails with `VK_ERROR_INITIALIZATION_FAILED` instead).
//!
//! The search itself ([`load_with`]) is here too, with AOSP's trace sections
//! ([`crate::trace`]) and GraphicsEnv statistics ([`crate::gpu_stats`]) at `Hal::Open`'s sites.

use std::path::PathBuf;

use super::hal::{HalDriver, HalError};
use super::layout::LIB;
pub use super::layout::{sphal_dirs, HAL_DIR};
use super::linker::interface::{Linker, LinkerNamespace, Opened};
use super::settings::DriverSettings;
use crate::gpu_stats::{self, Api, Driver, GpuStats, StatsCall};
use crate::trace;

/// Properties naming the driver, in lookup order (`HAL_SUBNAME_KEY_PROPERTIES`).
pub const HAL_SUBNAME_KEY_PROPERTIES: [&str; 2] = ["ro.hardware.vulkan", "ro.board.platform"];

/// Host stand-in for `GraphicsEnv::getDriverNamespace()`: the updatable driver's dir.
pub const UPDATABLE_DRIVER_ENV: &str = "VKGEN_UPDATABLE_DRIVER_DIR";

/// One of `Hal::Open`'s namespaces: where it searches and whether finding nothing is fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    /// For logs: "updatable", "apex `<name>`", "sphal".
    pub name: String,
    /// Its search path.
    pub dirs: Vec<PathBuf>,
    /// An updatable driver namespace that yields no driver is fatal.
    pub required: bool,
}

/// The module file names to try, in order: `vulkan.<ro.hardware.vulkan>.so`, then
/// `vulkan.<ro.board.platform>.so`. Empty values are skipped, as in Android; values containing
/// `/` are skipped too, since they would escape the namespace's dirs.
pub fn module_names(config: &DriverSettings) -> Vec<String> {
    HAL_SUBNAME_KEY_PROPERTIES
        .iter()
        .filter_map(|key| {
            let value = config.properties.get(key)?.trim();
            if value.is_empty() {
                return None;
            }
            if value.contains('/') || value == ".." {
                log::warn!("{key}={value:?} ignored: not a plain module name");
                return None;
            }
            Some(format!("vulkan.{value}.so"))
        })
        .collect()
}

/// `Hal::Open`'s namespaces for this configuration, in order (see the module docs).
pub fn namespaces(config: &DriverSettings) -> Vec<Namespace> {
    let mut list = Vec::new();
    if let Some(dir) = &config.updatable_driver_dir {
        list.push(Namespace {
            name: "updatable".into(),
            dirs: vec![dir.clone()],
            required: true,
        });
    }
    if let Some(apex) = config.properties.get("ro.vulkan.apex").map(str::trim) {
        if !apex.is_empty() && !apex.contains('/') && apex != ".." {
            // Android's namespace name is the APEX name with `.` → `_`; its files live under
            // /apex/<name>/lib64.
            list.push(Namespace {
                name: format!("apex {}", apex.replace('.', "_")),
                dirs: vec![config.hal_root.join("apex").join(apex).join(LIB)],
                required: false,
            });
        }
    }
    list.push(Namespace {
        name: "sphal".into(),
        dirs: sphal_dirs()
            .iter()
            .map(|d| config.hal_root.join(d))
            .collect(),
        required: false,
    });
    list
}

/// The module files to try, in order: per namespace, per module name, per dir.
pub fn candidates(config: &DriverSettings) -> Vec<PathBuf> {
    let names = module_names(config);
    namespaces(config)
        .iter()
        .flat_map(|ns| {
            names
                .iter()
                .flat_map(move |n| ns.dirs.iter().map(move |d| d.join(n)))
        })
        .collect()
}

/// Finds and opens the HAL driver through the configured linker ([`super::linker`]).
pub fn load(config: &DriverSettings) -> Result<HalDriver, HalError> {
    load_with(config, &*super::linker::for_settings(config))
}

/// `Hal::Open`: the library `find` loads is checked and its device opened; a driver
/// namespace that yields no usable module is fatal. As AOSP, the whole is the trace section
/// `Open`, and GraphicsEnv learns whether a driver loaded and how long it took
/// (`setDriverLoaded`).
pub fn load_with(config: &DriverSettings, linker: &dyn Linker) -> Result<HalDriver, HalError> {
    let _trace = trace::section("Open");
    let start = std::time::Instant::now();
    let stats = gpu_stats::for_settings(&config.gpu_stats);
    let result = find(config, linker, &*stats).and_then(|found| match found {
        Found::Updatable(opened) => {
            // `LoadUpdatedDriver` is fatal for any non-zero result, a module that is no HAL
            // (`-EINVAL`) included.
            let path = opened.path.clone();
            load_opened(opened).map_err(|e| {
                if e.is_fatal() {
                    e
                } else {
                    HalError::UpdatableDriverMissing { tried: vec![path] }
                }
            })
        }
        Found::Other(opened) => load_opened(opened),
    });
    stats.record(StatsCall::DriverLoaded {
        api: Api::Vk,
        loaded: result.is_ok(),
        loading_time_ns: i64::try_from(start.elapsed().as_nanos()).unwrap_or(i64::MAX),
    });
    result
}

/// A library [`find`] loaded, and from where.
enum Found {
    /// From the updatable driver's namespace.
    Updatable(Opened),
    /// From the APEX's or the sphal namespace.
    Other(Opened),
}

/// `Hal::Open`'s search: the updatable driver (`LoadUpdatedDriver`), then the APEX's
/// (`LoadDriverFromApex`), then the built-in one (`LoadBuiltinDriver`), each only when the one
/// before loaded no library (`-ENOENT`), each its own trace section with `LoadDriver` inside and
/// each telling GraphicsEnv the driver it is about to load (`setDriverToLoad`). A library that
/// loads is the module, and any problem with it is final (AOSP's `-EINVAL` stops the search
/// too).
fn find(
    config: &DriverSettings,
    linker: &dyn Linker,
    stats: &dyn GpuStats,
) -> Result<Found, HalError> {
    let names = module_names(config);
    let mut tried = Vec::new();
    {
        let _trace = trace::section("LoadUpdatedDriver");
        if let Some(ns) = linker.driver_namespace() {
            stats.record(StatsCall::DriverToLoad(Driver::VulkanUpdated));
            return load_in_namespace(&names, linker, &ns, &mut tried)
                .map(Found::Updatable)
                .ok_or(HalError::UpdatableDriverMissing { tried });
        }
    }
    let apex = config
        .properties
        .get(RO_VULKAN_APEX)
        .map(|a| a.replace('.', "_"))
        .filter(|a| !a.is_empty());
    {
        let _trace = trace::section("LoadDriverFromApex");
        if let Some(ns) = apex.and_then(|a| linker.exported_namespace(&a)) {
            stats.record(StatsCall::DriverToLoad(Driver::Vulkan));
            if let Some(opened) = load_in_namespace(&names, linker, &ns, &mut tried) {
                return Ok(Found::Other(opened));
            }
        }
    }
    let _trace = trace::section("LoadBuiltinDriver");
    stats.record(StatsCall::DriverToLoad(Driver::Vulkan));
    let _load = trace::section("LoadDriver");
    for name in &names {
        match linker.load_sphal_library(name) {
            Ok(opened) => {
                log::info!(
                    "HAL driver {} from the sphal namespace",
                    opened.path.display()
                );
                return Ok(Found::Other(opened));
            }
            Err(e) => {
                log::debug!("HAL {name} (sphal): {e}");
                tried.extend(e.tried);
            }
        }
    }
    Err(HalError::NotFound { tried })
}

/// The property naming the Vulkan APEX (`RO_VULKAN_APEX_PROPERTY`).
const RO_VULKAN_APEX: &str = "ro.vulkan.apex";

/// `LoadDriver` with a namespace: each module name through `android_dlopen_ext`.
fn load_in_namespace(
    names: &[String],
    linker: &dyn Linker,
    ns: &LinkerNamespace,
    tried: &mut Vec<PathBuf>,
) -> Option<Opened> {
    let _trace = trace::section("LoadDriver");
    for name in names {
        match linker.dlopen_ext(name, ns) {
            Ok(opened) => {
                log::info!(
                    "HAL driver {} from the {} namespace",
                    opened.path.display(),
                    ns.name
                );
                return Some(opened);
            }
            Err(e) => {
                log::error!("Could not load {name} from {} namespace: {e}.", ns.name);
                tried.extend(e.tried);
            }
        }
    }
    None
}

fn load_opened(opened: Opened) -> Result<HalDriver, HalError> {
    super::hal::load_module(&opened.path, opened.library)
}
