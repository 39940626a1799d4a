//! Shared helpers: drive a window the way C does, through its function table and the C
//! `native_window_*` helpers (which call the variadic `perform` with C's argument types).

#![allow(dead_code)]

use std::ffi::c_int;
use std::os::fd::RawFd;

use vkgen_abi::native_window::*;
use vkgen_platform::gralloc::Buffer;
use vkgen_platform::sync_fd::FenceSignaller;
use vkgen_window::c_abi::helpers as nw;
use vkgen_window::BufferQueue;

pub const EINVAL: c_int = -libc::EINVAL;
pub const ENODEV: c_int = -libc::ENODEV;
pub const ETIMEDOUT: c_int = -libc::ETIMEDOUT;
/// Android's `INVALID_OPERATION`.
pub const ENOSYS: c_int = -libc::ENOSYS;

/// An `ANativeWindow*` as C holds it; every call goes through the function table.
#[derive(Clone, Copy, Debug)]
pub struct Win(pub *mut ANativeWindow);

// SAFETY: the window's entry points may be called from any thread (that is part of what the
// tests check); the tests keep the queue alive while any thread uses it.
unsafe impl Send for Win {}
// SAFETY: a `&Win` gives only the window pointer, whose entry points may be called from any thread
// (what the tests check); the tests keep the queue alive meanwhile.
unsafe impl Sync for Win {}

impl Win {
    pub fn of(q: &BufferQueue) -> Self {
        Self(q.window())
    }

    fn table(&self) -> ANativeWindow {
        // SAFETY: the tests keep the queue alive while they use its window; the table is plain
        // data that nothing writes after construction.
        unsafe { self.0.read() }
    }

    pub fn query(&self, what: c_int) -> Result<c_int, c_int> {
        let mut v = -12345;
        // SAFETY: valid window, writable out-pointer.
        let rc = unsafe { (self.table().query.unwrap())(self.0, what, &mut v) };
        if rc == 0 {
            Ok(v)
        } else {
            Err(rc)
        }
    }

    pub fn q(&self, what: c_int) -> c_int {
        self.query(what)
            .unwrap_or_else(|e| panic!("query {what} failed: {e}"))
    }

    /// `(buffer, fence fd)`; the caller owns the fd.
    pub fn dequeue(&self) -> Result<(*mut ANativeWindowBuffer, RawFd), c_int> {
        let mut b = std::ptr::null_mut();
        let mut fd = -7;
        // SAFETY: valid window and out-pointers.
        let rc = unsafe { (self.table().dequeue_buffer.unwrap())(self.0, &mut b, &mut fd) };
        if rc == 0 {
            assert!(!b.is_null());
            Ok((b, fd))
        } else {
            assert!(
                b.is_null() && fd == -1,
                "failed dequeue must not return anything"
            );
            Err(rc)
        }
    }

    /// Dequeue, and close the fence fd right away after waiting for it.
    pub fn dequeue_ready(&self) -> *mut ANativeWindowBuffer {
        let (b, fd) = self.dequeue().expect("dequeueBuffer");
        // SAFETY: the fd is ours.
        let fence = unsafe { vkgen_platform::sync_fd::NativeFence::from_raw(fd) };
        assert!(fence
            .wait(Some(std::time::Duration::from_secs(10)))
            .unwrap());
        b
    }

    pub fn queue(&self, b: *mut ANativeWindowBuffer, fd: RawFd) -> c_int {
        // SAFETY: valid window; the window takes `fd`.
        unsafe { (self.table().queue_buffer.unwrap())(self.0, b, fd) }
    }

    pub fn cancel(&self, b: *mut ANativeWindowBuffer, fd: RawFd) -> c_int {
        // SAFETY: valid window; the window takes `fd`.
        unsafe { (self.table().cancel_buffer.unwrap())(self.0, b, fd) }
    }

    pub fn set_swap_interval(&self, i: c_int) -> c_int {
        // SAFETY: valid window.
        unsafe { (self.table().set_swap_interval.unwrap())(self.0, i) }
    }

    pub fn connect(&self) -> c_int {
        // SAFETY: valid window.
        unsafe { nw::vkgen_native_window_api_connect(self.0, NATIVE_WINDOW_API_EGL) }
    }

    pub fn disconnect(&self) -> c_int {
        // SAFETY: valid window.
        unsafe { nw::vkgen_native_window_api_disconnect(self.0, NATIVE_WINDOW_API_EGL) }
    }

    pub fn set_dequeue_timeout(&self, ns: i64) -> c_int {
        // SAFETY: valid window.
        unsafe { nw::vkgen_native_window_set_dequeue_timeout(self.0, ns) }
    }

    pub fn set_buffer_count(&self, n: usize) -> c_int {
        // SAFETY: valid window.
        unsafe { nw::vkgen_native_window_set_buffer_count(self.0, n) }
    }

    pub fn set_dimensions(&self, w: c_int, h: c_int) -> c_int {
        // SAFETY: valid window.
        unsafe { nw::vkgen_native_window_set_buffers_dimensions(self.0, w, h) }
    }

    pub fn set_format(&self, f: c_int) -> c_int {
        // SAFETY: valid window.
        unsafe { nw::vkgen_native_window_set_buffers_format(self.0, f) }
    }

    pub fn set_shared(&self, on: bool) -> c_int {
        // SAFETY: valid window.
        unsafe { nw::vkgen_native_window_set_shared_buffer_mode(self.0, on) }
    }

    pub fn set_auto_refresh(&self, on: bool) -> c_int {
        // SAFETY: valid window.
        unsafe { nw::vkgen_native_window_set_auto_refresh(self.0, on) }
    }

    pub fn inc_ref(&self) {
        // SAFETY: valid window; `common` is its first member.
        unsafe { (self.table().common.inc_ref.unwrap())(self.0.cast()) }
    }

    pub fn dec_ref(&self) {
        // SAFETY: as for `inc_ref`; the caller gives up one reference.
        unsafe { (self.table().common.dec_ref.unwrap())(self.0.cast()) }
    }
}

/// The buffer's description as the window filled it in.
pub fn anwb(b: *mut ANativeWindowBuffer) -> ANativeWindowBuffer {
    // SAFETY: a buffer the window handed out and still references.
    unsafe { b.read() }
}

/// Writes every pixel of a dequeued buffer through its native handle, as a driver would.
/// `f(x, y)` gives the bytes of one pixel in the buffer's format.
pub fn fill(b: *mut ANativeWindowBuffer, mut f: impl FnMut(u32, u32) -> Vec<u8>) {
    let desc = anwb(b);
    // SAFETY: the handle belongs to a live buffer of the window.
    let mut buffer = unsafe { Buffer::import(desc.handle) }.expect("import");
    let d = *buffer.desc();
    let mut map = buffer.map().expect("map");
    let bytes = map.as_mut_slice();
    let bpp = d.format.bytes_per_pixel() as usize;
    for y in 0..d.height {
        for x in 0..d.width {
            let off = y as usize * d.row_bytes() as usize + x as usize * bpp;
            let px = f(x, y);
            assert_eq!(px.len(), bpp);
            bytes[off..off + bpp].copy_from_slice(&px);
        }
    }
}

/// A recognisable RGBA pattern.
pub fn pattern(x: u32, y: u32, seed: u8) -> [u8; 4] {
    [
        (x * 7) as u8 ^ seed,
        (y * 13) as u8,
        seed,
        255 - (x + y) as u8,
    ]
}

/// Open fds of this process. The directory's own fd is counted in every call alike.
pub fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .count()
}

/// Whether `fd` is an open descriptor.
pub fn fd_is_open(fd: RawFd) -> bool {
    // SAFETY: F_GETFD only inspects the descriptor table.
    unsafe { libc::fcntl(fd, libc::F_GETFD) != -1 }
}

/// A fresh unsignalled eventfd fence: the signaller and an fd to hand over.
pub fn fence() -> (FenceSignaller, RawFd) {
    let s = FenceSignaller::new().unwrap();
    let fd = s.fence().unwrap().into_raw();
    (s, fd)
}

/// A signalled eventfd fence fd to hand over.
pub fn signalled_fence() -> RawFd {
    let (s, fd) = fence();
    s.signal().unwrap();
    fd
}
