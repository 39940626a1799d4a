//! `VkDescriptorSet`: a [`DescriptorStore`] owned by its pool ([`super::pool`] makes and frees
//! them), and `vkUpdateDescriptorSets`: the writes in order, then the copies, as the spec
//! orders them.

use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::store::DescriptorStore;
use crate::handles::{Object, ObjectKind};
use crate::util::{guard, slice};

/// A `VkDescriptorSet` of the kit.
pub struct DescriptorSet {
    pub store: DescriptorStore,
}

impl ObjectKind for DescriptorSet {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::DESCRIPTOR_SET;
}

impl DescriptorSet {
    /// The set behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkDescriptorSet` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::DescriptorSet) -> Option<&'a Self> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<Self>::from_handle(h) }.map(|o| &**o)
    }
}

/// [`vkUpdateDescriptorSets`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkUpdateDescriptorSets.html)
unsafe extern "system" fn update_descriptor_sets(
    _device: vk::Device,
    write_count: u32,
    p_writes: *const vk::WriteDescriptorSet<'_>,
    copy_count: u32,
    p_copies: *const vk::CopyDescriptorSet<'_>,
) {
    guard("vkUpdateDescriptorSets", (), || {
        // SAFETY: `pDescriptorWrites` holds `descriptorWriteCount` valid writes
        // (VUID-vkUpdateDescriptorSets-pDescriptorWrites-parameter).
        for w in unsafe { slice(p_writes, write_count) } {
            // SAFETY: the write's live set handle (VUID-VkWriteDescriptorSet-dstSet-00320
            // and the -parameter VUIDs); `from_handle` checks the type.
            match unsafe { DescriptorSet::from_handle(w.dst_set) } {
                // SAFETY: the application's valid write, its arrays and chain.
                Some(set) => unsafe { set.store.write(w) },
                None => log::error!("vkUpdateDescriptorSets: a write to a set not of this driver"),
            }
        }
        // SAFETY: `pDescriptorCopies` holds `descriptorCopyCount` valid copies
        // (VUID-vkUpdateDescriptorSets-pDescriptorCopies-parameter).
        for c in unsafe { slice(p_copies, copy_count) } {
            // SAFETY: the copy's live set handles (VUID-VkCopyDescriptorSet-srcSet-parameter,
            // -dstSet-parameter); `from_handle` checks their types.
            let sets = unsafe {
                (
                    DescriptorSet::from_handle(c.src_set),
                    DescriptorSet::from_handle(c.dst_set),
                )
            };
            match sets {
                (Some(src), Some(dst)) => dst.store.copy_from(&src.store, c),
                _ => log::error!("vkUpdateDescriptorSets: a copy between sets not of this driver"),
            }
        }
    });
}

pub(super) fn entries() -> EntryTable {
    EntryTable {
        update_descriptor_sets: Some(update_descriptor_sets),
        ..EntryTable::EMPTY
    }
}
