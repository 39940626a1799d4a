//! Driver runtime shared by vkgen's Vulkan HAL drivers (`vulkan.<name>.so`).
//!
//! Android's loader talks to a driver through the libhardware HAL (`HMI`, `hwvulkan_device_t`),
//! dispatchable handles that start with `HWVULKAN_DISPATCH_MAGIC`, and `VK_ANDROID_native_buffer`,
//! which moves gralloc buffers and native fence fds across the boundary. This crate holds the
//! hand-written pieces the generated driver code builds on; the ABI structs themselves live in
//! `vkgen-abi`, the per-command hooks and entry points in `vkgen-generated`'s `driver` module.
//!
//! * [`sync_fd`], [`gralloc`], [`hardware_buffer`]: the platform services (`vkgen-platform`,
//!   shared with the loader and the window), re-exported under their old paths.
//! * [`handles`]: dispatchable objects (loader slot in word 0), non-dispatchable handles, and
//!   host memory that honours `VkAllocationCallbacks`.
//! * [`export`]: [`export_driver!`] turns a `Driver` into a `cdylib` exporting `HMI` and the
//!   Khronos `vk_icd*` entry points, and nothing else.
//! * [`backend`]: [`backend::host::HostDriver`] (passthrough to a real ICD). The null driver
//!   (AOSP nulldrv's behaviour) is a kit client in its own crate, `runtime/drivers/null`: the
//!   kit names no driver.
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
pub mod handles;
pub mod kit;
pub mod testing;
pub mod util;

pub use vkgen_platform::{gralloc, hardware_buffer, sync_fd};

/// The `ash` the runtime is built on (its `vk` types are the generated crate's).
pub use ash;
/// The HAL/ICD ABI crate, for [`export_driver!`] expansions.
pub use vkgen_abi as abi;
/// `#[vkgen_driver::driver]` on `impl Driver for X`: writes `implements` from the hooks the
/// block defines (and, with `(kit)`, routes the rest to [`kit::fallback`]).
pub use vkgen_driver_macros::driver;
/// `#[vkgen_driver::execute]` on `impl Execute for E` (the command recorder's replay engine):
/// writes `implements` from the `cmd_*` methods the block defines.
pub use vkgen_driver_macros::execute;
/// The generated crate (`Driver` trait, entry points, command metadata).
pub use vkgen_generated as generated;
