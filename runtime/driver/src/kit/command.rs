//! Command pools and command buffers as kit objects (Mesa's `vk_command_pool` /
//! `vk_command_buffer`): the pool owns its buffers, so `vkDestroyCommandPool` frees the ones the
//! application did not; buffers are dispatchable (loader slot in word 0) and carry the
//! vendor's recording state in `data` ([`Kit::CommandBuffer`], made by
//! [`Kit::command_buffer_data`]). Recording itself (`vkBeginCommandBuffer`, `vkCmd*`) is the
//! vendor's.

// The `unsafe` entry points are Vulkan commands: their safety contract is the command's valid
// usage in the specification, which each one links to.
#![allow(clippy::missing_safety_doc)]

use std::ptr::NonNull;
use std::sync::Mutex;

use vkgen_generated::vk;

use super::objects::Device;
use super::Kit;
use crate::handles::{
    create_object, destroy_dispatchable, destroy_object, Dispatchable, HostAllocator, HostBox,
    Object, ObjectKind,
};
use crate::util::{guard, lock};

/// `VkCommandPool`.
pub struct CommandPool<D: Kit> {
    device: NonNull<Dispatchable<Device<D>>>,
    pub flags: vk::CommandPoolCreateFlags,
    pub queue_family_index: u32,
    allocator: HostAllocator,
    /// Live command buffers (handles), freed with the pool.
    buffers: Mutex<Vec<u64>>,
}

/// `VkCommandBuffer`.
pub struct CommandBuffer<D: Kit> {
    pool: u64,
    pub level: vk::CommandBufferLevel,
    pub data: D::CommandBuffer,
}

// SAFETY: the device outlives its pools (API lifetime rules) and is only read.
unsafe impl<D: Kit> Send for CommandPool<D> {}
// SAFETY: see `Send`; the buffer list is behind a mutex.
unsafe impl<D: Kit> Sync for CommandPool<D> {}

impl<D: Kit> ObjectKind for CommandPool<D> {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::COMMAND_POOL;
}

impl<D: Kit> ObjectKind for CommandBuffer<D> {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::COMMAND_BUFFER;
}

impl<D: Kit> CommandPool<D> {
    /// The pool behind `h`, if it is a live pool of this driver.
    ///
    /// # Safety
    /// A non-null `h` is a handle this driver returned that has not been destroyed.
    pub unsafe fn from_handle<'a>(h: vk::CommandPool) -> Option<&'a Object<Self>> {
        // SAFETY: a non-null `h` is a live pool handle of this driver (this function's contract),
        // and `Object::from_raw` checks the signature behind it.
        unsafe { Object::<Self>::from_raw(vk::Handle::as_raw(h)) }
    }

    pub fn device(&self) -> &Dispatchable<Device<D>> {
        // SAFETY: the device outlives its pools.
        unsafe { self.device.as_ref() }
    }
}

impl<D: Kit> CommandBuffer<D> {
    /// The command buffer behind `h`, if it is a live one of this driver.
    ///
    /// # Safety
    /// A non-null `h` is a handle this driver returned that has not been freed.
    pub unsafe fn from_handle<'a>(h: vk::CommandBuffer) -> Option<&'a Dispatchable<Self>> {
        // SAFETY: a non-null `h` is a live command-buffer handle of this driver (this function's
        // contract), and `Dispatchable::from_raw` checks the signature behind it.
        unsafe { Dispatchable::<Self>::from_raw(vk::Handle::as_raw(h)) }
    }

    /// The pool that allocated it.
    pub fn pool(&self) -> Option<&Object<CommandPool<D>>> {
        // SAFETY: a pool outlives its command buffers.
        unsafe { Object::<CommandPool<D>>::from_raw(self.pool) }
    }
}

/// [`vkCreateCommandPool`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateCommandPool.html)
pub unsafe extern "system" fn create_command_pool<D: Kit>(
    device: vk::Device,
    p_create_info: *const vk::CommandPoolCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_command_pool: *mut vk::CommandPool,
) -> vk::Result {
    guard(
        "vkCreateCommandPool",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `device` is a live device of this driver (vkCreateCommandPool's valid usage)
            // and `from_handle` checks its signature; `pCreateInfo` is null or valid for this call.
            let (Some(dev), Some(ci)) = (unsafe { Device::<D>::from_handle(device) }, unsafe {
                p_create_info.as_ref()
            }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkCreateCommandPool: {device:?} is no device of this driver, or no create info"
                );
            };
            let pool = CommandPool::<D> {
                device: NonNull::from(dev),
                flags: ci.flags,
                queue_family_index: ci.queue_family_index,
                // SAFETY: the application's callbacks or null; its command buffers use them too.
                allocator: unsafe { HostAllocator::from_ptr(p_allocator) },
                buffers: Mutex::new(Vec::new()),
            };
            // SAFETY: `p_allocator` is the application's callbacks or null, valid until the pool is
            // destroyed (vkCreateCommandPool's valid usage), as `create_object` needs.
            match unsafe { create_object(pool, p_allocator) } {
                Ok(h) => {
                    // SAFETY: `pCommandPool` is the application's output pointer, valid for a write
                    // (vkCreateCommandPool's valid usage).
                    unsafe { *p_command_pool = vk::Handle::from_raw(h) };
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    )
}

/// [`vkDestroyCommandPool`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyCommandPool.html):
/// frees the buffers still allocated from it.
pub unsafe extern "system" fn destroy_command_pool<D: Kit>(
    _device: vk::Device,
    command_pool: vk::CommandPool,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyCommandPool", (), || {
        // SAFETY: null or a live pool the application is done with, with its buffers.
        unsafe {
            if let Some(pool) = CommandPool::<D>::from_handle(command_pool) {
                for cb in std::mem::take(&mut *lock(&pool.buffers)) {
                    destroy_dispatchable::<CommandBuffer<D>>(cb);
                }
            }
            destroy_object::<CommandPool<D>>(vk::Handle::as_raw(command_pool));
        }
    })
}

/// [`vkAllocateCommandBuffers`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkAllocateCommandBuffers.html):
/// all or nothing; on failure every output is null.
pub unsafe extern "system" fn allocate_command_buffers<D: Kit>(
    _device: vk::Device,
    p_allocate_info: *const vk::CommandBufferAllocateInfo<'_>,
    p_command_buffers: *mut vk::CommandBuffer,
) -> vk::Result {
    guard(
        "vkAllocateCommandBuffers",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pAllocateInfo` is null or the application's structure, valid for this call;
            // null is refused below.
            let Some(info) = (unsafe { p_allocate_info.as_ref() }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkAllocateCommandBuffers without an allocate info"
                );
            };
            // SAFETY: `info.commandPool` is a live pool of this driver (vkAllocateCommandBuffers'
            // valid usage); `from_handle` checks its signature.
            let Some(pool) = (unsafe { CommandPool::<D>::from_handle(info.command_pool) }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkAllocateCommandBuffers: {:?} is no pool of this driver",
                    info.command_pool
                );
            };
            let n = info.command_buffer_count as usize;
            let mut made: Vec<u64> = Vec::with_capacity(n);
            let mut failure = None;
            for _ in 0..n {
                let made_one = D::command_buffer_data(pool.device(), info.level).and_then(|data| {
                    let cb = CommandBuffer::<D> {
                        pool: vk::Handle::as_raw(info.command_pool),
                        level: info.level,
                        data,
                    };
                    HostBox::try_new(
                        Dispatchable::new(cb),
                        pool.allocator,
                        vk::SystemAllocationScope::OBJECT,
                    )
                });
                match made_one {
                    Ok(b) => made.push(HostBox::into_raw(b).as_ptr() as u64),
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
            }
            if let Some(e) = failure {
                for h in made {
                    // SAFETY: made just above, never handed out.
                    unsafe { destroy_dispatchable::<CommandBuffer<D>>(h) };
                }
                for i in 0..n {
                    // SAFETY: `pCommandBuffers` holds `commandBufferCount` (= `n`) elements
                    // (vkAllocateCommandBuffers' valid usage) and `i < n`; on failure every one is
                    // nulled, as the spec asks.
                    unsafe { p_command_buffers.add(i).write(vk::CommandBuffer::null()) };
                }
                return e;
            }
            lock(&pool.buffers).extend_from_slice(&made);
            for (i, h) in made.into_iter().enumerate() {
                // SAFETY: `pCommandBuffers` holds `commandBufferCount` elements and `made` has at
                // most that many (one per allocated buffer), so index `i` is in bounds.
                unsafe { p_command_buffers.add(i).write(vk::Handle::from_raw(h)) };
            }
            vk::Result::SUCCESS
        },
    )
}

/// [`vkFreeCommandBuffers`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkFreeCommandBuffers.html):
/// null handles and handles of other pools are ignored.
pub unsafe extern "system" fn free_command_buffers<D: Kit>(
    _device: vk::Device,
    command_pool: vk::CommandPool,
    count: u32,
    p_command_buffers: *const vk::CommandBuffer,
) {
    guard("vkFreeCommandBuffers", (), || {
        // SAFETY: `command_pool` is a live pool of this driver (vkFreeCommandBuffers' valid usage);
        // `from_handle` checks its signature.
        let Some(pool) = (unsafe { CommandPool::<D>::from_handle(command_pool) }) else {
            return;
        };
        if p_command_buffers.is_null() {
            return;
        }
        // SAFETY: the array holds `count` handles.
        let handles = unsafe { std::slice::from_raw_parts(p_command_buffers, count as usize) };
        let mut list = lock(&pool.buffers);
        for &cb in handles {
            let raw = vk::Handle::as_raw(cb);
            if let Some(i) = list.iter().position(|&h| h == raw) {
                list.swap_remove(i);
                // SAFETY: a live buffer of this pool that the application is done with.
                unsafe { destroy_dispatchable::<CommandBuffer<D>>(raw) };
            }
        }
    })
}
