//! Fences and semaphores, the kit's sync component (what Mesa's `vk_sync`, `vk_sync_timeline`,
//! `vk_sync_binary` and `vk_sync_file` give a driver), under the queue core ([`super::queue`]).
//!
//! A driver opts in with [`Kit::SYNC_OBJECTS`]. The kit then answers every fence and semaphore
//! command, the queue commands (`vkQueueSubmit{,2}`, `vkQueueWaitIdle`, `vkDeviceWaitIdle`:
//! [`super::queue`]), `VK_KHR_external_fence_fd` and `VK_KHR_external_semaphore_fd` for
//! `VK_EXTERNAL_*_HANDLE_TYPE_SYNC_FD_BIT`, and the external fence/semaphore property queries.
//! The vendor signals nothing itself: its [`Kit::driver_submit`] completes a batch, and the kit
//! signals the batch's semaphores and fence.
//!
//! * **Objects** ([`object`]): a semaphore has a type (`VkSemaphoreTypeCreateInfo`) and a
//!   [`payload::CpuPayload`], a counter only ever raised. A timeline semaphore's value is the
//!   counter; a binary semaphore counts its signal operations — the `n`-th submitted raises it
//!   to `n`, and a wait submitted after it waits for `n` — so a binary semaphore signalled on
//!   one queue orders a wait on another even while the signal is still pending. A fence is
//!   "signalled", "lost" or a pending sync file.
//! * **Payloads** ([`payload`]): what a wait waits for implements [`payload::Payload`] — the
//!   CPU counter, a sync file ([`NativeFence`](crate::sync_fd::NativeFence)), or a vendor's
//!   hardware sync.
//! * **Host waits** (`vkWaitForFences`, `vkWaitSemaphores`, any/all, with their timeouts)
//!   sleep on one process-wide notifier that every CPU signal bumps; sync files are polled.
//!   A failed batch leaves its semaphores and fence lost: waits answer
//!   `VK_ERROR_DEVICE_LOST`.
//! * **Export** (`vkGet{Fence,Semaphore}FdKHR`) has copy transference: the caller gets its own fd
//!   (`-1` when already signalled, which the spec allows), and the object is reset (fence) or
//!   waited (semaphore), as the spec's side effects of a copy export say. An unsignalled fence,
//!   or a semaphore whose last signal is still pending, exports an eventfd that fires with it.
//! * **Import** (`vkImport{Fence,Semaphore}FdKHR`) is temporary (the only permanence `SYNC_FD`
//!   has): the fd becomes the payload until the next reset (fence) or wait (semaphore). `-1`
//!   means signalled. On success the driver owns the fd; on failure (another handle type, a
//!   closed fd, an fd that is neither a sync file nor an eventfd, an import without the
//!   `TEMPORARY` flag, a timeline semaphore) it does not, and the error is
//!   `VK_ERROR_INVALID_EXTERNAL_HANDLE`.
//! * **Native buffers**: [`signal_on_native_fence`] and [`super::queue::release_native_fence`]
//!   are the `NativeBuffers` sync hooks over these objects.

mod commands;
mod external;
pub mod object;
pub mod payload;

use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::api::Kit;
pub use object::{
    fence, semaphore, signal_on_native_fence, Fence, FenceCore, Semaphore, SemaphoreCore, WaitPoint,
};

/// The component as a table (see [`super::entries`]), empty unless the driver opted in.
pub fn entries<D: Kit>() -> EntryTable {
    if !D::SYNC_OBJECTS {
        return EntryTable::EMPTY;
    }
    EntryTable {
        create_fence: Some(commands::create_fence),
        destroy_fence: Some(commands::destroy::<Fence, vk::Fence>),
        reset_fences: Some(commands::reset_fences),
        get_fence_status: Some(commands::get_fence_status),
        wait_for_fences: Some(commands::wait_for_fences),
        create_semaphore: Some(commands::create_semaphore),
        destroy_semaphore: Some(commands::destroy::<Semaphore, vk::Semaphore>),
        get_semaphore_counter_value: Some(commands::get_semaphore_counter_value),
        signal_semaphore: Some(commands::signal_semaphore),
        wait_semaphores: Some(commands::wait_semaphores),
        get_fence_fd_khr: Some(external::get_fence_fd),
        import_fence_fd_khr: Some(external::import_fence_fd),
        get_semaphore_fd_khr: Some(external::get_semaphore_fd),
        import_semaphore_fd_khr: Some(external::import_semaphore_fd),
        get_physical_device_external_fence_properties: Some(external::external_fence_properties),
        get_physical_device_external_semaphore_properties: Some(
            external::external_semaphore_properties,
        ),
        ..EntryTable::EMPTY
    }
}
