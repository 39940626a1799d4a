//! What the WSI learns from the driver: the device functions it calls ([`DeviceWsi::load`]) and
//! what a driver's physical device supports, which decides the WSI extensions the loader offers
//! ([`device_support`]).

use std::ffi::CStr;

use vkgen_abi::vk_error;
use vkgen_generated::extensions::{self as ext, ExtensionId};
use vkgen_generated::vk;

use crate::dispatch_data::term::{DeviceFns, DeviceWsi};
use crate::dispatch_data::DriverInstance;
use crate::driver;
use crate::driver_handles::slot_of;
use crate::extensions::LoaderDeviceSupport;

/// Property that says the platform's compositor reports present timestamps (gates
/// `VK_GOOGLE_display_timing`, as in Android).
pub const PRESENT_TIMESTAMP_PROPERTY: &str = "service.sf.present_timestamp";

impl DeviceWsi {
    /// Loads the driver functions for a device created with `VK_ANDROID_native_buffer`.
    /// `Err(VK_ERROR_INCOMPATIBLE_DRIVER)` when the ANB entry points are missing, or none of
    /// `vkGetSwapchainGrallocUsage{,2,3,4}ANDROID` resolves (Android's rule).
    ///
    /// # Safety
    /// `device` must be the driver's live device of `driver_pd`, created through `driver`.
    pub unsafe fn load(
        driver: &DriverInstance,
        driver_pd: vk::PhysicalDevice,
        device: vk::Device,
        app_extensions: &[&CStr],
    ) -> Result<Self, vk::Result> {
        let gdpa = driver.gdpa;
        // SAFETY: the driver's live device and C strings.
        let get = |n: &CStr| unsafe { gdpa(device, n.as_ptr()) };
        macro_rules! load {
            ($name:literal) => {
                // SAFETY: the driver returns the named command's own type.
                unsafe { driver::void_fn_as(get($name)) }
            };
        }
        let (Some(create_image), Some(destroy_image), Some(acquire_image), Some(signal)) = (
            load!(c"vkCreateImage"),
            load!(c"vkDestroyImage"),
            load!(c"vkAcquireImageANDROID"),
            load!(c"vkQueueSignalReleaseImageANDROID"),
        ) else {
            return Err(vk_error!(
                vk::Result::ERROR_INCOMPATIBLE_DRIVER,
                "driver {}: VK_ANDROID_native_buffer device lacks vkCreateImage / \
                 vkDestroyImage / vkAcquireImageANDROID / vkQueueSignalReleaseImageANDROID",
                driver.name()
            ));
        };
        let bind2: Option<vk::PFN_vkBindImageMemory2> =
            load!(c"vkBindImageMemory2").or_else(|| load!(c"vkBindImageMemory2KHR"));
        let fns = DeviceFns {
            device,
            physical_device: driver_pd,
            create_image,
            destroy_image,
            bind_image_memory2: bind2,
            acquire_image,
            signal_release_image: signal,
            gralloc_usage: load!(c"vkGetSwapchainGrallocUsageANDROID"),
            gralloc_usage2: load!(c"vkGetSwapchainGrallocUsage2ANDROID"),
            gralloc_usage3: load!(c"vkGetSwapchainGrallocUsage3ANDROID"),
            gralloc_usage4: load!(c"vkGetSwapchainGrallocUsage4ANDROID"),
            import_fence_fd: load!(c"vkImportFenceFdKHR"),
            image_format_properties2: instance_fn(
                driver,
                c"vkGetPhysicalDeviceImageFormatProperties2",
            ),
        };
        if fns.gralloc_usage.is_none()
            && fns.gralloc_usage2.is_none()
            && fns.gralloc_usage3.is_none()
            && fns.gralloc_usage4.is_none()
        {
            return Err(vk_error!(
                vk::Result::ERROR_INCOMPATIBLE_DRIVER,
                "driver {}: VK_ANDROID_native_buffer without any \
                 vkGetSwapchainGrallocUsage*ANDROID: VK_ERROR_INCOMPATIBLE_DRIVER",
                driver.name()
            ));
        }
        let has = |id: ExtensionId| app_extensions.contains(&ext::info(id).name());
        Ok(Self {
            fns,
            maintenance1: has(ExtensionId::EXT_SWAPCHAIN_MAINTENANCE1),
            shared_presentable_image: has(ExtensionId::KHR_SHARED_PRESENTABLE_IMAGE),
        })
    }
}

/// A driver instance-level function by its core name (falling back to the `KHR` alias).
pub(super) fn instance_fn<F: Copy>(driver: &DriverInstance, core: &CStr) -> Option<F> {
    let slot = slot_of(core)?;
    if !driver.table.is_present(slot) {
        return None;
    }
    // SAFETY: the slot holds the driver's function of the command's type (the generated table
    // loads the KHR alias into the core slot when that is what the driver has).
    unsafe { driver::void_fn_as(driver.table.get(slot)) }
}

/// `VkPhysicalDevicePresentationPropertiesANDROID::sharedImage` of a driver's physical device
/// (Android's `QueryPresentationProperties`: FALSE unless GPDP2 fills it).
///
/// # Safety
/// `pd` must be a live physical device of `driver`.
pub unsafe fn shared_image_supported(driver: &DriverInstance, pd: vk::PhysicalDevice) -> bool {
    let Some(gpdp2) = instance_fn::<vk::PFN_vkGetPhysicalDeviceProperties2>(
        driver,
        c"vkGetPhysicalDeviceProperties2",
    ) else {
        return false;
    };
    let mut presentation = vk::PhysicalDevicePresentationPropertiesANDROID::default();
    let mut props = vk::PhysicalDeviceProperties2 {
        p_next: std::ptr::addr_of_mut!(presentation).cast(),
        ..Default::default()
    };
    // SAFETY: the driver's query with a valid chain (drivers skip structures they don't know).
    unsafe { gpdp2(pd, &mut props) };
    presentation.shared_image == vk::TRUE
}

/// The driver physical device's `apiVersion`, patch bits cleared (0 when it cannot be asked).
///
/// # Safety
/// `pd` must be a live physical device of `driver`.
pub unsafe fn device_api_version(driver: &DriverInstance, pd: vk::PhysicalDevice) -> u32 {
    let Some(gpdp) = instance_fn::<vk::PFN_vkGetPhysicalDeviceProperties>(
        driver,
        c"vkGetPhysicalDeviceProperties",
    ) else {
        return 0;
    };
    let mut props = vk::PhysicalDeviceProperties::default();
    // SAFETY: the driver's query with a valid output structure.
    unsafe { gpdp(pd, &mut props) };
    props.api_version & !0xfff
}

/// Whether a driver's physical device imports `SYNC_FD` fences, decided as AOSP's
/// `CanSupportSwapchainMaintenance1Extension`: the driver's core
/// `vkGetPhysicalDeviceExternalFenceProperties` reports `IMPORTABLE` (the device extension list
/// is not consulted; present fences are skipped, logged, where `vkImportFenceFdKHR` is missing).
///
/// # Safety
/// `pd` must be a live physical device of `driver`.
pub unsafe fn sync_fd_fence_import(driver: &DriverInstance, pd: vk::PhysicalDevice) -> bool {
    let Some(query) = instance_fn::<vk::PFN_vkGetPhysicalDeviceExternalFenceProperties>(
        driver,
        c"vkGetPhysicalDeviceExternalFenceProperties",
    ) else {
        return false;
    };
    let info = vk::PhysicalDeviceExternalFenceInfo::default()
        .handle_type(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
    let mut props = vk::ExternalFenceProperties::default();
    // SAFETY: the driver's query with valid structures.
    unsafe { query(pd, &info, &mut props) };
    props
        .external_fence_features
        .contains(vk::ExternalFenceFeatureFlags::IMPORTABLE)
}

/// What the loader's WSI can offer on a driver's physical device (for its extension list).
///
/// # Safety
/// `pd` must be a live physical device of `driver`; `device_extensions` its raw list.
pub unsafe fn device_support(
    driver: &DriverInstance,
    pd: vk::PhysicalDevice,
    device_extensions: &[vk::ExtensionProperties],
) -> LoaderDeviceSupport {
    let anb = ext::info(ExtensionId::ANDROID_NATIVE_BUFFER).name();
    let spec = device_extensions
        .iter()
        .find(|e| crate::extensions::name_of(e) == anb)
        .map(|e| e.spec_version);
    let hal = driver.driver.is_hal();
    // AOSP asks the HAL whether or not it has ANB; an ICD without it can have no swapchain.
    if spec.is_none() && !hal {
        return LoaderDeviceSupport::default();
    }
    LoaderDeviceSupport {
        native_buffer_spec: spec,
        hal,
        // SAFETY: the caller guarantees `pd` is a live physical device of `driver`, which is all
        // the query needs.
        shared_image: unsafe { shared_image_supported(driver, pd) },
        // SAFETY: the caller guarantees `pd` is a live physical device of `driver`, which is all
        // the fence query needs.
        sync_fd_fence_import: unsafe { sync_fd_fence_import(driver, pd) },
        present_timestamp: crate::init::loader()
            .config
            .properties
            .get_bool(PRESENT_TIMESTAMP_PROPERTY, false),
        hdr_display: super::hdr_display::has_hdr_display(&crate::init::loader().config.properties),
        // SAFETY: the caller guarantees `pd` is a live physical device of `driver`, which is all
        // the query needs.
        device_api_version: unsafe { device_api_version(driver, pd) },
        image_compression_control: spec
            .is_some_and(|s| s >= crate::extensions::NATIVE_BUFFER_SPEC_IMAGE_COMPRESSION)
            // SAFETY: the caller guarantees `pd` is a live physical device of `driver`, which is
            // all the query needs.
            && unsafe { driver_image_compression_control(driver, pd) },
    }
}

/// The driver's `VkPhysicalDeviceImageCompressionControlFeaturesEXT::imageCompressionControl`
/// (false without `vkGetPhysicalDeviceFeatures2` or its KHR alias).
///
/// # Safety
/// `pd` must be a live physical device of `driver`.
pub unsafe fn driver_image_compression_control(
    driver: &DriverInstance,
    pd: vk::PhysicalDevice,
) -> bool {
    let Some(features2) = instance_fn::<vk::PFN_vkGetPhysicalDeviceFeatures2>(
        driver,
        c"vkGetPhysicalDeviceFeatures2",
    ) else {
        return false;
    };
    let mut compression = vk::PhysicalDeviceImageCompressionControlFeaturesEXT::default();
    let mut features = vk::PhysicalDeviceFeatures2 {
        p_next: std::ptr::addr_of_mut!(compression).cast(),
        ..Default::default()
    };
    // SAFETY: the driver's query with a valid chain.
    unsafe { features2(pd, &mut features) };
    compression.image_compression_control == vk::TRUE
}
