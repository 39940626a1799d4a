//! The plain descriptions and counters the resource objects share with the rest of the kit (the
//! format layouts, the physical device's heap accounting, the vendor's requirement hooks): a
//! leaf, so that what only needs the data does not depend on the objects.

use std::sync::atomic::{AtomicU64, Ordering};

use vkgen_generated::vk;

/// Bytes allocated per memory heap of a physical device (`VK_MAX_MEMORY_HEAPS` counters).
#[derive(Default)]
pub struct HeapUsage([AtomicU64; vk::MAX_MEMORY_HEAPS]);

impl HeapUsage {
    /// Charges `size` bytes to `heap` if that keeps it within `limit`.
    pub(super) fn charge(&self, heap: usize, size: u64, limit: u64) -> bool {
        let Some(used) = self.0.get(heap) else {
            return false;
        };
        used.fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
            u.checked_add(size).filter(|&n| n <= limit)
        })
        .is_ok()
    }

    pub(super) fn release(&self, heap: usize, size: u64) {
        if let Some(used) = self.0.get(heap) {
            used.fetch_sub(size, Ordering::AcqRel);
        }
    }

    /// Bytes allocated from `heap` now (what `VK_EXT_memory_budget` reports as usage).
    pub fn used(&self, heap: usize) -> u64 {
        self.0.get(heap).map_or(0, |u| u.load(Ordering::Acquire))
    }
}

/// What `vkCreateBuffer` (or `vkGetDeviceBufferMemoryRequirements`) describes.
#[derive(Clone, Copy, Debug)]
pub struct BufferDesc {
    pub size: u64,
    /// `VkBufferUsageFlags`, or `VkBufferUsageFlags2CreateInfo`'s 64-bit flags when chained.
    pub usage: u64,
    pub flags: vk::BufferCreateFlags,
}

/// What `vkCreateImage` (or `vkGetDeviceImageMemoryRequirements`) describes.
#[derive(Clone, Copy, Debug)]
pub struct ImageDesc {
    pub flags: vk::ImageCreateFlags,
    pub image_type: vk::ImageType,
    pub format: vk::Format,
    pub extent: vk::Extent3D,
    pub mip_levels: u32,
    pub array_layers: u32,
    pub samples: vk::SampleCountFlags,
    pub tiling: vk::ImageTiling,
    pub usage: vk::ImageUsageFlags,
}
