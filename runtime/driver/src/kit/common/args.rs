//! Argument and result conversions the common implementations share: a leaf, so that each
//! of them imports what it needs instead of reaching back into `common` (whose table names
//! them all).

use std::ffi::{c_char, CStr, CString};

use vkgen_generated::vk;

pub(super) fn from_result(r: Result<(), vk::Result>) -> vk::Result {
    r.err().unwrap_or(vk::Result::SUCCESS)
}

/// An optional C string argument, copied.
///
/// # Safety
/// `p` is null or a C string.
pub(super) unsafe fn owned_cstr(p: *const c_char) -> Option<CString> {
    // SAFETY: `p` was checked non-null and is a NUL-terminated string (this function's contract);
    // it is copied before the borrow ends.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_owned())
}
