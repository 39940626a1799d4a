//! `vulkan_host`: passthrough to the host's Vulkan ICD
//! ([`vkgen_driver::backend::host::HostDriver`]) plus `VK_ANDROID_native_buffer`, as a `cdylib`
//! exporting the Android HAL module `HMI` and the Khronos `vk_icd*` entry points. Everything else
//! lives in `vkgen-driver`; this crate will be produced by `vkgen driver`.

pub mod vkgen;

vkgen_driver::export_driver!(vkgen_driver::backend::host::HostDriver);
