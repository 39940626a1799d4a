//! `vkCmdBeginRenderPass2`, `vkCmdNextSubpass2` and `vkCmdEndRenderPass2` (their 1.0 forms
//! arrive through [`crate::kit::routes`]): the command buffer's [`ActivePass`] plans each step,
//! then the [`Op`]s go to the driver's own `vkCmdPipelineBarrier2`, `vkCmdBeginRendering` and
//! `vkCmdEndRendering` — the vendor's hook where it has one, else the driver's command map below
//! its hooks, reached through [`Driver::fallback`] (`#[driver(kit)]` makes that the kit's
//! assembled map; with [`Kit::RECORD_COMMANDS`] the generated recorder, which deep-copies them
//! into the recording exactly as it copies an application's call). The render pass component
//! asks the driver, not the assembly above it, for the map. So the engine replays dynamic rendering
//! and never sees a render pass.

use vkgen_generated::commands::CommandId;
use vkgen_generated::driver::Driver;
use vkgen_generated::pfn;
use vkgen_generated::vk;

use super::framebuffer::Framebuffer;
use super::layouts::Layouts;
use super::pass::RenderPass;
use super::state::{ActivePass, AttachmentState, Op, ViewTarget, MAX_VIEWS};
use crate::kit::api::Kit;
use crate::kit::command::object::CommandBuffer;
use crate::kit::resources::{Image, ImageView};
use crate::util::{find_in_chain, guard, lock, slice};

/// A render pass of a driver that cannot run what it becomes (no hook, no recorder).
fn missing(command: &str) {
    log::error!(
        "render pass: the driver has no {command} (hook it, or turn RECORD_COMMANDS on); \
         the render pass is dropped"
    );
}

/// Hands `ops` to the driver's dynamic-rendering and barrier commands, in order.
///
/// # Safety
/// `cb` is a command buffer of this driver in the recording state.
unsafe fn emit<D: Kit>(cb: vk::CommandBuffer, ops: &[Op]) {
    let entry = <D as Driver>::fallback;
    for op in ops {
        match op {
            Op::Barrier { memory, images } => {
                let memory = memory.as_slice();
                let info = vk::DependencyInfo::default()
                    .memory_barriers(memory)
                    .image_memory_barriers(images);
                // SAFETY: `info` points at `ops`, alive for the call; `cb` is the caller's.
                unsafe {
                    if D::implements(CommandId::CMD_PIPELINE_BARRIER2) {
                        D::cmd_pipeline_barrier2(cb, &info)
                    } else if let Some(f) = entry(CommandId::CMD_PIPELINE_BARRIER2) {
                        // SAFETY: the driver's entry for vkCmdPipelineBarrier2 has its type
                        // (the command map holds each command's entry typed as the command).
                        let f: pfn::PFN_vkCmdPipelineBarrier2 = std::mem::transmute(f);
                        f(cb, &info)
                    } else {
                        missing("vkCmdPipelineBarrier2")
                    }
                }
            }
            Op::Begin(r) => r.with_info(|info| {
                // SAFETY: `info` points into `r`, alive for the call; `cb` is the caller's.
                unsafe {
                    if D::implements(CommandId::CMD_BEGIN_RENDERING) {
                        D::cmd_begin_rendering(cb, info)
                    } else if let Some(f) = entry(CommandId::CMD_BEGIN_RENDERING) {
                        // SAFETY: the driver's entry for vkCmdBeginRendering has its type.
                        let f: pfn::PFN_vkCmdBeginRendering = std::mem::transmute(f);
                        f(cb, info)
                    } else {
                        missing("vkCmdBeginRendering")
                    }
                }
            }),
            // SAFETY: `cb` is the caller's recording command buffer.
            Op::End => unsafe {
                if D::implements(CommandId::CMD_END_RENDERING) {
                    D::cmd_end_rendering(cb)
                } else if let Some(f) = entry(CommandId::CMD_END_RENDERING) {
                    // SAFETY: the driver's entry for vkCmdEndRendering has its type.
                    let f: pfn::PFN_vkCmdEndRendering = std::mem::transmute(f);
                    f(cb)
                } else {
                    missing("vkCmdEndRendering")
                }
            },
        }
    }
}

/// Plans with `cb`'s pass instance under its lock, then emits what was planned.
///
/// # Safety
/// `cb` is a command buffer of this driver in the recording state.
unsafe fn step<D: Kit>(
    command: &str,
    cb: vk::CommandBuffer,
    plan: impl FnOnce(&mut Option<ActivePass>, &mut Vec<Op>),
) {
    // SAFETY: the caller's command buffer (or garbage `from_handle` refuses by type).
    let Some(buffer) = (unsafe { CommandBuffer::<D>::from_handle(cb) }) else {
        log::error!("{command}: {cb:?} is no command buffer of this driver");
        return;
    };
    let mut ops = Vec::new();
    plan(&mut lock(&buffer.render_pass), &mut ops);
    // SAFETY: the caller's recording command buffer.
    unsafe { emit::<D>(cb, &ops) };
}

/// The pass instance `begin` starts: views from the framebuffer, or from the chained
/// `VkRenderPassAttachmentBeginInfo` for an imageless one.
///
/// # Safety
/// `begin`'s handles are live objects of this driver, its arrays and chain valid.
unsafe fn start<D: Kit>(begin: &vk::RenderPassBeginInfo<'_>) -> Option<ActivePass> {
    // SAFETY: live handles of this driver (vkCmdBeginRenderPass2's valid usage).
    let (pass, fb) = unsafe {
        (
            RenderPass::from_handle(begin.render_pass),
            Framebuffer::from_handle(begin.framebuffer),
        )
    };
    let (Some(pass), Some(fb)) = (pass, fb) else {
        log::error!("vkCmdBeginRenderPass2: no render pass or framebuffer of this driver");
        return None;
    };
    // SAFETY: the begin info's valid chain.
    let given: Option<&vk::RenderPassAttachmentBeginInfo<'_>> = unsafe {
        find_in_chain(
            begin.p_next,
            vk::StructureType::RENDER_PASS_ATTACHMENT_BEGIN_INFO,
        )
    };
    let views = match given {
        // SAFETY: `attachmentCount` views (valid usage).
        Some(g) if g.attachment_count != 0 => unsafe { slice(g.p_attachments, g.attachment_count) },
        _ => &fb.attachments[..],
    };
    if views.len() < pass.attachments.len() {
        log::error!(
            "vkCmdBeginRenderPass2: {} attachment views for a pass of {}",
            views.len(),
            pass.attachments.len()
        );
        return None;
    }
    // SAFETY: `clearValueCount` values (valid usage).
    let clears = unsafe { slice(begin.p_clear_values, begin.clear_value_count) };
    let attachments = pass
        .attachments
        .iter()
        .enumerate()
        .map(|(i, a)| AttachmentState {
            view: views[i],
            // Only the kit's views can be looked into: a vendor's handle may be no pointer.
            target: if D::RESOURCE_OBJECTS {
                // SAFETY: the views are live image views of this driver (valid usage), which
                // are the kit's with the component on.
                unsafe { ViewTarget::of(views[i]) }
            } else {
                None
            },
            clear: clears.get(i).copied().unwrap_or_default(),
            views_loaded: 0,
            layouts: [Layouts {
                layout: a.initial_layout,
                stencil: a.initial_stencil_layout,
            }; MAX_VIEWS],
        })
        .collect();
    // SAFETY: the begin info's valid chain.
    let group: Option<&vk::DeviceGroupRenderPassBeginInfo<'_>> = unsafe {
        find_in_chain(
            begin.p_next,
            vk::StructureType::DEVICE_GROUP_RENDER_PASS_BEGIN_INFO,
        )
    };
    Some(ActivePass {
        pass: pass.pass.clone(),
        subpass: 0,
        render_area: begin.render_area,
        layers: fb.layers,
        attachments,
        device_group: group.map(|g| {
            // SAFETY: `deviceRenderAreaCount` areas (valid usage).
            let areas = unsafe { slice(g.p_device_render_areas, g.device_render_area_count) };
            (g.device_mask, areas.to_vec())
        }),
    })
}

fn contents(info: *const vk::SubpassBeginInfo<'_>) -> vk::SubpassContents {
    // SAFETY: null or the application's valid structure (the command's valid usage).
    unsafe { info.as_ref() }.map_or(vk::SubpassContents::INLINE, |i| i.contents)
}

/// [`vkCmdBeginRenderPass2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCmdBeginRenderPass2.html)
pub unsafe extern "system" fn cmd_begin_render_pass2<D: Kit>(
    cb: vk::CommandBuffer,
    p_begin: *const vk::RenderPassBeginInfo<'_>,
    p_subpass: *const vk::SubpassBeginInfo<'_>,
) {
    guard("vkCmdBeginRenderPass2", (), || {
        // SAFETY: the application's recording command buffer; the begin info is null or valid.
        unsafe {
            step::<D>("vkCmdBeginRenderPass2", cb, |state, ops| {
                let Some(begin) = p_begin.as_ref() else {
                    return log::error!("vkCmdBeginRenderPass2 without a begin info");
                };
                if state.is_some() {
                    log::error!("vkCmdBeginRenderPass2 inside a render pass instance");
                }
                *state = start::<D>(begin);
                if let Some(active) = state {
                    active.begin_subpass(contents(p_subpass), ops);
                }
            })
        }
    })
}

/// [`vkCmdNextSubpass2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCmdNextSubpass2.html)
pub unsafe extern "system" fn cmd_next_subpass2<D: Kit>(
    cb: vk::CommandBuffer,
    p_begin: *const vk::SubpassBeginInfo<'_>,
    _p_end: *const vk::SubpassEndInfo<'_>,
) {
    guard("vkCmdNextSubpass2", (), || {
        // SAFETY: the application's recording command buffer.
        unsafe {
            step::<D>("vkCmdNextSubpass2", cb, |state, ops| {
                let Some(active) = state else {
                    return log::error!("vkCmdNextSubpass2 outside a render pass instance");
                };
                if active.subpass as usize + 1 >= active.pass.subpasses.len() {
                    return log::error!("vkCmdNextSubpass2 past the last subpass");
                }
                ops.push(Op::End);
                active.subpass += 1;
                active.begin_subpass(contents(p_begin), ops);
            })
        }
    })
}

/// [`vkCmdEndRenderPass2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCmdEndRenderPass2.html)
pub unsafe extern "system" fn cmd_end_render_pass2<D: Kit>(
    cb: vk::CommandBuffer,
    _p_end: *const vk::SubpassEndInfo<'_>,
) {
    guard("vkCmdEndRenderPass2", (), || {
        // SAFETY: the application's recording command buffer.
        unsafe {
            step::<D>("vkCmdEndRenderPass2", cb, |state, ops| {
                let Some(mut active) = state.take() else {
                    return log::error!("vkCmdEndRenderPass2 outside a render pass instance");
                };
                ops.push(Op::End);
                active.end_pass(ops);
            })
        }
    })
}

// Here, beside the pass commands that use it, rather than with the type: reading the kit's
// image objects would make the pass state (which command buffers hold) depend on them.
impl ViewTarget {
    /// The view's image and range, or `None` when `view` is no kit image view (the engine
    /// then gets no barriers for it: there is no image to name).
    ///
    /// # Safety
    /// `view` is null or a live image view of this driver.
    pub unsafe fn of(view: vk::ImageView) -> Option<ViewTarget> {
        // SAFETY: the caller's live (or null) view; the image outlives its views.
        let v = unsafe { ImageView::from_handle(view) }?;
        // SAFETY: a view's image is live while the view is (valid usage of vkDestroyImage).
        let image = unsafe { Image::from_handle(v.image) };
        let base_mip = v.subresource_range.base_mip_level;
        let depth_slices = image
            .filter(|i| i.desc.image_type == vk::ImageType::TYPE_3D)
            .map(|i| (i.desc.extent.depth >> base_mip).max(1));
        Some(ViewTarget {
            image: v.image,
            base_mip,
            base_layer: v.subresource_range.base_array_layer,
            depth_slices,
        })
    }
}
