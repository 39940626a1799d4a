//! The kit's resource objects (Mesa's `vk_device_memory`, `vk_buffer`, `vk_image`,
//! `vk_image_view`, `vk_sampler`, `vk_query_pool`, `vk_private_data`, `vk_buffer_view` and
//! `vk_ycbcr_conversion`, and events), for drivers that turn [`Kit::RESOURCE_OBJECTS`] on.
//!
//! Each object keeps what its create info said (validated), its binding, and a slot for the
//! vendor's own data ([`VendorData`]); the kit answers every command that follows from that
//! state: creation and destruction, memory requirements (also without an object:
//! `vkGetDevice{Buffer,Image}MemoryRequirements`, and `VkMemoryDedicatedRequirements`),
//! binding (1.0 and `…2` forms), mapping, subresource layouts of linear images, query results
//! and private data. What the vendor's hardware decides comes from two [`Kit`] methods with
//! defaults: [`Kit::buffer_requirements`] and [`Kit::image_requirements`].
//!
//! Device memory is host memory (zeroed, 256-byte aligned): right for a CPU device, a
//! bring-up device and a unified-memory device, and what makes a CPU engine short — it reads
//! and writes a buffer's bytes through [`Buffer::host_ptr`]. Allocations are charged to their
//! heap, and an allocation that would overrun the heap's size fails with
//! `VK_ERROR_OUT_OF_DEVICE_MEMORY`, as on hardware.

use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::api::Kit;

pub mod address;
mod buffer;
mod buffer_view;
pub(crate) mod desc;
pub mod event;
pub mod external;
mod image;
mod memory;
mod query;
mod ycbcr;

pub use buffer::Buffer;
pub use buffer_view::BufferView;
pub use desc::{BufferDesc, HeapUsage, ImageDesc, VendorData};
pub use event::Event;
/// The packed linear layout of kit images (defined in [`crate::kit::format::layout`]).
pub use image::{linear_layout, LevelLayout, LinearLayout, PlaneLayout};
pub use image::{Image, ImageView, Sampler};
pub use memory::{Dedicated, DeviceMemory};
pub use query::{timestamp_now, PrivateDataSlot, QueryPool};
pub use ycbcr::{SamplerYcbcrConversion, YcbcrState};

/// The kit's default [`Kit::buffer_requirements`]: the size rounded up to a 256-byte alignment
/// (at least every minimum offset alignment a 1.x device may report), any memory type.
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

/// The kit's default [`Kit::image_requirements`]: the packed linear layout of
/// [`linear_layout`] (every tiling: a CPU device has no other), any memory type.
pub fn default_image_requirements(
    memory: &vk::PhysicalDeviceMemoryProperties,
    desc: &ImageDesc,
) -> vk::MemoryRequirements {
    vk::MemoryRequirements {
        size: image::linear_layout(desc).total,
        alignment: image::ALIGNMENT,
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
/// driver with its own memory objects: override [`Kit::fill_extension_structure`] then).
pub fn fill_memory_budget<D: Kit>(
    physical: &super::objects::PhysicalDevice<D>,
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

/// The component as a table (see [`super::entries`]), empty unless the driver opted in.
pub fn entries<D: Kit>() -> EntryTable {
    if !D::RESOURCE_OBJECTS {
        return EntryTable::EMPTY;
    }
    bring_up_entries::<D>()
}

/// The component's table whatever [`Kit::RESOURCE_OBJECTS`] says: the resource objects of the
/// kit's bring-up table ([`super::bring_up::entries`]), on `D`'s own devices.
pub fn bring_up_entries<D: Kit>() -> EntryTable {
    memory::entries::<D>()
        .or(&buffer::entries::<D>())
        .or(&image::entries::<D>())
        .or(&query::entries())
        .or(&event::entries())
        .or(&buffer_view::entries::<D>())
        .or(&ycbcr::entries())
}
