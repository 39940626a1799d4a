//! Handing held submissions to the vendor ([`Kit::driver_submit`]): on the submitting thread
//! when nothing is held back, else on the queue's submit thread, in submission order.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use vkgen_generated::vk;

use super::batch::{Completion, CompletionInner, Submission};
use crate::kit::api::Kit;
use crate::kit::objects::Queue;
use crate::kit::sync::payload::{FD_POLL, NOTIFIER};
use crate::util::{guard, lock};

/// `*const Queue<D>` for the submit thread, which the queue outlives (it joins the thread
/// before it goes).
pub(super) struct QueuePtr<D: Kit>(*const Queue<D>);

// SAFETY: `Queue<D>` is `Sync` (its vendor data is `Send + Sync` by the `Kit` bounds), so a
// shared reference may cross threads; the pointer is only dereferenced while the queue lives.
unsafe impl<D: Kit> Send for QueuePtr<D> {}

/// Hands `sub` to the vendor (or fails it with `error`, the failure of one of its waits).
pub(super) fn execute<D: Kit>(queue: &Queue<D>, sub: Submission, error: Option<vk::Result>) {
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
pub(super) fn submit_thread<D: Kit>(queue: &Queue<D>) {
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
pub(super) fn ensure_thread<D: Kit>(queue: &Queue<D>) -> Result<(), vk::Result> {
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
pub(super) fn enqueue<D: Kit>(queue: &Queue<D>, sub: Submission) -> Result<(), vk::Result> {
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
