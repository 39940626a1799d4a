//! `vulkan_null`: the null Vulkan driver ([`NullDriver`], AOSP nulldrv's behaviour; see
//! `driver.rs`) as a `cdylib` exporting the Android HAL module `HMI` and the Khronos `vk_icd*`
//! entry points. It is a client of the driver kit like any vendor's driver (the kit names no
//! driver); it is also an `rlib`, so that tests can call it in-process through its generated
//! `vkGetInstanceProcAddr::<NullDriver>`.

pub mod vkgen;

mod driver;
mod engine;

pub use driver::*;

vkgen_driver::export_driver!(NullDriver);
