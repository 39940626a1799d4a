//! A queue's worker thread ([`Worker`]): what a CPU driver's [`Kit::driver_submit`] hands its
//! batches to, so that the submitting thread returns at once and the work runs off it.
//!
//! * **Order**: one thread per worker (per queue, as the vendor's [`Kit::Queue`] data), started
//!   on the first batch; batches run in the order they were handed over, which is the queue's
//!   submission order because the queue core calls `driver_submit` in that order.
//! * **Completion**: each batch's [`Completion`] is dropped when its work returns, which
//!   completes the batch (its semaphores and fence signalled by the queue core).
//! * **Panics**: a work item that panics is caught on the thread: its Completion fails with
//!   `VK_ERROR_DEVICE_LOST` (so the queue core marks the queue lost, as for any failed batch)
//!   and the thread goes on with the next batch, whose own Completion still completes — the
//!   waiters of every batch are released, none hangs on a dead thread. Nothing unwinds into
//!   the kit or across the API.
//! * **No thread**: if the thread cannot be started, or is gone, the batch fails with
//!   `VK_ERROR_DEVICE_LOST` (logged) rather than being dropped silently.
//! * **Shutdown**: dropping the worker (with its queue, at `vkDestroyDevice`) closes the
//!   channel; the thread finishes what it was handed (valid usage leaves nothing pending at
//!   that point) and is joined, so nothing outlives the device.
//!
//! Design notes. A channel rather than a shared queue with a condition variable: the worker
//! owns nothing but the receiver, so closing the sender is the whole shutdown protocol. The
//! sender sits behind a mutex because `Kit::Queue` data is shared (`Sync`) and `driver_submit`
//! may be called from the submitting thread and the queue core's submit thread.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;
use std::thread::JoinHandle;

use vkgen_generated::vk;

use super::batch::{Batch, Completion};
use crate::kit::api::Kit;
use crate::kit::command::object::CommandBuffer;
use crate::util::lock;

type Work = Box<dyn FnOnce() + Send + 'static>;

struct Running {
    sender: Sender<(Work, Completion)>,
    thread: JoinHandle<()>,
}

/// A queue's worker thread (see the [module docs](self)). `Default` makes an idle worker,
/// so it can be a driver's [`Kit::Queue`] as it is.
#[derive(Default)]
pub struct Worker {
    running: Mutex<Option<Running>>,
}

impl Worker {
    /// Runs `work` on the worker thread after every batch handed over before it; the batch is
    /// complete when `work` returns (`done` dropped), failed if it panics.
    pub fn submit(&self, work: impl FnOnce() + Send + 'static, done: Completion) {
        let mut running = lock(&self.running);
        if running.is_none() {
            match start() {
                Ok(r) => *running = Some(r),
                Err(e) => {
                    done.fail(vkgen_abi::vk_error!(
                        vk::Result::ERROR_DEVICE_LOST,
                        "kit::queue::Worker: no worker thread ({e}): the batch is lost"
                    ));
                    return;
                }
            }
        }
        let Some(r) = running.as_ref() else { return };
        if let Err(lost) = r.sender.send((Box::new(work), done)) {
            let (_, done) = lost.0;
            done.fail(vkgen_abi::vk_error!(
                vk::Result::ERROR_DEVICE_LOST,
                "kit::queue::Worker: the worker thread is gone: the batch is lost"
            ));
        }
    }

    /// The common case of a CPU driver's [`Kit::driver_submit`]: runs `run` on each command
    /// buffer of `batch`, in order, on the worker thread (`|cb| cb.replay(&mut Engine)`, or
    /// `replay_tracked`). A handle that is no command buffer of driver `D` is skipped.
    pub fn replay<D: Kit>(
        &self,
        batch: &Batch,
        done: Completion,
        mut run: impl FnMut(&CommandBuffer<D>) + Send + 'static,
    ) {
        let command_buffers = batch.command_buffers.clone();
        self.submit(
            move || {
                for cb in command_buffers {
                    // SAFETY: a command buffer of a pending batch of this driver stays
                    // allocated until the batch completes (vkFreeCommandBuffers' valid usage),
                    // which is after this closure returns; `from_handle` checks its type.
                    if let Some(cb) = unsafe { CommandBuffer::<D>::from_handle(cb) } {
                        run(cb);
                    }
                }
            },
            done,
        );
    }

    /// Whether the worker thread was started (by a first batch).
    pub fn is_started(&self) -> bool {
        lock(&self.running).is_some()
    }
}

/// Starts a worker thread.
fn start() -> std::io::Result<Running> {
    let (sender, work) = channel::<(Work, Completion)>();
    let thread = std::thread::Builder::new()
        .name("vkgen-queue-worker".into())
        .spawn(move || {
            for (item, done) in work {
                if catch_unwind(AssertUnwindSafe(item)).is_err() {
                    // The panic hook reported the panic itself; the batch is what it cost.
                    done.fail(vkgen_abi::vk_error!(
                        vk::Result::ERROR_DEVICE_LOST,
                        "kit::queue::Worker: a batch panicked: the queue is lost"
                    ));
                }
            }
        })?;
    Ok(Running { sender, thread })
}

impl Drop for Worker {
    fn drop(&mut self) {
        let Some(Running { sender, thread }) = lock(&self.running).take() else {
            return;
        };
        drop(sender);
        // The worker's own thread cannot join itself (the last owner dropped inside a work
        // item): it ends by itself once the channel drains.
        if thread.thread().id() != std::thread::current().id() {
            // Panics were caught on the thread; a join error could only be one of those.
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use super::super::batch::{CompletionInner, Shared};
    use super::*;

    /// A completion of a queue state of its own.
    fn completion(queue: &Arc<Shared>) -> Completion {
        Completion(Arc::new(CompletionInner {
            queue: Arc::clone(queue),
            signals: Vec::new(),
            failed: Mutex::new(None),
        }))
    }

    /// Waits until `n` batches of `queue` completed.
    fn completed(queue: &Shared, n: u64) -> bool {
        let end = Instant::now() + Duration::from_secs(10);
        while Instant::now() < end {
            if lock(&queue.state).completed >= n {
                return true;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        false
    }

    #[test]
    fn batches_run_in_order_off_the_submitting_thread() {
        let queue = Arc::new(Shared::default());
        let w = Worker::default();
        assert!(!w.is_started(), "no thread before the first batch");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let caller = std::thread::current().id();
        for i in 0..50 {
            let seen = Arc::clone(&seen);
            w.submit(
                move || {
                    assert_ne!(std::thread::current().id(), caller);
                    lock(&seen).push(i);
                },
                completion(&queue),
            );
        }
        assert!(completed(&queue, 50));
        assert_eq!(*lock(&seen), (0..50).collect::<Vec<_>>());
        assert!(!lock(&queue.state).lost);
    }

    #[test]
    fn a_panicking_batch_fails_and_the_worker_goes_on() {
        let queue = Arc::new(Shared::default());
        let w = Worker::default();
        let ran = Arc::new(AtomicUsize::new(0));
        w.submit(|| panic!("a bad batch"), completion(&queue));
        let after = Arc::clone(&ran);
        w.submit(
            move || {
                after.fetch_add(1, Ordering::SeqCst);
            },
            completion(&queue),
        );
        assert!(completed(&queue, 2), "both batches complete");
        assert_eq!(ran.load(Ordering::SeqCst), 1, "the next batch ran");
        assert!(lock(&queue.state).lost, "the failed batch lost the queue");
    }

    #[test]
    fn dropping_the_worker_finishes_its_batches_and_joins() {
        let queue = Arc::new(Shared::default());
        let w = Worker::default();
        let ran = Arc::new(AtomicUsize::new(0));
        for _ in 0..3 {
            let ran = Arc::clone(&ran);
            w.submit(
                move || {
                    std::thread::sleep(Duration::from_millis(5));
                    ran.fetch_add(1, Ordering::SeqCst);
                },
                completion(&queue),
            );
        }
        drop(w);
        // Joined: every batch ran and completed before the drop returned.
        assert_eq!(ran.load(Ordering::SeqCst), 3);
        assert_eq!(lock(&queue.state).completed, 3);
        // Each completion's reference to the queue state is gone with it: nothing leaked.
        assert_eq!(Arc::strong_count(&queue), 1);
    }
}
