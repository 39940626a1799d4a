//! The queue core (Mesa's `vk_queue`): `vkQueueSubmit2` (and `vkQueueSubmit`, routed to it)
//! turns each batch into a submission the kit holds until every wait is satisfied — timeline
//! values reached, binary semaphores' signal operations submitted *and completed*, sync files
//! fired — and only then hands it to the vendor's [`Kit::driver_submit`]. When the vendor's
//! [`Completion`] says the work is done, the kit signals the batch's semaphores and fence.
//!
//! * **Immediate**: a batch whose waits are all satisfied on a queue with nothing held back
//!   goes to `driver_submit` on the submitting thread (Mesa's `VK_QUEUE_SUBMIT_MODE_IMMEDIATE`).
//! * **Threaded**: otherwise it is queued, and the queue's submit thread (started on the first
//!   such batch, Mesa's deferred/threaded mode) hands the batches over in submission order as
//!   their waits resolve: a batch never overtakes an earlier one of its queue.
//! * **Completion**: the vendor gets a [`Completion`] with each batch; the batch is complete
//!   when the vendor drops it (a CPU vendor runs the work and returns, dropping it), or when a
//!   hardware payload handed to [`Completion::after`] is reached. [`Completion::fail`], an
//!   error from `driver_submit`, or a panic mark the batch failed: its semaphores and fence
//!   become lost, the queue is lost, and waits answer `VK_ERROR_DEVICE_LOST`.
//! * `vkQueueWaitIdle` waits until every batch submitted to the queue completed,
//!   `vkDeviceWaitIdle` does so for every queue; `vkDestroyDevice` stops the submit threads,
//!   dropping the batches still held (their objects are never signalled).
//! * [`Worker`] is a queue's worker thread for a CPU vendor: `driver_submit` hands it the
//!   batch (`queue.data.replay(batch, completion, |cb| cb.replay(&mut Engine))`) and returns;
//!   batches run in order on it, each complete when its work returns.
//! * `vkQueueBindSparse` (`sparse`) makes batches of the same kind: no command buffers, the
//!   binds handed to [`Kit::sparse_bind`].

use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::api::Kit;
use super::objects::{Device, Queue};
use super::sync::object::{fence, semaphore, WaitPoint};
use super::sync::payload::wait_until;
use crate::sync_fd::{FenceSignaller, NativeFence};
use crate::util::{fence_error_result, guard, lock, slice};

pub(crate) mod batch;
mod sparse;
mod submit;
pub mod worker;

pub use batch::{release_after_waits, Batch, Completion, QueueCore};
use batch::{Signal, Submission};
use submit::enqueue;
pub use worker::Worker;

/// The submissions of `vkQueueSubmit2`'s batches: wait points and signal points are taken now,
/// in batch order (a binary wait after a signal in the same call waits for that signal).
///
/// # Safety
/// `submits` are valid structures (arrays and handles inside likewise), `fence` null or live.
unsafe fn submissions(submits: &[vk::SubmitInfo2<'_>], fence: vk::Fence) -> Vec<Submission> {
    let mut out = Vec::with_capacity(submits.len().max(1));
    for s in submits {
        // SAFETY: the caller vouches for the structures and the counts of their arrays.
        let (waits, cbs, signals) = unsafe {
            (
                slice(s.p_wait_semaphore_infos, s.wait_semaphore_info_count),
                slice(s.p_command_buffer_infos, s.command_buffer_info_count),
                slice(s.p_signal_semaphore_infos, s.signal_semaphore_info_count),
            )
        };
        out.push(Submission {
            waits: waits
                .iter()
                // SAFETY: the infos name live semaphores of this device.
                .filter_map(|w| unsafe { semaphore(w.semaphore) }.map(|s| s.wait_point(w.value)))
                .collect(),
            batch: Batch {
                command_buffers: cbs.iter().map(|c| c.command_buffer).collect(),
                device_masks: cbs.iter().map(|c| c.device_mask).collect(),
                flags: s.flags,
            },
            signals: signals
                .iter()
                // SAFETY: the infos name live semaphores of this device.
                .filter_map(|i| unsafe { semaphore(i.semaphore) }.map(|s| (s, i.value)))
                .map(|(s, v)| Signal::Semaphore(s.core(), s.signal_point(v)))
                .collect(),
        });
    }
    // SAFETY: the caller vouches that `fence` is null or live.
    if let Some(f) = unsafe { self::fence(fence) } {
        if out.is_empty() {
            // No batch: the fence signals once the work submitted before it completes.
            out.push(Submission {
                waits: Vec::new(),
                batch: Batch::default(),
                signals: Vec::new(),
            });
        }
        if let Some(last) = out.last_mut() {
            last.signals.push(Signal::Fence(f.core()));
        }
    }
    out
}

/// [`vkQueueSubmit2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkQueueSubmit2.html)
///
/// # Safety
/// The command's valid usage.
pub unsafe extern "system" fn queue_submit2<D: Kit>(
    queue: vk::Queue,
    count: u32,
    p_submits: *const vk::SubmitInfo2<'_>,
    fence: vk::Fence,
) -> vk::Result {
    guard("vkQueueSubmit2", vk::Result::ERROR_DEVICE_LOST, || {
        // SAFETY: the application passes a queue of this driver; the lookup checks the type.
        let Some(q) = (unsafe { Queue::<D>::from_handle(queue) }) else {
            return vkgen_abi::vk_error!(vk::Result::ERROR_DEVICE_LOST, "not a queue: {queue:?}");
        };
        if q.core.is_lost() {
            return vkgen_abi::vk_error!(
                vk::Result::ERROR_DEVICE_LOST,
                "submit to a queue whose earlier batch failed"
            );
        }
        // SAFETY: `pSubmits` holds `submitCount` valid structures, `fence` is null or live
        // (the command's valid usage).
        let subs = unsafe { submissions(slice(p_submits, count), fence) };
        for sub in subs {
            if let Err(e) = enqueue(q, sub) {
                return e;
            }
        }
        if q.core.is_lost() {
            return vkgen_abi::vk_error!(
                vk::Result::ERROR_DEVICE_LOST,
                "the vendor failed a batch of this submission"
            );
        }
        vk::Result::SUCCESS
    })
}

/// Blocks until every batch submitted to `queue` completed.
fn wait_idle<D: Kit>(queue: &Queue<D>) -> vk::Result {
    wait_until(None, |_| {
        let st = lock(&queue.core.shared.state);
        if st.lost {
            return Err(vkgen_abi::vk_error!(
                vk::Result::ERROR_DEVICE_LOST,
                "waiting for a queue whose batch failed"
            ));
        }
        Ok(st.completed >= st.submitted)
    })
}

unsafe extern "system" fn queue_wait_idle<D: Kit>(queue: vk::Queue) -> vk::Result {
    guard("vkQueueWaitIdle", vk::Result::ERROR_DEVICE_LOST, || {
        // SAFETY: the application passes a queue of this driver; the lookup checks the type.
        match unsafe { Queue::<D>::from_handle(queue) } {
            Some(q) => wait_idle(q),
            None => vkgen_abi::vk_error!(vk::Result::ERROR_DEVICE_LOST, "not a queue: {queue:?}"),
        }
    })
}

unsafe extern "system" fn device_wait_idle<D: Kit>(device: vk::Device) -> vk::Result {
    guard("vkDeviceWaitIdle", vk::Result::ERROR_DEVICE_LOST, || {
        // SAFETY: the application passes a device of this driver; the lookup checks the type.
        let Some(d) = (unsafe { Device::<D>::from_handle(device) }) else {
            return vkgen_abi::vk_error!(vk::Result::ERROR_DEVICE_LOST, "not a device: {device:?}");
        };
        for q in d.queues() {
            let r = wait_idle(q);
            if r != vk::Result::SUCCESS {
                return r;
            }
        }
        vk::Result::SUCCESS
    })
}

/// `NativeBuffers::release_native_fence` over the queue core: a sync file that fires once the
/// batch waiting on `wait` completes — `-1` when the queue is idle and the waits are satisfied
/// already.
pub fn release_native_fence<D: Kit>(
    queue: vk::Queue,
    wait: &[vk::Semaphore],
) -> Result<NativeFence, vk::Result> {
    // SAFETY: `vkQueueSignalReleaseImageANDROID` passes a queue of this driver.
    let Some(q) = (unsafe { Queue::<D>::from_handle(queue) }) else {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_DEVICE_LOST,
            "not a queue: {queue:?}"
        ));
    };
    let waits: Vec<WaitPoint> = wait
        .iter()
        // SAFETY: the HAL passes live semaphores of this device.
        .filter_map(|&s| unsafe { semaphore(s) }.map(|s| s.wait_point(0)))
        .collect();
    let mut sub = Submission {
        waits,
        batch: Batch::default(),
        signals: Vec::new(),
    };
    {
        let st = lock(&q.core.shared.state);
        let idle = st.queued.is_empty() && !st.busy && st.completed >= st.submitted;
        if idle && sub.ready(&mut false)? {
            return Ok(NativeFence::signalled());
        }
    }
    let signaller = FenceSignaller::new().map_err(|e| fence_error_result(&e))?;
    let fd = signaller.fence().map_err(|e| fence_error_result(&e))?;
    sub.signals.push(Signal::Native(signaller));
    enqueue(q, sub)?;
    Ok(fd)
}

/// Whether the queue core serves `D`: it opted into the sync component, or it is in bring-up
/// on the null driver's objects, whose fences and semaphores are the sync component's (and
/// the null driver's queue commands cannot be lent: they would read `D`'s queues as the null
/// driver's).
pub fn serves<D: Kit>() -> bool {
    D::SYNC_OBJECTS || D::NULL_OBJECTS
}

/// The queue core as a table (see [`super::entries`]), when it [`serves`] the driver; a
/// driver with a `vkQueueSubmit2` hook of its own keeps its own queue (hooks come first).
pub fn entries<D: Kit>() -> EntryTable {
    if !serves::<D>() {
        return EntryTable::EMPTY;
    }
    EntryTable {
        queue_submit2: Some(queue_submit2::<D>),
        queue_bind_sparse: Some(sparse::queue_bind_sparse::<D>),
        queue_wait_idle: Some(queue_wait_idle::<D>),
        device_wait_idle: Some(device_wait_idle::<D>),
        ..EntryTable::EMPTY
    }
}
