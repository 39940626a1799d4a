//! `VkBuffer`: the create info, the binding, memory requirements with and without an object
//! (`vkGetDeviceBufferMemoryRequirements`), and device addresses (a CPU device's address of a
//! buffer is its host address).

use std::sync::OnceLock;

use vkgen_abi::vk_error;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::super::api::Kit;
use super::super::objects::Device;
use super::desc::{store, BufferDesc, VendorData};
use super::device_memory::{bind_checked, bound_host_ptr};
use crate::handles::{destroy_object, Object, ObjectKind};
use crate::util::{find_in_chain, for_each_out, guard, slice};

/// A `VkBuffer` of the kit.
pub struct Buffer {
    pub desc: BufferDesc,
    pub requirements: vk::MemoryRequirements,
    /// `(memory, offset)` once bound.
    binding: OnceLock<(vk::DeviceMemory, u64)>,
    pub vendor: VendorData,
}

impl ObjectKind for Buffer {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::BUFFER;
}

impl Buffer {
    /// The buffer behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkBuffer` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::Buffer) -> Option<&'a Buffer> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<Buffer>::from_handle(h) }.map(|o| &**o)
    }

    /// `(memory, offset)` the buffer is bound to.
    pub fn binding(&self) -> Option<(vk::DeviceMemory, u64)> {
        self.binding.get().copied()
    }

    /// The host address of the buffer's first byte (valid for `desc.size` bytes while the
    /// buffer and its memory live), once bound.
    pub fn host_ptr(&self) -> Option<*mut u8> {
        bound_host_ptr(&self.binding)
    }
}

/// The description `vkCreateBuffer` and `vkGetDeviceBufferMemoryRequirements` share, with the
/// 64-bit usage of `VkBufferUsageFlags2CreateInfo` when chained.
///
/// # Safety
/// `info`'s `pNext` chain is valid.
unsafe fn describe(info: &vk::BufferCreateInfo<'_>) -> BufferDesc {
    // SAFETY: the application's valid chain (the caller's promise).
    let usage2 = unsafe {
        // ash's `…KHR` spelling: the same structure, and present whichever registry the
        // tables come from (1.4's promoted name is not in a 1.3 registry).
        find_in_chain::<vk::BufferUsageFlags2CreateInfoKHR>(
            info.p_next,
            vk::StructureType::BUFFER_USAGE_FLAGS_2_CREATE_INFO_KHR,
        )
    };
    BufferDesc {
        size: info.size,
        usage: usage2.map_or(u64::from(info.usage.as_raw()), |u| u.usage.as_raw()),
        flags: info.flags,
    }
}

fn requirements<D: Kit>(dev: &Device<D>, desc: &BufferDesc) -> vk::MemoryRequirements {
    D::buffer_requirements(dev.physical(), desc)
}

/// [`vkCreateBuffer`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateBuffer.html)
unsafe extern "system" fn create_buffer<D: Kit>(
    device: vk::Device,
    p_info: *const vk::BufferCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_buffer: *mut vk::Buffer,
) -> vk::Result {
    guard(
        "vkCreateBuffer",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the application's device handle; `from_handle` checks it is one of ours.
            let Some(dev) = (unsafe { Device::<D>::from_handle(device) }) else {
                return vk_error!(
                    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                    "not a device of this driver"
                );
            };
            // SAFETY: `pCreateInfo` is a valid structure with a valid chain
            // (VUID-vkCreateBuffer-pCreateInfo-parameter).
            let Some(desc) = (unsafe { p_info.as_ref() }).map(|i| unsafe { describe(i) }) else {
                return vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "null pCreateInfo");
            };
            let buffer = Buffer {
                desc,
                requirements: requirements(dev, &desc),
                binding: OnceLock::new(),
                vendor: VendorData::default(),
            };
            // SAFETY: the application's allocator and output pointer (the command's
            // -pAllocator- and output -parameter VUIDs).
            unsafe { store(buffer, p_allocator, p_buffer) }
        },
    )
}

/// [`vkDestroyBuffer`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyBuffer.html)
unsafe extern "system" fn destroy_buffer(
    _device: vk::Device,
    buffer: vk::Buffer,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyBuffer", (), || {
        // SAFETY: `buffer` is null or a buffer no pending work uses (VUID-vkDestroyBuffer-buffer-00922).
        unsafe { destroy_object::<Buffer>(vk::Handle::as_raw(buffer)) };
    });
}

/// Writes `req` into a `VkMemoryRequirements2` and its chain (a dedicated allocation is
/// neither preferred nor required: host memory has no such constraint).
///
/// # Safety
/// `out` is null or a valid output structure with a valid chain.
pub(super) unsafe fn write_requirements2(
    out: *mut vk::MemoryRequirements2<'_>,
    req: vk::MemoryRequirements,
) {
    // SAFETY: the caller's valid output structure.
    let Some(out) = (unsafe { out.as_mut() }) else {
        return;
    };
    out.memory_requirements = req;
    // SAFETY: the output chain is the application's, valid (the caller's promise).
    unsafe {
        for_each_out(out.p_next, |s| {
            if (*s).s_type == vk::StructureType::MEMORY_DEDICATED_REQUIREMENTS {
                let d = s.cast::<vk::MemoryDedicatedRequirements<'_>>();
                (*d).prefers_dedicated_allocation = vk::FALSE;
                (*d).requires_dedicated_allocation = vk::FALSE;
            }
        });
    }
}

/// [`vkGetBufferMemoryRequirements`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetBufferMemoryRequirements.html)
unsafe extern "system" fn get_buffer_memory_requirements(
    _device: vk::Device,
    buffer: vk::Buffer,
    p_req: *mut vk::MemoryRequirements,
) {
    guard("vkGetBufferMemoryRequirements", (), || {
        // SAFETY: the application's handle; checked by type.
        if let Some(b) = unsafe { Buffer::from_handle(buffer) } {
            // SAFETY: `pMemoryRequirements` is valid for a write
            // (VUID-vkGetBufferMemoryRequirements-pMemoryRequirements-parameter).
            unsafe { p_req.write(b.requirements) };
        }
    });
}

/// [`vkGetBufferMemoryRequirements2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetBufferMemoryRequirements2.html)
unsafe extern "system" fn get_buffer_memory_requirements2(
    _device: vk::Device,
    p_info: *const vk::BufferMemoryRequirementsInfo2<'_>,
    p_req: *mut vk::MemoryRequirements2<'_>,
) {
    guard("vkGetBufferMemoryRequirements2", (), || {
        // SAFETY: `pInfo` is a valid structure; its buffer handle is checked by type.
        let b = unsafe { p_info.as_ref() }.and_then(|i| unsafe { Buffer::from_handle(i.buffer) });
        if let Some(b) = b {
            // SAFETY: `pMemoryRequirements` is a valid output structure with a valid chain.
            unsafe { write_requirements2(p_req, b.requirements) };
        }
    });
}

/// [`vkGetDeviceBufferMemoryRequirements`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetDeviceBufferMemoryRequirements.html):
/// what a buffer of that create info would need, without making one.
unsafe extern "system" fn get_device_buffer_memory_requirements<D: Kit>(
    device: vk::Device,
    p_info: *const vk::DeviceBufferMemoryRequirements<'_>,
    p_req: *mut vk::MemoryRequirements2<'_>,
) {
    guard("vkGetDeviceBufferMemoryRequirements", (), || {
        // SAFETY: the application's device handle; `from_handle` checks it is one of ours.
        let Some(dev) = (unsafe { Device::<D>::from_handle(device) }) else {
            return;
        };
        // SAFETY: `pInfo` and its `pCreateInfo` are valid structures with valid chains.
        let desc = unsafe { p_info.as_ref().and_then(|i| i.p_create_info.as_ref()) }
            .map(|c| unsafe { describe(c) });
        if let Some(desc) = desc {
            // SAFETY: `pMemoryRequirements` is a valid output structure with a valid chain.
            unsafe { write_requirements2(p_req, requirements(dev, &desc)) };
        }
    });
}

/// Binds `buffer` to `memory` at `offset` after the spec's checks.
fn bind(buffer: vk::Buffer, memory: vk::DeviceMemory, offset: u64) -> vk::Result {
    // SAFETY: the application's buffer handle (VUID-VkBindBufferMemoryInfo-buffer-parameter);
    // checked by type.
    let Some(b) = (unsafe { Buffer::from_handle(buffer) }) else {
        return vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "not a buffer of this driver"
        );
    };
    // The buffer's own size must fit, not its rounded-up requirement.
    let req = vk::MemoryRequirements {
        size: b.desc.size,
        ..b.requirements
    };
    bind_checked(&b.binding, &req, "buffer", memory, offset)
}

/// [`vkBindBufferMemory`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkBindBufferMemory.html)
unsafe extern "system" fn bind_buffer_memory(
    _device: vk::Device,
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    offset: vk::DeviceSize,
) -> vk::Result {
    guard(
        "vkBindBufferMemory",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || bind(buffer, memory, offset),
    )
}

/// [`vkBindBufferMemory2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkBindBufferMemory2.html):
/// every binding is attempted; with `VkBindMemoryStatus` each result is reported, and the
/// command returns the first failure.
unsafe extern "system" fn bind_buffer_memory2(
    _device: vk::Device,
    count: u32,
    p_infos: *const vk::BindBufferMemoryInfo<'_>,
) -> vk::Result {
    guard(
        "vkBindBufferMemory2",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let mut first = vk::Result::SUCCESS;
            // SAFETY: `pBindInfos` holds `bindInfoCount` valid structures
            // (VUID-vkBindBufferMemory2-pBindInfos-parameter).
            for i in unsafe { slice(p_infos, count) } {
                let r = bind(i.buffer, i.memory, i.memory_offset);
                // SAFETY: the structure's valid chain.
                let status = unsafe {
                    // ash's `…KHR` spelling, present with any registry's tables.
                    find_in_chain::<vk::BindMemoryStatusKHR>(
                        i.p_next,
                        vk::StructureType::BIND_MEMORY_STATUS_KHR,
                    )
                };
                if let Some(s) = status.filter(|s| !s.p_result.is_null()) {
                    // SAFETY: `pResult` is valid for a write (VUID-VkBindMemoryStatus-pResult-parameter).
                    unsafe { s.p_result.write(r) };
                }
                if first == vk::Result::SUCCESS {
                    first = r;
                }
            }
            first
        },
    )
}

/// [`vkGetBufferDeviceAddress`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetBufferDeviceAddress.html):
/// the buffer's host address (0 for an unbound buffer, which valid usage excludes).
unsafe extern "system" fn get_buffer_device_address(
    _device: vk::Device,
    p_info: *const vk::BufferDeviceAddressInfo<'_>,
) -> vk::DeviceAddress {
    guard("vkGetBufferDeviceAddress", 0, || {
        // SAFETY: `pInfo` is a valid structure; its buffer handle is checked by type.
        let b = unsafe { p_info.as_ref() }.and_then(|i| unsafe { Buffer::from_handle(i.buffer) });
        b.and_then(Buffer::host_ptr).map_or(0, |p| p as u64)
    })
}

/// [`vkGetBufferOpaqueCaptureAddress`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetBufferOpaqueCaptureAddress.html):
/// no capture/replay addresses.
unsafe extern "system" fn get_buffer_opaque_capture_address(
    _device: vk::Device,
    _p_info: *const vk::BufferDeviceAddressInfo<'_>,
) -> u64 {
    0
}

pub(super) fn entries<D: Kit>() -> EntryTable {
    EntryTable {
        create_buffer: Some(create_buffer::<D>),
        destroy_buffer: Some(destroy_buffer),
        get_buffer_memory_requirements: Some(get_buffer_memory_requirements),
        get_buffer_memory_requirements2: Some(get_buffer_memory_requirements2),
        get_device_buffer_memory_requirements: Some(get_device_buffer_memory_requirements::<D>),
        bind_buffer_memory: Some(bind_buffer_memory),
        bind_buffer_memory2: Some(bind_buffer_memory2),
        get_buffer_device_address: Some(get_buffer_device_address),
        get_buffer_opaque_capture_address: Some(get_buffer_opaque_capture_address),
        ..EntryTable::EMPTY
    }
}
