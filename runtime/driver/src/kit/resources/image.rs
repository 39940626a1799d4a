//! `VkImage`, `VkImageView` and `VkSampler`: create infos kept, images bound to memory with
//! the packed linear layout of [`linear_layout`] (`kit::format::layout`: what a CPU device
//! reads and writes, and what `vkGetImageSubresourceLayout` reports for every tiling),
//! requirements with and without an object.

use std::sync::OnceLock;

use vkgen_abi::vk_error;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::super::api::Kit;
use super::super::objects::Device;
use super::buffer::write_requirements2;
use super::desc::{store, ImageDesc, VendorData};
use super::device_memory::bind_checked;
use super::external;
use crate::handles::{destroy_object, Object, ObjectKind};
use crate::kit::native_buffer::{native_buffer_import, native_buffer_of};
use crate::util::{find_in_chain, guard, slice};

pub use super::image_object::Image;
pub use crate::kit::format::layout::{linear_layout, LevelLayout, LinearLayout, PlaneLayout};

fn describe(i: &vk::ImageCreateInfo<'_>) -> ImageDesc {
    ImageDesc {
        flags: i.flags,
        image_type: i.image_type,
        format: i.format,
        extent: i.extent,
        mip_levels: i.mip_levels,
        array_layers: i.array_layers,
        samples: i.samples,
        tiling: i.tiling,
        usage: i.usage,
    }
}

/// [`vkCreateImage`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateImage.html)
unsafe extern "system" fn create_image<D: Kit>(
    device: vk::Device,
    p_info: *const vk::ImageCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_image: *mut vk::Image,
) -> vk::Result {
    guard(
        "vkCreateImage",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the application's device handle; `from_handle` checks it is one of ours.
            let Some(dev) = (unsafe { Device::<D>::from_handle(device) }) else {
                return vk_error!(
                    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                    "not a device of this driver"
                );
            };
            // SAFETY: `pCreateInfo` is a valid structure (VUID-vkCreateImage-pCreateInfo-parameter).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "null pCreateInfo");
            };
            let desc = describe(info);
            // SAFETY: the create info's chain is valid (VUID-VkImageCreateInfo-pNext-pNext).
            let native = match unsafe { native_buffer_import(info) }.transpose() {
                Ok(n) => n,
                Err(e) => return e,
            };
            let layout = match &native {
                Some(n) => external::native_layout(&desc, n.buffer.desc().stride),
                None => linear_layout(&desc),
            };
            let image = Image {
                desc,
                layout,
                requirements: D::image_requirements(dev.physical(), &desc),
                binding: OnceLock::new(),
                own_memory: OnceLock::new(),
                vendor: VendorData::default(),
            };
            if let Some(n) = native {
                // SAFETY: the application's allocator, valid until the image is destroyed
                // (VUID-vkCreateImage-pAllocator-parameter).
                let bound =
                    unsafe { external::bind_native_buffer(dev, &image, n.buffer, p_allocator) };
                if let Err(e) = bound {
                    return e;
                }
            }
            // SAFETY: the application's allocator and output pointer (the command's
            // -pAllocator- and output -parameter VUIDs).
            unsafe { store(image, p_allocator, p_image) }
        },
    )
}

/// [`vkDestroyImage`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyImage.html)
unsafe extern "system" fn destroy_image(
    _device: vk::Device,
    image: vk::Image,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyImage", (), || {
        // SAFETY: `image` is null or an image no pending work uses (VUID-vkDestroyImage-image-01000).
        unsafe { destroy_object::<Image>(vk::Handle::as_raw(image)) };
    });
}

/// [`vkGetImageMemoryRequirements`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetImageMemoryRequirements.html)
unsafe extern "system" fn get_image_memory_requirements(
    _device: vk::Device,
    image: vk::Image,
    p_req: *mut vk::MemoryRequirements,
) {
    guard("vkGetImageMemoryRequirements", (), || {
        // SAFETY: the application's handle; checked by type.
        if let Some(i) = unsafe { Image::from_handle(image) } {
            // SAFETY: `pMemoryRequirements` is valid for a write
            // (VUID-vkGetImageMemoryRequirements-pMemoryRequirements-parameter).
            unsafe { p_req.write(i.requirements) };
        }
    });
}

/// [`vkGetImageMemoryRequirements2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetImageMemoryRequirements2.html)
unsafe extern "system" fn get_image_memory_requirements2(
    _device: vk::Device,
    p_info: *const vk::ImageMemoryRequirementsInfo2<'_>,
    p_req: *mut vk::MemoryRequirements2<'_>,
) {
    guard("vkGetImageMemoryRequirements2", (), || {
        // SAFETY: `pInfo` is a valid structure; its image handle is checked by type.
        let i = unsafe { p_info.as_ref() }.and_then(|i| unsafe { Image::from_handle(i.image) });
        if let Some(i) = i {
            // SAFETY: `pMemoryRequirements` is a valid output structure with a valid chain.
            unsafe { write_requirements2(p_req, i.requirements) };
        }
    });
}

/// [`vkGetDeviceImageMemoryRequirements`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetDeviceImageMemoryRequirements.html)
unsafe extern "system" fn get_device_image_memory_requirements<D: Kit>(
    device: vk::Device,
    p_info: *const vk::DeviceImageMemoryRequirements<'_>,
    p_req: *mut vk::MemoryRequirements2<'_>,
) {
    guard("vkGetDeviceImageMemoryRequirements", (), || {
        // SAFETY: the application's device handle; `from_handle` checks it is one of ours.
        let Some(dev) = (unsafe { Device::<D>::from_handle(device) }) else {
            return;
        };
        // SAFETY: `pInfo` and its `pCreateInfo` are valid structures.
        let desc = unsafe { p_info.as_ref().and_then(|i| i.p_create_info.as_ref()) }.map(describe);
        if let Some(desc) = desc {
            // SAFETY: `pMemoryRequirements` is a valid output structure with a valid chain.
            unsafe { write_requirements2(p_req, D::image_requirements(dev.physical(), &desc)) };
        }
    });
}

/// `vkGetImageSparseMemoryRequirements{,2}` and the device form: no sparse residency, so
/// zero requirements.
unsafe extern "system" fn sparse_requirements(
    _device: vk::Device,
    _image: vk::Image,
    p_count: *mut u32,
    _p_req: *mut vk::SparseImageMemoryRequirements,
) {
    // SAFETY: `pSparseMemoryRequirementCount` is valid for a write
    // (VUID-vkGetImageSparseMemoryRequirements-pSparseMemoryRequirementCount-parameter).
    unsafe { p_count.write(0) };
}

unsafe extern "system" fn sparse_requirements2(
    _device: vk::Device,
    _p_info: *const vk::ImageSparseMemoryRequirementsInfo2<'_>,
    p_count: *mut u32,
    _p_req: *mut vk::SparseImageMemoryRequirements2<'_>,
) {
    // SAFETY: the count pointer is valid for a write (the command's -parameter VUID).
    unsafe { p_count.write(0) };
}

unsafe extern "system" fn device_sparse_requirements(
    _device: vk::Device,
    _p_info: *const vk::DeviceImageMemoryRequirements<'_>,
    p_count: *mut u32,
    _p_req: *mut vk::SparseImageMemoryRequirements2<'_>,
) {
    // SAFETY: the count pointer is valid for a write (the command's -parameter VUID).
    unsafe { p_count.write(0) };
}

fn bind(image: vk::Image, memory: vk::DeviceMemory, offset: u64) -> vk::Result {
    // SAFETY: the application's image handle (VUID-VkBindImageMemoryInfo-image-parameter);
    // checked by type.
    let Some(i) = (unsafe { Image::from_handle(image) }) else {
        return vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "not an image of this driver"
        );
    };
    external::bind_dedicated(i, image, memory, offset)
        .unwrap_or_else(|| bind_checked(&i.binding, &i.requirements, "image", memory, offset))
}

/// One `VkBindImageMemoryInfo`: the spec-8 deferred native-buffer bind when the structure
/// carries a `VkNativeBufferANDROID` (no memory: the image goes on the buffer), else [`bind`].
///
/// # Safety
/// `info` is a valid structure (chain included); `dev` is the image's device.
unsafe fn bind_info<D: Kit>(dev: &Device<D>, info: &vk::BindImageMemoryInfo<'_>) -> vk::Result {
    // SAFETY: the structure's valid chain (the caller's promise).
    let anb = unsafe {
        find_in_chain::<vk::NativeBufferANDROID>(
            info.p_next,
            vk::StructureType::NATIVE_BUFFER_ANDROID,
        )
    };
    let Some(anb) = anb else {
        return bind(info.image, info.memory, info.memory_offset);
    };
    // SAFETY: the application's image handle (VUID-VkBindImageMemoryInfo-image-parameter);
    // checked by type.
    let Some(i) = (unsafe { Image::from_handle(info.image) }) else {
        return vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "not an image of this driver"
        );
    };
    // SAFETY: the loader's structure: its handle is null or the buffer's `native_handle_t`.
    let bound = unsafe { native_buffer_of(anb) }.and_then(|buffer| {
        // SAFETY: a bind has no allocator: null, the system allocator, valid for the process.
        unsafe { external::bind_native_buffer(dev, i, buffer, std::ptr::null()) }
    });
    bound.err().unwrap_or(vk::Result::SUCCESS)
}

/// [`vkBindImageMemory`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkBindImageMemory.html)
unsafe extern "system" fn bind_image_memory(
    _device: vk::Device,
    image: vk::Image,
    memory: vk::DeviceMemory,
    offset: vk::DeviceSize,
) -> vk::Result {
    guard(
        "vkBindImageMemory",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || bind(image, memory, offset),
    )
}

/// [`vkBindImageMemory2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkBindImageMemory2.html)
unsafe extern "system" fn bind_image_memory2<D: Kit>(
    device: vk::Device,
    count: u32,
    p_infos: *const vk::BindImageMemoryInfo<'_>,
) -> vk::Result {
    guard(
        "vkBindImageMemory2",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the application's device handle; `from_handle` checks it is one of ours.
            let Some(dev) = (unsafe { Device::<D>::from_handle(device) }) else {
                return vk_error!(
                    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                    "not a device of this driver"
                );
            };
            let mut first = vk::Result::SUCCESS;
            // SAFETY: `pBindInfos` holds `bindInfoCount` valid structures.
            for i in unsafe { slice(p_infos, count) } {
                // SAFETY: one of those structures, of `dev`'s images.
                let r = unsafe { bind_info(dev, i) };
                if first == vk::Result::SUCCESS {
                    first = r;
                }
            }
            first
        },
    )
}

/// [`vkGetImageSubresourceLayout`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetImageSubresourceLayout.html)
unsafe extern "system" fn get_image_subresource_layout(
    _device: vk::Device,
    image: vk::Image,
    p_sub: *const vk::ImageSubresource,
    p_layout: *mut vk::SubresourceLayout,
) {
    guard("vkGetImageSubresourceLayout", (), || {
        // SAFETY: the application's handle (checked by type) and valid structures
        // (VUID-vkGetImageSubresourceLayout-pSubresource-parameter, -pLayout-parameter).
        let (Some(i), Some(s)) = (unsafe { Image::from_handle(image) }, unsafe {
            p_sub.as_ref()
        }) else {
            return;
        };
        // SAFETY: `pLayout` is valid for a write.
        unsafe { p_layout.write(i.aspect_subresource(s.aspect_mask, s.mip_level, s.array_layer)) };
    });
}

/// [`vkGetImageSubresourceLayout2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetImageSubresourceLayout2.html)
/// (its entry is named so only in tables generated from a 1.4 registry).
#[cfg(vk_1_4)]
unsafe extern "system" fn get_image_subresource_layout2(
    _device: vk::Device,
    image: vk::Image,
    p_sub: *const vk::ImageSubresource2,
    p_layout: *mut vk::SubresourceLayout2,
) {
    guard("vkGetImageSubresourceLayout2", (), || {
        // SAFETY: the application's handle (checked by type) and valid structures.
        let (Some(i), Some(s), Some(out)) = (
            unsafe { Image::from_handle(image) },
            unsafe { p_sub.as_ref() },
            unsafe { p_layout.as_mut() },
        ) else {
            return;
        };
        let s = s.image_subresource;
        out.subresource_layout = i.aspect_subresource(s.aspect_mask, s.mip_level, s.array_layer);
    });
}

/// [`vkGetDeviceImageSubresourceLayout`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetDeviceImageSubresourceLayout.html):
/// the layout `vkCreateImage` would give an image of the create info (the kit's linear one;
/// a native-buffer import takes its layout from the buffer, which no create info carries).
#[cfg(vk_1_4)]
unsafe extern "system" fn get_device_image_subresource_layout(
    _device: vk::Device,
    p_info: *const vk::DeviceImageSubresourceInfo,
    p_layout: *mut vk::SubresourceLayout2,
) {
    guard("vkGetDeviceImageSubresourceLayout", (), || {
        // SAFETY: `pInfo`, its `pCreateInfo` and `pSubresource` are valid structures and
        // `pLayout` a valid output (the command's -parameter VUIDs); `as_ref`/`as_mut` skip null.
        let (Some(info), Some(out)) = (unsafe { p_info.as_ref() }, unsafe { p_layout.as_mut() })
        else {
            return;
        };
        // SAFETY: `pCreateInfo` and `pSubresource` of a valid `VkDeviceImageSubresourceInfo`
        // point to valid structures (VUID-VkDeviceImageSubresourceInfo-pCreateInfo-parameter,
        // -pSubresource-parameter); `as_ref` skips null.
        let (Some(create), Some(sub)) = (unsafe { info.p_create_info.as_ref() }, unsafe {
            info.p_subresource.as_ref()
        }) else {
            return;
        };
        let s = sub.image_subresource;
        out.subresource_layout =
            linear_layout(&describe(create)).subresource(s.aspect_mask, s.mip_level, s.array_layer);
    });
}

/// [`vkTransitionImageLayout`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkTransitionImageLayout.html):
/// a kit image's memory is one linear layout whatever its `VkImageLayout`, so a host
/// transition has nothing to change.
#[cfg(vk_1_4)]
unsafe extern "system" fn transition_image_layout(
    _device: vk::Device,
    _transition_count: u32,
    _p_transitions: *const vk::HostImageLayoutTransitionInfo,
) -> vk::Result {
    vk::Result::SUCCESS
}

/// A `VkImageView` of the kit: what it views.
pub struct ImageView {
    pub image: vk::Image,
    pub view_type: vk::ImageViewType,
    pub format: vk::Format,
    pub components: vk::ComponentMapping,
    pub subresource_range: vk::ImageSubresourceRange,
    pub vendor: VendorData,
}

impl ObjectKind for ImageView {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::IMAGE_VIEW;
}

impl ImageView {
    /// The view behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkImageView` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::ImageView) -> Option<&'a ImageView> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<ImageView>::from_handle(h) }.map(|o| &**o)
    }
}

/// A `VkSampler` of the kit: its create info (without the chain).
pub struct Sampler {
    pub info: vk::SamplerCreateInfo<'static>,
    /// The state of the `VkSamplerYcbcrConversion` its create info chained, if any.
    pub ycbcr: Option<super::ycbcr::YcbcrState>,
    pub vendor: VendorData,
}

// SAFETY: `info.p_next` is null (set so in `create_sampler`); the rest is plain data.
unsafe impl Send for Sampler {}
// SAFETY: see `Send`.
unsafe impl Sync for Sampler {}

impl ObjectKind for Sampler {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::SAMPLER;
}

impl Sampler {
    /// The sampler behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkSampler` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::Sampler) -> Option<&'a Sampler> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<Sampler>::from_handle(h) }.map(|o| &**o)
    }
}

/// [`vkCreateImageView`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateImageView.html)
unsafe extern "system" fn create_image_view(
    _device: vk::Device,
    p_info: *const vk::ImageViewCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_view: *mut vk::ImageView,
) -> vk::Result {
    guard(
        "vkCreateImageView",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure (VUID-vkCreateImageView-pCreateInfo-parameter).
            let Some(i) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "null pCreateInfo");
            };
            let view = ImageView {
                image: i.image,
                view_type: i.view_type,
                format: i.format,
                components: i.components,
                subresource_range: i.subresource_range,
                vendor: VendorData::default(),
            };
            // SAFETY: the application's allocator and output pointer (-pAllocator-, -pView-parameter).
            unsafe { store(view, p_allocator, p_view) }
        },
    )
}

/// [`vkCreateSampler`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateSampler.html)
unsafe extern "system" fn create_sampler(
    _device: vk::Device,
    p_info: *const vk::SamplerCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_sampler: *mut vk::Sampler,
) -> vk::Result {
    guard(
        "vkCreateSampler",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure (VUID-vkCreateSampler-pCreateInfo-parameter).
            let Some(i) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "null pCreateInfo");
            };
            let info = vk::SamplerCreateInfo {
                p_next: std::ptr::null(),
                ..*i
            };
            // SAFETY: with `pNext` null nothing in the structure borrows from the application:
            // the lifetime parameter only guards `pNext`.
            let info = unsafe {
                std::mem::transmute::<vk::SamplerCreateInfo<'_>, vk::SamplerCreateInfo<'static>>(
                    info,
                )
            };
            let sampler = Sampler {
                info,
                // SAFETY: `i.p_next` is the application's valid chain (VUID-VkSamplerCreateInfo-pNext-pNext).
                ycbcr: unsafe { super::ycbcr::chained(i.p_next) },
                vendor: VendorData::default(),
            };
            // SAFETY: the application's allocator and output pointer (-pAllocator-, -pSampler-parameter).
            unsafe { store(sampler, p_allocator, p_sampler) }
        },
    )
}

macro_rules! destroy_fn {
    ($name:ident, $ty:ty, $handle:ty, $cmd:literal) => {
        #[doc = concat!("`", $cmd, "`: null or mistyped handles are ignored.")]
        unsafe extern "system" fn $name(
            _device: vk::Device,
            h: $handle,
            _p_allocator: *const vk::AllocationCallbacks<'_>,
        ) {
            guard($cmd, (), || {
                // SAFETY: the handle is null or an object no pending work uses (the command's
                // VUIDs); a wrong type is ignored.
                unsafe { destroy_object::<$ty>(vk::Handle::as_raw(h)) };
            });
        }
    };
}

destroy_fn!(
    destroy_image_view,
    ImageView,
    vk::ImageView,
    "vkDestroyImageView"
);
destroy_fn!(destroy_sampler, Sampler, vk::Sampler, "vkDestroySampler");

pub(super) fn entries<D: Kit>() -> EntryTable {
    EntryTable {
        create_image: Some(create_image::<D>),
        destroy_image: Some(destroy_image),
        get_image_memory_requirements: Some(get_image_memory_requirements),
        get_image_memory_requirements2: Some(get_image_memory_requirements2),
        get_device_image_memory_requirements: Some(get_device_image_memory_requirements::<D>),
        get_image_sparse_memory_requirements: Some(sparse_requirements),
        get_image_sparse_memory_requirements2: Some(sparse_requirements2),
        get_device_image_sparse_memory_requirements: Some(device_sparse_requirements),
        bind_image_memory: Some(bind_image_memory),
        bind_image_memory2: Some(bind_image_memory2::<D>),
        get_image_subresource_layout: Some(get_image_subresource_layout),
        #[cfg(vk_1_4)]
        get_image_subresource_layout2: Some(get_image_subresource_layout2),
        #[cfg(vk_1_4)]
        get_device_image_subresource_layout: Some(get_device_image_subresource_layout),
        #[cfg(vk_1_4)]
        transition_image_layout: Some(transition_image_layout),
        create_image_view: Some(create_image_view),
        destroy_image_view: Some(destroy_image_view),
        create_sampler: Some(create_sampler),
        destroy_sampler: Some(destroy_sampler),
        ..EntryTable::EMPTY
    }
}
