//! Checks for the pointers a HAL module hands the loader (issue 11): each is compared with the
//! memory the module's own image maps, found with `dladdr` and `dl_iterate_phdr`, before it is
//! dereferenced.
//!
//! What this guarantees: `HMI`, its `id` string and its `methods` table lie entirely inside
//! readable `PT_LOAD` segments of the object that defines `HMI`, and `open` inside an executable
//! one; the device `open` returns is readable memory (it may be on the heap, so only readability
//! is checked, through the kernel: a `write(2)` to a pipe fails with `EFAULT` instead of
//! faulting); the device's entry points and `close` lie in an executable segment of some loaded
//! object. What it cannot guarantee: that readable memory holds what it claims (a pointer into the
//! wrong data still reads garbage, caught only by the tag and id checks), that an executable
//! address is the start of the right function, or anything about memory the module unmaps or
//! rewrites later. `HMI.dso` is written through the kernel too ([`store_word`]), so a read-only
//! `HMI` is an `EFAULT`, not a crash. A module that lies within those limits can still crash the process, as on
//! Android, which checks none of this.

use std::ffi::{c_char, c_int, c_void};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// `PF_X` / `PF_R` of `p_flags`.
pub(crate) const PF_X: u32 = 1;
pub(crate) const PF_R: u32 = 4;

#[derive(Debug, Clone, Copy)]
struct Segment {
    start: usize,
    end: usize,
    flags: u32,
}

/// The loaded segments of one object.
#[derive(Debug)]
pub(crate) struct Image {
    segments: Vec<Segment>,
}

/// Every loaded object's `PT_LOAD` segments.
fn all_objects() -> Vec<Vec<Segment>> {
    unsafe extern "C" fn collect(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: `data` is the `Vec` passed below; `info` and its program headers are valid
        // for the duration of the callback (dl_iterate_phdr's contract). Nothing here panics.
        unsafe {
            let out = &mut *data.cast::<Vec<Vec<Segment>>>();
            let info = &*info;
            let mut segs = Vec::new();
            if !info.dlpi_phdr.is_null() {
                for i in 0..usize::from(info.dlpi_phnum) {
                    let ph = &*info.dlpi_phdr.add(i);
                    if ph.p_type == libc::PT_LOAD {
                        let start = (info.dlpi_addr as usize).wrapping_add(ph.p_vaddr as usize);
                        segs.push(Segment {
                            start,
                            end: start.saturating_add(ph.p_memsz as usize),
                            flags: ph.p_flags,
                        });
                    }
                }
            }
            out.push(segs);
        }
        0
    }
    let mut out: Vec<Vec<Segment>> = Vec::new();
    // SAFETY: the callback matches dl_iterate_phdr's signature and only touches `out`.
    unsafe { libc::dl_iterate_phdr(Some(collect), std::ptr::from_mut(&mut out).cast()) };
    out
}

impl Image {
    /// The image of the loaded object containing `addr`, if `dladdr` knows one.
    pub(crate) fn containing(addr: *const c_void) -> Option<Image> {
        let mut info = libc::Dl_info {
            dli_fname: std::ptr::null(),
            dli_fbase: std::ptr::null_mut(),
            dli_sname: std::ptr::null(),
            dli_saddr: std::ptr::null_mut(),
        };
        // SAFETY: dladdr only inspects the address and fills `info`.
        if unsafe { libc::dladdr(addr, &mut info) } == 0 {
            return None;
        }
        let a = addr as usize;
        all_objects()
            .into_iter()
            .find(|segs| segs.iter().any(|s| s.start <= a && a < s.end))
            .map(|segments| Image { segments })
    }

    /// Whether `[ptr, ptr + len)` lies inside one segment with all of `flags`.
    pub(crate) fn contains(&self, ptr: usize, len: usize, flags: u32) -> bool {
        let Some(end) = ptr.checked_add(len) else {
            return false;
        };
        self.segments
            .iter()
            .any(|s| s.flags & flags == flags && s.start <= ptr && end <= s.end)
    }

    /// The length of the NUL-terminated string at `ptr` if it ends inside the readable segment
    /// that contains `ptr`.
    pub(crate) fn c_str_len(&self, ptr: *const u8) -> Option<usize> {
        let p = ptr as usize;
        let seg = self
            .segments
            .iter()
            .find(|s| s.flags & PF_R != 0 && s.start <= p && p < s.end)?;
        // SAFETY: `[p, seg.end)` is inside a readable segment of a loaded object.
        let bytes = unsafe { std::slice::from_raw_parts(ptr, seg.end - p) };
        bytes.iter().position(|&b| b == 0)
    }
}

/// Whether `addr` lies in an executable segment of any loaded object.
pub(crate) fn is_code(addr: usize) -> bool {
    all_objects()
        .iter()
        .flatten()
        .any(|s| s.flags & PF_X != 0 && s.start <= addr && addr < s.end)
}

/// Whether `len` bytes at `ptr` can be read, asked of the kernel: `write(2)` of them to a pipe
/// fails with `EFAULT` rather than faulting. `len` must fit a pipe (64 KiB).
pub(crate) fn is_readable(ptr: *const u8, len: usize) -> bool {
    if ptr.is_null() || len > 4096 {
        return false;
    }
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return false;
    }
    // SAFETY: pipe2 succeeded; both descriptors are fresh and owned here (closed on drop).
    let (_reader, writer) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: the kernel validates the source range itself (EFAULT if unmapped); no Rust
    // reference to it is created.
    let n = unsafe { libc::write(writer.as_raw_fd(), ptr.cast(), len) };
    n == len as isize
}

/// Stores `value` at `slot` without risking a segfault if `slot` is read-only: the word goes
/// through a pipe and `read(2)` writes it, so the kernel checks the destination and answers
/// `EFAULT` instead of raising SIGSEGV.
pub(crate) fn store_word(slot: *mut c_char, value: usize) -> std::io::Result<()> {
    let bytes = value.to_ne_bytes();
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both descriptors are fresh and owned only by us; OwnedFd closes
    // them on every return path.
    let (reader, writer) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: `bytes` is valid for `bytes.len()` bytes; a pipe takes up to PIPE_BUF bytes
    // atomically, so the write is complete or fails.
    let written = unsafe { libc::write(writer.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
    if written != bytes.len() as isize {
        return Err(std::io::Error::last_os_error());
    }
    loop {
        // SAFETY: the kernel validates `slot` itself and fails with EFAULT if it is not
        // writable; no Rust reference to the memory is created.
        let read = unsafe { libc::read(reader.as_raw_fd(), slot.cast(), bytes.len()) };
        if read == bytes.len() as isize {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if read < 0 && err.kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        return Err(if read < 0 {
            err
        } else {
            std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "short read from pipe")
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static DATA: [u8; 16] = *b"fifteen chars..\0";

    #[test]
    fn hal_pointers_are_checked_against_the_mapped_image() {
        let image = Image::containing(DATA.as_ptr().cast()).expect("our own image");
        assert!(image.contains(DATA.as_ptr() as usize, DATA.len(), PF_R));
        assert_eq!(image.c_str_len(DATA.as_ptr()), Some(15));
        assert!(!image.contains(16, 8, PF_R));
        assert!(!image.contains(usize::MAX - 2, 8, PF_R));
        assert!(Image::containing(16 as *const c_void).is_none());
        assert!(is_code(is_code as fn(usize) -> bool as usize));
        assert!(!is_code(DATA.as_ptr() as usize));
        assert!(!is_code(16));
        assert!(is_readable(DATA.as_ptr(), DATA.len()));
        assert!(!is_readable(16 as *const u8, 8));
        let heap = Box::new([1u8; 144]);
        assert!(is_readable(heap.as_ptr(), heap.len()));
    }
}
