//! Driver runtime shared by vkgen's Vulkan HAL drivers (`vulkan.<name>.so`).
//!
//! Android's loader talks to a driver through the libhardware HAL (`HMI`, `hwvulkan_device_t`),
//! dispatchable handles that start with `HWVULKAN_DISPATCH_MAGIC`, and `VK_ANDROID_native_buffer`,
//! which moves gralloc buffers and native fence fds across the boundary. This crate holds the
//! hand-written pieces the generated driver code builds on; the ABI structs themselves live in
//! `vkgen-abi`, the per-command hooks and entry points in `vkgen-generated`'s `driver` module.
//!
//! * [`sync_fd`]: native fences (`-1` or a pollable fd), and eventfd fences the runtime signals
//!   itself where the backend cannot export `SYNC_FD`.
//! * [`gralloc`]: memfd-backed gralloc-like buffers with real `native_handle_t`s, so the
//!   native-buffer path runs on a Linux host.
//! * [`hardware_buffer`]: the NDK's `AHardwareBuffer` over that gralloc (the object, the C
//!   functions `libnativewindow.so` exports, and counted references to any buffer for drivers).
//! * [`handles`]: dispatchable objects (loader slot in word 0), non-dispatchable handles, and
//!   host memory that honours `VkAllocationCallbacks`.
//! * [`export`]: [`export_driver!`] turns a `Driver` into a `cdylib` exporting `HMI` and the
//!   Khronos `vk_icd*` entry points, and nothing else.
//! * [`backend`]: the drivers themselves: [`backend::null::NullDriver`] (AOSP nulldrv's
//!   behaviour) and [`backend::host::HostDriver`] (passthrough to a real ICD).
//! * [`util`]: the two-call idiom, `pNext` chains, fence fd hand-over.
//! * [`testing`]: opening a built driver library through its HAL module, as a loader does.
//!
//! The `vulkan_null` / `vulkan_host` libraries (`runtime/drivers/`) are one
//! `export_driver!` line each.

#![warn(clippy::undocumented_unsafe_blocks)]

// The `#[driver]` expansion names `::vkgen_driver`, also inside this crate (the backends).
extern crate self as vkgen_driver;

pub mod backend;
pub mod export;
pub mod gralloc;
pub mod handles;
pub mod hardware_buffer;
pub mod kit;
pub mod sync_fd;
pub mod testing;
pub mod util;

/// The `ash` the runtime is built on (its `vk` types are the generated crate's).
pub use ash;
/// The HAL/ICD ABI crate, for [`export_driver!`] expansions.
pub use vkgen_abi as abi;
/// `#[vkgen_driver::driver]` on `impl Driver for X`: writes `implements` from the hooks the
/// block defines (and, with `(kit)`, routes the rest to [`kit::fallback`]).
pub use vkgen_driver_macros::driver;
/// The generated crate (`Driver` trait, entry points, command metadata).
pub use vkgen_generated as generated;
