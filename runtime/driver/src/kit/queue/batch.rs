//! The queue core's data: the batches the vendor gets, the submissions the kit holds, the
//! per-queue state and the [`Completion`] handle. A leaf: the vendor-facing API names
//! [`Batch`] and [`Completion`] without depending on the submission machinery that calls it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use vkgen_generated::vk;

use crate::kit::sync::object::{semaphore, FenceCore, SemaphoreCore, WaitPoint};
use crate::kit::sync::payload::{Payload, FD_POLL, NOTIFIER};
use crate::sync_fd::{FenceSignaller, NativeFence};
use crate::util::{fence_error_result, lock};

/// One batch of a `vkQueueSubmit2`, as the vendor's
/// [`Kit::driver_submit`](crate::kit::Kit::driver_submit) gets it.
#[derive(Debug, Default, Clone)]
pub struct Batch {
    /// The command buffers, in submission order.
    pub command_buffers: Vec<vk::CommandBuffer>,
    /// `VkCommandBufferSubmitInfo::deviceMask` of each command buffer.
    pub device_masks: Vec<u32>,
    /// `VkSubmitInfo2::flags` (`PROTECTED`).
    pub flags: vk::SubmitFlags,
}

/// What a completed batch signals.
pub(super) enum Signal {
    Semaphore(Arc<SemaphoreCore>, u64),
    Fence(Arc<FenceCore>),
    /// A sync file handed out by `vkQueueSignalReleaseImageANDROID`.
    Native(FenceSignaller),
}

impl Signal {
    pub(super) fn complete(self, failed: bool) {
        match (self, failed) {
            (Signal::Semaphore(s, point), false) => s.signal(point),
            (Signal::Semaphore(s, _), true) => s.lose(),
            (Signal::Fence(f), false) => f.signal(),
            (Signal::Fence(f), true) => f.lose(),
            // A signaller that cannot be written is saturated (already readable) or broken;
            // either way its reader stops waiting, which is all a failure can tell it.
            (Signal::Native(s), _) => drop(s.signal()),
        }
    }
}

/// A batch held by the kit.
pub(super) struct Submission {
    pub(super) waits: Vec<WaitPoint>,
    pub(super) batch: Batch,
    pub(super) signals: Vec<Signal>,
}

impl Submission {
    /// Whether every wait is satisfied; `polls` is set when one is not and cannot notify.
    pub(super) fn ready(&self, polls: &mut bool) -> Result<bool, vk::Result> {
        let mut ready = true;
        for (payload, value) in &self.waits {
            if !payload.reached(*value)? {
                ready = false;
                *polls |= !payload.notifies();
            }
        }
        Ok(ready)
    }
}

#[derive(Default)]
pub(super) struct QueueState {
    /// Batches waiting for their waits (or for an earlier batch), in submission order.
    pub(super) queued: VecDeque<Submission>,
    /// A batch is being handed to the vendor (by the submit thread or a submitting thread).
    pub(super) busy: bool,
    pub(super) submitted: u64,
    pub(super) completed: u64,
    /// A batch failed: the queue (and, for `vkDeviceWaitIdle`, the device) is lost.
    pub(super) lost: bool,
    pub(super) shutdown: bool,
    /// Completions waiting on a vendor payload ([`Completion::after`]).
    pub(super) hardware: Vec<(WaitPoint, Completion)>,
    /// Whether the thread watching `hardware` runs.
    pub(super) watching: bool,
}

#[derive(Default)]
pub(super) struct Shared {
    pub(super) state: Mutex<QueueState>,
}

/// The kit's state of one queue (a field of [`Queue`](crate::kit::Queue)).
#[derive(Default)]
pub struct QueueCore {
    pub(super) shared: Arc<Shared>,
    pub(super) thread: Mutex<Option<JoinHandle<()>>>,
}

impl QueueCore {
    /// Stops the submit thread (dropping the batches it still holds) and waits for it.
    pub(crate) fn shutdown(&self) {
        lock(&self.shared.state).shutdown = true;
        NOTIFIER.notify();
        if let Some(t) = lock(&self.thread).take() {
            // A panic on the thread was already reported at its catch; nothing to add here.
            let _ = t.join();
        }
        let mut st = lock(&self.shared.state);
        st.queued.clear();
        // Completions still watched hold the queue's state: end them (as failed, the work is
        // abandoned) so that neither leaks.
        let abandoned: Vec<_> = st.hardware.drain(..).map(|(_, c)| c).collect();
        drop(st);
        for c in abandoned {
            c.fail(vk::Result::ERROR_DEVICE_LOST);
        }
    }

    /// Whether a batch of this queue failed.
    pub fn is_lost(&self) -> bool {
        lock(&self.shared.state).lost
    }
}

impl Drop for QueueCore {
    fn drop(&mut self) {
        self.shutdown();
    }
}

pub(super) struct CompletionInner {
    pub(super) queue: Arc<Shared>,
    pub(super) signals: Vec<Signal>,
    pub(super) failed: Mutex<Option<vk::Result>>,
}

/// The end of one batch's work, which the vendor signals: the batch completes when the last
/// handle to it is dropped (see the [queue core](crate::kit::queue)).
pub struct Completion(pub(super) Arc<CompletionInner>);

impl Completion {
    /// Marks the batch failed with `result` (its semaphores and fence become lost; waits on
    /// them, the queue and the device answer `VK_ERROR_DEVICE_LOST`). Completion still happens
    /// at the drop.
    pub fn fail(&self, result: vk::Result) {
        lock(&self.0.failed).get_or_insert(result);
    }

    /// Completes the batch once `payload` reaches `value`: a vendor's hardware sync (a
    /// syncobj, a GPU fence) plugged into the kit. A kit thread watches it.
    pub fn after(self, payload: Arc<dyn Payload>, value: u64) {
        let queue = Arc::clone(&self.0.queue);
        let mut st = lock(&queue.state);
        if st.shutdown {
            // The device is going: nobody will watch, and the work is abandoned.
            drop(st);
            self.fail(vk::Result::ERROR_DEVICE_LOST);
            return;
        }
        st.hardware.push(((payload, value), self));
        if st.watching {
            drop(st);
            NOTIFIER.notify();
            return;
        }
        st.watching = true;
        drop(st);
        let watcher = Arc::clone(&queue);
        if std::thread::Builder::new()
            .name("vkgen-completion".into())
            .spawn(move || watch(&watcher))
            .is_err()
        {
            // No thread: complete everything as failed rather than hang its waiters.
            let mut st = lock(&queue.state);
            st.watching = false;
            let failed: Vec<_> = st.hardware.drain(..).map(|(_, c)| c).collect();
            drop(st);
            for c in failed {
                c.fail(vkgen_abi::vk_error!(
                    vk::Result::ERROR_DEVICE_LOST,
                    "no thread to watch a hardware completion"
                ));
            }
        }
    }
}

impl Drop for CompletionInner {
    fn drop(&mut self) {
        let mut failed = lock(&self.failed).take();
        if failed.is_none() && std::thread::panicking() {
            failed = Some(vk::Result::ERROR_DEVICE_LOST);
        }
        if let Some(e) = failed {
            let _lost = vkgen_abi::vk_error!(
                vk::Result::ERROR_DEVICE_LOST,
                "the vendor's completion reported {e:?}: the queue is lost"
            );
        }
        for s in self.signals.drain(..) {
            s.complete(failed.is_some());
        }
        let mut st = lock(&self.queue.state);
        st.completed += 1;
        st.lost |= failed.is_some();
        drop(st);
        NOTIFIER.notify();
    }
}

/// The completion watcher: completes the hardware completions whose payloads were reached,
/// and ends when none is left.
pub(super) fn watch(queue: &Shared) {
    loop {
        let seen = NOTIFIER.generation();
        let mut done = Vec::new();
        let mut polls = false;
        {
            let mut st = lock(&queue.state);
            let mut i = 0;
            while i < st.hardware.len() {
                let ((payload, value), _) = &st.hardware[i];
                match payload.reached(*value) {
                    Ok(false) => {
                        polls |= !payload.notifies();
                        i += 1;
                    }
                    Ok(true) => done.push((st.hardware.swap_remove(i).1, None)),
                    Err(e) => done.push((st.hardware.swap_remove(i).1, Some(e))),
                }
            }
            if done.is_empty() && (st.hardware.is_empty() || st.shutdown) {
                st.watching = false;
                return;
            }
        }
        let progressed = !done.is_empty();
        for (c, e) in done {
            if let Some(e) = e {
                c.fail(e);
            }
        }
        if !progressed {
            NOTIFIER.wait(seen, polls.then_some(FD_POLL));
        }
    }
}

/// Every wait of a release as one payload.
struct AllOf(Vec<WaitPoint>);

impl Payload for AllOf {
    fn reached(&self, _value: u64) -> Result<bool, vk::Result> {
        for (payload, value) in &self.0 {
            if !payload.reached(*value)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn notifies(&self) -> bool {
        self.0.iter().all(|(p, _)| p.notifies())
    }
}

/// The completions of no queue (their counters are never read).
static DETACHED: std::sync::LazyLock<Arc<Shared>> = std::sync::LazyLock::new(Arc::default);

/// `NativeBuffers::release_native_fence` for a driver whose queues run no work of their own
/// (the null driver, whose hook also serves drivers in bring-up on it — so it takes no typed
/// queue): a sync file that fires once the semaphores in `wait` resolve, `-1` if they have.
pub fn release_after_waits(wait: &[vk::Semaphore]) -> Result<NativeFence, vk::Result> {
    let all = AllOf(
        wait.iter()
            // SAFETY: the HAL passes live semaphores of the sync component.
            .filter_map(|&s| unsafe { semaphore(s) }.map(|s| s.wait_point(0)))
            .collect(),
    );
    if all.reached(0)? {
        return Ok(NativeFence::signalled());
    }
    let signaller = FenceSignaller::new().map_err(|e| fence_error_result(&e))?;
    let fd = signaller.fence().map_err(|e| fence_error_result(&e))?;
    let completion = Completion(Arc::new(CompletionInner {
        queue: Arc::clone(&DETACHED),
        signals: vec![Signal::Native(signaller)],
        failed: Mutex::new(None),
    }));
    completion.after(Arc::new(all), 0);
    Ok(fd)
}
