//! The loader's only door to a window: the `ANativeWindow` C ABI (`system/window.h`), and the
//! native fence fds that travel with its buffers.
//!
//! [`Window`] holds a strong reference (`common.incRef`, like AOSP's `sp<ANativeWindow>`) and
//! wraps the function-pointer slots. The `native_window_*` helpers of `system/window.h` are
//! `static inline` C functions around the variadic `perform`; they are re-created here with
//! exactly the C argument types AOSP passes (`int` for enums and `bool`, `int64_t` for times,
//! `uint64_t` for usage and frame ids, `size_t` for counts, pointers for outputs), because a
//! window's `perform` reads its `va_list` with those types. Every call returns the window's
//! status: `0` (Android's `OK`) or a negative errno; a missing function pointer reads as
//! `-ENOSYS` (`INVALID_OPERATION`).
//!
//! [`Buffer`] is a strong reference to an `ANativeWindowBuffer` (`sp<ANativeWindowBuffer>`).
//!
//! Fence fds: `dequeueBuffer` hands the caller an fd (or -1) that the caller owns;
//! `queueBuffer` / `cancelBuffer` take ownership of the fd they are given, even when they fail.
//! Owned fds are [`OwnedFd`]s here, so every path closes them exactly once.

use std::ffi::{c_int, c_void};
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::ptr::NonNull;

use vkgen_abi::native_window::{self as nw, ANativeWindow, ANativeWindowBuffer};

/// Android's `OK`.
pub const OK: c_int = 0;
/// Android's `TIMED_OUT` (`-ETIMEDOUT`).
pub const TIMED_OUT: c_int = -libc::ETIMEDOUT;
/// Android's `INVALID_OPERATION` (`-ENOSYS`).
pub const INVALID_OPERATION: c_int = -libc::ENOSYS;

/// `android_native_rect_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NativeRect {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

/// A strong reference to an `ANativeWindow`.
#[derive(Debug)]
pub struct Window {
    ptr: NonNull<ANativeWindow>,
}

// SAFETY: `ANativeWindow` implementations are thread-safe (Android's `Surface` locks
// internally, and the ABI is used from any thread by EGL and Vulkan alike); the reference count
// is the window's own.
unsafe impl Send for Window {}
// SAFETY: see `Send`.
unsafe impl Sync for Window {}

/// Why a window pointer was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadWindow {
    Null,
    Magic(c_int),
}

impl Window {
    /// Takes a strong reference to the window at `ptr`.
    ///
    /// # Safety
    /// `ptr` must be null or point at a live `ANativeWindow` (readable header).
    pub unsafe fn retain(ptr: *mut ANativeWindow) -> Result<Self, BadWindow> {
        let ptr = NonNull::new(ptr).ok_or(BadWindow::Null)?;
        // SAFETY: `ptr` is non-null (checked above) and the caller guarantees it is a live
        // `ANativeWindow`, whose header is plain data readable by copy.
        let common = unsafe { (*ptr.as_ptr()).common };
        if common.magic != nw::ANDROID_NATIVE_WINDOW_MAGIC {
            return Err(BadWindow::Magic(common.magic));
        }
        if let Some(inc) = common.inc_ref {
            // SAFETY: the window's own refcount function on its base.
            unsafe { inc(std::ptr::addr_of_mut!((*ptr.as_ptr()).common)) };
        }
        Ok(Self { ptr })
    }

    /// The raw pointer (for logs and identity).
    pub fn as_ptr(&self) -> *mut ANativeWindow {
        self.ptr.as_ptr()
    }

    /// The window's function table (copied: the slots are plain function pointers).
    fn table(&self) -> ANativeWindow {
        // SAFETY: we hold a reference, so the window is live.
        unsafe { *self.ptr.as_ptr() }
    }

    /// `window->query(what)`: the value, or the window's negative status.
    pub fn query(&self, what: c_int) -> Result<c_int, c_int> {
        let Some(query) = self.table().query else {
            return Err(INVALID_OPERATION);
        };
        let mut value: c_int = 0;
        // SAFETY: the window's own function with itself and a valid out-pointer.
        let err = unsafe { query(self.as_ptr(), what, &mut value) };
        if err == OK {
            Ok(value)
        } else {
            Err(err)
        }
    }

    /// A `query` whose value must not be negative (AOSP's `err != OK || value < 0` checks).
    pub fn query_non_negative(&self, what: c_int) -> Result<u32, c_int> {
        let v = self.query(what)?;
        u32::try_from(v).map_err(|_| -libc::EINVAL)
    }

    /// The `perform` slot, or `Err(INVALID_OPERATION)`.
    fn perform_fn(&self) -> Result<nw::PfnPerform, c_int> {
        self.table().perform.ok_or(INVALID_OPERATION)
    }

    /// `perform(op, int)`: every `native_window_*` helper whose argument is an `int`, an enum
    /// or a `bool` (promoted to `int` in a variadic call).
    pub fn perform_int(&self, op: c_int, value: c_int) -> c_int {
        match self.perform_fn() {
            // SAFETY: the window's own function; `op` takes one int per system/window.h.
            Ok(perform) => unsafe { perform(self.as_ptr(), op, value) },
            Err(e) => e,
        }
    }

    /// `native_window_api_connect`.
    pub fn api_connect(&self, api: c_int) -> c_int {
        self.perform_int(nw::NATIVE_WINDOW_API_CONNECT, api)
    }

    /// `native_window_api_disconnect`.
    pub fn api_disconnect(&self, api: c_int) -> c_int {
        self.perform_int(nw::NATIVE_WINDOW_API_DISCONNECT, api)
    }

    /// `native_window_get_consumer_usage` (`uint64_t*`).
    pub fn consumer_usage(&self) -> Result<u64, c_int> {
        let perform = self.perform_fn()?;
        let mut usage: u64 = 0;
        // SAFETY: the op takes a `uint64_t*`, which outlives the call.
        let err = unsafe {
            perform(
                self.as_ptr(),
                nw::NATIVE_WINDOW_GET_CONSUMER_USAGE64,
                &mut usage as *mut u64,
            )
        };
        status_to(err, usage)
    }

    /// `native_window_set_usage` (`uint64_t`).
    pub fn set_usage(&self, usage: u64) -> c_int {
        match self.perform_fn() {
            // SAFETY: the op takes a `uint64_t`.
            Ok(perform) => unsafe { perform(self.as_ptr(), nw::NATIVE_WINDOW_SET_USAGE64, usage) },
            Err(e) => e,
        }
    }

    /// `native_window_set_buffer_count` (`size_t`).
    pub fn set_buffer_count(&self, count: usize) -> c_int {
        match self.perform_fn() {
            // SAFETY: the op takes a `size_t`.
            Ok(perform) => unsafe {
                perform(self.as_ptr(), nw::NATIVE_WINDOW_SET_BUFFER_COUNT, count)
            },
            Err(e) => e,
        }
    }

    /// `native_window_set_buffers_dimensions` (`int, int`).
    pub fn set_buffers_dimensions(&self, width: c_int, height: c_int) -> c_int {
        match self.perform_fn() {
            // SAFETY: the op takes two ints.
            Ok(perform) => unsafe {
                perform(
                    self.as_ptr(),
                    nw::NATIVE_WINDOW_SET_BUFFERS_DIMENSIONS,
                    width,
                    height,
                )
            },
            Err(e) => e,
        }
    }

    /// `perform(op, int64_t)`: `native_window_set_dequeue_timeout`,
    /// `native_window_set_buffers_timestamp`.
    pub fn perform_i64(&self, op: c_int, value: i64) -> c_int {
        match self.perform_fn() {
            // SAFETY: `op` takes one `int64_t` per system/window.h.
            Ok(perform) => unsafe { perform(self.as_ptr(), op, value) },
            Err(e) => e,
        }
    }

    /// `perform(op, T*)` for the getters that fill one value.
    fn perform_get<T: Default>(&self, op: c_int) -> Result<T, c_int> {
        let perform = self.perform_fn()?;
        let mut value = T::default();
        // SAFETY: `op` takes a single pointer to a `T`-sized output, which outlives the call.
        let err = unsafe { perform(self.as_ptr(), op, &mut value as *mut T) };
        status_to(err, value)
    }

    /// `native_window_get_refresh_cycle_duration` (`int64_t*`), in ns.
    pub fn refresh_cycle_duration(&self) -> Result<i64, c_int> {
        self.perform_get::<i64>(nw::NATIVE_WINDOW_GET_REFRESH_CYCLE_DURATION)
    }

    /// `native_window_get_next_frame_id` (`uint64_t*`).
    pub fn next_frame_id(&self) -> Result<u64, c_int> {
        self.perform_get::<u64>(nw::NATIVE_WINDOW_GET_NEXT_FRAME_ID)
    }

    /// `native_window_get_frame_timestamps`: the requested-present, render-complete (acquire),
    /// latch and display-present times of `frame_id` (the other five outputs are not asked
    /// for, as in AOSP's swapchain).
    pub fn frame_timestamps(&self, frame_id: u64) -> Result<FrameTimestamps, c_int> {
        let perform = self.perform_fn()?;
        let mut t = FrameTimestamps::default();
        let null = std::ptr::null_mut::<i64>();
        // SAFETY: the op takes a `uint64_t` and ten `int64_t*` (null = not wanted); the
        // outputs live on this frame.
        let err = unsafe {
            perform(
                self.as_ptr(),
                nw::NATIVE_WINDOW_GET_FRAME_TIMESTAMPS,
                frame_id,
                &mut t.desired_present as *mut i64,
                &mut t.render_complete as *mut i64,
                &mut t.composition_latch as *mut i64,
                null,
                null,
                null,
                &mut t.actual_present as *mut i64,
                null,
                null,
            )
        };
        status_to(err, t)
    }

    /// `native_window_set_surface_damage` (`const android_native_rect_t*, size_t`).
    pub fn set_surface_damage(&self, rects: &[NativeRect]) -> c_int {
        match self.perform_fn() {
            // SAFETY: the op takes a rect array and its length; the slice outlives the call.
            Ok(perform) => unsafe {
                perform(
                    self.as_ptr(),
                    nw::NATIVE_WINDOW_SET_SURFACE_DAMAGE,
                    rects.as_ptr(),
                    rects.len(),
                )
            },
            Err(e) => e,
        }
    }

    /// `perform(op, const void*)`: the HDR metadata setters.
    ///
    /// # Safety
    /// `value` must be what `op` expects, valid for the call.
    pub unsafe fn perform_ptr(&self, op: c_int, value: *const c_void) -> c_int {
        match self.perform_fn() {
            // SAFETY: `op` takes one pointer, valid for the call per the caller.
            Ok(perform) => unsafe { perform(self.as_ptr(), op, value) },
            Err(e) => e,
        }
    }

    /// `window->setSwapInterval`.
    pub fn set_swap_interval(&self, interval: c_int) -> c_int {
        match self.table().set_swap_interval {
            // SAFETY: the window's own function.
            Some(f) => unsafe { f(self.as_ptr(), interval) },
            None => INVALID_OPERATION,
        }
    }

    /// `window->dequeueBuffer`: a buffer (strong reference taken) and its acquire fence.
    pub fn dequeue_buffer(&self) -> Result<(Buffer, Option<OwnedFd>), c_int> {
        let Some(dequeue) = self.table().dequeue_buffer else {
            return Err(INVALID_OPERATION);
        };
        let mut buffer: *mut ANativeWindowBuffer = std::ptr::null_mut();
        let mut fd: c_int = -1;
        // SAFETY: the window's own function with valid out-pointers.
        let err = unsafe { dequeue(self.as_ptr(), &mut buffer, &mut fd) };
        // SAFETY: on success the window handed us `fd` (or -1); on failure it must not have,
        // but an fd written anyway is still ours to close.
        let fence = unsafe { take_fd(fd) };
        if err != OK {
            return Err(err);
        }
        // SAFETY: a buffer the window just dequeued is live.
        match unsafe { Buffer::retain(buffer) } {
            Some(b) => Ok((b, fence)),
            None => Err(-libc::EINVAL),
        }
    }

    /// `window->queueBuffer`: always consumes `fence`.
    pub fn queue_buffer(&self, buffer: &Buffer, fence: Option<OwnedFd>) -> c_int {
        self.buffer_op(self.table().queue_buffer, buffer, fence)
    }

    /// `window->cancelBuffer`: always consumes `fence`.
    pub fn cancel_buffer(&self, buffer: &Buffer, fence: Option<OwnedFd>) -> c_int {
        self.buffer_op(self.table().cancel_buffer, buffer, fence)
    }

    fn buffer_op(
        &self,
        op: Option<nw::PfnQueueBuffer>,
        buffer: &Buffer,
        fence: Option<OwnedFd>,
    ) -> c_int {
        let Some(op) = op else {
            // `fence` is dropped (closed) here: ownership passed to the "window" either way.
            return INVALID_OPERATION;
        };
        let fd = fence.map_or(-1, IntoRawFd::into_raw_fd);
        // SAFETY: the window's own function; it takes ownership of `fd`.
        unsafe { op(self.as_ptr(), buffer.as_ptr(), fd) }
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        // SAFETY: we hold a reference, so the header is live; `decRef` releases it.
        unsafe {
            let base = std::ptr::addr_of_mut!((*self.ptr.as_ptr()).common);
            if let Some(dec) = (*base).dec_ref {
                dec(base);
            }
        }
    }
}

/// The timestamps [`Window::frame_timestamps`] asks for (`NATIVE_WINDOW_TIMESTAMP_PENDING`
/// until known).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameTimestamps {
    pub desired_present: i64,
    pub render_complete: i64,
    pub composition_latch: i64,
    pub actual_present: i64,
}

impl Default for FrameTimestamps {
    fn default() -> Self {
        let p = nw::NATIVE_WINDOW_TIMESTAMP_PENDING;
        Self {
            desired_present: p,
            render_complete: p,
            composition_latch: p,
            actual_present: p,
        }
    }
}

fn status_to<T>(err: c_int, value: T) -> Result<T, c_int> {
    if err == OK {
        Ok(value)
    } else {
        Err(err)
    }
}

/// A strong reference to an `ANativeWindowBuffer`.
#[derive(Debug)]
pub struct Buffer {
    ptr: NonNull<ANativeWindowBuffer>,
}

// SAFETY: buffers are immutable descriptions plus a thread-safe refcount.
unsafe impl Send for Buffer {}
// SAFETY: see `Send`.
unsafe impl Sync for Buffer {}

impl Buffer {
    /// Takes a strong reference to `ptr`; `None` for null.
    ///
    /// # Safety
    /// `ptr` must be null or a live `ANativeWindowBuffer`.
    unsafe fn retain(ptr: *mut ANativeWindowBuffer) -> Option<Self> {
        let ptr = NonNull::new(ptr)?;
        // SAFETY: `ptr` is non-null (checked above) and the caller guarantees it is a live
        // `ANativeWindowBuffer`, so its `common` header and `inc_ref` hook are readable.
        unsafe {
            let base = std::ptr::addr_of_mut!((*ptr.as_ptr()).common);
            if let Some(inc) = (*base).inc_ref {
                inc(base);
            }
        }
        Some(Self { ptr })
    }

    /// The raw pointer (identity for matching dequeued buffers to slots).
    pub fn as_ptr(&self) -> *mut ANativeWindowBuffer {
        self.ptr.as_ptr()
    }

    /// The buffer's description (copied).
    pub fn desc(&self) -> ANativeWindowBuffer {
        // SAFETY: we hold a reference; the description is plain data.
        unsafe { *self.ptr.as_ptr() }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: we hold a reference; `decRef` releases it.
        unsafe {
            let base = std::ptr::addr_of_mut!((*self.ptr.as_ptr()).common);
            if let Some(dec) = (*base).dec_ref {
                dec(base);
            }
        }
    }
}

/// Takes ownership of a fence fd (`-1` and other negative values: no fence).
///
/// # Safety
/// `fd` must be negative or an open fd nobody else will close.
pub unsafe fn take_fd(fd: RawFd) -> Option<OwnedFd> {
    // SAFETY: `fd` is non-negative in this branch and the caller guarantees it is open and owned by
    // nobody else, so `OwnedFd` may close it.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `dup(fd)` (close-on-exec).
pub fn dup_fd(fd: &OwnedFd) -> std::io::Result<OwnedFd> {
    fd.try_clone()
}

/// Whether a fence fd has fired after waiting at most `timeout_ms` (`-1`: forever), like
/// libsync's `sync_wait` (which returns `ETIME` for "not yet").
pub fn sync_wait(fd: BorrowedFd<'_>, timeout_ms: c_int) -> std::io::Result<bool> {
    let mut pfd = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
        if n > 0 {
            if pfd.revents & (libc::POLLERR | libc::POLLNVAL) != 0 {
                return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
            }
            return Ok(true);
        }
        if n == 0 {
            return Ok(false);
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Human-readable status for logs.
pub fn strerror(err: c_int) -> String {
    format!("{} ({err})", std::io::Error::from_raw_os_error(-err))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_wait_on_an_eventfd() {
        // SAFETY: eventfd takes no pointers.
        let raw = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC) };
        assert!(raw >= 0);
        // SAFETY: a fresh fd we own.
        let fd = unsafe { take_fd(raw) }.unwrap();
        assert!(!sync_wait(fd.as_fd_ref(), 0).unwrap());
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64.
        let n = unsafe { libc::write(raw, (&one as *const u64).cast(), 8) };
        assert_eq!(n, 8);
        assert!(sync_wait(fd.as_fd_ref(), -1).unwrap());
        let dup = dup_fd(&fd).unwrap();
        assert_ne!(dup.as_raw_fd(), fd.as_raw_fd());
        // SAFETY: -1 is "no fence".
        assert!(unsafe { take_fd(-1) }.is_none());
    }

    trait AsFdRef {
        fn as_fd_ref(&self) -> BorrowedFd<'_>;
    }
    impl AsFdRef for OwnedFd {
        fn as_fd_ref(&self) -> BorrowedFd<'_> {
            std::os::fd::AsFd::as_fd(self)
        }
    }

    #[test]
    fn null_and_foreign_windows_are_refused() {
        // SAFETY: null is allowed.
        let r = unsafe { Window::retain(std::ptr::null_mut()) };
        assert_eq!(r.err(), Some(BadWindow::Null));
        let mut fake = std::mem::MaybeUninit::<ANativeWindow>::zeroed();
        // SAFETY: a readable, aligned, zeroed window (magic 0).
        let r = unsafe { Window::retain(fake.as_mut_ptr()) };
        assert_eq!(r.err(), Some(BadWindow::Magic(0)));
    }
}
