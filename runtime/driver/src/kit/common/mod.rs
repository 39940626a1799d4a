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

use vkgen_generated::commands::{self, CommandId as C, Level};
use vkgen_generated::entries::EntryTable;

use super::api::Kit;
use super::command::{
    allocate_command_buffers, create_command_pool, destroy_command_pool, free_command_buffers,
};

/// The kit's commons as a component table (see [`super::entries`]), given what the vendor
/// implements: the table-driven answers, and each command of a pair routed to the vendor's
/// twin when the vendor wrote that one instead.
pub fn entries<D: Kit>() -> EntryTable {
    let mut table = EntryTable {
        enumerate_instance_version: Some(enumerate_instance_version::<D>),
        enumerate_instance_extension_properties: Some(enumerate_instance_extension_properties::<D>),
        enumerate_instance_layer_properties: Some(enumerate_instance_layer_properties::<D>),
        create_instance: Some(create_instance::<D>),
        destroy_instance: Some(destroy_instance::<D>),
        enumerate_physical_devices: Some(enumerate_physical_devices::<D>),
        enumerate_physical_device_groups: Some(enumerate_physical_device_groups::<D>),
        create_debug_report_callback_ext: Some(create_debug_report_callback_ext::<D>),
        destroy_debug_report_callback_ext: Some(destroy_debug_report_callback_ext::<D>),
        debug_report_message_ext: Some(debug_report_message_ext::<D>),
        create_debug_utils_messenger_ext: Some(create_debug_utils_messenger_ext::<D>),
        destroy_debug_utils_messenger_ext: Some(destroy_debug_utils_messenger_ext::<D>),
        submit_debug_utils_message_ext: Some(submit_debug_utils_message_ext::<D>),
        set_debug_utils_object_name_ext: Some(set_debug_utils_object_name_ext::<D>),
        set_debug_utils_object_tag_ext: Some(set_debug_utils_object_tag_ext::<D>),
        queue_begin_debug_utils_label_ext: Some(queue_label::<D>),
        queue_insert_debug_utils_label_ext: Some(queue_label::<D>),
        queue_end_debug_utils_label_ext: Some(queue_end_label::<D>),
        cmd_begin_debug_utils_label_ext: Some(cmd_label::<D>),
        cmd_insert_debug_utils_label_ext: Some(cmd_label::<D>),
        cmd_end_debug_utils_label_ext: Some(cmd_end_label::<D>),
        get_physical_device_features: Some(get_physical_device_features::<D>),
        get_physical_device_features2: Some(get_physical_device_features2::<D>),
        get_physical_device_properties: Some(get_physical_device_properties::<D>),
        get_physical_device_properties2: Some(get_physical_device_properties2::<D>),
        get_physical_device_queue_family_properties: Some(
            get_physical_device_queue_family_properties::<D>,
        ),
        get_physical_device_queue_family_properties2: Some(
            get_physical_device_queue_family_properties2::<D>,
        ),
        get_physical_device_memory_properties: Some(get_physical_device_memory_properties::<D>),
        get_physical_device_memory_properties2: Some(get_physical_device_memory_properties2::<D>),
        get_physical_device_format_properties: Some(get_physical_device_format_properties::<D>),
        get_physical_device_format_properties2: Some(get_physical_device_format_properties2::<D>),
        get_physical_device_image_format_properties: Some(
            get_physical_device_image_format_properties::<D>,
        ),
        get_physical_device_image_format_properties2: Some(
            get_physical_device_image_format_properties2::<D>,
        ),
        get_physical_device_sparse_image_format_properties: Some(
            get_physical_device_sparse_image_format_properties::<D>,
        ),
        get_physical_device_sparse_image_format_properties2: Some(
            get_physical_device_sparse_image_format_properties2::<D>,
        ),
        get_physical_device_external_buffer_properties: Some(
            get_physical_device_external_buffer_properties::<D>,
        ),
        get_physical_device_external_fence_properties: Some(
            get_physical_device_external_fence_properties::<D>,
        ),
        get_physical_device_external_semaphore_properties: Some(
            get_physical_device_external_semaphore_properties::<D>,
        ),
        get_physical_device_tool_properties: Some(get_physical_device_tool_properties::<D>),
        enumerate_device_extension_properties: Some(enumerate_device_extension_properties::<D>),
        enumerate_device_layer_properties: Some(enumerate_device_layer_properties::<D>),
        create_device: Some(create_device::<D>),
        destroy_device: Some(destroy_device::<D>),
        get_device_queue: Some(get_device_queue::<D>),
        get_device_queue2: Some(get_device_queue2::<D>),
        create_command_pool: Some(create_command_pool::<D>),
        destroy_command_pool: Some(destroy_command_pool::<D>),
        allocate_command_buffers: Some(allocate_command_buffers::<D>),
        free_command_buffers: Some(free_command_buffers::<D>),
        ..EntryTable::EMPTY
    };
    route!(table, D:
        get_physical_device_features => GET_PHYSICAL_DEVICE_FEATURES2 via features_via_2,
        get_physical_device_properties => GET_PHYSICAL_DEVICE_PROPERTIES2 via properties_via_2,
        get_physical_device_queue_family_properties => GET_PHYSICAL_DEVICE_QUEUE_FAMILY_PROPERTIES2 via queue_families_via_2,
        get_physical_device_memory_properties => GET_PHYSICAL_DEVICE_MEMORY_PROPERTIES2 via memory_via_2,
        get_physical_device_format_properties => GET_PHYSICAL_DEVICE_FORMAT_PROPERTIES2 via format_via_2,
        get_physical_device_image_format_properties => GET_PHYSICAL_DEVICE_IMAGE_FORMAT_PROPERTIES2 via image_format_via_2,
        get_physical_device_sparse_image_format_properties => GET_PHYSICAL_DEVICE_SPARSE_IMAGE_FORMAT_PROPERTIES2 via sparse_format_via_2,
        bind_buffer_memory => BIND_BUFFER_MEMORY2 via bind_buffer_memory_via_2,
        bind_buffer_memory2 => BIND_BUFFER_MEMORY via bind_buffer_memory2_via_1,
        bind_image_memory => BIND_IMAGE_MEMORY2 via bind_image_memory_via_2,
        bind_image_memory2 => BIND_IMAGE_MEMORY via bind_image_memory2_via_1,
        get_buffer_memory_requirements => GET_BUFFER_MEMORY_REQUIREMENTS2 via buffer_requirements_via_2,
        get_buffer_memory_requirements2 => GET_BUFFER_MEMORY_REQUIREMENTS via buffer_requirements2_via_1,
        get_image_memory_requirements => GET_IMAGE_MEMORY_REQUIREMENTS2 via image_requirements_via_2,
        get_image_memory_requirements2 => GET_IMAGE_MEMORY_REQUIREMENTS via image_requirements2_via_1,
        get_image_sparse_memory_requirements => GET_IMAGE_SPARSE_MEMORY_REQUIREMENTS2 via sparse_requirements_via_2,
        get_image_sparse_memory_requirements2 => GET_IMAGE_SPARSE_MEMORY_REQUIREMENTS via sparse_requirements2_via_1,
    );
    table
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

mod args;
mod device;
mod instance;
mod pairs;
mod physical_device;

pub use device::*;
pub use instance::*;
use pairs::*;
pub use physical_device::*;
