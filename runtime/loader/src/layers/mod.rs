//! Android's layer model: layer libraries found by file name, activated by name.
//!
//! There are no JSON manifests. [`discovery`] scans the app's library dirs (and, on debuggable
//! builds, `/data/local/debug/vulkan`, and the GPU debug settings' layer apps) for
//! `libVkLayer*.so`, opens each library and asks it which layers it contains through its exported
//! `vkEnumerate*` functions. [`activation`] turns the app's `ppEnabledLayerNames` plus the
//! [`gpu_debug`] settings or the `debug.vulkan.*` properties into an ordered list of those layers.
//!
//! The result is a [`LayerRegistry`] of [`Layer`]s. As AOSP's `LayerLibrary` does, discovery
//! opens each library, enumerates it and closes it again: the registry's layers are *closed*
//! (their properties and extension lists only). Activating a layer ([`Layer::open`]) opens its
//! library again and resolves its entry points; the opened layer keeps the library mapped (an
//! `Arc<LayerLibrary>` shared by the layers of one opening) as long as any `Arc<Layer>` of it
//! lives, so the last instance (and its devices) using a library unloads it: `dlopen` keeps the
//! count AOSP's `LayerLibrary::refcount_` keeps.
//! The instance/device chain builder only needs each layer's properties, extension lists and
//! `Get*ProcAddr` pointers, which is what [`Layer`] exposes.

pub mod activation;
#[cfg(test)]
pub(crate) mod apk_tests;
pub mod discovery;
mod entry_points;
pub mod filters;
pub mod gpu_debug;
pub mod host;
pub mod manifest;
pub mod pre_instance;
mod settings;

use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ash::vk;
use libloading::os::unix::Library;
use vkgen_abi::layer::PFN_GetPhysicalDeviceProcAddr;

pub use activation::{activate, property_layer_names, requested_layer_names};
pub use discovery::{layer_files, load_layer_library, search_dirs, Negotiation};
use filters::LayerFilters;
pub use gpu_debug::{AppIdentity, FrameworkSetup, GpuDebug};
pub use host::HostLayer;
pub use manifest::{HostLayers, LayerEnv};
pub use settings::LayerSettings;

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

/// An opened layer library, shared by the layers it contains.
pub struct LayerLibrary {
    path: PathBuf,
    interface_version: Option<u32>,
    /// Never read: holding it keeps the code behind every [`Layer`] pointer mapped. `None` for
    /// the closed layers of the registry.
    _library: Option<Library>,
    /// How to open the library again after it was closed (discovery's way); `None`: `dlopen`.
    reopen: Option<discovery::Reopen>,
    /// Whether it was (and, reopened, is again) asked to negotiate.
    negotiation: Negotiation,
}

impl std::fmt::Debug for LayerLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LayerLibrary")
            .field("path", &self.path)
            .field("interface_version", &self.interface_version)
            .finish_non_exhaustive()
    }
}

impl LayerLibrary {
    /// The file the library was opened from (a symlink stays as named).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the library is mapped (an opened layer's), so its layers' entry points can be
    /// called; the registry's layers are closed.
    pub fn is_open(&self) -> bool {
        self._library.is_some()
    }

    /// The version `vkNegotiateLoaderLayerInterfaceVersion` answered, `None` when the library
    /// does not export it (Android's interface-0 layers).
    pub fn interface_version(&self) -> Option<u32> {
        self.interface_version
    }
}

/// One discovered layer.
#[derive(Debug, Clone)]
pub struct Layer {
    properties: vk::LayerProperties,
    instance_extensions: Vec<vk::ExtensionProperties>,
    device_extensions: Vec<vk::ExtensionProperties>,
    is_global: bool,
    get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr,
    get_device_proc_addr: Option<vk::PFN_vkGetDeviceProcAddr>,
    get_physical_device_proc_addr: Option<PFN_GetPhysicalDeviceProcAddr>,
    library: Arc<LayerLibrary>,
    /// An implicit Khronos manifest layer: its device extensions are added to the instance's
    /// `vkEnumerateDeviceExtensionProperties(NULL)` answers, as the Khronos loader does.
    host_implicit: bool,
}

impl Layer {
    /// `VkLayerProperties::layerName` (validated NUL-terminated at discovery).
    pub fn name(&self) -> &CStr {
        // Discovery rejects layers whose name is not terminated, so this cannot fail; an empty
        // name is the harmless fallback rather than a panic.
        self.properties.layer_name_as_c_str().unwrap_or(c"")
    }

    /// The layer's properties, exactly as the library reported them.
    pub fn properties(&self) -> &vk::LayerProperties {
        &self.properties
    }

    /// The instance extensions the layer implements.
    pub fn instance_extensions(&self) -> &[vk::ExtensionProperties] {
        &self.instance_extensions
    }

    /// The device extensions the layer implements (empty unless [`Self::is_global`]).
    pub fn device_extensions(&self) -> &[vk::ExtensionProperties] {
        &self.device_extensions
    }

    /// Whether the layer also appears, byte-identical, in the library's device layer list and so
    /// is chained into devices (Android's "global" layer).
    pub fn is_global(&self) -> bool {
        self.is_global
    }

    /// The layer's `vkGetInstanceProcAddr`: `<layerName>GetInstanceProcAddr`, else the negotiated
    /// one, else the exported `vkGetInstanceProcAddr`. Callable only while
    /// [`LayerLibrary::is_open`] (an [`Layer::open`]ed layer); a closed layer's pointers are where
    /// the code was at discovery.
    pub fn get_instance_proc_addr(&self) -> vk::PFN_vkGetInstanceProcAddr {
        self.get_instance_proc_addr
    }

    /// The layer's `vkGetDeviceProcAddr`, looked up like the GIPA; `None` if it has none (then
    /// it is never global).
    pub fn get_device_proc_addr(&self) -> Option<vk::PFN_vkGetDeviceProcAddr> {
        self.get_device_proc_addr
    }

    /// `vk_layerGetPhysicalDeviceProcAddr` from negotiation (interface 2), if provided.
    pub fn get_physical_device_proc_addr(&self) -> Option<PFN_GetPhysicalDeviceProcAddr> {
        self.get_physical_device_proc_addr
    }

    /// The library the layer lives in.
    pub fn library(&self) -> &Arc<LayerLibrary> {
        &self.library
    }

    /// The layer as the registry keeps it: the same data, its library not held (AOSP closes a
    /// library once discovery has enumerated it).
    pub(crate) fn closed(&self) -> Layer {
        Layer {
            library: Arc::new(LayerLibrary {
                path: self.library.path.clone(),
                interface_version: self.library.interface_version,
                _library: None,
                reopen: self.library.reopen.clone(),
                negotiation: self.library.negotiation,
            }),
            ..self.clone()
        }
    }

    /// The layer ready to chain (AOSP's `GetLayerRef` → `LayerLibrary::Open`): an open layer as
    /// it is; a closed one's library opened again and its entry points resolved afresh (the
    /// library may be mapped elsewhere now). The returned layer holds the library until dropped.
    pub fn open(self: &Arc<Self>) -> Result<Arc<Layer>, LayerError> {
        if self.library.is_open() {
            return Ok(Arc::clone(self));
        }
        let path = self.library.path();
        let reopened = match &self.library.reopen {
            Some(reopen) => discovery::layers_of_library(
                path,
                reopen(path)?,
                Some(reopen.clone()),
                self.library.negotiation,
                false,
            )?,
            None => load_layer_library(path)?,
        };
        reopened
            .into_iter()
            .find(|l| l.name() == self.name())
            .map(Arc::new)
            .ok_or_else(|| LayerError::NotPresent {
                name: format!(
                    "{} (no longer in {})",
                    self.name().to_string_lossy(),
                    path.display()
                ),
            })
    }

    /// Whether it is an implicit Khronos manifest layer (Linux hosts).
    pub fn is_host_implicit(&self) -> bool {
        self.host_implicit
    }
}

/// Every layer discovery found: Android's, in discovery order (search dir order, then file name
/// order, then the library's own order), then on Linux hosts the Khronos manifests' (not loaded
/// until activated).
#[derive(Debug, Default, Clone)]
pub struct LayerRegistry {
    layers: Vec<Arc<Layer>>,
    host: Vec<Arc<HostLayer>>,
}

impl LayerRegistry {
    /// Android's layers (loaded at discovery).
    pub fn layers(&self) -> &[Arc<Layer>] {
        &self.layers
    }

    /// The Khronos manifest layers, including those `VK_LOADER_LAYERS_DISABLE` disables.
    pub fn host_layers(&self) -> &[Arc<HostLayer>] {
        &self.host
    }

    /// The Android layer named `name`, if discovered.
    pub fn find(&self, name: &CStr) -> Option<&Arc<Layer>> {
        self.layers.iter().find(|l| l.name() == name)
    }

    /// The manifest layer named `name` (disabled or not), if there is one and no Android layer
    /// shadows it.
    pub fn find_host(&self, name: &CStr) -> Option<&Arc<HostLayer>> {
        self.host
            .iter()
            .find(|l| l.name().as_bytes() == name.to_bytes())
    }

    /// What `vkEnumerateInstanceLayerProperties` lists: Android's layers, then the manifest
    /// layers `filters` do not disable.
    pub fn properties(&self, filters: &LayerFilters) -> Vec<vk::LayerProperties> {
        let android = self.layers.iter().map(|l| *l.properties());
        let host = self.available_host(filters).map(|l| *l.properties());
        android.chain(host).collect()
    }

    fn available_host<'a>(
        &'a self,
        filters: &'a LayerFilters,
    ) -> impl Iterator<Item = &'a Arc<HostLayer>> + 'a {
        self.host
            .iter()
            .filter(|l| l.disabled_reason(filters).is_none())
    }

    /// The instance extensions of the listed layer `name`, `None` if it is not listed.
    pub fn instance_extensions_of(
        &self,
        name: &CStr,
        filters: &LayerFilters,
    ) -> Option<Vec<vk::ExtensionProperties>> {
        if let Some(l) = self.find(name) {
            return Some(l.instance_extensions().to_vec());
        }
        let host = self
            .find_host(name)
            .filter(|l| l.disabled_reason(filters).is_none())?;
        Some(host.instance_extensions().to_vec())
    }

    /// The device extensions of the listed layer `name` (none for an Android layer that is not
    /// global), `None` if it is not listed.
    pub fn device_extensions_of(
        &self,
        name: &CStr,
        filters: &LayerFilters,
    ) -> Option<Vec<vk::ExtensionProperties>> {
        if let Some(l) = self.find(name) {
            let list = if l.is_global() {
                l.device_extensions()
            } else {
                &[]
            };
            return Some(list.to_vec());
        }
        let host = self
            .find_host(name)
            .filter(|l| l.disabled_reason(filters).is_none())?;
        Some(host.device_extensions().to_vec())
    }

    /// The implicit manifest layers active now (their environment and the filters allow them),
    /// in discovery order; each inactive one is logged with its reason.
    pub fn active_implicit_host<'a>(
        &'a self,
        filters: &'a LayerFilters,
    ) -> Vec<&'a Arc<HostLayer>> {
        self.available_host(filters)
            .filter(|l| l.is_implicit())
            .filter(|l| match l.implicit_inactive_reason(filters) {
                None => true,
                Some(why) => {
                    log::debug!("implicit layer {} inactive: {why}", l.name());
                    false
                }
            })
            .collect()
    }

    /// The pre-instance functions `pick` chooses of the implicit manifest layers active under
    /// `filters`, nearest the application first ([`pre_instance`]).
    ///
    /// # Safety
    /// `F` must be the chain function type of the command `pick` chooses.
    pub unsafe fn pre_instance_functions<F: Copy>(
        &self,
        filters: &LayerFilters,
        pick: fn(&manifest::PreInstanceFunctions) -> Option<&CStr>,
    ) -> Vec<F> {
        self.active_implicit_host(filters)
            .into_iter()
            // SAFETY: the caller guarantees `F` is the chain function type of `pick`'s command,
            // which is what `pre_instance` requires.
            .filter_map(|l| unsafe { l.pre_instance::<F>(pick) })
            .collect()
    }

    /// Number of layers discovered (manifest layers the filters disable included).
    pub fn len(&self) -> usize {
        self.layers.len() + self.host.len()
    }

    /// Whether no layer is listed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::CString;
    use std::path::Path;

    use super::*;
    use crate::layers::discovery::tests::{app_config, build_layer, Fixture};

    /// Whether `path` is mapped in this process (`RTLD_NOLOAD` opens nothing new).
    fn is_loaded(path: &Path) -> bool {
        let c = CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: RTLD_NOLOAD only looks the library up; a handle it returns is closed at once.
        unsafe {
            let h = libc::dlopen(c.as_ptr(), libc::RTLD_NOLOAD | libc::RTLD_NOW);
            if h.is_null() {
                return false;
            }
            libc::dlclose(h);
            true
        }
    }

    /// AOSP's `LayerLibrary` refcount: discovery opens a library to enumerate it and closes it;
    /// activation opens it again; it is unloaded when the last opened layer (the last instance
    /// using it) is gone.
    #[test]
    fn layer_libraries_are_closed_after_discovery_and_refcounted_when_active() {
        let dir = tempfile::tempdir().unwrap();
        let path = build_layer(
            dir.path(),
            "libVkLayer_rc.so",
            &Fixture {
                layers: &["VK_LAYER_test_rc1", "VK_LAYER_test_rc2"],
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        let registry = LayerRegistry::discover(&app_config(&[dir.path()]));
        assert_eq!(registry.len(), 2);
        assert!(!is_loaded(&path), "still mapped after discovery");
        let first = registry.find(c"VK_LAYER_test_rc1").unwrap().open().unwrap();
        assert!(is_loaded(&path));
        let second = registry.find(c"VK_LAYER_test_rc2").unwrap().open().unwrap();
        drop(first);
        assert!(is_loaded(&path), "unloaded while a layer still uses it");
        drop(second);
        assert!(!is_loaded(&path), "still mapped after its last user");
        // A library gone since discovery: its layer is no longer present.
        std::fs::remove_file(&path).unwrap();
        let e = registry
            .find(c"VK_LAYER_test_rc1")
            .unwrap()
            .open()
            .unwrap_err();
        assert_eq!(map_layer_err(&e), vk::Result::ERROR_LAYER_NOT_PRESENT);
    }
}
