//! `VkFence` and `VkSemaphore` of the sync component. Each handle owns an `Arc` of its state,
//! so a batch still pending when the application destroys the object (or the device) signals
//! state nobody reads instead of freed memory.

use std::ops::Deref;
use std::sync::{Arc, Mutex};

use vkgen_generated::vk;

use super::payload::{CpuPayload, Payload, NOTIFIER};
use crate::handles::{Object, ObjectKind};
use crate::sync_fd::{FenceSignaller, NativeFence};
use crate::util::{fence_error_result, lock};

#[derive(Default)]
struct FenceState {
    signalled: bool,
    /// The batch that was to signal the fence failed.
    lost: bool,
    /// A native fence whose firing signals this fence (acquire, or an imported sync file).
    pending: Option<NativeFence>,
    /// Eventfds exported while unsignalled: fired by [`FenceCore::signal`].
    exported: Vec<FenceSignaller>,
}

/// A fence's state, shared with the batches that signal it.
#[derive(Default)]
pub struct FenceCore {
    state: Mutex<FenceState>,
}

/// A `VkFence` of the sync component.
pub struct Fence(Arc<FenceCore>);

impl Fence {
    pub(super) fn new(signalled: bool) -> Self {
        Self(Arc::new(FenceCore {
            state: Mutex::new(FenceState {
                signalled,
                ..FenceState::default()
            }),
        }))
    }

    /// The shared state, for a batch that signals the fence when it completes.
    pub fn core(&self) -> Arc<FenceCore> {
        Arc::clone(&self.0)
    }
}

impl Deref for Fence {
    type Target = FenceCore;
    fn deref(&self) -> &FenceCore {
        &self.0
    }
}

impl FenceCore {
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
        drop(st);
        NOTIFIER.notify();
    }

    /// The batch that was to signal the fence failed: waits report the device lost.
    pub fn lose(&self) {
        lock(&self.state).lost = true;
        self.signal();
    }

    pub(super) fn reset(&self) {
        let mut st = lock(&self.state);
        st.signalled = false;
        st.pending = None;
    }

    /// Whether the fence is signalled, collecting a pending fd that has fired.
    pub fn poll(&self) -> Result<bool, vk::Result> {
        let mut st = lock(&self.state);
        if st.lost {
            return Err(vkgen_abi::vk_error!(
                vk::Result::ERROR_DEVICE_LOST,
                "the batch signalling this fence failed"
            ));
        }
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

    /// Whether the fence waits on a sync file (which does not notify: waiters poll it).
    pub(super) fn has_fd(&self) -> bool {
        lock(&self.state).pending.is_some()
    }

    /// The copy-transference export: the payload as a sync fd, then a reset.
    pub(super) fn export(&self) -> Result<NativeFence, vk::Result> {
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
    pub(super) fn import(&self, f: NativeFence) {
        let mut st = lock(&self.state);
        st.signalled = f.is_trivially_signalled();
        st.pending = (!st.signalled).then_some(f);
        drop(st);
        NOTIFIER.notify();
    }
}

impl Payload for FenceCore {
    fn reached(&self, _value: u64) -> Result<bool, vk::Result> {
        self.poll()
    }

    fn notifies(&self) -> bool {
        !self.has_fd()
    }
}

#[derive(Default)]
struct SignalState {
    /// Binary: signal operations submitted so far (the `n`-th raises the payload to `n`).
    /// Timeline: the highest value a submitted signal operation will set.
    submitted: u64,
    /// A temporarily imported sync file (or an acquire's native fence), which the next wait
    /// takes instead of the permanent payload (the spec's temporary import).
    temporary: Option<NativeFence>,
}

/// A semaphore's state, shared with the batches that wait on or signal it.
pub struct SemaphoreCore {
    pub timeline: bool,
    payload: Arc<CpuPayload>,
    signals: Mutex<SignalState>,
}

/// A `VkSemaphore` of the sync component.
pub struct Semaphore(Arc<SemaphoreCore>);

impl Semaphore {
    pub(super) fn new(timeline: bool, initial: u64) -> Self {
        Self(Arc::new(SemaphoreCore {
            timeline,
            payload: Arc::new(CpuPayload::new(if timeline { initial } else { 0 })),
            signals: Mutex::new(SignalState::default()),
        }))
    }

    /// The shared state, for a batch that waits on or signals the semaphore.
    pub fn core(&self) -> Arc<SemaphoreCore> {
        Arc::clone(&self.0)
    }
}

impl Deref for Semaphore {
    type Target = SemaphoreCore;
    fn deref(&self) -> &SemaphoreCore {
        &self.0
    }
}

/// A wait a batch has to see satisfied: a payload and the value it must reach.
pub type WaitPoint = (Arc<dyn Payload>, u64);

impl SemaphoreCore {
    /// What a queue wait submitted now waits for: a timeline value, the temporary payload of a
    /// binary semaphore, or else the last signal operation submitted before it.
    pub fn wait_point(&self, value: u64) -> WaitPoint {
        if self.timeline {
            return (self.payload.clone(), value);
        }
        let mut st = lock(&self.signals);
        match st.temporary.take() {
            Some(f) => (Arc::new(f), 0),
            None => (self.payload.clone(), st.submitted),
        }
    }

    /// Registers a signal operation submitted now: the value its completion signals.
    pub fn signal_point(&self, value: u64) -> u64 {
        let mut st = lock(&self.signals);
        st.submitted = if self.timeline {
            st.submitted.max(value)
        } else {
            st.submitted + 1
        };
        if self.timeline {
            value
        } else {
            st.submitted
        }
    }

    /// Whether a signal operation was submitted that has not completed yet (the semaphore's
    /// pending state).
    pub fn is_pending(&self) -> Result<bool, vk::Result> {
        let submitted = lock(&self.signals).submitted;
        Ok(self.payload.value()? < submitted)
    }

    /// Completes a signal operation (a batch's, or `vkSignalSemaphore`).
    pub fn signal(&self, point: u64) {
        self.payload.signal(point);
    }

    /// The signal operation at `point` failed: waiters report the device lost.
    pub fn lose(&self) {
        self.payload.lose();
    }

    /// The counter (timeline semaphores).
    pub fn value(&self) -> Result<u64, vk::Result> {
        self.payload.value()
    }

    /// Makes `f` the payload the next wait takes (temporary import, acquire).
    pub fn set_temporary(&self, f: NativeFence) {
        lock(&self.signals).temporary = Some(f);
        NOTIFIER.notify();
    }

    /// The copy-transference `SYNC_FD` export of a binary semaphore, which is a wait: the
    /// temporary payload, or a sync file that fires with the last signal operation submitted.
    pub(super) fn export(&self) -> Result<NativeFence, vk::Result> {
        let mut st = lock(&self.signals);
        match st.temporary.take() {
            Some(f) => Ok(f),
            None => self.payload.export_at(st.submitted),
        }
    }
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
    // SAFETY: the caller vouches that `h` is null or one of this component's live fences,
    // which is what the typed lookup (signature checked) needs.
    unsafe { Object::<Fence>::from_handle(h) }.map(|o| &**o)
}

/// The semaphore behind a handle of this component.
///
/// # Safety
/// `h` is null or a live semaphore of a driver using the component.
pub unsafe fn semaphore<'a>(h: vk::Semaphore) -> Option<&'a Semaphore> {
    // SAFETY: the caller vouches that `h` is null or one of this component's live
    // semaphores, which is what the typed lookup (signature checked) needs.
    unsafe { Object::<Semaphore>::from_handle(h) }.map(|o| &**o)
}

/// `NativeBuffers::signal_on_native_fence` over the component's objects: each copy becomes the
/// (temporary) payload of its object.
pub fn signal_on_native_fence(
    semaphore: vk::Semaphore,
    semaphore_fence: Option<NativeFence>,
    fence: vk::Fence,
    fence_fence: Option<NativeFence>,
) -> Result<(), vk::Result> {
    // SAFETY: `vkAcquireImageANDROID` passes null or live handles of this device.
    let (sem, fen) = unsafe { (self::semaphore(semaphore), self::fence(fence)) };
    if let (Some(s), Some(f)) = (sem, semaphore_fence) {
        s.set_temporary(f);
    }
    if let (Some(fen), Some(f)) = (fen, fence_fence) {
        fen.import(f);
    }
    Ok(())
}
