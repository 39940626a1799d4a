//! Why a layer library or a layer is unavailable ([`LayerError`]), and the one mapper of those
//! errors to a `VkResult`.

use std::path::PathBuf;

use ash::vk;

/// Why a layer library was rejected during discovery, or a layer could not be activated. All
/// variants map to `VK_ERROR_LAYER_NOT_PRESENT`: in every case the named layer is unavailable.
#[derive(Debug, thiserror::Error)]
pub enum LayerError {
    /// `dlopen` (or the app namespace's `OpenNativeLibraryInNamespace`) failed.
    #[error("layer library {}: dlopen failed: {source}", .path.display())]
    Open {
        path: PathBuf,
        source: crate::driver::linker::LinkError,
    },
    /// A library inside an APK could not be opened.
    #[error("layer library {}: {reason}", .path.display())]
    ApkOpen { path: PathBuf, reason: String },
    /// A required export (`vkEnumerateInstanceLayerProperties`,
    /// `vkEnumerateInstanceExtensionProperties`) is missing.
    #[error("layer library {}: missing required export {symbol}", .path.display())]
    MissingExport { path: PathBuf, symbol: &'static str },
    /// An enumeration call failed.
    #[error("layer library {}: {what} failed: {result:?}", .path.display())]
    Enumeration {
        path: PathBuf,
        what: String,
        result: vk::Result,
    },
    /// An enumeration call reported an implausible count (corrupt library).
    #[error("layer library {}: {what} reported {count} entries", .path.display())]
    TooMany {
        path: PathBuf,
        what: String,
        count: u32,
    },
    /// The library enumerates no instance layers.
    #[error("layer library {}: contains no layers", .path.display())]
    NoLayers { path: PathBuf },
    /// A layer name is not NUL-terminated within `VK_MAX_EXTENSION_NAME_SIZE`.
    #[error("layer library {}: a layer name is not NUL-terminated", .path.display())]
    BadLayerName { path: PathBuf },
    /// `vkNegotiateLoaderLayerInterfaceVersion` failed or answered an unsupported version.
    #[error("layer library {}: interface negotiation failed: {result:?} (version {version})", .path.display())]
    Negotiation {
        path: PathBuf,
        result: vk::Result,
        version: u32,
    },
    /// No `<layer>GetInstanceProcAddr`, negotiated GIPA or `vkGetInstanceProcAddr`: the layer
    /// could never be put in a chain.
    #[error("layer {layer} in {}: no GetInstanceProcAddr", .path.display())]
    NoGetInstanceProcAddr { path: PathBuf, layer: String },
    /// A Khronos manifest layer's library could not be loaded when an instance activated it.
    #[error("layer {name} could not be loaded: {reason}")]
    HostLoad { name: String, reason: String },
    /// Activation: a requested layer was not discovered.
    #[error("layer {name} not present")]
    NotPresent { name: String },
    /// Activation: a requested name contains a path component; layers are only ever loaded from
    /// the discovery dirs.
    #[error("layer name {name:?} contains a path separator; layers are only loaded by name")]
    PathInName { name: String },
}

/// The one mapper of layer errors: every [`LayerError`] (a library that fails to load or lacks
/// its entry points, a name not discovered, a name with a path in it) is
/// `VK_ERROR_LAYER_NOT_PRESENT` — the layer the application asked for is not there to chain.
/// Logged here.
pub fn map_layer_err(err: &LayerError) -> vk::Result {
    vkgen_abi::vk_error!(vk::Result::ERROR_LAYER_NOT_PRESENT, "{err}")
}
