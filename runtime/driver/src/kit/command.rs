//! Command pools and command buffers as kit objects (Mesa's `vk_command_pool` /
//! `vk_command_buffer`): the pool owns its buffers, so `vkDestroyCommandPool` frees the ones the
//! application did not; buffers are dispatchable (loader slot in word 0) and carry the
//! vendor's state in `data` ([`Kit::CommandBuffer`], made by [`Kit::command_buffer_data`]),
//! pools theirs in [`CommandPool::data`] ([`Kit::CommandPool`]).
//!
//! The kit answers `vkBeginCommandBuffer`, `vkEndCommandBuffer`, `vkResetCommandBuffer`,
//! `vkResetCommandPool` and `vkTrimCommandPool` (vendor hooks: [`Kit::command_buffer_begin`],
//! [`Kit::command_buffer_reset`]). With [`Kit::RECORD_COMMANDS`], every `vkCmd*` the vendor does
//! not hook is recorded by the generated recorder (Mesa's `vk_cmd_queue`): deep copies of the
//! arguments in the buffer's own arena, replayed at submission through the vendor's
//! [`Execute`] engine with [`CommandBuffer::replay`].

// The `unsafe` entry points are Vulkan commands: their safety contract is the command's valid
// usage in the specification, which each one links to.
#![allow(clippy::missing_safety_doc)]

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Mutex;

use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

pub use vkgen_generated::recorder::{unimplemented, Cmd, Execute, Recording, COMMANDS};

use super::api::Kit;
use super::objects::Device;
use crate::handles::{
    create_object, destroy_dispatchable, destroy_object, Dispatchable, HostAllocator, HostBox,
};
use crate::util::{guard, lock};

pub(crate) mod applied;
pub(crate) mod object;
pub use applied::kit_applies;
pub use object::{CommandBuffer, CommandPool};

impl<D: Kit> CommandBuffer<D> {
    /// Runs the recorded commands on `engine` (at `driver_submit` time): one [`Execute`]
    /// method per command, in order; the secondaries of a `vkCmdExecuteCommands` are replayed
    /// inline unless the engine defines `cmd_execute_commands`.
    ///
    /// Event, timestamp and query-reset commands the engine does not run are applied by the
    /// kit in their place, in order (`applied`: with [`Kit::RESOURCE_OBJECTS`]).
    pub fn replay<E: Execute>(&self, engine: &mut E) {
        lock(&self.recording).replay_observed(
            engine,
            &mut |cmd, _| applied::apply::<D, E>(cmd),
            &mut |secondary, engine| {
                // SAFETY: the handle was recorded from a `vkCmdExecuteCommands` of this driver; a
                // secondary stays allocated while a primary that executes it is pending (valid
                // usage of vkFreeCommandBuffers), so it is live or garbage `from_handle` refuses.
                match unsafe { CommandBuffer::<D>::from_handle(secondary) } {
                    Some(cb) if cb.level == vk::CommandBufferLevel::SECONDARY => cb.replay(engine),
                    _ => log::warn!(
                        "recorder: vkCmdExecuteCommands names no secondary of this driver"
                    ),
                }
            },
        );
    }

    /// Back to the initial state: the recording emptied (its memory freed when `release`),
    /// then the vendor's [`Kit::command_buffer_reset`].
    pub fn reset(&self, release: bool) {
        {
            let mut r = lock(&self.recording);
            if release {
                r.release();
            } else {
                r.reset();
            }
        }
        *lock(&self.usage) = vk::CommandBufferUsageFlags::empty();
        *lock(&self.render_pass) = None;
        D::command_buffer_reset(self, release);
    }
}

/// Where the generated recording entry points find a kit command buffer's recording.
pub struct Recorder<D>(PhantomData<D>);

impl<D: Kit> vkgen_generated::recorder::Target for Recorder<D> {
    unsafe fn record(command_buffer: vk::CommandBuffer, f: impl FnOnce(&mut Recording)) {
        // SAFETY: the caller passes the handle of a `vkCmd*` call, which valid usage makes a
        // command buffer of this driver in the recording state (or garbage `from_handle`
        // refuses by its type signature).
        if let Some(cb) = unsafe { CommandBuffer::<D>::from_handle(command_buffer) } {
            f(&mut lock(&cb.recording));
        }
    }

    unsafe fn template_data_size(template: vk::DescriptorUpdateTemplate) -> usize {
        if !D::PIPELINE_OBJECTS {
            return 0;
        }
        // SAFETY: the application's template handle of the `vkCmd*` being recorded (valid
        // usage makes it live), or garbage `from_handle` refuses by its type signature.
        unsafe { super::descriptor::DescriptorUpdateTemplate::from_handle(template) }
            .map_or(0, |t| t.template.data_size())
    }
}

/// The component as a table (see [`super::entries`]): begin, end and the resets, and with
/// [`Kit::RECORD_COMMANDS`] the generated recording entry point of every `vkCmd*`.
pub fn entries<D: Kit>() -> EntryTable {
    let table = EntryTable {
        begin_command_buffer: Some(begin_command_buffer::<D>),
        end_command_buffer: Some(end_command_buffer::<D>),
        reset_command_buffer: Some(reset_command_buffer::<D>),
        reset_command_pool: Some(reset_command_pool::<D>),
        trim_command_pool: Some(trim_command_pool::<D>),
        ..EntryTable::EMPTY
    };
    if D::RECORD_COMMANDS {
        table.or(&vkgen_generated::recorder::entries::<Recorder<D>>())
    } else {
        table
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
            let data = match D::command_pool_data(dev, ci) {
                Ok(d) => d,
                Err(e) => return e,
            };
            let pool = CommandPool::<D> {
                device: NonNull::from(dev),
                flags: ci.flags,
                queue_family_index: ci.queue_family_index,
                // SAFETY: the application's callbacks or null; its command buffers use them too.
                allocator: unsafe { HostAllocator::from_ptr(p_allocator) },
                buffers: Mutex::new(Vec::new()),
                data,
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
                        recording: Mutex::new(Recording::new()),
                        usage: Mutex::new(vk::CommandBufferUsageFlags::empty()),
                        render_pass: Mutex::new(None),
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

/// [`vkBeginCommandBuffer`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkBeginCommandBuffer.html):
/// an implicit reset (keeping the memory), then the vendor's [`Kit::command_buffer_begin`].
pub unsafe extern "system" fn begin_command_buffer<D: Kit>(
    command_buffer: vk::CommandBuffer,
    p_begin_info: *const vk::CommandBufferBeginInfo<'_>,
) -> vk::Result {
    guard(
        "vkBeginCommandBuffer",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the application passes a command buffer of this driver (a wrongly typed
            // handle is refused by its signature) and a begin info or null.
            let (Some(cb), Some(info)) = (
                unsafe { CommandBuffer::<D>::from_handle(command_buffer) },
                unsafe { p_begin_info.as_ref() },
            ) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                    "vkBeginCommandBuffer: no command buffer of this driver or no begin info"
                );
            };
            if cb.pool().is_some_and(|p| {
                !p.flags
                    .contains(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER)
            }) && !cb.recording().is_empty()
            {
                log::warn!(
                    "vkBeginCommandBuffer: implicit reset of a buffer whose pool lacks \
                     VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT"
                );
            }
            cb.reset(false);
            *lock(&cb.usage) = info.flags;
            let begin =
                |info: &vk::CommandBufferBeginInfo<'_>| match D::command_buffer_begin(cb, info) {
                    Ok(()) => vk::Result::SUCCESS,
                    Err(e) => e,
                };
            if D::RENDER_PASS_OBJECTS {
                // SAFETY: the application's begin info, valid for this call (checked non-null).
                unsafe { super::render_pass::with_inheritance_rendering(cb.level, info, begin) }
            } else {
                begin(info)
            }
        },
    )
}

/// [`vkEndCommandBuffer`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEndCommandBuffer.html):
/// `VK_ERROR_OUT_OF_HOST_MEMORY` when a command could not be recorded, as the spec asks.
pub unsafe extern "system" fn end_command_buffer<D: Kit>(
    command_buffer: vk::CommandBuffer,
) -> vk::Result {
    guard(
        "vkEndCommandBuffer",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the application passes a command buffer of this driver, or garbage that
            // `from_handle` refuses by its type signature.
            let Some(cb) = (unsafe { CommandBuffer::<D>::from_handle(command_buffer) }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                    "vkEndCommandBuffer: no command buffer of this driver"
                );
            };
            let recorded = cb.recording().result();
            if recorded != vk::Result::SUCCESS {
                return vkgen_abi::vk_error!(
                    recorded,
                    "vkEndCommandBuffer: a command could not be recorded"
                );
            }
            match D::command_buffer_end(cb) {
                Ok(()) => vk::Result::SUCCESS,
                Err(e) => e,
            }
        },
    )
}

/// [`vkResetCommandBuffer`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkResetCommandBuffer.html)
pub unsafe extern "system" fn reset_command_buffer<D: Kit>(
    command_buffer: vk::CommandBuffer,
    flags: vk::CommandBufferResetFlags,
) -> vk::Result {
    guard(
        "vkResetCommandBuffer",
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
        || {
            // SAFETY: the application passes a command buffer of this driver, or garbage that
            // `from_handle` refuses by its type signature.
            let Some(cb) = (unsafe { CommandBuffer::<D>::from_handle(command_buffer) }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                    "vkResetCommandBuffer: no command buffer of this driver"
                );
            };
            if cb.pool().is_some_and(|p| {
                !p.flags
                    .contains(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER)
            }) {
                log::warn!(
                    "vkResetCommandBuffer: the pool lacks VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT"
                );
            }
            cb.reset(flags.contains(vk::CommandBufferResetFlags::RELEASE_RESOURCES));
            vk::Result::SUCCESS
        },
    )
}

/// [`vkResetCommandPool`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkResetCommandPool.html):
/// every buffer of the pool back to the initial state.
pub unsafe extern "system" fn reset_command_pool<D: Kit>(
    _device: vk::Device,
    command_pool: vk::CommandPool,
    flags: vk::CommandPoolResetFlags,
) -> vk::Result {
    guard(
        "vkResetCommandPool",
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
        || {
            // SAFETY: the application passes a pool of this driver, or garbage that
            // `from_handle` refuses by its type signature.
            let Some(pool) = (unsafe { CommandPool::<D>::from_handle(command_pool) }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                    "vkResetCommandPool: no command pool of this driver"
                );
            };
            let release = flags.contains(vk::CommandPoolResetFlags::RELEASE_RESOURCES);
            pool.for_each_buffer(|cb| cb.reset(release));
            vk::Result::SUCCESS
        },
    )
}

/// [`vkTrimCommandPool`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkTrimCommandPool.html):
/// each buffer's recording gives back the memory it does not use, then the vendor's
/// [`Kit::command_pool_trim`].
pub unsafe extern "system" fn trim_command_pool<D: Kit>(
    _device: vk::Device,
    command_pool: vk::CommandPool,
    _flags: vk::CommandPoolTrimFlags,
) {
    guard("vkTrimCommandPool", (), || {
        // SAFETY: the application passes a pool of this driver, or garbage that `from_handle`
        // refuses by its type signature.
        if let Some(pool) = unsafe { CommandPool::<D>::from_handle(command_pool) } {
            pool.for_each_buffer(|cb| cb.recording().trim());
            D::command_pool_trim(pool);
        }
    })
}
