//! Driver backends: implementations of the generated `Driver` trait.
//!
//! * [`host`]: passthrough to a real Khronos ICD opened directly (lavapipe, NVIDIA), adding
//!   `VK_ANDROID_native_buffer` on top.

pub mod host;
