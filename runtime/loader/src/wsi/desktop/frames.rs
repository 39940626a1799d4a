//! The frame memory both presenters fill: pixels converted for the window system
//! ([`rgba_to_bgrx`]) in a shared `memfd` mapping ([`SharedMemory`]).

/// Writes `rgba` pixels into `out` as B, G, R, 0xff bytes: X11's 24-bit TrueColor `ZPixmap`
/// and Wayland's `XRGB8888` alike (both little-endian `0xXXRRGGBB` words).
pub(crate) fn rgba_to_bgrx(rgba: &[u8], out: &mut [u8]) {
    for (d, s) in out.chunks_exact_mut(4).zip(rgba.chunks_exact(4)) {
        d.copy_from_slice(&[s[2], s[1], s[0], 0xff]);
    }
}

/// A shared, writable mapping of a new `memfd` of `len` bytes, unmapped on drop; the frame
/// memory both presenters hand to the server (MIT-SHM) or compositor (`wl_shm`).
pub(crate) struct SharedMemory {
    pub fd: std::os::fd::OwnedFd,
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is owned by the value and used by one thread at a time (a presenter's).
unsafe impl Send for SharedMemory {}

impl SharedMemory {
    pub fn new(name: &std::ffi::CStr, len: usize) -> Result<Self, String> {
        use rustix::fs::{ftruncate, memfd_create, MemfdFlags};
        use rustix::mm::{mmap, MapFlags, ProtFlags};
        let len = len.max(4);
        let fd =
            memfd_create(name, MemfdFlags::CLOEXEC).map_err(|e| format!("memfd_create: {e}"))?;
        ftruncate(&fd, len as u64).map_err(|e| format!("ftruncate: {e}"))?;
        // SAFETY: a new shared mapping of the whole file, which is `len` bytes long; nothing else
        // in this process maps it.
        let ptr = unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &fd,
                0,
            )
        }
        .map_err(|e| format!("mmap: {e}"))?;
        let ptr = std::ptr::NonNull::new(ptr.cast()).ok_or("mmap returned NULL")?;
        Ok(SharedMemory { fd, ptr, len })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The mapped bytes. The caller writes them only while the other side is not reading (see
    /// each presenter for how it knows).
    pub fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `len` mapped bytes, ours while `self` lives, borrowed mutably once.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for SharedMemory {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once, here; no slice of it outlives
        // `self`.
        let _ = unsafe { rustix::mm::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}
