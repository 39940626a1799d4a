//! Driver backends: implementations of the generated `Driver` trait.
//!
//! * [`null`]: a driver that does nothing cheaply and correctly (AOSP `nulldrv`), for loader
//!   tests without a GPU. It is [`crate::kit::null`], re-exported: the kit's `NULL_OBJECTS`
//!   bring-up falls back to it, so it lives below the kit.
//! * [`host`]: passthrough to a real Khronos ICD opened directly (lavapipe, NVIDIA), adding
//!   `VK_ANDROID_native_buffer` on top.

pub mod host;
pub use crate::kit::null;
