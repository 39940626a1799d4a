//! `vulkan_null`: the null Vulkan driver ([`vkgen_driver::backend::null::NullDriver`]) as a
//! `cdylib` exporting the Android HAL module `HMI` and the Khronos `vk_icd*` entry points.
//! Everything else lives in `vkgen-driver`; this crate will be produced by `vkgen driver`.

pub mod vkgen;

vkgen_driver::export_driver!(vkgen_driver::backend::null::NullDriver);
