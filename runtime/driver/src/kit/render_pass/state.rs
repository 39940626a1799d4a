//! A command buffer inside a render pass instance (Mesa's `vk_command_buffer` render-pass
//! fields and `vk_attachment_state`): the pass, the subpass, the render area, and per
//! attachment its view, clear value, the views already loaded and the current layout of each
//! view (32, multiview's limit) — what the next subpass's transitions start from.
//!
//! The state only *plans*: each step returns the [`Op`]s it stands for (owned values), and
//! [`super::commands`] hands them to the engine once the state is unlocked.

use std::sync::Arc;

use vkgen_generated::vk;

use super::layouts::Layouts;
use super::pass::Pass;

/// Multiview's view limit: one layout slot per view.
pub const MAX_VIEWS: usize = 32;

/// What one render-pass command becomes, in order.
pub enum Op {
    Barrier {
        memory: Option<vk::MemoryBarrier2<'static>>,
        images: Vec<vk::ImageMemoryBarrier2<'static>>,
    },
    Begin(Rendering),
    End,
}

/// An owned `VkRenderingInfo` (see [`Rendering::with_info`]).
pub struct Rendering {
    pub flags: vk::RenderingFlags,
    pub render_area: vk::Rect2D,
    pub layer_count: u32,
    pub view_mask: u32,
    pub colors: Vec<vk::RenderingAttachmentInfo<'static>>,
    pub depth: Option<vk::RenderingAttachmentInfo<'static>>,
    pub stencil: Option<vk::RenderingAttachmentInfo<'static>>,
    /// `VkDeviceGroupRenderPassBeginInfo` of the begin info: device mask and render areas.
    pub device_group: Option<(u32, Vec<vk::Rect2D>)>,
}

impl Rendering {
    /// Calls `f` with the `VkRenderingInfo` this stands for (pointing into `self`).
    pub fn with_info<R>(&self, f: impl FnOnce(&vk::RenderingInfo<'_>) -> R) -> R {
        let group = self.device_group.as_ref().map(|(mask, areas)| {
            vk::DeviceGroupRenderPassBeginInfo::default()
                .device_mask(*mask)
                .device_render_areas(areas)
        });
        let mut info = vk::RenderingInfo::default()
            .flags(self.flags)
            .render_area(self.render_area)
            .layer_count(self.layer_count)
            .view_mask(self.view_mask)
            .color_attachments(&self.colors);
        if let Some(d) = &self.depth {
            info = info.depth_attachment(d);
        }
        if let Some(s) = &self.stencil {
            info = info.stencil_attachment(s);
        }
        if let Some(g) = &group {
            info.p_next = std::ptr::from_ref(g).cast();
        }
        f(&info)
    }
}

/// The image subresources an attachment's view covers, from the kit's view and image objects.
#[derive(Clone, Copy)]
pub struct ViewTarget {
    pub image: vk::Image,
    pub base_mip: u32,
    pub base_layer: u32,
    /// A 3D image: transitions cover the whole mip level, tracked as one view.
    pub depth_slices: Option<u32>,
}

/// One attachment of the pass instance.
pub struct AttachmentState {
    pub view: vk::ImageView,
    pub target: Option<ViewTarget>,
    pub clear: vk::ClearValue,
    /// Views whose load op has run.
    pub views_loaded: u32,
    pub layouts: [Layouts; MAX_VIEWS],
}

/// The render pass instance a command buffer is recording.
pub struct ActivePass {
    pub pass: Arc<Pass>,
    pub subpass: u32,
    pub render_area: vk::Rect2D,
    /// The framebuffer's layer count.
    pub layers: u32,
    pub attachments: Vec<AttachmentState>,
    pub device_group: Option<(u32, Vec<vk::Rect2D>)>,
}

impl ActivePass {
    /// Barriers taking every view of `view_mask` of attachment `index` to `to`, appended to
    /// `out`; the tracked layouts follow (Mesa's `transition_attachment`).
    pub fn transition(
        &mut self,
        index: u32,
        mut view_mask: u32,
        to: Layouts,
        out: &mut Vec<vk::ImageMemoryBarrier2<'static>>,
    ) {
        let (multiview, layers) = (self.pass.is_multiview, self.layers);
        let aspects = self.pass.attachments[index as usize].aspects;
        let att = &mut self.attachments[index as usize];
        if att.target.is_some_and(|t| t.depth_slices.is_some()) {
            view_mask = 1;
        }
        for view in (0..MAX_VIEWS as u32).filter(|v| view_mask & (1 << v) != 0) {
            let from = att.layouts[view as usize];
            if from == to {
                continue;
            }
            att.layouts[view as usize] = to;
            let Some(t) = att.target else { continue };
            let (base_array_layer, layer_count) = match t.depth_slices {
                Some(slices) => (0, slices),
                None if multiview => (t.base_layer + view, 1),
                None => (t.base_layer, layers),
            };
            let range = vk::ImageSubresourceRange {
                aspect_mask: aspects,
                base_mip_level: t.base_mip,
                level_count: 1,
                base_array_layer,
                layer_count,
            };
            super::layouts::transition(t.image, range, from, to, out);
        }
    }
}
