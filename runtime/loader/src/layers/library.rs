//! One layer library and the layers it provides: opening it (`dlopen`, an `apk!/` entry),
//! interrogating it as AOSP's `LayerLibrary::EnumerateLayers` does, and the [`Layer`]s that
//! result, which reopen their library the way discovery ([`super::discovery`]) first opened it.

use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::Arc;

use ash::vk;
use libloading::os::unix::Library;
use vkgen_abi::layer::PFN_GetPhysicalDeviceProcAddr;
use vkgen_generated::two_call::{read_array, ReadError};

use super::entry_points::{typed, typed_with_suffix, EntryPoints, Negotiation};
use super::error::LayerError;
use crate::driver::open_library;

/// An opened layer library, shared by the layers it contains.
pub struct LayerLibrary {
    pub(super) path: PathBuf,
    pub(super) interface_version: Option<u32>,
    /// Never read: holding it keeps the code behind every [`Layer`] pointer mapped. `None` for
    /// the closed layers of the registry.
    pub(super) _library: Option<Library>,
    /// How to open the library again after it was closed (discovery's way); `None`: `dlopen`.
    pub(super) reopen: Option<Reopen>,
    /// Whether it was (and, reopened, is again) asked to negotiate.
    pub(super) negotiation: Negotiation,
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
    pub(super) properties: vk::LayerProperties,
    pub(super) instance_extensions: Vec<vk::ExtensionProperties>,
    pub(super) device_extensions: Vec<vk::ExtensionProperties>,
    pub(super) is_global: bool,
    pub(super) get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr,
    pub(super) get_device_proc_addr: Option<vk::PFN_vkGetDeviceProcAddr>,
    pub(super) get_physical_device_proc_addr: Option<PFN_GetPhysicalDeviceProcAddr>,
    pub(super) library: Arc<LayerLibrary>,
    /// An implicit Khronos manifest layer: its device extensions are added to the instance's
    /// `vkEnumerateDeviceExtensionProperties(NULL)` answers, as the Khronos loader does.
    pub(super) host_implicit: bool,
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
            Some(reopen) => layers_of_library(
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

/// A layer library's two-call enumeration, read by the workspace's one reader
/// (`vkgen_generated::two_call::read_array`: retried while the answer is `VK_INCOMPLETE`, the
/// count bounded so a broken library cannot make us allocate gigabytes), its failure said with
/// the library and the command.
fn enumerate<T: Copy + Default>(
    path: &Path,
    what: &str,
    call: impl FnMut(*mut u32, *mut T) -> vk::Result,
) -> Result<Vec<T>, LayerError> {
    read_array(call).map_err(|e| match e {
        ReadError::Failed(result) => LayerError::Enumeration {
            path: path.to_path_buf(),
            what: what.to_owned(),
            result,
        },
        ReadError::TooMany(count) => LayerError::TooMany {
            path: path.to_path_buf(),
            what: what.to_owned(),
            count,
        },
    })
}

/// `memcmp` of two `VkLayerProperties`, as Android decides "global".
fn same_properties(a: &vk::LayerProperties, b: &vk::LayerProperties) -> bool {
    let size = std::mem::size_of::<vk::LayerProperties>();
    // SAFETY: both are live, fully initialised values of a padding-free plain-data struct
    // (char[256], u32, u32, char[256]), so viewing them as bytes is defined.
    let (a, b) = unsafe {
        (
            std::slice::from_raw_parts(ptr::from_ref(a).cast::<u8>(), size),
            std::slice::from_raw_parts(ptr::from_ref(b).cast::<u8>(), size),
        )
    };
    a == b
}

/// How a closed layer's library is opened again when an instance activates it: the way
/// discovery opened it (the same linker namespace, or the APK entry), since on Android a
/// library of the app's namespace cannot be reached by a plain `dlopen` of its path.
pub(crate) type Reopen = Arc<dyn Fn(&Path) -> Result<Library, LayerError> + Send + Sync>;

/// Opens a layer library at `path` with `dlopen`, or an `apk!/` entry from its zip.
fn open_plain(path: &Path) -> Result<Library, LayerError> {
    if crate::apk::split(path).is_some() {
        crate::apk::open(path).map_err(|reason| LayerError::ApkOpen {
            path: path.to_path_buf(),
            reason,
        })
    } else {
        open_library(path).map_err(|source| LayerError::Open {
            path: path.to_path_buf(),
            source: source.into(),
        })
    }
}

/// Opens one layer library with `dlopen` (an `apk!/` path from its zip) and returns the layers
/// it provides.
pub fn load_layer_library(path: &Path) -> Result<Vec<Layer>, LayerError> {
    layers_of_library(path, open_plain(path)?, None, Negotiation::PLATFORM, false)
}

/// The layers an opened layer library provides; `reopen` is kept for when they are closed.
/// `listing` (discovery, AOSP's `EnumerateLayers`) keeps a layer without a GIPA, as AOSP lists it;
/// otherwise (opening it to chain, AOSP's `GetGetInstanceProcAddr`) it is left out, so that
/// [`Layer::open`] refuses it with `VK_ERROR_LAYER_NOT_PRESENT` as `LayerChain::LoadLayer` does.
pub(crate) fn layers_of_library(
    path: &Path,
    library: Library,
    reopen: Option<Reopen>,
    negotiation: Negotiation,
    listing: bool,
) -> Result<Vec<Layer>, LayerError> {
    // Every early return below drops `library` (dlclose).
    let entry = EntryPoints::find(path, &library, negotiation)?;
    let enumerate_instance_layers = entry.enumerate_instance_layers;
    let instance_layers: Vec<vk::LayerProperties> =
        enumerate(path, "vkEnumerateInstanceLayerProperties", |c, p| {
            // SAFETY: `enumerate` passes a valid count pointer and a null or `*c`-sized array.
            unsafe { enumerate_instance_layers(c, p) }
        })?;
    if instance_layers.is_empty() {
        return Err(LayerError::NoLayers {
            path: path.to_path_buf(),
        });
    }
    let device_layers: Vec<vk::LayerProperties> = match entry.enumerate_device_layers {
        Some(f) => enumerate(path, "vkEnumerateDeviceLayerProperties", |c, p| {
            // SAFETY: `enumerate` passes a valid count pointer and a null or `*c`-sized array; a
            // null physical device asks for the library's device layers.
            unsafe { f(vk::PhysicalDevice::null(), c, p) }
        })?,
        None => Vec::new(),
    };

    let shared = Arc::new(LayerLibrary {
        path: path.to_path_buf(),
        interface_version: entry.negotiated.map(|n| n.loader_layer_interface_version),
        _library: Some(library),
        reopen,
        negotiation,
    });
    let mut layers = Vec::with_capacity(instance_layers.len());
    for properties in instance_layers {
        if let Some(layer) = layer_of(&shared, &entry, properties, &device_layers, listing)? {
            layers.push(layer);
        }
    }
    Ok(layers)
}

/// The layer `properties` names in `library`: its instance extensions, whether it is global
/// (then its device extensions) and its GIPA/GDPA. A layer without a usable GIPA is `None`
/// (logged) unless `listing`, when it is listed with [`refused_gipa`]; an error rejects the
/// whole library.
fn layer_of(
    library: &Arc<LayerLibrary>,
    entry: &EntryPoints,
    properties: vk::LayerProperties,
    device_layers: &[vk::LayerProperties],
    listing: bool,
) -> Result<Option<Layer>, LayerError> {
    let path = library.path.as_path();
    let Ok(name) = properties.layer_name_as_c_str() else {
        return Err(LayerError::BadLayerName {
            path: path.to_path_buf(),
        });
    };
    let name_str = name.to_string_lossy();
    let enumerate_instance_extensions = entry.enumerate_instance_extensions;
    let instance_extensions = enumerate(
        path,
        &format!("vkEnumerateInstanceExtensionProperties({name_str})"),
        |c, p| {
            // SAFETY: a NUL-terminated layer name plus `enumerate`'s valid pointers.
            unsafe { enumerate_instance_extensions(name.as_ptr(), c, p) }
        },
    )?;

    let negotiated_procs = entry.negotiated_procs();
    let Some(lib) = library._library.as_ref() else {
        return Ok(None);
    };
    // Per-layer export first (Android), then what negotiation returned, then the library-wide
    // export (Android's fallback).
    // SAFETY: `<layer>GetInstanceProcAddr` and `vkGetInstanceProcAddr` both have
    // vkGetInstanceProcAddr's signature.
    let gipa: Option<vk::PFN_vkGetInstanceProcAddr> =
        unsafe { typed_with_suffix(lib, name, "GetInstanceProcAddr") }
            .or(negotiated_procs.and_then(|n| n.pfn_get_instance_proc_addr))
            // SAFETY: the library-wide `vkGetInstanceProcAddr` export has
            // vkGetInstanceProcAddr's signature.
            .or_else(|| unsafe { typed(lib, c"vkGetInstanceProcAddr") });
    let gipa = match gipa {
        Some(gipa) => gipa,
        None if listing => {
            log::warn!(
                "layer {name_str} in {} has no vkGetInstanceProcAddr: listed, refused at activation",
                path.display()
            );
            refused_gipa
        }
        None => {
            let e = LayerError::NoGetInstanceProcAddr {
                path: path.to_path_buf(),
                layer: name_str.into_owned(),
            };
            log::warn!("rejected {e}");
            return Ok(None);
        }
    };
    // SAFETY: `<layer>GetDeviceProcAddr` and `vkGetDeviceProcAddr` both have
    // vkGetDeviceProcAddr's signature.
    let gdpa: Option<vk::PFN_vkGetDeviceProcAddr> =
        unsafe { typed_with_suffix(lib, name, "GetDeviceProcAddr") }
            .or(negotiated_procs.and_then(|n| n.pfn_get_device_proc_addr))
            // SAFETY: the library-wide `vkGetDeviceProcAddr` export has vkGetDeviceProcAddr's
            // signature.
            .or_else(|| unsafe { typed(lib, c"vkGetDeviceProcAddr") });

    let mut is_global = device_layers
        .iter()
        .any(|d| same_properties(d, &properties));
    if is_global && gdpa.is_none() {
        log::warn!(
            "layer {name_str} in {}: listed as a device layer but has no GetDeviceProcAddr; instance-only",
            path.display()
        );
        is_global = false;
    }
    let device_extensions = match (is_global, entry.enumerate_device_extensions) {
        (true, Some(f)) => enumerate(
            path,
            &format!("vkEnumerateDeviceExtensionProperties({name_str})"),
            |c, p| {
                // SAFETY: null physical device plus a valid layer name, as Android calls it.
                unsafe { f(vk::PhysicalDevice::null(), name.as_ptr(), c, p) }
            },
        )?,
        _ => Vec::new(),
    };
    Ok(Some(Layer {
        properties,
        instance_extensions,
        device_extensions,
        is_global,
        get_instance_proc_addr: gipa,
        get_device_proc_addr: gdpa,
        get_physical_device_proc_addr: negotiated_procs
            .and_then(|n| n.pfn_get_physical_device_proc_addr),
        library: Arc::clone(library),
        host_implicit: false,
    }))
}

/// The GIPA of a listed layer that has none. Never called: a listed layer is reopened before it
/// is chained ([`Layer::open`]), and the reopened library leaves it out; answers null anyway.
unsafe extern "system" fn refused_gipa(
    _instance: vk::Instance,
    _name: *const std::ffi::c_char,
) -> vk::PFN_vkVoidFunction {
    None
}
