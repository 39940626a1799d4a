//! What layer discovery reads: the part of the loader's configuration (`crate::config`) that
//! [`super::LayerRegistry::discover`] depends on.

use std::path::PathBuf;
use std::sync::Arc;

use super::entry_points::Negotiation;
use super::manifest::HostLayers;
use crate::driver::linker::{self, Linker};
use crate::driver::DriverSettings;

/// The layer subsystem's settings.
#[derive(Debug, Clone)]
pub struct LayerSettings {
    /// Root the debug layer dir (`data/local/debug/vulkan`) is resolved under.
    pub hal_root: PathBuf,
    /// The layer dirs after the debug one, in order (`GraphicsEnv::getLayerPaths()`).
    pub app_layer_path: Vec<PathBuf>,
    /// Whether the debug layer dir is searched (`GraphicsEnv::isDebuggable()`).
    pub debuggable: bool,
    /// Khronos layer manifests on non-Android hosts.
    pub host_layers: HostLayers,
    /// Whether layer libraries found the Android way are asked to negotiate.
    pub negotiation: Negotiation,
    /// The linker layer libraries are opened through (the drivers' one).
    pub linker: Arc<dyn Linker>,
}

impl Default for LayerSettings {
    /// A release device with root `/`, no app layer dirs and the platform's linker.
    fn default() -> Self {
        Self {
            hal_root: PathBuf::from("/"),
            app_layer_path: Vec::new(),
            debuggable: false,
            host_layers: HostLayers::default(),
            negotiation: Negotiation::PLATFORM,
            linker: linker::for_settings(&DriverSettings::default()),
        }
    }
}
