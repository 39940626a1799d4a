//! `VkBufferView` (Mesa's `vk_buffer_view`): the buffer, format, offset and range with
//! `VK_WHOLE_SIZE` resolved, and the element count a texel-buffer access may address,
//! ⌊range ÷ block size⌋ — what an engine needs to read a uniform or storage texel buffer.

use vkgen_abi::vk_error;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::buffer::Buffer;
use super::desc::{store, VendorData};
use crate::handles::{destroy_object, Object, ObjectKind};
use crate::kit::format;
use crate::util::guard;

/// A `VkBufferView` of the kit.
pub struct BufferView {
    pub buffer: vk::Buffer,
    pub format: vk::Format,
    pub offset: u64,
    /// Bytes, `VK_WHOLE_SIZE` resolved to the rest of the buffer.
    pub range: u64,
    /// Texel blocks in `range`: ⌊range ÷ block size⌋.
    pub elements: u64,
    pub vendor: VendorData,
}

impl ObjectKind for BufferView {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::BUFFER_VIEW;
}

impl BufferView {
    /// The view behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkBufferView` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::BufferView) -> Option<&'a BufferView> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<BufferView>::from_handle(h) }.map(|o| &**o)
    }

    /// The view `info` describes on `buffer`, after the spec's range checks (invalid usage:
    /// a message, and `VK_ERROR_OUT_OF_DEVICE_MEMORY`, which `vkCreateBufferView` may return).
    pub fn new(
        info: &vk::BufferViewCreateInfo<'_>,
        buffer: &Buffer,
        max_elements: u32,
    ) -> Result<BufferView, vk::Result> {
        let size = buffer.desc.size;
        let Some(block) = format::info(info.format).map(|f| u64::from(f.block_size)) else {
            return Err(vk_error!(
                vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                "vkCreateBufferView: {:?} has no texel-buffer layout",
                info.format
            ));
        };
        let range = if info.range == vk::WHOLE_SIZE {
            size.saturating_sub(info.offset)
        } else {
            info.range
        };
        let elements = range / block.max(1);
        if info.offset >= size || range == 0 || range > size - info.offset {
            return Err(vk_error!(
                vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                "vkCreateBufferView: offset {} range {} outside a buffer of {size} bytes",
                info.offset,
                info.range
            ));
        }
        if elements > u64::from(max_elements) {
            return Err(vk_error!(
                vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                "vkCreateBufferView: {elements} elements exceed maxTexelBufferElements {max_elements}"
            ));
        }
        Ok(BufferView {
            buffer: info.buffer,
            format: info.format,
            offset: info.offset,
            range,
            elements,
            vendor: VendorData::default(),
        })
    }
}

/// [`vkCreateBufferView`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateBufferView.html)
unsafe extern "system" fn create_buffer_view<D: crate::kit::api::Kit>(
    device: vk::Device,
    p_info: *const vk::BufferViewCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_view: *mut vk::BufferView,
) -> vk::Result {
    guard(
        "vkCreateBufferView",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure (VUID-vkCreateBufferView-pCreateInfo-parameter).
            let Some(i) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "null pCreateInfo");
            };
            // SAFETY: the info names a live buffer of this device
            // (VUID-VkBufferViewCreateInfo-buffer-parameter); the lookup checks the type.
            let Some(buffer) = (unsafe { Buffer::from_handle(i.buffer) }) else {
                return vk_error!(
                    vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                    "vkCreateBufferView: {:?} is no buffer of this driver",
                    i.buffer
                );
            };
            // SAFETY: the application's device handle (VUID-vkCreateBufferView-device-parameter).
            let max = unsafe { crate::kit::objects::Device::<D>::from_handle(device) }
                .map_or(u32::MAX, |d| {
                    d.physical().properties.max_texel_buffer_elements
                });
            match BufferView::new(i, buffer, max) {
                // SAFETY: the application's allocator and output pointer (-pAllocator-, -pView-parameter).
                Ok(view) => unsafe { store(view, p_allocator, p_view) },
                Err(e) => e,
            }
        },
    )
}

/// `vkDestroyBufferView`: null or mistyped handles are ignored.
unsafe extern "system" fn destroy_buffer_view(
    _device: vk::Device,
    view: vk::BufferView,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyBufferView", (), || {
        // SAFETY: null or a view no pending work uses (VUID-vkDestroyBufferView-bufferView-00936).
        unsafe { destroy_object::<BufferView>(vk::Handle::as_raw(view)) };
    });
}

pub(super) fn entries<D: crate::kit::api::Kit>() -> EntryTable {
    EntryTable {
        create_buffer_view: Some(create_buffer_view::<D>),
        destroy_buffer_view: Some(destroy_buffer_view),
        ..EntryTable::EMPTY
    }
}
