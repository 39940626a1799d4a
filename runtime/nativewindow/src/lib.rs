//! `libnativewindow.so` for Linux hosts: exports the NDK's `AHardwareBuffer_*` functions (and
//! the `ANativeWindowBuffer` ⇄ `AHardwareBuffer` casts) under their C names, so code written
//! against `android/hardware_buffer.h` (the header in `include/`) links and runs unchanged. The
//! functions themselves are [`vkgen_platform::hardware_buffer::ndk`]; this crate only gives them
//! their unmangled names, once, here (a `#[no_mangle]` in the runtime would export them from
//! every driver as well).
//!
//! Linux hosts only: on Android `libnativewindow.so` is the system's (the loader links that one),
//! and a library of this name built for Android would shadow it with vkgen's gralloc. So on
//! Android the crate is empty and `.ci/test` does not lint it for the Android targets.
#![cfg(not(target_os = "android"))]

use std::ffi::{c_int, c_void};

use vkgen_platform::abi::native_window::{ANativeWindowBuffer, NativeHandle};
use vkgen_platform::hardware_buffer::{
    ndk, AHardwareBuffer, AHardwareBufferDesc, AHardwareBufferPlanes, ARect,
};

/// Exports each `ndk` function under its own name with its own signature.
macro_rules! export {
    ($( $(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?; )*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// As for the NDK function of this name.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? {
            // SAFETY: the caller's arguments under the NDK contract of this function's name, which
            // is the contract of the `ndk` implementation it calls.
            unsafe { ndk::$name($($arg),*) }
        }
    )*};
}

export! {
    fn AHardwareBuffer_allocate(desc: *const AHardwareBufferDesc, out: *mut *mut AHardwareBuffer) -> c_int;
    fn AHardwareBuffer_acquire(buffer: *mut AHardwareBuffer);
    fn AHardwareBuffer_release(buffer: *mut AHardwareBuffer);
    fn AHardwareBuffer_describe(buffer: *const AHardwareBuffer, out: *mut AHardwareBufferDesc);
    fn AHardwareBuffer_isSupported(desc: *const AHardwareBufferDesc) -> c_int;
    fn AHardwareBuffer_getNativeHandle(buffer: *const AHardwareBuffer) -> *const NativeHandle;
    fn AHardwareBuffer_getId(buffer: *const AHardwareBuffer, out: *mut u64) -> c_int;
    fn AHardwareBuffer_lock(buffer: *mut AHardwareBuffer, usage: u64, fence: i32, rect: *const ARect, out: *mut *mut c_void) -> c_int;
    fn AHardwareBuffer_lockAndGetInfo(buffer: *mut AHardwareBuffer, usage: u64, fence: i32, rect: *const ARect, out: *mut *mut c_void, bytes_per_pixel: *mut i32, bytes_per_stride: *mut i32) -> c_int;
    fn AHardwareBuffer_lockPlanes(buffer: *mut AHardwareBuffer, usage: u64, fence: i32, rect: *const ARect, out: *mut AHardwareBufferPlanes) -> c_int;
    fn AHardwareBuffer_unlock(buffer: *mut AHardwareBuffer, fence: *mut i32) -> c_int;
    fn AHardwareBuffer_createFromHandle(desc: *const AHardwareBufferDesc, handle: *const NativeHandle, method: i32, out: *mut *mut AHardwareBuffer) -> c_int;
    fn AHardwareBuffer_to_ANativeWindowBuffer(buffer: *mut AHardwareBuffer) -> *mut ANativeWindowBuffer;
    fn ANativeWindowBuffer_getHardwareBuffer(buffer: *mut ANativeWindowBuffer) -> *mut AHardwareBuffer;
}
