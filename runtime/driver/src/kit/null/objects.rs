//! The null driver's objects with state (memory, buffers, images, events, private-data slots),
//! the stateless ones, and the sizes and requirements it reports for them.

use super::*;
use crate::kit::resources::{linear_layout, ImageDesc, LinearLayout};

// ---------------------------------------------------------------------------------------------
// Objects

/// Host memory standing in for device memory: the heap's, or the pages of an
/// `AHardwareBuffer` (imported, or allocated to export), which the memory keeps a reference to.
pub(super) struct Memory {
    pub(super) ptr: NonNull<u8>,
    pub(super) len: usize,
    pub(super) backing: Backing,
}
pub(super) enum Backing {
    Heap(Layout),
    HardwareBuffer {
        _mapping: SharedMapping,
        buffer: HardwareBufferRef,
    },
}
// SAFETY: the memory is owned by this value; concurrent access through mappings is the
// application's to synchronise, as with any VkDeviceMemory.
unsafe impl Send for Memory {}
// SAFETY: a `&Memory` gives only its pointer and length; writes through mappings are the
// application's to order, as with any VkDeviceMemory, so sharing is as sound as sending.
unsafe impl Sync for Memory {}
impl Drop for Memory {
    fn drop(&mut self) {
        if let Backing::Heap(layout) = self.backing {
            // SAFETY: allocated in `allocate_memory` with exactly this layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) };
        }
    }
}

impl Memory {
    pub(super) fn heap(size: u64) -> Result<Self, vk::Result> {
        let layout = usize::try_from(size)
            .ok()
            .and_then(|s| Layout::from_size_align(s, MEMORY_ALIGNMENT).ok())
            .ok_or_else(|| {
                vkgen_abi::vk_error!(
                    vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                    "{size} bytes have no layout"
                )
            })?;
        // SAFETY: non-zero size (checked by the caller).
        let ptr = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) }).ok_or_else(|| {
            vkgen_abi::vk_error!(
                vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                "the host has no {size} bytes for device memory"
            )
        })?;
        Ok(Self {
            ptr,
            len: layout.size(),
            backing: Backing::Heap(layout),
        })
    }

    /// The buffer's pages, from byte 0 of its memory (what `allocationSize` covers).
    pub(super) fn hardware_buffer(buffer: HardwareBufferRef) -> Result<Self, vk::Result> {
        let mapping = buffer
            .import()
            .and_then(|b| b.into_mapping().map_err(Into::into))
            .map_err(|e| {
                crate::gralloc::map_gralloc_err(
                    "null: mapping an AHardwareBuffer",
                    &e,
                    crate::gralloc::BufferOp::Import,
                )
            })?;
        let ptr = NonNull::new(mapping.as_ptr()).ok_or_else(|| {
            vkgen_abi::vk_error!(
                vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                "null: an AHardwareBuffer mapped at null"
            )
        })?;
        Ok(Self {
            ptr,
            len: mapping.len(),
            backing: Backing::HardwareBuffer {
                _mapping: mapping,
                buffer,
            },
        })
    }
}

pub(super) struct Event {
    pub(super) set: AtomicBool,
}
pub(super) struct Buffer {
    pub(super) size: u64,
}
pub(super) struct Image {
    pub(super) format: vk::Format,
    pub(super) extent: vk::Extent3D,
    pub(super) usage: vk::ImageUsageFlags,
    pub(super) flags: vk::ImageCreateFlags,
    pub(super) mip_levels: u32,
    pub(super) array_layers: u32,
    pub(super) size: u64,
    pub(super) layout: LinearLayout,
    /// The gralloc buffer of a native-buffer image (its fd dup lives as long as the image).
    pub(super) _buffer: Option<GrallocBuffer>,
}

/// A null image for `ci`, on `buffer` for a native-buffer image.
pub(super) fn new_image(
    ci: &vk::ImageCreateInfo<'_>,
    buffer: Option<GrallocBuffer>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<vk::Image, vk::Result> {
    let layout = image_layout(ci);
    let image = Image {
        format: ci.format,
        extent: ci.extent,
        usage: ci.usage,
        flags: ci.flags,
        mip_levels: ci.mip_levels.max(1),
        array_layers: ci.array_layers.max(1),
        size: layout.total,
        layout,
        _buffer: buffer,
    };
    // SAFETY: `p_allocator` is what the application passed to vkCreateImage (both callers hand
    // theirs on), null or callbacks valid until the image is destroyed.
    unsafe { create_object(image, p_allocator) }.map(vk::Handle::from_raw)
}
pub(super) struct PrivateDataSlot {
    pub(super) data: Mutex<HashMap<(i32, u64), u64>>,
}
/// Objects without state; the parameter is the `VkObjectType`.
pub(super) struct Plain<const TYPE: i32>;

macro_rules! kinds {
    ($($t:ty => $k:ident),* $(,)?) => {$(
        impl ObjectKind for $t {
            const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::$k;
        }
    )*};
}
kinds! {
    Memory => DEVICE_MEMORY,
    Event => EVENT, Buffer => BUFFER, Image => IMAGE,
    PrivateDataSlot => PRIVATE_DATA_SLOT,
}
impl<const TYPE: i32> ObjectKind for Plain<TYPE> {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::from_raw(TYPE);
}

/// The object behind a non-dispatchable handle.
///
/// # Safety
/// `h` is null or a live handle of this driver.
pub(super) unsafe fn obj<'a, T: ObjectKind, H: vk::Handle>(h: H) -> Option<&'a T> {
    // SAFETY: `h` is null or a live handle of this driver (this function's contract); `from_handle`
    // checks its signature before the object is borrowed.
    unsafe { Object::<T>::from_handle(h) }.map(|o| &**o)
}

// ---------------------------------------------------------------------------------------------
// Physical device description

pub(super) fn buffer_requirements(size: u64) -> vk::MemoryRequirements {
    vk::MemoryRequirements {
        size: size.max(1).next_multiple_of(256),
        alignment: 256,
        memory_type_bits: 1,
    }
}

/// The kit's packed linear layout of the image `ci` describes (the format table sizes it).
pub(super) fn image_layout(ci: &vk::ImageCreateInfo<'_>) -> LinearLayout {
    linear_layout(&ImageDesc {
        flags: ci.flags,
        image_type: ci.image_type,
        format: ci.format,
        extent: ci.extent,
        mip_levels: ci.mip_levels,
        array_layers: ci.array_layers,
        samples: ci.samples,
        tiling: ci.tiling,
        usage: ci.usage,
    })
}

pub(super) fn image_requirements(size: u64) -> vk::MemoryRequirements {
    vk::MemoryRequirements {
        size: size.max(1).next_multiple_of(4096),
        alignment: 4096,
        memory_type_bits: 1,
    }
}

/// Writes the requirements of the buffer or image behind `handle` into a `VkMemoryRequirements2`
/// and its dedicated-allocation chain.
///
/// # Safety
/// `out` is a valid output structure.
pub(super) unsafe fn write_requirements2(
    out: *mut vk::MemoryRequirements2<'_>,
    r: vk::MemoryRequirements,
) {
    if out.is_null() {
        return;
    }
    // SAFETY: `out` and its chain are valid output structures per the caller.
    unsafe {
        (*out).memory_requirements = r;
        for_each_out((*out).p_next.cast(), |s| {
            if (*s).s_type == vk::StructureType::MEMORY_DEDICATED_REQUIREMENTS {
                let d = s.cast::<vk::MemoryDedicatedRequirements<'_>>();
                (*d).prefers_dedicated_allocation = vk::FALSE;
                (*d).requires_dedicated_allocation = vk::FALSE;
            }
        });
    }
}

/// Creates `n` stateless objects of one type into `out`, rolling back on failure.
///
/// # Safety
/// `out` is valid for `n` writes; `p_allocator` as for [`HostAllocator::from_ptr`].
pub(super) unsafe fn create_plain_array<const TYPE: i32, H: vk::Handle>(
    n: u32,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut H,
) -> vk::Result {
    if out.is_null() {
        return vk::Result::SUCCESS;
    }
    for i in 0..n as usize {
        // SAFETY: `p_allocator` is null or callbacks valid for the objects' lifetime (this
        // function's contract, the one `create_object` asks for).
        match unsafe { create_object(Plain::<TYPE>, p_allocator) } {
            // SAFETY: `out` is valid for `n` writes.
            Ok(h) => unsafe { out.add(i).write(H::from_raw(h)) },
            Err(e) => {
                for j in 0..n as usize {
                    // SAFETY: entries before `i` are live handles made above; every entry is
                    // then overwritten with null, as the spec requires on failure.
                    unsafe {
                        if j < i {
                            destroy_object::<Plain<TYPE>>(out.add(j).read().as_raw());
                        }
                        out.add(j).write(H::from_raw(0));
                    }
                }
                return e;
            }
        }
    }
    vk::Result::SUCCESS
}

/// Creates one stateless object into `out`.
///
/// # Safety
/// `out` is null or writable; `p_allocator` as for [`HostAllocator::from_ptr`].
pub(super) unsafe fn create_plain<const TYPE: i32, H: vk::Handle>(
    p_allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut H,
) -> vk::Result {
    // SAFETY: `out` is null or valid for one write, which `create_plain_array` with `n = 1` needs
    // (it skips null); `p_allocator` is passed on under the same contract.
    unsafe { create_plain_array::<TYPE, H>(1, p_allocator, out) }
}

/// Generates the create/destroy hook pairs of stateless object types.
macro_rules! plain_objects {
    ($($create:ident / $destroy:ident ($info:ty) -> $handle:ty : $kind:ident;)*) => {$(
        unsafe fn $create(
            _device: vk::Device,
            _p_create_info: *const $info,
            p_allocator: *const vk::AllocationCallbacks<'_>,
            p_out: *mut $handle,
        ) -> vk::Result {
            // SAFETY: `p_allocator` and `p_out` are the application's arguments of this create
            // command: null or valid callbacks, and an output valid for a write (or null, which
            // `create_plain` skips).
            unsafe {
                create_plain::<{ vk::ObjectType::$kind.as_raw() }, $handle>(p_allocator, p_out)
            }
        }
        unsafe fn $destroy(
            _device: vk::Device,
            object: $handle,
            _p_allocator: *const vk::AllocationCallbacks<'_>,
        ) {
            // SAFETY: `object` is null or a live handle the application no longer uses.
            unsafe {
                destroy_object::<Plain<{ vk::ObjectType::$kind.as_raw() }>>(vk::Handle::as_raw(object))
            };
        }
    )*};
}
