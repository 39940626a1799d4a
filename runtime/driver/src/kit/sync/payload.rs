//! What a sync object's state is made of (Mesa's `vk_sync` and its types): a [`Payload`] is a
//! point the kit can wait for. The kit's own is [`CpuPayload`], a 64-bit counter signalled on
//! the CPU (Mesa's `vk_sync_timeline` without the kernel); a sync file ([`NativeFence`]) is
//! another; a vendor's hardware sync (a DRM syncobj, a GPU fence) is a third, plugged in by
//! implementing the trait and handing it to [`super::super::queue::Completion::after`].
//!
//! Every CPU-side signal bumps one process-wide [`Notifier`], so any waiter — a host wait over
//! several objects, a queue's submit thread over its pending batches — sleeps on one condition
//! variable and re-checks on each change. Payloads that change without the kit (sync files,
//! hardware) are looked at again every [`FD_POLL`] while a waiter needs them.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use vkgen_generated::vk;

use crate::sync_fd::{FenceSignaller, NativeFence};
use crate::util::{fence_error_result, lock};

/// How often a waiter looks again at payloads that change without notifying (sync files,
/// hardware).
pub const FD_POLL: Duration = Duration::from_millis(1);

/// A point a queue or the host can wait for.
pub trait Payload: Send + Sync {
    /// Whether the payload reached `value` (binary payloads ignore it). An error means the
    /// work that was to signal it failed (`VK_ERROR_DEVICE_LOST`) or the payload cannot be
    /// read.
    fn reached(&self, value: u64) -> Result<bool, vk::Result>;

    /// Whether the payload signals through [`Notifier::notify`] (then waiters need not poll it).
    fn notifies(&self) -> bool {
        false
    }
}

/// A sync file: reached once its fd is readable.
impl Payload for NativeFence {
    fn reached(&self, _value: u64) -> Result<bool, vk::Result> {
        self.is_signalled().map_err(|e| {
            vkgen_abi::vk_error!(fence_error_result(&e), "polling a sync file failed: {e}")
        })
    }
}

/// The process-wide "something was signalled" generation counter.
pub struct Notifier {
    generation: Mutex<u64>,
    changed: Condvar,
}

/// The one notifier every CPU signal bumps.
pub static NOTIFIER: Notifier = Notifier {
    generation: Mutex::new(0),
    changed: Condvar::new(),
};

impl Notifier {
    /// The current generation: read it before checking a condition, then [`Notifier::wait`]
    /// with it, so that a signal between the check and the wait is not missed.
    pub fn generation(&self) -> u64 {
        *lock(&self.generation)
    }

    /// Wakes every waiter.
    pub fn notify(&self) {
        *lock(&self.generation) += 1;
        self.changed.notify_all();
    }

    /// Sleeps until the generation moves past `seen` or `timeout` passes (`None`: no limit).
    pub fn wait(&self, seen: u64, timeout: Option<Duration>) {
        let start = Instant::now();
        let mut g = lock(&self.generation);
        while *g == seen {
            match timeout {
                None => {
                    g = self
                        .changed
                        .wait(g)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                Some(t) => {
                    let left = t.saturating_sub(start.elapsed());
                    if left.is_zero() {
                        return;
                    }
                    g = self
                        .changed
                        .wait_timeout(g, left)
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .0;
                }
            }
        }
    }
}

/// The deadline of a Vulkan timeout in ns; `None` = forever.
pub fn deadline(timeout_ns: u64) -> Option<Instant> {
    if timeout_ns == u64::MAX {
        None
    } else {
        Instant::now().checked_add(Duration::from_nanos(timeout_ns))
    }
}

/// Blocks until `check` answers `Ok(true)` (→ `VK_SUCCESS`), fails (→ its error) or `deadline`
/// passes (→ `VK_TIMEOUT`). `check` also says, through its argument, whether it looked at a
/// payload that does not notify, so the wait polls only then.
pub fn wait_until(
    deadline: Option<Instant>,
    mut check: impl FnMut(&mut bool) -> Result<bool, vk::Result>,
) -> vk::Result {
    loop {
        let seen = NOTIFIER.generation();
        let mut polls = false;
        match check(&mut polls) {
            Ok(true) => return vk::Result::SUCCESS,
            Err(e) => return e,
            Ok(false) => {}
        }
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if left == Some(Duration::ZERO) {
            return vk::Result::TIMEOUT;
        }
        let step = if polls {
            Some(left.map_or(FD_POLL, |l| l.min(FD_POLL)))
        } else {
            left
        };
        NOTIFIER.wait(seen, step);
    }
}

#[derive(Default)]
struct CpuState {
    value: u64,
    /// The work that was to signal the payload failed: every wait reports the device lost.
    lost: bool,
    /// Sync files handed out for a value not yet reached: fired when it is.
    exported: Vec<(u64, FenceSignaller)>,
}

/// The kit's payload: a counter only ever raised, signalled on the CPU (by the kit when a batch
/// completes, or by `vkSignalSemaphore`). Binary semaphores use it too: their `n`-th signal
/// operation raises it to `n`, and a wait waits for the count of signals submitted before it
/// (Mesa's `vk_sync_binary`), which is what orders a binary semaphore across queues.
#[derive(Default)]
pub struct CpuPayload {
    state: Mutex<CpuState>,
}

impl CpuPayload {
    /// A payload at `value`.
    pub fn new(value: u64) -> Self {
        Self {
            state: Mutex::new(CpuState {
                value,
                ..CpuState::default()
            }),
        }
    }

    /// Raises the counter to `value` (never lowers it) and wakes the waiters.
    pub fn signal(&self, value: u64) {
        {
            let mut st = lock(&self.state);
            st.value = st.value.max(value);
            let now = st.value;
            st.exported.retain(|(at, s)| {
                if *at > now {
                    return true;
                }
                // A signaller that cannot be written is saturated (already readable) or broken,
                // and then its reader sees an error state: nothing better to do here.
                let _ = s.signal();
                false
            });
        }
        NOTIFIER.notify();
    }

    /// Marks the payload lost (the work that was to signal it failed) and wakes the waiters.
    pub fn lose(&self) {
        let mut st = lock(&self.state);
        st.lost = true;
        // Exported sync files fire so their readers stop waiting; the device-lost state is
        // what a Vulkan wait reports.
        for (_, s) in st.exported.drain(..) {
            let _ = s.signal();
        }
        drop(st);
        NOTIFIER.notify();
    }

    /// The counter, or `VK_ERROR_DEVICE_LOST` once lost.
    pub fn value(&self) -> Result<u64, vk::Result> {
        let st = lock(&self.state);
        if st.lost {
            return Err(vkgen_abi::vk_error!(
                vk::Result::ERROR_DEVICE_LOST,
                "the work signalling this payload failed"
            ));
        }
        Ok(st.value)
    }

    /// A sync file that fires once the counter reaches `value` (signalled at once if it has).
    pub fn export_at(&self, value: u64) -> Result<NativeFence, vk::Result> {
        let mut st = lock(&self.state);
        if st.value >= value || st.lost {
            return Ok(NativeFence::signalled());
        }
        let s = FenceSignaller::new().map_err(|e| fence_error_result(&e))?;
        let f = s.fence().map_err(|e| fence_error_result(&e))?;
        st.exported.push((value, s));
        Ok(f)
    }
}

impl Payload for CpuPayload {
    fn reached(&self, value: u64) -> Result<bool, vk::Result> {
        Ok(self.value()? >= value)
    }

    fn notifies(&self) -> bool {
        true
    }
}
