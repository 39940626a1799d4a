//! `libvulkan.so`: an Android-style Vulkan loader written in Rust.
//!
//! The loader follows AOSP's `frameworks/native/vulkan/libvulkan` rather than the Khronos desktop
//! loader: one driver (an Android HAL module `vulkan.<name>.so`), layers discovered as
//! `libVkLayer*.so` files in the app's library directories (no JSON manifests), and layer
//! activation only through the app's `ppEnabledLayerNames` or, on debuggable builds, the
//! `debug.vulkan.*` properties. On a Linux host, where there is no HAL, the same code can instead
//! drive every Khronos ICD named by the usual manifests, so the loader is usable (and testable)
//! against lavapipe.
//!
//! Layout:
//! * [`logging`]: opt-in `log` backend (`VKGEN_LOG`).
//! * [`properties`]: Android system properties, or a build.prop file on hosts.
//! * [`driver`]: finding and opening drivers (HAL modules, Khronos ICDs) behind one [`driver::Driver`].
//! * [`layers`]: discovering layer libraries and choosing which ones an instance activates.
//!
//! Everything that reads the environment does so once, into a [`LoaderConfig`]; discovery
//! functions take that struct, so tests can describe a whole "device" (properties, HAL root, layer
//! dirs, ICD manifests) without touching process-global state.
//!
//! The loader core (what makes `libvulkan.so` a loader):
//! * [`api`]: the application-facing entry points the loader implements itself
//!   (`commands::LOADER_INTERCEPTED`): global queries, instance and device creation with their
//!   layer chains, and `vkGet{Instance,Device}ProcAddr`; and [`exports`] (`api::exports`): the
//!   exported symbols, the generated trampolines plus those entry points, and the name →
//!   function table `vkGetInstanceProcAddr` answers exported names from.
//! * [`terminator`]: the bottom of every call chain ("driver level"): creates one driver
//!   instance per driver, stamps the loader's data into dispatchable objects, filters
//!   extensions and hands out the drivers' own functions.
//! * [`dispatch_data`]: the per-instance and per-device data whose address is word 0 of every
//!   dispatchable object (the terminator's and the WSI's parts included), and the
//!   `vkSet*LoaderData` callbacks.
//! * `driver_handles`: loader handles resolved to the drivers' (physical device → driver
//!   instance and handle, command → dispatch-table slot), shared by the terminator and the WSI.
//! * [`chain`]: the `VkLayer{Instance,Device}CreateInfo` chain structs handed to layers.
//! * [`device_table`]: which names a device's dispatch table asks its chain for (the commands
//!   the device can expose) and the record `vkGetDeviceProcAddr` answers them from.
//! * [`extensions`]: which extensions are shown, hidden, renamed or passed to drivers.
//! * [`init`]: the once-per-process state (drivers, layer registry): Android's
//!   `EnsureInitialized`.
//! * `ffi`: panic containment and the two-call enumeration idiom.
//! * [`wsi`]: surfaces and swapchains on `ANativeWindow` over the driver's
//!   `VK_ANDROID_native_buffer` (Android's `swapchain.cpp`); the terminator hands out its
//!   functions for the WSI commands.
//!
//! Call flow (Android's model): an exported trampoline reads word 0 of its dispatchable
//! argument, which points at [`dispatch_data::InstanceData`] or [`dispatch_data::DeviceData`],
//! whose first field is the dispatch table filled from the head of the layer chain; the chain's
//! tail is [`terminator`], which returns the driver's own functions for everything it does not
//! need to intercept.

#![warn(clippy::undocumented_unsafe_blocks)]

pub mod api;
pub mod apk;
pub mod chain;
pub mod device_table;
pub mod dispatch_data;
pub mod driver;
pub(crate) mod driver_handles;
pub use api::exports;
pub mod extensions;
pub(crate) mod ffi;
pub mod gpu_stats;
pub mod graphics_env;
pub mod host_alloc;
pub mod init;
pub mod layers;
pub mod logging;
pub mod platform_symbols;
pub mod properties;
pub mod terminator;
pub mod trace;
pub mod wsi;

/// The generated tables and types the trampolines (`crate::vk`, `crate::dispatch`) and the rest
/// of the loader build on.
pub use vkgen_generated::{dispatch, vk};

use std::path::PathBuf;

pub use properties::Properties;

/// Root of the emulated Android filesystem (HAL modules, debug layer dir); `/` when unset.
pub const HAL_ROOT_ENV: &str = "VKGEN_HAL_ROOT";
/// `:`-separated app library dirs searched for `libVkLayer*.so` (Android's `getLayerPaths()`).
pub const APP_LAYER_PATH_ENV: &str = "VKGEN_APP_LAYER_PATH";
/// Host stand-in for Android's `Settings.Global` (`key=value` lines): the GPU debug settings
/// `enable_gpu_debug_layers`, `gpu_debug_app`, `gpu_debug_layers`, `gpu_debug_layer_app`.
pub const SETTINGS_ENV: &str = "VKGEN_SETTINGS";
/// The package name of the running app (what `gpu_debug_app` is compared with).
pub const APP_PACKAGE_ENV: &str = "VKGEN_APP_PACKAGE";
/// `1` when the running app is debuggable (its manifest's `android:debuggable`).
pub const APP_DEBUGGABLE_ENV: &str = "VKGEN_APP_DEBUGGABLE";

/// Everything discovery depends on, captured once.
#[derive(Debug, Clone)]
pub struct LoaderConfig {
    /// System properties (`ro.hardware.vulkan`, `debug.vulkan.layers`, ...).
    pub properties: Properties,
    /// Root the Android paths (`vendor/lib64/hw`, `data/local/debug/vulkan`) are resolved under.
    pub hal_root: PathBuf,
    /// The layer dirs after the debug one, in order: `GraphicsEnv::getLayerPaths()` split at
    /// `:` (the GPU debug layer apps' dirs, then the app's native library dirs; `<apk>!/<dir>`
    /// for a dir inside an APK).
    pub app_layer_path: Vec<PathBuf>,
    /// Whether the debug layer dir `/data/local/debug/vulkan` is searched and
    /// `debug.vulkan.enable_callback` applies (`GraphicsEnv::isDebuggable()`). `debug.vulkan.*` properties apply on any build (AOSP
    /// dropped that gate in 2020); layers still come only from the permitted dirs.
    pub debuggable: bool,
    /// `GraphicsEnv::getDebugLayers()`: the GPU debug settings' layers for this app.
    pub gpu_debug: layers::GpuDebug,
    /// The updatable driver's dir (`GraphicsEnv::getDriverNamespace()`;
    /// `VKGEN_UPDATABLE_DRIVER_DIR` on hosts), searched before the APEX and sphal namespaces.
    pub updatable_driver_dir: Option<PathBuf>,
    /// Where Khronos ICD manifests are looked for on non-Android hosts.
    pub icd: driver::icd::IcdSearchConfig,
    /// `VKGEN_ICD_ADAPTER=0`: ICDs are used as they are, never through the native-buffer
    /// adapter (`driver::adapter`, Linux hosts with the `desktop` feature).
    pub without_adapter: bool,
    /// Khronos layer manifests and `VK_INSTANCE_LAYERS` on non-Android hosts.
    pub host_layers: layers::HostLayers,
    /// Whether layer libraries found the Android way are asked
    /// `vkNegotiateLoaderLayerInterfaceVersion` ([`layers::Negotiation`]): never on Android
    /// (AOSP's loader never negotiates), by default on Linux hosts, where desktop layers answer
    /// the device queries only through their negotiated GIPA; `VKGEN_LAYER_NEGOTIATION=0` turns
    /// it off there to run AOSP's rule.
    pub layer_negotiation: layers::Negotiation,
    /// The dynamic linker drivers and layers are loaded through; `None` is the platform's
    /// (`driver::linker::for_config`). Tests put a recording double here.
    pub linker: Option<std::sync::Arc<dyn driver::linker::Linker>>,
    /// Where GraphicsEnv's GPU statistics go; `None` is the platform's
    /// (`gpu_stats::for_config`). Tests put a recording double here.
    pub gpu_stats: Option<std::sync::Arc<dyn gpu_stats::GpuStats>>,
}

impl Default for LoaderConfig {
    /// A release device with no properties, root `/`, no app layer dirs and the standard ICD
    /// search path (with no environment overrides).
    fn default() -> Self {
        Self {
            properties: Properties::empty(),
            hal_root: PathBuf::from("/"),
            app_layer_path: Vec::new(),
            debuggable: false,
            gpu_debug: layers::GpuDebug::default(),
            updatable_driver_dir: None,
            icd: driver::icd::IcdSearchConfig::default(),
            without_adapter: false,
            host_layers: layers::HostLayers::default(),
            layer_negotiation: layers::Negotiation::PLATFORM,
            linker: None,
            gpu_stats: None,
        }
    }
}

impl LoaderConfig {
    /// The production configuration on Android: system properties and GraphicsEnv
    /// ([`graphics_env`]), as AOSP's loader takes them. No environment variable is read: the
    /// host stand-ins below are compiled out (`crate::trusted_env` does not exist on Android
    /// builds, and `scripts/android-link-check` checks that no variable name is in the library).
    #[cfg(target_os = "android")]
    pub fn from_platform() -> Self {
        Self {
            properties: Properties::system().clone(),
            ..Self::default()
        }
        .with_graphics_env(&graphics_env::AndroidGraphicsEnv)
    }

    /// The production configuration on hosts: system properties (a build.prop file), the
    /// GraphicsEnv stand-in ([`graphics_env::HostGraphicsEnv::from_env`]) and the `VKGEN_*`,
    /// `VK_DRIVER_FILES`, `VK_ICD_FILENAMES` and XDG variables. Path-valued variables are ignored
    /// in setuid/setgid processes, like the Khronos loader's `loader_secure_getenv`.
    #[cfg(not(target_os = "android"))]
    pub fn from_platform() -> Self {
        let properties = Properties::system().clone();
        let hal_root = trusted_env_path(HAL_ROOT_ENV).unwrap_or_else(|| PathBuf::from("/"));
        let graphics_env = graphics_env::HostGraphicsEnv::from_env(&properties, &hal_root);
        Self {
            updatable_driver_dir: trusted_env_path(driver::hal::UPDATABLE_DRIVER_ENV),
            hal_root,
            icd: driver::icd::IcdSearchConfig::from_env(),
            without_adapter: trusted_env(driver::ADAPTER_ENV).is_some_and(|v| v == "0"),
            host_layers: layers::HostLayers::from_env(),
            layer_negotiation: layers::Negotiation::from_env(),
            properties,
            ..Self::default()
        }
        .with_graphics_env(&graphics_env)
    }
}

/// Variables that steer which code the loader `dlopen`s are read setuid-safely, and `:` lists
/// split without empty entries: the platform's rules, shared with the host driver.
///
/// Hosts only: an Android build reads no environment variable (everything comes from where AOSP
/// takes it), and without these names there is no way for its code to.
#[cfg(not(target_os = "android"))]
pub(crate) use vkgen_platform::env::{split_path_list, trusted_env, trusted_env_path};

/// Builds C fixtures (fake HAL modules, ICDs, layers) for the tests.
#[cfg(test)]
mod linker_tests;

#[cfg(test)]
mod hal_open_stats_tests;

#[cfg(test)]
pub(crate) mod testutil {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// A config rooted at `root` that sees no HAL, no layers and no ICD manifests unless the test
    /// puts them there: nothing leaks in from the machine or the environment.
    pub fn isolated_config(root: &Path) -> crate::LoaderConfig {
        // Lets `VKGEN_LOG=debug cargo test` show why fixtures were rejected.
        crate::logging::init();
        crate::LoaderConfig {
            hal_root: root.to_path_buf(),
            icd: crate::driver::icd::IcdSearchConfig::isolated(root),
            ..crate::LoaderConfig::default()
        }
    }

    /// Compiles `source` into `dir/name` as a shared library (`cc -shared -fPIC`), with only the
    /// symbols marked `EXPORT` visible, like a real driver built with `-fvisibility=hidden`.
    pub fn compile_so(dir: &Path, name: &str, source: &str) -> PathBuf {
        crate::logging::init();
        let src = dir.join(format!("{name}.c"));
        let out = dir.join(name);
        let full = format!(
            "#define EXPORT __attribute__((visibility(\"default\")))\n\
             #include <stdint.h>\n#include <stddef.h>\n#include <string.h>\n#include <stdio.h>\n{source}"
        );
        std::fs::write(&src, full).expect("write fixture source");
        let output = Command::new("cc")
            .args([
                "-shared",
                "-fPIC",
                "-fvisibility=hidden",
                "-O1",
                "-Wall",
                "-Werror",
            ])
            // Fixtures compile out parts of themselves per variant; leftovers are expected.
            .args(["-Wno-unused-function", "-Wno-unused-variable"])
            .arg("-Wl,-z,relro,-z,now")
            .arg("-o")
            .arg(&out)
            .arg(&src)
            .output()
            .expect("run cc (gcc must be installed for the loader tests)");
        assert!(
            output.status.success(),
            "cc failed for {name}:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        out
    }

    /// Minimal Vulkan declarations the C fixtures share (only what they use).
    pub const VK_DECLS: &str = r#"
typedef int32_t VkResult;
typedef void* VkInstance;
typedef void (*PFN_vkVoidFunction)(void);
#define VK_SUCCESS 0
#define VK_INCOMPLETE 5
#define VK_ERROR_INITIALIZATION_FAILED (-3)
#define VK_ERROR_LAYER_NOT_PRESENT (-6)
#define VK_ERROR_INCOMPATIBLE_DRIVER (-9)
#define VK_MAKE_API_VERSION(v, ma, mi, p) ((((uint32_t)(v)) << 29) | (((uint32_t)(ma)) << 22) | (((uint32_t)(mi)) << 12) | ((uint32_t)(p)))
typedef struct { char layerName[256]; uint32_t specVersion; uint32_t implementationVersion; char description[256]; } VkLayerProperties;
typedef struct { char extensionName[256]; uint32_t specVersion; } VkExtensionProperties;
"#;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_is_a_release_device() {
        let c = LoaderConfig::default();
        assert!(!c.debuggable);
        assert_eq!(c.hal_root, PathBuf::from("/"));
        assert!(c.app_layer_path.is_empty());
    }
}
