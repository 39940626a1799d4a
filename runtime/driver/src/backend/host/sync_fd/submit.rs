//! Submissions on a device that emulates `SYNC_FD`: each batch's semaphores rewritten onto
//! the emulation's timelines ([`rewrite_batch`]) before the host's `vkQueueSubmit{,2}` sees
//! them, and the fences a batch signals remembered for their export.

use super::super::registry::{device_of_queue, lock, HostDevice};
use super::rewrite_batch;
use super::state::SyncEmulation;
use crate::util::{find_in_chain, ChainEdit};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use vkgen_generated::vk;

/// Devices with the emulation on: while there are none, submissions skip the lookup.
static EMULATING: AtomicUsize = AtomicUsize::new(0);
/// Each slot's host `vkQueueSubmit` / `vkQueueSubmit2` (an ICD's entry points dispatch on the
/// queue, so any device of that ICD serves every queue of it).
type HostSubmit = (vk::PFN_vkQueueSubmit, Option<vk::PFN_vkQueueSubmit2>);
static HOST_SUBMIT: [OnceLock<HostSubmit>; crate::backend::host::icd::ADAPTER_SLOTS + 1] =
    [const { OnceLock::new() }; crate::backend::host::icd::ADAPTER_SLOTS + 1];

/// Remembers the host's submit functions (every device creation).
pub(in crate::backend::host) fn note_host_submit(dev: &HostDevice) {
    let submit2 = {
        let f = dev
            .proc_addr(c"vkQueueSubmit2")
            .or_else(|| dev.proc_addr(c"vkQueueSubmit2KHR"));
        // SAFETY: the host's vkQueueSubmit2, which has this type.
        f.map(|f| unsafe {
            std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkQueueSubmit2>(f)
        })
    };
    let _ = HOST_SUBMIT[dev.instance.slot].set((dev.fns.fp_v1_0().queue_submit, submit2));
    if dev.sync.is_some() {
        EMULATING.fetch_add(1, Ordering::AcqRel);
    }
}

/// Undoes [`note_host_submit`]'s count.
pub(in crate::backend::host) fn forget_device(dev: &HostDevice) {
    if dev.sync.is_some() {
        EMULATING.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The device to rewrite for, if `queue`'s emulates.
fn emulating_device(queue: vk::Queue) -> Option<Arc<HostDevice>> {
    if EMULATING.load(Ordering::Acquire) == 0 {
        return None;
    }
    device_of_queue(queue).filter(|d| d.sync.is_some())
}

/// Remembers that a batch signals `fence` (see [`SyncEmulation::pending_fences`]).
fn note_pending_fence(sync: &SyncEmulation, fence: vk::Fence) {
    if fence != vk::Fence::null() {
        lock(&sync.pending_fences).insert(vk::Handle::as_raw(fence));
    }
}

/// `vkQueueSubmit`: see the module docs.
///
/// # Safety
/// The application's valid arguments.
pub(in crate::backend::host) unsafe fn queue_submit(
    slot: usize,
    queue: vk::Queue,
    count: u32,
    p_submits: *const vk::SubmitInfo<'_>,
    fence: vk::Fence,
) -> vk::Result {
    let Some(dev) = emulating_device(queue) else {
        return match HOST_SUBMIT[slot].get() {
            // SAFETY: the host's vkQueueSubmit of this slot's ICD, which dispatches on
            // `queue`; no rewrite is needed, so the application's arguments go unchanged.
            Some((f, _)) => unsafe { f(queue, count, p_submits, fence) },
            None => vkgen_abi::vk_error!(
                vk::Result::ERROR_DEVICE_LOST,
                "vkQueueSubmit before any host device of slot {slot} exists"
            ),
        };
    };
    let Some(sync) = dev.sync.as_ref() else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_DEVICE_LOST,
            "vkQueueSubmit: the device stopped emulating SYNC_FD"
        );
    };
    note_pending_fence(sync, fence);
    // SAFETY: `pSubmits` holds `count` valid batches.
    let batches = unsafe { crate::backend::host::registry::slice(p_submits, count) };
    let built: Vec<Batch> = batches
        .iter()
        // SAFETY: each of the application's batches, with arrays of their stated lengths and
        // a chain valid for this call.
        .map(|b| unsafe { rewrite_submit_info(sync, b) })
        .collect();
    let timelines: Vec<vk::TimelineSemaphoreSubmitInfo<'_>> = built
        .iter()
        .map(|b| {
            vk::TimelineSemaphoreSubmitInfo {
                p_next: b.chain.head(),
                ..Default::default()
            }
            .wait_semaphore_values(&b.wait_values)
            .signal_semaphore_values(&b.signal_values)
        })
        .collect();
    let submits: Vec<vk::SubmitInfo<'_>> = batches
        .iter()
        .zip(&built)
        .zip(&timelines)
        .map(|((orig, b), tl)| {
            let mut s = *orig;
            s.p_next = ptr::from_ref(tl).cast();
            s.wait_semaphore_count = b.waits.len() as u32;
            s.p_wait_semaphores = b.waits.as_ptr();
            s.p_wait_dst_stage_mask = b.stages.as_ptr();
            s.signal_semaphore_count = b.signals.len() as u32;
            s.p_signal_semaphores = b.signals.as_ptr();
            s
        })
        .collect();
    // SAFETY: the host's vkQueueSubmit with the rewritten batches (storage outlives the call).
    unsafe {
        (dev.fns.fp_v1_0().queue_submit)(queue, submits.len() as u32, submits.as_ptr(), fence)
    }
}

/// One `VkSubmitInfo`'s semaphores after [`rewrite_batch`], with the arrays the host's
/// batch points at.
struct Batch {
    waits: Vec<vk::Semaphore>,
    wait_values: Vec<u64>,
    stages: Vec<vk::PipelineStageFlags>,
    signals: Vec<vk::Semaphore>,
    signal_values: Vec<u64>,
    /// The batch's chain without its `VkTimelineSemaphoreSubmitInfo` (the host's gets a new
    /// one with the rewritten values).
    chain: ChainEdit,
}

/// The semaphores of one application batch, rewritten for the emulation.
///
/// # Safety
/// `b` is a valid `VkSubmitInfo`: arrays of the lengths it states and a valid chain, alive
/// while the returned batch is used.
unsafe fn rewrite_submit_info(sync: &SyncEmulation, b: &vk::SubmitInfo<'_>) -> Batch {
    let stage2 =
        |s: vk::PipelineStageFlags| vk::PipelineStageFlags2::from_raw(u64::from(s.as_raw()));
    let stage1 = |s: vk::PipelineStageFlags2| vk::PipelineStageFlags::from_raw(s.as_raw() as u32);
    // SAFETY: `b`'s semaphore and stage arrays are as long as its counts say, and its chain is
    // valid (the caller's promise).
    let (wsems, wstages, ssems, tl) = unsafe {
        (
            crate::backend::host::registry::slice(b.p_wait_semaphores, b.wait_semaphore_count),
            crate::backend::host::registry::slice(b.p_wait_dst_stage_mask, b.wait_semaphore_count),
            crate::backend::host::registry::slice(b.p_signal_semaphores, b.signal_semaphore_count),
            find_in_chain::<vk::TimelineSemaphoreSubmitInfo<'_>>(
                b.p_next,
                vk::StructureType::TIMELINE_SEMAPHORE_SUBMIT_INFO,
            ),
        )
    };
    // SAFETY: a `VkTimelineSemaphoreSubmitInfo` of the application's valid chain, whose value
    // arrays are as long as its counts say.
    let (wvals, svals) = tl.map_or((&[][..], &[][..]), |t| unsafe {
        (
            crate::backend::host::registry::slice(
                t.p_wait_semaphore_values,
                t.wait_semaphore_value_count,
            ),
            crate::backend::host::registry::slice(
                t.p_signal_semaphore_values,
                t.signal_semaphore_value_count,
            ),
        )
    });
    let mut waits: Vec<_> = wsems
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            (
                s,
                wvals.get(i).copied().unwrap_or(0),
                stage2(wstages.get(i).copied().unwrap_or_default()),
            )
        })
        .collect();
    let mut signals: Vec<_> = ssems
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            (
                s,
                svals.get(i).copied().unwrap_or(0),
                vk::PipelineStageFlags2::ALL_COMMANDS,
            )
        })
        .collect();
    rewrite_batch(sync, &mut waits, &mut signals);
    // SAFETY: `b.p_next` is the application's chain, valid while the batch is used (the
    // caller's promise).
    let chain = unsafe {
        ChainEdit::without(
            b.p_next,
            &[vk::StructureType::TIMELINE_SEMAPHORE_SUBMIT_INFO],
        )
    };
    Batch {
        waits: waits.iter().map(|w| w.0).collect(),
        wait_values: waits.iter().map(|w| w.1).collect(),
        stages: waits.iter().map(|w| stage1(w.2)).collect(),
        signals: signals.iter().map(|s| s.0).collect(),
        signal_values: signals.iter().map(|s| s.1).collect(),
        chain,
    }
}

/// `vkQueueSubmit2`: see the module docs.
///
/// # Safety
/// The application's valid arguments.
pub(in crate::backend::host) unsafe fn queue_submit2(
    slot: usize,
    queue: vk::Queue,
    count: u32,
    p_submits: *const vk::SubmitInfo2<'_>,
    fence: vk::Fence,
) -> vk::Result {
    let Some(dev) = emulating_device(queue) else {
        return match HOST_SUBMIT[slot].get() {
            // SAFETY: the host's vkQueueSubmit2 of this slot's ICD, which dispatches on
            // `queue`; no rewrite is needed, so the application's arguments go unchanged.
            Some((_, Some(f))) => unsafe { f(queue, count, p_submits, fence) },
            _ => vkgen_abi::vk_error!(
                vk::Result::ERROR_DEVICE_LOST,
                "vkQueueSubmit2: the host of slot {slot} has no vkQueueSubmit2"
            ),
        };
    };
    let (Some(sync), Some((_, Some(host)))) = (dev.sync.as_ref(), HOST_SUBMIT[slot].get()) else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_DEVICE_LOST,
            "vkQueueSubmit2: no SYNC_FD emulation or no host vkQueueSubmit2 on this device"
        );
    };
    note_pending_fence(sync, fence);
    // SAFETY: `pSubmits` holds `count` valid batches.
    let batches = unsafe { crate::backend::host::registry::slice(p_submits, count) };
    let mut lists = Vec::with_capacity(batches.len());
    for b in batches {
        // SAFETY: arrays of the stated lengths.
        let (w, sg) = unsafe {
            (
                crate::backend::host::registry::slice(
                    b.p_wait_semaphore_infos,
                    b.wait_semaphore_info_count,
                ),
                crate::backend::host::registry::slice(
                    b.p_signal_semaphore_infos,
                    b.signal_semaphore_info_count,
                ),
            )
        };
        let mut waits: Vec<_> = w
            .iter()
            .map(|i| (i.semaphore, i.value, i.stage_mask))
            .collect();
        let mut signals: Vec<_> = sg
            .iter()
            .map(|i| (i.semaphore, i.value, i.stage_mask))
            .collect();
        rewrite_batch(sync, &mut waits, &mut signals);
        let to_infos = |v: Vec<(vk::Semaphore, u64, vk::PipelineStageFlags2)>| -> Vec<vk::SemaphoreSubmitInfo<'static>> {
            v.into_iter()
                .map(|(s, value, stage)| vk::SemaphoreSubmitInfo::default().semaphore(s).value(value).stage_mask(stage))
                .collect()
        };
        lists.push((to_infos(waits), to_infos(signals)));
    }
    let submits: Vec<vk::SubmitInfo2<'_>> = batches
        .iter()
        .zip(&lists)
        .map(|(orig, (w, s))| {
            let mut b = *orig;
            b.wait_semaphore_info_count = w.len() as u32;
            b.p_wait_semaphore_infos = w.as_ptr();
            b.signal_semaphore_info_count = s.len() as u32;
            b.p_signal_semaphore_infos = s.as_ptr();
            b
        })
        .collect();
    // SAFETY: the host's vkQueueSubmit2 with the rewritten batches (storage outlives the call).
    unsafe { host(queue, submits.len() as u32, submits.as_ptr(), fence) }
}
