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

fn from_result(r: Result<(), vk::Result>) -> vk::Result {
    r.err().unwrap_or(vk::Result::SUCCESS)
}

/// The kit's entry point for `cmd` (canonical), given what the vendor implements.
///
/// Long: a table, one arm per command the kit's commons answer; splitting it would only
/// scatter the table (a generated command table is the planned replacement).
pub fn entry<D: Kit>(cmd: C) -> vk::PFN_vkVoidFunction {
    macro_rules! pfn {
        ($f:ident, $t:ident) => {{
            kit_fn!($f::<D>, $t)
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

/// An optional C string argument, copied.
///
/// # Safety
/// `p` is null or a C string.
unsafe fn owned_cstr(p: *const c_char) -> Option<CString> {
    // SAFETY: `p` was checked non-null and is a NUL-terminated string (this function's contract);
    // it is copied before the borrow ends.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_owned())
}

mod device;
mod instance;
mod pairs;
mod physical_device;

use crate::util::{guard, slice};
pub use device::*;
pub use instance::*;
use pairs::*;
pub use physical_device::*;
