//! Resources on buffers from outside the kit: `AHardwareBuffer` memory
//! (`VK_ANDROID_external_memory_android_hardware_buffer`, with [`Kit::HARDWARE_BUFFERS`]) and
//! native-buffer images (`VK_ANDROID_native_buffer`), Mesa's `vk_android` import paths.
//!
//! Both end in a [`DeviceMemory`] whose bytes are the buffer's own pages, mapped shared from
//! byte 0 of its fd: what the application writes through `vkMapMemory`, or the vendor's engine
//! through [`DeviceMemory::host_ptr`] / [`Image::host_ptr`], is what the buffer's other users
//! (a camera, a compositor, another device) read, with no copy to keep in step.
//!
//! * **`AHardwareBuffer` memory.** `vkAllocateMemory` with
//!   `VkImportAndroidHardwareBufferInfoANDROID` imports the buffer (the spec's checks are
//!   [`HardwareBufferAllocation::parse`]'s); with `VkExportMemoryAllocateInfo` naming the handle
//!   type it allocates one described like the dedicated image (or a `BLOB` of
//!   `allocationSize` bytes). The memory keeps a reference to the buffer, which
//!   `vkGetMemoryAndroidHardwareBufferANDROID` hands out again ([`Kit::memory_hardware_buffer`]'s
//!   default reads it here). The memory type must be one of
//!   [`Kit::hardware_buffer_memory_type_bits`].
//! * **Native-buffer images.** `vkCreateImage` with a `VkNativeBufferANDROID` (validated by
//!   [`crate::kit::native_buffer::native_buffer_import`]) makes a kit [`Image`] bound at
//!   creation to memory on the gralloc buffer: a memory object of its own that the image owns
//!   (the application never sees its handle; it goes with the image), keeping the buffer's
//!   fd open as long as the image lives. The image's linear layout has the buffer's row pitch, so
//!   `vkGetImageSubresourceLayout` and an engine addressing texels agree with the buffer's
//!   other users. The spec-8 deferred form, `vkBindImageMemory2` with the structure chained and
//!   no memory, binds the same way (the image keeps the packed layout it was created with:
//!   the buffer was not known then).
//!
//! Images on `AHardwareBuffer` memory likewise keep the layout of their create info (the
//! buffer is chosen after the image); dedicated binds of such memory skip the size check, which
//! the spec leaves to the buffer (an external image's requirements are not known before it is
//! bound, VUID-VkImageMemoryRequirementsInfo2-image-01897).

use vkgen_abi::vk_error;
use vkgen_generated::vk;

use super::super::api::Kit;
use super::super::hardware_buffer::{
    allocation_size, usage_of_image, ExportTarget, HardwareBufferAllocation,
};
use super::super::objects::Device;
use super::desc::ImageDesc;
use super::device_memory::{self, memory_type, Dedicated, DeviceMemory, OwnedMemory};
use super::image_object::Image;
use crate::gralloc::{map_gralloc_err, Buffer, BufferOp};
use crate::handles::create_object;
use crate::kit::format::layout::{linear_layout, LinearLayout};

/// The default of [`Kit::memory_hardware_buffer`](crate::kit::Kit::memory_hardware_buffer) (it
/// reads the memory object only).
pub use super::device_memory::memory_hardware_buffer;

/// `vkAllocateMemory`'s `AHardwareBuffer` paths: `None` when the allocation involves no buffer
/// (or the driver has no [`Kit::HARDWARE_BUFFERS`]), else the memory on the buffer's pages.
///
/// # Safety
/// `info` is a valid `VkMemoryAllocateInfo` (chain included).
pub(super) unsafe fn hardware_buffer_memory<D: Kit>(
    dev: &Device<D>,
    info: &vk::MemoryAllocateInfo<'_>,
) -> Option<Result<DeviceMemory, vk::Result>> {
    if !D::HARDWARE_BUFFERS {
        return None;
    }
    // SAFETY: the caller's valid structure and chain.
    let allocation = match unsafe { HardwareBufferAllocation::parse(info) } {
        Ok(None) => return None,
        Ok(Some(a)) => a,
        Err(e) => return Some(Err(e)),
    };
    // SAFETY: the same valid chain, read for its `VkMemoryDedicatedAllocateInfo`.
    let dedicated = unsafe { device_memory::dedicated(info) };
    Some(on_hardware_buffer(
        dev,
        info.memory_type_index,
        allocation,
        dedicated,
    ))
}

fn on_hardware_buffer<D: Kit>(
    dev: &Device<D>,
    type_index: u32,
    allocation: HardwareBufferAllocation,
    dedicated: Option<Dedicated>,
) -> Result<DeviceMemory, vk::Result> {
    let ty = memory_type(dev, type_index)?;
    let allowed = D::hardware_buffer_memory_type_bits(dev.physical());
    if allowed & (1 << type_index) == 0 {
        return Err(vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "AHardwareBuffer memory of type {type_index}: the buffers go in types {allowed:#x}"
        ));
    }
    let buffer = match allocation {
        HardwareBufferAllocation::Import { buffer, .. } => buffer,
        HardwareBufferAllocation::Export {
            dedicated_image,
            size,
        } => export_target(dedicated_image, size).allocate()?,
    };
    let size = allocation_size(buffer.desc());
    let mapping = buffer
        .import()
        .and_then(|b| b.into_mapping().map_err(Into::into))
        .map_err(|e| map_gralloc_err("mapping an AHardwareBuffer", &e, BufferOp::Import))?;
    DeviceMemory::shared(mapping, Some(buffer), size, ty, dedicated)
}

/// The buffer an export allocates: one like the dedicated image, else a `BLOB`.
fn export_target(image: vk::Image, size: u64) -> ExportTarget {
    // SAFETY: the dedicated image is null or a live image of this device
    // (VUID-VkMemoryDedicatedAllocateInfo-image-parameter); `from_handle` checks the type.
    match unsafe { Image::from_handle(image) } {
        Some(i) => ExportTarget::Image {
            format: i.desc.format,
            width: i.desc.extent.width,
            height: i.desc.extent.height,
            usage: usage_of_image(i.desc.usage, i.desc.flags),
        },
        None => ExportTarget::Blob { size },
    }
}

/// The linear layout of a native-buffer image: rows as long as the buffer's stride (`stride`
/// texels, at least the image's width).
pub(super) fn native_layout(desc: &ImageDesc, stride: u32) -> LinearLayout {
    linear_layout(&ImageDesc {
        extent: vk::Extent3D {
            width: stride.max(desc.extent.width),
            ..desc.extent
        },
        ..*desc
    })
}

/// The memory type native-buffer memory reports: the device's first host-visible type (the
/// pages are host memory), else type 0.
fn host_visible_type<D: Kit>(dev: &Device<D>) -> (u32, vk::MemoryType) {
    let m = &dev.physical().memory;
    let count = m.memory_type_count.min(vk::MAX_MEMORY_TYPES as u32);
    let index = (0..count)
        .find(|&i| {
            m.memory_types[i as usize]
                .property_flags
                .contains(vk::MemoryPropertyFlags::HOST_VISIBLE)
        })
        .unwrap_or(0);
    (index, m.memory_types[index as usize])
}

/// Binds `image` to memory on the pages of `buffer` (a native buffer's gralloc buffer), at
/// the buffer's pixel offset; the memory is the image's (see the [module docs](self)).
///
/// # Safety
/// `p_allocator` is null or callbacks valid until the image is destroyed.
pub(super) unsafe fn bind_native_buffer<D: Kit>(
    dev: &Device<D>,
    image: &Image,
    buffer: Buffer,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<(), vk::Result> {
    if image.binding.get().is_some() {
        return Err(vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "VkNativeBufferANDROID: the image is bound already"
        ));
    }
    let desc = *buffer.desc();
    let refused =
        |what: &str, e: &dyn std::fmt::Display| map_gralloc_err(what, e, BufferOp::Import);
    let size = desc
        .end()
        .map_err(|e| refused("VkNativeBufferANDROID", &e))?;
    let mapping = buffer
        .into_mapping()
        .map_err(|e| refused("mapping a VkNativeBufferANDROID", &e))?;
    let memory = DeviceMemory::shared(mapping, None, size, host_visible_type(dev), None)?;
    // SAFETY: the caller's allocator, valid as long as the image that owns the memory.
    let raw = unsafe { create_object(memory, p_allocator) }?;
    let owned = OwnedMemory(vk::Handle::from_raw(raw));
    let handle = owned.0;
    // Both cells were empty (checked above; the image is not shared yet, or its binds are the
    // application's to serialise): the sets succeed.
    let _ = image.own_memory.set(owned);
    let _ = image.binding.set((handle, desc.offset));
    Ok(())
}

/// A bind of `image` (handle `handle`) to memory dedicated to it on an outside buffer: bound
/// without the size check (see the [module docs](self)); `None` for every other bind.
pub(super) fn bind_dedicated(
    image: &Image,
    handle: vk::Image,
    memory: vk::DeviceMemory,
    offset: u64,
) -> Option<vk::Result> {
    // SAFETY: the application's memory handle (VUID-VkBindImageMemoryInfo-memory-parameter);
    // `from_handle` checks the type.
    let m = unsafe { DeviceMemory::from_handle(memory) }?;
    if !m.is_shared() || m.dedicated != Some(Dedicated::Image(handle)) {
        return None;
    }
    if offset != 0 {
        return Some(vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "a dedicated allocation is bound at offset 0, not {offset} (VUID-VkBindImageMemoryInfo-memory-02628)"
        ));
    }
    Some(match image.binding.set((memory, 0)) {
        Ok(()) => vk::Result::SUCCESS,
        Err(_) => vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "image already bound"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rgba(width: u32, height: u32) -> ImageDesc {
        ImageDesc {
            flags: vk::ImageCreateFlags::empty(),
            image_type: vk::ImageType::TYPE_2D,
            format: vk::Format::R8G8B8A8_UNORM,
            extent: vk::Extent3D {
                width,
                height,
                depth: 1,
            },
            mip_levels: 1,
            array_layers: 1,
            samples: vk::SampleCountFlags::TYPE_1,
            tiling: vk::ImageTiling::OPTIMAL,
            usage: vk::ImageUsageFlags::COLOR_ATTACHMENT,
        }
    }

    #[test]
    fn a_native_layout_has_the_buffers_row_pitch() {
        let l = native_layout(&rgba(20, 6), 32);
        assert_eq!(l.levels[0].row_pitch, 32 * 4);
        assert_eq!(l.levels[0].size, 32 * 4 * 6);
        // A stride below the width (refused by the import's checks) never shortens the rows.
        assert_eq!(native_layout(&rgba(20, 6), 8).levels[0].row_pitch, 20 * 4);
    }

    #[test]
    fn an_export_without_a_dedicated_image_is_a_blob() {
        assert_eq!(
            export_target(vk::Image::null(), 4096),
            ExportTarget::Blob { size: 4096 }
        );
    }
}
