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

use super::api::Kit;

pub mod address;
mod buffer;
mod buffer_view;
pub(crate) mod defaults;
pub(crate) mod desc;
pub(crate) mod device_memory;
pub mod event;
pub mod external;
mod image;
mod image_object;
mod memory;
mod query;
mod ycbcr;

pub use buffer::Buffer;
pub use buffer_view::BufferView;
pub use defaults::{default_buffer_requirements, default_image_requirements, fill_memory_budget};
pub use desc::{BufferDesc, HeapUsage, ImageDesc, VendorData};
pub use device_memory::{Dedicated, DeviceMemory};
pub use event::Event;
/// The packed linear layout of kit images (defined in [`crate::kit::format::layout`]).
pub use image::{linear_layout, LevelLayout, LinearLayout, PlaneLayout};
pub use image::{Image, ImageView, Sampler};
pub use query::{timestamp_now, PrivateDataSlot, QueryPool};
pub use ycbcr::{SamplerYcbcrConversion, YcbcrState};

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
