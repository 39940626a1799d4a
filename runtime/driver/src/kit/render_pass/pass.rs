//! `VkRenderPass` as the kit keeps it (Mesa's `vk_render_pass`): the `VkRenderPassCreateInfo2`
//! read once into owned values, with what the conversion to dynamic rendering needs
//! precomputed — each subpass's view mask (1 without multiview, so "every view of the
//! subpass" is one loop either way), each attachment use's `last_views` (the views for which
//! no later subpass uses the attachment: where the pass's store op applies), and the
//! `VkPipelineRenderingCreateInfo` equivalent of each subpass ([`SubpassRendering`]).
//!
//! The content sits behind an `Arc`: a command buffer inside the pass keeps it while it
//! records, whatever the application does with the handle.

use std::sync::Arc;

use vkgen_abi::vk_error;
use vkgen_generated::vk;

use super::formats;
use crate::handles::{Object, ObjectKind};
use crate::util::{find_in_chain, slice};

/// A subpass's attachment formats, view mask and sample count: what
/// `VkPipelineRenderingCreateInfo` and `VkCommandBufferInheritanceRenderingInfo` say for a
/// pipeline or secondary command buffer of that subpass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubpassRendering {
    /// The subpass's `viewMask` (0 without multiview, as the dynamic-rendering structures say).
    pub view_mask: u32,
    /// One per colour attachment reference; `UNDEFINED` for `VK_ATTACHMENT_UNUSED`.
    pub color_formats: Vec<vk::Format>,
    /// The depth/stencil attachment's format if it has depth, else `UNDEFINED`.
    pub depth_format: vk::Format,
    /// The depth/stencil attachment's format if it has stencil, else `UNDEFINED`.
    pub stencil_format: vk::Format,
    /// The sample count of the subpass's colour and depth/stencil attachments (empty when it
    /// has none).
    pub samples: vk::SampleCountFlags,
}

impl SubpassRendering {
    /// As the `VkPipelineRenderingCreateInfo` a pipeline of the subpass would have chained
    /// (pointing into `self`).
    pub fn pipeline_rendering_info(&self) -> vk::PipelineRenderingCreateInfo<'_> {
        vk::PipelineRenderingCreateInfo::default()
            .view_mask(self.view_mask)
            .color_attachment_formats(&self.color_formats)
            .depth_attachment_format(self.depth_format)
            .stencil_attachment_format(self.stencil_format)
    }

    /// As the `VkCommandBufferInheritanceRenderingInfo` of a secondary continuing the subpass
    /// (pointing into `self`): contents in secondaries, as inherited contents are; a subpass
    /// without attachments counts as single-sampled.
    pub fn inheritance_rendering_info(&self) -> vk::CommandBufferInheritanceRenderingInfo<'_> {
        let samples = if self.samples.is_empty() {
            vk::SampleCountFlags::TYPE_1
        } else {
            self.samples
        };
        vk::CommandBufferInheritanceRenderingInfo::default()
            .flags(vk::RenderingFlags::CONTENTS_SECONDARY_COMMAND_BUFFERS)
            .view_mask(self.view_mask)
            .color_attachment_formats(&self.color_formats)
            .depth_attachment_format(self.depth_format)
            .stencil_attachment_format(self.stencil_format)
            .rasterization_samples(samples)
    }
}

/// One `VkAttachmentDescription2`, with its stencil layouts resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub flags: vk::AttachmentDescriptionFlags,
    pub format: vk::Format,
    pub samples: vk::SampleCountFlags,
    /// The format's aspects (colour, or depth and/or stencil).
    pub aspects: vk::ImageAspectFlags,
    pub load_op: vk::AttachmentLoadOp,
    pub store_op: vk::AttachmentStoreOp,
    pub stencil_load_op: vk::AttachmentLoadOp,
    pub stencil_store_op: vk::AttachmentStoreOp,
    pub initial_layout: vk::ImageLayout,
    pub final_layout: vk::ImageLayout,
    /// `VkAttachmentDescriptionStencilLayout`'s, else the depth layouts.
    pub initial_stencil_layout: vk::ImageLayout,
    pub final_stencil_layout: vk::ImageLayout,
    /// Every view any subpass uses it in.
    pub view_mask: u32,
}

/// One attachment reference of a subpass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubpassAttachment {
    /// The index into [`Pass::attachments`]; never `VK_ATTACHMENT_UNUSED` (unused references
    /// are `None` where they are kept at all).
    pub attachment: u32,
    /// The reference's aspect mask (input attachments), else the attachment's aspects.
    pub aspects: vk::ImageAspectFlags,
    pub layout: vk::ImageLayout,
    /// `VkAttachmentReferenceStencilLayout`'s, else `layout`.
    pub stencil_layout: vk::ImageLayout,
    /// Views of the subpass for which no later subpass uses the attachment.
    pub last_views: u32,
}

/// One `VkSubpassDescription2`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subpass {
    pub flags: vk::SubpassDescriptionFlags,
    pub bind_point: vk::PipelineBindPoint,
    /// The subpass's views; 1 without multiview.
    pub view_mask: u32,
    pub inputs: Vec<Option<SubpassAttachment>>,
    pub colors: Vec<Option<SubpassAttachment>>,
    /// Empty, or one per colour attachment.
    pub resolves: Vec<Option<SubpassAttachment>>,
    pub depth_stencil: Option<SubpassAttachment>,
    /// `VkSubpassDescriptionDepthStencilResolve`'s attachment and modes.
    pub depth_stencil_resolve: Option<SubpassAttachment>,
    pub depth_resolve_mode: vk::ResolveModeFlags,
    pub stencil_resolve_mode: vk::ResolveModeFlags,
    pub preserve: Vec<u32>,
    pub rendering: SubpassRendering,
}

impl Subpass {
    /// Every used attachment reference, in Mesa's order (inputs, colours, resolves,
    /// depth/stencil, its resolve).
    pub fn uses(&self) -> impl Iterator<Item = &SubpassAttachment> {
        self.inputs
            .iter()
            .chain(&self.colors)
            .chain(&self.resolves)
            .chain(std::iter::once(&self.depth_stencil))
            .chain(std::iter::once(&self.depth_stencil_resolve))
            .flatten()
    }

    fn uses_mut(&mut self) -> impl Iterator<Item = &mut SubpassAttachment> {
        self.inputs
            .iter_mut()
            .chain(&mut self.colors)
            .chain(&mut self.resolves)
            .chain(std::iter::once(&mut self.depth_stencil))
            .chain(std::iter::once(&mut self.depth_stencil_resolve))
            .flatten()
    }
}

/// One `VkSubpassDependency2` (a chained `VkMemoryBarrier2` replaces its masks, as the spec
/// says).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dependency {
    pub src_subpass: u32,
    pub dst_subpass: u32,
    pub src_stage_mask: vk::PipelineStageFlags2,
    pub dst_stage_mask: vk::PipelineStageFlags2,
    pub src_access_mask: vk::AccessFlags2,
    pub dst_access_mask: vk::AccessFlags2,
    pub flags: vk::DependencyFlags,
    pub view_offset: i32,
}

/// A render pass's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pass {
    pub flags: vk::RenderPassCreateFlags,
    /// Whether the subpasses have view masks (all do or none does).
    pub is_multiview: bool,
    /// Every view of every subpass (1 without multiview).
    pub view_mask: u32,
    pub attachments: Vec<Attachment>,
    pub subpasses: Vec<Subpass>,
    pub dependencies: Vec<Dependency>,
    pub correlated_view_masks: Vec<u32>,
}

/// `VkRenderPass`.
pub struct RenderPass {
    pub pass: Arc<Pass>,
}

impl ObjectKind for RenderPass {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::RENDER_PASS;
}

impl std::ops::Deref for RenderPass {
    type Target = Pass;
    fn deref(&self) -> &Pass {
        &self.pass
    }
}

impl RenderPass {
    /// The render pass behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkRenderPass` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::RenderPass) -> Option<&'a Self> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<RenderPass>::from_handle(h) }.map(|o| &**o)
    }

    /// The dynamic-rendering formats of `subpass` (`None` past the last subpass).
    pub fn subpass_rendering(&self, subpass: u32) -> Option<SubpassRendering> {
        self.pass.subpass_rendering(subpass)
    }
}

impl Pass {
    /// See [`RenderPass::subpass_rendering`].
    pub fn subpass_rendering(&self, subpass: u32) -> Option<SubpassRendering> {
        self.subpasses
            .get(subpass as usize)
            .map(|s| s.rendering.clone())
    }

    /// Reads a `VkRenderPassCreateInfo2` (Mesa's `vk_common_CreateRenderPass2`). An attachment
    /// index out of range is a logged `VK_ERROR_OUT_OF_HOST_MEMORY` (the only failure the
    /// command has; invalid usage has none of its own).
    ///
    /// # Safety
    /// `info` and every array and chain it points at are valid (the command's valid usage).
    pub unsafe fn from_create_info2(
        info: &vk::RenderPassCreateInfo2<'_>,
    ) -> Result<Pass, vk::Result> {
        // SAFETY: the caller's valid structure: each count describes its array.
        let (atts, subs, deps) = unsafe {
            (
                slice(info.p_attachments, info.attachment_count),
                slice(info.p_subpasses, info.subpass_count),
                slice(info.p_dependencies, info.dependency_count),
            )
        };
        // SAFETY: the attachments' chains are valid (the caller's contract).
        let attachments: Vec<Attachment> = atts.iter().map(|a| unsafe { attachment(a) }).collect();
        let mut subpasses = Vec::with_capacity(subs.len());
        for (i, desc) in subs.iter().enumerate() {
            // SAFETY: the subpass's arrays and chain are valid (the caller's contract).
            match unsafe { subpass(desc, &attachments) } {
                Some(s) => subpasses.push(s),
                None => {
                    return Err(vk_error!(
                        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                        "vkCreateRenderPass2: subpass {i} references an attachment past the {} of the pass",
                        attachments.len()
                    ))
                }
            }
        }
        let is_multiview = subs.iter().any(|s| s.view_mask != 0);
        let mut pass = Pass {
            flags: info.flags,
            is_multiview,
            view_mask: subpasses.iter().fold(0, |m, s| m | s.view_mask),
            attachments,
            subpasses,
            // SAFETY: each dependency's chain is valid (the caller's contract).
            dependencies: deps.iter().map(|d| unsafe { dependency(d) }).collect(),
            // SAFETY: `correlatedViewMaskCount` masks (the caller's contract).
            correlated_view_masks: unsafe {
                slice(
                    info.p_correlated_view_masks,
                    info.correlated_view_mask_count,
                )
            }
            .to_vec(),
        };
        pass.compute_last_views();
        Ok(pass)
    }

    /// Walks the subpasses backwards: a use's `last_views` are the subpass's views no later
    /// subpass touches the attachment in, then the attachment's views grow by the subpass's
    /// (two loops, so an attachment used twice in one subpass gets the same answer twice).
    fn compute_last_views(&mut self) {
        let Pass {
            attachments,
            subpasses,
            ..
        } = self;
        for s in subpasses.iter_mut().rev() {
            let mask = s.view_mask;
            for u in s.uses_mut() {
                u.last_views = mask & !attachments[u.attachment as usize].view_mask;
            }
            for u in s.uses() {
                attachments[u.attachment as usize].view_mask |= mask;
            }
        }
    }
}

/// # Safety
/// `a`'s chain is valid.
unsafe fn attachment(a: &vk::AttachmentDescription2<'_>) -> Attachment {
    // SAFETY: the caller's valid chain.
    let stencil: Option<&vk::AttachmentDescriptionStencilLayout<'_>> = unsafe {
        find_in_chain(
            a.p_next,
            vk::StructureType::ATTACHMENT_DESCRIPTION_STENCIL_LAYOUT,
        )
    };
    Attachment {
        flags: a.flags,
        format: a.format,
        samples: a.samples,
        aspects: formats::aspects(a.format),
        load_op: a.load_op,
        store_op: a.store_op,
        stencil_load_op: a.stencil_load_op,
        stencil_store_op: a.stencil_store_op,
        initial_layout: a.initial_layout,
        final_layout: a.final_layout,
        initial_stencil_layout: stencil.map_or(a.initial_layout, |s| s.stencil_initial_layout),
        final_stencil_layout: stencil.map_or(a.final_layout, |s| s.stencil_final_layout),
        view_mask: 0,
    }
}

/// One reference: `Ok(None)` for `VK_ATTACHMENT_UNUSED`, `Err` past the attachments.
///
/// # Safety
/// `r`'s chain is valid.
unsafe fn reference(
    r: &vk::AttachmentReference2<'_>,
    attachments: &[Attachment],
    input: bool,
) -> Result<Option<SubpassAttachment>, ()> {
    if r.attachment == vk::ATTACHMENT_UNUSED {
        return Ok(None);
    }
    let att = attachments.get(r.attachment as usize).ok_or(())?;
    // SAFETY: the caller's valid chain.
    let stencil: Option<&vk::AttachmentReferenceStencilLayout<'_>> = unsafe {
        find_in_chain(
            r.p_next,
            vk::StructureType::ATTACHMENT_REFERENCE_STENCIL_LAYOUT,
        )
    };
    Ok(Some(SubpassAttachment {
        attachment: r.attachment,
        aspects: if input && !r.aspect_mask.is_empty() {
            r.aspect_mask
        } else {
            att.aspects
        },
        layout: r.layout,
        stencil_layout: stencil.map_or(r.layout, |s| s.stencil_layout),
        last_views: 0,
    }))
}

/// # Safety
/// `refs` is null or holds `n` valid references.
unsafe fn references(
    refs: *const vk::AttachmentReference2<'_>,
    n: u32,
    attachments: &[Attachment],
    input: bool,
) -> Option<Vec<Option<SubpassAttachment>>> {
    // SAFETY: the caller's array, each reference's chain valid.
    unsafe { slice(refs, n) }
        .iter()
        // SAFETY: each reference's chain is valid (the caller's contract).
        .map(|r| unsafe { reference(r, attachments, input) }.ok())
        .collect()
}

/// `None` when a reference is out of range.
///
/// # Safety
/// `d`'s arrays and chain are valid.
unsafe fn subpass(d: &vk::SubpassDescription2<'_>, attachments: &[Attachment]) -> Option<Subpass> {
    let n = d.color_attachment_count;
    // SAFETY: the caller's valid arrays (`pResolveAttachments` is null or `n` long).
    let (inputs, colors, resolves) = unsafe {
        (
            references(
                d.p_input_attachments,
                d.input_attachment_count,
                attachments,
                true,
            )?,
            references(d.p_color_attachments, n, attachments, false)?,
            references(d.p_resolve_attachments, n, attachments, false)?,
        )
    };
    // SAFETY: null or a valid reference.
    let depth_stencil = match unsafe { d.p_depth_stencil_attachment.as_ref() } {
        // SAFETY: the reference's chain is valid with the subpass (the caller's contract).
        Some(r) => unsafe { reference(r, attachments, false) }.ok()?,
        None => None,
    };
    // SAFETY: the caller's valid chain.
    let ds_resolve: Option<&vk::SubpassDescriptionDepthStencilResolve<'_>> = unsafe {
        find_in_chain(
            d.p_next,
            vk::StructureType::SUBPASS_DESCRIPTION_DEPTH_STENCIL_RESOLVE,
        )
    };
    let (mut depth_resolve_mode, mut stencil_resolve_mode) = Default::default();
    let mut depth_stencil_resolve = None;
    if let Some(r) = ds_resolve {
        // SAFETY: null or a valid reference.
        if let Some(att) = unsafe { r.p_depth_stencil_resolve_attachment.as_ref() } {
            // SAFETY: the reference's chain is valid with the subpass (the caller's contract).
            depth_stencil_resolve = unsafe { reference(att, attachments, false) }.ok()?;
            depth_resolve_mode = r.depth_resolve_mode;
            stencil_resolve_mode = r.stencil_resolve_mode;
        }
    }
    let format = |a: &Option<SubpassAttachment>| {
        a.map_or(vk::Format::UNDEFINED, |a| {
            attachments[a.attachment as usize].format
        })
    };
    let ds_format = format(&depth_stencil);
    let ds_aspects = formats::aspects(ds_format);
    let samples = colors
        .iter()
        .chain(std::iter::once(&depth_stencil))
        .flatten()
        .fold(vk::SampleCountFlags::empty(), |s, a| {
            s | attachments[a.attachment as usize].samples
        });
    let has = |aspect| depth_stencil.is_some() && ds_aspects.contains(aspect);
    let rendering = SubpassRendering {
        view_mask: d.view_mask,
        color_formats: colors.iter().map(format).collect(),
        depth_format: if has(vk::ImageAspectFlags::DEPTH) {
            ds_format
        } else {
            vk::Format::UNDEFINED
        },
        stencil_format: if has(vk::ImageAspectFlags::STENCIL) {
            ds_format
        } else {
            vk::Format::UNDEFINED
        },
        samples,
    };
    Some(Subpass {
        flags: d.flags,
        bind_point: d.pipeline_bind_point,
        view_mask: if d.view_mask == 0 { 1 } else { d.view_mask },
        inputs,
        colors,
        resolves,
        depth_stencil,
        depth_stencil_resolve,
        depth_resolve_mode,
        stencil_resolve_mode,
        // SAFETY: the caller's valid array.
        preserve: unsafe { slice(d.p_preserve_attachments, d.preserve_attachment_count) }.to_vec(),
        rendering,
    })
}

/// # Safety
/// `d`'s chain is valid.
unsafe fn dependency(d: &vk::SubpassDependency2<'_>) -> Dependency {
    let mut dep = Dependency {
        src_subpass: d.src_subpass,
        dst_subpass: d.dst_subpass,
        src_stage_mask: vkgen_generated::recorder::stages2(d.src_stage_mask),
        dst_stage_mask: vkgen_generated::recorder::stages2(d.dst_stage_mask),
        src_access_mask: vk::AccessFlags2::from_raw(u64::from(d.src_access_mask.as_raw())),
        dst_access_mask: vk::AccessFlags2::from_raw(u64::from(d.dst_access_mask.as_raw())),
        flags: d.dependency_flags,
        view_offset: d.view_offset,
    };
    // SAFETY: the caller's valid chain.
    let barrier: Option<&vk::MemoryBarrier2<'_>> =
        unsafe { find_in_chain(d.p_next, vk::StructureType::MEMORY_BARRIER_2) };
    if let Some(b) = barrier {
        dep.src_stage_mask = b.src_stage_mask;
        dep.dst_stage_mask = b.dst_stage_mask;
        dep.src_access_mask = b.src_access_mask;
        dep.dst_access_mask = b.dst_access_mask;
    }
    dep
}
