//! A secondary command buffer begun inside a render pass (`RENDER_PASS_CONTINUE_BIT` with a
//! `VkCommandBufferInheritanceInfo::renderPass`) as one begun inside dynamic rendering (Mesa's
//! `vk_get_command_buffer_inheritance_rendering_info`): the subpass's formats, view mask and
//! samples become a `VkCommandBufferInheritanceRenderingInfo`, so the vendor's
//! [`Kit::command_buffer_begin`](crate::kit::Kit::command_buffer_begin) — like its engine —
//! only ever meets dynamic rendering.

use vkgen_generated::vk;

use super::pass::{RenderPass, SubpassRendering};

/// The subpass a secondary command buffer continues, as dynamic-rendering formats: `None`
/// for a primary, without `RENDER_PASS_CONTINUE_BIT`, or without a render pass of this driver
/// (an application's own `VkCommandBufferInheritanceRenderingInfo` then stands as it is).
///
/// # Safety
/// `begin` and its inheritance info are valid (vkBeginCommandBuffer's valid usage).
pub unsafe fn inheritance_rendering(
    level: vk::CommandBufferLevel,
    begin: &vk::CommandBufferBeginInfo<'_>,
) -> Option<SubpassRendering> {
    if level != vk::CommandBufferLevel::SECONDARY
        || !begin
            .flags
            .contains(vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE)
    {
        return None;
    }
    // SAFETY: null or the application's valid inheritance info (the caller's contract).
    let inheritance = unsafe { begin.p_inheritance_info.as_ref() }?;
    // SAFETY: null or a live render pass (VUID-VkCommandBufferBeginInfo-flags-06000).
    let pass = unsafe { RenderPass::from_handle(inheritance.render_pass) }?;
    pass.subpass_rendering(inheritance.subpass)
}

/// Calls `f` with `begin`, or — for a secondary continuing a render pass of this driver — with
/// a copy whose inheritance info names no render pass and chains the subpass's
/// `VkCommandBufferInheritanceRenderingInfo` (`CONTENTS_SECONDARY_COMMAND_BUFFERS`, as
/// inherited contents are) in front of the application's chain.
///
/// # Safety
/// As for [`inheritance_rendering`].
pub unsafe fn with_inheritance_rendering<R>(
    level: vk::CommandBufferLevel,
    begin: &vk::CommandBufferBeginInfo<'_>,
    f: impl FnOnce(&vk::CommandBufferBeginInfo<'_>) -> R,
) -> R {
    // SAFETY: the caller's valid begin info.
    let Some(r) = (unsafe { inheritance_rendering(level, begin) }) else {
        return f(begin);
    };
    // SAFETY: `inheritance_rendering` found it non-null and valid.
    let inheritance = unsafe { &*begin.p_inheritance_info };
    let rendering = vk::CommandBufferInheritanceRenderingInfo {
        p_next: inheritance.p_next,
        ..r.inheritance_rendering_info()
    };
    let converted = vk::CommandBufferInheritanceInfo {
        p_next: std::ptr::from_ref(&rendering).cast(),
        render_pass: vk::RenderPass::null(),
        subpass: 0,
        framebuffer: vk::Framebuffer::null(),
        ..*inheritance
    };
    let begin = vk::CommandBufferBeginInfo {
        p_inheritance_info: &converted,
        ..*begin
    };
    f(&begin)
}
