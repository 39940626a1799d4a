//! `VkFramebuffer` (Mesa's `vk_framebuffer`): its size, layer count and attachment views. An
//! imageless framebuffer (`VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT`) keeps only what its
//! `VkFramebufferAttachmentsCreateInfo` describes; the views arrive with each
//! `vkCmdBeginRenderPass` in `VkRenderPassAttachmentBeginInfo`.

use vkgen_abi::vk_error;
use vkgen_generated::vk;

use crate::handles::{destroy_object, Object, ObjectKind};
use crate::util::{find_in_chain, guard, slice};

/// One attachment of an imageless framebuffer (`VkFramebufferAttachmentImageInfo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImagelessAttachment {
    pub flags: vk::ImageCreateFlags,
    pub usage: vk::ImageUsageFlags,
    pub width: u32,
    pub height: u32,
    pub layer_count: u32,
    pub view_formats: Vec<vk::Format>,
}

/// `VkFramebuffer`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Framebuffer {
    pub flags: vk::FramebufferCreateFlags,
    pub width: u32,
    pub height: u32,
    pub layers: u32,
    /// The views; empty for an imageless framebuffer.
    pub attachments: Vec<vk::ImageView>,
    /// What an imageless framebuffer's views will be; empty otherwise.
    pub imageless: Vec<ImagelessAttachment>,
}

impl ObjectKind for Framebuffer {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::FRAMEBUFFER;
}

impl Framebuffer {
    /// The framebuffer behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkFramebuffer` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::Framebuffer) -> Option<&'a Self> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<Framebuffer>::from_handle(h) }.map(|o| &**o)
    }

    pub fn is_imageless(&self) -> bool {
        self.flags.contains(vk::FramebufferCreateFlags::IMAGELESS)
    }

    /// Reads a create info.
    ///
    /// # Safety
    /// `info`'s arrays and chain are valid (vkCreateFramebuffer's valid usage).
    pub unsafe fn from_create_info(info: &vk::FramebufferCreateInfo<'_>) -> Framebuffer {
        let imageless = info.flags.contains(vk::FramebufferCreateFlags::IMAGELESS);
        // SAFETY: the caller's valid chain.
        let infos: Option<&vk::FramebufferAttachmentsCreateInfo<'_>> = unsafe {
            find_in_chain(
                info.p_next,
                vk::StructureType::FRAMEBUFFER_ATTACHMENTS_CREATE_INFO,
            )
        };
        Framebuffer {
            flags: info.flags,
            width: info.width,
            height: info.height,
            layers: info.layers,
            attachments: if imageless {
                Vec::new()
            } else {
                // SAFETY: `attachmentCount` views (the caller's contract).
                unsafe { slice(info.p_attachments, info.attachment_count) }.to_vec()
            },
            imageless: match (imageless, infos) {
                (true, Some(i)) => {
                    // SAFETY: `attachmentImageInfoCount` infos (the caller's contract).
                    unsafe { slice(i.p_attachment_image_infos, i.attachment_image_info_count) }
                        .iter()
                        .map(|a| ImagelessAttachment {
                            flags: a.flags,
                            usage: a.usage,
                            width: a.width,
                            height: a.height,
                            layer_count: a.layer_count,
                            // SAFETY: `viewFormatCount` formats (the caller's contract).
                            view_formats: unsafe { slice(a.p_view_formats, a.view_format_count) }
                                .to_vec(),
                        })
                        .collect()
                }
                _ => Vec::new(),
            },
        }
    }
}

/// [`vkCreateFramebuffer`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateFramebuffer.html)
pub(super) unsafe extern "system" fn create_framebuffer(
    _device: vk::Device,
    p_info: *const vk::FramebufferCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_framebuffer: *mut vk::Framebuffer,
) -> vk::Result {
    guard(
        "vkCreateFramebuffer",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure (VUID-vkCreateFramebuffer-pCreateInfo-parameter).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "null pCreateInfo");
            };
            // SAFETY: its arrays and chain are valid with it.
            let fb = unsafe { Framebuffer::from_create_info(info) };
            // SAFETY: the application's allocator and output pointer (-pAllocator-, -pFramebuffer-parameter).
            unsafe { super::super::resources::desc::store(fb, p_allocator, p_framebuffer) }
        },
    )
}

/// [`vkDestroyFramebuffer`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyFramebuffer.html)
pub(super) unsafe extern "system" fn destroy_framebuffer(
    _device: vk::Device,
    framebuffer: vk::Framebuffer,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyFramebuffer", (), || {
        // SAFETY: null or a framebuffer no pending work uses (VUID-vkDestroyFramebuffer-framebuffer-00892).
        unsafe { destroy_object::<Framebuffer>(vk::Handle::as_raw(framebuffer)) };
    });
}
