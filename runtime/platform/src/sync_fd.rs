//! Native fences: the file descriptors Android passes across the HAL to say "this buffer is ready".
//!
//! The contract (`vkAcquireImageANDROID`, `vkQueueSignalReleaseImageANDROID`, `queueBuffer`,
//! `cancelBuffer`) is: `-1` means already signalled; anything else is an fd the receiver owns and
//! must close, which becomes readable (`poll` reports `POLLIN`) once the work is done and stays
//! readable afterwards. A kernel `sync_file` behaves that way, and so does an eventfd that has been
//! written once, which is how the runtime makes fences itself on backends that cannot export
//! `SYNC_FD` (lavapipe). Because [`NativeFence`] only ever polls, both kinds work the same.

use std::os::fd::{AsFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use rustix::event::{eventfd, poll, EventfdFlags, PollFd, PollFlags, Timespec};
use rustix::io::Errno;

/// Why a fence operation failed.
#[derive(Debug, thiserror::Error)]
pub enum FenceError {
    #[error("poll on fence fd failed: {0}")]
    Poll(#[source] Errno),
    #[error("fence fd {fd} is in an error state (poll revents {revents:?})")]
    Broken { fd: RawFd, revents: PollFlags },
    #[error("creating the eventfd for a fence failed: {0}")]
    Create(#[source] Errno),
    #[error("signalling the fence eventfd failed: {0}")]
    Signal(#[source] Errno),
    #[error("duplicating the fence fd failed: {0}")]
    Dup(#[source] std::io::Error),
}

/// Result alias of this module.
pub type Result<T, E = FenceError> = std::result::Result<T, E>;

/// A failed fence operation as a `VkResult`, the one mapper of the sync-fd source; logged here
/// with `what` (the operation that failed):
///
/// * `VK_ERROR_OUT_OF_HOST_MEMORY`: creating or duplicating a fence fd failed (descriptors or
///   memory exhausted, or any other cause), or a poll ran out of memory;
/// * `VK_ERROR_DEVICE_LOST`: any other poll failure, a fence fd in an error state, or a failed
///   signal: such a fence can never signal.
pub fn map_fence_err(what: &str, err: &FenceError) -> ash::vk::Result {
    use ash::vk::Result as R;
    let oom = |errno: &Errno| {
        matches!(
            *errno,
            Errno::NOMEM | Errno::MFILE | Errno::NFILE | Errno::NOBUFS
        )
    };
    let result = match err {
        FenceError::Create(_) | FenceError::Dup(_) => R::ERROR_OUT_OF_HOST_MEMORY,
        FenceError::Poll(errno) if oom(errno) => R::ERROR_OUT_OF_HOST_MEMORY,
        FenceError::Poll(_) | FenceError::Broken { .. } | FenceError::Signal(_) => {
            R::ERROR_DEVICE_LOST
        }
    };
    log::log!(vkgen_abi::error::level(result), "{result:?}: {what}: {err}");
    result
}

/// A native fence: either nothing (already signalled, `-1` on the wire) or an owned pollable fd.
///
/// Dropping it closes the fd, which is what the HAL contract asks of whoever received it.
#[derive(Debug, Default)]
pub struct NativeFence {
    fd: Option<OwnedFd>,
}

impl NativeFence {
    /// The already-signalled fence (`-1`).
    pub const fn signalled() -> Self {
        Self { fd: None }
    }

    /// Takes ownership of a pollable fd (a `sync_file`, an eventfd, …).
    pub fn from_fd(fd: OwnedFd) -> Self {
        Self { fd: Some(fd) }
    }

    /// Takes ownership of a raw fd received over the HAL. Any negative value is the signalled
    /// fence: AOSP tests `fd >= 0` rather than `fd == -1`, so do we.
    ///
    /// # Safety
    /// If `fd >= 0` it must be an open descriptor that the caller owns and hands over; nothing
    /// else may close it afterwards.
    pub unsafe fn from_raw(fd: RawFd) -> Self {
        if fd < 0 {
            Self::signalled()
        } else {
            // SAFETY: the caller transfers ownership of an open fd.
            Self::from_fd(unsafe { OwnedFd::from_raw_fd(fd) })
        }
    }

    /// Gives up ownership for passing over the HAL: `-1` for the signalled fence.
    pub fn into_raw(self) -> RawFd {
        self.fd.map_or(-1, IntoRawFd::into_raw_fd)
    }

    /// The fd, or `None` for the signalled fence.
    pub fn as_fd(&self) -> Option<BorrowedFd<'_>> {
        self.fd.as_ref().map(AsFd::as_fd)
    }

    /// Gives up the fd as an `OwnedFd`; `None` for the signalled fence.
    pub fn into_fd(self) -> Option<OwnedFd> {
        self.fd
    }

    /// Whether this is the trivially signalled fence (no fd at all).
    pub fn is_trivially_signalled(&self) -> bool {
        self.fd.is_none()
    }

    /// Non-blocking check.
    pub fn is_signalled(&self) -> Result<bool> {
        self.wait(Some(Duration::ZERO))
    }

    /// Waits until the fence signals (`Ok(true)`) or `timeout` passes (`Ok(false)`); `None`
    /// waits forever. Interrupted polls are restarted with the remaining time.
    pub fn wait(&self, timeout: Option<Duration>) -> Result<bool> {
        match self.as_fd() {
            None => Ok(true),
            Some(fd) => wait_fds(&[fd], timeout),
        }
    }

    /// A second handle to the same fence (`F_DUPFD_CLOEXEC`), e.g. to keep one while passing the
    /// other over the HAL.
    pub fn try_clone(&self) -> Result<Self> {
        match &self.fd {
            None => Ok(Self::signalled()),
            Some(fd) => Ok(Self::from_fd(fd.try_clone().map_err(FenceError::Dup)?)),
        }
    }
}

/// Converts a Vulkan timeout in nanoseconds (`UINT64_MAX` = forever) to [`NativeFence::wait`]'s.
pub fn timeout_from_vk_ns(ns: u64) -> Option<Duration> {
    (ns != u64::MAX).then(|| Duration::from_nanos(ns))
}

/// Waits for all `fences` (the effect of waiting on a `sync_merge` of them) with one overall
/// timeout. Returns `Ok(false)` if the timeout passes first.
pub fn wait_all<'a, I>(fences: I, timeout: Option<Duration>) -> Result<bool>
where
    I: IntoIterator<Item = &'a NativeFence>,
{
    let fds: Vec<BorrowedFd<'_>> = fences.into_iter().filter_map(NativeFence::as_fd).collect();
    wait_fds(&fds, timeout)
}

/// Polls `fds` until every one is readable, dropping the ready ones from the set between polls.
fn wait_fds(fds: &[BorrowedFd<'_>], timeout: Option<Duration>) -> Result<bool> {
    // `None` also when `now + timeout` overflows: such a deadline is indistinguishable from never.
    let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
    let mut pending: Vec<BorrowedFd<'_>> = fds.to_vec();
    while !pending.is_empty() {
        let remaining = match (timeout, deadline) {
            (None, _) | (Some(_), None) => None,
            (Some(_), Some(d)) => Some(d.saturating_duration_since(Instant::now())),
        };
        let ts = remaining.map(duration_to_timespec);
        let mut pfds: Vec<PollFd<'_>> = pending
            .iter()
            .map(|fd| PollFd::new(fd, PollFlags::IN))
            .collect();
        match poll(&mut pfds, ts.as_ref()) {
            Ok(_) => {}
            Err(Errno::INTR) => continue,
            Err(e) => return Err(FenceError::Poll(e)),
        }
        let mut still = Vec::with_capacity(pending.len());
        for (fd, pfd) in pending.iter().zip(&pfds) {
            let rev = pfd.revents();
            // libsync's sync_wait treats ERR/NVAL as failure even when IN is also set. HUP
            // without IN (a pipe whose writer is gone) can never become readable, and polling it
            // again would return at once: a busy loop, so it is an error too.
            let hung_up = rev.contains(PollFlags::HUP) && !rev.contains(PollFlags::IN);
            if hung_up || rev.intersects(PollFlags::ERR | PollFlags::NVAL) {
                return Err(FenceError::Broken {
                    fd: rustix::fd::AsRawFd::as_raw_fd(fd),
                    revents: rev,
                });
            }
            if !rev.contains(PollFlags::IN) {
                still.push(*fd);
            }
        }
        if !still.is_empty() && remaining == Some(Duration::ZERO) {
            return Ok(false);
        }
        pending = still;
    }
    Ok(true)
}

fn duration_to_timespec(d: Duration) -> Timespec {
    // Only seconds beyond i64::MAX fail to convert; ~292 billion years is "forever" either way.
    Timespec::try_from(d).unwrap_or(Timespec {
        tv_sec: i64::MAX,
        tv_nsec: 0,
    })
}

/// A fence the runtime signals itself, backed by an eventfd.
///
/// Hand [`FenceSignaller::fence`] to the other side and call [`FenceSignaller::signal`] when the
/// host work completes. Every dup shares the eventfd's counter, and since nobody reads the counter
/// it stays non-zero, so all copies remain readable forever, as a signalled `sync_file` does.
#[derive(Debug)]
pub struct FenceSignaller {
    fd: OwnedFd,
}

impl FenceSignaller {
    /// A new, unsignalled fence.
    pub fn new() -> Result<Self> {
        // NONBLOCK so `signal` can never block (a write only blocks when the counter would
        // overflow, and then the fence is readable anyway).
        let fd = eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)
            .map_err(FenceError::Create)?;
        Ok(Self { fd })
    }

    /// Signals the fence; signalling twice is harmless.
    pub fn signal(&self) -> Result<()> {
        loop {
            match rustix::io::write(&self.fd, &1u64.to_ne_bytes()) {
                Ok(_) => return Ok(()),
                Err(Errno::INTR) => continue,
                // The counter is saturated, so the fd is already readable.
                Err(Errno::AGAIN) => return Ok(()),
                Err(e) => return Err(FenceError::Signal(e)),
            }
        }
    }

    /// A dup'ed pollable fd for the other side (`F_DUPFD_CLOEXEC`).
    pub fn fd(&self) -> Result<OwnedFd> {
        self.fd.try_clone().map_err(FenceError::Dup)
    }

    /// [`FenceSignaller::fd`] wrapped as a [`NativeFence`].
    pub fn fence(&self) -> Result<NativeFence> {
        self.fd().map(NativeFence::from_fd)
    }

    /// Whether [`FenceSignaller::signal`] has been called.
    pub fn is_signalled(&self) -> Result<bool> {
        wait_fds(&[self.fd.as_fd()], Some(Duration::ZERO))
    }
}

/// Whether `fd` is something a `SYNC_FD` import may take: a kernel sync file, or an eventfd
/// (the runtime's own native fences, what the drivers export where the device cannot). Regular
/// files, pipes, sockets, devices and closed fds are not: a driver that polled one of those as a
/// fence would see a "signalled" payload that means nothing (issue 36).
pub fn is_fence_fd(fd: RawFd) -> bool {
    use std::os::unix::ffi::OsStrExt;
    if fd < 0 {
        return false;
    }
    // The kernel names both kinds' anonymous inodes; the link is the cheap, exact test.
    if let Ok(target) = std::fs::read_link(format!("/proc/self/fd/{fd}")) {
        let target = target.as_os_str().as_bytes();
        return target == b"anon_inode:sync_file" || target == b"anon_inode:[eventfd]";
    }
    // Without /proc: anything but a file, directory, pipe, socket or device node.
    // SAFETY: only inspected for the call; an fd that is not open is reported as EBADF.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    rustix::fs::fstat(borrowed).is_ok_and(|st| {
        use rustix::fs::FileType as T;
        !matches!(
            T::from_raw_mode(st.st_mode),
            T::RegularFile
                | T::Directory
                | T::Fifo
                | T::Socket
                | T::BlockDevice
                | T::CharacterDevice
                | T::Symlink
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread;

    #[test]
    fn minus_one_is_signalled_and_round_trips() {
        // SAFETY: negative values carry no fd.
        let f = unsafe { NativeFence::from_raw(-1) };
        assert!(f.is_trivially_signalled());
        assert!(f.is_signalled().unwrap());
        assert!(f.wait(None).unwrap());
        assert_eq!(f.into_raw(), -1);
        // SAFETY: negative values carry no fd; -2 must not be mistaken for a descriptor.
        let g = unsafe { NativeFence::from_raw(-2) };
        assert_eq!(g.into_raw(), -1);
        assert_eq!(NativeFence::signalled().try_clone().unwrap().into_raw(), -1);
    }

    #[test]
    fn only_eventfds_and_sync_files_are_fence_fds() {
        use std::os::fd::AsRawFd;
        let fence = FenceSignaller::new().unwrap().fd().unwrap();
        assert!(is_fence_fd(fence.as_raw_fd()));
        let file = std::fs::File::open("/proc/self/status").unwrap();
        assert!(!is_fence_fd(file.as_raw_fd()));
        let (r, w) = rustix::pipe::pipe().unwrap();
        assert!(!is_fence_fd(r.as_raw_fd()) && !is_fence_fd(w.as_raw_fd()));
        assert!(!is_fence_fd(-1));
        assert!(!is_fence_fd(1_000_000), "not open");
    }

    #[test]
    fn eventfd_fence_poll_semantics() {
        let s = FenceSignaller::new().unwrap();
        let f = s.fence().unwrap();
        assert!(!f.is_signalled().unwrap(), "readable before signal");
        assert!(!f.wait(Some(Duration::from_millis(20))).unwrap());
        assert!(!s.is_signalled().unwrap());
        s.signal().unwrap();
        assert!(f.is_signalled().unwrap(), "readable after signal");
        // Stays readable: polling does not consume, a second dup sees it too, and signalling
        // again changes nothing.
        assert!(f.wait(Some(Duration::ZERO)).unwrap());
        let g = f.try_clone().unwrap();
        assert!(g.wait(None).unwrap());
        s.signal().unwrap();
        assert!(f.is_signalled().unwrap() && s.is_signalled().unwrap());
        // A fence created after signalling is signalled too.
        assert!(s.fence().unwrap().is_signalled().unwrap());
    }

    #[test]
    fn raw_round_trip_keeps_the_fence() {
        let s = FenceSignaller::new().unwrap();
        let raw = s.fence().unwrap().into_raw();
        assert!(raw >= 0);
        // SAFETY: `raw` came from `into_raw` just above and is owned by nobody else.
        let f = unsafe { NativeFence::from_raw(raw) };
        assert!(!f.is_signalled().unwrap());
        s.signal().unwrap();
        assert!(f.is_signalled().unwrap());
    }

    #[test]
    fn wait_wakes_up_when_signalled_from_another_thread() {
        let s = FenceSignaller::new().unwrap();
        let f = s.fence().unwrap();
        let t = thread::spawn(move || {
            thread::sleep(Duration::from_millis(30));
            s.signal().unwrap();
        });
        let start = Instant::now();
        assert!(f.wait(Some(Duration::from_secs(10))).unwrap());
        assert!(start.elapsed() < Duration::from_secs(5));
        t.join().unwrap();
    }

    #[test]
    fn wait_all_needs_every_fence() {
        let a = FenceSignaller::new().unwrap();
        let b = FenceSignaller::new().unwrap();
        let fences = [
            a.fence().unwrap(),
            NativeFence::signalled(),
            b.fence().unwrap(),
        ];
        assert!(!wait_all(&fences, Some(Duration::ZERO)).unwrap());
        a.signal().unwrap();
        assert!(!wait_all(&fences, Some(Duration::from_millis(10))).unwrap());
        b.signal().unwrap();
        assert!(wait_all(&fences, Some(Duration::ZERO)).unwrap());
        assert!(wait_all(&fences, None).unwrap());
        assert!(wait_all(&[], Some(Duration::ZERO)).unwrap());
    }

    #[test]
    fn timeout_is_respected() {
        let s = FenceSignaller::new().unwrap();
        let f = s.fence().unwrap();
        let start = Instant::now();
        assert!(!f.wait(Some(Duration::from_millis(50))).unwrap());
        assert!(start.elapsed() >= Duration::from_millis(50));
        // A timeout too large for Instant behaves as "forever" rather than panicking.
        s.signal().unwrap();
        assert!(f.wait(Some(Duration::MAX)).unwrap());
    }

    #[test]
    fn error_state_fd_is_reported() {
        // The write end of a pipe whose read end is gone polls as POLLERR.
        let (r, w) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).unwrap();
        drop(r);
        let f = NativeFence::from_fd(w);
        assert!(matches!(
            f.wait(Some(Duration::ZERO)),
            Err(FenceError::Broken { .. })
        ));
    }

    #[test]
    fn hung_up_fd_fails_instead_of_spinning() {
        let (r, w) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).unwrap();
        drop(w);
        let f = NativeFence::from_fd(r);
        assert!(matches!(f.wait(None), Err(FenceError::Broken { .. })));
    }

    #[test]
    fn vk_timeouts() {
        assert_eq!(timeout_from_vk_ns(u64::MAX), None);
        assert_eq!(timeout_from_vk_ns(5), Some(Duration::from_nanos(5)));
    }
}
