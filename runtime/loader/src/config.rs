//! [`LoaderConfig`]: the one set of knobs an embedder or a test describes a whole "device" with
//! (properties, HAL root, layer dirs, ICD manifests, test doubles), read once from the platform
//! ([`LoaderConfig::from_platform`]) and split here into each subsystem's own settings
//! ([`LoaderConfig::driver_settings`], [`LoaderConfig::layer_settings`],
//! [`LoaderConfig::stats_settings`]). The subsystems never see the whole: each takes only what
//! it reads, so what a subsystem depends on is in its signature.

use std::path::PathBuf;
use std::sync::Arc;

use crate::driver::linker::{self, Linker};
use crate::driver::{icd::IcdSearchConfig, DriverSettings};
use crate::gpu_stats::{GpuStats, StatsSettings};
use crate::graphics_env::GraphicsEnv;
use crate::layers::{GpuDebug, HostLayers, LayerSettings, Negotiation};
use crate::properties::Properties;

/// Root of the emulated Android filesystem (HAL modules, debug layer dir); `/` when unset.
pub const HAL_ROOT_ENV: &str = "VKGEN_HAL_ROOT";

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
    pub gpu_debug: GpuDebug,
    /// The updatable driver's dir (`GraphicsEnv::getDriverNamespace()`;
    /// `VKGEN_UPDATABLE_DRIVER_DIR` on hosts), searched before the APEX and sphal namespaces.
    pub updatable_driver_dir: Option<PathBuf>,
    /// Where Khronos ICD manifests are looked for on non-Android hosts.
    pub icd: IcdSearchConfig,
    /// `VKGEN_ICD_ADAPTER=0`: ICDs are used as they are, never through the native-buffer
    /// adapter (`driver::adapter`, Linux hosts with the `desktop` feature).
    pub without_adapter: bool,
    /// Khronos layer manifests and `VK_INSTANCE_LAYERS` on non-Android hosts.
    pub host_layers: HostLayers,
    /// Whether layer libraries found the Android way are asked
    /// `vkNegotiateLoaderLayerInterfaceVersion` ([`Negotiation`]): never on Android
    /// (AOSP's loader never negotiates), by default on Linux hosts, where desktop layers answer
    /// the device queries only through their negotiated GIPA; `VKGEN_LAYER_NEGOTIATION=0` turns
    /// it off there to run AOSP's rule.
    pub layer_negotiation: Negotiation,
    /// The dynamic linker drivers and layers are loaded through; `None` is the platform's
    /// ([`linker::for_settings`]). Tests put a recording double here.
    pub linker: Option<Arc<dyn Linker>>,
    /// Where GraphicsEnv's GPU statistics go; `None` is the platform's
    /// ([`crate::gpu_stats::for_settings`]). Tests put a recording double here.
    pub gpu_stats: Option<Arc<dyn GpuStats>>,
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
            gpu_debug: GpuDebug::default(),
            updatable_driver_dir: None,
            icd: IcdSearchConfig::default(),
            without_adapter: false,
            host_layers: HostLayers::default(),
            layer_negotiation: Negotiation::PLATFORM,
            linker: None,
            gpu_stats: None,
        }
    }
}

impl LoaderConfig {
    /// The production configuration on Android: system properties and GraphicsEnv
    /// ([`crate::graphics_env`]), as AOSP's loader takes them. No environment variable is read:
    /// the host stand-ins below are compiled out (`crate::host_env` does not exist on Android
    /// builds, and `scripts/android-link-check` checks that no variable name is in the library).
    #[cfg(target_os = "android")]
    pub fn from_platform() -> Self {
        Self {
            properties: Properties::system().clone(),
            ..Self::default()
        }
        .with_graphics_env(&crate::graphics_env::AndroidGraphicsEnv)
    }

    /// The production configuration on hosts: system properties (a build.prop file), the
    /// GraphicsEnv stand-in ([`crate::graphics_env::HostGraphicsEnv::from_env`]) and the
    /// `VKGEN_*`, `VK_DRIVER_FILES`, `VK_ICD_FILENAMES` and XDG variables. Path-valued variables
    /// are ignored in setuid/setgid processes, like the Khronos loader's `loader_secure_getenv`.
    #[cfg(not(target_os = "android"))]
    pub fn from_platform() -> Self {
        use crate::driver::{hal_search::UPDATABLE_DRIVER_ENV, ADAPTER_ENV};
        use crate::host_env::{trusted_env, trusted_env_path};
        let properties = Properties::system().clone();
        let hal_root = trusted_env_path(HAL_ROOT_ENV).unwrap_or_else(|| PathBuf::from("/"));
        let graphics_env = crate::graphics_env::HostGraphicsEnv::from_env(&properties, &hal_root);
        Self {
            updatable_driver_dir: trusted_env_path(UPDATABLE_DRIVER_ENV),
            hal_root,
            icd: IcdSearchConfig::from_env(),
            without_adapter: trusted_env(ADAPTER_ENV).is_some_and(|v| v == "0"),
            host_layers: HostLayers::from_env(),
            layer_negotiation: Negotiation::from_env(),
            properties,
            ..Self::default()
        }
        .with_graphics_env(&graphics_env)
    }

    /// `self` with what `env` says of layers: whether the debug layer dir is searched, the
    /// layer dirs and the GPU debug layers, asked in AOSP's order (`isDebuggable()`,
    /// `getLayerPaths()`, `getDebugLayers()`).
    pub fn with_graphics_env(mut self, env: &dyn GraphicsEnv) -> Self {
        self.debuggable = env.is_debuggable();
        // `android::base::Split` keeps empty entries; `opendir("")` fails, so dropping them is
        // the same.
        self.app_layer_path = env
            .layer_paths()
            .split(':')
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .collect();
        self.gpu_debug = GpuDebug::from_debug_layers(&env.debug_layers());
        self
    }

    /// What finding and opening drivers reads ([`crate::driver`]).
    pub fn driver_settings(&self) -> DriverSettings {
        DriverSettings {
            properties: self.properties.clone(),
            hal_root: self.hal_root.clone(),
            updatable_driver_dir: self.updatable_driver_dir.clone(),
            icd: self.icd.clone(),
            without_adapter: self.without_adapter,
            linker: self.linker.clone(),
            gpu_stats: self.stats_settings(),
        }
    }

    /// What layer discovery reads ([`crate::layers::LayerRegistry::discover`]), with the linker
    /// the drivers' settings choose (layers are opened through the same one).
    pub fn layer_settings(&self) -> LayerSettings {
        LayerSettings {
            hal_root: self.hal_root.clone(),
            app_layer_path: self.app_layer_path.clone(),
            debuggable: self.debuggable,
            host_layers: self.host_layers.clone(),
            negotiation: self.layer_negotiation,
            linker: linker::for_settings(&self.driver_settings()),
        }
    }

    /// Where GraphicsEnv's statistics go ([`crate::gpu_stats`]).
    pub fn stats_settings(&self) -> StatsSettings {
        StatsSettings {
            sink: self.gpu_stats.clone(),
        }
    }
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

    #[test]
    fn each_subsystem_gets_its_part() {
        let c = LoaderConfig {
            hal_root: PathBuf::from("/r"),
            app_layer_path: vec![PathBuf::from("/app/lib")],
            debuggable: true,
            updatable_driver_dir: Some(PathBuf::from("/u")),
            without_adapter: true,
            ..LoaderConfig::default()
        };
        let d = c.driver_settings();
        assert_eq!(d.hal_root, PathBuf::from("/r"));
        assert_eq!(d.updatable_driver_dir, Some(PathBuf::from("/u")));
        assert!(d.without_adapter);
        let l = c.layer_settings();
        assert_eq!(l.hal_root, PathBuf::from("/r"));
        assert_eq!(l.app_layer_path, [PathBuf::from("/app/lib")]);
        assert!(l.debuggable);
        assert!(c.stats_settings().sink.is_none());
    }
}
