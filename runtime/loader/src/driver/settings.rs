//! What finding and opening drivers reads: the part of the loader's configuration
//! (`crate::config`) that [`super::load_drivers`], the HAL search and the linker depend on.

use std::path::PathBuf;
use std::sync::Arc;

use vkgen_platform::icd_manifest::IcdSearchConfig;

use super::linker::interface::Linker;
use crate::gpu_stats::StatsSettings;
use crate::properties::Properties;

/// The driver subsystem's settings.
#[derive(Debug, Clone)]
pub struct DriverSettings {
    /// The properties naming the HAL (`ro.hardware.vulkan`, `ro.board.platform`) and its APEX
    /// (`ro.vulkan.apex`).
    pub properties: Properties,
    /// Root the Android paths (`vendor/lib64/hw`, `apex/…`) are resolved under.
    pub hal_root: PathBuf,
    /// The updatable driver's dir (`GraphicsEnv::getDriverNamespace()`;
    /// `VKGEN_UPDATABLE_DRIVER_DIR` on hosts), searched before the APEX and sphal namespaces.
    pub updatable_driver_dir: Option<PathBuf>,
    /// Where Khronos ICD manifests are looked for on non-Android hosts.
    pub icd: IcdSearchConfig,
    /// ICDs are used as they are, never through the native-buffer adapter.
    pub without_adapter: bool,
    /// The dynamic linker drivers are loaded through; `None` is the platform's
    /// ([`super::linker::for_settings`]).
    pub linker: Option<Arc<dyn Linker>>,
    /// Where `Hal::Open`'s GraphicsEnv statistics go.
    pub gpu_stats: StatsSettings,
}

impl Default for DriverSettings {
    /// No properties, root `/`, no updatable driver, the standard ICD search path, the
    /// platform's linker and statistics.
    fn default() -> Self {
        Self {
            properties: Properties::empty(),
            hal_root: PathBuf::from("/"),
            updatable_driver_dir: None,
            icd: IcdSearchConfig::default(),
            without_adapter: false,
            linker: None,
            gpu_stats: StatsSettings::default(),
        }
    }
}
