//! `VkDeviceMemory` as data: the kit's memory object, its backing and mapping state, and what
//! reads it (binding checks, host addresses, the `AHardwareBuffer` behind it). A leaf: the
//! vendor-facing trait and the other resource objects name it without the allocation
//! commands (`memory.rs`), which call the vendor's hooks.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::{Mutex, OnceLock};

use vkgen_abi::vk_error;
use vkgen_generated::vk;

use super::desc::{HeapUsage, VendorData};
use crate::gralloc::SharedMapping;
use crate::handles::{destroy_object, Object, ObjectKind};
use crate::hardware_buffer::HardwareBufferRef;
use crate::kit::objects::Device;
use crate::kit::types::KitTypes;
use crate::util::find_in_chain;

/// The alignment of every allocation: `minMemoryMapAlignment` of the kit's defaults (64)
/// and any buffer or image alignment the default requirements ask for.
pub(super) const ALIGNMENT: usize = 256;

/// Where a memory's bytes live.
pub(super) enum Backing {
    /// The kit's zeroed host allocation (freed with the memory).
    Host(Layout),
    /// A buffer's pages, mapped shared from byte 0 of its fd; the mapping (and with it the
    /// buffer's fd) lives as long as the memory, and so does the reference to the
    /// `AHardwareBuffer` the pages belong to, if any.
    Shared {
        _mapping: SharedMapping,
        hardware_buffer: Option<HardwareBufferRef>,
    },
}

/// The image or buffer a dedicated allocation (`VkMemoryDedicatedAllocateInfo`) is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dedicated {
    Image(vk::Image),
    Buffer(vk::Buffer),
}

/// A `VkDeviceMemory` of the kit.
pub struct DeviceMemory {
    pub size: u64,
    pub type_index: u32,
    pub heap_index: u32,
    pub property_flags: vk::MemoryPropertyFlags,
    /// What the allocation is dedicated to, if it is.
    pub dedicated: Option<Dedicated>,
    pub(super) base: NonNull<u8>,
    pub(super) backing: Backing,
    /// The physical device's heap usage the allocation is charged to (released on free);
    /// `None` for shared pages.
    pub(super) heaps: Option<NonNull<HeapUsage>>,
    /// `(offset, size)` while mapped.
    pub(super) mapped: Mutex<Option<(u64, u64)>>,
    pub vendor: VendorData,
}

// SAFETY: `base` is this object's own allocation or shared mapping (written only through
// pointers the application or the vendor's engine synchronises, as device memory is); `heaps`
// points into the physical device, which outlives the memory by the API's rules.
unsafe impl Send for DeviceMemory {}
// SAFETY: see `Send`; the mapping state is behind a mutex.
unsafe impl Sync for DeviceMemory {}

impl ObjectKind for DeviceMemory {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::DEVICE_MEMORY;
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        super::address::unregister(self.base.as_ptr());
        if let Backing::Host(layout) = self.backing {
            // SAFETY: allocated in `allocate` with `layout`, freed only here.
            unsafe { std::alloc::dealloc(self.base.as_ptr(), layout) };
        }
        if let Some(heaps) = self.heaps {
            // SAFETY: the physical device (alive as long as its instance) outlives the
            // device, which outlives its memory (VUID-vkDestroyDevice-device-05137).
            unsafe { heaps.as_ref() }.release(self.heap_index as usize, self.size);
        }
    }
}

impl DeviceMemory {
    /// The memory behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkDeviceMemory` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::DeviceMemory) -> Option<&'a DeviceMemory> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<DeviceMemory>::from_handle(h) }.map(|o| &**o)
    }

    /// The first byte of the allocation (what an engine reads and writes; valid for
    /// [`size`](Self::size) bytes while the memory lives).
    pub fn host_ptr(&self) -> *mut u8 {
        self.base.as_ptr()
    }

    /// The `AHardwareBuffer` whose pages the memory is (imported, or allocated for export).
    pub fn hardware_buffer(&self) -> Option<&HardwareBufferRef> {
        match &self.backing {
            Backing::Shared {
                hardware_buffer, ..
            } => hardware_buffer.as_ref(),
            Backing::Host(_) => None,
        }
    }

    /// Whether the bytes are a buffer's from outside the kit (not charged to a heap).
    pub fn is_shared(&self) -> bool {
        matches!(self.backing, Backing::Shared { .. })
    }

    /// Memory of type `type_index` that is `mapping`'s pages: `size` bytes from byte 0 of the
    /// buffer's fd (at most the mapping's length).
    pub(super) fn shared(
        mapping: SharedMapping,
        hardware_buffer: Option<HardwareBufferRef>,
        size: u64,
        (type_index, ty): (u32, vk::MemoryType),
        dedicated: Option<Dedicated>,
    ) -> Result<Self, vk::Result> {
        let base = NonNull::new(mapping.as_ptr()).ok_or_else(|| {
            vk_error!(
                vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                "a buffer mapped at null"
            )
        })?;
        if size > mapping.len() as u64 {
            return Err(vk_error!(
                vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                "{size} bytes of a buffer whose mapping holds {}",
                mapping.len()
            ));
        }
        super::address::register(base.as_ptr(), size);
        Ok(DeviceMemory {
            size,
            type_index,
            heap_index: ty.heap_index,
            property_flags: ty.property_flags,
            dedicated,
            base,
            backing: Backing::Shared {
                _mapping: mapping,
                hardware_buffer,
            },
            heaps: None,
            mapped: Mutex::new(None),
            vendor: VendorData::default(),
        })
    }
}

/// The dedicated-allocation target named in `info`'s chain.
///
/// # Safety
/// `info`'s chain is valid.
pub(super) unsafe fn dedicated(info: &vk::MemoryAllocateInfo<'_>) -> Option<Dedicated> {
    // SAFETY: the caller's valid chain: a structure found by its sType is that structure.
    let d = unsafe {
        find_in_chain::<vk::MemoryDedicatedAllocateInfo<'_>>(
            info.p_next,
            vk::StructureType::MEMORY_DEDICATED_ALLOCATE_INFO,
        )
    }?;
    if d.image != vk::Image::null() {
        Some(Dedicated::Image(d.image))
    } else if d.buffer != vk::Buffer::null() {
        Some(Dedicated::Buffer(d.buffer))
    } else {
        None
    }
}

/// The `AHardwareBuffer` behind a kit memory (the default of
/// [`Kit::memory_hardware_buffer`](crate::kit::Kit::memory_hardware_buffer)).
///
/// # Safety
/// `memory` is null or a live `VkDeviceMemory` of a driver with the resource objects on.
pub unsafe fn memory_hardware_buffer(memory: vk::DeviceMemory) -> Option<HardwareBufferRef> {
    // SAFETY: the caller's null or live handle; `from_handle` checks the type.
    unsafe { DeviceMemory::from_handle(memory) }?
        .hardware_buffer()
        .cloned()
}

/// Binds an object of `size` bytes with requirements `req` to `memory` at `offset`, after the
/// spec's checks (alignment, range, memory type, bound once); `what` names the object in the
/// log. Invalid usage has no required result; `VK_ERROR_OUT_OF_DEVICE_MEMORY` is the one the
/// bind commands may return.
pub(super) fn bind_checked(
    binding: &OnceLock<(vk::DeviceMemory, u64)>,
    req: &vk::MemoryRequirements,
    what: &str,
    memory: vk::DeviceMemory,
    offset: u64,
) -> vk::Result {
    // SAFETY: the application's memory handle (the bind command's -memory-parameter VUID);
    // checked by type.
    let Some(m) = (unsafe { DeviceMemory::from_handle(memory) }) else {
        return vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "{what}: not memory of this driver"
        );
    };
    if !offset.is_multiple_of(req.alignment.max(1))
        || offset > m.size
        || req.size > m.size - offset
        || req.memory_type_bits & (1 << m.type_index) == 0
    {
        return vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "{what} of {} bytes (alignment {}, types {:#x}) does not fit memory type {} of {} bytes at {offset}",
            req.size,
            req.alignment,
            req.memory_type_bits,
            m.type_index,
            m.size
        );
    }
    if binding.set((memory, offset)).is_err() {
        return vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "{what} already bound"
        );
    }
    vk::Result::SUCCESS
}

/// The host address `offset` bytes into the memory of `binding`, once bound.
pub(super) fn bound_host_ptr(binding: &OnceLock<(vk::DeviceMemory, u64)>) -> Option<*mut u8> {
    let &(memory, offset) = binding.get()?;
    // SAFETY: an object's memory outlives its use by the API's rules
    // (VUID-vkFreeMemory-memory-00677); the handle was checked at bind time.
    let m = unsafe { DeviceMemory::from_handle(memory) }?;
    // SAFETY: `bind_checked` checked `offset + size <= memory size`.
    Some(unsafe { m.host_ptr().add(offset as usize) })
}

/// Memory type `type_index` of `dev`, if it has one.
pub(super) fn memory_type<D: KitTypes>(
    dev: &Device<D>,
    type_index: u32,
) -> Result<(u32, vk::MemoryType), vk::Result> {
    let props = &dev.physical().memory;
    if type_index >= props.memory_type_count.min(vk::MAX_MEMORY_TYPES as u32) {
        return Err(vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "memory type {type_index} of {}",
            props.memory_type_count
        ));
    }
    Ok((type_index, props.memory_types[type_index as usize]))
}

/// A memory object an image owns (a native-buffer image's): destroyed with the image.
pub(super) struct OwnedMemory(pub(super) vk::DeviceMemory);

impl Drop for OwnedMemory {
    fn drop(&mut self) {
        // SAFETY: made by `bind_native_buffer` for one image alone, whose binding is the only
        // other reference; that image is being dropped, so nothing uses the memory.
        unsafe { destroy_object::<DeviceMemory>(vk::Handle::as_raw(self.0)) };
    }
}
