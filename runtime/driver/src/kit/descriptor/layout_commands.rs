//! The set-layout commands (`vkCreateDescriptorSetLayout`, `vkDestroyDescriptorSetLayout`,
//! `vkGetDescriptorSetLayoutSupport`), apart from the layout types (`layout.rs`) that pipeline
//! layouts and pipelines hold: these read the driver's [`Kit`] options and the kit's buffers.

use std::sync::Arc;

use vkgen_abi::vk_error;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::layout::{layout_support, DescriptorSetLayout, SetLayout, INVALID};
use crate::handles::destroy_object;
use crate::kit::api::Kit;
use crate::kit::objects::Device;
use crate::kit::resources::desc::store;
use crate::kit::resources::Buffer;
use crate::util::{for_each_out, guard};

fn kit_buffer_size(buffer: vk::Buffer) -> Option<u64> {
    // SAFETY: only installed for drivers whose buffers are the kit's (RESOURCE_OBJECTS), and a
    // descriptor write names a live buffer or null (VUID-VkDescriptorBufferInfo-buffer-parameter);
    // `from_handle` checks the type.
    unsafe { Buffer::from_handle(buffer) }.map(|b| b.desc.size)
}

/// [`vkCreateDescriptorSetLayout`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateDescriptorSetLayout.html)
unsafe extern "system" fn create_descriptor_set_layout<D: Kit>(
    _device: vk::Device,
    p_info: *const vk::DescriptorSetLayoutCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_layout: *mut vk::DescriptorSetLayout,
) -> vk::Result {
    guard(
        "vkCreateDescriptorSetLayout",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure with a valid chain and arrays
            // (VUID-vkCreateDescriptorSetLayout-pCreateInfo-parameter).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(INVALID, "vkCreateDescriptorSetLayout: null pCreateInfo");
            };
            // SAFETY: as just said, the application's valid create info.
            let mut layout = match unsafe { SetLayout::from_create_info(info) } {
                Ok(l) => l,
                Err(e) => return vk_error!(INVALID, "vkCreateDescriptorSetLayout: {e}"),
            };
            if D::RESOURCE_OBJECTS {
                layout.buffer_size = kit_buffer_size;
            }
            let object = DescriptorSetLayout {
                layout: Arc::new(layout),
            };
            // SAFETY: the application's allocator and output pointer (the command's
            // -pAllocator- and -pSetLayout-parameter VUIDs).
            unsafe { store(object, p_allocator, p_layout) }
        },
    )
}

/// [`vkDestroyDescriptorSetLayout`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyDescriptorSetLayout.html):
/// the handle goes; sets, templates and pipeline layouts keep the definition.
unsafe extern "system" fn destroy_descriptor_set_layout(
    _device: vk::Device,
    layout: vk::DescriptorSetLayout,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyDescriptorSetLayout", (), || {
        // SAFETY: `layout` is null or a live set layout of this device
        // (VUID-vkDestroyDescriptorSetLayout-descriptorSetLayout-parameter).
        unsafe { destroy_object::<DescriptorSetLayout>(vk::Handle::as_raw(layout)) };
    });
}

/// [`vkGetDescriptorSetLayoutSupport`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetDescriptorSetLayoutSupport.html)
/// (and `…KHR`): [`layout_support`], with `VkDescriptorSetVariableDescriptorCountLayoutSupport`.
unsafe extern "system" fn get_descriptor_set_layout_support<D: Kit>(
    device: vk::Device,
    p_info: *const vk::DescriptorSetLayoutCreateInfo<'_>,
    p_support: *mut vk::DescriptorSetLayoutSupport<'_>,
) {
    guard("vkGetDescriptorSetLayoutSupport", (), || {
        // SAFETY: the application's device handle; `from_handle` checks it is one of ours.
        let Some(dev) = (unsafe { Device::<D>::from_handle(device) }) else {
            return;
        };
        // SAFETY: `pCreateInfo` and `pSupport` are valid structures with valid chains
        // (the command's -parameter VUIDs).
        let (Some(info), Some(out)) = (unsafe { p_info.as_ref() }, unsafe { p_support.as_mut() })
        else {
            return;
        };
        // SAFETY: the application's valid create info.
        let (supported, variable) = match unsafe { SetLayout::from_create_info(info) } {
            Ok(layout) => layout_support(&layout, &dev.physical().properties),
            Err(e) => {
                log::warn!("vkGetDescriptorSetLayoutSupport: {e}: not supported");
                (false, 0)
            }
        };
        out.supported = vk::Bool32::from(supported);
        // SAFETY: the application's valid output chain; the sType names the structure.
        unsafe {
            for_each_out(out.p_next, |s| {
                if (*s).s_type
                    == vk::StructureType::DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_LAYOUT_SUPPORT
                {
                    let v = s.cast::<vk::DescriptorSetVariableDescriptorCountLayoutSupport<'_>>();
                    (*v).max_variable_descriptor_count = variable;
                }
            });
        }
    });
}

pub(super) fn entries<D: Kit>() -> EntryTable {
    EntryTable {
        create_descriptor_set_layout: Some(create_descriptor_set_layout::<D>),
        destroy_descriptor_set_layout: Some(destroy_descriptor_set_layout),
        get_descriptor_set_layout_support: Some(get_descriptor_set_layout_support::<D>),
        ..EntryTable::EMPTY
    }
}
