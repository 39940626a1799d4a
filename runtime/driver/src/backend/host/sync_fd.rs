//! `SYNC_FD` fences and semaphores (`VK_KHR_external_fence_fd`, `VK_KHR_external_semaphore_fd`)
//! emulated where the host ICD has neither (lavapipe 22.3), or lists them but its `SYNC_FD`
//! fails a probe at device creation (NVIDIA without kernel sync-file support:
//! [`host_sync_fd_works`]). Where the host's works, the commands go to the host unchanged; on an
//! emulating device, other handle types (`OPAQUE_FD`) still go to the host.
//!
//! A `SYNC_FD` here is what the runtime's native fences are: a pollable fd that becomes readable
//! when the work is done (an eventfd the driver signals; `-1` = already signalled). The
//! transference is copy, as the spec says for this handle type:
//!
//! * **Submissions** on an emulating device go through the driver (elsewhere, and on hosts with
//!   the extensions, they go straight to the host). A batch that signals a semaphore created
//!   exportable also signals the device's *tracker*, a host timeline semaphore, at the next
//!   value; a wait on a semaphore with an imported fd becomes a wait on that import's *gate*.
//!   No batch ever waits on a binary semaphore whose signal the host holds back (Mesa's queues
//!   block such a submission until the signal is really submitted).
//! * **Semaphore export** (`vkGetSemaphoreFdKHR`): the device's waiter thread
//!   ([`super::sync_waiter`]) signals an eventfd once the tracker reaches the value of the
//!   semaphore's last signal. Nothing blocks. The spec's side effect (the
//!   export consumes the signal, as a wait would) is applied to the host semaphore by the next
//!   batch that signals it, which first waits on it.
//! * **Import** (`vkImportSemaphoreFdKHR` / `vkImportFenceFdKHR`, temporary as `SYNC_FD`
//!   requires): a *gate*, a host timeline semaphore from a per-device pool, stands for the fd;
//!   the device's one waiter thread polls the fd (with every other pending one), closes it and
//!   signals the gate's next value from the host (`vkSignalSemaphore`). `-1` is already
//!   signalled: the wait becomes one on the tracker at 0, which never blocks (issue 25: it used
//!   to be dropped, leaving a wait on the semaphore's own payload that no one signals). Only
//!   sync files and eventfds are taken (`VK_ERROR_INVALID_EXTERNAL_HANDLE` otherwise). The next batch waiting on the semaphore waits
//!   on the gate instead (the temporary payload is consumed, the semaphore's own is untouched).
//!   A fence import is a batch on the internal queue that waits on the gate and signals the
//!   fence. The gate returns to the pool at its new value, so gates live as long as the device.
//!   The host device is created with `timelineSemaphore` on for this.
//! * **Fence export** (`vkGetFenceFdKHR`) waits for the fence on the calling thread (only where
//!   a batch signals it: a fence neither signalled nor submitted is refused with
//!   `VK_ERROR_INVALID_EXTERNAL_HANDLE` instead of being waited for forever), resets it
//!   (the spec's side effect) and returns `-1`: the fence's pending signal cannot be detached
//!   from a host fence, and a fence left pending after export would break the application's
//!   next submission with it.
//! * The external-property queries answer `SYNC_FD` importable and exportable for fences and
//!   binary semaphores; `VkExport{Fence,Semaphore}CreateInfo` are removed before the host sees
//!   them. Timeline semaphores and other handle types are `VK_ERROR_INVALID_EXTERNAL_HANDLE`.
//!
//! The internal queue is the device's first queue: the application must not submit to it from
//! another thread during these calls (the host driver's native-buffer signalling has the same
//! rule).

use std::collections::{HashMap, HashSet};
use std::ffi::CStr;

use std::ptr;
use std::sync::{Arc, Mutex};

use vkgen_generated::vk;

use super::registry::{has_extension, lock, AnbDevice, HostDevice};
use super::sync_waiter::{HostSide, Job, Waiter};
use crate::sync_fd::{FenceError, FenceSignaller, NativeFence};
use crate::util::{find_in_chain, ChainEdit};

pub(super) mod state;
pub(super) mod submit;
use state::SyncEmulation;

pub(super) const SEMAPHORE_FD_NAME: &CStr = c"VK_KHR_external_semaphore_fd";
pub(super) const FENCE_FD_NAME: &CStr = c"VK_KHR_external_fence_fd";

/// The fd extensions the host lacks among those `names` enables: emulated.
pub(super) fn emulated(available: &[vk::ExtensionProperties], names: &[&CStr]) -> bool {
    [SEMAPHORE_FD_NAME, FENCE_FD_NAME]
        .iter()
        .any(|n| names.contains(n) && !has_extension(available, n))
}

/// The extensions this module adds to the host's list.
pub(super) fn added_extensions(host: &[vk::ExtensionProperties]) -> Vec<vk::ExtensionProperties> {
    [(SEMAPHORE_FD_NAME, 1), (FENCE_FD_NAME, 1)]
        .iter()
        .filter(|(n, _)| !has_extension(host, n))
        .map(|&(n, v)| crate::util::extension_properties(n, v))
        .collect()
}

/// `pNext` of a host `VkDeviceCreateInfo` with `timelineSemaphore` turned on: the application's
/// chain without its timeline-feature structures, behind copies of them with the feature set
/// (or a new `VkPhysicalDeviceTimelineSemaphoreFeatures`). Keep the returned owner alive while
/// the chain is used.
///
/// # Safety
/// `p_next` is a valid create-info chain.
pub(super) unsafe fn with_timeline_feature(p_next: *const std::ffi::c_void) -> Box<TimelineChain> {
    // SAFETY: `p_next` is a valid create-info chain (this function's contract), so each structure
    // found by its sType is that structure; both are copied out.
    let (v12, tl) = unsafe {
        (
            find_in_chain::<vk::PhysicalDeviceVulkan12Features<'_>>(
                p_next,
                vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
            )
            .copied(),
            find_in_chain::<vk::PhysicalDeviceTimelineSemaphoreFeatures<'_>>(
                p_next,
                vk::StructureType::PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
            )
            .copied(),
        )
    };
    // SAFETY: the same valid chain, the application's create info's, which outlives the
    // returned owner (the caller drops it right after the host's vkCreateDevice) and which no
    // one else walks during that call.
    let chain = unsafe {
        ChainEdit::without(
            p_next,
            &[
                vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                vk::StructureType::PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
            ],
        )
    };
    let mut owner = Box::new(TimelineChain {
        chain,
        v12: v12.map(|mut f| {
            f.timeline_semaphore = vk::TRUE;
            f
        }),
        tl: if v12.is_some() {
            None
        } else {
            Some(tl.unwrap_or_default().timeline_semaphore(true))
        },
        head: ptr::null_mut(),
    });
    let tail = owner.chain.head().cast_mut();
    let head: *mut std::ffi::c_void = match (&mut owner.v12, &mut owner.tl) {
        (Some(f), _) => {
            f.p_next = tail;
            ptr::from_mut(f).cast()
        }
        (None, Some(f)) => {
            f.p_next = tail;
            ptr::from_mut(f).cast()
        }
        (None, None) => tail,
    };
    owner.head = head;
    owner
}

/// See [`with_timeline_feature`].
pub(super) struct TimelineChain {
    chain: ChainEdit,
    v12: Option<vk::PhysicalDeviceVulkan12Features<'static>>,
    tl: Option<vk::PhysicalDeviceTimelineSemaphoreFeatures<'static>>,
    head: *mut std::ffi::c_void,
}

impl TimelineChain {
    pub(super) fn head(&self) -> *const std::ffi::c_void {
        self.head
    }
}

impl SyncEmulation {
    /// `None` when the host device has no timeline semaphores.
    pub(super) fn new(
        fns: &ash::Device,
        mut load: impl FnMut(&CStr) -> *const std::ffi::c_void,
    ) -> Option<Self> {
        let mut find = |names: [&CStr; 2]| names.into_iter().map(&mut load).find(|p| !p.is_null());
        let signal = find([c"vkSignalSemaphore", c"vkSignalSemaphoreKHR"])?;
        let counter = find([
            c"vkGetSemaphoreCounterValue",
            c"vkGetSemaphoreCounterValueKHR",
        ])?;
        let mut ty = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        // SAFETY: the host device has timelineSemaphore on (the emulation enables it).
        let tracker = unsafe {
            fns.create_semaphore(&vk::SemaphoreCreateInfo::default().push_next(&mut ty), None)
        }
        .ok()?;
        // SAFETY: the host's vkSignalSemaphore, which has this signature.
        let signal = unsafe {
            std::mem::transmute::<*const std::ffi::c_void, vk::PFN_vkSignalSemaphore>(signal)
        };
        let gates = Arc::new(Mutex::new(Vec::new()));
        let waiter = Waiter::new(HostSide {
            device: fns.handle(),
            signal,
            // SAFETY: the host's vkGetSemaphoreCounterValue, which has this signature.
            counter: unsafe {
                std::mem::transmute::<*const std::ffi::c_void, vk::PFN_vkGetSemaphoreCounterValue>(
                    counter,
                )
            },
            tracker,
            gates: gates.clone(),
        });
        let Some(waiter) = waiter else {
            // SAFETY: the tracker semaphore created just above on this device, never handed out nor
            // used by a batch.
            unsafe { fns.destroy_semaphore(tracker, None) };
            return None;
        };
        Some(Self {
            tracker,
            tracker_value: Mutex::new(0),
            exportable: Mutex::new(HashMap::new()),
            imported: Mutex::new(HashMap::new()),
            gates,
            timeline_semaphores: Mutex::new(HashSet::new()),
            pending_fences: Mutex::new(HashSet::new()),
            waiter,
        })
    }

    /// Lets every waiter finish (signalling its gate) and destroys the gates.
    pub(super) fn shut_down(&self, dev: &HostDevice) {
        self.waiter.shut_down();
        // SAFETY: the device is being destroyed; wait for the gated batches first.
        unsafe {
            let _ = dev.fns.device_wait_idle();
            for (g, _) in std::mem::take(&mut *lock(&self.gates)) {
                dev.fns.destroy_semaphore(g, None);
            }
            dev.fns.destroy_semaphore(self.tracker, None);
        }
    }
}

pub(super) fn emulation(dev: &HostDevice) -> Option<(&SyncEmulation, &AnbDevice)> {
    Some((dev.sync.as_ref()?, dev.anb.as_ref()?))
}

/// Strips `VkExportSemaphoreCreateInfo` (the host knows no `SYNC_FD`) and remembers timeline
/// semaphores; `None` when the device does not emulate.
///
/// # Safety
/// Valid create info and output pointer.
pub(super) unsafe fn create_semaphore(
    dev: &HostDevice,
    ci: &vk::SemaphoreCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Semaphore,
) -> Option<vk::Result> {
    let (sync, _) = emulation(dev)?;
    // SAFETY: `ci` is the application's create info, whose chain is valid for this call (the
    // caller's promise), so a structure found by its sType is that structure.
    let timeline = unsafe {
        find_in_chain::<vk::SemaphoreTypeCreateInfo<'_>>(
            ci.p_next,
            vk::StructureType::SEMAPHORE_TYPE_CREATE_INFO,
        )
    }
    .is_some_and(|t| t.semaphore_type == vk::SemaphoreType::TIMELINE);
    // SAFETY: the same application chain, valid for this call.
    let exportable = unsafe {
        find_in_chain::<vk::ExportSemaphoreCreateInfo<'_>>(
            ci.p_next,
            vk::StructureType::EXPORT_SEMAPHORE_CREATE_INFO,
        )
    }
    .is_some_and(|e| {
        e.handle_types
            .contains(vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD)
    });
    // SAFETY: the same application chain, valid for this call.
    let other_types = unsafe {
        find_in_chain::<vk::ExportSemaphoreCreateInfo<'_>>(
            ci.p_next,
            vk::StructureType::EXPORT_SEMAPHORE_CREATE_INFO,
        )
    }
    .map_or(vk::ExternalSemaphoreHandleTypeFlags::empty(), |e| {
        host_exportable_semaphore_types(
            dev,
            e.handle_types & !vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD,
            timeline,
        )
    });
    // SAFETY: the application's chain, valid during this call.
    let chain = unsafe {
        ChainEdit::without(
            ci.p_next,
            &[vk::StructureType::EXPORT_SEMAPHORE_CREATE_INFO],
        )
    };
    // Handle types besides SYNC_FD stay the host's.
    let host_export = vk::ExportSemaphoreCreateInfo {
        p_next: chain.head(),
        handle_types: other_types,
        ..Default::default()
    };
    let mut ci2 = *ci;
    ci2.p_next = if other_types.is_empty() {
        chain.head()
    } else {
        ptr::from_ref(&host_export).cast()
    };
    // SAFETY: the host's function with a valid create info.
    let r = unsafe { (dev.fns.fp_v1_0().create_semaphore)(dev.handle, &ci2, p_allocator, out) };
    if r == vk::Result::SUCCESS {
        // SAFETY: the host's vkCreateSemaphore succeeded, so it wrote a handle through the
        // application's valid `out`.
        let raw = vk::Handle::as_raw(unsafe { *out });
        if timeline {
            lock(&sync.timeline_semaphores).insert(raw);
        } else if exportable {
            lock(&sync.exportable).insert(raw, (0, false));
        }
    }
    Some(r)
}

/// Strips `VkExportFenceCreateInfo`; `None` when the device does not emulate.
///
/// # Safety
/// Valid create info and output pointer.
pub(super) unsafe fn create_fence(
    dev: &HostDevice,
    ci: &vk::FenceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Fence,
) -> Option<vk::Result> {
    emulation(dev)?;
    // SAFETY: `ci` is the application's create info, whose chain is valid for this call (the
    // caller's promise), so a structure found by its sType is that structure.
    let other_types = unsafe {
        find_in_chain::<vk::ExportFenceCreateInfo<'_>>(
            ci.p_next,
            vk::StructureType::EXPORT_FENCE_CREATE_INFO,
        )
    }
    .map_or(vk::ExternalFenceHandleTypeFlags::empty(), |e| {
        host_exportable_fence_types(
            dev,
            e.handle_types & !vk::ExternalFenceHandleTypeFlags::SYNC_FD,
        )
    });
    // SAFETY: the application's chain, valid during this call.
    let chain =
        unsafe { ChainEdit::without(ci.p_next, &[vk::StructureType::EXPORT_FENCE_CREATE_INFO]) };
    // Handle types besides SYNC_FD stay the host's.
    let host_export = vk::ExportFenceCreateInfo {
        p_next: chain.head(),
        handle_types: other_types,
        ..Default::default()
    };
    let mut ci2 = *ci;
    ci2.p_next = if other_types.is_empty() {
        chain.head()
    } else {
        ptr::from_ref(&host_export).cast()
    };
    // SAFETY: the host's function with a valid create info.
    Some(unsafe { (dev.fns.fp_v1_0().create_fence)(dev.handle, &ci2, p_allocator, out) })
}

/// The bits of `requested` (handle types besides `SYNC_FD`) the host can export. An emulating
/// device advertises `VK_KHR_external_semaphore_fd` the host lacks, and applications (FFmpeg 5.1)
/// then ask for `OPAQUE_FD` without querying its properties; that is invalid usage the host
/// (Mesa's `vk_semaphore_create`) would refuse with `VK_ERROR_INVALID_EXTERNAL_HANDLE`, so the
/// host is asked only for what it reports exportable and the rest is dropped with a warning —
/// a later `vkGetSemaphoreFdKHR` for it fails as the spec allows.
fn host_exportable_semaphore_types(
    dev: &HostDevice,
    requested: vk::ExternalSemaphoreHandleTypeFlags,
    timeline: bool,
) -> vk::ExternalSemaphoreHandleTypeFlags {
    let kind = vk::SemaphoreTypeCreateInfo::default().semaphore_type(if timeline {
        vk::SemaphoreType::TIMELINE
    } else {
        vk::SemaphoreType::BINARY
    });
    let kept = keep_exportable("vkCreateSemaphore", requested.as_raw(), |bit| {
        let info = vk::PhysicalDeviceExternalSemaphoreInfo {
            p_next: ptr::from_ref(&kind).cast(),
            handle_type: vk::ExternalSemaphoreHandleTypeFlags::from_raw(bit),
            ..Default::default()
        };
        let mut props = vk::ExternalSemaphoreProperties::default();
        // SAFETY: the host's query on the device's own physical device, valid structures.
        unsafe {
            (dev.instance
                .fns
                .fp_v1_1()
                .get_physical_device_external_semaphore_properties)(
                dev.physical, &info, &mut props
            )
        };
        props
            .external_semaphore_features
            .contains(vk::ExternalSemaphoreFeatureFlags::EXPORTABLE)
    });
    vk::ExternalSemaphoreHandleTypeFlags::from_raw(kept)
}

/// [`host_exportable_semaphore_types`] for fences.
fn host_exportable_fence_types(
    dev: &HostDevice,
    requested: vk::ExternalFenceHandleTypeFlags,
) -> vk::ExternalFenceHandleTypeFlags {
    let kept = keep_exportable("vkCreateFence", requested.as_raw(), |bit| {
        let info = vk::PhysicalDeviceExternalFenceInfo {
            handle_type: vk::ExternalFenceHandleTypeFlags::from_raw(bit),
            ..Default::default()
        };
        let mut props = vk::ExternalFenceProperties::default();
        // SAFETY: the host's query on the device's own physical device, valid structures.
        unsafe {
            (dev.instance
                .fns
                .fp_v1_1()
                .get_physical_device_external_fence_properties)(
                dev.physical, &info, &mut props
            )
        };
        props
            .external_fence_features
            .contains(vk::ExternalFenceFeatureFlags::EXPORTABLE)
    });
    vk::ExternalFenceHandleTypeFlags::from_raw(kept)
}

/// The set bits of `requested` for which `exportable(bit)` holds; the others are logged as not
/// requested from the host by `command`.
fn keep_exportable(command: &str, requested: u32, exportable: impl Fn(u32) -> bool) -> u32 {
    let kept = (0..32)
        .map(|i| 1u32 << i)
        .filter(|&bit| requested & bit != 0 && exportable(bit))
        .fold(0, |acc, bit| acc | bit);
    if kept != requested {
        log::warn!(
            "{command}: the host cannot export handle types {:#x}; not requested from it",
            requested & !kept
        );
    }
    kept
}

pub(super) fn forget_semaphore(dev: &HostDevice, semaphore: vk::Semaphore) {
    if let Some(sync) = &dev.sync {
        let raw = vk::Handle::as_raw(semaphore);
        lock(&sync.timeline_semaphores).remove(&raw);
        lock(&sync.exportable).remove(&raw);
        lock(&sync.imported).remove(&raw);
    }
}

/// `vkGetSemaphoreFdKHR` (`SYNC_FD`): see the module docs.
pub(super) fn get_semaphore_fd(
    dev: &HostDevice,
    info: &vk::SemaphoreGetFdInfoKHR<'_>,
) -> Result<NativeFence, vk::Result> {
    let (sync, _) = emulation(dev).ok_or_else(|| {
        vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "vkGetSemaphoreFdKHR: the device does not emulate SYNC_FD"
        )
    })?;
    if info.handle_type != vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "vkGetSemaphoreFdKHR: handle type {:?} is not SYNC_FD",
            info.handle_type
        ));
    }
    let value = {
        let mut exportable = lock(&sync.exportable);
        let Some(entry) = exportable.get_mut(&vk::Handle::as_raw(info.semaphore)) else {
            return Err(vkgen_abi::vk_error!(
                vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                "vkGetSemaphoreFdKHR: {:?} was not created exportable (or is a timeline)",
                info.semaphore
            ));
        };
        entry.1 = true;
        entry.0
    };
    // Out of descriptors is what an eventfd that cannot be made or duplicated means here, so
    // both answer `VK_ERROR_TOO_MANY_OBJECTS` rather than `map_fence_err`'s memory error.
    let no_fd = |e: FenceError| {
        vkgen_abi::vk_error!(
            vk::Result::ERROR_TOO_MANY_OBJECTS,
            "vkGetSemaphoreFdKHR: {e}"
        )
    };
    let signaller = FenceSignaller::new().map_err(no_fd)?;
    let fd = signaller.fd().map_err(no_fd)?;
    sync.waiter
        .submit(Job::Export { value, signaller })
        .map_err(|_| {
            vkgen_abi::vk_error!(
                vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                "vkGetSemaphoreFdKHR: the waiter thread is gone"
            )
        })?;
    Ok(NativeFence::from_fd(fd))
}

/// What a batch of an emulating device becomes: waits on imported semaphores turned into waits
/// on their gates, a tracker signal added where it signals an exportable semaphore, and a wait
/// on each exportable semaphore whose signal an export consumed before it is signalled again.
/// `(semaphore, value, stage)` lists in, the same out.
pub(super) fn rewrite_batch(
    sync: &SyncEmulation,
    waits: &mut Vec<(vk::Semaphore, u64, vk::PipelineStageFlags2)>,
    signals: &mut Vec<(vk::Semaphore, u64, vk::PipelineStageFlags2)>,
) {
    {
        let mut imported = lock(&sync.imported);
        for w in waits.iter_mut() {
            if let Some((gate, value)) = imported.remove(&vk::Handle::as_raw(w.0)) {
                w.0 = gate;
                w.1 = value;
            }
        }
    }
    let mut exportable = lock(&sync.exportable);
    let mut tracked = false;
    for sig in signals.iter() {
        if let Some(entry) = exportable.get_mut(&vk::Handle::as_raw(sig.0)) {
            if entry.1 {
                waits.push((sig.0, 0, vk::PipelineStageFlags2::ALL_COMMANDS));
                entry.1 = false;
            }
            tracked = true;
        }
    }
    if tracked {
        let mut v = lock(&sync.tracker_value);
        *v += 1;
        for sig in signals.iter() {
            if let Some(entry) = exportable.get_mut(&vk::Handle::as_raw(sig.0)) {
                entry.0 = *v;
            }
        }
        signals.push((sync.tracker, *v, vk::PipelineStageFlags2::ALL_COMMANDS));
    }
}

/// `vkGetFenceFdKHR` (`SYNC_FD`): waits, resets, answers `-1`.
pub(super) fn get_fence_fd(
    dev: &HostDevice,
    info: &vk::FenceGetFdInfoKHR<'_>,
) -> Result<NativeFence, vk::Result> {
    let (sync, _) = emulation(dev).ok_or_else(|| {
        vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "vkGetFenceFdKHR: the device does not emulate SYNC_FD"
        )
    })?;
    if info.handle_type != vk::ExternalFenceHandleTypeFlags::SYNC_FD {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "vkGetFenceFdKHR: handle type {:?} is not SYNC_FD",
            info.handle_type
        ));
    }
    let raw = vk::Handle::as_raw(info.fence);
    // SAFETY: a fence of the device.
    match unsafe { (dev.fns.fp_v1_0().get_fence_status)(dev.handle, info.fence) } {
        vk::Result::SUCCESS => {}
        vk::Result::NOT_READY if lock(&sync.pending_fences).contains(&raw) => {
            // SAFETY: a fence of the device with a pending signal.
            unsafe { dev.fns.wait_for_fences(&[info.fence], true, u64::MAX)? };
        }
        vk::Result::NOT_READY => {
            // Neither signalled nor submitted: invalid usage, and a wait would never end.
            return Err(vkgen_abi::vk_error!(
                vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                "vkGetFenceFdKHR: the fence is unsignalled and no batch signals it"
            ));
        }
        e => return Err(e),
    }
    // SAFETY: a signalled fence of the device.
    unsafe { dev.fns.reset_fences(&[info.fence])? };
    lock(&sync.pending_fences).remove(&raw);
    Ok(NativeFence::signalled())
}

/// What an import signals.
#[derive(Clone, Copy)]
pub(super) enum Target {
    Semaphore(vk::Semaphore),
    Fence(vk::Fence),
}

/// A gate from the pool, or a new one.
fn take_gate(dev: &HostDevice, sync: &SyncEmulation) -> Result<(vk::Semaphore, u64), vk::Result> {
    if let Some(g) = lock(&sync.gates).pop() {
        return Ok(g);
    }
    let mut ty = vk::SemaphoreTypeCreateInfo::default()
        .semaphore_type(vk::SemaphoreType::TIMELINE)
        .initial_value(0);
    let ci = vk::SemaphoreCreateInfo::default().push_next(&mut ty);
    // SAFETY: the host device has timelineSemaphore on (emulation enables it).
    unsafe { dev.fns.create_semaphore(&ci, None) }.map(|s| (s, 0))
}

/// The import of `fd` into `target`: on success the fd is ours (closed here; the waiter
/// thread polls a duplicate); on failure it stays the caller's.
pub(super) fn import(dev: &HostDevice, target: Target, fd: i32) -> vk::Result {
    let Some((sync, anb)) = emulation(dev) else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "SYNC_FD import: the device does not emulate SYNC_FD"
        );
    };
    if let Target::Semaphore(s) = target {
        if lock(&sync.timeline_semaphores).contains(&vk::Handle::as_raw(s)) {
            return vkgen_abi::vk_error!(
                vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                "SYNC_FD import into timeline semaphore {s:?}"
            );
        }
    }
    if fd >= 0 && !crate::sync_fd::is_fence_fd(fd) {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "SYNC_FD import: fd {fd} is neither a sync file nor an eventfd"
        );
    }
    // `-1` is already signalled: the tracker at 0 stands for it (a wait on it returns at once).
    let mut gate = (sync.tracker, 0);
    if fd >= 0 {
        // SAFETY: checked open above; only duplicated.
        let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
        let dup = match borrowed.try_clone_to_owned() {
            Ok(dup) => dup,
            Err(e) => {
                return vkgen_abi::error::map_io_err(
                    "SYNC_FD import: duplicating the fd",
                    &e,
                    vk::Result::ERROR_TOO_MANY_OBJECTS,
                )
            }
        };
        let (g, v) = match take_gate(dev, sync) {
            Ok(g) => g,
            Err(e) => return e,
        };
        let job = Job::Import {
            fd: dup,
            gate: g,
            value: v + 1,
        };
        if sync.waiter.submit(job).is_err() {
            lock(&sync.gates).push((g, v));
            return vkgen_abi::vk_error!(
                vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                "SYNC_FD import: the waiter thread is gone"
            );
        }
        gate = (g, v + 1);
    }
    match target {
        Target::Semaphore(sem) => {
            lock(&sync.imported).insert(vk::Handle::as_raw(sem), gate);
        }
        Target::Fence(fence) => {
            let waits = [gate.0];
            let values = [gate.1];
            let stages = [vk::PipelineStageFlags::ALL_COMMANDS];
            let mut timeline_info =
                vk::TimelineSemaphoreSubmitInfo::default().wait_semaphore_values(&values);
            let submit = vk::SubmitInfo::default()
                .wait_semaphores(&waits)
                .wait_dst_stage_mask(&stages)
                .push_next(&mut timeline_info);
            let r = {
                let queue = lock(&anb.internal_queue);
                // SAFETY: the internal queue under its lock; valid batch.
                unsafe { dev.fns.queue_submit(*queue, &[submit], fence) }
            };
            if let Err(e) = r {
                // The waiter still fires the gate (through its duplicate) and returns it.
                return e;
            }
            lock(&sync.pending_fences).insert(vk::Handle::as_raw(fence));
        }
    }
    if fd >= 0 {
        // SAFETY: the import succeeded, so the fd is ours to close.
        drop(unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) });
    }
    vk::Result::SUCCESS
}

/// `VkExternalSemaphoreProperties` / fence properties for `SYNC_FD` where emulated.
pub(super) fn sync_fd_features() -> (
    vk::ExternalSemaphoreFeatureFlags,
    vk::ExternalFenceFeatureFlags,
) {
    (
        vk::ExternalSemaphoreFeatureFlags::EXPORTABLE
            | vk::ExternalSemaphoreFeatureFlags::IMPORTABLE,
        vk::ExternalFenceFeatureFlags::EXPORTABLE | vk::ExternalFenceFeatureFlags::IMPORTABLE,
    )
}

/// Whether the host's own `SYNC_FD` works on `device` (created with the fd extensions the
/// application enabled). NVIDIA lists both extensions and reports the handle type, yet where the
/// kernel has no sync-file support (no `nvidia-drm`, as in our GPU VM) an exportable semaphore
/// fails to create (`VK_ERROR_INITIALIZATION_FAILED`) and a fence export answers
/// `VK_ERROR_FEATURE_NOT_PRESENT`. So the device tries both once: an exportable semaphore
/// signalled by an empty batch, and a signalled exportable fence, each exported.
///
/// # Safety
/// `device` is a live host device, `queue` one of its queues not in use by another thread.
pub(super) unsafe fn host_sync_fd_works(
    fns: &ash::Device,
    gdpa: vk::PFN_vkGetDeviceProcAddr,
    device: vk::Device,
    queue: vk::Queue,
    semaphores: bool,
    fences: bool,
) -> bool {
    let lookup = |name: &CStr| {
        // SAFETY: the host's lookup with its own live device.
        unsafe { gdpa(device, name.as_ptr()) }
    };
    if semaphores {
        let Some(get_fd) = lookup(c"vkGetSemaphoreFdKHR") else {
            return false;
        };
        // SAFETY: the host returns vkGetSemaphoreFdKHR under that name.
        let get_fd = unsafe {
            std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkGetSemaphoreFdKHR>(get_fd)
        };
        let mut export = vk::ExportSemaphoreCreateInfo::default()
            .handle_types(vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD);
        let ci = vk::SemaphoreCreateInfo::default().push_next(&mut export);
        // SAFETY: the probe's own create info, chaining `export` on this stack frame, for the live
        // new device.
        let Ok(s) = (unsafe { fns.create_semaphore(&ci, None) }) else {
            return false;
        };
        let sems = [s];
        let submit = vk::SubmitInfo::default().signal_semaphores(&sems);
        let info = vk::SemaphoreGetFdInfoKHR::default()
            .semaphore(s)
            .handle_type(vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD);
        let mut fd = -1;
        // SAFETY: a batch on the device's queue signalling our semaphore, exported once
        // (pending signal, as SYNC_FD export requires), then the queue drained before the
        // semaphore goes.
        let ok = unsafe {
            let ok = fns
                .queue_submit(queue, &[submit], vk::Fence::null())
                .is_ok()
                && get_fd(device, &info, &mut fd) == vk::Result::SUCCESS;
            let _ = fns.queue_wait_idle(queue);
            fns.destroy_semaphore(s, None);
            ok
        };
        if fd >= 0 {
            // SAFETY: `fd` is the new sync file the host exported to us just above, owned by nobody
            // else.
            drop(unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) });
        }
        if !ok {
            return false;
        }
    }
    if fences {
        let Some(get_fd) = lookup(c"vkGetFenceFdKHR") else {
            return false;
        };
        // SAFETY: the host returns vkGetFenceFdKHR under that name.
        let get_fd = unsafe {
            std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkGetFenceFdKHR>(get_fd)
        };
        let mut export = vk::ExportFenceCreateInfo::default()
            .handle_types(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        let ci = vk::FenceCreateInfo::default()
            .flags(vk::FenceCreateFlags::SIGNALED)
            .push_next(&mut export);
        // SAFETY: the probe's own create info, chaining `export` on this stack frame, for the live
        // new device.
        let Ok(f) = (unsafe { fns.create_fence(&ci, None) }) else {
            return false;
        };
        let info = vk::FenceGetFdInfoKHR::default()
            .fence(f)
            .handle_type(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        let mut fd = -1;
        // SAFETY: a signalled exportable fence of the device, exported once, then destroyed.
        let ok = unsafe {
            let ok = get_fd(device, &info, &mut fd) == vk::Result::SUCCESS;
            fns.destroy_fence(f, None);
            ok
        };
        if fd >= 0 {
            // SAFETY: `fd` is the new sync file the host exported to us just above, owned by nobody
            // else.
            drop(unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) });
        }
        if !ok {
            return false;
        }
    }
    true
}
