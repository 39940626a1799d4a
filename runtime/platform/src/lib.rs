//! Platform services that every side of vkgen's stack uses and none owns: the loader (surface
//! formats decided as `AHardwareBuffer_isSupported` decides them), the window (BufferQueue
//! buffers and fences), `libnativewindow.so` (the NDK's `AHardwareBuffer` functions) and the
//! drivers (native-buffer import, `SYNC_FD`).
//!
//! The dependency arrows point one way: this crate knows the C ABI (`vkgen-abi`) and nothing
//! about drivers or the loader, so the loader can use it without linking driver code (see
//! `docs/architecture.md`).
//!
//! * [`gralloc`]: memfd-backed gralloc-like buffers with real `native_handle_t`s, so the
//!   native-buffer path runs on a Linux host.
//! * [`hardware_buffer`]: the NDK's `AHardwareBuffer` over that gralloc (the object, the C
//!   functions `libnativewindow.so` exports, and counted references to any buffer).
//! * [`env`](mod@env): setuid-safe environment variables (the Khronos loader's `secure_getenv` rule).
//! * [`icd_manifest`]: Khronos ICD manifests, found and parsed by the Khronos loader's rules
//!   (one scan for the loader and the host driver alike).
//! * [`sync_fd`]: native fences (`-1` or a pollable fd), and eventfd fences signalled in process
//!   where a driver cannot export `SYNC_FD`.

#![warn(clippy::undocumented_unsafe_blocks)]

pub mod env;
pub mod gralloc;
pub mod hardware_buffer;
pub mod icd_manifest;
pub mod sync_fd;

/// The C ABI crate the platform types are declared in.
pub use vkgen_abi as abi;
