//! Fences and semaphores signalled on the CPU, with `SYNC_FD` interop: the kit's sync component
//! (what Mesa's `vk_sync` emulation and `vk_sync_file` give a driver).
//!
//! A driver opts in with [`Kit::SYNC_OBJECTS`]. The kit then answers every fence and semaphore
//! command (binary and timeline semaphores, `vkWaitForFences` / `vkWaitSemaphores` with their
//! timeouts), `VK_KHR_external_fence_fd` and `VK_KHR_external_semaphore_fd` for
//! `VK_EXTERNAL_*_HANDLE_TYPE_SYNC_FD_BIT`, and the external fence/semaphore property queries.
//! The driver signals: a driver whose work completes at submission calls [`complete_submit2`]
//! from its `vkQueueSubmit2` (the kit routes `vkQueueSubmit` there); one with a real queue calls
//! [`Fence::signal`] / [`Semaphore::signal`] when the hardware is done.
//!
//! The payload of each object is "signalled" or a pending [`NativeFence`] (a sync file, or an
//! eventfd standing in for one), so everything a `VK_ANDROID_native_buffer` acquire hands over,
//! and every imported sync file, is waited on by polling its fd:
//! * **Export** (`vkGet{Fence,Semaphore}FdKHR`) has copy transference: the caller gets its own fd
//!   (`-1` when already signalled, which the spec allows), and the object is reset (fence) or
//!   waited (semaphore), as the spec's side effects of a copy export say. An unsignalled fence
//!   without a pending fd exports an eventfd that fires when the fence is signalled.
//! * **Import** (`vkImport{Fence,Semaphore}FdKHR`) is temporary (the only permanence `SYNC_FD`
//!   has): the fd becomes the pending payload until the next reset or wait. `-1` means signalled.
//!   On success the driver owns the fd; on failure (another handle type, a closed fd, a timeline
//!   semaphore) it does not, and the error is `VK_ERROR_INVALID_EXTERNAL_HANDLE`.
//! * **Native buffers**: [`signal_on_native_fence`] and [`release_native_fence`] are the
//!   `NativeBuffers` sync hooks over these objects.

use std::ffi::c_int;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::Kit;
use crate::handles::{create_object, destroy_object, Object, ObjectKind};
use crate::sync_fd::{FenceSignaller, NativeFence};
use crate::util::{fence_error_result, find_in_chain, guard, lock, slice, take_native_fence};

/// How often waits on objects without an fd look again (they change only when another thread
/// signals them).
const FDLESS_POLL: Duration = Duration::from_millis(1);

#[derive(Default)]
struct FenceState {
    signalled: bool,
    /// A native fence whose firing signals this fence (acquire, or an imported sync file).
    pending: Option<NativeFence>,
    /// Eventfds exported while unsignalled: fired by [`Fence::signal`].
    exported: Vec<FenceSignaller>,
}

/// A `VkFence` of the sync component.
pub struct Fence {
    state: Mutex<FenceState>,
}

/// A `VkSemaphore` of the sync component.
pub struct Semaphore {
    timeline: bool,
    /// Binary semaphores: a native fence the next wait must wait for.
    pending: Mutex<Option<NativeFence>>,
    /// Timeline semaphores: the counter.
    value: AtomicU64,
}

impl ObjectKind for Fence {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::FENCE;
}
impl ObjectKind for Semaphore {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::SEMAPHORE;
}

/// The fence behind a handle of this component.
///
/// # Safety
/// `h` is null or a live fence of a driver using the component.
pub unsafe fn fence<'a>(h: vk::Fence) -> Option<&'a Fence> {
    // SAFETY: forwarded contract.
    unsafe { Object::<Fence>::from_handle(h) }.map(|o| &**o)
}

/// The semaphore behind a handle of this component.
///
/// # Safety
/// `h` is null or a live semaphore of a driver using the component.
pub unsafe fn semaphore<'a>(h: vk::Semaphore) -> Option<&'a Semaphore> {
    // SAFETY: forwarded contract.
    unsafe { Object::<Semaphore>::from_handle(h) }.map(|o| &**o)
}

impl Fence {
    /// Signals the fence (and every fd exported from it while it was unsignalled).
    pub fn signal(&self) {
        let mut st = lock(&self.state);
        st.signalled = true;
        st.pending = None;
        for e in st.exported.drain(..) {
            // A signaller that cannot be written is already readable (saturated) or broken,
            // and then its reader sees an error state: nothing better to do here.
            let _ = e.signal();
        }
    }

    fn reset(&self) {
        let mut st = lock(&self.state);
        st.signalled = false;
        st.pending = None;
    }

    /// Whether the fence is signalled, collecting a pending fd that has fired.
    fn poll(&self) -> Result<bool, vk::Result> {
        let mut st = lock(&self.state);
        if st.signalled {
            return Ok(true);
        }
        let Some(fd) = &st.pending else {
            return Ok(false);
        };
        match fd.is_signalled() {
            Ok(true) => {
                st.signalled = true;
                st.pending = None;
                Ok(true)
            }
            Ok(false) => Ok(false),
            Err(e) => Err(fence_error_result(&e)),
        }
    }

    /// A second handle to the pending native fence, to poll without holding the lock.
    fn pending_clone(&self) -> Result<Option<NativeFence>, vk::Result> {
        let st = lock(&self.state);
        match &st.pending {
            None => Ok(None),
            Some(f) => f.try_clone().map(Some).map_err(|e| fence_error_result(&e)),
        }
    }

    /// The copy-transference export: the payload as a sync fd, then a reset.
    fn export(&self) -> Result<NativeFence, vk::Result> {
        let mut st = lock(&self.state);
        let out = if st.signalled {
            NativeFence::signalled()
        } else if let Some(p) = st.pending.take() {
            p
        } else {
            let e = FenceSignaller::new().map_err(|e| fence_error_result(&e))?;
            let f = e.fence().map_err(|e| fence_error_result(&e))?;
            st.exported.push(e);
            return Ok(f);
        };
        st.signalled = false;
        Ok(out)
    }

    /// The temporary import of a sync fd (`signalled()` for `-1`).
    fn import(&self, f: NativeFence) {
        let mut st = lock(&self.state);
        st.signalled = f.is_trivially_signalled();
        st.pending = (!st.signalled).then_some(f);
    }
}

impl Semaphore {
    /// A queue wait on this (binary) semaphore: blocks until its pending native fence fires.
    pub fn wait_pending(&self) -> Result<(), vk::Result> {
        let pending = lock(&self.pending).take();
        match pending {
            None => Ok(()),
            Some(f) => f.wait(None).map(drop).map_err(|e| fence_error_result(&e)),
        }
    }

    /// Signals the semaphore: a timeline one to `value` (never backwards), a binary one by
    /// dropping any pending fd.
    pub fn signal(&self, value: Option<u64>) {
        match value.filter(|_| self.timeline) {
            Some(v) => {
                self.value.fetch_max(v, Ordering::AcqRel);
            }
            None => *lock(&self.pending) = None,
        }
    }

    /// The timeline counter.
    pub fn value(&self) -> u64 {
        self.value.load(Ordering::Acquire)
    }
}

/// Blocks until any of `fds` is readable or `timeout` passes.
fn poll_any(fds: &[NativeFence], timeout: Option<Duration>) -> Result<(), vk::Result> {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let mut pfds: Vec<PollFd<'_>> = fds
        .iter()
        .filter_map(NativeFence::as_fd)
        .map(|fd| PollFd::from_borrowed_fd(fd, PollFlags::IN))
        .collect();
    let ts = timeout.map(|t| {
        Timespec::try_from(t).unwrap_or(Timespec {
            tv_sec: i64::MAX,
            tv_nsec: 0,
        })
    });
    match poll(&mut pfds, ts.as_ref()) {
        Ok(_) | Err(rustix::io::Errno::INTR) => Ok(()),
        Err(rustix::io::Errno::NOMEM) => Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY),
        Err(_) => Err(vk::Result::ERROR_DEVICE_LOST),
    }
}

/// `deadline` for a Vulkan timeout in ns; `None` = forever.
fn deadline(timeout_ns: u64) -> Option<Instant> {
    if timeout_ns == u64::MAX {
        None
    } else {
        Instant::now().checked_add(Duration::from_nanos(timeout_ns))
    }
}

/// The time left until `deadline`: `Some(ZERO)` once it has passed, `None` for forever.
fn remaining(deadline: Option<Instant>) -> Option<Duration> {
    deadline.map(|d| d.saturating_duration_since(Instant::now()))
}

/// A submission that completes at once: waits for the native fences pending on its wait
/// semaphores, then signals its semaphores (timeline values included) and `fence`.
///
/// # Safety
/// `submits` are valid structures (arrays and handles inside likewise), `fence` null or live.
pub unsafe fn complete_submit2(submits: &[vk::SubmitInfo2<'_>], fence: vk::Fence) -> vk::Result {
    for submit in submits {
        // SAFETY: per the contract.
        let waits = unsafe {
            slice(
                submit.p_wait_semaphore_infos,
                submit.wait_semaphore_info_count,
            )
        };
        for w in waits {
            // SAFETY: live semaphore handles.
            if let Some(sem) = unsafe { semaphore(w.semaphore) } {
                if let Err(e) = sem.wait_pending() {
                    return e;
                }
            }
        }
        // SAFETY: per the contract.
        let signals = unsafe {
            slice(
                submit.p_signal_semaphore_infos,
                submit.signal_semaphore_info_count,
            )
        };
        for s in signals {
            // SAFETY: live semaphore handles.
            if let Some(sem) = unsafe { semaphore(s.semaphore) } {
                // Binary semaphores ignore the value; timeline ones never go backwards.
                sem.signal(Some(s.value));
            }
        }
    }
    // SAFETY: null or a live fence.
    if let Some(f) = unsafe { self::fence(fence) } {
        f.signal();
    }
    vk::Result::SUCCESS
}

/// `NativeBuffers::signal_on_native_fence` over the component's objects: each copy becomes the
/// pending payload of its object.
pub fn signal_on_native_fence(
    semaphore: vk::Semaphore,
    semaphore_fence: Option<NativeFence>,
    fence: vk::Fence,
    fence_fence: Option<NativeFence>,
) -> Result<(), vk::Result> {
    // SAFETY: null or live handles of this device.
    let (sem, fen) = unsafe { (self::semaphore(semaphore), self::fence(fence)) };
    if let (Some(s), Some(f)) = (sem, semaphore_fence) {
        *lock(&s.pending) = (!f.is_trivially_signalled()).then_some(f);
    }
    if let (Some(fen), Some(f)) = (fen, fence_fence) {
        fen.import(f);
    }
    Ok(())
}

/// `NativeBuffers::release_native_fence` for work that completes at submission: once the
/// semaphores' fds fire, the image is released (`-1`).
pub fn release_native_fence(wait: &[vk::Semaphore]) -> Result<NativeFence, vk::Result> {
    for &s in wait {
        // SAFETY: live semaphores per valid usage.
        if let Some(sem) = unsafe { semaphore(s) } {
            sem.wait_pending()?;
        }
    }
    Ok(NativeFence::signalled())
}

/// The component as a table (see [`super::entries`]), empty unless the driver opted in.
pub fn entries<D: Kit>() -> EntryTable {
    if !D::SYNC_OBJECTS {
        return EntryTable::EMPTY;
    }
    EntryTable {
        create_fence: Some(create_fence),
        destroy_fence: Some(destroy::<Fence, vk::Fence>),
        reset_fences: Some(reset_fences),
        get_fence_status: Some(get_fence_status),
        wait_for_fences: Some(wait_for_fences),
        create_semaphore: Some(create_semaphore),
        destroy_semaphore: Some(destroy::<Semaphore, vk::Semaphore>),
        get_semaphore_counter_value: Some(get_semaphore_counter_value),
        signal_semaphore: Some(signal_semaphore),
        wait_semaphores: Some(wait_semaphores),
        get_fence_fd_khr: Some(get_fence_fd),
        import_fence_fd_khr: Some(import_fence_fd),
        get_semaphore_fd_khr: Some(get_semaphore_fd),
        import_semaphore_fd_khr: Some(import_semaphore_fd),
        get_physical_device_external_fence_properties: Some(external_fence_properties),
        get_physical_device_external_semaphore_properties: Some(external_semaphore_properties),
        ..EntryTable::EMPTY
    }
}

/// Stores a new object's handle through `out`.
///
/// # Safety
/// `out` valid for a write; `p_allocator` as for [`create_object`].
unsafe fn create<T: ObjectKind, H: vk::Handle>(
    value: T,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut H,
) -> vk::Result {
    if out.is_null() {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    }
    // SAFETY: forwarded allocator.
    match unsafe { create_object(value, p_allocator) } {
        Ok(h) => {
            // SAFETY: valid output pointer per the contract.
            unsafe { *out = H::from_raw(h) };
            vk::Result::SUCCESS
        }
        Err(e) => e,
    }
}

// The `unsafe extern "system"` functions below are Vulkan commands: their safety contract is
// the command's valid usage.

unsafe extern "system" fn create_fence(
    _device: vk::Device,
    p_create_info: *const vk::FenceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_fence: *mut vk::Fence,
) -> vk::Result {
    guard(
        "vkCreateFence",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: valid input structure.
            let signalled = unsafe { p_create_info.as_ref() }
                .is_some_and(|ci| ci.flags.contains(vk::FenceCreateFlags::SIGNALED));
            let fence = Fence {
                state: Mutex::new(FenceState {
                    signalled,
                    ..FenceState::default()
                }),
            };
            // SAFETY: per valid usage.
            unsafe { create(fence, p_allocator, p_fence) }
        },
    )
}

/// `vkDestroyFence` / `vkDestroySemaphore`: null or mistyped handles are ignored.
unsafe extern "system" fn destroy<T: ObjectKind, H: vk::Handle>(
    _device: vk::Device,
    handle: H,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    // SAFETY: null or a live object the application is done with (its fds are closed with it).
    guard(concat!(module_path!(), "::destroy"), (), || unsafe {
        destroy_object::<T>(handle.as_raw());
    })
}

unsafe extern "system" fn reset_fences(
    _device: vk::Device,
    count: u32,
    p_fences: *const vk::Fence,
) -> vk::Result {
    guard(
        "vkResetFences",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pFences` holds `fenceCount` live fences.
            for &f in unsafe { slice(p_fences, count) } {
                // SAFETY: as above.
                if let Some(f) = unsafe { fence(f) } {
                    f.reset();
                }
            }
            vk::Result::SUCCESS
        },
    )
}

unsafe extern "system" fn get_fence_status(_device: vk::Device, f: vk::Fence) -> vk::Result {
    guard("vkGetFenceStatus", vk::Result::ERROR_DEVICE_LOST, || {
        // SAFETY: a live fence.
        let Some(f) = (unsafe { fence(f) }) else {
            return vk::Result::ERROR_DEVICE_LOST;
        };
        match f.poll() {
            Ok(true) => vk::Result::SUCCESS,
            Ok(false) => vk::Result::NOT_READY,
            Err(e) => e,
        }
    })
}

unsafe extern "system" fn wait_for_fences(
    _device: vk::Device,
    count: u32,
    p_fences: *const vk::Fence,
    wait_all: vk::Bool32,
    timeout: u64,
) -> vk::Result {
    guard("vkWaitForFences", vk::Result::ERROR_DEVICE_LOST, || {
        // SAFETY: `pFences` holds `fenceCount` live fences.
        let fences: Vec<&Fence> = unsafe { slice(p_fences, count) }
            .iter()
            // SAFETY: as above.
            .filter_map(|&f| unsafe { fence(f) })
            .collect();
        let deadline = deadline(timeout);
        loop {
            let mut ready = 0;
            let mut fds = Vec::new();
            let mut fdless = false;
            for f in &fences {
                match f.poll() {
                    Ok(true) => ready += 1,
                    Ok(false) => match f.pending_clone() {
                        Ok(Some(fd)) => fds.push(fd),
                        Ok(None) => fdless = true,
                        Err(e) => return e,
                    },
                    Err(e) => return e,
                }
            }
            let done = if wait_all != vk::FALSE {
                ready == fences.len()
            } else {
                ready > 0 || fences.is_empty()
            };
            if done {
                return vk::Result::SUCCESS;
            }
            let left = remaining(deadline);
            if left == Some(Duration::ZERO) || timeout == 0 {
                return vk::Result::TIMEOUT;
            }
            let step = if fdless {
                Some(left.map_or(FDLESS_POLL, |l| l.min(FDLESS_POLL)))
            } else {
                left
            };
            if let Err(e) = poll_any(&fds, step) {
                return e;
            }
        }
    })
}

unsafe extern "system" fn create_semaphore(
    _device: vk::Device,
    p_create_info: *const vk::SemaphoreCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_semaphore: *mut vk::Semaphore,
) -> vk::Result {
    guard(
        "vkCreateSemaphore",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: valid input structure and chain.
            let ty = unsafe {
                p_create_info.as_ref().and_then(|ci| {
                    find_in_chain::<vk::SemaphoreTypeCreateInfo<'_>>(
                        ci.p_next,
                        vk::StructureType::SEMAPHORE_TYPE_CREATE_INFO,
                    )
                })
            };
            let sem = Semaphore {
                timeline: ty.is_some_and(|t| t.semaphore_type == vk::SemaphoreType::TIMELINE),
                pending: Mutex::new(None),
                value: AtomicU64::new(ty.map_or(0, |t| t.initial_value)),
            };
            // SAFETY: per valid usage.
            unsafe { create(sem, p_allocator, p_semaphore) }
        },
    )
}

unsafe extern "system" fn get_semaphore_counter_value(
    _device: vk::Device,
    s: vk::Semaphore,
    p_value: *mut u64,
) -> vk::Result {
    guard(
        "vkGetSemaphoreCounterValue",
        vk::Result::ERROR_DEVICE_LOST,
        || {
            // SAFETY: a live semaphore; valid output pointer.
            if let (Some(s), Some(out)) = unsafe { (semaphore(s), p_value.as_mut()) } {
                *out = s.value();
            }
            vk::Result::SUCCESS
        },
    )
}

unsafe extern "system" fn signal_semaphore(
    _device: vk::Device,
    p_info: *const vk::SemaphoreSignalInfo<'_>,
) -> vk::Result {
    guard(
        "vkSignalSemaphore",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: valid input structure with a live semaphore.
            if let Some(info) = unsafe { p_info.as_ref() } {
                // SAFETY: as above.
                if let Some(s) = unsafe { semaphore(info.semaphore) } {
                    s.signal(Some(info.value));
                }
            }
            vk::Result::SUCCESS
        },
    )
}

unsafe extern "system" fn wait_semaphores(
    _device: vk::Device,
    p_info: *const vk::SemaphoreWaitInfo<'_>,
    timeout: u64,
) -> vk::Result {
    guard("vkWaitSemaphores", vk::Result::ERROR_DEVICE_LOST, || {
        // SAFETY: valid input structure; its arrays hold `semaphoreCount` elements.
        let Some(info) = (unsafe { p_info.as_ref() }) else {
            return vk::Result::SUCCESS;
        };
        // SAFETY: as above.
        let (sems, values) = unsafe {
            (
                slice(info.p_semaphores, info.semaphore_count),
                slice(info.p_values, info.semaphore_count),
            )
        };
        let any = info.flags.contains(vk::SemaphoreWaitFlags::ANY);
        let deadline = deadline(timeout);
        loop {
            let mut reached = sems.iter().zip(values).map(|(&s, &v)| {
                // SAFETY: live semaphores.
                unsafe { semaphore(s) }.is_none_or(|s| s.value() >= v)
            });
            let done = if any {
                sems.is_empty() || reached.any(|r| r)
            } else {
                reached.all(|r| r)
            };
            if done {
                return vk::Result::SUCCESS;
            }
            let left = remaining(deadline);
            if left == Some(Duration::ZERO) || timeout == 0 {
                return vk::Result::TIMEOUT;
            }
            std::thread::sleep(left.map_or(FDLESS_POLL, |l| l.min(FDLESS_POLL)));
        }
    })
}

/// Writes an exported fence's fd (`-1` for a signalled one); the caller owns it.
///
/// # Safety
/// `p_fd` null or valid for a write.
unsafe fn hand_out(f: NativeFence, p_fd: *mut c_int) -> vk::Result {
    // SAFETY: per the contract.
    match unsafe { p_fd.as_mut() } {
        Some(out) => {
            *out = f.into_raw();
            vk::Result::SUCCESS
        }
        None => vk::Result::ERROR_INITIALIZATION_FAILED,
    }
}

unsafe extern "system" fn get_fence_fd(
    _device: vk::Device,
    p_info: *const vk::FenceGetFdInfoKHR<'_>,
    p_fd: *mut c_int,
) -> vk::Result {
    guard(
        "vkGetFenceFdKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: a valid input structure per valid usage.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
            };
            if info.handle_type != vk::ExternalFenceHandleTypeFlags::SYNC_FD {
                return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
            }
            // SAFETY: a live fence.
            let Some(f) = (unsafe { fence(info.fence) }) else {
                return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
            };
            match f.export() {
                // SAFETY: a valid output pointer per valid usage.
                Ok(fd) => unsafe { hand_out(fd, p_fd) },
                Err(e) => e,
            }
        },
    )
}

unsafe extern "system" fn import_fence_fd(
    _device: vk::Device,
    p_info: *const vk::ImportFenceFdInfoKHR<'_>,
) -> vk::Result {
    guard(
        "vkImportFenceFdKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: a valid input structure per valid usage.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
            };
            // SAFETY: a live fence.
            let target = unsafe { fence(info.fence) };
            let (Some(target), vk::ExternalFenceHandleTypeFlags::SYNC_FD) =
                (target, info.handle_type)
            else {
                // Not ours to take: the fd stays the application's.
                return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
            };
            // SAFETY: on success the fd is the driver's (the import transfers ownership); a closed
            // fd is refused without being taken.
            match unsafe { take_native_fence(info.fd) } {
                Ok(f) => {
                    target.import(f);
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    )
}

unsafe extern "system" fn get_semaphore_fd(
    _device: vk::Device,
    p_info: *const vk::SemaphoreGetFdInfoKHR<'_>,
    p_fd: *mut c_int,
) -> vk::Result {
    guard(
        "vkGetSemaphoreFdKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: a valid input structure per valid usage.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
            };
            // SAFETY: a live semaphore.
            let sem = unsafe { semaphore(info.semaphore) };
            let (Some(sem), vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD) =
                (sem, info.handle_type)
            else {
                return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
            };
            if sem.timeline {
                return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
            }
            // Copy transference: the export is a wait, so the payload moves to the caller.
            let payload = lock(&sem.pending)
                .take()
                .unwrap_or_else(NativeFence::signalled);
            // SAFETY: a valid output pointer per valid usage.
            unsafe { hand_out(payload, p_fd) }
        },
    )
}

unsafe extern "system" fn import_semaphore_fd(
    _device: vk::Device,
    p_info: *const vk::ImportSemaphoreFdInfoKHR<'_>,
) -> vk::Result {
    guard(
        "vkImportSemaphoreFdKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: a valid input structure per valid usage.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
            };
            // SAFETY: a live semaphore.
            let sem = unsafe { semaphore(info.semaphore) };
            let (Some(sem), vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD) =
                (sem, info.handle_type)
            else {
                return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
            };
            if sem.timeline {
                return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
            }
            // SAFETY: as for fences.
            match unsafe { take_native_fence(info.fd) } {
                Ok(f) => {
                    *lock(&sem.pending) = (!f.is_trivially_signalled()).then_some(f);
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    )
}

unsafe extern "system" fn external_fence_properties(
    _pd: vk::PhysicalDevice,
    p_info: *const vk::PhysicalDeviceExternalFenceInfo<'_>,
    p_props: *mut vk::ExternalFenceProperties<'_>,
) {
    guard(
        concat!(module_path!(), "::external_fence_properties"),
        (),
        || {
            // SAFETY: valid structures per valid usage.
            let (Some(info), Some(out)) = (unsafe { (p_info.as_ref(), p_props.as_mut()) }) else {
                return;
            };
            let sync_fd = vk::ExternalFenceHandleTypeFlags::SYNC_FD;
            let ours = info.handle_type == sync_fd;
            out.export_from_imported_handle_types = if ours { sync_fd } else { Default::default() };
            out.compatible_handle_types = out.export_from_imported_handle_types;
            out.external_fence_features = if ours {
                vk::ExternalFenceFeatureFlags::EXPORTABLE
                    | vk::ExternalFenceFeatureFlags::IMPORTABLE
            } else {
                Default::default()
            };
        },
    )
}

unsafe extern "system" fn external_semaphore_properties(
    _pd: vk::PhysicalDevice,
    p_info: *const vk::PhysicalDeviceExternalSemaphoreInfo<'_>,
    p_props: *mut vk::ExternalSemaphoreProperties<'_>,
) {
    guard(
        concat!(module_path!(), "::external_semaphore_properties"),
        (),
        || {
            // SAFETY: valid structures per valid usage.
            let (Some(info), Some(out)) = (unsafe { (p_info.as_ref(), p_props.as_mut()) }) else {
                return;
            };
            // SAFETY: a valid input chain.
            let timeline = unsafe {
                find_in_chain::<vk::SemaphoreTypeCreateInfo<'_>>(
                    info.p_next,
                    vk::StructureType::SEMAPHORE_TYPE_CREATE_INFO,
                )
            }
            .is_some_and(|t| t.semaphore_type == vk::SemaphoreType::TIMELINE);
            let sync_fd = vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD;
            let ours = info.handle_type == sync_fd && !timeline;
            out.export_from_imported_handle_types = if ours { sync_fd } else { Default::default() };
            out.compatible_handle_types = out.export_from_imported_handle_types;
            out.external_semaphore_features = if ours {
                vk::ExternalSemaphoreFeatureFlags::EXPORTABLE
                    | vk::ExternalSemaphoreFeatureFlags::IMPORTABLE
            } else {
                Default::default()
            };
        },
    )
}
