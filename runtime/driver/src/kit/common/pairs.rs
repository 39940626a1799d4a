//! One hook per concept: a 1.0 command routed to the vendor's `…2` hook and back (bind and
//! requirement queries both ways, physical-device queries to `…2`).

// The `unsafe` entry points are Vulkan commands: their safety contract is the command's valid
// usage in the specification, which each one links to.
#![allow(clippy::missing_safety_doc)]

use std::ffi::c_void;
use std::ptr;

use vkgen_generated::vk;

use crate::kit::api::Kit;
use crate::util::{for_each_out, guard, slice};

/// `vkGetPhysicalDeviceFeatures` through the vendor's `…Features2`.
pub(super) unsafe extern "system" fn features_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    p_features: *mut vk::PhysicalDeviceFeatures,
) {
    guard(concat!(module_path!(), "::features_via_2"), (), || {
        let mut f2 = vk::PhysicalDeviceFeatures2::default();
        // SAFETY: the vendor's hook with a valid, chain-less structure.
        unsafe { D::get_physical_device_features2(pd, &mut f2) };
        // SAFETY: `p_features` is the application's vkGetPhysicalDeviceFeatures output, null or
        // valid for one write (`as_mut` skips null).
        if let Some(out) = unsafe { p_features.as_mut() } {
            *out = f2.features;
        }
    })
}

/// `vkGetPhysicalDeviceProperties` through the vendor's `…Properties2`.
pub(super) unsafe extern "system" fn properties_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceProperties,
) {
    guard(concat!(module_path!(), "::properties_via_2"), (), || {
        let mut p2 = vk::PhysicalDeviceProperties2::default();
        // SAFETY: the vendor's hook with a valid, chain-less structure.
        unsafe { D::get_physical_device_properties2(pd, &mut p2) };
        // SAFETY: `p_properties` is the application's vkGetPhysicalDeviceProperties output, null or
        // valid for one write (`as_mut` skips null).
        if let Some(out) = unsafe { p_properties.as_mut() } {
            *out = p2.properties;
        }
    })
}

/// `vkGetPhysicalDeviceQueueFamilyProperties` through the vendor's `…2`.
pub(super) unsafe extern "system" fn queue_families_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    p_count: *mut u32,
    p_properties: *mut vk::QueueFamilyProperties,
) {
    guard(
        concat!(module_path!(), "::queue_families_via_2"),
        (),
        || {
            if p_properties.is_null() {
                // SAFETY: a count query (null properties): the application's `p_count`, null or
                // valid, goes to the vendor's hook unchanged.
                unsafe {
                    D::get_physical_device_queue_family_properties2(pd, p_count, ptr::null_mut())
                };
                return;
            }
            // SAFETY: `p_count` is the application's vkGetPhysicalDeviceQueueFamilyProperties
            // input, null or valid for this call (`as_ref` makes null the early return).
            let Some(&n) = (unsafe { p_count.as_ref() }) else {
                return;
            };
            let mut v = vec![vk::QueueFamilyProperties2::default(); n as usize];
            // SAFETY: `v` holds `*p_count` initialised structures.
            unsafe { D::get_physical_device_queue_family_properties2(pd, p_count, v.as_mut_ptr()) };
            // SAFETY: the vendor wrote at most `n` back into `*p_count`; `p_properties` holds `n`.
            let written = unsafe { *p_count }.min(n) as usize;
            for (i, q) in v.iter().take(written).enumerate() {
                // SAFETY: `i < written <= n`, and `p_properties` holds `n` elements (checked
                // non-null above, the application's count).
                unsafe { *p_properties.add(i) = q.queue_family_properties };
            }
        },
    )
}

/// `vkGetPhysicalDeviceMemoryProperties` through the vendor's `…2`.
pub(super) unsafe extern "system" fn memory_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceMemoryProperties,
) {
    guard(concat!(module_path!(), "::memory_via_2"), (), || {
        let mut m2 = vk::PhysicalDeviceMemoryProperties2::default();
        // SAFETY: the vendor's hook with a valid, chain-less structure.
        unsafe { D::get_physical_device_memory_properties2(pd, &mut m2) };
        // SAFETY: `p_properties` is the application's vkGetPhysicalDeviceMemoryProperties output,
        // null or valid for one write (`as_mut` skips null).
        if let Some(out) = unsafe { p_properties.as_mut() } {
            *out = m2.memory_properties;
        }
    })
}

/// `vkGetPhysicalDeviceFormatProperties` through the vendor's `…2`.
pub(super) unsafe extern "system" fn format_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    format: vk::Format,
    p_properties: *mut vk::FormatProperties,
) {
    guard(concat!(module_path!(), "::format_via_2"), (), || {
        let mut f2 = vk::FormatProperties2::default();
        // SAFETY: the vendor's hook with a valid, chain-less structure.
        unsafe { D::get_physical_device_format_properties2(pd, format, &mut f2) };
        // SAFETY: `p_properties` is the application's vkGetPhysicalDeviceFormatProperties output,
        // null or valid for one write (`as_mut` skips null).
        if let Some(out) = unsafe { p_properties.as_mut() } {
            *out = f2.format_properties;
        }
    })
}

/// `vkGetPhysicalDeviceImageFormatProperties` through the vendor's `…2`.
pub(super) unsafe extern "system" fn image_format_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    format: vk::Format,
    ty: vk::ImageType,
    tiling: vk::ImageTiling,
    usage: vk::ImageUsageFlags,
    flags: vk::ImageCreateFlags,
    p_properties: *mut vk::ImageFormatProperties,
) -> vk::Result {
    guard(
        concat!(module_path!(), "::image_format_via_2"),
        vk::Result::ERROR_FORMAT_NOT_SUPPORTED,
        || {
            let info = vk::PhysicalDeviceImageFormatInfo2 {
                format,
                ty,
                tiling,
                usage,
                flags,
                ..Default::default()
            };
            let mut p2 = vk::ImageFormatProperties2::default();
            // SAFETY: the vendor's hook with valid, chain-less structures.
            let r = unsafe { D::get_physical_device_image_format_properties2(pd, &info, &mut p2) };
            // SAFETY: `p_properties` is the application's vkGetPhysicalDeviceImageFormatProperties
            // output, null or valid for one write (`as_mut` skips null).
            if let Some(out) = unsafe { p_properties.as_mut() } {
                *out = p2.image_format_properties;
            }
            r
        },
    )
}

/// `vkGetPhysicalDeviceSparseImageFormatProperties` through the vendor's `…2`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe extern "system" fn sparse_format_via_2<D: Kit>(
    pd: vk::PhysicalDevice,
    format: vk::Format,
    ty: vk::ImageType,
    samples: vk::SampleCountFlags,
    usage: vk::ImageUsageFlags,
    tiling: vk::ImageTiling,
    p_count: *mut u32,
    p_properties: *mut vk::SparseImageFormatProperties,
) {
    guard(concat!(module_path!(), "::sparse_format_via_2"), (), || {
        let info = vk::PhysicalDeviceSparseImageFormatInfo2 {
            format,
            ty,
            samples,
            usage,
            tiling,
            ..Default::default()
        };
        if p_properties.is_null() {
            // SAFETY: a count query (null properties): the application's `p_count`, null or valid,
            // goes to the vendor's hook unchanged; `info` lives on this stack frame.
            unsafe {
                D::get_physical_device_sparse_image_format_properties2(
                    pd,
                    &info,
                    p_count,
                    ptr::null_mut(),
                )
            };
            return;
        }
        // SAFETY: `p_count` is the application's vkGetPhysicalDeviceSparseImageFormatProperties
        // input, null or valid for this call (`as_ref` makes null the early return).
        let Some(&n) = (unsafe { p_count.as_ref() }) else {
            return;
        };
        let mut v = vec![vk::SparseImageFormatProperties2::default(); n as usize];
        // SAFETY: `v` holds `n` initialised structures.
        unsafe {
            D::get_physical_device_sparse_image_format_properties2(
                pd,
                &info,
                p_count,
                v.as_mut_ptr(),
            )
        };
        // SAFETY: at most `n` written; `p_properties` holds `n`.
        let written = unsafe { *p_count }.min(n) as usize;
        for (i, s) in v.iter().take(written).enumerate() {
            // SAFETY: `i < written <= n`, and `p_properties` holds `n` elements (checked non-null
            // above, the application's count).
            unsafe { *p_properties.add(i) = s.properties };
        }
    })
}

/// `vkBindBufferMemory` as one `vkBindBufferMemory2` bind.
pub(super) unsafe extern "system" fn bind_buffer_memory_via_2<D: Kit>(
    device: vk::Device,
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    offset: vk::DeviceSize,
) -> vk::Result {
    let info = vk::BindBufferMemoryInfo {
        buffer,
        memory,
        memory_offset: offset,
        ..Default::default()
    };
    // SAFETY: the vendor's hook with one valid bind info.
    guard(
        concat!(module_path!(), "::bind_buffer_memory_via_2"),
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || unsafe { D::bind_buffer_memory2(device, 1, &info) },
    )
}

/// `vkBindBufferMemory2` as one `vkBindBufferMemory` per bind (chains are not carried: a
/// driver that needs them implements the `2` command).
pub(super) unsafe extern "system" fn bind_buffer_memory2_via_1<D: Kit>(
    device: vk::Device,
    count: u32,
    p_infos: *const vk::BindBufferMemoryInfo<'_>,
) -> vk::Result {
    guard(
        concat!(module_path!(), "::bind_buffer_memory2_via_1"),
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `p_infos` holds `count` bind infos (vkBindBufferMemory2's valid usage);
            // `slice` takes null or zero as empty.
            for b in unsafe { slice(p_infos, count) } {
                // SAFETY: the vendor's hook with the application's arguments.
                let r =
                    unsafe { D::bind_buffer_memory(device, b.buffer, b.memory, b.memory_offset) };
                if r != vk::Result::SUCCESS {
                    return r;
                }
            }
            vk::Result::SUCCESS
        },
    )
}

/// `vkBindImageMemory` as one `vkBindImageMemory2` bind.
pub(super) unsafe extern "system" fn bind_image_memory_via_2<D: Kit>(
    device: vk::Device,
    image: vk::Image,
    memory: vk::DeviceMemory,
    offset: vk::DeviceSize,
) -> vk::Result {
    let info = vk::BindImageMemoryInfo {
        image,
        memory,
        memory_offset: offset,
        ..Default::default()
    };
    // SAFETY: the vendor's hook with one valid bind info.
    guard(
        concat!(module_path!(), "::bind_image_memory_via_2"),
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || unsafe { D::bind_image_memory2(device, 1, &info) },
    )
}

/// `vkBindImageMemory2` as one `vkBindImageMemory` per bind.
pub(super) unsafe extern "system" fn bind_image_memory2_via_1<D: Kit>(
    device: vk::Device,
    count: u32,
    p_infos: *const vk::BindImageMemoryInfo<'_>,
) -> vk::Result {
    guard(
        concat!(module_path!(), "::bind_image_memory2_via_1"),
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `p_infos` holds `count` bind infos (vkBindImageMemory2's valid usage);
            // `slice` takes null or zero as empty.
            for b in unsafe { slice(p_infos, count) } {
                // SAFETY: the vendor's hook with the application's arguments.
                let r = unsafe { D::bind_image_memory(device, b.image, b.memory, b.memory_offset) };
                if r != vk::Result::SUCCESS {
                    return r;
                }
            }
            vk::Result::SUCCESS
        },
    )
}

/// `vkGetBufferMemoryRequirements` through the vendor's `…2`.
pub(super) unsafe extern "system" fn buffer_requirements_via_2<D: Kit>(
    device: vk::Device,
    buffer: vk::Buffer,
    p_requirements: *mut vk::MemoryRequirements,
) {
    guard(
        concat!(module_path!(), "::buffer_requirements_via_2"),
        (),
        || {
            let info = vk::BufferMemoryRequirementsInfo2 {
                buffer,
                ..Default::default()
            };
            let mut r2 = vk::MemoryRequirements2::default();
            // SAFETY: the vendor's hook with valid structures.
            unsafe { D::get_buffer_memory_requirements2(device, &info, &mut r2) };
            // SAFETY: `p_requirements` is the application's vkGetBufferMemoryRequirements output,
            // null or valid for one write (`as_mut` skips null).
            if let Some(out) = unsafe { p_requirements.as_mut() } {
                *out = r2.memory_requirements;
            }
        },
    )
}

/// `vkGetBufferMemoryRequirements2` through the vendor's 1.0 query (no dedicated allocation).
pub(super) unsafe extern "system" fn buffer_requirements2_via_1<D: Kit>(
    device: vk::Device,
    p_info: *const vk::BufferMemoryRequirementsInfo2<'_>,
    p_requirements: *mut vk::MemoryRequirements2<'_>,
) {
    guard(
        concat!(module_path!(), "::buffer_requirements2_via_1"),
        (),
        || {
            // SAFETY: `p_info` is the application's vkGetBufferMemoryRequirements2 input, null or
            // valid for this call (`as_ref` makes null the early return); `p_requirements` is the
            // application's vkGetBufferMemoryRequirements2 output, null or valid for one write
            // (`as_mut` skips null).
            let (Some(info), Some(out)) = (unsafe { p_info.as_ref() }, unsafe {
                p_requirements.as_mut()
            }) else {
                return;
            };
            // SAFETY: the vendor's hook with the application's arguments.
            unsafe {
                D::get_buffer_memory_requirements(device, info.buffer, &mut out.memory_requirements)
            };
            // SAFETY: `out` is the application's `VkMemoryRequirements2` with its output chain,
            // valid for this call; `no_dedicated` writes only `VkMemoryDedicatedRequirements` in
            // it.
            unsafe { no_dedicated(out.p_next) };
        },
    )
}

/// `vkGetImageMemoryRequirements` through the vendor's `…2`.
pub(super) unsafe extern "system" fn image_requirements_via_2<D: Kit>(
    device: vk::Device,
    image: vk::Image,
    p_requirements: *mut vk::MemoryRequirements,
) {
    guard(
        concat!(module_path!(), "::image_requirements_via_2"),
        (),
        || {
            let info = vk::ImageMemoryRequirementsInfo2 {
                image,
                ..Default::default()
            };
            let mut r2 = vk::MemoryRequirements2::default();
            // SAFETY: the vendor's hook with valid structures.
            unsafe { D::get_image_memory_requirements2(device, &info, &mut r2) };
            // SAFETY: `p_requirements` is the application's vkGetImageMemoryRequirements output,
            // null or valid for one write (`as_mut` skips null).
            if let Some(out) = unsafe { p_requirements.as_mut() } {
                *out = r2.memory_requirements;
            }
        },
    )
}

/// `vkGetImageMemoryRequirements2` through the vendor's 1.0 query (no dedicated allocation).
pub(super) unsafe extern "system" fn image_requirements2_via_1<D: Kit>(
    device: vk::Device,
    p_info: *const vk::ImageMemoryRequirementsInfo2<'_>,
    p_requirements: *mut vk::MemoryRequirements2<'_>,
) {
    guard(
        concat!(module_path!(), "::image_requirements2_via_1"),
        (),
        || {
            // SAFETY: `p_info` is the application's vkGetImageMemoryRequirements2 input, null or
            // valid for this call (`as_ref` makes null the early return); `p_requirements` is the
            // application's vkGetImageMemoryRequirements2 output, null or valid for one write
            // (`as_mut` skips null).
            let (Some(info), Some(out)) = (unsafe { p_info.as_ref() }, unsafe {
                p_requirements.as_mut()
            }) else {
                return;
            };
            // SAFETY: the vendor's hook with the application's arguments.
            unsafe {
                D::get_image_memory_requirements(device, info.image, &mut out.memory_requirements)
            };
            // SAFETY: `out` is the application's `VkMemoryRequirements2` with its output chain,
            // valid for this call; `no_dedicated` writes only `VkMemoryDedicatedRequirements` in
            // it.
            unsafe { no_dedicated(out.p_next) };
        },
    )
}

/// `VkMemoryDedicatedRequirements` in an output chain: neither preferred nor required.
///
/// # Safety
/// `p_next` is null or a valid output chain.
unsafe fn no_dedicated(p_next: *mut c_void) {
    // SAFETY: each structure is cast to the type its sType names.
    unsafe {
        for_each_out(p_next, |s| {
            if (*s).s_type == vk::StructureType::MEMORY_DEDICATED_REQUIREMENTS {
                let d = s.cast::<vk::MemoryDedicatedRequirements<'_>>();
                (*d).prefers_dedicated_allocation = vk::FALSE;
                (*d).requires_dedicated_allocation = vk::FALSE;
            }
        })
    };
}

/// `vkGetImageSparseMemoryRequirements` through the vendor's `…2`.
pub(super) unsafe extern "system" fn sparse_requirements_via_2<D: Kit>(
    device: vk::Device,
    image: vk::Image,
    p_count: *mut u32,
    p_requirements: *mut vk::SparseImageMemoryRequirements,
) {
    guard(
        concat!(module_path!(), "::sparse_requirements_via_2"),
        (),
        || {
            let info = vk::ImageSparseMemoryRequirementsInfo2 {
                image,
                ..Default::default()
            };
            if p_requirements.is_null() {
                // SAFETY: a count query (null requirements): the application's `p_count`, null or
                // valid, goes to the vendor's hook unchanged; `info` lives on this stack frame.
                unsafe {
                    D::get_image_sparse_memory_requirements2(
                        device,
                        &info,
                        p_count,
                        ptr::null_mut(),
                    )
                };
                return;
            }
            // SAFETY: `p_count` is the application's vkGetImageSparseMemoryRequirements input, null
            // or valid for this call (`as_ref` makes null the early return).
            let Some(&n) = (unsafe { p_count.as_ref() }) else {
                return;
            };
            let mut v = vec![vk::SparseImageMemoryRequirements2::default(); n as usize];
            // SAFETY: `v` holds `n` initialised structures.
            unsafe {
                D::get_image_sparse_memory_requirements2(device, &info, p_count, v.as_mut_ptr())
            };
            // SAFETY: at most `n` written; `p_requirements` holds `n`.
            let written = unsafe { *p_count }.min(n) as usize;
            for (i, s) in v.iter().take(written).enumerate() {
                // SAFETY: `i < written <= n`, and `p_requirements` holds `n` elements (checked
                // non-null above, the application's count).
                unsafe { *p_requirements.add(i) = s.memory_requirements };
            }
        },
    )
}

/// `vkGetImageSparseMemoryRequirements2` through the vendor's 1.0 query.
pub(super) unsafe extern "system" fn sparse_requirements2_via_1<D: Kit>(
    device: vk::Device,
    p_info: *const vk::ImageSparseMemoryRequirementsInfo2<'_>,
    p_count: *mut u32,
    p_requirements: *mut vk::SparseImageMemoryRequirements2<'_>,
) {
    guard(
        concat!(module_path!(), "::sparse_requirements2_via_1"),
        (),
        || {
            // SAFETY: `p_info` is the application's vkGetImageSparseMemoryRequirements2 input, null
            // or valid for this call (`as_ref` makes null the early return).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return;
            };
            if p_requirements.is_null() {
                // SAFETY: a count query (null requirements): the application's `p_count` and
                // `info`, both valid for this call, go to the vendor's hook unchanged.
                unsafe {
                    D::get_image_sparse_memory_requirements(
                        device,
                        info.image,
                        p_count,
                        ptr::null_mut(),
                    )
                };
                return;
            }
            // SAFETY: `p_count` is the application's vkGetImageSparseMemoryRequirements2 input,
            // null or valid for this call (`as_ref` makes null the early return).
            let Some(&n) = (unsafe { p_count.as_ref() }) else {
                return;
            };
            let mut v = vec![vk::SparseImageMemoryRequirements::default(); n as usize];
            // SAFETY: `v` holds `n` elements and `p_count` (the application's, holding `n`) tells
            // the vendor so.
            unsafe {
                D::get_image_sparse_memory_requirements(device, info.image, p_count, v.as_mut_ptr())
            };
            // SAFETY: at most `n` written; `p_requirements` holds `n` initialised structures.
            let written = unsafe { *p_count }.min(n) as usize;
            for (i, s) in v.iter().take(written).enumerate() {
                // SAFETY: `i < written <= n`, and `p_requirements` holds `n` initialised structures
                // (checked non-null above, the application's count).
                unsafe { (*p_requirements.add(i)).memory_requirements = *s };
            }
        },
    )
}
