//! `VkImage` as data (its description, layout, binding): a leaf, which the external-memory
//! paths read without the image commands (`image.rs`), which call them.

use std::sync::OnceLock;

use vkgen_generated::vk;

use super::desc::{ImageDesc, VendorData};
use super::device_memory::{bound_host_ptr, OwnedMemory};
use crate::handles::{Object, ObjectKind};
use crate::kit::format::layout::LinearLayout;

/// A `VkImage` of the kit.
pub struct Image {
    pub desc: ImageDesc,
    pub layout: LinearLayout,
    pub requirements: vk::MemoryRequirements,
    pub(super) binding: OnceLock<(vk::DeviceMemory, u64)>,
    /// The memory a native-buffer image is bound to, which it owns ([`external`](super::external)).
    pub(super) own_memory: OnceLock<OwnedMemory>,
    pub vendor: VendorData,
}

impl ObjectKind for Image {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::IMAGE;
}

impl Image {
    /// The image behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkImage` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::Image) -> Option<&'a Image> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<Image>::from_handle(h) }.map(|o| &**o)
    }

    /// `(memory, offset)` the image is bound to.
    pub fn binding(&self) -> Option<(vk::DeviceMemory, u64)> {
        self.binding.get().copied()
    }

    /// The host address of the image's first byte (its [`LinearLayout`] starts there), once
    /// bound.
    pub fn host_ptr(&self) -> Option<*mut u8> {
        bound_host_ptr(&self.binding)
    }

    /// The layout of one subresource (its COLOR or depth/stencil aspect: the whole level).
    pub fn subresource(&self, mip_level: u32, array_layer: u32) -> vk::SubresourceLayout {
        self.layout
            .subresource(vk::ImageAspectFlags::COLOR, mip_level, array_layer)
    }

    /// The layout of one aspect of a subresource: a plane's for PLANE_i.
    pub fn aspect_subresource(
        &self,
        aspect: vk::ImageAspectFlags,
        mip_level: u32,
        array_layer: u32,
    ) -> vk::SubresourceLayout {
        self.layout.subresource(aspect, mip_level, array_layer)
    }
}
