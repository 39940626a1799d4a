//! The application-facing commands the loader implements itself (the generated
//! `commands::LOADER_INTERCEPTED`); every other exported command is a generated trampoline.
//!
//! * [`global`]: `vkEnumerateInstance{Version,ExtensionProperties,LayerProperties}`, which need
//!   no instance;
//! * [`instance`]: `vkCreateInstance` (layer activation, extension validation, the instance
//!   chain) and `vkDestroyInstance`;
//! * [`device`]: `vkCreateDevice` (the device chain from the instance's global layers),
//!   `vkDestroyDevice` and the device enumeration commands;
//! * [`proc_addr`]: what `vkGetInstanceProcAddr` and `vkGetDeviceProcAddr` answer, with the
//!   spec's and Android's rules (their entry points are in [`exports`]);
//! * [`exports`]: the exported symbols (the generated trampolines plus the functions above) and
//!   the name → function table `vkGetInstanceProcAddr` answers exported names from (also
//!   `vkgen_loader::exports`);
//! * `desktop` (Linux hosts): the desktop WSI entry points the Khronos loader exports, each
//!   through the instance's chain.
//!
//! Every entry point runs its body under [`crate::ffi::guard`], so a panic becomes the command's
//! failure value instead of unwinding into the application.

#[cfg(all(feature = "desktop", not(target_os = "android")))]
mod desktop;
pub mod device;
pub mod exports;
pub mod global;
pub mod instance;
pub mod proc_addr;
