//! The one waiter thread of a device that emulates `SYNC_FD` ([`super::sync_fd`]): it polls
//! every imported fd at once (and a wake-up eventfd) and signals each import's gate when its fd
//! fires, and signals each exported eventfd once the device's tracker reaches the export's
//! value. One thread per device however many imports and exports are pending (issue 25: 4,000
//! imports once made 4,000 threads).
//!
//! The thread starts with the first job and stops when the device shuts down, firing what is
//! still pending (gates are signalled, exports signalled) so that nothing waits on a device
//! that is gone.

use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use rustix::event::{eventfd, poll, EventfdFlags, PollFd, PollFlags, Timespec};
use rustix::io::Errno;
use vkgen_generated::vk;

use crate::sync_fd::FenceSignaller;
use crate::util::lock;

/// What the waiter thread does for one import or export.
pub(super) enum Job {
    /// Once `fd` is readable (or broken), signal `gate` at `value` and return it to the pool.
    Import {
        fd: OwnedFd,
        gate: vk::Semaphore,
        value: u64,
    },
    /// Once the tracker reaches `value`, signal `signaller`.
    Export {
        value: u64,
        signaller: FenceSignaller,
    },
}

/// The host commands and objects the thread uses.
#[derive(Clone)]
pub(super) struct HostSide {
    pub device: vk::Device,
    pub signal: vk::PFN_vkSignalSemaphore,
    pub counter: vk::PFN_vkGetSemaphoreCounterValue,
    pub tracker: vk::Semaphore,
    pub gates: Arc<Mutex<Vec<(vk::Semaphore, u64)>>>,
}

/// A device's waiter (see the module docs).
pub(super) struct Waiter {
    host: HostSide,
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

struct Shared {
    jobs: Mutex<Vec<Job>>,
    wake: OwnedFd,
    closing: AtomicBool,
}

/// How often pending exports are checked against the tracker (exports have no fd to poll).
const EXPORT_CHECK: Timespec = Timespec {
    tv_sec: 0,
    tv_nsec: 1_000_000,
};

impl Waiter {
    /// `None` when no eventfd can be made.
    pub(super) fn new(host: HostSide) -> Option<Self> {
        let wake = eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK).ok()?;
        Some(Self {
            host,
            shared: Arc::new(Shared {
                jobs: Mutex::new(Vec::new()),
                wake,
                closing: AtomicBool::new(false),
            }),
            thread: Mutex::new(None),
        })
    }

    /// Hands `job` to the thread (started on first use). On failure (no thread can be
    /// started, or the device is shutting down) the job comes back.
    pub(super) fn submit(&self, job: Job) -> Result<(), Job> {
        let mut thread = lock(&self.thread);
        if self.shared.closing.load(Ordering::Acquire) {
            return Err(job);
        }
        if thread.is_none() {
            let (host, shared) = (self.host.clone(), self.shared.clone());
            match std::thread::Builder::new()
                .name("vkgen-sync-fd".into())
                .spawn(move || run(&host, &shared))
            {
                Ok(h) => *thread = Some(h),
                Err(e) => {
                    log::warn!("no SYNC_FD waiter thread: {e}");
                    return Err(job);
                }
            }
        }
        lock(&self.shared.jobs).push(job);
        wake(&self.shared.wake);
        Ok(())
    }

    /// Fires everything pending and joins the thread.
    pub(super) fn shut_down(&self) {
        let mut thread = lock(&self.thread);
        self.shared.closing.store(true, Ordering::Release);
        wake(&self.shared.wake);
        if let Some(h) = thread.take() {
            if h.join().is_err() {
                log::error!("the SYNC_FD waiter panicked");
            }
        }
        // Jobs that never reached a thread.
        for job in std::mem::take(&mut *lock(&self.shared.jobs)) {
            fire(&self.host, job);
        }
    }
}

fn wake(fd: &OwnedFd) {
    let _ = rustix::io::write(fd, &1u64.to_ne_bytes());
}

/// Does what `job` waits for.
fn fire(host: &HostSide, job: Job) {
    match job {
        Job::Import { fd, gate, value } => {
            drop(fd);
            let info = vk::SemaphoreSignalInfo::default()
                .semaphore(gate)
                .value(value);
            // SAFETY: a gate of the live device (device destruction joins this thread first).
            if unsafe { (host.signal)(host.device, &info) } != vk::Result::SUCCESS {
                log::error!("signalling a SYNC_FD gate failed");
            }
            lock(&host.gates).push((gate, value));
        }
        Job::Export { signaller, .. } => {
            if let Err(e) = signaller.signal() {
                log::error!("signalling an exported SYNC_FD failed: {e}");
            }
        }
    }
}

/// The tracker's value (`u64::MAX` where the host cannot tell: nothing then waits forever).
fn tracker_value(host: &HostSide) -> u64 {
    let mut v = 0;
    // SAFETY: the device's tracker, a timeline semaphore of the live device.
    match unsafe { (host.counter)(host.device, host.tracker, &mut v) } {
        vk::Result::SUCCESS => v,
        _ => u64::MAX,
    }
}

/// The thread.
fn run(host: &HostSide, shared: &Shared) {
    let mut imports: Vec<Job> = Vec::new();
    let mut exports: Vec<Job> = Vec::new();
    loop {
        for job in std::mem::take(&mut *lock(&shared.jobs)) {
            match job {
                Job::Import { .. } => imports.push(job),
                Job::Export { .. } => exports.push(job),
            }
        }
        let closing = shared.closing.load(Ordering::Acquire);
        if closing {
            imports
                .drain(..)
                .chain(exports.drain(..))
                .for_each(|j| fire(host, j));
            return;
        }
        if !exports.is_empty() {
            let reached = tracker_value(host);
            let (done, left): (Vec<Job>, Vec<Job>) = exports
                .drain(..)
                .partition(|j| matches!(j, Job::Export { value, .. } if *value <= reached));
            exports = left;
            done.into_iter().for_each(|j| fire(host, j));
        }
        let ready = poll_imports(shared, &imports, !exports.is_empty());
        let mut kept = Vec::with_capacity(imports.len());
        for (job, ready) in imports.drain(..).zip(ready) {
            if ready {
                fire(host, job);
            } else {
                kept.push(job);
            }
        }
        imports = kept;
    }
}

/// Polls the wake-up fd and every import's fd (for a millisecond where exports are pending,
/// else until something happens); answers which imports are ready.
fn poll_imports(shared: &Shared, imports: &[Job], exports_pending: bool) -> Vec<bool> {
    let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(imports.len() + 1);
    fds.push(PollFd::new(&shared.wake, PollFlags::IN));
    for job in imports {
        if let Job::Import { fd, .. } = job {
            fds.push(PollFd::new(fd, PollFlags::IN));
        }
    }
    let timeout = exports_pending.then_some(&EXPORT_CHECK);
    match poll(&mut fds, timeout) {
        Ok(_) | Err(Errno::INTR) => {}
        Err(e) => {
            // Nothing can be waited for: every import fires rather than hang its waiters.
            log::error!("polling SYNC_FD imports failed: {e}");
            return vec![true; imports.len()];
        }
    }
    if !fds[0].revents().is_empty() {
        let mut buf = [0u8; 8];
        let _ = rustix::io::read(shared.wake.as_fd(), &mut buf);
    }
    // Readable, or broken (ERR, HUP, NVAL): a broken fd will never become readable.
    fds[1..].iter().map(|p| !p.revents().is_empty()).collect()
}
