//! `VkRenderPassCreateInfo` (1.0) as the `VkRenderPassCreateInfo2` it means (Mesa's
//! `vk_common_CreateRenderPass`), so one reader ([`Pass::from_create_info2`]) serves both
//! commands: the 1.0 chain's `VkRenderPassMultiviewCreateInfo` becomes the subpasses' view
//! masks, the dependencies' view offsets and the correlated masks; its
//! `VkRenderPassInputAttachmentAspectCreateInfo` the input references' aspect masks (without
//! one, an input reference reads every aspect of its format, as 1.0 says).

use vkgen_generated::vk;

use super::pass::Pass;
use crate::util::{find_in_chain, slice};

/// The 1.0 create info read as its `…2` form.
///
/// # Safety
/// `info` and every array and chain it points at are valid (vkCreateRenderPass's valid usage).
pub unsafe fn pass_from_create_info(
    info: &vk::RenderPassCreateInfo<'_>,
) -> Result<Pass, vk::Result> {
    // SAFETY: the caller's valid chain.
    let multiview: Option<&vk::RenderPassMultiviewCreateInfo<'_>> = unsafe {
        find_in_chain(
            info.p_next,
            vk::StructureType::RENDER_PASS_MULTIVIEW_CREATE_INFO,
        )
    };
    // SAFETY: the caller's valid chain.
    let aspects: Option<&vk::RenderPassInputAttachmentAspectCreateInfo<'_>> = unsafe {
        find_in_chain(
            info.p_next,
            vk::StructureType::RENDER_PASS_INPUT_ATTACHMENT_ASPECT_CREATE_INFO,
        )
    };
    // SAFETY: each array of the valid structures holds its count (the caller's contract).
    let (atts, subs, deps) = unsafe {
        (
            slice(info.p_attachments, info.attachment_count),
            slice(info.p_subpasses, info.subpass_count),
            slice(info.p_dependencies, info.dependency_count),
        )
    };
    // SAFETY: the multiview and aspect arrays of the valid chain hold their counts.
    let (view_masks, view_offsets, correlated, input_aspects) = unsafe {
        (
            multiview.map_or(&[][..], |m| slice(m.p_view_masks, m.subpass_count)),
            multiview.map_or(&[][..], |m| slice(m.p_view_offsets, m.dependency_count)),
            multiview.map_or(&[][..], |m| {
                slice(m.p_correlation_masks, m.correlation_mask_count)
            }),
            aspects.map_or(&[][..], |a| {
                slice(a.p_aspect_references, a.aspect_reference_count)
            }),
        )
    };
    let attachments: Vec<vk::AttachmentDescription2<'_>> = atts
        .iter()
        .map(|a| vk::AttachmentDescription2 {
            flags: a.flags,
            format: a.format,
            samples: a.samples,
            load_op: a.load_op,
            store_op: a.store_op,
            stencil_load_op: a.stencil_load_op,
            stencil_store_op: a.stencil_store_op,
            initial_layout: a.initial_layout,
            final_layout: a.final_layout,
            ..Default::default()
        })
        .collect();
    let refs: Vec<SubpassRefs> = subs
        .iter()
        .enumerate()
        // SAFETY: each subpass's arrays hold their counts (the caller's contract).
        .map(|(s, d)| unsafe { subpass_refs(s, d, atts, input_aspects) })
        .collect();
    let subpasses: Vec<vk::SubpassDescription2<'_>> = subs
        .iter()
        .zip(&refs)
        .enumerate()
        .map(|(s, (d, r))| vk::SubpassDescription2 {
            flags: d.flags,
            pipeline_bind_point: d.pipeline_bind_point,
            view_mask: view_masks.get(s).copied().unwrap_or(0),
            input_attachment_count: r.inputs.len() as u32,
            p_input_attachments: r.inputs.as_ptr(),
            color_attachment_count: r.colors.len() as u32,
            p_color_attachments: r.colors.as_ptr(),
            p_resolve_attachments: if r.resolves.is_empty() {
                std::ptr::null()
            } else {
                r.resolves.as_ptr()
            },
            p_depth_stencil_attachment: r.ds.as_ref().map_or(std::ptr::null(), std::ptr::from_ref),
            preserve_attachment_count: d.preserve_attachment_count,
            p_preserve_attachments: d.p_preserve_attachments,
            ..Default::default()
        })
        .collect();
    let dependencies: Vec<vk::SubpassDependency2<'_>> = deps
        .iter()
        .enumerate()
        .map(|(i, d)| vk::SubpassDependency2 {
            src_subpass: d.src_subpass,
            dst_subpass: d.dst_subpass,
            src_stage_mask: d.src_stage_mask,
            dst_stage_mask: d.dst_stage_mask,
            src_access_mask: d.src_access_mask,
            dst_access_mask: d.dst_access_mask,
            dependency_flags: d.dependency_flags,
            view_offset: view_offsets.get(i).copied().unwrap_or(0),
            ..Default::default()
        })
        .collect();
    let info2 = vk::RenderPassCreateInfo2::default()
        .flags(info.flags)
        .attachments(&attachments)
        .subpasses(&subpasses)
        .dependencies(&dependencies)
        .correlated_view_masks(correlated);
    // SAFETY: `info2` points at the vectors above, alive for the call, and at the
    // application's preserve arrays, valid for the command.
    unsafe { Pass::from_create_info2(&info2) }
}

/// A subpass's 1.0 references as `…2` ones, kept alive while the `…2` subpass points at them.
struct SubpassRefs<'a> {
    inputs: Vec<vk::AttachmentReference2<'a>>,
    colors: Vec<vk::AttachmentReference2<'a>>,
    resolves: Vec<vk::AttachmentReference2<'a>>,
    ds: Option<vk::AttachmentReference2<'a>>,
}

/// Subpass `s`'s references; an input reference's aspects come from `input_aspects`, else
/// from its attachment's format.
///
/// # Safety
/// `d`'s arrays hold their counts.
unsafe fn subpass_refs<'a>(
    s: usize,
    d: &vk::SubpassDescription<'_>,
    atts: &[vk::AttachmentDescription],
    input_aspects: &[vk::InputAttachmentAspectReference],
) -> SubpassRefs<'a> {
    let two = |r: &vk::AttachmentReference| vk::AttachmentReference2 {
        attachment: r.attachment,
        layout: r.layout,
        ..Default::default()
    };
    let format_aspects = |index: u32| {
        atts.get(index as usize)
            .map_or(vk::ImageAspectFlags::empty(), |a| {
                super::formats::aspects(a.format)
            })
    };
    // SAFETY: the subpass's arrays hold their counts (the caller's contract).
    let (inputs, colors, resolves, ds) = unsafe {
        (
            slice(d.p_input_attachments, d.input_attachment_count),
            slice(d.p_color_attachments, d.color_attachment_count),
            slice(d.p_resolve_attachments, d.color_attachment_count),
            d.p_depth_stencil_attachment.as_ref(),
        )
    };
    let inputs = inputs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let named = input_aspects
                .iter()
                .find(|a| a.subpass as usize == s && a.input_attachment_index as usize == i);
            vk::AttachmentReference2 {
                aspect_mask: named.map_or_else(|| format_aspects(r.attachment), |a| a.aspect_mask),
                ..two(r)
            }
        })
        .collect();
    SubpassRefs {
        inputs,
        colors: colors.iter().map(two).collect(),
        resolves: resolves.iter().map(two).collect(),
        ds: ds.map(two),
    }
}
