//! `vkQueueBindSparse` in the queue core: each `VkBindSparseInfo` is a batch like a submit's —
//! held until its waits resolve (binary semaphores, or timeline values from a chained
//! `VkTimelineSemaphoreSubmitInfo`), then its semaphores and, after the last batch, the fence
//! signal, in submission order with the queue's other batches (a bind never overtakes an earlier
//! submit, nor a submit a bind).
//!
//! The binds themselves go to [`Kit::sparse_bind`] when the call is made. The kit's default
//! device has every sparse feature off, so a bind is invalid usage there and the default hook
//! only logs it; a vendor with sparse residency implements the hook (the memory is its).

use vkgen_generated::vk;

use super::batch::{Batch, Signal, Submission};
use super::submit::enqueue;
use crate::kit::api::Kit;
use crate::kit::objects::Queue;
use crate::kit::sync::{fence, semaphore};
use crate::util::{guard, slice};

/// The wait and signal values of `info`'s timeline semaphores (zeros for binary ones).
///
/// # Safety
/// `info` is a valid `VkBindSparseInfo` whose `pNext` chain is valid.
unsafe fn timeline_values(info: &vk::BindSparseInfo<'_>) -> (Vec<u64>, Vec<u64>) {
    let mut waits = vec![0; info.wait_semaphore_count as usize];
    let mut signals = vec![0; info.signal_semaphore_count as usize];
    // SAFETY: the chain is valid (this function's contract).
    for s in unsafe { crate::util::chain(info.p_next) } {
        if s.s_type == vk::StructureType::TIMELINE_SEMAPHORE_SUBMIT_INFO {
            // SAFETY: the sType says this is a `VkTimelineSemaphoreSubmitInfo`, whose arrays
            // hold the counts it states.
            let t =
                unsafe { &*std::ptr::from_ref(s).cast::<vk::TimelineSemaphoreSubmitInfo<'_>>() };
            // SAFETY: a `VkTimelineSemaphoreSubmitInfo`'s arrays hold the counts it states.
            let (w, g) = unsafe {
                (
                    slice(t.p_wait_semaphore_values, t.wait_semaphore_value_count),
                    slice(t.p_signal_semaphore_values, t.signal_semaphore_value_count),
                )
            };
            for (d, v) in waits.iter_mut().zip(w) {
                *d = *v;
            }
            for (d, v) in signals.iter_mut().zip(g) {
                *d = *v;
            }
        }
    }
    (waits, signals)
}

/// The held batches of a `vkQueueBindSparse`, as [`super::submissions`] makes a submit's.
///
/// # Safety
/// `infos` are valid structures (their arrays and handles likewise), `fence` null or live.
unsafe fn submissions(infos: &[vk::BindSparseInfo<'_>], fence: vk::Fence) -> Vec<Submission> {
    let mut out = Vec::with_capacity(infos.len().max(1));
    for info in infos {
        // SAFETY: the caller vouches for the structures, their chains and array counts.
        let ((wait_values, signal_values), waits, signals) = unsafe {
            (
                timeline_values(info),
                slice(info.p_wait_semaphores, info.wait_semaphore_count),
                slice(info.p_signal_semaphores, info.signal_semaphore_count),
            )
        };
        out.push(Submission {
            waits: waits
                .iter()
                .zip(&wait_values)
                // SAFETY: the info names live semaphores of this device.
                .filter_map(|(&w, &v)| unsafe { semaphore(w) }.map(|s| s.wait_point(v)))
                .collect(),
            batch: Batch::default(),
            signals: signals
                .iter()
                .zip(&signal_values)
                // SAFETY: the info names live semaphores of this device.
                .filter_map(|(&h, &v)| unsafe { semaphore(h) }.map(|s| (s, v)))
                .map(|(s, v)| Signal::Semaphore(s.core(), s.signal_point(v)))
                .collect(),
        });
    }
    // SAFETY: the caller vouches that `fence` is null or live.
    if let Some(f) = unsafe { fence_of(fence) } {
        if out.is_empty() {
            out.push(Submission {
                waits: Vec::new(),
                batch: Batch::default(),
                signals: Vec::new(),
            });
        }
        if let Some(last) = out.last_mut() {
            last.signals.push(Signal::Fence(f));
        }
    }
    out
}

/// The kit fence behind `h`, if any.
///
/// # Safety
/// `h` is null or a live fence of this driver.
unsafe fn fence_of(h: vk::Fence) -> Option<std::sync::Arc<crate::kit::sync::FenceCore>> {
    // SAFETY: the caller's contract.
    unsafe { fence(h) }.map(|f| f.core())
}

/// Whether `info` binds anything.
fn binds(info: &vk::BindSparseInfo<'_>) -> bool {
    info.buffer_bind_count + info.image_opaque_bind_count + info.image_bind_count != 0
}

/// [`vkQueueBindSparse`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkQueueBindSparse.html)
///
/// # Safety
/// The command's valid usage.
pub(super) unsafe extern "system" fn queue_bind_sparse<D: Kit>(
    queue: vk::Queue,
    count: u32,
    p_infos: *const vk::BindSparseInfo<'_>,
    fence: vk::Fence,
) -> vk::Result {
    guard("vkQueueBindSparse", vk::Result::ERROR_DEVICE_LOST, || {
        // SAFETY: the application passes a queue of this driver; the lookup checks the type.
        let Some(q) = (unsafe { Queue::<D>::from_handle(queue) }) else {
            return vkgen_abi::vk_error!(vk::Result::ERROR_DEVICE_LOST, "not a queue: {queue:?}");
        };
        if q.core.is_lost() {
            return vkgen_abi::vk_error!(
                vk::Result::ERROR_DEVICE_LOST,
                "bind on a queue whose earlier batch failed"
            );
        }
        // SAFETY: `pBindInfo` holds `bindInfoCount` valid structures (the command's valid usage).
        let infos = unsafe { slice(p_infos, count) };
        for info in infos.iter().filter(|i| binds(i)) {
            if let Err(e) = D::sparse_bind(q, info) {
                return e;
            }
        }
        // SAFETY: `infos` are the application's valid structures; `fence` is null or live.
        for sub in unsafe { submissions(infos, fence) } {
            if let Err(e) = enqueue(q, sub) {
                return e;
            }
        }
        vk::Result::SUCCESS
    })
}
