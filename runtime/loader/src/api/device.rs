//! Device creation and the device enumeration commands at the api level.
//!
//! `vkCreateDevice` chains the instance's *global* active layers (Android's model: the
//! application's device layer list is ignored, with a warning when it names anything else),
//! checks every requested extension against those layers' device extensions and the physical
//! device's visible list (`VK_ERROR_EXTENSION_NOT_PRESENT` otherwise), calls
//! `head_gipa(instance, "vkCreateDevice")` with the chain nodes prepended, then fills the
//! device's dispatch table from the head's `vkGetDeviceProcAddr` with the commands the device
//! can expose ([`crate::device_table`]) and records what `vkGetDeviceProcAddr` needs for its
//! rules (effective API version, enabled extensions, the names the table asked for).
//!
//! `vkEnumerateDeviceLayerProperties` lists the instance's global layers;
//! `vkEnumerateDeviceExtensionProperties` with a layer name answers for that layer (an
//! instance-only layer has no device extensions), and without one lists the GPU debug
//! settings' layers' device extensions first (AOSP), then goes down the instance chain to the
//! terminator's driver list.

use std::ffi::c_char;
use std::sync::Arc;

use vkgen_abi::vk_error;

use crate::chain::DeviceChain;
use crate::dispatch_data::{
    checked_device_data, checked_instance_data, instance_data, ApiDevice, ApiInstance, InstanceData,
};
use crate::extensions::{self, ExtensionSet};
use crate::ffi::{cstr, enumerate, fill_array, guard, guard_result, name_list};
use crate::host_alloc::{oom, HostAllocator, HostVec};
use crate::layers::Layer;
use crate::{device_table, driver, init, terminator};
use vkgen_generated::vk;

/// The layers of an instance that go into its device chains, in the device's allocator (they
/// are kept in the device's record).
fn global_layers(
    data: &InstanceData,
    alloc: HostAllocator,
) -> Result<HostVec<Arc<Layer>, HostAllocator>, vk::Result> {
    let global = || {
        data.api
            .get()
            .into_iter()
            .flat_map(|api| api.layers.iter().filter(|l| l.is_global()))
    };
    let mut layers = HostVec::new_in(alloc);
    // Exactly their number: the block is kept for the device's lifetime.
    layers
        .try_reserve_exact(global().count())
        .map_err(|_| oom("vkCreateDevice", "the device's layer list"))?;
    layers.extend(global().cloned());
    Ok(layers)
}

/// AOSP's `ActivateLayers(physical_dev, …)`: device layers the application names are ignored
/// (devices get the instance's global layers), with a warning when they differ from the
/// instance's.
///
/// # Safety
/// `info` must be the application's valid create info for this call.
unsafe fn warn_on_device_layers(
    instance: &InstanceData,
    api: &crate::dispatch_data::ApiInstance,
    pd: vk::PhysicalDevice,
    info: &vk::DeviceCreateInfo<'_>,
) {
    #[allow(deprecated)] // device layers are deprecated; Android ignores them with a warning
    // SAFETY: `pp_enabled_layer_names` holds `enabled_layer_count` NUL-terminated strings
    // (VUID-VkDeviceCreateInfo-ppEnabledLayerNames-parameter) that live for this call.
    let app_layers = unsafe { name_list(info.enabled_layer_count, info.pp_enabled_layer_names) };
    // Compared with all the instance's active layers
    // (not only those that chain into devices), the warning going to its debug-report callbacks.
    let instance_names: Vec<&std::ffi::CStr> = api.layers.iter().map(|l| l.name()).collect();
    if !app_layers.is_empty() && app_layers != instance_names {
        log::warn!(
            "vkCreateDevice: device layers {app_layers:?} ignored; devices get the instance's \
             global layers of {instance_names:?}"
        );
        // AOSP's `logger_.Warn(physical_dev, ...)`.
        crate::terminator::debug_report::report_about(
            &instance.term,
            vk::DebugReportFlagsEXT::WARNING,
            pd,
            "Device layers disagree with instance layers and are overridden by instance layers",
        );
    }
}

/// `vkCreateDevice`.
///
/// # Safety
/// Vulkan's contract for the command.
#[no_mangle]
pub unsafe extern "system" fn vkCreateDevice(
    physical_device: vk::PhysicalDevice,
    p_create_info: *const vk::DeviceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_device: *mut vk::Device,
) -> vk::Result {
    guard_result(
        "vkCreateDevice",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            let _trace = crate::trace::section("CreateDevice");
            // SAFETY: the four arguments are the application's, unchanged: `physical_device`
            // one of this loader's (checked against the registry there), `p_create_info` and
            // `p_device` null (checked there) or valid per VUID-vkCreateDevice-*-parameter.
            unsafe { create_device(physical_device, p_create_info, p_allocator, p_device) }
        },
    )
}

/// # Safety
/// As [`vkCreateDevice`].
unsafe fn create_device(
    pd: vk::PhysicalDevice,
    info: *const vk::DeviceCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Device,
) -> Result<(), vk::Result> {
    // SAFETY: `info` is the application's pCreateInfo: null (checked here) or a valid create info
    // that lives for this call (VUID-vkCreateDevice-pCreateInfo-parameter).
    let Some(info) = (unsafe { info.as_ref() }) else {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateDevice: null pCreateInfo"
        ));
    };
    if out.is_null() {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateDevice: null pDevice"
        ));
    }
    // SAFETY: `pd` is the application's physical device
    // (VUID-vkCreateDevice-physicalDevice-parameter); `checked_instance_data` refuses one whose
    // word 0 is not a registered instance.
    let Some(instance) =
        (unsafe { checked_instance_data(vk::Handle::as_raw(pd) as usize, "vkCreateDevice") })
    else {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateDevice: not a physical device of this loader"
        ));
    };
    let Some(api) = instance.api.get() else {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateDevice: the instance is still being created"
        ));
    };
    // Made before any layer or driver is called, with the allocator the terminator gives the
    // device data (AOSP's `AllocateDeviceData`: `pAllocator`, else the instance's).
    // SAFETY: `allocator` is the application's pAllocator, null or valid callbacks
    // (VUID-vkCreateDevice-pAllocator-parameter).
    let device_alloc = unsafe {
        HostAllocator::app_or(
            allocator,
            instance.allocator,
            vk::SystemAllocationScope::DEVICE,
        )
    };
    let layers = global_layers(instance, device_alloc)?;
    // SAFETY: `info` is the application's pCreateInfo, checked non-null above and valid for
    // this call (VUID-vkCreateDevice-pCreateInfo-parameter).
    unsafe { warn_on_device_layers(instance, api, pd, info) };
    // SAFETY: `pp_enabled_extension_names` holds `enabled_extension_count` NUL-terminated strings
    // (VUID-VkDeviceCreateInfo-ppEnabledExtensionNames-parameter) that live for this call.
    let requested = unsafe {
        name_list(
            info.enabled_extension_count,
            info.pp_enabled_extension_names,
        )
    };
    // SAFETY: `pd` is the application's physical device of `instance`
    // (VUID-vkCreateDevice-physicalDevice-parameter).
    unsafe { check_extensions(instance, pd, &layers, &requested) }?;

    // SAFETY: `pd` is the application's physical device of the instance `api` describes, `info`
    // its valid create info and `allocator` null or its valid callbacks.
    let (device, head_gdpa) = unsafe { create_through_chain(api, &layers, pd, info, allocator) }?;
    // SAFETY: the chain returned a live dispatchable object.
    let Some(data) =
        (unsafe { checked_device_data(vk::Handle::as_raw(device) as usize, "vkCreateDevice") })
    else {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateDevice: the device returned by the layer chain carries no loader data \
             (a layer returned its own object without vkSetDeviceLoaderData)"
        ));
    };
    let physical = extensions::major_minor(data.term.physical_device_api_version);
    let api_version = extensions::major_minor(api.api_version).min(physical);
    let enabled_extensions = ExtensionSet::from_names(requested.iter().copied());
    let exposing = enabled_extensions.union_with_dependencies(&api.enabled_extensions);
    // No layers: the chain is the terminator over the driver, whose device this is.
    let driver = (layers.is_empty()
        && head_gdpa as *const () == terminator::get_device_proc_addr as *const ())
        .then(|| device_table::Driver {
            gdpa: data.term.gdpa,
            forwarded: super::proc_addr::forwarded(),
        });
    // SAFETY: `device` is the live device the chain headed by `head_gdpa` just created, and with
    // no layers the terminator's driver's.
    let (table, answers) =
        unsafe { device_table::load(device, head_gdpa, api_version, &exposing, driver) };
    log::debug!(
        "device {device:?}: {table:?} from {} names asked, {} layer(s)",
        answers.asked.len(),
        layers.len()
    );
    // SAFETY: the application does not have the handle yet.
    unsafe { data.set_dispatch(table) };
    let device_api = ApiDevice {
        handle: device,
        head_gdpa,
        layers,
        api_version,
        enabled_extensions,
        instance_extensions: api.enabled_extensions,
        answers,
    };
    if data.api.set(device_api).is_err() {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateDevice: the chain returned a device that already exists"
        ));
    }
    // SAFETY: `out` was checked non-null at the top and is the application's pDevice, writable for
    // this call (VUID-vkCreateDevice-pDevice-parameter).
    unsafe { *out = device };
    Ok(())
}

/// The device chain over the terminator for `layers`, and its `vkCreateDevice`; gives the new
/// device and the chain head's `vkGetDeviceProcAddr`.
///
/// # Safety
/// `pd` must be a live physical device of the instance `api` describes; `info` a valid create
/// info for this call; `allocator` null or valid callbacks.
unsafe fn create_through_chain(
    api: &ApiInstance,
    layers: &[Arc<Layer>],
    pd: vk::PhysicalDevice,
    info: &vk::DeviceCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<(vk::Device, vk::PFN_vkGetDeviceProcAddr), vk::Result> {
    let mut chain = DeviceChain::new(
        layers,
        terminator::get_instance_proc_addr,
        terminator::get_device_proc_addr,
    );
    let head_gipa = chain.head_gipa();
    let head_gdpa = chain.head_gdpa();
    // SAFETY: the head's GIPA with the instance it created; the name fixes the type.
    let create: Option<vk::PFN_vkCreateDevice> =
        unsafe { driver::void_fn_as(head_gipa(api.handle, c"vkCreateDevice".as_ptr())) };
    let Some(create) = create else {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateDevice: the head of the layer chain has no vkCreateDevice"
        ));
    };
    let chained = chain.attach(info);
    let mut device = vk::Device::null();
    // SAFETY: a valid create info (the application's plus the chain nodes, which outlive the
    // call) and out-pointer.
    let result = unsafe { create(pd, &chained, allocator, &mut device) };
    if result != vk::Result::SUCCESS {
        log::warn!("vkCreateDevice: failed in the chain with {result:?}");
        return Err(result);
    }
    Ok((device, head_gdpa))
}

/// Every requested device extension must come from the physical device (down the instance
/// chain) or a global layer: `VK_ERROR_EXTENSION_NOT_PRESENT` otherwise, also reported to the
/// application's debug-report callbacks.
///
/// # Safety
/// `pd` must be a live physical device of `instance`.
unsafe fn check_extensions(
    instance: &InstanceData,
    pd: vk::PhysicalDevice,
    layers: &[Arc<Layer>],
    requested: &[&std::ffi::CStr],
) -> Result<(), vk::Result> {
    if requested.is_empty() {
        return Ok(());
    }
    let enumerate_down = instance.dispatch().enumerate_device_extension_properties;
    let mut available = enumerate(|c, o| {
        // SAFETY: the instance chain's command with the caller's physical device.
        unsafe { enumerate_down(pd, std::ptr::null(), c, o) }
    })?;
    available.extend(
        layers
            .iter()
            .flat_map(|l| l.device_extensions().iter().copied()),
    );
    for name in requested {
        if !extensions::contains(&available, name) {
            // AOSP's text (`LayerChain::ValidateExtensions`), to the application's debug-report
            // callbacks about the physical device.
            let msg = format!(
                "Failed to enable missing device extension {}",
                name.to_string_lossy()
            );
            crate::terminator::debug_report::report_about(
                &instance.term,
                vk::DebugReportFlagsEXT::ERROR,
                pd,
                &msg,
            );
            return Err(vk_error!(
                vk::Result::ERROR_EXTENSION_NOT_PRESENT,
                "vkCreateDevice: {msg} (neither the physical device nor a global layer has it)"
            ));
        }
    }
    Ok(())
}

/// `vkDestroyDevice`: down the chain; the terminator frees the loader data.
///
/// # Safety
/// Vulkan's contract for the command.
#[no_mangle]
pub unsafe extern "system" fn vkDestroyDevice(
    device: vk::Device,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyDevice", (), || {
        let _trace = crate::trace::section("DestroyDevice");
        let raw = vk::Handle::as_raw(device) as usize;
        if raw == 0 {
            return;
        }
        let layers: Vec<Arc<Layer>>;
        // SAFETY: `raw` is non-null (checked above) and the application's live device
        // (VUID-vkDestroyDevice-device-parameter); `checked_device_data` verifies word 0 against
        // the registry.
        let destroy = match unsafe { checked_device_data(raw, "vkDestroyDevice") } {
            Some(data) => {
                // Held across the call, as in `vkDestroyInstance`: a layer library must stay
                // mapped until its vkDestroyDevice has returned.
                layers = data
                    .api
                    .get()
                    .map(|api| api.layers.iter().cloned().collect())
                    .unwrap_or_default();
                data.dispatch().destroy_device
            }
            None => return,
        };
        // SAFETY: the head of the chain's vkDestroyDevice for this device.
        unsafe { destroy(device, p_allocator) };
        drop(layers);
    });
}

/// `vkEnumerateDeviceExtensionProperties`.
///
/// # Safety
/// Vulkan's two-call contract, with a physical device of this loader.
#[no_mangle]
pub unsafe extern "system" fn vkEnumerateDeviceExtensionProperties(
    physical_device: vk::PhysicalDevice,
    p_layer_name: *const c_char,
    p_property_count: *mut u32,
    p_properties: *mut vk::ExtensionProperties,
) -> vk::Result {
    guard(
        "vkEnumerateDeviceExtensionProperties",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let _trace = crate::trace::section("EnumerateDeviceExtensionProperties");
            // SAFETY: `p_layer_name` is the application's: null or a NUL-terminated string for this
            // call (VUID-vkEnumerateDeviceExtensionProperties-pLayerName-parameter).
            if let Some(name) = unsafe { cstr(p_layer_name) } {
                let Some(list) = init::loader()
                    .layers
                    .device_extensions_of(name, &crate::layers::LayerEnv::current().filters)
                else {
                    return vk_error!(
                        vk::Result::ERROR_LAYER_NOT_PRESENT,
                        "vkEnumerateDeviceExtensionProperties: layer {name:?} not present"
                    );
                };
                // SAFETY: `p_property_count` and `p_properties` are the application's count (null
                // is refused by `fill_array`) and array (null, or holding `*count` elements), valid
                // for this call per the command's VUIDs.
                return unsafe { fill_array(&list, p_property_count, p_properties) };
            }
            // SAFETY: `physical_device` is the application's, one this loader handed out
            // (VUID-vkEnumerateDeviceExtensionProperties-physicalDevice-parameter); its word 0
            // points at its instance's data.
            let Some(data) =
                (unsafe { instance_data(vk::Handle::as_raw(physical_device) as usize) })
            else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkEnumerateDeviceExtensionProperties: null physical device"
                );
            };
            let down = data.dispatch().enumerate_device_extension_properties;
            let settings = settings_layer_device_extensions();
            let implicit = host_implicit_device_extensions(data);
            if settings.is_empty() && implicit.is_empty() {
                // SAFETY: the instance chain's command with the caller's arguments.
                return unsafe {
                    down(
                        physical_device,
                        std::ptr::null(),
                        p_property_count,
                        p_properties,
                    )
                };
            }
            // AOSP's api level: a failing chain adds nothing (and is not the answer).
            let below = enumerate(|c, p| {
                // SAFETY: the instance chain's command; `enumerate` passes valid pointers.
                unsafe { down(physical_device, std::ptr::null(), c, p) }
            })
            .unwrap_or_else(|e| {
                log::warn!("vkEnumerateDeviceExtensionProperties: the chain failed ({e:?})");
                Vec::new()
            });
            let list =
                extensions::dedup(settings.into_iter().chain(below).chain(implicit).collect());
            // SAFETY: `p_property_count` and `p_properties` are the application's count (null is
            // refused by `fill_array`) and array (null, or holding `*count` elements), valid for
            // this call per the command's VUIDs.
            unsafe { fill_array(&list, p_property_count, p_properties) }
        },
    )
}

/// The device extensions of the GPU debug settings' layers (AOSP's `ForEachLayerFromSettings`,
/// whether or not the instance activated them), which AOSP lists before the driver's in
/// `vkEnumerateDeviceExtensionProperties(NULL)`; absent layers are skipped.
fn settings_layer_device_extensions() -> Vec<vk::ExtensionProperties> {
    let loader = init::loader();
    loader
        .config
        .gpu_debug
        .layers
        .iter()
        .filter_map(|name| loader.layers.find(name))
        .flat_map(|l| l.device_extensions().iter().copied())
        .collect()
}

/// The device extensions of the instance's active implicit Khronos manifest layers (Linux
/// hosts), which the Khronos loader adds to `vkEnumerateDeviceExtensionProperties(NULL)`.
fn host_implicit_device_extensions(data: &InstanceData) -> Vec<vk::ExtensionProperties> {
    data.api
        .get()
        .map(|api| {
            api.layers
                .iter()
                .filter(|l| l.is_host_implicit())
                .flat_map(|l| l.device_extensions().iter().copied())
                .collect()
        })
        .unwrap_or_default()
}

/// `vkEnumerateDeviceLayerProperties`: the instance's active layers, all of them (AOSP's
/// `LayerChain::GetActiveLayers(physicalDevice)`), whether or not they chain into devices.
///
/// # Safety
/// Vulkan's two-call contract, with a physical device of this loader.
#[no_mangle]
pub unsafe extern "system" fn vkEnumerateDeviceLayerProperties(
    physical_device: vk::PhysicalDevice,
    p_property_count: *mut u32,
    p_properties: *mut vk::LayerProperties,
) -> vk::Result {
    guard(
        "vkEnumerateDeviceLayerProperties",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let _trace = crate::trace::section("EnumerateDeviceLayerProperties");
            // SAFETY: `physical_device` is the application's, one this loader handed out
            // (VUID-vkEnumerateDeviceLayerProperties-physicalDevice-parameter); its word 0 points
            // at its instance's data.
            let Some(data) =
                (unsafe { instance_data(vk::Handle::as_raw(physical_device) as usize) })
            else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkEnumerateDeviceLayerProperties: null physical device"
                );
            };
            let properties: Vec<vk::LayerProperties> = data
                .api
                .get()
                .map(|api| api.layers.iter().map(|l| *l.properties()).collect())
                .unwrap_or_default();
            // SAFETY: `p_property_count` and `p_properties` are the application's count (null is
            // refused by `fill_array`) and array (null, or holding `*count` elements), valid for
            // this call per the command's VUIDs.
            unsafe { fill_array(&properties, p_property_count, p_properties) }
        },
    )
}
