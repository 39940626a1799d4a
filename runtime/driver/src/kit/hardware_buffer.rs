//! `VK_ANDROID_external_memory_android_hardware_buffer`: what every driver needs the same way
//! (Mesa's `vk_android.c`), around the one thing that is the driver's own, memory.
//!
//! * **Formats** ([`format_of`]): an `AHardwareBuffer`'s format maps to the Vulkan format with
//!   the same memory layout (Android's table: RGBA8 → `R8G8B8A8_UNORM`, …, NV12 →
//!   `G8_B8R8_2PLANE_420_UNORM`, YV12 → `G8_B8_R8_3PLANE_420_UNORM`, the planes found through
//!   the buffer's own plane offsets), or to `VK_FORMAT_UNDEFINED` with an external format where
//!   Vulkan has no name (NV21). Every buffer gets a non-zero `externalFormat` (its HAL format).
//!   The suggested Y′CbCr model for 4:2:0 buffers is BT.601, narrow range, chroma at the
//!   midpoint of its 2×2 block, as Mesa's drivers suggest: it is what the allocator's own CPU
//!   conversion assumes (each chroma sample covers its block), and with `NEAREST` chroma
//!   filtering it names one chroma sample per pixel. (`COSITED_EVEN` puts every odd pixel exactly
//!   between two samples, where implementations round either way: NVIDIA does.)
//! * **Usage** ([`usage_of_image`]): the spec's usage-equivalence table, both for
//!   `VkAndroidHardwareBufferUsageANDROID` and for buffers allocated to export.
//! * **Allocation** ([`HardwareBufferAllocation::parse`]): reads `VkMemoryAllocateInfo`'s chain
//!   and answers "import this buffer" (a counted [`HardwareBufferRef`]) or "allocate one to
//!   export", with the spec's checks: an import's allocation size must be the buffer's, an image
//!   import must be dedicated, a non-dedicated import must be a `BLOB` with
//!   `GPU_DATA_BUFFER` usage. Drivers then back the memory with the buffer's pages.
//! * **Queries** ([`write_properties`]): `vkGetAndroidHardwareBufferPropertiesANDROID`'s
//!   structure chain (`…FormatPropertiesANDROID` and `…FormatProperties2ANDROID`) from the
//!   driver's memory types and format features. A pointer that is not an `AHardwareBuffer`, or a
//!   buffer without GPU usage, is `VK_ERROR_INVALID_EXTERNAL_HANDLE`.
//! * **Kit drivers** get the two commands and the external-memory answers of the physical-device
//!   queries from `entry` when [`Kit::HARDWARE_BUFFERS`] is on; they keep the buffer with the
//!   memory and return it from [`Kit::memory_hardware_buffer`].

use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use crate::gralloc::{map_gralloc_err, BufferDesc, BufferOp, PixelFormat};
use crate::hardware_buffer::{usage, AHardwareBufferDesc, HardwareBuffer, HardwareBufferRef};
use crate::util::{find_in_chain, for_each_out, guard};

use super::api::Kit;

/// The handle type this extension adds.
pub const HANDLE_TYPE: vk::ExternalMemoryHandleTypeFlags =
    vk::ExternalMemoryHandleTypeFlags::ANDROID_HARDWARE_BUFFER_ANDROID;

/// What Vulkan sees of a buffer's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HardwareBufferFormat {
    /// `UNDEFINED` when only the external format names it.
    pub format: vk::Format,
    pub external_format: u64,
    pub model: vk::SamplerYcbcrModelConversion,
    pub range: vk::SamplerYcbcrRange,
    pub x_chroma_offset: vk::ChromaLocation,
    pub y_chroma_offset: vk::ChromaLocation,
    /// NV21: [`sampling_format`]'s Cb and Cr channels hold Cr and Cb, so
    /// [`HardwareBufferFormat::components`] swaps them.
    pub swap_chroma: bool,
}

impl HardwareBufferFormat {
    /// `samplerYcbcrConversionComponents`: what the application passes to its conversion so
    /// that [`sampling_format`]'s channels come out as Y′CbCr.
    pub fn components(&self) -> vk::ComponentMapping {
        if self.swap_chroma {
            // The chroma plane's first byte is Cr, read as the format's B (Cb) channel.
            vk::ComponentMapping {
                r: vk::ComponentSwizzle::B,
                g: vk::ComponentSwizzle::IDENTITY,
                b: vk::ComponentSwizzle::R,
                a: vk::ComponentSwizzle::IDENTITY,
            }
        } else {
            vk::ComponentMapping::default()
        }
    }
}

/// The Vulkan format a driver samples a buffer of `format` as: its own Vulkan format, and for
/// NV21 (an external format to the application) the NV12 layout `G8_B8R8_2PLANE_420_UNORM`,
/// whose second plane then holds Cr, Cb; [`HardwareBufferFormat::components`] swaps them back.
/// `UNDEFINED` for `BLOB`.
pub const fn sampling_format(format: PixelFormat) -> vk::Format {
    match format {
        PixelFormat::Nv21 => vk::Format::G8_B8R8_2PLANE_420_UNORM,
        f => f.vk_format(),
    }
}

/// The Vulkan view of `desc`'s format. See the [module docs](self).
pub fn format_of(desc: &BufferDesc) -> HardwareBufferFormat {
    let yuv = desc.format.is_yuv();
    HardwareBufferFormat {
        format: desc.format.vk_format(),
        external_format: desc.format.hal() as u32 as u64,
        model: if yuv {
            vk::SamplerYcbcrModelConversion::YCBCR_601
        } else {
            vk::SamplerYcbcrModelConversion::RGB_IDENTITY
        },
        range: if yuv {
            vk::SamplerYcbcrRange::ITU_NARROW
        } else {
            vk::SamplerYcbcrRange::ITU_FULL
        },
        x_chroma_offset: vk::ChromaLocation::MIDPOINT,
        y_chroma_offset: vk::ChromaLocation::MIDPOINT,
        swap_chroma: desc.format == PixelFormat::Nv21,
    }
}

/// The gralloc format an external format names (the inverse of
/// [`HardwareBufferFormat::external_format`]).
pub fn pixel_format_of_external(external_format: u64) -> Option<PixelFormat> {
    PixelFormat::from_hal(i32::try_from(external_format).ok()?).ok()
}

/// The spec's "AHardwareBuffer Usage Equivalence" for an image (never 0: an image is at least
/// sampled).
pub fn usage_of_image(usage_flags: vk::ImageUsageFlags, flags: vk::ImageCreateFlags) -> u64 {
    let mut out = 0;
    if usage_flags.intersects(
        vk::ImageUsageFlags::SAMPLED
            | vk::ImageUsageFlags::INPUT_ATTACHMENT
            | vk::ImageUsageFlags::TRANSFER_SRC,
    ) {
        out |= usage::GPU_SAMPLED_IMAGE;
    }
    if usage_flags.intersects(
        vk::ImageUsageFlags::COLOR_ATTACHMENT
            | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
            | vk::ImageUsageFlags::TRANSFER_DST,
    ) {
        out |= usage::GPU_COLOR_OUTPUT;
    }
    if usage_flags.contains(vk::ImageUsageFlags::STORAGE) {
        out |= usage::GPU_DATA_BUFFER;
    }
    if flags.contains(vk::ImageCreateFlags::CUBE_COMPATIBLE) {
        out |= usage::GPU_CUBE_MAP;
    }
    if flags.contains(vk::ImageCreateFlags::PROTECTED) {
        out |= usage::PROTECTED_CONTENT;
    }
    if out == 0 {
        out = usage::GPU_SAMPLED_IMAGE;
    }
    out
}

/// What an image (or buffer) needs of the buffer to be allocated for its export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportTarget {
    /// A dedicated image: its format, extent and usage.
    Image {
        format: vk::Format,
        width: u32,
        height: u32,
        usage: u64,
    },
    /// Memory for buffers: a `BLOB` of `size` bytes.
    Blob { size: u64 },
}

impl ExportTarget {
    /// Allocates the buffer (`AHardwareBuffer_allocate` with the equivalent description). A
    /// format without a buffer equivalent, or a size the allocator refuses, is
    /// `VK_ERROR_OUT_OF_DEVICE_MEMORY`: the failure `vkAllocateMemory` reports for memory it
    /// cannot provide.
    pub fn allocate(&self) -> Result<HardwareBufferRef, vk::Result> {
        let desc = match *self {
            ExportTarget::Image {
                format,
                width,
                height,
                usage: u,
            } => AHardwareBufferDesc {
                width,
                height,
                layers: 1,
                format: PixelFormat::from_vk(format)
                    .ok_or_else(|| {
                        vkgen_abi::vk_error!(
                            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                            "AHardwareBuffer export: {format:?} has no buffer format"
                        )
                    })?
                    .hal() as u32,
                usage: u,
                ..Default::default()
            },
            ExportTarget::Blob { size } => AHardwareBufferDesc {
                width: u32::try_from(size).map_err(|_| {
                    vkgen_abi::vk_error!(
                        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                        "AHardwareBuffer export: a {size}-byte BLOB is too large"
                    )
                })?,
                height: 1,
                layers: 1,
                format: crate::hardware_buffer::format::BLOB,
                usage: usage::GPU_DATA_BUFFER,
                ..Default::default()
            },
        };
        let b = HardwareBuffer::allocate(&desc).map_err(|e| {
            let what = format!("allocating an AHardwareBuffer to export ({desc:?})");
            map_gralloc_err(&what, &e, BufferOp::Allocate)
        })?;
        let raw = HardwareBuffer::into_raw(b);
        // SAFETY: a buffer we just allocated, holding the reference `into_raw` handed us.
        let r = unsafe { HardwareBufferRef::acquire(raw) };
        // SAFETY: gives back the `into_raw` reference; `r` keeps its own.
        unsafe { crate::hardware_buffer::ndk::AHardwareBuffer_release(raw) };
        r.map_err(|e| {
            map_gralloc_err(
                "taking the exported AHardwareBuffer",
                &e,
                BufferOp::Allocate,
            )
        })
    }
}

/// What a `vkAllocateMemory` asks of this extension.
#[derive(Debug)]
pub enum HardwareBufferAllocation {
    /// `VkImportAndroidHardwareBufferInfoANDROID`: back the memory with this buffer.
    Import {
        buffer: HardwareBufferRef,
        dedicated_image: vk::Image,
    },
    /// `VkExportMemoryAllocateInfo` with the handle type (and no import): allocate a buffer for
    /// the memory ([`ExportTarget`]: the driver resolves a dedicated image to its format, extent
    /// and usage; without one, a `BLOB` of `size` bytes).
    Export {
        dedicated_image: vk::Image,
        size: u64,
    },
}

impl HardwareBufferAllocation {
    /// Reads `info`'s chain. `Ok(None)`: the allocation does not involve an `AHardwareBuffer`.
    ///
    /// Errors: `VK_ERROR_INVALID_EXTERNAL_HANDLE` for a pointer that is not a buffer, an import
    /// whose size is not the buffer's, an image import that is not dedicated, a buffer import of
    /// a buffer that is not a `GPU_DATA_BUFFER` `BLOB`.
    ///
    /// # Safety
    /// `info` is a valid `VkMemoryAllocateInfo` (chain included).
    pub unsafe fn parse(info: &vk::MemoryAllocateInfo<'_>) -> Result<Option<Self>, vk::Result> {
        // SAFETY: `info` is a valid `VkMemoryAllocateInfo` with its chain (this function's
        // contract), so each structure found by its sType is that structure.
        let (import, export, dedicated) = unsafe {
            (
                find_in_chain::<vk::ImportAndroidHardwareBufferInfoANDROID<'_>>(
                    info.p_next,
                    vk::StructureType::IMPORT_ANDROID_HARDWARE_BUFFER_INFO_ANDROID,
                ),
                find_in_chain::<vk::ExportMemoryAllocateInfo<'_>>(
                    info.p_next,
                    vk::StructureType::EXPORT_MEMORY_ALLOCATE_INFO,
                ),
                find_in_chain::<vk::MemoryDedicatedAllocateInfo<'_>>(
                    info.p_next,
                    vk::StructureType::MEMORY_DEDICATED_ALLOCATE_INFO,
                ),
            )
        };
        let dedicated_image = dedicated.map_or(vk::Image::null(), |d| d.image);
        if let Some(import) = import {
            // SAFETY: the application passes an AHardwareBuffer it holds a reference to; any
            // other pointer is refused by the checks.
            let buffer =
                unsafe { HardwareBufferRef::acquire(import.buffer.cast()) }.map_err(|e| {
                    map_gralloc_err(
                        "VkImportAndroidHardwareBufferInfoANDROID",
                        &e,
                        BufferOp::Import,
                    )
                })?;
            let d = *buffer.desc();
            if info.allocation_size != 0 && info.allocation_size != allocation_size(&d) {
                return Err(vkgen_abi::vk_error!(
                    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                    "AHardwareBuffer import: allocationSize {} is not the buffer's {}",
                    info.allocation_size,
                    allocation_size(&d)
                ));
            }
            if dedicated_image == vk::Image::null()
                && (d.format != PixelFormat::Blob || d.usage & usage::GPU_DATA_BUFFER == 0)
            {
                return Err(vkgen_abi::vk_error!(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE, "AHardwareBuffer import without a dedicated image must be a GPU_DATA_BUFFER BLOB"));
            }
            return Ok(Some(Self::Import {
                buffer,
                dedicated_image,
            }));
        }
        if export.is_some_and(|e| e.handle_types.contains(HANDLE_TYPE)) {
            return Ok(Some(Self::Export {
                dedicated_image,
                size: info.allocation_size,
            }));
        }
        Ok(None)
    }
}

/// The `allocationSize` an import of `desc` has: the whole buffer, from byte 0 of its memory.
pub fn allocation_size(desc: &BufferDesc) -> u64 {
    desc.end().unwrap_or(desc.size)
}

/// `VkExternalMemoryProperties` of the handle type: images import and export it as dedicated
/// allocations, buffers (as `BLOB`s) without.
pub fn external_memory_properties(for_image: bool) -> vk::ExternalMemoryProperties {
    vk::ExternalMemoryProperties {
        external_memory_features: if for_image {
            vk::ExternalMemoryFeatureFlags::DEDICATED_ONLY
                | vk::ExternalMemoryFeatureFlags::EXPORTABLE
                | vk::ExternalMemoryFeatureFlags::IMPORTABLE
        } else {
            vk::ExternalMemoryFeatureFlags::EXPORTABLE | vk::ExternalMemoryFeatureFlags::IMPORTABLE
        },
        export_from_imported_handle_types: HANDLE_TYPE,
        compatible_handle_types: HANDLE_TYPE,
    }
}

/// Fills `VkAndroidHardwareBufferPropertiesANDROID` and the format structures chained to it.
/// `features(format)` gives the format features of an image of that (Vulkan) format imported
/// from the buffer; for an external format `format` is `UNDEFINED` and the answer is the
/// driver's for the external format.
///
/// # Safety
/// `buffer` is the application's pointer (any value: it is checked); `props` is a valid output
/// structure chain.
pub unsafe fn write_properties(
    buffer: *const crate::hardware_buffer::AHardwareBuffer,
    props: *mut vk::AndroidHardwareBufferPropertiesANDROID<'_>,
    memory_type_bits: u32,
    features: impl Fn(&BufferDesc, &HardwareBufferFormat) -> vk::FormatFeatureFlags2,
) -> vk::Result {
    // SAFETY: `acquire` reads `buffer` only after checking it is one of our AHardwareBuffers (this
    // function's contract allows any pointer).
    let r = match unsafe { HardwareBufferRef::acquire(buffer) } {
        Ok(r) => r,
        Err(e) => {
            return map_gralloc_err(
                "vkGetAndroidHardwareBufferPropertiesANDROID",
                &e,
                BufferOp::Import,
            );
        }
    };
    let d = *r.desc();
    if d.usage & usage::GPU_ANY == 0 {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "vkGetAndroidHardwareBufferPropertiesANDROID: usage {:#x} has no GPU usage",
            d.usage
        );
    }
    // SAFETY: `props` is the application's vkGetAndroidHardwareBufferPropertiesANDROID output
    // chain, null or valid for this call; `as_mut` turns null into the refusal below.
    let Some(out) = (unsafe { props.as_mut() }) else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "vkGetAndroidHardwareBufferPropertiesANDROID without an output structure"
        );
    };
    out.allocation_size = allocation_size(&d);
    out.memory_type_bits = memory_type_bits;
    let f = format_of(&d);
    let feats = if d.format == PixelFormat::Blob {
        vk::FormatFeatureFlags2::empty()
    } else {
        features(&d, &f)
    };
    let components = f.components();
    // SAFETY: `out` is the application's properties structure, whose output chain is valid for this
    // call (this function's contract); each node is written as the type its sType names.
    unsafe {
        for_each_out(out.p_next, |s| match (*s).s_type {
            vk::StructureType::ANDROID_HARDWARE_BUFFER_FORMAT_PROPERTIES_ANDROID => {
                let p = &mut *s.cast::<vk::AndroidHardwareBufferFormatPropertiesANDROID<'_>>();
                p.format = f.format;
                p.external_format = f.external_format;
                p.format_features = vk::FormatFeatureFlags::from_raw(feats.as_raw() as u32);
                p.sampler_ycbcr_conversion_components = components;
                p.suggested_ycbcr_model = f.model;
                p.suggested_ycbcr_range = f.range;
                p.suggested_x_chroma_offset = f.x_chroma_offset;
                p.suggested_y_chroma_offset = f.y_chroma_offset;
            }
            vk::StructureType::ANDROID_HARDWARE_BUFFER_FORMAT_PROPERTIES_2_ANDROID => {
                let p = &mut *s.cast::<vk::AndroidHardwareBufferFormatProperties2ANDROID<'_>>();
                p.format = f.format;
                p.external_format = f.external_format;
                p.format_features = feats;
                p.sampler_ycbcr_conversion_components = components;
                p.suggested_ycbcr_model = f.model;
                p.suggested_ycbcr_range = f.range;
                p.suggested_x_chroma_offset = f.x_chroma_offset;
                p.suggested_y_chroma_offset = f.y_chroma_offset;
            }
            _ => {}
        });
    }
    vk::Result::SUCCESS
}

/// Fills `VkAndroidHardwareBufferUsageANDROID` in an image-format-properties chain, and the
/// external memory properties, for an `AHardwareBuffer` image query.
///
/// # Safety
/// `props` is a valid output structure chain.
pub unsafe fn write_image_format_extras(
    info: &vk::PhysicalDeviceImageFormatInfo2<'_>,
    props: &mut vk::ImageFormatProperties2<'_>,
) {
    let ahb_usage = usage_of_image(info.usage, info.flags);
    // SAFETY: `props` is the application's output structure, whose chain is valid for this call
    // (this function's contract); each node is written as the type its sType names.
    unsafe {
        for_each_out(props.p_next, |s| match (*s).s_type {
            vk::StructureType::ANDROID_HARDWARE_BUFFER_USAGE_ANDROID => {
                (*s.cast::<vk::AndroidHardwareBufferUsageANDROID<'_>>())
                    .android_hardware_buffer_usage = ahb_usage;
            }
            vk::StructureType::EXTERNAL_IMAGE_FORMAT_PROPERTIES => {
                (*s.cast::<vk::ExternalImageFormatProperties<'_>>()).external_memory_properties =
                    external_memory_properties(true);
            }
            _ => {}
        });
    }
}

/// The two commands as a table (see [`super::entries`]), for kit drivers with
/// [`Kit::HARDWARE_BUFFERS`] on.
pub fn entries<D: Kit>() -> EntryTable {
    if !D::HARDWARE_BUFFERS {
        return EntryTable::EMPTY;
    }
    EntryTable {
        get_android_hardware_buffer_properties_android: Some(
            get_android_hardware_buffer_properties::<D>,
        ),
        get_memory_android_hardware_buffer_android: Some(get_memory_android_hardware_buffer::<D>),
        ..EntryTable::EMPTY
    }
}

/// [`vkGetAndroidHardwareBufferPropertiesANDROID`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetAndroidHardwareBufferPropertiesANDROID.html)
/// from the driver's memory types and format table.
unsafe extern "system" fn get_android_hardware_buffer_properties<D: Kit>(
    device: vk::Device,
    buffer: *const vk::AHardwareBuffer,
    p_properties: *mut vk::AndroidHardwareBufferPropertiesANDROID<'_>,
) -> vk::Result {
    guard(
        "vkGetAndroidHardwareBufferPropertiesANDROID",
        vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
        || {
            // SAFETY: `device` is a live device of this driver (the command's valid usage);
            // `from_raw` checks its signature.
            let Some(dev) =
                (unsafe { super::objects::Device::<D>::from_raw(vk::Handle::as_raw(device)) })
            else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                    "{device:?} is no device of this driver"
                );
            };
            let pd = dev.physical();
            let bits = D::hardware_buffer_memory_type_bits(pd);
            // SAFETY: `write_properties` reads `buffer` only after checking it is one of our
            // AHardwareBuffers, and `p_properties` is the application's output chain, null (refused
            // there) or valid for this call.
            unsafe {
                write_properties(buffer.cast(), p_properties, bits, |_, f| {
                    let p = D::format_properties(pd, f.format);
                    vk::FormatFeatureFlags2::from_raw(u64::from(p.optimal_tiling_features.as_raw()))
                })
            }
        },
    )
}

/// [`vkGetMemoryAndroidHardwareBufferANDROID`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetMemoryAndroidHardwareBufferANDROID.html):
/// a new reference to the buffer behind the memory.
unsafe extern "system" fn get_memory_android_hardware_buffer<D: Kit>(
    device: vk::Device,
    p_info: *const vk::MemoryGetAndroidHardwareBufferInfoANDROID<'_>,
    p_buffer: *mut *mut vk::AHardwareBuffer,
) -> vk::Result {
    guard(
        "vkGetMemoryAndroidHardwareBufferANDROID",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `p_info` is the application's vkGetMemoryAndroidHardwareBufferANDROID input,
            // null or valid for this call; `as_ref` turns null into the refusal below.
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                    "vkGetMemoryAndroidHardwareBufferANDROID without an info"
                );
            };
            match (
                D::memory_hardware_buffer(device, info.memory),
                p_buffer.is_null(),
            ) {
                (Some(b), false) => {
                    // SAFETY: `p_buffer` was checked non-null and is the application's output,
                    // valid for a write; the reference `into_raw` hands over is now the
                    // application's.
                    unsafe { *p_buffer = b.into_raw().cast() };
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
        },
    )
}
