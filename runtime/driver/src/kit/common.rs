//! The kit's common implementations (Mesa's `vk_common_*`): commands whose answer follows from
//! the base objects and the vendor's tables, written once for every driver and reached through
//! [`super::fallback`] when the vendor has no hook of its own.
//!
//! "One hook per concept": a 1.0 query and its `…2` twin, `vkBindBufferMemory` and
//! `vkBindBufferMemory2`, and the like, are one implementation. If the vendor implements one of
//! a pair, the other is routed to it here (converting the arguments); if it implements
//! neither, the table-driven query answers both.
//!
//! Every entry point is `extern "system"` and panic-guarded: a panic becomes the failure value
//! the command allows (`VK_ERROR_INITIALIZATION_FAILED` for creation, `VK_ERROR_UNKNOWN`
//! elsewhere; nothing for void commands), never an unwind into C.

// The `unsafe` entry points are Vulkan commands: their safety contract is the command's valid
// usage in the specification, which each one links to.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::{self, NonNull};

use vkgen_generated::commands::{self, CommandId as C, Level};
use vkgen_generated::extensions::ExtensionKind;
use vkgen_generated::vk;

use super::command::{
    allocate_command_buffers, create_command_pool, destroy_command_pool, free_command_buffers,
};
use super::debug::Severity;
use super::extensions::{parse_enabled, ExtensionSet};
use super::objects::{Device, DeviceInfo, Instance, InstanceInfo, PhysicalDevice, Queue};
use super::{Features, Kit};
use crate::handles::{create_dispatchable, destroy_dispatchable, Dispatchable, HostAllocator};
use crate::util::{find_in_chain, for_each_out, write_array, write_array_with};

/// Runs `f`; a panic becomes `fail`.
fn guard<R>(fail: R, f: impl FnOnce() -> R) -> R {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(fail)
}

fn from_result(r: Result<(), vk::Result>) -> vk::Result {
    r.err().unwrap_or(vk::Result::SUCCESS)
}

/// The kit's entry point for `cmd` (canonical), given what the vendor implements.
pub fn entry<D: Kit>(cmd: C) -> vk::PFN_vkVoidFunction {
    macro_rules! pfn {
        ($f:ident, $t:ident) => {{
            let f: vkgen_generated::pfn::$t = $f::<D>;
            // SAFETY: every function pointer has the same representation; callers cast back
            // to the type of the command they asked for, which is `$t`.
            Some(unsafe {
                std::mem::transmute::<vkgen_generated::pfn::$t, unsafe extern "system" fn()>(f)
            })
        }};
    }
    /// The table-driven answer, or the route through the vendor's twin when it has one.
    macro_rules! pair {
        ($twin:ident, $routed:ident, $table:ident, $t:ident) => {
            if D::implements(C::$twin) {
                pfn!($routed, $t)
            } else {
                pfn!($table, $t)
            }
        };
    }
    /// Only as a route to the vendor's twin.
    macro_rules! route {
        ($twin:ident, $routed:ident, $t:ident) => {
            if D::implements(C::$twin) {
                pfn!($routed, $t)
            } else {
                None
            }
        };
    }
    match cmd {
        C::ENUMERATE_INSTANCE_VERSION => {
            pfn!(enumerate_instance_version, PFN_vkEnumerateInstanceVersion)
        }
        C::ENUMERATE_INSTANCE_EXTENSION_PROPERTIES => pfn!(
            enumerate_instance_extension_properties,
            PFN_vkEnumerateInstanceExtensionProperties
        ),
        C::ENUMERATE_INSTANCE_LAYER_PROPERTIES => pfn!(
            enumerate_instance_layer_properties,
            PFN_vkEnumerateInstanceLayerProperties
        ),
        C::CREATE_INSTANCE => pfn!(create_instance, PFN_vkCreateInstance),
        C::DESTROY_INSTANCE => pfn!(destroy_instance, PFN_vkDestroyInstance),
        C::ENUMERATE_PHYSICAL_DEVICES => {
            pfn!(enumerate_physical_devices, PFN_vkEnumeratePhysicalDevices)
        }
        C::ENUMERATE_PHYSICAL_DEVICE_GROUPS => pfn!(
            enumerate_physical_device_groups,
            PFN_vkEnumeratePhysicalDeviceGroups
        ),
        C::CREATE_DEBUG_REPORT_CALLBACK_EXT => pfn!(
            create_debug_report_callback_ext,
            PFN_vkCreateDebugReportCallbackEXT
        ),
        C::DESTROY_DEBUG_REPORT_CALLBACK_EXT => pfn!(
            destroy_debug_report_callback_ext,
            PFN_vkDestroyDebugReportCallbackEXT
        ),
        C::DEBUG_REPORT_MESSAGE_EXT => pfn!(debug_report_message_ext, PFN_vkDebugReportMessageEXT),
        C::CREATE_DEBUG_UTILS_MESSENGER_EXT => pfn!(
            create_debug_utils_messenger_ext,
            PFN_vkCreateDebugUtilsMessengerEXT
        ),
        C::DESTROY_DEBUG_UTILS_MESSENGER_EXT => pfn!(
            destroy_debug_utils_messenger_ext,
            PFN_vkDestroyDebugUtilsMessengerEXT
        ),
        C::SUBMIT_DEBUG_UTILS_MESSAGE_EXT => pfn!(
            submit_debug_utils_message_ext,
            PFN_vkSubmitDebugUtilsMessageEXT
        ),
        C::SET_DEBUG_UTILS_OBJECT_NAME_EXT => pfn!(
            set_debug_utils_object_name_ext,
            PFN_vkSetDebugUtilsObjectNameEXT
        ),
        C::SET_DEBUG_UTILS_OBJECT_TAG_EXT => pfn!(
            set_debug_utils_object_tag_ext,
            PFN_vkSetDebugUtilsObjectTagEXT
        ),
        C::QUEUE_BEGIN_DEBUG_UTILS_LABEL_EXT => {
            pfn!(queue_label, PFN_vkQueueBeginDebugUtilsLabelEXT)
        }
        C::QUEUE_INSERT_DEBUG_UTILS_LABEL_EXT => {
            pfn!(queue_label, PFN_vkQueueInsertDebugUtilsLabelEXT)
        }
        C::QUEUE_END_DEBUG_UTILS_LABEL_EXT => {
            pfn!(queue_end_label, PFN_vkQueueEndDebugUtilsLabelEXT)
        }
        C::CMD_BEGIN_DEBUG_UTILS_LABEL_EXT => pfn!(cmd_label, PFN_vkCmdBeginDebugUtilsLabelEXT),
        C::CMD_INSERT_DEBUG_UTILS_LABEL_EXT => pfn!(cmd_label, PFN_vkCmdInsertDebugUtilsLabelEXT),
        C::CMD_END_DEBUG_UTILS_LABEL_EXT => pfn!(cmd_end_label, PFN_vkCmdEndDebugUtilsLabelEXT),

        C::GET_PHYSICAL_DEVICE_FEATURES => pair!(
            GET_PHYSICAL_DEVICE_FEATURES2,
            features_via_2,
            get_physical_device_features,
            PFN_vkGetPhysicalDeviceFeatures
        ),
        C::GET_PHYSICAL_DEVICE_FEATURES2 => pfn!(
            get_physical_device_features2,
            PFN_vkGetPhysicalDeviceFeatures2
        ),
        C::GET_PHYSICAL_DEVICE_PROPERTIES => pair!(
            GET_PHYSICAL_DEVICE_PROPERTIES2,
            properties_via_2,
            get_physical_device_properties,
            PFN_vkGetPhysicalDeviceProperties
        ),
        C::GET_PHYSICAL_DEVICE_PROPERTIES2 => pfn!(
            get_physical_device_properties2,
            PFN_vkGetPhysicalDeviceProperties2
        ),
        C::GET_PHYSICAL_DEVICE_QUEUE_FAMILY_PROPERTIES => pair!(
            GET_PHYSICAL_DEVICE_QUEUE_FAMILY_PROPERTIES2,
            queue_families_via_2,
            get_physical_device_queue_family_properties,
            PFN_vkGetPhysicalDeviceQueueFamilyProperties
        ),
        C::GET_PHYSICAL_DEVICE_QUEUE_FAMILY_PROPERTIES2 => pfn!(
            get_physical_device_queue_family_properties2,
            PFN_vkGetPhysicalDeviceQueueFamilyProperties2
        ),
        C::GET_PHYSICAL_DEVICE_MEMORY_PROPERTIES => pair!(
            GET_PHYSICAL_DEVICE_MEMORY_PROPERTIES2,
            memory_via_2,
            get_physical_device_memory_properties,
            PFN_vkGetPhysicalDeviceMemoryProperties
        ),
        C::GET_PHYSICAL_DEVICE_MEMORY_PROPERTIES2 => pfn!(
            get_physical_device_memory_properties2,
            PFN_vkGetPhysicalDeviceMemoryProperties2
        ),
        C::GET_PHYSICAL_DEVICE_FORMAT_PROPERTIES => pair!(
            GET_PHYSICAL_DEVICE_FORMAT_PROPERTIES2,
            format_via_2,
            get_physical_device_format_properties,
            PFN_vkGetPhysicalDeviceFormatProperties
        ),
        C::GET_PHYSICAL_DEVICE_FORMAT_PROPERTIES2 => pfn!(
            get_physical_device_format_properties2,
            PFN_vkGetPhysicalDeviceFormatProperties2
        ),
        C::GET_PHYSICAL_DEVICE_IMAGE_FORMAT_PROPERTIES => pair!(
            GET_PHYSICAL_DEVICE_IMAGE_FORMAT_PROPERTIES2,
            image_format_via_2,
            get_physical_device_image_format_properties,
            PFN_vkGetPhysicalDeviceImageFormatProperties
        ),
        C::GET_PHYSICAL_DEVICE_IMAGE_FORMAT_PROPERTIES2 => pfn!(
            get_physical_device_image_format_properties2,
            PFN_vkGetPhysicalDeviceImageFormatProperties2
        ),
        C::GET_PHYSICAL_DEVICE_SPARSE_IMAGE_FORMAT_PROPERTIES => pair!(
            GET_PHYSICAL_DEVICE_SPARSE_IMAGE_FORMAT_PROPERTIES2,
            sparse_format_via_2,
            get_physical_device_sparse_image_format_properties,
            PFN_vkGetPhysicalDeviceSparseImageFormatProperties
        ),
        C::GET_PHYSICAL_DEVICE_SPARSE_IMAGE_FORMAT_PROPERTIES2 => pfn!(
            get_physical_device_sparse_image_format_properties2,
            PFN_vkGetPhysicalDeviceSparseImageFormatProperties2
        ),
        C::GET_PHYSICAL_DEVICE_EXTERNAL_BUFFER_PROPERTIES => pfn!(
            get_physical_device_external_buffer_properties,
            PFN_vkGetPhysicalDeviceExternalBufferProperties
        ),
        C::GET_PHYSICAL_DEVICE_EXTERNAL_FENCE_PROPERTIES => pfn!(
            get_physical_device_external_fence_properties,
            PFN_vkGetPhysicalDeviceExternalFenceProperties
        ),
        C::GET_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_PROPERTIES => pfn!(
            get_physical_device_external_semaphore_properties,
            PFN_vkGetPhysicalDeviceExternalSemaphoreProperties
        ),
        C::GET_PHYSICAL_DEVICE_TOOL_PROPERTIES => pfn!(
            get_physical_device_tool_properties,
            PFN_vkGetPhysicalDeviceToolProperties
        ),
        C::ENUMERATE_DEVICE_EXTENSION_PROPERTIES => pfn!(
            enumerate_device_extension_properties,
            PFN_vkEnumerateDeviceExtensionProperties
        ),
        C::ENUMERATE_DEVICE_LAYER_PROPERTIES => pfn!(
            enumerate_device_layer_properties,
            PFN_vkEnumerateDeviceLayerProperties
        ),
        C::CREATE_DEVICE => pfn!(create_device, PFN_vkCreateDevice),
        C::DESTROY_DEVICE => pfn!(destroy_device, PFN_vkDestroyDevice),
        C::GET_DEVICE_QUEUE => pfn!(get_device_queue, PFN_vkGetDeviceQueue),
        C::GET_DEVICE_QUEUE2 => pfn!(get_device_queue2, PFN_vkGetDeviceQueue2),

        C::CREATE_COMMAND_POOL => pfn!(create_command_pool, PFN_vkCreateCommandPool),
        C::DESTROY_COMMAND_POOL => pfn!(destroy_command_pool, PFN_vkDestroyCommandPool),
        C::ALLOCATE_COMMAND_BUFFERS => pfn!(allocate_command_buffers, PFN_vkAllocateCommandBuffers),
        C::FREE_COMMAND_BUFFERS => pfn!(free_command_buffers, PFN_vkFreeCommandBuffers),

        C::BIND_BUFFER_MEMORY => route!(
            BIND_BUFFER_MEMORY2,
            bind_buffer_memory_via_2,
            PFN_vkBindBufferMemory
        ),
        C::BIND_BUFFER_MEMORY2 => route!(
            BIND_BUFFER_MEMORY,
            bind_buffer_memory2_via_1,
            PFN_vkBindBufferMemory2
        ),
        C::BIND_IMAGE_MEMORY => route!(
            BIND_IMAGE_MEMORY2,
            bind_image_memory_via_2,
            PFN_vkBindImageMemory
        ),
        C::BIND_IMAGE_MEMORY2 => route!(
            BIND_IMAGE_MEMORY,
            bind_image_memory2_via_1,
            PFN_vkBindImageMemory2
        ),
        C::GET_BUFFER_MEMORY_REQUIREMENTS => route!(
            GET_BUFFER_MEMORY_REQUIREMENTS2,
            buffer_requirements_via_2,
            PFN_vkGetBufferMemoryRequirements
        ),
        C::GET_BUFFER_MEMORY_REQUIREMENTS2 => route!(
            GET_BUFFER_MEMORY_REQUIREMENTS,
            buffer_requirements2_via_1,
            PFN_vkGetBufferMemoryRequirements2
        ),
        C::GET_IMAGE_MEMORY_REQUIREMENTS => route!(
            GET_IMAGE_MEMORY_REQUIREMENTS2,
            image_requirements_via_2,
            PFN_vkGetImageMemoryRequirements
        ),
        C::GET_IMAGE_MEMORY_REQUIREMENTS2 => route!(
            GET_IMAGE_MEMORY_REQUIREMENTS,
            image_requirements2_via_1,
            PFN_vkGetImageMemoryRequirements2
        ),
        C::GET_IMAGE_SPARSE_MEMORY_REQUIREMENTS => route!(
            GET_IMAGE_SPARSE_MEMORY_REQUIREMENTS2,
            sparse_requirements_via_2,
            PFN_vkGetImageSparseMemoryRequirements
        ),
        C::GET_IMAGE_SPARSE_MEMORY_REQUIREMENTS2 => route!(
            GET_IMAGE_SPARSE_MEMORY_REQUIREMENTS,
            sparse_requirements2_via_1,
            PFN_vkGetImageSparseMemoryRequirements2
        ),
        _ => None,
    }
}

/// Commands that take the kit's base objects: never answered by anything but the kit or the
/// vendor (the null driver's versions would misread them).
pub fn kit_owned(cmd: C) -> bool {
    commands::info(cmd).level != Level::Device
        || matches!(
            cmd,
            C::DESTROY_DEVICE | C::GET_DEVICE_QUEUE | C::GET_DEVICE_QUEUE2
        )
}

/// A slice from a Vulkan array argument (empty for null or zero).
///
/// # Safety
/// Non-null `p` holds `n` elements that outlive `'a`.
unsafe fn slice<'a, T>(p: *const T, n: u32) -> &'a [T] {
    if p.is_null() || n == 0 {
        &[]
    } else {
        // SAFETY: per the caller.
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}

/// An optional C string argument, copied.
///
/// # Safety
/// `p` is null or a C string.
unsafe fn owned_cstr(p: *const c_char) -> Option<CString> {
    // SAFETY: per the caller.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_owned())
}

// --- global --------------------------------------------------------------------------------

/// [`vkEnumerateInstanceVersion`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEnumerateInstanceVersion.html)
pub unsafe extern "system" fn enumerate_instance_version<D: Kit>(
    p_api_version: *mut u32,
) -> vk::Result {
    guard(vk::Result::ERROR_OUT_OF_HOST_MEMORY, || {
        // SAFETY: a valid output pointer per valid usage (null tolerated).
        if let Some(v) = unsafe { p_api_version.as_mut() } {
            *v = D::instance_version();
        }
        vk::Result::SUCCESS
    })
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
    guard(vk::Result::ERROR_OUT_OF_HOST_MEMORY, || {
        if !p_layer_name.is_null() {
            return vk::Result::ERROR_LAYER_NOT_PRESENT;
        }
        // SAFETY: two-call idiom arguments.
        unsafe { instance_extensions::<D>().write_properties(p_property_count, p_properties) }
    })
}

/// [`vkEnumerateInstanceLayerProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEnumerateInstanceLayerProperties.html)
pub unsafe extern "system" fn enumerate_instance_layer_properties<D: Kit>(
    p_property_count: *mut u32,
    p_properties: *mut vk::LayerProperties,
) -> vk::Result {
    // SAFETY: two-call idiom arguments.
    guard(vk::Result::ERROR_OUT_OF_HOST_MEMORY, || unsafe {
        write_array::<vk::LayerProperties>(&[], p_property_count, p_properties)
    })
}

/// [`vkCreateInstance`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateInstance.html)
pub unsafe extern "system" fn create_instance<D: Kit>(
    p_create_info: *const vk::InstanceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_instance: *mut vk::Instance,
) -> vk::Result {
    guard(vk::Result::ERROR_INITIALIZATION_FAILED, || {
        // SAFETY: forwarded arguments.
        match unsafe { create_instance_impl::<D>(p_create_info, p_allocator) } {
            Ok(handle) => {
                // SAFETY: a valid output pointer per valid usage.
                unsafe { *p_instance = handle };
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    })
}

unsafe fn create_instance_impl<D: Kit>(
    p_create_info: *const vk::InstanceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<vk::Instance, vk::Result> {
    // SAFETY: valid create info per valid usage.
    let ci = unsafe { p_create_info.as_ref() }.ok_or(vk::Result::ERROR_INITIALIZATION_FAILED)?;
    if ci.enabled_layer_count > 0 {
        return Err(vk::Result::ERROR_LAYER_NOT_PRESENT);
    }
    // SAFETY: as above.
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
        return Err(vk::Result::ERROR_INCOMPATIBLE_DRIVER);
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
    .map_err(|e| {
        log::warn!("vkCreateInstance: {e}");
        e.result()
    })?;
    let info = InstanceInfo {
        api_version,
        // SAFETY: C strings per valid usage.
        application_name: app.and_then(|a| unsafe { owned_cstr(a.p_application_name) }),
        application_version: app.map_or(0, |a| a.application_version),
        // SAFETY: as above.
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
    let physical = descs
        .into_iter()
        .map(|d| {
            Dispatchable::new(PhysicalDevice::<D> {
                instance: ptr,
                properties: d.properties,
                features: d.features,
                queue_families: d.queue_families,
                memory: d.memory,
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
    guard((), || unsafe {
        destroy_dispatchable::<Instance<D>>(vk::Handle::as_raw(instance));
    })
}

/// [`vkEnumeratePhysicalDevices`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEnumeratePhysicalDevices.html)
pub unsafe extern "system" fn enumerate_physical_devices<D: Kit>(
    instance: vk::Instance,
    p_count: *mut u32,
    p_devices: *mut vk::PhysicalDevice,
) -> vk::Result {
    guard(vk::Result::ERROR_INITIALIZATION_FAILED, || {
        // SAFETY: a live instance handle.
        let Some(inst) = (unsafe { Instance::<D>::from_handle(instance) }) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let list: Vec<vk::PhysicalDevice> =
            inst.physical_devices().iter().map(|p| p.handle()).collect();
        // SAFETY: two-call idiom arguments.
        unsafe { write_array(&list, p_count, p_devices) }
    })
}

/// [`vkEnumeratePhysicalDeviceGroups`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEnumeratePhysicalDeviceGroups.html):
/// one group per device.
pub unsafe extern "system" fn enumerate_physical_device_groups<D: Kit>(
    instance: vk::Instance,
    p_count: *mut u32,
    p_groups: *mut vk::PhysicalDeviceGroupProperties<'_>,
) -> vk::Result {
    guard(vk::Result::ERROR_INITIALIZATION_FAILED, || {
        // SAFETY: a live instance handle.
        let Some(inst) = (unsafe { Instance::<D>::from_handle(instance) }) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
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
    })
}

/// [`vkCreateDebugReportCallbackEXT`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateDebugReportCallbackEXT.html)
pub unsafe extern "system" fn create_debug_report_callback_ext<D: Kit>(
    instance: vk::Instance,
    p_create_info: *const vk::DebugReportCallbackCreateInfoEXT<'_>,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
    p_callback: *mut vk::DebugReportCallbackEXT,
) -> vk::Result {
    guard(vk::Result::ERROR_OUT_OF_HOST_MEMORY, || {
        // SAFETY: live handle and valid create info per valid usage.
        let (Some(inst), Some(ci)) = (unsafe { Instance::<D>::from_handle(instance) }, unsafe {
            p_create_info.as_ref()
        }) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let h = inst.debug.add_report(ci);
        // SAFETY: valid output pointer.
        unsafe { *p_callback = vk::Handle::from_raw(h) };
        vk::Result::SUCCESS
    })
}

/// [`vkDestroyDebugReportCallbackEXT`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyDebugReportCallbackEXT.html)
pub unsafe extern "system" fn destroy_debug_report_callback_ext<D: Kit>(
    instance: vk::Instance,
    callback: vk::DebugReportCallbackEXT,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard((), || {
        // SAFETY: a live instance handle.
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
    guard((), || {
        // SAFETY: a live instance handle; C strings per valid usage.
        let Some(inst) = (unsafe { Instance::<D>::from_handle(instance) }) else {
            return;
        };
        // SAFETY: as above.
        let prefix = unsafe { owned_cstr(p_layer_prefix) }.unwrap_or_default();
        // SAFETY: as above.
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
    guard(vk::Result::ERROR_OUT_OF_HOST_MEMORY, || {
        // SAFETY: live handle and valid create info per valid usage.
        let (Some(inst), Some(ci)) = (unsafe { Instance::<D>::from_handle(instance) }, unsafe {
            p_create_info.as_ref()
        }) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        let h = inst.debug.add_messenger(ci);
        // SAFETY: valid output pointer.
        unsafe { *p_messenger = vk::Handle::from_raw(h) };
        vk::Result::SUCCESS
    })
}

/// [`vkDestroyDebugUtilsMessengerEXT`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyDebugUtilsMessengerEXT.html)
pub unsafe extern "system" fn destroy_debug_utils_messenger_ext<D: Kit>(
    instance: vk::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard((), || {
        // SAFETY: a live instance handle.
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
    guard((), || {
        // SAFETY: a live instance handle; valid callback data per valid usage.
        if let Some(inst) = unsafe { Instance::<D>::from_handle(instance) } {
            // SAFETY: valid callback data per valid usage.
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

// --- physical device: table-driven queries --------------------------------------------------

/// Runs `f` on the physical device behind `pd` (nothing for a bad handle: void queries).
fn with_pd<D: Kit, R: Copy>(
    pd: vk::PhysicalDevice,
    fail: R,
    f: impl FnOnce(&PhysicalDevice<D>) -> R,
) -> R {
    guard(fail, || {
        // SAFETY: a live physical-device handle per valid usage; bad ones are rejected.
        match unsafe { PhysicalDevice::<D>::from_handle(pd) } {
            Some(p) => f(p),
            None => fail,
        }
    })
}

/// [`vkGetPhysicalDeviceFeatures`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceFeatures.html)
pub unsafe extern "system" fn get_physical_device_features<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_features: *mut vk::PhysicalDeviceFeatures,
) {
    // SAFETY: valid output pointer per valid usage.
    with_pd::<D, _>(physical_device, (), |p| unsafe {
        p.features.write_features10(p_features)
    })
}

/// [`vkGetPhysicalDeviceFeatures2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceFeatures2.html)
pub unsafe extern "system" fn get_physical_device_features2<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_features: *mut vk::PhysicalDeviceFeatures2<'_>,
) {
    // SAFETY: valid output chain per valid usage.
    with_pd::<D, _>(physical_device, (), |p| unsafe {
        p.features.write_chain(p_features)
    })
}

/// [`vkGetPhysicalDeviceProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceProperties.html)
pub unsafe extern "system" fn get_physical_device_properties<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceProperties,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_properties.as_mut() } {
            *out = p.properties.properties10();
        }
    })
}

/// [`vkGetPhysicalDeviceProperties2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceProperties2.html)
pub unsafe extern "system" fn get_physical_device_properties2<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceProperties2<'_>,
) {
    // SAFETY: valid output chain per valid usage.
    with_pd::<D, _>(physical_device, (), |p| unsafe {
        p.properties.write_chain(p_properties)
    })
}

/// [`vkGetPhysicalDeviceQueueFamilyProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceQueueFamilyProperties.html)
pub unsafe extern "system" fn get_physical_device_queue_family_properties<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_count: *mut u32,
    p_properties: *mut vk::QueueFamilyProperties,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        // SAFETY: two-call idiom arguments.
        let _ = unsafe { write_array(&p.queue_families, p_count, p_properties) };
    })
}

/// [`vkGetPhysicalDeviceQueueFamilyProperties2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceQueueFamilyProperties2.html)
pub unsafe extern "system" fn get_physical_device_queue_family_properties2<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_count: *mut u32,
    p_properties: *mut vk::QueueFamilyProperties2<'_>,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        let fams = &p.queue_families;
        // SAFETY: two-call idiom arguments; elements initialised by the application.
        let _ = unsafe {
            write_array_with(fams.len(), p_count, p_properties, |i, o| {
                o.queue_family_properties = fams[i];
            })
        };
    })
}

/// [`vkGetPhysicalDeviceMemoryProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceMemoryProperties.html)
pub unsafe extern "system" fn get_physical_device_memory_properties<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceMemoryProperties,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_properties.as_mut() } {
            *out = p.memory;
        }
    })
}

/// [`vkGetPhysicalDeviceMemoryProperties2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceMemoryProperties2.html)
pub unsafe extern "system" fn get_physical_device_memory_properties2<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceMemoryProperties2<'_>,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_properties.as_mut() } {
            out.memory_properties = p.memory;
        }
    })
}

/// [`vkGetPhysicalDeviceFormatProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceFormatProperties.html)
pub unsafe extern "system" fn get_physical_device_format_properties<D: Kit>(
    physical_device: vk::PhysicalDevice,
    format: vk::Format,
    p_properties: *mut vk::FormatProperties,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_properties.as_mut() } {
            *out = D::format_properties(p, format);
        }
    })
}

/// [`vkGetPhysicalDeviceFormatProperties2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceFormatProperties2.html):
/// also fills `VkFormatProperties3` (the 32-bit flags widened).
pub unsafe extern "system" fn get_physical_device_format_properties2<D: Kit>(
    physical_device: vk::PhysicalDevice,
    format: vk::Format,
    p_properties: *mut vk::FormatProperties2<'_>,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        // SAFETY: valid output chain per valid usage.
        let Some(out) = (unsafe { p_properties.as_mut() }) else {
            return;
        };
        let f = D::format_properties(p, format);
        out.format_properties = f;
        // SAFETY: each structure is cast to the type its sType names.
        unsafe {
            for_each_out(out.p_next, |s| {
                if (*s).s_type == vk::StructureType::FORMAT_PROPERTIES_3 {
                    let p3 = s.cast::<vk::FormatProperties3<'_>>();
                    let wide = |x: vk::FormatFeatureFlags| {
                        vk::FormatFeatureFlags2::from_raw(u64::from(x.as_raw()))
                    };
                    (*p3).linear_tiling_features = wide(f.linear_tiling_features);
                    (*p3).optimal_tiling_features = wide(f.optimal_tiling_features);
                    (*p3).buffer_features = wide(f.buffer_features);
                }
            })
        };
    })
}

/// [`vkGetPhysicalDeviceImageFormatProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceImageFormatProperties.html)
pub unsafe extern "system" fn get_physical_device_image_format_properties<D: Kit>(
    physical_device: vk::PhysicalDevice,
    format: vk::Format,
    ty: vk::ImageType,
    tiling: vk::ImageTiling,
    usage: vk::ImageUsageFlags,
    flags: vk::ImageCreateFlags,
    p_properties: *mut vk::ImageFormatProperties,
) -> vk::Result {
    with_pd::<D, _>(
        physical_device,
        vk::Result::ERROR_FORMAT_NOT_SUPPORTED,
        |p| {
            let info = vk::PhysicalDeviceImageFormatInfo2 {
                format,
                ty,
                tiling,
                usage,
                flags,
                ..Default::default()
            };
            let r = D::image_format_properties(p, &info);
            // SAFETY: valid output pointer per valid usage.
            if let Some(out) = unsafe { p_properties.as_mut() } {
                *out = r.unwrap_or_default();
            }
            from_result(r.map(drop))
        },
    )
}

/// [`vkGetPhysicalDeviceImageFormatProperties2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceImageFormatProperties2.html):
/// external handle types are not supported (`VK_ERROR_FORMAT_NOT_SUPPORTED`).
pub unsafe extern "system" fn get_physical_device_image_format_properties2<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_info: *const vk::PhysicalDeviceImageFormatInfo2<'_>,
    p_properties: *mut vk::ImageFormatProperties2<'_>,
) -> vk::Result {
    with_pd::<D, _>(
        physical_device,
        vk::Result::ERROR_FORMAT_NOT_SUPPORTED,
        |p| {
            // SAFETY: valid input per valid usage.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk::Result::ERROR_FORMAT_NOT_SUPPORTED;
            };
            // SAFETY: a valid input chain.
            let external = unsafe {
                find_in_chain::<vk::PhysicalDeviceExternalImageFormatInfo<'_>>(
                    info.p_next,
                    vk::StructureType::PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO,
                )
            };
            let r = if external.is_some_and(|e| !e.handle_type.is_empty()) {
                Err(vk::Result::ERROR_FORMAT_NOT_SUPPORTED)
            } else {
                D::image_format_properties(p, info)
            };
            // SAFETY: valid output pointer per valid usage.
            if let Some(out) = unsafe { p_properties.as_mut() } {
                out.image_format_properties = r.unwrap_or_default();
            }
            from_result(r.map(drop))
        },
    )
}

/// [`vkGetPhysicalDeviceSparseImageFormatProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceSparseImageFormatProperties.html):
/// no sparse formats.
pub unsafe extern "system" fn get_physical_device_sparse_image_format_properties<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    _format: vk::Format,
    _ty: vk::ImageType,
    _samples: vk::SampleCountFlags,
    _usage: vk::ImageUsageFlags,
    _tiling: vk::ImageTiling,
    p_count: *mut u32,
    p_properties: *mut vk::SparseImageFormatProperties,
) {
    // SAFETY: two-call idiom arguments.
    guard((), || unsafe {
        let _ = write_array::<vk::SparseImageFormatProperties>(&[], p_count, p_properties);
    })
}

/// [`vkGetPhysicalDeviceSparseImageFormatProperties2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceSparseImageFormatProperties2.html):
/// no sparse formats.
pub unsafe extern "system" fn get_physical_device_sparse_image_format_properties2<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    _p_info: *const vk::PhysicalDeviceSparseImageFormatInfo2<'_>,
    p_count: *mut u32,
    p_properties: *mut vk::SparseImageFormatProperties2<'_>,
) {
    // SAFETY: two-call idiom arguments.
    guard((), || unsafe {
        let _ = write_array_with(0, p_count, p_properties, |_, _| {});
    })
}

/// [`vkGetPhysicalDeviceExternalBufferProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceExternalBufferProperties.html):
/// no external handle type is supported.
pub unsafe extern "system" fn get_physical_device_external_buffer_properties<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    _p_info: *const vk::PhysicalDeviceExternalBufferInfo<'_>,
    p_properties: *mut vk::ExternalBufferProperties<'_>,
) {
    guard((), || {
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_properties.as_mut() } {
            out.external_memory_properties = vk::ExternalMemoryProperties::default();
        }
    })
}

/// [`vkGetPhysicalDeviceExternalFenceProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceExternalFenceProperties.html):
/// no external handle type is supported.
pub unsafe extern "system" fn get_physical_device_external_fence_properties<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    _p_info: *const vk::PhysicalDeviceExternalFenceInfo<'_>,
    p_properties: *mut vk::ExternalFenceProperties<'_>,
) {
    guard((), || {
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_properties.as_mut() } {
            out.export_from_imported_handle_types = Default::default();
            out.compatible_handle_types = Default::default();
            out.external_fence_features = Default::default();
        }
    })
}

/// [`vkGetPhysicalDeviceExternalSemaphoreProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceExternalSemaphoreProperties.html):
/// no external handle type is supported.
pub unsafe extern "system" fn get_physical_device_external_semaphore_properties<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    _p_info: *const vk::PhysicalDeviceExternalSemaphoreInfo<'_>,
    p_properties: *mut vk::ExternalSemaphoreProperties<'_>,
) {
    guard((), || {
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_properties.as_mut() } {
            out.export_from_imported_handle_types = Default::default();
            out.compatible_handle_types = Default::default();
            out.external_semaphore_features = Default::default();
        }
    })
}

/// [`vkGetPhysicalDeviceToolProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceToolProperties.html):
/// a driver is no tool.
pub unsafe extern "system" fn get_physical_device_tool_properties<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    p_count: *mut u32,
    p_properties: *mut vk::PhysicalDeviceToolProperties<'_>,
) -> vk::Result {
    // SAFETY: two-call idiom arguments.
    guard(vk::Result::ERROR_OUT_OF_HOST_MEMORY, || unsafe {
        write_array_with(0, p_count, p_properties, |_, _| {})
    })
}

/// [`vkEnumerateDeviceExtensionProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEnumerateDeviceExtensionProperties.html)
pub unsafe extern "system" fn enumerate_device_extension_properties<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_layer_name: *const c_char,
    p_count: *mut u32,
    p_properties: *mut vk::ExtensionProperties,
) -> vk::Result {
    with_pd::<D, _>(
        physical_device,
        vk::Result::ERROR_INITIALIZATION_FAILED,
        |p| {
            if !p_layer_name.is_null() {
                return vk::Result::ERROR_LAYER_NOT_PRESENT;
            }
            // SAFETY: two-call idiom arguments.
            unsafe { p.extensions.write_properties(p_count, p_properties) }
        },
    )
}

/// [`vkEnumerateDeviceLayerProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEnumerateDeviceLayerProperties.html)
pub unsafe extern "system" fn enumerate_device_layer_properties<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    p_count: *mut u32,
    p_properties: *mut vk::LayerProperties,
) -> vk::Result {
    // SAFETY: two-call idiom arguments.
    guard(vk::Result::ERROR_OUT_OF_HOST_MEMORY, || unsafe {
        write_array::<vk::LayerProperties>(&[], p_count, p_properties)
    })
}

// --- device --------------------------------------------------------------------------------

/// [`vkCreateDevice`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateDevice.html)
pub unsafe extern "system" fn create_device<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_create_info: *const vk::DeviceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_device: *mut vk::Device,
) -> vk::Result {
    guard(vk::Result::ERROR_INITIALIZATION_FAILED, || {
        // SAFETY: a live physical-device handle per valid usage.
        let Some(pd) = (unsafe { PhysicalDevice::<D>::from_handle(physical_device) }) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: forwarded arguments.
        match unsafe { create_device_impl::<D>(pd, p_create_info, p_allocator) } {
            Ok(handle) => {
                // SAFETY: a valid output pointer per valid usage.
                unsafe { *p_device = handle };
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    })
}

unsafe fn create_device_impl<D: Kit>(
    pd: &Dispatchable<PhysicalDevice<D>>,
    p_create_info: *const vk::DeviceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<vk::Device, vk::Result> {
    let instance = pd.instance();
    let refuse = |r: vk::Result, why: &str| {
        log::warn!("vkCreateDevice: {why}");
        let msg = CString::new(format!("vkCreateDevice: {why}")).unwrap_or_default();
        instance.log(
            Severity::Error,
            (vk::ObjectType::PHYSICAL_DEVICE, pd.raw_handle()),
            &msg,
        );
        r
    };
    // SAFETY: valid create info per valid usage.
    let ci = unsafe { p_create_info.as_ref() }.ok_or(vk::Result::ERROR_INITIALIZATION_FAILED)?;
    let mut queues = Vec::new();
    // SAFETY: `pQueueCreateInfos` holds `queueCreateInfoCount` structures.
    for q in unsafe { slice(ci.p_queue_create_infos, ci.queue_create_info_count) } {
        let fam = pd.queue_families.get(q.queue_family_index as usize);
        if q.queue_count == 0 || fam.is_none_or(|f| q.queue_count > f.queue_count) {
            return Err(refuse(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                &format!(
                    "{} queue(s) of family {}: the device has no such queues",
                    q.queue_count, q.queue_family_index
                ),
            ));
        }
        queues.push((q.queue_family_index, q.queue_count, q.flags));
    }
    let api_version = instance.info.api_version.min(pd.api_version());
    // SAFETY: `ppEnabledExtensionNames` holds `enabledExtensionCount` C strings.
    let enabled = unsafe {
        parse_enabled(
            ci.pp_enabled_extension_names,
            ci.enabled_extension_count,
            ExtensionKind::Device,
            &pd.extensions,
            &instance.enabled_extensions,
            api_version,
        )
    }
    .map_err(|e| refuse(e.result(), &e.to_string()))?;
    // SAFETY: valid create info per valid usage.
    let features = unsafe { Features::from_device_create_info(p_create_info) };
    if let Some(missing) = pd.features.first_missing(&features) {
        return Err(refuse(
            vk::Result::ERROR_FEATURE_NOT_PRESENT,
            &format!("feature {missing} is not supported"),
        ));
    }
    let info = DeviceInfo {
        enabled_extensions: enabled,
        enabled_features: features.clone(),
        queues: queues.clone(),
        api_version,
    };
    let data = D::device_data(pd, &info)?;
    let value = Device::<D> {
        physical: NonNull::from(pd),
        info,
        enabled_extensions: enabled,
        enabled_features: features,
        // SAFETY: the application's callbacks or null.
        allocator: unsafe { HostAllocator::from_ptr(p_allocator) },
        queues: Default::default(),
        data,
    };
    // SAFETY: the application's callbacks or null.
    let ptr =
        unsafe { create_dispatchable(value, p_allocator, vk::SystemAllocationScope::DEVICE) }?;
    // SAFETY: just created, not yet shared.
    let dev = unsafe { ptr.as_ref() };
    let mut list = Vec::new();
    for &(family, count, flags) in &queues {
        for index in 0..count {
            match D::queue_data(&dev.data, family, index, flags) {
                Ok(data) => list.push(Dispatchable::new(Queue::<D> {
                    device: ptr,
                    family,
                    index,
                    flags,
                    data,
                })),
                Err(e) => {
                    drop(list);
                    // SAFETY: our own fresh object, never handed out.
                    unsafe { destroy_dispatchable::<Device<D>>(dev.raw_handle()) };
                    return Err(e);
                }
            }
        }
    }
    let _ = dev.queues.set(list);
    Ok(dev.handle())
}

/// [`vkDestroyDevice`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyDevice.html)
pub unsafe extern "system" fn destroy_device<D: Kit>(
    device: vk::Device,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    // SAFETY: null or a live device the application is done with.
    guard((), || unsafe {
        destroy_dispatchable::<Device<D>>(vk::Handle::as_raw(device));
    })
}

/// [`vkGetDeviceQueue`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetDeviceQueue.html):
/// a queue created without flags, or null.
pub unsafe extern "system" fn get_device_queue<D: Kit>(
    device: vk::Device,
    family: u32,
    index: u32,
    p_queue: *mut vk::Queue,
) {
    let info = vk::DeviceQueueInfo2 {
        queue_family_index: family,
        queue_index: index,
        ..Default::default()
    };
    // SAFETY: forwarded arguments.
    unsafe { get_device_queue2::<D>(device, &info, p_queue) }
}

/// [`vkGetDeviceQueue2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetDeviceQueue2.html)
pub unsafe extern "system" fn get_device_queue2<D: Kit>(
    device: vk::Device,
    p_queue_info: *const vk::DeviceQueueInfo2<'_>,
    p_queue: *mut vk::Queue,
) {
    guard((), || {
        // SAFETY: live handle and valid info per valid usage.
        let (Some(dev), Some(info)) = (unsafe { Device::<D>::from_handle(device) }, unsafe {
            p_queue_info.as_ref()
        }) else {
            return;
        };
        let q = dev
            .queue(info.queue_family_index, info.queue_index, info.flags)
            .map_or(vk::Queue::null(), |q| q.handle());
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_queue.as_mut() } {
            *out = q;
        }
    })
}

// --- routes: one hook per concept ------------------------------------------------------------

/// `vkGetPhysicalDeviceFeatures` through the vendor's `…Features2`.
unsafe extern "system" fn features_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    p_features: *mut vk::PhysicalDeviceFeatures,
) {
    guard((), || {
        let mut f2 = vk::PhysicalDeviceFeatures2::default();
        // SAFETY: the vendor's hook with a valid, chain-less structure.
        unsafe { D::get_physical_device_features2(pd, &mut f2) };
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_features.as_mut() } {
            *out = f2.features;
        }
    })
}

/// `vkGetPhysicalDeviceProperties` through the vendor's `…Properties2`.
unsafe extern "system" fn properties_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceProperties,
) {
    guard((), || {
        let mut p2 = vk::PhysicalDeviceProperties2::default();
        // SAFETY: the vendor's hook with a valid, chain-less structure.
        unsafe { D::get_physical_device_properties2(pd, &mut p2) };
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_properties.as_mut() } {
            *out = p2.properties;
        }
    })
}

/// `vkGetPhysicalDeviceQueueFamilyProperties` through the vendor's `…2`.
unsafe extern "system" fn queue_families_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    p_count: *mut u32,
    p_properties: *mut vk::QueueFamilyProperties,
) {
    guard((), || {
        if p_properties.is_null() {
            // SAFETY: forwarded count query.
            unsafe {
                D::get_physical_device_queue_family_properties2(pd, p_count, ptr::null_mut())
            };
            return;
        }
        // SAFETY: valid count pointer per valid usage.
        let Some(&n) = (unsafe { p_count.as_ref() }) else {
            return;
        };
        let mut v = vec![vk::QueueFamilyProperties2::default(); n as usize];
        // SAFETY: `v` holds `*p_count` initialised structures.
        unsafe { D::get_physical_device_queue_family_properties2(pd, p_count, v.as_mut_ptr()) };
        // SAFETY: the vendor wrote at most `n` back into `*p_count`; `p_properties` holds `n`.
        let written = unsafe { *p_count }.min(n) as usize;
        for (i, q) in v.iter().take(written).enumerate() {
            // SAFETY: `i < n`.
            unsafe { *p_properties.add(i) = q.queue_family_properties };
        }
    })
}

/// `vkGetPhysicalDeviceMemoryProperties` through the vendor's `…2`.
unsafe extern "system" fn memory_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceMemoryProperties,
) {
    guard((), || {
        let mut m2 = vk::PhysicalDeviceMemoryProperties2::default();
        // SAFETY: the vendor's hook with a valid, chain-less structure.
        unsafe { D::get_physical_device_memory_properties2(pd, &mut m2) };
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_properties.as_mut() } {
            *out = m2.memory_properties;
        }
    })
}

/// `vkGetPhysicalDeviceFormatProperties` through the vendor's `…2`.
unsafe extern "system" fn format_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    format: vk::Format,
    p_properties: *mut vk::FormatProperties,
) {
    guard((), || {
        let mut f2 = vk::FormatProperties2::default();
        // SAFETY: the vendor's hook with a valid, chain-less structure.
        unsafe { D::get_physical_device_format_properties2(pd, format, &mut f2) };
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_properties.as_mut() } {
            *out = f2.format_properties;
        }
    })
}

/// `vkGetPhysicalDeviceImageFormatProperties` through the vendor's `…2`.
unsafe extern "system" fn image_format_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    format: vk::Format,
    ty: vk::ImageType,
    tiling: vk::ImageTiling,
    usage: vk::ImageUsageFlags,
    flags: vk::ImageCreateFlags,
    p_properties: *mut vk::ImageFormatProperties,
) -> vk::Result {
    guard(vk::Result::ERROR_FORMAT_NOT_SUPPORTED, || {
        let info = vk::PhysicalDeviceImageFormatInfo2 {
            format,
            ty,
            tiling,
            usage,
            flags,
            ..Default::default()
        };
        let mut p2 = vk::ImageFormatProperties2::default();
        // SAFETY: the vendor's hook with valid, chain-less structures.
        let r = unsafe { D::get_physical_device_image_format_properties2(pd, &info, &mut p2) };
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_properties.as_mut() } {
            *out = p2.image_format_properties;
        }
        r
    })
}

/// `vkGetPhysicalDeviceSparseImageFormatProperties` through the vendor's `…2`.
#[allow(clippy::too_many_arguments)]
unsafe extern "system" fn sparse_format_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    format: vk::Format,
    ty: vk::ImageType,
    samples: vk::SampleCountFlags,
    usage: vk::ImageUsageFlags,
    tiling: vk::ImageTiling,
    p_count: *mut u32,
    p_properties: *mut vk::SparseImageFormatProperties,
) {
    guard((), || {
        let info = vk::PhysicalDeviceSparseImageFormatInfo2 {
            format,
            ty,
            samples,
            usage,
            tiling,
            ..Default::default()
        };
        if p_properties.is_null() {
            // SAFETY: forwarded count query.
            unsafe {
                D::get_physical_device_sparse_image_format_properties2(
                    pd,
                    &info,
                    p_count,
                    ptr::null_mut(),
                )
            };
            return;
        }
        // SAFETY: valid count pointer per valid usage.
        let Some(&n) = (unsafe { p_count.as_ref() }) else {
            return;
        };
        let mut v = vec![vk::SparseImageFormatProperties2::default(); n as usize];
        // SAFETY: `v` holds `n` initialised structures.
        unsafe {
            D::get_physical_device_sparse_image_format_properties2(
                pd,
                &info,
                p_count,
                v.as_mut_ptr(),
            )
        };
        // SAFETY: at most `n` written; `p_properties` holds `n`.
        let written = unsafe { *p_count }.min(n) as usize;
        for (i, s) in v.iter().take(written).enumerate() {
            // SAFETY: `i < n`.
            unsafe { *p_properties.add(i) = s.properties };
        }
    })
}

/// `vkBindBufferMemory` as one `vkBindBufferMemory2` bind.
unsafe extern "system" fn bind_buffer_memory_via_2<D: Kit>(
    device: vk::Device,
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    offset: vk::DeviceSize,
) -> vk::Result {
    let info = vk::BindBufferMemoryInfo {
        buffer,
        memory,
        memory_offset: offset,
        ..Default::default()
    };
    // SAFETY: the vendor's hook with one valid bind info.
    guard(vk::Result::ERROR_OUT_OF_HOST_MEMORY, || unsafe {
        D::bind_buffer_memory2(device, 1, &info)
    })
}

/// `vkBindBufferMemory2` as one `vkBindBufferMemory` per bind (chains are not carried: a
/// driver that needs them implements the `2` command).
unsafe extern "system" fn bind_buffer_memory2_via_1<D: Kit>(
    device: vk::Device,
    count: u32,
    p_infos: *const vk::BindBufferMemoryInfo<'_>,
) -> vk::Result {
    guard(vk::Result::ERROR_OUT_OF_HOST_MEMORY, || {
        // SAFETY: `count` bind infos per valid usage.
        for b in unsafe { slice(p_infos, count) } {
            // SAFETY: the vendor's hook with the application's arguments.
            let r = unsafe { D::bind_buffer_memory(device, b.buffer, b.memory, b.memory_offset) };
            if r != vk::Result::SUCCESS {
                return r;
            }
        }
        vk::Result::SUCCESS
    })
}

/// `vkBindImageMemory` as one `vkBindImageMemory2` bind.
unsafe extern "system" fn bind_image_memory_via_2<D: Kit>(
    device: vk::Device,
    image: vk::Image,
    memory: vk::DeviceMemory,
    offset: vk::DeviceSize,
) -> vk::Result {
    let info = vk::BindImageMemoryInfo {
        image,
        memory,
        memory_offset: offset,
        ..Default::default()
    };
    // SAFETY: the vendor's hook with one valid bind info.
    guard(vk::Result::ERROR_OUT_OF_HOST_MEMORY, || unsafe {
        D::bind_image_memory2(device, 1, &info)
    })
}

/// `vkBindImageMemory2` as one `vkBindImageMemory` per bind.
unsafe extern "system" fn bind_image_memory2_via_1<D: Kit>(
    device: vk::Device,
    count: u32,
    p_infos: *const vk::BindImageMemoryInfo<'_>,
) -> vk::Result {
    guard(vk::Result::ERROR_OUT_OF_HOST_MEMORY, || {
        // SAFETY: `count` bind infos per valid usage.
        for b in unsafe { slice(p_infos, count) } {
            // SAFETY: the vendor's hook with the application's arguments.
            let r = unsafe { D::bind_image_memory(device, b.image, b.memory, b.memory_offset) };
            if r != vk::Result::SUCCESS {
                return r;
            }
        }
        vk::Result::SUCCESS
    })
}

/// `vkGetBufferMemoryRequirements` through the vendor's `…2`.
unsafe extern "system" fn buffer_requirements_via_2<D: Kit>(
    device: vk::Device,
    buffer: vk::Buffer,
    p_requirements: *mut vk::MemoryRequirements,
) {
    guard((), || {
        let info = vk::BufferMemoryRequirementsInfo2 {
            buffer,
            ..Default::default()
        };
        let mut r2 = vk::MemoryRequirements2::default();
        // SAFETY: the vendor's hook with valid structures.
        unsafe { D::get_buffer_memory_requirements2(device, &info, &mut r2) };
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_requirements.as_mut() } {
            *out = r2.memory_requirements;
        }
    })
}

/// `vkGetBufferMemoryRequirements2` through the vendor's 1.0 query (no dedicated allocation).
unsafe extern "system" fn buffer_requirements2_via_1<D: Kit>(
    device: vk::Device,
    p_info: *const vk::BufferMemoryRequirementsInfo2<'_>,
    p_requirements: *mut vk::MemoryRequirements2<'_>,
) {
    guard((), || {
        // SAFETY: valid input and output per valid usage.
        let (Some(info), Some(out)) = (unsafe { p_info.as_ref() }, unsafe {
            p_requirements.as_mut()
        }) else {
            return;
        };
        // SAFETY: the vendor's hook with the application's arguments.
        unsafe {
            D::get_buffer_memory_requirements(device, info.buffer, &mut out.memory_requirements)
        };
        // SAFETY: a valid output chain.
        unsafe { no_dedicated(out.p_next) };
    })
}

/// `vkGetImageMemoryRequirements` through the vendor's `…2`.
unsafe extern "system" fn image_requirements_via_2<D: Kit>(
    device: vk::Device,
    image: vk::Image,
    p_requirements: *mut vk::MemoryRequirements,
) {
    guard((), || {
        let info = vk::ImageMemoryRequirementsInfo2 {
            image,
            ..Default::default()
        };
        let mut r2 = vk::MemoryRequirements2::default();
        // SAFETY: the vendor's hook with valid structures.
        unsafe { D::get_image_memory_requirements2(device, &info, &mut r2) };
        // SAFETY: valid output pointer per valid usage.
        if let Some(out) = unsafe { p_requirements.as_mut() } {
            *out = r2.memory_requirements;
        }
    })
}

/// `vkGetImageMemoryRequirements2` through the vendor's 1.0 query (no dedicated allocation).
unsafe extern "system" fn image_requirements2_via_1<D: Kit>(
    device: vk::Device,
    p_info: *const vk::ImageMemoryRequirementsInfo2<'_>,
    p_requirements: *mut vk::MemoryRequirements2<'_>,
) {
    guard((), || {
        // SAFETY: valid input and output per valid usage.
        let (Some(info), Some(out)) = (unsafe { p_info.as_ref() }, unsafe {
            p_requirements.as_mut()
        }) else {
            return;
        };
        // SAFETY: the vendor's hook with the application's arguments.
        unsafe {
            D::get_image_memory_requirements(device, info.image, &mut out.memory_requirements)
        };
        // SAFETY: a valid output chain.
        unsafe { no_dedicated(out.p_next) };
    })
}

/// `VkMemoryDedicatedRequirements` in an output chain: neither preferred nor required.
///
/// # Safety
/// `p_next` is null or a valid output chain.
unsafe fn no_dedicated(p_next: *mut c_void) {
    // SAFETY: each structure is cast to the type its sType names.
    unsafe {
        for_each_out(p_next, |s| {
            if (*s).s_type == vk::StructureType::MEMORY_DEDICATED_REQUIREMENTS {
                let d = s.cast::<vk::MemoryDedicatedRequirements<'_>>();
                (*d).prefers_dedicated_allocation = vk::FALSE;
                (*d).requires_dedicated_allocation = vk::FALSE;
            }
        })
    };
}

/// `vkGetImageSparseMemoryRequirements` through the vendor's `…2`.
unsafe extern "system" fn sparse_requirements_via_2<D: Kit>(
    device: vk::Device,
    image: vk::Image,
    p_count: *mut u32,
    p_requirements: *mut vk::SparseImageMemoryRequirements,
) {
    guard((), || {
        let info = vk::ImageSparseMemoryRequirementsInfo2 {
            image,
            ..Default::default()
        };
        if p_requirements.is_null() {
            // SAFETY: forwarded count query.
            unsafe {
                D::get_image_sparse_memory_requirements2(device, &info, p_count, ptr::null_mut())
            };
            return;
        }
        // SAFETY: valid count pointer per valid usage.
        let Some(&n) = (unsafe { p_count.as_ref() }) else {
            return;
        };
        let mut v = vec![vk::SparseImageMemoryRequirements2::default(); n as usize];
        // SAFETY: `v` holds `n` initialised structures.
        unsafe { D::get_image_sparse_memory_requirements2(device, &info, p_count, v.as_mut_ptr()) };
        // SAFETY: at most `n` written; `p_requirements` holds `n`.
        let written = unsafe { *p_count }.min(n) as usize;
        for (i, s) in v.iter().take(written).enumerate() {
            // SAFETY: `i < n`.
            unsafe { *p_requirements.add(i) = s.memory_requirements };
        }
    })
}

/// `vkGetImageSparseMemoryRequirements2` through the vendor's 1.0 query.
unsafe extern "system" fn sparse_requirements2_via_1<D: Kit>(
    device: vk::Device,
    p_info: *const vk::ImageSparseMemoryRequirementsInfo2<'_>,
    p_count: *mut u32,
    p_requirements: *mut vk::SparseImageMemoryRequirements2<'_>,
) {
    guard((), || {
        // SAFETY: valid input per valid usage.
        let Some(info) = (unsafe { p_info.as_ref() }) else {
            return;
        };
        if p_requirements.is_null() {
            // SAFETY: forwarded count query.
            unsafe {
                D::get_image_sparse_memory_requirements(
                    device,
                    info.image,
                    p_count,
                    ptr::null_mut(),
                )
            };
            return;
        }
        // SAFETY: valid count pointer per valid usage.
        let Some(&n) = (unsafe { p_count.as_ref() }) else {
            return;
        };
        let mut v = vec![vk::SparseImageMemoryRequirements::default(); n as usize];
        // SAFETY: `v` holds `n` elements.
        unsafe {
            D::get_image_sparse_memory_requirements(device, info.image, p_count, v.as_mut_ptr())
        };
        // SAFETY: at most `n` written; `p_requirements` holds `n` initialised structures.
        let written = unsafe { *p_count }.min(n) as usize;
        for (i, s) in v.iter().take(written).enumerate() {
            // SAFETY: `i < n`.
            unsafe { (*p_requirements.add(i)).memory_requirements = *s };
        }
    })
}
