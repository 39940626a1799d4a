//! Driver backends: implementations of the generated `Driver` trait.
//!
//! * [`null`]: a driver that does nothing cheaply and correctly (AOSP `nulldrv`), for loader
//!   tests without a GPU.
//! * [`host`]: passthrough to a real Khronos ICD opened directly (lavapipe, NVIDIA), adding
//!   `VK_ANDROID_native_buffer` on top.

pub mod host;
pub mod null;
