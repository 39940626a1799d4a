//! Vulkan 1.4's second forms (map_memory2, maintenance5, maintenance6, push_descriptor) and the
//! commands they restate, routed both ways: a driver implements whichever form it prefers and
//! the kit answers the other through it (Mesa's `vk_common_MapMemory`,
//! `vk_common_CmdBindDescriptorSets`, `vk_common_CmdPushConstants`, …).
//!
//! A route is offered only when the vendor has no hook of its own for the command and has one
//! for its twin, so the two directions never call each other. Routes from a `…2` form to the
//! old one drop the `pNext` chain (the old form has nowhere to put it) and refuse what it
//! cannot say: `vkUnmapMemory2` with `VK_MEMORY_UNMAP_RESERVE_BIT_EXT` (no placed-memory
//! support behind a plain unmap) returns `VK_ERROR_MEMORY_MAP_FAILED`, the only error the
//! command has.

use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::api::Kit;
use crate::util::guard;

/// The routes of this module as a component table (see [`super::entries`]): each command
/// routed to its Vulkan 1.4 twin (or back) when the vendor implements only the twin.
pub fn entries<D: Kit>() -> EntryTable {
    let mut table = EntryTable::EMPTY;
    route!(table, D:
        map_memory => MAP_MEMORY2 via map_memory_via_2,
        map_memory2 => MAP_MEMORY via map_memory2_via_1,
        unmap_memory => UNMAP_MEMORY2 via unmap_memory_via_2,
        unmap_memory2 => UNMAP_MEMORY via unmap_memory2_via_1,
        cmd_bind_index_buffer => CMD_BIND_INDEX_BUFFER2 via bind_index_buffer_via_2,
        get_image_subresource_layout => GET_IMAGE_SUBRESOURCE_LAYOUT2 via subresource_layout_via_2,
        get_image_subresource_layout2 => GET_IMAGE_SUBRESOURCE_LAYOUT via subresource_layout2_via_1,
        cmd_bind_descriptor_sets => CMD_BIND_DESCRIPTOR_SETS2 via bind_descriptor_sets_via_2,
        cmd_bind_descriptor_sets2 => CMD_BIND_DESCRIPTOR_SETS via bind_descriptor_sets2_via_1,
        cmd_push_constants => CMD_PUSH_CONSTANTS2 via push_constants_via_2,
        cmd_push_constants2 => CMD_PUSH_CONSTANTS via push_constants2_via_1,
        cmd_push_descriptor_set => CMD_PUSH_DESCRIPTOR_SET2 via push_descriptor_set_via_2,
        cmd_push_descriptor_set2 => CMD_PUSH_DESCRIPTOR_SET via push_descriptor_set2_via_1,
        cmd_push_descriptor_set_with_template => CMD_PUSH_DESCRIPTOR_SET_WITH_TEMPLATE2 via push_template_via_2,
        cmd_push_descriptor_set_with_template2 => CMD_PUSH_DESCRIPTOR_SET_WITH_TEMPLATE via push_template2_via_1,
    );
    table
}

/// The bind points whose shader stages `stages` names, for the `…2` → 1.0 routes (Mesa's
/// `vk_common_CmdBindDescriptorSets2KHR` splits the same way).
fn bind_points(stages: vk::ShaderStageFlags) -> impl Iterator<Item = vk::PipelineBindPoint> {
    let ray_tracing = vk::ShaderStageFlags::RAYGEN_KHR
        | vk::ShaderStageFlags::ANY_HIT_KHR
        | vk::ShaderStageFlags::CLOSEST_HIT_KHR
        | vk::ShaderStageFlags::MISS_KHR
        | vk::ShaderStageFlags::INTERSECTION_KHR
        | vk::ShaderStageFlags::CALLABLE_KHR;
    [
        (
            vk::ShaderStageFlags::ALL_GRAPHICS
                | vk::ShaderStageFlags::TASK_EXT
                | vk::ShaderStageFlags::MESH_EXT,
            vk::PipelineBindPoint::GRAPHICS,
        ),
        (
            vk::ShaderStageFlags::COMPUTE,
            vk::PipelineBindPoint::COMPUTE,
        ),
        (ray_tracing, vk::PipelineBindPoint::RAY_TRACING_KHR),
    ]
    .into_iter()
    .filter(move |(mask, _)| stages.intersects(*mask))
    .map(|(_, point)| point)
}

/// The shader stages of a bind point, for the 1.0 → `…2` routes.
fn stages_of(point: vk::PipelineBindPoint) -> vk::ShaderStageFlags {
    match point {
        vk::PipelineBindPoint::COMPUTE => vk::ShaderStageFlags::COMPUTE,
        vk::PipelineBindPoint::RAY_TRACING_KHR => {
            vk::ShaderStageFlags::RAYGEN_KHR
                | vk::ShaderStageFlags::ANY_HIT_KHR
                | vk::ShaderStageFlags::CLOSEST_HIT_KHR
                | vk::ShaderStageFlags::MISS_KHR
                | vk::ShaderStageFlags::INTERSECTION_KHR
                | vk::ShaderStageFlags::CALLABLE_KHR
        }
        _ => {
            vk::ShaderStageFlags::ALL_GRAPHICS
                | vk::ShaderStageFlags::TASK_EXT
                | vk::ShaderStageFlags::MESH_EXT
        }
    }
}

// The `unsafe extern "system"` functions below are Vulkan commands: their safety contract is
// the command's valid usage, which the route forwards unchanged.

unsafe extern "system" fn map_memory_via_2<D: Kit>(
    device: vk::Device,
    memory: vk::DeviceMemory,
    offset: vk::DeviceSize,
    size: vk::DeviceSize,
    flags: vk::MemoryMapFlags,
    pp_data: *mut *mut std::ffi::c_void,
) -> vk::Result {
    guard(
        concat!(module_path!(), "::map_memory_via_2"),
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let info = vk::MemoryMapInfo {
                flags,
                memory,
                offset,
                size,
                ..Default::default()
            };
            // SAFETY: the vendor's hook with a valid structure and the caller's output pointer.
            unsafe { D::map_memory2(device, &info, pp_data) }
        },
    )
}

unsafe extern "system" fn map_memory2_via_1<D: Kit>(
    device: vk::Device,
    p_info: *const vk::MemoryMapInfo,
    pp_data: *mut *mut std::ffi::c_void,
) -> vk::Result {
    guard(
        concat!(module_path!(), "::map_memory2_via_1"),
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `p_info` is the application's vkMapMemory2 structure, null or valid for this
            // call; `as_ref` turns null into the early return.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_MEMORY_MAP_FAILED,
                    "vkMapMemory2 without a map info"
                );
            };
            // SAFETY: the vendor's hook with the caller's arguments.
            unsafe {
                D::map_memory(
                    device,
                    info.memory,
                    info.offset,
                    info.size,
                    info.flags,
                    pp_data,
                )
            }
        },
    )
}

unsafe extern "system" fn unmap_memory_via_2<D: Kit>(device: vk::Device, memory: vk::DeviceMemory) {
    guard(concat!(module_path!(), "::unmap_memory_via_2"), (), || {
        let info = vk::MemoryUnmapInfo {
            memory,
            ..Default::default()
        };
        // SAFETY: the vendor's hook with a valid structure. vkUnmapMemory has no result to
        // report; without RESERVE the second form cannot fail.
        let _ = unsafe { D::unmap_memory2(device, &info) };
    })
}

unsafe extern "system" fn unmap_memory2_via_1<D: Kit>(
    device: vk::Device,
    p_info: *const vk::MemoryUnmapInfo,
) -> vk::Result {
    guard(
        concat!(module_path!(), "::unmap_memory2_via_1"),
        vk::Result::ERROR_MEMORY_MAP_FAILED,
        || {
            // SAFETY: `p_info` is the application's vkUnmapMemory2 structure, null or valid for
            // this call; `as_ref` turns null into the early return.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_MEMORY_MAP_FAILED,
                    "vkUnmapMemory2 without an unmap info"
                );
            };
            if info.flags.as_raw() != 0 {
                // RESERVE keeps the range reserved: a plain unmap cannot do that.
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_MEMORY_MAP_FAILED,
                    "vkUnmapMemory2 flags {:#x} through a driver with only vkUnmapMemory",
                    info.flags.as_raw()
                );
            }
            // SAFETY: the vendor's hook with the caller's arguments.
            unsafe { D::unmap_memory(device, info.memory) };
            vk::Result::SUCCESS
        },
    )
}

unsafe extern "system" fn bind_index_buffer_via_2<D: Kit>(
    cb: vk::CommandBuffer,
    buffer: vk::Buffer,
    offset: vk::DeviceSize,
    index_type: vk::IndexType,
) {
    guard(
        concat!(module_path!(), "::bind_index_buffer_via_2"),
        (),
        || {
            // SAFETY: the vendor's hook; WHOLE_SIZE is what the 1.0 form means.
            unsafe { D::cmd_bind_index_buffer2(cb, buffer, offset, vk::WHOLE_SIZE, index_type) }
        },
    )
}

unsafe extern "system" fn subresource_layout_via_2<D: Kit>(
    device: vk::Device,
    image: vk::Image,
    p_subresource: *const vk::ImageSubresource,
    p_layout: *mut vk::SubresourceLayout,
) {
    guard(
        concat!(module_path!(), "::subresource_layout_via_2"),
        (),
        || {
            // SAFETY: `pSubresource` and `pLayout` are the application's
            // vkGetImageSubresourceLayout input and output, each null or valid for this call;
            // `as_ref`/`as_mut` turn null into the early return.
            let (Some(sub), Some(out)) = (unsafe { p_subresource.as_ref() }, unsafe {
                p_layout.as_mut()
            }) else {
                return;
            };
            let sub2 = vk::ImageSubresource2 {
                image_subresource: *sub,
                ..Default::default()
            };
            let mut layout2 = vk::SubresourceLayout2::default();
            // SAFETY: the vendor's hook with valid, chain-less structures.
            unsafe { D::get_image_subresource_layout2(device, image, &sub2, &mut layout2) };
            *out = layout2.subresource_layout;
        },
    )
}

unsafe extern "system" fn subresource_layout2_via_1<D: Kit>(
    device: vk::Device,
    image: vk::Image,
    p_subresource: *const vk::ImageSubresource2,
    p_layout: *mut vk::SubresourceLayout2,
) {
    guard(
        concat!(module_path!(), "::subresource_layout2_via_1"),
        (),
        || {
            // SAFETY: `pSubresource` and `pLayout` are the application's
            // vkGetImageSubresourceLayout2 input and output, each null or valid for this call;
            // `as_ref`/`as_mut` turn null into the early return.
            let (Some(sub), Some(out)) = (unsafe { p_subresource.as_ref() }, unsafe {
                p_layout.as_mut()
            }) else {
                return;
            };
            // SAFETY: the vendor's hook with the caller's structures; the output chain
            // (VkSubresourceHostMemcpySize, VkImageCompressionPropertiesEXT) is left as it is.
            unsafe {
                D::get_image_subresource_layout(
                    device,
                    image,
                    &sub.image_subresource,
                    &mut out.subresource_layout,
                )
            };
        },
    )
}

unsafe extern "system" fn bind_descriptor_sets_via_2<D: Kit>(
    cb: vk::CommandBuffer,
    point: vk::PipelineBindPoint,
    layout: vk::PipelineLayout,
    first_set: u32,
    set_count: u32,
    p_sets: *const vk::DescriptorSet,
    dynamic_offset_count: u32,
    p_dynamic_offsets: *const u32,
) {
    guard(
        concat!(module_path!(), "::bind_descriptor_sets_via_2"),
        (),
        || {
            let info = vk::BindDescriptorSetsInfo {
                stage_flags: stages_of(point),
                layout,
                first_set,
                descriptor_set_count: set_count,
                p_descriptor_sets: p_sets,
                dynamic_offset_count,
                p_dynamic_offsets,
                ..Default::default()
            };
            // SAFETY: the vendor's hook; the arrays are the caller's.
            unsafe { D::cmd_bind_descriptor_sets2(cb, &info) }
        },
    )
}

unsafe extern "system" fn bind_descriptor_sets2_via_1<D: Kit>(
    cb: vk::CommandBuffer,
    p_info: *const vk::BindDescriptorSetsInfo,
) {
    guard(
        concat!(module_path!(), "::bind_descriptor_sets2_via_1"),
        (),
        || {
            // SAFETY: `p_info` is the application's vkCmdBindDescriptorSets2 structure, null or
            // valid for this call; `as_ref` turns null into the early return.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return;
            };
            for point in bind_points(info.stage_flags) {
                // SAFETY: the vendor's hook with the caller's arrays.
                unsafe {
                    D::cmd_bind_descriptor_sets(
                        cb,
                        point,
                        info.layout,
                        info.first_set,
                        info.descriptor_set_count,
                        info.p_descriptor_sets,
                        info.dynamic_offset_count,
                        info.p_dynamic_offsets,
                    )
                }
            }
        },
    )
}

unsafe extern "system" fn push_constants_via_2<D: Kit>(
    cb: vk::CommandBuffer,
    layout: vk::PipelineLayout,
    stage_flags: vk::ShaderStageFlags,
    offset: u32,
    size: u32,
    p_values: *const std::ffi::c_void,
) {
    guard(
        concat!(module_path!(), "::push_constants_via_2"),
        (),
        || {
            let info = vk::PushConstantsInfo {
                layout,
                stage_flags,
                offset,
                size,
                p_values,
                ..Default::default()
            };
            // SAFETY: the vendor's hook; the values are the caller's.
            unsafe { D::cmd_push_constants2(cb, &info) }
        },
    )
}

unsafe extern "system" fn push_constants2_via_1<D: Kit>(
    cb: vk::CommandBuffer,
    p_info: *const vk::PushConstantsInfo,
) {
    guard(
        concat!(module_path!(), "::push_constants2_via_1"),
        (),
        || {
            // SAFETY: `p_info` is the application's vkCmdPushConstants2 structure, null or valid
            // for this call; `as_ref` turns null into the early return.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return;
            };
            // SAFETY: the vendor's hook with the caller's values.
            unsafe {
                D::cmd_push_constants(
                    cb,
                    info.layout,
                    info.stage_flags,
                    info.offset,
                    info.size,
                    info.p_values,
                )
            }
        },
    )
}

unsafe extern "system" fn push_descriptor_set_via_2<D: Kit>(
    cb: vk::CommandBuffer,
    point: vk::PipelineBindPoint,
    layout: vk::PipelineLayout,
    set: u32,
    write_count: u32,
    p_writes: *const vk::WriteDescriptorSet<'_>,
) {
    guard(
        concat!(module_path!(), "::push_descriptor_set_via_2"),
        (),
        || {
            let info = vk::PushDescriptorSetInfo {
                stage_flags: stages_of(point),
                layout,
                set,
                descriptor_write_count: write_count,
                p_descriptor_writes: p_writes.cast(),
                ..Default::default()
            };
            // SAFETY: the vendor's hook; the writes are the caller's.
            unsafe { D::cmd_push_descriptor_set2(cb, &info) }
        },
    )
}

unsafe extern "system" fn push_descriptor_set2_via_1<D: Kit>(
    cb: vk::CommandBuffer,
    p_info: *const vk::PushDescriptorSetInfo,
) {
    guard(
        concat!(module_path!(), "::push_descriptor_set2_via_1"),
        (),
        || {
            // SAFETY: `p_info` is the application's vkCmdPushDescriptorSet2 structure, null or
            // valid for this call; `as_ref` turns null into the early return.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return;
            };
            for point in bind_points(info.stage_flags) {
                // SAFETY: the vendor's hook with the caller's writes.
                unsafe {
                    D::cmd_push_descriptor_set(
                        cb,
                        point,
                        info.layout,
                        info.set,
                        info.descriptor_write_count,
                        info.p_descriptor_writes,
                    )
                }
            }
        },
    )
}

unsafe extern "system" fn push_template_via_2<D: Kit>(
    cb: vk::CommandBuffer,
    template: vk::DescriptorUpdateTemplate,
    layout: vk::PipelineLayout,
    set: u32,
    p_data: *const std::ffi::c_void,
) {
    guard(concat!(module_path!(), "::push_template_via_2"), (), || {
        let info = vk::PushDescriptorSetWithTemplateInfo {
            descriptor_update_template: template,
            layout,
            set,
            p_data,
            ..Default::default()
        };
        // SAFETY: the vendor's hook; the data is the caller's.
        unsafe { D::cmd_push_descriptor_set_with_template2(cb, &info) }
    })
}

unsafe extern "system" fn push_template2_via_1<D: Kit>(
    cb: vk::CommandBuffer,
    p_info: *const vk::PushDescriptorSetWithTemplateInfo,
) {
    guard(
        concat!(module_path!(), "::push_template2_via_1"),
        (),
        || {
            // SAFETY: `p_info` is the application's vkCmdPushDescriptorSetWithTemplate2 structure,
            // null or valid for this call; `as_ref` turns null into the early return.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return;
            };
            // SAFETY: the vendor's hook with the caller's data.
            unsafe {
                D::cmd_push_descriptor_set_with_template(
                    cb,
                    info.descriptor_update_template,
                    info.layout,
                    info.set,
                    info.p_data,
                )
            }
        },
    )
}
