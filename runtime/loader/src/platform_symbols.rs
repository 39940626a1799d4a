//! Platform functions the loader must not link against (libvndksupport, libdl_android,
//! libgraphicsenv, libnativeloader: a vendor or NDK-built copy of this loader does not have
//! them), looked up at run time so that `libvulkan.so`'s `DT_NEEDED` stays liblog,
//! libnativewindow, libdl and libc. Shared by the linker ([`crate::driver::linker`]) and the
//! GPU statistics ([`crate::gpu_stats`]); a function that cannot be found is `None`, and its
//! caller behaves as AOSP's call returning null.

use std::ffi::{c_void, CStr};
use std::ptr::NonNull;

/// `name` from the process (`RTLD_DEFAULT`), else from `library`, as a function of type `F`.
///
/// # Safety
/// `F` must be the C type of the function `name` names.
pub unsafe fn lookup<F: Copy>(library: &CStr, name: &CStr) -> Option<F> {
    // SAFETY: `name` is NUL-terminated; dlsym only reads it.
    let mut address = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    if address.is_null() {
        // The handle is kept for the process's life: the function found in it is cached.
        // SAFETY: a system library's initialisers are the platform's own; `library` is
        // NUL-terminated.
        let handle = unsafe { libc::dlopen(library.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return None;
        }
        // SAFETY: `handle` was just returned by dlopen; `name` is NUL-terminated.
        address = unsafe { libc::dlsym(handle, name.as_ptr()) };
    }
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<*mut c_void>()) };
    // SAFETY: non-null (checked) and, by this function's contract, a function of type `F`, a
    // pointer-sized type (asserted above).
    NonNull::new(address)
        .map(|a| unsafe { std::mem::transmute_copy::<*mut c_void, F>(&a.as_ptr()) })
}
