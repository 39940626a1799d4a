//! Driver runtime shared by vkgen's Vulkan HAL drivers (`vulkan.<name>.so`).
//!
//! Android's loader talks to a driver through the libhardware HAL (`HMI`, `hwvulkan_device_t`),
//! dispatchable handles that start with `HWVULKAN_DISPATCH_MAGIC`, and `VK_ANDROID_native_buffer`,
//! which moves gralloc buffers and native fence fds across the boundary. This crate holds the
//! hand-written pieces the generated driver code builds on; the ABI structs themselves live in
//! `vkgen-abi`.
//!
//! * [`sync_fd`]: native fences (`-1` or a pollable fd), and eventfd fences the runtime signals
//!   itself where the backend cannot export `SYNC_FD`.
//! * [`gralloc`]: memfd-backed gralloc-like buffers with real `native_handle_t`s, so the
//!   native-buffer path runs on a Linux host.

pub mod gralloc;
pub mod sync_fd;
