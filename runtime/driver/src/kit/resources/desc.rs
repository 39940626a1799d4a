//! The plain descriptions and counters the resource objects share with the rest of the kit (the
//! format layouts, the physical device's heap accounting, the vendor's requirement hooks): a
//! leaf, so that what only needs the data does not depend on the objects.

use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use vkgen_generated::vk;

use crate::handles::{create_object, ObjectKind};

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

/// Stores `value` as a new object and its handle through `out`.
///
/// # Safety
/// `p_allocator` is null or valid callbacks; `out` is valid for a write.
pub(crate) unsafe fn store<T: ObjectKind, H: vk::Handle>(
    value: T,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut H,
) -> vk::Result {
    // SAFETY: the caller's allocator.
    match unsafe { create_object(value, p_allocator) } {
        Ok(h) => {
            // SAFETY: the caller's output pointer.
            unsafe { out.write(H::from_raw(h)) };
            vk::Result::SUCCESS
        }
        Err(e) => e,
    }
}

/// The vendor's data on a resource object: set once (usually right after creation, from the
/// vendor's own code), read back by type.
#[derive(Default)]
pub struct VendorData(OnceLock<Box<dyn Any + Send + Sync>>);

impl VendorData {
    /// Attaches `data`; `false` (and `data` dropped) if data was attached already.
    pub fn set<T: Any + Send + Sync>(&self, data: T) -> bool {
        self.0.set(Box::new(data)).is_ok()
    }

    /// The attached data, if it is a `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.get().and_then(|b| b.downcast_ref())
    }
}
