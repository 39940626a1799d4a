//! `VkDeviceMemory` as host memory: allocation charged to its heap, mapping of host-visible
//! types, and the `…2` map commands read the same state, so the 1.0 and 1.4 forms agree.
//!
//! Memory is the kit's own zeroed allocation, or the pages of a buffer from outside
//! ([`Backing::Shared`]): an `AHardwareBuffer` imported or allocated for export
//! (`VK_ANDROID_external_memory_android_hardware_buffer`, [`super::external`]) or the gralloc
//! buffer behind a native-buffer image. Shared pages are mapped `MAP_SHARED`, so what the
//! application writes through `vkMapMemory` is what the buffer's other users read, and the
//! other way round; they are not charged to a heap (they are the allocator's, not the
//! device's).

use std::alloc::Layout;
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Mutex;

use vkgen_abi::vk_error;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::super::api::Kit;
use super::super::objects::Device;
use super::desc::{store, VendorData};
use super::device_memory::{dedicated, memory_type, Backing, DeviceMemory, ALIGNMENT};
use crate::handles::destroy_object;
use crate::util::{guard, lock};

/// [`vkAllocateMemory`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkAllocateMemory.html)
unsafe extern "system" fn allocate_memory<D: Kit>(
    device: vk::Device,
    p_info: *const vk::MemoryAllocateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_memory: *mut vk::DeviceMemory,
) -> vk::Result {
    guard(
        "vkAllocateMemory",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the application's device handle; `from_handle` checks it is one of ours.
            let Some(dev) = (unsafe { Device::<D>::from_handle(device) }) else {
                return vk_error!(
                    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                    "not a device of this driver"
                );
            };
            // SAFETY: `pAllocateInfo` is a valid structure (VUID-vkAllocateMemory-pAllocateInfo-parameter).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "null pAllocateInfo");
            };
            // SAFETY: the application's structure with a valid chain (the -pNext- VUIDs).
            let made = match unsafe { super::external::hardware_buffer_memory(dev, info) } {
                Some(m) => m,
                None => allocate(dev, info.allocation_size, info.memory_type_index).map(|mut m| {
                    // SAFETY: `info`'s valid chain again, read for its dedicated target.
                    m.dedicated = unsafe { dedicated(info) };
                    m
                }),
            };
            match made {
                // SAFETY: the application's allocator and output pointer
                // (VUID-vkAllocateMemory-pAllocator-parameter, -pMemory-parameter).
                Ok(memory) => unsafe { store(memory, p_allocator, p_memory) },
                Err(e) => e,
            }
        },
    )
}

/// A zeroed allocation of `size` bytes from memory type `type_index` of `dev`, charged to its
/// heap.
fn allocate<D: Kit>(
    dev: &Device<D>,
    size: u64,
    type_index: u32,
) -> Result<DeviceMemory, vk::Result> {
    let (_, ty) = memory_type(dev, type_index)?;
    let heap = dev.physical().memory.memory_heaps[ty.heap_index as usize];
    if size == 0 {
        return Err(vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "allocationSize 0 (VUID-VkMemoryAllocateInfo-allocationSize-07897)"
        ));
    }
    if !dev
        .physical()
        .heaps
        .charge(ty.heap_index as usize, size, heap.size)
    {
        return Err(vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "{size} bytes more than heap {} holds ({} of {} in use)",
            ty.heap_index,
            dev.physical().heaps.used(ty.heap_index as usize),
            heap.size
        ));
    }
    let layout = usize::try_from(size)
        .ok()
        .and_then(|s| Layout::from_size_align(s, ALIGNMENT).ok());
    // SAFETY: a non-zero size (checked above) and a valid alignment.
    let base = layout.and_then(|l| NonNull::new(unsafe { std::alloc::alloc_zeroed(l) }));
    let (Some(layout), Some(base)) = (layout, base) else {
        dev.physical().heaps.release(ty.heap_index as usize, size);
        return Err(vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "no host memory for {size} bytes"
        ));
    };
    super::address::register(base.as_ptr(), size);
    Ok(DeviceMemory {
        size,
        type_index,
        heap_index: ty.heap_index,
        property_flags: ty.property_flags,
        dedicated: None,
        base,
        backing: Backing::Host(layout),
        heaps: Some(NonNull::from(&dev.physical().heaps)),
        mapped: Mutex::new(None),
        vendor: VendorData::default(),
    })
}

/// [`vkFreeMemory`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkFreeMemory.html)
unsafe extern "system" fn free_memory(
    _device: vk::Device,
    memory: vk::DeviceMemory,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkFreeMemory", (), || {
        // SAFETY: `memory` is null or a live allocation nothing uses any more
        // (VUID-vkFreeMemory-memory-00677); a wrong type is ignored.
        unsafe { destroy_object::<DeviceMemory>(vk::Handle::as_raw(memory)) };
    });
}

/// The host address of `memory` at `offset`, recorded as mapped; the spec's checks first.
fn map(memory: &DeviceMemory, offset: u64, size: u64) -> Result<*mut c_void, vk::Result> {
    if !memory
        .property_flags
        .contains(vk::MemoryPropertyFlags::HOST_VISIBLE)
    {
        return Err(vk_error!(
            vk::Result::ERROR_MEMORY_MAP_FAILED,
            "memory type {} is not host-visible",
            memory.type_index
        ));
    }
    let size = if size == vk::WHOLE_SIZE {
        memory.size.saturating_sub(offset)
    } else {
        size
    };
    if offset >= memory.size || size > memory.size - offset {
        return Err(vk_error!(
            vk::Result::ERROR_MEMORY_MAP_FAILED,
            "range {offset}+{size} outside {} bytes",
            memory.size
        ));
    }
    let mut mapped = lock(&memory.mapped);
    if mapped.is_some() {
        return Err(vk_error!(
            vk::Result::ERROR_MEMORY_MAP_FAILED,
            "already mapped (VUID-vkMapMemory-memory-00678)"
        ));
    }
    *mapped = Some((offset, size));
    // SAFETY: `offset < size` of this allocation (checked above).
    Ok(unsafe { memory.base.as_ptr().add(offset as usize) }.cast())
}

/// [`vkMapMemory`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkMapMemory.html)
unsafe extern "system" fn map_memory(
    _device: vk::Device,
    memory: vk::DeviceMemory,
    offset: vk::DeviceSize,
    size: vk::DeviceSize,
    _flags: vk::MemoryMapFlags,
    pp_data: *mut *mut c_void,
) -> vk::Result {
    guard("vkMapMemory", vk::Result::ERROR_MEMORY_MAP_FAILED, || {
        // SAFETY: the application's handle (VUID-vkMapMemory-memory-parameter); checked by type.
        let Some(m) = (unsafe { DeviceMemory::from_handle(memory) }) else {
            return vk_error!(
                vk::Result::ERROR_MEMORY_MAP_FAILED,
                "not memory of this driver"
            );
        };
        let (r, p) = match map(m, offset, size) {
            Ok(p) => (vk::Result::SUCCESS, p),
            Err(e) => (e, std::ptr::null_mut()),
        };
        // SAFETY: `ppData` is valid for a write (VUID-vkMapMemory-ppData-parameter).
        unsafe { pp_data.write(p) };
        r
    })
}

/// [`vkMapMemory2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkMapMemory2.html)
/// (a 1.4 registry's name: older tables call it `…KHR`, and the kit answers the 1.0 form only).
#[cfg(vk_1_4)]
unsafe extern "system" fn map_memory2(
    device: vk::Device,
    p_info: *const vk::MemoryMapInfo,
    pp_data: *mut *mut c_void,
) -> vk::Result {
    // SAFETY: `pMemoryMapInfo` is a valid structure (VUID-vkMapMemory2-pMemoryMapInfo-parameter).
    let Some(i) = (unsafe { p_info.as_ref() }) else {
        return vk_error!(vk::Result::ERROR_MEMORY_MAP_FAILED, "null pMemoryMapInfo");
    };
    // SAFETY: the same arguments `vkMapMemory` takes, from the application's structure.
    unsafe {
        map_memory(
            device,
            i.memory,
            i.offset,
            i.size,
            vk::MemoryMapFlags::empty(),
            pp_data,
        )
    }
}

/// [`vkUnmapMemory`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkUnmapMemory.html)
unsafe extern "system" fn unmap_memory(_device: vk::Device, memory: vk::DeviceMemory) {
    guard("vkUnmapMemory", (), || {
        // SAFETY: the application's handle (VUID-vkUnmapMemory-memory-parameter); checked by type.
        if let Some(m) = unsafe { DeviceMemory::from_handle(memory) } {
            *lock(&m.mapped) = None;
        }
    });
}

/// [`vkUnmapMemory2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkUnmapMemory2.html)
/// (a 1.4 registry's name, as `vkMapMemory2`).
#[cfg(vk_1_4)]
unsafe extern "system" fn unmap_memory2(
    device: vk::Device,
    p_info: *const vk::MemoryUnmapInfo,
) -> vk::Result {
    // SAFETY: `pMemoryUnmapInfo` is a valid structure (VUID-vkUnmapMemory2-pMemoryUnmapInfo-parameter).
    if let Some(i) = unsafe { p_info.as_ref() } {
        // SAFETY: the memory handle of the application's structure.
        unsafe { unmap_memory(device, i.memory) };
    }
    vk::Result::SUCCESS
}

/// [`vkFlushMappedMemoryRanges`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkFlushMappedMemoryRanges.html)
/// and `vkInvalidateMappedMemoryRanges`: host memory is coherent with itself.
unsafe extern "system" fn flush_ranges(
    _device: vk::Device,
    _count: u32,
    _p_ranges: *const vk::MappedMemoryRange<'_>,
) -> vk::Result {
    vk::Result::SUCCESS
}

/// [`vkGetDeviceMemoryCommitment`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetDeviceMemoryCommitment.html):
/// host memory is committed whole.
unsafe extern "system" fn get_device_memory_commitment(
    _device: vk::Device,
    memory: vk::DeviceMemory,
    p_committed: *mut vk::DeviceSize,
) {
    guard("vkGetDeviceMemoryCommitment", (), || {
        // SAFETY: the application's handle; checked by type.
        let size = unsafe { DeviceMemory::from_handle(memory) }.map_or(0, |m| m.size);
        // SAFETY: `pCommittedMemoryInBytes` is valid for a write
        // (VUID-vkGetDeviceMemoryCommitment-pCommittedMemoryInBytes-parameter).
        unsafe { p_committed.write(size) };
    });
}

/// [`vkGetDeviceGroupPeerMemoryFeatures`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetDeviceGroupPeerMemoryFeatures.html):
/// a kit device is a group of one, whose memory is host memory every "peer" reaches alike, so
/// every access (Mesa's drivers answer the same for their single-device groups).
unsafe extern "system" fn get_device_group_peer_memory_features(
    _device: vk::Device,
    _heap_index: u32,
    _local_device_index: u32,
    _remote_device_index: u32,
    p_features: *mut vk::PeerMemoryFeatureFlags,
) {
    use vk::PeerMemoryFeatureFlags as F;
    // SAFETY: `pPeerMemoryFeatures` is valid for a write
    // (VUID-vkGetDeviceGroupPeerMemoryFeatures-pPeerMemoryFeatures-parameter); null is skipped.
    if let Some(out) = unsafe { p_features.as_mut() } {
        *out = F::COPY_SRC | F::COPY_DST | F::GENERIC_SRC | F::GENERIC_DST;
    }
}

/// [`vkGetDeviceMemoryOpaqueCaptureAddress`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetDeviceMemoryOpaqueCaptureAddress.html):
/// no capture/replay addresses (`bufferDeviceAddressCaptureReplay` stays off).
unsafe extern "system" fn get_device_memory_opaque_capture_address(
    _device: vk::Device,
    _p_info: *const vk::DeviceMemoryOpaqueCaptureAddressInfo<'_>,
) -> u64 {
    0
}

pub(super) fn entries<D: Kit>() -> EntryTable {
    EntryTable {
        allocate_memory: Some(allocate_memory::<D>),
        free_memory: Some(free_memory),
        map_memory: Some(map_memory),
        #[cfg(vk_1_4)]
        map_memory2: Some(map_memory2),
        unmap_memory: Some(unmap_memory),
        #[cfg(vk_1_4)]
        unmap_memory2: Some(unmap_memory2),
        flush_mapped_memory_ranges: Some(flush_ranges),
        invalidate_mapped_memory_ranges: Some(flush_ranges),
        get_device_memory_commitment: Some(get_device_memory_commitment),
        get_device_group_peer_memory_features: Some(get_device_group_peer_memory_features),
        get_device_memory_opaque_capture_address: Some(get_device_memory_opaque_capture_address),
        ..EntryTable::EMPTY
    }
}
