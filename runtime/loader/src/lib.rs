//! `libvulkan.so`: an Android-style Vulkan loader written in Rust.
//!
//! The loader follows AOSP's `frameworks/native/vulkan/libvulkan` rather than the Khronos desktop
//! loader: one driver (an Android HAL module `vulkan.<name>.so`), layers discovered as
//! `libVkLayer*.so` files in the app's library directories (no JSON manifests), and layer
//! activation only through the app's `ppEnabledLayerNames` or, on debuggable builds, the
//! `debug.vulkan.*` properties. On a Linux host, where there is no HAL, the same code can instead
//! drive every Khronos ICD named by the usual manifests, so the loader is usable (and testable)
//! against lavapipe.
//!
//! Layout:
//! * [`logging`]: opt-in `log` backend (`VKGEN_LOG`).
//! * [`properties`]: Android system properties, or a build.prop file on hosts.
//! * [`driver`]: finding and opening drivers (HAL modules, Khronos ICDs) behind one [`driver::Driver`].
//! * [`layers`]: discovering layer libraries and choosing which ones an instance activates.
//!
//! Everything that reads the environment does so once, into a [`LoaderConfig`] ([`config`]),
//! so tests can describe a whole "device" (properties, HAL root, layer dirs, ICD manifests)
//! without touching process-global state; it is split there into each subsystem's own
//! settings ([`driver::DriverSettings`], [`layers::LayerSettings`],
//! [`gpu_stats::StatsSettings`]), which is all a subsystem sees. This file only declares the
//! modules and re-exports: no module imports anything back from the crate root.
//!
//! The loader core (what makes `libvulkan.so` a loader):
//! * [`api`]: the application-facing entry points the loader implements itself
//!   (`commands::LOADER_INTERCEPTED`): global queries, instance and device creation with their
//!   layer chains, and `vkGet{Instance,Device}ProcAddr`; and [`exports`] (`api::exports`): the
//!   exported symbols, the generated trampolines plus those entry points, and the name →
//!   function table `vkGetInstanceProcAddr` answers exported names from.
//! * [`terminator`]: the bottom of every call chain ("driver level"): creates one driver
//!   instance per driver, stamps the loader's data into dispatchable objects, filters
//!   extensions and hands out the drivers' own functions.
//! * [`dispatch_data`]: the per-instance and per-device data whose address is word 0 of every
//!   dispatchable object (the terminator's and the WSI's parts included), and the
//!   `vkSet*LoaderData` callbacks.
//! * `driver_handles`: loader handles resolved to the drivers' (physical device → driver
//!   instance and handle, command → dispatch-table slot), shared by the terminator and the WSI.
//! * [`chain`]: the `VkLayer{Instance,Device}CreateInfo` chain structs handed to layers.
//! * [`device_table`]: which names a device's dispatch table asks its chain for (the commands
//!   the device can expose) and the record `vkGetDeviceProcAddr` answers them from.
//! * [`extensions`]: which extensions are shown, hidden, renamed or passed to drivers.
//! * [`init`]: the once-per-process state (drivers, layer registry): Android's
//!   `EnsureInitialized`.
//! * `ffi`: panic containment and the two-call enumeration idiom.
//! * [`wsi`]: surfaces and swapchains on `ANativeWindow` over the driver's
//!   `VK_ANDROID_native_buffer` (Android's `swapchain.cpp`); the terminator hands out its
//!   functions for the WSI commands.
//!
//! Call flow (Android's model): an exported trampoline reads word 0 of its dispatchable
//! argument, which points at [`dispatch_data::InstanceData`] or [`dispatch_data::DeviceData`],
//! whose first field is the dispatch table filled from the head of the layer chain; the chain's
//! tail is [`terminator`], which returns the driver's own functions for everything it does not
//! need to intercept.

#![warn(clippy::undocumented_unsafe_blocks)]

pub mod api;
pub mod apk;
pub(crate) mod at_once;
pub mod chain;
pub mod device_table;
pub mod dispatch_data;
pub mod driver;
pub(crate) mod driver_handles;
pub use api::exports;
pub mod extensions;
pub(crate) mod ffi;
pub mod gpu_stats;
pub mod graphics_env;
pub mod host_alloc;
#[cfg(not(target_os = "android"))]
pub(crate) mod host_env;
pub mod init;
pub mod layers;
pub mod logging;
pub mod platform_symbols;
pub mod properties;
pub mod terminator;
pub mod trace;
pub mod wsi;

/// The loader's one knob set, split into each subsystem's settings ([`config`]).
pub mod config;
#[cfg(test)]
mod testutil;

/// The generated tables and types the trampolines and the rest of the loader build on
/// (`vkgen_generated::vk`, `vkgen_generated::dispatch`), for embedders.
pub use vkgen_generated::{dispatch, vk};

pub use config::{LoaderConfig, HAL_ROOT_ENV};
pub use graphics_env::{APP_DEBUGGABLE_ENV, APP_LAYER_PATH_ENV, APP_PACKAGE_ENV, SETTINGS_ENV};
pub use properties::Properties;

/// Builds C fixtures (fake HAL modules, ICDs, layers) for the tests.
#[cfg(test)]
mod linker_tests;

#[cfg(test)]
mod hal_open_stats_tests;
