//! `AHardwareBuffer` memory on the host: where a dedicated image sits on a buffer's pages (or
//! why it is copy-backed), the import of the mapped pages as host memory, the export of a new
//! buffer, and the binds planned at allocation.

use super::super::copy_backed::{self, CopyBacked};
use super::super::mapping::HostMapping;
use super::super::registry::{lock, HostDevice};
use super::planes::{plane_formats, vulkan_planes, Plan, PLANE_ASPECTS};
use super::state::{AhbDevice, AhbImage, AhbMemory, CopyMemory, HostLayout, PlaneBind};
use crate::gralloc::{map_gralloc_err, BufferOp};
use crate::gralloc::{BufferDesc, PixelFormat};
use crate::hardware_buffer::HardwareBufferRef;
use crate::kit::hardware_buffer::{self as kit_ahb, ExportTarget, HardwareBufferAllocation};
use std::ptr;
use vkgen_generated::vk;

/// The binds that put `img` (host handle `image`) on `desc`'s pages, after checking each
/// plane's row pitch; and the bytes those binds need.
fn plan_binds(
    dev: &HostDevice,
    image: vk::Image,
    img: &AhbImage,
    desc: &BufferDesc,
) -> Result<Plan, vk::Result> {
    let extent_ok = img.extent.width == desc.width && img.extent.height == desc.height;
    let format_ok = img.format == kit_ahb::sampling_format(desc.format)
        || (img.format == vk::Format::R8G8B8A8_UNORM && desc.format == PixelFormat::Rgbx8888)
        || PixelFormat::from_vk(img.format) == Some(desc.format);
    if !extent_ok || !format_ok {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "AHardwareBuffer import: image {:?} {}x{} does not match buffer {:?} {}x{}",
            img.format,
            img.extent.width,
            img.extent.height,
            desc.format,
            desc.width,
            desc.height
        ));
    }
    if img.copied {
        return Ok(Plan::Copied);
    }
    let planes = vulkan_planes(desc);
    let targets = bind_targets(image, &img.layout, planes.len());
    if targets.len() != planes.len() {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "AHardwareBuffer import: {} host planes for a {}-plane buffer",
            targets.len(),
            planes.len()
        ));
    }
    let mut binds = Vec::new();
    let mut needed = desc.end().map_err(|e| {
        map_gralloc_err(
            "AHardwareBuffer import: the buffer's extent",
            &e,
            BufferOp::Import,
        )
    })?;
    for ((host_image, bind_aspect, layout_aspect), plane) in targets.into_iter().zip(planes) {
        // SAFETY: `host_image` is a live host image of `dev` (the application's image or one of
        // its plane images, made by `create_image`) and `layout_aspect` one of its aspects.
        let layout = unsafe {
            dev.fns.get_image_subresource_layout(
                host_image,
                vk::ImageSubresource {
                    aspect_mask: layout_aspect,
                    mip_level: 0,
                    array_layer: 0,
                },
            )
        };
        let reqs = if bind_aspect.is_empty() {
            // SAFETY: `host_image` is a live host image of `dev` (the application's, or one of its
            // plane images), not disjoint here, so the whole image's requirements are defined.
            unsafe { dev.fns.get_image_memory_requirements(host_image) }
        } else {
            let mut plane_info =
                vk::ImagePlaneMemoryRequirementsInfo::default().plane_aspect(bind_aspect);
            let info = vk::ImageMemoryRequirementsInfo2::default()
                .image(host_image)
                .push_next(&mut plane_info);
            let mut out = vk::MemoryRequirements2::default();
            // SAFETY: `host_image` is a live disjoint host image of `dev`, and `bind_aspect` one of
            // its planes, as a disjoint image's plane query needs; `plane_info` lives in this
            // frame.
            unsafe { dev.fns.get_image_memory_requirements2(&info, &mut out) };
            out.memory_requirements
        };
        let offset = desc.offset + plane.offset;
        if layout.row_pitch != plane.row_stride
            || (layout.offset != 0 && bind_aspect.is_empty())
            || (reqs.alignment != 0 && !offset.is_multiple_of(reqs.alignment))
        {
            if matches!(img.layout, HostLayout::Native { .. }) {
                log::info!(
                    "AHardwareBuffer {:?} {}x{}: host plane layout (pitch {}, offset {}, alignment {}) is not the buffer's (pitch {}, offset {offset}): copy-backed",
                    img.format,
                    img.extent.width,
                    img.extent.height,
                    layout.row_pitch,
                    layout.offset,
                    reqs.alignment,
                    plane.row_stride
                );
                return Ok(Plan::Copied);
            }
            return Err(vkgen_abi::vk_error!(
                vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                "AHardwareBuffer import: host plane layout (pitch {}, offset {}, alignment {}) \
                 does not match the buffer's (pitch {}, offset {offset})",
                layout.row_pitch,
                layout.offset,
                reqs.alignment,
                plane.row_stride
            ));
        }
        needed = needed.max(offset + reqs.size);
        binds.push((host_image, bind_aspect, offset));
    }
    Ok(Plan::OnPages(binds, needed))
}

/// What each of a buffer's `planes` planes binds on the host, by `layout`: the host image, the
/// aspect bound (empty: the whole image) and the aspect whose layout is queried.
fn bind_targets(
    image: vk::Image,
    layout: &HostLayout,
    planes: usize,
) -> Vec<(vk::Image, vk::ImageAspectFlags, vk::ImageAspectFlags)> {
    let whole = |i| {
        (
            i,
            vk::ImageAspectFlags::empty(),
            vk::ImageAspectFlags::COLOR,
        )
    };
    match layout {
        HostLayout::Planes(p) => p.iter().map(|&(i, _)| whole(i)).collect(),
        HostLayout::Native { disjoint: true } => (0..planes)
            .map(|n| (image, PLANE_ASPECTS[n], PLANE_ASPECTS[n]))
            .collect(),
        HostLayout::Native { disjoint: false } => vec![whole(image)],
    }
}

/// Whether the runtime's allocator lays a `format` buffer of `extent` out as the host laid out
/// `image` (its `LINEAR` host-pointer image): each plane's row pitch. Logs why not.
pub(super) fn allocator_layout_fits(
    dev: &HostDevice,
    image: vk::Image,
    format: vk::Format,
    extent: vk::Extent3D,
    layout: &HostLayout,
) -> bool {
    let Some(pf) = PixelFormat::from_vk(format) else {
        return true;
    };
    let Ok(desc) = BufferDesc::new(extent.width, extent.height, pf, 0) else {
        return true;
    };
    let disjoint = matches!(layout, HostLayout::Native { disjoint: true });
    for (n, plane) in vulkan_planes(&desc).iter().enumerate() {
        let aspect = if disjoint {
            PLANE_ASPECTS[n]
        } else {
            vk::ImageAspectFlags::COLOR
        };
        // SAFETY: a live host image of `dev`.
        let host = unsafe {
            dev.fns.get_image_subresource_layout(
                image,
                vk::ImageSubresource {
                    aspect_mask: aspect,
                    mip_level: 0,
                    array_layer: 0,
                },
            )
        };
        if host.row_pitch != plane.row_stride {
            log::info!(
                "AHardwareBuffer image {format:?} {}x{}: the host pitches plane {n} {} bytes, the allocator {}: copy-backed",
                extent.width,
                extent.height,
                host.row_pitch,
                plane.row_stride
            );
            return false;
        }
    }
    true
}

/// `VKGEN_HOST_AHB_COPY=1`: copy-back every image that could sit on the pages (tests the path
/// NVIDIA takes on hosts whose layouts match).
pub(super) fn force_copy() -> bool {
    static FORCE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FORCE.get_or_init(|| {
        vkgen_platform::env::trusted_env("VKGEN_HOST_AHB_COPY").is_some_and(|v| v == "1")
    })
}

/// One copy region per plane of `img` on `desc` (Vulkan plane order, the allocator's offsets
/// and row pitches in the plane format's texels).
fn copy_regions(img: &AhbImage, desc: &BufferDesc) -> Vec<vk::BufferImageCopy> {
    let planes = vulkan_planes(desc);
    let formats: Vec<(vk::ImageAspectFlags, u32, u32)> = match plane_formats(img.format) {
        Some(p) => p
            .iter()
            .enumerate()
            .map(|(n, &(pf, div))| {
                let texel = if pf == vk::Format::R8G8_UNORM { 2 } else { 1 };
                (PLANE_ASPECTS[n], texel, div)
            })
            .collect(),
        None => vec![(
            vk::ImageAspectFlags::COLOR,
            desc.format.bytes_per_pixel(),
            1,
        )],
    };
    planes
        .iter()
        .zip(formats)
        .map(|(plane, (aspect, texel, div))| vk::BufferImageCopy {
            buffer_offset: desc.offset + plane.offset,
            buffer_row_length: (plane.row_stride / u64::from(texel)) as u32,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: aspect,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            },
            image_offset: vk::Offset3D::default(),
            image_extent: vk::Extent3D {
                width: img.extent.width.div_ceil(div),
                height: img.extent.height.div_ceil(div),
                depth: 1,
            },
        })
        .collect()
}

/// The host objects of a copy-backed image: a staging buffer on `memory` (the imported pages,
/// `size` bytes) and the image's own memory, with the binds into it.
fn make_copy_memory(
    dev: &HostDevice,
    image: vk::Image,
    img: &AhbImage,
    desc: &BufferDesc,
    memory: vk::DeviceMemory,
    size: u64,
) -> Result<(CopyMemory, Vec<PlaneBind>), vk::Result> {
    let mut external = vk::ExternalMemoryBufferCreateInfo::default()
        .handle_types(vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT);
    let ci = vk::BufferCreateInfo::default()
        .size(size)
        .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST)
        .push_next(&mut external);
    // SAFETY: valid create info on the live host device.
    let staging = unsafe { dev.fns.create_buffer(&ci, None) }?;
    // SAFETY: the imported memory covers `size` bytes.
    if let Err(e) = unsafe { dev.fns.bind_buffer_memory(staging, memory, 0) } {
        // SAFETY: the staging buffer created just above on `dev`, never bound nor used by a
        // command.
        unsafe { dev.fns.destroy_buffer(staging, None) };
        return Err(e);
    }
    let disjoint = matches!(img.layout, HostLayout::Native { disjoint: true });
    let aspects: Vec<vk::ImageAspectFlags> = if disjoint {
        PLANE_ASPECTS[..vulkan_planes(desc).len()].to_vec()
    } else {
        vec![vk::ImageAspectFlags::empty()]
    };
    let mut binds = Vec::new();
    let mut total = 0u64;
    let mut type_bits = u32::MAX;
    for aspect in aspects {
        let mut plane_info = vk::ImagePlaneMemoryRequirementsInfo::default().plane_aspect(aspect);
        let mut info = vk::ImageMemoryRequirementsInfo2::default().image(image);
        if !aspect.is_empty() {
            info = info.push_next(&mut plane_info);
        }
        let mut out = vk::MemoryRequirements2::default();
        // SAFETY: a live host image of `dev` (a disjoint one's plane where an aspect is named).
        unsafe { dev.fns.get_image_memory_requirements2(&info, &mut out) };
        let r = out.memory_requirements;
        let offset = total.next_multiple_of(r.alignment.max(1));
        binds.push((image, aspect, offset));
        total = offset + r.size;
        type_bits &= r.memory_type_bits;
    }
    // SAFETY: a core query on the host's own physical device.
    let props = unsafe {
        dev.instance
            .fns
            .get_physical_device_memory_properties(dev.physical)
    };
    let types = &props.memory_types[..props.memory_type_count as usize];
    let pick = |want: vk::MemoryPropertyFlags| {
        (0..types.len() as u32)
            .find(|&i| type_bits & (1 << i) != 0 && types[i as usize].property_flags.contains(want))
    };
    let Some(type_index) = pick(vk::MemoryPropertyFlags::DEVICE_LOCAL)
        .or_else(|| pick(vk::MemoryPropertyFlags::empty()))
    else {
        // SAFETY: the staging buffer created above on `dev`, never handed out nor used by a
        // command.
        unsafe { dev.fns.destroy_buffer(staging, None) };
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "copy-backed AHardwareBuffer image: no host memory type fits it (bits {type_bits:#x})"
        ));
    };
    let info = vk::MemoryAllocateInfo::default()
        .allocation_size(total)
        .memory_type_index(type_index);
    // SAFETY: valid allocate info on the live host device.
    let image_memory = match unsafe { dev.fns.allocate_memory(&info, None) } {
        Ok(m) => m,
        Err(e) => {
            // SAFETY: the staging buffer created above on `dev`, bound to the import but not yet
            // used by a command.
            unsafe { dev.fns.destroy_buffer(staging, None) };
            return Err(e);
        }
    };
    Ok((
        CopyMemory {
            image,
            staging,
            image_memory,
            regions: copy_regions(img, desc),
        },
        binds,
    ))
}

/// `vkAllocateMemory` importing or exporting a buffer; `None` when the allocation involves none.
///
/// # Safety
/// Valid allocate info (chain included); valid output pointer.
pub(in crate::backend::host) unsafe fn allocate_memory(
    dev: &HostDevice,
    info: &vk::MemoryAllocateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_memory: *mut vk::DeviceMemory,
) -> Option<vk::Result> {
    // SAFETY: `info` is the application's allocate info, whose chain is valid for this call
    // (the caller's promise).
    let parsed = match unsafe { HardwareBufferAllocation::parse(info) } {
        Ok(None) => return None,
        Ok(Some(p)) => p,
        Err(e) => return Some(e),
    };
    let (Some(ahb), Some(anb)) = (&dev.ahb, &dev.anb) else {
        return Some(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "AHardwareBuffer memory on a device without the extension"
        ));
    };
    let (buffer, dedicated) = match allocation_buffer(ahb, parsed) {
        Ok(b) => b,
        Err(e) => return Some(e),
    };
    let desc = *buffer.desc();
    let (binds, needed, copied) = match placement(dev, ahb, dedicated, &desc) {
        Ok(p) => p,
        Err(e) => return Some(e),
    };
    let align = anb.import_alignment.max(rustix::param::page_size() as u64);
    let Some(total) = needed
        .checked_next_multiple_of(align)
        .and_then(|t| usize::try_from(t).ok())
    else {
        return Some(vkgen_abi::vk_error!(
            vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            "AHardwareBuffer import: {needed} bytes do not fit this process's address space"
        ));
    };
    let gralloc = match buffer.import() {
        Ok(g) => g,
        Err(e) => {
            return Some(map_gralloc_err(
                "AHardwareBuffer import",
                &e,
                BufferOp::Import,
            ));
        }
    };
    let mapping = match HostMapping::new(gralloc.fd(), desc.end().unwrap_or(0), total) {
        Ok(m) => m,
        Err(e) => {
            return Some(vkgen_abi::error::map_io_err(
                "AHardwareBuffer import: mapping the buffer",
                &e.into(),
                vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            ));
        }
    };
    drop(gralloc);
    let mut import = vk::ImportMemoryHostPointerInfoEXT::default()
        .handle_type(vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT);
    import.p_host_pointer = mapping.base.as_ptr();
    let mut type_index = info.memory_type_index;
    if ahb.host_pointer_bits & (1 << type_index.min(31)) == 0 {
        type_index = ahb.host_pointer_bits.trailing_zeros();
    }
    let host_info = vk::MemoryAllocateInfo::default()
        .allocation_size(total as u64)
        .memory_type_index(type_index)
        .push_next(&mut import);
    let mut memory = vk::DeviceMemory::null();
    // SAFETY: the host's vkAllocateMemory on its own device importing our mapping (`import`
    // lives in this frame), which outlives the memory: the record below is dropped only after
    // the host frees it.
    let r = unsafe {
        (dev.fns.fp_v1_0().allocate_memory)(dev.handle, &host_info, p_allocator, &mut memory)
    };
    if r != vk::Result::SUCCESS {
        return Some(r);
    }
    let (binds, copy) = if copied {
        let made = match lock(&ahb.images).get(&vk::Handle::as_raw(dedicated)) {
            Some(img) => make_copy_memory(dev, dedicated, img, &desc, memory, total as u64),
            None => Err(vkgen_abi::vk_error!(
                vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                "AHardwareBuffer memory: its dedicated image was destroyed meanwhile"
            )),
        };
        match made {
            Ok((c, b)) => (b, Some(c)),
            Err(e) => {
                // SAFETY: the host memory allocated just above, never handed out nor bound,
                // freed with the allocator it was allocated with.
                unsafe { (dev.fns.fp_v1_0().free_memory)(dev.handle, memory, p_allocator) };
                return Some(e);
            }
        }
    } else {
        (binds, None)
    };
    lock(&ahb.memories).insert(
        vk::Handle::as_raw(memory),
        AhbMemory {
            buffer,
            binds,
            copy,
            _mapping: mapping,
        },
    );
    // SAFETY: `pMemory` is the application's output pointer, valid for a write.
    unsafe { *p_memory = memory };
    Some(vk::Result::SUCCESS)
}

/// The buffer an allocation imports, or a new one it exports (described like its dedicated
/// image, or a `BLOB`), with the dedicated image (null: none).
fn allocation_buffer(
    ahb: &AhbDevice,
    parsed: HardwareBufferAllocation,
) -> Result<(HardwareBufferRef, vk::Image), vk::Result> {
    match parsed {
        HardwareBufferAllocation::Import {
            buffer,
            dedicated_image,
        } => Ok((buffer, dedicated_image)),
        HardwareBufferAllocation::Export {
            dedicated_image,
            size,
        } => {
            let target = match lock(&ahb.images).get(&vk::Handle::as_raw(dedicated_image)) {
                Some(img) => ExportTarget::Image {
                    format: img.format,
                    width: img.extent.width,
                    height: img.extent.height,
                    usage: kit_ahb::usage_of_image(img.usage, img.flags),
                },
                None if dedicated_image != vk::Image::null() => {
                    return Err(vkgen_abi::vk_error!(
                        vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                        "AHardwareBuffer export: dedicated image {dedicated_image:?} was \
                         created without the handle type"
                    ));
                }
                None => ExportTarget::Blob { size },
            };
            Ok((target.allocate()?, dedicated_image))
        }
    }
}

/// Where the dedicated image (null: none) sits on `desc`'s pages: its binds, the bytes the
/// import covers, and whether it is copy-backed instead.
fn placement(
    dev: &HostDevice,
    ahb: &AhbDevice,
    dedicated: vk::Image,
    desc: &BufferDesc,
) -> Result<(Vec<PlaneBind>, u64, bool), vk::Result> {
    let whole = desc.end().unwrap_or(desc.size);
    if dedicated == vk::Image::null() {
        return Ok((Vec::new(), whole, false));
    }
    let images = lock(&ahb.images);
    let Some(img) = images.get(&vk::Handle::as_raw(dedicated)) else {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "AHardwareBuffer memory: dedicated image {dedicated:?} was not created with the \
             handle type"
        ));
    };
    Ok(match plan_binds(dev, dedicated, img, desc)? {
        Plan::OnPages(b, n) => (b, n, false),
        Plan::Copied => (Vec::new(), whole, true),
    })
}

/// After the host freed `memory`: drops its buffer reference and mapping.
pub(in crate::backend::host) fn forget_memory(dev: &HostDevice, memory: vk::DeviceMemory) {
    let Some(ahb) = &dev.ahb else {
        return;
    };
    let Some(m) = lock(&ahb.memories).remove(&vk::Handle::as_raw(memory)) else {
        return;
    };
    if let Some(c) = m.copy {
        copy_backed::forget(c.image);
        // SAFETY: the application freed the memory, so no command using the image or its
        // staging is pending (valid usage of vkFreeMemory).
        unsafe {
            dev.fns.destroy_buffer(c.staging, None);
            dev.fns.free_memory(c.image_memory, None);
        }
    }
}

/// `vkGetMemoryAndroidHardwareBufferANDROID`.
///
/// # Safety
/// Valid input structure and output pointer.
pub(in crate::backend::host) unsafe fn memory_buffer(
    dev: &HostDevice,
    info: &vk::MemoryGetAndroidHardwareBufferInfoANDROID<'_>,
    out: *mut *mut vk::AHardwareBuffer,
) -> vk::Result {
    let found = dev.ahb.as_ref().and_then(|ahb| {
        lock(&ahb.memories)
            .get(&vk::Handle::as_raw(info.memory))
            .map(|m| m.buffer.clone())
    });
    match (found, out.is_null()) {
        (Some(b), false) => {
            // SAFETY: non-null output pointer; the caller owns the new reference.
            unsafe { *out = b.into_raw().cast() };
            vk::Result::SUCCESS
        }
        (found, _) => vkgen_abi::vk_error!(
            vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            "vkGetMemoryAndroidHardwareBufferANDROID: {}",
            if found.is_some() {
                "no output pointer"
            } else {
                "the memory has no AHardwareBuffer"
            }
        ),
    }
}

/// Binds of images with the handle type, done as planned at allocation; `Err(others)` hands
/// back the binds that are not ours.
pub(in crate::backend::host) fn bind_images<'a>(
    dev: &HostDevice,
    infos: &[vk::BindImageMemoryInfo<'a>],
) -> Result<vk::Result, Vec<vk::BindImageMemoryInfo<'a>>> {
    let Some(ahb) = &dev.ahb else {
        return Err(infos.to_vec());
    };
    let mut others = Vec::new();
    let mut host_binds: Vec<(vk::Image, vk::ImageAspectFlags, vk::DeviceMemory, u64)> = Vec::new();
    let mut copy_backed_images: Vec<(vk::Image, CopyBacked)> = Vec::new();
    {
        let images = lock(&ahb.images);
        let memories = lock(&ahb.memories);
        for info in infos {
            if !images.contains_key(&vk::Handle::as_raw(info.image)) {
                others.push(*info);
                continue;
            }
            let Some(m) = memories.get(&vk::Handle::as_raw(info.memory)) else {
                return Ok(vkgen_abi::vk_error!(
                    vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                    "AHardwareBuffer image bound to memory that is not a dedicated import"
                ));
            };
            let ours: Vec<_> = m
                .binds
                .iter()
                .filter(|b| {
                    b.0 == info.image
                        || matches!(&images[&vk::Handle::as_raw(info.image)].layout,
                            HostLayout::Planes(p) if p.iter().any(|(i, _)| *i == b.0))
                })
                .collect();
            if ours.is_empty() {
                return Ok(vkgen_abi::vk_error!(
                    vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                    "AHardwareBuffer image bound to another image's dedicated memory"
                ));
            }
            let target = match &m.copy {
                Some(c) => {
                    copy_backed_images.push((
                        info.image,
                        CopyBacked::new(dev, c.staging, c.regions.clone()),
                    ));
                    c.image_memory
                }
                None => info.memory,
            };
            host_binds.extend(ours.iter().map(|b| (b.0, b.1, target, b.2)));
        }
    }
    if host_binds.is_empty() {
        return Err(others);
    }
    let mut plane_infos: Vec<vk::BindImagePlaneMemoryInfo<'_>> = host_binds
        .iter()
        .map(|b| vk::BindImagePlaneMemoryInfo::default().plane_aspect(b.1))
        .collect();
    let mut binds: Vec<vk::BindImageMemoryInfo<'_>> = Vec::new();
    for (b, plane) in host_binds.iter().zip(plane_infos.iter_mut()) {
        let mut info = vk::BindImageMemoryInfo::default()
            .image(b.0)
            .memory(b.2)
            .memory_offset(b.3);
        if !b.1.is_empty() {
            info.p_next = ptr::from_mut(plane).cast();
        }
        binds.push(info);
    }
    binds.extend(others.iter().copied());
    // SAFETY: the host's vkBindImageMemory2 with valid structures (plane infos outlive it).
    let r = unsafe {
        (dev.fns.fp_v1_1().bind_image_memory2)(dev.handle, binds.len() as u32, binds.as_ptr())
    };
    if r == vk::Result::SUCCESS {
        for (image, backed) in copy_backed_images {
            copy_backed::register(image, backed);
        }
    }
    Ok(r)
}
