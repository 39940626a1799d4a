//! The kit's descriptor objects (Mesa's `vk_descriptor_set_layout`, `vk_pipeline_layout`,
//! `vk_descriptor_update_template` and what its drivers each write for pools and sets), for
//! drivers that turn [`Kit::DESCRIPTOR_OBJECTS`] on.
//!
//! Design notes:
//!
//! * **Shared definitions behind `Arc`.** A set layout ([`SetLayout`]) and a pipeline layout
//!   ([`PipelineLayoutInfo`]) are immutable once made and held by `Arc`: a set, a template, a
//!   pipeline or a recorded command keeps the definition after the application destroys the
//!   handle, which the spec allows (Mesa ref-counts them for the same reason). The handle
//!   objects ([`DescriptorSetLayout`], [`PipelineLayout`], [`DescriptorUpdateTemplate`]) are
//!   kit objects in memory from the command's `pAllocator`; the definitions they point at are
//!   internal allocations (global allocator, as the spec permits).
//! * **A set is a store.** A [`DescriptorSet`] is a [`DescriptorStore`]: the host-side content
//!   the engine reads when it executes (buffer ranges with `VK_WHOLE_SIZE` resolved, image
//!   view, layout and sampler with immutable samplers filled in, texel buffer views, inline uniform
//!   block bytes, acceleration structures), behind a lock because update-after-bind lets the
//!   host write while a queue reads. The same store type is the command buffer's
//!   push-descriptor set: [`DescriptorStore::write`] and [`DescriptorStore::write_with_template`]
//!   are what `vkCmdPushDescriptorSet*` apply; recording and tracking those commands (and
//!   `vkCmdBindDescriptorSets*`) is the state tracker's, not this component's. The 1.4 forms of
//!   those commands are routed to and from their first forms by [`super::routes_1_4`] only for
//!   a vendor that hooks one form itself; this component adds no route of its own.
//! * **Pools count, they do not place.** Sets live in host memory from the pool's allocator, so
//!   a pool is counters (per descriptor type, sets, inline uniform block bindings) checked on
//!   every allocation: exhaustion is `VK_ERROR_OUT_OF_POOL_MEMORY`, exactly when a count would
//!   pass the create info's. Counters cannot fragment, so `VK_ERROR_FRAGMENTED_POOL` is never
//!   returned (the spec allows it only for fragmentation, never requires it).
//! * **Invalid usage** the kit detects (freeing from a pool without
//!   `FREE_DESCRIPTOR_SET_BIT`, a variable count above the binding's, a push-descriptor layout
//!   in `vkAllocateDescriptorSets`, a malformed layout) is a logged error and
//!   `VK_ERROR_VALIDATION_FAILED` (the result the 1.4 registry lists for every command for
//!   exactly that), never a panic.

use vkgen_generated::entries::EntryTable;

use super::api::Kit;

mod layout;
mod layout_commands;
pub(crate) mod pipeline_layout;
mod pool;
mod set;
mod store;
mod template;
mod update;

pub use layout::{layout_support, BufferSize, DescriptorSetLayout, SetLayout, SetLayoutBinding};
pub use pipeline_layout::{PipelineLayout, PipelineLayoutInfo};
pub use pool::DescriptorPool;
pub use set::DescriptorSet;
pub use store::{Descriptor, DescriptorStore};
pub use template::{DescriptorUpdateTemplate, TemplateEntry, UpdateTemplate};

/// The component as a table (see [`super::entries`]), empty unless the driver opted in.
pub fn entries<D: Kit>() -> EntryTable {
    if !D::DESCRIPTOR_OBJECTS {
        return EntryTable::EMPTY;
    }
    bring_up_entries::<D>()
}

/// The component's table whatever [`Kit::DESCRIPTOR_OBJECTS`] says: the descriptor objects of
/// the kit's bring-up table ([`super::bring_up::entries`]). Set layouts read `D`'s
/// physical-device limits; nothing else reads a base object.
pub fn bring_up_entries<D: Kit>() -> EntryTable {
    layout_commands::entries::<D>()
        .or(&pipeline_layout::entries())
        .or(&pool::entries())
        .or(&set::entries())
        .or(&template::entries())
}
