//! A gralloc buffer's memfd mapped for import as host memory (`VK_EXT_external_memory_host`).

use std::ffi::c_void;
use std::os::fd::BorrowedFd;
use std::ptr::{self, NonNull};

/// The memfd of a gralloc buffer mapped for import as host memory: an anonymous reservation of
/// `len` bytes with the file mapped over its start.
pub(super) struct HostMapping {
    pub(super) base: NonNull<c_void>,
    pub(super) len: usize,
}

// SAFETY: plain memory owned by this value; GPU/CPU access ordering is the application's.
unsafe impl Send for HostMapping {}
// SAFETY: a mapping is plain memory owned by this value and never aliased by Rust references, so
// sharing it is as sound as sending it; access ordering is the application's.
unsafe impl Sync for HostMapping {}

impl HostMapping {
    pub(super) fn new(fd: BorrowedFd<'_>, file_len: u64, len: usize) -> rustix::io::Result<Self> {
        use rustix::mm::{MapFlags, ProtFlags};
        let page = rustix::param::page_size();
        let file_len = usize::try_from(file_len).map_err(|_| rustix::io::Errno::NOMEM)?;
        let len = len.max(file_len).next_multiple_of(page);
        let prot = ProtFlags::READ | ProtFlags::WRITE;
        // SAFETY: a fresh anonymous mapping at an address the kernel picks aliases nothing.
        let base = unsafe {
            rustix::mm::mmap_anonymous(
                ptr::null_mut(),
                len,
                prot,
                MapFlags::PRIVATE | MapFlags::NORESERVE,
            )
        }?;
        let this = Self {
            base: NonNull::new(base).ok_or(rustix::io::Errno::NOMEM)?,
            len,
        };
        let file_pages = file_len.next_multiple_of(page);
        if file_pages > 0 {
            // SAFETY: replaces the start of our own reservation (nothing else refers to it) with
            // the file's pages; `file_pages <= len`. Only whole pages overlapping the file are
            // mapped, so no access can SIGBUS.
            unsafe {
                rustix::mm::mmap(
                    base,
                    file_pages,
                    prot,
                    MapFlags::SHARED | MapFlags::FIXED,
                    fd,
                    0,
                )
            }?;
        }
        Ok(this)
    }
}

impl Drop for HostMapping {
    fn drop(&mut self) {
        // SAFETY: exactly the range `new` mapped; the memory imported from it was freed first.
        if let Err(e) = unsafe { rustix::mm::munmap(self.base.as_ptr(), self.len) } {
            log::error!("munmap of a native-buffer import failed: {e}");
        }
    }
}
