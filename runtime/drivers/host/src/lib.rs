//! `vulkan_host`: passthrough to the host's Vulkan ICD
//! ([`vkgen_driver::backend::host::HostDriver`]) plus `VK_ANDROID_native_buffer`, as a `cdylib`
//! exporting the Android HAL module `HMI` and the Khronos `vk_icd*` entry points, and the
//! loader's native-buffer adapter entry point `vkgen_host_adapt_icd` (`vkgen_abi::adapter`).
//! Everything else lives in `vkgen-driver`; `src/vkgen.rs`, `vkgen.toml` and the ICD manifest are
//! `vkgen driver` output (kept fresh by `generator/tests/freshness.rs`), this file is hand-written.
//!
//! Linux hosts only: the host ICD is found through the Khronos manifest directories and native
//! buffers are vkgen's memfd gralloc buffers, neither of which exists on Android (where the
//! vendor's HAL driver is the driver). So on Android the crate is empty and `.ci/test` does not
//! lint it for the Android targets; the runtime's `backend::host` itself still compiles there.
#![cfg(not(target_os = "android"))]

pub mod vkgen;

vkgen_driver::export_driver!(vkgen_driver::backend::host::HostDriver);

/// The loader hands this library the Khronos ICDs it found (Linux hosts): see
/// `vkgen_abi::adapter` for the contract.
///
/// # Safety
/// As `vkgen_driver::backend::host::adapter::adapt_icd`.
#[no_mangle]
pub unsafe extern "C" fn vkgen_host_adapt_icd(
    info: *const vkgen_driver::abi::adapter::HostIcdInfo,
    out: *mut vkgen_driver::abi::adapter::HostIcdEntry,
) -> vkgen_driver::ash::vk::Result {
    // SAFETY: the loader's `info` and `out` (null or valid, the adapter interface's contract) go
    // unchanged to `adapt_icd`, which checks them under that contract.
    unsafe { vkgen_driver::backend::host::adapter::adapt_icd(info, out) }
}
