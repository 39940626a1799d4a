//! The host driver's names and numbers, shared by its files.

use std::ffi::CStr;

/// Environment variable naming the host ICD's manifest (overrides the search).
pub const HOST_ICD_ENV: &str = "VKGEN_HOST_ICD";
/// `VK_ANDROID_native_buffer`'s spec version as advertised.
pub const NATIVE_BUFFER_SPEC_VERSION: u32 = 11;

pub(super) const NATIVE_BUFFER_NAME: &CStr = c"VK_ANDROID_native_buffer";
pub(super) const MEMORY_HOST_NAME: &CStr = c"VK_EXT_external_memory_host";
pub(super) const FENCE_FD_NAME: &CStr = c"VK_KHR_external_fence_fd";
/// The newest API the generated tables describe.
pub(super) const MAX_API_VERSION: u32 =
    vkgen_generated::API_VERSION | vkgen_generated::HEADER_VERSION;
