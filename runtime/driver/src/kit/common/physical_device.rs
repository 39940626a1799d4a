//! Physical-device queries answered from the vendor's tables ([`super::super::Features`],
//! [`super::super::Properties`], queue families, memory, formats), each with its `…2` twin.

// The `unsafe` entry points are Vulkan commands: their safety contract is the command's valid
// usage in the specification, which each one links to.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_void};

use vkgen_generated::vk;

use super::args::from_result;
use crate::kit::api::Kit;
use crate::kit::hardware_buffer;
use crate::kit::objects::PhysicalDevice;
use crate::util::{find_in_chain, for_each_out, guard, write_array, write_array_with};

/// Runs `f` on the physical device behind `pd` (nothing for a bad handle: void queries).
fn with_pd<D: Kit, R: Copy>(
    pd: vk::PhysicalDevice,
    fail: R,
    f: impl FnOnce(&PhysicalDevice<D>) -> R,
) -> R {
    guard(concat!(module_path!(), "::with_pd"), fail, || {
        // SAFETY: `pd` is a handle this driver enumerated (the calling command's valid usage), and
        // `from_handle` checks its signature, so a bad one gets `fail`.
        match unsafe { PhysicalDevice::<D>::from_handle(pd) } {
            Some(p) => f(p),
            None => {
                // The failure result (an error, or nothing for a void query) is made here.
                log::warn!("{pd:?} is no physical device of this driver");
                fail
            }
        }
    })
}

/// [`vkGetPhysicalDeviceFeatures`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceFeatures.html)
pub unsafe extern "system" fn get_physical_device_features<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_features: *mut vk::PhysicalDeviceFeatures,
) {
    // SAFETY: `p_features` is the application's vkGetPhysicalDeviceFeatures output, null or valid
    // for one write, which `write_features10` checks for null.
    with_pd::<D, _>(physical_device, (), |p| unsafe {
        p.features.write_features10(p_features)
    })
}

/// [`vkGetPhysicalDeviceFeatures2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceFeatures2.html)
pub unsafe extern "system" fn get_physical_device_features2<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_features: *mut vk::PhysicalDeviceFeatures2<'_>,
) {
    // SAFETY: `p_features` is the application's vkGetPhysicalDeviceFeatures2 output chain, null or
    // valid for this call, which `write_chain` walks.
    with_pd::<D, _>(physical_device, (), |p| unsafe {
        p.features.write_chain(p_features)
    })
}

/// [`vkGetPhysicalDeviceProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceProperties.html)
pub unsafe extern "system" fn get_physical_device_properties<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceProperties,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        // SAFETY: `p_properties` is the application's vkGetPhysicalDeviceProperties output, null or
        // valid for one write (`as_mut` skips null).
        if let Some(out) = unsafe { p_properties.as_mut() } {
            *out = p.properties.properties10();
        }
    })
}

/// [`vkGetPhysicalDeviceProperties2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceProperties2.html)
pub unsafe extern "system" fn get_physical_device_properties2<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceProperties2<'_>,
) {
    // SAFETY: `p_properties` is the application's vkGetPhysicalDeviceProperties2 output chain, null
    // or valid for this call, which `write_chain` walks.
    with_pd::<D, _>(physical_device, (), |p| unsafe {
        p.properties.write_chain(p_properties);
        if let Some(out) = p_properties.as_mut() {
            fill_extension_structures(p, out.p_next);
        }
    })
}

/// Hands every structure of an output chain to [`Kit::fill_extension_structure`], after the
/// tables wrote what they hold.
///
/// # Safety
/// `p_next` is the application's valid output chain.
unsafe fn fill_extension_structures<D: Kit>(p: &PhysicalDevice<D>, p_next: *mut c_void) {
    // SAFETY: the caller's valid output chain; each element is a live structure.
    unsafe { for_each_out(p_next, |s| D::fill_extension_structure(p, &mut *s)) };
}

/// [`vkGetPhysicalDeviceQueueFamilyProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceQueueFamilyProperties.html)
pub unsafe extern "system" fn get_physical_device_queue_family_properties<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_count: *mut u32,
    p_properties: *mut vk::QueueFamilyProperties,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        // SAFETY: `p_count` and `p_properties` are the application's two-call idiom pointers of
        // vkGetPhysicalDeviceQueueFamilyProperties, null or valid for `*p_count` elements.
        let _ = unsafe { write_array(&p.queue_families, p_count, p_properties) };
    })
}

/// [`vkGetPhysicalDeviceQueueFamilyProperties2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceQueueFamilyProperties2.html)
pub unsafe extern "system" fn get_physical_device_queue_family_properties2<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_count: *mut u32,
    p_properties: *mut vk::QueueFamilyProperties2<'_>,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        let fams = &p.queue_families;
        // SAFETY: two-call idiom arguments; elements initialised by the application.
        let _ = unsafe {
            write_array_with(fams.len(), p_count, p_properties, |i, o| {
                o.queue_family_properties = fams[i];
            })
        };
    })
}

/// [`vkGetPhysicalDeviceMemoryProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceMemoryProperties.html)
pub unsafe extern "system" fn get_physical_device_memory_properties<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceMemoryProperties,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        // SAFETY: `p_properties` is the application's vkGetPhysicalDeviceMemoryProperties output,
        // null or valid for one write (`as_mut` skips null).
        if let Some(out) = unsafe { p_properties.as_mut() } {
            *out = p.memory;
        }
    })
}

/// [`vkGetPhysicalDeviceMemoryProperties2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceMemoryProperties2.html)
pub unsafe extern "system" fn get_physical_device_memory_properties2<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceMemoryProperties2<'_>,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        // SAFETY: `p_properties` is the application's vkGetPhysicalDeviceMemoryProperties2 output,
        // null or valid for one write (`as_mut` skips null).
        if let Some(out) = unsafe { p_properties.as_mut() } {
            out.memory_properties = p.memory;
            // SAFETY: the application's valid output chain (VUID-VkPhysicalDeviceMemoryProperties2-pNext-pNext).
            unsafe { fill_extension_structures(p, out.p_next) };
        }
    })
}

/// [`vkGetPhysicalDeviceFormatProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceFormatProperties.html)
pub unsafe extern "system" fn get_physical_device_format_properties<D: Kit>(
    physical_device: vk::PhysicalDevice,
    format: vk::Format,
    p_properties: *mut vk::FormatProperties,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        // SAFETY: `p_properties` is the application's vkGetPhysicalDeviceFormatProperties output,
        // null or valid for one write (`as_mut` skips null).
        if let Some(out) = unsafe { p_properties.as_mut() } {
            *out = D::format_properties(p, format);
        }
    })
}

/// [`vkGetPhysicalDeviceFormatProperties2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceFormatProperties2.html):
/// also fills `VkFormatProperties3` (the 32-bit flags widened).
pub unsafe extern "system" fn get_physical_device_format_properties2<D: Kit>(
    physical_device: vk::PhysicalDevice,
    format: vk::Format,
    p_properties: *mut vk::FormatProperties2<'_>,
) {
    with_pd::<D, _>(physical_device, (), |p| {
        // SAFETY: `p_properties` is the application's vkGetPhysicalDeviceFormatProperties2 output
        // chain, null or valid for this call; `as_mut` turns null into the early return.
        let Some(out) = (unsafe { p_properties.as_mut() }) else {
            return;
        };
        let f = D::format_properties(p, format);
        out.format_properties = f;
        // SAFETY: each structure is cast to the type its sType names.
        unsafe {
            for_each_out(out.p_next, |s| {
                if (*s).s_type == vk::StructureType::FORMAT_PROPERTIES_3 {
                    let p3 = s.cast::<vk::FormatProperties3<'_>>();
                    let wide = |x: vk::FormatFeatureFlags| {
                        vk::FormatFeatureFlags2::from_raw(u64::from(x.as_raw()))
                    };
                    (*p3).linear_tiling_features = wide(f.linear_tiling_features);
                    (*p3).optimal_tiling_features = wide(f.optimal_tiling_features);
                    (*p3).buffer_features = wide(f.buffer_features);
                }
            })
        };
    })
}

/// [`vkGetPhysicalDeviceImageFormatProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceImageFormatProperties.html)
pub unsafe extern "system" fn get_physical_device_image_format_properties<D: Kit>(
    physical_device: vk::PhysicalDevice,
    format: vk::Format,
    ty: vk::ImageType,
    tiling: vk::ImageTiling,
    usage: vk::ImageUsageFlags,
    flags: vk::ImageCreateFlags,
    p_properties: *mut vk::ImageFormatProperties,
) -> vk::Result {
    with_pd::<D, _>(
        physical_device,
        vk::Result::ERROR_FORMAT_NOT_SUPPORTED,
        |p| {
            let info = vk::PhysicalDeviceImageFormatInfo2 {
                format,
                ty,
                tiling,
                usage,
                flags,
                ..Default::default()
            };
            let r = D::image_format_properties(p, &info);
            // SAFETY: `p_properties` is the application's vkGetPhysicalDeviceImageFormatProperties
            // output, null or valid for one write (`as_mut` skips null).
            if let Some(out) = unsafe { p_properties.as_mut() } {
                *out = r.unwrap_or_default();
            }
            from_result(r.map(drop))
        },
    )
}

/// [`vkGetPhysicalDeviceImageFormatProperties2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceImageFormatProperties2.html):
/// the only external handle type is `AHardwareBuffer`, with [`Kit::HARDWARE_BUFFERS`]
/// (`VkAndroidHardwareBufferUsageANDROID` filled); others are `VK_ERROR_FORMAT_NOT_SUPPORTED`.
pub unsafe extern "system" fn get_physical_device_image_format_properties2<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_info: *const vk::PhysicalDeviceImageFormatInfo2<'_>,
    p_properties: *mut vk::ImageFormatProperties2<'_>,
) -> vk::Result {
    with_pd::<D, _>(
        physical_device,
        vk::Result::ERROR_FORMAT_NOT_SUPPORTED,
        |p| {
            // SAFETY: `p_info` is the application's vkGetPhysicalDeviceImageFormatProperties2
            // input, null or valid for this call (`as_ref` makes null the early return).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_FORMAT_NOT_SUPPORTED,
                    "vkGetPhysicalDeviceImageFormatProperties2 without a format info"
                );
            };
            // SAFETY: `info` is the application's format info with a chain valid for this call, so
            // a structure found by its sType is that structure.
            let external = unsafe {
                find_in_chain::<vk::PhysicalDeviceExternalImageFormatInfo<'_>>(
                    info.p_next,
                    vk::StructureType::PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO,
                )
            };
            let handle_type = external.map_or(Default::default(), |e| e.handle_type);
            let ahb = D::HARDWARE_BUFFERS && handle_type == hardware_buffer::HANDLE_TYPE;
            let r = if !handle_type.is_empty() && !ahb {
                Err(vk::Result::ERROR_FORMAT_NOT_SUPPORTED)
            } else {
                D::image_format_properties(p, info)
            };
            // SAFETY: `p_properties` is the application's vkGetPhysicalDeviceImageFormatProperties2
            // output, null or valid for one write (`as_mut` skips null).
            if let Some(out) = unsafe { p_properties.as_mut() } {
                out.image_format_properties = r.unwrap_or_default();
                if ahb && r.is_ok() {
                    // SAFETY: `out` is the application's output structure with its chain, valid for
                    // this call, and `info` its input; the extras are written only into structures
                    // of the chain.
                    unsafe { hardware_buffer::write_image_format_extras(info, out) };
                }
                if r.is_ok() {
                    let (flags, rates) = D::image_compression_properties(p, info);
                    // SAFETY: a valid output chain; the sType names the structure.
                    unsafe {
                        for_each_out(out.p_next, |s| {
                            if (*s).s_type == vk::StructureType::IMAGE_COMPRESSION_PROPERTIES_EXT {
                                let c = s.cast::<vk::ImageCompressionPropertiesEXT<'_>>();
                                (*c).image_compression_flags = flags;
                                (*c).image_compression_fixed_rate_flags = rates;
                            }
                        })
                    };
                }
            }
            from_result(r.map(drop))
        },
    )
}

/// [`vkGetPhysicalDeviceSparseImageFormatProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceSparseImageFormatProperties.html):
/// no sparse formats.
pub unsafe extern "system" fn get_physical_device_sparse_image_format_properties<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    _format: vk::Format,
    _ty: vk::ImageType,
    _samples: vk::SampleCountFlags,
    _usage: vk::ImageUsageFlags,
    _tiling: vk::ImageTiling,
    p_count: *mut u32,
    p_properties: *mut vk::SparseImageFormatProperties,
) {
    // SAFETY: `p_count` and `p_properties` are the application's two-call idiom pointers of
    // vkGetPhysicalDeviceSparseImageFormatProperties, null or valid; zero elements are written.
    guard(
        "vkGetPhysicalDeviceSparseImageFormatProperties",
        (),
        || unsafe {
            let _ = write_array::<vk::SparseImageFormatProperties>(&[], p_count, p_properties);
        },
    )
}

/// [`vkGetPhysicalDeviceSparseImageFormatProperties2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceSparseImageFormatProperties2.html):
/// no sparse formats.
pub unsafe extern "system" fn get_physical_device_sparse_image_format_properties2<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    _p_info: *const vk::PhysicalDeviceSparseImageFormatInfo2<'_>,
    p_count: *mut u32,
    p_properties: *mut vk::SparseImageFormatProperties2<'_>,
) {
    // SAFETY: `p_count` and `p_properties` are the application's two-call idiom pointers of
    // vkGetPhysicalDeviceSparseImageFormatProperties2, null or valid; zero elements are written.
    guard(
        "vkGetPhysicalDeviceSparseImageFormatProperties2",
        (),
        || unsafe {
            let _ = write_array_with(0, p_count, p_properties, |_, _| {});
        },
    )
}

/// [`vkGetPhysicalDeviceExternalBufferProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceExternalBufferProperties.html):
/// `AHardwareBuffer` with [`Kit::HARDWARE_BUFFERS`]; no other external handle type.
pub unsafe extern "system" fn get_physical_device_external_buffer_properties<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    p_info: *const vk::PhysicalDeviceExternalBufferInfo<'_>,
    p_properties: *mut vk::ExternalBufferProperties<'_>,
) {
    guard("vkGetPhysicalDeviceExternalBufferProperties", (), || {
        // SAFETY: `p_info` and `p_properties` are the application's
        // vkGetPhysicalDeviceExternalBufferProperties input and output, each null or valid for this
        // call; both are used only where `as_ref`/`as_mut` found them non-null.
        let (info, out) = unsafe { (p_info.as_ref(), p_properties.as_mut()) };
        if let Some(out) = out {
            let ahb = D::HARDWARE_BUFFERS
                && info.is_some_and(|i| i.handle_type == hardware_buffer::HANDLE_TYPE);
            out.external_memory_properties = if ahb {
                hardware_buffer::external_memory_properties(false)
            } else {
                vk::ExternalMemoryProperties::default()
            };
        }
    })
}

/// [`vkGetPhysicalDeviceExternalFenceProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceExternalFenceProperties.html):
/// no external handle type is supported.
pub unsafe extern "system" fn get_physical_device_external_fence_properties<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    _p_info: *const vk::PhysicalDeviceExternalFenceInfo<'_>,
    p_properties: *mut vk::ExternalFenceProperties<'_>,
) {
    guard("vkGetPhysicalDeviceExternalFenceProperties", (), || {
        // SAFETY: `p_properties` is the application's vkGetPhysicalDeviceExternalFenceProperties
        // output, null or valid for one write (`as_mut` skips null).
        if let Some(out) = unsafe { p_properties.as_mut() } {
            out.export_from_imported_handle_types = Default::default();
            out.compatible_handle_types = Default::default();
            out.external_fence_features = Default::default();
        }
    })
}

/// [`vkGetPhysicalDeviceExternalSemaphoreProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceExternalSemaphoreProperties.html):
/// no external handle type is supported.
pub unsafe extern "system" fn get_physical_device_external_semaphore_properties<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    _p_info: *const vk::PhysicalDeviceExternalSemaphoreInfo<'_>,
    p_properties: *mut vk::ExternalSemaphoreProperties<'_>,
) {
    guard("vkGetPhysicalDeviceExternalSemaphoreProperties", (), || {
        // SAFETY: `p_properties` is the application's
        // vkGetPhysicalDeviceExternalSemaphoreProperties output, null or valid for one write
        // (`as_mut` skips null).
        if let Some(out) = unsafe { p_properties.as_mut() } {
            out.export_from_imported_handle_types = Default::default();
            out.compatible_handle_types = Default::default();
            out.external_semaphore_features = Default::default();
        }
    })
}

/// [`vkGetPhysicalDeviceToolProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetPhysicalDeviceToolProperties.html):
/// a driver is no tool.
pub unsafe extern "system" fn get_physical_device_tool_properties<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    p_count: *mut u32,
    p_properties: *mut vk::PhysicalDeviceToolProperties<'_>,
) -> vk::Result {
    // SAFETY: `p_count` and `p_properties` are the application's two-call idiom pointers of
    // vkGetPhysicalDeviceToolProperties, null or valid; no tools are written.
    guard(
        "vkGetPhysicalDeviceToolProperties",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || unsafe { write_array_with(0, p_count, p_properties, |_, _| {}) },
    )
}

/// [`vkEnumerateDeviceExtensionProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEnumerateDeviceExtensionProperties.html)
pub unsafe extern "system" fn enumerate_device_extension_properties<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_layer_name: *const c_char,
    p_count: *mut u32,
    p_properties: *mut vk::ExtensionProperties,
) -> vk::Result {
    with_pd::<D, _>(
        physical_device,
        vk::Result::ERROR_INITIALIZATION_FAILED,
        |p| {
            if !p_layer_name.is_null() {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_LAYER_NOT_PRESENT,
                    "vkEnumerateDeviceExtensionProperties: a driver has no layers"
                );
            }
            // SAFETY: `p_count` and `p_properties` are the application's two-call idiom pointers of
            // vkEnumerateDeviceExtensionProperties, null or valid for `*p_count` elements.
            unsafe { p.extensions.write_properties(p_count, p_properties) }
        },
    )
}

/// [`vkEnumerateDeviceLayerProperties`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkEnumerateDeviceLayerProperties.html)
pub unsafe extern "system" fn enumerate_device_layer_properties<D: Kit>(
    _physical_device: vk::PhysicalDevice,
    p_count: *mut u32,
    p_properties: *mut vk::LayerProperties,
) -> vk::Result {
    // SAFETY: `p_count` and `p_properties` are the application's two-call idiom pointers of
    // vkEnumerateDeviceLayerProperties, null or valid; no layers are written.
    guard(
        "vkEnumerateDeviceLayerProperties",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || unsafe { write_array::<vk::LayerProperties>(&[], p_count, p_properties) },
    )
}
