//! Command pools and command buffers as data, bounded on [`KitTypes`]: the vendor's hooks
//! ([`Kit::command_buffer_begin`](crate::kit::Kit::command_buffer_begin), …) take them, so they
//! do not depend on the recorder and the commands that call those hooks (`command.rs`).

use std::ptr::NonNull;
use std::sync::{Mutex, MutexGuard};

use vkgen_generated::recorder::Recording;
use vkgen_generated::vk;

use crate::handles::{Dispatchable, HostAllocator, Object, ObjectKind};
use crate::kit::objects::Device;
use crate::kit::render_pass::state::ActivePass;
use crate::kit::types::KitTypes;
use crate::util::lock;

/// `VkCommandPool`.
pub struct CommandPool<D: KitTypes> {
    pub(super) device: NonNull<Dispatchable<Device<D>>>,
    pub flags: vk::CommandPoolCreateFlags,
    pub queue_family_index: u32,
    pub(super) allocator: HostAllocator,
    /// Live command buffers (handles), freed with the pool.
    pub(super) buffers: Mutex<Vec<u64>>,
    /// The vendor's pool state ([`Kit::command_pool_data`](crate::kit::Kit::command_pool_data)).
    pub data: D::CommandPool,
}

/// `VkCommandBuffer`.
pub struct CommandBuffer<D: KitTypes> {
    pub(super) pool: u64,
    pub level: vk::CommandBufferLevel,
    pub data: D::CommandBuffer,
    /// The recorded commands ([`Kit::RECORD_COMMANDS`](crate::kit::Kit::RECORD_COMMANDS)); empty
    /// otherwise.
    pub(super) recording: Mutex<Recording>,
    /// `VkCommandBufferBeginInfo::flags` of the current recording.
    pub(super) usage: Mutex<vk::CommandBufferUsageFlags>,
    /// The render pass instance being recorded
    /// ([`Kit::RENDER_PASS_OBJECTS`](crate::kit::Kit::RENDER_PASS_OBJECTS)).
    pub(crate) render_pass: Mutex<Option<ActivePass>>,
}

// SAFETY: the device outlives its pools (API lifetime rules) and is only read.
unsafe impl<D: KitTypes> Send for CommandPool<D> {}
// SAFETY: see `Send`; the buffer list is behind a mutex.
unsafe impl<D: KitTypes> Sync for CommandPool<D> {}

impl<D: KitTypes> ObjectKind for CommandPool<D> {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::COMMAND_POOL;
}

impl<D: KitTypes> ObjectKind for CommandBuffer<D> {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::COMMAND_BUFFER;
}

impl<D: KitTypes> CommandPool<D> {
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
        // SAFETY: `device` was the live device that created this pool, and a device outlives
        // its pools (the application destroys them first).
        unsafe { self.device.as_ref() }
    }

    /// Runs `f` on every command buffer allocated from the pool and not freed, in allocation
    /// order (the pool's buffer list is locked meanwhile: `f` must not allocate or free).
    pub fn for_each_buffer(&self, mut f: impl FnMut(&Dispatchable<CommandBuffer<D>>)) {
        for &h in lock(&self.buffers).iter() {
            // SAFETY: the list holds exactly the live buffers of this pool (allocation adds,
            // freeing removes before destroying), and the lock keeps them so during `f`.
            if let Some(cb) = unsafe { Dispatchable::<CommandBuffer<D>>::from_raw(h) } {
                f(cb);
            }
        }
    }
}

impl<D: KitTypes> CommandBuffer<D> {
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
        // SAFETY: `pool` is the handle of the live pool that allocated this buffer, and
        // destroying a pool destroys its buffers first.
        unsafe { Object::<CommandPool<D>>::from_raw(self.pool) }
    }

    /// The recorded commands, locked.
    pub fn recording(&self) -> MutexGuard<'_, Recording> {
        lock(&self.recording)
    }

    /// `VkCommandBufferBeginInfo::flags` of the current recording.
    pub fn usage(&self) -> vk::CommandBufferUsageFlags {
        *lock(&self.usage)
    }
}
