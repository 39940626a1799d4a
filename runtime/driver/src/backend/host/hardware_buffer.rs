//! `VK_ANDROID_external_memory_android_hardware_buffer` on the host ICD.
//!
//! An `AHardwareBuffer` is a memfd (the runtime's gralloc). As for native buffers, its pages are
//! `mmap`ed and imported as host memory (`VK_EXT_external_memory_host`): zero copy where the
//! host's `LINEAR` layout is the allocator's (lavapipe), copy-backed where it is not (NVIDIA).
//! The host sees neither the handle type nor the external format; this module
//! translates:
//!
//! * **Images** created with the `AHardwareBuffer` handle type become `LINEAR` host images
//!   importable as host memory (the buffer's layout is linear), recorded with what an export
//!   needs (format, extent, usage). Their binding is decided when the memory is allocated (a
//!   buffer import is always dedicated): where each plane's host row pitch equals the buffer's
//!   the planes are bound on the pages (zero copy); otherwise
//!   the image is *copy-backed* ([`copy_backed`]: its own memory, the planes copied at the
//!   application's ownership transfers; NVIDIA's 256-byte `LINEAR` pitch needs this).
//! * **Multi-planar formats** (NV12 → `G8_B8R8_2PLANE_420_UNORM`, YV12 →
//!   `G8_B8_R8_3PLANE_420_UNORM`): where the host supports the format `LINEAR` and `DISJOINT`,
//!   the image is created disjoint and each plane bound at the buffer's plane offset (which is
//!   how YV12's Cr-before-Cb order is absorbed). Where the host has no such format (lavapipe
//!   22.3), the image is **emulated by its planes**: one host image per plane in the plane's
//!   compatible format (`R8`, `R8G8`), bound at the plane's offset; the application's image
//!   handle is plane 0's, and an image view of `VK_IMAGE_ASPECT_PLANE_i_BIT` (which
//!   `VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT` allows, without a Y′CbCr conversion) is a view of
//!   plane *i*'s image. Such a format reports the plane images' features without the
//!   conversion ones, so an application samples the planes and converts itself.
//! * **Memory**: an import maps the buffer and imports the mapping; an export allocates a
//!   buffer (described like the dedicated image, or a `BLOB`) and does the same. The memory
//!   keeps the buffer referenced and the mapping alive until `vkFreeMemory`;
//!   `vkGetMemoryAndroidHardwareBufferANDROID` hands out another reference.
//! * **Buffers** created with the handle type are created importable as host memory.
//! * **Queries**: the properties query answers the host-pointer memory types and the `LINEAR`
//!   features of the mapped format; image-format queries for the handle type ask the host about
//!   `LINEAR` host-allocation images and add `VkAndroidHardwareBufferUsageANDROID`.
//!
//! * **NV21** (an external format) is sampled as `G8_B8R8_2PLANE_420_UNORM` with its chroma plane
//!   bound at its Cr sample; the suggested components swap Cb and Cr back
//!   (`kit_ahb::sampling_format`). Conversions and views of the external format get the
//!   sampling format here. It needs the host's multi-planar format: where the host has none
//!   (lavapipe) its features are reported empty.

use std::collections::HashMap;
use std::ptr;
use std::sync::Mutex;

use vkgen_generated::vk;

use super::copy_backed::{self};
use super::names::MEMORY_HOST_NAME;
use super::registry::{has_extension, instance_of, lock, AnbDevice, HostDevice, HostInstance};
use crate::kit::hardware_buffer::{self as kit_ahb, HANDLE_TYPE};
use crate::util::{find_in_chain, ChainEdit};

mod memory;
mod planes;
pub(super) mod state;
pub(super) use memory::{allocate_memory, bind_images, forget_memory, memory_buffer};
use memory::{allocator_layout_fits, force_copy};
use planes::{plane_formats, PLANE_ASPECTS};
use state::{AhbDevice, AhbImage, HostLayout};

impl AhbDevice {
    /// # Safety
    /// `dev` is a live host device with `VK_EXT_external_memory_host` enabled.
    pub(super) unsafe fn new(dev_fns: &ash::Device, anb: &AnbDevice, handle: vk::Device) -> Self {
        let page = rustix::param::page_size().max(anb.import_alignment as usize);
        let mut bits = 0;
        // SAFETY: an anonymous page the host may inspect; unmapped right after.
        unsafe {
            if let Ok(p) = rustix::mm::mmap_anonymous(
                ptr::null_mut(),
                page,
                rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
                rustix::mm::MapFlags::PRIVATE,
            ) {
                let mut props = vk::MemoryHostPointerPropertiesEXT::default();
                if (anb.memory_host.get_memory_host_pointer_properties_ext)(
                    handle,
                    vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT,
                    p,
                    &mut props,
                ) == vk::Result::SUCCESS
                {
                    bits = props.memory_type_bits;
                }
                let _ = rustix::mm::munmap(p, page);
            }
        }
        let _ = dev_fns;
        Self {
            host_pointer_bits: bits,
            images: Mutex::new(HashMap::new()),
            memories: Mutex::new(HashMap::new()),
        }
    }
}

/// Whether the host has `format` as a `LINEAR` image usable for `usage` with `DISJOINT` planes.
fn host_has_planar(inst: &HostInstance, pd: vk::PhysicalDevice, format: vk::Format) -> bool {
    // SAFETY: a core query on the host's own physical device.
    let p = unsafe { inst.fns.get_physical_device_format_properties(pd, format) };
    p.linear_tiling_features
        .contains(vk::FormatFeatureFlags::DISJOINT | vk::FormatFeatureFlags::SAMPLED_IMAGE)
}

fn host_linear_features(
    inst: &HostInstance,
    pd: vk::PhysicalDevice,
    format: vk::Format,
) -> vk::FormatFeatureFlags {
    // SAFETY: a core query on the host's own physical device.
    unsafe { inst.fns.get_physical_device_format_properties(pd, format) }.linear_tiling_features
}

/// The features an image of `f` imported from a buffer has here.
fn features_of(
    inst: &HostInstance,
    pd: vk::PhysicalDevice,
    f: &kit_ahb::HardwareBufferFormat,
) -> vk::FormatFeatureFlags2 {
    let flags = if f.format == vk::Format::UNDEFINED {
        // An external format (NV21): sampled through a Y′CbCr conversion as its sampling
        // format, which the host must have as a real multi-planar format (plane views need a
        // Vulkan format the application can name).
        match kit_ahb::pixel_format_of_external(f.external_format).map(kit_ahb::sampling_format) {
            Some(sf) if sf != vk::Format::UNDEFINED && host_has_planar(inst, pd, sf) => {
                host_linear_features(inst, pd, sf)
            }
            _ => vk::FormatFeatureFlags::empty(),
        }
    } else if let (Some(planes), false) =
        (plane_formats(f.format), host_has_planar(inst, pd, f.format))
    {
        // Emulated by its planes: what every plane image can do, no conversion features.
        let keep = vk::FormatFeatureFlags::SAMPLED_IMAGE
            | vk::FormatFeatureFlags::STORAGE_IMAGE
            | vk::FormatFeatureFlags::TRANSFER_SRC
            | vk::FormatFeatureFlags::TRANSFER_DST
            | vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR;
        planes.iter().fold(keep, |acc, (pf, _)| {
            acc & host_linear_features(inst, pd, *pf)
        })
    } else {
        host_linear_features(inst, pd, f.format)
    };
    vk::FormatFeatureFlags2::from_raw(u64::from(flags.as_raw()))
}

/// `vkGetAndroidHardwareBufferPropertiesANDROID`.
///
/// # Safety
/// Valid output chain; `buffer` any pointer (checked).
pub(super) unsafe fn properties(
    dev: &HostDevice,
    buffer: *const vk::AHardwareBuffer,
    props: *mut vk::AndroidHardwareBufferPropertiesANDROID<'_>,
) -> vk::Result {
    let Some(ahb) = &dev.ahb else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "vkGetAndroidHardwareBufferPropertiesANDROID on a device without the extension"
        );
    };
    let inst = &dev.instance;
    // SAFETY: `props` is the application's output chain, valid for this call; `write_properties`
    // checks that `buffer` is one of our AHardwareBuffers before reading it.
    unsafe {
        kit_ahb::write_properties(buffer.cast(), props, ahb.host_pointer_bits, |_, f| {
            features_of(inst, dev.physical, f)
        })
    }
}

/// The format an image create info names (its format, or its external format's).
///
/// # Safety
/// Valid chain.
unsafe fn image_format(ci: &vk::ImageCreateInfo<'_>) -> vk::Format {
    if ci.format != vk::Format::UNDEFINED {
        return ci.format;
    }
    // SAFETY: `ci` is the application's create info, whose chain is valid for this call (this
    // function's contract), so a structure found by its sType is that structure.
    let ext = unsafe {
        find_in_chain::<vk::ExternalFormatANDROID<'_>>(
            ci.p_next,
            vk::StructureType::EXTERNAL_FORMAT_ANDROID,
        )
    };
    ext.and_then(|e| kit_ahb::pixel_format_of_external(e.external_format))
        .map_or(vk::Format::UNDEFINED, kit_ahb::sampling_format)
}

/// `vkCreateImage` for images with the handle type; `None` for other images.
///
/// # Safety
/// Valid create info; valid output pointer.
pub(super) unsafe fn create_image(
    dev: &HostDevice,
    ci: &vk::ImageCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_image: *mut vk::Image,
) -> Option<vk::Result> {
    // SAFETY: `ci.p_next` is the application's create-info chain, valid for this call (the
    // caller's promise); a structure found by its sType is that structure.
    let external = unsafe {
        find_in_chain::<vk::ExternalMemoryImageCreateInfo<'_>>(
            ci.p_next,
            vk::StructureType::EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
        )
    }?;
    if !external.handle_types.contains(HANDLE_TYPE) {
        return None;
    }
    let Some(ahb) = &dev.ahb else {
        return Some(vkgen_abi::vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "an AHardwareBuffer image on a device without the extension"
        ));
    };
    // SAFETY: `ci` is the application's create info, whose `pNext` chain is valid for this
    // call (the caller's promise).
    let format = unsafe { image_format(ci) };
    if format == vk::Format::UNDEFINED {
        return Some(vkgen_abi::vk_error!(
            vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            "AHardwareBuffer image: an external format this host cannot sample"
        ));
    }
    // SAFETY: `ci.p_next` is the application's chain, valid during this call; `chain` is
    // dropped before the function returns.
    let chain = unsafe {
        ChainEdit::without(
            ci.p_next,
            &[
                vk::StructureType::EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
                vk::StructureType::EXTERNAL_FORMAT_ANDROID,
            ],
        )
    };
    let host_external = vk::ExternalMemoryImageCreateInfo {
        p_next: chain.head(),
        handle_types: vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT,
        ..Default::default()
    };
    let create = |format: vk::Format, extent: vk::Extent3D, flags: vk::ImageCreateFlags| {
        let mut ci2 = *ci;
        ci2.p_next = ptr::from_ref(&host_external).cast();
        ci2.tiling = vk::ImageTiling::LINEAR;
        ci2.format = format;
        ci2.extent = extent;
        ci2.flags = flags;
        let mut image = vk::Image::null();
        // SAFETY: the host's vkCreateImage on its own device; `ci2` is the application's valid
        // create info with `host_external` (alive in this frame) heading its chain.
        match unsafe { (dev.fns.fp_v1_0().create_image)(dev.handle, &ci2, p_allocator, &mut image) }
        {
            vk::Result::SUCCESS => Ok(image),
            e => Err(e),
        }
    };
    if ci.format == vk::Format::UNDEFINED
        && plane_formats(format).is_some()
        && !host_has_planar(&dev.instance, dev.physical, format)
    {
        return Some(vkgen_abi::vk_error!(
            vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            "AHardwareBuffer image: an external format needs the host's {format:?}, which it lacks"
        ));
    }
    let (image, layout) = match create_host_images(dev, ci, format, &create, p_allocator) {
        Ok(made) => made,
        Err(e) => return Some(e),
    };
    // Where the allocator's layout cannot be the host's `LINEAR` one, the image is copy-backed
    // anyway: then it may as well be the application's (`OPTIMAL`) image, which samples faster.
    let copied = matches!(layout, HostLayout::Native { .. })
        && (force_copy() || !allocator_layout_fits(dev, image, format, ci.extent, &layout));
    let (image, layout) = if copied {
        // SAFETY: the host image made just above, never handed out nor bound, with the
        // allocator it was created with.
        unsafe { (dev.fns.fp_v1_0().destroy_image)(dev.handle, image, p_allocator) };
        let mut ci2 = *ci;
        ci2.p_next = chain.head();
        ci2.format = format;
        ci2.usage |= vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
        let mut own = vk::Image::null();
        // SAFETY: the host's vkCreateImage on its own device with the application's create
        // info, whose chain (less the handle-type structures, kept alive by `chain`) is valid.
        match unsafe { (dev.fns.fp_v1_0().create_image)(dev.handle, &ci2, p_allocator, &mut own) } {
            vk::Result::SUCCESS => (own, HostLayout::Native { disjoint: false }),
            e => return Some(e),
        }
    } else {
        (image, layout)
    };
    drop(chain);
    lock(&ahb.images).insert(
        vk::Handle::as_raw(image),
        AhbImage {
            format,
            extent: ci.extent,
            usage: ci.usage,
            flags: ci.flags,
            layout,
            copied,
        },
    );
    // SAFETY: `pImage` is the application's output pointer, valid for a write.
    unsafe { *p_image = image };
    Some(vk::Result::SUCCESS)
}

/// The host image(s) of an image with the handle type, by `format`: one image for a
/// single-plane format, a `DISJOINT` one for a multi-planar format the host has, else one
/// image per plane ([`create_plane_images`]).
fn create_host_images(
    dev: &HostDevice,
    ci: &vk::ImageCreateInfo<'_>,
    format: vk::Format,
    create: &dyn Fn(
        vk::Format,
        vk::Extent3D,
        vk::ImageCreateFlags,
    ) -> Result<vk::Image, vk::Result>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<(vk::Image, HostLayout), vk::Result> {
    Ok(match plane_formats(format) {
        Some(planes) if !host_has_planar(&dev.instance, dev.physical, format) => {
            let made = create_plane_images(dev, ci, planes, create, p_allocator)?;
            (made[0].0, HostLayout::Planes(made))
        }
        Some(_) => (
            create(format, ci.extent, ci.flags | vk::ImageCreateFlags::DISJOINT)?,
            HostLayout::Native { disjoint: true },
        ),
        None => (
            create(format, ci.extent, ci.flags)?,
            HostLayout::Native { disjoint: false },
        ),
    })
}

/// The host images that emulate a multi-planar image the host lacks: one per plane, in the
/// plane's compatible format and extent. The flags that only mean something for the planar
/// image (mutable format for the plane views, disjoint) are the emulation's own, so they are
/// left off. On a failure the planes made so far are destroyed.
fn create_plane_images(
    dev: &HostDevice,
    ci: &vk::ImageCreateInfo<'_>,
    planes: &[(vk::Format, u32)],
    create: &dyn Fn(
        vk::Format,
        vk::Extent3D,
        vk::ImageCreateFlags,
    ) -> Result<vk::Image, vk::Result>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<Vec<(vk::Image, vk::Format)>, vk::Result> {
    let flags = ci.flags
        & !(vk::ImageCreateFlags::MUTABLE_FORMAT
            | vk::ImageCreateFlags::DISJOINT
            | vk::ImageCreateFlags::EXTENDED_USAGE);
    let mut made: Vec<(vk::Image, vk::Format)> = Vec::new();
    for &(pf, div) in planes {
        let extent = vk::Extent3D {
            width: ci.extent.width.div_ceil(div),
            height: ci.extent.height.div_ceil(div),
            depth: 1,
        };
        match create(pf, extent, flags) {
            Ok(i) => made.push((i, pf)),
            Err(e) => {
                for (i, _) in made {
                    // SAFETY: a plane image `create` just made on `dev`, never handed out nor
                    // bound, destroyed with the allocator it was created with.
                    unsafe { (dev.fns.fp_v1_0().destroy_image)(dev.handle, i, p_allocator) };
                }
                return Err(e);
            }
        }
    }
    Ok(made)
}

/// `vkDestroyImage` for images with the handle type (the plane images of an emulated one);
/// `false` for other images.
pub(super) fn destroy_image(
    dev: &HostDevice,
    image: vk::Image,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) -> bool {
    let Some(ahb) = &dev.ahb else {
        return false;
    };
    let Some(img) = lock(&ahb.images).remove(&vk::Handle::as_raw(image)) else {
        return false;
    };
    copy_backed::forget(image);
    let images = match img.layout {
        HostLayout::Native { .. } => vec![image],
        HostLayout::Planes(p) => p.into_iter().map(|(i, _)| i).collect(),
    };
    for i in images {
        // SAFETY: the application is done with the image.
        unsafe { (dev.fns.fp_v1_0().destroy_image)(dev.handle, i, p_allocator) };
    }
    true
}

/// `vkCreateImageView` on an emulated multi-planar image: a plane aspect becomes a view of that
/// plane's image; `None` for other images.
///
/// # Safety
/// Valid create info and output pointer.
pub(super) unsafe fn create_image_view(
    dev: &HostDevice,
    ci: &vk::ImageViewCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_view: *mut vk::ImageView,
) -> Option<vk::Result> {
    let ahb = dev.ahb.as_ref()?;
    let images = lock(&ahb.images);
    let img = images.get(&vk::Handle::as_raw(ci.image))?;
    let HostLayout::Planes(planes) = &img.layout else {
        if ci.format != vk::Format::UNDEFINED {
            return None;
        }
        // A view of an external-format image (format UNDEFINED, with its conversion): the
        // host's image has the sampling format.
        let mut ci2 = *ci;
        ci2.format = img.format;
        // SAFETY: the host's vkCreateImageView with a valid create info.
        return Some(unsafe {
            (dev.fns.fp_v1_0().create_image_view)(dev.handle, &ci2, p_allocator, p_view)
        });
    };
    let aspect = ci.subresource_range.aspect_mask;
    let Some(n) = PLANE_ASPECTS.iter().position(|&a| a == aspect) else {
        return Some(vkgen_abi::vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "AHardwareBuffer image {:?}: this host samples it only through plane views ({aspect:?} asked)",
            img.format));
    };
    let Some(&(plane_image, plane_format)) = planes.get(n) else {
        return Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
    };
    let mut ci2 = *ci;
    ci2.image = plane_image;
    ci2.format = if ci.format == vk::Format::UNDEFINED {
        plane_format
    } else {
        ci.format
    };
    ci2.subresource_range.aspect_mask = vk::ImageAspectFlags::COLOR;
    // SAFETY: the host's vkCreateImageView with a valid create info.
    Some(unsafe { (dev.fns.fp_v1_0().create_image_view)(dev.handle, &ci2, p_allocator, p_view) })
}

/// `vkCreateBuffer` with the handle type: created importable as host memory instead.
///
/// # Safety
/// Valid create info and output pointer.
pub(super) unsafe fn create_buffer(
    dev: &HostDevice,
    ci: &vk::BufferCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_buffer: *mut vk::Buffer,
) -> vk::Result {
    // SAFETY: `ci` is the application's create info, whose chain is valid for this call (this
    // function's contract), so a structure found by its sType is that structure.
    let external = unsafe {
        find_in_chain::<vk::ExternalMemoryBufferCreateInfo<'_>>(
            ci.p_next,
            vk::StructureType::EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
        )
    };
    if !external.is_some_and(|e| e.handle_types.contains(HANDLE_TYPE)) {
        // SAFETY: a buffer without the AHardwareBuffer handle type: the host's vkCreateBuffer on
        // its own device with the application's create info, allocator and output pointer,
        // unchanged.
        return unsafe { (dev.fns.fp_v1_0().create_buffer)(dev.handle, ci, p_allocator, p_buffer) };
    }
    // SAFETY: the application's chain, valid during this call.
    let chain = unsafe {
        ChainEdit::without(
            ci.p_next,
            &[vk::StructureType::EXTERNAL_MEMORY_BUFFER_CREATE_INFO],
        )
    };
    let host_external = vk::ExternalMemoryBufferCreateInfo {
        p_next: chain.head(),
        handle_types: vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT,
        ..Default::default()
    };
    let mut ci2 = *ci;
    ci2.p_next = ptr::from_ref(&host_external).cast();
    // SAFETY: the host's vkCreateBuffer with a valid create info.
    unsafe { (dev.fns.fp_v1_0().create_buffer)(dev.handle, &ci2, p_allocator, p_buffer) }
}

/// `vkGetPhysicalDeviceImageFormatProperties2` with the handle type: the host's answer for a
/// `LINEAR` host-allocation image (per plane for emulated formats), plus the extension's
/// structures; `None` for other queries.
///
/// # Safety
/// Valid input and output chains.
pub(super) unsafe fn image_format_properties(
    inst: &HostInstance,
    pd: vk::PhysicalDevice,
    info: &vk::PhysicalDeviceImageFormatInfo2<'_>,
    props: &mut vk::ImageFormatProperties2<'_>,
) -> Option<vk::Result> {
    // SAFETY: `info` is the application's format info, whose chain is valid for this call (this
    // function's contract), so a structure found by its sType is that structure.
    let external = unsafe {
        find_in_chain::<vk::PhysicalDeviceExternalImageFormatInfo<'_>>(
            info.p_next,
            vk::StructureType::PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO,
        )
    }?;
    if external.handle_type != HANDLE_TYPE {
        return None;
    }
    let query = |format: vk::Format, flags: vk::ImageCreateFlags| {
        let mut host_ext = vk::PhysicalDeviceExternalImageFormatInfo::default()
            .handle_type(vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT);
        let host_info = vk::PhysicalDeviceImageFormatInfo2::default()
            .format(format)
            .ty(info.ty)
            .tiling(vk::ImageTiling::LINEAR)
            .usage(info.usage)
            .flags(flags)
            .push_next(&mut host_ext);
        // Chained because lavapipe writes it unconditionally for an external query.
        let mut host_external = vk::ExternalImageFormatProperties::default();
        let mut out = vk::ImageFormatProperties2::default().push_next(&mut host_external);
        // SAFETY: core 1.1 query on the host's physical device.
        match unsafe {
            (inst
                .fns
                .fp_v1_1()
                .get_physical_device_image_format_properties2)(pd, &host_info, &mut out)
        } {
            vk::Result::SUCCESS => Ok(out.image_format_properties),
            e => Err(e),
        }
    };
    let r = match plane_formats(info.format) {
        Some(planes) if !host_has_planar(inst, pd, info.format) => {
            let flags = info.flags
                & !(vk::ImageCreateFlags::MUTABLE_FORMAT
                    | vk::ImageCreateFlags::DISJOINT
                    | vk::ImageCreateFlags::EXTENDED_USAGE);
            planes
                .iter()
                .try_fold(None, |acc: Option<vk::ImageFormatProperties>, &(pf, _)| {
                    let p = query(pf, flags)?;
                    Ok(Some(match acc {
                        None => p,
                        Some(a) => vk::ImageFormatProperties {
                            max_extent: vk::Extent3D {
                                width: a.max_extent.width.min(p.max_extent.width),
                                height: a.max_extent.height.min(p.max_extent.height),
                                depth: 1,
                            },
                            max_mip_levels: 1,
                            max_array_layers: 1,
                            sample_counts: vk::SampleCountFlags::TYPE_1,
                            max_resource_size: a.max_resource_size.min(p.max_resource_size),
                        },
                    }))
                })
                .map(|p| p.unwrap_or_default())
        }
        _ => query(info.format, info.flags),
    };
    match r {
        Ok(p) => {
            props.image_format_properties = p;
            // SAFETY: `props` is the application's output structure with its chain and `info` its
            // input, both valid for this call (this function's contract).
            unsafe { kit_ahb::write_image_format_extras(info, props) };
            Some(vk::Result::SUCCESS)
        }
        Err(e) => {
            props.image_format_properties = Default::default();
            Some(e)
        }
    }
}

/// The device extensions this module adds to what the host lists.
pub(super) fn added_extensions(host: &[vk::ExtensionProperties]) -> Vec<vk::ExtensionProperties> {
    use crate::util::extension_properties;
    let mut out = Vec::new();
    if !has_extension(host, MEMORY_HOST_NAME) {
        return out;
    }
    out.push(extension_properties(
        c"VK_ANDROID_external_memory_android_hardware_buffer",
        5,
    ));
    if !has_extension(host, QUEUE_FAMILY_FOREIGN_NAME) {
        // Only a queue family index for ownership transfers, which the host never sees
        // (lavapipe ignores ownership transfers).
        out.push(extension_properties(QUEUE_FAMILY_FOREIGN_NAME, 1));
    }
    out
}

/// `VK_EXT_queue_family_foreign`.
pub(super) const QUEUE_FAMILY_FOREIGN_NAME: &std::ffi::CStr = c"VK_EXT_queue_family_foreign";
/// The extension's name.
pub(super) const NAME: &std::ffi::CStr = c"VK_ANDROID_external_memory_android_hardware_buffer";

/// `vkCreateSamplerYcbcrConversion` for an external format (format `UNDEFINED` with a non-zero
/// `VkExternalFormatANDROID`): the host's conversion of the sampling format (the
/// application passes the components the properties query suggested); `None` otherwise.
///
/// # Safety
/// Valid create info and output pointer.
pub(super) unsafe fn create_sampler_ycbcr_conversion(
    dev: &HostDevice,
    ci: &vk::SamplerYcbcrConversionCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_conversion: *mut vk::SamplerYcbcrConversion,
) -> Option<vk::Result> {
    if ci.format != vk::Format::UNDEFINED {
        return None;
    }
    // SAFETY: `ci` is the application's create info, whose chain is valid for this call (this
    // function's contract), so a structure found by its sType is that structure.
    let ext = unsafe {
        find_in_chain::<vk::ExternalFormatANDROID<'_>>(
            ci.p_next,
            vk::StructureType::EXTERNAL_FORMAT_ANDROID,
        )
    }?;
    let format = kit_ahb::pixel_format_of_external(ext.external_format)
        .map_or(vk::Format::UNDEFINED, kit_ahb::sampling_format);
    if format == vk::Format::UNDEFINED {
        return Some(vkgen_abi::vk_error!(
            vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            "vkCreateSamplerYcbcrConversion: external format {:#x} is not one this driver reported",
            ext.external_format
        ));
    }
    // SAFETY: the application's chain, valid during this call.
    let chain =
        unsafe { ChainEdit::without(ci.p_next, &[vk::StructureType::EXTERNAL_FORMAT_ANDROID]) };
    let mut ci2 = *ci;
    ci2.p_next = chain.head();
    ci2.format = format;
    // SAFETY: the host's command (core 1.1) with a valid create info.
    Some(unsafe {
        (dev.fns.fp_v1_1().create_sampler_ycbcr_conversion)(
            dev.handle,
            &ci2,
            p_allocator,
            p_conversion,
        )
    })
}

/// `vkGetPhysicalDeviceImageFormatProperties2`: the AHardwareBuffer handle type answered here ([`image_format_properties`]), everything else by the host.
///
/// # Safety
/// The application's valid arguments of `vkGetPhysicalDeviceImageFormatProperties2`.
pub(super) unsafe fn get_physical_device_image_format_properties2(
    physical_device: vk::PhysicalDevice,
    p_image_format_info: *const vk::PhysicalDeviceImageFormatInfo2<'_>,
    p_image_format_properties: *mut vk::ImageFormatProperties2<'_>,
) -> vk::Result {
    let inst = instance_or!(physical_device, vk::Result::ERROR_INITIALIZATION_FAILED);
    // SAFETY: `pImageFormatInfo` and `pImageFormatProperties` are the application's input and
    // output chains for this call (null ones are passed on untouched); `physical_device` is of
    // `inst`.
    unsafe {
        if let (Some(info), Some(props)) = (
            p_image_format_info.as_ref(),
            p_image_format_properties.as_mut(),
        ) {
            if let Some(r) = image_format_properties(&inst, physical_device, info, props) {
                return r;
            }
        }
        (inst
            .fns
            .fp_v1_1()
            .get_physical_device_image_format_properties2)(
            physical_device,
            p_image_format_info,
            p_image_format_properties,
        )
    }
}

/// `vkGetPhysicalDeviceExternalBufferProperties`: the AHardwareBuffer handle type answered here, everything else by the host.
///
/// # Safety
/// The application's valid arguments of `vkGetPhysicalDeviceExternalBufferProperties`.
pub(super) unsafe fn get_physical_device_external_buffer_properties(
    physical_device: vk::PhysicalDevice,
    p_external_buffer_info: *const vk::PhysicalDeviceExternalBufferInfo<'_>,
    p_external_buffer_properties: *mut vk::ExternalBufferProperties<'_>,
) {
    let Some(inst) = instance_of(physical_device) else {
        return;
    };
    // SAFETY: `pExternalBufferInfo` and `pExternalBufferProperties` are the application's input
    // and output structures for this call (null ones are passed on untouched);
    // `physical_device` is of `inst`.
    unsafe {
        if let (Some(info), Some(out)) = (
            p_external_buffer_info.as_ref(),
            p_external_buffer_properties.as_mut(),
        ) {
            if info.handle_type == crate::kit::hardware_buffer::HANDLE_TYPE {
                out.external_memory_properties =
                    crate::kit::hardware_buffer::external_memory_properties(false);
                return;
            }
        }
        (inst
            .fns
            .fp_v1_1()
            .get_physical_device_external_buffer_properties)(
            physical_device,
            p_external_buffer_info,
            p_external_buffer_properties,
        )
    }
}
