//! Global and instance commands: version and extension enumeration, instance creation (the
//! spec's checks, then the vendor's physical devices), enumeration, and the instance's
//! `VK_EXT_debug_report` / `VK_EXT_debug_utils` callbacks.

// The `unsafe` entry points are Vulkan commands: their safety contract is the command's valid
// usage in the specification, which each one links to.
#![allow(clippy::missing_safety_doc)]

use std::ffi::c_char;

use vkgen_generated::extensions::ExtensionKind;
use vkgen_generated::vk;

use super::args::owned_cstr;
use crate::handles::{create_dispatchable, destroy_dispatchable, Dispatchable, HostAllocator};
use crate::kit::api::Kit;
use crate::kit::extensions::{parse_enabled, ExtensionSet};
use crate::kit::objects::{Instance, InstanceInfo, PhysicalDevice};
use crate::util::{guard, write_array, write_array_with};

/// [`vkEnumerateInstanceVersion`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEnumerateInstanceVersion.html)
pub unsafe extern "system" fn enumerate_instance_version<D: Kit>(
    p_api_version: *mut u32,
) -> vk::Result {
    guard(
        "vkEnumerateInstanceVersion",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `p_api_version` is the application's vkEnumerateInstanceVersion output, null
            // or valid for one write; `as_mut` skips a null one.
            if let Some(v) = unsafe { p_api_version.as_mut() } {
                *v = D::instance_version();
            }
            vk::Result::SUCCESS
        },
    )
}

/// The instance extensions a kit driver supports.
pub fn instance_extensions<D: Kit>() -> ExtensionSet {
    ExtensionSet::from_ids(D::instance_extensions())
}

/// [`vkEnumerateInstanceExtensionProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEnumerateInstanceExtensionProperties.html)
pub unsafe extern "system" fn enumerate_instance_extension_properties<D: Kit>(
    p_layer_name: *const c_char,
    p_property_count: *mut u32,
    p_properties: *mut vk::ExtensionProperties,
) -> vk::Result {
    guard(
        "vkEnumerateInstanceExtensionProperties",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            if !p_layer_name.is_null() {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_LAYER_NOT_PRESENT,
                    "vkEnumerateInstanceExtensionProperties: a driver has no layers"
                );
            }
            // SAFETY: `p_property_count` and `p_properties` are the application's two-call idiom
            // pointers of vkEnumerateInstanceExtensionProperties, null or valid for
            // `*p_property_count` elements.
            unsafe { instance_extensions::<D>().write_properties(p_property_count, p_properties) }
        },
    )
}

/// [`vkEnumerateInstanceLayerProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEnumerateInstanceLayerProperties.html)
pub unsafe extern "system" fn enumerate_instance_layer_properties<D: Kit>(
    p_property_count: *mut u32,
    p_properties: *mut vk::LayerProperties,
) -> vk::Result {
    // SAFETY: `p_property_count` and `p_properties` are the application's two-call idiom pointers
    // of vkEnumerateInstanceLayerProperties, null or valid; no layers are written.
    guard(
        "vkEnumerateInstanceLayerProperties",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || unsafe { write_array::<vk::LayerProperties>(&[], p_property_count, p_properties) },
    )
}

/// [`vkCreateInstance`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateInstance.html)
pub unsafe extern "system" fn create_instance<D: Kit>(
    p_create_info: *const vk::InstanceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_instance: *mut vk::Instance,
) -> vk::Result {
    guard(
        "vkCreateInstance",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            // SAFETY: the application's vkCreateInstance create info and allocator, unchanged, for
            // `create_instance_impl`, whose contract is the command's.
            match unsafe { create_instance_impl::<D>(p_create_info, p_allocator) } {
                Ok(handle) => {
                    // SAFETY: `p_instance` is the application's vkCreateInstance output, valid for
                    // a write.
                    unsafe { *p_instance = handle };
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    )
}

unsafe fn create_instance_impl<D: Kit>(
    p_create_info: *const vk::InstanceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<vk::Instance, vk::Result> {
    // SAFETY: `p_create_info` is the application's vkCreateInstance create info, null or valid for
    // this call; null is refused.
    let ci = unsafe { p_create_info.as_ref() }.ok_or_else(|| {
        vkgen_abi::vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateInstance without a create info"
        )
    })?;
    if ci.enabled_layer_count > 0 {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_LAYER_NOT_PRESENT,
            "vkCreateInstance: {} layer(s) asked of a driver, which has none",
            ci.enabled_layer_count
        ));
    }
    // SAFETY: `pApplicationInfo` of that create info, null or valid for this call.
    let app = unsafe { ci.p_application_info.as_ref() };
    let api_version = app
        .map(|a| a.api_version)
        .filter(|&v| v != 0)
        .unwrap_or(vk::API_VERSION_1_0);
    // A 1.0 implementation must refuse any other version (the spec's one INCOMPATIBLE case).
    if vk::api_version_minor(D::instance_version()) == 0
        && vk::api_version_major(D::instance_version()) == 1
        && vk::api_version_minor(api_version) > 0
    {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INCOMPATIBLE_DRIVER,
            "vkCreateInstance: a 1.0 driver asked for apiVersion {}.{}",
            vk::api_version_major(api_version),
            vk::api_version_minor(api_version)
        ));
    }
    // SAFETY: `ppEnabledExtensionNames` holds `enabledExtensionCount` C strings.
    let enabled = unsafe {
        parse_enabled(
            ci.pp_enabled_extension_names,
            ci.enabled_extension_count,
            ExtensionKind::Instance,
            &instance_extensions::<D>(),
            &ExtensionSet::default(),
            api_version,
        )
    }
    .map_err(|e| vkgen_abi::vk_error!(e.result(), "vkCreateInstance: {e}"))?;
    let info = InstanceInfo {
        api_version,
        // SAFETY: `pApplicationName` of the application's `VkApplicationInfo`: null or a
        // NUL-terminated string valid for this call; it is copied.
        application_name: app.and_then(|a| unsafe { owned_cstr(a.p_application_name) }),
        application_version: app.map_or(0, |a| a.application_version),
        // SAFETY: `pEngineName` of the same `VkApplicationInfo`: null or a NUL-terminated string
        // valid for this call; it is copied.
        engine_name: app.and_then(|a| unsafe { owned_cstr(a.p_engine_name) }),
        engine_version: app.map_or(0, |a| a.engine_version),
        enabled_extensions: enabled,
    };
    let data = D::instance_data(&info)?;
    let value = Instance::<D> {
        info,
        enabled_extensions: enabled,
        // SAFETY: the application's callbacks or null.
        allocator: unsafe { HostAllocator::from_ptr(p_allocator) },
        debug: Default::default(),
        physical: Default::default(),
        data,
    };
    // SAFETY: the application's callbacks or null.
    let ptr =
        unsafe { create_dispatchable(value, p_allocator, vk::SystemAllocationScope::INSTANCE) }?;
    // SAFETY: just created, not yet shared.
    let inst = unsafe { ptr.as_ref() };
    let descs = match D::physical_devices(inst) {
        Ok(d) => d,
        Err(e) => {
            // SAFETY: our own fresh object, never handed out.
            unsafe { destroy_dispatchable::<Instance<D>>(inst.raw_handle()) };
            return Err(e);
        }
    };
    crate::kit::requirements::report::report_dropped::<D>(&descs);
    let physical = descs
        .into_iter()
        .map(|d| {
            Dispatchable::new(PhysicalDevice::<D> {
                instance: ptr,
                properties: crate::kit::requirements::rules::with_update_after_bind_floor(
                    d.properties,
                ),
                features: d.features,
                queue_families: d.queue_families,
                memory: d.memory,
                formats: d.formats,
                heaps: Default::default(),
                extensions: ExtensionSet::from_ids(&d.extensions),
                data: d.data,
            })
        })
        .collect();
    let _ = inst.physical.set(physical);
    Ok(inst.handle())
}

// --- instance ------------------------------------------------------------------------------

/// [`vkDestroyInstance`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyInstance.html)
pub unsafe extern "system" fn destroy_instance<D: Kit>(
    instance: vk::Instance,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    // SAFETY: null or a live instance the application is done with.
    guard("vkDestroyInstance", (), || unsafe {
        destroy_dispatchable::<Instance<D>>(vk::Handle::as_raw(instance));
    })
}

/// [`vkEnumeratePhysicalDevices`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEnumeratePhysicalDevices.html)
pub unsafe extern "system" fn enumerate_physical_devices<D: Kit>(
    instance: vk::Instance,
    p_count: *mut u32,
    p_devices: *mut vk::PhysicalDevice,
) -> vk::Result {
    guard(
        "vkEnumeratePhysicalDevices",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            // SAFETY: `instance` is a live instance of this driver (the command's valid usage);
            // `from_handle` checks its signature.
            let Some(inst) = (unsafe { Instance::<D>::from_handle(instance) }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "{instance:?} is no instance of this driver"
                );
            };
            let list: Vec<vk::PhysicalDevice> =
                inst.physical_devices().iter().map(|p| p.handle()).collect();
            // SAFETY: `p_count` and `p_devices` are the application's two-call idiom pointers of
            // vkEnumeratePhysicalDevices, null or valid for `*p_count` elements.
            unsafe { write_array(&list, p_count, p_devices) }
        },
    )
}

/// [`vkEnumeratePhysicalDeviceGroups`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEnumeratePhysicalDeviceGroups.html):
/// one group per device.
pub unsafe extern "system" fn enumerate_physical_device_groups<D: Kit>(
    instance: vk::Instance,
    p_count: *mut u32,
    p_groups: *mut vk::PhysicalDeviceGroupProperties<'_>,
) -> vk::Result {
    guard(
        "vkEnumeratePhysicalDeviceGroups",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            // SAFETY: `instance` is a live instance of this driver (the command's valid usage);
            // `from_handle` checks its signature.
            let Some(inst) = (unsafe { Instance::<D>::from_handle(instance) }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "{instance:?} is no instance of this driver"
                );
            };
            let list = inst.physical_devices();
            // SAFETY: two-call idiom arguments; elements initialised by the application.
            unsafe {
                write_array_with(list.len(), p_count, p_groups, |i, g| {
                    g.physical_device_count = 1;
                    g.physical_devices = [vk::PhysicalDevice::null(); vk::MAX_DEVICE_GROUP_SIZE];
                    g.physical_devices[0] = list[i].handle();
                    g.subset_allocation = vk::FALSE;
                })
            }
        },
    )
}

/// [`vkCreateDebugReportCallbackEXT`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateDebugReportCallbackEXT.html)
pub unsafe extern "system" fn create_debug_report_callback_ext<D: Kit>(
    instance: vk::Instance,
    p_create_info: *const vk::DebugReportCallbackCreateInfoEXT<'_>,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
    p_callback: *mut vk::DebugReportCallbackEXT,
) -> vk::Result {
    // SAFETY: the application's vkCreateDebugReportCallbackEXT arguments, unchanged, for
    // `add_callback`, whose contract is the command's.
    unsafe {
        add_callback::<D, _, _>(instance, p_create_info, p_callback, |d, ci| {
            d.add_report(ci)
        })
    }
}

/// Registers a debug callback of either extension on `instance`; its handle goes to `out`.
///
/// # Safety
/// `instance` is null or live; `ci` and `out` are valid per the command's valid usage.
unsafe fn add_callback<D: Kit, C, H: vk::Handle>(
    instance: vk::Instance,
    ci: *const C,
    out: *mut H,
    add: impl FnOnce(&super::super::debug::Callbacks, &C) -> u64,
) -> vk::Result {
    guard(
        concat!(module_path!(), "::add_callback"),
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `instance` is null or a live instance of this driver (this function's
            // contract), checked by `from_handle`'s signature test; `ci` is null or the
            // application's valid create info.
            let (Some(inst), Some(ci)) =
                (unsafe { Instance::<D>::from_handle(instance) }, unsafe {
                    ci.as_ref()
                })
            else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "debug callback: {instance:?} is no instance of this driver, or no create info"
                );
            };
            let h = add(&inst.debug, ci);
            // SAFETY: `out` is the application's output handle pointer, valid for a write (this
            // function's contract).
            unsafe { *out = H::from_raw(h) };
            vk::Result::SUCCESS
        },
    )
}

/// [`vkDestroyDebugReportCallbackEXT`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyDebugReportCallbackEXT.html)
pub unsafe extern "system" fn destroy_debug_report_callback_ext<D: Kit>(
    instance: vk::Instance,
    callback: vk::DebugReportCallbackEXT,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyDebugReportCallbackEXT", (), || {
        // SAFETY: `instance` is a live instance of this driver (vkDestroyDebugReportCallbackEXT's
        // valid usage); `from_handle` checks its signature.
        if let Some(inst) = unsafe { Instance::<D>::from_handle(instance) } {
            inst.debug.remove_report(vk::Handle::as_raw(callback));
        }
    })
}

/// [`vkDebugReportMessageEXT`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDebugReportMessageEXT.html)
pub unsafe extern "system" fn debug_report_message_ext<D: Kit>(
    instance: vk::Instance,
    flags: vk::DebugReportFlagsEXT,
    object_type: vk::DebugReportObjectTypeEXT,
    object: u64,
    _location: usize,
    message_code: i32,
    p_layer_prefix: *const c_char,
    p_message: *const c_char,
) {
    guard("vkDebugReportMessageEXT", (), || {
        // SAFETY: `instance` is a live instance of this driver (vkDebugReportMessageEXT's valid
        // usage), and `from_handle` checks its signature.
        let Some(inst) = (unsafe { Instance::<D>::from_handle(instance) }) else {
            return;
        };
        // SAFETY: `p_layer_prefix` is null or the application's NUL-terminated string, valid for
        // this call; it is copied.
        let prefix = unsafe { owned_cstr(p_layer_prefix) }.unwrap_or_default();
        // SAFETY: `p_message` is null or the application's NUL-terminated string, valid for this
        // call; it is copied.
        let message = unsafe { owned_cstr(p_message) }.unwrap_or_default();
        inst.debug.report(
            flags,
            (object_type, object),
            message_code,
            &prefix,
            &message,
        );
    })
}

/// [`vkCreateDebugUtilsMessengerEXT`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateDebugUtilsMessengerEXT.html)
pub unsafe extern "system" fn create_debug_utils_messenger_ext<D: Kit>(
    instance: vk::Instance,
    p_create_info: *const vk::DebugUtilsMessengerCreateInfoEXT<'_>,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
    p_messenger: *mut vk::DebugUtilsMessengerEXT,
) -> vk::Result {
    // SAFETY: the application's vkCreateDebugUtilsMessengerEXT arguments, unchanged, for
    // `add_callback`, whose contract is the command's.
    unsafe {
        add_callback::<D, _, _>(instance, p_create_info, p_messenger, |d, ci| {
            d.add_messenger(ci)
        })
    }
}

/// [`vkDestroyDebugUtilsMessengerEXT`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyDebugUtilsMessengerEXT.html)
pub unsafe extern "system" fn destroy_debug_utils_messenger_ext<D: Kit>(
    instance: vk::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyDebugUtilsMessengerEXT", (), || {
        // SAFETY: `instance` is a live instance of this driver (vkDestroyDebugUtilsMessengerEXT's
        // valid usage); `from_handle` checks its signature.
        if let Some(inst) = unsafe { Instance::<D>::from_handle(instance) } {
            inst.debug.remove_messenger(vk::Handle::as_raw(messenger));
        }
    })
}

/// [`vkSubmitDebugUtilsMessageEXT`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkSubmitDebugUtilsMessageEXT.html)
pub unsafe extern "system" fn submit_debug_utils_message_ext<D: Kit>(
    instance: vk::Instance,
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    p_callback_data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
) {
    guard("vkSubmitDebugUtilsMessageEXT", (), || {
        // SAFETY: `instance` is a live instance of this driver (vkSubmitDebugUtilsMessageEXT's
        // valid usage), and `from_handle` checks its signature.
        if let Some(inst) = unsafe { Instance::<D>::from_handle(instance) } {
            // SAFETY: `p_callback_data` is the application's valid
            // `VkDebugUtilsMessengerCallbackDataEXT` for this call, the structure `submit` reads.
            unsafe { inst.debug.submit(severity, types, p_callback_data) };
        }
    })
}

/// [`vkSetDebugUtilsObjectNameEXT`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkSetDebugUtilsObjectNameEXT.html):
/// accepted; the kit keeps no names.
pub unsafe extern "system" fn set_debug_utils_object_name_ext<D: Kit>(
    _device: vk::Device,
    _p_name_info: *const vk::DebugUtilsObjectNameInfoEXT<'_>,
) -> vk::Result {
    vk::Result::SUCCESS
}

/// [`vkSetDebugUtilsObjectTagEXT`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkSetDebugUtilsObjectTagEXT.html):
/// accepted; the kit keeps no tags.
pub unsafe extern "system" fn set_debug_utils_object_tag_ext<D: Kit>(
    _device: vk::Device,
    _p_tag_info: *const vk::DebugUtilsObjectTagInfoEXT<'_>,
) -> vk::Result {
    vk::Result::SUCCESS
}

/// `vkQueue{Begin,Insert}DebugUtilsLabelEXT`: labels are for tools; nothing to do.
pub unsafe extern "system" fn queue_label<D: Kit>(
    _queue: vk::Queue,
    _p_label: *const vk::DebugUtilsLabelEXT<'_>,
) {
}

/// `vkQueueEndDebugUtilsLabelEXT`.
pub unsafe extern "system" fn queue_end_label<D: Kit>(_queue: vk::Queue) {}

/// `vkCmd{Begin,Insert}DebugUtilsLabelEXT`.
pub unsafe extern "system" fn cmd_label<D: Kit>(
    _command_buffer: vk::CommandBuffer,
    _p_label: *const vk::DebugUtilsLabelEXT<'_>,
) {
}

/// `vkCmdEndDebugUtilsLabelEXT`.
pub unsafe extern "system" fn cmd_end_label<D: Kit>(_command_buffer: vk::CommandBuffer) {}
