//! The C ABI the runtime speaks with code it did not write: the Android HAL (`hardware.h`,
//! `hwvulkan.h`), the Khronos loader–ICD and loader–layer interfaces (`vk_icd.h`, `vk_layer.h`),
//! Android's `ANativeWindow` (`system/window.h`, `nativebase.h`) and its log (`android/log.h`).
//! Hand-written, layouts locked by tests.

pub mod adapter;
pub mod error;
pub mod guard;
pub mod hal;
pub mod hardware_buffer;
pub mod icd;
pub mod layer;
pub mod logcat;
pub mod native_window;
