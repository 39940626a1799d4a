//! The C objects every layer above shares: [`WindowObject`], the `ANativeWindow` at the head of
//! each [`BufferQueue`](crate::BufferQueue), and [`WindowBuffer`], the buffer type.
//!
//! Window objects are `#[repr(C)]` with the ABI struct first, owned (as part of their queue) by an
//! `Arc`: `incRef`/`decRef` are strong-count operations on the raw pointer C holds, which carries
//! the provenance of the whole `Arc` allocation (it comes from `Arc::as_ptr`/`Weak::as_ptr`). The
//! function table a window object carries is `ffi.rs`'s: that module builds it and hands it to
//! [`WindowObject::new`].

use std::cell::UnsafeCell;
use std::ptr;

use vkgen_abi::native_window::ANativeWindow;

/// Tells our window objects from other implementations' (checked after the function table).
const WINDOW_COOKIE: u64 = u64::from_be_bytes(*b"vkgenwin");

/// The `ANativeWindow` at the head of a [`BufferQueue`](crate::BufferQueue).
#[repr(C)]
pub(crate) struct WindowObject {
    /// In an `UnsafeCell`: C receives a `*mut ANativeWindow`.
    anw: UnsafeCell<ANativeWindow>,
    cookie: u64,
}

// SAFETY: the cell holds plain data (ints, function pointers, null reserved pointers) that Rust
// never writes after construction; sharing it between threads is what the C ABI does anyway.
unsafe impl Send for WindowObject {}
// SAFETY: `Send`'s reason holds for shared access too: nothing in the cell is written after
// construction, so `&WindowObject` on several threads only ever reads it.
unsafe impl Sync for WindowObject {}

impl WindowObject {
    /// A window object carrying `anw` (header and function table) and our cookie.
    pub(crate) fn new(anw: ANativeWindow) -> Self {
        Self {
            anw: UnsafeCell::new(anw),
            cookie: WINDOW_COOKIE,
        }
    }

    /// Whether the window object at `object` carries our cookie.
    ///
    /// # Safety
    /// `object` must point to a readable `WindowObject`: the caller has already told it from
    /// other implementations' windows by its function table.
    pub(crate) unsafe fn has_cookie(object: *const Self) -> bool {
        // SAFETY: the caller guarantees a whole `WindowObject` is readable at `object`.
        let cookie = unsafe { ptr::addr_of!((*object).cookie).read() };
        cookie == WINDOW_COOKIE
    }
}

/// A window's buffer is an `AHardwareBuffer` (`ANativeWindowBuffer` first, `Arc`-owned), the
/// same object the NDK functions and the drivers' `AHardwareBuffer` import take.
pub(crate) type WindowBuffer = vkgen_platform::hardware_buffer::HardwareBuffer;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_start_with_their_abi_struct() {
        assert_eq!(std::mem::offset_of!(WindowObject, anw), 0);
    }
}
