//! What discovery reads from a layer library before it asks for any layer: its exported
//! entry points (AOSP's `LayerLibrary::EnumerateLayers` and `GetGPA`) and, on Linux hosts, the
//! Khronos interface negotiation ([`Negotiation`]), whose answer can stand in for exports a
//! desktop layer does not have. Split from `discovery` so each stays one concern.

use std::ffi::{CStr, CString};
use std::path::Path;

use ash::vk;
use libloading::os::unix::Library;
use vkgen_abi::layer::{NegotiateLayerInterface, PFN_vkNegotiateLoaderLayerInterfaceVersion};

use super::error::LayerError;
use crate::driver::{as_fn, symbol_address};

/// The layer interface version we offer in negotiation.
const LAYER_INTERFACE_VERSION: u32 = 2;

/// The symbol `name` as the function type `F`, if exported (and non-null).
///
/// # Safety
/// `F` must be the type the layer interface gives `name`.
pub(crate) unsafe fn typed<F: Copy>(library: &Library, name: &CStr) -> Option<F> {
    // SAFETY: the caller guarantees `F` is the type the layer interface gives `name`, the symbol
    // `symbol_address` found; `library` stays loaded while the borrow lasts.
    symbol_address(library, name).map(|p| unsafe { as_fn(p) })
}

/// `<layer name><suffix>` (e.g. `VK_LAYER_fooGetInstanceProcAddr`) as `F`.
///
/// # Safety
/// As [`typed`].
pub(super) unsafe fn typed_with_suffix<F: Copy>(
    library: &Library,
    name: &CStr,
    suffix: &str,
) -> Option<F> {
    let mut bytes = name.to_bytes().to_vec();
    bytes.extend_from_slice(suffix.as_bytes());
    let symbol = CString::new(bytes).ok()?;
    // SAFETY: `symbol` is `name` plus `suffix`, and the caller guarantees `F` is the type the layer
    // interface gives that symbol.
    unsafe { typed(library, &symbol) }
}

/// Calls the layer's `vkNegotiateLoaderLayerInterfaceVersion`, offering interface 2.
pub(super) fn negotiate_interface(
    path: &Path,
    negotiate: PFN_vkNegotiateLoaderLayerInterfaceVersion,
) -> Result<NegotiateLayerInterface, LayerError> {
    let mut info = NegotiateLayerInterface {
        loader_layer_interface_version: LAYER_INTERFACE_VERSION,
        ..NegotiateLayerInterface::default()
    };
    // SAFETY: `info` is a valid, initialised negotiation struct the layer may write.
    let result = unsafe { negotiate(&mut info) };
    let version = info.loader_layer_interface_version;
    if result != vk::Result::SUCCESS || version == 0 || version > LAYER_INTERFACE_VERSION {
        return Err(LayerError::Negotiation {
            path: path.to_path_buf(),
            result,
            version,
        });
    }
    Ok(info)
}

/// Whether discovery asks a layer library to negotiate its interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Negotiation {
    /// AOSP's rule: exports only; `vkNegotiateLoaderLayerInterfaceVersion` is never called.
    Never,
    /// Khronos' rule: a library that exports it is offered interface 2, and what its
    /// negotiated GIPA answers fills in device enumeration functions it does not export.
    WhenExported,
}

impl Negotiation {
    /// The platform's: AOSP's on Android; Khronos' on Linux hosts, whose layers (Debian's
    /// validation layer) export no `vkEnumerateDeviceLayerProperties` and would otherwise never
    /// chain into devices.
    pub const PLATFORM: Self = if cfg!(target_os = "android") {
        Self::Never
    } else {
        Self::WhenExported
    };

    /// [`Self::PLATFORM`], or on Linux hosts [`Self::Never`] when `VKGEN_LAYER_NEGOTIATION=0`
    /// (to run AOSP's rule there).
    #[cfg(not(target_os = "android"))]
    pub fn from_env() -> Self {
        if crate::host_env::trusted_env("VKGEN_LAYER_NEGOTIATION").is_some_and(|v| v == "0") {
            Self::Never
        } else {
            Self::WhenExported
        }
    }
}

/// A layer library's entry points for discovery: its exports, or where a layer that negotiated
/// interface 2 does not export the device enumeration functions, what its negotiated
/// `vkGetInstanceProcAddr` answers for them.
pub(super) struct EntryPoints {
    pub(super) enumerate_instance_layers: vk::PFN_vkEnumerateInstanceLayerProperties,
    pub(super) enumerate_instance_extensions: vk::PFN_vkEnumerateInstanceExtensionProperties,
    pub(super) enumerate_device_layers: Option<vk::PFN_vkEnumerateDeviceLayerProperties>,
    pub(super) enumerate_device_extensions: Option<vk::PFN_vkEnumerateDeviceExtensionProperties>,
    /// The negotiation's answer, if the library negotiates.
    pub(super) negotiated: Option<NegotiateLayerInterface>,
}

impl EntryPoints {
    /// The negotiated entry points (interface 2 only: a version-1 answer means "use the
    /// exports").
    pub(super) fn negotiated_procs(&self) -> Option<NegotiateLayerInterface> {
        self.negotiated
            .filter(|n| n.loader_layer_interface_version >= 2)
    }

    /// Finds the entry points of `library` (at `path`, for errors) and, as `negotiation` says,
    /// negotiates its interface.
    pub(super) fn find(
        path: &Path,
        library: &Library,
        negotiation: Negotiation,
    ) -> Result<Self, LayerError> {
        let required = |symbol: &'static CStr| {
            symbol_address(library, symbol).ok_or_else(|| LayerError::MissingExport {
                path: path.to_path_buf(),
                symbol: symbol.to_str().unwrap_or("?"),
            })
        };
        let enumerate_instance_layers: vk::PFN_vkEnumerateInstanceLayerProperties =
            // SAFETY: the layer interface fixes vkEnumerateInstanceLayerProperties's type by its
            // name.
            unsafe { as_fn(required(c"vkEnumerateInstanceLayerProperties")?) };
        let enumerate_instance_extensions: vk::PFN_vkEnumerateInstanceExtensionProperties =
            // SAFETY: the layer interface fixes vkEnumerateInstanceExtensionProperties's type by
            // its name.
            unsafe { as_fn(required(c"vkEnumerateInstanceExtensionProperties")?) };
        let enumerate_device_layers: Option<vk::PFN_vkEnumerateDeviceLayerProperties> =
            // SAFETY: the layer interface fixes vkEnumerateDeviceLayerProperties's type by its
            // name.
            unsafe { typed(library, c"vkEnumerateDeviceLayerProperties") };
        let enumerate_device_extensions: Option<vk::PFN_vkEnumerateDeviceExtensionProperties> =
            // SAFETY: the layer interface fixes vkEnumerateDeviceExtensionProperties's type by its
            // name.
            unsafe { typed(library, c"vkEnumerateDeviceExtensionProperties") };
        let negotiate: Option<PFN_vkNegotiateLoaderLayerInterfaceVersion> =
            // SAFETY: the layer interface fixes vkNegotiateLoaderLayerInterfaceVersion's type by
            // its name.
            unsafe { typed(library, c"vkNegotiateLoaderLayerInterfaceVersion") };
        let negotiated = match (negotiation, negotiate) {
            (Negotiation::WhenExported, Some(negotiate)) => {
                Some(negotiate_interface(path, negotiate)?)
            }
            _ => None,
        };
        let mut found = Self {
            enumerate_instance_layers,
            enumerate_instance_extensions,
            enumerate_device_layers,
            enumerate_device_extensions,
            negotiated,
        };
        found.fill_from_negotiated_gipa();
        Ok(found)
    }

    /// Khronos-style layers (interface 2) need not export the device enumeration functions
    /// (Debian's validation layer does not); such a layer answers them through its negotiated
    /// `vkGetInstanceProcAddr` with a null instance, so Android's "listed as a device layer"
    /// rule can still be applied to it.
    fn fill_from_negotiated_gipa(&mut self) {
        let Some(gipa) = self
            .negotiated_procs()
            .and_then(|n| n.pfn_get_instance_proc_addr)
        else {
            return;
        };
        // SAFETY: a negotiated layer GIPA answers global queries with a null instance; the names
        // are NUL-terminated literals.
        let query = |name: &CStr| unsafe { gipa(vk::Instance::null(), name.as_ptr()) };
        if self.enumerate_device_layers.is_none() {
            // SAFETY: the negotiated GIPA returns vkEnumerateDeviceLayerProperties's type for that
            // name.
            self.enumerate_device_layers =
                unsafe { crate::driver::void_fn_as(query(c"vkEnumerateDeviceLayerProperties")) };
        }
        if self.enumerate_device_extensions.is_none() {
            // SAFETY: the negotiated GIPA returns vkEnumerateDeviceExtensionProperties's type for
            // that name.
            self.enumerate_device_extensions = unsafe {
                crate::driver::void_fn_as(query(c"vkEnumerateDeviceExtensionProperties"))
            };
        }
    }
}
