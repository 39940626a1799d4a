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

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::api::Kit;
use super::objects::{Device, Queue};
use super::sync::payload::{wait_until, Payload, FD_POLL, NOTIFIER};
use super::sync::{fence, semaphore, FenceCore, SemaphoreCore, WaitPoint};
use crate::sync_fd::{FenceSignaller, NativeFence};
use crate::util::{fence_error_result, guard, lock, slice};

mod sparse;
pub mod worker;

pub use worker::Worker;

/// One batch of a `vkQueueSubmit2`, as the vendor's [`Kit::driver_submit`] gets it.
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
enum Signal {
    Semaphore(Arc<SemaphoreCore>, u64),
    Fence(Arc<FenceCore>),
    /// A sync file handed out by `vkQueueSignalReleaseImageANDROID`.
    Native(FenceSignaller),
}

impl Signal {
    fn complete(self, failed: bool) {
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
struct Submission {
    waits: Vec<WaitPoint>,
    batch: Batch,
    signals: Vec<Signal>,
}

impl Submission {
    /// Whether every wait is satisfied; `polls` is set when one is not and cannot notify.
    fn ready(&self, polls: &mut bool) -> Result<bool, vk::Result> {
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
struct QueueState {
    /// Batches waiting for their waits (or for an earlier batch), in submission order.
    queued: VecDeque<Submission>,
    /// A batch is being handed to the vendor (by the submit thread or a submitting thread).
    busy: bool,
    submitted: u64,
    completed: u64,
    /// A batch failed: the queue (and, for `vkDeviceWaitIdle`, the device) is lost.
    lost: bool,
    shutdown: bool,
    /// Completions waiting on a vendor payload ([`Completion::after`]).
    hardware: Vec<(WaitPoint, Completion)>,
    /// Whether the thread watching `hardware` runs.
    watching: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<QueueState>,
}

/// The kit's state of one queue (a field of [`Queue`]).
#[derive(Default)]
pub struct QueueCore {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl QueueCore {
    /// Stops the submit thread (dropping the batches it still holds) and waits for it.
    pub(super) fn shutdown(&self) {
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

struct CompletionInner {
    queue: Arc<Shared>,
    signals: Vec<Signal>,
    failed: Mutex<Option<vk::Result>>,
}

/// The end of one batch's work, which the vendor signals: the batch completes when the last
/// handle to it is dropped (see the [module docs](self)).
pub struct Completion(Arc<CompletionInner>);

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
fn watch(queue: &Shared) {
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

/// `*const Queue<D>` for the submit thread, which the queue outlives (it joins the thread
/// before it goes).
struct QueuePtr<D: Kit>(*const Queue<D>);

// SAFETY: `Queue<D>` is `Sync` (its vendor data is `Send + Sync` by the `Kit` bounds), so a
// shared reference may cross threads; the pointer is only dereferenced while the queue lives.
unsafe impl<D: Kit> Send for QueuePtr<D> {}

/// Hands `sub` to the vendor (or fails it with `error`, the failure of one of its waits).
fn execute<D: Kit>(queue: &Queue<D>, sub: Submission, error: Option<vk::Result>) {
    let completion = Completion(Arc::new(CompletionInner {
        queue: Arc::clone(&queue.core.shared),
        signals: sub.signals,
        failed: Mutex::new(None),
    }));
    if let Some(e) = error {
        completion.fail(e);
        return;
    }
    let ours = Completion(Arc::clone(&completion.0));
    let batch = sub.batch;
    match catch_unwind(AssertUnwindSafe(|| {
        D::driver_submit(queue, &batch, completion)
    })) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => ours.fail(e),
        Err(_) => ours.fail(vkgen_abi::vk_error!(
            vk::Result::ERROR_DEVICE_LOST,
            "the vendor's driver_submit panicked"
        )),
    }
}

/// The submit thread of `queue`: hands over the front batch whenever its waits resolve.
fn submit_thread<D: Kit>(queue: &Queue<D>) {
    let shared = &queue.core.shared;
    loop {
        let seen = NOTIFIER.generation();
        let mut polls = false;
        let next = {
            let mut st = lock(&shared.state);
            if st.shutdown {
                return;
            }
            let verdict = st.queued.front().map(|s| s.ready(&mut polls));
            match verdict {
                Some(Ok(true)) => st.queued.pop_front().map(|s| (s, None)),
                Some(Err(e)) => st.queued.pop_front().map(|s| (s, Some(e))),
                Some(Ok(false)) | None => None,
            }
            .inspect(|_| st.busy = true)
        };
        match next {
            Some((sub, error)) => {
                execute(queue, sub, error);
                lock(&shared.state).busy = false;
            }
            None => NOTIFIER.wait(seen, polls.then_some(FD_POLL)),
        }
    }
}

/// Starts the submit thread of `queue` if it does not run.
fn ensure_thread<D: Kit>(queue: &Queue<D>) -> Result<(), vk::Result> {
    let mut t = lock(&queue.core.thread);
    if t.is_some() {
        return Ok(());
    }
    let ptr = QueuePtr(std::ptr::from_ref(queue));
    let spawned = std::thread::Builder::new()
        .name("vkgen-queue".into())
        .spawn(move || {
            let ptr = ptr;
            // SAFETY: the queue joins this thread (`QueueCore::shutdown`) before it is freed,
            // so the pointer stays valid for the thread's whole life.
            let queue = unsafe { &*ptr.0 };
            guard("vkgen queue submit thread", (), || submit_thread(queue));
        });
    match spawned {
        Ok(h) => {
            *t = Some(h);
            Ok(())
        }
        Err(e) => Err(vkgen_abi::error::map_io_err(
            "starting a queue's submit thread",
            &e,
            vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        )),
    }
}

/// Accepts `sub` on `queue`: hands it over at once when nothing is held and its waits are
/// satisfied, else queues it for the submit thread.
fn enqueue<D: Kit>(queue: &Queue<D>, sub: Submission) -> Result<(), vk::Result> {
    let shared = &queue.core.shared;
    let mut st = lock(&shared.state);
    st.submitted += 1;
    if st.queued.is_empty() && !st.busy {
        let verdict = sub.ready(&mut false);
        if !matches!(verdict, Ok(false)) {
            st.busy = true;
            drop(st);
            execute(queue, sub, verdict.err());
            lock(&shared.state).busy = false;
            NOTIFIER.notify();
            return Ok(());
        }
    }
    st.queued.push_back(sub);
    drop(st);
    if let Err(e) = ensure_thread(queue) {
        // Nobody would run it: take it back so that idle waits do not wait for it.
        let mut st = lock(&shared.state);
        st.queued.pop_back();
        st.submitted -= 1;
        return Err(e);
    }
    NOTIFIER.notify();
    Ok(())
}

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
