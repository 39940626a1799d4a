//! The usage the swapchain's buffers are allocated with (AOSP `getProducerUsage` and
//! `getProducerUsageGPDIFP2`), and the allocator query both it and the surface formats rest on
//! (`AHardwareBuffer_isSupported`).
//!
//! **Order.** The driver's `vkGetPhysicalDeviceImageFormatProperties2` with
//! `VkPhysicalDeviceExternalImageFormatInfo(AHB)` first (sRGB asked as UNORM: AHardwareBuffer has
//! no sRGB format; `PROTECTED`, and `MUTABLE_FORMAT | EXTENDED_USAGE` for a mutable-format
//! swapchain), its `VkAndroidHardwareBufferUsageANDROID` being the usage. That query cannot
//! carry `VkSwapchainImageUsageFlagsANDROID`, so for a shared swapchain (`SHARED` image usage)
//! the loader asks the **allocator** whether the buffer can also be `FRONT_BUFFER`:
//! `AHardwareBuffer_isSupported` with the swapchain's extent, array layers, format and that
//! usage plus `FRONT_BUFFER`. Yes: the usage plus `FRONT_BUFFER`. No (or the query failed): the
//! first of `vkGetSwapchainGrallocUsage4/3/2/ANDROID` the driver has decides instead (4 and 2 are
//! told the `SHARED` bit, so the driver can add its front-buffer bits); a driver error there is
//! `VK_ERROR_SURFACE_LOST_KHR`, a driver with none of them gives usage 0.
//!
//! **Divergence.** AOSP fills `AHardwareBuffer_Desc::format` with the `VkFormat` value itself
//! (37 for `R8G8B8A8_UNORM`, which as an AHardwareBuffer format is `RAW10`), so on most devices
//! its front-buffer check fails and it falls back to the gralloc queries even where the
//! allocator could front-buffer the real format. vkgen asks about the pixel format the window
//! will allocate (`AHARDWAREBUFFER_FORMAT_R8G8B8A8_UNORM` for that swapchain), so the fallback
//! runs only where the allocator says no.
//!
//! Every query gets the application's `VkImageCompressionControlEXT` (unchained) in its chain,
//! as AOSP passes it, so the driver can turn fixed-rate compression into gralloc usage bits.

use std::ffi::{c_int, c_void};

use vkgen_abi::hardware_buffer::AHardwareBufferDesc;
use vkgen_abi::native_window::buffer_usage;
use vkgen_abi::vk_error;

use super::formats::gralloc1_to_buffer_usage;
use crate::dispatch_data::term::DeviceFns;
use vkgen_generated::vk;
use vkgen_generated::vk::StructureTypeExt as _;

/// What the swapchain's buffers are asked for.
pub(super) struct Request<'a> {
    pub info: &'a vk::SwapchainCreateInfoKHR<'a>,
    /// The window's pixel format (`AHARDWAREBUFFER_FORMAT_*`) for the swapchain's format.
    pub pixel_format: c_int,
    /// `SHARED` for the shared present modes.
    pub swapchain_usage: vk::SwapchainImageUsageFlagsANDROID,
    /// Null or the application's `VkImageCompressionControlEXT`, copied without its chain.
    pub compression: *const c_void,
}

/// The swapchain images' create flags: `PROTECTED` for a protected swapchain, and for
/// `VK_SWAPCHAIN_CREATE_MUTABLE_FORMAT_BIT_KHR` `MUTABLE_FORMAT | EXTENDED_USAGE` (AOSP: views
/// of another format may need usages the image's own format lacks).
pub(super) fn image_flags(info: &vk::SwapchainCreateInfoKHR<'_>) -> vk::ImageCreateFlags {
    let mut flags = vk::ImageCreateFlags::empty();
    if info.flags.contains(vk::SwapchainCreateFlagsKHR::PROTECTED) {
        flags |= vk::ImageCreateFlags::PROTECTED;
    }
    if info
        .flags
        .contains(vk::SwapchainCreateFlagsKHR::MUTABLE_FORMAT)
    {
        flags |= vk::ImageCreateFlags::MUTABLE_FORMAT | vk::ImageCreateFlags::EXTENDED_USAGE;
    }
    flags
}

/// `AHardwareBuffer_isSupported(desc)`: the platform allocator on Android; on Linux hosts the
/// runtime's gralloc rules, asked in-process (they are what `libnativewindow.so` and the
/// window's buffers use; `desktop` feature).
pub(crate) fn is_supported(desc: &AHardwareBufferDesc) -> bool {
    #[cfg(target_os = "android")]
    {
        #[link(name = "nativewindow")]
        extern "C" {
            fn AHardwareBuffer_isSupported(desc: *const AHardwareBufferDesc) -> c_int;
        }
        // SAFETY: `desc` is a borrowed, fully initialised descriptor; the NDK function only
        // reads it during the call.
        unsafe { AHardwareBuffer_isSupported(desc) == 1 }
    }
    #[cfg(all(not(target_os = "android"), feature = "desktop"))]
    {
        vkgen_platform::hardware_buffer::check_supported(desc).is_ok()
    }
    // A host loader built without the runtime (`--no-default-features`, e.g. from another
    // registry) has no allocator to ask: the driver alone decides.
    #[cfg(all(not(target_os = "android"), not(feature = "desktop")))]
    {
        let _ = desc;
        true
    }
}

/// The producer usage of the swapchain's buffers, in the order of the module notes.
///
/// # Safety
/// `fns` must be a live device's driver functions; `req.compression` null or a valid
/// `VkImageCompressionControlEXT` without a chain.
pub(super) unsafe fn producer_usage(fns: &DeviceFns, req: &Request<'_>) -> Result<u64, vk::Result> {
    // SAFETY: the caller guarantees `fns` are a live device's driver functions and
    // `req.compression` a valid unchained structure or null.
    if let Some(usage) = unsafe { ahb_usage(fns, req) } {
        return Ok(usage);
    }
    // SAFETY: `fns` are the caller's live driver functions; the request's chain is the same
    // borrowed structure `ahb_usage` just read.
    unsafe { gralloc_usage(fns, req) }
}

/// The usage from the driver's `vkGetPhysicalDeviceImageFormatProperties2` for an
/// AHardwareBuffer-backed image, with `FRONT_BUFFER` for a shared swapchain if the allocator
/// has it; `None` when the driver lacks the query, it fails, or a shared swapchain's buffer
/// cannot be a front buffer.
///
/// # Safety
/// As [`producer_usage`].
unsafe fn ahb_usage(fns: &DeviceFns, req: &Request<'_>) -> Option<u64> {
    let gpdifp2 = fns.image_format_properties2?;
    let info = req.info;
    let external = vk::PhysicalDeviceExternalImageFormatInfo {
        p_next: req.compression,
        handle_type: vk::ExternalMemoryHandleTypeFlags::ANDROID_HARDWARE_BUFFER_ANDROID,
        ..Default::default()
    };
    let format = if info.image_format == vk::Format::R8G8B8A8_SRGB {
        vk::Format::R8G8B8A8_UNORM
    } else {
        info.image_format
    };
    let format_info = vk::PhysicalDeviceImageFormatInfo2 {
        p_next: std::ptr::addr_of!(external).cast(),
        format,
        ty: vk::ImageType::TYPE_2D,
        tiling: vk::ImageTiling::OPTIMAL,
        usage: info.image_usage,
        flags: image_flags(info),
        ..Default::default()
    };
    let mut ahb_usage = vk::AndroidHardwareBufferUsageANDROID::default();
    // Not needed by the loader, but some drivers (lavapipe) write it unconditionally when
    // the input has an external-format info.
    let mut external_props = vk::ExternalImageFormatProperties {
        p_next: std::ptr::addr_of_mut!(ahb_usage).cast(),
        ..Default::default()
    };
    let mut props = vk::ImageFormatProperties2 {
        p_next: std::ptr::addr_of_mut!(external_props).cast(),
        ..Default::default()
    };
    // SAFETY: `gpdifp2` is the driver's query for its live `fns.physical_device` (the caller's
    // guarantee); the input and output chains are locals (and the caller's valid compression
    // struct) that outlive the call.
    let r = unsafe { gpdifp2(fns.physical_device, &format_info, &mut props) };
    if r != vk::Result::SUCCESS {
        log::debug!(
            "vkGetPhysicalDeviceImageFormatProperties2 (AHB usage) failed with {r:?}; falling \
             back to vkGetSwapchainGrallocUsage*ANDROID"
        );
        return None;
    }
    let usage = ahb_usage.android_hardware_buffer_usage;
    if !req
        .swapchain_usage
        .contains(vk::SwapchainImageUsageFlagsANDROID::SHARED)
    {
        return Some(usage);
    }
    if front_buffer_supported(req, usage) {
        return Some(usage | buffer_usage::FRONT_BUFFER);
    }
    log::debug!(
        "the allocator has no FRONT_BUFFER {}x{} buffer of format {:#x} with usage {usage:#x}; \
         falling back to vkGetSwapchainGrallocUsage*ANDROID",
        info.image_extent.width,
        info.image_extent.height,
        req.pixel_format
    );
    None
}

/// Whether the allocator can give a shared swapchain's buffer `usage | FRONT_BUFFER` (AOSP asks
/// with the swapchain's extent and array layers; stride is ignored by the query).
fn front_buffer_supported(req: &Request<'_>, usage: u64) -> bool {
    let desc = AHardwareBufferDesc {
        width: req.info.image_extent.width,
        height: req.info.image_extent.height,
        layers: req.info.image_array_layers,
        format: u32::try_from(req.pixel_format).unwrap_or(0),
        usage: usage | buffer_usage::FRONT_BUFFER,
        ..Default::default()
    };
    is_supported(&desc)
}

/// The buffers' usage from the first `vkGetSwapchainGrallocUsage{4,3,2,}ANDROID` the driver
/// has (0 with none); a driver failure there is `VK_ERROR_SURFACE_LOST_KHR`.
///
/// # Safety
/// `fns` must be a live device's driver functions.
unsafe fn gralloc_usage(fns: &DeviceFns, req: &Request<'_>) -> Result<u64, vk::Result> {
    let (info, swapchain_usage, compression_ptr) = (req.info, req.swapchain_usage, req.compression);
    let failed = |r: vk::Result, which: &str| {
        vk_error!(
            vk::Result::ERROR_SURFACE_LOST_KHR,
            "vkGetSwapchainGrallocUsage{which}ANDROID failed: {r:?}"
        )
    };
    if let Some(f) = fns.gralloc_usage4 {
        let usage_info = vk::GrallocUsageInfo2ANDROID {
            s_type: vk::StructureType::GRALLOC_USAGE_INFO_2_ANDROID,
            p_next: compression_ptr,
            format: info.image_format,
            image_usage: info.image_usage,
            swapchain_image_usage: swapchain_usage,
        };
        let mut usage = 0u64;
        let _trace = crate::trace::section("GetSwapchainGrallocUsage4ANDROID");
        // SAFETY: the driver's function with valid structures.
        let r = unsafe { f(fns.device, &usage_info, &mut usage) };
        return if r == vk::Result::SUCCESS {
            Ok(usage)
        } else {
            Err(failed(r, "4"))
        };
    }
    if let Some(f) = fns.gralloc_usage3 {
        let usage_info = vk::GrallocUsageInfoANDROID {
            s_type: vk::StructureType::GRALLOC_USAGE_INFO_ANDROID,
            p_next: compression_ptr,
            format: info.image_format,
            image_usage: info.image_usage,
        };
        let mut usage = 0u64;
        let _trace = crate::trace::section("GetSwapchainGrallocUsage3ANDROID");
        // SAFETY: `f` is the driver's vkGetSwapchainGrallocUsage3ANDROID for its live `fns.device`;
        // `usage_info` and `usage` are locals that outlive the call.
        let r = unsafe { f(fns.device, &usage_info, &mut usage) };
        return if r == vk::Result::SUCCESS {
            Ok(usage)
        } else {
            Err(failed(r, "3"))
        };
    }
    if let Some(f) = fns.gralloc_usage2 {
        let (mut consumer, mut producer) = (0u64, 0u64);
        let _trace = crate::trace::section("GetSwapchainGrallocUsage2ANDROID");
        // SAFETY: `f` is the driver's vkGetSwapchainGrallocUsage2ANDROID for its live `fns.device`;
        // the usage outputs are locals that outlive the call.
        let r = unsafe {
            f(
                fns.device,
                info.image_format,
                info.image_usage,
                swapchain_usage,
                &mut consumer,
                &mut producer,
            )
        };
        return if r == vk::Result::SUCCESS {
            Ok(gralloc1_to_buffer_usage(producer, consumer))
        } else {
            Err(failed(r, "2"))
        };
    }
    if let Some(f) = fns.gralloc_usage {
        let mut legacy: c_int = 0;
        let _trace = crate::trace::section("GetSwapchainGrallocUsageANDROID");
        // SAFETY: `f` is the driver's vkGetSwapchainGrallocUsageANDROID for its live `fns.device`;
        // `legacy` is a local that outlives the call.
        let r = unsafe { f(fns.device, info.image_format, info.image_usage, &mut legacy) };
        return if r == vk::Result::SUCCESS {
            Ok(u64::from(legacy as u32))
        } else {
            Err(failed(r, ""))
        };
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The commands a `DeviceFns` must hold that the usage query never calls: each answers
    // with an error so that a call would show in the result.
    unsafe extern "system" fn create_image(
        _: vk::Device,
        _: *const vk::ImageCreateInfo<'_>,
        _: *const vk::AllocationCallbacks<'_>,
        _: *mut vk::Image,
    ) -> vk::Result {
        vk::Result::ERROR_UNKNOWN
    }
    unsafe extern "system" fn destroy_image(
        _: vk::Device,
        _: vk::Image,
        _: *const vk::AllocationCallbacks<'_>,
    ) {
    }
    unsafe extern "system" fn acquire_image(
        _: vk::Device,
        _: vk::Image,
        _: c_int,
        _: vk::Semaphore,
        _: vk::Fence,
    ) -> vk::Result {
        vk::Result::ERROR_UNKNOWN
    }
    unsafe extern "system" fn signal_release(
        _: vk::Queue,
        _: u32,
        _: *const vk::Semaphore,
        _: vk::Image,
        _: *mut c_int,
    ) -> vk::Result {
        vk::Result::ERROR_UNKNOWN
    }
    unsafe extern "system" fn usage4(
        _: vk::Device,
        _: *const vk::GrallocUsageInfo2ANDROID,
        usage: *mut u64,
    ) -> vk::Result {
        // SAFETY: the loader passes a writable local.
        unsafe { *usage = 4 };
        vk::Result::SUCCESS
    }
    unsafe extern "system" fn usage3(
        _: vk::Device,
        _: *const vk::GrallocUsageInfoANDROID,
        usage: *mut u64,
    ) -> vk::Result {
        // SAFETY: the loader passes a writable local.
        unsafe { *usage = 3 };
        vk::Result::SUCCESS
    }
    unsafe extern "system" fn usage2(
        _: vk::Device,
        _: vk::Format,
        _: vk::ImageUsageFlags,
        _: vk::SwapchainImageUsageFlagsANDROID,
        _consumer: *mut u64,
        _producer: *mut u64,
    ) -> vk::Result {
        vk::Result::SUCCESS
    }
    unsafe extern "system" fn usage1(
        _: vk::Device,
        _: vk::Format,
        _: vk::ImageUsageFlags,
        usage: *mut c_int,
    ) -> vk::Result {
        // SAFETY: the loader passes a writable local.
        unsafe { *usage = 1 };
        vk::Result::SUCCESS
    }

    fn fns() -> DeviceFns {
        DeviceFns {
            device: vk::Device::null(),
            physical_device: vk::PhysicalDevice::null(),
            create_image,
            destroy_image,
            bind_image_memory2: None,
            acquire_image,
            signal_release_image: signal_release,
            gralloc_usage: None,
            gralloc_usage2: None,
            gralloc_usage3: None,
            gralloc_usage4: None,
            import_fence_fd: None,
            image_format_properties2: None,
        }
    }

    /// AOSP's `getProducerUsage` traces the one gralloc query it makes with the query's name.
    #[test]
    fn the_gralloc_query_made_is_traced_with_its_name() {
        let info = vk::SwapchainCreateInfoKHR::default();
        let req = Request {
            info: &info,
            pixel_format: 1,
            swapchain_usage: vk::SwapchainImageUsageFlagsANDROID::empty(),
            compression: std::ptr::null(),
        };
        let pid = std::process::id();
        let all = DeviceFns {
            gralloc_usage: Some(usage1),
            gralloc_usage2: Some(usage2),
            gralloc_usage3: Some(usage3),
            gralloc_usage4: Some(usage4),
            ..fns()
        };
        let only3 = DeviceFns {
            gralloc_usage: Some(usage1),
            gralloc_usage3: Some(usage3),
            ..fns()
        };
        let only2 = DeviceFns {
            gralloc_usage: Some(usage1),
            gralloc_usage2: Some(usage2),
            ..fns()
        };
        let only1 = DeviceFns {
            gralloc_usage: Some(usage1),
            ..fns()
        };
        for (fns, name, usage) in [
            (all, "GetSwapchainGrallocUsage4ANDROID", 4),
            (only3, "GetSwapchainGrallocUsage3ANDROID", 3),
            (only2, "GetSwapchainGrallocUsage2ANDROID", 0),
            (only1, "GetSwapchainGrallocUsageANDROID", 1),
        ] {
            // SAFETY: `fns` holds functions that only write their outputs.
            let (got, markers) = crate::trace::record(|| unsafe { gralloc_usage(&fns, &req) });
            assert_eq!(got, Ok(usage), "{name}");
            assert_eq!(markers, [format!("B|{pid}|{name}"), format!("E|{pid}")]);
        }
        // No query, no section.
        // SAFETY: `fns()` holds no usage query, and the others never run.
        let (got, markers) = crate::trace::record(|| unsafe { gralloc_usage(&fns(), &req) });
        assert_eq!((got, markers.len()), (Ok(0), 0));
    }
}
