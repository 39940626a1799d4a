//! `vkGetPhysicalDeviceFeatures2` as the WSI answers it: the features of the structures the
//! loader implements (`VK_EXT_swapchain_maintenance1`, the swapchain image compression quirk).

use std::ffi::c_void;

use vkgen_generated::chain::for_each_out;
use vkgen_generated::vk;

use super::device_support::driver_image_compression_control;
use crate::driver_handles::{resolve, slot_of, Resolved};

/// `vkGetPhysicalDeviceFeatures2` (the core name only, as AOSP; the KHR alias is the driver's):
/// the driver's features, plus `VkPhysicalDeviceSwapchainMaintenance1FeaturesEXT::
/// swapchainMaintenance1 = TRUE` whenever the structure is chained (AOSP sets it whether or not
/// it offers the extension; drivers do not know the structure: the loader implements it), and
/// `imageCompressionControlSwapchain` as AOSP reports it (`image_compression_swapchain_feature`).
///
/// # Safety
/// Vulkan's contract for the command, with a physical device of this loader.
pub unsafe extern "system" fn physical_device_features2(
    pd: vk::PhysicalDevice,
    features: *mut vk::PhysicalDeviceFeatures2<'_>,
) {
    let _trace = crate::trace::section("GetPhysicalDeviceFeatures2");
    crate::ffi::guard("vkGetPhysicalDeviceFeatures2", (), || {
        // SAFETY: `pd` is the application's physical device, one this loader handed out
        // (VUID-vkGetPhysicalDeviceFeatures2-physicalDevice-parameter).
        let Some(r) = (unsafe { resolve(pd) }) else {
            log::error!(
                "vkGetPhysicalDeviceFeatures2: {pd:?} is not a physical device of this loader"
            );
            return;
        };
        let Some(slot) = slot_of(c"vkGetPhysicalDeviceFeatures2") else {
            return;
        };
        if !r.driver.table.is_present(slot) {
            log::error!(
                "vkGetPhysicalDeviceFeatures2: driver {} has neither the core command nor the KHR one",
                r.driver.name()
            );
            return;
        }
        // SAFETY: the driver's function with its own handle and the caller's structures.
        unsafe { (r.driver.table.get_physical_device_features2)(r.handle, features) };
        if features.is_null() {
            return;
        }
        // SAFETY: the application's valid output chain, filled by the driver.
        unsafe { image_compression_swapchain_feature(&r, (*features).p_next) };
        // SAFETY: `features` is non-null (checked above) and the application's, its pNext chain
        // valid and writable (VUID-VkPhysicalDeviceFeatures2-pNext-pNext); each struct is cast only
        // for the sType it carries.
        unsafe {
            for_each_out((*features).p_next, |s| {
                if (*s).s_type
                    == vk::StructureType::PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_EXT
                {
                    let p = s.cast::<vk::PhysicalDeviceSwapchainMaintenance1FeaturesEXT<'_>>();
                    (*p).swapchain_maintenance1 = vk::TRUE;
                }
            })
        };
    });
}

/// AOSP's `GetPhysicalDeviceFeatures2` quirk, kept because the extension list depends on it:
/// `imageCompressionControlSwapchain` is reported as the driver's `imageCompressionControl`
/// (from the chain, or asked separately when the chain lacks it), whatever the driver said
/// about the swapchain feature itself.
///
/// # Safety
/// `p_next` must be the application's valid output chain, already filled by the driver.
unsafe fn image_compression_swapchain_feature(r: &Resolved<'_>, p_next: *mut c_void) {
    let mut swapchain = None;
    let mut control = None;
    // SAFETY: the caller guarantees `p_next` is the application's valid output chain; each struct
    // is cast only for the sType it carries.
    unsafe {
        for_each_out(p_next, |s| match (*s).s_type {
            vk::StructureType::PHYSICAL_DEVICE_IMAGE_COMPRESSION_CONTROL_SWAPCHAIN_FEATURES_EXT => {
                swapchain = Some(
                    s.cast::<vk::PhysicalDeviceImageCompressionControlSwapchainFeaturesEXT<'_>>(),
                );
            }
            vk::StructureType::PHYSICAL_DEVICE_IMAGE_COMPRESSION_CONTROL_FEATURES_EXT => {
                let p = s.cast::<vk::PhysicalDeviceImageCompressionControlFeaturesEXT<'_>>();
                control = Some((*p).image_compression_control == vk::TRUE);
            }
            _ => {}
        })
    };
    let Some(swapchain) = swapchain else {
        return;
    };
    // SAFETY: the resolved driver physical device.
    let control =
        control.unwrap_or_else(|| unsafe { driver_image_compression_control(r.driver, r.handle) });
    // SAFETY: a structure of the application's chain, found above.
    unsafe { (*swapchain).image_compression_control_swapchain = vk::Bool32::from(control) };
}
