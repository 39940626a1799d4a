//! The kit's defaults for the vendor's memory hooks ([`Kit::buffer_requirements`],
//! [`Kit::image_requirements`], [`Kit::fill_extension_structure`]): a leaf, which the
//! vendor-facing trait names without depending on the resource objects.
//!
//! [`Kit::buffer_requirements`]: crate::kit::Kit::buffer_requirements
//! [`Kit::image_requirements`]: crate::kit::Kit::image_requirements
//! [`Kit::fill_extension_structure`]: crate::kit::Kit::fill_extension_structure

use vkgen_generated::vk;

use super::desc::{BufferDesc, ImageDesc};
use crate::kit::format::layout::{linear_layout, ALIGNMENT};
use crate::kit::objects::PhysicalDevice;
use crate::kit::types::KitTypes;

/// The kit's default [`Kit::buffer_requirements`](crate::kit::Kit::buffer_requirements): the size
/// rounded up to a 256-byte alignment (at least every minimum offset alignment a 1.x device may
/// report), any memory type.
pub fn default_buffer_requirements(
    memory: &vk::PhysicalDeviceMemoryProperties,
    desc: &BufferDesc,
) -> vk::MemoryRequirements {
    const ALIGNMENT: u64 = 256;
    vk::MemoryRequirements {
        size: desc.size.div_ceil(ALIGNMENT).saturating_mul(ALIGNMENT),
        alignment: ALIGNMENT,
        memory_type_bits: all_types(memory),
    }
}

/// The kit's default [`Kit::image_requirements`](crate::kit::Kit::image_requirements): the packed
/// linear layout of
/// [`linear_layout`](crate::kit::format::layout::linear_layout) (every tiling: a CPU device has no
/// other), any memory type.
pub fn default_image_requirements(
    memory: &vk::PhysicalDeviceMemoryProperties,
    desc: &ImageDesc,
) -> vk::MemoryRequirements {
    vk::MemoryRequirements {
        size: linear_layout(desc).total,
        alignment: ALIGNMENT,
        memory_type_bits: all_types(memory),
    }
}

fn all_types(memory: &vk::PhysicalDeviceMemoryProperties) -> u32 {
    match memory.memory_type_count {
        0 => 0,
        n if n >= 32 => u32::MAX,
        n => (1u32 << n) - 1,
    }
}

/// Fills `s` if it is a `VkPhysicalDeviceMemoryBudgetPropertiesEXT`: each heap's size as its
/// budget, the bytes the process allocated from it through the kit as its usage (zero for a
/// driver with its own memory objects: override
/// [`Kit::fill_extension_structure`](crate::kit::Kit::fill_extension_structure) then).
pub fn fill_memory_budget<D: KitTypes>(
    physical: &PhysicalDevice<D>,
    s: &mut vk::BaseOutStructure<'_>,
) {
    if s.s_type != vk::StructureType::PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT {
        return;
    }
    let budget = std::ptr::from_mut(s).cast::<vk::PhysicalDeviceMemoryBudgetPropertiesEXT<'_>>();
    // SAFETY: the sType says this structure is a `VkPhysicalDeviceMemoryBudgetPropertiesEXT`,
    // which starts with the same two members as `VkBaseOutStructure`.
    let budget = unsafe { &mut *budget };
    let heaps = physical
        .memory
        .memory_heap_count
        .min(vk::MAX_MEMORY_HEAPS as u32) as usize;
    for i in 0..heaps {
        budget.heap_budget[i] = physical.memory.memory_heaps[i].size;
        budget.heap_usage[i] = physical.heaps.used(i);
    }
    for i in heaps..vk::MAX_MEMORY_HEAPS {
        budget.heap_budget[i] = 0;
        budget.heap_usage[i] = 0;
    }
}
