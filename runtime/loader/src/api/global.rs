//! The global commands: no instance, answered from the once-per-process loader state.
//!
//! * `vkEnumerateInstanceVersion` reports the loader's version (`vkgen_generated::API_VERSION`)
//!   without asking any driver, as Android does; it initialises the loader (Android's zygote
//!   preloads the driver this way).
//! * `vkEnumerateInstanceLayerProperties` lists every discovered layer (on Linux hosts, then the
//!   Khronos manifest layers `VK_LOADER_LAYERS_DISABLE` leaves).
//! * `vkEnumerateInstanceExtensionProperties(NULL)` lists the extensions of the implicitly
//!   enabled layers (the GPU debug settings' ones; on Linux hosts the active implicit manifest
//!   layers') first, then the loader's
//!   and the drivers' visible ones, duplicates dropped (the first wins); with a layer name, that
//!   layer's extensions, or `VK_ERROR_LAYER_NOT_PRESENT`.
//! * When initialisation failed (a HAL whose device did not open: AOSP's `EnsureInitialized`
//!   false), all three return `VK_ERROR_OUT_OF_HOST_MEMORY`. A HAL whose own extension
//!   enumeration fails is not a failure here: the list then holds the layers' extensions only.
//! * On Linux hosts the three go through the pre-instance functions of the active implicit
//!   manifest layers that have them ([`pre_instance`]); the answers above are the chain's end.

use std::ffi::{c_char, CStr};
use std::sync::Arc;

use vkgen_abi::vk_error;

use crate::extensions;
use crate::ffi::{cstr, fill_array, guard};
use crate::init::{self, Loader};
use crate::layers::manifest::PreInstanceFunctions;
use crate::layers::pre_instance::{self, ExtensionsChain, LayersChain, Link, VersionChain};
use crate::layers::{Layer, LayerEnv};
use vkgen_generated::vk;

/// Calls the pre-instance chain ([`pre_instance`]) of the active implicit manifest layers whose
/// manifests name the command `pick` chooses, ending in `terminator`; without such layers,
/// `terminator` alone (with no link).
///
/// # Safety
/// `L` must be the chain of the command `pick` chooses; `call` calls a link's function with the
/// caller's arguments.
unsafe fn chained<L: Link>(
    pick: fn(&PreInstanceFunctions) -> Option<&CStr>,
    terminator: L::F,
    call: impl FnOnce(L::F, *const L) -> vk::Result,
) -> vk::Result {
    let filters = LayerEnv::current().filters;
    // SAFETY: the caller guarantees `L` is the chain of `pick`'s command, so `L::F` is the type of
    // the functions the layers export under that name.
    let layers: Vec<L::F> = unsafe { init::loader().layers.pre_instance_functions(&filters, pick) };
    let links = pre_instance::build::<L>(&layers, terminator);
    let (first, next) = links[0].head();
    call(first, next)
}

/// `vkEnumerateInstanceVersion`.
///
/// # Safety
/// `p_api_version` must be valid for a write.
#[no_mangle]
pub unsafe extern "system" fn vkEnumerateInstanceVersion(p_api_version: *mut u32) -> vk::Result {
    guard(
        "vkEnumerateInstanceVersion",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let _trace = crate::trace::section("EnumerateInstanceVersion");
            // SAFETY: the version chain for vkEnumerateInstanceVersion; the links outlive the call.
            unsafe {
                chained::<VersionChain>(
                    |p| p.enumerate_instance_version.as_deref(),
                    version_terminator,
                    |f, next| f(next, p_api_version),
                )
            }
        },
    )
}

/// The loader's `vkEnumerateInstanceVersion`, at the end of the pre-instance chain.
unsafe extern "system" fn version_terminator(
    _: *const VersionChain,
    p_api_version: *mut u32,
) -> vk::Result {
    guard(
        "vkEnumerateInstanceVersion",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            if let Err(e) = initialised(init::loader()) {
                return e;
            }
            if p_api_version.is_null() {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkEnumerateInstanceVersion: null pApiVersion"
                );
            }
            // SAFETY: `p_api_version` was checked non-null above and is the application's, writable
            // for this call (VUID-vkEnumerateInstanceVersion-pApiVersion-parameter).
            unsafe { *p_api_version = vkgen_generated::API_VERSION };
            vk::Result::SUCCESS
        },
    )
}

/// `vkEnumerateInstanceLayerProperties`.
///
/// # Safety
/// Vulkan's two-call contract.
#[no_mangle]
pub unsafe extern "system" fn vkEnumerateInstanceLayerProperties(
    p_property_count: *mut u32,
    p_properties: *mut vk::LayerProperties,
) -> vk::Result {
    guard(
        "vkEnumerateInstanceLayerProperties",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let _trace = crate::trace::section("EnumerateInstanceLayerProperties");
            // SAFETY: the layer chain for vkEnumerateInstanceLayerProperties; the links outlive
            // the call.
            unsafe {
                chained::<LayersChain>(
                    |p| p.enumerate_instance_layer_properties.as_deref(),
                    layers_terminator,
                    |f, next| f(next, p_property_count, p_properties),
                )
            }
        },
    )
}

/// The loader's `vkEnumerateInstanceLayerProperties`, at the end of the pre-instance chain.
unsafe extern "system" fn layers_terminator(
    _: *const LayersChain,
    p_property_count: *mut u32,
    p_properties: *mut vk::LayerProperties,
) -> vk::Result {
    guard(
        "vkEnumerateInstanceLayerProperties",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let loader = init::loader();
            if let Err(e) = initialised(loader) {
                return e;
            }
            let properties = loader.layers.properties(&LayerEnv::current().filters);
            // SAFETY: `p_property_count` and `p_properties` are the application's count (null is
            // refused by `fill_array`) and array (null, or holding `*count` elements), valid for
            // this call per the command's VUIDs.
            unsafe { fill_array(&properties, p_property_count, p_properties) }
        },
    )
}

/// `vkEnumerateInstanceExtensionProperties`.
///
/// # Safety
/// Vulkan's two-call contract; `p_layer_name` null or a C string.
#[no_mangle]
pub unsafe extern "system" fn vkEnumerateInstanceExtensionProperties(
    p_layer_name: *const c_char,
    p_property_count: *mut u32,
    p_properties: *mut vk::ExtensionProperties,
) -> vk::Result {
    guard(
        "vkEnumerateInstanceExtensionProperties",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let _trace = crate::trace::section("EnumerateInstanceExtensionProperties");
            // SAFETY: the extension chain for vkEnumerateInstanceExtensionProperties; the links
            // outlive the call.
            unsafe {
                chained::<ExtensionsChain>(
                    |p| p.enumerate_instance_extension_properties.as_deref(),
                    extensions_terminator,
                    |f, next| f(next, p_layer_name, p_property_count, p_properties),
                )
            }
        },
    )
}

/// The loader's `vkEnumerateInstanceExtensionProperties`, at the end of the pre-instance chain.
unsafe extern "system" fn extensions_terminator(
    _: *const ExtensionsChain,
    p_layer_name: *const c_char,
    p_property_count: *mut u32,
    p_properties: *mut vk::ExtensionProperties,
) -> vk::Result {
    guard(
        "vkEnumerateInstanceExtensionProperties",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let loader = init::loader();
            if let Err(e) = initialised(loader) {
                return e;
            }
            // SAFETY: `p_layer_name` is the application's: null or a NUL-terminated string for this
            // call (VUID-vkEnumerateInstanceExtensionProperties-pLayerName-parameter).
            let list = match unsafe { cstr(p_layer_name) } {
                Some(name) => {
                    match loader
                        .layers
                        .instance_extensions_of(name, &LayerEnv::current().filters)
                    {
                        Some(list) => list,
                        None => {
                            return vk_error!(
                                vk::Result::ERROR_LAYER_NOT_PRESENT,
                                "vkEnumerateInstanceExtensionProperties: layer {name:?} not present"
                            );
                        }
                    }
                }
                None => available_instance_extensions(loader, implicit_layer_extensions(loader)),
            };
            // SAFETY: `p_property_count` and `p_properties` are the application's count (null is
            // refused by `fill_array`) and array (null, or holding `*count` elements), valid for
            // this call per the command's VUIDs.
            unsafe { fill_array(&list, p_property_count, p_properties) }
        },
    )
}

/// AOSP's `EnsureInitialized`: a HAL whose device failed to open (`OpenHAL` false) makes the
/// three global enumerations return `VK_ERROR_OUT_OF_HOST_MEMORY` (AOSP's choice of result,
/// whatever the HAL's reason) for the rest of this process id.
fn initialised(loader: &Loader) -> Result<(), vk::Result> {
    match &loader.drivers {
        Ok(_) => Ok(()),
        Err(failure) => Err(vk_error!(
            vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            "the loader failed to initialise: {}",
            failure.message
        )),
    }
}

/// The instance extensions of the implicitly enabled layers, which
/// `vkEnumerateInstanceExtensionProperties(NULL)` lists (absent ones are skipped here;
/// `vkCreateInstance` reports them): the GPU debug settings' layers and, on Linux hosts, the
/// active implicit manifest layers (from their manifests; no library is opened). As AOSP
/// (`api.cpp`, b/143293104), the `debug.vulkan.*` properties' layers are not consulted: their
/// extensions are left out.
pub(crate) fn implicit_layer_extensions(loader: &Loader) -> Vec<vk::ExtensionProperties> {
    let android = loader
        .config
        .gpu_debug
        .layers
        .iter()
        .filter_map(|name| loader.layers.find(name))
        .flat_map(|l| l.instance_extensions().iter().copied());
    let filters = LayerEnv::current().filters;
    let host_implicit = loader.layers.active_implicit_host(&filters);
    let host = host_implicit
        .iter()
        .flat_map(|l| l.instance_extensions().iter().copied());
    android.chain(host).collect()
}

/// The extensions of `active` layers, nearest the application first.
pub(crate) fn layer_extensions(active: &[Arc<Layer>]) -> Vec<vk::ExtensionProperties> {
    active
        .iter()
        .flat_map(|l| l.instance_extensions().iter().copied())
        .collect()
}

/// The instance extensions an instance whose layers provide `layer_extensions` can enable: the
/// layers' (nearest the application first), then the loader's and the drivers' visible ones.
/// When the HAL's own enumeration failed, the layers' only: AOSP's api level ignores the
/// failure of `driver::EnumerateInstanceExtensionProperties` (which is where its loader
/// extensions are added too) and lists what it has.
pub(crate) fn available_instance_extensions(
    loader: &Loader,
    layer_extensions: Vec<vk::ExtensionProperties>,
) -> Vec<vk::ExtensionProperties> {
    if loader.extensions_failure().is_some() {
        return extensions::dedup(layer_extensions);
    }
    let drivers = crate::terminator::instance::available_driver_instance_extensions(loader);
    if layer_extensions.is_empty() {
        // Deduplicated when it was made.
        return drivers.to_vec();
    }
    let mut list = layer_extensions;
    list.extend_from_slice(drivers);
    extensions::dedup(list)
}
